// SPDX-License-Identifier: MIT
// Removing bodies and colliders: every list that can hold a contact (the cache, the islands woken
// since the last step, the sleeping islands) forgets what was removed, whatever state the other side
// is in (asleep, woken by the API, awake), and nothing reports a pair with a removed body.
#include <string.h>

#include "../engine/internal.h"
#include "test.h"

#define ENSURE_VALID(w)                                                                                      \
    do {                                                                                                     \
        char why_[200];                                                                                      \
        if (kyu_world_validate((w), why_, sizeof why_) != 0) {                                               \
            test_fail(__FILE__, __LINE__, why_);                                                             \
            return;                                                                                          \
        }                                                                                                    \
    } while (0)

// The floor of each collider shape, top face at y = 0 around the origin.
static kyu_collider_id make_floor(kyu_world *w, kyu_shape_type type) {
    kyu_collider_def cd = kyu_collider_def_default();
    static const vec3s mesh_pts[4] = {{{-5, 0, -5}}, {{5, 0, -5}}, {{5, 0, 5}}, {{-5, 0, 5}}};
    static const int32_t tris[6] = {0, 2, 1, 0, 3, 2};
    static const vec3s hull_pts[8] = {{{-5, -1, -5}}, {{5, -1, -5}}, {{5, -1, 5}}, {{-5, -1, 5}},
                                      {{-5, 0, -5}},  {{5, 0, -5}},  {{5, 0, 5}},  {{-5, 0, 5}}};
    cd.type = type;
    switch (type) {
    case KYU_SHAPE_PLANE:
        break;
    case KYU_SHAPE_BOX:
        cd.position = v3(0, -0.5f, 0), cd.half_extents = v3(5, 0.5f, 5);
        break;
    case KYU_SHAPE_CAPSULE:
        cd.capsule_a = v3(-5, -1, 0), cd.capsule_b = v3(5, -1, 0), cd.radius = 1;
        break;
    case KYU_SHAPE_HULL:
        cd.points = hull_pts, cd.point_count = 8;
        break;
    case KYU_SHAPE_MESH:
        cd.points = mesh_pts, cd.point_count = 4, cd.indices = tris, cd.triangle_count = 2;
        break;
    }
    kyu_collider_id id = KYU_NULL_COLLIDER;
    kyu_collider_create(w, &cd, &id);
    return id;
}

static kyu_world *sleepy_world(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.sleep_time = 0.2f;
    kyu_world *w = NULL;
    kyu_world_create(&wd, &w);
    return w;
}

static kyu_body_id drop_ball(kyu_world *w, vec3s p) {
    kyu_body_def bd = kyu_body_def_default();
    bd.position = p;
    kyu_body_id id = KYU_NULL_BODY;
    kyu_body_create(w, &bd, &id);
    return id;
}

// A ball asleep on a floor of every shape; the floor is removed while the ball sleeps, or after the
// ball was woken through the API (its island's contacts then wait in the woken list), or while it
// is awake. The next steps run (no crash, no read of the removed shape), the ball falls, and the
// end of its contact is reported once, naming the removed collider.
static void test_removing_a_floor_under_a_resting_ball_in_every_state(void) {
    for (int type = KYU_SHAPE_PLANE; type <= KYU_SHAPE_MESH; type++)
        for (int how = 0; how < 3; how++) {
            kyu_world *w = sleepy_world();
            kyu_collider_id floor = make_floor(w, (kyu_shape_type)type);
            kyu_body_id ball = drop_ball(w, v3(0, 0.5f, 0));
            for (int s = 0; s < 120 && kyu_body_is_awake(w, ball); s++) kyu_world_step(w);
            ENSURE(!kyu_body_is_awake(w, ball));
            if (how == 1) ENSURE(kyu_body_set_velocity(w, ball, v3(0.01f, 0, 0)) == KYU_OK);
            if (how == 2) {
                kyu_body_set_velocity(w, ball, v3(0.01f, 0, 0));
                kyu_world_step(w);
            }
            ENSURE(kyu_collider_destroy(w, floor) == KYU_OK);
            ENSURE(kyu_body_is_awake(w, ball));
            ENSURE_VALID(w);
            int total = -1;
            ENSURE(kyu_body_get_contacts(w, ball, NULL, 0, &total) == KYU_OK);
            ENSURE(total == 0); // the pair is gone at once for readers
            ENSURE(kyu_world_step(w) == KYU_OK);
            ENSURE_VALID(w);
            int n = 0;
            const kyu_contact_event *ends = kyu_world_end_events(w, &n);
            ENSURE(n == 1);
            ENSURE(ends[0].collider.index1 == floor.index1 &&
                   ends[0].collider.generation == floor.generation);
            ENSURE(!kyu_collider_is_valid(w, ends[0].collider));
            for (int s = 0; s < 30; s++) ENSURE(kyu_world_step(w) == KYU_OK);
            ENSURE(pos(w, ball).y < -0.5f); // nothing holds it up (it fell 1.2 m in 0.5 s)
            ENSURE_VALID(w);
            kyu_world_destroy(w);
        }
}

