// SPDX-License-Identifier: MIT
// Private to the engine: the world's storage and the step stages. Nothing here is public API.
#ifndef KYU_INTERNAL_H
#define KYU_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "kyu/kyu.h"

#define KYU_DEF_COOKIE 0x6b797531u // "kyu1"
#define KYU_MAX_COORD  1.0e9f      // |position| and |velocity| limit: keeps every product finite
#define KYU_MAX_RADIUS 1.0e6f
#define KYU_REACH                                                                                            \
    1048576.0f // 2^20 radii: how far from the origin, and how far in a step, a body may be (body.c)
#define KYU_MIN_MASS 1.0e-20f
#define KYU_MAX_MASS 1.0e20f
#define KYU_MIN_DT   1.0e-6f // s: fixed_dt bounds (world.h says why)
#define KYU_MAX_DT   1.0f

// The contact solves run in this many slabs of space at once (a fixed number, so the order of the
// solve, and the answer, is the same for any worker count); pairs across slabs are solved after.
#define KYU_SOLVE_DOMAINS 8

// How a stage of the step failed: every stage returns 0 or one of these.
enum { KYU_FAIL_MEMORY = -1, KYU_FAIL_PAIRS = -2, KYU_FAIL_CONTACTS = -3 };

// A partner in an adjacency list or a contact: a body slot, or a collider index with this bit.
#define KYU_COLLIDER_BIT 0x80000000u

// min and max of finite floats, inlined: without -ffinite-math-only, fminf and fmaxf are calls into
// libm, which showed up at 4% of a GAS step.
static inline float kyu_minf(float a, float b) { return b < a ? b : a; }
static inline float kyu_maxf(float a, float b) { return b > a ? b : a; }

typedef struct kyu_height_key { // a body's height along gravity, to sort by
    float height;
    uint32_t slot;
} kyu_height_key;
// A touching pair of the cascade's sweeps: partner, normal (partner to body) and gap, all fixed at
// the cascade's instant.
typedef struct kyu_touch {
    uint32_t partner;
    float gap;
    vec3s n;
} kyu_touch;

// The impact cascade's scratch (engine/impact.c), kept between steps so it is not allocated again.
typedef struct cascade_state {
    uint8_t *flag;            // per body: on the wave's list, changed, reached (impact.c's enum)
    uint32_t *wave, *changed; // the bodies the wave reaches, in order, and the ones it changes
    int wave_count, wave_cap, changed_count, changed_cap;
    kyu_height_key *keys; // sorting what a cascade changed, lowest first
    int keys_cap;
    kyu_touch *touch; // the touching pairs of the bodies the sweeps visit, cached by the first
    int *touch_start; //   sweep: body k of the changed list owns [touch_start[k], touch_start[k + 1])
    int touch_count, touch_cap, touch_start_cap;
} cascade_state;

typedef struct aabb {
    float lo[3], hi[3];
} aabb;

// Particles, by slot. Slots of removed bodies go on a free list and are reused.
typedef struct body_store {
    int capacity;     // slots allocated
    int high;         // slots [0, high) have ever been used
    int count;        // live bodies
    float max_radius; // the largest radius of any body created (never shrinks)
    vec3s *pos, *vel, *prev;
    vec3s *ang;         // angular velocity, rad/s, world frame
    versors *rot;       // orientation (unit)
    float *inv_inertia; // 1 / (inertia_scale 2/5 m r^2); 0: fixed rotation (it never turns)
    float *rolling;     // rolling resistance (dimensionless)
    float *ang_damping; // 1/s
    float *radius, *inv_mass, *mass, *restitution, *friction, *damping, *gravity_scale;
    void **user;
    uint32_t *category, *mask, *material;
    int32_t *group;
    uint8_t *sensor, *allow_sleep;
    uint8_t *awake;        // 0 while its island sleeps
    float *sleep_timer;    // s the body has been slower than sleep_speed
    uint32_t *island;      // sleeping island record of a sleeping body
    uint32_t *sleep_epoch; // bumped when the body falls asleep (stale sleep-grid entries)
    uint32_t *generation;
    uint8_t *alive;
    int *free_slots; // slots ready for reuse
    int free_count;
} body_store;

// A triangle mesh in its collider's frame, with a bounding volume hierarchy (engine/shape.c).
typedef struct bvh_node {
    aabb box;
    int first, count; // a leaf: triangles order[first .. first + count); first < 0: an inner node
    int left, right;
} bvh_node;

typedef struct kyu_mesh {
    vec3s *verts;
    int32_t *tris;   // 3 per triangle
    int32_t *across; // 3 per triangle: the triangle across edge k (corners k, k+1), or -1
    int32_t *order;
    bvh_node *nodes;
    int vert_count, tri_count, node_count;
} kyu_mesh;

