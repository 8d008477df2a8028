// SPDX-License-Identifier: MIT
// The contact solver: sequential impulses over the kept contacts, warm-started from the last step,
// domain by domain (solver_slabs.c). At the start of a step the classify decides which contacts
// are the solver's: those that touch or would close their gap slower than the pair's event speed
// (no textbook answer depends on their order: below it an impact would be inelastic). The faster
// ones are impacts, which the impact queue resolves in exact time order. The velocity solve then
// allows the solver's contacts no approach beyond what closes their gap this step (speculative
// contacts), applies friction at the contact point within mu times the normal impulse and rolling
// and twisting resistance, and marks which bodies a contact holds (the others fly the exact parabola
// of their gravity). What the impacts leave, and overlaps, are the soft escape's (soft_escape.c).
#include <string.h>

#include "internal.h"

// A contact where something turns: either body (not of fixed rotation), or the collider's surface
// (an angular or a surface velocity). Every other contact takes the translation-only solve.
static int contact_spins(const kyu_world *w, const contact *c) {
    if (w->bodies.inv_inertia[c->a] > 0.0f) return 1;
    if (kyu_is_collider(c->b)) return kyu_collider_spins(&w->colliders.list[c->b & ~KYU_COLLIDER_BIT]);
    return w->bodies.inv_inertia[c->b] > 0.0f;
}

// Impulse on a, its opposite on b, through the contact's inverse masses.
static void apply(kyu_world *w, const contact *c, const pair_coef *k, vec3s impulse) {
    body_store *s = &w->bodies;
    s->vel[c->a] = glms_vec3_add(s->vel[c->a], glms_vec3_scale(impulse, k->ia));
    if (!kyu_is_collider(c->b)) s->vel[c->b] = glms_vec3_sub(s->vel[c->b], glms_vec3_scale(impulse, k->ib));
}

// Impulse p (normal and tangential, at the contact point) and angular impulse L on a, their
// opposites on b. The tangential part turns both bodies by n x p_t (a's point is at -rA n, b's at
// rB n); the normal part passes through the centres.
static void apply_spin(kyu_world *w, const contact *c, const pair_coef *k, vec3s impulse, vec3s tangent,
                       vec3s angular) {
    body_store *s = &w->bodies;
    apply(w, c, k, impulse);
    vec3s t = glms_vec3_cross(c->normal, tangent);
    if (k->iia > 0.0f)
        s->ang[c->a] = glms_vec3_add(
            s->ang[c->a], glms_vec3_scale(glms_vec3_sub(angular, glms_vec3_scale(t, k->ra)), k->iia));
    if (k->iib > 0.0f)
        s->ang[c->b] = glms_vec3_sub(
            s->ang[c->b], glms_vec3_scale(glms_vec3_add(angular, glms_vec3_scale(t, k->rb)), k->iib));
}

// Rolling and twisting resistance act as angular impulses against the relative angular velocity:
// the rolling part (across the normal) within rolling_resistance R jn (R = rA rB / (rA + rB), a
// body's own radius against a collider): a ball rests on a slope of tan(theta) <= rolling_resistance,
// as its weight's torque about the contact point, r m g sin(theta), then stays within
// r (m g cos(theta)) rolling_resistance; the twisting part (about the normal) within that plus the
// torsional friction of the contact's patch, 2/3 mu a jn: rigid spheres touch at a point, but a
// resting pair overlaps by its slop, and two spheres overlapping by delta meet on a circle of radius
// a = sqrt(2 R delta) (9% of R at the default slop). Without it a ball spinning about the vertical
// on a floor would spin for ever and keep its pile awake; a rolling ball does not twist, so it
// rolls as the textbook says. The bounds per unit of normal impulse:
#define TWIST_FRICTION (2.0f / 3.0f)
static void spin_bounds(const kyu_world *w, const contact *c, float mu, float *roll, float *twist) {
    const body_store *s = &w->bodies;
    float ra = s->radius[c->a],
          R = kyu_is_collider(c->b) ? ra : ra * s->radius[c->b] / (ra + s->radius[c->b]);
    *roll = kyu_pair_rolling(w, c->a, c->b) * R;
    *twist = *roll;
    if (mu > 0.0f) *twist += TWIST_FRICTION * mu * sqrtf(2.0f * R * kyu_pair_slop(w, c->a, c->b));
}

void kyu_contact_spin_limits(const kyu_world *w, const contact *c, float *roll, float *twist) {
    spin_bounds(w, c, kyu_contact_friction(w, c), roll, twist);
    *roll *= c->jn, *twist *= c->jn;
}

