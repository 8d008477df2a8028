// SPDX-License-Identifier: MIT
/// @file query.h
/// World queries: pure reads of the world between steps (they never move or wake anything).
///
///     kyu_query_hit hit;
///     kyu_world_raycast(w, eye, glms_vec3_scale(look, 100.0f), kyu_query_filter_default(), &hit);
///     if (hit.hit) aim_at(hit.point);
///
/// Conventions, the same in every query:
/// - Units are metres and seconds. A ray or a cast goes from `origin` to `origin + translation`;
///   `fraction` in [0, 1] is the part of `translation` travelled at the hit.
/// - `normal` is unit and points from the thing hit (the second shape) toward the ray, the cast
///   sphere or the first body: the outward surface normal at the hit.
/// - Signed distances: positive is the gap, negative is the depth of an overlap.
/// - Touching counts as hitting. Every live body is seen, asleep or awake.
/// - Results are deterministic: equal fractions or distances are ordered bodies first (by slot, that
///   is by creation order when no slot was reused), then colliders (by slot).
/// - Body queries use a uniform grid built lazily from the current positions: the first query after
///   any change to bodies or colliders (create, destroy, teleport, step) rebuilds it in O(bodies);
///   later queries allocate nothing (except to grow a result buffer past its largest size so far).
///   That is why the grid queries take a non-const world, and why two threads must not query one
///   world at the same time (nor query while it steps: KYU_ERR_LOCKED).
/// - On failure a query returns a status, leaves its outputs cleared (no hit, count 0, null handle)
///   and `kyu_world_last_error` says which argument was wrong.
#ifndef KYU_QUERY_H
#define KYU_QUERY_H

#include <stdbool.h>
#include <stdint.h>

#include "types.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Which bodies and colliders a query sees. A query sees a body or collider X when
/// `(filter.mask_bits & X.category_bits) && (X.mask_bits & filter.category_bits)`, the same rule as
/// a pair of bodies (groups do not apply to queries). Start from `kyu_query_filter_default()`.
typedef struct kyu_query_filter {
    uint32_t category_bits;  ///< what the query is, default all bits
    uint32_t mask_bits;      ///< what the query sees, default all bits
    bool skip_colliders;     ///< true: bodies only (raycasts and sphere casts), default false
    kyu_body_id ignore_body; ///< never seen (the body casting, say); default null = none. A
                             ///< non-null handle must be live: stale or foreign is an error.
} kyu_query_filter;

/// The filter that sees everything: all bits, colliders included, no body ignored.
KYU_API kyu_query_filter kyu_query_filter_default(void);

/// The result of a raycast or a sphere cast.
typedef struct kyu_query_hit {
    bool hit;                 ///< false: nothing was hit, the other fields are zero
    kyu_body_id body;         ///< the body hit, or the null handle when a collider was hit
    kyu_collider_id collider; ///< the collider hit, or the null handle when a body was hit
    vec3s point;              ///< m, world point of contact (for a sphere cast: on the hit surface)
    vec3s normal;             ///< unit, from the thing hit toward the ray / cast sphere
    float fraction;           ///< [0, 1], of `translation`, at the hit
} kyu_query_hit;

/// The closest points of two shapes A and B.
typedef struct kyu_distance_result {
    float distance; ///< m, signed: gap when apart, negative = overlap depth
    vec3s point_a;  ///< on A's surface, the point nearest B (deepest into B when overlapping)
    vec3s point_b;  ///< on B's surface, the point nearest A
    vec3s normal;   ///< unit, from B to A (for coincident sphere centres: (0, 1, 0))
} kyu_distance_result;

/// The first body or collider hit by the segment origin -> origin + translation.
/// A ray that starts inside a body or a box, or behind a plane (in its solid side), does not hit
/// that shape: a ray cast from a character's centre does not hit the character (as in Box2D and
/// Unity). A ray starting exactly on a surface and heading in hits at fraction 0. A zero-length ray
/// hits nothing. `out->hit` false: nothing on the segment.
KYU_API kyu_status kyu_world_raycast(kyu_world *world, vec3s origin, vec3s translation,
                                     kyu_query_filter filter, kyu_query_hit *out);

