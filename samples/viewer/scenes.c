// SPDX-License-Identifier: MIT
// The viewer's scenes: a cannon whose spent balls are recycled (sleepers dark), a pour into a bowl mesh,
// billiards beside a Newton's cradle, bullets against a thin wall, a moving platform, a large pile.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scenes.h"

#define PI_F 3.14159265f

static vec3s v3(float x, float y, float z) { return (vec3s){{x, y, z}}; }

static float rnd(scene *s) {
    s->rng = s->rng * 1664525u + 1013904223u;
    return (float)(s->rng >> 8) * (1.0f / 16777216.0f);
}

static float rnd_range(scene *s, float lo, float hi) { return lo + (hi - lo) * rnd(s); }

// ---- building blocks ----------------------------------------------------------------------------

static int make_world(scene *s, float gravity) {
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = v3(0.0f, gravity, 0.0f);
    wd.enable_impact_events = true; // the impacts layer shows them
    return kyu_world_create(&wd, &s->world) == KYU_OK ? 0 : -1;
}

static kyu_collider_id box(scene *s, vec3s lo, vec3s hi, float e, float mu) {
    kyu_collider_def cd = kyu_collider_def_default();
    cd.type = KYU_SHAPE_BOX;
    cd.position = glms_vec3_scale(glms_vec3_add(lo, hi), 0.5f);
    cd.half_extents = glms_vec3_scale(glms_vec3_sub(hi, lo), 0.5f);
    cd.restitution = e;
    cd.friction = mu;
    kyu_collider_id id = KYU_NULL_COLLIDER;
    kyu_collider_create(s->world, &cd, &id);
    return id;
}

static void floor_plane(scene *s, float e) {
    kyu_collider_def cd = kyu_collider_def_default();
    cd.restitution = e;
    kyu_collider_create(s->world, &cd, NULL);
}

static kyu_body_id ball(scene *s, vec3s p, vec3s v, float r, float e, float mu) {
    kyu_body_def bd = kyu_body_def_default();
    bd.position = p;
    bd.velocity = v;
    bd.radius = r;
    bd.mass = r * r * r * 8.0f; // the density of a 1 kg ball of radius 0.5
    bd.restitution = e;
    bd.friction = mu;
    kyu_body_id id = KYU_NULL_BODY;
    kyu_body_create(s->world, &bd, &id);
    return id;
}

// Recycling (handles and slot reuse, docs/design.md "The model"): a scene keeps at most ring_max of the
// bodies it spawns; the oldest goes first, and its slot is reused by the engine for the next one.
static void ring_push(scene *s, kyu_body_id id) {
    if (s->ring_count == s->ring_max) {
        kyu_body_destroy(s->world, s->ring[s->ring_start]);
        s->ring_start = (s->ring_start + 1) % SCENE_RING;
        s->ring_count--;
        s->recycled++;
    }
    s->ring[(s->ring_start + s->ring_count++) % SCENE_RING] = id;
}

static void ring_clear(scene *s) {
    for (int k = 0; k < s->ring_count; k++)
        kyu_body_destroy(s->world, s->ring[(s->ring_start + k) % SCENE_RING]);
    s->ring_start = s->ring_count = 0;
}

// Spawned bodies that fell below y_min leave (the seed's "out of the stage, below a height").
static void ring_drop_fallen(scene *s, float y_min) {
    int kept = 0;
    for (int k = 0; k < s->ring_count; k++) {
        kyu_body_id id = s->ring[(s->ring_start + k) % SCENE_RING];
        vec3s p;
        if (kyu_body_get_position(s->world, id, &p) == KYU_OK && p.y < y_min) {
            kyu_body_destroy(s->world, id);
            s->recycled++;
            continue;
        }
        s->ring[(s->ring_start + kept++) % SCENE_RING] = id;
    }
    s->ring_count = kept;
}

// ---- 1. cannon (recycled balls) -----------------------------------------------------------------------

