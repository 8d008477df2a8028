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
    if (w->impacts.now.count > 0 &&
        (w->impacts.later.count == 0 || earlier(&w->impacts.now.ev[0], &w->impacts.later.ev[0])))
        return heap_pop(&w->impacts.now);
    return heap_pop(&w->impacts.later);
}

// Moves body i along its path to time t; its velocity becomes the velocity there.
static void advance(kyu_world *w, uint32_t i, float t) {
    body_store *s = &w->bodies;
    vec3s p = kyu_pos_at(w, i, t), v = kyu_vel_at(w, i, t);
    if (s->inv_inertia[i] > 0.0f)
        s->rot[i] = kyu_quat_turn(s->rot[i], s->ang[i], (t - w->step.t_body[i]) * w->def.fixed_dt);
    s->pos[i] = p;
    s->vel[i] = v;
    w->step.t_body[i] = t;
}

// The next impact of body a with partner b after time tau, if any. A pair that approaches slower
// than a resting pair, with no acceleration pressing it together, and that touches (within the
// slop) or that the contact solver holds this step, is resting: the solver and the escape mend
// what is left of its approach, not the impact queue. One that gravity presses together (a body
// falling, not held, onto what it touches) is the queue's: it lands, and must not sink.
static int next_impact(const kyu_world *w, uint32_t a, uint32_t b, float tau, impact_event *out) {
    if (kyu_pair_is_sensor(w, a, b)) return 0; // a sensor only reports overlaps
    kyu_sweep_contact ce;
    // A slow pair on a straight relative path that the solver holds: whatever the sweep finds
    // would be dropped below (approach < rest, accel 0), so the sweep is skipped.
    if (kyu_slow_straight_pair(w, a, b, tau) && kyu_contacts_solver_owns(w, a, b)) return 0;
    if (!kyu_next_contact(w, a, b, tau, &ce)) return 0;
    if (ce.approach <= kyu_rest_speed(w) && !(ce.accel < 0.0f) &&
        (ce.gap <= kyu_pair_slop(w, a, b) || kyu_contacts_solver_owns(w, a, b)))
        return 0;
    out->t = ce.t < tau ? tau : ce.t;
    out->a = a;
    out->b = b;
    out->normal = ce.normal;
    out->va = w->impacts.version[a];
    out->vb = (b & KYU_COLLIDER_BIT) ? 0 : w->impacts.version[b];
    return 1;
}

static int refresh(kyu_world *w, uint32_t a, float tau, uint32_t skip);

// A body's new path meets sleeping bodies: their islands wake now and join the step at time tau,
// at rest, so the collision is resolved in this step.
static int wake_in_path(kyu_world *w, const aabb *box, float tau) {
    int first = w->islands.woken_bodies_count;
    int n = kyu_islands_wake_box(w, box);
    if (n < 0) return -1;
    for (int k = first; k < first + n; k++) {
        uint32_t b = w->islands.woken_bodies[k];
        w->step.t_body[b] = tau;
        w->impacts.version[b] = 0;
        w->impacts.limit_t[b] = 1.0f;
        w->contacts.run[b] = -1;             // its contacts are not the solver's this step
        w->step.accel[b] = glms_vec3_zero(); // it was resting: held by its contacts for this step
        w->step.active[w->step.active_count++] = b;
        kyu_broadphase_box(w, b, tau, &w->step.box[b]);
        if (kyu_broadphase_late_insert(w, b)) return -1;
    }
    for (int k = first; k < first + n; k++)
        if (refresh(w, w->islands.woken_bodies[k], tau, UINT32_MAX)) return -1;
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
    if (b & KYU_COLLIDER_BIT) return kyu_collider_touches_box(&w->colliders.list[b & ~KYU_COLLIDER_BIT], nb);
    return kyu_boxes_overlap(nb, &w->step.box[b]);
}

// Queues a's next impact with partner b after tau, if their boxes can meet.
static int queue_next(kyu_world *w, uint32_t a, uint32_t b, const aabb *nb, float tau) {
    impact_event ev;
    if (!may_meet(w, nb, b) || !next_impact(w, a, b, tau, &ev)) return 0;
    return heap_push(ev.t == tau ? &w->impacts.now : &w->impacts.later, ev);
}

