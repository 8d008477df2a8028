// SPDX-License-Identifier: MIT
// The contact cache (keep-pairs; docs/design.md, "Contacts kept between steps"): the pairs that
// touch or nearly touch, kept from step to step with their impulses (the solver starts each step
// from them). Its life: the search at the end of each step over the candidate pairs (what is kept,
// what began and ended touching: the begin and end events), the contacts new bodies find before
// they first move, and the purge of what was removed. Also each contact's geometry (gap and normal
// with the bodies where they stand) and material, which the solver reads.
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

// Depth of a box behind the plane through p with normal n: used when the centre is inside a box,
// where the closest face would be ambiguous; the kept normal says which way is out.
static float box_gap_along(const kyu_box *box, vec3s p, float r, vec3s n) {
    float extent = 0.0f;
    for (int k = 0; k < 3; k++)
        extent += fabsf(glms_vec3_dot(n, box->rotation.col[k])) * box->half_extents.raw[k];
    return glms_vec3_dot(n, glms_vec3_sub(p, box->center)) - extent - r;
}

// Current normal (b to a) and signed gap of a contact, with the colliders where they stand now (the
// start of the step before they move, the end after they moved).
float kyu_contact_geometry(const kyu_world *w, const contact *c, vec3s *n) {
    const body_store *s = &w->bodies;
    vec3s pa = s->pos[c->a];
    if (kyu_is_collider(c->b)) {
        const collider *col = &w->colliders.list[c->b & ~KYU_COLLIDER_BIT];
        float gap =
            kyu_collider_distance_from(col, pa, s->radius[c->a], c->normal, c->plane, w->def.fixed_dt, n);
        if (col->type == KYU_SHAPE_BOX && gap < -s->radius[c->a] && glms_vec3_norm2(c->normal) > 0.5f) {
            *n = c->normal;
            gap = box_gap_along(&col->box, pa, s->radius[c->a], *n);
        }
        return gap;
    }
    vec3s d = glms_vec3_sub(pa, kyu_periodic_image(&w->periodic, pa, s->pos[c->b]));
    float len = glms_vec3_norm(d);
    float r = s->radius[c->a] + s->radius[c->b];
    if (len > 1e-6f * r) {
        *n = glms_vec3_scale(d, 1.0f / len);
    } else {
        *n = glms_vec3_norm2(c->normal) > 0.5f ? c->normal : (vec3s){{0.0f, 1.0f, 0.0f}};
    }
    return len - r;
}

// Signed gap and normal (b to a) of a contact with the bodies where they stand; `normal` holds the
// contact's last normal on entry (it decides the side of a centre inside a box).
float kyu_contact_gap(const kyu_world *w, const contact *c, vec3s *normal) {
    contact probe = *c;
    probe.normal = *normal;
    return kyu_contact_geometry(w, &probe, normal);
}

// The pair's effective mass: 1 / (inverse mass sum).
float kyu_contact_mass(const kyu_world *w, const contact *c) {
    return 1.0f / (w->bodies.inv_mass[c->a] + kyu_side_inv_mass(w, c->b));
}

float kyu_contact_restitution(const kyu_world *w, const contact *c) {
    return kyu_pair_restitution(w, c->a, c->b);
}

float kyu_contact_friction(const kyu_world *w, const contact *c) { return kyu_pair_friction(w, c->a, c->b); }

// The contacts at the end of the step: every candidate pair closer than the margin. Pairs that were
// kept last step carry their impulses (warm start) and, for a centre inside a box, their normal.
// Kept: pairs closer than the margin, and pairs that had an impact this step (they touched, even if
// they are apart again by its end: the next step then reports their end).
//
// The search runs in two passes, so the new contacts are written once, each in its final place, and
// the new list takes no more room than it holds (a region per candidate pair was a quarter larger on
// a pile): the first pass decides which candidates are kept and which touch (flags beside the
// adjacency), the second fills the kept ones in.
// A mesh pair kept has a contact for each plane of the mesh the body touches (kyu_mesh_planes): how
// many, less one, in the flags from PAIR_PLANES_SHIFT on.
enum { PAIR_HIT = 1, PAIR_KEPT = 2, PAIR_TOUCHING = 4, PAIR_PLANES_SHIFT = 4 };

