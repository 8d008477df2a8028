// SPDX-License-Identifier: MIT
// kyu-lesson's scenarios and the capture of one step (see lesson_capture.h). Everything shown on
// the page comes from the public API; the lesson's own arithmetic is kept apart (ls_toi,
// ls_reflect) so the page can set it beside the engine's numbers.
#include "lesson_capture.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct run_ctx {
    kyu_world *w;
    ls_capture *c;
    kyu_collider_id wall, ground;
    int target_other; // scenario 3: the dropped ball's index
    int draw_mode;
} run_ctx;

enum { DRAW_GRID, DRAW_AABBS, DRAW_SWEPT, DRAW_SEGS, DRAW_ISLANDS };

// One fixed step through kyu_world_update, which also keeps each body's previous position: the
// debug draw's swept layer shows the motion from there.
static int step_once(run_ctx *x) {
    int ran = 0;
    kyu_status st = kyu_world_update(x->w, x->c->def.fixed_dt, &ran);
    return st == KYU_OK && ran == 1 ? 0 : -1;
}

// ---- building the scenarios ----------------------------------------------------------------------

static int add_body(run_ctx *x, const char *name, vec3s p, vec3s v, float r, float m, float e, float mu) {
    ls_capture *c = x->c;
    if (c->nb == LS_MAX_BODIES) return -1;
    kyu_body_def bd = kyu_body_def_default();
    bd.position = p, bd.velocity = v, bd.radius = r, bd.mass = m, bd.restitution = e, bd.friction = mu;
    ls_body *b = &c->b[c->nb];
    memset(b, 0, sizeof *b);
    if (kyu_body_create(x->w, &bd, &b->id) != KYU_OK) {
        snprintf(c->error, sizeof c->error, "creating %s: %s", name, kyu_world_last_error(x->w));
        return -1;
    }
    snprintf(b->name, sizeof b->name, "%s", name);
    b->r = r, b->m = m, b->e = e, b->mu = mu, b->sleep_step = -1, b->island = -1;
    c->nb++;
    return 0;
}

static int make_world(run_ctx *x, vec3s gravity) {
    ls_capture *c = x->c;
    c->def = kyu_world_def_default();
    c->def.gravity = gravity;
    c->def.enable_impact_events = true;
    if (kyu_world_create(&c->def, &x->w) != KYU_OK) {
        snprintf(c->error, sizeof c->error, "kyu_world_create failed");
        return -1;
    }
    return 0;
}

// (1) Two spheres meeting off-centre in free space: the textbook case of the P, Q, R quadratic.
static int setup_two_spheres(run_ctx *x) {
    ls_capture *c = x->c;
    c->title = "Two spheres meeting";
    c->intro = "A (0.30 m, 1 kg) flies right at 24 m/s, B (0.40 m, 2 kg) flies left at 12 m/s, a little "
               "lower, so they meet off-centre. No gravity, restitution 0.8, no friction: the step in "
               "which they touch is the step shown.";
    if (make_world(x, (vec3s){{0.0f, 0.0f, 0.0f}})) return -1;
    if (add_body(x, "A", (vec3s){{-7.15f, 0.25f, 0.0f}}, (vec3s){{24.0f, 0.0f, 0.0f}}, 0.3f, 1.0f, 0.8f,
                 0.0f) ||
        add_body(x, "B", (vec3s){{1.0f, 0.0f, 0.0f}}, (vec3s){{-12.0f, 0.0f, 0.0f}}, 0.4f, 2.0f, 0.8f, 0.0f))
        return -1;
    return 0;
}

