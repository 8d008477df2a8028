// SPDX-License-Identifier: MIT
// scene: loads a JSON scene file (docs/scenes.md) with Debian's libcjson, validates every key, and
// builds the world. The loader runs in two passes so nothing is allocated for a scene that is going
// to be refused: pass 1 reads the settings, the run and the generators and counts the bodies against
// the caps and the free memory; pass 2 creates the world, the colliders and the bodies.
#include "scene.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cjson/cJSON.h>

// M_PI is not in C11.
#define PI 3.14159265358979323846

// Engine limits on coordinates (world.h: |position| or |velocity| > 1e9 is refused).
#define COORD_LIMIT 1e9
// Bytes of engine memory per body at the peak of a settling pile (README: PILE 100k peaks at
// 80 MB), rounded up, plus the random-box placement grid: what the memory check budgets.
#define BYTES_PER_BODY 1100.0
// A parsed JSON document costs at most this many times its text (a 64-byte node per 2 bytes).
#define PARSE_BYTES_PER_BYTE 40.0
// Placement tries per body of a random box before it gives up (the box is too full).
#define PLACE_ATTEMPTS 200

// ---- the scene -----------------------------------------------------------------------------------

// A body as generators and emitters make it: the def plus a density that, when set, gives the mass
// from the radius (so a random radius keeps one material).
typedef struct body_tpl {
    kyu_body_def def;
    double density; // kg/m^3; 0 = use def.mass
} body_tpl;

enum { GEN_LATTICE, GEN_RANDOM_BOX, GEN_EMITTER };

typedef struct generator {
    int kind;
    int index;        // position in the generators array, for messages and seeds
    body_tpl body;
    vec3s a, b;       // lattice origin, random box min and max, emitter position (a)
    vec3s velocity;
    vec3s spacing;
    long n[3];
    long count;       // bodies (lattice: n[0] n[1] n[2]; emitter: the most it will ever emit)
    float jitter, speed, spread;
    float rmin, rmax; // random box radius range (both = the body radius without one)
    int overlap;      // random box: allow overlapping bodies
    double rate, start, stop; // emitter: bodies per second from start until stop (s)
    uint64_t seed;    // mixed from the scene seed, the index and the generator's own seed
    long emitted;     // emitter: bodies emitted so far
} generator;

struct kyu_scene {
    char *name;
    kyu_world *world;
    kyu_world_def wd;
    uint64_t seed;
    long run_steps;
    int every;
    int format;
    uint32_t *ids;
    int id_count;
    generator *gen;
    int gen_count;
    long step;
    long planned;
    float *gscale; // gravity scale per body id (index1 - 1), for the potential energy
    long gs_len, gs_cap;
    char error[320];
};

// ---- errors and key paths --------------------------------------------------------------------------

typedef struct ctx {
    const char *file;
    char *err;
    size_t errlen;
    int failed;
    int max_bodies, max_colliders, max_points;
} ctx;

typedef struct keypath {
    char s[200];
} keypath;

// Keys come from the input: print only tame characters so a message stays one readable line.
static void append_clean(char *dst, size_t cap, const char *src) {
    size_t n = strlen(dst);
    for (size_t i = 0; src[i] != '\0' && n + 1 < cap; i++) {
        if (i == 48) {
            if (n + 4 < cap) memcpy(dst + n, "...", 4), n += 3;
            break;
        }
        unsigned char ch = (unsigned char)src[i];
        dst[n++] = (ch >= 32 && ch < 127 && ch != '`') ? (char)ch : '?';
        dst[n] = '\0';
    }
}

// snprintf through a function: a key path or a message cut short is fine, and gcc's
// -Wformat-truncation would otherwise ask for a check of every call.
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void say(char *dst, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
}

static keypath kp_key(const char *path, const char *key) {
    keypath k;
    say(k.s, sizeof k.s, "%s%s", path, path[0] ? "." : "");
    append_clean(k.s, sizeof k.s, key);
    return k;
}

static keypath kp_index(const char *path, long i) {
    keypath k;
    say(k.s, sizeof k.s, "%s[%ld]", path, i);
    return k;
}

