// SPDX-License-Identifier: MIT
// Private to the engine: the broadphase's module (broadphase.c): the uniform grid over swept
// boxes, the candidate pairs it finds, and the one walk over a body's partners.
#ifndef KYU_GRID_H
#define KYU_GRID_H

#include "common.h"

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

// The uniform grid over swept boxes (hashed, so the world is unbounded). A body whose box fits in a
// cell is entered once, in the cell of its box's low corner, and meets its partners in its own cell
// and the 13 cells ahead of it. A larger box goes to the coarser level whose cell it fits, cells of
// 2, 4, 8 ... fine cells, entered there the same way (in a bed of sizes spanning 1:10, nearly half its
// bodies are too large for the fine cell). A body whose path changes mid-step is entered in every fine cell
// its new box covers (the multi-cell table).
typedef struct grid_entry {
    uint32_t key; // hash of the cell (the dense index in a dense grid); the cell is the box's low corner
    uint32_t body;
    aabb box; // a copy of the body's box: pair tests read the entries in order, not w->step.box
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

// A box too large for the fine cell, in the level whose cell it fits (cell * 2^level), at the
// cell of its low corner. key: the cell's hash mixed with the level.
typedef struct level_entry {
    uint32_t key, body;
    int32_t level, c[3];
    aabb box; // a copy of the body's box, as grid_entry's
} level_entry;
#define KYU_LEVEL_FILTER_WORDS 1024 // a bit per key (mod 65536): most cells asked about are empty
#define KYU_GRID_LEVELS        24   // a box of at most 4096 fine cells needs level 13 at most

// One level of the grid: its cell, and where its entries and (when dense) its cells' offsets are.
typedef struct level_grid {
    float cell, inv;
    int first, count; // its entries in grid.levels
    int dense;        // a dense array of cells (offsets from level_cells[base]); else hashed
    int64_t base;
    int32_t origin[3], dims[3];
} level_grid;

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
    uint32_t *big; // bodies too large for a fine cell at the build (in `levels`)
    int big_count, big_cap;
    level_entry *levels, *levels_tmp; // the big bodies, sorted by key (a run per key)
    int level_count, levels_cap, levels_tmp_cap;
    uint32_t *level_key, *level_start; // key -> first entry of its run; start UINT32_MAX = empty
    int level_table_size;
    uint32_t level_used; // bit l: level l holds a body
    level_grid level[KYU_GRID_LEVELS];
    uint32_t *level_cells; // the dense levels' cell offsets
    int level_cells_cap;
    uint64_t level_filter[KYU_LEVEL_FILTER_WORDS]; // the keys the levels hold, mod 65536
    struct cell_stats *cell_slices;                // the cell's choice: what each slice of the bodies holds
    int cell_slices_cap;
    uint32_t *occupancy; // the cell's choice: a set of the cells the bodies fill (occupied_cells)
    int occupancy_cap;
    uint32_t level_asked;            // bit l: the fine cells ask level l (else its boxes
                                     //   ask the fine grid)
    uint32_t *scratch_a, *scratch_b; // a hashed grid's pairs with the levels, one run at a time
    int scratch_cap;
    uint32_t *huge; // bodies whose box covers too many cells
    int huge_count, huge_cap;
    uint32_t *stamp; // per body: last query that saw it
    uint32_t stamp_now;
    struct pair_chunk *chunks;           // pairs found in parallel slices: the dense grid's, the big
    int chunk_cap;                       //   bodies', then the body-collider pairs (kyu_pair_source)
    int grid_chunks, collider_chunks;    // chunks holding each this step (grid: dense and big)
    uint32_t *late_dense;                // dense grid: cell index -> newest late entry there (a list),
    int late_dense_cap;                  //   valid where late_bits has the cell's bit (late entries
    uint64_t *late_bits;                 //   outside the dense box go in the hash table): most cells
    int late_bits_cap;                   //   have none, and the bits stay in cache where the heads do not
    uint64_t *occ_bits;                  // dense grid: the cells that hold small entries (a query skips
    int occ_bits_cap;                    //   an empty row without reading its offsets)
    int late_hashed;                     // late entries in the hash table
    struct seam_item *seam_hi, *seam_lo; // periodic worlds, the build's pairs across a seam: the
    int seam_hi_cap, seam_lo_cap;        //   boxes near a face's upper and lower sides (broadphase.c),
    uint64_t *seam_found;                //   the pairs they make (lower slot << 32 | upper),
    int seam_found_cap;                  //   and how near a face is near, on each axis
    float seam_reach[3];
    int pair_budget; // candidate pairs this step may find (the world def's capacity)
    int overflow;    // the build stopped at the budget (KYU_FAIL_PAIRS)
} grid;

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

