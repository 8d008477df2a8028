// SPDX-License-Identifier: MIT
// Tests of the sphere sweeps against capsules, cylinders and triangles (include/kyu/sweeps.h).
//
// The oracle is independent of the routines: it never solves a quadratic. It takes the exact
// distance, in long double, from the centre's relative path to the shape's core (segment, solid
// cylinder, triangle), computed as the minimum over the shape's features (the core's surface points
// that could be closest: corners, feet on edges, sides and faces), not by Voronoi regions or
// clamping as the routines do. It samples that distance densely along t and refines the first
// sample at or below the contact distance by bisection; a golden-section search for the minimum
// (the distance to a convex set is convex along a line) catches grazes between samples.
//
// Conditioning, as in test_geometry.c: the routines must round their first operations on the
// inputs, so the oracle also solves each case at the contact distance -+ e (a few float rounding
// units of the lengths involved). Cases where the three answers differ in kind, and grazes whose
// minimum distance is within 1e-4 (relative) of the contact distance, are undecidable: they are
// counted and skipped, and each random test ENSUREs that fewer than 1% of its cases are skipped.
// Random cases come from a fixed-seed LCG and a failure prints the case in hex floats.
#include <kyu/geometry.h>

#include "oracle.h"

#define AMBIG_K      8
#define RANDOM_CASES 10000
#define SAMPLES      16

// ---- Small helpers ------------------------------------------------------------------------------

static bool unit3(vec3s v) { return finite3(v) && fabsl(llen(lv(v)) - 1) <= 1e-5L; }
static bool hit_is_finite(kyu_hit h) { return isfinite(h.t) && finite3(h.point) && finite3(h.normal); }
static lv3 rnd_world(rng *g) { return rnd_world_upto(g, 1000); }

// ---- Shapes as the oracle sees them -------------------------------------------------------------

enum { CAPSULE, CYLINDER, TRIANGLE };
static const char *const shape_names[3] = {"capsule", "cylinder", "triangle"};

typedef struct shape {
    int kind;
    vec3s a, b, c; // capsule and cylinder: a-b; triangle: a, b, c
    float radius;  // capsule and cylinder
} shape;

// Which kind of feature gave the last nearest point: 0 a corner, capsule end or cylinder rim; 1 the
// foot on an edge, capsule axis or cylinder side; 2 a triangle's face or a cylinder's cap. Only for
// counting which features the random cases hit.
static int core_feature;

// Keep the candidate q if it is nearer to p than *best.
static void consider_tagged(lv3 p, lv3 q, int feature, lv3 *best, real *best_d2) {
    real d2 = ldot(lsub(p, q), lsub(p, q));
    if (d2 < *best_d2) *best_d2 = d2, *best = q, core_feature = feature;
}
static void consider(lv3 p, lv3 q, lv3 *best, real *best_d2) { consider_tagged(p, q, 0, best, best_d2); }

// Closest point of a segment as the nearest of its end points and, when it falls inside, the foot
// of the perpendicular on its line.
static void segment_candidates(lv3 p, lv3 a, lv3 b, lv3 *best, real *best_d2) {
    consider(p, a, best, best_d2);
    consider(p, b, best, best_d2);
    lv3 ab = lsub(b, a);
    real len2 = ldot(ab, ab);
    if (len2 == 0) return;
    real s = ldot(lsub(p, a), ab) / len2;
    if (s > 0 && s < 1) consider_tagged(p, ladd(a, lscale(ab, s)), 1, best, best_d2);
}

// Distance from p to the shape's core (negative inside a solid cylinder: the depth to its
// surface), with the nearest core point q. Every feature offers its candidates; the nearest wins.
static real core_distance(const shape *s, lv3 p, lv3 *q) {
    lv3 a = lv(s->a), b = lv(s->b), best = a;
    real best_d2 = INFINITY;
    if (s->kind == CAPSULE) {
        segment_candidates(p, a, b, &best, &best_d2);
    } else if (s->kind == TRIANGLE) {
        lv3 c = lv(s->c);
        segment_candidates(p, a, b, &best, &best_d2);
        segment_candidates(p, b, c, &best, &best_d2);
        segment_candidates(p, c, a, &best, &best_d2);
        // The foot on the plane, if its barycentric coordinates (from the 2x2 normal equations of
        // p - a = u (b - a) + v (c - a) in the plane) are all positive.
        lv3 e1 = lsub(b, a), e2 = lsub(c, a), ap = lsub(p, a);
        real m11 = ldot(e1, e1), m12 = ldot(e1, e2), m22 = ldot(e2, e2);
        real det = m11 * m22 - m12 * m12;
        // The solve loses about 1e-19 m11 m22 / det: trust it only for a triangle with an angle
        // well away from 0 (the generator's are beyond 0.01 rad, or exactly degenerate).
        if (det > 1e-12L * m11 * m22) {
            real r1 = ldot(ap, e1), r2 = ldot(ap, e2);
            real u = (r1 * m22 - r2 * m12) / det, v = (r2 * m11 - r1 * m12) / det;
            if (u > 0 && v > 0 && u + v < 1)
                consider_tagged(p, ladd(a, ladd(lscale(e1, u), lscale(e2, v))), 2, &best, &best_d2);
        }
    } else {
        lv3 ab = lsub(b, a), axis = lnorm(ab);
        real len = llen(ab), rho = s->radius, h = ldot(lsub(p, a), axis);
        lv3 w = lsub(lsub(p, a), lscale(axis, h));
        real wl = llen(w);
        // On the axis every rim point is equally near: any radial direction will do.
        lv3 any = lcross(axis, fabsl(axis.x) < 0.9L ? (lv3){1, 0, 0} : (lv3){0, 1, 0});
        lv3 radial = wl > 0 ? lscale(w, 1 / wl) : lnorm(any);
        // Rim points, the side's foot, and the caps' feet: all on the surface.
        consider(p, ladd(a, lscale(radial, rho)), &best, &best_d2);
        consider(p, ladd(b, lscale(radial, rho)), &best, &best_d2);
        if (h >= 0 && h <= len)
            consider_tagged(p, ladd(a, ladd(lscale(axis, h), lscale(radial, rho))), 1, &best, &best_d2);
        if (wl <= rho) {
            consider_tagged(p, ladd(a, w), 2, &best, &best_d2);
            consider_tagged(p, ladd(b, w), 2, &best, &best_d2);
        }
        *q = best;
        bool inside = h >= 0 && h <= len && wl <= rho;
        return inside ? -sqrtl(best_d2) : sqrtl(best_d2);
    }
    *q = best;
    return sqrtl(best_d2);
}