// Only the first error is kept: it is the one the user should fix first.
static int failv(ctx *c, const char *path, const char *fmt, va_list ap) {
    if (c->failed)
        return -1;
    c->failed = 1;
    char msg[256];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (c->err == NULL || c->errlen == 0)
        return -1;
    if (path != NULL && path[0] != '\0')
        say(c->err, c->errlen, "%s: key `%s`: %s", c->file, path, msg);
    else
        say(c->err, c->errlen, "%s: %s", c->file, msg);
    return -1;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(ctx *c, const char *path, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    failv(c, path, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *json_type_name(const cJSON *j) {
    if (cJSON_IsNumber(j)) return "a number";
    if (cJSON_IsString(j)) return "a string";
    if (cJSON_IsBool(j)) return "a boolean";
    if (cJSON_IsNull(j)) return "null";
    if (cJSON_IsArray(j)) return "an array";
    if (cJSON_IsObject(j)) return "an object";
    return "an unknown value";
}

static int fail_type(ctx *c, const char *path, const cJSON *j, const char *want) {
    return fail(c, path, "must be %s, got %s", want, json_type_name(j));
}

// ---- keys ------------------------------------------------------------------------------------------

static int key_index(const char *const *list, const char *key) {
    for (int i = 0; list != NULL && list[i] != NULL; i++)
        if (strcmp(list[i], key) == 0)
            return i;
    return -1;
}

static void list_keys(char *dst, size_t cap, const char *const *a, const char *const *b) {
    dst[0] = '\0';
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; (pass ? b : a) != NULL && (pass ? b : a)[i] != NULL; i++) {
            size_t n = strlen(dst);
            say(dst + n, cap - n, "%s%s", n ? ", " : "", (pass ? b : a)[i]);
        }
}

// Every key of obj must be in one of the two lists (b may be NULL), once: a misspelt key silently
// ignored is the worst kind of scene bug, and cJSON keeps duplicate keys where other parsers
// keep the last one.
static int check_keys(ctx *c, const cJSON *obj, const char *path, const char *const *a,
                      const char *const *b) {
    uint64_t seen = 0;
    int na = 0;
    while (a[na] != NULL) na++;
    for (const cJSON *j = obj->child; j != NULL; j = j->next) {
        const char *key = j->string ? j->string : "";
        int i = key_index(a, key);
        if (i < 0 && (i = key_index(b, key)) >= 0) i += na;
        if (i < 0) {
            char known[512];
            list_keys(known, sizeof known, a, b);
            return fail(c, kp_key(path, key).s, "unknown key (known here: %s)", known);
        }
        if (seen & ((uint64_t)1 << i))
            return fail(c, kp_key(path, key).s, "duplicate key");
        seen |= (uint64_t)1 << i;
    }
    return 0;
}

static const cJSON *item(const cJSON *obj, const char *key) {
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

// ---- values ----------------------------------------------------------------------------------------

// A finite number: 1e999 parses as inf, and a scene must never feed inf to the engine.
static int number_value(ctx *c, const cJSON *j, const char *path, double *out) {
    if (!cJSON_IsNumber(j))
        return fail_type(c, path, j, "a number");
    if (!isfinite(j->valuedouble))
        return fail(c, path, "must be a finite number, got one beyond the range of a double");
    *out = j->valuedouble;
    return 0;
}

// Optional number in [lo, hi] (lo excluded when lo_open); `rule` says it in words for the message.
static int opt_double(ctx *c, const cJSON *obj, const char *path, const char *key, double *dst,
                      double lo, double hi, int lo_open, const char *rule) {
    const cJSON *j = item(obj, key);
    if (j == NULL)
        return 0;
    keypath k = kp_key(path, key);
    double v;
    if (number_value(c, j, k.s, &v) != 0)
        return -1;
    if (v < lo || v > hi || (lo_open && v == lo))
        return fail(c, k.s, "%s, got %g", rule, v);
    *dst = v;
    return 0;
}

static int opt_float(ctx *c, const cJSON *obj, const char *path, const char *key, float *dst,
                     double lo, double hi, int lo_open, const char *rule) {
    double v = *dst;
    if (opt_double(c, obj, path, key, &v, lo, hi, lo_open, rule) != 0)
        return -1;
    *dst = (float)v;
    return 0;
}

static int int_value(ctx *c, const cJSON *j, const char *path, double lo, double hi, double *out) {
    double v;
    if (number_value(c, j, path, &v) != 0)
        return -1;
    if (v != floor(v))
        return fail(c, path, "must be a whole number, got %g", v);
    if (v < lo || v > hi)
        return fail(c, path, "must be between %.0f and %.0f, got %g", lo, hi, v);
    *out = v;
    return 0;
}

static int opt_long(ctx *c, const cJSON *obj, const char *path, const char *key, long *dst,
                    double lo, double hi) {
    const cJSON *j = item(obj, key);
    double v;
    if (j == NULL)
        return 0;
    if (int_value(c, j, kp_key(path, key).s, lo, hi, &v) != 0)
        return -1;
    *dst = (long)v;
    return 0;
}

static int opt_bool(ctx *c, const cJSON *obj, const char *path, const char *key, bool *dst) {
    const cJSON *j = item(obj, key);
    if (j == NULL)
        return 0;
    if (!cJSON_IsBool(j))
        return fail_type(c, kp_key(path, key).s, j, "true or false");
    *dst = cJSON_IsTrue(j);
    return 0;
}

static int vec3_value(ctx *c, const cJSON *j, const char *path, double limit, vec3s *out) {
    if (!cJSON_IsArray(j) || cJSON_GetArraySize(j) != 3)
        return fail(c, path, "must be an array of 3 numbers [x, y, z], got %s%s", json_type_name(j),
                    cJSON_IsArray(j) ? " of another length" : "");
    int i = 0;
    for (const cJSON *e = j->child; e != NULL; e = e->next, i++) {
        keypath k = kp_index(path, i);
        double v;
        if (number_value(c, e, k.s, &v) != 0)
            return -1;
        if (fabs(v) > limit)
            return fail(c, k.s, "must be within +-%g, got %g", limit, v);
        out->raw[i] = (float)v;
    }
    return 0;
}

static int opt_vec3(ctx *c, const cJSON *obj, const char *path, const char *key, vec3s *dst,
                    double limit) {
    const cJSON *j = item(obj, key);
    return j == NULL ? 0 : vec3_value(c, j, kp_key(path, key).s, limit, dst);
}

static int need(ctx *c, const cJSON *obj, const char *path, const char *key) {
    if (item(obj, key) != NULL)
        return 0;
    return fail(c, path, "missing required key \"%s\"", key);
}

// A string that must be one of names; *dst is its index.
static int opt_enum(ctx *c, const cJSON *obj, const char *path, const char *key,
                    const char *const *names, int *dst) {
    const cJSON *j = item(obj, key);
    if (j == NULL)
        return 0;
    keypath k = kp_key(path, key);
    char known[256];
    list_keys(known, sizeof known, names, NULL);
    if (!cJSON_IsString(j))
        return fail(c, k.s, "must be a string (one of: %s), got %s", known, json_type_name(j));
    int i = key_index(names, j->valuestring);
    if (i < 0) {
        char got[64] = "";
        append_clean(got, sizeof got, j->valuestring);
        return fail(c, k.s, "must be one of: %s; got \"%s\"", known, got);
    }
    *dst = i;
    return 0;
}

static int need_object(ctx *c, const cJSON *j, const char *path) {
    return cJSON_IsObject(j) ? 0 : fail_type(c, path, j, "an object");
}

static int need_array(ctx *c, const cJSON *j, const char *path) {
    return cJSON_IsArray(j) ? 0 : fail_type(c, path, j, "an array");
}

// ---- random numbers (splitmix64: counter-based, so an emitter's n-th body is the same however
// the run was cut into snapshots) ------------------------------------------------------------------

static uint64_t splitmix(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t mix_seed(uint64_t a, uint64_t b) {
    uint64_t s = a ^ (b * 0xD1B54A32D192ED03ull);
    return splitmix(&s);
}

static double uniform(uint64_t *state) { return (double)(splitmix(state) >> 11) * 0x1.0p-53; }

static float signed_unit(uint64_t *state) { return (float)(2.0 * uniform(state) - 1.0); }

// A point uniformly inside the unit ball (rejection: on average 1.9 tries).
static vec3s in_unit_ball(uint64_t *state) {
    for (;;) {
        vec3s p = {{signed_unit(state), signed_unit(state), signed_unit(state)}};
        if (glms_vec3_norm2(p) <= 1.0f)
            return p;
    }
}

// A direction uniformly on the unit sphere.
static vec3s on_unit_sphere(uint64_t *state) {
    for (;;) {
        vec3s p = in_unit_ball(state);
        float n = glms_vec3_norm(p);
        if (n > 1e-3f)
            return glms_vec3_scale(p, 1.0f / n);
    }
}

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
        if (pages > 0 && size > 0)
            avail = (double)pages * (double)size;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (avail == 0 || (double)rl.rlim_cur < avail))
        avail = (double)rl.rlim_cur;
    return avail;
}

// ---- bodies ----------------------------------------------------------------------------------------

static const char *const BODY_MATERIAL_KEYS[] = {
    "radius", "mass", "density", "restitution", "friction", "linear_damping", "gravity_scale",
    "category", "mask", "group", "sensor", "allow_sleep", "rolling_resistance", "angular_damping",
    "inertia_scale", "fixed_rotation", NULL};
static const char *const BODY_PLACE_KEYS[] = {"position", "velocity", "angular_velocity", NULL};

// The material fields of a body object on top of tpl (defaults, then overrides).
static int parse_material(ctx *c, const cJSON *o, const char *path, body_tpl *tpl) {
    kyu_body_def *d = &tpl->def;
    long cat = d->category_bits, mask = d->mask_bits, group = d->group;
    if (item(o, "mass") != NULL && item(o, "density") != NULL)
        return fail(c, path, "give \"mass\" or \"density\", not both");
    if (opt_float(c, o, path, "radius", &d->radius, 0, 1e6, 1, "must be > 0 and <= 1e6") ||
        opt_float(c, o, path, "mass", &d->mass, 0, 1e12, 1, "must be > 0 and <= 1e12") ||
        opt_double(c, o, path, "density", &tpl->density, 0, 1e9, 1, "must be > 0 and <= 1e9") ||
        opt_float(c, o, path, "restitution", &d->restitution, 0, 1, 0, "must be in [0, 1]") ||
        opt_float(c, o, path, "friction", &d->friction, 0, 1e3, 0, "must be in [0, 1000]") ||
        opt_float(c, o, path, "linear_damping", &d->linear_damping, 0, 1e6, 0,
                  "must be in [0, 1e6]") ||
        opt_float(c, o, path, "gravity_scale", &d->gravity_scale, -1e3, 1e3, 0,
                  "must be in [-1000, 1000]") ||
        opt_float(c, o, path, "rolling_resistance", &d->rolling_resistance, 0, 1e3, 0,
                  "must be in [0, 1000]") ||
        opt_float(c, o, path, "angular_damping", &d->angular_damping, 0, 1e6, 0,
                  "must be in [0, 1e6]") ||
        opt_float(c, o, path, "inertia_scale", &d->inertia_scale, 0, 1e6, 1,
                  "must be > 0 and <= 1e6 (1: a solid sphere, 5/3: a thin shell)") ||
        opt_bool(c, o, path, "fixed_rotation", &d->fixed_rotation) ||
        opt_long(c, o, path, "category", &cat, 0, 4294967295.0) ||
        opt_long(c, o, path, "mask", &mask, 0, 4294967295.0) ||
        opt_long(c, o, path, "group", &group, -2147483648.0, 2147483647.0) ||
        opt_bool(c, o, path, "sensor", &d->is_sensor) ||
        opt_bool(c, o, path, "allow_sleep", &d->allow_sleep))
        return -1;
    if (item(o, "mass") != NULL)
        tpl->density = 0;
    d->category_bits = (uint32_t)cat;
    d->mask_bits = (uint32_t)mask;
    d->group = (int32_t)group;
    return 0;
}

// A template overridden by an object (a generator's "body"): defaults stay where it says nothing.
static int parse_override(ctx *c, const cJSON *obj, const char *path, const char *key,
                          body_tpl *tpl) {
    const cJSON *j = item(obj, key);
    if (j == NULL)
        return 0;
    keypath k = kp_key(path, key);
    if (need_object(c, j, k.s) || check_keys(c, j, k.s, BODY_MATERIAL_KEYS, NULL))
        return -1;
    return parse_material(c, j, k.s, tpl);
}

static int remember_gscale(kyu_scene *s, uint32_t index1, float gs) {
    if ((long)index1 > s->gs_cap) {
        long cap = s->gs_cap ? s->gs_cap : 64;
        while (cap < (long)index1) cap *= 2;
        float *g = realloc(s->gscale, (size_t)cap * sizeof *g);
        if (g == NULL)
            return -1;
        for (long i = s->gs_cap; i < cap; i++) g[i] = 1.0f;
        s->gscale = g;
        s->gs_cap = cap;
    }
    s->gscale[index1 - 1] = gs;
    if ((long)index1 > s->gs_len)
        s->gs_len = index1;
    return 0;
}

// Creates one body; on failure err gets the engine's reason under the key path of what made it.
static int add_body(kyu_scene *s, const body_tpl *tpl, vec3s p, vec3s v, float radius,
                    const char *path, char *err, size_t errlen) {
    kyu_body_def d = tpl->def;
    d.position = p;
    d.velocity = v;
    d.radius = radius;
    if (tpl->density > 0) {
        double m = tpl->density * 4.0 / 3.0 * PI * (double)radius * radius * radius;
        if (!(m > 1e-30 && m <= 1e12)) {
            say(err, errlen, "key `%s`: density %g and radius %g give mass %g, outside "
                     "(0, 1e12]", path, tpl->density, (double)radius, m);
            return -1;
        }
        d.mass = (float)m;
    }
    kyu_body_id id;
    kyu_status st = kyu_body_create(s->world, &d, &id);
    if (st != KYU_OK) {
        say(err, errlen, "key `%s`: kyu refused the body: %s (%s)", path,
                 kyu_status_string(st), kyu_world_last_error(s->world));
        return -1;
    }
    if (remember_gscale(s, id.index1, d.gravity_scale) != 0) {
        say(err, errlen, "key `%s`: out of memory", path);
        return -1;
    }
    return 0;
}

static int add_body_ctx(ctx *c, kyu_scene *s, const body_tpl *tpl, vec3s p, vec3s v, float r,
                        const char *path) {
    char msg[300];
    if (add_body(s, tpl, p, v, r, path, msg, sizeof msg) == 0)
        return 0;
    // msg already starts with the key path: strip it into fail's format.
    const char *reason = strstr(msg, "`: ");
    return fail(c, path, "%s", reason ? reason + 3 : msg);
}

static int parse_bodies(ctx *c, kyu_scene *s, const cJSON *arr, const body_tpl *defaults) {
    long i = 0;
    for (const cJSON *o = arr->child; o != NULL; o = o->next, i++) {
        keypath k = kp_index("bodies", i);
        body_tpl tpl = *defaults;
        vec3s v = tpl.def.velocity;
        if (need_object(c, o, k.s) || check_keys(c, o, k.s, BODY_PLACE_KEYS, BODY_MATERIAL_KEYS) ||
            need(c, o, k.s, "position") || parse_material(c, o, k.s, &tpl) ||
            opt_vec3(c, o, k.s, "position", &tpl.def.position, COORD_LIMIT) ||
            opt_vec3(c, o, k.s, "velocity", &v, COORD_LIMIT) ||
            opt_vec3(c, o, k.s, "angular_velocity", &tpl.def.angular_velocity, 1e6))
            return -1;
        if (add_body_ctx(c, s, &tpl, tpl.def.position, v, tpl.def.radius, k.s) != 0)
            return -1;
    }
    return 0;
}

// ---- colliders -------------------------------------------------------------------------------------

static const char *const SHAPE_NAMES[] = {"plane", "box", "capsule", "hull", "mesh", NULL};
static const char *const MOTION_NAMES[] = {"static", "kinematic", NULL};
static const char *const COLLIDER_KEYS[] = {"type", "motion", "velocity", "position", "restitution",
                                            "friction", "category", "mask", "angular_velocity",
                                            "surface_velocity", "rolling_resistance", NULL};
static const char *const PLANE_KEYS[] = {"normal", NULL};
static const char *const BOX_KEYS[] = {"half_extents", "rotation", NULL};
static const char *const CAPSULE_KEYS[] = {"a", "b", "radius", "rotation", NULL};
static const char *const HULL_KEYS[] = {"points", "rotation", NULL};
static const char *const MESH_KEYS[] = {"vertices", "triangles", "rotation", NULL};
static const char *const *const SHAPE_KEYS[] = {PLANE_KEYS, BOX_KEYS, CAPSULE_KEYS, HULL_KEYS,
                                                MESH_KEYS};

// A rotation is a quaternion [x, y, z, w] or {"axis": [x, y, z], "degrees": a}.
static int parse_rotation(ctx *c, const cJSON *obj, const char *path, versors *out) {
    static const char *const AXIS_KEYS[] = {"axis", "degrees", NULL};
    const cJSON *j = item(obj, "rotation");
    if (j == NULL)
        return 0;
    keypath k = kp_key(path, "rotation");
    if (cJSON_IsArray(j)) {
        if (cJSON_GetArraySize(j) != 4)
            return fail(c, k.s, "must be a quaternion [x, y, z, w] (4 numbers) or "
                        "{\"axis\": [x, y, z], \"degrees\": a}");
        double q[4], n2 = 0;
        int i = 0;
        for (const cJSON *e = j->child; e != NULL; e = e->next, i++) {
            if (number_value(c, e, kp_index(k.s, i).s, &q[i]) != 0)
                return -1;
            if (fabs(q[i]) > 1e6)
                return fail(c, kp_index(k.s, i).s, "must be within +-1e6, got %g", q[i]);
            n2 += q[i] * q[i];
        }
        if (n2 < 1e-12)
            return fail(c, k.s, "must not be the zero quaternion");
        *out = (versors){{(float)q[0], (float)q[1], (float)q[2], (float)q[3]}};
        return 0;
    }
    if (!cJSON_IsObject(j))
        return fail_type(c, k.s, j, "a quaternion [x, y, z, w] or {\"axis\", \"degrees\"}");
    vec3s axis = {{0, 1, 0}};
    double deg = 0;
    if (check_keys(c, j, k.s, AXIS_KEYS, NULL) || need(c, j, k.s, "axis") ||
        need(c, j, k.s, "degrees") || opt_vec3(c, j, k.s, "axis", &axis, 1e6) ||
        opt_double(c, j, k.s, "degrees", &deg, -1e6, 1e6, 0, "must be in [-1e6, 1e6]"))
        return -1;
    float n = glms_vec3_norm(axis);
    if (!(n > 1e-6f))
        return fail(c, kp_key(k.s, "axis").s, "must not be the zero vector");
    double half = deg * PI / 360.0, sn = sin(half) / n;
    *out = (versors){{(float)(axis.x * sn), (float)(axis.y * sn), (float)(axis.z * sn),
                      (float)cos(half)}};
    return 0;
}

// An array of [x, y, z] points, between lo and hi of them.
static int parse_points(ctx *c, const cJSON *obj, const char *path, const char *key, int lo,
                        vec3s **out, int *count) {
    const cJSON *j = item(obj, key);
    keypath k = kp_key(path, key);
    if (need_array(c, j, k.s) != 0)
        return -1;
    int n = cJSON_GetArraySize(j);
    if (n < lo || n > c->max_points)
        return fail(c, k.s, "must have between %d and %d points, got %d", lo, c->max_points, n);
    vec3s *p = malloc((size_t)n * sizeof *p);
    if (p == NULL)
        return fail(c, k.s, "out of memory for %d points", n);
    int i = 0;
    for (const cJSON *e = j->child; e != NULL; e = e->next, i++)
        if (vec3_value(c, e, kp_index(k.s, i).s, COORD_LIMIT, &p[i]) != 0) {
            free(p);
            return -1;
        }
    *out = p;
    *count = n;
    return 0;
}

static int parse_triangles(ctx *c, const cJSON *obj, const char *path, int vertices,
                           int32_t **out, int *count) {
    const cJSON *j = item(obj, "triangles");
    keypath k = kp_key(path, "triangles");
    if (need_array(c, j, k.s) != 0)
        return -1;
    int n = cJSON_GetArraySize(j);
    if (n < 1 || n > c->max_points)
        return fail(c, k.s, "must have between 1 and %d triangles, got %d", c->max_points, n);
    int32_t *t = malloc((size_t)n * 3 * sizeof *t);
    if (t == NULL)
        return fail(c, k.s, "out of memory for %d triangles", n);
    int i = 0;
    for (const cJSON *e = j->child; e != NULL; e = e->next, i++) {
        keypath ki = kp_index(k.s, i);
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 3) {
            free(t);
            return fail(c, ki.s, "must be 3 vertex indices [i, j, k], got %s", json_type_name(e));
        }
        int v = 0;
        for (const cJSON *x = e->child; x != NULL; x = x->next, v++) {
            double d;
            if (int_value(c, x, kp_index(ki.s, v).s, 0, vertices - 1, &d) != 0) {
                free(t);
                return -1;
            }
            t[i * 3 + v] = (int32_t)d;
        }
    }
    *out = t;
    *count = n;
    return 0;
}

static int farthest(const vec3s *p, int n, double (*dist)(vec3s, const vec3s *), const vec3s *ref,
                    double *best) {
    int at = 0;
    *best = -1;
    for (int i = 0; i < n; i++) {
        double d = dist(p[i], ref);
        if (d > *best) *best = d, at = i;
    }
    return at;
}

static double dist_point(vec3s q, const vec3s *r) { return glms_vec3_norm(glms_vec3_sub(q, r[0])); }

static double dist_line(vec3s q, const vec3s *r) {
    vec3s u = glms_vec3_normalize(glms_vec3_sub(r[1], r[0]));
    return glms_vec3_norm(glms_vec3_cross(glms_vec3_sub(q, r[0]), u));
}

static double dist_plane(vec3s q, const vec3s *r) {
    vec3s n = glms_vec3_normalize(glms_vec3_cross(glms_vec3_sub(r[1], r[0]),
                                                  glms_vec3_sub(r[2], r[0])));
    return fabs(glms_vec3_dot(glms_vec3_sub(q, r[0]), n));
}

// A hull's points must not all lie on a plane: the engine would get a flat "solid" (found by
// building a scene with four coplanar points, which kyu_collider_create accepts).
static int spans_volume(const vec3s *p, int n) {
    vec3s r[3] = {p[0]};
    double size, d;
    r[1] = p[farthest(p, n, dist_point, r, &size)];
    if (!(size > 0))
        return 0;
    r[2] = p[farthest(p, n, dist_line, r, &d)];
    if (!(d > 1e-6 * size))
        return 0;
    farthest(p, n, dist_plane, r, &d);
    return d > 1e-6 * size;
}

// The fields every shape has, then its own; points and indices are allocated (freed by caller).
static int parse_collider(ctx *c, const cJSON *o, const char *path, kyu_collider_def *d,
                          vec3s **points, int32_t **tris) {
    int shape = 0, motion = 0;
    long cat = d->category_bits, mask = d->mask_bits;
    if (need_object(c, o, path) || need(c, o, path, "type") ||
        opt_enum(c, o, path, "type", SHAPE_NAMES, &shape) ||
        check_keys(c, o, path, COLLIDER_KEYS, SHAPE_KEYS[shape]) ||
        opt_enum(c, o, path, "motion", MOTION_NAMES, &motion) ||
        opt_vec3(c, o, path, "position", &d->position, COORD_LIMIT) ||
        opt_vec3(c, o, path, "velocity", &d->velocity, COORD_LIMIT) ||
        opt_float(c, o, path, "restitution", &d->restitution, 0, 1, 0, "must be in [0, 1]") ||
        opt_float(c, o, path, "friction", &d->friction, 0, 1e3, 0, "must be in [0, 1000]") ||
        opt_float(c, o, path, "rolling_resistance", &d->rolling_resistance, 0, 1e3, 0,
                  "must be in [0, 1000]") ||
        opt_vec3(c, o, path, "angular_velocity", &d->angular_velocity, 1e6) ||
        opt_vec3(c, o, path, "surface_velocity", &d->surface_velocity, COORD_LIMIT) ||
        opt_long(c, o, path, "category", &cat, 0, 4294967295.0) ||
        opt_long(c, o, path, "mask", &mask, 0, 4294967295.0) ||
        parse_rotation(c, o, path, &d->rotation))
        return -1;
    if (motion == 0 && item(o, "velocity") != NULL)
        return fail(c, kp_key(path, "velocity").s, "only a collider with \"motion\": "
                    "\"kinematic\" moves");
    if (motion == 0 && item(o, "angular_velocity") != NULL)
        return fail(c, kp_key(path, "angular_velocity").s, "only a collider with \"motion\": "
                    "\"kinematic\" turns (a static one may have a \"surface_velocity\")");
    d->type = (kyu_shape_type)(KYU_SHAPE_PLANE + shape);
    d->motion = motion ? KYU_KINEMATIC : KYU_STATIC;
    d->category_bits = (uint32_t)cat;
    d->mask_bits = (uint32_t)mask;
    switch (d->type) {
    case KYU_SHAPE_PLANE:
        if (opt_vec3(c, o, path, "normal", &d->normal, 1e6))
            return -1;
        if (!(glms_vec3_norm(d->normal) > 1e-6f))
            return fail(c, kp_key(path, "normal").s, "must not be the zero vector");
        return 0;
    case KYU_SHAPE_BOX:
        if (need(c, o, path, "half_extents") ||
            opt_vec3(c, o, path, "half_extents", &d->half_extents, COORD_LIMIT))
            return -1;
        for (int i = 0; i < 3; i++)
            if (!(d->half_extents.raw[i] > 0))
                return fail(c, kp_index(kp_key(path, "half_extents").s, i).s,
                            "must be > 0, got %g", (double)d->half_extents.raw[i]);
        return 0;
    case KYU_SHAPE_CAPSULE:
        if (need(c, o, path, "a") || need(c, o, path, "b") || need(c, o, path, "radius") ||
            opt_vec3(c, o, path, "a", &d->capsule_a, COORD_LIMIT) ||
            opt_vec3(c, o, path, "b", &d->capsule_b, COORD_LIMIT) ||
            opt_float(c, o, path, "radius", &d->radius, 0, 1e6, 1, "must be > 0 and <= 1e6"))
            return -1;
        return 0;
    case KYU_SHAPE_HULL:
        if (parse_points(c, o, path, "points", 4, points, &d->point_count) != 0)
            return -1;
        d->points = *points;
        if (!spans_volume(*points, d->point_count))
            return fail(c, kp_key(path, "points").s, "must span a volume (these are all on one "
                        "plane or line)");
        return 0;
    case KYU_SHAPE_MESH:
        if (parse_points(c, o, path, "vertices", 3, points, &d->point_count) != 0 ||
            parse_triangles(c, o, path, d->point_count, tris, &d->triangle_count) != 0)
            return -1;
        d->points = *points;
        d->indices = *tris;
        return 0;
    }
    return -1;
}

static int build_colliders(ctx *c, kyu_scene *s, const cJSON *arr) {
    long i = 0;
    for (const cJSON *o = arr->child; o != NULL; o = o->next, i++) {
        keypath k = kp_index("colliders", i);
        kyu_collider_def d = kyu_collider_def_default();
        vec3s *points = NULL;
        int32_t *tris = NULL;
        int r = parse_collider(c, o, k.s, &d, &points, &tris);
        if (r == 0) {
            kyu_status st = kyu_collider_create(s->world, &d, NULL);
            if (st != KYU_OK)
                r = fail(c, k.s, "kyu refused the collider: %s (%s)", kyu_status_string(st),
                         kyu_world_last_error(s->world));
        }
        free(points);
        free(tris);
        if (r != 0)
            return -1;
    }
    return 0;
}

// ---- generators ------------------------------------------------------------------------------------

static const char *const GEN_NAMES[] = {"lattice", "random_box", "emitter", "pour", NULL};
static const char *const LATTICE_KEYS[] = {"type", "origin", "count", "spacing", "jitter",
                                           "velocity", "seed", "body", NULL};
static const char *const RANDOM_KEYS[] = {"type", "min", "max", "count", "velocity", "speed",
                                          "radius_range", "overlap", "seed", "body", NULL};
static const char *const EMITTER_KEYS[] = {"type", "position", "velocity", "rate", "start", "stop",
                                           "count", "spread", "seed", "body", NULL};

static int parse_seed(ctx *c, const cJSON *obj, const char *path, uint64_t *dst) {
    long v = (long)*dst;
    if (opt_long(c, obj, path, "seed", &v, 0, 9007199254740992.0) != 0)
        return -1;
    *dst = (uint64_t)v;
    return 0;
}

static int parse_lattice(ctx *c, const cJSON *o, const char *path, generator *g) {
    const cJSON *n = item(o, "count"), *sp = item(o, "spacing");
    keypath kn = kp_key(path, "count");
    if (check_keys(c, o, path, LATTICE_KEYS, NULL) || need(c, o, path, "origin") ||
        need(c, o, path, "count") || need(c, o, path, "spacing") ||
        opt_vec3(c, o, path, "origin", &g->a, COORD_LIMIT) ||
        opt_float(c, o, path, "jitter", &g->jitter, 0, 1e6, 0, "must be in [0, 1e6]"))
        return -1;
    if (!cJSON_IsArray(n) || cJSON_GetArraySize(n) != 3)
        return fail(c, kn.s, "must be 3 whole numbers [nx, ny, nz], got %s", json_type_name(n));
    double total = 1;
    int i = 0;
    for (const cJSON *e = n->child; e != NULL; e = e->next, i++) {
        double v;
        if (int_value(c, e, kp_index(kn.s, i).s, 1, 1e9, &v) != 0)
            return -1;
        g->n[i] = (long)v;
        total *= v;
    }
    if (total > c->max_bodies)
        return fail(c, kn.s, "makes %.0f bodies, more than the limit of %d", total, c->max_bodies);
    g->count = (long)total;
    keypath ks = kp_key(path, "spacing");
    if (cJSON_IsNumber(sp)) {
        double v;
        if (number_value(c, sp, ks.s, &v) != 0)
            return -1;
        g->spacing = (vec3s){{(float)v, (float)v, (float)v}};
    } else if (vec3_value(c, sp, ks.s, COORD_LIMIT, &g->spacing) != 0) {
        return -1;
    }
    for (i = 0; i < 3; i++)
        if (!(g->spacing.raw[i] > 0) || g->spacing.raw[i] > 1e6)
            return fail(c, ks.s, "must be > 0 and <= 1e6 (a number or [x, y, z]), got %g",
                        (double)g->spacing.raw[i]);
    return 0;
}

static int parse_random_box(ctx *c, const cJSON *o, const char *path, generator *g) {
    const cJSON *rr = item(o, "radius_range");
    bool overlap = false;
    if (check_keys(c, o, path, RANDOM_KEYS, NULL) || need(c, o, path, "min") ||
        need(c, o, path, "max") || need(c, o, path, "count") ||
        opt_vec3(c, o, path, "min", &g->a, COORD_LIMIT) ||
        opt_vec3(c, o, path, "max", &g->b, COORD_LIMIT) ||
        opt_long(c, o, path, "count", &g->count, 0, 1e12) ||
        opt_float(c, o, path, "speed", &g->speed, 0, COORD_LIMIT, 0, "must be in [0, 1e9]") ||
        opt_bool(c, o, path, "overlap", &overlap))
        return -1;
    g->overlap = overlap;
    g->rmin = g->rmax = g->body.def.radius;
    if (rr != NULL) {
        keypath k = kp_key(path, "radius_range");
        if (!cJSON_IsArray(rr) || cJSON_GetArraySize(rr) != 2)
            return fail(c, k.s, "must be [min, max], got %s", json_type_name(rr));
        double a, b;
        if (number_value(c, rr->child, kp_index(k.s, 0).s, &a) ||
            number_value(c, rr->child->next, kp_index(k.s, 1).s, &b))
            return -1;
        if (!(a > 0 && a <= b && b <= 1e6))
            return fail(c, k.s, "must satisfy 0 < min <= max <= 1e6, got [%g, %g]", a, b);
        g->rmin = (float)a;
        g->rmax = (float)b;
    }
    for (int i = 0; i < 3; i++)
        if (!(g->b.raw[i] - g->a.raw[i] >= 2 * g->rmax))
            return fail(c, kp_index(kp_key(path, "max").s, i).s,
                        "the box (min %g, max %g) must be at least a diameter (%g) wide",
                        (double)g->a.raw[i], (double)g->b.raw[i], 2.0 * g->rmax);
    return 0;
}

static int parse_emitter(ctx *c, const cJSON *o, const char *path, generator *g) {
    g->count = -1;
    g->stop = -1;
    if (check_keys(c, o, path, EMITTER_KEYS, NULL) || need(c, o, path, "position") ||
        need(c, o, path, "rate") || opt_vec3(c, o, path, "position", &g->a, COORD_LIMIT) ||
        opt_double(c, o, path, "rate", &g->rate, 0, 1e9, 1, "must be > 0 and <= 1e9 per second") ||
        opt_double(c, o, path, "start", &g->start, 0, 1e9, 0, "must be in [0, 1e9] seconds") ||
        opt_double(c, o, path, "stop", &g->stop, 0, 1e9, 0, "must be in [0, 1e9] seconds") ||
        opt_long(c, o, path, "count", &g->count, 0, 1e12) ||
        opt_float(c, o, path, "spread", &g->spread, 0, 1e6, 0, "must be in [0, 1e6]"))
        return -1;
    if (g->count < 0 && g->stop < 0)
        return fail(c, path, "an emitter needs \"count\" or \"stop\" (or both), so it ends");
    if (g->stop >= 0 && g->stop < g->start)
        return fail(c, kp_key(path, "stop").s, "must be >= start (%g), got %g", g->start, g->stop);
    if (g->stop >= 0) {
        // Bodies are due at start + j / rate for j = 0, 1, ... while that time is before stop.
        double by_stop = ceil((g->stop - g->start) * g->rate);
        if (g->count < 0 || by_stop < (double)g->count)
            g->count = by_stop > 1e12 ? (long)1e12 : (long)by_stop;
    }
    return 0;
}

static int parse_generator(ctx *c, const cJSON *o, int index, const body_tpl *defaults,
                           uint64_t scene_seed, generator *g) {
    keypath k = kp_index("generators", index);
    uint64_t own = 0;
    memset(g, 0, sizeof *g);
    g->index = index;
    g->body = *defaults;
    g->velocity = (vec3s){{0, 0, 0}};
    if (need_object(c, o, k.s) || need(c, o, k.s, "type") ||
        opt_enum(c, o, k.s, "type", GEN_NAMES, &g->kind) || parse_seed(c, o, k.s, &own) ||
        parse_override(c, o, k.s, "body", &g->body) ||
        opt_vec3(c, o, k.s, "velocity", &g->velocity, COORD_LIMIT))
        return -1;
    if (g->kind == 3)
        g->kind = GEN_EMITTER; // "pour" is another name for an emitter
    g->seed = mix_seed(mix_seed(scene_seed, (uint64_t)index + 1), own);
    if (g->kind == GEN_LATTICE)
        return parse_lattice(c, o, k.s, g);
    if (g->kind == GEN_RANDOM_BOX)
        return parse_random_box(c, o, k.s, g);
    return parse_emitter(c, o, k.s, g);
}

static int make_lattice(ctx *c, kyu_scene *s, generator *g) {
    keypath k = kp_index("generators", g->index);
    uint64_t rng = g->seed;
    for (long z = 0; z < g->n[2]; z++)
        for (long y = 0; y < g->n[1]; y++)
            for (long x = 0; x < g->n[0]; x++) {
                vec3s p = {{g->a.x + (float)x * g->spacing.x, g->a.y + (float)y * g->spacing.y,
                            g->a.z + (float)z * g->spacing.z}};
                if (g->jitter > 0)
                    p = glms_vec3_add(p, glms_vec3_scale(in_unit_ball(&rng), g->jitter));
                if (add_body_ctx(c, s, &g->body, p, g->velocity, g->body.def.radius, k.s) != 0)
                    return -1;
            }
    return 0;
}

// A hash grid of the spheres placed so far, so a random box can refuse overlapping spots.
typedef struct place_grid {
    float cell;
    uint32_t mask;
    int32_t *head, *next;
    vec4s *ball; // centre and radius
    long count;
} place_grid;

static uint32_t cell_hash(long x, long y, long z, uint32_t mask) {
    uint64_t h = (uint64_t)x * 73856093u ^ (uint64_t)y * 19349663u ^ (uint64_t)z * 83492791u;
    return (uint32_t)(mix_seed(h, 0) & mask);
}

static int grid_init(place_grid *g, long count, float rmax) {
    uint32_t size = 16;
    while (size < 2 * (uint64_t)count) size *= 2;
    g->cell = 2 * rmax;
    g->mask = size - 1;
    g->count = 0;
    g->head = malloc(size * sizeof *g->head);
    g->next = malloc((size_t)count * sizeof *g->next + 1);
    g->ball = malloc((size_t)count * sizeof *g->ball + 1);
    if (g->head == NULL || g->next == NULL || g->ball == NULL)
        return -1;
    memset(g->head, 0xff, size * sizeof *g->head);
    return 0;
}

static void grid_free(place_grid *g) {
    free(g->head);
    free(g->next);
    free(g->ball);
}

static long cell_of(float v, float cell) { return (long)floorf(v / cell); }

static int grid_free_spot(const place_grid *g, vec3s p, float r) {
    long cx = cell_of(p.x, g->cell), cy = cell_of(p.y, g->cell), cz = cell_of(p.z, g->cell);
    for (long dz = -1; dz <= 1; dz++)
        for (long dy = -1; dy <= 1; dy++)
            for (long dx = -1; dx <= 1; dx++)
                for (int32_t i = g->head[cell_hash(cx + dx, cy + dy, cz + dz, g->mask)]; i >= 0;
                     i = g->next[i]) {
                    vec4s b = g->ball[i];
                    float ex = b.x - p.x, ey = b.y - p.y, ez = b.z - p.z, rr = b.w + r;
                    if (ex * ex + ey * ey + ez * ez < rr * rr)
                        return 0;
                }
    return 1;
}

static void grid_add(place_grid *g, vec3s p, float r) {
    uint32_t h = cell_hash(cell_of(p.x, g->cell), cell_of(p.y, g->cell), cell_of(p.z, g->cell),
                           g->mask);
    g->ball[g->count] = (vec4s){{p.x, p.y, p.z, r}};
    g->next[g->count] = g->head[h];
    g->head[h] = (int32_t)g->count++;
}

static vec3s random_in_box(uint64_t *rng, vec3s lo, vec3s hi, float r) {
    vec3s p;
    for (int i = 0; i < 3; i++)
        p.raw[i] = lo.raw[i] + r + (float)uniform(rng) * (hi.raw[i] - lo.raw[i] - 2 * r);
    return p;
}

static int make_random_box(ctx *c, kyu_scene *s, generator *g) {
    keypath k = kp_index("generators", g->index);
    uint64_t rng = g->seed;
    place_grid grid = {0};
    if (!g->overlap && grid_init(&grid, g->count, g->rmax) != 0) {
        grid_free(&grid);
        return fail(c, k.s, "out of memory placing %ld bodies", g->count);
    }
    for (long i = 0; i < g->count; i++) {
        float r = g->rmin + (float)uniform(&rng) * (g->rmax - g->rmin);
        vec3s p = random_in_box(&rng, g->a, g->b, r);
        for (int t = 1; !g->overlap && !grid_free_spot(&grid, p, r); t++) {
            if (t == PLACE_ATTEMPTS) {
                grid_free(&grid);
                return fail(c, kp_key(k.s, "count").s, "found room for only %ld of %ld bodies "
                            "without overlaps: make the box larger or set \"overlap\": true",
                            i, g->count);
            }
            p = random_in_box(&rng, g->a, g->b, r);
        }
        if (!g->overlap)
            grid_add(&grid, p, r);
        vec3s v = g->velocity;
        if (g->speed > 0)
            v = glms_vec3_add(v, glms_vec3_scale(on_unit_sphere(&rng), g->speed));
        if (add_body_ctx(c, s, &g->body, p, v, r, k.s) != 0) {
            grid_free(&grid);
            return -1;
        }
    }
    grid_free(&grid);
    return 0;
}

// Bodies an emitter has emitted once the emission before step k has run (k = -1: none).
static long emitter_due(const kyu_scene *s, const generator *g, long k) {
    if (k < 0)
        return 0;
    double t = (double)k * s->wd.fixed_dt + 1e-9;
    if (t < g->start)
        return 0;
    double n = floor((t - g->start) * g->rate) + 1;
    return n < (double)g->count ? (long)n : g->count;
}

// The n-th body of an emitter, placed from its own counter so a resumed run makes the same body.
static int emit_one(kyu_scene *s, generator *g, long n, char *err, size_t errlen) {
    uint64_t rng = mix_seed(g->seed, (uint64_t)n);
    vec3s p = g->a;
    if (g->spread > 0)
        p = glms_vec3_add(p, glms_vec3_scale(in_unit_ball(&rng), g->spread));
    return add_body(s, &g->body, p, g->velocity, g->body.def.radius,
                    kp_index("generators", g->index).s, err, errlen);
}

static int run_emitters(kyu_scene *s, long step) {
    for (int i = 0; i < s->gen_count; i++) {
        generator *g = &s->gen[i];
        if (g->kind != GEN_EMITTER)
            continue;
        for (long due = emitter_due(s, g, step); g->emitted < due; g->emitted++)
            if (emit_one(s, g, g->emitted, s->error, sizeof s->error) != 0)
                return -1;
    }
    return 0;
}

// ---- world and run -----------------------------------------------------------------------------

static const char *const WORLD_KEYS[] = {
    "gravity", "fixed_dt", "max_steps_per_update", "restitution_threshold", "solver_iterations",
    "linear_slop", "contact_margin", "max_events_per_step", "cell_size", "threads", "enable_sleep",
    "enable_impact_events", "sleep_speed", "sleep_time", "tangential_restitution", NULL};

static int parse_world(ctx *c, const cJSON *o, kyu_world_def *d) {
    const char *p = "world";
    long steps = d->max_steps_per_update, iters = d->solver_iterations;
    long events = d->max_events_per_step, threads = d->worker_count;
    if (o == NULL)
        return 0;
    if (need_object(c, o, p) || check_keys(c, o, p, WORLD_KEYS, NULL) ||
        opt_vec3(c, o, p, "gravity", &d->gravity, 1e6) ||
        opt_float(c, o, p, "fixed_dt", &d->fixed_dt, 0, 10, 1, "must be > 0 and <= 10 seconds") ||
        opt_long(c, o, p, "max_steps_per_update", &steps, 1, 1e6) ||
        opt_float(c, o, p, "restitution_threshold", &d->restitution_threshold, 0, 1e6, 0,
                  "must be in [0, 1e6] m/s") ||
        opt_long(c, o, p, "solver_iterations", &iters, 1, 1000) ||
        opt_float(c, o, p, "linear_slop", &d->linear_slop, 0, 1e3, 0, "must be in [0, 1000] m") ||
        opt_float(c, o, p, "contact_margin", &d->contact_margin, 0, 1e3, 0,
                  "must be in [0, 1000] m") ||
        opt_long(c, o, p, "max_events_per_step", &events, 0, 2147483647.0) ||
        opt_float(c, o, p, "cell_size", &d->cell_size, 0, 1e6, 0, "must be in [0, 1e6] m") ||
        opt_long(c, o, p, "threads", &threads, 1, 256) ||
        opt_bool(c, o, p, "enable_sleep", &d->enable_sleep) ||
        opt_bool(c, o, p, "enable_impact_events", &d->enable_impact_events) ||
        opt_float(c, o, p, "sleep_speed", &d->sleep_speed, 0, 1e6, 0, "must be in [0, 1e6] m/s") ||
        opt_float(c, o, p, "sleep_time", &d->sleep_time, 0, 1e6, 0, "must be in [0, 1e6] s") ||
        opt_float(c, o, p, "tangential_restitution", &d->tangential_restitution, -1, 1, 0,
                  "must be in [-1, 1] (-1 smooth, 0 no slip after, 1 perfectly rough)"))
        return -1;
    d->max_steps_per_update = (int)steps;
    d->solver_iterations = (int)iters;
    d->max_events_per_step = (int)events;
    d->worker_count = (int)threads;
    return 0;
}

static int parse_record(ctx *c, const cJSON *o, kyu_scene *s) {
    static const char *const KEYS[] = {"every", "format", "ids", NULL};
    static const char *const FORMATS[] = {"none", "csv", "jsonl", "both", NULL};
    const char *p = "run.record";
    long every = s->every;
    int format = s->format;
    if (need_object(c, o, p) || check_keys(c, o, p, KEYS, NULL) ||
        opt_long(c, o, p, "every", &every, 1, 2147483647.0) ||
        opt_enum(c, o, p, "format", FORMATS, &format))
        return -1;
    s->every = (int)every;
    s->format = format; // the index is the bit set: none 0, csv 1, jsonl 2, both 3
    const cJSON *ids = item(o, "ids");
    if (ids == NULL)
        return 0;
    keypath k = kp_key(p, "ids");
    if (need_array(c, ids, k.s) != 0)
        return -1;
    int n = cJSON_GetArraySize(ids);
    s->ids = malloc((size_t)n * sizeof *s->ids + 1);
    if (s->ids == NULL)
        return fail(c, k.s, "out of memory");
    for (const cJSON *e = ids->child; e != NULL; e = e->next) {
        double v;
        if (int_value(c, e, kp_index(k.s, s->id_count).s, 1, 4294967295.0, &v) != 0)
            return -1;
        s->ids[s->id_count++] = (uint32_t)v;
    }
    return 0;
}

static int parse_run(ctx *c, const cJSON *o, kyu_scene *s) {
    static const char *const KEYS[] = {"steps", "seconds", "record", NULL};
    double seconds = -1;
    if (o == NULL)
        return 0;
    if (need_object(c, o, "run") || check_keys(c, o, "run", KEYS, NULL) ||
        opt_long(c, o, "run", "steps", &s->run_steps, 0, 2147483647.0) ||
        opt_double(c, o, "run", "seconds", &seconds, 0, 1e9, 0, "must be in [0, 1e9]"))
        return -1;
    if (item(o, "steps") != NULL && item(o, "seconds") != NULL)
        return fail(c, "run", "give \"steps\" or \"seconds\", not both");
    if (seconds >= 0) {
        double steps = ceil(seconds / s->wd.fixed_dt - 1e-6);
        if (steps > 2147483647.0)
            return fail(c, "run.seconds", "makes %.0f steps of %g s, too many", steps,
                        (double)s->wd.fixed_dt);
        s->run_steps = (long)steps;
    }
    const cJSON *rec = item(o, "record");
    return rec == NULL ? 0 : parse_record(c, rec, s);
}

// ---- loading -----------------------------------------------------------------------------------

static const char *const ROOT_KEYS[] = {"kyu_scene", "description", "seed", "world",
                                        "body_defaults", "colliders", "bodies", "generators",
                                        "run", NULL};

static int check_capacity(ctx *c, kyu_scene *s, const cJSON *bodies, const cJSON *colliders) {
    int nc = colliders ? cJSON_GetArraySize(colliders) : 0;
    if (nc > c->max_colliders)
        return fail(c, "colliders", "has %d colliders, more than the limit of %d", nc,
                    c->max_colliders);
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
        return fail(c, where, "the scene would have %.0f bodies or more, more than the limit of "
                    "%d", total, c->max_bodies);
    double need_bytes = total * BYTES_PER_BODY, avail = total > 1e4 ? available_bytes() : 0;
    if (avail > 0 && need_bytes > 0.8 * avail)
        return fail(c, where, "%.0f bodies need about %.1f GiB of memory, only %.1f GiB is "
                    "available", total, need_bytes / 1073741824.0, avail / 1073741824.0);
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
    if (check_keys(c, root, "", ROOT_KEYS, NULL) != 0)
        return -1;
    if (v != NULL && (int_value(c, v, "kyu_scene", 1, 1, &version) != 0))
        return -1;
    if (desc != NULL && !cJSON_IsString(desc))
        return fail_type(c, "description", desc, "a string");
    if (parse_seed(c, root, "", &s->seed) != 0 || parse_world(c, item(root, "world"), &s->wd))
        return -1;
    if (opt->has_seed)
        s->seed = opt->seed;
    if (opt->threads > 0)
        s->wd.worker_count = opt->threads;
    if (bd != NULL && (need_object(c, bd, "body_defaults") ||
                       check_keys(c, bd, "body_defaults", BODY_MATERIAL_KEYS, NULL) ||
                       parse_material(c, bd, "body_defaults", defaults)))
        return -1;
    return parse_run(c, item(root, "run"), s);
}

static int parse_generators(ctx *c, const cJSON *arr, kyu_scene *s, const body_tpl *defaults) {
    if (arr == NULL)
        return 0;
    if (need_array(c, arr, "generators") != 0)
        return -1;
    int n = cJSON_GetArraySize(arr);
    s->gen = calloc((size_t)n + 1, sizeof *s->gen);
    if (s->gen == NULL)
        return fail(c, "generators", "out of memory");
    for (const cJSON *o = arr->child; o != NULL; o = o->next, s->gen_count++)
        if (parse_generator(c, o, s->gen_count, defaults, s->seed, &s->gen[s->gen_count]) != 0)
            return -1;
    return 0;
}

static int build_world(ctx *c, kyu_scene *s, const cJSON *root, const body_tpl *defaults) {
    s->wd.body_capacity = (int)(s->planned < 16 ? 16 : s->planned);
    s->wd.max_bodies = c->max_bodies;
    s->wd.max_colliders = c->max_colliders;
    char why[200];
    kyu_status st = kyu_world_def_check(&s->wd, why, sizeof why); // names the field and its value
    if (st == KYU_OK) st = kyu_world_create(&s->wd, &s->world);
    else return fail(c, "world", "kyu refused the world settings: %s", why);
    if (st != KYU_OK)
        return fail(c, "world", "kyu refused the world settings: %s", kyu_status_string(st));
    const cJSON *colliders = item(root, "colliders"), *bodies = item(root, "bodies");
    if (colliders != NULL && build_colliders(c, s, colliders) != 0)
        return -1;
    if (bodies != NULL && parse_bodies(c, s, bodies, defaults) != 0)
        return -1;
    for (int i = 0; i < s->gen_count; i++) {
        generator *g = &s->gen[i];
        if ((g->kind == GEN_LATTICE && make_lattice(c, s, g) != 0) ||
            (g->kind == GEN_RANDOM_BOX && make_random_box(c, s, g) != 0))
            return -1;
    }
    return 0;
}

static int load_root(ctx *c, const cJSON *root, kyu_scene *s, const kyu_scene_options *opt) {
    body_tpl defaults = {kyu_body_def_default(), 0};
    const cJSON *colliders, *bodies;
    if (parse_head(c, root, s, &defaults, opt) != 0)
        return -1;
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
        for (size_t i = at; i < len && n < 16 && text[i] != '\n' && text[i] != '\r'; i++)
            snip[n++] = text[i];
        snip[n] = '\0';
        char clean[40] = "";
        append_clean(clean, sizeof clean, snip);
        say(near, sizeof near, "near `%s`", clean);
    }
    c->failed = 1;
    if (c->err != NULL && c->errlen > 0)
        say(c->err, c->errlen, "%s:%ld:%ld: %s%s%s", c->file, line, col, what, near[0] ? " " : "",
            near);
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
    if (s == NULL)
        return NULL;
    s->name = malloc(strlen(name) + 1);
    if (s->name == NULL) {
        free(s);
        return NULL;
    }
    strcpy(s->name, name);
    s->wd = kyu_world_def_default();
    s->seed = 1;
    s->run_steps = 600;
    s->every = 10;
    s->format = KYU_RECORD_CSV | KYU_RECORD_JSONL;
    return s;
}

