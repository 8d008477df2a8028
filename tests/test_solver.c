// SPDX-License-Identifier: MIT
// The contact solve: four rows at a time (engine/solver_wide.c) give the row by row answer to the
// bit, whatever the rows hold.
#include <string.h>

#include "../engine/internal.h"
#include "test.h"

static uint32_t lcg;
static float frand(void) {
    lcg = lcg * 1664525u + 1013904223u;
    return (float)(lcg >> 8) * (1.0f / 16777216.0f);
}

// A bed that gives the solve every kind of row: beads of 6 mm to 2 cm (masses 1:37, so some rows
// are not over-relaxed; the smallest take extra passes), a third of fixed rotation, a third with
// rolling resistance (its bound binds), some without friction, a few sensors, static walls, a
// conveyor strip and a kinematic paddle that turns and slides through the bed. `steps` steps; the state hash,
// and whether the solve ran in batches.
static uint64_t bed_hash(int row_by_row, int workers, int steps, int *batched) {
    lcg = 99;
    kyu_world_def wd = kyu_world_def_default();
    wd.worker_count = workers;
    wd.yield_when_busy = false;
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return 0;
    w->solver.row_by_row = row_by_row;
    const float L = 0.25f;
    add_box(w, v3(-L, -0.05f, -L), v3(L, 0, L), 0.3f, 0.6f, KYU_STATIC, v3(0, 0, 0));
    add_box(w, v3(-L, 0, -L), v3(-L / 2, 1, L), 0.3f, 0.6f, KYU_STATIC, v3(0, 0, 0));
    add_box(w, v3(L / 2, 0, -L), v3(L, 1, L), 0.3f, 0.0f, KYU_STATIC, v3(0, 0, 0));
    add_box(w, v3(-L / 2, 0, -L), v3(L / 2, 1, -L / 2), 0.3f, 0.6f, KYU_STATIC, v3(0, 0, 0));
    add_box(w, v3(-L / 2, 0, L / 2), v3(L / 2, 1, L), 0.3f, 0.6f, KYU_STATIC, v3(0, 0, 0));
    kyu_collider_def paddle = kyu_collider_def_default();
    paddle.type = KYU_SHAPE_BOX, paddle.motion = KYU_KINEMATIC;
    paddle.position = v3(0, 0.03f, 0), paddle.half_extents = v3(0.08f, 0.01f, 0.01f);
    paddle.velocity = v3(0.02f, 0, 0), paddle.angular_velocity = v3(0, 3, 0), paddle.friction = 0.8f;
    kyu_collider_def belt = kyu_collider_def_default();
    belt.type = KYU_SHAPE_BOX, belt.surface_velocity = v3(0, 0, 0.1f);
    belt.position = v3(-0.1f, 0.005f, 0), belt.half_extents = v3(0.02f, 0.005f, 0.1f);
    if (kyu_collider_create(w, &paddle, NULL) != KYU_OK || kyu_collider_create(w, &belt, NULL) != KYU_OK)
        return kyu_world_destroy(w), 0;
    kyu_body_def bd = kyu_body_def_default();
    for (int i = 0; i < 1200; i++) {
        bd.radius = 0.003f + 0.007f * frand();
        bd.mass = 2500.0f * 4.18879f * bd.radius * bd.radius * bd.radius;
        bd.fixed_rotation = i % 3 == 0;
        bd.rolling_resistance = i % 3 == 1 ? 0.4f : 0.0f;
        bd.friction = i % 7 == 0 ? 0.0f : 0.5f;
        bd.restitution = 0.3f;
        bd.is_sensor = i % 100 == 0;
        bd.position =
            v3((frand() - 0.5f) * (L - 0.02f), 0.02f + 0.6f * frand(), (frand() - 0.5f) * (L - 0.02f));
        bd.velocity = v3(frand() - 0.5f, 0, frand() - 0.5f);
        if (kyu_body_create(w, &bd, NULL) != KYU_OK) return kyu_world_destroy(w), 0;
    }
    *batched = 0;
    for (int i = 0; i < steps; i++) {
        if (kyu_world_step(w) != KYU_OK) return kyu_world_destroy(w), 0;
        *batched |= w->solver.batch_cap > 0;
    }
    uint64_t h = kyu_world_state_hash(w);
    kyu_world_destroy(w);
    return h;
}

