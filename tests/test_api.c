// SPDX-License-Identifier: MIT
// Tests of the public API contract (include/kyu/world.h, types.h): input validation, handles,
// capacity, slot reuse, the fixed-timestep loop, status strings, determinism and getters.
//
// The contract under test, as the headers state it: every function that can fail returns a status;
// on failure the world is unchanged and kyu_world_last_error says what was wrong; NULL for the world
// returns KYU_ERR_NULL (getters: 0 / false); a removed handle is stale forever.
//
// Which code for a NaN or infinite value. types.h says KYU_ERR_NOT_FINITE is "a float argument was
// NaN or infinite"; error.c's sentences say "radius must be > 0 and finite", "mass ... finite",
// "friction ... finite", "damping ... finite". So a scalar field that has a code of its own (radius,
// mass, restitution, friction, damping) reports that code for NaN/inf too, and every other float
// (vector fields, gravity_scale, frame time) reports KYU_ERR_NOT_FINITE. The expected codes are in
// one table per def below, so a change of that rule is a change of one column.
//
// Validation checks do not stop at the first failure (EXPECT, not ENSURE): one run lists every
// argument the engine gets wrong, each with its label, the code returned and the code expected.
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kyu/kyu.h"
#include "test.h"

// ---- Helpers ------------------------------------------------------------------------------------

// Records a failure and goes on, so a table of cases reports all its bad cases in one run.
#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) test_fail(__FILE__, __LINE__, #cond);                                         \
    } while (0)

static bool finite3(vec3s v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
static bool same3(vec3s a, vec3s b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
static bool body_id_eq(kyu_body_id a, kyu_body_id b) {
    return a.index1 == b.index1 && a.world == b.world && a.generation == b.generation;
}
static bool collider_id_eq(kyu_collider_id a, kyu_collider_id b) {
    return a.index1 == b.index1 && a.world == b.world && a.generation == b.generation;
}

// Names for failure messages (the status strings are sentences; a name is quicker to read).
static const char *status_name(kyu_status s) {
    static const char *const names[] = {
        "KYU_OK", "KYU_ERR_NULL", "KYU_ERR_NOT_FINITE", "KYU_ERR_RADIUS", "KYU_ERR_MASS",
        "KYU_ERR_RESTITUTION", "KYU_ERR_FRICTION", "KYU_ERR_DAMPING", "KYU_ERR_STALE_HANDLE",
        "KYU_ERR_FOREIGN_HANDLE", "KYU_ERR_CAPACITY", "KYU_ERR_OUT_OF_MEMORY", "KYU_ERR_INVALID_DEF",
        "KYU_ERR_INVALID_ARGUMENT", "KYU_ERR_LOCKED", "KYU_ERR_IO", "KYU_ERR_BAD_SNAPSHOT",
    };
    _Static_assert(sizeof names / sizeof names[0] == KYU_STATUS_COUNT, "a status has no name here");
    return (int)s >= 0 && s < KYU_STATUS_COUNT ? names[s] : "(unknown status)";
}

// Case-insensitive substring: the message must name the problem, its capitalisation is free.
static bool mentions(const char *text, const char *word) {
    size_t n = strlen(word);
    for (const char *p = text; *p; p++) {
        size_t i = 0;
        while (i < n && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)word[i])) i++;
        if (i == n) return true;
    }
    return false;
}

// A world as the API can observe it, plus the last error before the call under test.
typedef struct snapshot {
    uint64_t hash;
    int count;
    float alpha;
    char error[256];
} snapshot;

// Leaves a known error in the world, so a call that fails without setting its own error is caught
// (its last error would still be this one).
static void prime_error(kyu_world *w) { (void)kyu_world_update(w, -1.0f, NULL); }

static snapshot take_snapshot(const kyu_world *w) {
    snapshot s;
    memset(&s, 0, sizeof s);
    s.hash = kyu_world_state_hash(w);
    s.count = kyu_world_body_count(w);
    s.alpha = kyu_world_alpha(w);
    snprintf(s.error, sizeof s.error, "%s", kyu_world_last_error(w));
    return s;
}

static void check_rejected(const char *file, int line, const char *what, const kyu_world *w,
                           const snapshot *before, kyu_status got, kyu_status want,
                           const char *keyword) {
    char msg[768];
    if (got != want) {
        snprintf(msg, sizeof msg, "%s: returned %s, expected %s", what, status_name(got),
                 status_name(want));
        test_fail(file, line, msg);
    }
    if (kyu_world_state_hash(w) != before->hash || kyu_world_body_count(w) != before->count ||
        kyu_world_alpha(w) != before->alpha) {
        snprintf(msg, sizeof msg, "%s: the world changed (hash, body count or alpha)", what);
        test_fail(file, line, msg);
    }
    const char *e = kyu_world_last_error(w);
    if (!e || !*e) {
        snprintf(msg, sizeof msg, "%s: kyu_world_last_error is empty", what);
        test_fail(file, line, msg);
    } else if (strcmp(e, before->error) == 0) {
        snprintf(msg, sizeof msg, "%s: last error not set by this call (still \"%s\")", what, e);
        test_fail(file, line, msg);
    } else if (keyword && !mentions(e, keyword)) {
        snprintf(msg, sizeof msg, "%s: last error \"%s\" does not mention \"%s\"", what, e, keyword);
        test_fail(file, line, msg);
    }
}

// Runs `call` on a primed world and checks: status `want`, world unchanged, a fresh last error
// that mentions `keyword`.
#define REJECTS(w, want, keyword, what, call)                                                      \
    do {                                                                                           \
        prime_error(w);                                                                            \
        snapshot rej_before_ = take_snapshot(w);                                                   \
        kyu_status rej_got_ = (call);                                                              \
        check_rejected(__FILE__, __LINE__, (what), (w), &rej_before_, rej_got_, (want), (keyword)); \
    } while (0)

#define EXPECT_STATUS(call, want)                                                                  \
    do {                                                                                           \
        kyu_status es_got_ = (call);                                                               \
        if (es_got_ != (want)) {                                                                   \
            char es_m_[512];                                                                       \
            snprintf(es_m_, sizeof es_m_, "%s returned %s, expected %s", #call,                    \
                     status_name(es_got_), status_name(want));                                     \
            test_fail(__FILE__, __LINE__, es_m_);                                                  \
        }                                                                                          \
    } while (0)

static kyu_world *make_world_with(kyu_world_def wd) {
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return NULL;
    return w;
}

static kyu_world *make_world(vec3s gravity) {
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = gravity;
    return make_world_with(wd);
}

static kyu_body_id add_body(kyu_world *w, vec3s p, vec3s v) {
    kyu_body_def bd = kyu_body_def_default();
    bd.position = p;
    bd.velocity = v;
    kyu_body_id id = KYU_NULL_BODY;
    if (kyu_body_create(w, &bd, &id) != KYU_OK) return KYU_NULL_BODY;
    return id;
}

static kyu_collider_def box_def(vec3s center, vec3s half, kyu_motion motion) {
    kyu_collider_def cd = kyu_collider_def_default();
    cd.type = KYU_SHAPE_BOX;
    cd.motion = motion;
    cd.position = center;
    cd.half_extents = half;
    return cd;
}

// Deterministic random numbers for the churn and the determinism scene: a 64-bit LCG, top bits.
typedef struct rng {
    uint64_t s;
} rng;
static uint32_t rng_next(rng *g) {
    g->s = g->s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(g->s >> 33);
}
static float rng_float(rng *g, float lo, float hi) {
    return lo + (hi - lo) * (float)((double)(rng_next(g) >> 7) / 16777216.0);
}

