// SPDX-License-Identifier: MIT
// What DEM work measures (measure.h) against hand computations: a column of spheres carries its
// weight down, pair by pair, and its stress is the textbook integral of that weight; a settled bed
// presses on its floor with its weight; a bounce's impulse is the body's change of momentum; a
// gas's stress is its kinetic part; a sphere cut by a box has the volume of its cut.
#include <stdlib.h>
#include <string.h>

#include "test.h"

#define PI_D 3.14159265358979323846

static kyu_world *make_world(bool sleep) {
    kyu_world_def wd = kyu_world_def_default();
    wd.enable_sleep = sleep;
    kyu_world *w = NULL;
    kyu_world_create(&wd, &w);
    return w;
}

static kyu_body_id add_ball(kyu_world *w, vec3s p, float r, float m) {
    kyu_body_def bd = kyu_body_def_default();
    bd.position = p, bd.radius = r, bd.mass = m;
    kyu_body_id id = KYU_NULL_BODY;
    kyu_body_create(w, &bd, &id);
    return id;
}

static double ball_volume(double r) { return 4.0 / 3.0 * PI_D * r * r * r; }

// The sphere's volume inside the box, through kyu_world_measure_box's packing fraction.
static double cut_volume(vec3s centre, float r, vec3s lo, vec3s hi) {
    kyu_world *w = make_world(true);
    add_ball(w, centre, r, 1.0f);
    kyu_region_measure m;
    kyu_status st = kyu_world_measure_box(w, lo, hi, &m);
    kyu_world_destroy(w);
    return st == KYU_OK ? m.solid_volume : -1.0;
}

// A sphere in, out, halved by a face, quartered by an edge, an eighth at a corner, a cap of height h
// (pi h^2 (3r - h) / 3), and a lens cut by two faces: the exact cut of each.
static void test_sphere_volume_cut_by_the_box_is_exact(void) {
    const double r = 0.5, v = ball_volume(r);
    ENSURE_NEAR(cut_volume(v3(0, 0, 0), 0.5f, v3(-1, -1, -1), v3(1, 1, 1)), v, 1e-12);
    ENSURE_NEAR(cut_volume(v3(5, 0, 0), 0.5f, v3(-1, -1, -1), v3(1, 1, 1)), 0.0, 1e-12);
    ENSURE_NEAR(cut_volume(v3(0, 0, 0), 0.5f, v3(0, -1, -1), v3(1, 1, 1)), v / 2, 1e-9 * v);
    ENSURE_NEAR(cut_volume(v3(0, 0, 0), 0.5f, v3(0, 0, -1), v3(1, 1, 1)), v / 4, 1e-9 * v);
    ENSURE_NEAR(cut_volume(v3(0, 0, 0), 0.5f, v3(0, 0, 0), v3(1, 1, 1)), v / 8, 1e-9 * v);
    ENSURE_NEAR(cut_volume(v3(0, 0, 0), 0.5f, v3(-1, 0.25f, -1), v3(1, 1, 1)),
                PI_D * 0.0625 * (1.5 - 0.25) / 3, 1e-9 * v);
    double h = 0.5 - (double)0.3f; // the face at the float nearest 0.3
    ENSURE_NEAR(cut_volume(v3(0, 0, 0), 0.5f, v3(-1, -1, 0.3f), v3(1, 1, 1)), PI_D * h * h * (1.5 - h) / 3,
                1e-9 * v);
    // Cut by the two faces x = +-0.25: the ball less two caps of height 0.25.
    double cap = PI_D * 0.0625 * (1.5 - 0.25) / 3;
    ENSURE_NEAR(cut_volume(v3(0, 0, 0), 0.5f, v3(-0.25f, -1, -1), v3(0.25f, 1, 1)), v - 2 * cap, 1e-9 * v);
    // A thin box through the middle, along z: the cut computed by slices in x (a disc in y, z...)
    // equals the cut of the same box turned along x (symmetry of the sphere).
    double a = cut_volume(v3(0, 0, 0), 0.5f, v3(-0.1f, -0.2f, -1), v3(0.3f, 0.35f, 1));
    double b = cut_volume(v3(0, 0, 0), 0.5f, v3(-1, -0.2f, -0.1f), v3(1, 0.35f, 0.3f));
    ENSURE(a > 0);
    ENSURE_NEAR(a, b, 1e-9 * v);
}

