// SPDX-License-Identifier: MIT
// Private to the engine: the events' module (events.c): what began, ended or hit in the last step.
#ifndef KYU_EVENT_STORE_H
#define KYU_EVENT_STORE_H

#include "contacts.h"

// The events of the last step, or of every step of the last kyu_world_update (events.c).
typedef struct event_store {
    kyu_contact_event *begin, *end;
    int begin_count, begin_cap, end_count, end_cap;
    int step;        // the step of the current update that events are recorded for (0 outside one)
    int begin_first; // where the last step's begin events start (draw marks those pairs new)
    kyu_impact_event *impacts;
    int impact_count, impact_cap;
} event_store;

// events.c
kyu_body_id kyu_handle_of(const kyu_world *w, uint32_t slot, uint32_t generation);
kyu_contact_event kyu_contact_event_of(const kyu_world *w, const contact *c);
int kyu_events_begin_step(kyu_world *w);
int kyu_event_push(kyu_contact_event **arr, int *count, int *cap, kyu_contact_event ev);
void kyu_events_free(event_store *e);
int kyu_impact_record(kyu_world *w, uint32_t a, uint32_t b, vec3s n, float approach, float t);

#endif
