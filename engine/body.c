// SPDX-License-Identifier: MIT
// Particle storage (flat arrays by slot), handles with generations, slot reuse, and the body API.
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int grow(void **p, size_t elem, int n) {
    void *q = realloc(*p, (size_t)n * elem);
    if (!q) return -1;
    *p = q;
    return 0;
}
#define GROW(p, n) grow((void **)&(p), sizeof *(p), (n))

// Every per-slot array, body data and per-step scratch alike, grows together. On failure the
// arrays already grown keep their contents, so the world stays consistent.
int kyu_bodies_reserve(kyu_world *w, int slots) {
    body_store *b = &w->bodies;
    if (slots <= b->capacity) return 0;
    int n = b->capacity > 0 ? b->capacity : slots > 64 ? slots : 64; // the first reserve: as asked
    while (n < slots) n = n > (1 << 29) ? slots : n * 2;
    int failed = GROW(b->pos, n) || GROW(b->vel, n) || GROW(b->prev, n) || GROW(b->radius, n) ||
        GROW(b->inv_mass, n) || GROW(b->mass, n) || GROW(b->restitution, n) ||
        GROW(b->friction, n) || GROW(b->damping, n) || GROW(b->gravity_scale, n) ||
        GROW(b->user, n) || GROW(b->category, n) || GROW(b->mask, n) || GROW(b->group, n) ||
        GROW(b->sensor, n) || GROW(b->allow_sleep, n) || GROW(b->awake, n) ||
        GROW(b->sleep_timer, n) || GROW(b->island, n) || GROW(b->sleep_epoch, n) || GROW(w->active, n) ||
        GROW(w->cf_offset, n) || GROW(w->cf_count, n) || GROW(w->slab, n) || GROW(w->uf_record, n) || GROW(b->generation, n) || GROW(b->alive, n) ||
        GROW(b->free_slots, n) || GROW(w->t_body, n) || GROW(w->accel, n) || GROW(w->version, n) || GROW(w->box, n) ||
        GROW(w->adj_start, n + 1) || GROW(w->late_head, n) || GROW(w->limit_t, n) ||
        GROW(w->grid.stamp, n) || GROW(w->grid.multi_rec, n);
    w->uf_parent = w->version; // the island pass borrows two impact stage arrays (internal.h), moved or not
    w->uf_rest = w->limit_t;
    if (failed) return -1;
    memset(b->generation + b->capacity, 0, (size_t)(n - b->capacity) * sizeof *b->generation);
    memset(b->alive + b->capacity, 0, (size_t)(n - b->capacity));
    memset(b->sleep_epoch + b->capacity, 0, (size_t)(n - b->capacity) * sizeof *b->sleep_epoch);
    memset(w->grid.stamp + b->capacity, 0, (size_t)(n - b->capacity) * sizeof *w->grid.stamp);
    memset(w->grid.multi_rec + b->capacity, 0xff, (size_t)(n - b->capacity) * sizeof *w->grid.multi_rec);
    b->capacity = n;
    return 0;
}

void kyu_bodies_free(body_store *b) {
    free(b->pos); free(b->vel); free(b->prev); free(b->radius); free(b->inv_mass); free(b->mass);
    free(b->restitution); free(b->friction); free(b->damping); free(b->gravity_scale);
    free(b->user); free(b->category); free(b->mask); free(b->group); free(b->sensor); free(b->allow_sleep); free(b->awake); free(b->sleep_timer);
    free(b->island); free(b->sleep_epoch); free(b->generation); free(b->alive); free(b->free_slots);
    memset(b, 0, sizeof *b);
}

int kyu_body_slot(const kyu_world *w, kyu_body_id id, kyu_status *status) {
    if (id.index1 == 0) { // the null handle
        *status = KYU_ERR_STALE_HANDLE;
        return -1;
    }
    if (id.world != w->id) {
        *status = KYU_ERR_FOREIGN_HANDLE;
        return -1;
    }
    if (id.index1 > (uint32_t)w->bodies.high) {
        *status = KYU_ERR_STALE_HANDLE;
        return -1;
    }
    int slot = (int)(id.index1 - 1);
    if (!w->bodies.alive[slot] ||
        w->bodies.generation[slot] != id.generation) {
        *status = KYU_ERR_STALE_HANDLE;
        return -1;
    }
    *status = KYU_OK;
    return slot;
}