// The shape's own surface thickness over its core: a capsule's radius.
static real shape_skin(const shape *s) { return s->kind == CAPSULE ? s->radius : 0; }

static real shape_size(const shape *s) {
    real size = ldist(s->a, lv(s->b)) + fabsl((real)s->radius);
    if (s->kind == TRIANGLE) size += ldist(s->a, lv(s->c));
    return size;
}

static kyu_hit sweep(const shape *s, vec3s c0, vec3s d, float r, vec3s sd) {
    if (s->kind == CAPSULE) {
        kyu_capsule k = {s->a, s->b, s->radius};
        return kyu_sweep_sphere_capsule(c0, d, r, &k, sd);
    }
    if (s->kind == CYLINDER) {
        kyu_cylinder k = {s->a, s->b, s->radius};
        return kyu_sweep_sphere_cylinder(c0, d, r, &k, sd);
    }
    kyu_triangle k = {s->a, s->b, s->c};
    return kyu_sweep_sphere_triangle(c0, d, r, &k, sd);
}

// ---- The path oracle ----------------------------------------------------------------------------

// What the oracle expects. START_EITHER: overlapping with the distance neither clearly growing nor
// clearly shrinking (the motion within rounding of tangent): either answer, with start_overlap.
enum { NO_HIT, HIT, START_HIT, START_APART, START_EITHER };
typedef struct toi {
    int kind;
    real t;
} toi;

typedef struct scase {
    shape s;
    vec3s c0, d, sd;
    float r;
} scase;

typedef struct oracle {
    lv3 p0, v;           // the centre relative to the shape at t = 0, and its motion
    real R, e;           // contact distance to the core, and its rounding
    real g[SAMPLES + 1]; // the distance at t = k / SAMPLES
    real slope;          // d distance / dt at t = 0+
    real t_min, f_min;   // the minimum distance over [0, 1]
    toi exact;
    bool ambiguous, graze;
    real tol; // on t, for a hit
} oracle;

static real path_gap(const scase *k, const oracle *o, real t) {
    lv3 q;
    return core_distance(&k->s, ladd(o->p0, lscale(o->v, t)), &q);
}

