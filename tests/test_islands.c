// SPDX-License-Identifier: MIT
// Islands, sleep and wake; contact and impact events; filtering and sensors; kinematic platforms;
// slot reuse under heavy churn.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kyu/kyu.h"
#include "test.h"

static uint32_t lcg = 4242;
static double frand(void) {
    lcg = lcg * 1664525u + 1013904223u;
    return (lcg >> 8) * (1.0 / 16777216.0);
}

static kyu_world *world_with(vec3s gravity, bool sleep) {
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = gravity;
    wd.enable_sleep = sleep;
    wd.enable_impact_events = true;
    kyu_world *w = NULL;
    kyu_world_create(&wd, &w);
    return w;
}

// The rolling resistance and fixed rotation of the balls made next (the defaults, 0 and false,
// unless a test sets them): a ball on a flat floor without rolling resistance rolls for ever.
static float ball_rolling;
static bool ball_fixed;

static kyu_body_id ball(kyu_world *w, vec3s p, vec3s v, float e) {
    kyu_body_def bd = kyu_body_def_default();
    bd.position = p;
    bd.velocity = v;
    bd.restitution = e;
    bd.rolling_resistance = ball_rolling;
    bd.fixed_rotation = ball_fixed;
    kyu_body_id id = KYU_NULL_BODY;
    kyu_body_create(w, &bd, &id);
    return id;
}

static kyu_collider_id box(kyu_world *w, vec3s lo, vec3s hi, kyu_motion motion) {
    return add_box(w, lo, hi, 0.0f, 0.5f, motion, v3(0, 0, 0)); // the def's defaults
}

static void steps(kyu_world *w, int n) {
    for (int i = 0; i < n; i++) kyu_world_step(w);
}

static int same_id(kyu_body_id a, kyu_body_id b) {
    return a.index1 == b.index1 && a.world == b.world && a.generation == b.generation;
}

// A column of n balls resting on a floor box, starting at x.
static void column(kyu_world *w, float x, int n, kyu_body_id *out) {
    for (int i = 0; i < n; i++) out[i] = ball(w, v3(x, 0.5f + 1.0f * i, 0), v3(0, 0, 0), 0);
}

// ---- sleep --------------------------------------------------------------------------------------

// 10 x 10 columns of 10 balls, slightly jittered, in a bin. Spheres with rolling resistance 0.2:
// each column leans as one rigid rod on the contact at its foot, whose rolling resistance holds
// a lean of at most 0.2 R = 0.05 m, so the columns topple (as real stacked balls do), and the
// heap they make comes to rest and sleeps within 15 s (11.4 s when this was written).
static void test_pile_of_1000_falls_asleep_within_15_seconds(void) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), true);
    box(w, v3(-20, -1, -20), v3(20, 0, 20), KYU_STATIC);
    box(w, v3(-7.1f, 0, -7.1f), v3(-6.1f, 12, 7.1f), KYU_STATIC);
    box(w, v3(5.5f, 0, -7.1f), v3(6.5f, 12, 7.1f), KYU_STATIC);
    box(w, v3(-6.1f, 0, -7.1f), v3(5.5f, 12, -6.1f), KYU_STATIC);
    box(w, v3(-6.1f, 0, 5.1f), v3(5.5f, 12, 6.1f), KYU_STATIC);
    lcg = 1;
    ball_rolling = 0.2f;
    for (int i = 0; i < 1000; i++) {
        float x = -5.5f + 1.1f * (i % 10) + 0.05f * (float)frand(), z = -5.5f + 1.1f * (i / 10 % 10);
        ball(w, v3(x, 0.55f + 1.1f * (i / 100), z), v3(0, 0, 0), 0.2f);
    }
    ball_rolling = 0.0f;
    int asleep_at = -1;
    for (int i = 0; i < 900 && asleep_at < 0; i++) {
        kyu_world_step(w);
        if (kyu_world_sleeping_body_count(w) == 1000) asleep_at = i;
    }
    ENSURE(asleep_at >= 0);
    kyu_body_id ids[1000];
    ENSURE(kyu_world_get_bodies(w, ids, 1000) == 1000);
    for (int i = 0; i < 1000; i++) ENSURE(pos(w, ids[i]).y > 0.49f && fabsf(pos(w, ids[i]).x) < 6.1f);
    kyu_world_destroy(w);
}

static void test_nothing_drifts_while_asleep(void) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), true);
    box(w, v3(-5, -1, -5), v3(5, 0, 5), KYU_STATIC);
    kyu_body_id c[5];
    column(w, 0, 5, c);
    steps(w, 120);
    for (int i = 0; i < 5; i++) ENSURE(!kyu_body_is_awake(w, c[i]));
    vec3s before[5];
    for (int i = 0; i < 5; i++) before[i] = pos(w, c[i]);
    uint64_t h = kyu_world_state_hash(w);
    steps(w, 600);
    ENSURE(kyu_world_state_hash(w) == h); // bit-identical: positions and (zero) velocities
    for (int i = 0; i < 5; i++) {
        vec3s now = pos(w, c[i]);
        ENSURE(memcmp(&before[i], &now, sizeof now) == 0);
    }
    ENSURE(kyu_world_stats(w).awake_bodies == 0);
    kyu_world_destroy(w);
}

