// SPDX-License-Identifier: MIT
// Private to the engine: the colliders' module (collider.c, shape.c, spin.c): static and
// kinematic shapes by index, their geometry in their own frame, and how their surfaces move.
#ifndef KYU_COLLIDERS_H
#define KYU_COLLIDERS_H

#include "common.h"

// A triangle mesh in its collider's frame, with a bounding volume hierarchy (engine/shape.c).
typedef struct bvh_node {
    aabb box;
    int first, count; // a leaf: triangles order[first .. first + count); first < 0: an inner node
    int left, right;
} bvh_node;

// What kyu_bvh_build (shape.c) builds a hierarchy over: items by index, each with a box and a key
// along an axis (the median splits sort by it), and room for 2 n nodes and n keys.
typedef struct kyu_bvh_build_ctx {
    bvh_node *nodes;
    int count; // nodes made so far
    int32_t *order;
    kyu_keyed *scratch;
    const void *items;
    aabb (*box)(const void *items, int32_t i);
    float (*key)(const void *items, int32_t i, int axis);
} kyu_bvh_build_ctx;

typedef struct kyu_mesh {
    vec3s *verts;
    int32_t *tris;   // 3 per triangle
    int32_t *across; // 3 per triangle: the triangle across edge k (corners k, k+1), or -1
    int32_t *order;
    bvh_node *nodes;
    int vert_count, tri_count;
} kyu_mesh;

typedef struct collider {
    kyu_shape_type type;
    kyu_motion motion;
    kyu_box box;        // the frame of every shape (centre, rotation); half extents for a box
    versors rotation;   // as the user gave it: box.rotation is made from it (kyu_collider_place)
    vec3s cap_a, cap_b; // capsule, in the collider's frame
    float cap_radius;
    vec3s *hull_points; // hull, in the collider's frame (owned)
    int hull_count;
    kyu_mesh *mesh; // mesh (owned)
    vec3s normal;   // plane
    float offset;   // plane: normal . x = offset (normal . box.center)
    vec3s velocity;
    vec3s angular_velocity; // kinematic: it turns about box.center (the pose turns at the step's end)
    vec3s surface_velocity; // its surface slides at this (tangential part only): a conveyor belt
    float restitution, friction, rolling;
    uint32_t material;
    void *user;
    uint32_t category, mask;
    uint32_t generation;
    uint8_t alive;
    uint8_t in_tree; // the tree (collider_tree) holds it, with bounds tree_box
    aabb bounds;     // box: swept over this step (planes are unbounded)
    aabb tree_box;
} collider;

// The static colliders other than planes, in a bounding volume hierarchy over their bounds, so a
// body asks only those near it (collider_tree.c): a level of thousands of boxes or pegs. Built
// when their set or bounds changed; planes and kinematic colliders are asked every time (`others`).
typedef struct collider_tree {
    bvh_node *nodes;
    int node_cap;
    int32_t *order; // the colliders in the leaves
    int order_cap;
    int32_t *others; // alive planes and kinematic colliders, by index
    int other_count, other_cap;
    int built; // 0: too few colliders, or its room could not be had: every collider is asked
} collider_tree;

// The colliders whose bounds meet a box, in index order (kyu_colliders_near, kyu_colliders_next).
enum { KYU_NEAR_COLLIDERS = 48 };
typedef struct kyu_collider_near {
    int32_t index[KYU_NEAR_COLLIDERS];
    int count; // -1: every collider is asked (no tree, or more than fit met the box)
    int next;
    aabb box;
} kyu_collider_near;

// Colliders, by index (collider.c); removed ones go on a free list.
typedef struct collider_store {
    collider *list;
    int cap, high, count;
    int *free_slots;
    int free_count;
    int *limbo; // removed since the last step: reused only after the step's start (as bodies' slots)
    int limbo_count;
    collider_tree tree;
} collider_store;

// The generation of the collider in index i that contacts name (kyu_body_named_generation).
static inline uint32_t kyu_collider_named_generation(const collider_store *s, uint32_t i) {
    return s->list[i].alive ? s->list[i].generation : s->list[i].generation - 1;
}

