// SPDX-License-Identifier: MIT
// A pair's friction and restitution from its two sides' values: the world's mix rules, or the
// user's callbacks (kyu_mix_fn) with the sides' material ids.
#include "internal.h"

static float mix(kyu_mix_rule rule, float a, float b) {
    switch (rule) {
    case KYU_MIX_MIN:
        return kyu_minf(a, b);
    case KYU_MIX_MEAN:
        return 0.5f * (a + b);
    case KYU_MIX_MULTIPLY:
        return a * b;
    case KYU_MIX_GEOMETRIC_MEAN:
        return sqrtf(a * b);
    case KYU_MIX_MAX:
        break;
    }
    return kyu_maxf(a, b);
}

// A callback's answer, kept in range (NaN to the low end): a mix never makes a NaN impulse.
static float clamp(float x, float hi) { return x >= 0.0f ? (x <= hi ? x : hi) : 0.0f; }

static void sides(const kyu_world *w, uint32_t a, uint32_t b, int friction, float *vb, uint32_t *mb) {
    if (b & KYU_COLLIDER_BIT) {
        const collider *c = &w->colliders.list[b & ~KYU_COLLIDER_BIT];
        *vb = friction ? c->friction : c->restitution, *mb = c->material;
    } else {
        const body_kind *k = kyu_body_kind(&w->bodies, b);
        *vb = friction ? k->friction : k->restitution, *mb = k->material;
    }
    (void)a;
}

float kyu_pair_friction(const kyu_world *w, uint32_t a, uint32_t b) {
    float fb;
    uint32_t mb;
    sides(w, a, b, 1, &fb, &mb);
    const body_kind *ka = kyu_body_kind(&w->bodies, a);
    if (w->def.friction_callback)
        return clamp(w->def.friction_callback(ka->friction, ka->material, fb, mb, w->def.mix_context), 1e6f);
    return mix(w->def.friction_mix, ka->friction, fb);
}

float kyu_pair_restitution(const kyu_world *w, uint32_t a, uint32_t b) {
    float eb;
    uint32_t mb;
    sides(w, a, b, 0, &eb, &mb);
    const body_kind *ka = kyu_body_kind(&w->bodies, a);
    if (w->def.restitution_callback)
        return clamp(w->def.restitution_callback(ka->restitution, ka->material, eb, mb, w->def.mix_context),
                     1.0f);
    return mix(w->def.restitution_mix, ka->restitution, eb);
}

float kyu_pair_rolling(const kyu_world *w, uint32_t a, uint32_t b) {
    float rb = (b & KYU_COLLIDER_BIT) ? w->colliders.list[b & ~KYU_COLLIDER_BIT].rolling
                                      : kyu_body_kind(&w->bodies, b)->rolling;
    return kyu_maxf(kyu_body_kind(&w->bodies, a)->rolling, rb);
}