// Two columns of four balls 6 m apart on a floor, asleep after 2 s (a world with sleep).
static kyu_world *two_sleeping_columns(kyu_body_id a[4], kyu_body_id b[4]) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), true);
    box(w, v3(-10, -1, -5), v3(10, 0, 5), KYU_STATIC);
    column(w, -3, 4, a);
    column(w, 3, 4, b);
    steps(w, 120);
    return w;
}

// Balls falling from high above, fast (their boxes far taller than the sleeping world, which the
// wake test cuts to the sleepers' bounds), onto sleeping columns of balls that cannot roll: each
// wakes the column it lands on, the other column sleeps on, and none passes through.
static void test_fast_balls_from_high_above_wake_the_column_they_land_on(void) {
    const float speeds[3] = {5.0f, 40.0f, 120.0f};
    for (int k = 0; k < 3; k++) {
        ball_fixed = true;
        kyu_body_id a[4], b[4];
        kyu_world *w = two_sleeping_columns(a, b);
        ENSURE(kyu_world_sleeping_body_count(w) == 8);
        kyu_body_id drop = ball(w, v3(-3, 300, 0), v3(0, -speeds[k], 0), 0.0f);
        ball_fixed = false;
        for (int s = 0; s < 60 * 9; s++) {
            ENSURE(kyu_world_step(w) == KYU_OK);
            ENSURE(pos(w, drop).y > 3.9f); // on the column's top ball, never through it
            for (int i = 0; i < 4; i++) ENSURE(!kyu_body_is_awake(w, b[i]));
        }
        ENSURE(pos(w, drop).y < 5.0f); // it got there
        kyu_world_destroy(w);
    }
}

// A ball dropped on one sleeping column wakes exactly that column, in the step it hits.
static void test_dropped_ball_wakes_exactly_the_island_it_touches(void) {
    kyu_body_id a[4], b[4];
    kyu_world *w = two_sleeping_columns(a, b);
    ENSURE(kyu_world_sleeping_body_count(w) == 8);
    vec3s pb[4];
    for (int i = 0; i < 4; i++) pb[i] = pos(w, b[i]);
    kyu_body_id drop = ball(w, v3(-3, 8, 0), v3(0, -5, 0), 0.3f);
    int woke_at = -1, hit_at = -1;
    for (int s = 0; s < 120; s++) {
        kyu_world_step(w);
        if (woke_at < 0 && kyu_body_is_awake(w, a[3])) woke_at = s;
        int n;
        const kyu_impact_event *ev = kyu_world_impact_events(w, &n);
        for (int k = 0; k < n && hit_at < 0; k++)
            if (same_id(ev[k].body, drop) || same_id(ev[k].other, drop)) hit_at = s;
        for (int i = 0; i < 4; i++) ENSURE(!kyu_body_is_awake(w, b[i]));
    }
    ENSURE(woke_at >= 0 && woke_at == hit_at); // woken and hit in the same step
    for (int i = 0; i < 4; i++) {
        vec3s now = pos(w, b[i]);
        ENSURE(memcmp(&pb[i], &now, sizeof now) == 0);
    }
    ENSURE(pos(w, drop).y > 4.0f); // it landed on the column, not through it
    kyu_world_destroy(w);
}

static void test_sleeping_stack_wakes_when_its_kinematic_platform_moves(void) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), true);
    kyu_collider_id plat = box(w, v3(-2, -1, -2), v3(2, 0, 2), KYU_KINEMATIC);
    kyu_body_id c[3];
    column(w, 0, 3, c);
    steps(w, 120);
    ENSURE(kyu_world_sleeping_body_count(w) == 3);
    ENSURE(kyu_collider_set_velocity(w, plat, v3(0, 1, 0)) == KYU_OK);
    steps(w, 60);
    for (int i = 0; i < 3; i++) ENSURE(kyu_body_is_awake(w, c[i]));
    ENSURE(pos(w, c[0]).y > 0.5f + 0.9f); // carried up about 1 m
    kyu_world_destroy(w);
}

// Removing a support wakes what rested on it: nothing is left floating asleep.
static void test_removing_a_support_wakes_the_bodies_above(void) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), true);
    box(w, v3(-5, -1, -5), v3(5, 0, 5), KYU_STATIC);
    kyu_body_id c[4];
    column(w, 0, 4, c);
    steps(w, 120);
    ENSURE(kyu_world_sleeping_body_count(w) == 4);
    ENSURE(kyu_body_destroy(w, c[0]) == KYU_OK);
    for (int i = 1; i < 4; i++) ENSURE(kyu_body_is_awake(w, c[i]));
    steps(w, 60);
    ENSURE(fabsf(pos(w, c[1]).y - 0.5f) < 0.01f);
    kyu_world_destroy(w);
}

