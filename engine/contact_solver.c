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
// (an angular or a surface velocity). Every other contact's rows have no spin terms.
static int contact_spins(const kyu_world *w, const contact *c) {
    if (w->bodies.inv_inertia[c->a] > 0.0f) return 1;
    if (kyu_is_collider(c->b)) return kyu_collider_spins(&w->colliders.list[c->b & ~KYU_COLLIDER_BIT]);
    return w->bodies.inv_inertia[c->b] > 0.0f;
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
// rolls as the textbook says.
//   The patch acts between two bodies always, and against a collider only on a body that touches
// nothing else (patch_acts). A ball touching a collider and something else turns about the line
// through its two contacts, and that turn has a part about each contact's normal: rolling down a
// groove, on two rails or along a wall, the patch braked it (0.44 g sin(theta) down a 90 degree
// groove at mu 0.5, 0.10 at mu 2, against the 5/9 g sin(theta) of the rigid-body textbook), while
// its other contact's sliding friction already stops a spin on the spot about either normal.
// Between bodies it stays: with rolling resistance 0 a bead rocking to and fro in the pocket of two
// others rolls without loss, and beds would not sleep. The bounds per unit of normal impulse:
#define TWIST_FRICTION (2.0f / 3.0f)
static void spin_bounds(const kyu_world *w, const contact *c, float mu, int patch, float *roll,
                        float *twist) {
    const body_store *s = &w->bodies;
    float ra = s->radius[c->a],
          R = kyu_is_collider(c->b) ? ra : ra * s->radius[c->b] / (ra + s->radius[c->b]);
    *roll = kyu_pair_rolling(w, c->a, c->b) * R;
    *twist = *roll;
    if (mu > 0.0f && patch) *twist += TWIST_FRICTION * mu * sqrtf(2.0f * R * kyu_pair_slop(w, c->a, c->b));
}

// Whether the patch's torsional friction acts on contact c this step (solver_state.flags).
static int patch_acts(const kyu_world *w, const contact *c) {
    return !kyu_is_collider(c->b) || !(w->solver.flags[c->a] & SOLVER_TOUCHES_MORE);
}

void kyu_contact_spin_limits(const kyu_world *w, const contact *c, float *roll, float *twist) {
    spin_bounds(w, c, kyu_contact_friction(w, c), 1, roll, twist); // the patch's part too: the most
    *roll *= c->jn, *twist *= c->jn;
}

// ---- the solver's bodies and rows --------------------------------------------------------------

static void gather_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    const body_store *s = &w->bodies;
    for (int k = begin; k < end; k++) {
        uint32_t i = w->step.active[k];
        w->solver.body[i] =
            (solver_body){kyu_f3_of(s->vel[i]), s->inv_mass[i], kyu_f3_of(s->ang[i]), s->inv_inertia[i]};
    }
}

static void scatter_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    for (int k = begin; k < end; k++) {
        uint32_t i = w->step.active[k];
        w->bodies.vel[i] = kyu_vec3_of(w->solver.body[i].v);
        w->bodies.ang[i] = kyu_vec3_of(w->solver.body[i].w);
    }
}

void kyu_solver_gather(kyu_world *w) { kyu_parallel_for(w, w->step.active_count, 4096, gather_task, w); }
void kyu_solver_scatter(kyu_world *w) { kyu_parallel_for(w, w->step.active_count, 4096, scatter_task, w); }

// The least normal velocity a solver's contact must reach this step: closing what is left of its
// gap and no more (a speculative contact), or, touching or overlapping, no approach (the soft
// escape takes an overlap out by position, soft_escape.c).
static float solve_target(const kyu_world *w, float gap) {
    return gap > 0.0f ? -gap / w->def.fixed_dt : 0.0f;
}

// Over-relaxation (SOLVE_OMEGA) only between bodies within this factor in mass, and against a
// collider only for a body that touches none twice its mass or more. It overshoots the lighter body
// of an unequal pair by 30% of the whole correction: in a bed of radii spanning 1:10 (masses
// 1:1000) the fines squeezed between heavy spheres kept the bed churning (physics-check sizes 10000
// 10 after 30 s: 9,903 bodies awake, overlaps of 24% of the smaller radius, 900 pairs over 1%; with
// plain Gauss-Seidel on unequal pairs 0.40%, none over 1%). And a heavy ball resting on a light bead
// on a floor hopped: the warm start pressed the bead into the floor with the ball's weight, and
// the floor's over-relaxed answer threw it back up 30% too hard, ball and all (5 cm on 5 mm: 0.26
// m/s; tests/test_rest.c). Equal beds keep the factor that carries a deep bed's weight (a bed of
// 10-12 mm beads has masses within 1.73).
#define SOR_MASS_RATIO 2.0f

