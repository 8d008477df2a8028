// SPDX-License-Identifier: MIT
// Broadphase: a hashed uniform grid over each particle's swept box. Every pair of boxes that overlap
// becomes a candidate pair, found once, in a deterministic order; colliders are paired by their
// bounds. A box that fits in a cell is entered once (the cell of its low corner): two such boxes
// that overlap have low corners at most one cell apart on each axis, so a body meets all its
// partners in its own cell and the 13 cells ahead of it. Larger boxes go to coarser levels of the
// grid, cells of 2, 4, 8 ... fine cells, each the same way. Mid-step, a particle whose new path leaves its
// box is entered again (late insert) and queried, so a particle turned around by an impact still meets
// everything in its way.
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "internal.h"

#define MAX_CELLS_PER_BODY 4096 // beyond this a body is "huge" and tested against every body

static void cell_range(const grid *g, const aabb *b, int32_t lo[3], int32_t hi[3]) {
    for (int k = 0; k < 3; k++) {
        lo[k] = kyu_cell_of(b->lo[k], g->inv_cell);
        hi[k] = kyu_cell_of(b->hi[k], g->inv_cell);
    }
}

static int64_t cell_count(const int32_t lo[3], const int32_t hi[3]) {
    return (int64_t)(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);
}

int kyu_pair_allowed(const kyu_world *w, uint32_t a, uint32_t b) {
    const body_store *s = &w->bodies;
    if (b & KYU_COLLIDER_BIT) {
        const collider *c = &w->colliders.list[b & ~KYU_COLLIDER_BIT];
        const body_kind *ka = kyu_body_kind(s, a);
        return (ka->mask & c->category) && (c->mask & ka->category);
    }
    if (kyu_body_kind(s, a)->sensor && kyu_body_kind(s, b)->sensor) return 0;
    return kyu_filter_bodies(s, a, b);
}

// Two arrays that share one capacity (a pair list): room for n pairs in both.
static int reserve_pairs(uint32_t **a, uint32_t **b, int *cap, int n) {
    if (n <= *cap) return 0;
    int cap_a = *cap, cap_b = *cap;
    if (RESERVE(*a, cap_a, n) || RESERVE(*b, cap_b, n)) return -1;
    *cap = cap_a < cap_b ? cap_a : cap_b;
    return 0;
}

static int push_pair(kyu_world *w, uint32_t a, uint32_t b) {
    if (!kyu_pair_allowed(w, a, b)) return 0;
    if (w->pairs.count >= w->grid.pair_budget) return w->grid.overflow = 1, -1;
    if (reserve_pairs(&w->pairs.a, &w->pairs.b, &w->pairs.cap, w->pairs.count + 1)) return -1;
    w->pairs.a[w->pairs.count] = a;
    w->pairs.b[w->pairs.count] = b;
    w->pairs.count++;
    return 0;
}

static float box_extent(const aabb *b);

// The cell is a little larger than the mean box, so nearly every box fits in one cell (the few
// that do not, fast bodies, go in every cell they cover); in a sparse world it grows until there
// are about 0.6 bodies a cell over the span of the boxes. The pair search pays for each occupied
// cell (its neighbour ranges) and for each box test: a gas at one body in three cells paid mostly
// for cells, while a pile (1.3 a cell) would pay for the extra tests of larger cells. The choice
// decides which pairs are tested and in what order, never the answer: what the step does with the
// pairs does not depend on their order (tests/tools/hashes.sh runs the pinned scenes with cells of
// 0.9, 1.7 and 3.1 m; tests/test_threads.c a bed of mixed sizes). The cell is computed from the
// bodies alone, identically on every platform.
#define SPARSE_BODIES_PER_CELL 0.6

// What one fixed slice of the active bodies adds to the choice: the smallest radius and the span
// of the boxes' low corners (a first pass), then the bodies and the sum of their box extents in each
// octave of radius above the smallest (slices are joined in order, so any worker count gives the
// same).
enum { OCTAVES = 16, QUARTERS = 4 * OCTAVES };
typedef struct cell_stats {
    double extent_sum[OCTAVES];
    int counted[OCTAVES];
    int extents[QUARTERS]; // the boxes by extent over the smallest diameter, in quarters of an octave
    float cubes[QUARTERS]; // the radii cubed, summed by the same quarters
    float rmin, lo[3], hi[3];
} cell_stats;

static const cell_stats NO_STATS = {
    .rmin = INFINITY, .lo = {INFINITY, INFINITY, INFINITY}, .hi = {-INFINITY, -INFINITY, -INFINITY}};

typedef struct cell_stats_ctx {
    const kyu_world *w;
    cell_stats *slice;
    int slices;
    float rmin; // the second pass: octaves above this radius
} cell_stats_ctx;

static int octave_of(float r, float rmin) {
    int e;
    frexpf(r / rmin, &e); // r / rmin in [2^(e-1), 2^e)
    return e < 1 ? 0 : e > OCTAVES ? OCTAVES - 1 : e - 1;
}

// The quarter of an octave that holds x >= 1 (1 to 2^0.25: 0), and where each ends: the comparisons
// and ldexpf are exact, so every platform bins alike.
static const float QUARTER_END[4] = {1.18920712f, 1.41421356f, 1.68179283f, 2.0f};
static int quarter_of(float x) {
    int e;
    float m = 2.0f * frexpf(x, &e); // x = m 2^(e-1), m in [1, 2)
    int q = 4 * (e - 1) + (m >= QUARTER_END[0]) + (m >= QUARTER_END[1]) + (m >= QUARTER_END[2]);
    return q < 0 ? 0 : q >= QUARTERS ? QUARTERS - 1 : q;
}

static void cell_stats_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    const cell_stats_ctx *x = ctx;
    const kyu_world *w = x->w;
    int n = w->step.active_count;
    for (int c = begin; c < end; c++) {
        cell_stats st = NO_STATS;
        for (int k = kyu_slice_start(n, x->slices, c); k < kyu_slice_start(n, x->slices, c + 1); k++) {
            uint32_t i = w->step.active[k];
            const aabb *b = &w->step.box[i];
            if (x->rmin > 0.0f) { // the second pass
                float r = w->bodies.radius[i], extent = box_extent(b);
                int o = octave_of(r, x->rmin), q = quarter_of(extent / (2.0f * x->rmin));
                st.extent_sum[o] += (double)extent, st.counted[o]++;
                st.extents[q]++, st.cubes[q] += r * r * r;
                continue;
            }
            st.extent_sum[0] += (double)box_extent(b), st.counted[0]++;
            st.rmin = kyu_minf(st.rmin, w->bodies.radius[i]);
            for (int d = 0; d < 3; d++)
                st.lo[d] = kyu_minf(st.lo[d], b->lo[d]), st.hi[d] = kyu_maxf(st.hi[d], b->lo[d]);
        }
        x->slice[c] = st;
    }
}

// The cube root of x > 0 from frexp, ldexp and + - * / only. Those are exact or correctly rounded
// on every IEEE machine, while C libraries round cbrt each their own way; the grid's cell comes
// from this root, and the cascade's order from the grid, so the wasm build and the native one step
// alike only if both compute the cell to the bit.
static double cube_root(double x) {
    int e;
    double m = frexp(x, &e);          // x = m 2^e, m in [0.5, 1)
    while (e % 3 != 0) m *= 2.0, e--; // now m in [0.5, 4) and e a multiple of 3
    double r = 1.0;
    for (int k = 0; k < 8; k++) r -= (r * r * r - m) / (3.0 * r * r); // Newton from 1: 8 are plenty
    return ldexp(r, e / 3);
}

// The fine cell is a little larger than the mean box of the small bodies: those of the first octave
// of radius (counting up from the smallest) that holds an eighth of the bodies, and of the octaves
// below it; larger boxes go to the coarser levels. Bodies of one size (and a few smaller ones) get
// the cell of their mean box. With sizes spanning more than an octave, the cell also fits as many
// boxes as it can while a fine box meets no more than FINE_TESTS others (cell_fitting_most): a box
// on a level costs several times a box in the fine grid (its own cell ranges to read on each finer
// level and in the fine grid), so the cheapest cell leaves only the largest few to the levels. In a
// bed of radii spanning 1:10 (lognormal, 10,000) the small bodies' cell of 3.7 cm left 4,600 boxes
// to the levels and took 2.7 ms a build; 6.9 cm leaves 900 and takes 1.7 (an equal bed's: 1.2). A
// half-and-half mixture of 5 mm and 5 cm spheres builds fastest with every box in the fine grid
// (1.5 ms against 2.0 with the 5 cm ones on a level), one with a fifth of 5 cm ones with them on
// the levels (1.7 ms against 2.8). A cell fitted to the mean box of all, before there were levels,
// was spanned by the large ones (3x an equal bed's broadphase a body). In a sparse world the cell
// grows until there are about 0.6 bodies a cell over the span of the boxes.

// The largest cell that fits a quarter-octave's boxes and all smaller ones, while a box of the fine
// grid would still meet no more than FINE_TESTS others in its cell and the 13 ahead: 13.5 cells of
// the boxes that fit, spread over the room the bodies would take packed (their volume over 0.6, as
// a bed; a sparser world has fewer, and grows its cell anyway). Bodies more than 8 such cells wide
// give no room: beads beside a boulder pack as densely as alone. 0 when none.
#define FINE_TESTS 64.0
static double cell_fitting_most(const cell_stats *slice, int slices, int n, float rmin) {
    int count[QUARTERS] = {0};
    double cubes[QUARTERS] = {0.0};
    for (int q = 0; q < QUARTERS; q++)
        for (int c = 0; c < slices; c++)
            count[q] += slice[c].extents[q], cubes[q] += (double)slice[c].cubes[q];
    double best = 0.0;
    int fit = 0;
    for (int q = 0; q < QUARTERS && fit < n; q++) {
        if (!count[q]) continue;
        fit += count[q];
        double cell = 1.02 * (double)ldexpf(2.0f * rmin * QUARTER_END[q % 4], q / 4), room = 0.0;
        for (int b = 0; b < QUARTERS && (double)ldexpf(2.0f * rmin, b / 4) <= 8.0 * cell; b++)
            room += cubes[b];
        room *= 4.0 / 3.0 * 3.14159265358979 / 0.6;
        if (13.5 * cell * cell * cell * fit <= FINE_TESTS * room) best = cell;
    }
    return best;
}

// How many distinct cells of side `cell` hold a low corner of every stride-th active box: a set of
// their keys, open addressing (two cells with one key count once, which an estimate bears).
static int occupied_cells(kyu_world *w, float cell, int stride, int *occupied) {
    grid *g = &w->grid;
    int n = w->step.active_count, size = 64;
    while (size < 2 * (n / stride + 1)) size *= 2;
    if (RESERVE(g->occupancy, g->occupancy_cap, size)) return -1;
    memset(g->occupancy, 0, (size_t)size * sizeof *g->occupancy);
    float inv = 1.0f / cell;
    *occupied = 0;
    for (int k = 0; k < n; k += stride) {
        const aabb *b = &w->step.box[w->step.active[k]];
        int32_t c[3] = {kyu_cell_of(b->lo[0], inv), kyu_cell_of(b->lo[1], inv), kyu_cell_of(b->lo[2], inv)};
        uint32_t key = kyu_cell_hash(c) | 1u, at = (key * 0x9E3779B1u) >> 7;
        for (;; at++) {
            uint32_t *slot = &g->occupancy[at & (uint32_t)(size - 1)];
            if (*slot == key) break;
            if (*slot == 0) {
                *slot = key, ++*occupied;
                break;
            }
        }
    }
    return 0;
}

// A world's bodies spread over a box SPARSE_GROWTH times the fine cell's volume, or more, a body:
// where the span may be mostly empty (a pile, and one ball shot a kilometre away), the sparse rule
// counts only the cells that hold a body.
#define SPARSE_GROWTH 3.375 // the sparse cell 1.5 times the bodies' one

