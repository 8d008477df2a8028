// SPDX-License-Identifier: MIT
// The scene loader's generators (scene_internal.h): lattices, random boxes (placed without
// overlaps through a hash grid) and emitters, which add bodies as the scene steps, with the
// counter-based random numbers that make a resumed run emit the same bodies.
#include "scene_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Placement tries per body of a random box before it gives up (the box is too full).
#define PLACE_ATTEMPTS 200

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
        if (glms_vec3_norm2(p) <= 1.0f) return p;
    }
}

// A direction uniformly on the unit sphere.
static vec3s on_unit_sphere(uint64_t *state) {
    for (;;) {
        vec3s p = in_unit_ball(state);
        float n = glms_vec3_norm(p);
        if (n > 1e-3f) return glms_vec3_scale(p, 1.0f / n);
    }
}

// ---- generators ------------------------------------------------------------------------------------

static const char *const GEN_NAMES[] = {"lattice", "random_box", "emitter", "pour", "insert", NULL};
static const char *const LATTICE_KEYS[] = {"type",     "origin", "count", "spacing", "jitter",
                                           "velocity", "seed",   "body",  NULL};
static const char *const RANDOM_KEYS[] = {"type",         "min",     "max",  "count", "velocity", "speed",
                                          "radius_range", "overlap", "seed", "body",  NULL};
static const char *const EMITTER_KEYS[] = {"type",  "position", "velocity", "rate", "start", "stop",
                                           "count", "spread",   "seed",     "body", NULL};

int parse_seed(ctx *c, const cJSON *obj, const char *path, uint64_t *dst) {
    long v = (long)*dst;
    if (opt_long(c, obj, path, "seed", &v, 0, 9007199254740992.0) != 0) return -1;
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
        if (int_value(c, e, kp_index(kn.s, i).s, 1, 1e9, &v) != 0) return -1;
        g->n[i] = (long)v;
        total *= v;
    }
    if (total > c->max_bodies)
        return fail(c, kn.s, "makes %.0f bodies, more than the limit of %d", total, c->max_bodies);
    g->count = (long)total;
    keypath ks = kp_key(path, "spacing");
    if (cJSON_IsNumber(sp)) {
        double v;
        if (number_value(c, sp, ks.s, &v) != 0) return -1;
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
    if (check_keys(c, o, path, RANDOM_KEYS, NULL) || need(c, o, path, "min") || need(c, o, path, "max") ||
        need(c, o, path, "count") || opt_vec3(c, o, path, "min", &g->a, COORD_LIMIT) ||
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
                        "the box (min %g, max %g) must be at least a diameter (%g) wide", (double)g->a.raw[i],
                        (double)g->b.raw[i], 2.0 * g->rmax);
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

int parse_generator(ctx *c, const cJSON *o, int index, const body_tpl *defaults, uint64_t scene_seed,
                    generator *g) {
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
    g->kind = g->kind == 3 ? GEN_EMITTER : g->kind == 4 ? GEN_INSERT : g->kind; // "pour" is an emitter
    g->seed = mix_seed(mix_seed(scene_seed, (uint64_t)index + 1), own);
    if (g->kind == GEN_LATTICE) return parse_lattice(c, o, k.s, g);
    if (g->kind == GEN_RANDOM_BOX) return parse_random_box(c, o, k.s, g);
    if (g->kind == GEN_INSERT) return parse_inserter(c, o, k.s, g);
    return parse_emitter(c, o, k.s, g);
}

int make_lattice(ctx *c, kyu_scene *s, generator *g) {
    keypath k = kp_index("generators", g->index);
    uint64_t rng = g->seed;
    for (long z = 0; z < g->n[2]; z++)
        for (long y = 0; y < g->n[1]; y++)
            for (long x = 0; x < g->n[0]; x++) {
                vec3s p = {{g->a.x + (float)x * g->spacing.x, g->a.y + (float)y * g->spacing.y,
                            g->a.z + (float)z * g->spacing.z}};
                if (g->jitter > 0) p = glms_vec3_add(p, glms_vec3_scale(in_unit_ball(&rng), g->jitter));
                if (add_body_ctx(c, s, &g->body, p, g->velocity, g->body.def.radius, k.s) != 0) return -1;
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
    if (g->head == NULL || g->next == NULL || g->ball == NULL) return -1;
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
                    if (ex * ex + ey * ey + ez * ez < rr * rr) return 0;
                }
    return 1;
}

static void grid_add(place_grid *g, vec3s p, float r) {
    uint32_t h = cell_hash(cell_of(p.x, g->cell), cell_of(p.y, g->cell), cell_of(p.z, g->cell), g->mask);
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

int make_random_box(ctx *c, kyu_scene *s, generator *g) {
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
                return fail(c, kp_key(k.s, "count").s,
                            "found room for only %ld of %ld bodies "
                            "without overlaps: make the box larger or set \"overlap\": true",
                            i, g->count);
            }
            p = random_in_box(&rng, g->a, g->b, r);
        }
        if (!g->overlap) grid_add(&grid, p, r);
        vec3s v = g->velocity;
        if (g->speed > 0) v = glms_vec3_add(v, glms_vec3_scale(on_unit_sphere(&rng), g->speed));
        if (add_body_ctx(c, s, &g->body, p, v, r, k.s) != 0) {
            grid_free(&grid);
            return -1;
        }
    }
    grid_free(&grid);
    return 0;
}

// Bodies an emitter has emitted once the emission before step k has run (k = -1: none).
long emitter_due(const kyu_scene *s, const generator *g, long k) {
    if (k < 0) return 0;
    double t = (double)k * s->wd.fixed_dt + 1e-9;
    if (t < g->start) return 0;
    double n = floor((t - g->start) * g->rate) + 1;
    return n < (double)g->count ? (long)n : g->count;
}

// The n-th body of an emitter, placed from its own counter so a resumed run makes the same body.
static int emit_one(kyu_scene *s, generator *g, long n, char *err, size_t errlen) {
    uint64_t rng = mix_seed(g->seed, (uint64_t)n);
    vec3s p = g->a;
    if (g->spread > 0) p = glms_vec3_add(p, glms_vec3_scale(in_unit_ball(&rng), g->spread));
    return add_body(s, &g->body, p, g->velocity, g->body.def.radius, kp_index("generators", g->index).s, err,
                    errlen);
}

int run_emitters(kyu_scene *s, long step) {
    for (int i = 0; i < s->gen_count; i++) {
        generator *g = &s->gen[i];
        if (g->kind != GEN_EMITTER) continue;
        for (long due = emitter_due(s, g, step); g->emitted < due; g->emitted++)
            if (emit_one(s, g, g->emitted, s->error, sizeof s->error) != 0) return -1;
    }
    return 0;
}
