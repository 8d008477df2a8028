// SPDX-License-Identifier: MIT
// games: what a game asks of spheres, headless, with the numbers (docs/tuning.md, "Games").
//
// What it shows:
//   1. a moving platform. A ball at rest on a platform that moves at u rolls: friction at the
//      contact point gives it 2/7 u and the spin to roll, so it rolls backwards over the platform
//      and off it. That is right for a sphere. Three ways to make it ride: fixed_rotation (it slides
//      with the platform), rolling_resistance (rolling relative to the platform stops after
//      5 u^2 / (14 rr g)), angular_damping (the roll dies away at 2/7 of the damping rate);
//   2. a flat floor. A ball struck at v0 slides, then rolls at 5/7 v0 for ever with the default
//      rolling_resistance 0. Rolling resistance stops it (it decelerates at 5/7 rr g), angular
//      damping slows it exponentially; then it falls asleep;
//   3. sleep. A body with allow_sleep false keeps every body it touches awake (they are one island);
//   4. a player pushed by a force every frame (kyu_body_apply_force), its impact on a wall found
//      among the impact events with kyu_body_id_equal;
//   5. a pinball flipper (a kinematic capsule turning about its pivot) throws a ball at rest at
//      (1 + e) times its surface's speed where it meets it.
//
// One kyu_world_update per 1/60 s frame, as a game calls it. It exits non-zero when a number is
// not what the physics says, so `make test` runs it as a check (tests/tools/games.sh).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <kyu/kyu.h>

static const float G = 9.81f, DT = 1.0f / 60.0f, R = 0.25f;
static int failures;

static void check(kyu_world *w, kyu_status st, const char *what) {
    if (st == KYU_OK) return;
    fprintf(stderr, "games: %s: %s (%s)\n", what, kyu_status_string(st), w ? kyu_world_last_error(w) : "");
    exit(2);
}

static void expect(int ok, const char *claim) {
    if (ok) return;
    printf("  NOT AS EXPECTED: %s\n", claim);
    failures++;
}

static kyu_world *new_world(bool impact_events) {
    kyu_world_def wd = kyu_world_def_default();
    wd.enable_impact_events = impact_events;
    kyu_world *w = NULL;
    check(NULL, kyu_world_create(&wd, &w), "kyu_world_create");
    kyu_collider_def ground = kyu_collider_def_default(); // the plane y = 0
    check(w, kyu_collider_create(w, &ground, NULL), "the ground");
    return w;
}

static kyu_body_id ball(kyu_world *w, kyu_body_def bd, vec3s at, vec3s velocity) {
    bd.position = at, bd.velocity = velocity, bd.radius = R;
    kyu_body_id id;
    check(w, kyu_body_create(w, &bd, &id), "kyu_body_create");
    return id;
}

static vec3s get_pos(kyu_world *w, kyu_body_id b) {
    vec3s p;
    check(w, kyu_body_get_position(w, b, &p), "kyu_body_get_position");
    return p;
}

static vec3s get_vel(kyu_world *w, kyu_body_id b) {
    vec3s v;
    check(w, kyu_body_get_velocity(w, b, &v), "kyu_body_get_velocity");
    return v;
}

// ---- 1. a moving platform ------------------------------------------------------------------------

// Seen from the platform, a ball at rest on it when it moves at u is a ball struck backwards at u
// without spin: it slides while friction (mu g) slows it and spins it up, which rolling resistance
// rr resists (the spin's torque is (mu - rr) m g r), until its contact point stops slipping at
// t1 = u / (g (7/2 mu - 5/2 rr)); then it rolls, and rolling resistance slows the roll at 5/7 rr g.
// Returns how far back it ends, relative to the platform (rr < mu).
static float struck_ball_travel(float u, float mu, float rr) {
    float t1 = u / (G * (3.5f * mu - 2.5f * rr)), v1 = u - mu * G * t1;
    return u * t1 - 0.5f * mu * G * t1 * t1 + v1 * v1 / (2.0f * 5.0f / 7.0f * rr * G);
}

