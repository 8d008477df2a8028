// SPDX-License-Identifier: MIT
// The scene loader's inserters (scene_internal.h): the "insert" generator, which fills a region
// with bodies of a radius distribution through kyu's inserter (include/kyu/insert.h), and the
// run's "measure" boxes. The JSON is checked key by key here; the engine checks what depends on
// the world (the body at its smallest and largest radius, the region's reach) when the inserter
// is made, and its refusal comes back under the generator's key path.
#include "scene_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const INSERT_KEYS[] = {
    "type",  "region", "radius",   "velocity", "cone", "count", "rate", "mass_rate", "volume_fraction",
    "start", "stop",   "attempts", "seed",     "body", NULL};
static const char *const REGION_KEYS[] = {"shape",    "center", "half_extents", "radius", "half_height",
                                          "rotation", NULL};
static const char *const SHAPES[] = {"box", "cylinder", "rectangle", NULL};
static const char *const DISTRIBUTIONS[] = {"uniform", "normal", "lognormal", "mixture", NULL};
static const char *const RADIUS_KEYS[][6] = {
    {"distribution", "min", "max", NULL},
    {"distribution", "mean", "sigma", "min", "max", NULL},
    {"distribution", "median", "sigma", "min", "max", NULL},
    {"distribution", "radii", "weights", "by", NULL},
};
static const char *const BASES[] = {"number", "mass", NULL};

static int parse_region(ctx *c, const cJSON *o, const char *path, kyu_region *g) {
    int shape = 0;
    if (need_object(c, o, path) || check_keys(c, o, path, REGION_KEYS, NULL) || need(c, o, path, "shape") ||
        need(c, o, path, "center") || opt_enum(c, o, path, "shape", SHAPES, &shape) ||
        opt_vec3(c, o, path, "center", &g->center, COORD_LIMIT) || parse_rotation(c, o, path, &g->rotation))
        return -1;
    g->shape = (kyu_region_shape)(KYU_REGION_BOX + shape);
    static const char *const only[3][2] = {
        {"half_extents", NULL}, {"radius", "half_height"}, {"half_extents", NULL}};
    for (int k = 0; REGION_KEYS[k]; k++) { // a key of another shape is an error, as in colliders
        const char *key = REGION_KEYS[k];
        int geometric =
            strcmp(key, "half_extents") == 0 || strcmp(key, "radius") == 0 || strcmp(key, "half_height") == 0;
        int mine = (only[shape][0] && strcmp(key, only[shape][0]) == 0) ||
                   (only[shape][1] && strcmp(key, only[shape][1]) == 0);
        if (geometric && !mine && item(o, key) != NULL)
            return fail(c, kp_key(path, key).s, "is not a key of a %s region", SHAPES[shape]);
        if (mine && need(c, o, path, key)) return -1;
    }
    if (shape == 1)
        return opt_float(c, o, path, "radius", &g->radius, 0, COORD_LIMIT, 1, "must be > 0 and <= 1e9") ||
               opt_float(c, o, path, "half_height", &g->half_height, 0, COORD_LIMIT, 1,
                         "must be > 0 and <= 1e9");
    const cJSON *h = item(o, "half_extents");
    keypath kh = kp_key(path, "half_extents");
    int want = shape == 2 ? 2 : 3;
    if (!cJSON_IsArray(h) || cJSON_GetArraySize(h) != want)
        return fail(c, kh.s, "must be %s, got %s",
                    shape == 2 ? "[x, z] (the face's half sizes)" : "[x, y, z]", json_type_name(h));
    int i = 0;
    for (const cJSON *e = h->child; e != NULL; e = e->next, i++) {
        double v;
        if (number_value(c, e, kp_index(kh.s, i).s, &v)) return -1;
        if (!(v > 0 && v <= COORD_LIMIT))
            return fail(c, kp_index(kh.s, i).s, "must be > 0 and <= 1e9, got %g", v);
        g->half_extents.raw[shape == 2 && i == 1 ? 2 : i] = (float)v;
    }
    if (shape == 2) g->half_extents.y = 0;
    return 0;
}

