// SPDX-License-Identifier: MIT
// pour: 2000 spheres poured from a spout into an open box, headless.
//
// What it shows:
//   - building level geometry from static box colliders (a floor and four walls, open at the top);
//   - adding bodies while the world runs (a batch from the spout every few frames);
//   - the fixed-timestep loop: one kyu_world_update per 1/60 s frame, as a game would call it;
//   - reading the world back: kinetic energy, positions, velocities and the last step's counters.
//
// It prints a progress line every simulated second and a summary at the end, and exits non-zero
// if any sphere ended outside the box, so `make samples && ./build/samples/pour` is a smoke test.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <kyu/kyu.h>

enum {
    SPHERE_COUNT = 2000,
    SPOUT_SIDE = 7,  // each batch is a SPOUT_SIDE x SPOUT_SIDE square of spheres
    BATCH_EVERY = 6, // frames between batches: the last batch must have fallen clear
    FRAMES = 600,    // 10 s at 60 frames per second
    FRAMES_PER_SECOND = 60,
};

static const float BOX_HALF = 2.5f;    // inner box is 5 m x 5 m
static const float WALL_HEIGHT = 4.0f; // m above the floor
static const float SPOUT_Y = 6.0f;     // above the walls: the spheres fall in
static const float SPOUT_SPEED = 3.0f; // m/s downwards, so batches separate quickly
static const float SPACING = 0.4f;     // between spheres in a batch (diameter 0.3)
static const float RADIUS = 0.15f;
static const float RESTITUTION = 0.3f; // lively but not so bouncy that spheres hop the walls
static const float FRICTION = 0.4f;

// Any failure in a sample is a bug worth stopping for; say what failed and why.
static void check(kyu_world *w, kyu_status st, const char *what) {
    if (st == KYU_OK) return;
    fprintf(stderr, "pour: %s: %s (%s)\n", what, kyu_status_string(st), w ? kyu_world_last_error(w) : "");
    exit(2);
}

// A small deterministic generator, so every run pours exactly the same way.
static float jitter(uint32_t *state, float amplitude) {
    *state = *state * 1664525u + 1013904223u;
    return amplitude * ((float)(*state >> 8) / 16777216.0f * 2.0f - 1.0f);
}

static void add_box(kyu_world *w, vec3s center, vec3s half) {
    kyu_collider_def cd = kyu_collider_def_default();
    cd.type = KYU_SHAPE_BOX;
    cd.position = center;
    cd.rotation = (versors){{0, 0, 0, 1}};
    cd.half_extents = half;
    cd.restitution = RESTITUTION;
    cd.friction = FRICTION;
    check(w, kyu_collider_create(w, &cd, NULL), "collider");
}

// A floor whose top face is y = 0 and four 0.5 m thick walls whose inner faces are at +-BOX_HALF.
static void build_box(kyu_world *w) {
    float h = BOX_HALF, t = 0.25f, y = WALL_HEIGHT / 2, outer = BOX_HALF + 2 * t;
    add_box(w, (vec3s){{0, -t, 0}}, (vec3s){{outer, t, outer}});
    add_box(w, (vec3s){{-h - t, y, 0}}, (vec3s){{t, y, outer}});
    add_box(w, (vec3s){{h + t, y, 0}}, (vec3s){{t, y, outer}});
    add_box(w, (vec3s){{0, y, -h - t}}, (vec3s){{outer, y, t}});
    add_box(w, (vec3s){{0, y, h + t}}, (vec3s){{outer, y, t}});
}

// Spawns one square batch under the spout; returns how many spheres were added.
static int pour_batch(kyu_world *w, kyu_body_id *ids, int count, uint32_t *rng) {
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = RADIUS;
    bd.mass = 0.1f;
    bd.restitution = RESTITUTION;
    bd.friction = FRICTION;
    float first = -0.5f * SPACING * (SPOUT_SIDE - 1);
    int added = 0;
    for (int i = 0; i < SPOUT_SIDE * SPOUT_SIDE && count + added < SPHERE_COUNT; i++) {
        // A little jitter so the spheres do not land in perfect columns.
        bd.position = (vec3s){{first + SPACING * (i % SPOUT_SIDE) + jitter(rng, 0.03f), SPOUT_Y,
                               first + SPACING * (i / SPOUT_SIDE) + jitter(rng, 0.03f)}};
        bd.velocity = (vec3s){{jitter(rng, 0.3f), -SPOUT_SPEED, jitter(rng, 0.3f)}};
        check(w, kyu_body_create(w, &bd, &ids[count + added]), "body");
        added++;
    }
    return added;
}

typedef struct survey {
    float lowest, highest; // sphere centres, y
    float max_speed;
    int inside; // centres within the box's walls and above its floor
} survey;

static survey survey_spheres(kyu_world *w, const kyu_body_id *ids, int count) {
    survey s = {.lowest = INFINITY, .highest = -INFINITY};
    for (int i = 0; i < count; i++) {
        vec3s p, v;
        check(w, kyu_body_get_position(w, ids[i], &p), "position");
        check(w, kyu_body_get_velocity(w, ids[i], &v), "velocity");
        s.lowest = fminf(s.lowest, p.y);
        s.highest = fmaxf(s.highest, p.y);
        s.max_speed = fmaxf(s.max_speed, glms_vec3_norm(v));
        if (fabsf(p.x) <= BOX_HALF && fabsf(p.z) <= BOX_HALF && p.y >= 0) s.inside++;
    }
    return s;
}

static void print_progress(kyu_world *w, const kyu_body_id *ids, int count, int frame) {
    survey s = survey_spheres(w, ids, count);
    kyu_step_stats st = kyu_world_stats(w);
    printf("t=%4.1fs bodies=%4d kinetic=%9.3f J y=[%6.3f, %6.3f] impacts=%4d contacts=%5d\n",
           (double)frame / FRAMES_PER_SECOND, count, kyu_world_kinetic_energy(w), (double)s.lowest,
           (double)s.highest, st.impacts, st.contacts);
}

int main(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.body_capacity = SPHERE_COUNT;
    kyu_world *w = NULL;
    check(NULL, kyu_world_create(&wd, &w), "world");
    build_box(w);

    static kyu_body_id ids[SPHERE_COUNT];
    int count = 0;
    uint32_t rng = 12345;
    for (int frame = 1; frame <= FRAMES; frame++) {
        if (frame % BATCH_EVERY == 1 && count < SPHERE_COUNT) count += pour_batch(w, ids, count, &rng);
        check(w, kyu_world_update(w, 1.0f / 60.0f, NULL), "update");
        if (frame % FRAMES_PER_SECOND == 0) print_progress(w, ids, count, frame);
    }

    survey s = survey_spheres(w, ids, count);
    printf("done: bodies=%d inside=%d max_speed=%.3f m/s max_overlap=%.5f m\n", count, s.inside,
           (double)s.max_speed, (double)kyu_world_stats(w).max_overlap);
    kyu_world_destroy(w);
    if (s.inside != count) {
        fprintf(stderr, "pour: %d spheres left the box\n", count - s.inside);
        return 1;
    }
    return 0;
}