enum { RIDERS = 4 };

static void platform(void) {
    const float u = 1.0f, mu = 0.5f, seconds = 4.0f;
    printf("1. A ball at rest on a platform moving at %.1f m/s (4 m long, friction %.1f), for %.0f s:\n",
           (double)u, (double)mu, (double)seconds);
    kyu_world *w = new_world(false);
    const char *name[RIDERS] = {"default (it spins)", "fixed_rotation", "rolling_resistance 0.1",
                                "angular_damping 10 /s"};
    kyu_body_def def[RIDERS];
    for (int k = 0; k < RIDERS; k++) def[k] = kyu_body_def_default();
    def[1].fixed_rotation = true;
    def[2].rolling_resistance = 0.1f;
    def[3].angular_damping = 10.0f;
    kyu_collider_id deck[RIDERS];
    kyu_body_id rider[RIDERS];
    for (int k = 0; k < RIDERS; k++) { // a platform and its ball in a lane of their own
        kyu_collider_def cd = kyu_collider_def_default();
        cd.type = KYU_SHAPE_BOX, cd.motion = KYU_KINEMATIC;
        cd.position = (vec3s){{0, 0.75f, 3.0f * (float)k}};
        cd.half_extents = (vec3s){{2.0f, 0.25f, 1.0f}};
        cd.velocity = (vec3s){{u, 0, 0}};
        cd.friction = mu;
        check(w, kyu_collider_create(w, &cd, &deck[k]), "a platform");
        def[k].friction = mu;
        rider[k] = ball(w, def[k], (vec3s){{0, 1.0f + R, 3.0f * (float)k}}, (vec3s){{0, 0, 0}});
    }
    float off_at[RIDERS] = {-1, -1, -1, -1}, speed_at_1s[RIDERS], drift[RIDERS];
    for (int frame = 1; frame <= (int)(seconds * 60); frame++) {
        check(w, kyu_world_update(w, DT, NULL), "kyu_world_update");
        for (int k = 0; k < RIDERS; k++) {
            vec3s p = get_pos(w, rider[k]), d;
            check(w, kyu_collider_get_position(w, deck[k], &d), "kyu_collider_get_position");
            if (frame == 60) speed_at_1s[k] = get_vel(w, rider[k]).x;
            if (off_at[k] < 0 && p.x - d.x < -2.0f)
                off_at[k] = (float)frame * DT; // its centre passed the back edge
            drift[k] = p.x - d.x;              // where it sits on the platform (it started at the middle)
        }
    }
    for (int k = 0; k < RIDERS; k++) {
        if (off_at[k] >= 0)
            printf("  %-24s rolls at %.3f m/s over the ground, back over the platform, off its end after "
                   "%.2f s\n",
                   name[k], (double)speed_at_1s[k], (double)off_at[k]);
        else
            printf("  %-24s rides at %.3f m/s, %.3f m behind where it started on the platform\n", name[k],
                   (double)get_vel(w, rider[k]).x, (double)-drift[k]);
    }
    printf("  (theory: the spinning ball 2/7 u = %.3f m/s, off after 2 m / (5/7 u) = %.2f s; "
           "fixed rotation slides u^2 / (2 mu g) = %.3f m back; rolling resistance, a ball struck at u: %.3f "
           "m)\n",
           (double)(2.0f / 7.0f * u), (double)(2.0f / (5.0f / 7.0f * u)), (double)(u * u / (2.0f * mu * G)),
           (double)struck_ball_travel(u, mu, 0.1f));
    expect(off_at[0] > 0 && fabsf(speed_at_1s[0] - 2.0f / 7.0f * u) < 0.01f && fabsf(off_at[0] - 2.8f) < 0.1f,
           "the spinning ball rolls at 2/7 u and off after about 2.8 s");
    for (int k = 1; k < RIDERS; k++)
        expect(off_at[k] < 0 && fabsf(get_vel(w, rider[k]).x - u) < 0.01f, name[k]);
    expect(fabsf(-drift[1] - u * u / (2.0f * mu * G)) < 0.02f, "fixed rotation's slide");
    expect(fabsf(-drift[2] - struck_ball_travel(u, mu, 0.1f)) < 0.03f, "rolling resistance's roll back");
    kyu_world_destroy(w);
}

