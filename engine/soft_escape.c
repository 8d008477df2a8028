// SPDX-License-Identifier: MIT
// The soft escape: what the contacts leave out of the velocity solve and the impacts.
// - The relax, after the impacts: the impact queue leaves slow approaches to the solver (slower
//   than the pair's event speed, or those of a body at its bound of impacts at one instant: a column
//   landing on its floor, a ball squeezed against a wall). Every contact that touches and still
//   closes is solved again, inelastically, with the others at once, so nothing keeps sinking into
//   what it touches. Then every body leaves the static colliders it still overlaps.
// - The push, last in the step (kyu_contacts_push_out), on the contacts just found where the
//   bodies stand (every pair within its margin), when one of them is deeper than its slop: an
//   overlap beyond the slop is taken out over a few steps, never at once: passes of
//   pseudo-velocities over the contacts (Catto's split impulses) move the bodies apart by the
//   excess, at most a quarter of the pair's smaller radius a step, and leave their velocities
//   alone, so the escape adds no kinetic energy, not even through friction (a push in the velocity,
//   as Box2D v3's soft contacts do, then taken back by a relax, had a floor's friction turn a ball
//   pushed off a wall into one rolling away). What it adds is the potential energy of lifting a body
//   out of what it sank into; a bed at rest, every pair within its slop, is never pushed. Run on the
//   relax's list (the step's start) instead, it pushed beads into pairs the impacts had just made
//   and that list did not hold (a 1 cm pour kept overlaps of 40% of r). Run at the start of the
//   next step (as it was), it left a program to draw and measure what it had yet to take out: a
//   1 cm pour's beads 5-11% of r deep after landing, a toppling heap's balls up to 6%.
//   A body it moves farther than the margin (the top of a column whose every pair sank into the one
//   below rises by their sum) may meet a body that is no contact: such pairs become rows of the
//   push too, found after its passes and solved with the rest, so it moves nothing into them.
// A pair splits the push by inverse mass (all of it to the particle against a collider); under
// gravity a pair one above the other moves only its upper body (shock propagation: bottom up, the
// lower one has been mended on what holds it already). A mesh gives a body a contact for each of
// its planes the body touches (kyu_mesh_planes), which hold it in the push as a box's faces do;
// last, the mesh's own push-out moves it out of every triangle it still overlaps.
#include <stdlib.h>
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
            r->flags |= kyu_upper_flags(w->down, c->normal, kyu_is_collider(c->b));
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

// Rounds of the push's search for pairs it would close that are no contacts (find_near): a round's
// rows may push on into more. With 2, the 5 mm pours still ended steps with pairs up to 12% of r
// deep that no row held; with 6 (3 seeds) or 8 (6 seeds), none.
#define NEAR_ROUNDS 8

// The push of one row on the pseudo-velocities vp (the accumulated pseudo-impulse in the row's pj,
// from 0 each step).
typedef struct push_pass {
    kyu_world *w;
    vec3s *vp;                   // per slot: the pseudo-velocity of the push
    int check;                   // > 0: this pass (the check-th) asks which domains stay deep
    int meshes;                  // the world has a mesh collider (move_task: past_meshes)
    float g_dt2;                 // |g| dt^2 (0 without gravity: no pass beyond the step's)
    int moved[KYU_SOLVE_GROUPS]; // per domain: whether the pass changed a pseudo-impulse
    int open[KYU_SOLVE_GROUPS];  // per domain: a pair would stay deeper than twice its slop
    // The pairs the push would close that are no contacts (find_near): per slice of the active
    // bodies, the most a body moves and the least margin; then how many rows, then where they go.
    int slices;
    float far[KYU_MAX_SLICES], least_margin[KYU_MAX_SLICES];
    int count[KYU_MAX_SLICES];
    float reach;                   // a body moved farther than this may close a pair that is no contact
    int near;                      // the rows in w->solver.near (from 0 each step)
    float deepest[KYU_MAX_SLICES]; // per slice: the deepest pair of a body moved far (far_depth_task)
} push_pass;

