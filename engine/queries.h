// SPDX-License-Identifier: MIT
// Private to the engine: the query module (query.c): a grid of every body, rebuilt between steps.
#ifndef KYU_QUERIES_H
#define KYU_QUERIES_H

#include "common.h"

// query.c: the query structure is rebuilt lazily; every change to bodies or colliders invalidates it.
void kyu_query_invalidate(kyu_world *w);
void kyu_query_free(kyu_world *w);
void kyu_query_trim(kyu_world *w); // gives back the grid's memory (kept for the next rebuild)
int kyu_query_ready(kyu_world *w); // builds the grid now (it is built lazily otherwise)
// The bodies whose spheres meet a sphere, into a list of the caller's (safe on many threads at once).
int kyu_query_bodies_near(kyu_world *w, vec3s center, float radius, uint32_t **list, int *cap);

#endif
