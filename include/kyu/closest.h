// SPDX-License-Identifier: MIT
/// @file closest.h
/// Closest points, distances and contacts between points, lines, segments, triangles, boxes,
/// spheres and capsules (include it through kyu/geometry.h).
///
/// Conventions, the same in every function here:
/// - Inputs and outputs are float; the work is done in double, in which float inputs are exact, so a
///   result is the exact answer rounded once to float (plus ~1e-15 of the coordinates involved).
/// - A distance between a point or segment and a shape is >= 0 (0 when touching or inside), except
///   the point-box ones, which are signed (negative inside).
/// - A signed distance between solids (spheres, capsules, a sphere and a box or a triangle) is the
///   gap when apart, 0 when touching, and minus the penetration depth when overlapping.
/// - `normal` is unit and points from the second shape (B) to the first (A); `point` lies on B's
///   surface (for a triangle or a segment, on the shape itself). Out parameters may be NULL.
/// - When the separation has no direction (coincident centres, a centre on a capsule's axis or on a
///   triangle), the normal is still unit and deterministic, never NaN: up (0, 1, 0) between points,
///   a perpendicular to a segment (the one nearest to up), the face normal of a triangle (the side
///   of (b - a) x (c - a)).
/// - Degenerate shapes are handled, not rejected: a zero-length segment or capsule is a point or a
///   sphere; a triangle with collinear or equal corners is the segment or point it spans (slivers
///   thinner than ~1e-8 of their longest edge count as degenerate).
#ifndef KYU_CLOSEST_H
#define KYU_CLOSEST_H

#include "geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

// ---- Points ------------------------------------------------------------------------------------

/// Distance from p to the infinite line through `origin` along `direction` (any length; a zero
/// direction makes the line the point `origin`). `closest` (may be NULL): the foot on the line.
KYU_API float kyu_distance_point_line(vec3s p, vec3s origin, vec3s direction, vec3s *closest);

/// The point of segment s closest to p (s->a for a zero-length segment).
KYU_API vec3s kyu_closest_point_segment(const kyu_segment *s, vec3s p);

/// Distance from p to segment s; `closest` (may be NULL) as kyu_closest_point_segment.
KYU_API float kyu_distance_point_segment(vec3s p, const kyu_segment *s, vec3s *closest);

/// The point of triangle t closest to p, by exact Voronoi regions (correct for obtuse triangles);
/// a degenerate triangle is the segment or point it spans.
KYU_API vec3s kyu_closest_point_triangle(const kyu_triangle *t, vec3s p);

/// Distance from p to triangle t (two-sided, no thickness); `closest` (may be NULL) as
/// kyu_closest_point_triangle.
KYU_API float kyu_distance_point_triangle(vec3s p, const kyu_triangle *t, vec3s *closest);

/// The point of the box closest to p (p itself when inside). The box must have lower <= upper.
KYU_API vec3s kyu_closest_point_aabb(const kyu_aabb *box, vec3s p);

/// Signed distance from p to the box surface: the gap outside, 0 on the surface, minus the depth
/// to the nearest face inside. `normal`: unit, outward from the box towards p (inside: the face of
/// least depth, lowest axis first on ties, the upper face of an axis when p is halfway). `point`:
/// the nearest point of the surface.
KYU_API float kyu_distance_point_aabb(vec3s p, const kyu_aabb *box, vec3s *normal, vec3s *point);

/// Signed distance from p to an oriented box, as kyu_distance_point_aabb (it is
/// kyu_distance_sphere_box with radius 0; the rotation is inverted by its transpose).
KYU_API float kyu_distance_point_box(vec3s p, const kyu_box *box, vec3s *normal, vec3s *point);

// ---- Segments ----------------------------------------------------------------------------------

