// SPDX-License-Identifier: MIT
// Checks of the public API contract (include/kyu/world.h, types.h), shared by the files that test
// it: test_errors.c, test_world.c, test_bodies.c, test_handles.c and test_colliders.c.
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
// one table per def (body_fields in test_bodies.c, box_fields and plane_fields in test_colliders.c,
// the world def cases in test_world.c), so a change of that rule is a change of one column.
//
// Validation checks do not stop at the first failure (EXPECT, not ENSURE): one run lists every
// argument the engine gets wrong, each with its label, the code returned and the code expected.
#ifndef KYU_TEST_CONTRACT_H
#define KYU_TEST_CONTRACT_H

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kyu/kyu.h"
#include "test.h"

// Records a failure and goes on, so a table of cases reports all its bad cases in one run.
#define EXPECT(cond)                                                                                         \
    do {                                                                                                     \
        if (!(cond)) test_fail(__FILE__, __LINE__, #cond);                                                   \
    } while (0)

static inline bool finite3(vec3s v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
static inline bool same3(vec3s a, vec3s b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
static inline bool body_id_eq(kyu_body_id a, kyu_body_id b) {
    return a.index1 == b.index1 && a.world == b.world && a.generation == b.generation;
}
static inline bool collider_id_eq(kyu_collider_id a, kyu_collider_id b) {
    return a.index1 == b.index1 && a.world == b.world && a.generation == b.generation;
}

// Names for failure messages (the status strings are sentences; a name is quicker to read).
static inline const char *status_name(kyu_status s) {
    static const char *const names[] = {
        "KYU_OK",
        "KYU_ERR_NULL",
        "KYU_ERR_NOT_FINITE",
        "KYU_ERR_RADIUS",
        "KYU_ERR_MASS",
        "KYU_ERR_RESTITUTION",
        "KYU_ERR_FRICTION",
        "KYU_ERR_DAMPING",
        "KYU_ERR_STALE_HANDLE",
        "KYU_ERR_FOREIGN_HANDLE",
        "KYU_ERR_CAPACITY",
        "KYU_ERR_OUT_OF_MEMORY",
        "KYU_ERR_INVALID_DEF",
        "KYU_ERR_INVALID_ARGUMENT",
        "KYU_ERR_LOCKED",
        "KYU_ERR_IO",
        "KYU_ERR_BAD_SNAPSHOT",
    };
    _Static_assert(sizeof names / sizeof names[0] == KYU_STATUS_COUNT, "a status has no name here");
    return (int)s >= 0 && s < KYU_STATUS_COUNT ? names[s] : "(unknown status)";
}

// Case-insensitive substring: the message must name the problem, its capitalisation is free.
static inline bool mentions(const char *text, const char *word) {
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
static inline void prime_error(kyu_world *w) { (void)kyu_world_update(w, -1.0f, NULL); }

static inline snapshot take_snapshot(const kyu_world *w) {
    snapshot s;
    memset(&s, 0, sizeof s);
    s.hash = kyu_world_state_hash(w);
    s.count = kyu_world_body_count(w);
    s.alpha = kyu_world_alpha(w);
    snprintf(s.error, sizeof s.error, "%s", kyu_world_last_error(w));
    return s;
}

static inline void check_rejected(const char *file, int line, const char *what, const kyu_world *w,
                                  const snapshot *before, kyu_status got, kyu_status want,
                                  const char *keyword) {
    char msg[768];
    if (got != want) {
        snprintf(msg, sizeof msg, "%s: returned %s, expected %s", what, status_name(got), status_name(want));
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
#define REJECTS(w, want, keyword, what, call)                                                                \
    do {                                                                                                     \
        prime_error(w);                                                                                      \
        snapshot rej_before_ = take_snapshot(w);                                                             \
        kyu_status rej_got_ = (call);                                                                        \
        check_rejected(__FILE__, __LINE__, (what), (w), &rej_before_, rej_got_, (want), (keyword));          \
    } while (0)

#define EXPECT_STATUS(call, want)                                                                            \
    do {                                                                                                     \
        kyu_status es_got_ = (call);                                                                         \
        if (es_got_ != (want)) {                                                                             \
            char es_m_[512];                                                                                 \
            snprintf(es_m_, sizeof es_m_, "%s returned %s, expected %s", #call, status_name(es_got_),        \
                     status_name(want));                                                                     \
            test_fail(__FILE__, __LINE__, es_m_);                                                            \
        }                                                                                                    \
    } while (0)

static inline kyu_world *make_world_with(kyu_world_def wd) {
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return NULL;
    return w;
}

static inline kyu_world *make_world(vec3s gravity) {
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = gravity;
    return make_world_with(wd);
}

static inline kyu_body_id add_body(kyu_world *w, vec3s p, vec3s v) {
    kyu_body_def bd = kyu_body_def_default();
    bd.position = p;
    bd.velocity = v;
    kyu_body_id id = KYU_NULL_BODY;
    if (kyu_body_create(w, &bd, &id) != KYU_OK) return KYU_NULL_BODY;
    return id;
}

static inline kyu_collider_def box_def(vec3s center, vec3s half, kyu_motion motion) {
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
static inline uint32_t rng_next(rng *g) {
    g->s = g->s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(g->s >> 33);
}
static inline float rng_float(rng *g, float lo, float hi) {
    return lo + (hi - lo) * (float)((double)(rng_next(g) >> 7) / 16777216.0);
}

static const float nonfinite_values[] = {NAN, INFINITY, -INFINITY};
static const char *const nonfinite_names[] = {"nan", "+inf", "-inf"};
#define NONFINITE_COUNT 3

// A float field of a def, for the tables of NaN / inf cases (test_bodies.c, test_colliders.c).
typedef struct float_field {
    const char *name;
    size_t offset;        // of the float inside the def
    kyu_status nonfinite; // expected for NaN / +-inf (see the rule at the top of the file)
    const char *keyword;  // the last error must mention this
} float_field;

#define VEC_FIELD(T, f, k, kw)                                                                               \
    { #f "." #k, offsetof(T, f) + (k) * sizeof(float), KYU_ERR_NOT_FINITE, kw }

#endif
