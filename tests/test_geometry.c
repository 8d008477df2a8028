// SPDX-License-Identifier: MIT
// Tests of the pure geometry module (include/kyu/geometry.h) against independent oracles.
//
// Every oracle works in long double from the very float inputs the routine receives, so what a test
// measures is the routine's own error, not the rounding of the inputs. Random cases come from a
// fixed-seed LCG: every run sees the same cases, and a failing case is printed with its index and
// its inputs in hex floats (%a), ready to paste into a reproducer.
//
// Conditioning. A float routine must round its first operations on the inputs (B - A, n.c, the
// centre in box coordinates), which moves the distance between the shapes along the sweep by up to
// e, a few float rounding units (AMBIG_K) of the lengths involved. So the oracle also solves every
// case with the contact distance r - e and r + e:
// - if the three answers differ in kind (hit, miss, start overlap), the case is undecidable in
//   float: a grazing sweep (discriminant within rounding of 0), a start within rounding of
//   touching, an impact within rounding of t = 1. It is counted as ambiguous and skipped, and each
//   random test ENSUREs that fewer than 1% of its cases are ambiguous, so the exclusion cannot hide
//   a systematic error;
// - otherwise the time of impact must match to 1e-4 relative on top of how far r -+ e moves it
//   (for most cases that addition is far below 1e-4; near grazing the root is ill-conditioned).
#include <string.h>

#include <kyu/geometry.h>

#include "../engine/geometry/fquat.h"
#include "oracle.h"

// How many float rounding units (U) the first operations on the inputs may carry (a rounded
// difference, a product by t, a sum and a length each add about one; 8 leaves room).
#define AMBIG_K      8
#define RANDOM_CASES 10000

// ---- Small helpers ------------------------------------------------------------------------------

static bool unit3(vec3s v) { return finite3(v) && fabsl(llen(lv(v)) - 1) <= 1e-5L; }
static lv3 rnd_world(rng *g) { return rnd_world_upto(g, 10000); }

static void print_hit(kyu_hit h) {
    printf("      got hit=%d start_overlap=%d t=%.9g\n", h.hit, h.start_overlap, h.t);
    print_v("got point", h.point);
    print_v("got normal", h.normal);
}

// What an oracle expects. START_APART is "overlapping at t = 0 and moving apart": the header only
// says that touching while moving apart is no hit, so a routine may report either no hit or a
// start overlap at t = 0 there (a dedicated test pins the sphere and plane cases).
enum { NO_HIT, HIT, START_HIT, START_APART };
typedef struct toi {
    int kind;
    real t;
} toi;

// Relative 1e-4 on t. Below t = 1e-3 the error of t is absolute, not relative: t = c / q where
// c = R - r^2 is the start gap, which carries an absolute rounding error (a cancellation when the
// start is close to touching); 1e-7 of the sweep is far below any length the engine resolves.
static real tol_t(real t) { return 1e-4L * lmax(t, 1e-3L); }

// The oracle's answer at r, judged against its answers at r - e and r + e (see the top).
typedef struct verdict {
    toi exact;
    bool ambiguous;
    real tol; // on t, for a hit
} verdict;

static verdict judge(toi at_less, toi exact, toi at_more) {
    verdict v = {exact, at_less.kind != exact.kind || at_more.kind != exact.kind, 0};
    if (exact.kind == HIT && !v.ambiguous)
        v.tol = tol_t(exact.t) + lmax(fabsl(at_less.t - exact.t), fabsl(at_more.t - exact.t));
    return v;
}

static const char *check_start_apart(kyu_hit h) {
    if (h.hit && (h.t != 0 || !h.start_overlap)) return "overlapping and separating, yet t > 0";
    if (h.hit && !unit3(h.normal)) return "normal not unit";
    return NULL;
}

// ---- Sphere against sphere ----------------------------------------------------------------------

// The header's rules in exact arithmetic, with c = R - r^2: first root of P t^2 + 2 Q t + c = 0.
// At an overlapping start the spheres approach when Q < 0 and stay put when P = 0; with Q = 0 and
// P > 0 the distance grows (to second order), so that counts as moving apart.
static toi sphere_toi(real P, real Q, real c) {
    toi o = {NO_HIT, 0};
    if (c <= 0) o.kind = Q < 0 || P == 0 ? START_HIT : c < 0 ? START_APART : NO_HIT;
    if (c <= 0 || P == 0 || Q >= 0) return o;
    real disc = Q * Q - P * c;
    if (disc < 0) return o;
    // The smaller root as c / q (q = -Q + sqrt(disc) > 0): no cancellation, even in long double.
    o.t = c / (-Q + sqrtl(disc));
    o.kind = o.t <= 1 ? HIT : NO_HIT;
    return o;
}

typedef struct sphere_case {
    vec3s a0, da, b0, db;
    float ra, rb;
} sphere_case;

// A relative motion with a chosen closest approach (miss distance and time), placed anywhere in
// the world with any common motion: near and far starts, slow and fast sweeps, hits and misses.
static sphere_case gen_sphere_case(rng *g) {
    sphere_case k;
    k.ra = (float)rnd_log(g, 0.01L, 2);
    k.rb = (float)rnd_log(g, 0.01L, 2);
    real r = (real)k.ra + k.rb;
    lv3 dir = rnd_dir(g), perp = rnd_perp(g, dir);
    real speed = r * rnd_log(g, 0.05L, 100), miss = r * rnd_in(g, 0, 1.3L);
    real t_closest = rnd_in(g, -0.5L, 1.5L);
    lv3 c0 = lsub(lscale(perp, miss), lscale(dir, speed * t_closest));
    lv3 a0 = rnd_world(g), da = lscale(rnd_dir(g), r * rnd_log(g, 0.01L, 100));
    k.a0 = f3(a0);
    k.da = f3(da);
    k.b0 = f3(ladd(a0, c0));
    k.db = f3(ladd(da, lscale(dir, speed)));
    return k;
}

typedef struct sphere_oracle {
    lv3 C0, D;
    real r;
    verdict v;
} sphere_oracle;

static toi sphere_toi_at(const sphere_oracle *o, real r) {
    return sphere_toi(ldot(o->D, o->D), ldot(o->C0, o->D), ldot(o->C0, o->C0) - r * r);
}

static sphere_oracle solve_sphere_case(const sphere_case *k) {
    sphere_oracle o;
    o.C0 = lsub(lv(k->b0), lv(k->a0));
    o.D = lsub(lv(k->db), lv(k->da));
    o.r = (real)k->ra + k->rb;
    // B - A at t is C0 + t D: rounding C0, D, t D and the sum moves it by a few units of these.
    real e = AMBIG_K * U * (llen(o.C0) + llen(o.D) + o.r);
    o.v = judge(sphere_toi_at(&o, o.r - e), sphere_toi_at(&o, o.r), sphere_toi_at(&o, o.r + e));
    return o;
}

// The normal, point and t of a hit against the oracle positions at the reported t.
static const char *check_sphere_contact(const sphere_case *k, const sphere_oracle *o, kyu_hit h) {
    if (h.start_overlap) return "start_overlap reported for a start apart";
    if (!(fabsl(h.t - o->v.exact.t) <= o->v.tol)) return "t differs from the oracle";
    if (!unit3(h.normal) || !finite3(h.point)) return "normal not unit or point not finite";
    real t = h.t;
    lv3 C = ladd(o->C0, lscale(o->D, t)); // from A to B at t
    // The normal is a function of B - A, which the float inputs fix to a few rounding units of
    // |C0| + |D|: compare its direction at the scale of the contact distance r.
    real tol_n = 1e-5L + AMBIG_K * U * (llen(o->C0) + llen(o->D)) / o->r;
    if (ldist(h.normal, lscale(lnorm(C), -1)) > tol_n) return "normal is not from B to A";
    // On the segment A(t)B(t) at ra from A; a routine that places it at ra / r of the way moves it
    // by at most |D| |t - t*| (the two agree at exact contact). World coordinates round at |a0|.
    lv3 A = ladd(lv(k->a0), lscale(lv(k->da), t));
    lv3 expect = ladd(A, lscale(lnorm(C), k->ra));
    real tol_p = AMBIG_K * U * (llen(lv(k->a0)) + llen(lv(k->da)) + llen(o->C0) + llen(o->D)) +
                 k->ra * tol_n + llen(o->D) * fabsl(t - o->v.exact.t);
    if (ldist(h.point, expect) > tol_p) return "point is not on AB at ra from A";
    return NULL;
}

