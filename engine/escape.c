// SPDX-License-Identifier: MIT
// Contacts kept from frame to frame (seed 004's keep-pairs) and the two solves over them:
// - at the start of a step, the velocity solve: no approach along the normal beyond what closes
//   the gap this step (sequential impulses, warm-started from the last step, friction within
//   mu * normal impulse); contacts that approach faster than the restitution threshold are left to
//   the impact queue, which bounces them exactly;
// - at the end of a step, the escape: overlap beyond the slop is pushed out along the contact
//   normal, split by inverse mass (all of it to the particle against a collider). Positions only:
//   the escape never adds velocity, so it cannot add energy.
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int is_collider(uint32_t b) { return (b & KYU_COLLIDER_BIT) != 0; }

// Depth of a box behind the plane through p with normal n: used when the centre is inside a box,
// where the closest face would be ambiguous; the kept normal says which way is out.
static float box_gap_along(const kyu_box *box, vec3s p, float r, vec3s n) {
    float extent = 0.0f;
    for (int k = 0; k < 3; k++)
        extent += fabsf(glms_vec3_dot(n, box->rotation.col[k])) * box->half_extents.raw[k];
    return glms_vec3_dot(n, glms_vec3_sub(p, box->center)) - extent - r;
}

// Current normal (b to a) and signed gap of a contact, with the colliders where they stand now (the
// start of the step before they move, the end after they moved).
static float contact_geometry(const kyu_world *w, const contact *c, vec3s *n) {
    const body_store *s = &w->bodies;
    vec3s pa = s->pos[c->a];
    if (is_collider(c->b)) {
        const collider *col = &w->colliders.list[c->b & ~KYU_COLLIDER_BIT];
        float gap = kyu_collider_distance(col, pa, s->radius[c->a], 0.0f, w->def.fixed_dt, n);
        if (col->type == KYU_SHAPE_BOX && gap < -s->radius[c->a] && glms_vec3_norm2(c->normal) > 0.5f) {
            *n = c->normal;
            gap = box_gap_along(&col->box, pa, s->radius[c->a], *n);
        }
        return gap;
    }
    vec3s d = glms_vec3_sub(pa, s->pos[c->b]);
    float len = glms_vec3_norm(d);
    float r = s->radius[c->a] + s->radius[c->b];
    if (len > 1e-6f * r) {
        *n = glms_vec3_scale(d, 1.0f / len);
    } else {
        *n = glms_vec3_norm2(c->normal) > 0.5f ? c->normal : (vec3s){{0.0f, 1.0f, 0.0f}};
    }
    return len - r;
}

// Signed gap and normal (b to a) of a contact with the bodies where they stand; `normal` holds the
// contact's last normal on entry (it decides the side of a centre inside a box).
float kyu_contact_gap(const kyu_world *w, const contact *c, vec3s *normal) {
    contact probe = *c;
    probe.normal = *normal;
    return contact_geometry(w, &probe, normal);
}

static vec3s other_velocity(const kyu_world *w, uint32_t b) {
    if (is_collider(b)) return w->colliders.list[b & ~KYU_COLLIDER_BIT].velocity;
    return w->bodies.vel[b];
}

static float inv_mass_of(const kyu_world *w, uint32_t b) {
    return is_collider(b) ? 0.0f : w->bodies.inv_mass[b];
}

// The pair's effective mass: 1 / (inverse mass sum).
float kyu_contact_mass(const kyu_world *w, const contact *c) {
    return 1.0f / (w->bodies.inv_mass[c->a] + inv_mass_of(w, c->b));
}

float kyu_contact_restitution(const kyu_world *w, const contact *c) {
    return kyu_pair_restitution(w, c->a, c->b);
}

float kyu_contact_friction(const kyu_world *w, const contact *c) { return kyu_pair_friction(w, c->a, c->b); }

// Impulse on a, its opposite on b, through the inverse masses ia and ib (the bodies' own, or the
// copies a contact's coefficients keep).
static void apply_masses(kyu_world *w, const contact *c, vec3s impulse, float ia, float ib) {
    body_store *s = &w->bodies;
    s->vel[c->a] = glms_vec3_add(s->vel[c->a], glms_vec3_scale(impulse, ia));
    if (!is_collider(c->b)) s->vel[c->b] = glms_vec3_sub(s->vel[c->b], glms_vec3_scale(impulse, ib));
}

static void apply(kyu_world *w, const contact *c, vec3s impulse) {
    apply_masses(w, c, impulse, w->bodies.inv_mass[c->a], inv_mass_of(w, c->b));
}

// A contact where something turns: either body (not of fixed rotation), or the collider's surface
// (an angular or a surface velocity). Every other contact takes the translation-only solve, whose
// arithmetic is the one kyu had before spin (fixed_rotation bodies step bit for bit as they did).
static int contact_spins(const kyu_world *w, const contact *c) {
    if (w->bodies.inv_inertia[c->a] > 0.0f) return 1;
    if (is_collider(c->b)) return kyu_collider_spins(&w->colliders.list[c->b & ~KYU_COLLIDER_BIT]);
    return w->bodies.inv_inertia[c->b] > 0.0f;
}

// Impulse p (normal and tangential, at the contact point) and angular impulse L on a, their
// opposites on b. The tangential part turns both bodies by n x p_t (a's point is at -rA n, b's at
// rB n); the normal part passes through the centres.
static void apply_spin(kyu_world *w, const contact *c, vec3s impulse, vec3s tangent, vec3s angular) {
    body_store *s = &w->bodies;
    apply(w, c, impulse);
    vec3s t = glms_vec3_cross(c->normal, tangent);
    uint32_t a = c->a, b = c->b;
    if (s->inv_inertia[a] > 0.0f)
        s->ang[a] =
            glms_vec3_add(s->ang[a], glms_vec3_scale(glms_vec3_sub(angular, glms_vec3_scale(t, s->radius[a])),
                                                     s->inv_inertia[a]));
    if (!is_collider(b) && s->inv_inertia[b] > 0.0f)
        s->ang[b] =
            glms_vec3_sub(s->ang[b], glms_vec3_scale(glms_vec3_add(angular, glms_vec3_scale(t, s->radius[b])),
                                                     s->inv_inertia[b]));
}

// Warm start: last step's impulses again. It also sets the contact's place's coefficients for the
// iterations after it: the pair's effective mass and friction, the same floats every iteration
// would compute again (friction mixes the two sides' values, or asks the user's callback).
static void warm_one(kyu_world *w, contact *c, pair_coef *k) {
    if (c->skip) return;
    k->mass = kyu_contact_mass(w, c);
    k->friction = kyu_contact_friction(w, c);
    k->inv_a = w->bodies.inv_mass[c->a];
    k->inv_b = inv_mass_of(w, c->b);
    if (contact_spins(w, c)) {
        k->inv_a = -1.0f; // the spin solve reads the bodies itself
        // Last step's friction impulse, in the tangent plane of this step's normal: a rolling pair's
        // normal turns, and the part of the old impulse along the new normal would push or pull
        // outside the normal impulse's bound (energy from nothing, a bed that churns for ever).
        c->jt = glms_vec3_sub(c->jt, glms_vec3_scale(c->normal, glms_vec3_dot(c->jt, c->normal)));
        apply_spin(w, c, glms_vec3_add(glms_vec3_scale(c->normal, c->jn), c->jt), c->jt, c->jr);
        return;
    }
    apply(w, c, glms_vec3_add(glms_vec3_scale(c->normal, c->jn), c->jt));
}