static int choose_cell_size(kyu_world *w) {
    grid *g = &w->grid;
    int n = w->step.active_count;
    if (w->def.cell_size > 0.0f) {
        g->cell = w->def.cell_size;
    } else if (n == 0) {
        g->cell = 1.0f;
    } else {
        cell_stats all = NO_STATS;
        if (RESERVE(g->cell_slices, g->cell_slices_cap, kyu_slice_count(n))) return -1;
        cell_stats_ctx x = {w, g->cell_slices, kyu_slice_count(n), 0.0f};
        const cell_stats *slice = g->cell_slices;
        kyu_parallel_for(w, x.slices, 1, cell_stats_task, &x);
        for (int c = 0; c < x.slices; c++) {
            all.rmin = kyu_minf(all.rmin, slice[c].rmin);
            for (int d = 0; d < 3; d++)
                all.lo[d] = kyu_minf(all.lo[d], slice[c].lo[d]),
                all.hi[d] = kyu_maxf(all.hi[d], slice[c].hi[d]);
        }
        // Every radius within 2x of the smallest (one size: the common case): one octave, the first
        // pass's sums. Otherwise a second pass sorts the bodies into octaves.
        int sizes = !(w->bodies.max_radius < 2.0f * all.rmin);
        if (sizes) {
            x.rmin = all.rmin;
            kyu_parallel_for(w, x.slices, 1, cell_stats_task, &x);
        }
        double sum = 0.0;
        int counted = 0;
        for (int o = 0; o < OCTAVES && 8 * counted < n; o++) {
            int in_octave = 0;
            for (int c = 0; c < x.slices; c++)
                sum += slice[c].extent_sum[o], in_octave += slice[c].counted[o];
            counted += in_octave;
            if (8 * in_octave >= n) break;
        }
        double cell = 1.1 * sum / counted, volume = 1.0;
        if (sizes) cell = fmax(cell, cell_fitting_most(slice, x.slices, n, all.rmin));
        for (int d = 0; d < 3; d++) volume *= (double)all.hi[d] - (double)all.lo[d] + cell;
        double sparse = cube_root(SPARSE_BODIES_PER_CELL * volume / n);
        // A gas as sparse as 0.6 bodies a cell fills 45% of its cells; bodies that fill fewer than an
        // eighth of the cells of their room are clustered, and their room is the cells they fill
        // (again at the cell that gives, which is finer: a pile fills its cells better). A sample of
        // about 512 tells a gas first, so that a dilute one does not pay for a set of all its bodies
        // every step: m bodies spread over N cells land about m^2 / 2N times in a cell already
        // taken, so N is about m^2 / 2 (m - occupied).
        double room = volume;
        for (int pass = 0; pass < 4 && sparse * sparse * sparse > SPARSE_GROWTH * cell * cell * cell;
             pass++) {
            int occupied, stride = pass == 0 && n > 1024 ? n / 512 : 1, m = (n + stride - 1) / stride;
            if (occupied_cells(w, (float)sparse, stride, &occupied)) return -1;
            double cells = stride == 1    ? occupied
                           : occupied < m ? 0.5 * m * m / (m - occupied)
                                          : (double)INFINITY;
            if (!(8.0 * cells * sparse * sparse * sparse < room)) break;
            if (stride > 1 && occupied_cells(w, (float)sparse, 1, &occupied)) return -1;
            room = occupied * sparse * sparse * sparse, sparse = cube_root(SPARSE_BODIES_PER_CELL * room / n);
        }
        g->cell = (float)fmax(cell, sparse);
    }
    g->inv_cell = 1.0f / g->cell;
    return 0;
}

// Radix sort of the entries by cell hash (stable, so the order stays deterministic).
static void sort_entries(grid *g) {
    int n = g->entry_count;
    grid_entry *src = g->entries, *dst = g->entries_tmp;
    for (int shift = 0; shift < 32; shift += 8) {
        int count[257] = {0};
        for (int i = 0; i < n; i++) count[((src[i].key >> shift) & 255u) + 1]++;
        for (int k = 0; k < 256; k++) count[k + 1] += count[k];
        for (int i = 0; i < n; i++) dst[count[(src[i].key >> shift) & 255u]++] = src[i];
        grid_entry *t = src;
        src = dst;
        dst = t;
    }
    // 4 passes: the sorted data is back in g->entries.
}

static int table_reserve(uint32_t **key, uint32_t **val, int *size, int needed) {
    int n = 64;
    while (n < 2 * needed) n *= 2;
    if (n > *size) {
        uint32_t *k = kyu_realloc(*key, (size_t)n * sizeof *k);
        if (!k) return -1;
        *key = k;
        uint32_t *v = kyu_realloc(*val, (size_t)n * sizeof *v);
        if (!v) return -1;
        *val = v;
        *size = n;
    }
    memset(*val, 0xff, (size_t)*size * sizeof **val);
    return 0;
}

static float box_extent(const aabb *b) {
    float e = b->hi[0] - b->lo[0];
    if (b->hi[1] - b->lo[1] > e) e = b->hi[1] - b->lo[1];
    if (b->hi[2] - b->lo[2] > e) e = b->hi[2] - b->lo[2];
    return e;
}

// A box that fits in one cell (margin: its corners stay within one cell despite rounding).
static int fits_cell(const grid *g, const aabb *b) { return box_extent(b) <= 0.99f * g->cell; }

// The index of cell c in the dense grid, or -1 outside its box.
static int64_t dense_index(const grid *g, const int32_t c[3]) {
    for (int k = 0; k < 3; k++)
        if (c[k] < g->origin[k] || c[k] >= g->origin[k] + g->dims[k]) return -1;
    return ((int64_t)(c[2] - g->origin[2]) * g->dims[1] + (c[1] - g->origin[1])) * g->dims[0] +
           (c[0] - g->origin[0]);
}

// The build's passes over the active bodies run in fixed slices (kyu_slice_count), so what they
// gather comes out the same for any worker count.

// What one slice of active bodies holds: the span of the small boxes' low corners, how many small
// boxes, and how many larger ones.
typedef struct span_slice {
    float lo[3], hi[3];
    int small, large;
} span_slice;

typedef struct build_ctx {
    kyu_world *w;
    span_slice *span;
    int slices;
} build_ctx;

static void span_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    const build_ctx *x = ctx;
    const kyu_world *w = x->w;
    int n = w->step.active_count;
    for (int c = begin; c < end; c++) {
        span_slice local = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0, 0},
                   *s = &local;
        for (int k = kyu_slice_start(n, x->slices, c); k < kyu_slice_start(n, x->slices, c + 1); k++) {
            const aabb *b = &w->step.box[w->step.active[k]];
            if (!fits_cell(&w->grid, b)) {
                s->large++;
                continue;
            }
            s->small++;
            for (int d = 0; d < 3; d++)
                s->lo[d] = kyu_minf(s->lo[d], b->lo[d]), s->hi[d] = kyu_maxf(s->hi[d], b->lo[d]);
        }
        x->span[c] = local; // stored once: neighbouring slices share cache lines
    }
}

// Each active body's dense cell (-1: not a small box).
static void dense_cell_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    const grid *g = &w->grid;
    for (int k = begin; k < end; k++) {
        const aabb *b = &w->step.box[w->step.active[k]];
        int32_t c[3];
        for (int d = 0; d < 3; d++) c[d] = kyu_cell_of(b->lo[d], g->inv_cell);
        w->step.dense_fill.cell[k] = fits_cell(g, b) ? (int)dense_index(g, c) : -1;
    }
}

// Each small box to its place: its cell's first entry plus its rank in the cell.
static void dense_fill_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    grid *g = &w->grid;
    for (int k = begin; k < end; k++) {
        int idx = w->step.dense_fill.cell[k];
        if (idx < 0) continue;
        grid_entry *e = &g->entries[g->dense_start[idx] + (uint32_t)w->step.dense_fill.rank[k]];
        e->key = (uint32_t)idx;
        e->body = w->step.active[k];
        e->box = w->step.box[e->body];
    }
}

// A compact world (the occupied cells fit in a box of at most 4 cells a body): the small boxes are
// counting-sorted by cell index straight from the bodies (in active order within a cell, as a
// stable sort would leave them), so a neighbour is found by arithmetic instead of hashing. The
// cells and the placing run in parallel; only the count (each body's rank in its cell) is serial.
static int fill_dense(kyu_world *w, const int32_t lo[3], const int32_t hi[3], int64_t n) {
    grid *g = &w->grid;
    int words = (int)((n + 63) / 64);
    if (RESERVE(g->dense_start, g->dense_cap, (int)n + 1) ||
        RESERVE(g->late_dense, g->late_dense_cap, (int)n) || RESERVE(g->late_bits, g->late_bits_cap, words) ||
        RESERVE(g->occ_bits, g->occ_bits_cap, words))
        return -1;
    for (int k = 0; k < 3; k++) g->origin[k] = lo[k], g->dims[k] = hi[k] - lo[k] + 1;
    uint32_t *start = g->dense_start;
    memset(start, 0, (size_t)(n + 1) * sizeof *start);
    const int *cell = w->step.dense_fill.cell =
        kyu_arena_take(&w->step.arena, (size_t)w->bodies.high * sizeof *cell);
    int *rank = w->step.dense_fill.rank =
        kyu_arena_take(&w->step.arena, (size_t)w->bodies.high * sizeof *rank);
    kyu_parallel_for(w, w->step.active_count, 4096, dense_cell_task, w);
    memset(g->occ_bits, 0, (size_t)words * sizeof *g->occ_bits);
    for (int k = 0; k < w->step.active_count; k++)
        if (cell[k] >= 0) {
            rank[k] = (int)start[cell[k] + 1]++;
            g->occ_bits[cell[k] >> 6] |= 1ull << (cell[k] & 63);
        }
    for (int64_t i = 0; i < n; i++) start[i + 1] += start[i]; // start[i]: the first entry of cell i
    kyu_parallel_for(w, w->step.active_count, 4096, dense_fill_task, w);
    kyu_arena_reset(&w->step.arena);
    w->step.dense_fill.cell = w->step.dense_fill.rank = NULL;
    memset(g->late_bits, 0, (size_t)words * sizeof *g->late_bits);
    g->dense = 1;
    return 0;
}

// A span too wide for a dense grid, because a few small boxes lie far from the others (a ball shot a
// kilometre out of the arena): the box of the others, the far ones to be listed with the huge (each
// tested against every body). Per axis, the low corners in 256 bins over the
// span; each end drops the bins that hold no more than FAR_BODIES / 6 boxes in all, three times
// over (at most 256^3 the bulk's size). How many lie outside the cells of that box (lo, hi): 0 when
// none, or more than FAR_BODIES.
enum { FAR_BODIES = 12 };

// A small box whose low corner lies outside the cells [lo, hi].
static int is_far(const grid *g, const aabb *b, const int32_t lo[3], const int32_t hi[3]) {
    if (!fits_cell(g, b)) return 0;
    for (int d = 0; d < 3; d++) {
        int32_t c = kyu_cell_of(b->lo[d], g->inv_cell);
        if (c < lo[d] || c > hi[d]) return 1;
    }
    return 0;
}

static int far_bodies(kyu_world *w, const float span_lo[3], const float span_hi[3], int32_t cell_lo[3],
                      int32_t cell_hi[3]) {
    grid *g = &w->grid;
    float lo[3], hi[3];
    int dropped[6] = {0};
    memcpy(lo, span_lo, sizeof lo), memcpy(hi, span_hi, sizeof hi);
    for (int round = 0; round < 3; round++) {
        int bins[3][256] = {{0}}, moved = 0;
        for (int k = 0; k < w->step.active_count; k++) {
            const aabb *b = &w->step.box[w->step.active[k]];
            int inside = fits_cell(g, b);
            for (int d = 0; d < 3 && inside; d++) inside = b->lo[d] >= lo[d] && b->lo[d] <= hi[d];
            for (int d = 0; d < 3 && inside; d++) {
                float at = hi[d] > lo[d] ? 256.0f * (b->lo[d] - lo[d]) / (hi[d] - lo[d]) : 0.0f;
                bins[d][at < 255.0f ? (int)at : 255]++;
            }
        }
        for (int d = 0; d < 3; d++) {
            float width = (hi[d] - lo[d]) / 256.0f;
            int a = 0, z = 255;
            while (a < z && dropped[2 * d] + bins[d][a] <= FAR_BODIES / 6) dropped[2 * d] += bins[d][a++];
            while (z > a && dropped[2 * d + 1] + bins[d][z] <= FAR_BODIES / 6)
                dropped[2 * d + 1] += bins[d][z--];
            float new_lo = a > 0 ? lo[d] + width * (float)a : lo[d],
                  new_hi = z < 255 ? lo[d] + width * (float)(z + 1) : hi[d];
            moved |= new_lo != lo[d] || new_hi != hi[d];
            lo[d] = new_lo, hi[d] = new_hi;
        }
        if (!moved) break; // nothing to drop (two clusters, say): the next round would not either
    }
    int32_t c_lo[3], c_hi[3];
    for (int d = 0; d < 3; d++)
        c_lo[d] = kyu_cell_of(lo[d], g->inv_cell), c_hi[d] = kyu_cell_of(hi[d], g->inv_cell);
    int far = 0;
    for (int k = 0; k < w->step.active_count && far <= FAR_BODIES; k++)
        far += is_far(g, &w->step.box[w->step.active[k]], c_lo, c_hi);
    if (far == 0 || far > FAR_BODIES) return 0;
    memcpy(cell_lo, c_lo, sizeof c_lo), memcpy(cell_hi, c_hi, sizeof c_hi);
    return far;
}