// Body a changed velocity at tau: make sure its box still bounds the rest of its path, then queue
// its new impacts with every partner (except `skip`, already queued by the caller).
static int refresh(kyu_world *w, uint32_t a, float tau, uint32_t skip) {
    aabb nb;
    kyu_path_box(w, a, tau, &nb);
    if (!box_contains(&w->step.box[a], &nb)) {
        kyu_broadphase_box(w, a, tau, &w->step.box[a]);
        w->stats.late_inserts++;
        if (wake_in_path(w, &nb, tau) || kyu_broadphase_late_insert(w, a)) return -1;
    }
    for (kyu_partner_iter it = kyu_partners(&w->pairs, a); kyu_next_partner(&w->pairs, &it);)
        if (it.partner != skip && queue_next(w, a, it.partner, &nb, tau)) return -1;
    return 0;
}

static int is_current(const kyu_world *w, const impact_event *ev) {
    if (w->impacts.version[ev->a] != ev->va) return 0;
    return (ev->b & KYU_COLLIDER_BIT) || w->impacts.version[ev->b] == ev->vb;
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
        w->step.accel[a] = glms_vec3_zero();
        return;
    }
    vec3s aa = w->step.accel[a], ab = w->step.accel[b];
    if (glms_vec3_norm2(aa) == 0.0f || glms_vec3_norm2(ab) == 0.0f) {
        w->step.accel[a] = w->step.accel[b] = glms_vec3_zero();
        return;
    }
    float ma = w->bodies.mass[a], mb = w->bodies.mass[b];
    w->step.accel[a] = w->step.accel[b] =
        glms_vec3_scale(glms_vec3_add(glms_vec3_scale(aa, ma), glms_vec3_scale(ab, mb)), 1.0f / (ma + mb));
}

// Pair (a, b) at the instant both stand at: the normal (b to a), the gap, the relative normal
// velocity and acceleration. A mesh gives the normal of the triangle the queue found.
typedef struct pair_now {
    const collider *c;
    vec3s n;
    float gap, vn, an;
} pair_now;

// The relative normal velocity and acceleration of pair (a, b) along p's normal (p->c: b's collider).
static void pair_closing(const kyu_world *w, uint32_t a, uint32_t b, pair_now *p) {
    const body_store *s = &w->bodies;
    vec3s vb = p->c ? p->c->velocity : s->vel[b], acc_b = p->c ? glms_vec3_zero() : w->step.accel[b];
    p->vn = glms_vec3_dot(glms_vec3_sub(s->vel[a], vb), p->n);
    p->an = glms_vec3_dot(glms_vec3_sub(w->step.accel[a], acc_b), p->n);
}

static pair_now pair_at(const kyu_world *w, uint32_t a, uint32_t b, float t, vec3s mesh_normal) {
    const body_store *s = &w->bodies;
    pair_now p;
    p.c = (b & KYU_COLLIDER_BIT) ? &w->colliders.list[b & ~KYU_COLLIDER_BIT] : NULL;
    if (p.c) {
        if (p.c->type == KYU_SHAPE_MESH)
            p.n = mesh_normal, p.gap = 0.0f; // the queue found it touching that triangle
        else
            p.gap = kyu_collider_distance(p.c, s->pos[a], s->radius[a], t, w->def.fixed_dt, &p.n);
    } else {
        vec3s d = glms_vec3_sub(s->pos[a], s->pos[b]);
        float len = glms_vec3_norm(d);
        p.n = len > 0.0f ? glms_vec3_scale(d, 1.0f / len) : (vec3s){{0.0f, 1.0f, 0.0f}};
        p.gap = len - s->radius[a] - s->radius[b];
    }
    pair_closing(w, a, b, &p);
    return p;
}

