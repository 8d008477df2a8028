// SPDX-License-Identifier: MIT
// Forces and torques (include/kyu/world.h: kyu_body_apply_force, _at_point, kyu_body_apply_torque):
// summed until the next step, integrated over it as gravity is (free flight on the exact parabola
// of the whole acceleration, which the sweeps see; a held body carries its force into the contact
// solve), cleared after kyu_world_step and after kyu_world_update; refused, with the world
// unchanged, when not finite or beyond the limits; kept by snapshots, whose loader checks them.
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"

static kyu_body_id add_ball(kyu_world *w, vec3s p, float radius, float mass) {
    kyu_body_def bd = kyu_body_def_default();
    bd.position = p, bd.radius = radius, bd.mass = mass;
    kyu_body_id id = KYU_NULL_BODY;
    kyu_body_create(w, &bd, &id);
    return id;
}

static vec3s spin_of(kyu_world *w, kyu_body_id b) {
    vec3s a = {{NAN, NAN, NAN}};
    kyu_body_get_angular_velocity(w, b, &a);
    return a;
}

// A constant force F on a free body of mass m: v = F t / m and x = F t^2 / (2 m) after every step,
// the exact parabola (a force only in the velocity would put x a step's worth ahead, (1 + dt / t)).
static void test_constant_force_gives_v_F_t_over_m_on_the_exact_parabola(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    const float m = 3.0f, dt = 1.0f / 60.0f;
    const vec3s F = v3(6, -1.5f, 0.75f);
    kyu_body_id b = add_ball(w, v3(0, 0, 0), 0.5f, m);
    for (int n = 1; n <= 120; n++) {
        ENSURE(kyu_body_apply_force(w, b, F) == KYU_OK);
        ENSURE(kyu_world_step(w) == KYU_OK);
        double t = n * (double)dt;
        vec3s v = vel(w, b), p = pos(w, b);
        for (int k = 0; k < 3; k++) {
            double a = (double)F.raw[k] / m;
            ENSURE_NEAR(v.raw[k], a * t, 1e-5 * fabs(a) * t);
            ENSURE_NEAR(p.raw[k], 0.5 * a * t * t, 1e-5 * fabs(a) * t * t + 1e-7);
        }
    }
    kyu_world_destroy(w);
}

// F = m g on a body without gravity follows, bit for bit, the flight of a body under gravity g.
static void test_force_of_weight_flies_as_gravity_bit_for_bit(void) {
    kyu_world *w = make_world(v3(0, -9.81f, 0)), *u = make_world(v3(0, -9.81f, 0));
    ENSURE(w && u);
    kyu_body_def bd = kyu_body_def_default();
    bd.position = v3(0, 50, 0), bd.velocity = v3(3, 4, -1), bd.mass = 2.0f;
    kyu_body_id fall = KYU_NULL_BODY, pushed = KYU_NULL_BODY;
    ENSURE(kyu_body_create(w, &bd, &fall) == KYU_OK);
    bd.gravity_scale = 0.0f;
    ENSURE(kyu_body_create(u, &bd, &pushed) == KYU_OK);
    for (int n = 0; n < 90; n++) {
        ENSURE(kyu_body_apply_force(u, pushed, v3(0, -9.81f * 2.0f, 0)) == KYU_OK);
        ENSURE(kyu_world_step(w) == KYU_OK && kyu_world_step(u) == KYU_OK);
        ENSURE(same3(pos(w, fall), pos(u, pushed)) && same3(vel(w, fall), vel(u, pushed)));
    }
    ENSURE(pos(w, fall).y < 46.0f && vel(w, fall).y < -10.0f); // it did fall
    kyu_world_destroy(u);
    kyu_world_destroy(w);
}