// Whether old contact o is still in body a's run (o = -1: a had none).
static int in_run(const kyu_world *w, int o, uint32_t a) {
    return o >= 0 && o < w->contacts.count && w->contacts.list[o].a == a;
}

// Whether pair (a, b) takes a contact for each plane of a mesh: b a mesh, not a sensor's pair.
static int by_planes(const kyu_world *w, uint32_t a, uint32_t b) {
    return kyu_is_collider(b) && w->colliders.list[b & ~KYU_COLLIDER_BIT].type == KYU_SHAPE_MESH &&
           !kyu_pair_is_sensor(w, a, b);
}

// The planes of mesh pair (a, b) where the body stands, and how many of them the pair keeps (0: it
// is not kept; a pair that had an impact keeps its nearest, as any pair does). Last step's
// contacts of the pair, in a's run from old contact o on, give the side of a face the body crossed.
static int pair_planes(const kyu_world *w, uint32_t a, uint32_t b, int o, int hit, kyu_mesh_plane *out) {
    vec3s sides[KYU_MESH_PLANES];
    int ns = 0;
    for (; in_run(w, o, a) && w->contacts.list[o].b <= b; o++)
        if (w->contacts.list[o].b == b && ns < KYU_MESH_PLANES) sides[ns++] = w->contacts.list[o].normal;
    // A plane beyond the nearest is kept within the margin's share of the radius alone (4%), not
    // the step's travel at the event speed as well: the facets of a bowl a marble rolls across lie a
    // millimetre ahead of it along normals 25-35 degrees off its own, and kept, their speculative
    // rows were bumps on its way (it came back to 64% of its height, against 91%).
    float margin = kyu_pair_margin(w, a, b), r = w->bodies.radius[a];
    float near =
        kyu_minf(margin, w->def.contact_margin > 0.0f ? w->def.contact_margin : KYU_MARGIN_RATIO * r);
    int n =
        kyu_mesh_planes(&w->colliders.list[b & ~KYU_COLLIDER_BIT], w->bodies.pos[a], r, near, sides, ns, out);
    return out[0].gap < margin ? n : hit ? 1 : 0;
}

// Whether candidate (a, b) is kept, and whether it touches: PAIR_KEPT | PAIR_TOUCHING, or 0; a mesh
// pair's planes beyond the first (PAIR_PLANES_SHIFT). o: a's run of last step's contacts.
static uint8_t candidate_flags(const kyu_world *w, uint32_t a, uint32_t b, int hit, int o) {
    if (by_planes(w, a, b)) {
        kyu_mesh_plane pl[KYU_MESH_PLANES];
        int n = pair_planes(w, a, b, o, hit, pl);
        if (n == 0) return 0;
        int touching = hit || pl[0].gap <= kyu_pair_slop(w, a, b);
        return (uint8_t)(PAIR_KEPT | (touching ? PAIR_TOUCHING : 0) | (n - 1) << PAIR_PLANES_SHIFT);
    }
    contact c;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.b = b;
    int sensor = kyu_pair_is_sensor(w, a, b);
    float gap = kyu_contact_geometry(w, &c, &c.normal);
    if (!(gap < kyu_pair_margin(w, a, b)) && !hit) return 0;
    int touching = hit || (sensor ? gap <= 0.0f : gap <= kyu_pair_slop(w, a, b));
    return (uint8_t)(PAIR_KEPT | (touching ? PAIR_TOUCHING : 0));
}

// The contacts pair (a, b) keeps: 1, or a mesh pair's planes.
static int kept_contacts(uint8_t flags) {
    return (flags & PAIR_KEPT) ? 1 + (flags >> PAIR_PLANES_SHIFT & 3) : 0;
}

static int end_event(kyu_world *w, const contact *c) {
    return kyu_event_push(&w->events.end, &w->events.end_count, &w->events.end_cap,
                          kyu_contact_event_of(w, c));
}