// The least normal velocity a solver's contact must reach this step: closing what is left of its
// gap and no more (a speculative contact), or, touching or overlapping, no approach (the soft
// escape takes an overlap out by position, soft_escape.c).
static float solve_target(const kyu_world *w, const contact *c) {
    return c->gap > 0.0f ? -c->gap / w->def.fixed_dt : 0.0f;
}

// Warm start: last step's impulses again. It also sets the contact's place's coefficients for the
// iterations and the relax after it: the same floats every iteration would compute again (friction
// mixes the two sides' values, or asks the user's callback). An impact's contact (skip) gets its
// coefficients too: the relax stops it if the impacts leave it closing.
static void warm_one(kyu_world *w, contact *c, pair_coef *k) {
    if (c->sensor) return;
    const body_store *s = &w->bodies;
    memset(k, 0, sizeof *k);
    k->ia = s->inv_mass[c->a];
    k->ib = kyu_side_inv_mass(w, c->b);
    k->kn = 1.0f / (k->ia + k->ib);
    k->mu = kyu_contact_friction(w, c);
    k->e = kyu_contact_restitution(w, c);
    k->gap = c->gap;
    k->ev = kyu_pair_event_speed(w, c->a, c->b);
    k->target = solve_target(w, c);
    if (!contact_spins(w, c)) {
        if (!c->skip) apply(w, c, k, glms_vec3_add(glms_vec3_scale(c->normal, c->jn), c->jt));
        return;
    }
    int col = kyu_is_collider(c->b);
    k->iia = s->inv_inertia[c->a];
    k->iib = col ? 0.0f : s->inv_inertia[c->b];
    k->ra = k->iia > 0.0f ? s->radius[c->a] : 0.0f;
    k->rb = k->iib > 0.0f ? s->radius[c->b] : 0.0f;
    float ra = s->radius[c->a], rb = col ? 0.0f : s->radius[c->b];
    k->kt = 1.0f / (k->ia + k->ib + ra * ra * k->iia + rb * rb * k->iib);
    spin_bounds(w, c, k->mu, &k->roll, &k->twist);
    // Last step's friction impulse, in the tangent plane of this step's normal: a rolling pair's
    // normal turns, and the part of the old impulse along the new normal would push or pull
    // outside the normal impulse's bound (energy from nothing, a bed that churns for ever).
    c->jt = glms_vec3_sub(c->jt, glms_vec3_scale(c->normal, glms_vec3_dot(c->jt, c->normal)));
    if (!c->skip) apply_spin(w, c, k, glms_vec3_add(glms_vec3_scale(c->normal, c->jn), c->jt), c->jt, c->jr);
}

// The solve of a contact where something turns: the normal impulse toward `target`; friction at
// the contact point, whose velocity includes the spins (v + w x r), through the tangential
// effective mass within mu times the normal impulse; then rolling and twisting resistance.
static void solve_spin(kyu_world *w, contact *c, const pair_coef *k, float target, float omega) {
    body_store *s = &w->bodies;
    uint32_t a = c->a, b = c->b;
    const collider *cb = kyu_is_collider(b) ? &w->colliders.list[b & ~KYU_COLLIDER_BIT] : NULL;
    vec3s n = c->normal;
    vec3s vb =
        cb ? kyu_collider_point_velocity(cb, glms_vec3_sub(s->pos[a], glms_vec3_scale(n, s->radius[a])), n)
           : s->vel[b];
    vec3s wb = cb ? cb->angular_velocity : s->ang[b];
    vec3s vrel = glms_vec3_sub(s->vel[a], vb);
    float vn = glms_vec3_dot(vrel, n);
    float jn = kyu_maxf(c->jn - (vn - target) * k->kn * omega, 0.0f);
    float djn = jn - c->jn;
    c->jn = jn;
    // The contact points' relative velocity (the normal impulse does not change its tangential part).
    vec3s spin = glms_vec3_add(glms_vec3_scale(s->ang[a], k->ra), glms_vec3_scale(wb, k->rb));
    vec3s vc = glms_vec3_add(vrel, glms_vec3_cross(n, spin));
    vec3s vt = glms_vec3_sub(vc, glms_vec3_scale(n, glms_vec3_dot(vc, n)));
    vec3s jt = glms_vec3_sub(c->jt, glms_vec3_scale(vt, k->kt));
    float jt_len = glms_vec3_norm(jt), jt_max = k->mu * c->jn;
    if (jt_len > jt_max) jt = glms_vec3_scale(jt, jt_max / jt_len);
    vec3s dt = glms_vec3_sub(jt, c->jt);
    c->jt = jt;
    apply_spin(w, c, k, glms_vec3_add(glms_vec3_scale(n, djn), dt), dt, glms_vec3_zero());
    if (!(k->iia + k->iib > 0.0f)) return;
    float limit = k->roll * c->jn, twist_limit = k->twist * c->jn;
    if (!(twist_limit > 0.0f) && c->jr.x == 0.0f && c->jr.y == 0.0f && c->jr.z == 0.0f)
        return; // nothing resists turning
    vec3s rel = glms_vec3_sub(s->ang[a], wb);
    vec3s jr = glms_vec3_sub(c->jr, glms_vec3_scale(rel, 1.0f / (k->iia + k->iib)));
    float twist = glms_vec3_dot(jr, n);
    vec3s roll = glms_vec3_sub(jr, glms_vec3_scale(n, twist));
    float roll_len = glms_vec3_norm(roll);
    if (roll_len > limit) roll = roll_len > 0.0f ? glms_vec3_scale(roll, limit / roll_len) : roll;
    twist = kyu_maxf(-twist_limit, kyu_minf(twist, twist_limit));
    jr = glms_vec3_add(roll, glms_vec3_scale(n, twist));
    apply_spin(w, c, k, glms_vec3_zero(), glms_vec3_zero(), glms_vec3_sub(jr, c->jr));
    c->jr = jr;
}

