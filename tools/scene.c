// SPDX-License-Identifier: MIT
// scene: loads a JSON scene file (docs/scenes.md) with Debian's libcjson, validates every key, and
// builds the world. The loader runs in two passes so nothing is allocated for a scene that is going
// to be refused: pass 1 reads the settings, the run and the generators and counts the bodies against
// the caps and the free memory; pass 2 creates the world, the colliders and the bodies.
//
// The loader's other files, by concern, are listed in scene_internal.h; this one holds the entry
// points of scene.h: loading, stepping and resuming, and the accessors.
#include "scene_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

// Bytes of engine memory per body at the peak of a settling pile (docs/benchmarks.md: PILE 100k peaks at
// 80 MB), rounded up, plus the random-box placement grid: what the memory check budgets.
#define BYTES_PER_BODY 1100.0
// A parsed JSON document costs at most this many times its text (a 64-byte node per 2 bytes).
#define PARSE_BYTES_PER_BYTE 40.0

// ---- memory ----------------------------------------------------------------------------------------

// Bytes this process may still allocate: MemAvailable, lowered by an address-space limit. 0 when
// unknown (then the loader trusts the caps alone).
static double available_bytes(void) {
    double avail = 0;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f != NULL) {
        char line[128];
        while (fgets(line, sizeof line, f) != NULL) {
            double kb;
            if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) {
                avail = kb * 1024.0;
                break;
            }
        }
        fclose(f);
    }
    if (avail == 0) {
        long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        if (pages > 0 && size > 0) avail = (double)pages * (double)size;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (avail == 0 || (double)rl.rlim_cur < avail))
        avail = (double)rl.rlim_cur;
    return avail;
}

// ---- loading -----------------------------------------------------------------------------------

static const char *const ROOT_KEYS[] = {"kyu_scene", "description", "seed",       "world", "body_defaults",
                                        "colliders", "bodies",      "generators", "run",   NULL};

static int check_capacity(ctx *c, kyu_scene *s, const cJSON *bodies, const cJSON *colliders) {
    int nc = colliders ? cJSON_GetArraySize(colliders) : 0;
    if (nc > c->max_colliders)
        return fail(c, "colliders", "has %d colliders, more than the limit of %d", nc, c->max_colliders);
    double total = bodies ? cJSON_GetArraySize(bodies) : 0;
    const char *where = "bodies";
    keypath k;
    for (int i = 0; i < s->gen_count; i++) {
        total += (double)s->gen[i].count;
        if (total > c->max_bodies) {
            k = kp_key(kp_index("generators", i).s, "count");
            where = k.s;
            break;
        }
    }
    if (total > c->max_bodies)
        return fail(c, where,
                    "the scene would have %.0f bodies or more, more than the limit of "
                    "%d",
                    total, c->max_bodies);
    double need_bytes = total * BYTES_PER_BODY, avail = total > 1e4 ? available_bytes() : 0;
    if (avail > 0 && need_bytes > 0.8 * avail)
        return fail(c, where,
                    "%.0f bodies need about %.1f GiB of memory, only %.1f GiB is "
                    "available",
                    total, need_bytes / 1073741824.0, avail / 1073741824.0);
    s->planned = (long)total;
    return 0;
}

static int parse_head(ctx *c, const cJSON *root, kyu_scene *s, body_tpl *defaults,
                      const kyu_scene_options *opt) {
    const cJSON *v = item(root, "kyu_scene"), *desc = item(root, "description");
    const cJSON *bd = item(root, "body_defaults");
    double version;
    if (!cJSON_IsObject(root))
        return fail(c, NULL, "a scene must be a JSON object {...}, got %s", json_type_name(root));
    if (check_keys(c, root, "", ROOT_KEYS, NULL) != 0) return -1;
    if (v != NULL && (int_value(c, v, "kyu_scene", 1, 1, &version) != 0)) return -1;
    if (desc != NULL && !cJSON_IsString(desc)) return fail_type(c, "description", desc, "a string");
    if (parse_seed(c, root, "", &s->seed) != 0 ||
        parse_world(c, item(root, "world"), &s->wd, &s->impact_forces))
        return -1;
    if (opt->has_seed) s->seed = opt->seed;
    if (opt->threads > 0) s->wd.worker_count = opt->threads;
    if (bd != NULL && (need_object(c, bd, "body_defaults") ||
                       check_keys(c, bd, "body_defaults", BODY_MATERIAL_KEYS, NULL) ||
                       parse_material(c, bd, "body_defaults", defaults)))
        return -1;
    return parse_run(c, item(root, "run"), s);
}

