// SPDX-License-Identifier: MIT
// Impulse response at an impact (seed 003's reflection with restitution): the normal impulse
// j = -(1 + e) (v_rel . n) / (1/mA + 1/mB), with a fixed or kinematic side at 1/m = 0, so a moving
// wall reflects by the relative velocity; Coulomb friction removes tangential velocity up to mu * j.
// Which e an impact gets (the threshold, the Zeno rule) is decided by the impact queue.
#include "internal.h"

// Applies the impulse that reflects the approach of a (inverse mass ia, velocity *va) and b
// (ib, *vb) along n (unit, b to a) with restitution e. Nothing when they are not approaching.
static void respond(vec3s *va, vec3s *vb, float ia, float ib, vec3s n, float e, float mu) {
    vec3s vrel = glms_vec3_sub(*va, *vb);
    float vn = glms_vec3_dot(vrel, n);
    if (!(vn < 0.0f)) return;
    float k = 1.0f / (ia + ib);
    float jn = -(1.0f + e) * vn * k;
    vec3s impulse = glms_vec3_scale(n, jn);
    vec3s vt = glms_vec3_sub(vrel, glms_vec3_scale(n, vn));
    float vt_len = glms_vec3_norm(vt);
    if (vt_len > 0.0f && mu > 0.0f) {
        float jt = kyu_minf(mu * jn, vt_len * k); // never reverse the sliding direction
        impulse = glms_vec3_sub(impulse, glms_vec3_scale(vt, jt / vt_len));
    }
    *va = glms_vec3_add(*va, glms_vec3_scale(impulse, ia));
    *vb = glms_vec3_sub(*vb, glms_vec3_scale(impulse, ib));
}

void kyu_respond_pair(kyu_world *w, uint32_t a, uint32_t b, vec3s n, float e) {
    body_store *s = &w->bodies;
    respond(&s->vel[a], &s->vel[b], s->inv_mass[a], s->inv_mass[b], n, e,
            kyu_pair_friction(s->friction[a], s->friction[b]));
}

void kyu_respond_collider(kyu_world *w, uint32_t a, const collider *c, vec3s n, float e) {
    body_store *s = &w->bodies;
    vec3s wall = c->velocity;
    respond(&s->vel[a], &wall, s->inv_mass[a], 0.0f, n, e, kyu_pair_friction(s->friction[a], c->friction));
}
