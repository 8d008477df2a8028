// SPDX-License-Identifier: MIT
// Bulk access (include/kyu/bulk.h): many bodies' state in one call, as flat float arrays, and the
// events as parallel arrays. The list setters check everything before they change anything.
#include <stdio.h>
#include <string.h>

#include "internal.h"

// ---- every live body, in slot order ---------------------------------------------------------------

// The checks every world getter starts with: -1 for a call that cannot be answered.
static int bad_request(const kyu_world *w, const void *out, int capacity) {
    return !w || capacity < 0 || (capacity > 0 && !out);
}

// Copies a vec3s array of the live slots, in slot order; the first `capacity` of them are written.
static int copy_live3(const kyu_world *w, const vec3s *src, float *out, int capacity) {
    const body_store *b = &w->bodies;
    if (b->count == b->high && capacity >= b->count && b->count > 0) { // no free slot: one copy
        memcpy(out, src, (size_t)b->count * sizeof *src);
        return b->count;
    }
    int n = 0;
    for (int i = 0; i < b->high && n < capacity; i++)
        if (b->alive[i]) memcpy(out + 3 * n++, src[i].raw, sizeof src[i].raw);
    return b->count;
}

static int copy_live1(const kyu_world *w, const float *src, float *out, int capacity) {
    const body_store *b = &w->bodies;
    int n = 0;
    for (int i = 0; i < b->high && n < capacity; i++)
        if (b->alive[i]) out[n++] = src[i];
    return b->count;
}

int kyu_world_get_positions(const kyu_world *w, float *out, int capacity) {
    if (bad_request(w, out, capacity)) return -1;
    return copy_live3(w, w->bodies.pos, out, capacity);
}

int kyu_world_get_velocities(const kyu_world *w, float *out, int capacity) {
    if (bad_request(w, out, capacity)) return -1;
    return copy_live3(w, w->bodies.vel, out, capacity);
}

int kyu_world_get_interpolated_positions(const kyu_world *w, float *out, int capacity) {
    if (bad_request(w, out, capacity)) return -1;
    const body_store *b = &w->bodies;
    int n = 0;
    for (int i = 0; i < b->high && n < capacity; i++)
        if (b->alive[i]) { // the same arithmetic as kyu_body_get_interpolated_position
            vec3s p = glms_vec3_lerp(b->prev[i], b->pos[i], w->alpha);
            memcpy(out + 3 * n++, p.raw, sizeof p.raw);
        }
    return b->count;
}

int kyu_world_get_angular_velocities(const kyu_world *w, float *out, int capacity) {
    if (bad_request(w, out, capacity)) return -1;
    return copy_live3(w, w->bodies.ang, out, capacity);
}

int kyu_world_get_rotations(const kyu_world *w, float *out, int capacity) {
    if (bad_request(w, out, capacity)) return -1;
    const body_store *b = &w->bodies;
    int n = 0;
    for (int i = 0; i < b->high && n < capacity; i++)
        if (b->alive[i]) memcpy(out + 4 * n++, b->rot[i].raw, sizeof b->rot[i].raw);
    return b->count;
}

int kyu_world_get_interpolated_rotations(const kyu_world *w, float *out, int capacity) {
    if (bad_request(w, out, capacity)) return -1;
    const body_store *b = &w->bodies;
    int n = 0;
    for (int i = 0; i < b->high && n < capacity; i++)
        if (b->alive[i]) {
            versors q = kyu_body_interpolated_rotation(w, (uint32_t)i);
            memcpy(out + 4 * n++, q.raw, sizeof q.raw);
        }
    return b->count;
}

int kyu_world_get_radii(const kyu_world *w, float *out, int capacity) {
    if (bad_request(w, out, capacity)) return -1;
    return copy_live1(w, w->bodies.radius, out, capacity);
}

int kyu_world_get_masses(const kyu_world *w, float *out, int capacity) {
    if (bad_request(w, out, capacity)) return -1;
    return copy_live1(w, w->bodies.mass, out, capacity);
}

int kyu_world_get_awake(const kyu_world *w, uint8_t *out, int capacity) {
    if (bad_request(w, out, capacity)) return -1;
    const body_store *b = &w->bodies;
    int n = 0;
    for (int i = 0; i < b->high && n < capacity; i++)
        if (b->alive[i]) out[n++] = b->awake[i];
    return b->count;
}

// ---- a list of bodies -------------------------------------------------------------------------------

