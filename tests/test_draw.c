// SPDX-License-Identifier: MIT
// Debug drawing: a recording set of callbacks checks what each layer draws against the world's own
// answers (positions, radii, contacts, impact events), and that drawing never changes the step.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kyu/kyu.h"
#include "test.h"

#define REC_MAX 4096

typedef struct rec_sphere {
    vec3s c;
    float r;
    kyu_color col;
} rec_sphere;

typedef struct rec_line {
    vec3s a, b;
    kyu_color col;
} rec_line;

typedef struct rec_text {
    vec3s p;
    char s[64];
} rec_text;

typedef struct recorder {
    rec_sphere spheres[REC_MAX];
    rec_line segments[REC_MAX], points[REC_MAX], capsules[REC_MAX];
    rec_line tris[REC_MAX][2]; // [0]: a, b; [1]: c
    kyu_box boxes[REC_MAX];
    rec_text texts[REC_MAX];
    int n_spheres, n_segments, n_points, n_capsules, n_tris, n_boxes, n_texts;
} recorder;

static recorder rec;

static void on_sphere(vec3s c, float r, kyu_color col, void *ctx) {
    recorder *R = ctx;
    if (R->n_spheres < REC_MAX) R->spheres[R->n_spheres++] = (rec_sphere){c, r, col};
}
static void on_segment(vec3s a, vec3s b, kyu_color col, void *ctx) {
    recorder *R = ctx;
    if (R->n_segments < REC_MAX) R->segments[R->n_segments++] = (rec_line){a, b, col};
}
static void on_point(vec3s p, float size, kyu_color col, void *ctx) {
    recorder *R = ctx;
    if (R->n_points < REC_MAX) R->points[R->n_points++] = (rec_line){p, v3(size, 0, 0), col};
}
static void on_box(const kyu_box *b, kyu_color col, void *ctx) {
    (void)col;
    recorder *R = ctx;
    if (R->n_boxes < REC_MAX) R->boxes[R->n_boxes++] = *b;
}
static void on_capsule(vec3s a, vec3s b, float r, kyu_color col, void *ctx) {
    recorder *R = ctx;
    if (R->n_capsules < REC_MAX) R->capsules[R->n_capsules++] = (rec_line){a, b, {r, col.g, col.b, col.a}};
}
static void on_triangle(vec3s a, vec3s b, vec3s c, kyu_color col, void *ctx) {
    recorder *R = ctx;
    if (R->n_tris >= REC_MAX) return;
    R->tris[R->n_tris][0] = (rec_line){a, b, col};
    R->tris[R->n_tris++][1] = (rec_line){c, c, col};
}
static void on_text(vec3s p, const char *s, kyu_color col, void *ctx) {
    (void)col;
    recorder *R = ctx;
    if (R->n_texts >= REC_MAX) return;
    R->texts[R->n_texts].p = p;
    snprintf(R->texts[R->n_texts++].s, sizeof R->texts[0].s, "%s", s);
}

// A draw with every callback recording into rec (emptied first), and the given layers.
static kyu_debug_draw recording(uint32_t flags) {
    memset(&rec, 0, sizeof rec);
    kyu_debug_draw d = kyu_debug_draw_default();
    d.draw_sphere = on_sphere;
    d.draw_segment = on_segment;
    d.draw_point = on_point;
    d.draw_box = on_box;
    d.draw_capsule = on_capsule;
    d.draw_triangle = on_triangle;
    d.draw_text = on_text;
    d.context = &rec;
    d.flags = flags;
    return d;
}

static kyu_world *world_with(vec3s gravity, bool sleep, bool impacts) {
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = gravity;
    wd.enable_sleep = sleep;
    wd.enable_impact_events = impacts;
    kyu_world *w = NULL;
    kyu_world_create(&wd, &w);
    return w;
}

static kyu_body_id ball(kyu_world *w, vec3s p, vec3s v, float r) {
    kyu_body_def bd = kyu_body_def_default();
    bd.position = p;
    bd.velocity = v;
    bd.radius = r;
    kyu_body_id id = KYU_NULL_BODY;
    kyu_body_create(w, &bd, &id);
    return id;
}

static void steps(kyu_world *w, int n) {
    for (int i = 0; i < n; i++) kyu_world_step(w);
}

