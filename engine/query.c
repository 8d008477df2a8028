// SPDX-License-Identifier: MIT
// World queries (include/kyu/query.h): raycasts, sphere casts, overlaps, nearest body, closest
// distance and time to collision.
//
// The body queries share one structure, a uniform grid hashed by cell and rebuilt lazily: any change
// to the bodies marks it dirty in O(1) and the next query rebuilds it in O(bodies). It is separate
// from the step's broadphase grid, which holds swept boxes of awake bodies only and is built for
// pairs, not for rays. Colliders are few and are all tested by every query.
//
// Geometry is done in double from the float inputs, as in geometry/sweep_sphere_plane_box.c, so a hit found
// by the grid is bit-identical to the one a scan of every body would find.
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "geometry/dmath.h"
#include "internal.h"

#define HUGE_CELLS      512    // a body covering more cells is tested by every query instead
#define MAX_DIM         1024   // the grid never has more cells than this along its longest axis
#define CAST_NEIGHBOURS 8      // a sphere cast wider than this many cells visits its swept box instead
#define EXP_MIN         (-160) // frexpf exponents of radii in (0, 1e6]: about [-148, 20]
#define EXP_COUNT       200

static vec3s unit_or(dv3 a, vec3s fallback) {
    double len = sqrt(ddot(a, a));
    if (!(len > 1e-30)) return fallback;
    return fv((dv3){a.x / len, a.y / len, a.z / len});
}

// ---- the cache ----------------------------------------------------------------------------------

typedef struct cell_rec {
    uint64_t key;
    int32_t c[3];
    uint32_t start, count; // the cell's bodies: entries[start, start + count), in slot order
} cell_rec;

// A hit of raycast_all before sorting: `id` is a body slot or KYU_COLLIDER_BIT | collider, so
// sorting by (t, id) puts bodies before colliders on equal fractions.
typedef struct hit_rec {
    double t;
    uint32_t id;
    vec3s point, normal;
} hit_rec;

struct kyu_query_cache {
    int dirty;
    double g0[3], h, pad; // grid origin, cell size, padding of every body's box (rounding safety)
    int dims[3];
    cell_rec *cells;
    int cell_count, cell_cap;
    int32_t *table; // open addressing: cell record index or -1
    int table_size, table_cap;
    uint32_t *entries;
    int entry_count, entry_cap;
    uint32_t *huge; // bodies too big for the grid, in slot order
    int huge_count, huge_cap;
    uint32_t *stamp; // per slot: the last query that visited the body (a body sits in many cells)
    int stamp_cap;
    uint32_t stamp_now;
    hit_rec *hits;
    int hit_cap;
    uint32_t *list;
    int list_cap;
};

void kyu_query_invalidate(kyu_world *w) {
    if (w && w->query) w->query->dirty = 1;
}

// Gives back the grid built for a burst of new bodies without calling free(): glibc raises its
// mmap threshold to the size of any mapped block a program frees (up to 32 MB), and from then on
// every array the engine grows below that size lives in the heap, whose holes stay resident. Freeing
// this grid after a 100k scene's first step cost a third more resident memory by step 60 (PILE
// awake 84 MB against 65). Shrinking by realloc moves no threshold; the next query rebuilds.
void kyu_query_trim(kyu_world *w) {
    struct kyu_query_cache *q = w ? w->query : NULL;
    if (!q) return;
    SHRINK(q->cells, q->cell_cap, 0);
    SHRINK(q->table, q->table_cap, 0);
    SHRINK(q->entries, q->entry_cap, 0);
    SHRINK(q->huge, q->huge_cap, 0);
    SHRINK(q->stamp, q->stamp_cap, 0);
    SHRINK(q->hits, q->hit_cap, 0);
    SHRINK(q->list, q->list_cap, 0);
    q->cell_count = q->entry_count = q->huge_count = 0;
    q->dirty = 1;
}

void kyu_query_free(kyu_world *w) {
    if (!w || !w->query) return;
    struct kyu_query_cache *q = w->query;
    kyu_free(q->cells);
    kyu_free(q->table);
    kyu_free(q->entries);
    kyu_free(q->huge);
    kyu_free(q->stamp);
    kyu_free(q->hits);
    kyu_free(q->list);
    kyu_free(q);
    w->query = NULL;
}

static uint64_t cell_key(const struct kyu_query_cache *q, const int32_t c[3]) {
    return (uint64_t)c[0] + (uint64_t)q->dims[0] * ((uint64_t)c[1] + (uint64_t)q->dims[1] * (uint64_t)c[2]);
}

static uint32_t cell_hash(const struct kyu_query_cache *q, uint64_t key) {
    return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (uint32_t)(q->table_size - 1);
}

static int cell_find(const struct kyu_query_cache *q, const int32_t c[3]) {
    uint64_t key = cell_key(q, c);
    for (uint32_t h = cell_hash(q, key);; h = (h + 1) & (uint32_t)(q->table_size - 1)) {
        int32_t i = q->table[h];
        if (i < 0 || q->cells[i].key == key) return i;
    }
}

static int cell_insert(struct kyu_query_cache *q, const int32_t c[3]) {
    uint64_t key = cell_key(q, c);
    uint32_t h = cell_hash(q, key);
    for (; q->table[h] >= 0; h = (h + 1) & (uint32_t)(q->table_size - 1))
        if (q->cells[q->table[h]].key == key) return q->table[h];
    int i = q->cell_count++;
    q->cells[i] = (cell_rec){key, {c[0], c[1], c[2]}, 0, 0};
    q->table[h] = i;
    return i;
}

// Cell coordinate of x along axis k, clamped to [lo, hi] before the conversion so that far points
// never overflow an int.
static int32_t cell_coord(const struct kyu_query_cache *q, double x, int k, int32_t lo, int32_t hi) {
    return (int32_t)floor(clampd((x - q->g0[k]) / q->h, (double)lo, (double)hi));
}

// The cells a body's padded box covers. Returns their count.
static int64_t body_cells(const struct kyu_query_cache *q, vec3s c, float r, int32_t lo[3], int32_t hi[3]) {
    int64_t n = 1;
    for (int k = 0; k < 3; k++) {
        double x = (double)c.raw[k], e = (double)r + q->pad;
        lo[k] = cell_coord(q, x - e, k, 0, q->dims[k] - 1);
        hi[k] = cell_coord(q, x + e, k, 0, q->dims[k] - 1);
        n *= hi[k] - lo[k] + 1;
    }
    return n;
}

// Cell size: the diameter of the 75th-percentile radius rounded up to a power of two (found with a
// histogram of exponents, O(N) and deterministic), so most bodies cover at most 8 cells; never
// finer than 1/MAX_DIM of the bodies' extent, which bounds the cells a ray walks through.
static double choose_cell(const kyu_world *w, const int hist[EXP_COUNT], int live, double extent) {
    double h = 0.0;
    if (w->def.cell_size > 0.0f) {
        h = (double)w->def.cell_size;
    } else {
        int target = (3 * live + 3) / 4, sum = 0, e = 0;
        while (e < EXP_COUNT - 1 && (sum += hist[e]) < target) e++;
        h = ldexp(1.0, e + EXP_MIN + 1);
    }
    return fmax(h, extent / MAX_DIM);
}

