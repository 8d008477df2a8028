// SPDX-License-Identifier: MIT
// The C side of the Python package (python/build_kyu.py): kyu's functions that pass cglm vectors
// by value (vec3s, versors), wrapped with float pointers, and the def structs as plain floats, so
// the cffi declarations never name a cglm type. Everything else is called directly.
// Each kyupy_ function returns a kyu_status (0 ok) unless it says otherwise.
#ifndef KYU_PYTHON_SHIM_H
#define KYU_PYTHON_SHIM_H

#include <stdint.h>

#include <kyu/kyu.h>

#include "frame_files.h"
#include "scene.h"

typedef struct kyupy_world_def {
    float gravity[3];
    float fixed_dt;
    int max_steps_per_update;
    float restitution_threshold;
    int solver_iterations;
    float linear_slop, contact_margin;
    int max_events_per_step, body_capacity, max_bodies, max_colliders;
    float cell_size;
    int worker_count;
    int enable_sleep, enable_impact_events;
    float sleep_speed, sleep_time;
    float tangential_restitution;
    int periodic[3]; // kyu_periodic_box: the flags of x, y, z and the box's corners
    float periodic_lower[3], periodic_upper[3];
} kyupy_world_def;

typedef struct kyupy_body_def {
    float position[3], velocity[3];
    float radius, mass, restitution, friction, linear_damping, gravity_scale;
    uint32_t category_bits, mask_bits;
    int32_t group;
    int is_sensor, allow_sleep;
    float angular_velocity[3];
    float angular_damping, inertia_scale, rolling_resistance;
    int fixed_rotation;
} kyupy_body_def;

typedef struct kyupy_collider_def {
    int type, motion;
    float position[3], rotation[4], half_extents[3], capsule_a[3], capsule_b[3];
    float radius;
    const float *points; // 3 per point
    int point_count;
    const int32_t *indices;
    int triangle_count;
    float normal[3], velocity[3];
    float restitution, friction;
    uint32_t category_bits, mask_bits;
    float angular_velocity[3], surface_velocity[3];
    float rolling_resistance;
} kyupy_collider_def;

// An inserter's settings (kyu_inserter_def) as plain numbers; the mixture's arrays are the caller's.
typedef struct kyupy_inserter_def {
    kyupy_body_def body;
    float density;
    int shape;
    float center[3], rotation[4], half_extents[3], region_radius, half_height;
    int size_kind;
    float mean, sigma, min, max;
    const float *radii, *weights;
    int classes, by_mass;
    float velocity[3], cone_degrees;
    int64_t count;
    float volume_fraction, rate, mass_rate;
    int attempts;
    uint64_t seed;
} kyupy_inserter_def;

typedef struct kyupy_filter {
    uint32_t category_bits, mask_bits;
    int skip_colliders;
    kyu_body_id ignore_body;
} kyupy_filter;

typedef struct kyupy_hit {
    int hit;
    kyu_body_id body;
    kyu_collider_id collider;
    float point[3], normal[3], fraction;
} kyupy_hit;

typedef struct kyupy_distance {
    float distance, point_a[3], point_b[3], normal[3];
} kyupy_distance;

void kyupy_world_def_default(kyupy_world_def *out);
int kyupy_world_create(const kyupy_world_def *def, kyu_world **out, char *why, size_t capacity);
void kyupy_world_get_def(const kyu_world *w, kyupy_world_def *out);
int kyupy_world_set_gravity(kyu_world *w, const float g[3]);

void kyupy_body_def_default(kyupy_body_def *out);
int kyupy_body_create(kyu_world *w, const kyupy_body_def *def, kyu_body_id *out);
// n bodies from a prototype: positions (3 each) required; velocities, radii and masses (each NULL:
// the prototype's) optional. All or none: when body k is refused, the k created before it are
// destroyed again and *failed is k.
int kyupy_bodies_create(kyu_world *w, const kyupy_body_def *proto, int n, const float *pos, const float *vel,
                        const float *radius, const float *mass, kyu_body_id *out, int *failed);
