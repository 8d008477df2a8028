// SPDX-License-Identifier: MIT
// Closest points, distances and contacts (docs/design.md, "Primitive tests and distances" and
// "Contact information, separating axes, GJK and EPA").
// Float in, float out, double inside: a float difference is exact in double, so every result is the
// exact answer to ~1e-15 of the coordinates, rounded once to float. The textbook segment routine
// loses ~2e-4 in float near parallel (docs/design.md, "Numerical pitfalls"); here the endpoint
// cases are always candidates, and the stationary point is solved through the lines' common normal
// (seg_seg).
#include <math.h>

#include "dmath.h"
#include "kyu/geometry.h"

// A separation below this fraction of the coordinates involved is double rounding noise, not a
// direction: the shapes touch, and the normal comes from the feature instead.
#define ON_FEATURE 1e-12
// A triangle thinner than this fraction of its longest edge is treated as its edges, which are then
// within 1e-12 of the edge length of its face. Thicker ones are exact: their face normal comes from
// an accurate cross product, and a classification error near a region boundary moves the answer
// by ~1e-16 of the distances only.
#define SLIVER 1e-12

static const dv3 UP = {0.0, 1.0, 0.0};

// a b - c d rounded once (Kahan's algorithm on fused multiply-adds). The plain form loses
// ~1e-16 / angle of the direction of the cross product of nearly parallel vectors when their
// products are not exact (coordinates of very different sizes); a sliver's face normal needs it.
static double diff_of_products(double a, double b, double c, double d) {
    double w = c * d;
    return fma(a, b, -w) + fma(-c, d, w);
}
static dv3 dcross_accurate(dv3 a, dv3 b) {
    return (dv3){diff_of_products(a.y, b.z, a.z, b.y), diff_of_products(a.z, b.x, a.x, b.z),
                 diff_of_products(a.x, b.y, a.y, b.x)};
}
static void put(vec3s *out, dv3 v) {
    if (out) *out = fv(v);
}

// A deterministic unit perpendicular to u (non-zero): the one nearest to up, which is what a game
// expects a ball on a rod to be pushed towards; x when u is near vertical.
static dv3 perpendicular(dv3 u) {
    dv3 ref = fabs(u.y) <= 0.9 * dlen(u) ? UP : (dv3){1.0, 0.0, 0.0};
    dv3 w = dmad(ref, u, -ddot(ref, u) / ddot(u, u));
    return dscale(w, 1.0 / dlen(w));
}

// Parameter in [0, 1] of the point of segment a + t d closest to p (0 for a point segment).
static double seg_param(dv3 a, dv3 d, dv3 p) {
    double dd = ddot(d, d);
    if (!(dd > 0.0)) return 0.0;
    return clampd(ddot(dsub(p, a), d) / dd, 0.0, 1.0);
}

static dv3 seg_closest(dv3 a, dv3 d, dv3 p) { return dmad(a, d, seg_param(a, d, p)); }

// ---- Points ------------------------------------------------------------------------------------

float kyu_distance_point_line(vec3s p, vec3s origin, vec3s direction, vec3s *closest) {
    dv3 o = dv(origin), d = dv(direction), pp = dv(p);
    double dd = ddot(d, d);
    dv3 q = dd > 0.0 ? dmad(o, d, ddot(dsub(pp, o), d) / dd) : o;
    put(closest, q);
    return (float)dlen(dsub(pp, q));
}

vec3s kyu_closest_point_segment(const kyu_segment *s, vec3s p) {
    dv3 a = dv(s->a);
    return fv(seg_closest(a, dsub(dv(s->b), a), dv(p)));
}

float kyu_distance_point_segment(vec3s p, const kyu_segment *s, vec3s *closest) {
    dv3 a = dv(s->a), q = seg_closest(a, dsub(dv(s->b), a), dv(p));
    put(closest, q);
    return (float)dlen(dsub(dv(p), q));
}

// What tri_closest found: the face, an edge or a corner, or a degenerate triangle's edges.
enum { TRI_FACE, TRI_BOUNDARY, TRI_DEGENERATE };

typedef struct tri {
    dv3 a, b, c, n;  // n = (b - a) x (c - a)
    double longest2; // longest edge, squared
    bool degenerate;
} tri;

