// SPDX-License-Identifier: MIT
// The soft escape (seed 004's escape, made soft): what the contacts leave after the impacts.
// - The relax: the impact queue leaves slow approaches to the solver (slower than the pair's event
//   speed, or those of a body at its bound of impacts at one instant: a column landing on its
//   floor, a ball squeezed against a wall). Every contact that touches and still closes is solved
//   again, inelastically, with the others at once, so nothing keeps sinking into what it touches.
// - The push: an overlap beyond the slop is taken out over a few steps, never at once: a pass of
//   pseudo-velocities over the contacts (Catto's split impulses) moves the bodies apart by the
//   excess, at most the pair's event speed times a step, and leaves their velocities alone, so the
//   escape adds no kinetic energy, not even through friction (a push in the velocity, as Box2D v3's
//   soft contacts do, then taken back by a relax, had a floor's friction turn a ball pushed off a
//   wall into one rolling away). What it adds is the potential energy of lifting a body out of what
//   it sank into; a bed at rest, every pair within its slop, is never pushed.
// A pair splits the push by inverse mass (all of it to the particle against a collider); under
// gravity a pair one above the other moves only its upper body (shock propagation: bottom up, the
// lower one has been mended on what holds it already). A mesh keeps one contact per body (its
// nearest triangle), so a body in a mesh's corner is moved out of every triangle it overlaps by
// the mesh's own push-out.
#include <string.h>

#include "internal.h"

// Every contact's gap and normal with the bodies where the impacts left them, into its place's
// coefficients and the contact: the relax and the push work on these (a body the impacts turned
// around may be far from where the step began).
static void geometry_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    pair_coef *coef = (pair_coef *)(void *)w->solver.tmp;
    for (int d = begin; d < end; d++)
        for (int k = w->solver.start[d], last = w->solver.start[d + 1]; k < last; k++) {
            contact *c = &w->contacts.list[w->solver.order[k]];
            coef[k].gap = kyu_contact_geometry(w, c, &c->normal);
        }
}

// Under gravity, a pair one above the other (normal within 60 degrees of gravity): +1 if a is the
// upper body, -1 if b is (a collider is never above its body); 0 for any other pair.
static int upper_side(const kyu_world *w, const contact *c) {
    if (!w->gravity_on) return 0;
    float up = -glms_vec3_dot(c->normal, w->down); // > 0: a above b
    if (!(fabsf(up) > 0.5f) || (up < 0.0f && kyu_is_collider(c->b))) return 0;
    return up > 0.0f ? 1 : -1;
}

static int is_mesh(const kyu_world *w, uint32_t b) {
    return kyu_is_collider(b) && w->colliders.list[b & ~KYU_COLLIDER_BIT].type == KYU_SHAPE_MESH;
}

// The relax of one contact that touches now and closes: stopped, unless it closes fast enough to
// bounce (then it reached its contact at the very end of the step: the impact queue's next step).
// A pair one above the other is stopped by its upper body alone (see upper_side): the solve before
// it has settled the lower one on what holds it, and equal shares would halve the error a pass.
static void relax_one(kyu_world *w, contact *c, pair_coef *k) {
    if (c->sensor) return;
    float u = -glms_vec3_dot(glms_vec3_sub(w->bodies.vel[c->a], kyu_side_velocity(w, c->b)), c->normal);
    if (!(u > 0.0f) || k->gap > 0.0f) return;
    if (u > k->ev && !(w->gravity_on && k->e * u <= w->def.restitution_threshold)) return;
    int upper = upper_side(w, c);
    if (!upper) {
        kyu_contact_solve(w, c, k, 0.0f, 1.0f);
        return;
    }
    pair_coef one = *k; // the lower body's masses left out
    if (upper > 0)
        one.ib = one.iib = one.rb = 0.0f;
    else
        one.ia = one.iia = one.ra = 0.0f;
    one.kn = 1.0f / (one.ia + one.ib);
    if (k->kt > 0.0f) {
        const body_store *s = &w->bodies;
        float ra = s->radius[c->a], rb = kyu_is_collider(c->b) ? 0.0f : s->radius[c->b];
        one.kt = 1.0f / (one.ia + one.ib + ra * ra * one.iia + rb * rb * one.iib);
    }
    kyu_contact_solve(w, c, &one, 0.0f, 1.0f);
}

// The fraction of an overlap's excess over the slop one step's push takes out: all of it, but never
// more than the pair's event speed covers in a step (the most a pair the solver owns may close in
// one), and without gravity never more than half the pair's margin (every approach is an impact
// there, and a body moved farther could land inside a pair the solver does not know).
#define PUSH_FRACTION 1.0f

