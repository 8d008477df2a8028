// SPDX-License-Identifier: MIT
// Private to the engine: the contact module (contact.c, contact_list.c, material.c: the cache;
// solver_slabs.c, contact_solver.c, soft_escape.c: the solver): the contact cache kept from step to
// step, the contact solver's order, and a pair's material.
#ifndef KYU_CONTACTS_H
#define KYU_CONTACTS_H

#include "common.h"

// A contact kept from frame to frame (keep-pairs: docs/design.md, "Contacts kept between steps").
// Sorted by (a, b).
typedef struct contact {
    uint32_t a, b;    // body slot a; b is a body slot (a < b) or a collider with KYU_COLLIDER_BIT; a
                      //   removed side's slot is not reused before the contact is dropped (limbo in
                      //   body_store), so the slots always name the bodies it was made with
    vec3s normal;     // unit, from b to a, as last detected
    float gap;        // signed distance when detected (negative = overlap)
    float jn;         // accumulated normal impulse of the velocity solve (warm start)
    vec3s jt;         // accumulated friction impulse (the pair's friction, restitution and
                      //   mass are read from the bodies: kyu_contact_friction and the others)
    vec3s jr;         // accumulated angular impulse of rolling and twisting resistance
    uint8_t skip;     // excluded from this step's velocity solve (a fast approach: an impact)
    uint8_t touching; // touched this step: an impact, a gap within the slop, a sensor overlap
    uint8_t sensor;   // one side is a sensor: events only, no response
    uint8_t mark;     // scratch: the pair touched last step (contact search), or it is an approach
                      //   the solver takes that is fast enough to report (SOLVER_IMPACT, velocity solve)
    uint8_t plane;    // 0: the pair's one contact; k >= 1: the k-th of the planes of a mesh the body
                      //   touches (kyu_mesh_planes), one contact each, in the order found
} contact;

// contact.mark: SOLVER_IMPACT, from the velocity solve to the relax: report it as an impact;
// SOLVER_FLIES, within kyu_contacts_classify: it rises from its partner and meets it after the step.
enum { SOLVER_IMPACT = 2, SOLVER_FLIES = 4 };

// solver_state.flags, per body this step: SOLVER_LIGHT, a contact the solver holds joins it to a
// body twice its mass or more; SOLVER_TOUCHES_ONE, SOLVER_TOUCHES_MORE: it touches one thing (a
// held contact within its slop), or more than one; SOLVER_HELD_ONE, SOLVER_HELD_MORE: the solver
// holds one contact of it (at any gap within the margin), or more than one.
enum {
    SOLVER_LIGHT = 1,
    SOLVER_TOUCHES_ONE = 2,
    SOLVER_TOUCHES_MORE = 4,
    SOLVER_HELD_ONE = 8,
    SOLVER_HELD_MORE = 16
};

// A contact's key, its pair (a, b): the order of every contact list (contact_list.c), and within a
// pair the plane's.
static inline uint64_t kyu_contact_key(const contact *c) { return ((uint64_t)c->a << 32) | c->b; }
static inline int kyu_contact_before(const contact *x, const contact *y) {
    uint64_t kx = kyu_contact_key(x), ky = kyu_contact_key(y);
    return kx < ky || (kx == ky && x->plane < y->plane);
}

// What kyu_contacts_add_fresh found in one slice of the fresh bodies (the slices run at once).
typedef struct fresh_slice {
    contact *found; // the new pairs, staged
    int count, cap;
    uint32_t *near; // the query's list
    int near_cap;
    int failed; // -1 out of memory, KYU_FAIL_CONTACTS over the budget
} fresh_slice;

// The contact cache (contact.c, contact_list.c): this step's contacts sorted by pair, and the list
// the contact search writes the next one into (the two swap).
typedef struct contact_store {
    contact *list, *next;
    int count, cap, next_count, next_cap;
    int *run;        // per body: where its run of the cache starts this step (-1: none)
    uint64_t *owned; // per contact this step (classify to the impacts): its key, with bit 63 set if
    int owned_cap;   //   the solver does not hold it (kyu_contacts_solver_owns reads these, in a row)
    float *meet;     // per contact this step (classify to the relax): the speed the pair meets at
    int meet_cap;
    int removed; // bodies and colliders removed since the last step: kyu_contacts_purge drops their contacts
    int excess;  // a contact found deeper than its slop (kyu_contacts_find): the step's push runs
    uint32_t *fresh;            // bodies created or teleported since the last step: their contacts are found
    int fresh_count, fresh_cap; //   before the step moves anything (kyu_contacts_add_fresh)
    fresh_slice *fresh_out;     // per slice of them: the pairs found
    int fresh_out_cap;
} contact_store;