static const char *check_sphere_case(const sphere_case *k, const sphere_oracle *o, kyu_hit h) {
    switch (o->v.exact.kind) {
    case NO_HIT:
        return h.hit ? "hit where the oracle has none" : NULL;
    case START_APART:
        return check_start_apart(h);
    case START_HIT:
        if (!h.hit || !h.start_overlap || h.t != 0) return "start overlap not reported at t = 0";
        if (!unit3(h.normal) || !finite3(h.point)) return "normal not unit or point not finite";
        // At t = 0 the normal is -C0 / |C0|, known to rounding of |C0| + |D| over |C0|.
        if (ldist(h.normal, lscale(lnorm(o->C0), -1)) >
            1e-5L + AMBIG_K * U * (llen(o->C0) + llen(o->D)) / llen(o->C0))
            return "start normal is not from B to A";
        return NULL;
    default:
        return h.hit ? check_sphere_contact(k, o, h) : "missed a hit";
    }
}

static void print_sphere_case(int i, const sphere_case *k, const sphere_oracle *o, kyu_hit h) {
    printf("    case %d: kyu_sweep_sphere_sphere(a0, da, ra = %a (%.9g), b0, db, rb = %a (%.9g))\n", i, k->ra,
           k->ra, k->rb, k->rb);
    print_v("a0", k->a0);
    print_v("da", k->da);
    print_v("b0", k->b0);
    print_v("db", k->db);
    printf("      oracle kind=%d (0 none, 1 hit, 2 start hit, 3 start apart) t*=%.12Lg\n", o->v.exact.kind,
           o->v.exact.t);
    print_hit(h);
}

static void test_sphere_sweep_matches_long_double_oracle(void) {
    rng g = {12345u};
    int ambiguous = 0, hits = 0, starts = 0, misses = 0, apart = 0;
    for (int i = 0; i < RANDOM_CASES; i++) {
        sphere_case k = gen_sphere_case(&g);
        sphere_oracle o = solve_sphere_case(&k);
        kyu_hit h = kyu_sweep_sphere_sphere(k.a0, k.da, k.ra, k.b0, k.db, k.rb);
        if (o.v.ambiguous) {
            ambiguous++;
            continue;
        }
        hits += o.v.exact.kind == HIT;
        starts += o.v.exact.kind == START_HIT;
        misses += o.v.exact.kind == NO_HIT;
        apart += o.v.exact.kind == START_APART;
        const char *why = check_sphere_case(&k, &o, h);
        if (why) print_sphere_case(i, &k, &o, h);
        ENSURE(why == NULL);
    }
    printf("    %d cases: %d hits, %d start overlaps, %d misses, %d overlapping and separating, %d "
           "ambiguous\n",
           RANDOM_CASES, hits, starts, misses, apart, ambiguous);
    // The mix must exercise every answer, and the exclusion must stay marginal.
    ENSURE(hits > RANDOM_CASES / 5 && misses > RANDOM_CASES / 5 && starts > RANDOM_CASES / 50);
    ENSURE(ambiguous < RANDOM_CASES / 100);
}

static kyu_hit sweep_ss(vec3s a0, vec3s da, float ra, vec3s b0, vec3s db, float rb) {
    return kyu_sweep_sphere_sphere(a0, da, ra, b0, db, rb);
}

static void test_sphere_sweep_head_on_has_exact_time(void) {
    // A from 0 moving +10, B at 5 still, radii 0.5: contact when A reaches 4, t = 0.4.
    kyu_hit h = sweep_ss(v3(0, 0, 0), v3(10, 0, 0), 0.5f, v3(5, 0, 0), v3(0, 0, 0), 0.5f);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 0.4, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){-1, 0, 0}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){4.5L, 0, 0}), 0, 1e-5);
    // The same seen from B: same t, opposite normal, point still between the two.
    h = sweep_ss(v3(5, 0, 0), v3(0, 0, 0), 0.5f, v3(0, 0, 0), v3(10, 0, 0), 0.5f);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.4, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){1, 0, 0}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){4.5L, 0, 0}), 0, 1e-5);
}

static void test_sphere_sweep_parallel_motion_apart_never_hits(void) {
    vec3s d = v3(3, -2, 7);
    kyu_hit h = sweep_ss(v3(0, 0, 0), d, 1, v3(2.5f, 0, 0), d, 1);
    ENSURE(!h.hit);
}

static void test_sphere_sweep_parallel_motion_overlapping_hits_at_start(void) {
    vec3s d = v3(3, -2, 7);
    kyu_hit h = sweep_ss(v3(0, 0, 0), d, 1, v3(1.5f, 0, 0), d, 1);
    ENSURE(h.hit && h.start_overlap);
    ENSURE(h.t == 0);
    ENSURE(unit3(h.normal) && finite3(h.point));
    ENSURE_NEAR(ldist(h.normal, (lv3){-1, 0, 0}), 0, 1e-6);
}

static void test_sphere_sweep_overlapped_and_approaching_hits_at_start(void) {
    kyu_hit h = sweep_ss(v3(0, 0, 0), v3(0, 0, 0), 1, v3(0, 1.5f, 0), v3(0, -3, 0), 1);
    ENSURE(h.hit && h.start_overlap);
    ENSURE(h.t == 0);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, -1, 0}), 0, 1e-6);
    ENSURE(finite3(h.point));
}

static void test_sphere_sweep_overlapped_and_separating_reports_no_impact(void) {
    // Header: "A sweep that starts overlapped and is not moving apart reports t = 0"; moving apart
    // there is nothing to resolve (the same rule as touching and separating).
    kyu_hit h = sweep_ss(v3(0, 0, 0), v3(0, 0, 0), 1, v3(0, 1.5f, 0), v3(0, 3, 0), 1);
    ENSURE(!h.hit);
}

static void test_sphere_sweep_touching_and_separating_does_not_hit(void) {
    // |C0| = 2 = ra + rb exactly in float. Moving apart (Q > 0) and sideways (Q = 0): no impact.
    kyu_hit h = sweep_ss(v3(0, 0, 0), v3(-1, 0, 0), 1, v3(2, 0, 0), v3(0, 0, 0), 1);
    ENSURE(!h.hit);
    h = sweep_ss(v3(0, 0, 0), v3(0, 0, 0), 1, v3(2, 0, 0), v3(1, 0, 0), 1);
    ENSURE(!h.hit);
    h = sweep_ss(v3(0, 0, 0), v3(0, 1, 0), 1, v3(2, 0, 0), v3(0, 0, 0), 1);
    ENSURE(!h.hit);
}

static void test_sphere_sweep_touching_and_approaching_hits_at_start(void) {
    kyu_hit h = sweep_ss(v3(0, 0, 0), v3(1, 0, 0), 1, v3(2, 0, 0), v3(0, 0, 0), 1);
    ENSURE(h.hit && h.start_overlap && h.t == 0);
    ENSURE_NEAR(ldist(h.normal, (lv3){-1, 0, 0}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){1, 0, 0}), 0, 1e-6);
}

static bool hit_is_finite(kyu_hit h) { return isfinite(h.t) && finite3(h.point) && finite3(h.normal); }

static void test_sphere_sweep_coincident_centres_give_deterministic_normal(void) {
    // Header: coincident centres get the normal (0, 1, 0); nothing may be NaN (0 / 0 normalising).
    vec3s c = v3(1, 2, 3);
    kyu_hit h = sweep_ss(c, v3(0, 0, 0), 0.5f, c, v3(0, 0, 0), 0.5f);
    ENSURE(h.hit && h.start_overlap && h.t == 0 && hit_is_finite(h));
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 1, 0}), 0, 0);
    // Relative motion from coincident centres only separates them (Q = 0, distance t |D|): no hit
    // is required, but whatever is reported must be finite.
    h = sweep_ss(c, v3(1, 0, 0), 0.5f, c, v3(0, 0, 0), 0.5f);
    ENSURE(hit_is_finite(h));
    ENSURE(!h.hit || (h.t == 0 && h.start_overlap && ldist(h.normal, (lv3){0, 1, 0}) == 0));
    h = sweep_ss(c, v3(2, 2, 2), 0.5f, c, v3(2, 2, 2), 0.5f);
    ENSURE(h.hit && h.start_overlap && h.t == 0 && hit_is_finite(h));
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 1, 0}), 0, 0);
}

static void test_sphere_sweep_zero_displacement_is_a_static_test(void) {
    vec3s z = v3(0, 0, 0);
    ENSURE(!sweep_ss(v3(0, 0, 0), z, 1, v3(0, 0, 2.5f), z, 1).hit);
    kyu_hit h = sweep_ss(v3(0, 0, 0), z, 1, v3(0, 0, 1.5f), z, 1);
    ENSURE(h.hit && h.start_overlap && h.t == 0 && hit_is_finite(h));
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 0, -1}), 0, 1e-6);
    // Header: same displacement (P = 0) hits at t = 0 when touching, too (|C0| = 2 exactly).
    h = sweep_ss(v3(0, 0, 0), z, 1, v3(0, 0, 2), z, 1);
    ENSURE(h.hit && h.start_overlap && h.t == 0 && hit_is_finite(h));
}