// ---- 2. a flat floor -----------------------------------------------------------------------------

enum { ROLLERS = 3 };

static void floor_roll(void) {
    const float v0 = 2.0f;
    printf("2. A ball struck at %.1f m/s on a flat floor (friction 0.5):\n", (double)v0);
    kyu_world *w = new_world(false);
    const char *name[ROLLERS] = {"default", "rolling_resistance 0.05", "angular_damping 1 /s"};
    kyu_body_def def[ROLLERS];
    for (int k = 0; k < ROLLERS; k++) def[k] = kyu_body_def_default();
    def[1].rolling_resistance = 0.05f;
    def[2].angular_damping = 1.0f;
    kyu_body_id b[ROLLERS];
    for (int k = 0; k < ROLLERS; k++)
        b[k] = ball(w, def[k], (vec3s){{0, R, 2.0f * (float)k}}, (vec3s){{v0, 0, 0}});
    float rest_at[ROLLERS] = {-1, -1, -1}, sleep_at[ROLLERS] = {-1, -1, -1};
    const float seconds = 15.0f;
    for (int frame = 1; frame <= (int)(seconds * 60); frame++) {
        check(w, kyu_world_update(w, DT, NULL), "kyu_world_update");
        for (int k = 0; k < ROLLERS; k++) {
            if (rest_at[k] < 0 && glms_vec3_norm(get_vel(w, b[k])) < 0.05f) rest_at[k] = (float)frame * DT;
            if (sleep_at[k] < 0 && !kyu_body_is_awake(w, b[k])) sleep_at[k] = (float)frame * DT;
        }
    }
    for (int k = 0; k < ROLLERS; k++) {
        vec3s p = get_pos(w, b[k]), v = get_vel(w, b[k]);
        if (sleep_at[k] < 0)
            printf("  %-24s still rolls at %.3f m/s after %.0f s (%.1f m away), awake\n", name[k],
                   (double)v.x, (double)seconds, (double)p.x);
        else
            printf("  %-24s slower than 5 cm/s after %.2f s, asleep after %.2f s, %.2f m away\n", name[k],
                   (double)rest_at[k], (double)sleep_at[k], (double)p.x);
    }
    // It slides until t1 = v0 / (g (7/2 mu - 5/2 rr)), then rolls; rolling resistance rr slows the
    // roll at 5/7 rr g, angular damping c at the rate 2/7 c (a rolling ball's angular momentum about
    // its contact point, 7/5 m r v, loses c I w a second).
    const float mu = 0.5f, rr = 0.05f, t1 = v0 / (G * (3.5f * mu - 2.5f * rr)), v1 = v0 - mu * G * t1;
    float stop = t1 + (v1 - 0.05f) / (5.0f / 7.0f * rr * G);
    float damped = 2.0f * v0 / (7.0f * mu * G) + logf(5.0f / 7.0f * v0 / 0.05f) / (2.0f / 7.0f * 1.0f);
    printf(
        "  (theory: rolls on at 5/7 v0 = %.3f m/s; under 5 cm/s at %.2f s with rolling resistance, at about "
        "%.2f s with damping)\n",
        (double)(5.0f / 7.0f * v0), (double)stop, (double)damped);
    expect(sleep_at[0] < 0 && fabsf(get_vel(w, b[0]).x - 5.0f / 7.0f * v0) < 0.01f,
           "the default ball rolls on");
    expect(sleep_at[1] > 0 && fabsf(rest_at[1] - stop) < 0.15f, "rolling resistance stops it");
    expect(sleep_at[2] > 0 && fabsf(rest_at[2] - damped) < 0.3f, "angular damping slows it to rest");
    kyu_world_destroy(w);
}