// Returns whether it changed the pair's pseudo-impulse; in a checking pass, sets *open when the
// pair would have stayed deeper than twice its slop (before this pass moved it) and may ask for
// another pass (kyu_may_ask_pass: a bead's, not a ball's).
static int push_one(push_pass *x, push_row *r, int *open) {
    if (!(r->ia + r->ib > 0.0f)) return 0; // neither side may move (a kinematic body on top, a sensor)
    int col = r->b == KYU_ROW_STATIC;
    vec3s vb = col ? glms_vec3_zero() : x->vp[r->b];
    vec3s n = kyu_vec3_of(r->n);
    float vn = glms_vec3_dot(glms_vec3_sub(x->vp[r->a], vb), n);
    // A pair within its slop is pushed by nothing, but it may not close more than its slop allows
    // (target <= 0: how far it may close, a velocity): a body pushed up out of the one below pushes
    // the one above it in turn (a column's bodies each move by what sank below them), where it used
    // to be pushed into it (a 1 cm pour landing as a lattice: pairs 90% of r deep, made by the push).
    if (!(r->target > 0.0f) && !(vn < r->target) && r->pj == 0.0f) return 0;
    if (x->check && !*open && (r->target - vn) * x->w->def.fixed_dt > r->slop)
        *open = kyu_may_ask_pass(x->check, x->w->solver.passes, x->g_dt2, r->slop);
    float j = kyu_maxf(r->pj + (r->target - vn) / (r->ia + r->ib), 0.0f), dj = j - r->pj;
    r->pj = j;
    x->vp[r->a] = glms_vec3_add(x->vp[r->a], glms_vec3_scale(n, dj * r->ia));
    if (!col) x->vp[r->b] = glms_vec3_sub(x->vp[r->b], glms_vec3_scale(n, dj * r->ib));
    return dj != 0.0f;
}

static void push_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    push_pass *x = ctx;
    const kyu_world *w = x->w;
    for (int d = begin; d < end; d++) {
        int moved = 0, open = 0;
        for (int k = w->solver.start[d], last = w->solver.start[d + 1]; k < last; k++)
            moved |= push_one(x, &w->solver.push[k], &open);
        x->moved[d] = moved, x->open[d] = open;
    }
}

// A body the push moves (straight, unswept) from p0 to p1 past a mesh: back through every face its
// centre crossed (kyu_mesh_push_back). Without this, a 2 mm bead in a mesh box's corner, pushed by
// its pairs more than a radius in a step as a column landed, was put into the wall (no contact
// with it, so no wall push) and the next step's push carried it through. (Pushing such a body out
// of a mesh it has no contact with at once, too, shoved corner beads into their neighbours: the
// deepest pair of 1 cm beads in a one-mesh box 11% -> 25% of r.)
static vec3s past_meshes(const kyu_world *w, uint32_t i, vec3s p0, vec3s p1) {
    float r = w->bodies.radius[i], slop = kyu_body_slop(w, i);
    for (kyu_partner_iter it = kyu_partners(&w->pairs, i); kyu_next_partner(&w->pairs, &it);) {
        uint32_t b = it.partner;
        if (!(b & KYU_COLLIDER_BIT) || kyu_pair_is_sensor(w, i, b)) continue;
        const collider *col = &w->colliders.list[b & ~KYU_COLLIDER_BIT];
        if (col->type != KYU_SHAPE_MESH) continue;
        const contact *held = kyu_contact_of(w, i, b);
        p1 = kyu_mesh_push_back(col, col->box.center, p0, p1, r, slop, held ? &held->normal : NULL);
    }
    return p1;
}

