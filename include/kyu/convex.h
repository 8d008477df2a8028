// SPDX-License-Identifier: MIT
/// @file convex.h
/// Convex shapes (include it through kyu/geometry.h): support functions, GJK closest points, EPA
/// penetration, SAT for boxes and hulls (with Gauss-map pruning of edge pairs), hull building, and
/// the sphere-vs-hull distance and sweep.
///
/// Conventions (those of geometry.h): a normal is unit and points from the second shape (B) to the
/// first (A); a signed distance is the gap when apart and minus the penetration depth when
/// overlapping; touching is distance 0. Inputs and outputs are float, the algorithms run in double.
///
/// Every convex shape here is a polytope "core" (a point, a segment, a box, a point cloud) grown by
/// a radius: a sphere is a point grown by r, a capsule a segment grown by r. GJK and EPA work on the
/// cores and add the radii at the end, which is exact (the Minkowski difference of two grown cores
/// is the difference of the cores grown by ra + rb) and lets EPA converge on flat faces only.
#ifndef KYU_CONVEX_H
#define KYU_CONVEX_H

#include "geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

// ---- support functions --------------------------------------------------------------------------

/// The point of the sphere farthest along `dir` (dir need not be unit; a zero dir gives the centre
/// plus r along +y, any point of the surface being a support point then).
KYU_API vec3s kyu_support_sphere(vec3s center, float radius, vec3s dir);

/// The corner of the box farthest along `dir` (ties go to the + side of each axis).
KYU_API vec3s kyu_support_box(const kyu_box *box, vec3s dir);

/// The point of the capsule farthest along `dir`: the farther end (a on ties) plus radius * dir/|dir|.
KYU_API vec3s kyu_support_capsule(const kyu_capsule *capsule, vec3s dir);

/// The vertex of the hull farthest along `dir` (the first one on ties). O(count).
KYU_API vec3s kyu_support_hull(const kyu_hull *hull, vec3s dir);

// ---- generic convex shapes ----------------------------------------------------------------------

/// What the core of a kyu_convex is.
typedef enum kyu_convex_type {
    KYU_CONVEX_POINT,    ///< `point` (a sphere when radius > 0)
    KYU_CONVEX_SEGMENT,  ///< `segment` (a capsule when radius > 0)
    KYU_CONVEX_BOX,      ///< `box`
    KYU_CONVEX_HULL,     ///< `hull` (any non-empty point cloud: flat or collinear ones work too)
    KYU_CONVEX_CALLBACK, ///< `support(user, dir)`: any convex set (EPA is then approximate, see below)
} kyu_convex_type;

/// The core of a KYU_CONVEX_CALLBACK shape: a support function and its user pointer. (A named type,
/// not a struct declared inside kyu_convex's anonymous union, which C++ accepts only as an extension.)
typedef struct kyu_convex_callback {
    vec3s (*support)(const void *user, vec3s dir); ///< farthest point along dir (not unit)
    const void *user;                              ///< passed to `support`
} kyu_convex_callback;

/// A convex shape for GJK / EPA: a core (see kyu_convex_type) grown by `radius` (>= 0).
/// Plain data; build it with the kyu_convex_* helpers or fill it in. A hull's points are borrowed.
typedef struct kyu_convex {
    kyu_convex_type type; ///< which member of the union is the core
    float radius;         ///< the core is grown by this (>= 0; a sphere is a point grown by its radius)
    union {
        vec3s point;
        kyu_segment segment;
        kyu_box box;
        kyu_hull hull;
        kyu_convex_callback callback;
    };
} kyu_convex;

/// A sphere: the point `center` grown by `radius`.
KYU_API kyu_convex kyu_convex_sphere(vec3s center, float radius);
/// A capsule: its segment grown by its radius.
KYU_API kyu_convex kyu_convex_capsule(const kyu_capsule *capsule);
/// An oriented box (radius 0).
KYU_API kyu_convex kyu_convex_box(const kyu_box *box);
/// A hull (its point array is borrowed, not copied), optionally rounded by `radius`.
KYU_API kyu_convex kyu_convex_hull(const kyu_hull *hull, float radius);

/// The point of the whole shape (core grown by radius) farthest along dir.
KYU_API vec3s kyu_convex_support(const kyu_convex *shape, vec3s dir);

