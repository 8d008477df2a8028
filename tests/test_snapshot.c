// SPDX-License-Identifier: MIT
// Snapshots: a run saved and resumed is bit-identical to one never stopped; a truncated, corrupt or
// forged snapshot is refused whole and leaves the loading world as it was.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <io.h> // _mktemp_s
#endif

#include "test.h"

// A scene with every kind of state: piles that fall asleep, a kinematic paddle, every collider
// shape, removed bodies and colliders (free slots, pending end events), and a few balls in flight.
// With rolling resistance the balls stop rolling: some fall asleep early and are woken again.
static kyu_world *build_scene_rolling(int workers, float rolling) {
    kyu_world_def wd = kyu_world_def_default();
    wd.worker_count = workers;
    wd.sleep_time = 0.3f;
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return NULL;
    kyu_collider_def ground = kyu_collider_def_default();
    kyu_collider_create(w, &ground, NULL);
    add_box(w, v3(-6, 0, -6), v3(-5, 3, 6), 0.3f, 0.5f, KYU_STATIC, v3(0, 0, 0));
    add_box(w, v3(5, 0, -6), v3(6, 3, 6), 0.3f, 0.5f, KYU_STATIC, v3(0, 0, 0));
    add_box(w, v3(-1, 0.2f, 3), v3(1, 0.4f, 4), 0.3f, 0.5f, KYU_KINEMATIC, v3(0.5f, 0, 0));
    kyu_collider_def cap = kyu_collider_def_default();
    cap.type = KYU_SHAPE_CAPSULE;
    cap.capsule_a = v3(-2, 0.3f, -3), cap.capsule_b = v3(2, 0.3f, -3), cap.radius = 0.3f;
    kyu_collider_create(w, &cap, NULL);
    vec3s hull_pts[5] = {v3(3, 0, 0), v3(4, 0, 0), v3(3.5f, 0, 1), v3(3.5f, 1, 0.5f), v3(3.5f, 0.1f, 0.4f)};
    kyu_collider_def hull = kyu_collider_def_default();
    hull.type = KYU_SHAPE_HULL, hull.points = hull_pts, hull.point_count = 5;
    kyu_collider_create(w, &hull, NULL);
    vec3s mesh_pts[4] = {v3(-4, 0.05f, -5), v3(-2, 0.05f, -5), v3(-2, 0.5f, -3), v3(-4, 0.5f, -3)};
    int32_t tris[6] = {0, 1, 2, 0, 2, 3};
    kyu_collider_def mesh = kyu_collider_def_default();
    mesh.type = KYU_SHAPE_MESH, mesh.points = mesh_pts, mesh.point_count = 4;
    mesh.indices = tris, mesh.triangle_count = 2;
    kyu_collider_create(w, &mesh, NULL);
    kyu_collider_id doomed = add_box(w, v3(-1, 5, -1), v3(1, 5.2f, 1), 0, 0.5f, KYU_STATIC, v3(0, 0, 0));
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 0.2f;
    bd.restitution = 0.3f;
    bd.angular_damping = 2.0f; // balls on the open ground stop rolling: some islands sleep by step 300
    bd.rolling_resistance = rolling;
    kyu_body_id ids[400];
    for (int i = 0; i < 400; i++) {
        bd.position = v3(-4.0f + (float)(i % 20) * 0.42f, 0.25f + (float)(i / 80) * 0.42f,
                         -2.0f + (float)(i / 20 % 4) * 0.42f + (float)(i % 3) * 0.01f);
        bd.velocity = i % 50 == 0 ? v3(3, 6, -1) : v3(0, 0, 0);
        kyu_body_create(w, &bd, &ids[i]);
    }
    bd.position = v3(4, 3, -5.5f); // bounces for ever: part of the world stays awake
    bd.velocity = v3(0, 0, 0);
    bd.restitution = 1.0f;
    bd.allow_sleep = false;
    kyu_body_create(w, &bd, NULL);
    for (int s = 0; s < 30; s++) kyu_world_step(w);
    for (int i = 0; i < 400; i += 37) kyu_body_destroy(w, ids[i]);
    kyu_collider_destroy(w, doomed);
    return w;
}