// Looks up a handle for a function, or returns its error from the calling function.
#define BODY_SLOT(w, id, slot)                                                                     \
    kyu_status st_ = KYU_OK;                                                                            \
    if (!(w)) return KYU_ERR_NULL;                                                                 \
    int slot = kyu_body_slot((w), (id), &st_);                                                     \
    if (slot < 0)                                                                                  \
        return kyu_fail((kyu_world *)(w), st_, "body handle {index1 %u, generation %u, world %u}", \
                        (id).index1, (id).generation, (id).world);

kyu_body_def kyu_body_def_default(void) {
    kyu_body_def d;
    memset(&d, 0, sizeof d);
    d.radius = 0.5f;
    d.mass = 1.0f;
    d.restitution = 0.0f;
    d.friction = 0.5f;
    d.linear_damping = 0.0f;
    d.gravity_scale = 1.0f;
    d.category_bits = 1u;
    d.mask_bits = 0xffffffffu;
    d.group = 0;
    d.is_sensor = false;
    d.allow_sleep = true;
    d.internal_cookie = KYU_DEF_COOKIE;
    return d;
}

static kyu_status validate_def(kyu_world *w, const kyu_body_def *d) {
    if (d->internal_cookie != KYU_DEF_COOKIE)
        return kyu_fail(w, KYU_ERR_INVALID_DEF, "start from kyu_body_def_default()");
    if (!kyu_bounded3(d->position, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "body position must be finite, |x| <= 1e9");
    if (!kyu_bounded3(d->velocity, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "body velocity must be finite, |v| <= 1e9");
    if (!(d->radius > 0.0f && d->radius <= KYU_MAX_RADIUS))
        return kyu_fail(w, KYU_ERR_RADIUS, "radius %g (allowed: (0, 1e6])", (double)d->radius);
    if (!(d->mass >= KYU_MIN_MASS && d->mass <= KYU_MAX_MASS))
        return kyu_fail(w, KYU_ERR_MASS, "mass %g (allowed: [1e-20, 1e20])", (double)d->mass);
    if (!(d->restitution >= 0.0f && d->restitution <= 1.0f))
        return kyu_fail(w, KYU_ERR_RESTITUTION, "restitution %g", (double)d->restitution);
    if (!(d->friction >= 0.0f && d->friction <= 1e6f))
        return kyu_fail(w, KYU_ERR_FRICTION, "friction %g", (double)d->friction);
    if (!(d->linear_damping >= 0.0f && d->linear_damping <= 1e6f))
        return kyu_fail(w, KYU_ERR_DAMPING, "linear_damping %g", (double)d->linear_damping);
    if (!(fabsf(d->gravity_scale) <= 1e6f))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "gravity_scale %g", (double)d->gravity_scale);
    return KYU_OK;
}

kyu_status kyu_body_create(kyu_world *w, const kyu_body_def *d, kyu_body_id *out) {
    if (out) *out = KYU_NULL_BODY;
    if (!w || !d) return w ? kyu_fail(w, KYU_ERR_NULL, "body def is NULL") : KYU_ERR_NULL;
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_body_create during a step");
    kyu_status st = validate_def(w, d);
    if (st != KYU_OK) return st;
    body_store *b = &w->bodies;
    if (b->count >= w->def.max_bodies)
        return kyu_fail(w, KYU_ERR_CAPACITY, "max_bodies = %d", w->def.max_bodies);
    int slot;
    if (b->free_count > 0) {
        slot = b->free_slots[--b->free_count];
    } else {
        if (kyu_bodies_reserve(w, b->high + 1))
            return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "growing body storage");
        slot = b->high++;
        b->generation[slot] = 0;
    }
    b->pos[slot] = d->position;
    b->prev[slot] = d->position;
    b->vel[slot] = d->velocity;
    b->radius[slot] = d->radius;
    b->mass[slot] = d->mass;
    b->inv_mass[slot] = 1.0f / d->mass;
    b->restitution[slot] = d->restitution;
    b->friction[slot] = d->friction;
    b->damping[slot] = d->linear_damping;
    b->gravity_scale[slot] = d->gravity_scale;
    b->user[slot] = d->user_data;
    b->category[slot] = d->category_bits;
    b->mask[slot] = d->mask_bits;
    b->group[slot] = d->group;
    b->sensor[slot] = d->is_sensor ? 1 : 0;
    b->allow_sleep[slot] = d->allow_sleep ? 1 : 0;
    b->awake[slot] = 1;
    b->sleep_timer[slot] = 0.0f;
    b->generation[slot] = b->generation[slot] + 1;
    if (b->generation[slot] == 0) b->generation[slot] = 1; // 0 never names a live body
    b->alive[slot] = 1;
    b->count++;
    if (out) *out = (kyu_body_id){(uint32_t)slot + 1, w->id, b->generation[slot]};
    kyu_query_invalidate(w);
    return KYU_OK;
}

