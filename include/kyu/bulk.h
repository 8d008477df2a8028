// SPDX-License-Identifier: MIT
/// @file bulk.h
/// Bulk access: the state of many bodies in one call, as flat arrays of floats (x0 y0 z0 x1 y1 z1
/// ...), for renderers and bindings. Drawing 100,000 spheres takes one call, not 100,000.
///
///     int n = kyu_world_body_count(w);
///     float *xyz = malloc(3 * sizeof(float) * n), *r = malloc(sizeof(float) * n);
///     kyu_world_get_positions(w, xyz, n);   // every live body, in slot order
///     kyu_world_get_radii(w, r, n);         // the same order
///
/// Two orders:
/// - `kyu_world_get_*` list every live body in slot order: the order of `kyu_world_get_bodies`
///   (world.h), which gives their handles in one call, of the state hash and of the debug draw. Body i of one
///   call is body i of the others as long as no body is created or destroyed in between. They return the
///   number of live bodies and write the first min(live, capacity) (capacity counts bodies, not floats; `out`
///   may be NULL when capacity is 0, to ask the count), or -1 for a NULL world, a negative capacity or a NULL
///   `out`.
/// - `kyu_bodies_*` follow a list of handles. They check every handle (and, for the setters, every
///   value) before touching anything: a call that fails changes nothing (outputs included) and
///   `kyu_world_last_error` names the first bad entry (`ids[7]`, `xyz[22]`). A handle may appear
///   twice; a setter then keeps the last value given for it.
///
/// Setting positions or velocities wakes the bodies' sleeping islands, as the one-body setters do.
/// Events come as parallel arrays ("struct of arrays"), each field contiguous.
///
/// Spin has the same shape: angular velocities (3 floats a body, rad/s, world frame) and rotations
/// (4 floats a body, the unit quaternion x, y, z, w), for all bodies or for a list of handles.
#ifndef KYU_BULK_H
#define KYU_BULK_H

#include "types.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

// ---- every live body, in slot order ---------------------------------------------------------------

/// Positions (m), 3 floats per body. Returns the live body count (see the header), or -1.
KYU_API int kyu_world_get_positions(const kyu_world *world, float *out_xyz, int capacity);

/// Velocities (m/s), 3 floats per body. Returns the live body count, or -1.
KYU_API int kyu_world_get_velocities(const kyu_world *world, float *out_xyz, int capacity);

/// Positions for drawing, between the last two steps run by `kyu_world_update` by its alpha (as
/// `kyu_body_get_interpolated_position`), 3 floats per body. Returns the live body count, or -1.
KYU_API int kyu_world_get_interpolated_positions(const kyu_world *world, float *out_xyz, int capacity);

/// Angular velocities (rad/s, world frame), 3 floats per body. Returns the live body count, or -1.
KYU_API int kyu_world_get_angular_velocities(const kyu_world *world, float *out_xyz, int capacity);

/// Orientations, unit quaternions as (x, y, z, w): 4 floats per body. Returns the live body count,
/// or -1.
KYU_API int kyu_world_get_rotations(const kyu_world *world, float *out_xyzw, int capacity);

/// Orientations for drawing, as `kyu_body_get_interpolated_rotation`: 4 floats per body (x, y, z,
/// w). Returns the live body count, or -1.
KYU_API int kyu_world_get_interpolated_rotations(const kyu_world *world, float *out_xyzw, int capacity);

/// Radii (m), 1 float per body. Returns the live body count, or -1.
KYU_API int kyu_world_get_radii(const kyu_world *world, float *out, int capacity);

/// Masses (kg), 1 float per body. Returns the live body count, or -1.
KYU_API int kyu_world_get_masses(const kyu_world *world, float *out, int capacity);

/// Whether each body is awake (1) or its island sleeps (0), 1 byte per body. Returns the live body
/// count, or -1.
KYU_API int kyu_world_get_awake(const kyu_world *world, uint8_t *out, int capacity);

// ---- a list of bodies -------------------------------------------------------------------------------

/// Positions of `count` bodies (m), 3 floats each, in the order of `ids`. KYU_ERR_NULL for a NULL
/// world (or NULL arrays with count > 0), KYU_ERR_INVALID_ARGUMENT for count < 0, and the handle's
/// error (KYU_ERR_STALE_HANDLE, KYU_ERR_FOREIGN_HANDLE) for a bad handle, with nothing written.
KYU_API kyu_status kyu_bodies_get_positions(const kyu_world *world, const kyu_body_id *ids, int count,
                                            float *out_xyz);

/// Velocities of `count` bodies (m/s), 3 floats each. Errors as `kyu_bodies_get_positions`.
KYU_API kyu_status kyu_bodies_get_velocities(const kyu_world *world, const kyu_body_id *ids, int count,
                                             float *out_xyz);

