// SPDX-License-Identifier: MIT
// Tests of closest points, distances and contacts (include/kyu/closest.h) against independent
// oracles in long double.
//
// The oracles never reuse the routines' formulas: a distance is a numeric minimisation over the
// shapes' parameters (a dense scan, then golden-section search on the convex problem), nested or
// separable where there are several parameters. Inside the nested searches two closed forms
// appear: the distance from a point to a segment by projection (checked against the golden-section
// search on every point-segment case) and, for segment-triangle, a point-triangle distance as a
// minimum over features (plane, edges: the textbook alternative to the Voronoi regions the routine
// uses; checked against the nested search on every point-triangle case). Sphere-sphere is checked
// against its definition. Random cases come from a fixed-seed LCG and a failing case prints its
// index and inputs in hex floats (%a), ready for a reproducer. Each random test also checks what is returned,
// not only the distance: the points lie on their shapes and are as far apart as the distance, which makes
// them an optimal pair.
//
// Tolerances. The routines read float inputs, which are exact in double, work in double and round
// once, so a distance is within half a float ulp of the exact one plus double rounding (~1e-15 of
// the coordinates); the oracle resolves a parameter to ~1e-12 of its range. A distance must so
// match to 2 U d + 1e-10 S (U the float unit, S the size of the coordinates): still 600 times
// finer than one float ulp of the inputs, so any float-precision shortcut fails (the textbook
// segment routine in float is off by ~2e-4). A returned point and normal are rounded to float
// (U |x| per component), and a check that combines a point, a normal times a length and a distance
// adds a few of those: 8 U S.
#include <kyu/geometry.h>

#include "oracle.h"

#define CASES 10000