static int rebuild(kyu_world *w, struct kyu_query_cache *q) {
    const body_store *s = &w->bodies;
    kyu_colliders_update_bounds(w); // and their tree, where they stand now (ray_colliders)
    q->cell_count = q->entry_count = q->huge_count = 0;
    q->dims[0] = q->dims[1] = q->dims[2] = 0;
    if (RESERVE(q->stamp, q->stamp_cap, s->high > 0 ? s->high : 1)) return -1;
    memset(q->stamp, 0, (size_t)q->stamp_cap * sizeof *q->stamp);
    q->stamp_now = 0;
    int hist[EXP_COUNT] = {0};
    int live = 0;
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX}, far = 0.0;
    for (int i = 0; i < s->high; i++) {
        if (!s->alive[i]) continue;
        live++;
        float r = s->radius[i];
        int e;
        frexpf(r, &e);
        hist[e - EXP_MIN < 0 ? 0 : e - EXP_MIN >= EXP_COUNT ? EXP_COUNT - 1 : e - EXP_MIN]++;
        for (int k = 0; k < 3; k++) {
            double x = (double)s->pos[i].raw[k];
            lo[k] = fmin(lo[k], x - (double)r);
            hi[k] = fmax(hi[k], x + (double)r);
            far = fmax(far, fabs(x) + (double)r);
        }
    }
    q->dirty = 0;
    if (live == 0) return 0;
    double extent = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    q->h = choose_cell(w, hist, live, extent);
    // Rounding of hit points and cell boundaries is ~1e-16 relative; padding every box by far more
    // means a point on a body is always in a cell the body is entered in.
    q->pad = 1e-4 * q->h + 1e-6 * far;
    for (int k = 0; k < 3; k++) {
        q->g0[k] = lo[k] - q->pad;
        q->dims[k] = (int)floor((hi[k] + q->pad - q->g0[k]) / q->h) + 1;
    }
    int64_t total = 0;
    int32_t clo[3], chi[3];
    for (int i = 0; i < s->high; i++) {
        if (!s->alive[i]) continue;
        int64_t n = body_cells(q, s->pos[i], s->radius[i], clo, chi);
        if (n > HUGE_CELLS) {
            if (RESERVE(q->huge, q->huge_cap, q->huge_count + 1)) return -1;
            q->huge[q->huge_count++] = (uint32_t)i;
        } else {
            total += n;
        }
    }
    if (total > INT32_MAX / 4) return -1;
    int size = 16;
    while (size < 2 * total) size *= 2;
    if (RESERVE(q->entries, q->entry_cap, (int)total + 1) || RESERVE(q->cells, q->cell_cap, (int)total + 1) ||
        RESERVE(q->table, q->table_cap, size))
        return -1;
    q->table_size = size;
    memset(q->table, 0xff, (size_t)size * sizeof *q->table);
    // Two passes over the same cells: count per cell, then place; bodies go in slot order.
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < s->high; i++) {
            if (!s->alive[i] || body_cells(q, s->pos[i], s->radius[i], clo, chi) > HUGE_CELLS) continue;
            int32_t c[3];
            for (c[2] = clo[2]; c[2] <= chi[2]; c[2]++)
                for (c[1] = clo[1]; c[1] <= chi[1]; c[1]++)
                    for (c[0] = clo[0]; c[0] <= chi[0]; c[0]++) {
                        cell_rec *rec = &q->cells[pass == 0 ? cell_insert(q, c) : cell_find(q, c)];
                        if (pass == 1) q->entries[rec->start + rec->count] = (uint32_t)i;
                        rec->count++;
                    }
        }
        if (pass == 0) {
            uint32_t start = 0;
            for (int j = 0; j < q->cell_count; j++) {
                q->cells[j].start = start;
                start += q->cells[j].count;
                q->cells[j].count = 0;
            }
            q->entry_count = (int)start;
        }
    }
    return 0;
}

// ---- visiting the grid --------------------------------------------------------------------------

typedef struct qctx qctx;
typedef void (*visit_fn)(qctx *x, uint32_t body);

// One query in flight. `best` is the fraction (casts) or distance (nearest) of the best so far; the
// walks stop once nothing unvisited can beat it. `best_id` breaks ties (lower wins).
struct qctx {
    kyu_world *w;
    struct kyu_query_cache *q;
    kyu_query_filter f;
    int ignore;
    visit_fn fn;
    dv3 o, d; // ray / cast / centre / point
    double r; // cast or overlap radius
    double lo[3], hi[3];
    double best, limit;
    uint32_t best_id;
    vec3s point, normal;
    int count;      // hits or bodies collected into the scratch arrays
    int fail;       // out of memory while collecting
    int unstamped;  // visits a body in every cell it is in (the grid's stamps are not written)
    uint32_t **out; // where collect puts bodies: the cache's list, or the caller's
    int *out_cap;
};

static int sees(uint32_t category, uint32_t mask, const kyu_query_filter *f) {
    return (f->mask_bits & category) && (mask & f->category_bits);
}

static void visit_body(qctx *x, uint32_t b) {
    struct kyu_query_cache *q = x->q;
    if (x->unstamped) { // the caller drops repeats, then filters: once a body, not once a cell
        //                 (filtering each repeat cost 13% more instructions in a 20k scene's first step)
        x->fn(x, b);
        return;
    }
    if (q->stamp[b] == q->stamp_now) return;
    q->stamp[b] = q->stamp_now;
    const body_store *s = &x->w->bodies;
    if ((int)b == x->ignore || !sees(kyu_body_kind(s, b)->category, kyu_body_kind(s, b)->mask, &x->f)) return;
    x->fn(x, b);
}

static void visit_cell(qctx *x, const cell_rec *rec) {
    for (uint32_t e = rec->start; e < rec->start + rec->count; e++) visit_body(x, x->q->entries[e]);
}

static void visit_huge(qctx *x) {
    for (int i = 0; i < x->q->huge_count; i++) visit_body(x, x->q->huge[i]);
}

// Every cell in [lo, hi] (clamped to the grid). When the box holds more cells than are occupied,
// the occupied cells are scanned instead, so a huge box costs O(occupied cells), not O(volume).
static void visit_box(qctx *x, const int32_t lo_in[3], const int32_t hi_in[3]) {
    const struct kyu_query_cache *q = x->q;
    int32_t lo[3], hi[3];
    int64_t volume = 1;
    for (int k = 0; k < 3; k++) {
        lo[k] = lo_in[k] < 0 ? 0 : lo_in[k];
        hi[k] = hi_in[k] >= q->dims[k] ? q->dims[k] - 1 : hi_in[k];
        if (lo[k] > hi[k]) return;
        volume *= hi[k] - lo[k] + 1;
    }
    if (volume > q->cell_count) {
        for (int j = 0; j < q->cell_count; j++) {
            const int32_t *c = q->cells[j].c;
            if (c[0] >= lo[0] && c[0] <= hi[0] && c[1] >= lo[1] && c[1] <= hi[1] && c[2] >= lo[2] &&
                c[2] <= hi[2])
                visit_cell(x, &q->cells[j]);
        }
        return;
    }
    int32_t c[3];
    for (c[2] = lo[2]; c[2] <= hi[2]; c[2]++)
        for (c[1] = lo[1]; c[1] <= hi[1]; c[1]++)
            for (c[0] = lo[0]; c[0] <= hi[0]; c[0]++) {
                int j = cell_find(q, c);
                if (j >= 0) visit_cell(x, &q->cells[j]);
            }
}

