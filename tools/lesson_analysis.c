// SPDX-License-Identifier: MIT
// kyu-lesson's own arithmetic for the captured step: the time of impact from P, Q, R (docs/design.md) or
// from the wall's signed distance, and the reflection with restitution. It is computed
// here from the states before the step, independently of the engine, so the page can show both.
#include <math.h>
#include <string.h>

#include "lesson_capture.h"

// Where body b is, and how fast, s seconds into the step along its path.
static vec3s pos_at(const ls_body *b, float s) {
    return glms_vec3_add(glms_vec3_add(b->p0, glms_vec3_scale(b->v0, s)),
                         glms_vec3_scale(b->accel, 0.5f * s * s));
}

static vec3s vel_at(const ls_body *b, float s) { return glms_vec3_add(b->v0, glms_vec3_scale(b->accel, s)); }

// The gap between the two spheres at fraction t along their true (possibly curved) paths.
static double gap_at(const ls_body *a, const ls_body *b, double t, float dt) {
    vec3s d = glms_vec3_sub(pos_at(a, (float)t * dt), pos_at(b, (float)t * dt));
    return glms_vec3_norm(d) - (double)a->r - (double)b->r;
}

// First touch along the true paths: scan for the first sign change, then bisect.
static double exact_touch(const ls_body *a, const ls_body *b, float dt) {
    double lo = 0.0, hi = -1.0;
    for (int k = 1; k <= 2000; k++)
        if (gap_at(a, b, k / 2000.0, dt) <= 0.0) {
            lo = (k - 1) / 2000.0, hi = k / 2000.0;
            break;
        }
    if (hi < 0.0) return -1.0;
    for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (lo + hi);
        if (gap_at(a, b, mid, dt) > 0.0)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

static void toi_spheres(ls_capture *c) {
    ls_toi *t = &c->toi;
    const ls_body *A = &c->b[c->ia], *B = &c->b[c->ib];
    float dt = c->def.fixed_dt;
    vec3s da = glms_vec3_sub(pos_at(A, dt), A->p0), db = glms_vec3_sub(pos_at(B, dt), B->p0);
    t->sphere = true;
    t->C0 = glms_vec3_sub(B->p0, A->p0);
    t->D = glms_vec3_sub(db, da);
    float rr = A->r + B->r;
    t->P = glms_vec3_dot(t->D, t->D);
    t->Q = glms_vec3_dot(t->C0, t->D);
    t->R = glms_vec3_dot(t->C0, t->C0) - rr * rr;
    t->disc = t->Q * t->Q - t->P * t->R;
    t->t_naive = t->disc >= 0.0f && t->P > 0.0f ? (-t->Q - sqrtf(t->disc)) / t->P : -1.0f;
    double P = 0.0, Q = 0.0, R = -(double)rr * rr;
    for (int k = 0; k < 3; k++) {
        P += (double)t->D.raw[k] * t->D.raw[k];
        Q += (double)t->C0.raw[k] * t->D.raw[k];
        R += (double)t->C0.raw[k] * t->C0.raw[k];
    }
    double disc = Q * Q - P * R;
    t->t_double = disc >= 0.0 && P > 0.0 ? (-Q - sqrt(disc)) / P : -1.0;
    t->sweep = kyu_sweep_sphere_sphere(A->p0, da, A->r, B->p0, db, B->r);
    t->curved = glms_vec3_norm(glms_vec3_sub(A->accel, B->accel)) > 0.0f;
    t->t_exact = t->curved ? exact_touch(A, B, dt) : t->t_double;
}

// The wall's face that was hit: the ball's gap to it at t = 0 and the gap's change over the step.
static void toi_wall(ls_capture *c) {
    ls_toi *t = &c->toi;
    const ls_body *A = &c->b[c->ia];
    float dt = c->def.fixed_dt;
    vec3s n = c->imp.normal, h = c->wall_half;
    float face = glms_vec3_dot(n, c->wall_p0) + fabsf(n.x) * h.x + fabsf(n.y) * h.y + fabsf(n.z) * h.z;
    t->sphere = false;
    t->D = glms_vec3_scale(glms_vec3_sub(A->v0, c->wall_v), dt); // the ball's motion seen from the wall
    t->C0 = A->p0;
    t->g0 = glms_vec3_dot(n, A->p0) - face - A->r;
    t->rate = glms_vec3_dot(n, t->D);
    t->t_naive = t->rate < 0.0f ? -t->g0 / t->rate : -1.0f;
    t->t_double = t->rate < 0.0f ? -(double)t->g0 / (double)t->rate : -1.0;
    kyu_box box = kyu_box_make(c->wall_p0, glms_quat_identity(), h);
    t->sweep =
        kyu_sweep_sphere_box(A->p0, glms_vec3_scale(A->v0, dt), A->r, &box, glms_vec3_scale(c->wall_v, dt));
    t->t_exact = t->t_double;
}

static void toi_compare(ls_capture *c) {
    ls_toi *t = &c->toi;
    t->t_engine = c->imp.time;
    t->diff = fabs(t->t_exact - (double)t->t_engine);
    // Straight paths: the same quadratic, so float rounding only. Curved ones: the engine's
    // conservative advancement stops within ~1e-5 of the radius, a few 1e-5 of the step.
    t->agree =
        t->diff <= (t->curved ? 2e-4 : 4e-6) && fabsf(t->sweep.t - t->t_engine) <= (t->curved ? 1.0f : 4e-6f);
}

// Impacts this step that involve either side other than the one shown.
static int other_impacts(const ls_capture *c) {
    int n = 0;
    for (int k = 0; k < c->nimps; k++) {
        const kyu_impact_event *e = &c->imps[k];
        if (memcmp(e, &c->imp, sizeof *e) == 0) continue;
        bool a = e->body.index1 == c->b[c->ia].id.index1 || e->other.index1 == c->b[c->ia].id.index1;
        bool b = c->ib >= 0 &&
                 (e->body.index1 == c->b[c->ib].id.index1 || e->other.index1 == c->b[c->ib].id.index1);
        n += a || b;
    }
    return n;
}

// The impulse of engine/response.c written out: normal part with restitution; friction at the
// contact point, whose velocity includes the spins (v + w x r), through the tangential effective
// mass kt = 1 / (1/mA + 1/mB + rA^2/IA + rB^2/IB), taking the slip to -beta times itself unless
// that needs more than mu j; the friction impulse turns both bodies.
static void reflect(ls_capture *c) {
    ls_reflect *r = &c->refl;
    const ls_body *A = &c->b[c->ia], *B = c->ib >= 0 ? &c->b[c->ib] : NULL;
    float dt = c->def.fixed_dt, s = c->imp.time * dt;
    r->n = c->imp.normal, r->point = c->imp.point;
    r->va = vel_at(A, s);
    r->vb = B ? vel_at(B, s) : c->wall_v;
    float eb = B ? B->e : c->wall_e, mub = B ? B->mu : c->wall_mu;
    float ia = 1.0f / A->m, ib = B ? 1.0f / B->m : 0.0f, k = 1.0f / (ia + ib);
    float iia = 1.0f / A->inertia, iib = B ? 1.0f / B->inertia : 0.0f, rb = B ? B->r : 0.0f;
    r->wa = A->w0, r->wb = B ? B->w0 : glms_vec3_zero(); // no torque in flight: w is constant
    r->vrel = glms_vec3_sub(r->va, r->vb);
    r->vn = glms_vec3_dot(r->vrel, r->n);
    r->vN = glms_vec3_scale(r->n, r->vn);
    r->vT = glms_vec3_sub(r->vrel, r->vN);
    // A's contact point is at -rA n from its centre, B's at +rB n: their relative velocity is
    // vrel + wA x (-rA n) - wB x (rB n) = vrel + n x (rA wA + rB wB).
    vec3s vc = glms_vec3_add(r->vrel, glms_vec3_cross(r->n, glms_vec3_add(glms_vec3_scale(r->wa, A->r),
                                                                          glms_vec3_scale(r->wb, rb))));
    r->vslip = glms_vec3_sub(vc, glms_vec3_scale(r->n, glms_vec3_dot(vc, r->n)));
    r->e = -r->vn < c->def.restitution_threshold ? 0.0f : fmaxf(A->e, eb);
    r->mu = sqrtf(A->mu * mub);
    r->beta = c->def.tangential_restitution;
    r->jn = -(1.0f + r->e) * r->vn * k;
    r->kt = 1.0f / (ia + ib + A->r * A->r * iia + rb * rb * iib);
    vec3s impulse = glms_vec3_scale(r->n, r->jn), pt = glms_vec3_zero();
    float vt = glms_vec3_norm(r->vslip);
    r->jt = vt > 0.0f && r->mu > 0.0f ? fminf(r->mu * r->jn, (1.0f + r->beta) * vt * r->kt) : 0.0f;
    if (r->jt > 0.0f) pt = glms_vec3_scale(r->vslip, r->jt / vt), impulse = glms_vec3_sub(impulse, pt);
    r->va_after = glms_vec3_add(r->va, glms_vec3_scale(impulse, ia));
    r->vb_after = glms_vec3_sub(r->vb, glms_vec3_scale(impulse, ib));
    vec3s turn = glms_vec3_cross(r->n, pt); // -pt on A at -rA n and +pt on B at rB n: both turn by n x pt
    r->wa_after = glms_vec3_add(r->wa, glms_vec3_scale(turn, A->r * iia));
    r->wb_after = glms_vec3_add(r->wb, glms_vec3_scale(turn, rb * iib));
    r->vrel_after = glms_vec3_sub(r->va_after, r->vb_after);
    r->approach_engine = c->imp.approach_speed;
}

// Seed 000's contact point and the normal, from the positions at the engine's time of impact.
static void contact_mine(ls_capture *c) {
    ls_reflect *r = &c->refl;
    const ls_body *A = &c->b[c->ia];
    float s = c->imp.time * c->def.fixed_dt;
    vec3s a = pos_at(A, s);
    if (c->ib >= 0) {
        const ls_body *B = &c->b[c->ib];
        vec3s b = pos_at(B, s), ab = glms_vec3_sub(b, a);
        r->point_mine = glms_vec3_add(a, glms_vec3_scale(ab, A->r / (A->r + B->r)));
        r->n_mine = glms_vec3_normalize(glms_vec3_negate(ab));
    } else {
        kyu_box box = kyu_box_make(glms_vec3_add(c->wall_p0, glms_vec3_scale(c->wall_v, s)),
                                   glms_quat_identity(), c->wall_half);
        kyu_distance_sphere_box(a, A->r, &box, &r->n_mine, &r->point_mine);
    }
}

// With no other impact on these bodies this step, the velocities at the end of the step are the
// reflected ones carried along the rest of the path (gravity for a free body).
static void reflect_compare(ls_capture *c) {
    ls_reflect *r = &c->refl;
    const ls_body *A = &c->b[c->ia];
    float rest = (1.0f - c->imp.time) * c->def.fixed_dt;
    r->single = other_impacts(c) == 0;
    vec3s expect = glms_vec3_add(r->va_after, glms_vec3_scale(A->accel, rest));
    r->diff = glms_vec3_norm(glms_vec3_sub(expect, A->v1));
    r->diff = fmax(r->diff, A->r * glms_vec3_norm(glms_vec3_sub(r->wa_after, A->w1))); // as a surface speed
    if (c->ib >= 0) {
        const ls_body *B = &c->b[c->ib];
        vec3s eb = glms_vec3_add(r->vb_after, glms_vec3_scale(B->accel, rest));
        r->diff = fmax(r->diff, glms_vec3_norm(glms_vec3_sub(eb, B->v1)));
        r->diff = fmax(r->diff, B->r * glms_vec3_norm(glms_vec3_sub(r->wb_after, B->w1)));
    }
    r->agree = r->single && r->diff <= 1e-4 && fabsf(-r->vn - r->approach_engine) <= 1e-3f;
}

void ls_analyse(ls_capture *c) {
    if (c->ib >= 0)
        toi_spheres(c);
    else
        toi_wall(c);
    toi_compare(c);
    reflect(c);
    contact_mine(c);
    reflect_compare(c);
}
