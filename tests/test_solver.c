// SPDX-License-Identifier: MIT
// The contact solve: four rows at a time (engine/solver_wide.c) give the row by row answer to the
// bit, whatever the rows hold.
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

void suite_solver(void) { RUN_TEST(test_four_rows_at_a_time_give_the_row_by_row_answer); }
