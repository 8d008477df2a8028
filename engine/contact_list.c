// SPDX-License-Identifier: MIT
// Contact lists: every list of contacts (the cache, the woken list, a sleeping island's) is sorted
// by its pairs' key, and the cache is a double buffer whose halves swap each step.
#include <stdlib.h>

#include "internal.h"

static int by_key(const void *x, const void *y) {
    uint64_t ka = kyu_contact_key(x), kb = kyu_contact_key(y);
    if (ka != kb) return ka < kb ? -1 : 1;
    uint8_t pa = ((const contact *)x)->plane, pb = ((const contact *)y)->plane;
    return (pa > pb) - (pa < pb);
}

void kyu_contacts_sort(contact *c, int n) {
    if (n > 1) qsort(c, (size_t)n, sizeof *c, by_key);
}

// The new contact list (contacts_new, n long) becomes the cache. The old buffer is idle until the
// next contact search fills it again: it keeps its room (see trim_scratch in world.c).
void kyu_contacts_swap(kyu_world *w, int n) {
    contact *t = w->contacts.list;
    w->contacts.list = w->contacts.next;
    w->contacts.next = t;
    int cap = w->contacts.cap;
    w->contacts.cap = w->contacts.next_cap;
    w->contacts.next_cap = cap;
    w->contacts.count = n;
}

void kyu_contacts_free(contact_store *c) {
    kyu_free(c->list);
    kyu_free(c->next);
    kyu_free(c->run);
    kyu_free(c->owned);
    kyu_free(c->meet);
    kyu_free(c->fresh);
    for (int k = 0; k < c->fresh_out_cap; k++)
        kyu_free(c->fresh_out[k].found), kyu_free(c->fresh_out[k].near);
    kyu_free(c->fresh_out);
}

void kyu_solver_free(solver_state *s) {
    kyu_free(s->slab);
    kyu_free(s->flags);
    kyu_free(s->order);
    kyu_free(s->tmp);
    kyu_free(s->row);
    kyu_free(s->body);
    kyu_free(s->push);
    kyu_free(s->near);
    kyu_free(s->near_key);
    kyu_free(s->batch);
    kyu_free(s->lane);
    kyu_free(s->next);
    kyu_free(s->last);
}
