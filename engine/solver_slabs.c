// SPDX-License-Identifier: MIT
// The contact solver's partition (the part of Box2D v3's constraint graph kyu needs): the contacts
// split by slabs of space into domains that share no body, so the solves run a domain per worker at
// once, in an order that depends on positions and slots only (the same answer for any worker
// count); within a domain, from the bottom up under gravity.
#include <stdlib.h>
#include <string.h>

#include "internal.h"

// A contact's domain (contacts.h): its slab, or the boundary it crosses, or the far pairs'.
static int domain_of(const kyu_world *w, const contact *c) {
    int da = w->solver.slab[c->a];
    if (kyu_is_collider(c->b)) return da;
    int db = w->solver.slab[c->b], lo = da < db ? da : db;
    if (da == db) return da;
    if (abs(da - db) > 1) return KYU_SOLVE_FAR;
    return lo % 2 == 0 ? KYU_SOLVE_DOMAINS + lo / 2 : KYU_SOLVE_ROUND_TWO + lo / 2;
}

// ---- domains: the solves run slab by slab in parallel, then the pairs across slabs -------------
// (in parallel too since 2026-11-29: run on the calling thread, they were 9.5% of a toppling PILE
// 10,000's contacts, and the 2-worker step took 0.974x the time once they were not)

// The passes of partition, in fixed slices (of the active bodies, then of the contacts).
typedef struct partition_ctx {
    kyu_world *w;
    int slices;
    float lo[KYU_MAX_SLICES][3], hi[KYU_MAX_SLICES][3]; // per slice of bodies: the span of positions
    int axis;
    float base, scale;
    float axis_base[3], axis_scale[3];        // the slabs along each axis
    int candidate[3];                         // whether the slabs may be cut across that axis
    int64_t changes[KYU_MAX_SLICES][3];       // per slice of bodies: slab changes between neighbours
    int at[KYU_MAX_SLICES][KYU_SOLVE_GROUPS]; // per slice of contacts: its count, then its offset, by domain
} partition_ctx;

static void span_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    partition_ctx *x = ctx;
    const kyu_world *w = x->w;
    for (int sl = begin; sl < end; sl++) {
        // In locals, stored once: slices of two workers share cache lines in x (false sharing made
        // this the costliest task of a 2-worker GAS step).
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int k = kyu_slice_start(w->step.active_count, x->slices, sl);
             k < kyu_slice_start(w->step.active_count, x->slices, sl + 1); k++)
            for (int d = 0; d < 3; d++) {
                float p = w->bodies.pos[w->step.active[k]].raw[d];
                lo[d] = kyu_minf(lo[d], p), hi[d] = kyu_maxf(hi[d], p);
            }
        memcpy(x->lo[sl], lo, sizeof lo);
        memcpy(x->hi[sl], hi, sizeof hi);
    }
}

static uint8_t slab_of(float p, float base, float scale) {
    float f = (p - base) * scale; // clamped before the conversion
    return (uint8_t)(!(f >= 0.0f) ? 0 : f >= (float)KYU_SOLVE_DOMAINS ? KYU_SOLVE_DOMAINS - 1 : (int)f);
}

// For each axis the slabs may be cut across, how often two bodies next to each other in the
// active list (slot order, so in memory) fall in different slabs along it, over every
// CHANGE_SAMPLE-th pair of neighbours (a proportion is all the choice needs).
#define CHANGE_SAMPLE 4
static void changes_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    partition_ctx *x = ctx;
    const kyu_world *w = x->w;
    for (int sl = begin; sl < end; sl++) {
        int64_t changes[3] = {0, 0, 0}; // counted in locals (see span_task)
        int first = kyu_slice_start(w->step.active_count, x->slices, sl);
        first = first > 0 ? first : 1;
        for (int k = (first + CHANGE_SAMPLE - 1) / CHANGE_SAMPLE * CHANGE_SAMPLE;
             k < kyu_slice_start(w->step.active_count, x->slices, sl + 1); k += CHANGE_SAMPLE) {
            vec3s p = w->bodies.pos[w->step.active[k]], q = w->bodies.pos[w->step.active[k - 1]];
            for (int d = 0; d < 3; d++)
                if (x->candidate[d])
                    changes[d] += slab_of(p.raw[d], x->axis_base[d], x->axis_scale[d]) !=
                                  slab_of(q.raw[d], x->axis_base[d], x->axis_scale[d]);
        }
        memcpy(x->changes[sl], changes, sizeof changes);
    }
}

