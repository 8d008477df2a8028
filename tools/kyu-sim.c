// SPDX-License-Identifier: MIT
// kyu-sim: runs a scene file headless, records frames and writes a summary.
//
//     kyu-sim SCENE [--threads N] [--seed S] [--steps N] [--out DIR]
//                   [--format csv|jsonl|both|vtk|xyz|contacts|none[,...]] [--every K]
//                   [--measure X0,Y0,Z0,X1,Y1,Z1] [--save-snapshot STEP:FILE] [--resume FILE] [--quiet]
//
// Exit codes: 0 done, 2 bad input (the scene, an argument, a snapshot to resume), 1 internal error
// (the engine refused a step, an output file could not be written). See docs/scenes.md.
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "frame_files.h"
#include "scene.h"

enum { EXIT_DONE = 0, EXIT_INTERNAL = 1, EXIT_BAD_INPUT = 2 };
enum { MAX_SNAPSHOTS = 16, MAX_BOXES = 16, MAX_INSERTERS = 256 };
// Record formats beyond the scene file's (kyu-sim's --format only): the files analysis tools open.
enum { RECORD_VTK = 4, RECORD_XYZ = 8, RECORD_CONTACTS = 16 };

typedef struct snapshot_req {
    long step;
    const char *file;
} snapshot_req;

typedef struct options {
    const char *scene;
    const char *out;
    const char *resume;
    int threads;
    int has_seed;
    uint64_t seed;
    long steps; // -1: the scene's
    int every;  // 0: the scene's
    int format; // -1: the scene's
    int quiet;
    snapshot_req snap[MAX_SNAPSHOTS];
    int snap_count;
    float box[MAX_BOXES][6]; // --measure: lower x, y, z, upper x, y, z
    int box_count;
} options;

// ---- messages ----------------------------------------------------------------------------------

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int
die(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("kyu-sim: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

static void usage(FILE *f) {
    fputs(
        "usage: kyu-sim SCENE [--threads N] [--seed S] [--steps N] [--out DIR]\n"
        "               [--format csv|jsonl|both|vtk|xyz|contacts|none[,...]] [--every K]\n"
        "               [--measure X0,Y0,Z0,X1,Y1,Z1] [--save-snapshot STEP:FILE] [--resume FILE] [--quiet]\n"
        "  runs SCENE (docs/scenes.md) headless; writes DIR/frames.csv, DIR/frames.jsonl,\n"
        "  DIR/series.csv and DIR/summary.json (DIR defaults to kyu-out).\n"
        "  --format vtk writes DIR/frames/frame_STEP.vtp and DIR/frames.pvd (ParaView);\n"
        "  --format xyz writes DIR/frames.xyz (extended XYZ: OVITO); a list: --format csv,vtk\n"
        "  --format contacts writes the contact network, DIR/contacts/contacts_STEP.vtp and "
        "DIR/contacts.pvd\n"
        "  --measure (repeatable) adds a box to the scene's run.measure: DIR/measure.csv has its stress,\n"
        "  packing fraction and coordination each frame\n"
        "  --steps N ends the run at step N (counted from the scene's start, also when resuming).\n"
        "  exit codes: 0 done, 2 bad input, 1 internal error\n",
        f);
}

// ---- arguments ---------------------------------------------------------------------------------

static int parse_long(const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static int parse_u64(const char *s, uint64_t *out) {
    char *end;
    errno = 0;
    if (s[0] == '-' || s[0] == '\0') return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0') return -1;
    *out = (uint64_t)v;
    return 0;
}

// A comma-separated list of format names; the bit set of them all, or -1.
static int parse_format(const char *s) {
    static const char *const names[] = {"none", "csv", "jsonl", "both", "vtk", "xyz", "contacts"};
    static const int bits[] = {
        0,          KYU_RECORD_CSV, KYU_RECORD_JSONL, KYU_RECORD_CSV | KYU_RECORD_JSONL,
        RECORD_VTK, RECORD_XYZ,     RECORD_CONTACTS};
    int set = 0;
    for (;;) {
        size_t len = strcspn(s, ",");
        int found = -1;
        for (int i = 0; i < 7; i++)
            if (strlen(names[i]) == len && strncmp(s, names[i], len) == 0) found = i;
        if (found < 0) return -1;
        set |= bits[found];
        if (s[len] == '\0') return set;
        s += len + 1;
    }
}

static int parse_snapshot_arg(options *o, const char *arg) {
    const char *colon = strchr(arg, ':');
    char num[32];
    long step;
    if (colon == NULL || colon == arg || (size_t)(colon - arg) >= sizeof num || colon[1] == '\0') return -1;
    memcpy(num, arg, (size_t)(colon - arg));
    num[colon - arg] = '\0';
    if (parse_long(num, 0, 2147483647L, &step) != 0 || o->snap_count == MAX_SNAPSHOTS) return -1;
    o->snap[o->snap_count++] = (snapshot_req){step, colon + 1};
    return 0;
}

// --measure X0,Y0,Z0,X1,Y1,Z1: a box, each lower corner below the upper.
static int parse_box(options *o, const char *arg) {
    float *b = o->box[o->box_count];
    const char *p = arg;
    if (o->box_count == MAX_BOXES) return -1;
    for (int k = 0; k < 6; k++) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (errno != 0 || end == p || !isfinite(v) || fabs(v) > 1e9 || *end != (k < 5 ? ',' : '\0'))
            return -1;
        b[k] = (float)v;
        p = end + 1;
    }
    for (int k = 0; k < 3; k++)
        if (!(b[k] < b[3 + k])) return -1;
    o->box_count++;
    return 0;
}

// One option with its value; returns 0, or -1 after printing why.
static int parse_option(options *o, const char *name, const char *val) {
    long v;
    int bad = 0;
    if (strcmp(name, "--threads") == 0)
        bad = parse_long(val, 1, 256, &v) || (o->threads = (int)v, 0);
    else if (strcmp(name, "--seed") == 0)
        bad = parse_u64(val, &o->seed) || (o->has_seed = 1, 0);
    else if (strcmp(name, "--steps") == 0)
        bad = parse_long(val, 0, 2147483647L, &o->steps);
    else if (strcmp(name, "--every") == 0)
        bad = parse_long(val, 1, 2147483647L, &v) || (o->every = (int)v, 0);
    else if (strcmp(name, "--format") == 0)
        bad = (o->format = parse_format(val)) < 0;
    else if (strcmp(name, "--out") == 0)
        o->out = val;
    else if (strcmp(name, "--save-snapshot") == 0)
        bad = parse_snapshot_arg(o, val);
    else if (strcmp(name, "--resume") == 0)
        o->resume = val;
    else if (strcmp(name, "--measure") == 0)
        bad = parse_box(o, val);
    else
        return die(-1, "unknown option %s (try --help)", name);
    if (bad) return die(-1, "bad value for %s: \"%s\" (try --help)", name, val);
    return 0;
}

static int takes_value(const char *name) {
    static const char *const names[] = {"--threads", "--seed",          "--steps",  "--every",   "--format",
                                        "--out",     "--save-snapshot", "--resume", "--measure", NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp(name, names[i]) == 0) return 1;
    return 0;
}

static int parse_args(int argc, char **argv, options *o) {
    *o = (options){.steps = -1, .format = -1, .out = "kyu-out"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
            o->quiet = 1;
        } else if (strncmp(a, "--", 2) == 0 && a[2] != '\0') {
            if (!takes_value(a)) return die(-1, "unknown option %s (try --help)", a);
            if (i + 1 >= argc) return die(-1, "%s needs a value (try --help)", a);
            if (parse_option(o, a, argv[++i]) != 0) return -1;
        } else if (o->scene == NULL) {
            o->scene = a;
        } else {
            return die(-1, "one scene only: \"%s\" is extra (try --help)", a);
        }
    }
    if (o->scene == NULL) return die(-1, "no scene file given (try --help)");
    return 0;
}

// ---- files -------------------------------------------------------------------------------------

// mkdir -p: every missing directory of path.
static int make_dirs(const char *path) {
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
        buf[i] = saved;
    }
    struct stat st;
    return (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) ? 0 : -1;
}