typedef struct collider {
    kyu_shape_type type;
    kyu_motion motion;
    kyu_box box;        // the frame of every shape (centre, rotation); half extents for a box
    versors rotation;   // as the user gave it: box.rotation is made from it (kyu_collider_place)
    vec3s cap_a, cap_b; // capsule, in the collider's frame
    float cap_radius;
    vec3s *hull_points; // hull, in the collider's frame (owned)
    int hull_count;
    kyu_mesh *mesh; // mesh (owned)
    vec3s normal;   // plane
    float offset;   // plane: normal . x = offset (normal . box.center)
    vec3s velocity;
    vec3s angular_velocity; // kinematic: it turns about box.center (the pose turns at the step's end)
    vec3s surface_velocity; // its surface slides at this (tangential part only): a conveyor belt
    float restitution, friction, rolling;
    uint32_t material;
    void *user;
    uint32_t category, mask;
    uint32_t generation;
    uint8_t alive;
    aabb bounds; // box: swept over this step (planes are unbounded)
} collider;

// A contact kept from frame to frame (the keep-pairs of seed 004). Sorted by (a, b).
typedef struct contact {
    uint32_t a, b;   // body slot a; b is a body slot (a < b) or a collider with KYU_COLLIDER_BIT
    uint32_t ga, gb; // generations of body a and of b (a body or the collider): a removed side
                     //   is recognised even after its slot is reused (kyu_contact_live)
    vec3s normal;    // unit, from b to a, as last detected
    union {
        float gap;    // signed distance when detected (negative = overlap)
        float target; // in the velocity solve: the normal velocity to reach (set from the gap,
    };                //   which is detected again before the step ends)
    float jn;         // accumulated normal impulse of the velocity solve (warm start)
    vec3s jt;         // accumulated friction impulse (the pair's friction, restitution and
                      //   mass are read from the bodies: kyu_contact_friction and the others)
    vec3s jr;         // accumulated angular impulse of rolling and twisting resistance
    uint8_t skip;     // excluded from this step's velocity solve (a fast approach: an impact)
    uint8_t touching; // touched this step: an impact, a gap within the slop, a sensor overlap
    uint8_t sensor;   // one side is a sensor: events only, no response
    uint8_t mark;     // scratch: the pair touched last step (contact search), or it is a fast
                      //   approach to report (velocity solve)
} contact;

// A contact's key, its pair (a, b): the order of every contact list (contact_list.c).
static inline uint64_t kyu_contact_key(const contact *c) { return ((uint64_t)c->a << 32) | c->b; }

// The next contact of a body with a partner (engine/toi.c).
typedef struct kyu_sweep_contact {
    float t;        // time of contact, fraction of the step
    vec3s normal;   // from the partner to the body, at contact
    float gap;      // signed gap now (at the time asked about)
    float approach; // closing speed along the normal at contact (> 0 approaching)
    float accel;    // relative acceleration along the normal (< 0: pressing together)
} kyu_sweep_contact;

typedef struct impact_event {
    float t;
    uint32_t a, b;
    uint32_t va, vb;
    vec3s normal; // at the contact (a mesh's triangle: the mesh has no single nearest normal)
} impact_event;

typedef struct event_heap {
    impact_event *ev;
    int count, cap, peak; // peak: the most it held this step
} event_heap;

// The key of a grid cell (broadphase and sleep grid): its coordinates' low 10 bits packed (no two
// cells of a 1024^3 block share a key, and sorting by key keeps rows of cells together), mixed with
// a hash of the block for larger worlds. Coordinates are clamped to +-2^20, offset to stay unsigned.
static inline uint32_t kyu_cell_hash(const int32_t c[3]) {
    uint32_t x = (uint32_t)(c[0] + 1048576), y = (uint32_t)(c[1] + 1048576), z = (uint32_t)(c[2] + 1048576);
    uint32_t local = (x & 1023u) | (y & 1023u) << 10 | (z & 1023u) << 20;
    uint32_t block = (x >> 10) * 0x9E3779B1u ^ (y >> 10) * 0x85EBCA77u ^ (z >> 10) * 0xC2B2AE3Du;
    block ^= block >> 15;
    block *= 0x2C1B3C6Du;
    block ^= block >> 12;
    return local ^ block;
}

// The slot of key h in an open-addressing table (linear probing; val UINT32_MAX marks an empty
// slot). The key is mixed first (murmur3's finaliser) so every bit moves the low bits the mask keeps.
static inline uint32_t kyu_table_find(const uint32_t *key, const uint32_t *val, int size, uint32_t h) {
    uint32_t m = h ^ (h >> 16);
    m *= 0x85ebca6bu;
    m ^= m >> 13;
    m *= 0xc2b2ae35u;
    m ^= m >> 16;
    uint32_t mask = (uint32_t)size - 1, i = m & mask;
    while (val[i] != UINT32_MAX && key[i] != h) i = (i + 1) & mask;
    return i;
}