static void slab_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    const partition_ctx *x = ctx;
    kyu_world *w = x->w;
    for (int k = begin; k < end; k++) {
        uint32_t i = w->step.active[k];
        w->solver.slab[i] = slab_of(w->bodies.pos[i].raw[x->axis], x->base, x->scale);
    }
}

static void count_domains_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    partition_ctx *x = ctx;
    const kyu_world *w = x->w;
    for (int sl = begin; sl < end; sl++) {
        int at[KYU_SOLVE_GROUPS] = {0}; // counted in a local (see span_task)
        for (int i = kyu_slice_start(w->contacts.count, x->slices, sl);
             i < kyu_slice_start(w->contacts.count, x->slices, sl + 1); i++)
            at[domain_of(w, &w->contacts.list[i])]++;
        memcpy(x->at[sl], at, sizeof at);
    }
}

static void place_domains_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    partition_ctx *x = ctx;
    kyu_world *w = x->w;
    for (int sl = begin; sl < end; sl++) {
        int at[KYU_SOLVE_GROUPS];
        memcpy(at, x->at[sl], sizeof at); // advanced in a local (see span_task)
        for (int i = kyu_slice_start(w->contacts.count, x->slices, sl);
             i < kyu_slice_start(w->contacts.count, x->slices, sl + 1); i++)
            w->solver.order[at[domain_of(w, &w->contacts.list[i])]++] = i;
    }
}

// How high a contact is: its lower body's height along gravity (a collider is below its body).
static float contact_height(const kyu_world *w, const contact *c) {
    const body_store *s = &w->bodies;
    float ha = -glms_vec3_dot(s->pos[c->a], w->down);
    if (kyu_is_collider(c->b)) return ha - 2.0f * s->radius[c->a];
    return kyu_minf(ha, -glms_vec3_dot(s->pos[c->b], w->down));
}

// Orders each domain's contacts from the bottom up (a stable counting sort on 1024 height bands
// of the domain, key order within a band): Gauss-Seidel then carries a stack's support up from
// its floor within each pass instead of one layer a pass.
#define HEIGHT_BANDS 1024
static void height_order_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    for (int d = begin; d < end; d++) {
        int first = w->solver.start[d], last = w->solver.start[d + 1];
        w->solver.layers[d] = 0;
        if (last - first < 2) continue;
        int *out = w->solver.tmp + w->contacts.count + 1;  // the scratch's second half: the heights,
        float lo = INFINITY, hi = -INFINITY, radii = 0.0f; //   then the order
        for (int k = first; k < last; k++) {
            const contact *c = &w->contacts.list[w->solver.order[k]];
            float h = contact_height(w, c);
            memcpy(&out[k], &h, sizeof h);
            lo = kyu_minf(lo, h), hi = kyu_maxf(hi, h), radii += w->bodies.radius[c->a];
        }
        float scale = hi > lo ? (float)(HEIGHT_BANDS - 1) / (hi - lo) : 0.0f;
        int count[HEIGHT_BANDS + 1] = {0};
        for (int k = first; k < last; k++) {
            float h;
            memcpy(&h, &out[k], sizeof h);
            float f = (h - lo) * scale;
            w->solver.tmp[k] = !(f >= 0.0f)               ? 0
                               : f >= (float)HEIGHT_BANDS ? HEIGHT_BANDS - 1
                                                          : (int)f; // its band
            count[w->solver.tmp[k] + 1]++;
        }
        // How deep its contacts stack: the slices of height one mean diameter thick that hold a
        // contact (a layer of beads in the air above the bed, touching each other, is not part of
        // the stack below it; a lattice's layers count one each however thin their bands).
        float diameter = 2.0f * radii / (float)(last - first), band = (hi - lo) / (float)(HEIGHT_BANDS - 1);
        int occupied = 0, previous = -1;
        for (int b = 0; b < HEIGHT_BANDS; b++) {
            if (count[b + 1] == 0) continue;
            int slice = band < diameter ? (int)((float)b * (band / diameter)) : b; // <= b
            occupied += slice != previous, previous = slice;
        }
        w->solver.layers[d] = occupied;
        for (int b = 0; b < HEIGHT_BANDS; b++) count[b + 1] += count[b];
        for (int k = first; k < last; k++) out[first + count[w->solver.tmp[k]]++] = w->solver.order[k];
        memcpy(w->solver.order + first, out + first, (size_t)(last - first) * sizeof *out);
    }
}