// A turning collider's surface approaches by more than its linear velocity, and its sweeps see only
// that (the impact queue's, and the classification's): a pair its surface meets within the step
// faster than an impact's speed would pass the queue by and be stopped here, its restitution lost (a
// pinball flipper carried the ball at its own speed). So such a pair bounces in the solve: its
// target is the separating speed e u that a wall moving at the surface's velocity gives the queue.
static float turning_target(const kyu_world *w, const contact *c, const solver_row *r) {
    // Not one deeper than its slop (a turn past a ball's radius leaves it inside, where the normal
    // is a guess), nor where the turn moves the surface farther than the ball's radius in a step:
    // past that bound (kyu_collider_def.angular_velocity) a ball squeezed against a wall met the
    // surface again every step and gained speed without end (a paddle stirring balls at 7 rad/s,
    // its surface 5.8 cm a step against balls of 4 cm: 90 m/s); there it is stopped, as before.
    if (c->gap < -kyu_pair_slop(w, c->a, c->b)) return r->target;
    const collider *cb = &w->colliders.list[c->b & ~KYU_COLLIDER_BIT];
    float reach = glms_vec3_norm(glms_vec3_sub(w->bodies.pos[c->a], cb->box.center)) + w->bodies.radius[c->a];
    if (glms_vec3_norm(cb->angular_velocity) * reach * w->def.fixed_dt > w->bodies.radius[c->a])
        return r->target;
    vec3s va = w->bodies.vel[c->a];
    float u = -((va.x - r->vb.x) * r->n.x + (va.y - r->vb.y) * r->n.y + (va.z - r->vb.z) * r->n.z);
    if (!(u > r->ev) || c->gap > u * w->def.fixed_dt) return r->target;
    if (w->gravity_on && r->e * u <= w->def.restitution_threshold) return r->target;
    // Nor one the surface pressed last step with half the impulse that stops it now: a ball it
    // carries or squeezes against a wall would be thrown again every step (a paddle stirring balls
    // at 8 rad/s threw one at 24 m/s). A ball that only rested on it is thrown, as a platform that
    // starts to rise throws what rests on it.
    if (c->jn > 0.5f * r->kn * u) return r->target;
    return r->e * u;
}

// A contact's row: its coefficients (the same floats every iteration and the relax would compute
// again: friction mixes the two sides' values, or asks the user's callback) and last step's
// impulses. A contact with a collider carries the collider's velocity at the contact point (the
// body's position does not change during a solve).
static void fill_row(const kyu_world *w, const contact *c, solver_row *r) {
    const body_store *s = &w->bodies;
    memset(r, 0, sizeof *r);
    r->n = kyu_f3_of(c->normal);
    r->a = c->a;
    r->flags = c->sensor ? ROW_SENSOR : c->skip ? 0 : ROW_HELD;
    if (c->sensor) return;
    int col = kyu_is_collider(c->b);
    const collider *cb = col ? &w->colliders.list[c->b & ~KYU_COLLIDER_BIT] : NULL;
    r->b = col ? KYU_ROW_STATIC : c->b;
    float ia = s->inv_mass[c->a], ib = col ? 0.0f : s->inv_mass[c->b];
    r->kn = 1.0f / (ia + ib);
    if (col ? w->solver.flags[c->a] & SOLVER_LIGHT : ia > SOR_MASS_RATIO * ib || ib > SOR_MASS_RATIO * ia)
        r->flags |= ROW_PLAIN;
    r->mu = kyu_contact_friction(w, c);
    r->e = kyu_contact_restitution(w, c);
    r->gap = c->gap;
    r->ev = kyu_pair_event_speed(w, c->a, c->b);
    r->target = solve_target(w, c->gap);
    r->jn = c->jn;
    r->flags |= kyu_upper_flags(w->down, c->normal, col);
    if (cb) {
        if (cb->type == KYU_SHAPE_MESH) r->flags |= ROW_MESH;
        r->vb = kyu_f3_of(kyu_collider_point_velocity(
            cb, glms_vec3_sub(s->pos[c->a], glms_vec3_scale(c->normal, s->radius[c->a])), c->normal));
        r->wb = kyu_f3_of(cb->angular_velocity);
        if (glms_vec3_norm2(cb->angular_velocity) > 0.0f) r->target = turning_target(w, c, r);
    }
    // Last step's friction impulse, in the tangent plane of this step's normal: a rolling pair's
    // normal turns, and the part of the old impulse along the new normal would push or pull
    // outside the normal impulse's bound (energy from nothing, a bed that churns for ever).
    r->jt = kyu_f3_of(glms_vec3_sub(c->jt, glms_vec3_scale(c->normal, glms_vec3_dot(c->jt, c->normal))));
    if (!contact_spins(w, c)) {
        r->kt = r->kn;
        return;
    }
    r->flags |= ROW_SPINS;
    r->jr = kyu_f3_of(c->jr);
    float iia = s->inv_inertia[c->a], iib = col ? 0.0f : s->inv_inertia[c->b];
    float ra = s->radius[c->a], rb = col ? 0.0f : s->radius[c->b];
    r->ra = iia > 0.0f ? ra : 0.0f;
    r->rb = iib > 0.0f ? rb : 0.0f;
    r->kt = 1.0f / (ia + ib + ra * ra * iia + rb * rb * iib);
    r->ki = iia + iib > 0.0f ? 1.0f / (iia + iib) : 0.0f;
    spin_bounds(w, c, r->mu, patch_acts(w, c), &r->roll, &r->twist);
}

