// SPDX-License-Identifier: MIT
// kyu-render: pictures of a kyu world without a window. Renders kyu-sim's frames (frames.jsonl,
// frames.csv, frames.xyz, frames.pvd or a .vtp: render_input.h), a scene file (through
// tools/scene.h) or a built-in demo to PNG frames with
// cairo, optionally an animated GIF through ffmpeg or ImageMagick. Exit 0 ok, 2 bad input, 1
// internal error.
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "render_input.h"
#include "render_view.h"
#include "scene.h"

enum { EXIT_BAD_INPUT = 2, EXIT_INTERNAL = 1 };

typedef struct options {
    const char *input;
    bool demo, no_scene, ortho, eye_set, target_set, shadows, floor, ground_set;
    const char *out, *gif, *probe, *probe_at;
    int width, height, every, frames, threads;
    float fov, fps, ground;
    vec3s eye, target;
    uint32_t layers;
    bool has_seed;
    unsigned long long seed;
} options;

static void usage(FILE *f) {
    fprintf(f, "usage: kyu-render [options] (RECORDING | SCENE | --demo)\n"
               "  RECORDING          kyu-sim's frames.jsonl, frames.csv, frames.xyz, frames.pvd or a .vtp\n"
               "                     (the scene for the colliders: the JSONL header's, else summary.json's)\n"
               "  --out DIR          write DIR/frame_0000.png ... (default render-out)\n"
               "  --size WxH         picture size in pixels (default 640x480)\n"
               "  --every K          recording: every K-th recorded frame; scene/demo: K steps a frame\n"
               "  --frames N         at most N frames (default: the whole recording; 60 for a scene)\n"
               "  --camera EX,EY,EZ:TX,TY,TZ[:FOV]   eye, target and vertical field of view (degrees)\n"
               "  --eye X,Y,Z  --target X,Y,Z  --fov DEG  --ortho   (default: framed from the bodies)\n"
               "  --layers LIST      debug layers drawn by kyu (scene/demo): aabbs,swept,grid,contacts,\n"
               "                     impacts,pairs,velocities,text,islands\n"
               "  --ground Y  --no-shadows  --no-floor\n"
               "  --gif FILE  --fps F  an animated GIF of the frames (ffmpeg or ImageMagick's convert)\n"
               "  --no-scene         recording: do not load its scene for the colliders\n"
               "  --threads N  --seed S   passed to the scene loader\n"
               "  --probe PNG [--at X,Y]  (for tests) print a PNG's size, its share of non-background\n"
               "                     pixels and, with --at, the colour of one pixel\n");
    fprintf(f, "scene files: supported (tools/scene.c)\n");
}

// ---- option parsing ------------------------------------------------------------------------------

static bool parse_vec3(const char *s, vec3s *out) {
    char *end;
    for (int k = 0; k < 3; k++) {
        errno = 0;
        double x = strtod(s, &end);
        if (end == s || errno || !isfinite(x) || fabs(x) > 1e9) return false;
        out->raw[k] = (float)x;
        if (k < 2) {
            if (*end != ',') return false;
            s = end + 1;
        }
    }
    return *end == '\0' || *end == ':';
}

static bool parse_int(const char *s, int lo, int hi, int *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi) return false;
    *out = (int)v;
    return true;
}

static bool parse_float(const char *s, float lo, float hi, float *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= lo && v <= hi)) return false;
    *out = (float)v;
    return true;
}

static bool parse_camera(const char *s, options *o) {
    const char *t = strchr(s, ':');
    if (!t || !parse_vec3(s, &o->eye) || !parse_vec3(t + 1, &o->target)) return false;
    o->eye_set = o->target_set = true;
    const char *f = strchr(t + 1, ':');
    return !f || parse_float(f + 1, 1.0f, 170.0f, &o->fov);
}

static bool parse_layers(const char *s, uint32_t *out) {
    static const struct {
        const char *name;
        uint32_t flag;
    } names[] = {
        {"aabbs", KYU_DRAW_AABBS},           {"swept", KYU_DRAW_SWEPT},     {"grid", KYU_DRAW_GRID},
        {"contacts", KYU_DRAW_CONTACTS},     {"impacts", KYU_DRAW_IMPACTS}, {"pairs", KYU_DRAW_PAIRS},
        {"velocities", KYU_DRAW_VELOCITIES}, {"text", KYU_DRAW_TEXT},       {"islands", KYU_DRAW_ISLANDS},
    };
    *out = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        bool found = false;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strlen(names[i].name) == len && strncmp(s, names[i].name, len) == 0)
                *out |= names[i].flag, found = true;
        if (!found) return false;
        s += len + (s[len] == ',');
    }
    return true;
}