static void test_four_rows_at_a_time_give_the_row_by_row_answer(void) {
    int steps = TEST_LENGTH(240, 90), batched[2];
    uint64_t rows = bed_hash(1, 1, steps, &batched[0]), wide = bed_hash(0, 3, steps, &batched[1]);
    ENSURE(rows != 0);
    ENSURE(!batched[0] && batched[1] == KYU_WIDE_SOLVE);
    ENSURE(wide == rows);
}

// ---- the batch kernel against kyu_row_solve, row by row, on random rows --------------------------

// A random float from a small set of edge values (both zeros among them) or a range.
static float pick(float lo, float hi) {
    static const float edge[] = {0.0f, -0.0f, 1.0f, -1.0f, 1e-30f, -1e-30f};
    float u = frand();
    if (u < 0.15f) return edge[(int)(frand() * 6.0f) % 6];
    return lo + (hi - lo) * frand();
}

static kyu_f3 unit(void) {
    float x = pick(-1, 1), y = pick(-1, 1), z = pick(-1, 1), len = sqrtf(x * x + y * y + z * z);
    if (!(len > 1e-3f)) return (kyu_f3){0.0f, 1.0f, 0.0f};
    return (kyu_f3){x / len, y / len, z / len};
}

static kyu_f3 f3(float scale) {
    return (kyu_f3){pick(-scale, scale), pick(-scale, scale), pick(-scale, scale)};
}

// Random rows over BODIES bodies (a static side for a quarter, spin terms for most, sometimes no
// friction, no rolling or no twisting bound, some sliding, some not held) and random bodies.
enum { BODIES = 48, ROWS = 240 };
static void random_rows(solver_body *sb, solver_row *rows) {
    for (int i = 0; i < BODIES; i++) {
        sb[i].v = f3(2.0f), sb[i].w = f3(5.0f);
        sb[i].im = frand() < 0.1f ? 0.0f : 0.1f + 2.0f * frand(); // a kinematic body has no inverse mass
        sb[i].ii = frand() < 0.3f ? 0.0f : 1.0f + 50.0f * frand();
    }
    for (int k = 0; k < ROWS; k++) {
        solver_row *r = &rows[k];
        memset(r, 0, sizeof *r);
        r->a = (uint32_t)(frand() * BODIES) % BODIES;
        r->b = frand() < 0.25f ? KYU_ROW_STATIC : (r->a + 1 + (uint32_t)(frand() * (BODIES - 1))) % BODIES;
        r->flags = frand() < 0.05f ? ROW_SENSOR : ROW_HELD;
        if (frand() < 0.8f) r->flags |= ROW_SPINS;
        if (frand() < 0.3f) r->flags |= ROW_PLAIN;
        r->n = unit();
        r->kn = 0.1f + frand(), r->kt = 0.05f + frand(),
        r->ki = (r->flags & ROW_SPINS) ? pick(0.0f, 0.5f) : 0.0f;
        r->ra = (r->flags & ROW_SPINS) ? pick(0.0f, 0.5f) : 0.0f;
        r->rb = (r->flags & ROW_SPINS) && r->b != KYU_ROW_STATIC ? pick(0.0f, 0.5f) : 0.0f;
        r->mu = frand() < 0.2f ? 0.0f : pick(0.0f, 1.0f);
        r->roll = frand() < 0.5f ? 0.0f : pick(0.0f, 0.2f),
        r->twist = frand() < 0.2f ? 0.0f : pick(0.0f, 0.2f);
        r->target = pick(-0.5f, 0.5f), r->jn = frand() < 0.3f ? pick(0.0f, 0.0f) : pick(0.0f, 3.0f);
        r->jt = f3(1.0f), r->jr = frand() < 0.4f ? (kyu_f3){0.0f, -0.0f, 0.0f} : f3(0.3f);
        if (r->b == KYU_ROW_STATIC) r->vb = f3(1.0f), r->wb = f3(3.0f);
    }
}