// The solve of a contact where something turns: the normal impulse as below; friction at the
// contact point, whose velocity includes the spins (v + w x r), through the tangential effective
// mass 1 / (1/mA + 1/mB + rA^2/IA + rB^2/IB), within mu times the normal impulse; then an angular
// impulse against the relative angular velocity, its rolling part (across the normal) within
// rolling_resistance R jn (R = rA rB / (rA + rB), a body's own radius against a collider): a ball
// rests on a slope of tan(theta) <= rolling_resistance, as its weight's torque about the contact
// point, r m g sin(theta), then stays within r (m g cos(theta)) rolling_resistance; its twisting
// part (about the normal) within that plus the torsional friction of the contact's patch,
// 2/3 mu a jn: rigid spheres touch at a point, but a resting pair overlaps by its slop, and two
// spheres overlapping by delta meet on a circle of radius a = sqrt(2 R delta) (9% of R at the
// default slop). Without it a ball spinning about the vertical on a floor would spin for ever and
// keep its pile awake; a rolling ball does not twist, so it rolls as the textbook says.
#define TWIST_FRICTION (2.0f / 3.0f)

// The bounds of a contact's rolling and twisting impulses at its present normal impulse (mu: the
// pair's friction).
static void spin_limits(const kyu_world *w, const contact *c, float mu, float *roll, float *twist) {
    const body_store *s = &w->bodies;
    float ra = s->radius[c->a], R = is_collider(c->b) ? ra : ra * s->radius[c->b] / (ra + s->radius[c->b]);
    *roll = kyu_pair_rolling(w, c->a, c->b) * R * c->jn;
    *twist = *roll;
    if (mu > 0.0f) *twist += TWIST_FRICTION * mu * sqrtf(2.0f * R * kyu_pair_slop(w, c->a, c->b)) * c->jn;
}

void kyu_contact_spin_limits(const kyu_world *w, const contact *c, float *roll, float *twist) {
    spin_limits(w, c, kyu_contact_friction(w, c), roll, twist);
}
static void solve_spin(kyu_world *w, contact *c, float mu) {
    body_store *s = &w->bodies;
    uint32_t a = c->a, b = c->b;
    int col = is_collider(b);
    const collider *cb = col ? &w->colliders.list[b & ~KYU_COLLIDER_BIT] : NULL;
    vec3s n = c->normal;
    float ra = s->radius[a], rb = col ? 0.0f : s->radius[b];
    float ia = s->inv_mass[a], ib = col ? 0.0f : s->inv_mass[b];
    float iia = s->inv_inertia[a], iib = col ? 0.0f : s->inv_inertia[b];
    vec3s vb = col ? kyu_collider_point_velocity(cb, glms_vec3_sub(s->pos[a], glms_vec3_scale(n, ra)), n)
                   : s->vel[b];
    vec3s wb = col ? cb->angular_velocity : s->ang[b];
    vec3s vrel = glms_vec3_sub(s->vel[a], vb);
    float vn = glms_vec3_dot(vrel, n), k = 1.0f / (ia + ib);
    float jn = kyu_maxf(c->jn - (vn - c->target) * k, 0.0f);
    float djn = jn - c->jn;
    c->jn = jn;
    // The contact points' relative velocity (the normal impulse does not change its tangential part).
    vec3s spin = glms_vec3_add(glms_vec3_scale(s->ang[a], iia > 0.0f ? ra : 0.0f),
                               glms_vec3_scale(wb, col ? 0.0f : rb));
    vec3s vc = glms_vec3_add(vrel, glms_vec3_cross(n, spin));
    vec3s vt = glms_vec3_sub(vc, glms_vec3_scale(n, glms_vec3_dot(vc, n)));
    float kt = 1.0f / (ia + ib + ra * ra * iia + rb * rb * iib);
    vec3s jt = glms_vec3_sub(c->jt, glms_vec3_scale(vt, kt));
    float jt_len = glms_vec3_norm(jt), jt_max = mu * c->jn;
    if (jt_len > jt_max) jt = glms_vec3_scale(jt, jt_max / jt_len);
    vec3s dt = glms_vec3_sub(jt, c->jt);
    c->jt = jt;
    apply_spin(w, c, glms_vec3_add(glms_vec3_scale(n, djn), dt), dt, glms_vec3_zero());
    if (!(iia + iib > 0.0f)) return;
    float limit, twist_limit;
    spin_limits(w, c, mu, &limit, &twist_limit);
    if (!(twist_limit > 0.0f) && c->jr.x == 0.0f && c->jr.y == 0.0f && c->jr.z == 0.0f)
        return; // nothing resists turning
    vec3s rel = glms_vec3_sub(s->ang[a], col ? cb->angular_velocity : s->ang[b]);
    vec3s jr = glms_vec3_sub(c->jr, glms_vec3_scale(rel, 1.0f / (iia + iib)));
    float twist = glms_vec3_dot(jr, n);
    vec3s roll = glms_vec3_sub(jr, glms_vec3_scale(n, twist));
    float roll_len = glms_vec3_norm(roll);
    if (roll_len > limit) roll = roll_len > 0.0f ? glms_vec3_scale(roll, limit / roll_len) : roll;
    twist = kyu_maxf(-twist_limit, kyu_minf(twist, twist_limit));
    jr = glms_vec3_add(roll, glms_vec3_scale(n, twist));
    apply_spin(w, c, glms_vec3_zero(), glms_vec3_zero(), glms_vec3_sub(jr, c->jr));
    c->jr = jr;
}

static void solve_one(kyu_world *w, contact *c, pair_coef *coef) {
    if (c->skip) return;
    if (coef->inv_a < 0.0f) {
        solve_spin(w, c, coef->friction);
        return;
    }
    vec3s vrel = glms_vec3_sub(w->bodies.vel[c->a], other_velocity(w, c->b));
    float vn = glms_vec3_dot(vrel, c->normal), k = coef->mass;
    float jn = kyu_maxf(c->jn - (vn - c->target) * k, 0.0f);
    float djn = jn - c->jn;
    c->jn = jn;
    vec3s impulse = glms_vec3_scale(c->normal, djn);
    // Friction: cancel the tangential velocity, within the Coulomb cone of the normal impulse.
    vrel = glms_vec3_add(vrel, glms_vec3_scale(c->normal, djn / k));
    vec3s vt = glms_vec3_sub(vrel, glms_vec3_scale(c->normal, glms_vec3_dot(vrel, c->normal)));
    vec3s jt = glms_vec3_sub(c->jt, glms_vec3_scale(vt, k));
    float jt_len = glms_vec3_norm(jt), jt_max = coef->friction * c->jn;
    if (jt_len > jt_max) jt = glms_vec3_scale(jt, jt_max / jt_len);
    impulse = glms_vec3_add(impulse, glms_vec3_sub(jt, c->jt));
    c->jt = jt;
    apply_masses(w, c, impulse, coef->inv_a, coef->inv_b);
}

static int domain_of(const kyu_world *w, const contact *c) {
    int da = w->solver.slab[c->a];
    return is_collider(c->b) || w->solver.slab[c->b] == da ? da : KYU_SOLVE_DOMAINS;
}

// ---- domains: the solves run slab by slab in parallel, then the pairs across slabs -------------

// The passes of partition, in fixed slices (of the active bodies, then of the contacts).
typedef struct partition_ctx {
    kyu_world *w;
    int slices;
    float lo[KYU_MAX_SLICES][3], hi[KYU_MAX_SLICES][3]; // per slice of bodies: the span of positions
    int axis;
    float base, scale;
    float axis_base[3], axis_scale[3];  // the slabs along each axis
    int candidate[3];                   // whether the slabs may be cut across that axis
    int64_t changes[KYU_MAX_SLICES][3]; // per slice of bodies: slab changes between neighbours
    int at[KYU_MAX_SLICES]
          [KYU_SOLVE_DOMAINS + 1]; // per slice of contacts: its count, then its offset, by domain
} partition_ctx;

static void span_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    partition_ctx *x = ctx;
    const kyu_world *w = x->w;
    for (int sl = begin; sl < end; sl++) {
        // In locals, stored once: slices of two workers share cache lines in x (false sharing made
        // this the costliest task of a 2-worker GAS step).
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int k = kyu_slice_start(w->step.active_count, x->slices, sl);
             k < kyu_slice_start(w->step.active_count, x->slices, sl + 1); k++)
            for (int d = 0; d < 3; d++) {
                float p = w->bodies.pos[w->step.active[k]].raw[d];
                lo[d] = kyu_minf(lo[d], p), hi[d] = kyu_maxf(hi[d], p);
            }
        memcpy(x->lo[sl], lo, sizeof lo);
        memcpy(x->hi[sl], hi, sizeof hi);
    }
}