// A force equal and opposite to the weight makes a body float: exactly where F / m is -g in float
// (mass 2), and within rounding for mass 3.
static void test_force_against_gravity_floats(void) {
    kyu_world *w = make_world(v3(0, -9.81f, 0));
    ENSURE(w);
    kyu_body_id two = add_ball(w, v3(0, 5, 0), 0.5f, 2.0f), three = add_ball(w, v3(3, 5, 0), 0.5f, 3.0f);
    for (int n = 0; n < 600; n++) {
        ENSURE(kyu_body_apply_force(w, two, v3(0, 9.81f * 2.0f, 0)) == KYU_OK);
        ENSURE(kyu_body_apply_force(w, three, v3(0, 9.81f * 3.0f, 0)) == KYU_OK);
        ENSURE(kyu_world_step(w) == KYU_OK);
    }
    ENSURE(same3(pos(w, two), v3(0, 5, 0)) && same3(vel(w, two), v3(0, 0, 0)));
    ENSURE_NEAR(pos(w, three).y, 5.0, 1e-4);
    ENSURE_NEAR(vel(w, three).y, 0.0, 1e-5);
    kyu_world_destroy(w);
}

// A force at a point off the centre: the force's v = F t / m, and the torque r x F, so
// w = (r x F) t / I with I = 2/5 m r^2; the getters hold both until the step.
static void test_force_at_a_point_gives_the_torque_r_cross_F(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    const float m = 2.0f, r = 0.5f, dt = 1.0f / 60.0f, I = 0.4f * m * r * r;
    kyu_body_id b = add_ball(w, v3(1, 2, 3), r, m);
    const vec3s F = v3(4, 0, 1), arm = v3(0, r, 0), T = glms_vec3_cross(arm, F); // (r, 0, -4 r) N m
    for (int n = 1; n <= 30; n++) {
        ENSURE(kyu_body_apply_force_at_point(w, b, F, glms_vec3_add(pos(w, b), arm)) == KYU_OK);
        vec3s f, t;
        ENSURE(kyu_body_get_force(w, b, &f) == KYU_OK && kyu_body_get_torque(w, b, &t) == KYU_OK);
        ENSURE(same3(f, F));
        ENSURE_NEAR(t.x, T.x, 1e-6);
        ENSURE_NEAR(t.y, T.y, 1e-6);
        ENSURE_NEAR(t.z, T.z, 1e-6);
        ENSURE(kyu_world_step(w) == KYU_OK);
        double time = n * (double)dt;
        vec3s v = vel(w, b), s = spin_of(w, b);
        for (int k = 0; k < 3; k++) {
            ENSURE_NEAR(v.raw[k], F.raw[k] / m * time, 1e-5 * time);
            ENSURE_NEAR(s.raw[k], T.raw[k] / I * time, 1e-5 * time);
        }
    }
    kyu_world_destroy(w);
}

// A torque alone: the spin grows by T dt / I a step and the centre stays; a pure couple (two equal
// and opposite forces at opposite points) is the same torque.
static void test_torque_changes_spin_by_T_dt_over_I(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    kyu_body_def bd = kyu_body_def_default();
    bd.mass = 4.0f, bd.radius = 0.25f, bd.inertia_scale = 5.0f / 3.0f; // a shell: I = 2/3 m r^2
    kyu_body_id a = KYU_NULL_BODY, couple = KYU_NULL_BODY;
    ENSURE(kyu_body_create(w, &bd, &a) == KYU_OK);
    bd.position = v3(5, 0, 0);
    ENSURE(kyu_body_create(w, &bd, &couple) == KYU_OK);
    float inertia = 0.0f;
    ENSURE(kyu_body_get_inertia(w, a, &inertia) == KYU_OK);
    ENSURE_NEAR(inertia, 2.0 / 3.0 * 4.0 * 0.0625, 1e-6);
    const vec3s T = v3(0, 0.5f, -0.25f);
    for (int n = 1; n <= 60; n++) {
        ENSURE(kyu_body_apply_torque(w, a, T) == KYU_OK);
        // Forces of +-(0, 0, 1) N at +-(1, 0, 0) m from the centre: (1,0,0) x (0,0,1) * 2 = (0, -2, 0).
        vec3s c = pos(w, couple);
        ENSURE(kyu_body_apply_force_at_point(w, couple, v3(0, 0, 1), glms_vec3_add(c, v3(1, 0, 0))) ==
               KYU_OK);
        ENSURE(kyu_body_apply_force_at_point(w, couple, v3(0, 0, -1), glms_vec3_sub(c, v3(1, 0, 0))) ==
               KYU_OK);
        ENSURE(kyu_world_step(w) == KYU_OK);
        double t = n / 60.0;
        vec3s s = spin_of(w, a), sc = spin_of(w, couple);
        for (int k = 0; k < 3; k++) ENSURE_NEAR(s.raw[k], T.raw[k] / inertia * t, 1e-5 * t);
        ENSURE_NEAR(sc.y, -2.0 / inertia * t, 1e-5 * t);
        ENSURE(same3(pos(w, a), v3(0, 0, 0)) && same3(pos(w, couple), v3(5, 0, 0)));
    }
    kyu_world_destroy(w);
}