// A snapshot taken between the removal and the next step holds the pending removal: it loads, and
// the resumed run is bit-identical to the one that never stopped (same end event, same fall).
static void test_snapshot_between_removal_and_step_resumes_identically(void) {
    for (int type = KYU_SHAPE_PLANE; type <= KYU_SHAPE_MESH; type++) {
        kyu_world *w = sleepy_world();
        kyu_collider_id floor = make_floor(w, (kyu_shape_type)type);
        kyu_body_id ball = drop_ball(w, v3(0, 0.5f, 0));
        kyu_body_id gone = drop_ball(w, v3(3, 0.5f, 0));
        for (int s = 0; s < 120; s++) kyu_world_step(w);
        kyu_body_set_velocity(w, ball, v3(0.01f, 0, 0));
        kyu_collider_destroy(w, floor);
        kyu_body_destroy(w, gone);
        size_t size = 0;
        ENSURE(kyu_world_save_memory(w, NULL, 0, &size) == KYU_OK);
        void *buf = malloc(size);
        ENSURE(kyu_world_save_memory(w, buf, size, &size) == KYU_OK);
        kyu_world *copy = sleepy_world();
        kyu_status st = kyu_world_load_memory(copy, buf, size);
        free(buf);
        ENSURE(st == KYU_OK);
        ENSURE_VALID(copy);
        // Created before the next step, in both: neither takes the removed body's slot (the file
        // says it waits for the step), and both get the same one.
        kyu_body_id early = drop_ball(w, v3(-3, 2, 0)), early_copy = drop_ball(copy, v3(-3, 2, 0));
        ENSURE(early.index1 == early_copy.index1 && early.index1 != gone.index1);
        for (int s = 0; s < 20; s++) {
            ENSURE(kyu_world_step(w) == KYU_OK);
            ENSURE(kyu_world_step(copy) == KYU_OK);
            if (s == 0) { // now the removed slot is free, in both
                kyu_body_id late = drop_ball(w, v3(-6, 2, 0)), late_copy = drop_ball(copy, v3(-6, 2, 0));
                ENSURE(late.index1 == gone.index1 && late_copy.index1 == gone.index1);
            }
            int n1, n2;
            kyu_world_end_events(w, &n1);
            kyu_world_end_events(copy, &n2);
            ENSURE(n1 == n2);
            ENSURE(kyu_world_state_hash(w) == kyu_world_state_hash(copy));
        }
        ENSURE(pos(w, ball).y < 0.0f);
        kyu_world_destroy(w);
        kyu_world_destroy(copy);
    }
}

