// SPDX-License-Identifier: MIT
// World lifetime, the fixed-timestep loop, and the step pipeline in the order of docs/design.md.
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "os.h"

static atomic_uint next_world_id = 1; // distinguishes handles of different worlds

kyu_world_def kyu_world_def_default(void) {
    kyu_world_def d;
    memset(&d, 0, sizeof d);
    d.gravity = (vec3s){{0.0f, -9.81f, 0.0f}};
    d.fixed_dt = 1.0f / 60.0f;
    d.max_steps_per_update = 8;
    d.restitution_threshold = 0.1f;
    d.solver_iterations = 8;
    d.linear_slop = 0.0f; // derived from the radii (internal.h: KYU_SLOP_RATIO, KYU_MARGIN_RATIO)
    d.contact_margin = 0.0f;
    d.max_events_per_step = 0;
    d.body_capacity = 1024;
    d.max_bodies = 1 << 24;
    d.max_colliders = 1 << 20;
    d.cell_size = 0.0f;
    d.pair_capacity_per_body = 256;
    d.contact_capacity_per_body = 32;
    d.worker_count = 1;
    d.yield_when_busy = true;
    d.enable_sleep = true;
    d.enable_impact_events = false;
    d.sleep_speed = 0.05f;
    d.sleep_time = 0.5f;
    d.friction_mix = KYU_MIX_GEOMETRIC_MEAN;
    d.restitution_mix = KYU_MIX_MAX;
    d.internal_cookie = KYU_DEF_COOKIE;
    return d;
}

// The first problem of a world def, written to msg (the field and its value); KYU_OK and "" if none.
kyu_status kyu_world_def_check(const kyu_world_def *d, char *msg, size_t capacity) {
    char local[8];
    if (!msg || capacity == 0) msg = local, capacity = sizeof local;
    msg[0] = '\0';
#define BAD(code, ...) return (snprintf(msg, capacity, __VA_ARGS__), (code))
    if (!d) BAD(KYU_ERR_NULL, "def is NULL");
    if (d->internal_cookie != KYU_DEF_COOKIE) BAD(KYU_ERR_INVALID_DEF, "start from kyu_world_def_default()");
    if (!kyu_bounded3(d->gravity, KYU_MAX_COORD))
        BAD(KYU_ERR_NOT_FINITE, "gravity (%g, %g, %g) must be finite, each |g| <= 1e9", (double)d->gravity.x,
            (double)d->gravity.y, (double)d->gravity.z);
    const struct {
        const char *name;
        float value, lo, hi;
    } range[] = {
        {"fixed_dt", d->fixed_dt, KYU_MIN_DT, KYU_MAX_DT},
        {"restitution_threshold", d->restitution_threshold, 0.0f, 1e6f},
        {"tangential_restitution", d->tangential_restitution, -1.0f, 1.0f},
        {"linear_slop", d->linear_slop, 0.0f, 1e3f},
        {"contact_margin", d->contact_margin, 0.0f, 1e3f},
        {"cell_size", d->cell_size, 0.0f, 1e6f},
        {"sleep_speed", d->sleep_speed, 0.0f, 1e9f},
        {"sleep_time", d->sleep_time, 0.0f, 1e9f},
    };
    for (size_t k = 0; k < sizeof range / sizeof range[0]; k++) {
        if (!isfinite(range[k].value))
            BAD(KYU_ERR_NOT_FINITE, "%s is %g (must be finite)", range[k].name, (double)range[k].value);
        if (!(range[k].value >= range[k].lo && range[k].value <= range[k].hi))
            BAD(KYU_ERR_INVALID_ARGUMENT, "%s = %g (allowed: [%g, %g])", range[k].name,
                (double)range[k].value, (double)range[k].lo, (double)range[k].hi);
    }
    if (d->contact_margin > 0.0f && !(d->contact_margin >= d->linear_slop))
        BAD(KYU_ERR_INVALID_ARGUMENT,
            "contact_margin = %g is below linear_slop = %g (a kept pair must reach the slop)",
            (double)d->contact_margin, (double)d->linear_slop);
    const struct {
        const char *name;
        int value, lo, hi;
    } counts[] = {
        {"max_steps_per_update", d->max_steps_per_update, 1, 1 << 20},
        {"solver_iterations", d->solver_iterations, 0, 1000},
        {"max_events_per_step", d->max_events_per_step, 0, INT32_MAX},
        {"body_capacity", d->body_capacity, 0, 1 << 30},
        {"max_bodies", d->max_bodies, 1, 1 << 30},
        {"max_colliders", d->max_colliders, 1, 1 << 30},
        {"pair_capacity_per_body", d->pair_capacity_per_body, 1, 1 << 20},
        {"contact_capacity_per_body", d->contact_capacity_per_body, 1, 1 << 20},
        {"worker_count", d->worker_count, 1, 256},
    };
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        if (counts[k].value < counts[k].lo || counts[k].value > counts[k].hi)
            BAD(KYU_ERR_INVALID_ARGUMENT, "%s = %d (allowed: [%d, %d])", counts[k].name, counts[k].value,
                counts[k].lo, counts[k].hi);
    if ((int)d->friction_mix < KYU_MIX_MAX || (int)d->friction_mix > KYU_MIX_GEOMETRIC_MEAN)
        BAD(KYU_ERR_INVALID_ARGUMENT, "friction_mix = %d is not a kyu_mix_rule", (int)d->friction_mix);
    if ((int)d->restitution_mix < KYU_MIX_MAX || (int)d->restitution_mix > KYU_MIX_GEOMETRIC_MEAN)
        BAD(KYU_ERR_INVALID_ARGUMENT, "restitution_mix = %d is not a kyu_mix_rule", (int)d->restitution_mix);
    if (!d->enqueue_task != !d->finish_task)
        BAD(KYU_ERR_INVALID_ARGUMENT, "enqueue_task and finish_task must be set together (one is NULL)");
    kyu_status periodic = kyu_periodic_check_def(d, msg, capacity);
    if (periodic != KYU_OK) return periodic;
#undef BAD
    return KYU_OK;
}

