// SPDX-License-Identifier: MIT
// Broadphase: a hashed uniform grid over each particle's swept box. Every pair of boxes that overlap
// becomes a candidate pair, found once, in a deterministic order; colliders are paired by their
// bounds. Mid-step, a particle whose new path leaves its box is entered again (late insert) and
// queried, so a particle turned around by an impact still meets everything in its way.
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define MAX_CELLS_PER_BODY 4096 // beyond this a body is "huge" and tested against every body
#define CELL_LIMIT 1048575.0f   // cell coordinates are clamped to +-2^20 (monotonic, so still exact)

static int32_t cell_of(float x, float inv_cell) {
    float c = floorf(x * inv_cell);
    if (c > CELL_LIMIT) c = CELL_LIMIT;
    if (c < -CELL_LIMIT) c = -CELL_LIMIT;
    return (int32_t)c;
}

static uint32_t cell_hash(const int32_t c[3]) {
    return ((uint32_t)c[0] * 73856093u) ^ ((uint32_t)c[1] * 19349663u) ^ ((uint32_t)c[2] * 83492791u);
}

static void cell_range(const grid *g, const aabb *b, int32_t lo[3], int32_t hi[3]) {
    for (int k = 0; k < 3; k++) {
        lo[k] = cell_of(b->lo[k], g->inv_cell);
        hi[k] = cell_of(b->hi[k], g->inv_cell);
    }
}

static int64_t cell_count(const int32_t lo[3], const int32_t hi[3]) {
    return (int64_t)(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);
}

static int boxes_overlap(const aabb *a, const aabb *b) {
    return a->lo[0] <= b->hi[0] && b->lo[0] <= a->hi[0] && a->lo[1] <= b->hi[1] &&
           b->lo[1] <= a->hi[1] && a->lo[2] <= b->hi[2] && b->lo[2] <= a->hi[2];
}

static int push_pair(kyu_world *w, uint32_t a, uint32_t b) {
    if (w->pair_count >= w->pair_cap) {
        int cap_a = w->pair_cap, cap_b = w->pair_cap;
        if (RESERVE(w->pair_a, cap_a, w->pair_count + 1) || RESERVE(w->pair_b, cap_b, w->pair_count + 1))
            return -1;
        w->pair_cap = cap_a < cap_b ? cap_a : cap_b;
    }
    w->pair_a[w->pair_count] = a;
    w->pair_b[w->pair_count] = b;
    w->pair_count++;
    return 0;
}

static void choose_cell_size(kyu_world *w) {
    grid *g = &w->grid;
    if (w->def.cell_size > 0.0f) {
        g->cell = w->def.cell_size;
    } else {
        double sum = 0.0;
        int n = 0;
        for (int i = 0; i < w->bodies.high; i++)
            if (w->bodies.alive[i]) sum += w->bodies.radius[i], n++;
        // 1.5 diameters: a resting particle's box spans about two cells per axis.
        g->cell = n ? (float)(3.0 * sum / n) + 2.0f * w->def.contact_margin : 1.0f;
    }
    g->inv_cell = 1.0f / g->cell;
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
        uint32_t *k = realloc(*key, (size_t)n * sizeof *k);
        if (!k) return -1;
        *key = k;
        uint32_t *v = realloc(*val, (size_t)n * sizeof *v);
        if (!v) return -1;
        *val = v;
        *size = n;
    }
    memset(*val, 0xff, (size_t)*size * sizeof **val);
    return 0;
}

// Finds the slot of a hash in an open-addressing table (empty slots have val UINT32_MAX).
static uint32_t table_find(const uint32_t *key, const uint32_t *val, int size, uint32_t h) {
    uint32_t mask = (uint32_t)size - 1, i = (h * 2654435761u) & mask;
    while (val[i] != UINT32_MAX && key[i] != h) i = (i + 1) & mask;
    return i;
}