// A removed body's pairs are not reported by its neighbours; a body created before the next step
// does not take its slot (the pairs that name it are dropped, and their ends reported with a's
// handle, when the step begins); one created after the step does, and inherits none of them.
static void test_reused_slot_inherits_no_pairs(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.enable_sleep = false;
    kyu_world *w = NULL;
    kyu_world_create(&wd, &w);
    make_floor(w, KYU_SHAPE_PLANE);
    kyu_body_id a = drop_ball(w, v3(0, 0.5f, 0));
    kyu_body_id b = drop_ball(w, v3(0, 1.5f, 0)); // resting on a
    kyu_body_id c = drop_ball(w, v3(5, 0.5f, 0)); // alone on the floor
    for (int s = 0; s < 30; s++) kyu_world_step(w);
    int total = 0;
    kyu_body_get_contacts(w, b, NULL, 0, &total);
    ENSURE(total == 1);
    ENSURE(kyu_body_destroy(w, a) == KYU_OK);
    kyu_body_get_contacts(w, b, NULL, 0, &total);
    ENSURE(total == 0); // a is gone: b touches nothing until the next step finds its floor
    kyu_body_id d = drop_ball(w, v3(-5, 3, 0)); // far from everything
    ENSURE(d.index1 != a.index1);               // a's slot waits for the step
    kyu_body_get_contacts(w, d, NULL, 0, &total);
    ENSURE(total == 0);
    kyu_body_get_contacts(w, c, NULL, 0, &total);
    ENSURE(total == 1); // its own floor contact stays
    ENSURE_VALID(w);
    ENSURE(kyu_world_step(w) == KYU_OK);
    int n = 0;
    const kyu_contact_event *ends = kyu_world_end_events(w, &n);
    int found = 0;
    for (int i = 0; i < n; i++) {
        ENSURE(ends[i].body.generation == a.generation || ends[i].other.generation == a.generation);
        found++;
    }
    ENSURE(found == 2); // a's floor pair and its pair with b, naming a's old handle
    kyu_body_get_contacts(w, d, NULL, 0, &total);
    ENSURE(total == 0);
    kyu_body_id e = drop_ball(w, v3(-10, 3, 0)); // now takes a's slot, far from everything
    ENSURE(e.index1 == a.index1 && e.generation != a.generation);
    kyu_body_get_contacts(w, e, NULL, 0, &total);
    ENSURE(total == 0);
    ENSURE_VALID(w);
    ENSURE(kyu_world_step(w) == KYU_OK);
    kyu_body_get_contacts(w, e, NULL, 0, &total);
    ENSURE(total == 0);
    ENSURE_VALID(w);
    kyu_world_destroy(w);
}

// A sensor beside a sleeping body (near, not overlapping: sensors do not link islands) is removed:
// the island never held their pair, so nothing names the sensor afterwards.
static void test_removing_a_sensor_beside_a_sleeper(void) {
    kyu_world *w = sleepy_world();
    make_floor(w, KYU_SHAPE_PLANE);
    kyu_body_id ball = drop_ball(w, v3(0, 0.5f, 0));
    kyu_body_def sd = kyu_body_def_default();
    sd.is_sensor = true;
    sd.gravity_scale = 0;
    sd.position = v3(1.01f, 0.5f, 0); // 1 cm apart: a kept pair, not an overlap
    kyu_body_id sensor = KYU_NULL_BODY;
    kyu_body_create(w, &sd, &sensor);
    for (int s = 0; s < 120 && kyu_body_is_awake(w, ball); s++) kyu_world_step(w);
    ENSURE(!kyu_body_is_awake(w, ball));
    ENSURE(kyu_body_is_awake(w, sensor));
    ENSURE_VALID(w);
    ENSURE(kyu_body_destroy(w, sensor) == KYU_OK);
    ENSURE_VALID(w);
    kyu_body_set_velocity(w, ball, v3(0.01f, 0, 0));
    for (int s = 0; s < 10; s++) {
        ENSURE(kyu_world_step(w) == KYU_OK);
        ENSURE_VALID(w);
    }
    kyu_world_destroy(w);
}

void suite_removal(void) {
    RUN_TEST(test_removing_a_floor_under_a_resting_ball_in_every_state);
    RUN_TEST(test_snapshot_between_removal_and_step_resumes_identically);
    RUN_TEST(test_reused_slot_inherits_no_pairs);
    RUN_TEST(test_removing_a_sensor_beside_a_sleeper);
}
