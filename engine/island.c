// SPDX-License-Identifier: MIT
// Islands, sleep and wake (docs/design.md, "Islands, sleep and wake"; Box2D's solver sets). Bodies linked by
// contacts form islands; an island whose bodies all stayed slower than sleep_speed for sleep_time falls
// asleep: its bodies stop, leave the step entirely (no integration, no broadphase, no pairs), and its
// contacts are set aside in an island record, unchanged, so sleeping never ends a pair and waking never
// begins one. Sleeping bodies stay solid through the sleep grid: an awake body or a moving kinematic collider
// whose box meets a sleeping body wakes its whole island, before the step or in the middle of it.
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SLEEP_MAX_CELLS 4096

static aabb rest_box(const kyu_world *w, uint32_t i) {
    return kyu_box_around(w->bodies.pos[i], w->bodies.radius[i] + kyu_body_margin(w, i));
}

// ---- the sleep grid: sleeping bodies by cell (entries are never removed one by one: an entry is
// live while its body sleeps with the same epoch; the grid is rebuilt when most entries are dead) --

static int32_t sg_cell(const kyu_world *w, float x) {
    float c = floorf(x * w->islands.grid.inv_cell);
    return (int32_t)(!(c <= 1048575.0f) ? 1048575.0f : c < -1048575.0f ? -1048575.0f : c); // NaN: defined
}

static uint32_t sg_hash(int32_t x, int32_t y, int32_t z) {
    const int32_t c[3] = {x, y, z};
    return kyu_cell_hash(c);
}

static uint32_t sg_slot(const sleep_grid *g, uint32_t h) {
    return kyu_table_find(g->key, g->head, g->table_size, h);
}

static int sg_grow(sleep_grid *g, int needed) {
    if (2 * needed <= g->table_size) return 0;
    int n = 1024;
    while (n < 4 * needed) n *= 2;
    uint32_t *k = kyu_realloc(g->key, (size_t)n * sizeof *k);
    if (!k) return -1;
    g->key = k;
    uint32_t *h = kyu_realloc(g->head, (size_t)n * sizeof *h);
    if (!h) return -1;
    g->head = h;
    g->table_size = n;
    memset(g->head, 0xff, (size_t)n * sizeof *g->head);
    for (int e = 0; e < g->count; e++) { // re-link the entries into the bigger table
        uint32_t hh = sg_hash(g->entries[e].c[0], g->entries[e].c[1], g->entries[e].c[2]);
        uint32_t s = sg_slot(g, hh);
        g->key[s] = hh;
        g->entries[e].next = g->head[s];
        g->head[s] = (uint32_t)e;
    }
    g->cells = 0;
    for (int s = 0; s < g->table_size; s++) g->cells += g->head[s] != UINT32_MAX;
    return 0;
}

// The grid without an entry: its bounds hold nothing (every query box misses them).
static void sg_empty(sleep_grid *g) {
    g->count = g->giant_count = g->live = g->cells = 0;
    g->bounds = kyu_box_empty();
}

// A rest box that spans at most two cells on every axis takes one entry, at its low corner's cell:
// a box that meets it has its low corner's cell at most one above that (the cells of a coordinate
// never decrease as it grows), so a query looks one cell lower than its own low corner and finds
// it. Asked of the cells, not of the box's width against the cell's, the rule holds however far
// from the origin the floats are coarse (a width rule with a 1% margin failed there in principle:
// at 2^20 radii out, where a body may still be, a float's step is an eighth of a radius).
static int one_entry(const int32_t lo[3], const int32_t hi[3]) {
    return hi[0] - lo[0] <= 1 && hi[1] - lo[1] <= 1 && hi[2] - lo[2] <= 1;
}

static int sg_insert(kyu_world *w, uint32_t body) {
    sleep_grid *g = &w->islands.grid;
    aabb b = rest_box(w, body);
    kyu_box_join(&g->bounds, &b);
    int32_t lo[3], hi[3];
    for (int k = 0; k < 3; k++) lo[k] = sg_cell(w, b.lo[k]), hi[k] = sg_cell(w, b.hi[k]);
    int64_t n = (int64_t)(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);
    if (one_entry(lo, hi)) {
        n = 1; // one entry, at the cell of its low corner (queries look a cell lower)
        memcpy(hi, lo, sizeof hi);
    }
    if (n > SLEEP_MAX_CELLS) { // a giant: kept in a list scanned by every query
        if (RESERVE(g->giants, g->giant_cap, g->giant_count + 1)) return -1;
        g->giants[g->giant_count++] = (sleep_entry){{0, 0, 0}, body, w->bodies.sleep_epoch[body], 0};
        return 0;
    }
    if (RESERVE(g->entries, g->entry_cap, g->count + (int)n)) return -1;
    for (int32_t z = lo[2]; z <= hi[2]; z++)
        for (int32_t y = lo[1]; y <= hi[1]; y++)
            for (int32_t x = lo[0]; x <= hi[0]; x++) {
                if (sg_grow(g, g->cells + 1)) return -1;
                uint32_t h = sg_hash(x, y, z), s = sg_slot(g, h);
                if (g->head[s] == UINT32_MAX) g->cells++;
                g->key[s] = h;
                g->entries[g->count] =
                    (sleep_entry){{x, y, z}, body, w->bodies.sleep_epoch[body], g->head[s]};
                g->head[s] = (uint32_t)g->count++;
            }
    g->live += (int)n;
    return 0;
}

