// SPDX-License-Identifier: MIT
// Bodies (include/kyu/world.h, engine/body.c): defs with a bad field refused, setters that refuse
// NaN, infinity and values past the limits, getters that return what was set, impulses, the
// max_bodies cap and storage that grows from one slot (the checks are in contract.h; which status
// a NaN or infinite value gets follows the rule at its top).
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contract.h"

// ---- Body defs ----------------------------------------------------------------------------------

static const float_field body_fields[] = {
    VEC_FIELD(kyu_body_def, position, 0, "position"),
    VEC_FIELD(kyu_body_def, position, 1, "position"),
    VEC_FIELD(kyu_body_def, position, 2, "position"),
    VEC_FIELD(kyu_body_def, velocity, 0, "velocity"),
    VEC_FIELD(kyu_body_def, velocity, 1, "velocity"),
    VEC_FIELD(kyu_body_def, velocity, 2, "velocity"),
    {"radius", offsetof(kyu_body_def, radius), KYU_ERR_RADIUS, "radius"},
    {"mass", offsetof(kyu_body_def, mass), KYU_ERR_MASS, "mass"},
    {"restitution", offsetof(kyu_body_def, restitution), KYU_ERR_RESTITUTION, "restitution"},
    {"friction", offsetof(kyu_body_def, friction), KYU_ERR_FRICTION, "friction"},
    {"linear_damping", offsetof(kyu_body_def, linear_damping), KYU_ERR_DAMPING, "damping"},
    {"gravity_scale", offsetof(kyu_body_def, gravity_scale), KYU_ERR_NOT_FINITE, "gravity"},
};

// A def rejected by kyu_body_create: status, unchanged world, fresh error, null *out.
static void expect_body_def_rejected(const char *file, int line, kyu_world *w, const kyu_body_def *d,
                                     kyu_status want, const char *keyword, const char *what) {
    prime_error(w);
    snapshot before = take_snapshot(w);
    kyu_body_id out = {9, 9, 9};
    kyu_status got = kyu_body_create(w, d, &out);
    check_rejected(file, line, what, w, &before, got, want, keyword);
    if (!body_id_eq(out, KYU_NULL_BODY)) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s: *out is not the null handle after a failure", what);
        test_fail(file, line, msg);
    }
}

static void test_nonfinite_body_def_field_is_rejected(void) {
    kyu_world *w = make_world(v3(0, -9.81f, 0));
    ENSURE(w);
    add_body(w, v3(0, 3, 0), v3(0, 0, 0)); // a non-empty world, so a change would show in the hash
    for (size_t i = 0; i < sizeof body_fields / sizeof body_fields[0]; i++) {
        for (int k = 0; k < NONFINITE_COUNT; k++) {
            kyu_body_def d = kyu_body_def_default();
            memcpy((char *)&d + body_fields[i].offset, &nonfinite_values[k], sizeof(float));
            char what[128];
            snprintf(what, sizeof what, "body def %s = %s", body_fields[i].name, nonfinite_names[k]);
            expect_body_def_rejected(__FILE__, __LINE__, w, &d, body_fields[i].nonfinite,
                                     body_fields[i].keyword, what);
        }
    }
    ENSURE(kyu_world_body_count(w) == 1);
    kyu_world_destroy(w);
}