// A body of fixed rotation takes forces and ignores torques: apply_torque is checked and succeeds,
// holds nothing and turns nothing, as apply_angular_impulse; a force at a point moves its centre.
static void test_torque_on_a_fixed_rotation_body_is_ignored(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    kyu_body_def bd = kyu_body_def_default();
    bd.fixed_rotation = true;
    kyu_body_id b = KYU_NULL_BODY;
    ENSURE(kyu_body_create(w, &bd, &b) == KYU_OK);
    vec3s t = v3(1, 1, 1);
    ENSURE(kyu_body_apply_torque(w, b, v3(5, 0, 0)) == KYU_OK);
    ENSURE(kyu_body_apply_force_at_point(w, b, v3(0, 0, 6), v3(0.5f, 0, 0)) == KYU_OK);
    ENSURE(kyu_body_get_torque(w, b, &t) == KYU_OK && same3(t, v3(0, 0, 0)));
    REJECTS(w, KYU_ERR_NOT_FINITE, "torque", "NaN torque on a fixed-rotation body",
            kyu_body_apply_torque(w, b, v3(NAN, 0, 0)));
    ENSURE(kyu_world_step(w) == KYU_OK);
    ENSURE(same3(spin_of(w, b), v3(0, 0, 0)));
    ENSURE_NEAR(vel(w, b).z, 6.0 / 60.0, 1e-7);
    kyu_world_destroy(w);
}

// A force is for the next step only (kyu_world_step), or for every step of the next update: an
// update of two steps pushes twice, an update of no step clears it, a refused update keeps it.
static void test_forces_are_cleared_after_the_step_or_the_update(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    kyu_body_id b = add_ball(w, v3(0, 0, 0), 0.5f, 1.0f);
    const float dt = 1.0f / 60.0f;
    vec3s f;
    ENSURE(kyu_body_apply_force(w, b, v3(60, 0, 0)) == KYU_OK); // 1 m/s a step
    ENSURE(kyu_body_apply_force(w, b, v3(60, 0, 0)) == KYU_OK); // summed: 2 m/s a step
    ENSURE(kyu_body_get_force(w, b, &f) == KYU_OK && same3(f, v3(120, 0, 0)));
    ENSURE(kyu_world_step(w) == KYU_OK);
    ENSURE_NEAR(vel(w, b).x, 2.0, 1e-6);
    ENSURE(kyu_body_get_force(w, b, &f) == KYU_OK && same3(f, v3(0, 0, 0)));
    ENSURE(kyu_world_step(w) == KYU_OK);
    ENSURE_NEAR(vel(w, b).x, 2.0, 1e-6); // nothing pushed the second step

    int ran = 0;
    ENSURE(kyu_body_apply_force(w, b, v3(60, 0, 0)) == KYU_OK);
    REJECTS(w, KYU_ERR_NOT_FINITE, "frame", "update(NaN)", kyu_world_update(w, NAN, &ran));
    ENSURE(kyu_body_get_force(w, b, &f) == KYU_OK && same3(f, v3(60, 0, 0))); // a refused call kept it
    ENSURE(kyu_world_update(w, 2.5f * dt, &ran) == KYU_OK && ran == 2);
    ENSURE_NEAR(vel(w, b).x, 4.0, 1e-5); // both steps of the frame
    ENSURE(kyu_body_apply_force(w, b, v3(60, 0, 0)) == KYU_OK);
    ENSURE(kyu_world_update(w, 0.25f * dt, &ran) == KYU_OK && ran == 0); // 0.75 of a step in the accumulator
    ENSURE(kyu_body_get_force(w, b, &f) == KYU_OK && same3(f, v3(0, 0, 0)));
    ENSURE(kyu_world_update(w, 0.5f * dt, &ran) == KYU_OK && ran == 1);
    ENSURE_NEAR(vel(w, b).x, 4.0, 1e-5); // the short frame's force did not carry over
    kyu_world_destroy(w);
}

