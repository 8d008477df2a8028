// SPDX-License-Identifier: MIT
// Private to the engine: the sleep module (island.c): sleeping islands and the grid of sleepers.
#ifndef KYU_ISLANDS_H
#define KYU_ISLANDS_H

#include "colliders.h"
#include "contacts.h"

// Sleeping islands (engine/island.c).
typedef struct sleep_entry {
    int32_t c[3];
    uint32_t body, epoch, next;
} sleep_entry;

typedef struct sleep_grid {
    float cell, inv_cell;
    uint32_t *key, *head; // cell hash -> first entry (UINT32_MAX = empty), open addressing
    int table_size, cells;
    sleep_entry *entries;
    int count, entry_cap, live;
    sleep_entry *giants; // sleeping bodies too big for cells
    int giant_count, giant_cap;
    aabb bounds; // holds the rest box of every entry and giant since the grid was last emptied
} sleep_grid;

typedef struct sleep_island {
    float max_overlap; // the deepest overlap among its contacts (they do not move while it sleeps)
    uint32_t *bodies;
    int body_count, body_cap;
    struct contact *contacts;
    int contact_count, contact_cap;
    int next_free;
} sleep_island;

// Sleeping islands and the grid of sleepers (island.c).
typedef struct island_store {
    sleep_island *list;
    int cap, high, free_head; // free_head: the first record of the free list (-1: none)
    sleep_grid grid;
    contact *woken; // contacts of islands woken since they were last merged into the cache
    int woken_count, woken_cap;
    uint32_t *woken_bodies; // bodies woken this step (or since the last step)
    int woken_bodies_count, woken_bodies_cap;
} island_store;

// island.c: sleeping islands
int kyu_wake_near_colliders(kyu_world *w, const collider *a, const collider *b);
int kyu_islands_reserve_wake(kyu_world *w, int64_t bodies, int64_t contacts);
int kyu_islands_reserve_wake_of(kyu_world *w, uint32_t i);
int kyu_islands_wake_all(kyu_world *w);

int kyu_wake_body(kyu_world *w, uint32_t slot);
int kyu_islands_flush_woken(kyu_world *w);
int kyu_islands_wake_touched(kyu_world *w);
int kyu_islands_wake_box(kyu_world *w, const aabb *box);
int kyu_islands_wake_collider_contacts(kyu_world *w, uint32_t code);
int kyu_islands_rebuild_grid(kyu_world *w);
int kyu_islands_update(kyu_world *w);
void kyu_islands_free(kyu_world *w);
int kyu_islands_body_count_asleep(const kyu_world *w);
float kyu_islands_max_overlap(const kyu_world *w);
// An awake body that is not at rest although its velocity is (the soft escape still moves it): its
// rest starts again (kyu_islands_update counts it).
static inline void kyu_islands_stir(body_store *s, uint32_t i) { s->sleep_timer[i] = 0.0f; }

#endif