static const float nonfinite_values[] = {NAN, INFINITY, -INFINITY};
static const char *const nonfinite_names[] = {"nan", "+inf", "-inf"};
#define NONFINITE_COUNT 3

// ---- 1. Validation: NULL arguments --------------------------------------------------------------

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
    REJECTS(w, KYU_ERR_NULL, "out", "collider_get_position out NULL",
            kyu_collider_get_position(w, c, NULL));
    REJECTS(w, KYU_ERR_NULL, "out", "kyu_world_momentum out NULL", kyu_world_momentum(w, NULL));
    kyu_world_destroy(w);
}

// ---- 1. Validation: body defs -------------------------------------------------------------------

typedef struct float_field {
    const char *name;
    size_t offset;          // of the float inside the def
    kyu_status nonfinite;   // expected for NaN / +-inf (see the rule at the top of the file)
    const char *keyword;    // the last error must mention this
} float_field;

#define VEC_FIELD(T, f, k, kw) {#f "." #k, offsetof(T, f) + (k) * sizeof(float), KYU_ERR_NOT_FINITE, kw}

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
    expect_body_def_rejected(__FILE__, __LINE__, w, &zero, KYU_ERR_INVALID_DEF, "default",
                             "zeroed body def");
    kyu_world_destroy(w);
}

// ---- 1. Validation: collider defs ---------------------------------------------------------------

static const float_field box_fields[] = {
    VEC_FIELD(kyu_collider_def, position, 0, "position"),
    VEC_FIELD(kyu_collider_def, position, 1, "position"),
    VEC_FIELD(kyu_collider_def, position, 2, "position"),
    VEC_FIELD(kyu_collider_def, velocity, 0, "velocity"),
    VEC_FIELD(kyu_collider_def, velocity, 1, "velocity"),
    VEC_FIELD(kyu_collider_def, velocity, 2, "velocity"),
    VEC_FIELD(kyu_collider_def, half_extents, 0, "extent"),
    VEC_FIELD(kyu_collider_def, half_extents, 1, "extent"),
    VEC_FIELD(kyu_collider_def, half_extents, 2, "extent"),
    VEC_FIELD(kyu_collider_def, rotation, 0, "rotation"),
    VEC_FIELD(kyu_collider_def, rotation, 1, "rotation"),
    VEC_FIELD(kyu_collider_def, rotation, 2, "rotation"),
    VEC_FIELD(kyu_collider_def, rotation, 3, "rotation"),
    {"restitution", offsetof(kyu_collider_def, restitution), KYU_ERR_RESTITUTION, "restitution"},
    {"friction", offsetof(kyu_collider_def, friction), KYU_ERR_FRICTION, "friction"},
};

static const float_field plane_fields[] = {
    VEC_FIELD(kyu_collider_def, position, 0, "position"),
    VEC_FIELD(kyu_collider_def, position, 1, "position"),
    VEC_FIELD(kyu_collider_def, position, 2, "position"),
    VEC_FIELD(kyu_collider_def, velocity, 0, "velocity"),
    VEC_FIELD(kyu_collider_def, velocity, 1, "velocity"),
    VEC_FIELD(kyu_collider_def, velocity, 2, "velocity"),
    VEC_FIELD(kyu_collider_def, normal, 0, "normal"),
    VEC_FIELD(kyu_collider_def, normal, 1, "normal"),
    VEC_FIELD(kyu_collider_def, normal, 2, "normal"),
    {"restitution", offsetof(kyu_collider_def, restitution), KYU_ERR_RESTITUTION, "restitution"},
    {"friction", offsetof(kyu_collider_def, friction), KYU_ERR_FRICTION, "friction"},
};

// A def rejected by kyu_collider_create. The state hash does not cover colliders, so "unchanged"
// is checked on the slot too: the world below has no collider, so slot 1 must stay empty.
static void expect_collider_def_rejected(const char *file, int line, kyu_world *w, uint32_t world_id,
                                         const kyu_collider_def *d, kyu_status want,
                                         const char *keyword, const char *what) {
    prime_error(w);
    snapshot before = take_snapshot(w);
    kyu_collider_id out = {9, 9, 9};
    kyu_status got = kyu_collider_create(w, d, &out);
    check_rejected(file, line, what, w, &before, got, want, keyword);
    char msg[512];
    if (!collider_id_eq(out, KYU_NULL_COLLIDER)) {
        snprintf(msg, sizeof msg, "%s: *out is not the null handle after a failure", what);
        test_fail(file, line, msg);
    }
    if (kyu_collider_is_valid(w, (kyu_collider_id){1, world_id, 1})) {
        snprintf(msg, sizeof msg, "%s: a collider was created anyway", what);
        test_fail(file, line, msg);
        // Undo it, so the next case starts from an empty collider list again.
        kyu_collider_destroy(w, (kyu_collider_id){1, world_id, 1});
    }
}

static void nonfinite_collider_fields(kyu_world *w, uint32_t wid, kyu_collider_def base,
                                      const float_field *fields, size_t n, const char *shape) {
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < NONFINITE_COUNT; k++) {
            kyu_collider_def d = base;
            memcpy((char *)&d + fields[i].offset, &nonfinite_values[k], sizeof(float));
            char what[128];
            snprintf(what, sizeof what, "%s def %s = %s", shape, fields[i].name, nonfinite_names[k]);
            expect_collider_def_rejected(__FILE__, __LINE__, w, wid, &d, fields[i].nonfinite,
                                         fields[i].keyword, what);
        }
    }
}

static void test_nonfinite_collider_def_field_is_rejected(void) {
    kyu_world *w = make_world(v3(0, -9.81f, 0));
    ENSURE(w);
    kyu_body_id b = add_body(w, v3(0, 3, 0), v3(0, 0, 0));
    ENSURE(kyu_body_is_valid(w, b));
    // Kinematic, so that velocity is a field the collider really uses.
    nonfinite_collider_fields(w, b.world, box_def(v3(0, -1, 0), v3(2, 1, 2), KYU_KINEMATIC), box_fields,
                              sizeof box_fields / sizeof box_fields[0], "kinematic box");
    nonfinite_collider_fields(w, b.world, kyu_collider_def_default(), plane_fields,
                              sizeof plane_fields / sizeof plane_fields[0], "static plane");
    kyu_world_destroy(w);
}

