// SPDX-License-Identifier: MIT
/// @file world.h
/// The world, its particles (bodies) and colliders, and the fixed-timestep loop.
///
/// Every function that can fail returns a `kyu_status`; on failure the world is unchanged (a failed
/// step is the exception: see kyu_world_step) and `kyu_world_last_error(world)` says what was
/// wrong. Passing NULL for the world returns `KYU_ERR_NULL`. kyu calls your code only where you
/// gave it a function: the mix callbacks (`kyu_world_def.friction_callback`, `restitution_callback`)
/// and the job-system hooks (`enqueue_task`, `finish_task`) during a step, and the debug-draw
/// callbacks during `kyu_world_draw`. None of them may call back into the world.
#ifndef KYU_WORLD_H
#define KYU_WORLD_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A world: its bodies, colliders, settings and step state. Opaque; made by kyu_world_create.
typedef struct kyu_world kyu_world;

/// Routes every allocation of the engine through `allocator` (NULL restores the C library's
/// malloc, realloc and free). Process-wide: set it before creating any world. KYU_ERR_LOCKED while
/// any world exists (its memory must go back to the hooks it came from); KYU_ERR_NULL when one of
/// the three functions is NULL. In either case the hooks are unchanged.
/// @warning Hull data from kyu_hull_build is not counted: free it before changing the hooks.
KYU_API kyu_status kyu_set_allocator(const kyu_allocator *allocator);

/// Sets the function called when an internal check of kyu fails (see kyu_assert_fn); NULL restores
/// the default, which prints the condition and its place to stderr. kyu aborts after either.
/// Process-wide; may be called at any time.
KYU_API void kyu_set_assert_handler(kyu_assert_fn *handler);

/// A short sentence for a status code (never NULL, also for unknown codes).
KYU_API const char *kyu_status_string(kyu_status status);

/// The world settings with every default filled in. The only place defaults live.
KYU_API kyu_world_def kyu_world_def_default(void);

/// Creates a world. `*out` is set to NULL on failure; `kyu_world_def_check` says why a def was refused.
KYU_API kyu_status kyu_world_create(const kyu_world_def *def, kyu_world **out);

/// The checks of kyu_world_create: KYU_OK, or the code of the first problem with a sentence naming
/// the field and its value in `message` (up to `capacity` bytes with the terminating zero; message
/// may be NULL). There is no world yet to ask for kyu_world_last_error.
KYU_API kyu_status kyu_world_def_check(const kyu_world_def *def, char *message, size_t capacity);

/// Destroys a world and everything in it. NULL is allowed and does nothing.
KYU_API void kyu_world_destroy(kyu_world *world);

/// The detail of the last error in this world ("" if none). Valid until the next call on the world.
KYU_API const char *kyu_world_last_error(const kyu_world *world);

/// Runs exactly one fixed step of `def.fixed_dt` seconds.
///
/// A step can fail: KYU_ERR_OUT_OF_MEMORY, or KYU_ERR_CAPACITY when it would hold more candidate
/// pairs or contacts than the world def's `pair_capacity_per_body` / `contact_capacity_per_body`
/// allow (checked before that memory is taken). A failed step stops where it was: the world stays
/// valid (every body and handle, every contact naming live shapes, islands consistent; nothing is
/// lost or NaN; it saves, and its snapshot loads), but bodies may have moved part of the step and
/// that step's events are incomplete.
/// It is not rolled back. Stepping again, once memory is freed or the capacity raised, goes on from
/// there. Every other function that fails leaves the world exactly as it was. The forces and
/// torques applied since the last step act over this one and are cleared after it.
KYU_API kyu_status kyu_world_step(kyu_world *world);

/// Adds `frame_seconds` (in [0, 1e6], finite) to the accumulator and runs as many fixed steps as fit,
/// at most `max_steps_per_update` (time beyond the cap is dropped so a slow frame cannot spiral).
/// `steps_run` may be NULL. Afterwards `kyu_world_alpha` is the fraction of a step left over. If a
/// step fails, update returns its status at once and the accumulator is emptied (see kyu_world_step).
/// The forces and torques applied since the last call act over every step it runs and are cleared
/// when it returns, also when it ran none (see kyu_body_apply_force); a refused call keeps them.
KYU_API kyu_status kyu_world_update(kyu_world *world, float frame_seconds, int *steps_run);

