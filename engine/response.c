// SPDX-License-Identifier: MIT
// Impulse response at an impact (docs/design.md, "Impact response"): the normal impulse
// j = -(1 + e) (v_rel . n) / (1/mA + 1/mB), with a fixed or kinematic side at 1/m = 0, so a moving
// wall reflects by the relative velocity. Friction acts at the contact point, whose velocity
// includes the spin (v + w x r): the tangential impulse takes the contact points' tangential
// relative velocity to -beta times itself (the world's tangential_restitution, Walton's rough
// spheres; 0 by default: they stop slipping), through the tangential effective mass
// 1 / (1/mA + 1/mB + rA^2/IA + rB^2/IB), unless that needs more than the Coulomb bound mu j, in
// which case it slides with mu j. Impulses change both v and w. Which e an impact gets (the
// threshold, the Zeno rule) is decided by the impact queue.
#include "internal.h"

// One side of an impact: velocity (a collider's: of its surface at the contact point) and angular
// velocity (NULL for a collider), inverse mass and inverse moment of inertia (0 for a collider or
// a body of fixed rotation), and radius (the distance from its centre to the contact point).
typedef struct side {
    vec3s *v, *w;
    float im, ii, r;
} side;

// Applies the impulse that reflects the approach of a and b along n (b to a) with restitution e.
// Nothing when they are not approaching.
// n is unit only to float rounding, and that rounding leans: |n|^2 of a normalised float vector is
// above 1 more often than below, so an impulse that assumed |n| = 1 added energy at every elastic
// impact (+5e-4 of a dense gas's energy per 10^4 steps): the projection divides by n.n. The
// impulse is formed in double and each velocity rounded once, which took the rest of the drift
// (8 elastic spheres, 191,000 impacts: +1.8e-4 of the energy in float, -2.4e-6 in double).
static kyu_impulse respond(side a, side b, vec3s n, float e, float mu, float beta) {
    kyu_impulse out = {0.0f, {{0.0f, 0.0f, 0.0f}}};
    double vr[3], nd[3], nn = 0.0, vn = 0.0;
    for (int k = 0; k < 3; k++)
        vr[k] = (double)a.v->raw[k] - (double)b.v->raw[k], nd[k] = (double)n.raw[k], nn += nd[k] * nd[k],
        vn += vr[k] * nd[k];
    vn /= nn;
    if (!(vn < 0.0)) return out;
    double k = 1.0 / ((double)a.im + (double)b.im), jn = -(1.0 + (double)e) * vn * k, imp[3], vt[3],
           vt2 = 0.0;
    int spin = a.ii > 0.0f || b.ii > 0.0f;
    double nh[3] = {0.0, 0.0, 0.0}, kt = k; // the unit normal; the tangential effective mass
    if (spin) {
        double len = sqrt(nn), s[3];
        for (int i = 0; i < 3; i++) {
            nh[i] = nd[i] / len;
            s[i] = (double)a.r * (double)(a.ii > 0.0f ? a.w->raw[i] : 0.0f) +
                   (double)b.r * (double)(b.ii > 0.0f ? b.w->raw[i] : 0.0f);
        }
        // The contact points' relative velocity: v_rel + wA x (-rA n) - wB x (rB n) = v_rel + n x (rA wA + rB
        // wB).
        vr[0] += nh[1] * s[2] - nh[2] * s[1];
        vr[1] += nh[2] * s[0] - nh[0] * s[2];
        vr[2] += nh[0] * s[1] - nh[1] * s[0];
        kt = 1.0 / ((double)a.im + (double)b.im + (double)a.r * (double)a.r * (double)a.ii +
                    (double)b.r * (double)b.r * (double)b.ii);
    }
    for (int i = 0; i < 3; i++) imp[i] = nd[i] * jn, vt[i] = vr[i] - nd[i] * vn, vt2 += vt[i] * vt[i];
    double vt_len = sqrt(vt2), pt[3] = {0.0, 0.0, 0.0};
    if (vt_len > 0.0 && mu > 0.0f) {
        double jt =
            fmin((double)mu * jn * sqrt(nn), (1.0 + (double)beta) * vt_len * kt); // sticks, or slides at mu j
        for (int i = 0; i < 3; i++) pt[i] = vt[i] * (jt / vt_len), imp[i] -= pt[i];
    }
    for (int i = 0; i < 3; i++) {
        a.v->raw[i] = (float)((double)a.v->raw[i] + imp[i] * (double)a.im);
        b.v->raw[i] = (float)((double)b.v->raw[i] - imp[i] * (double)b.im);
    }
    if (spin) { // the tangential impulse -pt on a at -rA n, +pt on b at rB n: both turn by n x pt
        double c[3] = {nh[1] * pt[2] - nh[2] * pt[1], nh[2] * pt[0] - nh[0] * pt[2],
                       nh[0] * pt[1] - nh[1] * pt[0]};
        for (int i = 0; i < 3; i++) {
            if (a.ii > 0.0f) a.w->raw[i] = (float)((double)a.w->raw[i] + c[i] * ((double)a.r * (double)a.ii));
            if (b.ii > 0.0f) b.w->raw[i] = (float)((double)b.w->raw[i] + c[i] * ((double)b.r * (double)b.ii));
        }
    }
    out.normal = (float)(jn * sqrt(nn));
    for (int i = 0; i < 3; i++) out.tangent.raw[i] = (float)-pt[i];
    return out;
}