kyu_status kyu_world_create(const kyu_world_def *def, kyu_world **out) {
    if (!out) return KYU_ERR_NULL;
    *out = NULL;
    if (!def) return KYU_ERR_NULL;
    kyu_status st = kyu_world_def_check(def, NULL, 0);
    if (st != KYU_OK) return st;
    kyu_world *w = kyu_calloc(1, sizeof *w);
    if (!w) return KYU_ERR_OUT_OF_MEMORY;
    kyu_world_count_add(1); // kyu_world_destroy takes it back, also on the failures below
    w->def = *def;
    w->rest_speed = kyu_rest_speed(w);
    w->periodic = kyu_periodic_state_of(def);
    w->islands.free_head = -1;
    do w->id = atomic_fetch_add(&next_world_id, 1u);
    while (w->id == 0); // 0 is the world of the null handle
    int cap = def->body_capacity < def->max_bodies ? def->body_capacity : def->max_bodies;
    w->step.worker_scratch = kyu_calloc((size_t)def->worker_count, sizeof *w->step.worker_scratch);
    w->step.worker_scratch_cap = kyu_calloc((size_t)def->worker_count, sizeof *w->step.worker_scratch_cap);
    w->error = kyu_calloc(1, KYU_ERROR_SIZE);
    if (!w->step.worker_scratch || !w->step.worker_scratch_cap || !w->error ||
        kyu_bodies_reserve(w, cap > 0 ? cap : 1) || kyu_pool_create(w)) {
        kyu_world_destroy(w);
        return KYU_ERR_OUT_OF_MEMORY;
    }
    *out = w;
    return KYU_OK;
}

// The step context's arrays and the workers' scratch (allocated at create and by kyu_bodies_reserve).
static void step_free(step_context *s, int workers) {
    kyu_free(s->active);
    kyu_free(s->arena.base);
    kyu_free(s->check_marks);
    if (s->worker_scratch)
        for (int i = 0; i < workers; i++) kyu_free(s->worker_scratch[i]);
    kyu_free(s->worker_scratch);
    kyu_free(s->worker_scratch_cap);
}

