// SPDX-License-Identifier: MIT
// Continuous narrowphase, the time of impact (toi): where a body is during the step, and when it first
// touches a partner.
//
// A body moves along p(s) = p + v s + a s^2 / 2 from its own clock t_body (s in seconds). A body in
// free flight carries its gravity as `a`, so flight is exact (a dropped ball keeps its energy
// bounce after bounce); a body the contact solver supported this step has a = 0 and moves in a line
// with its solved velocity. Times of impact:
// - two bodies with the same a: relative motion is linear, the exact quadratic (docs/design.md,
//   "Time of impact of two moving spheres");
// - a body against a plane: the signed distance is a quadratic in s, solved exactly;
// - otherwise (a box, or two bodies with different a): the chord of the path against the shape
//   grown by the chord's largest deviation |a| S^2 / 8 gives the earliest possible time, then
//   conservative advancement along the true path (steps of gap / max speed, never past a contact).
#include "internal.h"

static float step_seconds(const kyu_world *w, uint32_t i, float t) {
    return (t - w->step.t_body[i]) * w->def.fixed_dt;
}

vec3s kyu_pos_at(const kyu_world *w, uint32_t i, float t) {
    float s = step_seconds(w, i, t);
    vec3s p = glms_vec3_add(w->bodies.pos[i], glms_vec3_scale(w->bodies.vel[i], s));
    return glms_vec3_add(p, glms_vec3_scale(w->step.accel[i], 0.5f * s * s));
}

vec3s kyu_vel_at(const kyu_world *w, uint32_t i, float t) {
    return glms_vec3_add(w->bodies.vel[i], glms_vec3_scale(w->step.accel[i], step_seconds(w, i, t)));
}

// Box of the path of body i from time t to the end of the step, grown by radius + margin.
void kyu_path_box(const kyu_world *w, uint32_t i, float t, aabb *out) {
    float S = (1.0f - t) * w->def.fixed_dt, grow = w->bodies.radius[i] + kyu_body_margin(w, i);
    vec3s p = kyu_pos_at(w, i, t), v = kyu_vel_at(w, i, t), a = w->step.accel[i];
    for (int k = 0; k < 3; k++) {
        float p1 = p.raw[k] + v.raw[k] * S + 0.5f * a.raw[k] * S * S;
        float lo = kyu_minf(p.raw[k], p1), hi = kyu_maxf(p.raw[k], p1);
        if (a.raw[k] != 0.0f) { // the turning point of the parabola, if inside the step
            float s = -v.raw[k] / a.raw[k];
            if (s > 0.0f && s < S) {
                float pt = p.raw[k] + v.raw[k] * s + 0.5f * a.raw[k] * s * s;
                lo = kyu_minf(lo, pt), hi = kyu_maxf(hi, pt);
            }
        }
        out->lo[k] = lo - grow;
        out->hi[k] = hi + grow;
    }
}

// The box a body takes in the broadphase: its path box with a little room on every side, so that
// a path that turns after an impact mostly stays in its box and needs no late insert (a late
// insert is a grid query inside the serial impact loop; finding the first impacts of the extra
// candidate pairs runs in parallel). The room is 1% of the radius (in PILE(100,000) late inserts
// fell from 5,948 to about 330 a step for 30% more candidate pairs: the sideways jitter of a
// bounce in a pile), plus a quarter of the rest of the step's travel, at most 10% of the radius (in
// GAS(100,000), where every impact turns both paths, late inserts fell from 5,909 to 2,567 a step
// for 18% more candidate pairs; the cap keeps a row of small fast bullets from all pairing up).
#define BOX_SLACK      0.01f
#define TURN_SLACK     0.25f
#define TURN_SLACK_CAP 0.1f

void kyu_broadphase_box(const kyu_world *w, uint32_t i, float t, aabb *out) {
    kyu_path_box(w, i, t, out);
    float r = w->bodies.radius[i],
          travel = glms_vec3_norm(kyu_vel_at(w, i, t)) * (1.0f - t) * w->def.fixed_dt;
    float s = BOX_SLACK * r + kyu_minf(TURN_SLACK * travel, TURN_SLACK_CAP * r);
    for (int k = 0; k < 3; k++) out->lo[k] -= s, out->hi[k] += s;
}

