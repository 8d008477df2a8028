// SPDX-License-Identifier: MIT
// The velocity solve's iterations four rows at a time, with the same answer to the bit as the row
// by row solve (kyu_row_solve).
//
// Sequential impulses solve a domain's rows in order, each reading and writing its two bodies. Two
// rows that share no body commute exactly: either order, or both at once, leaves the same floats.
// So each domain's held rows are placed, in order, into batches of four rows that share no body,
// each row in the first batch after every batch holding an earlier row of one of its bodies (and
// with room): every body meets its rows in the order it had. A batch is then solved as one, lane by
// lane the same float operations as kyu_row_solve (every build passes -ffp-contract=off, so nothing
// fuses a multiply and an add), with masks where the row solve branches. A heap's row is about 150
// dependent float operations: four at once took 1.7-1.9x less time a row (perf, PILE 10k and 100k).
//
// The batches hold the rows' coefficients and impulses by lane (four x's, then four y's...), filled
// once a step after the warm start, and give the impulses back to the rows after the last pass.
// Compilers without vector extensions (MSVC) solve row by row: the same answer.
#include <math.h>
#include <string.h>

#include "internal.h"

#if KYU_WIDE_SOLVE

typedef float f4 __attribute__((vector_size(16)));
typedef int32_t i4 __attribute__((vector_size(16)));

struct wide_batch {
    int32_t row[4];      // place in solver.row; -1: an empty lane
    uint32_t a[4], b[4]; // body slots (b: KYU_ROW_STATIC); an empty lane repeats lane 0's a
    f4 nx, ny, nz, kn, kt, ki, mu, target, omega, ra, rb, roll, twist;
    f4 vbx, vby, vbz, wbx, wby, wbz;
    f4 jn, jtx, jty, jtz, jrx, jry, jrz;
    i4 stat, spins; // lane masks: b is a collider; the row has spin terms
};

static inline f4 sel(i4 m, f4 a, f4 b) { return (f4)(((i4)a & m) | ((i4)b & ~m)); }
static inline int any(i4 m) { return (m[0] | m[1] | m[2] | m[3]) != 0; }

// A body's four floats (v and the inverse mass, or w and the inverse inertia) of four bodies, by
// lane, and back; the square root of four floats (correctly rounded, as sqrtf).
#if defined(__SSE2__)
#include <emmintrin.h>
static inline void gather4(float *const p[4], f4 *x, f4 *y, f4 *z, f4 *m) {
    __m128 r0 = _mm_loadu_ps(p[0]), r1 = _mm_loadu_ps(p[1]), r2 = _mm_loadu_ps(p[2]), r3 = _mm_loadu_ps(p[3]);
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    *x = (f4)r0, *y = (f4)r1, *z = (f4)r2, *m = (f4)r3;
}
static inline void scatter4(float *const p[4], int mask, f4 x, f4 y, f4 z, f4 m) {
    __m128 r0 = (__m128)x, r1 = (__m128)y, r2 = (__m128)z, r3 = (__m128)m;
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    if (mask & 1) _mm_storeu_ps(p[0], r0);
    if (mask & 2) _mm_storeu_ps(p[1], r1);
    if (mask & 4) _mm_storeu_ps(p[2], r2);
    if (mask & 8) _mm_storeu_ps(p[3], r3);
}
static inline f4 sqrt4(f4 a) { return (f4)_mm_sqrt_ps((__m128)a); }
#else
static inline void gather4(float *const p[4], f4 *x, f4 *y, f4 *z, f4 *m) {
    *x = (f4){p[0][0], p[1][0], p[2][0], p[3][0]}, *y = (f4){p[0][1], p[1][1], p[2][1], p[3][1]};
    *z = (f4){p[0][2], p[1][2], p[2][2], p[3][2]}, *m = (f4){p[0][3], p[1][3], p[2][3], p[3][3]};
}
static inline void scatter4(float *const p[4], int mask, f4 x, f4 y, f4 z, f4 m) {
    for (int l = 0; l < 4; l++)
        if (mask & (1 << l)) p[l][0] = x[l], p[l][1] = y[l], p[l][2] = z[l], p[l][3] = m[l];
}
static inline f4 sqrt4(f4 a) { return (f4){sqrtf(a[0]), sqrtf(a[1]), sqrtf(a[2]), sqrtf(a[3])}; }
#endif