static float luminance(kyu_color c) { return 0.2126f * c.r + 0.7152f * c.g + 0.0722f * c.b; }

static int same_color(kyu_color a, kyu_color b) {
    return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a;
}

static int near3(vec3s a, vec3s b, float tol) { return glms_vec3_distance(a, b) <= tol; }

// The recorded sphere centred at p (within tol), or -1.
static int sphere_at(vec3s p, float tol) {
    for (int i = 0; i < rec.n_spheres; i++)
        if (near3(rec.spheres[i].c, p, tol)) return i;
    return -1;
}

// The colour of the sphere drawn at p, or an impossible one (-1) when there is none.
static kyu_color color_at(vec3s p) {
    int i = sphere_at(p, 1e-6f);
    return i >= 0 ? rec.spheres[i].col : (kyu_color){-1.0f, -1.0f, -1.0f, -1.0f};
}

// ---- shapes, sleep, islands ---------------------------------------------------------------------

static void test_draw_one_sphere_per_body_at_its_centre_and_radius(void) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), true, false);
    for (int i = 0; i < 7; i++) ball(w, v3(3.0f * i, 2.0f + i, 0), v3(1, 0, 0), 0.2f + 0.1f * i);
    steps(w, 5);
    kyu_debug_draw d = recording(KYU_DRAW_SHAPES);
    ENSURE(kyu_world_draw(w, &d) == KYU_OK);
    kyu_body_id ids[7];
    ENSURE(kyu_world_get_bodies(w, ids, 7) == 7);
    ENSURE(rec.n_spheres == 7);
    for (int i = 0; i < 7; i++) { // in slot order, the order of kyu_world_get_bodies
        float r = 0.0f;
        kyu_body_get_radius(w, ids[i], &r);
        ENSURE(near3(rec.spheres[i].c, pos(w, ids[i]), 0.0f));
        ENSURE(rec.spheres[i].r == r);
    }
    kyu_world_destroy(w);
}

static void test_draw_sleeping_bodies_are_darker_than_awake_ones(void) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), true, false);
    add_box(w, v3(-10, -1, -10), v3(10, 0, 10), 0, 0.5f, KYU_STATIC, v3(0, 0, 0));
    kyu_body_id rester = ball(w, v3(0, 0.5f, 0), v3(0, 0, 0), 0.5f);
    kyu_body_def bd = kyu_body_def_default();
    bd.position = v3(4, 0.5f, 0);
    bd.allow_sleep = false; // rests beside it, awake
    kyu_body_id awake = KYU_NULL_BODY;
    kyu_body_create(w, &bd, &awake);
    steps(w, 90);
    ENSURE(!kyu_body_is_awake(w, rester) && kyu_body_is_awake(w, awake));
    kyu_debug_draw d = recording(KYU_DRAW_SHAPES | KYU_DRAW_SLEEP);
    ENSURE(kyu_world_draw(w, &d) == KYU_OK);
    kyu_color sleeping = color_at(pos(w, rester)), bright = color_at(pos(w, awake));
    ENSURE(sleeping.r >= 0.0f && bright.r >= 0.0f);
    ENSURE(luminance(sleeping) < 0.5f * luminance(bright));
    d = recording(KYU_DRAW_SHAPES); // without the sleep layer the sleeper keeps its own bright colour
    ENSURE(kyu_world_draw(w, &d) == KYU_OK);
    ENSURE(luminance(color_at(pos(w, rester))) > 2.0f * luminance(sleeping));
    kyu_world_destroy(w);
}

// Two columns of three balls on a floor, 5 m apart, and a lone ball in the air.
static void two_stacks(kyu_world *w, kyu_body_id a[3], kyu_body_id b[3], kyu_body_id *lone) {
    add_box(w, v3(-10, -1, -10), v3(10, 0, 10), 0, 0.5f, KYU_STATIC, v3(0, 0, 0));
    for (int i = 0; i < 3; i++) a[i] = ball(w, v3(0, 0.5f + i, 0), v3(0, 0, 0), 0.5f);
    for (int i = 0; i < 3; i++) b[i] = ball(w, v3(5, 0.5f + i, 0), v3(0, 0, 0), 0.5f);
    *lone = ball(w, v3(-5, 8, 0), v3(0, 0, 0), 0.5f);
}

