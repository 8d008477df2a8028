// SPDX-License-Identifier: MIT
// Tests of the intersection routines (include/kyu/intersect.h) against independent oracles.
//
// Every oracle works in double from the very float inputs the routine receives (so it measures the
// routine's error, not the rounding of the inputs), and reaches its answer another way:
// - first t along a ray or segment: sphere tracing of an exact signed distance function of the
//   shape (steps of sdf / |d| can never jump over the surface), so no quadratic is solved;
// - segment/ray against a triangle: bisection of the signed distance to the plane, then the
//   point's signed distances to the three edge lines (no Cramer's rule); in the plane, the
//   segment's inside margin is concave in t, so its maximum (ternary search) and its first zero
//   (bisection) decide the case;
// - boolean tests: the gap between the shapes minimised numerically (golden-section search,
//   nested over a triangle: the distance to a convex set is convex) or by another construction
//   (a disc-against-disc test for sphere/cylinder, sampled rims for plane/cylinder).
// Cases within E = 2e-6 of touching (about 8 float rounding units of these coordinates; the
// routines compute in double, and the oracles stop far below E) can come out either way: they are
// counted as ambiguous and skipped, and every random test ENSUREs that fewer than 1% are, and that
// hits and misses are each more than 10% of its cases. Random cases come from a fixed-seed LCG, so
// a failure is printed with its index and reproduces.
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <kyu/geometry.h>

#include "test.h"

typedef double real;
typedef struct lv3 {
    real x, y, z;
} lv3;

#define CASES 10000
static const real E = 2e-6; // ambiguity band (absolute; random shapes live within |x| < 8)

// ---- Small helpers ------------------------------------------------------------------------------

