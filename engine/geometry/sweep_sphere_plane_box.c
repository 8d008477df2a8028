// SPDX-License-Identifier: MIT
// Sphere sweeps with exact times of impact (two spheres: the P, Q, R quadratic of docs/design.md,
// "Time of impact of two moving spheres"; planes and boxes: a segment against the shape grown by
// the radius). Inputs and outputs are float; the quadratics are solved in double so that no finite
// float input overflows and grazing cases keep their digits.
#include <math.h>

#include "dmath.h"
#include "fquat.h"
#include "kyu/geometry.h"

static vec3s unit_or_up(dv3 a) {
    double len = sqrt(ddot(a, a));
    if (!(len > 1e-30)) return (vec3s){{0.0f, 1.0f, 0.0f}};
    return (vec3s){{(float)(a.x / len), (float)(a.y / len), (float)(a.z / len)}};
}

// Smaller root of a t^2 + 2 b t + c = 0 for c > 0, b < 0 (approaching from outside), or -1 if
// none. Written as c / q so it never subtracts nearly equal numbers.
static double first_root(double a, double b, double c) {
    if (!(b < 0.0)) return -1.0;
    double disc = b * b - a * c;
    if (disc < 0.0) return -1.0;
    return c / (-b + sqrt(disc));
}

kyu_hit kyu_sweep_sphere_sphere(vec3s a0, vec3s da, float ra, vec3s b0, vec3s db, float rb) {
    kyu_hit h = {0};
    dv3 c0 = dsub(dv(b0), dv(a0)), d = dsub(dv(db), dv(da));
    double r = (double)ra + (double)rb;
    double len0 = sqrt(ddot(c0, c0));
    double P = ddot(d, d), Q = ddot(c0, d), R = (len0 - r) * (len0 + r);
    double t;
    if (R <= 0.0) {
        h.start_overlap = true;
        if (P > 0.0 && Q >= 0.0) return h; // overlapping but already moving apart
        t = 0.0;
    } else {
        if (P == 0.0) return h; // same motion: the distance never changes
        t = first_root(P, Q, R);
        if (t < 0.0 || t > 1.0) return h;
    }
    dv3 a = dmad(dv(a0), dv(da), t), b = dmad(dv(b0), dv(db), t);
    dv3 ab = dsub(b, a);
    h.hit = true;
    h.t = (float)t;
    h.normal = unit_or_up(dsub(a, b));
    h.point = fv(dmad(a, ab, (double)ra / r));
    return h;
}

kyu_hit kyu_sweep_sphere_plane(vec3s c0, vec3s d, float r, vec3s n, float offset, vec3s plane_d) {
    kyu_hit h = {0};
    dv3 dn = dv(n);
    double s0 = ddot(dn, dv(c0)) - (double)offset - (double)r;
    double rate = ddot(dn, dsub(dv(d), dv(plane_d)));
    double t;
    if (s0 <= 0.0) {
        h.start_overlap = true;
        // Moving apart: no impact. Sliding along keeps the overlap, so it is touching now (t = 0).
        if (rate > 0.0) return h;
        t = 0.0;
    } else {
        if (!(rate < 0.0) || s0 + rate > 0.0) return h;
        t = -s0 / rate;
        if (t > 1.0) t = 1.0;
    }
    dv3 c = dmad(dv(c0), dv(d), t);
    h.hit = true;
    h.t = (float)t;
    h.normal = n;
    h.point = fv(dmad(c, dn, -(double)r));
    return h;
}

// First entry of p + t d (t in [0,1]) into the sphere (centre c, radius r); -1 if none or inside.
static double ray_sphere_entry(dv3 p, dv3 d, dv3 c, double r) {
    dv3 m = dsub(p, c);
    return first_root(ddot(d, d), ddot(m, d), ddot(m, m) - r * r);
}

static double segment_capsule_entry(dv3 p, dv3 d, dv3 a, dv3 b, double r) {
    double best = -1.0;
    dv3 u = dsub(b, a), m = dsub(p, a);
    double uu = ddot(u, u);
    double along = uu > 0.0 ? clampd(ddot(m, u) / uu, 0.0, 1.0) : 0.0;
    dv3 off = dmad(m, u, -along);
    if (ddot(off, off) <= r * r) return -1.0; // starts inside: no entry
    if (uu > 0.0) {
        // The side of the cylinder, then check the hit lies between the caps.
        dv3 mp = dmad(m, u, -ddot(m, u) / uu), dp = dmad(d, u, -ddot(d, u) / uu);
        double t = first_root(ddot(dp, dp), ddot(mp, dp), ddot(mp, mp) - r * r);
        if (t >= 0.0) {
            double s = ddot(dmad(m, d, t), u) / uu;
            if (s >= 0.0 && s <= 1.0) best = t;
        }
    }
    double ta = ray_sphere_entry(p, d, a, r), tb = ray_sphere_entry(p, d, b, r);
    if (ta >= 0.0 && (best < 0.0 || ta < best)) best = ta;
    if (tb >= 0.0 && (best < 0.0 || tb < best)) best = tb;
    return best <= 1.0 ? best : -1.0;
}

