// SPDX-License-Identifier: MIT
// Impacts in time order (README's stage 4): every candidate pair that approaches faster than its
// event speed (internal.h) gets its exact time of impact; the earliest is resolved first (both
// bodies advanced to it, the impulse applied, their new impacts computed), until none is left
// before the end of the step. Slower approaches are the contact solver's, before and after this
// stage. Bodies keep their own clock (t_body) so an untouched body is never stepped twice. Stale
// queue entries are dropped by version.
#include <stdlib.h>
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

// Under gravity an impact whose restitution cannot lift it over the threshold (e u <= threshold) is
// perfectly inelastic, so its time order shows in no answer. Such an approach, found after an
// impact has changed a body (a ball knocked into the one it touches, a heap struck from above), is
// no impact either if going on into its partner for the rest of the step leaves the pair no deeper
// than INELASTIC_DEPTH times its slop: the relax stops it at the end of the step, the next step's
// solve holds it and the push takes out what is beyond the slop, as for the solver's own pairs.
// Deeper, it is stopped in time order as before. In a toppling heap of 0.5 m balls with
// restitution 0.2 (PILE 10,000, its first 150 steps) the queue's impacts fell from 7,204 a step to
// 3,349: the cascades through touching clusters, each stop re-sweeping every partner of both bodies
// in the serial queue.
#define INELASTIC_DEPTH 2.0f

// Whether pair (a, b) of event speed ev, meeting at time t (overlapping by `deep` then) and
// approaching at u, is too slow to be an impact (see next_impact and above).
static int too_slow(const kyu_world *w, uint32_t a, uint32_t b, float ev, float u, float t, float deep) {
    if (u <= ev) return 1;
    if (!w->gravity_on) return 0; // a gas bounces at every speed
    float end_depth = kyu_maxf(deep, 0.0f) + u * (1.0f - t) * w->def.fixed_dt;
    return end_depth <= INELASTIC_DEPTH * kyu_pair_slop(w, a, b) &&
           kyu_pair_restitution(w, a, b) * u <= w->def.restitution_threshold;
}

// The next impact of body a with partner b after time tau, if any. A pair the solver holds this
// step is its own while it approaches no faster than a resting pair (the rest speed): the solve
// let it close its gap and no more, so until an impact changes a body its path stays on the far
// side of the plane the contact's normal puts between them, which a convex shape does not cross.
// A mesh is not one: its contact holds the plane of one triangle, so a face of it met on another
// plane is not the solver's (kyu_contacts_solver_owns), and when the sweep's earliest triangle is
// let go (the one a body slides on) it offers the earliest face met after it (engine/shape.c),
// which the solver would otherwise let the body pass through. The rule holds
// after an impact too: such a pair is then left to the relax, at up to the rest speed, which for
// beads under about 7 mm of radius is more than their event speed; so only while it closes at
// most a quarter of the smaller radius in what is left of the step (below). Asking that no impact
// changed either body (2026-11-29) took a 5 mm pour's deepest pair while landing from 16-20% of r
// to 1.6-5.2% in five seeds of six, but to 42% in the sixth, where the extra impacts reached the
// collapse's bound (docs/benchmarks.md, "The push holds the pairs it would close"). Any other pair
// is an impact when it approaches faster than its event speed (below it, it closes at most that
// speed times what is left of the step before the relax stops it and the next step's solve holds
// it) and is not an inelastic stop too shallow to matter (above), or when gravity presses it
// together (a body falling, not held, onto what it touches lands, and must not sink).
static int is_impact(const kyu_world *w, uint32_t a, uint32_t b, float tau, const kyu_sweep_contact *ce) {
    // A body at rest a micrometre above a mesh's face (or rising slower than gravity brings it back)
    // presses on it: it lands, unless it has a contact on that plane, which the relax stops there
    // (as before 2026-11-30: only a body whose one contact with the mesh holds another plane, a
    // bead in a corner held by the wall, lands on the floor now, where it used to fall through).
    if (ce->face & KYU_MET_AT_REST) return !kyu_contacts_hold_plane(w, a, b, ce->normal);
    if (ce->accel < 0.0f) return 1;
    const vec3s *face = (ce->face & KYU_MET_ON_FACE) ? &ce->normal : NULL;
    float t = ce->t < tau ? tau : ce->t;
    if (too_slow(w, a, b, kyu_pair_event_speed(w, a, b), ce->approach, t, -ce->gap)) return 0;
    if (!(ce->approach <= w->rest_speed) || !kyu_contacts_solver_owns(w, a, b, face)) return 1;
    // The solver keeps a slow approach only if it closes at most a quarter of the smaller radius in
    // what is left of the step (the event speed's bound): a mesh's always (a surface, not a solid:
    // a body a radius into it is past its plane, and the push-out leaves it by the side its centre
    // is on), any other pair's once an impact has changed one of its bodies this step (a 2 mm bead
    // struck mid-step at 0.07 m/s into the neighbour it touched ran 0.7 r into it before the relax:
    // in a turning drum, pairs 40-57% of r deep). Asked of every pair, it made 5 mm beads poured
    // into a box settle later (10 drops: 35% more CPU, one awake after 10 s).
    int wall = (b & KYU_COLLIDER_BIT) != 0;
    int mesh = wall && w->colliders.list[b & ~KYU_COLLIDER_BIT].type == KYU_SHAPE_MESH;
    if (!mesh && w->impacts.version[a] == 0 && (wall || w->impacts.version[b] == 0)) return 0;
    float r = wall ? w->bodies.radius[a] : kyu_minf(w->bodies.radius[a], w->bodies.radius[b]);
    return ce->approach * (1.0f - t) * w->def.fixed_dt > KYU_SPECULATIVE_RATIO * r;
}

