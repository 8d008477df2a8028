// SPDX-License-Identifier: MIT
// Collider shapes for the step: distance from a sphere, a sphere's linear sweep, and local bounds,
// for every shape but the plane (which engine/toi.c solves in closed form), and at the end the two
// questions the step asks any collider, plane or not: how far a sphere is, and whether its bounds
// over the step meet a box. Work happens in the
// collider's own frame: the sphere is carried in (rotation transposed), results are carried out.
// A triangle mesh keeps a bounding volume hierarchy so a sphere tests only the triangles near it.
#include <stdlib.h>
#include <string.h>

#include "internal.h"

// ---- frames -------------------------------------------------------------------------------------

static vec3s to_local(const collider *c, vec3s center, vec3s p) {
    vec3s d = glms_vec3_sub(p, center);
    const mat3s *m = &c->box.rotation;
    return (vec3s){{glms_vec3_dot(d, m->col[0]), glms_vec3_dot(d, m->col[1]), glms_vec3_dot(d, m->col[2])}};
}

static vec3s dir_local(const collider *c, vec3s d) {
    const mat3s *m = &c->box.rotation;
    return (vec3s){{glms_vec3_dot(d, m->col[0]), glms_vec3_dot(d, m->col[1]), glms_vec3_dot(d, m->col[2])}};
}

static vec3s dir_world(const collider *c, vec3s d) {
    const mat3s *m = &c->box.rotation;
    return glms_vec3_add(glms_vec3_add(glms_vec3_scale(m->col[0], d.x), glms_vec3_scale(m->col[1], d.y)),
                         glms_vec3_scale(m->col[2], d.z));
}

// ---- the mesh's bounding volume hierarchy (median split, leaves of up to 4 triangles) ------------

static aabb tri_box(const kyu_mesh *m, int t) {
    aabb b = kyu_box_empty();
    for (int v = 0; v < 3; v++) {
        vec3s p = m->verts[m->tris[3 * t + v]];
        for (int k = 0; k < 3; k++)
            b.lo[k] = kyu_minf(b.lo[k], p.raw[k]), b.hi[k] = kyu_maxf(b.hi[k], p.raw[k]);
    }
    return b;
}

static float tri_centroid(const kyu_mesh *m, int t, int axis) {
    return (m->verts[m->tris[3 * t]].raw[axis] + m->verts[m->tris[3 * t + 1]].raw[axis] +
            m->verts[m->tris[3 * t + 2]].raw[axis]) /
           3.0f;
}

// A bounding volume hierarchy over items first .. first + count - 1 of `order` (median splits along
// the longest axis of a node's box, by each item's key on that axis, ties by index; leaves of up
// to 4): into t->nodes from t->count on, `order` sorted into the leaves' runs. The meshes' and the
// colliders' trees (collider_tree.c). Returns the node's index.
int kyu_bvh_build(kyu_bvh_build_ctx *t, int first, int count) {
    int id = t->count++;
    bvh_node *n = &t->nodes[id];
    n->box = kyu_box_empty();
    for (int i = first; i < first + count; i++) {
        aabb b = t->box(t->items, t->order[i]);
        kyu_box_join(&n->box, &b);
    }
    if (count <= 4) {
        n->first = first;
        n->count = count;
        return id;
    }
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (n->box.hi[k] - n->box.lo[k] > n->box.hi[axis] - n->box.lo[axis]) axis = k;
    for (int i = 0; i < count; i++)
        t->scratch[i] = (kyu_keyed){t->key(t->items, t->order[first + i], axis), t->order[first + i]};
    qsort(t->scratch, (size_t)count, sizeof *t->scratch, kyu_by_key);
    for (int i = 0; i < count; i++) t->order[first + i] = t->scratch[i].index;
    int half = count / 2;
    n->first = -1;
    n->count = 0;
    int left = kyu_bvh_build(t, first, half);
    int right = kyu_bvh_build(t, first + half, count - half);
    t->nodes[id].left = left;
    t->nodes[id].right = right;
    return id;
}

static aabb tri_box_of(const void *m, int32_t t) { return tri_box(m, t); }
static float tri_key_of(const void *m, int32_t t, int axis) { return tri_centroid(m, t, axis); }

// Edge adjacency: sort the 3 nt edges by their vertex pair; equal neighbours share the edge.
typedef struct edge_key {
    int32_t lo, hi, tri, k;
} edge_key;

static int by_edge(const void *x, const void *y) {
    const edge_key *a = x, *b = y;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    return a->tri < b->tri ? -1 : a->tri > b->tri;
}