static lv3 lv(vec3s v) { return (lv3){v.raw[0], v.raw[1], v.raw[2]}; }
// The stores through volatile keep GCC 12's SLP vectoriser (-O2) from dropping the rounding of a
// float -> double round trip (seen: lv(f3(x)) came out unrounded in x and y).
static vec3s f3(lv3 v) {
    volatile float x = (float)v.x, y = (float)v.y, z = (float)v.z;
    return v3(x, y, z);
}
static lv3 ladd(lv3 a, lv3 b) { return (lv3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static lv3 lsub(lv3 a, lv3 b) { return (lv3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static lv3 lscale(lv3 a, real s) { return (lv3){a.x * s, a.y * s, a.z * s}; }
static lv3 lmad(lv3 a, lv3 b, real s) { return (lv3){a.x + b.x * s, a.y + b.y * s, a.z + b.z * s}; }
static real ldot(lv3 a, lv3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static real llen(lv3 a) { return sqrt(ldot(a, a)); }
static lv3 lnorm(lv3 a) { return lscale(a, 1 / llen(a)); }
static lv3 lcross(lv3 a, lv3 b) {
    return (lv3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static real lmaxr(real a, real b) { return a > b ? a : b; }
static real lminr(real a, real b) { return a < b ? a : b; }

typedef struct rng {
    uint32_t s;
} rng;
static real rnd(rng *g) {
    g->s = g->s * 1664525u + 1013904223u;
    return (real)(g->s >> 8) / 16777216.0;
}
static real rnd_in(rng *g, real lo, real hi) { return lo + (hi - lo) * rnd(g); }
static real rnd_log(rng *g, real lo, real hi) { return lo * pow(hi / lo, rnd(g)); }
static lv3 rnd_dir(rng *g) {
    real z = rnd_in(g, -1, 1), phi = rnd_in(g, 0, 6.283185307179586476925);
    real s = sqrt(1 - z * z);
    return (lv3){s * cos(phi), s * sin(phi), z};
}
static lv3 rnd_ball(rng *g, real r) { return lscale(rnd_dir(g), r * cbrt(rnd(g))); }
// A float point near c (within r), returned already rounded so oracles see what routines see.
static vec3s rnd_near(rng *g, lv3 c, real r) { return f3(ladd(c, rnd_ball(g, r))); }

static void print_v(const char *name, vec3s v) {
    printf("      %s = (%a, %a, %a) = (%.9g, %.9g, %.9g)\n", name, v.raw[0], v.raw[1], v.raw[2], v.raw[0],
           v.raw[1], v.raw[2]);
}

// A random triangle: general, obtuse (one far corner), thin, or fully degenerate.
static kyu_triangle rnd_triangle(rng *g) {
    lv3 c = rnd_ball(g, 1.5);
    real size = rnd_log(g, 0.2, 2.5);
    lv3 a = ladd(c, rnd_ball(g, size)), b = ladd(c, rnd_ball(g, size)), k = ladd(c, rnd_ball(g, size));
    int kind = (int)(rnd(g) * 10);
    if (kind == 0) k = ladd(lscale(ladd(a, b), 0.5), rnd_ball(g, size * 0.05)); // obtuse, flat
    if (kind == 1) {
        // Exactly collinear in float (and in the routines' double): corners on a 1/64 grid.
        a = (lv3){round(a.x * 64) / 64, round(a.y * 64) / 64, round(a.z * 64) / 64};
        b = (lv3){round(b.x * 64) / 64, round(b.y * 64) / 64, round(b.z * 64) / 64};
        k = lmad(a, lsub(b, a), (int)(rnd(g) * 4) - 0.5);
    }
    if (kind == 2) k = ladd(lmad(a, lsub(b, a), 2.5), rnd_ball(g, size * 0.3)); // c far beyond b
    return (kyu_triangle){f3(a), f3(b), f3(k)};
}
static lv3 tri_point(const kyu_triangle *t, real u, real v) {
    lv3 a = lv(t->a);
    return lmad(lmad(a, lsub(lv(t->b), a), u), lsub(lv(t->c), a), v);
}

// ---- Oracle: first t along a line by sphere tracing ---------------------------------------------

typedef real (*sdf_fn)(const void *shape, lv3 x);

// First t in [t, tmax] with sdf <= margin (the shape grown by margin); -1 none, -2 undecided (a
// grazing path that needs too many steps).
static real march(sdf_fn f, const void *sh, lv3 p, lv3 d, real t, real tmax, real margin) {
    real dl = llen(d);
    for (int i = 0; i < 6000; i++) {
        real g = f(sh, lmad(p, d, t)) - margin;
        if (g <= 1e-12) return t;
        if (dl == 0) return -1;
        t += g / dl;
        if (t > tmax) return -1;
    }
    return -2;
}

enum { MISS, HIT, AMBIGUOUS };
typedef struct line_oracle {
    int kind;
    real lo, hi; // a hit's t lies in [lo, hi]: the entries into the shape grown and shrunk by E
} line_oracle;

static line_oracle solve_line(sdf_fn f, const void *sh, lv3 p, lv3 d, real tmax) {
    line_oracle o = {AMBIGUOUS, 0, 0};
    real g0 = f(sh, p);
    if (fabs(g0) <= E) return o;
    if (g0 < 0) return (line_oracle){HIT, 0, 0};
    real tg = march(f, sh, p, d, 0, tmax, E);
    if (tg == -2) return o;
    if (tg == -1) return (line_oracle){MISS, 0, 0};
    real ts = march(f, sh, p, d, tg, tmax, -E);
    if (ts < 0) return o;
    return (line_oracle){HIT, tg, ts};
}

// Compares a routine's answer with the oracle; returns false (after printing) on a mismatch.
static bool check_line(int i, line_oracle o, bool hit, float t) {
    if (o.kind == HIT && hit) {
        real slack = 1e-6 * (1 + o.hi);
        if (t >= o.lo - slack && t <= o.hi + slack) return true;
    } else if (o.kind == MISS && !hit) {
        return true;
    }
    printf("      case %d: oracle %s t in [%.12g, %.12g], got hit=%d t=%.9g\n", i,
           o.kind == HIT ? "hit" : "miss", o.lo, o.hi, hit, t);
    return false;
}

// Rays and segments aimed near a shape's centre c (size s), a few with the origin inside, a few
// of zero length, with lengths of d from 0.05 to 20 so that t is in units of d.
typedef struct line_case {
    vec3s p, d;
} line_case;
static line_case rnd_line(rng *g, lv3 c, real s) {
    lv3 p = ladd(c, lscale(rnd_dir(g), s * rnd_in(g, 0.5, 3)));
    lv3 target = ladd(c, rnd_ball(g, 1.5 * s));
    lv3 d = lscale(lnorm(lsub(target, p)), rnd_log(g, 0.05, 20));
    real k = rnd(g);
    if (k < 0.02)
        d = (lv3){0, 0, 0};
    else if (k < 0.05)
        d = lscale(rnd_dir(g), rnd_log(g, 0.05, 20)); // any direction
    return (line_case){f3(p), f3(d)};
}

// Counts and the final ENSUREs common to every random test: few ambiguous cases, and both
// answers seen often enough that the test means something.
typedef struct tally {
    int hits, misses, ambiguous;
} tally;
static void tally_add(tally *k, int kind) {
    if (kind == HIT)
        k->hits++;
    else if (kind == MISS)
        k->misses++;
    else
        k->ambiguous++;
}
#define ENSURE_TALLY(k, n)                                                                                   \
    do {                                                                                                     \
        printf("      %d cases: %d hits, %d misses, %d ambiguous\n", (n), (k).hits, (k).misses,              \
               (k).ambiguous);                                                                               \
        ENSURE((k).ambiguous * 100 < (n));                                                                   \
        ENSURE((k).hits * 10 > (n) && (k).misses * 10 > (n));                                                \
    } while (0)

// ---- Exact signed distance functions of the solids ----------------------------------------------

typedef struct lsphere {
    lv3 c;
    real r;
} lsphere;
static real sdf_sphere(const void *sh, lv3 x) {
    const lsphere *s = sh;
    return llen(lsub(x, s->c)) - s->r;
}

// Box in its own frame: centre, axes (orthonormalised in double), half extents.
typedef struct lbox {
    lv3 c, ax[3];
    real e[3];
} lbox;
static real sdf_box(const void *sh, lv3 x) {
    const lbox *b = sh;
    lv3 m = lsub(x, b->c);
    real out = 0, in = -1e30;
    for (int i = 0; i < 3; i++) {
        real q = fabs(ldot(m, b->ax[i])) - b->e[i];
        if (q > 0) out += q * q;
        if (q > in) in = q;
    }
    return out > 0 ? sqrt(out) : in;
}

// A cylinder or capsule around a-b as (axial, radial) coordinates.
typedef struct laxis {
    lv3 a, w;
    real len, r;
} laxis;
static laxis mk_axis(vec3s a, vec3s b, float r) {
    lv3 u = lsub(lv(b), lv(a));
    real len = llen(u);
    return (laxis){lv(a), len > 0 ? lscale(u, 1 / len) : (lv3){0, 0, 0}, len, r};
}
static real sdf_cylinder(const void *sh, lv3 x) {
    const laxis *k = sh;
    lv3 m = lsub(x, k->a);
    real s = ldot(m, k->w);
    real rho = llen(lcross(m, k->w));
    real qx = rho - k->r, qy = fabs(s - k->len / 2) - k->len / 2;
    real ox = lmaxr(qx, 0), oy = lmaxr(qy, 0);
    return lminr(lmaxr(qx, qy), 0) + sqrt(ox * ox + oy * oy);
}
static real sdf_capsule(const void *sh, lv3 x) {
    const laxis *k = sh;
    real s = k->len > 0 ? ldot(lsub(x, k->a), k->w) : 0;
    s = s < 0 ? 0 : s > k->len ? k->len : s;
    return llen(lsub(x, lmad(k->a, k->w, s))) - k->r;
}

// ---- Oracle: minimisation of convex functions ---------------------------------------------------

typedef real (*fn1)(const void *ctx, real s);
// Minimum of a convex function on [0, 1]: golden-section search, then the ends (a minimum at an
// end is then exact, not approached). Any value below `stop` is returned at once: the callers only
// need to know that the minimum is below it.
static real golden_min_stop(fn1 f, const void *ctx, int iters, real stop) {
    const real k = 0.6180339887498948482;
    real a = 0, b = 1, x1 = b - k * (b - a), x2 = a + k * (b - a);
    real f1 = f(ctx, x1), f2 = f(ctx, x2);
    for (int i = 0; i < iters && f1 >= stop && f2 >= stop; i++) {
        if (f1 < f2) {
            b = x2, x2 = x1, f2 = f1;
            x1 = b - k * (b - a);
            f1 = f(ctx, x1);
        } else {
            a = x1, x1 = x2, f1 = f2;
            x2 = a + k * (b - a);
            f2 = f(ctx, x2);
        }
    }
    real m = lminr(f1, f2);
    return m < stop ? m : lminr(m, lminr(f(ctx, 0), f(ctx, 1)));
}
static real golden_min(fn1 f, const void *ctx, int iters) { return golden_min_stop(f, ctx, iters, -1e30); }

// Minimum over a triangle of a convex function of the point: the slices at fixed s (parallel to
// b-c) are segments, and the minimum over a slice is convex in s.
typedef struct tri_min_ctx {
    sdf_fn f;
    const void *sh;
    lv3 a, ab, ac;
    real s;
} tri_min_ctx;
static real tri_inner(const void *ctx, real w) {
    const tri_min_ctx *c = ctx;
    return c->f(c->sh, lmad(lmad(c->a, c->ab, c->s * (1 - w)), c->ac, c->s * w));
}
static real tri_outer(const void *ctx, real s) {
    tri_min_ctx c = *(const tri_min_ctx *)ctx;
    c.s = s;
    return golden_min_stop(tri_inner, &c, 36, -2 * E);
}
static real min_over_triangle(sdf_fn f, const void *sh, const kyu_triangle *t) {
    tri_min_ctx c = {f, sh, lv(t->a), lsub(lv(t->b), lv(t->a)), lsub(lv(t->c), lv(t->a)), 0};
    return golden_min_stop(tri_outer, &c, 36, -2 * E);
}

// Boolean verdict from a gap (<= 0: touching): ambiguous within E.
static int gap_kind(real gap) { return fabs(gap) <= E ? AMBIGUOUS : gap <= 0 ? HIT : MISS; }

static bool check_bool(int i, int kind, bool got, real gap) {
    if (kind == AMBIGUOUS || got == (kind == HIT)) return true;
    printf("      case %d: oracle gap %.12g, got %d\n", i, gap, got);
    return false;
}

// ---- Segment and ray against triangle -----------------------------------------------------------

// The oracle for a line crossing the plane: bisection of the signed plane distance, then the
// crossing point's signed distances to the edge lines (all >= 0 inside).
typedef struct tri_oracle {
    int kind;
    real t, ttol;
    lv3 x;
} tri_oracle;

static real edge_margin(const kyu_triangle *tr, lv3 nh, lv3 x) {
    const lv3 v[3] = {lv(tr->a), lv(tr->b), lv(tr->c)};
    real m = 1e30;
    for (int i = 0; i < 3; i++) {
        lv3 e = lsub(v[(i + 1) % 3], v[i]);
        m = lminr(m, ldot(lcross(e, lsub(x, v[i])), nh) / llen(e));
    }
    return m;
}

static tri_oracle triangle_oracle(const kyu_triangle *tr, lv3 p, lv3 d, real tmax) {
    tri_oracle o = {AMBIGUOUS, 0, 0, {0, 0, 0}};
    lv3 a = lv(tr->a), n = lcross(lsub(lv(tr->b), a), lsub(lv(tr->c), a));
    real ln = llen(n);
    if (ln == 0) return (tri_oracle){MISS, 0, 0, {0, 0, 0}}; // no interior
    lv3 nh = lscale(n, 1 / ln);
    real g0 = ldot(lsub(p, a), nh), g1 = ldot(lsub(lmad(p, d, tmax), a), nh);
    real dn = fabs(ldot(d, nh)), dl = llen(d);
    if (fabs(g0) <= E || fabs(g1) <= E) return o; // an end on the plane: either answer
    if ((g0 > 0) == (g1 > 0)) return (tri_oracle){MISS, 0, 0, {0, 0, 0}};
    if (dn < 1e-3 * dl) return o; // near-parallel: tested separately
    real lo = 0, hi = tmax;
    for (int i = 0; i < 200 && lo < hi; i++) {
        real mid = (lo + hi) / 2;
        if ((ldot(lsub(lmad(p, d, mid), a), nh) > 0) == (g0 > 0))
            lo = mid;
        else
            hi = mid;
        if (mid == lo && mid == hi) break;
    }
    o.t = (lo + hi) / 2;
    o.x = lmad(p, d, o.t);
    real m = edge_margin(tr, nh, o.x);
    o.ttol = 1e-6 * (1 + o.t) + E / dn;
    if (fabs(m) <= E * (1 + dl / dn)) return o;
    o.kind = m >= 0 ? HIT : MISS;
    return o;
}

static bool check_tri(int i, tri_oracle o, const kyu_triangle *tr, bool hit, float t, float u, float v) {
    if (o.kind == AMBIGUOUS) return true;
    if (o.kind == MISS && !hit) return true;
    if (o.kind == HIT && hit && fabs(t - o.t) <= o.ttol && u >= -1e-6f && v >= -1e-6f && u + v <= 1 + 1e-6f &&
        llen(lsub(tri_point(tr, u, v), o.x)) <= 1e-5)
        return true;
    printf("      case %d: oracle %s t=%.12g, got hit=%d t=%.9g u=%.9g v=%.9g\n", i,
           o.kind == HIT ? "hit" : "miss", o.t, hit, t, u, v);
    print_v("a", tr->a), print_v("b", tr->b), print_v("c", tr->c);
    return false;
}

static void test_segment_triangle_matches_plane_bisection_oracle(void) {
    rng g = {101};
    tally k = {0};
    for (int i = 0; i < CASES; i++) {
        kyu_triangle tr = rnd_triangle(&g);
        // Aim through a point near the triangle (u, v a little outside [0, 1] too).
        lv3 x = tri_point(&tr, rnd_in(&g, -0.2, 1), rnd_in(&g, -0.2, 1));
        lv3 dir = rnd_dir(&g);
        real len = rnd_log(&g, 0.01, 4);
        real before = rnd_in(&g, -0.3, 1.3) * len;
        kyu_segment s = {f3(lmad(x, dir, -before)), f3(lmad(x, dir, len - before))};
        if (i % 50 == 0) s.b = s.a; // zero length
        tri_oracle o = triangle_oracle(&tr, lv(s.a), lsub(lv(s.b), lv(s.a)), 1);
        float t = -1, u = -1, v = -1;
        bool hit = kyu_segment_triangle(s, &tr, &t, &u, &v);
        tally_add(&k, o.kind);
        if (!check_tri(i, o, &tr, hit, t, u, v)) {
            print_v("s.a", s.a), print_v("s.b", s.b);
            ENSURE(0);
        }
    }
    ENSURE_TALLY(k, CASES);
}

static void test_ray_triangle_matches_plane_bisection_oracle(void) {
    rng g = {202};
    tally k = {0};
    for (int i = 0; i < CASES; i++) {
        kyu_triangle tr = rnd_triangle(&g);
        lv3 x = tri_point(&tr, rnd_in(&g, -0.2, 1), rnd_in(&g, -0.2, 1));
        lv3 dir = rnd_dir(&g);
        real scale = rnd_log(&g, 0.05, 20);
        vec3s o = f3(lmad(x, dir, -rnd_in(&g, -1, 4)));
        vec3s d = f3(lscale(dir, scale));
        // Far enough that any crossing of these bounded shapes comes before tmax.
        tri_oracle to = triangle_oracle(&tr, lv(o), lv(d), 40 / scale);
        float t = -1, u = -1, v = -1;
        bool hit = kyu_ray_triangle(o, d, &tr, &t, &u, &v);
        tally_add(&k, to.kind);
        if (!check_tri(i, to, &tr, hit, t, u, v)) {
            print_v("origin", o), print_v("dir", d);
            ENSURE(0);
        }
    }
    ENSURE_TALLY(k, CASES);
}

// Segments lying exactly in a triangle's plane (z = const, exact in float): the inside margin
// along the segment is concave, so ternary search finds whether it ever reaches 0 and bisection
// finds where it first does.
static real coplanar_margin(const kyu_triangle *tr, lv3 p, lv3 d, real t) {
    lv3 n = lcross(lsub(lv(tr->b), lv(tr->a)), lsub(lv(tr->c), lv(tr->a)));
    return edge_margin(tr, lnorm(n), lmad(p, d, t));
}

static real first_level(const kyu_triangle *tr, lv3 p, lv3 d, real level, real hi) {
    real lo = 0;
    for (int it = 0; it < 60; it++) {
        real mid = (lo + hi) / 2;
        if (coplanar_margin(tr, p, d, mid) < level)
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

static void test_coplanar_segments_hit_only_where_they_cross(void) {
    rng g = {303};
    tally k = {0};
    const int n = CASES;
    for (int i = 0; i < n; i++) {
        float z = (float)rnd_in(&g, -2, 2);
        lv3 c = {rnd_in(&g, -1, 1), rnd_in(&g, -1, 1), 0};
        real size = rnd_log(&g, 0.2, 2);
        lv3 pts[5];
        for (int j = 0; j < 5; j++) {
            real ang = rnd_in(&g, 0, 6.2831853), r = j < 3 ? size : 2 * size * rnd(&g);
            pts[j] = (lv3){c.x + r * cos(ang), c.y + r * sin(ang), 0};
        }
        kyu_triangle tr = {f3(pts[0]), f3(pts[1]), f3(pts[2])};
        kyu_segment s = {f3(pts[3]), f3(pts[4])};
        tr.a.z = tr.b.z = tr.c.z = s.a.z = s.b.z = z;
        if (i % 50 == 0) s.b = s.a;
        lv3 p = lv(s.a), d = lsub(lv(s.b), p);
        lv3 nn = lcross(lsub(lv(tr.b), lv(tr.a)), lsub(lv(tr.c), lv(tr.a)));
        int kind;
        real t0 = 0, t1 = 0;
        if (llen(nn) < 1e-4) {
            kind = AMBIGUOUS; // a sliver: no clear inside
        } else {
            // Ternary search of the concave margin for its maximum.
            real lo = 0, hi = 1;
            for (int it = 0; it < 60; it++) {
                real m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
                if (coplanar_margin(&tr, p, d, m1) < coplanar_margin(&tr, p, d, m2))
                    lo = m1;
                else
                    hi = m2;
            }
            real tbest = (lo + hi) / 2, mbest = coplanar_margin(&tr, p, d, tbest);
            real m0 = coplanar_margin(&tr, p, d, 0);
            if (m0 > mbest) tbest = 0, mbest = m0;
            kind = gap_kind(-mbest);
            if (kind == HIT) {
                if (fabs(m0) <= E)
                    kind = AMBIGUOUS;
                else if (m0 < 0) {
                    // Non-decreasing on [0, tbest]: where it first reaches -E and +E.
                    t0 = first_level(&tr, p, d, -E, tbest);
                    t1 = first_level(&tr, p, d, E, tbest);
                }
            }
        }
        float t = -1, u = -1, v = -1;
        bool hit = kyu_segment_triangle(s, &tr, &t, &u, &v);
        tally_add(&k, kind);
        if (kind == AMBIGUOUS) continue;
        bool ok = kind == MISS ? !hit
                               : hit && t >= t0 - 1e-6 && t <= t1 + 1e-6 &&
                                     llen(lsub(tri_point(&tr, u, v), lmad(p, d, t))) <= 1e-5;
        if (!ok) {
            printf("      case %d: oracle %s t=%.12g, got hit=%d t=%.9g u=%.9g v=%.9g\n", i,
                   kind == HIT ? "hit" : "miss", t0, hit, t, u, v);
            print_v("a", tr.a), print_v("b", tr.b), print_v("c", tr.c);
            print_v("s.a", s.a), print_v("s.b", s.b);
            ENSURE(0);
        }
    }
    ENSURE_TALLY(k, n);
}

static void test_triangle_degenerate_cases(void) {
    kyu_triangle tr = {v3(0, 0, 0), v3(1, 0, 0), v3(0, 1, 0)};
    float t = -1, u = -1, v = -1;
    // Crossing at the interior, at an edge (touching counts) and at a corner.
    ENSURE(kyu_segment_triangle((kyu_segment){v3(0.25f, 0.25f, 1), v3(0.25f, 0.25f, -1)}, &tr, &t, &u, &v));
    ENSURE_NEAR(t, 0.5, 1e-7);
    ENSURE_NEAR(u, 0.25, 1e-7);
    ENSURE_NEAR(v, 0.25, 1e-7);
    ENSURE(kyu_segment_triangle((kyu_segment){v3(0.5f, 0.5f, 1), v3(0.5f, 0.5f, -1)}, &tr, &t, &u, &v));
    ENSURE(kyu_segment_triangle((kyu_segment){v3(1, 0, 1), v3(1, 0, -1)}, &tr, &t, &u, &v));
    ENSURE(!kyu_segment_triangle((kyu_segment){v3(0.5f, 0.51f, 1), v3(0.5f, 0.51f, -1)}, &tr, &t, &u, &v));
    // Ending exactly on the triangle; stopping short of it; zero length on and off it.
    ENSURE(kyu_segment_triangle((kyu_segment){v3(0.2f, 0.2f, 1), v3(0.2f, 0.2f, 0)}, &tr, &t, &u, &v));
    ENSURE_NEAR(t, 1, 0);
    ENSURE(!kyu_segment_triangle((kyu_segment){v3(0.2f, 0.2f, 1), v3(0.2f, 0.2f, 0.001f)}, &tr, &t, &u, &v));
    ENSURE(kyu_segment_triangle((kyu_segment){v3(0.2f, 0.2f, 0), v3(0.2f, 0.2f, 0)}, &tr, &t, &u, &v));
    ENSURE_NEAR(t, 0, 0);
    ENSURE(
        !kyu_segment_triangle((kyu_segment){v3(0.2f, 0.2f, 1e-3f), v3(0.2f, 0.2f, 1e-3f)}, &tr, &t, &u, &v));
    ENSURE(kyu_ray_triangle(v3(0.2f, 0.3f, 0), v3(0, 0, 0), &tr, &t, &u, &v));
    ENSURE(!kyu_ray_triangle(v3(2, 2, 0), v3(0, 0, 0), &tr, &t, &u, &v));
    // Coplanar: the pitfall of a plain det != 0 test; in-plane segments that miss by far.
    ENSURE(!kyu_segment_triangle((kyu_segment){v3(5, 5, 0), v3(7, 3, 0)}, &tr, &t, &u, &v));
    ENSURE(!kyu_ray_triangle(v3(5, 5, 0), v3(1, 0, 0), &tr, &t, &u, &v));
    ENSURE(kyu_segment_triangle((kyu_segment){v3(-1, 0.25f, 0), v3(2, 0.25f, 0)}, &tr, &t, &u, &v));
    ENSURE_NEAR(t, 1.0 / 3.0, 1e-7);
    ENSURE_NEAR(u, 0, 1e-7);
    ENSURE_NEAR(v, 0.25, 1e-7);
    ENSURE(kyu_ray_triangle(v3(3, 0.25f, 0), v3(-2, 0, 0), &tr, &t, &u, &v));
    ENSURE_NEAR(t, 1.125, 1e-7);
    // Along an edge line, touching the corner only.
    ENSURE(kyu_segment_triangle((kyu_segment){v3(2, -1, 0), v3(1, 0, 0)}, &tr, &t, &u, &v));
    ENSURE_NEAR(t, 1, 1e-7);
    // Parallel just off the plane; behind the ray.
    ENSURE(!kyu_segment_triangle((kyu_segment){v3(-1, 0.25f, 1e-6f), v3(2, 0.25f, 1e-6f)}, &tr, &t, &u, &v));
    ENSURE(!kyu_ray_triangle(v3(0.2f, 0.2f, 1), v3(0, 0, 1), &tr, &t, &u, &v));
    ENSURE(kyu_ray_triangle(v3(0.2f, 0.2f, -1), v3(0, 0, 4), &tr, &t, &u, &v));
    ENSURE_NEAR(t, 0.25, 1e-7);
    // Degenerate triangles (collinear, repeated corners) have no interior.
    kyu_triangle line = {v3(0, 0, 0), v3(1, 0, 0), v3(2, 0, 0)};
    ENSURE(!kyu_segment_triangle((kyu_segment){v3(0.5f, 0, 1), v3(0.5f, 0, -1)}, &line, &t, &u, &v));
    kyu_triangle dot = {v3(1, 1, 1), v3(1, 1, 1), v3(1, 1, 1)};
    ENSURE(!kyu_ray_triangle(v3(1, 1, 0), v3(0, 0, 1), &dot, &t, &u, &v));
}

// ---- Spheres ------------------------------------------------------------------------------------

static void test_point_sphere_matches_distance(void) {
    rng g = {404};
    tally k = {0};
    for (int i = 0; i < CASES; i++) {
        vec3s c = rnd_near(&g, (lv3){0, 0, 0}, 3);
        float r = (float)rnd_log(&g, 0.1, 2);
        vec3s p = rnd_near(&g, lv(c), 1.4 * r);
        // Oracle: the distance along each axis, summed as a hypotenuse (hypotl, not a dot product).
        lv3 m = lsub(lv(p), lv(c));
        real gap = hypot(hypot(m.x, m.y), m.z) - r;
        int kind = gap_kind(gap);
        tally_add(&k, kind);
        ENSURE(check_bool(i, kind, kyu_test_point_sphere(p, c, r), gap));
    }
    ENSURE_TALLY(k, CASES);
    ENSURE(kyu_test_point_sphere(v3(3, 4, 0), v3(0, 0, 0), 5)); // on the surface
    ENSURE(!kyu_test_point_sphere(v3(3, 4, 0.001f), v3(0, 0, 0), 5));
}

static void test_segment_and_ray_sphere_match_sphere_tracing(void) {
    rng g = {505};
    tally ks = {0}, kr = {0};
    for (int i = 0; i < CASES; i++) {
        lsphere sp = {lv(rnd_near(&g, (lv3){0, 0, 0}, 3)), (float)rnd_log(&g, 0.05, 2)};
        line_case lc = rnd_line(&g, sp.c, sp.r);
        float t = -1;
        // As a ray.
        real tmax = (llen(lsub(lv(lc.p), sp.c)) + 2 * sp.r) / lmaxr(llen(lv(lc.d)), 1e-30);
        line_oracle o = solve_line(sdf_sphere, &sp, lv(lc.p), lv(lc.d), tmax);
        tally_add(&kr, o.kind);
        bool hit = kyu_ray_sphere(lc.p, lc.d, f3(sp.c), (float)sp.r, &t);
        if (o.kind != AMBIGUOUS && !check_line(i, o, hit, t)) ENSURE(0);
        // As a segment from p to p + d.
        kyu_segment s = {lc.p, f3(ladd(lv(lc.p), lv(lc.d)))};
        o = solve_line(sdf_sphere, &sp, lv(s.a), lsub(lv(s.b), lv(s.a)), 1);
        tally_add(&ks, o.kind);
        hit = kyu_segment_sphere(s, f3(sp.c), (float)sp.r, &t);
        if (o.kind != AMBIGUOUS && !check_line(i, o, hit, t)) ENSURE(0);
    }
    ENSURE_TALLY(kr, CASES);
    ENSURE_TALLY(ks, CASES);
}

static void test_sphere_degenerate_cases(void) {
    float t = -1;
    vec3s c = v3(0, 0, 0);
    ENSURE(kyu_ray_sphere(v3(-5, 1, 0), v3(1, 0, 0), c, 1, &t)); // grazing: touching counts
    ENSURE_NEAR(t, 5, 1e-6);
    ENSURE(!kyu_ray_sphere(v3(-5, 1.001f, 0), v3(1, 0, 0), c, 1, &t));
    ENSURE(kyu_ray_sphere(v3(0.5f, 0, 0), v3(1, 0, 0), c, 1, &t)); // inside, moving out
    ENSURE_NEAR(t, 0, 0);
    ENSURE(!kyu_ray_sphere(v3(2, 0, 0), v3(1, 0, 0), c, 1, &t)); // pointing away
    ENSURE(kyu_ray_sphere(v3(-3, 0, 0), v3(4, 0, 0), c, 1, &t));
    ENSURE_NEAR(t, 0.5, 1e-7);
    ENSURE(kyu_ray_sphere(v3(0.2f, 0.1f, 0), v3(0, 0, 0), c, 1, &t)); // zero dir inside
    ENSURE(!kyu_ray_sphere(v3(2, 0, 0), v3(0, 0, 0), c, 1, &t));
    ENSURE(kyu_segment_sphere((kyu_segment){v3(1, 0, 0), v3(1, 0, 0)}, c, 1, &t));       // on surface
    ENSURE(!kyu_segment_sphere((kyu_segment){v3(-3, 0, 0), v3(-1.5f, 0, 0)}, c, 1, &t)); // short
    ENSURE(kyu_segment_sphere((kyu_segment){v3(-3, 0, 0), v3(-1, 0, 0)}, c, 1, &t));     // ends on it
    ENSURE_NEAR(t, 1, 0);
    ENSURE(kyu_ray_sphere(v3(-3, 0, 0), v3(1, 0, 0), c, 0, &t)); // a point sphere
    ENSURE_NEAR(t, 3, 0);
}

// ---- Boxes --------------------------------------------------------------------------------------

static kyu_aabb rnd_aabb(rng *g) {
    lv3 c = rnd_ball(g, 2.5);
    lv3 e = {rnd_log(g, 0.05, 2), rnd_log(g, 0.05, 2), rnd_log(g, 0.05, 2)};
    if (rnd(g) < 0.05) e.y = 0; // flat boxes
    return (kyu_aabb){f3(lsub(c, e)), f3(ladd(c, e))};
}

static void test_point_aabb_and_aabb_aabb_match_interval_oracle(void) {
    rng g = {606};
    tally kp = {0}, kb = {0};
    for (int i = 0; i < CASES; i++) {
        kyu_aabb a = rnd_aabb(&g), b = rnd_aabb(&g);
        // Move b next to a: overlapping, touching or apart on each axis.
        for (int j = 0; j < 3; j++) {
            real ha = ((real)a.upper.raw[j] - a.lower.raw[j]) / 2,
                 hb = ((real)b.upper.raw[j] - b.lower.raw[j]) / 2;
            real c = ((real)a.lower.raw[j] + a.upper.raw[j]) / 2 + (ha + hb) * rnd_in(&g, -1.15, 1.15);
            b.lower.raw[j] = (float)(c - hb), b.upper.raw[j] = (float)(c + hb);
            if (i % 16 == j) b.lower.raw[j] = a.upper.raw[j], b.upper.raw[j] = a.upper.raw[j] + 1; // touching
        }
        lv3 mid = lscale(ladd(lv(a.lower), lv(a.upper)), 0.5),
            half = lscale(lsub(lv(a.upper), lv(a.lower)), 0.5);
        vec3s p = f3((lv3){mid.x + half.x * rnd_in(&g, -1.4, 1.4), mid.y + half.y * rnd_in(&g, -1.4, 1.4),
                           mid.z + half.z * rnd_in(&g, -1.4, 1.4)});
        if (i % 10 == 0) p.raw[i % 3] = a.upper.raw[i % 3]; // on a face plane exactly
        // Point: the largest per-axis excess from the centre over the half extent.
        real gap = -1e30;
        for (int j = 0; j < 3; j++) {
            real c = ((real)a.lower.raw[j] + a.upper.raw[j]) / 2,
                 e = ((real)a.upper.raw[j] - a.lower.raw[j]) / 2;
            gap = lmaxr(gap, fabs(p.raw[j] - c) - e);
        }
        int kind = gap < 0 || gap == 0 ? HIT : MISS; // exact: no rounding in these comparisons
        tally_add(&kp, kind);
        ENSURE(check_bool(i, kind, kyu_test_point_aabb(p, &a), gap));
        // Boxes: the overlap interval max(lower) .. min(upper) is non-empty on every axis.
        bool overlap = true;
        for (int j = 0; j < 3; j++)
            overlap =
                overlap && lmaxr(a.lower.raw[j], b.lower.raw[j]) <= lminr(a.upper.raw[j], b.upper.raw[j]);
        tally_add(&kb, overlap ? HIT : MISS);
        ENSURE(check_bool(i, overlap ? HIT : MISS, kyu_test_aabb_aabb(&a, &b), 0));
        ENSURE(kyu_test_aabb_aabb(&a, &b) == kyu_test_aabb_aabb(&b, &a));
    }
    ENSURE_TALLY(kp, CASES);
    ENSURE_TALLY(kb, CASES);
    kyu_aabb u = {v3(0, 0, 0), v3(1, 1, 1)}, w = {v3(1, 0.5f, 0.5f), v3(2, 2, 2)};
    ENSURE(kyu_test_aabb_aabb(&u, &w)); // touching faces
    w.lower.x = nextafterf(1, 2);
    ENSURE(!kyu_test_aabb_aabb(&u, &w));
    ENSURE(kyu_test_point_aabb(v3(1, 1, 1), &u));
    ENSURE(!kyu_test_point_aabb(v3(1, 1, nextafterf(1, 2)), &u));
}

// The face a surface point x lies on: the axis of largest excess; ambiguous near edges.
static bool face_normal(const lbox *b, lv3 x, lv3 *n) {
    lv3 m = lsub(x, b->c);
    real q[3];
    int best = 0;
    for (int i = 0; i < 3; i++) {
        q[i] = fabs(ldot(m, b->ax[i])) - b->e[i];
        if (q[i] > q[best]) best = i;
    }
    for (int i = 0; i < 3; i++)
        if (i != best && q[best] - q[i] < 1e-4) return false;
    *n = lscale(b->ax[best], ldot(m, b->ax[best]) > 0 ? 1 : -1);
    return true;
}

// Ray against a box (AABB or oriented): sphere tracing for t; the entry face for the normal.
static bool check_ray_box(int i, const lbox *lb, vec3s p, vec3s d, tally *k, bool hit, float t, vec3s n) {
    real tmax = (llen(lsub(lv(p), lb->c)) + 4 * (lb->e[0] + lb->e[1] + lb->e[2])) / lmaxr(llen(lv(d)), 1e-30);
    line_oracle o = solve_line(sdf_box, lb, lv(p), lv(d), tmax);
    tally_add(k, o.kind);
    if (o.kind == AMBIGUOUS) return true;
    if (!check_line(i, o, hit, t)) return false;
    if (!hit) return true;
    lv3 want;
    if (o.hi == 0) { // started inside
        if (n.x == 0 && n.y == 0 && n.z == 0) return true;
        printf("      case %d: inside, normal not zero\n", i);
        return false;
    }
    if (!face_normal(lb, lmad(lv(p), lv(d), t), &want)) return true;
    if (llen(lsub(lv(n), want)) <= 1e-5) return true;
    printf("      case %d: normal (%g %g %g), want (%g %g %g)\n", i, n.x, n.y, n.z, want.x, want.y, want.z);
    return false;
}

static void test_ray_aabb_matches_sphere_tracing(void) {
    rng g = {707};
    tally k = {0};
    for (int i = 0; i < CASES; i++) {
        kyu_aabb a = rnd_aabb(&g);
        lbox lb = {lscale(ladd(lv(a.lower), lv(a.upper)), 0.5), {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {0, 0, 0}};
        for (int j = 0; j < 3; j++) lb.e[j] = ((real)a.upper.raw[j] - a.lower.raw[j]) / 2;
        line_case lc = rnd_line(&g, lb.c, lb.e[0] + lb.e[1] + lb.e[2]);
        float t = -1;
        vec3s n = v3(9, 9, 9);
        bool hit = kyu_ray_aabb(lc.p, lc.d, &a, &t, &n);
        if (!check_ray_box(i, &lb, lc.p, lc.d, &k, hit, t, n)) {
            print_v("origin", lc.p), print_v("dir", lc.d);
            ENSURE(0);
        }
    }
    ENSURE_TALLY(k, CASES);
}

static void test_ray_box_matches_sphere_tracing(void) {
    rng g = {808};
    tally k = {0};
    for (int i = 0; i < CASES; i++) {
        lv3 axis = rnd_dir(&g);
        real ang = rnd_in(&g, 0, 3.14159265);
        versors q = glms_quatv((float)ang, f3(axis));
        lv3 e = {rnd_log(&g, 0.05, 2), rnd_log(&g, 0.05, 2), rnd_log(&g, 0.05, 2)};
        kyu_box box = kyu_box_make(rnd_near(&g, (lv3){0, 0, 0}, 2.5), q, f3(e));
        // The oracle uses the float rotation's columns, orthonormalised in double (the
        // routine inverts by the transpose, which differs by ~1e-7 of the size: within E).
        lbox lb = {lv(box.center),
                   {lv(box.rotation.col[0]), lv(box.rotation.col[1]), lv(box.rotation.col[2])},
                   {box.half_extents.x, box.half_extents.y, box.half_extents.z}};
        lb.ax[0] = lnorm(lb.ax[0]);
        lb.ax[1] = lnorm(lsub(lb.ax[1], lscale(lb.ax[0], ldot(lb.ax[0], lb.ax[1]))));
        lb.ax[2] = lcross(lb.ax[0], lb.ax[1]);
        line_case lc = rnd_line(&g, lb.c, lb.e[0] + lb.e[1] + lb.e[2]);
        float t = -1;
        vec3s n = v3(9, 9, 9);
        bool hit = kyu_ray_box(lc.p, lc.d, &box, &t, &n);
        if (!check_ray_box(i, &lb, lc.p, lc.d, &k, hit, t, n)) {
            print_v("origin", lc.p), print_v("dir", lc.d);
            ENSURE(0);
        }
    }
    ENSURE_TALLY(k, CASES);
}

static void test_ray_box_degenerate_cases(void) {
    kyu_aabb a = {v3(-1, -1, -1), v3(1, 1, 1)};
    float t = -1;
    vec3s n;
    ENSURE(kyu_ray_aabb(v3(-3, 0, 0), v3(2, 0, 0), &a, &t, &n));
    ENSURE_NEAR(t, 1, 0);
    ENSURE(n.x == -1 && n.y == 0 && n.z == 0);
    ENSURE(kyu_ray_aabb(v3(0, 0, 0), v3(1, 0, 0), &a, &t, &n)); // inside
    ENSURE(t == 0 && n.x == 0 && n.y == 0 && n.z == 0);
    ENSURE(kyu_ray_aabb(v3(0, 0, 0), v3(0, 0, 0), &a, &t, &n)); // zero dir inside
    ENSURE(!kyu_ray_aabb(v3(0, 3, 0), v3(0, 0, 0), &a, &t, &n));
    ENSURE(kyu_ray_aabb(v3(-3, 1, 0), v3(1, 0, 0), &a, &t, &n)); // sliding along a face
    ENSURE_NEAR(t, 2, 0);
    ENSURE(!kyu_ray_aabb(v3(-3, nextafterf(1, 2), 0), v3(1, 0, 0), &a, &t, &n));
    ENSURE(kyu_ray_aabb(v3(-2, -2, -2), v3(1, 1, 1), &a, &t, &n)); // through a corner
    ENSURE_NEAR(t, 1, 0);
    ENSURE(!kyu_ray_aabb(v3(-3, 0, 0), v3(-1, 0, 0), &a, &t, &n)); // box behind
    ENSURE(kyu_ray_aabb(v3(0, 1, 0), v3(0, -1, 0), &a, &t, &n));   // on a face, entering
    ENSURE(t == 0 && n.y == 1);
    kyu_box b = kyu_box_make(v3(5, 0, 0), glms_quatv(0.78539816f, v3(0, 0, 1)), v3(1, 1, 1));
    ENSURE(kyu_ray_box(v3(0, 0, 0), v3(1, 0, 0), &b, &t, &n)); // hits the rotated box's edge
    ENSURE_NEAR(t, 5 - sqrtf(2), 1e-5);
    ENSURE(kyu_ray_box(v3(5, -5, 0), v3(0, 1, 0), &b, &t, &n)); // the same edge from below
    ENSURE_NEAR(t, 5 - sqrtf(2), 1e-5);
    ENSURE(kyu_ray_box(v3(3, 3, 0), v3(1, -1, 0), &b, &t, &n)); // a face, head on
    ENSURE_NEAR(n.x, -sqrtf(0.5f), 1e-6);
    ENSURE_NEAR(n.y, sqrtf(0.5f), 1e-6);
}

// ---- Sphere against triangle --------------------------------------------------------------------

static void test_sphere_triangle_matches_minimised_distance(void) {
    rng g = {909};
    tally k = {0};
    for (int i = 0; i < CASES; i++) {
        kyu_triangle tr = rnd_triangle(&g);
        lsphere sp = {lv(rnd_near(&g, tri_point(&tr, rnd_in(&g, -0.5, 1), rnd_in(&g, -0.5, 1)), 1.5)),
                      (float)rnd_log(&g, 0.05, 1.5)};
        // |x - c| is convex on the triangle; its minimum against r.
        real gap = min_over_triangle(sdf_sphere, &sp, &tr);
        int kind = gap_kind(gap);
        tally_add(&k, kind);
        if (!check_bool(i, kind, kyu_test_sphere_triangle(f3(sp.c), (float)sp.r, &tr), gap)) {
            print_v("a", tr.a), print_v("b", tr.b), print_v("c", tr.c), print_v("centre", f3(sp.c));
            ENSURE(0);
        }
    }
    ENSURE_TALLY(k, CASES);
    // An obtuse triangle where a plain u, v range rule for the regions picks the wrong feature: the
    // centre is nearest the long edge a-b, but has u < 0 style coordinates of corner c's region.
    kyu_triangle ob = {v3(0, 0, 0), v3(10, 0, 0), v3(-4, 1, 0)};
    ENSURE(kyu_test_sphere_triangle(v3(5, -0.9f, 0), 1, &ob));
    ENSURE(!kyu_test_sphere_triangle(v3(5, -1.1f, 0), 1, &ob));
    ENSURE(kyu_test_sphere_triangle(v3(-5, 1, 0), 1, &ob)); // touching the far corner
    // Degenerate triangles: a segment and a point.
    kyu_triangle seg = {v3(0, 0, 0), v3(1, 0, 0), v3(2, 0, 0)}, pt = {v3(1, 1, 1), v3(1, 1, 1), v3(1, 1, 1)};
    ENSURE(kyu_test_sphere_triangle(v3(1.5f, 0.5f, 0), 0.5f, &seg));
    ENSURE(!kyu_test_sphere_triangle(v3(1.5f, 0.6f, 0), 0.5f, &seg));
    ENSURE(kyu_test_sphere_triangle(v3(1, 1, 2), 1, &pt));
    ENSURE(!kyu_test_sphere_triangle(v3(1, 1, 2.01f), 1, &pt));
    ENSURE(kyu_test_sphere_triangle(v3(0.2f, 0.1f, 0), 0, &ob)); // a point in the triangle
}

// ---- Cylinders ----------------------------------------------------------------------------------

static kyu_cylinder rnd_cylinder(rng *g) {
    lv3 c = rnd_ball(g, 2);
    lv3 h = lscale(rnd_dir(g), rnd_log(g, 0.02, 2));
    if (rnd(g) < 0.05) h = (lv3){0, rnd_log(g, 0.02, 2), 0}; // axis-aligned
    return (kyu_cylinder){f3(lsub(c, h)), f3(ladd(c, h)), (float)rnd_log(g, 0.02, 2)};
}
static lv3 cyl_centre(const kyu_cylinder *c) { return lscale(ladd(lv(c->a), lv(c->b)), 0.5); }
static real cyl_size(const kyu_cylinder *c) { return llen(lsub(lv(c->b), lv(c->a))) / 2 + c->radius; }

static void test_point_cylinder_matches_cross_product_oracle(void) {
    rng g = {1001};
    tally k = {0};
    for (int i = 0; i < CASES; i++) {
        kyu_cylinder cy = rnd_cylinder(&g);
        lv3 u = lsub(lv(cy.b), lv(cy.a));
        vec3s p = f3(ladd(lmad(lv(cy.a), u, rnd_in(&g, -0.2, 1.2)), rnd_ball(&g, 1.3 * cy.radius)));
        // Radial distance from |m x u| / |u|, axial from m.u / |u| (the routine subtracts the
        // projection instead).
        lv3 m = lsub(lv(p), lv(cy.a));
        real lu = llen(u), s = ldot(m, u) / lu;
        real gap = lmaxr(llen(lcross(m, u)) / lu - cy.radius, lmaxr(-s, s - lu));
        int kind = gap_kind(gap);
        tally_add(&k, kind);
        ENSURE(check_bool(i, kind, kyu_test_point_cylinder(p, &cy), gap));
    }
    ENSURE_TALLY(k, CASES);
}

static void test_ray_and_segment_cylinder_match_sphere_tracing(void) {
    rng g = {1102};
    tally kr = {0}, ks = {0};
    for (int i = 0; i < CASES; i++) {
        kyu_cylinder cy = rnd_cylinder(&g);
        laxis ax = mk_axis(cy.a, cy.b, cy.radius);
        line_case lc = rnd_line(&g, cyl_centre(&cy), cyl_size(&cy));
        float t = -1;
        real tmax =
            (llen(lsub(lv(lc.p), cyl_centre(&cy))) + 2 * cyl_size(&cy)) / lmaxr(llen(lv(lc.d)), 1e-30);
        line_oracle o = solve_line(sdf_cylinder, &ax, lv(lc.p), lv(lc.d), tmax);
        tally_add(&kr, o.kind);
        bool hit = kyu_ray_cylinder(lc.p, lc.d, &cy, &t);
        if (o.kind != AMBIGUOUS && !check_line(i, o, hit, t)) ENSURE(0);
        kyu_segment s = {lc.p, f3(ladd(lv(lc.p), lv(lc.d)))};
        o = solve_line(sdf_cylinder, &ax, lv(s.a), lsub(lv(s.b), lv(s.a)), 1);
        tally_add(&ks, o.kind);
        hit = kyu_segment_cylinder(s, &cy, &t);
        if (o.kind != AMBIGUOUS && !check_line(i, o, hit, t)) ENSURE(0);
    }
    ENSURE_TALLY(kr, CASES);
    ENSURE_TALLY(ks, CASES);
}

// Seed 001's construction: beside the caps the sphere meets the side; beyond a cap, the disc the
// sphere cuts from the cap's plane must reach the cap's disc.
static bool sphere_cylinder_seed(lv3 c, real r, const kyu_cylinder *cy) {
    lv3 a = lv(cy->a), u = lsub(lv(cy->b), a), v = lsub(c, a);
    real lu = llen(u), s = ldot(v, u) / lu;
    real rho = llen(lcross(v, u)) / lu;
    if (s >= 0 && s <= lu) return rho <= cy->radius + r;
    real off = s < 0 ? -s : s - lu;
    if (off > r) return false;
    return rho <= sqrt(r * r - off * off) + cy->radius;
}

static void test_sphere_cylinder_matches_cap_disc_oracle(void) {
    rng g = {1203};
    tally k = {0};
    for (int i = 0; i < CASES; i++) {
        kyu_cylinder cy = rnd_cylinder(&g);
        vec3s c = rnd_near(&g, cyl_centre(&cy), 2 * cyl_size(&cy));
        float r = (float)rnd_log(&g, 0.02, 1.5);
        // Ambiguous when the sphere grown and shrunk by E disagree.
        bool in = sphere_cylinder_seed(lv(c), r - E, &cy), out = !sphere_cylinder_seed(lv(c), r + E, &cy);
        int kind = in ? HIT : out ? MISS : AMBIGUOUS;
        real gap = in ? -1 : out ? 1 : 0;
        tally_add(&k, kind);
        ENSURE(check_bool(i, kind, kyu_test_sphere_cylinder(c, r, &cy), gap));
    }
    ENSURE_TALLY(k, CASES);
}

static void test_triangle_cylinder_matches_minimised_distance(void) {
    rng g = {1304};
    tally k = {0};
    for (int i = 0; i < CASES; i++) {
        kyu_cylinder cy = rnd_cylinder(&g);
        laxis ax = mk_axis(cy.a, cy.b, cy.radius);
        kyu_triangle tr = rnd_triangle(&g);
        // Move the triangle near the cylinder.
        lv3 shift = lsub(ladd(cyl_centre(&cy), rnd_ball(&g, 1.5 * cyl_size(&cy))), tri_point(&tr, 0.3, 0.3));
        tr = (kyu_triangle){f3(ladd(lv(tr.a), shift)), f3(ladd(lv(tr.b), shift)), f3(ladd(lv(tr.c), shift))};
        real gap = min_over_triangle(sdf_cylinder, &ax, &tr);
        int kind = gap_kind(gap);
        tally_add(&k, kind);
        if (!check_bool(i, kind, kyu_test_triangle_cylinder(&tr, &cy), gap)) {
            print_v("a", tr.a), print_v("b", tr.b), print_v("c", tr.c);
            print_v("cyl a", cy.a), print_v("cyl b", cy.b);
            printf("      radius %a\n", cy.radius);
            ENSURE(0);
        }
    }
    ENSURE_TALLY(k, CASES);
}

// The plane meets the cylinder when the signed distance over its two rims changes sign: sampled
// on 24 angles, then refined by golden-section search within 0.3 rad of the best sample (the
// extreme of a sinusoid is within 0.14 rad of it, and the sinusoid is unimodal there).
typedef struct rim_ctx {
    lv3 c, e1, e2, n;
    real r, off, sign, phi0;
} rim_ctx;
static real rim_f(const void *ctx, real s) {
    const rim_ctx *k = ctx;
    real phi = k->phi0 + (s - 0.5) * 0.6;
    lv3 x = lmad(lmad(k->c, k->e1, k->r * cos(phi)), k->e2, k->r * sin(phi));
    return k->sign * (ldot(x, k->n) - k->off);
}
static void test_plane_cylinder_matches_sampled_rims(void) {
    rng g = {1405};
    tally k = {0};
    for (int i = 0; i < CASES; i++) {
        kyu_cylinder cy = rnd_cylinder(&g);
        lv3 n = lscale(rnd_dir(&g), rnd_log(&g, 0.2, 5));
        if (i % 20 == 0) n = lv(f3(lnorm(lsub(lv(cy.b), lv(cy.a))))); // parallel to the caps
        vec3s nf = f3(n);
        n = lv(nf);
        real ln = llen(n);
        float off = (float)(ldot(n, cyl_centre(&cy)) + rnd_in(&g, -1.3, 1.3) * cyl_size(&cy) * ln);
        lv3 w = lnorm(lsub(lv(cy.b), lv(cy.a)));
        lv3 e1 = lnorm(lcross(w, fabs(w.x) < 0.6 ? (lv3){1, 0, 0} : (lv3){0, 1, 0})), e2 = lcross(w, e1);
        real lo = 1e30, hi = -1e30;
        for (int cap = 0; cap < 2; cap++) {
            rim_ctx rc = {lv(cap ? cy.b : cy.a), e1, e2, lscale(n, 1 / ln), cy.radius, off / ln, 1, 0};
            for (int sgn = -1; sgn <= 1; sgn += 2) {
                rc.sign = sgn;
                real best = 1e30, bphi = 0;
                for (int j = 0; j < 24; j++) {
                    rc.phi0 = j * (6.283185307179586 / 24);
                    real f = rim_f(&rc, 0.5);
                    if (f < best) best = f, bphi = rc.phi0;
                }
                rc.phi0 = bphi;
                real m = golden_min(rim_f, &rc, 50) * sgn;
                lo = lminr(lo, m), hi = lmaxr(hi, m);
            }
        }
        int kind = fabs(lo) <= E || fabs(hi) <= E ? AMBIGUOUS : lo < 0 && hi > 0 ? HIT : MISS;
        tally_add(&k, kind);
        ENSURE(check_bool(i, kind, kyu_test_plane_cylinder(nf, off, &cy), lo));
    }
    ENSURE_TALLY(k, CASES);
}

static void test_cylinder_degenerate_cases(void) {
    kyu_cylinder cy = {v3(0, 0, 0), v3(0, 2, 0), 1};
    float t = -1;
    ENSURE(kyu_ray_cylinder(v3(0, 5, 0), v3(0, -1, 0), &cy, &t)); // along the axis: the cap
    ENSURE_NEAR(t, 3, 0);
    ENSURE(kyu_ray_cylinder(v3(1, 5, 0), v3(0, -1, 0), &cy, &t)); // along the side line
    ENSURE_NEAR(t, 3, 0);
    ENSURE(!kyu_ray_cylinder(v3(1.001f, 5, 0), v3(0, -1, 0), &cy, &t));
    ENSURE(kyu_ray_cylinder(v3(-5, 1, 1), v3(1, 0, 0), &cy, &t)); // tangent to the side
    ENSURE_NEAR(t, 5, 1e-6);
    ENSURE(kyu_ray_cylinder(v3(-5, 1, 0), v3(1, 0, 0), &cy, &t));
    ENSURE_NEAR(t, 4, 1e-6);
    ENSURE(kyu_ray_cylinder(v3(0.5f, 1, 0), v3(1, 0, 0), &cy, &t)); // inside
    ENSURE(t == 0);
    ENSURE(!kyu_ray_cylinder(v3(0, 3, 0), v3(0, 0, 0), &cy, &t));
    ENSURE(kyu_segment_cylinder((kyu_segment){v3(0, 1, 0), v3(0, 1, 0)}, &cy, &t));
    ENSURE(!kyu_segment_cylinder((kyu_segment){v3(-5, 1, 0), v3(-1.5f, 1, 0)}, &cy, &t));
    ENSURE(kyu_segment_cylinder((kyu_segment){v3(-5, 1, 0), v3(-1, 1, 0)}, &cy, &t));
    ENSURE_NEAR(t, 1, 0);
    ENSURE(kyu_test_point_cylinder(v3(1, 2, 0), &cy)); // on the rim
    ENSURE(!kyu_test_point_cylinder(v3(0, -0.001f, 0), &cy));
    // Sphere against the rim at 45 degrees; against the cap.
    ENSURE(kyu_test_sphere_cylinder(v3(1.7f, 2.7f, 0), 1, &cy));
    ENSURE(!kyu_test_sphere_cylinder(v3(1.75f, 2.75f, 0), 1, &cy));
    ENSURE(kyu_test_sphere_cylinder(v3(0.5f, 3, 0), 1, &cy));
    // Triangles: a big one cutting through the middle (no corner or edge near the axis); one
    // along the axis; one beyond the cap.
    kyu_triangle big = {v3(-50, 1, -50), v3(50, 1, -50), v3(0, 1, 80)};
    ENSURE(kyu_test_triangle_cylinder(&big, &cy));
    kyu_triangle along = {v3(0.5f, -1, 0), v3(0.5f, 3, 0), v3(0.5f, 1, 0.2f)};
    ENSURE(kyu_test_triangle_cylinder(&along, &cy));
    kyu_triangle beyond = {v3(-50, 2.01f, -50), v3(50, 2.01f, -50), v3(0, 2.01f, 80)};
    ENSURE(!kyu_test_triangle_cylinder(&beyond, &cy));
    kyu_triangle on_cap = {v3(-50, 2, -50), v3(50, 2, -50), v3(0, 2, 80)};
    ENSURE(kyu_test_triangle_cylinder(&on_cap, &cy));
    kyu_triangle beside = {v3(1.01f, -1, 0), v3(1.01f, 3, 0), v3(1.01f, 1, 0.2f)};
    ENSURE(!kyu_test_triangle_cylinder(&beside, &cy));
    // Planes: tangent to the side, touching a cap, just beyond.
    ENSURE(kyu_test_plane_cylinder(v3(1, 0, 0), 1, &cy));
    ENSURE(!kyu_test_plane_cylinder(v3(1, 0, 0), 1.001f, &cy));
    ENSURE(kyu_test_plane_cylinder(v3(0, 2, 0), 4, &cy)); // n not unit
    ENSURE(!kyu_test_plane_cylinder(v3(0, 2, 0), 4.01f, &cy));
    // A cylinder with a == b has no axis and is empty.
    kyu_cylinder flat = {v3(0, 0, 0), v3(0, 0, 0), 1};
    ENSURE(!kyu_test_point_cylinder(v3(0, 0, 0), &flat));
    ENSURE(!kyu_ray_cylinder(v3(-2, 0, 0), v3(1, 0, 0), &flat, &t));
}

// ---- Capsules -----------------------------------------------------------------------------------

static kyu_capsule rnd_capsule(rng *g) {
    kyu_cylinder c = rnd_cylinder(g);
    if (rnd(g) < 0.03) c.b = c.a; // a sphere
    return (kyu_capsule){c.a, c.b, c.radius};
}

typedef struct seg_ctx {
    lv3 a, ab, c;
} seg_ctx;
static real seg_dist(const void *ctx, real s) {
    const seg_ctx *k = ctx;
    return llen(lsub(lmad(k->a, k->ab, s), k->c));
}

static void test_sphere_capsule_matches_minimised_distance(void) {
    rng g = {1506};
    tally k = {0};
    for (int i = 0; i < CASES; i++) {
        kyu_capsule cp = rnd_capsule(&g);
        lv3 mid = lscale(ladd(lv(cp.a), lv(cp.b)), 0.5);
        vec3s c = rnd_near(&g, mid, 2 * (llen(lsub(lv(cp.b), lv(cp.a))) / 2 + cp.radius));
        float r = (float)rnd_log(&g, 0.02, 1.5);
        seg_ctx sc = {lv(cp.a), lsub(lv(cp.b), lv(cp.a)), lv(c)};
        real gap = golden_min(seg_dist, &sc, 70) - cp.radius - r;
        int kind = gap_kind(gap);
        tally_add(&k, kind);
        ENSURE(check_bool(i, kind, kyu_test_sphere_capsule(c, r, &cp), gap));
    }
    ENSURE_TALLY(k, CASES);
}

static void test_triangle_capsule_matches_minimised_distance(void) {
    rng g = {1607};
    tally k = {0};
    for (int i = 0; i < CASES; i++) {
        kyu_capsule cp = rnd_capsule(&g);
        laxis ax = mk_axis(cp.a, cp.b, cp.radius);
        kyu_triangle tr = rnd_triangle(&g);
        lv3 mid = lscale(ladd(lv(cp.a), lv(cp.b)), 0.5);
        real size = ax.len / 2 + cp.radius;
        lv3 shift = lsub(ladd(mid, rnd_ball(&g, 1.5 * size)), tri_point(&tr, 0.3, 0.3));
        tr = (kyu_triangle){f3(ladd(lv(tr.a), shift)), f3(ladd(lv(tr.b), shift)), f3(ladd(lv(tr.c), shift))};
        real gap = min_over_triangle(sdf_capsule, &ax, &tr);
        int kind = gap_kind(gap);
        tally_add(&k, kind);
        if (!check_bool(i, kind, kyu_test_triangle_capsule(&tr, &cp), gap)) {
            print_v("a", tr.a), print_v("b", tr.b), print_v("c", tr.c);
            print_v("cap a", cp.a), print_v("cap b", cp.b);
            ENSURE(0);
        }
    }
    ENSURE_TALLY(k, CASES);
}

static void test_ray_capsule_matches_sphere_tracing(void) {
    rng g = {1708};
    tally k = {0};
    for (int i = 0; i < CASES; i++) {
        kyu_capsule cp = rnd_capsule(&g);
        laxis ax = mk_axis(cp.a, cp.b, cp.radius);
        lv3 mid = lscale(ladd(lv(cp.a), lv(cp.b)), 0.5);
        real size = ax.len / 2 + cp.radius;
        line_case lc = rnd_line(&g, mid, size);
        real tmax = (llen(lsub(lv(lc.p), mid)) + 2 * size) / lmaxr(llen(lv(lc.d)), 1e-30);
        line_oracle o = solve_line(sdf_capsule, &ax, lv(lc.p), lv(lc.d), tmax);
        tally_add(&k, o.kind);
        float t = -1;
        bool hit = kyu_ray_capsule(lc.p, lc.d, &cp, &t);
        if (o.kind != AMBIGUOUS && !check_line(i, o, hit, t)) ENSURE(0);
    }
    ENSURE_TALLY(k, CASES);
}

static void test_capsule_degenerate_cases(void) {
    kyu_capsule cp = {v3(0, 0, 0), v3(0, 2, 0), 1};
    float t = -1;
    ENSURE(kyu_ray_capsule(v3(0, 5, 0), v3(0, -1, 0), &cp, &t)); // the end sphere
    ENSURE_NEAR(t, 2, 0);
    ENSURE(kyu_ray_capsule(v3(-5, 1, 0), v3(1, 0, 0), &cp, &t)); // the side
    ENSURE_NEAR(t, 4, 1e-6);
    ENSURE(kyu_ray_capsule(v3(-5, 1, 1), v3(1, 0, 0), &cp, &t));   // tangent
    ENSURE(kyu_ray_capsule(v3(0, 2.5f, 0), v3(1, 0, 0), &cp, &t)); // inside
    ENSURE(t == 0);
    ENSURE(kyu_ray_capsule(v3(0, 2.5f, 0), v3(0, 0, 0), &cp, &t));
    ENSURE(!kyu_ray_capsule(v3(0, 3.5f, 0), v3(0, 0, 0), &cp, &t));
    kyu_capsule ball = {v3(1, 1, 1), v3(1, 1, 1), 1};
    ENSURE(kyu_ray_capsule(v3(1, 1, -2), v3(0, 0, 1), &ball, &t));
    ENSURE_NEAR(t, 2, 1e-6);
    ENSURE(kyu_test_sphere_capsule(v3(3, 1, 1), 1, &ball));
    ENSURE(!kyu_test_sphere_capsule(v3(3.01f, 1, 1), 1, &ball));
    ENSURE(kyu_test_sphere_capsule(v3(2, 1, 0), 1, &cp)); // beside the axis, touching
    // Triangles: parallel to the axis just touching; crossed by the axis with corners far away;
    // degenerate.
    kyu_triangle par = {v3(1, -5, -5), v3(1, 5, -5), v3(1, 0, 5)};
    ENSURE(kyu_test_triangle_capsule(&par, &cp));
    par.a.x = par.b.x = par.c.x = 1.001f;
    ENSURE(!kyu_test_triangle_capsule(&par, &cp));
    kyu_capsule thin = {v3(0, -1, 0), v3(0, 1, 0), 0};
    kyu_triangle cross = {v3(-5, 0, -5), v3(5, 0, -5), v3(0, 0, 5)};
    ENSURE(kyu_test_triangle_capsule(&cross, &thin));
    kyu_triangle seg = {v3(-1, 3, 0), v3(1, 3, 0), v3(0, 3, 0)};
    ENSURE(kyu_test_triangle_capsule(&seg, &cp));
    seg.a.y = seg.b.y = seg.c.y = 3.01f;
    ENSURE(!kyu_test_triangle_capsule(&seg, &cp));
}

// ---- Cones --------------------------------------------------------------------------------------

// Distance from c to the solid cone: the slice at height z is a disc of radius z tan(angle), and
// the distance to it is convex in z.
typedef struct cone_ctx {
    lv3 apex, w, c;
    real h, tana;
} cone_ctx;
static real cone_slice(const void *ctx, real s) {
    const cone_ctx *k = ctx;
    real z = s * k->h;
    lv3 m = lsub(k->c, k->apex);
    real zc = ldot(m, k->w), rho = llen(lcross(m, k->w));
    real dr = lmaxr(rho - z * k->tana, 0);
    return sqrt((zc - z) * (zc - z) + dr * dr);
}

static void test_sphere_cone_matches_minimised_distance(void) {
    rng g = {1809};
    tally k = {0};
    for (int i = 0; i < CASES; i++) {
        kyu_cone cn = {rnd_near(&g, (lv3){0, 0, 0}, 2), f3(rnd_dir(&g)), (float)rnd_log(&g, 0.05, 3),
                       (float)rnd_in(&g, 0.05, 1.5)};
        lv3 w = lnorm(lv(cn.axis));
        lv3 mid = lmad(lv(cn.apex), w, cn.height / 2);
        real size = cn.height * (1 + tan(cn.half_angle));
        vec3s c = rnd_near(&g, mid, 1.5 * size);
        float r = (float)rnd_log(&g, 0.02, 1.5);
        cone_ctx cc = {lv(cn.apex), w, lv(c), cn.height, tan(cn.half_angle)};
        real gap = golden_min(cone_slice, &cc, 70) - r;
        int kind = gap_kind(gap);
        tally_add(&k, kind);
        if (!check_bool(i, kind, kyu_test_sphere_cone(c, r, &cn), gap)) {
            print_v("apex", cn.apex), print_v("axis", cn.axis), print_v("centre", c);
            printf("      h %a angle %a r %a\n", cn.height, cn.half_angle, r);
            ENSURE(0);
        }
    }
    ENSURE_TALLY(k, CASES);
    kyu_cone cn = {v3(0, 0, 0), v3(0, 1, 0), 2, 0.78539816f}; // 45 degrees: base radius 2
    ENSURE(kyu_test_sphere_cone(v3(0, -1, 0), 1, &cn));       // touching the apex
    ENSURE(!kyu_test_sphere_cone(v3(0, -1.01f, 0), 1, &cn));
    ENSURE(kyu_test_sphere_cone(v3(0, 1, 0), 0, &cn)); // a point inside
    ENSURE(kyu_test_sphere_cone(v3(0, 3, 0), 1, &cn)); // touching the base
    ENSURE(!kyu_test_sphere_cone(v3(0, 3.01f, 0), 1, &cn));
    ENSURE(kyu_test_sphere_cone(v3(2, 0, 0), sqrtf(2) + 1e-6f, &cn)); // touching the side
    ENSURE(!kyu_test_sphere_cone(v3(2, 0, 0), sqrtf(2) - 1e-3f, &cn));
    ENSURE(kyu_test_sphere_cone(v3(3, 3, 0), sqrtf(2) + 1e-6f, &cn)); // touching the rim
    ENSURE(!kyu_test_sphere_cone(v3(3, 3, 0), sqrtf(2) - 1e-3f, &cn));
    ENSURE(!kyu_test_sphere_cone(v3(0, -0.5f, 0), 0.4f, &cn)); // behind the apex, on the axis
    kyu_cone flat = {v3(0, 0, 0), v3(0, 1, 0), 0, 0.5f};       // zero height: the apex alone
    ENSURE(kyu_test_sphere_cone(v3(0, -1, 0), 1, &flat));
    ENSURE(!kyu_test_sphere_cone(v3(0, -2, 0), 1, &flat));
    ENSURE(!kyu_test_sphere_cone(v3(0.5f, 0.5f, 0), 0.5f, &flat));
}

void suite_intersect(void) {
    RUN_TEST(test_segment_triangle_matches_plane_bisection_oracle);
    RUN_TEST(test_ray_triangle_matches_plane_bisection_oracle);
    RUN_TEST(test_coplanar_segments_hit_only_where_they_cross);
    RUN_TEST(test_triangle_degenerate_cases);
    RUN_TEST(test_point_sphere_matches_distance);
    RUN_TEST(test_segment_and_ray_sphere_match_sphere_tracing);
    RUN_TEST(test_sphere_degenerate_cases);
    RUN_TEST(test_point_aabb_and_aabb_aabb_match_interval_oracle);
    RUN_TEST(test_ray_aabb_matches_sphere_tracing);
    RUN_TEST(test_ray_box_matches_sphere_tracing);
    RUN_TEST(test_ray_box_degenerate_cases);
    RUN_TEST(test_sphere_triangle_matches_minimised_distance);
    RUN_TEST(test_point_cylinder_matches_cross_product_oracle);
    RUN_TEST(test_ray_and_segment_cylinder_match_sphere_tracing);
    RUN_TEST(test_sphere_cylinder_matches_cap_disc_oracle);
    RUN_TEST(test_triangle_cylinder_matches_minimised_distance);
    RUN_TEST(test_plane_cylinder_matches_sampled_rims);
    RUN_TEST(test_cylinder_degenerate_cases);
    RUN_TEST(test_sphere_capsule_matches_minimised_distance);
    RUN_TEST(test_triangle_capsule_matches_minimised_distance);
    RUN_TEST(test_ray_capsule_matches_sphere_tracing);
    RUN_TEST(test_capsule_degenerate_cases);
    RUN_TEST(test_sphere_cone_matches_minimised_distance);
}