/// Interpolation factor in [0, 1): draw `prev + alpha * (current - prev)`.
KYU_API float kyu_world_alpha(const kyu_world *world);

/// Changes gravity (m/s^2).
KYU_API kyu_status kyu_world_set_gravity(kyu_world *world, vec3s gravity);

/// The settings the world runs with: those it was created with, as changed since by
/// `kyu_world_set_gravity` or replaced by `kyu_world_load`. A NULL world gives the defaults.
KYU_API kyu_world_def kyu_world_get_def(const kyu_world *world);

/// Counters of the last step (zeroed before the first step).
KYU_API kyu_step_stats kyu_world_stats(const kyu_world *world);
/// Turns the energy audit on or off (off in a new world; not kept by snapshots): each step then
/// sums every body's kinetic energy (translation and spin) plus its potential energy in gravity
/// (-m gravity_scale g . x) between its stages, in double, and kyu_step_stats.energy_change says
/// what each stage changed. For checking the physics (which stage adds energy to a resting bed?),
/// not for games: it reads every body eight times a step. It changes nothing the step computes.
KYU_API kyu_status kyu_world_set_energy_audit(kyu_world *world, bool on);

/// Live bodies in the world.
KYU_API int kyu_world_body_count(const kyu_world *world);

/// Every live body's handle, in slot order (the order of kyu_world_kinetic_energy and the state
/// hash): writes the first min(live, capacity) of them to out (NULL allowed when capacity is 0) and
/// returns the number of live bodies, or -1 for a NULL world or a negative capacity.
KYU_API int kyu_world_get_bodies(const kyu_world *world, kyu_body_id *out, int capacity);

/// Live bodies whose island sleeps.
KYU_API int kyu_world_sleeping_body_count(const kyu_world *world);

/// Total kinetic energy of the bodies, in joules (summed in double, in slot order): translation
/// and rotation (1/2 I w^2).
KYU_API double kyu_world_kinetic_energy(const kyu_world *world);

/// Rotational kinetic energy alone, in joules.
KYU_API double kyu_world_rotational_energy(const kyu_world *world);

/// Total angular momentum about the origin (orbital m r x v plus spin I w), summed in double.
KYU_API kyu_status kyu_world_angular_momentum(const kyu_world *world, double out_angular_momentum[3]);

/// Total linear momentum of the bodies (summed in double).
KYU_API kyu_status kyu_world_momentum(const kyu_world *world, double out_momentum[3]);

/// A 64-bit hash of every live body's slot, position and velocity bits, its spin and orientation (for
/// a body that turns), and the force and torque it holds for the next step if any (0 for a NULL
/// world): equal hashes mean bit-identical states (for determinism checks).
KYU_API uint64_t kyu_world_state_hash(const kyu_world *world);

// ---- snapshots (engine/snapshot.c) -----------------------------------------------------------

/// Saves the whole state of the world (settings, bodies, colliders, kept contacts, islands, the
/// accumulator) to a binary file: a versioned header, the sections, a checksum. Loading it into a
/// world and stepping gives bit-identical states to never having stopped. Body user_data pointers
/// are not saved (they load as NULL); neither are the worker count, the task callbacks and the mix
/// callbacks, which stay the loading world's. Between steps only.
KYU_API kyu_status kyu_world_save(const kyu_world *world, const char *path);

/// Replaces every body, collider and setting of world by the snapshot at path. Handles saved with
/// the snapshot stay valid for the loading world (ids, generations and slots are restored, the world
/// field is the loading world's). A file that cannot be read is KYU_ERR_IO; a truncated, corrupt or
/// foreign one is refused whole (KYU_ERR_BAD_SNAPSHOT, the reason in kyu_world_last_error) and the
/// world is unchanged.
KYU_API kyu_status kyu_world_load(kyu_world *world, const char *path);