static uint8_t slab_of(float p, float base, float scale) {
    float f = (p - base) * scale; // clamped before the conversion
    return (uint8_t)(!(f >= 0.0f) ? 0 : f >= (float)KYU_SOLVE_DOMAINS ? KYU_SOLVE_DOMAINS - 1 : (int)f);
}

// For each axis the slabs may be cut across, how often two bodies next to each other in the
// active list (slot order, so in memory) fall in different slabs along it, over every
// CHANGE_SAMPLE-th pair of neighbours (a proportion is all the choice needs).
#define CHANGE_SAMPLE 4
static void changes_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    partition_ctx *x = ctx;
    const kyu_world *w = x->w;
    for (int sl = begin; sl < end; sl++) {
        int64_t changes[3] = {0, 0, 0}; // counted in locals (see span_task)
        int first = kyu_slice_start(w->step.active_count, x->slices, sl);
        first = first > 0 ? first : 1;
        for (int k = (first + CHANGE_SAMPLE - 1) / CHANGE_SAMPLE * CHANGE_SAMPLE;
             k < kyu_slice_start(w->step.active_count, x->slices, sl + 1); k += CHANGE_SAMPLE) {
            vec3s p = w->bodies.pos[w->step.active[k]], q = w->bodies.pos[w->step.active[k - 1]];
            for (int d = 0; d < 3; d++)
                if (x->candidate[d])
                    changes[d] += slab_of(p.raw[d], x->axis_base[d], x->axis_scale[d]) !=
                                  slab_of(q.raw[d], x->axis_base[d], x->axis_scale[d]);
        }
        memcpy(x->changes[sl], changes, sizeof changes);
    }
}

static void slab_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    const partition_ctx *x = ctx;
    kyu_world *w = x->w;
    for (int k = begin; k < end; k++) {
        uint32_t i = w->step.active[k];
        w->solver.slab[i] = slab_of(w->bodies.pos[i].raw[x->axis], x->base, x->scale);
    }
}

static void count_domains_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    partition_ctx *x = ctx;
    const kyu_world *w = x->w;
    for (int sl = begin; sl < end; sl++) {
        int at[KYU_SOLVE_DOMAINS + 1] = {0}; // counted in a local (see span_task)
        for (int i = kyu_slice_start(w->contacts.count, x->slices, sl);
             i < kyu_slice_start(w->contacts.count, x->slices, sl + 1); i++)
            at[domain_of(w, &w->contacts.list[i])]++;
        memcpy(x->at[sl], at, sizeof at);
    }
}

static void place_domains_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    partition_ctx *x = ctx;
    kyu_world *w = x->w;
    for (int sl = begin; sl < end; sl++) {
        int at[KYU_SOLVE_DOMAINS + 1];
        memcpy(at, x->at[sl], sizeof at); // advanced in a local (see span_task)
        for (int i = kyu_slice_start(w->contacts.count, x->slices, sl);
             i < kyu_slice_start(w->contacts.count, x->slices, sl + 1); i++)
            w->solver.order[at[domain_of(w, &w->contacts.list[i])]++] = i;
    }
}

// How high a contact is: its lower body's height along gravity (a collider is below its body).
static float contact_height(const kyu_world *w, const contact *c) {
    const body_store *s = &w->bodies;
    float ha = -glms_vec3_dot(s->pos[c->a], w->down);
    if (is_collider(c->b)) return ha - 2.0f * s->radius[c->a];
    return kyu_minf(ha, -glms_vec3_dot(s->pos[c->b], w->down));
}

// Orders each domain's contacts from the bottom up (a stable counting sort on 1024 height bands
// of the domain, key order within a band): Gauss-Seidel then carries a stack's support up from
// its floor within each pass instead of one layer a pass.
#define HEIGHT_BANDS 1024
static void height_order_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    for (int d = begin; d < end; d++) {
        int first = w->solver.start[d], last = w->solver.start[d + 1];
        if (last - first < 2) continue;
        int *out = w->solver.tmp + w->contacts.count + 1; // the scratch's second half: the heights,
        float lo = INFINITY, hi = -INFINITY;              //   then the order
        for (int k = first; k < last; k++) {
            float h = contact_height(w, &w->contacts.list[w->solver.order[k]]);
            memcpy(&out[k], &h, sizeof h);
            lo = kyu_minf(lo, h), hi = kyu_maxf(hi, h);
        }
        float scale = hi > lo ? (float)(HEIGHT_BANDS - 1) / (hi - lo) : 0.0f;
        int count[HEIGHT_BANDS + 1] = {0};
        for (int k = first; k < last; k++) {
            float h;
            memcpy(&h, &out[k], sizeof h);
            float f = (h - lo) * scale;
            w->solver.tmp[k] = !(f >= 0.0f)               ? 0
                               : f >= (float)HEIGHT_BANDS ? HEIGHT_BANDS - 1
                                                          : (int)f; // its band
            count[w->solver.tmp[k] + 1]++;
        }
        for (int b = 0; b < HEIGHT_BANDS; b++) count[b + 1] += count[b];
        for (int k = first; k < last; k++) out[first + count[w->solver.tmp[k]]++] = w->solver.order[k];
        memcpy(w->solver.order + first, out + first, (size_t)(last - first) * sizeof *out);
    }
}

// Splits the contacts by the slab of space their bodies are in, along the awake bodies' widest axis
// (positions now): a contact whose bodies share a slab belongs to it (a collider takes its body's),
// any other to the boundary. Two slabs never write the same body, so they can be solved at once.
// Within a domain the contacts keep their order. Every pass runs in parallel, in fixed slices.
static int partition(kyu_world *w) {
    if (RESERVE(w->solver.order, w->solver.order_cap, w->contacts.count + 1)) return -1;
    partition_ctx ctx, *x = &ctx; // about 4 KB of the stepping thread's stack
    x->w = w;
    x->slices = kyu_slice_count(w->step.active_count);
    kyu_parallel_for(w, x->slices, 1, span_task, x);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int sl = 0; sl < x->slices; sl++)
        for (int d = 0; d < 3; d++)
            lo[d] = kyu_minf(lo[d], x->lo[sl][d]), hi[d] = kyu_maxf(hi[d], x->hi[sl][d]);
    // Under gravity the slabs are cut across a horizontal axis, so a column stays in one slab and
    // the bottom-up order below can settle it in one pass. Of the axes at least half as wide as
    // the widest (thin slabs would send most pairs to the serial boundary), the one along which
    // bodies next to each other in memory most often share a slab: workers then write cache lines
    // of their own (two workers writing one line take turns with it: PILE's rows of bodies, cut
    // across, made the 2-worker solve 1.4x slower). The widest breaks ties.
    int widest = -1, use[3] = {0, 0, 0}, candidates = 0;
    for (int d = 0; d < 3; d++) {
        x->axis_base[d] = lo[d];
        x->axis_scale[d] = hi[d] > lo[d] ? (float)KYU_SOLVE_DOMAINS / (hi[d] - lo[d]) : 0.0f;
        use[d] = !(w->gravity_on && fabsf(w->down.raw[d]) > 0.7f);
        if (use[d] && (widest < 0 || hi[d] - lo[d] > hi[widest] - lo[widest])) widest = d;
    }
    if (widest < 0) widest = 0, use[0] = 1;
    for (int d = 0; d < 3; d++)
        candidates += x->candidate[d] = use[d] && hi[d] - lo[d] >= 0.5f * (hi[widest] - lo[widest]);
    x->axis = widest;
    if (candidates > 1) {
        int64_t changes[3] = {0, 0, 0};
        kyu_parallel_for(w, x->slices, 1, changes_task, x);
        for (int sl = 0; sl < x->slices; sl++)
            for (int d = 0; d < 3; d++) changes[d] += x->changes[sl][d];
        for (int d = 0; d < 3; d++)
            if (x->candidate[d] && changes[d] < changes[x->axis]) x->axis = d;
    }
    x->base = x->axis_base[x->axis];
    x->scale = x->axis_scale[x->axis];
    kyu_parallel_for(w, w->step.active_count, 4096, slab_task, x);
    x->slices = kyu_slice_count(w->contacts.count);
    kyu_parallel_for(w, x->slices, 1, count_domains_task, x);
    int *start = w->solver.start, total = 0;
    for (int d = 0; d <= KYU_SOLVE_DOMAINS; d++) { // domain by domain, slice by slice
        start[d] = total;
        for (int sl = 0; sl < x->slices; sl++) {
            int n = x->at[sl][d];
            x->at[sl][d] = total;
            total += n;
        }
    }
    start[KYU_SOLVE_DOMAINS + 1] = total;
    kyu_parallel_for(w, x->slices, 1, place_domains_task, x);
    if (w->gravity_on) {
        if (RESERVE(w->solver.tmp, w->solver.tmp_cap, 2 * (w->contacts.count + 1))) return -1;
        kyu_parallel_for(w, KYU_SOLVE_DOMAINS + 1, 1, height_order_task, w);
    }
    return 0;
}

