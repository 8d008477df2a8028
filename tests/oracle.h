// SPDX-License-Identifier: MIT
// The independent oracle of the geometry tests: long double vectors and a deterministic random
// case generator, shared by test_geometry.c, test_sweeps.c and test_closest.c. Each file keeps what
// is its own (its unit-length tolerance, the scale of its far-away cases).
#ifndef KYU_TEST_ORACLE_H
#define KYU_TEST_ORACLE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "test.h"

typedef long double real;
typedef struct lv3 {
    real x, y, z;
} lv3;

// Float rounding unit.
static const real U = 5.9604644775390625e-8L;

static inline lv3 lv(vec3s v) { return (lv3){v.raw[0], v.raw[1], v.raw[2]}; }
static inline vec3s f3(lv3 v) { return v3((float)v.x, (float)v.y, (float)v.z); }
static inline lv3 ladd(lv3 a, lv3 b) { return (lv3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline lv3 lsub(lv3 a, lv3 b) { return (lv3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline lv3 lscale(lv3 a, real s) { return (lv3){a.x * s, a.y * s, a.z * s}; }
static inline lv3 lmad(lv3 a, lv3 b, real s) { return (lv3){a.x + b.x * s, a.y + b.y * s, a.z + b.z * s}; }
static inline real ldot(lv3 a, lv3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline real llen(lv3 a) { return sqrtl(ldot(a, a)); }
static inline lv3 lnorm(lv3 a) { return lscale(a, 1 / llen(a)); }
static inline lv3 lcross(lv3 a, lv3 b) {
    return (lv3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline real ldist(vec3s a, lv3 b) { return llen(lsub(lv(a), b)); }
static inline real lmax(real a, real b) { return a > b ? a : b; }
static inline real lmin(real a, real b) { return a < b ? a : b; }
static inline bool finite3(vec3s v) { return isfinite(v.raw[0]) && isfinite(v.raw[1]) && isfinite(v.raw[2]); }

// Deterministic random numbers: an LCG, of which only the top 24 bits are used (the low bits of an
// LCG are poor).
typedef struct rng {
    uint32_t s;
} rng;
static inline real rnd(rng *g) {
    g->s = g->s * 1664525u + 1013904223u;
    return (real)(g->s >> 8) / 16777216.0L;
}
static inline real rnd_in(rng *g, real lo, real hi) { return lo + (hi - lo) * rnd(g); }
// Log-uniform, so that every scale between lo and hi is equally represented.
static inline real rnd_log(rng *g, real lo, real hi) { return lo * powl(hi / lo, rnd(g)); }
static inline lv3 rnd_dir(rng *g) {
    real z = rnd_in(g, -1, 1), phi = rnd_in(g, 0, 6.283185307179586476925L);
    real s = sqrtl(1 - z * z);
    return (lv3){s * cosl(phi), s * sinl(phi), z};
}
static inline lv3 rnd_perp(rng *g, lv3 dir) {
    lv3 p = lcross(dir, rnd_dir(g));
    return llen(p) > 1e-3L ? lnorm(p) : rnd_perp(g, dir);
}
// A world offset that is often 0, sometimes far from the origin (up to `farthest`: large
// coordinates, small shapes).
static inline lv3 rnd_world_upto(rng *g, real farthest) {
    const real far[4] = {0, 1, 100, farthest};
    return lscale(rnd_dir(g), far[(g->s >> 12) & 3] * rnd(g));
}

static inline void print_v(const char *name, vec3s v) {
    printf("      %s = (%a, %a, %a) = (%.9g, %.9g, %.9g)\n", name, v.raw[0], v.raw[1], v.raw[2], v.raw[0],
           v.raw[1], v.raw[2]);
}

#endif