static FILE *open_out(const char *dir, const char *name, char *path, size_t cap) {
    snprintf(path, cap, "%s/%s", dir, name);
    return fopen(path, "w");
}

// A JSON string literal (the scene path goes into headers and the summary).
static void put_json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

// FNV-1a of the scene file, so a snapshot is resumed only with the scene it came from.
static uint64_t file_hash(const char *path) {
    uint64_t h = 0xcbf29ce484222325ull;
    FILE *f = fopen(path, "rb");
    if (f == NULL) return 0;
    int c;
    while ((c = fgetc(f)) != EOF) h = (h ^ (uint64_t)c) * 0x100000001b3ull;
    fclose(f);
    return h;
}

// ---- recording ---------------------------------------------------------------------------------

// Time of a step: the engine's float dt makes 30 steps 0.500000026 s; a record shows microseconds.
static double step_time(const kyu_scene *s, long step) {
    return round((double)step * kyu_scene_world_def(s)->fixed_dt * 1e6) / 1e6;
}

// A series of .vtp files and their times, for its .pvd collection.
typedef struct vtp_series {
    const char *dir; // "frames" or "contacts": DIR/dir holds the .vtp files; NULL when not written
    char **files;    // their names, relative to DIR (for DIR/frames.pvd, DIR/contacts.pvd)
    double *times;
    int count, cap;
} vtp_series;

typedef struct recorder {
    FILE *csv, *jsonl, *series, *xyz, *measure;
    kyu_body_id *ids;
    int cap;
    long frames;
    long rows;
    char failed_path[4200];
    kyu_body_id *pick; // the recorded bodies of a VTK or XYZ frame
    int pick_cap;
    const char *out_dir; // DIR
    vtp_series vtk, net; // the frames (--format vtk) and the contact networks (--format contacts)
    int box_count;       // the measured boxes: the scene's run.measure, then --measure's
    char box_name[64 + MAX_BOXES][64];
    float box[64 + MAX_BOXES][6];
} recorder;

