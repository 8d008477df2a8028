// SPDX-License-Identifier: MIT
// Intersection tests between primitives (docs/design.md, "Primitive tests and distances"). Float in, double
// inside: differences of float inputs are exact in double, so near-coplanar and near-tangent cases keep their
// digits.
#include <float.h>
#include <math.h>

#include "dmath.h"
#include "kyu/geometry.h"

// Below this, relative to the lengths involved, a determinant or a distance is taken as zero: far
// above double rounding (1e-16), far below what float inputs can express (6e-8).
#define REL_EPS 1e-9

// ---- Triangles ----------------------------------------------------------------------------------

// Line p + t d, t in [0, tmax], lying in the triangle's plane: clip it by the three edges' inward
// half-planes (Cyrus-Beck) and report the entry.
static bool coplanar_entry(dv3 p, dv3 d, double tmax, const dv3 v[3], dv3 n, double *t) {
    double t0 = 0.0, t1 = tmax;
    for (int i = 0; i < 3; i++) {
        dv3 a = v[i], b = v[(i + 1) % 3];
        dv3 m = dcross(n, dsub(b, a)); // inward for a counter-clockwise triangle seen along -n
        double f0 = ddot(dsub(p, a), m), fd = ddot(d, m);
        if (fd == 0.0) {
            if (f0 < 0.0) return false;
            continue;
        }
        double tc = -f0 / fd;
        if (fd > 0.0) {
            if (tc > t0) t0 = tc;
        } else if (tc < t1) {
            t1 = tc;
        }
        if (t0 > t1) return false;
    }
    *t = t0;
    return true;
}

static bool line_triangle(dv3 p, dv3 d, double tmax, const kyu_triangle *tri, float *t, float *u, float *v) {
    const dv3 q[3] = {dv(tri->a), dv(tri->b), dv(tri->c)};
    dv3 e1 = dsub(q[1], q[0]), e2 = dsub(q[2], q[0]);
    dv3 n = dcross(e1, e2);
    double l1 = dlen(e1), l2 = dlen(e2), ln = dlen(n);
    if (!(ln > REL_EPS * l1 * l2)) return false; // degenerate: no interior
    dv3 s = dsub(p, q[0]);
    dv3 pvec = dcross(d, e2);
    double det = ddot(e1, pvec);
    double tt, uu, vv;
    if (fabs(det) <= REL_EPS * dlen(d) * l1 * l2) {
        // Parallel to the plane: a hit only if the line lies in it (within rounding of the inputs).
        double off = ddot(s, n) / ln;
        if (fabs(off) > REL_EPS * (dlen(d) + l1 + l2 + dlen(s))) return false;
        if (!coplanar_entry(p, d, tmax, q, n, &tt)) return false;
        dv3 x = dsub(dmad(p, d, tt), q[0]);
        double nn = ddot(n, n);
        uu = ddot(dcross(x, e2), n) / nn;
        vv = ddot(dcross(e1, x), n) / nn;
    } else {
        // Moller-Trumbore: solve [-d e1 e2] (t u v)^T = p - q0 by Cramer's rule.
        double inv = 1.0 / det;
        uu = ddot(s, pvec) * inv;
        if (uu < 0.0 || uu > 1.0) return false;
        dv3 qvec = dcross(s, e1);
        vv = ddot(d, qvec) * inv;
        if (vv < 0.0 || uu + vv > 1.0) return false;
        tt = ddot(e2, qvec) * inv;
        if (tt < 0.0 || tt > tmax) return false;
    }
    if (t) *t = (float)tt;
    if (u) *u = (float)uu;
    if (v) *v = (float)vv;
    return true;
}

bool kyu_segment_triangle(kyu_segment s, const kyu_triangle *tri, float *t, float *u, float *v) {
    return line_triangle(dv(s.a), dsub(dv(s.b), dv(s.a)), 1.0, tri, t, u, v);
}

bool kyu_ray_triangle(vec3s origin, vec3s dir, const kyu_triangle *tri, float *t, float *u, float *v) {
    return line_triangle(dv(origin), dv(dir), (double)INFINITY, tri, t, u, v);
}

// ---- Spheres ------------------------------------------------------------------------------------