// Checks the arguments and every handle of a list call; KYU_OK when all are good.
static kyu_status check_list(const kyu_world *w, const kyu_body_id *ids, int count, const void *data,
                             const char *fn) {
    if (!w) return KYU_ERR_NULL;
    if (count < 0) return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "%s: count %d (must be >= 0)", fn, count);
    if (count > 0 && (!ids || !data)) return kyu_fail(w, KYU_ERR_NULL, "%s: ids or the array is NULL", fn);
    for (int k = 0; k < count; k++) {
        kyu_status st;
        if (kyu_body_slot(w, ids[k], &st) < 0)
            return kyu_fail(w, st, "%s: ids[%d] {index1 %u, generation %u, world %u}", fn, k, ids[k].index1,
                            ids[k].generation, ids[k].world);
    }
    return KYU_OK;
}

// After check_list: the slot of a handle known to be good.
static int slot_of(kyu_body_id id) { return (int)(id.index1 - 1); }

static kyu_status get_list3(const kyu_world *w, const kyu_body_id *ids, int count, float *out,
                            const vec3s *src, const char *fn) {
    kyu_status st = check_list(w, ids, count, out, fn);
    if (st != KYU_OK) return st;
    for (int k = 0; k < count; k++) memcpy(out + 3 * k, src[slot_of(ids[k])].raw, sizeof src->raw);
    return KYU_OK;
}

kyu_status kyu_bodies_get_positions(const kyu_world *w, const kyu_body_id *ids, int count, float *out) {
    return get_list3(w, ids, count, out, w ? w->bodies.pos : NULL, "kyu_bodies_get_positions");
}

kyu_status kyu_bodies_get_velocities(const kyu_world *w, const kyu_body_id *ids, int count, float *out) {
    return get_list3(w, ids, count, out, w ? w->bodies.vel : NULL, "kyu_bodies_get_velocities");
}

kyu_status kyu_bodies_get_angular_velocities(const kyu_world *w, const kyu_body_id *ids, int count,
                                             float *out) {
    return get_list3(w, ids, count, out, w ? w->bodies.ang : NULL, "kyu_bodies_get_angular_velocities");
}

kyu_status kyu_bodies_get_rotations(const kyu_world *w, const kyu_body_id *ids, int count, float *out) {
    kyu_status st = check_list(w, ids, count, out, "kyu_bodies_get_rotations");
    if (st != KYU_OK) return st;
    for (int k = 0; k < count; k++)
        memcpy(out + 4 * k, w->bodies.rot[slot_of(ids[k])].raw, 4 * sizeof(float));
    return KYU_OK;
}

kyu_status kyu_bodies_get_radii(const kyu_world *w, const kyu_body_id *ids, int count, float *out) {
    kyu_status st = check_list(w, ids, count, out, "kyu_bodies_get_radii");
    if (st != KYU_OK) return st;
    for (int k = 0; k < count; k++) out[k] = w->bodies.radius[slot_of(ids[k])];
    return KYU_OK;
}

// A setter's checks (the list, the lock, each value as the one-body setter checks it), then the
// wake of the bodies' islands, with all its room reserved first: before any value is written, and
// all or nothing.
enum { SET_VELOCITY, SET_POSITION, SET_ANGULAR_VELOCITY };
static const char *const set_what[] = {"velocity", "position", "angular_velocity"};

static kyu_status prepare_set(kyu_world *w, const kyu_body_id *ids, int count, const float *xyz,
                              const char *fn, int what) {
    int positions = what == SET_POSITION;
    kyu_status st = check_list(w, ids, count, xyz, fn);
    if (st != KYU_OK) return st;
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "%s during a step", fn);
    for (int k = 0; k < 3 * count; k++)
        if (!(fabsf(xyz[k]) <= KYU_MAX_COORD)) // NaN fails this too
            return kyu_fail(w, KYU_ERR_NOT_FINITE,
                            "%s: xyz[%d] = %g (body %d's %s must be finite, |x| <= 1e9)", fn, k,
                            (double)xyz[k], k / 3, set_what[what]);
    const body_store *b = &w->bodies;
    int64_t bodies = 0, contacts = 0;
    for (int k = 0; k < count; k++) {
        int s = slot_of(ids[k]);
        vec3s v = {{xyz[3 * k], xyz[3 * k + 1], xyz[3 * k + 2]}};
        st = what == SET_POSITION   ? kyu_body_check_position(w, v, b->radius[s])
             : what == SET_VELOCITY ? kyu_body_check_velocity(w, v, b->radius[s], "velocity")
                                    : kyu_body_check_spin(w, s, v, "angular_velocity");
        if (st != KYU_OK) {
            char why[256];
            snprintf(why, sizeof why, "%s", kyu_world_last_error(w));
            return kyu_fail(w, st, "%s: ids[%d]: %s", fn, k, why);
        }
        if (!b->awake[s]) {
            const sleep_island *isl = &w->islands.list[b->island[s]];
            bodies += isl->body_count, contacts += isl->contact_count; // an island twice: room to spare
        }
    }
    if (kyu_islands_reserve_wake(w, bodies, contacts) ||
        (positions && RESERVE(w->contacts.fresh, w->contacts.fresh_cap, w->contacts.fresh_count + count)))
        return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "%s: waking the bodies' islands", fn);
    for (int k = 0; k < count; k++) (void)kyu_wake_body(w, (uint32_t)slot_of(ids[k])); // cannot fail now
    return KYU_OK;
}