static void test_sphere_sweep_root_just_beyond_one_is_no_hit(void) {
    // Contact needs A to travel 4: with 3.999 the root is t = 1.00025.
    ENSURE(!sweep_ss(v3(0, 0, 0), v3(3.999f, 0, 0), 0.5f, v3(5, 0, 0), v3(0, 0, 0), 0.5f).hit);
    kyu_hit h = sweep_ss(v3(0, 0, 0), v3(4.001f, 0, 0), 0.5f, v3(5, 0, 0), v3(0, 0, 0), 0.5f);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 4.0 / 4.001f, 1e-6);
    // Touching exactly at the end of the sweep counts.
    h = sweep_ss(v3(0, 0, 0), v3(4, 0, 0), 0.5f, v3(5, 0, 0), v3(0, 0, 0), 0.5f);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 1, 1e-6);
}

static void test_sphere_sweep_tangential_graze(void) {
    // B sits 1 = ra + rb off A's path: P = 100, Q = -50, R - r^2 = 25, the discriminant is exactly
    // 0 in float. Touching counts: one contact at t = 0.5 with normal (0, -1, 0).
    kyu_hit h = sweep_ss(v3(0, 0, 0), v3(10, 0, 0), 0.5f, v3(5, 1, 0), v3(0, 0, 0), 0.5f);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 0.5, 1e-3);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, -1, 0}), 0, 1e-3);
    ENSURE(!sweep_ss(v3(0, 0, 0), v3(10, 0, 0), 0.5f, v3(5, 1.001f, 0), v3(0, 0, 0), 0.5f).hit);
    // Just inside: t = 0.5 - sqrt(1 - 0.999^2) / 10.
    h = sweep_ss(v3(0, 0, 0), v3(10, 0, 0), 0.5f, v3(5, 0.999f, 0), v3(0, 0, 0), 0.5f);
    real y = 0.999f;
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.5L - sqrtl(1 - y * y) / 10, 1e-4);
}

static void test_sphere_sweep_huge_coordinates_small_radii(void) {
    // At 1e5 a float is spaced 2^-7: world positions round by 4e-3, yet B - A and the displacements
    // are exact, so t and the normal must stay as accurate as near the origin.
    sphere_case k = {v3(1e5f, -1e5f, 1e5f), v3(2, 0, 0), v3(100001.0f, -99999.9375f, 1e5f),
                     v3(0, 0, 0),           0.05f,       0.05f};
    sphere_oracle o = solve_sphere_case(&k);
    kyu_hit h = kyu_sweep_sphere_sphere(k.a0, k.da, k.ra, k.b0, k.db, k.rb);
    ENSURE(o.v.exact.kind == HIT && !o.v.ambiguous);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, o.v.exact.t, 1e-4 * o.v.exact.t);
    lv3 n = lscale(lnorm(ladd(o.C0, lscale(o.D, o.v.exact.t))), -1);
    ENSURE_NEAR(ldist(h.normal, n), 0, 1e-3);
    lv3 A = ladd(lv(k.a0), lscale(lv(k.da), o.v.exact.t));
    ENSURE_NEAR(ldist(h.point, lsub(A, lscale(n, k.ra))), 0, 2 * 0.0078125);
}

// ---- Sphere against plane -----------------------------------------------------------------------

// Signed gap s(t) = n.c(t) - offset(t) - r is linear in t: s0 + t vel.
static toi plane_toi(real s0, real vel) {
    toi o = {NO_HIT, 0};
    if (s0 < 0) o.kind = vel <= 0 ? START_HIT : START_APART;
    if (s0 == 0 && vel < 0) o.kind = START_HIT;
    if (s0 <= 0 || vel >= 0) return o;
    o.t = s0 / -vel;
    o.kind = o.t <= 1 ? HIT : NO_HIT;
    return o;
}

typedef struct plane_case {
    vec3s c0, d, n, pd;
    float r, offset;
} plane_case;

static plane_case gen_plane_case(rng *g) {
    plane_case k;
    lv3 n = rnd_dir(g), tangent = rnd_perp(g, n);
    k.n = f3(n);
    k.r = (float)rnd_log(g, 0.01L, 2);
    k.offset = (float)(rnd_in(g, -1, 1) * rnd_log(g, 0.1L, 1000));
    real gap = k.r * rnd_in(g, -1.5L, 10), speed = k.r * rnd_log(g, 0.05L, 100);
    real vrel = speed * (rnd(g) < 0.8L ? -1 : 1);
    lv3 pd = rnd(g) < 0.4L ? lscale(rnd_dir(g), speed * rnd_in(g, 0, 2)) : (lv3){0, 0, 0};
    lv3 along = lscale(tangent, speed * rnd_in(g, -3, 3));
    lv3 c0 = ladd(lscale(n, k.offset + k.r + gap), lscale(rnd_perp(g, n), rnd_log(g, 0.1L, 1e4)));
    k.c0 = f3(c0);
    k.pd = f3(pd);
    k.d = f3(ladd(along, lscale(n, vrel + ldot(n, pd))));
    return k;
}

typedef struct plane_oracle {
    verdict v;
} plane_oracle;

static real abs_dot(lv3 a, lv3 b) { return fabsl(a.x * b.x) + fabsl(a.y * b.y) + fabsl(a.z * b.z); }

static plane_oracle solve_plane_case(const plane_case *k) {
    plane_oracle o;
    lv3 n = lv(k->n);
    real s0 = ldot(n, lv(k->c0)) - k->offset - k->r;
    real vel = ldot(n, lv(k->d)) - ldot(n, lv(k->pd));
    // The dot products with n round at the sum of their terms' magnitudes.
    real e = AMBIG_K * U *
             (abs_dot(n, lv(k->c0)) + fabsl(k->offset) + k->r + abs_dot(n, lv(k->d)) + abs_dot(n, lv(k->pd)));
    o.v = judge(plane_toi(s0 + e, vel), plane_toi(s0, vel), plane_toi(s0 - e, vel));
    return o;
}

static const char *check_plane_case(const plane_case *k, const plane_oracle *o, kyu_hit h) {
    if (o->v.exact.kind == NO_HIT) return h.hit ? "hit where the oracle has none" : NULL;
    if (o->v.exact.kind == START_APART) return check_start_apart(h);
    if (!h.hit) return "missed a hit";
    if (!unit3(h.normal) || !finite3(h.point)) return "normal not unit or point not finite";
    if (ldist(h.normal, lv(k->n)) > 1e-5L) return "normal is not the plane normal";
    if (o->v.exact.kind == START_HIT)
        return h.start_overlap && h.t == 0 ? NULL : "start overlap not reported at t = 0";
    if (h.start_overlap) return "start_overlap reported for a start apart";
    if (!(fabsl(h.t - o->v.exact.t) <= o->v.tol)) return "t differs from the oracle";
    // The sphere's lowest point at the reported t; it lies on the moved plane.
    lv3 c = ladd(lv(k->c0), lscale(lv(k->d), h.t));
    lv3 expect = lsub(c, lscale(lv(k->n), k->r));
    real tol = AMBIG_K * U * (llen(lv(k->c0)) + llen(lv(k->d)) + fabsl(k->offset) + k->r) +
               llen(lv(k->d)) * fabsl(h.t - o->v.exact.t);
    return ldist(h.point, expect) <= tol ? NULL : "point is not the sphere's lowest point";
}

static void print_plane_case(int i, const plane_case *k, const plane_oracle *o, kyu_hit h) {
    printf("    case %d: kyu_sweep_sphere_plane(c0, d, r = %a (%.9g), n, offset = %a (%.9g), pd)\n", i, k->r,
           k->r, k->offset, k->offset);
    print_v("c0", k->c0);
    print_v("d", k->d);
    print_v("n", k->n);
    print_v("pd", k->pd);
    printf("      oracle kind=%d t*=%.12Lg\n", o->v.exact.kind, o->v.exact.t);
    print_hit(h);
}

static void test_plane_sweep_matches_long_double_oracle(void) {
    rng g = {777u};
    int ambiguous = 0, hits = 0, starts = 0, misses = 0, moving = 0, apart = 0;
    for (int i = 0; i < RANDOM_CASES; i++) {
        plane_case k = gen_plane_case(&g);
        plane_oracle o = solve_plane_case(&k);
        kyu_hit h = kyu_sweep_sphere_plane(k.c0, k.d, k.r, k.n, k.offset, k.pd);
        if (o.v.ambiguous) {
            ambiguous++;
            continue;
        }
        hits += o.v.exact.kind == HIT;
        moving += o.v.exact.kind == HIT && k.pd.raw[0] != 0;
        starts += o.v.exact.kind == START_HIT;
        misses += o.v.exact.kind == NO_HIT;
        apart += o.v.exact.kind == START_APART;
        const char *why = check_plane_case(&k, &o, h);
        if (why) print_plane_case(i, &k, &o, h);
        ENSURE(why == NULL);
    }
    printf("    %d cases: %d hits (%d by a moving plane), %d start overlaps, %d misses, "
           "%d overlapping and separating, %d ambiguous\n",
           RANDOM_CASES, hits, moving, starts, misses, apart, ambiguous);
    ENSURE(hits > RANDOM_CASES / 5 && misses > RANDOM_CASES / 10 && starts > RANDOM_CASES / 50);
    ENSURE(moving > RANDOM_CASES / 20);
    ENSURE(ambiguous < RANDOM_CASES / 100);
}