// The per-step arena: one block of per-slot scratch that a stage takes at its start and gives back
// (kyu_arena_reset) at its end. It is as large as the largest stage needs, KYU_ARENA_PER_SLOT bytes
// a slot (the island pass: parent, rest, record), grown with the body store, so a take never fails.
typedef struct kyu_arena {
    unsigned char *base;
    size_t cap, used;
} kyu_arena;
#define KYU_ARENA_PER_SLOT 12
#define KYU_ARENA_SLACK    64 // room to align up to four takes
static inline void *kyu_arena_take(kyu_arena *a, size_t bytes) {
    size_t at = (a->used + 15) & ~(size_t)15;
    KYU_ASSERT(at + bytes <= a->cap);
    a->used = at + bytes;
    return a->base ? a->base + at : NULL; // no bodies yet: nothing is taken (and NULL + 0 is not C)
}
static inline void kyu_arena_reset(kyu_arena *a) { a->used = 0; }

// Growable array helpers: grow to at least n elements, never shrink. 0 on success.
int kyu_reserve(void **data, int *capacity, int n, size_t elem);
#define RESERVE(arr, cap, n) kyu_reserve((void **)&(arr), &(cap), (n), sizeof *(arr))
void kyu_shrink(void **data, int *capacity, int n, size_t elem);
#define SHRINK(arr, cap, n) kyu_shrink((void **)&(arr), &(cap), (n), sizeof *(arr))

// The uniform grid over swept boxes (hashed, so the world is unbounded). A body whose box fits in a
// cell is entered once, in the cell of its box's low corner, and meets its partners in its own cell
// and the 13 cells ahead of it. A larger box is entered in every cell it covers (the multi-cell
// table), and so is every body whose path changes mid-step.
typedef struct grid_entry {
    uint32_t key; // hash of the cell (the dense index in a dense grid); the cell is the box's low corner
    uint32_t body;
    aabb box; // a copy of the body's box: pair tests read the entries in order, not w->box
} grid_entry;

// The cell of coordinate x: floor(x / cell), clamped to +-2^20, as a truncation of the value shifted
// by 2^20 in double (floorf is a call or a long sequence in baseline x86-64 code, and the broadphase
// takes millions a second). The shift is exact except within 2^-34 below zero, which rounds up to
// cell 0: the mapping stays monotonic and every cell at least 1 - 2^-34 cells wide, which is all the
// grid needs (a box of at most 0.99 cell spans at most two cells on each axis). tests/test_grid.c.
static inline int32_t kyu_cell_of(float x, float inv_cell) {
    float c = x * inv_cell;
    if (!(c <= 1048575.0f)) c = 1048575.0f; // NaN too: the conversion below is then defined
    if (c < -1048575.0f) c = -1048575.0f;
    return (int32_t)((double)c + 1048576.0) - 1048576;
}

typedef struct late_entry {
    int32_t c[3];
    uint32_t body;
    uint32_t next;
} late_entry;

typedef struct grid {
    float cell, inv_cell;
    grid_entry *entries, *entries_tmp; // entries_tmp: the radix sort of a hashed grid only
    int entry_count, entry_cap, entry_tmp_cap;
    uint32_t *table_key, *table_start; // hash -> first entry of its run; start UINT32_MAX = empty
    int table_size;
    int dense; // compact world: entries counting-sorted into a 3D array
    int32_t origin[3], dims[3];
    uint32_t *dense_start; // cell index -> first entry; [n] = entry count
    int dense_cap;
    uint32_t *late_key, *late_head; // multi-cell table: hash -> list of late entries
    int late_table_size;
    late_entry *late;
    int late_count, late_cap;
    int32_t *multi_rec;        // per body: -1, or the cells it is in this step: a range in
    int32_t (*multi_range)[7]; //   multi_range (lo, hi, body), or -2 - its one late entry
    int multi_range_count, multi_range_cap;
    uint32_t *big; // bodies entered in the multi-cell table at the build
    int big_count, big_cap;
    uint32_t *huge; // bodies whose box covers too many cells
    int huge_count, huge_cap;
    uint32_t *stamp; // per body: last query that saw it
    uint32_t stamp_now;
    struct pair_chunk *chunks;         // pairs found in parallel slices: the dense grid's, then the
    int chunk_cap;                     //   body-collider pairs (kyu_pair_source)
    int dense_chunks, collider_chunks; // chunks holding each this step
    uint32_t *late_dense;              // dense grid: cell index -> newest late entry there (a list),
    int late_dense_cap;                //   valid where late_bits has the cell's bit (late entries
    uint64_t *late_bits;               //   outside the dense box go in the hash table): most cells
    int late_bits_cap;                 //   have none, and the bits stay in cache where the heads do not
    uint64_t *occ_bits;                // dense grid: the cells that hold small entries (a query skips
    int occ_bits_cap;                  //   an empty row without reading its offsets)
    int late_hashed;                   // late entries in the hash table
    int pair_budget;                   // candidate pairs this step may find (the world def's capacity)
    int overflow;                      // the build stopped at the budget (KYU_FAIL_PAIRS)
} grid;

