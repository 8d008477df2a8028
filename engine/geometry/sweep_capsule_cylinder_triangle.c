// SPDX-License-Identifier: MIT
// Sphere sweeps against capsules, cylinders and triangles. Each works on the centre's path relative
// to the shape (p + t v, with p measured from the shape's first point so that large world
// coordinates cancel before anything is squared) against the shape grown by the sphere's radius.
// The grown shape is a union of simple pieces, and the first entry into a union is the earliest
// entry into any piece. Inputs and outputs are float; the work is in double (dmath.h).
#include <math.h>

#include "dmath.h"
#include "kyu/geometry.h"

// a / |a|, or false when a is too short to have a direction.
static bool dunit(dv3 a, dv3 *out) {
    double len = dlen(a);
    if (!(len > 1e-300) || !isfinite(len)) return false;
    *out = dscale(a, 1.0 / len);
    return true;
}

// The part of v perpendicular to axis (axis may be zero: then all of v).
static dv3 perp_part(dv3 v, dv3 axis) {
    double aa = ddot(axis, axis);
    return aa > 0.0 ? dmad(v, axis, -ddot(v, axis) / aa) : v;
}

// A normal for a centre that lies on the shape's core (axis, segment or point), where the distance
// has no direction: against the motion across the axis (the side the centre comes from), else a
// fixed direction perpendicular to the axis, so the answer is deterministic and never NaN.
static dv3 fallback_normal(dv3 v, dv3 axis) {
    dv3 n;
    if (dunit(dscale(perp_part(v, axis), -1.0), &n)) return n;
    const dv3 candidates[3] = {{0.0, 1.0, 0.0}, {1.0, 0.0, 0.0}, {0.0, 0.0, 1.0}};
    for (int i = 0; i < 3; i++) {
        // The first of y, x, z that is not nearly along the axis, made perpendicular to it.
        dv3 c = perp_part(candidates[i], axis);
        if (ddot(c, c) > 0.5 && dunit(c, &n)) return n;
    }
    return candidates[0];
}

// Smaller root of a t^2 + 2 b t + c = 0 for c >= 0, b < 0 (approaching from outside), or -1 if
// none. Written as c / q so that it never subtracts nearly equal numbers.
static double first_root(double a, double b, double c) {
    if (!(b < 0.0) || c < 0.0) return -1.0;
    double disc = b * b - a * c;
    if (disc < 0.0) return -1.0;
    return c / (-b + sqrt(disc));
}

// |m|^2 - R^2. In double from float inputs the squares are exact or nearly (a float product is
// exact in double), so the difference loses nothing that matters, and for dyadic inputs an exactly
// grazing path keeps its discriminant exactly 0 (a product (|m| - R)(|m| + R) would round |m|).
static double gap_sq(dv3 m, double R) { return ddot(m, m) - R * R; }

// The hit at time t: `q` is the contact point relative to the shape's first point `origin`.
static kyu_hit make_hit(double t, bool start, dv3 origin, dv3 shape_d, dv3 q, dv3 n) {
    kyu_hit h = {0};
    h.hit = true;
    h.start_overlap = start;
    h.t = (float)t;
    h.point = fv(dmad(dmad(origin, shape_d, t), q, 1.0));
    h.normal = fv(n);
    return h;
}

// ---- Capsules ------------------------------------------------------------------------------------

// Closest point to p of the segment from the origin to u.
static dv3 segment_closest(dv3 p, dv3 u) {
    double uu = ddot(u, u);
    double s = uu > 0.0 ? clampd(ddot(p, u) / uu, 0.0, 1.0) : 0.0;
    return dscale(u, s);
}