// Each module frees its own state.
void kyu_world_destroy(kyu_world *w) {
    if (!w) return;
    kyu_pool_destroy(w);
    kyu_query_free(w);
    kyu_bodies_free(&w->bodies);
    kyu_colliders_free(&w->colliders);
    kyu_grid_free(&w->grid);
    kyu_pairs_free(&w->pairs);
    kyu_impacts_free(&w->impacts);
    kyu_impacts_tally_free(&w->impacts);
    kyu_islands_free(w);
    kyu_contacts_free(&w->contacts);
    kyu_solver_free(&w->solver);
    kyu_events_free(&w->events);
    step_free(&w->step, w->def.worker_count);
    kyu_free(w->error);
    kyu_free(w);
    kyu_world_count_add(-1);
}

// The awake bodies, in slot order: every stage below works on these only.
static void collect_active(kyu_world *w) {
    const body_store *s = &w->bodies;
    w->step.active_count = 0;
    for (int i = 0; i < s->high; i++)
        if (s->alive[i] && s->awake[i]) w->step.active[w->step.active_count++] = (uint32_t)i;
}

static int by_slot(const void *x, const void *y) {
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

// Bodies woken mid-step were appended to the active list: the contact search wants slot order.
static void sort_active(kyu_world *w) {
    qsort(w->step.active, (size_t)w->step.active_count, sizeof *w->step.active, by_slot);
}

// 1. Forces: gravity, the forces and torques applied since the last step (kyu_body_apply_force),
// then damping, change velocities.
static void forces_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    body_store *s = &w->bodies;
    float dt = w->def.fixed_dt;
    for (int k = begin; k < end; k++) {
        uint32_t i = w->step.active[k];
        const body_kind *kind = kyu_body_kind(s, i);
        vec3s v = glms_vec3_add(s->vel[i], glms_vec3_scale(w->def.gravity, kind->gravity_scale * dt));
        const body_force *f = kyu_body_force_of(s, i); // NULL at once when no body holds one
        if (f) {
            v = glms_vec3_add(v, glms_vec3_scale(glms_vec3_scale(f->force, s->inv_mass[i]), dt));
            s->ang[i] = glms_vec3_add(s->ang[i], glms_vec3_scale(f->torque, s->inv_inertia[i] * dt));
        }
        if (kind->linear_damping > 0.0f) v = glms_vec3_scale(v, 1.0f / (1.0f + dt * kind->linear_damping));
        s->vel[i] = v;
        if (kind->angular_damping > 0.0f)
            s->ang[i] = glms_vec3_scale(s->ang[i], 1.0f / (1.0f + dt * kind->angular_damping));
    }
}

// A contact that pushed holds its bodies this step (the rule of the velocity solve's support pass,
// which ran last): their force stays in their velocity, as their gravity does. The solver's domains
// give each body's contacts to one worker, so each entry is written by one.
static void mark_held(kyu_world *w, solver_row *r) {
    if (!(r->flags & ROW_HELD) || !(r->jn > 0.0f)) return;
    body_force *f = kyu_body_force_of(&w->bodies, r->a);
    if (f) f->held = 1;
    if (r->b != KYU_ROW_STATIC && (f = kyu_body_force_of(&w->bodies, r->b)) != NULL) f->held = 1;
}

// Between the velocity solve and the take-back of gravity: a body no contact held flies the exact
// parabola of its gravity and its force together. The solve left its acceleration at its gravity;
// the force's part joins it, and the take-back removes both from the velocity, to which the forces
// stage added both, so its sweeps and impacts follow the path it moves on. A held body keeps its
// force in the velocity the solve worked with and moves in a line, as it keeps its gravity.
static void forces_join_paths(kyu_world *w) {
    body_store *s = &w->bodies;
    if (s->force_count == 0) return;
    for (int k = 0; k < s->force_count; k++) s->forces[k].held = 0;
    kyu_row_pass_run(w, mark_held);
    for (int k = 0; k < s->force_count; k++) {
        const body_force *f = &s->forces[k];
        uint32_t i = f->slot;
        if (!s->alive[i] || !s->awake[i] || f->held) continue; // awake now: this step's forces stage had it
        w->step.accel[i] = glms_vec3_add(w->step.accel[i], glms_vec3_scale(f->force, s->inv_mass[i]));
    }
}