// The cells of the world box [lo, hi] grown by the padding.
static void visit_world_box(qctx *x, const double lo[3], const double hi[3]) {
    const struct kyu_query_cache *q = x->q;
    if (q->cell_count == 0) return;
    int32_t clo[3], chi[3];
    for (int k = 0; k < 3; k++) {
        clo[k] = cell_coord(q, lo[k] - q->pad, k, -1, q->dims[k]);
        chi[k] = cell_coord(q, hi[k] + q->pad, k, -1, q->dims[k]);
    }
    visit_box(x, clo, chi);
}

// Walks the segment o + t d, t in [0, 1], through the grid with a 3D DDA (Amanatides and Woo),
// visiting every cell within `radius` of the cells the centre line crosses: a body whose first hit
// is at t has a point in the neighbourhood of the cell holding o + t d. Cells are crossed in order
// of t, so the walk stops once the best hit is no later than the exit of the current cell.
static void walk(qctx *x, double radius) {
    const struct kyu_query_cache *q = x->q;
    if (q->cell_count == 0) return;
    double h = q->h, ta = 0.0, tb = 1.0;
    for (int k = 0; k < 3; k++) { // clip to the grid grown by the radius
        double lo = q->g0[k] - radius, hi = q->g0[k] + q->dims[k] * h + radius;
        double o = dget(x->o, k), d = dget(x->d, k);
        if (d == 0.0) {
            if (o < lo || o > hi) return;
            continue;
        }
        double t1 = (lo - o) / d, t2 = (hi - o) / d;
        if (t1 > t2) {
            double s = t1;
            t1 = t2;
            t2 = s;
        }
        ta = fmax(ta, t1);
        tb = fmin(tb, t2);
        if (ta > tb) return;
    }
    double kd = ceil(radius / h);
    if (kd > CAST_NEIGHBOURS) { // a wide cast: its swept box costs fewer lookups than a walk
        double lo[3], hi[3];
        for (int k = 0; k < 3; k++) {
            double a = dget(x->o, k), b = a + dget(x->d, k);
            lo[k] = fmin(a, b) - radius;
            hi[k] = fmax(a, b) + radius;
        }
        visit_world_box(x, lo, hi);
        return;
    }
    int32_t n = (int32_t)kd, c[3], step[3];
    double tmax[3];
    for (int k = 0; k < 3; k++) {
        double o = dget(x->o, k), d = dget(x->d, k);
        c[k] = cell_coord(q, o + ta * d, k, -n - 1, q->dims[k] + n);
        step[k] = d > 0.0 ? 1 : d < 0.0 ? -1 : 0;
        tmax[k] = step[k] == 0 ? (double)INFINITY : (q->g0[k] + (c[k] + (step[k] > 0)) * h - o) / d;
    }
    int32_t lo[3] = {c[0] - n, c[1] - n, c[2] - n}, hi[3] = {c[0] + n, c[1] + n, c[2] + n};
    visit_box(x, lo, hi);
    for (;;) {
        int a = tmax[0] <= tmax[1] ? (tmax[0] <= tmax[2] ? 0 : 2) : (tmax[1] <= tmax[2] ? 1 : 2);
        if (x->fail || x->best <= tmax[a] || tmax[a] >= tb) return;
        c[a] += step[a];
        if (c[a] < -n - 1 || c[a] > q->dims[a] + n) return;
        tmax[a] = (q->g0[a] + (c[a] + (step[a] > 0)) * h - dget(x->o, a)) / dget(x->d, a);
        // Only the slab of cells that entered the neighbourhood is new.
        for (int k = 0; k < 3; k++) {
            lo[k] = c[k] - n;
            hi[k] = c[k] + n;
        }
        lo[a] = hi[a] = c[a] + step[a] * n;
        visit_box(x, lo, hi);
    }
}

// ---- shapes -------------------------------------------------------------------------------------

// First t in [0, 1] where o + t d enters the sphere; none when o starts inside (see query.h).
static int ray_sphere(dv3 o, dv3 d, dv3 c, double r, double *t) {
    dv3 m = dsub(o, c);
    double len = sqrt(ddot(m, m));
    double cc = (len - r) * (len + r), b = ddot(m, d), a = ddot(d, d);
    if (cc < 0.0 || !(b < 0.0)) return 0;
    double disc = b * b - a * cc;
    if (disc < 0.0) return 0;
    double tt = cc / (-b + sqrt(disc)); // the smaller root without cancellation
    if (tt > 1.0) return 0;
    *t = tt;
    return 1;
}

static int ray_plane(dv3 o, dv3 d, const collider *c, double *t, dv3 *normal) {
    dv3 n = dv(c->normal);
    double s0 = ddot(n, o) - (double)c->offset, rate = ddot(n, d);
    if (s0 < 0.0 || !(rate < 0.0) || s0 + rate > 0.0) return 0;
    *t = fmin(s0 / -rate, 1.0);
    *normal = n;
    return 1;
}

// Ray against an oriented box, in the box frame: the slab test. The entering slab gives the normal
// (lowest axis on ties, so an edge hit is deterministic).
static int ray_box(dv3 o, dv3 d, const kyu_box *box, double *t, dv3 *normal) {
    const mat3s *m = &box->rotation;
    dv3 rel = dsub(o, dv(box->center));
    double p[3], dl[3], lo[3], hi[3];
    for (int i = 0; i < 3; i++) {
        dv3 u = dv(m->col[i]);
        p[i] = ddot(rel, u), dl[i] = ddot(d, u), hi[i] = (double)box->half_extents.raw[i], lo[i] = -hi[i];
    }
    int axis;
    double t1, t0 = kyu_dslab(p, dl, lo, hi, &axis, &t1);
    // axis < 0: a zero ray (or a miss); t0 < 0: the origin is inside (or the box is behind).
    if (axis < 0 || !(t0 <= t1) || t0 < 0.0 || t0 > 1.0) return 0;
    *t = t0;
    double sign = dl[axis] > 0.0 ? -1.0 : 1.0; // the face entered faces against the ray
    dv3 u = dv(m->col[axis]);
    *normal = (dv3){u.x * sign, u.y * sign, u.z * sign};
    return 1;
}

static int better(const qctx *x, double t, uint32_t id) {
    return t < x->best || (t == x->best && id < x->best_id);
}