// How many grid cells a sleeping body's entries take (0 for a giant): its share of `live`.
static int sg_cells_of(const kyu_world *w, uint32_t body) {
    aabb b = rest_box(w, body);
    int32_t lo[3], hi[3];
    for (int k = 0; k < 3; k++) lo[k] = sg_cell(w, b.lo[k]), hi[k] = sg_cell(w, b.hi[k]);
    if (one_entry(lo, hi)) return 1;
    int64_t n = (int64_t)(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);
    return n > SLEEP_MAX_CELLS ? 0 : (int)n;
}

static int sg_live(const kyu_world *w, const sleep_entry *e) {
    return w->bodies.alive[e->body] && !w->bodies.awake[e->body] &&
           w->bodies.sleep_epoch[e->body] == e->epoch;
}

// Calls visit(ctx, body) for every sleeping body whose rest box meets `box` (maybe more than once);
// a visit that returns nonzero stops the query, which then returns -1. The query itself only reads.
typedef int sg_visit_fn(void *ctx, uint32_t body);

static int sg_query_one(const kyu_world *w, const aabb *whole, sg_visit_fn *visit, void *ctx) {
    const sleep_grid *g = &w->islands.grid;
    // Only the part of the box within the sleepers' bounds can meet one: a body falling far from
    // them asks nothing, and one whose box is long (a fast one) walks only the cells they hold.
    aabb clipped;
    const aabb *box = &clipped;
    for (int k = 0; k < 3; k++) {
        clipped.lo[k] = kyu_maxf(whole->lo[k], g->bounds.lo[k]);
        clipped.hi[k] = kyu_minf(whole->hi[k], g->bounds.hi[k]);
        if (!(clipped.lo[k] <= clipped.hi[k])) return 0;
    }
    for (int i = 0; i < g->giant_count; i++) {
        uint32_t j = g->giants[i].body;
        aabb rb = rest_box(w, j);
        if (sg_live(w, &g->giants[i]) && kyu_boxes_overlap(box, &rb) && visit(ctx, j)) return -1;
    }
    if (g->count == 0) return 0;
    int32_t lo[3], hi[3]; // one-entry boxes sit at their low corner's cell: look one cell lower too
    for (int k = 0; k < 3; k++) lo[k] = sg_cell(w, box->lo[k]) - 1, hi[k] = sg_cell(w, box->hi[k]);
    int64_t n = (int64_t)(hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);
    if (n > (int64_t)g->count) { // a box wider than the sleeping world: scan the entries instead
        for (int e = 0; e < g->count; e++) {
            uint32_t j = g->entries[e].body;
            aabb rb = rest_box(w, j);
            if (sg_live(w, &g->entries[e]) && kyu_boxes_overlap(box, &rb) && visit(ctx, j)) return -1;
        }
        return 0;
    }
    for (int32_t z = lo[2]; z <= hi[2]; z++)
        for (int32_t y = lo[1]; y <= hi[1]; y++)
            for (int32_t x = lo[0]; x <= hi[0]; x++) {
                uint32_t h = sg_hash(x, y, z), s = sg_slot(g, h);
                for (uint32_t e = g->head[s]; e != UINT32_MAX; e = g->entries[e].next) {
                    const sleep_entry *en = &g->entries[e];
                    if (en->c[0] != x || en->c[1] != y || en->c[2] != z || !sg_live(w, en)) continue;
                    aabb rb = rest_box(w, en->body);
                    if (kyu_boxes_overlap(box, &rb) && visit(ctx, en->body)) return -1;
                }
            }
    return 0;
}

// In a periodic world the box's images ask too, across every face it comes within a sleeper's rest
// box of (a sleeper there may be met twice: its island wakes once).
static int sg_query(const kyu_world *w, const aabb *box, sg_visit_fn *visit, void *ctx) {
    if (!w->periodic.mask) return sg_query_one(w, box, visit, ctx);
    aabb images[27];
    int n = kyu_periodic_box_images(&w->periodic, box, w->bodies.max_radius + kyu_max_margin(w), images);
    for (int i = 0; i < n; i++)
        if (sg_query_one(w, &images[i], visit, ctx)) return -1;
    return 0;
}

// Builds the grid from the sleeping bodies (a loaded snapshot's, or to drop dead entries).
int kyu_islands_rebuild_grid(kyu_world *w) {
    sleep_grid *g = &w->islands.grid;
    sg_empty(g);
    if (g->table_size) memset(g->head, 0xff, (size_t)g->table_size * sizeof *g->head);
    for (int i = 0; i < w->bodies.high; i++)
        if (w->bodies.alive[i] && !w->bodies.awake[i] && sg_insert(w, (uint32_t)i)) return -1;
    return 0;
}

// Rebuilds the grid once dead entries outnumber live ones.
static int sg_compact(kyu_world *w) {
    const sleep_grid *g = &w->islands.grid;
    if (g->count - g->live <= g->live + 4096) return 0;
    return kyu_islands_rebuild_grid(w);
}