// 2. Sweeps: each particle's box bounds its whole path this step, grown by its radius and the margin.
static void sweeps_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    for (int k = begin; k < end; k++) {
        uint32_t i = w->step.active[k];
        w->step.t_body[i] = 0.0f;
        kyu_broadphase_box(w, i, 0.0f, &w->step.box[i]);
    }
}

// Each awake body's path this step (its clock, its acceleration, its swept box) is read from the
// forces to the end of the impacts, and stays readable until the next step (the debug draw and the
// grid's tests read the boxes the build used): taken from the step's arena after stage 0 and kept
// there while the later stages take and give back their own scratch above it.
void kyu_step_take_paths(kyu_world *w) {
    step_context *s = &w->step;
    size_t slots = (size_t)w->bodies.high;
    s->t_body = kyu_arena_take(&s->arena, slots * sizeof *s->t_body);
    s->accel = kyu_arena_take(&s->arena, slots * sizeof *s->accel);
    s->box = kyu_arena_take(&s->arena, slots * sizeof *s->box);
    kyu_arena_keep(&s->arena);
}

static double now_ms(void) { return kyu_os_seconds() * 1e3; }

// After a step where bodies fell asleep: the per-step arrays that this step used less than half of
// give most of it back (kyu_shrink), so a pile that has gone to sleep does not keep the room it
// needed awake. Not after every step: the late lists and the heap swing from step to step and grow
// inside the serial impact loop, and shrinking them each time cost 0.5 ms of a PILE 100k step.
// Between those steps the stages' arrays keep their room while idle (the contact cache's second
// half, the solver's order, rows and scratch, the queue's heaps): given back after every step and
// taken again by the next (2026-11-26 to 11-29), their page faults cost a third of an awake PILE
// step at 100,000 bodies and a quarter at 1,000,000 (docs/benchmarks.md, "Idle arrays keep their
// room").
static void trim_scratch(kyu_world *w) {
    kyu_broadphase_trim(w);
    for (int c = 0; c < w->impacts.chunk_cap; c++)
        SHRINK(w->impacts.chunks[c].ev, w->impacts.chunks[c].cap, w->impacts.chunks[c].count);
    SHRINK(w->impacts.later.ev, w->impacts.later.cap,
           w->impacts.later.peak); // empty now: measured by the most they held
    SHRINK(w->impacts.now.ev, w->impacts.now.cap, w->impacts.now.peak);
    int rows = w->contacts.count + 1; // the most any of these holds a contact
    SHRINK(w->contacts.next, w->contacts.next_cap, rows);
    SHRINK(w->contacts.owned, w->contacts.owned_cap, rows);
    SHRINK(w->contacts.meet, w->contacts.meet_cap, rows);
    SHRINK(w->solver.order, w->solver.order_cap, rows);
    SHRINK(w->solver.tmp, w->solver.tmp_cap, 2 * rows);
    SHRINK(w->solver.row, w->solver.row_cap, rows);
    SHRINK(w->solver.push, w->solver.push_cap, rows);
    SHRINK(w->solver.near, w->solver.near_cap, rows);
    SHRINK(w->solver.near_key, w->solver.near_key_cap, rows);
    kyu_wide_trim(w, rows);
}

// KYU_VALIDATE builds (the sanitizer builds) check the world's invariants after every stage of the
// step, what that stage can change (every stage: bodies, colliders; and the contact lists, the
// islands, the active list or the grid where the stage touches them), and stop at the first stage
// that breaks one (engine/validate.c says what each check is).
#ifdef KYU_VALIDATE
static void validate_after(const kyu_world *w, const char *stage, int checks) {
    char msg[KYU_ERROR_SIZE], what[KYU_ERROR_SIZE + 64];
    if (!kyu_world_validate_step(w, checks, msg, sizeof msg)) return;
    snprintf(what, sizeof what, "world invalid after %s: %s", stage, msg);
    kyu_assert_fail(what, __FILE__, __LINE__);
}
#define VALIDATE_AFTER(stage, checks) (fail ? (void)0 : validate_after(w, stage, checks))
#else
#define VALIDATE_AFTER(stage, checks) ((void)0)
#endif

