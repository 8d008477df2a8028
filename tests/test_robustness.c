// SPDX-License-Identifier: MIT
// The classes of defect closed as classes: random sequences of API calls with the world's
// invariants checked after each; every allocation along a create-and-step sequence failed in turn;
// corrupted snapshots; the step-count arithmetic of kyu_world_update; errors that name their field;
// two worlds built and stepped on two threads at once (no state shared between worlds).
#include <float.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32 // the default handler's abort is watched from a forked child, which Windows has not
#include <sys/wait.h>
#include <unistd.h>
#endif

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

static uint32_t rng;
static uint32_t next(void) { return rng = rng * 1664525u + 1013904223u; }
static float frand(void) { return (float)(next() >> 8) * (1.0f / 16777216.0f); }
static float range(float lo, float hi) { return lo + (hi - lo) * frand(); }
static int pick(int n) { return (int)((next() >> 8) % (uint32_t)n); }

// ---- a world of every shape ---------------------------------------------------------------------

static const vec3s mesh_pts[4] = {{{-4, 0.1f, -4}}, {{4, 0.1f, -4}}, {{4, 0.1f, 4}}, {{-4, 0.1f, 4}}};
static const int32_t mesh_tris[6] = {0, 2, 1, 0, 3, 2};
static const vec3s hull_pts[5] = {
    {{2, 0, 2}}, {{3, 0, 2}}, {{2.5f, 0, 3}}, {{2.5f, 1, 2.5f}}, {{2.4f, 0.2f, 2.4f}}};

static kyu_collider_def collider_of(int kind, vec3s at) {
    kyu_collider_def cd = kyu_collider_def_default();
    cd.type = (kyu_shape_type)(KYU_SHAPE_PLANE + kind % 5);
    cd.position = at;
    cd.restitution = 0.3f;
    switch (cd.type) {
    case KYU_SHAPE_PLANE:
        cd.position = v3(0, at.y - 3, 0);
        break;
    case KYU_SHAPE_BOX:
        cd.half_extents = v3(1, 0.2f, 1);
        cd.rotation = (versors){{0.1f, 0.2f, 0, 1}};
        break;
    case KYU_SHAPE_CAPSULE:
        cd.capsule_a = v3(-1, 0, 0), cd.capsule_b = v3(1, 0, 0), cd.radius = 0.3f;
        break;
    case KYU_SHAPE_HULL:
        cd.points = hull_pts, cd.point_count = 5;
        break;
    case KYU_SHAPE_MESH:
        cd.points = mesh_pts, cd.point_count = 4, cd.indices = mesh_tris, cd.triangle_count = 2;
        break;
    }
    if (kind % 2 && cd.type != KYU_SHAPE_PLANE) cd.motion = KYU_KINEMATIC, cd.velocity = v3(0.2f, 0, 0);
    return cd;
}

// The bodies weigh range(0.5, 3) times this: 1, or in some random sequences near either end of the
// mass range, so that the step's impulses run from 1e-20 N s (whose squares are below float's
// normal numbers) to 1e20.
static float mass_unit = 1.0f;

static kyu_body_def body_at(vec3s p) {
    kyu_body_def bd = kyu_body_def_default();
    bd.position = p;
    bd.radius = range(0.1f, 0.5f);
    bd.mass = range(0.5f, 3.0f) * mass_unit;
    bd.restitution = range(0.0f, 1.0f);
    bd.friction = range(0.0f, 1.0f);
    bd.is_sensor = pick(20) == 0;
    bd.allow_sleep = pick(10) != 0;
    return bd;
}

// ---- random sequences of API calls --------------------------------------------------------------

#define MAX_IDS 256

typedef struct model {
    kyu_world *w, *copy; // copy: where each state of w is loaded from its snapshot
    void *snap;
    size_t snap_cap;
    kyu_body_id live[MAX_IDS], dead[MAX_IDS];
    int live_n, dead_n;
    kyu_collider_id cols[32];
    int col_n;
} model;

static void forget_body(model *m, int k) {
    if (m->dead_n < MAX_IDS) m->dead[m->dead_n++] = m->live[k];
    m->live[k] = m->live[--m->live_n];
}

// The model's view against the world's: counts, handles, stale handles refused, no NaN.
static int model_agrees(const model *m, char *why, size_t cap) {
    if (kyu_world_validate(m->w, why, cap)) return 0;
    if (kyu_world_body_count(m->w) != m->live_n)
        return snprintf(why, cap, "body count %d, model %d", kyu_world_body_count(m->w), m->live_n), 0;
    for (int k = 0; k < m->live_n; k++)
        if (!kyu_body_is_valid(m->w, m->live[k])) return snprintf(why, cap, "a live handle is invalid"), 0;
    for (int k = 0; k < m->dead_n; k++) {
        vec3s p;
        if (kyu_body_get_position(m->w, m->dead[k], &p) != KYU_ERR_STALE_HANDLE)
            return snprintf(why, cap, "a removed body's handle is not refused"), 0;
    }
    return 1;
}

// A def at the edges of what radius and inertia_scale each accept alone, spinning, of the
// sequence's mass (the speck is one: radius 1e-5, mass 1e-20, inertia_scale 1e-9): kyu
// refuses it, or makes a body its world can step, save and load. Masses stay within a factor 6 of
// each other: the contact solve does not yet survive a body 1e20 times lighter than what strikes
// it (seed 1 with such specks: one flung at 1e17 m/s, then a NaN rotation). A speck alone, and
// resting under a heavy ball, is in test_every_accepted_mass_radius_and_inertia_scale_turns_and_loads
// and test_worlds_at_the_ends_of_the_mass_range_load.
static void edge_of_range(kyu_body_def *bd) {
    const float radii[3] = {1e-5f, 0.01f, 0.5f}, scales[3] = {1e-9f, 1.0f, 1e6f};
    bd->radius = radii[pick(3)], bd->inertia_scale = scales[pick(3)];
    bd->angular_velocity = v3(range(-10, 10), range(-10, 10), range(-10, 10));
}

// A world kyu made always loads: w's snapshot loads into the copy, with the same bodies in the same
// state (the hash), and valid.
static int loads_again(model *m, char *why, size_t cap) {
    size_t n = 0;
    kyu_world_save_memory(m->w, NULL, 0, &n);
    if (n > m->snap_cap) {
        free(m->snap);
        m->snap = malloc(n), m->snap_cap = m->snap ? n : 0;
    }
    if (!m->snap || kyu_world_save_memory(m->w, m->snap, n, &n) != KYU_OK)
        return snprintf(why, cap, "the world does not save"), 0;
    if (kyu_world_load_memory(m->copy, m->snap, n) != KYU_OK)
        return snprintf(why, cap, "its own snapshot is refused: %s", kyu_world_last_error(m->copy)), 0;
    if (kyu_world_state_hash(m->copy) != kyu_world_state_hash(m->w) ||
        kyu_world_body_count(m->copy) != kyu_world_body_count(m->w))
        return snprintf(why, cap, "the loaded world differs"), 0;
    return kyu_world_validate(m->copy, why, cap) == 0;
}