// ---- GJK and EPA --------------------------------------------------------------------------------

/// Closest distance between A and B by GJK. Returns the gap (>= 0; 0 when touching or overlapping).
/// `point_a`, `point_b` (may be NULL): the closest points on A and on B; when overlapping, both are
/// a point common to the cores. `normal` (may be NULL): unit from B to A when apart, else (0, 1, 0).
/// Terminates on: no progress of the support (relative 1e-12 in double), a repeated support point,
/// the origin enclosed, or 64 iterations; degenerate (flat, collinear) simplices are reduced, not
/// divided by.
KYU_API float kyu_convex_distance(const kyu_convex *a, const kyu_convex *b, vec3s *point_a, vec3s *point_b,
                                  vec3s *normal);

/// Signed distance, normal and contact point of A and B: GJK when apart, EPA on the cores when they
/// overlap (then the depth is the core depth plus both radii). `point` is on B's surface (the
/// deepest point of B inside A when overlapping, the closest point of B when apart), `normal` is the
/// direction to move A by -distance to just touch. When the cores' Minkowski difference is flat
/// (parallel segments, a point in a flat hull) the core depth is 0 and the normal is the flat's.
/// With KYU_CONVEX_CALLBACK shapes that are curved, EPA stops after 64 expansions: approximate.
KYU_API kyu_contact kyu_convex_contact(const kyu_convex *a, const kyu_convex *b);

// ---- sphere vs hull -----------------------------------------------------------------------------

/// Signed distance from the sphere surface to the hull (negative = penetration). `normal` (may be
/// NULL) is unit from the hull to the sphere centre; for a centre inside, the outward normal of the
/// face of least penetration. `point` (may be NULL) is the closest point on the hull's surface
/// (for a centre inside, its projection on that face). A centre on the surface gives the face's
/// normal. Flat or collinear hulls work (a centre on a flat hull is distance -r, normal the flat's).
KYU_API float kyu_distance_sphere_hull(vec3s center, float radius, const kyu_hull *hull, vec3s *normal,
                                       vec3s *point);

/// First time of impact in [0, 1] of a sphere (centre c0, radius r) moving by d against a hull
/// moving by hull_d (no rotation); the conventions of kyu_sweep_sphere_box: start_overlap when the
/// sphere touches or overlaps at t = 0 (a hit at t = 0 unless moving out along the normal), point on
/// the hull at time t, normal from the hull to the sphere. Conservative advancement with the GJK
/// normal: each step goes to the supporting plane of the hull grown by r, which the path cannot
/// cross before touching; it converges to ~1e-7 of the sweep (grazing paths, whose time of impact
/// is ill-conditioned, less).
KYU_API kyu_hit kyu_sweep_sphere_hull(vec3s c0, vec3s d, float r, const kyu_hull *hull, vec3s hull_d);

// ---- hull building ------------------------------------------------------------------------------

/// A face of a built hull: the plane (outward unit normal, n.x <= offset inside) and its vertices,
/// counter-clockwise seen from outside, as `count` indices from `first` in kyu_hull_data.face_vertices.
typedef struct kyu_hull_face {
    vec3s normal; ///< outward, unit
    float offset; ///< n.x <= offset inside
    int first;    ///< the face's first index in kyu_hull_data.face_vertices
    int count;    ///< how many indices the face has there
} kyu_hull_face;

/// An edge of a built hull: its vertices and the two faces that meet there (face 0 sees a -> b
/// counter-clockwise).
typedef struct kyu_hull_edge {
    int a;     ///< a vertex index
    int b;     ///< the other vertex index
    int face0; ///< the face that sees a -> b counter-clockwise
    int face1; ///< the face on the other side
} kyu_hull_edge;

/// A built convex hull (owns its arrays; free with kyu_hull_free). Vertices are the extreme input
/// points (copied); coplanar triangles are merged into polygon faces and points in the middle of a
/// face or an edge are dropped, so a cube from 1000 points on its surface has 8 vertices, 6 faces
/// and 12 edges. V - E + F = 2.
typedef struct kyu_hull_data {
    vec3s *vertices;      ///< the extreme input points
    int vertex_count;     ///< length of `vertices`
    kyu_hull_face *faces; ///< the polygon faces
    int face_count;       ///< length of `faces`
    int *face_vertices;   ///< every face's vertex indices, one face after another
    kyu_hull_edge *edges; ///< each edge once
    int edge_count;       ///< length of `edges`
    vec3s centroid;       ///< the mean of the vertices (inside the hull)
} kyu_hull_data;