static int link_edges(kyu_mesh *m) {
    int n = 3 * m->tri_count;
    edge_key *e = kyu_malloc((size_t)n * sizeof *e);
    m->across = kyu_malloc((size_t)n * sizeof *m->across);
    if (!e || !m->across) {
        kyu_free(e);
        return -1;
    }
    for (int t = 0; t < m->tri_count; t++)
        for (int k = 0; k < 3; k++) {
            int32_t a = m->tris[3 * t + k], b = m->tris[3 * t + (k + 1) % 3];
            e[3 * t + k] = (edge_key){a < b ? a : b, a < b ? b : a, t, k};
            m->across[3 * t + k] = -1;
        }
    qsort(e, (size_t)n, sizeof *e, by_edge);
    for (int i = 0; i + 1 < n; i++)
        if (e[i].lo == e[i + 1].lo && e[i].hi == e[i + 1].hi) { // a shared edge (the first two)
            m->across[3 * e[i].tri + e[i].k] = e[i + 1].tri;
            m->across[3 * e[i + 1].tri + e[i + 1].k] = e[i].tri;
        }
    kyu_free(e);
    return 0;
}

kyu_mesh *kyu_mesh_create(const vec3s *verts, int nv, const int32_t *tris, int nt) {
    kyu_mesh *m = kyu_calloc(1, sizeof *m);
    if (!m) return NULL;
    m->verts = kyu_malloc((size_t)nv * sizeof *m->verts);
    m->tris = kyu_malloc((size_t)nt * 3 * sizeof *m->tris);
    m->order = kyu_malloc((size_t)nt * sizeof *m->order);
    m->nodes = kyu_malloc((size_t)(2 * nt) * sizeof *m->nodes);
    if (!m->verts || !m->tris || !m->order || !m->nodes) {
        kyu_mesh_destroy(m);
        return NULL;
    }
    memcpy(m->verts, verts, (size_t)nv * sizeof *verts);
    memcpy(m->tris, tris, (size_t)nt * 3 * sizeof *tris);
    m->vert_count = nv;
    m->tri_count = nt;
    for (int i = 0; i < nt; i++) m->order[i] = i;
    kyu_keyed *scratch = kyu_malloc((size_t)nt * sizeof *scratch);
    if (!scratch) {
        kyu_mesh_destroy(m);
        return NULL;
    }
    kyu_bvh_build(&(kyu_bvh_build_ctx){m->nodes, 0, m->order, scratch, m, tri_box_of, tri_key_of}, 0, nt);
    kyu_free(scratch);
    if (link_edges(m)) {
        kyu_mesh_destroy(m);
        return NULL;
    }
    return m;
}

void kyu_mesh_destroy(kyu_mesh *m) {
    if (!m) return;
    kyu_free(m->verts);
    kyu_free(m->tris);
    kyu_free(m->order);
    kyu_free(m->nodes);
    kyu_free(m->across);
    kyu_free(m);
}

static kyu_triangle triangle_of(const kyu_mesh *m, int t) {
    return (kyu_triangle){m->verts[m->tris[3 * t]], m->verts[m->tris[3 * t + 1]],
                          m->verts[m->tris[3 * t + 2]]};
}

// A triangle's face normal, (b - a) x (c - a): not unit (its length is twice the area; zero for a
// degenerate triangle).
static vec3s face_normal(const kyu_triangle *tri) {
    return glms_vec3_cross(glms_vec3_sub(tri->b, tri->a), glms_vec3_sub(tri->c, tri->a));
}

// Whether a contact along unit normal n is on the face whose face_normal is fn (not at an edge or
// a corner; a degenerate triangle has no face).
static int met_on_face(vec3s fn, vec3s n) {
    float len = glms_vec3_norm(fn);
    return len > 0.0f && fabsf(glms_vec3_dot(n, fn)) >= 0.99999f * len;
}

// Whether p projects onto triangle t's plane inside it (a small tolerance: on an edge counts).
static int projects_inside(const kyu_mesh *m, int t, vec3s p) {
    kyu_triangle tri = triangle_of(m, t);
    vec3s n = face_normal(&tri);
    float nn = glms_vec3_norm2(n), eps = 1e-6f * nn;
    if (!(nn > 0.0f)) return 0;
    const vec3s *v[3] = {&tri.a, &tri.b, &tri.c};
    for (int k = 0; k < 3; k++) {
        vec3s e = glms_vec3_sub(*v[(k + 1) % 3], *v[k]);
        if (glms_vec3_dot(glms_vec3_cross(e, glms_vec3_sub(p, *v[k])), n) < -eps) return 0;
    }
    return 1;
}

// An edge or corner contact on triangle t whose sphere centre lies over a neighbour across that
// edge belongs to the neighbour's face: counting it too is what snags a ball rolling over the
// seams of a flat tiled floor. Face contacts (normal = face normal) always count.
static int internal_contact(const kyu_mesh *m, int t, vec3s p, vec3s normal) {
    kyu_triangle tri = triangle_of(m, t);
    vec3s fn = face_normal(&tri);
    if (!(glms_vec3_norm2(fn) > 0.0f) || met_on_face(fn, normal)) return 0;
    for (int k = 0; k < 3; k++) {
        int u = m->across[3 * t + k];
        if (u >= 0 && projects_inside(m, u, p)) return 1;
    }
    return 0;
}