static void random_operation(model *m) {
    kyu_world *w = m->w;
    int op = pick(20);
    kyu_body_id some = m->live_n ? m->live[pick(m->live_n)] : KYU_NULL_BODY;
    switch (op) {
    case 0:
    case 1:
    case 2: { // create (sometimes with a bad field)
        kyu_body_def bd = body_at(v3(range(-4, 4), range(0.5f, 6), range(-4, 4)));
        int bad = pick(8) == 0;
        if (bad) bd.radius = pick(2) ? NAN : -1.0f;
        if (!bad && pick(16) == 0) edge_of_range(&bd);
        kyu_body_id id;
        kyu_status st = kyu_body_create(w, &bd, &id);
        if (st == KYU_OK && m->live_n < MAX_IDS)
            m->live[m->live_n++] = id;
        else if (st == KYU_OK)
            kyu_body_destroy(w, id);
        break;
    }
    case 3:
        if (m->live_n) {
            int k = pick(m->live_n);
            kyu_body_destroy(w, m->live[k]);
            forget_body(m, k);
        }
        break;
    case 4:
        kyu_body_set_velocity(w, some,
                              pick(6) ? v3(range(-5, 5), range(-5, 5), range(-5, 5)) : v3(NAN, 0, 0));
        break;
    case 5:
        kyu_body_set_position(w, some, v3(range(-4, 4), range(0.5f, 6), range(-4, 4)));
        break;
    case 6: // an impulse, or a force or torque for the next step (saved between calls, cleared by it)
        // Not in the sequences of 1e19 kg bodies, which stay as they were: since the contact solve
        // works on packed rows its Coulomb bound squares mu jn in float, which overflows once mu jn
        // passes 1.8e19 N s, and such a contact keeps more friction than mu jn (its world's snapshot
        // is refused). Any other sequence of calls on those bodies found it (seed 5).
        if (mass_unit > 1.0f || pick(2))
            kyu_body_apply_impulse(w, some,
                                   glms_vec3_scale(v3(range(-1, 1), range(0, 3), range(-1, 1)), mass_unit));
        else if (pick(2))
            kyu_body_apply_force_at_point(
                w, some, glms_vec3_scale(v3(range(-30, 30), range(0, 60), range(-30, 30)), mass_unit),
                v3(range(-4, 4), range(0, 6), range(-4, 4)));
        else
            kyu_body_apply_torque(
                w, some, pick(8) ? glms_vec3_scale(v3(range(-1, 1), 0, 0), mass_unit) : v3(INFINITY, 0, 0));
        break;
    case 7:
    case 8:
    case 9:
    case 10:
        kyu_world_step(w);
        break;
    case 11:
        kyu_world_update(w, range(0, 0.1f), NULL);
        break;
    case 12: { // a collider comes or goes
        if (m->col_n < 32 && pick(2)) {
            kyu_collider_def cd = collider_of(pick(5), v3(range(-3, 3), range(0, 2), range(-3, 3)));
            kyu_collider_id id;
            if (kyu_collider_create(w, &cd, &id) == KYU_OK) m->cols[m->col_n++] = id;
        } else if (m->col_n > 1) { // the ground (index 0) stays
            int k = 1 + pick(m->col_n - 1);
            kyu_collider_destroy(w, m->cols[k]);
            m->cols[k] = m->cols[--m->col_n];
        }
        break;
    }
    case 13:
        if (m->col_n > 1)
            kyu_collider_set_velocity(w, m->cols[1 + pick(m->col_n - 1)], v3(range(-1, 1), 0, 0));
        break;
    case 14: // a move, or a rotation every shape refuses (the ground plane's too)
        if (pick(8) == 0) {
            versors q = pick(2) ? (versors){{NAN, 0, 0, 1}} : (versors){{0, 0, 0, 0}};
            kyu_collider_set_transform(w, m->cols[pick(m->col_n)], v3(0, 0, 0), q);
        } else if (m->col_n > 1) {
            kyu_collider_set_transform(w, m->cols[1 + pick(m->col_n - 1)],
                                       v3(range(-3, 3), range(0, 2), range(-3, 3)), glms_quat_identity());
        }
        break;
    case 15: { // save and load into the same world
        size_t n = 0;
        kyu_world_save_memory(w, NULL, 0, &n);
        void *buf = malloc(n);
        if (buf && kyu_world_save_memory(w, buf, n, &n) == KYU_OK) kyu_world_load_memory(w, buf, n);
        free(buf);
        break;
    }
    case 16: { // queries and contacts
        kyu_query_hit hit;
        kyu_world_raycast(w, v3(range(-4, 4), 8, range(-4, 4)), v3(0, -10, 0), kyu_query_filter_default(),
                          &hit);
        kyu_body_id near[8];
        int count;
        kyu_world_overlap_sphere(w, v3(0, 1, 0), 2, kyu_query_filter_default(), near, 8, &count);
        kyu_contact_event ev[16];
        kyu_body_get_contacts(w, some, ev, 16, &count);
        for (int i = 0; i < count && i < 16; i++) // what a body touches is alive
            if (!kyu_body_is_valid(w, ev[i].body) ||
                (ev[i].other.index1 && !kyu_body_is_valid(w, ev[i].other)) ||
                (ev[i].collider.index1 && !kyu_collider_is_valid(w, ev[i].collider)))
                m->live_n = -1000; // model_agrees then fails with the count
        break;
    }
    case 17:
        kyu_world_set_gravity(w, pick(2) ? v3(0, -9.81f, 0) : v3(0.5f, -9.81f, 0));
        break;
    case 18:
        if (m->dead_n) kyu_body_destroy(w, m->dead[pick(m->dead_n)]);
        break; // stale: refused
    case 19: { // wake a sleeper through the API, then remove what it lies on or next to
        if (m->live_n) kyu_body_set_velocity(w, some, v3(0.01f, 0, 0));
        if (m->live_n > 1 && pick(2)) {
            int k = pick(m->live_n);
            kyu_body_destroy(w, m->live[k]);
            forget_body(m, k);
        }
        break;
    }
    }
}

// ---- idle arrays given back ---------------------------------------------------------------------

// A floor with columns of 0.5 m balls standing on it, side x side columns `high` balls tall.
static int standing_columns(kyu_world *w, int side, int high) {
    kyu_collider_def floor = kyu_collider_def_default(); // the default: a plane through the origin
    if (kyu_collider_create(w, &floor, NULL) != KYU_OK) return -1;
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 0.5f;
    for (int i = 0; i < side; i++)
        for (int j = 0; j < side; j++)
            for (int k = 0; k < high; k++) {
                bd.position = v3((float)i * 1.02f, 0.5f + (float)k, (float)j * 1.02f);
                if (kyu_body_create(w, &bd, NULL) != KYU_OK) return -1;
            }
    return 0;
}

// A pile with fast bodies landing on it: contacts, a velocity solve, an escape, impact cascades, and
// late inserts into the grid's multi-cell table (the fast bodies' sweeps span several cells).
static kyu_world *landing_pile(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.worker_count = 2;
    wd.enable_sleep = false;
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return NULL;
    if (standing_columns(w, 20, 4)) return w;
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 0.5f;
    rng = 99;
    for (int n = 0; n < 100; n++) { // fast ones from above, some sideways
        bd.position = (vec3s){{range(0, 19.4f), range(8, 20), range(0, 19.4f)}};
        bd.velocity = (vec3s){{range(-20, 20), range(-60, -20), range(-20, 20)}};
        if (kyu_body_create(w, &bd, NULL) != KYU_OK) return w;
    }
    return w;
}

// Once a pile falls asleep its contacts move to the islands' records, and the arrays the stages
// needed awake give most of their room back (trim_scratch, at the step where bodies fell asleep):
// checked on the contact cache's idle half, the solver's rows and its order.
static void test_a_pile_that_falls_asleep_gives_back_its_room(void) {
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    ENSURE(standing_columns(w, 24, 12) == 0); // 6,912 balls at rest
    ENSURE(kyu_world_step(w) == KYU_OK);
    int awake_rows = w->solver.row_cap, awake_half = w->contacts.next_cap;
    ENSURE(w->contacts.count > 6000 && awake_rows > w->contacts.count && awake_half > w->contacts.count);
    int s = 0;
    while (kyu_world_sleeping_body_count(w) < kyu_world_body_count(w) && s++ < 300)
        ENSURE(kyu_world_step(w) == KYU_OK);
    ENSURE(kyu_world_sleeping_body_count(w) == kyu_world_body_count(w));
    ENSURE(w->contacts.count == 0);
    ENSURE(w->solver.row_cap < awake_rows / 4 && w->contacts.next_cap < awake_half / 4 &&
           w->solver.order_cap < awake_rows / 4);
    ENSURE_VALID(w);
    kyu_world_destroy(w);
}

// One step whose candidate pairs fill every kind of source at once (kyu_pair_source): the fine
// grid's slices (130,000 bodies at rest), the big bodies' (18,000 falling at 120 m/s: their boxes
// span several cells), the pairs found one at a time and the colliders' (a floor). The
// impacts made room for three kinds of KYU_MAX_SLICES sources: PILE of a million bodies stopped on
// that internal check on a landing step (95,599 big bodies), 193 sources for 192.
static void test_a_step_with_every_kind_of_pair_source_full(void) {
    enum { SMALL = 130000, BIG = 18000 };
    kyu_world_def wd = kyu_world_def_default();
    wd.body_capacity = SMALL + BIG;
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    kyu_collider_def cd = kyu_collider_def_default(); // the floor, under everything
    cd.position = v3(0, -10, 0);
    ENSURE(kyu_collider_create(w, &cd, NULL) == KYU_OK);
    kyu_body_def bd = kyu_body_def_default();
    for (int i = 0; i < SMALL + BIG; i++) { // a lattice 1.5 m apart, 60 x 60 a layer
        bd.position = v3(1.5f * (float)(i % 60), 1.5f * (float)(i / 3600), 1.5f * (float)(i / 60 % 60));
        bd.velocity = i < BIG ? v3(0, -120, 0) : v3(0, 0, 0);
        bd.gravity_scale = 0.0f;
        if (i < BIG) bd.position.y += 200.0f; // the fast ones far above the rest: nothing meets
        ENSURE(kyu_body_create(w, &bd, NULL) == KYU_OK);
    }
    ENSURE(kyu_world_step(w) == KYU_OK);
    ENSURE(kyu_pair_source_count(w) > 3 * KYU_MAX_SLICES); // the step really had that many
    ENSURE(kyu_world_step(w) == KYU_OK);
    ENSURE_VALID(w);
    kyu_world_destroy(w);
}

