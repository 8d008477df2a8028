// SPDX-License-Identifier: MIT
// Handles: a body or collider handle to its slot, or the reason it names none (the null handle,
// another world's handle, a slot freed or reused since). Every public function that takes a handle
// starts here; so do the queries and the snapshots, which sit below the body and collider APIs.
#include "internal.h"

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
    if (!w->bodies.alive[slot] || w->bodies.generation[slot] != id.generation) {
        *status = KYU_ERR_STALE_HANDLE;
        return -1;
    }
    *status = KYU_OK;
    return slot;
}

int kyu_collider_slot(const kyu_world *w, kyu_collider_id id, kyu_status *st) {
    if (id.index1 == 0) { // the null handle
        *st = KYU_ERR_STALE_HANDLE;
        return -1;
    }
    if (id.world != w->id) {
        *st = KYU_ERR_FOREIGN_HANDLE;
        return -1;
    }
    if (id.index1 > (uint32_t)w->colliders.high) {
        *st = KYU_ERR_STALE_HANDLE;
        return -1;
    }
    int i = (int)(id.index1 - 1);
    if (!w->colliders.list[i].alive || w->colliders.list[i].generation != id.generation) {
        *st = KYU_ERR_STALE_HANDLE;
        return -1;
    }
    return i;
}