/// The same in memory: the snapshot's size in *size; the bytes written when buffer is not NULL and
/// capacity is large enough (KYU_ERR_CAPACITY otherwise, *size still set).
KYU_API kyu_status kyu_world_save_memory(const kyu_world *world, void *buffer, size_t capacity, size_t *size);
/// Loads a snapshot of `size` bytes from memory, as kyu_world_load does from a file.
KYU_API kyu_status kyu_world_load_memory(kyu_world *world, const void *data, size_t size);

// ---- events (valid until the next step or update; order is deterministic) ------------------------

/// Events are those of the last kyu_world_step, or of every step the last kyu_world_update ran (a
/// game that steps through update hears every impact): each event's `step` says which, and within
/// a step they are in their usual order.
///
/// Pairs that began touching (an impact, or a resting contact within the slop; for sensors, an
/// overlap). Falling asleep or waking never begins or ends a pair.
KYU_API const kyu_contact_event *kyu_world_begin_events(const kyu_world *world, int *count);
/// Pairs that stopped touching, and pairs of bodies or colliders removed before the step.
KYU_API const kyu_contact_event *kyu_world_end_events(const kyu_world *world, int *count);
/// Impacts, in time order within each step (only with `kyu_world_def.enable_impact_events`): under
/// gravity those faster than `restitution_threshold`, without gravity every one.
KYU_API const kyu_impact_event *kyu_world_impact_events(const kyu_world *world, int *count);

// ---- particles ----------------------------------------------------------------------------------

/// Body settings with defaults (radius 0.5 m, mass 1 kg, restitution 0, friction 0.5, at the origin).
KYU_API kyu_body_def kyu_body_def_default(void);

/// Adds a particle. Validates every field (finite, radius > 0, mass > 0, restitution in [0, 1],
/// friction and damping >= 0). A removed body's slot is reused once the next step has begun (the
/// contacts that named the removed body are dropped then). `*out` is the null handle on failure.
///
/// Reach: positions are floats, resolved to about 6e-8 of their distance from the origin, so a
/// contact is resolved to a fraction of a radius only near the origin. kyu refuses a body farther
/// than 2^20 radii from the origin, or faster than 2^20 radii per step (|v| * fixed_dt), instead of
/// letting it pass through walls (KYU_ERR_INVALID_ARGUMENT, the message says which): a 0.5 m ball
/// may be up to 524 km out and move up to 31,000 km/s at 60 Hz, a 1 mm bead 1 km and 63 km/s.
/// For smooth resting contact keep bodies within about 2^16 radii (a float step of r / 256).
KYU_API kyu_status kyu_body_create(kyu_world *world, const kyu_body_def *def, kyu_body_id *out);

/// Removes a particle. Its handle (and every copy) becomes stale; its slot is reused once the next
/// step has begun.
KYU_API kyu_status kyu_body_destroy(kyu_world *world, kyu_body_id body);

/// True when the handle names a live body of this world.
KYU_API bool kyu_body_is_valid(const kyu_world *world, kyu_body_id body);

/// Position of the centre (m).
KYU_API kyu_status kyu_body_get_position(const kyu_world *world, kyu_body_id body, vec3s *out);
/// Teleports the body (no interpolation smear; contacts are re-found next step). The reach of
/// kyu_body_create applies.
KYU_API kyu_status kyu_body_set_position(kyu_world *world, kyu_body_id body, vec3s position);
/// Velocity (m/s).
KYU_API kyu_status kyu_body_get_velocity(const kyu_world *world, kyu_body_id body, vec3s *out);
/// Sets the velocity (m/s); the speed limit of kyu_body_create applies.
KYU_API kyu_status kyu_body_set_velocity(kyu_world *world, kyu_body_id body, vec3s velocity);
/// v += impulse / mass (impulse in N s); refused if the new velocity would be beyond the speed limit.
KYU_API kyu_status kyu_body_apply_impulse(kyu_world *world, kyu_body_id body, vec3s impulse);
/// Position for drawing: between the last two steps run by `kyu_world_update`, by `alpha`.
KYU_API kyu_status kyu_body_get_interpolated_position(const kyu_world *world, kyu_body_id body, vec3s *out);