// One fixed step; the forces applied since the last one stay (kyu_world_step and kyu_world_update
// clear them when they are done with them).
static kyu_status step(kyu_world *w) {
    w->locked = 1;
    memset(&w->stats, 0, sizeof w->stats);
    w->impacts.tally_count = 0, w->impacts.tally_lost = 0; // the forces are this step's (measure.c)
    w->gravity_on = kyu_gravity_on(w);
    w->down = w->gravity_on ? glms_vec3_normalize(w->def.gravity) : glms_vec3_zero();
    double t0 = now_ms();
    kyu_step_give_back_paths(&w->step); // last step's
    // Stages as docs/design.md, "One step", numbers them; 0 readies the step.
    int fail = kyu_events_begin_step(w);     // 0. events, removals, waking, new bodies' contacts
    if (!fail) fail = kyu_contacts_purge(w); // what was removed leaves the cache (end events)
    if (!fail)
        kyu_bodies_release_limbo(&w->bodies), kyu_colliders_release_limbo(&w->colliders); // its slots free
    if (!fail) fail = kyu_islands_wake_touched(w); //    what awake bodies will touch wakes up (6)
    if (!fail) fail = kyu_islands_flush_woken(w);
    if (!fail) fail = kyu_contacts_add_fresh(w); // new bodies meet what they touch before they move
    collect_active(w);
    VALIDATE_AFTER("stage 0 (events, waking, new contacts)",
                   KYU_CHECK_ACTIVE | KYU_CHECK_CONTACTS | KYU_CHECK_ISLANDS);
    kyu_step_take_paths(w);
    int awake_at_start = w->step.active_count;
    w->stats.awake_bodies = w->step.active_count;
    double t1 = now_ms();
    if (!fail)
        fail = kyu_contacts_classify(w); // impacts or resting, by the approach before this step's forces
    kyu_audit_mark(w, -1);
    kyu_parallel_for(w, w->step.active_count, 1024, forces_task, w); // 1. forces
    kyu_audit_mark(w, KYU_AUDIT_FORCES);
    if (!fail) fail = kyu_contacts_solve_velocities(w); // 2. velocity solve over kept contacts
    kyu_audit_mark(w, KYU_AUDIT_SOLVE);
    if (!fail) forces_join_paths(w);           //  the forces of bodies no contact holds join their paths
    if (!fail) kyu_contacts_mark_supported(w); //  bodies not held by a contact fly exact parabolas
    kyu_audit_mark(w, KYU_AUDIT_FORCES);
    VALIDATE_AFTER("stages 1-2 (forces, velocity solve)", KYU_CHECK_ACTIVE | KYU_CHECK_CONTACTS);
    kyu_parallel_for(w, w->step.active_count, 1024, sweeps_task, w); // 3. sweeps and broadphase
    kyu_colliders_update_bounds(w);
    double t2 = now_ms();
    if (!fail) fail = kyu_broadphase_build(w); //    candidate pairs
    VALIDATE_AFTER("stage 3 (sweeps, broadphase)", KYU_CHECK_ACTIVE | KYU_CHECK_GRID);
    double t3 = now_ms();
    if (!fail)
        fail = kyu_impacts_resolve(w); // 4. impacts in time order, response; one instant's pile-up collapsed
    if (!fail) kyu_colliders_advance(w);
    kyu_audit_mark(w, KYU_AUDIT_IMPACTS);
    if (w->step.active_count != awake_at_start) sort_active(w); // islands woken mid-step joined
    VALIDATE_AFTER("stage 4 (impacts)", KYU_CHECK_ACTIVE | KYU_CHECK_GRID | KYU_CHECK_ISLANDS);
    double t4 = now_ms();
    if (!fail) fail = kyu_contacts_relax(w); // 5. relax (a short solve after the impacts), walls left
    if (!fail) fail = kyu_islands_flush_woken(w);
    if (!fail) fail = kyu_contacts_find(w);     //    contacts (new + kept)
    if (!fail) fail = kyu_contacts_push_out(w); //  overlaps beyond the slop pushed out, by position
    kyu_periodic_wrap_bodies(w);                //    what left the periodic box enters it again
    VALIDATE_AFTER("stage 5 (relax, contacts, periodic wrap)",
                   KYU_CHECK_ACTIVE | KYU_CHECK_CONTACTS | KYU_CHECK_INSIDE);
    double t5 = now_ms();
    if (!fail) fail = kyu_islands_update(w); // 6. islands: resting ones fall asleep
    if (!fail && w->stats.bodies_fell_asleep > 0) trim_scratch(w);
    VALIDATE_AFTER("stage 6 (islands)", KYU_CHECK_CONTACTS | KYU_CHECK_ISLANDS | KYU_CHECK_INSIDE);
    double t6 = now_ms();
    kyu_step_stats *st = &w->stats;
    st->ms_solve = (float)(t2 - t1), st->ms_broadphase = (float)(t3 - t2), st->ms_impacts = (float)(t4 - t3);
    st->ms_contacts = (float)(t5 - t4), st->ms_islands = (float)((t1 - t0) + (t6 - t5));
    st->ms_total = (float)(t6 - t0);
    w->locked = 0;
    kyu_query_invalidate(w);
    if (fail == KYU_FAIL_PAIRS)
        return kyu_fail(
            w, KYU_ERR_CAPACITY,
            "the broadphase found over %d candidate pairs (pair_capacity_per_body = %d for %d awake "
            "bodies): bodies are packed inside each other; the step stopped before its impacts",
            w->grid.pair_budget, w->def.pair_capacity_per_body, w->step.active_count);
    if (fail == KYU_FAIL_CONTACTS)
        return kyu_fail(w, KYU_ERR_CAPACITY,
                        "over %lld contacts to keep (contact_capacity_per_body = %d for %d awake bodies); "
                        "the step stopped at a contact search (the new bodies', before anything moved, or "
                        "the one after the impacts)",
                        (long long)w->def.contact_capacity_per_body * w->step.active_count + 4096,
                        w->def.contact_capacity_per_body, w->step.active_count);
    if (fail)
        return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY,
                        "during the step (it stopped part way: see kyu_world_step)");
    return KYU_OK;
}