static side body_side(kyu_world *w, uint32_t i) {
    body_store *s = &w->bodies;
    return (side){&s->vel[i], &s->ang[i], s->inv_mass[i], s->inv_inertia[i], s->radius[i]};
}

// An impact's impulse on a, kept for the forces of the step when the world asks for them. A list
// that cannot grow marks the step's tally lost (the measures then say so), the step goes on.
void kyu_impacts_tally(kyu_world *w, uint32_t a, uint32_t b, vec3s n, vec3s impulse) {
    impact_state *s = &w->impacts;
    if (RESERVE(s->tally, s->tally_cap, s->tally_count + 1)) {
        s->tally_lost = 1;
        return;
    }
    s->tally[s->tally_count++] = (impact_tally){a, b, n, impulse};
}

void kyu_impacts_tally_free(impact_state *s) {
    kyu_free(s->tally);
    s->tally = NULL;
    s->tally_count = s->tally_cap = 0;
}

static kyu_impulse tallied(kyu_world *w, uint32_t a, uint32_t b, vec3s n, kyu_impulse j) {
    if (w->impacts.tally_on && (j.normal != 0.0f || glms_vec3_norm2(j.tangent) > 0.0f))
        kyu_impacts_tally(w, a, b, n, glms_vec3_add(glms_vec3_scale(n, j.normal), j.tangent));
    return j;
}

kyu_impulse kyu_respond_pair(kyu_world *w, uint32_t a, uint32_t b, vec3s n, float e) {
    return tallied(w, a, b, n,
                   respond(body_side(w, a), body_side(w, b), n, e, kyu_pair_friction(w, a, b),
                           w->def.tangential_restitution));
}

kyu_impulse kyu_respond_collider(kyu_world *w, uint32_t a, const collider *c, vec3s n, float e) {
    body_store *s = &w->bodies;
    vec3s wall = c->velocity;
    if (kyu_collider_spins(c))
        wall = kyu_collider_point_velocity(c, glms_vec3_sub(s->pos[a], glms_vec3_scale(n, s->radius[a])), n);
    side b = {&wall, NULL, 0.0f, 0.0f, 0.0f};
    uint32_t code = KYU_COLLIDER_BIT | (uint32_t)(c - w->colliders.list);
    return tallied(
        w, a, code, n,
        respond(body_side(w, a), b, n, e, kyu_pair_friction(w, a, code), w->def.tangential_restitution));
}