// A force wakes a sleeping body, as an impulse does, and moves it.
static void test_force_wakes_a_sleeping_body(void) {
    kyu_world *w = make_world(v3(0, -9.81f, 0));
    ENSURE(w);
    kyu_collider_def ground = kyu_collider_def_default();
    ENSURE(kyu_collider_create(w, &ground, NULL) == KYU_OK);
    kyu_body_def bd = kyu_body_def_default();
    bd.position = v3(0, 0.5f, 0), bd.rolling_resistance = 0.1f;
    kyu_body_id b = KYU_NULL_BODY;
    ENSURE(kyu_body_create(w, &bd, &b) == KYU_OK);
    for (int n = 0; n < 120 && kyu_body_is_awake(w, b); n++) ENSURE(kyu_world_step(w) == KYU_OK);
    ENSURE(!kyu_body_is_awake(w, b));
    ENSURE(kyu_body_apply_force(w, b, v3(30, 0, 0)) == KYU_OK);
    ENSURE(kyu_body_is_awake(w, b));
    ENSURE(kyu_world_step(w) == KYU_OK);
    ENSURE(vel(w, b).x > 0.1f);
    kyu_world_destroy(w);
}

// A held body carries its force into the contact solve: a ball pressed into the floor by ten times
// its weight stays on it (within the slop), with no impact; pushed sideways at its centre on a
// rough floor it rolls with the textbook's acceleration 5/7 F / m.
static void test_force_on_a_held_body_goes_through_the_contact_solve(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.enable_impact_events = true;
    kyu_world *w = make_world_with(wd);
    ENSURE(w);
    kyu_collider_def ground = kyu_collider_def_default();
    ENSURE(kyu_collider_create(w, &ground, NULL) == KYU_OK);
    kyu_body_id pressed = add_ball(w, v3(0, 0.5f, 0), 0.5f, 1.0f),
                pushed = add_ball(w, v3(5, 0.5f, 0), 0.5f, 1.0f);
    const float F = 2.0f; // below the grip mu m g (1 / 2 of 9.81 N) needs: 2/7 F
    int impacts = 0;
    for (int n = 1; n <= 120; n++) {
        ENSURE(kyu_body_apply_force(w, pressed, v3(0, -98.1f, 0)) == KYU_OK);
        ENSURE(kyu_body_apply_force(w, pushed, v3(F, 0, 0)) == KYU_OK);
        ENSURE(kyu_world_step(w) == KYU_OK);
        kyu_world_impact_events(w, &impacts);
        ENSURE(impacts == 0);
        ENSURE(pos(w, pressed).y > 0.5f - 0.003f && pos(w, pressed).y < 0.5f + 1e-4f);
    }
    ENSURE_NEAR(vel(w, pushed).x, 5.0 / 7.0 * F * 2.0, 0.01 * 5.0 / 7.0 * F * 2.0); // at t = 2 s
    ENSURE(spin_of(w, pushed).z < 0.0f);
    ENSURE_NEAR(pos(w, pushed).y, 0.5, 0.003);
    kyu_world_destroy(w);
}

// The sweeps see the force: a ball at rest pushed at a wall from d away meets it at the parabola's
// time sqrt(2 d / a) (a force only in the velocity would meet it at d / (a dt) of the step instead).
static void test_sweeps_see_the_force(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = v3(0, 0, 0);
    wd.enable_impact_events = true;
    kyu_world *w = make_world_with(wd);
    ENSURE(w);
    add_box(w, v3(1.5f, -1, -1), v3(1.52f, 1, 1), 0.0f, 0.0f, KYU_STATIC, v3(0, 0, 0)); // 2 cm thick
    kyu_body_id b = add_ball(w, v3(0, 0, 0), 0.5f, 1.0f);
    const float dt = 1.0f / 60.0f, d = 1.0f, a = 4.0f * d / (dt * dt); // meets at half the step
    ENSURE(kyu_body_apply_force(w, b, v3(a, 0, 0)) == KYU_OK);
    ENSURE(kyu_world_step(w) == KYU_OK);
    int n = 0;
    const kyu_impact_event *ev = kyu_world_impact_events(w, &n);
    ENSURE(n == 1 && kyu_body_id_equal(ev[0].body, b));
    ENSURE_NEAR(ev[0].time, sqrt(2.0 * d / a) / dt, 1e-4);
    ENSURE_NEAR(ev[0].approach_speed, a * sqrt(2.0 * d / a), 1e-3 * a * dt);
    ENSURE(pos(w, b).x < 1.0f + 1e-4f); // it did not pass the wall
    kyu_world_destroy(w);
}