static int rec_open(recorder *r, const options *o, kyu_scene *s, int format, int every) {
    char path[4200];
    const kyu_world_def *wd = kyu_scene_world_def(s);
    r->out_dir = o->out;
    if ((format & KYU_RECORD_CSV) && (r->csv = open_out(o->out, "frames.csv", path, sizeof path)) == NULL)
        return snprintf(r->failed_path, sizeof r->failed_path, "%s", path), -1;
    if ((format & KYU_RECORD_JSONL) &&
        (r->jsonl = open_out(o->out, "frames.jsonl", path, sizeof path)) == NULL)
        return snprintf(r->failed_path, sizeof r->failed_path, "%s", path), -1;
    if ((r->series = open_out(o->out, "series.csv", path, sizeof path)) == NULL)
        return snprintf(r->failed_path, sizeof r->failed_path, "%s", path), -1;
    if ((format & RECORD_XYZ) && (r->xyz = open_out(o->out, "frames.xyz", path, sizeof path)) == NULL)
        return snprintf(r->failed_path, sizeof r->failed_path, "%s", path), -1;
    for (int k = 0; k < kyu_scene_measure_count(s) && k < 64; k++) {
        const char *name;
        kyu_scene_measure_box(s, k, &name, r->box[r->box_count], r->box[r->box_count] + 3);
        snprintf(r->box_name[r->box_count++], 64, "%s", name);
    }
    for (int k = 0; k < o->box_count; k++) {
        memcpy(r->box[r->box_count], o->box[k], sizeof o->box[k]);
        snprintf(r->box_name[r->box_count++], 64, "measure%d", k);
    }
    if (r->box_count > 0 && (r->measure = open_out(o->out, "measure.csv", path, sizeof path)) == NULL)
        return snprintf(r->failed_path, sizeof r->failed_path, "%s", path), -1;
    const char *dirs[2] = {"frames", "contacts"};
    vtp_series *series[2] = {&r->vtk, &r->net};
    for (int k = 0; k < 2; k++) {
        if (!(format & (k ? RECORD_CONTACTS : RECORD_VTK))) continue;
        snprintf(path, sizeof path, "%s/%s", o->out, dirs[k]);
        if (make_dirs(path) != 0) return snprintf(r->failed_path, sizeof r->failed_path, "%s", path), -1;
        series[k]->dir = dirs[k];
    }
    if (r->csv) fputs("step,t,id,x,y,z,vx,vy,vz,r,awake,wx,wy,wz,qx,qy,qz,qw\n", r->csv);
    if (r->measure)
        fputs("step,t,box,bodies,mass,packing_fraction,coordination,pressure,sxx,sxy,sxz,syx,syy,syz,szx,szy,"
              "szz,kinetic_pressure\n",
              r->measure);
    if (r->jsonl) {
        fputs("{\"kyu_recording\":1,\"scene\":", r->jsonl);
        put_json_string(r->jsonl, o->scene);
        fprintf(r->jsonl, ",\"dt\":%.9g,\"every\":%d}\n", (double)wd->fixed_dt, every);
    }
    fputs("step,t,kinetic,potential,total,px,py,pz,bodies,awake,sleeping,contacts,max_overlap,rotational,"
          "awake_contacts\n",
          r->series);
    return 0;
}

// Writes DIR/NAME.pvd of a series (when `out`: the run went well) and frees it.
static int series_close(vtp_series *v, const char *out) {
    int bad = 0;
    if (out != NULL && v->dir != NULL) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s.pvd", out, v->dir);
        bad = kyu_pvd_write(path, v->count, v->times, (const char *const *)v->files) != 0;
    }
    for (int i = 0; i < v->count; i++) free(v->files[i]);
    free(v->files);
    free(v->times);
    return bad;
}

// Closes the records; with `out` (the run went well), DIR/frames.pvd lists the VTK frames and
// DIR/contacts.pvd the contact networks.
static int rec_close(recorder *r, const char *out) {
    int bad = 0;
    FILE *files[5] = {r->csv, r->jsonl, r->series, r->xyz, r->measure};
    for (int i = 0; i < 5; i++)
        if (files[i] != NULL) bad |= ferror(files[i]) | (fclose(files[i]) != 0);
    bad |= series_close(&r->vtk, out) | series_close(&r->net, out);
    free(r->ids);
    free(r->pick);
    return bad ? -1 : 0;
}

static int wanted(const uint32_t *only, int only_count, uint32_t id) {
    if (only == NULL) return 1;
    for (int i = 0; i < only_count; i++)
        if (only[i] == id) return 1;
    return 0;
}

// A number for JSON: 9 significant digits, or null when it is not finite (a world that blew up),
// as the summary writes it; JSON has no NaN.
static void json_num(FILE *f, double v) {
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
}

static void json_vec(FILE *f, const char *key, vec3s v) {
    fprintf(f, ",\"%s\":[", key);
    for (int k = 0; k < 3; k++) {
        json_num(f, v.raw[k]);
        fputc(k < 2 ? ',' : ']', f);
    }
}

static void rec_body(recorder *r, kyu_world *w, kyu_body_id id, long step, double t) {
    vec3s p, v, a;
    versors q;
    float rad;
    kyu_body_get_position(w, id, &p);
    kyu_body_get_velocity(w, id, &v);
    kyu_body_get_angular_velocity(w, id, &a);
    kyu_body_get_rotation(w, id, &q);
    kyu_body_get_radius(w, id, &rad);
    int awake = kyu_body_is_awake(w, id);
    if (r->csv)
        fprintf(r->csv,
                "%ld,%.9g,%u,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n",
                step, t, id.index1, (double)p.x, (double)p.y, (double)p.z, (double)v.x, (double)v.y,
                (double)v.z, (double)rad, awake, (double)a.x, (double)a.y, (double)a.z, (double)q.x,
                (double)q.y, (double)q.z, (double)q.w);
    if (r->jsonl) {
        fprintf(r->jsonl, "{\"step\":%ld,\"t\":%.9g,\"id\":%u", step, t, id.index1);
        json_vec(r->jsonl, "p", p);
        json_vec(r->jsonl, "v", v);
        fprintf(r->jsonl, ",\"r\":%.9g,\"awake\":%s", (double)rad, awake ? "true" : "false");
        json_vec(r->jsonl, "w", a);
        fputs(",\"q\":[", r->jsonl);
        for (int k = 0; k < 4; k++) {
            json_num(r->jsonl, q.raw[k]);
            fputc(k < 3 ? ',' : ']', r->jsonl);
        }
        fputs("}\n", r->jsonl);
    }
}