// The bodies moved by their pseudo-velocities. The contact list holds every pair within its margin
// of the positions the push starts from (found just before it), and find_near the pairs beyond it
// that the push would close. One pushed faster than a tenth of the sleep speed is not at rest,
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
        vec3s p0 = w->bodies.pos[i], p1 = glms_vec3_add(p0, glms_vec3_scale(vp, dt));
        w->bodies.pos[i] = x->meshes ? past_meshes(w, i, p0, p1) : p1;
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
    kyu_world *w = ctx;
    body_store *s = &w->bodies;
    for (int d = begin; d < end; d++)
        for (int k = w->solver.start[d], last = w->solver.start[d + 1]; k < last; k++) {
            const contact *c = &w->contacts.list[w->solver.order[k]];
            if (c->sensor || !kyu_is_collider(c->b)) continue;
            const collider *col = &w->colliders.list[c->b & ~KYU_COLLIDER_BIT];
            if (col->type == KYU_SHAPE_MESH) {
                s->pos[c->a] = kyu_mesh_push_out(col, col->box.center, s->pos[c->a], s->radius[c->a],
                                                 kyu_body_slop(w, c->a), c->normal);
                continue;
            }
            vec3s n = c->normal;
            float excess = -kyu_contact_gap(w, c, &n) - kyu_body_slop(w, c->a);
            if (excess > 0.0f) s->pos[c->a] = glms_vec3_add(s->pos[c->a], glms_vec3_scale(n, excess));
        }
}

// A row of the push: what push_one reads of a contact found at the end of the step. Its target is
// how fast the push separates the pair, taking out its excess over the slop in one step but never
// more than a quarter of the pair's smaller radius (the most a pair the solver owns may close in
// one), or, within its slop, how fast it may close; under gravity a pair one above the other moves
// only its upper body, and a pair against a collider only the body.
static void fill_push_row(const kyu_world *w, const contact *c, push_row *r) {
    const body_store *s = &w->bodies;
    int col = kyu_is_collider(c->b);
    r->n = kyu_f3_of(c->normal);
    r->a = c->a;
    r->b = col ? KYU_ROW_STATIC : c->b;
    r->pj = 0.0f;
    r->slop = kyu_pair_slop(w, c->a, c->b);
    float excess = -c->gap - r->slop, dt = w->def.fixed_dt;
    if (excess > 0.0f && excess <= KYU_PUSH_BAND * r->slop) excess = 0.0f; // a hair past it: at its slop
    float rad = col ? s->radius[c->a] : kyu_minf(s->radius[c->a], s->radius[c->b]);
    r->target =
        excess > 0.0f ? kyu_minf(PUSH_FRACTION * excess, KYU_SPECULATIVE_RATIO * rad) / dt : excess / dt;
    uint32_t upper = kyu_upper_flags(w->down, c->normal, col);
    r->ia = upper == ROW_UPPER_B ? 0.0f : s->inv_mass[c->a];
    r->ib = upper == ROW_UPPER_A || col ? 0.0f : s->inv_mass[c->b];
    if (c->sensor) r->ia = r->ib = 0.0f; // a sensor pushes nothing
}

static void push_rows_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    for (int d = begin; d < end; d++)
        for (int k = w->solver.start[d], last = w->solver.start[d + 1]; k < last; k++)
            fill_push_row(w, &w->contacts.list[w->solver.order[k]], &w->solver.push[k]);
}

// Every contact's gap where the push left the bodies, found as a snapshot's load finds it (the
// normal kept), so a world saved after the step and loaded steps on with the same bits.
static void gaps_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    for (int k = begin; k < end; k++) {
        contact *c = &w->contacts.list[k];
        vec3s normal = c->normal;
        c->gap = kyu_contact_gap(w, c, &normal);
    }
}

