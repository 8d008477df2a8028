// SPDX-License-Identifier: MIT
// Convex shapes: support functions, GJK (closest points), EPA (penetration), sphere vs hull distance
// and sweep, box vs box SAT. Float in and out, double inside: GJK's termination test compares
// |v|^2 with v.w, two nearly equal numbers, and only double leaves digits for the float answer.
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "dmath.h"
#include "kyu/geometry.h"

static dv3 cx_add(dv3 a, dv3 b) { return (dv3){a.x + b.x, a.y + b.y, a.z + b.z}; }

// The result of GJK on the cores, in double.
typedef struct cx_gjk_result {
    dv3 pa, pb;      // closest points of the cores (a common point when overlapping)
    double distance; // between the cores (0 when overlapping)
    double scale;    // largest |w| seen: the size against which tolerances are set
    bool overlap;
    int n; // the final simplex (for EPA to start from)
    dv3 w[4], a[4], b[4];
} cx_gjk_result;

static dv3 cx_support_box(const kyu_box *box, dv3 u);
static int cx_support_index(const vec3s *points, int count, dv3 u);

// ---- support functions --------------------------------------------------------------------------

vec3s kyu_support_sphere(vec3s center, float radius, vec3s dir) {
    dv3 u = dv(dir);
    double len = sqrt(ddot(u, u));
    if (!(len > 0.0)) u = (dv3){0.0, 1.0, 0.0}, len = 1.0;
    return fv(dmad(dv(center), u, (double)radius / len));
}

vec3s kyu_support_box(const kyu_box *box, vec3s dir) { return fv(cx_support_box(box, dv(dir))); }

vec3s kyu_support_capsule(const kyu_capsule *capsule, vec3s dir) {
    dv3 u = dv(dir), a = dv(capsule->a), b = dv(capsule->b);
    dv3 end = ddot(u, b) > ddot(u, a) ? b : a;
    double len = sqrt(ddot(u, u));
    if (!(len > 0.0)) return fv(dmad(end, (dv3){0.0, 1.0, 0.0}, (double)capsule->radius));
    return fv(dmad(end, u, (double)capsule->radius / len));
}

vec3s kyu_support_hull(const kyu_hull *hull, vec3s dir) {
    return hull->points[cx_support_index(hull->points, hull->count, dv(dir))];
}

static dv3 cx_support_box(const kyu_box *box, dv3 u) {
    const mat3s *m = &box->rotation;
    const float e[3] = {box->half_extents.x, box->half_extents.y, box->half_extents.z};
    dv3 p = dv(box->center);
    for (int i = 0; i < 3; i++) {
        dv3 axis = dv(m->col[i]);
        p = dmad(p, axis, ddot(axis, u) >= 0.0 ? (double)e[i] : -(double)e[i]);
    }
    return p;
}

static int cx_support_index(const vec3s *points, int count, dv3 u) {
    int best = 0;
    double best_d = -DBL_MAX;
    for (int i = 0; i < count; i++) {
        double d = ddot(dv(points[i]), u);
        if (d > best_d) best_d = d, best = i;
    }
    return best;
}

// ---- generic convex shapes ----------------------------------------------------------------------

kyu_convex kyu_convex_sphere(vec3s center, float radius) {
    kyu_convex s = {.type = KYU_CONVEX_POINT, .radius = radius};
    s.point = center;
    return s;
}

kyu_convex kyu_convex_capsule(const kyu_capsule *capsule) {
    kyu_convex s = {.type = KYU_CONVEX_SEGMENT, .radius = capsule->radius};
    s.segment = (kyu_segment){capsule->a, capsule->b};
    return s;
}

kyu_convex kyu_convex_box(const kyu_box *box) {
    kyu_convex s = {.type = KYU_CONVEX_BOX, .radius = 0.0f};
    s.box = *box;
    return s;
}

kyu_convex kyu_convex_hull(const kyu_hull *hull, float radius) {
    kyu_convex s = {.type = KYU_CONVEX_HULL, .radius = radius};
    s.hull = *hull;
    return s;
}

// The core's support point in double (the radius is added by the callers).
static dv3 core_support(const kyu_convex *s, dv3 u) {
    switch (s->type) {
    case KYU_CONVEX_POINT:
        return dv(s->point);
    case KYU_CONVEX_SEGMENT: {
        dv3 a = dv(s->segment.a), b = dv(s->segment.b);
        return ddot(u, b) > ddot(u, a) ? b : a;
    }
    case KYU_CONVEX_BOX:
        return cx_support_box(&s->box, u);
    case KYU_CONVEX_HULL:
        return dv(s->hull.points[cx_support_index(s->hull.points, s->hull.count, u)]);
    case KYU_CONVEX_CALLBACK: {
        // Unit direction in float: a support callback should not have to cope with huge vectors.
        double len = sqrt(ddot(u, u));
        dv3 n = len > 0.0 ? (dv3){u.x / len, u.y / len, u.z / len} : (dv3){0.0, 1.0, 0.0};
        return dv(s->callback.support(s->callback.user, fv(n)));
    }
    }
    return (dv3){0.0, 0.0, 0.0};
}