// The first impacts of one run of the candidate pairs (kyu_pair_source), in pair order.
typedef struct event_chunk {
    impact_event *ev;
    int count, cap;
    int failed; // out of memory
} event_chunk;

// The pairs of one slice of the dense grid's entries (whole cells), in the sequential order.
typedef struct pair_chunk {
    uint32_t *a, *b;
    int count, cap;
    int first, last; // entries [first, last)
    int limit;       // its share of the step's pair budget (kyu_world_def.pair_capacity_per_body)
    int failed;      // KYU_FAIL_MEMORY or KYU_FAIL_PAIRS
} pair_chunk;

// One run of candidate pairs (broadphase.c): source s of kyu_pair_source_count, in pair order.
typedef struct pair_source {
    const uint32_t *a, *b;
    int count;
} pair_source;

// Whether two boxes overlap (touching counts), stopping at the first axis apart: the cheaper form
// where most tests fail the same way (the boxes of one crowded grid cell).
static inline int kyu_boxes_overlap(const aabb *a, const aabb *b) {
    return a->lo[0] <= b->hi[0] && b->lo[0] <= a->hi[0] && a->lo[1] <= b->hi[1] && b->lo[1] <= a->hi[1] &&
           a->lo[2] <= b->hi[2] && b->lo[2] <= a->hi[2];
}

// The same answer with all six tests at once (& not &&): one branch on the result, not six on
// random data, the cheaper form for boxes from all over the world (a body against a cell's list).
static inline int kyu_boxes_overlap_all(const aabb *a, const aabb *b) {
    return (a->lo[0] <= b->hi[0]) & (b->lo[0] <= a->hi[0]) & (a->lo[1] <= b->hi[1]) & (b->lo[1] <= a->hi[1]) &
           (a->lo[2] <= b->hi[2]) & (b->lo[2] <= a->hi[2]);
}

// The cell an entry is in: the cell of its box's low corner.
static inline void kyu_entry_cell(const grid *g, const grid_entry *e, int32_t c[3]) {
    for (int k = 0; k < 3; k++) c[k] = kyu_cell_of(e->box.lo[k], g->inv_cell);
}

// Sleeping islands (engine/island.c).
typedef struct sleep_entry {
    int32_t c[3];
    uint32_t body, epoch, next;
} sleep_entry;

typedef struct sleep_grid {
    float cell, inv_cell;
    uint32_t *key, *head; // cell hash -> first entry (UINT32_MAX = empty), open addressing
    int table_size, cells;
    sleep_entry *entries;
    int count, entry_cap, live;
    sleep_entry *giants; // sleeping bodies too big for cells
    int giant_count, giant_cap;
} sleep_grid;

typedef struct sleep_island {
    float max_overlap; // the deepest overlap among its contacts (they do not move while it sleeps)
    uint32_t *bodies;
    int body_count, body_cap;
    struct contact *contacts;
    int contact_count, contact_cap;
    int next_free;
} sleep_island;

struct kyu_world {
    kyu_world_def def;
    uint32_t id;
    int locked;
    char *error; // KYU_ERROR_SIZE bytes of its own: the last error's text. A getter that fails (on a
                 //   const world) writes only here, through this pointer, and the world stays const.
    body_store bodies;

    collider *colliders;
    int collider_cap, collider_high, collider_count;
    int *free_colliders;
    int free_collider_count;

    // per step scratch, sized to body capacity
    uint32_t *active; // awake bodies this step, in slot order
    int active_count;
    float *t_body;  // time (fraction of the step) at which pos and vel are valid
    vec3s *accel;   // this step: gravity for a body in free flight, 0 for one the solver held
    aabb *box;      // broadphase box of the rest of this step's motion
    int *adj_start; // CSR adjacency of the pairs found by the broadphase
    uint32_t *adj;
    uint8_t *adj_hit; // beside adj: the pair had an impact this step (marked at its lower slot)
    int adj_cap, adj_hit_cap;
    int *late_head; // per body: linked list of pairs added mid-step
    uint32_t *late_partner;
    uint8_t *late_hit;
    int *late_next;
    int late_pair_count, late_pair_cap, late_next_cap, late_hit_cap;
    uint32_t *pair_a, *pair_b; // the candidate pairs found one at a time (the others stay in the
                               //   grid's chunks: kyu_pair_source)
    int pair_count, pair_cap;
    int *cache_run;        // per body: where its run of the contact cache starts this step (-1: none)
    uint8_t *check_marks;  // KYU_VALIDATE builds: per body, the validator's scratch (validate.c)
    cascade_state cascade; // the impact cascade's scratch (engine/impact.c)