static int box_hits(const aabb *a, const aabb *b) {
    return a->lo[0] <= b->hi[0] && b->lo[0] <= a->hi[0] && a->lo[1] <= b->hi[1] && b->lo[1] <= a->hi[1] &&
           a->lo[2] <= b->hi[2] && b->lo[2] <= a->hi[2];
}

// Calls visit(t, ctx) for every triangle whose box meets q, in BVH order (deterministic).
static void bvh_query(const kyu_mesh *m, const aabb *q, void (*visit)(const kyu_mesh *, int, void *),
                      void *ctx) {
    int stack[64], top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const bvh_node *n = &m->nodes[stack[--top]];
        if (!box_hits(&n->box, q)) continue;
        if (n->first >= 0) {
            for (int i = n->first; i < n->first + n->count; i++) visit(m, m->order[i], ctx);
        } else if (top + 2 <= 64) {
            stack[top++] = n->right;
            stack[top++] = n->left;
        }
    }
}

// ---- distance -----------------------------------------------------------------------------------

// A sphere that a contact kept on one side of a mesh (`side`, its last normal, local) and whose
// centre is now just behind a face of the mesh turned that way has crossed the face (its
// neighbours pushed it through): its gap is measured to the side it came from, so the push takes
// it back there. The face must turn within 45 degrees of `side`, the centre project inside it and
// lie at most half a radius behind it (a body pressed against the underside of a parallel face, a
// lid, is a radius behind that and stays where it is). Returns whether the rule applies, with the
// gap and the face's normal.
static int crossed_face(const kyu_mesh *m, int t, vec3s p, float r, vec3s side, vec3s n, float *d,
                        vec3s *fn_out) {
    if (glms_vec3_dot(n, side) >= 0.0f) return 0;
    kyu_triangle tri = triangle_of(m, t);
    vec3s fn = face_normal(&tri);
    float len = glms_vec3_norm(fn);
    if (!(len > 0.0f)) return 0;
    fn = glms_vec3_scale(fn, (glms_vec3_dot(fn, side) < 0.0f ? -1.0f : 1.0f) / len);
    if (glms_vec3_dot(fn, side) < 0.70710678f || !projects_inside(m, t, p)) return 0;
    float behind = glms_vec3_dot(glms_vec3_sub(p, tri.a), fn);
    if (behind > 0.0f || behind < -0.5f * r) return 0;
    *d = behind - r;
    *fn_out = fn;
    return 1;
}

typedef struct dist_ctx {
    vec3s p, normal, side; // side: zero, or the side a kept contact holds the sphere on (crossed_face)
    float r, best;
    int best_tri;
    float cone; // > -1: only triangles met along a normal within acos(cone) of `side` (one plane)
} dist_ctx;

// Triangle t's gap to the sphere and its normal, measured to `side` if the sphere crossed it there.
static float triangle_gap(const kyu_mesh *m, int t, vec3s p, float r, vec3s side, vec3s *n) {
    kyu_triangle tri = triangle_of(m, t);
    float d = kyu_distance_sphere_triangle(p, r, &tri, n, NULL);
    if (d < 0.0f) crossed_face(m, t, p, r, side, *n, &d, n);
    return d;
}

static void dist_visit(const kyu_mesh *m, int t, void *arg) {
    dist_ctx *x = arg;
    vec3s n;
    float d = triangle_gap(m, t, x->p, x->r, x->side, &n);
    if (x->cone > -1.0f && glms_vec3_dot(n, x->side) < x->cone) return; // another plane's
    if (d < x->best || (d == x->best && t < x->best_tri)) x->best = d, x->best_tri = t, x->normal = n;
}

// Signed gap from a sphere (local centre p, radius r) to the shape, and the normal (local), for
// non-plane shapes. A mesh reports at most `range` (nothing nearer than that: the gap is at least it),
// and measures a face the sphere crossed to `side` (crossed_face; zero: none).
static float local_distance(const collider *c, vec3s p, float r, float range, vec3s side, float cone,
                            vec3s *n) {
    switch (c->type) {
    case KYU_SHAPE_BOX: {
        kyu_box b = c->box;
        b.center = glms_vec3_zero();
        b.rotation = glms_mat3_identity();
        return kyu_distance_sphere_box(p, r, &b, n, NULL);
    }
    case KYU_SHAPE_CAPSULE: {
        kyu_capsule cap = {c->cap_a, c->cap_b, c->cap_radius};
        return kyu_distance_sphere_capsule(p, r, &cap, n, NULL);
    }
    case KYU_SHAPE_HULL: {
        kyu_hull h = {c->hull_points, c->hull_count};
        return kyu_distance_sphere_hull(p, r, &h, n, NULL);
    }
    case KYU_SHAPE_MESH: {
        dist_ctx x = {p, cone > -1.0f ? side : (vec3s){{0.0f, 1.0f, 0.0f}}, side, r, range, -1, cone};
        aabb q;
        for (int k = 0; k < 3; k++) q.lo[k] = p.raw[k] - r - range, q.hi[k] = p.raw[k] + r + range;
        bvh_query(c->mesh, &q, dist_visit, &x);
        *n = x.normal;
        return x.best;
    }
    default:
        *n = (vec3s){{0.0f, 1.0f, 0.0f}};
        return 1e30f;
    }
}