// The response of a pair at its instant t: an impact (restitution above the threshold, inelastic
// below it or at the tail of a Zeno series), or a touching pair that its relative acceleration
// starts to press together (it lands). Returns 1 if anything changed, 0 if the pair was neither
// approaching nor pressing, -1 out of memory.
static int respond_now(kyu_world *w, uint32_t a, uint32_t b, float t, const pair_now *p, int inelastic) {
    if (!(p->vn < 0.0f)) { // not approaching: a touching pair at rest and pressed together lands
        float flight = p->an < 0.0f ? 2.0f * p->vn / -p->an : INFINITY; // until it would come back
        if (!(flight <= ZENO_FRACTION * w->def.fixed_dt) || p->gap > kyu_pair_slop(w, a, b)) return 0;
        land(w, a, b);
    } else {
        float u = -p->vn, e = kyu_pair_restitution(w, a, b);
        // Under gravity, slower than the threshold (bodies coming to rest: on the floor, in a pile,
        // where every pair is pressed together through the others), or the tail of a Zeno series:
        // inelastic. Without gravity (a gas) restitution acts at every speed.
        if (inelastic || (u <= w->def.restitution_threshold && w->gravity_on) ||
            (p->an < 0.0f && 2.0f * e * u < -p->an * ZENO_FRACTION * w->def.fixed_dt))
            e = 0.0f;
        int recorded = w->events.impact_count;
        if (kyu_impact_record(w, a, b, p->n, u, t)) return -1;
        kyu_impulse j = p->c ? kyu_respond_collider(w, a, p->c, p->n, e) : kyu_respond_pair(w, a, b, p->n, e);
        if (w->events.impact_count > recorded) {
            w->events.impacts[recorded].normal_impulse = j.normal;
            w->events.impacts[recorded].tangent_impulse = j.tangent;
        }
        if (e == 0.0f && p->an < 0.0f) land(w, a, b);
    }
    kyu_broadphase_mark_hit(w, a, b);
    if (!p->c) w->impacts.version[b]++;
    w->impacts.version[a]++;
    w->stats.impacts++;
    return 1;
}

// Resolves one event of the queue, with both bodies advanced to its time.
static int resolve(kyu_world *w, const impact_event *ev) {
    advance(w, ev->a, ev->t);
    if (!(ev->b & KYU_COLLIDER_BIT)) advance(w, ev->b, ev->t);
    pair_now p = pair_at(w, ev->a, ev->b, ev->t, ev->normal);
    return respond_now(w, ev->a, ev->b, ev->t, &p, 0);
}

// ---- the cascade: an impact's push through what touches its bodies, at its instant --------------
//
// A struck body pushes what it touches, which pushes what that touches: the landing of a column
// onto a pile, a cradle, a ball dropped on a bed. These impacts all fall at the instant of the
// first. Through the queue each would be a heap entry with a sweep to find it, and a touching
// cluster's inelastic impacts chase each other round the cluster; here the pairs that touch (gap
// within the slop) are resolved at once, body by body in the order they are reached (so a chain
// resolves in chain order: a cradle passes its momentum exactly as pairwise impacts do). The wave
// that first reaches each body bounces with restitution; what comes back is the inelastic collapse
// of event-driven granular models (a column struck on its floor would ring for thousands of ever
// smaller impacts), so it is damped as one problem: a few inelastic sweeps over the bodies
// reached, lowest first, in which a body pressing down onto one that is not rising into it takes
// that one's normal velocity (shock propagation: a stack settles from its support up in one
// sweep, and no kinetic energy can appear, since the upper body only slows), leave at most a slow
// approach, which is the contact solver's and the escape's next step. Impacts at later times keep
// the queue's exact time order. Without gravity nothing is pressed together and nothing collapses:
// every impact keeps its own time and its own restitution (an elastic gas keeps its energy).
#define CASCADE_SWEEPS 8
enum { CASCADE_PENDING = 1, CASCADE_CHANGED = 2, CASCADE_REACHED = 4 };