// First t in [0, tmax] with |p + t d - c| <= r, or -1.
static double line_sphere(dv3 p, dv3 d, double tmax, dv3 c, double r) {
    dv3 m = dsub(p, c);
    double lm = dlen(m);
    double cc = (lm - r) * (lm + r); // |m|^2 - r^2 without cancellation near the surface
    if (cc <= 0.0) return 0.0;
    double b = ddot(m, d), a = ddot(d, d);
    if (!(b < 0.0)) return -1.0; // outside and not approaching
    double disc = b * b - a * cc;
    if (disc < 0.0) return -1.0;
    double t = cc / (-b + sqrt(disc)); // the smaller root, as c / q
    return t <= tmax ? t : -1.0;
}

static bool out_t(double tt, float *t) {
    if (tt < 0.0) return false;
    if (t) *t = (float)tt;
    return true;
}

bool kyu_test_point_sphere(vec3s p, vec3s c, float r) {
    dv3 m = dsub(dv(p), dv(c));
    return ddot(m, m) <= (double)r * (double)r;
}

bool kyu_segment_sphere(kyu_segment s, vec3s c, float r, float *t) {
    return out_t(line_sphere(dv(s.a), dsub(dv(s.b), dv(s.a)), 1.0, dv(c), (double)r), t);
}

bool kyu_ray_sphere(vec3s origin, vec3s dir, vec3s c, float r, float *t) {
    return out_t(line_sphere(dv(origin), dv(dir), (double)INFINITY, dv(c), (double)r), t);
}

// ---- Boxes --------------------------------------------------------------------------------------

bool kyu_test_point_aabb(vec3s p, const kyu_aabb *box) {
    for (int i = 0; i < 3; i++)
        if (p.raw[i] < box->lower.raw[i] || p.raw[i] > box->upper.raw[i]) return false;
    return true;
}

bool kyu_test_aabb_aabb(const kyu_aabb *a, const kyu_aabb *b) {
    for (int i = 0; i < 3; i++)
        if (a->upper.raw[i] < b->lower.raw[i] || b->upper.raw[i] < a->lower.raw[i]) return false;
    return true;
}

// Slab entry of p + t d (t >= 0) into lo <= x <= hi; *axis = entry axis, or -1 for a start inside
// that does not enter through a face. Returns -1 on a miss.
static double slab_entry(const double p[3], const double d[3], const double lo[3], const double hi[3],
                         int *axis) {
    double t1, t0 = kyu_dslab(p, d, lo, hi, axis, &t1);
    if (!(t0 <= t1) || t1 < 0.0) return -1.0; // a miss, or the box is behind the origin
    if (t0 < 0.0) {
        *axis = -1; // started strictly inside along the entry slab
        return 0.0;
    }
    return t0;
}

static bool ray_box_local(const double p[3], const double d[3], const double lo[3], const double hi[3],
                          float *t, double nrm[3]) {
    int axis;
    double tt = slab_entry(p, d, lo, hi, &axis);
    if (tt < 0.0) return false;
    nrm[0] = nrm[1] = nrm[2] = 0.0;
    if (axis >= 0) nrm[axis] = d[axis] > 0.0 ? -1.0 : 1.0;
    if (t) *t = (float)tt;
    return true;
}

bool kyu_ray_aabb(vec3s origin, vec3s dir, const kyu_aabb *box, float *t, vec3s *normal) {
    const double p[3] = {(double)origin.x, (double)origin.y, (double)origin.z},
                 d[3] = {(double)dir.x, (double)dir.y, (double)dir.z};
    const double lo[3] = {(double)box->lower.x, (double)box->lower.y, (double)box->lower.z};
    const double hi[3] = {(double)box->upper.x, (double)box->upper.y, (double)box->upper.z};
    double n[3];
    if (!ray_box_local(p, d, lo, hi, t, n)) return false;
    if (normal) *normal = (vec3s){{(float)n[0], (float)n[1], (float)n[2]}};
    return true;
}

bool kyu_ray_box(vec3s origin, vec3s dir, const kyu_box *box, float *t, vec3s *normal) {
    const mat3s *m = &box->rotation;
    dv3 rel = dsub(dv(origin), dv(box->center)), dd = dv(dir);
    double p[3], d[3], lo[3], hi[3], n[3];
    for (int i = 0; i < 3; i++) {
        dv3 axis = dv(m->col[i]);
        p[i] = ddot(rel, axis);
        d[i] = ddot(dd, axis);
        hi[i] = (double)box->half_extents.raw[i];
        lo[i] = -hi[i];
    }
    if (!ray_box_local(p, d, lo, hi, t, n)) return false;
    if (normal) {
        dv3 w = {0.0, 0.0, 0.0};
        for (int i = 0; i < 3; i++) w = dmad(w, dv(m->col[i]), n[i]);
        *normal = fv(w);
    }
    return true;
}

