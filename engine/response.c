// SPDX-License-Identifier: MIT
// Impulse response at an impact (seed 003's reflection with restitution): the normal impulse
// j = -(1 + e) (v_rel . n) / (1/mA + 1/mB), with a fixed or kinematic side at 1/m = 0, so a moving
// wall reflects by the relative velocity; Coulomb friction removes tangential velocity up to mu * j.
// Which e an impact gets (the threshold, the Zeno rule) is decided by the impact queue.
#include "internal.h"

// Applies the impulse that reflects the approach of a (inverse mass ia, velocity *va) and b
// (ib, *vb) along n (b to a) with restitution e. Nothing when they are not approaching.
// n is unit only to float rounding, and that rounding leans: |n|^2 of a normalised float vector is
// above 1 more often than below, so an impulse that assumed |n| = 1 added energy at every elastic
// impact (+5e-4 of a dense gas's energy per 10^4 steps): the projection divides by n.n. The
// impulse is formed in double and each velocity rounded once, which took the rest of the drift
// (8 elastic spheres, 191,000 impacts: +1.8e-4 of the energy in float, -2.4e-6 in double).
static void respond(vec3s *va, vec3s *vb, float ia, float ib, vec3s n, float e, float mu) {
    double vr[3], nd[3], nn = 0.0, vn = 0.0;
    for (int k = 0; k < 3; k++) vr[k] = (double)va->raw[k] - vb->raw[k], nd[k] = n.raw[k], nn += nd[k] * nd[k], vn += vr[k] * nd[k];
    vn /= nn;
    if (!(vn < 0.0)) return;
    double k = 1.0 / ((double)ia + ib), jn = -(1.0 + e) * vn * k, imp[3], vt[3], vt2 = 0.0;
    for (int i = 0; i < 3; i++) imp[i] = nd[i] * jn, vt[i] = vr[i] - nd[i] * vn, vt2 += vt[i] * vt[i];
    double vt_len = sqrt(vt2);
    if (vt_len > 0.0 && mu > 0.0f) {
        double jt = fmin(mu * jn * sqrt(nn), vt_len * k); // never reverse the sliding direction
        for (int i = 0; i < 3; i++) imp[i] -= vt[i] * (jt / vt_len);
    }
    for (int i = 0; i < 3; i++) {
        va->raw[i] = (float)(va->raw[i] + imp[i] * ia);
        vb->raw[i] = (float)(vb->raw[i] - imp[i] * ib);
    }
}

void kyu_respond_pair(kyu_world *w, uint32_t a, uint32_t b, vec3s n, float e) {
    body_store *s = &w->bodies;
    respond(&s->vel[a], &s->vel[b], s->inv_mass[a], s->inv_mass[b], n, e,
            kyu_pair_friction(w, a, b));
}

void kyu_respond_collider(kyu_world *w, uint32_t a, const collider *c, vec3s n, float e) {
    body_store *s = &w->bodies;
    vec3s wall = c->velocity;
    respond(&s->vel[a], &wall, s->inv_mass[a], 0.0f, n, e, kyu_pair_friction(w, a, KYU_COLLIDER_BIT | (uint32_t)(c - w->colliders)));
}