// A point inside the core (a start for GJK's search direction).
static dv3 core_center(const kyu_convex *s) {
    switch (s->type) {
    case KYU_CONVEX_POINT:
        return dv(s->point);
    case KYU_CONVEX_SEGMENT:
        return dscale(cx_add(dv(s->segment.a), dv(s->segment.b)), 0.5);
    case KYU_CONVEX_BOX:
        return dv(s->box.center);
    case KYU_CONVEX_HULL:
        return dv(s->hull.points[0]);
    case KYU_CONVEX_CALLBACK:
        break;
    }
    dv3 p = core_support(s, (dv3){1.0, 0.0, 0.0}), q = core_support(s, (dv3){-1.0, 0.0, 0.0});
    return dscale(cx_add(p, q), 0.5);
}

vec3s kyu_convex_support(const kyu_convex *shape, vec3s dir) {
    dv3 u = dv(dir);
    double len = sqrt(ddot(u, u));
    dv3 p = core_support(shape, u);
    if (!(len > 0.0)) u = (dv3){0.0, 1.0, 0.0}, len = 1.0;
    return fv(dmad(p, u, (double)shape->radius / len));
}

// ---- GJK ----------------------------------------------------------------------------------------

// A vertex of the Minkowski difference A - B with the support points it came from.
typedef struct sv {
    dv3 w, a, b;
} sv;

typedef struct simplex {
    sv p[4];
    double l[4]; // barycentric weights of the closest point
    int n;
} simplex;

static sv support_pair(const kyu_convex *A, dv3 shift, const kyu_convex *B, dv3 u) {
    sv s;
    s.a = cx_add(core_support(A, u), shift);
    s.b = core_support(B, dscale(u, -1.0));
    s.w = dsub(s.a, s.b);
    return s;
}

static void keep(simplex *s, int i0, double l0) {
    s->p[0] = s->p[i0];
    s->l[0] = l0;
    s->n = 1;
}

static void keep2(simplex *s, int i0, int i1, double l1) {
    sv p0 = s->p[i0], p1 = s->p[i1];
    s->p[0] = p0, s->p[1] = p1;
    s->l[0] = 1.0 - l1, s->l[1] = l1;
    s->n = 2;
}

// Closest point of segment p0-p1 to the origin; reduces the simplex to the support feature.
static void solve2(simplex *s, int i0, int i1) {
    dv3 a = s->p[i0].w, ab = dsub(s->p[i1].w, a);
    double den = ddot(ab, ab), num = -ddot(a, ab);
    if (!(den > 0.0) || num <= 0.0) {
        keep(s, i0, 1.0);
        return;
    }
    if (num >= den) {
        keep(s, i1, 1.0);
        return;
    }
    keep2(s, i0, i1, num / den);
}

static dv3 simplex_point(const simplex *s) {
    dv3 v = {0.0, 0.0, 0.0};
    for (int i = 0; i < s->n; i++) v = dmad(v, s->p[i].w, s->l[i]);
    return v;
}

// Closest point of triangle p0 p1 p2 to the origin (Ericson's Voronoi-region walk). A degenerate
// (collinear) triangle has no interior region: it falls back to the best of its edges.
static void solve3(simplex *s) {
    dv3 a = s->p[0].w, b = s->p[1].w, c = s->p[2].w;
    dv3 ab = dsub(b, a), ac = dsub(c, a);
    double d1 = -ddot(ab, a), d2 = -ddot(ac, a);
    if (d1 <= 0.0 && d2 <= 0.0) {
        keep(s, 0, 1.0);
        return;
    }
    double d3 = -ddot(ab, b), d4 = -ddot(ac, b);
    if (d3 >= 0.0 && d4 <= d3) {
        keep(s, 1, 1.0);
        return;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        solve2(s, 0, 1);
        return;
    }
    double d5 = -ddot(ab, c), d6 = -ddot(ac, c);
    if (d6 >= 0.0 && d5 <= d6) {
        keep(s, 2, 1.0);
        return;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        solve2(s, 0, 2);
        return;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
        solve2(s, 1, 2);
        return;
    }
    double den = va + vb + vc;
    dv3 n = dcross(ab, ac);
    if (!(den > 0.0) || ddot(n, n) <= 1e-24 * ddot(ab, ab) * ddot(ac, ac)) {
        simplex best = *s;
        double best_d = DBL_MAX;
        const int e[3][2] = {{0, 1}, {0, 2}, {1, 2}};
        for (int k = 0; k < 3; k++) {
            simplex t = *s;
            solve2(&t, e[k][0], e[k][1]);
            dv3 v = simplex_point(&t);
            if (ddot(v, v) < best_d) best_d = ddot(v, v), best = t;
        }
        *s = best;
        return;
    }
    s->l[1] = vb / den, s->l[2] = vc / den, s->l[0] = 1.0 - s->l[1] - s->l[2];
    s->n = 3;
}