// Each stack one colour, the two stacks (and the lone ball) different ones: awake, then asleep.
static void test_draw_islands_colour_each_stack_as_one(void) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), true, false);
    kyu_body_id a[3], b[3], lone;
    two_stacks(w, a, b, &lone);
    kyu_color first[2] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    for (int phase = 0; phase < 2; phase++) {
        steps(w, phase == 0 ? 10 : 200);
        ENSURE(kyu_body_is_awake(w, a[0]) == (phase == 0));
        kyu_debug_draw d = recording(KYU_DRAW_SHAPES | KYU_DRAW_ISLANDS);
        ENSURE(kyu_world_draw(w, &d) == KYU_OK);
        ENSURE(rec.n_spheres == 7);
        kyu_color ca = color_at(pos(w, a[0])), cb = color_at(pos(w, b[0]));
        ENSURE(ca.r >= 0.0f && cb.r >= 0.0f);
        for (int i = 1; i < 3; i++) {
            ENSURE(same_color(color_at(pos(w, a[i])), ca));
            ENSURE(same_color(color_at(pos(w, b[i])), cb));
        }
        ENSURE(!same_color(ca, cb));
        ENSURE(!same_color(color_at(pos(w, lone)), ca) && !same_color(color_at(pos(w, lone)), cb));
        if (phase == 0)
            first[0] = ca, first[1] = cb;
        else
            ENSURE(same_color(ca, first[0]) && same_color(cb, first[1])); // falling asleep keeps it
    }
    kyu_world_destroy(w);
}

// ---- contacts, pairs, impacts -------------------------------------------------------------------

// Touching pairs, each counted once (at its lower slot, the event's `body`).
static int touching_pairs(kyu_world *w) {
    kyu_body_id ids[64];
    int n = kyu_world_get_bodies(w, ids, 64), pairs = 0;
    for (int i = 0; i < n; i++) {
        kyu_contact_event ev[16];
        int total = 0;
        kyu_body_get_contacts(w, ids[i], ev, 16, &total);
        for (int k = 0; k < total && k < 16; k++) pairs += ev[k].body.index1 == ids[i].index1;
    }
    return pairs;
}

// Depths from the geometry, for a column on the floor y = 0: ball-floor, then ball-ball upwards.
static void column_depths(kyu_world *w, const kyu_body_id *c, int n, float *out) {
    out[0] = 0.5f - pos(w, c[0]).y;
    for (int i = 1; i < n; i++) out[i] = 1.0f - glms_vec3_distance(pos(w, c[i]), pos(w, c[i - 1]));
}

static int by_value(const void *x, const void *y) {
    float a = *(const float *)x, b = *(const float *)y;
    return a < b ? -1 : a > b;
}

// One normal (of the body's radius, pointing up the column) and one depth per touching pair.
static void check_column_contacts(kyu_world *w, const kyu_body_id *c) {
    kyu_debug_draw d = recording(KYU_DRAW_CONTACTS | KYU_DRAW_TEXT);
    ENSURE(kyu_world_draw(w, &d) == KYU_OK);
    ENSURE(touching_pairs(w) == 3);
    ENSURE(rec.n_segments == 3 && rec.n_points == 3 && rec.n_texts == 3);
    float drawn[3], real[3];
    for (int i = 0; i < 3; i++) {
        vec3s n = glms_vec3_sub(rec.segments[i].b, rec.segments[i].a);
        ENSURE_NEAR(glms_vec3_norm(n), 0.5f, 1e-5f);
        ENSURE(fabsf(n.y) > 0.4999f); // up from the floor, down from a ball to the one below
        ENSURE(sscanf(rec.texts[i].s, "d=%fmm", &drawn[i]) == 1);
        drawn[i] *= 1e-3f;
    }
    column_depths(w, c, 3, real);
    qsort(drawn, 3, sizeof *drawn, by_value);
    qsort(real, 3, sizeof *real, by_value);
    for (int i = 0; i < 3; i++) ENSURE_NEAR(drawn[i], real[i], 6e-6f); // printed to 0.01 mm
}

