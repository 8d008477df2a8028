// SPDX-License-Identifier: MIT
// The broadphase grid's own arithmetic, white box (engine/internal.h): the cell of a coordinate
// against floor in long double, the late entries of a body that bounces many times in a step, the
// candidate pairs against brute force, and the new bodies' first contacts (found with the query
// grid, in slices at once) against brute force; and the axis the contact solves cut their slabs
// along.
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/internal.h"
#include "test.h"

static uint32_t lcg = 2024;
static double frand(void) {
    lcg = lcg * 1664525u + 1013904223u;
    return (lcg >> 8) * (1.0 / 16777216.0);
}

// floor(x * inv) of the float product, clamped as the grid clamps, in long double.
static int32_t floor_oracle(float x, float inv) {
    float c = x * inv;
    long double f = floorl((long double)c);
    if (f > 1048575.0L) f = 1048575.0L;
    if (f < -1048575.0L) f = -1048575.0L;
    return (int32_t)f;
}

// kyu_cell_of is floor, except that a product within 2^-34 below zero maps to cell 0 (documented).
static int32_t expected_cell(float x, float inv) {
    float c = x * inv;
    if (c < 0.0f && c >= -0x1p-34f) return 0;
    return floor_oracle(x, inv);
}

static void test_cell_of_is_floor_on_random_and_edge_values(void) {
    for (int i = 0; i < 200000; i++) {
        float scale = (float)pow(10.0, -6.0 + 13.0 * frand()); // 1e-6 .. 1e7
        float x = (float)((2.0 * frand() - 1.0) * scale);
        float inv = (float)pow(10.0, -3.0 + 6.0 * frand());
        ENSURE(kyu_cell_of(x, inv) == expected_cell(x, inv));
    }
    // Integers, the floats just below and above them, zeros, the clamp, beyond it, tiny negatives.
    const float edges[] = {0.0f,       -0.0f,       1.0f, -1.0f, 2.0f,     -2.0f,     1048575.0f, -1048575.0f,
                           1048576.0f, -1048576.0f, 3e9f, -3e9f, 1e-30f,   -1e-30f,   -0x1p-34f,  -0x1p-33f,
                           -0x1p-32f,  -0x1p-35f,   0.5f, -0.5f, 12345.0f, -12345.0f, 1e-9f,      -1e-9f};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        float e = edges[i];
        const float probes[] = {e, nextafterf(e, INFINITY), nextafterf(e, -INFINITY)};
        for (int k = 0; k < 3; k++) ENSURE(kyu_cell_of(probes[k], 1.0f) == expected_cell(probes[k], 1.0f));
    }
    ENSURE(kyu_cell_of(-1e-30f, 1.0f) == 0);                           // the documented exception
    ENSURE(kyu_cell_of(-0x1p-34f, 1.0f) == 0);                         // its edge (a tie, to even)
    ENSURE(kyu_cell_of(nextafterf(-0x1p-34f, -INFINITY), 1.0f) == -1); // just outside it
}

// What the grid needs: monotonic, and a box of at most 0.99 cell never spans three cells.
static void test_cell_of_is_monotonic_and_cells_are_a_cell_wide(void) {
    for (int i = 0; i < 100000; i++) {
        float inv = (float)pow(10.0, -2.0 + 4.0 * frand());
        float x = (float)((2.0 * frand() - 1.0) * pow(10.0, -12.0 + 16.0 * frand()));
        float y = nextafterf(x, INFINITY);
        ENSURE(kyu_cell_of(x, inv) <= kyu_cell_of(y, inv));
        float hi = x + 0.99f / inv;
        if (fabsf(x * inv) < 1e6f) ENSURE(kyu_cell_of(hi, inv) - kyu_cell_of(x, inv) <= 1);
    }
}

// A ball between two walls a hair wider than it, fast enough to cross the gap many times in one
// step: every bounce re-enters it in the grid, and it stays in the same cell, so it takes one late
// entry, not one per bounce (each copy would be walked by every later query of that cell).
static void test_a_ball_bouncing_many_times_in_one_cell_takes_one_late_entry(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = v3(0, 0, 0);
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    add_box(w, v3(-2.0f, -2, -2), v3(-0.11f, 2, 2), 1.0f, 0.0f, KYU_STATIC, v3(0, 0, 0));
    add_box(w, v3(0.11f, -2, -2), v3(2.0f, 2, 2), 1.0f, 0.0f, KYU_STATIC, v3(0, 0, 0));
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 0.1f;
    bd.position = v3(0, 0, 0);
    bd.velocity = v3(12.0f, 0, 0); // 0.2 m a step, 0.02 m between the walls: ten bounces a step
    bd.restitution = 1.0f;
    bd.friction = 0.0f;
    kyu_body_id id;
    ENSURE(kyu_body_create(w, &bd, &id) == KYU_OK);
    for (int s = 0; s < 10; s++) {
        ENSURE(kyu_world_step(w) == KYU_OK);
        kyu_step_stats st = kyu_world_stats(w);
        ENSURE(st.impacts >= 8);         // it really bounced many times this step
        ENSURE(w->grid.late_count <= 2); // one entry (a box that straddles a cell edge: two)
    }
    vec3s p;
    ENSURE(kyu_body_get_position(w, id, &p) == KYU_OK);
    ENSURE(fabsf(p.x) <= 0.011f); // never through a wall
    kyu_world_destroy(w);
}

static int by_pair(const void *x, const void *y) {
    const uint64_t *a = x, *b = y;
    return *a < *b ? -1 : *a > *b;
}

// Bodies at rest with no gravity have no impacts, and with no solver passes the push at the step's
// end moves none of them (it grows the box of a body it moves out of it, and asks the grid again),
// so the boxes of the build stay in w->step.box through the step: after one step the candidate body pairs
// must be exactly the pairs of those boxes that overlap and that the filter allows, each once (brute force
// over all pairs of boxes).
static void expect_pairs_match_brute_force(kyu_world *w) {
    ENSURE(kyu_world_step(w) == KYU_OK);
    kyu_step_stats st = kyu_world_stats(w);
    ENSURE(st.impacts == 0 && st.late_inserts == 0); // the boxes are the build's
    int n = w->bodies.high, want_n = 0, want_cap = 1024;
    const aabb *box = w->step.box;
    uint64_t *want = malloc((size_t)want_cap * sizeof *want);
    ENSURE(want != NULL);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            int meet = 1;
            for (int k = 0; k < 3; k++) meet &= box[i].lo[k] <= box[j].hi[k] && box[j].lo[k] <= box[i].hi[k];
            if (!meet || !kyu_pair_allowed(w, (uint32_t)i, (uint32_t)j)) continue;
            if (want_n == want_cap) {
                want_cap *= 2;
                uint64_t *grown = realloc(want, (size_t)want_cap * sizeof *want);
                if (!grown) free(want);
                ENSURE(grown != NULL);
                want = grown;
            }
            want[want_n++] = (uint64_t)i << 32 | (uint32_t)j;
        }
    int got_n = 0, lower_first = 1;
    uint64_t *got = malloc((size_t)(want_n + 1) * sizeof *got);
    if (!got) free(want);
    ENSURE(got != NULL);
    for (int s = 0; s < kyu_pair_source_count(w); s++) {
        pair_source src = kyu_pair_source(w, s);
        for (int p = 0; p < src.count; p++) {
            if (src.b[p] & KYU_COLLIDER_BIT) continue;
            lower_first &= src.a[p] < src.b[p];
            if (got_n <= want_n) got[got_n] = (uint64_t)src.a[p] << 32 | src.b[p];
            got_n++;
        }
    }
    int same = got_n == want_n;
    if (same) {
        qsort(want, (size_t)want_n, sizeof *want, by_pair);
        qsort(got, (size_t)got_n, sizeof *got, by_pair);
        for (int p = 0; p < want_n; p++) same &= got[p] == want[p];
    }
    free(want), free(got);
    ENSURE(want_n > 100); // the scene really has pairs
    ENSURE(lower_first);
    ENSURE(same); // the same set, each pair once
}