// ---- 3. a body that never sleeps -----------------------------------------------------------------

static void never_sleeps(void) {
    printf("3. Two rows of 5 touching balls at rest; the middle ball of row A has allow_sleep false:\n");
    kyu_world *w = new_world(false);
    kyu_body_def bd = kyu_body_def_default();
    bd.rolling_resistance = 0.1f;
    kyu_body_id row[2][5];
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < 5; i++) {
            bd.allow_sleep = !(r == 0 && i == 2);
            row[r][i] = ball(w, bd, (vec3s){{2.0f * R * (float)i, R, 3.0f * (float)r}}, (vec3s){{0, 0, 0}});
        }
    for (int frame = 0; frame < 180; frame++) check(w, kyu_world_update(w, DT, NULL), "kyu_world_update");
    int asleep[2] = {0, 0};
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < 5; i++) asleep[r] += !kyu_body_is_awake(w, row[r][i]);
    printf(
        "  after 3 s: row A %d of 5 asleep, row B %d of 5 asleep (one island sleeps whole or not at all)\n",
        asleep[0], asleep[1]);
    expect(asleep[0] == 0 && asleep[1] == 5, "the wakeful ball keeps its whole row awake");
    kyu_world_destroy(w);
}

// ---- 4. a player pushed by a force ---------------------------------------------------------------

static void player(void) {
    const float F = 7.0f, d = 3.0f; // N on 1 kg; the gap to the wall, m
    printf("4. A player (1 kg) pushed by %.0f N every frame rolls %.0f m to a wall:\n", (double)F, (double)d);
    kyu_world *w = new_world(true);
    kyu_collider_def wall = kyu_collider_def_default();
    wall.type = KYU_SHAPE_BOX;
    wall.position = (vec3s){{d + R + 0.5f, 1, 0}}, wall.half_extents = (vec3s){{0.5f, 1, 2}};
    wall.restitution = 0.5f;
    check(w, kyu_collider_create(w, &wall, NULL), "the wall");
    kyu_body_def bd = kyu_body_def_default();
    kyu_body_id me = ball(w, bd, (vec3s){{0, R, 0}}, (vec3s){{0, 0, 0}});
    ball(w, bd, (vec3s){{0, R, 1.5f}}, (vec3s){{0, 0, 0}}); // a bystander, not pushed
    float hit_speed = -1, hit_t = -1;
    for (int frame = 1; frame <= 180 && hit_speed < 0; frame++) {
        check(w, kyu_body_apply_force(w, me, (vec3s){{F, 0, 0}}), "kyu_body_apply_force");
        check(w, kyu_world_update(w, DT, NULL), "kyu_world_update");
        int n = 0;
        const kyu_impact_event *ev = kyu_world_impact_events(w, &n);
        for (int k = 0; k < n; k++)
            if (kyu_body_id_equal(ev[k].body, me) && hit_speed < 0)
                hit_speed = ev[k].approach_speed, hit_t = ((float)frame - 1.0f + ev[k].time) * DT;
    }
    // Rolling under a force at its centre: a = 5/7 F / m (friction takes 2/7 of it to spin the ball).
    float a = 5.0f / 7.0f * F, v = sqrtf(2.0f * a * d);
    printf(
        "  it hit the wall at %.3f m/s after %.2f s (theory: a = 5/7 F / m = %.2f m/s^2, v = sqrt(2 a d) = "
        "%.3f m/s after %.2f s)\n",
        (double)hit_speed, (double)hit_t, (double)a, (double)v, (double)(v / a));
    expect(hit_speed > 0 && fabsf(hit_speed - v) < 0.02f * v, "the player's speed at the wall");
    kyu_world_destroy(w);
}

// ---- 5. a pinball flipper ------------------------------------------------------------------------