// ---- Distances used by the boolean tests ---------------------------------------------------------

static double point_segment_dist2(dv3 p, dv3 a, dv3 b) {
    dv3 ab = dsub(b, a), ap = dsub(p, a);
    double len2 = ddot(ab, ab);
    double s = len2 > 0.0 ? clampd(ddot(ap, ab) / len2, 0.0, 1.0) : 0.0;
    dv3 diff = dmad(ap, ab, -s);
    return ddot(diff, diff);
}

// Squared distance from p to the triangle: the interior if p projects inside, else the nearest
// edge. Taking the minimum over edges (not u, v ranges) keeps obtuse and degenerate triangles
// right.
static double point_triangle_dist2(dv3 p, const dv3 q[3]) {
    dv3 e1 = dsub(q[1], q[0]), e2 = dsub(q[2], q[0]);
    dv3 n = dcross(e1, e2);
    double nn = ddot(n, n);
    if (nn > REL_EPS * REL_EPS * ddot(e1, e1) * ddot(e2, e2)) {
        dv3 x = dsub(p, q[0]);
        double u = ddot(dcross(x, e2), n) / nn, v = ddot(dcross(e1, x), n) / nn;
        if (u >= 0.0 && v >= 0.0 && u + v <= 1.0) {
            double h = ddot(x, n);
            return h * h / nn;
        }
    }
    double best = point_segment_dist2(p, q[0], q[1]);
    double d2 = point_segment_dist2(p, q[1], q[2]);
    if (d2 < best) best = d2;
    d2 = point_segment_dist2(p, q[2], q[0]);
    return d2 < best ? d2 : best;
}

bool kyu_test_sphere_triangle(vec3s c, float r, const kyu_triangle *tri) {
    const dv3 q[3] = {dv(tri->a), dv(tri->b), dv(tri->c)};
    return point_triangle_dist2(dv(c), q) <= (double)r * (double)r;
}

// ---- Cylinders ----------------------------------------------------------------------------------

// Axis frame of a cylinder: unit axis w and length L; false when a == b.
static bool cyl_frame(const kyu_cylinder *cyl, dv3 *w, double *len) {
    dv3 u = dsub(dv(cyl->b), dv(cyl->a));
    *len = dlen(u);
    if (!(*len > 0.0)) return false;
    *w = dscale(u, 1.0 / *len);
    return true;
}

bool kyu_test_point_cylinder(vec3s p, const kyu_cylinder *cyl) {
    dv3 w;
    double len;
    if (!cyl_frame(cyl, &w, &len)) return false;
    dv3 m = dsub(dv(p), dv(cyl->a));
    double s = ddot(m, w);
    if (s < 0.0 || s > len) return false;
    dv3 perp = dmad(m, w, -s);
    return ddot(perp, perp) <= (double)cyl->radius * (double)cyl->radius;
}

// First t in [0, tmax] of p + t d in the cylinder: the intersection of the caps' slab interval and
// the infinite cylinder's interval.
static double line_cylinder(dv3 p, dv3 d, double tmax, const kyu_cylinder *cyl) {
    dv3 w;
    double len;
    if (!cyl_frame(cyl, &w, &len)) return -1.0;
    double R = (double)cyl->radius;
    dv3 m = dsub(p, dv(cyl->a));
    double ms = ddot(m, w), ds = ddot(d, w);
    double t0 = 0.0, t1 = tmax;
    if (ds == 0.0) {
        if (ms < 0.0 || ms > len) return -1.0;
    } else {
        double ta = -ms / ds, tb = (len - ms) / ds;
        if (ta > tb) {
            double s = ta;
            ta = tb;
            tb = s;
        }
        if (ta > t0) t0 = ta;
        if (tb < t1) t1 = tb;
        if (t0 > t1) return -1.0;
    }
    dv3 mp = dmad(m, w, -ms), dp = dmad(d, w, -ds);
    double A = ddot(dp, dp), B = ddot(mp, dp), lm = dlen(mp);
    double C = (lm - R) * (lm + R);
    if (A == 0.0) {
        if (C > 0.0) return -1.0;
    } else {
        double disc = B * B - A * C;
        if (disc < 0.0) return -1.0;
        // Both roots without cancellation: q / A and C / q.
        double q = -(B + copysign(sqrt(disc), B));
        double ra, rb;
        if (q == 0.0) {
            ra = rb = 0.0; // B = disc = 0: C = 0, tangent at t = 0
        } else {
            ra = q / A;
            rb = C / q;
        }
        if (ra > rb) {
            double s = ra;
            ra = rb;
            rb = s;
        }
        if (ra > t0) t0 = ra;
        if (rb < t1) t1 = rb;
        if (t0 > t1) return -1.0;
    }
    return t0;
}

