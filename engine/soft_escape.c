// SPDX-License-Identifier: MIT
// The soft escape: what the contacts leave out of the velocity solve and the impacts.
// - The push, at the start of each step (kyu_contacts_push, called by the velocity solve once the
//   rows are filled): an overlap beyond the slop is taken out over a few steps, never at once: a
//   pass of pseudo-velocities over the contacts (Catto's split impulses) moves the bodies apart by
//   the excess, at most a quarter of the pair's smaller radius a step, and leaves their velocities
//   alone, so the escape adds no kinetic energy, not even through friction (a push in the velocity,
//   as Box2D v3's soft contacts do, then taken back by a relax, had a floor's friction turn a ball
//   pushed off a wall into one rolling away). What it adds is the potential energy of lifting a body
//   out of what it sank into; a bed at rest, every pair within its slop, is never pushed. It runs
//   on the contact list the last step found at these very positions (every pair within its margin):
//   run after the impacts instead, on the step's start list, it pushed beads into pairs the impacts
//   had just made and the list did not hold (a 1 cm pour kept overlaps of 40% of r).
// - The relax, after the impacts: the impact queue leaves slow approaches to the solver (slower
//   than the pair's event speed, or those of a body at its bound of impacts at one instant: a column
//   landing on its floor, a ball squeezed against a wall). Every contact that touches and still
//   closes is solved again, inelastically, with the others at once, so nothing keeps sinking into
//   what it touches. Then every body leaves the static colliders it still overlaps.
// A pair splits the push by inverse mass (all of it to the particle against a collider); under
// gravity a pair one above the other moves only its upper body (shock propagation: bottom up, the
// lower one has been mended on what holds it already). A mesh keeps one contact per body (its
// nearest triangle), so a body in a mesh's corner is moved out of every triangle it overlaps by
// the mesh's own push-out.
#include <string.h>

#include "internal.h"

// Every contact's gap and normal with the bodies where the impacts left them, into its row and the
// contact (and a collider's velocity at the new contact point): the relax and the push work on
// these (a body the impacts turned around may be far from where the step began).
static void geometry_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    const body_store *s = &w->bodies;
    for (int d = begin; d < end; d++)
        for (int k = w->solver.start[d], last = w->solver.start[d + 1]; k < last; k++) {
            contact *c = &w->contacts.list[w->solver.order[k]];
            solver_row *r = &w->solver.row[k];
            r->gap = kyu_contact_geometry(w, c, &c->normal);
            r->n = kyu_f3_of(c->normal);
            r->flags &= ~(uint32_t)(ROW_UPPER_A | ROW_UPPER_B);
            if (w->gravity_on) { // a pair one above the other (normal within 60 degrees of gravity)
                float up = -glms_vec3_dot(c->normal, w->down); // > 0: a above b
                if (up > 0.5f) r->flags |= ROW_UPPER_A;
                if (up < -0.5f && !kyu_is_collider(c->b)) r->flags |= ROW_UPPER_B;
            }
            if (kyu_is_collider(c->b) && !c->sensor)
                r->vb = kyu_f3_of(kyu_collider_point_velocity(
                    &w->colliders.list[c->b & ~KYU_COLLIDER_BIT],
                    glms_vec3_sub(s->pos[c->a], glms_vec3_scale(c->normal, s->radius[c->a])), c->normal));
        }
}