static void test_user_changes_wake_the_island(void) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), true);
    box(w, v3(-5, -1, -5), v3(5, 0, 5), KYU_STATIC);
    kyu_body_id c[2];
    ball_rolling = 0.2f; // the push rolls them; rolling resistance stops them
    column(w, 0, 2, c);
    ball_rolling = 0.0f;
    steps(w, 120);
    ENSURE(!kyu_body_is_awake(w, c[1]));
    kyu_body_apply_impulse(w, c[0], v3(0.1f, 0, 0));
    ENSURE(kyu_body_is_awake(w, c[0]) && kyu_body_is_awake(w, c[1]));
    steps(w, 200);
    ENSURE(!kyu_body_is_awake(w, c[0]));
    kyu_world_set_gravity(w, v3(1, -9.81f, 0));
    ENSURE(kyu_body_is_awake(w, c[0]) && kyu_body_is_awake(w, c[1]));
    steps(w, 10);
    ENSURE(pos(w, c[1]).x > 0.0f); // the sideways gravity acts
    kyu_world_destroy(w);
}

// A collider created where sleeping bodies lie, or a body spawned into them, wakes them.
static void test_new_collider_or_body_in_a_sleeping_island_wakes_it(void) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), true);
    box(w, v3(-10, -1, -5), v3(10, 0, 5), KYU_STATIC);
    kyu_body_id a[3], b[3];
    column(w, -3, 3, a);
    column(w, 3, 3, b);
    steps(w, 120);
    ENSURE(kyu_world_sleeping_body_count(w) == 6);
    box(w, v3(-3.2f, 2.2f, -1), v3(-2.8f, 2.4f, 1), KYU_STATIC); // cuts into a's top ball
    ENSURE(kyu_body_is_awake(w, a[2]) && kyu_body_is_awake(w, a[0]));
    ENSURE(!kyu_body_is_awake(w, b[0]));
    ball(w, v3(3.3f, 2.6f, 0), v3(0, 0, 0), 0); // overlaps b's top ball
    kyu_world_step(w);
    ENSURE(kyu_body_is_awake(w, b[2]) && kyu_body_is_awake(w, b[0]));
    kyu_world_destroy(w);
}

// A ball asleep on its own (no contacts at all: zero gravity) is woken in the middle of a step by a
// ball that an impact turned towards it; it joins the step, the collision is resolved, and the
// contacts stay in order (a lower slot woken late must not upset them).
static void test_lone_sleeper_woken_mid_step_is_hit_in_that_step(void) {
    kyu_world *w = world_with(v3(0, 0, 0), true);
    kyu_body_id lone = ball(w, v3(5, 0, 0), v3(0, 0, 0), 1); // lowest slot
    steps(w, 60);
    ENSURE(!kyu_body_is_awake(w, lone));
    box(w, v3(10, -2, -2), v3(11, 2, 2), KYU_STATIC);
    kyu_body_id fast = ball(w, v3(6.5f, 0, 0), v3(480, 0, 0), 1); // turned by the wall mid-step
    kyu_world_step(w);
    vec3s v;
    kyu_body_get_velocity(w, lone, &v);
    ENSURE(kyu_body_is_awake(w, lone));
    ENSURE(v.x < -400.0f); // hit within the same step, momentum passed on
    steps(w, 5);
    ENSURE(kyu_body_is_valid(w, fast));
    kyu_world_destroy(w);
}

// A bead 1 mm from a ball ten times its size, which never sleeps: the pair keeps no contact (its
// margin is the bead's, 4% of 5 mm), so the bead rests alone and falls asleep, and the ball, at rest,
// must not wake it again (the ball's own margin, 2 mm, reaches it: a probe that used it woke the bead
// every time it fell asleep, and in a bed each such bead that touched the awake part restarted its
// rest time).
static void test_a_large_neighbour_keeping_no_contact_never_wakes_a_sleeping_bead(void) {
    kyu_world *w = world_with(v3(0, 0, 0), true);
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 0.05f;
    bd.allow_sleep = false;
    kyu_body_id big, bead;
    ENSURE(kyu_body_create(w, &bd, &big) == KYU_OK);
    bd.radius = 0.005f;
    bd.allow_sleep = true;
    bd.position = v3(0.05f + 0.005f + 0.001f, 0, 0);
    ENSURE(kyu_body_create(w, &bd, &bead) == KYU_OK);
    steps(w, 60); // 1 s: the bead has rested 0.5 s
    ENSURE(!kyu_body_is_awake(w, bead));
    ENSURE(kyu_body_is_awake(w, big));
    int woken = 0;
    for (int i = 0; i < 120; i++) {
        ENSURE(kyu_world_step(w) == KYU_OK);
        woken += kyu_world_stats(w).islands_woken;
    }
    ENSURE(woken == 0);
    ENSURE(!kyu_body_is_awake(w, bead));
    kyu_world_destroy(w);
}

