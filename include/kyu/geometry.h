// SPDX-License-Identifier: MIT
/// @file geometry.h
/// Pure geometry: no world, no allocation, usable on its own (for games' own checks and teaching).
///
/// Conventions, the same in every function:
/// - A sweep moves a shape along a displacement `d` over t in [0, 1]; t is the fraction of `d`.
/// - `normal` is a unit vector pointing from the second shape (B, or the collider) to the first (A).
/// - Touching counts as hitting; touching while moving apart does not (no impact, nothing to do).
/// - A sweep that starts overlapped (or touching) and is not moving apart reports t = 0 and
///   `start_overlap`; one that is moving apart reports `start_overlap` with `hit` false. For a plane
///   or a box face, sliding along keeps the overlap, so it is a hit at t = 0; for two spheres, motion
///   with C0.D = 0 (the distance at its minimum) is moving apart.
/// - Every routine is written in float with its numerically stable form (the smaller root of the
///   time-of-impact quadratic is computed as c / q, never as a difference of nearly equal numbers).
#ifndef KYU_GEOMETRY_H
#define KYU_GEOMETRY_H

#include "base.h"

#include <stdbool.h>

#include <cglm/struct.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The result of a sweep.
typedef struct kyu_hit {
    bool hit;           ///< an impact happens at some t in [0, 1]
    bool start_overlap; ///< the shapes overlap (or touch) at t = 0
    float t;            ///< time of impact as a fraction of the sweep (0 when start_overlap)
    vec3s point;        ///< contact point at time t
    vec3s normal;       ///< unit, from B to A at time t
} kyu_hit;

/// An oriented box: centre, rotation (columns are the box axes in world space, orthonormal) and
/// half extents. A float rotation is orthonormal only to ~1e-7; kyu inverts it by its transpose.
typedef struct kyu_box {
    vec3s center;       ///< world position of the centre
    mat3s rotation;     ///< columns: the box's axes in world space
    vec3s half_extents; ///< half sizes along its axes, each >= 0
} kyu_box;

/// Time of impact of two moving spheres A and B (centres a0, b0; displacements da, db over the
/// sweep; radii ra, rb). With C0 = b0 - a0, D = db - da, the centre distance squared is
/// P t^2 + 2 Q t + R, P = D.D, Q = C0.D, R = C0.C0; contact when it equals (ra + rb)^2.
/// Edge cases: same displacement (P = 0): hit at t = 0 if touching or overlapping, else never;
/// Q >= 0 at a touching start: moving apart, no hit; coincident centres: normal (0, 1, 0).
KYU_API kyu_hit kyu_sweep_sphere_sphere(vec3s a0, vec3s da, float ra, vec3s b0, vec3s db, float rb);

/// A sphere (centre c0, radius r, displacement d) against the plane {x : n.x = offset}, solid on the
/// side opposite n (n must be unit). The plane may move by `plane_d` over the sweep.
KYU_API kyu_hit kyu_sweep_sphere_plane(vec3s c0, vec3s d, float r, vec3s n, float offset, vec3s plane_d);

/// A sphere against an oriented box that moves by `box_d` over the sweep (no rotation). Exact: the
/// first entry of the centre's path into the box grown by r (3 face slabs, 12 edge capsules).
KYU_API kyu_hit kyu_sweep_sphere_box(vec3s c0, vec3s d, float r, const kyu_box *box, vec3s box_d);

/// Closest point of a box to p (p itself when inside).
KYU_API vec3s kyu_closest_point_box(const kyu_box *box, vec3s p);

/// Signed distance from a sphere to a box: negative is penetration depth. `normal` (may be NULL) is
/// unit from the box to the sphere; for a centre inside the box, the face of least penetration.
KYU_API float kyu_distance_sphere_box(vec3s c, float r, const kyu_box *box, vec3s *normal, vec3s *point);

/// First hit of the ray/segment p + t d, t in [0, 1], with the capsule (segment a-b, radius r).
/// Returns false when p starts inside or there is no hit.
KYU_API bool kyu_segment_capsule_entry(vec3s p, vec3s d, vec3s a, vec3s b, float r, float *t);

/// A box from centre, unit quaternion and half extents.
KYU_API kyu_box kyu_box_make(vec3s center, versors rotation, vec3s half_extents);

// ---- shapes shared by the geometry modules (plain data, passed by pointer or value) -------------

/// An axis-aligned box.
typedef struct kyu_aabb {
    vec3s lower; ///< the least corner
    vec3s upper; ///< the greatest corner (>= lower on each axis)
} kyu_aabb;

/// A segment from a to b (a == b is a point).
typedef struct kyu_segment {
    vec3s a; ///< one end
    vec3s b; ///< the other end
} kyu_segment;

/// A triangle (degenerate ones, with collinear or equal corners, are handled, not rejected).
typedef struct kyu_triangle {
    vec3s a; ///< a corner
    vec3s b; ///< a corner
    vec3s c; ///< a corner ((b - a) x (c - a) is its normal's side)
} kyu_triangle;

/// A capsule (line-swept sphere): the points within `radius` of the segment a-b.
typedef struct kyu_capsule {
    vec3s a;      ///< one end of the axis
    vec3s b;      ///< the other end
    float radius; ///< >= 0
} kyu_capsule;

/// A solid finite cylinder of `radius` around the segment a-b (flat caps at a and b).
typedef struct kyu_cylinder {
    vec3s a;      ///< the centre of one cap
    vec3s b;      ///< the centre of the other cap
    float radius; ///< >= 0
} kyu_cylinder;

/// A solid cone: apex, unit axis from the apex, height along it, and the half angle at the apex
/// (radians, in (0, pi/2)).
typedef struct kyu_cone {
    vec3s apex;       ///< the tip
    vec3s axis;       ///< unit, from the apex into the cone
    float height;     ///< along the axis, to the flat base
    float half_angle; ///< radians, in (0, pi/2)
} kyu_cone;

/// A convex hull: its vertices (not owned; at least 1) and, when built by kyu_hull_build, its
/// face planes (normal, offset: n.x <= offset inside). Plain data: the caller owns the arrays.
typedef struct kyu_hull {
    const vec3s *points; ///< the vertices (borrowed)
    int count;           ///< at least 1
} kyu_hull;

/// A contact between A and B: a point (on B's surface), the unit normal from B to A, and the
/// signed distance (negative = penetration depth, positive = gap).
typedef struct kyu_contact {
    vec3s point;    ///< on B's surface
    vec3s normal;   ///< unit, from B to A
    float distance; ///< signed: the gap, or minus the penetration depth
} kyu_contact;

#include "closest.h"
#include "convex.h"
#include "intersect.h"
#include "sweeps.h"

#ifdef __cplusplus
}
#endif
#endif