// The small boxes whose low corner lies outside the cells [lo, hi], listed with the huge.
static int list_far_bodies(kyu_world *w, const int32_t lo[3], const int32_t hi[3]) {
    grid *g = &w->grid;
    for (int k = 0; k < w->step.active_count; k++) {
        if (!is_far(g, &w->step.box[w->step.active[k]], lo, hi)) continue;
        if (RESERVE(g->huge, g->huge_cap, g->huge_count + 1)) return -1;
        g->huge[g->huge_count++] = w->step.active[k];
    }
    return 0;
}

// Small boxes become one entry each; large ones are listed as big (multi-cell) or huge (too many
// cells: tested against every body). A compact world fills the dense grid; any other one gets its
// entries by cell hash, radix-sorted.
static int emit_entries(kyu_world *w) {
    grid *g = &w->grid;
    g->entry_count = g->huge_count = g->big_count = 0;
    g->dense = 0;
    span_slice span[KYU_MAX_SLICES];
    build_ctx x = {w, span, kyu_slice_count(w->step.active_count)};
    kyu_parallel_for(w, x.slices, 1, span_task, &x);
    span_slice all = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 0, 0};
    for (int c = 0; c < x.slices; c++) {
        all.small += span[c].small;
        all.large += span[c].large;
        for (int d = 0; d < 3; d++)
            all.lo[d] = kyu_minf(all.lo[d], span[c].lo[d]), all.hi[d] = kyu_maxf(all.hi[d], span[c].hi[d]);
    }
    for (int c = 0; c < x.slices && all.large > 0; c++) {
        if (span[c].large == 0) continue;
        for (int k = kyu_slice_start(w->step.active_count, x.slices, c);
             k < kyu_slice_start(w->step.active_count, x.slices, c + 1); k++) {
            uint32_t i = w->step.active[k];
            const aabb *b = &w->step.box[i];
            int32_t lo[3], hi[3];
            if (fits_cell(g, b)) continue;
            cell_range(g, b, lo, hi);
            if (cell_count(lo, hi) > MAX_CELLS_PER_BODY) {
                if (RESERVE(g->huge, g->huge_cap, g->huge_count + 1)) return -1;
                g->huge[g->huge_count++] = i;
            } else {
                if (RESERVE(g->big, g->big_cap, g->big_count + 1)) return -1;
                g->big[g->big_count++] = i;
            }
        }
    }
    int small = all.small;
    if (small == 0) return 0;
    if (RESERVE(g->entries, g->entry_cap, small)) return -1;
    g->entry_count = small;
    int32_t span_lo[3], span_hi[3]; // the cell is monotonic: the cells of the extreme corners
    for (int d = 0; d < 3; d++)
        span_lo[d] = kyu_cell_of(all.lo[d], g->inv_cell), span_hi[d] = kyu_cell_of(all.hi[d], g->inv_cell);
    int64_t n = cell_count(span_lo, span_hi);
    if (n <= 4 * (int64_t)small + 4096) return fill_dense(w, span_lo, span_hi, n);
    int32_t bulk_lo[3], bulk_hi[3];
    int far = far_bodies(w, all.lo, all.hi, bulk_lo, bulk_hi);
    if (far > 0 && cell_count(bulk_lo, bulk_hi) <= 4 * (int64_t)(small - far) + 4096) {
        if (list_far_bodies(w, bulk_lo, bulk_hi)) return -1;
        g->entry_count = small - far;
        return fill_dense(w, bulk_lo, bulk_hi, cell_count(bulk_lo, bulk_hi));
    }
    int e = 0;
    for (int k = 0; k < w->step.active_count; k++) {
        uint32_t i = w->step.active[k];
        const aabb *b = &w->step.box[i];
        if (!fits_cell(g, b)) continue;
        int32_t lo[3], hi[3];
        cell_range(g, b, lo, hi);
        g->entries[e].key = kyu_cell_hash(lo);
        g->entries[e].body = i;
        g->entries[e++].box = *b;
    }
    if (RESERVE(g->entries_tmp, g->entry_tmp_cap, small)) return -1;
    sort_entries(g);
    return 0;
}

static int same_cell(const int32_t a[3], const int32_t b[3]) {
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

// Whether entry e is in cell c (a hashed run may also hold another cell with the same key).
static int in_cell(const grid *g, const grid_entry *e, const int32_t c[3]) {
    int32_t ec[3];
    kyu_entry_cell(g, e, ec);
    return same_cell(ec, c);
}

static inline int pair_if_overlap(kyu_world *w, uint32_t i, uint32_t j) {
    if (!kyu_boxes_overlap_all(&w->step.box[i], &w->step.box[j])) return 0;
    return push_pair(w, i < j ? i : j, i < j ? j : i);
}

static int index_runs(grid *g) {
    int runs = 0;
    for (int i = 0; i < g->entry_count; i++)
        if (i == 0 || g->entries[i].key != g->entries[i - 1].key) runs++;
    if (table_reserve(&g->table_key, &g->table_start, &g->table_size, runs)) return -1;
    for (int i = 0; i < g->entry_count; i++) {
        if (i > 0 && g->entries[i].key == g->entries[i - 1].key) continue;
        uint32_t s = kyu_table_find(g->table_key, g->table_start, g->table_size, g->entries[i].key);
        g->table_key[s] = g->entries[i].key;
        g->table_start[s] = (uint32_t)i;
    }
    return 0;
}

// The entries [*b, *e) of the small-box table that may lie in cell c (in the hashed table a run
// may also hold another cell with the same key: callers compare coordinates). 0 when empty.
static int cell_entries(const grid *g, const int32_t c[3], int *b, int *e) {
    if (g->dense) {
        for (int k = 0; k < 3; k++)
            if (c[k] < g->origin[k] || c[k] >= g->origin[k] + g->dims[k]) return 0;
        size_t idx = ((size_t)(c[2] - g->origin[2]) * (size_t)g->dims[1] + (size_t)(c[1] - g->origin[1])) *
                         (size_t)g->dims[0] +
                     (size_t)(c[0] - g->origin[0]);
        *b = (int)g->dense_start[idx];
        *e = (int)g->dense_start[idx + 1];
        return *e > *b;
    }
    uint32_t h = kyu_cell_hash(c);
    uint32_t s = kyu_table_find(g->table_key, g->table_start, g->table_size, h);
    if (g->table_start[s] == UINT32_MAX) return 0;
    int j = (int)g->table_start[s];
    *b = j;
    while (j < g->entry_count && g->entries[j].key == h) j++;
    *e = j;
    return 1;
}

// The 13 neighbour cells "ahead" of a cell: each pair of adjacent cells is visited once.
static const int8_t AHEAD[13][3] = {{1, 0, 0},  {-1, 1, 0}, {0, 1, 0},  {1, 1, 0}, {-1, -1, 1},
                                    {0, -1, 1}, {1, -1, 1}, {-1, 0, 1}, {0, 0, 1}, {1, 0, 1},
                                    {-1, 1, 1}, {0, 1, 1},  {1, 1, 1}};

// Pairs of the bodies in cell c (entries [start, end) of its run with these coordinates).
static int pairs_of_cell(kyu_world *w, int start, int end, const int32_t c[3]) {
    const grid *g = &w->grid;
    // A run holds one cell unless two cells' hashes collide: check its entries' cells once here,
    // not again for every partner below (an entry's cell is recomputed from its box).
    int pure = 1;
    for (int i = start; i < end && pure; i++) pure = in_cell(g, &g->entries[i], c);
    for (int i = start; i < end; i++) {
        if (!(pure || in_cell(g, &g->entries[i], c))) continue;
        for (int j = i + 1; j < end; j++)
            if ((pure || in_cell(g, &g->entries[j], c)) &&
                pair_if_overlap(w, g->entries[i].body, g->entries[j].body))
                return -1;
    }
    for (int k = 0; k < 13; k++) {
        int32_t n[3] = {c[0] + AHEAD[k][0], c[1] + AHEAD[k][1], c[2] + AHEAD[k][2]};
        int nb, ne;
        if (!cell_entries(g, n, &nb, &ne)) continue;
        for (int j = nb; j < ne; j++) {
            if (!in_cell(g, &g->entries[j], n)) continue;
            for (int i = start; i < end; i++)
                if ((pure || in_cell(g, &g->entries[i], c)) &&
                    pair_if_overlap(w, g->entries[i].body, g->entries[j].body))
                    return -1;
        }
    }
    return 0;
}

// Whether every chunk of [first, last) found its pairs (0), or the first one's failure.
static int chunks_failed(grid *g, int first, int last) {
    for (int c = first; c < last; c++)
        if (g->chunks[c].failed) {
            g->overflow |= g->chunks[c].failed == KYU_FAIL_PAIRS;
            return -1;
        }
    return 0;
}

// A chunk's share of the pair budget: in proportion to its part of the work, with room to spare.
static int chunk_limit(const grid *g, int64_t part, int64_t whole) {
    int64_t share = whole > 0 ? (int64_t)g->pair_budget * part / whole : g->pair_budget;
    return (int)(share + 1024 < g->pair_budget ? share + 1024 : g->pair_budget);
}

// Room for `slices` pair chunks.
static int reserve_chunks(grid *g, int slices) {
    int cap = g->chunk_cap;
    if (RESERVE(g->chunks, cap, slices)) return -1;
    for (int c = g->chunk_cap; c < cap; c++) memset(&g->chunks[c], 0, sizeof g->chunks[c]);
    g->chunk_cap = cap;
    return 0;
}

static int chunk_push(const kyu_world *w, pair_chunk *c, uint32_t x, uint32_t y) {
    uint32_t a = x < y ? x : y, b = x < y ? y : x;
    if (!kyu_pair_allowed(w, a, b)) return 0;
    if (c->count >= c->limit) return c->failed = KYU_FAIL_PAIRS; // before the memory is spent
    if (reserve_pairs(&c->a, &c->b, &c->cap, c->count + 1)) return c->failed = KYU_FAIL_MEMORY;
    c->a[c->count] = a;
    c->b[c->count++] = b;
    return 0;
}

// Whether any of the bits [from, to] is set.
static int any_bit(const uint64_t *bits, size_t from, size_t to) {
    for (size_t i = from; i <= to; i++)
        if (bits[i >> 6] & 1ull << (i & 63)) return 1;
    return 0;
}

// The pairs of one cell's entries [i, from[0]) when it has many tests: in the same order as
// dense_slice_pairs, pushed as found. Writing every test pays where cells hold a body or two; a
// crowded cell has many tests and few hits (BULLETS: 125 long boxes a cell, 55,000 tests a cell,
// took 0.42 ms a step written out against 0.23 pushed on a hit), or too many to reserve room for.
enum { CROWDED_TESTS = 1024 };
static int crowded_cell_pairs(const kyu_world *w, pair_chunk *out, uint32_t i, const uint32_t from[5],
                              const uint32_t to[5]) {
    const grid_entry *e = w->grid.entries;
    uint32_t end = from[0];
    for (uint32_t a = i; a < end; a++)
        for (uint32_t b = a + 1; b < end; b++)
            if (kyu_boxes_overlap(&e[a].box, &e[b].box) && chunk_push(w, out, e[a].body, e[b].body))
                return -1;
    for (int r = 0; r < 5; r++)
        for (uint32_t b = from[r]; b < to[r]; b++)
            for (uint32_t a = i; a < end; a++)
                if (kyu_boxes_overlap(&e[a].box, &e[b].box) && chunk_push(w, out, e[a].body, e[b].body))
                    return -1;
    return 0;
}

// One box against many (kyu_boxes_overlap_all, the same comparisons): with SSE (every x86-64) the
// held box is two vectors, set once, and each test is two loads and two comparisons of four lanes:
// b's lo[0..2], hi[0] <= a's hi[0..2], +inf, and -inf, a's lo[0..2] <= b's lo[2], hi[0..2] (a box's
// six floats lie in a row). A NaN compares false either way.
#if defined(__SSE__)
typedef struct box_lanes {
    __m128 high, low;
} box_lanes;
static inline box_lanes lanes_of(const aabb *a) {
    return (box_lanes){_mm_setr_ps(a->hi[0], a->hi[1], a->hi[2], INFINITY),
                       _mm_setr_ps(-INFINITY, a->lo[0], a->lo[1], a->lo[2])};
}
static inline int lanes_overlap(const box_lanes *a, const aabb *b) {
    const float *f = &b->lo[0];
    __m128 b_low = _mm_loadu_ps(f), b_high = _mm_loadu_ps(f + 2);
    return _mm_movemask_ps(_mm_and_ps(_mm_cmple_ps(b_low, a->high), _mm_cmple_ps(a->low, b_high))) == 0xF;
}
#else
typedef aabb box_lanes;
static inline box_lanes lanes_of(const aabb *a) { return *a; }
static inline int lanes_overlap(const box_lanes *a, const aabb *b) { return kyu_boxes_overlap_all(a, b); }
#endif

// Pairs of the entries [from, to) of one slice, and of each with the cells ahead of it: its own
// cell, the next cell of its row, and the three cells (x - 1 .. x + 1) of each of the four rows
// ahead (the 13 neighbours of AHEAD, read a row at a time, in the same order). In a sparse world
// (a gas has about one body in three cells) the cost is branches on random data, so each cell's
// ranges come straight from the offsets, and every tested pair is written and kept by adding the
// test's result (room for all of them is reserved first); the filter runs on the few kept.
static int run_level_pairs(const kyu_world *w, pair_chunk *out, uint32_t i, uint32_t end);

static int dense_slice_pairs(const kyu_world *w, pair_chunk *out) {
    static const int8_t ROWS[4][2] = {{1, 0}, {-1, 1}, {0, 1}, {1, 1}}; // (dy, dz)
    const grid *g = &w->grid;
    const grid_entry *e = g->entries;
    const uint32_t *start = g->dense_start;
    const uint32_t dx = (uint32_t)g->dims[0];
    uint32_t row = UINT32_MAX;             // the first cell of the current row
    uint32_t ahead[4] = {0}, has[4] = {0}; // the first cell of each row ahead, and whether it exists
    for (int i = out->first; i < out->last;) {
        uint32_t idx = e[i].key, end = start[idx + 1];
        if (g->level_asked && run_level_pairs(w, out, (uint32_t)i, end)) return -1;
        if (row == UINT32_MAX || idx - row >= dx) {
            uint32_t x = idx % dx, yz = idx / dx;
            int32_t y = (int32_t)(yz % (uint32_t)g->dims[1]), z = (int32_t)(yz / (uint32_t)g->dims[1]);
            row = idx - x;
            for (int r = 0; r < 4; r++) {
                int32_t ny = y + ROWS[r][0], nz = z + ROWS[r][1];
                has[r] = ny >= 0 && nz >= 0 && ny < g->dims[1] && nz < g->dims[2];
                ahead[r] = has[r] ? ((uint32_t)nz * (uint32_t)g->dims[1] + (uint32_t)ny) * dx : 0;
            }
        }
        uint32_t x = idx - row, x0 = x > 0 ? x - 1 : 0, x1 = x + 1 < dx ? x + 1 : x;
        uint32_t from[5], to[5]; // the entries of the next cell, then of each row ahead's three cells
        from[0] = end, to[0] = x + 1 < dx ? start[idx + 2] : end;
        for (int r = 0; r < 4; r++) {
            from[r + 1] = has[r] ? start[ahead[r] + x0] : 0;
            to[r + 1] = has[r] ? start[ahead[r] + x1 + 1] : 0;
        }
        int64_t n = end - (uint32_t)i, tests = n * (n - 1) / 2;
        for (int r = 0; r < 5; r++) tests += n * (to[r] - from[r]);
        if (tests > CROWDED_TESTS) { // a crowded cell: push on a hit
            if (crowded_cell_pairs(w, out, (uint32_t)i, from, to)) return -1;
            i = (int)end;
            continue;
        }
        if (out->count > out->limit) return out->failed = KYU_FAIL_PAIRS; // before the memory is spent
        if (reserve_pairs(&out->a, &out->b, &out->cap, out->count + (int)tests))
            return out->failed = KYU_FAIL_MEMORY;
        uint32_t *pa = out->a, *pb = out->b;
        int k = out->count;
        for (uint32_t a = (uint32_t)i; a < end; a++)
            for (uint32_t b = a + 1; b < end; b++) {
                pa[k] = e[a].body, pb[k] = e[b].body;
                k += kyu_boxes_overlap_all(&e[a].box, &e[b].box);
            }
        // The cell's boxes are held as vectors, set once for all their tests (a cell of a pile or a
        // gas holds one to a few).
        enum { HELD = 8 };
        if (n == 1) { // the commonest: one box against every box ahead
            const box_lanes box = lanes_of(&e[i].box);
            const uint32_t body = e[i].body;
            for (int r = 0; r < 5; r++)
                for (uint32_t b = from[r]; b < to[r]; b++) {
                    pa[k] = body, pb[k] = e[b].body;
                    k += lanes_overlap(&box, &e[b].box);
                }
        } else if (n <= HELD) {
            box_lanes held[HELD];
            for (uint32_t a = (uint32_t)i; a < end; a++) held[a - (uint32_t)i] = lanes_of(&e[a].box);
            for (int r = 0; r < 5; r++)
                for (uint32_t b = from[r]; b < to[r]; b++)
                    for (uint32_t a = (uint32_t)i; a < end; a++) {
                        pa[k] = e[a].body, pb[k] = e[b].body;
                        k += lanes_overlap(&held[a - (uint32_t)i], &e[b].box);
                    }
        } else {
            for (int r = 0; r < 5; r++)
                for (uint32_t b = from[r]; b < to[r]; b++)
                    for (uint32_t a = (uint32_t)i; a < end; a++) {
                        pa[k] = e[a].body, pb[k] = e[b].body;
                        k += kyu_boxes_overlap_all(&e[a].box, &e[b].box);
                    }
        }
        for (int p = out->count; p < k; p++) { // lower slot first; the filter drops the rest
            uint32_t lo = pa[p] < pb[p] ? pa[p] : pb[p], hi = pa[p] < pb[p] ? pb[p] : pa[p];
            if (!kyu_pair_allowed(w, lo, hi)) continue;
            pa[out->count] = lo, pb[out->count++] = hi;
        }
        i = (int)end;
    }
    return 0;
}

static void dense_pairs_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    for (int c = begin; c < end; c++) {
        w->grid.chunks[c].count = 0;
        dense_slice_pairs(w, &w->grid.chunks[c]);
    }
}