// Whether contact i of a list touches and is the first of its pair's that does (a mesh's planes
// are one pair's, one after another): a pair's end is reported once.
static int first_touching(const contact *list, int i) {
    if (!list[i].touching) return 0;
    for (int k = i - 1; k >= 0 && kyu_contact_key(&list[k]) == kyu_contact_key(&list[i]); k--)
        if (list[k].touching) return 0;
    return 1;
}

// The first contact of the cache (sorted by key) whose body a is not below slot a.
int kyu_contacts_first_of(const kyu_world *w, uint32_t a) {
    int lo = 0, hi = w->contacts.count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (w->contacts.list[mid].a < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// The contact of pair (a, b) (a < b, or b a collider), or NULL.
const contact *kyu_contact_of(const kyu_world *w, uint32_t a, uint32_t b) {
    for (int o = kyu_contacts_first_of(w, a); o < w->contacts.count && w->contacts.list[o].a == a; o++)
        if (w->contacts.list[o].b == b) return &w->contacts.list[o];
    return NULL;
}

// Pass one: the partners of active body k that come after it (higher slots, then colliders), each
// flagged kept and touching or not beside its adjacency entry; how many are kept. Each entry is a's
// own (the other body's copy of the pair is in the other's list), so slices never share one.
// Also where a's run of last step's contacts starts (find.run_start, -1: none) and how long it is
// (find.offset, until the serial sum makes it an offset): a slice finds its first run by bisection
// and walks on from there, as the active list and the cache are both in slot order.
static void count_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    if (begin >= end) return; // a job system may hand out an empty range
    int o = kyu_contacts_first_of(w, w->step.active[begin]);
    for (int k = begin; k < end; k++) {
        uint32_t a = w->step.active[k];
        KYU_ASSERT(k == 0 || w->step.active[k - 1] < a); // the merges need key order
        for (; o < w->contacts.count && w->contacts.list[o].a < a; o++) {
        } // a body no longer active
        int run = o;
        for (; o < w->contacts.count && w->contacts.list[o].a == a; o++) {
        }
        w->step.find.run_start[a] = o > run ? run : -1;
        w->step.find.offset[k] = o - run;
        int n = 0;
        for (kyu_partner_iter it = kyu_partners(&w->pairs, a); kyu_next_partner(&w->pairs, &it);)
            if (it.partner > a) {
                *it.hit |= candidate_flags(w, a, it.partner, *it.hit & PAIR_HIT, w->step.find.run_start[a]);
                n += kept_contacts(*it.hit);
            }
        w->step.find.count[k] = n;
    }
}

// Contact c of pair (a, b) takes what last step's contact `old` of the pair carried.
static void carry(contact *c, const contact *old) {
    c->mark = old->touching;
    c->jn = old->jn;
    c->jt = old->jt;
    c->jr = old->jr;
}

// The planes of mesh pair (a, b), `count` of them, into out (see pair_planes); last step's
// contacts of the pair are old[0, m). A plane takes the impulses of the old one nearest its
// normal, within KYU_PLANE_COS (a pair of one contact before and after takes its one, as any pair).
static void write_planes(const kyu_world *w, uint32_t a, uint32_t b, int count, int touching, int o, int m,
                         contact *out) {
    kyu_mesh_plane pl[KYU_MESH_PLANES];
    int n = pair_planes(w, a, b, o, touching, pl);
    KYU_ASSERT(n == count); // the count pass found the same
    (void)n;
    const contact *old = m > 0 ? w->contacts.list + o : NULL; // (o is -1 for a body without any)
    int used = 0;
    for (int i = 0; i < count; i++) {
        contact *c = &out[i];
        memset(c, 0, sizeof *c);
        c->a = a;
        c->b = b;
        c->plane = (uint8_t)(count > 1 ? i + 1 : 0);
        c->normal = pl[i].normal;
        c->gap = pl[i].gap;
        c->touching = (uint8_t)(i == 0 ? touching : pl[i].gap <= kyu_pair_slop(w, a, b));
        int best = -1;
        float best_dot = KYU_PLANE_COS;
        for (int j = 0; j < m; j++) {
            float d = glms_vec3_dot(old[j].normal, c->normal);
            if (!(used >> j & 1) && (d > best_dot || (count == 1 && m == 1))) best = j, best_dot = d;
        }
        if (best >= 0) used |= 1 << best, carry(c, &old[best]);
    }
}

// Pass two: body k's kept contacts, in key order, into their place in contacts_new (any split, same
// result). Their number is known from pass one, so find.count[k] is free and takes how many begin or
// end events body k has (begins, ends of kept pairs, last step's touching pairs not kept): the
// serial report visits only bodies that have some.
static void fill_task(int begin, int end, int worker, void *ctx) {
    kyu_world *w = ctx;
    uint64_t *later = w->step.worker_scratch[worker];
    for (int k = begin; k < end; k++) {
        uint32_t a = w->step.active[k];
        int n = 0;
        for (kyu_partner_iter it = kyu_partners(&w->pairs, a); kyu_next_partner(&w->pairs, &it);)
            if (it.partner > a && (*it.hit & PAIR_KEPT))
                later[n++] = (uint64_t)it.partner << 3 | (uint64_t)(kept_contacts(*it.hit) - 1) << 1 |
                             ((*it.hit & PAIR_TOUCHING) != 0);
        for (int i = 1; i < n; i++) // insertion sort: a body has a handful of partners
            for (int j = i; j > 0 && later[j - 1] > later[j]; j--) {
                uint64_t t = later[j];
                later[j] = later[j - 1];
                later[j - 1] = t;
            }
        // Last step's contacts of a (a run of the old cache, also sorted by partner): a pair kept
        // carries its impulses and its normal (the normal decides the gap of a centre in a box).
        contact *out = w->contacts.next + w->step.find.offset[k];
        int o = w->step.find.run_start[a], events = 0, written = 0;
        for (int i = 0; i < n; i++) {
            uint32_t b = (uint32_t)(later[i] >> 3);
            int count = (int)(later[i] >> 1 & 3) + 1, touching = (int)(later[i] & 1);
            for (; in_run(w, o, a) && w->contacts.list[o].b < b; o++) events += w->contacts.list[o].touching;
            int first = o, was = 0, is = 0; // last step's contacts of the pair: [first, o)
            for (; in_run(w, o, a) && w->contacts.list[o].b == b; o++) was |= w->contacts.list[o].touching;
            contact *c = &out[written];
            if (by_planes(w, a, b)) {
                write_planes(w, a, b, count, touching, first, o - first, c);
            } else {
                memset(c, 0, sizeof *c);
                c->a = a;
                c->b = b;
                c->sensor = (uint8_t)kyu_pair_is_sensor(w, a, b);
                c->touching = (uint8_t)touching;
                if (o > first) carry(c, &w->contacts.list[first]), c->normal = w->contacts.list[first].normal;
                c->gap = kyu_contact_geometry(w, c, &c->normal);
            }
            for (int j = 0; j < count; j++) is |= c[j].touching;
            events += is != was;
            written += count;
        }
        KYU_ASSERT(written == w->step.find.count[k]);
        for (; in_run(w, o, a); o++) events += w->contacts.list[o].touching;
        w->step.find.count[k] = events;
    }
}

// Body a's begins and ends in key order: its kept contacts (new) merged with its run of last step's
// (old). A pair of last step whose key is passed without a match has ended; a pair begins or ends
// touching when any of its contacts (a mesh's planes) touches and none did, or the reverse.
static int report_body(kyu_world *w, uint32_t a, const contact *c, int n) {
    int o = w->step.find.run_start[a];
    for (int i = 0; i < n;) {
        uint32_t b = c[i].b;
        for (; in_run(w, o, a) && w->contacts.list[o].b < b; o++)
            if (first_touching(w->contacts.list, o) && end_event(w, &w->contacts.list[o])) return -1;
        int was = 0, is = -1, j = i;
        for (; in_run(w, o, a) && w->contacts.list[o].b == b; o++) was |= w->contacts.list[o].touching;
        for (; j < n && c[j].b == b; j++)
            if (c[j].touching && is < 0) is = j;
        if (is >= 0 && !was &&
            kyu_event_push(&w->events.begin, &w->events.begin_count, &w->events.begin_cap,
                           kyu_contact_event_of(w, &c[is])))
            return -1;
        if (is < 0 && was && end_event(w, &c[i])) return -1;
        i = j;
    }
    for (; in_run(w, o, a); o++)
        if (first_touching(w->contacts.list, o) && end_event(w, &w->contacts.list[o])) return -1;
    return 0;
}

static int find_contacts(kyu_world *w) {
    // Each body's kept partners after it, in key order: the new contacts come out sorted by (a, b).
    // The island pass's per-slot record is free until the end of the step: it holds the old runs.
    kyu_parallel_for(w, w->step.active_count, 1024, count_task, w);
    int total = 0, most = 0, old = 0;
    for (int k = 0; k < w->step.active_count; k++) {
        old += w->step.find.offset[k];
        w->step.find.offset[k] = total;
        total += w->step.find.count[k];
        if (w->step.find.count[k] > most) most = w->step.find.count[k];
    }
    int64_t budget = (int64_t)w->def.contact_capacity_per_body * w->step.active_count + 4096;
    if (total > budget) return KYU_FAIL_CONTACTS; // before the memory is spent
    if (RESERVE(w->contacts.next, w->contacts.next_cap, total + 1)) return -1;
    for (int i = 0; i < w->def.worker_count; i++)
        if (RESERVE(w->step.worker_scratch[i], w->step.worker_scratch_cap[i], most + 1)) return -1;
    kyu_parallel_for(w, w->step.active_count, 256, fill_task, w);
    // Begins and ends in key order, body by body (keys are (a, b)), only where fill_task counted
    // some. Every contact of last step is an active body's: a body that fell asleep took its
    // contacts to its island, a removed body's left the cache at the start of the step.
    KYU_ASSERT(old == w->contacts.count);
    (void)old;
    for (int k = 0; k < w->step.active_count; k++) {
        if (w->step.find.count[k] == 0) continue;
        int n = (k + 1 < w->step.active_count ? w->step.find.offset[k + 1] : total) - w->step.find.offset[k];
        if (report_body(w, w->step.active[k], w->contacts.next + w->step.find.offset[k], n)) return -1;
    }
    w->contacts.next_count = total;
    kyu_contacts_swap(w, w->contacts.next_count);
    w->stats.contacts = w->contacts.count;
    return 0;
}

// The deepest overlap left in each slice of the new contacts (the step's max_overlap).
static void worst_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    contact_slices *x = ctx;
    const kyu_world *w = x->w;
    for (int sl = begin; sl < end; sl++) {
        float worst = 0.0f;
        int excess = 0;
        for (int i = kyu_slice_start(w->contacts.count, x->slices, sl);
             i < kyu_slice_start(w->contacts.count, x->slices, sl + 1); i++) {
            const contact *c = &w->contacts.list[i];
            if (c->sensor) continue;
            if (-c->gap > worst) worst = -c->gap;
            excess |= -c->gap > (1.0f + KYU_PUSH_BAND) * kyu_pair_slop(w, c->a, c->b);
        }
        x->worst[sl] = worst, x->excess[sl] = excess;
    }
}