// First t in [lo, hi] with gap <= R, given gap(lo) > R >= gap(hi).
static real path_first(const scase *k, const oracle *o, real R, real lo, real hi) {
    for (int i = 0; i < 50; i++) { // to 1e-15 of the sweep
        real mid = (lo + hi) / 2;
        if (path_gap(k, o, mid) <= R)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

// The oracle's answer at contact distance R; the time of a hit is refined only when want_t.
static toi path_toi(const scase *k, const oracle *o, real R, bool want_t) {
    if (o->g[0] <= R) {
        real grow = 1e-6L * llen(o->v);
        int kind = o->slope > grow ? START_APART : o->slope < -grow ? START_HIT : START_EITHER;
        return (toi){kind, 0};
    }
    for (int i = 1; i <= SAMPLES; i++)
        if (o->g[i] <= R)
            return (toi){HIT, want_t ? path_first(k, o, R, (real)(i - 1) / SAMPLES, (real)i / SAMPLES) : 0};
    // Between samples only a graze can dip to R: the minimum says whether it does.
    if (o->f_min <= R) return (toi){HIT, want_t ? path_first(k, o, R, 0, o->t_min) : 0};
    return (toi){NO_HIT, 0};
}

static void solve(const scase *k, oracle *o) {
    o->v = lsub(lv(k->d), lv(k->sd));
    // The centre's path relative to the shape's motion (the shape stays at its t = 0 place), from
    // the float inputs' exact values.
    o->p0 = lv(k->c0);
    o->R = shape_skin(&k->s) + k->r;
    lv3 base = lv(k->s.a);
    o->e = AMBIG_K * U * (llen(lsub(o->p0, base)) + llen(o->v) + shape_size(&k->s) + o->R);
    for (int i = 0; i <= SAMPLES; i++) o->g[i] = path_gap(k, o, (real)i / SAMPLES);
    const real h = 1e-9L;
    o->slope = (path_gap(k, o, h) - o->g[0]) / h;
    const real phi = 0.61803398874989484820L;
    real a = 0, b = 1, x1 = b - phi, x2 = phi, f1 = path_gap(k, o, x1), f2 = path_gap(k, o, x2);
    for (int i = 0; i < 50; i++) {
        if (f1 <= f2)
            b = x2, x2 = x1, f2 = f1, x1 = b - phi * (b - a), f1 = path_gap(k, o, x1);
        else
            a = x1, x1 = x2, f1 = f2, x2 = a + phi * (b - a), f2 = path_gap(k, o, x2);
    }
    o->t_min = (a + b) / 2;
    o->f_min = path_gap(k, o, o->t_min);
    // The ends are minima too (the search brackets the interior).
    if (o->g[0] < o->f_min) o->f_min = o->g[0], o->t_min = 0;
    if (o->g[SAMPLES] < o->f_min) o->f_min = o->g[SAMPLES], o->t_min = 1;
    o->exact = path_toi(k, o, o->R, true);
    bool hit = o->exact.kind == HIT;
    toi less = path_toi(k, o, o->R - o->e, hit), more = path_toi(k, o, o->R + o->e, hit);
    o->graze = o->t_min > 0 && o->t_min < 1 && fabsl(o->f_min - o->R) <= 1e-4L * o->R;
    o->ambiguous = less.kind != o->exact.kind || more.kind != o->exact.kind || o->graze;
    o->tol = 0;
    if (o->exact.kind == HIT)
        o->tol =
            1e-4L * lmax(o->exact.t, 1e-3L) + lmax(fabsl(less.t - o->exact.t), fabsl(more.t - o->exact.t));
}

// ---- Checking an answer -------------------------------------------------------------------------

static const char *check_contact(const scase *k, const oracle *o, kyu_hit h, real t) {
    if (!unit3(h.normal) || !finite3(h.point)) return "normal not unit or point not finite";
    lv3 p = ladd(o->p0, lscale(o->v, t)), q;
    real gap = core_distance(&k->s, p, &q);
    if (gap <= o->e) return NULL; // on or in the core: checked by the dedicated tests
    lv3 n = lnorm(lsub(p, q));
    // The normal turns by the position's rounding over the gap.
    real S = llen(lsub(o->p0, lv(k->s.a))) + llen(o->v) + shape_size(&k->s);
    real tol_n = 1e-5L + AMBIG_K * U * S / gap;
    if (ldist(h.normal, n) > tol_n) return "normal is not from the shape to the sphere";
    // The contact point: on the shape's surface at t, moved with the shape.
    lv3 expect = ladd(ladd(q, lscale(n, shape_skin(&k->s))), lscale(lv(k->sd), t));
    real tol_p = AMBIG_K * U * (llen(lv(k->c0)) + llen(lv(k->sd)) + S + o->R) + o->R * tol_n;
    if (ldist(h.point, expect) > tol_p) return "point is not the shape's closest surface point";
    return NULL;
}

static const char *check_case(const scase *k, const oracle *o, kyu_hit h) {
    switch (o->exact.kind) {
    case NO_HIT:
        return h.hit ? "hit where the oracle has none" : NULL;
    case START_APART:
        return h.hit || !h.start_overlap ? "moving apart: want start_overlap and no hit" : NULL;
    case START_EITHER:
        if (!h.start_overlap) return "start overlap not reported";
        return h.hit && (h.t != 0 || !unit3(h.normal)) ? "start hit not at t = 0" : NULL;
    case START_HIT:
        if (!h.hit || !h.start_overlap || h.t != 0) return "start overlap not reported at t = 0";
        return check_contact(k, o, h, 0);
    default:
        if (!h.hit) return "missed a hit";
        if (h.start_overlap) return "start_overlap reported for a start apart";
        if (!(fabsl(h.t - o->exact.t) <= o->tol)) return "t differs from the oracle";
        return check_contact(k, o, h, h.t);
    }
}

static void print_case(int i, const scase *k, const oracle *o, kyu_hit h, const char *why) {
    printf("    case %d (%s): %s\n", i, shape_names[k->s.kind], why);
    printf("      r = %a (%.9g), shape radius = %a (%.9g)\n", k->r, k->r, k->s.radius, k->s.radius);
    print_v("c0", k->c0);
    print_v("d", k->d);
    print_v("shape d", k->sd);
    print_v("a", k->s.a);
    print_v("b", k->s.b);
    print_v("c", k->s.c);
    printf("      oracle kind=%d (0 none, 1 hit, 2 start hit, 3 start apart, 4 either) t*=%.12Lg "
           "tol %.3Lg, min gap %.12Lg at t %.6Lg (contact %.12Lg), slope %.6Lg\n",
           o->exact.kind, o->exact.t, o->tol, o->f_min, o->t_min, o->R, o->slope);
    printf("      got hit=%d start_overlap=%d t=%.9g\n", h.hit, h.start_overlap, h.t);
    print_v("got point", h.point);
    print_v("got normal", h.normal);
}

// ---- Random cases -------------------------------------------------------------------------------

// A shape of size 0.05..3 at a random place and orientation, and a path through a target near it
// (within 1.3 contact distances of a random point of the shape), mostly heading for the shape,
// starting before, at or beyond the target; 40% of the time the shape moves too.
static scase gen_case(rng *g, int kind) {
    scase k;
    k.s.kind = kind;
    k.r = (float)rnd_log(g, 0.05L, 3);
    lv3 a = rnd_world(g), axis = rnd_dir(g), side = rnd_perp(g, axis);
    real len = rnd(g) < 0.1L ? 0 : rnd_log(g, 0.05L, 3);
    k.s.radius = kind == TRIANGLE ? 0 : (float)rnd_log(g, 0.05L, 3);
    lv3 b = ladd(a, lscale(axis, len));
    // The third corner is off the axis by at least 0.05 (angles of at least 0.01 rad), or, one
    // time in ten, equal to another corner: degenerate in float exactly, not merely nearly.
    lv3 c = ladd(a, ladd(lscale(axis, len * rnd_in(g, -0.5L, 1.5L)), lscale(side, rnd_log(g, 0.05L, 3))));
    if (rnd(g) < 0.1L) c = rnd(g) < 0.5L ? a : b;
    if (kind == CYLINDER && len == 0) b = ladd(a, lscale(axis, 0.05L));
    k.s.a = f3(a);
    k.s.b = f3(b);
    k.s.c = f3(c);
    real R = shape_skin(&k.s) + k.r + (kind == CYLINDER ? k.s.radius : 0);
    // A random point of the shape (of the triangle's hull, or of the axis and disc).
    real u = rnd(g), w = rnd(g) * (1 - u);
    lv3 on = kind == TRIANGLE ? ladd(a, ladd(lscale(lsub(b, a), u), lscale(lsub(c, a), w)))
                              : ladd(a, lscale(lsub(b, a), rnd_in(g, -0.2L, 1.2L)));
    lv3 target = ladd(on, lscale(rnd_dir(g), R * rnd_in(g, 0, 1.3L)));
    lv3 dir = rnd_dir(g);
    if (ldot(dir, lsub(target, on)) > 0 && rnd(g) < 0.7L) dir = lscale(dir, -1);
    lv3 v = lscale(dir, (R + len) * rnd_log(g, 0.05L, 20));
    lv3 sd = rnd(g) < 0.4L ? lscale(rnd_dir(g), llen(v) * rnd_in(g, 0, 2)) : (lv3){0, 0, 0};
    k.c0 = f3(lsub(target, lscale(v, rnd_in(g, -0.2L, 1.3L))));
    k.sd = f3(sd);
    k.d = f3(ladd(v, sd));
    return k;
}

static void random_sweeps_match_oracle(int kind, uint32_t seed) {
    rng g = {seed};
    int ambiguous = 0, grazes = 0, hits = 0, starts = 0, apart = 0, misses = 0, moving = 0;
    int either = 0, feature[3] = {0, 0, 0};
    for (int i = 0; i < RANDOM_CASES; i++) {
        scase k = gen_case(&g, kind);
        oracle o;
        solve(&k, &o);
        kyu_hit h = sweep(&k.s, k.c0, k.d, k.r, k.sd);
        // Whatever the case, nothing may be NaN.
        if (!isfinite(h.t) || !finite3(h.normal) || isnan(h.point.raw[0])) {
            print_case(i, &k, &o, h, "not finite");
            ENSURE(false);
        }
        if (o.ambiguous) {
            ambiguous++;
            grazes += o.graze;
            continue;
        }
        hits += o.exact.kind == HIT;
        if (o.exact.kind == HIT) {
            path_gap(&k, &o, o.exact.t);
            feature[core_feature]++;
        }
        either += o.exact.kind == START_EITHER;
        moving += o.exact.kind == HIT && llen(lv(k.sd)) > 0;
        starts += o.exact.kind == START_HIT;
        apart += o.exact.kind == START_APART;
        misses += o.exact.kind == NO_HIT;
        const char *why = check_case(&k, &o, h);
        if (why) print_case(i, &k, &o, h, why);
        ENSURE(why == NULL);
    }
    static const char *const features[3][3] = {
        {"ends", "sides", "-"}, {"rims", "sides", "caps"}, {"corners", "edges", "faces"}};
    printf("    %d %s cases: %d hits (%d %s, %d %s, %d %s; %d by a moving shape), %d start hits, "
           "%d starts moving apart, %d starts tangent, %d misses, %d ambiguous (%d grazes)\n",
           RANDOM_CASES, shape_names[kind], hits, feature[0], features[kind][0], feature[1],
           features[kind][1], feature[2], features[kind][2], moving, starts, apart, either, misses, ambiguous,
           grazes);
    ENSURE(hits > RANDOM_CASES / 5 && misses > RANDOM_CASES / 10 && moving > RANDOM_CASES / 20);
    ENSURE(feature[0] > RANDOM_CASES / 50 && feature[1] > RANDOM_CASES / 50);
    ENSURE(kind == CAPSULE || feature[2] > RANDOM_CASES / 50);
    ENSURE(starts > RANDOM_CASES / 100 && apart > RANDOM_CASES / 100);
    ENSURE(ambiguous < RANDOM_CASES / 100);
}

static void test_capsule_sweep_matches_oracle(void) { random_sweeps_match_oracle(CAPSULE, 91u); }
static void test_cylinder_sweep_matches_oracle(void) { random_sweeps_match_oracle(CYLINDER, 92u); }
static void test_triangle_sweep_matches_oracle(void) { random_sweeps_match_oracle(TRIANGLE, 93u); }

// ---- Capsules -----------------------------------------------------------------------------------

static const vec3s ZERO = {{0, 0, 0}};

static kyu_hit sweep_cap(vec3s c0, vec3s d, float r, vec3s a, vec3s b, float radius, vec3s cd) {
    kyu_capsule k = {a, b, radius};
    return kyu_sweep_sphere_capsule(c0, d, r, &k, cd);
}

static void test_capsule_sweep_side_and_cap_have_exact_times(void) {
    vec3s a = v3(0, 0, -1), b = v3(0, 0, 1);
    // The side: the centre reaches x = 1 after 4 of 10.
    kyu_hit h = sweep_cap(v3(5, 0, 0.5f), v3(-10, 0, 0), 0.5f, a, b, 0.5f, ZERO);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 0.4, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){1, 0, 0}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){0.5L, 0, 0.5L}), 0, 1e-6);
    // Along the axis, into the end sphere: z = -2 after 3 of 10.
    h = sweep_cap(v3(0, 0, -5), v3(0, 0, 10), 0.5f, a, b, 0.5f, ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.3, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 0, -1}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){0, 0, -1.5L}), 0, 1e-6);
    // Too short to arrive.
    ENSURE(!sweep_cap(v3(5, 0, 0.5f), v3(-3.9f, 0, 0), 0.5f, a, b, 0.5f, ZERO).hit);
}

