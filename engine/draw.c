// SPDX-License-Identifier: MIT
// Debug drawing (include/kyu/draw.h): reads the world's storage and calls the user's callbacks,
// layer after layer. Nothing is kept between calls; only the islands layer allocates (scratch for
// one call). Bodies are drawn in slot order, one draw_sphere call each (the order of
// kyu_world_get_bodies), so a renderer can match a sphere to its body, e.g. to draw it at its
// interpolated position. Spheres and colliders need KYU_DRAW_SHAPES; SLEEP and ISLANDS only colour
// them. The impacts layer shows kyu_world_impact_events, which the step records only with
// kyu_world_def.enable_impact_events (otherwise it draws nothing).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define KYU_DRAW_COOKIE    0x6b796477u // "kydw"
#define KYU_DRAW_ALL_FLAGS ((uint32_t)KYU_DRAW_ORIENTATION * 2u - 1u)
#define HULL_FACE_LIMIT    32 // hulls up to this many points are drawn as faces (found by brute force)

typedef struct draw_ctx {
    const kyu_world *w;
    const kyu_debug_draw *d;
    uint32_t *root; // ISLANDS: per slot union-find parent of awake bodies; NULL otherwise
} draw_ctx;

// ---- colours ------------------------------------------------------------------------------------

// Bright colours (luminance >= 0.48) so that a sleeping body, at SLEEP_SHADE of any of them, is
// darker than every awake one.
static const kyu_color palette[] = {
    {1.00f, 0.55f, 0.10f, 1.0f}, {0.30f, 0.70f, 1.00f, 1.0f}, {0.35f, 0.85f, 0.35f, 1.0f},
    {0.95f, 0.85f, 0.20f, 1.0f}, {1.00f, 0.45f, 0.70f, 1.0f}, {0.65f, 0.50f, 1.00f, 1.0f},
    {0.20f, 0.85f, 0.75f, 1.0f}, {1.00f, 0.35f, 0.30f, 1.0f}, {0.70f, 0.95f, 0.30f, 1.0f},
    {1.00f, 0.70f, 0.50f, 1.0f}, {0.45f, 0.55f, 1.00f, 1.0f}, {0.85f, 0.60f, 0.95f, 1.0f},
};
#define PALETTE_SIZE (sizeof palette / sizeof palette[0])
#define SLEEP_SHADE  0.3f

static const kyu_color col_static = {0.55f, 0.55f, 0.60f, 1.0f};
static const kyu_color col_kinematic = {0.40f, 0.60f, 0.90f, 1.0f};
static const kyu_color col_plane = {0.45f, 0.50f, 0.45f, 1.0f};
static const kyu_color col_aabb = {0.90f, 0.90f, 0.30f, 1.0f};
static const kyu_color col_swept = {0.30f, 0.80f, 1.00f, 0.5f};
static const kyu_color col_swept_box = {0.30f, 0.50f, 1.00f, 1.0f};
static const kyu_color col_grid = {0.35f, 0.35f, 0.90f, 1.0f};
static const kyu_color col_contact = {1.00f, 0.20f, 0.20f, 1.0f};
static const kyu_color col_sensor = {0.60f, 1.00f, 1.00f, 1.0f};
static const kyu_color col_impact = {1.00f, 0.20f, 1.00f, 1.0f};
static const kyu_color col_pair_new = {0.20f, 1.00f, 0.20f, 1.0f};
static const kyu_color col_pair_kept = {0.30f, 0.50f, 1.00f, 1.0f};
static const kyu_color col_velocity = {1.00f, 1.00f, 0.20f, 1.0f};
static const kyu_color col_text = {1.00f, 1.00f, 1.00f, 1.0f};
static const kyu_color col_periodic = {0.85f, 0.85f, 0.85f, 0.5f};

// A well-mixed hash (lowbias32) so that neighbouring slots get unrelated colours.
static uint32_t mix32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static kyu_color palette_color(uint32_t key) { return palette[mix32(key) % PALETTE_SIZE]; }

static kyu_color shade(kyu_color c, float f) { return (kyu_color){c.r * f, c.g * f, c.b * f, c.a}; }

// ---- islands ------------------------------------------------------------------------------------