// Three floats as a plain struct: the solves' arithmetic on it stays in registers (cglm's vec3s is
// a union with an array, which the compiler keeps in memory: a row's solve took 400 instructions).
typedef struct kyu_f3 {
    float x, y, z;
} kyu_f3;
static inline kyu_f3 kyu_f3_of(vec3s v) { return (kyu_f3){v.x, v.y, v.z}; }
static inline vec3s kyu_vec3_of(kyu_f3 v) { return (vec3s){{v.x, v.y, v.z}}; }

// A body in the solves of one step (solver.body, by slot): its velocities and inverse masses in one
// cache-friendly place, gathered from the body store before a solve and given back after it.
typedef struct solver_body {
    kyu_f3 v; // linear velocity
    float im; // inverse mass
    kyu_f3 w; // angular velocity
    float ii; // inverse moment of inertia (0: fixed rotation)
} solver_body;

// A contact in the solves of one step, per place in the solver's order (solver.row): what every
// iteration and the relax read, computed once by the warm start, and the accumulated
// impulses (given back to the contact after the relax). Two cache lines.
#define KYU_ROW_STATIC UINT32_MAX // row.b of a contact with a collider (its velocities are in vb, wb)
enum {
    ROW_HELD = 1,
    ROW_SENSOR = 2,
    ROW_SPINS = 4,
    ROW_MESH = 8,
    ROW_UPPER_A = 16,
    ROW_UPPER_B = 32,
    ROW_PLAIN = 64 // solved without over-relaxation (contact_solver.c, SOR_MASS_RATIO)
};

// Under gravity, a pair one above the other (its normal, from b to a, within 60 degrees of
// gravity): ROW_UPPER_A when a is above b, ROW_UPPER_B when b, a body, is above a; else 0 (and
// always 0 without gravity, whose `down`, the world's, is then zero). The relax and the push move
// only the upper body of such a pair.
static inline uint32_t kyu_upper_flags(vec3s down, vec3s normal, int b_is_collider) {
    float up = -glms_vec3_dot(normal, down); // > 0: a above b
    return up > 0.5f ? ROW_UPPER_A : up < -0.5f && !b_is_collider ? ROW_UPPER_B : 0;
}
typedef struct solver_row {
    kyu_f3 n;          // unit, from b to a
    float jn;          // accumulated normal impulse
    kyu_f3 jt;         // accumulated friction impulse (at the contact point)
    float kn;          // normal effective mass, 1 / (1/mA + 1/mB)
    kyu_f3 jr;         // accumulated angular impulse of rolling and twisting resistance
    float kt;          // tangential effective mass, 1 / (1/mA + 1/mB + rA^2/IA + rB^2/IB)
    kyu_f3 vb;         // a collider's velocity at the contact point (0 for a body: its own is in b)
    float mu;          // the pair's friction
    kyu_f3 wb;         // a collider's angular velocity (0 for a body)
    float target;      // the least normal velocity of the solve: -gap / dt closing a gap, else 0
    uint32_t a, b;     // solver body slots (b: KYU_ROW_STATIC for a collider)
    float ra, rb;      // lever arms of the spin terms (0 for a side that cannot turn)
    float roll, twist; // rolling's and twisting's impulse bounds per unit of normal impulse
    float gap, ev;     // the gap (at the step's start; the relax's after the impacts), event speed
    float e, spare;    // restitution; (unused: the row stays two cache lines)
    float ki;          // 1 / (1/IA + 1/IB) of the twist and roll (0 when nothing turns)
    uint32_t flags;    // ROW_*
} solver_row;

// The solve's iterations over-relax the normal impulse (projected SOR): a bed of beads 40 deep
// carries its weight down a layer a pass, and with the plain factor 8 passes left contacts closing
// at up to 3 cm/s, overlaps the soft escape kept mending and a bed that never slept (the test's
// 1,401 beads: asleep 467 steps after the pour at 1.3, not within 900 at 1; 1.6 overshoots).
#define KYU_SOLVE_OMEGA 1.3f

// Four rows solved at once (solver_wide.c), where the compiler has vector extensions (the same
// answer as row by row; KYU_NO_WIDE_SOLVE builds row by row, to check that).
#if defined(__GNUC__) && !defined(KYU_NO_WIDE_SOLVE)
#define KYU_WIDE_SOLVE 1
#else
#define KYU_WIDE_SOLVE 0
#endif
typedef struct wide_batch wide_batch;

// A contact in the push at the end of the step (soft_escape.c), per place in the solver's order.
typedef struct push_row {
    kyu_f3 n;      // unit, from b to a
    float target;  // > 0: how fast the push separates the pair; else how fast it may close
    float pj;      // accumulated pseudo-impulse
    float slop;    // the pair's
    float ia, ib;  // the sides' inverse masses in the push (0: that side does not move)
    uint32_t a, b; // body slots (b: KYU_ROW_STATIC for a collider)
} push_row;