// The solves' vector arithmetic, on plain three-float structs (kyu_f3).
static inline kyu_f3 s_add(kyu_f3 a, kyu_f3 b) { return (kyu_f3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline kyu_f3 s_sub(kyu_f3 a, kyu_f3 b) { return (kyu_f3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline kyu_f3 s_scale(kyu_f3 a, float s) { return (kyu_f3){a.x * s, a.y * s, a.z * s}; }
static inline float s_dot(kyu_f3 a, kyu_f3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline kyu_f3 s_cross(kyu_f3 a, kyu_f3 b) {
    return (kyu_f3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline kyu_f3 s_madd(kyu_f3 a, kyu_f3 b, float s) {
    return (kyu_f3){a.x + b.x * s, a.y + b.y * s, a.z + b.z * s};
}

// Impulse p on a and -p on b through the contact point (the friction part turns them by n x p_t:
// a's point is at -rA n, b's at rB n), and angular impulse l on a and -l on b.
static inline void row_apply(solver_body *A, solver_body *B, const solver_row *r, float ima, float imb,
                             float iia, float iib, kyu_f3 p, kyu_f3 pt, kyu_f3 l) {
    A->v = s_madd(A->v, p, ima);
    if (B) B->v = s_madd(B->v, p, -imb);
    if (!(r->flags & ROW_SPINS)) return;
    kyu_f3 t = s_cross(r->n, pt);
    A->w = s_madd(A->w, s_madd(l, t, -r->ra), iia);
    if (B) B->w = s_madd(B->w, s_madd(l, t, r->rb), -iib);
}

// The solve of one row: the normal impulse toward `target`; friction at the contact point, whose
// velocity includes the spins (v + w x r), through the tangential effective mass within mu times
// the normal impulse; then rolling and twisting resistance. share_a, share_b (0 or 1) leave a side
// out (the relax's upper body alone); the effective masses are then the other side's. Returns how
// fast the pair closed beyond its target before this solve (target - vn; <= 0 when it did not).
// solver_wide.c does the same four rows at a time, operation for operation: change both.
float kyu_row_solve(solver_body *sb, solver_row *r, float target, float omega, float share_a, float share_b) {
    solver_body *A = &sb[r->a], *B = r->b == KYU_ROW_STATIC ? NULL : &sb[r->b];
    float ima = A->im * share_a, iia = A->ii * share_a, imb = B ? B->im * share_b : 0.0f,
          iib = B ? B->ii * share_b : 0.0f;
    float kn = r->kn, kt = r->kt, ki = r->ki;
    if (share_a != 1.0f || share_b != 1.0f) {
        kn = 1.0f / (ima + imb);
        kt = (r->flags & ROW_SPINS) ? 1.0f / (ima + imb + r->ra * r->ra * iia + r->rb * r->rb * iib) : kn;
        ki = iia + iib > 0.0f ? 1.0f / (iia + iib) : 0.0f;
    }
    kyu_f3 n = r->n, vb = B ? s_add(B->v, r->vb) : r->vb;
    kyu_f3 vrel = s_sub(A->v, vb);
    float vn = s_dot(vrel, n);
    float jn = kyu_maxf(r->jn - (vn - target) * kn * omega, 0.0f), djn = jn - r->jn, closing = target - vn;
    r->jn = jn;
    // The contact points' relative velocity (the normal impulse does not change its tangential part).
    kyu_f3 vc = vrel;
    if (r->flags & ROW_SPINS) {
        kyu_f3 wb = B ? s_add(B->w, r->wb) : r->wb;
        vc = s_add(vc, s_cross(n, s_madd(s_scale(A->w, r->ra), wb, r->rb)));
    }
    kyu_f3 vt = s_madd(vc, n, -s_dot(vc, n));
    kyu_f3 jt = s_madd(r->jt, vt, -kt);
    float jt_len2 = s_dot(jt, jt), jt_max = r->mu * jn;
    if (jt_len2 > jt_max * jt_max) jt = s_scale(jt, jt_max / sqrtf(jt_len2));
    kyu_f3 djt = s_sub(jt, r->jt);
    r->jt = jt;
    row_apply(A, B, r, ima, imb, iia, iib, s_madd(djt, n, djn), djt, (kyu_f3){0.0f, 0.0f, 0.0f});
    if (!(ki > 0.0f)) return closing;
    float limit = r->roll * jn, twist_limit = r->twist * jn;
    if (!(twist_limit > 0.0f) && r->jr.x == 0.0f && r->jr.y == 0.0f && r->jr.z == 0.0f)
        return closing; // nothing resists turning
    kyu_f3 wb = B ? s_add(B->w, r->wb) : r->wb;
    kyu_f3 jr = s_madd(r->jr, s_sub(A->w, wb), -ki);
    float twist = s_dot(jr, n);
    kyu_f3 roll = {0.0f, 0.0f, 0.0f};
    if (limit > 0.0f) {
        roll = s_madd(jr, n, -twist);
        float roll_len2 = s_dot(roll, roll);
        if (roll_len2 > limit * limit) roll = s_scale(roll, limit / sqrtf(roll_len2));
    }
    twist = kyu_maxf(-twist_limit, kyu_minf(twist, twist_limit));
    jr = s_madd(roll, n, twist);
    kyu_f3 djr = s_sub(jr, r->jr);
    r->jr = jr;
    A->w = s_madd(A->w, djr, iia);
    if (B) B->w = s_madd(B->w, djr, -iib);
    return closing;
}

// Warm start: last step's impulses again, on the held rows.
static void warm_row(solver_body *sb, const solver_row *r) {
    solver_body *A = &sb[r->a], *B = r->b == KYU_ROW_STATIC ? NULL : &sb[r->b];
    row_apply(A, B, r, A->im, B ? B->im : 0.0f, A->ii, B ? B->ii : 0.0f, s_madd(r->jt, r->n, r->jn), r->jt,
              r->jr);
}

// The rows of a domain are read in order, so the hardware brings them in; their bodies are
// scattered: each is asked for a few rows ahead, so the solve does not wait for it. A hint only.
#define AHEAD 8
static inline void prefetch_bodies(const solver_body *sb, const solver_row *rows, int k, int last) {
    (void)sb; // (a compiler without the hint)
    if (k + AHEAD < last) {
        const solver_row *r = &rows[k + AHEAD];
        KYU_PREFETCH(&sb[r->a], 1);
        if (r->b != KYU_ROW_STATIC) KYU_PREFETCH(&sb[r->b], 1);
    }
}

// The passes go on past the step's passes (kyu_solver_passes) while a contact still closes faster
// than CLOSING_SLOPS of its slop in a step, for up to KYU_EXTRA_FACTOR times as many, but only a
// pair for which the solve's error matters: what a pass leaves is a fraction of the step's
// gravity, g dt, and it sinks a pair by that fraction of g dt^2, which is a few thousandths of a
// 0.5 m ball's radius at 60 Hz but a quarter of a 1 cm bead's. So a pair may ask for
// (g dt^2 / (KYU_STIFF_SLOPS slop)) times the passes, 1 to KYU_EXTRA_FACTOR: none more for a ball
// of 9 cm or more at 60 Hz, 8x for beads of 1 cm or less (kyu_may_ask_pass; the push asks the
// same). A 1 cm pour at 60 Hz with 8 passes crept for 6 s after landing and packed to 0.648 (past
// random close packing: the creep shook it down) where every larger size packed to 0.58-0.59. With
// a quarter of the slop and 4x it packed to 0.58, but still crept (2,000 beads lost 2-3 J of
// potential energy a second after landing), and a bead that crept off its perch woke the bed: 11
// pours of 96 (physics-check pour 0.01, seeds 1-96) were awake more than 3 s after landing. With a
// twentieth and 8x: none (the latest 2.7 s, the median 1.3 s against 1.9), packing 0.567, creep 0.7
// J a second, at 1.33x the cost a body-step while the bed settles and about the same to sleep. A
// pass count that stops when the contacts hold costs less than one that always runs 64. A heap of
// spinning balls converges slowly (the error falls by about 3% a pass), which is why the bound is
// by size and not for every pair.
#define CLOSING_SLOPS 0.05f

// In a stack of FRICTIONLESS_LAYERS layers or more (kyu_solver_passes counts them), a frictionless
// pair asks at any size, while it closes faster than FRICTIONLESS_CLOSING_SLOPS of its slop in a
// step. Nothing holds a frictionless body in its pocket but the normal impulses of its neighbours,
// so what the passes leave of the weight above it does not only sink a pair: it slides bodies along
// their contacts, and a deep bed creeps, however large its bodies. physics-check frictionless 5000
// (0.5 m spheres, about 12 layers, 8 passes a step) kept 2.4-9.5 J of motion after 40 s (6 seeds),
// and the push lifted it by 630-1,090 J over its resting steps; with these passes (it takes all 32
// in every step) 0.45-2.6 J and 45-63 J, at 1.5 times the cost a step: docs/limits.md. A tray of
// frictionless balls 2-6 layers deep took nearly as many without the depth bound, at 1.4 times the
// cost, for nothing visible. These ask for up to FRICTIONLESS_EXTRA_FACTOR times the passes, and a
// bead's as many times more as its own rule gives it above (1 to KYU_EXTRA_FACTOR: up to 32x for
// beads of 1 cm at 60 Hz, FRICTIONLESS_MOST_PASSES at most; no more than 4x for balls of 9 cm or
// more). Bound at 64 passes as every pair is, 400 frictionless beads of 1-5 cm poured into a box 4
// beads wide, a bed 24 beads deep, never came to rest: what the passes left of its weight sank it
// a few percent of r every step and the push lifted it back (awake after 30 s); with these, asleep
// 4-7 s after the drop (2026-11-29, late; tests/test_rest.c).
#define FRICTIONLESS_LAYERS        8
#define FRICTIONLESS_CLOSING_SLOPS 0.01f
#define FRICTIONLESS_EXTRA_FACTOR  4
#define FRICTIONLESS_MOST_PASSES   256

typedef struct row_pass {
    kyu_world *w;
    kyu_row_fn *fn; // NULL: the iterations' solve (the warm start when warm)
    int warm;
    int check;                      // > 0: this pass (the check-th) asks which domains still close
    int most;                       // only a deep bed's frictionless pairs ask past this pass
    float g_dt2;                    // |g| dt^2 (0 without gravity: no pass beyond the step's)
    int deep;                       // a stack FRICTIONLESS_LAYERS deep or more: frictionless rows ask
    uint8_t open[KYU_SOLVE_GROUPS]; // per domain: a pair closes past its bound (check only)
} row_pass;

// Whether a pair that closed at `closing` before its solve in pass p->check asks for another.
static int still_closing(const row_pass *p, const solver_row *r, float closing) {
    const kyu_world *w = p->w;
    float slop = kyu_pair_slop(w, r->a, r->b == KYU_ROW_STATIC ? KYU_COLLIDER_BIT : r->b);
    float closes = closing * w->def.fixed_dt; // in this step, if no later pass stopped it
    if (closes > CLOSING_SLOPS * slop && p->check < p->most &&
        kyu_may_ask_pass(p->check, w->solver.passes, p->g_dt2, slop))
        return 1;
    return !(r->mu > 0.0f) && p->deep && closes > FRICTIONLESS_CLOSING_SLOPS * slop &&
           kyu_may_ask_pass(p->check, FRICTIONLESS_EXTRA_FACTOR * w->solver.passes, p->g_dt2, slop);
}

static int closing_seen(void *ctx, const solver_row *r, float closing) {
    return still_closing(ctx, r, closing);
}

static void row_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    row_pass *p = ctx;
    kyu_world *w = p->w;
    solver_body *sb = w->solver.body;
    solver_row *rows = w->solver.row;
    if (!p->fn && !p->warm && w->solver.batches) {
        for (int d = begin; d < end; d++)
            p->open[d] = (uint8_t)kyu_wide_pass(w, d, p->check ? closing_seen : NULL, p);
        return;
    }
    for (int d = begin; d < end; d++) {
        int open = 0;
        for (int k = w->solver.start[d], last = w->solver.start[d + 1]; k < last; k++) {
            prefetch_bodies(sb, rows, k, last);
            solver_row *r = &rows[k];
            if (p->fn) {
                p->fn(w, r);
            } else if (r->flags & ROW_HELD) {
                if (p->warm) {
                    warm_row(sb, r);
                    continue;
                }
                float closing = kyu_row_solve(sb, r, r->target,
                                              (r->flags & ROW_PLAIN) ? 1.0f : KYU_SOLVE_OMEGA, 1.0f, 1.0f);
                if (p->check && closing > 0.0f && !open) open = still_closing(p, r, closing);
            }
        }
        p->open[d] = (uint8_t)open;
    }
}

void kyu_row_pass_run(kyu_world *w, kyu_row_fn *fn) {
    row_pass p = {.w = w, .fn = fn};
    kyu_solver_run(w, row_task, &p);
}

static void fill_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    for (int d = begin; d < end; d++) {
        int spinning = 0;
        for (int k = w->solver.start[d], last = w->solver.start[d + 1]; k < last; k++) {
            solver_row *r = &w->solver.row[k];
            fill_row(w, &w->contacts.list[w->solver.order[k]], r);
            spinning += (r->flags & (ROW_HELD | ROW_SPINS)) == (ROW_HELD | ROW_SPINS);
        }
        w->solver.spinning[d] = spinning;
    }
}

// The last pass under gravity, bottom up (shock propagation, Guendelman et al. 2003): a body resting
// on one that is not rising into it takes no approach at all. The iterations of a deep pile never
// quite carry the support of its floor to its top, and what they leave would sink every step (a
// frictionless pile of 17 layers jittered at g dt for ever); here each body stops on what is
// under it, which has already stopped on what is under that. The upper body only slows: no
// energy can appear. The impulse counts toward the contact's, so the body is held this step.
static void shock_one(kyu_world *w, solver_row *r) {
    if (!(r->flags & ROW_HELD)) return;
    kyu_f3 down = kyu_f3_of(w->down);
    float up = -s_dot(r->n, down); // > 0: a above b
    int col = r->b == KYU_ROW_STATIC;
    if (!(fabsf(up) > 0.5f) || (up < 0.0f && col)) return;
    solver_body *sb = w->solver.body;
    solver_body *U = up > 0.0f ? &sb[r->a] : &sb[r->b];
    kyu_f3 n = up > 0.0f ? r->n : s_scale(r->n, -1.0f); // from lower to upper
    kyu_f3 v_lower = col ? r->vb : up > 0.0f ? sb[r->b].v : sb[r->a].v;
    if (s_dot(v_lower, n) > 0.0f) return;      // rising into it: the iterations' business
    float vn = s_dot(s_sub(U->v, v_lower), n); // the contact's vn
    if (!(vn < r->target) || !(U->im > 0.0f)) return;
    float dv = r->target - vn;
    U->v = s_madd(U->v, n, dv);
    r->jn += dv / U->im;
}

// A contact that pushed holds both its bodies: their gravity stays in the velocity. The support
// reads only the row's own impulse, final once its shock is applied (no later pass changes it),
// and the shock reads no acceleration, so the two run in one pass.
static void support_one(kyu_world *w, solver_row *r) {
    if (!(r->flags & ROW_HELD)) return;
    if (w->gravity_on) shock_one(w, r);
    if (!(r->jn > 0.0f)) return;
    w->step.accel[r->a] = glms_vec3_zero();
    if (r->b != KYU_ROW_STATIC) w->step.accel[r->b] = glms_vec3_zero();
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

int kyu_contacts_solve_velocities(kyu_world *w) {
    if (kyu_solver_partition(w) || RESERVE(w->solver.row, w->solver.row_cap, w->contacts.count + 1) ||
        RESERVE(w->solver.body, w->solver.body_cap, (int)w->bodies.high + 1))
        return -1;
    w->solver.passes = w->stats.solver_passes = kyu_solver_passes(w);
    kyu_parallel_for(w, KYU_SOLVE_GROUPS, 1, fill_task, w);
    kyu_solver_gather(w);
    // Warm start with last step's impulses (a resting pile starts from its answer), only after
    // every target is set: a target read after another contact's warm start would see a bounce.
    row_pass p = {.w = w, .warm = 1};
    kyu_solver_run(w, row_task, &p);
    p.warm = 0;
    if (!w->solver.row_by_row && kyu_wide_prepare(w)) return -1;
    p.g_dt2 = w->gravity_on ? glms_vec3_norm(w->def.gravity) * w->def.fixed_dt * w->def.fixed_dt : 0.0f;
    p.deep = kyu_solver_depth(w) >= FRICTIONLESS_LAYERS;
    int base = w->solver.passes, most = kyu_most_passes(base), pass = 0;
    p.most = most;
    if (p.deep && p.g_dt2 > 0.0f) {
        int frictionless = FRICTIONLESS_EXTRA_FACTOR * KYU_EXTRA_FACTOR * base;
        if (frictionless > FRICTIONLESS_MOST_PASSES) frictionless = FRICTIONLESS_MOST_PASSES;
        if (frictionless > most) most = frictionless;
    }
    while (pass < most) {
        pass++;
        p.check = pass >= base && p.g_dt2 > 0.0f ? pass : 0; // from the step's last pass on
        kyu_solver_run(w, row_task, &p);
        if (pass < base) continue;
        int open = 0;
        for (int d = 0; d < KYU_SOLVE_GROUPS; d++) open |= p.open[d];
        if (!open) break;
    }
    w->stats.solver_passes = pass;
    kyu_wide_finish(w);
    // Which bodies a contact holds (kyu_contacts_mark_supported), found in the last pass.
    kyu_parallel_for(w, w->step.active_count, 4096, gravity_task, w);
    kyu_row_pass_run(w, support_one);
    kyu_solver_scatter(w);
    return 0;
}

// Runs after kyu_contacts_solve_velocities, whose last pass found which bodies a contact holds:
// every other body takes its gravity back.
void kyu_contacts_mark_supported(kyu_world *w) {
    kyu_parallel_for(w, w->step.active_count, 4096, take_back_task, w);
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

// How fast the surface of the collider c->b, turning, meets body c->a (no slower than `meet`).
static float turning_meet(const kyu_world *w, const contact *c, float meet) {
    const collider *cb = &w->colliders.list[c->b & ~KYU_COLLIDER_BIT];
    if (!(glms_vec3_norm2(cb->angular_velocity) > 0.0f)) return meet;
    const body_store *s = &w->bodies;
    vec3s point = glms_vec3_sub(s->pos[c->a], glms_vec3_scale(c->normal, s->radius[c->a]));
    vec3s surface = kyu_collider_point_velocity(cb, point, c->normal);
    return kyu_maxf(meet, -glms_vec3_dot(glms_vec3_sub(s->vel[c->a], surface), c->normal));
}

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
            int fast = meet > kyu_pair_event_speed(w, c->a, c->b),
                inelastic =
                    w->gravity_on && kyu_contact_restitution(w, c) * meet <= w->def.restitution_threshold;
            c->skip = c->sensor || c->gap > kyu_pair_margin(w, c->a, c->b) || (fast && !inelastic);
            // Rising from its partner, it comes back after this step (vn + meet = -gn times the time
            // it meets in): in the air, if nothing else holds the body (kyu_contacts_classify).
            int flies = !c->skip && fast && gn < 0.0f && vn > 0.0f && vn + meet > -gn * w->def.fixed_dt;
            // A pair the solver takes that meets faster than the restitution threshold is an impact
            // to games (a sound, damage) all the same: reported after the relax, with its impulse.
            // A turning collider's surface may meet the pair faster than its linear velocity says:
            // the solve bounces it (turning_target), and games hear it at the surface's speed.
            if (!c->skip && kyu_is_collider(c->b)) meet = turning_meet(w, c, meet);
            c->mark = (uint8_t)((!c->skip && meet > w->def.restitution_threshold ? SOLVER_IMPACT : 0) |
                                (flies ? SOLVER_FLIES : 0));
            w->contacts.meet[i] = meet;
            w->contacts.owned[i] = kyu_contact_key(c) | (c->skip ? NOT_HELD : 0);
            if (c->skip) c->jn = 0.0f, c->jt = c->jr = glms_vec3_zero();
        }
}

// One more thing a body touches, or is held by (solver_state.flags).
static void note_touch(uint8_t *f) {
    *f |= (uint8_t)(*f & SOLVER_TOUCHES_ONE ? SOLVER_TOUCHES_MORE : SOLVER_TOUCHES_ONE);
}
static void note_held(uint8_t *f) {
    *f |= (uint8_t)(*f & SOLVER_HELD_ONE ? SOLVER_HELD_MORE : SOLVER_HELD_ONE);
}

// The runs of the bodies' contacts, and the solver's flags of each body.
static void set_flags(kyu_world *w) {
    uint8_t *flags = w->solver.flags;
    for (int k = 0; k < w->step.active_count; k++)
        w->contacts.run[w->step.active[k]] = -1, flags[w->step.active[k]] = 0;
    const float *im = w->bodies.inv_mass;
    for (int i = 0; i < w->contacts.count; i++) {
        const contact *c = &w->contacts.list[i];
        if (i == 0 || w->contacts.list[i - 1].a != c->a) w->contacts.run[c->a] = i;
        if (c->skip || c->sensor) continue;
        int body = !kyu_is_collider(c->b);
        if (body) { // the lighter of an unequal pair
            if (im[c->a] > SOR_MASS_RATIO * im[c->b]) flags[c->a] |= SOLVER_LIGHT;
            if (im[c->b] > SOR_MASS_RATIO * im[c->a]) flags[c->b] |= SOLVER_LIGHT;
        }
        if (c->gap <= kyu_pair_slop(w, c->a, c->b)) { // (as the search counts touching; a new body's too)
            note_touch(&flags[c->a]);
            if (body) note_touch(&flags[c->b]);
        }
        note_held(&flags[c->a]);
        if (body) note_held(&flags[c->b]);
    }
}

// A body rising from the one thing it touches, which it meets again only after this step (a ball
// kicked up slower than g dt, the last hops of a bouncing ball), is in the air: the solver does
// not hold it (held, it was landed at the end of this step, since the solver applies the step's
// gravity before it holds the pair: a ball kicked up at 0.15 m/s never left the floor, and the
// last hop of a bounce series was cut 1.36 mm short at every size, 1.3 radii of a 1 mm bead).
// Its landing is then an impact, inelastic, in time order. Only a body the solver holds by this one
// contact: one held by others too stays the solver's (let go in beds as well, where a bead rises
// from one neighbour while others hold it, 2 mm frictionless beads poured into a faceted mesh bowl
// passed through it). Pairs of bodies alike in gravity_scale are not asked: their relative motion
// has no gravity. Returns how many it let go.
static int let_fly(kyu_world *w) {
    const uint8_t *flags = w->solver.flags;
    int let = 0;
    for (int i = 0; i < w->contacts.count; i++) {
        contact *c = &w->contacts.list[i];
        if (!(c->mark & SOLVER_FLIES)) continue;
        c->mark &= (uint8_t)~SOLVER_FLIES;
        if ((flags[c->a] & SOLVER_HELD_MORE) || (!kyu_is_collider(c->b) && (flags[c->b] & SOLVER_HELD_MORE)))
            continue; // (of two bodies, either may be the one that rises: both held by this alone)
        c->skip = 1, c->mark = 0;
        c->jn = 0.0f, c->jt = c->jr = glms_vec3_zero();
        w->contacts.owned[i] |= NOT_HELD;
        let++;
    }
    return let;
}

int kyu_contacts_classify(kyu_world *w) {
    if (RESERVE(w->contacts.owned, w->contacts.owned_cap, w->contacts.count + 1) ||
        RESERVE(w->contacts.meet, w->contacts.meet_cap, w->contacts.count + 1))
        return -1;
    contact_slices x = {.w = w, .slices = kyu_slice_count(w->contacts.count)};
    kyu_parallel_for(w, x.slices, 1, classify_task, &x);
    set_flags(w);
    if (let_fly(w)) set_flags(w); // (without the pairs let go)
    return 0;
}

// Whether pair (a, b) (either order; b may be a collider) is one the solver holds this step: a
// slow approach it leaves is the solver's to mend, not an impact. `face` (a mesh's triangle met on
// its face; NULL: not one) is the normal it is met along (from the mesh to the body): a mesh's
// contact holds one triangle's plane (its nearest), so a face on another plane is not the solver's.
// A bead sliding down a faceted bowl meets the next facet so, and left to the solver it went on
// through it (0.3 m/s along the wall of a bowl 2 cm wide, tilted 10 degrees: a bead of 1 mm ended
// the step a radius past the facet's plane, and the push-out, which leaves a triangle by the side
// its centre is on, put it outside).
#define SAME_PLANE_COS 0.9999f // 0.8 degrees: the triangles of a flat floor, split, are one plane

// Where pair (a, b) (a < b, or b a collider) is in the classified contacts, or -1.
static int owned_at(const kyu_world *w, uint32_t a, uint32_t b) {
    const uint64_t *owned = w->contacts.owned;
    for (int k = w->contacts.run[a]; k >= 0 && k < w->contacts.count && (owned[k] & ~NOT_HELD) >> 32 == a;
         k++)
        if ((uint32_t)owned[k] == b) return k;
    return -1;
}

// Whether contact k of the cache is one of pair (a, b)'s (a mesh's planes are a run of them).
static int of_pair(const kyu_world *w, int k, uint32_t a, uint32_t b) {
    return k >= 0 && k < w->contacts.count && w->contacts.list[k].a == a && w->contacts.list[k].b == b;
}

// Whether body a has a contact with collider b, held or not, along `normal` (a mesh's: on that
// plane): the relax stops what still closes on it at the end of the step.
int kyu_contacts_hold_plane(const kyu_world *w, uint32_t a, uint32_t b, vec3s normal) {
    for (int k = owned_at(w, a, b); of_pair(w, k, a, b); k++) // (a mesh's planes, one contact each)
        if (glms_vec3_dot(w->contacts.list[k].normal, normal) >= SAME_PLANE_COS) return 1;
    return 0;
}

int kyu_contacts_solver_owns(const kyu_world *w, uint32_t a, uint32_t b, const vec3s *face) {
    if (!(b & KYU_COLLIDER_BIT) && b < a) {
        uint32_t t = a;
        a = b, b = t;
    }
    for (int k = owned_at(w, a, b); of_pair(w, k, a, b); k++) { // (a mesh's planes, one contact each)
        if (w->contacts.owned[k] & NOT_HELD) continue;
        if (!face || !(b & KYU_COLLIDER_BIT)) return 1; // (only a mesh's triangle has a face)
        if (glms_vec3_dot(w->contacts.list[k].normal, *face) >= SAME_PLANE_COS) return 1;
    }
    return 0;
}
