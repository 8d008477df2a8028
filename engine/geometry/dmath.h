// SPDX-License-Identifier: MIT
// Double-precision 3-vectors for the geometry routines: float inputs, double arithmetic, float out.
#ifndef KYU_DMATH_H
#define KYU_DMATH_H

#include <math.h>

#include <cglm/struct.h>

typedef struct dv3 {
    double x, y, z;
} dv3;

static inline dv3 dv(vec3s v) { return (dv3){(double)v.x, (double)v.y, (double)v.z}; }
static inline dv3 dsub(dv3 a, dv3 b) { return (dv3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline dv3 dmad(dv3 a, dv3 b, double s) { return (dv3){a.x + b.x * s, a.y + b.y * s, a.z + b.z * s}; }
static inline double ddot(dv3 a, dv3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline double dget(dv3 a, int k) { return k == 0 ? a.x : k == 1 ? a.y : a.z; }
static inline vec3s fv(dv3 a) { return (vec3s){{(float)a.x, (float)a.y, (float)a.z}}; }
static inline double clampd(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }
static inline dv3 dscale(dv3 a, double s) { return (dv3){a.x * s, a.y * s, a.z * s}; }
static inline double dlen(dv3 a) { return sqrt(ddot(a, a)); }
static inline dv3 dcross(dv3 a, dv3 b) {
    return (dv3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

// closest.c: the closest points c1 on segment p1-q1 and c2 on p2-q2 (robust when the segments are
// nearly parallel, and for degenerate segments); returns |c1 - c2|^2. Every segment pair in the
// geometry routines goes through it.
double kyu_dsegments_closest(dv3 p1, dv3 q1, dv3 p2, dv3 q2, dv3 *c1, dv3 *c2);

// The slab test of the line p + t d against the box lo <= x <= hi. Returns the time
// it enters the last slab (-INFINITY if no axis bounds it) and sets *t_exit to the time it leaves
// the first (t_enter > t_exit: it misses), and *axis to the slab entered last (the lowest axis on a
// tie; -1 if none); a line parallel to a slab and outside it misses (returns NAN). Each caller
// clips the times to its own range (a ray from 0, a sweep in [0, 1]). Every ray-box test in the
// engine is this one.
static inline double kyu_dslab(const double p[3], const double d[3], const double lo[3], const double hi[3],
                               int *axis, double *t_exit) {
    double t0 = -(double)INFINITY, t1 = (double)INFINITY;
    *axis = -1;
    for (int i = 0; i < 3; i++) {
        if (d[i] == 0.0) {
            if (p[i] < lo[i] || p[i] > hi[i]) return *t_exit = (double)NAN;
            continue;
        }
        double ta = (lo[i] - p[i]) / d[i], tb = (hi[i] - p[i]) / d[i];
        if (ta > tb) {
            double s = ta;
            ta = tb;
            tb = s;
        }
        if (ta > t0) {
            t0 = ta;
            *axis = i;
        }
        if (tb < t1) t1 = tb;
    }
    *t_exit = t1;
    return t0;
}

#endif