// ---- pairs the push would close that are no contacts -----------------------------------------
//
// The push's rows are the contacts, every pair within its margin where the push starts. A body it
// moves farther than that (the top of a column whose every pair sank into the one below: the
// column rises by the sum) can be pushed into a body beyond the margin, and the step ended with an
// overlap that no contact held and that the step's max_overlap, read from the contacts, did not
// see: a 5 mm pour while landing had pairs 0.8 r deep where it said 0.5, a 1 cm pour 0.3-0.4 r
// where it said 0.1-0.2. So after the passes, every pair of bodies that is no contact, one of
// which moves farther than half the least margin of the bodies (closer, two bodies cannot close
// a pair beyond its margin), and that the pseudo-velocities would close past its slop, becomes a
// row of the push too (its target lets it close what it has of a gap, as a contact's does), and the
// passes run again with those rows after the others, until a round finds none (NEAR_ROUNDS at
// most). The pours' deepest pair while landing is then 0.7-2.9% of r (1 cm) and 16-20% (5 mm).
// What the rounds do not reach (a deep column dropped at once) max_overlap still sees: the push
// measures every pair of the bodies it moved that far (far_depth_task). Scenes whose push moves
// nothing that far (PILE's balls) never look.

// Whether the push moves body i farther than x->reach (set by moves_far) this step.
static int moved_far(const push_pass *x, uint32_t i) {
    float dt = x->w->def.fixed_dt;
    return glms_vec3_norm2(x->vp[i]) * dt * dt > x->reach * x->reach;
}

// The most a slice of the active bodies moves in the push, and the least margin among them.
static void far_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    push_pass *x = ctx;
    const kyu_world *w = x->w;
    for (int sl = begin; sl < end; sl++) {
        float far = 0.0f, least = INFINITY;
        for (int k = kyu_slice_start(w->step.active_count, x->slices, sl);
             k < kyu_slice_start(w->step.active_count, x->slices, sl + 1); k++) {
            uint32_t i = w->step.active[k];
            far = kyu_maxf(far, glms_vec3_norm2(x->vp[i]));
            least = kyu_minf(least, kyu_body_margin(w, i));
        }
        x->far[sl] = far, x->least_margin[sl] = least;
    }
}

// A row's pair (a, b) as one key: the order of the near rows and of their sorted keys.
static uint64_t row_key(const push_row *r) { return (uint64_t)r->a << 32 | r->b; }