// (2) A ball meets a wall (a kinematic box) that moves towards it: a moving wall reflects by the relative
// velocity.
static int setup_moving_wall(run_ctx *x) {
    ls_capture *c = x->c;
    c->title = "A ball hitting a moving wall";
    c->intro = "A ball (0.25 m, 1 kg, restitution 0.7, friction 0.1) flies right and up at (14, 5) m/s; "
               "a kinematic box wall comes left at 6 m/s. No gravity. The wall is never pushed: the "
               "ball reflects by its velocity relative to the wall.";
    if (make_world(x, (vec3s){{0.0f, 0.0f, 0.0f}})) return -1;
    kyu_collider_def wall = kyu_collider_def_default();
    wall.type = KYU_SHAPE_BOX;
    wall.motion = KYU_KINEMATIC;
    wall.position = (vec3s){{1.6f, 0.6f, 0.0f}};
    wall.half_extents = (vec3s){{0.15f, 1.0f, 0.6f}};
    wall.velocity = (vec3s){{-6.0f, 0.0f, 0.0f}};
    wall.restitution = 0.5f;
    wall.friction = 0.1f;
    if (kyu_collider_create(x->w, &wall, &x->wall) != KYU_OK) {
        snprintf(c->error, sizeof c->error, "creating the wall: %s", kyu_world_last_error(x->w));
        return -1;
    }
    c->has_wall = true;
    c->wall_half = wall.half_extents;
    c->wall_v = wall.velocity;
    c->wall_e = wall.restitution, c->wall_mu = wall.friction;
    return add_body(x, "ball", (vec3s){{-0.3f, 0.2f, 0.0f}}, (vec3s){{14.0f, 5.0f, 0.0f}}, 0.25f, 1.0f, 0.7f,
                    0.1f);
}

// (3) A pile settles and sleeps; a ball dropped on it wakes it: impacts, contacts, islands, sleep.
static int setup_pile(run_ctx *x) {
    ls_capture *c = x->c;
    c->title = "A sphere dropping into a resting pile";
    c->intro = "Five balls (0.25 m) rest on the ground in a little pyramid and have fallen asleep; a "
               "lone ball sleeps further right. A sixth ball is dropped onto the pile with a sideways "
               "push. Gravity -9.81, restitution 0.3, friction 0.5.";
    if (make_world(x, (vec3s){{0.0f, -9.81f, 0.0f}})) return -1;
    kyu_collider_def ground = kyu_collider_def_default();
    if (kyu_collider_create(x->w, &ground, &x->ground) != KYU_OK) return -1;
    c->has_ground = true;
    const float r = 0.25f, h = r * sqrtf(3.0f);
    vec3s at[6] = {{{-0.5f, r, 0.0f}},      {{0.0f, r, 0.0f}},      {{0.5f, r, 0.0f}},
                   {{-0.25f, r + h, 0.0f}}, {{0.25f, r + h, 0.0f}}, {{2.0f, r, 0.0f}}};
    const char *names[6] = {"P1", "P2", "P3", "P4", "P5", "L"};
    for (int i = 0; i < 6; i++)
        if (add_body(x, names[i], at[i], glms_vec3_zero(), r, 1.0f, 0.3f, 0.5f)) return -1;
    return 0;
}

// Lets the pile settle and sleep, then drops the ball (created last, so it is the event's `other`).
static int settle_and_drop(run_ctx *x) {
    for (int i = 0; i < 600 && kyu_world_sleeping_body_count(x->w) < x->c->nb; i++)
        if (step_once(x)) return -1;
    if (kyu_world_sleeping_body_count(x->w) < x->c->nb) {
        snprintf(x->c->error, sizeof x->c->error, "the pile did not fall asleep in 10 s");
        return -1;
    }
    x->target_other = x->c->nb;
    return add_body(x, "drop", (vec3s){{-0.35f, 1.9f, 0.0f}}, (vec3s){{0.6f, -1.0f, 0.0f}}, 0.25f, 1.0f, 0.3f,
                    0.5f);
}

// ---- reading the world -------------------------------------------------------------------------

static int index_of(const ls_capture *c, kyu_body_id id) {
    for (int i = 0; i < c->nb; i++)
        if (c->b[i].id.index1 == id.index1 && c->b[i].id.generation == id.generation) return i;
    return -99;
}

static int side_of(const run_ctx *x, kyu_body_id other, kyu_collider_id col) {
    if (other.index1) return index_of(x->c, other);
    return col.index1 == x->wall.index1 && x->wall.index1 ? LS_WALL : LS_GROUND;
}

