// SPDX-License-Identifier: MIT
// The broadphase grid's own arithmetic, white box (engine/internal.h): the cell of a coordinate
// against floor in long double, and the late entries of a body that bounces many times in a step.
#include <math.h>
#include <stdint.h>

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
    const float edges[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.0f, -2.0f, 1048575.0f, -1048575.0f, 1048576.0f,
                           -1048576.0f, 3e9f, -3e9f, 1e-30f, -1e-30f, -0x1p-34f, -0x1p-33f, -0x1p-32f,
                           -0x1p-35f, 0.5f, -0.5f, 12345.0f, -12345.0f, 1e-9f, -1e-9f};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        float e = edges[i];
        const float probes[] = {e, nextafterf(e, INFINITY), nextafterf(e, -INFINITY)};
        for (int k = 0; k < 3; k++) ENSURE(kyu_cell_of(probes[k], 1.0f) == expected_cell(probes[k], 1.0f));
    }
    ENSURE(kyu_cell_of(-1e-30f, 1.0f) == 0);                          // the documented exception
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
        ENSURE(st.impacts >= 8);            // it really bounced many times this step
        ENSURE(w->grid.late_count <= 2);    // one entry (a box that straddles a cell edge: two)
    }
    vec3s p;
    ENSURE(kyu_body_get_position(w, id, &p) == KYU_OK);
    ENSURE(fabsf(p.x) <= 0.011f); // never through a wall
    kyu_world_destroy(w);
}

void suite_grid(void) {
    RUN_TEST(test_cell_of_is_floor_on_random_and_edge_values);
    RUN_TEST(test_cell_of_is_monotonic_and_cells_are_a_cell_wide);
    RUN_TEST(test_a_ball_bouncing_many_times_in_one_cell_takes_one_late_entry);
}