// A solve of one contact of the velocity solve, with its place's coefficients (pair_coef).
typedef void contact_fn(kyu_world *w, contact *c, pair_coef *k);

typedef struct domain_pass {
    kyu_world *w;
    contact_fn *fn;
    pair_coef *coef; // per place in the order (in solver.tmp)
} domain_pass;

// The contacts of a domain are read in the solver's order, scattered over the cache: each is asked
// for from memory a few places ahead (its bodies' velocities a little later, once it has come), so
// the solve does not wait for it (the escape, which reads positions, asks for the contact only).
// A hint only: the same arithmetic in the same order.
#define AHEAD 16
static void prefetch_contact(const kyu_world *w, int k, int last, int velocities) {
    if (k + AHEAD < last) KYU_PREFETCH(&w->contacts.list[w->solver.order[k + AHEAD]]);
    if (velocities && k + AHEAD / 2 < last) {
        const contact *c = &w->contacts.list[w->solver.order[k + AHEAD / 2]];
        KYU_PREFETCH(&w->bodies.vel[c->a], 1);
        if (!is_collider(c->b)) KYU_PREFETCH(&w->bodies.vel[c->b], 1);
    }
}

static void domain_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    domain_pass *p = ctx;
    kyu_world *w = p->w;
    for (int d = begin; d < end; d++)
        for (int k = w->solver.start[d], last = w->solver.start[d + 1]; k < last; k++) {
            prefetch_contact(w, k, last, 1);
            p->fn(w, &w->contacts.list[w->solver.order[k]], &p->coef[k]);
        }
}

// A pass of a domain task over every contact: the slabs (in parallel when it pays), then the
// boundary, which touches bodies of two slabs.
static void run_domains(kyu_world *w, kyu_task_fn *task, void *ctx) {
    if (w->contacts.count >= 4096)
        kyu_parallel_for(w, KYU_SOLVE_DOMAINS, 1, task, ctx);
    else
        task(0, KYU_SOLVE_DOMAINS, 0, ctx);
    task(KYU_SOLVE_DOMAINS, KYU_SOLVE_DOMAINS + 1, 0, ctx);
}

// One pass of fn over every contact. The coefficients live in the solver's scratch from the
// velocity solve's warm start on.
static void domain_pass_run(kyu_world *w, contact_fn *fn) {
    domain_pass p = {.w = w, .fn = fn, .coef = (pair_coef *)(void *)w->solver.tmp};
    run_domains(w, domain_task, &p);
}

// The contacts in fixed slices (kyu_slice_count), for the passes that gather something per slice.
typedef struct contact_slices {
    kyu_world *w;
    int slices;
    int found[KYU_MAX_SLICES];   // per slice: contacts marked
    float worst[KYU_MAX_SLICES]; // per slice: the deepest overlap
} contact_slices;

// Which contacts the solver owns, decided at the start of the step, before this step's forces: the
// kept pairs (within the margin) that would meet no faster than a resting pair (kyu_rest_speed). A
// pair pressed together by gravity meets at sqrt(vn^2 + 2 |g_n| gap) (closing now, or parting and
// coming back, from its gap), one that is not at its closing speed. Every other pair is in the air
// or closing fast: it is the impact queue's, which finds when it meets along its exact path and
// bounces it exactly in time and speed (a ball bouncing lower than the margin meets its floor
// faster than a resting pair unless its bounce is lower than threshold^2 / 2g).
// The solver allows them no approach beyond what closes the gap; gravity's impulse of this step is
// never an approach, it goes to the contacts that hold the body up. Every other pair is the impact
// queue's, which finds when it meets along its exact path: one closing fast is an impact (at once
// if touching), one apart lands when it lands, not sooner (a contact that stopped it at the
// surface by the end of the step would shift its impact in time and speed).
#define NOT_HELD (1ull << 63) // in contacts.owned: the solver does not hold the pair (a < 2^31)

static void classify_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    contact_slices *x = ctx;
    kyu_world *w = x->w;
    float dt = w->def.fixed_dt, rest = kyu_rest_speed(w);
    for (int sl = begin; sl < end; sl++)
        for (int i = kyu_slice_start(w->contacts.count, x->slices, sl);
             i < kyu_slice_start(w->contacts.count, x->slices, sl + 1); i++) {
            contact *c = &w->contacts.list[i];
            c->gap = contact_geometry(w, c, &c->normal);
            vec3s vrel = glms_vec3_sub(w->bodies.vel[c->a], other_velocity(w, c->b));
            float vn = glms_vec3_dot(vrel, c->normal),
                  gb = is_collider(c->b) ? 0.0f : kyu_body_kind(&w->bodies, c->b)->gravity_scale;
            float gn = (kyu_body_kind(&w->bodies, c->a)->gravity_scale - gb) *
                       glms_vec3_dot(w->def.gravity, c->normal);
            float meet = gn < 0.0f ? sqrtf(vn * vn - 2.0f * gn * kyu_maxf(c->gap, 0.0f)) : -vn;
            c->skip = c->sensor || c->gap > kyu_pair_margin(w, c->a, c->b) || meet > rest;
            c->mark = 0;
            w->contacts.owned[i] = kyu_contact_key(c) | (c->skip ? NOT_HELD : 0);
            if (c->skip) {
                c->jn = 0.0f;
                c->jt = c->jr = glms_vec3_zero();
                continue;
            }
            // Closing what is left of the gap, but never faster than a resting pair may: an approach
            // the impact queue would bounce would be gravity's impulse turned into a bounce.
            c->target = -kyu_minf(kyu_maxf(c->gap, 0.0f) / dt, rest);
        }
}

int kyu_contacts_classify(kyu_world *w) {
    if (RESERVE(w->contacts.owned, w->contacts.owned_cap, w->contacts.count + 1)) return -1;
    contact_slices x = {.w = w, .slices = kyu_slice_count(w->contacts.count)};
    kyu_parallel_for(w, x.slices, 1, classify_task, &x);
    for (int k = 0; k < w->step.active_count; k++) w->contacts.run[w->step.active[k]] = -1;
    for (int i = 0; i < w->contacts.count; i++)
        if (i == 0 || w->contacts.list[i - 1].a != w->contacts.list[i].a)
            w->contacts.run[w->contacts.list[i].a] = i;
    return 0;
}