// The relax of one contact that touches now and closes: stopped, unless it closes fast enough to
// bounce (then it reached its contact at the very end of the step: the impact queue's next step).
// A pair one above the other is stopped by its upper body alone (ROW_UPPER_*) while the lower one
// does not rise into it: the solve before it has settled the lower one on what holds it, and equal
// shares would halve the error a pass.
static void relax_one(kyu_world *w, solver_row *r) {
    if (r->flags & ROW_SENSOR) return;
    const solver_body *sb = w->solver.body;
    kyu_f3 va = sb[r->a].v, vb = r->vb;
    if (r->b != KYU_ROW_STATIC) vb.x += sb[r->b].v.x, vb.y += sb[r->b].v.y, vb.z += sb[r->b].v.z;
    float u = -((va.x - vb.x) * r->n.x + (va.y - vb.y) * r->n.y + (va.z - vb.z) * r->n.z);
    if (!(u > 0.0f) || r->gap > 0.0f) return;
    if (u > r->ev && !(w->gravity_on && r->e * u <= w->def.restitution_threshold)) return;
    // The upper body alone, unless the lower one rises into it: the upper would then take the
    // lower's velocity while the lower kept it, making momentum and energy (a ball struck up into
    // the one above it: 1 kg m/s from nothing). Both share the stop then, as the solve's shock does.
    int upper_a = (r->flags & ROW_UPPER_A) != 0, upper_b = (r->flags & ROW_UPPER_B) != 0;
    if (upper_a || upper_b) {
        float lower_up = upper_a ? (vb.x * r->n.x + vb.y * r->n.y + vb.z * r->n.z)
                                 : -(va.x * r->n.x + va.y * r->n.y + va.z * r->n.z); // along lower to upper
        if (lower_up > 0.0f) upper_a = upper_b = 0;
    }
    kyu_row_solve(w->solver.body, r, 0.0f, 1.0f, upper_b ? 0.0f : 1.0f, upper_a ? 0.0f : 1.0f);
}

// The fraction of an overlap's excess over the slop one step's push takes out: all of it, but never
// more than a quarter of the pair's smaller radius in a step (the most a pair the solver owns may
// close in one).
#define PUSH_FRACTION 1.0f

// An excess over the slop within this fraction of it is none. The push leaves a pair at its slop,
// and rounding puts it a hair deeper by the next step: the push then ran every pass of every step of
// a resting pile for nothing (PILE's fixed-rotation columns at rest: 8 passes a step, now 0).
#define PUSH_BAND 0.01f

// The push of one row on the pseudo-velocities vp (the accumulated pseudo-impulse in the row's pj,
// from 0 each step).
typedef struct push_pass {
    kyu_world *w;
    vec3s *vp;                        // per slot: the pseudo-velocity of the push
    int moved[KYU_SOLVE_DOMAINS + 1]; // per domain: whether the pass changed a pseudo-impulse
} push_pass;

// Returns whether it changed the pair's pseudo-impulse.
static int push_one(push_pass *x, solver_row *r) {
    kyu_world *w = x->w;
    if (r->flags & (ROW_SENSOR | ROW_MESH)) return 0;
    int col = r->b == KYU_ROW_STATIC;
    float slop = kyu_pair_slop(w, r->a, col ? KYU_COLLIDER_BIT : r->b), excess = -r->gap - slop;
    if (excess > 0.0f && excess <= PUSH_BAND * slop) excess = 0.0f; // a hair past it: at its slop
    vec3s vb = col ? glms_vec3_zero() : x->vp[r->b];
    vec3s n = kyu_vec3_of(r->n);
    float vn = glms_vec3_dot(glms_vec3_sub(x->vp[r->a], vb), n), dt = w->def.fixed_dt;
    // A pair within its slop is pushed by nothing, but it may not close more than its slop allows:
    // a body pushed up out of the one below pushes the one above it in turn (a column's bodies
    // each move by what sank below them), where it used to be pushed into it (a 1 cm pour landing
    // as a lattice: pairs 90% of r deep, made by the push).
    if (!(excess > 0.0f) && !(vn * dt < excess) && r->pj == 0.0f) return 0;
    float rad = col ? w->bodies.radius[r->a] : kyu_minf(w->bodies.radius[r->a], w->bodies.radius[r->b]);
    float target =
        excess > 0.0f ? kyu_minf(PUSH_FRACTION * excess, KYU_SPECULATIVE_RATIO * rad) / dt : excess / dt;
    const solver_body *sb = w->solver.body;
    float ia = (r->flags & ROW_UPPER_B) ? 0.0f : sb[r->a].im,
          ib = (r->flags & ROW_UPPER_A) || col ? 0.0f : sb[r->b].im;
    if (!(ia + ib > 0.0f)) return 0; // neither side may move (a kinematic body on top)
    float j = kyu_maxf(r->pj + (target - vn) / (ia + ib), 0.0f), dj = j - r->pj;
    r->pj = j;
    x->vp[r->a] = glms_vec3_add(x->vp[r->a], glms_vec3_scale(n, dj * ia));
    if (!col) x->vp[r->b] = glms_vec3_sub(x->vp[r->b], glms_vec3_scale(n, dj * ib));
    return dj != 0.0f;
}

