// SPDX-License-Identifier: MIT
// The C side of the Python package (shim.h): vectors by value become float pointers.
#include "shim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static vec3s v3(const float *f) { return (vec3s){{f[0], f[1], f[2]}}; }
static void put3(float *out, vec3s v) { memcpy(out, v.raw, sizeof v.raw); }

// ---- world ---------------------------------------------------------------------------------------

static void world_def_out(const kyu_world_def *d, kyupy_world_def *o) {
    put3(o->gravity, d->gravity);
    o->fixed_dt = d->fixed_dt;
    o->max_steps_per_update = d->max_steps_per_update;
    o->restitution_threshold = d->restitution_threshold;
    o->solver_iterations = d->solver_iterations;
    o->linear_slop = d->linear_slop;
    o->contact_margin = d->contact_margin;
    o->max_events_per_step = d->max_events_per_step;
    o->body_capacity = d->body_capacity;
    o->max_bodies = d->max_bodies;
    o->max_colliders = d->max_colliders;
    o->cell_size = d->cell_size;
    o->worker_count = d->worker_count;
    o->enable_sleep = d->enable_sleep;
    o->enable_impact_events = d->enable_impact_events;
    o->sleep_speed = d->sleep_speed;
    o->sleep_time = d->sleep_time;
    o->tangential_restitution = d->tangential_restitution;
    for (int k = 0; k < 3; k++) o->periodic[k] = d->periodic.axis[k];
    put3(o->periodic_lower, d->periodic.lower);
    put3(o->periodic_upper, d->periodic.upper);
}

void kyupy_world_def_default(kyupy_world_def *out) {
    kyu_world_def d = kyu_world_def_default();
    world_def_out(&d, out);
}

void kyupy_world_get_def(const kyu_world *w, kyupy_world_def *out) {
    kyu_world_def d = kyu_world_get_def(w);
    world_def_out(&d, out);
}

static kyu_world_def world_def_in(const kyupy_world_def *o) {
    kyu_world_def d = kyu_world_def_default();
    d.gravity = v3(o->gravity);
    d.fixed_dt = o->fixed_dt;
    d.max_steps_per_update = o->max_steps_per_update;
    d.restitution_threshold = o->restitution_threshold;
    d.solver_iterations = o->solver_iterations;
    d.linear_slop = o->linear_slop;
    d.contact_margin = o->contact_margin;
    d.max_events_per_step = o->max_events_per_step;
    d.body_capacity = o->body_capacity;
    d.max_bodies = o->max_bodies;
    d.max_colliders = o->max_colliders;
    d.cell_size = o->cell_size;
    d.worker_count = o->worker_count;
    d.enable_sleep = o->enable_sleep != 0;
    d.enable_impact_events = o->enable_impact_events != 0;
    d.sleep_speed = o->sleep_speed;
    d.sleep_time = o->sleep_time;
    d.tangential_restitution = o->tangential_restitution;
    for (int k = 0; k < 3; k++) d.periodic.axis[k] = o->periodic[k] != 0;
    d.periodic.lower = v3(o->periodic_lower);
    d.periodic.upper = v3(o->periodic_upper);
    return d;
}

int kyupy_world_create(const kyupy_world_def *o, kyu_world **out, char *why, size_t capacity) {
    kyu_world_def d = world_def_in(o);
    kyu_status st = kyu_world_def_check(&d, why, capacity); // names the field and its value
    return st != KYU_OK ? st : kyu_world_create(&d, out);
}

int kyupy_world_set_gravity(kyu_world *w, const float g[3]) { return kyu_world_set_gravity(w, v3(g)); }

// ---- bodies --------------------------------------------------------------------------------------

