// SPDX-License-Identifier: MIT
// Impacts in time order (DESIGN step 5): every candidate pair gets its exact time of impact; the
// earliest is resolved first (both bodies advanced to it, the impulse applied, their new impacts
// computed), until none is left before the end of the step. Bodies keep their own clock (t_body)
// so an untouched body is never stepped twice. Stale queue entries are dropped by version.
#include <string.h>

#include "internal.h"

static int earlier(const impact_event *x, const impact_event *y) {
    if (x->t != y->t) return x->t < y->t;
    if (x->a != y->a) return x->a < y->a;
    return x->b < y->b;
}

static int heap_push(event_heap *h, impact_event ev) {
    if (RESERVE(h->ev, h->cap, h->count + 1)) return -1;
    int i = h->count++;
    if (h->count > h->peak) h->peak = h->count;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!earlier(&ev, &h->ev[p])) break;
        h->ev[i] = h->ev[p];
        i = p;
    }
    h->ev[i] = ev;
    return 0;
}

static void sift_down(impact_event *h, int n, int i);

static impact_event heap_pop(event_heap *h) {
    impact_event top = h->ev[0];
    if (--h->count > 0) {
        h->ev[0] = h->ev[h->count];
        sift_down(h->ev, h->count, 0);
    }
    return top;
}

// The earliest queued event of either heap (`later` first on an exact tie: any fixed rule would do).
static impact_event queue_pop(kyu_world *w) {
    if (w->now.count > 0 && (w->later.count == 0 || earlier(&w->now.ev[0], &w->later.ev[0])))
        return heap_pop(&w->now);
    return heap_pop(&w->later);
}

// Moves body i along its path to time t; its velocity becomes the velocity there.
static void advance(kyu_world *w, uint32_t i, float t) {
    vec3s p = kyu_pos_at(w, i, t), v = kyu_vel_at(w, i, t);
    w->bodies.pos[i] = p;
    w->bodies.vel[i] = v;
    w->t_body[i] = t;
}

// The next impact of body a with partner b after time tau, if any. A pair already touching (within
// the slop) that approaches slower than the restitution threshold, with no acceleration pressing
// it together, is a resting contact: the contact solver owns it, not the impact queue. One that
// gravity presses together (a body falling, not held, onto what it touches) is the queue's: it
// lands, and must not sink through the rest of the step.
static int next_impact(const kyu_world *w, uint32_t a, uint32_t b, float tau, impact_event *out) {
    if (kyu_pair_is_sensor(w, a, b)) return 0; // a sensor only reports overlaps
    kyu_sweep_contact ce;
    if (!kyu_next_contact(w, a, b, tau, &ce)) return 0;
    if (ce.gap <= kyu_pair_slop(w, a, b) && ce.approach <= kyu_rest_speed(w) && !(ce.accel < 0.0f)) return 0;
    out->t = ce.t < tau ? tau : ce.t;
    out->a = a;
    out->b = b;
    out->normal = ce.normal;
    out->va = w->version[a];
    out->vb = (b & KYU_COLLIDER_BIT) ? 0 : w->version[b];
    return 1;
}

static int refresh(kyu_world *w, uint32_t a, float tau, uint32_t skip);

// A body's new path meets sleeping bodies: their islands wake now and join the step at time tau,
// at rest, so the collision is resolved in this step.
static int wake_in_path(kyu_world *w, const aabb *box, float tau) {
    int first = w->woken_bodies_count;
    int n = kyu_islands_wake_box(w, box);
    if (n < 0) return -1;
    for (int k = first; k < first + n; k++) {
        uint32_t b = w->woken_bodies[k];
        w->t_body[b] = tau;
        w->version[b] = 0;
        w->limit_t[b] = 1.0f;
        w->accel[b] = glms_vec3_zero(); // it was resting: held by its contacts for this step
        w->active[w->active_count++] = b;
        kyu_broadphase_box(w, b, tau, &w->box[b]);
        if (kyu_broadphase_late_insert(w, b)) return -1;
    }
    for (int k = first; k < first + n; k++)
        if (refresh(w, w->woken_bodies[k], tau, UINT32_MAX)) return -1;
    return 0;
}

