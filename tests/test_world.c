// SPDX-License-Identifier: MIT
// The world (include/kyu/world.h, engine/world.c): its def and gravity validated, the
// fixed-timestep loop of kyu_world_update (steps per frame, alpha, interpolation), and a state hash
// that is the same for the same world. Which status a NaN or infinite value gets follows the rule
// at the top of contract.h.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "contract.h"

// ---- Settings: the world def and gravity --------------------------------------------------------

static void test_invalid_world_def_is_rejected_with_null_out(void) {
    struct {
        const char *what;
        kyu_world_def d;
        kyu_status want;
    } cases[32];
    int n = 0;
    // NaN / inf in a float field: KYU_ERR_NOT_FINITE (the rule at the top); a finite value out of
    // range: KYU_ERR_INVALID_ARGUMENT.
#define WORLD_CASE(edit, code)                                                                               \
    do {                                                                                                     \
        cases[n].what = #edit;                                                                               \
        cases[n].want = (code);                                                                              \
        cases[n].d = kyu_world_def_default();                                                                \
        kyu_world_def *wd = &cases[n].d;                                                                     \
        edit;                                                                                                \
        n++;                                                                                                 \
    } while (0)
    WORLD_CASE(wd->fixed_dt = 0.0f, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->fixed_dt = -1.0f / 60.0f, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->fixed_dt = NAN, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->fixed_dt = INFINITY, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->max_steps_per_update = 0, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->max_steps_per_update = -1, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->worker_count = 0, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->worker_count = -3, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE((wd->linear_slop = 0.002f, wd->contact_margin = 0.001f), KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->contact_margin = NAN, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->linear_slop = -0.001f, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->linear_slop = NAN, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->restitution_threshold = -1.0f, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->restitution_threshold = NAN, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->solver_iterations = -1, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->max_events_per_step = -1, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->body_capacity = -1, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->max_bodies = 0, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->max_colliders = 0, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->cell_size = -1.0f, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->cell_size = NAN, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->gravity.y = NAN, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->gravity.x = INFINITY, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->gravity.z = 1.5e9f, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->fixed_dt = 11.0f, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->max_bodies = (1 << 30) + 1, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->internal_cookie = 0, KYU_ERR_INVALID_DEF);
#undef WORLD_CASE
    int sentinel;
    for (int i = 0; i < n; i++) {
        kyu_world *out = (kyu_world *)(void *)&sentinel; // must be overwritten with NULL
        kyu_status st = kyu_world_create(&cases[i].d, &out);
        if (st != cases[i].want || out != NULL) {
            char msg[256];
            snprintf(msg, sizeof msg, "world def %s: returned %s (expected %s), *out %s", cases[i].what,
                     status_name(st), status_name(cases[i].want), out ? "not NULL" : "NULL");
            test_fail(__FILE__, __LINE__, msg);
        }
        if (st == KYU_OK && out != (kyu_world *)(void *)&sentinel) kyu_world_destroy(out);
    }
    // A def that did not come from kyu_world_def_default() names its own code.
    kyu_world_def zero;
    memset(&zero, 0, sizeof zero);
    kyu_world *out = (kyu_world *)(void *)&sentinel;
    EXPECT_STATUS(kyu_world_create(&zero, &out), KYU_ERR_INVALID_DEF);
    EXPECT(out == NULL);
    out = (kyu_world *)(void *)&sentinel;
    EXPECT_STATUS(kyu_world_create(NULL, &out), KYU_ERR_NULL);
    EXPECT(out == NULL);
    kyu_world_def ok = kyu_world_def_default();
    EXPECT_STATUS(kyu_world_create(&ok, NULL), KYU_ERR_NULL);
    // The boundary contact_margin == linear_slop is legal.
    ok.linear_slop = 0.002f;
    ok.contact_margin = ok.linear_slop;
    out = NULL;
    EXPECT_STATUS(kyu_world_create(&ok, &out), KYU_OK);
    EXPECT(out != NULL);
    kyu_world_destroy(out);
}

static void test_nonfinite_gravity_is_rejected_and_old_gravity_kept(void) {
    kyu_world *w = make_world(v3(0, -10, 0));
    ENSURE(w);
    kyu_body_id b = add_body(w, v3(0, 0, 0), v3(0, 0, 0));
    ENSURE(kyu_body_is_valid(w, b));
    char what[64];
    for (int axis = 0; axis < 3; axis++) {
        for (int k = 0; k < NONFINITE_COUNT; k++) {
            vec3s g = v3(0, -10, 0);
            g.raw[axis] = nonfinite_values[k];
            snprintf(what, sizeof what, "set_gravity axis %d = %s", axis, nonfinite_names[k]);
            REJECTS(w, KYU_ERR_NOT_FINITE, "gravity", what, kyu_world_set_gravity(w, g));
        }
    }
    // Gravity is not in the state hash: check it through its effect on one step.
    ENSURE(kyu_world_step(w) == KYU_OK);
    vec3s v;
    ENSURE(kyu_body_get_velocity(w, b, &v) == KYU_OK);
    float dt = kyu_world_def_default().fixed_dt;
    EXPECT(finite3(v));
    ENSURE_NEAR(v.y, -10.0f * dt, 1e-6);
    ENSURE_NEAR(v.x, 0.0f, 0.0);
    kyu_world_destroy(w);
}

// ---- The fixed-timestep loop --------------------------------------------------------------------

static void test_invalid_frame_time_is_rejected(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    kyu_body_id b = add_body(w, v3(0, 0, 0), v3(1, 0, 0));
    ENSURE(kyu_body_is_valid(w, b));
    float dt = kyu_world_def_default().fixed_dt;
    int steps = -1;
    ENSURE(kyu_world_update(w, dt * 0.5f, &steps) == KYU_OK && steps == 0); // alpha 0.5, not 0
    const struct {
        float t;
        kyu_status want;
        const char *name;
    } cases[] = {
        {-dt, KYU_ERR_INVALID_ARGUMENT, "-1/60"}, {-1e-30f, KYU_ERR_INVALID_ARGUMENT, "-1e-30"},
        {NAN, KYU_ERR_NOT_FINITE, "nan"},         {INFINITY, KYU_ERR_NOT_FINITE, "+inf"},
        {-INFINITY, KYU_ERR_NOT_FINITE, "-inf"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "kyu_world_update(%s)", cases[i].name);
        steps = 7;
        REJECTS(w, cases[i].want, "frame", what, kyu_world_update(w, cases[i].t, &steps));
        EXPECT(steps == 0);
    }
    // The accumulator was left alone: half a step more completes exactly one step.
    ENSURE(kyu_world_update(w, dt * 0.5f, &steps) == KYU_OK);
    EXPECT(steps == 1);
    kyu_world_destroy(w);
}

static void test_update_at_fixed_dt_runs_exactly_one_step(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    kyu_body_id b = add_body(w, v3(0, 0, 0), v3(1, 0, 0));
    float dt = kyu_world_def_default().fixed_dt;
    for (int frame = 0; frame < 600; frame++) {
        int steps = -1;
        ENSURE(kyu_world_update(w, dt, &steps) == KYU_OK);
        ENSURE(steps == 1);
        ENSURE(kyu_world_alpha(w) >= 0.0f && kyu_world_alpha(w) < 1e-3f);
    }
    // 600 steps at 1 m/s: the body really moved 600 steps' worth.
    vec3s p;
    ENSURE(kyu_body_get_position(w, b, &p) == KYU_OK);
    ENSURE_NEAR(p.x, 600.0 * dt, 1e-3);
    kyu_world_destroy(w);
}

static void test_update_at_half_dt_alternates_zero_and_one_step(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    add_body(w, v3(0, 0, 0), v3(1, 0, 0));
    float half = kyu_world_def_default().fixed_dt * 0.5f;
    for (int frame = 0; frame < 240; frame++) {
        int steps = -1;
        ENSURE(kyu_world_update(w, half, &steps) == KYU_OK);
        if (frame % 2 == 0) {
            ENSURE(steps == 0);
            ENSURE_NEAR(kyu_world_alpha(w), 0.5, 1e-4);
        } else {
            ENSURE(steps == 1);
            ENSURE(kyu_world_alpha(w) >= 0.0f && kyu_world_alpha(w) < 1e-4f);
        }
    }
    kyu_world_destroy(w);
}

static void test_long_frame_is_capped_at_max_steps_per_update(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = v3(0, 0, 0);
    kyu_world *w = make_world_with(wd);
    ENSURE(w);
    kyu_body_id b = add_body(w, v3(0, 0, 0), v3(1, 0, 0));
    int steps = -1;
    ENSURE(kyu_world_update(w, 10.0f, &steps) == KYU_OK);
    EXPECT(steps == wd.max_steps_per_update);
    float a = kyu_world_alpha(w);
    EXPECT(a >= 0.0f && a < 1.0f);
    // steps_run tells the truth: the body moved exactly that many steps.
    vec3s p;
    ENSURE(kyu_body_get_position(w, b, &p) == KYU_OK);
    ENSURE_NEAR(p.x, steps * (double)wd.fixed_dt, 1e-5);
    // The dropped time is really dropped: the next normal frame runs one step, not a backlog.
    ENSURE(kyu_world_update(w, wd.fixed_dt, &steps) == KYU_OK);
    EXPECT(steps == 1);
    kyu_world_destroy(w);

    wd.max_steps_per_update = 3;
    w = make_world_with(wd);
    ENSURE(w);
    ENSURE(kyu_world_update(w, 10.0f, &steps) == KYU_OK);
    EXPECT(steps == 3);
    a = kyu_world_alpha(w);
    EXPECT(a >= 0.0f && a < 1.0f);
    kyu_world_destroy(w);
}

static void test_interpolated_position_lies_between_last_two_steps_by_alpha(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    kyu_body_id b = add_body(w, v3(1, 2, 3), v3(3, -1, 0.5f));
    float dt = kyu_world_def_default().fixed_dt;
    int steps;
    ENSURE(kyu_world_update(w, dt, &steps) == KYU_OK && steps == 1);
    // Frames of uneven length (in steps); check after each one that ran a step.
    const float frames[] = {1.25f, 0.5f, 2.75f, 0.25f, 1.0f, 1.5f};
    for (size_t f = 0; f < sizeof frames / sizeof frames[0]; f++) {
        vec3s after, interp;
        ENSURE(kyu_world_update(w, frames[f] * dt, &steps) == KYU_OK);
        if (steps == 0) continue;
        ENSURE(kyu_body_get_position(w, b, &after) == KYU_OK);
        ENSURE(kyu_body_get_interpolated_position(w, b, &interp) == KYU_OK);
        float a = kyu_world_alpha(w);
        ENSURE(a >= 0.0f && a < 1.0f);
        // The segment of the last step: it ends at `after` and is one step of constant velocity long.
        vec3s last = v3(after.x - 3 * dt, after.y + dt, after.z - 0.5f * dt);
        for (int k = 0; k < 3; k++)
            ENSURE_NEAR(interp.raw[k], last.raw[k] + a * (after.raw[k] - last.raw[k]), 1e-5);
    }
    // A frame of 1.5 steps on an empty accumulator: one step, alpha 0.5, drawn halfway along it.
    kyu_world_destroy(w);
    w = make_world(v3(0, 0, 0));
    ENSURE(w);
    b = add_body(w, v3(0, 0, 0), v3(6, 0, 0));
    ENSURE(kyu_world_update(w, dt * 1.5f, &steps) == KYU_OK && steps == 1);
    ENSURE_NEAR(kyu_world_alpha(w), 0.5, 1e-5);
    vec3s interp;
    ENSURE(kyu_body_get_interpolated_position(w, b, &interp) == KYU_OK);
    ENSURE_NEAR(interp.x, 3.0 * dt, 1e-6);
    kyu_world_destroy(w);
}

static void test_set_position_leaves_no_interpolation_smear(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    kyu_body_id b = add_body(w, v3(0, 0, 0), v3(5, 0, 0));
    float dt = kyu_world_def_default().fixed_dt;
    int steps;
    ENSURE(kyu_world_update(w, dt, &steps) == KYU_OK && steps == 1);
    ENSURE(kyu_world_alpha(w) == 0.0f);
    ENSURE(kyu_body_set_position(w, b, v3(100, 7, -3)) == KYU_OK);
    vec3s interp;
    ENSURE(kyu_body_get_interpolated_position(w, b, &interp) == KYU_OK);
    EXPECT(same3(interp, v3(100, 7, -3)));
    // The header promises no smear at all, so also mid-step (alpha 0.5).
    ENSURE(kyu_world_update(w, dt * 0.5f, &steps) == KYU_OK && steps == 0);
    ENSURE(kyu_body_set_position(w, b, v3(-50, 1, 2)) == KYU_OK);
    ENSURE(kyu_body_get_interpolated_position(w, b, &interp) == KYU_OK);
    EXPECT(same3(interp, v3(-50, 1, 2)));
    kyu_world_destroy(w);
}

// ---- Determinism --------------------------------------------------------------------------------

// 200 balls dropped into an open box of 5 static boxes; `nudge` moves ball 100 by that much in x.
static kyu_world *build_pile(float nudge) {
    kyu_world *w = make_world(v3(0, -9.81f, 0));
    if (!w) return NULL;
    const kyu_collider_def walls[5] = {
        box_def(v3(0, -0.5f, 0), v3(3.5f, 0.5f, 3.5f), KYU_STATIC), // floor
        box_def(v3(-3.5f, 3.5f, 0), v3(0.5f, 4, 3.5f), KYU_STATIC), // -x wall
        box_def(v3(3.5f, 3.5f, 0), v3(0.5f, 4, 3.5f), KYU_STATIC),  // +x wall
        box_def(v3(0, 3.5f, -3.5f), v3(3.5f, 4, 0.5f), KYU_STATIC), // -z wall
        box_def(v3(0, 3.5f, 3.5f), v3(3.5f, 4, 0.5f), KYU_STATIC),  // +z wall
    };
    for (int i = 0; i < 5; i++)
        if (kyu_collider_create(w, &walls[i], NULL) != KYU_OK) {
            kyu_world_destroy(w);
            return NULL;
        }
    rng g = {20240601};
    for (int i = 0; i < 200; i++) {
        kyu_body_def d = kyu_body_def_default();
        int layer = i / 49, row = i % 49 / 7, col = i % 7;
        d.position = v3(-2.25f + 0.75f * (float)col + rng_float(&g, -0.05f, 0.05f),
                        1.0f + 0.75f * (float)layer + rng_float(&g, -0.05f, 0.05f),
                        -2.25f + 0.75f * (float)row + rng_float(&g, -0.05f, 0.05f));
        if (i == 100) d.position.x += nudge;
        d.velocity = v3(rng_float(&g, -1, 1), rng_float(&g, -1, 1), rng_float(&g, -1, 1));
        d.radius = 0.25f;
        d.restitution = rng_float(&g, 0, 0.5f);
        if (kyu_body_create(w, &d, NULL) != KYU_OK) {
            kyu_world_destroy(w);
            return NULL;
        }
    }
    return w;
}

static void test_identical_worlds_end_with_identical_state_hash(void) {
    kyu_world *a = build_pile(0.0f), *b = build_pile(0.0f), *c = build_pile(1e-6f);
    ENSURE(a && b && c);
    uint64_t start = kyu_world_state_hash(a);
    EXPECT(kyu_world_state_hash(b) == start);
    EXPECT(kyu_world_state_hash(c) != start); // the nudge is representable at x ~ 0.8
    for (int s = 0; s < 300; s++) {
        ENSURE(kyu_world_step(a) == KYU_OK);
        ENSURE(kyu_world_step(b) == KYU_OK);
        ENSURE(kyu_world_step(c) == KYU_OK);
    }
    EXPECT(kyu_world_state_hash(a) != start); // the pile really moved
    EXPECT(kyu_world_state_hash(a) == kyu_world_state_hash(b));
    EXPECT(kyu_world_state_hash(a) != kyu_world_state_hash(c));
    EXPECT(kyu_world_body_count(a) == 200 && kyu_world_body_count(c) == 200);
    kyu_world_destroy(a);
    kyu_world_destroy(b);
    kyu_world_destroy(c);
}

void suite_world(void) {
    RUN_TEST(test_invalid_world_def_is_rejected_with_null_out);
    RUN_TEST(test_nonfinite_gravity_is_rejected_and_old_gravity_kept);
    RUN_TEST(test_invalid_frame_time_is_rejected);
    RUN_TEST(test_update_at_fixed_dt_runs_exactly_one_step);
    RUN_TEST(test_update_at_half_dt_alternates_zero_and_one_step);
    RUN_TEST(test_long_frame_is_capped_at_max_steps_per_update);
    RUN_TEST(test_interpolated_position_lies_between_last_two_steps_by_alpha);
    RUN_TEST(test_set_position_leaves_no_interpolation_smear);
    RUN_TEST(test_identical_worlds_end_with_identical_state_hash);
}
