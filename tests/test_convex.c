// SPDX-License-Identifier: MIT
// Tests of the convex-shape module (include/kyu/convex.h) against independent oracles.
//
// The oracles work in double on the very float data the routines receive and share no code with
// them:
// - Distance between separated polytopes: the minimum over vertex-triangle, vertex-edge and
//   edge-edge pairs, the triangles being the brute-force facets (every triple with all points on
//   one side). Exact; no GJK simplex, no Voronoi walk. Rounded shapes subtract their radii.
// - Signed distance of overlapping shapes (EPA, SAT): the dual form, max over unit n of
//   sep(n) = min_A n.x - max_B n.x (minus the radii), searched over 120 directions and refined by
//   a random pattern search. Any direction gives a lower bound, so the routine's answer must be at
//   least the oracle's; and the routine's own normal must achieve its claimed depth (sep along it is
//   checked with the raw vertices), which bounds it from the other side. This oracle costs ~3000
//   support evaluations per case: its tests run 2,000 to 3,000 cases, the others 10,000.
// - Sweeps: the distance from the moving centre to the hull is convex in t, so its minimum is
//   found by golden section and the first root by bisection, each evaluation being the exact
//   point-to-polytope distance above.
// Cases come from a fixed-seed LCG; a failing case prints its index.
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kyu/geometry.h>

#include "test.h"

// ---- double vectors ------------------------------------------------------------------------------

typedef struct tv {
    double x, y, z;
} tv;