static uint32_t uf_find(uint32_t *parent, uint32_t i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

// The island pass's rule (engine/island.c): body-body contacts link, colliders do not, and a sensor
// links only while it overlaps. The lower slot becomes the root, so a root is its island's lowest slot.
static void uf_link_contact(const kyu_world *w, const contact *c, void *ctx) {
    uint32_t *parent = ctx;
    if ((c->b & KYU_COLLIDER_BIT) || (c->sensor && !c->touching)) return;
    if (!w->bodies.awake[c->a] || !w->bodies.awake[c->b]) return;
    uint32_t ra = uf_find(parent, c->a), rb = uf_find(parent, c->b);
    if (ra != rb) parent[ra < rb ? rb : ra] = ra < rb ? ra : rb;
}

// The islands of awake bodies, by union-find over the kept contacts (and those of islands woken
// since the last step), in an array of its own: drawing never writes to the world, so two threads
// may draw one world at once. NULL when out of memory.
static uint32_t *awake_islands(const kyu_world *w) {
    uint32_t *parent = kyu_malloc((size_t)(w->bodies.high > 0 ? w->bodies.high : 1) * sizeof *parent);
    if (!parent) return NULL;
    for (int i = 0; i < w->bodies.high; i++) parent[i] = (uint32_t)i;
    kyu_contacts_each(w, uf_link_contact, parent);
    return parent;
}

// A sleeping island's key is its record's first body: bodies join a record in slot order, so it is
// the island's lowest slot, the same root it had awake (its colour does not change as it falls asleep).
static uint32_t island_key(const draw_ctx *x, uint32_t i) {
    const body_store *s = &x->w->bodies;
    if (s->awake[i]) return uf_find(x->root, i);
    const sleep_island *isl = &x->w->islands.list[s->island[i]];
    return isl->body_count > 0 ? isl->bodies[0] : i;
}

static kyu_color body_color(const draw_ctx *x, uint32_t i) {
    uint32_t flags = x->d->flags;
    kyu_color c = palette_color(x->root && (flags & KYU_DRAW_ISLANDS) ? island_key(x, i) : i);
    if ((flags & KYU_DRAW_SLEEP) && !x->w->bodies.awake[i]) c = shade(c, SLEEP_SHADE);
    return c;
}

// ---- small helpers ------------------------------------------------------------------------------

static kyu_box axis_box(vec3s center, vec3s half) {
    kyu_box b;
    b.center = center;
    b.rotation = glms_mat3_identity();
    b.half_extents = half;
    return b;
}

static kyu_box aabb_box(const aabb *a) {
    vec3s lo = {{a->lo[0], a->lo[1], a->lo[2]}}, hi = {{a->hi[0], a->hi[1], a->hi[2]}};
    return axis_box(glms_vec3_scale(glms_vec3_add(lo, hi), 0.5f),
                    glms_vec3_scale(glms_vec3_sub(hi, lo), 0.5f));
}

static vec3s to_world(const collider *c, vec3s p) {
    const mat3s *m = &c->box.rotation;
    vec3s r = glms_vec3_add(glms_vec3_add(glms_vec3_scale(m->col[0], p.x), glms_vec3_scale(m->col[1], p.y)),
                            glms_vec3_scale(m->col[2], p.z));
    return glms_vec3_add(c->box.center, r);
}

static void text(const draw_ctx *x, vec3s p, const char *s) {
    if ((x->d->flags & KYU_DRAW_TEXT) && x->d->draw_text) x->d->draw_text(p, s, col_text, x->d->context);
}

static void segment(const draw_ctx *x, vec3s a, vec3s b, kyu_color c) {
    if (x->d->draw_segment) x->d->draw_segment(a, b, c, x->d->context);
}

static void point(const draw_ctx *x, vec3s p, kyu_color c) {
    if (x->d->draw_point) x->d->draw_point(p, x->d->point_size, c, x->d->context);
}

static void box(const draw_ctx *x, const kyu_box *b, kyu_color c) {
    if (x->d->draw_box) x->d->draw_box(b, c, x->d->context);
}

static void triangle(const draw_ctx *x, vec3s a, vec3s b, vec3s c, kyu_color col) {
    if (x->d->draw_triangle) x->d->draw_triangle(a, b, c, col, x->d->context);
}

static void capsule(const draw_ctx *x, vec3s a, vec3s b, float r, kyu_color c) {
    if (x->d->draw_capsule) x->d->draw_capsule(a, b, r, c, x->d->context);
}

// ---- shapes -------------------------------------------------------------------------------------

// A square of half size plane_extent around the plane's point, two triangles and its border.
static void draw_plane(const draw_ctx *x, const collider *c) {
    vec3s n = c->normal;
    vec3s helper = fabsf(n.x) < 0.57f ? (vec3s){{1, 0, 0}} : (vec3s){{0, 1, 0}};
    vec3s t1 = glms_vec3_scale(glms_vec3_normalize(glms_vec3_cross(n, helper)), x->d->plane_extent);
    vec3s t2 = glms_vec3_cross(n, t1);
    vec3s o = c->box.center;
    vec3s q[4] = {glms_vec3_sub(glms_vec3_sub(o, t1), t2), glms_vec3_sub(glms_vec3_add(o, t1), t2),
                  glms_vec3_add(glms_vec3_add(o, t1), t2), glms_vec3_add(glms_vec3_sub(o, t1), t2)};
    kyu_color edge = shade(col_plane, 1.4f);
    triangle(x, q[0], q[2], q[1], col_plane); // counter-clockwise seen from the normal's side
    triangle(x, q[0], q[3], q[2], col_plane);
    for (int k = 0; k < 4; k++) segment(x, q[k], q[(k + 1) & 3], edge);
}

// Which side of the plane through i, j, k every other point lies: +1 all behind (the face looks out
// along the triangle's normal), -1 all in front, 0 mixed (not a face).
static int hull_face_side(const vec3s *p, int count, int i, int j, int k, float eps) {
    vec3s n = glms_vec3_cross(glms_vec3_sub(p[j], p[i]), glms_vec3_sub(p[k], p[i]));
    float len = glms_vec3_norm(n);
    if (!(len > 0.0f)) return 0;
    n = glms_vec3_scale(n, 1.0f / len);
    int above = 0, below = 0;
    for (int m = 0; m < count; m++) {
        float s = glms_vec3_dot(n, glms_vec3_sub(p[m], p[i]));
        above |= s > eps;
        below |= s < -eps;
    }
    return above && below ? 0 : above ? -1 : 1;
}

// A hull's faces without building it (kyu_hull_build allocates): every triangle of points with all
// the others on one side. O(n^4), so only small hulls; larger ones are drawn as their points.
static void draw_hull(const draw_ctx *x, const collider *c, kyu_color col) {
    const vec3s *p = c->hull_points;
    int n = c->hull_count;
    if (n > HULL_FACE_LIMIT) {
        for (int i = 0; i < n; i++) point(x, to_world(c, p[i]), col);
        return;
    }
    aabb b;
    kyu_shape_local_bounds(c, &b);
    float eps = 1e-5f * (b.hi[0] - b.lo[0] + b.hi[1] - b.lo[1] + b.hi[2] - b.lo[2]);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            for (int k = j + 1; k < n; k++) {
                int side = hull_face_side(p, n, i, j, k, eps);
                if (side > 0) triangle(x, to_world(c, p[i]), to_world(c, p[j]), to_world(c, p[k]), col);
                if (side < 0) triangle(x, to_world(c, p[i]), to_world(c, p[k]), to_world(c, p[j]), col);
            }
}

static void draw_mesh(const draw_ctx *x, const collider *c, kyu_color col) {
    const kyu_mesh *m = c->mesh;
    for (int t = 0; t < m->tri_count; t++) {
        const int32_t *v = &m->tris[3 * t];
        triangle(x, to_world(c, m->verts[v[0]]), to_world(c, m->verts[v[1]]), to_world(c, m->verts[v[2]]),
                 col);
    }
}

static void draw_collider(const draw_ctx *x, const collider *c) {
    kyu_color col = c->motion == KYU_KINEMATIC ? col_kinematic : col_static;
    switch (c->type) {
    case KYU_SHAPE_PLANE:
        draw_plane(x, c);
        break;
    case KYU_SHAPE_BOX:
        box(x, &c->box, col);
        break;
    case KYU_SHAPE_CAPSULE:
        capsule(x, to_world(c, c->cap_a), to_world(c, c->cap_b), c->cap_radius, col);
        break;
    case KYU_SHAPE_HULL:
        draw_hull(x, c, col);
        break;
    case KYU_SHAPE_MESH:
        draw_mesh(x, c, col);
        break;
    }
}

static void layer_shapes(const draw_ctx *x) {
    const kyu_world *w = x->w;
    for (int k = 0; k < w->colliders.high; k++)
        if (w->colliders.list[k].alive) draw_collider(x, &w->colliders.list[k]);
    if (!x->d->draw_sphere) return;
    const body_store *s = &w->bodies;
    for (int i = 0; i < s->high; i++)
        if (s->alive[i])
            x->d->draw_sphere(s->pos[i], s->radius[i], body_color(x, (uint32_t)i), x->d->context);
}

// ---- bounds, sweeps, grid -----------------------------------------------------------------------

static void layer_aabbs(const draw_ctx *x) {
    const kyu_world *w = x->w;
    const body_store *s = &w->bodies;
    for (int i = 0; i < s->high; i++) {
        if (!s->alive[i]) continue;
        kyu_box b = axis_box(s->pos[i], (vec3s){{s->radius[i], s->radius[i], s->radius[i]}});
        box(x, &b, col_aabb);
    }
    for (int k = 0; k < w->colliders.high; k++) {
        const collider *c = &w->colliders.list[k];
        if (!c->alive || c->type == KYU_SHAPE_PLANE) continue; // unbounded
        aabb a;
        kyu_shape_world_bounds(c, c->box.center, &a);
        kyu_box b = aabb_box(&a);
        box(x, &b, col_aabb);
    }
}

// The motion from prev (where kyu_world_update's last step began) to pos: the capsule the sphere
// swept, and the box around it.
static void layer_swept(const draw_ctx *x) {
    const body_store *s = &x->w->bodies;
    for (int i = 0; i < s->high; i++) {
        if (!s->alive[i] || !s->awake[i] || glms_vec3_eqv(s->prev[i], s->pos[i])) continue;
        float r = s->radius[i];
        capsule(x, s->prev[i], s->pos[i], r, col_swept);
        vec3s lo = glms_vec3_minv(s->prev[i], s->pos[i]), hi = glms_vec3_maxv(s->prev[i], s->pos[i]);
        aabb a = {{lo.x - r, lo.y - r, lo.z - r}, {hi.x + r, hi.y + r, hi.z + r}};
        kyu_box b = aabb_box(&a);
        box(x, &b, col_swept_box);
    }
}

static void grid_cell_sized(const draw_ctx *x, const int32_t c[3], float h) {
    vec3s center = {{((float)c[0] + 0.5f) * h, ((float)c[1] + 0.5f) * h, ((float)c[2] + 0.5f) * h}};
    kyu_box b = axis_box(center, (vec3s){{0.5f * h, 0.5f * h, 0.5f * h}});
    box(x, &b, col_grid);
}

static void grid_cell(const draw_ctx *x, const int32_t c[3]) { grid_cell_sized(x, c, x->w->grid.cell); }

static int same_cell(const int32_t a[3], const int32_t b[3]) {
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

// Cells of the last broadphase: the entries are sorted by cell key (hashed or dense), so a cell's
// entries are one run; a run may hold several cells only when their hashes collide.
static void layer_grid(const draw_ctx *x) {
    const grid *g = &x->w->grid;
    if (!(g->cell > 0.0f)) return; // no step yet
    for (int i = 0; i < g->entry_count; i++) {
        int32_t c[3], cm[3];
        kyu_entry_cell(g, &g->entries[i], c);
        int first = 1;
        for (int m = i - 1; m >= 0 && g->entries[m].key == g->entries[i].key && first; m--) {
            kyu_entry_cell(g, &g->entries[m], cm);
            first = !same_cell(cm, c);
        }
        if (first) grid_cell(x, c);
    }
    for (int i = 0; i < g->level_count; i++) // big boxes, each at its level's cell of its low corner
        if (i == 0 || g->levels[i].level != g->levels[i - 1].level ||
            !same_cell(g->levels[i].c, g->levels[i - 1].c))
            grid_cell_sized(x, g->levels[i].c, g->level[g->levels[i].level].cell);
    for (int i = 0; i < g->late_count; i++) grid_cell(x, g->late[i].c); // late inserts
}

// ---- contacts and pairs -------------------------------------------------------------------------

typedef void contact_fn(const draw_ctx *x, const contact *c);

typedef struct touching_visit {
    const draw_ctx *x;
    contact_fn *fn;
} touching_visit;

static void visit_touching(const kyu_world *w, const contact *c, void *ctx) {
    (void)w;
    const touching_visit *v = ctx;
    if (c->touching) v->fn(v->x, c);
}

// Every touching contact: the awake cache, islands woken since the step, and the sleeping islands.
static void each_touching(const draw_ctx *x, contact_fn *fn) {
    touching_visit v = {x, fn};
    kyu_contacts_each(x->w, visit_touching, &v);
}

// The contact point: on the collider's surface, or halfway between the two spheres' surfaces.
static vec3s contact_point(const kyu_world *w, const contact *c) {
    float r = w->bodies.radius[c->a];
    float d = (c->b & KYU_COLLIDER_BIT) ? r + c->gap : r + 0.5f * c->gap;
    return glms_vec3_sub(w->bodies.pos[c->a], glms_vec3_scale(c->normal, d));
}

static void draw_contact(const draw_ctx *x, const contact *c) {
    vec3s p = contact_point(x->w, c);
    kyu_color col = c->sensor ? col_sensor : col_contact;
    point(x, p, col);
    segment(x, p, glms_vec3_add(p, glms_vec3_scale(c->normal, x->w->bodies.radius[c->a])), col);
    char s[32];
    snprintf(s, sizeof s, "d=%.2fmm", -1000.0 * (double)c->gap);
    text(x, p, s);
}

static uint64_t event_key(const kyu_contact_event *e) {
    uint32_t b = e->other.index1 ? e->other.index1 - 1 : (e->collider.index1 - 1) | KYU_COLLIDER_BIT;
    return (uint64_t)(e->body.index1 - 1) << 32 | b;
}

static int same_event(const kyu_world *w, const kyu_contact_event *e, const contact *c) {
    kyu_contact_event now = kyu_contact_event_of(w, c); // the handles the contact names
    if (e->body.generation != now.body.generation) return 0;
    return (c->b & KYU_COLLIDER_BIT) ? e->collider.generation == now.collider.generation
                                     : e->other.generation == now.other.generation;
}

// Whether the pair began touching in the last step (a begin event), found by binary search: the
// step emits begin events in contact key order.
static int pair_is_new(const kyu_world *w, const contact *c) {
    uint64_t key = (uint64_t)c->a << 32 | c->b;
    int lo = w->events.begin_first, hi = w->events.begin_count; // the last step's, in key order
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (event_key(&w->events.begin[mid]) < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->events.begin_count && event_key(&w->events.begin[lo]) == key &&
           same_event(w, &w->events.begin[lo], c);
}

static void draw_pair(const draw_ctx *x, const contact *c) {
    if (c->sensor) return;
    const body_store *s = &x->w->bodies;
    vec3s other = (c->b & KYU_COLLIDER_BIT)
                      ? contact_point(x->w, c)
                      : kyu_periodic_image(&x->w->periodic, s->pos[c->a], s->pos[c->b]); // b's copy by a
    segment(x, s->pos[c->a], other, pair_is_new(x->w, c) ? col_pair_new : col_pair_kept);
}

// ---- impacts and velocities ---------------------------------------------------------------------

static void draw_impact(const draw_ctx *x, const kyu_impact_event *e) {
    const body_store *s = &x->w->bodies;
    uint32_t slot = e->body.index1 - 1;
    float len = slot < (uint32_t)s->high && s->alive[slot] && s->generation[slot] == e->body.generation
                    ? s->radius[slot]
                    : 0.25f; // removed since: any visible length
    point(x, e->point, col_impact);
    segment(x, e->point, glms_vec3_add(e->point, glms_vec3_scale(e->normal, len)), col_impact);
    char t[48];
    snprintf(t, sizeof t, "t=%.4f v=%.2f", (double)e->time, (double)e->approach_speed);
    text(x, e->point, t);
}

static const kyu_color col_axis_x = {0.95f, 0.25f, 0.25f, 1.0f};
static const kyu_color col_axis_y = {0.25f, 0.90f, 0.30f, 1.0f};

static void layer_orientation(const draw_ctx *x) {
    const body_store *s = &x->w->bodies;
    for (int i = 0; i < s->high; i++) {
        if (!s->alive[i]) continue;
        float r = s->radius[i];
        vec3s ex = glms_quat_rotatev(s->rot[i], (vec3s){{r, 0.0f, 0.0f}});
        vec3s ey = glms_quat_rotatev(s->rot[i], (vec3s){{0.0f, r, 0.0f}});
        segment(x, s->pos[i], glms_vec3_add(s->pos[i], ex), col_axis_x);
        segment(x, s->pos[i], glms_vec3_add(s->pos[i], ey), col_axis_y);
    }
}

static void layer_velocities(const draw_ctx *x) {
    const body_store *s = &x->w->bodies;
    for (int i = 0; i < s->high; i++) {
        if (!s->alive[i] || !s->awake[i] || glms_vec3_norm2(s->vel[i]) == 0.0f) continue;
        vec3s tip = glms_vec3_add(s->pos[i], glms_vec3_scale(s->vel[i], x->d->velocity_scale));
        segment(x, s->pos[i], tip, col_velocity);
        point(x, tip, col_velocity);
    }
}

// The periodic box (with the shapes, when the world has one), its corners as the def gives them.
static void layer_periodic(const draw_ctx *x) {
    const periodic_state *ps = &x->w->periodic;
    aabb a;
    for (int k = 0; k < 3; k++) a.lo[k] = ps->lo[k], a.hi[k] = ps->hi[k];
    kyu_box b = aabb_box(&a);
    box(x, &b, col_periodic);
}

// ---- the interface ------------------------------------------------------------------------------

kyu_debug_draw kyu_debug_draw_default(void) {
    kyu_debug_draw d;
    memset(&d, 0, sizeof d);
    d.flags = KYU_DRAW_SHAPES | KYU_DRAW_SLEEP;
    d.plane_extent = 10.0f;
    d.velocity_scale = 0.1f;
    d.point_size = 4.0f;
    d.cookie = KYU_DRAW_COOKIE;
    return d;
}

static kyu_status validate(const kyu_world *w, const kyu_debug_draw *d) {
    if (!d) return kyu_fail(w, KYU_ERR_NULL, "kyu_world_draw: draw is NULL");
    if (d->cookie != KYU_DRAW_COOKIE)
        return kyu_fail(w, KYU_ERR_INVALID_DEF, "kyu_world_draw: draw not made by kyu_debug_draw_default");
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_world_draw during a step");
    if (d->flags & ~KYU_DRAW_ALL_FLAGS)
        return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "kyu_world_draw: unknown flags 0x%x",
                        d->flags & ~KYU_DRAW_ALL_FLAGS);
    if (!isfinite(d->plane_extent) || !isfinite(d->velocity_scale) || !isfinite(d->point_size))
        return kyu_fail(w, KYU_ERR_NOT_FINITE,
                        "kyu_world_draw: plane_extent %g, velocity_scale %g, point_size %g must be finite",
                        (double)d->plane_extent, (double)d->velocity_scale, (double)d->point_size);
    if (!(d->plane_extent >= 0.0f && d->point_size >= 0.0f))
        return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT,
                        "kyu_world_draw: plane_extent %g, point_size %g (must be >= 0)",
                        (double)d->plane_extent, (double)d->point_size);
    return KYU_OK;
}

kyu_status kyu_world_draw(const kyu_world *w, const kyu_debug_draw *d) {
    if (!w) return KYU_ERR_NULL;
    kyu_status st = validate(w, d);
    if (st != KYU_OK) return st;
    draw_ctx x = {w, d, NULL};
    uint32_t f = d->flags;
    if ((f & KYU_DRAW_ISLANDS) && (f & KYU_DRAW_SHAPES) && d->draw_sphere && !(x.root = awake_islands(w)))
        return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "kyu_world_draw: island scratch");
    if (f & KYU_DRAW_SHAPES) layer_shapes(&x);
    if ((f & KYU_DRAW_SHAPES) && w->periodic.mask) layer_periodic(&x);
    if (f & KYU_DRAW_AABBS) layer_aabbs(&x);
    if (f & KYU_DRAW_SWEPT) layer_swept(&x);
    if (f & KYU_DRAW_GRID) layer_grid(&x);
    if (f & KYU_DRAW_PAIRS) each_touching(&x, draw_pair);
    if (f & KYU_DRAW_CONTACTS) each_touching(&x, draw_contact);
    if (f & KYU_DRAW_IMPACTS)
        for (int k = 0; k < w->events.impact_count; k++) draw_impact(&x, &w->events.impacts[k]);
    if (f & KYU_DRAW_VELOCITIES) layer_velocities(&x);
    if (f & KYU_DRAW_ORIENTATION) layer_orientation(&x);
    kyu_free(x.root);
    return KYU_OK;
}