/// Angular velocity (rad/s, world frame).
KYU_API kyu_status kyu_body_get_angular_velocity(const kyu_world *world, kyu_body_id body, vec3s *out);
/// Sets the angular velocity (finite, |w| r dt within the speed limit of kyu_body_create); a
/// fixed_rotation body refuses anything but zero (KYU_ERR_INVALID_ARGUMENT).
KYU_API kyu_status kyu_body_set_angular_velocity(kyu_world *world, kyu_body_id body, vec3s angular_velocity);
/// Orientation (unit quaternion), integrated from the angular velocity every step (exactly: the
/// turn of each stretch of constant angular velocity, between impacts, is applied whole).
KYU_API kyu_status kyu_body_get_rotation(const kyu_world *world, kyu_body_id body, versors *out);
/// Sets the orientation (normalised; finite and not zero). A sphere's shape does not change, so
/// this moves nothing and wakes nothing: it only turns what you draw.
KYU_API kyu_status kyu_body_set_rotation(kyu_world *world, kyu_body_id body, versors rotation);
/// Orientation for drawing, `alpha` of a step after the last step's start: the orientation turned
/// back by (1 - alpha) steps of the present angular velocity (exact while it did not change).
KYU_API kyu_status kyu_body_get_interpolated_rotation(const kyu_world *world, kyu_body_id body, versors *out);
/// An impulse (N s) at a world point: v += J / m, w += I^-1 (point - centre) x J.
KYU_API kyu_status kyu_body_apply_impulse_at_point(kyu_world *world, kyu_body_id body, vec3s impulse,
                                                   vec3s point);
/// An angular impulse (N m s): w += I^-1 L.
KYU_API kyu_status kyu_body_apply_angular_impulse(kyu_world *world, kyu_body_id body, vec3s angular_impulse);

/// Adds a force (N, at the centre) to what the body holds for the next step. Forces are summed until
/// a step uses them, then cleared: they act over the next kyu_world_step, or over every step the next
/// kyu_world_update runs, so a force applied once a frame pushes for the frame's whole time at any
/// frame rate (an update that runs no step, a frame shorter than a step, clears them too). The step
/// integrates a force as it does gravity: the velocity changes by F dt / m; a body in free flight
/// follows the exact parabola of its whole acceleration, which its sweeps and impacts see; a body a
/// contact holds carries the force into the contact solve (a ball pushed into the floor stays on
/// it). Wakes the body's island, as an impulse does; a body resting under a force (pressed into a
/// corner) may fall asleep, and the next call wakes it. Refused with the world unchanged: a force
/// that is not finite, a sum whose acceleration F / m passes 1e9 m/s^2 in any component (gravity's
/// bound), or one whose velocity change over one step would pass the speed limit of
/// kyu_body_create. A snapshot keeps what a body holds. For a one-off push, use an impulse.
KYU_API kyu_status kyu_body_apply_force(kyu_world *world, kyu_body_id body, vec3s force);
/// A force (N) at a world point: the force of kyu_body_apply_force and the torque
/// (point - centre) x force, with the centre where the body is when you call (point finite, each
/// |x| <= 1e9). A body of fixed rotation takes the force and ignores the torque.
KYU_API kyu_status kyu_body_apply_force_at_point(kyu_world *world, kyu_body_id body, vec3s force,
                                                 vec3s point);