static tri tri_make(const kyu_triangle *t) {
    tri r = {dv(t->a), dv(t->b), dv(t->c), {0, 0, 0}, 0.0, false};
    dv3 ab = dsub(r.b, r.a), ac = dsub(r.c, r.a), bc = dsub(r.c, r.b);
    r.n = dcross_accurate(ab, ac);
    r.longest2 = fmax(ddot(ab, ab), fmax(ddot(ac, ac), ddot(bc, bc)));
    r.degenerate = !(ddot(r.n, r.n) > SLIVER * SLIVER * r.longest2 * r.longest2);
    return r;
}

// Closest point of a degenerate triangle: the nearest of its three edges (their union is the
// segment or point it spans).
static dv3 tri_edges_closest(const tri *t, dv3 p) {
    dv3 best = seg_closest(t->a, dsub(t->b, t->a), p);
    double bd = ddot(dsub(p, best), dsub(p, best));
    dv3 q[2] = {seg_closest(t->b, dsub(t->c, t->b), p), seg_closest(t->c, dsub(t->a, t->c), p)};
    for (int i = 0; i < 2; i++) {
        double d = ddot(dsub(p, q[i]), dsub(p, q[i]));
        if (d < bd) {
            bd = d;
            best = q[i];
        }
    }
    return best;
}

// Closest point by Voronoi regions (Ericson, Real-Time Collision Detection 5.1.5): the corner
// regions from the projections on the two edges at each corner, the edge regions from the sign of
// the opposite barycentric coordinate and the edge's own end bounds, the face otherwise. Each
// region is tested with its own bounds, so obtuse triangles are exact (a plain u, v range test is
// not). The barycentric coordinates (times |n|^2) are triple products with the nearest
// corner rather than Ericson's differences of products, which cancel on thin triangles.
static int tri_closest(const tri *t, dv3 p, dv3 *q) {
    if (t->degenerate) {
        *q = tri_edges_closest(t, p);
        return TRI_DEGENERATE;
    }
    dv3 ab = dsub(t->b, t->a), ac = dsub(t->c, t->a), bc = dsub(t->c, t->b);
    dv3 ap = dsub(p, t->a), bp = dsub(p, t->b), cp = dsub(p, t->c);
    double d1 = ddot(ab, ap), d2 = ddot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        *q = t->a;
        return TRI_BOUNDARY;
    }
    double d3 = ddot(ab, bp), d4 = ddot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        *q = t->b;
        return TRI_BOUNDARY;
    }
    double d5 = ddot(ab, cp), d6 = ddot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        *q = t->c;
        return TRI_BOUNDARY;
    }
    double vc = ddot(t->n, dcross(ab, ap));
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        *q = dmad(t->a, ab, d1 / (d1 - d3));
        return TRI_BOUNDARY;
    }
    double vb = ddot(t->n, dcross(ap, ac));
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        *q = dmad(t->a, ac, d2 / (d2 - d6));
        return TRI_BOUNDARY;
    }
    double va = ddot(t->n, dcross(bc, bp)), e1 = ddot(bc, bp), e2 = -ddot(bc, cp);
    if (va <= 0.0 && e1 >= 0.0 && e2 >= 0.0) {
        *q = dmad(t->b, bc, e1 / (e1 + e2));
        return TRI_BOUNDARY;
    }
    *q = dmad(p, t->n, -ddot(t->n, ap) / ddot(t->n, t->n));
    return TRI_FACE;
}

vec3s kyu_closest_point_triangle(const kyu_triangle *t, vec3s p) {
    tri tr = tri_make(t);
    dv3 q;
    tri_closest(&tr, dv(p), &q);
    return fv(q);
}

float kyu_distance_point_triangle(vec3s p, const kyu_triangle *t, vec3s *closest) {
    tri tr = tri_make(t);
    dv3 q, pp = dv(p);
    tri_closest(&tr, pp, &q);
    put(closest, q);
    return (float)dlen(dsub(pp, q));
}

vec3s kyu_closest_point_aabb(const kyu_aabb *box, vec3s p) {
    return (vec3s){{glm_clamp(p.x, box->lower.x, box->upper.x), glm_clamp(p.y, box->lower.y, box->upper.y),
                    glm_clamp(p.z, box->lower.z, box->upper.z)}};
}