static void push_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    push_pass *x = ctx;
    const kyu_world *w = x->w;
    for (int d = begin; d < end; d++) {
        int moved = 0;
        for (int k = w->solver.start[d], last = w->solver.start[d + 1]; k < last; k++)
            moved |= push_one(x, &w->solver.row[k]);
        x->moved[d] = moved;
    }
}

// The bodies moved by their pseudo-velocities. The contact list holds every pair within its margin
// of the positions the push starts from (found at the end of the last step), so a push moves a body
// into a pair the list does not know only when it moves it farther than a margin (the bottom of a
// deep overlap under a column). One pushed faster than a tenth of the sleep speed is not at rest,
// though its velocity is: an island must not fall asleep with an overlap it is still taking out (it
// would keep it while it sleeps).
static void move_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    push_pass *x = ctx;
    kyu_world *w = x->w;
    float dt = w->def.fixed_dt, stir = 0.01f * w->def.sleep_speed * w->def.sleep_speed;
    for (int k = begin; k < end; k++) {
        uint32_t i = w->step.active[k];
        vec3s vp = x->vp[i];
        if (vp.x == 0.0f && vp.y == 0.0f && vp.z == 0.0f) continue;
        w->bodies.pos[i] = glms_vec3_add(w->bodies.pos[i], glms_vec3_scale(vp, dt));
        if (glms_vec3_norm2(vp) >= stir) kyu_islands_stir(&w->bodies, i);
    }
}

// Each row's gap after the push, and the solve's target from it.
static void regap_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    push_pass *x = ctx;
    kyu_world *w = x->w;
    float dt = w->def.fixed_dt;
    for (int d = begin; d < end; d++)
        for (int k = w->solver.start[d], last = w->solver.start[d + 1]; k < last; k++) {
            solver_row *r = &w->solver.row[k];
            if (r->flags & ROW_SENSOR) continue;
            vec3s dv = r->b == KYU_ROW_STATIC ? x->vp[r->a] : glms_vec3_sub(x->vp[r->a], x->vp[r->b]);
            r->gap += glms_vec3_dot(dv, kyu_vec3_of(r->n)) * dt;
            r->target = r->gap > 0.0f ? -r->gap / dt : 0.0f;
        }
}

static void zero_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    push_pass *x = ctx;
    for (int k = begin; k < end; k++) x->vp[x->w->step.active[k]] = glms_vec3_zero();
}

// Last, every body is moved out of what it still overlaps of a collider, the whole excess at once:
// nothing passes through a wall, however hard its neighbours push it there (a frictionless bed
// presses on its walls as a liquid does). A mesh is left by every triangle the body overlaps.
static void wall_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    body_store *s = &w->bodies;
    for (int d = begin; d < end; d++)
        for (int k = w->solver.start[d], last = w->solver.start[d + 1]; k < last; k++) {
            const contact *c = &w->contacts.list[w->solver.order[k]];
            if (c->sensor || !kyu_is_collider(c->b)) continue;
            const collider *col = &w->colliders.list[c->b & ~KYU_COLLIDER_BIT];
            if (col->type == KYU_SHAPE_MESH) {
                s->pos[c->a] = kyu_mesh_push_out(col, col->box.center, s->pos[c->a], s->radius[c->a],
                                                 kyu_body_slop(w, c->a));
                continue;
            }
            vec3s n = c->normal;
            float excess = -kyu_contact_gap(w, c, &n) - kyu_body_slop(w, c->a);
            if (excess > 0.0f) s->pos[c->a] = glms_vec3_add(s->pos[c->a], glms_vec3_scale(n, excess));
        }
}