static void set_defaults(options *o) {
    memset(o, 0, sizeof *o);
    o->out = "render-out";
    o->width = 640, o->height = 480;
    o->every = -1, o->frames = -1;
    o->fov = 40.0f, o->fps = 20.0f;
    o->shadows = o->floor = true;
}

// Options that take a value. Returns false (message printed) for a bad one.
static bool parse_valued(options *o, const char *name, const char *v) {
    bool ok = true;
    if (!strcmp(name, "--out"))
        o->out = v;
    else if (!strcmp(name, "--size"))
        ok = sscanf(v, "%dx%d", &o->width, &o->height) == 2 && o->width >= 16 && o->height >= 16 &&
             o->width <= 8192 && o->height <= 8192;
    else if (!strcmp(name, "--every"))
        ok = parse_int(v, 1, 1000000, &o->every);
    else if (!strcmp(name, "--frames"))
        ok = parse_int(v, 1, 1000000, &o->frames);
    else if (!strcmp(name, "--camera"))
        ok = parse_camera(v, o);
    else if (!strcmp(name, "--eye"))
        ok = parse_vec3(v, &o->eye), o->eye_set = true;
    else if (!strcmp(name, "--target"))
        ok = parse_vec3(v, &o->target), o->target_set = true;
    else if (!strcmp(name, "--fov"))
        ok = parse_float(v, 1.0f, 170.0f, &o->fov);
    else if (!strcmp(name, "--layers"))
        ok = parse_layers(v, &o->layers);
    else if (!strcmp(name, "--ground"))
        ok = parse_float(v, -1e6f, 1e6f, &o->ground), o->ground_set = true;
    else if (!strcmp(name, "--gif"))
        o->gif = v;
    else if (!strcmp(name, "--fps"))
        ok = parse_float(v, 0.1f, 100.0f, &o->fps);
    else if (!strcmp(name, "--threads"))
        ok = parse_int(v, 0, 64, &o->threads);
    else if (!strcmp(name, "--seed"))
        ok = sscanf(v, "%llu", &o->seed) == 1, o->has_seed = true;
    else if (!strcmp(name, "--probe"))
        o->probe = v;
    else if (!strcmp(name, "--at"))
        o->probe_at = v;
    else
        return fprintf(stderr, "kyu-render: unknown option %s (see --help)\n", name), false;
    if (!ok) fprintf(stderr, "kyu-render: bad value for %s: '%s' (see --help)\n", name, v);
    return ok;
}

static bool is_valued(const char *a) {
    static const char *const v[] = {"--out",     "--size", "--every",  "--frames", "--camera", "--eye",
                                    "--target",  "--fov",  "--layers", "--ground", "--gif",    "--fps",
                                    "--threads", "--seed", "--probe",  "--at"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!strcmp(a, v[i])) return true;
    return false;
}

// Returns 0 ok, 2 bad arguments, -1 help printed.
static int parse_args(int argc, char **argv, options *o) {
    set_defaults(o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return usage(stdout), -1;
        else if (!strcmp(a, "--demo"))
            o->demo = true;
        else if (!strcmp(a, "--ortho"))
            o->ortho = true;
        else if (!strcmp(a, "--no-scene"))
            o->no_scene = true;
        else if (!strcmp(a, "--no-shadows"))
            o->shadows = false;
        else if (!strcmp(a, "--no-floor"))
            o->floor = false;
        else if (is_valued(a)) {
            if (i + 1 >= argc) return fprintf(stderr, "kyu-render: %s needs a value\n", a), 2;
            if (!parse_valued(o, a, argv[++i])) return 2;
        } else if (a[0] == '-' && a[1]) {
            return fprintf(stderr, "kyu-render: unknown option %s (see --help)\n", a), 2;
        } else if (o->input) {
            return fprintf(stderr, "kyu-render: one input only (got %s and %s)\n", o->input, a), 2;
        } else {
            o->input = a;
        }
    }
    if (!o->probe && !o->input && !o->demo) return usage(stderr), 2;
    return 0;
}

// ---- probe (for tests: look at a PNG without another tool) ---------------------------------------

