// SPDX-License-Identifier: MIT
// The contact solver: sequential impulses over the kept contacts, warm-started from the last step,
// domain by domain (solver_slabs.c). At the start of a step, the classify decides which contacts
// are the solver's (touching, or closing slower than a resting pair: no textbook answer depends on
// their order) and which approach fast enough to be impacts (the impact queue bounces those in
// exact time order); the velocity solve then allows the solver's no approach beyond what closes
// their gap this step, with friction at the contact point within mu times the normal impulse and
// rolling and twisting resistance, and marks which bodies a contact holds (the others fly the
// exact parabola of their gravity).
#include <string.h>

#include "internal.h"

// Impulse on a, its opposite on b, through the inverse masses ia and ib (the bodies' own, or the
// copies a contact's coefficients keep).
static void apply_masses(kyu_world *w, const contact *c, vec3s impulse, float ia, float ib) {
    body_store *s = &w->bodies;
    s->vel[c->a] = glms_vec3_add(s->vel[c->a], glms_vec3_scale(impulse, ia));
    if (!kyu_is_collider(c->b)) s->vel[c->b] = glms_vec3_sub(s->vel[c->b], glms_vec3_scale(impulse, ib));
}

static void apply(kyu_world *w, const contact *c, vec3s impulse) {
    apply_masses(w, c, impulse, w->bodies.inv_mass[c->a], kyu_side_inv_mass(w, c->b));
}

// A contact where something turns: either body (not of fixed rotation), or the collider's surface
// (an angular or a surface velocity). Every other contact takes the translation-only solve, whose
// arithmetic is the one kyu had before spin (fixed_rotation bodies step bit for bit as they did).
static int contact_spins(const kyu_world *w, const contact *c) {
    if (w->bodies.inv_inertia[c->a] > 0.0f) return 1;
    if (kyu_is_collider(c->b)) return kyu_collider_spins(&w->colliders.list[c->b & ~KYU_COLLIDER_BIT]);
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
    if (!kyu_is_collider(b) && s->inv_inertia[b] > 0.0f)
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
    k->inv_b = kyu_side_inv_mass(w, c->b);
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
    float ra = s->radius[c->a],
          R = kyu_is_collider(c->b) ? ra : ra * s->radius[c->b] / (ra + s->radius[c->b]);
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
    int col = kyu_is_collider(b);
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
    vec3s vrel = glms_vec3_sub(w->bodies.vel[c->a], kyu_side_velocity(w, c->b));
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

// A solve of one contact of the velocity solve, with its place's coefficients (pair_coef).
typedef void contact_fn(kyu_world *w, contact *c, pair_coef *k);

typedef struct domain_pass {
    kyu_world *w;
    contact_fn *fn;
    pair_coef *coef; // per place in the order (in solver.tmp)
} domain_pass;

static void domain_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    domain_pass *p = ctx;
    kyu_world *w = p->w;
    for (int d = begin; d < end; d++)
        for (int k = w->solver.start[d], last = w->solver.start[d + 1]; k < last; k++) {
            kyu_solver_prefetch(w, k, last, 1);
            p->fn(w, &w->contacts.list[w->solver.order[k]], &p->coef[k]);
        }
}

// One pass of fn over every contact. The coefficients live in the solver's scratch from the
// velocity solve's warm start on.
static void domain_pass_run(kyu_world *w, contact_fn *fn) {
    domain_pass p = {.w = w, .fn = fn, .coef = (pair_coef *)(void *)w->solver.tmp};
    kyu_solver_run(w, domain_task, &p);
}

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
            c->gap = kyu_contact_geometry(w, c, &c->normal);
            vec3s vrel = glms_vec3_sub(w->bodies.vel[c->a], kyu_side_velocity(w, c->b));
            float vn = glms_vec3_dot(vrel, c->normal),
                  gb = kyu_is_collider(c->b) ? 0.0f : kyu_body_kind(&w->bodies, c->b)->gravity_scale;
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
    if (!(fabsf(up) > 0.5f) || (up < 0.0f && kyu_is_collider(c->b))) return;
    uint32_t upper = up > 0.0f ? c->a : c->b, lower = up > 0.0f ? c->b : c->a;
    vec3s n = up > 0.0f ? c->normal : glms_vec3_negate(c->normal); // from lower to upper
    vec3s v_lower = kyu_side_velocity(w, lower);
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
    if (!kyu_is_collider(c->b)) w->step.accel[c->b] = glms_vec3_zero();
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
    if (kyu_solver_partition(w)) return -1;
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