static kyu_world *still_world_cell(float cell) {
    kyu_world_def wd = kyu_world_def_default();
    wd.cell_size = cell;
    wd.gravity = v3(0, 0, 0);
    wd.enable_sleep = false;
    wd.solver_iterations = 0;            // the boxes stay the build's (expect_pairs_match_brute_force)
    wd.pair_capacity_per_body = 1024;    // the crowded cell holds 180,000 pairs on purpose,
    wd.contact_capacity_per_body = 1024; // and as many contacts
    kyu_world *w = NULL;
    return kyu_world_create(&wd, &w) == KYU_OK ? w : NULL;
}

static kyu_world *still_world(void) { return still_world_cell(0.0f); }

static void add_still(kyu_world *w, vec3s p, float r, uint32_t category, uint32_t mask) {
    kyu_body_def bd = kyu_body_def_default();
    bd.position = p;
    bd.radius = r;
    bd.category_bits = category;
    bd.mask_bits = mask;
    kyu_body_id id;
    ENSURE(kyu_body_create(w, &bd, &id) == KYU_OK);
}

// A sparse gas (about one body in three cells, as in the GAS scene) with mixed radii, some
// overlapping, and a filter that keeps category 2 off category 4.
static void test_sparse_pairs_match_brute_force(void) {
    kyu_world *w = still_world();
    ENSURE(w != NULL);
    for (int i = 0; i < 3000; i++) {
        uint32_t cat = 1u << (i % 3);
        add_still(w, v3((float)(24 * frand()), (float)(24 * frand()), (float)(24 * frand())),
                  (float)(0.3 + 0.4 * frand()), cat,
                  cat == 2   ? ~4u
                  : cat == 4 ? ~2u
                             : ~0u);
    }
    ENSURE(w->bodies.high == 3000);
    expect_pairs_match_brute_force(w);
    ENSURE(w->grid.dense); // the dense grid's path was the one tested
    kyu_world_destroy(w);
}

// A crowded cell: 600 bodies within one cell (spawned at one point, so too many tests to reserve
// room for each), next to a sparse neighbourhood.
static void test_crowded_cell_pairs_match_brute_force(void) {
    kyu_world *w = still_world();
    ENSURE(w != NULL);
    for (int i = 0; i < 600; i++)
        add_still(w,
                  v3((float)(5 + 0.05 * frand()), (float)(5 + 0.05 * frand()), (float)(5 + 0.05 * frand())),
                  0.5f, 1, ~0u);
    for (int i = 0; i < 400; i++)
        add_still(w, v3((float)(10 * frand()), (float)(10 * frand()), (float)(10 * frand())), 0.5f, 1, ~0u);
    expect_pairs_match_brute_force(w);
    ENSURE(w->grid.dense);
    kyu_world_destroy(w);
}

// Whether some big body of the last build sits on a dense level, and some on a hashed one.
static int levels_dense(const kyu_world *w, int dense) {
    for (int l = 1; l < KYU_GRID_LEVELS; l++)
        if (w->grid.level[l].count && w->grid.level[l].dense == dense) return 1;
    return 0;
}

// A packed bed of radii spanning 1:10, the bodies overlapping freely: seven in eight of 1-2 cm (the
// fine cell fits them), the rest of 3-10 cm, too large for the fine cell, on three levels (dense).
static void test_a_bed_of_mixed_sizes_pairs_match_brute_force(void) {
    kyu_world *w = still_world();
    ENSURE(w != NULL);
    lcg = 37;
    for (int i = 0; i < 3000; i++) {
        float r = (float)(i % 8 ? 0.01 * pow(2.0, frand()) : 0.03 * pow(10.0 / 3.0, frand()));
        add_still(w, v3((float)(0.9 * frand()), (float)(0.9 * frand()), (float)(0.9 * frand())), r, 1, ~0u);
    }
    expect_pairs_match_brute_force(w);
    ENSURE(w->grid.level_used >> 1 & 1 && w->grid.level_used >> 2 & 1); // two levels at least
    ENSURE(levels_dense(w, 1));
    ENSURE(w->grid.big_count > 3000 / 16 && w->grid.big_count <= 3000 / 8 + 1);
    kyu_world_destroy(w);
}

// Balls of 16 cm among 1 cm beads on a grid of 3.5 cm cells (a world's cell_size): the balls' boxes,
// nine fine cells wide, would read more fine cells than the beads' cells read of the balls' level,
// so the beads ask (in a dense grid).
static void test_balls_among_beads_asked_by_the_beads_pairs_match_brute_force(void) {
    kyu_world *w = still_world_cell(0.035f);
    ENSURE(w != NULL);
    lcg = 43;
    for (int i = 0; i < 3200; i++) {
        float r = i % 16 ? (float)(0.01 * (1.0 + 0.3 * frand())) : 0.16f;
        add_still(w, v3((float)(0.6 * frand()), (float)(0.6 * frand()), (float)(0.6 * frand())), r, 1, ~0u);
    }
    expect_pairs_match_brute_force(w);
    ENSURE(w->grid.dense && w->grid.big_count == 200 && w->grid.level_asked != 0);
    kyu_world_destroy(w);
}

// A block of 2,000 balls of 0.5 m, 5% apart (20 x 10 x 10).
static void add_block(kyu_world *w) {
    for (int i = 0; i < 2000; i++)
        add_still(w, v3(1.05f * (float)(i % 20), 1.05f * (float)(i / 20 % 10), 1.05f * (float)(i / 200)),
                  0.5f, 1, ~0u);
}

// The cell the block chooses, with a ball `far` metres away or none.
static float block_cell(float far) {
    kyu_world *w = still_world();
    if (!w) return -1.0f;
    add_block(w);
    if (far > 0.0f) add_still(w, v3(far, 0.0f, far), 0.5f, 1, ~0u);
    float cell = kyu_world_step(w) == KYU_OK ? w->grid.cell : -1.0f;
    kyu_world_destroy(w);
    return cell;
}

