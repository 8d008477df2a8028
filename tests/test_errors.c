// SPDX-License-Identifier: MIT
// How the API reports a failure (engine/error.c, the preamble of world.h): every status has a
// sentence of its own, and a NULL world, def or out pointer is refused with KYU_ERR_NULL, the
// world unchanged and its last error set (the checks are in contract.h).
#include <string.h>

#include "contract.h"

// ---- Status strings -----------------------------------------------------------------------------

static void test_every_status_has_a_distinct_sentence(void) {
    for (int i = 0; i < KYU_STATUS_COUNT; i++) {
        const char *s = kyu_status_string((kyu_status)i);
        ENSURE(s != NULL && s[0] != '\0');
        for (int j = 0; j < i; j++) ENSURE(strcmp(s, kyu_status_string((kyu_status)j)) != 0);
    }
    const int out_of_range[] = {-1, KYU_STATUS_COUNT, KYU_STATUS_COUNT + 1, 1000, INT32_MAX};
    for (size_t i = 0; i < sizeof out_of_range / sizeof out_of_range[0]; i++) {
        const char *s = kyu_status_string((kyu_status)out_of_range[i]);
        ENSURE(s != NULL && s[0] != '\0');
    }
}

// ---- NULL arguments -----------------------------------------------------------------------------

// Every function taking a world must accept NULL and report it, not crash. The handles below are
// real (from another world), so a function that looked them up before checking the world would
// crash here.
static void test_null_world_is_rejected_by_every_function(void) {
    kyu_world *other = make_world(v3(0, -9.81f, 0));
    ENSURE(other);
    kyu_body_id b = add_body(other, v3(0, 1, 0), v3(0, 0, 0));
    kyu_collider_def cd = kyu_collider_def_default();
    kyu_collider_id c = KYU_NULL_COLLIDER;
    ENSURE(kyu_collider_create(other, &cd, &c) == KYU_OK);
    kyu_body_def bd = kyu_body_def_default();
    vec3s out3 = v3(7, 7, 7);
    float f = 7.0f;
    void *ud = &f;
    int steps = 7;
    double mom[3] = {7, 7, 7};

    kyu_world_destroy(NULL); // allowed, does nothing
    EXPECT(kyu_world_last_error(NULL) != NULL && kyu_world_last_error(NULL)[0] != '\0');
    EXPECT_STATUS(kyu_world_step(NULL), KYU_ERR_NULL);
    EXPECT_STATUS(kyu_world_update(NULL, 1.0f / 60.0f, &steps), KYU_ERR_NULL);
    EXPECT(steps == 0);
    EXPECT(kyu_world_alpha(NULL) == 0.0f);
    EXPECT_STATUS(kyu_world_set_gravity(NULL, v3(0, -1, 0)), KYU_ERR_NULL);
    kyu_step_stats st = kyu_world_stats(NULL);
    EXPECT(st.awake_bodies == 0 && st.candidate_pairs == 0 && st.impacts == 0 && st.contacts == 0);
    EXPECT(kyu_world_body_count(NULL) == 0);
    EXPECT(kyu_world_kinetic_energy(NULL) == 0.0);
    EXPECT_STATUS(kyu_world_momentum(NULL, mom), KYU_ERR_NULL);
    // The brief's rule for getters on a NULL world: 0. (A hash equal to the empty world's hash
    // would also make "no world" indistinguishable from "empty world".)
    EXPECT(kyu_world_state_hash(NULL) == 0);

    kyu_body_id made = {9, 9, 9};
    EXPECT_STATUS(kyu_body_create(NULL, &bd, &made), KYU_ERR_NULL);
    EXPECT(body_id_eq(made, KYU_NULL_BODY));
    EXPECT_STATUS(kyu_body_destroy(NULL, b), KYU_ERR_NULL);
    EXPECT(!kyu_body_is_valid(NULL, b));
    EXPECT_STATUS(kyu_body_get_position(NULL, b, &out3), KYU_ERR_NULL);
    EXPECT_STATUS(kyu_body_set_position(NULL, b, v3(1, 2, 3)), KYU_ERR_NULL);
    EXPECT_STATUS(kyu_body_get_velocity(NULL, b, &out3), KYU_ERR_NULL);
    EXPECT_STATUS(kyu_body_set_velocity(NULL, b, v3(1, 2, 3)), KYU_ERR_NULL);
    EXPECT_STATUS(kyu_body_apply_impulse(NULL, b, v3(1, 2, 3)), KYU_ERR_NULL);
    EXPECT_STATUS(kyu_body_get_interpolated_position(NULL, b, &out3), KYU_ERR_NULL);
    EXPECT_STATUS(kyu_body_get_radius(NULL, b, &f), KYU_ERR_NULL);
    EXPECT_STATUS(kyu_body_get_mass(NULL, b, &f), KYU_ERR_NULL);
    EXPECT_STATUS(kyu_body_get_user_data(NULL, b, &ud), KYU_ERR_NULL);

    kyu_collider_id cmade = {9, 9, 9};
    EXPECT_STATUS(kyu_collider_create(NULL, &cd, &cmade), KYU_ERR_NULL);
    EXPECT(collider_id_eq(cmade, KYU_NULL_COLLIDER));
    EXPECT_STATUS(kyu_collider_destroy(NULL, c), KYU_ERR_NULL);
    EXPECT(!kyu_collider_is_valid(NULL, c));
    EXPECT_STATUS(kyu_collider_set_velocity(NULL, c, v3(1, 0, 0)), KYU_ERR_NULL);
    EXPECT_STATUS(kyu_collider_set_transform(NULL, c, v3(1, 0, 0), glms_quat_identity()), KYU_ERR_NULL);
    EXPECT_STATUS(kyu_collider_get_position(NULL, c, &out3), KYU_ERR_NULL);

    // Nothing above may have touched the other world.
    EXPECT(kyu_body_is_valid(other, b) && kyu_collider_is_valid(other, c));
    EXPECT(kyu_world_body_count(other) == 1);
    kyu_world_destroy(other);
}

