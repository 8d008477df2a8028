// SPDX-License-Identifier: MIT
/// @file intersect.h
/// Intersection tests between primitives (docs/design.md, "Primitive tests and distances"). Part of kyu's
/// pure geometry: include it through kyu/geometry.h.
///
/// Conventions, the same in every function here:
/// - Every shape is a closed solid (a sphere, box, cylinder, capsule or cone includes its surface);
///   a triangle is a closed two-sided surface patch. Touching counts as intersecting.
/// - A ray is origin + t dir with t >= 0 (dir need not be unit: t is in units of dir); a segment
///   is a + t (b - a) with t in [0, 1]. `t` receives the first parameter at which the ray or
///   segment is in the other shape.
/// - Starting inside (or on the surface of) a solid is a hit at t = 0; where a normal is returned
///   it is then the zero vector (there is no entry face).
/// - A zero-length ray or segment is a point: it hits (at t = 0) when that point is in the shape.
/// - Output pointers may be NULL; they are written only on a hit.
/// - Inputs are float; the arithmetic is double, so the answers are those of the float inputs to
///   ~1e-9 relative (only cases that close to touching can come out either way).
#ifndef KYU_INTERSECT_H
#define KYU_INTERSECT_H

#include "geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

// ---- Triangles ----------------------------------------------------------------------------------

/// First point of the segment in the triangle (two-sided). On a hit, `t` in [0, 1] and the
/// barycentric `u`, `v` (point = (1-u-v) a + u b + v c) of that point.
/// A segment lying in the triangle's plane (|det| below 1e-9 relative to |d| |b-a| |c-a|, and the
/// start within 1e-9 relative of the plane) reports where it first enters the triangle; a parallel
/// segment off the plane misses. A degenerate triangle (zero area) has no interior: it is never hit.
KYU_API bool kyu_segment_triangle(kyu_segment s, const kyu_triangle *tri, float *t, float *u, float *v);

/// The same for the ray origin + t dir, t >= 0.
KYU_API bool kyu_ray_triangle(vec3s origin, vec3s dir, const kyu_triangle *tri, float *t, float *u, float *v);

// ---- Spheres ------------------------------------------------------------------------------------

/// The point is in the sphere (centre c, radius r): |p - c| <= r.
KYU_API bool kyu_test_point_sphere(vec3s p, vec3s c, float r);

/// First t in [0, 1] of the segment in the sphere (0 when `s.a` is inside).
KYU_API bool kyu_segment_sphere(kyu_segment s, vec3s c, float r, float *t);

/// First t >= 0 of the ray in the sphere (0 when the origin is inside).
KYU_API bool kyu_ray_sphere(vec3s origin, vec3s dir, vec3s c, float r, float *t);

// ---- Axis-aligned and oriented boxes ------------------------------------------------------------

/// The point is in the box (faces included).
KYU_API bool kyu_test_point_aabb(vec3s p, const kyu_aabb *box);

/// The two boxes overlap or touch.
KYU_API bool kyu_test_aabb_aabb(const kyu_aabb *a, const kyu_aabb *b);

/// Entry of the ray into the box: `t` >= 0 and `normal`, the unit outward normal of the face it
/// enters through (on an edge or corner, the face whose slab is entered last, lowest axis on ties).
/// An origin inside or on the box gives t = 0; `normal` is then (0, 0, 0) unless the ray enters
/// through a face it starts on.
KYU_API bool kyu_ray_aabb(vec3s origin, vec3s dir, const kyu_aabb *box, float *t, vec3s *normal);

/// The same for an oriented box (its rotation is inverted by its transpose).
KYU_API bool kyu_ray_box(vec3s origin, vec3s dir, const kyu_box *box, float *t, vec3s *normal);

// ---- Sphere against triangle --------------------------------------------------------------------

/// The sphere touches the triangle: the exact distance from c to the triangle (interior, or the
/// nearest of the three edges, so obtuse and degenerate triangles are right) is <= r.
KYU_API bool kyu_test_sphere_triangle(vec3s c, float r, const kyu_triangle *tri);

// ---- Cylinders (kyu_cylinder: solid, flat caps; a == b has no axis and is empty) ----------------

/// The point is in the cylinder.
KYU_API bool kyu_test_point_cylinder(vec3s p, const kyu_cylinder *cyl);

/// First t >= 0 of the ray in the cylinder (side or caps; 0 when the origin is inside).
KYU_API bool kyu_ray_cylinder(vec3s origin, vec3s dir, const kyu_cylinder *cyl, float *t);

/// First t in [0, 1] of the segment in the cylinder.
KYU_API bool kyu_segment_cylinder(kyu_segment s, const kyu_cylinder *cyl, float *t);

/// The sphere (centre c, radius r) touches the cylinder.
KYU_API bool kyu_test_sphere_cylinder(vec3s c, float r, const kyu_cylinder *cyl);

/// The triangle touches the cylinder (the triangle is clipped to the caps' slab, and the rest
/// projected along the axis is tested against the disc).
KYU_API bool kyu_test_triangle_cylinder(const kyu_triangle *tri, const kyu_cylinder *cyl);

/// The cylinder touches or crosses the plane {x : n.x = offset} (the plane itself, not a
/// half-space; n non-zero, need not be unit).
KYU_API bool kyu_test_plane_cylinder(vec3s n, float offset, const kyu_cylinder *cyl);

// ---- Capsules (kyu_capsule: a == b is a sphere) -------------------------------------------------

/// The sphere (centre c, radius r) touches the capsule.
KYU_API bool kyu_test_sphere_capsule(vec3s c, float r, const kyu_capsule *cap);

/// The triangle touches the capsule (segment-triangle distance <= radius).
KYU_API bool kyu_test_triangle_capsule(const kyu_triangle *tri, const kyu_capsule *cap);

/// First t >= 0 of the ray in the capsule (0 when the origin is inside, unlike
/// kyu_segment_capsule_entry, which reports entries from outside only).
KYU_API bool kyu_ray_capsule(vec3s origin, vec3s dir, const kyu_capsule *cap, float *t);

// ---- Cones --------------------------------------------------------------------------------------

/// The sphere (centre c, radius r) touches the solid cone (apex, unit axis, height, half angle).
/// A cone of zero height is its apex.
KYU_API bool kyu_test_sphere_cone(vec3s c, float r, const kyu_cone *cone);

#ifdef __cplusplus
}
#endif
#endif