// A partner seen from body a: where it is at time tau, its velocity and acceleration.
typedef struct partner {
    const collider *col; // NULL for a body
    vec3s p, v, acc;
    float r;
} partner;

static partner partner_at(const kyu_world *w, uint32_t b, float tau) {
    partner o;
    if (b & KYU_COLLIDER_BIT) {
        o.col = &w->colliders.list[b & ~KYU_COLLIDER_BIT];
        o.p = glms_vec3_add(o.col->box.center, glms_vec3_scale(o.col->velocity, tau * w->def.fixed_dt));
        o.v = o.col->velocity;
        o.acc = glms_vec3_zero();
        o.r = 0.0f;
    } else {
        o.col = NULL;
        o.p = kyu_pos_at(w, b, tau);
        o.v = kyu_vel_at(w, b, tau);
        o.acc = w->step.accel[b];
        o.r = w->bodies.radius[b];
    }
    return o;
}

// Signed gap between a sphere (centre p, radius r) and the partner, and the normal from the
// partner to the sphere; a mesh reports at most `range`.
static float gap_to(const partner *o, vec3s p, float r, float range, vec3s *n) {
    if (o->col && o->col->type == KYU_SHAPE_PLANE) {
        *n = o->col->normal;
        return glms_vec3_dot(o->col->normal, glms_vec3_sub(p, o->p)) -
               (o->col->offset - glms_vec3_dot(o->col->normal, o->col->box.center)) - r;
    }
    if (o->col) return kyu_shape_distance(o->col, o->p, p, r, range, n);
    vec3s d = glms_vec3_sub(p, o->p);
    float len = glms_vec3_norm(d);
    *n = len > 0.0f ? glms_vec3_scale(d, 1.0f / len) : (vec3s){{0.0f, 1.0f, 0.0f}};
    return len - r - o->r;
}

// Smallest root in [0, S] of c + b s + a s^2 = 0 for c > 0 (first crossing), or -1.
static double first_crossing(double a, double b, double c, double S) {
    if (a == 0.0) return b < 0.0 && -c / b <= S ? -c / b : -1.0;
    double disc = b * b - 4.0 * a * c;
    if (disc < 0.0) return -1.0;
    double q = -0.5 * (b + (b < 0.0 ? -1.0 : 1.0) * sqrt(disc));
    double r1 = q / a, r2 = q != 0.0 ? c / q : -1.0;
    double best = -1.0;
    if (r1 >= 0.0 && r1 <= S) best = r1;
    if (r2 >= 0.0 && r2 <= S && (best < 0.0 || r2 < best)) best = r2;
    return best;
}

// Whether the segment m + u chord (u in [0, 1]) stays farther than R from the origin by a margin
// that float rounding cannot bridge (1% of R^2, plus 1e-5 of the squared lengths involved). Most
// candidate pairs never come near each other; for them this replaces the square roots and the
// double-precision sweep below, whose answer (no contact) it cannot change: a pair it does not
// clear takes the exact path.
static int clear_of(vec3s m, vec3s chord, float R) {
    float cc = glms_vec3_dot(chord, chord), mm = glms_vec3_dot(m, m), mc = glms_vec3_dot(m, chord);
    float u = cc > 0.0f ? kyu_minf(kyu_maxf(-mc / cc, 0.0f), 1.0f) : 0.0f;
    vec3s c = glms_vec3_add(m, glms_vec3_scale(chord, u));
    return glms_vec3_dot(c, c) > 1.01f * R * R + 1e-5f * (mm + cc);
}