// First entry in [0, 1] of p + t v into the capsule around the segment 0-u with radius R, for a p
// outside it; -1 if none. The side is met only between the end planes; the end spheres otherwise.
static double capsule_entry(dv3 p, dv3 v, dv3 u, double R) {
    double best = -1.0, uu = ddot(u, u);
    if (uu > 0.0) {
        dv3 pp = perp_part(p, u), vp = perp_part(v, u);
        double t = first_root(ddot(vp, vp), ddot(pp, vp), gap_sq(pp, R));
        if (t >= 0.0 && t <= 1.0) {
            double s = ddot(dmad(p, v, t), u);
            if (s >= 0.0 && s <= uu) best = t;
        }
    }
    double vv = ddot(v, v);
    double ta = first_root(vv, ddot(p, v), gap_sq(p, R));
    dv3 pb = dsub(p, u);
    double tb = uu > 0.0 ? first_root(vv, ddot(pb, v), gap_sq(pb, R)) : -1.0;
    if (ta >= 0.0 && ta <= 1.0 && (best < 0.0 || ta < best)) best = ta;
    if (tb >= 0.0 && tb <= 1.0 && (best < 0.0 || tb < best)) best = tb;
    return best;
}

kyu_hit kyu_sweep_sphere_capsule(vec3s c0, vec3s d, float r, const kyu_capsule *capsule, vec3s capsule_d) {
    kyu_hit h = {0};
    dv3 a = dv(capsule->a), u = dsub(dv(capsule->b), a), sd = dv(capsule_d);
    dv3 p = dsub(dv(c0), a), v = dsub(dv(d), sd);
    double R = (double)capsule->radius + (double)r, t = 0.0;
    dv3 q = segment_closest(p, u), n;
    bool start = dlen(dsub(p, q)) <= R;
    if (!start) {
        t = capsule_entry(p, v, u, R);
        if (t < 0.0) return h;
        p = dmad(p, v, t);
        q = segment_closest(p, u);
    }
    if (!dunit(dsub(p, q), &n)) n = fallback_normal(v, u);
    if (start && ddot(v, n) > 0.0) {
        h.start_overlap = true; // moving apart: nothing to resolve
        return h;
    }
    return make_hit(t, start, a, sd, dmad(q, n, (double)capsule->radius), n);
}

// ---- Cylinders -----------------------------------------------------------------------------------

typedef struct cyl {
    dv3 axis;   // unit, from a to b
    double len; // |b - a|
    double rho; // radius
} cyl;

// Distance from p (relative to a) to the solid cylinder, zero inside: the convex function of t
// that the rim search brackets.
static double cylinder_gap(const cyl *c, dv3 p) {
    double h = ddot(p, c->axis);
    double radial = fmax(dlen(dmad(p, c->axis, -h)) - c->rho, 0.0);
    double axial = h < 0.0 ? -h : h > c->len ? h - c->len : 0.0;
    return sqrt(radial * radial + axial * axial);
}

// Signed distance from p to the solid cylinder (negative inside), with the closest surface point q
// and the unit outward normal n. Inside, the nearest surface wins (caps first on ties); v picks the
// radial direction of a centre on the axis.
static double cylinder_distance(const cyl *c, dv3 p, dv3 v, dv3 *q, dv3 *n) {
    double h = ddot(p, c->axis);
    dv3 w = dmad(p, c->axis, -h), radial;
    double wl = dlen(w);
    if (!dunit(w, &radial)) radial = fallback_normal(v, c->axis);
    if (h < 0.0 || h > c->len || wl > c->rho) {
        *q = dmad(dscale(c->axis, clampd(h, 0.0, c->len)), radial, fmin(wl, c->rho));
        dv3 off = dsub(p, *q);
        if (!dunit(off, n)) *n = radial;
        return dlen(off);
    }
    double bottom = h, top = c->len - h, side = c->rho - wl;
    if (bottom <= top && bottom <= side) {
        *q = w;
        *n = dscale(c->axis, -1.0);
        return -bottom;
    }
    if (top <= side) {
        *q = dmad(w, c->axis, c->len);
        *n = c->axis;
        return -top;
    }
    *q = dmad(dscale(c->axis, h), radial, c->rho);
    *n = radial;
    return -side;
}