// Inside (or on the surface): leave through the face of least depth; the clamped point and the
// differences are exact (floats in double), so a point on a face gets that face's normal exactly.
static double aabb_inside(dv3 p, dv3 lo, dv3 hi, dv3 *normal, dv3 *point) {
    int axis = 0;
    double depth = (double)INFINITY, side = 1.0;
    for (int k = 0; k < 3; k++) {
        double up = dget(hi, k) - dget(p, k), down = dget(p, k) - dget(lo, k);
        double dk = fmin(up, down);
        if (dk < depth) {
            depth = dk;
            axis = k;
            side = up <= down ? 1.0 : -1.0;
        }
    }
    double n[3] = {0.0, 0.0, 0.0};
    n[axis] = side;
    *normal = (dv3){n[0], n[1], n[2]};
    *point = dmad(p, *normal, depth);
    return -depth;
}

float kyu_distance_point_aabb(vec3s p, const kyu_aabb *box, vec3s *normal, vec3s *point) {
    dv3 pp = dv(p), q = dv(kyu_closest_point_aabb(box, p)), n;
    dv3 sep = dsub(pp, q);
    double dist = dlen(sep);
    if (dist > 0.0) {
        n = dscale(sep, 1.0 / dist);
    } else {
        dist = aabb_inside(pp, dv(box->lower), dv(box->upper), &n, &q);
    }
    put(normal, n);
    put(point, q);
    return (float)dist;
}

float kyu_distance_point_box(vec3s p, const kyu_box *box, vec3s *normal, vec3s *point) {
    return kyu_distance_sphere_box(p, 0.0f, box, normal, point);
}

// ---- Segments ----------------------------------------------------------------------------------

typedef struct pair {
    dv3 p1, p2;
    double d2; // |p1 - p2|^2
} pair;

static void consider(pair *best, dv3 p1, dv3 p2) {
    dv3 d = dsub(p1, p2);
    double d2 = ddot(d, d);
    if (d2 < best->d2) *best = (pair){p1, p2, d2};
}

// Closest pair of segments a1 + s d1 and a2 + t d2. The minimum of a convex function over the
// square [0,1]^2 is the stationary point or lies on an edge of the square, and an edge is an
// endpoint of one segment against the other segment: four point-segment problems, always well
// conditioned. The stationary point of the two lines is one more candidate, snapped onto the
// segments by two projections. It is solved with the lines' common normal n = d1 x d2,
// s = ((a2 - a1) x d2).n / n.n, rather than Ericson's 5.1.9 Cramer rule, whose denominator
// a e - b^2 cancels to 1e-16 / angle^2 near parallel (a float version is off by ~2e-4: docs/design.md,
// "Numerical pitfalls").
// Here n's rounding (~1e-16 / angle of its direction) only slides the pair along the nearly
// parallel lines, and the next projection keeps it across them: the distance moves by the angle
// times the slide, ~1e-16 of the coordinates. Exactly parallel lines have no stationary point
// (n = 0) and the endpoint cases answer.
static pair seg_seg(dv3 a1, dv3 d1, dv3 a2, dv3 d2) {
    pair best = {a1, a2, (double)INFINITY};
    dv3 n = dcross(d1, d2);
    double nn = ddot(n, n);
    if (nn > 0.0) {
        double s = clampd(ddot(dcross(dsub(a2, a1), d2), n) / nn, 0.0, 1.0);
        dv3 p2 = seg_closest(a2, d2, dmad(a1, d1, s));
        consider(&best, seg_closest(a1, d1, p2), p2);
    }
    dv3 b1 = dmad(a1, d1, 1.0), b2 = dmad(a2, d2, 1.0);
    consider(&best, a1, seg_closest(a2, d2, a1));
    consider(&best, b1, seg_closest(a2, d2, b1));
    consider(&best, seg_closest(a1, d1, a2), a2);
    consider(&best, seg_closest(a1, d1, b2), b2);
    return best;
}

double kyu_dsegments_closest(dv3 p1, dv3 q1, dv3 p2, dv3 q2, dv3 *c1, dv3 *c2) {
    pair pr = seg_seg(p1, dsub(q1, p1), p2, dsub(q2, p2));
    *c1 = pr.p1;
    *c2 = pr.p2;
    return pr.d2;
}

static pair seg_seg_of(const kyu_segment *s1, const kyu_segment *s2) {
    dv3 a1 = dv(s1->a), a2 = dv(s2->a);
    return seg_seg(a1, dsub(dv(s1->b), a1), a2, dsub(dv(s2->b), a2));
}