static int box_contains(const aabb *outer, const aabb *inner) {
    for (int k = 0; k < 3; k++)
        if (inner->lo[k] < outer->lo[k] || inner->hi[k] > outer->hi[k]) return 0;
    return 1;
}

// Whether partner b's box (which bounds the rest of its path) meets box nb: if not, a path in nb
// cannot come near it (both boxes are grown by radius and margin), so no time of impact is needed.
static int may_meet(const kyu_world *w, const aabb *nb, uint32_t b) {
    if (b & KYU_COLLIDER_BIT) return kyu_collider_touches_box(&w->colliders[b & ~KYU_COLLIDER_BIT], nb);
    return kyu_boxes_overlap(nb, &w->box[b]);
}

// Queues a's next impact with partner b after tau, if their boxes can meet.
static int queue_next(kyu_world *w, uint32_t a, uint32_t b, const aabb *nb, float tau) {
    impact_event ev;
    if (!may_meet(w, nb, b) || !next_impact(w, a, b, tau, &ev)) return 0;
    return heap_push(ev.t == tau ? &w->now : &w->later, ev);
}

// Body a changed velocity at tau: make sure its box still bounds the rest of its path, then queue
// its new impacts with every partner (except `skip`, already queued by the caller).
static int refresh(kyu_world *w, uint32_t a, float tau, uint32_t skip) {
    aabb nb;
    kyu_path_box(w, a, tau, &nb);
    if (!box_contains(&w->box[a], &nb)) {
        kyu_broadphase_box(w, a, tau, &w->box[a]);
        w->stats.late_inserts++;
        if (wake_in_path(w, &nb, tau) || kyu_broadphase_late_insert(w, a)) return -1;
    }
    for (int k = w->adj_start[a]; k < w->adj_start[a + 1]; k++)
        if (w->adj[k] != skip && queue_next(w, a, w->adj[k], &nb, tau)) return -1;
    for (int k = w->late_head[a]; k >= 0; k = w->late_next[k])
        if (w->late_partner[k] != skip && queue_next(w, a, w->late_partner[k], &nb, tau)) return -1;
    return 0;
}

static int is_current(const kyu_world *w, const impact_event *ev) {
    if (w->version[ev->a] != ev->va) return 0;
    return (ev->b & KYU_COLLIDER_BIT) || w->version[ev->b] == ev->vb;
}

// A bounce whose flight back would last less than this fraction of a step is the tail of a Zeno
// series (infinitely many ever shorter bounces in a finite time, as with restitution_threshold 0):
// it is made inelastic. The bounces it cuts would all have ended within that fraction / (1 - e) of a
// step, so the time of rest is the series' accumulation point to within it.
#define ZENO_FRACTION 1e-3f

// The pair landed (it stays in contact, pressed together by its relative acceleration): for the
// rest of the step the bodies share one acceleration, so neither sinks into the other. A collider
// or a body the solver holds (acceleration 0) holds the other too; two falling bodies with
// different gravity fall together with their mass-weighted acceleration.
static void land(kyu_world *w, uint32_t a, uint32_t b) {
    if (b & KYU_COLLIDER_BIT) {
        w->accel[a] = glms_vec3_zero();
        return;
    }
    vec3s aa = w->accel[a], ab = w->accel[b];
    if (glms_vec3_norm2(aa) == 0.0f || glms_vec3_norm2(ab) == 0.0f) {
        w->accel[a] = w->accel[b] = glms_vec3_zero();
        return;
    }
    float ma = w->bodies.mass[a], mb = w->bodies.mass[b];
    w->accel[a] = w->accel[b] = glms_vec3_scale(glms_vec3_add(glms_vec3_scale(aa, ma), glms_vec3_scale(ab, mb)), 1.0f / (ma + mb));
}