static void take(qctx *x, double t, uint32_t id, vec3s point, vec3s normal) {
    x->best = t;
    x->best_id = id;
    x->point = point;
    x->normal = normal;
}

static int push_hit(qctx *x, double t, uint32_t id, vec3s point, vec3s normal) {
    struct kyu_query_cache *q = x->q;
    if (RESERVE(q->hits, q->hit_cap, x->count + 1)) {
        x->fail = 1;
        return -1;
    }
    q->hits[x->count++] = (hit_rec){t, id, point, normal};
    return 0;
}

// The ray's hit on body b, if any: fraction, point and outward normal.
static int ray_body(const qctx *x, uint32_t b, double *t, vec3s *point, vec3s *normal) {
    const body_store *s = &x->w->bodies;
    if (!ray_sphere(x->o, x->d, dv(s->pos[b]), (double)s->radius[b], t)) return 0;
    dv3 p = dmad(x->o, x->d, *t);
    vec3s back = unit_or((dv3){-x->d.x, -x->d.y, -x->d.z}, (vec3s){{0.0f, 1.0f, 0.0f}});
    *point = fv(p);
    *normal = unit_or(dsub(p, dv(s->pos[b])), back);
    return 1;
}

static void ray_visit_body(qctx *x, uint32_t b) {
    double t;
    vec3s p, n;
    if (ray_body(x, b, &t, &p, &n) && better(x, t, b)) take(x, t, b, p, n);
}

static void ray_all_visit_body(qctx *x, uint32_t b) {
    double t;
    vec3s p, n;
    if (ray_body(x, b, &t, &p, &n)) push_hit(x, t, b, p, n);
}

static void cast_visit_body(qctx *x, uint32_t b) {
    const body_store *s = &x->w->bodies;
    kyu_hit h =
        kyu_sweep_sphere_sphere(fv(x->o), fv(x->d), (float)x->r, s->pos[b], glms_vec3_zero(), s->radius[b]);
    if (h.hit && better(x, (double)h.t, b)) take(x, (double)h.t, b, h.point, h.normal);
}

// The colliders whose bounds meet the path of a sphere of radius r along the query's segment (the
// tree over their bounds, which the query grid's rebuild made where they stand), in index order.
static void colliders_near_path(const qctx *x, double r, kyu_collider_near *near) {
    aabb box;
    for (int k = 0; k < 3; k++) {
        double a = dget(x->o, k), b = a + dget(x->d, k), pad = r + 1e-6 * (fabs(a) + fabs(b)) + 1e-30;
        box.lo[k] = (float)(fmin(a, b) - pad), box.hi[k] = (float)(fmax(a, b) + pad);
    }
    kyu_colliders_near(&x->w->colliders, &box, near);
}

static void ray_colliders(qctx *x, int all) {
    if (x->f.skip_colliders) return;
    kyu_collider_near near;
    colliders_near_path(x, 0.0, &near);
    for (int i; (i = kyu_colliders_next(&x->w->colliders, &near)) >= 0;) {
        const collider *c = &x->w->colliders.list[i];
        if (!sees(c->category, c->mask, &x->f)) continue;
        double t;
        dv3 n;
        int hit;
        if (c->type == KYU_SHAPE_PLANE) {
            hit = ray_plane(x->o, x->d, c, &t, &n);
        } else if (c->type == KYU_SHAPE_BOX) {
            hit = ray_box(x->o, x->d, &c->box, &t, &n);
        } else { // a ray is the sweep of a point; one starting inside does not hit (as for boxes)
            kyu_hit h = kyu_shape_sweep(c, c->box.center, fv(x->o), fv(x->d), 0.0f);
            hit = h.hit && !h.start_overlap;
            t = (double)h.t;
            n = dv(h.normal);
        }
        uint32_t id = KYU_COLLIDER_BIT | (uint32_t)i;
        if (!hit) continue;
        if (all) {
            if (push_hit(x, t, id, fv(dmad(x->o, x->d, t)), fv(n))) return;
        } else if (better(x, t, id)) {
            take(x, t, id, fv(dmad(x->o, x->d, t)), fv(n));
        }
    }
}

static void cast_colliders(qctx *x) {
    if (x->f.skip_colliders) return;
    vec3s o = fv(x->o), d = fv(x->d);
    kyu_collider_near near;
    colliders_near_path(x, x->r, &near);
    for (int i; (i = kyu_colliders_next(&x->w->colliders, &near)) >= 0;) {
        const collider *c = &x->w->colliders.list[i];
        if (!sees(c->category, c->mask, &x->f)) continue;
        kyu_hit h = c->type == KYU_SHAPE_PLANE
                        ? kyu_sweep_sphere_plane(o, d, (float)x->r, c->normal, c->offset, glms_vec3_zero())
                        : kyu_shape_sweep(c, c->box.center, o, d, (float)x->r);
        uint32_t id = KYU_COLLIDER_BIT | (uint32_t)i;
        if (h.hit && better(x, (double)h.t, id)) take(x, (double)h.t, id, h.point, h.normal);
    }
}

// ---- arguments and set-up -----------------------------------------------------------------------

kyu_query_filter kyu_query_filter_default(void) {
    kyu_query_filter f;
    memset(&f, 0, sizeof f);
    f.category_bits = 0xffffffffu;
    f.mask_bits = 0xffffffffu;
    f.skip_colliders = false;
    f.ignore_body = KYU_NULL_BODY;
    return f;
}

static kyu_status check_vec(kyu_world *w, vec3s v, const char *name) {
    if (!kyu_bounded3(v, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "%s (%g, %g, %g) must be finite, each |component| <= 1e9",
                        name, (double)v.x, (double)v.y, (double)v.z);
    return KYU_OK;
}

static kyu_status check_radius(kyu_world *w, float r) {
    if (!(r >= 0.0f && r <= KYU_MAX_RADIUS))
        return kyu_fail(w, KYU_ERR_RADIUS, "query radius %g (allowed: [0, 1e6])", (double)r);
    return KYU_OK;
}

static kyu_status check_capacity(kyu_world *w, const void *out, int capacity, const int *count) {
    if (!count) return kyu_fail(w, KYU_ERR_NULL, "out_count is NULL");
    if (capacity < 0) return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "capacity %d < 0", capacity);
    if (capacity > 0 && !out)
        return kyu_fail(w, KYU_ERR_NULL, "output array is NULL with capacity %d", capacity);
    return KYU_OK;
}

static kyu_status body_slot(const kyu_world *w, kyu_body_id id, const char *name, int *slot) {
    kyu_status st;
    *slot = kyu_body_slot(w, id, &st);
    if (*slot < 0)
        return kyu_fail(w, st, "%s handle {index1 %u, generation %u, world %u}", name, id.index1,
                        id.generation, id.world);
    return KYU_OK;
}

// The same rules as collider.c's lookup (which is private to that file).
static kyu_status collider_slot(const kyu_world *w, kyu_collider_id id, int *slot) {
    kyu_status st = KYU_OK;
    *slot = kyu_collider_slot(w, id, &st);
    if (*slot < 0)
        return kyu_fail(w, st, "collider handle {index1 %u, generation %u, world %u}", id.index1,
                        id.generation, id.world);
    *slot = (int)(id.index1 - 1);
    return KYU_OK;
}