// ---- island records ---------------------------------------------------------------------------

static int island_new(kyu_world *w) {
    if (w->islands.free_head >= 0) {
        int id = w->islands.free_head;
        w->islands.free_head = w->islands.list[id].next_free;
        w->islands.list[id].body_count = w->islands.list[id].contact_count = 0;
        w->islands.list[id].next_free = -1;
        return id;
    }
    int cap = w->islands.cap;
    if (RESERVE(w->islands.list, cap, w->islands.high + 1)) return -1;
    for (int i = w->islands.cap; i < cap; i++) memset(&w->islands.list[i], 0, sizeof w->islands.list[i]);
    w->islands.cap = cap;
    w->islands.list[w->islands.high].next_free = -1;
    return w->islands.high++;
}

// Wakes the island of sleeping body i: its bodies rejoin the step at rest, its contacts go back to
// the cache (through the woken list, merged in key order before they are next read).
static int wake_island_of(kyu_world *w, uint32_t i) {
    body_store *s = &w->bodies;
    if (s->awake[i]) return 0;
    int id = (int)s->island[i];
    sleep_island *isl = &w->islands.list[id];
    if (RESERVE(w->islands.woken, w->islands.woken_cap, w->islands.woken_count + isl->contact_count))
        return -1;
    if (RESERVE(w->islands.woken_bodies, w->islands.woken_bodies_cap,
                w->islands.woken_bodies_count + isl->body_count))
        return -1;
    for (int k = 0; k < isl->body_count; k++) {
        uint32_t b = isl->bodies[k];
        w->islands.grid.live -= sg_cells_of(w, b);
        s->awake[b] = 1;
        s->sleep_timer[b] = 0.0f;
        w->islands.woken_bodies[w->islands.woken_bodies_count++] = b;
    }
    if (isl->contact_count > 0) // an island of one body at rest in the air has none (and no array)
        memcpy(w->islands.woken + w->islands.woken_count, isl->contacts,
               (size_t)isl->contact_count * sizeof *isl->contacts);
    w->islands.woken_count += isl->contact_count;
    isl->next_free = w->islands.free_head;
    w->islands.free_head = id;
    w->stats.islands_woken++;
    return 0;
}

int kyu_wake_body(kyu_world *w, uint32_t i) { return wake_island_of(w, i); }

// Room to wake islands of up to `bodies` bodies and `contacts` contacts and to merge them into the
// cache. A call that may wake several islands reserves first, so it either fails with nothing
// changed or wakes them all: waking itself then cannot fail.
int kyu_islands_reserve_wake(kyu_world *w, int64_t bodies, int64_t contacts) {
    int64_t woken = w->islands.woken_count + contacts, merged = w->contacts.count + woken;
    if (merged > INT32_MAX / 2 || w->islands.woken_bodies_count + bodies > INT32_MAX / 2) return -1;
    if (RESERVE(w->islands.woken, w->islands.woken_cap, (int)woken)) return -1;
    if (RESERVE(w->islands.woken_bodies, w->islands.woken_bodies_cap,
                w->islands.woken_bodies_count + (int)bodies))
        return -1;
    return RESERVE(w->contacts.next, w->contacts.next_cap, (int)merged);
}

// Reserves the room to wake sleeping body i's island (nothing for an awake body).
int kyu_islands_reserve_wake_of(kyu_world *w, uint32_t i) {
    if (w->bodies.awake[i]) return 0;
    const sleep_island *isl = &w->islands.list[w->bodies.island[i]];
    return kyu_islands_reserve_wake(w, isl->body_count, isl->contact_count);
}

// Whether record id is a sleeping island now (freed records keep their lists until reused).
static int island_asleep(const kyu_world *w, int id) {
    const sleep_island *isl = &w->islands.list[id];
    if (isl->body_count == 0) return 0;
    uint32_t b0 = isl->bodies[0];
    return w->bodies.alive[b0] && !w->bodies.awake[b0] && w->bodies.island[b0] == (uint32_t)id;
}

static int island_names(const sleep_island *isl, uint32_t code) {
    for (int k = 0; k < isl->contact_count; k++)
        if (isl->contacts[k].b == code) return 1;
    return 0;
}

// Wakes every sleeping island that holds a contact with collider `code` (a removed collider's
// contacts must all come back to the cache, where the next step drops them).
int kyu_islands_wake_collider_contacts(kyu_world *w, uint32_t code) {
    int64_t bodies = 0, contacts = 0;
    for (int id = 0; id < w->islands.high; id++)
        if (island_asleep(w, id) && island_names(&w->islands.list[id], code))
            bodies += w->islands.list[id].body_count, contacts += w->islands.list[id].contact_count;
    if (kyu_islands_reserve_wake(w, bodies, contacts)) return -1;
    for (int id = 0; id < w->islands.high; id++)
        if (island_asleep(w, id) && island_names(&w->islands.list[id], code))
            (void)wake_island_of(w, w->islands.list[id].bodies[0]);
    return 0;
}