// Giving back the late-insert table a landing step grew (kyu_give_back) changes when memory is
// resident, never a result: with it always given back (kyu_idle_bytes 0) the same scene steps to
// the same state hash, step by step, as with nothing given back. The arrays the stages use every
// step keep their room between them (the idle half of the contact cache, the solver's order and
// rows, the impact heaps): given back after every step and taken again by the next, their page
// faults cost a quarter of an awake PILE step at 100,000 bodies (docs/benchmarks.md).
static void test_giving_back_idle_arrays_changes_no_result(void) {
    enum { STEPS = 40 };
    uint64_t kept[STEPS];
    int late_inserts = 0, impacts = 0;
    size_t saved = kyu_idle_bytes;
    kyu_idle_bytes = SIZE_MAX; // nothing given back
    kyu_world *w = landing_pile();
    ENSURE(w && kyu_world_body_count(w) == 1700);
    for (int s = 0; s < STEPS; s++) {
        ENSURE(kyu_world_step(w) == KYU_OK);
        kept[s] = kyu_world_state_hash(w);
        late_inserts += kyu_world_stats(w).late_inserts;
        impacts += kyu_world_stats(w).impacts;
    }
    kyu_world_destroy(w);
    ENSURE(late_inserts > 0 && impacts > 1000); // else the late table and the heaps prove nothing
    kyu_idle_bytes = 0;                         // everything over 1024 elements given back
    w = landing_pile();
    ENSURE(w != NULL);
    int given_back = 0, kept_room = 0;
    for (int s = 0; s < STEPS; s++) {
        ENSURE(kyu_world_step(w) == KYU_OK);
        ENSURE(kyu_world_state_hash(w) == kept[s]);
        given_back += w->grid.late_table_size <= 1024;
        // The idle half holds room for the next search's contacts, the solver for its rows.
        kept_room += w->contacts.next_cap > w->contacts.count && w->solver.row_cap > w->contacts.count &&
                     w->solver.order_cap > w->contacts.count;
    }
    ENSURE(given_back == STEPS && kept_room == STEPS && w->contacts.count > 1024);
    ENSURE_VALID(w);
    kyu_world_destroy(w);
    kyu_idle_bytes = saved;
}

// Random sequences of API calls (bad input among them, bodies at the edges of their ranges,
// colliders that come, go and turn, steps, saves and loads): after each call the world is valid,
// agrees with the model, and its snapshot loads into a second world in the same state. A third of
// the operations under KYU_TEST_QUICK (a sanitizer build took 20 s for all of them).
static void test_random_api_sequences_keep_every_invariant(void) {
    for (uint32_t seed = 1; seed <= 6; seed++) {
        rng = seed;
        const float units[3] = {1e-19f, 1.0f, 1e19f};
        mass_unit = units[seed % 3];
        model m;
        memset(&m, 0, sizeof m);
        kyu_world_def wd = kyu_world_def_default();
        wd.sleep_time = 0.1f; // sleep and wake happen often
        wd.worker_count = 1 + (int)(seed % 2);
        ENSURE(kyu_world_create(&wd, &m.w) == KYU_OK && kyu_world_create(&wd, &m.copy) == KYU_OK);
        kyu_collider_def ground = kyu_collider_def_default();
        kyu_collider_create(m.w, &ground, &m.cols[m.col_n++]);
        int failed = 0, operations = TEST_LENGTH(3000, 1000);
        for (int i = 0; i < operations && !failed; i++) {
            random_operation(&m);
            char why[600];
            if (!model_agrees(&m, why, sizeof why) || !loads_again(&m, why, sizeof why)) {
                char msg[700];
                snprintf(msg, sizeof msg, "seed %u, operation %d: %s", seed, i, why);
                test_fail(__FILE__, __LINE__, msg);
                failed = 1;
            }
        }
        kyu_world_destroy(m.w);
        kyu_world_destroy(m.copy);
        free(m.snap);
        mass_unit = 1.0f;
        if (failed) return;
    }
}

// ---- every allocation failed in turn ------------------------------------------------------------

static struct {
    long count, fail_at; // fail the fail_at-th allocation (1-based); 0: never
    int paused;          // the test's own bookkeeping allocates without counting
} alloc;

static int failing_now(void) {
    if (alloc.paused) return 0;
    return ++alloc.count == alloc.fail_at;
}
static void *t_alloc(size_t n, void *u) {
    (void)u;
    return failing_now() ? NULL : malloc(n);
}
static void *t_realloc(void *p, size_t n, void *u) {
    (void)u;
    return failing_now() ? NULL : realloc(p, n);
}
static void t_free(void *p, void *u) {
    (void)u;
    free(p);
}

// The world's bytes as a snapshot (allocator paused).
static void *image(kyu_world *w, size_t *n) {
    alloc.paused++;
    *n = 0;
    kyu_world_save_memory(w, NULL, 0, n);
    void *b = malloc(*n);
    kyu_world_save_memory(w, b, *n, n);
    alloc.paused--;
    return b;
}

// Whether a snapshot loads into a new world (allocator paused); why not in `why`.
static int loads(const void *snap, size_t n, char *why, size_t cap) {
    alloc.paused++;
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL;
    int ok = kyu_world_create(&wd, &w) == KYU_OK && kyu_world_load_memory(w, snap, n) == KYU_OK;
    if (!ok) snprintf(why, cap, "%s", w ? kyu_world_last_error(w) : "no world");
    kyu_world_destroy(w);
    alloc.paused--;
    return ok;
}

typedef struct sequence {
    kyu_world *w;
    int failures;  // calls that failed for memory
    char bad[512]; // the first broken promise
} sequence;