// The dense grid: neighbours by index arithmetic, boxes read from the entries in memory order.
// The entries are cut into slices of whole cells, a fixed number for a given entry count (never
// by worker count); slices find their pairs in parallel and are joined in order, so the pair list
// is the same for any number of workers.
static int small_pairs_dense(kyu_world *w) {
    grid *g = &w->grid;
    int n = g->entry_count, slices = kyu_slice_count(n);
    if (reserve_chunks(g, slices)) return -1;
    for (int c = 0; c <= slices; c++) {
        int at = (int)((int64_t)n * c / slices);
        while (at > 0 && at < n && g->entries[at].key == g->entries[at - 1].key) at++; // whole cells
        if (c < slices) g->chunks[c].first = at, g->chunks[c].failed = 0;
        if (c > 0) g->chunks[c - 1].last = at;
    }
    for (int c = 0; c < slices; c++)
        g->chunks[c].limit = chunk_limit(g, g->chunks[c].last - g->chunks[c].first, n);
    kyu_parallel_for(w, slices, 1, dense_pairs_task, w);
    g->grid_chunks = slices;
    return chunks_failed(g, 0, slices);
}

static int small_pairs(kyu_world *w) {
    const grid *g = &w->grid;
    if (g->dense) return small_pairs_dense(w);
    for (int i = 0; i < g->entry_count;) {
        int end = i + 1;
        while (end < g->entry_count && g->entries[end].key == g->entries[i].key) end++;
        if (g->level_asked) { // the run's pairs with the levels, through a chunk as the dense grid's
            grid *gw = &w->grid;
            pair_chunk sc = {gw->scratch_a, gw->scratch_b, 0, gw->scratch_cap, 0, 0, gw->pair_budget, 0};
            int failed = run_level_pairs(w, &sc, (uint32_t)i, (uint32_t)end);
            gw->scratch_a = sc.a;
            gw->scratch_b = sc.b;
            gw->scratch_cap = sc.cap;
            if (failed) return gw->overflow |= sc.failed == KYU_FAIL_PAIRS, -1;
            for (int p = 0; p < sc.count; p++)
                if (push_pair(w, sc.a[p], sc.b[p])) return -1;
        }
        // A run holds one cell, except when two cells share a hash: each distinct cell once.
        for (int k = i; k < end; k++) {
            int32_t c[3];
            kyu_entry_cell(g, &g->entries[k], c);
            int first = 1;
            for (int m = i; m < k && first; m++) first = !in_cell(g, &g->entries[m], c);
            if (first && pairs_of_cell(w, i, end, c)) return -1;
        }
        i = end;
    }
    return 0;
}

// The cells [lo, hi] clipped to a dense grid's box (origin, dims), as offsets from its origin: 0
// when none is left.
static int clip_to_dense(const int32_t origin[3], const int32_t dims[3], int32_t lo[3], int32_t hi[3]) {
    for (int k = 0; k < 3; k++) {
        lo[k] = lo[k] > origin[k] ? lo[k] - origin[k] : 0;
        hi[k] = hi[k] - origin[k] < dims[k] - 1 ? hi[k] - origin[k] : dims[k] - 1;
        if (lo[k] > hi[k]) return 0;
    }
    return 1;
}

// fn(ctx, b, e) for runs [b, e) of the fine grid's entries holding every small box whose low corner
// lies in the cells over [lo - cell, hi] of a box: every small box that can overlap it. A dense grid
// gives a row of cells (x fastest) as one run, with no per-cell lookup or coordinate check; a hashed
// one an entry at a time (a run of its table may also hold another cell with the same key); a box
// wider than the world, every entry at once.
typedef int (*entries_fn)(void *ctx, uint32_t b, uint32_t e);
static int fine_entries_near(const grid *g, const aabb *box, entries_fn fn, void *ctx) {
    aabb wide = *box;
    for (int k = 0; k < 3; k++) wide.lo[k] -= g->cell;
    int32_t lo[3], hi[3], c[3];
    cell_range(g, &wide, lo, hi);
    if (cell_count(lo, hi) > (int64_t)g->entry_count) return fn(ctx, 0, (uint32_t)g->entry_count);
    if (g->dense) {
        if (!clip_to_dense(g->origin, g->dims, lo, hi)) return 0;
        for (int32_t z = lo[2]; z <= hi[2]; z++)
            for (int32_t y = lo[1]; y <= hi[1]; y++) {
                size_t row = ((size_t)z * (size_t)g->dims[1] + (size_t)y) * (size_t)g->dims[0];
                if (any_bit(g->occ_bits, row + (size_t)lo[0], row + (size_t)hi[0]) &&
                    fn(ctx, g->dense_start[row + (size_t)lo[0]], g->dense_start[row + (size_t)hi[0] + 1]))
                    return -1;
            }
        return 0;
    }
    for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++)
        for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
            for (c[0] = lo[0]; c[0] <= hi[0]; c[0]++) {
                int b, e;
                if (!cell_entries(g, c, &b, &e)) continue;
                for (int j = b; j < e; j++)
                    if (in_cell(g, &g->entries[j], c) && fn(ctx, (uint32_t)j, (uint32_t)j + 1)) return -1;
            }
    return 0;
}

// A mid-step query: visit(w, a, body) for every small box that overlaps box.
typedef struct small_query {
    kyu_world *w;
    uint32_t a;
    const aabb *box;
    int (*visit)(kyu_world *, uint32_t, uint32_t);
} small_query;

static int small_query_run(void *ctx, uint32_t b, uint32_t e) {
    const small_query *q = ctx;
    const grid_entry *entries = q->w->grid.entries;
    for (uint32_t j = b; j < e; j++)
        if (kyu_boxes_overlap_all(q->box, &entries[j].box) && q->visit(q->w, q->a, entries[j].body))
            return -1;
    return 0;
}

static int query_small(kyu_world *w, uint32_t a, const aabb *box,
                       int (*visit)(kyu_world *, uint32_t, uint32_t)) {
    small_query q = {w, a, box, visit};
    return fine_entries_near(&w->grid, box, small_query_run, &q);
}

static int late_add_entry(grid *g, const int32_t c[3], uint32_t body);
static int late_table_rebuild(grid *g, int needed);

static int in_range(const int32_t c[3], const int32_t range[6]) {
    return c[0] >= range[0] && c[0] <= range[3] && c[1] >= range[1] && c[1] <= range[4] && c[2] >= range[2] &&
           c[2] <= range[5];
}