bool kyu_segment_capsule_entry(vec3s p, vec3s d, vec3s a, vec3s b, float r, float *t) {
    double tt = segment_capsule_entry(dv(p), dv(d), dv(a), dv(b), (double)r);
    if (tt < 0.0) return false;
    if (t) *t = (float)tt;
    return true;
}

// Entry of p + t d into the axis-aligned box |x_i| <= e_i; -1 if none within [0,1].
static double ray_aabb_entry(dv3 p, dv3 d, const double e[3]) {
    const double pp[3] = {p.x, p.y, p.z}, dd[3] = {d.x, d.y, d.z}, lo[3] = {-e[0], -e[1], -e[2]};
    int axis;
    double t1, t0 = kyu_dslab(pp, dd, lo, e, &axis, &t1);
    if (isnan(t0)) return -1.0;
    t0 = t0 > 0.0 ? t0 : 0.0;
    t1 = t1 < 1.0 ? t1 : 1.0;
    return t0 > t1 ? -1.0 : t0;
}

static dv3 to_local(const kyu_box *box, dv3 v) {
    const mat3s *m = &box->rotation;
    return (dv3){v.x * (double)m->col[0].x + v.y * (double)m->col[0].y + v.z * (double)m->col[0].z,
                 v.x * (double)m->col[1].x + v.y * (double)m->col[1].y + v.z * (double)m->col[1].z,
                 v.x * (double)m->col[2].x + v.y * (double)m->col[2].y + v.z * (double)m->col[2].z};
}

static dv3 to_world(const kyu_box *box, dv3 v) {
    const mat3s *m = &box->rotation;
    return (dv3){(double)m->col[0].x * v.x + (double)m->col[1].x * v.y + (double)m->col[2].x * v.z,
                 (double)m->col[0].y * v.x + (double)m->col[1].y * v.y + (double)m->col[2].y * v.z,
                 (double)m->col[0].z * v.x + (double)m->col[1].z * v.y + (double)m->col[2].z * v.z};
}

// Closest point of the local box to local p, the outward normal, and the signed distance.
static double box_local_distance(dv3 p, const double e[3], dv3 *q, dv3 *normal) {
    *q = (dv3){clampd(p.x, -e[0], e[0]), clampd(p.y, -e[1], e[1]), clampd(p.z, -e[2], e[2])};
    dv3 diff = dsub(p, *q);
    double dist = sqrt(ddot(diff, diff));
    if (dist > 0.0) {
        *normal = (dv3){diff.x / dist, diff.y / dist, diff.z / dist};
        return dist;
    }
    // Inside: leave through the face of least penetration (lowest axis first on ties).
    const double pp[3] = {p.x, p.y, p.z};
    int axis = 0;
    double depth = e[0] - fabs(pp[0]);
    for (int i = 1; i < 3; i++) {
        double di = e[i] - fabs(pp[i]);
        if (di < depth) {
            depth = di;
            axis = i;
        }
    }
    double nn[3] = {0.0, 0.0, 0.0};
    nn[axis] = pp[axis] < 0.0 ? -1.0 : 1.0;
    *normal = (dv3){nn[0], nn[1], nn[2]};
    return -depth;
}

static void box_extents(const kyu_box *box, double e[3]) {
    e[0] = (double)box->half_extents.x;
    e[1] = (double)box->half_extents.y;
    e[2] = (double)box->half_extents.z;
}

vec3s kyu_closest_point_box(const kyu_box *box, vec3s p) {
    double e[3];
    box_extents(box, e);
    dv3 c = dv(box->center), pl = to_local(box, dsub(dv(p), c));
    if (fabs(pl.x) <= e[0] && fabs(pl.y) <= e[1] && fabs(pl.z) <= e[2]) return p;
    dv3 q = {clampd(pl.x, -e[0], e[0]), clampd(pl.y, -e[1], e[1]), clampd(pl.z, -e[2], e[2])};
    return fv(dmad(c, to_world(box, q), 1.0));
}