// Wakes every sleeping body (gravity changed), all or none.
int kyu_islands_wake_all(kyu_world *w) {
    int64_t bodies = 0, contacts = 0;
    for (int id = 0; id < w->islands.high; id++)
        if (island_asleep(w, id))
            bodies += w->islands.list[id].body_count, contacts += w->islands.list[id].contact_count;
    if (kyu_islands_reserve_wake(w, bodies, contacts)) return -1;
    for (int i = 0; i < w->bodies.high; i++)
        if (w->bodies.alive[i]) (void)wake_island_of(w, (uint32_t)i);
    return 0;
}

// Woken contacts join the cache, which stays sorted by key.
int kyu_islands_flush_woken(kyu_world *w) {
    if (w->islands.woken_count == 0) return 0;
    kyu_contacts_sort(w->islands.woken, w->islands.woken_count);
    int n = w->contacts.count + w->islands.woken_count;
    if (RESERVE(w->contacts.next, w->contacts.next_cap, n)) return -1;
    int i = 0, j = 0, k = 0;
    while (i < w->contacts.count || j < w->islands.woken_count) {
        if (j >= w->islands.woken_count ||
            (i < w->contacts.count &&
             kyu_contact_key(&w->contacts.list[i]) < kyu_contact_key(&w->islands.woken[j])))
            w->contacts.next[k++] = w->contacts.list[i++];
        else
            w->contacts.next[k++] = w->islands.woken[j++];
    }
    kyu_contacts_swap(w, n);
    w->islands.woken_count = 0;
    return 0;
}

// Distance from point c to the segment p0-p1.
static float segment_distance(vec3s p0, vec3s p1, vec3s c) {
    vec3s d = glms_vec3_sub(p1, p0), m = glms_vec3_sub(c, p0);
    float dd = glms_vec3_norm2(d), t = dd > 0.0f ? glms_vec3_dot(m, d) / dd : 0.0f;
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    return glms_vec3_distance(glms_vec3_add(p0, glms_vec3_scale(d, t)), c);
}

// The path that asks: a sleeper wakes when it comes within r (+ its radius) of the segment p0-p1,
// as close as a contact would (the distance that joins two bodies into one island), so resting
// neighbours a little apart never wake each other. A body's path (self < UINT32_MAX) asks within
// its radius plus the pair's margin, the smaller body's: a large body's own margin reaches further
// and would wake a small neighbour it keeps no contact with, every step (in a bed of radii spanning
// 1:10 such beads fell asleep and woke again, and each time they were touched, the bed's rest time
// restarted). r < 0: the box test alone.
typedef struct probe {
    kyu_world *w;
    vec3s p0, p1;
    float r;
    uint32_t self;
    int hit;      // the read-only pass: a sleeper was met
    int counting; // the sizing pass of a wake that must reserve first: sums, wakes nothing
    int64_t bodies, contacts;
    float extra; // added to the reach (a body's path: the ball around its start that holds any path)
} probe;

static int probe_meets(const kyu_world *w, const probe *pr, uint32_t j) {
    if (pr->r < 0.0f) return 1;
    float reach =
        (pr->self == UINT32_MAX ? pr->r : w->bodies.radius[pr->self] + kyu_pair_margin(w, pr->self, j)) +
        pr->extra;
    return segment_distance(pr->p0, pr->p1, kyu_periodic_image(&w->periodic, pr->p0, w->bodies.pos[j])) <=
           reach + w->bodies.radius[j];
}

static int wake_visit(void *ctx, uint32_t j) {
    probe *pr = ctx;
    if (!probe_meets(pr->w, pr, j)) return 0;
    if (!pr->counting) return wake_island_of(pr->w, j);
    const sleep_island *isl = &pr->w->islands.list[pr->w->bodies.island[j]];
    pr->bodies += isl->body_count; // an island met twice is counted twice: room to spare
    pr->contacts += isl->contact_count;
    return 0;
}

static int hit_visit(void *ctx, uint32_t j) {
    probe *pr = ctx;
    pr->hit = probe_meets(pr->w, pr, j);
    return pr->hit; // the first sleeper met ends the query
}

// Velocity v of body i without what drives it into a static collider it touches now (within the
// slop; one it kept a contact with in the cache): the collider stops that part, so its path cannot
// take the body there. Asked only of a body with a sleeper within reach of any path (the binary
// search for its contacts, for every awake body, cost PILE 10k 0.29 ms a step: 0.47 -> 0.76 ms of
// islands). A bead resting on the floor beside a sleeping island, a little more than a margin from
// it, reached it by the fall its path asked for (g dt^2 below it) and woke it, and the island's
// sleepers woke the bead in turn: in a bed of radii spanning 1:10, 10,000 beads never slept
// together. Woken bodies whose contacts are not back in the cache keep the whole path.
static vec3s held_by_colliders(const kyu_world *w, uint32_t i, vec3s v) {
    for (int k = kyu_contacts_first_of(w, i); k < w->contacts.count && w->contacts.list[k].a == i; k++) {
        const contact *c = &w->contacts.list[k];
        if (!kyu_is_collider(c->b) || c->sensor) continue;
        const collider *col = &w->colliders.list[c->b & ~KYU_COLLIDER_BIT];
        if (!col->alive || col->motion != KYU_STATIC) continue;
        vec3s n; // where the collider stands now (a program may have moved it since the contact was found)
        if (!(kyu_contact_geometry(w, c, &n) <= kyu_pair_slop(w, i, c->b))) continue;
        float into = glms_vec3_dot(v, n); // n points from the collider to the body
        if (into < 0.0f) v = glms_vec3_sub(v, glms_vec3_scale(n, into));
    }
    return v;
}