/// Every body and collider the segment hits (same rules as `kyu_world_raycast`), nearest first.
/// Writes the first `min(capacity, total)` hits to `hits` (NULL is allowed when capacity is 0) and
/// the total number of hits to `*out_count`, which may exceed `capacity`.
KYU_API kyu_status kyu_world_raycast_all(kyu_world *world, vec3s origin, vec3s translation,
                                         kyu_query_filter filter, kyu_query_hit *hits, int capacity,
                                         int *out_count);

/// The first body or collider hit by a sphere of `radius` (>= 0, m) swept from `origin` to
/// `origin + translation`. As in geometry.h's sweeps, a sphere that starts overlapping (or
/// touching) a shape hits it at fraction 0 unless it is moving away from it, so a cast from inside a
/// body reports that body (use `filter.ignore_body` for the caster). Unlike a ray, then, a sphere of
/// radius 0 hits what contains its origin when heading inward. A zero-length cast is an overlap test.
KYU_API kyu_status kyu_world_sphere_cast(kyu_world *world, vec3s origin, float radius, vec3s translation,
                                         kyu_query_filter filter, kyu_query_hit *out);

/// The bodies that overlap or touch the sphere (centre, radius >= 0), in slot order. Colliders are
/// not listed. Writes the first `min(capacity, total)` handles and sets `*out_count` to the total.
KYU_API kyu_status kyu_world_overlap_sphere(kyu_world *world, vec3s center, float radius,
                                            kyu_query_filter filter, kyu_body_id *bodies, int capacity,
                                            int *out_count);

/// The bodies whose sphere overlaps or touches the box [lower, upper] (lower <= upper on each axis),
/// in slot order; the test is exact (a sphere near a corner of the box is not listed). As
/// `kyu_world_overlap_sphere` for the outputs.
KYU_API kyu_status kyu_world_overlap_aabb(kyu_world *world, vec3s lower, vec3s upper, kyu_query_filter filter,
                                          kyu_body_id *bodies, int capacity, int *out_count);

/// The body whose surface is nearest to `point`, among those within `max_distance` (m, finite,
/// >= 0; FLT_MAX for no limit). Distance is |point - centre| - radius (negative inside the body).
/// Use `filter.ignore_body` to skip the asking body. `*out_body` is the null handle when no body is
/// within reach; `out_distance` may be NULL.
KYU_API kyu_status kyu_world_nearest_body(kyu_world *world, vec3s point, float max_distance,
                                          kyu_query_filter filter, kyu_body_id *out_body,
                                          float *out_distance);

/// Closest points of bodies A and B (signed distance, normal from B to A).
KYU_API kyu_status kyu_body_distance(const kyu_world *world, kyu_body_id a, kyu_body_id b,
                                     kyu_distance_result *out);

/// Closest points of a body (A) and a collider (B), the collider as it stands now. For a plane, B's
/// point is the foot of the body's centre on the plane; for a box whose inside holds the centre, the
/// normal leaves through the face of least penetration.
KYU_API kyu_status kyu_body_collider_distance(const kyu_world *world, kyu_body_id body,
                                              kyu_collider_id collider, kyu_distance_result *out);

/// Whether bodies A and B, moving in straight lines at their current velocities (gravity and other
/// bodies ignored), touch within `horizon` seconds (finite, 0 <= horizon <= 1e9), and when.
/// Bodies already overlapping or touching collide at 0 unless they are moving apart.
/// `*out_seconds` (may be NULL) is the time of first contact, 0 when there is none.
KYU_API kyu_status kyu_body_time_to_collision(const kyu_world *world, kyu_body_id a, kyu_body_id b,
                                              float horizon, bool *out_will_collide, float *out_seconds);

#ifdef __cplusplus
}
#endif
#endif