void kyupy_body_def_default(kyupy_body_def *o) {
    kyu_body_def d = kyu_body_def_default();
    put3(o->position, d.position);
    put3(o->velocity, d.velocity);
    o->radius = d.radius;
    o->mass = d.mass;
    o->restitution = d.restitution;
    o->friction = d.friction;
    o->linear_damping = d.linear_damping;
    o->gravity_scale = d.gravity_scale;
    o->category_bits = d.category_bits;
    o->mask_bits = d.mask_bits;
    o->group = d.group;
    o->is_sensor = d.is_sensor;
    o->allow_sleep = d.allow_sleep;
    put3(o->angular_velocity, d.angular_velocity);
    o->angular_damping = d.angular_damping;
    o->inertia_scale = d.inertia_scale;
    o->rolling_resistance = d.rolling_resistance;
    o->fixed_rotation = d.fixed_rotation;
}

static kyu_body_def body_def_in(const kyupy_body_def *o) {
    kyu_body_def d = kyu_body_def_default();
    d.position = v3(o->position);
    d.velocity = v3(o->velocity);
    d.radius = o->radius;
    d.mass = o->mass;
    d.restitution = o->restitution;
    d.friction = o->friction;
    d.linear_damping = o->linear_damping;
    d.gravity_scale = o->gravity_scale;
    d.category_bits = o->category_bits;
    d.mask_bits = o->mask_bits;
    d.group = o->group;
    d.is_sensor = o->is_sensor != 0;
    d.allow_sleep = o->allow_sleep != 0;
    d.angular_velocity = v3(o->angular_velocity);
    d.angular_damping = o->angular_damping;
    d.inertia_scale = o->inertia_scale;
    d.rolling_resistance = o->rolling_resistance;
    d.fixed_rotation = o->fixed_rotation != 0;
    return d;
}

int kyupy_body_create(kyu_world *w, const kyupy_body_def *o, kyu_body_id *out) {
    kyu_body_def d = body_def_in(o);
    return kyu_body_create(w, &d, out);
}

int kyupy_bodies_create(kyu_world *w, const kyupy_body_def *proto, int n, const float *pos, const float *vel,
                        const float *radius, const float *mass, kyu_body_id *out, int *failed) {
    *failed = -1;
    kyu_body_def d = body_def_in(proto);
    for (int i = 0; i < n; i++) {
        d.position = v3(pos + 3 * i);
        if (vel) d.velocity = v3(vel + 3 * i);
        if (radius) d.radius = radius[i];
        if (mass) d.mass = mass[i];
        kyu_status st = kyu_body_create(w, &d, &out[i]);
        if (st != KYU_OK) {
            // The error stays the one of body i: destroying the others sets no error.
            for (int k = i - 1; k >= 0; k--) kyu_body_destroy(w, out[k]);
            *failed = i;
            return st;
        }
    }
    return KYU_OK;
}

int kyupy_body_get_position(const kyu_world *w, kyu_body_id id, float out[3]) {
    vec3s p;
    kyu_status st = kyu_body_get_position(w, id, &p);
    if (st == KYU_OK) put3(out, p);
    return st;
}

int kyupy_body_get_velocity(const kyu_world *w, kyu_body_id id, float out[3]) {
    vec3s v;
    kyu_status st = kyu_body_get_velocity(w, id, &v);
    if (st == KYU_OK) put3(out, v);
    return st;
}

int kyupy_body_set_position(kyu_world *w, kyu_body_id id, const float p[3]) {
    return kyu_body_set_position(w, id, v3(p));
}

int kyupy_body_set_velocity(kyu_world *w, kyu_body_id id, const float v[3]) {
    return kyu_body_set_velocity(w, id, v3(v));
}

int kyupy_body_apply_impulse(kyu_world *w, kyu_body_id id, const float j[3]) {
    return kyu_body_apply_impulse(w, id, v3(j));
}

int kyupy_body_apply_force(kyu_world *w, kyu_body_id id, const float f[3]) {
    return kyu_body_apply_force(w, id, v3(f));
}

int kyupy_body_apply_force_at_point(kyu_world *w, kyu_body_id id, const float f[3], const float p[3]) {
    return kyu_body_apply_force_at_point(w, id, v3(f), v3(p));
}

int kyupy_body_apply_torque(kyu_world *w, kyu_body_id id, const float t[3]) {
    return kyu_body_apply_torque(w, id, v3(t));
}