// ---- the batches --------------------------------------------------------------------------------

// The first batch at or after j with room (next[j] > j once batch j is full), compressing the path.
static int open_batch(int *next, const int32_t *lane, int j, int count) {
    int r = j;
    while (r < count && lane[4 * r + 3] >= 0) r = next[r];
    while (j < count && j != r) {
        int n = next[j];
        next[j] = r;
        j = n;
    }
    return r;
}

// Domain d's held rows into batches, at solver.lane[4 s ...] (s: the domain's first row; it has no
// more batches than rows); returns how many.
static int place_domain(kyu_world *w, int d) {
    solver_state *so = &w->solver;
    int s = so->start[d], e = so->start[d + 1];
    int32_t *lane = so->lane + 4 * (size_t)s;
    int *next = so->next + s, *last = so->last;
    for (int k = s; k < e; k++) { // (a row that is not held, a sensor's, has no b)
        const solver_row *r = &so->row[k];
        if (!(r->flags & ROW_HELD)) continue;
        last[r->a] = -1;
        if (r->b != KYU_ROW_STATIC) last[r->b] = -1;
    }
    int count = 0;
    for (int k = s; k < e; k++) {
        const solver_row *r = &so->row[k];
        if (!(r->flags & ROW_HELD)) continue;
        int after = last[r->a] + 1;
        if (r->b != KYU_ROW_STATIC && last[r->b] + 1 > after) after = last[r->b] + 1;
        int j = open_batch(next, lane, after, count);
        if (j == count) {
            lane[4 * j] = lane[4 * j + 1] = lane[4 * j + 2] = lane[4 * j + 3] = -1;
            next[j] = j;
            count++;
        }
        int l = 0;
        while (lane[4 * j + l] >= 0) l++;
        lane[4 * j + l] = k;
        if (l == 3) next[j] = j + 1;
        last[r->a] = j;
        if (r->b != KYU_ROW_STATIC) last[r->b] = j;
    }
    return count;
}

typedef struct wide_prep {
    kyu_world *w;
    int count[KYU_SOLVE_GROUPS];
} wide_prep;

static void place_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    wide_prep *x = ctx;
    for (int d = begin; d < end; d++) x->count[d] = place_domain(x->w, d);
}

static void fill_batch(const solver_row *rows, const int32_t *lane, wide_batch *x) {
    const solver_row *first = &rows[lane[0]];
    for (int l = 0; l < 4; l++) {
        const solver_row *r = lane[l] >= 0 ? &rows[lane[l]] : NULL;
        x->row[l] = lane[l];
        x->a[l] = r ? r->a : first->a;
        x->b[l] = r ? r->b : KYU_ROW_STATIC;
        solver_row z;
        if (!r) memset(&z, 0, sizeof z), r = &z;
        x->nx[l] = r->n.x, x->ny[l] = r->n.y, x->nz[l] = r->n.z;
        x->kn[l] = r->kn, x->kt[l] = r->kt, x->ki[l] = r->ki, x->mu[l] = r->mu, x->target[l] = r->target;
        x->omega[l] = (r->flags & ROW_PLAIN) ? 1.0f : KYU_SOLVE_OMEGA;
        x->ra[l] = r->ra, x->rb[l] = r->rb, x->roll[l] = r->roll, x->twist[l] = r->twist;
        x->vbx[l] = r->vb.x, x->vby[l] = r->vb.y, x->vbz[l] = r->vb.z;
        x->wbx[l] = r->wb.x, x->wby[l] = r->wb.y, x->wbz[l] = r->wb.z;
        x->jn[l] = r->jn, x->jtx[l] = r->jt.x, x->jty[l] = r->jt.y, x->jtz[l] = r->jt.z;
        x->jrx[l] = r->jr.x, x->jry[l] = r->jr.y, x->jrz[l] = r->jr.z;
        x->stat[l] = x->b[l] == KYU_ROW_STATIC ? -1 : 0;
        x->spins[l] = (r->flags & ROW_SPINS) ? -1 : 0;
    }
}

static void fill_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    solver_state *so = &w->solver;
    for (int d = begin; d < end; d++)
        for (int j = 0; j < so->batch_start[d + 1] - so->batch_start[d]; j++)
            fill_batch(so->row, so->lane + 4 * ((size_t)so->start[d] + (size_t)j),
                       &so->batch[so->batch_start[d] + j]);
}