static int cascade_push(kyu_world *w, uint32_t i, float tau) {
    if (w->impacts.cascade.flag[i] & CASCADE_PENDING) return 0;
    if (RESERVE(w->impacts.cascade.wave, w->impacts.cascade.wave_cap, w->impacts.cascade.wave_count + 1))
        return -1;
    if (!(w->impacts.cascade.flag[i] & CASCADE_CHANGED)) {
        if (RESERVE(w->impacts.cascade.changed, w->impacts.cascade.changed_cap,
                    w->impacts.cascade.changed_count + 1))
            return -1;
        w->impacts.cascade.changed[w->impacts.cascade.changed_count++] = i;
    }
    if (w->step.t_body[i] < tau) advance(w, i, tau);
    w->impacts.cascade.flag[i] |= CASCADE_PENDING | CASCADE_CHANGED;
    w->impacts.cascade.wave[w->impacts.cascade.wave_count++] = i;
    return 0;
}

// A sweep's pair of bodies one above the other (normal within 60 degrees of gravity) whose lower
// body is not rising into the upper: the upper takes the lower's normal velocity. Returns 0 for
// any other pair, which is resolved as an ordinary inelastic impact.
static int shock(kyu_world *w, uint32_t i, uint32_t j, const pair_now *p) {
    float up = -glms_vec3_dot(p->n, w->down); // > 0: i above j
    if (!(fabsf(up) > 0.5f)) return 0;
    uint32_t upper = up > 0.0f ? i : j, lower = up > 0.0f ? j : i;
    vec3s n = up > 0.0f ? p->n : glms_vec3_negate(p->n); // from lower to upper
    body_store *s = &w->bodies;
    if (glms_vec3_dot(s->vel[lower], n) > 0.0f) return 0;
    float approach = glms_vec3_dot(glms_vec3_sub(s->vel[upper], s->vel[lower]), n); // < 0
    s->vel[upper] = glms_vec3_sub(s->vel[upper], glms_vec3_scale(n, approach));
    return 1;
}

// Whether bodies i and j, both at the cascade's instant, might touch and (with `approach`) close
// faster than tol: a test without a square root that pair_at can never contradict. The gap test
// keeps a relative 1e-5 of room, far above the rounding of pair_at's len - ra - rb; the approach
// test rules a pair out only if its velocity and separation point apart and tol is above the
// rounding that normalising the separation could add (6e-7 of |vrel|). Most partners of a body in
// a heap fail one of the two.
static int may_touch(const kyu_world *w, uint32_t i, uint32_t j, float tol, int approach) {
    const body_store *s = &w->bodies;
    vec3s d = glms_vec3_sub(s->pos[i], s->pos[j]);
    float reach = s->radius[i] + s->radius[j] + kyu_pair_slop(w, i, j);
    if (glms_vec3_dot(d, d) > reach * reach * (1.0f + 1e-5f)) return 0;
    if (!approach) return 1;
    vec3s v = glms_vec3_sub(s->vel[i], s->vel[j]);
    return glms_vec3_dot(d, v) < 0.0f || !(tol > 1e-6f * (fabsf(v.x) + fabsf(v.y) + fabsf(v.z)));
}

// A touching pair (i, j) at tau that closes faster than the cascade's tolerance: resolved now.
// Returns 1 if it changed the bodies, 0 if not, -1 out of memory.
static int cascade_pair(kyu_world *w, uint32_t i, uint32_t j, float tau, pair_now *p, int sweep, int again) {
    int body = !(j & KYU_COLLIDER_BIT);
    if (sweep && body && w->gravity_on && shock(w, i, j, p)) {
        kyu_broadphase_mark_hit(w, i, j);
        w->impacts.version[i]++, w->impacts.version[j]++, w->stats.impacts++;
        return 1;
    }
    return respond_now(w, i, j, tau, p, again || (body && (w->impacts.cascade.flag[j] & CASCADE_REACHED)));
}

// The approach below which the cascade leaves a touching pair (i, j) to the contact solver: a tenth
// of a resting pair's speed, or, when the pair's slop is large enough, up to that speed itself, as
// long as what is left closes the pair by no more than its slop in a whole step (the escape takes
// that out softly, and the next step's solver stops it). A cascade's cost grows with how far its
// wave spreads through a heap, and each halving of its reach is a generation fewer of bodies.
static float cascade_tol(const kyu_world *w, uint32_t i, uint32_t j, float rest, float inv_dt) {
    return kyu_maxf(0.1f * rest, kyu_minf(rest, kyu_pair_slop(w, i, j) * inv_dt));
}