kyu_scene *kyu_scene_load_string(const char *text, size_t len, const char *name,
                                 const kyu_scene_options *opt, char *err, size_t errlen) {
    static const kyu_scene_options none = {0};
    ctx c = {name ? name : "<scene>", err, errlen, 0, 0, 0, 0};
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    resolve_limits(&c, opt ? opt : &none);
    if (text == NULL && len > 0) {
        fail(&c, NULL, "no text");
        return NULL;
    }
    // /proc/meminfo is read only for texts large enough to matter (the fuzzer loads many small ones).
    double avail = len > (1u << 20) ? available_bytes() : 0;
    if (len > KYU_SCENE_MAX_FILE_BYTES || (avail > 0 && (double)len * PARSE_BYTES_PER_BYTE > avail)) {
        fail(&c, NULL, "%zu bytes is too large a scene to parse (the limit is %u MiB and the "
             "memory available)", len, KYU_SCENE_MAX_FILE_BYTES >> 20);
        return NULL;
    }
    cJSON *root = parse_json(&c, text ? text : "", len);
    if (root == NULL)
        return NULL;
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

kyu_scene *kyu_scene_load(const char *path, const kyu_scene_options *opt, char *err,
                          size_t errlen) {
    ctx c = {path ? path : "<null>", err, errlen, 0, 0, 0, 0};
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (f == NULL) {
        fail(&c, NULL, "cannot open: %s", path ? strerror(errno) : "no path");
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        len += fread(buf + len, 1, cap - len, f);
        if (ferror(f) || len < cap || cap > KYU_SCENE_MAX_FILE_BYTES)
            break;
        char *bigger = realloc(buf, cap * 2);
        if (bigger == NULL)
            free(buf);
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
    if (s == NULL)
        return;
    kyu_world_destroy(s->world);
    free(s->name);
    free(s->ids);
    free(s->gen);
    free(s->gscale);
    free(s);
}

// ---- running -----------------------------------------------------------------------------------

int kyu_scene_step(kyu_scene *s) {
    s->error[0] = '\0';
    if (run_emitters(s, s->step) != 0)
        return -1;
    kyu_status st = kyu_world_step(s->world);
    if (st != KYU_OK) {
        say(s->error, sizeof s->error, "step %ld: %s (%s)", s->step + 1,
                 kyu_status_string(st), kyu_world_last_error(s->world));
        return -1;
    }
    s->step++;
    return 0;
}

// After a snapshot of step `step`, the emitters have run for steps 0 .. step-1: their counts and
// the bodies' gravity scales (ids in creation order; the scene never removes bodies) follow.
static int replay_emitters(kyu_scene *s, long step, long first_id) {
    long next_id = first_id;
    for (int i = 0; i < s->gen_count; i++)
        s->gen[i].emitted = 0;
    for (long k = 0; k < step; k++)
        for (int i = 0; i < s->gen_count; i++) {
            generator *g = &s->gen[i];
            if (g->kind != GEN_EMITTER)
                continue;
            for (long due = emitter_due(s, g, k); g->emitted < due; g->emitted++)
                if (remember_gscale(s, (uint32_t)++next_id, g->body.def.gravity_scale) != 0)
                    return -1;
        }
    return 0;
}

int kyu_scene_resume(kyu_scene *s, const char *snapshot_path, long step, char *err,
                     size_t errlen) {
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
    if (replay_emitters(s, step, first_id) != 0) {
        say(err, errlen, "%s: out of memory", snapshot_path);
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

const uint32_t *kyu_scene_record_ids(const kyu_scene *s, int *count) {
    *count = s->id_count;
    return s->id_count ? s->ids : NULL;
}

double kyu_scene_potential_energy(const kyu_scene *s) {
    int n = kyu_world_get_bodies(s->world, NULL, 0);
    if (n <= 0)
        return 0;
    kyu_body_id *ids = malloc((size_t)n * sizeof *ids);
    if (ids == NULL)
        return NAN;
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