static void test_draw_contacts_one_normal_and_depth_per_touching_pair(void) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), true, false);
    add_box(w, v3(-10, -1, -10), v3(10, 0, 10), 0, 0.5f, KYU_STATIC, v3(0, 0, 0));
    kyu_body_id c[3];
    for (int i = 0; i < 3; i++) c[i] = ball(w, v3(0, 0.5f + i, 0), v3(0, 0, 0), 0.5f);
    steps(w, 10);
    ENSURE(kyu_body_is_awake(w, c[0]));
    check_column_contacts(w, c);
    if (test_current_failed) return;
    steps(w, 200); // asleep: the contacts come from the island record
    ENSURE(!kyu_body_is_awake(w, c[0]));
    check_column_contacts(w, c);
    kyu_debug_draw d = recording(KYU_DRAW_CONTACTS); // numbers only with KYU_DRAW_TEXT
    ENSURE(kyu_world_draw(w, &d) == KYU_OK);
    ENSURE(rec.n_segments == 3 && rec.n_texts == 0);
    kyu_world_destroy(w);
}

// A ball meets the floor half way through step 2; the impact is drawn where and when it happened.
static void test_draw_impacts_show_point_and_time_of_impact(void) {
    kyu_world *w = world_with(v3(0, 0, 0), true, true);
    add_box(w, v3(-10, -1, -10), v3(10, 0, 10), 0, 0.5f, KYU_STATIC, v3(0, 0, 0));
    ball(w, v3(0, 0.5f + 0.25f, 0), v3(0, -10, 0), 0.5f);
    int count = 0;
    const kyu_impact_event *ev = NULL;
    for (int i = 0; i < 5 && count == 0; i++) {
        kyu_world_step(w);
        ev = kyu_world_impact_events(w, &count);
    }
    ENSURE(count == 1 && ev);
    ENSURE(ev->time > 0.2f && ev->time < 0.8f);
    kyu_debug_draw d = recording(KYU_DRAW_IMPACTS | KYU_DRAW_TEXT);
    ENSURE(kyu_world_draw(w, &d) == KYU_OK);
    ENSURE(rec.n_points == 1 && rec.n_segments == 1 && rec.n_texts == 1);
    ENSURE(near3(rec.points[0].a, ev->point, 0.0f));
    ENSURE_NEAR(rec.points[0].a.y, 0.0f, 1e-4f); // on the floor
    float t = -1.0f;
    ENSURE(sscanf(rec.texts[0].s, "t=%f", &t) == 1);
    ENSURE_NEAR(t, ev->time, 5e-5f);
    kyu_world_step(w); // the next step has no impact: nothing left to draw
    d = recording(KYU_DRAW_IMPACTS | KYU_DRAW_TEXT);
    ENSURE(kyu_world_draw(w, &d) == KYU_OK);
    ENSURE(rec.n_points == 0 && rec.n_texts == 0);
    kyu_world_destroy(w);
}

// Two balls meet and stay touching (restitution 0): the pair is new on the step it began, kept after.
static void test_draw_pairs_new_then_kept(void) {
    kyu_world *w = world_with(v3(0, 0, 0), false, false);
    kyu_body_id a = ball(w, v3(-0.6f, 0, 0), v3(1, 0, 0), 0.5f);
    kyu_body_id b = ball(w, v3(0.6f, 0, 0), v3(-1, 0, 0), 0.5f);
    int begun = 0;
    for (int i = 0; i < 30 && !begun; i++) {
        kyu_world_step(w);
        kyu_world_begin_events(w, &begun);
    }
    ENSURE(begun == 1);
    kyu_debug_draw d = recording(KYU_DRAW_PAIRS);
    ENSURE(kyu_world_draw(w, &d) == KYU_OK);
    ENSURE(rec.n_segments == 1);
    ENSURE(near3(rec.segments[0].a, pos(w, a), 0.0f) && near3(rec.segments[0].b, pos(w, b), 0.0f));
    kyu_color fresh = rec.segments[0].col;
    kyu_world_step(w);
    int again = -1;
    kyu_world_begin_events(w, &again);
    ENSURE(again == 0);
    d = recording(KYU_DRAW_PAIRS);
    ENSURE(kyu_world_draw(w, &d) == KYU_OK);
    ENSURE(rec.n_segments == 1 && !same_color(rec.segments[0].col, fresh));
    kyu_world_destroy(w);
}