// The sparse rule grows the cell to about 0.6 bodies a cell over the span of the boxes: one ball
// far from a pile spanned a kilometre, and a cell of 11 m held the pile in a few cells (the
// broadphase 26x slower). The cells the bodies fill count instead when they fill few of the span's,
// down to 1.5 times the balls' own cell.
static void test_one_ball_far_from_a_pile_leaves_the_cell_alone(void) {
    float alone = block_cell(0.0f);
    ENSURE(alone > 1.0f && alone < 1.3f); // 1.1 times a ball's box
    for (float far = 100.0f; far <= 1e5f; far *= 10.0f) {
        float cell = block_cell(far);
        ENSURE(cell >= alone && cell <= 1.5f * alone); // the sparse rule's growth is checked from 1.5x
    }
}

// Two touching balls 1 km from a block of 2,000 (and one 30 m off to a side): the grid stays a dense
// array over the block, the far balls are tested against every body, and the pairs are those of
// brute force (the far pair once).
static void test_balls_far_from_a_pile_leave_the_grid_dense_pairs_match_brute_force(void) {
    kyu_world *w = still_world();
    ENSURE(w != NULL);
    add_block(w);
    add_still(w, v3(1000.0f, 0.0f, 1000.0f), 0.5f, 1, ~0u);
    add_still(w, v3(1000.9f, 0.0f, 1000.0f), 0.5f, 1, ~0u);
    add_still(w, v3(-30.0f, 0.0f, 5.0f), 0.5f, 1, ~0u);
    expect_pairs_match_brute_force(w);
    ENSURE(w->grid.huge_count == 3 && w->grid.entry_count == 2000);
    kyu_world_destroy(w);
}

// Radii spanning 1:1000 (8 mm to 8 m, many levels), in two clusters 2 km apart with a few bodies
// scattered between, on a grid of 5 cm cells (a world's cell_size): the fine grid and the finer
// levels are hashed (a chosen cell grows with the span, and keeps the grid dense).
static void test_sizes_far_apart_pairs_match_brute_force(void) {
    kyu_world *w = still_world_cell(0.05f);
    ENSURE(w != NULL);
    lcg = 41;
    for (int i = 0; i < 2500; i++) {
        float r = (float)(0.008 * pow(1000.0, frand() * frand()));
        double cx = i % 2 ? 2000.0 : 0.0, span = 12.0;
        if (i % 50 == 0) cx = 2000.0 * frand(), span = 100.0;
        add_still(w, v3((float)(cx + span * frand()), (float)(span * frand()), (float)(span * frand())), r,
                  1u << (i % 3), i % 3 == 1 ? ~4u : ~0u);
    }
    expect_pairs_match_brute_force(w);
    ENSURE(!w->grid.dense);
    ENSURE(levels_dense(w, 0));
    kyu_world_destroy(w);
}

// A scene's new bodies: mixed sizes from a 2 cm bead to a 1.2 m ball and one of 6 m (more cells
// than the query grid lists a body in), bodies of category 4 that do not see category 2, over a
// floor; enough of them for several slices of the fresh search.
static kyu_world *fresh_world(int workers) {
    kyu_world_def wd = kyu_world_def_default();
    wd.worker_count = workers;
    wd.yield_when_busy = false; // every phase split, even on a busy machine
    wd.contact_capacity_per_body = 256;
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return NULL;
    add_box(w, v3(-30, -1, -30), v3(30, 0, 30), 0.2f, 0.5f, KYU_STATIC, v3(0, 0, 0));
    lcg = 77;
    for (int i = 0; i < 6000; i++) {
        uint32_t cat = 1u << (i % 3);
        float r = i == 0 ? 6.0f : (float)(0.02 + (i % 5 == 0 ? 1.2 : 0.45) * frand());
        add_still(w, v3((float)(20 * frand() - 10), (float)(12 * frand()), (float)(20 * frand() - 10)), r,
                  cat,
                  cat == 2   ? ~4u
                  : cat == 4 ? ~2u
                             : ~0u);
    }
    return w;
}

static int by_contact(const void *x, const void *y) {
    const contact *a = x, *b = y;
    uint64_t ka = kyu_contact_key(a), kb = kyu_contact_key(b);
    return (ka > kb) - (ka < kb);
}

// Where brute force and the search may disagree by rounding: a gap within 1e-5 of the margin.
static int near_margin(double gap, double margin) { return fabs(gap - margin) < 1e-5; }

// The new bodies' contacts (kyu_contacts_add_fresh, run on its own as the step's stage 0 runs it)
// are every allowed pair closer than its margin, each once, body pairs and the floor's (brute force
// in double over all pairs), and the same, bit for bit, with one worker and with two.
static void test_fresh_contacts_match_brute_force_for_any_worker_count(void) {
    contact *found[2] = {NULL, NULL};
    int count[2] = {0, 0};
    for (int run = 0; run < 2; run++) {
        kyu_world *w = fresh_world(run == 0 ? 2 : 1);
        ENSURE(w != NULL);
        ENSURE(w->contacts.fresh_count == 6000 && kyu_slice_count(6000) > 1);
        ENSURE(kyu_contacts_add_fresh(w) == 0);
        ENSURE(w->contacts.fresh_count == 0);
        count[run] = w->contacts.count;
        found[run] = malloc((size_t)(count[run] + 1) * sizeof *found[run]);
        ENSURE(found[run] != NULL);
        memcpy(found[run], w->contacts.list, (size_t)count[run] * sizeof *found[run]);
        if (run == 0) { // brute force, against the two-worker search
            const body_store *s = &w->bodies;
            int want = 0, ambiguous = 0, missed = 0;
            for (uint32_t i = 0; i < (uint32_t)s->high; i++) {
                double floor_gap = (double)s->pos[i].y - (double)s->radius[i];
                uint32_t floor = KYU_COLLIDER_BIT;
                for (uint32_t j = i + 1; j <= (uint32_t)s->high; j++) {
                    uint32_t b = j < (uint32_t)s->high ? j : floor;
                    double gap = floor_gap;
                    if (b != floor) {
                        double d2 = 0.0;
                        for (int k = 0; k < 3; k++) {
                            double d = (double)s->pos[i].raw[k] - (double)s->pos[j].raw[k];
                            d2 += d * d;
                        }
                        gap = sqrt(d2) - (double)s->radius[i] - (double)s->radius[j];
                    }
                    if (!kyu_pair_allowed(w, i, b)) continue;
                    double margin = (double)kyu_pair_margin(w, i, b);
                    if (near_margin(gap, margin)) {
                        ambiguous++;
                        continue;
                    }
                    if (!(gap < margin)) continue;
                    want++;
                    contact key = {.a = i, .b = b};
                    if (!bsearch(&key, found[0], (size_t)count[0], sizeof key, by_contact)) missed++;
                }
            }
            int extra = 0; // found, yet brute force says apart (and not by rounding)
            for (int k = 0; k < count[0]; k++) {
                const contact *c = &found[0][k];
                ENSURE(k == 0 || by_contact(&found[0][k - 1], c) < 0); // sorted, each pair once
                vec3s n = c->normal;
                double gap = kyu_contact_gap(w, c, &n);
                extra += !(gap < (double)kyu_pair_margin(w, c->a, c->b)) &&
                         !near_margin(gap, (double)kyu_pair_margin(w, c->a, c->b));
            }
            ENSURE(want > 6000); // a crowded scene: most bodies touch something
            ENSURE(ambiguous < want / 100);
            ENSURE(missed == 0);
            ENSURE(extra == 0);
        }
        kyu_world_destroy(w);
    }
    ENSURE(count[0] == count[1]);
    ENSURE(memcmp(found[0], found[1], (size_t)count[0] * sizeof *found[0]) == 0);
    free(found[0]), free(found[1]);
}

