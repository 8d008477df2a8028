// SPDX-License-Identifier: MIT
// A tiny test framework: RUN_TEST runs a void function; ENSURE* record a failure and return.
#ifndef KYU_TEST_H
#define KYU_TEST_H

#include <math.h>
#include <stdio.h>

#include "kyu/kyu.h"

void test_fail(const char *file, int line, const char *what);
void test_run(const char *name, void (*fn)(void));
extern int test_current_failed;

#define RUN_TEST(fn) test_run(#fn, fn)

// KYU_TEST_QUICK set (CI's sanitizer builds, 5-10 times slower): the few long tests run a shorter
// version of themselves (fewer steps or layers, the same checks). Without it, the full length.
int test_quick(void);
#define TEST_LENGTH(full, quick) (test_quick() ? (quick) : (full))

#define ENSURE(cond)                                                                                         \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            test_fail(__FILE__, __LINE__, #cond);                                                            \
            return;                                                                                          \
        }                                                                                                    \
    } while (0)

// |a - b| <= tol, printing both values when it fails.
#define ENSURE_NEAR(a, b, tol)                                                                               \
    do {                                                                                                     \
        double ensure_a_ = (double)(a), ensure_b_ = (double)(b), ensure_t_ = (double)(tol);                  \
        if (!(fabs(ensure_a_ - ensure_b_) <= ensure_t_)) {                                                   \
            char ensure_m_[256];                                                                             \
            snprintf(ensure_m_, sizeof ensure_m_, "%s = %.9g, %s = %.9g, tolerance %.3g", #a, ensure_a_, #b, \
                     ensure_b_, ensure_t_);                                                                  \
            test_fail(__FILE__, __LINE__, ensure_m_);                                                        \
            return;                                                                                          \
        }                                                                                                    \
    } while (0)

// Shared builders and getters (static inline: each test file is its own translation unit).
static inline vec3s v3(float x, float y, float z) { return (vec3s){{x, y, z}}; }

static inline vec3s pos(kyu_world *w, kyu_body_id b) {
    vec3s p = {{NAN, NAN, NAN}}; // NaN fails every comparison a test makes if the getter fails
    kyu_body_get_position(w, b, &p);
    return p;
}

static inline vec3s vel(kyu_world *w, kyu_body_id b) {
    vec3s v = {{NAN, NAN, NAN}};
    kyu_body_get_velocity(w, b, &v);
    return v;
}

// A box collider from its min and max corners.
static inline kyu_collider_id add_box(kyu_world *w, vec3s lo, vec3s hi, float e, float mu, kyu_motion motion,
                                      vec3s velocity) {
    kyu_collider_def cd = kyu_collider_def_default();
    cd.type = KYU_SHAPE_BOX;
    cd.motion = motion;
    cd.velocity = velocity;
    cd.position = glms_vec3_scale(glms_vec3_add(lo, hi), 0.5f);
    cd.half_extents = glms_vec3_scale(glms_vec3_sub(hi, lo), 0.5f);
    cd.restitution = e;
    cd.friction = mu;
    kyu_collider_id id = KYU_NULL_COLLIDER;
    kyu_collider_create(w, &cd, &id);
    return id;
}

// An open box for a pour (restitution 0.2, friction mu): a floor with its top at y = 0, walls d
// thick and h high around a square of side L.
static inline void open_box_of(kyu_world *w, float L, float d, float h, float mu) {
    add_box(w, v3(-L / 2 - d, -d, -L / 2 - d), v3(L / 2 + d, 0, L / 2 + d), 0.2f, mu, KYU_STATIC,
            v3(0, 0, 0));
    add_box(w, v3(-L / 2 - d, 0, -L / 2 - d), v3(-L / 2, h, L / 2 + d), 0.2f, mu, KYU_STATIC, v3(0, 0, 0));
    add_box(w, v3(L / 2, 0, -L / 2 - d), v3(L / 2 + d, h, L / 2 + d), 0.2f, mu, KYU_STATIC, v3(0, 0, 0));
    add_box(w, v3(-L / 2, 0, -L / 2 - d), v3(L / 2, h, -L / 2), 0.2f, mu, KYU_STATIC, v3(0, 0, 0));
    add_box(w, v3(-L / 2, 0, L / 2), v3(L / 2, h, L / 2 + d), 0.2f, mu, KYU_STATIC, v3(0, 0, 0));
}