/// Adds a torque (N m) for the next step, summed and cleared as forces are: over a step the angular
/// velocity changes by T dt / I. Refused when the spin one step of it gives would pass the limit of
/// kyu_body_set_angular_velocity. A body of fixed rotation ignores it (the call is checked, wakes the
/// body and succeeds, as kyu_body_apply_angular_impulse does).
KYU_API kyu_status kyu_body_apply_torque(kyu_world *world, kyu_body_id body, vec3s torque);
/// The force (N) the body holds for the next step: the sum of this step's calls, zero when none.
KYU_API kyu_status kyu_body_get_force(const kyu_world *world, kyu_body_id body, vec3s *out);
/// The torque (N m) the body holds for the next step (always zero for a body of fixed rotation).
KYU_API kyu_status kyu_body_get_torque(const kyu_world *world, kyu_body_id body, vec3s *out);
/// Moment of inertia (kg m^2) about any axis through the centre: inertia_scale 2/5 m r^2, or
/// INFINITY for a body of fixed rotation.
KYU_API kyu_status kyu_body_get_inertia(const kyu_world *world, kyu_body_id body, float *out);
/// Radius (m).
KYU_API kyu_status kyu_body_get_radius(const kyu_world *world, kyu_body_id body, float *out);
/// Mass (kg).
KYU_API kyu_status kyu_body_get_mass(const kyu_world *world, kyu_body_id body, float *out);
/// The def's user_data.
KYU_API kyu_status kyu_body_get_user_data(const kyu_world *world, kyu_body_id body, void **out);
/// The pairs this body touches now ("stay"), each once (a mesh once however many of its planes
/// the body touches): up to `capacity` written to `out` (may be NULL when capacity is 0), the
/// total in `*total`.
KYU_API kyu_status kyu_body_get_contacts(const kyu_world *world, kyu_body_id body, kyu_contact_event *out,
                                         int capacity, int *total);
/// False while the body's island sleeps.
KYU_API bool kyu_body_is_awake(const kyu_world *world, kyu_body_id body);

// ---- colliders ----------------------------------------------------------------------------------

/// Collider settings with defaults (a static ground plane y = 0, normal +y; box half extents 0.5).
KYU_API kyu_collider_def kyu_collider_def_default(void);

/// Adds a static or kinematic collider. Every shape: rotation a finite, non-zero quaternion (a
/// plane keeps it too). Box: half extents > 0. Plane: non-zero normal.
KYU_API kyu_status kyu_collider_create(kyu_world *world, const kyu_collider_def *def, kyu_collider_id *out);
/// Removes a collider (it wakes what it touched); its handle becomes stale, its slot is reused once
/// the next step has begun.
KYU_API kyu_status kyu_collider_destroy(kyu_world *world, kyu_collider_id collider);
/// True when the handle names a live collider of this world.
KYU_API bool kyu_collider_is_valid(const kyu_world *world, kyu_collider_id collider);
/// Sets a kinematic collider's velocity (KYU_ERR_INVALID_ARGUMENT for a static one).
KYU_API kyu_status kyu_collider_set_velocity(kyu_world *world, kyu_collider_id collider, vec3s velocity);
/// Teleports a collider (box centre or plane point; rotation as for create).
KYU_API kyu_status kyu_collider_set_transform(kyu_world *world, kyu_collider_id collider, vec3s position,
                                              versors rotation);
/// Position (box centre or plane point; a kinematic collider moves every step).
KYU_API kyu_status kyu_collider_get_position(const kyu_world *world, kyu_collider_id collider, vec3s *out);
/// Orientation (a kinematic collider with an angular velocity turns every step).
KYU_API kyu_status kyu_collider_get_rotation(const kyu_world *world, kyu_collider_id collider, versors *out);
/// Angular velocity (rad/s) of a kinematic collider, about its position; a static collider refuses
/// anything but zero. Wakes what rests on it.
KYU_API kyu_status kyu_collider_set_angular_velocity(kyu_world *world, kyu_collider_id collider,
                                                     vec3s angular_velocity);
/// Surface velocity (m/s, its tangential part acts, through friction): a conveyor belt. Any
/// collider, static ones too. Wakes what rests on it.
KYU_API kyu_status kyu_collider_set_surface_velocity(kyu_world *world, kyu_collider_id collider,
                                                     vec3s surface_velocity);

#ifdef __cplusplus
}
#endif
#endif