// A column of n spheres on a floor: each pair carries the weight above it, the floor all of it;
// each body feels m g up; the column's stress over its box is the hand integral of that weight:
// sigma_yy V = -sum_i m g y_i (each body's contacts' branches times forces add to -m g y_i plus the
// floor's term at y = 0). Awake and asleep alike.
static void test_column_carries_its_weight_down(void) {
    enum { N = 6 };
    const float r = 0.1f, m = 0.2f, g = 9.81f;
    kyu_world *w = make_world(true);
    kyu_collider_def floor = kyu_collider_def_default();
    kyu_collider_create(w, &floor, NULL);
    kyu_body_id col[N];
    for (int i = 0; i < N; i++) col[i] = add_ball(w, v3(0, r + 2 * r * (float)i, 0), r, m);
    for (int pass = 0; pass < 2; pass++) {
        // 1 s awake, then until the column sleeps (its contacts keep the impulses of that step).
        for (int s = 0; s < (pass == 0 ? 60 : 120); s++) kyu_world_step(w);
        if (pass == 1) ENSURE(kyu_world_sleeping_body_count(w) == N);
        float force[3 * N], torque[3 * N];
        int32_t coord[N], walls[N];
        kyu_body_force_arrays fa = {force, torque, coord, walls};
        ENSURE(kyu_world_get_body_forces(w, &fa, N) == N);
        for (int i = 0; i < N; i++) {
            ENSURE_NEAR(force[3 * i + 1], m * g, 0.01 * m * g);
            ENSURE_NEAR(force[3 * i], 0, 1e-3 * m * g);
            ENSURE_NEAR(torque[3 * i + 2], 0, 1e-3 * m * g * r);
            ENSURE(coord[i] == (i == 0 || i == N - 1 ? 1 : 2));
            ENSURE(walls[i] == (i == 0));
        }
        int count = kyu_world_get_contact_network(w, &(kyu_contact_arrays){0}, 0);
        ENSURE(count == N); // N - 1 pairs and the floor
        kyu_body_id body[N], other[N];
        kyu_collider_id collider[N];
        float fn[N], normal[3 * N], point[3 * N], gap[N];
        kyu_contact_arrays ca = {body, other, collider, point, normal, fn, NULL, NULL, gap};
        ENSURE(kyu_world_get_contact_network(w, &ca, N) == N);
        for (int k = 0; k < N; k++) {
            int i = (int)body[k].index1 - 1; // the lower slot: col[i] rests on what is below it
            ENSURE(body[k].index1 == col[i].index1);
            if (collider[k].index1) {
                ENSURE(i == 0);
                ENSURE_NEAR(fn[k], N * m * g, 0.01 * N * m * g);
                ENSURE_NEAR(point[3 * k + 1], 0, 1e-3 * r);
            } else {
                ENSURE(other[k].index1 == col[i + 1].index1);
                ENSURE_NEAR(normal[3 * k + 1], -1, 1e-5); // from the upper body to the lower
                ENSURE_NEAR(fn[k], (N - 1 - i) * m * g, 0.01 * N * m * g);
            }
            ENSURE(gap[k] <= 0.004f * r + 1e-6f);
        }
        kyu_region_measure rm;
        ENSURE(kyu_world_measure_box(w, v3(-r, 0, -r), v3(r, 2 * r * N, r), &rm) == KYU_OK);
        double weight_moment = 0;
        for (int i = 0; i < N; i++) weight_moment += m * g * pos(w, col[i]).y;
        double expected = -weight_moment / rm.volume; // n^2 r m g / V for the ideal column
        ENSURE(rm.bodies == N);
        ENSURE_NEAR(rm.stress[4], expected, 0.01 * fabs(expected));
        ENSURE_NEAR(expected, -N * N * r * m * g / rm.volume, 0.002 * fabs(expected));
        ENSURE_NEAR(rm.stress[0], 0, 1e-3 * fabs(expected));
        ENSURE_NEAR(rm.coordination, 2.0 * (N - 1) / N, 1e-12);
        ENSURE_NEAR(rm.packing_fraction, N * ball_volume(r) / rm.volume, 1e-3);
        ENSURE_NEAR(rm.pressure, -rm.stress[4] / 3, 0.01 * fabs(expected));
    }
    kyu_world_destroy(w);
}

static uint64_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 11;
}