kyu_status kyu_world_step(kyu_world *w) {
    if (!w) return KYU_ERR_NULL;
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_world_step during a step");
    kyu_status st = step(w);
    kyu_bodies_clear_forces(&w->bodies); // used, also by a step that failed part way
    return st;
}

// The fraction of a step left in the accumulator, below 1.
float kyu_alpha_of(double accumulator, float dt) {
    float a = (float)(accumulator / (double)dt);
    return a < 1.0f ? a : 0.99999994f;
}

kyu_status kyu_world_update(kyu_world *w, float frame_seconds, int *steps_run) {
    if (steps_run) *steps_run = 0;
    if (!w) return KYU_ERR_NULL;
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_world_update during a step");
    if (!isfinite(frame_seconds))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "frame_seconds is %g (must be finite)", (double)frame_seconds);
    if (!(frame_seconds >= 0.0f && frame_seconds <= 1e6f))
        return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "frame_seconds = %g (allowed: [0, 1e6])",
                        (double)frame_seconds);
    double dt = (double)w->def.fixed_dt;
    w->accumulator += (double)frame_seconds;
    // The step count in double, capped before it becomes an int: a long frame with a short step
    // would overflow one (1e6 s / 1e-6 s), and the time beyond the cap is dropped (no spiral).
    int n = w->def.max_steps_per_update;
    if (w->accumulator < n * dt)
        n = (int)(w->accumulator / dt);
    else
        w->accumulator = n * dt;
    if (n == 0)
        w->events.begin_count = w->events.end_count = w->events.impact_count =
            0; // a frame shorter than a step: no events
    for (int i = 0; i < n; i++) {
        if (i == n - 1)
            memcpy(w->bodies.prev, w->bodies.pos, (size_t)w->bodies.high * sizeof *w->bodies.prev);
        w->events.step = i; // every step's events of one update are kept, each with its step
        kyu_status st = step(w);
        w->events.step = 0;
        if (st != KYU_OK) {
            w->accumulator = 0.0; // the failed step's time is not owed again
            w->alpha = 0.0f;
            kyu_bodies_clear_forces(&w->bodies);
            return st;
        }
        w->accumulator -= dt;
        if (steps_run) (*steps_run)++;
    }
    if (w->accumulator < 0.0) w->accumulator = 0.0;
    w->alpha = kyu_alpha_of(w->accumulator, w->def.fixed_dt);
    // The forces applied for this frame pushed through every step it ran (none, for a frame shorter
    // than a step: a force applied every frame then pushes in the frames that step, once a step).
    kyu_bodies_clear_forces(&w->bodies);
    return KYU_OK;
}