// The push of one contact on the pseudo-velocities vp (kept in the coefficients' spare: the
// accumulated pseudo-impulse, from 0 each step).
typedef struct push_pass {
    kyu_world *w;
    vec3s *vp;                        // per slot: the pseudo-velocity of the push
    pair_coef *coef;                  // per place in the order
    int moved[KYU_SOLVE_DOMAINS + 1]; // per domain: whether the pass changed a pseudo-impulse
} push_pass;

// Returns whether it changed the pair's pseudo-impulse.
static int push_one(push_pass *x, const contact *c, pair_coef *k) {
    kyu_world *w = x->w;
    if (c->sensor || is_mesh(w, c->b)) return 0;
    float excess = -k->gap - kyu_pair_slop(w, c->a, c->b);
    float dt = w->def.fixed_dt;
    if (!(excess > 0.0f)) return 0;
    float r = kyu_is_collider(c->b) ? w->bodies.radius[c->a]
                                    : kyu_minf(w->bodies.radius[c->a], w->bodies.radius[c->b]);
    float target = kyu_minf(PUSH_FRACTION * excess, KYU_SPECULATIVE_RATIO * r) / dt;
    int upper = upper_side(w, c), col = kyu_is_collider(c->b);
    float ia = upper < 0 ? 0.0f : k->ia, ib = upper > 0 || col ? 0.0f : k->ib;
    vec3s vb = col ? glms_vec3_zero() : x->vp[c->b];
    float vn = glms_vec3_dot(glms_vec3_sub(x->vp[c->a], vb), c->normal);
    float j = kyu_maxf(k->spare + (target - vn) / (ia + ib), 0.0f), dj = j - k->spare;
    k->spare = j;
    x->vp[c->a] = glms_vec3_add(x->vp[c->a], glms_vec3_scale(c->normal, dj * ia));
    if (!col) x->vp[c->b] = glms_vec3_sub(x->vp[c->b], glms_vec3_scale(c->normal, dj * ib));
    return dj != 0.0f;
}

static void push_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    push_pass *x = ctx;
    const kyu_world *w = x->w;
    for (int d = begin; d < end; d++) {
        int moved = 0;
        for (int k = w->solver.start[d], last = w->solver.start[d + 1]; k < last; k++)
            moved |= push_one(x, &w->contacts.list[w->solver.order[k]], &x->coef[k]);
        x->moved[d] = moved;
    }
}

// The bodies moved by their pseudo-velocities. One pushed faster than a tenth of the sleep speed is
// not at rest, though its velocity is: an island must not fall asleep with an overlap it is still
// taking out (it would keep it while it sleeps).
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
    push_pass *x = ctx;
    kyu_world *w = x->w;
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

// The pseudo-velocities of the push, domain by domain as the solves run, then the bodies moved by
// them (and out of the meshes they overlap).
static void push_out(kyu_world *w, int iterations) {
    push_pass x = {.w = w, .coef = (pair_coef *)(void *)w->solver.tmp};
    x.vp = kyu_arena_take(&w->step.arena, (size_t)w->bodies.high * sizeof *x.vp);
    kyu_parallel_for(w, w->step.active_count, 4096, zero_task, &x);
    for (int k = 0; k < w->contacts.count; k++) x.coef[k].spare = 0.0f;
    for (int it = 0; it < iterations; it++) { // until a pass changes nothing: then neither would the next
        kyu_solver_run(w, push_task, &x);
        int moved = 0;
        for (int d = 0; d <= KYU_SOLVE_DOMAINS; d++) moved |= x.moved[d];
        if (!moved) break;
    }
    kyu_parallel_for(w, w->step.active_count, 4096, move_task, &x);
    kyu_arena_reset(&w->step.arena);
    kyu_solver_run(w, wall_task, &x);
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

// The relax and the push run a quarter of the solve's iterations (at least one): what they mend is
// what this step's impacts left, a small part of what the solve did.
int kyu_contacts_relax(kyu_world *w) {
    int iterations = w->def.solver_iterations > 0 ? (w->def.solver_iterations + 3) / 4 : 0;
    kyu_parallel_for(w, KYU_SOLVE_DOMAINS + 1, 1, geometry_task, w);
    for (int it = 0; it < iterations; it++) kyu_domain_pass_run(w, relax_one);
    push_out(w, w->def.solver_iterations);
    if (w->def.enable_impact_events && report_impacts(w)) return -1;
    // The solver's order and its scratch are idle until the next step: given back if large.
    GIVE_BACK(w->contacts.meet, w->contacts.meet_cap);
    GIVE_BACK(w->solver.order, w->solver.order_cap);
    GIVE_BACK(w->solver.tmp, w->solver.tmp_cap);
    return 0;
}
