// SPDX-License-Identifier: MIT
// Periodic boundaries (docs/design.md, "Periodic boundaries"): the box of a world def, checked; the
// wrap of every awake body into the box once a step; the images of a box across the faces it
// crosses (the broadphase's seam pairs, the queries, the sleep grid); the minimum image is in
// periodic.h, inline, where every pair's geometry takes it.
#include <stdio.h>

#include "internal.h"

static const char AXIS[3] = {'x', 'y', 'z'};

periodic_state kyu_periodic_state_of(const kyu_world_def *d) {
    periodic_state ps = {0};
    for (int k = 0; k < 3; k++) {
        ps.lo[k] = d->periodic.lower.raw[k], ps.hi[k] = d->periodic.upper.raw[k];
        if (!d->periodic.axis[k]) continue;
        ps.mask |= 1 << k;
        ps.len[k] = ps.hi[k] - ps.lo[k];
        ps.half[k] = 0.5f * ps.len[k];
    }
    return ps;
}

kyu_status kyu_periodic_check_def(const kyu_world_def *d, char *msg, size_t capacity) {
    const kyu_periodic_box *p = &d->periodic;
    for (int k = 0; k < 3; k++) {
        const char *name[2] = {"lower", "upper"};
        float v[2] = {p->lower.raw[k], p->upper.raw[k]};
        for (int e = 0; e < 2; e++)
            if (!(fabsf(v[e]) <= KYU_MAX_COORD)) // NaN too
                return snprintf(msg, capacity, "periodic.%s.%c is %g (must be finite, |x| <= 1e9)", name[e],
                                AXIS[k], (double)v[e]),
                       KYU_ERR_NOT_FINITE;
        if (p->axis[k] && !(v[1] - v[0] > 0.0f))
            return snprintf(msg, capacity,
                            "periodic.upper.%c = %g must be above periodic.lower.%c = %g (%c is periodic)",
                            AXIS[k], (double)v[1], AXIS[k], (double)v[0], AXIS[k]),
                   KYU_ERR_INVALID_ARGUMENT;
    }
    return KYU_OK;
}

vec3s kyu_periodic_wrap_point(const periodic_state *ps, vec3s p) {
    for (int k = 0; k < 3; k++) {
        float x = p.raw[k];
        if (!(ps->mask >> k & 1) || (x >= ps->lo[k] && x < ps->hi[k])) continue;
        // In double, so a body many periods out (created there) comes in with one rounding.
        double n = floor(((double)x - (double)ps->lo[k]) / (double)ps->len[k]);
        float y = (float)((double)x - n * (double)ps->len[k]);
        if (y >= ps->hi[k]) y = ps->lo[k]; // rounded up onto the upper face: the same place as the lower
        if (y < ps->lo[k]) y = ps->lo[k];
        p.raw[k] = y;
    }
    return p;
}

void kyu_periodic_wrap_bodies(kyu_world *w) {
    const periodic_state *ps = &w->periodic;
    body_store *s = &w->bodies;
    if (!ps->mask) return;
    for (int i = 0; i < s->high; i++) {
        if (!s->alive[i] || !s->awake[i]) continue; // a sleeping body stays where it was wrapped
        vec3s p = kyu_periodic_wrap_point(ps, s->pos[i]);
        for (int k = 0; k < 3; k++)
            if (p.raw[k] != s->pos[i].raw[k]) // the previous position crosses with it (interpolation)
                s->prev[i].raw[k] =
                    (float)((double)s->prev[i].raw[k] + ((double)p.raw[k] - (double)s->pos[i].raw[k]));
        s->pos[i] = p;
    }
}

int kyu_periodic_box_images(const periodic_state *ps, const aabb *b, float reach, aabb out[27]) {
    out[0] = *b;
    int n = 1;
    for (int k = 0; k < 3; k++) {
        if (!(ps->mask >> k & 1)) continue;
        float shifts[2];
        int ns = 0;
        // A box near the lower face meets, moved up a period, what pokes out of the upper face.
        if (b->lo[k] < ps->lo[k] + reach) shifts[ns++] = ps->len[k];
        if (b->hi[k] > ps->hi[k] - reach) shifts[ns++] = -ps->len[k];
        int have = n;
        for (int s = 0; s < ns; s++)
            for (int i = 0; i < have; i++) {
                aabb c = out[i];
                c.lo[k] += shifts[s], c.hi[k] += shifts[s];
                out[n++] = c;
            }
    }
    return n;
}

int kyu_periodic_overlap_across(const periodic_state *ps, const aabb *a, const aabb *b) {
    if (kyu_boxes_overlap_all(a, b)) return 0; // the grid's pair
    int shifted = 0;
    for (int k = 0; k < 3; k++) {
        int direct = a->lo[k] <= b->hi[k] && b->lo[k] <= a->hi[k];
        int across = 0;
        if (ps->mask >> k & 1)
            for (int s = -1; s <= 1; s += 2) {
                float d = (float)s * ps->len[k];
                across |= a->lo[k] <= b->hi[k] + d && b->lo[k] + d <= a->hi[k];
            }
        if (!direct && !across) return 0;
        shifted |= across;
    }
    return shifted;
}