static const vec3s ZERO = {{0, 0, 0}}, UP = {{0, 1, 0}};

static void test_plane_sweep_falling_sphere_has_exact_time(void) {
    kyu_hit h = kyu_sweep_sphere_plane(v3(3, 5, -2), v3(0, -10, 0), 1, UP, 0, ZERO);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 0.4, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 1, 0}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){3, 0, -2}), 0, 1e-5);
    // A plane with an offset and a tilted approach: y = 2, contact when the centre reaches 2.5.
    h = kyu_sweep_sphere_plane(v3(0, 4.5f, 0), v3(8, -4, 0), 0.5f, UP, 2, ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.5, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){4, 2, 0}), 0, 1e-5);
}

static void test_plane_sweep_moving_parallel_never_hits(void) {
    ENSURE(!kyu_sweep_sphere_plane(v3(0, 2, 0), v3(100, 0, -50), 1, UP, 0, ZERO).hit);
    // Plane and sphere moving together, apart: still no hit.
    ENSURE(!kyu_sweep_sphere_plane(v3(0, 2, 0), v3(0, -5, 0), 1, UP, 0, v3(0, -5, 0)).hit);
}

static void test_plane_sweep_starting_behind_plane_hits_at_start(void) {
    // The centre is behind the plane (inside the solid side): overlapping and not moving out.
    kyu_hit h = kyu_sweep_sphere_plane(v3(0, -0.5f, 0), v3(1, -1, 0), 1, UP, 0, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0 && hit_is_finite(h));
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 1, 0}), 0, 1e-6);
    h = kyu_sweep_sphere_plane(v3(0, -0.5f, 0), v3(1, 0, 0), 1, UP, 0, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0);
    h = kyu_sweep_sphere_plane(v3(0, 0.5f, 0), v3(0, 0, 0), 1, UP, 0, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0);
}

static void test_plane_sweep_overlapped_and_leaving_reports_no_impact(void) {
    // As for spheres: overlapping and moving apart has nothing to resolve.
    ENSURE(!kyu_sweep_sphere_plane(v3(0, 0.5f, 0), v3(0, 3, 0), 1, UP, 0, ZERO).hit);
}

static void test_plane_sweep_touching_and_leaving_does_not_hit(void) {
    // n.c0 - offset = 2.5 = r + 2 exactly: touching at t = 0, moving out.
    ENSURE(!kyu_sweep_sphere_plane(v3(0, 2.5f, 0), v3(0, 1, 0), 0.5f, UP, 2, ZERO).hit);
    // Leaving relative to a plane that moves down faster than the sphere does.
    ENSURE(!kyu_sweep_sphere_plane(v3(0, 2.5f, 0), v3(0, -1, 0), 0.5f, UP, 2, v3(0, -3, 0)).hit);
    kyu_hit h = kyu_sweep_sphere_plane(v3(0, 2.5f, 0), v3(0, -1, 0), 0.5f, UP, 2, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0);
}

static void test_plane_sweep_moving_plane_catches_still_sphere(void) {
    // The plane y = 0 rises by 5; it meets the still sphere (centre 3, radius 0.5) at t = 0.5.
    kyu_hit h = kyu_sweep_sphere_plane(v3(1, 3, 1), ZERO, 0.5f, UP, 0, v3(0, 5, 0));
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 0.5, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 1, 0}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){1, 2.5L, 1}), 0, 1e-5);
    // Sliding the plane along itself changes nothing.
    h = kyu_sweep_sphere_plane(v3(1, 3, 1), ZERO, 0.5f, UP, 0, v3(7, 5, -3));
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.5, 1e-6);
}

// ---- Searches along a path, for the box and capsule oracles -------------------------------------

// The distance from a point to a convex set is convex, so along a line it is a convex function of
// t: a golden-section search finds its minimum over [0, 1] exactly, and bisection before that
// minimum finds the first t where it drops to r. Unlike dense sampling, this cannot step over a
// grazing contact, so no case needs excluding for the oracle's sake.
typedef real (*gap_fn)(const void *shape, lv3 p);
typedef struct path {
    gap_fn gap;
    const void *shape;
    lv3 p0, v;
} path;

static real path_gap(const path *pa, real t) { return pa->gap(pa->shape, ladd(pa->p0, lscale(pa->v, t))); }

static real path_min(const path *pa, real *t_min) {
    const real phi = 0.61803398874989484820L;
    real a = 0, b = 1, x1 = b - phi, x2 = phi;
    real f1 = path_gap(pa, x1), f2 = path_gap(pa, x2);
    for (int i = 0; i < 70; i++) {
        if (f1 <= f2) {
            b = x2, x2 = x1, f2 = f1, x1 = b - phi * (b - a), f1 = path_gap(pa, x1);
        } else {
            a = x1, x1 = x2, f1 = f2, x2 = a + phi * (b - a), f2 = path_gap(pa, x2);
        }
    }
    *t_min = (a + b) / 2;
    return path_gap(pa, *t_min);
}

// First t in [0, t_min] with gap <= r, given gap(0) > r >= gap(t_min).
static real path_first(const path *pa, real r, real t_min) {
    real lo = 0, hi = t_min;
    for (int i = 0; i < 64; i++) {
        real mid = (lo + hi) / 2;
        if (path_gap(pa, mid) <= r)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

// The first contact of a path that starts apart (gap(0) > r).
static toi path_toi(const path *pa, real r, real t_min, real f_min) {
    if (f_min > r) return (toi){NO_HIT, 0};
    return (toi){HIT, path_first(pa, r, t_min)};
}

// ---- Boxes --------------------------------------------------------------------------------------

typedef struct obox {
    lv3 c, ax[3];
    real h[3];
} obox;

// The box exactly as kyu holds it (float rotation columns), promoted to long double.
static obox obox_of(const kyu_box *b) {
    obox o = {lv(b->center),
              {lv(b->rotation.col[0]), lv(b->rotation.col[1]), lv(b->rotation.col[2])},
              {b->half_extents.raw[0], b->half_extents.raw[1], b->half_extents.raw[2]}};
    return o;
}

// Local coordinates by the transpose of the rotation (the header's convention).
static real box_local(const obox *b, lv3 p, int i) { return ldot(b->ax[i], lsub(p, b->c)); }

// The closest point of the box to p (p itself inside); *clamped counts the axes on which p is
// outside: 0 inside, 1 a face, 2 an edge, 3 a corner.
static lv3 box_closest(const obox *b, lv3 p, int *clamped) {
    lv3 q = b->c;
    int n = 0;
    for (int i = 0; i < 3; i++) {
        real l = box_local(b, p, i);
        if (l > b->h[i])
            l = b->h[i], n++;
        else if (l < -b->h[i])
            l = -b->h[i], n++;
        q = ladd(q, lscale(b->ax[i], l));
    }
    if (clamped) *clamped = n;
    return n ? q : p;
}

static real box_gap(const void *shape, lv3 p) { return llen(lsub(p, box_closest(shape, p, NULL))); }

// The face of least penetration for a point inside: its outward normal and depth.
static lv3 box_inside_normal(const obox *b, lv3 p, real *depth, real *runner_up) {
    int best = 0;
    real d[3];
    for (int i = 0; i < 3; i++) {
        d[i] = b->h[i] - fabsl(box_local(b, p, i));
        if (d[i] < d[best]) best = i;
    }
    *depth = d[best];
    *runner_up = d[(best + 1) % 3] < d[(best + 2) % 3] ? d[(best + 1) % 3] : d[(best + 2) % 3];
    return lscale(b->ax[best], box_local(b, p, best) < 0 ? -1 : 1);
}

// Random unit quaternion (Shoemake's uniform method), as cglm's x, y, z, w.
static versors rnd_quat(rng *g) {
    real u1 = rnd(g), a = rnd_in(g, 0, 6.283185307179586476925L);
    real b = rnd_in(g, 0, 6.283185307179586476925L);
    real s = sqrtl(1 - u1), c = sqrtl(u1);
    versors q = {{(float)(s * sinl(a)), (float)(s * cosl(a)), (float)(c * sinl(b)), (float)(c * cosl(b))}};
    return q;
}

static kyu_box rnd_box(rng *g) {
    vec3s h = f3((lv3){rnd_log(g, 0.05L, 3), rnd_log(g, 0.05L, 3), rnd_log(g, 0.05L, 3)});
    return kyu_box_make(f3(rnd_world(g)), rnd_quat(g), h);
}

static void test_box_make_rotation_matches_quaternion(void) {
    rng g = {99u};
    for (int i = 0; i < 1000; i++) {
        versors q = rnd_quat(&g);
        real x = q.raw[0], y = q.raw[1], z = q.raw[2], w = q.raw[3];
        // The columns are the images of the unit axes under q.
        lv3 col[3] = {{1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)},
                      {2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)},
                      {2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)}};
        kyu_box b = kyu_box_make(v3(1, -2, 3), q, v3(0.5f, 1, 2));
        for (int c = 0; c < 3; c++) ENSURE_NEAR(ldist(b.rotation.col[c], col[c]), 0, 1e-6);
        ENSURE_NEAR(ldist(b.center, (lv3){1, -2, 3}), 0, 0);
        ENSURE_NEAR(ldist(b.half_extents, (lv3){0.5L, 1, 2}), 0, 0);
    }
}