// Tetrahedron: the origin is inside unless it lies strictly beyond one of the faces; then the
// answer is the closest of those faces. A flat tetrahedron has no inside: every face is tried.
// Returns true when the origin is enclosed.
static bool solve4(simplex *s) {
    static const int f[4][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0}};
    simplex best = *s;
    double best_d = DBL_MAX;
    bool any = false;
    for (int k = 0; k < 4; k++) {
        dv3 a = s->p[f[k][0]].w, b = s->p[f[k][1]].w, c = s->p[f[k][2]].w, d = s->p[f[k][3]].w;
        dv3 n = dcross(dsub(b, a), dsub(c, a));
        double so = -ddot(n, a), sd = ddot(n, dsub(d, a));
        dv3 da = dsub(d, a);
        bool flat = sd * sd <= 1e-24 * ddot(n, n) * ddot(da, da);
        if (!flat && so * sd >= 0.0) continue; // the origin is on the inner side of this face
        any = true;
        simplex t = *s;
        t.p[0] = s->p[f[k][0]], t.p[1] = s->p[f[k][1]], t.p[2] = s->p[f[k][2]];
        t.n = 3;
        solve3(&t);
        dv3 v = simplex_point(&t);
        if (ddot(v, v) < best_d) best_d = ddot(v, v), best = t;
    }
    if (!any) {
        // Enclosed: barycentric weights from the sub-volumes (for the closest points, = origin).
        dv3 a = s->p[0].w, b = s->p[1].w, c = s->p[2].w, d = s->p[3].w;
        double vol = ddot(dsub(d, a), dcross(dsub(b, a), dsub(c, a)));
        double wb = ddot(dsub(d, a), dcross(dscale(a, -1.0), dsub(c, a))) / vol;
        double wc = ddot(dsub(d, a), dcross(dsub(b, a), dscale(a, -1.0))) / vol;
        double wd = ddot(dscale(a, -1.0), dcross(dsub(b, a), dsub(c, a))) / vol;
        s->l[1] = wb, s->l[2] = wc, s->l[3] = wd, s->l[0] = 1.0 - wb - wc - wd;
        return true;
    }
    *s = best;
    return false;
}

static void cx_gjk(const kyu_convex *A, dv3 shift, const kyu_convex *B, cx_gjk_result *out) {
    simplex s;
    dv3 dir = dsub(cx_add(core_center(A), shift), core_center(B));
    if (!(ddot(dir, dir) > 0.0)) dir = (dv3){1.0, 0.0, 0.0};
    s.p[0] = support_pair(A, shift, B, dscale(dir, -1.0));
    s.l[0] = 1.0;
    s.n = 1;
    dv3 v = s.p[0].w;
    double max_ww = ddot(v, v);
    bool overlap = false;
    for (int iter = 0; iter < 64; iter++) {
        double vv = ddot(v, v);
        if (vv <= 1e-24 * max_ww) {
            overlap = true;
            break;
        }
        sv w = support_pair(A, shift, B, dscale(v, -1.0));
        double ww = ddot(w.w, w.w);
        if (ww > max_ww) max_ww = ww;
        // Bergen's test: v.w is a lower bound of |v|^2 at the optimum; stop when they agree to
        // rounding (the second term is the noise of v.w itself).
        double vw = ddot(v, w.w);
        if (vv - vw <= 1e-12 * vv + 1e-15 * sqrt(vv * max_ww)) break;
        bool repeated = false;
        for (int i = 0; i < s.n; i++) {
            dv3 e = dsub(s.p[i].w, w.w);
            if (ddot(e, e) <= 1e-30 * max_ww) repeated = true;
        }
        if (repeated) break;
        simplex prev = s;
        s.p[s.n++] = w;
        if (s.n == 2)
            solve2(&s, 0, 1);
        else if (s.n == 3)
            solve3(&s);
        else if (solve4(&s)) {
            overlap = true;
            v = (dv3){0.0, 0.0, 0.0};
            break;
        }
        dv3 nv = simplex_point(&s);
        if (ddot(nv, nv) >= vv) {
            s = prev;
            break;
        } // no progress: rounding has the last word
        v = nv;
    }
    out->pa = (dv3){0.0, 0.0, 0.0}, out->pb = (dv3){0.0, 0.0, 0.0};
    for (int i = 0; i < s.n; i++) {
        out->pa = dmad(out->pa, s.p[i].a, s.l[i]);
        out->pb = dmad(out->pb, s.p[i].b, s.l[i]);
    }
    v = dsub(out->pa, out->pb);
    out->overlap = overlap;
    out->distance = overlap ? 0.0 : sqrt(ddot(v, v));
    out->scale = sqrt(max_ww);
    out->n = s.n;
    for (int i = 0; i < s.n; i++) out->w[i] = s.p[i].w, out->a[i] = s.p[i].a, out->b[i] = s.p[i].b;
}