static void test_capsule_sweep_parallel_to_axis(void) {
    vec3s a = v3(0, 0, -1), b = v3(0, 0, 1);
    // Just outside the grown radius 1 all the way: never.
    ENSURE(!sweep_cap(v3(1.01f, 0, -5), v3(0, 0, 10), 0.5f, a, b, 0.5f, ZERO).hit);
    // Off the axis by 0.6: the end sphere at z = -1 - 0.8.
    kyu_hit h = sweep_cap(v3(0.6f, 0, -5), v3(0, 0, 10), 0.5f, a, b, 0.5f, ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.32, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){0.6L, 0, -0.8L}), 0, 1e-6);
    // Overlapping the side and sliding along it: the overlap stays, a hit at t = 0.
    h = sweep_cap(v3(0.9f, 0, -0.5f), v3(0, 0, 1), 0.5f, a, b, 0.5f, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0);
    ENSURE_NEAR(ldist(h.normal, (lv3){1, 0, 0}), 0, 1e-6);
}

static void test_capsule_sweep_start_inside_and_touching(void) {
    vec3s a = v3(0, 0, -1), b = v3(0, 0, 1);
    kyu_hit h = sweep_cap(v3(0.25f, 0, 0), v3(1, 0, 0), 0.5f, a, b, 0.5f, ZERO);
    ENSURE(!h.hit && h.start_overlap); // moving out
    h = sweep_cap(v3(0.25f, 0, 0), v3(-1, 0, 0), 0.5f, a, b, 0.5f, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0 && hit_is_finite(h));
    ENSURE_NEAR(ldist(h.normal, (lv3){1, 0, 0}), 0, 1e-6);
    // Touching exactly (distance 1 = 0.5 + 0.5): leaving is no hit, approaching is one at t = 0.
    h = sweep_cap(v3(1, 0, 0.5f), v3(1, 0, 0), 0.5f, a, b, 0.5f, ZERO);
    ENSURE(!h.hit && h.start_overlap);
    h = sweep_cap(v3(1, 0, 0.5f), v3(-1, 0, 0), 0.5f, a, b, 0.5f, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0);
    // Centre on the axis: the normal opposes the motion across the axis, or is fixed when still.
    h = sweep_cap(v3(0, 0, 0.5f), v3(0, -3, 0), 0.5f, a, b, 0.5f, ZERO);
    ENSURE(h.hit && h.start_overlap && hit_is_finite(h));
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 1, 0}), 0, 1e-6);
    h = sweep_cap(v3(0, 0, 0.5f), ZERO, 0.5f, a, b, 0.5f, ZERO);
    ENSURE(h.hit && h.start_overlap && unit3(h.normal) && hit_is_finite(h));
    ENSURE_NEAR(ldot(lv(h.normal), (lv3){0, 0, 1}), 0, 1e-6);
}