void kyu_closest_points_segments(const kyu_segment *s1, const kyu_segment *s2, vec3s *p1, vec3s *p2) {
    pair pr = seg_seg_of(s1, s2);
    put(p1, pr.p1);
    put(p2, pr.p2);
}

float kyu_distance_segment_segment(const kyu_segment *s1, const kyu_segment *s2, vec3s *p1, vec3s *p2) {
    pair pr = seg_seg_of(s1, s2);
    put(p1, pr.p1);
    put(p2, pr.p2);
    return (float)sqrt(pr.d2);
}

// Closest pair of segment p0 + t d and a triangle: the segment crossing the plane inside the
// triangle, an endpoint against the triangle, or the segment against an edge. If the minimum had
// both points interior and a positive distance, the segment would be parallel to the plane and the
// minimum would extend to an endpoint or an edge, so these candidates cover every case.
static pair seg_tri(dv3 p0, dv3 d, const tri *t) {
    pair best = {p0, p0, (double)INFINITY};
    dv3 p1 = dmad(p0, d, 1.0), q;
    if (!t->degenerate) {
        double s0 = ddot(t->n, dsub(p0, t->a)), s1 = ddot(t->n, dsub(p1, t->a));
        if ((s0 <= 0.0 && s1 >= 0.0) || (s0 >= 0.0 && s1 <= 0.0)) {
            dv3 x = s0 == s1 ? p0 : dmad(p0, d, s0 / (s0 - s1));
            tri_closest(t, x, &q);
            consider(&best, x, q);
        }
    }
    tri_closest(t, p0, &q);
    consider(&best, p0, q);
    tri_closest(t, p1, &q);
    consider(&best, p1, q);
    const dv3 *v[4] = {&t->a, &t->b, &t->c, &t->a};
    for (int i = 0; i < 3; i++) {
        pair e = seg_seg(p0, d, *v[i], dsub(*v[i + 1], *v[i]));
        consider(&best, e.p1, e.p2);
    }
    return best;
}

float kyu_distance_segment_triangle(const kyu_segment *s, const kyu_triangle *t, vec3s *on_segment,
                                    vec3s *on_triangle) {
    tri tr = tri_make(t);
    dv3 a = dv(s->a);
    pair pr = seg_tri(a, dsub(dv(s->b), a), &tr);
    put(on_segment, pr.p1);
    put(on_triangle, pr.p2);
    return (float)sqrt(pr.d2);
}

// ---- Solids --------------------------------------------------------------------------------------

// The unit direction of a separation, unless it is within rounding noise of `scale` (the size of
// the coordinates it came from): then the shapes touch there and the caller picks the normal.
static bool direction(dv3 sep, double len, double scale, dv3 *n) {
    if (!(len > ON_FEATURE * scale && len > 0.0)) return false;
    *n = dscale(sep, 1.0 / len);
    return true;
}

static dv3 axis_fallback(dv3 d) { return ddot(d, d) > 0.0 ? perpendicular(d) : UP; }

float kyu_distance_sphere_sphere(vec3s ca, float ra, vec3s cb, float rb, vec3s *normal, vec3s *point) {
    dv3 a = dv(ca), b = dv(cb), sep = dsub(a, b), n;
    double len = dlen(sep);
    // The difference of two floats is exact, so only truly coincident centres lack a direction.
    if (!direction(sep, len, 0.0, &n)) n = UP;
    put(normal, n);
    put(point, dmad(b, n, (double)rb));
    return (float)(len - (double)ra - (double)rb);
}

float kyu_distance_sphere_capsule(vec3s center, float radius, const kyu_capsule *capsule, vec3s *normal,
                                  vec3s *point) {
    dv3 c = dv(center), a = dv(capsule->a), d = dsub(dv(capsule->b), a), n;
    dv3 q = seg_closest(a, d, c), sep = dsub(c, q);
    double len = dlen(sep);
    if (!direction(sep, len, dlen(dsub(c, a)) + dlen(d), &n)) n = axis_fallback(d);
    put(normal, n);
    put(point, dmad(q, n, (double)capsule->radius));
    return (float)(len - (double)radius - (double)capsule->radius);
}