// And whether one of them is deeper than its slop (the push at the step's end runs then).
void kyu_contacts_measure_overlap(kyu_world *w) {
    contact_slices x = {.w = w, .slices = kyu_slice_count(w->contacts.count)};
    kyu_parallel_for(w, x.slices, 1, worst_task, &x);
    float worst = kyu_islands_max_overlap(w); // the true deepest, asleep or awake
    w->contacts.excess = 0;
    for (int sl = 0; sl < x.slices; sl++)
        worst = kyu_maxf(worst, x.worst[sl]), w->contacts.excess |= x.excess[sl];
    w->stats.max_overlap = worst;
}

int kyu_contacts_find(kyu_world *w) {
    size_t slots = (size_t)w->bodies.high;
    w->step.find.run_start = kyu_arena_take(&w->step.arena, slots * sizeof *w->step.find.run_start);
    w->step.find.offset = kyu_arena_take(&w->step.arena, slots * sizeof *w->step.find.offset);
    w->step.find.count = kyu_arena_take(&w->step.arena, slots * sizeof *w->step.find.count);
    int failed = find_contacts(w);
    kyu_arena_reset(&w->step.arena);
    w->step.find.run_start = w->step.find.offset = w->step.find.count = NULL;
    if (!failed) kyu_contacts_measure_overlap(w);
    return failed;
}