// ---- colliders, bounds, sweeps, grid, velocities --------------------------------------------------

static void test_draw_colliders_plane_box_capsule_hull_mesh(void) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), true, false);
    kyu_collider_def plane = kyu_collider_def_default();
    kyu_collider_create(w, &plane, NULL);
    add_box(w, v3(1, 0, 1), v3(3, 2, 5), 0, 0.5f, KYU_STATIC, v3(0, 0, 0));
    kyu_collider_def cap = kyu_collider_def_default();
    cap.type = KYU_SHAPE_CAPSULE;
    cap.position = v3(0, 1, -3);
    cap.capsule_a = v3(-1, 0, 0);
    cap.capsule_b = v3(1, 0, 0);
    cap.radius = 0.25f;
    kyu_collider_create(w, &cap, NULL);
    vec3s cube[8];
    for (int i = 0; i < 8; i++)
        cube[i] = v3(i & 1 ? 1.0f : -1.0f, i & 2 ? 1.0f : -1.0f, i & 4 ? 1.0f : -1.0f);
    kyu_collider_def hull = kyu_collider_def_default();
    hull.type = KYU_SHAPE_HULL;
    hull.position = v3(-6, 1, 0);
    hull.points = cube;
    hull.point_count = 8;
    kyu_collider_create(w, &hull, NULL);
    vec3s quad[4] = {v3(0, 0, 0), v3(1, 0, 0), v3(1, 0, 1), v3(0, 0, 1)};
    int32_t tris[6] = {0, 2, 1, 0, 3, 2};
    kyu_collider_def mesh = kyu_collider_def_default();
    mesh.type = KYU_SHAPE_MESH;
    mesh.position = v3(10, 3, 10);
    mesh.points = quad;
    mesh.point_count = 4;
    mesh.indices = tris;
    mesh.triangle_count = 2;
    kyu_collider_create(w, &mesh, NULL);
    kyu_debug_draw d = recording(KYU_DRAW_SHAPES);
    d.plane_extent = 7.0f;
    ENSURE(kyu_world_draw(w, &d) == KYU_OK);
    ENSURE(rec.n_boxes == 1 && near3(rec.boxes[0].center, v3(2, 1, 3), 1e-6f));
    ENSURE(near3(rec.boxes[0].half_extents, v3(1, 1, 2), 1e-6f));
    ENSURE(rec.n_capsules == 1 && near3(rec.capsules[0].a, v3(-1, 1, -3), 1e-6f));
    ENSURE(near3(rec.capsules[0].b, v3(1, 1, -3), 1e-6f) && rec.capsules[0].col.r == 0.25f);
    ENSURE(rec.n_segments == 4); // the plane's border, 14 m a side
    ENSURE_NEAR(glms_vec3_distance(rec.segments[0].a, rec.segments[0].b), 14.0f, 1e-4f);
    // 2 plane + 24 hull (4 per cube face: the triangles of its 4 coplanar corners) + 2 mesh
    ENSURE(rec.n_tris == 2 + 24 + 2);
    for (int t = 2; t < 26; t++) { // hull faces look outwards
        vec3s a = rec.tris[t][0].a, b = rec.tris[t][0].b, c = rec.tris[t][1].a;
        vec3s n = glms_vec3_cross(glms_vec3_sub(b, a), glms_vec3_sub(c, a));
        vec3s mid = glms_vec3_scale(glms_vec3_add(glms_vec3_add(a, b), c), 1.0f / 3.0f);
        ENSURE(glms_vec3_dot(n, glms_vec3_sub(mid, v3(-6, 1, 0))) > 0.0f);
    }
    ENSURE(near3(rec.tris[26][0].a, v3(10, 3, 10), 1e-6f) && near3(rec.tris[26][1].a, v3(11, 3, 10), 1e-6f));
    kyu_world_destroy(w);
}