static float sided_distance(const collider *c, vec3s center, vec3s p, float r, float range, vec3s side,
                            float cone, vec3s *normal) {
    if (c->type == KYU_SHAPE_BOX) { // boxes handle their rotation themselves (the public routine)
        kyu_box b = c->box;
        b.center = center;
        return kyu_distance_sphere_box(p, r, &b, normal, NULL);
    }
    vec3s n;
    float d = local_distance(c, to_local(c, center, p), r, range, dir_local(c, side), cone, &n);
    *normal = dir_world(c, n);
    return d;
}

float kyu_shape_distance(const collider *c, vec3s center, vec3s p, float r, float range, vec3s *normal) {
    return sided_distance(c, center, p, r, range, glms_vec3_zero(), -2.0f, normal);
}

// ---- sweep --------------------------------------------------------------------------------------

typedef struct sweep_ctx {
    vec3s q0, dq;
    float r;
    kyu_hit best;
    int best_tri;
} sweep_ctx;

static void sweep_visit(const kyu_mesh *m, int t, void *arg) {
    sweep_ctx *x = arg;
    kyu_triangle tri = triangle_of(m, t);
    kyu_hit h = kyu_sweep_sphere_triangle(x->q0, x->dq, x->r, &tri, glms_vec3_zero());
    if (!h.hit) return;
    if (!x->best.hit || h.t < x->best.t || (h.t == x->best.t && t < x->best_tri))
        x->best = h, x->best_tri = t;
}

static kyu_hit capsule_sweep(const collider *c, vec3s q0, vec3s dq, float r) {
    kyu_capsule cap = {c->cap_a, c->cap_b, c->cap_radius};
    return kyu_sweep_sphere_capsule(q0, dq, r, &cap, glms_vec3_zero());
}

// A sphere (centre q0, radius r) moving by dq against the shape standing at `center`: the first
// impact, normal and point in world space.
kyu_hit kyu_shape_sweep(const collider *c, vec3s center, vec3s q0, vec3s dq, float r) {
    if (c->type == KYU_SHAPE_BOX) {
        kyu_box b = c->box;
        b.center = center;
        return kyu_sweep_sphere_box(q0, dq, r, &b, glms_vec3_zero());
    }
    vec3s lq = to_local(c, center, q0), ld = dir_local(c, dq);
    kyu_hit h;
    memset(&h, 0, sizeof h);
    switch (c->type) {
    case KYU_SHAPE_BOX: {
        kyu_box b = c->box;
        b.center = glms_vec3_zero();
        b.rotation = glms_mat3_identity();
        h = kyu_sweep_sphere_box(lq, ld, r, &b, glms_vec3_zero());
        break;
    }
    case KYU_SHAPE_CAPSULE:
        h = capsule_sweep(c, lq, ld, r);
        break;
    case KYU_SHAPE_HULL: {
        kyu_hull hull = {c->hull_points, c->hull_count};
        h = kyu_sweep_sphere_hull(lq, ld, r, &hull, glms_vec3_zero());
        break;
    }
    case KYU_SHAPE_MESH: {
        sweep_ctx x;
        memset(&x, 0, sizeof x);
        x.q0 = lq, x.dq = ld, x.r = r, x.best_tri = -1;
        aabb q;
        vec3s q1 = glms_vec3_add(lq, ld);
        for (int k = 0; k < 3; k++)
            q.lo[k] = kyu_minf(lq.raw[k], q1.raw[k]) - r, q.hi[k] = kyu_maxf(lq.raw[k], q1.raw[k]) + r;
        bvh_query(c->mesh, &q, sweep_visit, &x);
        h = x.best;
        break;
    }
    default:
        return h;
    }
    if (h.hit) {
        h.normal = dir_world(c, h.normal);
        h.point = glms_vec3_add(center, dir_world(c, h.point));
    }
    return h;
}

// ---- bounds -------------------------------------------------------------------------------------