// Body i's touching partners at tau that approach: resolved now; what changes goes on the list.
// With `record` (the first sweep) every touching pair is also cached for the sweeps after it:
// every body stands at tau while the sweeps run, so which pairs touch, and their normals, stay.
static int cascade_body(kyu_world *w, uint32_t i, float tau, int cap, int sweep, int record) {
    int again = sweep || (w->impacts.cascade.flag[i] & CASCADE_REACHED) != 0;
    float rest = kyu_rest_speed(w), inv_dt = 1.0f / w->def.fixed_dt;
    w->impacts.cascade.flag[i] |= CASCADE_REACHED;
    for (kyu_partner_iter it = kyu_partners(&w->pairs, i); kyu_next_partner(&w->pairs, &it);) {
        if (w->stats.impacts >= cap) return 0;
        uint32_t j = it.partner;
        if (kyu_pair_is_sensor(w, i, j)) continue;
        int body = !(j & KYU_COLLIDER_BIT);
        if (!body && w->colliders.list[j & ~KYU_COLLIDER_BIT].type == KYU_SHAPE_MESH) continue; // the queue's
        if (body && w->step.t_body[j] < tau) advance(w, j, tau);
        float tol = cascade_tol(w, i, j, rest, inv_dt);
        if (body && !may_touch(w, i, j, tol, !record)) continue;
        pair_now p = pair_at(w, i, j, tau, glms_vec3_zero());
        if (p.gap > kyu_pair_slop(w, i, j)) continue;
        if (record) {
            if (RESERVE(w->impacts.cascade.touch, w->impacts.cascade.touch_cap,
                        w->impacts.cascade.touch_count + 1))
                return -1;
            w->impacts.cascade.touch[w->impacts.cascade.touch_count++] = (kyu_touch){j, p.gap, p.n};
        }
        if (!(p.vn < -tol)) continue;
        int changed = cascade_pair(w, i, j, tau, &p, sweep, again);
        if (changed < 0) return -1;
        if (!changed || sweep) continue; // the sweeps visit every body reached anyway
        if (!again && (cascade_push(w, i, tau) || (body && cascade_push(w, j, tau)))) return -1;
    }
    return 0;
}

// A later sweep over body k of the list: its cached touching pairs, with this sweep's velocities
// (the same arithmetic as pair_at, so the same answer as a walk over all its partners).
static int sweep_cached(kyu_world *w, int k, float tau, int cap) {
    uint32_t i = w->impacts.cascade.changed[k];
    float rest = kyu_rest_speed(w), inv_dt = 1.0f / w->def.fixed_dt;
    for (int t = w->impacts.cascade.touch_start[k]; t < w->impacts.cascade.touch_start[k + 1]; t++) {
        if (w->stats.impacts >= cap) return 0;
        const kyu_touch *c = &w->impacts.cascade.touch[t];
        uint32_t j = c->partner;
        pair_now p = {.n = c->n, .gap = c->gap};
        p.c = (j & KYU_COLLIDER_BIT) ? &w->colliders.list[j & ~KYU_COLLIDER_BIT] : NULL;
        pair_closing(w, i, j, &p);
        if (p.vn < -cascade_tol(w, i, j, rest, inv_dt) && cascade_pair(w, i, j, tau, &p, 1, 1) < 0) return -1;
    }
    return 0;
}

// Lowest first along gravity, then by slot (a fixed order for any worker count). The heights are
// copied into the keys first, so the comparator needs no context (qsort has none to give).
static int lower_first(const void *x, const void *y) {
    const kyu_height_key *a = x, *b = y;
    if (a->height != b->height) return a->height < b->height ? -1 : 1;
    return (a->slot > b->slot) - (a->slot < b->slot);
}

