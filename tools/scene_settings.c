// SPDX-License-Identifier: MIT
// The scene loader's settings (scene_internal.h): the "world" object (the kyu_world_def) and the
// "run" section (steps or seconds, and what to record).
#include "scene_internal.h"

#include <math.h>
#include <stdlib.h>

// ---- world and run -----------------------------------------------------------------------------

static const char *const WORLD_KEYS[] = {
    "gravity",           "fixed_dt",    "max_steps_per_update",   "restitution_threshold",
    "solver_iterations", "linear_slop", "contact_margin",         "max_events_per_step",
    "cell_size",         "threads",     "enable_sleep",           "enable_impact_events",
    "sleep_speed",       "sleep_time",  "tangential_restitution", "impact_forces",
    "periodic",          NULL};

// "periodic": {"x": true, "z": true, "lower": [0, 0, 0], "upper": [4, 2, 4]}: the periodic box
// (kyu_periodic_box); the world's own check names a bad corner (world.periodic.upper.x = ...).
static int parse_periodic(ctx *c, const cJSON *o, kyu_periodic_box *b) {
    static const char *const KEYS[] = {"x", "y", "z", "lower", "upper", NULL};
    const char *p = "world.periodic";
    if (o == NULL) return 0;
    if (need_object(c, o, p) || check_keys(c, o, p, KEYS, NULL) || opt_bool(c, o, p, "x", &b->axis[0]) ||
        opt_bool(c, o, p, "y", &b->axis[1]) || opt_bool(c, o, p, "z", &b->axis[2]) ||
        need(c, o, p, "lower") || need(c, o, p, "upper") || opt_vec3(c, o, p, "lower", &b->lower, 1e9) ||
        opt_vec3(c, o, p, "upper", &b->upper, 1e9))
        return -1;
    if (!b->axis[0] && !b->axis[1] && !b->axis[2])
        return fail(c, p, "names no periodic axis (set \"x\", \"y\" or \"z\" to true)");
    return 0;
}

// The world settings into d; `impact_forces` (not a kyu_world_def field) into *impact_forces.
int parse_world(ctx *c, const cJSON *o, kyu_world_def *d, bool *impact_forces) {
    const char *p = "world";
    long steps = d->max_steps_per_update, iters = d->solver_iterations;
    long events = d->max_events_per_step, threads = d->worker_count;
    if (o == NULL) return 0;
    if (need_object(c, o, p) || check_keys(c, o, p, WORLD_KEYS, NULL) ||
        opt_vec3(c, o, p, "gravity", &d->gravity, 1e6) ||
        opt_float(c, o, p, "fixed_dt", &d->fixed_dt, 0, 10, 1, "must be > 0 and <= 10 seconds") ||
        opt_long(c, o, p, "max_steps_per_update", &steps, 1, 1e6) ||
        opt_float(c, o, p, "restitution_threshold", &d->restitution_threshold, 0, 1e6, 0,
                  "must be in [0, 1e6] m/s") ||
        opt_long(c, o, p, "solver_iterations", &iters, 1, 1000) ||
        opt_float(c, o, p, "linear_slop", &d->linear_slop, 0, 1e3, 0, "must be in [0, 1000] m") ||
        opt_float(c, o, p, "contact_margin", &d->contact_margin, 0, 1e3, 0, "must be in [0, 1000] m") ||
        opt_long(c, o, p, "max_events_per_step", &events, 0, 2147483647.0) ||
        opt_float(c, o, p, "cell_size", &d->cell_size, 0, 1e6, 0, "must be in [0, 1e6] m") ||
        opt_long(c, o, p, "threads", &threads, 1, 256) ||
        opt_bool(c, o, p, "enable_sleep", &d->enable_sleep) ||
        opt_bool(c, o, p, "enable_impact_events", &d->enable_impact_events) ||
        opt_float(c, o, p, "sleep_speed", &d->sleep_speed, 0, 1e6, 0, "must be in [0, 1e6] m/s") ||
        opt_float(c, o, p, "sleep_time", &d->sleep_time, 0, 1e6, 0, "must be in [0, 1e6] s") ||
        opt_float(c, o, p, "tangential_restitution", &d->tangential_restitution, -1, 1, 0,
                  "must be in [-1, 1] (-1 smooth, 0 no slip after, 1 perfectly rough)") ||
        opt_bool(c, o, p, "impact_forces", impact_forces) ||
        parse_periodic(c, item(o, "periodic"), &d->periodic))
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
        opt_long(c, o, p, "every", &every, 1, 2147483647.0) || opt_enum(c, o, p, "format", FORMATS, &format))
        return -1;
    s->every = (int)every;
    s->format = format; // the index is the bit set: none 0, csv 1, jsonl 2, both 3
    const cJSON *ids = item(o, "ids");
    if (ids == NULL) return 0;
    keypath k = kp_key(p, "ids");
    if (need_array(c, ids, k.s) != 0) return -1;
    int n = cJSON_GetArraySize(ids);
    s->ids = malloc((size_t)n * sizeof *s->ids + 1);
    if (s->ids == NULL) return fail(c, k.s, "out of memory");
    for (const cJSON *e = ids->child; e != NULL; e = e->next) {
        double v;
        if (int_value(c, e, kp_index(k.s, s->id_count).s, 1, 4294967295.0, &v) != 0) return -1;
        s->ids[s->id_count++] = (uint32_t)v;
    }
    return 0;
}

int parse_run(ctx *c, const cJSON *o, kyu_scene *s) {
    static const char *const KEYS[] = {"steps", "seconds", "record", "measure", NULL};
    double seconds = -1;
    if (o == NULL) return 0;
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
    const cJSON *rec = item(o, "record"), *measure = item(o, "measure");
    if (measure != NULL && parse_measure(c, measure, s) != 0) return -1;
    return rec == NULL ? 0 : parse_record(c, rec, s);
}
