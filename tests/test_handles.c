// SPDX-License-Identifier: MIT
// Handles (include/kyu/types.h, engine/body.c, engine/collider.c): a removed body or collider
// handle is stale for every function, also after its slot was reused and through generation
// wraparound; null, forged and out-of-range handles are stale, another world's are foreign; a
// long random churn of creates, destroys and steps keeps every handle naming its own body.
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "contract.h"

// Calls every body function with handle h and expects `want` from each (world unchanged, error set
// and mentioning the handle), and kyu_body_is_valid to say false.
static void expect_body_handle_rejected(const char *label, kyu_world *w, kyu_body_id h, kyu_status want) {
    char what[160];
    vec3s o3;
    float f;
    void *ud;
#define BODY_CALL(name, call)                                                                                \
    do {                                                                                                     \
        snprintf(what, sizeof what, "%s: %s", label, name);                                                  \
        REJECTS(w, want, "handle", what, call);                                                              \
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
    BODY_CALL("kyu_body_apply_force", kyu_body_apply_force(w, h, v3(1, 1, 1)));
    BODY_CALL("kyu_body_apply_force_at_point", kyu_body_apply_force_at_point(w, h, v3(1, 1, 1), v3(0, 0, 0)));
    BODY_CALL("kyu_body_apply_torque", kyu_body_apply_torque(w, h, v3(1, 1, 1)));
    BODY_CALL("kyu_body_get_force", kyu_body_get_force(w, h, &o3));
    BODY_CALL("kyu_body_get_torque", kyu_body_get_torque(w, h, &o3));
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
#define COLLIDER_CALL(name, call)                                                                            \
    do {                                                                                                     \
        snprintf(what, sizeof what, "%s: %s", label, name);                                                  \
        REJECTS(w, want, "handle", what, call);                                                              \
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

// ---- Stale and foreign handles ------------------------------------------------------------------

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
    ENSURE(kyu_world_step(w) == KYU_OK); // a removed slot is reused once the next step began
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
    expect_body_handle_rejected("index1 1e6", w, (kyu_body_id){1000000, a.world, 1}, KYU_ERR_STALE_HANDLE);
    expect_body_handle_rejected("index1 INT32_MAX", w, (kyu_body_id){0x7fffffffu, a.world, 1},
                                KYU_ERR_STALE_HANDLE);
    expect_body_handle_rejected("generation never issued", w,
                                (kyu_body_id){a.index1, a.world, a.generation + 2}, KYU_ERR_STALE_HANDLE);
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
    ENSURE(kyu_world_step(w) == KYU_OK); // a removed slot is reused once the next step began
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
        ENSURE(kyu_world_step(w) == KYU_OK); // the removed slot is free once a step began
        kyu_body_id b = add_body(w, v3(2, 0, 0), v3(0, 0, 0));
        ENSURE(b.index1 == first.index1);
        if (kyu_body_is_valid(w, first)) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "after %d reuses of its slot the removed handle is valid again "
                     "(generation %u)",
                     cycle, (unsigned)b.generation);
            test_fail(__FILE__, __LINE__, msg);
            kyu_body_destroy(w, b);
            break;
        }
        ENSURE(kyu_body_destroy(w, b) == KYU_OK);
    }
    kyu_world_destroy(w);
}

// ---- Slot reuse churn ---------------------------------------------------------------------------

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

// kyu_body_id_equal and kyu_collider_id_equal (types.h) compare all three fields: a copy equals
// its handle; another body, the body that reused a removed body's slot, and a handle of another
// world with the same slot and generation do not. A game finds its player in impact events so.
static void test_id_equal_compares_slot_world_and_generation(void) {
    kyu_world *w = make_world(v3(0, 0, 0)), *other = make_world(v3(0, 0, 0));
    ENSURE(w && other);
    kyu_body_id a = add_body(w, v3(1, 0, 0), v3(0, 0, 0)), b = add_body(w, v3(3, 0, 0), v3(0, 0, 0));
    kyu_body_id copy = a, there = add_body(other, v3(1, 0, 0), v3(0, 0, 0));
    ENSURE(there.index1 == a.index1 && there.generation == a.generation && there.world != a.world);
    EXPECT(kyu_body_id_equal(a, copy) && kyu_body_id_equal(copy, a));
    EXPECT(!kyu_body_id_equal(a, b));
    EXPECT(!kyu_body_id_equal(a, there));
    EXPECT(kyu_body_id_equal(KYU_NULL_BODY, KYU_NULL_BODY) && !kyu_body_id_equal(a, KYU_NULL_BODY));
    ENSURE(kyu_body_destroy(w, a) == KYU_OK && kyu_world_step(w) == KYU_OK);
    kyu_body_id reused = add_body(w, v3(1, 0, 0), v3(0, 0, 0));
    ENSURE(reused.index1 == a.index1); // the slot came back with a new generation
    EXPECT(!kyu_body_id_equal(reused, a) && kyu_body_id_equal(reused, reused));

    kyu_collider_def cd = kyu_collider_def_default();
    kyu_collider_id c = KYU_NULL_COLLIDER, d = KYU_NULL_COLLIDER, e = KYU_NULL_COLLIDER;
    ENSURE(kyu_collider_create(w, &cd, &c) == KYU_OK && kyu_collider_create(w, &cd, &d) == KYU_OK);
    ENSURE(kyu_collider_create(other, &cd, &e) == KYU_OK && e.index1 == c.index1);
    kyu_collider_id c2 = c;
    EXPECT(kyu_collider_id_equal(c, c2) && !kyu_collider_id_equal(c, d) && !kyu_collider_id_equal(c, e));
    EXPECT(kyu_collider_id_equal(KYU_NULL_COLLIDER, KYU_NULL_COLLIDER));

    // The use it is for: which impact events name the ball.
    kyu_world_def wd = kyu_world_def_default();
    wd.enable_impact_events = true;
    kyu_world *g = make_world_with(wd);
    ENSURE(g);
    ENSURE(kyu_collider_create(g, &cd, NULL) == KYU_OK);
    kyu_body_id ball = add_body(g, v3(0, 0.6f, 0), v3(0, -5, 0)),
                bystander = add_body(g, v3(4, 3, 0), v3(0, 0, 0));
    ENSURE(!kyu_body_id_equal(ball, bystander));
    int mine = 0;
    for (int s = 0; s < 3; s++) {
        ENSURE(kyu_world_step(g) == KYU_OK);
        int n = 0;
        const kyu_impact_event *ev = kyu_world_impact_events(g, &n);
        for (int k = 0; k < n; k++) mine += kyu_body_id_equal(ev[k].body, ball);
    }
    EXPECT(mine == 1);
    kyu_world_destroy(g);
    kyu_world_destroy(other);
    kyu_world_destroy(w);
}

void suite_handles(void) {
    RUN_TEST(test_removed_body_handle_is_stale_for_every_function);
    RUN_TEST(test_stale_handle_after_slot_reuse_is_rejected);
    RUN_TEST(test_null_and_forged_handles_are_stale);
    RUN_TEST(test_handle_index_beyond_int_range_is_stale);
    RUN_TEST(test_handle_from_another_world_is_foreign);
    RUN_TEST(test_removed_collider_handle_is_stale_after_slot_reuse);
    RUN_TEST(test_stale_handle_stays_stale_through_generation_wraparound);
    RUN_TEST(test_random_add_remove_step_churn_keeps_handles_consistent);
    RUN_TEST(test_id_equal_compares_slot_world_and_generation);
}