static tv tvf(vec3s v) { return (tv){v.raw[0], v.raw[1], v.raw[2]}; }
static vec3s ftv(tv v) { return (vec3s){{(float)v.x, (float)v.y, (float)v.z}}; }
static tv tadd(tv a, tv b) { return (tv){a.x + b.x, a.y + b.y, a.z + b.z}; }
static tv tsub(tv a, tv b) { return (tv){a.x - b.x, a.y - b.y, a.z - b.z}; }
static tv tmul(tv a, double s) { return (tv){a.x * s, a.y * s, a.z * s}; }
static double tdot(tv a, tv b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static tv tcross(tv a, tv b) {
    return (tv){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static double tlen(tv a) { return sqrt(tdot(a, a)); }
static tv tnorm(tv a) { return tmul(a, 1.0 / tlen(a)); }
static bool unit_f(vec3s v) { return isfinite(v.raw[0]) && fabs(tlen(tvf(v)) - 1.0) <= 1e-5; }

// ---- random numbers -----------------------------------------------------------------------------

typedef struct rng {
    uint32_t s;
} rng;
static double rnd(rng *g) {
    g->s = g->s * 1664525u + 1013904223u;
    return (double)(g->s >> 8) / 16777216.0;
}
static double rnd_in(rng *g, double lo, double hi) { return lo + (hi - lo) * rnd(g); }
static double rnd_log(rng *g, double lo, double hi) { return lo * pow(hi / lo, rnd(g)); }
static int rnd_int(rng *g, int n) { return (int)(rnd(g) * n) % n; }
static tv rnd_dir(rng *g) {
    double z = rnd_in(g, -1, 1), phi = rnd_in(g, 0, 6.283185307179586);
    double s = sqrt(1 - z * z);
    return (tv){s * cos(phi), s * sin(phi), z};
}
static tv rnd_perp(rng *g, tv n) {
    tv p = tcross(n, rnd_dir(g));
    return tlen(p) > 1e-3 ? tnorm(p) : rnd_perp(g, n);
}

// ---- oracle geometry ----------------------------------------------------------------------------

static double o_point_seg(tv p, tv a, tv b) {
    tv ab = tsub(b, a);
    double den = tdot(ab, ab), t = den > 0 ? tdot(tsub(p, a), ab) / den : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return tlen(tsub(p, tadd(a, tmul(ab, t))));
}

// Projection on the plane with barycentric coordinates from the normal equations; outside the
// triangle (or for a degenerate one) the nearest of the three sides.
static double o_point_tri(tv p, tv a, tv b, tv c) {
    tv ab = tsub(b, a), ac = tsub(c, a), ap = tsub(p, a), n = tcross(ab, ac);
    double d00 = tdot(ab, ab), d01 = tdot(ab, ac), d11 = tdot(ac, ac);
    if (tdot(n, n) > 1e-20 * d00 * d11) {
        double d20 = tdot(ap, ab), d21 = tdot(ap, ac), den = d00 * d11 - d01 * d01;
        double v = (d11 * d20 - d01 * d21) / den, w = (d00 * d21 - d01 * d20) / den;
        if (v >= 0 && w >= 0 && v + w <= 1) return fabs(tdot(n, ap)) / tlen(n);
    }
    double d = o_point_seg(p, a, b), e = o_point_seg(p, b, c), f = o_point_seg(p, a, c);
    return d < e ? (d < f ? d : f) : (e < f ? e : f);
}

// Segment-segment distance as the minimum of a convex quadratic over the unit square: the free
// stationary point if it lies inside, else the best of the four sides (point-segment distances).
static double o_seg_seg(tv p1, tv q1, tv p2, tv q2) {
    double best = o_point_seg(p1, p2, q2);
    double d;
    if ((d = o_point_seg(q1, p2, q2)) < best) best = d;
    if ((d = o_point_seg(p2, p1, q1)) < best) best = d;
    if ((d = o_point_seg(q2, p1, q1)) < best) best = d;
    tv d1 = tsub(q1, p1), d2 = tsub(q2, p2), r = tsub(p1, p2);
    double a = tdot(d1, d1), b = tdot(d1, d2), e = tdot(d2, d2), c = tdot(d1, r), f = tdot(d2, r);
    double den = a * e - b * b;
    if (den > 1e-14 * a * e) {
        double s = (b * f - c * e) / den, t = (a * f - b * c) / den;
        if (s >= 0 && s <= 1 && t >= 0 && t <= 1) {
            d = tlen(tsub(tadd(p1, tmul(d1, s)), tadd(p2, tmul(d2, t))));
            if (d < best) best = d;
        }
    }
    return best;
}

#define OMAX 16
// A polytope for the oracle: vertices, brute-force facets (closed when it has a volume), edges.
typedef struct opoly {
    tv v[OMAX];
    int nv;
    int tri[600][3];
    tv tn[600];
    double toff[600];
    int nt;
    int edge[200][2];
    int ne;
    bool closed;
} opoly;

static void o_add_edge(opoly *P, int a, int b) {
    for (int i = 0; i < P->ne; i++)
        if ((P->edge[i][0] == a && P->edge[i][1] == b) || (P->edge[i][0] == b && P->edge[i][1] == a)) return;
    if (P->ne < 200) P->edge[P->ne][0] = a, P->edge[P->ne][1] = b, P->ne++;
}

static void o_build(opoly *P, const tv *pts, int n) {
    P->nv = n, P->nt = 0, P->ne = 0, P->closed = false;
    double size = 0;
    for (int i = 0; i < n; i++) P->v[i] = pts[i];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) size = fmax(size, tlen(tsub(pts[i], pts[j])));
    if (n == 2) o_add_edge(P, 0, 1);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            for (int k = j + 1; k < n; k++) {
                tv nn = tcross(tsub(pts[j], pts[i]), tsub(pts[k], pts[i]));
                if (tlen(nn) <= 1e-12 * size * size) {
                    // Collinear triple: its sides still bound the set if it is a segment.
                    o_add_edge(P, i, j), o_add_edge(P, j, k), o_add_edge(P, i, k);
                    continue;
                }
                nn = tnorm(nn);
                int above = 0, below = 0;
                for (int m = 0; m < n; m++) {
                    double d = tdot(nn, tsub(pts[m], pts[i]));
                    if (d > 1e-9 * size) above++;
                    if (d < -1e-9 * size) below++;
                }
                if (above && below) continue;
                if (above || below) P->closed = true;
                if (above) nn = tmul(nn, -1);
                if (P->nt < 600) {
                    P->tri[P->nt][0] = i, P->tri[P->nt][1] = j, P->tri[P->nt][2] = k;
                    P->tn[P->nt] = nn, P->toff[P->nt] = tdot(nn, pts[i]);
                    P->nt++;
                }
                o_add_edge(P, i, j), o_add_edge(P, j, k), o_add_edge(P, i, k);
            }
}

// Signed distance from p to the polytope (negative inside a closed one).
static double o_point_poly(const opoly *P, tv p) {
    if (P->closed) {
        double inside = -1e300;
        for (int t = 0; t < P->nt; t++) inside = fmax(inside, tdot(P->tn[t], p) - P->toff[t]);
        if (inside <= 0) return inside;
    }
    double best = 1e300;
    for (int t = 0; t < P->nt; t++)
        best = fmin(best, o_point_tri(p, P->v[P->tri[t][0]], P->v[P->tri[t][1]], P->v[P->tri[t][2]]));
    if (P->nt > 0) return best; // the triangles include their sides and corners
    for (int e = 0; e < P->ne; e++)
        best = fmin(best, o_point_seg(p, P->v[P->edge[e][0]], P->v[P->edge[e][1]]));
    for (int i = 0; i < P->nv; i++) best = fmin(best, tlen(tsub(p, P->v[i])));
    return best;
}

// Distance between two separated polytopes.
static double o_poly_poly(const opoly *A, const opoly *B) {
    double best = 1e300;
    for (int i = 0; i < A->nv; i++) best = fmin(best, o_point_poly(B, A->v[i]));
    for (int i = 0; i < B->nv; i++) best = fmin(best, o_point_poly(A, B->v[i]));
    for (int i = 0; i < A->ne; i++)
        for (int j = 0; j < B->ne; j++)
            best = fmin(best, o_seg_seg(A->v[A->edge[i][0]], A->v[A->edge[i][1]], B->v[B->edge[j][0]],
                                        B->v[B->edge[j][1]]));
    return best;
}

// sep(n) = min over A of n.x - max over B of n.x - the radii: a lower bound of the signed distance.
static double o_sep(const opoly *A, double ra, const opoly *B, double rb, tv n) {
    double lo = 1e300, hi = -1e300;
    for (int i = 0; i < A->nv; i++) lo = fmin(lo, tdot(n, A->v[i]));
    for (int i = 0; i < B->nv; i++) hi = fmax(hi, tdot(n, B->v[i]));
    return lo - hi - ra - rb;
}

// The signed distance as max over directions of sep(n): 300 spiral directions, then a random
// pattern search from the best four.
static double o_sep_max(const opoly *A, double ra, const opoly *B, double rb, rng *g) {
    enum { N = 120, STARTS = 2 };
    double top[STARTS];
    tv topn[STARTS];
    for (int s = 0; s < STARTS; s++) top[s] = -1e300, topn[s] = (tv){0, 1, 0};
    for (int i = 0; i < N; i++) {
        double z = 1 - (2 * i + 1.0) / N, rr = sqrt(1 - z * z), phi = i * 2.399963229728653;
        tv n = {rr * cos(phi), rr * sin(phi), z};
        double s = o_sep(A, ra, B, rb, n);
        for (int k = 0; k < STARTS; k++)
            if (s > top[k]) {
                for (int m = STARTS - 1; m > k; m--) top[m] = top[m - 1], topn[m] = topn[m - 1];
                top[k] = s, topn[k] = n;
                break;
            }
    }
    double best = top[0];
    for (int k = 0; k < STARTS; k++) {
        tv n = topn[k];
        double cur = top[k];
        for (double step = 0.2; step > 1e-8;) {
            bool improved = false;
            for (int tries = 0; tries < 12 && !improved; tries++) {
                tv m = tnorm(tadd(n, tmul(rnd_perp(g, n), step)));
                double s = o_sep(A, ra, B, rb, m);
                if (s > cur) cur = s, n = m, improved = true;
            }
            if (!improved) step *= 0.5;
        }
        best = fmax(best, cur);
    }
    return best;
}

// The SAT candidates of two polytopes, unpruned: every facet normal of either (both signs, for
// flat ones) and every cross product of an edge of A with an edge of B. For full polytopes the
// best of them is the exact signed distance when overlapping; for any shapes it is a lower bound.
static double o_sep_candidates(const opoly *A, const opoly *B) {
    double best = -1e300;
    for (int pass = 0; pass < 2; pass++) {
        const opoly *P = pass ? B : A;
        for (int t = 0; t < P->nt; t++) {
            best = fmax(best, o_sep(A, 0, B, 0, P->tn[t]));
            best = fmax(best, o_sep(A, 0, B, 0, tmul(P->tn[t], -1)));
        }
    }
    for (int i = 0; i < A->ne; i++)
        for (int j = 0; j < B->ne; j++) {
            tv n = tcross(tsub(A->v[A->edge[i][1]], A->v[A->edge[i][0]]),
                          tsub(B->v[B->edge[j][1]], B->v[B->edge[j][0]]));
            if (!(tlen(n) > 1e-300)) continue;
            n = tnorm(n);
            best = fmax(best, fmax(o_sep(A, 0, B, 0, n), o_sep(A, 0, B, 0, tmul(n, -1))));
        }
    return best;
}

// ---- random shapes ------------------------------------------------------------------------------

enum { S_SPHERE, S_CAPSULE, S_BOX, S_HULL, S_FLAT, S_FEW, S_ROUNDED, S_KINDS };

typedef struct tshape {
    int kind;
    kyu_box box;
    kyu_capsule cap;
    vec3s pts[OMAX];
    int n;
    float radius;
    opoly P; // the core for the oracle
} tshape;

static kyu_convex as_convex(const tshape *s, kyu_hull *storage) {
    switch (s->kind) {
    case S_SPHERE:
        return kyu_convex_sphere(s->pts[0], s->radius);
    case S_CAPSULE:
        return kyu_convex_capsule(&s->cap);
    case S_BOX:
        return kyu_convex_box(&s->box);
    default:
        *storage = (kyu_hull){s->pts, s->n};
        return kyu_convex_hull(storage, s->radius);
    }
}

static mat3s rnd_rotation(rng *g) {
    tv a = rnd_dir(g), b = rnd_perp(g, a), c = tcross(a, b);
    mat3s m;
    m.col[0] = ftv(a), m.col[1] = ftv(b), m.col[2] = ftv(c);
    return m;
}

// The core's vertices (box corners from the float box, as the routine sees it) into the oracle.
static void refresh(tshape *s) {
    if (s->kind == S_BOX) {
        tv c = tvf(s->box.center);
        s->n = 8;
        for (int i = 0; i < 8; i++) {
            tv p = c;
            for (int k = 0; k < 3; k++)
                p = tadd(p, tmul(tvf(s->box.rotation.col[k]),
                                 (i >> k & 1) ? s->box.half_extents.raw[k] : -s->box.half_extents.raw[k]));
            // Corners are kept in double for the oracle; pts (float) is not used for boxes.
            s->P.v[i] = p;
        }
        tv tmp[8];
        for (int i = 0; i < 8; i++) tmp[i] = s->P.v[i];
        o_build(&s->P, tmp, 8);
        return;
    }
    if (s->kind == S_CAPSULE) s->pts[0] = s->cap.a, s->pts[1] = s->cap.b, s->n = 2;
    tv tmp[OMAX];
    for (int i = 0; i < s->n; i++) tmp[i] = tvf(s->pts[i]);
    o_build(&s->P, tmp, s->n);
}

static void rnd_shape(rng *g, tshape *s, int kind, double size) {
    memset(s, 0, sizeof *s);
    s->kind = kind;
    tv c = tmul(rnd_dir(g), rnd_in(g, 0, size));
    switch (kind) {
    case S_SPHERE:
        s->pts[0] = ftv(c), s->n = 1, s->radius = (float)(size * rnd_in(g, 0.1, 1));
        break;
    case S_CAPSULE: {
        tv u = tmul(rnd_dir(g), size * rnd_in(g, 0.05, 1));
        s->cap = (kyu_capsule){ftv(tadd(c, u)), ftv(tsub(c, u)), (float)(size * rnd_in(g, 0.05, 0.6))};
        s->radius = s->cap.radius;
        break;
    }
    case S_BOX:
        s->box.center = ftv(c);
        s->box.rotation = rnd_rotation(g);
        for (int k = 0; k < 3; k++) s->box.half_extents.raw[k] = (float)(size * rnd_in(g, 0.05, 1));
        break;
    case S_HULL:
    case S_ROUNDED:
        s->n = 4 + rnd_int(g, 5);
        for (int i = 0; i < s->n; i++) s->pts[i] = ftv(tadd(c, tmul(rnd_dir(g), size * rnd_in(g, 0.2, 1))));
        if (kind == S_ROUNDED) s->radius = (float)(size * rnd_in(g, 0.05, 0.5));
        break;
    case S_FLAT: { // 3 to 6 points on a plane (exactly: a float-exact plane z = const in a frame
                   // would not survive rotation, so the plane is axis-aligned and shifted)
        s->n = 3 + rnd_int(g, 4);
        int axis = rnd_int(g, 3);
        for (int i = 0; i < s->n; i++) {
            tv p = tadd(c, tmul(rnd_dir(g), size * rnd_in(g, 0.2, 1)));
            p.x = axis == 0 ? c.x : p.x, p.y = axis == 1 ? c.y : p.y, p.z = axis == 2 ? c.z : p.z;
            s->pts[i] = ftv(p);
        }
        break;
    }
    case S_FEW: // one or two points, sometimes a duplicate
        s->n = 1 + rnd_int(g, 3);
        s->pts[0] = ftv(c);
        s->pts[1] = ftv(tadd(c, tmul(rnd_dir(g), size * rnd_in(g, 0.1, 1))));
        s->pts[2] = s->pts[rnd_int(g, 2)];
        break;
    }
    refresh(s);
}

static void translate(tshape *s, tv d) {
    if (s->kind == S_BOX) s->box.center = ftv(tadd(tvf(s->box.center), d));
    if (s->kind == S_CAPSULE) s->cap.a = ftv(tadd(tvf(s->cap.a), d)), s->cap.b = ftv(tadd(tvf(s->cap.b), d));
    for (int i = 0; i < s->n && s->kind != S_BOX; i++) s->pts[i] = ftv(tadd(tvf(s->pts[i]), d));
    refresh(s);
}

static double shape_size(const tshape *s) {
    double r = 0;
    for (int i = 0; i < s->P.nv; i++) r = fmax(r, tlen(s->P.v[i]));
    return r + s->radius;
}

// Signed distance from p to the whole shape (core distance minus radius).
static double o_point_shape(const tshape *s, tv p) { return o_point_poly(&s->P, p) - s->radius; }

// Places A so that its separation from B along u is exactly `sep` (in the oracle's arithmetic; the
// float rounding of the move is then measured, not assumed).
static void place(tshape *a, const tshape *b, tv u, double sep) {
    double s0 = o_sep(&a->P, a->radius, &b->P, b->radius, u);
    translate(a, tmul(u, sep - s0));
}

static double pick_size(rng *g) { return rnd_log(g, 0.05, 3.0); }

// ---- support functions --------------------------------------------------------------------------

static void test_support_points_are_extreme_and_on_the_shape(void) {
    rng g = {11};
    for (int i = 0; i < 10000; i++) {
        tshape s;
        int kind = i % 4 == 0 ? S_SPHERE : i % 4 == 1 ? S_CAPSULE : i % 4 == 2 ? S_BOX : S_HULL;
        rnd_shape(&g, &s, kind, pick_size(&g));
        tv n = tmul(rnd_dir(&g), rnd_log(&g, 1e-3, 1e3));
        vec3s dir = ftv(n);
        n = tvf(dir);
        vec3s p;
        if (kind == S_SPHERE)
            p = kyu_support_sphere(s.pts[0], s.radius, dir);
        else if (kind == S_CAPSULE)
            p = kyu_support_capsule(&s.cap, dir);
        else if (kind == S_BOX)
            p = kyu_support_box(&s.box, dir);
        else
            p = kyu_support_hull(&(kyu_hull){s.pts, s.n}, dir);
        kyu_hull storage;
        kyu_convex c = as_convex(&s, &storage);
        vec3s q = kyu_convex_support(&c, dir);
        tv u = tnorm(n);
        double best = -1e300;
        for (int k = 0; k < s.P.nv; k++) best = fmax(best, tdot(u, s.P.v[k]));
        best += s.radius;
        double tol = 1e-6 * (1 + shape_size(&s));
        if (!(fabs(tdot(u, tvf(p)) - best) <= tol && fabs(o_point_shape(&s, tvf(p))) <= tol &&
              fabs(tdot(u, tvf(q)) - best) <= tol))
            printf("    case %d kind %d\n", i, kind);
        ENSURE_NEAR(tdot(u, tvf(p)), best, tol);
        ENSURE_NEAR(o_point_shape(&s, tvf(p)), 0, tol);
        ENSURE_NEAR(tdot(u, tvf(q)), best, tol);
    }
}

// ---- GJK ----------------------------------------------------------------------------------------

static void test_gjk_distance_matches_exact_polytope_oracle(void) {
    rng g = {2024};
    for (int i = 0; i < 10000; i++) {
        tshape a, b;
        double size = pick_size(&g);
        rnd_shape(&g, &b, rnd_int(&g, S_KINDS), size);
        rnd_shape(&g, &a, rnd_int(&g, S_KINDS), size * rnd_log(&g, 0.2, 5));
        tv u = rnd_dir(&g);
        place(&a, &b, u, size * rnd_log(&g, 1e-4, 3));
        double exact = o_poly_poly(&a.P, &b.P) - a.radius - b.radius;
        double scale = shape_size(&a) + shape_size(&b), tol = 1e-6 * scale;
        kyu_hull ha, hb;
        kyu_convex ca = as_convex(&a, &ha), cb = as_convex(&b, &hb);
        vec3s pa, pb, n;
        float d = kyu_convex_distance(&ca, &cb, &pa, &pb, &n);
        kyu_contact k = kyu_convex_contact(&ca, &cb);
        bool ok = fabs(d - exact) <= tol && fabs(k.distance - exact) <= tol &&
                  fabs(o_point_shape(&a, tvf(pa))) <= tol && fabs(o_point_shape(&b, tvf(pb))) <= tol &&
                  fabs(tlen(tsub(tvf(pa), tvf(pb))) - exact) <= tol && unit_f(n) && unit_f(k.normal) &&
                  fabs(o_point_shape(&b, tvf(k.point))) <= tol;
        // The normal: the closest points' direction, to the accuracy their distance allows.
        if (ok && exact > 1e-3 * scale) {
            tv dir = tnorm(tsub(tvf(pa), tvf(pb)));
            ok = tlen(tsub(dir, tvf(n))) <= 1e-4 && tlen(tsub(dir, tvf(k.normal))) <= 1e-4;
        }
        if (!ok)
            printf("    case %d kinds %d %d: got %.9g contact %.9g exact %.9g\n", i, a.kind, b.kind, d,
                   k.distance, exact);
        ENSURE(ok);
    }
}

// Checks a signed distance (overlapping or not) against the direction-search oracle; returns false
// (after printing) on failure. `worst` collects how far the routine is above the oracle's bound.
static bool check_signed(int i, const tshape *a, const tshape *b, kyu_contact k, rng *g, double *worst) {
    double scale = shape_size(a) + shape_size(b), tol = 2e-6 * scale;
    // The cores first: apart, their exact distance; overlapping, the best direction found.
    // (For two solid polytopes the candidates are exact: the search is for the flat cores.)
    double core = o_sep_candidates(&a->P, &b->P);
    if (!a->P.closed || !b->P.closed) core = fmax(core, o_sep_max(&a->P, 0, &b->P, 0, g));
    if (core > 0) {
        double exact = o_poly_poly(&a->P, &b->P) - a->radius - b->radius;
        if (fabs(k.distance - exact) <= tol) return true;
        printf("    case %d (cores apart): got %.9g exact %.9g\n", i, k.distance, exact);
        return false;
    }
    double lower = core - a->radius - b->radius;
    // Along the routine's own normal, the shapes must overlap by no more than it claims.
    double along = o_sep(&a->P, a->radius, &b->P, b->radius, tvf(k.normal));
    bool ok = unit_f(k.normal) && k.distance >= lower - tol && along >= k.distance - tol &&
              fabs(o_point_shape(b, tvf(k.point))) <= tol;
    *worst = fmax(*worst, (k.distance - lower) / scale);
    if (!ok)
        printf("    case %d kinds %d %d: got %.9g, oracle %.9g, sep along its normal %.9g, point off B by "
               "%.3g\n",
               i, a->kind, b->kind, k.distance, lower, along, o_point_shape(b, tvf(k.point)));
    return ok;
}

// 2,000 cases: the direction-search oracle is the expensive one.
static void test_epa_depth_matches_direction_search_oracle(void) {
    rng g = {77}, og = {5};
    double worst = 0;
    int overlapping = 0;
    for (int i = 0; i < 2000; i++) {
        tshape a, b;
        double size = pick_size(&g);
        rnd_shape(&g, &b, rnd_int(&g, S_KINDS), size);
        rnd_shape(&g, &a, rnd_int(&g, S_KINDS), size * rnd_log(&g, 0.2, 5));
        // A's first core point onto one of B's, then a random offset: mostly overlapping.
        translate(&a, tadd(tsub(b.P.v[rnd_int(&g, b.P.nv)], a.P.v[0]),
                           tmul(rnd_dir(&g), size * rnd_log(&g, 1e-4, 0.4))));
        kyu_hull ha, hb;
        kyu_convex ca = as_convex(&a, &ha), cb = as_convex(&b, &hb);
        kyu_contact k = kyu_convex_contact(&ca, &cb);
        overlapping += k.distance < 0;
        ENSURE(check_signed(i, &a, &b, k, &og, &worst));
    }
    // The oracle's search must have found the depth (else the lower bound above tested little).
    printf("    %d overlapping; routine above the oracle's bound by at most %.3g of the size\n", overlapping,
           worst);
    ENSURE(overlapping > 1500);
    ENSURE(worst <= 1e-5);
}

// ---- sphere vs hull -----------------------------------------------------------------------------

static void rnd_hull_shape(rng *g, tshape *h, double size) {
    int r = rnd_int(g, 10);
    rnd_shape(g, h, r < 7 ? S_HULL : r < 9 ? S_FLAT : S_FEW, size);
}

static void test_sphere_hull_distance_matches_exact_oracle(void) {
    rng g = {99};
    for (int i = 0; i < 10000; i++) {
        tshape h;
        double size = pick_size(&g);
        rnd_hull_shape(&g, &h, size);
        tv c = tadd(tvf(h.pts[0]), tmul(rnd_dir(&g), size * rnd_log(&g, 1e-3, 3)));
        float r = (float)(size * rnd_in(&g, 0, 1));
        vec3s n, p;
        kyu_hull hull = {h.pts, h.n};
        float d = kyu_distance_sphere_hull(ftv(c), r, &hull, &n, &p);
        double core = o_point_poly(&h.P, c), exact = core - r;
        double scale = shape_size(&h) + tlen(c) + r, tol = 1e-6 * scale;
        bool ok = fabs(d - exact) <= tol && unit_f(n) && fabs(o_point_poly(&h.P, tvf(p))) <= tol;
        if (ok && core > 1e-3 * scale) {
            tv dir = tnorm(tsub(c, tvf(p)));
            ok = tlen(tsub(dir, tvf(n))) <= 1e-4 && fabs(tlen(tsub(c, tvf(p))) - core) <= tol;
        } else if (ok && core < 0) {
            // Inside: n is an outward face normal whose plane is at the depth.
            double hi = -1e300;
            for (int k = 0; k < h.P.nv; k++) hi = fmax(hi, tdot(tvf(n), h.P.v[k]));
            ok = fabs(hi - tdot(tvf(n), c) + core) <= tol;
        }
        if (!ok) printf("    case %d kind %d: got %.9g exact %.9g\n", i, h.kind, d, exact);
        ENSURE(ok);
    }
}

// The oracle's distance along the sweep: centre c0 + t v against the hull at rest (relative motion).
typedef struct sweep_case {
    const opoly *P;
    tv c0, v;
    double r;
} sweep_case;
static double sweep_f(const sweep_case *s, double t) {
    return o_point_poly(s->P, tadd(s->c0, tmul(s->v, t))) - s->r;
}

static void test_sphere_hull_sweep_matches_oracle(void) {
    rng g = {4242};
    int ambiguous = 0, hits = 0, starts = 0;
    const int cases = 10000;
    for (int i = 0; i < cases; i++) {
        tshape h;
        double size = pick_size(&g);
        rnd_hull_shape(&g, &h, size);
        tv c0 = tadd(tvf(h.pts[0]), tmul(rnd_dir(&g), size * rnd_in(&g, 0.3, 4)));
        tv aim = tadd(tvf(h.pts[rnd_int(&g, h.n)]), tmul(rnd_dir(&g), size * rnd_in(&g, 0, 1)));
        tv d = tmul(tsub(aim, c0), rnd_in(&g, 0.2, 3));
        tv hd = rnd_int(&g, 2) ? tmul(rnd_dir(&g), size * rnd_in(&g, 0, 2)) : (tv){0, 0, 0};
        float r = (float)(size * rnd_log(&g, 1e-3, 1));
        vec3s fc0 = ftv(c0), fd = ftv(d), fhd = ftv(hd);
        kyu_hull hull = {h.pts, h.n};
        kyu_hit hit = kyu_sweep_sphere_hull(fc0, fd, r, &hull, fhd);
        sweep_case s = {&h.P, tvf(fc0), tsub(tvf(fd), tvf(fhd)), r};
        double scale = shape_size(&h) + tlen(c0) + tlen(d) + tlen(hd), amb = 1e-5 * scale;
        double f0 = sweep_f(&s, 0);
        if (fabs(f0) <= amb) {
            ambiguous++;
            continue;
        }
        if (f0 < 0) {
            starts++;
            if (!hit.start_overlap || (hit.hit && hit.t != 0))
                printf("    case %d: start overlap missed\n", i);
            ENSURE(hit.start_overlap && (!hit.hit || hit.t == 0));
            continue;
        }
        // Minimum of the convex distance by golden section, then the first root by bisection.
        double lo = 0, hi = 1;
        for (int k = 0; k < 64; k++) {
            double m1 = hi - (hi - lo) * 0.6180339887498949, m2 = lo + (hi - lo) * 0.6180339887498949;
            if (sweep_f(&s, m1) <= sweep_f(&s, m2))
                hi = m2;
            else
                lo = m1;
        }
        double tmin = 0.5 * (lo + hi), fmin_ = sweep_f(&s, tmin);
        if (fabs(fmin_) <= amb) {
            ambiguous++;
            continue;
        }
        if (fmin_ > 0) {
            if (hit.hit || hit.start_overlap)
                printf("    case %d: hit at %.9g, oracle: miss (min %.3g)\n", i, hit.t, fmin_);
            ENSURE(!hit.hit && !hit.start_overlap);
            continue;
        }
        lo = 0, hi = tmin;
        for (int k = 0; k < 52; k++) {
            double m = 0.5 * (lo + hi);
            if (sweep_f(&s, m) > 0)
                lo = m;
            else
                hi = m;
        }
        double t = 0.5 * (lo + hi);
        // Conditioning: the inputs' rounding moves the distance by ~amb; the root moves by amb/slope.
        double slope = (sweep_f(&s, fmax(0, t - 1e-6)) - sweep_f(&s, t)) / (t - fmax(0, t - 1e-6));
        double tol = 1e-5 + amb / fmax(slope, 1e-30);
        if (tol > 1e-2) {
            ambiguous++;
            continue;
        }
        hits++;
        tv ct = tadd(tvf(fc0), tmul(tvf(fd), hit.t)), pt = tsub(tvf(hit.point), tmul(tvf(fhd), hit.t));
        bool ok = hit.hit && !hit.start_overlap && fabs(hit.t - t) <= tol && unit_f(hit.normal) &&
                  fabs(o_point_poly(&h.P, pt)) <= 2 * amb &&
                  fabs(tlen(tsub(ct, tvf(hit.point))) - r) <= 2 * amb;
        if (ok && r > 1e-3 * scale) ok = tlen(tsub(tnorm(tsub(ct, tvf(hit.point))), tvf(hit.normal))) <= 1e-3;
        if (!ok)
            printf("    case %d kind %d: hit %d t %.9g, oracle t %.9g (tol %.3g)\n", i, h.kind, hit.hit,
                   hit.t, t, tol);
        ENSURE(ok);
    }
    printf("    %d hits, %d start overlaps, %d ambiguous of %d\n", hits, starts, ambiguous, cases);
    ENSURE(ambiguous < cases / 50);
    ENSURE(hits > cases / 5);
}

// ---- hull building ------------------------------------------------------------------------------

// Checks a built hull against its input cloud: every input point inside every face plane, each
// face's vertices on its plane and in convex counter-clockwise order, vertices taken from the
// input, V - E + F = 2, edges between distinct non-parallel faces, and the same support as the
// raw cloud in many directions. Returns NULL or what failed.
static const char *check_hull(const vec3s *pts, int n, const kyu_hull_data *h, rng *g) {
    double size = 0, far = 0;
    for (int i = 0; i < n; i++) {
        far = fmax(far, tlen(tvf(pts[i])));
        for (int j = 0; j < 3; j++) size = fmax(size, fabs(pts[i].raw[j] - pts[0].raw[j]));
    }
    double eps = 1e-5 * size + 1e-6 * far;
    if (h->vertex_count - h->edge_count + h->face_count != 2) return "Euler";
    for (int v = 0; v < h->vertex_count; v++) {
        bool found = false;
        for (int i = 0; i < n && !found; i++) found = memcmp(&pts[i], &h->vertices[v], sizeof pts[i]) == 0;
        if (!found) return "a vertex not from the input";
    }
    for (int f = 0; f < h->face_count; f++) {
        const kyu_hull_face *face = &h->faces[f];
        tv nn = tvf(face->normal);
        if (fabs(tlen(nn) - 1) > 1e-5) return "face normal not unit";
        for (int i = 0; i < n; i++)
            if (tdot(nn, tvf(pts[i])) > face->offset + eps) return "an input point outside a face";
        if (face->count < 3) return "face with < 3 vertices";
        // Counter-clockwise seen from outside: the polygon's area vector along the normal. (Its
        // corners are not checked for in-plane convexity: where two faces are within eps of
        // coplanar, their shared boundary may wiggle in the plane by far more than eps while the
        // solid stays convex to eps, which the plane checks here verify.)
        tv area = {0, 0, 0};
        for (int k = 0; k < face->count; k++)
            area =
                tadd(area, tcross(tvf(h->vertices[h->face_vertices[face->first + k]]),
                                  tvf(h->vertices[h->face_vertices[face->first + (k + 1) % face->count]])));
        if (tdot(area, nn) <= 0) return "face not counter-clockwise";
        for (int k = 0; k < face->count; k++) {
            tv a = tvf(h->vertices[h->face_vertices[face->first + k]]);
            if (fabs(tdot(nn, a) - face->offset) > eps) {
                printf("      off by %.3g (eps %.3g), face %d of %d\n", fabs(tdot(nn, a) - face->offset), eps,
                       f, h->face_count);
                return "face vertex off its plane";
            }
        }
    }
    for (int e = 0; e < h->edge_count; e++) {
        const kyu_hull_edge *ed = &h->edges[e];
        if (ed->face0 == ed->face1) return "edge with one face";
        // The two faces are distinct planes: some vertex of one is off the other's plane.
        const kyu_hull_face *f0 = &h->faces[ed->face0], *f1 = &h->faces[ed->face1];
        double off = 0;
        for (int k = 0; k < f1->count; k++)
            off = fmax(off, fabs(tdot(tvf(f0->normal), tvf(h->vertices[h->face_vertices[f1->first + k]])) -
                                 f0->offset));
        if (off <= 1e-7 * size) return "edge between coplanar faces";
    }
    for (int k = 0; k < 64; k++) {
        tv u = rnd_dir(g);
        double a = -1e300, b = -1e300;
        for (int i = 0; i < n; i++) a = fmax(a, tdot(u, tvf(pts[i])));
        for (int v = 0; v < h->vertex_count; v++) b = fmax(b, tdot(u, tvf(h->vertices[v])));
        if (fabs(a - b) > eps) return "support differs from the cloud's";
    }
    return NULL;
}

static void test_hull_build_random_clouds_are_valid_hulls(void) {
    rng g = {123};
    static vec3s pts[400];
    for (int i = 0; i < 1500; i++) {
        int kind = i % 6, n = 4 + rnd_int(&g, 120);
        double size = pick_size(&g);
        tv off = kind == 5 ? tmul(rnd_dir(&g), 1000) : (tv){0, 0, 0};
        for (int k = 0; k < n; k++) {
            tv p;
            if (kind == 0)
                p = tmul(rnd_dir(&g), size * cbrt(rnd(&g))); // ball
            else if (kind == 1)
                p = tmul(rnd_dir(&g), size); // sphere surface
            else if (kind == 2) {            // cube surface grid
                p = (tv){rnd_int(&g, 5) - 2.0, rnd_int(&g, 5) - 2.0, rnd_int(&g, 5) - 2.0};
                int ax = rnd_int(&g, 3);
                double side = rnd_int(&g, 2) ? 2.0 : -2.0;
                p = tmul((tv){ax == 0 ? side : p.x, ax == 1 ? side : p.y, ax == 2 ? side : p.z}, size / 2);
            } else if (kind == 3) { // duplicates
                p = k < 6 || rnd(&g) < 0.3 ? tmul(rnd_dir(&g), size) : tvf(pts[rnd_int(&g, k)]);
            } else if (kind == 4) { // thin slab
                p = tmul(rnd_dir(&g), size);
                p.z *= 1e-2;
            } else
                p = tadd(off, tmul(rnd_dir(&g), size * rnd_in(&g, 0.5, 1))); // far away
            pts[k] = ftv(p);
        }
        kyu_hull_data h;
        int rc = kyu_hull_build(pts, n, &h);
        if (rc != KYU_HULL_OK) printf("    case %d kind %d n %d: rc %d\n", i, kind, n, rc);
        ENSURE(rc == KYU_HULL_OK);
        const char *why = check_hull(pts, n, &h, &g);
        if (why) printf("    case %d kind %d n %d: %s\n", i, kind, n, why);
        if (why) // the cloud, in hex floats, ready for a reproducer
            for (int k = 0; k < n; k++)
                printf("      %a %a %a\n", pts[k].raw[0], pts[k].raw[1], pts[k].raw[2]);
        kyu_hull_free(&h);
        ENSURE(why == NULL);
    }
}

static void test_hull_build_merges_coplanar_points_into_polygons(void) {
    // A cube from a 5x5x5 grid on its surface, every point given twice: 8 corners, 6 quads, 12 edges.
    static vec3s pts[2 * 125];
    int n = 0;
    for (int x = 0; x < 5; x++)
        for (int y = 0; y < 5; y++)
            for (int z = 0; z < 5; z++)
                if (x == 0 || x == 4 || y == 0 || y == 4 || z == 0 || z == 4) {
                    pts[n++] = (vec3s){{x * 0.5f - 1, y * 0.5f - 1, z * 0.5f - 1}};
                    pts[n] = pts[n - 1], n++;
                }
    kyu_hull_data h;
    ENSURE(kyu_hull_build(pts, n, &h) == KYU_HULL_OK);
    int v = h.vertex_count, f = h.face_count, e = h.edge_count, quads = 0;
    for (int i = 0; i < f; i++) quads += h.faces[i].count == 4;
    kyu_hull_free(&h);
    ENSURE(v == 8 && f == 6 && e == 12 && quads == 6);
    // A tetrahedron with a point inside and one in the middle of an edge.
    const vec3s tet[6] = {{{0, 0, 0}}, {{1, 0, 0}},          {{0, 1, 0}},
                          {{0, 0, 1}}, {{0.1f, 0.1f, 0.1f}}, {{0.5f, 0, 0}}};
    ENSURE(kyu_hull_build(tet, 6, &h) == KYU_HULL_OK);
    v = h.vertex_count, f = h.face_count, e = h.edge_count;
    kyu_hull_free(&h);
    ENSURE(v == 4 && f == 4 && e == 6);
    // An octahedron.
    const vec3s oct[6] = {{{1, 0, 0}}, {{-1, 0, 0}}, {{0, 1, 0}}, {{0, -1, 0}}, {{0, 0, 1}}, {{0, 0, -1}}};
    ENSURE(kyu_hull_build(oct, 6, &h) == KYU_HULL_OK);
    v = h.vertex_count, f = h.face_count, e = h.edge_count;
    kyu_hull_free(&h);
    ENSURE(v == 6 && f == 8 && e == 12);
}

static void test_hull_build_rejects_flat_and_degenerate_clouds(void) {
    rng g = {5};
    vec3s pts[50];
    kyu_hull_data h;
    tv n = rnd_dir(&g), a = rnd_perp(&g, n), b = tcross(n, a);
    for (int i = 0; i < 50; i++) pts[i] = ftv(tadd(tmul(a, rnd_in(&g, -1, 1)), tmul(b, rnd_in(&g, -1, 1))));
    ENSURE(kyu_hull_build(pts, 50, &h) == KYU_HULL_FLAT); // coplanar (tilted plane, float-rounded)
    ENSURE(h.vertices == NULL && h.face_count == 0);
    for (int i = 0; i < 50; i++) pts[i] = ftv(tmul(a, rnd_in(&g, -1, 1)));
    ENSURE(kyu_hull_build(pts, 50, &h) == KYU_HULL_FLAT); // collinear
    for (int i = 0; i < 50; i++) pts[i] = (vec3s){{1, 2, 3}};
    ENSURE(kyu_hull_build(pts, 50, &h) == KYU_HULL_TOO_FEW); // one point fifty times
    ENSURE(kyu_hull_build(pts, 3, &h) == KYU_HULL_TOO_FEW);
    ENSURE(kyu_hull_build(NULL, 8, &h) == KYU_HULL_TOO_FEW);
    kyu_hull_free(&h); // safe on a zeroed struct
}

// ---- SAT ----------------------------------------------------------------------------------------

static int rnd_built(rng *g, tshape *s, kyu_hull_data *h, double size) {
    for (;;) {
        rnd_shape(g, s, S_HULL, size);
        s->n = 6 + rnd_int(g, 7);
        for (int i = 0; i < s->n; i++) s->pts[i] = ftv(tmul(rnd_dir(g), size * rnd_in(g, 0.3, 1)));
        refresh(s);
        if (kyu_hull_build(s->pts, s->n, h) == KYU_HULL_OK) return 0;
    }
}

static void rebuild(tshape *s, kyu_hull_data *h) {
    kyu_hull_free(h);
    kyu_hull_build(s->pts, s->n, h);
}

// 2,000 cases (direction-search oracle when overlapping, exact distance when apart).
static void test_sat_hull_hull_matches_oracles(void) {
    rng g = {31}, og = {8};
    double worst = 0;
    long tested = 0, pairs = 0;
    for (int i = 0; i < 2000; i++) {
        tshape a, b;
        kyu_hull_data ha, hb;
        double size = pick_size(&g);
        rnd_built(&g, &b, &hb, size);
        rnd_built(&g, &a, &ha, size * rnd_log(&g, 0.3, 3));
        place(&a, &b, rnd_dir(&g), size * rnd_in(&g, -1, 0.3));
        rebuild(&a, &ha);
        kyu_contact k = kyu_contact_hull_hull(&ha, &hb);
        kyu_sat_result s = kyu_sat_hull_hull(&ha, &hb);
        tested += s.edge_pairs_tested, pairs += (long)ha.edge_count * hb.edge_count;
        bool ok = check_signed(i, &a, &b, k, &og, &worst);
        // SAT and EPA are different algorithms: on overlaps they must agree.
        if (ok && k.distance < 0) {
            kyu_hull va = kyu_hull_view(&ha), vb = kyu_hull_view(&hb);
            kyu_convex ca = kyu_convex_hull(&va, 0), cb = kyu_convex_hull(&vb, 0);
            kyu_contact e = kyu_convex_contact(&ca, &cb);
            ok = fabs(e.distance - k.distance) <= 2e-6 * (shape_size(&a) + shape_size(&b));
            if (!ok) printf("    case %d: SAT %.9g EPA %.9g\n", i, k.distance, e.distance);
        }
        kyu_hull_free(&ha), kyu_hull_free(&hb);
        ENSURE(ok);
    }
    printf("    Gauss map kept %ld of %ld edge pairs (%.1f%%); worst %.3g\n", tested, pairs,
           100.0 * tested / pairs, worst);
    ENSURE(worst <= 1e-5);
    ENSURE(tested * 4 < pairs);
}

// 3,000 cases (the direction-search oracle).
static void test_box_box_matches_oracles(void) {
    rng g = {64}, og = {9};
    double worst = 0;
    for (int i = 0; i < 3000; i++) {
        tshape a, b;
        double size = pick_size(&g);
        rnd_shape(&g, &b, S_BOX, size);
        rnd_shape(&g, &a, S_BOX, size * rnd_log(&g, 0.3, 3));
        place(&a, &b, rnd_dir(&g), size * rnd_in(&g, -1, 0.3));
        kyu_contact k = kyu_contact_box_box(&a.box, &b.box);
        ENSURE(check_signed(i, &a, &b, k, &og, &worst));
    }
    printf("    worst %.3g\n", worst);
    ENSURE(worst <= 1e-5);
}

static kyu_box aabox(float x, float y, float z, float hx, float hy, float hz) {
    kyu_box b = {{{x, y, z}}, GLMS_MAT3_IDENTITY_INIT, {{hx, hy, hz}}};
    return b;
}

static void test_box_box_resting_face_keeps_face_normal_and_centre_point(void) {
    kyu_box floor = aabox(0, 0, 0, 2, 0.5f, 2), top = aabox(0.25f, 0.99f, -0.25f, 0.5f, 0.5f, 0.5f);
    kyu_contact k = kyu_contact_box_box(&top, &floor);
    ENSURE_NEAR(k.distance, -0.01f, 1e-6);
    ENSURE(k.normal.raw[0] == 0 && k.normal.raw[1] == 1 && k.normal.raw[2] == 0);
    ENSURE_NEAR(k.point.raw[1], 0.5f, 1e-6); // the middle of B's top face
    ENSURE_NEAR(k.point.raw[0], 0, 1e-6);
    ENSURE_NEAR(k.point.raw[2], 0, 1e-6);
    // Top over the floor: the deepest point is A's face, projected on the floor's top.
    k = kyu_contact_box_box(&floor, &top);
    ENSURE_NEAR(k.distance, -0.01f, 1e-6);
    ENSURE(k.normal.raw[1] == -1);
    ENSURE_NEAR(k.point.raw[1], 0.49f, 1e-6); // the middle of the top box's bottom face
    ENSURE_NEAR(k.point.raw[0], 0.25f, 1e-6);
    ENSURE_NEAR(k.point.raw[2], -0.25f, 1e-6);
    // Touching exactly: distance 0. Coincident boxes: depth the smallest full extent.
    kyu_box touch = aabox(0, 1.0f, 0, 0.5f, 0.5f, 0.5f);
    ENSURE_NEAR(kyu_contact_box_box(&touch, &floor).distance, 0, 1e-6);
    kyu_box same = floor;
    ENSURE_NEAR(kyu_contact_box_box(&same, &floor).distance, -1.0f, 1e-6);
    // Apart: the exact gap (corner to corner along the diagonal), not SAT's lower bound.
    kyu_box corner = aabox(4, 2.5f, 4, 1, 1, 1);
    ENSURE_NEAR(kyu_contact_box_box(&corner, &floor).distance, sqrt(3.0), 1e-6);
}

// ---- degenerate cases ---------------------------------------------------------------------------

static const vec3s cube_pts[8] = {{{-1, -1, -1}}, {{1, -1, -1}}, {{-1, 1, -1}}, {{1, 1, -1}},
                                  {{-1, -1, 1}},  {{1, -1, 1}},  {{-1, 1, 1}},  {{1, 1, 1}}};

static void test_touching_and_coincident_shapes(void) {
    kyu_hull cube = {cube_pts, 8};
    kyu_convex hc = kyu_convex_hull(&cube, 0);
    // A sphere touching a face, an edge and a corner: distance 0 and the exact normal.
    vec3s n, p;
    ENSURE_NEAR(kyu_distance_sphere_hull((vec3s){{0, 1.5f, 0}}, 0.5f, &cube, &n, &p), 0, 1e-7);
    ENSURE(n.raw[1] == 1);
    float s = 0.5f * sqrtf(0.5f);
    ENSURE_NEAR(kyu_distance_sphere_hull((vec3s){{1 + s, 1 + s, 0}}, 0.5f, &cube, &n, &p), 0, 1e-6);
    ENSURE_NEAR(n.raw[0], sqrtf(0.5f), 1e-6);
    // Two spheres with one centre: depth ra + rb, the conventional normal (0, 1, 0).
    kyu_convex a = kyu_convex_sphere((vec3s){{1, 2, 3}}, 0.5f),
               b = kyu_convex_sphere((vec3s){{1, 2, 3}}, 0.25f);
    kyu_contact k = kyu_convex_contact(&a, &b);
    ENSURE_NEAR(k.distance, -0.75f, 1e-7);
    ENSURE(k.normal.raw[1] == 1);
    // Touching boxes (faces flush): GJK distance 0.
    kyu_box b1 = aabox(0, 0, 0, 1, 1, 1), b2 = aabox(2, 0.5f, 0.25f, 1, 1, 1);
    kyu_convex c1 = kyu_convex_box(&b1), c2 = kyu_convex_box(&b2);
    ENSURE_NEAR(kyu_convex_distance(&c2, &c1, NULL, NULL, NULL), 0, 1e-7);
    k = kyu_convex_contact(&c2, &c1);
    ENSURE_NEAR(k.distance, 0, 1e-6);
    ENSURE_NEAR(k.normal.raw[0], 1, 1e-6);
    // Deep overlap: a sphere at the cube's centre leaves by a face, depth 1 + r.
    ENSURE_NEAR(kyu_distance_sphere_hull((vec3s){{0, 0, 0.25f}}, 0.5f, &cube, &n, &p), -1.25f, 1e-6);
    ENSURE(n.raw[2] == 1 && p.raw[2] == 1);
    k = kyu_convex_contact(&c1, &hc); // a box exactly on the cube
    ENSURE_NEAR(k.distance, -2, 1e-6);
}

static void test_flat_cores_overlapping_give_depth_of_the_radii(void) {
    // Parallel capsules on one line: the cores' difference is a segment through the origin.
    kyu_capsule ca = {{{0, 0, 0}}, {{2, 0, 0}}, 0.3f}, cb = {{{1, 0, 0}}, {{3, 0, 0}}, 0.2f};
    kyu_convex a = kyu_convex_capsule(&ca), b = kyu_convex_capsule(&cb);
    kyu_contact k = kyu_convex_contact(&a, &b);
    ENSURE_NEAR(k.distance, -0.5f, 1e-6);
    ENSURE(unit_f(k.normal) && fabs(k.normal.raw[0]) < 1e-6);
    // A sphere centre on a flat quad: distance -r, normal the quad's (either side).
    const vec3s quad[4] = {{{-1, 0, -1}}, {{1, 0, -1}}, {{1, 0, 1}}, {{-1, 0, 1}}};
    kyu_hull q = {quad, 4};
    vec3s n, p;
    ENSURE_NEAR(kyu_distance_sphere_hull((vec3s){{0.2f, 0, 0.3f}}, 0.5f, &q, &n, &p), -0.5f, 1e-6);
    ENSURE_NEAR(fabs(n.raw[1]), 1, 1e-6);
    // Above it: the plain distance. Beside a one-point "hull": a sphere-sphere distance.
    ENSURE_NEAR(kyu_distance_sphere_hull((vec3s){{0.2f, 2, 0.3f}}, 0.5f, &q, &n, &p), 1.5f, 1e-6);
    ENSURE(n.raw[1] == 1);
    kyu_hull one = {quad, 1};
    ENSURE_NEAR(kyu_distance_sphere_hull((vec3s){{-1, 3, -1}}, 1, &one, &n, &p), 2, 1e-6);
}

static void test_duplicate_points_change_nothing(void) {
    vec3s dup[24];
    for (int i = 0; i < 24; i++) dup[i] = cube_pts[(i * 5) % 8];
    kyu_hull a = {cube_pts, 8}, b = {dup, 24};
    rng g = {3};
    for (int i = 0; i < 1000; i++) {
        vec3s c = ftv(tmul(rnd_dir(&g), rnd_in(&g, 0, 4)));
        vec3s na, nb;
        float da = kyu_distance_sphere_hull(c, 0.3f, &a, &na, NULL),
              db = kyu_distance_sphere_hull(c, 0.3f, &b, &nb, NULL);
        ENSURE_NEAR(da, db, 1e-6);
        ENSURE(tlen(tsub(tvf(na), tvf(nb))) < 1e-5 || da < -0.9f); // inside near a diagonal: either face
    }
}

static void test_hull_sweep_special_cases(void) {
    kyu_hull cube = {cube_pts, 8};
    vec3s zero = {{0, 0, 0}};
    // Falling onto the top face: exact time.
    kyu_hit h = kyu_sweep_sphere_hull((vec3s){{0.3f, 3, 0.2f}}, (vec3s){{0, -4, 0}}, 0.5f, &cube, zero);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 1.5 / 4, 1e-6);
    ENSURE(h.normal.raw[1] == 1);
    ENSURE_NEAR(h.point.raw[1], 1, 1e-6);
    // The hull moving up into a resting sphere: the same impact.
    h = kyu_sweep_sphere_hull((vec3s){{0.3f, 3, 0.2f}}, zero, 0.5f, &cube, (vec3s){{0, 4, 0}});
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 1.5 / 4, 1e-6);
    ENSURE_NEAR(h.point.raw[1], 2.5f, 1e-6);
    // Very fast through a thin slab: no tunnelling.
    const vec3s slab[8] = {{{-1, -1e-3f, -1}}, {{1, -1e-3f, -1}}, {{-1, 1e-3f, -1}}, {{1, 1e-3f, -1}},
                           {{-1, -1e-3f, 1}},  {{1, -1e-3f, 1}},  {{-1, 1e-3f, 1}},  {{1, 1e-3f, 1}}};
    kyu_hull s = {slab, 8};
    h = kyu_sweep_sphere_hull((vec3s){{0, 500, 0}}, (vec3s){{0, -1000, 0}}, 0.01f, &s, zero);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, (500 - 0.011) / 1000, 1e-6);
    // Overlapping and moving out: start_overlap, no hit. Sliding along the face: hit at t = 0.
    h = kyu_sweep_sphere_hull((vec3s){{0, 1.2f, 0}}, (vec3s){{0, 1, 0}}, 0.5f, &cube, zero);
    ENSURE(h.start_overlap && !h.hit);
    h = kyu_sweep_sphere_hull((vec3s){{0, 1.5f, 0}}, (vec3s){{1, 0, 0}}, 0.5f, &cube, zero);
    ENSURE(h.start_overlap && h.hit && h.t == 0);
    // No relative motion and apart: nothing. Passing just above the corner: a miss.
    h = kyu_sweep_sphere_hull((vec3s){{0, 3, 0}}, (vec3s){{1, 1, 1}}, 0.5f, &cube, (vec3s){{1, 1, 1}});
    ENSURE(!h.hit && !h.start_overlap);
    h = kyu_sweep_sphere_hull((vec3s){{-3, 1.501f, 0}}, (vec3s){{6, 0, 0}}, 0.5f, &cube, zero);
    ENSURE(!h.hit);
    h = kyu_sweep_sphere_hull((vec3s){{-3, 1.499f, 0}}, (vec3s){{6, 0, 0}}, 0.5f, &cube, zero);
    ENSURE(h.hit);
}

void suite_convex(void) {
    RUN_TEST(test_support_points_are_extreme_and_on_the_shape);
    RUN_TEST(test_gjk_distance_matches_exact_polytope_oracle);
    RUN_TEST(test_epa_depth_matches_direction_search_oracle);
    RUN_TEST(test_sphere_hull_distance_matches_exact_oracle);
    RUN_TEST(test_sphere_hull_sweep_matches_oracle);
    RUN_TEST(test_hull_build_random_clouds_are_valid_hulls);
    RUN_TEST(test_hull_build_merges_coplanar_points_into_polygons);
    RUN_TEST(test_hull_build_rejects_flat_and_degenerate_clouds);
    RUN_TEST(test_sat_hull_hull_matches_oracles);
    RUN_TEST(test_box_box_matches_oracles);
    RUN_TEST(test_box_box_resting_face_keeps_face_normal_and_centre_point);
    RUN_TEST(test_touching_and_coincident_shapes);
    RUN_TEST(test_flat_cores_overlapping_give_depth_of_the_radii);
    RUN_TEST(test_duplicate_points_change_nothing);
    RUN_TEST(test_hull_sweep_special_cases);
}