// Bodies were removed since the last step: drop their contacts in one pass, however many were
// removed. A contact names its bodies by slot and generation, so a slot already reused by a new
// body is not mistaken for the old one.
int kyu_bodies_drop_removed_contacts(kyu_world *w) {
    body_store *b = &w->bodies;
    if (b->removed == 0) return 0;
    int n = 0;
    for (int i = 0; i < w->contact_count; i++) {
        const contact *c = &w->contacts[i];
        int gone = !b->alive[c->a] || b->generation[c->a] != c->ga ||
                   (!(c->b & KYU_COLLIDER_BIT) && (!b->alive[c->b] || b->generation[c->b] != c->gb));
        if (!gone) {
            w->contacts[n++] = *c;
        } else if (c->touching &&
                   kyu_event_push(&w->end_events, &w->end_count, &w->end_cap, kyu_contact_event_of(w, c))) {
            return -1;
        }
    }
    w->contact_count = n;
    b->removed = 0;
    return 0;
}

kyu_status kyu_body_destroy(kyu_world *w, kyu_body_id id) {
    BODY_SLOT(w, id, slot);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_body_destroy during a step");
    // Its island wakes: what rested on it must fall (and its contacts return to the cache, where
    // the next step drops them and reports their end).
    if (kyu_wake_body(w, (uint32_t)slot) || kyu_islands_flush_woken(w))
        return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "waking the removed body's island");
    body_store *b = &w->bodies;
    b->alive[slot] = 0;
    b->generation[slot] = b->generation[slot] + 1;
    b->free_slots[b->free_count++] = slot;
    b->count--;
    b->removed++;
    kyu_query_invalidate(w);
    return KYU_OK;
}

bool kyu_body_is_valid(const kyu_world *w, kyu_body_id id) {
    kyu_status st;
    return w && kyu_body_slot(w, id, &st) >= 0;
}

kyu_status kyu_body_get_position(const kyu_world *w, kyu_body_id id, vec3s *out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail((kyu_world *)w, KYU_ERR_NULL, "out is NULL");
    *out = w->bodies.pos[slot];
    return KYU_OK;
}

kyu_status kyu_body_set_position(kyu_world *w, kyu_body_id id, vec3s p) {
    BODY_SLOT(w, id, slot);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_body_set_position during a step");
    if (!kyu_bounded3(p, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "position must be finite, |x| <= 1e9");
    if (kyu_wake_body(w, (uint32_t)slot)) return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "waking its island");
    w->bodies.pos[slot] = p;
    w->bodies.prev[slot] = p;
    kyu_query_invalidate(w);
    return KYU_OK;
}