// A square pyramid of balls of radius r, base n x n, its base centred at c.
static void pyramid(scene *s, vec3s c, int n, float r) {
    float d = 2.0f * r, h = d * 0.70710678f;
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n - k; i++)
            for (int j = 0; j < n - k; j++) {
                float off = -0.5f * d * (float)(n - k - 1);
                ball(s, v3(c.x + off + d * (float)i, c.y + r + h * (float)k, c.z + off + d * (float)j),
                     v3(0, 0, 0), r, 0.1f, 0.6f);
            }
}

static int cannon_build(scene *s) {
    if (make_world(s, -9.81f)) return -1;
    box(s, v3(-8, -1, -6), v3(8, 0, 6), 0.2f, 0.6f); // the stage
    box(s, v3(1, 0, -4.5f), v3(2.5f, 1.5f, -2.5f), 0.2f, 0.6f);
    box(s, v3(1, 0, 2.5f), v3(2.5f, 1.0f, 4.5f), 0.2f, 0.6f);
    box(s, v3(7, 0, -6), v3(8, 2.5f, 6), 0.2f, 0.6f); // a back wall
    pyramid(s, v3(4.5f, 0, 0), 4, 0.3f);
    s->ring_max = 150;
    s->auto_fire = 1;
    return 0;
}

static void cannon_fire(scene *s) {
    vec3s v = v3(rnd_range(s, 11.0f, 14.0f), rnd_range(s, 2.0f, 4.0f), rnd_range(s, -1.6f, 1.6f));
    ring_push(s, ball(s, v3(-9.5f, 2.0f, 0), v, 0.25f, 0.3f, 0.6f));
    s->fired++;
}

static void cannon_update(scene *s, float dt) {
    if (s->auto_fire && (s->timer -= dt) <= 0.0f) {
        cannon_fire(s);
        s->timer += 0.35f;
    }
    ring_drop_fallen(s, -12.0f);
    snprintf(s->status, sizeof s->status, "fired %d  balls %d/%d  recycled %d  asleep %d", s->fired,
             s->ring_count, s->ring_max, s->recycled, kyu_world_sleeping_body_count(s->world));
}

// ---- 2. pour into a bowl mesh -------------------------------------------------------------------

#define BOWL_RINGS 9
#define BOWL_SEGS  28

// A hemispherical bowl of radius R, its bottom at y0: rings from the bottom pole to 80 degrees.
static void bowl(scene *s, float R, float y0) {
    vec3s verts[1 + BOWL_RINGS * BOWL_SEGS];
    int32_t tris[3 * (BOWL_SEGS + 2 * BOWL_SEGS * (BOWL_RINGS - 1))];
    int nv = 0, nt = 0;
    verts[nv++] = v3(0, y0, 0);
    for (int i = 1; i <= BOWL_RINGS; i++) {
        float t = (80.0f * PI_F / 180.0f) * (float)i / BOWL_RINGS;
        for (int j = 0; j < BOWL_SEGS; j++) {
            float p = 2.0f * PI_F * (float)j / BOWL_SEGS;
            verts[nv++] = v3(R * sinf(t) * cosf(p), y0 + R - R * cosf(t), R * sinf(t) * sinf(p));
        }
    }
    for (int j = 0; j < BOWL_SEGS; j++) {
        int32_t t[3] = {0, 1 + (j + 1) % BOWL_SEGS, 1 + j};
        memcpy(&tris[3 * nt++], t, sizeof t);
    }
    for (int i = 1; i < BOWL_RINGS; i++)
        for (int j = 0; j < BOWL_SEGS; j++) {
            int32_t a = 1 + (i - 1) * BOWL_SEGS + j, b = 1 + (i - 1) * BOWL_SEGS + (j + 1) % BOWL_SEGS;
            int32_t c = a + BOWL_SEGS, d = b + BOWL_SEGS;
            int32_t q[6] = {a, b, d, a, d, c};
            memcpy(&tris[3 * nt], q, sizeof q);
            nt += 2;
        }
    kyu_collider_def cd = kyu_collider_def_default();
    cd.type = KYU_SHAPE_MESH;
    cd.position = v3(0, 0, 0);
    cd.points = verts;
    cd.point_count = nv;
    cd.indices = tris;
    cd.triangle_count = nt;
    cd.restitution = 0.1f;
    kyu_collider_create(s->world, &cd, NULL);
}