// The interval of p + t v (all t) within radial distance R of the axis; false if empty.
static bool radial_interval(dv3 pw, dv3 vw, double R, double *t0, double *t1) {
    double A = ddot(vw, vw), B = ddot(pw, vw), C = gap_sq(pw, R);
    if (A == 0.0) {
        *t0 = -(double)INFINITY;
        *t1 = (double)INFINITY;
        return C <= 0.0;
    }
    double disc = B * B - A * C;
    if (disc < 0.0) return false;
    // Both roots without cancellation: q / A and C / q with q = -(B + sign(B) sqrt(disc)).
    double q = B <= 0.0 ? -B + sqrt(disc) : -B - sqrt(disc);
    if (q == 0.0) {
        *t0 = *t1 = 0.0;
        return true;
    }
    double x = C / q, y = q / A;
    *t0 = fmin(x, y);
    *t1 = fmax(x, y);
    return true;
}

// Only a rim torus can be met first (the path touches neither the side nor a cap face): find the
// first t with cylinder_gap <= r. The gap is convex in t (distance to a convex set along a line),
// so a golden-section search finds its minimum and bisection before it finds the crossing: a
// bracketed search, robust where the torus quartic is not. Limited to the path's stay in the
// cylinder's bounding box grown by r, outside which the gap exceeds r.
static double rim_entry(const cyl *c, dv3 p, dv3 v, double r) {
    double h0 = ddot(p, c->axis), hv = ddot(v, c->axis);
    double lo = 0.0, hi = 1.0, t0, t1;
    if (!radial_interval(dmad(p, c->axis, -h0), dmad(v, c->axis, -hv), c->rho + r, &t0, &t1)) return -1.0;
    lo = fmax(lo, t0);
    hi = fmin(hi, t1);
    if (hv != 0.0) {
        double ta = (-r - h0) / hv, tb = (c->len + r - h0) / hv;
        lo = fmax(lo, fmin(ta, tb));
        hi = fmin(hi, fmax(ta, tb));
    } else if (h0 < -r || h0 > c->len + r) {
        return -1.0;
    }
    if (!(lo <= hi)) return -1.0;
    const double phi = 0.6180339887498949;
    double a = lo, b = hi, x1 = b - phi * (b - a), x2 = a + phi * (b - a);
    double f1 = cylinder_gap(c, dmad(p, v, x1)), f2 = cylinder_gap(c, dmad(p, v, x2));
    for (int i = 0; i < 80 && b - a > 1e-17; i++) {
        if (f1 <= f2) {
            b = x2, x2 = x1, f2 = f1, x1 = b - phi * (b - a);
            f1 = cylinder_gap(c, dmad(p, v, x1));
        } else {
            a = x1, x1 = x2, f1 = f2, x2 = a + phi * (b - a);
            f2 = cylinder_gap(c, dmad(p, v, x2));
        }
    }
    double t_min = f1 <= f2 ? x1 : x2;
    if (fmin(f1, f2) > r) return -1.0;
    // gap(lo) > r unless the path starts in the box at t = 0, where the caller knows gap > r.
    double left = lo, right = t_min;
    for (int i = 0; i < 64 && right - left > 0.0; i++) {
        double mid = 0.5 * (left + right);
        if (mid <= left || mid >= right) break;
        if (cylinder_gap(c, dmad(p, v, mid)) <= r)
            right = mid;
        else
            left = mid;
    }
    return right;
}

// First entry in [0, 1] into the cylinder grown by r, for a p outside it; -1 if none. An entry
// through the grown side (between the cap planes) or through a grown cap face (within the disc) is
// where the convex gap falls to r while decreasing, so nothing can come before it; without one,
// the path can only touch a rim torus.
static double cylinder_entry(const cyl *c, dv3 p, dv3 v, double r) {
    double h0 = ddot(p, c->axis), hv = ddot(v, c->axis), best = -1.0;
    dv3 pw = dmad(p, c->axis, -h0), vw = dmad(v, c->axis, -hv);
    double t = first_root(ddot(vw, vw), ddot(pw, vw), gap_sq(pw, c->rho + r));
    if (t >= 0.0 && t <= 1.0) {
        double h = h0 + hv * t;
        if (h >= 0.0 && h <= c->len) best = t;
    }
    t = -1.0;
    if (h0 < -r && hv > 0.0) t = (-r - h0) / hv;
    if (h0 > c->len + r && hv < 0.0) t = (h0 - c->len - r) / -hv;
    if (t >= 0.0 && t <= 1.0 && (best < 0.0 || t < best)) {
        dv3 w = dmad(pw, vw, t);
        if (ddot(w, w) <= c->rho * c->rho) best = t;
    }
    return best >= 0.0 ? best : rim_entry(c, p, v, r);
}