/// Angular velocities of `count` bodies (rad/s), 3 floats each. Errors as `kyu_bodies_get_positions`.
KYU_API kyu_status kyu_bodies_get_angular_velocities(const kyu_world *world, const kyu_body_id *ids,
                                                     int count, float *out_xyz);

/// Orientations of `count` bodies, 4 floats each (x, y, z, w). Errors as `kyu_bodies_get_positions`.
KYU_API kyu_status kyu_bodies_get_rotations(const kyu_world *world, const kyu_body_id *ids, int count,
                                            float *out_xyzw);

/// Radii of `count` bodies (m), 1 float each. Errors as `kyu_bodies_get_positions`.
KYU_API kyu_status kyu_bodies_get_radii(const kyu_world *world, const kyu_body_id *ids, int count,
                                        float *out);

/// Teleports `count` bodies to `xyz` (3 floats each), as `kyu_body_set_position` does for one: no
/// interpolation smear, contacts found again next step, sleeping islands woken. Every value must be
/// finite with |x| <= 1e9 (KYU_ERR_NOT_FINITE otherwise) and within the reach kyu_body_create
/// states. All or nothing: on any error (out of memory included) no body moves and no island wakes.
/// KYU_ERR_LOCKED during a step.
KYU_API kyu_status kyu_bodies_set_positions(kyu_world *world, const kyu_body_id *ids, int count,
                                            const float *xyz);

/// Sets the velocities of `count` bodies (m/s, 3 floats each), as `kyu_body_set_velocity` does for
/// one. Values finite with |v| <= 1e9 and within the speed limit of kyu_body_create. All or nothing,
/// as `kyu_bodies_set_positions`.
KYU_API kyu_status kyu_bodies_set_velocities(kyu_world *world, const kyu_body_id *ids, int count,
                                             const float *xyz);

/// Sets the angular velocities of `count` bodies (rad/s, 3 floats each), as
/// `kyu_body_set_angular_velocity` does for one (a body of fixed rotation takes only zero). All or
/// nothing, as `kyu_bodies_set_positions`.
KYU_API kyu_status kyu_bodies_set_angular_velocities(kyu_world *world, const kyu_body_id *ids, int count,
                                                     const float *xyz);

// ---- events as parallel arrays ----------------------------------------------------------------------

/// Where `kyu_world_get_*_events_flat` write the begin or end events of the last step. Each pointer
/// may be NULL: that field is skipped. Entry i of every array is event i (the order of
/// `kyu_world_begin_events` / `kyu_world_end_events`).
typedef struct kyu_contact_event_arrays {
    kyu_body_id *body;         ///< the pair's lower slot
    kyu_body_id *other;        ///< the other body, or the null handle for a collider
    kyu_collider_id *collider; ///< the collider, or the null handle for a body pair
    uint8_t *sensor;           ///< 1 for a sensor overlap
    int *step;                 ///< which step of the last kyu_world_update (kyu_contact_event.step)
} kyu_contact_event_arrays;

/// Where `kyu_world_get_impact_events_flat` writes the impacts of the last step. As above, each
/// pointer may be NULL. Fields as `kyu_impact_event`.
typedef struct kyu_impact_event_arrays {
    kyu_body_id *body;         ///< the body that met something
    kyu_body_id *other;        ///< the other body, or the null handle
    kyu_collider_id *collider; ///< the collider, or the null handle
    float *point;              ///< m, 3 floats per event
    float *normal;             ///< unit, 3 floats per event, from the other side to `body`
    float *approach_speed;     ///< m/s
    float *time;               ///< fraction of the step
    int *step;                 ///< which step of the last kyu_world_update
    float *normal_impulse;     ///< N s, on `body` along `normal`
    float *tangent_impulse;    ///< N s, friction's impulse on `body`, 3 floats per event
} kyu_impact_event_arrays;

/// The begin events of the last step: writes the first min(count, capacity) to the arrays of `out`
/// and returns the count (so capacity 0 asks it), or -1 for a NULL world or `out`, or capacity < 0.
KYU_API int kyu_world_get_begin_events_flat(const kyu_world *world, const kyu_contact_event_arrays *out,
                                            int capacity);

/// The end events of the last step, as `kyu_world_get_begin_events_flat`.
KYU_API int kyu_world_get_end_events_flat(const kyu_world *world, const kyu_contact_event_arrays *out,
                                          int capacity);

/// The impact events of the last step (with `kyu_world_def.enable_impact_events`), as
/// `kyu_world_get_begin_events_flat`.
KYU_API int kyu_world_get_impact_events_flat(const kyu_world *world, const kyu_impact_event_arrays *out,
                                             int capacity);

#ifdef __cplusplus
}
#endif
#endif