int kyupy_body_get_position(const kyu_world *w, kyu_body_id id, float out[3]);
int kyupy_body_get_velocity(const kyu_world *w, kyu_body_id id, float out[3]);
int kyupy_body_set_position(kyu_world *w, kyu_body_id id, const float p[3]);
int kyupy_body_set_velocity(kyu_world *w, kyu_body_id id, const float v[3]);
int kyupy_body_apply_impulse(kyu_world *w, kyu_body_id id, const float j[3]);
int kyupy_body_apply_force(kyu_world *w, kyu_body_id id, const float f[3]);
int kyupy_body_apply_force_at_point(kyu_world *w, kyu_body_id id, const float f[3], const float p[3]);
int kyupy_body_apply_torque(kyu_world *w, kyu_body_id id, const float t[3]);
int kyupy_body_get_force(const kyu_world *w, kyu_body_id id, float out[3]);
int kyupy_body_get_torque(const kyu_world *w, kyu_body_id id, float out[3]);
int kyupy_body_get_angular_velocity(const kyu_world *w, kyu_body_id id, float out[3]);
int kyupy_body_set_angular_velocity(kyu_world *w, kyu_body_id id, const float a[3]);
int kyupy_body_get_rotation(const kyu_world *w, kyu_body_id id, float out[4]); // x, y, z, w
int kyupy_body_set_rotation(kyu_world *w, kyu_body_id id, const float q[4]);

void kyupy_collider_def_default(kyupy_collider_def *out);
int kyupy_collider_create(kyu_world *w, const kyupy_collider_def *def, kyu_collider_id *out);
int kyupy_collider_set_velocity(kyu_world *w, kyu_collider_id id, const float v[3]);
int kyupy_collider_set_transform(kyu_world *w, kyu_collider_id id, const float p[3], const float q[4]);
int kyupy_collider_get_position(const kyu_world *w, kyu_collider_id id, float out[3]);

int kyupy_raycast(kyu_world *w, const float origin[3], const float translation[3], const kyupy_filter *f,
                  kyupy_hit *out);
int kyupy_raycast_all(kyu_world *w, const float origin[3], const float translation[3], const kyupy_filter *f,
                      kyupy_hit *hits, int capacity, int *count);
int kyupy_sphere_cast(kyu_world *w, const float origin[3], float radius, const float translation[3],
                      const kyupy_filter *f, kyupy_hit *out);
int kyupy_overlap_sphere(kyu_world *w, const float center[3], float radius, const kyupy_filter *f,
                         kyu_body_id *ids, int capacity, int *count);
int kyupy_overlap_aabb(kyu_world *w, const float lower[3], const float upper[3], const kyupy_filter *f,
                       kyu_body_id *ids, int capacity, int *count);
int kyupy_nearest_body(kyu_world *w, const float point[3], float max_distance, const kyupy_filter *f,
                       kyu_body_id *out, float *distance);
int kyupy_body_distance(const kyu_world *w, kyu_body_id a, kyu_body_id b, kyupy_distance *out);
int kyupy_body_collider_distance(const kyu_world *w, kyu_body_id a, kyu_collider_id c, kyupy_distance *out);

// A frame of the world's bodies (`ids`, or every live body in slot order when ids is NULL) as a .vtp
// file, or appended to (append != 0) or written as an extended XYZ file; box: 6 floats, or NULL for
// the bodies' box (kyu_frame_bounds) when bodies_box, else none.
// 0, KYU_ERR_IO with errno set, KYU_ERR_OUT_OF_MEMORY, or the error of a bad handle in ids.
void kyupy_inserter_def_default(kyupy_inserter_def *out);
int kyupy_inserter_create(kyu_world *w, const kyupy_inserter_def *def, kyu_inserter **out);
int kyupy_world_measure_box(const kyu_world *w, const float lower[3], const float upper[3],
                            kyu_region_measure *out);
// The contact network as kyu-sim's --format contacts writes it (tools/frame_files.c).
int kyupy_write_network_vtp(kyu_world *w, double time, const char *path);

int kyupy_write_vtp(kyu_world *w, const kyu_body_id *ids, int n, long step, double time, const char *path);
int kyupy_write_xyz(kyu_world *w, const kyu_body_id *ids, int n, long step, double time, const float *box,
                    int bodies_box, const char *path, int append);

#endif