float kyu_world_alpha(const kyu_world *w) { return w ? w->alpha : 0.0f; }

kyu_status kyu_world_set_gravity(kyu_world *w, vec3s g) {
    if (!w) return KYU_ERR_NULL;
    if (!kyu_bounded3(g, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "gravity (%g, %g, %g) must be finite, each |g| <= 1e9",
                        (double)g.x, (double)g.y, (double)g.z);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_world_set_gravity during a step");
    if (w->periodic.mask) { // the rest speed, and with it each body's margin, follows gravity
        float rest = kyu_rest_speed_under(w, g);
        for (int i = 0; i < w->bodies.high; i++)
            if (w->bodies.alive[i] &&
                kyu_body_check_periodic_radius(w, w->bodies.radius[i], rest) != KYU_OK) {
                char why[256];
                snprintf(why, sizeof why, "%s", kyu_world_last_error(w));
                return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT,
                                "gravity (%g, %g, %g) refused: body in slot %d: %s", (double)g.x, (double)g.y,
                                (double)g.z, i, why);
            }
    }
    if (glms_vec3_eqv(g, w->def.gravity) == false && kyu_islands_wake_all(w)) // all that rests may now slide
        return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "waking the sleeping bodies");
    w->def.gravity = g;
    w->rest_speed = kyu_rest_speed(w);
    return KYU_OK;
}

kyu_world_def kyu_world_get_def(const kyu_world *w) { return w ? w->def : kyu_world_def_default(); }

kyu_step_stats kyu_world_stats(const kyu_world *w) {
    kyu_step_stats s;
    memset(&s, 0, sizeof s);
    return w ? w->stats : s;
}

int kyu_world_body_count(const kyu_world *w) { return w ? w->bodies.count : 0; }

int kyu_world_get_bodies(const kyu_world *w, kyu_body_id *out, int capacity) {
    if (!w || capacity < 0 || (capacity > 0 && !out)) return -1;
    int n = 0;
    for (int i = 0; i < w->bodies.high; i++)
        if (w->bodies.alive[i]) {
            if (n < capacity) out[n] = kyu_handle_of(w, (uint32_t)i, w->bodies.generation[i]);
            n++;
        }
    return n;
}

int kyu_world_sleeping_body_count(const kyu_world *w) { return w ? kyu_islands_body_count_asleep(w) : 0; }

// 1/2 I w^2 of body i (0 for a body of fixed rotation).
static double spin_energy(const body_store *b, int i) {
    if (!(b->inv_inertia[i] > 0.0f)) return 0.0;
    vec3s a = b->ang[i];
    return 0.5 / (double)b->inv_inertia[i] *
           ((double)a.x * (double)a.x + (double)a.y * (double)a.y + (double)a.z * (double)a.z);
}

// Adds body i's kinetic energy, translation then spin, to *e (kyu_world_kinetic_energy, the audit).
static void add_kinetic(double *e, const body_store *b, int i) {
    vec3s v = b->vel[i];
    *e += 0.5 * (double)b->mass[i] *
          ((double)v.x * (double)v.x + (double)v.y * (double)v.y + (double)v.z * (double)v.z);
    *e += spin_energy(b, i);
}

// The audit's energy: every body's kinetic energy (translation and spin) plus its potential energy
// in gravity, in slot order (sleeping bodies are still: they add the same each time).
void kyu_audit_mark(kyu_world *w, int stage) {
    if (!w->audit_on) return;
    const body_store *b = &w->bodies;
    vec3s g = w->def.gravity;
    double e = 0.0;
    for (int i = 0; i < b->high; i++)
        if (b->alive[i]) {
            vec3s x = b->pos[i];
            double m = (double)b->mass[i];
            add_kinetic(&e, b, i);
            e -= m * (double)kyu_body_kind(b, (uint32_t)i)->gravity_scale *
                 ((double)g.x * (double)x.x + (double)g.y * (double)x.y + (double)g.z * (double)x.z);
        }
    if (stage >= 0) w->stats.energy_change[stage] += e - w->audit_e;
    w->audit_e = e;
}