bool kyu_ray_cylinder(vec3s origin, vec3s dir, const kyu_cylinder *cyl, float *t) {
    return out_t(line_cylinder(dv(origin), dv(dir), (double)INFINITY, cyl), t);
}

bool kyu_segment_cylinder(kyu_segment s, const kyu_cylinder *cyl, float *t) {
    return out_t(line_cylinder(dv(s.a), dsub(dv(s.b), dv(s.a)), 1.0, cyl), t);
}

bool kyu_test_sphere_cylinder(vec3s c, float r, const kyu_cylinder *cyl) {
    dv3 w;
    double len;
    if (!cyl_frame(cyl, &w, &len)) return false;
    // In (axial, radial) coordinates the cylinder is the rectangle [0, L] x [0, R].
    dv3 m = dsub(dv(c), dv(cyl->a));
    double s = ddot(m, w);
    double rho = dlen(dmad(m, w, -s));
    double ds = s < 0.0 ? -s : s > len ? s - len : 0.0;
    double dr = rho > (double)cyl->radius ? rho - (double)cyl->radius : 0.0;
    return ds * ds + dr * dr <= (double)r * (double)r;
}

// Any unit vector perpendicular to the unit w.
static dv3 any_perp(dv3 w) {
    dv3 k = fabs(w.x) < 0.6 ? (dv3){1.0, 0.0, 0.0} : (dv3){0.0, 1.0, 0.0};
    dv3 p = dcross(w, k);
    return dscale(p, 1.0 / dlen(p));
}

// Sutherland-Hodgman clip of a polygon of (axial, x, y) points to sign * (axial - bound) <= 0.
static int clip_axial(double in[][3], int n, double bound, double sign, double out[][3]) {
    int m = 0;
    for (int i = 0; i < n; i++) {
        const double *a = in[i], *b = in[(i + 1) % n];
        double fa = sign * (a[0] - bound), fb = sign * (b[0] - bound);
        if (fa <= 0.0) {
            for (int k = 0; k < 3; k++) out[m][k] = a[k];
            m++;
        }
        if ((fa < 0.0 && fb > 0.0) || (fa > 0.0 && fb < 0.0)) {
            double s = fa / (fa - fb);
            for (int k = 0; k < 3; k++) out[m][k] = a[k] + (b[k] - a[k]) * s;
            out[m][0] = bound;
            m++;
        }
    }
    return m;
}

bool kyu_test_triangle_cylinder(const kyu_triangle *tri, const kyu_cylinder *cyl) {
    dv3 w;
    double len;
    if (!cyl_frame(cyl, &w, &len)) return false;
    dv3 e1 = any_perp(w), e2 = dcross(w, e1), a = dv(cyl->a);
    const vec3s v[3] = {tri->a, tri->b, tri->c};
    double poly[3][3], mid[5][3], fin[6][3];
    for (int i = 0; i < 3; i++) {
        dv3 m = dsub(dv(v[i]), a);
        poly[i][0] = ddot(m, w);
        poly[i][1] = ddot(m, e1);
        poly[i][2] = ddot(m, e2);
    }
    // The part of the triangle between the caps, then its shadow along the axis against the disc.
    int n = clip_axial(poly, 3, 0.0, -1.0, mid);
    if (n == 0) return false;
    n = clip_axial(mid, n, len, 1.0, fin);
    if (n == 0) return false;
    double R2 = (double)cyl->radius * (double)cyl->radius;
    bool pos = false, neg = false;
    for (int i = 0; i < n; i++) {
        const double *p = fin[i], *q = fin[(i + 1) % n];
        double ex = q[1] - p[1], ey = q[2] - p[2];
        double l2 = ex * ex + ey * ey;
        double s = l2 > 0.0 ? clampd(-(p[1] * ex + p[2] * ey) / l2, 0.0, 1.0) : 0.0;
        double cx = p[1] + ex * s, cy = p[2] + ey * s;
        if (cx * cx + cy * cy <= R2) return true;
        double cr = ex * (-p[2]) - ey * (-p[1]); // side of the axis relative to this edge
        if (cr > 0.0) pos = true;
        if (cr < 0.0) neg = true;
    }
    // No edge reaches the disc: they meet only if the axis passes through the shadow's inside.
    return !(pos && neg) && (pos || neg);
}