// The relative path q(s) = q0 + dv s + da s^2 / 2 of body a's centre in the partner's frame, and
// the first s in [0, S] with gap <= 0. Returns -1 for none; *gap0 is the gap at s = 0.
static float first_contact(const partner *o, vec3s q0, vec3s dv, vec3s da, float r, float S, float *gap0) {
    vec3s n;
    vec3s chord = glms_vec3_add(glms_vec3_scale(dv, S), glms_vec3_scale(da, 0.5f * S * S));
    float dev = 0.125f * sqrtf(glms_vec3_norm2(da)) * S * S; // largest distance of the path from its chord
    if (!o->col && clear_of(glms_vec3_sub(q0, o->p), chord, r + o->r + dev)) return -1.0f;
    float reach = glms_vec3_norm(chord) + dev + r; // beyond this nothing can be met
    float g0 = gap_to(o, q0, r, reach, &n), tol = 1e-6f + 1e-5f * r;
    *gap0 = g0;
    // Touching (to the tolerance the advancement below stops at; a ball that just bounced is):
    // it presses now, when its parabola brings it back, or never.
    if (g0 <= tol) return kyu_press_time(glms_vec3_dot(dv, n), glms_vec3_dot(da, n), S);
    float da2 = glms_vec3_norm2(da);
    if (o->col && o->col->type == KYU_SHAPE_PLANE) {
        double t = first_crossing(0.5 * (double)glms_vec3_dot(n, da), (double)glms_vec3_dot(n, dv),
                                  (double)g0, (double)S);
        return (float)t;
    }
    kyu_hit lo;
    if (o->col) {
        lo = kyu_shape_sweep(o->col, o->p, q0, chord, r + dev);
    } else {
        lo = kyu_sweep_sphere_sphere(q0, chord, r + dev, o->p, glms_vec3_zero(), o->r);
    }
    if (da2 == 0.0f) return lo.hit ? lo.t * S : -1.0f; // a straight path: the sweep is exact
    // A curved path may bend back into the shape even when its chord starts out moving away.
    if (!lo.hit && !lo.start_overlap) return -1.0f;
    // Conservative advancement: never steps over a contact, since no point moves faster than vmax.
    float vmax = glms_vec3_norm(dv) + sqrtf(da2) * S, s = lo.hit ? lo.t * S : 0.0f;
    for (int it = 0; it < 64; it++) {
        vec3s q = glms_vec3_add(q0, glms_vec3_add(glms_vec3_scale(dv, s), glms_vec3_scale(da, 0.5f * s * s)));
        float g = gap_to(o, q, r, reach, &n);
        if (g <= tol) return s;
        s += g / vmax;
        if (s > S) return -1.0f;
    }
    return s; // slow convergence (a graze): report the contact a hair early rather than miss it
}

// Whether pair (a, b) needs no sweep at time tau because next_impact would drop whatever
// kyu_next_contact found: the pair moves on a straight relative path (the same acceleration), so
// any contact has accel 0, and either
// - it is slower than `speed`: the approach, -dv . n <= |dv| |n|, stays under `speed` (|dv| is held
//   under 0.99 of it, far beyond the rounding of a unit normal), or
// - it is two bodies parting or sliding past each other, (pa - pb) . dv >= 0: their distance never
//   falls, so the sweep finds no contact ahead, or one touching now that does not approach.
// Not any collider in the second case (the distance to a box need not grow when its centre's
// does). In a toppling heap most candidate pairs are the second kind: a third of PILE's sweeps. A
// mesh's triangles are each met with the same acceleration 0 and an approach under `speed`, so
// none is an impact (not one met at rest either: that needs an acceleration into the face): a bed
// held on a mesh floor and walls is the first kind (a third of a pour's run into a box of one mesh
// was the sweeps of those pairs).
int kyu_sweep_needless(const kyu_world *w, uint32_t a, uint32_t b, float tau, float speed) {
    vec3s vb, ab;
    int body = !(b & KYU_COLLIDER_BIT);
    if (!body) {
        const collider *col = &w->colliders.list[b & ~KYU_COLLIDER_BIT];
        if (!(speed > 0.0f)) return 0; // without gravity nothing rests
        vb = col->velocity;
        ab = glms_vec3_zero();
    } else {
        vb = kyu_vel_at(w, b, tau);
        ab = w->step.accel[b];
    }
    vec3s da = glms_vec3_sub(w->step.accel[a], ab);
    if (da.x != 0.0f || da.y != 0.0f || da.z != 0.0f) return 0;
    vec3s dv = glms_vec3_sub(kyu_vel_at(w, a, tau), vb);
    if (speed > 0.0f && glms_vec3_norm2(dv) < 0.98f * speed * speed) return 1;
    if (!body) return 0;
    vec3s pa = kyu_pos_at(w, a, tau);
    vec3s d = glms_vec3_sub(pa, kyu_periodic_image(&w->periodic, pa, kyu_pos_at(w, b, tau)));
    return glms_vec3_dot(d, dv) >= 0.0f;
}