kyu_hit kyu_sweep_sphere_cylinder(vec3s c0, vec3s d, float r, const kyu_cylinder *cylinder,
                                  vec3s cylinder_d) {
    dv3 a = dv(cylinder->a), u = dsub(dv(cylinder->b), a), sd = dv(cylinder_d);
    cyl c = {{0.0, 1.0, 0.0}, dlen(u), (double)cylinder->radius};
    if (!dunit(u, &c.axis)) {
        kyu_capsule ball = {cylinder->a, cylinder->a, cylinder->radius};
        return kyu_sweep_sphere_capsule(c0, d, r, &ball, cylinder_d);
    }
    kyu_hit h = {0};
    dv3 p = dsub(dv(c0), a), v = dsub(dv(d), sd), q, n;
    double t = 0.0;
    bool start = cylinder_distance(&c, p, v, &q, &n) <= (double)r;
    if (start && ddot(v, n) > 0.0) {
        h.start_overlap = true; // moving apart: nothing to resolve
        return h;
    }
    if (!start) {
        t = cylinder_entry(&c, p, v, (double)r);
        if (t < 0.0) return h;
        cylinder_distance(&c, dmad(p, v, t), v, &q, &n);
    }
    return make_hit(t, start, a, sd, q, n);
}

// ---- Triangles -----------------------------------------------------------------------------------

typedef struct tri {
    dv3 b, c;        // corners relative to a (a is the origin)
    dv3 normal;      // unit face normal (b x c), when not degenerate
    bool degenerate; // collinear or equal corners: the three edges only
} tri;

// Closest point to p on the segment s0-s1.
static dv3 closest_on_edge(dv3 p, dv3 s0, dv3 s1) {
    return dmad(s0, segment_closest(dsub(p, s0), dsub(s1, s0)), 1.0);
}

// Closest point of the triangle to p by its Voronoi regions (vertices, then edges, then the face);
// *face says the face region. A degenerate triangle takes the nearest of its three edges.
static dv3 triangle_closest(const tri *k, dv3 p, bool *face) {
    *face = false;
    const dv3 a = {0.0, 0.0, 0.0}, b = k->b, c = k->c;
    if (k->degenerate) {
        dv3 best = closest_on_edge(p, a, b);
        const dv3 others[2] = {closest_on_edge(p, b, c), closest_on_edge(p, c, a)};
        for (int i = 0; i < 2; i++)
            if (ddot(dsub(p, others[i]), dsub(p, others[i])) < ddot(dsub(p, best), dsub(p, best)))
                best = others[i];
        return best;
    }
    dv3 ab = b, ac = c, ap = p;
    double d1 = ddot(ab, ap), d2 = ddot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) return a;
    dv3 bp = dsub(p, b);
    double d3 = ddot(ab, bp), d4 = ddot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) return b;
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) return closest_on_edge(p, a, b);
    dv3 cp = dsub(p, c);
    double d5 = ddot(ab, cp), d6 = ddot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) return c;
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) return closest_on_edge(p, a, c);
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) return closest_on_edge(p, b, c);
    // The face: the projection of p onto the plane.
    *face = true;
    return dmad(p, k->normal, -ddot(p, k->normal));
}

