# SPDX-License-Identifier: MIT
"""Writes the C source of the `kyu._kyu` extension with cffi in API mode (ffi.set_source): cffi
checks every declaration below against kyu's headers when the source is compiled, so a struct or a
function that drifts from the engine fails the build instead of corrupting memory at run time.

    /usr/bin/python3 python/build_kyu.py OUT.c

mk/python.mk compiles OUT.c with python/shim.c, tools/scene*.c and tools/frame_files.c and links
them with kyu's position-independent objects into build/python/kyu/_kyu*.so (static: nothing to
find at run time but libcjson).

The declarations never name a cglm type: functions that pass vec3s or versors by value go through
python/shim.c, which takes float pointers. The bulk functions (bulk.h) are called directly.
"""
import sys

import cffi

CDEF = r"""
typedef enum kyu_status {
    KYU_OK = 0, KYU_ERR_NULL, KYU_ERR_NOT_FINITE, KYU_ERR_RADIUS, KYU_ERR_MASS, KYU_ERR_RESTITUTION,
    KYU_ERR_FRICTION, KYU_ERR_DAMPING, KYU_ERR_STALE_HANDLE, KYU_ERR_FOREIGN_HANDLE, KYU_ERR_CAPACITY,
    KYU_ERR_OUT_OF_MEMORY, KYU_ERR_INVALID_DEF, KYU_ERR_INVALID_ARGUMENT, KYU_ERR_LOCKED, KYU_ERR_IO,
    KYU_ERR_BAD_SNAPSHOT, KYU_STATUS_COUNT
} kyu_status;

typedef enum kyu_shape_type {
    KYU_SHAPE_PLANE = 1, KYU_SHAPE_BOX, KYU_SHAPE_CAPSULE, KYU_SHAPE_HULL, KYU_SHAPE_MESH
} kyu_shape_type;
typedef enum kyu_motion { KYU_STATIC = 0, KYU_KINEMATIC } kyu_motion;

typedef struct kyu_body_id { uint32_t index1; uint32_t world; uint32_t generation; } kyu_body_id;
typedef struct kyu_collider_id { uint32_t index1; uint32_t world; uint32_t generation; } kyu_collider_id;
typedef struct kyu_world kyu_world;

typedef struct kyu_contact_event {
    kyu_body_id body; kyu_body_id other; kyu_collider_id collider; bool sensor; int step; ...;
} kyu_contact_event;

typedef struct kyu_step_stats {
    int awake_bodies, candidate_pairs, impacts, stale_events, late_inserts, contacts, event_cap_hit;
    float max_overlap;
    int islands_woken, bodies_fell_asleep;
    float ms_solve, ms_broadphase, ms_impacts, ms_contacts, ms_islands, ms_total;
    ...;
} kyu_step_stats;

const char *kyu_status_string(kyu_status status);
void kyu_world_destroy(kyu_world *world);
const char *kyu_world_last_error(const kyu_world *world);
kyu_status kyu_world_step(kyu_world *world);
kyu_status kyu_world_update(kyu_world *world, float frame_seconds, int *steps_run);
float kyu_world_alpha(const kyu_world *world);
kyu_step_stats kyu_world_stats(const kyu_world *world);
int kyu_world_body_count(const kyu_world *world);
int kyu_world_get_bodies(const kyu_world *world, kyu_body_id *out, int capacity);
int kyu_world_sleeping_body_count(const kyu_world *world);
double kyu_world_kinetic_energy(const kyu_world *world);
double kyu_world_rotational_energy(const kyu_world *world);
kyu_status kyu_world_angular_momentum(const kyu_world *world, double out_angular_momentum[3]);
kyu_status kyu_world_momentum(const kyu_world *world, double out_momentum[3]);
uint64_t kyu_world_state_hash(const kyu_world *world);
kyu_status kyu_world_save(const kyu_world *world, const char *path);
kyu_status kyu_world_load(kyu_world *world, const char *path);
kyu_status kyu_world_save_memory(const kyu_world *world, void *buffer, size_t capacity, size_t *size);
kyu_status kyu_world_load_memory(kyu_world *world, const void *data, size_t size);

kyu_status kyu_body_destroy(kyu_world *world, kyu_body_id body);
bool kyu_body_is_valid(const kyu_world *world, kyu_body_id body);
kyu_status kyu_body_get_radius(const kyu_world *world, kyu_body_id body, float *out);
kyu_status kyu_body_get_mass(const kyu_world *world, kyu_body_id body, float *out);
kyu_status kyu_body_get_contacts(const kyu_world *world, kyu_body_id body, kyu_contact_event *out,
                                 int capacity, int *total);
bool kyu_body_is_awake(const kyu_world *world, kyu_body_id body);
kyu_status kyu_collider_destroy(kyu_world *world, kyu_collider_id collider);
bool kyu_collider_is_valid(const kyu_world *world, kyu_collider_id collider);
kyu_status kyu_body_time_to_collision(const kyu_world *world, kyu_body_id a, kyu_body_id b, float horizon,
                                      bool *out_will_collide, float *out_seconds);

/* bulk.h */
int kyu_world_get_positions(const kyu_world *world, float *out_xyz, int capacity);
int kyu_world_get_velocities(const kyu_world *world, float *out_xyz, int capacity);
int kyu_world_get_angular_velocities(const kyu_world *world, float *out_xyz, int capacity);
int kyu_world_get_rotations(const kyu_world *world, float *out_xyzw, int capacity);
int kyu_world_get_interpolated_rotations(const kyu_world *world, float *out_xyzw, int capacity);
kyu_status kyu_bodies_get_angular_velocities(const kyu_world *world, const kyu_body_id *ids, int count, float *out_xyz);
kyu_status kyu_bodies_get_rotations(const kyu_world *world, const kyu_body_id *ids, int count, float *out_xyzw);
kyu_status kyu_bodies_set_angular_velocities(kyu_world *world, const kyu_body_id *ids, int count, const float *xyz);
int kyu_world_get_interpolated_positions(const kyu_world *world, float *out_xyz, int capacity);
int kyu_world_get_radii(const kyu_world *world, float *out, int capacity);
int kyu_world_get_masses(const kyu_world *world, float *out, int capacity);
int kyu_world_get_awake(const kyu_world *world, uint8_t *out, int capacity);
kyu_status kyu_bodies_get_positions(const kyu_world *world, const kyu_body_id *ids, int count, float *out_xyz);
kyu_status kyu_bodies_get_velocities(const kyu_world *world, const kyu_body_id *ids, int count, float *out_xyz);
kyu_status kyu_bodies_get_radii(const kyu_world *world, const kyu_body_id *ids, int count, float *out);
kyu_status kyu_bodies_set_positions(kyu_world *world, const kyu_body_id *ids, int count, const float *xyz);
kyu_status kyu_bodies_set_velocities(kyu_world *world, const kyu_body_id *ids, int count, const float *xyz);
typedef struct kyu_contact_event_arrays {
    kyu_body_id *body; kyu_body_id *other; kyu_collider_id *collider; uint8_t *sensor; int *step; ...;
} kyu_contact_event_arrays;
typedef struct kyu_impact_event_arrays {
    kyu_body_id *body; kyu_body_id *other; kyu_collider_id *collider;
    float *point; float *normal; float *approach_speed; float *time; int *step; ...;
} kyu_impact_event_arrays;
int kyu_world_get_begin_events_flat(const kyu_world *world, const kyu_contact_event_arrays *out, int capacity);
int kyu_world_get_end_events_flat(const kyu_world *world, const kyu_contact_event_arrays *out, int capacity);
int kyu_world_get_impact_events_flat(const kyu_world *world, const kyu_impact_event_arrays *out, int capacity);

/* measure.h */
kyu_status kyu_world_enable_impact_forces(kyu_world *world, bool enable);
typedef struct kyu_body_force_arrays { float *force; float *torque; int32_t *coordination; int32_t *wall_contacts; ...; }
    kyu_body_force_arrays;
int kyu_world_get_body_forces(const kyu_world *world, const kyu_body_force_arrays *out, int capacity);
typedef struct kyu_contact_arrays {
    kyu_body_id *body; kyu_body_id *other; kyu_collider_id *collider; float *point; float *normal;
    float *normal_force; float *tangent_force; float *rolling_torque; float *gap; ...;
} kyu_contact_arrays;
int kyu_world_get_contact_network(const kyu_world *world, const kyu_contact_arrays *out, int capacity);
typedef struct kyu_region_measure {
    int bodies; double volume; double solid_volume; double packing_fraction; double coordination; double mass;
    double mean_velocity[3]; double stress[9]; double contact_stress[9]; double kinetic_stress[9]; double pressure;
    ...;
} kyu_region_measure;

/* insert.h */
typedef struct kyu_inserter kyu_inserter;
typedef struct kyu_inserter_stats {
    int64_t inserted; int64_t requested; double mass; double mass_requested; double volume_fraction;
    int64_t tries; int64_t blocked; double time; ...;
} kyu_inserter_stats;
void kyu_inserter_destroy(kyu_inserter *inserter);
kyu_status kyu_inserter_run(kyu_inserter *inserter, kyu_world *world, double seconds, int *inserted);
kyu_inserter_stats kyu_inserter_get_stats(const kyu_inserter *inserter);
kyu_status kyu_inserter_restore(kyu_inserter *inserter, const kyu_inserter_stats *saved);
kyu_status kyu_inserter_sample_radii(const kyu_inserter *inserter, int64_t first, int count, float *out);

/* tools/scene.h */
typedef struct kyu_scene kyu_scene;
typedef struct kyu_scene_options {
    int threads; int has_seed; uint64_t seed; int max_bodies; int max_colliders; int max_points;
} kyu_scene_options;
kyu_scene *kyu_scene_load(const char *path, const kyu_scene_options *opt, char *err, size_t errlen);
kyu_scene *kyu_scene_load_string(const char *text, size_t len, const char *name,
                                 const kyu_scene_options *opt, char *err, size_t errlen);
void kyu_scene_destroy(kyu_scene *s);
kyu_world *kyu_scene_world(kyu_scene *s);
int kyu_scene_step(kyu_scene *s);
const char *kyu_scene_last_error(const kyu_scene *s);
long kyu_scene_step_index(const kyu_scene *s);
int kyu_scene_resume(kyu_scene *s, const char *snapshot_path, long step, char *err, size_t errlen);
long kyu_scene_run_steps(const kyu_scene *s);
uint64_t kyu_scene_seed(const kyu_scene *s);
double kyu_scene_potential_energy(const kyu_scene *s);
int kyu_scene_inserter_count(const kyu_scene *s);
int kyu_scene_inserter_generator(const kyu_scene *s, int k);
kyu_inserter_stats kyu_scene_inserter_stats(const kyu_scene *s, int k);
int kyu_scene_inserter_restore(kyu_scene *s, int k, const kyu_inserter_stats *saved);

/* tools/frame_files.h */
int kyu_pvd_write(const char *path, int count, const double *times, const char *const *files);

/* python/shim.h */
typedef struct kyupy_world_def {
    float gravity[3]; float fixed_dt; int max_steps_per_update; float restitution_threshold;
    int solver_iterations; float linear_slop, contact_margin;
    int max_events_per_step, body_capacity, max_bodies, max_colliders; float cell_size; int worker_count;
    int enable_sleep, enable_impact_events; float sleep_speed, sleep_time;
    float tangential_restitution;
    int periodic[3]; float periodic_lower[3], periodic_upper[3];
} kyupy_world_def;
typedef struct kyupy_body_def {
    float position[3], velocity[3];
    float radius, mass, restitution, friction, linear_damping, gravity_scale;
    uint32_t category_bits, mask_bits; int32_t group; int is_sensor, allow_sleep;
    float angular_velocity[3]; float angular_damping, inertia_scale, rolling_resistance; int fixed_rotation;
} kyupy_body_def;
typedef struct kyupy_collider_def {
    int type, motion;
    float position[3], rotation[4], half_extents[3], capsule_a[3], capsule_b[3]; float radius;
    const float *points; int point_count; const int32_t *indices; int triangle_count;
    float normal[3], velocity[3]; float restitution, friction; uint32_t category_bits, mask_bits;
    float angular_velocity[3], surface_velocity[3]; float rolling_resistance;
} kyupy_collider_def;
typedef struct kyupy_filter {
    uint32_t category_bits, mask_bits; int skip_colliders; kyu_body_id ignore_body;
} kyupy_filter;
typedef struct kyupy_inserter_def {
    kyupy_body_def body; float density; int shape;
    float center[3], rotation[4], half_extents[3], region_radius, half_height;
    int size_kind; float mean, sigma, min, max; const float *radii, *weights; int classes, by_mass;
    float velocity[3], cone_degrees; int64_t count; float volume_fraction, rate, mass_rate; int attempts;
    uint64_t seed;
} kyupy_inserter_def;
typedef struct kyupy_hit {
    int hit; kyu_body_id body; kyu_collider_id collider; float point[3], normal[3], fraction;
} kyupy_hit;
typedef struct kyupy_distance { float distance, point_a[3], point_b[3], normal[3]; } kyupy_distance;

void kyupy_world_def_default(kyupy_world_def *out);
int kyupy_world_create(const kyupy_world_def *def, kyu_world **out, char *why, size_t capacity);
void kyupy_world_get_def(const kyu_world *w, kyupy_world_def *out);
int kyupy_world_set_gravity(kyu_world *w, const float g[3]);
void kyupy_body_def_default(kyupy_body_def *out);
int kyupy_body_create(kyu_world *w, const kyupy_body_def *def, kyu_body_id *out);
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
int kyupy_body_get_rotation(const kyu_world *w, kyu_body_id id, float out[4]);
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
void kyupy_inserter_def_default(kyupy_inserter_def *out);
int kyupy_inserter_create(kyu_world *w, const kyupy_inserter_def *def, kyu_inserter **out);
int kyupy_world_measure_box(const kyu_world *w, const float lower[3], const float upper[3], kyu_region_measure *out);
int kyupy_write_network_vtp(kyu_world *w, double time, const char *path);
int kyupy_write_vtp(kyu_world *w, const kyu_body_id *ids, int n, long step, double time, const char *path);
int kyupy_write_xyz(kyu_world *w, const kyu_body_id *ids, int n, long step, double time, const float *box,
                    int bodies_box, const char *path, int append);
"""


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: build_kyu.py OUT.c")
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    ffi.set_source("kyu._kyu", '#include "shim.h"\n')
    ffi.emit_c_code(sys.argv[1])


if __name__ == "__main__":
    main()