// Whether pair (a, b) (either order; b may be a collider) is one the solver holds this step: a
// slow approach it leaves is the solver's and the escape's to mend, not an impact.
int kyu_contacts_solver_owns(const kyu_world *w, uint32_t a, uint32_t b) {
    if (!(b & KYU_COLLIDER_BIT) && b < a) {
        uint32_t t = a;
        a = b, b = t;
    }
    const uint64_t *owned = w->contacts.owned;
    for (int k = w->contacts.run[a]; k >= 0 && k < w->contacts.count && (owned[k] & ~NOT_HELD) >> 32 == a;
         k++)
        if ((uint32_t)owned[k] == b) return !(owned[k] & NOT_HELD);
    return 0;
}

// The last pass under gravity, bottom up (shock propagation, Guendelman et al. 2003): a body resting
// on one that is not rising into it takes no approach at all. The iterations of a deep pile never
// quite carry the support of its floor to its top, and what they leave would sink every step (a
// frictionless pile of 17 layers jittered at g dt for ever); here each body stops on what is
// under it, which has already stopped on what is under that. The upper body only slows: no
// energy can appear. The impulse counts toward the contact's, so the body is held this step.
static void shock_one(kyu_world *w, contact *c, pair_coef *k) {
    (void)k;
    if (c->skip || c->sensor) return;
    body_store *s = &w->bodies;
    float up = -glms_vec3_dot(c->normal, w->down); // > 0: a above b
    if (!(fabsf(up) > 0.5f) || (up < 0.0f && is_collider(c->b))) return;
    uint32_t upper = up > 0.0f ? c->a : c->b, lower = up > 0.0f ? c->b : c->a;
    vec3s n = up > 0.0f ? c->normal : glms_vec3_negate(c->normal); // from lower to upper
    vec3s v_lower = other_velocity(w, lower);
    if (glms_vec3_dot(v_lower, n) > 0.0f) return; // rising into it: the iterations' business
    float vn = glms_vec3_dot(glms_vec3_sub(s->vel[upper], v_lower), n); // the contact's vn
    if (!(vn < c->target)) return;
    float dv = c->target - vn;
    s->vel[upper] = glms_vec3_add(s->vel[upper], glms_vec3_scale(n, dv));
    c->jn += dv * s->mass[upper];
}

// A body the solver pushed this step moves in a straight line with its solved velocity (which
// already holds this step's gravity). Every other body takes its gravity back out of the velocity
// and flies the exact parabola instead, so free flight and bounces keep their energy.
static void gravity_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    for (int k = begin; k < end; k++) {
        uint32_t i = w->step.active[k];
        w->step.accel[i] = glms_vec3_scale(w->def.gravity, kyu_body_kind(&w->bodies, i)->gravity_scale);
    }
}

static void take_back_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    for (int k = begin; k < end; k++) {
        uint32_t i = w->step.active[k];
        w->bodies.vel[i] =
            glms_vec3_sub(w->bodies.vel[i], glms_vec3_scale(w->step.accel[i], w->def.fixed_dt));
    }
}

// A contact that pushed holds both its bodies: their gravity stays in the velocity.
static void support_one(kyu_world *w, contact *c, pair_coef *k) {
    (void)k;
    if (c->skip || !(c->jn > 0.0f)) return;
    w->step.accel[c->a] = glms_vec3_zero();
    if (!is_collider(c->b)) w->step.accel[c->b] = glms_vec3_zero();
}

// The last pass under gravity, which also marks the support: the support reads only the contact's
// own impulse, final once its shock is applied (no later pass changes it), and the shock reads no
// acceleration, so the two in one pass give what two passes gave.
static void shock_support_one(kyu_world *w, contact *c, pair_coef *k) {
    shock_one(w, c, k);
    support_one(w, c, k);
}

int kyu_contacts_solve_velocities(kyu_world *w) {
    // Warm start with last step's impulses (a resting pile starts from its answer), only after
    // every target is set: a target read after another contact's warm start would see a bounce.
    if (partition(w)) return -1;
    if (RESERVE(w->solver.tmp, w->solver.tmp_cap, 4 * (w->contacts.count + 1))) return -1; // pair_coef
    _Static_assert(sizeof(pair_coef) == 4 * sizeof(int), "a place's coefficients take four ints of tmp");
    domain_pass_run(w, warm_one);
    for (int it = 0; it < w->def.solver_iterations; it++) domain_pass_run(w, solve_one);
    // Which bodies a contact holds (kyu_contacts_mark_supported), found in the last pass.
    kyu_parallel_for(w, w->step.active_count, 4096, gravity_task, w);
    domain_pass_run(w, w->gravity_on ? shock_support_one : support_one);
    return 0;
}

// Runs after kyu_contacts_solve_velocities, whose last pass found which bodies a contact holds:
// every other body takes its gravity back. Then the solver's order and its scratch are idle until
// the escape partitions the new contacts: given back if large.
void kyu_contacts_mark_supported(kyu_world *w) {
    kyu_parallel_for(w, w->step.active_count, 4096, take_back_task, w);
    GIVE_BACK(w->solver.order, w->solver.order_cap);
    GIVE_BACK(w->solver.tmp, w->solver.tmp_cap);
}

// The contacts at the end of the step: every candidate pair closer than the margin. Pairs that were
// kept last step carry their impulses (warm start) and, for a centre inside a box, their normal.
// Kept: pairs closer than the margin, and pairs that had an impact this step (they touched, even if
// they are apart again by its end: the next step then reports their end).
//
// The search runs in two passes, so the new contacts are written once, each in its final place, and
// the new list takes no more room than it holds (a region per candidate pair was a quarter larger on
// a pile): the first pass decides which candidates are kept and which touch (flags beside the
// adjacency), the second fills the kept ones in.
enum { PAIR_HIT = 1, PAIR_KEPT = 2, PAIR_TOUCHING = 4 };

// Whether candidate (a, b) is kept, and whether it touches: PAIR_KEPT | PAIR_TOUCHING, or 0.
static uint8_t candidate_flags(const kyu_world *w, uint32_t a, uint32_t b, int hit) {
    contact c;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.b = b;
    int sensor = kyu_pair_is_sensor(w, a, b);
    float gap = contact_geometry(w, &c, &c.normal);
    if (!(gap < kyu_pair_margin(w, a, b)) && !hit) return 0;
    int touching = hit || (sensor ? gap <= 0.0f : gap <= kyu_pair_slop(w, a, b));
    return (uint8_t)(PAIR_KEPT | (touching ? PAIR_TOUCHING : 0));
}

static int end_event(kyu_world *w, const contact *c) {
    return kyu_event_push(&w->events.end, &w->events.end_count, &w->events.end_cap,
                          kyu_contact_event_of(w, c));
}