    // events of the last step
    kyu_contact_event *begin_events, *end_events; // of every step of the last kyu_world_update
    int begin_count, begin_cap, end_count, end_cap;
    int event_step;  // the step of the current update that events are recorded for (0 outside one)
    int begin_first; // where the last step's begin events start (draw marks those pairs new)
    int removed; // bodies and colliders removed since the last step: kyu_contacts_purge drops their contacts
    uint32_t *fresh;            // bodies created or teleported since the last step: their contacts are found
    int fresh_count, fresh_cap; //   before the step moves anything (kyu_contacts_add_fresh)
    kyu_impact_event *impact_events;
    int impact_count, impact_cap;

    // sleep
    sleep_island *islands;
    int island_cap, island_high, free_island;
    sleep_grid sleep;
    contact *woken; // contacts of islands woken since they were last merged into the cache
    int woken_count, woken_cap;
    uint32_t *woken_bodies; // bodies woken this step (or since the last step)
    int woken_bodies_count, woken_bodies_cap;

    // Per-slot scratch of one stage, taken from `arena` at the stage's start and given back at its
    // end (NULL outside it). The stages never overlap, so they share the arena's memory, each under
    // names of its own; the arena grows with the body store to what the largest stage takes.
    kyu_arena arena;
    struct {
        int *meets; // stage 0, kyu_islands_wake_touched: 1 its path meets a sleeper, 2 not, 0 asleep
    } wake;
    struct {
        uint32_t *version; // stage 4: bumped on every velocity change (stale queue entries)
        float *limit_t;    //   where a body stops when the event cap is hit
    } impacts;
    struct {
        int *cell, *rank; // stage 3, a dense grid's build: each active body's cell (-1: not a small
    } dense_fill;         //   box) and its rank among the bodies of that cell
    struct {
        int *run_start; // stage 5, kyu_contacts_find: where the body's run of last step's contacts starts
        int *offset;    //   per active body: its region of contacts_new,
        int *count;     //   how many contacts it kept (then how many begin or end events it has)
    } find;
    struct {
        uint32_t *parent; // stage 6, the island pass: union-find parent,
        float *rest;      //   the least time at rest in the set (at its root),
        int *record;      //   the sleeping island record of a root that falls asleep
    } uf;

    uint64_t **worker_scratch; // per worker: a body's partner list (partner << 1 | hit)
    int *worker_scratch_cap;
    uint8_t *slab;    // per body: its domain (slab of space) in the contact solves
    int *solve_order; // contact indices by domain, then the boundary (engine/escape.c)
    int solve_order_cap;
    int *solve_tmp; // scratch of the bottom-up order (bands, then the order: twice the contacts)
    int solve_tmp_cap;
    int solve_start[KYU_SOLVE_DOMAINS + 2]; // domain d: solve_order[solve_start[d] .. solve_start[d+1])
    // The impact queue in two heaps with one order: events at the instant of the impact being
    // resolved (a touching pair that the impact set closing: the cascade through a stack) go to
    // `now`, which stays small; later events go to `later` (engine/impact.c).
    event_heap later, now;
    struct event_chunk *event_chunks; // the first impacts of slices of the pair list, in parallel
    int event_chunk_cap;

    contact *contacts, *contacts_new;
    int contact_count, contact_cap, contact_new_count, contact_new_cap;

    grid grid;
    struct kyu_query_cache *query; // engine/query.c: built on demand between steps, NULL until then
    struct kyu_pool *pool;         // engine/threads.c: NULL with one worker or a user job system

    double accumulator;
    float alpha;
    int gravity_on; // |gravity| > 0 this step (set by kyu_world_step): what rests, and slow impacts
    vec3s down;     // gravity's direction (unit) when gravity_on
    kyu_step_stats stats;
};

// validate.c: 0, or -1 with the first broken invariant described in msg
int kyu_world_validate(const kyu_world *w, char *msg, size_t capacity);
// Inside a step: the bodies and colliders, and the checks named (a stage asks for what it can
// change: the contact lists, the sleeping islands, the active list, the grid).
enum { KYU_CHECK_ACTIVE = 1, KYU_CHECK_GRID = 2, KYU_CHECK_CONTACTS = 4, KYU_CHECK_ISLANDS = 8 };
int kyu_world_validate_step(const kyu_world *w, int checks, char *msg, size_t capacity);