// One contact toward `target`: the spin solve, or the translation-only one (the normal impulse,
// then friction cancelling the tangential velocity within the Coulomb cone). The normal impulse's
// change is scaled by omega (over-relaxation; 1: plain Gauss-Seidel).
void kyu_contact_solve(kyu_world *w, contact *c, const pair_coef *k, float target, float omega) {
    if (k->kt > 0.0f) {
        solve_spin(w, c, k, target, omega);
        return;
    }
    vec3s vrel = glms_vec3_sub(w->bodies.vel[c->a], kyu_side_velocity(w, c->b));
    float vn = glms_vec3_dot(vrel, c->normal);
    float jn = kyu_maxf(c->jn - (vn - target) * k->kn * omega, 0.0f);
    float djn = jn - c->jn;
    c->jn = jn;
    vec3s impulse = glms_vec3_scale(c->normal, djn);
    vrel = glms_vec3_add(vrel, glms_vec3_scale(c->normal, djn / k->kn));
    vec3s vt = glms_vec3_sub(vrel, glms_vec3_scale(c->normal, glms_vec3_dot(vrel, c->normal)));
    vec3s jt = glms_vec3_sub(c->jt, glms_vec3_scale(vt, k->kn));
    float jt_len = glms_vec3_norm(jt), jt_max = k->mu * c->jn;
    if (jt_len > jt_max) jt = glms_vec3_scale(jt, jt_max / jt_len);
    impulse = glms_vec3_add(impulse, glms_vec3_sub(jt, c->jt));
    c->jt = jt;
    apply(w, c, k, impulse);
}

// The solve's iterations over-relax the normal impulse (projected SOR): a bed of beads 40 deep
// carries its weight down a layer a pass, and with the plain factor 8 passes left contacts closing
// at up to 3 cm/s, overlaps the soft escape kept mending and a bed that never slept (the test's
// 1,401 beads: asleep 467 steps after the pour at 1.3, not within 900 at 1; 1.6 overshoots).
#define SOLVE_OMEGA 1.3f
static void solve_one(kyu_world *w, contact *c, pair_coef *k) {
    if (!c->skip) kyu_contact_solve(w, c, k, k->target, SOLVE_OMEGA);
}

static void domain_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_domain_pass *p = ctx;
    kyu_world *w = p->w;
    for (int d = begin; d < end; d++)
        for (int k = w->solver.start[d], last = w->solver.start[d + 1]; k < last; k++) {
            kyu_solver_prefetch(w, k, last, 1);
            p->fn(w, &w->contacts.list[w->solver.order[k]], &p->coef[k]);
        }
}

// One pass of fn over every contact, domain by domain (the relax's too). The coefficients live in
// the solver's scratch from the velocity solve's warm start to the end of the relax.
void kyu_domain_pass_run(kyu_world *w, kyu_contact_fn *fn) {
    kyu_domain_pass p = {.w = w, .fn = fn, .coef = (pair_coef *)(void *)w->solver.tmp};
    kyu_solver_run(w, domain_task, &p);
}