// Body i's coming path (gravity and the force it holds included, less what a static collider it
// touches stops): its box and its probe. Or, ball: the ball around its start that holds that path
// whatever its colliders stop (its radius the whole velocity times dt), which needs no contacts.
static void path_probe(kyu_world *w, uint32_t i, int ball, aabb *b, probe *pr) {
    const body_store *s = &w->bodies;
    float dt = w->def.fixed_dt;
    vec3s v =
        glms_vec3_add(s->vel[i], glms_vec3_scale(w->def.gravity, kyu_body_kind(s, i)->gravity_scale * dt));
    const body_force *f = kyu_body_force_of(s, i);
    if (f) v = glms_vec3_add(v, glms_vec3_scale(glms_vec3_scale(f->force, s->inv_mass[i]), dt));
    float extra = ball ? glms_vec3_norm(v) * dt : 0.0f;
    vec3s p1 = ball ? s->pos[i] : glms_vec3_add(s->pos[i], glms_vec3_scale(held_by_colliders(w, i, v), dt));
    float g = s->radius[i] + kyu_body_margin(w, i) + extra;
    for (int k = 0; k < 3; k++) {
        b->lo[k] = kyu_minf(s->pos[i].raw[k], p1.raw[k]) - g;
        b->hi[k] = kyu_maxf(s->pos[i].raw[k], p1.raw[k]) + g;
    }
    *pr = (probe){w, s->pos[i], p1, g, i, 0, 0, 0, 0, extra};
}

// The read-only first pass: which awake bodies' paths meet a sleeper now (wake.meets: 1 yes, 2 no,
// 0 asleep or dead).
static void meets_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    kyu_world *w = ctx;
    for (int i = begin; i < end; i++) {
        w->step.wake.meets[i] = 0;
        if (!w->bodies.alive[i] || !w->bodies.awake[i]) continue;
        aabb b;
        probe pr;
        path_probe(w, (uint32_t)i, 1, &b, &pr);
        (void)sg_query(w, &b, hit_visit, &pr);
        if (pr.hit) { // a sleeper within reach of any path: does the path meet it?
            path_probe(w, (uint32_t)i, 0, &b, &pr);
            (void)sg_query(w, &b, hit_visit, &pr);
        }
        w->step.wake.meets[i] = pr.hit ? 1 : 2;
    }
}

// Before the step: every awake body's coming path, and every moving kinematic collider, wakes the
// sleeping islands it meets; woken bodies wake what they touch in turn.
// The queries run first in parallel, reading only; then, in slot order, the bodies that met a
// sleeper and the bodies woken meanwhile query again and wake what they meet (sleepers only ever
// become fewer, so a body that met none meets none later).
static int wake_touched(kyu_world *w) {
    body_store *s = &w->bodies;
    w->islands.woken_bodies_count = 0;
    if (w->islands.grid.live == 0 && w->islands.grid.giant_count == 0) return 0;
    kyu_parallel_for(w, s->high, 1024, meets_task, w);
    for (int i = 0; i < s->high; i++) {
        if (!s->alive[i] || !s->awake[i] || w->step.wake.meets[i] == 2) continue;
        aabb b;
        probe pr;
        path_probe(w, (uint32_t)i, 0, &b, &pr);
        if (sg_query(w, &b, wake_visit, &pr)) return -1;
    }
    for (int c = 0; c < w->colliders.high; c++) {
        const collider *col = &w->colliders.list[c];
        if (!col->alive || col->motion != KYU_KINEMATIC || glms_vec3_norm2(col->velocity) == 0.0f) continue;
        if (kyu_wake_near_colliders(w, col, NULL)) return -1;
    }
    return 0;
}

int kyu_islands_wake_touched(kyu_world *w) {
    w->step.wake.meets = kyu_arena_take(&w->step.arena, (size_t)w->bodies.high * sizeof *w->step.wake.meets);
    int failed = wake_touched(w);
    kyu_arena_reset(&w->step.arena);
    w->step.wake.meets = NULL;
    return failed;
}