static void test_out_of_range_collider_def_is_rejected(void) {
    kyu_world *w = make_world(v3(0, -9.81f, 0));
    ENSURE(w);
    kyu_body_id b = add_body(w, v3(0, 3, 0), v3(0, 0, 0));
    ENSURE(kyu_body_is_valid(w, b));
    uint32_t wid = b.world;
    const kyu_collider_def box = box_def(v3(0, -1, 0), v3(2, 1, 2), KYU_KINEMATIC);
    const kyu_collider_def plane = kyu_collider_def_default();
    const versors zero_q = {{0, 0, 0, 0}};
    kyu_collider_def d;

#define COLLIDER_CASE(base, edit, want, kw)                                                        \
    do {                                                                                           \
        d = (base);                                                                                \
        edit;                                                                                      \
        expect_collider_def_rejected(__FILE__, __LINE__, w, wid, &d, (want), (kw), #base ": " #edit); \
    } while (0)

    COLLIDER_CASE(box, d.restitution = -0.01f, KYU_ERR_RESTITUTION, "restitution");
    COLLIDER_CASE(box, d.restitution = 1.01f, KYU_ERR_RESTITUTION, "restitution");
    COLLIDER_CASE(plane, d.restitution = 1.01f, KYU_ERR_RESTITUTION, "restitution");
    COLLIDER_CASE(box, d.friction = -0.01f, KYU_ERR_FRICTION, "friction");
    COLLIDER_CASE(plane, d.friction = -0.01f, KYU_ERR_FRICTION, "friction");
    COLLIDER_CASE(box, d.position.x = 1.5e9f, KYU_ERR_NOT_FINITE, "position");
    COLLIDER_CASE(plane, d.position.y = -1.5e9f, KYU_ERR_NOT_FINITE, "position");
    COLLIDER_CASE(box, d.velocity.z = 1.5e9f, KYU_ERR_NOT_FINITE, "velocity");
    COLLIDER_CASE(box, d.rotation = zero_q, KYU_ERR_INVALID_ARGUMENT, "rotation");
    COLLIDER_CASE(plane, d.normal = v3(0, 0, 0), KYU_ERR_INVALID_ARGUMENT, "normal");
    COLLIDER_CASE(box, d.half_extents.x = 0.0f, KYU_ERR_INVALID_ARGUMENT, "extent");
    COLLIDER_CASE(box, d.half_extents.y = 0.0f, KYU_ERR_INVALID_ARGUMENT, "extent");
    COLLIDER_CASE(box, d.half_extents.z = 0.0f, KYU_ERR_INVALID_ARGUMENT, "extent");
    COLLIDER_CASE(box, d.half_extents.x = -1.0f, KYU_ERR_INVALID_ARGUMENT, "extent");
    COLLIDER_CASE(box, d.half_extents.y = -1.0f, KYU_ERR_INVALID_ARGUMENT, "extent");
    COLLIDER_CASE(box, d.half_extents.z = -1.0f, KYU_ERR_INVALID_ARGUMENT, "extent");
    COLLIDER_CASE(box, d.type = (kyu_shape_type)0, KYU_ERR_INVALID_ARGUMENT, "shape");
    COLLIDER_CASE(box, d.type = (kyu_shape_type)99, KYU_ERR_INVALID_ARGUMENT, "shape");
    COLLIDER_CASE(plane, d.motion = (kyu_motion)7, KYU_ERR_INVALID_ARGUMENT, "motion");
    COLLIDER_CASE(box, d.motion = (kyu_motion)-1, KYU_ERR_INVALID_ARGUMENT, "motion");
    COLLIDER_CASE(box, memset(&d, 0, sizeof d), KYU_ERR_INVALID_DEF, "default");
    // Every field legal except the cookie: only "not made by _default()" can reject it.
    COLLIDER_CASE(box, d.internal_cookie = 0, KYU_ERR_INVALID_DEF, "default");
#undef COLLIDER_CASE

    // After all those refusals the first legal collider still gets slot 1.
    kyu_collider_id c;
    ENSURE(kyu_collider_create(w, &box, &c) == KYU_OK);
    EXPECT(c.index1 == 1);
    kyu_world_destroy(w);
}

// ---- 1. Validation: setters, update, gravity, world defs ----------------------------------------

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

static void test_invalid_frame_time_is_rejected(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    kyu_body_id b = add_body(w, v3(0, 0, 0), v3(1, 0, 0));
    ENSURE(kyu_body_is_valid(w, b));
    float dt = kyu_world_def_default().fixed_dt;
    int steps = -1;
    ENSURE(kyu_world_update(w, dt * 0.5f, &steps) == KYU_OK && steps == 0); // alpha 0.5, not 0
    const struct {
        float t;
        kyu_status want;
        const char *name;
    } cases[] = {
        {-dt, KYU_ERR_INVALID_ARGUMENT, "-1/60"},
        {-1e-30f, KYU_ERR_INVALID_ARGUMENT, "-1e-30"},
        {NAN, KYU_ERR_NOT_FINITE, "nan"},
        {INFINITY, KYU_ERR_NOT_FINITE, "+inf"},
        {-INFINITY, KYU_ERR_NOT_FINITE, "-inf"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "kyu_world_update(%s)", cases[i].name);
        steps = 7;
        REJECTS(w, cases[i].want, "frame", what, kyu_world_update(w, cases[i].t, &steps));
        EXPECT(steps == 0);
    }
    // The accumulator was left alone: half a step more completes exactly one step.
    ENSURE(kyu_world_update(w, dt * 0.5f, &steps) == KYU_OK);
    EXPECT(steps == 1);
    kyu_world_destroy(w);
}

static void test_nonfinite_gravity_is_rejected_and_old_gravity_kept(void) {
    kyu_world *w = make_world(v3(0, -10, 0));
    ENSURE(w);
    kyu_body_id b = add_body(w, v3(0, 0, 0), v3(0, 0, 0));
    ENSURE(kyu_body_is_valid(w, b));
    char what[64];
    for (int axis = 0; axis < 3; axis++) {
        for (int k = 0; k < NONFINITE_COUNT; k++) {
            vec3s g = v3(0, -10, 0);
            g.raw[axis] = nonfinite_values[k];
            snprintf(what, sizeof what, "set_gravity axis %d = %s", axis, nonfinite_names[k]);
            REJECTS(w, KYU_ERR_NOT_FINITE, "gravity", what, kyu_world_set_gravity(w, g));
        }
    }
    // Gravity is not in the state hash: check it through its effect on one step.
    ENSURE(kyu_world_step(w) == KYU_OK);
    vec3s v;
    ENSURE(kyu_body_get_velocity(w, b, &v) == KYU_OK);
    float dt = kyu_world_def_default().fixed_dt;
    EXPECT(finite3(v));
    ENSURE_NEAR(v.y, -10.0f * dt, 1e-6);
    ENSURE_NEAR(v.x, 0.0f, 0.0);
    kyu_world_destroy(w);
}

static void test_invalid_collider_setter_is_rejected(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    add_body(w, v3(0, 5, 0), v3(0, 0, 0));
    kyu_collider_def sd = box_def(v3(10, 0, 0), v3(1, 1, 1), KYU_STATIC);
    kyu_collider_def kd = box_def(v3(-10, 0, 0), v3(1, 1, 1), KYU_KINEMATIC);
    kd.velocity = v3(1, 0, 0);
    kyu_collider_id s, k;
    ENSURE(kyu_collider_create(w, &sd, &s) == KYU_OK && kyu_collider_create(w, &kd, &k) == KYU_OK);

    REJECTS(w, KYU_ERR_INVALID_ARGUMENT, "velocity", "collider_set_velocity on a static collider",
            kyu_collider_set_velocity(w, s, v3(1, 0, 0)));
    char what[96];
    for (int axis = 0; axis < 3; axis++) {
        for (int n = 0; n < NONFINITE_COUNT; n++) {
            vec3s bad = v3(0, 0, 0);
            bad.raw[axis] = nonfinite_values[n];
            snprintf(what, sizeof what, "collider_set_velocity axis %d = %s", axis, nonfinite_names[n]);
            REJECTS(w, KYU_ERR_NOT_FINITE, "velocity", what, kyu_collider_set_velocity(w, k, bad));
            snprintf(what, sizeof what, "collider_set_transform position axis %d = %s", axis,
                     nonfinite_names[n]);
            REJECTS(w, KYU_ERR_NOT_FINITE, "position", what,
                    kyu_collider_set_transform(w, k, bad, glms_quat_identity()));
        }
    }
    versors nanq = glms_quat_identity();
    nanq.w = NAN;
    REJECTS(w, KYU_ERR_NOT_FINITE, "rotation", "collider_set_transform nan rotation",
            kyu_collider_set_transform(w, s, v3(10, 0, 0), nanq));
    REJECTS(w, KYU_ERR_INVALID_ARGUMENT, "rotation", "collider_set_transform zero rotation",
            kyu_collider_set_transform(w, s, v3(10, 0, 0), (versors){{0, 0, 0, 0}}));
    REJECTS(w, KYU_ERR_NOT_FINITE, "position", "collider_set_transform position 1.5e9",
            kyu_collider_set_transform(w, s, v3(1.5e9f, 0, 0), glms_quat_identity()));

    // Neither collider changed: the static one is where it was, the kinematic one moves by its
    // original velocity (a stored NaN or new velocity would show after one step).
    vec3s p;
    ENSURE(kyu_collider_get_position(w, s, &p) == KYU_OK);
    EXPECT(same3(p, v3(10, 0, 0)));
    ENSURE(kyu_world_step(w) == KYU_OK);
    ENSURE(kyu_collider_get_position(w, k, &p) == KYU_OK);
    float dt = kyu_world_def_default().fixed_dt;
    EXPECT(finite3(p));
    ENSURE_NEAR(p.x, -10.0f + dt, 1e-5);
    ENSURE_NEAR(p.y, 0.0f, 0.0);
    kyu_world_destroy(w);
}

static void test_invalid_world_def_is_rejected_with_null_out(void) {
    struct {
        const char *what;
        kyu_world_def d;
        kyu_status want;
    } cases[32];
    int n = 0;
    // NaN / inf in a float field: KYU_ERR_NOT_FINITE (the rule at the top); a finite value out of
    // range: KYU_ERR_INVALID_ARGUMENT.
#define WORLD_CASE(edit, code)                                                                     \
    do {                                                                                           \
        cases[n].what = #edit;                                                                     \
        cases[n].want = (code);                                                                    \
        cases[n].d = kyu_world_def_default();                                                      \
        kyu_world_def *wd = &cases[n].d;                                                           \
        edit;                                                                                      \
        n++;                                                                                       \
    } while (0)
    WORLD_CASE(wd->fixed_dt = 0.0f, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->fixed_dt = -1.0f / 60.0f, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->fixed_dt = NAN, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->fixed_dt = INFINITY, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->max_steps_per_update = 0, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->max_steps_per_update = -1, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->worker_count = 0, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->worker_count = -3, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE((wd->linear_slop = 0.002f, wd->contact_margin = 0.001f), KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->contact_margin = NAN, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->linear_slop = -0.001f, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->linear_slop = NAN, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->restitution_threshold = -1.0f, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->restitution_threshold = NAN, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->solver_iterations = -1, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->max_events_per_step = -1, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->body_capacity = -1, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->max_bodies = 0, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->max_colliders = 0, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->cell_size = -1.0f, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->cell_size = NAN, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->gravity.y = NAN, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->gravity.x = INFINITY, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->gravity.z = 1.5e9f, KYU_ERR_NOT_FINITE);
    WORLD_CASE(wd->fixed_dt = 11.0f, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->max_bodies = (1 << 30) + 1, KYU_ERR_INVALID_ARGUMENT);
    WORLD_CASE(wd->internal_cookie = 0, KYU_ERR_INVALID_DEF);
#undef WORLD_CASE
    int sentinel;
    for (int i = 0; i < n; i++) {
        kyu_world *out = (kyu_world *)(void *)&sentinel; // must be overwritten with NULL
        kyu_status st = kyu_world_create(&cases[i].d, &out);
        if (st != cases[i].want || out != NULL) {
            char msg[256];
            snprintf(msg, sizeof msg, "world def %s: returned %s (expected %s), *out %s",
                     cases[i].what, status_name(st), status_name(cases[i].want),
                     out ? "not NULL" : "NULL");
            test_fail(__FILE__, __LINE__, msg);
        }
        if (st == KYU_OK && out != (kyu_world *)(void *)&sentinel) kyu_world_destroy(out);
    }
    // A def that did not come from kyu_world_def_default() names its own code.
    kyu_world_def zero;
    memset(&zero, 0, sizeof zero);
    kyu_world *out = (kyu_world *)(void *)&sentinel;
    EXPECT_STATUS(kyu_world_create(&zero, &out), KYU_ERR_INVALID_DEF);
    EXPECT(out == NULL);
    out = (kyu_world *)(void *)&sentinel;
    EXPECT_STATUS(kyu_world_create(NULL, &out), KYU_ERR_NULL);
    EXPECT(out == NULL);
    kyu_world_def ok = kyu_world_def_default();
    EXPECT_STATUS(kyu_world_create(&ok, NULL), KYU_ERR_NULL);
    // The boundary contact_margin == linear_slop is legal.
    ok.linear_slop = 0.002f;
    ok.contact_margin = ok.linear_slop;
    out = NULL;
    EXPECT_STATUS(kyu_world_create(&ok, &out), KYU_OK);
    EXPECT(out != NULL);
    kyu_world_destroy(out);
}

// ---- 2. Handles ---------------------------------------------------------------------------------

// Calls every body function with handle h and expects `want` from each (world unchanged, error set
// and mentioning the handle), and kyu_body_is_valid to say false.
static void expect_body_handle_rejected(const char *label, kyu_world *w, kyu_body_id h,
                                        kyu_status want) {
    char what[160];
    vec3s o3;
    float f;
    void *ud;
#define BODY_CALL(name, call)                                                                      \
    do {                                                                                           \
        snprintf(what, sizeof what, "%s: %s", label, name);                                        \
        REJECTS(w, want, "handle", what, call);                                                    \
    } while (0)
    BODY_CALL("kyu_body_get_position", kyu_body_get_position(w, h, &o3));
    BODY_CALL("kyu_body_set_position", kyu_body_set_position(w, h, v3(1, 1, 1)));
    BODY_CALL("kyu_body_get_velocity", kyu_body_get_velocity(w, h, &o3));
    BODY_CALL("kyu_body_set_velocity", kyu_body_set_velocity(w, h, v3(1, 1, 1)));
    BODY_CALL("kyu_body_apply_impulse", kyu_body_apply_impulse(w, h, v3(1, 1, 1)));
    BODY_CALL("kyu_body_get_interpolated_position", kyu_body_get_interpolated_position(w, h, &o3));
    BODY_CALL("kyu_body_get_radius", kyu_body_get_radius(w, h, &f));
    BODY_CALL("kyu_body_get_mass", kyu_body_get_mass(w, h, &f));
    BODY_CALL("kyu_body_get_user_data", kyu_body_get_user_data(w, h, &ud));
    BODY_CALL("kyu_body_destroy", kyu_body_destroy(w, h));
#undef BODY_CALL
    if (kyu_body_is_valid(w, h)) {
        snprintf(what, sizeof what, "%s: kyu_body_is_valid says true", label);
        test_fail(__FILE__, __LINE__, what);
    }
}

static void expect_collider_handle_rejected(const char *label, kyu_world *w, kyu_collider_id h,
                                            kyu_status want) {
    char what[160];
    vec3s o3;
#define COLLIDER_CALL(name, call)                                                                  \
    do {                                                                                           \
        snprintf(what, sizeof what, "%s: %s", label, name);                                        \
        REJECTS(w, want, "handle", what, call);                                                    \
    } while (0)
    COLLIDER_CALL("kyu_collider_get_position", kyu_collider_get_position(w, h, &o3));
    COLLIDER_CALL("kyu_collider_set_velocity", kyu_collider_set_velocity(w, h, v3(1, 0, 0)));
    COLLIDER_CALL("kyu_collider_set_transform",
                  kyu_collider_set_transform(w, h, v3(1, 1, 1), glms_quat_identity()));
    COLLIDER_CALL("kyu_collider_destroy", kyu_collider_destroy(w, h));
#undef COLLIDER_CALL
    if (kyu_collider_is_valid(w, h)) {
        snprintf(what, sizeof what, "%s: kyu_collider_is_valid says true", label);
        test_fail(__FILE__, __LINE__, what);
    }
}

static void test_removed_body_handle_is_stale_for_every_function(void) {
    kyu_world *w = make_world(v3(0, -9.81f, 0));
    ENSURE(w);
    kyu_body_id keep = add_body(w, v3(5, 0, 0), v3(0, 0, 0));
    kyu_body_id gone = add_body(w, v3(1, 0, 0), v3(0, 0, 0));
    ENSURE(kyu_body_is_valid(w, keep) && kyu_body_is_valid(w, gone));
    ENSURE(kyu_body_destroy(w, gone) == KYU_OK);
    expect_body_handle_rejected("removed body", w, gone, KYU_ERR_STALE_HANDLE); // incl. double destroy
    EXPECT(kyu_body_is_valid(w, keep));
    EXPECT(kyu_world_body_count(w) == 1);
    kyu_world_destroy(w);
}

static void test_stale_handle_after_slot_reuse_is_rejected(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    kyu_body_id old = add_body(w, v3(1, 0, 0), v3(0, 0, 0));
    ENSURE(kyu_body_destroy(w, old) == KYU_OK);
    kyu_body_id fresh = add_body(w, v3(2, 0, 0), v3(0, 0, 0));
    ENSURE(kyu_body_is_valid(w, fresh));
    // The point of the test is a reused slot: make sure it is one.
    ENSURE(fresh.index1 == old.index1);
    EXPECT(fresh.generation != old.generation);
    expect_body_handle_rejected("old handle after slot reuse", w, old, KYU_ERR_STALE_HANDLE);
    // The new handle works and names the new body, untouched by the calls on the old handle.
    vec3s p;
    EXPECT_STATUS(kyu_body_get_position(w, fresh, &p), KYU_OK);
    EXPECT(same3(p, v3(2, 0, 0)));
    EXPECT(kyu_body_is_valid(w, fresh));
    EXPECT(kyu_world_body_count(w) == 1);
    kyu_world_destroy(w);
}

static void test_null_and_forged_handles_are_stale(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    kyu_body_id a = add_body(w, v3(1, 0, 0), v3(0, 0, 0));
    add_body(w, v3(2, 0, 0), v3(0, 0, 0));
    ENSURE(kyu_body_is_valid(w, a));
    expect_body_handle_rejected("KYU_NULL_BODY", w, KYU_NULL_BODY, KYU_ERR_STALE_HANDLE);
    expect_body_handle_rejected("index1 0 in this world", w, (kyu_body_id){0, a.world, a.generation},
                                KYU_ERR_STALE_HANDLE);
    expect_body_handle_rejected("index1 one past the slots", w, (kyu_body_id){3, a.world, 1},
                                KYU_ERR_STALE_HANDLE);
    expect_body_handle_rejected("index1 1e6", w, (kyu_body_id){1000000, a.world, 1},
                                KYU_ERR_STALE_HANDLE);
    expect_body_handle_rejected("index1 INT32_MAX", w, (kyu_body_id){0x7fffffffu, a.world, 1},
                                KYU_ERR_STALE_HANDLE);
    expect_body_handle_rejected("generation never issued", w,
                                (kyu_body_id){a.index1, a.world, a.generation + 2},
                                KYU_ERR_STALE_HANDLE);
    EXPECT(kyu_world_body_count(w) == 2 && kyu_body_is_valid(w, a));

    kyu_collider_def cd = kyu_collider_def_default();
    kyu_collider_id c;
    ENSURE(kyu_collider_create(w, &cd, &c) == KYU_OK);
    expect_collider_handle_rejected("KYU_NULL_COLLIDER", w, KYU_NULL_COLLIDER, KYU_ERR_STALE_HANDLE);
    expect_collider_handle_rejected("collider index1 0 in this world", w,
                                    (kyu_collider_id){0, c.world, c.generation}, KYU_ERR_STALE_HANDLE);
    expect_collider_handle_rejected("collider index1 past the slots", w,
                                    (kyu_collider_id){c.index1 + 1, c.world, 1}, KYU_ERR_STALE_HANDLE);
    expect_collider_handle_rejected("collider index1 INT32_MAX", w,
                                    (kyu_collider_id){0x7fffffffu, c.world, 1}, KYU_ERR_STALE_HANDLE);
    expect_collider_handle_rejected("collider generation never issued", w,
                                    (kyu_collider_id){c.index1, c.world, c.generation + 2},
                                    KYU_ERR_STALE_HANDLE);
    EXPECT(kyu_collider_is_valid(w, c));
    kyu_world_destroy(w);
}

// Indices that do not fit a (signed) int: a lookup that converts index1 to int before the range
// check reads before the slot arrays (UBSan/ASan abort here) instead of answering "stale".
static void test_handle_index_beyond_int_range_is_stale(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    kyu_body_id a = add_body(w, v3(1, 0, 0), v3(0, 0, 0));
    ENSURE(kyu_body_is_valid(w, a));
    kyu_collider_def cd = kyu_collider_def_default();
    ENSURE(kyu_collider_create(w, &cd, NULL) == KYU_OK);
    expect_body_handle_rejected("body index1 0x80000000", w, (kyu_body_id){0x80000000u, a.world, 1},
                                KYU_ERR_STALE_HANDLE);
    expect_body_handle_rejected("body index1 0xffffffff", w, (kyu_body_id){0xffffffffu, a.world, 1},
                                KYU_ERR_STALE_HANDLE);
    expect_collider_handle_rejected("collider index1 0x80000000", w,
                                    (kyu_collider_id){0x80000000u, a.world, 1}, KYU_ERR_STALE_HANDLE);
    expect_collider_handle_rejected("collider index1 0xffffffff", w,
                                    (kyu_collider_id){0xffffffffu, a.world, 1}, KYU_ERR_STALE_HANDLE);
    EXPECT(kyu_world_body_count(w) == 1 && kyu_body_is_valid(w, a));
    kyu_world_destroy(w);
}

static void test_handle_from_another_world_is_foreign(void) {
    kyu_world *wa = make_world(v3(0, 0, 0));
    kyu_world *wb = make_world(v3(0, 0, 0));
    ENSURE(wa && wb);
    // Same slot and generation in both worlds: only the world tag can tell the handles apart.
    kyu_body_id ba = add_body(wa, v3(1, 0, 0), v3(0, 0, 0));
    kyu_body_id bb = add_body(wb, v3(2, 0, 0), v3(0, 0, 0));
    ENSURE(ba.index1 == bb.index1 && ba.generation == bb.generation && ba.world != bb.world);
    kyu_collider_def cd = kyu_collider_def_default();
    kyu_collider_id ca, cb;
    ENSURE(kyu_collider_create(wa, &cd, &ca) == KYU_OK && kyu_collider_create(wb, &cd, &cb) == KYU_OK);
    ENSURE(ca.index1 == cb.index1 && ca.generation == cb.generation);

    expect_body_handle_rejected("world A body in world B", wb, ba, KYU_ERR_FOREIGN_HANDLE);
    expect_collider_handle_rejected("world A collider in world B", wb, ca, KYU_ERR_FOREIGN_HANDLE);
    // B's own objects are untouched, and A's handles still work in A.
    vec3s p;
    EXPECT_STATUS(kyu_body_get_position(wb, bb, &p), KYU_OK);
    EXPECT(same3(p, v3(2, 0, 0)));
    EXPECT(kyu_collider_is_valid(wb, cb) && kyu_body_is_valid(wa, ba) && kyu_collider_is_valid(wa, ca));
    kyu_world_destroy(wa);
    kyu_world_destroy(wb);
}

static void test_removed_collider_handle_is_stale_after_slot_reuse(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    kyu_collider_def plane = kyu_collider_def_default();
    kyu_collider_id old, fresh;
    ENSURE(kyu_collider_create(w, &plane, &old) == KYU_OK);
    ENSURE(kyu_collider_destroy(w, old) == KYU_OK);
    expect_collider_handle_rejected("removed collider", w, old, KYU_ERR_STALE_HANDLE); // incl. double destroy
    kyu_collider_def box = box_def(v3(3, 0, 0), v3(1, 1, 1), KYU_STATIC);
    ENSURE(kyu_collider_create(w, &box, &fresh) == KYU_OK);
    ENSURE(fresh.index1 == old.index1); // the slot was reused
    expect_collider_handle_rejected("old collider after slot reuse", w, old, KYU_ERR_STALE_HANDLE);
    vec3s p;
    EXPECT_STATUS(kyu_collider_get_position(w, fresh, &p), KYU_OK);
    EXPECT(same3(p, v3(3, 0, 0)));
    EXPECT(kyu_collider_is_valid(w, fresh));
    kyu_world_destroy(w);
}

// types.h promises a removed handle stays stale "even after its slot was reused". Generations were
// 16 bits once: bumped on create and on destroy, one slot reused 32768 times handed out the old
// generation again. Reusing one slot 40000 times, checking the first handle each time, guards that.
static void test_stale_handle_stays_stale_through_generation_wraparound(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    kyu_body_id first = add_body(w, v3(1, 0, 0), v3(0, 0, 0));
    ENSURE(kyu_body_destroy(w, first) == KYU_OK);
    for (int cycle = 1; cycle <= 40000; cycle++) {
        kyu_body_id b = add_body(w, v3(2, 0, 0), v3(0, 0, 0));
        ENSURE(b.index1 == first.index1);
        if (kyu_body_is_valid(w, first)) {
            char msg[160];
            snprintf(msg, sizeof msg, "after %d reuses of its slot the removed handle is valid again "
                     "(generation %u)", cycle, (unsigned)b.generation);
            test_fail(__FILE__, __LINE__, msg);
            kyu_body_destroy(w, b);
            break;
        }
        ENSURE(kyu_body_destroy(w, b) == KYU_OK);
    }
    kyu_world_destroy(w);
}

// ---- 3. Capacity --------------------------------------------------------------------------------

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
    kyu_body_id again = add_body(w, v3(9, 0, 0), v3(0, 0, 0));
    EXPECT(kyu_body_is_valid(w, again));
    EXPECT(again.index1 >= 1 && again.index1 <= 3);
    EXPECT(kyu_world_body_count(w) == 3);
    expect_body_def_rejected(__FILE__, __LINE__, w, &d, KYU_ERR_CAPACITY, "max_bodies",
                             "4th body after reuse");
    EXPECT(kyu_world_body_count(w) == 3);
    kyu_world_destroy(w);
}

static void test_max_colliders_is_enforced_and_freed_slot_is_reused(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.max_colliders = 3;
    kyu_world *w = make_world_with(wd);
    ENSURE(w);
    kyu_collider_id c[3];
    for (int i = 0; i < 3; i++) {
        kyu_collider_def d = box_def(v3((float)i * 4, 0, 0), v3(1, 1, 1), KYU_STATIC);
        ENSURE(kyu_collider_create(w, &d, &c[i]) == KYU_OK);
    }
    kyu_collider_def d = box_def(v3(20, 0, 0), v3(1, 1, 1), KYU_STATIC);
    kyu_collider_id out = {9, 9, 9};
    REJECTS(w, KYU_ERR_CAPACITY, "max_colliders", "4th collider", kyu_collider_create(w, &d, &out));
    EXPECT(collider_id_eq(out, KYU_NULL_COLLIDER));
    ENSURE(kyu_collider_destroy(w, c[1]) == KYU_OK);
    kyu_collider_id again;
    EXPECT_STATUS(kyu_collider_create(w, &d, &again), KYU_OK);
    EXPECT(kyu_collider_is_valid(w, again) && again.index1 >= 1 && again.index1 <= 3);
    EXPECT(!kyu_collider_is_valid(w, c[1]));
    REJECTS(w, KYU_ERR_CAPACITY, "max_colliders", "4th collider after reuse",
            kyu_collider_create(w, &d, &out));
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

// ---- 4. Slot reuse churn ------------------------------------------------------------------------

enum { CHURN_OPS = 100000, CHURN_MAX_LIVE = 200, CHURN_RECENT = 32 };

typedef struct live_body {
    kyu_body_id id;
    vec3s created_at;
    void *tag;
    bool unstepped; // created since the last step: must still be exactly where it was made
} live_body;

static bool check_removed(const kyu_world *w, kyu_body_id h, int op) {
    vec3s p;
    if (kyu_body_is_valid(w, h) || kyu_body_get_position(w, h, &p) != KYU_ERR_STALE_HANDLE) {
        char msg[160];
        snprintf(msg, sizeof msg, "op %d: removed handle {%u, %u, %u} is not stale", op, h.index1,
                 (unsigned)h.world, (unsigned)h.generation);
        test_fail(__FILE__, __LINE__, msg);
        return false;
    }
    return true;
}

static void test_random_add_remove_step_churn_keeps_handles_consistent(void) {
    kyu_world *w = make_world(v3(0, -9.81f, 0));
    ENSURE(w);
    kyu_collider_def floor = kyu_collider_def_default();
    ENSURE(kyu_collider_create(w, &floor, NULL) == KYU_OK);
    static live_body live[CHURN_MAX_LIVE];
    static kyu_body_id removed[CHURN_OPS];
    static char tag_space[CHURN_OPS];
    int live_n = 0, removed_n = 0, serial = 0, steps = 0, reused = 0;
    uint32_t max_index1 = 0;
    rng g = {0x6b79755f636875ull};
    for (int op = 0; op < CHURN_OPS; op++) {
        uint32_t r = rng_next(&g) % 1000;
        if (r < 10) {
            ENSURE(kyu_world_step(w) == KYU_OK);
            steps++;
            for (int i = 0; i < live_n; i++) {
                vec3s p, v;
                ENSURE(kyu_body_get_position(w, live[i].id, &p) == KYU_OK);
                ENSURE(kyu_body_get_velocity(w, live[i].id, &v) == KYU_OK);
                ENSURE(finite3(p) && finite3(v));
                live[i].unstepped = false;
            }
        } else if ((r < 505 && live_n < CHURN_MAX_LIVE) || live_n == 0) {
            kyu_body_def d = kyu_body_def_default();
            d.position = v3(rng_float(&g, -30, 30), rng_float(&g, 0.6f, 10), rng_float(&g, -30, 30));
            d.velocity = v3(rng_float(&g, -2, 2), rng_float(&g, -2, 2), rng_float(&g, -2, 2));
            d.radius = rng_float(&g, 0.2f, 0.6f);
            d.user_data = &tag_space[serial++];
            live_body *lb = &live[live_n];
            ENSURE(kyu_body_create(w, &d, &lb->id) == KYU_OK);
            lb->created_at = d.position;
            lb->tag = d.user_data;
            lb->unstepped = true;
            live_n++;
            if (lb->id.index1 <= max_index1) reused++; // not a brand-new slot
            if (lb->id.index1 > max_index1) max_index1 = lb->id.index1;
        } else {
            int i = (int)(rng_next(&g) % (uint32_t)live_n);
            kyu_body_id h = live[i].id;
            ENSURE(kyu_body_destroy(w, h) == KYU_OK);
            removed[removed_n++] = h;
            live[i] = live[--live_n];
        }

        ENSURE(kyu_world_body_count(w) == live_n);
        for (int i = 0; i < live_n; i++) {
            void *ud;
            ENSURE(kyu_body_is_valid(w, live[i].id));
            // The handle still names its own body, not another one that got its slot.
            ENSURE(kyu_body_get_user_data(w, live[i].id, &ud) == KYU_OK && ud == live[i].tag);
            if (live[i].unstepped) {
                vec3s p;
                ENSURE(kyu_body_get_position(w, live[i].id, &p) == KYU_OK);
                ENSURE(same3(p, live[i].created_at));
            }
        }
        // The most recent removals are the ones whose slots get reused next (checked every op);
        // all removals are checked every 5000 ops.
        int from = op % 5000 == 4999 ? 0 : (removed_n > CHURN_RECENT ? removed_n - CHURN_RECENT : 0);
        for (int i = from; i < removed_n; i++) ENSURE(check_removed(w, removed[i], op));
    }
    for (int i = 0; i < removed_n; i++) ENSURE(check_removed(w, removed[i], CHURN_OPS));
    // The scenario did what it is meant to: many steps, many reused slots.
    EXPECT(steps > 500);
    EXPECT(reused > 10000);
    kyu_world_destroy(w);
}

// ---- 5. Fixed-timestep loop ---------------------------------------------------------------------

static void test_update_at_fixed_dt_runs_exactly_one_step(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    kyu_body_id b = add_body(w, v3(0, 0, 0), v3(1, 0, 0));
    float dt = kyu_world_def_default().fixed_dt;
    for (int frame = 0; frame < 600; frame++) {
        int steps = -1;
        ENSURE(kyu_world_update(w, dt, &steps) == KYU_OK);
        ENSURE(steps == 1);
        ENSURE(kyu_world_alpha(w) >= 0.0f && kyu_world_alpha(w) < 1e-3f);
    }
    // 600 steps at 1 m/s: the body really moved 600 steps' worth.
    vec3s p;
    ENSURE(kyu_body_get_position(w, b, &p) == KYU_OK);
    ENSURE_NEAR(p.x, 600.0 * dt, 1e-3);
    kyu_world_destroy(w);
}

static void test_update_at_half_dt_alternates_zero_and_one_step(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    add_body(w, v3(0, 0, 0), v3(1, 0, 0));
    float half = kyu_world_def_default().fixed_dt * 0.5f;
    for (int frame = 0; frame < 240; frame++) {
        int steps = -1;
        ENSURE(kyu_world_update(w, half, &steps) == KYU_OK);
        if (frame % 2 == 0) {
            ENSURE(steps == 0);
            ENSURE_NEAR(kyu_world_alpha(w), 0.5, 1e-4);
        } else {
            ENSURE(steps == 1);
            ENSURE(kyu_world_alpha(w) >= 0.0f && kyu_world_alpha(w) < 1e-4f);
        }
    }
    kyu_world_destroy(w);
}

static void test_long_frame_is_capped_at_max_steps_per_update(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = v3(0, 0, 0);
    kyu_world *w = make_world_with(wd);
    ENSURE(w);
    kyu_body_id b = add_body(w, v3(0, 0, 0), v3(1, 0, 0));
    int steps = -1;
    ENSURE(kyu_world_update(w, 10.0f, &steps) == KYU_OK);
    EXPECT(steps == wd.max_steps_per_update);
    float a = kyu_world_alpha(w);
    EXPECT(a >= 0.0f && a < 1.0f);
    // steps_run tells the truth: the body moved exactly that many steps.
    vec3s p;
    ENSURE(kyu_body_get_position(w, b, &p) == KYU_OK);
    ENSURE_NEAR(p.x, steps * (double)wd.fixed_dt, 1e-5);
    // The dropped time is really dropped: the next normal frame runs one step, not a backlog.
    ENSURE(kyu_world_update(w, wd.fixed_dt, &steps) == KYU_OK);
    EXPECT(steps == 1);
    kyu_world_destroy(w);

    wd.max_steps_per_update = 3;
    w = make_world_with(wd);
    ENSURE(w);
    ENSURE(kyu_world_update(w, 10.0f, &steps) == KYU_OK);
    EXPECT(steps == 3);
    a = kyu_world_alpha(w);
    EXPECT(a >= 0.0f && a < 1.0f);
    kyu_world_destroy(w);
}

static void test_interpolated_position_lies_between_last_two_steps_by_alpha(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    kyu_body_id b = add_body(w, v3(1, 2, 3), v3(3, -1, 0.5f));
    float dt = kyu_world_def_default().fixed_dt;
    int steps;
    ENSURE(kyu_world_update(w, dt, &steps) == KYU_OK && steps == 1);
    // Frames of uneven length (in steps); check after each one that ran a step.
    const float frames[] = {1.25f, 0.5f, 2.75f, 0.25f, 1.0f, 1.5f};
    for (size_t f = 0; f < sizeof frames / sizeof frames[0]; f++) {
        vec3s after, interp;
        ENSURE(kyu_world_update(w, frames[f] * dt, &steps) == KYU_OK);
        if (steps == 0) continue;
        ENSURE(kyu_body_get_position(w, b, &after) == KYU_OK);
        ENSURE(kyu_body_get_interpolated_position(w, b, &interp) == KYU_OK);
        float a = kyu_world_alpha(w);
        ENSURE(a >= 0.0f && a < 1.0f);
        // The segment of the last step: it ends at `after` and is one step of constant velocity long.
        vec3s last = v3(after.x - 3 * dt, after.y + dt, after.z - 0.5f * dt);
        for (int k = 0; k < 3; k++)
            ENSURE_NEAR(interp.raw[k], last.raw[k] + a * (after.raw[k] - last.raw[k]), 1e-5);
    }
    // A frame of 1.5 steps on an empty accumulator: one step, alpha 0.5, drawn halfway along it.
    kyu_world_destroy(w);
    w = make_world(v3(0, 0, 0));
    ENSURE(w);
    b = add_body(w, v3(0, 0, 0), v3(6, 0, 0));
    ENSURE(kyu_world_update(w, dt * 1.5f, &steps) == KYU_OK && steps == 1);
    ENSURE_NEAR(kyu_world_alpha(w), 0.5, 1e-5);
    vec3s interp;
    ENSURE(kyu_body_get_interpolated_position(w, b, &interp) == KYU_OK);
    ENSURE_NEAR(interp.x, 3.0 * dt, 1e-6);
    kyu_world_destroy(w);
}

static void test_set_position_leaves_no_interpolation_smear(void) {
    kyu_world *w = make_world(v3(0, 0, 0));
    ENSURE(w);
    kyu_body_id b = add_body(w, v3(0, 0, 0), v3(5, 0, 0));
    float dt = kyu_world_def_default().fixed_dt;
    int steps;
    ENSURE(kyu_world_update(w, dt, &steps) == KYU_OK && steps == 1);
    ENSURE(kyu_world_alpha(w) == 0.0f);
    ENSURE(kyu_body_set_position(w, b, v3(100, 7, -3)) == KYU_OK);
    vec3s interp;
    ENSURE(kyu_body_get_interpolated_position(w, b, &interp) == KYU_OK);
    EXPECT(same3(interp, v3(100, 7, -3)));
    // The header promises no smear at all, so also mid-step (alpha 0.5).
    ENSURE(kyu_world_update(w, dt * 0.5f, &steps) == KYU_OK && steps == 0);
    ENSURE(kyu_body_set_position(w, b, v3(-50, 1, 2)) == KYU_OK);
    ENSURE(kyu_body_get_interpolated_position(w, b, &interp) == KYU_OK);
    EXPECT(same3(interp, v3(-50, 1, 2)));
    kyu_world_destroy(w);
}

// ---- 6. Status strings --------------------------------------------------------------------------

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

// ---- 7. Determinism -----------------------------------------------------------------------------

// 200 balls dropped into an open box of 5 static boxes; `nudge` moves ball 100 by that much in x.
static kyu_world *build_pile(float nudge) {
    kyu_world *w = make_world(v3(0, -9.81f, 0));
    if (!w) return NULL;
    const kyu_collider_def walls[5] = {
        box_def(v3(0, -0.5f, 0), v3(3.5f, 0.5f, 3.5f), KYU_STATIC),  // floor
        box_def(v3(-3.5f, 3.5f, 0), v3(0.5f, 4, 3.5f), KYU_STATIC),  // -x wall
        box_def(v3(3.5f, 3.5f, 0), v3(0.5f, 4, 3.5f), KYU_STATIC),   // +x wall
        box_def(v3(0, 3.5f, -3.5f), v3(3.5f, 4, 0.5f), KYU_STATIC),  // -z wall
        box_def(v3(0, 3.5f, 3.5f), v3(3.5f, 4, 0.5f), KYU_STATIC),   // +z wall
    };
    for (int i = 0; i < 5; i++)
        if (kyu_collider_create(w, &walls[i], NULL) != KYU_OK) {
            kyu_world_destroy(w);
            return NULL;
        }
    rng g = {20240601};
    for (int i = 0; i < 200; i++) {
        kyu_body_def d = kyu_body_def_default();
        int layer = i / 49, row = i % 49 / 7, col = i % 7;
        d.position = v3(-2.25f + 0.75f * (float)col + rng_float(&g, -0.05f, 0.05f),
                        1.0f + 0.75f * (float)layer + rng_float(&g, -0.05f, 0.05f),
                        -2.25f + 0.75f * (float)row + rng_float(&g, -0.05f, 0.05f));
        if (i == 100) d.position.x += nudge;
        d.velocity = v3(rng_float(&g, -1, 1), rng_float(&g, -1, 1), rng_float(&g, -1, 1));
        d.radius = 0.25f;
        d.restitution = rng_float(&g, 0, 0.5f);
        if (kyu_body_create(w, &d, NULL) != KYU_OK) {
            kyu_world_destroy(w);
            return NULL;
        }
    }
    return w;
}

static void test_identical_worlds_end_with_identical_state_hash(void) {
    kyu_world *a = build_pile(0.0f), *b = build_pile(0.0f), *c = build_pile(1e-6f);
    ENSURE(a && b && c);
    uint64_t start = kyu_world_state_hash(a);
    EXPECT(kyu_world_state_hash(b) == start);
    EXPECT(kyu_world_state_hash(c) != start); // the nudge is representable at x ~ 0.8
    for (int s = 0; s < 300; s++) {
        ENSURE(kyu_world_step(a) == KYU_OK);
        ENSURE(kyu_world_step(b) == KYU_OK);
        ENSURE(kyu_world_step(c) == KYU_OK);
    }
    EXPECT(kyu_world_state_hash(a) != start); // the pile really moved
    EXPECT(kyu_world_state_hash(a) == kyu_world_state_hash(b));
    EXPECT(kyu_world_state_hash(a) != kyu_world_state_hash(c));
    EXPECT(kyu_world_body_count(a) == 200 && kyu_world_body_count(c) == 200);
    kyu_world_destroy(a);
    kyu_world_destroy(b);
    kyu_world_destroy(c);
}

// ---- 8. Getters ---------------------------------------------------------------------------------

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

// ---- version ------------------------------------------------------------------------------------

// The library and the headers it was built with agree, and the string is the three numbers.
static void test_version_is_the_headers_three_numbers(void) {
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", KYU_VERSION_MAJOR, KYU_VERSION_MINOR, KYU_VERSION_PATCH);
    ENSURE(strcmp(KYU_VERSION_STRING, expected) == 0);
    ENSURE(kyu_version() != NULL);
    ENSURE(strcmp(kyu_version(), KYU_VERSION_STRING) == 0);
}

void suite_api(void) {
    RUN_TEST(test_version_is_the_headers_three_numbers);
    // 1. validation
    RUN_TEST(test_null_world_is_rejected_by_every_function);
    RUN_TEST(test_null_def_and_null_out_are_rejected);
    RUN_TEST(test_nonfinite_body_def_field_is_rejected);
    RUN_TEST(test_out_of_range_body_def_field_is_rejected);
    RUN_TEST(test_body_def_not_made_by_default_is_rejected);
    RUN_TEST(test_nonfinite_collider_def_field_is_rejected);
    RUN_TEST(test_out_of_range_collider_def_is_rejected);
    RUN_TEST(test_nonfinite_or_huge_body_setter_is_rejected);
    RUN_TEST(test_invalid_frame_time_is_rejected);
    RUN_TEST(test_nonfinite_gravity_is_rejected_and_old_gravity_kept);
    RUN_TEST(test_invalid_collider_setter_is_rejected);
    RUN_TEST(test_invalid_world_def_is_rejected_with_null_out);
    // 2. handles
    RUN_TEST(test_removed_body_handle_is_stale_for_every_function);
    RUN_TEST(test_stale_handle_after_slot_reuse_is_rejected);
    RUN_TEST(test_null_and_forged_handles_are_stale);
    RUN_TEST(test_handle_index_beyond_int_range_is_stale);
    RUN_TEST(test_handle_from_another_world_is_foreign);
    RUN_TEST(test_removed_collider_handle_is_stale_after_slot_reuse);
    RUN_TEST(test_stale_handle_stays_stale_through_generation_wraparound);
    // 3. capacity
    RUN_TEST(test_max_bodies_is_enforced_and_freed_slot_is_reused);
    RUN_TEST(test_max_colliders_is_enforced_and_freed_slot_is_reused);
    RUN_TEST(test_body_storage_grows_from_capacity_one_to_5000);
    // 4. churn
    RUN_TEST(test_random_add_remove_step_churn_keeps_handles_consistent);
    // 5. fixed-timestep loop
    RUN_TEST(test_update_at_fixed_dt_runs_exactly_one_step);
    RUN_TEST(test_update_at_half_dt_alternates_zero_and_one_step);
    RUN_TEST(test_long_frame_is_capped_at_max_steps_per_update);
    RUN_TEST(test_interpolated_position_lies_between_last_two_steps_by_alpha);
    RUN_TEST(test_set_position_leaves_no_interpolation_smear);
    // 6-8.
    RUN_TEST(test_every_status_has_a_distinct_sentence);
    RUN_TEST(test_identical_worlds_end_with_identical_state_hash);
    RUN_TEST(test_getters_return_what_was_set);
    RUN_TEST(test_impulse_changes_velocity_by_impulse_over_mass);
}