// Checks the filter, rebuilds the grid if anything changed, and opens a new visit (stamp).
// The query grid, rebuilt if bodies moved since it was built, and x ready to walk it. -1: no memory.
static int prepare(kyu_world *w, kyu_query_filter f, qctx *x) {
    memset(x, 0, sizeof *x);
    x->ignore = -1;
    if (!w->query) {
        w->query = kyu_calloc(1, sizeof *w->query);
        if (!w->query) return -1;
        w->query->dirty = 1;
    }
    struct kyu_query_cache *q = w->query;
    if (q->dirty && rebuild(w, q)) {
        q->dirty = 1;
        q->cell_count = q->huge_count = 0;
        return -1;
    }
    if (++q->stamp_now == 0) { // wrapped: old stamps could alias
        memset(q->stamp, 0, (size_t)q->stamp_cap * sizeof *q->stamp);
        q->stamp_now = 1;
    }
    x->w = w;
    x->q = q;
    x->f = f;
    x->best = (double)INFINITY;
    x->best_id = UINT32_MAX;
    x->out = &q->list, x->out_cap = &q->list_cap;
    return 0;
}

static kyu_status begin(kyu_world *w, kyu_query_filter f, qctx *x) {
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "a query during a step");
    memset(x, 0, sizeof *x);
    x->ignore = -1;
    if (f.ignore_body.index1 != 0) {
        kyu_status st = body_slot(w, f.ignore_body, "filter.ignore_body", &x->ignore);
        if (st != KYU_OK) return st;
    }
    if (!w->query) {
        w->query = kyu_calloc(1, sizeof *w->query);
        if (!w->query) return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "query cache");
        w->query->dirty = 1;
    }
    struct kyu_query_cache *q = w->query;
    if (q->dirty && rebuild(w, q)) {
        q->dirty = 1;
        q->cell_count = q->huge_count = 0;
        return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "building the query grid");
    }
    if (++q->stamp_now == 0) { // wrapped: old stamps could alias
        memset(q->stamp, 0, (size_t)q->stamp_cap * sizeof *q->stamp);
        q->stamp_now = 1;
    }
    x->w = w;
    x->q = q;
    x->f = f;
    x->best = (double)INFINITY;
    x->best_id = UINT32_MAX;
    x->out = &q->list, x->out_cap = &q->list_cap;
    return KYU_OK;
}

static kyu_body_id body_handle(const kyu_world *w, uint32_t slot) {
    return (kyu_body_id){slot + 1, w->id, w->bodies.generation[slot]};
}

static kyu_collider_id collider_handle(const kyu_world *w, uint32_t i) {
    return (kyu_collider_id){i + 1, w->id, w->colliders.list[i].generation};
}

static kyu_query_hit make_hit(const kyu_world *w, double t, uint32_t id, vec3s point, vec3s normal) {
    kyu_query_hit h;
    memset(&h, 0, sizeof h);
    h.hit = true;
    if (id & KYU_COLLIDER_BIT)
        h.collider = collider_handle(w, id & ~KYU_COLLIDER_BIT);
    else
        h.body = body_handle(w, id);
    h.point = point;
    h.normal = normal;
    h.fraction = (float)t;
    return h;
}

// ---- periodic worlds ----------------------------------------------------------------------------
// A query whose box crosses a periodic face asks the copies of its box across that face too: it runs
// once per image, its origin moved by a period (the bodies stand still), and what it finds there is
// moved back by the same period. Colliders are not periodic: they answer the query as it was asked.
// A ray or a cast longer than a period sees only the copies of the box next to the periodic box.

static dv3 dadd(dv3 a, dv3 b) { return (dv3){a.x + b.x, a.y + b.y, a.z + b.z}; }

// The shifts of the images of box [lo, hi], the box itself (0) first; how many (1 without periodic
// axes). A copy is asked for each face the box comes within the largest radius of: a body inside
// the box pokes out of a face by at most that.
static int image_shifts(const kyu_world *w, const double lo[3], const double hi[3], dv3 out[27]) {
    const periodic_state *ps = &w->periodic;
    double sh[27][3] = {{0.0, 0.0, 0.0}}, reach = (double)w->bodies.max_radius;
    int n = 1;
    for (int k = 0; k < 3; k++) {
        if (!(ps->mask >> k & 1)) continue;
        double opt[2];
        int m = 0;
        if (lo[k] < (double)ps->lo[k] + reach) opt[m++] = (double)ps->len[k];
        if (hi[k] > (double)ps->hi[k] - reach) opt[m++] = -(double)ps->len[k];
        int have = n;
        for (int o = 0; o < m; o++)
            for (int i = 0; i < have; i++) {
                memcpy(sh[n], sh[i], sizeof sh[n]);
                sh[n++][k] = opt[o];
            }
    }
    for (int i = 0; i < n; i++) out[i] = (dv3){sh[i][0], sh[i][1], sh[i][2]};
    return n;
}

// The shifts of the images a segment o + t d, t in [0, 1], grown by r, meets.
static int segment_shifts(const kyu_world *w, dv3 o, dv3 d, double r, dv3 out[27]) {
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        double a = dget(o, k), b = a + dget(d, k);
        lo[k] = fmin(a, b) - r, hi[k] = fmax(a, b) + r;
    }
    return image_shifts(w, lo, hi, out);
}

// The next image: a fresh stamp, so a body met in one image is met again in another (a ray may
// pass a body's two copies, and the nearest copy of a body is not always the first one seen).
static void next_image_stamp(qctx *x) {
    struct kyu_query_cache *q = x->q;
    if (++q->stamp_now == 0) {
        memset(q->stamp, 0, (size_t)q->stamp_cap * sizeof *q->stamp);
        q->stamp_now = 1;
    }
}

static vec3s shift_back(vec3s p, dv3 s) { return fv(dsub(dv(p), s)); }

// ---- raycasts and sphere casts ------------------------------------------------------------------

static kyu_status check_segment(kyu_world *w, vec3s origin, vec3s translation, const void *out) {
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "out is NULL");
    kyu_status st = check_vec(w, origin, "origin");
    return st != KYU_OK ? st : check_vec(w, translation, "translation");
}

kyu_status kyu_world_raycast(kyu_world *w, vec3s origin, vec3s translation, kyu_query_filter filter,
                             kyu_query_hit *out) {
    if (out) memset(out, 0, sizeof *out);
    if (!w) return KYU_ERR_NULL;
    qctx x;
    kyu_status st = check_segment(w, origin, translation, out);
    if (st == KYU_OK) st = begin(w, filter, &x);
    if (st != KYU_OK) return st;
    x.o = dv(origin);
    x.d = dv(translation);
    x.fn = ray_visit_body;
    ray_colliders(&x, 0);
    dv3 shifts[27];
    int images = segment_shifts(w, x.o, x.d, 0.0, shifts);
    for (int i = 0; i < images; i++) {
        double best = x.best;
        uint32_t best_id = x.best_id;
        if (i > 0) next_image_stamp(&x), x.o = dadd(dv(origin), shifts[i]);
        visit_huge(&x);
        walk(&x, 0.0);
        if (i > 0 && (x.best != best || x.best_id != best_id)) x.point = shift_back(x.point, shifts[i]);
    }
    if (x.best < (double)INFINITY) *out = make_hit(w, x.best, x.best_id, x.point, x.normal);
    return KYU_OK;
}