// Whether both sides of a contact still exist. Removing a body or a collider only counts it
// (w->contacts.removed): its contacts stay where they are until kyu_contacts_purge at the start of the next
// step, so every reader in between (kyu_body_get_contacts, the debug draw) asks this first.
int kyu_contact_live(const kyu_world *w, const contact *c) {
    const body_store *s = &w->bodies;
    if (c->a >= (uint32_t)s->high || !s->alive[c->a]) return 0;
    if (kyu_is_collider(c->b)) {
        uint32_t k = c->b & ~KYU_COLLIDER_BIT;
        return k < (uint32_t)w->colliders.high && w->colliders.list[k].alive;
    }
    return c->b < (uint32_t)s->high && s->alive[c->b];
}

// Drops the contacts of what was removed since the last step, reporting the end of those that
// touched. Removing a body wakes its island and removing a collider wakes every island with a
// contact on it (kyu_islands_wake_collider_contacts), and an island's contacts never name a body
// outside it (kyu_islands_update), so after the woken contacts are merged every such contact is in
// the cache: one pass over it, however many were removed.
int kyu_contacts_purge(kyu_world *w) {
    if (w->contacts.removed == 0) return 0;
    if (kyu_islands_flush_woken(w)) return -1;
    // The room for the end events first: the pass below compacts the cache in place, and stopped
    // half way it would leave some contacts in it twice and out of key order.
    int ends = 0;
    for (int i = 0; i < w->contacts.count; i++)
        ends += first_touching(w->contacts.list, i) && !kyu_contact_live(w, &w->contacts.list[i]);
    if (RESERVE(w->events.end, w->events.end_cap, w->events.end_count + ends)) return -1;
    int n = 0;
    for (int i = 0; i < w->contacts.count; i++) {
        const contact *c = &w->contacts.list[i];
        if (kyu_contact_live(w, c))
            w->contacts.list[n++] = *c;
        else if (first_touching(w->contacts.list, i)) // (the pair's contacts before i are no live one's:
            (void)end_event(w, c);                    //  not yet written over) cannot fail: the room is there
    }
    w->contacts.count = n;
    w->contacts.removed = 0; // no contact names a slot in limbo any more (kyu_world_step frees them)
    return 0;
}