static void test_null_def_and_null_out_are_rejected(void) {
    kyu_world *w = make_world(v3(0, -9.81f, 0));
    ENSURE(w);
    kyu_body_id b = add_body(w, v3(0, 1, 0), v3(1, 0, 0));
    ENSURE(kyu_body_is_valid(w, b));
    kyu_collider_def cd = kyu_collider_def_default();
    kyu_collider_id c;
    ENSURE(kyu_collider_create(w, &cd, &c) == KYU_OK);

    kyu_body_id made = {9, 9, 9};
    REJECTS(w, KYU_ERR_NULL, "def", "kyu_body_create(w, NULL, &out)", kyu_body_create(w, NULL, &made));
    EXPECT(body_id_eq(made, KYU_NULL_BODY));
    kyu_collider_id cmade = {9, 9, 9};
    REJECTS(w, KYU_ERR_NULL, "def", "kyu_collider_create(w, NULL, &out)",
            kyu_collider_create(w, NULL, &cmade));
    EXPECT(collider_id_eq(cmade, KYU_NULL_COLLIDER));
    EXPECT(!kyu_collider_is_valid(w, (kyu_collider_id){2, c.world, 1})); // no second collider made

    REJECTS(w, KYU_ERR_NULL, "out", "get_position out NULL", kyu_body_get_position(w, b, NULL));
    REJECTS(w, KYU_ERR_NULL, "out", "get_velocity out NULL", kyu_body_get_velocity(w, b, NULL));
    REJECTS(w, KYU_ERR_NULL, "out", "get_interpolated_position out NULL",
            kyu_body_get_interpolated_position(w, b, NULL));
    REJECTS(w, KYU_ERR_NULL, "out", "get_radius out NULL", kyu_body_get_radius(w, b, NULL));
    REJECTS(w, KYU_ERR_NULL, "out", "get_mass out NULL", kyu_body_get_mass(w, b, NULL));
    REJECTS(w, KYU_ERR_NULL, "out", "get_user_data out NULL", kyu_body_get_user_data(w, b, NULL));
    REJECTS(w, KYU_ERR_NULL, "out", "collider_get_position out NULL", kyu_collider_get_position(w, c, NULL));
    REJECTS(w, KYU_ERR_NULL, "out", "kyu_world_momentum out NULL", kyu_world_momentum(w, NULL));
    kyu_world_destroy(w);
}

void suite_errors(void) {
    RUN_TEST(test_every_status_has_a_distinct_sentence);
    RUN_TEST(test_null_world_is_rejected_by_every_function);
    RUN_TEST(test_null_def_and_null_out_are_rejected);
}