// The contact solver's order (solver_slabs.c): contacts by slab of space, then by the boundary
// between slabs they cross (KYU_SOLVE_GROUPS domains).
typedef struct solver_state {
    uint8_t *slab;  // per body: its domain (slab of space) in the contact solves
    uint8_t *flags; // per body, the SOLVER_ flags above (kyu_contacts_classify; read by fill_row)
    int *order;     // contact indices by domain
    int order_cap;
    int *tmp; // scratch of the bottom-up order (heights and bands, then the order: twice the
              //   contacts)
    int tmp_cap;
    solver_row *row; // per place in the order, from the velocity solve to the relax
    int row_cap;
    solver_body *body; // per body slot, gathered for each solve
    int body_cap;
    push_row *push; // per place in the order, in the push at the end of the step
    int push_cap;
    push_row *near; // the push's rows of pairs it would close that are no contacts (soft_escape.c)
    int near_cap;
    uint64_t *near_key; // their pairs (a << 32 | b), sorted: which pairs have one
    int near_key_cap;
    int start[KYU_SOLVE_GROUPS + 1]; // domain d: order[start[d] .. start[d+1])
    int layers[KYU_SOLVE_GROUPS];    // per domain: how many layers deep its contacts stack
    int passes;                      // this step's passes of the solve and the push (kyu_solver_passes)
    // The iterations' batches of four rows (solver_wide.c), while `batches` is set:
    wide_batch *batch; // domain d: batch[batch_start[d] .. batch_start[d+1])
    int batch_cap;
    int batch_start[KYU_SOLVE_GROUPS + 1];
    int batches;
    int spinning[KYU_SOLVE_GROUPS]; // per domain: its held rows with spin terms (fill_row)
    int row_by_row;                 // a test's switch: the iterations without batches (the same answer)
    int32_t *lane;                  // scratch of the placing: four rows a batch, by the domain's first row
    int lane_cap;
    int *next, next_cap; // scratch: the next batch that may have room
    int *last, last_cap; // scratch, per body slot: the batch that last holds one of its rows
} solver_state;

// The contacts in fixed slices (kyu_slice_count), for the passes that gather something per slice.
typedef struct contact_slices {
    kyu_world *w;
    int slices;
    int found[KYU_MAX_SLICES];   // per slice: contacts marked
    float worst[KYU_MAX_SLICES]; // per slice: the deepest overlap
    int excess[KYU_MAX_SLICES];  // per slice: whether a contact is deeper than its slop
} contact_slices;

// The solve's and the push's passes beyond the step's own (contact_solver.c says why): a pair of
// slop `slop` may ask for g dt^2 / (KYU_STIFF_SLOPS slop) times them, 1 to KYU_EXTRA_FACTOR (none
// more for a ball of 9 cm or more at 60 Hz, 1.7x for 5 cm, 4x for 2 cm, 8x for a bead of 1 cm or
// less), and no pass beyond KYU_MOST_SOLVE_PASSES is for that (a deeper stack's own passes may be
// more).
#define KYU_STIFF_SLOPS       8.0f
#define KYU_EXTRA_FACTOR      8
#define KYU_MOST_SOLVE_PASSES 64
static inline int kyu_may_ask_pass(int pass, int base, float g_dt2, float slop) {
    float factor = kyu_minf(kyu_maxf(g_dt2 / (KYU_STIFF_SLOPS * slop), 1.0f), (float)KYU_EXTRA_FACTOR);
    return (float)pass < (float)base * factor;
}
static inline int kyu_most_passes(int base) {
    int most = base * KYU_EXTRA_FACTOR;
    return most <= KYU_MOST_SOLVE_PASSES ? most : base > KYU_MOST_SOLVE_PASSES ? base : KYU_MOST_SOLVE_PASSES;
}

// An excess over the slop within this fraction of it is none. The push leaves a pair at its slop,
// and rounding puts it a hair deeper by the next step: the push then ran every pass of every step of
// a resting pile for nothing (PILE's fixed-rotation columns at rest: 8 passes a step, now 0).
#define KYU_PUSH_BAND 0.01f

// contact_list.c: lists sorted by kyu_contact_key; the cache's double buffer
void kyu_contacts_sort(contact *c, int n);
void kyu_contacts_swap(kyu_world *w, int n);
void kyu_contacts_free(contact_store *c);
void kyu_solver_free(solver_state *s);