static void test_capsule_sweep_grazing_exactly_touches(void) {
    // The path y = 0.625 = R passes the axis at x = 0, t = 0.5: the discriminant is exactly 0.
    vec3s a = v3(0, 0, -1), b = v3(0, 0, 1);
    kyu_hit h = sweep_cap(v3(-4, 0.625f, 0), v3(8, 0, 0), 0.5f, a, b, 0.125f, ZERO);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 0.5, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 1, 0}), 0, 1e-6);
    ENSURE(!sweep_cap(v3(-4, 0.626f, 0), v3(8, 0, 0), 0.5f, a, b, 0.125f, ZERO).hit);
    real y = 0.624f;
    h = sweep_cap(v3(-4, 0.624f, 0), v3(8, 0, 0), 0.5f, a, b, 0.125f, ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.5L - sqrtl(0.390625L - y * y) / 8, 1e-6);
}

static void test_capsule_sweep_degenerate_capsule_is_a_sphere(void) {
    vec3s c = v3(1, 2, 3);
    kyu_hit h = sweep_cap(v3(-4, 2, 3), v3(10, 0, 0), 0.5f, c, c, 0.5f, ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.4, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){-1, 0, 0}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){0.5L, 2, 3}), 0, 1e-6);
    ENSURE(!sweep_cap(v3(-4, 3.01f, 3), v3(10, 0, 0), 0.5f, c, c, 0.5f, ZERO).hit);
    h = sweep_cap(c, ZERO, 0.5f, c, c, 0.5f, ZERO); // coincident and still
    ENSURE(h.hit && h.start_overlap && unit3(h.normal) && hit_is_finite(h));
}

static void test_capsule_sweep_moving_capsule_and_zero_displacement(void) {
    vec3s a = v3(0, 0, -1), b = v3(0, 0, 1);
    // The capsule moves +x by 10 into the still sphere at x = 6: contact at t = 0.5.
    kyu_hit h = sweep_cap(v3(6, 0, 0), ZERO, 0.5f, a, b, 0.5f, v3(10, 0, 0));
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 0.5, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){1, 0, 0}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){5.5L, 0, 0}), 0, 1e-6);
    // Both moving the same way: a static test.
    ENSURE(!sweep_cap(v3(6, 0, 0), v3(3, 4, 5), 0.5f, a, b, 0.5f, v3(3, 4, 5)).hit);
    ENSURE(!sweep_cap(v3(6, 0, 0), ZERO, 0.5f, a, b, 0.5f, ZERO).hit);
    h = sweep_cap(v3(0.75f, 0, 0), ZERO, 0.5f, a, b, 0.5f, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0);
    ENSURE_NEAR(ldist(h.normal, (lv3){1, 0, 0}), 0, 1e-6);
}

static void test_capsule_sweep_thin_fast_does_not_tunnel(void) {
    // A wire of radius 0.001 and a sphere of radius 0.01 crossing it at 100 per sweep: the overlap
    // lasts 2.2e-4 of the sweep, far less than any sampling would resolve.
    kyu_hit h = sweep_cap(v3(-50, 0.5f, 0), v3(100, 0, 0), 0.01f, v3(0, -1, 0), v3(0, 1, 0), 0.001f, ZERO);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, (50 - 0.011L) / 100, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){-1, 0, 0}), 0, 1e-6);
    // Offset 0.006 in z: the chord starts sqrt(0.011^2 - 0.006^2) before the axis.
    h = sweep_cap(v3(-50, 0.5f, 0.006f), v3(100, 0, 0), 0.01f, v3(0, -1, 0), v3(0, 1, 0), 0.001f, ZERO);
    real z = 0.006f, R = (real)0.01f + (real)0.001f;
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, (50 - sqrtl(R * R - z * z)) / 100, 1e-6);
    ENSURE(
        !sweep_cap(v3(-50, 0.5f, 0.012f), v3(100, 0, 0), 0.01f, v3(0, -1, 0), v3(0, 1, 0), 0.001f, ZERO).hit);
}

// ---- Cylinders ----------------------------------------------------------------------------------

static kyu_hit sweep_cyl(vec3s c0, vec3s d, float r, vec3s a, vec3s b, float radius, vec3s cd) {
    kyu_cylinder k = {a, b, radius};
    return kyu_sweep_sphere_cylinder(c0, d, r, &k, cd);
}