// The first of last step's contacts (sorted by key) whose body a is not below slot a.
static int first_contact_of(const kyu_world *w, uint32_t a) {
    int lo = 0, hi = w->contacts.count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (w->contacts.list[mid].a < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// Pass one: the partners of active body k that come after it (higher slots, then colliders), each
// flagged kept and touching or not beside its adjacency entry; how many are kept. Each entry is a's
// own (the other body's copy of the pair is in the other's list), so slices never share one.
// Also where a's run of last step's contacts starts (find.run_start, -1: none) and how long it is
// (find.offset, until the serial sum makes it an offset): a slice finds its first run by bisection
// and walks on from there, as the active list and the cache are both in slot order.
static void count_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    if (begin >= end) return; // a job system may hand out an empty range
    int o = first_contact_of(w, w->step.active[begin]);
    for (int k = begin; k < end; k++) {
        uint32_t a = w->step.active[k];
        KYU_ASSERT(k == 0 || w->step.active[k - 1] < a); // the merges need key order
        int n = 0;
        for (kyu_partner_iter it = kyu_partners(&w->pairs, a); kyu_next_partner(&w->pairs, &it);)
            if (it.partner > a) {
                *it.hit |= candidate_flags(w, a, it.partner, *it.hit & PAIR_HIT);
                n += (*it.hit & PAIR_KEPT) != 0;
            }
        w->step.find.count[k] = n;
        for (; o < w->contacts.count && w->contacts.list[o].a < a; o++) {
        } // a body no longer active
        int run = o;
        for (; o < w->contacts.count && w->contacts.list[o].a == a; o++) {
        }
        w->step.find.run_start[a] = o > run ? run : -1;
        w->step.find.offset[k] = o - run;
    }
}

// Whether old contact o is still in body a's run (o = -1: a had none).
static int in_run(const kyu_world *w, int o, uint32_t a) {
    return o >= 0 && o < w->contacts.count && w->contacts.list[o].a == a;
}

// Pass two: body k's kept contacts, in key order, into their place in contacts_new (any split, same
// result). Their number is known from pass one, so find.count[k] is free and takes how many begin or
// end events body k has (begins, ends of kept pairs, last step's touching pairs not kept): the
// serial report visits only bodies that have some.
static void fill_task(int begin, int end, int worker, void *ctx) {
    kyu_world *w = ctx;
    uint64_t *later = w->step.worker_scratch[worker];
    for (int k = begin; k < end; k++) {
        uint32_t a = w->step.active[k];
        int n = 0;
        for (kyu_partner_iter it = kyu_partners(&w->pairs, a); kyu_next_partner(&w->pairs, &it);)
            if (it.partner > a && (*it.hit & PAIR_KEPT))
                later[n++] = (uint64_t)it.partner << 1 | ((*it.hit & PAIR_TOUCHING) != 0);
        KYU_ASSERT(n == w->step.find.count[k]);
        for (int i = 1; i < n; i++) // insertion sort: a body has a handful of partners
            for (int j = i; j > 0 && later[j - 1] > later[j]; j--) {
                uint64_t t = later[j];
                later[j] = later[j - 1];
                later[j - 1] = t;
            }
        // Last step's contacts of a (a run of the old cache, also sorted by partner): a pair kept
        // carries its impulses and its normal (the normal decides the gap of a centre in a box).
        contact *out = w->contacts.next + w->step.find.offset[k];
        int o = w->step.find.run_start[a], events = 0;
        for (int i = 0; i < n; i++) {
            contact *c = &out[i];
            memset(c, 0, sizeof *c);
            c->a = a;
            c->b = (uint32_t)(later[i] >> 1);
            c->sensor = (uint8_t)kyu_pair_is_sensor(w, a, c->b);
            c->touching = (uint8_t)(later[i] & 1);
            for (; in_run(w, o, a) && w->contacts.list[o].b < c->b; o++)
                events += w->contacts.list[o].touching;
            if (in_run(w, o, a) && w->contacts.list[o].b == c->b) {
                const contact *old = &w->contacts.list[o++];
                c->mark = old->touching;
                c->jn = old->jn;
                c->jt = old->jt;
                c->jr = old->jr;
                c->normal = old->normal;
            }
            c->gap = contact_geometry(w, c, &c->normal);
            events += c->touching != c->mark;
        }
        for (; in_run(w, o, a); o++) events += w->contacts.list[o].touching;
        w->step.find.count[k] = events;
    }
}

// Body a's begins and ends in key order: its kept contacts (new) merged with its run of last step's
// (old). A contact of last step whose key is passed without a match has ended.
static int report_body(kyu_world *w, uint32_t a, const contact *c, int n) {
    int o = w->step.find.run_start[a];
    for (int i = 0; i < n; i++, c++) {
        for (; in_run(w, o, a) && w->contacts.list[o].b < c->b; o++)
            if (w->contacts.list[o].touching && end_event(w, &w->contacts.list[o])) return -1;
        if (in_run(w, o, a) && w->contacts.list[o].b == c->b) o++;
        if (c->touching && !c->mark &&
            kyu_event_push(&w->events.begin, &w->events.begin_count, &w->events.begin_cap,
                           kyu_contact_event_of(w, c)))
            return -1;
        if (!c->touching && c->mark && end_event(w, c)) return -1;
    }
    for (; in_run(w, o, a); o++)
        if (w->contacts.list[o].touching && end_event(w, &w->contacts.list[o])) return -1;
    return 0;
}

static int find_contacts(kyu_world *w) {
    // Each body's kept partners after it, in key order: the new contacts come out sorted by (a, b).
    // The island pass's per-slot record is free until the end of the step: it holds the old runs.
    kyu_parallel_for(w, w->step.active_count, 1024, count_task, w);
    int total = 0, most = 0, old = 0;
    for (int k = 0; k < w->step.active_count; k++) {
        old += w->step.find.offset[k];
        w->step.find.offset[k] = total;
        total += w->step.find.count[k];
        if (w->step.find.count[k] > most) most = w->step.find.count[k];
    }
    int64_t budget = (int64_t)w->def.contact_capacity_per_body * w->step.active_count + 4096;
    if (total > budget) return KYU_FAIL_CONTACTS; // before the memory is spent
    if (RESERVE(w->contacts.next, w->contacts.next_cap, total + 1)) return -1;
    for (int i = 0; i < w->def.worker_count; i++)
        if (RESERVE(w->step.worker_scratch[i], w->step.worker_scratch_cap[i], most + 1)) return -1;
    kyu_parallel_for(w, w->step.active_count, 256, fill_task, w);
    // Begins and ends in key order, body by body (keys are (a, b)), only where fill_task counted
    // some. Every contact of last step is an active body's: a body that fell asleep took its
    // contacts to its island, a removed body's left the cache at the start of the step.
    KYU_ASSERT(old == w->contacts.count);
    (void)old;
    for (int k = 0; k < w->step.active_count; k++) {
        if (w->step.find.count[k] == 0) continue;
        int n = (k + 1 < w->step.active_count ? w->step.find.offset[k + 1] : total) - w->step.find.offset[k];
        if (report_body(w, w->step.active[k], w->contacts.next + w->step.find.offset[k], n)) return -1;
    }
    w->contacts.next_count = total;
    kyu_contacts_swap(w, w->contacts.next_count);
    w->stats.contacts = w->contacts.count;
    return 0;
}

int kyu_contacts_find(kyu_world *w) {
    size_t slots = (size_t)w->bodies.high;
    w->step.find.run_start = kyu_arena_take(&w->step.arena, slots * sizeof *w->step.find.run_start);
    w->step.find.offset = kyu_arena_take(&w->step.arena, slots * sizeof *w->step.find.offset);
    w->step.find.count = kyu_arena_take(&w->step.arena, slots * sizeof *w->step.find.count);
    int failed = find_contacts(w);
    kyu_arena_reset(&w->step.arena);
    w->step.find.run_start = w->step.find.offset = w->step.find.count = NULL;
    return failed;
}

// Whether both sides of a contact still exist. Removing a body or a collider only counts it
// (w->contacts.removed): its contacts stay where they are until kyu_contacts_purge at the start of the next
// step, so every reader in between (kyu_body_get_contacts, the debug draw) asks this first.
int kyu_contact_live(const kyu_world *w, const contact *c) {
    const body_store *s = &w->bodies;
    if (c->a >= (uint32_t)s->high || !s->alive[c->a]) return 0;
    if (is_collider(c->b)) {
        uint32_t k = c->b & ~KYU_COLLIDER_BIT;
        return k < (uint32_t)w->colliders.high && w->colliders.list[k].alive;
    }
    return c->b < (uint32_t)s->high && s->alive[c->b];
}

// Drops the contacts of what was removed since the last step, reporting the end of those that
// touched. Removing a body wakes its island and removing a collider wakes every island with a
// contact on it (kyu_islands_wake_collider_contacts), and an island's contacts never name a body
// outside it (kyu_islands_update), so after the woken contacts are merged every such contact is in
// the cache: one pass over it, however many were removed.
int kyu_contacts_purge(kyu_world *w) {
    if (w->contacts.removed == 0) return 0;
    if (kyu_islands_flush_woken(w)) return -1;
    int n = 0;
    for (int i = 0; i < w->contacts.count; i++) {
        const contact *c = &w->contacts.list[i];
        if (kyu_contact_live(w, c))
            w->contacts.list[n++] = *c;
        else if (c->touching && end_event(w, c))
            return -1;
    }
    w->contacts.count = n;
    w->contacts.removed = 0; // no contact names a slot in limbo any more (kyu_world_step frees them)
    return 0;
}

// A candidate contact of fresh body f with partner x (a body slot or a collider code), staged in
// the slice's list if they are closer than the margin and not yet a pair. Not touching yet: the
// step's contact search then reports its begin like any other.
static int stage_fresh(const kyu_world *w, uint32_t f, uint32_t x, fresh_slice *out) {
    contact c;
    memset(&c, 0, sizeof c);
    c.a = is_collider(x) || f < x ? f : x;
    c.b = is_collider(x) || f < x ? x : f;
    if (!kyu_pair_allowed(w, c.a, c.b)) return 0;
    c.gap = contact_geometry(w, &c, &c.normal);
    if (!(c.gap < kyu_pair_margin(w, c.a, c.b))) return 0;
    int lo = 0, hi = w->contacts.count; // already kept (a teleported body's old pairs stay)
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        const contact *m = &w->contacts.list[mid];
        if (m->a < c.a || (m->a == c.a && m->b < c.b))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < w->contacts.count && w->contacts.list[lo].a == c.a && w->contacts.list[lo].b == c.b) return 0;
    c.sensor = (uint8_t)kyu_pair_is_sensor(w, c.a, c.b);
    if (RESERVE(out->found, out->cap, out->count + 1)) return -1;
    out->found[out->count++] = c;
    return 0;
}