// collider.c
kyu_status kyu_collider_def_validate(kyu_world *w, const kyu_collider_def *d);
void kyu_colliders_release_limbo(collider_store *s); // the indices in limbo join the free list
void kyu_collider_place(collider *c, vec3s position, versors rotation);
void kyu_colliders_advance(kyu_world *w);
void kyu_colliders_free(collider_store *c);

// collider_tree.c: the bounds and the tree over them (valid from kyu_colliders_update_bounds until
// a collider is made, removed or moved, or a step ends). With fewer static
// colliders than kyu_collider_tree_min (KYU_COLLIDER_TREE_MIN; a test changes it) there is no tree.
#define KYU_COLLIDER_TREE_MIN 16
extern int kyu_collider_tree_min;
void kyu_colliders_update_bounds(kyu_world *w);
void kyu_collider_tree_free(collider_tree *t);
int kyu_collider_touches_box(const collider *c, const aabb *box);
void kyu_colliders_near(const collider_store *s, const aabb *box, kyu_collider_near *it);
int kyu_colliders_next(const collider_store *s, kyu_collider_near *it);

// shape.c: every shape but the plane, solved in the collider's frame
float kyu_collider_distance(const collider *c, vec3s p, float r, float t, float dt, vec3s *normal);
float kyu_collider_distance_from(const collider *c, vec3s p, float r, vec3s side, int plane, float dt,
                                 vec3s *normal);
// A mesh gives a sphere one contact for each plane of it that the sphere touches (a bead in a box's
// corner: the floor and two walls), where one contact, the nearest triangle, let the bead's
// neighbours push it through the others every step. Triangles met along normals within
// KYU_PLANE_COS (26 degrees) are one plane: the facets of a bowl give one contact, as before.
#define KYU_MESH_PLANES 3
#define KYU_PLANE_COS   0.9f
typedef struct kyu_mesh_plane {
    vec3s normal; // from the mesh to the sphere
    float gap;
} kyu_mesh_plane;
// The planes of mesh c that a sphere (centre p, radius r) meets, nearest first, at most
// KYU_MESH_PLANES: the first is the nearest triangle whatever its gap (up to r), so it is always
// there; the others are nearer than `keep`. `sides`: the normals of the pair's contacts last step (a sphere
// pushed through a face is measured to the side it came from, as kyu_collider_distance_from does). Returns
// how many.
int kyu_mesh_planes(const collider *c, vec3s p, float r, float keep, const vec3s *sides, int side_count,
                    kyu_mesh_plane *out);
kyu_mesh *kyu_mesh_create(const vec3s *verts, int nv, const int32_t *tris, int nt);
int kyu_bvh_build(kyu_bvh_build_ctx *t, int first, int count);
void kyu_mesh_destroy(kyu_mesh *m);
float kyu_shape_distance(const collider *c, vec3s center, vec3s p, float r, float range, vec3s *normal);
kyu_hit kyu_shape_sweep(const collider *c, vec3s center, vec3s q0, vec3s dq, float r);
void kyu_shape_local_bounds(const collider *c, aabb *b);
void kyu_shape_world_bounds(const collider *c, vec3s center, aabb *out);
// Whether a triangle's contact (at path time s, the world normal, the gap now, the closing speed,
// met on the triangle's face or not) is one the caller counts (kyu_mesh_next_contact).
typedef int kyu_mesh_keep_fn(void *ctx, float s, vec3s normal, float gap, float approach, int face);
int kyu_mesh_next_contact(const collider *c, vec3s center, vec3s q0, vec3s dv, vec3s da, float r, float S,
                          float slop, float threshold, kyu_mesh_keep_fn *keep, void *keep_ctx, float *s,
                          vec3s *normal, float *gap, float *approach, int *face);
vec3s kyu_mesh_push_out(const collider *c, vec3s center, vec3s p, float r, float slop, vec3s side);
vec3s kyu_mesh_push_back(const collider *c, vec3s center, vec3s p0, vec3s p1, float r, float slop,
                         const vec3s *held);

// spin.c
versors kyu_quat_turn(versors q, vec3s angular_velocity, float seconds); // turned, unit
versors kyu_quat_unit(versors q);
vec3s kyu_collider_point_velocity(const collider *c, vec3s p, vec3s n);
int kyu_collider_spins(const collider *c);

#endif