// A bed of a few hundred frictional spheres poured into a box with frictionless walls (they carry
// no weight), settled until it sleeps: its floor's contacts carry its weight, and its stress over
// the box is minus the moment of that weight over the volume.
static void test_settled_bed_presses_on_its_floor_with_its_weight(void) {
    const float r = 0.05f, half = 0.3f;
    const int layers = TEST_LENGTH(8, 4), per = 6;
    kyu_world *w = make_world(true);
    kyu_collider_def floor = kyu_collider_def_default();
    floor.friction = 0.5f;
    kyu_collider_id ground;
    kyu_collider_create(w, &floor, &ground);
    for (int side = 0; side < 4; side++) { // frictionless walls around [-half, half] in x and z
        kyu_collider_def wall = kyu_collider_def_default();
        vec3s n = v3(side == 0   ? 1.0f
                     : side == 1 ? -1.0f
                                 : 0.0f,
                     0,
                     side == 2   ? 1.0f
                     : side == 3 ? -1.0f
                                 : 0.0f);
        wall.normal = n, wall.position = glms_vec3_scale(n, -half), wall.friction = 0.0f;
        kyu_collider_create(w, &wall, NULL);
    }
    uint64_t seed = 7;
    double weight = 0;
    for (int y = 0; y < layers; y++)
        for (int i = 0; i < per; i++)
            for (int k = 0; k < per; k++) {
                float jx = (float)(lcg(&seed) % 1000) * 1e-5f, jz = (float)(lcg(&seed) % 1000) * 1e-5f;
                kyu_body_def bd = kyu_body_def_default();
                bd.radius = r * (0.8f + 0.2f * (float)((i + k + y) % 3) / 2.0f);
                bd.mass = 1000.0f * (float)ball_volume(bd.radius);
                bd.position = v3(-half + 0.05f + 0.1f * (float)i + jx, 0.06f + 0.11f * (float)y,
                                 -half + 0.05f + 0.1f * (float)k + jz);
                bd.friction = 0.5f;
                bd.rolling_resistance = 0.05f;
                kyu_body_create(w, &bd, NULL);
                weight += bd.mass * 9.81;
            }
    int n = kyu_world_body_count(w);
    for (int s = 0; s < 1800 && kyu_world_sleeping_body_count(w) < n; s++) kyu_world_step(w);
    ENSURE(kyu_world_sleeping_body_count(w) == n);
    int count = kyu_world_get_contact_network(w, &(kyu_contact_arrays){0}, 0);
    ENSURE(count > n);
    kyu_collider_id *collider = calloc((size_t)count, sizeof *collider);
    float *fn = calloc((size_t)count, sizeof *fn), *tangent = calloc((size_t)count * 3, sizeof *tangent);
    kyu_contact_arrays ca = {.collider = collider, .normal_force = fn, .tangent_force = tangent};
    ENSURE(kyu_world_get_contact_network(w, &ca, count) == count);
    double on_floor = 0, on_walls = 0;
    for (int k = 0; k < count; k++) {
        if (collider[k].index1 == ground.index1)
            on_floor += fn[k];
        else if (collider[k].index1)
            on_walls += fabs(tangent[3 * k + 1]);
    }
    free(collider), free(fn), free(tangent);
    ENSURE_NEAR(on_floor, weight, 0.01 * weight);
    ENSURE_NEAR(on_walls, 0, 1e-6 * weight);
    float *y = malloc((size_t)n * 3 * sizeof *y), *mass = malloc((size_t)n * sizeof *mass);
    kyu_world_get_positions(w, y, n);
    kyu_world_get_masses(w, mass, n);
    double moment = 0;
    for (int i = 0; i < n; i++) moment += mass[i] * 9.81 * y[3 * i + 1];
    free(y), free(mass);
    kyu_region_measure rm;
    ENSURE(kyu_world_measure_box(w, v3(-half, 0, -half), v3(half, 2, half), &rm) == KYU_OK);
    ENSURE(rm.bodies == n);
    ENSURE_NEAR(rm.stress[4] * rm.volume, -moment, 0.02 * moment);
    ENSURE(rm.packing_fraction > 0.0 && rm.coordination > 3.0);
    kyu_world_destroy(w);
}

// An elastic ball bouncing on the floor: with impact forces kept (through a snapshot loaded into the
// world too), the step of the bounce reports the impulse 2 m v over the step, its change of momentum;
// without them, nothing (no contact held it).
static void test_bounce_force_is_its_change_of_momentum(void) {
    for (int keep = 0; keep < 2; keep++) {
        kyu_world *w = make_world(false);
        kyu_collider_def floor = kyu_collider_def_default();
        floor.restitution = 1.0f;
        kyu_collider_create(w, &floor, NULL);
        kyu_body_def bd = kyu_body_def_default();
        bd.position = v3(0, 1.0f, 0), bd.radius = 0.1f, bd.mass = 2.0f, bd.restitution = 1.0f;
        kyu_body_id b;
        kyu_body_create(w, &bd, &b);
        ENSURE(kyu_world_enable_impact_forces(w, keep) == KYU_OK);
        // The setting belongs to the world object: a snapshot loaded into it keeps it.
        size_t size = 0;
        kyu_world_save_memory(w, NULL, 0, &size);
        void *snap = malloc(size);
        ENSURE(snap && kyu_world_save_memory(w, snap, size, &size) == KYU_OK);
        ENSURE(kyu_world_load_memory(w, snap, size) == KYU_OK);
        free(snap);
        int bounced = 0;
        for (int s = 0; s < 60 && !bounced; s++) {
            float before = vel(w, b).y;
            kyu_world_step(w);
            float after = vel(w, b).y;
            if (!(after > 0.0f && before < 0.0f)) continue;
            bounced = 1;
            float force[3];
            kyu_body_force_arrays fa = {.force = force};
            ENSURE(kyu_world_get_body_forces(w, &fa, 1) == 1);
            // momentum change = impulse of the floor + gravity's m g dt
            double dt = 1.0 / 60.0, impulse = 2.0 * (after - before) + 2.0 * 9.81 * dt;
            if (keep)
                ENSURE_NEAR(force[1] * dt, impulse, 1e-3 * impulse);
            else
                ENSURE(force[1] == 0.0f);
        }
        ENSURE(bounced);
        kyu_world_destroy(w);
    }
}