// The radius object: {"distribution": ..., and its own keys}; absent, every body has the body's radius.
static int parse_radius(ctx *c, const cJSON *o, const char *path, generator *g) {
    kyu_size_distribution *d = &g->insert.size;
    int kind = 0;
    if (need_object(c, o, path) || need(c, o, path, "distribution") ||
        opt_enum(c, o, path, "distribution", DISTRIBUTIONS, &kind) ||
        check_keys(c, o, path, RADIUS_KEYS[kind], NULL))
        return -1;
    if (kind < 3) {
        const char *centre = kind == 1 ? "mean" : "median";
        d->kind = kind == 0 ? KYU_SIZE_UNIFORM : kind == 1 ? KYU_SIZE_NORMAL : KYU_SIZE_LOGNORMAL;
        if (need(c, o, path, "min") || need(c, o, path, "max") ||
            opt_float(c, o, path, "min", &d->min, 0, 1e6, 1, "must be > 0 and <= 1e6") ||
            opt_float(c, o, path, "max", &d->max, 0, 1e6, 1, "must be > 0 and <= 1e6"))
            return -1;
        if (d->max < d->min)
            return fail(c, kp_key(path, "max").s, "must be >= min (%g), got %g", (double)d->min,
                        (double)d->max);
        if (kind == 0) return 0;
        return need(c, o, path, centre) || need(c, o, path, "sigma") ||
               opt_float(c, o, path, centre, &d->mean, 0, 1e6, 1, "must be > 0 and <= 1e6") ||
               opt_float(c, o, path, "sigma", &d->sigma, 0, 1e6, 1, "must be > 0 and <= 1e6");
    }
    d->kind = KYU_SIZE_DISCRETE;
    int basis = 0;
    if (need(c, o, path, "radii") || need(c, o, path, "weights") || opt_enum(c, o, path, "by", BASES, &basis))
        return -1;
    d->basis = basis ? KYU_MIX_BY_MASS : KYU_MIX_BY_NUMBER;
    const char *keys[2] = {"radii", "weights"};
    float *dst[2] = {g->radii, g->weights};
    int counts[2];
    for (int a = 0; a < 2; a++) {
        const cJSON *arr = item(o, keys[a]);
        keypath k = kp_key(path, keys[a]);
        counts[a] = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : -1;
        if (counts[a] < 1 || counts[a] > 64) return fail(c, k.s, "must be an array of 1 to 64 numbers");
        int i = 0;
        for (const cJSON *e = arr->child; e != NULL; e = e->next, i++) {
            double v;
            if (number_value(c, e, kp_index(k.s, i).s, &v)) return -1;
            if (!(v > 0 && v <= 1e6)) return fail(c, kp_index(k.s, i).s, "must be > 0 and <= 1e6, got %g", v);
            dst[a][i] = (float)v;
        }
    }
    if (counts[0] != counts[1])
        return fail(c, kp_key(path, "weights").s, "has %d numbers, radii has %d", counts[1], counts[0]);
    d->count = counts[0];
    d->radii = g->radii, d->weights = g->weights;
    return 0;
}

// The bodies an inserter may make, for the capacity check: its count, or its rate over start to
// stop, or for a volume fraction alone the region's volume filled with bodies of the mean size.
static long planned(ctx *c, const generator *g) {
    const kyu_inserter_def *d = &g->insert;
    double n = d->count > 0 ? (double)d->count : 1e18;
    if (d->rate > 0 && g->stop >= 0) n = fmin(n, ceil((g->stop - g->start) * d->rate) + 1);
    if (d->volume_fraction > 0) {
        const kyu_region *r = &d->region;
        double v = r->shape == KYU_REGION_BOX
                       ? 8.0 * r->half_extents.x * r->half_extents.y * r->half_extents.z
                       : 2.0 * PI * r->radius * r->radius * r->half_height;
        double rad = d->size.kind == KYU_SIZE_FIXED      ? d->body.radius
                     : d->size.kind == KYU_SIZE_DISCRETE ? g->radii[0]
                                                         : 0.5 * (d->size.min + d->size.max);
        n = fmin(n, ceil(d->volume_fraction * v / (4.0 / 3.0 * PI * rad * rad * rad)) + 1);
    }
    return n > c->max_bodies ? c->max_bodies : (long)n;
}

int parse_inserter(ctx *c, const cJSON *o, const char *path, generator *g) {
    kyu_inserter_def *d = &g->insert;
    *d = kyu_inserter_def_default();
    double cone = 0, fraction = 0;
    long count = 0, attempts = d->attempts;
    g->stop = -1;
    if (check_keys(c, o, path, INSERT_KEYS, NULL) || need(c, o, path, "region") ||
        parse_region(c, item(o, "region"), kp_key(path, "region").s, &d->region) ||
        (item(o, "radius") && parse_radius(c, item(o, "radius"), kp_key(path, "radius").s, g)) ||
        opt_double(c, o, path, "cone", &cone, 0, 180, 0, "must be in [0, 180] degrees") ||
        opt_long(c, o, path, "count", &count, 0, 1e12) ||
        opt_float(c, o, path, "rate", &d->rate, 0, 1e9, 1, "must be > 0 and <= 1e9 bodies per second") ||
        opt_float(c, o, path, "mass_rate", &d->mass_rate, 0, 1e12, 1,
                  "must be > 0 and <= 1e12 kg per second") ||
        opt_double(c, o, path, "volume_fraction", &fraction, 0, 1, 1, "must be in (0, 1)") ||
        opt_double(c, o, path, "start", &g->start, 0, 1e9, 0, "must be in [0, 1e9] seconds") ||
        opt_double(c, o, path, "stop", &g->stop, 0, 1e9, 0, "must be in [0, 1e9] seconds") ||
        opt_long(c, o, path, "attempts", &attempts, 1, 1e6))
        return -1;
    if (fraction >= 1)
        return fail(c, kp_key(path, "volume_fraction").s, "must be in (0, 1), got %g", fraction);
    if (d->rate > 0 && d->mass_rate > 0) return fail(c, path, "give \"rate\" or \"mass_rate\", not both");
    if (count == 0 && fraction == 0 && g->stop < 0)
        return fail(c, path, "an inserter needs \"count\", \"volume_fraction\" or \"stop\", so it ends");
    if (fraction > 0 && d->region.shape == KYU_REGION_RECTANGLE)
        return fail(c, kp_key(path, "volume_fraction").s, "a rectangle region has no volume to fill");
    if (g->stop >= 0 && g->stop < g->start)
        return fail(c, kp_key(path, "stop").s, "must be >= start (%g), got %g", g->start, g->stop);
    d->cone_degrees = (float)cone, d->count = count, d->volume_fraction = (float)fraction;
    d->attempts = (int)attempts, d->velocity = g->velocity, d->seed = g->seed;
    d->body = g->body.def;
    d->density = (float)g->body.density;
    g->count = planned(c, g);
    return 0;
}