// A flipper is a kinematic capsule turning about its position, the pivot (capsule_a = 0). Its
// surface throws what it meets as a wall moving at the surface's velocity does: a ball at rest that
// it meets at a lever l from the pivot leaves along the normal at (1 + e) w l. Its sweeps do not see
// the turn, so the tip's travel in a step, w L dt, is kept under the ball's radius: 240 Hz.
static void flipper(void) {
    const float L = 0.07f, rc = 0.008f, rb = 0.0135f, spin = 20.0f, e = 0.5f, m = 0.08f;
    const float x0 = 0.05f, z0 = -0.0315f; // the ball, 1 cm in front of the flipper's side
    printf("5. A pinball flipper (%.0f mm, %.0f rad/s, e %.1f, 240 Hz) hits a ball at rest in front of it:\n",
           (double)(1000.0f * L), (double)spin, (double)e);
    kyu_world_def wd = kyu_world_def_default();
    wd.fixed_dt = 1.0f / 240.0f, wd.enable_impact_events = true;
    kyu_world *w = NULL;
    check(NULL, kyu_world_create(&wd, &w), "kyu_world_create");
    kyu_collider_def table = kyu_collider_def_default(); // the plane y = 0
    check(w, kyu_collider_create(w, &table, NULL), "the table");
    kyu_collider_def fd = kyu_collider_def_default();
    fd.type = KYU_SHAPE_CAPSULE, fd.motion = KYU_KINEMATIC, fd.position = (vec3s){{0, rb, 0}};
    fd.capsule_a = (vec3s){{0, 0, 0}}, fd.capsule_b = (vec3s){{L, 0, 0}}, fd.radius = rc;
    fd.angular_velocity = (vec3s){{0, spin, 0}}; // about +y: its tip swings from +x towards -z
    fd.restitution = e, fd.friction = 0;         // a pair's friction: the geometric mean, 0
    kyu_collider_id flip;
    check(w, kyu_collider_create(w, &fd, &flip), "the flipper");
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = rb, bd.mass = m, bd.restitution = e, bd.position = (vec3s){{x0, rb, z0}};
    kyu_body_id b;
    check(w, kyu_body_create(w, &bd, &b), "the ball");
    float u = -1, impulse = 0, turned = 0;
    for (int frame = 0; frame < 30; frame++) {
        check(w, kyu_world_update(w, DT, NULL), "kyu_world_update");
        turned += spin * DT;
        if (turned > 0.8f) check(w, kyu_collider_set_angular_velocity(w, flip, (vec3s){{0, 0, 0}}), "stop");
        int n = 0;
        const kyu_impact_event *ev = kyu_world_impact_events(w, &n);
        for (int k = 0; k < n; k++)
            if (kyu_collider_id_equal(ev[k].collider, flip) && u < 0)
                u = ev[k].approach_speed, impulse = ev[k].normal_impulse;
    }
    // Where they meet: the flipper at angle a has the ball's centre rc + rb from its line.
    double d = rc + rb, reach = hypot(x0, z0), a = acos(d / reach) - atan2(x0, -z0);
    double lever = x0 * cos(a) - z0 * sin(a), surface = spin * lever;
    printf("  it met the ball %.1f mm out at %.3f m/s and threw it at %.3f m/s (theory: %.1f mm, %.3f m/s, "
           "(1 + e) w l = %.3f m/s)\n",
           1000.0 * (u / spin), (double)u, (double)(impulse / m), 1000.0 * lever, surface, (1 + e) * surface);
    expect(u > 0 && fabs(u - surface) < 0.03 * surface, "the flipper's surface speed at the hit");
    expect(fabs(impulse / m - (1 + e) * surface) < 0.04 * (1 + e) * surface,
           "the flipper's throw, (1 + e) w l");
    kyu_world_destroy(w);
}

int main(void) {
    platform();
    floor_roll();
    never_sleeps();
    player();
    flipper();
    if (failures) printf("games: %d numbers not as expected\n", failures);
    return failures ? 1 : 0;
}