static int hit_order(const void *pa, const void *pb) {
    const hit_rec *a = pa, *b = pb;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

kyu_status kyu_world_raycast_all(kyu_world *w, vec3s origin, vec3s translation, kyu_query_filter filter,
                                 kyu_query_hit *hits, int capacity, int *out_count) {
    if (out_count) *out_count = 0;
    if (!w) return KYU_ERR_NULL;
    qctx x;
    kyu_status st = check_capacity(w, hits, capacity, out_count);
    if (st == KYU_OK) st = check_segment(w, origin, translation, out_count);
    if (st == KYU_OK) st = begin(w, filter, &x);
    if (st != KYU_OK) return st;
    x.o = dv(origin);
    x.d = dv(translation);
    x.fn = ray_all_visit_body;
    ray_colliders(&x, 1);
    dv3 shifts[27];
    int images = segment_shifts(w, x.o, x.d, 0.0, shifts);
    for (int i = 0; i < images; i++) {
        int first = x.count;
        if (i > 0) next_image_stamp(&x), x.o = dadd(dv(origin), shifts[i]);
        visit_huge(&x);
        walk(&x, 0.0); // best stays infinite: the whole segment is walked
        for (int h = first; h < x.count && i > 0; h++)
            w->query->hits[h].point = shift_back(w->query->hits[h].point, shifts[i]);
    }
    if (x.fail) return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "raycast_all: %d hits", x.count);
    if (x.count > 1) qsort(w->query->hits, (size_t)x.count, sizeof *w->query->hits, hit_order);
    for (int i = 0; i < x.count && i < capacity; i++) {
        const hit_rec *h = &w->query->hits[i];
        hits[i] = make_hit(w, h->t, h->id, h->point, h->normal);
    }
    *out_count = x.count;
    return KYU_OK;
}

kyu_status kyu_world_sphere_cast(kyu_world *w, vec3s origin, float radius, vec3s translation,
                                 kyu_query_filter filter, kyu_query_hit *out) {
    if (out) memset(out, 0, sizeof *out);
    if (!w) return KYU_ERR_NULL;
    qctx x;
    kyu_status st = check_segment(w, origin, translation, out);
    if (st == KYU_OK) st = check_radius(w, radius);
    if (st == KYU_OK) st = begin(w, filter, &x);
    if (st != KYU_OK) return st;
    x.o = dv(origin);
    x.d = dv(translation);
    x.r = (double)radius;
    x.fn = cast_visit_body;
    cast_colliders(&x);
    dv3 shifts[27];
    int images = segment_shifts(w, x.o, x.d, (double)radius, shifts);
    for (int i = 0; i < images; i++) {
        double best = x.best;
        uint32_t best_id = x.best_id;
        if (i > 0) next_image_stamp(&x), x.o = dadd(dv(origin), shifts[i]);
        visit_huge(&x);
        walk(&x, (double)radius);
        if (i > 0 && (x.best != best || x.best_id != best_id)) x.point = shift_back(x.point, shifts[i]);
    }
    if (x.best < (double)INFINITY) *out = make_hit(w, x.best, x.best_id, x.point, x.normal);
    return KYU_OK;
}

// ---- overlaps -----------------------------------------------------------------------------------

static void collect(qctx *x, uint32_t b) {
    if (RESERVE(*x->out, *x->out_cap, x->count + 1)) {
        x->fail = 1;
        return;
    }
    (*x->out)[x->count++] = b;
}

static void sphere_visit_body(qctx *x, uint32_t b) {
    const body_store *s = &x->w->bodies;
    dv3 m = dsub(x->o, dv(s->pos[b]));
    double reach = x->r + (double)s->radius[b];
    if (ddot(m, m) <= reach * reach) collect(x, b);
}

static void aabb_visit_body(qctx *x, uint32_t b) {
    const body_store *s = &x->w->bodies;
    double d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double c = (double)s->pos[b].raw[k], e = c < x->lo[k]   ? x->lo[k] - c
                                                 : c > x->hi[k] ? c - x->hi[k]
                                                                : 0.0;
        d2 += e * e;
    }
    double r = (double)s->radius[b];
    if (d2 <= r * r) collect(x, b);
}