static int bowl_build(scene *s) {
    if (make_world(s, -9.81f)) return -1;
    floor_plane(s, 0.2f);
    bowl(s, 4.0f, 0.5f);
    s->spawn_left = 500;
    s->ring_max = 500;
    return 0;
}

static void bowl_update(scene *s, float dt) {
    for (s->timer -= dt; s->timer <= 0.0f && s->spawn_left > 0; s->timer += 0.03f, s->spawn_left--) {
        vec3s p = v3(rnd_range(s, -0.4f, 0.4f), 9.0f, rnd_range(s, -0.4f, 0.4f));
        vec3s v = v3(rnd_range(s, -0.6f, 0.6f), -2.0f, rnd_range(s, -0.6f, 0.6f));
        ring_push(s, ball(s, p, v, rnd_range(s, 0.16f, 0.28f), 0.2f, 0.4f));
    }
    ring_drop_fallen(s, -5.0f);
    snprintf(s->status, sizeof s->status, "poured %d  left %d  asleep %d", s->ring_count, s->spawn_left,
             kyu_world_sleeping_body_count(s->world));
}

static void bowl_fire(scene *s) { s->spawn_left += 100; }

// ---- 3. billiards and a Newton's cradle ---------------------------------------------------------

#define POOL_R   0.1f
#define CRADLE_R 0.1f

static int billiards_build(scene *s) {
    if (make_world(s, -9.81f)) return -1;
    box(s, v3(-2.5f, -0.2f, -1.3f), v3(2.5f, 0, 1.3f), 0.0f, 0.2f);  // the cloth
    box(s, v3(-2.6f, 0, -1.4f), v3(2.6f, 0.15f, -1.3f), 0.9f, 0.1f); // cushions
    box(s, v3(-2.6f, 0, 1.3f), v3(2.6f, 0.15f, 1.4f), 0.9f, 0.1f);
    box(s, v3(-2.6f, 0, -1.3f), v3(-2.5f, 0.15f, 1.3f), 0.9f, 0.1f);
    box(s, v3(2.5f, 0, -1.3f), v3(2.6f, 0.15f, 1.3f), 0.9f, 0.1f);
    float d = 2.0f * POOL_R + 0.0005f;
    for (int row = 0; row < 5; row++) // the rack: a triangle, apex towards the cue ball
        for (int k = 0; k <= row; k++)
            ball(s, v3(1.0f + (float)row * d * 0.8660254f, POOL_R, ((float)k - 0.5f * (float)row) * d),
                 v3(0, 0, 0), POOL_R, 0.95f, 0.05f);
    box(s, v3(-2.0f, -0.2f, 1.8f), v3(2.0f, 0, 2.2f), 0.0f, 0.0f); // the cradle's frictionless rail
    s->ring_max = 6;
    s->auto_fire = 1;
    return 0;
}

// The cue ball, and the cradle's striker (its row of five is rebuilt each time).
static void billiards_fire(scene *s) {
    ring_clear(s);
    ring_push(s, ball(s, v3(-1.5f, POOL_R, 0), v3(7.0f, 0, rnd_range(s, -0.1f, 0.1f)), POOL_R, 0.95f, 0.05f));
    for (int i = 0; i < 4; i++)
        ring_push(s, ball(s, v3(0.2f * (float)i, CRADLE_R, 2.0f), v3(0, 0, 0), CRADLE_R, 1.0f, 0.0f));
    ring_push(s, ball(s, v3(-1.0f, CRADLE_R, 2.0f), v3(3.0f, 0, 0), CRADLE_R, 1.0f, 0.0f));
    s->fired++;
}