// Two beads on a floor, a 1.67 cm one that never sleeps and a 0.97 cm one a little apart: at gaps
// past their margin the pair keeps no contact, so the small bead rests alone and falls asleep, and
// the big one, at rest on the floor, must not wake it again. Its coming path (gravity's g dt^2
// below it) used to reach the small bead's lower centre at gaps up to 2.6 mm, though the floor
// stops that fall (in a bed of radii spanning 1:10 such pairs on the floor woke the whole bed every
// time it fell asleep). Gaps of 0.5 to 4 mm: where the bead slept it was never woken, and it slept
// at some gap up to 2.6 mm.
static void test_a_neighbour_resting_on_the_floor_never_wakes_a_sleeping_bead(void) {
    int slept_near = 0;
    for (int g = 2; g <= 16; g++) {
        float gap = 0.00025f * (float)g, ra = 0.0167f, rb = 0.0097f;
        kyu_world *w = world_with(v3(0, -9.81f, 0), true);
        kyu_collider_def floor = kyu_collider_def_default();
        ENSURE(kyu_collider_create(w, &floor, NULL) == KYU_OK);
        kyu_body_def bd = kyu_body_def_default();
        bd.radius = ra, bd.position = v3(0, ra, 0), bd.allow_sleep = false;
        kyu_body_id big, bead;
        ENSURE(kyu_body_create(w, &bd, &big) == KYU_OK);
        // centres ra + rb + gap apart, the bead on the floor
        float dy = ra - rb, dx = sqrtf((ra + rb + gap) * (ra + rb + gap) - dy * dy);
        bd.radius = rb, bd.position = v3(dx, rb, 0), bd.allow_sleep = true;
        ENSURE(kyu_body_create(w, &bd, &bead) == KYU_OK);
        int slept = 0, woken_after = 0;
        for (int i = 0; i < 180; i++) {
            ENSURE(kyu_world_step(w) == KYU_OK);
            if (slept) woken_after += kyu_world_stats(w).islands_woken;
            if (!kyu_body_is_awake(w, bead)) slept = 1;
        }
        char what[128];
        snprintf(what, sizeof what, "gap %.2f mm: the sleeping bead was woken %d times", 1000.0 * gap,
                 woken_after);
        if (woken_after != 0) test_fail(__FILE__, __LINE__, what);
        slept_near |= slept && gap <= 0.0026f;
        kyu_world_destroy(w);
        if (test_current_failed) return;
    }
    ENSURE(slept_near);
}

static void test_sleep_switches_per_body_and_per_world(void) {
    kyu_world *off = world_with(v3(0, -9.81f, 0), false);
    box(off, v3(-5, -1, -5), v3(5, 0, 5), KYU_STATIC);
    kyu_body_id a = ball(off, v3(0, 0.5f, 0), v3(0, 0, 0), 0);
    steps(off, 200);
    ENSURE(kyu_body_is_awake(off, a));
    kyu_world_destroy(off);
    kyu_world *w = world_with(v3(0, -9.81f, 0), true);
    box(w, v3(-5, -1, -5), v3(5, 0, 5), KYU_STATIC);
    kyu_body_def bd = kyu_body_def_default();
    bd.position = v3(0, 0.5f, 0);
    bd.allow_sleep = false;
    kyu_body_id never, other = ball(w, v3(0, 1.5f, 0), v3(0, 0, 0), 0); // rests on the insomniac
    kyu_body_create(w, &bd, &never);
    kyu_body_id alone = ball(w, v3(3, 0.5f, 0), v3(0, 0, 0), 0);
    steps(w, 200);
    ENSURE(kyu_body_is_awake(w, never) && kyu_body_is_awake(w, other));
    ENSURE(!kyu_body_is_awake(w, alone));
    kyu_world_destroy(w);
}

// ---- events -------------------------------------------------------------------------------------

static int count_events(const kyu_contact_event *ev, int n, kyu_body_id b) {
    int k = 0;
    for (int i = 0; i < n; i++) k += same_id(ev[i].body, b) || same_id(ev[i].other, b);
    return k;
}

static void test_bouncing_ball_gives_one_begin_and_one_end_per_bounce(void) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), true);
    kyu_collider_def floor = kyu_collider_def_default();
    floor.restitution = 0.9f;
    kyu_collider_create(w, &floor, NULL);
    kyu_body_id b = ball(w, v3(0, 3, 0), v3(0, 0, 0), 0.9f);
    int begins = 0, ends = 0, bounces = 0;
    float last_vy = 0;
    for (int s = 0; s < 240; s++) {
        kyu_world_step(w);
        int nb, ne;
        const kyu_contact_event *be = kyu_world_begin_events(w, &nb), *ee = kyu_world_end_events(w, &ne);
        begins += count_events(be, nb, b);
        ends += count_events(ee, ne, b);
        vec3s v;
        kyu_body_get_velocity(w, b, &v);
        bounces += last_vy < 0 && v.y > 0;
        last_vy = v.y;
        ENSURE(begins - ends == 0 || begins - ends == 1); // bookended
    }
    ENSURE(bounces >= 3);
    ENSURE(begins == bounces);
    ENSURE(ends == bounces || ends == bounces - 1);
    kyu_world_destroy(w);
}