// Whether x projects into the triangle (edges included).
static bool triangle_contains(const tri *k, dv3 x) {
    dv3 cb = dsub(k->c, k->b);
    return ddot(dcross(k->b, x), k->normal) >= 0.0 && ddot(dcross(cb, dsub(x, k->b)), k->normal) >= 0.0 &&
           ddot(dcross(dscale(k->c, -1.0), dsub(x, k->c)), k->normal) >= 0.0;
}

// The normal at p with closest point q: the face normal on p's side in the face region (against the
// motion when p is in the plane), else from the closest point of the edge or corner to p.
static dv3 triangle_normal(const tri *k, dv3 p, dv3 q, bool face, dv3 v) {
    dv3 n;
    if (face) {
        double s = ddot(p, k->normal);
        if (s == 0.0) s = -ddot(v, k->normal);
        return s < 0.0 ? dscale(k->normal, -1.0) : k->normal;
    }
    if (dunit(dsub(p, q), &n)) return n;
    // On an edge or corner: like the face, against the motion; a degenerate triangle is a segment.
    if (!k->degenerate) return ddot(v, k->normal) > 0.0 ? dscale(k->normal, -1.0) : k->normal;
    dv3 axis = ddot(k->b, k->b) >= ddot(k->c, k->c) ? k->b : k->c;
    return fallback_normal(v, axis);
}

// First entry in [0, 1] into the triangle grown by r, for a p outside it; -1 if none. The face
// slab is entered through one of its two faces within the triangle (an entry through its sides is
// inside an edge capsule already); the edge capsules hold the corners.
static double triangle_entry(const tri *k, dv3 p, dv3 v, double r) {
    double best = -1.0;
    if (!k->degenerate) {
        double s0 = ddot(p, k->normal), sv = ddot(v, k->normal), t = -1.0;
        if (s0 > r && sv < 0.0) t = (s0 - r) / -sv;
        if (s0 < -r && sv > 0.0) t = (-r - s0) / sv;
        if (t >= 0.0 && t <= 1.0 && triangle_contains(k, dmad(p, v, t))) best = t;
    }
    const dv3 corner[3] = {{0.0, 0.0, 0.0}, k->b, k->c};
    for (int i = 0; i < 3; i++) {
        dv3 s0 = corner[i], s1 = corner[(i + 1) % 3];
        double t = capsule_entry(dsub(p, s0), v, dsub(s1, s0), r);
        if (t >= 0.0 && (best < 0.0 || t < best)) best = t;
    }
    return best;
}

kyu_hit kyu_sweep_sphere_triangle(vec3s c0, vec3s d, float r, const kyu_triangle *triangle,
                                  vec3s triangle_d) {
    kyu_hit h = {0};
    dv3 a = dv(triangle->a), sd = dv(triangle_d);
    tri k = {dsub(dv(triangle->b), a), dsub(dv(triangle->c), a), {0.0, 0.0, 0.0}, false};
    dv3 cb = dsub(k.c, k.b), cr = dcross(k.b, k.c);
    double longest = fmax(ddot(k.b, k.b), fmax(ddot(k.c, k.c), ddot(cb, cb)));
    // A sliver whose area is below 1e-12 of its longest edge squared is within 1e-12 of that edge
    // of its edges: the face adds nothing, and its normal would be noise.
    k.degenerate = !(dlen(cr) > 1e-12 * longest) || !dunit(cr, &k.normal);
    dv3 p = dsub(dv(c0), a), v = dsub(dv(d), sd);
    double t = 0.0;
    bool face;
    dv3 q = triangle_closest(&k, p, &face);
    bool start = dlen(dsub(p, q)) <= (double)r;
    if (!start) {
        t = triangle_entry(&k, p, v, (double)r);
        if (t < 0.0) return h;
        p = dmad(p, v, t);
        q = triangle_closest(&k, p, &face);
    }
    dv3 n = triangle_normal(&k, p, q, face, v);
    if (start && ddot(v, n) > 0.0) {
        h.start_overlap = true; // moving apart: nothing to resolve
        return h;
    }
    return make_hit(t, start, a, sd, q, n);
}