static ls_pair *find_pair(ls_capture *c, int a, int b) {
    if (b >= 0 && b < a) {
        int t = a;
        a = b, b = t;
    }
    for (int i = 0; i < c->npairs; i++)
        if (c->pairs[i].a == a && c->pairs[i].b == b) return &c->pairs[i];
    if (c->npairs == LS_MAX_PAIRS) return NULL;
    ls_pair *p = &c->pairs[c->npairs++];
    memset(p, 0, sizeof *p);
    p->a = a, p->b = b;
    return p;
}

// Every pair the bodies touch now, marked as before or after the step.
static void read_contacts(run_ctx *x, bool after) {
    kyu_contact_event ev[32];
    for (int i = 0; i < x->c->nb; i++) {
        int total = 0;
        if (kyu_body_get_contacts(x->w, x->c->b[i].id, ev, 32, &total) != KYU_OK) continue;
        for (int k = 0; k < total && k < 32; k++) {
            int a = index_of(x->c, ev[k].body), b = side_of(x, ev[k].other, ev[k].collider);
            if (a < 0 || b == -99) continue;
            ls_pair *p = find_pair(x->c, a, b);
            if (!p) continue;
            if (after)
                p->after = true;
            else
                p->before = true;
        }
    }
}

static void mark_events(run_ctx *x) {
    int n;
    const kyu_contact_event *ev = kyu_world_begin_events(x->w, &n);
    x->c->begin_count = n;
    for (int k = 0; k < n; k++) {
        int a = index_of(x->c, ev[k].body), b = side_of(x, ev[k].other, ev[k].collider);
        ls_pair *p = a >= 0 && b != -99 ? find_pair(x->c, a, b) : NULL;
        if (p) p->began = true;
    }
    ev = kyu_world_end_events(x->w, &n);
    x->c->end_count = n;
    for (int k = 0; k < n; k++) {
        int a = index_of(x->c, ev[k].body), b = side_of(x, ev[k].other, ev[k].collider);
        ls_pair *p = a >= 0 && b != -99 ? find_pair(x->c, a, b) : NULL;
        if (p) p->ended = true;
    }
}

static float gap_between(const run_ctx *x, const ls_pair *p, bool after) {
    const ls_body *a = &x->c->b[p->a];
    vec3s pa = after ? a->p1 : a->p0;
    if (p->b == LS_GROUND) return pa.y - a->r;
    if (p->b == LS_WALL) {
        kyu_box box =
            kyu_box_make(after ? x->c->wall_p1 : x->c->wall_p0, glms_quat_identity(), x->c->wall_half);
        return kyu_distance_sphere_box(pa, a->r, &box, NULL, NULL);
    }
    const ls_body *b = &x->c->b[p->b];
    return glms_vec3_norm(glms_vec3_sub(pa, after ? b->p1 : b->p0)) - a->r - b->r;
}

static void read_state(run_ctx *x, bool after) {
    for (int i = 0; i < x->c->nb; i++) {
        ls_body *b = &x->c->b[i];
        kyu_body_get_position(x->w, b->id, after ? &b->p1 : &b->p0);
        kyu_body_get_velocity(x->w, b->id, after ? &b->v1 : &b->v0);
        kyu_body_get_angular_velocity(x->w, b->id, after ? &b->w1 : &b->w0);
        kyu_body_get_inertia(x->w, b->id, &b->inertia);
        if (after)
            b->awake1 = kyu_body_is_awake(x->w, b->id);
        else
            b->awake0 = kyu_body_is_awake(x->w, b->id);
    }
    if (x->c->has_wall) kyu_collider_get_position(x->w, x->wall, after ? &x->c->wall_p1 : &x->c->wall_p0);
}

// ---- what kyu_world_draw draws -----------------------------------------------------------------

static void on_box(const kyu_box *box, kyu_color color, void *ctx) {
    run_ctx *x = ctx;
    ls_drawn *d = &x->c->drawn;
    (void)color;
    if (x->draw_mode == DRAW_GRID && d->ngrid < LS_MAX_DRAWN) d->grid[d->ngrid++] = *box;
    if (x->draw_mode == DRAW_AABBS && d->naabb < LS_MAX_BODIES * 2) d->aabb[d->naabb++] = *box;
}