// The rows' impulses and the bodies' velocities, bit for bit.
static int same_bits(const solver_body *x, const solver_body *y, const solver_row *rx, const solver_row *ry) {
    return memcmp(x, y, BODIES * sizeof *x) == 0 && memcmp(rx, ry, ROWS * sizeof *rx) == 0;
}

typedef struct closings {
    int count, row[ROWS];
    float closing[ROWS];
    const solver_row *first;
} closings;

static int note_closing(void *ctx, const solver_row *r, float closing) {
    closings *c = ctx;
    c->row[c->count] = (int)(r - c->first), c->closing[c->count++] = closing;
    return 0; // never open: every closing row is seen
}

// Thousands of random rows, three passes each way: the same bodies, impulses and closing speeds.
static void test_a_batch_of_four_solves_random_rows_as_kyu_row_solve_does(void) {
    if (!KYU_WIDE_SOLVE) return; // nothing to compare: this build solves one at a time
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    solver_state *so = &w->solver;
    static solver_body sb[BODIES], sb_rows[BODIES];
    static solver_row rows[ROWS], rows_one[ROWS];
    lcg = 4242;
    int saved_high = w->bodies.high, saved_count = w->contacts.count, failed = 0, closing_rows = 0;
    w->bodies.high = BODIES, w->contacts.count = ROWS;
    for (int trial = 0; trial < 200 && !failed; trial++) {
        random_rows(sb, rows);
        memcpy(sb_rows, sb, sizeof sb), memcpy(rows_one, rows, sizeof rows);
        closings one = {.first = rows_one}, four = {0};
        for (int pass = 0; pass < 3; pass++)
            for (int k = 0; k < ROWS; k++) {
                solver_row *r = &rows_one[k];
                if (!(r->flags & ROW_HELD)) continue;
                float c = kyu_row_solve(sb_rows, r, r->target,
                                        (r->flags & ROW_PLAIN) ? 1.0f : KYU_SOLVE_OMEGA, 1, 1);
                if (pass == 2 && c > 0.0f) one.row[one.count] = k, one.closing[one.count++] = c;
            }
        if (RESERVE(so->row, so->row_cap, ROWS) || RESERVE(so->body, so->body_cap, BODIES)) failed = 1;
        if (failed) break;
        memcpy(so->body, sb, sizeof sb), memcpy(so->row, rows, sizeof rows);
        four.first = so->row;
        // Every row in domain 2 (the others empty), and the spinning count prepare reads.
        for (int d = 0; d <= KYU_SOLVE_GROUPS; d++) so->start[d] = d <= 2 ? 0 : ROWS;
        for (int d = 0; d < KYU_SOLVE_GROUPS; d++) so->spinning[d] = d == 2 ? ROWS : 0;
        if (kyu_wide_prepare(w) || !so->batches) failed = 2;
        for (int pass = 0; pass < 3 && !failed; pass++)
            for (int d = 0; d < KYU_SOLVE_GROUPS; d++)
                kyu_wide_pass(w, d, pass == 2 ? note_closing : NULL, &four);
        kyu_wide_finish(w);
        if (!failed && !same_bits(sb_rows, so->body, rows_one, so->row)) failed = 3;
        // The batches report closing rows in batch order: as a set, the same rows and speeds.
        if (!failed && four.count != one.count) failed = 4;
        for (int i = 0; i < one.count && !failed; i++) {
            int found = 0;
            for (int j = 0; j < four.count; j++)
                found |= four.row[j] == one.row[i] &&
                         memcmp(&four.closing[j], &one.closing[i], sizeof(float)) == 0;
            if (!found) failed = 5;
        }
        closing_rows += one.count;
    }
    w->bodies.high = saved_high, w->contacts.count = saved_count;
    kyu_world_destroy(w);
    ENSURE_NEAR(failed, 0, 0);
    ENSURE(closing_rows > 0); // the closing speeds were compared
}

void suite_solver(void) {
    RUN_TEST(test_four_rows_at_a_time_give_the_row_by_row_answer);
    RUN_TEST(test_a_batch_of_four_solves_random_rows_as_kyu_row_solve_does);
}