static void count_segment(vec3s a, vec3s b, kyu_color color, void *context) {
    (void)a, (void)b, (void)color;
    ++*(int *)context;
}

// Pairs touching now, sleeping islands included (kyu_step_stats.contacts is the awake bodies' contact
// cache, touching or not, so a bed that sleeps reads 0 there). The debug draw's pairs layer walks
// every touching pair once, sleeping islands included and sensor overlaps left out: one segment
// each. (kyu_body_get_contacts per body would walk every contact for each body.)
static int count_touching(const kyu_world *w) {
    int n = 0;
    kyu_debug_draw d = kyu_debug_draw_default();
    d.flags = KYU_DRAW_PAIRS;
    d.draw_segment = count_segment;
    d.context = &n;
    return kyu_world_draw(w, &d) == KYU_OK ? n : -1;
}

static void rec_series(recorder *r, kyu_scene *s, long step, double t) {
    kyu_world *w = kyu_scene_world(s);
    double ke = kyu_world_kinetic_energy(w), pe = kyu_scene_potential_energy(s), mom[3] = {0};
    kyu_world_momentum(w, mom);
    kyu_step_stats st = kyu_world_stats(w);
    int n = kyu_world_body_count(w), sleeping = kyu_world_sleeping_body_count(w);
    fprintf(r->series, "%ld,%.9g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%d,%d,%d,%d,%.9g,%.17g,%d\n", step, t,
            ke, pe, ke + pe, mom[0], mom[1], mom[2], n, n - sleeping, sleeping, count_touching(w),
            (double)st.max_overlap, kyu_world_rotational_energy(w), st.contacts);
}

// Room for n recorded bodies in the pick list. 0, or -1 out of memory.
static int rec_reserve(recorder *r, int n) {
    if (n <= r->pick_cap) return 0;
    kyu_body_id *pick = realloc(r->pick, (size_t)n * sizeof *pick);
    if (pick == NULL) return -1;
    r->pick = pick;
    r->pick_cap = n;
    return 0;
}

// Room for one more file in a .vtp series; its name, DIR/NAME/NAME_STEP.vtp, into failed_path.
static int series_next(recorder *r, vtp_series *v, long step, char *name, size_t cap) {
    if (v->count == v->cap) {
        int more = v->cap > 0 ? 2 * v->cap : 64;
        char **files = realloc(v->files, (size_t)more * sizeof *files);
        if (files != NULL) v->files = files;
        double *times = realloc(v->times, (size_t)more * sizeof *times);
        if (times != NULL) v->times = times;
        if (files == NULL || times == NULL) return -1;
        v->cap = more;
    }
    snprintf(name, cap, "%s/%s_%06ld.vtp", v->dir, strcmp(v->dir, "frames") == 0 ? "frame" : "contacts",
             step);
    snprintf(r->failed_path, sizeof r->failed_path, "%s/%s", r->out_dir, name);
    return 0;
}

static int series_add(vtp_series *v, const char *name, double t) {
    if ((v->files[v->count] = strdup(name)) == NULL) return -1;
    v->times[v->count++] = t;
    return 0;
}

// The VTK file and the XYZ frame of the `count` bodies in r->pick. 0, -1 out of memory, -2 when a
// file could not be written (r->failed_path says which).
static int rec_files(recorder *r, kyu_world *w, int count, long step, double t) {
    kyu_frame_data data;
    kyu_frame frame;
    int st = kyu_frame_gather(w, r->pick, count, step, t, &data, &frame);
    if (st != KYU_OK) return kyu_frame_data_free(&data), -1;
    // OVITO takes the cell from Lattice: the box of the bodies written. kyu-sim knows no container (a
    // scene's floor is often an endless plane); a frame without bodies has no box. A periodic world's
    // box is the cell along its periodic axes, marked periodic (pbc).
    float box[6] = {0};
    bool pbc[3];
    int boxed = kyu_frame_bounds(&frame, box), rc = 0;
    boxed |= kyu_frame_periodic_cell(w, box, pbc);
    char name[64];
    if (r->xyz != NULL && kyu_frame_write_xyz(&frame, r->xyz, boxed ? box : NULL, pbc) != 0)
        rc = -2, snprintf(r->failed_path, sizeof r->failed_path, "frames.xyz");
    if (rc == 0 && r->vtk.dir != NULL) {
        rc = series_next(r, &r->vtk, step, name, sizeof name);
        if (rc == 0 && kyu_frame_write_vtp(&frame, r->failed_path) != 0) rc = -2;
        if (rc == 0) rc = series_add(&r->vtk, name, t);
    }
    kyu_frame_data_free(&data);
    return rc;
}

// The contact network of the frame, DIR/contacts/contacts_STEP.vtp.
static int rec_network(recorder *r, kyu_world *w, long step, double t) {
    char name[64];
    if (series_next(r, &r->net, step, name, sizeof name) != 0) return -1;
    int st = kyu_network_write_vtp(w, t, r->failed_path);
    if (st == KYU_ERR_IO) return -2;
    return st != KYU_OK || series_add(&r->net, name, t) != 0 ? -1 : 0;
}