// Splits the contacts by the slab of space their bodies are in, along the awake bodies' widest axis
// (positions now): a contact whose bodies share a slab belongs to it (a collider takes its body's),
// any other to its boundary's domain (domain_of). Two slabs never write the same body, so they can
// be solved at once; so can the boundaries of a round.
// Within a domain the contacts keep their order. Every pass runs in parallel, in fixed slices.
int kyu_solver_partition(kyu_world *w) {
    if (RESERVE(w->solver.order, w->solver.order_cap, w->contacts.count + 1)) return -1;
    partition_ctx ctx, *x = &ctx; // about 4 KB of the stepping thread's stack
    x->w = w;
    x->slices = kyu_slice_count(w->step.active_count);
    kyu_parallel_for(w, x->slices, 1, span_task, x);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int sl = 0; sl < x->slices; sl++)
        for (int d = 0; d < 3; d++)
            lo[d] = kyu_minf(lo[d], x->lo[sl][d]), hi[d] = kyu_maxf(hi[d], x->hi[sl][d]);
    // Under gravity the slabs are cut across a horizontal axis, so a column stays in one slab and
    // the bottom-up order below can settle it in one pass. Of the axes at least half as wide as
    // the widest (thin slabs would send most pairs across slabs), the one along which
    // bodies next to each other in memory most often share a slab: workers then write cache lines
    // of their own (two workers writing one line take turns with it: PILE's rows of bodies, cut
    // across, made the 2-worker solve 1.4x slower). The widest breaks ties.
    int widest = -1, use[3] = {0, 0, 0}, candidates = 0;
    for (int d = 0; d < 3; d++) {
        x->axis_base[d] = lo[d];
        x->axis_scale[d] = hi[d] > lo[d] ? (float)KYU_SOLVE_DOMAINS / (hi[d] - lo[d]) : 0.0f;
        use[d] = !(w->gravity_on && fabsf(w->down.raw[d]) > 0.7f);
        if (use[d] && (widest < 0 || hi[d] - lo[d] > hi[widest] - lo[widest])) widest = d;
    }
    if (widest < 0) widest = 0, use[0] = 1;
    for (int d = 0; d < 3; d++)
        candidates += x->candidate[d] = use[d] && hi[d] - lo[d] >= 0.5f * (hi[widest] - lo[widest]);
    x->axis = widest;
    if (candidates > 1) {
        int64_t changes[3] = {0, 0, 0};
        kyu_parallel_for(w, x->slices, 1, changes_task, x);
        for (int sl = 0; sl < x->slices; sl++)
            for (int d = 0; d < 3; d++) changes[d] += x->changes[sl][d];
        for (int d = 0; d < 3; d++)
            if (x->candidate[d] && changes[d] < changes[x->axis]) x->axis = d;
    }
    x->base = x->axis_base[x->axis];
    x->scale = x->axis_scale[x->axis];
    kyu_parallel_for(w, w->step.active_count, 4096, slab_task, x);
    x->slices = kyu_slice_count(w->contacts.count);
    kyu_parallel_for(w, x->slices, 1, count_domains_task, x);
    int *start = w->solver.start, total = 0;
    for (int d = 0; d < KYU_SOLVE_GROUPS; d++) { // domain by domain, slice by slice
        start[d] = total;
        for (int sl = 0; sl < x->slices; sl++) {
            int n = x->at[sl][d];
            x->at[sl][d] = total;
            total += n;
        }
    }
    start[KYU_SOLVE_GROUPS] = total;
    kyu_parallel_for(w, x->slices, 1, place_domains_task, x);
    if (w->gravity_on) {
        if (RESERVE(w->solver.tmp, w->solver.tmp_cap, 2 * (w->contacts.count + 1))) return -1;
        kyu_parallel_for(w, KYU_SOLVE_GROUPS, 1, height_order_task, w);
    }
    return 0;
}