static void test_resting_ball_begins_once_and_never_ends_across_sleep_and_wake(void) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), true);
    box(w, v3(-5, -1, -5), v3(5, 0, 5), KYU_STATIC);
    kyu_body_id b = ball(w, v3(0, 0.52f, 0), v3(0, 0, 0), 0);
    int begins = 0, ends = 0;
    for (int s = 0; s < 400; s++) {
        if (s == 200) kyu_body_apply_impulse(w, b, v3(0.02f, 0, 0)); // wake it (asleep by now)
        if (s == 199) ENSURE(!kyu_body_is_awake(w, b));
        kyu_world_step(w);
        int nb, ne;
        const kyu_contact_event *be = kyu_world_begin_events(w, &nb), *ee = kyu_world_end_events(w, &ne);
        begins += count_events(be, nb, b);
        ends += count_events(ee, ne, b);
    }
    ENSURE(begins == 1);
    ENSURE(ends == 0);
    kyu_contact_event now[4];
    int total = 0;
    ENSURE(kyu_body_get_contacts(w, b, now, 4, &total) == KYU_OK);
    ENSURE(total == 1); // "stay": still touching the floor
    kyu_world_destroy(w);
}

static int has_pair(const kyu_contact_event *ev, int n, kyu_body_id x, kyu_body_id y) {
    for (int i = 0; i < n; i++)
        if ((same_id(ev[i].body, x) && same_id(ev[i].other, y)) ||
            (same_id(ev[i].body, y) && same_id(ev[i].other, x)))
            return 1;
    return 0;
}

// A body with several kept contacts and a new one between them (by partner order): the kept ones
// must not be reported as ended (the report merges each body's old and new contacts in key order;
// a kept pair is matched, not passed over). A sensor passing through the bottom ball of a resting
// column gives it the new pair without pushing anything.
static void test_kept_contacts_do_not_end_when_a_new_one_begins_beside_them(void) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), false);
    box(w, v3(-5, -1, -5), v3(5, 0, 5), KYU_STATIC);
    kyu_body_id c[2];
    column(w, 0, 2, c); // touching from the start: bottom-floor, bottom-top
    kyu_body_def bd = kyu_body_def_default();
    bd.position = v3(3, 0.4f, 0);
    bd.velocity = v3(-3, 0, 0);
    bd.is_sensor = true;
    bd.gravity_scale = 0;
    kyu_body_id sensor = KYU_NULL_BODY;
    ENSURE(kyu_body_create(w, &bd, &sensor) == KYU_OK);
    int began = 0, ended = 0, column_ends = 0;
    for (int s = 0; s < 120; s++) {
        kyu_world_step(w);
        int nb, ne;
        const kyu_contact_event *be = kyu_world_begin_events(w, &nb), *ee = kyu_world_end_events(w, &ne);
        began += has_pair(be, nb, c[0], sensor);
        ended += has_pair(ee, ne, c[0], sensor);
        column_ends +=
            count_events(ee, ne, c[0]) - has_pair(ee, ne, c[0], sensor) + count_events(ee, ne, c[1]);
    }
    ENSURE(began == 1 && ended == 1); // the sensor went through the bottom ball
    ENSURE(column_ends == 0);
    kyu_contact_event now[4];
    int total = 0;
    ENSURE(kyu_body_get_contacts(w, c[0], now, 4, &total) == KYU_OK);
    ENSURE(total == 2); // the floor and the top ball, still
    kyu_world_destroy(w);
}

static void test_removing_a_touching_body_gives_an_end_event(void) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), true);
    box(w, v3(-5, -1, -5), v3(5, 0, 5), KYU_STATIC);
    kyu_body_id c[2];
    column(w, 0, 2, c);
    steps(w, 200); // asleep by now: removal must still report
    kyu_body_id top = c[1];
    ENSURE(kyu_body_destroy(w, top) == KYU_OK);
    kyu_world_step(w);
    int ne;
    const kyu_contact_event *ee = kyu_world_end_events(w, &ne);
    ENSURE(count_events(ee, ne, top) == 1);
    ENSURE(count_events(ee, ne, c[0]) == 1); // the pair top-bottom, named by both handles
    kyu_world_destroy(w);
}