// A row of measure.csv per box: its stress (Pa, row-major), packing fraction and coordination.
static int rec_measure(recorder *r, kyu_scene *s, long step, double t) {
    kyu_world *w = kyu_scene_world(s);
    for (int k = 0; k < r->box_count; k++) {
        const float *b = r->box[k];
        kyu_region_measure m;
        if (kyu_world_measure_box(w, (vec3s){{b[0], b[1], b[2]}}, (vec3s){{b[3], b[4], b[5]}}, &m) != KYU_OK)
            return -1;
        fprintf(r->measure, "%ld,%.9g,%s,%d,%.9g,%.9g,%.9g,%.9g", step, t, r->box_name[k], m.bodies, m.mass,
                m.packing_fraction, m.coordination, m.pressure);
        for (int j = 0; j < 9; j++) fprintf(r->measure, ",%.9g", m.stress[j]);
        fprintf(r->measure, ",%.9g\n",
                -(m.kinetic_stress[0] + m.kinetic_stress[4] + m.kinetic_stress[8]) / 3.0);
    }
    return 0;
}

// One frame: every body (or the scene's record ids), in slot order. 0, -1 out of memory, -2 when a
// file could not be written.
static int rec_frame(recorder *r, kyu_scene *s, long step, int format) {
    kyu_world *w = kyu_scene_world(s);
    double t = step_time(s, step);
    rec_series(r, s, step, t);
    r->frames++;
    if (r->measure != NULL && rec_measure(r, s, step, t) != 0) return -1;
    if (r->net.dir != NULL) {
        int rc = rec_network(r, w, step, t);
        if (rc != 0) return rc;
    }
    if ((format & ~RECORD_CONTACTS) == 0) return 0;
    int n = kyu_world_get_bodies(w, NULL, 0);
    if (n > r->cap) {
        kyu_body_id *ids = realloc(r->ids, (size_t)n * sizeof *ids);
        if (ids == NULL) return -1;
        r->ids = ids;
        r->cap = n;
    }
    n = kyu_world_get_bodies(w, r->ids, r->cap);
    int only_count;
    const uint32_t *only = kyu_scene_record_ids(s, &only_count);
    if ((format & (RECORD_VTK | RECORD_XYZ)) && rec_reserve(r, n) != 0) return -1;
    int picked = 0;
    for (int i = 0; i < n; i++)
        if (wanted(only, only_count, r->ids[i].index1)) {
            r->rows++; // a body recorded (a row of each record file)
            if (format & (KYU_RECORD_CSV | KYU_RECORD_JSONL)) rec_body(r, w, r->ids[i], step, t);
            if (format & (RECORD_VTK | RECORD_XYZ)) r->pick[picked++] = r->ids[i];
        }
    return format & (RECORD_VTK | RECORD_XYZ) ? rec_files(r, w, picked, step, t) : 0;
}

// ---- progress ----------------------------------------------------------------------------------

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void format_duration(char *buf, size_t cap, double s) {
    if (!(s >= 0) || s > 1e7) {
        snprintf(buf, cap, "--:--");
        return;
    }
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, cap, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, cap, "%ld:%02ld", t / 60, t % 60);
}

typedef struct progress {
    int on;
    double start, last;
    long first, end;
    float dt;
} progress;

static void progress_draw(progress *p, long step, int final) {
    double now = now_seconds();
    if (!p->on || (!final && now - p->last < 0.1)) return;
    p->last = now;
    long done = step - p->first, total = p->end - p->first;
    double frac = total > 0 ? (double)done / (double)total : 1.0;
    double rate = now > p->start ? done / (now - p->start) : 0;
    char eta[32], bar[31];
    format_duration(eta, sizeof eta, rate > 0 ? (double)(p->end - step) / rate : -1);
    int fill = (int)(frac * 30);
    for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '.';
    bar[30] = '\0';
    fprintf(stderr, "\r[%s] %ld/%ld steps  t=%.2f s  %.0f steps/s  ETA %s \033[K", bar, step, p->end,
            step * (double)p->dt, rate, eta);
    if (final) fputc('\n', stderr);
    fflush(stderr);
}

// ---- snapshots -----------------------------------------------------------------------------------

// Beside FILE, FILE.json says which step of which scene it holds: the engine's snapshot has the
// world but not the scene's clock, which the emitters need.
static int save_snapshot(kyu_scene *s, const options *o, const char *file) {
    kyu_world *w = kyu_scene_world(s);
    kyu_status st = kyu_world_save(w, file);
    if (st != KYU_OK)
        return die(-1, "%s: could not save the snapshot: %s (%s)", file, kyu_status_string(st),
                   kyu_world_last_error(w));
    char side[4200];
    snprintf(side, sizeof side, "%s.json", file);
    FILE *f = fopen(side, "w");
    if (f == NULL) return die(-1, "%s: cannot write: %s", side, strerror(errno));
    fprintf(f,
            "{\"kyu_sim_snapshot\":1,\"step\":%ld,\"seed\":%llu,\"scene_hash\":\"%016llx\","
            "\"scene\":",
            kyu_scene_step_index(s), (unsigned long long)kyu_scene_seed(s),
            (unsigned long long)file_hash(o->scene));
    put_json_string(f, o->scene);
    // The inserters' counters: a resumed run gives them back (kyu_scene_inserter_restore).
    fputs(",\"inserters\":[", f);
    for (int k = 0; k < kyu_scene_inserter_count(s); k++) {
        kyu_inserter_stats is = kyu_scene_inserter_stats(s, k);
        fprintf(f, "%s{\"inserted\":%lld,\"tries\":%lld,\"blocked\":%lld,\"mass\":%.17g,\"time\":%.17g}",
                k ? "," : "", (long long)is.inserted, (long long)is.tries, (long long)is.blocked, is.mass,
                is.time);
    }
    fputs("]}\n", f);
    return (ferror(f) | fclose(f)) ? die(-1, "%s: cannot write", side) : 0;
}