// ---- Sphere against box -------------------------------------------------------------------------

typedef struct box_case {
    kyu_box box;
    vec3s c0, d, bd;
    float r;
} box_case;

// A path through a target point near the grown box surface: each local coordinate lies beyond
// its face with probability 0.45, so the targets spread over face, edge and corner regions.
static box_case gen_box_case(rng *g) {
    box_case k;
    k.box = rnd_box(g);
    k.r = (float)rnd_log(g, 0.01L, 2);
    obox b = obox_of(&k.box);
    lv3 target = b.c;
    real size = k.r;
    for (int i = 0; i < 3; i++) {
        real h = b.h[i], side = rnd(g) < 0.5L ? -1 : 1;
        real l = rnd(g) < 0.45L ? side * (h + k.r * rnd_in(g, -0.3L, 1.2L)) : rnd_in(g, -h, h);
        target = ladd(target, lscale(b.ax[i], l));
        size = lmax(size, h + k.r);
    }
    real speed = size * rnd_log(g, 0.05L, 20);
    lv3 dir = rnd_dir(g);
    if (ldot(dir, lsub(target, b.c)) > 0 && rnd(g) < 0.7L) dir = lscale(dir, -1);
    lv3 v = lscale(dir, speed);
    lv3 bd = rnd(g) < 0.35L ? lscale(rnd_dir(g), speed * rnd_in(g, 0, 1.5L)) : (lv3){0, 0, 0};
    k.c0 = f3(lsub(target, lscale(v, rnd_in(g, -0.2L, 1.3L))));
    k.bd = f3(bd);
    k.d = f3(ladd(v, bd));
    return k;
}

typedef struct box_oracle {
    obox b;
    path pa; // the centre relative to the box: c0 + t (d - bd)
    real r, S, t_min, f_min;
    verdict v;
    int feature; // clamped axes at the contact (1 face, 2 edge, 3 corner)
} box_oracle;

// Overlap at t = 0: approaching (or still) is a start hit, moving apart is unspecified, and
// touching exactly while moving apart is no hit. Returns -1 when apart at t = 0.
static int box_start_kind(const box_oracle *o, real r) {
    lv3 p = o->pa.p0;
    int clamped;
    lv3 q = box_closest(&o->b, p, &clamped);
    real f0 = llen(lsub(p, q));
    if (f0 > r) return -1;
    if (!clamped) return llen(o->pa.v) == 0 ? START_HIT : START_APART;
    real slope = ldot(lsub(p, q), o->pa.v);
    if (f0 < r) return slope <= 0 ? START_HIT : START_APART;
    return slope < 0 ? START_HIT : NO_HIT;
}

static toi box_toi(const box_oracle *o, real r) {
    int start = box_start_kind(o, r);
    if (start >= 0) return (toi){start, 0};
    return path_toi(&o->pa, r, o->t_min, o->f_min);
}

static box_oracle solve_box_case(const box_case *k) {
    box_oracle o;
    o.b = obox_of(&k->box);
    o.pa = (path){box_gap, &o.b, lv(k->c0), lsub(lv(k->d), lv(k->bd))};
    o.r = k->r;
    o.f_min = path_min(&o.pa, &o.t_min);
    toi exact = box_toi(&o, o.r);
    real at = exact.kind == HIT ? exact.t : exact.kind == NO_HIT ? o.t_min : 0;
    box_closest(&o.b, ladd(o.pa.p0, lscale(o.pa.v, at)), &o.feature);
    // Box coordinates of the centre and of its motion round at their lengths (the rotation is
    // orthonormal to a few rounding units too).
    o.S = llen(lsub(o.pa.p0, o.b.c)) + llen(o.pa.v) + o.b.h[0] + o.b.h[1] + o.b.h[2] + o.r;
    real e = AMBIG_K * U * o.S;
    o.v = judge(box_toi(&o, o.r - e), exact, box_toi(&o, o.r + e));
    return o;
}

static const char *check_box_contact(const box_case *k, const box_oracle *o, kyu_hit h) {
    if (h.start_overlap) return "start_overlap reported for a start apart";
    if (!(fabsl(h.t - o->v.exact.t) <= o->v.tol)) return "t differs from the oracle";
    if (!unit3(h.normal) || !finite3(h.point)) return "normal not unit or point not finite";
    // Against the oracle's closest point at the reported t: the gradient of the distance is
    // continuous outside the box, so the normal is known to the position's rounding over r.
    lv3 p = ladd(o->pa.p0, lscale(o->pa.v, h.t));
    lv3 q = box_closest(&o->b, p, NULL);
    real tol_n = 1e-5L + AMBIG_K * U * o->S / o->r;
    if (ldist(h.normal, lnorm(lsub(p, q))) > tol_n) return "normal is not from box to sphere";
    // The contact point on the moved box; a routine may place it at the sphere's surface, which
    // differs by the gap at the reported t, at most |v| |t - t*|.
    lv3 expect = ladd(q, lscale(lv(k->bd), h.t));
    real tol_p = AMBIG_K * U * (llen(lv(k->c0)) + llen(o->b.c) + llen(lv(k->bd)) + o->S) + o->r * tol_n +
                 llen(o->pa.v) * fabsl(h.t - o->v.exact.t);
    return ldist(h.point, expect) <= tol_p ? NULL : "point is not the box's closest point";
}

static const char *check_box_case(const box_case *k, const box_oracle *o, kyu_hit h) {
    switch (o->v.exact.kind) {
    case NO_HIT:
        return h.hit ? "hit where the oracle has none" : NULL;
    case START_APART:
        return check_start_apart(h);
    case START_HIT: {
        if (!h.hit || !h.start_overlap || h.t != 0) return "start overlap not reported at t = 0";
        if (!unit3(h.normal) || !finite3(h.point)) return "normal not unit or point not finite";
        lv3 q = box_closest(&o->b, o->pa.p0, NULL), n = lsub(o->pa.p0, q);
        if (llen(n) == 0) return NULL; // centre inside: checked by the dedicated tests
        real tol_n = 1e-5L + AMBIG_K * U * o->S / llen(n);
        return ldist(h.normal, lnorm(n)) <= tol_n ? NULL : "start normal is not from box to sphere";
    }
    default:
        return h.hit ? check_box_contact(k, o, h) : "missed a hit";
    }
}

static void print_box(const kyu_box *b) {
    print_v("box.center", b->center);
    for (int i = 0; i < 3; i++) print_v("box.rotation.col[i]", b->rotation.col[i]);
    print_v("box.half_extents", b->half_extents);
}

static void print_box_case(int i, const box_case *k, const box_oracle *o, kyu_hit h) {
    printf("    case %d: kyu_sweep_sphere_box(c0, d, r = %a (%.9g), &box, bd)\n", i, k->r, k->r);
    print_v("c0", k->c0);
    print_v("d", k->d);
    print_v("bd", k->bd);
    print_box(&k->box);
    printf("      oracle kind=%d t*=%.12Lg feature=%d min gap %.12Lg at t %.6Lg\n", o->v.exact.kind,
           o->v.exact.t, o->feature, o->f_min, o->t_min);
    print_hit(h);
}

static void test_box_sweep_matches_convex_search_oracle(void) {
    rng g = {4242u};
    int ambiguous = 0, starts = 0, misses = 0, moving = 0, apart = 0, feature[4] = {0, 0, 0, 0};
    for (int i = 0; i < RANDOM_CASES; i++) {
        box_case k = gen_box_case(&g);
        box_oracle o = solve_box_case(&k);
        kyu_hit h = kyu_sweep_sphere_box(k.c0, k.d, k.r, &k.box, k.bd);
        if (o.v.ambiguous) {
            ambiguous++;
            continue;
        }
        feature[o.feature] += o.v.exact.kind == HIT;
        moving += o.v.exact.kind == HIT && llen(lv(k.bd)) > 0;
        starts += o.v.exact.kind == START_HIT;
        misses += o.v.exact.kind == NO_HIT;
        apart += o.v.exact.kind == START_APART;
        const char *why = check_box_case(&k, &o, h);
        if (why) print_box_case(i, &k, &o, h);
        ENSURE(why == NULL);
    }
    printf("    %d cases: hits on %d faces, %d edges, %d corners (%d by a moving box), %d start "
           "overlaps, %d misses, %d overlapping and separating or inside, %d ambiguous\n",
           RANDOM_CASES, feature[1], feature[2], feature[3], moving, starts, misses, apart, ambiguous);
    ENSURE(feature[1] > RANDOM_CASES / 20 && feature[2] > RANDOM_CASES / 20);
    ENSURE(feature[3] > RANDOM_CASES / 50 && moving > RANDOM_CASES / 20);
    ENSURE(misses > RANDOM_CASES / 10 && starts > RANDOM_CASES / 100);
    ENSURE(ambiguous < RANDOM_CASES / 100);
}

