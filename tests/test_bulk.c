// SPDX-License-Identifier: MIT
// Bulk access (bulk.h): the flat arrays hold exactly what the one-body getters give, in slot order
// or in the order of a handle list; a list call with one bad handle or value changes nothing; the
// bulk setters step the world to the same bits as the one-body setters; flat events match the
// event structs.
#include <stdlib.h>
#include <string.h>

#include "test.h"

static int same_bits(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

// 60 balls on the ground (they fall asleep), 20 in flight, 10 removed (free slots in the middle).
static kyu_world *mixed_world(kyu_body_id ids[80]) {
    kyu_world_def wd = kyu_world_def_default();
    wd.sleep_time = 0.2f;
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return NULL;
    kyu_collider_def ground = kyu_collider_def_default();
    kyu_collider_create(w, &ground, NULL);
    kyu_body_def bd = kyu_body_def_default();
    for (int i = 0; i < 80; i++) {
        bd.radius = 0.2f + 0.01f * (float)(i % 7);
        bd.mass = 1.0f + 0.5f * (float)(i % 3);
        bd.position = i < 60 ? v3((float)(i % 10), bd.radius, (float)(i / 10)) : v3((float)i, 30.0f, 0.0f);
        bd.velocity = i < 60 ? v3(0, 0, 0) : v3(0.5f, 1.0f, -0.25f * (float)(i % 5));
        bd.allow_sleep = i < 60;
        if (kyu_body_create(w, &bd, &ids[i]) != KYU_OK) return w;
    }
    for (int i = 0; i < 80; i += 8) kyu_body_destroy(w, ids[i]);
    for (int s = 0; s < 45; s++) kyu_world_step(w);
    for (int i = 0; i < 9; i++) kyu_world_update(w, 0.01f, NULL); // alpha 0.4: prev, pos and between differ
    return w;
}

static void test_world_bulk_getters_equal_the_one_body_getters(void) {
    kyu_body_id made[80];
    kyu_world *w = mixed_world(made);
    ENSURE(w);
    ENSURE(kyu_world_sleeping_body_count(w) > 0 && kyu_world_sleeping_body_count(w) < 70);
    enum { N = 70 };
    kyu_body_id ids[N];
    ENSURE(kyu_world_get_bodies(w, ids, N) == N);
    float p[3 * N], v[3 * N], ip[3 * N], r[N], m[N];
    uint8_t awake[N];
    ENSURE(kyu_world_get_positions(w, p, N) == N);
    ENSURE(kyu_world_get_velocities(w, v, N) == N);
    ENSURE(kyu_world_get_interpolated_positions(w, ip, N) == N);
    ENSURE(kyu_world_get_radii(w, r, N) == N);
    ENSURE(kyu_world_get_masses(w, m, N) == N);
    ENSURE(kyu_world_get_awake(w, awake, N) == N);
    int moving = 0;
    for (int i = 0; i < N; i++) {
        vec3s q, u, iq;
        float rr, mm;
        ENSURE(kyu_body_get_position(w, ids[i], &q) == KYU_OK);
        ENSURE(kyu_body_get_velocity(w, ids[i], &u) == KYU_OK);
        ENSURE(kyu_body_get_interpolated_position(w, ids[i], &iq) == KYU_OK);
        ENSURE(kyu_body_get_radius(w, ids[i], &rr) == KYU_OK && kyu_body_get_mass(w, ids[i], &mm) == KYU_OK);
        ENSURE(same_bits(&p[3 * i], q.raw, 12) && same_bits(&v[3 * i], u.raw, 12));
        ENSURE(same_bits(&ip[3 * i], iq.raw, 12));
        ENSURE(same_bits(&r[i], &rr, 4) && same_bits(&m[i], &mm, 4));
        ENSURE(awake[i] == (kyu_body_is_awake(w, ids[i]) ? 1 : 0));
        moving += !same_bits(&ip[3 * i], &p[3 * i], 12);
    }
    ENSURE(moving >= 15); // the interpolation was really tested on the bodies in flight (18)
    kyu_world_destroy(w);
}

static void test_world_bulk_getters_write_no_more_than_capacity(void) {
    kyu_body_id made[80];
    kyu_world *w = mixed_world(made);
    ENSURE(w);
    float p[3 * 70], head[3 * 5];
    for (int i = 0; i < 3 * 70; i++) p[i] = -7.0f;
    ENSURE(kyu_world_get_positions(w, NULL, 0) == 70);
    ENSURE(kyu_world_get_positions(w, p, 5) == 70);
    for (int i = 15; i < 3 * 70; i++) ENSURE(p[i] == -7.0f);
    ENSURE(kyu_world_get_positions(w, p, 70) == 70);
    ENSURE(kyu_world_get_positions(w, head, 5) == 70);
    ENSURE(same_bits(head, p, sizeof head));
    float r[3] = {-7.0f, -7.0f, -7.0f};
    ENSURE(kyu_world_get_radii(w, r, 2) == 70 && r[2] == -7.0f && r[1] > 0.0f);
    kyu_world_destroy(w);
}

// A world without free slots copies its array in one piece: the same answer as the slot walk.
static void test_world_positions_of_a_world_without_holes(void) {
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    kyu_body_def bd = kyu_body_def_default();
    kyu_body_id ids[3];
    for (int i = 0; i < 3; i++) {
        bd.position = v3((float)i, 2.0f * (float)i, -1.0f);
        ENSURE(kyu_body_create(w, &bd, &ids[i]) == KYU_OK);
    }
    float p[9];
    ENSURE(kyu_world_get_positions(w, p, 3) == 3);
    float want[9] = {0, 0, -1, 1, 2, -1, 2, 4, -1};
    ENSURE(same_bits(p, want, sizeof p));
    ENSURE(kyu_body_destroy(w, ids[1]) == KYU_OK);
    ENSURE(kyu_world_get_positions(w, p, 3) == 2);
    float after[6] = {0, 0, -1, 2, 4, -1};
    ENSURE(same_bits(p, after, sizeof after));
    kyu_world_destroy(w);
}

static void test_world_bulk_getters_refuse_bad_requests(void) {
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    float f[3];
    uint8_t b[1];
    ENSURE(kyu_world_get_positions(NULL, f, 1) == -1 && kyu_world_get_velocities(NULL, f, 1) == -1);
    ENSURE(kyu_world_get_radii(NULL, f, 1) == -1 && kyu_world_get_awake(NULL, b, 1) == -1);
    ENSURE(kyu_world_get_positions(w, f, -1) == -1 && kyu_world_get_masses(w, f, -1) == -1);
    ENSURE(kyu_world_get_positions(w, NULL, 1) == -1 &&
           kyu_world_get_interpolated_positions(w, NULL, 1) == -1);
    ENSURE(kyu_world_get_positions(w, NULL, 0) == 0 && kyu_world_get_awake(w, b, 1) == 0);
    kyu_world_destroy(w);
}

static void test_list_getters_follow_the_list_order_with_repeats(void) {
    kyu_body_id made[80];
    kyu_world *w = mixed_world(made);
    ENSURE(w);
    kyu_body_id list[5] = {made[79], made[3], made[79], made[61], made[1]};
    float p[15], v[15], r[5];
    ENSURE(kyu_bodies_get_positions(w, list, 5, p) == KYU_OK);
    ENSURE(kyu_bodies_get_velocities(w, list, 5, v) == KYU_OK);
    ENSURE(kyu_bodies_get_radii(w, list, 5, r) == KYU_OK);
    for (int k = 0; k < 5; k++) {
        vec3s q = pos(w, list[k]), u = vel(w, list[k]);
        float rr = 0;
        kyu_body_get_radius(w, list[k], &rr);
        ENSURE(same_bits(&p[3 * k], q.raw, 12) && same_bits(&v[3 * k], u.raw, 12) && r[k] == rr);
    }
    ENSURE(kyu_bodies_get_positions(w, NULL, 0, NULL) == KYU_OK);
    kyu_world_destroy(w);
}

// A stale handle in the middle of a list: nothing written, nothing moved, the message names it.
static void test_list_call_with_a_stale_handle_changes_nothing(void) {
    kyu_body_id made[80];
    kyu_world *w = mixed_world(made);
    ENSURE(w);
    uint64_t h0 = kyu_world_state_hash(w);
    int asleep0 = kyu_world_sleeping_body_count(w);
    kyu_body_id list[4] = {made[1], made[2], made[8], made[3]}; // made[8] was removed
    float xyz[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, out[12];
    for (int i = 0; i < 12; i++) out[i] = -7.0f;
    ENSURE(kyu_bodies_set_positions(w, list, 4, xyz) == KYU_ERR_STALE_HANDLE);
    ENSURE(strstr(kyu_world_last_error(w), "ids[2]") != NULL);
    ENSURE(kyu_bodies_set_velocities(w, list, 4, xyz) == KYU_ERR_STALE_HANDLE);
    ENSURE(kyu_bodies_get_positions(w, list, 4, out) == KYU_ERR_STALE_HANDLE);
    ENSURE(kyu_bodies_get_radii(w, list, 4, out) == KYU_ERR_STALE_HANDLE);
    for (int i = 0; i < 12; i++) ENSURE(out[i] == -7.0f);
    ENSURE(kyu_world_state_hash(w) == h0);
    ENSURE(kyu_world_sleeping_body_count(w) == asleep0); // no island was woken either
    kyu_body_id null_in_list[2] = {made[1], KYU_NULL_BODY};
    ENSURE(kyu_bodies_set_velocities(w, null_in_list, 2, xyz) == KYU_ERR_STALE_HANDLE);
    ENSURE(kyu_world_state_hash(w) == h0);
    kyu_world_destroy(w);
}

static void test_list_call_with_a_foreign_handle_changes_nothing(void) {
    kyu_body_id a[80], b[80];
    kyu_world *wa = mixed_world(a), *wb = mixed_world(b);
    ENSURE(wa && wb);
    uint64_t h0 = kyu_world_state_hash(wb);
    kyu_body_id list[2] = {b[5], a[6]};
    float xyz[6] = {0, 9, 0, 0, 9, 0};
    ENSURE(kyu_bodies_set_positions(wb, list, 2, xyz) == KYU_ERR_FOREIGN_HANDLE);
    ENSURE(strstr(kyu_world_last_error(wb), "ids[1]") != NULL);
    ENSURE(kyu_world_state_hash(wb) == h0);
    kyu_world_destroy(wa);
    kyu_world_destroy(wb);
}

// NaN, infinity or a value beyond 1e9 anywhere in the list: refused whole, the index named.
static void test_list_setters_refuse_nan_and_huge_values_whole(void) {
    kyu_body_id made[80];
    kyu_world *w = mixed_world(made);
    ENSURE(w);
    uint64_t h0 = kyu_world_state_hash(w);
    int asleep0 = kyu_world_sleeping_body_count(w);
    kyu_body_id list[3] = {made[1], made[2], made[3]};
    float bad[3] = {NAN, INFINITY, 2e9f};
    for (int k = 0; k < 3; k++) {
        float xyz[9] = {1, 1, 1, 2, 2, 2, 3, 3, 3};
        xyz[7] = bad[k];
        ENSURE(kyu_bodies_set_positions(w, list, 3, xyz) == KYU_ERR_NOT_FINITE);
        ENSURE(strstr(kyu_world_last_error(w), "xyz[7]") != NULL);
        ENSURE(kyu_bodies_set_velocities(w, list, 3, xyz) == KYU_ERR_NOT_FINITE);
    }
    ENSURE(kyu_world_state_hash(w) == h0 && kyu_world_sleeping_body_count(w) == asleep0);
    float ok[9] = {1, 1, 1, 2, 2, 2, 3, 3, 3};
    ENSURE(kyu_bodies_set_positions(w, list, -1, ok) == KYU_ERR_INVALID_ARGUMENT);
    ENSURE(kyu_bodies_set_positions(w, list, 3, NULL) == KYU_ERR_NULL);
    ENSURE(kyu_bodies_set_positions(NULL, list, 3, ok) == KYU_ERR_NULL);
    ENSURE(kyu_world_state_hash(w) == h0);
    kyu_world_destroy(w);
}

// Two copies of one world: one set body by body, the other in one call each. They must step to
// the same bits (the same wakes, the same prev positions, the same order of a repeated handle).
static void test_list_setters_step_like_the_one_body_setters(void) {
    kyu_body_id a[80], b[80];
    kyu_world *wa = mixed_world(a), *wb = mixed_world(b);
    ENSURE(wa && wb);
    ENSURE(kyu_world_state_hash(wa) == kyu_world_state_hash(wb));
    ENSURE(!kyu_body_is_awake(wb, b[33])); // the setters must wake its island
    enum { K = 6 };
    int pick[K] = {1, 12, 33, 61, 70, 12};
    float p[3 * K], v[3 * K];
    kyu_body_id lb[K];
    for (int k = 0; k < K; k++) {
        lb[k] = b[pick[k]];
        vec3s np = v3((float)k * 1.5f - 4.0f, 3.0f + (float)k, 0.25f * (float)k);
        vec3s nv = v3(0.5f * (float)k, -1.0f, 2.0f - (float)k);
        memcpy(&p[3 * k], np.raw, 12);
        memcpy(&v[3 * k], nv.raw, 12);
        ENSURE(kyu_body_set_position(wa, a[pick[k]], np) == KYU_OK);
        ENSURE(kyu_body_set_velocity(wa, a[pick[k]], nv) == KYU_OK);
    }
    ENSURE(kyu_bodies_set_positions(wb, lb, K, p) == KYU_OK);
    ENSURE(kyu_bodies_set_velocities(wb, lb, K, v) == KYU_OK);
    ENSURE(kyu_world_state_hash(wa) == kyu_world_state_hash(wb));
    ENSURE(kyu_world_sleeping_body_count(wa) == kyu_world_sleeping_body_count(wb));
    ENSURE(kyu_body_is_awake(wb, b[33]));
    for (int k = 0; k < K; k++) { // a teleport leaves no smear: prev moved with the body
        vec3s ia, ib;
        ENSURE(kyu_body_get_interpolated_position(wa, a[pick[k]], &ia) == KYU_OK);
        ENSURE(kyu_body_get_interpolated_position(wb, b[pick[k]], &ib) == KYU_OK);
        ENSURE(same_bits(ia.raw, ib.raw, 12) && same_bits(ib.raw, pos(wb, b[pick[k]]).raw, 12));
    }
    vec3s last = pos(wb, b[12]);
    ENSURE(last.x == p[3 * 5] && last.y == p[3 * 5 + 1]); // the repeat: the last value holds
    for (int s = 0; s < 60; s++) {
        kyu_world_step(wa);
        kyu_world_step(wb);
    }
    ENSURE(kyu_world_state_hash(wa) == kyu_world_state_hash(wb));
    kyu_world_destroy(wa);
    kyu_world_destroy(wb);
}

static void test_list_setter_wakes_a_sleeping_island(void) {
    kyu_body_id made[80];
    kyu_world *w = mixed_world(made);
    ENSURE(w);
    ENSURE(!kyu_body_is_awake(w, made[33]));
    float up[3] = {0, 3, 0};
    ENSURE(kyu_bodies_set_velocities(w, &made[33], 1, up) == KYU_OK);
    ENSURE(kyu_body_is_awake(w, made[33]));
    kyu_world_step(w);
    ENSURE(pos(w, made[33]).y > 0.25f + 0.03f); // its radius is 0.25: it left the ground
    kyu_world_destroy(w);
}

// Balls dropped on the ground and on each other, with impact events: the flat arrays hold the
// same events as the structs, field by field, and a small capacity writes only the first ones.
static void test_flat_events_equal_the_event_structs(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.enable_impact_events = true;
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    kyu_collider_def ground = kyu_collider_def_default();
    ENSURE(kyu_collider_create(w, &ground, NULL) == KYU_OK);
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 0.25f;
    bd.restitution = 0.5f;
    for (int i = 0; i < 12; i++) {
        bd.position = v3(0.3f * (float)(i % 3), 0.5f + 0.6f * (float)i, 0.1f * (float)(i % 2));
        ENSURE(kyu_body_create(w, &bd, NULL) == KYU_OK);
    }
    int seen_begin = 0, seen_end = 0, seen_impact = 0;
    for (int s = 0; s < 240; s++) {
        kyu_world_step(w);
        int nb, ne, ni;
        const kyu_contact_event *be = kyu_world_begin_events(w, &nb);
        const kyu_contact_event *ee = kyu_world_end_events(w, &ne);
        const kyu_impact_event *ie = kyu_world_impact_events(w, &ni);
        enum { CAP = 256 };
        kyu_body_id body[CAP], other[CAP];
        kyu_collider_id coll[CAP];
        uint8_t sensor[CAP];
        float point[3 * CAP], normal[3 * CAP], speed[CAP], t[CAP], jn[CAP], jt[3 * CAP];
        int step[CAP];
        kyu_contact_event_arrays ca = {body, other, coll, sensor, step};
        ENSURE(nb <= CAP && ne <= CAP && ni <= CAP);
        ENSURE(kyu_world_get_begin_events_flat(w, &ca, CAP) == nb);
        for (int i = 0; i < nb; i++)
            ENSURE(same_bits(&body[i], &be[i].body, sizeof body[i]) &&
                   same_bits(&other[i], &be[i].other, 12) && same_bits(&coll[i], &be[i].collider, 12) &&
                   sensor[i] == be[i].sensor && step[i] == be[i].step);
        ENSURE(kyu_world_get_end_events_flat(w, &ca, CAP) == ne);
        for (int i = 0; i < ne; i++)
            ENSURE(same_bits(&body[i], &ee[i].body, 12) && same_bits(&other[i], &ee[i].other, 12) &&
                   same_bits(&coll[i], &ee[i].collider, 12));
        kyu_impact_event_arrays ia = {body, other, coll, point, normal, speed, t, step, jn, jt};
        ENSURE(kyu_world_get_impact_events_flat(w, &ia, CAP) == ni);
        for (int i = 0; i < ni; i++)
            ENSURE(same_bits(&body[i], &ie[i].body, 12) && same_bits(&other[i], &ie[i].other, 12) &&
                   same_bits(&coll[i], &ie[i].collider, 12) &&
                   same_bits(&point[3 * i], ie[i].point.raw, 12) &&
                   same_bits(&normal[3 * i], ie[i].normal.raw, 12) && speed[i] == ie[i].approach_speed &&
                   t[i] == ie[i].time && step[i] == ie[i].step && jn[i] == ie[i].normal_impulse &&
                   same_bits(&jt[3 * i], ie[i].tangent_impulse.raw, 12));
        if (ni >= 2) { // capacity 1 with only the speeds asked: one written
            float one[2] = {-7.0f, -7.0f};
            kyu_impact_event_arrays only = {NULL, NULL, NULL, NULL, NULL, one, NULL, NULL, NULL, NULL};
            ENSURE(kyu_world_get_impact_events_flat(w, &only, 1) == ni);
            ENSURE(one[0] == ie[0].approach_speed && one[1] == -7.0f);
        }
        seen_begin += nb, seen_end += ne, seen_impact += ni;
    }
    ENSURE(seen_begin > 10 && seen_end > 0 && seen_impact > 10); // every kind was compared
    kyu_contact_event_arrays none = {NULL, NULL, NULL, NULL, NULL};
    ENSURE(kyu_world_get_begin_events_flat(NULL, &none, 0) == -1);
    ENSURE(kyu_world_get_begin_events_flat(w, NULL, 0) == -1);
    ENSURE(kyu_world_get_end_events_flat(w, &none, -1) == -1);
    kyu_world_destroy(w);
}

// The settings getter (world.h) that bindings use to show a world's settings: those of create, then
// set_gravity's, then a snapshot's.
static void test_world_def_getter_follows_set_gravity_and_load(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.fixed_dt = 0.01f;
    wd.sleep_time = 0.75f;
    kyu_world *a = NULL, *b = NULL;
    ENSURE(kyu_world_create(&wd, &a) == KYU_OK);
    kyu_world_def got = kyu_world_get_def(a);
    ENSURE(got.fixed_dt == 0.01f && got.sleep_time == 0.75f && got.gravity.y == -9.81f);
    ENSURE(kyu_world_set_gravity(a, v3(1, 2, 3)) == KYU_OK);
    ENSURE(kyu_world_get_def(a).gravity.z == 3.0f);
    kyu_world_def other = kyu_world_def_default();
    ENSURE(kyu_world_create(&other, &b) == KYU_OK);
    size_t size = 0;
    ENSURE(kyu_world_save_memory(a, NULL, 0, &size) == KYU_OK);
    void *buf = malloc(size);
    ENSURE(buf && kyu_world_save_memory(a, buf, size, &size) == KYU_OK);
    ENSURE(kyu_world_load_memory(b, buf, size) == KYU_OK);
    free(buf);
    got = kyu_world_get_def(b);
    ENSURE(got.fixed_dt == 0.01f && got.sleep_time == 0.75f && got.gravity.x == 1.0f);
    ENSURE(kyu_world_get_def(NULL).fixed_dt == kyu_world_def_default().fixed_dt);
    kyu_world_destroy(a);
    kyu_world_destroy(b);
}

void suite_bulk(void) {
    RUN_TEST(test_world_bulk_getters_equal_the_one_body_getters);
    RUN_TEST(test_world_bulk_getters_write_no_more_than_capacity);
    RUN_TEST(test_world_positions_of_a_world_without_holes);
    RUN_TEST(test_world_bulk_getters_refuse_bad_requests);
    RUN_TEST(test_list_getters_follow_the_list_order_with_repeats);
    RUN_TEST(test_list_call_with_a_stale_handle_changes_nothing);
    RUN_TEST(test_list_call_with_a_foreign_handle_changes_nothing);
    RUN_TEST(test_list_setters_refuse_nan_and_huge_values_whole);
    RUN_TEST(test_list_setters_step_like_the_one_body_setters);
    RUN_TEST(test_list_setter_wakes_a_sleeping_island);
    RUN_TEST(test_flat_events_equal_the_event_structs);
    RUN_TEST(test_world_def_getter_follows_set_gravity_and_load);
}
