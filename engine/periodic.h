// SPDX-License-Identifier: MIT
// Private to the engine: periodic boundaries (periodic.c; docs/design.md, "Periodic boundaries").
// Positions on a periodic axis lie in [lower, upper) between steps; within a step a body may stray
// beyond a face by its travel. Every place that needs where body b stands as seen from body a takes
// the image of b nearest a (kyu_periodic_image): the minimum image, the same for the whole step for any
// pair that can touch, because a period is more than twice the reach of any pair. A world without a
// periodic axis takes none of these paths, so its arithmetic is the same bits as without them.
#ifndef KYU_PERIODIC_H
#define KYU_PERIODIC_H

#include "common.h"

typedef struct periodic_state {
    int mask;                   // bit k: axis k is periodic (0: none, every helper is the identity)
    float lo[3], hi[3], len[3]; // the box, and hi - lo on each periodic axis
    float half[3];              // len / 2: the minimum image keeps each offset within +-half
} periodic_state;

// The image of point p nearest `from` (p itself without periodic axes).
static inline vec3s kyu_periodic_image(const periodic_state *ps, vec3s from, vec3s p) {
    if (!ps->mask) return p;
    for (int k = 0; k < 3; k++) {
        if (!(ps->mask >> k & 1)) continue;
        float d = p.raw[k] - from.raw[k];
        if (d > ps->half[k])
            p.raw[k] -= ps->len[k];
        else if (d < -ps->half[k])
            p.raw[k] += ps->len[k];
    }
    return p;
}

// The images of a box that can meet what lies within `reach` of a point inside the periodic box (a
// body's sphere, its rest box): the box itself first, then its copies shifted by a period across
// every face it comes within `reach` of (near an edge or a corner, 3 or 7 more). Returns how many
// (1 without periodic axes); out holds at most 27.
int kyu_periodic_box_images(const periodic_state *ps, const aabb *b, float reach, aabb out[27]);

// Whether box b, shifted by a period along some periodic axis (or several), overlaps box a while the
// two do not overlap unshifted: a pair across a seam, which the grid's own pairs do not hold.
int kyu_periodic_overlap_across(const periodic_state *ps, const aabb *a, const aabb *b);

// The point wrapped into [lo, hi) on every periodic axis.
vec3s kyu_periodic_wrap_point(const periodic_state *ps, vec3s p);

// The state of a def's box (mask 0 when no axis is periodic), made when the world is created
periodic_state kyu_periodic_state_of(const kyu_world_def *d);
// The first problem of a def's box, written to msg; KYU_OK if none.
kyu_status kyu_periodic_check_def(const kyu_world_def *d, char *msg, size_t capacity);
// After the step's motion: every awake body back into the box (its previous position, which the
// renderer interpolates from, moves with it).
void kyu_periodic_wrap_bodies(kyu_world *w);

#endif