// The shape's bounds in its own frame.
void kyu_shape_local_bounds(const collider *c, aabb *b) {
    *b = kyu_box_empty();
    switch (c->type) {
    case KYU_SHAPE_BOX:
        for (int k = 0; k < 3; k++)
            b->lo[k] = -c->box.half_extents.raw[k], b->hi[k] = c->box.half_extents.raw[k];
        break;
    case KYU_SHAPE_CAPSULE:
        for (int k = 0; k < 3; k++) {
            b->lo[k] = kyu_minf(c->cap_a.raw[k], c->cap_b.raw[k]) - c->cap_radius;
            b->hi[k] = kyu_maxf(c->cap_a.raw[k], c->cap_b.raw[k]) + c->cap_radius;
        }
        break;
    case KYU_SHAPE_HULL:
        for (int i = 0; i < c->hull_count; i++)
            for (int k = 0; k < 3; k++)
                b->lo[k] = kyu_minf(b->lo[k], c->hull_points[i].raw[k]),
                b->hi[k] = kyu_maxf(b->hi[k], c->hull_points[i].raw[k]);
        break;
    case KYU_SHAPE_MESH:
        *b = c->mesh->nodes[0].box;
        break;
    default:
        break;
    }
}

// World bounds of the shape standing at `center` (the local box rotated: |R| times the extents).
void kyu_shape_world_bounds(const collider *c, vec3s center, aabb *out) {
    aabb l;
    kyu_shape_local_bounds(c, &l);
    vec3s mid = {{(l.lo[0] + l.hi[0]) * 0.5f, (l.lo[1] + l.hi[1]) * 0.5f, (l.lo[2] + l.hi[2]) * 0.5f}};
    vec3s wm = glms_vec3_add(center, dir_world(c, mid));
    for (int k = 0; k < 3; k++) {
        float e = 0.0f;
        for (int j = 0; j < 3; j++) e += fabsf(c->box.rotation.col[j].raw[k]) * (l.hi[j] - l.lo[j]) * 0.5f;
        out->lo[k] = wm.raw[k] - e;
        out->hi[k] = wm.raw[k] + e;
    }
}

// ---- meshes in the step: a mesh is many surfaces ------------------------------------------------

typedef struct mesh_next_ctx {
    vec3s q0, dv, da, chord;
    float r, S, dev, slop, threshold;
    float best_s, best_gap, best_approach;
    vec3s best_n;
    int best_tri, best_face;
    float face_s, face_gap, face_approach; // the earliest face contact `keep` keeps
    vec3s face_n;
    int face_tri, face_flags;
    const collider *c;
    kyu_mesh_keep_fn *keep;
    void *keep_ctx;
} mesh_next_ctx;

static vec3s path_at(const mesh_next_ctx *x, float s) {
    return glms_vec3_add(x->q0,
                         glms_vec3_add(glms_vec3_scale(x->dv, s), glms_vec3_scale(x->da, 0.5f * s * s)));
}

// One triangle's first contact along the path (same rules as engine/toi.c: a triangle it is
// leaving, or resting on slowly, does not count), kept if earliest.
static void mesh_next_visit(const kyu_mesh *m, int t, void *arg) {
    mesh_next_ctx *x = arg;
    kyu_triangle tri = triangle_of(m, t);
    vec3s n;
    float g = kyu_distance_sphere_triangle(x->q0, x->r, &tri, &n, NULL), s = 0.0f;
    int touching = g <= 0.0f;
    if (touching) { // touching: it presses now, later in the step as gravity brings it back, or never
        s = kyu_press_time(glms_vec3_dot(x->dv, n), glms_vec3_dot(x->da, n), x->S);
        if (s < 0.0f) return;
        if (s > 0.0f) kyu_distance_sphere_triangle(path_at(x, s), x->r, &tri, &n, NULL);
    } else {
        kyu_hit h = kyu_sweep_sphere_triangle(x->q0, x->chord, x->r + x->dev, &tri, glms_vec3_zero());
        if (!h.hit && !h.start_overlap) return;
        s = h.hit ? h.t * x->S : 0.0f;
        if (x->dev > 0.0f) { // a curved path: conservative advancement on this triangle
            float vmax = glms_vec3_norm(x->dv) + glms_vec3_norm(x->da) * x->S;
            int it = 0;
            for (float gs; it < 64 && (gs = kyu_distance_sphere_triangle(path_at(x, s), x->r, &tri, &n,
                                                                         NULL)) > 1e-6f + 1e-5f * x->r;
                 it++) {
                s += gs / vmax;
                if (s > x->S) return;
            }
        }
        kyu_distance_sphere_triangle(path_at(x, s), x->r, &tri, &n, NULL);
    }
    float approach = -glms_vec3_dot(glms_vec3_add(x->dv, glms_vec3_scale(x->da, s)), n);
    int pressing = glms_vec3_dot(x->da, n) < 0.0f, at_rest = 0; // acceleration pushes it into the face
    if (!touching && !(approach > 0.0f) && pressing) {
        // Met within the advancement's tolerance (a micrometre) at rest or rising slower than
        // gravity pulls it back: it presses now or when its parabola brings it back. (Taken for
        // leaving, a 1 mm bead an impact had left a micrometre above a mesh floor, at rest or
        // rising at 8 um/s, not held by a contact (it held a wall of the mesh), fell 1.4 radii
        // through the floor in the step.)
        float back = kyu_press_time(-approach, glms_vec3_dot(x->da, n), x->S - s);
        if (back < 0.0f) return;
        s += back;
        kyu_distance_sphere_triangle(path_at(x, s), x->r, &tri, &n, NULL);
        approach = -glms_vec3_dot(glms_vec3_add(x->dv, glms_vec3_scale(x->da, s)), n);
        touching = at_rest = 1; // it presses there (at rest on it: now)
    }
    if (!(approach > 0.0f) && !(touching && pressing)) return;         // leaving this triangle
    if (internal_contact(m, t, path_at(x, s), n)) return;              // a neighbour's face owns it
    if (g <= x->slop && approach <= x->threshold && !pressing) return; // resting on it: the solver's
    int face = (met_on_face(face_normal(&tri), n) ? KYU_MET_ON_FACE : 0) | (at_rest ? KYU_MET_AT_REST : 0);
    // An at-rest hit the rules let go is none (the relax holds it), as when it was taken for leaving.
    int kept = at_rest && x->keep ? x->keep(x->keep_ctx, s, dir_world(x->c, n), g, approach, face) : -1;
    if (kept == 0) return;
    if (x->keep && (face & KYU_MET_ON_FACE) &&
        (x->face_tri < 0 || s < x->face_s || (s == x->face_s && t < x->face_tri)) &&
        (kept == 1 || x->keep(x->keep_ctx, s, dir_world(x->c, n), g, approach, face)))
        x->face_s = s, x->face_n = n, x->face_gap = g, x->face_approach = approach, x->face_tri = t,
        x->face_flags = face;
    if (x->best_tri >= 0 && (s > x->best_s || (s == x->best_s && t > x->best_tri))) return;
    x->best_s = s, x->best_n = n, x->best_gap = g, x->best_approach = approach, x->best_tri = t,
    x->best_face = face;
}