kyu_status kyu_bodies_set_positions(kyu_world *w, const kyu_body_id *ids, int count, const float *xyz) {
    kyu_status st = prepare_set(w, ids, count, xyz, "kyu_bodies_set_positions", SET_POSITION);
    if (st != KYU_OK) return st;
    body_store *b = &w->bodies;
    for (int k = 0; k < count; k++) {
        int s = slot_of(ids[k]);
        memcpy(b->pos[s].raw, xyz + 3 * k, sizeof b->pos[s].raw);
        b->pos[s] = kyu_periodic_wrap_point(&w->periodic, b->pos[s]); // inside the periodic box
        b->prev[s] = b->pos[s];
        w->contacts.fresh[w->contacts.fresh_count++] =
            (uint32_t)s; // its contacts are found before the next step moves it
    }
    if (count > 0) kyu_query_invalidate(w);
    return KYU_OK;
}

kyu_status kyu_bodies_set_velocities(kyu_world *w, const kyu_body_id *ids, int count, const float *xyz) {
    kyu_status st = prepare_set(w, ids, count, xyz, "kyu_bodies_set_velocities", SET_VELOCITY);
    if (st != KYU_OK) return st;
    for (int k = 0; k < count; k++)
        memcpy(w->bodies.vel[slot_of(ids[k])].raw, xyz + 3 * k, 3 * sizeof(float));
    return KYU_OK;
}

kyu_status kyu_bodies_set_angular_velocities(kyu_world *w, const kyu_body_id *ids, int count,
                                             const float *xyz) {
    kyu_status st =
        prepare_set(w, ids, count, xyz, "kyu_bodies_set_angular_velocities", SET_ANGULAR_VELOCITY);
    if (st != KYU_OK) return st;
    for (int k = 0; k < count; k++)
        memcpy(w->bodies.ang[slot_of(ids[k])].raw, xyz + 3 * k, 3 * sizeof(float));
    return KYU_OK;
}

// ---- events as parallel arrays ----------------------------------------------------------------------

static int contact_events_flat(const kyu_contact_event *ev, int count, const kyu_contact_event_arrays *out,
                               int capacity) {
    int n = count < capacity ? count : capacity;
    for (int i = 0; i < n; i++) {
        if (out->body) out->body[i] = ev[i].body;
        if (out->other) out->other[i] = ev[i].other;
        if (out->collider) out->collider[i] = ev[i].collider;
        if (out->sensor) out->sensor[i] = ev[i].sensor ? 1 : 0;
        if (out->step) out->step[i] = ev[i].step;
    }
    return count;
}

int kyu_world_get_begin_events_flat(const kyu_world *w, const kyu_contact_event_arrays *out, int capacity) {
    if (!w || !out || capacity < 0) return -1;
    return contact_events_flat(w->events.begin, w->events.begin_count, out, capacity);
}

int kyu_world_get_end_events_flat(const kyu_world *w, const kyu_contact_event_arrays *out, int capacity) {
    if (!w || !out || capacity < 0) return -1;
    return contact_events_flat(w->events.end, w->events.end_count, out, capacity);
}

int kyu_world_get_impact_events_flat(const kyu_world *w, const kyu_impact_event_arrays *out, int capacity) {
    if (!w || !out || capacity < 0) return -1;
    int n = w->events.impact_count < capacity ? w->events.impact_count : capacity;
    for (int i = 0; i < n; i++) {
        const kyu_impact_event *ev = &w->events.impacts[i];
        if (out->body) out->body[i] = ev->body;
        if (out->other) out->other[i] = ev->other;
        if (out->collider) out->collider[i] = ev->collider;
        if (out->point) memcpy(out->point + 3 * i, ev->point.raw, sizeof ev->point.raw);
        if (out->normal) memcpy(out->normal + 3 * i, ev->normal.raw, sizeof ev->normal.raw);
        if (out->approach_speed) out->approach_speed[i] = ev->approach_speed;
        if (out->normal_impulse) out->normal_impulse[i] = ev->normal_impulse;
        if (out->tangent_impulse)
            memcpy(out->tangent_impulse + 3 * i, ev->tangent_impulse.raw, sizeof ev->tangent_impulse.raw);
        if (out->time) out->time[i] = ev->time;
        if (out->step) out->step[i] = ev->step;
    }
    return w->events.impact_count;
}