// world.c
float kyu_alpha_of(double accumulator, float dt); // the interpolation factor of kyu_world_alpha

// Contact tolerances scale with the bodies: a resting pair may overlap by its slop (0.4% of the
// smaller radius), pairs closer than their margin (4% of it) are kept as contacts. The world def's
// linear_slop and contact_margin, when set (> 0), replace them with lengths for every body. At the
// 0.5 m default radius these are the 2 mm and 2 cm kyu always used; a 1 cm bead rests within 40 um.
#define KYU_SLOP_RATIO   0.004f
#define KYU_MARGIN_RATIO 0.04f
static inline float kyu_body_slop(const kyu_world *w, uint32_t i) {
    return w->def.linear_slop > 0.0f ? w->def.linear_slop : KYU_SLOP_RATIO * w->bodies.radius[i];
}
static inline float kyu_body_margin(const kyu_world *w, uint32_t i) {
    return w->def.contact_margin > 0.0f ? w->def.contact_margin : KYU_MARGIN_RATIO * w->bodies.radius[i];
}
// Of pair (a, b), b a body slot or a collider code: the smaller body's (a collider has no radius).
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
    return w->def.contact_margin > 0.0f ? w->def.contact_margin : KYU_MARGIN_RATIO * w->bodies.max_radius;
}

// The speed below which a touching pair rests: the restitution threshold, but never below a
// thousandth of gravity's velocity in one step (with threshold 0 a resting pair still parts or
// closes by rounding, and bounces slower than that are far too small to see). The solver owns the
// touching pairs slower than it, never lets them close faster, and the impact queue leaves them be.
// Without gravity nothing rests: every touching pair that closes or parts is the queue's.
static inline float kyu_rest_speed(const kyu_world *w) {
    float g = glms_vec3_norm(w->def.gravity);
    return g > 0.0f ? kyu_maxf(w->def.restitution_threshold, 1e-3f * g * w->def.fixed_dt) : 0.0f;
}
static inline int kyu_gravity_on(const kyu_world *w) { return glms_vec3_norm2(w->def.gravity) > 0.0f; }

// handle.c: a handle to its slot (-1 and *status when it names none)
int kyu_body_slot(const kyu_world *w, kyu_body_id id, kyu_status *status);
int kyu_collider_slot(const kyu_world *w, kyu_collider_id id, kyu_status *status);

// contact_list.c: lists sorted by kyu_contact_key; the cache's double buffer
void kyu_contacts_sort(contact *c, int n);
void kyu_contacts_swap(kyu_world *w, int n);

// error.c
#define KYU_ERROR_SIZE 256
kyu_status kyu_fail(const kyu_world *w, kyu_status status, const char *fmt, ...);
int kyu_finite3(vec3s v);
int kyu_bounded3(vec3s v, float limit);

// body.c
kyu_status kyu_body_def_validate(kyu_world *w, const kyu_body_def *d);
kyu_status kyu_body_check_position(kyu_world *w, vec3s p, float radius); // the reach (world.h)
kyu_status kyu_body_check_velocity(kyu_world *w, vec3s v, float radius, const char *what);
kyu_status kyu_body_check_angular_velocity(kyu_world *w, vec3s av, float radius, const char *what);
kyu_status kyu_body_check_rotation(kyu_world *w, versors q);
kyu_status kyu_body_check_spin(kyu_world *w, int slot, vec3s av, const char *what); // and fixed rotation
float kyu_body_inv_inertia(float mass, float radius, float inertia_scale, bool fixed_rotation);
versors kyu_body_interpolated_rotation(const kyu_world *w, uint32_t slot); // for drawing, at alpha
int kyu_bodies_reserve(kyu_world *w, int slots);
void kyu_bodies_free(body_store *b);

// collider.c
kyu_status kyu_collider_def_validate(kyu_world *w, const kyu_collider_def *d);
void kyu_collider_place(collider *c, vec3s position, versors rotation);
void kyu_colliders_update_bounds(kyu_world *w);
void kyu_colliders_advance(kyu_world *w);