// The same with friction 0.5.
static inline void open_box(kyu_world *w, float L, float d, float h) { open_box_of(w, L, d, h, 0.5f); }

// The same open box (floor at y = 0, walls at |x|, |z| = L/2, h high, restitution e) as one
// triangle mesh of its inner faces, as a container read from a CAD file is.
static inline kyu_collider_id open_mesh_box(kyu_world *w, float L, float h, float e) {
    const float s = L / 2;
    vec3s p[8] = {v3(-s, 0, -s), v3(s, 0, -s), v3(s, 0, s), v3(-s, 0, s),
                  v3(-s, h, -s), v3(s, h, -s), v3(s, h, s), v3(-s, h, s)};
    static const int32_t t[30] = {0, 2, 1, 0, 3, 2, 0, 1, 5, 0, 5, 4, 1, 2, 6,
                                  1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
    kyu_collider_def cd = kyu_collider_def_default();
    cd.type = KYU_SHAPE_MESH, cd.points = p, cd.point_count = 8, cd.indices = t, cd.triangle_count = 10;
    cd.restitution = e;
    kyu_collider_id id = KYU_NULL_COLLIDER;
    kyu_collider_create(w, &cd, &id);
    return id;
}

// n frictionless spheres of 0.5 m (e 0.2, mu 0 on bodies and walls) as a lattice of k x k a layer,
// 1.1 m apart and jittered by up to 2 cm (seed), in a box of side 1.1 k + 1 m, as physics-check
// frictionless builds its pile. NULL if the world cannot be made.
static inline kyu_world *frictionless_bed(kyu_world_def wd, int k, int n, uint32_t seed) {
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return NULL;
    const float L = 1.1f * (float)k + 1.0f, H = 1.1f * (float)((n + k * k - 1) / (k * k)) + 2.0f;
    open_box_of(w, L, 1.0f, H, 0.0f);
    kyu_body_def bd = kyu_body_def_default();
    bd.restitution = 0.2f, bd.friction = 0.0f;
    for (int i = 0; i < n; i++) {
        float j[2];
        for (int q = 0; q < 2; q++)
            seed = seed * 1664525u + 1013904223u, j[q] = 0.04f * ((float)(seed >> 8) / 16777216.0f - 0.5f);
        int layer = i / (k * k), c = i % (k * k);
        bd.position = v3(-L / 2 + 0.55f + 1.1f * (float)(c % k) + j[0], 0.55f + 1.1f * (float)layer,
                         -L / 2 + 0.55f + 1.1f * (float)(c / k) + j[1]);
        if (kyu_body_create(w, &bd, NULL) != KYU_OK) return kyu_world_destroy(w), NULL;
    }
    return w;
}

// Every test file provides one suite function, listed in tests/main.c.
void suite_geometry(void);
void suite_version(void);
void suite_errors(void);
void suite_world(void);
void suite_bodies(void);
void suite_handles(void);
void suite_physics(void);
void suite_snapshot(void);
void suite_grid(void);
void suite_solver(void);
void suite_islands(void);
void suite_threads(void);
void suite_closest(void);
void suite_intersect(void);
void suite_convex(void);
void suite_sweeps(void);
void suite_colliders(void);
void suite_query(void);
void suite_draw(void);
void suite_narrowphase(void);
void suite_removal(void);
void suite_robustness(void);
void suite_rest(void);
void suite_bulk(void);
void suite_spin(void);
void suite_validate(void);
void suite_forces(void);
void suite_audit(void);
void suite_measure(void);
void suite_insert(void);
void suite_periodic(void);

#endif