static void test_draw_aabbs_grid_cells_and_sweeps(void) {
    kyu_world *w = world_with(v3(0, 0, 0), false, false);
    for (int i = 0; i < 4; i++) ball(w, v3(10.0f * i, 0, 0), v3(0, 0, 0), 0.5f); // far apart, at rest
    kyu_body_id mover = ball(w, v3(0, 10, 0), v3(6, 0, 0), 0.25f);
    add_box(w, v3(-1, -5, -1), v3(1, -3, 1), 0, 0.5f, KYU_STATIC, v3(0, 0, 0));
    vec3s start = pos(w, mover);
    int ran = 0;
    kyu_world_update(w, 1.0f / 60.0f, &ran);
    ENSURE(ran == 1);
    kyu_debug_draw d = recording(KYU_DRAW_AABBS);
    ENSURE(kyu_world_draw(w, &d) == KYU_OK);
    ENSURE(rec.n_boxes == 6); // five bodies and the box collider
    ENSURE(near3(rec.boxes[4].center, pos(w, mover), 0.0f) &&
           near3(rec.boxes[4].half_extents, v3(0.25f, 0.25f, 0.25f), 0.0f));
    ENSURE(near3(rec.boxes[5].center, v3(0, -4, 0), 1e-6f) &&
           near3(rec.boxes[5].half_extents, v3(1, 1, 1), 1e-6f));
    d = recording(KYU_DRAW_GRID); // each small box in one cell, no two of them share one
    ENSURE(kyu_world_draw(w, &d) == KYU_OK);
    ENSURE(rec.n_boxes == 5);
    for (int i = 0; i < 5; i++)
        ENSURE(rec.boxes[i].half_extents.x > 0.25f && rec.boxes[i].half_extents.x < 5.0f);
    d = recording(KYU_DRAW_SWEPT); // only the mover moved: its capsule from where the step began
    ENSURE(kyu_world_draw(w, &d) == KYU_OK);
    ENSURE(rec.n_capsules == 1 && rec.n_boxes == 1);
    ENSURE(near3(rec.capsules[0].a, start, 0.0f) && near3(rec.capsules[0].b, pos(w, mover), 0.0f));
    ENSURE(rec.capsules[0].col.r == 0.25f);
    ENSURE_NEAR(rec.capsules[0].b.x - rec.capsules[0].a.x, 0.1f, 1e-5f);
    d = recording(KYU_DRAW_VELOCITIES); // an arrow of v * velocity_scale
    d.velocity_scale = 0.5f;
    ENSURE(kyu_world_draw(w, &d) == KYU_OK);
    ENSURE(rec.n_segments == 1 && near3(rec.segments[0].b, glms_vec3_add(pos(w, mover), v3(3, 0, 0)), 1e-5f));
    kyu_world_destroy(w);
}

// A packed cluster: many bodies share cells, and each cell in use is drawn once.
static void test_draw_grid_draws_each_cell_in_use_once(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = v3(0, 0, 0);
    wd.cell_size = 0.6f; // several bodies a cell
    kyu_world *w = NULL;
    kyu_world_create(&wd, &w);
    for (int i = 0; i < 64; i++)
        ball(w, v3(0.25f * (i % 4), 0.25f * (i / 4 % 4), 0.25f * (i / 16)), v3(0, 0, 0), 0.1f);
    kyu_world_step(w);
    kyu_debug_draw d = recording(KYU_DRAW_GRID);
    ENSURE(kyu_world_draw(w, &d) == KYU_OK);
    ENSURE(rec.n_boxes > 0 && rec.n_boxes < 64);
    ENSURE_NEAR(rec.boxes[0].half_extents.x, 0.3f, 1e-6f);
    for (int i = 0; i < rec.n_boxes; i++)
        for (int j = i + 1; j < rec.n_boxes; j++)
            ENSURE(!near3(rec.boxes[i].center, rec.boxes[j].center, 1e-6f));
    kyu_world_destroy(w);
}

// ---- the interface ------------------------------------------------------------------------------