// A collider that moves, appears, is teleported or removed wakes the sleeping bodies near it: all of
// them, or none when there is no memory for them (-1).
static int near_collider(kyu_world *w, const collider *c, probe *pr) {
    body_store *s = &w->bodies;
    float dt = w->def.fixed_dt, reach = kyu_max_margin(w) + glms_vec3_norm(c->velocity) * dt;
    if (c->type == KYU_SHAPE_PLANE) {
        for (int i = 0; i < s->high; i++) {
            if (!s->alive[i] || s->awake[i]) continue;
            vec3s n;
            if (kyu_collider_distance(c, s->pos[i], s->radius[i], 0.0f, dt, &n) <= reach &&
                wake_visit(pr, (uint32_t)i))
                return -1;
        }
        return 0;
    }
    aabb b, e;
    kyu_shape_world_bounds(c, c->box.center, &b);
    kyu_shape_world_bounds(c, glms_vec3_add(c->box.center, glms_vec3_scale(c->velocity, dt)), &e);
    for (int k = 0; k < 3; k++) {
        b.lo[k] = kyu_minf(b.lo[k], e.lo[k]) - reach;
        b.hi[k] = kyu_maxf(b.hi[k], e.hi[k]) + reach;
    }
    return sg_query(w, &b, wake_visit, pr);
}

// Wakes what sleeps near collider a, and near b if not NULL (a collider before and after a move).
int kyu_wake_near_colliders(kyu_world *w, const collider *a, const collider *b) {
    if (w->islands.grid.live == 0 && w->islands.grid.giant_count == 0) return 0;
    probe pr = {w, {{0}}, {{0}}, -1.0f, UINT32_MAX, 0, 1, 0, 0, 0.0f};
    (void)near_collider(w, a, &pr);
    if (b) (void)near_collider(w, b, &pr);
    if (kyu_islands_reserve_wake(w, pr.bodies, pr.contacts)) return -1;
    pr.counting = 0;
    return near_collider(w, a, &pr) || (b && near_collider(w, b, &pr)) ? -1 : 0;
}

// Mid-step: a body's new box meets sleeping bodies: wake their islands now. Returns how many bodies
// woke (they are listed in w->islands.woken_bodies from `first`), or -1.
int kyu_islands_wake_box(kyu_world *w, const aabb *box) {
    if (w->islands.grid.live == 0 && w->islands.grid.giant_count == 0) return 0;
    int before = w->islands.woken_bodies_count;
    probe pr = {w, {{0}}, {{0}}, -1.0f, UINT32_MAX, 0, 0, 0, 0, 0.0f};
    if (sg_query(w, box, wake_visit, &pr)) return -1;
    return w->islands.woken_bodies_count - before;
}

// ---- falling asleep ---------------------------------------------------------------------------

