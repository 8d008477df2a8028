// SPDX-License-Identifier: MIT
// Impulse response at an impact (seed 003): the normal impulse j = -(1 + e) (v_rel . n) / (1/mA + 1/mB)
// with a fixed or kinematic side at 1/m = 0, so a moving wall reflects by the relative velocity;
// Coulomb friction removes tangential velocity up to mu * j. Impacts slower than the restitution
// threshold are inelastic (e = 0), which ends bouncing instead of chattering.
#include "internal.h"

// Applies the impulse that reflects the approach of a (inverse mass ia, velocity *va) and b
// (ib, *vb) along n (unit, b to a). Returns the approach speed, 0 when not approaching.
static float respond(const kyu_world *w, vec3s *va, vec3s *vb, float ia, float ib, vec3s n,
                     float e, float mu) {
    vec3s vrel = glms_vec3_sub(*va, *vb);
    float vn = glms_vec3_dot(vrel, n);
    if (!(vn < 0.0f)) return 0.0f;
    if (-vn < w->def.restitution_threshold) e = 0.0f;
    float k = 1.0f / (ia + ib);
    float jn = -(1.0f + e) * vn * k;
    vec3s impulse = glms_vec3_scale(n, jn);
    vec3s vt = glms_vec3_sub(vrel, glms_vec3_scale(n, vn));
    float vt_len = glms_vec3_norm(vt);
    if (vt_len > 0.0f && mu > 0.0f) {
        float jt = fminf(mu * jn, vt_len * k); // never reverse the sliding direction
        impulse = glms_vec3_sub(impulse, glms_vec3_scale(vt, jt / vt_len));
    }
    *va = glms_vec3_add(*va, glms_vec3_scale(impulse, ia));
    *vb = glms_vec3_sub(*vb, glms_vec3_scale(impulse, ib));
    return -vn;
}

void kyu_respond_pair(kyu_world *w, uint32_t a, uint32_t b, vec3s n) {
    body_store *s = &w->bodies;
    respond(w, &s->vel[a], &s->vel[b], s->inv_mass[a], s->inv_mass[b], n,
            kyu_pair_restitution(s->restitution[a], s->restitution[b]),
            kyu_pair_friction(s->friction[a], s->friction[b]));
}

void kyu_respond_collider(kyu_world *w, uint32_t a, const collider *c, vec3s n) {
    body_store *s = &w->bodies;
    vec3s wall = c->velocity;
    respond(w, &s->vel[a], &wall, s->inv_mass[a], 0.0f, n,
            kyu_pair_restitution(s->restitution[a], c->restitution),
            kyu_pair_friction(s->friction[a], c->friction));
}