float kyu_convex_distance(const kyu_convex *a, const kyu_convex *b, vec3s *point_a, vec3s *point_b,
                          vec3s *normal) {
    cx_gjk_result g;
    cx_gjk(a, (dv3){0.0, 0.0, 0.0}, b, &g);
    double ra = (double)a->radius, rb = (double)b->radius;
    dv3 pa = g.pa, pb = g.pb, n = {0.0, 1.0, 0.0};
    double gap = 0.0;
    if (!g.overlap && g.distance > 0.0) {
        n = dscale(dsub(g.pa, g.pb), 1.0 / g.distance);
        gap = g.distance - ra - rb;
        if (gap > 0.0) {
            pa = dmad(g.pa, n, -ra), pb = dmad(g.pb, n, rb);
        } else {
            // The grown shapes overlap: a common point, within ra of A's core and rb of B's.
            double t = ra + rb > 0.0 ? g.distance * ra / (ra + rb) : 0.0;
            pa = pb = dmad(g.pa, n, -t);
            gap = 0.0;
            n = (dv3){0.0, 1.0, 0.0};
        }
    }
    if (point_a) *point_a = fv(pa);
    if (point_b) *point_b = fv(pb);
    if (normal) *normal = fv(n);
    return (float)gap;
}

// ---- EPA ----------------------------------------------------------------------------------------

#define EPA_MAX_V    128
#define EPA_MAX_F    256
#define EPA_MAX_ITER 96

typedef struct epa_face {
    int v[3];
    dv3 n;    // outward unit normal
    double h; // plane offset: n.x = h on the face; the origin's distance inside
    bool alive;
} epa_face;

typedef struct epa {
    sv v[EPA_MAX_V];
    int nv;
    epa_face f[EPA_MAX_F];
    int nf;
} epa;

static bool epa_add_face(epa *e, int a, int b, int c) {
    if (e->nf == EPA_MAX_F) return false;
    epa_face *f = &e->f[e->nf++];
    f->v[0] = a, f->v[1] = b, f->v[2] = c;
    dv3 n = dcross(dsub(e->v[b].w, e->v[a].w), dsub(e->v[c].w, e->v[a].w));
    double len = sqrt(ddot(n, n));
    f->alive = true;
    if (!(len > 0.0)) {
        // A sliver with no area: keep it in the surface but never pick it.
        f->n = (dv3){0.0, 0.0, 0.0};
        f->h = DBL_MAX;
        return true;
    }
    f->n = dscale(n, 1.0 / len);
    // The offset averaged over the three corners is less biased than one corner's.
    f->h = (ddot(f->n, e->v[a].w) + ddot(f->n, e->v[b].w) + ddot(f->n, e->v[c].w)) / 3.0;
    return true;
}

// Unit vectors perpendicular to u (u not zero).
static void perp_basis(dv3 u, dv3 *p, dv3 *q) {
    dv3 t = fabs(u.x) < 0.57   ? (dv3){1.0, 0.0, 0.0}
            : fabs(u.y) < 0.57 ? (dv3){0.0, 1.0, 0.0}
                               : (dv3){0.0, 0.0, 1.0};
    *p = dcross(u, t);
    *p = dscale(*p, 1.0 / sqrt(ddot(*p, *p)));
    *q = dcross(u, *p);
    *q = dscale(*q, 1.0 / sqrt(ddot(*q, *q)));
}