static void test_cylinder_sweep_side_cap_and_rim_have_exact_times(void) {
    vec3s a = v3(0, 0, 0), b = v3(0, 0, 2);
    kyu_hit h = sweep_cyl(v3(5, 0, 1), v3(-10, 0, 0), 0.5f, a, b, 1, ZERO); // side at x = 1.5
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 0.35, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){1, 0, 0}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){1, 0, 1}), 0, 1e-6);
    h = sweep_cyl(v3(0.5f, 0, 6), v3(0, 0, -10), 0.5f, a, b, 1, ZERO); // cap at z = 2.5
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.35, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 0, 1}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){0.5L, 0, 2}), 0, 1e-6);
    // Diagonally at the rim point (1, 0, 2): only the torus is met first.
    h = sweep_cyl(v3(4, 0, 5), v3(-6, 0, -6), 0.5f, a, b, 1, ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, (3 * sqrtl(2) - 0.5L) / (6 * sqrtl(2)), 1e-6);
    ENSURE_NEAR(ldist(h.normal, lnorm((lv3){1, 0, 1})), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){1, 0, 2}), 0, 1e-6);
}

static void test_cylinder_sweep_grazing_a_rim_touches(void) {
    // The path x = 1.375, z = 2.5, along y, is 0.625 from the rim (1, 0, 2) at y = 0 and farther
    // elsewhere; it meets neither the grown side (z > 2) nor the cap disc (|w| > 1): a torus graze.
    vec3s a = v3(0, 0, 0), b = v3(0, 0, 2);
    kyu_hit h = sweep_cyl(v3(1.375f, -4, 2.5f), v3(0, 8, 0), 0.625f, a, b, 1, ZERO);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 0.5, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){0.6L, 0, 0.8L}), 0, 1e-6);
    ENSURE(!sweep_cyl(v3(1.375f, -4, 2.5f), v3(0, 8, 0), 0.62f, a, b, 1, ZERO).hit);
    // Slightly larger: (sqrt(1.375^2 + y^2) - 1)^2 + 0.25 = r^2 at the entry.
    real r = 0.63f, w = 1 + sqrtl(r * r - 0.25L), y = sqrtl(w * w - 1.890625L);
    h = sweep_cyl(v3(1.375f, -4, 2.5f), v3(0, 8, 0), 0.63f, a, b, 1, ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, (4 - y) / 8, 1e-6);
}

static void test_cylinder_sweep_parallel_to_axis(void) {
    vec3s a = v3(0, 0, 0), b = v3(0, 0, 2);
    ENSURE(!sweep_cyl(v3(1.51f, 0, -5), v3(0, 0, 10), 0.5f, a, b, 1, ZERO).hit);
    // Within the disc: the cap at z = -0.5. Off the disc by 0.3: the rim, z = -sqrt(0.16).
    kyu_hit h = sweep_cyl(v3(0.75f, 0, -5), v3(0, 0, 10), 0.5f, a, b, 1, ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.45, 1e-6);
    h = sweep_cyl(v3(1.3f, 0, -5), v3(0, 0, 10), 0.5f, a, b, 1, ZERO);
    real x = 1.3f;
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, (5 - sqrtl(0.25L - (x - 1) * (x - 1))) / 10, 1e-6);
    // Overlapping the side and sliding along it.
    h = sweep_cyl(v3(1.25f, 0, 1), v3(0, 0, 1), 0.5f, a, b, 1, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0);
    ENSURE_NEAR(ldist(h.normal, (lv3){1, 0, 0}), 0, 1e-6);
}

static void test_cylinder_sweep_start_inside_uses_nearest_surface(void) {
    vec3s a = v3(0, 0, 0), b = v3(0, 0, 2);
    // 0.25 below the top cap, 0.5 from the side: the top is nearest.
    kyu_hit h = sweep_cyl(v3(0.5f, 0, 1.75f), v3(1, 0, 0), 0.1f, a, b, 1, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0 && hit_is_finite(h));
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 0, 1}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){0.5L, 0, 2}), 0, 1e-6);
    h = sweep_cyl(v3(0.5f, 0, 1.75f), v3(0, 0, 1), 0.1f, a, b, 1, ZERO); // out through it
    ENSURE(!h.hit && h.start_overlap);
    // On the axis at mid-height, with the side nearest (radius 0.5 < 1): against the motion.
    h = sweep_cyl(v3(0, 0, 1), v3(0, 2, 0), 0.1f, a, b, 0.5f, ZERO);
    ENSURE(h.hit && h.start_overlap && hit_is_finite(h));
    ENSURE_NEAR(ldist(h.normal, (lv3){0, -1, 0}), 0, 1e-6);
    h = sweep_cyl(v3(0, 0, 1), ZERO, 0.1f, a, b, 0.5f, ZERO);
    ENSURE(h.hit && h.start_overlap && unit3(h.normal) && hit_is_finite(h));
    // Touching the top exactly and leaving.
    ENSURE(!sweep_cyl(v3(0.5f, 0, 2.5f), v3(0, 0, 1), 0.5f, a, b, 1, ZERO).hit);
    h = sweep_cyl(v3(0.5f, 0, 2.5f), v3(0, 0, -1), 0.5f, a, b, 1, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0);
}

static void test_cylinder_sweep_moving_thin_and_degenerate(void) {
    vec3s a = v3(0, 0, 0), b = v3(0, 0, 2);
    // The cylinder moves -z by 10 onto the still sphere at z = -3: contact when the base is -3.5.
    kyu_hit h = sweep_cyl(v3(0.25f, 0, -3), ZERO, 0.5f, a, b, 1, v3(0, 0, -10));
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 0.25, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 0, -1}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){0.25L, 0, -2.5L}), 0, 1e-6);
    ENSURE(!sweep_cyl(v3(3, 0, 1), ZERO, 0.5f, a, b, 1, ZERO).hit);
    // A coin 0.001 thick crossed at 10 per sweep by a sphere of radius 0.01.
    h = sweep_cyl(v3(0.2f, 0.1f, 5), v3(0, 0, -10), 0.01f, a, v3(0, 0, 0.001f), 1, ZERO);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, (5 - 0.011L) / 10, 1e-6);
    // a == b: the ball of the radius.
    h = sweep_cyl(v3(-4, 0, 0), v3(10, 0, 0), 0.5f, a, a, 1, ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.25, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){-1, 0, 0}), 0, 1e-6);
}