static kyu_box axis_box(vec3s center, vec3s half) {
    return kyu_box_make(center, (versors){{0, 0, 0, 1}}, half);
}

static void test_box_sweep_axis_aligned_has_exact_time(void) {
    kyu_box b = axis_box(v3(10, 0, 0), v3(1, 2, 3));
    // Face: the centre reaches x = 8.5 after 8.5 of 20.
    kyu_hit h = kyu_sweep_sphere_box(v3(0, 0, 0), v3(20, 0, 0), 0.5f, &b, ZERO);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 0.425, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){-1, 0, 0}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){9, 0, 0}), 0, 1e-5);
    // Edge x = 9, y = 2 (parallel to z), met head-on along the diagonal at distance 0.5.
    b = axis_box(v3(10, 0, 0), v3(1, 2, 3));
    lv3 n = lnorm((lv3){-1, 1, 0});
    h = kyu_sweep_sphere_box(v3(4, 7, 1), v3(10, -10, 0), 0.5f, &b, ZERO);
    real t = (5 * sqrtl(2) - 0.5L) / (10 * sqrtl(2));
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, t, 1e-6);
    ENSURE_NEAR(ldist(h.normal, n), 0, 1e-5);
    ENSURE_NEAR(ldist(h.point, (lv3){9, 2, 1}), 0, 1e-5);
    // Corner (11, 2, 3) met along the diagonal from (14, 5, 6): gap sqrt(27) - 0.5.
    h = kyu_sweep_sphere_box(v3(14, 5, 6), v3(-6, -6, -6), 0.5f, &b, ZERO);
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, (sqrtl(27) - 0.5L) / sqrtl(108), 1e-6);
    ENSURE_NEAR(ldist(h.normal, lnorm((lv3){1, 1, 1})), 0, 1e-5);
    ENSURE_NEAR(ldist(h.point, (lv3){11, 2, 3}), 0, 1e-5);
}

static void test_box_sweep_moving_box_catches_still_sphere(void) {
    kyu_box b = axis_box(v3(0, 0, 0), v3(1, 1, 1));
    kyu_hit h = kyu_sweep_sphere_box(v3(5, 0.5f, 0), ZERO, 0.5f, &b, v3(10, 0, 0));
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 0.35, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){1, 0, 0}), 0, 1e-6);
    ENSURE_NEAR(ldist(h.point, (lv3){4.5L, 0.5L, 0}), 0, 1e-5);
}

static void test_box_sweep_start_inside_box_hits_at_start(void) {
    // Centre inside, 0.1 from the +x face of a rotated box: least penetration is that face.
    versors q = {{0, 0.38268343236509f, 0, 0.923879532511287f}}; // 45 degrees about y
    kyu_box b = kyu_box_make(v3(1, 2, 3), q, v3(1, 2, 3));
    lv3 axis_x = lv(b.rotation.col[0]);
    vec3s c0 = f3(ladd(lv(b.center), lscale(axis_x, 0.9L)));
    kyu_hit h = kyu_sweep_sphere_box(c0, ZERO, 0.25f, &b, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0 && hit_is_finite(h));
    ENSURE_NEAR(ldist(h.normal, axis_x), 0, 1e-5);
    // Moving deeper in is not moving apart.
    h = kyu_sweep_sphere_box(c0, f3(lscale(axis_x, -1)), 0.25f, &b, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0);
    ENSURE_NEAR(ldist(h.normal, axis_x), 0, 1e-5);
}

static void test_box_sweep_start_overlapping_face_hits_at_start(void) {
    kyu_box b = axis_box(v3(0, 0, 0), v3(1, 1, 1));
    kyu_hit h = kyu_sweep_sphere_box(v3(0.25f, 1.25f, 0), v3(0, -1, 0), 0.5f, &b, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0 && hit_is_finite(h));
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 1, 0}), 0, 1e-6);
    // Still, and pushed into by the moving box: both overlap at the start.
    h = kyu_sweep_sphere_box(v3(0.25f, 1.25f, 0), ZERO, 0.5f, &b, v3(0, 1, 0));
    ENSURE(h.hit && h.start_overlap && h.t == 0);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 1, 0}), 0, 1e-6);
}

static void test_box_sweep_grazing_an_edge_exactly_touches(void) {
    // The path is tangent to the rounded edge x = y = 1: at t = 0.5 the centre (1.375, 1.5, 0) is
    // exactly 0.625 = r from the edge, in directions of exact dyadic values (3-4-5 triangle).
    kyu_box b = axis_box(v3(0, 0, 0), v3(1, 1, 1));
    vec3s c0 = v3(-2.625f, 4.5f, 0), d = v3(8, -6, 0);
    kyu_hit h = kyu_sweep_sphere_box(c0, d, 0.625f, &b, ZERO);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, 0.5, 1e-3);
    ENSURE_NEAR(ldist(h.normal, (lv3){0.6L, 0.8L, 0}), 0, 1e-3);
    ENSURE(!kyu_sweep_sphere_box(c0, d, 0.624f, &b, ZERO).hit);
    // Slightly larger: two crossings 2 sqrt(0.626^2 - 0.625^2) apart along a path of length 10.
    h = kyu_sweep_sphere_box(c0, d, 0.626f, &b, ZERO);
    real r = 0.626f;
    ENSURE(h.hit);
    ENSURE_NEAR(h.t, 0.5L - sqrtl(r * r - 0.390625L) / 10, 1e-4);
}

static void test_box_sweep_zero_displacement_is_a_static_test(void) {
    kyu_box b = axis_box(v3(0, 0, 0), v3(1, 1, 1));
    ENSURE(!kyu_sweep_sphere_box(v3(2, 2, 2), ZERO, 0.5f, &b, ZERO).hit);
    kyu_hit h = kyu_sweep_sphere_box(v3(1.25f, 0, 0), ZERO, 0.5f, &b, ZERO);
    ENSURE(h.hit && h.start_overlap && h.t == 0);
    ENSURE_NEAR(ldist(h.normal, (lv3){1, 0, 0}), 0, 1e-6);
}

static void test_box_sweep_thin_box_stops_fast_small_sphere(void) {
    // Half thickness 0.0005 against a sphere of radius 0.01 that moves 10 in one sweep: the
    // sphere's whole overlap window is 2e-3 of the sweep, so anything sampled would tunnel.
    kyu_box b = axis_box(v3(0, 0, 0), v3(1, 0.0005f, 1));
    kyu_hit h = kyu_sweep_sphere_box(v3(0.3f, 5, -0.2f), v3(0, -10, 0), 0.01f, &b, ZERO);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, (5 - 0.0005L - 0.01L) / 10, 1e-6);
    ENSURE_NEAR(ldist(h.normal, (lv3){0, 1, 0}), 0, 1e-6);
    // The same, rotated and crossed at an angle, checked against the oracle.
    box_case k = {kyu_box_make(v3(3, -1, 2), (versors){{0.5f, 0.5f, 0.5f, 0.5f}}, v3(1, 0.0005f, 1)),
                  v3(0, 0, 0), ZERO, ZERO, 0.01f};
    obox ob = obox_of(&k.box);
    lv3 across = ladd(lscale(ob.ax[1], 10), lscale(ob.ax[0], 1));
    k.c0 = f3(lsub(ob.c, lscale(across, 0.5L)));
    k.d = f3(across);
    box_oracle o = solve_box_case(&k);
    h = kyu_sweep_sphere_box(k.c0, k.d, k.r, &k.box, k.bd);
    ENSURE(o.v.exact.kind == HIT && !o.v.ambiguous);
    ENSURE(h.hit && !h.start_overlap);
    ENSURE_NEAR(h.t, o.v.exact.t, o.v.tol);
    ENSURE_NEAR(ldist(h.normal, lscale(ob.ax[1], -1)), 0, 1e-5);
}

// ---- Distance and closest point of a box --------------------------------------------------------