// Grows the GJK simplex (which holds the origin) to a tetrahedron. Returns the number of points it
// reached: fewer than 4 means the Minkowski difference is flat (3), a segment (2) or a point (1).
static int epa_seed(epa *e, const kyu_convex *A, dv3 shift, const kyu_convex *B, double tol,
                    dv3 *flat_normal) {
    while (e->nv < 4) {
        dv3 p0 = e->v[0].w;
        bool grown = false;
        if (e->nv == 1) {
            static const dv3 axes[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
            for (int i = 0; i < 6 && !grown; i++) {
                sv w = support_pair(A, shift, B, axes[i]);
                dv3 d = dsub(w.w, p0);
                if (ddot(d, d) > tol * tol) e->v[e->nv++] = w, grown = true;
            }
        } else if (e->nv == 2) {
            dv3 u = dsub(e->v[1].w, p0), p, q;
            u = dscale(u, 1.0 / sqrt(ddot(u, u)));
            perp_basis(u, &p, &q);
            *flat_normal = p;
            // cos and sin of i pi / 3, written as the bits glibc's cos and sin give (mingw-w64's
            // too): C libraries differ in the last bit here (musl, wasm's: sin(4 pi / 3) is one
            // unit further from 0), and a seed direction must be the same on every platform.
            static const double seed_cos[6] = {0x1p+0,  0x1.0000000000001p-1,  -0x1.ffffffffffffcp-2,
                                               -0x1p+0, -0x1.0000000000004p-1, 0x1.ffffffffffff4p-2};
            static const double seed_sin[6] = {0x0p+0,
                                               0x1.bb67ae8584caap-1,
                                               0x1.bb67ae8584cabp-1,
                                               0x1.1a62633145c07p-53,
                                               -0x1.bb67ae8584ca8p-1,
                                               -0x1.bb67ae8584caep-1};
            for (int i = 0; i < 6 && !grown; i++) {
                dv3 dir = cx_add(dscale(p, seed_cos[i]), dscale(q, seed_sin[i]));
                sv w = support_pair(A, shift, B, dir);
                dv3 d = dsub(w.w, p0);
                d = dmad(d, u, -ddot(d, u));
                if (ddot(d, d) > tol * tol) e->v[e->nv++] = w, grown = true;
            }
        } else {
            dv3 n = dcross(dsub(e->v[1].w, p0), dsub(e->v[2].w, p0));
            n = dscale(n, 1.0 / sqrt(ddot(n, n)));
            *flat_normal = n;
            sv wp = support_pair(A, shift, B, n), wm = support_pair(A, shift, B, dscale(n, -1.0));
            double hp = ddot(n, dsub(wp.w, p0)), hm = -ddot(n, dsub(wm.w, p0));
            if (hp >= hm && hp > tol)
                e->v[e->nv++] = wp, grown = true;
            else if (hm > hp && hm > tol)
                e->v[e->nv++] = wm, grown = true;
        }
        if (!grown) return e->nv;
    }
    return 4;
}

// EPA on the cores: the face of the Minkowski difference nearest the origin. Writes the depth
// (>= 0 when the origin is inside), the outward normal of that face of A - B, and the witness
// points on A's and B's cores.
static void epa_solve(const kyu_convex *A, dv3 shift, const kyu_convex *B, const cx_gjk_result *g,
                      double *depth, dv3 *normal, dv3 *pa, dv3 *pb) {
    epa e;
    e.nv = 0, e.nf = 0;
    for (int i = 0; i < g->n; i++) e.v[e.nv++] = (sv){g->w[i], g->a[i], g->b[i]};
    double tol = 1e-9 * (g->scale > 0.0 ? g->scale : 1.0);
    // A GJK simplex may hold near-duplicate points (it stopped on them): keep distinct ones.
    int m = 0;
    for (int i = 0; i < e.nv; i++) {
        bool dup = false;
        for (int j = 0; j < m; j++) {
            dv3 d = dsub(e.v[i].w, e.v[j].w);
            if (ddot(d, d) <= tol * tol) dup = true;
        }
        if (!dup) e.v[m++] = e.v[i];
    }
    e.nv = m;
    // Collinear or coplanar GJK simplices: drop points until the rest are independent.
    if (e.nv >= 3) {
        dv3 n = dcross(dsub(e.v[1].w, e.v[0].w), dsub(e.v[2].w, e.v[0].w));
        dv3 ab = dsub(e.v[1].w, e.v[0].w), ac = dsub(e.v[2].w, e.v[0].w);
        if (ddot(n, n) <= 1e-18 * ddot(ab, ab) * ddot(ac, ac))
            e.nv = 2;
        else if (e.nv == 4) {
            dv3 ad = dsub(e.v[3].w, e.v[0].w);
            double vol = ddot(ad, n);
            if (vol * vol <= 1e-18 * ddot(n, n) * ddot(ad, ad)) e.nv = 3;
        }
    }
    dv3 dir = dsub(cx_add(core_center(A), shift), core_center(B));
    dv3 flat_n = {0.0, 1.0, 0.0};
    int reached = epa_seed(&e, A, shift, B, tol, &flat_n);
    *pa = g->pa, *pb = g->pb;
    if (reached < 4) {
        // Flat Minkowski difference holding the origin: the depth is 0 along its normal (either
        // sign works; take the one that pushes A away from B's middle). A point: (0, 1, 0).
        *depth = 0.0;
        if (reached == 1)
            flat_n = (dv3){0.0, 1.0, 0.0};
        else if (reached == 2) {
            dv3 u = dsub(e.v[1].w, e.v[0].w);
            u = dscale(u, 1.0 / sqrt(ddot(u, u)));
            dv3 off = dmad(dir, u, -ddot(dir, u));
            if (ddot(off, off) > 1e-24 * (ddot(dir, dir) + 1e-300))
                flat_n = dscale(off, 1.0 / sqrt(ddot(off, off)));
        }
        if (ddot(flat_n, dir) < 0.0) flat_n = dscale(flat_n, -1.0);
        // The outward normal of the difference is minus the B-to-A normal.
        *normal = dscale(flat_n, -1.0);
        return;
    }
    // Orient the tetrahedron's faces outward.
    {
        static const int f[4][4] = {{0, 1, 2, 3}, {0, 3, 1, 2}, {0, 2, 3, 1}, {1, 3, 2, 0}};
        for (int k = 0; k < 4; k++) {
            int a = f[k][0], b = f[k][1], c = f[k][2], d = f[k][3];
            dv3 n = dcross(dsub(e.v[b].w, e.v[a].w), dsub(e.v[c].w, e.v[a].w));
            if (ddot(n, dsub(e.v[d].w, e.v[a].w)) > 0.0) {
                int t = b;
                b = c;
                c = t;
            }
            epa_add_face(&e, a, b, c);
        }
    }
    int best = 0;
    for (int iter = 0; iter < EPA_MAX_ITER; iter++) {
        best = -1;
        for (int i = 0; i < e.nf; i++)
            if (e.f[i].alive && (best < 0 || e.f[i].h < e.f[best].h)) best = i;
        if (best < 0) break;
        epa_face *bf = &e.f[best];
        if (bf->h == DBL_MAX) break;
        sv w = support_pair(A, shift, B, bf->n);
        double gain = ddot(bf->n, w.w) - bf->h;
        if (gain <= tol + 1e-12 * fabs(bf->h) || e.nv == EPA_MAX_V) break;
        int iw = e.nv;
        e.v[e.nv++] = w;
        // Remove every face that sees w, collect the horizon (edges of exactly one removed face).
        int edges[EPA_MAX_F * 3][2];
        int ne = 0;
        for (int i = 0; i < e.nf; i++) {
            epa_face *f = &e.f[i];
            if (!f->alive || f->h == DBL_MAX) continue;
            if (ddot(f->n, dsub(w.w, e.v[f->v[0]].w)) <= 1e-14 * g->scale && i != best) continue;
            f->alive = false;
            for (int k = 0; k < 3; k++) {
                int a = f->v[k], b = f->v[(k + 1) % 3];
                int found = -1;
                for (int j = 0; j < ne; j++)
                    if (edges[j][0] == b && edges[j][1] == a) found = j;
                if (found >= 0) {
                    edges[found][0] = edges[ne - 1][0], edges[found][1] = edges[ne - 1][1];
                    ne--;
                } else {
                    edges[ne][0] = a, edges[ne][1] = b;
                    ne++;
                }
            }
        }
        // Compact dead faces so the array does not fill up with them.
        int k = 0;
        for (int i = 0; i < e.nf; i++)
            if (e.f[i].alive) e.f[k++] = e.f[i];
        e.nf = k;
        bool ok = true;
        for (int j = 0; j < ne && ok; j++) ok = epa_add_face(&e, edges[j][0], edges[j][1], iw);
        if (!ok) break;
        best = -1;
    }
    if (best < 0) {
        best = 0;
        for (int i = 0; i < e.nf; i++)
            if (e.f[i].alive && e.f[i].h < e.f[best].h) best = i;
    }
    epa_face *bf = &e.f[best];
    *depth = bf->h;
    *normal = bf->n;
    // Witness points: barycentric coordinates of the origin's projection on the face.
    dv3 a = e.v[bf->v[0]].w, b = e.v[bf->v[1]].w, c = e.v[bf->v[2]].w;
    dv3 p = dscale(bf->n, bf->h);
    dv3 v0 = dsub(b, a), v1 = dsub(c, a), v2 = dsub(p, a);
    double d00 = ddot(v0, v0), d01 = ddot(v0, v1), d11 = ddot(v1, v1);
    double d20 = ddot(v2, v0), d21 = ddot(v2, v1), den = d00 * d11 - d01 * d01;
    double lb = 0.0, lc = 0.0;
    if (den > 0.0) lb = (d11 * d20 - d01 * d21) / den, lc = (d00 * d21 - d01 * d20) / den;
    double la = 1.0 - lb - lc;
    const sv *va = &e.v[bf->v[0]], *vb = &e.v[bf->v[1]], *vc = &e.v[bf->v[2]];
    *pa = dmad(dmad(dscale(va->a, la), vb->a, lb), vc->a, lc);
    *pb = dmad(dmad(dscale(va->b, la), vb->b, lb), vc->b, lc);
}

static void cx_contact(const kyu_convex *A, dv3 shift, const kyu_convex *B, double *dist, dv3 *normal,
                       dv3 *point_b) {
    cx_gjk_result g;
    cx_gjk(A, shift, B, &g);
    double ra = (double)A->radius, rb = (double)B->radius;
    // A gap above 1e-10 of the size is trusted to GJK (its direction is then exact to ~1e-6);
    // below it, the cores touch or overlap and EPA gives the normal.
    if (!g.overlap && g.distance > 1e-10 * g.scale) {
        dv3 n = dscale(dsub(g.pa, g.pb), 1.0 / g.distance);
        *dist = g.distance - ra - rb;
        *normal = n;
        *point_b = dmad(g.pb, n, rb);
        return;
    }
    double depth;
    dv3 m, pa, pb;
    epa_solve(A, shift, B, &g, &depth, &m, &pa, &pb);
    dv3 n = dscale(m, -1.0);
    *dist = -depth - ra - rb;
    *normal = n;
    *point_b = dmad(pb, n, rb);
}

kyu_contact kyu_convex_contact(const kyu_convex *a, const kyu_convex *b) {
    double dist;
    dv3 n, p;
    cx_contact(a, (dv3){0.0, 0.0, 0.0}, b, &dist, &n, &p);
    return (kyu_contact){fv(p), fv(n), (float)dist};
}

// ---- sphere vs hull -----------------------------------------------------------------------------

float kyu_distance_sphere_hull(vec3s center, float radius, const kyu_hull *hull, vec3s *normal,
                               vec3s *point) {
    kyu_convex a = kyu_convex_sphere(center, 0.0f), b = kyu_convex_hull(hull, 0.0f);
    double dist;
    dv3 n, p;
    cx_contact(&a, (dv3){0.0, 0.0, 0.0}, &b, &dist, &n, &p);
    if (normal) *normal = fv(n);
    if (point) *point = fv(p);
    return (float)(dist - (double)radius);
}

kyu_hit kyu_sweep_sphere_hull(vec3s c0, vec3s d, float r, const kyu_hull *hull, vec3s hull_d) {
    kyu_hit h = {0};
    kyu_convex a = kyu_convex_sphere(c0, 0.0f), b = kyu_convex_hull(hull, 0.0f);
    dv3 v = dsub(dv(d), dv(hull_d));
    double rr = (double)r, vlen = sqrt(ddot(v, v));
    double t = 0.0, dist;
    dv3 n, p;
    cx_contact(&a, (dv3){0.0, 0.0, 0.0}, &b, &dist, &n, &p);
    if (dist <= rr) {
        h.start_overlap = true;
        // Moving out along the normal: no impact. Sliding along a face keeps the contact (t = 0).
        if (ddot(v, n) > 0.0) return h;
    } else {
        if (!(vlen > 0.0)) return h;
        bool hit = false;
        for (int iter = 0; iter < 200; iter++) {
            double gap = dist - rr;
            double closing = -ddot(v, n);
            // Converged: the remaining gap is rounding of the sweep, or the path is moving away
            // from a plane that holds the whole grown hull behind it (a miss).
            if (gap <= 1e-9 * vlen) {
                hit = true;
                break;
            }
            if (!(closing > 0.0)) break;
            double dt = gap / closing;
            t += dt;
            if (t > 1.0) break;
            cx_contact(&a, dscale(v, t), &b, &dist, &n, &p);
            if (dt <= 1e-12) {
                hit = dist - rr <= 1e-6 * vlen;
                break;
            }
        }
        if (!hit) return h;
    }
    h.hit = true;
    h.t = (float)t;
    h.normal = fv(n);
    h.point = fv(dmad(p, dv(hull_d), t));
    return h;
}

// ---- box vs box SAT -----------------------------------------------------------------------------

static void box_axes(const kyu_box *b, dv3 ax[3], double e[3]) {
    for (int i = 0; i < 3; i++) ax[i] = dv(b->rotation.col[i]);
    e[0] = (double)b->half_extents.x, e[1] = (double)b->half_extents.y, e[2] = (double)b->half_extents.z;
}

static double box_radius(const dv3 ax[3], const double e[3], dv3 l) {
    return e[0] * fabs(ddot(ax[0], l)) + e[1] * fabs(ddot(ax[1], l)) + e[2] * fabs(ddot(ax[2], l));
}

// Mean of the box's corners within tol of its support along u (the deepest face, edge or corner).
static dv3 box_deepest(dv3 c, const dv3 ax[3], const double e[3], dv3 u, double tol) {
    double best = -DBL_MAX;
    dv3 corners[8];
    for (int i = 0; i < 8; i++) {
        dv3 p = c;
        for (int k = 0; k < 3; k++) p = dmad(p, ax[k], (i >> k & 1) ? e[k] : -e[k]);
        corners[i] = p;
        if (ddot(p, u) > best) best = ddot(p, u);
    }
    dv3 sum = {0.0, 0.0, 0.0};
    int n = 0;
    for (int i = 0; i < 8; i++)
        if (ddot(corners[i], u) >= best - tol) sum = cx_add(sum, corners[i]), n++;
    return dscale(sum, 1.0 / n);
}

// The edge of the box along axis k that is extreme along u: its two ends.
static void box_edge(dv3 c, const dv3 ax[3], const double e[3], int k, dv3 u, dv3 *p, dv3 *q) {
    dv3 m = c;
    for (int j = 0; j < 3; j++)
        if (j != k) m = dmad(m, ax[j], ddot(ax[j], u) >= 0.0 ? e[j] : -e[j]);
    *p = dmad(m, ax[k], -e[k]);
    *q = dmad(m, ax[k], e[k]);
}

kyu_contact kyu_contact_box_box(const kyu_box *a, const kyu_box *b) {
    dv3 A[3], B[3];
    double ea[3], eb[3];
    box_axes(a, A, ea);
    box_axes(b, B, eb);
    dv3 ca = dv(a->center), cb = dv(b->center), T = dsub(ca, cb);
    double size = ea[0] + ea[1] + ea[2] + eb[0] + eb[1] + eb[2];
    double best = -DBL_MAX;
    int best_kind = 0, best_i = 0, best_j = 0;
    dv3 best_n = {0.0, 1.0, 0.0};
    // Face axes first; an edge axis has to beat them by a margin (a resting face keeps its normal).
    for (int k = 0; k < 6; k++) {
        dv3 l = k < 3 ? A[k] : B[k - 3];
        double sep = fabs(ddot(T, l)) - box_radius(A, ea, l) - box_radius(B, eb, l);
        if (sep > best) {
            best = sep, best_kind = k < 3 ? 0 : 1, best_i = k % 3;
            best_n = ddot(T, l) >= 0.0 ? l : dscale(l, -1.0);
        }
    }
    double face_best = best;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            dv3 l = dcross(A[i], B[j]);
            double len2 = ddot(l, l);
            if (len2 <= 1e-10) continue; // parallel edges: the face axes already cover them
            l = dscale(l, 1.0 / sqrt(len2));
            double sep = fabs(ddot(T, l)) - box_radius(A, ea, l) - box_radius(B, eb, l);
            if (sep > best && sep > face_best + 1e-6 * size) {
                best = sep, best_kind = 2, best_i = i, best_j = j;
                best_n = ddot(T, l) >= 0.0 ? l : dscale(l, -1.0);
            }
        }
    if (best > 0.0) {
        // Apart: SAT only bounds the gap from below; GJK gives the exact closest points.
        kyu_convex sa = kyu_convex_box(a), sb = kyu_convex_box(b);
        return kyu_convex_contact(&sa, &sb);
    }
    dv3 n = best_n, point;
    double tol = 1e-6 * size;
    if (best_kind == 0) {
        point = box_deepest(cb, B, eb, n, tol);
    } else if (best_kind == 1) {
        dv3 p = box_deepest(ca, A, ea, dscale(n, -1.0), tol);
        // B's face plane along n: n.x = n.cb + radius of B along n.
        double off = ddot(n, cb) + box_radius(B, eb, n);
        point = dmad(p, n, -(ddot(n, p) - off));
    } else {
        dv3 p1, q1, p2, q2, c1;
        box_edge(ca, A, ea, best_i, dscale(n, -1.0), &p1, &q1);
        box_edge(cb, B, eb, best_j, n, &p2, &q2);
        kyu_dsegments_closest(p1, q1, p2, q2, &c1, &point);
    }
    return (kyu_contact){fv(point), fv(n), (float)best};
}