static void test_out_of_range_body_def_field_is_rejected(void) {
    kyu_world *w = make_world(v3(0, -9.81f, 0));
    ENSURE(w);
    add_body(w, v3(0, 3, 0), v3(0, 0, 0));
    const struct {
        const char *name;
        size_t offset;
        float value;
        kyu_status want;
        const char *keyword;
    } cases[] = {
        {"radius", offsetof(kyu_body_def, radius), 0.0f, KYU_ERR_RADIUS, "radius"},
        {"radius", offsetof(kyu_body_def, radius), -0.0f, KYU_ERR_RADIUS, "radius"},
        {"radius", offsetof(kyu_body_def, radius), -1.0f, KYU_ERR_RADIUS, "radius"},
        {"mass", offsetof(kyu_body_def, mass), 0.0f, KYU_ERR_MASS, "mass"},
        {"mass", offsetof(kyu_body_def, mass), -1.0f, KYU_ERR_MASS, "mass"},
        {"restitution", offsetof(kyu_body_def, restitution), -0.01f, KYU_ERR_RESTITUTION, "restitution"},
        {"restitution", offsetof(kyu_body_def, restitution), 1.01f, KYU_ERR_RESTITUTION, "restitution"},
        {"friction", offsetof(kyu_body_def, friction), -0.01f, KYU_ERR_FRICTION, "friction"},
        {"linear_damping", offsetof(kyu_body_def, linear_damping), -0.01f, KYU_ERR_DAMPING, "damping"},
        {"position.x", offsetof(kyu_body_def, position), 1.5e9f, KYU_ERR_NOT_FINITE, "position"},
        {"position.y", offsetof(kyu_body_def, position) + 4, -1.5e9f, KYU_ERR_NOT_FINITE, "position"},
        {"position.z", offsetof(kyu_body_def, position) + 8, 1.5e9f, KYU_ERR_NOT_FINITE, "position"},
        {"velocity.x", offsetof(kyu_body_def, velocity), -1.5e9f, KYU_ERR_NOT_FINITE, "velocity"},
        {"velocity.y", offsetof(kyu_body_def, velocity) + 4, 1.5e9f, KYU_ERR_NOT_FINITE, "velocity"},
        {"velocity.z", offsetof(kyu_body_def, velocity) + 8, -1.5e9f, KYU_ERR_NOT_FINITE, "velocity"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kyu_body_def d = kyu_body_def_default();
        memcpy((char *)&d + cases[i].offset, &cases[i].value, sizeof(float));
        char what[128];
        snprintf(what, sizeof what, "body def %s = %g", cases[i].name, (double)cases[i].value);
        expect_body_def_rejected(__FILE__, __LINE__, w, &d, cases[i].want, cases[i].keyword, what);
    }
    // The boundaries themselves are legal: restitution 0 and 1, friction and damping 0.
    kyu_body_def d = kyu_body_def_default();
    d.restitution = 1.0f;
    d.friction = 0.0f;
    d.linear_damping = 0.0f;
    EXPECT_STATUS(kyu_body_create(w, &d, NULL), KYU_OK);
    kyu_world_destroy(w);
}

static void test_body_def_not_made_by_default_is_rejected(void) {
    kyu_world *w = make_world(v3(0, -9.81f, 0));
    ENSURE(w);
    add_body(w, v3(0, 3, 0), v3(0, 0, 0));
    kyu_body_def zero;
    memset(&zero, 0, sizeof zero);
    // A zeroed def would otherwise fail on radius 0: fill in legal values so only the cookie is wrong.
    zero.radius = 0.5f;
    zero.mass = 1.0f;
    expect_body_def_rejected(__FILE__, __LINE__, w, &zero, KYU_ERR_INVALID_DEF, "default",
                             "body def with valid fields but no cookie");
    memset(&zero, 0, sizeof zero);
    expect_body_def_rejected(__FILE__, __LINE__, w, &zero, KYU_ERR_INVALID_DEF, "default", "zeroed body def");
    kyu_world_destroy(w);
}

// ---- Setters and getters ------------------------------------------------------------------------

static void test_nonfinite_or_huge_body_setter_is_rejected(void) {
    kyu_world *w = make_world(v3(0, -9.81f, 0));
    ENSURE(w);
    kyu_body_id b = add_body(w, v3(1, 2, 3), v3(4, 5, 6));
    ENSURE(kyu_body_is_valid(w, b));
    char what[128];
    for (int axis = 0; axis < 3; axis++) {
        for (int k = 0; k < NONFINITE_COUNT; k++) {
            vec3s bad = v3(1, 1, 1);
            bad.raw[axis] = nonfinite_values[k];
            snprintf(what, sizeof what, "set_position axis %d = %s", axis, nonfinite_names[k]);
            REJECTS(w, KYU_ERR_NOT_FINITE, "position", what, kyu_body_set_position(w, b, bad));
            snprintf(what, sizeof what, "set_velocity axis %d = %s", axis, nonfinite_names[k]);
            REJECTS(w, KYU_ERR_NOT_FINITE, "velocity", what, kyu_body_set_velocity(w, b, bad));
            snprintf(what, sizeof what, "apply_impulse axis %d = %s", axis, nonfinite_names[k]);
            REJECTS(w, KYU_ERR_NOT_FINITE, "impulse", what, kyu_body_apply_impulse(w, b, bad));
        }
        vec3s huge = v3(1, 1, 1);
        huge.raw[axis] = axis == 1 ? -1.5e9f : 1.5e9f;
        snprintf(what, sizeof what, "set_position axis %d = 1.5e9", axis);
        REJECTS(w, KYU_ERR_NOT_FINITE, "position", what, kyu_body_set_position(w, b, huge));
        snprintf(what, sizeof what, "set_velocity axis %d = 1.5e9", axis);
        REJECTS(w, KYU_ERR_NOT_FINITE, "velocity", what, kyu_body_set_velocity(w, b, huge));
        // Finite impulses whose result is beyond the velocity limit (or overflows to inf).
        snprintf(what, sizeof what, "apply_impulse axis %d = 1.5e9 (v beyond 1e9)", axis);
        REJECTS(w, KYU_ERR_NOT_FINITE, "impulse", what, kyu_body_apply_impulse(w, b, huge));
        vec3s max = v3(0, 0, 0);
        max.raw[axis] = FLT_MAX;
        snprintf(what, sizeof what, "apply_impulse axis %d = FLT_MAX", axis);
        REJECTS(w, KYU_ERR_NOT_FINITE, "impulse", what, kyu_body_apply_impulse(w, b, max));
    }
    // A tiny mass turns a moderate impulse into an overflowing velocity change.
    kyu_body_def light = kyu_body_def_default();
    light.mass = 1e-20f;
    light.position = v3(5, 5, 5);
    kyu_body_id l;
    ENSURE(kyu_body_create(w, &light, &l) == KYU_OK);
    REJECTS(w, KYU_ERR_NOT_FINITE, "impulse", "impulse 1e19 on mass 1e-20",
            kyu_body_apply_impulse(w, l, v3(1e19f, 0, 0)));
    vec3s p, v;
    ENSURE(kyu_body_get_position(w, b, &p) == KYU_OK && kyu_body_get_velocity(w, b, &v) == KYU_OK);
    EXPECT(same3(p, v3(1, 2, 3)) && same3(v, v3(4, 5, 6)));
    kyu_world_destroy(w);
}

static void test_getters_return_what_was_set(void) {
    kyu_world *w = make_world(v3(0, -9.81f, 0));
    ENSURE(w);
    static int payload;
    kyu_body_def d = kyu_body_def_default();
    d.position = v3(1.5f, -2.25f, 3.125f);
    d.velocity = v3(-4, 5.5f, 0.75f);
    d.radius = 0.75f;
    d.mass = 2.5f;
    d.user_data = &payload;
    kyu_body_id b;
    ENSURE(kyu_body_create(w, &d, &b) == KYU_OK);
    float f;
    void *ud;
    vec3s p;
    EXPECT(kyu_body_get_radius(w, b, &f) == KYU_OK && f == 0.75f);
    EXPECT(kyu_body_get_mass(w, b, &f) == KYU_OK && f == 2.5f);
    EXPECT(kyu_body_get_user_data(w, b, &ud) == KYU_OK && ud == &payload);
    EXPECT(kyu_body_get_position(w, b, &p) == KYU_OK && same3(p, d.position));
    EXPECT(kyu_body_get_velocity(w, b, &p) == KYU_OK && same3(p, d.velocity));
    double mom[3];
    EXPECT(kyu_world_momentum(w, mom) == KYU_OK);
    EXPECT(mom[0] == -10.0 && mom[1] == 13.75 && mom[2] == 1.875);
    ENSURE_NEAR(kyu_world_kinetic_energy(w), 0.5 * 2.5 * (16.0 + 30.25 + 0.5625), 1e-12);

    ENSURE(kyu_body_set_position(w, b, v3(-7, 8.5f, 1e5f)) == KYU_OK);
    EXPECT(kyu_body_get_position(w, b, &p) == KYU_OK && same3(p, v3(-7, 8.5f, 1e5f)));
    ENSURE(kyu_body_set_velocity(w, b, v3(0.25f, -1e3f, 2)) == KYU_OK);
    EXPECT(kyu_body_get_velocity(w, b, &p) == KYU_OK && same3(p, v3(0.25f, -1e3f, 2)));
    // The limit itself (2^20 radii from the origin) is allowed, a little more is refused by name.
    ENSURE(kyu_body_set_position(w, b, v3(786432.0f, -786432.0f, 0)) == KYU_OK);
    EXPECT(kyu_body_get_position(w, b, &p) == KYU_OK && same3(p, v3(786432.0f, -786432.0f, 0)));
    EXPECT(kyu_body_set_position(w, b, v3(786500.0f, 0, 0)) == KYU_ERR_INVALID_ARGUMENT);
    EXPECT(strstr(kyu_world_last_error(w), "2^20 radii") != NULL);
    EXPECT(kyu_body_get_position(w, b, &p) == KYU_OK && same3(p, v3(786432.0f, -786432.0f, 0)));

    // The default def: radius 0.5, mass 1, no user data.
    kyu_body_id plain = add_body(w, v3(0, 0, 0), v3(0, 0, 0));
    EXPECT(kyu_body_get_radius(w, plain, &f) == KYU_OK && f == 0.5f);
    EXPECT(kyu_body_get_mass(w, plain, &f) == KYU_OK && f == 1.0f);
    EXPECT(kyu_body_get_user_data(w, plain, &ud) == KYU_OK && ud == NULL);

    // Collider position after create and after a teleport.
    kyu_collider_def cd = box_def(v3(4, 5, 6), v3(1, 2, 3), KYU_STATIC);
    kyu_collider_id c;
    ENSURE(kyu_collider_create(w, &cd, &c) == KYU_OK);
    EXPECT(kyu_collider_get_position(w, c, &p) == KYU_OK && same3(p, v3(4, 5, 6)));
    ENSURE(kyu_collider_set_transform(w, c, v3(-1, 0.5f, 2), glms_quat_identity()) == KYU_OK);
    EXPECT(kyu_collider_get_position(w, c, &p) == KYU_OK && same3(p, v3(-1, 0.5f, 2)));
    kyu_world_destroy(w);
}

static void test_impulse_changes_velocity_by_impulse_over_mass(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    kyu_body_def d = kyu_body_def_default();
    // Mass 4: impulse / mass is exact in float, so the result must be exact.
    d.mass = 4.0f;
    d.velocity = v3(1, 2, 3);
    kyu_body_id b;
    ENSURE(kyu_body_create(w, &d, &b) == KYU_OK);
    ENSURE(kyu_body_apply_impulse(w, b, v3(2, -6, 0.5f)) == KYU_OK);
    vec3s v;
    ENSURE(kyu_body_get_velocity(w, b, &v) == KYU_OK);
    EXPECT(same3(v, v3(1.5f, 0.5f, 3.125f)));
    // A zero impulse changes nothing.
    ENSURE(kyu_body_apply_impulse(w, b, v3(0, 0, 0)) == KYU_OK);
    ENSURE(kyu_body_get_velocity(w, b, &v) == KYU_OK);
    EXPECT(same3(v, v3(1.5f, 0.5f, 3.125f)));
    // Mass 3: impulse / mass is not a float, so allow the one rounding of the result (and one of
    // 1/m, if the engine multiplies by a stored inverse mass): 2 units in the last place.
    d.mass = 3.0f;
    d.velocity = v3(0, 0, 0);
    d.position = v3(10, 0, 0);
    ENSURE(kyu_body_create(w, &d, &b) == KYU_OK);
    ENSURE(kyu_body_apply_impulse(w, b, v3(1, 5, -7)) == KYU_OK);
    ENSURE(kyu_body_get_velocity(w, b, &v) == KYU_OK);
    ENSURE_NEAR(v.x, 1.0 / 3.0, 2 * FLT_EPSILON * (1.0 / 3.0));
    ENSURE_NEAR(v.y, 5.0 / 3.0, 2 * FLT_EPSILON * (5.0 / 3.0));
    ENSURE_NEAR(v.z, -7.0 / 3.0, 2 * FLT_EPSILON * (7.0 / 3.0));
    kyu_world_destroy(w);
}

// ---- Capacity -----------------------------------------------------------------------------------

static void test_max_bodies_is_enforced_and_freed_slot_is_reused(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.max_bodies = 3;
    kyu_world *w = make_world_with(wd);
    ENSURE(w);
    kyu_body_id b[3];
    for (int i = 0; i < 3; i++) {
        b[i] = add_body(w, v3((float)i * 2, 0, 0), v3(0, 0, 0));
        ENSURE(kyu_body_is_valid(w, b[i]));
    }
    kyu_body_def d = kyu_body_def_default();
    expect_body_def_rejected(__FILE__, __LINE__, w, &d, KYU_ERR_CAPACITY, "max_bodies", "4th body");
    ENSURE(kyu_body_destroy(w, b[1]) == KYU_OK);
    ENSURE(kyu_world_step(w) == KYU_OK); // a removed body's slot is free once the next step began
    kyu_body_id again = add_body(w, v3(9, 0, 0), v3(0, 0, 0));
    EXPECT(kyu_body_is_valid(w, again));
    EXPECT(again.index1 == b[1].index1);
    EXPECT(kyu_world_body_count(w) == 3);
    expect_body_def_rejected(__FILE__, __LINE__, w, &d, KYU_ERR_CAPACITY, "max_bodies",
                             "4th body after reuse");
    EXPECT(kyu_world_body_count(w) == 3);
    kyu_world_destroy(w);
}

static float speed_of(kyu_world *w, kyu_body_id id) {
    vec3s v = {{NAN, NAN, NAN}};
    EXPECT(kyu_body_get_velocity(w, id, &v) == KYU_OK);
    return glms_vec3_norm(v);
}

static float spin_of(kyu_world *w, kyu_body_id id) {
    vec3s av = {{NAN, NAN, NAN}};
    EXPECT(kyu_body_get_angular_velocity(w, id, &av) == KYU_OK);
    return glms_vec3_norm(av);
}

// Damping divides a velocity by 1 + c dt each step (implicit Euler of dv/dt = -c v), so after n
// steps it is v0 / (1 + c dt)^n, linear and angular alike. The engine stores a body's drag only
// once some body has one: a body without any keeps its speed exactly, before and after another
// set some, and so does a body created later in a slot whose old body had drag; a snapshot
// carries the drag (the loaded world steps to the same state).
static void test_damping_follows_its_formula_and_stays_with_its_body(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = v3(0, 0, 0);
    kyu_world *w = make_world_with(wd);
    ENSURE(w);
    kyu_body_def d = kyu_body_def_default();
    d.velocity = v3(1, 0, 0);
    kyu_body_id plain, damped, later;
    ENSURE(kyu_body_create(w, &d, &plain) == KYU_OK);
    ENSURE(kyu_world_step(w) == KYU_OK);
    d.position = v3(0, 10, 0);
    d.linear_damping = 2.0f;
    d.angular_damping = 3.0f;
    d.angular_velocity = v3(0, 0, 5);
    ENSURE(kyu_body_create(w, &d, &damped) == KYU_OK);
    const int n = 30;
    for (int i = 0; i < n; i++) ENSURE(kyu_world_step(w) == KYU_OK);
    double dt = (double)wd.fixed_dt;
    EXPECT(speed_of(w, plain) == 1.0f);
    EXPECT(fabs(speed_of(w, damped) / pow(1.0 + 2.0 * dt, -n) - 1.0) < 1e-5);
    EXPECT(fabs(spin_of(w, damped) / (5.0 * pow(1.0 + 3.0 * dt, -n)) - 1.0) < 1e-5);
    ENSURE(kyu_body_destroy(w, damped) == KYU_OK);
    ENSURE(kyu_world_step(w) == KYU_OK); // its slot is free from this step on
    d = kyu_body_def_default();
    d.position = v3(0, 20, 0);
    d.velocity = v3(0, 1, 0);
    d.angular_velocity = v3(2, 0, 0);
    ENSURE(kyu_body_create(w, &d, &later) == KYU_OK);
    EXPECT(later.index1 == damped.index1); // the damped body's slot
    d.position = v3(0, 30, 0);
    d.rolling_resistance = 0.5f;
    d.linear_damping = 1.0f;
    kyu_body_id saved;
    ENSURE(kyu_body_create(w, &d, &saved) == KYU_OK);
    for (int i = 0; i < 10; i++) ENSURE(kyu_world_step(w) == KYU_OK);
    EXPECT(speed_of(w, later) == 1.0f && spin_of(w, later) == 2.0f);
    EXPECT(fabs(speed_of(w, saved) / pow(1.0 + dt, -10) - 1.0) < 1e-5);
    size_t size = 0;
    ENSURE(kyu_world_save_memory(w, NULL, 0, &size) == KYU_OK);
    void *buf = malloc(size);
    ENSURE(buf && kyu_world_save_memory(w, buf, size, &size) == KYU_OK);
    kyu_world *copy = make_world_with(kyu_world_def_default());
    ENSURE(copy && kyu_world_load_memory(copy, buf, size) == KYU_OK);
    free(buf);
    EXPECT(kyu_world_state_hash(copy) == kyu_world_state_hash(w));
    for (int i = 0; i < 10; i++) ENSURE(kyu_world_step(w) == KYU_OK && kyu_world_step(copy) == KYU_OK);
    EXPECT(kyu_world_state_hash(copy) == kyu_world_state_hash(w));
    kyu_body_id loaded[4], in_copy = KYU_NULL_BODY; // the copy's handles name its own world
    int count = kyu_world_get_bodies(copy, loaded, 4);
    for (int i = 0; i < count; i++)
        if (loaded[i].index1 == saved.index1) in_copy = loaded[i];
    EXPECT(count == 3 && fabs(speed_of(copy, in_copy) / pow(1.0 + dt, -20) - 1.0) < 1e-5);
    kyu_world_destroy(copy);
    kyu_world_destroy(w);
}

// Bodies share their surface, filter, gravity scale and drag through a table of kinds (each set of
// values stored once): every body must still bounce with its own restitution and feel its own
// gravity scale. 240 balls with 120 distinct sets, each set twice and in scattered order, fly
// against a floor of restitution 0 (the pair takes the larger, the ball's): in a world without
// gravity each leaves at exactly e times its speed; then, with gravity on, each falls with its own
// scale.
static void test_each_body_keeps_its_own_parameters_among_many_kinds(void) {
    enum { N = 240 };
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = v3(0, 0, 0);
    kyu_world *w = make_world_with(wd);
    ENSURE(w);
    kyu_collider_def floor = kyu_collider_def_default();
    floor.restitution = 0.0f;
    ENSURE(kyu_collider_create(w, &floor, NULL) == KYU_OK);
    static kyu_body_id ids[N];
    float e[N], g[N];
    for (int i = 0; i < N; i++) {
        int set = (i * 7) % 120; // each of 120 sets twice, not side by side
        kyu_body_def d = kyu_body_def_default();
        d.radius = 0.2f;
        d.position = v3((float)i, 1.0f, 0.0f);
        d.velocity = v3(0, -3, 0);
        d.restitution = e[i] = 0.1f + 0.02f * (float)(set % 40);
        d.friction = 0.1f * (float)(set / 40);
        d.gravity_scale = g[i] = set % 3 == 0 ? 0.5f : set % 3 == 1 ? 1.0f : 2.0f;
        d.allow_sleep = false;
        ENSURE(kyu_body_create(w, &d, &ids[i]) == KYU_OK);
    }
    for (int s = 0; s < 30; s++) ENSURE(kyu_world_step(w) == KYU_OK); // 0.3 s to the floor
    for (int i = 0; i < N; i++) {
        vec3s v;
        ENSURE(kyu_body_get_velocity(w, ids[i], &v) == KYU_OK);
        EXPECT(fabsf(v.y - 3.0f * e[i]) < 1e-5f * 3.0f && v.x == 0.0f && v.z == 0.0f);
    }
    ENSURE(kyu_world_set_gravity(w, v3(0, -10, 0)) == KYU_OK);
    float before[N];
    for (int i = 0; i < N; i++) before[i] = speed_of(w, ids[i]);
    ENSURE(kyu_world_step(w) == KYU_OK); // all of them in flight, rising
    for (int i = 0; i < N; i++) {
        vec3s v;
        ENSURE(kyu_body_get_velocity(w, ids[i], &v) == KYU_OK);
        EXPECT(fabsf(before[i] - v.y - 10.0f * g[i] * wd.fixed_dt) < 1e-5f);
    }
    kyu_world_destroy(w);
}

static void test_body_storage_grows_from_capacity_one_to_5000(void) {
    enum { N = 5000 };
    kyu_world_def wd = kyu_world_def_default();
    wd.body_capacity = 1;
    wd.gravity = v3(0, 0, 0);
    kyu_world *w = make_world_with(wd);
    ENSURE(w);
    static kyu_body_id ids[N];
    static char tags[N];
    // A lattice with spacing 2 and radius 0.5: no contacts, so a step must leave every body put.
    for (int i = 0; i < N; i++) {
        kyu_body_def d = kyu_body_def_default();
        d.position = v3((float)(i % 20) * 2, (float)(i / 400) * 2, (float)(i / 20 % 20) * 2);
        d.user_data = &tags[i];
        ENSURE(kyu_body_create(w, &d, &ids[i]) == KYU_OK);
    }
    ENSURE(kyu_world_body_count(w) == N);
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < N; i++) {
            vec3s p;
            void *ud;
            ENSURE(kyu_body_is_valid(w, ids[i]));
            ENSURE(kyu_body_get_position(w, ids[i], &p) == KYU_OK);
            ENSURE(same3(p, v3((float)(i % 20) * 2, (float)(i / 400) * 2, (float)(i / 20 % 20) * 2)));
            ENSURE(kyu_body_get_user_data(w, ids[i], &ud) == KYU_OK && ud == &tags[i]);
        }
        ENSURE(kyu_world_step(w) == KYU_OK); // exercises the per-step scratch sized to the slots
    }
    kyu_world_destroy(w);
}

void suite_bodies(void) {
    RUN_TEST(test_nonfinite_body_def_field_is_rejected);
    RUN_TEST(test_out_of_range_body_def_field_is_rejected);
    RUN_TEST(test_body_def_not_made_by_default_is_rejected);
    RUN_TEST(test_nonfinite_or_huge_body_setter_is_rejected);
    RUN_TEST(test_getters_return_what_was_set);
    RUN_TEST(test_impulse_changes_velocity_by_impulse_over_mass);
    RUN_TEST(test_max_bodies_is_enforced_and_freed_slot_is_reused);
    RUN_TEST(test_damping_follows_its_formula_and_stays_with_its_body);
    RUN_TEST(test_each_body_keeps_its_own_parameters_among_many_kinds);
    RUN_TEST(test_body_storage_grows_from_capacity_one_to_5000);
}