static int next_impact(const kyu_world *w, uint32_t a, uint32_t b, float tau, impact_event *out) {
    if (kyu_pair_is_sensor(w, a, b)) return 0; // a sensor only reports overlaps
    // A pair on a straight relative path, slow or parting: whatever the sweep finds would be
    // dropped (approach < ev, accel 0), so the sweep is skipped.
    if (kyu_sweep_needless(w, a, b, tau, kyu_pair_event_speed(w, a, b))) return 0;
    kyu_sweep_contact ce;
    if (!kyu_next_contact(w, a, b, tau, is_impact, &ce)) return 0;
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
        w->impacts.hit_t[b] = -1.0f, w->impacts.hits[b] = 0;
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
    if (kyu_boxes_overlap(nb, &w->step.box[b])) return 1;
    return w->periodic.mask && kyu_periodic_overlap_across(&w->periodic, nb, &w->step.box[b]); // a seam's
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
        vec3s d = glms_vec3_sub(s->pos[a], kyu_periodic_image(&w->periodic, s->pos[a], s->pos[b]));
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
        if (inelastic || (e * u <= w->def.restitution_threshold && w->gravity_on) ||
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

// ---- impacts at one instant -----------------------------------------------------------------------
//
// A struck body passes its impulse on, pair by pair in time order, through what it touches: a
// cradle's row exactly, with each pair's restitution however often it meets at that instant (two
// balls pulled leave two). But a touching cluster whose impacts are not elastic (a column landing
// on its floor, a heap struck from above) would exchange ever smaller impacts at that one instant
// without end: the inelastic collapse of event-driven granular models. So when a body has taken
// INSTANT_IMPACTS impacts at one instant, the bodies struck at that instant are solved together as
// one problem: a few sweeps, lowest first, over their touching pairs, each approach stopped
// inelastically (with friction at the contact point); a body pressing down onto one that is not
// rising into it takes that one's normal velocity (shock propagation: a stack settles from its
// support up in one sweep, and no kinetic energy can appear, since the upper body only slows).
// What such a body meets at the collapse's own time (what the collapse could not settle: a ball
// squeezed between a kinematic box and a wall) is the contact solver's, the relax stops it after
// the impacts, except a static collider: nothing passes through a wall. Anything that arrives
// later, if only a little, is an impact again.
// An instant lasts INSTANT_WINDOW of a step from its first impact: a cluster's pairs are rarely
// exactly touching, and its bodies meet each other a few micrometres later (17 us at 60 Hz).
#define INSTANT_IMPACTS 4
#define INSTANT_WINDOW  1e-3f
#define COLLAPSE_SWEEPS 8
#define COLLAPSED       128 // in impacts.hits, and above: the body was in a collapse at time hit_t
#define AFTER_COLLAPSE  8   // impacts a body in a collapse may still take at its time (see resolve)

// Whether time t is within the instant under way.
static int in_instant(const kyu_world *w, float t) {
    return w->impacts.instant_t >= 0.0f && t - w->impacts.instant_t <= INSTANT_WINDOW;
}

// The impacts body i has taken in the instant of time t (COLLAPSED: it was in a collapse at t).
static int impacts_at(const kyu_world *w, uint32_t i, float t) {
    const impact_state *im = &w->impacts;
    if (im->hits[i] >= COLLAPSED && im->hit_t[i] >= 0.0f) return im->hit_t[i] == t ? im->hits[i] : 0;
    return in_instant(w, t) && im->hit_t[i] == im->instant_t ? im->hits[i] : 0;
}

// Body i listed among the instant's bodies (the next collapse, or the refresh after one, takes it).
static int list_in_instant(impact_state *im, uint32_t i) {
    if (RESERVE(im->instant, im->instant_cap, im->instant_count + 1)) return -1;
    im->instant[im->instant_count++] = i;
    return 0;
}

// Body i takes an impact at time t: counted in its instant, and listed among the instant's bodies.
static int count_impact(kyu_world *w, uint32_t i, float t) {
    impact_state *im = &w->impacts;
    if (!in_instant(w, t)) im->instant_t = t, im->instant_count = 0;
    if (im->hit_t[i] != im->instant_t || im->hits[i] >= COLLAPSED) {
        if (list_in_instant(im, i)) return -1;
        im->hit_t[i] = im->instant_t, im->hits[i] = 0;
    }
    if (im->hits[i] < INSTANT_IMPACTS) im->hits[i]++;
    return 0;
}

// A pair of bodies one above the other (normal within 60 degrees of gravity) whose lower body is
// not rising into the upper: the upper takes the lower's normal velocity. Returns 0 for any other
// pair, which is stopped as an inelastic impact.
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

// Lowest first along gravity, then by slot (a fixed order for any worker count). The heights are
// copied into the keys first, so the comparator needs no context (qsort has none to give).
static int lower_first(const void *x, const void *y) {
    const kyu_height_key *a = x, *b = y;
    if (a->height != b->height) return a->height < b->height ? -1 : 1;
    return (a->slot > b->slot) - (a->slot < b->slot);
}

static int sort_lowest_first(kyu_world *w, uint32_t *list, int n) {
    if (RESERVE(w->impacts.keys, w->impacts.keys_cap, n)) return -1;
    for (int k = 0; k < n; k++)
        w->impacts.keys[k] = (kyu_height_key){-glms_vec3_dot(w->bodies.pos[list[k]], w->down), list[k]};
    qsort(w->impacts.keys, (size_t)n, sizeof *w->impacts.keys, lower_first);
    for (int k = 0; k < n; k++) list[k] = w->impacts.keys[k].slot;
    return 0;
}

static int by_slot(const void *x, const void *y) {
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

// One sweep of a collapse over body i's touching partners at t: each approach stopped. A partner
// it changes is listed after the instant's bodies (from `swept` on), to queue its next impacts, but
// not swept itself: a collapse does not spread through a heap (what the partner then closes on is
// the solver's). Returns how many it stopped, -1 out of memory.
static int collapse_body(kyu_world *w, uint32_t i, float t) {
    int stopped = 0;
    // Its partners in slot order: the answer must not depend on the broadphase's cells, whose
    // order the adjacency lists follow.
    int np = 0;
    for (kyu_partner_iter it = kyu_partners(&w->pairs, i); kyu_next_partner(&w->pairs, &it);) {
        if (RESERVE(w->impacts.partners, w->impacts.partners_cap, np + 1)) return -1;
        w->impacts.partners[np++] = it.partner;
    }
    // A handful by insertion, where qsort's set-up cost more than the sort (the keys are distinct:
    // the same order); a large body's many partners by qsort.
    uint32_t *part = w->impacts.partners;
    if (np > 32)
        qsort(part, (size_t)np, sizeof *part, by_slot);
    else
        for (int k = 1; k < np; k++)
            for (int m = k; m > 0 && part[m - 1] > part[m]; m--) {
                uint32_t swap = part[m];
                part[m] = part[m - 1];
                part[m - 1] = swap;
            }
    if (w->step.t_body[i] < t) advance(w, i, t);
    const body_store *s = &w->bodies;
    float reach = s->radius[i] + kyu_body_slop(w, i);
    aabb near; // i's sphere grown by its slop: a collider that does not touch it is not touching i
    for (int k = 0; k < 3; k++) near.lo[k] = s->pos[i].raw[k] - reach, near.hi[k] = s->pos[i].raw[k] + reach;
    for (int k = 0; k < np; k++) {
        uint32_t j = w->impacts.partners[k];
        int body = !(j & KYU_COLLIDER_BIT);
        if (body) { // not touching at t: passed before anything moves (most partners of a heap)
            vec3s pj = kyu_periodic_image(&w->periodic, s->pos[i],
                                          w->step.t_body[j] < t ? kyu_pos_at(w, j, t) : s->pos[j]);
            float r = reach + s->radius[j];
            if (glms_vec3_norm2(glms_vec3_sub(s->pos[i], pj)) > r * r) continue;
        } else if (w->colliders.list[j & ~KYU_COLLIDER_BIT].type == KYU_SHAPE_MESH || // the queue's
                   !kyu_collider_touches_box(&w->colliders.list[j & ~KYU_COLLIDER_BIT], &near))
            continue;
        if (kyu_pair_is_sensor(w, i, j)) continue;
        if (body && w->step.t_body[j] < t) advance(w, j, t);
        pair_now p = pair_at(w, i, j, t, glms_vec3_zero());
        if (p.gap > kyu_pair_slop(w, i, j) || !(p.vn < -0.01f * kyu_pair_event_speed(w, i, j))) continue;
        if (!(body && w->gravity_on && shock(w, i, j, &p)) && respond_now(w, i, j, t, &p, 1) < 0) return -1;
        kyu_broadphase_mark_hit(w, i, j);
        w->impacts.version[i]++;
        if (body) {
            w->impacts.version[j]++;
            if (impacts_at(w, j, t) == 0) {
                if (count_impact(w, j, t)) return -1;
            } else if (w->impacts.hits[j] >= COLLAPSED) {
                // In an earlier collapse at this very time, so not in this one's list: listed now,
                // or its queued impacts, stale by the version, would never be found again (a bead
                // in a landing column fell on through the one below it, 89% of r deep).
                if (list_in_instant(&w->impacts, j)) return -1;
            }
        }
        stopped++;
    }
    return stopped;
}

// The instant's bodies solved together (see above), then every one of them queues its next impacts.
static int collapse(kyu_world *w, float t) {
    impact_state *im = &w->impacts;
    if (w->gravity_on && sort_lowest_first(w, im->instant, im->instant_count)) return -1;
    int swept = im->instant_count;
    for (int sweep = 0; sweep < COLLAPSE_SWEEPS; sweep++) {
        int stopped = 0;
        for (int k = 0; k < swept; k++) {
            int n = collapse_body(w, im->instant[k], t);
            if (n < 0) return -1;
            stopped += n;
        }
        if (stopped == 0) break;
    }
    for (int k = 0; k < im->instant_count; k++) // (a body of an earlier collapse keeps its count)
        if (im->hits[im->instant[k]] < COLLAPSED)
            im->hits[im->instant[k]] = COLLAPSED, im->hit_t[im->instant[k]] = t;
    for (int k = 0; k < im->instant_count; k++)
        if (refresh(w, im->instant[k], t, UINT32_MAX)) return -1;
    // Done with: the instant's next collapse takes only the bodies struck after this one (a body of
    // this one struck again joins it anew). Kept, a world whose layers land at one instant (a
    // lattice dropped at once) swept every body struck so far at every collapse: 545 ms a step at
    // 100,000 bodies.
    im->instant_count = 0;
    return 0;
}

// Resolves one event of the queue, with both bodies advanced to its time (or, at a body's bound of
// impacts at one instant, that instant's collapse). Returns 1 if anything changed, 0 if not (the
// event is passed), -1 out of memory.
static int resolve(kyu_world *w, const impact_event *ev) {
    int body = !(ev->b & KYU_COLLIDER_BIT);
    int ha = impacts_at(w, ev->a, ev->t), hb = body ? impacts_at(w, ev->b, ev->t) : 0;
    // A body in a collapse at this very time: what the collapse could not settle (a partner it
    // pushed closing on a body beyond it, or on a kinematic collider) is stopped inelastically,
    // AFTER_COLLAPSE times a body at most; a static collider always (nothing passes through a wall;
    // two walls at once take turns until it no longer closes on either). Beyond that bound (a ball
    // squeezed between a kinematic box and a wall, which no response can settle) the pair is the
    // relax's after the impacts. A kinematic collider was the relax's at once until 2026-11-30: a
    // bead a collapse left closing on a kinematic mesh (a drum) went on through it, as the relax
    // holds only the contacts found before the step and a mesh is left by the side the centre is on.
    int collapsed = ha >= COLLAPSED || hb >= COLLAPSED;
    if (collapsed) {
        int wall = !body && w->colliders.list[ev->b & ~KYU_COLLIDER_BIT].motion == KYU_STATIC;
        if (!wall && (ha >= COLLAPSED + AFTER_COLLAPSE || hb >= COLLAPSED + AFTER_COLLAPSE)) {
            return 0;
        }
        if (!wall && ha >= COLLAPSED) w->impacts.hits[ev->a]++;
        if (body && hb >= COLLAPSED) w->impacts.hits[ev->b]++;
    }
    if (!collapsed && w->gravity_on && (ha >= INSTANT_IMPACTS || hb >= INSTANT_IMPACTS))
        return collapse(w, ev->t) < 0 ? -1 : 0;
    advance(w, ev->a, ev->t);
    if (body) advance(w, ev->b, ev->t);
    pair_now p = pair_at(w, ev->a, ev->b, ev->t, ev->normal);
    int changed = respond_now(w, ev->a, ev->b, ev->t, &p, collapsed);
    if (changed > 0 && !collapsed &&
        (count_impact(w, ev->a, ev->t) || (body && count_impact(w, ev->b, ev->t))))
        return -1;
    return changed;
}

// The event cap was hit at time t, every impact before it resolved: every body stops where it is
// at t for the rest of the step (keeping its velocity), so nothing passes through anything; the
// relax and the next step take over from there. Stopping each body at its own next queued impact
// instead let it run into a partner that had stopped earlier, off the path its impact was found
// on, and through it (a 1 cm pour with a cap of 300 events: pairs 1.97 r deep, centres nearly
// together).
static void stop_where_they_are(kyu_world *w, float t) {
    w->stats.event_cap_hit = 1;
    w->impacts.now.count = w->impacts.later.count = 0;
    for (int k = 0; k < w->step.active_count; k++) {
        uint32_t i = w->step.active[k];
        w->impacts.limit_t[i] = kyu_maxf(t, w->step.t_body[i]);
    }
}

// The candidate pairs as one list in pair order, cut into fixed slices of equal length: a slice may
// span runs (kyu_pair_source). Slices by length, not one per run, keep the work even: a pile's
// body-collider runs hold most of its pairs, and the costlier ones.
typedef struct pair_slices {
    kyu_world *w;
    int slices, total;
    int at[KYU_MAX_PAIR_SOURCES + 1]; // run s holds pairs [at[s], at[s + 1]) of the list
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
    KYU_ASSERT(sources <= KYU_MAX_PAIR_SOURCES);
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

// Every body to the end of the step (or where it stops: see stop_where_they_are).
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
        w->impacts.hit_t[i] = -1.0f, w->impacts.hits[i] = 0;
    }
    w->impacts.instant_t = -1.0f, w->impacts.instant_count = 0;
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
            stop_where_they_are(w, ev.t);
            break;
        }
        int changed = resolve(w, &ev);
        if (changed < 0) return -1;
        if (!changed) continue;
        if (refresh(w, ev.a, ev.t, UINT32_MAX) ||
            (!(ev.b & KYU_COLLIDER_BIT) && refresh(w, ev.b, ev.t, ev.a)))
            return -1;
    }
    kyu_parallel_for(w, w->step.active_count, 4096, finish_task, w);
    return 0;
}

int kyu_impacts_resolve(kyu_world *w) {
    w->impacts.version = kyu_arena_take(&w->step.arena, (size_t)w->bodies.high * sizeof *w->impacts.version);
    w->impacts.limit_t = kyu_arena_take(&w->step.arena, (size_t)w->bodies.high * sizeof *w->impacts.limit_t);
    w->impacts.hit_t = kyu_arena_take(&w->step.arena, (size_t)w->bodies.high * sizeof *w->impacts.hit_t);
    int failed = resolve_in_order(w);
    kyu_arena_reset(&w->step.arena);
    w->impacts.version = NULL, w->impacts.limit_t = NULL, w->impacts.hit_t = NULL;
    kyu_broadphase_end_late_inserts(w); // its table, large only in a landing step, is given back
    return failed;
}

void kyu_impacts_free(impact_state *s) {
    kyu_free(s->later.ev);
    kyu_free(s->now.ev);
    for (int c = 0; c < s->chunk_cap; c++) kyu_free(s->chunks[c].ev);
    kyu_free(s->chunks);
    kyu_free(s->hits);
    kyu_free(s->instant);
    kyu_free(s->keys);
    kyu_free(s->partners);
}