// A floor of balls in rows of `along` x `across` (row-major along x when x_first, else along z), at
// rest, stepped once; returns the world (the solver's slabs are those of the step's escape).
static kyu_world *rows_world(int nx, int nz, int x_first) {
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return NULL;
    add_box(w, v3(-100, -1, -100), v3(100, 0, 100), 0.0f, 0.5f, KYU_STATIC, v3(0, 0, 0));
    int outer = x_first ? nz : nx, inner = x_first ? nx : nz;
    for (int o = 0; o < outer; o++)
        for (int i = 0; i < inner; i++) {
            int ix = x_first ? i : o, iz = x_first ? o : i;
            add_still(w, v3(1.1f * (float)ix, 0.5f, 1.1f * (float)iz), 0.5f, 1, ~0u);
        }
    if (kyu_world_step(w) != KYU_OK) {
        kyu_world_destroy(w);
        return NULL;
    }
    return w;
}

// Whether the solver's slab of every body is the same within each line of bodies along x (line
// along x) or z.
static int slabs_constant_along(const kyu_world *w, int nx, int nz, int x_first, int along_x) {
    int outer = along_x ? nz : nx, inner = along_x ? nx : nz;
    for (int o = 0; o < outer; o++)
        for (int i = 1; i < inner; i++) {
            int ix = along_x ? i : o, iz = along_x ? o : i;
            int prev_ix = along_x ? i - 1 : o, prev_iz = along_x ? o : i - 1;
            int slot = x_first ? iz * nx + ix : ix * nz + iz,
                prev = x_first ? prev_iz * nx + prev_ix : prev_ix * nz + prev_iz;
            if (w->solver.slab[slot] != w->solver.slab[prev]) return 0;
        }
    return 1;
}

// The slabs are cut across the horizontal axis along which bodies next in memory (slot order) stay
// in one slab: rows created along x are cut across z, rows created along z across x, as long as
// that axis is at least half as wide as the widest (a square floor); a strip twice as long as wide
// is cut across its length whatever the order.
static void test_solver_slabs_follow_the_bodies_order_in_memory(void) {
    for (int x_first = 0; x_first <= 1; x_first++) {
        kyu_world *w = rows_world(40, 40, x_first);
        ENSURE(w != NULL);
        ENSURE(slabs_constant_along(w, 40, 40, x_first, x_first));   // the rows stay whole
        ENSURE(!slabs_constant_along(w, 40, 40, x_first, !x_first)); // the cut is across them
        kyu_world_destroy(w);
    }
    kyu_world *w = rows_world(90, 30, 1); // a strip along x, created along x: still cut across x
    ENSURE(w != NULL);
    ENSURE(slabs_constant_along(w, 90, 30, 1, 0));
    ENSURE(!slabs_constant_along(w, 90, 30, 1, 1));
    kyu_world_destroy(w);
}

// Two layers of touching balls on a floor, nx x nz a layer (the upper one in the hollows of the
// lower), stepped once; then the solver's domains made anew where the step left them.
static kyu_world *layers_world(int nx, int nz) {
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return NULL;
    add_box(w, v3(-100, -1, -100), v3(100, 0, 100), 0.0f, 0.5f, KYU_STATIC, v3(0, 0, 0));
    for (int ix = 0; ix < nx; ix++)
        for (int iz = 0; iz < nz; iz++) {
            add_still(w, v3((float)ix, 0.5f, (float)iz), 0.5f, 1, ~0u);
            if (ix + 1 < nx && iz + 1 < nz)
                add_still(w, v3((float)ix + 0.5f, 0.5f + 0.7072f, (float)iz + 0.5f), 0.5f, 1, ~0u);
        }
    if (kyu_world_step(w) != KYU_OK || kyu_solver_partition(w) != 0) {
        kyu_world_destroy(w);
        return NULL;
    }
    return w;
}

// The slabs a contact of domain d may join: lo and hi (the same for a slab's own contacts; -1 for
// the far pairs', which join slabs more than one apart).
static void domain_slabs(int d, int *lo, int *hi) {
    if (d < KYU_SOLVE_DOMAINS)
        *lo = *hi = d;
    else if (d < KYU_SOLVE_ROUND_TWO)
        *lo = 2 * (d - KYU_SOLVE_DOMAINS), *hi = *lo + 1;
    else if (d < KYU_SOLVE_FAR)
        *lo = 2 * (d - KYU_SOLVE_ROUND_TWO) + 1, *hi = *lo + 1;
    else
        *lo = *hi = -1;
}

// Checks the domains of w's contacts: each contact in one, joining the slabs its domain says, and
// no body in two domains of one round (the slabs, either round of boundaries), which the workers
// solve at once. Counts each round's contacts into per_round[4].
static void check_domains(const kyu_world *w, int per_round[4]) {
    const solver_state *so = &w->solver;
    ENSURE(so->start[0] == 0 && so->start[KYU_SOLVE_GROUPS] == w->contacts.count);
    int n = w->contacts.count, high = (int)w->bodies.high;
    char *seen = calloc((size_t)n + 1, 1);
    int *owner = malloc(((size_t)high + 1) * sizeof *owner);
    ENSURE(seen && owner);
    const int round[] = {0, KYU_SOLVE_DOMAINS, KYU_SOLVE_ROUND_TWO, KYU_SOLVE_FAR, KYU_SOLVE_GROUPS};
    for (int r = 0; r < 4; r++) {
        per_round[r] = so->start[round[r + 1]] - so->start[round[r]];
        for (int i = 0; i < high; i++) owner[i] = -1;
        for (int d = round[r]; d < round[r + 1]; d++) {
            int lo, hi;
            domain_slabs(d, &lo, &hi);
            for (int k = so->start[d]; k < so->start[d + 1]; k++) {
                int ci = so->order[k];
                ENSURE(ci >= 0 && ci < n && !seen[ci]);
                seen[ci] = 1;
                const contact *c = &w->contacts.list[ci];
                int sa = so->slab[c->a], sb = kyu_is_collider(c->b) ? sa : so->slab[c->b];
                if (lo < 0) {
                    ENSURE(abs(sa - sb) > 1);
                } else {
                    ENSURE((sa == lo || sa == hi) && (sb == lo || sb == hi));
                    ENSURE(lo == hi || sa != sb); // a slab's own pairs are its own
                }
                uint32_t body[2] = {c->a, c->b};
                for (int e = 0; e < (kyu_is_collider(c->b) ? 1 : 2); e++) {
                    ENSURE(owner[body[e]] < 0 || owner[body[e]] == d);
                    owner[body[e]] = d;
                }
            }
        }
    }
    for (int k = 0; k < n; k++) ENSURE(seen[k]);
    free(seen), free(owner);
}