static void test_draw_skips_null_callbacks(void) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), true, true);
    kyu_body_id a[3], b[3], lone;
    two_stacks(w, a, b, &lone);
    steps(w, 20);
    kyu_debug_draw d = kyu_debug_draw_default();
    d.flags = 0x7ff; // every layer, no callback
    ENSURE(kyu_world_draw(w, &d) == KYU_OK);
    kyu_debug_draw r = recording(0x7ff);
    r.draw_sphere = NULL;
    r.draw_box = NULL;
    r.draw_text = NULL;
    ENSURE(kyu_world_draw(w, &r) == KYU_OK);
    ENSURE(rec.n_spheres == 0 && rec.n_boxes == 0 && rec.n_texts == 0);
    ENSURE(rec.n_segments > 0 && rec.n_points > 0 && rec.n_capsules > 0);
    kyu_world_destroy(w);
}

static void test_draw_rejects_bad_arguments(void) {
    kyu_world *w = world_with(v3(0, -9.81f, 0), true, false);
    kyu_debug_draw d = kyu_debug_draw_default();
    ENSURE(kyu_world_draw(NULL, &d) == KYU_ERR_NULL);
    ENSURE(kyu_world_draw(w, NULL) == KYU_ERR_NULL);
    ENSURE(strstr(kyu_world_last_error(w), "draw is NULL") != NULL);
    kyu_debug_draw zero;
    memset(&zero, 0, sizeof zero);
    ENSURE(kyu_world_draw(w, &zero) == KYU_ERR_INVALID_DEF);
    d.flags = 1u << 20;
    ENSURE(kyu_world_draw(w, &d) == KYU_ERR_INVALID_ARGUMENT);
    d = kyu_debug_draw_default();
    d.plane_extent = NAN;
    ENSURE(kyu_world_draw(w, &d) == KYU_ERR_NOT_FINITE);
    d = kyu_debug_draw_default();
    d.point_size = -1.0f;
    ENSURE(kyu_world_draw(w, &d) == KYU_ERR_INVALID_ARGUMENT);
    d = kyu_debug_draw_default();
    ENSURE(d.flags == (KYU_DRAW_SHAPES | KYU_DRAW_SLEEP) && d.plane_extent == 10.0f);
    ENSURE(d.velocity_scale == 0.1f && d.point_size == 4.0f && !d.draw_sphere && !d.context);
    ENSURE(kyu_world_draw(w, &d) == KYU_OK);
    kyu_world_destroy(w);
}

// Drawing every layer between steps leaves the simulation bit-identical.
static void test_draw_does_not_change_the_step(void) {
    kyu_world *w[2];
    for (int k = 0; k < 2; k++) {
        w[k] = world_with(v3(0, -9.81f, 0), true, true);
        kyu_body_id a[3], b[3], lone;
        two_stacks(w[k], a, b, &lone);
        for (int i = 0; i < 20; i++)
            ball(w[k], v3(0.3f * (i % 5), 4.0f + i, 0.2f * (i % 3)), v3(0, 0, 0), 0.3f);
    }
    for (int s = 0; s < 240; s++) {
        kyu_debug_draw d = recording(0x7ff);
        ENSURE(kyu_world_draw(w[1], &d) == KYU_OK);
        kyu_world_step(w[0]);
        kyu_world_step(w[1]);
    }
    ENSURE(kyu_world_state_hash(w[0]) == kyu_world_state_hash(w[1]));
    ENSURE(kyu_world_sleeping_body_count(w[0]) == kyu_world_sleeping_body_count(w[1]));
    kyu_world_destroy(w[0]);
    kyu_world_destroy(w[1]);
}

void suite_draw(void) {
    RUN_TEST(test_draw_one_sphere_per_body_at_its_centre_and_radius);
    RUN_TEST(test_draw_sleeping_bodies_are_darker_than_awake_ones);
    RUN_TEST(test_draw_islands_colour_each_stack_as_one);
    RUN_TEST(test_draw_contacts_one_normal_and_depth_per_touching_pair);
    RUN_TEST(test_draw_impacts_show_point_and_time_of_impact);
    RUN_TEST(test_draw_pairs_new_then_kept);
    RUN_TEST(test_draw_colliders_plane_box_capsule_hull_mesh);
    RUN_TEST(test_draw_aabbs_grid_cells_and_sweeps);
    RUN_TEST(test_draw_grid_draws_each_cell_in_use_once);
    RUN_TEST(test_draw_skips_null_callbacks);
    RUN_TEST(test_draw_rejects_bad_arguments);
    RUN_TEST(test_draw_does_not_change_the_step);
}