typedef struct resume_info {
    long step;
    uint64_t seed;
    uint64_t scene_hash;
    int inserter_count; // -1: the sidecar has no list (written before inserters existed)
    kyu_inserter_stats inserters[MAX_INSERTERS];
} resume_info;

// The sidecar's "inserters": each one's counters. 0, or -1 when the list is malformed.
static int read_inserters(const cJSON *list, resume_info *ri) {
    ri->inserter_count = -1;
    if (list == NULL) return 0;
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) > MAX_INSERTERS) return -1;
    ri->inserter_count = 0;
    for (const cJSON *e = list->child; e != NULL; e = e->next) {
        const char *keys[5] = {"inserted", "tries", "blocked", "mass", "time"};
        double v[5];
        for (int k = 0; k < 5; k++) {
            const cJSON *j = cJSON_GetObjectItemCaseSensitive(e, keys[k]);
            if (!cJSON_IsNumber(j) || !(j->valuedouble >= 0) || !isfinite(j->valuedouble)) return -1;
            v[k] = j->valuedouble;
        }
        kyu_inserter_stats *st = &ri->inserters[ri->inserter_count++];
        memset(st, 0, sizeof *st);
        st->inserted = (int64_t)v[0], st->tries = (int64_t)v[1], st->blocked = (int64_t)v[2];
        st->mass = v[3], st->time = v[4];
    }
    return 0;
}

static int read_sidecar(const char *file, resume_info *ri) {
    char side[4200];
    snprintf(side, sizeof side, "%s.json", file);
    FILE *f = fopen(side, "rb");
    if (f == NULL)
        return die(-1,
                   "%s: cannot open (kyu-sim writes it beside the snapshot with "
                   "--save-snapshot; it holds the step): %s",
                   side, strerror(errno));
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    cJSON *j = cJSON_Parse(buf);
    const cJSON *step = cJSON_GetObjectItemCaseSensitive(j, "step");
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(j, "seed");
    const cJSON *hash = cJSON_GetObjectItemCaseSensitive(j, "scene_hash");
    int ok = cJSON_IsNumber(step) && step->valuedouble >= 0 && step->valuedouble < 2147483648.0 &&
             step->valuedouble == floor(step->valuedouble) && cJSON_IsNumber(seed) && cJSON_IsString(hash) &&
             read_inserters(cJSON_GetObjectItemCaseSensitive(j, "inserters"), ri) == 0;
    if (ok) {
        ri->step = (long)step->valuedouble;
        ri->seed = (uint64_t)seed->valuedouble;
        ri->scene_hash = strtoull(hash->valuestring, NULL, 16);
    }
    cJSON_Delete(j);
    return ok ? 0 : die(-1, "%s: not a kyu-sim snapshot description", side);
}

// ---- the run -----------------------------------------------------------------------------------

typedef struct run_result {
    long first, end;
    double e0, wall, step_wall;
    float max_overlap;
    long impacts, cap_hits;
} run_result;

static int is_frame(long step, long first, long end, int every) {
    return step == first || step == end || step % every == 0;
}

static int maybe_save(kyu_scene *s, const options *o) {
    for (int i = 0; i < o->snap_count; i++)
        if (o->snap[i].step == kyu_scene_step_index(s) && save_snapshot(s, o, o->snap[i].file)) return -1;
    return 0;
}

static double total_energy(kyu_scene *s) {
    return kyu_world_kinetic_energy(kyu_scene_world(s)) + kyu_scene_potential_energy(s);
}

// Steps from the scene's clock to `end`, recording and saving on the way. Returns an exit code.
// A frame of the records, or the exit code of the failure (-1 when all went well).
static int record(recorder *rec, kyu_scene *s, long step, int format) {
    int code = rec_frame(rec, s, step, format);
    if (code == -1) return die(EXIT_INTERNAL, "out of memory recording");
    if (code == -2) return die(EXIT_INTERNAL, "%s: cannot write: %s", rec->failed_path, strerror(errno));
    return -1;
}

static int run(kyu_scene *s, const options *o, recorder *rec, int format, int every, run_result *res) {
    double t0 = now_seconds();
    // The first draw waits 0.1 s, so the rate it shows is measured over more than a step.
    progress bar = {isatty(2) && !o->quiet, t0, t0, res->first, res->end, kyu_scene_world_def(s)->fixed_dt};
    res->e0 = total_energy(s);
    if (maybe_save(s, o) != 0) return EXIT_INTERNAL;
    int code = record(rec, s, res->first, format);
    if (code >= 0) return code;
    for (long step = res->first; step < res->end;) {
        double ts = now_seconds();
        if (kyu_scene_step(s) != 0) return die(EXIT_INTERNAL, "%s: %s", o->scene, kyu_scene_last_error(s));
        res->step_wall += now_seconds() - ts;
        step = kyu_scene_step_index(s);
        kyu_step_stats st = kyu_world_stats(kyu_scene_world(s));
        if (st.max_overlap > res->max_overlap) res->max_overlap = st.max_overlap;
        res->impacts += st.impacts;
        res->cap_hits += st.event_cap_hit;
        if (maybe_save(s, o) != 0) return EXIT_INTERNAL;
        if (is_frame(step, res->first, res->end, every) && (code = record(rec, s, step, format)) >= 0)
            return code;
        progress_draw(&bar, step, 0);
    }
    progress_draw(&bar, res->end, 1);
    res->wall = now_seconds() - t0;
    return EXIT_DONE;
}

// ---- summary -----------------------------------------------------------------------------------

typedef struct figures {
    int bodies, sleeping, contacts, touching;
    double ke, rot, pe, mom[3];
    float overlap;
    uint64_t hash;
} figures;