static void test_impact_events_carry_speed_point_and_normal(void) {
    kyu_world *w = world_with(v3(0, 0, 0), true);
    kyu_body_id a = ball(w, v3(0, 0, 0), v3(4, 0, 0), 1);
    kyu_body_id b = ball(w, v3(3, 0, 0), v3(-2, 0, 0), 1);
    int found = 0;
    for (int s = 0; s < 60; s++) {
        kyu_world_step(w);
        int n;
        const kyu_impact_event *ev = kyu_world_impact_events(w, &n);
        for (int k = 0; k < n; k++) {
            ENSURE(same_id(ev[k].body, a) && same_id(ev[k].other, b));
            ENSURE_NEAR(ev[k].approach_speed, 6.0, 1e-4);
            ENSURE_NEAR(ev[k].normal.x, -1.0, 1e-5);                   // from b to a
            ENSURE_NEAR(ev[k].point.x, 4.0 * (1.0 / 3.0) + 0.5, 1e-3); // they meet at t = 1/3 s
            found++;
        }
    }
    ENSURE(found == 1);
    kyu_world_destroy(w);
}

// ---- filtering and sensors ----------------------------------------------------------------------

static void test_masked_pairs_pass_through_and_groups_override(void) {
    kyu_world *w = world_with(v3(0, 0, 0), true);
    kyu_body_def bd = kyu_body_def_default();
    bd.category_bits = 2;
    bd.mask_bits = ~2u; // ghosts ignore each other
    bd.position = v3(0, 0, 0);
    bd.velocity = v3(3, 0, 0);
    kyu_body_id g1, g2;
    kyu_body_create(w, &bd, &g1);
    bd.position = v3(3, 0, 0);
    bd.velocity = v3(-3, 0, 0);
    kyu_body_create(w, &bd, &g2);
    bd = kyu_body_def_default(); // same negative group: never collide, whatever the masks
    bd.group = -7;
    bd.position = v3(0, 5, 0);
    bd.velocity = v3(3, 0, 0);
    kyu_body_id n1, n2;
    kyu_body_create(w, &bd, &n1);
    bd.position = v3(3, 5, 0);
    bd.velocity = v3(-3, 0, 0);
    kyu_body_create(w, &bd, &n2);
    steps(w, 60);
    vec3s v;
    kyu_body_get_velocity(w, g1, &v);
    ENSURE(v.x == 3.0f);
    kyu_body_get_velocity(w, n1, &v);
    ENSURE(v.x == 3.0f);
    ENSURE(pos(w, g1).x > 2.9f && pos(w, n2).x < 0.1f); // passed through
    kyu_world_destroy(w);
}

static void test_sensor_reports_overlap_and_never_collides(void) {
    kyu_world *w = world_with(v3(0, 0, 0), true);
    kyu_body_def bd = kyu_body_def_default();
    bd.is_sensor = true;
    bd.radius = 1.0f;
    bd.gravity_scale = 0;
    bd.position = v3(5, 0, 0);
    kyu_body_id zone;
    kyu_body_create(w, &bd, &zone);
    kyu_body_id b = ball(w, v3(0, 0, 0), v3(3, 0, 0), 1);
    int begin_at = -1, end_at = -1;
    for (int s = 0; s < 240; s++) {
        kyu_world_step(w);
        int nb, ne;
        const kyu_contact_event *be = kyu_world_begin_events(w, &nb), *ee = kyu_world_end_events(w, &ne);
        for (int k = 0; k < nb; k++)
            if (be[k].sensor && count_events(&be[k], 1, zone)) begin_at = s;
        for (int k = 0; k < ne; k++)
            if (ee[k].sensor && count_events(&ee[k], 1, zone)) end_at = s;
    }
    vec3s v, pz;
    kyu_body_get_velocity(w, b, &v);
    ENSURE(v.x == 3.0f); // untouched
    kyu_body_get_position(w, zone, &pz);
    ENSURE(pz.x == 5.0f);
    // Overlap from centre distance 1.5 (x = 3.5, t = 7/6 s) to x = 6.5 (t = 13/6 s).
    ENSURE(begin_at >= 69 && begin_at <= 71);
    ENSURE(end_at >= 129 && end_at <= 131);
    kyu_world_destroy(w);
}

// ---- kinematic platforms and churn ----------------------------------------------------------------