kyu_status kyu_body_get_velocity(const kyu_world *w, kyu_body_id id, vec3s *out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail((kyu_world *)w, KYU_ERR_NULL, "out is NULL");
    *out = w->bodies.vel[slot];
    return KYU_OK;
}

kyu_status kyu_body_set_velocity(kyu_world *w, kyu_body_id id, vec3s v) {
    BODY_SLOT(w, id, slot);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_body_set_velocity during a step");
    if (!kyu_bounded3(v, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "velocity must be finite, |v| <= 1e9");
    if (kyu_wake_body(w, (uint32_t)slot)) return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "waking its island");
    w->bodies.vel[slot] = v;
    return KYU_OK;
}

kyu_status kyu_body_apply_impulse(kyu_world *w, kyu_body_id id, vec3s impulse) {
    BODY_SLOT(w, id, slot);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_body_apply_impulse during a step");
    if (!kyu_finite3(impulse)) return kyu_fail(w, KYU_ERR_NOT_FINITE, "impulse must be finite");
    vec3s v = glms_vec3_add(w->bodies.vel[slot], glms_vec3_scale(impulse, w->bodies.inv_mass[slot]));
    if (!kyu_bounded3(v, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "the impulse would make |v| > 1e9");
    if (kyu_wake_body(w, (uint32_t)slot)) return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "waking its island");
    w->bodies.vel[slot] = v;
    return KYU_OK;
}

kyu_status kyu_body_get_interpolated_position(const kyu_world *w, kyu_body_id id, vec3s *out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail((kyu_world *)w, KYU_ERR_NULL, "out is NULL");
    *out = glms_vec3_lerp(w->bodies.prev[slot], w->bodies.pos[slot], w->alpha);
    return KYU_OK;
}

kyu_status kyu_body_get_radius(const kyu_world *w, kyu_body_id id, float *out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail((kyu_world *)w, KYU_ERR_NULL, "out is NULL");
    *out = w->bodies.radius[slot];
    return KYU_OK;
}

kyu_status kyu_body_get_mass(const kyu_world *w, kyu_body_id id, float *out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail((kyu_world *)w, KYU_ERR_NULL, "out is NULL");
    *out = w->bodies.mass[slot];
    return KYU_OK;
}

kyu_status kyu_body_get_user_data(const kyu_world *w, kyu_body_id id, void **out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail((kyu_world *)w, KYU_ERR_NULL, "out is NULL");
    *out = w->bodies.user[slot];
    return KYU_OK;
}

bool kyu_body_is_awake(const kyu_world *w, kyu_body_id id) {
    kyu_status st;
    if (!w) return false;
    int slot = kyu_body_slot(w, id, &st);
    return slot >= 0 && w->bodies.awake[slot];
}

static int push_touching(const kyu_world *w, const contact *c, uint32_t slot, kyu_contact_event *out,
                         int capacity, int n) {
    if (!c->touching || (c->a != slot && c->b != slot)) return n;
    if (n < capacity) out[n] = kyu_contact_event_of(w, c);
    return n + 1;
}

kyu_status kyu_body_get_contacts(const kyu_world *w, kyu_body_id id, kyu_contact_event *out, int capacity,
                                 int *total) {
    BODY_SLOT(w, id, slot);
    if (!total || capacity < 0 || (capacity > 0 && !out))
        return kyu_fail((kyu_world *)w, KYU_ERR_NULL, "total is NULL, or out is NULL with capacity > 0");
    uint32_t s = (uint32_t)slot;
    int n = 0;
    if (w->bodies.awake[slot]) {
        for (int i = 0; i < w->contact_count; i++) n = push_touching(w, &w->contacts[i], s, out, capacity, n);
        for (int i = 0; i < w->woken_count; i++) n = push_touching(w, &w->woken[i], s, out, capacity, n);
    } else {
        const sleep_island *isl = &w->islands[w->bodies.island[slot]];
        for (int i = 0; i < isl->contact_count; i++) n = push_touching(w, &isl->contacts[i], s, out, capacity, n);
    }
    *total = n;
    return KYU_OK;
}