// Every bad call is refused with the world and the forces it holds unchanged (the state hash covers
// both), and the message names the field and its value.
static void test_bad_forces_are_refused(void) {
    kyu_world *w = make_world(v3(0, -9.81f, 0));
    ENSURE(w);
    kyu_body_id b = add_ball(w, v3(0, 3, 0), 0.5f, 1.0f), speck = add_ball(w, v3(3, 3, 0), 0.01f, 1e-6f);
    ENSURE(kyu_body_apply_force(w, b, v3(1, 2, 3)) == KYU_OK);
    ENSURE(kyu_body_apply_torque(w, b, v3(0.5f, 0, 0)) == KYU_OK);
    for (int axis = 0; axis < 3; axis++)
        for (int k = 0; k < NONFINITE_COUNT; k++) {
            vec3s bad = v3(0, 0, 0);
            bad.raw[axis] = nonfinite_values[k];
            char what[96];
            snprintf(what, sizeof what, "force axis %d = %s", axis, nonfinite_names[k]);
            REJECTS(w, KYU_ERR_NOT_FINITE, "force", what, kyu_body_apply_force(w, b, bad));
            REJECTS(w, KYU_ERR_NOT_FINITE, "force", what,
                    kyu_body_apply_force_at_point(w, b, bad, v3(0, 3, 0)));
            snprintf(what, sizeof what, "point axis %d = %s", axis, nonfinite_names[k]);
            REJECTS(w, KYU_ERR_NOT_FINITE, "point", what,
                    kyu_body_apply_force_at_point(w, b, v3(1, 0, 0), bad));
            snprintf(what, sizeof what, "torque axis %d = %s", axis, nonfinite_names[k]);
            REJECTS(w, KYU_ERR_NOT_FINITE, "torque", what, kyu_body_apply_torque(w, b, bad));
        }
    // Beyond gravity's bound on the acceleration (1e9 m/s^2), for the call or for the sum.
    REJECTS(w, KYU_ERR_NOT_FINITE, "1e9", "force 2e9 N on 1 kg", kyu_body_apply_force(w, b, v3(0, 2e9f, 0)));
    REJECTS(w, KYU_ERR_NOT_FINITE, "force", "force 1 N on 1e-6 kg... 2e3 N",
            kyu_body_apply_force(w, speck, v3(2e3f, 0, 0)));
    REJECTS(w, KYU_ERR_NOT_FINITE, "force", "a sum that overflows",
            kyu_body_apply_force(w, b, v3(FLT_MAX, 0, 0)));
    // A force whose one step of velocity would carry the body past the speed limit (2^20 radii a step).
    REJECTS(w, KYU_ERR_INVALID_ARGUMENT, "velocity", "a 1 cm speck pushed to 1,000 km/s in a step",
            kyu_body_apply_force(w, speck, v3(6e-2f * 1e3f, 0, 0)));
    REJECTS(w, KYU_ERR_NOT_FINITE, "angular_velocity", "a point so far off that r x F spins past the limit",
            kyu_body_apply_force_at_point(w, b, v3(0, 1e3f, 0), v3(1e9f, 0, 0)));
    REJECTS(w, KYU_ERR_NOT_FINITE, "angular_velocity", "a torque that spins past the limit",
            kyu_body_apply_torque(w, b, v3(1e12f, 0, 0)));
    vec3s f, t;
    ENSURE(kyu_body_get_force(w, b, &f) == KYU_OK && same3(f, v3(1, 2, 3)));
    ENSURE(kyu_body_get_torque(w, b, &t) == KYU_OK && same3(t, v3(0.5f, 0, 0)));
    // NULL world, NULL out, stale and foreign handles.
    EXPECT_STATUS(kyu_body_apply_force(NULL, b, v3(1, 0, 0)), KYU_ERR_NULL);
    EXPECT_STATUS(kyu_body_apply_force_at_point(NULL, b, v3(1, 0, 0), v3(0, 0, 0)), KYU_ERR_NULL);
    EXPECT_STATUS(kyu_body_apply_torque(NULL, b, v3(1, 0, 0)), KYU_ERR_NULL);
    EXPECT_STATUS(kyu_body_get_force(NULL, b, &f), KYU_ERR_NULL);
    EXPECT_STATUS(kyu_body_get_torque(NULL, b, &f), KYU_ERR_NULL);
    REJECTS(w, KYU_ERR_NULL, "out", "get_force(NULL out)", kyu_body_get_force(w, b, NULL));
    REJECTS(w, KYU_ERR_NULL, "out", "get_torque(NULL out)", kyu_body_get_torque(w, b, NULL));
    ENSURE(kyu_body_destroy(w, speck) == KYU_OK);
    REJECTS(w, KYU_ERR_STALE_HANDLE, "handle", "removed body", kyu_body_apply_force(w, speck, v3(1, 0, 0)));
    REJECTS(w, KYU_ERR_STALE_HANDLE, "handle", "removed body", kyu_body_apply_torque(w, speck, v3(1, 0, 0)));
    kyu_world *other = make_world(v3(0, 0, 0));
    ENSURE(other);
    kyu_body_id there = add_ball(other, v3(0, 0, 0), 0.5f, 1.0f);
    REJECTS(w, KYU_ERR_FOREIGN_HANDLE, "handle", "another world's body",
            kyu_body_apply_force(w, there, v3(1, 0, 0)));
    kyu_world_destroy(other);
    kyu_world_destroy(w);
}