int kyupy_body_get_force(const kyu_world *w, kyu_body_id id, float out[3]) {
    vec3s f;
    kyu_status st = kyu_body_get_force(w, id, &f);
    if (st == KYU_OK) put3(out, f);
    return st;
}

int kyupy_body_get_torque(const kyu_world *w, kyu_body_id id, float out[3]) {
    vec3s t;
    kyu_status st = kyu_body_get_torque(w, id, &t);
    if (st == KYU_OK) put3(out, t);
    return st;
}

int kyupy_body_get_angular_velocity(const kyu_world *w, kyu_body_id id, float out[3]) {
    vec3s a;
    kyu_status st = kyu_body_get_angular_velocity(w, id, &a);
    if (st == KYU_OK) put3(out, a);
    return st;
}

int kyupy_body_set_angular_velocity(kyu_world *w, kyu_body_id id, const float a[3]) {
    return kyu_body_set_angular_velocity(w, id, v3(a));
}

int kyupy_body_get_rotation(const kyu_world *w, kyu_body_id id, float out[4]) {
    versors q;
    kyu_status st = kyu_body_get_rotation(w, id, &q);
    if (st == KYU_OK) memcpy(out, q.raw, sizeof q.raw);
    return st;
}

int kyupy_body_set_rotation(kyu_world *w, kyu_body_id id, const float q[4]) {
    return kyu_body_set_rotation(w, id, (versors){{q[0], q[1], q[2], q[3]}});
}

// ---- colliders -----------------------------------------------------------------------------------

void kyupy_collider_def_default(kyupy_collider_def *o) {
    kyu_collider_def d = kyu_collider_def_default();
    memset(o, 0, sizeof *o);
    o->type = d.type;
    o->motion = d.motion;
    put3(o->position, d.position);
    memcpy(o->rotation, d.rotation.raw, sizeof o->rotation);
    put3(o->half_extents, d.half_extents);
    put3(o->capsule_a, d.capsule_a);
    put3(o->capsule_b, d.capsule_b);
    o->radius = d.radius;
    put3(o->normal, d.normal);
    put3(o->velocity, d.velocity);
    o->restitution = d.restitution;
    o->friction = d.friction;
    o->category_bits = d.category_bits;
    o->mask_bits = d.mask_bits;
    put3(o->angular_velocity, d.angular_velocity);
    put3(o->surface_velocity, d.surface_velocity);
    o->rolling_resistance = d.rolling_resistance;
}

int kyupy_collider_create(kyu_world *w, const kyupy_collider_def *o, kyu_collider_id *out) {
    kyu_collider_def d = kyu_collider_def_default();
    d.type = (kyu_shape_type)o->type;
    d.motion = (kyu_motion)o->motion;
    d.position = v3(o->position);
    d.rotation = (versors){{o->rotation[0], o->rotation[1], o->rotation[2], o->rotation[3]}};
    d.half_extents = v3(o->half_extents);
    d.capsule_a = v3(o->capsule_a);
    d.capsule_b = v3(o->capsule_b);
    d.radius = o->radius;
    d.points = (const vec3s *)o->points; // a vec3s is 3 floats, unpadded: the layout of the array
    d.point_count = o->point_count;
    d.indices = o->indices;
    d.triangle_count = o->triangle_count;
    d.normal = v3(o->normal);
    d.velocity = v3(o->velocity);
    d.restitution = o->restitution;
    d.friction = o->friction;
    d.category_bits = o->category_bits;
    d.mask_bits = o->mask_bits;
    d.angular_velocity = v3(o->angular_velocity);
    d.surface_velocity = v3(o->surface_velocity);
    d.rolling_resistance = o->rolling_resistance;
    return kyu_collider_create(w, &d, out);
}

int kyupy_collider_set_velocity(kyu_world *w, kyu_collider_id id, const float v[3]) {
    return kyu_collider_set_velocity(w, id, v3(v));
}

int kyupy_collider_set_transform(kyu_world *w, kyu_collider_id id, const float p[3], const float q[4]) {
    return kyu_collider_set_transform(w, id, v3(p), (versors){{q[0], q[1], q[2], q[3]}});
}