// Whether pair (a, b) (a < b; b may be a collider) has a row already: it is a contact, or an
// earlier round's (found by bisection in their sorted keys: a tall pour of 20,000 beads made 12,000
// of them, and a scan of those for every pair took half its time).
static int has_row(const push_pass *x, uint32_t a, uint32_t b) {
    const kyu_world *w = x->w;
    if (kyu_contact_of(w, a, b)) return 1;
    uint64_t key = (uint64_t)a << 32 | b;
    int lo = 0, hi = x->near;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (w->solver.near_key[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < x->near && w->solver.near_key[lo] == key;
}

static int by_key(const void *p, const void *q) {
    uint64_t x = *(const uint64_t *)p, y = *(const uint64_t *)q;
    return (x > y) - (x < y);
}

// Rows into pair order. The push runs the near rows one after another, each on what the ones before
// it moved, so their order is part of the answer; a body's partners come in the broadphase's order,
// and a pair found mid-step (a late insert's query) comes in the order the grid's cells are visited:
// a bed of mixed sizes ended in another state hash for cells of 0.012 and 0.05 m than for the chosen
// one, once a push ran two rows of one body found so (2026-11-30). A body has a few near rows: an
// insertion sort.
static void sort_rows_by_pair(push_row *rows, int n) {
    for (int i = 1; i < n; i++) {
        push_row r = rows[i];
        int j = i;
        for (; j > 0 && row_key(&rows[j - 1]) > row_key(&r); j--) rows[j] = rows[j - 1];
        rows[j] = r;
    }
}

// Body a's pairs with the bodies after it, or with any body that does not move far, that are no
// contacts and that the push would close past their slop, as rows into `out` (NULL: counted only).
// Each pair is looked at from one side: the lower slot's, unless only the higher one moves far.
static int near_rows_of(const push_pass *x, uint32_t a, push_row *out) {
    const kyu_world *w = x->w;
    const body_store *s = &w->bodies;
    float dt = w->def.fixed_dt;
    int n = 0;
    if (!moved_far(x, a)) return 0;
    vec3s pa = glms_vec3_add(s->pos[a], glms_vec3_scale(x->vp[a], dt));
    for (kyu_partner_iter it = kyu_partners(&w->pairs, a); kyu_next_partner(&w->pairs, &it);) {
        uint32_t b = it.partner;
        if (b & KYU_COLLIDER_BIT) continue; // the wall push leaves colliders
        if ((moved_far(x, b) && b < a) || kyu_pair_is_sensor(w, a, b) ||
            has_row(x, a < b ? a : b, a < b ? b : a))
            continue;
        vec3s pb = glms_vec3_add(s->pos[b], glms_vec3_scale(x->vp[b], dt));
        vec3s d = glms_vec3_sub(pa, kyu_periodic_image(&w->periodic, pa, pb));
        float slop = kyu_pair_slop(w, a, b);
        if (!(glms_vec3_norm(d) - s->radius[a] - s->radius[b] < slop)) continue;
        if (out) { // the row, as a contact's, from where the bodies stand now
            contact c;
            memset(&c, 0, sizeof c);
            c.a = a < b ? a : b, c.b = a < b ? b : a;
            c.gap = kyu_contact_geometry(w, &c, &c.normal);
            fill_push_row(w, &c, &out[n]);
        }
        n++;
    }
    if (out) sort_rows_by_pair(out, n);
    return n;
}

static void near_count_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    push_pass *x = ctx;
    const kyu_world *w = x->w;
    for (int sl = begin; sl < end; sl++) {
        int n = 0;
        for (int k = kyu_slice_start(w->step.active_count, x->slices, sl);
             k < kyu_slice_start(w->step.active_count, x->slices, sl + 1); k++)
            n += near_rows_of(x, w->step.active[k], NULL);
        x->count[sl] = n;
    }
}

static void near_fill_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    push_pass *x = ctx;
    const kyu_world *w = x->w;
    for (int sl = begin; sl < end; sl++) {
        int at = x->near + x->count[sl];
        for (int k = kyu_slice_start(w->step.active_count, x->slices, sl);
             k < kyu_slice_start(w->step.active_count, x->slices, sl + 1); k++)
            at += near_rows_of(x, w->step.active[k], w->solver.near + at);
    }
}

// Whether the push moves a body far enough to close a pair that is no contact (sets x->reach).
static int moves_far(push_pass *x) {
    kyu_world *w = x->w;
    x->slices = kyu_slice_count(w->step.active_count);
    kyu_parallel_for(w, x->slices, 1, far_task, x);
    float far = 0.0f, least = INFINITY, dt = w->def.fixed_dt;
    for (int sl = 0; sl < x->slices; sl++)
        far = kyu_maxf(far, x->far[sl]), least = kyu_minf(least, x->least_margin[sl]);
    x->reach = 0.5f * least;
    return far * dt * dt > x->reach * x->reach;
}

// Every body the push moves far whose sphere (grown by its margin) would leave the box the
// broadphase paired it by: the box grows to take it in, with ROOM radii to spare for the later
// rounds, and asks the grid again (a late insert, as an impact's turned path does), so what it may
// be pushed into is its partner too. A tall pour landing (10,000 beads of 5 mm dropped at once) had
// the push lift bodies up to 4 r into beads that were no candidate pairs: 1.5 r deep, where
// max_overlap said 0.6. In slot order, on the calling thread. What it costs where many bodies are
// pushed out of their boxes (a crowd created overlapping): docs/benchmarks.md, "The push's boxes".
#define ROOM 0.25f
static int boxes_follow(push_pass *x) {
    kyu_world *w = x->w;
    const body_store *s = &w->bodies;
    float dt = w->def.fixed_dt;
    int resumed = 0;
    for (int k = 0; k < w->step.active_count; k++) {
        uint32_t i = w->step.active[k];
        if (!moved_far(x, i)) continue;
        vec3s p = glms_vec3_add(s->pos[i], glms_vec3_scale(x->vp[i], dt));
        float g = s->radius[i] + kyu_body_margin(w, i);
        aabb *b = &w->step.box[i];
        int inside = 1;
        for (int d = 0; d < 3; d++) inside &= p.raw[d] - g >= b->lo[d] && p.raw[d] + g <= b->hi[d];
        if (inside) continue;
        if (!resumed && kyu_broadphase_resume_late_inserts(w)) return -1;
        resumed = 1;
        g += ROOM * s->radius[i];
        for (int d = 0; d < 3; d++)
            b->lo[d] = kyu_minf(b->lo[d], p.raw[d] - g), b->hi[d] = kyu_maxf(b->hi[d], p.raw[d] + g);
        w->stats.late_inserts++;
        if (kyu_broadphase_late_insert(w, i)) return -1;
    }
    if (resumed) kyu_broadphase_end_late_inserts(w);
    return 0;
}