#define WIDE_MOST_ROWS 65536

int kyu_wide_prepare(kyu_world *w) {
    solver_state *so = &w->solver;
    so->batches = 0;
    int rows = w->contacts.count, spinning = 0;
    // A row without spin terms is short: four of them at once gained less than the batches cost
    // (PILE(10,000) of fixed rotation, 2% slower). And beyond WIDE_MOST_ROWS the batches (124
    // bytes a row, beside the rows' 128) are a second stream of memory each pass and each step's
    // fill: PILE(100,000), 270,000 rows, ran no faster with them and held 37 MB more.
    for (int d = 0; d < KYU_SOLVE_GROUPS; d++) spinning += so->spinning[d];
    if (2 * spinning < rows || rows > WIDE_MOST_ROWS) return 0;
    if (RESERVE(so->lane, so->lane_cap, 4 * rows + 4) || RESERVE(so->next, so->next_cap, rows + 1) ||
        RESERVE(so->last, so->last_cap, (int)w->bodies.high + 1))
        return -1;
    wide_prep x = {.w = w};
    // The domains of a round share no body, so they are placed at once (kyu_solver_run's rounds).
    kyu_solver_run(w, place_task, &x);
    so->batch_start[0] = 0;
    for (int d = 0; d < KYU_SOLVE_GROUPS; d++) so->batch_start[d + 1] = so->batch_start[d] + x.count[d];
    if (RESERVE(so->batch, so->batch_cap, so->batch_start[KYU_SOLVE_GROUPS] + 1)) return -1;
    kyu_parallel_for(w, KYU_SOLVE_GROUPS, 1, fill_task, w);
    so->batches = 1;
    return 0;
}

// ---- the solve of a batch ----------------------------------------------------------------------

// Four rows' bodies on one side, by lane.
typedef struct side {
    f4 vx, vy, vz, im, wx, wy, wz, ii;
} side;

static const f4 zero = {0.0f, 0.0f, 0.0f, 0.0f}, one = {1.0f, 1.0f, 1.0f, 1.0f};

// Lane by lane the first part of kyu_row_solve(sb, r, r->target, omega, 1, 1): the normal impulse
// and friction at the contact point (its spin terms when `spin`: some lane has them), the same
// operations in the same order, a branch a lane takes as a mask. Returns how fast each lane closed
// beyond its target.
static inline f4 push_and_slide(wide_batch *x, side *A, side *B, int spin) {
    const i4 stat = x->stat, spins = x->spins;
    f4 nx = x->nx, ny = x->ny, nz = x->nz;
    f4 vbx = sel(stat, x->vbx, B->vx + x->vbx), vby = sel(stat, x->vby, B->vy + x->vby),
       vbz = sel(stat, x->vbz, B->vz + x->vbz);
    f4 rx = A->vx - vbx, ry = A->vy - vby, rz = A->vz - vbz;
    f4 vn = rx * nx + ry * ny + rz * nz;
    f4 jn = x->jn - (vn - x->target) * x->kn * x->omega;
    jn = sel(zero > jn, zero, jn);
    f4 djn = jn - x->jn;
    x->jn = jn;
    f4 cx = rx, cy = ry, cz = rz; // the contact points' relative velocity
    if (spin) {
        f4 wbx = sel(stat, x->wbx, B->wx + x->wbx), wby = sel(stat, x->wby, B->wy + x->wby),
           wbz = sel(stat, x->wbz, B->wz + x->wbz);
        f4 mx = A->wx * x->ra + wbx * x->rb, my = A->wy * x->ra + wby * x->rb,
           mz = A->wz * x->ra + wbz * x->rb;
        cx = sel(spins, rx + (ny * mz - nz * my), rx), cy = sel(spins, ry + (nz * mx - nx * mz), ry),
        cz = sel(spins, rz + (nx * my - ny * mx), rz);
    }
    f4 along = -(cx * nx + cy * ny + cz * nz), nkt = -x->kt;
    f4 jtx = x->jtx + (cx + nx * along) * nkt, jty = x->jty + (cy + ny * along) * nkt,
       jtz = x->jtz + (cz + nz * along) * nkt;
    f4 len2 = jtx * jtx + jty * jty + jtz * jtz, jmax = x->mu * jn;
    i4 slide = len2 > jmax * jmax;
    if (any(slide)) {
        f4 scale = jmax / sel(slide, sqrt4(len2), one);
        jtx = sel(slide, jtx * scale, jtx), jty = sel(slide, jty * scale, jty),
        jtz = sel(slide, jtz * scale, jtz);
    }
    f4 dtx = jtx - x->jtx, dty = jty - x->jty, dtz = jtz - x->jtz;
    x->jtx = jtx, x->jty = jty, x->jtz = jtz;
    f4 px = dtx + nx * djn, py = dty + ny * djn, pz = dtz + nz * djn, nbim = -B->im;
    A->vx = A->vx + px * A->im, A->vy = A->vy + py * A->im, A->vz = A->vz + pz * A->im;
    B->vx = B->vx + px * nbim, B->vy = B->vy + py * nbim, B->vz = B->vz + pz * nbim;
    if (spin) {
        f4 tx = ny * dtz - nz * dty, ty = nz * dtx - nx * dtz, tz = nx * dty - ny * dtx;
        f4 nra = -x->ra, rb = x->rb, nbii = -B->ii;
        A->wx = sel(spins, A->wx + (zero + tx * nra) * A->ii, A->wx);
        A->wy = sel(spins, A->wy + (zero + ty * nra) * A->ii, A->wy);
        A->wz = sel(spins, A->wz + (zero + tz * nra) * A->ii, A->wz);
        B->wx = sel(spins, B->wx + (zero + tx * rb) * nbii, B->wx);
        B->wy = sel(spins, B->wy + (zero + ty * rb) * nbii, B->wy);
        B->wz = sel(spins, B->wz + (zero + tz * rb) * nbii, B->wz);
    }
    return x->target - vn;
}