bool kyu_test_plane_cylinder(vec3s n, float offset, const kyu_cylinder *cyl) {
    dv3 nn = dv(n);
    double ln = dlen(nn);
    if (!(ln > 0.0)) return false;
    dv3 a = dv(cyl->a), u = dsub(dv(cyl->b), a);
    double lu = dlen(u);
    if (!(lu > 0.0)) return false;
    // Distance of the centre to the plane against the cylinder's half-extent along n.
    dv3 c = dmad(a, u, 0.5);
    double dist = (ddot(nn, c) - (double)offset) / ln;
    double reach = 0.5 * fabs(ddot(nn, u)) / ln + (double)cyl->radius * dlen(dcross(nn, u)) / (ln * lu);
    return fabs(dist) <= reach;
}

// ---- Capsules -----------------------------------------------------------------------------------

bool kyu_test_sphere_capsule(vec3s c, float r, const kyu_capsule *cap) {
    double rr = (double)r + (double)cap->radius;
    return point_segment_dist2(dv(c), dv(cap->a), dv(cap->b)) <= rr * rr;
}

bool kyu_test_triangle_capsule(const kyu_triangle *tri, const kyu_capsule *cap) {
    const dv3 q[3] = {dv(tri->a), dv(tri->b), dv(tri->c)};
    dv3 p0 = dv(cap->a), p1 = dv(cap->b);
    double r2 = (double)cap->radius * (double)cap->radius;
    if (line_triangle(p0, dsub(p1, p0), 1.0, tri, NULL, NULL, NULL)) return true;
    // Not crossing: the closest pair has an endpoint of the axis or a triangle edge in it.
    if (point_triangle_dist2(p0, q) <= r2 || point_triangle_dist2(p1, q) <= r2) return true;
    dv3 c1, c2;
    for (int i = 0; i < 3; i++)
        if (kyu_dsegments_closest(p0, p1, q[i], q[(i + 1) % 3], &c1, &c2) <= r2) return true;
    return false;
}

bool kyu_ray_capsule(vec3s origin, vec3s dir, const kyu_capsule *cap, float *t) {
    dv3 p = dv(origin), d = dv(dir), a = dv(cap->a), b = dv(cap->b);
    double r = (double)cap->radius;
    if (point_segment_dist2(p, a, b) <= r * r) return out_t(0.0, t);
    // Outside: the first entry into the end spheres or the side of the cylinder between them.
    double best = (double)INFINITY, x;
    if ((x = line_sphere(p, d, (double)INFINITY, a, r)) >= 0.0 && x < best) best = x;
    if ((x = line_sphere(p, d, (double)INFINITY, b, r)) >= 0.0 && x < best) best = x;
    kyu_cylinder cyl = {cap->a, cap->b, cap->radius};
    if ((x = line_cylinder(p, d, (double)INFINITY, &cyl)) >= 0.0 && x < best) best = x;
    return best < (double)INFINITY ? out_t(best, t) : false;
}

// ---- Cones --------------------------------------------------------------------------------------

bool kyu_test_sphere_cone(vec3s c, float r, const kyu_cone *cone) {
    // In the half-plane through the axis and c the cone is the triangle apex (0, 0), rim (h, R),
    // base centre (h, 0) in (axial z, radial rho) coordinates: inside, or the nearer of the
    // slanted side and the base.
    dv3 w = dv(cone->axis);
    w = dscale(w, 1.0 / dlen(w));
    dv3 m = dsub(dv(c), dv(cone->apex));
    double z = ddot(m, w), rho = dlen(dmad(m, w, -z));
    double h = (double)cone->height, R = h * tan((double)cone->half_angle);
    if (!(h > 0.0)) return ddot(m, m) <= (double)r * (double)r; // no height: the apex alone
    if (z >= 0.0 && z <= h && rho * h <= z * R) return true;
    // Slanted side from (0, 0) to (h, R).
    double len2 = h * h + R * R;
    double s = clampd((z * h + rho * R) / len2, 0.0, 1.0);
    double dz = z - s * h, dr = rho - s * R;
    double d2 = dz * dz + dr * dr;
    // Base disc: z = h, rho in [0, R].
    double bz = z - h, br = rho > R ? rho - R : 0.0;
    double b2 = bz * bz + br * br;
    if (b2 < d2) d2 = b2;
    return d2 <= (double)r * (double)r;
}
