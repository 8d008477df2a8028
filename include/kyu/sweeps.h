// SPDX-License-Identifier: MIT
/// @file sweeps.h
/// Sphere sweeps against capsules, cylinders and triangles (include it through kyu/geometry.h).
///
/// Every routine follows the conventions at the top of geometry.h: the sphere (centre c0, radius r)
/// moves by `d` and the shape translates by its own displacement over t in [0, 1]; the answer is the
/// first t at which they touch, with `point` on the shape's surface at that time and `normal` unit
/// from the shape to the sphere. They are exact: the sphere's centre moves along a line relative to
/// the shape, and the first contact is that line's first entry into the shape grown by r.
///
/// Starting overlapped (or touching): `start_overlap`, and a hit at t = 0 unless the relative motion
/// strictly increases the distance (the motion has a positive component along `normal`); sliding
/// along the surface keeps the overlap, so it is a hit. Zero displacements make a static overlap
/// test. No input of finite floats gives a NaN.
#ifndef KYU_SWEEPS_H
#define KYU_SWEEPS_H

#include "geometry.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A sphere against a capsule translating by `capsule_d`: the centre's relative path against the
/// capsule of radius capsule->radius + r (cylinder side plus the end spheres). A degenerate capsule
/// (a == b) is a sphere. At a hit, `point` is on the capsule's surface and `normal` points from the
/// closest point of the axis segment to the centre. A centre exactly on the axis segment gets a
/// normal against the relative motion, or a fixed one perpendicular to the axis when still.
KYU_API kyu_hit kyu_sweep_sphere_capsule(vec3s c0, vec3s d, float r, const kyu_capsule *capsule,
                                         vec3s capsule_d);

/// A sphere against a solid, flat-capped cylinder translating by `cylinder_d`. The cylinder grown
/// by r is the union of the side grown by r (clipped to the axis range), the two cap discs
/// thickened by r, and two tori of tube radius r around the rims. Side and caps are solved in closed
/// form; when the path meets neither, it can only touch a rim torus (a quartic), found by a
/// bracketed search on the exact distance to the cylinder, which is convex along the path (golden
/// section for its minimum, then bisection to double precision). A centre inside the cylinder takes
/// the normal of the nearest surface (side or cap). A degenerate cylinder (a == b) has no axis: it
/// is taken as the ball of its radius around a (the union of every disc it could stand for).
KYU_API kyu_hit kyu_sweep_sphere_cylinder(vec3s c0, vec3s d, float r, const kyu_cylinder *cylinder,
                                          vec3s cylinder_d);

/// A sphere against a two-sided triangle translating by `triangle_d`: the face slab (within the
/// triangle, r either side) and three edge capsules. A degenerate triangle (collinear or equal
/// corners) is its longest segment or a point. At a face hit the normal is the face normal on the
/// sphere's side; at an edge or vertex it points from the closest point of that feature to the
/// centre. A centre exactly in the triangle's plane and inside it gets the face normal against the
/// relative motion (the side it is coming from).
KYU_API kyu_hit kyu_sweep_sphere_triangle(vec3s c0, vec3s d, float r, const kyu_triangle *triangle,
                                          vec3s triangle_d);

#ifdef __cplusplus
}
#endif
#endif