// The cell an entry is in: the cell of its box's low corner.
static inline void kyu_entry_cell(const grid *g, const grid_entry *e, int32_t c[3]) {
    for (int k = 0; k < 3; k++) c[k] = kyu_cell_of(e->box.lo[k], g->inv_cell);
}

// The candidate pairs of this step (broadphase.c): CSR adjacency per body, the pairs added
// mid-step in per-body lists, and the pairs found one at a time (the others stay in the grid's
// chunks: kyu_pair_source). kyu_partners walks a body's.
typedef struct pair_store {
    int *adj_start; // CSR adjacency of the pairs found by the broadphase
    uint32_t *adj;
    uint8_t *adj_hit; // beside adj: the pair had an impact this step (marked at its lower slot)
    int adj_cap, adj_hit_cap;
    int *late_head; // per body: linked list of pairs added mid-step
    uint32_t *late_partner;
    uint8_t *late_hit;
    int *late_next;
    int late_count, late_cap, late_next_cap, late_hit_cap;
    uint32_t *a, *b;
    int count, cap;
} pair_store;

// broadphase.c
int kyu_broadphase_build(kyu_world *w);
int kyu_broadphase_late_insert(kyu_world *w, uint32_t body);
void kyu_broadphase_end_late_inserts(kyu_world *w);
int kyu_broadphase_resume_late_inserts(kyu_world *w);
void kyu_broadphase_mark_hit(kyu_world *w, uint32_t a, uint32_t b);
void kyu_broadphase_trim(kyu_world *w);
int kyu_pair_source_count(const kyu_world *w);
// The most sources a step can have: the dense grid's slices, the big bodies' (a body whose box spans
// several cells: on a landing step of PILE 1M, 95,599 fast ones), the pairs found one at a time and
// the collider pairs' slices, up to KYU_MAX_SLICES each. (The impacts assumed three kinds: PILE 1M
// stopped on their internal check when all four filled.)
#define KYU_MAX_PAIR_SOURCES (4 * KYU_MAX_SLICES)
pair_source kyu_pair_source(const kyu_world *w, int s);
void kyu_grid_free(grid *g);
void kyu_pairs_free(pair_store *p);

// A body's partners this step (the pairs the broadphase found, then those added mid-step): the one
// walk every stage uses.
//
//     for (kyu_partner_iter it = kyu_partners(&w->pairs, a); kyu_next_partner(&w->pairs, &it);)
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

static inline kyu_partner_iter kyu_partners(const pair_store *p, uint32_t a) {
    kyu_partner_iter it = {0, NULL, a, p->adj_start[a], p->adj_start[a + 1]};
    return it;
}

static inline bool kyu_next_partner(const pair_store *p, kyu_partner_iter *it) {
    if (it->end >= 0) {
        if (it->k < it->end) {
            it->partner = p->adj[it->k];
            it->hit = &p->adj_hit[it->k++];
            return true;
        }
        it->end = -1;
        it->k = p->late_head[it->body];
    }
    if (it->k < 0) return false;
    it->partner = p->late_partner[it->k];
    it->hit = &p->late_hit[it->k];
    it->k = p->late_next[it->k];
    return true;
}

#endif