// Which contacts the solver owns, decided at the start of the step, before this step's forces: the
// kept pairs (within the margin) that would meet no faster than their event speed. A pair pressed
// together by gravity meets at sqrt(vn^2 + 2 |g_n| gap) (closing now, or parting and coming back,
// from its gap), one that is not at its closing speed. Every other pair is in the air or closing
// fast: it is the impact queue's, which finds when it meets along its exact path and bounces it
// exactly in time and speed (a ball bouncing lower than the margin meets its floor faster than a
// resting pair unless its bounce is lower than threshold^2 / 2g), and lands it when it lands, not
// sooner (a contact that stopped it at the surface by the end of the step would shift its impact in
// time and speed).
#define NOT_HELD (1ull << 63) // in contacts.owned: the solver does not hold the pair (a < 2^31)

static void classify_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    contact_slices *x = ctx;
    kyu_world *w = x->w;
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
            c->skip =
                c->sensor || c->gap > kyu_pair_margin(w, c->a, c->b) ||
                (meet > kyu_pair_event_speed(w, c->a, c->b) &&
                 !(w->gravity_on && kyu_contact_restitution(w, c) * meet <= w->def.restitution_threshold));
            // A pair the solver takes that meets faster than the restitution threshold is an impact
            // to games (a sound, damage) all the same: reported after the relax, with its impulse.
            c->mark = !c->skip && meet > w->def.restitution_threshold ? SOLVER_IMPACT : 0;
            w->contacts.meet[i] = meet;
            w->contacts.owned[i] = kyu_contact_key(c) | (c->skip ? NOT_HELD : 0);
            if (c->skip) c->jn = 0.0f, c->jt = c->jr = glms_vec3_zero();
        }
}

int kyu_contacts_classify(kyu_world *w) {
    if (RESERVE(w->contacts.owned, w->contacts.owned_cap, w->contacts.count + 1) ||
        RESERVE(w->contacts.meet, w->contacts.meet_cap, w->contacts.count + 1))
        return -1;
    contact_slices x = {.w = w, .slices = kyu_slice_count(w->contacts.count)};
    kyu_parallel_for(w, x.slices, 1, classify_task, &x);
    for (int k = 0; k < w->step.active_count; k++) w->contacts.run[w->step.active[k]] = -1;
    for (int i = 0; i < w->contacts.count; i++)
        if (i == 0 || w->contacts.list[i - 1].a != w->contacts.list[i].a)
            w->contacts.run[w->contacts.list[i].a] = i;
    return 0;
}

// Whether pair (a, b) (either order; b may be a collider) is one the solver holds this step: a
// slow approach it leaves is the solver's to mend, not an impact.
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
    if (c->skip || c->sensor) return;
    body_store *s = &w->bodies;
    float up = -glms_vec3_dot(c->normal, w->down); // > 0: a above b
    if (!(fabsf(up) > 0.5f) || (up < 0.0f && kyu_is_collider(c->b))) return;
    uint32_t upper = up > 0.0f ? c->a : c->b, lower = up > 0.0f ? c->b : c->a;
    vec3s n = up > 0.0f ? c->normal : glms_vec3_negate(c->normal); // from lower to upper
    vec3s v_lower = kyu_side_velocity(w, lower);
    if (glms_vec3_dot(v_lower, n) > 0.0f) return; // rising into it: the iterations' business
    float vn = glms_vec3_dot(glms_vec3_sub(s->vel[upper], v_lower), n); // the contact's vn
    if (!(vn < k->target)) return;
    float dv = k->target - vn;
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
    _Static_assert(sizeof(pair_coef) == 16 * sizeof(int), "a place's coefficients take sixteen ints of tmp");
    if (RESERVE(w->solver.tmp, w->solver.tmp_cap, 16 * (w->contacts.count + 1))) return -1;
    kyu_domain_pass_run(w, warm_one);
    for (int it = 0; it < w->def.solver_iterations; it++) kyu_domain_pass_run(w, solve_one);
    // Which bodies a contact holds (kyu_contacts_mark_supported), found in the last pass.
    kyu_parallel_for(w, w->step.active_count, 4096, gravity_task, w);
    kyu_domain_pass_run(w, w->gravity_on ? shock_support_one : support_one);
    return 0;
}

// Runs after kyu_contacts_solve_velocities, whose last pass found which bodies a contact holds:
// every other body takes its gravity back.
void kyu_contacts_mark_supported(kyu_world *w) {
    kyu_parallel_for(w, w->step.active_count, 4096, take_back_task, w);
}