// Bodies that touch nothing, in a box without gravity: the stress is its kinetic part alone,
// -(1 / V) sum m v' v', v' the velocity less the mass-weighted mean.
static void test_gas_stress_is_kinetic(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = v3(0, 0, 0);
    kyu_world *w = NULL;
    kyu_world_create(&wd, &w);
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 0.1f, bd.mass = 2, bd.position = v3(-0.5f, 0, 0), bd.velocity = v3(3, 1, 0);
    kyu_body_create(w, &bd, NULL);
    bd.position = v3(0.5f, 0, 0), bd.velocity = v3(-1, 1, 0), bd.mass = 1;
    kyu_body_create(w, &bd, NULL);
    bd.position = v3(5, 0, 0); // outside the box: not counted
    kyu_body_create(w, &bd, NULL);
    kyu_region_measure m;
    ENSURE(kyu_world_measure_box(w, v3(-1, -1, -1), v3(1, 1, 1), &m) == KYU_OK);
    ENSURE(m.bodies == 2);
    // mean velocity (2 (3, 1) + (-1, 1)) / 3 = (5/3, 1); v' = (4/3, 0) and (-8/3, 0)
    ENSURE_NEAR(m.mean_velocity[0], 5.0 / 3.0, 1e-6);
    double kxx = 2 * 16.0 / 9 + 64.0 / 9;
    ENSURE_NEAR(m.kinetic_stress[0], -kxx / 8, 1e-5);
    ENSURE_NEAR(m.stress[0], -kxx / 8, 1e-5);
    ENSURE_NEAR(m.stress[4], 0, 1e-9);
    ENSURE_NEAR(m.pressure, kxx / 24, 1e-5);
    ENSURE_NEAR(m.coordination, 0, 0);
    kyu_world_destroy(w);
}

// Bad input: a NULL world or output, a negative capacity, a box inside out or not finite; the
// message names the argument and its value.
static void test_measure_refuses_bad_arguments(void) {
    kyu_world *w = make_world(true);
    kyu_region_measure m;
    kyu_body_force_arrays fa = {0};
    kyu_contact_arrays ca = {0};
    ENSURE(kyu_world_get_body_forces(NULL, &fa, 0) == -1);
    ENSURE(kyu_world_get_body_forces(w, NULL, 0) == -1);
    ENSURE(kyu_world_get_body_forces(w, &fa, -1) == -1);
    ENSURE(kyu_world_get_contact_network(NULL, &ca, 0) == -1);
    ENSURE(kyu_world_get_contact_network(w, &ca, -2) == -1);
    ENSURE(kyu_world_measure_box(NULL, v3(0, 0, 0), v3(1, 1, 1), &m) == KYU_ERR_NULL);
    ENSURE(kyu_world_measure_box(w, v3(0, 0, 0), v3(1, 1, 1), NULL) == KYU_ERR_NULL);
    ENSURE(kyu_world_measure_box(w, v3(0, 2, 0), v3(1, 1, 1), &m) == KYU_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(kyu_world_last_error(w), "lower.y = 2") != NULL);
    ENSURE(kyu_world_measure_box(w, v3(0, 0, NAN), v3(1, 1, 1), &m) == KYU_ERR_NOT_FINITE);
    ENSURE(kyu_world_enable_impact_forces(NULL, true) == KYU_ERR_NULL);
    kyu_world_destroy(w);
}

void suite_measure(void) {
    RUN_TEST(test_sphere_volume_cut_by_the_box_is_exact);
    RUN_TEST(test_column_carries_its_weight_down);
    RUN_TEST(test_settled_bed_presses_on_its_floor_with_its_weight);
    RUN_TEST(test_bounce_force_is_its_change_of_momentum);
    RUN_TEST(test_gas_stress_is_kinetic);
    RUN_TEST(test_measure_refuses_bad_arguments);
}