// Into the multi-cell table: a box that fits in a cell takes only the cell of its low corner (like
// the small table, so queries look one cell further down); a larger box takes every cell it covers.
// A body entered again adds only the cells it is not in yet: its old entries stay (a query checks
// the body's current box), so a ball bouncing several times a step, or a big ball re-entered in
// thousands of cells, does not add a copy per bounce. A body's record says which cells it is known
// to be in: its one late entry (multi_rec = -2 - entry) or a range of cells (multi_rec = range).
static int multi_insert(kyu_world *w, uint32_t a) {
    grid *g = &w->grid;
    int32_t lo[3], hi[3], c[3], old[6];
    cell_range(g, &w->step.box[a], lo, hi);
    int32_t r = g->multi_rec[a];
    if (r >= 0) {
        memcpy(old, g->multi_range[r], sizeof old);
    } else if (r < -1) {
        memcpy(old, g->late[-2 - r].c, 3 * sizeof *old);
        memcpy(old + 3, g->late[-2 - r].c, 3 * sizeof *old);
    }
    int known = r != -1;
    if (fits_cell(g, &w->step.box[a])) {
        if (known && in_range(lo, old)) return 0; // already in that cell
        g->multi_rec[a] = -2 - g->late_count;
        return late_add_entry(g, lo, a);
    }
    for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++)
        for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
            for (c[0] = lo[0]; c[0] <= hi[0]; c[0]++)
                if (!(known && in_range(c, old)) && late_add_entry(g, c, a)) return -1;
    if (r < 0) {
        if (RESERVE(g->multi_range, g->multi_range_cap, g->multi_range_count + 1)) return -1;
        r = g->multi_rec[a] = g->multi_range_count++;
        g->multi_range[r][6] = (int32_t)a;
    }
    memcpy(g->multi_range[r], lo, sizeof lo);
    memcpy(g->multi_range[r] + 3, hi, sizeof hi);
    return 0;
}

// ---- the levels: boxes too large for the fine cell -----------------------------------------------
// Level l has cells of 2^l fine cells; a big box goes to the first level whose cell it fits (as a
// small box fits the fine cell) and is entered once, at the cell of its low corner. A box meets
// the boxes of a level in the cells over [lo - cell, hi] of that level, so each pair is found once:
// within a level by the box entered first, between two levels by the coarser box (it asks fewer,
// smaller cells: in a 1:10 bed 2.5 times fewer tests than the finer boxes asking the coarse cells),
// and between the fine grid and a level by whichever side reads fewer cells (choose_level_asking):
// the big box asking the fine grid (big_slice_pairs) or the fine cell asking the level. A compact
// level is a dense array of cells, read a row at a time as the fine grid is; a sparse one is
// hashed. Entering a big box in every fine cell it covered instead cost, in a bed of radii spanning
// 1:10, five times the broadphase of an equal bed a body.

static int level_of(const grid *g, const aabb *b) {
    float e = box_extent(b);
    int l = 1;
    while (l < KYU_GRID_LEVELS - 1 && !(e <= 0.99f * g->level[l].cell)) l++;
    return l;
}

static uint32_t level_hash(int32_t l, const int32_t c[3]) {
    return kyu_cell_hash(c) + (uint32_t)l * 0x9E3779B1u;
}

// Sorts the level entries by level, then by key (both stable: entries of one cell stay in big-list
// order): a radix sort by key, then a counting sort by level.
static void sort_levels(grid *g) {
    int n = g->level_count;
    level_entry *src = g->levels, *dst = g->levels_tmp;
    for (int shift = 0; shift < 32; shift += 8) {
        int count[257] = {0};
        for (int i = 0; i < n; i++) count[((src[i].key >> shift) & 255u) + 1]++;
        for (int k = 0; k < 256; k++) count[k + 1] += count[k];
        for (int i = 0; i < n; i++) dst[count[(src[i].key >> shift) & 255u]++] = src[i];
        level_entry *t = src;
        src = dst;
        dst = t;
    }
    int at[KYU_GRID_LEVELS];
    for (int l = 0; l < KYU_GRID_LEVELS; l++) at[l] = g->level[l].first;
    for (int i = 0; i < n; i++) dst[at[src[i].level]++] = src[i];
    g->levels = dst, g->levels_tmp = src; // the sorted entries are where the last pass wrote them
    int cap = g->levels_cap;
    g->levels_cap = g->levels_tmp_cap, g->levels_tmp_cap = cap;
}

static int64_t level_index(const level_grid *lv, const int32_t c[3]) {
    return ((int64_t)(c[2] - lv->origin[2]) * lv->dims[1] + (c[1] - lv->origin[1])) * lv->dims[0] +
           (c[0] - lv->origin[0]);
}

static int build_levels(kyu_world *w) {
    grid *g = &w->grid;
    if (g->level_used) memset(g->level_filter, 0, sizeof g->level_filter);
    g->level_count = 0, g->level_used = 0;
    if (g->big_count == 0) return 0;
    if (RESERVE(g->levels, g->levels_cap, g->big_count) ||
        RESERVE(g->levels_tmp, g->levels_tmp_cap, g->big_count))
        return -1;
    int32_t lo[KYU_GRID_LEVELS][3], hi[KYU_GRID_LEVELS][3];
    for (int l = 0; l < KYU_GRID_LEVELS; l++) {
        level_grid *lv = &g->level[l];
        lv->count = 0, lv->cell = ldexpf(g->cell, l), lv->inv = ldexpf(g->inv_cell, -l);
        for (int k = 0; k < 3; k++) lo[l][k] = INT32_MAX, hi[l][k] = INT32_MIN;
    }
    for (int k = 0; k < g->big_count; k++) {
        level_entry *e = &g->levels[k];
        const aabb *b = &w->step.box[g->big[k]];
        e->body = g->big[k];
        e->level = level_of(g, b);
        e->box = *b;
        level_grid *lv = &g->level[e->level];
        for (int d = 0; d < 3; d++) {
            e->c[d] = kyu_cell_of(b->lo[d], lv->inv);
            lo[e->level][d] = e->c[d] < lo[e->level][d] ? e->c[d] : lo[e->level][d];
            hi[e->level][d] = e->c[d] > hi[e->level][d] ? e->c[d] : hi[e->level][d];
        }
        lv->count++;
        g->level_used |= 1u << e->level;
    }
    g->level_count = g->big_count;
    int64_t cells = 0;
    for (int l = 0, first = 0; l < KYU_GRID_LEVELS; l++) {
        level_grid *lv = &g->level[l];
        lv->first = first, first += lv->count, lv->dense = 0;
        if (!lv->count) continue;
        int64_t n = 1;
        for (int k = 0; k < 3; k++)
            lv->origin[k] = lo[l][k], lv->dims[k] = hi[l][k] - lo[l][k] + 1, n *= lv->dims[k];
        if (n <= 4 * (int64_t)lv->count + 4096) lv->dense = 1, lv->base = cells, cells += n + 1;
    }
    for (int k = 0; k < g->level_count; k++) {
        level_entry *e = &g->levels[k];
        const level_grid *lv = &g->level[e->level];
        e->key = lv->dense ? (uint32_t)level_index(lv, e->c) : level_hash(e->level, e->c);
    }
    sort_levels(g);
    if (cells > INT32_MAX || RESERVE(g->level_cells, g->level_cells_cap, (int)cells)) return -1;
    int runs = 0;
    for (int l = 0; l < KYU_GRID_LEVELS; l++) { // a dense level's offsets: its cells' first entries
        const level_grid *lv = &g->level[l];
        if (!lv->count) continue;
        if (!lv->dense) {
            for (int i = lv->first; i < lv->first + lv->count; i++)
                runs += i == lv->first || g->levels[i].key != g->levels[i - 1].key;
            continue;
        }
        uint32_t *start = g->level_cells + lv->base;
        int64_t n = (int64_t)lv->dims[0] * lv->dims[1] * lv->dims[2];
        memset(start, 0, (size_t)(n + 1) * sizeof *start);
        for (int i = lv->first; i < lv->first + lv->count; i++) start[g->levels[i].key + 1]++;
        start[0] = (uint32_t)lv->first;
        for (int64_t i = 0; i < n; i++) start[i + 1] += start[i];
    }
    if (!runs) return 0;
    if (table_reserve(&g->level_key, &g->level_start, &g->level_table_size, runs)) return -1;
    for (int i = 0; i < g->level_count; i++) {
        const level_entry *e = &g->levels[i];
        if (g->level[e->level].dense || (i > 0 && e->level == e[-1].level && e->key == e[-1].key)) continue;
        g->level_filter[e->key >> 6 & (KYU_LEVEL_FILTER_WORDS - 1)] |= 1ull << (e->key & 63);
        uint32_t t = kyu_table_find(g->level_key, g->level_start, g->level_table_size, e->key);
        g->level_key[t] = e->key;
        g->level_start[t] = (uint32_t)i;
    }
    return 0;
}

// fn(ctx, j) for every entry j of level l whose box can overlap `box` (its cell within the cells
// over [box.lo - cell, box.hi] of the level), in entry order within each row of cells.
typedef int (*level_fn)(void *ctx, int j);
static int level_range(const grid *g, int32_t l, const aabb *box, level_fn fn, void *ctx) {
    const level_grid *lv = &g->level[l];
    int32_t lo[3], hi[3], c[3];
    for (int k = 0; k < 3; k++)
        lo[k] = kyu_cell_of(box->lo[k] - lv->cell, lv->inv), hi[k] = kyu_cell_of(box->hi[k], lv->inv);
    if (lv->dense) {
        if (!clip_to_dense(lv->origin, lv->dims, lo, hi)) return 0;
        const uint32_t *start = g->level_cells + lv->base;
        for (int32_t z = lo[2]; z <= hi[2]; z++)
            for (int32_t y = lo[1]; y <= hi[1]; y++) {
                size_t row = ((size_t)z * (size_t)lv->dims[1] + (size_t)y) * (size_t)lv->dims[0];
                for (uint32_t j = start[row + (size_t)lo[0]]; j < start[row + (size_t)hi[0] + 1]; j++)
                    if (fn(ctx, (int)j)) return -1;
            }
        return 0;
    }
    if (cell_count(lo, hi) > (int64_t)lv->count) { // more cells than entries: scan the level
        for (int j = lv->first; j < lv->first + lv->count; j++) {
            const int32_t *x = g->levels[j].c;
            if (x[0] >= lo[0] && x[0] <= hi[0] && x[1] >= lo[1] && x[1] <= hi[1] && x[2] >= lo[2] &&
                x[2] <= hi[2] && fn(ctx, j))
                return -1;
        }
        return 0;
    }
    for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++)
        for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
            for (c[0] = lo[0]; c[0] <= hi[0]; c[0]++) {
                uint32_t h = level_hash(l, c);
                if (!(g->level_filter[h >> 6 & (KYU_LEVEL_FILTER_WORDS - 1)] >> (h & 63) & 1)) continue;
                uint32_t t = kyu_table_find(g->level_key, g->level_start, g->level_table_size, h);
                if (g->level_start[t] == UINT32_MAX) continue;
                for (int j = (int)g->level_start[t]; j < lv->first + lv->count && g->levels[j].key == h; j++)
                    if (same_cell(g->levels[j].c, c) && fn(ctx, j)) return -1;
            }
    return 0;
}

// A fine cell's entries [i, end) against one level entry.
typedef struct run_ctx {
    const kyu_world *w;
    pair_chunk *out;
    uint32_t i, end;
} run_ctx;

static int run_fn(void *ctx, int j) {
    const run_ctx *x = ctx;
    const grid_entry *e = x->w->grid.entries;
    const level_entry *b = &x->w->grid.levels[j];
    const box_lanes held = lanes_of(&b->box);
    for (uint32_t a = x->i; a < x->end; a++)
        if (lanes_overlap(&held, &e[a].box) && chunk_push(x->w, x->out, e[a].body, b->body)) return -1;
    return 0;
}

// The pairs of the fine grid's entries [i, end) (a cell's) with the big bodies of the levels the
// fine cells ask (level_asked): each level asked once for the cells the entries' joint box can meet.
static int run_level_pairs(const kyu_world *w, pair_chunk *out, uint32_t i, uint32_t end) {
    const grid *g = &w->grid;
    const grid_entry *e = g->entries;
    aabb u = e[i].box;
    for (uint32_t a = i + 1; a < end; a++)
        for (int k = 0; k < 3; k++)
            u.lo[k] = kyu_minf(u.lo[k], e[a].box.lo[k]), u.hi[k] = kyu_maxf(u.hi[k], e[a].box.hi[k]);
    run_ctx x = {w, out, i, end};
    for (int32_t l = 1; l < KYU_GRID_LEVELS; l++)
        if ((g->level_asked >> l & 1) && level_range(g, l, &u, run_fn, &x)) return -1;
    return 0;
}

