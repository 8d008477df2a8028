// SPDX-License-Identifier: MIT
// Private to the engine: the impact module (impact.c, toi.c, response.c): paths and times of
// impact, the time-ordered queue, and the impulses of one impact.
#ifndef KYU_IMPACTS_H
#define KYU_IMPACTS_H

#include "colliders.h"

typedef struct kyu_height_key { // a body's height along gravity, to sort by
    float height;
    uint32_t slot;
} kyu_height_key;

// The next contact of a body with a partner (engine/toi.c).
typedef struct kyu_sweep_contact {
    float t;        // time of contact, fraction of the step
    vec3s normal;   // from the partner to the body, at contact
    float gap;      // signed gap now (at the time asked about)
    float approach; // closing speed along the normal at contact (> 0 approaching)
    float accel;    // relative acceleration along the normal (< 0: pressing together)
    int face;       // a mesh's triangle: KYU_MET_ON_FACE (not at an edge or a corner), KYU_MET_AT_REST
} kyu_sweep_contact;
// kyu_sweep_contact.face: met on the triangle's face; met a micrometre above it at rest or rising
// slower than gravity brings it back (it presses there: engine/shape.c, mesh_next_visit).
#define KYU_MET_ON_FACE 1
#define KYU_MET_AT_REST 2

typedef struct impact_event {
    float t;
    uint32_t a, b;
    uint32_t va, vb;
    vec3s normal; // at the contact (a mesh's triangle: the mesh has no single nearest normal)
} impact_event;

typedef struct event_heap {
    impact_event *ev;
    int count, cap, peak; // peak: the most it held this step
} event_heap;

// The first impacts of one run of the candidate pairs (kyu_pair_source), in pair order.
typedef struct event_chunk {
    impact_event *ev;
    int count, cap;
    int failed; // out of memory
} event_chunk;

// An impact's impulse, kept for the forces of the step (kyu_world_enable_impact_forces, measure.c).
typedef struct impact_tally {
    uint32_t a, b; // body slot a; b a body slot or a collider code
    vec3s normal;  // unit, from b to a, at the impact
    vec3s impulse; // N s on a (normal and friction); b takes the opposite
} impact_tally;

// The impact stage (impact.c). The queue is two heaps with one order: events at the instant of the
// impact being resolved (a touching pair that the impact set closing: a cradle's row, a stack
// struck from above) go to `now`, which stays small; later events go to `later`.
typedef struct impact_state {
    event_heap later, now;
    struct event_chunk *chunks; // the first impacts of slices of the pair list, in parallel
    int chunk_cap;
    uint8_t *hits;     // per slot (grown with the body store): impacts taken at instant hit_t
    uint32_t *instant; // the bodies struck at instant_t (a collapse solves them together)
    int instant_count, instant_cap;
    float instant_t;
    kyu_height_key *keys; // sorting a collapse's bodies, lowest first
    int keys_cap;
    uint32_t *partners; // a collapsed body's partners in slot order (the grid's is the cell's)
    int partners_cap;
    uint32_t *version;            // per slot, from the step's arena during the stage: bumped on every
    float *limit_t;               //   velocity change (stale queue entries); where a body stops when the
    float *hit_t;                 //   event cap is hit; the instant of its last impact
    impact_tally *tally;          // the step's impacts when tally_on (response.c writes them, world.c empties
    int tally_count, tally_cap;   //   the list at the start of each step, measure.c reads them)
    uint8_t tally_on, tally_lost; // kept; a step's tally that ran out of memory (then incomplete)
} impact_state;

// toi.c
vec3s kyu_pos_at(const kyu_world *w, uint32_t i, float t);
vec3s kyu_vel_at(const kyu_world *w, uint32_t i, float t);
void kyu_path_box(const kyu_world *w, uint32_t i, float t, aabb *out);
void kyu_broadphase_box(const kyu_world *w, uint32_t i, float t, aabb *out);
// Whether the caller counts a contact the sweep found after time tau (next_impact's rules).
typedef int kyu_contact_keep_fn(const kyu_world *w, uint32_t a, uint32_t b, float tau,
                                const kyu_sweep_contact *c);
int kyu_next_contact(const kyu_world *w, uint32_t a, uint32_t b, float tau, kyu_contact_keep_fn *keep,
                     kyu_sweep_contact *out);
int kyu_sweep_needless(const kyu_world *w, uint32_t a, uint32_t b, float tau, float speed);

// impact.c
int kyu_impacts_resolve(kyu_world *w);
void kyu_impacts_free(impact_state *s);

// When a touching pair (relative normal velocity vn, relative acceleration an along the normal,
// both positive apart) next presses into each other within [0, S]: at once if it closes now or
// rests pressed (vn = 0), or when its relative parabola brings it back to where it is (a ball that
// just bounced lands again at 2 vn / |an|), never (-1) otherwise. A body falling onto what it
// touches must not sink: this moment is the queue's to handle.
static inline float kyu_press_time(float vn, float an, float S) {
    if (vn < 0.0f) return 0.0f;
    if (!(an < 0.0f)) return -1.0f;
    float s = 2.0f * vn / -an;
    return s <= S ? s : -1.0f;
}

// response.c: the impulse given to body a (normal and tangential parts)
typedef struct kyu_impulse {
    float normal;
    vec3s tangent;
} kyu_impulse;
kyu_impulse kyu_respond_pair(kyu_world *w, uint32_t a, uint32_t b, vec3s n, float e);
kyu_impulse kyu_respond_collider(kyu_world *w, uint32_t a, const collider *c, vec3s n, float e);
void kyu_impacts_tally(kyu_world *w, uint32_t a, uint32_t b, vec3s n, vec3s impulse); // when tally_on
void kyu_impacts_tally_free(impact_state *s);

#endif