// The solves run the slabs at once, then the pairs across the boundaries between them in two
// rounds of boundaries that share no body, then the pairs across farther slabs: a floor 40 balls
// wide has pairs in both rounds and none far; a floor 4 balls wide, cut in 8 slabs thinner than a
// ball, far pairs.
static void test_the_solver_domains_solved_at_once_share_no_body(void) {
    int per_round[4];
    kyu_world *w = layers_world(40, 40);
    ENSURE(w != NULL);
    check_domains(w, per_round);
    ENSURE(per_round[0] > 1000 && per_round[1] > 100 && per_round[2] > 100 && per_round[3] == 0);
    kyu_world_destroy(w);
    w = layers_world(4, 4);
    ENSURE(w != NULL);
    check_domains(w, per_round);
    ENSURE(per_round[3] > 0 && per_round[1] > 0 && per_round[2] > 0);
    kyu_world_destroy(w);
}

// ---- the colliders' tree (engine/collider_tree.c) ---------------------------------------------

static vec3s rand_in(float half) {
    return v3((float)((2.0 * frand() - 1.0) * half), (float)((2.0 * frand() - 1.0) * half),
              (float)((2.0 * frand() - 1.0) * half));
}

// A random collider: a rotated box, capsule, hull or small mesh, mostly static; some kinematic,
// moving and turning; now and then a plane.
static kyu_status random_collider(kyu_world *w, kyu_collider_id *out) {
    static const vec3s tet[4] = {{{0, 0, 0}}, {{1, 0, 0}}, {{0, 1, 0}}, {{0, 0, 1}}};
    static const int32_t tri[6] = {0, 1, 2, 0, 2, 3};
    kyu_collider_def d = kyu_collider_def_default();
    double u = frand();
    d.type = u < 0.02  ? KYU_SHAPE_PLANE
             : u < 0.5 ? KYU_SHAPE_BOX
             : u < 0.8 ? KYU_SHAPE_CAPSULE
             : u < 0.9 ? KYU_SHAPE_HULL
                       : KYU_SHAPE_MESH;
    d.position = rand_in(50.0f);
    d.rotation = glms_quat_normalize((versors){
        {(float)frand() - 0.5f, (float)frand() - 0.5f, (float)frand() - 0.5f, (float)frand() + 0.1f}});
    float size = (float)pow(10.0, -2.0 + 3.0 * frand()); // 1 cm .. 10 m
    d.half_extents = v3(size, 0.3f * size + 0.01f, 2.0f * size);
    d.capsule_a = v3(-size, 0, 0), d.capsule_b = v3(size, 0, 0), d.radius = 0.2f * size;
    d.points = tet, d.point_count = 4, d.indices = tri, d.triangle_count = 2;
    d.normal = glms_vec3_normalize(rand_in(1.0f));
    if (d.type != KYU_SHAPE_PLANE && frand() < 0.1) {
        d.motion = KYU_KINEMATIC;
        d.velocity = rand_in(5.0f);
        if (frand() < 0.5) d.angular_velocity = rand_in(1.0f);
    }
    return kyu_collider_create(w, &d, out);
}

// What kyu_colliders_near and kyu_colliders_next give for a box, against every collider asked.
static void check_near(const kyu_world *w, const aabb *box, int *met) {
    kyu_collider_near it;
    kyu_colliders_near(&w->colliders, box, &it);
    int c = kyu_colliders_next(&w->colliders, &it);
    for (int i = 0; i < w->colliders.high; i++) {
        if (!w->colliders.list[i].alive || !kyu_collider_touches_box(&w->colliders.list[i], box)) continue;
        ENSURE(c == i);
        c = kyu_colliders_next(&w->colliders, &it);
        (*met)++;
    }
    ENSURE(c == -1);
}

static void check_tree(const kyu_world *w, int *met, int *overflow) {
    ENSURE(w->colliders.tree.built);
    for (int q = 0; q < 5000; q++) {
        aabb box;
        vec3s p = rand_in(60.0f);
        float h = (float)pow(10.0, -3.0 + 4.5 * frand()); // 1 mm .. 30 m
        for (int k = 0; k < 3; k++)
            box.lo[k] = p.raw[k] - h * (float)frand(), box.hi[k] = p.raw[k] + h * (float)frand();
        kyu_collider_near it;
        kyu_colliders_near(&w->colliders, &box, &it);
        *overflow += it.count < 0;
        check_near(w, &box, met);
    }
}

// The tree answers as asking every collider does (the same colliders, in index order), after
// colliders were created, removed and moved; a box meeting more than it lists asks every one.
static void test_the_colliders_tree_gives_what_asking_every_collider_gives(void) {
    lcg = 4242;
    kyu_world_def wd = kyu_world_def_default();
    wd.max_colliders = 4096;
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    kyu_body_def bd = kyu_body_def_default();
    bd.position = v3(0, 500, 0);
    ENSURE(kyu_body_create(w, &bd, NULL) == KYU_OK);
    kyu_collider_id ids[600];
    for (int i = 0; i < 600; i++) ENSURE(random_collider(w, &ids[i]) == KYU_OK);
    int met = 0, overflow = 0;
    ENSURE(kyu_world_step(w) == KYU_OK);
    check_tree(w, &met, &overflow);
    for (int round = 0; round < 4; round++) { // moved alone, removed alone, made alone, all three
        if (round == 1 || round == 3)
            for (int i = 0; i < 600; i += 7 + round)
                if (kyu_collider_is_valid(w, ids[i])) ENSURE(kyu_collider_destroy(w, ids[i]) == KYU_OK);
        if (round == 0 || round == 3)
            for (int i = 3; i < 600; i += 11)
                if (kyu_collider_is_valid(w, ids[i]))
                    ENSURE(kyu_collider_set_transform(w, ids[i], rand_in(50.0f), glms_quat_identity()) ==
                           KYU_OK);
        if (round >= 2)
            for (int i = 0; i < 600; i += 13)
                if (!kyu_collider_is_valid(w, ids[i])) ENSURE(random_collider(w, &ids[i]) == KYU_OK);
        ENSURE(kyu_world_step(w) == KYU_OK);
        check_tree(w, &met, &overflow);
    }
    ENSURE(met > 200000 && overflow > 0 && overflow < 200); // both ways were asked
    kyu_world_destroy(w);
}