static void on_capsule(vec3s a, vec3s b, float r, kyu_color color, void *ctx) {
    run_ctx *x = ctx;
    ls_drawn *d = &x->c->drawn;
    (void)color;
    if (x->draw_mode == DRAW_SWEPT && d->nswept < LS_MAX_BODIES)
        d->swept[d->nswept++] = (ls_capsule){a, b, r};
}

static void on_segment(vec3s a, vec3s b, kyu_color color, void *ctx) {
    run_ctx *x = ctx;
    ls_drawn *d = &x->c->drawn;
    if (x->draw_mode == DRAW_SEGS && d->nsegs < LS_MAX_DRAWN) d->segs[d->nsegs++] = (ls_seg){a, b, color};
}

static void on_point(vec3s p, float size, kyu_color color, void *ctx) {
    run_ctx *x = ctx;
    ls_drawn *d = &x->c->drawn;
    (void)size, (void)color;
    if (x->draw_mode == DRAW_SEGS && d->npoints < LS_MAX_DRAWN) d->points[d->npoints++] = p;
}

static void on_text(vec3s p, const char *text, kyu_color color, void *ctx) {
    run_ctx *x = ctx;
    ls_drawn *d = &x->c->drawn;
    (void)color;
    if (d->ntexts < 32) {
        d->texts[d->ntexts].p = p;
        snprintf(d->texts[d->ntexts++].text, sizeof d->texts[0].text, "%s", text);
    }
}

// With KYU_DRAW_ISLANDS each sphere comes in its island's colour: match spheres to bodies by centre.
static void on_sphere(vec3s center, float radius, kyu_color color, void *ctx) {
    run_ctx *x = ctx;
    (void)radius;
    if (x->draw_mode != DRAW_ISLANDS) return;
    for (int i = 0; i < x->c->nb; i++)
        if (glms_vec3_norm(glms_vec3_sub(center, x->c->b[i].p1)) < 1e-5f) {
            x->c->b[i].engine_color = color;
            x->c->b[i].has_engine_color = true;
        }
}

static void read_drawing(run_ctx *x) {
    kyu_debug_draw d = kyu_debug_draw_default();
    d.draw_box = on_box, d.draw_capsule = on_capsule, d.draw_segment = on_segment;
    d.draw_point = on_point, d.draw_text = on_text, d.draw_sphere = on_sphere;
    d.context = x;
    static const struct {
        int mode;
        uint32_t flags;
    } layers[] = {
        {DRAW_GRID, KYU_DRAW_GRID},
        {DRAW_AABBS, KYU_DRAW_AABBS},
        {DRAW_SWEPT, KYU_DRAW_SWEPT},
        {DRAW_SEGS, KYU_DRAW_CONTACTS | KYU_DRAW_PAIRS | KYU_DRAW_IMPACTS | KYU_DRAW_TEXT},
        {DRAW_ISLANDS, KYU_DRAW_SHAPES | KYU_DRAW_ISLANDS | KYU_DRAW_SLEEP},
    };
    x->c->drawn.available = true;
    for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++) {
        x->draw_mode = layers[i].mode;
        d.flags = layers[i].flags;
        if (kyu_world_draw(x->w, &d) != KYU_OK) x->c->drawn.available = false;
    }
}

// ---- the step of interest ----------------------------------------------------------------------

static bool is_target(const run_ctx *x, const kyu_impact_event *ev) {
    int a = index_of(x->c, ev->body), b = side_of(x, ev->other, ev->collider);
    switch (x->c->scenario) {
    case 1:
        return (a == 0 && b == 1) || (a == 1 && b == 0);
    case 2:
        return b == LS_WALL;
    default:
        return b >= 0 && (a == x->target_other || b == x->target_other);
    }
}

// A body that touched something before the step is held by the contact solver (a straight path);
// one that touched nothing flies the parabola of its gravity (engine/toi.c).
static void path_accelerations(ls_capture *c) {
    for (int i = 0; i < c->nb; i++) {
        bool held = false;
        for (int k = 0; k < c->npairs; k++)
            if (c->pairs[k].before && (c->pairs[k].a == i || c->pairs[k].b == i)) held = true;
        c->b[i].accel = held ? glms_vec3_zero() : c->def.gravity;
    }
}