static void billiards_update(scene *s, float dt) {
    if (s->auto_fire && (s->timer += dt) > 0.5f) {
        s->auto_fire = 0;
        billiards_fire(s);
    }
    snprintf(s->status, sizeof s->status, "shots %d  asleep %d", s->fired,
             kyu_world_sleeping_body_count(s->world));
}

// ---- 4. bullets against a thin wall -------------------------------------------------------------

static int bullets_build(scene *s) {
    if (make_world(s, -9.81f)) return -1;
    floor_plane(s, 0.3f);
    box(s, v3(-0.01f, 0, -2), v3(0.01f, 4, 2), 0.5f, 0.3f); // 2 cm thick
    s->ring_max = 300;
    s->auto_fire = 1;
    return 0;
}

static void bullets_fire(scene *s) {
    vec3s p = v3(-8.0f, rnd_range(s, 0.5f, 3.5f), rnd_range(s, -1.6f, 1.6f));
    ring_push(s, ball(s, p, v3(250.0f, 0, 0), 0.06f, 0.5f, 0.3f));
    s->fired++;
}

static void bullets_update(scene *s, float dt) {
    for (s->timer -= dt; s->auto_fire && s->timer <= 0.0f; s->timer += 0.04f) bullets_fire(s);
    int behind = 0;
    for (int k = 0; k < s->ring_count; k++) {
        vec3s p;
        if (kyu_body_get_position(s->world, s->ring[(s->ring_start + k) % SCENE_RING], &p) == KYU_OK)
            behind += p.x > 0.0f;
    }
    s->passed = behind > s->passed ? behind : s->passed;
    snprintf(s->status, sizeof s->status, "bullets fired %d at 250 m/s  behind the wall %d", s->fired,
             behind);
}

// ---- 5. a moving platform -----------------------------------------------------------------------

static int platform_build(scene *s) {
    if (make_world(s, -9.81f)) return -1;
    floor_plane(s, 0.1f);
    kyu_collider_def cd = kyu_collider_def_default();
    cd.type = KYU_SHAPE_BOX;
    cd.motion = KYU_KINEMATIC;
    cd.position = v3(-3.0f, 0.25f, 0);
    cd.half_extents = v3(1.5f, 0.25f, 1.5f);
    cd.velocity = v3(1.5f, 0, 0);
    cd.friction = 0.8f;
    kyu_collider_create(s->world, &cd, &s->mover);
    for (int i = 0; i < 9; i++) // riders on the slab
        ball(s, v3(-4.0f + 1.0f * (float)(i % 3), 0.8f, -1.0f + 1.0f * (float)(i / 3)), v3(0, 0, 0), 0.3f,
             0.1f, 0.8f);
    for (int i = 0; i < 12; i++) // and balls on the floor in its way
        ball(s, v3(1.0f + 0.7f * (float)(i % 4), 0.3f, -1.2f + 0.8f * (float)(i / 4)), v3(0, 0, 0), 0.3f,
             0.1f, 0.4f);
    return 0;
}

static void platform_update(scene *s, float dt) {
    (void)dt;
    vec3s p;
    if (kyu_collider_get_position(s->world, s->mover, &p) != KYU_OK) return;
    if (p.x > 4.0f) kyu_collider_set_velocity(s->world, s->mover, v3(-1.5f, 0, 0));
    if (p.x < -4.0f) kyu_collider_set_velocity(s->world, s->mover, v3(1.5f, 0, 0));
    snprintf(s->status, sizeof s->status, "platform x %.2f m  asleep %d", (double)p.x,
             kyu_world_sleeping_body_count(s->world));
}

static void platform_fire(scene *s) {
    ball(s, v3(rnd_range(s, -3, 3), 5.0f, rnd_range(s, -1, 1)), v3(0, 0, 0), 0.3f, 0.1f, 0.8f);
}

// ---- 6. a large pile ----------------------------------------------------------------------------

#define PILE_N 2000