static int probe_png(const options *o) {
    cairo_surface_t *s = cairo_image_surface_create_from_png(o->probe);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "kyu-render: %s: %s\n", o->probe, cairo_status_to_string(cairo_surface_status(s)));
        cairo_surface_destroy(s);
        return EXIT_BAD_INPUT;
    }
    cairo_surface_flush(s);
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *d = cairo_image_surface_get_data(s);
    uint32_t corner;
    memcpy(&corner, d, 4);
    long differ = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t px;
            memcpy(&px, d + (size_t)y * stride + 4 * (size_t)x, 4);
            differ += (px & 0xffffffu) != (corner & 0xffffffu);
        }
    printf("size %dx%d nonbackground %.4f\n", w, h, (double)differ / ((double)w * h));
    int x, y, rc = 0;
    if (o->probe_at && (sscanf(o->probe_at, "%d,%d", &x, &y) != 2 || x < 0 || y < 0 || x >= w || y >= h)) {
        fprintf(stderr, "kyu-render: --at %s is not a pixel of %s\n", o->probe_at, o->probe);
        rc = EXIT_BAD_INPUT;
    } else if (o->probe_at) {
        uint32_t px;
        memcpy(&px, d + (size_t)y * stride + 4 * (size_t)x, 4);
        printf("pixel %d,%d rgb %u %u %u\n", x, y, (px >> 16) & 255u, (px >> 8) & 255u, px & 255u);
    }
    cairo_surface_destroy(s);
    return rc;
}

// ---- the demo world ------------------------------------------------------------------------------

// A small pile on a ground plane beside a static box, with balls still falling onto both:
// everything kyu-render draws, made with the public API only.
static kyu_world *demo_world(void) {
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w;
    if (kyu_world_create(&wd, &w) != KYU_OK) return NULL;
    kyu_collider_def ground = kyu_collider_def_default();
    kyu_collider_def box = kyu_collider_def_default();
    box.type = KYU_SHAPE_BOX;
    box.position = (vec3s){{1.6f, 0.4f, 0.0f}};
    box.half_extents = (vec3s){{0.5f, 0.4f, 1.0f}};
    box.restitution = 0.3f;
    int bad = kyu_collider_create(w, &ground, NULL) != KYU_OK || kyu_collider_create(w, &box, NULL) != KYU_OK;
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 0.22f;
    bd.restitution = 0.4f;
    uint32_t seed = 12345u;
    for (int i = 0; i < 60 && !bad; i++) {
        float jitter[3];
        for (int k = 0; k < 3; k++) { // a fixed LCG: the same demo on every machine
            seed = seed * 1664525u + 1013904223u;
            jitter[k] = (float)(seed >> 8) / (float)(1u << 24) - 0.5f;
        }
        int layer = i / 12, k = i % 12;
        bd.position = (vec3s){{-0.9f + 0.62f * (float)(k % 4) + 0.3f * jitter[0],
                               0.5f + 0.7f * (float)layer + 0.2f * jitter[1],
                               -0.6f + 0.6f * (float)(k / 4) + 0.3f * jitter[2]}};
        bad = kyu_body_create(w, &bd, NULL) != KYU_OK;
    }
    if (bad) kyu_world_destroy(w);
    return bad ? NULL : w;
}

// ---- one picture -------------------------------------------------------------------------------

typedef struct renderer {
    const options *opt;
    rv_scene scene;
    bool framed;
    long scene_step; // steps run by a recording's scene, to keep its colliders in step
    char err[512];
} renderer;

static void init_scene(renderer *r) {
    memset(&r->scene, 0, sizeof r->scene);
    rv_camera *cam = &r->scene.cam;
    cam->width = r->opt->width, cam->height = r->opt->height;
    cam->fov_deg = r->opt->fov;
    cam->ortho = r->opt->ortho;
    cam->up = (vec3s){{0.0f, 1.0f, 0.0f}};
    cam->eye = r->opt->eye, cam->target = r->opt->target;
    r->scene.shadows = r->opt->shadows;
    r->scene.floor = r->opt->floor;
    r->scene.ground_y = r->opt->ground;
    r->scene.scene_radius = 1e30f;
}

// Frames the camera on [lo, hi] once (the first picture), so the view does not jump.
static bool frame_camera(renderer *r, vec3s lo, vec3s hi) {
    if (r->framed) return true;
    r->framed = true;
    rv_scene *s = &r->scene;
    rv_camera_frame(&s->cam, lo, hi, r->opt->eye_set, r->opt->target_set);
    s->scene_radius = fmaxf(0.5f * glms_vec3_norm(glms_vec3_sub(hi, lo)), 0.5f);
    if (!r->opt->ground_set) s->ground_y = fminf(0.0f, lo.y);
    if (!rv_camera_prepare(&s->cam)) {
        snprintf(r->err, sizeof r->err, "the camera's eye and target coincide or look straight along up");
        return false;
    }
    return true;
}