static const char *check_box_distance(const kyu_box *box, vec3s c, float r, int *ambiguous) {
    obox b = obox_of(box);
    lv3 p = lv(c);
    int clamped;
    lv3 q = box_closest(&b, p, &clamped);
    // Local coordinates carry the rounding of |c - centre| (and the rotation's 1e-7 departure
    // from orthonormal); world results also that of |c| and |centre|.
    real tol_local = AMBIG_K * U * (llen(lsub(p, b.c)) + b.h[0] + b.h[1] + b.h[2] + r);
    real tol = tol_local + AMBIG_K * U * (llen(p) + llen(b.c));
    if (ldist(kyu_closest_point_box(box, c), q) > tol) return "closest point";
    vec3s n, point;
    float dist = kyu_distance_sphere_box(c, r, box, &n, &point);
    if (kyu_distance_sphere_box(c, r, box, NULL, NULL) != dist) return "NULL outputs change it";
    real depth = 0, runner_up = 0;
    lv3 expect_n = clamped ? lnorm(lsub(p, q)) : box_inside_normal(&b, p, &depth, &runner_up);
    real gap = clamped ? llen(lsub(p, q)) : -depth;
    if (fabsl(dist - (gap - r)) > tol_local) return "distance";
    if (!unit3(n) || !finite3(point)) return "normal not unit or point not finite";
    // The normal is undetermined for a centre within rounding of the surface (outside), or of two
    // faces equally deep (inside): count those and skip only the normal. Outside, it turns by the
    // local rounding over the gap.
    if ((clamped && gap < 4 * tol_local) || (!clamped && runner_up - depth < 2 * tol_local)) {
        ++*ambiguous;
        return NULL;
    }
    if (ldist(n, expect_n) > 1e-5L + (clamped ? tol_local / gap : 0)) return "normal";
    // The contact point: the box's closest point or the sphere's deepest point when apart; inside,
    // the header leaves it open, but it must lie on the line through c along the normal.
    lv3 deepest = lsub(p, lscale(expect_n, r));
    if (clamped) return ldist(point, q) <= tol || ldist(point, deepest) <= tol ? NULL : "point";
    lv3 off = lsub(lv(point), p);
    return llen(lcross(off, expect_n)) <= tol ? NULL : "point not on the normal through c";
}

static void test_box_distance_and_closest_point_match_brute_force(void) {
    rng g = {2024u};
    int ambiguous = 0, inside = 0;
    for (int i = 0; i < RANDOM_CASES; i++) {
        kyu_box box = rnd_box(&g);
        obox b = obox_of(&box);
        float r = (float)rnd_log(&g, 0.01L, 2);
        // Local coordinates up to 1.6 times the grown half extent: inside, near and outside.
        lv3 p = b.c;
        for (int a = 0; a < 3; a++) p = ladd(p, lscale(b.ax[a], (b.h[a] + r) * rnd_in(&g, -1.6L, 1.6L)));
        vec3s c = f3(p);
        int clamped;
        box_closest(&b, lv(c), &clamped);
        inside += !clamped;
        const char *why = check_box_distance(&box, c, r, &ambiguous);
        if (why) {
            printf("    case %d: %s wrong for c, r = %a (%.9g)\n", i, why, r, r);
            print_v("c", c);
            print_box(&box);
        }
        ENSURE(why == NULL);
    }
    printf("    %d cases: %d centres inside, %d normals ambiguous\n", RANDOM_CASES, inside, ambiguous);
    ENSURE(inside > RANDOM_CASES / 20 && ambiguous < RANDOM_CASES / 100);
}

static void test_box_distance_inside_uses_least_penetration_face(void) {
    kyu_box b = axis_box(v3(0, 0, 0), v3(1, 2, 3));
    vec3s n, p;
    float d = kyu_distance_sphere_box(v3(0.25f, -1.75f, 0.5f), 0.5f, &b, &n, &p);
    ENSURE_NEAR(d, -0.75, 1e-6); // 0.25 to the -y face, plus the radius
    ENSURE_NEAR(ldist(n, (lv3){0, -1, 0}), 0, 0);
    vec3s q = kyu_closest_point_box(&b, v3(0.25f, -1.75f, 0.5f));
    ENSURE_NEAR(ldist(q, (lv3){0.25L, -1.75L, 0.5L}), 0, 0);
    d = kyu_distance_sphere_box(v3(4, 6, 0), 1, &b, &n, &p); // edge x = 1, y = 2: gap 5
    ENSURE_NEAR(d, 4, 1e-6);
    ENSURE_NEAR(ldist(n, (lv3){0.6L, 0.8L, 0}), 0, 1e-6);
    ENSURE_NEAR(ldist(kyu_closest_point_box(&b, v3(4, 6, 0)), (lv3){1, 2, 0}), 0, 1e-6);
}

// ---- Segment against capsule --------------------------------------------------------------------

typedef struct capsule {
    lv3 a, b;
} capsule;

static real capsule_gap(const void *shape, lv3 p) {
    const capsule *c = shape;
    lv3 ab = lsub(c->b, c->a), ap = lsub(p, c->a);
    real len2 = ldot(ab, ab), s = len2 > 0 ? ldot(ap, ab) / len2 : 0;
    s = s < 0 ? 0 : s > 1 ? 1 : s;
    return llen(lsub(ap, lscale(ab, s)));
}

typedef struct capsule_case {
    vec3s p, d, a, b;
    float r;
} capsule_case;

// A path through a target near the capsule (beyond the ends too), 15% degenerate (a == b).
static capsule_case gen_capsule_case(rng *g) {
    capsule_case k;
    k.r = (float)rnd_log(g, 0.01L, 2);
    real len = rnd(g) < 0.15L ? 0 : k.r * rnd_log(g, 0.1L, 20);
    lv3 a = rnd_world(g), axis = rnd_dir(g);
    lv3 target = ladd(ladd(a, lscale(axis, len * rnd_in(g, -0.3L, 1.3L))),
                      lscale(rnd_perp(g, axis), k.r * rnd_in(g, 0, 1.3L)));
    lv3 dir = rnd_dir(g), mid = ladd(a, lscale(axis, len / 2));
    if (ldot(dir, lsub(target, mid)) > 0 && rnd(g) < 0.7L) dir = lscale(dir, -1);
    lv3 v = lscale(dir, (k.r + len) * rnd_log(g, 0.05L, 20));
    k.a = f3(a);
    k.b = f3(ladd(a, lscale(axis, len)));
    k.p = f3(lsub(target, lscale(v, rnd_in(g, -0.2L, 1.3L))));
    k.d = f3(v);
    return k;
}

// Starting inside (or touching and not approaching) is "no entry": the header returns false.
static toi capsule_toi(const path *pa, real r, real t_min, real f_min) {
    real f0 = path_gap(pa, 0);
    if (f0 < r || (f0 == r && path_gap(pa, 1e-9L) >= f0)) return (toi){START_APART, 0};
    if (f0 == r) return (toi){HIT, 0};
    return path_toi(pa, r, t_min, f_min);
}

static void print_capsule_case(int i, const capsule_case *k, real t_expect, bool got, float t) {
    printf("    case %d: kyu_segment_capsule_entry(p, d, a, b, r = %a (%.9g), &t)\n", i, k->r, k->r);
    print_v("p", k->p);
    print_v("d", k->d);
    print_v("a", k->a);
    print_v("b", k->b);
    printf("      expected t* = %.12Lg (-1: none), got %d t = %.9g\n", t_expect, got, t);
}

static void test_segment_capsule_entry_matches_convex_search_oracle(void) {
    rng g = {31337u};
    int ambiguous = 0, hits = 0, inside = 0, misses = 0, spheres = 0;
    for (int i = 0; i < RANDOM_CASES; i++) {
        capsule_case k = gen_capsule_case(&g);
        capsule cap = {lv(k.a), lv(k.b)};
        path pa = {capsule_gap, &cap, lv(k.p), lv(k.d)};
        real t_min, f_min = path_min(&pa, &t_min);
        // p - a, d and b - a round at their lengths.
        real e = AMBIG_K * U * (llen(lsub(pa.p0, cap.a)) + llen(pa.v) + llen(lsub(cap.b, cap.a)) + k.r);
        verdict v = judge(capsule_toi(&pa, k.r - e, t_min, f_min), capsule_toi(&pa, k.r, t_min, f_min),
                          capsule_toi(&pa, k.r + e, t_min, f_min));
        toi exact = v.exact;
        if (v.ambiguous) {
            ambiguous++;
            continue;
        }
        float t = -1;
        bool got = kyu_segment_capsule_entry(k.p, k.d, k.a, k.b, k.r, &t);
        bool ok = exact.kind == HIT ? got && fabsl(t - exact.t) <= v.tol : !got;
        if (!ok) print_capsule_case(i, &k, exact.kind == HIT ? exact.t : -1, got, t);
        ENSURE(ok);
        hits += exact.kind == HIT;
        spheres += exact.kind == HIT && ldist(k.a, lv(k.b)) == 0;
        inside += exact.kind == START_APART;
        misses += exact.kind == NO_HIT;
    }
    printf("    %d cases: %d entries (%d into degenerate capsules), %d starts inside, %d misses, "
           "%d ambiguous\n",
           RANDOM_CASES, hits, spheres, inside, misses, ambiguous);
    ENSURE(hits > RANDOM_CASES / 5 && misses > RANDOM_CASES / 10 && inside > RANDOM_CASES / 100);
    ENSURE(spheres > RANDOM_CASES / 50 && ambiguous < RANDOM_CASES / 100);
}