// shape.c: every shape but the plane, solved in the collider's frame
float kyu_collider_distance(const collider *c, vec3s p, float r, float t, float dt, vec3s *normal);
int kyu_collider_touches_box(const collider *c, const aabb *box);
kyu_mesh *kyu_mesh_create(const vec3s *verts, int nv, const int32_t *tris, int nt);
void kyu_mesh_destroy(kyu_mesh *m);
float kyu_shape_distance(const collider *c, vec3s center, vec3s p, float r, float range, vec3s *normal);
kyu_hit kyu_shape_sweep(const collider *c, vec3s center, vec3s q0, vec3s dq, float r);
void kyu_shape_local_bounds(const collider *c, aabb *b);
void kyu_shape_world_bounds(const collider *c, vec3s center, aabb *out);
int kyu_mesh_next_contact(const collider *c, vec3s center, vec3s q0, vec3s dv, vec3s da, float r, float S,
                          float slop, float threshold, float *s, vec3s *normal, float *gap, float *approach);
vec3s kyu_mesh_push_out(const collider *c, vec3s center, vec3s p, float r, float slop);

// broadphase.c
int kyu_broadphase_build(kyu_world *w);
int kyu_broadphase_late_insert(kyu_world *w, uint32_t body);
void kyu_broadphase_mark_hit(kyu_world *w, uint32_t a, uint32_t b);
void kyu_broadphase_trim(kyu_world *w);
int kyu_pair_source_count(const kyu_world *w);
pair_source kyu_pair_source(const kyu_world *w, int s);
void kyu_grid_free(grid *g);

// toi.c
vec3s kyu_pos_at(const kyu_world *w, uint32_t i, float t);
vec3s kyu_vel_at(const kyu_world *w, uint32_t i, float t);
void kyu_path_box(const kyu_world *w, uint32_t i, float t, aabb *out);
void kyu_broadphase_box(const kyu_world *w, uint32_t i, float t, aabb *out);
int kyu_next_contact(const kyu_world *w, uint32_t a, uint32_t b, float tau, kyu_sweep_contact *out);

// events.c
kyu_body_id kyu_handle_of(const kyu_world *w, uint32_t slot, uint32_t generation);
kyu_contact_event kyu_contact_event_of(const kyu_world *w, const contact *c);
int kyu_events_begin_step(kyu_world *w);
int kyu_event_push(kyu_contact_event **arr, int *count, int *cap, kyu_contact_event ev);
int kyu_impact_record(kyu_world *w, uint32_t a, uint32_t b, vec3s n, float approach, float t);

// island.c: sleeping islands
int kyu_wake_near_colliders(kyu_world *w, const collider *a, const collider *b);
int kyu_islands_reserve_wake(kyu_world *w, int64_t bodies, int64_t contacts);
int kyu_islands_reserve_wake_of(kyu_world *w, uint32_t i);
int kyu_islands_wake_all(kyu_world *w);

int kyu_wake_body(kyu_world *w, uint32_t slot);
int kyu_islands_flush_woken(kyu_world *w);
int kyu_islands_wake_touched(kyu_world *w);
int kyu_islands_wake_box(kyu_world *w, const aabb *box);
int kyu_islands_wake_collider_contacts(kyu_world *w, uint32_t code);
int kyu_islands_rebuild_grid(kyu_world *w);
int kyu_islands_update(kyu_world *w);
void kyu_islands_free(kyu_world *w);
int kyu_islands_body_count_asleep(const kyu_world *w);
float kyu_islands_max_overlap(const kyu_world *w);

// threads.c
int kyu_pool_create(kyu_world *w);
void kyu_pool_destroy(kyu_world *w);
void kyu_parallel_for(kyu_world *w, int items, int min_range, kyu_task_fn *task, void *context);

// Work whose result depends on how it is split (lists joined in order, sums) runs in fixed slices:
// their number depends on the item count only, never on the workers, so the answer is the same for
// any worker count. Slice c of n items is [kyu_slice_start(n, s, c), kyu_slice_start(n, s, c + 1)).
#define KYU_MAX_SLICES 64
static inline int kyu_slice_count(int n) {
    return n / 2048 + 1 < KYU_MAX_SLICES ? n / 2048 + 1 : KYU_MAX_SLICES;
}
static inline int kyu_slice_start(int n, int slices, int c) { return (int)((int64_t)n * c / slices); }

// A body's partners this step (the pairs the broadphase found, then those added mid-step): the one
// walk every stage uses.
//
//     for (kyu_partner_iter it = kyu_partners(w, a); kyu_next_partner(w, &it);)
//         use(it.partner, *it.hit);
//
// `partner` is a body slot or a collider index with KYU_COLLIDER_BIT; `hit` points at the pair's
// flags for this step (an impact, kept, touching: each stage's own bits).
typedef struct kyu_partner_iter {
    uint32_t partner;
    uint8_t *hit;
    uint32_t body;
    int k, end; // CSR entries [k, end) are left; after them (end == -1) k is the next entry of the
                //   body's mid-step list (-1 when none is left)
} kyu_partner_iter;