// ---- Triangles ----------------------------------------------------------------------------------

static kyu_hit sweep_tri(vec3s c0, vec3s d, float r, vec3s a, vec3s b, vec3s c, vec3s td) {
    kyu_triangle k = {a, b, c};
    return kyu_sweep_sphere_triangle(c0, d, r, &k, td);
}

static const vec3s TA = {{0, 0, 0}}, TB = {{4, 0, 0}}, TC = {{0, 4, 0}};

static void test_triangle_sweep_face_edge_and_corner_have_exact_times(void) {
    // The face from above and from below (two-sided): the normal faces the sphere.
    kyu_hit h = sweep_tri(v3(1, 1, 5), v3(0, 0, -10), 0.5f, TA, TB, TC, ZERO);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 0.45, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 0, 1}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){1, 1, 0}), 0, 1e-6);
    h = sweep_tri(v3(1, 1, -5), v3(0, 0, 10), 0.5f, TA, TB, TC, ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.45, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 0, -1}), 0, 1e-6);
    // The edge y = 0 met in its plane from -y: y = -0.5 after 4.5 of 10.
    h = sweep_tri(v3(1, -5, 0), v3(0, 10, 0), 0.5f, TA, TB, TC, ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.45, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, -1, 0}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){1, 0, 0}), 0, 1e-6);
    // The corner (4, 0, 0) along the diagonal from (7, -3, 3): gap sqrt(27) - 0.5.
    h = sweep_tri(v3(7, -3, 3), v3(-6, 6, -6), 0.5f, TA, TB, TC, ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, (sqrtl(27) - 0.5L) / sqrtl(108), 1e-6);
    ENSURE_NEAR(ldist(h.normal, lnorm((lv3){1, -1, 1})), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){4, 0, 0}), 0, 1e-6);
}

static void test_triangle_sweep_parallel_to_plane(void) {
    // Above the plane by more than r: never, however far it slides.
    ENSURE(!sweep_tri(v3(-5, 1, 0.51f), v3(20, 0, 0), 0.5f, TA, TB, TC, ZERO).hit);
    // In the plane, it meets the edge x = 0 head-on: x = -0.5 after 4.5 of 10.
    kyu_hit h = sweep_tri(v3(-5, 1, 0), v3(10, 0, 0), 0.5f, TA, TB, TC, ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.45, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){-1, 0, 0}), 0, 1e-6);
    // 0.3 above the plane: the edge capsule, x = -0.4.
    h = sweep_tri(v3(-5, 1, 0.3f), v3(10, 0, 0), 0.5f, TA, TB, TC, ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.46, 1e-6);
    // Overlapping the face and sliding along it: a hit at t = 0.
    h = sweep_tri(v3(1, 1, 0.25f), v3(1, 0.5f, 0), 0.5f, TA, TB, TC, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 0, 1}), 0, 1e-6);
}

static void test_triangle_sweep_start_touching_and_inside(void) {
    kyu_hit h = sweep_tri(v3(1, 1, 0.5f), v3(0, 0, 1), 0.5f, TA, TB, TC, ZERO);
    ENSURE(!h.hit && h.start_overlap); // touching, leaving
    h = sweep_tri(v3(1, 1, 0.5f), v3(0, 0, -1), 0.5f, TA, TB, TC, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 0, 1}), 0, 1e-6);
    // The centre in the triangle: the face normal against the motion, finite when still.
    h = sweep_tri(v3(1, 1, 0), v3(0, 0, 1), 0.5f, TA, TB, TC, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0 && hit_is_finite(h));
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 0, -1}), 0, 1e-6);
    h = sweep_tri(v3(1, 1, 0), ZERO, 0.5f, TA, TB, TC, ZERO);
    ENSURE(h.hit && h.start_overlap && unit3(h.normal) && hit_is_finite(h));
    ENSURE(!sweep_tri(v3(1, 1, 0.6f), ZERO, 0.5f, TA, TB, TC, ZERO).hit); // static, apart
}

static void test_triangle_sweep_grazing_an_edge_exactly_touches(void) {
    // Across the edge y = z = 0 in the plane x = 2, off the triangle's side (y < 0): at t = 0.5 the
    // centre (2, -0.375, 0.5) is exactly 0.625 = r from the edge, the path (0, 8, 6) perpendicular
    // to that offset (a 3-4-5 triangle in dyadic numbers), and everywhere else farther.
    vec3s c0 = v3(2, -4.375f, -2.5f), d = v3(0, 8, 6);
    kyu_hit h = sweep_tri(c0, d, 0.625f, TA, TB, TC, ZERO);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 0.5, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, -0.6L, 0.8L}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){2, 0, 0}), 0, 1e-6);
    ENSURE(!sweep_tri(c0, d, 0.624f, TA, TB, TC, ZERO).hit);
    real r = 0.626f;
    h = sweep_tri(c0, d, 0.626f, TA, TB, TC, ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.5L - sqrtl(r * r - 0.390625L) / 10, 1e-6);
}