// Which levels the fine cells ask (level_asked) rather than their big boxes asking the fine grid.
// A big box reads the fine cells over [lo - cell, hi], about 3/4 of its level's span in fine cells
// plus two a side: a row of cells at a time in a dense grid, each cell by its hash otherwise. An
// occupied fine cell asking a level reads about 3 of its cells a side. The level goes the cheaper
// way: in a bed of radii spanning 1:10 the big boxes ask (their tests are also fewer: the finer
// cells they read hold less beyond their reach), while boulders among fine beads in a sparse,
// hashed grid are asked by the beads.
static void choose_level_asking(grid *g) {
    g->level_asked = 0;
    double fine = g->entry_count;
    for (int32_t l = 1; l < KYU_GRID_LEVELS; l++) {
        if (!(g->level_used >> l & 1)) continue;
        double side = 0.75 * ldexp(1.0, l) + 2.0, count = g->level[l].count;
        double big = count * side * side * (g->dense ? 1.0 : side),
               asked = fine * (g->level[l].dense ? 9.0 : 27.0);
        if (big > asked) g->level_asked |= 1u << l;
    }
}

// A body's partners among the levels: visit(w, a, body) for each entry after `after`.
typedef struct visit_ctx {
    kyu_world *w;
    uint32_t a;
    int after;
    int (*visit)(kyu_world *, uint32_t, uint32_t);
} visit_ctx;

static int visit_fn(void *ctx, int j) {
    const visit_ctx *x = ctx;
    return j > x->after && x->visit(x->w, x->a, x->w->grid.levels[j].body);
}

// Every big body of any level that can meet box (a mid-step query).
static int query_levels(kyu_world *w, uint32_t a, const aabb *box,
                        int (*visit)(kyu_world *, uint32_t, uint32_t)) {
    visit_ctx x = {w, a, -1, visit};
    for (int32_t l = 1; l < KYU_GRID_LEVELS; l++)
        if ((w->grid.level_used >> l & 1) && level_range(&w->grid, l, box, visit_fn, &x)) return -1;
    return 0;
}

// ---- the build's pairs of the big bodies: in parallel slices of the level entries ---------------
// Each big box finds its partners on its own level (the entries after it), on every finer level and
// in the fine grid; the slices are fixed by the entry count and joined in order, so the pairs are
// the same for any number of workers. The fine grid's pairs with the levels were found the other
// way before (each fine cell's boxes asking every level over [lo - level cell, hi]): in a bed of
// radii spanning 1:10 the fine boxes then read about three times the boxes a big box reads over
// [lo - fine cell, hi] of the fine grid, whose cells are smaller.

// One big box's tests, written as the fine grid's are: every tested pair is written, kept by adding
// the test's result, and the few kept are filtered once the box's tests are done.
typedef struct big_ctx {
    const kyu_world *w;
    pair_chunk *out;
    box_lanes held;
    uint32_t body;
    int after; // a hashed level's entries are tested after this one only
} big_ctx;

// Entries [b, e) of an array of entries of `size` bytes, each holding a body and its box at these
// offsets (grid_entry, level_entry), against the big box.
static int entries_run(big_ctx *x, const void *entries, size_t size, size_t body_at, size_t box_at,
                       uint32_t b, uint32_t e) {
    pair_chunk *out = x->out;
    if (reserve_pairs(&out->a, &out->b, &out->cap, out->count + (int)(e - b)))
        return out->failed = KYU_FAIL_MEMORY;
    const char *at = (const char *)entries + (size_t)b * size;
    uint32_t *pa = out->a, *pb = out->b;
    int k = out->count;
    for (uint32_t j = b; j < e; j++, at += size) {
        pa[k] = x->body, pb[k] = *(const uint32_t *)(const void *)(at + body_at);
        k += lanes_overlap(&x->held, (const aabb *)(const void *)(at + box_at));
    }
    out->count = k;
    return 0;
}

static int level_run(big_ctx *x, uint32_t b, uint32_t e) {
    return entries_run(x, x->w->grid.levels, sizeof(level_entry), offsetof(level_entry, body),
                       offsetof(level_entry, box), b, e);
}

static int fine_run(void *ctx, uint32_t b, uint32_t e) {
    big_ctx *x = ctx;
    return entries_run(x, x->w->grid.entries, sizeof(grid_entry), offsetof(grid_entry, body),
                       offsetof(grid_entry, box), b, e);
}

// A hashed level's entry j (level_range's callback).
static int hashed_fn(void *ctx, int j) {
    big_ctx *x = ctx;
    return j > x->after && level_run(x, (uint32_t)j, (uint32_t)j + 1);
}

// Entry i's pairs within its own dense level: the entries after it in its cell, the next cell of
// its row and the three cells of each of the four rows ahead (the 13 cells of AHEAD, as the fine
// grid reads them; every one after i in the sorted entries).
static int dense_level_pairs(big_ctx *x, int i) {
    static const int8_t ROWS[4][2] = {{1, 0}, {-1, 1}, {0, 1}, {1, 1}}; // (dy, dz)
    const grid *g = &x->w->grid;
    const level_entry *e = &g->levels[i];
    const level_grid *lv = &g->level[e->level];
    const uint32_t *start = g->level_cells + lv->base;
    int32_t cx = e->c[0] - lv->origin[0], y = e->c[1] - lv->origin[1], z = e->c[2] - lv->origin[2];
    size_t idx = e->key;
    if (level_run(x, (uint32_t)i + 1, cx + 1 < lv->dims[0] ? start[idx + 2] : start[idx + 1])) return -1;
    for (int r = 0; r < 4; r++) {
        int32_t ny = y + ROWS[r][0], nz = z + ROWS[r][1];
        if (ny < 0 || nz < 0 || ny >= lv->dims[1] || nz >= lv->dims[2]) continue;
        size_t row = ((size_t)nz * (size_t)lv->dims[1] + (size_t)ny) * (size_t)lv->dims[0];
        int32_t x0 = cx > 0 ? cx - 1 : 0, x1 = cx + 1 < lv->dims[0] ? cx + 1 : cx;
        if (level_run(x, start[row + (size_t)x0], start[row + (size_t)x1 + 1])) return -1;
    }
    return 0;
}

// The entries of a finer level m whose cells lie over [lo - cell, hi] of the box: on a dense level
// a row of cells at a time.
static int finer_level_pairs(big_ctx *x, int32_t m, const aabb *box) {
    const grid *g = &x->w->grid;
    const level_grid *lv = &g->level[m];
    if (!lv->dense) return level_range(g, m, box, hashed_fn, x);
    int32_t lo[3], hi[3];
    for (int k = 0; k < 3; k++)
        lo[k] = kyu_cell_of(box->lo[k] - lv->cell, lv->inv), hi[k] = kyu_cell_of(box->hi[k], lv->inv);
    if (!clip_to_dense(lv->origin, lv->dims, lo, hi)) return 0;
    const uint32_t *start = g->level_cells + lv->base;
    for (int32_t z = lo[2]; z <= hi[2]; z++)
        for (int32_t y = lo[1]; y <= hi[1]; y++) {
            size_t row = ((size_t)z * (size_t)lv->dims[1] + (size_t)y) * (size_t)lv->dims[0];
            if (level_run(x, start[row + (size_t)lo[0]], start[row + (size_t)hi[0] + 1])) return -1;
        }
    return 0;
}

// The pairs of the level entries [out->first, out->last): each with the entries after it on its own
// level (on a dense level, those of its cell and the 13 cells ahead), with every finer level, and
// with the fine grid.
static int big_slice_pairs(const kyu_world *w, pair_chunk *out) {
    const grid *g = &w->grid;
    for (int i = out->first; i < out->last; i++) {
        if (out->count > out->limit) return out->failed = KYU_FAIL_PAIRS; // before the memory is spent
        const level_entry *e = &g->levels[i];
        big_ctx x = {w, out, lanes_of(&e->box), e->body, i};
        int32_t l = e->level;
        int from = out->count;
        if (g->level[l].dense ? dense_level_pairs(&x, i) : level_range(g, l, &e->box, hashed_fn, &x))
            return -1;
        x.after = -1; // every entry of a finer level
        for (int32_t m = 1; m < l; m++)
            if ((g->level_used >> m & 1) && finer_level_pairs(&x, m, &e->box)) return -1;
        if (g->entry_count && !(g->level_asked >> l & 1) && fine_entries_near(g, &e->box, fine_run, &x))
            return -1;
        uint32_t *pa = out->a, *pb = out->b;
        for (int p = from; p < out->count; p++) { // lower slot first; the filter drops the rest
            uint32_t lo = pa[p] < pb[p] ? pa[p] : pb[p], hi = pa[p] < pb[p] ? pb[p] : pa[p];
            if (!kyu_pair_allowed(w, lo, hi)) continue;
            pa[from] = lo, pb[from++] = hi;
        }
        out->count = from;
    }
    return 0;
}

typedef struct big_task {
    const kyu_world *w;
    int first; // the first big chunk
} big_task;

static void big_pairs_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    const big_task *t = ctx;
    const kyu_world *w = t->w;
    for (int c = begin; c < end; c++) {
        pair_chunk *out = &w->grid.chunks[t->first + c];
        out->count = out->failed = 0;
        big_slice_pairs(w, out);
    }
}

// The big bodies' pairs, in chunks after the fine grid's. A big body does several times a fine
// one's work, so its slices are smaller (a fixed size all the same).
static int big_pairs(kyu_world *w) {
    grid *g = &w->grid;
    int n = g->level_count, first = g->grid_chunks;
    if (n == 0) return 0;
    int slices = kyu_slice_count(8 * n);
    if (reserve_chunks(g, first + slices)) return -1;
    for (int c = 0; c < slices; c++) {
        pair_chunk *ch = &g->chunks[first + c];
        ch->first = kyu_slice_start(n, slices, c), ch->last = kyu_slice_start(n, slices, c + 1);
        ch->limit = chunk_limit(g, ch->last - ch->first, n), ch->failed = 0;
    }
    big_task t = {w, first};
    kyu_parallel_for(w, slices, 1, big_pairs_task, &t);
    g->grid_chunks = first + slices;
    return chunks_failed(g, first, first + slices);
}

static int query_multi(kyu_world *w, uint32_t a, int (*visit)(kyu_world *, uint32_t, uint32_t));

static void next_stamp(kyu_world *w) {
    grid *g = &w->grid;
    if (++g->stamp_now == 0) {
        memset(g->stamp, 0, (size_t)w->bodies.capacity * sizeof *g->stamp);
        g->stamp_now = 1;
    }
}

static int huge_pairs(kyu_world *w) {
    grid *g = &w->grid;
    // Stamp the huge bodies so a huge-huge pair is reported once, by its lower slot.
    next_stamp(w);
    for (int h = 0; h < g->huge_count; h++) g->stamp[g->huge[h]] = g->stamp_now;
    for (int h = 0; h < g->huge_count; h++) {
        uint32_t a = g->huge[h];
        for (int k = 0; k < w->step.active_count; k++) {
            uint32_t b = w->step.active[k];
            if (b == a) continue;
            if (g->stamp[b] == g->stamp_now && b < a) continue;
            if (pair_if_overlap(w, a, b)) return -1;
        }
    }
    return 0;
}

// ---- periodic worlds: pairs across a seam ------------------------------------------------------
// The grid pairs boxes where they stand; a pair across a periodic face overlaps only when one box is
// shifted by a period. Such a pair has one box near the upper face and the other near the lower:
// within the largest box extent of the face, plus the room a body's start may have left the periodic
// box by (the push moves it at most a quarter radius). The build sweeps the boxes near each face
// against those near the opposite one; a late insert asks the grid with the copies of its new box
// (whose start may lie beyond a face by its travel: one more extent). The pairs go in slot order,
// each once, so they and their order do not depend on the cells or the workers.

static void seam_reach_grow(kyu_world *w, const aabb *b) { // seam_reach: the largest extent, doubled
    const periodic_state *ps = &w->periodic;
    for (int k = 0; k < 3; k++)
        if (ps->mask >> k & 1)
            w->grid.seam_reach[k] = kyu_maxf(w->grid.seam_reach[k], 2.0f * (b->hi[k] - b->lo[k]));
}

// A box in the sweep along axis a: its span there (a copy moved by a period when the box is near a
// face of a periodic a), and its body.
typedef struct seam_item {
    float lo, hi;
    uint32_t body;
} seam_item;