int make_inserter(ctx *c, kyu_scene *s, generator *g) {
    keypath k = kp_index("generators", g->index);
    kyu_status st = kyu_inserter_create(s->world, &g->insert, &g->inserter);
    if (st != KYU_OK)
        return fail(c, k.s, "kyu refused the inserter: %s",
                    kyu_world_last_error(s->world)); // names the status
    return 0;
}

// Before step `step`: each inserter inserts what is due by then, from its start until its stop.
int run_inserters(kyu_scene *s, long step) {
    double t = (double)step * s->wd.fixed_dt + 1e-9;
    for (int i = 0; i < s->gen_count; i++) {
        generator *g = &s->gen[i];
        if (g->kind != GEN_INSERT || t < g->start || (g->stop >= 0 && t >= g->stop)) continue;
        int first = kyu_world_body_count(s->world), made = 0;
        kyu_status st = kyu_inserter_run(g->inserter, s->world, fmax(0.0, t - 1e-9 - g->start), &made);
        if (st != KYU_OK) {
            say(s->error, sizeof s->error, "key `generators[%d]`: step %ld: the inserter failed: %s (%s)", i,
                step + 1, kyu_status_string(st), kyu_world_last_error(s->world));
            return -1;
        }
        for (int k = 1; k <= made; k++) // the scene removes no body: ids follow the count
            if (remember_gscale(s, (uint32_t)(first + k), g->body.def.gravity_scale) != 0) return -1;
    }
    return 0;
}

// run.measure: [{"name": "bed", "min": [x, y, z], "max": [x, y, z]}, ...], at most 64.
int parse_measure(ctx *c, const cJSON *arr, kyu_scene *s) {
    static const char *const KEYS[] = {"name", "min", "max", NULL};
    if (need_array(c, arr, "run.measure")) return -1;
    int n = cJSON_GetArraySize(arr);
    if (n > 64) return fail(c, "run.measure", "has %d boxes, more than 64", n);
    s->regions = calloc((size_t)n + 1, sizeof *s->regions);
    if (s->regions == NULL) return fail(c, "run.measure", "out of memory");
    for (const cJSON *o = arr->child; o != NULL; o = o->next, s->region_count++) {
        keypath k = kp_index("run.measure", s->region_count);
        kyu_scene_region_rec *r = &s->regions[s->region_count];
        if (need_object(c, o, k.s) || check_keys(c, o, k.s, KEYS, NULL) || need(c, o, k.s, "min") ||
            need(c, o, k.s, "max") || opt_vec3(c, o, k.s, "min", &r->lo, COORD_LIMIT) ||
            opt_vec3(c, o, k.s, "max", &r->hi, COORD_LIMIT))
            return -1;
        for (int a = 0; a < 3; a++)
            if (!(r->lo.raw[a] < r->hi.raw[a]))
                return fail(c, kp_index(kp_key(k.s, "max").s, a).s, "must be above min (%g), got %g",
                            (double)r->lo.raw[a], (double)r->hi.raw[a]);
        snprintf(r->name, sizeof r->name, "box%d", s->region_count);
        const cJSON *name = item(o, "name");
        if (name != NULL) {
            if (!cJSON_IsString(name) || name->valuestring[0] == '\0' || strlen(name->valuestring) > 32 ||
                strpbrk(name->valuestring, ",\"\\\n\r") != NULL)
                return fail(c, kp_key(k.s, "name").s,
                            "must be a string of 1 to 32 characters without , \" or \\");
            snprintf(r->name, sizeof r->name, "%s", name->valuestring);
        }
    }
    return 0;
}
