// SPDX-License-Identifier: MIT
// Events: pairs that begin and end touching (the enter/exit of seed 004), and impacts with their
// closing speed. Arrays rebuilt every step, read after it; no callback runs during a step.
#include <stdlib.h>
#include <string.h>

#include "internal.h"

kyu_body_id kyu_handle_of(const kyu_world *w, uint32_t slot, uint32_t generation) {
    return (kyu_body_id){slot + 1, w->id, generation};
}

kyu_contact_event kyu_contact_event_of(const kyu_world *w, const contact *c) {
    kyu_contact_event ev;
    memset(&ev, 0, sizeof ev);
    ev.body = kyu_handle_of(w, c->a, c->ga);
    if (c->b & KYU_COLLIDER_BIT) {
        uint32_t k = c->b & ~KYU_COLLIDER_BIT;
        ev.collider = (kyu_collider_id){k + 1, w->id, w->colliders[k].generation};
    } else {
        ev.other = kyu_handle_of(w, c->b, c->gb);
    }
    ev.sensor = c->sensor != 0;
    return ev;
}

int kyu_event_push(kyu_contact_event **arr, int *count, int *cap, kyu_contact_event ev) {
    if (kyu_reserve((void **)arr, cap, *count + 1, sizeof **arr)) return -1;
    (*arr)[(*count)++] = ev;
    return 0;
}

// A new step: last step's events are gone; end events of colliders removed since then move in.
int kyu_events_begin_step(kyu_world *w) {
    w->begin_count = w->end_count = w->impact_count = w->impact_key_count = 0;
    for (int i = 0; i < w->pending_end_count; i++)
        if (kyu_event_push(&w->end_events, &w->end_count, &w->end_cap, w->pending_end[i])) return -1;
    w->pending_end_count = 0;
    return 0;
}

static uint64_t pair_key(uint32_t a, uint32_t b) { return ((uint64_t)a << 32) | b; }

int kyu_impact_record(kyu_world *w, uint32_t a, uint32_t b, vec3s n, float approach) {
    if (RESERVE(w->impact_keys, w->impact_key_cap, w->impact_key_count + 1)) return -1;
    uint32_t lo = a, hi = b;
    if (!(b & KYU_COLLIDER_BIT) && b < a) lo = b, hi = a;
    w->impact_keys[w->impact_key_count++] = pair_key(lo, hi);
    if (!(approach > w->def.restitution_threshold)) return 0;
    if (RESERVE(w->impact_events, w->impact_cap, w->impact_count + 1)) return -1;
    const body_store *s = &w->bodies;
    kyu_impact_event *ev = &w->impact_events[w->impact_count++];
    memset(ev, 0, sizeof *ev);
    ev->body = kyu_handle_of(w, a, s->generation[a]);
    if (b & KYU_COLLIDER_BIT) {
        uint32_t k = b & ~KYU_COLLIDER_BIT;
        ev->collider = (kyu_collider_id){k + 1, w->id, w->colliders[k].generation};
    } else {
        ev->other = kyu_handle_of(w, b, s->generation[b]);
    }
    ev->normal = n;
    ev->point = glms_vec3_sub(s->pos[a], glms_vec3_scale(n, s->radius[a]));
    ev->approach_speed = approach;
    return 0;
}

static int by_key(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

void kyu_impact_keys_sort(kyu_world *w) {
    if (w->impact_key_count > 1) qsort(w->impact_keys, (size_t)w->impact_key_count, sizeof *w->impact_keys, by_key);
}

int kyu_impact_was(const kyu_world *w, uint32_t a, uint32_t b) {
    if (w->impact_key_count == 0) return 0;
    uint64_t key = pair_key(a, b);
    return bsearch(&key, w->impact_keys, (size_t)w->impact_key_count, sizeof key, by_key) != NULL;
}

const kyu_contact_event *kyu_world_begin_events(const kyu_world *w, int *count) {
    if (count) *count = w ? w->begin_count : 0;
    return w && w->begin_count ? w->begin_events : NULL;
}

const kyu_contact_event *kyu_world_end_events(const kyu_world *w, int *count) {
    if (count) *count = w ? w->end_count : 0;
    return w && w->end_count ? w->end_events : NULL;
}

const kyu_impact_event *kyu_world_impact_events(const kyu_world *w, int *count) {
    if (count) *count = w ? w->impact_count : 0;
    return w && w->impact_count ? w->impact_events : NULL;
}