static void test_segment_capsule_entry_degenerate_capsule_is_a_sphere(void) {
    vec3s c = v3(1, 2, 3);
    float t = -1;
    ENSURE(kyu_segment_capsule_entry(v3(-4, 2, 3), v3(10, 0, 0), c, c, 1, &t));
    ENSURE_NEAR(t, 0.4, 1e-6);
    // 0.6 off the path: the chord starts at x = 1 - 0.8.
    ENSURE(kyu_segment_capsule_entry(v3(-4, 2.6f, 3), v3(10, 0, 0), c, c, 1, &t));
    ENSURE_NEAR(t, 0.42, 1e-6);
    ENSURE(!kyu_segment_capsule_entry(v3(-4, 3.5f, 3), v3(10, 0, 0), c, c, 1, &t));
    ENSURE(!kyu_segment_capsule_entry(v3(1, 2.5f, 3), v3(10, 0, 0), c, c, 1, &t)); // inside
    ENSURE(!kyu_segment_capsule_entry(v3(-4, 2, 3), v3(1, 0, 0), c, c, 1, &t));    // too short
}

static void test_segment_capsule_entry_parallel_to_axis_enters_through_cap(void) {
    vec3s a = v3(0, 0, -1), b = v3(0, 0, 1);
    float t = -1;
    // Along the axis: the cap's pole at z = -1.5.
    ENSURE(kyu_segment_capsule_entry(v3(0, 0, -5), v3(0, 0, 10), a, b, 0.5f, &t));
    ENSURE_NEAR(t, 0.35, 1e-6);
    // 0.3 off the axis: z = -1 - sqrt(0.25 - 0.09) = -1.4.
    ENSURE(kyu_segment_capsule_entry(v3(0.3f, 0, -5), v3(0, 0, 10), a, b, 0.5f, &t));
    ENSURE_NEAR(t, 0.36, 1e-6);
    // From the other end, and outside the radius.
    ENSURE(kyu_segment_capsule_entry(v3(0, 0.3f, 5), v3(0, 0, -10), a, b, 0.5f, &t));
    ENSURE_NEAR(t, 0.36, 1e-6);
    ENSURE(!kyu_segment_capsule_entry(v3(0.6f, 0, -5), v3(0, 0, 10), a, b, 0.5f, &t));
    // Starting inside the cylinder part, moving along the axis: no entry.
    ENSURE(!kyu_segment_capsule_entry(v3(0.2f, 0, 0), v3(0, 0, 10), a, b, 0.5f, &t));
}

static void test_segment_capsule_entry_side_hit_has_exact_time(void) {
    float t = -1;
    ENSURE(kyu_segment_capsule_entry(v3(5, 0, 0.5f), v3(-10, 0, 0), v3(0, 0, -1), v3(0, 0, 1), 0.5f, &t));
    ENSURE_NEAR(t, 0.45, 1e-6);
    ENSURE(!kyu_segment_capsule_entry(v3(5, 0, 0.5f), v3(-1, 0, 0), v3(0, 0, -1), v3(0, 0, 1), 0.5f, &t));
}

// ---- Quaternions in one order of operations (engine/geometry/fquat.h) ---------------------------

// A box's frame and a turning plane's normal come from kyu's own quaternion functions, written in
// the order of cglm's SSE2 path: on x86-64 they must give cglm's very bits (so no answer changed
// when they replaced it), and on every processor the same bits (an FNV-1a hash of 3000 cases'
// results, pinned: ARM64 and wasm, whose cglm sums in other orders, compute it in CI).
static uint64_t fnv_bits(uint64_t h, const void *p, size_t n) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 0x100000001b3ull;
    return h;
}

static void test_quaternion_frames_are_bit_identical_on_every_processor(void) {
    uint32_t lcg = 777;
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < 3000; i++) {
        float c[4];
        for (int k = 0; k < 4; k++) {
            lcg = lcg * 1664525u + 1013904223u;
            c[k] = (float)((double)(lcg >> 8) / 16777216.0 * 2.0 - 1.0);
        }
        versors q = {{c[0], c[1], c[2], c[3]}};
        if (i % 2) { // near unit, as a stored orientation is: a norm of 1 within a few roundings
            double n =
                sqrt((double)c[0] * c[0] + (double)c[1] * c[1] + (double)c[2] * c[2] + (double)c[3] * c[3]);
            for (int k = 0; k < 4; k++) q.raw[k] = (float)(c[k] / n);
        }
        vec3s v = {{c[1] * 3.0f, c[2] - 0.5f, c[0] * 7.0f}};
        versors u = kyu_fquat_normalize(q);
        vec3s r = kyu_fquat_rotatev(q, v);
        mat3s m = kyu_fquat_mat3(q);
        h = fnv_bits(h, u.raw, sizeof u.raw);
        h = fnv_bits(h, r.raw, sizeof r.raw);
        h = fnv_bits(h, m.raw, sizeof m.raw);
#if defined(__SSE2__)
        versors cu = glms_quat_normalize(q);
        vec3s cr = glms_quat_rotatev(q, v);
        mat3s cm = glms_quat_mat3(q);
        ENSURE(memcmp(u.raw, cu.raw, sizeof u.raw) == 0);
        ENSURE(memcmp(r.raw, cr.raw, sizeof r.raw) == 0);
        ENSURE(memcmp(m.raw, cm.raw, sizeof m.raw) == 0);
#endif
    }
    if (h != 0x1d36dbf889df302full) printf("    quaternion hash %016llx\n", (unsigned long long)h);
    ENSURE(h == 0x1d36dbf889df302full);
}

void suite_geometry(void) {
    RUN_TEST(test_quaternion_frames_are_bit_identical_on_every_processor);
    RUN_TEST(test_sphere_sweep_matches_long_double_oracle);
    RUN_TEST(test_sphere_sweep_head_on_has_exact_time);
    RUN_TEST(test_sphere_sweep_parallel_motion_apart_never_hits);
    RUN_TEST(test_sphere_sweep_parallel_motion_overlapping_hits_at_start);
    RUN_TEST(test_sphere_sweep_overlapped_and_approaching_hits_at_start);
    RUN_TEST(test_sphere_sweep_overlapped_and_separating_reports_no_impact);
    RUN_TEST(test_sphere_sweep_touching_and_separating_does_not_hit);
    RUN_TEST(test_sphere_sweep_touching_and_approaching_hits_at_start);
    RUN_TEST(test_sphere_sweep_coincident_centres_give_deterministic_normal);
    RUN_TEST(test_sphere_sweep_zero_displacement_is_a_static_test);
    RUN_TEST(test_sphere_sweep_root_just_beyond_one_is_no_hit);
    RUN_TEST(test_sphere_sweep_tangential_graze);
    RUN_TEST(test_sphere_sweep_huge_coordinates_small_radii);
    RUN_TEST(test_plane_sweep_matches_long_double_oracle);
    RUN_TEST(test_plane_sweep_falling_sphere_has_exact_time);
    RUN_TEST(test_plane_sweep_moving_parallel_never_hits);
    RUN_TEST(test_plane_sweep_starting_behind_plane_hits_at_start);
    RUN_TEST(test_plane_sweep_overlapped_and_leaving_reports_no_impact);
    RUN_TEST(test_plane_sweep_touching_and_leaving_does_not_hit);
    RUN_TEST(test_plane_sweep_moving_plane_catches_still_sphere);
    RUN_TEST(test_box_make_rotation_matches_quaternion);
    RUN_TEST(test_box_sweep_matches_convex_search_oracle);
    RUN_TEST(test_box_sweep_axis_aligned_has_exact_time);
    RUN_TEST(test_box_sweep_moving_box_catches_still_sphere);
    RUN_TEST(test_box_sweep_start_inside_box_hits_at_start);
    RUN_TEST(test_box_sweep_start_overlapping_face_hits_at_start);
    RUN_TEST(test_box_sweep_grazing_an_edge_exactly_touches);
    RUN_TEST(test_box_sweep_zero_displacement_is_a_static_test);
    RUN_TEST(test_box_sweep_thin_box_stops_fast_small_sphere);
    RUN_TEST(test_box_distance_and_closest_point_match_brute_force);
    RUN_TEST(test_box_distance_inside_uses_least_penetration_face);
    RUN_TEST(test_segment_capsule_entry_matches_convex_search_oracle);
    RUN_TEST(test_segment_capsule_entry_degenerate_capsule_is_a_sphere);
    RUN_TEST(test_segment_capsule_entry_parallel_to_axis_enters_through_cap);
    RUN_TEST(test_segment_capsule_entry_side_hit_has_exact_time);
}
