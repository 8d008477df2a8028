// SPDX-License-Identifier: MIT
// Events (docs/design.md, "Events"): pairs that begin and end touching, and impacts with their
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
    ev.body = kyu_handle_of(w, c->a, kyu_body_named_generation(&w->bodies, c->a));
    if (c->b & KYU_COLLIDER_BIT) {
        uint32_t k = c->b & ~KYU_COLLIDER_BIT;
        ev.collider = (kyu_collider_id){k + 1, w->id, kyu_collider_named_generation(&w->colliders, k)};
    } else {
        ev.other = kyu_handle_of(w, c->b, kyu_body_named_generation(&w->bodies, c->b));
    }
    ev.sensor = c->sensor != 0;
    ev.step = w->events.step;
    return ev;
}

int kyu_event_push(kyu_contact_event **arr, int *count, int *cap, kyu_contact_event ev) {
    if (kyu_reserve((void **)arr, cap, *count + 1, sizeof **arr)) return -1;
    (*arr)[(*count)++] = ev;
    return 0;
}

// A new step: the events of earlier steps are gone, but for those of earlier steps of the same
// kyu_world_update (event_step > 0), which a game reads all at once after it.
// A burst (a pile landing: 100,000 begins in one step) leaves large arrays behind; they give most of
// it back once a step reports less than half of what they hold.
int kyu_events_begin_step(kyu_world *w) {
    if (w->events.step == 0) {
        SHRINK(w->events.begin, w->events.begin_cap, w->events.begin_count);
        SHRINK(w->events.end, w->events.end_cap, w->events.end_count);
        SHRINK(w->events.impacts, w->events.impact_cap, w->events.impact_count);
        w->events.begin_count = w->events.end_count = w->events.impact_count = 0;
    }
    w->events.begin_first = w->events.begin_count;
    return 0;
}

// An impact of a and b is an event under gravity when it is faster than the restitution threshold
// (what is slower is inelastic: a settling pile's thousands of stops); without gravity every impact
// is one, since every one bounces (a gas: counted from the events, its pressure lacked 2% of its
// collisions at T = 0.1, 20% at 0.013).
int kyu_impact_record(kyu_world *w, uint32_t a, uint32_t b, vec3s n, float approach, float t) {
    float slowest = w->gravity_on ? w->def.restitution_threshold : 0.0f;
    if (!w->def.enable_impact_events || !(approach > slowest)) return 0;
    if (RESERVE(w->events.impacts, w->events.impact_cap, w->events.impact_count + 1)) return -1;
    const body_store *s = &w->bodies;
    kyu_impact_event *ev = &w->events.impacts[w->events.impact_count++];
    memset(ev, 0, sizeof *ev);
    ev->body = kyu_handle_of(w, a, s->generation[a]);
    if (b & KYU_COLLIDER_BIT) {
        uint32_t k = b & ~KYU_COLLIDER_BIT;
        ev->collider = (kyu_collider_id){k + 1, w->id, w->colliders.list[k].generation};
    } else {
        ev->other = kyu_handle_of(w, b, s->generation[b]);
    }
    ev->normal = n;
    ev->point = glms_vec3_sub(s->pos[a], glms_vec3_scale(n, s->radius[a]));
    ev->approach_speed = approach;
    ev->time = t;
    ev->step = w->events.step;
    return 0;
}

const kyu_contact_event *kyu_world_begin_events(const kyu_world *w, int *count) {
    if (count) *count = w ? w->events.begin_count : 0;
    return w && w->events.begin_count ? w->events.begin : NULL;
}

const kyu_contact_event *kyu_world_end_events(const kyu_world *w, int *count) {
    if (count) *count = w ? w->events.end_count : 0;
    return w && w->events.end_count ? w->events.end : NULL;
}

const kyu_impact_event *kyu_world_impact_events(const kyu_world *w, int *count) {
    if (count) *count = w ? w->events.impact_count : 0;
    return w && w->events.impact_count ? w->events.impacts : NULL;
}

void kyu_events_free(event_store *e) {
    kyu_free(e->begin);
    kyu_free(e->end);
    kyu_free(e->impacts);
}