// Axes that touch or cross: push along the normal of both, oriented from B's middle to A's;
// parallel axes: a perpendicular to one; two points: up.
static dv3 crossing_normal(dv3 a1, dv3 d1, dv3 a2, dv3 d2) {
    dv3 n = dcross(d1, d2);
    double nn = ddot(n, n), l1 = ddot(d1, d1), l2 = ddot(d2, d2);
    if (nn > SLIVER * SLIVER * l1 * l2) {
        dv3 mid = dsub(dmad(a1, d1, 0.5), dmad(a2, d2, 0.5));
        return dscale(n, (ddot(n, mid) < 0.0 ? -1.0 : 1.0) / sqrt(nn));
    }
    return axis_fallback(l1 > 0.0 ? d1 : d2);
}

float kyu_distance_capsule_capsule(const kyu_capsule *a, const kyu_capsule *b, vec3s *normal, vec3s *point) {
    dv3 a1 = dv(a->a), d1 = dsub(dv(a->b), a1), a2 = dv(b->a), d2 = dsub(dv(b->b), a2), n;
    pair pr = seg_seg(a1, d1, a2, d2);
    double len = sqrt(pr.d2), scale = dlen(dsub(a1, a2)) + dlen(d1) + dlen(d2);
    if (!direction(dsub(pr.p1, pr.p2), len, scale, &n)) n = crossing_normal(a1, d1, a2, d2);
    put(normal, n);
    put(point, dmad(pr.p2, n, (double)b->radius));
    return (float)(len - (double)a->radius - (double)b->radius);
}

// A degenerate triangle spans a segment (its longest edge) or a point.
static dv3 degenerate_normal(const tri *t) {
    dv3 e[3] = {dsub(t->b, t->a), dsub(t->c, t->b), dsub(t->a, t->c)};
    int k = 0;
    for (int i = 1; i < 3; i++)
        if (ddot(e[i], e[i]) > ddot(e[k], e[k])) k = i;
    return axis_fallback(e[k]);
}

float kyu_distance_sphere_triangle(vec3s center, float radius, const kyu_triangle *triangle, vec3s *normal,
                                   vec3s *point) {
    tri t = tri_make(triangle);
    dv3 c = dv(center), q, n;
    int region = tri_closest(&t, c, &q);
    dv3 sep = dsub(c, q);
    double len = dlen(sep), scale = dlen(dsub(c, t.a)) + sqrt(t.longest2);
    if (region == TRI_FACE) {
        // The face normal itself rather than sep's direction: exact, and on the (b - a) x (c - a)
        // side when the centre lies on the plane (to rounding).
        double nl = dlen(t.n), h = ddot(t.n, dsub(c, t.a)) / nl;
        n = dscale(t.n, (h < -ON_FEATURE * scale ? -1.0 : 1.0) / nl);
        len = fabs(h);
    } else if (!direction(sep, len, scale, &n)) {
        n = region == TRI_DEGENERATE ? degenerate_normal(&t) : dscale(t.n, 1.0 / dlen(t.n));
    }
    put(normal, n);
    put(point, q);
    return (float)(len - (double)radius);
}

// ---- Contacts ------------------------------------------------------------------------------------

kyu_contact kyu_contact_sphere_sphere(vec3s ca, float ra, vec3s cb, float rb) {
    kyu_contact k;
    k.distance = kyu_distance_sphere_sphere(ca, ra, cb, rb, &k.normal, &k.point);
    return k;
}

kyu_contact kyu_contact_sphere_capsule(vec3s center, float radius, const kyu_capsule *capsule) {
    kyu_contact k;
    k.distance = kyu_distance_sphere_capsule(center, radius, capsule, &k.normal, &k.point);
    return k;
}

kyu_contact kyu_contact_sphere_box(vec3s center, float radius, const kyu_box *box) {
    kyu_contact k;
    k.distance = kyu_distance_sphere_box(center, radius, box, &k.normal, &k.point);
    return k;
}

kyu_contact kyu_contact_sphere_triangle(vec3s center, float radius, const kyu_triangle *triangle) {
    kyu_contact k;
    k.distance = kyu_distance_sphere_triangle(center, radius, triangle, &k.normal, &k.point);
    return k;
}

kyu_contact kyu_contact_capsule_capsule(const kyu_capsule *a, const kyu_capsule *b) {
    kyu_contact k;
    k.distance = kyu_distance_capsule_capsule(a, b, &k.normal, &k.point);
    return k;
}