static uint32_t find(uint32_t *parent, uint32_t i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

// How much faster than at the start of its rest a body may become and still be resting, as a share
// of sleep_speed: a ball rolling from rest now sleeps only on slopes under 0.08 degrees (where 5/7 g
// sin(theta) sleep_time is under it), and what a resting body jitters by stays well within it.
#define REST_GAIN 0.1f

// Rest timers, then islands by union-find over the kept contacts (the lower slot is each root),
// then each island's shortest rest. Returns how many bodies are ready to sleep.
static int find_resting_islands(kyu_world *w) {
    body_store *s = &w->bodies;
    uint32_t *parent = w->step.uf.parent;
    float *rest = w->step.uf.rest;
    int rested = 0; // bodies that have rested long enough; none: no island can sleep (a gas)
    for (int k = 0; k < w->step.active_count; k++) {
        uint32_t i = w->step.active[k];
        // Its speed and its surface's speed from spin (a ball rolling on the spot is not at rest).
        float spin = glms_vec3_norm2(s->ang[i]) * s->radius[i] * s->radius[i];
        float speed2 = kyu_maxf(glms_vec3_norm2(s->vel[i]), spin);
        int resting = w->def.enable_sleep && kyu_body_kind(s, i)->allow_sleep &&
                      !kyu_body_kind(s, i)->sensor && speed2 < w->def.sleep_speed * w->def.sleep_speed;
        // Nor is a body that speeds up while slow: its rest begins again once it is REST_GAIN of
        // sleep_speed faster than when the rest began. Without it a body let go from rest that
        // gains speed slower than sleep_speed / sleep_time (0.1 m/s^2) slept before it was fast
        // enough to stay awake: a ball on a slope under 0.8 degrees, or just off a hill's top.
        if (resting && s->sleep_timer[i] > 0.0f) {
            float gained = s->rest_speed[i] + REST_GAIN * w->def.sleep_speed;
            resting = speed2 <= gained * gained;
        } else if (resting) {
            s->rest_speed[i] = sqrtf(speed2);
        }
        s->sleep_timer[i] = resting ? s->sleep_timer[i] + w->def.fixed_dt : 0.0f;
        rested += s->sleep_timer[i] >= w->def.sleep_time;
        parent[i] = i;
    }
    if (!w->def.enable_sleep || rested == 0) return 0;
    for (int c = 0; c < w->contacts.count; c++) {
        const contact *ct = &w->contacts.list[c];
        if (ct->b & KYU_COLLIDER_BIT) continue;
        if (ct->sensor && !ct->touching) continue; // a sensor overlap keeps the body awake
        uint32_t ra = find(parent, ct->a), rb = find(parent, ct->b);
        if (ra != rb) parent[ra < rb ? rb : ra] = ra < rb ? ra : rb;
    }
    for (int k = 0; k < w->step.active_count; k++) rest[w->step.active[k]] = 1e30f;
    for (int k = 0; k < w->step.active_count; k++) {
        uint32_t i = w->step.active[k], r = find(parent, i);
        if (s->sleep_timer[i] < rest[r]) rest[r] = s->sleep_timer[i];
    }
    int ready = 0;
    for (int k = 0; k < w->step.active_count; k++) {
        uint32_t i = w->step.active[k];
        w->step.uf.record[i] = -1;
        ready += rest[find(parent, i)] >= w->def.sleep_time;
    }
    return ready;
}

// The first island to sleep while no body sleeps sets the grid's cell: about two diameters of the
// awake bodies. Whether a body sleeps is asked of the bodies, not of the grid's entries: the grid
// keeps the entries of woken bodies (a giant's until the grid is next emptied) where a grid loaded
// from a snapshot has none, and a grid of giants alone has no table.
static void size_sleep_grid(kyu_world *w) {
    for (int i = 0; i < w->bodies.high; i++)
        if (w->bodies.alive[i] && !w->bodies.awake[i]) return;
    double sum = 0.0;
    for (int k = 0; k < w->step.active_count; k++) sum += (double)w->bodies.radius[w->step.active[k]];
    double mean = sum / w->step.active_count;
    w->islands.grid.cell =
        (float)(4.0 * mean) +
        2.0f * (w->def.contact_margin > 0.0f ? w->def.contact_margin : KYU_MARGIN_RATIO * (float)mean);
    w->islands.grid.inv_cell = 1.0f / w->islands.grid.cell;
    sg_empty(&w->islands.grid);
    if (w->islands.grid.table_size)
        memset(w->islands.grid.head, 0xff, (size_t)w->islands.grid.table_size * sizeof *w->islands.grid.head);
}

// Room for exactly n elements (island records are written once and never grow).
static int reserve_exact(void **data, int *capacity, int n, size_t elem) {
    if (n <= *capacity) return 0;
    void *p = kyu_realloc(*data, (size_t)n * elem);
    if (!p) return -1;
    *data = p;
    *capacity = n;
    return 0;
}

// Whether active body i is the root of an island that falls asleep now.
static int sleeping_root(const kyu_world *w, uint32_t i) {
    return w->step.uf.parent[i] == i && w->step.uf.rest[i] >= w->def.sleep_time;
}

// Whether body i's island (a root of the union-find) falls asleep now.
static int root_sleeps(const kyu_world *w, uint32_t i) {
    return w->step.uf.rest[find(w->step.uf.parent, i)] >= w->def.sleep_time;
}

// Whether contact c of a body falling asleep names a body that stays awake (only a non-touching
// sensor pair can: every other body-body contact links the two into one island).
static int leaves_island(const kyu_world *w, const contact *c) {
    if ((c->b & KYU_COLLIDER_BIT) || root_sleeps(w, c->b)) return 0;
    KYU_ASSERT(c->sensor && !c->touching);
    return 1;
}

// Room in the sleep grid for the entries of `bodies` more sleeping bodies (insertions cannot fail).
static int sg_reserve(kyu_world *w, int entries, int giants) {
    sleep_grid *g = &w->islands.grid;
    if (RESERVE(g->entries, g->entry_cap, g->count + entries)) return -1;
    if (RESERVE(g->giants, g->giant_cap, g->giant_count + giants)) return -1;
    return sg_grow(g, g->cells + entries);
}

// The islands that fall asleep get their records, counted and sized, with every allocation made
// before anything changes: -1 leaves every body awake and the cache as it was.
static int plan_sleep(kyu_world *w, int roots) {
    int *record = w->step.uf.record;
    // The idle half of the contact double buffer holds nothing until the next contact search,
    // which reserves what it needs: it is given back before the records take their room (the step
    // where a big pile falls asleep would otherwise be the step of peak memory).
    SHRINK(w->contacts.next, w->contacts.next_cap, 0);
    if (reserve_exact((void **)&w->islands.list, &w->islands.cap, w->islands.high + roots,
                      sizeof *w->islands.list))
        return -1;
    for (int i = w->islands.high; i < w->islands.cap; i++)
        memset(&w->islands.list[i], 0, sizeof w->islands.list[i]);
    int entries = 0, giants = 0;
    for (int k = 0; k < w->step.active_count; k++) { // count each island's bodies
        uint32_t i = w->step.active[k], r = find(w->step.uf.parent, i);
        if (w->step.uf.rest[r] < w->def.sleep_time) continue;
        if (record[r] < 0) record[r] = island_new(w); // cannot fail: the room is there
        w->islands.list[record[r]].body_count++;
        int cells = sg_cells_of(w, i);
        entries += cells, giants += cells == 0;
    }
    // An island keeps the contacts of its bodies with each other and with colliders. A contact
    // with a body outside it (a sensor near a body, not overlapping: it does not link islands) is
    // dropped, not taken along: an island never names a body it does not hold, so removing a body
    // only has to wake its own island to find all its contacts.
    for (int c = 0; c < w->contacts.count; c++) {
        const contact *ct = &w->contacts.list[c];
        if (root_sleeps(w, ct->a) && !leaves_island(w, ct))
            w->islands.list[record[find(w->step.uf.parent, ct->a)]].contact_count++;
    }
    int failed = sg_reserve(w, entries, giants);
    for (int k = 0; k < w->step.active_count && !failed; k++) {
        uint32_t i = w->step.active[k];
        if (!sleeping_root(w, i)) continue;
        sleep_island *isl = &w->islands.list[record[i]];
        failed = reserve_exact((void **)&isl->bodies, &isl->body_cap, isl->body_count, sizeof *isl->bodies) ||
                 reserve_exact((void **)&isl->contacts, &isl->contact_cap, isl->contact_count,
                               sizeof *isl->contacts);
    }
    if (!failed) return 0;
    for (int k = 0; k < w->step.active_count; k++) { // give the records back, unused
        uint32_t i = w->step.active[k];
        if (!sleeping_root(w, i) || record[i] < 0) continue;
        sleep_island *isl = &w->islands.list[record[i]];
        isl->body_count = isl->contact_count = 0;
        isl->next_free = w->islands.free_head;
        w->islands.free_head = record[i];
        record[i] = -1;
    }
    return -1;
}

// After the step: the islands whose bodies all rested long enough go to sleep, taking their
// contacts along (the cache keeps the rest, still sorted). Each record is counted first and given
// exactly its room; nothing changes until all the room is there.
static int update_islands(kyu_world *w) {
    body_store *s = &w->bodies;
    int sleeping = find_resting_islands(w);
    if (sleeping == 0) return 0;
    size_sleep_grid(w);
    int roots = 0;
    for (int k = 0; k < w->step.active_count; k++) roots += sleeping_root(w, w->step.active[k]);
    if (plan_sleep(w, roots)) return -1;
    const int *record = w->step.uf.record;
    for (int k = 0; k < w->step.active_count; k++) {
        uint32_t i = w->step.active[k];
        if (!sleeping_root(w, i)) continue;
        w->islands.list[record[i]].body_count = w->islands.list[record[i]].contact_count = 0;
        w->islands.list[record[i]].max_overlap = 0.0f;
    }
    for (int k = 0; k < w->step.active_count; k++) {
        uint32_t i = w->step.active[k], r = find(w->step.uf.parent, i);
        if (w->step.uf.rest[r] < w->def.sleep_time) continue;
        sleep_island *isl = &w->islands.list[record[r]];
        isl->bodies[isl->body_count++] = i;
        s->island[i] = (uint32_t)record[r];
        s->awake[i] = 0;
        s->vel[i] = s->ang[i] = glms_vec3_zero();
        s->sleep_epoch[i]++;
        int inserted = sg_insert(w, i);
        KYU_ASSERT(inserted == 0); // sg_reserve made the room
        (void)inserted;
    }
    int n = 0;
    for (int c = 0; c < w->contacts.count; c++) {
        const contact *ct = &w->contacts.list[c];
        if (s->awake[ct->a]) {
            w->contacts.list[n++] = *ct;
            continue;
        }
        if (leaves_island(w, ct)) continue;
        sleep_island *isl = &w->islands.list[s->island[ct->a]];
        if (isl->contact_count == 0) isl->max_overlap = 0.0f;
        if (!ct->sensor && -ct->gap > isl->max_overlap) isl->max_overlap = -ct->gap;
        isl->contacts[isl->contact_count++] = *ct;
    }
    w->contacts.count = n;
    SHRINK(w->contacts.list, w->contacts.cap, n);
    w->stats.bodies_fell_asleep = sleeping;
    return sg_compact(w);
}

int kyu_islands_update(kyu_world *w) {
    size_t slots = (size_t)w->bodies.high;
    w->step.uf.parent = kyu_arena_take(&w->step.arena, slots * sizeof *w->step.uf.parent);
    w->step.uf.rest = kyu_arena_take(&w->step.arena, slots * sizeof *w->step.uf.rest);
    w->step.uf.record = kyu_arena_take(&w->step.arena, slots * sizeof *w->step.uf.record);
    int failed = update_islands(w);
    kyu_arena_reset(&w->step.arena);
    w->step.uf.parent = NULL, w->step.uf.rest = NULL, w->step.uf.record = NULL;
    return failed;
}

void kyu_islands_free(kyu_world *w) {
    for (int i = 0; i < w->islands.cap; i++) {
        kyu_free(w->islands.list[i].bodies);
        kyu_free(w->islands.list[i].contacts);
    }
    kyu_free(w->islands.list);
    kyu_free(w->islands.grid.key);
    kyu_free(w->islands.grid.head);
    kyu_free(w->islands.grid.entries);
    kyu_free(w->islands.grid.giants);
    kyu_free(w->islands.woken);
    kyu_free(w->islands.woken_bodies);
}

// The deepest overlap among the sleeping islands' contacts.
float kyu_islands_max_overlap(const kyu_world *w) {
    float worst = 0.0f;
    for (int id = 0; id < w->islands.high; id++)
        if (island_asleep(w, id)) worst = kyu_maxf(worst, w->islands.list[id].max_overlap);
    return worst;
}

int kyu_islands_body_count_asleep(const kyu_world *w) {
    int n = 0;
    for (int i = 0; i < w->bodies.high; i++) n += w->bodies.alive[i] && !w->bodies.awake[i];
    return n;
}