static uint64_t fnv(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static uint8_t *save(kyu_world *w, size_t *n) {
    if (kyu_world_save_memory(w, NULL, 0, n) != KYU_OK) return NULL;
    uint8_t *buf = malloc(*n);
    if (buf && kyu_world_save_memory(w, buf, *n, n) != KYU_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

// Replaces the float `was` (found once past the header) by `now`, with the checksum made again.
static int forge(uint8_t *snap, size_t n, float was, float now) {
    size_t at = 32;
    while (at + 4 <= n && memcmp(snap + at, &was, 4) != 0) at++;
    if (at + 4 > n) return -1;
    memcpy(snap + at, &now, 4);
    uint64_t sum = fnv(snap + 32, n - 32);
    memcpy(snap + 24, &sum, 8);
    return 0;
}

// A snapshot keeps the forces bodies hold: a world saved between apply_force and the step, loaded
// elsewhere and stepped, matches the original bit for bit; the loader refuses a forged force (NaN,
// beyond the bound, a torque on a body of fixed rotation) and leaves the world as it was.
static void test_snapshot_keeps_forces_and_refuses_forged_ones(void) {
    kyu_world *w = make_world(v3(0, -9.81f, 0));
    ENSURE(w);
    kyu_body_def bd = kyu_body_def_default();
    bd.fixed_rotation = true;
    bd.position = v3(4, 1, 0);
    kyu_body_id sliding = KYU_NULL_BODY;
    ENSURE(kyu_body_create(w, &bd, &sliding) == KYU_OK);
    kyu_body_id b = add_ball(w, v3(0, 1, 0), 0.5f, 1.0f);
    ENSURE(kyu_world_step(w) == KYU_OK);
    ENSURE(kyu_body_apply_force(w, b, v3(12.375f, 0, 0)) == KYU_OK);
    ENSURE(kyu_body_apply_torque(w, b, v3(0, 0, 0.8125f)) == KYU_OK);
    ENSURE(kyu_body_apply_force(w, sliding, v3(0, 0, 7.625f)) == KYU_OK);
    // The velocity set after the force, near its own limit: the world kyu made must still load.
    ENSURE(kyu_body_set_velocity(w, sliding, v3(0, 0, -5e5f)) == KYU_OK);
    size_t n = 0;
    uint8_t *snap = save(w, &n);
    ENSURE(snap);
    kyu_world *copy = make_world(v3(0, 0, 0));
    ENSURE(copy);
    ENSURE(kyu_world_load_memory(copy, snap, n) == KYU_OK);
    ENSURE(kyu_world_state_hash(copy) == kyu_world_state_hash(w));
    kyu_body_id loaded[2];
    ENSURE(kyu_world_get_bodies(copy, loaded, 2) == 2 && loaded[1].index1 == b.index1);
    vec3s f;
    ENSURE(kyu_body_get_force(copy, loaded[1], &f) == KYU_OK && same3(f, v3(12.375f, 0, 0)));
    for (int s = 0; s < 10; s++) ENSURE(kyu_world_step(w) == KYU_OK && kyu_world_step(copy) == KYU_OK);
    ENSURE(kyu_world_state_hash(copy) == kyu_world_state_hash(w));

    const struct {
        float was, now;
        const char *why;
    } forged[] = {
        {12.375f, NAN, "force"},
        {12.375f, 3e9f, "force"},
        {0.8125f, INFINITY, "torque"},
        {7.625f, 7.625f, NULL}, // unchanged: loads
    };
    for (size_t k = 0; k < sizeof forged / sizeof forged[0]; k++) {
        uint8_t *bad = malloc(n);
        ENSURE(bad);
        memcpy(bad, snap, n);
        ENSURE(forge(bad, n, forged[k].was, forged[k].now) == 0);
        uint64_t before = kyu_world_state_hash(copy);
        kyu_status st = kyu_world_load_memory(copy, bad, n);
        free(bad);
        if (!forged[k].why) {
            ENSURE(st == KYU_OK);
            continue;
        }
        ENSURE(st == KYU_ERR_BAD_SNAPSHOT && kyu_world_state_hash(copy) == before);
        ENSURE(mentions(kyu_world_last_error(copy), forged[k].why));
    }
    free(snap);

    // A torque on a body of fixed rotation: apply one to the ball, then make the file say the ball
    // cannot turn is not possible byte-wise, so forge the torque onto the sliding body's entry.
    kyu_world *f2 = make_world(v3(0, 0, 0));
    ENSURE(f2);
    bd.position = v3(0, 0, 0), bd.velocity = v3(0, 0, 0);
    kyu_body_id s2 = KYU_NULL_BODY;
    ENSURE(kyu_body_create(f2, &bd, &s2) == KYU_OK);
    ENSURE(kyu_body_apply_force(f2, s2, v3(0.5625f, 0, 0)) == KYU_OK);
    uint8_t *one = save(f2, &n);
    ENSURE(one);
    // The entry is slot, force, torque: the torque's first float follows the force's three.
    size_t at = 32;
    float mark = 0.5625f;
    while (at + 4 <= n && memcmp(one + at, &mark, 4) != 0) at++;
    ENSURE(at + 16 <= n);
    float torque = 1.0f;
    memcpy(one + at + 12, &torque, 4);
    uint64_t sum = fnv(one + 32, n - 32);
    memcpy(one + 24, &sum, 8);
    ENSURE(kyu_world_load_memory(f2, one, n) == KYU_ERR_BAD_SNAPSHOT);
    ENSURE(mentions(kyu_world_last_error(f2), "fixed rotation"));
    free(one);
    kyu_world_destroy(f2);
    kyu_world_destroy(copy);
    kyu_world_destroy(w);
}

void suite_forces(void) {
    RUN_TEST(test_constant_force_gives_v_F_t_over_m_on_the_exact_parabola);
    RUN_TEST(test_force_of_weight_flies_as_gravity_bit_for_bit);
    RUN_TEST(test_force_against_gravity_floats);
    RUN_TEST(test_force_at_a_point_gives_the_torque_r_cross_F);
    RUN_TEST(test_torque_changes_spin_by_T_dt_over_I);
    RUN_TEST(test_torque_on_a_fixed_rotation_body_is_ignored);
    RUN_TEST(test_forces_are_cleared_after_the_step_or_the_update);
    RUN_TEST(test_force_wakes_a_sleeping_body);
    RUN_TEST(test_force_on_a_held_body_goes_through_the_contact_solve);
    RUN_TEST(test_sweeps_see_the_force);
    RUN_TEST(test_bad_forces_are_refused);
    RUN_TEST(test_snapshot_keeps_forces_and_refuses_forged_ones);
}