// A candidate contact of fresh body f with partner x (a body slot or a collider code), staged in
// the slice's list if they are closer than the margin and not yet a pair. Not touching yet: the
// step's contact search then reports its begin like any other.
static int stage_fresh(const kyu_world *w, uint32_t f, uint32_t x, fresh_slice *out) {
    contact c;
    memset(&c, 0, sizeof c);
    c.a = kyu_is_collider(x) || f < x ? f : x;
    c.b = kyu_is_collider(x) || f < x ? x : f;
    if (!kyu_pair_allowed(w, c.a, c.b)) return 0;
    kyu_mesh_plane pl[KYU_MESH_PLANES];
    int planes = 1;
    if (by_planes(w, c.a, c.b)) { // its nearest plane is what the contact's geometry would find
        planes = pair_planes(w, c.a, c.b, -1, 0, pl);
        if (planes == 0) return 0;
        c.normal = pl[0].normal, c.gap = pl[0].gap;
    } else {
        c.gap = kyu_contact_geometry(w, &c, &c.normal);
        if (!(c.gap < kyu_pair_margin(w, c.a, c.b))) return 0;
    }
    int lo = 0, hi = w->contacts.count; // already kept (a teleported body's old pairs stay)
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        const contact *m = &w->contacts.list[mid];
        if (m->a < c.a || (m->a == c.a && m->b < c.b))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < w->contacts.count && w->contacts.list[lo].a == c.a && w->contacts.list[lo].b == c.b) return 0;
    c.sensor = (uint8_t)kyu_pair_is_sensor(w, c.a, c.b);
    if (RESERVE(out->found, out->cap, out->count + planes)) return -1;
    for (int k = 0; k < planes; k++) { // a mesh's planes (pair_planes): one contact each
        if (planes > 1) c.plane = (uint8_t)(k + 1), c.normal = pl[k].normal, c.gap = pl[k].gap;
        out->found[out->count++] = c;
    }
    return 0;
}