static kyu_world *build_scene(int workers) { return build_scene_rolling(workers, 0.0f); }

// A ball fired into the sleeping piles: their islands, contacts and sleep grid must come back.
static void fire(kyu_world *w) {
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 0.25f;
    bd.position = v3(-4.5f, 1.5f, 4.0f);
    bd.velocity = v3(4.0f, -1.0f, -9.0f);
    kyu_body_create(w, &bd, NULL);
}

static void step_n(kyu_world *w, int n) {
    for (int i = 0; i < n; i++) kyu_world_step(w);
}

static void *save(kyu_world *w, size_t *size) {
    if (kyu_world_save_memory(w, NULL, 0, size) != KYU_OK) return NULL;
    void *buf = malloc(*size);
    if (buf && kyu_world_save_memory(w, buf, *size, size) != KYU_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

static uint64_t fnv(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static kyu_body_id ball_of(kyu_world *w, float r, float m, vec3s p, vec3s v, vec3s spin) {
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = r, bd.mass = m, bd.position = p, bd.velocity = v, bd.angular_velocity = spin;
    kyu_body_id id = KYU_NULL_BODY;
    kyu_body_create(w, &bd, &id);
    return id;
}

static void test_snapshot_resumed_at_300_matches_600_uninterrupted(void) {
    kyu_world *a = build_scene(1);
    ENSURE(a != NULL);
    step_n(a, 270);                               // 300 steps in all
    ENSURE(kyu_world_sleeping_body_count(a) > 0); // islands, sleep grid and woken lists are in play
    ENSURE(kyu_world_sleeping_body_count(a) < kyu_world_body_count(a));
    size_t n = 0;
    void *snap = save(a, &n);
    ENSURE(snap != NULL);
    int asleep = kyu_world_sleeping_body_count(a);
    fire(a);
    step_n(a, 300);
    uint64_t want = kyu_world_state_hash(a);
    ENSURE(kyu_world_stats(a).islands_woken > 0 || kyu_world_sleeping_body_count(a) != asleep);

    kyu_world_def wd = kyu_world_def_default();
    wd.worker_count = 2; // threading is the loader's, and results are bit-identical for any count
    kyu_world *b = NULL;
    ENSURE(kyu_world_create(&wd, &b) == KYU_OK);
    kyu_status st = kyu_world_load_memory(b, snap, n);
    free(snap);
    if (st != KYU_OK) printf("    load: %s\n", kyu_world_last_error(b));
    ENSURE(st == KYU_OK);
    ENSURE(kyu_world_body_count(b) == kyu_world_body_count(a) - 1);
    fire(b);
    step_n(b, 300);
    ENSURE(kyu_world_state_hash(b) == want);
    ENSURE(kyu_world_sleeping_body_count(b) == kyu_world_sleeping_body_count(a));
    kyu_world_destroy(a);
    kyu_world_destroy(b);
}

static void test_snapshot_through_a_file_rewinds_the_same_world(void) {
    kyu_world *w = build_scene(1);
    ENSURE(w != NULL);
    step_n(w, 100);
    kyu_body_id ids[401];
    int count = kyu_world_get_bodies(w, ids, 401);
    ENSURE(count > 300 && count < 401);
#ifdef _WIN32 // no mkstemp: a fresh name in the current directory
    char path[] = "kyu-snap-XXXXXX";
    ENSURE(_mktemp_s(path, sizeof path) == 0);
#else
    char path[] = "/tmp/kyu-snap-XXXXXX";
    int fd = mkstemp(path);
    ENSURE(fd >= 0);
#endif
    ENSURE(kyu_world_save(w, path) == KYU_OK);
    uint64_t at_save = kyu_world_state_hash(w);
    step_n(w, 200);
    uint64_t later = kyu_world_state_hash(w);
    ENSURE(later != at_save);
    ENSURE(kyu_world_load(w, path) == KYU_OK); // rewind
    remove(path);
    ENSURE(kyu_world_state_hash(w) == at_save);
    for (int i = 0; i < count; i++) ENSURE(kyu_body_is_valid(w, ids[i])); // handles stay good
    step_n(w, 200);
    ENSURE(kyu_world_state_hash(w) == later);
    kyu_world_destroy(w);
}

static void test_snapshot_saves_the_same_bytes_twice(void) {
    kyu_world *w = build_scene(1);
    ENSURE(w != NULL);
    step_n(w, 50);
    size_t n1 = 0, n2 = 0;
    uint8_t *s1 = save(w, &n1), *s2 = save(w, &n2);
    int same = s1 && s2 && n1 == n2 && memcmp(s1, s2, n1) == 0;
    // and a loaded world saves to the very bytes it was loaded from
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *b = NULL;
    kyu_world_create(&wd, &b);
    int loaded = s1 && kyu_world_load_memory(b, s1, n1) == KYU_OK;
    size_t n3 = 0;
    uint8_t *s3 = loaded ? save(b, &n3) : NULL;
    int again = s3 && n3 == n1 && memcmp(s1, s3, n1) == 0;
    free(s1), free(s2), free(s3);
    kyu_world_destroy(w);
    kyu_world_destroy(b);
    ENSURE(same);
    ENSURE(loaded);
    ENSURE(again);
}

// Saves w, loads the bytes into a new world and saves that again: the loaded world, or NULL (and a
// failure recorded) when it does not load or does not save back to the very same bytes.
static kyu_world *round_trip(kyu_world *w, const char *what, int step) {
    size_t n1 = 0, n2 = 0;
    uint8_t *s1 = save(w, &n1);
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *copy = NULL;
    kyu_world_create(&wd, &copy);
    int loaded = s1 && copy && kyu_world_load_memory(copy, s1, n1) == KYU_OK;
    uint8_t *s2 = loaded ? save(copy, &n2) : NULL;
    int same = s2 && n2 == n1 && memcmp(s1, s2, n1) == 0;
    free(s1), free(s2);
    if (!same) {
        char msg[300];
        snprintf(msg, sizeof msg, "%s, step %d: %s", what, step,
                 loaded ? "the loaded world saves other bytes" : kyu_world_last_error(copy));
        test_fail(__FILE__, __LINE__, msg);
        kyu_world_destroy(copy);
        return NULL;
    }
    return copy;
}

// Steps w and its loaded copy n times: the same state (*asleep: how many bodies sleep). Then gravity changes
// in both, which wakes every island (their contacts wait, island by island, in the woken list): both save the
// same bytes, and w saves, loads and saves back to them. Destroys copy.
static int steps_on_alike(kyu_world *w, kyu_world *copy, int n, int *asleep) {
    step_n(w, n);
    step_n(copy, n);
    *asleep = kyu_world_sleeping_body_count(w);
    int alike = kyu_world_state_hash(w) == kyu_world_state_hash(copy) &&
                kyu_world_sleeping_body_count(w) == kyu_world_sleeping_body_count(copy);
    vec3s g = kyu_world_get_def(w).gravity;
    g.y *= 0.5f;
    alike &= kyu_world_set_gravity(w, g) == KYU_OK && kyu_world_set_gravity(copy, g) == KYU_OK;
    size_t n1 = 0, n2 = 0;
    uint8_t *s1 = save(w, &n1), *s2 = save(copy, &n2);
    alike &= s1 && s2 && n1 == n2 && memcmp(s1, s2, n1) == 0;
    free(s1), free(s2);
    kyu_world_destroy(copy);
    copy = round_trip(w, "woken", n);
    kyu_world_destroy(copy);
    return alike && copy != NULL;
}

// steps_on_alike from w's state, then w rewound to it (loaded from a snapshot taken first): both
// must hold. Destroys copy.
static int steps_on_alike_and_back(kyu_world *w, kyu_world *copy, int n) {
    size_t size = 0;
    void *snap = save(w, &size);
    int later = 0, alike = snap && steps_on_alike(w, copy, n, &later);
    int back = snap && kyu_world_load_memory(w, snap, size) == KYU_OK;
    free(snap);
    return alike && back;
}

// Rolling resistance stops the balls: one falls asleep within a few steps and is woken, so the
// world has a sleep grid (its cell set by the first island to sleep) and no island; later the piles
// sleep. At every step the world saves, loads and saves back to the same bytes; from a step with
// no island and from one with islands, the loaded world steps on 100 steps as the original does.
static void test_snapshot_with_rolling_resistance_saves_loads_and_steps_on_alike(void) {
    kyu_world *w = build_scene_rolling(1, 0.05f);
    ENSURE(w != NULL);
    int slept = 0, woken = 0, islands = 0, went_on = 0;
    for (int s = 1; s <= TEST_LENGTH(300, 150); s++) {
        ENSURE(kyu_world_step(w) == KYU_OK);
        int asleep = kyu_world_sleeping_body_count(w);
        slept |= asleep > 0;
        woken += slept && asleep == 0;
        islands += asleep > 0;
        kyu_world *copy = round_trip(w, "rolling resistance", s);
        ENSURE(copy != NULL);
        if ((asleep == 0 && woken == 1) || (asleep > 0 && islands == 100)) { // rewound after
            ENSURE(steps_on_alike_and_back(w, copy, 100));
            went_on++;
        } else {
            kyu_world_destroy(copy);
        }
    }
    kyu_world_destroy(w);
    ENSURE(woken > 0);
    ENSURE(went_on == (islands >= 100 ? 2 : 1));
}

// The first island to sleep into an empty sleep grid sizes its cells from the awake bodies' mean
// radius. A big ball sleeping among small ones is too big for those cells: it is listed apart (a
// giant). When everything wakes, the grid holds no sleeper and the next island sizes it again, in
// the original world (which still lists the woken giant) as in one loaded from a snapshot then.
static void test_snapshot_of_a_woken_sleep_grid_steps_on_alike(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.sleep_time = 0.2f;
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    kyu_collider_def ground = kyu_collider_def_default();
    ENSURE(kyu_collider_create(w, &ground, NULL) == KYU_OK);
    ball_of(w, 4.0f, 1.0f, v3(0, 4.0f, 0), v3(0, 0, 0), v3(0, 0, 0));
    for (int i = 0; i < 100; i++)
        ball_of(w, 0.05f, 1.0f, v3(6.0f + 0.2f * (float)(i % 10), 0.05f, 0.2f * (float)(i / 10)), v3(0, 0, 0),
                v3(0, 0, 0));
    for (int s = 0; s < 200 && kyu_world_sleeping_body_count(w) < 101; s++)
        ENSURE(kyu_world_step(w) == KYU_OK);
    ENSURE(kyu_world_sleeping_body_count(w) == 101);
    ENSURE(kyu_world_set_gravity(w, v3(0, -9.8f, 0)) == KYU_OK); // wakes every island
    ENSURE(kyu_world_sleeping_body_count(w) == 0);
    ball_of(w, 1.0f, 1.0f, v3(-8.0f, 1.0f, 0), v3(0, 0, 0), v3(0, 0, 0)); // another mean radius
    kyu_world *copy = round_trip(w, "woken sleep grid", 0);
    ENSURE(copy != NULL);
    int asleep = 0, alike = steps_on_alike(w, copy, 120, &asleep);
    kyu_world_destroy(w);
    ENSURE(asleep == 102); // asleep again: the grid was sized again
    ENSURE(alike);
}

// How many contacts of the contact network beyond one a body has with one collider: a mesh's
// planes (a bead in a corner of a box made of one mesh touches two or three).
static int extra_planes(kyu_world *w) {
    enum { CAP = 4096 };
    static kyu_body_id body[CAP];
    static kyu_collider_id col[CAP];
    kyu_contact_arrays out = {.body = body, .collider = col};
    int n = kyu_world_get_contact_network(w, &out, CAP), extra = 0;
    for (int i = 1; i < n && i < CAP; i++)
        extra += col[i].index1 != 0 && kyu_collider_id_equal(col[i], col[i - 1]) &&
                 kyu_body_id_equal(body[i], body[i - 1]);
    return extra;
}

// Beads in the corners of a box made of one mesh have a contact for each of its planes they touch:
// the world saves, loads and saves back to the same bytes at every step, and steps on alike from a
// step while they land and from one where they sleep (their contacts in the islands' lists).
static void test_snapshot_of_beads_in_a_mesh_box_steps_on_alike(void) {
    const float r = 0.01f, h = 0.06f, H = 0.2f;
    kyu_world_def wd = kyu_world_def_default();
    wd.sleep_time = 0.3f;
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    ENSURE(!kyu_collider_id_equal(open_mesh_box(w, 2 * h, H, 0.0f), KYU_NULL_COLLIDER));
    for (int i = 0; i < 144; i++) // six layers of 6 x 6, the outer ones against the walls
        ball_of(w, r, 0.01f,
                v3(-h + r + 0.0199f * (float)(i % 6),
                   r + 0.021f * (float)(i / 36 + 1) + 0.0005f * (float)(i % 5),
                   -h + r + 0.0199f * (float)(i / 6 % 6)),
                v3(0, 0, 0), v3(0, 0, 0));
    int planes = 0, alike_landing = 0, alike_asleep = 0;
    for (int s = 1; s <= 300 && !alike_asleep; s++) {
        ENSURE(kyu_world_step(w) == KYU_OK);
        planes = planes > extra_planes(w) ? planes : extra_planes(w);
        kyu_world *copy = round_trip(w, "mesh box", s);
        ENSURE(copy != NULL);
        int asleep = kyu_world_sleeping_body_count(w) == 144;
        if (s == 8 || asleep) {
            ENSURE(steps_on_alike_and_back(w, copy, 60));
            if (asleep)
                alike_asleep = 1;
            else
                alike_landing = 1;
        } else {
            kyu_world_destroy(copy);
        }
    }
    kyu_world_destroy(w);
    printf(
        "    a bead's contacts with the mesh beyond its first: up to %d in a step (landing %d, asleep %d)\n",
        planes, alike_landing, alike_asleep);
    ENSURE(planes >= 8); // the corner columns at least
    ENSURE(alike_landing && alike_asleep);
}

// The world that refuses a snapshot is left exactly as it was.
typedef struct world_mark {
    uint64_t hash;
    int bodies, sleeping;
} world_mark;

static world_mark mark(kyu_world *w) {
    return (world_mark){kyu_world_state_hash(w), kyu_world_body_count(w), kyu_world_sleeping_body_count(w)};
}

static int unchanged(kyu_world *w, world_mark m) {
    world_mark now = mark(w);
    return now.hash == m.hash && now.bodies == m.bodies && now.sleeping == m.sleeping;
}

static void test_snapshot_truncated_or_corrupt_is_refused_whole(void) {
    kyu_world *src = build_scene(1);
    ENSURE(src != NULL);
    step_n(src, 120);
    size_t n = 0;
    uint8_t *snap = save(src, &n);
    ENSURE(snap != NULL);
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    kyu_body_def bd = kyu_body_def_default();
    kyu_body_create(w, &bd, NULL);
    world_mark before = mark(w);
    int refused = 0, tries = 0;
    for (size_t len = 0; len < n; len += 1 + len / 7, tries++) // every prefix length class
        refused += kyu_world_load_memory(w, snap, len) == KYU_ERR_BAD_SNAPSHOT && unchanged(w, before);
    ENSURE(refused == tries);
    ENSURE(strstr(kyu_world_last_error(w), "truncated") || strstr(kyu_world_last_error(w), "header"));
    uint8_t *bad = malloc(n);
    ENSURE(bad != NULL);
    uint32_t rng = 12345u;
    refused = 0;
    for (int t = 0; t < 300; t++) { // one flipped bit anywhere: the checksum or the header catches it
        memcpy(bad, snap, n);
        rng = rng * 1664525u + 1013904223u;
        size_t at = (size_t)(rng >> 8) % n;
        bad[at] ^= (uint8_t)(1u << (rng & 7u));
        refused += kyu_world_load_memory(w, bad, n) == KYU_ERR_BAD_SNAPSHOT && unchanged(w, before);
    }
    ENSURE(refused == 300);
    free(bad);
    free(snap);
    kyu_world_destroy(src);
    kyu_world_destroy(w);
}

// A forged snapshot (a changed byte with the checksum recomputed) must be refused or load into a
// world that steps without a crash: never half loaded. Run under ASan and UBSan in CI.
static void test_snapshot_forged_bytes_never_crash(void) {
    kyu_world *src = build_scene(1);
    ENSURE(src != NULL);
    step_n(src, 120);
    size_t n = 0;
    uint8_t *snap = save(src, &n);
    ENSURE(snap != NULL);
    uint8_t *bad = malloc(n);
    ENSURE(bad != NULL);
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    world_mark before = mark(w);
    uint32_t rng = 777u;
    int refused = 0, loaded = 0, kept = 1;
    for (int t = 0; t < 400; t++) {
        memcpy(bad, snap, n);
        rng = rng * 1664525u + 1013904223u;
        size_t at = 32 + (size_t)(rng >> 8) % (n - 32);
        bad[at] = (uint8_t)(rng >> 24) | 0x80u; // large values: counts, indices and floats go wild
        uint64_t sum = fnv(bad + 32, n - 32);
        memcpy(bad + 24, &sum, 8);
        kyu_status st = kyu_world_load_memory(w, bad, n);
        if (st == KYU_OK) {
            loaded++;
            step_n(w, 3);
            kyu_world_destroy(w);
            kyu_world_create(&wd, &w);
            before = mark(w);
        } else {
            refused++;
            kept &= st == KYU_ERR_BAD_SNAPSHOT && unchanged(w, before);
        }
    }
    free(bad);
    free(snap);
    kyu_world_destroy(src);
    kyu_world_destroy(w);
    ENSURE(kept);
    ENSURE(refused > 0);
    ENSURE(loaded + refused == 400);
}

static void test_snapshot_refuses_a_negative_radius_with_a_reason(void) {
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 0.375f; // a bit pattern to find in the file
    kyu_body_create(w, &bd, NULL);
    size_t n = 0;
    uint8_t *snap = save(w, &n);
    ENSURE(snap != NULL);
    float r = 0.375f, neg = -0.375f;
    size_t at = 32;
    while (at + 4 <= n && memcmp(snap + at, &r, 4) != 0) at++;
    ENSURE(at + 4 <= n);
    memcpy(snap + at, &neg, 4);
    uint64_t sum = fnv(snap + 32, n - 32);
    memcpy(snap + 24, &sum, 8);
    ENSURE(kyu_world_load_memory(w, snap, n) == KYU_ERR_BAD_SNAPSHOT);
    ENSURE(strstr(kyu_world_last_error(w), "radius") != NULL);
    free(snap);
    kyu_world_destroy(w);
}

static void test_snapshot_bad_arguments(void) {
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    size_t n = 0;
    uint8_t small[8];
    ENSURE(kyu_world_save(NULL, "/tmp/x") == KYU_ERR_NULL);
    ENSURE(kyu_world_save(w, NULL) == KYU_ERR_NULL);
    ENSURE(kyu_world_save_memory(w, NULL, 0, NULL) == KYU_ERR_NULL);
    ENSURE(kyu_world_save_memory(w, small, sizeof small, &n) == KYU_ERR_CAPACITY);
    ENSURE(n > sizeof small);
    ENSURE(kyu_world_load(w, "/nonexistent/kyu.snap") == KYU_ERR_IO);
    ENSURE(strstr(kyu_world_last_error(w), "/nonexistent/kyu.snap") != NULL);
    ENSURE(kyu_world_save(w, "/nonexistent/dir/kyu.snap") == KYU_ERR_IO);
    ENSURE(kyu_world_load(NULL, "/tmp/x") == KYU_ERR_NULL);
    ENSURE(kyu_world_load_memory(w, NULL, 10) == KYU_ERR_NULL);
    ENSURE(kyu_world_load_memory(w, "not a snapshot at all, clearly..", 32) == KYU_ERR_BAD_SNAPSHOT);
    kyu_body_id ids[2];
    ENSURE(kyu_world_get_bodies(NULL, ids, 2) == -1);
    ENSURE(kyu_world_get_bodies(w, ids, -1) == -1);
    ENSURE(kyu_world_get_bodies(w, NULL, 0) == 0);
    kyu_world_destroy(w);
}

// Steps w `steps` times, saving after each step and loading the snapshot into a second world, which
// must take it and then step to the same state as w. 0 and a failure recorded if one does not.
static int loads_after_every_step(kyu_world *w, int steps, const char *what) {
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *copy = NULL;
    kyu_world_create(&wd, &copy);
    int ok = copy != NULL;
    for (int i = 0; i < steps && ok; i++) {
        ok = kyu_world_step(w) == KYU_OK;
        size_t n;
        void *snap = ok ? save(w, &n) : NULL;
        ok = snap && kyu_world_load_memory(copy, snap, n) == KYU_OK;
        free(snap);
        char msg[400];
        snprintf(msg, sizeof msg, "%s, step %d: %s", what, i, kyu_world_last_error(ok ? w : copy));
        if (ok && kyu_world_step(copy) == KYU_OK && kyu_world_step(w) == KYU_OK)
            ok = kyu_world_state_hash(copy) == kyu_world_state_hash(w);
        if (!ok) test_fail(__FILE__, __LINE__, msg);
    }
    kyu_world_destroy(copy);
    return ok;
}

// A world kyu made loads at either end of the mass range. A light body under a far heavier one
// carries a normal impulse beyond its mass times any speed kyu accepts (a 1 kg ball resting on a
// speck of 1e-20 kg, a 1e12 kg ball on a 1 kg one: both rest, and the loader took their impulse
// for a forged one), and bodies of 1e-20 kg slide with friction impulses whose squares are below
// float's normal numbers (the step's friction cone is only that exact). Each saves and loads after
// every step, and the loaded world steps on as the original does.
static void test_worlds_at_the_ends_of_the_mass_range_load(void) {
    const float stacks[2][2] = {{1e-20f, 1.0f}, {1.0f, 1e12f}}; // below, above
    for (int k = 0; k < 2; k++) {
        kyu_world *w = NULL;
        kyu_world_def wd = kyu_world_def_default();
        ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
        kyu_collider_def ground = kyu_collider_def_default();
        ENSURE(kyu_collider_create(w, &ground, NULL) == KYU_OK);
        ball_of(w, 0.01f, stacks[k][0], v3(0, 0.01f, 0), v3(0, 0, 0), v3(0, 0, 0));
        kyu_body_id top = ball_of(w, 0.5f, stacks[k][1], v3(0, 0.52f, 0), v3(0, 0, 0), v3(0, 0, 0));
        ENSURE(kyu_world_body_count(w) == 2);
        int loaded = loads_after_every_step(w, 60, k ? "1e12 kg on 1 kg" : "1 kg on 1e-20 kg");
        float y = pos(w, top).y;
        kyu_world_destroy(w);
        ENSURE(!loaded || y > 0.5f); // it rests on what is below it
    }
    kyu_world *w = NULL;
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = v3(0, -1, 0); // jn = 1.7e-22 N s, the friction's squares near 1e-44
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    kyu_collider_def ground = kyu_collider_def_default();
    ENSURE(kyu_collider_create(w, &ground, NULL) == KYU_OK);
    for (int i = 0; i < 40; i++) // slipping for a while: backspin, and spin about the vertical
        ball_of(w, 0.1f, 1e-20f * (float)(1 + i % 3), v3(0.3f * (float)i, 0.1f, 0.5f * (float)(i % 2)),
                v3(1.0f, 0, 0.1f * (float)(i % 3)), v3(0, (float)(i % 7), 40.0f + (float)i));
    ENSURE(kyu_world_body_count(w) == 40);
    loads_after_every_step(w, 60, "bodies of 1e-20 kg sliding");
    kyu_world_destroy(w);
}

// A world full to max_bodies and max_colliders that removes one of each and makes another before
// the next step holds one slot more than its maximum (a removed slot is reused only after the next
// step has begun). Its snapshot loads, before the step and after it, saves back to the same bytes
// and steps on alike (it was refused: "count 4 ... over 3").
static void test_snapshot_of_a_full_world_with_slots_in_limbo_loads(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.max_bodies = 3, wd.max_colliders = 2;
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&wd, &w) == KYU_OK);
    kyu_collider_def cd = kyu_collider_def_default();
    kyu_collider_id c0, c1;
    ENSURE(kyu_collider_create(w, &cd, &c0) == KYU_OK);
    cd.type = KYU_SHAPE_BOX, cd.position = v3(4, 0.5f, 0), cd.half_extents = v3(0.5f, 0.5f, 0.5f);
    ENSURE(kyu_collider_create(w, &cd, &c1) == KYU_OK);
    kyu_body_id b[3];
    for (int i = 0; i < 3; i++)
        ENSURE((b[i] = ball_of(w, 0.5f, 1, v3(1.2f * (float)i, 2, 0), v3(0, 0, 0), v3(0, 0, 0))).index1);
    step_n(w, 10);
    ENSURE(kyu_body_destroy(w, b[1]) == KYU_OK);
    ENSURE(ball_of(w, 0.5f, 1, v3(1.2f, 3, 0), v3(0, 0, 0), v3(0, 0, 0)).index1 != 0);
    ENSURE(kyu_collider_destroy(w, c1) == KYU_OK);
    ENSURE(kyu_collider_create(w, &cd, &c1) == KYU_OK);
    for (int step = 0; step < 2; step++) {
        kyu_world *copy = round_trip(w, "full, a slot in limbo", step);
        ENSURE(copy != NULL);
        int asleep = 0;
        ENSURE(steps_on_alike(w, copy, 30, &asleep));
        step_n(w, 1);
    }
    kyu_world_destroy(w);
}

void suite_snapshot(void) {
    RUN_TEST(test_snapshot_of_a_full_world_with_slots_in_limbo_loads);
    RUN_TEST(test_snapshot_resumed_at_300_matches_600_uninterrupted);
    RUN_TEST(test_snapshot_through_a_file_rewinds_the_same_world);
    RUN_TEST(test_snapshot_saves_the_same_bytes_twice);
    RUN_TEST(test_snapshot_with_rolling_resistance_saves_loads_and_steps_on_alike);
    RUN_TEST(test_snapshot_of_a_woken_sleep_grid_steps_on_alike);
    RUN_TEST(test_snapshot_of_beads_in_a_mesh_box_steps_on_alike);
    RUN_TEST(test_snapshot_truncated_or_corrupt_is_refused_whole);
    RUN_TEST(test_snapshot_forged_bytes_never_crash);
    RUN_TEST(test_snapshot_refuses_a_negative_radius_with_a_reason);
    RUN_TEST(test_snapshot_bad_arguments);
    RUN_TEST(test_worlds_at_the_ends_of_the_mass_range_load);
}