// A platform starts moving under a resting ball. A ball of fixed rotation is dragged to the
// platform's speed. A spinning one rolls: friction at the contact point both speeds it and spins
// it backwards until it rolls without slipping on the platform, which (its angular momentum about
// the contact point, 0 at the start, is kept) happens at v = 2/7 u, w = 5/7 u / r against the
// platform: the textbook tablecloth trick.
static void test_ball_on_moving_platform_is_carried_by_friction(void) {
    for (int fixed = 0; fixed < 2; fixed++) {
        kyu_world *w = world_with(v3(0, -9.81f, 0), true);
        box(w, v3(-10, -1, -10), v3(10, -0.5f, 10), KYU_STATIC);
        kyu_collider_id plat = box(w, v3(-2, -0.5f, -2), v3(2, 0, 2), KYU_KINEMATIC);
        ball_fixed = fixed;
        kyu_body_id b = ball(w, v3(0, 0.5f, 0), v3(0, 0, 0), 0);
        ball_fixed = false;
        steps(w, 30);
        kyu_collider_set_velocity(w, plat, v3(1, 0, 0));
        steps(w, 60); // 1 s at 1 m/s: the platform moved 1 m
        vec3s v, av;
        kyu_body_get_velocity(w, b, &v);
        kyu_body_get_angular_velocity(w, b, &av);
        if (fixed) {
            ENSURE_NEAR(v.x, 1.0, 0.02); // riding along at the platform's speed
            ENSURE(pos(w, b).x > 0.8f && pos(w, b).y > 0.45f);
        } else {
            ENSURE_NEAR(v.x, 2.0 / 7.0, 0.005 * 2.0 / 7.0);
            ENSURE_NEAR(av.z, 5.0 / 7.0 / 0.5,
                        0.005 * 10.0 / 7.0); // rolling on the platform: v + w x (-r y) = u
            ENSURE(pos(w, b).y > 0.45f);
        }
        kyu_world_destroy(w);
    }
}

// A cannon: 1e6 random adds, removes and steps. Slots are reused (memory stays bounded by the most
// bodies ever alive at once plus those removed since the last step, whose slots wait for the step),
// every live handle stays valid and every removed one stale.
static void test_million_operation_churn_reuses_slots_and_keeps_handles_straight(void) {
    enum { MAXLIVE = 256, OPS = 1000000 };
    kyu_world *w = world_with(v3(0, -9.81f, 0), true);
    box(w, v3(-30, -1, -30), v3(30, 0, 30), KYU_STATIC);
    kyu_body_id live[MAXLIVE], dead[64];
    int nlive = 0, ndead = 0, most = 0, since_step = 0;
    uint32_t high = 0;
    lcg = 7;
    for (int op = 0; op < OPS; op++) {
        uint32_t r = (uint32_t)(frand() * 1000.0);
        if (r < 2) {
            kyu_world_step(w);
            since_step = 0;
        } else if (r < 500 && nlive < MAXLIVE) {
            vec3s p = v3(50 * (float)frand() - 25, 0.5f + 5 * (float)frand(), 50 * (float)frand() - 25);
            live[nlive] = ball(w, p, v3(0, -20, 0), 0.3f);
            ENSURE(live[nlive].index1 != 0);
            if (live[nlive].index1 > high) high = live[nlive].index1;
            nlive++;
            if (nlive + since_step > most) most = nlive + since_step;
        } else if (nlive > 0) {
            int k = (int)(frand() * nlive);
            ENSURE(kyu_body_destroy(w, live[k]) == KYU_OK);
            dead[ndead++ % 64] = live[k];
            live[k] = live[--nlive];
            since_step++;
        }
        if (op % 1000 == 0) { // the invariant check
            ENSURE(kyu_world_body_count(w) == nlive);
            for (int i = 0; i < nlive; i++) ENSURE(kyu_body_is_valid(w, live[i]));
            for (int i = 0; i < (ndead < 64 ? ndead : 64); i++) ENSURE(!kyu_body_is_valid(w, dead[i]));
        }
    }
    ENSURE((int)high <= most); // never more slots than bodies alive at once and waiting
    kyu_world_destroy(w);
}

static void test_impact_events_are_off_unless_asked_for(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = v3(0, 0, 0);
    kyu_world *w = NULL;
    kyu_world_create(&wd, &w);
    ball(w, v3(0, 0, 0), v3(4, 0, 0), 1);
    ball(w, v3(3, 0, 0), v3(-2, 0, 0), 1);
    int total = 0;
    for (int s = 0; s < 60; s++) {
        kyu_world_step(w);
        int n;
        kyu_world_impact_events(w, &n);
        total += n;
    }
    ENSURE(total == 0);
    kyu_world_destroy(w);
}

// Without gravity every impact bounces (restitution acts at every speed), and every one is an
// event, however slow: a gas's pressure is counted from them (slower than the restitution threshold
// they were left out). Under gravity only those faster than the threshold are.
static void test_without_gravity_every_impact_is_an_event(void) {
    for (int g = 0; g < 2; g++) {
        kyu_world_def wd = kyu_world_def_default();
        wd.gravity = g ? v3(0, 0, -9.81f) : v3(0, 0, 0);
        wd.enable_impact_events = true;
        kyu_world *w = NULL;
        ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
        ball(w, v3(0, 0, 0), v3(0.03f, 0, 0), 1); // 0.05 m/s apart: slower than the threshold
        ball(w, v3(1.01f, 0, 0), v3(-0.02f, 0, 0), 1);
        ball(w, v3(0, 0, 3), v3(0.3f, 0, 0), 1); // 0.5 m/s apart
        ball(w, v3(1.1f, 0, 3), v3(-0.2f, 0, 0), 1);
        int events = 0, impacts = 0;
        for (int s = 0; s < 30; s++) {
            ENSURE(kyu_world_step(w) == KYU_OK);
            int n = 0;
            kyu_world_impact_events(w, &n);
            events += n, impacts += kyu_world_stats(w).impacts;
        }
        ENSURE(impacts >= (g ? 1 : 2));
        ENSURE(events == (g ? 1 : 2));
        kyu_world_destroy(w);
    }
}