// The push, at the start of the step, before the velocity solve (kyu_contacts_solve_velocities
// calls it once the rows are filled): the pseudo-velocities, domain by domain as the solves run,
// until a pass changes nothing or for as many passes as the solve has, then the bodies moved by
// them and the rows' gaps with them.
void kyu_contacts_push(kyu_world *w) {
    push_pass x = {.w = w};
    x.vp = kyu_arena_take(&w->step.arena, (size_t)w->bodies.high * sizeof *x.vp);
    kyu_parallel_for(w, w->step.active_count, 4096, zero_task, &x);
    for (int it = 0; it < w->solver.passes; it++) {
        kyu_solver_run(w, push_task, &x);
        int moved = 0;
        for (int d = 0; d <= KYU_SOLVE_DOMAINS; d++) moved |= x.moved[d];
        if (!moved) break;
    }
    kyu_parallel_for(w, w->step.active_count, 4096, move_task, &x);
    kyu_parallel_for(w, KYU_SOLVE_DOMAINS + 1, 1, regap_task, &x);
    kyu_arena_reset(&w->step.arena);
}

// The rows' impulses back to their contacts: the next step's warm start, the events' impulses.
static void give_back_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    for (int d = begin; d < end; d++)
        for (int k = w->solver.start[d], last = w->solver.start[d + 1]; k < last; k++) {
            contact *c = &w->contacts.list[w->solver.order[k]];
            const solver_row *r = &w->solver.row[k];
            if (r->flags & ROW_SENSOR) continue;
            c->jn = r->jn, c->jt = kyu_vec3_of(r->jt), c->jr = kyu_vec3_of(r->jr);
        }
}

// The impacts the solver took (the pairs it held that met faster than the restitution threshold:
// an inelastic landing, a pile's pairs closing fast) as impact events, with the impulses of the
// solve and the relax, at the time the pair would have met going straight: games play sounds from
// them. In the solver's order, after the queue's.
static int report_impacts(kyu_world *w) {
    for (int k = 0; k < w->contacts.count; k++) {
        int i = w->solver.order[k];
        const contact *c = &w->contacts.list[i];
        if (c->mark != SOLVER_IMPACT || !(c->jn > 0.0f)) continue; // it met (it pushed) this step
        float u = w->contacts.meet[i];
        float t = c->gap > 0.0f ? kyu_minf(c->gap / (u * w->def.fixed_dt), 1.0f) : 0.0f;
        int recorded = w->events.impact_count;
        if (kyu_impact_record(w, c->a, c->b, c->normal, u, t)) return -1;
        if (w->events.impact_count > recorded) {
            w->events.impacts[recorded].normal_impulse = c->jn;
            w->events.impacts[recorded].tangent_impulse = c->jt;
        }
    }
    return 0;
}

// The relax runs a quarter of the solve's iterations (at least one): what it mends is what this
// step's impacts left, a small part of what the solve did.
int kyu_contacts_relax(kyu_world *w) {
    int iterations = w->solver.passes > 0 ? (w->solver.passes + 3) / 4 : 0;
    kyu_parallel_for(w, KYU_SOLVE_DOMAINS + 1, 1, geometry_task, w);
    kyu_solver_gather(w);
    for (int it = 0; it < iterations; it++) kyu_row_pass_run(w, relax_one);
    kyu_solver_scatter(w);
    kyu_audit_mark(w, KYU_AUDIT_RELAX);
    kyu_parallel_for(w, KYU_SOLVE_DOMAINS + 1, 1, give_back_task, w);
    kyu_solver_run(w, wall_task, w);
    kyu_audit_mark(w, KYU_AUDIT_WALL_PUSH);
    if (w->def.enable_impact_events && report_impacts(w)) return -1;
    // The solver's order and its scratch are idle until the next step: given back if large.
    GIVE_BACK(w->contacts.meet, w->contacts.meet_cap);
    GIVE_BACK(w->solver.order, w->solver.order_cap);
    GIVE_BACK(w->solver.tmp, w->solver.tmp_cap);
    GIVE_BACK(w->solver.row, w->solver.row_cap);
    GIVE_BACK(w->solver.body, w->solver.body_cap);
    return 0;
}