typedef struct fresh_pass {
    kyu_world *w;
    int slices;
    int64_t budget;             // contacts all the slices may stage together
    atomic_int_fast64_t staged; // what they staged so far
} fresh_pass;

// The contacts of a slice of the fresh bodies, in its own list: the query grid is only read.
static void fresh_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    fresh_pass *x = ctx;
    kyu_world *w = x->w;
    const body_store *s = &w->bodies;
    for (int sl = begin; sl < end; sl++) {
        fresh_slice *out = &w->contacts.fresh_out[sl];
        out->count = out->failed = 0;
        for (int k = kyu_slice_start(w->contacts.fresh_count, x->slices, sl);
             k < kyu_slice_start(w->contacts.fresh_count, x->slices, sl + 1) && !out->failed; k++) {
            if (atomic_load_explicit(&x->staged, memory_order_relaxed) > x->budget) { // another slice's
                out->failed = KYU_FAIL_CONTACTS;
                break;
            }
            uint32_t f = w->contacts.fresh[k];
            if (f >= (uint32_t)s->high || !s->alive[f] || !s->awake[f]) continue;
            int before = out->count;
            // Only the colliders whose bounds come within the margin can be closer than it.
            aabb box = kyu_box_around(s->pos[f], 1.01f * (s->radius[f] + kyu_body_margin(w, f)));
            kyu_collider_near near;
            kyu_colliders_near(&w->colliders, &box, &near);
            for (int i; !out->failed && (i = kyu_colliders_next(&w->colliders, &near)) >= 0;)
                out->failed = stage_fresh(w, f, KYU_COLLIDER_BIT | (uint32_t)i, out);
            int n = out->failed ? 0
                                : kyu_query_bodies_near(w, s->pos[f], s->radius[f] + kyu_body_margin(w, f),
                                                        &out->near, &out->near_cap);
            if (n < 0) out->failed = -1;
            for (int j = 0; j < n && !out->failed; j++)
                if (out->near[j] != f && s->awake[out->near[j]])
                    out->failed = stage_fresh(w, f, out->near[j], out);
            // Every slice stops soon after their sum passes the budget, before more memory is
            // spent. Whether the search fails depends on the sum alone (kyu_contacts_add_fresh).
            int64_t added = out->count - before;
            if (!out->failed &&
                atomic_fetch_add_explicit(&x->staged, added, memory_order_relaxed) + added > x->budget)
                out->failed = KYU_FAIL_CONTACTS;
        }
    }
}