// A mesh's triangles, each asked of the caller's rules as the sweep finds it.
typedef struct mesh_keep {
    const kyu_world *w;
    uint32_t a, b;
    float tau, S;
    vec3s da;
    kyu_contact_keep_fn *keep;
} mesh_keep;

static float step_time(float tau, float s, float S) {
    float t = S > 0.0f ? tau + (1.0f - tau) * (s / S) : tau;
    return t > 1.0f ? 1.0f : t;
}

static int keep_triangle(void *ctx, float s, vec3s normal, float gap, float approach, int face) {
    const mesh_keep *k = ctx;
    kyu_sweep_contact c = {step_time(k->tau, s, k->S),   normal, gap, approach,
                           glms_vec3_dot(k->da, normal), face};
    return k->keep(k->w, k->a, k->b, k->tau, &c);
}

// The first contact of body a with partner b after tau along their paths that `keep` counts (of a
// mesh, the earliest of its triangles' that it counts; of any other shape, the one contact).
int kyu_next_contact(const kyu_world *w, uint32_t a, uint32_t b, float tau, kyu_contact_keep_fn *keep,
                     kyu_sweep_contact *out) {
    float S = (1.0f - tau) * w->def.fixed_dt;
    partner o = partner_at(w, b, tau);
    vec3s pa = kyu_pos_at(w, a, tau), va = kyu_vel_at(w, a, tau);
    if (!o.col) o.p = kyu_periodic_image(&w->periodic, pa, o.p); // across a seam: the nearest image
    // Work in the partner's frame: it stands still at o.p (a plane's offset is folded into gap_to).
    vec3s q0 = pa, dv = glms_vec3_sub(va, o.v), da = glms_vec3_sub(w->step.accel[a], o.acc);
    if (o.col && o.col->type == KYU_SHAPE_MESH) { // triangle by triangle: see engine/shape.c
        float s;
        mesh_keep k = {w, a, b, tau, S, da, keep};
        if (!kyu_mesh_next_contact(o.col, o.p, q0, dv, da, w->bodies.radius[a], S, kyu_body_slop(w, a),
                                   kyu_pair_event_speed(w, a, b), keep ? keep_triangle : NULL, &k, &s,
                                   &out->normal, &out->gap, &out->approach, &out->face))
            return 0;
        out->t = step_time(tau, s, S);
        out->accel = glms_vec3_dot(da, out->normal);
        return 1;
    }
    out->face = 0;
    float s = first_contact(&o, q0, dv, da, w->bodies.radius[a], S, &out->gap);
    if (s < 0.0f) return 0;
    vec3s n;
    vec3s q = glms_vec3_add(q0, glms_vec3_add(glms_vec3_scale(dv, s), glms_vec3_scale(da, 0.5f * s * s)));
    gap_to(&o, q, w->bodies.radius[a], w->bodies.radius[a], &n);
    out->t = step_time(tau, s, S);
    out->normal = n;
    out->approach = -glms_vec3_dot(glms_vec3_add(dv, glms_vec3_scale(da, s)), n);
    out->accel = glms_vec3_dot(da, n);
    return !keep || keep(w, a, b, tau, out);
}