// A world of up to 4,096 colliders (`workers` of them, or the default for 0) that builds its
// colliders' tree from `tree_min` static colliders on (1 << 30: never; put back with
// tree_default), and the test's draws started from `seed`.
static kyu_world *tree_world(int tree_min, uint32_t seed, int workers) {
    kyu_collider_tree_min = tree_min;
    lcg = seed;
    kyu_world_def wd = kyu_world_def_default();
    wd.max_colliders = 4096;
    if (workers) wd.worker_count = workers;
    kyu_world *w = NULL;
    return kyu_world_create(&wd, &w) == KYU_OK ? w : NULL;
}

static void tree_default(void) { kyu_collider_tree_min = KYU_COLLIDER_TREE_MIN; }

// A board of pegs (a Galton board: 66 capsules, bins, a kinematic paddle) that balls fall through,
// some pegs moved (and balls made resting on them at once) and one removed on the way: the same
// state with the tree as with every collider asked at every body.
static void peg_board(int tree_min, uint64_t *hash, int *built) {
    kyu_world *w = tree_world(tree_min, 99, 2);
    ENSURE(w != NULL);
    add_box(w, v3(-1, -0.1f, -0.05f), v3(1, 0, 0.05f), 0.3f, 0.5f, KYU_STATIC, v3(0, 0, 0));
    add_box(w, v3(-1, 0, 0.011f), v3(1, 1.2f, 0.05f), 0.3f, 0.5f, KYU_STATIC, v3(0, 0, 0)); // glass
    add_box(w, v3(-1, 0, -0.05f), v3(1, 1.2f, -0.011f), 0.3f, 0.5f, KYU_STATIC, v3(0, 0, 0));
    kyu_collider_id pegs[66];
    int n = 0;
    for (int row = 0; row < 11; row++)
        for (int j = 0; j <= row; j++) {
            kyu_collider_def d = kyu_collider_def_default();
            d.type = KYU_SHAPE_CAPSULE;
            d.position = v3(0.04f * ((float)j - 0.5f * (float)row), 1.0f - 0.035f * (float)row, 0);
            d.capsule_a = v3(0, 0, -0.01f), d.capsule_b = v3(0, 0, 0.01f), d.radius = 0.004f;
            d.restitution = 0.4f;
            ENSURE(kyu_collider_create(w, &d, &pegs[n++]) == KYU_OK);
        }
    for (int b = -6; b <= 6; b++) // bin walls
        add_box(w, v3(0.04f * (float)b - 0.001f, 0, -0.01f), v3(0.04f * (float)b + 0.001f, 0.25f, 0.01f),
                0.3f, 0.5f, KYU_STATIC, v3(0, 0, 0));
    kyu_collider_def paddle = kyu_collider_def_default();
    paddle.type = KYU_SHAPE_BOX, paddle.motion = KYU_KINEMATIC;
    paddle.position = v3(-0.3f, 0.5f, 0), paddle.half_extents = v3(0.05f, 0.005f, 0.01f);
    paddle.velocity = v3(0.2f, 0, 0), paddle.angular_velocity = v3(0, 0, 2.0f);
    ENSURE(kyu_collider_create(w, &paddle, NULL) == KYU_OK);
    for (int step = 0; step < 240; step++) {
        for (int k = 0; k < 2 && step < 150; k++) {
            kyu_body_def bd = kyu_body_def_default();
            bd.radius = 0.006f, bd.mass = 0.002f, bd.restitution = 0.4f;
            bd.position = v3((float)(frand() - 0.5) * 0.02f, 1.06f + 0.015f * (float)k,
                             (float)(frand() - 0.5) * 0.004f);
            ENSURE(kyu_body_create(w, &bd, NULL) == KYU_OK);
        }
        if (step == 80)
            for (int i = 5; i < 66; i += 9)
                ENSURE(kyu_collider_set_transform(w, pegs[i], v3(0.04f * (float)(i % 5) - 0.08f, 0.4f, 0),
                                                  glms_quat_identity()) == KYU_OK);
        for (int i = 5; i < 66 && step == 80; i += 9) { // balls made resting on the moved pegs
            kyu_body_def bd = kyu_body_def_default();
            bd.radius = 0.006f, bd.mass = 0.002f;
            bd.position = v3(0.04f * (float)(i % 5) - 0.08f, 0.4f + 0.00999f, 0);
            ENSURE(kyu_body_create(w, &bd, NULL) == KYU_OK);
        }
        if (step == 120) ENSURE(kyu_collider_destroy(w, pegs[0]) == KYU_OK);
        ENSURE(kyu_world_step(w) == KYU_OK);
        if (step == 200) *built = w->colliders.tree.built;
    }
    *hash = kyu_world_state_hash(w);
    kyu_world_destroy(w);
    tree_default();
}

static void test_a_board_of_pegs_steps_the_same_with_and_without_the_colliders_tree(void) {
    int with = 0, without = 1;
    uint64_t a = 0, b = 1;
    peg_board(KYU_COLLIDER_TREE_MIN, &a, &with);
    peg_board(1 << 30, &b, &without);
    ENSURE(with && !without);
    ENSURE(a == b);
}

// Bodies made touching colliders find them before their first move (kyu_contacts_add_fresh), also
// colliders moved or made since the last step, which the tree of that step did not hold yet.
static void test_new_bodies_find_colliders_moved_or_made_since_the_last_step(void) {
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    kyu_collider_id pegs[40];
    for (int i = 0; i < 40; i++)
        pegs[i] = add_box(w, v3((float)i, 0, 0), v3((float)i + 0.5f, 0.5f, 0.5f), 0.0f, 0.5f, KYU_STATIC,
                          v3(0, 0, 0));
    kyu_body_def bd = kyu_body_def_default();
    bd.position = v3(-50, 10, 0);
    ENSURE(kyu_body_create(w, &bd, NULL) == KYU_OK);
    ENSURE(kyu_world_step(w) == KYU_OK);
    ENSURE(w->colliders.tree.built);
    ENSURE(kyu_collider_set_transform(w, pegs[7], v3(100, 0, 0), glms_quat_identity()) == KYU_OK);
    kyu_collider_id made = add_box(w, v3(200, 0, 0), v3(201, 1, 1), 0.0f, 0.5f, KYU_STATIC, v3(0, 0, 0));
    const vec3s tops[3] = {v3(100, 0.75f, 0), v3(200.5f, 1.5f, 0.5f),
                           v3(3.25f, 1.0f, 0.25f)}; // moved, made, kept
    const kyu_collider_id under[3] = {pegs[7], made, pegs[3]};
    kyu_body_id balls[3];
    for (int k = 0; k < 3; k++) {
        bd.position = glms_vec3_sub(tops[k], v3(0, 0.001f, 0)); // radius 0.5: a millimetre into it
        ENSURE(kyu_body_create(w, &bd, &balls[k]) == KYU_OK);
    }
    ENSURE(kyu_contacts_add_fresh(w) == 0);
    for (int k = 0; k < 3; k++) {
        int found = 0;
        for (int c = 0; c < w->contacts.count; c++)
            found += w->contacts.list[c].a == balls[k].index1 - 1 &&
                     w->contacts.list[c].b == (KYU_COLLIDER_BIT | (under[k].index1 - 1));
        ENSURE(found == 1);
    }
    kyu_world_destroy(w);
}