// A ball let go from rest on a slope rolls away however shallow the slope, down to a tenth of a
// degree: it gains speed from its first step, and a body that gains a tenth of sleep_speed while
// slow has not come to rest (island.c, REST_GAIN). Until 2026-11-30 a ball on a slope under 0.8
// degrees stayed under sleep_speed for sleep_time, slept at 0.5 s and never rolled; one just off
// the top of a hill slept there. A ball set down on a flat floor still sleeps at sleep_time, and
// so does one that slows down (rolling resistance).
static void test_a_ball_let_go_on_a_shallow_slope_rolls_away_and_one_on_a_floor_sleeps(void) {
    const double degrees[] = {0.1, 0.3, 0.8};
    for (int k = 0; k < 3; k++) {
        double th = degrees[k] * 3.14159265358979 / 180.0;
        kyu_world *w = world_with(v3((float)(9.81 * sin(th)), (float)(-9.81 * cos(th)), 0), true);
        box(w, v3(-500, -1, -5), v3(500, 0, 5), KYU_STATIC);
        kyu_body_id b = ball(w, v3(0, 0.5f, 0), v3(0, 0, 0), 0);
        steps(w, 600);
        ENSURE(kyu_body_is_awake(w, b));
        double expect = 5.0 / 7.0 * 9.81 * sin(th) * 10.0; // rolling from rest for 10 s
        ENSURE_NEAR(vel(w, b).x, expect, 0.01 * expect);
        kyu_world_destroy(w);
    }
    for (int slowing = 0; slowing < 2; slowing++) {
        kyu_world *w = world_with(v3(0, -9.81f, 0), true);
        box(w, v3(-500, -1, -5), v3(500, 0, 5), KYU_STATIC);
        ball_rolling = slowing ? 0.01f : 0.0f; // from 0.04 m/s, to rest in 0.57 s
        kyu_body_id b = ball(w, v3(0, 0.5f, 0), v3(slowing ? 0.04f : 0.0f, 0, 0), 0);
        ball_rolling = 0.0f;
        int s = 0;
        while (s < 600 && kyu_body_is_awake(w, b)) kyu_world_step(w), s++;
        ENSURE(!kyu_body_is_awake(w, b));
        ENSURE(s <= 31); // 0.5 s of rest from the first step: slowing down never starts it again
        kyu_world_destroy(w);
    }
}

void suite_islands(void) {
    RUN_TEST(test_pile_of_1000_falls_asleep_within_15_seconds);
    RUN_TEST(test_nothing_drifts_while_asleep);
    RUN_TEST(test_a_ball_let_go_on_a_shallow_slope_rolls_away_and_one_on_a_floor_sleeps);
    RUN_TEST(test_dropped_ball_wakes_exactly_the_island_it_touches);
    RUN_TEST(test_fast_balls_from_high_above_wake_the_column_they_land_on);
    RUN_TEST(test_sleeping_stack_wakes_when_its_kinematic_platform_moves);
    RUN_TEST(test_removing_a_support_wakes_the_bodies_above);
    RUN_TEST(test_user_changes_wake_the_island);
    RUN_TEST(test_new_collider_or_body_in_a_sleeping_island_wakes_it);
    RUN_TEST(test_lone_sleeper_woken_mid_step_is_hit_in_that_step);
    RUN_TEST(test_a_large_neighbour_keeping_no_contact_never_wakes_a_sleeping_bead);
    RUN_TEST(test_a_neighbour_resting_on_the_floor_never_wakes_a_sleeping_bead);
    RUN_TEST(test_sleep_switches_per_body_and_per_world);
    RUN_TEST(test_bouncing_ball_gives_one_begin_and_one_end_per_bounce);
    RUN_TEST(test_resting_ball_begins_once_and_never_ends_across_sleep_and_wake);
    RUN_TEST(test_kept_contacts_do_not_end_when_a_new_one_begins_beside_them);
    RUN_TEST(test_removing_a_touching_body_gives_an_end_event);
    RUN_TEST(test_impact_events_carry_speed_point_and_normal);
    RUN_TEST(test_impact_events_are_off_unless_asked_for);
    RUN_TEST(test_without_gravity_every_impact_is_an_event);
    RUN_TEST(test_masked_pairs_pass_through_and_groups_override);
    RUN_TEST(test_sensor_reports_overlap_and_never_collides);
    RUN_TEST(test_ball_on_moving_platform_is_carried_by_friction);
    RUN_TEST(test_million_operation_churn_reuses_slots_and_keeps_handles_straight);
}