static bool unit3(vec3s v) { return finite3(v) && fabsl(llen(lv(v)) - 1) <= 4 * U; }
static bool same3(vec3s a, vec3s b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

// ---- Random cases ---------------------------------------------------------------------------------

static lv3 rnd_world(rng *g) { return rnd_world_upto(g, 10000); }
static lv3 rnd_ball(rng *g, lv3 c, real size) { return lmad(c, rnd_dir(g), size * rnd(g)); }

// The size of the numbers in a case: coordinates and lengths (the S of the tolerances).
static real scale_of(const vec3s *v, int n, real extra) {
    real s = extra;
    for (int i = 0; i < n; i++) s = lmax(s, llen(lv(v[i])));
    return lmax(s, 1e-30L);
}
static real tol_d(real d, real S) { return 2 * U * fabsl(d) + 1e-10L * S; }
static real tol_p(real S) { return 8 * U * S; }

static char why_buf[256];
static const char *why(const char *what, real got, real want) {
    snprintf(why_buf, sizeof why_buf, "%s: got %.12Lg, oracle %.12Lg", what, got, want);
    return why_buf;
}

// ---- Oracles ----------------------------------------------------------------------------------------

// Minimum of a convex f on [lo, hi]: a dense scan picks a bracket of two intervals (and catches a
// minimum at an end exactly), then golden-section search shrinks it to ~1e-12 of the range.
typedef real (*fn1)(const void *ctx, real t);
static real golden(fn1 f, const void *ctx, real lo, real hi, real *arg) {
    enum { N = 16 };
    real best = INFINITY;
    int k = 0;
    for (int i = 0; i <= N; i++) {
        real v = f(ctx, lo + (hi - lo) * i / N);
        if (v < best) {
            best = v;
            k = i;
        }
    }
    const real r = 0.61803398874989484820L;
    real a = lo + (hi - lo) * (k > 0 ? k - 1 : 0) / N, b = lo + (hi - lo) * (k < N ? k + 1 : N) / N;
    real x1 = b - r * (b - a), x2 = a + r * (b - a), f1 = f(ctx, x1), f2 = f(ctx, x2);
    for (int it = 0; it < 52; it++) {
        if (f1 <= f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - r * (b - a);
            f1 = f(ctx, x1);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + r * (b - a);
            f2 = f(ctx, x2);
        }
    }
    real t = f1 <= f2 ? x1 : x2, v = lmin(f1, f2);
    if (best <= v) {
        v = best;
        t = lo + (hi - lo) * k / N;
    }
    if (arg) *arg = t;
    return v;
}

typedef struct seg_ctx {
    lv3 a, d, p;
} seg_ctx;
static real seg_f(const void *c, real t) {
    const seg_ctx *k = c;
    lv3 x = lsub(lmad(k->a, k->d, t), k->p);
    return ldot(x, x);
}
// Squared distance from p to segment a-b by golden-section search over its parameter.
static real o_point_segment2(lv3 a, lv3 b, lv3 p, lv3 *closest) {
    seg_ctx k = {a, lsub(b, a), p};
    real t;
    real d2 = golden(seg_f, &k, 0, 1, &t);
    if (closest) *closest = lmad(a, k.d, t);
    return d2;
}
// The same by projection: the one closed form the nested oracles use inside (see the top).
static real proj_point_segment2(lv3 a, lv3 b, lv3 p) {
    lv3 d = lsub(b, a);
    real dd = ldot(d, d), t = dd > 0 ? ldot(lsub(p, a), d) / dd : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    lv3 x = lsub(lmad(a, d, t), p);
    return ldot(x, x);
}

// Triangle points a + u (b - a) + v (c - a), u, v >= 0, u + v <= 1: for a fixed u the v range is the
// segment from (1 - u) a + u b to u b + (1 - u) c, and the partial minimum over v is convex in u.
typedef struct tri_ctx {
    lv3 a, b, c, p;
} tri_ctx;
static real tri_f(const void *ctx, real u) {
    const tri_ctx *k = ctx;
    lv3 from = ladd(lscale(k->a, 1 - u), lscale(k->b, u)), to = ladd(lscale(k->b, u), lscale(k->c, 1 - u));
    return proj_point_segment2(from, to, k->p);
}
static real o_point_triangle2(lv3 a, lv3 b, lv3 c, lv3 p) {
    tri_ctx k = {a, b, c, p};
    return golden(tri_f, &k, 0, 1, NULL);
}
// A second point-triangle oracle, by features (the minimum over the plane when its foot
// is inside, and the three edges), cheap enough to nest inside a search over a segment.
static real feat_point_triangle2(lv3 a, lv3 b, lv3 c, lv3 p) {
    real best =
        lmin(proj_point_segment2(a, b, p), lmin(proj_point_segment2(b, c, p), proj_point_segment2(c, a, p)));
    lv3 n = lcross(lsub(b, a), lsub(c, a));
    real nn = ldot(n, n);
    if (!(nn > 0)) return best;
    real h = ldot(n, lsub(p, a));
    lv3 x = lmad(p, n, -h / nn);
    if (ldot(lcross(lsub(b, a), lsub(x, a)), n) >= 0 && ldot(lcross(lsub(c, b), lsub(x, b)), n) >= 0 &&
        ldot(lcross(lsub(a, c), lsub(x, c)), n) >= 0)
        best = lmin(best, h * h / nn);
    return best;
}

typedef struct segseg_ctx {
    lv3 a1, d1, a2, b2;
} segseg_ctx;
static real segseg_f(const void *ctx, real s) {
    const segseg_ctx *k = ctx;
    return proj_point_segment2(k->a2, k->b2, lmad(k->a1, k->d1, s));
}
static real o_segment_segment2(lv3 a1, lv3 b1, lv3 a2, lv3 b2) {
    segseg_ctx k = {a1, lsub(b1, a1), a2, b2};
    return golden(segseg_f, &k, 0, 1, NULL);
}

typedef struct segtri_ctx {
    lv3 p, d, a, b, c;
} segtri_ctx;
static real segtri_f(const void *ctx, real s) {
    const segtri_ctx *k = ctx;
    return feat_point_triangle2(k->a, k->b, k->c, lmad(k->p, k->d, s));
}
static real o_segment_triangle2(lv3 p0, lv3 p1, lv3 a, lv3 b, lv3 c) {
    segtri_ctx k = {p0, lsub(p1, p0), a, b, c};
    return golden(segtri_f, &k, 0, 1, NULL);
}

// Distance from p to the surface of the box |x_i| <= e_i (local coordinates), signed: the closest
// point of a box minimises sum (p_i - x_i)^2 over independent x_i, so each axis is its own search;
// a face fixes one axis at +-e_k.
typedef struct axis_ctx {
    real p;
} axis_ctx;
static real axis_f(const void *ctx, real x) {
    real d = ((const axis_ctx *)ctx)->p - x;
    return d * d;
}
static real o_box_surface(lv3 p, const real e[3]) {
    const real pp[3] = {p.x, p.y, p.z};
    real m[3];
    bool inside = true;
    for (int i = 0; i < 3; i++) {
        axis_ctx k = {pp[i]};
        m[i] = golden(axis_f, &k, -e[i], e[i], NULL);
        inside = inside && fabsl(pp[i]) <= e[i];
    }
    real best = INFINITY;
    for (int k = 0; k < 3; k++)
        for (int side = -1; side <= 1; side += 2) {
            real dk = pp[k] - side * e[k], d2 = dk * dk;
            for (int i = 0; i < 3; i++)
                if (i != k) d2 += m[i];
            best = lmin(best, d2);
        }
    return inside ? -sqrtl(best) : sqrtl(best);
}

// ---- Points against lines and segments -------------------------------------------------------------

typedef struct line_ctx {
    lv3 o, d, p;
} line_ctx;
static real line_f(const void *c, real t) {
    const line_ctx *k = c;
    lv3 x = lsub(lmad(k->o, k->d, t), k->p);
    return ldot(x, x);
}

// A segment of any length (zero included) near a random place, and points near it, on its ends
// and far from it.
static void gen_point_segment(rng *g, int i, vec3s *a, vec3s *b, vec3s *p) {
    lv3 o = rnd_world(g);
    real size = rnd_log(g, 0.01L, 100);
    *a = f3(rnd_ball(g, o, size));
    *b = i % 8 == 0 ? *a : f3(lmad(lv(*a), rnd_dir(g), size * rnd_log(g, 1e-3L, 2)));
    switch (i % 5) {
    case 0:
        *p = *a;
        break;
    case 1:
        *p = f3(lscale(ladd(lv(*a), lv(*b)), 0.5L));
        break;
    default:
        *p = f3(rnd_ball(g, o, 3 * size));
    }
}

static const char *check_point_segment(vec3s a, vec3s b, vec3s p) {
    kyu_segment s = {a, b};
    vec3s q;
    float d = kyu_distance_point_segment(p, &s, &q);
    lv3 qo;
    real want = sqrtl(o_point_segment2(lv(a), lv(b), lv(p), &qo));
    real S = scale_of((vec3s[]){a, b, p}, 3, 0);
    // The closed form the nested oracles rely on must agree with the search, on every case.
    if (fabsl(sqrtl(proj_point_segment2(lv(a), lv(b), lv(p))) - want) > 1e-10L * S)
        return "oracle: projection and golden search disagree";
    if (fabsl(d - want) > tol_d(want, S)) return why("distance", d, want);
    if (!same3(q, kyu_closest_point_segment(&s, p))) return "closest point differs between calls";
    if (sqrtl(proj_point_segment2(lv(a), lv(b), lv(q))) > tol_p(S)) return "closest point off the segment";
    if (fabsl(llen(lsub(lv(p), lv(q))) - d) > tol_p(S))
        return why("|p - closest|", llen(lsub(lv(p), lv(q))), d);
    return NULL;
}

static const char *check_point_line(vec3s o, vec3s dir, vec3s p) {
    vec3s q;
    float d = kyu_distance_point_line(p, o, dir, &q);
    real dl = llen(lv(dir)), R = dl > 0 ? llen(lsub(lv(p), lv(o))) / dl + 1 : 1;
    line_ctx k = {lv(o), lv(dir), lv(p)};
    real want = sqrtl(golden(line_f, &k, -R, R, NULL));
    real S = scale_of((vec3s[]){o, p, q}, 3, dl);
    if (fabsl(d - want) > tol_d(want, S)) return why("line distance", d, want);
    real off = dl > 0 ? llen(lcross(lsub(lv(q), lv(o)), lv(dir))) / dl : llen(lsub(lv(q), lv(o)));
    if (off > tol_p(S)) return why("foot off the line", off, 0);
    if (fabsl(llen(lsub(lv(p), lv(q))) - d) > tol_p(S)) return "|p - foot| is not the distance";
    return NULL;
}

static void test_point_segment_and_line_match_golden_search(void) {
    rng g = {11};
    for (int i = 0; i < CASES; i++) {
        vec3s a, b, p;
        gen_point_segment(&g, i, &a, &b, &p);
        vec3s dir = i % 7 == 0 ? v3(0, 0, 0) : f3(lsub(lv(b), lv(a)));
        const char *w = check_point_segment(a, b, p);
        if (!w) w = check_point_line(a, dir, p);
        if (w) {
            printf("    case %d: %s\n", i, w);
            print_v("a", a), print_v("b / direction", b), print_v("p", p);
        }
        ENSURE(w == NULL);
    }
}

// ---- Points against triangles ---------------------------------------------------------------------------

// Thinness of a triangle: twice its area over its longest edge squared (its smallest height over
// its longest edge, up to a factor).
static real thinness(const kyu_triangle *t) {
    lv3 a = lv(t->a), b = lv(t->b), c = lv(t->c);
    real l2 =
        lmax(ldot(lsub(b, a), lsub(b, a)), lmax(ldot(lsub(c, a), lsub(c, a)), ldot(lsub(c, b), lsub(c, b))));
    return l2 > 0 ? llen(lcross(lsub(b, a), lsub(c, a))) / l2 : 0;
}
// General, obtuse, thin (down to 1e-9), exactly degenerate (a repeated corner, three collinear
// corners sharing two coordinates, one point) and right triangles.
static kyu_triangle gen_triangle(rng *g, int i, lv3 *o, real *size) {
    *o = rnd_world(g);
    *size = rnd_log(g, 0.01L, 100);
    lv3 a = rnd_ball(g, *o, *size), b = rnd_ball(g, *o, *size), c = rnd_ball(g, *o, *size);
    lv3 ab = lsub(b, a), perp = rnd_perp(g, lnorm(ab));
    switch (i % 10) {
    case 4:
        c = lmad(lmad(a, ab, rnd_in(g, -0.6L, 1.6L)), perp, llen(ab) * rnd_log(g, 0.02L, 0.4L));
        break;
    case 5:
        c = lmad(lmad(a, ab, rnd_in(g, -0.6L, 1.6L)), perp, llen(ab) * rnd_log(g, 1e-9L, 1e-3L));
        break;
    case 6:
        c = (i / 10) % 3 == 0 ? a : b;
        if ((i / 10) % 5 == 0) b = a;
        break;
    case 7:
        b.y = a.y, b.z = a.z, c.y = a.y, c.z = a.z;
        break;
    case 8:
        c = lmad(a, perp, llen(ab) * rnd_in(g, 0.1L, 2));
        break;
    default:
        break;
    }
    return (kyu_triangle){f3(a), f3(b), f3(c)};
}

// Points near the triangle, on its plane, just off it, on a corner, and far away.
static vec3s gen_near_triangle(rng *g, int i, const kyu_triangle *t, lv3 o, real size) {
    lv3 a = lv(t->a), ab = lsub(lv(t->b), a), ac = lsub(lv(t->c), a);
    lv3 on = lmad(lmad(a, ab, rnd_in(g, -0.5L, 1.2L)), ac, rnd_in(g, -0.5L, 1.2L));
    lv3 n = lcross(ab, ac);
    switch ((i / 10) % 6) {
    case 0:
        return f3(on);
    case 1:
        return llen(n) > 0 ? f3(lmad(on, lnorm(n), size * rnd_log(g, 1e-6L, 1) * (rnd(g) < 0.5L ? -1 : 1)))
                           : f3(on);
    case 2:
        return t->a;
    case 3:
        return f3(rnd_ball(g, o, 10 * size));
    default:
        return f3(rnd_ball(g, o, 2 * size));
    }
}

static void print_triangle(const kyu_triangle *t) {
    print_v("a", t->a), print_v("b", t->b), print_v("c", t->c);
}

static const char *check_point_triangle(const kyu_triangle *t, vec3s p) {
    vec3s q;
    float d = kyu_distance_point_triangle(p, t, &q);
    real want = sqrtl(o_point_triangle2(lv(t->a), lv(t->b), lv(t->c), lv(p)));
    real S = scale_of((vec3s[]){t->a, t->b, t->c, p}, 4, 0);
    // The feature-wise oracle (used for segment-triangle) must agree with the search, every case.
    if (fabsl(sqrtl(feat_point_triangle2(lv(t->a), lv(t->b), lv(t->c), lv(p))) - want) > 1e-10L * S)
        return "oracle: features and nested search disagree";
    if (fabsl(d - want) > tol_d(want, S)) return why("distance", d, want);
    if (!same3(q, kyu_closest_point_triangle(t, p))) return "closest point differs between calls";
    if (sqrtl(feat_point_triangle2(lv(t->a), lv(t->b), lv(t->c), lv(q))) > tol_p(S))
        return "closest point off the triangle";
    if (fabsl(llen(lsub(lv(p), lv(q))) - d) > tol_p(S)) return "|p - closest| is not the distance";
    return NULL;
}

static void test_point_triangle_matches_nested_search(void) {
    rng g = {12};
    int thin = 0;
    for (int i = 0; i < CASES; i++) {
        lv3 o;
        real size;
        kyu_triangle t = gen_triangle(&g, i, &o, &size);
        real th = thinness(&t);
        thin += th > 0 && th < 1e-6L;
        vec3s p = gen_near_triangle(&g, i, &t, o, size);
        const char *w = check_point_triangle(&t, p);
        if (w) {
            printf("    case %d: %s\n", i, w);
            print_triangle(&t), print_v("p", p);
        }
        ENSURE(w == NULL);
    }
    ENSURE(thin >= CASES / 40); // slivers thinner than 1e-6 were really tested
}

// Thin triangles get no extra tolerance anywhere: the routine computes their face normal with an
// accurate cross product and takes only those thinner than 1e-12 as their edges.
// Slivers (1e-9 to 1e-5 of their edge thick) with points right above their face, at heights down
// to 1e-5 of their size, where the face normal's direction decides the distance: a plainly
// computed cross product of such edges loses ~1e-16 / thinness of its direction when the products
// of the edge coordinates are not exact in double, which moves a low point's distance by ~1e-8 of
// the size (far below a float ulp of the coordinates, but far above that of the distance).
static void test_point_triangle_above_a_sliver(void) {
    rng g = {21};
    for (int i = 0; i < CASES; i++) {
        lv3 o = i % 2 ? (lv3){0, 0, 0} : rnd_world(&g);
        real size = rnd_log(&g, 0.01L, 100);
        // Half of them with a corner near the world origin, far smaller than the others: the edge
        // coordinates then need more than 26 bits and their products are no longer exact in double.
        lv3 a = rnd_ball(&g, o, size * (i % 2 ? 1e-6L : 1)),
            ab = lscale(rnd_dir(&g), size * rnd_log(&g, 0.1L, 2));
        lv3 perp = rnd_perp(&g, lnorm(ab));
        lv3 c = lmad(lmad(a, ab, rnd_in(&g, 0, 1)), perp, llen(ab) * rnd_log(&g, 1e-9L, 1e-5L));
        kyu_triangle t = {f3(a), f3(ladd(a, ab)), f3(c)};
        lv3 A = lv(t.a), n = lcross(lsub(lv(t.b), A), lsub(lv(t.c), A));
        real u = rnd(&g), v = rnd(&g) * (1 - u);
        lv3 on = lmad(lmad(A, lsub(lv(t.b), A), u), lsub(lv(t.c), A), v);
        // (a sliver may round to collinear corners: then a point on it, for the degenerate path)
        vec3s p = llen(n) > 0 ? f3(lmad(on, lnorm(n), size * rnd_log(&g, 1e-5L, 2) * (i % 4 < 2 ? 1 : -1)))
                              : f3(on);
        const char *w = check_point_triangle(&t, p);
        if (w) {
            printf("    case %d: %s\n", i, w);
            print_triangle(&t), print_v("p", p);
        }
        ENSURE(w == NULL);
    }
}

// An obtuse corner at a: the point lies where u < 0 and v < 0 (a naive range test says corner a,
// at distance 3), but its true closest point is on edge ac.
static void test_point_triangle_obtuse_corner_uses_the_edge(void) {
    kyu_triangle t = {v3(0, 0, 0), v3(4, 0, 0), v3(-2, 2, 0)};
    vec3s q;
    float d = kyu_distance_point_triangle(v3(-3, 0, 0), &t, &q);
    ENSURE_NEAR(d, 1.5 * sqrt(2.0), 2e-7);
    ENSURE_NEAR(q.x, -1.5, 1e-6);
    ENSURE_NEAR(q.y, 1.5, 1e-6);
    ENSURE_NEAR(q.z, 0, 1e-6);
}

static void test_point_triangle_degenerate_is_its_segment_or_point(void) {
    kyu_triangle line = {v3(0, 0, 0), v3(2, 0, 0), v3(5, 0, 0)},
                 point = {v3(1, 2, 3), v3(1, 2, 3), v3(1, 2, 3)};
    vec3s q;
    ENSURE_NEAR(kyu_distance_point_triangle(v3(4, 3, 4), &line, &q), 5, 1e-6);
    ENSURE(same3(q, v3(4, 0, 0)));
    ENSURE_NEAR(kyu_distance_point_triangle(v3(7, 0, 0), &line, &q), 2, 1e-6);
    ENSURE(same3(q, v3(5, 0, 0)));
    ENSURE_NEAR(kyu_distance_point_triangle(v3(1, 2, 5), &point, &q), 2, 1e-6);
    ENSURE(same3(q, v3(1, 2, 3)));
}

// ---- Segments ---------------------------------------------------------------------------------------------

// General pairs, nearly parallel ones (angles 1e-1 to 1e-9, the textbook routine's weak spot),
// exactly parallel, crossing, collinear overlapping and zero-length ones.
static void gen_segments(rng *g, int i, kyu_segment *s1, kyu_segment *s2) {
    lv3 o = rnd_world(g);
    real size = rnd_log(g, 0.01L, 100);
    lv3 a1 = rnd_ball(g, o, size), d1 = lscale(rnd_dir(g), size * rnd_log(g, 0.05L, 2));
    lv3 a2 = rnd_ball(g, o, size), d2 = lscale(rnd_dir(g), size * rnd_log(g, 0.05L, 2));
    lv3 perp = rnd_perp(g, lnorm(d1));
    real l2 = llen(d1) * rnd_log(g, 0.1L, 3) * (rnd(g) < 0.5L ? -1 : 1);
    switch (i % 8) {
    case 3: // nearly parallel, offset across by anything from 0 to the size, along by up to a length
        d2 = lscale(lnorm(lmad(lnorm(d1), perp, powl(10, -rnd_in(g, 1, 9)))), l2);
        a2 = lmad(lmad(a1, d1, rnd_in(g, -1.2L, 1.2L)), rnd_perp(g, lnorm(d1)), size * rnd_log(g, 1e-7L, 1));
        break;
    case 4: // exactly parallel: the same float direction scaled by a power of two
        *s1 = (kyu_segment){f3(a1), f3(ladd(a1, d1))};
        a2 = lmad(lmad(a1, d1, rnd_in(g, -1.2L, 1.2L)), perp, size * rnd_log(g, 1e-6L, 1));
        s2->a = f3(a2);
        s2->b =
            glms_vec3_add(s2->a, glms_vec3_scale(glms_vec3_sub(s1->b, s1->a), (i / 8) % 2 ? -0.5f : 2.0f));
        return;
    case 5: { // crossing (to the rounding of the float inputs)
        lv3 x = lmad(a1, d1, rnd(g));
        a2 = lmad(x, d2, -rnd(g));
        break;
    }
    case 6: // zero-length: one or both
        d2 = (lv3){0, 0, 0};
        if ((i / 8) % 3 == 0) d1 = d2;
        break;
    case 7: // collinear, overlapping or not
        a2 = lmad(a1, d1, rnd_in(g, -1.5L, 1.5L));
        d2 = lscale(d1, rnd_in(g, -2, 2));
        break;
    default:
        break;
    }
    *s1 = (kyu_segment){f3(a1), f3(ladd(a1, d1))};
    *s2 = (kyu_segment){f3(a2), f3(ladd(a2, d2))};
}

static const char *check_segments(const kyu_segment *s1, const kyu_segment *s2) {
    vec3s p1, p2, q1, q2;
    float d = kyu_distance_segment_segment(s1, s2, &p1, &p2);
    kyu_closest_points_segments(s1, s2, &q1, &q2);
    real want = sqrtl(o_segment_segment2(lv(s1->a), lv(s1->b), lv(s2->a), lv(s2->b)));
    real S = scale_of((vec3s[]){s1->a, s1->b, s2->a, s2->b}, 4, 0);
    if (fabsl(d - want) > tol_d(want, S)) return why("distance", d, want);
    if (!same3(p1, q1) || !same3(p2, q2)) return "closest points differ between calls";
    // A closest pair need not be unique (parallel overlap): it must lie on both segments and be
    // as far apart as the distance, which makes it an optimal pair.
    if (sqrtl(proj_point_segment2(lv(s1->a), lv(s1->b), lv(p1))) > tol_p(S)) return "p1 off segment 1";
    if (sqrtl(proj_point_segment2(lv(s2->a), lv(s2->b), lv(p2))) > tol_p(S)) return "p2 off segment 2";
    if (fabsl(llen(lsub(lv(p1), lv(p2))) - want) > tol_p(S))
        return why("|p1 - p2|", llen(lsub(lv(p1), lv(p2))), want);
    return NULL;
}

static void print_segment(const char *name, const kyu_segment *s) {
    printf("      %s:\n", name);
    print_v("a", s->a), print_v("b", s->b);
}

static void test_segment_segment_matches_golden_search(void) {
    rng g = {13};
    int nearly_parallel = 0;
    for (int i = 0; i < CASES; i++) {
        kyu_segment s1, s2;
        gen_segments(&g, i, &s1, &s2);
        lv3 d1 = lsub(lv(s1.b), lv(s1.a)), d2 = lsub(lv(s2.b), lv(s2.a));
        real sine = llen(lcross(d1, d2)) / (llen(d1) * llen(d2));
        nearly_parallel += sine > 0 && sine < 1e-4L;
        const char *w = check_segments(&s1, &s2);
        if (w) {
            printf("    case %d: %s\n", i, w);
            print_segment("s1", &s1), print_segment("s2", &s2);
        }
        ENSURE(w == NULL);
    }
    ENSURE(nearly_parallel >= CASES / 20); // angles below 1e-4 (not 0) were really tested
}

static void test_segment_segment_degenerate_cases(void) {
    vec3s p1, p2;
    kyu_segment pa = {v3(1, 2, 3), v3(1, 2, 3)}, pb = {v3(1, 2, 7), v3(1, 2, 7)};
    ENSURE_NEAR(kyu_distance_segment_segment(&pa, &pb, &p1, &p2), 4, 0);
    ENSURE(same3(p1, pa.a) && same3(p2, pb.a));
    // Parallel at distance 1, overlapping over x in [2, 3]: any pair across the overlap.
    kyu_segment a = {v3(0, 0, 0), v3(3, 0, 0)}, b = {v3(2, 1, 0), v3(8, 1, 0)};
    ENSURE_NEAR(kyu_distance_segment_segment(&a, &b, &p1, &p2), 1, 0);
    ENSURE(p1.x >= 2 && p1.x <= 3 && p1.x == p2.x && p1.y == 0 && p2.y == 1);
    // Collinear with a gap, and coincident.
    kyu_segment c = {v3(5, 0, 0), v3(9, 0, 0)};
    ENSURE_NEAR(kyu_distance_segment_segment(&a, &c, &p1, &p2), 2, 0);
    ENSURE(same3(p1, v3(3, 0, 0)) && same3(p2, v3(5, 0, 0)));
    ENSURE_NEAR(kyu_distance_segment_segment(&a, &a, &p1, &p2), 0, 0);
    ENSURE(same3(p1, p2));
    // Crossing exactly, and a T whose foot is an endpoint.
    kyu_segment x = {v3(1, -1, 0), v3(1, 1, 0)}, t = {v3(1, 0.5f, 2), v3(1, 0.5f, 0)};
    ENSURE_NEAR(kyu_distance_segment_segment(&a, &x, &p1, &p2), 0, 0);
    ENSURE(same3(p1, v3(1, 0, 0)) && same3(p2, v3(1, 0, 0)));
    ENSURE_NEAR(kyu_distance_segment_segment(&x, &t, &p1, &p2), 0, 0);
    ENSURE(same3(p1, v3(1, 0.5f, 0)));
    // Nearly parallel, long: lines 1e-4 apart in angle, the true closest pair at the far end.
    kyu_segment l1 = {v3(0, 0, 0), v3(1000, 0, 0)}, l2 = {v3(0, 1, 0), v3(1000, 0.9f, 0)};
    real want = sqrtl(o_segment_segment2(lv(l1.a), lv(l1.b), lv(l2.a), lv(l2.b)));
    ENSURE_NEAR(kyu_distance_segment_segment(&l1, &l2, &p1, &p2), want, tol_d(want, 1000));
    ENSURE_NEAR(p1.x, 1000, 1e-3);
}

// ---- Segment against triangle ---------------------------------------------------------------------------

static void test_segment_triangle_matches_golden_search(void) {
    rng g = {14};
    for (int i = 0; i < CASES; i++) {
        lv3 o;
        real size;
        kyu_triangle t = gen_triangle(&g, i, &o, &size);
        lv3 a = lv(gen_near_triangle(&g, i, &t, o, size)), b;
        switch ((i / 60) % 4) {
        case 0:
            b = rnd_ball(&g, o, 2 * size);
            break; // often crossing the plane
        case 1: {  // parallel to the plane
            lv3 n = lcross(lsub(lv(t.b), lv(t.a)), lsub(lv(t.c), lv(t.a)));
            b = llen(n) > 0 ? lmad(a, rnd_perp(&g, lnorm(n)), size * rnd_log(&g, 0.1L, 2)) : a;
            break;
        }
        case 2:
            b = a;
            break;
        default:
            b = lmad(a, rnd_dir(&g), size * rnd_log(&g, 0.01L, 3));
        }
        kyu_segment s = {f3(a), f3(b)};
        vec3s ps, pt;
        float d = kyu_distance_segment_triangle(&s, &t, &ps, &pt);
        real want = sqrtl(o_segment_triangle2(lv(s.a), lv(s.b), lv(t.a), lv(t.b), lv(t.c)));
        real S = scale_of((vec3s[]){t.a, t.b, t.c, s.a, s.b}, 5, 0);
        const char *w = NULL;
        if (fabsl(d - want) > tol_d(want, S))
            w = why("distance", d, want);
        else if (sqrtl(proj_point_segment2(lv(s.a), lv(s.b), lv(ps))) > tol_p(S))
            w = "point off the segment";
        else if (sqrtl(feat_point_triangle2(lv(t.a), lv(t.b), lv(t.c), lv(pt))) > tol_p(S))
            w = "point off the triangle";
        else if (fabsl(llen(lsub(lv(ps), lv(pt))) - d) > tol_p(S))
            w = "|ps - pt| is not the distance";
        if (w) {
            printf("    case %d: %s\n", i, w);
            print_triangle(&t), print_segment("segment", &s);
        }
        ENSURE(w == NULL);
    }
}

static void test_segment_triangle_crossing_and_coplanar(void) {
    kyu_triangle t = {v3(0, 0, 0), v3(4, 0, 0), v3(0, 4, 0)};
    vec3s ps, pt;
    kyu_segment through = {v3(1, 1, -1), v3(1, 1, 3)};
    ENSURE_NEAR(kyu_distance_segment_triangle(&through, &t, &ps, &pt), 0, 0);
    ENSURE(same3(ps, v3(1, 1, 0)) && same3(pt, v3(1, 1, 0)));
    // In the plane, inside; in the plane, outside (a plain det != 0 test reports such hits).
    kyu_segment inside = {v3(0.5f, 0.5f, 0), v3(1, 2, 0)}, outside = {v3(5, 5, 0), v3(9, 1, 0)};
    ENSURE_NEAR(kyu_distance_segment_triangle(&inside, &t, &ps, &pt), 0, 0);
    ENSURE_NEAR(kyu_distance_segment_triangle(&outside, &t, &ps, &pt), sqrt(2.0) * 3, 1e-6);
    // Parallel above the face.
    kyu_segment above = {v3(0.5f, 0.5f, 2), v3(1, 2, 2)};
    ENSURE_NEAR(kyu_distance_segment_triangle(&above, &t, &ps, &pt), 2, 0);
}

// ---- Points and spheres against boxes -------------------------------------------------------------

static void test_point_aabb_matches_separable_search(void) {
    rng g = {15};
    for (int i = 0; i < CASES; i++) {
        lv3 o = rnd_world(&g);
        real size = rnd_log(&g, 0.01L, 100);
        lv3 e = {size * rnd_log(&g, 0.01L, 1), size * rnd_log(&g, 0.01L, 1), size * rnd_log(&g, 0.01L, 1)};
        if (i % 10 == 0) e.y = 0; // flat
        kyu_aabb box = {f3(lsub(o, e)), f3(ladd(o, e))};
        lv3 lo = lv(box.lower), hi = lv(box.upper), c = lscale(ladd(lo, hi), 0.5L);
        real he[3] = {(hi.x - lo.x) / 2, (hi.y - lo.y) / 2, (hi.z - lo.z) / 2};
        vec3s p = f3(rnd_ball(&g, o, 2 * size));
        if (i % 7 == 0) p = v3(box.upper.x, p.y, p.z); // on a face plane
        if (i % 13 == 0) p = f3(o);                    // the centre
        vec3s n, q;
        float d = kyu_distance_point_aabb(p, &box, &n, &q);
        real want = o_box_surface(lsub(lv(p), c), he);
        real S = scale_of((vec3s[]){box.lower, box.upper, p}, 3, 0);
        const char *w = NULL;
        if (fabsl(d - want) > tol_d(want, S))
            w = why("distance", d, want);
        else if (!unit3(n))
            w = "normal not unit";
        else if (fabsl(o_box_surface(lsub(lv(q), c), he)) > tol_p(S))
            w = "point not on the surface";
        else if (llen(lsub(lmad(lv(q), lv(n), d), lv(p))) > tol_p(S))
            w = "p is not point + distance * normal";
        vec3s cp = kyu_closest_point_aabb(&box, p);
        if (!w && (want <= 0 ? !same3(cp, p) : !same3(cp, q))) w = "kyu_closest_point_aabb";
        if (w) {
            printf("    case %d: %s\n", i, w);
            print_v("lower", box.lower), print_v("upper", box.upper), print_v("p", p);
        }
        ENSURE(w == NULL);
    }
}

static void test_point_aabb_inside_and_touching(void) {
    kyu_aabb box = {v3(-1, -2, -3), v3(1, 2, 3)};
    vec3s n, q;
    ENSURE_NEAR(kyu_distance_point_aabb(v3(0, 0, 0), &box, &n, &q), -1, 0);
    ENSURE(same3(n, v3(1, 0, 0)) && same3(q, v3(1, 0, 0)));
    ENSURE_NEAR(kyu_distance_point_aabb(v3(0.5f, -1.75f, 0), &box, &n, &q), -0.25, 0);
    ENSURE(same3(n, v3(0, -1, 0)) && same3(q, v3(0.5f, -2, 0)));
    ENSURE_NEAR(kyu_distance_point_aabb(v3(0.25f, 0, 3), &box, &n, &q), 0, 0);
    ENSURE(same3(n, v3(0, 0, 1)) && same3(q, v3(0.25f, 0, 3)));
    ENSURE_NEAR(kyu_distance_point_aabb(v3(4, 6, 0), &box, &n, &q), 5, 0);
    ENSURE(same3(n, v3(0.6f, 0.8f, 0)) && same3(q, v3(1, 2, 0)));
}

// A box with an exactly orthonormal rotation in long double, rounded to float for kyu. The oracle
// works in the exact frame; the float rotation is orthonormal only to ~U, which moves a point by
// ~2 U (|p - c| + |e|): that is added to the tolerances below.
typedef struct obox {
    kyu_box box;
    lv3 c, axis[3];
    real e[3];
} obox;

static obox gen_box(rng *g, lv3 o, real size) {
    obox b;
    lv3 q = rnd_dir(g);
    real w = rnd_in(g, -1, 1), s = sqrtl(1 - w * w);
    q = lscale(q, s); // unit quaternion (q, w)
    b.axis[0] = (lv3){1 - 2 * (q.y * q.y + q.z * q.z), 2 * (q.x * q.y + w * q.z), 2 * (q.x * q.z - w * q.y)};
    b.axis[1] = (lv3){2 * (q.x * q.y - w * q.z), 1 - 2 * (q.x * q.x + q.z * q.z), 2 * (q.y * q.z + w * q.x)};
    b.axis[2] = lcross(b.axis[0], b.axis[1]);
    b.box.center = f3(o);
    b.c = lv(b.box.center);
    vec3s he =
        f3((lv3){size * rnd_log(g, 0.01L, 1), size * rnd_log(g, 0.01L, 1), size * rnd_log(g, 0.01L, 1)});
    for (int k = 0; k < 3; k++) {
        b.e[k] = he.raw[k];
        b.box.rotation.col[k] = f3(b.axis[k]);
    }
    b.box.half_extents = he;
    return b;
}

static lv3 box_local(const obox *b, vec3s p) {
    lv3 r = lsub(lv(p), b->c);
    return (lv3){ldot(r, b->axis[0]), ldot(r, b->axis[1]), ldot(r, b->axis[2])};
}

static void test_point_box_and_sphere_box_contact_match_separable_search(void) {
    rng g = {16};
    for (int i = 0; i < CASES; i++) {
        lv3 o = rnd_world(&g);
        real size = rnd_log(&g, 0.01L, 100);
        obox b = gen_box(&g, o, size);
        vec3s p = f3(rnd_ball(&g, o, 2 * size));
        if (i % 13 == 0) p = b.box.center;
        float r = i % 2 ? 0.0f : (float)(size * rnd_log(&g, 0.01L, 1));
        vec3s n, q;
        float d = kyu_distance_point_box(p, &b.box, &n, &q);
        kyu_contact k = kyu_contact_sphere_box(p, r, &b.box);
        real want = o_box_surface(box_local(&b, p), b.e);
        real S = scale_of((vec3s[]){b.box.center, p}, 2, size);
        real rot = 4 * U * (llen(lsub(lv(p), b.c)) + b.e[0] + b.e[1] + b.e[2]);
        const char *w = NULL;
        if (fabsl(d - want) > tol_d(want, S) + rot)
            w = why("point distance", d, want);
        else if (fabsl(k.distance - (want - r)) > tol_d(want - r, S) + rot)
            w = why("contact distance", k.distance, want - r);
        else if (!unit3(n) || !same3(n, k.normal) || !same3(q, k.point))
            w = "normal not unit, or point and contact differ";
        else if (fabsl(o_box_surface(box_local(&b, q), b.e)) > tol_p(S) + rot)
            w = "point not on the surface";
        else if (llen(lsub(lmad(lv(q), lv(n), d), lv(p))) > tol_p(S) + rot)
            w = "p is not point + distance * normal";
        if (w) {
            printf("    case %d: %s (r = %a)\n", i, w, r);
            print_v("center", b.box.center), print_v("half_extents", b.box.half_extents), print_v("p", p);
            for (int c = 0; c < 3; c++) print_v("rotation column", b.box.rotation.col[c]);
        }
        ENSURE(w == NULL);
    }
}

static void test_sphere_box_contact_centre_inside(void) {
    kyu_box box = kyu_box_make(v3(1, 1, 1), glms_quat_identity(), v3(1, 2, 3));
    kyu_contact k = kyu_contact_sphere_box(v3(1, 1, 1), 0.5f, &box);
    ENSURE(same3(k.normal, v3(1, 0, 0)) && same3(k.point, v3(2, 1, 1)));
    ENSURE_NEAR(k.distance, -1.5, 0);
    k = kyu_contact_sphere_box(v3(1, 2.5f, 1), 0.5f, &box);
    ENSURE(same3(k.normal, v3(0, 1, 0)) && same3(k.point, v3(1, 3, 1)));
    ENSURE_NEAR(k.distance, -1, 0);
}

// ---- Solids: spheres, capsules, triangles ----------------------------------------------------------------

// The core of a solid (a point, a segment or a triangle) and its radius.
typedef struct core {
    int kind; // 1, 2 or 3 corners
    lv3 v[3];
    real r;
} core;

static real core_dist(const core *k, lv3 x) {
    if (k->kind == 1) return llen(lsub(x, k->v[0]));
    if (k->kind == 2) return sqrtl(proj_point_segment2(k->v[0], k->v[1], x));
    return sqrtl(feat_point_triangle2(k->v[0], k->v[1], k->v[2], x));
}

// A contact of A against B is right when its distance is the oracle's and it is realised: the point
// minus rb n lies on B's core, and from there (distance + ra + rb) n along the normal lies on A's
// core. The two core points are then as far apart as the cores are, so they are a closest pair
// and the normal joins them (any normal passes when the cores touch; the fallbacks have their own
// tests). `want` is the oracle's signed distance.
static const char *check_contact(kyu_contact k, const core *A, const core *B, real want, real S) {
    if (!unit3(k.normal) || !finite3(k.point)) return "normal not unit or point not finite";
    if (fabsl(k.distance - want) > tol_d(want, S)) return why("distance", k.distance, want);
    lv3 q2 = lmad(lv(k.point), lv(k.normal), -B->r);
    lv3 q1 = lmad(q2, lv(k.normal), (real)k.distance + A->r + B->r);
    real tol = tol_p(S);
    if (core_dist(B, q2) > tol) return why("point - rb n is off B's core by", core_dist(B, q2), 0);
    if (core_dist(A, q1) > tol)
        return why("the normal does not lead to A's core; off by", core_dist(A, q1), 0);
    return NULL;
}

static void print_core(const char *name, const core *k) {
    printf("      %s: radius %a (%.9Lg)\n", name, (float)k->r, k->r);
    for (int i = 0; i < k->kind; i++) print_v("corner", f3(k->v[i]));
}

static core point_core(vec3s c, float r) { return (core){1, {lv(c)}, r}; }
static core capsule_core(const kyu_capsule *c) { return (core){2, {lv(c->a), lv(c->b)}, c->radius}; }

static kyu_capsule gen_capsule(rng *g, int i, lv3 o, real size) {
    lv3 a = rnd_ball(g, o, size);
    lv3 b = i % 9 == 0 ? a : lmad(a, rnd_dir(g), size * rnd_log(g, 0.01L, 2));
    return (kyu_capsule){f3(a), f3(b), (float)(size * rnd_log(g, 0.01L, 1))};
}

static void test_sphere_sphere_contact_matches_definition(void) {
    rng g = {17};
    for (int i = 0; i < CASES; i++) {
        lv3 o = rnd_world(&g);
        real size = rnd_log(&g, 0.01L, 100);
        vec3s ca = f3(rnd_ball(&g, o, size)), cb = i % 11 == 0 ? ca : f3(rnd_ball(&g, o, size));
        float ra = (float)(size * rnd_log(&g, 0.01L, 1)), rb = (float)(size * rnd_log(&g, 0.01L, 1));
        kyu_contact k = kyu_contact_sphere_sphere(ca, ra, cb, rb);
        vec3s n, p;
        float d = kyu_distance_sphere_sphere(ca, ra, cb, rb, &n, &p);
        core A = point_core(ca, ra), B = point_core(cb, rb);
        real want = llen(lsub(lv(ca), lv(cb))) - ra - rb;
        real S = scale_of((vec3s[]){ca, cb}, 2, size);
        const char *w = check_contact(k, &A, &B, want, S);
        if (!w && (d != k.distance || !same3(n, k.normal) || !same3(p, k.point)))
            w = "distance and contact differ";
        if (w) {
            printf("    case %d: %s\n", i, w);
            print_core("A", &A), print_core("B", &B);
        }
        ENSURE(w == NULL);
    }
}

static void test_sphere_capsule_contact_matches_golden_search(void) {
    rng g = {18};
    for (int i = 0; i < CASES; i++) {
        lv3 o = rnd_world(&g);
        real size = rnd_log(&g, 0.01L, 100);
        kyu_capsule cap = gen_capsule(&g, i, o, size);
        vec3s c = f3(rnd_ball(&g, o, 2 * size));
        if (i % 5 == 0) c = f3(lscale(ladd(lv(cap.a), lv(cap.b)), 0.5L)); // on the axis
        float r = (float)(size * rnd_log(&g, 0.01L, 1));
        kyu_contact k = kyu_contact_sphere_capsule(c, r, &cap);
        vec3s n, p;
        float d = kyu_distance_sphere_capsule(c, r, &cap, &n, &p);
        core A = point_core(c, r), B = capsule_core(&cap);
        real want = sqrtl(o_point_segment2(lv(cap.a), lv(cap.b), lv(c), NULL)) - r - cap.radius;
        real S = scale_of((vec3s[]){c, cap.a, cap.b}, 3, size);
        const char *w = check_contact(k, &A, &B, want, S);
        if (!w && (d != k.distance || !same3(n, k.normal) || !same3(p, k.point)))
            w = "distance and contact differ";
        if (w) {
            printf("    case %d: %s\n", i, w);
            print_core("sphere", &A), print_core("capsule", &B);
        }
        ENSURE(w == NULL);
    }
}

static void test_capsule_capsule_contact_matches_golden_search(void) {
    rng g = {19};
    for (int i = 0; i < CASES; i++) {
        kyu_segment s1, s2;
        gen_segments(&g, i, &s1, &s2);
        real size = lmax(llen(lsub(lv(s1.a), lv(s1.b))), llen(lsub(lv(s2.a), lv(s2.b)))) + 1e-3L;
        kyu_capsule a = {s1.a, s1.b, (float)(size * rnd_log(&g, 0.01L, 1))};
        kyu_capsule b = {s2.a, s2.b, (float)(size * rnd_log(&g, 0.01L, 1))};
        kyu_contact k = kyu_contact_capsule_capsule(&a, &b);
        vec3s n, p;
        float d = kyu_distance_capsule_capsule(&a, &b, &n, &p);
        core A = capsule_core(&a), B = capsule_core(&b);
        real want = sqrtl(o_segment_segment2(lv(a.a), lv(a.b), lv(b.a), lv(b.b))) - a.radius - b.radius;
        real S = scale_of((vec3s[]){a.a, a.b, b.a, b.b}, 4, size);
        const char *w = check_contact(k, &A, &B, want, S);
        if (!w && (d != k.distance || !same3(n, k.normal) || !same3(p, k.point)))
            w = "distance and contact differ";
        if (w) {
            printf("    case %d: %s\n", i, w);
            print_core("A", &A), print_core("B", &B);
        }
        ENSURE(w == NULL);
    }
}

static void test_sphere_triangle_contact_matches_nested_search(void) {
    rng g = {20};
    for (int i = 0; i < CASES; i++) {
        lv3 o;
        real size;
        kyu_triangle t = gen_triangle(&g, i, &o, &size);
        vec3s c = gen_near_triangle(&g, i, &t, o, size);
        float r = (float)(size * rnd_log(&g, 0.01L, 1));
        kyu_contact k = kyu_contact_sphere_triangle(c, r, &t);
        vec3s n, p;
        float d = kyu_distance_sphere_triangle(c, r, &t, &n, &p);
        core A = point_core(c, r), B = {3, {lv(t.a), lv(t.b), lv(t.c)}, 0};
        real want = sqrtl(o_point_triangle2(lv(t.a), lv(t.b), lv(t.c), lv(c))) - r;
        real S = scale_of((vec3s[]){c, t.a, t.b, t.c}, 4, size);
        const char *w = check_contact(k, &A, &B, want, S);
        if (!w && (d != k.distance || !same3(n, k.normal) || !same3(p, k.point)))
            w = "distance and contact differ";
        if (w) {
            printf("    case %d: %s (r = %a)\n", i, w, r);
            print_triangle(&t), print_v("centre", c);
        }
        ENSURE(w == NULL);
    }
}

// ---- Normals where the separation has no direction --------------------------------------------------------

static bool perpendicular_to(vec3s n, vec3s axis) { return fabsl(ldot(lv(n), lnorm(lv(axis)))) <= 4 * U; }

static void test_coincident_and_on_axis_normals_are_deterministic(void) {
    kyu_contact k = kyu_contact_sphere_sphere(v3(1, 2, 3), 0.5f, v3(1, 2, 3), 0.25f);
    ENSURE(same3(k.normal, v3(0, 1, 0)) && same3(k.point, v3(1, 2.25f, 3)));
    ENSURE_NEAR(k.distance, -0.75, 0);
    // A centre on a horizontal axis: pushed up; on a vertical axis: along x.
    kyu_capsule flat = {v3(-1, 0, 0), v3(1, 0, 0), 0.5f}, tall = {v3(0, -1, 0), v3(0, 1, 0), 0.5f};
    k = kyu_contact_sphere_capsule(v3(0.25f, 0, 0), 0.25f, &flat);
    ENSURE(same3(k.normal, v3(0, 1, 0)) && same3(k.point, v3(0.25f, 0.5f, 0)));
    ENSURE_NEAR(k.distance, -0.75, 0);
    k = kyu_contact_sphere_capsule(v3(0, 1, 0), 0.25f, &tall);
    ENSURE(same3(k.normal, v3(1, 0, 0)));
    // A slanted axis: unit, perpendicular, repeatable.
    kyu_capsule slant = {v3(0.1f, 0.2f, 0.3f), v3(1.7f, -2.9f, 0.4f), 0.5f};
    vec3s mid = v3((0.1f + 1.7f) / 2, (0.2f - 2.9f) / 2, (0.3f + 0.4f) / 2);
    k = kyu_contact_sphere_capsule(mid, 0.25f, &slant);
    kyu_contact k2 = kyu_contact_sphere_capsule(mid, 0.25f, &slant);
    ENSURE(unit3(k.normal) && perpendicular_to(k.normal, glms_vec3_sub(slant.b, slant.a)));
    ENSURE(same3(k.normal, k2.normal) && k.distance == k2.distance);
    kyu_capsule dot = {v3(3, 3, 3), v3(3, 3, 3), 1};
    k = kyu_contact_sphere_capsule(v3(3, 3, 3), 1, &dot);
    ENSURE(same3(k.normal, v3(0, 1, 0)) && same3(k.point, v3(3, 4, 3)));
    ENSURE_NEAR(k.distance, -2, 0);
}

static void test_capsule_capsule_crossing_and_parallel_normals(void) {
    // Crossing at the origin: the normal of both axes.
    kyu_capsule a = {v3(-1, -1, 0), v3(3, 3, 0), 0.5f}, b = {v3(0, 0, -1), v3(0, 0, 1), 0.25f};
    kyu_contact k = kyu_contact_capsule_capsule(&a, &b);
    ENSURE(unit3(k.normal) && perpendicular_to(k.normal, v3(1, 1, 0)) &&
           perpendicular_to(k.normal, v3(0, 0, 1)));
    ENSURE_NEAR(k.distance, -0.75, 0);
    ENSURE_NEAR(llen(lv(k.point)), 0.25, 4 * U);
    a = (kyu_capsule){v3(-1, 0, 0), v3(3, 0, 0), 0.5f};
    kyu_capsule c = {v3(-2, 0, 0), v3(2, 0, 0), 0.25f};
    k = kyu_contact_capsule_capsule(&a, &c);
    ENSURE(same3(k.normal, v3(0, 1, 0)));
    ENSURE_NEAR(k.distance, -0.75, 0);
    kyu_capsule p = {v3(1, 1, 1), v3(1, 1, 1), 0.5f};
    k = kyu_contact_capsule_capsule(&p, &p);
    ENSURE(same3(k.normal, v3(0, 1, 0)) && same3(k.point, v3(1, 1.5f, 1)));
    ENSURE_NEAR(k.distance, -1, 0);
    // One capsule a point on the other's axis: a perpendicular to that axis.
    kyu_capsule q = {v3(0, 0, 0.5f), v3(0, 0, 0.5f), 0.5f};
    k = kyu_contact_capsule_capsule(&q, &b);
    ENSURE(same3(k.normal, v3(0, 1, 0)));
}

static void test_sphere_triangle_centre_on_triangle_uses_face_normal(void) {
    kyu_triangle t = {v3(0, 0, 0), v3(0, 0, 1), v3(1, 0, 0)},
                 flipped = {v3(0, 0, 0), v3(1, 0, 0), v3(0, 0, 1)};
    const vec3s on[4] = {v3(0.25f, 0, 0.25f), v3(0.5f, 0, 0), v3(0.5f, 0, 0.5f), v3(0, 0, 0)};
    for (int i = 0; i < 4; i++) {
        vec3s n, p;
        float d = kyu_distance_sphere_triangle(on[i], 0.5f, &t, &n, &p);
        ENSURE(same3(n, v3(0, 1, 0)) && same3(p, on[i]));
        ENSURE_NEAR(d, -0.5, 0);
        kyu_distance_sphere_triangle(on[i], 0.5f, &flipped, &n, &p);
        ENSURE(same3(n, v3(0, -1, 0)));
    }
    // Below the face: the normal points down to the centre.
    vec3s n;
    ENSURE_NEAR(kyu_distance_sphere_triangle(v3(0.25f, -2, 0.25f), 0.5f, &t, &n, NULL), 1.5, 0);
    ENSURE(same3(n, v3(0, -1, 0)));
}

static void test_sphere_triangle_degenerate_falls_back_to_segment_and_point(void) {
    kyu_triangle seg = {v3(0, 0, 0), v3(2, 0, 0), v3(1, 0, 0)}, pt = {v3(1, 1, 1), v3(1, 1, 1), v3(1, 1, 1)};
    vec3s n, p;
    ENSURE_NEAR(kyu_distance_sphere_triangle(v3(1, 0, 3), 0.5f, &seg, &n, &p), 2.5, 0);
    ENSURE(same3(n, v3(0, 0, 1)) && same3(p, v3(1, 0, 0)));
    ENSURE_NEAR(kyu_distance_sphere_triangle(v3(0.5f, 0, 0), 0.5f, &seg, &n, &p), -0.5, 0);
    ENSURE(same3(n, v3(0, 1, 0)) && same3(p, v3(0.5f, 0, 0)));
    kyu_triangle upright = {v3(0, 0, 0), v3(0, 2, 0), v3(0, 1, 0)};
    ENSURE_NEAR(kyu_distance_sphere_triangle(v3(0, 0.5f, 0), 0.5f, &upright, &n, &p), -0.5, 0);
    ENSURE(same3(n, v3(1, 0, 0)) && same3(p, v3(0, 0.5f, 0)));
    ENSURE_NEAR(kyu_distance_sphere_triangle(v3(1, 1, 1), 0.5f, &pt, &n, &p), -0.5, 0);
    ENSURE(same3(n, v3(0, 1, 0)) && same3(p, v3(1, 1, 1)));
    ENSURE_NEAR(kyu_distance_sphere_triangle(v3(4, 5, 1), 0.5f, &pt, &n, &p), 4.5, 0);
    ENSURE(same3(n, v3(0.6f, 0.8f, 0)));
}

void suite_closest(void) {
    RUN_TEST(test_point_segment_and_line_match_golden_search);
    RUN_TEST(test_point_triangle_matches_nested_search);
    RUN_TEST(test_point_triangle_above_a_sliver);
    RUN_TEST(test_point_triangle_obtuse_corner_uses_the_edge);
    RUN_TEST(test_point_triangle_degenerate_is_its_segment_or_point);
    RUN_TEST(test_segment_segment_matches_golden_search);
    RUN_TEST(test_segment_segment_degenerate_cases);
    RUN_TEST(test_segment_triangle_matches_golden_search);
    RUN_TEST(test_segment_triangle_crossing_and_coplanar);
    RUN_TEST(test_point_aabb_matches_separable_search);
    RUN_TEST(test_point_aabb_inside_and_touching);
    RUN_TEST(test_point_box_and_sphere_box_contact_match_separable_search);
    RUN_TEST(test_sphere_box_contact_centre_inside);
    RUN_TEST(test_sphere_sphere_contact_matches_definition);
    RUN_TEST(test_sphere_capsule_contact_matches_golden_search);
    RUN_TEST(test_capsule_capsule_contact_matches_golden_search);
    RUN_TEST(test_sphere_triangle_contact_matches_nested_search);
    RUN_TEST(test_coincident_and_on_axis_normals_are_deterministic);
    RUN_TEST(test_capsule_capsule_crossing_and_parallel_normals);
    RUN_TEST(test_sphere_triangle_centre_on_triangle_uses_face_normal);
    RUN_TEST(test_sphere_triangle_degenerate_falls_back_to_segment_and_point);
}