static int sort_lowest_first(kyu_world *w, uint32_t *list, int n) {
    if (RESERVE(w->impacts.cascade.keys, w->impacts.cascade.keys_cap, n)) return -1;
    for (int k = 0; k < n; k++)
        w->impacts.cascade.keys[k] =
            (kyu_height_key){-glms_vec3_dot(w->bodies.pos[list[k]], w->down), list[k]};
    qsort(w->impacts.cascade.keys, (size_t)n, sizeof *w->impacts.cascade.keys, lower_first);
    for (int k = 0; k < n; k++) list[k] = w->impacts.cascade.keys[k].slot;
    return 0;
}

// The cascade of the impact of a and b at tau, then every body it changed queues its next impacts.
static int cascade(kyu_world *w, uint32_t a, uint32_t b, float tau, int cap) {
    w->impacts.cascade.wave_count = w->impacts.cascade.changed_count = 0;
    if (cascade_push(w, a, tau) || (!(b & KYU_COLLIDER_BIT) && cascade_push(w, b, tau))) return -1;
    for (int head = 0; head < w->impacts.cascade.wave_count; head++) { // the wave
        uint32_t i = w->impacts.cascade.wave[head];
        w->impacts.cascade.flag[i] &= (uint8_t)~CASCADE_PENDING;
        if (cascade_body(w, i, tau, cap, 0, 0)) return -1;
    }
    if (w->impacts.cascade.changed_count > 2) { // what came back: inelastic sweeps, lowest first
        if (w->gravity_on &&
            sort_lowest_first(w, w->impacts.cascade.changed, w->impacts.cascade.changed_count))
            return -1;
        int n = w->impacts.cascade.changed_count;
        if (RESERVE(w->impacts.cascade.touch_start, w->impacts.cascade.touch_start_cap, n + 1)) return -1;
        w->impacts.cascade.touch_count = 0;
        for (int k = 0; k < n; k++) {
            w->impacts.cascade.touch_start[k] = w->impacts.cascade.touch_count;
            if (cascade_body(w, w->impacts.cascade.changed[k], tau, cap, 1, 1)) return -1;
        }
        w->impacts.cascade.touch_start[n] = w->impacts.cascade.touch_count;
        for (int sweep = 1; sweep < CASCADE_SWEEPS; sweep++) {
            int before = w->stats.impacts;
            for (int k = 0; k < n; k++)
                if (sweep_cached(w, k, tau, cap)) return -1;
            if (w->stats.impacts == before) break; // nothing changed: neither would the next sweep
        }
    }
    for (int k = 0; k < w->impacts.cascade.changed_count; k++)
        w->impacts.cascade.flag[w->impacts.cascade.changed[k]] = 0;
    for (int k = 0; k < w->impacts.cascade.changed_count; k++)
        if (refresh(w, w->impacts.cascade.changed[k], tau, UINT32_MAX)) return -1;
    return 0;
}