// The next impact of a sphere with a mesh standing at `center`: relative path q0 + dv s + da s^2/2
// for s in [0, S]. Returns 0 for none; else the time s, the world normal, the gap now at that
// triangle, the closing speed and whether it is met on its face: of the earliest triangle, if
// `keep` (if given) counts it, or else of the earliest met on its face that `keep` counts. The
// triangle a body slides on, which the caller lets go, so does not hide the next facet of a curved
// mesh (1 mm beads poured into a faceted bowl went through it: 35 of 150). Contacts at an edge or
// a corner behind it are not offered: a marble rolling over fine facets meets such contacts of
// the triangles around the one it rolls on, and counting them made it hop (it came back to 5-50%
// of its height after a half swing, against 91%).
int kyu_mesh_next_contact(const collider *c, vec3s center, vec3s q0, vec3s dv, vec3s da, float r, float S,
                          float slop, float threshold, kyu_mesh_keep_fn *keep, void *keep_ctx, float *s,
                          vec3s *normal, float *gap, float *approach, int *face) {
    mesh_next_ctx x;
    memset(&x, 0, sizeof x);
    x.c = c, x.keep = keep, x.keep_ctx = keep_ctx;
    x.q0 = to_local(c, center, q0), x.dv = dir_local(c, dv), x.da = dir_local(c, da);
    x.chord = glms_vec3_add(glms_vec3_scale(x.dv, S), glms_vec3_scale(x.da, 0.5f * S * S));
    x.r = r, x.S = S, x.dev = 0.125f * glms_vec3_norm(x.da) * S * S;
    x.slop = slop, x.threshold = threshold, x.best_tri = -1, x.face_tri = -1;
    aabb q;
    vec3s q1 = glms_vec3_add(x.q0, x.chord);
    for (int k = 0; k < 3; k++) {
        q.lo[k] = kyu_minf(x.q0.raw[k], q1.raw[k]) - r - x.dev;
        q.hi[k] = kyu_maxf(x.q0.raw[k], q1.raw[k]) + r + x.dev;
    }
    bvh_query(c->mesh, &q, mesh_next_visit, &x);
    if (x.best_tri < 0) return 0;
    if (!x.keep || x.best_tri == x.face_tri ||
        x.keep(x.keep_ctx, x.best_s, dir_world(c, x.best_n), x.best_gap, x.best_approach, x.best_face)) {
        *s = x.best_s, *normal = dir_world(c, x.best_n), *gap = x.best_gap, *approach = x.best_approach;
        *face = x.best_face;
        return 1;
    }
    if (x.face_tri < 0) return 0; // the earliest was let go, and no face is met after it
    *s = x.face_s, *normal = dir_world(c, x.face_n), *gap = x.face_gap, *approach = x.face_approach;
    *face = x.face_flags;
    return 1;
}

typedef struct push_ctx {
    vec3s p, side;
    float r, slop;
} push_ctx;