int kyupy_collider_get_position(const kyu_world *w, kyu_collider_id id, float out[3]) {
    vec3s p;
    kyu_status st = kyu_collider_get_position(w, id, &p);
    if (st == KYU_OK) put3(out, p);
    return st;
}

// ---- queries -------------------------------------------------------------------------------------

static kyu_query_filter filter_in(const kyupy_filter *f) {
    kyu_query_filter q = kyu_query_filter_default();
    q.category_bits = f->category_bits;
    q.mask_bits = f->mask_bits;
    q.skip_colliders = f->skip_colliders != 0;
    q.ignore_body = f->ignore_body;
    return q;
}

static void hit_out(const kyu_query_hit *h, kyupy_hit *o) {
    o->hit = h->hit;
    o->body = h->body;
    o->collider = h->collider;
    put3(o->point, h->point);
    put3(o->normal, h->normal);
    o->fraction = h->fraction;
}

int kyupy_raycast(kyu_world *w, const float origin[3], const float translation[3], const kyupy_filter *f,
                  kyupy_hit *out) {
    kyu_query_hit h;
    kyu_status st = kyu_world_raycast(w, v3(origin), v3(translation), filter_in(f), &h);
    hit_out(&h, out);
    return st;
}

int kyupy_raycast_all(kyu_world *w, const float origin[3], const float translation[3], const kyupy_filter *f,
                      kyupy_hit *hits, int capacity, int *count) {
    kyu_query_hit *tmp = capacity > 0 ? malloc((size_t)capacity * sizeof *tmp) : NULL;
    if (capacity > 0 && tmp == NULL) return KYU_ERR_OUT_OF_MEMORY;
    kyu_status st = kyu_world_raycast_all(w, v3(origin), v3(translation), filter_in(f), tmp, capacity, count);
    for (int i = 0; st == KYU_OK && i < *count && i < capacity; i++) hit_out(&tmp[i], &hits[i]);
    free(tmp);
    return st;
}

int kyupy_sphere_cast(kyu_world *w, const float origin[3], float radius, const float translation[3],
                      const kyupy_filter *f, kyupy_hit *out) {
    kyu_query_hit h;
    kyu_status st = kyu_world_sphere_cast(w, v3(origin), radius, v3(translation), filter_in(f), &h);
    hit_out(&h, out);
    return st;
}

int kyupy_overlap_sphere(kyu_world *w, const float center[3], float radius, const kyupy_filter *f,
                         kyu_body_id *ids, int capacity, int *count) {
    return kyu_world_overlap_sphere(w, v3(center), radius, filter_in(f), ids, capacity, count);
}

int kyupy_overlap_aabb(kyu_world *w, const float lower[3], const float upper[3], const kyupy_filter *f,
                       kyu_body_id *ids, int capacity, int *count) {
    return kyu_world_overlap_aabb(w, v3(lower), v3(upper), filter_in(f), ids, capacity, count);
}

int kyupy_nearest_body(kyu_world *w, const float point[3], float max_distance, const kyupy_filter *f,
                       kyu_body_id *out, float *distance) {
    return kyu_world_nearest_body(w, v3(point), max_distance, filter_in(f), out, distance);
}

static void distance_out(const kyu_distance_result *r, kyupy_distance *o) {
    o->distance = r->distance;
    put3(o->point_a, r->point_a);
    put3(o->point_b, r->point_b);
    put3(o->normal, r->normal);
}

int kyupy_body_distance(const kyu_world *w, kyu_body_id a, kyu_body_id b, kyupy_distance *out) {
    kyu_distance_result r;
    kyu_status st = kyu_body_distance(w, a, b, &r);
    if (st == KYU_OK) distance_out(&r, out);
    return st;
}

int kyupy_body_collider_distance(const kyu_world *w, kyu_body_id a, kyu_collider_id c, kyupy_distance *out) {
    kyu_distance_result r;
    kyu_status st = kyu_body_collider_distance(w, a, c, &r);
    if (st == KYU_OK) distance_out(&r, out);
    return st;
}

// ---- insertion and measures ----------------------------------------------------------------------