static figures measure(kyu_scene *s) {
    kyu_world *w = kyu_scene_world(s);
    figures f = {0};
    f.bodies = kyu_world_body_count(w);
    f.sleeping = kyu_world_sleeping_body_count(w);
    kyu_step_stats st = kyu_world_stats(w);
    f.contacts = st.contacts;
    f.touching = count_touching(w);
    f.overlap = st.max_overlap;
    f.ke = kyu_world_kinetic_energy(w);
    f.rot = kyu_world_rotational_energy(w);
    f.pe = kyu_scene_potential_energy(s);
    kyu_world_momentum(w, f.mom);
    f.hash = kyu_world_state_hash(w);
    return f;
}

// digits: 17 for doubles, 9 for floats (enough to give back the same value).
static void put_number(FILE *f, double v, int digits) {
    if (isfinite(v))
        fprintf(f, "%.*g", digits, v);
    else
        fputs("null", f);
}

static void put_field(FILE *f, const char *key, double v, int digits) {
    fprintf(f, "  \"%s\": ", key);
    put_number(f, v, digits);
    fputs(",\n", f);
}

static int write_summary(kyu_scene *s, const options *o, const run_result *r, const recorder *rec,
                         const figures *f) {
    char path[4200];
    FILE *out = open_out(o->out, "summary.json", path, sizeof path);
    if (out == NULL) return die(-1, "%s: cannot write: %s", path, strerror(errno));
    const kyu_world_def *wd = kyu_scene_world_def(s);
    long steps = r->end - r->first;
    double total = f->ke + f->pe;
    fputs("{\n  \"kyu_sim\": 1,\n  \"scene\": ", out);
    put_json_string(out, o->scene);
    fprintf(out, ",\n  \"resumed_from\": ");
    if (o->resume)
        put_json_string(out, o->resume);
    else
        fputs("null", out);
    fprintf(out,
            ",\n  \"first_step\": %ld,\n  \"last_step\": %ld,\n  \"steps_run\": %ld,\n"
            "  \"dt\": %.9g,\n  \"time\": %.9g,\n  \"threads\": %d,\n  \"seed\": %llu,\n",
            r->first, r->end, steps, (double)wd->fixed_dt, step_time(s, r->end), wd->worker_count,
            (unsigned long long)kyu_scene_seed(s));
    fprintf(out,
            "  \"bodies\": %d,\n  \"awake\": %d,\n  \"sleeping\": %d,\n  \"contacts\": %d,\n"
            "  \"contacts_last_step\": %d,\n",
            f->bodies, f->bodies - f->sleeping, f->sleeping, f->touching, f->contacts);
    // A world that blew up has NaN energies, which JSON cannot hold: they are written as null.
    put_field(out, "kinetic_energy", f->ke, 17);
    put_field(out, "rotational_energy", f->rot, 17); // the part of kinetic_energy in spin
    put_field(out, "potential_energy", f->pe, 17);
    put_field(out, "total_energy", total, 17);
    put_field(out, "total_energy_start", r->e0, 17);
    fputs("  \"momentum\": [", out);
    for (int i = 0; i < 3; i++) {
        put_number(out, f->mom[i], 17);
        fputs(i < 2 ? ", " : "],\n", out);
    }
    put_field(out, "max_overlap", f->overlap, 9);
    put_field(out, "max_overlap_run", r->max_overlap, 9);
    fprintf(out, "  \"impacts\": %ld,\n  \"event_cap_hits\": %ld,\n", r->impacts, r->cap_hits);
    fputs("  \"inserters\": [", out);
    for (int k = 0; k < kyu_scene_inserter_count(s); k++) {
        kyu_inserter_stats st = kyu_scene_inserter_stats(s, k);
        fprintf(out,
                "%s\n    {\"generator\": %d, \"inserted\": %lld, \"requested\": %lld, \"mass\": %.9g, "
                "\"mass_requested\": %.9g, \"volume_fraction\": %.9g, \"blocked\": %lld}",
                k ? "," : "", kyu_scene_inserter_generator(s, k), (long long)st.inserted,
                (long long)st.requested, st.mass, st.mass_requested, st.volume_fraction,
                (long long)st.blocked);
    }
    fputs(kyu_scene_inserter_count(s) ? "\n  ],\n" : "],\n", out);
    fprintf(out,
            "  \"wall_seconds\": %.6f,\n  \"step_seconds\": %.6f,\n  \"ms_per_step\": %.6f,\n"
            "  \"steps_per_second\": %.3f,\n",
            r->wall, r->step_wall, steps > 0 ? 1e3 * r->step_wall / steps : 0.0,
            r->step_wall > 0 ? steps / r->step_wall : 0.0);
    fprintf(out, "  \"frames\": %ld,\n  \"rows\": %ld,\n  \"state_hash\": \"%016llx\"\n}\n", rec->frames,
            rec->rows, (unsigned long long)f->hash);
    if (ferror(out) | fclose(out)) return die(-1, "%s: cannot write", path);
    return 0;
}