static inline kyu_partner_iter kyu_partners(const kyu_world *w, uint32_t a) {
    kyu_partner_iter it = {0, NULL, a, w->adj_start[a], w->adj_start[a + 1]};
    return it;
}

static inline bool kyu_next_partner(const kyu_world *w, kyu_partner_iter *it) {
    if (it->end >= 0) {
        if (it->k < it->end) {
            it->partner = w->adj[it->k];
            it->hit = &w->adj_hit[it->k++];
            return true;
        }
        it->end = -1;
        it->k = w->late_head[it->body];
    }
    if (it->k < 0) return false;
    it->partner = w->late_partner[it->k];
    it->hit = &w->late_hit[it->k];
    it->k = w->late_next[it->k];
    return true;
}

// query.c: the query structure is rebuilt lazily; every change to bodies or colliders invalidates it.
void kyu_query_invalidate(kyu_world *w);
void kyu_query_free(kyu_world *w);
int kyu_query_bodies_near(kyu_world *w, vec3s center, float radius, const uint32_t **bodies);

// filter: whether a pair may meet at all (a sensor pair never does).
int kyu_pair_allowed(const kyu_world *w, uint32_t a, uint32_t b);
static inline int kyu_pair_is_sensor(const kyu_world *w, uint32_t a, uint32_t b) {
    return w->bodies.sensor[a] || (!(b & 0x80000000u) && w->bodies.sensor[b]);
}

// filter: whether a body pair / body-collider pair may collide (before sensors are considered).
static inline int kyu_filter_bodies(const body_store *s, uint32_t a, uint32_t b) {
    if (s->group[a] != 0 && s->group[a] == s->group[b]) return s->group[a] > 0;
    return (s->mask[a] & s->category[b]) && (s->mask[b] & s->category[a]);
}

// impact.c
int kyu_impacts_resolve(kyu_world *w);

// When a touching pair (relative normal velocity vn, relative acceleration an along the normal,
// both positive apart) next presses into each other within [0, S]: at once if it closes now or
// rests pressed (vn = 0), or when its relative parabola brings it back to where it is (a ball that
// just bounced lands again at 2 vn / |an|), never (-1) otherwise. A body falling onto what it
// touches must not sink: this moment is the queue's to handle.
static inline float kyu_press_time(float vn, float an, float S) {
    if (vn < 0.0f) return 0.0f;
    if (!(an < 0.0f)) return -1.0f;
    float s = 2.0f * vn / -an;
    return s <= S ? s : -1.0f;
}

// spin.c
versors kyu_quat_turn(versors q, vec3s angular_velocity, float seconds); // turned, unit
versors kyu_quat_unit(versors q);
vec3s kyu_collider_point_velocity(const collider *c, vec3s p, vec3s n);
int kyu_collider_spins(const collider *c);

// response.c: the impulse given to body a (normal and tangential parts)
typedef struct kyu_impulse {
    float normal;
    vec3s tangent;
} kyu_impulse;
kyu_impulse kyu_respond_pair(kyu_world *w, uint32_t a, uint32_t b, vec3s n, float e);
kyu_impulse kyu_respond_collider(kyu_world *w, uint32_t a, const collider *c, vec3s n, float e);

// escape.c
void kyu_contacts_classify(kyu_world *w);
int kyu_contacts_solver_owns(const kyu_world *w, uint32_t a, uint32_t b);
int kyu_contacts_solve_velocities(kyu_world *w);
int kyu_contacts_find(kyu_world *w);
int kyu_contacts_escape(kyu_world *w);
void kyu_contacts_mark_supported(kyu_world *w);
int kyu_contact_live(const kyu_world *w, const contact *c);
float kyu_contact_gap(const kyu_world *w, const contact *c, vec3s *normal);
int kyu_contacts_purge(kyu_world *w);
int kyu_contacts_add_fresh(kyu_world *w);
typedef void kyu_contact_visit_fn(const kyu_world *w, const contact *c, void *ctx);
void kyu_contacts_each(const kyu_world *w, kyu_contact_visit_fn *visit, void *ctx);
float kyu_contact_mass(const kyu_world *w, const contact *c);        // 1 / (inverse mass sum)
float kyu_contact_restitution(const kyu_world *w, const contact *c); // of the pair
float kyu_contact_friction(const kyu_world *w, const contact *c);    // of the pair
void kyu_contact_spin_limits(const kyu_world *w, const contact *c, float *roll, float *twist);

// material.c: a pair's friction and restitution (b is a body slot or a collider code)
float kyu_pair_friction(const kyu_world *w, uint32_t a, uint32_t b);
float kyu_pair_restitution(const kyu_world *w, uint32_t a, uint32_t b);
float kyu_pair_rolling(const kyu_world *w, uint32_t a, uint32_t b); // the larger rolling resistance

#endif
