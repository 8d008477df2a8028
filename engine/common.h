// SPDX-License-Identifier: MIT
// Private to the engine: what every module shares (limits, the collider bit, min and max, the one
// box type, growable arrays, the per-step arena, fixed slices of work, errors). Nothing here is
// public API.
#ifndef KYU_COMMON_H
#define KYU_COMMON_H

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

// A body that turns holds its inverse moment of inertia in float, and the spin solve adds two
// bodies' and divides an angular velocity by the sum (an angular impulse, up to I |w| with |w| and
// |w| r up to KYU_MAX_COORD): each stays below this, a factor 30 inside float (kyu_inv_inertia_ok).
#define KYU_SPIN_ROOM 1.0e37f

// The contact solves run in this many slabs of space at once (a fixed number, so the order of the
// solve, and the answer, is the same for any worker count); pairs across slabs are solved after, in
// KYU_SOLVE_GROUPS - KYU_SOLVE_DOMAINS more domains (solver_slabs.c). Even.
#define KYU_SOLVE_DOMAINS 8
#define KYU_SOLVE_GROUPS  (2 * KYU_SOLVE_DOMAINS)

// How a stage of the step failed: every stage returns 0 or one of these.
enum { KYU_FAIL_MEMORY = -1, KYU_FAIL_PAIRS = -2, KYU_FAIL_CONTACTS = -3 };

// A partner in an adjacency list or a contact: a body slot, or a collider index with this bit.
#define KYU_COLLIDER_BIT 0x80000000u
static inline int kyu_is_collider(uint32_t b) { return (b & KYU_COLLIDER_BIT) != 0; }

// Compiler hints, no-ops where the compiler has none (the library is ISO C11: MSVC must build it).
// KYU_PREFETCH(address) or KYU_PREFETCH(address, 1) (to be written): gcc's and clang's
// __builtin_prefetch. KYU_PRINTF_LIKE(f, a): the function's argument f is a printf format whose
// arguments start at a, checked like printf's.
#if defined(__GNUC__)
#define KYU_PREFETCH(...)     __builtin_prefetch(__VA_ARGS__)
#define KYU_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define KYU_PREFETCH(...) ((void)0)
#define KYU_PRINTF_LIKE(f, a)
#endif

// min and max of finite floats, inlined: without -ffinite-math-only, fminf and fmaxf are calls into
// libm, which showed up at 4% of a GAS step.
static inline float kyu_minf(float a, float b) { return b < a ? b : a; }
static inline float kyu_maxf(float a, float b) { return b > a ? b : a; }

typedef struct aabb {
    float lo[3], hi[3];
} aabb;
_Static_assert(offsetof(aabb, hi) == 3 * sizeof(float) && sizeof(aabb) == 6 * sizeof(float),
               "a box's six floats lie in a row (read four at a time in broadphase.c)");

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

// The box of a sphere (centre p, radius r); the empty box, which a join makes the box it joins; a
// join (the smallest box holding both).
static inline aabb kyu_box_around(vec3s p, float r) {
    return (aabb){{p.x - r, p.y - r, p.z - r}, {p.x + r, p.y + r, p.z + r}};
}
static inline aabb kyu_box_empty(void) { return (aabb){{1e30f, 1e30f, 1e30f}, {-1e30f, -1e30f, -1e30f}}; }
static inline void kyu_box_join(aabb *into, const aabb *b) {
    for (int k = 0; k < 3; k++)
        into->lo[k] = kyu_minf(into->lo[k], b->lo[k]), into->hi[k] = kyu_maxf(into->hi[k], b->hi[k]);
}

// A float sort key and an index, sorted by key and ties by index (qsort is not stable: one order on
// every platform): what the bounding volume hierarchies split at their medians (shape.c,
// collider_tree.c). qsort has no context argument, so each range is sorted as such pairs.
typedef struct kyu_keyed {
    float key;
    int32_t index;
} kyu_keyed;
static inline int kyu_by_key(const void *x, const void *y) {
    const kyu_keyed *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

// Growable array helpers: grow to at least n elements, never shrink. 0 on success.
int kyu_reserve(void **data, int *capacity, int n, size_t elem);
#define RESERVE(arr, cap, n) kyu_reserve((void **)&(arr), &(cap), (n), sizeof *(arr))
void kyu_shrink(void **data, int *capacity, int n, size_t elem);
#define SHRINK(arr, cap, n) kyu_shrink((void **)&(arr), &(cap), (n), sizeof *(arr))
#define KYU_IDLE_BYTES      (16u << 20) // the smallest idle array given back (kyu_give_back)
extern size_t kyu_idle_bytes;           // KYU_IDLE_BYTES; a test lowers it to give back all
void kyu_give_back(void **data, int *capacity, size_t elem);
#define GIVE_BACK(arr, cap) kyu_give_back((void **)&(arr), &(cap), sizeof *(arr))

// The per-step arena: one block of per-slot scratch. A stage takes its scratch at its start and
// gives it back (kyu_arena_reset) at its end; what the step keeps across stages is taken first and
// kept (kyu_arena_keep: resets return to it) until kyu_arena_clear. It is as large as the most a
// step holds at once, KYU_ARENA_PER_SLOT bytes a slot (the step's t_body, accel and box, 40 bytes,
// under the impacts', the soft escape's, the contact search's or the island pass's 12), grown with
// the body store, so a take never fails.
typedef struct kyu_arena {
    unsigned char *base;
    size_t cap, used, mark;
} kyu_arena;
#define KYU_ARENA_PER_SLOT 52
#define KYU_ARENA_SLACK    96 // room to align up to six takes
static inline void *kyu_arena_take(kyu_arena *a, size_t bytes) {
    size_t at = (a->used + 15) & ~(size_t)15;
    KYU_ASSERT(at + bytes <= a->cap);
    a->used = at + bytes;
    return a->base ? a->base + at : NULL; // no bodies yet: nothing is taken (and NULL + 0 is not C)
}
static inline void kyu_arena_reset(kyu_arena *a) { a->used = a->mark; }
static inline void kyu_arena_keep(kyu_arena *a) { a->mark = a->used; }
static inline void kyu_arena_clear(kyu_arena *a) { a->used = a->mark = 0; }

// Work whose result depends on how it is split (lists joined in order, sums) runs in fixed slices:
// their number depends on the item count only, never on the workers, so the answer is the same for
// any worker count. Slice c of n items is [kyu_slice_start(n, s, c), kyu_slice_start(n, s, c + 1)).
#define KYU_MAX_SLICES 64
static inline int kyu_slice_count(int n) {
    return n / 2048 + 1 < KYU_MAX_SLICES ? n / 2048 + 1 : KYU_MAX_SLICES;
}
static inline int kyu_slice_start(int n, int slices, int c) { return (int)((int64_t)n * c / slices); }

// error.c
#define KYU_ERROR_SIZE 256
kyu_status kyu_fail(const kyu_world *w, kyu_status status, const char *fmt, ...);
int kyu_finite3(vec3s v);
int kyu_bounded3(vec3s v, float limit);

#endif