// After the move: the deepest pair, contact or not, of each body the push moved far (a pair the
// rounds of near rows did not reach: max_overlap reads the contacts only).
static void far_depth_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    push_pass *x = ctx;
    const kyu_world *w = x->w;
    const body_store *s = &w->bodies;
    for (int sl = begin; sl < end; sl++) {
        float deepest = 0.0f;
        for (int k = kyu_slice_start(w->step.active_count, x->slices, sl);
             k < kyu_slice_start(w->step.active_count, x->slices, sl + 1); k++) {
            uint32_t a = w->step.active[k];
            if (!moved_far(x, a)) continue;
            for (kyu_partner_iter it = kyu_partners(&w->pairs, a); kyu_next_partner(&w->pairs, &it);) {
                uint32_t b = it.partner;
                if ((b & KYU_COLLIDER_BIT) || kyu_pair_is_sensor(w, a, b)) continue;
                vec3s d = glms_vec3_sub(s->pos[a], kyu_periodic_image(&w->periodic, s->pos[a], s->pos[b]));
                deepest = kyu_maxf(deepest, s->radius[a] + s->radius[b] - glms_vec3_norm(d));
            }
        }
        x->deepest[sl] = deepest;
    }
}

// The rows of the pairs the push would close that have none, in slot order (any worker count, the
// same list), after the earlier rounds' (which keep their pseudo-impulses). Returns how many are
// new, -1 out of memory.
static int find_near(push_pass *x) {
    kyu_world *w = x->w;
    if (!moves_far(x)) return 0; // nothing moves far enough to close one
    if (boxes_follow(x)) return -1;
    kyu_parallel_for(w, x->slices, 1, near_count_task, x);
    int total = 0;
    for (int sl = 0; sl < x->slices; sl++) {
        int n = x->count[sl];
        x->count[sl] = total;
        total += n;
    }
    if (total == 0) return 0;
    if (RESERVE(w->solver.near, w->solver.near_cap, x->near + total)) return -1;
    kyu_parallel_for(w, x->slices, 1, near_fill_task, x);
    return total;
}

// The push's passes: the contacts domain by domain, then the near rows one by one (rare).
static void push_passes(kyu_world *w, push_pass *x) {
    int base = w->solver.passes, most = kyu_most_passes(base);
    for (int pass = 1; pass <= most; pass++) {
        x->check = pass >= base && x->g_dt2 > 0.0f ? pass : 0; // from the step's last pass on
        kyu_solver_run(w, push_task, x);
        int moved = 0, open = 0;
        for (int d = 0; d < KYU_SOLVE_GROUPS; d++) moved |= x->moved[d], open |= x->open[d];
        for (int k = 0; k < x->near; k++) moved |= push_one(x, &w->solver.near[k], &open);
        if (!moved || (pass >= base && !open)) break;
    }
}