void kyupy_inserter_def_default(kyupy_inserter_def *o) {
    kyu_inserter_def d = kyu_inserter_def_default();
    memset(o, 0, sizeof *o);
    kyupy_body_def_default(&o->body);
    o->shape = (int)d.region.shape;
    o->rotation[3] = 1.0f;
    put3(o->half_extents, d.region.half_extents);
    o->size_kind = (int)d.size.kind;
    o->attempts = d.attempts;
    o->seed = d.seed;
}

int kyupy_inserter_create(kyu_world *w, const kyupy_inserter_def *o, kyu_inserter **out) {
    kyu_inserter_def d = kyu_inserter_def_default();
    d.body = body_def_in(&o->body);
    d.density = o->density;
    d.region.shape = (kyu_region_shape)o->shape;
    d.region.center = v3(o->center);
    d.region.rotation = (versors){{o->rotation[0], o->rotation[1], o->rotation[2], o->rotation[3]}};
    d.region.half_extents = v3(o->half_extents);
    d.region.radius = o->region_radius;
    d.region.half_height = o->half_height;
    d.size.kind = (kyu_size_kind)o->size_kind;
    d.size.mean = o->mean, d.size.sigma = o->sigma, d.size.min = o->min, d.size.max = o->max;
    d.size.radii = o->radii, d.size.weights = o->weights, d.size.count = o->classes;
    d.size.basis = o->by_mass ? KYU_MIX_BY_MASS : KYU_MIX_BY_NUMBER;
    d.velocity = v3(o->velocity);
    d.cone_degrees = o->cone_degrees;
    d.count = o->count;
    d.volume_fraction = o->volume_fraction, d.rate = o->rate, d.mass_rate = o->mass_rate;
    d.attempts = o->attempts;
    d.seed = o->seed;
    return kyu_inserter_create(w, &d, out);
}

int kyupy_world_measure_box(const kyu_world *w, const float lower[3], const float upper[3],
                            kyu_region_measure *out) {
    return kyu_world_measure_box(w, v3(lower), v3(upper), out);
}

int kyupy_write_network_vtp(kyu_world *w, double time, const char *path) {
    return kyu_network_write_vtp(w, time, path);
}

// ---- frame files ---------------------------------------------------------------------------------

// The frame of the bodies `ids` (n of them), or of every live body when ids is NULL: kyu-sim's
// gatherer (tools/frame_files.c), so the files are the same bytes as kyu-sim's.
int kyupy_write_vtp(kyu_world *w, const kyu_body_id *ids, int n, long step, double time, const char *path) {
    kyu_frame_data g;
    kyu_frame frame;
    int st = kyu_frame_gather(w, ids, n, step, time, &g, &frame);
    if (st == KYU_OK && kyu_frame_write_vtp(&frame, path) != 0) st = KYU_ERR_IO;
    kyu_frame_data_free(&g);
    return st;
}

int kyupy_write_xyz(kyu_world *w, const kyu_body_id *ids, int n, long step, double time, const float *box,
                    int bodies_box, const char *path, int append) {
    kyu_frame_data g;
    kyu_frame frame;
    float bounds[6];
    int st = kyu_frame_gather(w, ids, n, step, time, &g, &frame);
    bool pbc[3];
    float given[6] = {0}; // a box the caller gave keeps its corners; the world says which axes wrap
    if (st == KYU_OK && box == NULL && bodies_box) {
        int have = kyu_frame_bounds(&frame, memset(bounds, 0, sizeof bounds)); // the bodies' span
        if (kyu_frame_periodic_cell(w, bounds, pbc) | have) box = bounds;      // a periodic axis: its box
    } else {
        kyu_frame_periodic_cell(w, given, pbc);
    }
    if (st == KYU_OK) {
        FILE *f = fopen(path, append ? "a" : "w");
        if (f == NULL) {
            st = KYU_ERR_IO;
        } else {
            int bad = kyu_frame_write_xyz(&frame, f, box, pbc) != 0;
            if ((fclose(f) != 0) | bad) st = KYU_ERR_IO;
        }
    }
    kyu_frame_data_free(&g);
    return st;
}