// Draws the world's colliders and the chosen debug layers through kyu_world_draw; spheres come
// from kyu only with the islands layer (its colours), otherwise from the caller.
static void draw_world_layers(renderer *r, const kyu_world *w, uint32_t layers) {
    rv_scene *s = &r->scene;
    bool islands = layers & KYU_DRAW_ISLANDS;
    kyu_debug_draw d = rv_debug_draw(s, KYU_DRAW_SHAPES | KYU_DRAW_SLEEP | (islands ? KYU_DRAW_ISLANDS : 0u));
    d.plane_extent = fmaxf(2.0f, 1.6f * fminf(s->scene_radius, 500.0f));
    s->dd_mode = RV_DD_FILL_BOXES | (islands ? RV_DD_SPHERES : 0);
    kyu_world_draw(w, &d);
    uint32_t rest = layers & ~(uint32_t)KYU_DRAW_ISLANDS;
    if (rest) {
        d.flags = rest;
        s->dd_mode = 0;
        kyu_world_draw(w, &d);
    }
}

static void world_bounds(const kyu_world *w, vec3s *lo, vec3s *hi) {
    *lo = (vec3s){{1e30f, 1e30f, 1e30f}}, *hi = (vec3s){{-1e30f, -1e30f, -1e30f}};
    int n = kyu_world_get_bodies(w, NULL, 0);
    kyu_body_id *ids = n > 0 ? malloc((size_t)n * sizeof *ids) : NULL;
    if (ids) kyu_world_get_bodies(w, ids, n);
    for (int i = 0; ids && i < n; i++) {
        vec3s p;
        float rad;
        kyu_body_get_position(w, ids[i], &p);
        kyu_body_get_radius(w, ids[i], &rad);
        *lo = glms_vec3_minv(*lo, glms_vec3_subs(p, rad));
        *hi = glms_vec3_maxv(*hi, glms_vec3_adds(p, rad));
    }
    free(ids);
    if (lo->x > hi->x) *lo = (vec3s){{-2.0f, 0.0f, -2.0f}}, *hi = (vec3s){{2.0f, 2.0f, 2.0f}};
}

// The world's bodies as shaded spheres (our colours: by slot, dark when asleep). -1: out of memory.
static int add_world_bodies(renderer *r, const kyu_world *w) {
    int n = kyu_world_get_bodies(w, NULL, 0);
    kyu_body_id *ids = n > 0 ? malloc((size_t)n * sizeof *ids) : NULL;
    if (n > 0 && !ids) return -1;
    if (ids) kyu_world_get_bodies(w, ids, n);
    for (int i = 0; i < n; i++) {
        vec3s p;
        float rad;
        versors q;
        kyu_body_get_position(w, ids[i], &p);
        kyu_body_get_radius(w, ids[i], &rad);
        kyu_body_get_rotation(w, ids[i], &q);
        rv_add_turned_sphere(&r->scene, p, rad,
                             rv_body_color((int)ids[i].index1 - 1, kyu_body_is_awake(w, ids[i])), q);
    }
    free(ids);
    return 0;
}

static int write_frame(renderer *r, int index) {
    char path[4096];
    snprintf(path, sizeof path, "%s/frame_%04d.png", r->opt->out, index);
    return rv_write_png(&r->scene, path, r->err, sizeof r->err);
}

static int render_world_frame(renderer *r, const kyu_world *w, int index) {
    if (!r->framed) {
        vec3s lo, hi;
        world_bounds(w, &lo, &hi);
        if (!frame_camera(r, lo, hi)) return EXIT_BAD_INPUT;
    }
    rv_scene_clear(&r->scene);
    if (!(r->opt->layers & KYU_DRAW_ISLANDS) && add_world_bodies(r, w)) return EXIT_INTERNAL;
    draw_world_layers(r, w, r->opt->layers);
    return write_frame(r, index) ? EXIT_INTERNAL : 0;
}

// ---- scene, demo and recording drivers -----------------------------------------------------------

typedef int step_fn(void *src);