// Rays and sphere casts among 600 random colliders (moved, removed and made between the casts,
// without a step) hit what they hit when every collider is asked: the nearest hit and every hit.
static void cast_all(kyu_world *w, int seed, kyu_query_hit *nearest, kyu_query_hit *casts, int *counts,
                     kyu_query_hit *all) {
    lcg = (uint32_t)seed;
    for (int q = 0; q < 150; q++) {
        vec3s o = rand_in(60.0f), d = glms_vec3_scale(rand_in(1.0f), (float)pow(10.0, -2.0 + 4.0 * frand()));
        ENSURE(kyu_world_raycast(w, o, d, kyu_query_filter_default(), &nearest[q]) == KYU_OK);
        ENSURE(kyu_world_sphere_cast(w, o, 0.3f, d, kyu_query_filter_default(), &casts[q]) == KYU_OK);
        ENSURE(kyu_world_raycast_all(w, o, d, kyu_query_filter_default(), &all[16 * q], 16, &counts[q]) ==
               KYU_OK);
    }
}

// The same hit in two worlds (whose handles differ in the world's id alone).
static int same_hit(const kyu_query_hit *a, const kyu_query_hit *b) {
    return a->hit == b->hit && a->body.index1 == b->body.index1 && a->body.generation == b->body.generation &&
           a->collider.index1 == b->collider.index1 && a->collider.generation == b->collider.generation &&
           memcmp(&a->point, &b->point, sizeof a->point) == 0 &&
           memcmp(&a->normal, &b->normal, sizeof a->normal) == 0 &&
           memcmp(&a->fraction, &b->fraction, sizeof a->fraction) == 0;
}

static void test_rays_and_casts_hit_with_the_colliders_tree_what_they_hit_without_it(void) {
    static kyu_query_hit hits[2][3][300 * 16];
    static int counts[2][300];
    int hit = 0;
    for (int run = 0; run < 2; run++) {
        kyu_world *w = tree_world(run == 0 ? KYU_COLLIDER_TREE_MIN : 1 << 30, 4243, 0);
        ENSURE(w != NULL);
        kyu_collider_id ids[600];
        for (int i = 0; i < 600; i++) ENSURE(random_collider(w, &ids[i]) == KYU_OK);
        cast_all(w, 1, hits[run][0], hits[run][1], counts[run], hits[run][2]);
        for (int i = 0; i < 600; i += 5) ENSURE(kyu_collider_destroy(w, ids[i]) == KYU_OK);
        for (int i = 1; i < 600; i += 7)
            if (kyu_collider_is_valid(w, ids[i]))
                ENSURE(kyu_collider_set_transform(w, ids[i], rand_in(50.0f), glms_quat_identity()) == KYU_OK);
        for (int i = 0; i < 100; i++) ENSURE(random_collider(w, &ids[i]) == KYU_OK);
        cast_all(w, 2, hits[run][0] + 150, hits[run][1] + 150, counts[run] + 150, hits[run][2] + 16 * 150);
        ENSURE(w->colliders.tree.built == (run == 0));
        kyu_world_destroy(w);
        tree_default();
    }
    for (int q = 0; q < 300; q++) {
        hit += hits[0][0][q].hit + hits[0][1][q].hit;
        ENSURE(same_hit(&hits[0][0][q], &hits[1][0][q]) && same_hit(&hits[0][1][q], &hits[1][1][q]));
        ENSURE(counts[0][q] == counts[1][q]);
        for (int k = 0; k < 16 && k < counts[0][q]; k++)
            ENSURE(same_hit(&hits[0][2][16 * q + k], &hits[1][2][16 * q + k]));
    }
    printf("  %d of 600 rays and casts hit\n", hit);
    ENSURE(hit > 100);
}

// An inserter filling a box among 400 random colliders places the same bodies with the tree as
// with every collider asked, and none of them within its clearance of a collider.
static void fill_among_colliders(int tree_min, uint64_t *hash, int *made, int *built) {
    kyu_world *w = tree_world(tree_min, 777, 0);
    ENSURE(w != NULL);
    for (int i = 0; i < 400; i++) { // boxes and capsules, 2 cm to 2 m, some turned
        kyu_collider_def c = kyu_collider_def_default();
        float size = (float)pow(10.0, -2.0 + 2.0 * frand());
        c.type = i % 2 ? KYU_SHAPE_BOX : KYU_SHAPE_CAPSULE;
        c.position = rand_in(50.0f);
        c.rotation = glms_quat_normalize((versors){{(float)frand(), 0.0f, (float)frand(), 1.0f}});
        c.half_extents = v3(size, 0.5f * size, size);
        c.capsule_a = v3(-size, 0, 0), c.capsule_b = v3(size, 0, 0), c.radius = 0.3f * size;
        ENSURE(kyu_collider_create(w, &c, NULL) == KYU_OK);
    }
    kyu_inserter_def d = kyu_inserter_def_default();
    d.body.radius = 0.5f, d.count = 3000, d.region.half_extents = v3(50, 50, 50), d.seed = 9;
    kyu_inserter *in = NULL;
    ENSURE(kyu_inserter_create(w, &d, &in) == KYU_OK);
    ENSURE(kyu_inserter_run(in, w, 0.0, made) == KYU_OK);
    *built = w->colliders.tree.built;
    const body_store *s = &w->bodies;
    for (int b = 0; b < s->high; b++)
        for (int i = 0; i < w->colliders.high; i++) {
            vec3s n;
            ENSURE(kyu_collider_distance(&w->colliders.list[i], s->pos[b], s->radius[b], 0.0f,
                                         w->def.fixed_dt, &n) >= 0.0f);
        }
    *hash = kyu_world_state_hash(w);
    kyu_inserter_destroy(in);
    kyu_world_destroy(w);
    tree_default();
}

static void test_an_inserter_among_many_colliders_places_the_same_bodies_with_the_tree(void) {
    uint64_t a = 0, b = 1;
    int made_a = 0, made_b = 1, with = 0, without = 1;
    fill_among_colliders(KYU_COLLIDER_TREE_MIN, &a, &made_a, &with);
    fill_among_colliders(1 << 30, &b, &made_b, &without);
    ENSURE(with && !without && made_a > 1000 && made_a == made_b && a == b);
}