typedef struct fresh_pass {
    kyu_world *w;
    int slices;
    int64_t budget;             // contacts all the slices may stage together
    atomic_int_fast64_t staged; // what they staged so far
} fresh_pass;

// The contacts of a slice of the fresh bodies, in its own list: the query grid is only read.
static void fresh_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    fresh_pass *x = ctx;
    kyu_world *w = x->w;
    const body_store *s = &w->bodies;
    for (int sl = begin; sl < end; sl++) {
        fresh_slice *out = &w->contacts.fresh_out[sl];
        out->count = out->failed = 0;
        for (int k = kyu_slice_start(w->contacts.fresh_count, x->slices, sl);
             k < kyu_slice_start(w->contacts.fresh_count, x->slices, sl + 1) && !out->failed; k++) {
            if (atomic_load_explicit(&x->staged, memory_order_relaxed) > x->budget) { // another slice's
                out->failed = KYU_FAIL_CONTACTS;
                break;
            }
            uint32_t f = w->contacts.fresh[k];
            if (f >= (uint32_t)s->high || !s->alive[f] || !s->awake[f]) continue;
            int before = out->count;
            for (int i = 0; i < w->colliders.high && !out->failed; i++)
                if (w->colliders.list[i].alive)
                    out->failed = stage_fresh(w, f, KYU_COLLIDER_BIT | (uint32_t)i, out);
            int n = out->failed ? 0
                                : kyu_query_bodies_near(w, s->pos[f], s->radius[f] + kyu_body_margin(w, f),
                                                        &out->near, &out->near_cap);
            if (n < 0) out->failed = -1;
            for (int j = 0; j < n && !out->failed; j++)
                if (out->near[j] != f && s->awake[out->near[j]])
                    out->failed = stage_fresh(w, f, out->near[j], out);
            // Every slice stops soon after their sum passes the budget, before more memory is
            // spent. Whether the search fails depends on the sum alone (kyu_contacts_add_fresh).
            int64_t added = out->count - before;
            if (!out->failed &&
                atomic_fetch_add_explicit(&x->staged, added, memory_order_relaxed) + added > x->budget)
                out->failed = KYU_FAIL_CONTACTS;
        }
    }
}

// Bodies created or teleported since the last step find their contacts before anything moves, so
// a ball created on the floor is held by it (and its friction acts) from its first step. Runs at
// the start of the step, when the woken list is empty: the new pairs go through it into the cache.
// The fresh bodies are cut into fixed slices that search at once (a scene's first step searches
// for every body); the lists join in slice order and are sorted by pair, so the result is the
// same for any worker count.
int kyu_contacts_add_fresh(kyu_world *w) {
    if (w->contacts.fresh_count == 0) return 0;
    if (kyu_query_ready(w)) return -1;
    fresh_pass x = {.w = w, .slices = kyu_slice_count(w->contacts.fresh_count)};
    x.budget = (int64_t)w->def.contact_capacity_per_body * w->bodies.count + 4096;
    atomic_init(&x.staged, 0);
    int cap = w->contacts.fresh_out_cap;
    if (RESERVE(w->contacts.fresh_out, cap, x.slices)) return -1;
    for (int k = w->contacts.fresh_out_cap; k < cap; k++)
        memset(&w->contacts.fresh_out[k], 0, sizeof w->contacts.fresh_out[k]);
    w->contacts.fresh_out_cap = cap;
    kyu_parallel_for(w, x.slices, 1, fresh_task, &x);
    int failed = 0;
    int64_t total = 0;
    for (int sl = 0; sl < x.slices; sl++) {
        const fresh_slice *out = &w->contacts.fresh_out[sl];
        if (out->failed && !failed) failed = out->failed;
        total += out->count;
    }
    if (!failed && (total > x.budget || total > INT32_MAX / 2)) failed = KYU_FAIL_CONTACTS; // counts are ints
    int first = w->islands.woken_count;
    if (!failed && RESERVE(w->islands.woken, w->islands.woken_cap, first + (int)total)) failed = -1;
    for (int sl = 0; sl < x.slices && !failed; sl++) {
        const fresh_slice *out = &w->contacts.fresh_out[sl];
        if (out->count == 0) continue; // its array may never have been allocated
        memcpy(w->islands.woken + w->islands.woken_count, out->found,
               (size_t)out->count * sizeof *out->found);
        w->islands.woken_count += out->count;
    }
    for (int sl = 0; sl < x.slices; sl++) {
        fresh_slice *out = &w->contacts.fresh_out[sl];
        GIVE_BACK(out->found, out->cap); // the next burst of new bodies may be a long way off
        GIVE_BACK(out->near, out->near_cap);
    }
    if (failed) return failed;
    // The query grid built for a burst of new bodies (a scene's first step) is not kept: it would
    // stay resident as large as the broadphase. A trickle (a bullet a frame) keeps it for the next.
    if (w->contacts.fresh_count > w->bodies.count / 8) kyu_query_trim(w);
    w->contacts.fresh_count = 0;
    if (w->islands.woken_count == first) return kyu_islands_flush_woken(w); // none (and maybe no array)
    // Two fresh bodies found their pair twice: keep one.
    kyu_contacts_sort(w->islands.woken + first, w->islands.woken_count - first);
    int n = first;
    for (int i = first; i < w->islands.woken_count; i++)
        if (n == first || w->islands.woken[i].a != w->islands.woken[n - 1].a ||
            w->islands.woken[i].b != w->islands.woken[n - 1].b)
            w->islands.woken[n++] = w->islands.woken[i];
    w->islands.woken_count = n;
    return kyu_islands_flush_woken(w);
}

// Calls visit for every live contact: the cache, the islands woken since the last step, and the
// sleeping islands. The one walk over every contact list, for readers outside the step.
void kyu_contacts_each(const kyu_world *w, kyu_contact_visit_fn *visit, void *ctx) {
    for (int k = 0; k < w->contacts.count; k++)
        if (kyu_contact_live(w, &w->contacts.list[k])) visit(w, &w->contacts.list[k], ctx);
    for (int k = 0; k < w->islands.woken_count; k++)
        if (kyu_contact_live(w, &w->islands.woken[k])) visit(w, &w->islands.woken[k], ctx);
    for (int id = 0; id < w->islands.high; id++) {
        const sleep_island *isl = &w->islands.list[id];
        if (isl->body_count == 0) continue;
        uint32_t b0 = isl->bodies[0]; // a freed record's bodies are awake or in another record
        if (!w->bodies.alive[b0] || w->bodies.awake[b0] || w->bodies.island[b0] != (uint32_t)id) continue;
        for (int k = 0; k < isl->contact_count; k++)
            if (kyu_contact_live(w, &isl->contacts[k])) visit(w, &isl->contacts[k], ctx);
    }
}