static int emit_entries(kyu_world *w) {
    grid *g = &w->grid;
    g->entry_count = 0;
    g->huge_count = 0;
    for (int i = 0; i < w->bodies.high; i++) {
        if (!w->bodies.alive[i]) continue;
        int32_t lo[3], hi[3];
        cell_range(g, &w->box[i], lo, hi);
        int64_t cells = cell_count(lo, hi);
        if (cells > MAX_CELLS_PER_BODY) {
            if (RESERVE(g->huge, g->huge_cap, g->huge_count + 1)) return -1;
            g->huge[g->huge_count++] = (uint32_t)i;
            continue;
        }
        if (RESERVE(g->entries, g->entry_cap, g->entry_count + (int)cells)) return -1;
        for (int32_t z = lo[2]; z <= hi[2]; z++)
            for (int32_t y = lo[1]; y <= hi[1]; y++)
                for (int32_t x = lo[0]; x <= hi[0]; x++) {
                    grid_entry *e = &g->entries[g->entry_count++];
                    e->c[0] = x, e->c[1] = y, e->c[2] = z;
                    e->key = cell_hash(e->c);
                    e->body = (uint32_t)i;
                }
    }
    return RESERVE(g->entries_tmp, g->entry_tmp_cap, g->entry_count);
}

static int same_cell(const int32_t a[3], const int32_t b[3]) {
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

// Pairs within one run of equal hashes, each reported in the cell of its intersection's low corner.
static int pairs_in_run(kyu_world *w, int start, int end) {
    const grid *g = &w->grid;
    for (int i = start; i < end; i++) {
        const grid_entry *ei = &g->entries[i];
        const aabb *bi = &w->box[ei->body];
        for (int j = i + 1; j < end; j++) {
            const grid_entry *ej = &g->entries[j];
            if (ej->body == ei->body || !same_cell(ei->c, ej->c)) continue;
            const aabb *bj = &w->box[ej->body];
            if (!boxes_overlap(bi, bj)) continue;
            int32_t corner[3];
            for (int k = 0; k < 3; k++)
                corner[k] = cell_of(fmaxf(bi->lo[k], bj->lo[k]), g->inv_cell);
            if (!same_cell(corner, ei->c)) continue;
            uint32_t a = ei->body < ej->body ? ei->body : ej->body;
            uint32_t b = ei->body ^ ej->body ^ a;
            if (push_pair(w, a, b)) return -1;
        }
    }
    return 0;
}

static int index_runs(grid *g) {
    int runs = 0;
    for (int i = 0; i < g->entry_count; i++)
        if (i == 0 || g->entries[i].key != g->entries[i - 1].key) runs++;
    if (table_reserve(&g->table_key, &g->table_start, &g->table_size, runs)) return -1;
    for (int i = 0; i < g->entry_count; i++) {
        if (i > 0 && g->entries[i].key == g->entries[i - 1].key) continue;
        uint32_t s = table_find(g->table_key, g->table_start, g->table_size, g->entries[i].key);
        g->table_key[s] = g->entries[i].key;
        g->table_start[s] = (uint32_t)i;
    }
    return 0;
}

static int huge_pairs(kyu_world *w) {
    grid *g = &w->grid;
    // Stamp the huge bodies so a huge-huge pair is reported once, by its lower slot.
    if (++g->stamp_now == 0) g->stamp_now = 1;
    for (int h = 0; h < g->huge_count; h++) g->stamp[g->huge[h]] = g->stamp_now;
    for (int h = 0; h < g->huge_count; h++) {
        uint32_t a = g->huge[h];
        for (int i = 0; i < w->bodies.high; i++) {
            uint32_t b = (uint32_t)i;
            if (!w->bodies.alive[i] || b == a) continue;
            if (g->stamp[b] == g->stamp_now && b < a) continue;
            if (!boxes_overlap(&w->box[a], &w->box[b])) continue;
            if (push_pair(w, a < b ? a : b, a < b ? b : a)) return -1;
        }
    }
    return 0;
}

static int collider_pairs(kyu_world *w) {
    for (int i = 0; i < w->bodies.high; i++) {
        if (!w->bodies.alive[i]) continue;
        for (int c = 0; c < w->collider_high; c++)
            if (w->colliders[c].alive && kyu_collider_touches_box(&w->colliders[c], &w->box[i]))
                if (push_pair(w, (uint32_t)i, KYU_COLLIDER_BIT | (uint32_t)c)) return -1;
    }
    return 0;
}

// Adjacency (CSR): each body's partners, bodies and colliders, in pair order.
static int build_adjacency(kyu_world *w) {
    int n = w->bodies.high;
    int *start = w->adj_start;
    memset(start, 0, (size_t)(n + 1) * sizeof *start);
    for (int p = 0; p < w->pair_count; p++) {
        start[w->pair_a[p] + 1]++;
        if (!(w->pair_b[p] & KYU_COLLIDER_BIT)) start[w->pair_b[p] + 1]++;
    }
    for (int i = 0; i < n; i++) start[i + 1] += start[i];
    if (RESERVE(w->adj, w->adj_cap, start[n] + 1)) return -1;
    for (int p = 0; p < w->pair_count; p++) {
        uint32_t a = w->pair_a[p], b = w->pair_b[p];
        w->adj[start[a]++] = b;
        if (!(b & KYU_COLLIDER_BIT)) w->adj[start[b]++] = a;
    }
    for (int i = n; i > 0; i--) start[i] = start[i - 1];
    start[0] = 0;
    for (int i = 0; i < n; i++) w->late_head[i] = -1;
    w->late_pair_count = 0;
    return 0;
}

int kyu_broadphase_build(kyu_world *w) {
    grid *g = &w->grid;
    choose_cell_size(w);
    w->pair_count = 0;
    g->late_count = 0;
    if (emit_entries(w)) return -1;
    sort_entries(g);
    for (int i = 0; i < g->entry_count;) {
        int j = i + 1;
        while (j < g->entry_count && g->entries[j].key == g->entries[i].key) j++;
        if (pairs_in_run(w, i, j)) return -1;
        i = j;
    }
    if (huge_pairs(w) || collider_pairs(w) || index_runs(g) || build_adjacency(w)) return -1;
    // The late table is sized for a few percent of the bodies and regrown when it fills.
    if (table_reserve(&g->late_key, &g->late_head, &g->late_table_size, 256 + w->bodies.count / 16))
        return -1;
    return 0;
}

// ---- mid-step insertion and query ---------------------------------------------------------------

static int has_partner(const kyu_world *w, uint32_t a, uint32_t b) {
    for (int k = w->adj_start[a]; k < w->adj_start[a + 1]; k++)
        if (w->adj[k] == b) return 1;
    for (int k = w->late_head[a]; k >= 0; k = w->late_next[k])
        if (w->late_partner[k] == b) return 1;
    return 0;
}

static int link(kyu_world *w, uint32_t a, uint32_t b) {
    if (RESERVE(w->late_partner, w->late_pair_cap, w->late_pair_count + 1)) return -1;
    if (RESERVE(w->late_next, w->late_next_cap, w->late_pair_count + 1)) return -1;
    int k = w->late_pair_count++;
    w->late_partner[k] = b;
    w->late_next[k] = w->late_head[a];
    w->late_head[a] = k;
    return 0;
}

static int add_late_pair(kyu_world *w, uint32_t a, uint32_t b) {
    if (has_partner(w, a, b)) return 0;
    if (link(w, a, b)) return -1;
    if (!(b & KYU_COLLIDER_BIT) && link(w, b, a)) return -1;
    uint32_t lo = a, hi = b;
    if (!(b & KYU_COLLIDER_BIT) && b < a) lo = b, hi = a;
    return push_pair(w, lo, hi);
}

static int consider(kyu_world *w, uint32_t a, uint32_t j) {
    grid *g = &w->grid;
    if (j == a || g->stamp[j] == g->stamp_now) return 0;
    g->stamp[j] = g->stamp_now;
    if (!boxes_overlap(&w->box[a], &w->box[j])) return 0;
    return add_late_pair(w, a, j);
}

static int late_table_grow(grid *g) {
    if (table_reserve(&g->late_key, &g->late_head, &g->late_table_size, g->late_table_size)) return -1;
    for (int e = 0; e < g->late_count; e++) {
        uint32_t h = cell_hash(g->late[e].c);
        uint32_t s = table_find(g->late_key, g->late_head, g->late_table_size, h);
        g->late_key[s] = h;
        g->late[e].next = g->late_head[s];
        g->late_head[s] = (uint32_t)e;
    }
    return 0;
}

static int late_add_entry(grid *g, const int32_t c[3], uint32_t body) {
    if (RESERVE(g->late, g->late_cap, g->late_count + 1)) return -1;
    if (2 * (g->late_count + 1) > g->late_table_size && late_table_grow(g)) return -1;
    uint32_t h = cell_hash(c);
    uint32_t s = table_find(g->late_key, g->late_head, g->late_table_size, h);
    late_entry *e = &g->late[g->late_count];
    memcpy(e->c, c, sizeof e->c);
    e->body = body;
    e->next = g->late_head[s];
    g->late_key[s] = h;
    g->late_head[s] = (uint32_t)g->late_count++;
    return 0;
}

static int query_cell(kyu_world *w, uint32_t a, const int32_t c[3]) {
    grid *g = &w->grid;
    uint32_t h = cell_hash(c);
    uint32_t s = table_find(g->table_key, g->table_start, g->table_size, h);
    if (g->table_start[s] != UINT32_MAX)
        for (int e = (int)g->table_start[s]; e < g->entry_count && g->entries[e].key == h; e++)
            if (consider(w, a, g->entries[e].body)) return -1;
    s = table_find(g->late_key, g->late_head, g->late_table_size, h);
    for (uint32_t e = g->late_head[s]; e != UINT32_MAX; e = g->late[e].next)
        if (consider(w, a, g->late[e].body)) return -1;
    return 0;
}

// Body a's box changed mid-step: enter it again and pair it with everything its new box meets.
int kyu_broadphase_late_insert(kyu_world *w, uint32_t a) {
    grid *g = &w->grid;
    if (++g->stamp_now == 0) {
        memset(g->stamp, 0, (size_t)w->bodies.capacity * sizeof *g->stamp);
        g->stamp_now = 1;
    }
    g->stamp[a] = g->stamp_now;
    int32_t lo[3], hi[3], c[3];
    cell_range(g, &w->box[a], lo, hi);
    if (cell_count(lo, hi) > MAX_CELLS_PER_BODY) {
        if (RESERVE(g->huge, g->huge_cap, g->huge_count + 1)) return -1;
        g->huge[g->huge_count++] = a;
        for (int i = 0; i < w->bodies.high; i++)
            if (w->bodies.alive[i] && consider(w, a, (uint32_t)i)) return -1;
    } else {
        for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++)
            for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
                for (c[0] = lo[0]; c[0] <= hi[0]; c[0]++)
                    if (late_add_entry(g, c, a) || query_cell(w, a, c)) return -1;
    }
    for (int h = 0; h < g->huge_count; h++)
        if (consider(w, a, g->huge[h])) return -1;
    for (int k = 0; k < w->collider_high; k++)
        if (w->colliders[k].alive && kyu_collider_touches_box(&w->colliders[k], &w->box[a]))
            if (add_late_pair(w, a, KYU_COLLIDER_BIT | (uint32_t)k)) return -1;
    return 0;
}

void kyu_grid_free(grid *g) {
    free(g->entries); free(g->entries_tmp); free(g->table_key); free(g->table_start);
    free(g->late_key); free(g->late_head); free(g->late); free(g->huge); free(g->stamp);
    memset(g, 0, sizeof *g);
}