// Bodies created or teleported since the last step find their contacts before anything moves, so
// a ball created on the floor is held by it (and its friction acts) from its first step. Runs at
// the start of the step, when the woken list is empty: the new pairs go through it into the cache.
// The fresh bodies are cut into fixed slices that search at once (a scene's first step searches
// for every body); the lists join in slice order and are sorted by pair, so the result is the
// same for any worker count.
int kyu_contacts_add_fresh(kyu_world *w) {
    if (w->contacts.fresh_count == 0) return 0;
    if (kyu_query_ready(w)) return -1; // (and the colliders' bounds and tree where they stand now)
    fresh_pass x = {.w = w, .slices = kyu_slice_count(w->contacts.fresh_count)};
    x.budget = (int64_t)w->def.contact_capacity_per_body * w->bodies.count + 4096;
    atomic_init(&x.staged, 0);
    int cap = w->contacts.fresh_out_cap;
    if (RESERVE(w->contacts.fresh_out, cap, x.slices)) return -1;
    for (int k = w->contacts.fresh_out_cap; k < cap; k++)
        memset(&w->contacts.fresh_out[k], 0, sizeof w->contacts.fresh_out[k]);
    w->contacts.fresh_out_cap = cap;
    kyu_parallel_for(w, x.slices, 1, fresh_task, &x);
    int failed = 0;
    int64_t total = 0;
    for (int sl = 0; sl < x.slices; sl++) {
        const fresh_slice *out = &w->contacts.fresh_out[sl];
        if (out->failed && !failed) failed = out->failed;
        total += out->count;
    }
    if (!failed && (total > x.budget || total > INT32_MAX / 2)) failed = KYU_FAIL_CONTACTS; // counts are ints
    int first = w->islands.woken_count;
    if (!failed && RESERVE(w->islands.woken, w->islands.woken_cap, first + (int)total)) failed = -1;
    for (int sl = 0; sl < x.slices && !failed; sl++) {
        const fresh_slice *out = &w->contacts.fresh_out[sl];
        if (out->count == 0) continue; // its array may never have been allocated
        memcpy(w->islands.woken + w->islands.woken_count, out->found,
               (size_t)out->count * sizeof *out->found);
        w->islands.woken_count += out->count;
    }
    for (int sl = 0; sl < x.slices; sl++) {
        fresh_slice *out = &w->contacts.fresh_out[sl];
        GIVE_BACK(out->found, out->cap); // the next burst of new bodies may be a long way off
        GIVE_BACK(out->near, out->near_cap);
    }
    if (failed) return failed;
    // The query grid built for a burst of new bodies (a scene's first step) is not kept: it would
    // stay resident as large as the broadphase. A trickle (a bullet a frame) keeps it for the next.
    if (w->contacts.fresh_count > w->bodies.count / 8) kyu_query_trim(w);
    w->contacts.fresh_count = 0;
    if (w->islands.woken_count == first) return kyu_islands_flush_woken(w); // none (and maybe no array)
    // Two fresh bodies found their pair twice: keep one (a mesh's planes are one pair's contacts).
    kyu_contacts_sort(w->islands.woken + first, w->islands.woken_count - first);
    int n = first;
    for (int i = first; i < w->islands.woken_count; i++)
        if (n == first || w->islands.woken[i].a != w->islands.woken[n - 1].a ||
            w->islands.woken[i].b != w->islands.woken[n - 1].b ||
            w->islands.woken[i].plane != w->islands.woken[n - 1].plane)
            w->islands.woken[n++] = w->islands.woken[i];
    w->islands.woken_count = n;
    return kyu_islands_flush_woken(w);
}

// Calls visit for every live contact: the cache, the islands woken since the last step, and the
// sleeping islands. The one walk over every contact list, for readers outside the step.
void kyu_contacts_each(const kyu_world *w, kyu_contact_visit_fn *visit, void *ctx) {
    for (int k = 0; k < w->contacts.count; k++)
        if (kyu_contact_live(w, &w->contacts.list[k])) visit(w, &w->contacts.list[k], ctx);
    for (int k = 0; k < w->islands.woken_count; k++)
        if (kyu_contact_live(w, &w->islands.woken[k])) visit(w, &w->islands.woken[k], ctx);
    for (int id = 0; id < w->islands.high; id++) {
        const sleep_island *isl = &w->islands.list[id];
        if (isl->body_count == 0) continue;
        uint32_t b0 = isl->bodies[0]; // a freed record's bodies are awake or in another record
        if (!w->bodies.alive[b0] || w->bodies.awake[b0] || w->bodies.island[b0] != (uint32_t)id) continue;
        for (int k = 0; k < isl->contact_count; k++)
            if (kyu_contact_live(w, &isl->contacts[k])) visit(w, &isl->contacts[k], ctx);
    }
}