static int by_sweep(const void *x, const void *y) {
    const seam_item *a = x, *b = y;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    return (a->body > b->body) - (a->body < b->body);
}

static int by_pair(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static int seam_push(seam_item **list, int *cap, int *n, float lo, float hi, uint32_t body) {
    if (RESERVE(*list, *cap, *n + 1)) return -1;
    (*list)[(*n)++] = (seam_item){lo, hi, body};
    return 0;
}

// The pairs across the faces of periodic axis k: each box near the upper face against each box near
// the lower one, swept along another axis a (the lower side's boxes near a face of a periodic a go in
// again, moved by a period, so pairs across an edge or a corner meet too); every candidate is then
// tested with every shift (kyu_periodic_overlap_across). Found pairs go to g->seam_found.
static int seam_axis(kyu_world *w, int k, int *found) {
    grid *g = &w->grid;
    const periodic_state *ps = &w->periodic;
    int a = (k + 1) % 3, nh = 0, nl = 0;
    float reach_k = 0.5f * g->seam_reach[k] + w->bodies.max_radius,
          reach_a = 0.5f * g->seam_reach[a] + w->bodies.max_radius, widest = 0.0f;
    for (int q = 0; q < w->step.active_count; q++) {
        uint32_t i = w->step.active[q];
        const aabb *b = &w->step.box[i];
        if (b->hi[k] > ps->hi[k] - reach_k &&
            seam_push(&g->seam_hi, &g->seam_hi_cap, &nh, b->lo[a], b->hi[a], i))
            return -1;
        if (!(b->lo[k] < ps->lo[k] + reach_k)) continue;
        widest = kyu_maxf(widest, b->hi[a] - b->lo[a]);
        if (seam_push(&g->seam_lo, &g->seam_lo_cap, &nl, b->lo[a], b->hi[a], i)) return -1;
        if (!(ps->mask >> a & 1)) continue;
        float up = ps->len[a];
        if (b->lo[a] < ps->lo[a] + reach_a &&
            seam_push(&g->seam_lo, &g->seam_lo_cap, &nl, b->lo[a] + up, b->hi[a] + up, i))
            return -1;
        if (b->hi[a] > ps->hi[a] - reach_a &&
            seam_push(&g->seam_lo, &g->seam_lo_cap, &nl, b->lo[a] - up, b->hi[a] - up, i))
            return -1;
    }
    if (nh == 0 || nl == 0) return 0;
    qsort(g->seam_hi, (size_t)nh, sizeof *g->seam_hi, by_sweep);
    qsort(g->seam_lo, (size_t)nl, sizeof *g->seam_lo, by_sweep);
    int first = 0;
    for (int x = 0; x < nh; x++) {
        const seam_item *h = &g->seam_hi[x];
        while (first < nl && g->seam_lo[first].lo < h->lo - widest) first++; // ends before h begins
        for (int y = first; y < nl && g->seam_lo[y].lo <= h->hi; y++) {
            const seam_item *l = &g->seam_lo[y];
            if (l->hi < h->lo || l->body == h->body ||
                !kyu_periodic_overlap_across(ps, &w->step.box[h->body], &w->step.box[l->body]))
                continue;
            uint32_t lo = h->body < l->body ? h->body : l->body, hi = h->body ^ l->body ^ lo;
            if (RESERVE(g->seam_found, g->seam_found_cap, *found + 1)) return -1;
            g->seam_found[(*found)++] = (uint64_t)lo << 32 | hi;
        }
    }
    return 0;
}

static int seam_pairs(kyu_world *w) {
    grid *g = &w->grid;
    const periodic_state *ps = &w->periodic;
    for (int k = 0; k < 3; k++) g->seam_reach[k] = 0.0f;
    if (!ps->mask) return 0;
    for (int q = 0; q < w->step.active_count; q++) seam_reach_grow(w, &w->step.box[w->step.active[q]]);
    int found = 0;
    for (int k = 0; k < 3; k++)
        if ((ps->mask >> k & 1) && seam_axis(w, k, &found)) return -1;
    // In slot order, each pair once (one across an edge is found along both of its axes).
    if (found > 1) qsort(g->seam_found, (size_t)found, sizeof *g->seam_found, by_pair);
    for (int q = 0; q < found; q++)
        if ((q == 0 || g->seam_found[q] != g->seam_found[q - 1]) &&
            push_pair(w, (uint32_t)(g->seam_found[q] >> 32), (uint32_t)g->seam_found[q]))
            return -1;
    return 0;
}

// Body-collider pairs of one slice of the active bodies, in body then collider order.
static void collider_pairs_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    const build_ctx *x = ctx;
    const kyu_world *w = x->w;
    int n = w->step.active_count;
    for (int s = begin; s < end; s++) {
        pair_chunk *out = &w->grid.chunks[w->grid.grid_chunks + s];
        out->count = out->failed = 0;
        out->limit =
            chunk_limit(&w->grid, kyu_slice_start(n, x->slices, s + 1) - kyu_slice_start(n, x->slices, s), n);
        for (int k = kyu_slice_start(n, x->slices, s); k < kyu_slice_start(n, x->slices, s + 1); k++) {
            uint32_t i = w->step.active[k];
            kyu_collider_near near;
            kyu_colliders_near(&w->colliders, &w->step.box[i], &near);
            for (int c; (c = kyu_colliders_next(&w->colliders, &near)) >= 0;)
                if (chunk_push(w, out, i, KYU_COLLIDER_BIT | (uint32_t)c)) return;
        }
    }
}

// They stay in the chunks after the dense grid's (kyu_pair_source gives them in pair order).
static int collider_pairs(kyu_world *w) {
    grid *g = &w->grid;
    if (w->colliders.count == 0) return 0;
    build_ctx x = {w, NULL, kyu_slice_count(w->step.active_count)};
    if (reserve_chunks(g, g->grid_chunks + x.slices)) return -1;
    kyu_parallel_for(w, x.slices, 1, collider_pairs_task, &x);
    g->collider_chunks = x.slices;
    return chunks_failed(g, g->grid_chunks, g->grid_chunks + x.slices);
}

// The candidate pairs are kept where they were found, in this order (the pair order): the dense
// grid's chunks, the big bodies' chunks, the pairs found one at a time (pair_a, pair_b: a hashed
// grid's, huge bodies', across seams), in slices of at most 2048, then the body-collider chunks. Copying them
// into one list took room for every pair twice.
int kyu_pair_source_count(const kyu_world *w) {
    const grid *g = &w->grid;
    return g->grid_chunks + kyu_slice_count(w->pairs.count) + g->collider_chunks;
}

pair_source kyu_pair_source(const kyu_world *w, int s) {
    const grid *g = &w->grid;
    int pushed = kyu_slice_count(w->pairs.count);
    if (s < g->grid_chunks || s >= g->grid_chunks + pushed) {
        const pair_chunk *ch = &g->chunks[s < g->grid_chunks ? s : s - pushed];
        return (pair_source){ch->a, ch->b, ch->count};
    }
    int from = kyu_slice_start(w->pairs.count, pushed, s - g->grid_chunks);
    int to = kyu_slice_start(w->pairs.count, pushed, s - g->grid_chunks + 1);
    if (to == from) return (pair_source){NULL, NULL, 0}; // the list may never have been allocated
    return (pair_source){w->pairs.a + from, w->pairs.b + from, to - from};
}

// Adjacency (CSR): each body's partners, bodies and colliders, in pair order.
static int build_adjacency(kyu_world *w) {
    int n = w->bodies.high;
    int *start = w->pairs.adj_start;
    memset(start, 0, (size_t)(n + 1) * sizeof *start);
    int sources = kyu_pair_source_count(w), pairs = 0;
    for (int s = 0; s < sources; s++) {
        pair_source src = kyu_pair_source(w, s);
        pairs += src.count;
        for (int p = 0; p < src.count; p++) {
            start[src.a[p] + 1]++;
            if (!(src.b[p] & KYU_COLLIDER_BIT)) start[src.b[p] + 1]++;
        }
    }
    w->stats.candidate_pairs = pairs;
    for (int i = 0; i < n; i++) start[i + 1] += start[i];
    if (RESERVE(w->pairs.adj, w->pairs.adj_cap, start[n] + 1) ||
        RESERVE(w->pairs.adj_hit, w->pairs.adj_hit_cap, start[n] + 1))
        return -1;
    memset(w->pairs.adj_hit, 0, (size_t)start[n]);
    for (int s = 0; s < sources; s++) {
        pair_source src = kyu_pair_source(w, s);
        for (int p = 0; p < src.count; p++) {
            uint32_t a = src.a[p], b = src.b[p];
            w->pairs.adj[start[a]++] = b;
            if (!(b & KYU_COLLIDER_BIT)) w->pairs.adj[start[b]++] = a;
        }
    }
    for (int i = n; i > 0; i--) start[i] = start[i - 1];
    start[0] = 0;
    for (int i = 0; i < n; i++) w->pairs.late_head[i] = -1;
    w->pairs.late_count = 0;
    return 0;
}

int kyu_broadphase_build(kyu_world *w) {
    grid *g = &w->grid;
    int64_t budget = (int64_t)w->def.pair_capacity_per_body * w->step.active_count + 4096;
    g->pair_budget = (int)(budget < INT32_MAX / 4 ? budget : INT32_MAX / 4);
    g->overflow = 0;
    if (choose_cell_size(w)) return KYU_FAIL_MEMORY;
    w->pairs.count = g->grid_chunks = g->collider_chunks = 0;
    for (int r = 0; r < g->multi_range_count; r++) g->multi_rec[g->multi_range[r][6]] = -1; // last step's
    for (int e = 0; e < g->late_count; e++) g->multi_rec[g->late[e].body] = -1;
    SHRINK(g->late, g->late_cap, g->late_count); // held for the peak of a landing step otherwise
    g->late_count = g->late_hashed = g->multi_range_count = 0;
    if (emit_entries(w) || build_levels(w)) return -1;
    choose_level_asking(g);
    // The multi-cell table holds the late inserts of the step.
    int multi = 256 + w->bodies.count / 16;
    if ((!g->dense && index_runs(g)) ||
        table_reserve(&g->late_key, &g->late_head, &g->late_table_size, multi))
        return -1;
    if (small_pairs(w) || big_pairs(w) || huge_pairs(w) || seam_pairs(w) || collider_pairs(w) ||
        build_adjacency(w))
        return g->overflow ? KYU_FAIL_PAIRS : KYU_FAIL_MEMORY;
    return 0;
}

// ---- mid-step insertion and query ---------------------------------------------------------------

static int has_partner(const kyu_world *w, uint32_t a, uint32_t b) {
    for (kyu_partner_iter it = kyu_partners(&w->pairs, a); kyu_next_partner(&w->pairs, &it);)
        if (it.partner == b) return 1;
    return 0;
}

static int link(kyu_world *w, uint32_t a, uint32_t b) {
    if (RESERVE(w->pairs.late_partner, w->pairs.late_cap, w->pairs.late_count + 1)) return -1;
    if (RESERVE(w->pairs.late_next, w->pairs.late_next_cap, w->pairs.late_count + 1)) return -1;
    if (RESERVE(w->pairs.late_hit, w->pairs.late_hit_cap, w->pairs.late_count + 1)) return -1;
    w->pairs.late_hit[w->pairs.late_count] = 0;
    int k = w->pairs.late_count++;
    w->pairs.late_partner[k] = b;
    w->pairs.late_next[k] = w->pairs.late_head[a];
    w->pairs.late_head[a] = k;
    return 0;
}

// Marks the pair a-b as touched this step, beside the partner entry of its lower slot (the one the
// contact search walks). The pair is always a candidate: an impact happens only between partners.
void kyu_broadphase_mark_hit(kyu_world *w, uint32_t a, uint32_t b) {
    if (!(b & KYU_COLLIDER_BIT) && b < a) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    for (kyu_partner_iter it = kyu_partners(&w->pairs, a); kyu_next_partner(&w->pairs, &it);)
        if (it.partner == b) {
            *it.hit = 1;
            return;
        }
    KYU_ASSERT(0 && "an impact between bodies that are not partners");
}

// The pair a-b joins both lists (a collider keeps none). The pair lists are not extended: they
// were read for the first impacts and the adjacency, before any pair is added.
static int add_late_pair(kyu_world *w, uint32_t a, uint32_t b) {
    if (!kyu_pair_allowed(w, a, b) || has_partner(w, a, b)) return 0;
    if (link(w, a, b)) return -1;
    if (!(b & KYU_COLLIDER_BIT) && link(w, b, a)) return -1;
    return 0;
}