static int run_world(renderer *r, kyu_world *w, step_fn *step, void *src) {
    int every = r->opt->every > 0 ? r->opt->every : 4, frames = r->opt->frames > 0 ? r->opt->frames : 60;
    for (int f = 0; f < frames; f++) {
        for (int k = 0; f > 0 && k < every; k++)
            if (step(src)) {
                snprintf(r->err, sizeof r->err, "stepping failed: %s", kyu_world_last_error(w));
                return EXIT_INTERNAL;
            }
        int rc = render_world_frame(r, w, f);
        if (rc) return rc;
    }
    printf("kyu-render: %d frames in %s/\n", frames, r->opt->out);
    return 0;
}

// Steps through kyu_world_update so the swept layer (previous to current position) is right.
static int step_demo(void *w) {
    int ran = 0;
    return kyu_world_update(w, kyu_world_def_default().fixed_dt, &ran) != KYU_OK || ran != 1;
}

static int run_demo(renderer *r) {
    kyu_world *w = demo_world();
    if (!w) return snprintf(r->err, sizeof r->err, "could not build the demo world"), EXIT_INTERNAL;
    int rc = run_world(r, w, step_demo, w);
    kyu_world_destroy(w);
    return rc;
}

static int step_scene(void *s) { return kyu_scene_step(s) != 0; }

static kyu_scene *load_scene(const options *o, const char *path, char *err, size_t errlen) {
    kyu_scene_options so = {.threads = o->threads, .has_seed = o->has_seed, .seed = (uint64_t)o->seed};
    char why[512] = "";
    kyu_scene *s = kyu_scene_load(path, &so, why, sizeof why);
    if (!s) snprintf(err, errlen, "%s", why); // the loader names the file itself
    return s;
}

static int run_scene(renderer *r) {
    kyu_scene *s = load_scene(r->opt, r->opt->input, r->err, sizeof r->err);
    if (!s) return EXIT_BAD_INPUT;
    int rc = run_world(r, kyu_scene_world(s), step_scene, s);
    kyu_scene_destroy(s);
    return rc;
}

// The scene named by a recording's header, for its colliders: as written, else beside the file.
static void *recording_scene(renderer *r, const recording *rec) {
    if (r->opt->no_scene || !rec->scene[0]) return NULL;
    char err[600], alt[4096];
    kyu_scene *s = load_scene(r->opt, rec->scene, err, sizeof err);
    const char *slash = strrchr(r->opt->input, '/');
    if (!s && rec->scene[0] != '/' && slash) {
        snprintf(alt, sizeof alt, "%.*s/%s", (int)(slash - r->opt->input), r->opt->input, rec->scene);
        s = load_scene(r->opt, alt, err, sizeof err);
    }
    if (!s) fprintf(stderr, "kyu-render: note: colliders not drawn (%s)\n", err);
    return s;
}

static void recording_bounds(const recording *rec, vec3s *lo, vec3s *hi) {
    *lo = (vec3s){{1e30f, 1e30f, 1e30f}}, *hi = (vec3s){{-1e30f, -1e30f, -1e30f}};
    for (int i = 0; i < rec->nbodies; i++) {
        const rec_body *b = &rec->bodies[i];
        vec3s p = {{b->p[0], b->p[1], b->p[2]}};
        *lo = glms_vec3_minv(*lo, glms_vec3_subs(p, b->r));
        *hi = glms_vec3_maxv(*hi, glms_vec3_adds(p, b->r));
    }
}

// Steps the recording's scene (if any) to the frame's step and draws its colliders.
static int scene_colliders(renderer *r, void *scene, long step) {
    if (!scene) return 0;
    kyu_world *w = kyu_scene_world(scene);
    while (r->scene_step < step) {
        if (kyu_scene_step(scene)) return snprintf(r->err, sizeof r->err, "scene step failed"), EXIT_INTERNAL;
        r->scene_step++;
    }
    draw_world_layers(r, w, 0);
    return 0;
}

static int render_recorded(renderer *r, const recording *rec, void *scene, int fi, int index) {
    const rec_frame *f = &rec->frames[fi];
    rv_scene_clear(&r->scene);
    for (int i = f->first; i < f->first + f->count; i++) {
        const rec_body *b = &rec->bodies[i];
        rv_add_sphere(&r->scene, (vec3s){{b->p[0], b->p[1], b->p[2]}}, b->r, rv_body_color(b->id, b->awake));
    }
    int rc = scene_colliders(r, scene, f->step);
    if (rc) return rc;
    return write_frame(r, index) ? EXIT_INTERNAL : 0;
}