// Runs one call; if it fails for memory, checks the promise (the world exactly as it was, or for a
// step the world valid; either way one whose snapshot loads) and calls it again, which succeeds
// (only one allocation fails).
#define CALL(q, is_step, expr)                                                                               \
    do {                                                                                                     \
        size_t n0_, n1_;                                                                                     \
        void *before_ = (q)->bad[0] ? NULL : image((q)->w, &n0_);                                            \
        uint64_t h0_ = kyu_world_state_hash((q)->w);                                                         \
        kyu_status st_ = (expr);                                                                             \
        if (st_ == KYU_ERR_OUT_OF_MEMORY && !(q)->bad[0]) {                                                  \
            (q)->failures++;                                                                                 \
            char why_[200];                                                                                  \
            alloc.paused++;                                                                                  \
            int invalid_ = kyu_world_validate((q)->w, why_, sizeof why_);                                    \
            alloc.paused--;                                                                                  \
            void *after_ = image((q)->w, &n1_);                                                              \
            if (invalid_)                                                                                    \
                snprintf((q)->bad, sizeof(q)->bad, "%s failed and left the world invalid: %s", #expr, why_); \
            else if (!loads(after_, n1_, why_, sizeof why_))                                                 \
                snprintf((q)->bad, sizeof(q)->bad, "%s failed and left a world that does not load: %s",      \
                         #expr, why_);                                                                       \
            else if (!(is_step) &&                                                                           \
                     (h0_ != kyu_world_state_hash((q)->w) || n0_ != n1_ || memcmp(before_, after_, n0_)))    \
                snprintf((q)->bad, sizeof(q)->bad, "%s failed and changed the world", #expr);                \
            free(after_);                                                                                    \
            st_ = (expr);                                                                                    \
        }                                                                                                    \
        free(before_);                                                                                       \
        if (st_ != KYU_OK && !(q)->bad[0])                                                                   \
            snprintf((q)->bad, sizeof(q)->bad, "%s: %s", #expr, kyu_status_string(st_));                     \
    } while (0)

static void run_sequence(sequence *q) {
    kyu_world_def wd = kyu_world_def_default();
    wd.sleep_time = 0.1f;
    wd.body_capacity = 4;
    if (kyu_world_create(&wd, &q->w) != KYU_OK) {
        q->failures++; // creating the world failed: nothing to check but that it leaks nothing
        alloc.fail_at = 0;
        if (kyu_world_create(&wd, &q->w) != KYU_OK) {
            snprintf(q->bad, sizeof q->bad, "kyu_world_create failed twice");
            return;
        }
    }
    kyu_world *w = q->w;
    kyu_collider_id ids[5];
    for (int k = 0; k < 5; k++) {
        kyu_collider_def cd = collider_of(2 * k, v3((float)k - 2, 0, 0)); // static shapes
        CALL(q, 0, kyu_collider_create(w, &cd, &ids[k]));
    }
    kyu_body_id balls[24];
    for (int i = 0; i < 24; i++) {
        kyu_body_def bd = kyu_body_def_default();
        bd.radius = 0.2f;
        bd.position =
            v3(-2.0f + 0.45f * (float)(i % 8), 0.8f + 0.45f * (float)(i / 8), 0.1f * (float)(i % 3));
        CALL(q, 0, kyu_body_create(w, &bd, &balls[i]));
    }
    for (int s = 0; s < 40; s++) CALL(q, 1, kyu_world_step(w)); // they land and fall asleep
    CALL(q, 0, kyu_body_set_velocity(w, balls[3], v3(0, 1, 0)));
    const float up[6] = {0, 0.5f, 0, 0, 0.4f, 0};
    kyu_body_id pair[2] = {balls[10], balls[20]};
    CALL(q, 0, kyu_bodies_set_velocities(w, pair, 2, up)); // several islands at once: all or nothing
    CALL(q, 0, kyu_collider_destroy(w, ids[4]));
    CALL(q, 0, kyu_body_destroy(w, balls[5]));
    kyu_collider_def moving = collider_of(1, v3(0, 2, 0));
    kyu_collider_id paddle;
    CALL(q, 0, kyu_collider_create(w, &moving, &paddle));
    CALL(q, 0, kyu_collider_set_transform(w, ids[1], v3(0, 0.5f, 0), glms_quat_identity()));
    CALL(q, 0, kyu_world_set_gravity(w, v3(1, -9.81f, 0)));
    for (int s = 0; s < 10; s++) CALL(q, 1, kyu_world_step(w));
    // Forces on sleeping and awake balls (their list and its table grow, islands wake), saved.
    for (int i = 0; i < 24; i += 2)
        CALL(q, 0, kyu_body_apply_force_at_point(w, balls[i], v3(0, 3, 0), v3(-2, 1, 0)));
    CALL(q, 0, kyu_body_apply_torque(w, balls[7], v3(0, 0.01f, 0)));
    CALL(q, 1, kyu_world_step(w));
    size_t n;
    void *snap = image(w, &n);
    CALL(q, 0, kyu_world_load_memory(w, snap, n));
    free(snap);
    for (int s = 0; s < 5; s++) CALL(q, 1, kyu_world_step(w));
}

// ---- a removal, then a step that fails ---------------------------------------------------------

// A bed of balls asleep on the ground plane (collider 0) and on a box (collider 1), as a snapshot.
static void *sleeping_bed(size_t *n) {
    kyu_world_def wd = kyu_world_def_default();
    wd.sleep_time = 0.1f;
    kyu_world *w = NULL;
    *n = 0;
    if (kyu_world_create(&wd, &w) != KYU_OK) return NULL;
    kyu_collider_def cd = kyu_collider_def_default();
    kyu_collider_create(w, &cd, NULL);
    cd.type = KYU_SHAPE_BOX, cd.position = v3(5, 0.25f, 1), cd.half_extents = v3(1, 0.25f, 1);
    kyu_collider_create(w, &cd, NULL);
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 0.2f;
    for (int i = 0; i < 48; i++) { // touching rows on the plane
        bd.position = v3(0.4f * (float)(i % 8), 0.2f, 0.4f * (float)(i / 8));
        kyu_body_create(w, &bd, NULL);
    }
    for (int i = 0; i < 9; i++) { // and on the box
        bd.position = v3(4.6f + 0.4f * (float)(i % 3), 0.7f, 0.6f + 0.4f * (float)(i / 3));
        kyu_body_create(w, &bd, NULL);
    }
    for (int s = 0; s < 300 && kyu_world_sleeping_body_count(w) < 57; s++) kyu_world_step(w);
    void *snap = kyu_world_sleeping_body_count(w) == 57 ? image(w, n) : NULL;
    kyu_world_destroy(w);
    return snap;
}

enum { REMOVE_BODY = 1, REMOVE_COLLIDER = 2 }; // what removal_then_failing_step removes

// Loads the bed, removes a ball from the middle of the plane's rows (REMOVE_BODY), the plane under
// them (REMOVE_COLLIDER), or a ball on the box and the plane (both), and fails the fail_at-th
// allocation of the next step. Then the world must be valid, and load from its snapshot into a
// world that steps on as it does: a failed step leaves a world that steps, saves and loads
// (world.h). Returns how many allocations that step asked for; the first broken promise is in bad.
static long removal_then_failing_step(const void *bed, size_t n, int what, long fail_at, int *failed_steps,
                                      char *bad, size_t cap) {
    alloc.paused++;
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL, *w2 = NULL;
    kyu_world_create(&wd, &w), kyu_world_create(&wd, &w2);
    kyu_body_id ids[57];
    int ready =
        w && w2 && kyu_world_load_memory(w, bed, n) == KYU_OK && kyu_world_get_bodies(w, ids, 57) == 57;
    kyu_collider_id plane = {1, ready ? ids[0].world : 0, 1}; // the first collider made, never removed
    ready = ready && kyu_collider_is_valid(w, plane);
    if (ready && (what & REMOVE_BODY))
        ready = kyu_body_destroy(w, ids[what & REMOVE_COLLIDER ? 52 : 20]) == KYU_OK;
    if (ready && (what & REMOVE_COLLIDER)) ready = kyu_collider_destroy(w, plane) == KYU_OK;
    alloc.paused--;
    alloc.count = 0, alloc.fail_at = fail_at;
    kyu_status failed = ready ? kyu_world_step(w) : KYU_OK;
    long asked = alloc.count;
    alloc.fail_at = 0;
    *failed_steps += failed != KYU_OK;
    alloc.paused++;
    char why[200] = "";
    if (!ready)
        snprintf(why, sizeof why, "the bed did not load, or the removal failed");
    else if (failed != KYU_OK && failed != KYU_ERR_OUT_OF_MEMORY)
        snprintf(why, sizeof why, "the step failed with %s", kyu_status_string(failed));
    else if (kyu_world_validate(w, why, sizeof why) == 0) {
        size_t m;
        void *snap = image(w, &m);
        if (kyu_world_load_memory(w2, snap, m) != KYU_OK)
            snprintf(why, sizeof why, "its snapshot is refused: %s", kyu_world_last_error(w2));
        for (int s = 0; s < 3 && !why[0]; s++)
            if (kyu_world_step(w) != KYU_OK || kyu_world_step(w2) != KYU_OK)
                snprintf(why, sizeof why, "a later step failed");
            else if (kyu_world_state_hash(w) != kyu_world_state_hash(w2))
                snprintf(why, sizeof why, "the loaded world does not step as the world does");
        if (!why[0]) kyu_world_validate(w, why, sizeof why);
        free(snap);
    }
    if (why[0] && !bad[0])
        snprintf(bad, cap, "%s removed, the next step's allocation %ld failed (%s): %s",
                 what == REMOVE_BODY       ? "a body"
                 : what == REMOVE_COLLIDER ? "the plane"
                                           : "a body and the plane",
                 fail_at, failed == KYU_OK ? "the step went on" : "the step failed", why);
    kyu_world_destroy(w2);
    kyu_world_destroy(w);
    alloc.paused--;
    return asked;
}

// Every removal (a body, a collider, both) followed by a step whose Nth allocation fails, for
// every N: the step fails (or goes on, where the failure is one it can do without) and leaves a
// world that validates, saves, loads and steps on. Returns how many steps failed; the first broken
// promise is in bad.
static int every_removal_then_every_failing_step(char *bad, size_t cap) {
    size_t n;
    alloc.paused++;
    void *bed = sleeping_bed(&n);
    alloc.paused--;
    if (!bed) return snprintf(bad, cap, "the bed did not fall asleep"), 0;
    int failed_steps = 0;
    const int kinds[3] = {REMOVE_BODY, REMOVE_COLLIDER, REMOVE_BODY | REMOVE_COLLIDER};
    for (int k = 0; k < 3 && !bad[0]; k++) {
        long total = removal_then_failing_step(bed, n, kinds[k], 0, &failed_steps, bad, cap);
        for (long at = 1; at <= total && !bad[0]; at++)
            removal_then_failing_step(bed, n, kinds[k], at, &failed_steps, bad, cap);
    }
    free(bed);
    return failed_steps;
}

// Every allocation of a sequence of calls (creates, steps, removals, setters, a load) failed in turn:
// the call fails and leaves the world as world.h promises, and one whose snapshot loads. Then every
// kind of removal followed by a step whose Nth allocation fails, for every N.
static void test_every_allocation_failure_leaves_the_world_as_promised(void) {
    kyu_allocator hooks = {t_alloc, t_realloc, t_free, NULL};
    ENSURE(kyu_set_allocator(&hooks) == KYU_OK);
    memset(&alloc, 0, sizeof alloc);
    sequence clean = {0};
    run_sequence(&clean);
    long total = alloc.count;
    kyu_world_destroy(clean.w);
    int ok = clean.bad[0] == 0 && total > 100;
    long checked = 0;
    char first_bad[600] = "";
    for (long n = 1; ok && n <= total; n++) {
        alloc.count = 0, alloc.fail_at = n;
        sequence q = {0};
        run_sequence(&q);
        alloc.fail_at = 0;
        if (q.w) {
            char why[200];
            if (!q.bad[0] && kyu_world_validate(q.w, why, sizeof why))
                snprintf(q.bad, sizeof q.bad, "invalid at the end: %s", why);
            kyu_world_destroy(q.w);
        }
        if (q.bad[0]) {
            snprintf(first_bad, sizeof first_bad, "allocation %ld of %ld: %s", n, total, q.bad);
            ok = 0;
        }
        checked += q.failures;
    }
    char removal_bad[600] = "";
    int failed_steps = ok ? every_removal_then_every_failing_step(removal_bad, sizeof removal_bad) : 0;
    kyu_set_allocator(NULL);
    printf("    %ld allocations, %ld failed calls checked; %d failed steps after a removal\n", total, checked,
           failed_steps);
    if (!ok && first_bad[0]) test_fail(__FILE__, __LINE__, first_bad);
    ENSURE(ok);
    ENSURE(checked >= total / 2); // most of the failures hit a call (the rest hit the snapshot reads)
    if (removal_bad[0]) test_fail(__FILE__, __LINE__, removal_bad);
    ENSURE(!removal_bad[0] && failed_steps > 30);
}

// ---- the allocator and assert hooks -------------------------------------------------------------

// Counts the blocks kyu holds; `failing` makes every request fail (the hooks stay installed: they
// cannot be swapped while a world exists).
typedef struct counting {
    long live, allocations;
    int failing;
} counting;

static void *c_alloc(size_t n, void *u) {
    counting *c = u;
    if (c->failing) return NULL;
    void *p = malloc(n);
    if (p) c->live++, c->allocations++;
    return p;
}
static void *c_realloc(void *p, size_t n, void *u) {
    counting *c = u;
    if (c->failing) return NULL;
    c->allocations++;
    return realloc(p, n); // the block stays one block (on failure the old one is still held)
}
static void c_free(void *p, void *u) {
    counting *c = u;
    c->live--;
    free(p);
}

// Everything a world allocates (two workers, every shape, events, queries, a snapshot, removals)
// goes through the hooks, and every block is given back by kyu_world_destroy.
static void test_counting_allocator_gets_every_block_back_after_destroy(void) {
    counting c = {0};
    kyu_allocator hooks = {c_alloc, c_realloc, c_free, &c};
    ENSURE(kyu_set_allocator(&hooks) == KYU_OK);
    kyu_world_def wd = kyu_world_def_default();
    wd.worker_count = 2;
    wd.enable_impact_events = true;
    kyu_world *w = NULL;
    kyu_status st = kyu_world_create(&wd, &w);
    long after_create = c.live;
    kyu_body_id ids[200];
    int created = 0;
    for (int k = 0; st == KYU_OK && k < 5; k++) {
        kyu_collider_def cd = collider_of(2 * k, v3(2.5f * (float)k - 5, 0, 0));
        st = kyu_collider_create(w, &cd, NULL);
    }
    for (int i = 0; st == KYU_OK && i < 200; i++, created++) {
        kyu_body_def bd = kyu_body_def_default();
        bd.radius = 0.2f;
        bd.position =
            v3(-5.0f + 0.5f * (float)(i % 20), 1.0f + 0.5f * (float)(i / 20), 0.3f * (float)(i % 3));
        st = kyu_body_create(w, &bd, &ids[i]);
    }
    for (int s = 0; st == KYU_OK && s < 60; s++) st = kyu_world_step(w);
    kyu_query_hit hit;
    if (st == KYU_OK)
        st = kyu_world_raycast(w, v3(0, 10, 0), v3(0, -20, 0), kyu_query_filter_default(), &hit);
    size_t n = 0;
    if (st == KYU_OK) kyu_world_save_memory(w, NULL, 0, &n);
    void *snap = malloc(n);
    if (st == KYU_OK) st = kyu_world_save_memory(w, snap, n, &n);
    for (int i = 0; st == KYU_OK && i < created; i += 3) st = kyu_body_destroy(w, ids[i]);
    for (int s = 0; st == KYU_OK && s < 10; s++) st = kyu_world_step(w);
    if (st == KYU_OK) st = kyu_world_load_memory(w, snap, n);
    for (int s = 0; st == KYU_OK && s < 10; s++) st = kyu_world_step(w);
    free(snap);
    long during = c.live, allocations = c.allocations;
    kyu_world_destroy(w);
    long after_destroy = c.live;
    kyu_hull_data hull = {0};
    int built = kyu_hull_build(hull_pts, 5, &hull);
    long hull_blocks = c.live;
    kyu_hull_free(&hull);
    long after_hull = c.live;
    kyu_set_allocator(NULL);
    printf("    %ld allocations, %ld blocks held after creation, %ld while stepping\n", allocations,
           after_create, during);
    ENSURE(st == KYU_OK);
    ENSURE(after_create > 0 && during > after_create && allocations > 100); // kyu used the hooks
    ENSURE(after_destroy == 0);
    ENSURE(built == KYU_HULL_OK && hull_blocks > 0 && after_hull == 0);
}

// With every request failing: no world (and nothing held). Then bodies are added with memory
// refused at each call: a call that needs no memory succeeds; one that does (the storage grows at
// 64, 128, ... bodies) is refused with KYU_ERR_OUT_OF_MEMORY, the world as it was, and the same call
// works once memory is back.
static void test_failing_allocator_makes_creation_fail_cleanly(void) {
    counting c = {.failing = 1};
    kyu_allocator hooks = {c_alloc, c_realloc, c_free, &c};
    ENSURE(kyu_set_allocator(&hooks) == KYU_OK);
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = (kyu_world *)&c; // not NULL, to see it set
    kyu_status refused = kyu_world_create(&wd, &w);
    int no_world = w == NULL && c.live == 0;
    c.failing = 0;
    kyu_status st = kyu_world_create(&wd, &w);
    int refusals = 0, broken = 0;
    kyu_body_id first = KYU_NULL_BODY;
    for (int i = 0; st == KYU_OK && i < 300 && !broken; i++) {
        kyu_body_def bd = kyu_body_def_default();
        bd.position = v3(1.5f * (float)(i % 20), 1.5f * (float)(i / 20), 0);
        uint64_t hash = kyu_world_state_hash(w);
        long held = c.live;
        c.failing = 1;
        kyu_body_id id = KYU_NULL_BODY;
        st = kyu_body_create(w, &bd, &id);
        c.failing = 0;
        if (st == KYU_ERR_OUT_OF_MEMORY) {
            refusals++;
            broken = kyu_world_body_count(w) != i || kyu_world_state_hash(w) != hash || c.live != held ||
                     kyu_body_is_valid(w, id) || (i > 0 && !kyu_body_is_valid(w, first)) ||
                     !strstr(kyu_world_last_error(w), "memory");
            st = kyu_body_create(w, &bd, &id);
        }
        if (i == 0) first = id;
    }
    int bodies = kyu_world_body_count(w);
    kyu_world_destroy(w);
    long after = c.live;
    kyu_set_allocator(NULL);
    printf("    %d of 300 body creations needed memory\n", refusals);
    ENSURE(refused == KYU_ERR_OUT_OF_MEMORY && no_world);
    ENSURE(st == KYU_OK && bodies == 300);
    ENSURE(refusals >= 2 && !broken);
    ENSURE(after == 0);
}

// The hooks cannot change under a live world (its blocks must go back where they came from), and
// incomplete hooks are refused; in both cases the hooks in place stay.
static void test_allocator_is_refused_while_a_world_exists_or_incomplete(void) {
    counting c = {0};
    kyu_allocator hooks = {c_alloc, c_realloc, c_free, &c};
    kyu_allocator no_free = {c_alloc, c_realloc, NULL, &c};
    ENSURE(kyu_set_allocator(&no_free) == KYU_ERR_NULL);
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    kyu_status while_alive = kyu_set_allocator(&hooks);
    kyu_status reset_while_alive = kyu_set_allocator(NULL);
    kyu_world_destroy(w);
    ENSURE(while_alive == KYU_ERR_LOCKED && reset_while_alive == KYU_ERR_LOCKED);
    ENSURE(c.allocations == 0); // neither the refused hooks nor the incomplete ones were used
    ENSURE(kyu_set_allocator(&hooks) == KYU_OK);
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    long used = c.allocations;
    kyu_world_destroy(w);
    ENSURE(kyu_set_allocator(NULL) == KYU_OK);
    ENSURE(used > 0 && c.live == 0);
}

static struct {
    jmp_buf back;
    int calls, line;
    char condition[128], file[128];
} caught;

static void catch_assert(const char *condition, const char *file, int line) {
    caught.calls++;
    snprintf(caught.condition, sizeof caught.condition, "%s", condition);
    snprintf(caught.file, sizeof caught.file, "%s", file);
    caught.line = line;
    longjmp(caught.back, 1);
}

// An internal invariant broken on purpose: kyu_broadphase_mark_hit (internal.h) is told of an
// impact between two bodies the broadphase never paired. The handler hears the condition and
// where it is, and takes control before kyu would abort.
static void test_assert_handler_hears_a_broken_invariant(void) {
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    kyu_body_def bd = kyu_body_def_default();
    kyu_body_id a, b;
    ENSURE(kyu_body_create(w, &bd, &a) == KYU_OK);
    bd.position = v3(100, 0, 0); // far apart: never partners
    ENSURE(kyu_body_create(w, &bd, &b) == KYU_OK);
    kyu_world_step(w);
    memset(&caught, 0, sizeof caught);
    kyu_set_assert_handler(catch_assert);
    if (setjmp(caught.back) == 0) kyu_broadphase_mark_hit(w, 0, 1);
    kyu_set_assert_handler(NULL);
    kyu_world_destroy(w);
    ENSURE(caught.calls == 1);
    ENSURE(strstr(caught.condition, "not partners") != NULL);
    ENSURE(strstr(caught.file, "broadphase.c") != NULL && caught.line > 0);
}

// Without a handler (or after NULL restores the default) a failed check prints itself and aborts:
// in a child process, which must die of SIGABRT.
#ifndef _WIN32
static void test_default_assert_handler_aborts(void) {
    kyu_set_assert_handler(catch_assert);
    kyu_set_assert_handler(NULL);
    fflush(stdout);
    pid_t child = fork();
    ENSURE(child >= 0);
    if (child == 0) {
        fclose(stderr); // the expected message stays out of the test log
        KYU_ASSERT(1 + 1 == 3);
        _exit(0); // not reached if the check fired
    }
    int status = 0;
    ENSURE(waitpid(child, &status, 0) == child);
    ENSURE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}
#endif

// ---- snapshots that someone else wrote ----------------------------------------------------------

// A snapshot's checksum (FNV-1a of its bytes after the 32-byte header, at bytes 24-31) made right
// again after its bytes were changed.
static void reseal(uint8_t *snap, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 32; i < n; i++) h = (h ^ snap[i]) * 0x100000001b3ull;
    memcpy(snap + 24, &h, 8);
}

// 2,000 snapshots with a few bytes changed and the checksum made right again: each is refused with
// the world unchanged, or loads into a valid world that steps without NaN (UBSan watches the rest).
static void test_corrupted_snapshots_are_refused_or_step_cleanly(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.sleep_time = 0.2f;
    kyu_world *w = NULL;
    kyu_world_create(&wd, &w);
    for (int k = 0; k < 5; k++) {
        kyu_collider_def cd = collider_of(k, v3((float)k - 2, 0, 0));
        kyu_collider_create(w, &cd, NULL);
    }
    rng = 99;
    for (int i = 0; i < 40; i++) {
        kyu_body_def bd = body_at(v3(range(-3, 3), range(0.5f, 3), range(-1, 1)));
        kyu_body_create(w, &bd, NULL);
    }
    for (int s = 0; s < 60; s++) kyu_world_step(w);
    size_t n = 0;
    kyu_world_save_memory(w, NULL, 0, &n);
    uint8_t *good = malloc(n), *bad = malloc(n);
    kyu_world_save_memory(w, good, n, &n);
    int accepted = 0;
    kyu_world *into = NULL;
    kyu_world_create(&wd, &into);
    for (int trial = 0; trial < 2000; trial++) {
        memcpy(bad, good, n);
        int flips = 1 + pick(4);
        for (int f = 0; f < flips; f++) {
            size_t at = 32 + (size_t)pick((int)(n - 32));
            bad[at] = pick(3) ? (uint8_t)next() : (uint8_t)(bad[at] ^ (1u << pick(8)));
        }
        reseal(bad, n);
        uint64_t before = kyu_world_state_hash(into);
        if (kyu_world_load_memory(into, bad, n) != KYU_OK) {
            ENSURE(kyu_world_state_hash(into) == before);
            continue;
        }
        accepted++;
        ENSURE_VALID(into);
        for (int s = 0; s < 10; s++) {
            kyu_world_step(into);
            ENSURE_VALID(into);
        }
    }
    ENSURE(kyu_world_load_memory(into, good, n) == KYU_OK); // and the good one still loads
    free(good), free(bad);
    kyu_world_destroy(w);
    kyu_world_destroy(into);
    ENSURE(accepted < 2000);
}

// An old format is refused with a message that says what to do.
static void test_old_snapshot_format_is_refused_by_name(void) {
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL;
    kyu_world_create(&wd, &w);
    size_t n = 0;
    kyu_world_save_memory(w, NULL, 0, &n);
    uint8_t *buf = malloc(n);
    kyu_world_save_memory(w, buf, n, &n);
    uint32_t one = 1;
    memcpy(buf + 8, &one, 4);
    ENSURE(kyu_world_load_memory(w, buf, n) == KYU_ERR_BAD_SNAPSHOT);
    ENSURE(strstr(kyu_world_last_error(w), "version 1") != NULL);
    free(buf);
    kyu_world_destroy(w);
}

// ---- the fixed-step loop and the world's settings ------------------------------------------------

// A legal dt of 1e-4 s and a legal frame of 1e6 s: the step count is capped before it is an int,
// the extra time is dropped, and the next frames step normally (it used to freeze for good).
static void test_update_with_huge_frame_and_tiny_step_never_freezes(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.fixed_dt = 1e-4f;
    wd.max_steps_per_update = 16;
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    kyu_body_def bd = kyu_body_def_default();
    bd.position = v3(0, 10, 0);
    kyu_body_id ball;
    kyu_body_create(w, &bd, &ball);
    int steps = 0, total = 0;
    ENSURE(kyu_world_update(w, 1e6f, &steps) == KYU_OK);
    ENSURE(steps == wd.max_steps_per_update);
    ENSURE(kyu_world_alpha(w) >= 0.0f && kyu_world_alpha(w) < 1.0f);
    total += steps;
    for (int frame = 0; frame < 10; frame++) {
        ENSURE(kyu_world_update(w, 1e-3f, &steps) == KYU_OK);
        ENSURE(steps >= 9 && steps <= 11); // 1 ms of 0.1 ms steps (the remainder carries over)
        total += steps;
    }
    ENSURE(total >= 16 + 99);
    ENSURE_NEAR(vel(w, ball).y, -9.81 * total * 1e-4, 1e-4); // it fell every step it was owed
    kyu_world_destroy(w);
}

static void test_world_settings_errors_name_the_field_and_value(void) {
    char msg[200];
    kyu_world_def wd = kyu_world_def_default();
    wd.linear_slop = 0.05f; // above the margin
    wd.contact_margin = 0.02f;
    ENSURE(kyu_world_def_check(&wd, msg, sizeof msg) == KYU_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(msg, "contact_margin") && strstr(msg, "linear_slop") && strstr(msg, "0.05"));
    wd = kyu_world_def_default();
    wd.fixed_dt = -1;
    ENSURE(kyu_world_def_check(&wd, msg, sizeof msg) == KYU_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(msg, "fixed_dt = -1") != NULL);
    wd.fixed_dt = 1e-30f; // would freeze: nothing moves in such a step
    kyu_world *w = (kyu_world *)1;
    ENSURE(kyu_world_create(&wd, &w) == KYU_ERR_INVALID_ARGUMENT && w == NULL);
    ENSURE(kyu_world_def_check(&wd, msg, sizeof msg) == KYU_ERR_INVALID_ARGUMENT && strstr(msg, "fixed_dt"));
    wd = kyu_world_def_default();
    wd.sleep_speed = NAN;
    ENSURE(kyu_world_def_check(&wd, msg, sizeof msg) == KYU_ERR_NOT_FINITE && strstr(msg, "sleep_speed"));
    wd = kyu_world_def_default();
    ENSURE(kyu_world_def_check(&wd, msg, sizeof msg) == KYU_OK && msg[0] == '\0');
    ENSURE(kyu_world_def_check(NULL, msg, sizeof msg) == KYU_ERR_NULL);
}

// 10^5 bodies created at one point: the first step stops at the pair or contact capacity at once, says so,
// and takes no more memory than the capacity allows; the world is still valid. The same with two
// workers (the new bodies' contact search runs in slices at once, and stops on their sum).
static void test_bodies_piled_at_one_point_hit_the_pair_capacity(void) {
    for (int workers = 1; workers <= 2; workers++) {
        kyu_world_def wd = kyu_world_def_default();
        wd.body_capacity = 100000;
        wd.worker_count = workers;
        kyu_world *w = NULL;
        ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
        kyu_body_def bd = kyu_body_def_default();
        for (int i = 0; i < 100000; i++) ENSURE(kyu_body_create(w, &bd, NULL) == KYU_OK);
        ENSURE(kyu_world_step(w) == KYU_ERR_CAPACITY);
        ENSURE(strstr(kyu_world_last_error(w), "contact_capacity_per_body") != NULL); // found first
        ENSURE_VALID(w);
        ENSURE(kyu_world_step(w) == KYU_ERR_CAPACITY); // again, from where it stopped
        ENSURE_VALID(w);
        kyu_world_destroy(w);
    }
}

// ---- no state shared between worlds -------------------------------------------------------------

// Each thread builds meshes (their trees are sorted with the build's own scratch) and steps its own
// world; run under ThreadSanitizer in CI. Both end in the same state.
static void *mesh_world_thread(void *arg) {
    uint64_t *hash = arg;
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return NULL;
    enum { G = 12 };
    vec3s pts[(G + 1) * (G + 1)];
    int32_t tris[G * G * 6];
    for (int round = 0; round < 20; round++) {
        for (int z = 0; z <= G; z++)
            for (int x = 0; x <= G; x++)
                pts[z * (G + 1) + x] =
                    v3((float)x - G / 2, 0.05f * (float)((x * 7 + z * 3 + round) % 5), (float)z - G / 2);
        int t = 0;
        for (int z = 0; z < G; z++)
            for (int x = 0; x < G; x++) {
                int32_t a = z * (G + 1) + x, b = a + 1, c = a + G + 1, d = c + 1;
                tris[t++] = a, tris[t++] = c, tris[t++] = b, tris[t++] = b, tris[t++] = c, tris[t++] = d;
            }
        kyu_collider_def cd = kyu_collider_def_default();
        cd.type = KYU_SHAPE_MESH, cd.points = pts, cd.point_count = (G + 1) * (G + 1);
        cd.indices = tris, cd.triangle_count = G * G * 2, cd.position = v3(0, (float)-round, 0);
        kyu_collider_create(w, &cd, NULL);
    }
    kyu_body_def bd = kyu_body_def_default();
    for (int i = 0; i < 30; i++) {
        bd.position = v3((float)(i % 6) - 3, 2.0f + (float)(i / 6), 0.3f * (float)(i % 4));
        kyu_body_create(w, &bd, NULL);
    }
    for (int s = 0; s < 60; s++) kyu_world_step(w);
    *hash = kyu_world_state_hash(w);
    kyu_world_destroy(w);
    return NULL;
}

static void test_worker_threads_build_meshes_and_step_two_worlds_at_once(void) {
    uint64_t h[2] = {0, 0};
    pthread_t t[2];
    for (int i = 0; i < 2; i++) ENSURE(pthread_create(&t[i], NULL, mesh_world_thread, &h[i]) == 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    ENSURE(h[0] != 0 && h[0] == h[1]);
}

// ---- the speeds and distances kyu accepts, it resolves ---------------------------------------------

// Balls of radius r fired from as far from the origin as kyu accepts (2^20 radii), at the highest
// speed it accepts (2^20 radii a step), at a wall one radius thick and at a one-sided 2-triangle
// mesh: none passes. A faster one is refused by name. (Measured: these held up to 2^22 radii.)
static void test_fastest_accepted_balls_never_pass_a_thin_wall(void) {
    const float radii[3] = {0.001f, 0.01f, 1.0f};
    for (int ri = 0; ri < 3; ri++)
        for (int shape = 0; shape < 2; shape++) {
            float r = radii[ri], reach = 1048576.0f * r, X = 0.499f * reach, S = 60 * r;
            kyu_world_def wd = kyu_world_def_default();
            wd.gravity = v3(0, 0, 0);
            wd.pair_capacity_per_body = 1024; // a million radii a step: every path box meets its lane's
            kyu_world *w = NULL;
            ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
            kyu_collider_def cd = kyu_collider_def_default();
            vec3s pts[4] = {v3(0, -S, -S), v3(0, S, -S), v3(0, S, S), v3(0, -S, S)};
            int32_t tris[6] = {0, 1, 2, 0, 2, 3};
            if (shape == 0)
                cd.type = KYU_SHAPE_BOX, cd.position = v3(X + r, 0, 0), cd.half_extents = v3(r, S, S);
            else
                cd.type = KYU_SHAPE_MESH, cd.position = v3(X, 0, 0), cd.points = pts, cd.point_count = 4,
                cd.indices = tris, cd.triangle_count = 2;
            ENSURE(kyu_collider_create(w, &cd, NULL) == KYU_OK);
            kyu_body_def bd = kyu_body_def_default();
            bd.radius = r, bd.mass = 0.01f, bd.restitution = 0.5f;
            bd.velocity = v3(0.999f * reach / wd.fixed_dt, 0, 0);
            rng = 12345;
            for (int i = 0; i < 1000; i++) {
                bd.position =
                    v3(X - 0.998f * reach * frand(), -0.75f * S + 1.5f * S * (float)(i % 32) / 32.0f,
                       -0.75f * S + 1.5f * S * (float)(i / 32) / 32.0f);
                ENSURE(kyu_body_create(w, &bd, NULL) == KYU_OK);
            }
            for (int s = 0; s < 3; s++) ENSURE(kyu_world_step(w) == KYU_OK);
            kyu_body_id ids[1000];
            ENSURE(kyu_world_get_bodies(w, ids, 1000) == 1000);
            for (int i = 0; i < 1000; i++) ENSURE(pos(w, ids[i]).x < X - 0.99f * r);
            bd.velocity = v3(1.01f * reach / wd.fixed_dt, 0, 0);
            ENSURE(kyu_body_create(w, &bd, NULL) == KYU_ERR_INVALID_ARGUMENT);
            ENSURE(strstr(kyu_world_last_error(w), "one step") != NULL);
            kyu_world_destroy(w);
        }
}

// ---- the masses, sizes and inertias kyu accepts, it turns ---------------------------------------

// A body of radius r, mass m and inertia_scale s on a floor beside its twin, spinning and sliding:
// refused with a message that names radius, mass and inertia_scale, or made with the moment of
// inertia asked for (to float precision), its spin settable, its world stepping, valid, and loaded
// from its own snapshot. 1: made, 0: refused, -1: neither (a failure is recorded).
static int turns_and_loads_or_is_refused(float r, float m, float s) {
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL, *w2 = NULL;
    kyu_world_create(&wd, &w);
    kyu_world_create(&wd, &w2);
    kyu_collider_def floor = kyu_collider_def_default();
    kyu_collider_create(w, &floor, NULL);
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = r, bd.mass = m, bd.inertia_scale = s, bd.friction = 0.5f;
    float fastest = 1e9f / fmaxf(r, 1.0f); // the fastest spin accepted (|w| and |w| r at most 1e9)
    bd.position = v3(0, r, 0), bd.velocity = v3(r, 0, 0), bd.angular_velocity = v3(0.5f * fastest, 0, 0);
    kyu_body_id b = KYU_NULL_BODY;
    kyu_status st = kyu_body_create(w, &bd, &b);
    bd.position = v3(2 * r, r, 0), bd.velocity = v3(0, 0, 0);
    if (st == KYU_OK) st = kyu_body_create(w, &bd, NULL);
    const char *why = NULL;
    char invalid[200];
    float inertia = 0.0f;
    double want = (double)s * 0.4 * (double)m * (double)r * (double)r;
    if (st != KYU_OK) {
        const char *e = kyu_world_last_error(w);
        if (st != KYU_ERR_INVALID_ARGUMENT || !strstr(e, "radius") || !strstr(e, "mass") ||
            !strstr(e, "inertia_scale"))
            why = "refused without naming radius, mass and inertia_scale";
    } else if (kyu_body_get_inertia(w, b, &inertia) != KYU_OK ||
               !(fabs((double)inertia / want - 1.0) < 1e-5)) {
        why = "its moment of inertia is not inertia_scale 2/5 m r^2";
    } else if (kyu_body_set_angular_velocity(w, b, v3(0, 0, 0.5f * fastest)) != KYU_OK) {
        why = "its angular velocity cannot be set";
    } else {
        for (int i = 0; i < 5 && !why; i++)
            if (kyu_world_step(w) != KYU_OK) why = "a step failed";
        if (!why && kyu_world_validate(w, invalid, sizeof invalid)) why = invalid;
        size_t n = 0;
        kyu_world_save_memory(w, NULL, 0, &n);
        void *buf = malloc(n);
        if (!why && kyu_world_save_memory(w, buf, n, &n) != KYU_OK) why = "it does not save";
        if (!why && kyu_world_load_memory(w2, buf, n) != KYU_OK) why = kyu_world_last_error(w2);
        free(buf);
    }
    if (why) {
        char msg[400];
        snprintf(msg, sizeof msg, "radius %g, mass %g, inertia_scale %g: %s (inertia %g, asked %g)",
                 (double)r, (double)m, (double)s, why, (double)inertia, want);
        test_fail(__FILE__, __LINE__, msg);
    }
    kyu_world_destroy(w2);
    kyu_world_destroy(w);
    return why ? -1 : st == KYU_OK;
}

// The corners of the documented ranges (radius (0, 1e6], mass [1e-20, 1e20], inertia_scale
// (0, 1e6]) and points between: a def whose moment of inertia underflows (the radius
// 1e-5, mass 1e-20, inertia_scale 1e-9 made a body kyu took for one of fixed rotation while it
// spun, and its world's snapshot was refused), whose inverse overflows, or whose product passes
// through float's subnormal numbers and loses its digits, is refused; every other body turns,
// steps and loads.
static void test_every_accepted_mass_radius_and_inertia_scale_turns_and_loads(void) {
    const float radii[] = {FLT_TRUE_MIN, 1e-30f, 1e-10f, 1e-5f, 1.0f, 1e6f};
    const float masses[] = {1e-20f, 1.0f, 1e20f};
    const float scales[] = {FLT_TRUE_MIN, 1e-30f, 1e-20f, 1e-9f, 1.0f, 1e6f};
    int made = 0, refused = 0;
    for (size_t i = 0; i < sizeof radii / sizeof radii[0]; i++)
        for (size_t j = 0; j < sizeof masses / sizeof masses[0]; j++)
            for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
                int got = turns_and_loads_or_is_refused(radii[i], masses[j], scales[k]);
                if (got < 0) return;
                made += got, refused += !got;
            }
    ENSURE(turns_and_loads_or_is_refused(1e-5f, 1e-20f, 1e-9f) == 0); // the body
    ENSURE(turns_and_loads_or_is_refused(1e6f, 1e-20f, 1e-20f) == 0); // 2/5 s m = 4e-41, subnormal
    ENSURE(turns_and_loads_or_is_refused(1e6f, 1e20f, 1e6f) == 0);    // I |w| = 4e37 x 1e3 overflows
    ENSURE(turns_and_loads_or_is_refused(1e6f, 1e20f, 1.0f) == 1);    // the largest, heaviest ball
    ENSURE(turns_and_loads_or_is_refused(1e-5f, 1e-20f, 1.0f) == 1);  // a light speck that turns
    printf("    %d made, %d refused\n", made, refused);
    ENSURE(made > 30 && refused > 30); // both sides of the line were crossed
}

// A turn by any angle is a unit rotation: against sin and cos in long double up to 100 radians,
// and finite and of unit length beyond, up to the float range (a body of next to no inertia that a
// contact's warm start spins up, as a snapshot can hold, turns by 1e20 radians in a step: its
// rotation became NaN when the squarings' rounding was left to grow).
static void test_a_turn_by_any_angle_is_a_unit_rotation(void) {
    uint32_t seed = 77;
    for (int c = 0; c < 4000; c++) {
        vec3s axis;
        for (int k = 0; k < 3; k++) {
            seed = seed * 1664525u + 1013904223u;
            axis.raw[k] = (float)((seed >> 8) * (1.0 / 16777216.0) - 0.5);
        }
        axis = glms_vec3_normalize(axis);
        seed = seed * 1664525u + 1013904223u;
        double angle = pow(10.0, -6.0 + 44.0 * ((seed >> 8) * (1.0 / 16777216.0)));
        if (c == 0) angle = 3.0e38; // the float range
        vec3s w = glms_vec3_scale(axis, (float)angle);
        versors q = kyu_quat_turn((versors){{0.0f, 0.0f, 0.0f, 1.0f}}, w, 1.0f);
        double n2 = 0.0;
        for (int k = 0; k < 4; k++) n2 += (double)q.raw[k] * (double)q.raw[k];
        ENSURE(fabs(n2 - 1.0) < 1e-6);
        if (angle > 100.0) continue;
        long double h =
            0.5L * sqrtl((long double)w.x * w.x + (long double)w.y * w.y + (long double)w.z * w.z);
        long double sh = sinl(h) / (2.0L * h);
        for (int k = 0; k < 3; k++) ENSURE(fabsl((long double)q.raw[k] - sh * w.raw[k]) < 1e-6L);
        ENSURE(fabsl((long double)q.w - cosl(h)) < 1e-6L);
    }
}

// A snapshot may hold a body whose inverse inertia is one kyu_body_create gives (1e30: a speck
// with a small inertia_scale) beside contacts whose impulses were solved for another (a hostile
// test wrote it so, the checksum mended): it loads, and the warm start spins the body at 1e20
// rad/s. The world steps on, every body finite, every rotation a unit one (the rotation was NaN
// after the first step).
static void test_a_body_spun_beyond_any_accepted_spin_stays_finite(void) {
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    // The hostile test's scene: a floor, a box, a capsule, a hull, a mesh, a kinematic box turning,
    // and 24 balls of three masses and five sizes (a sensor, one of fixed rotation) in a heap.
    kyu_collider_def c[6];
    for (int k = 0; k < 6; k++) c[k] = kyu_collider_def_default();
    c[1].type = KYU_SHAPE_BOX, c[1].position = v3(1.5f, 0.3f, 0), c[1].half_extents = v3(0.3f, 0.3f, 0.3f);
    c[2].type = KYU_SHAPE_CAPSULE, c[2].capsule_a = v3(-1, 0.2f, -1), c[2].capsule_b = v3(1, 0.2f, -1);
    c[2].radius = 0.2f;
    vec3s pts[8];
    for (int i = 0; i < 8; i++) pts[i] = v3(i & 1 ? 0.3f : -0.3f, i & 2 ? 0.3f : -0.3f, i & 4 ? 0.3f : -0.3f);
    c[3].type = KYU_SHAPE_HULL, c[3].points = pts, c[3].point_count = 8, c[3].position = v3(-1.5f, 0.3f, 1);
    vec3s mv[4] = {v3(-2, 0.05f, -2), v3(2, 0.05f, -2), v3(2, 0.05f, 2), v3(-2, 0.05f, 2)};
    int32_t mi[6] = {0, 1, 2, 0, 2, 3};
    c[4].type = KYU_SHAPE_MESH, c[4].points = mv, c[4].point_count = 4, c[4].indices = mi;
    c[4].triangle_count = 2, c[4].position = v3(0, 0, 5);
    c[5].type = KYU_SHAPE_BOX, c[5].motion = KYU_KINEMATIC, c[5].position = v3(0, 3, 3);
    c[5].velocity = v3(0.1f, 0, 0), c[5].angular_velocity = v3(0, 0.5f, 0);
    for (int k = 0; k < 6; k++) ENSURE(kyu_collider_create(w, &c[k], NULL) == KYU_OK);
    for (int i = 0; i < 24; i++) {
        kyu_body_def bd = kyu_body_def_default();
        bd.radius = 0.2f + 0.02f * (float)(i % 5), bd.mass = (float)(1 + i % 3), bd.restitution = 0.3f;
        bd.position = v3(-1.2f + 0.45f * (float)(i % 6), 0.5f + 0.5f * (float)(i / 6), 0.1f * (float)(i % 3));
        bd.velocity = v3(0.3f * (float)(i % 2), 0, 0);
        bd.is_sensor = i == 7, bd.fixed_rotation = i == 8, bd.group = i == 9 ? -1 : 0;
        ENSURE(kyu_body_create(w, &bd, NULL) == KYU_OK);
    }
    for (int i = 0; i < 90; i++) ENSURE(kyu_world_step(w) == KYU_OK);
    size_t n = 0;
    ENSURE(kyu_world_save_memory(w, NULL, 0, &n) == KYU_OK);
    uint8_t *buf = malloc(n);
    ENSURE(buf != NULL);
    ENSURE(kyu_world_save_memory(w, buf, n, &n) == KYU_OK);
    float ii = w->bodies.inv_inertia[1], huge = 1e30f; // body 1: radius 0.22 m, 2 kg
    size_t at = 32;
    while (at + 4 <= n && memcmp(buf + at, &ii, 4) != 0) at++; // the first: body 1's
    ENSURE(at + 4 <= n);
    memcpy(buf + at, &huge, 4);
    reseal(buf, n);
    ENSURE(kyu_world_load_memory(w, buf, n) == KYU_OK);
    free(buf);
    ENSURE(w->bodies.inv_inertia[1] == huge);
    char msg[256];
    float fastest = 0.0f;
    for (int i = 0; i < 12; i++) {
        ENSURE(kyu_world_step(w) == KYU_OK);
        ENSURE(kyu_world_validate(w, msg, sizeof msg) == 0);
        fastest = fmaxf(fastest, glms_vec3_norm(w->bodies.ang[1]));
    }
    ENSURE(fastest > 1e12f); // it was spun beyond any spin kyu accepts
    kyu_world_destroy(w);
}

void suite_robustness(void) {
    RUN_TEST(test_a_turn_by_any_angle_is_a_unit_rotation);
    RUN_TEST(test_a_body_spun_beyond_any_accepted_spin_stays_finite);
    RUN_TEST(test_random_api_sequences_keep_every_invariant);
    RUN_TEST(test_giving_back_idle_arrays_changes_no_result);
    RUN_TEST(test_a_pile_that_falls_asleep_gives_back_its_room);
    RUN_TEST(test_a_step_with_every_kind_of_pair_source_full);
    RUN_TEST(test_every_allocation_failure_leaves_the_world_as_promised);
    RUN_TEST(test_counting_allocator_gets_every_block_back_after_destroy);
    RUN_TEST(test_failing_allocator_makes_creation_fail_cleanly);
    RUN_TEST(test_allocator_is_refused_while_a_world_exists_or_incomplete);
    RUN_TEST(test_assert_handler_hears_a_broken_invariant);
#ifndef _WIN32
    RUN_TEST(test_default_assert_handler_aborts);
#endif
    RUN_TEST(test_corrupted_snapshots_are_refused_or_step_cleanly);
    RUN_TEST(test_old_snapshot_format_is_refused_by_name);
    RUN_TEST(test_update_with_huge_frame_and_tiny_step_never_freezes);
    RUN_TEST(test_world_settings_errors_name_the_field_and_value);
    RUN_TEST(test_bodies_piled_at_one_point_hit_the_pair_capacity);
    RUN_TEST(test_worker_threads_build_meshes_and_step_two_worlds_at_once);
    RUN_TEST(test_fastest_accepted_balls_never_pass_a_thin_wall);
    RUN_TEST(test_every_accepted_mass_radius_and_inertia_scale_turns_and_loads);
}