// The event cap was hit: every body stops at its next impact (or the end of the step), so nothing
// passes through anything; the escape stage and the next step take over from there.
static void stop_at_next_impacts(kyu_world *w) {
    w->stats.event_cap_hit = 1;
    while (w->impacts.now.count + w->impacts.later.count > 0) {
        impact_event ev = queue_pop(w);
        if (!is_current(w, &ev)) continue;
        if (ev.t < w->impacts.limit_t[ev.a]) w->impacts.limit_t[ev.a] = ev.t;
        if (!(ev.b & KYU_COLLIDER_BIT) && ev.t < w->impacts.limit_t[ev.b]) w->impacts.limit_t[ev.b] = ev.t;
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
        event_chunk *ch = &w->impacts.chunks[c];
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
    KYU_ASSERT(sources <= 3 * KYU_MAX_SLICES);
    for (int s = 0; s < sources; s++) x.at[s + 1] = x.at[s] + kyu_pair_source(w, s).count;
    x.total = x.at[sources];
    int slices = x.slices = kyu_slice_count(x.total);
    int cap = w->impacts.chunk_cap;
    if (RESERVE(w->impacts.chunks, cap, slices)) return -1;
    for (int c = w->impacts.chunk_cap; c < cap; c++)
        memset(&w->impacts.chunks[c], 0, sizeof w->impacts.chunks[c]);
    w->impacts.chunk_cap = cap;
    for (int c = 0; c < slices; c++) w->impacts.chunks[c].failed = 0;
    kyu_parallel_for(w, slices, 1, first_impacts_task, &x);
    int n = 0;
    for (int c = 0; c < slices; c++) {
        if (w->impacts.chunks[c].failed) return -1;
        n += w->impacts.chunks[c].count;
    }
    if (RESERVE(w->impacts.later.ev, w->impacts.later.cap, n + 1)) return -1;
    w->impacts.later.count = w->impacts.now.count = 0;
    w->impacts.later.peak = n;
    w->impacts.now.peak = 0;
    for (int c = 0; c < slices; c++) {
        const event_chunk *ch = &w->impacts.chunks[c];
        if (ch->count == 0) continue; // its array may never have been allocated
        memcpy(w->impacts.later.ev + w->impacts.later.count, ch->ev, (size_t)ch->count * sizeof *ch->ev);
        w->impacts.later.count += ch->count;
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
    for (int k = begin; k < end; k++) advance(w, w->step.active[k], w->impacts.limit_t[w->step.active[k]]);
}

static int resolve_in_order(kyu_world *w) {
    const body_store *s = &w->bodies;
    for (int k = 0; k < w->step.active_count; k++) {
        uint32_t i = w->step.active[k];
        w->impacts.version[i] = 0;
        w->impacts.limit_t[i] = 1.0f;
    }
    if (first_impacts(w)) return -1;
    for (int i = w->impacts.later.count / 2 - 1; i >= 0; i--)
        sift_down(w->impacts.later.ev, w->impacts.later.count, i);
    impact_event ev;
    int cap = w->def.max_events_per_step > 0 ? w->def.max_events_per_step : 16 * s->count + 1024;
    while (w->impacts.now.count + w->impacts.later.count > 0) {
        ev = queue_pop(w);
        if (!is_current(w, &ev)) {
            w->stats.stale_events++;
            continue;
        }
        if (w->stats.impacts >= cap) {
            if (heap_push(&w->impacts.later, ev)) return -1;
            stop_at_next_impacts(w);
            break;
        }
        int changed = resolve(w, &ev);
        if (changed < 0) return -1;
        if (!changed) continue;
        if (w->gravity_on ? cascade(w, ev.a, ev.b, ev.t, cap)
                          : (refresh(w, ev.a, ev.t, UINT32_MAX) ||
                             (!(ev.b & KYU_COLLIDER_BIT) && refresh(w, ev.b, ev.t, ev.a))))
            return -1;
    }
    kyu_parallel_for(w, w->step.active_count, 4096, finish_task, w);
    return 0;
}

int kyu_impacts_resolve(kyu_world *w) {
    w->impacts.version = kyu_arena_take(&w->step.arena, (size_t)w->bodies.high * sizeof *w->impacts.version);
    w->impacts.limit_t = kyu_arena_take(&w->step.arena, (size_t)w->bodies.high * sizeof *w->impacts.limit_t);
    int failed = resolve_in_order(w);
    kyu_arena_reset(&w->step.arena);
    w->impacts.version = NULL, w->impacts.limit_t = NULL;
    // Idle until the next step's impacts: the queue's heaps (empty now) and the late-insert table.
    GIVE_BACK(w->impacts.later.ev, w->impacts.later.cap);
    GIVE_BACK(w->impacts.now.ev, w->impacts.now.cap);
    GIVE_BACK(w->contacts.owned, w->contacts.owned_cap); // kyu_contacts_solver_owns is done with it
    kyu_broadphase_end_late_inserts(w);
    return failed;
}

void kyu_impacts_free(impact_state *s) {
    kyu_free(s->later.ev);
    kyu_free(s->now.ev);
    for (int c = 0; c < s->chunk_cap; c++) kyu_free(s->chunks[c].ev);
    kyu_free(s->chunks);
    kyu_free(s->cascade.flag);
    kyu_free(s->cascade.wave);
    kyu_free(s->cascade.changed);
    kyu_free(s->cascade.keys);
    kyu_free(s->cascade.touch);
    kyu_free(s->cascade.touch_start);
}