static int run_recording(renderer *r) {
    recording rec;
    int rc = recording_load(r->opt->input, &rec, r->err, sizeof r->err);
    if (rc) return rc;
    void *scene = recording_scene(r, &rec);
    vec3s lo, hi;
    recording_bounds(&rec, &lo, &hi);
    if (!frame_camera(r, lo, hi)) rc = EXIT_BAD_INPUT;
    int every = r->opt->every > 0 ? r->opt->every : 1, written = 0;
    int limit = r->opt->frames > 0 ? r->opt->frames : rec.nframes;
    for (int fi = 0; !rc && fi < rec.nframes && written < limit; fi += every)
        rc = render_recorded(r, &rec, scene, fi, written++);
    if (scene) kyu_scene_destroy(scene);
    if (!rc) printf("kyu-render: %d frames (of %d recorded) in %s/\n", written, rec.nframes, r->opt->out);
    recording_free(&rec);
    return rc;
}

// One of kyu-sim's records (render_input.h says how each is known by its first line), or a scene.
static int input_kind(const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) return snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno)), -1;
    char head[512] = "";
    size_t n = fread(head, 1, sizeof head - 1, f);
    head[n] = '\0';
    fclose(f);
    return recording_kind(head) != REC_NONE ? 1 : 0;
}

// ---- output --------------------------------------------------------------------------------------

static int make_dir(const char *dir, char *err, size_t errlen) {
    if (mkdir(dir, 0777) == 0 || errno == EEXIST) return 0;
    snprintf(err, errlen, "%s: cannot create the directory: %s", dir, strerror(errno));
    return -1;
}

static bool on_path(const char *tool) {
    const char *path = getenv("PATH");
    char buf[4096];
    while (path && *path) {
        size_t len = strcspn(path, ":");
        snprintf(buf, sizeof buf, "%.*s/%s", (int)len, path, tool);
        if (access(buf, X_OK) == 0) return true;
        path += len + (path[len] == ':');
    }
    return false;
}

static int run_tool(char *const argv[]) {
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// The GIF through ffmpeg (one palette for the whole clip) or, failing that, ImageMagick.
static int make_gif(const options *o) {
    char pattern[4096], rate[32];
    snprintf(pattern, sizeof pattern, "%s/frame_%%04d.png", o->out);
    snprintf(rate, sizeof rate, "%g", (double)o->fps);
    if (on_path("ffmpeg")) {
        char *argv[] = {
            "ffmpeg",       "-y",
            "-loglevel",    "error",
            "-framerate",   rate,
            "-i",           pattern,
            "-vf",          "split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer",
            (char *)o->gif, NULL};
        return run_tool(argv);
    }
    if (on_path("convert")) {
        char delay[32], glob[4096];
        snprintf(delay, sizeof delay, "%d", (int)lround(100.0 / o->fps));
        snprintf(glob, sizeof glob, "%s/frame_*.png", o->out);
        char *argv[] = {"sh",           "-c", "convert -delay \"$1\" -loop 0 $2 \"$3\"", "sh", delay, glob,
                        (char *)o->gif, NULL};
        return run_tool(argv);
    }
    fprintf(stderr, "kyu-render: no GIF: neither ffmpeg nor ImageMagick's convert is installed "
                    "(apt-get install ffmpeg)\n");
    return 0;
}

int main(int argc, char **argv) {
    options o;
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc < 0 ? 0 : rc;
    if (o.probe) return probe_png(&o);
    renderer r = {.opt = &o};
    init_scene(&r);
    if (make_dir(o.out, r.err, sizeof r.err)) {
        fprintf(stderr, "kyu-render: %s\n", r.err);
        return EXIT_BAD_INPUT;
    }
    int kind = o.demo ? 2 : input_kind(o.input, r.err, sizeof r.err);
    if (kind < 0)
        rc = EXIT_BAD_INPUT;
    else if (kind == 2)
        rc = run_demo(&r);
    else if (kind == 1)
        rc = run_recording(&r);
    else
        rc = run_scene(&r);
    rv_scene_free(&r.scene);
    if (rc) {
        fprintf(stderr, "kyu-render: %s\n", r.err[0] ? r.err : "failed");
        return rc;
    }
    if (o.gif && make_gif(&o) != 0) {
        fprintf(stderr, "kyu-render: making the GIF %s failed\n", o.gif);
        return EXIT_INTERNAL;
    }
    return 0;
}