/// Closest points p1 on s1 and p2 on s2 (either may be NULL). Parallel, overlapping and
/// zero-length segments are handled: when the closest pair is not unique (parallel overlap), one
/// optimal pair is returned, always the same for the same input. Nearly parallel segments keep full
/// precision (the lines' stationary point is solved through their common normal, not the textbook
/// 2x2 rule that cancels there, and the endpoint cases are always candidates).
KYU_API void kyu_closest_points_segments(const kyu_segment *s1, const kyu_segment *s2, vec3s *p1, vec3s *p2);

/// Distance between two segments; p1, p2 (may be NULL) as kyu_closest_points_segments.
KYU_API float kyu_distance_segment_segment(const kyu_segment *s1, const kyu_segment *s2, vec3s *p1,
                                           vec3s *p2);

/// Distance between segment s and triangle t (0 when they cross or touch); `on_segment` and
/// `on_triangle` (may be NULL) receive a closest pair (the crossing point, twice, when they cross).
KYU_API float kyu_distance_segment_triangle(const kyu_segment *s, const kyu_triangle *t, vec3s *on_segment,
                                            vec3s *on_triangle);

// ---- Solids: signed distances (A is the first shape, B the second) ------------------------------

/// Signed distance between sphere A (ca, ra) and sphere B (cb, rb): |ca - cb| - ra - rb. `normal`
/// from B to A (up for coincident centres), `point` on B's surface.
KYU_API float kyu_distance_sphere_sphere(vec3s ca, float ra, vec3s cb, float rb, vec3s *normal, vec3s *point);

/// Signed distance from the sphere's surface to the capsule's (negative = penetration). `normal`:
/// unit from the capsule to the sphere centre (for a centre on the axis, the perpendicular nearest
/// to up; for a zero-length capsule with the same centre, up). `point`: on the capsule's surface.
KYU_API float kyu_distance_sphere_capsule(vec3s center, float radius, const kyu_capsule *capsule,
                                          vec3s *normal, vec3s *point);

/// Signed distance between capsules A and B. `normal` from B to A; when the axes touch or cross,
/// the normal of both axes (oriented from B's middle to A's), or a perpendicular to a parallel
/// axis, or up for two points. `point`: on B's surface.
KYU_API float kyu_distance_capsule_capsule(const kyu_capsule *a, const kyu_capsule *b, vec3s *normal,
                                           vec3s *point);

/// Signed distance from the sphere's surface to the triangle (two-sided, no thickness). `normal`:
/// unit from the triangle to the centre; for a centre on the triangle, the face normal (the side of
/// (b - a) x (c - a)); for a degenerate triangle, as for the segment or point it spans. `point`: the
/// closest point of the triangle.
KYU_API float kyu_distance_sphere_triangle(vec3s center, float radius, const kyu_triangle *triangle,
                                           vec3s *normal, vec3s *point);

// Sphere against oriented box: kyu_distance_sphere_box in geometry.h.

// ---- Contacts (kyu_contact: point on B, normal from B to A, signed distance) -------------------
// Always filled, also when apart (distance > 0 is then the gap): a caller tests distance <= 0.

/// Sphere A (ca, ra) against sphere B (cb, rb).
KYU_API kyu_contact kyu_contact_sphere_sphere(vec3s ca, float ra, vec3s cb, float rb);

/// Sphere A against capsule B (as kyu_distance_sphere_capsule).
KYU_API kyu_contact kyu_contact_sphere_capsule(vec3s center, float radius, const kyu_capsule *capsule);

/// Sphere A against oriented box B (as kyu_distance_sphere_box: a centre inside leaves through the
/// face of least penetration).
KYU_API kyu_contact kyu_contact_sphere_box(vec3s center, float radius, const kyu_box *box);

/// Sphere A against triangle B (as kyu_distance_sphere_triangle).
KYU_API kyu_contact kyu_contact_sphere_triangle(vec3s center, float radius, const kyu_triangle *triangle);

/// Capsule A against capsule B (as kyu_distance_capsule_capsule).
KYU_API kyu_contact kyu_contact_capsule_capsule(const kyu_capsule *a, const kyu_capsule *b);

#ifdef __cplusplus
}
#endif
#endif