static void print_summary(kyu_scene *s, const options *o, const run_result *r, const figures *f) {
    long steps = r->end - r->first;
    printf("%s: %ld steps (to step %ld) in %.2f s (%.3f ms/step)\n", o->scene, steps, r->end, r->wall,
           steps > 0 ? 1e3 * r->step_wall / steps : 0.0);
    printf("  bodies %d (%d sleeping), contacts %d, max overlap %.3g m\n", f->bodies, f->sleeping,
           f->touching, (double)f->overlap);
    // A step that hits the cap stops every body at its next impact and loses time: the run is no
    // longer the physics asked for, so the summary says so (summary.json counts it too).
    if (r->cap_hits > 0) {
        int cap = kyu_scene_world_def(s)->max_events_per_step;
        printf("  event cap hit in %ld of %ld steps (max_events_per_step %d%s): in those steps every body "
               "stopped at its next impact; raise world.max_events_per_step\n",
               r->cap_hits, steps, cap, cap == 0 ? ", the default 16 per body + 1024" : "");
    }
    for (int k = 0; k < kyu_scene_inserter_count(s); k++) {
        kyu_inserter_stats st = kyu_scene_inserter_stats(s, k);
        printf("  inserter generators[%d]: inserted %lld", kyu_scene_inserter_generator(s, k),
               (long long)st.inserted);
        if (st.requested >= 0) printf(" of %lld requested", (long long)st.requested);
        if (st.mass_requested > 0) printf(", %.6g of %.6g kg requested", st.mass, st.mass_requested);
        if (st.volume_fraction > 0) printf(", volume fraction %.4g", st.volume_fraction);
        if (st.blocked > 0) printf(" (no room in %lld calls)", (long long)st.blocked);
        putchar('\n');
    }
    printf("  energy %.6g J (kinetic %.6g of which rotational %.6g, potential %.6g; %.6g at the start)\n",
           f->ke + f->pe, f->ke, f->rot, f->pe, r->e0);
    printf("  momentum (%.6g, %.6g, %.6g) kg m/s, state hash %016llx\n", f->mom[0], f->mom[1], f->mom[2],
           (unsigned long long)f->hash);
    printf("  output in %s/\n", o->out);
}

// ---- main --------------------------------------------------------------------------------------

// Loads the scene (with the seed a snapshot was saved with) and resumes it when asked.
static int prepare(const options *o, kyu_scene **out) {
    kyu_scene_options so = {o->threads, o->has_seed, o->seed, 0, 0, 0};
    static resume_info ri; // the inserters' counters make it large
    memset(&ri, 0, sizeof ri);
    char err[1024];
    if (o->resume != NULL) {
        if (read_sidecar(o->resume, &ri) != 0) return EXIT_BAD_INPUT;
        if (ri.scene_hash != file_hash(o->scene))
            return die(EXIT_BAD_INPUT,
                       "%s: saved from another scene than %s (or the scene "
                       "changed since)",
                       o->resume, o->scene);
        if (o->has_seed && o->seed != ri.seed)
            return die(EXIT_BAD_INPUT, "%s: saved with --seed %llu, not %llu", o->resume,
                       (unsigned long long)ri.seed, (unsigned long long)o->seed);
        so.has_seed = 1;
        so.seed = ri.seed;
    }
    kyu_scene *s = kyu_scene_load(o->scene, &so, err, sizeof err);
    if (s == NULL) return die(EXIT_BAD_INPUT, "%s", err);
    if (o->resume != NULL && kyu_scene_resume(s, o->resume, ri.step, err, sizeof err) != 0) {
        kyu_scene_destroy(s);
        return die(EXIT_BAD_INPUT, "%s", err);
    }
    int inserters = kyu_scene_inserter_count(s);
    if (o->resume != NULL && inserters > 0) {
        int bad = ri.inserter_count != inserters;
        for (int k = 0; k < inserters && !bad; k++)
            bad = kyu_scene_inserter_restore(s, k, &ri.inserters[k]) != 0;
        if (bad) {
            kyu_scene_destroy(s);
            return die(EXIT_BAD_INPUT, "%s.json: the scene has %d inserters, the snapshot's description %d",
                       o->resume, inserters, ri.inserter_count);
        }
    }
    *out = s;
    return EXIT_DONE;
}

static int finish(kyu_scene *s, const options *o, recorder *rec, run_result *res) {
    figures f = measure(s);
    if (rec_close(rec, o->out) != 0) return die(EXIT_INTERNAL, "%s: writing the records failed", o->out);
    if (write_summary(s, o, res, rec, &f) != 0) return EXIT_INTERNAL;
    if (!o->quiet) print_summary(s, o, res, &f);
    return EXIT_DONE;
}

int main(int argc, char **argv) {
    options o;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return usage(stdout), EXIT_DONE;
    if (parse_args(argc, argv, &o) != 0) return EXIT_BAD_INPUT;
    kyu_scene *s = NULL;
    int code = prepare(&o, &s);
    if (code != EXIT_DONE) return code;
    run_result res = {0};
    res.first = kyu_scene_step_index(s);
    res.end = o.steps >= 0 ? o.steps : kyu_scene_run_steps(s);
    int every = o.every ? o.every : kyu_scene_record_every(s);
    int format = o.format >= 0 ? o.format : kyu_scene_record_format(s);
    recorder rec = {0};
    if (res.end < res.first)
        code = die(EXIT_BAD_INPUT, "--steps %ld ends before the snapshot's step %ld", res.end, res.first);
    else if (make_dirs(o.out) != 0)
        code = die(EXIT_BAD_INPUT, "%s: cannot create the output directory: %s", o.out, strerror(errno));
    else if (rec_open(&rec, &o, s, format, every) != 0)
        code = die(EXIT_BAD_INPUT, "%s: cannot write: %s", rec.failed_path, strerror(errno));
    else
        code = run(s, &o, &rec, format, every, &res);
    if (code == EXIT_DONE)
        code = finish(s, &o, &rec, &res);
    else
        rec_close(&rec, NULL);
    kyu_scene_destroy(s);
    return code;
}