// A late insert of body a asks the grid anew: a fresh stamp, on a and on its partners (they are
// paired already: consider passes them at once, without walking a's list for each).
static void stamp_partners(kyu_world *w, uint32_t a) {
    grid *g = &w->grid;
    next_stamp(w);
    g->stamp[a] = g->stamp_now;
    for (kyu_partner_iter it = kyu_partners(&w->pairs, a); kyu_next_partner(&w->pairs, &it);)
        if (!(it.partner & KYU_COLLIDER_BIT)) g->stamp[it.partner] = g->stamp_now;
}

static int consider(kyu_world *w, uint32_t a, uint32_t j) {
    grid *g = &w->grid;
    if (j == a || g->stamp[j] == g->stamp_now) return 0;
    g->stamp[j] = g->stamp_now;
    if (!kyu_boxes_overlap_all(&w->step.box[a], &w->step.box[j])) return 0;
    return add_late_pair(w, a, j);
}

static int late_table_grow(grid *g) { return late_table_rebuild(g, g->late_table_size); }

// The late inserts' hash table with room for `needed` cells, every hashed late entry in it again.
static int late_table_rebuild(grid *g, int needed) {
    if (table_reserve(&g->late_key, &g->late_head, &g->late_table_size, needed)) return -1;
    for (int e = 0; e < g->late_count; e++) {
        if (g->dense && dense_index(g, g->late[e].c) >= 0) continue; // listed by the dense heads
        uint32_t h = kyu_cell_hash(g->late[e].c);
        uint32_t s = kyu_table_find(g->late_key, g->late_head, g->late_table_size, h);
        g->late_key[s] = h;
        g->late[e].next = g->late_head[s];
        g->late_head[s] = (uint32_t)e;
    }
    return 0;
}

static int late_add_entry(grid *g, const int32_t c[3], uint32_t body) {
    if (RESERVE(g->late, g->late_cap, g->late_count + 1)) return -1;
    int64_t idx = g->dense ? dense_index(g, c) : -1;
    if (idx >= 0) { // in the dense box: a list per cell, found by arithmetic as the small entries are
        late_entry *e = &g->late[g->late_count];
        memcpy(e->c, c, sizeof e->c);
        e->body = body;
        uint64_t bit = 1ull << (idx & 63);
        if (!(g->late_bits[idx >> 6] & bit)) { // the cell's first late entry this step
            g->late_bits[idx >> 6] |= bit;
            g->late_dense[idx] = UINT32_MAX;
        }
        e->next = g->late_dense[idx];
        g->late_dense[idx] = (uint32_t)g->late_count++;
        return 0;
    }
    if (2 * (g->late_hashed + 1) > g->late_table_size && late_table_grow(g)) return -1;
    g->late_hashed++;
    uint32_t h = kyu_cell_hash(c);
    uint32_t s = kyu_table_find(g->late_key, g->late_head, g->late_table_size, h);
    late_entry *e = &g->late[g->late_count];
    memcpy(e->c, c, sizeof e->c);
    e->body = body;
    e->next = g->late_head[s];
    g->late_key[s] = h;
    g->late_head[s] = (uint32_t)g->late_count++;
    return 0;
}

// Every body in the multi-cell table that can meet a's box: cells over [lo - cell, hi] (one-cell
// entries sit at their box's low corner).
static int query_multi(kyu_world *w, uint32_t a, int (*visit)(kyu_world *, uint32_t, uint32_t)) {
    grid *g = &w->grid;
    int32_t lo[3], hi[3], c[3];
    aabb wide = w->step.box[a];
    for (int k = 0; k < 3; k++) wide.lo[k] -= g->cell;
    cell_range(g, &wide, lo, hi);
    if (cell_count(lo, hi) > (int64_t)g->late_count) { // more cells than entries: scan the entries
        for (int e = 0; e < g->late_count; e++) {
            const int32_t *ec = g->late[e].c;
            if (ec[0] >= lo[0] && ec[0] <= hi[0] && ec[1] >= lo[1] && ec[1] <= hi[1] && ec[2] >= lo[2] &&
                ec[2] <= hi[2] && visit(w, a, g->late[e].body))
                return -1;
        }
        return 0;
    }
    for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++)
        for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
            for (c[0] = lo[0]; c[0] <= hi[0]; c[0]++) {
                int64_t idx = g->dense ? dense_index(g, c) : -1;
                if (idx >= 0) {
                    if (!(g->late_bits[idx >> 6] & 1ull << (idx & 63))) continue;
                    for (uint32_t e = g->late_dense[idx]; e != UINT32_MAX; e = g->late[e].next)
                        if (visit(w, a, g->late[e].body)) return -1;
                    continue;
                }
                if (g->late_hashed == 0) continue;
                uint32_t h = kyu_cell_hash(c);
                uint32_t s = kyu_table_find(g->late_key, g->late_head, g->late_table_size, h);
                for (uint32_t e = g->late_head[s]; e != UINT32_MAX; e = g->late[e].next)
                    if (same_cell(g->late[e].c, c) && visit(w, a, g->late[e].body)) return -1;
            }
    return 0;
}

// A late insert in a periodic world: the copies of a's new box across the faces it comes near ask
// the grid too, as the box itself did (the copy stands in for a's box while it asks, with a fresh
// stamp each; a partner met in several copies is linked once). Near means within what any box may
// poke out of a face by (the reach of seam_axis).
static int seam_late_pairs(kyu_world *w, uint32_t a) {
    grid *g = &w->grid;
    seam_reach_grow(w, &w->step.box[a]);
    float reach =
        kyu_maxf(g->seam_reach[0], kyu_maxf(g->seam_reach[1], g->seam_reach[2])) + w->bodies.max_radius;
    aabb own = w->step.box[a], images[27];
    int n = kyu_periodic_box_images(&w->periodic, &own, reach, images), failed = 0;
    int32_t lo[3], hi[3];
    cell_range(g, &own, lo, hi);
    int huge = cell_count(lo, hi) > MAX_CELLS_PER_BODY;
    for (int i = 1; i < n && !failed; i++) {
        stamp_partners(w, a);
        w->step.box[a] = images[i];
        if (huge) {
            for (int k = 0; k < w->step.active_count && !failed; k++)
                failed = consider(w, a, w->step.active[k]);
            continue;
        }
        failed = query_small(w, a, &images[i], consider) || query_multi(w, a, consider) ||
                 query_levels(w, a, &images[i], consider);
        for (int h = 0; h < g->huge_count && !failed; h++) failed = consider(w, a, g->huge[h]);
    }
    w->step.box[a] = own;
    return failed ? -1 : 0;
}

// Body a's box changed mid-step: pair it with everything its new box meets, then enter it in the
// multi-cell table so later queries meet it there.
int kyu_broadphase_late_insert(kyu_world *w, uint32_t a) {
    grid *g = &w->grid;
    stamp_partners(w, a);
    int32_t lo[3], hi[3];
    cell_range(g, &w->step.box[a], lo, hi);
    if (cell_count(lo, hi) > MAX_CELLS_PER_BODY) {
        for (int k = 0; k < w->step.active_count; k++)
            if (consider(w, a, w->step.active[k])) return -1;
        if (RESERVE(g->huge, g->huge_cap, g->huge_count + 1)) return -1;
        g->huge[g->huge_count++] = a;
    } else {
        if (query_small(w, a, &w->step.box[a], consider) || query_multi(w, a, consider) ||
            query_levels(w, a, &w->step.box[a], consider))
            return -1;
        for (int h = 0; h < g->huge_count; h++)
            if (consider(w, a, g->huge[h])) return -1;
        if (multi_insert(w, a)) return -1;
    }
    if (w->periodic.mask && seam_late_pairs(w, a)) return -1;
    kyu_collider_near near;
    kyu_colliders_near(&w->colliders, &w->step.box[a], &near);
    for (int k; (k = kyu_colliders_next(&w->colliders, &near)) >= 0;)
        if (add_late_pair(w, a, KYU_COLLIDER_BIT | (uint32_t)k)) return -1;
    return 0;
}

// Late inserts again after kyu_broadphase_end_late_inserts (the push moving a body out of its box):
// the table of hashed late entries made anew.
int kyu_broadphase_resume_late_inserts(kyu_world *w) {
    grid *g = &w->grid;
    return late_table_rebuild(g, 256 + w->bodies.count / 16 + g->late_hashed);
}

// The impact stage (or the push's late inserts) is over: none comes before the next build, which
// sizes and empties the multi-cell hash table again, but the push's. A large table is given back
// meanwhile (the fast bodies of a landing step asked for 16 MB of it in PILE(1,000,000), held
// through the contact search otherwise). Its entries stay: the next build and the debug draw read
// them.
void kyu_broadphase_end_late_inserts(kyu_world *w) {
    grid *g = &w->grid;
    int size = g->late_table_size, key_cap = size;
    GIVE_BACK(g->late_key, key_cap);
    GIVE_BACK(g->late_head, size);
    g->late_table_size = key_cap < size ? key_cap : size; // both hold at least this many
}

// Two arrays that share one capacity (a pair list) shrink together.
static void shrink_pairs(uint32_t **a, uint32_t **b, int *cap, int n) {
    int cap_a = *cap, cap_b = *cap;
    SHRINK(*a, cap_a, n);
    SHRINK(*b, cap_b, n);
    *cap = cap_a < cap_b ? cap_a : cap_b;
}

// After the step: the broadphase's arrays give back most of what this step did not use (the
// half-full rule of kyu_shrink, keeping what they hold), so a world that has gone to sleep does not
// keep the room of the step before.
void kyu_broadphase_trim(kyu_world *w) {
    grid *g = &w->grid;
    SHRINK(g->entries, g->entry_cap, g->entry_count);
    SHRINK(g->entries_tmp, g->entry_tmp_cap, g->dense ? 0 : g->entry_count);
    SHRINK(g->late, g->late_cap, g->late_count);
    SHRINK(g->multi_range, g->multi_range_cap, g->multi_range_count);
    SHRINK(g->levels, g->levels_cap, g->level_count);
    SHRINK(g->levels_tmp, g->levels_tmp_cap, g->level_count);
    for (int c = 0; c < g->chunk_cap; c++)
        shrink_pairs(&g->chunks[c].a, &g->chunks[c].b, &g->chunks[c].cap, g->chunks[c].count);
    shrink_pairs(&w->pairs.a, &w->pairs.b, &w->pairs.cap, w->pairs.count);
    int adj = w->pairs.adj_start[w->bodies.high];
    SHRINK(w->pairs.adj, w->pairs.adj_cap, adj);
    SHRINK(w->pairs.adj_hit, w->pairs.adj_hit_cap, adj);
    SHRINK(w->pairs.late_partner, w->pairs.late_cap, w->pairs.late_count);
    SHRINK(w->pairs.late_next, w->pairs.late_next_cap, w->pairs.late_count);
    SHRINK(w->pairs.late_hit, w->pairs.late_hit_cap, w->pairs.late_count);
}

void kyu_grid_free(grid *g) {
    kyu_free(g->entries);
    kyu_free(g->entries_tmp);
    kyu_free(g->table_key);
    kyu_free(g->table_start);
    kyu_free(g->late_key);
    kyu_free(g->late_head);
    kyu_free(g->late);
    kyu_free(g->big);
    kyu_free(g->levels);
    kyu_free(g->levels_tmp);
    kyu_free(g->cell_slices);
    kyu_free(g->occupancy);
    kyu_free(g->scratch_a);
    kyu_free(g->scratch_b);
    kyu_free(g->level_cells);
    kyu_free(g->level_key);
    kyu_free(g->level_start);
    kyu_free(g->dense_start);
    kyu_free(g->huge);
    kyu_free(g->seam_hi);
    kyu_free(g->seam_lo);
    kyu_free(g->seam_found);
    kyu_free(g->stamp);
    for (int c = 0; c < g->chunk_cap; c++) kyu_free(g->chunks[c].a), kyu_free(g->chunks[c].b);
    kyu_free(g->chunks);
    kyu_free(g->late_dense);
    kyu_free(g->late_bits);
    kyu_free(g->occ_bits);
    kyu_free(g->multi_rec);
    kyu_free(g->multi_range);
    memset(g, 0, sizeof *g);
}

void kyu_pairs_free(pair_store *p) {
    kyu_free(p->adj_start);
    kyu_free(p->adj);
    kyu_free(p->adj_hit);
    kyu_free(p->late_head);
    kyu_free(p->late_partner);
    kyu_free(p->late_hit);
    kyu_free(p->late_next);
    kyu_free(p->a);
    kyu_free(p->b);
}
