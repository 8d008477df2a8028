// SPDX-License-Identifier: MIT
// The scene loader's bodies (scene_internal.h): a body's material keys over the defaults, the
// "bodies" array, and the creation of one body for it, a generator or an emitter.
#include "scene_internal.h"

#include <stdlib.h>
#include <string.h>

// ---- bodies ----------------------------------------------------------------------------------------

const char *const BODY_MATERIAL_KEYS[] = {"radius",
                                          "mass",
                                          "density",
                                          "restitution",
                                          "friction",
                                          "linear_damping",
                                          "gravity_scale",
                                          "category",
                                          "mask",
                                          "group",
                                          "sensor",
                                          "allow_sleep",
                                          "rolling_resistance",
                                          "angular_damping",
                                          "inertia_scale",
                                          "fixed_rotation",
                                          NULL};
static const char *const BODY_PLACE_KEYS[] = {"position", "velocity", "angular_velocity", NULL};

// The material fields of a body object on top of tpl (defaults, then overrides).
int parse_material(ctx *c, const cJSON *o, const char *path, body_tpl *tpl) {
    kyu_body_def *d = &tpl->def;
    long cat = d->category_bits, mask = d->mask_bits, group = d->group;
    if (item(o, "mass") != NULL && item(o, "density") != NULL)
        return fail(c, path, "give \"mass\" or \"density\", not both");
    if (opt_float(c, o, path, "radius", &d->radius, 0, 1e6, 1, "must be > 0 and <= 1e6") ||
        opt_float(c, o, path, "mass", &d->mass, 0, 1e12, 1, "must be > 0 and <= 1e12") ||
        opt_double(c, o, path, "density", &tpl->density, 0, 1e9, 1, "must be > 0 and <= 1e9") ||
        opt_float(c, o, path, "restitution", &d->restitution, 0, 1, 0, "must be in [0, 1]") ||
        opt_float(c, o, path, "friction", &d->friction, 0, 1e3, 0, "must be in [0, 1000]") ||
        opt_float(c, o, path, "linear_damping", &d->linear_damping, 0, 1e6, 0, "must be in [0, 1e6]") ||
        opt_float(c, o, path, "gravity_scale", &d->gravity_scale, -1e3, 1e3, 0, "must be in [-1000, 1000]") ||
        opt_float(c, o, path, "rolling_resistance", &d->rolling_resistance, 0, 1e3, 0,
                  "must be in [0, 1000]") ||
        opt_float(c, o, path, "angular_damping", &d->angular_damping, 0, 1e6, 0, "must be in [0, 1e6]") ||
        opt_float(c, o, path, "inertia_scale", &d->inertia_scale, 0, 1e6, 1,
                  "must be > 0 and <= 1e6 (1: a solid sphere, 5/3: a thin shell)") ||
        opt_bool(c, o, path, "fixed_rotation", &d->fixed_rotation) ||
        opt_long(c, o, path, "category", &cat, 0, 4294967295.0) ||
        opt_long(c, o, path, "mask", &mask, 0, 4294967295.0) ||
        opt_long(c, o, path, "group", &group, -2147483648.0, 2147483647.0) ||
        opt_bool(c, o, path, "sensor", &d->is_sensor) || opt_bool(c, o, path, "allow_sleep", &d->allow_sleep))
        return -1;
    if (item(o, "mass") != NULL) tpl->density = 0;
    d->category_bits = (uint32_t)cat;
    d->mask_bits = (uint32_t)mask;
    d->group = (int32_t)group;
    return 0;
}

// A template overridden by an object (a generator's "body"): defaults stay where it says nothing.
int parse_override(ctx *c, const cJSON *obj, const char *path, const char *key, body_tpl *tpl) {
    const cJSON *j = item(obj, key);
    if (j == NULL) return 0;
    keypath k = kp_key(path, key);
    if (need_object(c, j, k.s) || check_keys(c, j, k.s, BODY_MATERIAL_KEYS, NULL)) return -1;
    return parse_material(c, j, k.s, tpl);
}

int remember_gscale(kyu_scene *s, uint32_t index1, float gs) {
    if ((long)index1 > s->gs_cap) {
        long cap = s->gs_cap ? s->gs_cap : 64;
        while (cap < (long)index1) cap *= 2;
        float *g = realloc(s->gscale, (size_t)cap * sizeof *g);
        if (g == NULL) return -1;
        for (long i = s->gs_cap; i < cap; i++) g[i] = 1.0f;
        s->gscale = g;
        s->gs_cap = cap;
    }
    s->gscale[index1 - 1] = gs;
    if ((long)index1 > s->gs_len) s->gs_len = index1;
    return 0;
}

// Creates one body; on failure err gets the engine's reason under the key path of what made it.
int add_body(kyu_scene *s, const body_tpl *tpl, vec3s p, vec3s v, float radius, const char *path, char *err,
             size_t errlen) {
    kyu_body_def d = tpl->def;
    d.position = p;
    d.velocity = v;
    d.radius = radius;
    if (tpl->density > 0) {
        double m = tpl->density * 4.0 / 3.0 * PI * (double)radius * radius * radius;
        if (!(m > 1e-30 && m <= 1e12)) {
            say(err, errlen,
                "key `%s`: density %g and radius %g give mass %g, outside "
                "(0, 1e12]",
                path, tpl->density, (double)radius, m);
            return -1;
        }
        d.mass = (float)m;
    }
    kyu_body_id id;
    kyu_status st = kyu_body_create(s->world, &d, &id);
    if (st != KYU_OK) {
        say(err, errlen, "key `%s`: kyu refused the body: %s (%s)", path, kyu_status_string(st),
            kyu_world_last_error(s->world));
        return -1;
    }
    if (remember_gscale(s, id.index1, d.gravity_scale) != 0) {
        say(err, errlen, "key `%s`: out of memory", path);
        return -1;
    }
    return 0;
}

int add_body_ctx(ctx *c, kyu_scene *s, const body_tpl *tpl, vec3s p, vec3s v, float r, const char *path) {
    char msg[300];
    if (add_body(s, tpl, p, v, r, path, msg, sizeof msg) == 0) return 0;
    // msg already starts with the key path: strip it into fail's format.
    const char *reason = strstr(msg, "`: ");
    return fail(c, path, "%s", reason ? reason + 3 : msg);
}

int parse_bodies(ctx *c, kyu_scene *s, const cJSON *arr, const body_tpl *defaults) {
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
        if (add_body_ctx(c, s, &tpl, tpl.def.position, v, tpl.def.radius, k.s) != 0) return -1;
    }
    return 0;
}