static int parse_generators(ctx *c, const cJSON *arr, kyu_scene *s, const body_tpl *defaults) {
    if (arr == NULL) return 0;
    if (need_array(c, arr, "generators") != 0) return -1;
    int n = cJSON_GetArraySize(arr);
    s->gen = calloc((size_t)n + 1, sizeof *s->gen);
    if (s->gen == NULL) return fail(c, "generators", "out of memory");
    for (const cJSON *o = arr->child; o != NULL; o = o->next, s->gen_count++)
        if (parse_generator(c, o, s->gen_count, defaults, s->seed, &s->gen[s->gen_count]) != 0) return -1;
    return 0;
}

static int build_world(ctx *c, kyu_scene *s, const cJSON *root, const body_tpl *defaults) {
    s->wd.body_capacity = (int)(s->planned < 16 ? 16 : s->planned);
    s->wd.max_bodies = c->max_bodies;
    s->wd.max_colliders = c->max_colliders;
    char why[200];
    kyu_status st = kyu_world_def_check(&s->wd, why, sizeof why); // names the field and its value
    if (st == KYU_OK)
        st = kyu_world_create(&s->wd, &s->world);
    else
        return fail(c, "world", "kyu refused the world settings: %s", why);
    if (st != KYU_OK) return fail(c, "world", "kyu refused the world settings: %s", kyu_status_string(st));
    // The forces the tools write (kyu-sim's frames, networks and boxes, Python's arrays) count impacts.
    kyu_world_enable_impact_forces(s->world, s->impact_forces);
    const cJSON *colliders = item(root, "colliders"), *bodies = item(root, "bodies");
    if (colliders != NULL && build_colliders(c, s, colliders) != 0) return -1;
    if (bodies != NULL && parse_bodies(c, s, bodies, defaults) != 0) return -1;
    for (int i = 0; i < s->gen_count; i++) {
        generator *g = &s->gen[i];
        if ((g->kind == GEN_LATTICE && make_lattice(c, s, g) != 0) ||
            (g->kind == GEN_RANDOM_BOX && make_random_box(c, s, g) != 0) ||
            (g->kind == GEN_INSERT && make_inserter(c, s, g) != 0))
            return -1;
    }
    return 0;
}

static int load_root(ctx *c, const cJSON *root, kyu_scene *s, const kyu_scene_options *opt) {
    body_tpl defaults = {kyu_body_def_default(), 0};
    const cJSON *colliders, *bodies;
    if (parse_head(c, root, s, &defaults, opt) != 0) return -1;
    colliders = item(root, "colliders");
    bodies = item(root, "bodies");
    if ((colliders != NULL && need_array(c, colliders, "colliders") != 0) ||
        (bodies != NULL && need_array(c, bodies, "bodies") != 0) ||
        parse_generators(c, item(root, "generators"), s, &defaults) != 0 ||
        check_capacity(c, s, bodies, colliders) != 0)
        return -1;
    return build_world(c, s, root, &defaults);
}

// "FILE:LINE:COL: syntax error ..." from the offset where cJSON stopped.
static void syntax_error(ctx *c, const char *text, size_t len, size_t at, const char *what) {
    long line = 1, col = 1;
    for (size_t i = 0; i < at && i < len; i++) {
        if (text[i] == '\n')
            line++, col = 1;
        else
            col++;
    }
    char near[40] = "";
    if (strstr(what, "empty") != NULL) {
        near[0] = '\0';
    } else if (at >= len) {
        say(near, sizeof near, "at the end of the file");
    } else {
        char snip[24] = "";
        size_t n = 0;
        for (size_t i = at; i < len && n < 16 && text[i] != '\n' && text[i] != '\r'; i++) snip[n++] = text[i];
        snip[n] = '\0';
        char clean[40] = "";
        append_clean(clean, sizeof clean, snip);
        say(near, sizeof near, "near `%s`", clean);
    }
    c->failed = 1;
    if (c->err != NULL && c->errlen > 0)
        say(c->err, c->errlen, "%s:%ld:%ld: %s%s%s", c->file, line, col, what, near[0] ? " " : "", near);
}