// contact.c: the cache's life (search, begin and end events, new bodies' contacts, purge), and a
// contact's geometry and material
int kyu_contacts_find(kyu_world *w);
int kyu_contact_live(const kyu_world *w, const contact *c);
float kyu_contact_geometry(const kyu_world *w, const contact *c, vec3s *n); // gap; normal, b to a
float kyu_contact_gap(const kyu_world *w, const contact *c, vec3s *normal);
int kyu_contacts_first_of(const kyu_world *w, uint32_t a); // body a's run starts here (or after it)
// Pair (a, b)'s contact (a < b, or b a collider), or NULL.
const contact *kyu_contact_of(const kyu_world *w, uint32_t a, uint32_t b);
int kyu_contacts_purge(kyu_world *w);
int kyu_contacts_add_fresh(kyu_world *w);
void kyu_contacts_measure_overlap(kyu_world *w); // the step's max_overlap, contacts.excess
typedef void kyu_contact_visit_fn(const kyu_world *w, const contact *c, void *ctx);
void kyu_contacts_each(const kyu_world *w, kyu_contact_visit_fn *visit, void *ctx);
float kyu_contact_mass(const kyu_world *w, const contact *c);        // 1 / (inverse mass sum)
float kyu_contact_restitution(const kyu_world *w, const contact *c); // of the pair
float kyu_contact_friction(const kyu_world *w, const contact *c);    // of the pair

// solver_slabs.c: the contacts split into domains of space (solver.order, solver.start). The
// domains: the KYU_SOLVE_DOMAINS slabs; from KYU_SOLVE_DOMAINS, the pairs across the boundaries
// after slabs 0, 2, 4, ... (one domain each); from KYU_SOLVE_ROUND_TWO, across those after slabs 1,
// 3, ...; last, KYU_SOLVE_FAR, the pairs across slabs farther apart (only slabs thinner than a pair
// have them). The boundaries of a round share no slab, so no body either.
#define KYU_SOLVE_ROUND_TWO (KYU_SOLVE_DOMAINS + KYU_SOLVE_DOMAINS / 2)
#define KYU_SOLVE_FAR       (KYU_SOLVE_GROUPS - 1)
int kyu_solver_partition(kyu_world *w);
void kyu_solver_run(kyu_world *w, kyu_task_fn *task, void *ctx); // task over the domains, in rounds
int kyu_solver_passes(const kyu_world *w); // the passes a step's solve and push take (solver_slabs.c)
int kyu_solver_depth(const kyu_world *w);  // the deepest stack's layers, under gravity (solver_slabs.c)

// contact_solver.c: which contacts are the solver's, the velocity solve, the bodies it holds
int kyu_contacts_classify(kyu_world *w);
int kyu_contacts_solver_owns(const kyu_world *w, uint32_t a, uint32_t b, const vec3s *face);
int kyu_contacts_hold_plane(const kyu_world *w, uint32_t a, uint32_t b, vec3s normal);
int kyu_contacts_solve_velocities(kyu_world *w);
void kyu_contacts_mark_supported(kyu_world *w);
void kyu_contact_spin_limits(const kyu_world *w, const contact *c, float *roll, float *twist);
void kyu_solver_gather(kyu_world *w);  // the active bodies' velocities into solver.body
void kyu_solver_scatter(kyu_world *w); // and back
// One row toward `target`, the normal impulse's change scaled by omega (1: Gauss-Seidel), with the
// given sides' shares (0 or 1: a side left out keeps its velocities, as if of infinite mass).
float kyu_row_solve(solver_body *sb, solver_row *r, float target, float omega, float share_a, float share_b);
typedef void kyu_row_fn(kyu_world *w, solver_row *r);

// solver_wide.c: the iterations four rows at a time (the same answer as row by row)
int kyu_wide_prepare(kyu_world *w); // the held rows into batches, after the warm start
typedef int kyu_closing_fn(void *ctx, const solver_row *r, float closing);
// One pass over domain d's batches; closing_fn (if any) sees rows that closed past their target
// until it returns 1, which the pass returns.
int kyu_wide_pass(kyu_world *w, int d, kyu_closing_fn *closing_fn, void *ctx);
void kyu_wide_finish(kyu_world *w);                  // the impulses back into the rows
void kyu_wide_trim(kyu_world *w, int rows);          // the batches' room, for that many rows at most
void kyu_row_pass_run(kyu_world *w, kyu_row_fn *fn); // fn over every row, domain by domain

// soft_escape.c: after the impacts, the relax and the push out of overlaps
int kyu_contacts_relax(kyu_world *w);
int kyu_contacts_push_out(kyu_world *w); // at the step's end, on the contacts just found

// material.c: a pair's friction and restitution (b is a body slot or a collider code)
float kyu_pair_friction(const kyu_world *w, uint32_t a, uint32_t b);
float kyu_pair_restitution(const kyu_world *w, uint32_t a, uint32_t b);
float kyu_pair_rolling(const kyu_world *w, uint32_t a, uint32_t b); // the larger rolling resistance

#endif