// The layers of the deepest stack of contacts, over the domains (height_order_task counts them).
int kyu_solver_depth(const kyu_world *w) {
    int layers = 0;
    for (int d = 0; d < KYU_SOLVE_GROUPS; d++)
        layers = w->solver.layers[d] > layers ? w->solver.layers[d] : layers;
    return layers;
}

// The passes of the solve and the push: solver_iterations, but at least one for every
// LAYERS_PER_PASS layers of the deepest stack of contacts (height_order_task counts a domain's
// layers). The passes carry a bed's weight down about that many layers each: with 8, a bed of 33
// layers (the tests') holds, and physics-check bed 12000 150 (93 layers) churned with overlaps
// past a radius (mean 4.3% of r, 11 J of motion after 39 s); given a pass per 5 layers (19) it
// rests within 0.67% of r on average, 13% at the deepest (0.5% below the top layers), 0.31 J; a
// pass per 4 (24) did better there (0.56%, 7.8%) but kept the tests' bed from sleeping. Scenes up
// to 40 layers keep solver_iterations (PILE is 10 deep); solver_iterations = 0 keeps 0.
#define LAYERS_PER_PASS 5
#define MOST_PASSES     64
int kyu_solver_passes(const kyu_world *w) {
    int passes = w->def.solver_iterations, layers = kyu_solver_depth(w);
    if (passes == 0 || !w->gravity_on) return passes;
    int need = (layers + LAYERS_PER_PASS - 1) / LAYERS_PER_PASS;
    need = need < MOST_PASSES ? need : MOST_PASSES;
    return need > passes ? need : passes;
}

// A task over domains [first + begin, first + end): a round of kyu_solver_run.
typedef struct offset_ctx {
    kyu_task_fn *task;
    void *ctx;
    int first;
} offset_ctx;

static void offset_task(int begin, int end, int worker, void *ctx) {
    const offset_ctx *x = ctx;
    x->task(x->first + begin, x->first + end, worker, x->ctx);
}

// A pass of a domain task over every contact: the slabs, then the two rounds of boundaries, each in
// parallel when it pays (from ROUND_AT_ONCE contacts in it), then the pairs across farther slabs.
// The domains of a round share no body, so any worker count gives the order of one.
#define ROUND_AT_ONCE 256
void kyu_solver_run(kyu_world *w, kyu_task_fn *task, void *ctx) {
    static const int round[] = {0, KYU_SOLVE_DOMAINS, KYU_SOLVE_ROUND_TWO, KYU_SOLVE_FAR};
    const int *start = w->solver.start;
    for (int k = 0; k < 3; k++) {
        int first = round[k], last = round[k + 1];
        if (w->contacts.count >= 4096 && start[last] - start[first] >= ROUND_AT_ONCE)
            kyu_parallel_for(w, last - first, 1, offset_task, &(offset_ctx){task, ctx, first});
        else
            task(first, last, 0, ctx);
    }
    task(KYU_SOLVE_FAR, KYU_SOLVE_GROUPS, 0, ctx);
}