// The push, at the end of the step, once the contacts are found where the impacts and the relax
// left the bodies, when one of them is deeper than its slop (kyu_contacts_find says): the
// pseudo-velocities over those contacts, domain by domain as the solves run, until a pass changes
// nothing or for as many passes as the solve has (a bead's pair still deeper than twice its slop
// asks for more, as in the solve: kyu_may_ask_pass); then the bodies moved by them, every body out
// of the colliders it still overlaps, and the contacts' gaps found again. So the step ends with its
// overlaps taken out: pushed at the start of the next step instead, they were what a program drew
// and measured between steps, and the impacts leave a pair the queue does not stop (slower than its
// event speed) closing until the relax, a 1 cm bead at 60 Hz up to 17% of its radius.
int kyu_contacts_push_out(kyu_world *w) {
    if (!w->contacts.excess) return 0;
    if (kyu_solver_partition(w) || RESERVE(w->solver.push, w->solver.push_cap, w->contacts.count + 1))
        return -1;
    w->solver.passes = kyu_solver_passes(w);
    kyu_parallel_for(w, KYU_SOLVE_GROUPS, 1, push_rows_task, w);
    push_pass x = {.w = w};
    x.vp = kyu_arena_take(&w->step.arena, (size_t)w->bodies.high * sizeof *x.vp);
    kyu_parallel_for(w, w->step.active_count, 4096, zero_task, &x);
    x.g_dt2 = w->gravity_on ? glms_vec3_norm(w->def.gravity) * w->def.fixed_dt * w->def.fixed_dt : 0.0f;
    for (int k = 0; k < w->colliders.high && !x.meshes; k++)
        x.meshes = w->colliders.list[k].alive && w->colliders.list[k].type == KYU_SHAPE_MESH;
    push_passes(w, &x);
    for (int round = 0; round < NEAR_ROUNDS; round++) { // the pairs it would close that it did not know
        int more = find_near(&x);
        if (more == 0) break;
        if (more < 0 || RESERVE(w->solver.near_key, w->solver.near_key_cap, x.near + more)) {
            kyu_arena_reset(&w->step.arena); // out of memory: the step fails
            return -1;
        }
        x.near += more;
        for (int k = 0; k < x.near; k++) w->solver.near_key[k] = row_key(&w->solver.near[k]);
        qsort(w->solver.near_key, (size_t)x.near, sizeof *w->solver.near_key, by_key);
        push_passes(w, &x);
    }
    // Where the last passes leave the bodies: a box left behind follows, and the pairs of the bodies
    // moved far are measured after the move.
    int far = x.near > 0 && moves_far(&x);
    if (far && boxes_follow(&x)) {
        kyu_arena_reset(&w->step.arena);
        return -1;
    }
    kyu_parallel_for(w, w->step.active_count, 4096, move_task, &x);
    kyu_audit_mark(w, KYU_AUDIT_PUSH);
    kyu_solver_run(w, wall_task, w);
    kyu_audit_mark(w, KYU_AUDIT_WALL_PUSH);
    kyu_parallel_for(w, w->contacts.count, 4096, gaps_task, w);
    kyu_contacts_measure_overlap(w);
    if (far) {
        kyu_parallel_for(w, x.slices, 1, far_depth_task, &x);
        for (int sl = 0; sl < x.slices; sl++)
            w->stats.max_overlap = kyu_maxf(w->stats.max_overlap, x.deepest[sl]);
    }
    kyu_arena_reset(&w->step.arena);
    return 0;
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
    kyu_parallel_for(w, KYU_SOLVE_GROUPS, 1, geometry_task, w);
    kyu_solver_gather(w);
    for (int it = 0; it < iterations; it++) kyu_row_pass_run(w, relax_one);
    kyu_solver_scatter(w);
    kyu_audit_mark(w, KYU_AUDIT_RELAX);
    kyu_parallel_for(w, KYU_SOLVE_GROUPS, 1, give_back_task, w);
    kyu_solver_run(w, wall_task, w);
    kyu_audit_mark(w, KYU_AUDIT_WALL_PUSH);
    if (w->def.enable_impact_events && report_impacts(w)) return -1;
    return 0;
}
