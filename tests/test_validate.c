// SPDX-License-Identifier: MIT
// The validator (engine/validate.c): each invariant it checks, broken on purpose in a world that
// satisfies it, is reported with what broke, and mended again it passes. In KYU_VALIDATE builds (the
// sanitizer builds) the step runs it after every stage and stops at the first stage that breaks one.
#include <setjmp.h>
#include <string.h>

#include "../engine/internal.h"
#include "test.h"

// A 3 x 3 patch of balls resting on a plane, asleep after `steps` steps if `sleep`.
static kyu_world *resting_patch(int steps, bool sleep) {
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = v3(0, -9.81f, 0);
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return NULL;
    kyu_collider_def cd = kyu_collider_def_default();
    cd.type = KYU_SHAPE_PLANE;
    kyu_collider_id floor_id;
    kyu_collider_create(w, &cd, &floor_id);
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 0.5f;
    bd.allow_sleep = sleep;
    for (int k = 0; k < 9; k++) {
        bd.position = v3((float)(k % 3), 0.5f, (float)(k / 3));
        kyu_body_id id;
        kyu_body_create(w, &bd, &id);
    }
    for (int s = 0; s < steps; s++) kyu_world_step(w);
    return w;
}

// Validates (the contact lists and islands always, and the checks named) and keeps the message; 1
// if the world is valid.
static int valid(const kyu_world *w, int checks, char *why, size_t cap) {
    return kyu_world_validate_step(w, checks | KYU_CHECK_CONTACTS | KYU_CHECK_ISLANDS, why, cap) == 0;
}

static void test_validator_reports_each_broken_invariant(void) {
    char why[256];
    kyu_world *w = resting_patch(200, true);
    ENSURE(w != NULL);
    ENSURE(kyu_world_sleeping_body_count(w) == 9);
    ENSURE(valid(w, 0, why, sizeof why));

    // A sleeper that moves.
    body_store *b = &w->bodies;
    b->vel[4] = v3(0, 1e-3f, 0);
    ENSURE(!valid(w, 0, why, sizeof why) && strstr(why, "body 4: asleep with a velocity"));
    b->vel[4] = glms_vec3_zero();
    ENSURE(valid(w, 0, why, sizeof why));

    // A sleeper its island does not list (listed twice in its place).
    const sleep_island *isl = &w->islands.list[b->island[4]];
    ENSURE(isl->body_count >= 2);
    uint32_t keep = isl->bodies[1];
    isl->bodies[1] = isl->bodies[0];
    ENSURE(!valid(w, 0, why, sizeof why));
    ENSURE(strstr(why, "listed twice") || strstr(why, "not listed by its island"));
    isl->bodies[1] = keep;
    ENSURE(valid(w, 0, why, sizeof why));

    // A body count that disagrees with the slots.
    b->count++;
    ENSURE(!valid(w, 0, why, sizeof why) && strstr(why, "live bodies, count says"));
    b->count--;
    ENSURE(valid(w, 0, why, sizeof why));
    kyu_world_destroy(w);

    // An awake world: contacts in key order, each awake body on the active list once.
    w = resting_patch(3, false);
    ENSURE(w != NULL && w->contacts.count >= 2);
    ENSURE(valid(w, KYU_CHECK_ACTIVE, why, sizeof why));
    contact c0 = w->contacts.list[0];
    w->contacts.list[0] = w->contacts.list[1], w->contacts.list[1] = c0;
    ENSURE(!valid(w, 0, why, sizeof why) && strstr(why, "out of key order"));
    w->contacts.list[1] = w->contacts.list[0], w->contacts.list[0] = c0;
    ENSURE(valid(w, 0, why, sizeof why));
    b = &w->bodies;
    b->pos[2].y = NAN;
    ENSURE(!valid(w, 0, why, sizeof why) && strstr(why, "body 2: position or velocity not finite"));
    b->pos[2].y = 0.5f;
    float ii = b->inv_inertia[2]; // an inverse inertia create would refuse: infinite, or beyond 1e37
    b->inv_inertia[2] = INFINITY;
    ENSURE(!valid(w, 0, why, sizeof why) &&
           strstr(why, "body 2: angular velocity not finite or inverse inertia"));
    b->inv_inertia[2] = 2e37f;
    ENSURE(!valid(w, 0, why, sizeof why) && strstr(why, "inverse inertia 2e+37"));
    b->inv_inertia[2] = ii;
    ENSURE(valid(w, 0, why, sizeof why));
    ENSURE(w->colliders.list[0].type == KYU_SHAPE_PLANE); // a plane's rotation is checked too
    w->colliders.list[0].rotation.w = NAN;
    ENSURE(!valid(w, 0, why, sizeof why) && strstr(why, "collider 0: rotation"));
    w->colliders.list[0].rotation.w = 0.0f;
    ENSURE(!valid(w, 0, why, sizeof why) && strstr(why, "not finite or zero"));
    w->colliders.list[0].rotation.w = 1.0f;
    ENSURE(valid(w, 0, why, sizeof why));
#ifdef KYU_VALIDATE // the checks that need the validator's per-body marks
    w->step.active_count--;
    ENSURE(!valid(w, KYU_CHECK_ACTIVE, why, sizeof why) && strstr(why, "awake but not on the active list"));
    w->step.active_count++;
    ENSURE(valid(w, KYU_CHECK_ACTIVE, why, sizeof why));
#endif
    kyu_world_destroy(w);
}

#ifdef KYU_VALIDATE
static jmp_buf stopped;
static char stopped_why[512];

static void stop_here(const char *condition, const char *file, int line) {
    (void)file, (void)line;
    snprintf(stopped_why, sizeof stopped_why, "%s", condition);
    longjmp(stopped, 1);
}
#endif

// In a KYU_VALIDATE build a step that starts from a broken world stops at stage 0 through the
// assert hook, naming the stage and the invariant; other builds do not check (the step runs).
static void test_validating_step_stops_at_the_stage_that_breaks(void) {
#ifdef KYU_VALIDATE
    kyu_world *volatile w = resting_patch(200, true);
    ENSURE(w != NULL && kyu_world_sleeping_body_count(w) == 9);
    w->bodies.ang[5] = v3(0, 0, 1); // a sleeper that turns
    stopped_why[0] = '\0';
    kyu_set_assert_handler(stop_here);
    if (setjmp(stopped) == 0) kyu_world_step(w);
    kyu_set_assert_handler(NULL);
    w->locked = 0; // the step stopped part way: let the world go
    kyu_world_destroy(w);
    ENSURE(strstr(stopped_why, "world invalid after stage 0"));
    ENSURE(strstr(stopped_why, "body 5: asleep with a velocity or an angular velocity"));
#else
    kyu_world *w = resting_patch(200, true);
    ENSURE(w != NULL && kyu_world_sleeping_body_count(w) == 9);
    w->bodies.ang[5] = v3(0, 0, 1);
    kyu_status st = kyu_world_step(w); // no check stops it (a sleeper is not stepped)
    kyu_world_destroy(w);
    ENSURE(st == KYU_OK);
#endif
}

void suite_validate(void) {
    RUN_TEST(test_validator_reports_each_broken_invariant);
    RUN_TEST(test_validating_step_stops_at_the_stage_that_breaks);
}