static cJSON *parse_json(ctx *c, const char *text, size_t len) {
    const char *nul = memchr(text, '\0', len);
    if (nul != NULL) {
        syntax_error(c, text, len, (size_t)(nul - text), "syntax error: a NUL byte");
        return NULL;
    }
    size_t skip = (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) ? 3 : 0; // UTF-8 BOM
    char *buf = malloc(len + 1);
    if (buf == NULL) {
        fail(c, NULL, "out of memory reading %zu bytes", len);
        return NULL;
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    const char *end = NULL;
    // The terminating NUL is part of the length: cJSON wants to see it to refuse trailing text.
    cJSON *root = cJSON_ParseWithLengthOpts(buf + skip, len + 1 - skip, &end, 1);
    if (root == NULL) {
        size_t at = (end != NULL && end >= buf + skip && end <= buf + len) ? (size_t)(end - buf) : 0;
        if (len - skip == 0 || strspn(buf + skip, " \t\r\n") == len - skip)
            syntax_error(c, text, len, 0, "syntax error: the file is empty");
        else
            syntax_error(c, text, len, at, "syntax error");
    }
    free(buf);
    return root;
}

static void resolve_limits(ctx *c, const kyu_scene_options *opt) {
    c->max_bodies = KYU_SCENE_MAX_BODIES;
    c->max_colliders = KYU_SCENE_MAX_COLLIDERS;
    c->max_points = KYU_SCENE_MAX_POINTS;
    if (opt->max_bodies > 0 && opt->max_bodies < c->max_bodies) c->max_bodies = opt->max_bodies;
    if (opt->max_colliders > 0 && opt->max_colliders < c->max_colliders)
        c->max_colliders = opt->max_colliders;
    if (opt->max_points > 0 && opt->max_points < c->max_points) c->max_points = opt->max_points;
}

static kyu_scene *scene_new(const char *name) {
    kyu_scene *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->name = malloc(strlen(name) + 1);
    if (s->name == NULL) {
        free(s);
        return NULL;
    }
    strcpy(s->name, name);
    s->wd = kyu_world_def_default();
    s->impact_forces = true;
    s->seed = 1;
    s->run_steps = 600;
    s->every = 10;
    s->format = KYU_RECORD_CSV | KYU_RECORD_JSONL;
    return s;
}

kyu_scene *kyu_scene_load_string(const char *text, size_t len, const char *name, const kyu_scene_options *opt,
                                 char *err, size_t errlen) {
    static const kyu_scene_options none = {0};
    ctx c = {name ? name : "<scene>", err, errlen, 0, 0, 0, 0};
    if (err != NULL && errlen > 0) err[0] = '\0';
    resolve_limits(&c, opt ? opt : &none);
    if (text == NULL && len > 0) {
        fail(&c, NULL, "no text");
        return NULL;
    }
    // /proc/meminfo is read only for texts large enough to matter (the fuzzer loads many small ones).
    double avail = len > (1u << 20) ? available_bytes() : 0;
    if (len > KYU_SCENE_MAX_FILE_BYTES || (avail > 0 && (double)len * PARSE_BYTES_PER_BYTE > avail)) {
        fail(&c, NULL,
             "%zu bytes is too large a scene to parse (the limit is %u MiB and the "
             "memory available)",
             len, KYU_SCENE_MAX_FILE_BYTES >> 20);
        return NULL;
    }
    cJSON *root = parse_json(&c, text ? text : "", len);
    if (root == NULL) return NULL;
    kyu_scene *s = scene_new(c.file);
    if (s == NULL) {
        fail(&c, NULL, "out of memory");
    } else if (load_root(&c, root, s, opt ? opt : &none) != 0) {
        kyu_scene_destroy(s);
        s = NULL;
    }
    cJSON_Delete(root);
    return s;
}

kyu_scene *kyu_scene_load(const char *path, const kyu_scene_options *opt, char *err, size_t errlen) {
    ctx c = {path ? path : "<null>", err, errlen, 0, 0, 0, 0};
    if (err != NULL && errlen > 0) err[0] = '\0';
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (f == NULL) {
        fail(&c, NULL, "cannot open: %s", path ? strerror(errno) : "no path");
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        len += fread(buf + len, 1, cap - len, f);
        if (ferror(f) || len < cap || cap > KYU_SCENE_MAX_FILE_BYTES) break;
        char *bigger = realloc(buf, cap * 2);
        if (bigger == NULL) free(buf);
        buf = bigger;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (buf == NULL || bad) {
        fail(&c, NULL, bad ? "cannot read: %s" : "out of memory reading it", strerror(errno));
        free(buf);
        return NULL;
    }
    kyu_scene *s = kyu_scene_load_string(buf, len, path, opt, err, errlen);
    free(buf);
    return s;
}

void kyu_scene_destroy(kyu_scene *s) {
    if (s == NULL) return;
    for (int i = 0; i < s->gen_count; i++) kyu_inserter_destroy(s->gen[i].inserter);
    kyu_world_destroy(s->world);
    free(s->name);
    free(s->ids);
    free(s->gen);
    free(s->regions);
    free(s->gscale);
    free(s);
}

// ---- running -----------------------------------------------------------------------------------

int kyu_scene_step(kyu_scene *s) {
    s->error[0] = '\0';
    if (run_emitters(s, s->step) != 0 || run_inserters(s, s->step) != 0) return -1;
    kyu_status st = kyu_world_step(s->world);
    if (st != KYU_OK) {
        say(s->error, sizeof s->error, "step %ld: %s (%s)", s->step + 1, kyu_status_string(st),
            kyu_world_last_error(s->world));
        return -1;
    }
    s->step++;
    return 0;
}

// After a snapshot of step `step`, the emitters have run for steps 0 .. step-1: their counts and
// the bodies' gravity scales (ids in creation order; the scene never removes bodies) follow. An
// inserter's bodies are made as there is room, so their ids among the emitters' cannot be replayed:
// with inserters, every body made after the scene's start takes the one gravity scale all emitters
// and inserters share (a scene whose emitters and inserters differ in it is not resumed).
static int replay_emitters(kyu_scene *s, long step, long first_id, char *err, size_t errlen) {
    long next_id = first_id;
    int inserters = 0, differ = 0, seen = 0;
    float gs = 1.0f;
    for (int i = 0; i < s->gen_count; i++) {
        generator *g = &s->gen[i];
        g->emitted = 0;
        if (g->kind != GEN_EMITTER && g->kind != GEN_INSERT) continue;
        inserters |= g->kind == GEN_INSERT;
        differ |= seen && g->body.def.gravity_scale != gs;
        gs = g->body.def.gravity_scale, seen = 1;
    }
    if (inserters && differ) {
        say(err, errlen, "emitters and inserters with different gravity scales cannot be resumed");
        return -1;
    }
    for (long k = 0; k < step; k++)
        for (int i = 0; i < s->gen_count; i++) {
            generator *g = &s->gen[i];
            if (g->kind != GEN_EMITTER) continue;
            for (long due = emitter_due(s, g, k); g->emitted < due; g->emitted++)
                if (!inserters && remember_gscale(s, (uint32_t)++next_id, g->body.def.gravity_scale) != 0)
                    goto oom;
        }
    for (long id = first_id + 1; inserters && id <= kyu_world_body_count(s->world); id++)
        if (remember_gscale(s, (uint32_t)id, gs) != 0) goto oom;
    return 0;
oom:
    say(err, errlen, "out of memory");
    return -1;
}

int kyu_scene_resume(kyu_scene *s, const char *snapshot_path, long step, char *err, size_t errlen) {
    if (step < 0) {
        say(err, errlen, "%s: a negative step (%ld)", snapshot_path, step);
        return -1;
    }
    if (s->step != 0) {
        say(err, errlen, "%s: resume only a freshly loaded scene", snapshot_path);
        return -1;
    }
    long first_id = s->gs_len;
    kyu_status st = kyu_world_load(s->world, snapshot_path);
    if (st != KYU_OK) {
        // The engine's detail already starts with the status sentence when it has one.
        const char *why = kyu_world_last_error(s->world);
        say(err, errlen, "%s: %s", snapshot_path, why[0] ? why : kyu_status_string(st));
        return -1;
    }
    char why[160];
    if (replay_emitters(s, step, first_id, why, sizeof why) != 0) {
        say(err, errlen, "%s: %s", snapshot_path, why);
        return -1;
    }
    s->step = step;
    return 0;
}

// ---- accessors ---------------------------------------------------------------------------------

kyu_world *kyu_scene_world(kyu_scene *s) { return s->world; }
const char *kyu_scene_last_error(const kyu_scene *s) { return s->error; }
long kyu_scene_step_index(const kyu_scene *s) { return s->step; }
long kyu_scene_run_steps(const kyu_scene *s) { return s->run_steps; }
int kyu_scene_record_every(const kyu_scene *s) { return s->every; }
int kyu_scene_record_format(const kyu_scene *s) { return s->format; }
const char *kyu_scene_name(const kyu_scene *s) { return s->name; }
const kyu_world_def *kyu_scene_world_def(const kyu_scene *s) { return &s->wd; }
uint64_t kyu_scene_seed(const kyu_scene *s) { return s->seed; }
long kyu_scene_planned_bodies(const kyu_scene *s) { return s->planned; }

int kyu_scene_inserter_count(const kyu_scene *s) {
    int n = 0;
    for (int i = 0; i < s->gen_count; i++) n += s->gen[i].kind == GEN_INSERT;
    return n;
}

// The k-th inserter's generator, or NULL.
static generator *inserter_gen(const kyu_scene *s, int k) {
    for (int i = 0; i < s->gen_count; i++)
        if (s->gen[i].kind == GEN_INSERT && k-- == 0) return &s->gen[i];
    return NULL;
}

int kyu_scene_inserter_generator(const kyu_scene *s, int k) {
    const generator *g = inserter_gen(s, k);
    return g ? g->index : -1;
}

kyu_inserter_stats kyu_scene_inserter_stats(const kyu_scene *s, int k) {
    const generator *g = inserter_gen(s, k);
    return kyu_inserter_get_stats(g ? g->inserter : NULL);
}

int kyu_scene_inserter_restore(kyu_scene *s, int k, const kyu_inserter_stats *saved) {
    generator *g = inserter_gen(s, k);
    return g && kyu_inserter_restore(g->inserter, saved) == KYU_OK ? 0 : -1;
}

int kyu_scene_measure_count(const kyu_scene *s) { return s->region_count; }

int kyu_scene_measure_box(const kyu_scene *s, int k, const char **name, float lo[3], float hi[3]) {
    if (k < 0 || k >= s->region_count) return -1;
    const kyu_scene_region_rec *r = &s->regions[k];
    *name = r->name;
    for (int a = 0; a < 3; a++) lo[a] = r->lo.raw[a], hi[a] = r->hi.raw[a];
    return 0;
}

const uint32_t *kyu_scene_record_ids(const kyu_scene *s, int *count) {
    *count = s->id_count;
    return s->id_count ? s->ids : NULL;
}

double kyu_scene_potential_energy(const kyu_scene *s) {
    int n = kyu_world_get_bodies(s->world, NULL, 0);
    if (n <= 0) return 0;
    kyu_body_id *ids = malloc((size_t)n * sizeof *ids);
    if (ids == NULL) return NAN;
    n = kyu_world_get_bodies(s->world, ids, n);
    vec3s g = s->wd.gravity;
    double e = 0;
    for (int i = 0; i < n; i++) {
        vec3s p;
        float m;
        kyu_body_get_position(s->world, ids[i], &p);
        kyu_body_get_mass(s->world, ids[i], &m);
        double gs = (long)ids[i].index1 <= s->gs_len ? s->gscale[ids[i].index1 - 1] : 1.0;
        e -= (double)m * gs * ((double)g.x * p.x + (double)g.y * p.y + (double)g.z * p.z);
    }
    free(ids);
    return e;
}