// Whether the box is axis-aligned (the walls and floors of most scenes): its frame changes nothing,
// up to the sign of a zero, and the two rotations can be skipped.
static int axis_aligned(const kyu_box *box) {
    const mat3s *m = &box->rotation;
    return m->col[0].x == 1.0f && m->col[1].y == 1.0f && m->col[2].z == 1.0f && m->col[0].y == 0.0f &&
           m->col[0].z == 0.0f && m->col[1].x == 0.0f && m->col[1].z == 0.0f && m->col[2].x == 0.0f &&
           m->col[2].y == 0.0f;
}

float kyu_distance_sphere_box(vec3s c, float r, const kyu_box *box, vec3s *normal, vec3s *point) {
    double e[3];
    box_extents(box, e);
    dv3 q, n;
    dv3 bc = dv(box->center);
    int aligned = axis_aligned(box);
    dv3 local = dsub(dv(c), bc);
    double dist = box_local_distance(aligned ? local : to_local(box, local), e, &q, &n);
    dv3 nw = aligned ? n : to_world(box, n);
    if (normal) *normal = fv(nw);
    // The contact point sits on the box surface (for an inside centre: on the exit face).
    if (point) {
        dv3 surf = dist > 0.0 ? q : dmad(q, n, -dist);
        *point = fv(dmad(bc, to_world(box, surf), 1.0));
    }
    return (float)(dist - (double)r);
}

// First entry of p + t d into the box grown by r: the rounded box is the union of three slabs
// (the box grown along one axis) and twelve edge capsules, so its first entry is the earliest
// entry into any of them.
static double rounded_box_entry(dv3 p, dv3 d, const double e[3], double r) {
    const double grown[3] = {e[0] + r, e[1] + r, e[2] + r};
    if (ray_aabb_entry(p, d, grown) < 0.0) return -1.0;
    double best = -1.0;
    for (int i = 0; i < 3; i++) {
        double slab[3] = {e[0], e[1], e[2]};
        slab[i] += r;
        double t = ray_aabb_entry(p, d, slab);
        if (t >= 0.0 && (best < 0.0 || t < best)) best = t;
    }
    for (int axis = 0; axis < 3; axis++) {
        int j = (axis + 1) % 3, k = (axis + 2) % 3;
        for (int s = 0; s < 4; s++) {
            double a[3], b[3];
            a[axis] = -e[axis];
            b[axis] = e[axis];
            a[j] = b[j] = (s & 1) ? e[j] : -e[j];
            a[k] = b[k] = (s & 2) ? e[k] : -e[k];
            double t = segment_capsule_entry(p, d, (dv3){a[0], a[1], a[2]}, (dv3){b[0], b[1], b[2]}, r);
            if (t >= 0.0 && (best < 0.0 || t < best)) best = t;
        }
    }
    return best;
}

kyu_hit kyu_sweep_sphere_box(vec3s c0, vec3s d, float r, const kyu_box *box, vec3s box_d) {
    kyu_hit h = {0};
    double e[3];
    box_extents(box, e);
    dv3 bc = dv(box->center);
    dv3 p = to_local(box, dsub(dv(c0), bc));
    dv3 dl = to_local(box, dsub(dv(d), dv(box_d)));
    dv3 q, n;
    double dist = box_local_distance(p, e, &q, &n);
    double t = 0.0;
    if (dist <= (double)r) {
        h.start_overlap = true;
        // Moving out: no impact. Sliding along a face keeps the overlap: touching now (t = 0).
        if (ddot(dl, n) > 0.0) return h;
    } else {
        t = rounded_box_entry(p, dl, e, (double)r);
        if (t < 0.0) return h;
        box_local_distance(dmad(p, dl, t), e, &q, &n);
    }
    dv3 moved = dmad(bc, dv(box_d), t);
    h.hit = true;
    h.t = (float)t;
    h.normal = fv(to_world(box, n));
    h.point = fv(dmad(moved, to_world(box, q), 1.0));
    return h;
}

kyu_box kyu_box_make(vec3s center, versors rotation, vec3s half_extents) {
    kyu_box b;
    b.center = center;
    b.half_extents = half_extents;
    versors q = kyu_fquat_normalize(rotation); // cglm's SSE2 order on every processor (fquat.h)
    b.rotation = kyu_fquat_mat3(q);
    return b;
}