// Steps until the impact of interest; keeps the state before that step. 0 found, -1 not.
static int step_to_impact(run_ctx *x, int max_steps) {
    ls_capture *c = x->c;
    for (int s = 0; s < max_steps; s++) {
        c->npairs = 0;
        read_state(x, false);
        read_contacts(x, false);
        if (step_once(x)) break;
        c->step++;
        int n;
        const kyu_impact_event *ev = kyu_world_impact_events(x->w, &n);
        for (int k = 0; k < n; k++)
            if (is_target(x, &ev[k])) {
                c->imp = ev[k];
                c->ia = index_of(c, ev[k].body);
                c->ib = side_of(x, ev[k].other, ev[k].collider);
                c->nimps_total = n;
                c->nimps = n < 32 ? n : 32;
                memcpy(c->imps, ev, (size_t)c->nimps * sizeof *ev);
                return 0;
            }
    }
    snprintf(c->error, sizeof c->error, "no impact of interest within %d steps", max_steps);
    return -1;
}

// Union-find over the body-body contacts after the step: the islands the lesson expects.
static void find_islands(ls_capture *c) {
    int parent[LS_MAX_BODIES];
    for (int i = 0; i < c->nb; i++) parent[i] = i;
    for (int k = 0; k < c->npairs; k++) {
        if (!c->pairs[k].after || c->pairs[k].b < 0) continue;
        int a = c->pairs[k].a, b = c->pairs[k].b;
        while (parent[a] != a) a = parent[a];
        while (parent[b] != b) b = parent[b];
        parent[a < b ? b : a] = a < b ? a : b;
    }
    int label[LS_MAX_BODIES];
    c->nislands = 0;
    for (int i = 0; i < c->nb; i++) label[i] = -1;
    for (int i = 0; i < c->nb; i++) {
        int r = i;
        while (parent[r] != r) r = parent[r];
        if (label[r] < 0) label[r] = c->nislands++;
        c->b[i].island = label[r];
    }
}

static void watch_sleep(run_ctx *x) {
    ls_capture *c = x->c;
    c->sleep_horizon = 180;
    for (int i = 0; i < c->nb; i++)
        if (!c->b[i].awake1) c->b[i].sleep_step = c->step; // asleep already (or still)
    for (int s = 1; s <= c->sleep_horizon; s++) {
        if (step_once(x)) return;
        for (int i = 0; i < c->nb; i++)
            if (c->b[i].sleep_step < 0 && !kyu_body_is_awake(x->w, c->b[i].id))
                c->b[i].sleep_step = c->step + s;
    }
}

static void capture_after(run_ctx *x) {
    ls_capture *c = x->c;
    path_accelerations(c);
    read_state(x, true);
    read_contacts(x, true);
    mark_events(x);
    c->stats = kyu_world_stats(x->w);
    for (int k = 0; k < c->npairs; k++) {
        c->pairs[k].gap0 = gap_between(x, &c->pairs[k], false);
        c->pairs[k].gap1 = gap_between(x, &c->pairs[k], true);
    }
    find_islands(c);
    read_drawing(x);
}

int ls_run(int scenario, ls_capture *c) {
    memset(c, 0, sizeof *c);
    c->scenario = scenario;
    run_ctx x = {.c = c, .target_other = -1};
    int rc;
    if (scenario == 1)
        rc = setup_two_spheres(&x);
    else if (scenario == 2)
        rc = setup_moving_wall(&x);
    else if (scenario == 3)
        rc = setup_pile(&x);
    else
        return snprintf(c->error, sizeof c->error, "no scenario %d (1..%d)", scenario, LS_SCENARIOS), -1;
    if (!rc && scenario == 3) rc = settle_and_drop(&x);
    if (!rc && scenario == 3) c->step = 0; // count the steps from the drop
    if (!rc) rc = step_to_impact(&x, 240);
    if (!rc) {
        capture_after(&x);
        watch_sleep(&x);
        ls_analyse(c);
    }
    if (rc && !c->error[0]) snprintf(c->error, sizeof c->error, "%s", kyu_world_last_error(x.w));
    kyu_world_destroy(x.w);
    return rc;
}