// Resolves one event of the queue: an impact (restitution above the threshold, inelastic below it
// or at the tail of a Zeno series), or a touching pair that its relative acceleration starts to
// press together (it lands). Returns 1 if anything changed, 0 if the pair was neither approaching
// nor pressing, -1 out of memory.
static int resolve(kyu_world *w, const impact_event *ev) {
    advance(w, ev->a, ev->t);
    const body_store *s = &w->bodies;
    const collider *c = (ev->b & KYU_COLLIDER_BIT) ? &w->colliders[ev->b & ~KYU_COLLIDER_BIT] : NULL;
    vec3s n, vb, acc_b = glms_vec3_zero();
    float gap;
    if (c) {
        if (c->type == KYU_SHAPE_MESH) {
            n = ev->normal, gap = 0.0f; // the queue found it touching that triangle
        } else {
            gap = kyu_collider_distance(c, s->pos[ev->a], s->radius[ev->a], ev->t, w->def.fixed_dt, &n);
        }
        vb = c->velocity;
    } else {
        advance(w, ev->b, ev->t);
        vec3s d = glms_vec3_sub(s->pos[ev->a], s->pos[ev->b]);
        float len = glms_vec3_norm(d);
        n = len > 0.0f ? glms_vec3_scale(d, 1.0f / len) : (vec3s){{0.0f, 1.0f, 0.0f}};
        gap = len - s->radius[ev->a] - s->radius[ev->b];
        vb = s->vel[ev->b], acc_b = w->accel[ev->b];
    }
    float vn = glms_vec3_dot(glms_vec3_sub(s->vel[ev->a], vb), n);
    float an = glms_vec3_dot(glms_vec3_sub(w->accel[ev->a], acc_b), n);
    if (!(vn < 0.0f)) { // not approaching: a touching pair at rest and pressed together lands
        float flight = an < 0.0f ? 2.0f * vn / -an : INFINITY; // until it would come back
        if (!(flight <= ZENO_FRACTION * w->def.fixed_dt) || gap > kyu_pair_slop(w, ev->a, ev->b)) return 0;
        land(w, ev->a, ev->b);
    } else {
        float u = -vn, e = kyu_pair_restitution(w, ev->a, ev->b);
        // Slower than the threshold onto what presses against it (a ball coming to rest on the
        // floor), or the tail of a Zeno series: inelastic. Anywhere else (a gas, balls meeting in
        // the air or rolling into each other) restitution acts at every speed.
        if (an < 0.0f && (u <= w->def.restitution_threshold || 2.0f * e * u < -an * ZENO_FRACTION * w->def.fixed_dt))
            e = 0.0f;
        if (kyu_impact_record(w, ev->a, ev->b, n, u, ev->t)) return -1;
        if (c) kyu_respond_collider(w, ev->a, c, n, e);
        else kyu_respond_pair(w, ev->a, ev->b, n, e);
        if (e == 0.0f && an < 0.0f) land(w, ev->a, ev->b);
    }
    kyu_broadphase_mark_hit(w, ev->a, ev->b);
    if (!c) w->version[ev->b]++;
    w->version[ev->a]++;
    return 1;
}

// The event cap was hit: every body stops at its next impact (or the end of the step), so nothing
// passes through anything; the escape stage and the next step take over from there.
static void stop_at_next_impacts(kyu_world *w) {
    w->stats.event_cap_hit = 1;
    while (w->now.count + w->later.count > 0) {
        impact_event ev = queue_pop(w);
        if (!is_current(w, &ev)) continue;
        if (ev.t < w->limit_t[ev.a]) w->limit_t[ev.a] = ev.t;
        if (!(ev.b & KYU_COLLIDER_BIT) && ev.t < w->limit_t[ev.b]) w->limit_t[ev.b] = ev.t;
    }
}

// The candidate pairs as one list in pair order, cut into fixed slices of equal length: a slice may
// span runs (kyu_pair_source). Slices by length, not one per run, keep the work even: a pile's
// body-collider runs hold most of its pairs, and the costlier ones.
typedef struct pair_slices {
    kyu_world *w;
    int slices, total;
    int at[3 * KYU_MAX_SLICES + 1]; // run s holds pairs [at[s], at[s + 1]) of the list
} pair_slices;

