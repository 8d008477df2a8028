// SPDX-License-Identifier: MIT
// Private to the engine: the bodies' module (body.c, handle.c): particles by slot.
#ifndef KYU_BODIES_H
#define KYU_BODIES_H

#include "common.h"

// What a body shares with every body made with the same parameters: its surface (restitution,
// friction, the user's material tag), its filter (category, mask, group, sensor), its gravity
// scale, its drag and whether it may sleep. None of them changes after the body is created, and a
// world has few distinct sets (PILE and GAS have one), so each set is stored once and a body holds
// its index (kyu_bodies_kind_of): 4 bytes a body instead of 44. A world whose every body differs
// spends 44 bytes a kind and a few for the lookup table instead.
typedef struct body_kind {
    float restitution, friction, gravity_scale;
    float linear_damping, angular_damping, rolling; // 1/s, 1/s, dimensionless
    uint32_t category, mask, material;
    int32_t group;
    uint8_t sensor, allow_sleep;
} body_kind;

// A force and a torque applied to a body since the last step (kyu_body_apply_force and the calls
// beside it), summed: they act over the next kyu_world_step, or every step of the next
// kyu_world_update, and are cleared after it (world.c). Kept aside, not per slot: few bodies hold
// one, and a slot array would cost every body 24 bytes.
typedef struct body_force {
    uint32_t slot;
    vec3s force;  // N
    vec3s torque; // N m (0 for a body of fixed rotation: it never turns)
    uint8_t held; // scratch of the step (world.c): a contact holds the body this step
} body_force;

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
    float *radius, *inv_mass, *mass;
    uint32_t *kind; // index into kinds
    void **user;
    uint8_t *awake;        // 0 while its island sleeps
    float *sleep_timer;    // s the body has been slower than sleep_speed
    float *rest_speed;     // m/s: its speed when that rest began (island.c; read while sleep_timer > 0)
    uint32_t *island;      // sleeping island record of a sleeping body
    uint32_t *sleep_epoch; // bumped when the body falls asleep (stale sleep-grid entries)
    uint32_t *generation;
    uint8_t *alive;
    int *free_slots; // slots ready for reuse
    int free_count;
    int *limbo;       // slots freed since the last step, in order: not reused until the step's start has
    int limbo_count;  //   dropped the contacts that name them (kyu_contacts_purge), so a contact's
                      //   slots always name the bodies it was made with (contacts keep no generation)
    body_kind *kinds; // each distinct set of shared parameters once (never removed)
    int kind_count, kind_cap;
    uint32_t *kind_table; // open addressing over kinds by their bits: index + 1, 0 empty
    int kind_table_size;
    body_force *forces; // the bodies holding a force or torque for the next step, in the order of
    int force_count;    //   their first push (a removed body's entry stays, unread, until cleared)
    int force_cap;
    uint32_t *force_table; // open addressing over forces by slot: index + 1, 0 empty; a power of two
    int force_table_size;  //   at least twice force_count (0 before the first force)
} body_store;

static inline const body_kind *kyu_body_kind(const body_store *s, uint32_t i) {
    return &s->kinds[s->kind[i]];
}

// The force and torque body i holds for the next step, or NULL (at once when no body holds one).
static inline body_force *kyu_body_force_of(const body_store *s, uint32_t i) {
    if (s->force_count == 0) return NULL;
    uint32_t mask = (uint32_t)s->force_table_size - 1;
    for (uint32_t h = (i * 2654435761u) & mask;; h = (h + 1) & mask) { // Knuth's multiplicative hash
        uint32_t k = s->force_table[h];
        if (k == 0) return NULL;
        if (s->forces[k - 1].slot == i) return &s->forces[k - 1];
    }
}

// filter: whether a body pair / body-collider pair may collide (before sensors are considered).
static inline int kyu_filter_bodies(const body_store *s, uint32_t a, uint32_t b) {
    const body_kind *ka = kyu_body_kind(s, a), *kb = kyu_body_kind(s, b);
    if (ka->group != 0 && ka->group == kb->group) return ka->group > 0;
    return (ka->mask & kb->category) && (kb->mask & ka->category);
}

// The generation of the body in slot i that contacts name: the live body's, or, for a slot in limbo,
// the removed body's (one less: removal bumped it, and the slot has not been reused since).
static inline uint32_t kyu_body_named_generation(const body_store *s, uint32_t i) {
    return s->alive[i] ? s->generation[i] : s->generation[i] - 1;
}

// body.c: a def's shared parameters, and the index of a set (added if new; -1: out of memory)
body_kind kyu_body_kind_of_def(const kyu_body_def *d);
int kyu_bodies_kind_of(body_store *s, const body_kind *k);
void kyu_bodies_release_limbo(body_store *s); // the slots in limbo join the free list
// body.c: body i's entry for a force, made if new (zero); NULL: out of memory, nothing changed
body_force *kyu_bodies_force_entry(body_store *s, uint32_t i);
void kyu_bodies_clear_forces(body_store *s); // after a step (or an update) consumed them

// handle.c: a handle to its slot (-1 and *status when it names none)
int kyu_body_slot(const kyu_world *w, kyu_body_id id, kyu_status *status);
int kyu_collider_slot(const kyu_world *w, kyu_collider_id id, kyu_status *status);

// body.c
kyu_status kyu_body_def_validate(kyu_world *w, const kyu_body_def *d);
kyu_status kyu_body_check_position(kyu_world *w, vec3s p, float radius); // the reach (world.h)
kyu_status kyu_body_check_velocity(kyu_world *w, vec3s v, float radius, const char *what);
kyu_status kyu_body_check_angular_velocity(kyu_world *w, vec3s av, float radius, const char *what);
kyu_status kyu_body_check_rotation(kyu_world *w, versors q);
kyu_status kyu_body_check_periodic_radius(kyu_world *w, float r, float rest_speed); // the periodic box
kyu_status kyu_body_check_spin(kyu_world *w, int slot, vec3s av, const char *what); // and fixed rotation
float kyu_body_inv_inertia(float mass, float radius, float inertia_scale, bool fixed_rotation);

// Whether a body of radius r may hold inverse inertia ii: 0 (fixed rotation: the only marker of it,
// so a body that turns never gets it), or ii and the angular momentum I |w| of the fastest spin kyu
// accepts (|w| and |w| r at most KYU_MAX_COORD) both at most KYU_SPIN_ROOM (then 1 / ii is a float
// too). Create, load and the validator ask this of the same bits.
static inline int kyu_inv_inertia_ok(float ii, float r) {
    double fastest = (double)KYU_MAX_COORD / fmax((double)r, 1.0);
    return ii == 0.0f || (ii <= KYU_SPIN_ROOM && fastest <= (double)KYU_SPIN_ROOM * (double)ii);
}
versors kyu_body_interpolated_rotation(const kyu_world *w, uint32_t slot); // for drawing, at alpha
int kyu_bodies_reserve(kyu_world *w, int slots);
void kyu_bodies_free(body_store *b);

#endif
