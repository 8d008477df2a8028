// SPDX-License-Identifier: MIT
// Private to the engine: the world, which holds one state of each module (their headers below),
// and what several modules ask of it (contact tolerances, a resting pair's speed, pair filters).
// Nothing here is public API.
#ifndef KYU_INTERNAL_H
#define KYU_INTERNAL_H

#include "bodies.h"
#include "colliders.h"
#include "common.h"
#include "contacts.h"
#include "event_store.h"
#include "grid.h"
#include "impacts.h"
#include "islands.h"
#include "periodic.h"
#include "pool.h"
#include "queries.h"
#include "step.h"

struct kyu_world {
    kyu_world_def def;
    uint32_t id;
    int locked;
    char *error; // KYU_ERROR_SIZE bytes of its own: the last error's text. A getter that fails (on a
                 //   const world) writes only here, through this pointer, and the world stays const.
    body_store bodies;
    collider_store colliders;
    step_context step;
    grid grid;
    pair_store pairs;
    contact_store contacts;
    solver_state solver;
    impact_state impacts;
    event_store events;
    island_store islands;
    periodic_state periodic;       // the def's periodic box (mask 0: none)
    struct kyu_query_cache *query; // engine/query.c: built on demand between steps, NULL until then
    struct kyu_pool *pool;         // engine/threads.c: NULL with one worker or a user job system

    double accumulator;
    float alpha;
    int gravity_on;   // |gravity| > 0 this step (set by kyu_world_step): what rests, and slow impacts
    vec3s down;       // gravity's direction (unit) when gravity_on
    float rest_speed; // kyu_rest_speed of the def (set where the def's gravity is: create, set_gravity)
    kyu_step_stats stats;
    int audit_on;   // kyu_world_set_energy_audit: kyu_audit_mark sums the energy between stages
    double audit_e; //   the energy at the last mark
};

// The energy audit's mark after a stage (world.c): the energy now, less the last mark's, is the
// stage's change (stage < 0: only the mark). Nothing when the audit is off.
void kyu_audit_mark(kyu_world *w, int stage);

// The speed below which a touching pair rests: the restitution threshold, but never below a
// thousandth of gravity's velocity in one step (with threshold 0 a resting pair still parts or
// closes by rounding, and bounces slower than that are far too small to see). Without gravity
// nothing rests: every approach is an impact. Kept in the world as rest_speed.
static inline float kyu_rest_speed_under(const kyu_world *w, vec3s gravity) {
    float g = glms_vec3_norm(gravity);
    return g > 0.0f ? kyu_maxf(w->def.restitution_threshold, 1e-3f * g * w->def.fixed_dt) : 0.0f;
}
static inline float kyu_rest_speed(const kyu_world *w) { return kyu_rest_speed_under(w, w->def.gravity); }
static inline int kyu_gravity_on(const kyu_world *w) { return glms_vec3_norm2(w->def.gravity) > 0.0f; }

// The line between the contact solver and the impact queue. A pair that approaches slower than its
// event speed is the solver's: touching, or closing its gap within the step, it is held so that it
// closes no more than its gap (a speculative contact, Box2D v3's), in parallel, in no time order. A
// faster approach is an impact, resolved in exact time order (a bounce, a cradle, a gas, a bullet).
// The event speed is the rest speed (below it an impact is inelastic anyway, so no answer depends
// on the order), but never more than closes a quarter of the smaller radius in a step: what an
// impact sets moving slower than that for the rest of its step closes at most that far before the
// solver sees it (a 1 cm bead at 60 Hz: 0.1 m/s, 17% of its radius; a 5 mm bead: 0.075 m/s).
#define KYU_SPECULATIVE_RATIO 0.25f
static inline float kyu_body_event_speed(const kyu_world *w, uint32_t i) {
    return kyu_minf(w->rest_speed, KYU_SPECULATIVE_RATIO * w->bodies.radius[i] / w->def.fixed_dt);
}
// Of pair (a, b), b a body slot or a collider code: the smaller body's (a collider has no radius).
static inline float kyu_pair_event_speed(const kyu_world *w, uint32_t a, uint32_t b) {
    float s = kyu_body_event_speed(w, a);
    return (b & 0x80000000u) ? s : kyu_minf(s, kyu_body_event_speed(w, b));
}

// Contact tolerances scale with the bodies: a resting pair may overlap by its slop (0.4% of the
// smaller radius). Pairs closer than their margin are kept as contacts: 4% of the smaller radius,
// and never less than the pair's event speed covers in a step, so that every pair the solver owns
// this step (one that would close its gap slower than its event speed) is a kept contact already.
// The world def's linear_slop and contact_margin, when set (> 0), replace the ratios with lengths
// for every body (the margin still covers the event speed). At the 0.5 m default radius these are
// the 2 mm and 2 cm kyu always used; a 1 cm bead rests within 40 um and keeps pairs within 1.7 mm
// (at 60 Hz).
#define KYU_SLOP_RATIO   0.004f
#define KYU_MARGIN_RATIO 0.04f
static inline float kyu_body_slop(const kyu_world *w, uint32_t i) {
    return w->def.linear_slop > 0.0f ? w->def.linear_slop : KYU_SLOP_RATIO * w->bodies.radius[i];
}
static inline float kyu_body_margin(const kyu_world *w, uint32_t i) {
    float m = w->def.contact_margin > 0.0f ? w->def.contact_margin : KYU_MARGIN_RATIO * w->bodies.radius[i];
    return kyu_maxf(m, kyu_body_event_speed(w, i) * w->def.fixed_dt);
}
static inline float kyu_pair_slop(const kyu_world *w, uint32_t a, uint32_t b) {
    float s = kyu_body_slop(w, a);
    return (b & 0x80000000u) ? s : kyu_minf(s, kyu_body_slop(w, b));
}
static inline float kyu_pair_margin(const kyu_world *w, uint32_t a, uint32_t b) {
    float m = kyu_body_margin(w, a);
    return (b & 0x80000000u) ? m : kyu_minf(m, kyu_body_margin(w, b));
}
// The largest margin any body has (a collider that moves wakes what sleeps within it).
static inline float kyu_max_margin(const kyu_world *w) {
    float m = w->def.contact_margin > 0.0f ? w->def.contact_margin : KYU_MARGIN_RATIO * w->bodies.max_radius;
    return kyu_maxf(m,
                    kyu_minf(w->rest_speed * w->def.fixed_dt, KYU_SPECULATIVE_RATIO * w->bodies.max_radius));
}

// The other side of a pair (b: a body slot or a collider code): its inverse mass (0 for a collider)
// and its velocity (a collider's linear velocity).
static inline float kyu_side_inv_mass(const kyu_world *w, uint32_t b) {
    return (b & KYU_COLLIDER_BIT) ? 0.0f : w->bodies.inv_mass[b];
}
static inline vec3s kyu_side_velocity(const kyu_world *w, uint32_t b) {
    return (b & KYU_COLLIDER_BIT) ? w->colliders.list[b & ~KYU_COLLIDER_BIT].velocity : w->bodies.vel[b];
}

// filter: whether a pair may meet at all (a sensor pair never does).
int kyu_pair_allowed(const kyu_world *w, uint32_t a, uint32_t b);
static inline int kyu_pair_is_sensor(const kyu_world *w, uint32_t a, uint32_t b) {
    return kyu_body_kind(&w->bodies, a)->sensor ||
           (!(b & 0x80000000u) && kyu_body_kind(&w->bodies, b)->sensor);
}

#endif
