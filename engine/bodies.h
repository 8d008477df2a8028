// SPDX-License-Identifier: MIT
// Private to the engine: the bodies' module (body.c, handle.c): particles by slot.
#ifndef KYU_BODIES_H
#define KYU_BODIES_H

#include "common.h"

// A body's drag: linear and angular damping (1/s) and rolling resistance (dimensionless), the
// parameters most worlds leave at 0.
typedef struct body_drag {
    float linear, angular, rolling;
} body_drag;

// Particles, by slot. Slots of removed bodies go on a free list and are reused.
typedef struct body_store {
    int capacity;     // slots allocated
    int high;         // slots [0, high) have ever been used
    int count;        // live bodies
    float max_radius; // the largest radius of any body created (never shrinks)
    vec3s *pos, *vel, *prev;
    vec3s *ang;         // angular velocity, rad/s, world frame
    versors *rot;       // orientation (unit)
    float *inv_inertia; // 1 / (inertia_scale 2/5 m r^2); 0: fixed rotation (it never turns)
    body_drag *drag;    // NULL until a body is created with some drag: every body's is 0 until then, and
                        //   a world that never sets one spends no memory on it (kyu_body_drag)
    float *radius, *inv_mass, *mass, *restitution, *friction, *gravity_scale;
    void **user;
    uint32_t *category, *mask, *material;
    int32_t *group;
    uint8_t *sensor, *allow_sleep;
    uint8_t *awake;        // 0 while its island sleeps
    float *sleep_timer;    // s the body has been slower than sleep_speed
    uint32_t *island;      // sleeping island record of a sleeping body
    uint32_t *sleep_epoch; // bumped when the body falls asleep (stale sleep-grid entries)
    uint32_t *generation;
    uint8_t *alive;
    int *free_slots; // slots ready for reuse
    int free_count;
} body_store;

// filter: whether a body pair / body-collider pair may collide (before sensors are considered).
static inline int kyu_filter_bodies(const body_store *s, uint32_t a, uint32_t b) {
    if (s->group[a] != 0 && s->group[a] == s->group[b]) return s->group[a] > 0;
    return (s->mask[a] & s->category[b]) && (s->mask[b] & s->category[a]);
}

static inline body_drag kyu_body_drag(const body_store *s, uint32_t i) {
    return s->drag ? s->drag[i] : (body_drag){0.0f, 0.0f, 0.0f};
}
int kyu_bodies_need_drag(body_store *s); // body.c: allocates the drag array (all 0) if none yet

// handle.c: a handle to its slot (-1 and *status when it names none)
int kyu_body_slot(const kyu_world *w, kyu_body_id id, kyu_status *status);
int kyu_collider_slot(const kyu_world *w, kyu_collider_id id, kyu_status *status);

// body.c
kyu_status kyu_body_def_validate(kyu_world *w, const kyu_body_def *d);
kyu_status kyu_body_check_position(kyu_world *w, vec3s p, float radius); // the reach (world.h)
kyu_status kyu_body_check_velocity(kyu_world *w, vec3s v, float radius, const char *what);
kyu_status kyu_body_check_angular_velocity(kyu_world *w, vec3s av, float radius, const char *what);
kyu_status kyu_body_check_rotation(kyu_world *w, versors q);
kyu_status kyu_body_check_spin(kyu_world *w, int slot, vec3s av, const char *what); // and fixed rotation
float kyu_body_inv_inertia(float mass, float radius, float inertia_scale, bool fixed_rotation);
versors kyu_body_interpolated_rotation(const kyu_world *w, uint32_t slot); // for drawing, at alpha
int kyu_bodies_reserve(kyu_world *w, int slots);
void kyu_bodies_free(body_store *b);

#endif