static int slot_order(const void *pa, const void *pb) {
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

static kyu_status overlap(qctx *x, kyu_body_id *bodies, int capacity, int *out_count) {
    visit_huge(x);
    visit_world_box(x, x->lo, x->hi);
    dv3 shifts[27];
    int images = image_shifts(x->w, x->lo, x->hi, shifts);
    for (int i = 1; i < images; i++) { // the same stamp: a body is listed once
        double lo[3], hi[3];
        for (int k = 0; k < 3; k++)
            lo[k] = x->lo[k] + dget(shifts[i], k), hi[k] = x->hi[k] + dget(shifts[i], k);
        dv3 o = x->o;
        x->o = dadd(o, shifts[i]);
        memcpy(x->lo, lo, sizeof lo), memcpy(x->hi, hi, sizeof hi);
        visit_huge(x);
        visit_world_box(x, lo, hi);
        x->o = o;
        for (int k = 0; k < 3; k++) x->lo[k] -= dget(shifts[i], k), x->hi[k] -= dget(shifts[i], k);
    }
    if (x->fail) return kyu_fail(x->w, KYU_ERR_OUT_OF_MEMORY, "overlap: %d bodies", x->count);
    uint32_t *list = x->q->list;
    if (x->count > 1) qsort(list, (size_t)x->count, sizeof *list, slot_order);
    for (int i = 0; i < x->count && i < capacity; i++) bodies[i] = body_handle(x->w, list[i]);
    *out_count = x->count;
    return KYU_OK;
}

// For the step (engine/contact.c): builds the grid if it is out of date. 0, or -1 out of memory.
int kyu_query_ready(kyu_world *w) {
    qctx x;
    return prepare(w, kyu_query_filter_default(), &x);
}

// For the step (engine/contact.c), once kyu_query_ready has built the grid: the bodies whose
// spheres meet the sphere (center, radius), each once, in slot order, into *list (grown as
// needed). It reads the grid and writes nothing else (no stamps: a body met in several cells is
// dropped after the sort, then the default filter applies), so calls with lists of their own may
// run at once. The count, or -1 out of memory.
int kyu_query_bodies_near(kyu_world *w, vec3s center, float radius, uint32_t **list, int *cap) {
    qctx x;
    memset(&x, 0, sizeof x);
    x.w = w;
    x.q = w->query;
    x.f = kyu_query_filter_default();
    x.ignore = -1;
    x.unstamped = 1;
    x.out = list, x.out_cap = cap;
    x.o = dv(center);
    x.r = (double)radius;
    x.fn = sphere_visit_body;
    for (int k = 0; k < 3; k++) {
        x.lo[k] = dget(x.o, k) - (double)radius;
        x.hi[k] = dget(x.o, k) + (double)radius;
    }
    visit_huge(&x);
    visit_world_box(&x, x.lo, x.hi);
    dv3 shifts[27];
    int images = image_shifts(w, x.lo, x.hi, shifts);
    for (int i = 1; i < images; i++) { // repeats are dropped below
        x.o = dadd(dv(center), shifts[i]);
        double lo[3], hi[3];
        for (int k = 0; k < 3; k++)
            lo[k] = x.lo[k] + dget(shifts[i], k), hi[k] = x.hi[k] + dget(shifts[i], k);
        visit_huge(&x);
        visit_world_box(&x, lo, hi);
    }
    if (x.fail) return -1;
    uint32_t *l = *list;
    if (x.count > 32) {
        qsort(l, (size_t)x.count, sizeof *l, slot_order);
    } else { // insertion sort: usually a few bodies, each in a few cells
        for (int i = 1; i < x.count; i++) {
            uint32_t b = l[i];
            int j = i;
            for (; j > 0 && l[j - 1] > b; j--) l[j] = l[j - 1];
            l[j] = b;
        }
    }
    const body_store *s = &w->bodies;
    int n = 0;
    for (int i = 0; i < x.count; i++)
        if ((n == 0 || l[i] != l[n - 1]) &&
            sees(kyu_body_kind(s, l[i])->category, kyu_body_kind(s, l[i])->mask, &x.f))
            l[n++] = l[i];
    return n;
}

kyu_status kyu_world_overlap_sphere(kyu_world *w, vec3s center, float radius, kyu_query_filter filter,
                                    kyu_body_id *bodies, int capacity, int *out_count) {
    if (out_count) *out_count = 0;
    if (!w) return KYU_ERR_NULL;
    qctx x;
    kyu_status st = check_capacity(w, bodies, capacity, out_count);
    if (st == KYU_OK) st = check_vec(w, center, "center");
    if (st == KYU_OK) st = check_radius(w, radius);
    if (st == KYU_OK) st = begin(w, filter, &x);
    if (st != KYU_OK) return st;
    x.o = dv(center);
    x.r = (double)radius;
    x.fn = sphere_visit_body;
    for (int k = 0; k < 3; k++) {
        x.lo[k] = dget(x.o, k) - (double)radius;
        x.hi[k] = dget(x.o, k) + (double)radius;
    }
    return overlap(&x, bodies, capacity, out_count);
}

kyu_status kyu_world_overlap_aabb(kyu_world *w, vec3s lower, vec3s upper, kyu_query_filter filter,
                                  kyu_body_id *bodies, int capacity, int *out_count) {
    if (out_count) *out_count = 0;
    if (!w) return KYU_ERR_NULL;
    qctx x;
    kyu_status st = check_capacity(w, bodies, capacity, out_count);
    if (st == KYU_OK) st = check_vec(w, lower, "lower");
    if (st == KYU_OK) st = check_vec(w, upper, "upper");
    if (st == KYU_OK && !(lower.x <= upper.x && lower.y <= upper.y && lower.z <= upper.z))
        st = kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "aabb lower (%g, %g, %g) > upper (%g, %g, %g)",
                      (double)lower.x, (double)lower.y, (double)lower.z, (double)upper.x, (double)upper.y,
                      (double)upper.z);
    if (st == KYU_OK) st = begin(w, filter, &x);
    if (st != KYU_OK) return st;
    x.fn = aabb_visit_body;
    for (int k = 0; k < 3; k++) {
        x.lo[k] = (double)lower.raw[k];
        x.hi[k] = (double)upper.raw[k];
    }
    return overlap(&x, bodies, capacity, out_count);
}

// ---- nearest body -------------------------------------------------------------------------------

static void nearest_visit_body(qctx *x, uint32_t b) {
    const body_store *s = &x->w->bodies;
    dv3 m = dsub(x->o, dv(s->pos[b]));
    double dist = sqrt(ddot(m, m)) - (double)s->radius[b];
    if (dist <= x->limit && better(x, dist, b)) take(x, dist, b, glms_vec3_zero(), glms_vec3_zero());
}

static double cell_distance2(const struct kyu_query_cache *q, dv3 p, const int32_t c[3]) {
    double d2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double lo = q->g0[k] + c[k] * q->h, hi = lo + q->h, x = dget(p, k);
        double e = x < lo ? lo - x : x > hi ? x - hi : 0.0;
        d2 += e * e;
    }
    return d2;
}

static int64_t box_volume(const struct kyu_query_cache *q, const int32_t qc[3], int32_t k) {
    int64_t v = 1;
    for (int a = 0; a < 3; a++) {
        int32_t lo = qc[a] - k < 0 ? 0 : qc[a] - k, hi = qc[a] + k >= q->dims[a] ? q->dims[a] - 1 : qc[a] + k;
        v *= hi - lo + 1;
    }
    return v;
}

// Rings of cells (Chebyshev shells) around the cell nearest the point, until a ring's lower bound on
// distance passes the best so far: every body within reach has a surface point in a cell no farther
// than its distance. A ring larger than the set of occupied cells ends in one scan of those.
static void nearest_search(qctx *x) {
    const struct kyu_query_cache *q = x->q;
    if (q->cell_count == 0) return;
    int32_t qc[3], kmax = 0;
    double out2 = 0.0; // squared distance from the point to the grid box
    for (int k = 0; k < 3; k++) {
        double lo = q->g0[k], hi = lo + q->dims[k] * q->h, p = dget(x->o, k);
        double inside = clampd(p, lo, hi);
        out2 += (p - inside) * (p - inside);
        qc[k] = cell_coord(q, inside, k, 0, q->dims[k] - 1);
        int32_t reach = qc[k] > q->dims[k] - 1 - qc[k] ? qc[k] : q->dims[k] - 1 - qc[k];
        kmax = reach > kmax ? reach : kmax;
    }
    for (int32_t k = 0; k <= kmax; k++) {
        double gap = k > 1 ? (k - 1) * q->h : 0.0;
        double lb = sqrt(gap * gap + out2);
        // Ring 0 always: a body that holds the point is entered in the point's cell, and its
        // distance is negative, below any bound (a huge body holding the point less deeply, met
        // first, must not end the search before it).
        if (k > 0 && lb > fmin(x->best, x->limit)) return;
        int64_t ring = box_volume(q, qc, k) - (k > 0 ? box_volume(q, qc, k - 1) : 0);
        if (ring > q->cell_count) {
            for (int j = 0; j < q->cell_count; j++) {
                const int32_t *c = q->cells[j].c;
                int32_t cheb = abs(c[0] - qc[0]);
                cheb = abs(c[1] - qc[1]) > cheb ? abs(c[1] - qc[1]) : cheb;
                cheb = abs(c[2] - qc[2]) > cheb ? abs(c[2] - qc[2]) : cheb;
                double limit = fmin(x->best, x->limit);
                if (cheb >= k && cell_distance2(q, x->o, c) <= limit * limit) visit_cell(x, &q->cells[j]);
            }
            return;
        }
        int32_t c[3];
        for (c[0] = qc[0] - k; c[0] <= qc[0] + k; c[0]++) {
            if (c[0] < 0 || c[0] >= q->dims[0]) continue;
            for (c[1] = qc[1] - k; c[1] <= qc[1] + k; c[1]++) {
                if (c[1] < 0 || c[1] >= q->dims[1]) continue;
                int full = abs(c[0] - qc[0]) == k || abs(c[1] - qc[1]) == k;
                for (c[2] = qc[2] - k; c[2] <= qc[2] + k; c[2] += full || k == 0 ? 1 : 2 * k) {
                    if (c[2] < 0 || c[2] >= q->dims[2]) continue;
                    int j = cell_find(q, c);
                    if (j >= 0) visit_cell(x, &q->cells[j]);
                }
            }
        }
    }
}