static int push_out(kyu_world *w, contact *c) {
    if (c->sensor) return 0;
    body_store *s = &w->bodies;
    if (is_collider(c->b) && w->colliders.list[c->b & ~KYU_COLLIDER_BIT].type == KYU_SHAPE_MESH) {
        const collider *col = &w->colliders.list[c->b & ~KYU_COLLIDER_BIT];
        vec3s p =
            kyu_mesh_push_out(col, col->box.center, s->pos[c->a], s->radius[c->a], kyu_body_slop(w, c->a));
        int moved = memcmp(&p, &s->pos[c->a], sizeof p) != 0;
        s->pos[c->a] = p;
        return moved;
    }
    vec3s n;
    float gap = contact_geometry(w, c, &n);
    float depth = -gap - kyu_pair_slop(w, c->a, c->b);
    if (!(depth > 0.0f)) return 0;
    float ia = s->inv_mass[c->a], ib = is_collider(c->b) ? 0.0f : s->inv_mass[c->b];
    // Shock propagation (Guendelman et al. 2003): under gravity, a pair one above the other is
    // mended by lifting the upper body only, so an escape never pushes a body down into what holds
    // it, and a stack of any depth is mended from the bottom up instead of sinking into its floor.
    float up = w->gravity_on ? -glms_vec3_dot(n, w->down) : 0.0f; // > 0: a is above b
    if (up > 0.5f)
        ib = 0.0f;
    else if (up < -0.5f && !is_collider(c->b))
        ia = 0.0f;
    float share = depth / (ia + ib);
    s->pos[c->a] = glms_vec3_add(s->pos[c->a], glms_vec3_scale(n, share * ia));
    if (!is_collider(c->b)) s->pos[c->b] = glms_vec3_sub(s->pos[c->b], glms_vec3_scale(n, share * ib));
    return 1;
}

// Every contact's gap and normal after the escape, and the deepest overlap left in each slice. A
// contact whose bodies the escape did not move keeps the gap and normal the contact search gave it:
// contact_geometry reads only the two positions and, for a centre inside a box, the contact's
// normal, which the search already set to the one it keeps. The exception is a contact the search
// met deep in a box (gap below -radius) with no normal yet: it is computed again.
typedef struct final_gaps {
    contact_slices slices;
    const uint16_t *moved_in; // per body: the escape pass it last moved in (0: none)
} final_gaps;

static int escape_moved(const kyu_world *w, const uint16_t *moved_in, const contact *c) {
    if (moved_in[c->a]) return 1;
    if (!is_collider(c->b)) return moved_in[c->b] != 0;
    return w->colliders.list[c->b & ~KYU_COLLIDER_BIT].type == KYU_SHAPE_BOX &&
           c->gap < -w->bodies.radius[c->a];
}

static void final_gaps_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    final_gaps *x = ctx;
    kyu_world *w = x->slices.w;
    for (int sl = begin; sl < end; sl++) {
        float worst = 0.0f;
        for (int i = kyu_slice_start(w->contacts.count, x->slices.slices, sl);
             i < kyu_slice_start(w->contacts.count, x->slices.slices, sl + 1); i++) {
            contact *c = &w->contacts.list[i];
            if (escape_moved(w, x->moved_in, c)) c->gap = contact_geometry(w, c, &c->normal);
            if (!c->sensor && -c->gap > worst) worst = -c->gap;
        }
        x->slices.worst[sl] = worst;
    }
}

// The escape's passes skip what cannot move. A contact that pushed nothing in one pass pushes
// nothing in the next unless one of its bodies moved since it was looked at: its answer depends on
// the two positions only (a collider stands still through the escape, and the normal a box keeps is
// not changed here). So each body keeps the pass it last moved in, counted from 1, and a contact
// left quiet by pass p - 1 is looked at again in pass p only if a body of its moved in pass p - 1
// (before or after it) or in pass p so far. The passes give the same positions bit for bit as
// passes over every contact; in a resting heap nearly every contact is quiet after the first.
typedef struct escape_pass {
    kyu_world *w;
    uint16_t pass;                    // this pass, from 1
    uint16_t *moved_in;               // per body: the pass it last moved in (0: none yet)
    uint32_t *pair;                   // per place in the order: its contact's a and b (the first
                                      //   pass writes them: the later ones skip without the contact)
    uint8_t *quiet;                   // per place in the order: pushed nothing when last looked at
    int moved[KYU_SOLVE_DOMAINS + 1]; // per domain: whether the pass moved a body
} escape_pass;

static void escape_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    escape_pass *p = ctx;
    kyu_world *w = p->w;
    uint16_t since = (uint16_t)(p->pass - 1);
    for (int d = begin; d < end; d++) {
        int moved = 0;
        for (int k = w->solver.start[d], last = w->solver.start[d + 1]; k < last; k++) {
            uint32_t *ab = &p->pair[2 * k];
            if (p->pass == 1) {
                prefetch_contact(w, k, last, 0);
                const contact *c = &w->contacts.list[w->solver.order[k]];
                ab[0] = c->a, ab[1] = c->b;
            } else if (p->quiet[k] && p->moved_in[ab[0]] < since &&
                       !(!is_collider(ab[1]) && p->moved_in[ab[1]] >= since)) {
                continue;
            }
            int m = push_out(w, &w->contacts.list[w->solver.order[k]]);
            p->quiet[k] = (uint8_t)!m;
            if (!m) continue;
            moved = 1;
            p->moved_in[ab[0]] = p->pass;
            if (!is_collider(ab[1])) p->moved_in[ab[1]] = p->pass;
        }
        p->moved[d] = moved;
    }
}

// The scratch holds the pairs (two ints a place), then the quiet flags (a byte a place).
static int escape_passes(kyu_world *w, uint16_t *moved_in) {
    if (w->def.solver_iterations <= 0) return 0;
    int n = w->contacts.count;
    if (RESERVE(w->solver.tmp, w->solver.tmp_cap, 2 * n + n / (int)sizeof(int) + 1)) return -1;
    escape_pass p = {.w = w,
                     .pair = (uint32_t *)(void *)w->solver.tmp,
                     .quiet = (uint8_t *)(void *)(w->solver.tmp + 2 * n),
                     .moved_in = moved_in};
    for (int it = 0; it < w->def.solver_iterations; it++) {
        p.pass = (uint16_t)(it + 1);
        run_domains(w, escape_task, &p);
        int moved = 0;
        for (int d = 0; d <= KYU_SOLVE_DOMAINS; d++) moved |= p.moved[d];
        if (!moved) break; // nothing moved: neither would a pass after it
    }
    return 0;
}

int kyu_contacts_escape(kyu_world *w) {
    if (partition(w)) return -1;
    uint16_t *moved_in = kyu_arena_take(&w->step.arena, (size_t)w->bodies.high * sizeof *moved_in);
    if (w->bodies.high > 0) memset(moved_in, 0, (size_t)w->bodies.high * sizeof *moved_in);
    int failed = escape_passes(w, moved_in);
    final_gaps x = {.slices = {.w = w, .slices = kyu_slice_count(w->contacts.count)}, .moved_in = moved_in};
    if (!failed) kyu_parallel_for(w, x.slices.slices, 1, final_gaps_task, &x);
    kyu_arena_reset(&w->step.arena);
    if (failed) return -1;
    float worst = kyu_islands_max_overlap(w); // the true deepest, asleep or awake
    for (int sl = 0; sl < x.slices.slices; sl++) worst = kyu_maxf(worst, x.slices.worst[sl]);
    w->stats.max_overlap = worst;
    return 0;
}