// The rest of kyu_row_solve: rolling and twisting resistance, in the lanes that have them.
static inline void resist_turning(wide_batch *x, side *A, side *B) {
    f4 nx = x->nx, ny = x->ny, nz = x->nz, limit = x->roll * x->jn, tl = x->twist * x->jn;
    i4 still = (x->jrx == zero) & (x->jry == zero) & (x->jrz == zero);
    i4 turn = (x->ki > zero) & ((tl > zero) | ~still);
    if (!any(turn)) return;
    const i4 stat = x->stat;
    f4 wbx = sel(stat, x->wbx, B->wx + x->wbx), wby = sel(stat, x->wby, B->wy + x->wby),
       wbz = sel(stat, x->wbz, B->wz + x->wbz);
    f4 nki = -x->ki;
    f4 jrx = x->jrx + (A->wx - wbx) * nki, jry = x->jry + (A->wy - wby) * nki,
       jrz = x->jrz + (A->wz - wbz) * nki;
    f4 tw = jrx * nx + jry * ny + jrz * nz, ntw = -tw;
    i4 rolls = limit > zero;
    f4 qx = sel(rolls, jrx + nx * ntw, zero), qy = sel(rolls, jry + ny * ntw, zero),
       qz = sel(rolls, jrz + nz * ntw, zero);
    f4 q2 = qx * qx + qy * qy + qz * qz;
    i4 cap = rolls & (q2 > limit * limit);
    if (any(cap)) {
        f4 qs = limit / sel(cap, sqrt4(q2), one);
        qx = sel(cap, qx * qs, qx), qy = sel(cap, qy * qs, qy), qz = sel(cap, qz * qs, qz);
    }
    tw = sel(tl < tw, tl, tw);
    f4 ntl = -tl;
    tw = sel(tw > ntl, tw, ntl);
    jrx = qx + nx * tw, jry = qy + ny * tw, jrz = qz + nz * tw;
    f4 drx = jrx - x->jrx, dry = jry - x->jry, drz = jrz - x->jrz, nbii = -B->ii;
    x->jrx = sel(turn, jrx, x->jrx), x->jry = sel(turn, jry, x->jry), x->jrz = sel(turn, jrz, x->jrz);
    A->wx = sel(turn, A->wx + drx * A->ii, A->wx), A->wy = sel(turn, A->wy + dry * A->ii, A->wy);
    A->wz = sel(turn, A->wz + drz * A->ii, A->wz);
    B->wx = sel(turn, B->wx + drx * nbii, B->wx), B->wy = sel(turn, B->wy + dry * nbii, B->wy);
    B->wz = sel(turn, B->wz + drz * nbii, B->wz);
}