static void push_visit(const kyu_mesh *m, int t, void *arg) {
    push_ctx *x = arg;
    kyu_triangle tri = triangle_of(m, t);
    vec3s n;
    float d = kyu_distance_sphere_triangle(x->p, x->r, &tri, &n, NULL);
    if (d < -x->slop &&
        (crossed_face(m, t, x->p, x->r, x->side, n, &d, &n) || !internal_contact(m, t, x->p, n)))
        x->p = glms_vec3_add(x->p, glms_vec3_scale(n, -d - x->slop));
}

// Escape from a mesh: out of every triangle the sphere overlaps beyond the slop (a corner has
// several), not just the nearest, each by the side the centre is on, or by `side` (the contact's
// last normal) for a face the sphere crossed (crossed_face). Returns the new centre.
vec3s kyu_mesh_push_out(const collider *c, vec3s center, vec3s p, float r, float slop, vec3s side) {
    push_ctx x = {to_local(c, center, p), dir_local(c, side), r, slop};
    aabb q;
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < 3; k++) q.lo[k] = x.p.raw[k] - r, q.hi[k] = x.p.raw[k] + r;
        bvh_query(c->mesh, &q, push_visit, &x);
    }
    return glms_vec3_add(center, dir_world(c, x.p));
}

// The push moves a body along a straight segment, unswept: a body its pairs push a radius or more
// in a step can cross a face of a mesh, and then the push-out above leaves by the wrong side. So
// every face whose plane the centre's segment p0 -> p1 crosses inside the triangle sends the body
// back in front of it by the side p0 was on, its slop deep; unless the body's contact holds it
// on the other side of that face (`held`, its last normal; NULL: no contact): then p0 was the
// crossed state and the push is taking it back.
typedef struct cross_ctx {
    vec3s p0, p1, held;
    int has_held;
    float r, slop;
} cross_ctx;

static void cross_visit(const kyu_mesh *m, int t, void *arg) {
    cross_ctx *x = arg;
    kyu_triangle tri = triangle_of(m, t);
    vec3s fn = face_normal(&tri);
    float len = glms_vec3_norm(fn);
    if (!(len > 0.0f)) return; // a degenerate triangle has no face
    fn = glms_vec3_scale(fn, 1.0f / len);
    float d0 = glms_vec3_dot(glms_vec3_sub(x->p0, tri.a), fn),
          d1 = glms_vec3_dot(glms_vec3_sub(x->p1, tri.a), fn);
    if (d0 < 0.0f) fn = glms_vec3_negate(fn), d0 = -d0, d1 = -d1; // fn toward p0's side
    if (!(d0 > 0.0f) || !(d1 < 0.0f)) return;                     // the centre stays on its side
    if (x->has_held && glms_vec3_dot(fn, x->held) < 0.0f) return;
    vec3s hit = glms_vec3_add(x->p0, glms_vec3_scale(glms_vec3_sub(x->p1, x->p0), d0 / (d0 - d1)));
    if (!projects_inside(m, t, hit)) return;
    x->p1 = glms_vec3_add(x->p1, glms_vec3_scale(fn, -d1 + kyu_maxf(x->r - x->slop, 0.0f)));
}

vec3s kyu_mesh_push_back(const collider *c, vec3s center, vec3s p0, vec3s p1, float r, float slop,
                         const vec3s *held) {
    cross_ctx x = {to_local(c, center, p0),
                   to_local(c, center, p1),
                   held ? dir_local(c, *held) : glms_vec3_zero(),
                   held != NULL,
                   r,
                   slop};
    for (int pass = 0; pass < 2; pass++) {
        aabb q;
        for (int k = 0; k < 3; k++) {
            float pad = 1e-6f * r;
            q.lo[k] = kyu_minf(x.p0.raw[k], x.p1.raw[k]) - pad,
            q.hi[k] = kyu_maxf(x.p0.raw[k], x.p1.raw[k]) + pad;
        }
        vec3s before = x.p1;
        bvh_query(c->mesh, &q, cross_visit, &x);
        if (glms_vec3_eqv(before, x.p1)) break;
    }
    return glms_vec3_add(center, dir_world(c, x.p1));
}

// ---- the step's questions to a collider of any shape ----------------------------------------------

// Signed distance from a sphere at p to the collider as it stands at time t of the step (a mesh
// reports at most the sphere's radius: nothing nearer means a gap at least that).
float kyu_collider_distance(const collider *c, vec3s p, float r, float t, float dt, vec3s *normal) {
    vec3s moved = glms_vec3_scale(c->velocity, t * dt);
    if (c->type == KYU_SHAPE_PLANE) {
        *normal = c->normal;
        return glms_vec3_dot(c->normal, p) - c->offset - glms_vec3_dot(c->normal, moved) - r;
    }
    return kyu_shape_distance(c, glms_vec3_add(c->box.center, moved), p, r, r, normal);
}