// The first impact of every candidate pair of a slice that has one, in pair order (any split of
// the slices over workers gives the same list).
static void first_impacts_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    const pair_slices *x = ctx;
    kyu_world *w = x->w;
    for (int c = begin; c < end; c++) {
        event_chunk *ch = &w->event_chunks[c];
        int from = kyu_slice_start(x->total, x->slices, c), to = kyu_slice_start(x->total, x->slices, c + 1);
        int s = 0;
        while (x->at[s + 1] <= from && x->at[s + 1] < x->total) s++;
        pair_source src = kyu_pair_source(w, s);
        ch->count = 0;
        for (int p = from; p < to; p++) {
            while (p >= x->at[s + 1]) src = kyu_pair_source(w, ++s);
            impact_event ev;
            if (!next_impact(w, src.a[p - x->at[s]], src.b[p - x->at[s]], 0.0f, &ev)) continue;
            if (ch->count == ch->cap && RESERVE(ch->ev, ch->cap, ch->count + 1)) {
                ch->failed = 1;
                return;
            }
            ch->ev[ch->count++] = ev;
        }
    }
}

// The first impacts of all pairs, found in fixed slices of the pair list at once and joined in
// pair order: only pairs that have an impact take room (most candidate pairs have none).
static int first_impacts(kyu_world *w) {
    pair_slices x = {.w = w};
    int sources = kyu_pair_source_count(w);
    assert(sources <= 3 * KYU_MAX_SLICES);
    for (int s = 0; s < sources; s++) x.at[s + 1] = x.at[s] + kyu_pair_source(w, s).count;
    x.total = x.at[sources];
    int slices = x.slices = kyu_slice_count(x.total);
    int cap = w->event_chunk_cap;
    if (RESERVE(w->event_chunks, cap, slices)) return -1;
    for (int c = w->event_chunk_cap; c < cap; c++) memset(&w->event_chunks[c], 0, sizeof w->event_chunks[c]);
    w->event_chunk_cap = cap;
    for (int c = 0; c < slices; c++) w->event_chunks[c].failed = 0;
    kyu_parallel_for(w, slices, 1, first_impacts_task, &x);
    int n = 0;
    for (int c = 0; c < slices; c++) {
        if (w->event_chunks[c].failed) return -1;
        n += w->event_chunks[c].count;
    }
    if (RESERVE(w->later.ev, w->later.cap, n + 1)) return -1;
    w->later.count = w->now.count = 0;
    w->later.peak = n;
    w->now.peak = 0;
    for (int c = 0; c < slices; c++) {
        const event_chunk *ch = &w->event_chunks[c];
        if (ch->count == 0) continue; // its array may never have been allocated
        memcpy(w->later.ev + w->later.count, ch->ev, (size_t)ch->count * sizeof *ch->ev);
        w->later.count += ch->count;
    }
    return 0;
}

static void sift_down(impact_event *h, int n, int i) {
    impact_event x = h[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && earlier(&h[c + 1], &h[c])) c++;
        if (!earlier(&h[c], &x)) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

// Every body to the end of the step (or where it stops: see stop_at_next_impacts).
static void finish_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    for (int k = begin; k < end; k++) advance(w, w->active[k], w->limit_t[w->active[k]]);
}

int kyu_impacts_resolve(kyu_world *w) {
    const body_store *s = &w->bodies;
    for (int k = 0; k < w->active_count; k++) {
        uint32_t i = w->active[k];
        w->version[i] = 0;
        w->limit_t[i] = 1.0f;
    }
    if (first_impacts(w)) return -1;
    for (int i = w->later.count / 2 - 1; i >= 0; i--) sift_down(w->later.ev, w->later.count, i);
    impact_event ev;
    int cap = w->def.max_events_per_step > 0 ? w->def.max_events_per_step : 16 * s->count + 1024;
    while (w->now.count + w->later.count > 0) {
        ev = queue_pop(w);
        if (!is_current(w, &ev)) {
            w->stats.stale_events++;
            continue;
        }
        if (w->stats.impacts >= cap) {
            if (heap_push(&w->later, ev)) return -1;
            stop_at_next_impacts(w);
            break;
        }
        int changed = resolve(w, &ev);
        if (changed < 0) return -1;
        if (!changed) continue;
        w->stats.impacts++;
        uint32_t other = (ev.b & KYU_COLLIDER_BIT) ? UINT32_MAX : ev.b;
        if (refresh(w, ev.a, ev.t, UINT32_MAX)) return -1;
        if (other != UINT32_MAX && refresh(w, other, ev.t, ev.a)) return -1;
    }
    kyu_parallel_for(w, w->active_count, 4096, finish_task, w);
    return 0;
}