// A batch: its bodies by lane, solved, written back (an empty lane's and a collider's side are not).
static void solve_batch(solver_body *sb, wide_batch *x, float closing[4]) {
    static solver_body none; // a collider's side: read, never written
    float *av[4], *aw[4], *bv[4], *bw[4];
    int live = 0, bodies = 0; // lanes whose a, whose b is written back
    for (int l = 0; l < 4; l++) {
        solver_body *a = &sb[x->a[l]], *b = x->b[l] == KYU_ROW_STATIC ? &none : &sb[x->b[l]];
        av[l] = &a->v.x, aw[l] = &a->w.x, bv[l] = &b->v.x, bw[l] = &b->w.x;
        live |= (x->row[l] >= 0) << l;
        bodies |= (x->row[l] >= 0 && x->b[l] != KYU_ROW_STATIC) << l;
    }
    int spin = any(x->spins);
    side A = {.im = zero}, B = {.im = zero}; // (w and ii are read only if some lane spins)
    gather4(av, &A.vx, &A.vy, &A.vz, &A.im);
    gather4(bv, &B.vx, &B.vy, &B.vz, &B.im);
    if (spin) {
        gather4(aw, &A.wx, &A.wy, &A.wz, &A.ii);
        gather4(bw, &B.wx, &B.wy, &B.wz, &B.ii);
    }
    f4 close = push_and_slide(x, &A, &B, spin);
    if (spin) resist_turning(x, &A, &B);
    for (int l = 0; l < 4; l++) closing[l] = close[l];
    scatter4(av, live, A.vx, A.vy, A.vz, A.im);
    scatter4(bv, bodies, B.vx, B.vy, B.vz, B.im);
    if (spin) {
        scatter4(aw, live, A.wx, A.wy, A.wz, A.ii);
        scatter4(bw, bodies, B.wx, B.wy, B.wz, B.ii);
    }
}

int kyu_wide_pass(kyu_world *w, int d, kyu_closing_fn *closing_fn, void *ctx) {
    solver_state *so = &w->solver;
    int open = 0;
    for (int j = so->batch_start[d]; j < so->batch_start[d + 1]; j++) {
        wide_batch *x = &so->batch[j];
        if (j + 2 < so->batch_start[d + 1])
            for (int l = 0; l < 4; l++) KYU_PREFETCH(&so->body[so->batch[j + 2].a[l]], 1);
        float closing[4];
        solve_batch(so->body, x, closing);
        if (closing_fn && !open)
            for (int l = 0; l < 4 && !open; l++)
                if (x->row[l] >= 0 && closing[l] > 0.0f)
                    open = closing_fn(ctx, &so->row[x->row[l]], closing[l]);
    }
    return open;
}

static void give_back_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    solver_state *so = &w->solver;
    for (int j = so->batch_start[begin]; j < so->batch_start[end]; j++) {
        const wide_batch *x = &so->batch[j];
        for (int l = 0; l < 4; l++) {
            if (x->row[l] < 0) continue;
            solver_row *r = &so->row[x->row[l]];
            r->jn = x->jn[l];
            r->jt = (kyu_f3){x->jtx[l], x->jty[l], x->jtz[l]};
            r->jr = (kyu_f3){x->jrx[l], x->jry[l], x->jrz[l]};
        }
    }
}

void kyu_wide_finish(kyu_world *w) {
    if (!w->solver.batches) return;
    kyu_parallel_for(w, KYU_SOLVE_GROUPS, 1, give_back_task, w);
    w->solver.batches = 0;
}

void kyu_wide_trim(kyu_world *w, int rows) {
    SHRINK(w->solver.batch, w->solver.batch_cap, rows + KYU_SOLVE_GROUPS); // a batch holds a row or more
    SHRINK(w->solver.lane, w->solver.lane_cap, 4 * rows + 4);
    SHRINK(w->solver.next, w->solver.next_cap, rows + 1);
}

#else // row by row (kyu_row_solve) where there are no vector extensions

int kyu_wide_prepare(kyu_world *w) {
    w->solver.batches = 0;
    return 0;
}
int kyu_wide_pass(kyu_world *w, int d, kyu_closing_fn *closing_fn, void *ctx) {
    (void)w, (void)d, (void)closing_fn, (void)ctx;
    return 0;
}
void kyu_wide_finish(kyu_world *w) { (void)w; }
void kyu_wide_trim(kyu_world *w, int rows) { (void)w, (void)rows; }

#endif