// The same at the start of the step for a contact whose last normal was `side` (zero: none): a mesh
// measures a face the sphere crossed to that side (crossed_face), and a contact that is one of a
// mesh's planes (`plane`) only the triangles of that plane (within KYU_PLANE_COS of `side`: the
// nearest may be another plane's); without any, the gap is the radius.
float kyu_collider_distance_from(const collider *c, vec3s p, float r, vec3s side, int plane, float dt,
                                 vec3s *normal) {
    if (c->type != KYU_SHAPE_MESH) return kyu_collider_distance(c, p, r, 0.0f, dt, normal);
    return sided_distance(c, c->box.center, p, r, r, side, plane ? KYU_PLANE_COS : -2.0f, normal);
}

// ---- the planes of a mesh a sphere touches ---------------------------------------------------------

// A triangle within reach of the sphere (gap under r), as the one query finds them.
typedef struct plane_candidate {
    float d;
    int t;
    vec3s n;
} plane_candidate;
#define PLANE_CANDIDATES 32 // more (a fine mesh): a query for each plane instead

typedef struct planes_ctx {
    vec3s p;
    float r, keep;
    const vec3s *sides; // local: the normals of the pair's contacts last step (crossed_face)
    int side_count;
    const vec3s *taken; // local: the planes found so far
    int taken_count;
    float best;
    int best_tri;
    vec3s normal;
    plane_candidate cand[PLANE_CANDIDATES];
    int cand_count, overflow;
} planes_ctx;

// Triangle t's gap, measured to the side of any of last step's contacts the sphere crossed it to.
static float planes_gap(const kyu_mesh *m, int t, const planes_ctx *x, vec3s *n) {
    float d = triangle_gap(m, t, x->p, x->r, glms_vec3_zero(), n);
    for (int k = 0; k < x->side_count && d < 0.0f; k++)
        if (crossed_face(m, t, x->p, x->r, x->sides[k], *n, &d, n)) break;
    return d;
}

// Triangle t (gap d, normal n) as the nearest so far on none of the planes found: not an edge or
// corner contact that belongs to a neighbour's face (internal_contact), nor along a normal within
// KYU_PLANE_COS of a plane found.
static void consider_plane(const kyu_mesh *m, planes_ctx *x, int t, float d, vec3s n) {
    if (!(d < x->best || (d == x->best && t < x->best_tri))) return;
    if (x->taken_count > 0 && (!(d < x->keep) || internal_contact(m, t, x->p, n))) return;
    for (int k = 0; k < x->taken_count; k++)
        if (glms_vec3_dot(n, x->taken[k]) >= KYU_PLANE_COS) return;
    x->best = d, x->best_tri = t, x->normal = n;
}

static void planes_visit(const kyu_mesh *m, int t, void *arg) {
    planes_ctx *x = arg;
    vec3s n;
    float d = planes_gap(m, t, x, &n);
    consider_plane(m, x, t, d, n);
}

// The triangles within reach, each measured once for all the planes.
static void collect_visit(const kyu_mesh *m, int t, void *arg) {
    planes_ctx *x = arg;
    vec3s n;
    float d = planes_gap(m, t, x, &n);
    if (!(d < x->r)) return; // (no plane is as far)
    if (x->cand_count == PLANE_CANDIDATES) {
        x->overflow = 1;
        return;
    }
    x->cand[x->cand_count++] = (plane_candidate){d, t, n};
}

int kyu_mesh_planes(const collider *c, vec3s p, float r, float keep, const vec3s *sides, int side_count,
                    kyu_mesh_plane *out) {
    vec3s side_local[KYU_MESH_PLANES], taken[KYU_MESH_PLANES];
    if (side_count > KYU_MESH_PLANES) side_count = KYU_MESH_PLANES;
    for (int k = 0; k < side_count; k++) side_local[k] = dir_local(c, sides[k]);
    planes_ctx x = {.p = to_local(c, c->box.center, p),
                    .r = r,
                    .keep = keep,
                    .sides = side_local,
                    .side_count = side_count,
                    .taken = taken};
    aabb q;
    for (int k = 0; k < 3; k++) q.lo[k] = x.p.raw[k] - 2.0f * r, q.hi[k] = x.p.raw[k] + 2.0f * r;
    bvh_query(c->mesh, &q, collect_visit, &x);
    int n = 0;
    while (n < KYU_MESH_PLANES) {
        x.best = r, x.best_tri = -1, x.normal = (vec3s){{0.0f, 1.0f, 0.0f}};
        if (x.overflow)
            bvh_query(c->mesh, &q, planes_visit, &x);
        else
            for (int k = 0; k < x.cand_count; k++)
                consider_plane(c->mesh, &x, x.cand[k].t, x.cand[k].d, x.cand[k].n);
        if (n > 0 && x.best_tri < 0) break;
        out[n].normal = dir_world(c, x.normal);
        out[n].gap = x.best;
        taken[x.taken_count++] = x.normal;
        n++;
        if (!(x.best < keep)) break; // nothing else is nearer than the margin
    }
    return n;
}