static void test_triangle_sweep_degenerate_triangles(void) {
    // Collinear corners: the segment from (0, 0, 0) to (4, 0, 0), met from above at x = 2.
    kyu_hit h = sweep_tri(v3(2, 0, 5), v3(0, 0, -10), 0.5f, TA, TB, v3(2, 0, 0), ZERO);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 0.45, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 0, 1}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){2, 0, 0}), 0, 1e-6);
    // Along the segment's line: its end sphere at x = -0.5.
    h = sweep_tri(v3(-5, 0, 0), v3(10, 0, 0), 0.5f, TA, TB, v3(2, 0, 0), ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.45, 1e-6);
    // All corners equal: a point; and a sphere centred on it, still.
    vec3s p = v3(1, 2, 3);
    h = sweep_tri(v3(1, 2, -2), v3(0, 0, 10), 0.5f, p, p, p, ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.45, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 0, -1}), 0, 1e-6);
    h = sweep_tri(p, ZERO, 0.5f, p, p, p, ZERO);
    ENSURE(h.hit && h.start_overlap && unit3(h.normal) && hit_is_finite(h));
    // On the collinear segment, moving across it: against the motion.
    h = sweep_tri(v3(1, 0, 0), v3(0, 0, 2), 0.5f, TA, TB, v3(2, 0, 0), ZERO);
    ENSURE(h.hit && h.start_overlap && hit_is_finite(h));
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 0, -1}), 0, 1e-6);
}

static void test_triangle_sweep_moving_thin_fast_and_static(void) {
    // The triangle rises by 10 into the still sphere at z = 3: contact at t = 0.25.
    kyu_hit h = sweep_tri(v3(1, 1, 3), ZERO, 0.5f, TA, TB, TC, v3(0, 0, 10));
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 0.25, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 0, 1}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){1, 1, 2.5L}), 0, 1e-6);
    // A sphere of radius 0.01 crossing at 100 per sweep: the overlap lasts 2e-4 of it.
    h = sweep_tri(v3(1, 1, 50), v3(0, 0, -100), 0.01f, TA, TB, TC, ZERO);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, (50 - 0.01L) / 100, 1e-6);
    ENSURE(!sweep_tri(v3(1, 1, 1), ZERO, 0.5f, TA, TB, TC, ZERO).hit);
    h = sweep_tri(v3(1, 1, -0.25f), ZERO, 0.5f, TA, TB, TC, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 0, -1}), 0, 1e-6);
}

static bool no_nan(kyu_hit h) {
    return !isnan(h.t) && !isnan(h.point.raw[0]) && !isnan(h.point.raw[1]) && !isnan(h.point.raw[2]) &&
           finite3(h.normal) && (!h.hit || unit3(h.normal));
}

static void test_sweeps_extreme_inputs_stay_finite(void) {
    // Every coordinate, displacement and radius drawn from zero, tiny, ordinary, huge and the
    // largest floats, both signs: collinear, coincident and overflowing cases all at once. The
    // point may round to an infinity off the float range; nothing may be NaN, no normal may fail
    // to be unit.
    static const float pick[8] = {0, 1e-30f, 1e-10f, 1, 0.5f, 1e10f, 1e30f, 3.4e38f};
    rng g = {5150u};
    for (int i = 0; i < 3000; i++) {
        float f[22];
        for (int j = 0; j < 22; j++) {
            uint32_t bits = (uint32_t)(rnd(&g) * 16777216.0L);
            f[j] = pick[bits & 7] * ((bits & 8) ? -1.0f : 1.0f);
            if ((bits & 7) < 7) f[j] *= (float)(1 + ((bits >> 4) & 3)); // the largest stays finite
            if ((bits >> 6) & 1) f[j] = 0; // many exact zeros: degenerate and coincident
        }
        vec3s c0 = v3(f[0], f[1], f[2]), d = v3(f[3], f[4], f[5]), sd = v3(f[6], f[7], f[8]);
        vec3s a = v3(f[9], f[10], f[11]), b = v3(f[12], f[13], f[14]), c = v3(f[15], f[16], f[17]);
        float r = fabsf(f[18]), radius = fabsf(f[19]);
        kyu_hit h[3] = {sweep_cap(c0, d, r, a, b, radius, sd), sweep_cyl(c0, d, r, a, b, radius, sd),
                        sweep_tri(c0, d, r, a, b, c, sd)};
        for (int k = 0; k < 3; k++) {
            if (!no_nan(h[k])) {
                printf("    case %d, %s: r = %a, radius = %a\n", i, shape_names[k], r, radius);
                print_v("c0", c0), print_v("d", d), print_v("shape d", sd);
                print_v("a", a), print_v("b", b), print_v("c", c);
            }
            ENSURE(no_nan(h[k]));
        }
    }
}

void suite_sweeps(void) {
    RUN_TEST(test_capsule_sweep_matches_oracle);
    RUN_TEST(test_capsule_sweep_side_and_cap_have_exact_times);
    RUN_TEST(test_capsule_sweep_parallel_to_axis);
    RUN_TEST(test_capsule_sweep_start_inside_and_touching);
    RUN_TEST(test_capsule_sweep_grazing_exactly_touches);
    RUN_TEST(test_capsule_sweep_degenerate_capsule_is_a_sphere);
    RUN_TEST(test_capsule_sweep_moving_capsule_and_zero_displacement);
    RUN_TEST(test_capsule_sweep_thin_fast_does_not_tunnel);
    RUN_TEST(test_cylinder_sweep_matches_oracle);
    RUN_TEST(test_cylinder_sweep_side_cap_and_rim_have_exact_times);
    RUN_TEST(test_cylinder_sweep_grazing_a_rim_touches);
    RUN_TEST(test_cylinder_sweep_parallel_to_axis);
    RUN_TEST(test_cylinder_sweep_start_inside_uses_nearest_surface);
    RUN_TEST(test_cylinder_sweep_moving_thin_and_degenerate);
    RUN_TEST(test_triangle_sweep_matches_oracle);
    RUN_TEST(test_triangle_sweep_face_edge_and_corner_have_exact_times);
    RUN_TEST(test_triangle_sweep_parallel_to_plane);
    RUN_TEST(test_triangle_sweep_start_touching_and_inside);
    RUN_TEST(test_triangle_sweep_grazing_an_edge_exactly_touches);
    RUN_TEST(test_triangle_sweep_degenerate_triangles);
    RUN_TEST(test_triangle_sweep_moving_thin_fast_and_static);
    RUN_TEST(test_sweeps_extreme_inputs_stay_finite);
}
