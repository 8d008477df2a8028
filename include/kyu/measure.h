// SPDX-License-Identifier: MIT
/// @file measure.h
/// What granular (DEM) work measures, read from the world between steps: each body's contact force
/// and torque and its coordination number, the contact network (every pair that touches, with its
/// normal and tangential force), and a region's stress tensor, packing fraction and coordination.
///
/// Forces are impulses divided by the step: kyu solves contacts with impulses, not with springs,
/// so a force here is what the last step's impulses did, over `fixed_dt`:
/// - a contact's force is its accumulated normal impulse `jn n` plus its friction impulse `jt`,
///   over the step (the velocity solve's, warm-started from the step before, with the relax after
///   the impacts); its torque adds the contact's rolling and twisting resistance;
/// - the impacts of the step (the time-ordered queue's, engine/response.c) count once the world
///   keeps them (kyu_world_enable_impact_forces; off by default): each impact's impulse, over the
///   step, on the body that took it. A pair's impacts are in its bodies' forces and in a region's
///   stress, but not in the contact network (a pair carries one solver impulse, not a history);
/// - a sleeping body's contacts keep the impulses of the step its island fell asleep in, so a bed
///   at rest reads the forces that hold it up.
///
/// A body at rest on a floor reads the force m g up: jn = m g dt each step.
///
///     kyu_region_measure m;
///     kyu_world_measure_box(w, (vec3s){{-1, 0, -1}}, (vec3s){{1, 0.5f, 1}}, &m);
///     printf("packing %.3f, pressure %.1f Pa, sigma_yy %.1f Pa\n", m.packing_fraction, m.pressure,
///            m.stress[4]);
#ifndef KYU_MEASURE_H
#define KYU_MEASURE_H

#include "types.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/// From the next step on, keeps the impulse of every impact the time-ordered queue resolves, so
/// that kyu_world_get_body_forces and kyu_world_measure_box count impacts too (a gas, a pour, a
/// flow: collisions carry their momentum there). Off by default: a dense gas makes an impact per
/// body every few steps, 32 bytes each, appended in the serial impact loop. The setting belongs to
/// the world object (as its worker count does): kyu_world_load keeps it and leaves no impacts.
KYU_API kyu_status kyu_world_enable_impact_forces(kyu_world *world, bool enable);

/// Where kyu_world_get_body_forces writes, every live body in slot order (the order of bulk.h's
/// `kyu_world_get_*`). Each pointer may be NULL: that field is skipped.
typedef struct kyu_body_force_arrays {
    float *force;  ///< N, 3 per body: the last step's contact (and kept impact) impulses on it, / fixed_dt
    float *torque; ///< N m, 3 per body, about its centre: the same impulses' moments, with rolling
                   ///< and twisting resistance
    int32_t *coordination;  ///< the other bodies it touches (pairs within the slop, or that pushed last step)
    int32_t *wall_contacts; ///< the colliders it touches
} kyu_body_force_arrays;

/// Each body's force, torque and contacts (see the header): writes the first min(live, capacity)
/// bodies and returns the live body count, or -1 for a NULL world or `out`, capacity < 0, or out
/// of memory (kyu_world_last_error says which). Sensors are left out.
KYU_API int kyu_world_get_body_forces(const kyu_world *world, const kyu_body_force_arrays *out, int capacity);

/// Where kyu_world_get_contact_network writes, one entry per contact; each pointer may be NULL.
typedef struct kyu_contact_arrays {
    kyu_body_id *body;         ///< side A (the pair's lower slot)
    kyu_body_id *other;        ///< side B, a body, or the null handle
    kyu_collider_id *collider; ///< side B, a collider, or the null handle
    float *point;              ///< m, 3 per contact: halfway between the surfaces (on the collider's surface)
    float *normal;             ///< unit, 3 per contact, from B to A, where the bodies stand
    float *normal_force;       ///< N, >= 0: on A along the normal (B takes the opposite)
    float *tangent_force;      ///< N, 3 per contact: friction on A (B takes the opposite)
    float *rolling_torque;     ///< N m, 3 per contact: rolling and twisting resistance on A
    float *gap;                ///< m, signed: negative is overlap
} kyu_contact_arrays;

/// The contact network: every pair of a body with a body or a collider that touches (within its
/// slop) or pushed in the last step, sensors left out, in a fixed order (the awake contacts by
/// pair, then the sleeping islands'); a body touching several planes of one mesh (a bead in a
/// corner of a box made of one mesh) has an entry for each, one after the other. Writes the first min(count,
/// capacity) and returns the count (capacity 0 asks it), or -1 for a NULL world or `out`, or capacity < 0.
/// The forces are the contacts' own (see the header: impacts are not in it).
KYU_API int kyu_world_get_contact_network(const kyu_world *world, const kyu_contact_arrays *out,
                                          int capacity);

/// What kyu_world_measure_box finds in a box.
typedef struct kyu_region_measure {
    int bodies;               ///< bodies whose centre is in the box (sensors left out): what the sums count
    double volume;            ///< m^3, the box's
    double solid_volume;      ///< m^3, of the bodies' spheres inside the box (each cut by the box exactly)
    double packing_fraction;  ///< solid_volume / volume
    double coordination;      ///< mean number of other bodies a counted body touches (0 with none)
    double mass;              ///< kg of the counted bodies
    double mean_velocity[3];  ///< m/s, their mass-weighted mean
    double stress[9];         ///< Pa, row-major sigma_ij = contact_stress + kinetic_stress (tension positive:
                              ///< a bed under its weight has stress[4] = sigma_yy < 0)
    double contact_stress[9]; ///< Pa: (1 / V) sum over the counted bodies' contacts of (x_c - x_i)_i f_j
    double kinetic_stress[9]; ///< Pa: -(1 / V) sum of m v'_i v'_j, v' the velocity less the mean
    double pressure;          ///< Pa, -(stress[0] + stress[4] + stress[8]) / 3
} kyu_region_measure;

/// The stress tensor, packing fraction and coordination of the box [lower, upper] (lower < upper
/// on each axis, finite). The stress is the virial of the bodies whose centre is in the box, as
/// LIGGGHTS' compute stress/atom summed over them and divided by the volume, with each contact's
/// branch vector from the body's centre to the contact point x_c (a pair's two halves add to the
/// pair's centre-to-centre virial; a collider's contact counts its body's half, so a region around
/// a bed on a floor carries the bed's weight): sum over contacts of (x_c - x_i) (x) f, less the
/// kinetic part sum m v' (x) v', over V. Forces as the header says. Between steps only. Cost: a
/// sphere cut by the box's faces on one axis is a closed form; one at an edge or a corner of the box
/// is integrated (tens of microseconds each): a box across a gas of 1,728 balls, 1.5 ms.
KYU_API kyu_status kyu_world_measure_box(const kyu_world *world, vec3s lower, vec3s upper,
                                         kyu_region_measure *out);

#ifdef __cplusplus
}
#endif
#endif