kyu_status kyu_world_set_energy_audit(kyu_world *w, bool on) {
    if (!w) return KYU_ERR_NULL;
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_world_set_energy_audit during a step");
    w->audit_on = on ? 1 : 0;
    return KYU_OK;
}

double kyu_world_kinetic_energy(const kyu_world *w) {
    if (!w) return 0.0;
    double e = 0.0;
    for (int i = 0; i < w->bodies.high; i++)
        if (w->bodies.alive[i]) add_kinetic(&e, &w->bodies, i);
    return e;
}

double kyu_world_rotational_energy(const kyu_world *w) {
    if (!w) return 0.0;
    double e = 0.0;
    for (int i = 0; i < w->bodies.high; i++)
        if (w->bodies.alive[i]) e += spin_energy(&w->bodies, i);
    return e;
}

kyu_status kyu_world_momentum(const kyu_world *w, double out[3]) {
    if (!w) return KYU_ERR_NULL;
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "kyu_world_momentum: out is NULL");
    out[0] = out[1] = out[2] = 0.0;
    for (int i = 0; i < w->bodies.high; i++)
        if (w->bodies.alive[i])
            for (int k = 0; k < 3; k++) out[k] += (double)w->bodies.mass[i] * (double)w->bodies.vel[i].raw[k];
    return KYU_OK;
}

kyu_status kyu_world_angular_momentum(const kyu_world *w, double out[3]) {
    if (!w) return KYU_ERR_NULL;
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "kyu_world_angular_momentum: out is NULL");
    out[0] = out[1] = out[2] = 0.0;
    const body_store *b = &w->bodies;
    for (int i = 0; i < b->high; i++) {
        if (!b->alive[i]) continue;
        double m = (double)b->mass[i], x[3], v[3];
        for (int k = 0; k < 3; k++) x[k] = (double)b->pos[i].raw[k], v[k] = (double)b->vel[i].raw[k];
        out[0] += m * (x[1] * v[2] - x[2] * v[1]);
        out[1] += m * (x[2] * v[0] - x[0] * v[2]);
        out[2] += m * (x[0] * v[1] - x[1] * v[0]);
        if (b->inv_inertia[i] > 0.0f)
            for (int k = 0; k < 3; k++) out[k] += (double)b->ang[i].raw[k] / (double)b->inv_inertia[i];
    }
    return KYU_OK;
}

static uint64_t mix(uint64_t h, uint32_t x) {
    h ^= x;
    return h * 0x100000001b3ull; // FNV-1a, one word at a time
}

uint64_t kyu_world_state_hash(const kyu_world *w) {
    if (!w) return 0;
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < w->bodies.high; i++) {
        if (!w->bodies.alive[i]) continue;
        h = mix(h, (uint32_t)i);
        for (int k = 0; k < 3; k++) {
            uint32_t p, v;
            memcpy(&p, &w->bodies.pos[i].raw[k], 4);
            memcpy(&v, &w->bodies.vel[i].raw[k], 4);
            h = mix(mix(h, p), v);
        }
        const body_force *f = kyu_body_force_of(&w->bodies, (uint32_t)i); // none after a step
        if (f)
            for (int k = 0; k < 6; k++) {
                uint32_t x;
                memcpy(&x, k < 3 ? &f->force.raw[k] : &f->torque.raw[k - 3], 4);
                h = mix(h, x);
            }
        if (w->bodies.inv_inertia[i] > 0.0f) { // a body of fixed rotation hashes as kyu did before spin
            for (int k = 0; k < 3; k++) {
                uint32_t a;
                memcpy(&a, &w->bodies.ang[i].raw[k], 4);
                h = mix(h, a);
            }
            for (int k = 0; k < 4; k++) {
                uint32_t q;
                memcpy(&q, &w->bodies.rot[i].raw[k], 4);
                h = mix(h, q);
            }
        }
    }
    return h;
}