/// Result codes of kyu_hull_build.
enum {
    KYU_HULL_OK = 0,
    KYU_HULL_TOO_FEW = -1, ///< fewer than 4 distinct points, or a NULL/negative input
    KYU_HULL_FLAT = -2,    ///< all points (nearly) on a line or a plane: no volume
    KYU_HULL_NO_MEMORY = -3,
    KYU_HULL_FAILED = -4, ///< numerical failure (not seen in tests; reported, never a bad hull)
};

/// Builds the convex hull of a point cloud (incremental, in double, with a tolerance of 1e-6 of the
/// cloud's size: duplicate points and points within it of a face are absorbed). The one routine of
/// the geometry library that allocates (through the hooks of kyu_set_allocator; release with
/// kyu_hull_free). A flat cloud is rejected with KYU_HULL_FLAT rather than built as a two-sided
/// polygon: a collider needs a volume to have an inside; a flat or collinear point set can still be
/// used as a kyu_hull with GJK, kyu_distance_sphere_hull and kyu_sweep_sphere_hull, which need only
/// the points.
/// On failure `out` is zeroed. Returns KYU_HULL_OK or a negative code.
KYU_API int kyu_hull_build(const vec3s *points, int count, kyu_hull_data *out);

/// Frees what kyu_hull_build allocated and zeroes the struct (safe on a zeroed one).
KYU_API void kyu_hull_free(kyu_hull_data *hull);

/// The built hull as a point cloud for the point-based routines (borrows the vertex array).
KYU_API kyu_hull kyu_hull_view(const kyu_hull_data *hull);

// ---- SAT ----------------------------------------------------------------------------------------

/// Which candidate axis SAT picked.
typedef enum kyu_sat_feature {
    KYU_SAT_FACE_A, ///< a face normal of A
    KYU_SAT_FACE_B, ///< a face normal of B
    KYU_SAT_EDGES,  ///< the cross product of an edge of A and an edge of B
} kyu_sat_feature;

/// The axis of largest separation among the SAT candidates.
typedef struct kyu_sat_result {
    float separation;        ///< > 0: apart (a lower bound of the gap); <= 0: minus the penetration depth
    vec3s normal;            ///< unit, from B to A
    vec3s point;             ///< on B: the deepest point of B along the axis (or of the edge of B)
    kyu_sat_feature feature; ///< the kind of axis: a face of A or of B, or an edge pair
    int index_a;             ///< face or edge index in A (-1 when not used)
    int index_b;             ///< face or edge index in B (-1 when not used)
    int edge_pairs_tested;   ///< edge pairs left after Gauss-map pruning (all pairs: ea * eb)
} kyu_sat_result;

/// SAT of two built hulls (in the same frame): face normals of A and of B, and the cross products of
/// the edge pairs whose Gauss-map arcs cross (A's arc against B's negated one: only those form a face
/// of the Minkowski difference; the others cannot be the axis of least penetration). Edge axes must
/// beat face axes by 1e-6 of the size to be picked, so a resting face contact keeps its normal.
KYU_API kyu_sat_result kyu_sat_hull_hull(const kyu_hull_data *a, const kyu_hull_data *b);

/// Contact of two built hulls: SAT when they overlap (or touch), the exact GJK gap when apart.
KYU_API kyu_contact kyu_contact_hull_hull(const kyu_hull_data *a, const kyu_hull_data *b);

/// Contact of two oriented boxes: SAT on the 15 axes (3 + 3 face normals, 9 edge cross products,
/// near-parallel edge pairs skipped) when they overlap or touch, the exact GJK gap when apart. The
/// point is on B: for a face axis, the deepest vertex of B (the mean of the vertices tied within
/// 1e-6 of the size, so a face resting on a face gives the middle of the overlap's B face) or the
/// deepest vertex of A projected on B's face; for an edge axis, the closest point of B's edge.
KYU_API kyu_contact kyu_contact_box_box(const kyu_box *a, const kyu_box *b);

#ifdef __cplusplus
}
#endif
#endif