static int pile_build(scene *s) {
    if (make_world(s, -9.81f)) return -1;
    box(s, v3(-6, -1, -6), v3(6, 0, 6), 0.1f, 0.5f);
    box(s, v3(-6, 0, -6), v3(-5, 3, 6), 0.1f, 0.5f);
    box(s, v3(5, 0, -6), v3(6, 3, 6), 0.1f, 0.5f);
    box(s, v3(-5, 0, -6), v3(5, 3, -5), 0.1f, 0.5f);
    box(s, v3(-5, 0, 5), v3(5, 3, 6), 0.1f, 0.5f);
    for (int i = 0; i < PILE_N; i++) { // 16 x 16 columns, layers 0.55 m apart
        float x = -4.2f + 0.56f * (float)(i % 16), z = -4.2f + 0.56f * (float)(i / 16 % 16);
        ball(s, v3(x + rnd_range(s, -0.02f, 0.02f), 0.3f + 0.56f * (float)(i / 256), z), v3(0, 0, 0),
             rnd_range(s, 0.2f, 0.25f), 0.2f, 0.5f);
    }
    s->ring_max = 20;
    return 0;
}

static void pile_fire(scene *s) {
    ring_push(s, ball(s, v3(-4.0f, 8.0f, -4.0f), v3(6.0f, 0, 6.0f), 0.6f, 0.2f, 0.5f));
    s->fired++;
}

static void pile_update(scene *s, float dt) {
    (void)dt;
    snprintf(s->status, sizeof s->status, "asleep %d", kyu_world_sleeping_body_count(s->world));
}

// ---- the list -----------------------------------------------------------------------------------

const scene_desc scene_list[] = {
    {"cannon",
     "1 cannon (recycled balls, sleepers dark)",
     cannon_build,
     cannon_update,
     cannon_fire,
     {{{2.5f, 0.5f, 0.0f}}, -0.65f, 0.5f, 13.0f}},
    {"bowl",
     "2 pour into a bowl mesh",
     bowl_build,
     bowl_update,
     bowl_fire,
     {{{0.0f, 2.0f, 0.0f}}, 0.5f, 0.6f, 14.0f}},
    {"billiards",
     "3 billiards and a Newton's cradle",
     billiards_build,
     billiards_update,
     billiards_fire,
     {{{0.0f, 0.0f, 0.5f}}, -0.35f, 0.8f, 6.0f}},
    {"bullets",
     "4 bullets against a 2 cm wall",
     bullets_build,
     bullets_update,
     bullets_fire,
     {{{-1.5f, 1.2f, 0.0f}}, -0.8f, 0.35f, 9.0f}},
    {"platform",
     "5 a moving platform (kinematic box)",
     platform_build,
     platform_update,
     platform_fire,
     {{{0.0f, 0.5f, 0.0f}}, 0.6f, 0.45f, 12.0f}},
    {"pile",
     "6 a large pile (performance)",
     pile_build,
     pile_update,
     pile_fire,
     {{{0.0f, 1.5f, 0.0f}}, 0.7f, 0.6f, 17.0f}},
};
const int scene_count = (int)(sizeof scene_list / sizeof scene_list[0]);

int scene_find(const char *name) {
    for (int k = 0; k < scene_count; k++)
        if (strcmp(scene_list[k].name, name) == 0) return k;
    return -1;
}

void scene_free(scene *s) {
    kyu_world_destroy(s->world);
    memset(s, 0, sizeof *s);
}

int scene_load(scene *s, int k) {
    scene_free(s);
    s->desc = &scene_list[k];
    s->rng = 12345u;
    s->ring_max = SCENE_RING;
    if (s->desc->build(s)) {
        scene_free(s);
        return -1;
    }
    return 0;
}

void scene_update(scene *s, float dt) {
    if (s->desc->update) s->desc->update(s, dt);
    s->time += dt;
}

void scene_fire(scene *s) {
    if (s->desc->fire) s->desc->fire(s);
}