// The grid of sleepers (engine/island.c) against asking every sleeper: a box wakes exactly the
// sleepers whose rest box it meets. Lone bodies (each its own island) of three sizes, one giant,
// near the origin and 30 km and 500 km from it (where a float's step, 3 cm, is 1.5% of a cell, more
// than the 1% margin the grid's old width rule leaned on; no case it missed was found), asleep in a
// world without gravity; boxes of every size placed at a sleeper's rest box, their faces on its
// faces, a float's step either side of them or a little apart.
static aabb sleeper_box(const kyu_world *w, uint32_t i) {
    return kyu_box_around(w->bodies.pos[i], w->bodies.radius[i] + kyu_body_margin(w, i));
}

static int by_u32(const void *x, const void *y) {
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

static float nudged(float x, int how) {
    return how == 0 ? x : how == 1 ? nextafterf(x, INFINITY) : how == 2 ? nextafterf(x, -INFINITY) : x;
}

static void test_the_sleep_grid_wakes_every_sleeper_a_box_meets_and_no_other(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = (vec3s){{0.0f, 0.0f, 0.0f}};
    wd.enable_sleep = true;
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    const float origins[3] = {0.0f, 3.0e4f, 5.0e5f};
    int n = 0;
    for (int o = 0; o < 3; o++)
        for (int k = 0; k < 64; k++) {
            kyu_body_def bd = kyu_body_def_default();
            double u = frand();
            bd.radius = u < 0.6 ? 0.5f : u < 0.9 ? 0.05f : u < 0.99 ? 1.5f : 6.0f;
            if (o == 2 && bd.radius < 0.5f) bd.radius = 0.5f; // kept within 2^20 radii of the origin
            // on a lattice 14 m apart, so that no two touch: each sleeps alone
            bd.position = (vec3s){{origins[o] + 14.0f * (float)(k % 4) + (float)frand(),
                                   14.0f * (float)((k / 4) % 4) + (float)frand(),
                                   14.0f * (float)(k / 16) + (float)frand()}};
            kyu_body_id id;
            ENSURE(kyu_body_create(w, &bd, &id) == KYU_OK);
            n++;
        }
    for (int s = 0; s < 600 && kyu_world_sleeping_body_count(w) < n; s++) ENSURE(kyu_world_step(w) == KYU_OK);
    ENSURE(kyu_world_sleeping_body_count(w) == n);
    size_t size = 0;
    ENSURE(kyu_world_save_memory(w, NULL, 0, &size) == KYU_OK);
    void *saved = malloc(size);
    ENSURE(saved != NULL);
    ENSURE(kyu_world_save_memory(w, saved, size, &size) == KYU_OK);
    float cell = w->islands.grid.cell;
    uint32_t want[256], got[256];
    int cases = TEST_LENGTH(4000, 800), met = 0, far_met = 0;
    for (int c = 0; c < cases; c++) {
        ENSURE(kyu_world_load_memory(w, saved, size) == KYU_OK);
        uint32_t j = (uint32_t)(frand() * n);
        aabb r = sleeper_box(w, j), q;
        int edge = (int)(frand() * 3); // the axis on which the box comes to its faces
        for (int k = 0; k < 3; k++) {
            float side = (float)(frand() * frand() * 3.0 * cell);
            int how = k == edge ? (int)(frand() * 3) : frand() < 0.8 ? 3 : 4;
            switch (how) {
            case 0: // meets its high face from above (or just misses it)
                q.lo[k] = nudged(r.hi[k], (int)(frand() * 3)), q.hi[k] = q.lo[k] + side;
                break;
            case 1: // meets its low face from below
                q.hi[k] = nudged(r.lo[k], (int)(frand() * 3)), q.lo[k] = q.hi[k] - side;
                break;
            case 2: // a little apart
                q.lo[k] = r.hi[k] + (float)(frand() * 0.02 * cell), q.hi[k] = q.lo[k] + side;
                break;
            case 3: // across it
                q.lo[k] = r.lo[k] - (float)(frand() * cell), q.hi[k] = r.hi[k] + side;
                break;
            default: // anywhere near it
                q.lo[k] = r.lo[k] + (float)((frand() - 0.5) * 2.0 * cell), q.hi[k] = q.lo[k] + side;
            }
        }
        int nw = 0;
        for (int i = 0; i < w->bodies.high; i++) {
            aabb b = sleeper_box(w, (uint32_t)i);
            if (kyu_boxes_overlap(&q, &b)) want[nw++] = (uint32_t)i;
        }
        int before = w->islands.woken_bodies_count;
        int woke = kyu_islands_wake_box(w, &q);
        ENSURE(woke == nw);
        for (int k = 0; k < woke; k++) got[k] = w->islands.woken_bodies[before + k];
        qsort(got, (size_t)woke, sizeof *got, by_u32);
        for (int k = 0; k < nw; k++) ENSURE(got[k] == want[k]);
        met += nw > 0;
        far_met += nw > 0 && w->bodies.pos[j].x > 1e5f;
    }
    ENSURE(met > cases / 4);      // the cases meet sleepers often (1,454 of 4,000),
    ENSURE(far_met > cases / 20); // far from the origin too (518)
    free(saved);
    kyu_world_destroy(w);
}

void suite_grid(void) {
    RUN_TEST(test_cell_of_is_floor_on_random_and_edge_values);
    RUN_TEST(test_cell_of_is_monotonic_and_cells_are_a_cell_wide);
    RUN_TEST(test_a_ball_bouncing_many_times_in_one_cell_takes_one_late_entry);
    RUN_TEST(test_sparse_pairs_match_brute_force);
    RUN_TEST(test_crowded_cell_pairs_match_brute_force);
    RUN_TEST(test_a_bed_of_mixed_sizes_pairs_match_brute_force);
    RUN_TEST(test_balls_among_beads_asked_by_the_beads_pairs_match_brute_force);
    RUN_TEST(test_sizes_far_apart_pairs_match_brute_force);
    RUN_TEST(test_one_ball_far_from_a_pile_leaves_the_cell_alone);
    RUN_TEST(test_balls_far_from_a_pile_leave_the_grid_dense_pairs_match_brute_force);
    RUN_TEST(test_fresh_contacts_match_brute_force_for_any_worker_count);
    RUN_TEST(test_solver_slabs_follow_the_bodies_order_in_memory);
    RUN_TEST(test_the_solver_domains_solved_at_once_share_no_body);
    RUN_TEST(test_the_colliders_tree_gives_what_asking_every_collider_gives);
    RUN_TEST(test_a_board_of_pegs_steps_the_same_with_and_without_the_colliders_tree);
    RUN_TEST(test_new_bodies_find_colliders_moved_or_made_since_the_last_step);
    RUN_TEST(test_rays_and_casts_hit_with_the_colliders_tree_what_they_hit_without_it);
    RUN_TEST(test_an_inserter_among_many_colliders_places_the_same_bodies_with_the_tree);
    RUN_TEST(test_the_sleep_grid_wakes_every_sleeper_a_box_meets_and_no_other);
}