kyu_status kyu_world_nearest_body(kyu_world *w, vec3s point, float max_distance, kyu_query_filter filter,
                                  kyu_body_id *out_body, float *out_distance) {
    if (out_body) *out_body = KYU_NULL_BODY;
    if (out_distance) *out_distance = 0.0f;
    if (!w) return KYU_ERR_NULL;
    if (!out_body) return kyu_fail(w, KYU_ERR_NULL, "out_body is NULL");
    kyu_status st = check_vec(w, point, "point");
    if (st != KYU_OK) return st;
    if (!isfinite(max_distance))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "max_distance %g", (double)max_distance);
    if (max_distance < 0.0f)
        return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "max_distance %g < 0", (double)max_distance);
    qctx x;
    st = begin(w, filter, &x);
    if (st != KYU_OK) return st;
    x.o = dv(point);
    x.limit = (double)max_distance;
    x.fn = nearest_visit_body;
    visit_huge(&x);
    nearest_search(&x);
    if (w->periodic.mask) { // every copy of the point within reach of the periodic box
        double lo[3], hi[3], reach = fmin((double)max_distance, 1e30);
        for (int k = 0; k < 3; k++) lo[k] = dget(x.o, k) - reach, hi[k] = dget(x.o, k) + reach;
        dv3 shifts[27];
        int images = image_shifts(w, lo, hi, shifts);
        for (int i = 1; i < images; i++) {
            next_image_stamp(&x);
            x.o = dadd(dv(point), shifts[i]);
            visit_huge(&x);
            nearest_search(&x);
        }
    }
    if (x.best < (double)INFINITY) {
        *out_body = body_handle(w, x.best_id);
        if (out_distance) *out_distance = (float)x.best;
    }
    return KYU_OK;
}

// ---- pairs: distance and time to collision ------------------------------------------------------

kyu_status kyu_body_distance(const kyu_world *w, kyu_body_id a, kyu_body_id b, kyu_distance_result *out) {
    if (out) memset(out, 0, sizeof *out);
    if (!w) return KYU_ERR_NULL;
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "out is NULL");
    int ia, ib;
    kyu_status st = body_slot(w, a, "body a", &ia);
    if (st == KYU_OK) st = body_slot(w, b, "body b", &ib);
    if (st != KYU_OK) return st;
    if (ia == ib) return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "a and b are the same body");
    const body_store *s = &w->bodies;
    dv3 ca = dv(s->pos[ia]), cb = dv(kyu_periodic_image(&w->periodic, s->pos[ia], s->pos[ib])),
        m = dsub(ca, cb);
    double len = sqrt(ddot(m, m)), ra = (double)s->radius[ia], rb = (double)s->radius[ib];
    vec3s n = unit_or(m, (vec3s){{0.0f, 1.0f, 0.0f}});
    out->distance = (float)(len - ra - rb);
    out->normal = n;
    out->point_a = fv(dmad(ca, dv(n), -ra));
    out->point_b = fv(dmad(cb, dv(n), rb));
    return KYU_OK;
}

kyu_status kyu_body_collider_distance(const kyu_world *w, kyu_body_id body, kyu_collider_id cid,
                                      kyu_distance_result *out) {
    if (out) memset(out, 0, sizeof *out);
    if (!w) return KYU_ERR_NULL;
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "out is NULL");
    int ia, ic;
    kyu_status st = body_slot(w, body, "body", &ia);
    if (st == KYU_OK) st = collider_slot(w, cid, &ic);
    if (st != KYU_OK) return st;
    const collider *c = &w->colliders.list[ic];
    vec3s p = w->bodies.pos[ia];
    float r = w->bodies.radius[ia];
    if (c->type == KYU_SHAPE_PLANE) {
        dv3 n = dv(c->normal);
        double s = ddot(n, dv(p)) - (double)c->offset;
        out->distance = (float)(s - (double)r);
        out->normal = c->normal;
        out->point_b = fv(dmad(dv(p), n, -s));
    } else {
        // Every triangle of a mesh counts here: the range reaches the whole shape.
        out->distance = kyu_shape_distance(c, c->box.center, p, r, 1e30f, &out->normal);
        out->point_b = fv(dmad(dv(p), dv(out->normal), -((double)out->distance + (double)r)));
    }
    out->point_a = fv(dmad(dv(p), dv(out->normal), -(double)r));
    return KYU_OK;
}

kyu_status kyu_body_time_to_collision(const kyu_world *w, kyu_body_id a, kyu_body_id b, float horizon,
                                      bool *out_will_collide, float *out_seconds) {
    if (out_will_collide) *out_will_collide = false;
    if (out_seconds) *out_seconds = 0.0f;
    if (!w) return KYU_ERR_NULL;
    if (!out_will_collide) return kyu_fail(w, KYU_ERR_NULL, "out_will_collide is NULL");
    if (!isfinite(horizon)) return kyu_fail(w, KYU_ERR_NOT_FINITE, "horizon %g", (double)horizon);
    if (!(horizon >= 0.0f && horizon <= KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "horizon %g s (allowed: [0, 1e9])", (double)horizon);
    int ia, ib;
    kyu_status st = body_slot(w, a, "body a", &ia);
    if (st == KYU_OK) st = body_slot(w, b, "body b", &ib);
    if (st != KYU_OK) return st;
    if (ia == ib) return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "a and b are the same body");
    const body_store *s = &w->bodies;
    vec3s pb = kyu_periodic_image(&w->periodic, s->pos[ia], s->pos[ib]); // the nearest copy of b
    kyu_hit h = kyu_sweep_sphere_sphere(s->pos[ia], glms_vec3_scale(s->vel[ia], horizon), s->radius[ia], pb,
                                        glms_vec3_scale(s->vel[ib], horizon), s->radius[ib]);
    *out_will_collide = h.hit;
    if (out_seconds && h.hit) *out_seconds = h.t * horizon;
    return KYU_OK;
}
