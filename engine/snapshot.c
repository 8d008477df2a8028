// SPDX-License-Identifier: MIT
// Snapshots: the whole state a step reads, written field by field (never raw structs, whose padding
// would make two saves of one state differ), behind a header with a format version and a checksum.
// Loading builds a complete new world first and swaps it in only when every check passed, so a bad
// file never leaves a world half loaded.
//
// Layout: "kyu-snap" | u32 version | u32 0x01020304 (byte order) | u64 payload size | u64 FNV-1a of
// the payload | payload. The payload is the sections below, in this order, in the host's byte order.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SNAP_MAGIC "kyu-snap"
#define SNAP_VERSION 1u
#define SNAP_ORDER 0x01020304u
#define SNAP_HEADER 32u

// ---- writing: one pass that only counts, one that copies ----------------------------------------

typedef struct writer {
    uint8_t *p; // NULL while counting
    size_t n;
} writer;

static void put(writer *o, const void *src, size_t len) {
    if (o->p && len) memcpy(o->p + o->n, src, len);
    o->n += len;
}
static void put_u32(writer *o, uint32_t v) { put(o, &v, 4); }
static void put_i32(writer *o, int32_t v) { put(o, &v, 4); }
static void put_f32(writer *o, float v) { put(o, &v, 4); }
static void put_u8(writer *o, uint8_t v) { put(o, &v, 1); }
static void put_vec(writer *o, vec3s v) { put(o, v.raw, 12); }

static void put_def(writer *o, const kyu_world_def *d) {
    put_vec(o, d->gravity);
    put_f32(o, d->fixed_dt);
    put_i32(o, d->max_steps_per_update);
    put_f32(o, d->restitution_threshold);
    put_i32(o, d->solver_iterations);
    put_f32(o, d->linear_slop);
    put_f32(o, d->contact_margin);
    put_i32(o, d->max_events_per_step);
    put_i32(o, d->body_capacity);
    put_i32(o, d->max_bodies);
    put_i32(o, d->max_colliders);
    put_f32(o, d->cell_size);
    put_u8(o, d->enable_sleep);
    put_u8(o, d->enable_impact_events);
    put_f32(o, d->sleep_speed);
    put_f32(o, d->sleep_time);
}

static void put_bodies(writer *o, const body_store *b) {
    size_t n = (size_t)b->high;
    put_i32(o, b->high);
    put_i32(o, b->count);
    put_i32(o, b->removed);
    put_i32(o, b->free_count);
    put(o, b->free_slots, (size_t)b->free_count * sizeof *b->free_slots);
    put(o, b->pos, n * 12); put(o, b->vel, n * 12); put(o, b->prev, n * 12);
    put(o, b->radius, n * 4); put(o, b->inv_mass, n * 4); put(o, b->mass, n * 4);
    put(o, b->restitution, n * 4); put(o, b->friction, n * 4); put(o, b->damping, n * 4);
    put(o, b->gravity_scale, n * 4); put(o, b->category, n * 4); put(o, b->mask, n * 4);
    put(o, b->group, n * 4); put(o, b->sensor, n); put(o, b->allow_sleep, n); put(o, b->awake, n);
    put(o, b->sleep_timer, n * 4); put(o, b->island, n * 4); put(o, b->sleep_epoch, n * 4);
    put(o, b->generation, n * 4); put(o, b->alive, n);
}

static void put_collider(writer *o, const collider *c) {
    put_u32(o, c->generation);
    put_u8(o, c->alive);
    if (!c->alive) return;
    put_i32(o, (int32_t)c->type);
    put_i32(o, (int32_t)c->motion);
    put_vec(o, c->box.center);
    put(o, c->box.rotation.raw, 36);
    put_vec(o, c->box.half_extents);
    put_vec(o, c->cap_a); put_vec(o, c->cap_b); put_f32(o, c->cap_radius);
    put_vec(o, c->normal); put_f32(o, c->offset); put_vec(o, c->velocity);
    put_f32(o, c->restitution); put_f32(o, c->friction);
    put_u32(o, c->category); put_u32(o, c->mask);
    put(o, c->bounds.lo, 12); put(o, c->bounds.hi, 12);
    put_i32(o, c->hull_count);
    put(o, c->hull_points, (size_t)c->hull_count * 12);
    put_i32(o, c->mesh ? c->mesh->vert_count : 0);
    put_i32(o, c->mesh ? c->mesh->tri_count : 0);
    if (c->mesh) {
        put(o, c->mesh->verts, (size_t)c->mesh->vert_count * 12);
        put(o, c->mesh->tris, (size_t)c->mesh->tri_count * 12);
    }
}

// The format keeps each contact's effective mass, friction and restitution (from version 1), which
// the engine now reads from the bodies: they are written as computed, and checked but not kept on
// load. Its velocity target is set at the start of every solve: it is written as 0 and not kept.
static void put_contact(writer *o, const kyu_world *w, const contact *c) {
    put_u32(o, c->a); put_u32(o, c->b); put_u32(o, c->ga); put_u32(o, c->gb);
    put_vec(o, c->normal); put_f32(o, c->gap); put_f32(o, c->jn); put_vec(o, c->jt);
    put_f32(o, kyu_contact_mass(w, c)); put_f32(o, kyu_contact_friction(w, c));
    put_f32(o, kyu_contact_restitution(w, c));
    put_f32(o, 0.0f);
    put_u8(o, c->skip); put_u8(o, c->touching); put_u8(o, c->sensor);
}

static void put_contacts(writer *o, const kyu_world *w, const contact *c, int n) {
    put_i32(o, n);
    for (int i = 0; i < n; i++) put_contact(o, w, &c[i]);
}

static void put_handle(writer *o, uint32_t index1, uint32_t generation) {
    put_u32(o, index1);
    put_u32(o, generation);
}

static void put_sleep(writer *o, const kyu_world *w) {
    const sleep_grid *g = &w->sleep;
    put_f32(o, g->cell); put_f32(o, g->inv_cell);
    put_i32(o, g->table_size); put_i32(o, g->cells);
    put(o, g->key, (size_t)g->table_size * 4);
    put(o, g->head, (size_t)g->table_size * 4);
    put_i32(o, g->count); put_i32(o, g->live);
    put(o, g->entries, (size_t)g->count * sizeof *g->entries); // six uint32: no padding
    put_i32(o, g->giant_count);
    put(o, g->giants, (size_t)g->giant_count * sizeof *g->giants);
}

static void put_world(writer *o, const kyu_world *w) {
    put_def(o, &w->def);
    put(o, &w->accumulator, 8);
    put_f32(o, w->alpha);
    put_bodies(o, &w->bodies);
    put_i32(o, w->collider_high); put_i32(o, w->collider_count); put_i32(o, w->free_collider_count);
    put(o, w->free_colliders, (size_t)w->free_collider_count * 4);
    for (int i = 0; i < w->collider_high; i++) put_collider(o, &w->colliders[i]);
    put_contacts(o, w, w->contacts, w->contact_count);
    put_i32(o, w->island_high); put_i32(o, w->free_island);
    for (int i = 0; i < w->island_high; i++) {
        const sleep_island *isl = &w->islands[i];
        put_i32(o, isl->next_free);
        put_i32(o, isl->body_count);
        put(o, isl->bodies, (size_t)isl->body_count * 4);
        put_contacts(o, w, isl->contacts, isl->contact_count);
    }
    put_sleep(o, w);
    put_contacts(o, w, w->woken, w->woken_count);
    put_i32(o, w->woken_bodies_count);
    put(o, w->woken_bodies, (size_t)w->woken_bodies_count * 4);
    put_i32(o, w->pending_end_count);
    for (int i = 0; i < w->pending_end_count; i++) {
        const kyu_contact_event *e = &w->pending_end[i];
        put_handle(o, e->body.index1, e->body.generation);
        put_handle(o, e->other.index1, e->other.generation);
        put_handle(o, e->collider.index1, e->collider.generation);
        put_u8(o, e->sensor);
    }
}

static uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

kyu_status kyu_world_save_memory(const kyu_world *w, void *buffer, size_t capacity, size_t *size) {
    if (!w) return KYU_ERR_NULL;
    kyu_world *mw = (kyu_world *)w; // only for the error text
    if (!size) return kyu_fail(mw, KYU_ERR_NULL, "kyu_world_save_memory: size is NULL");
    if (w->locked) return kyu_fail(mw, KYU_ERR_LOCKED, "kyu_world_save_memory during a step");
    writer count = {NULL, 0};
    put_world(&count, w);
    *size = SNAP_HEADER + count.n;
    if (!buffer) return KYU_OK;
    if (capacity < *size)
        return kyu_fail(mw, KYU_ERR_CAPACITY, "snapshot needs %zu bytes, buffer has %zu", *size, capacity);
    uint8_t *out = buffer;
    writer o = {out + SNAP_HEADER, 0};
    put_world(&o, w);
    uint32_t version = SNAP_VERSION, order = SNAP_ORDER;
    uint64_t payload = o.n, sum = fnv1a(out + SNAP_HEADER, o.n);
    memcpy(out, SNAP_MAGIC, 8);
    memcpy(out + 8, &version, 4);
    memcpy(out + 12, &order, 4);
    memcpy(out + 16, &payload, 8);
    memcpy(out + 24, &sum, 8);
    return KYU_OK;
}

kyu_status kyu_world_save(const kyu_world *w, const char *path) {
    if (!w) return KYU_ERR_NULL;
    kyu_world *mw = (kyu_world *)w;
    if (!path) return kyu_fail(mw, KYU_ERR_NULL, "kyu_world_save: path is NULL");
    size_t n = 0;
    kyu_status st = kyu_world_save_memory(w, NULL, 0, &n);
    if (st != KYU_OK) return st;
    uint8_t *buf = malloc(n);
    if (!buf) return kyu_fail(mw, KYU_ERR_OUT_OF_MEMORY, "snapshot of %zu bytes", n);
    st = kyu_world_save_memory(w, buf, n, &n);
    if (st == KYU_OK) {
        FILE *f = fopen(path, "wb");
        int ok = f && fwrite(buf, 1, n, f) == n;
        if (f && fclose(f) != 0) ok = 0;
        if (!ok) st = kyu_fail(mw, KYU_ERR_IO, "cannot write snapshot '%s'", path);
    }
    free(buf);
    return st;
}

// ---- reading: every count is checked against the bytes left before anything is allocated -----

typedef struct reader {
    const uint8_t *p;
    size_t n, at;
    const char *bad; // the first problem found (then every read returns zeros)
} reader;

static int take(reader *r, void *dst, size_t len) {
    if (r->bad || len > r->n - r->at) {
        if (!r->bad) r->bad = "the file ends early (truncated)";
        if (dst && len) memset(dst, 0, len);
        return -1;
    }
    if (dst && len) memcpy(dst, r->p + r->at, len);
    r->at += len;
    return 0;
}
static uint32_t get_u32(reader *r) { uint32_t v; take(r, &v, 4); return v; }
static int32_t get_i32(reader *r) { int32_t v; take(r, &v, 4); return v; }
static float get_f32(reader *r) { float v; take(r, &v, 4); return v; }
static uint8_t get_u8(reader *r) { uint8_t v; take(r, &v, 1); return v; }
static vec3s get_vec(reader *r) { vec3s v; take(r, v.raw, 12); return v; }

static void fail(reader *r, const char *why) {
    if (!r->bad) r->bad = why;
}

// A count of items of `elem` bytes each that must fit in what is left of the file.
static int get_count(reader *r, size_t elem, int limit) {
    int32_t n = get_i32(r);
    if (n < 0 || n > limit || (size_t)n > (r->n - r->at) / (elem ? elem : 1)) {
        fail(r, "a count is negative or larger than the file");
        return 0;
    }
    return r->bad ? 0 : n;
}

// Reads n items of elem bytes into a new array (NULL for n = 0 or on failure).
static void *get_array(reader *r, int n, size_t elem) {
    if (r->bad || n <= 0) return NULL;
    void *a = malloc((size_t)n * elem);
    if (!a) {
        fail(r, "out of memory");
        return NULL;
    }
    if (take(r, a, (size_t)n * elem)) {
        free(a);
        return NULL;
    }
    return a;
}

static int all_finite(const float *f, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!isfinite(f[i])) return 0;
    return 1;
}

static void get_def(reader *r, kyu_world_def *d) {
    d->gravity = get_vec(r);
    d->fixed_dt = get_f32(r);
    d->max_steps_per_update = get_i32(r);
    d->restitution_threshold = get_f32(r);
    d->solver_iterations = get_i32(r);
    d->linear_slop = get_f32(r);
    d->contact_margin = get_f32(r);
    d->max_events_per_step = get_i32(r);
    d->body_capacity = get_i32(r);
    d->max_bodies = get_i32(r);
    d->max_colliders = get_i32(r);
    d->cell_size = get_f32(r);
    d->enable_sleep = get_u8(r) != 0;
    d->enable_impact_events = get_u8(r) != 0;
    d->sleep_speed = get_f32(r);
    d->sleep_time = get_f32(r);
}

#define GET_SLOTS(r, arr, n) take((r), (arr), (size_t)(n) * sizeof *(arr))

static void get_bodies(reader *r, kyu_world *w) {
    body_store *b = &w->bodies;
    int high = get_count(r, 12, w->def.max_bodies);
    if (r->bad) return;
    if (kyu_bodies_reserve(w, high > 0 ? high : 1)) { fail(r, "out of memory"); return; }
    b->high = high;
    b->count = get_i32(r);
    b->removed = get_i32(r);
    b->free_count = get_count(r, 4, high);
    GET_SLOTS(r, b->free_slots, b->free_count);
    GET_SLOTS(r, b->pos, high); GET_SLOTS(r, b->vel, high); GET_SLOTS(r, b->prev, high);
    GET_SLOTS(r, b->radius, high); GET_SLOTS(r, b->inv_mass, high); GET_SLOTS(r, b->mass, high);
    GET_SLOTS(r, b->restitution, high); GET_SLOTS(r, b->friction, high); GET_SLOTS(r, b->damping, high);
    GET_SLOTS(r, b->gravity_scale, high); GET_SLOTS(r, b->category, high); GET_SLOTS(r, b->mask, high);
    GET_SLOTS(r, b->group, high); GET_SLOTS(r, b->sensor, high); GET_SLOTS(r, b->allow_sleep, high);
    GET_SLOTS(r, b->awake, high); GET_SLOTS(r, b->sleep_timer, high); GET_SLOTS(r, b->island, high);
    GET_SLOTS(r, b->sleep_epoch, high); GET_SLOTS(r, b->generation, high); GET_SLOTS(r, b->alive, high);
    memset(b->user, 0, (size_t)b->capacity * sizeof *b->user);
}

static void check_bodies(reader *r, const kyu_world *w) {
    const body_store *b = &w->bodies;
    if (r->bad) return;
    int live = 0;
    for (int i = 0; i < b->high; i++) {
        if (b->alive[i] > 1 || b->awake[i] > 1) { fail(r, "a body's flags are not 0 or 1"); return; }
        if (!b->alive[i]) continue;
        live++;
        if (!all_finite(b->pos[i].raw, 3) || !all_finite(b->vel[i].raw, 3) || !all_finite(b->prev[i].raw, 3))
            { fail(r, "a body's position or velocity is not finite"); return; }
        if (!(b->radius[i] > 0.0f && b->radius[i] <= KYU_MAX_RADIUS) || !(b->mass[i] >= KYU_MIN_MASS) ||
            !(b->mass[i] <= KYU_MAX_MASS) || !(b->inv_mass[i] > 0.0f) || !isfinite(b->inv_mass[i]))
            { fail(r, "a body's radius or mass is out of range"); return; }
        float f[5] = {b->restitution[i], b->friction[i], b->damping[i], b->gravity_scale[i], b->sleep_timer[i]};
        if (!all_finite(f, 5)) { fail(r, "a body's material is not finite"); return; }
        if (!b->awake[i] && b->island[i] >= (uint32_t)w->island_high) { fail(r, "a sleeping body has no island"); return; }
    }
    if (live != b->count) { fail(r, "the live body count does not match"); return; }
    for (int k = 0; k < b->free_count; k++)
        if (b->free_slots[k] < 0 || b->free_slots[k] >= b->high || b->alive[b->free_slots[k]])
            { fail(r, "a free slot is out of range or in use"); return; }
    if (b->removed < 0) fail(r, "the removed count is negative");
}

// A body slot or a collider code that a contact may name.
static int partner_ok(const kyu_world *w, uint32_t x) {
    if (x & KYU_COLLIDER_BIT) return (x & ~KYU_COLLIDER_BIT) < (uint32_t)w->collider_high;
    return x < (uint32_t)w->bodies.high;
}

static contact *get_contacts(reader *r, const kyu_world *w, int *count) {
    int n = get_count(r, 67, 1 << 30); // 67 bytes a contact
    *count = 0;
    if (r->bad || n == 0) return NULL;
    contact *c = calloc((size_t)n, sizeof *c);
    if (!c) {
        fail(r, "out of memory");
        return NULL;
    }
    for (int i = 0; i < n && !r->bad; i++) {
        contact *t = &c[i];
        t->a = get_u32(r); t->b = get_u32(r); t->ga = get_u32(r); t->gb = get_u32(r);
        t->normal = get_vec(r); t->gap = get_f32(r); t->jn = get_f32(r); t->jt = get_vec(r);
        float k = get_f32(r);
        float mu = get_f32(r);
        float e = get_f32(r);
        float target = get_f32(r);
        t->skip = get_u8(r); t->touching = get_u8(r); t->sensor = get_u8(r);
        if (!partner_ok(w, t->a) || (t->a & KYU_COLLIDER_BIT) || !partner_ok(w, t->b))
            fail(r, "a contact names a body or collider that does not exist");
        float f[] = {t->normal.x, t->normal.y, t->normal.z, t->gap, t->jn, t->jt.x, t->jt.y, t->jt.z,
                     k, mu, e, target};
        if (!all_finite(f, sizeof f / sizeof f[0])) fail(r, "a contact holds a number that is not finite");
    }
    *count = n;
    return c;
}

// The cache is sorted by (a, b) with a < b for body pairs: the contact search merges on that order.
static void check_cache_order(reader *r, const kyu_world *w) {
    for (int i = 0; i < w->contact_count && !r->bad; i++) {
        const contact *c = &w->contacts[i];
        if (!(c->b & KYU_COLLIDER_BIT) && c->b <= c->a) fail(r, "a contact's pair is out of order");
        if (i > 0) {
            const contact *p = &w->contacts[i - 1];
            if (p->a > c->a || (p->a == c->a && p->b >= c->b)) fail(r, "the contact cache is out of order");
        }
    }
}

static void get_collider(reader *r, collider *c) {
    memset(c, 0, sizeof *c);
    c->generation = get_u32(r);
    c->alive = get_u8(r);
    if (c->alive > 1) { fail(r, "a collider's flag is not 0 or 1"); return; }
    if (!c->alive || r->bad) return;
    c->type = (kyu_shape_type)get_i32(r);
    c->motion = (kyu_motion)get_i32(r);
    if (c->type < KYU_SHAPE_PLANE || c->type > KYU_SHAPE_MESH || (c->motion != KYU_STATIC && c->motion != KYU_KINEMATIC))
        { fail(r, "a collider's shape or motion is unknown"); return; }
    c->box.center = get_vec(r);
    take(r, c->box.rotation.raw, 36);
    c->box.half_extents = get_vec(r);
    c->cap_a = get_vec(r); c->cap_b = get_vec(r); c->cap_radius = get_f32(r);
    c->normal = get_vec(r); c->offset = get_f32(r); c->velocity = get_vec(r);
    c->restitution = get_f32(r); c->friction = get_f32(r);
    c->category = get_u32(r); c->mask = get_u32(r);
    take(r, c->bounds.lo, 12); take(r, c->bounds.hi, 12);
    // Every float from box.center to friction, field by field (the struct may have padding).
    float f[] = {c->box.center.x, c->box.center.y, c->box.center.z, c->box.half_extents.x,
                 c->box.half_extents.y, c->box.half_extents.z, c->cap_a.x, c->cap_a.y, c->cap_a.z,
                 c->cap_b.x, c->cap_b.y, c->cap_b.z, c->cap_radius, c->normal.x, c->normal.y,
                 c->normal.z, c->offset, c->velocity.x, c->velocity.y, c->velocity.z,
                 c->restitution, c->friction};
    float rot[9];
    memcpy(rot, c->box.rotation.raw, sizeof rot);
    if (!all_finite(f, sizeof f / sizeof f[0]) || !all_finite(rot, 9))
        { fail(r, "a collider holds a number that is not finite"); return; }
    int hull = get_count(r, 12, 1 << 24);
    if (c->type == KYU_SHAPE_HULL && hull < 4) { fail(r, "a hull has fewer than 4 points"); return; }
    c->hull_points = get_array(r, hull, 12);
    c->hull_count = c->hull_points ? hull : 0;
    if (c->hull_points && !all_finite((const float *)c->hull_points, (size_t)hull * 3))
        { fail(r, "a hull point is not finite"); return; }
    int nv = get_count(r, 12, 1 << 26), nt = get_count(r, 12, 1 << 26);
    if (r->bad || (c->type == KYU_SHAPE_MESH) != (nt > 0)) { fail(r, "a mesh's size is wrong"); return; }
    if (nt == 0) return;
    vec3s *verts = get_array(r, nv, 12);
    int32_t *tris = get_array(r, nt * 3, 4);
    int ok = verts && tris && all_finite((const float *)verts, (size_t)nv * 3);
    for (int k = 0; ok && k < nt * 3; k++) ok = tris[k] >= 0 && tris[k] < nv;
    if (!ok) fail(r, "a mesh has a bad vertex or index");
    else if (!(c->mesh = kyu_mesh_create(verts, nv, tris, nt))) fail(r, "out of memory");
    free(verts);
    free(tris);
}

static void get_colliders(reader *r, kyu_world *w) {
    int high = get_count(r, 5, w->def.max_colliders);
    w->collider_count = get_i32(r);
    int nfree = get_count(r, 4, high);
    if (r->bad) return;
    if (high > 0) {
        w->colliders = calloc((size_t)high, sizeof *w->colliders);
        w->free_colliders = calloc((size_t)high, sizeof *w->free_colliders);
        if (!w->colliders || !w->free_colliders) { fail(r, "out of memory"); return; }
        w->collider_cap = high;
    }
    GET_SLOTS(r, w->free_colliders, nfree);
    w->free_collider_count = nfree;
    int live = 0;
    for (int i = 0; i < high && !r->bad; i++) {
        get_collider(r, &w->colliders[i]);
        w->collider_high = i + 1; // what is built so far is freed by kyu_world_destroy
        live += w->colliders[i].alive;
    }
    if (!r->bad && live != w->collider_count) fail(r, "the live collider count does not match");
    for (int k = 0; k < nfree && !r->bad; k++)
        if (w->free_colliders[k] < 0 || w->free_colliders[k] >= high || w->colliders[w->free_colliders[k]].alive)
            fail(r, "a free collider slot is out of range or in use");
}

static void get_islands(reader *r, kyu_world *w) {
    int high = get_count(r, 12, 1 << 30);
    w->free_island = get_i32(r);
    if (r->bad) return;
    if (high > 0) {
        w->islands = calloc((size_t)high, sizeof *w->islands);
        if (!w->islands) { fail(r, "out of memory"); return; }
        w->island_cap = w->island_high = high;
    }
    if (w->free_island < -1 || w->free_island >= high) { fail(r, "the free island list is broken"); return; }
    for (int i = 0; i < high && !r->bad; i++) {
        sleep_island *isl = &w->islands[i];
        isl->next_free = get_i32(r);
        if (isl->next_free < -1 || isl->next_free >= high) { fail(r, "the free island list is broken"); return; }
        isl->body_count = get_count(r, 4, 1 << 30);
        isl->bodies = get_array(r, isl->body_count, 4);
        isl->body_cap = isl->bodies ? isl->body_count : 0;
        for (int k = 0; k < isl->body_count && !r->bad; k++)
            if (isl->bodies[k] >= (uint32_t)w->bodies.high) fail(r, "an island names a body that does not exist");
        isl->contacts = get_contacts(r, w, &isl->contact_count);
        isl->contact_cap = isl->contact_count;
    }
}

static void get_sleep(reader *r, kyu_world *w) {
    sleep_grid *g = &w->sleep;
    g->cell = get_f32(r); g->inv_cell = get_f32(r);
    g->table_size = get_count(r, 8, 1 << 30);
    g->cells = get_i32(r);
    if (r->bad) return;
    if (g->table_size & (g->table_size - 1)) { fail(r, "the sleep grid's table size is not a power of two"); return; }
    if (g->table_size && (!isfinite(g->cell) || !(g->cell > 0.0f) || !isfinite(g->inv_cell)))
        { fail(r, "the sleep grid's cell is not a positive number"); return; }
    g->key = get_array(r, g->table_size, 4);
    g->head = get_array(r, g->table_size, 4);
    g->count = get_count(r, sizeof *g->entries, 1 << 30);
    g->live = get_i32(r);
    g->entries = get_array(r, g->count, sizeof *g->entries);
    g->entry_cap = g->entries ? g->count : 0;
    g->giant_count = get_count(r, sizeof *g->giants, 1 << 30);
    g->giants = get_array(r, g->giant_count, sizeof *g->giants);
    g->giant_cap = g->giants ? g->giant_count : 0;
    if (r->bad) return;
    for (int s = 0; s < g->table_size; s++)
        if (g->head[s] != UINT32_MAX && g->head[s] >= (uint32_t)g->count) { fail(r, "the sleep grid is broken"); return; }
    for (int e = 0; e < g->count; e++)
        if (g->entries[e].body >= (uint32_t)w->bodies.high || (g->entries[e].next != UINT32_MAX && g->entries[e].next >= (uint32_t)e))
            { fail(r, "the sleep grid is broken"); return; } // a chain runs to older entries: no cycles
    for (int e = 0; e < g->giant_count; e++)
        if (g->giants[e].body >= (uint32_t)w->bodies.high) { fail(r, "the sleep grid is broken"); return; }
    if (g->count > 0 && g->table_size == 0) fail(r, "the sleep grid is broken");
}

static void get_events(reader *r, kyu_world *w) {
    w->woken = get_contacts(r, w, &w->woken_count);
    w->woken_cap = w->woken_count;
    w->woken_bodies_count = get_count(r, 4, 1 << 30);
    w->woken_bodies = get_array(r, w->woken_bodies_count, 4);
    w->woken_bodies_cap = w->woken_bodies ? w->woken_bodies_count : 0;
    for (int k = 0; k < w->woken_bodies_count && !r->bad; k++)
        if (w->woken_bodies[k] >= (uint32_t)w->bodies.high) fail(r, "a woken body does not exist");
    int n = get_count(r, 25, 1 << 30);
    if (r->bad || n == 0) return;
    w->pending_end = calloc((size_t)n, sizeof *w->pending_end);
    if (!w->pending_end) { fail(r, "out of memory"); return; }
    w->pending_end_cap = w->pending_end_count = n;
    for (int i = 0; i < n; i++) {
        kyu_contact_event *e = &w->pending_end[i];
        e->body.index1 = get_u32(r); e->body.generation = get_u32(r);
        e->other.index1 = get_u32(r); e->other.generation = get_u32(r);
        e->collider.index1 = get_u32(r); e->collider.generation = get_u32(r);
        e->sensor = get_u8(r) != 0;
    }
}

// The handles in the pending end events name the world they were saved in: make them the loader's.
static void adopt_handles(kyu_world *w) {
    for (int i = 0; i < w->pending_end_count; i++) {
        kyu_contact_event *e = &w->pending_end[i];
        if (e->body.index1) e->body.world = w->id;
        if (e->other.index1) e->other.world = w->id;
        if (e->collider.index1) e->collider.world = w->id;
    }
}

static int contacts_reserve(kyu_world *w) {
    int n = w->contact_count > 0 ? w->contact_count : 1;
    return RESERVE(w->contacts_new, w->contact_new_cap, n);
}

// Builds the saved world as a new world (one worker, no threads) with `into`'s threading.
static kyu_world *build(reader *r, const kyu_world *into) {
    kyu_world_def d = kyu_world_def_default();
    get_def(r, &d);
    if (r->bad) return NULL;
    if (kyu_world_def_check(&d) != KYU_OK) {
        fail(r, "the saved world settings are out of range");
        return NULL;
    }
    d.body_capacity = 1;
    kyu_world *w;
    if (kyu_world_create(&d, &w) != KYU_OK) {
        fail(r, "out of memory");
        return NULL;
    }
    w->def.body_capacity = into->def.body_capacity;
    take(r, &w->accumulator, 8);
    w->alpha = get_f32(r);
    if (!isfinite(w->accumulator) || !(w->alpha >= 0.0f && w->alpha < 1.0f)) fail(r, "the accumulator is out of range");
    get_bodies(r, w);
    get_colliders(r, w);
    w->contacts = get_contacts(r, w, &w->contact_count);
    w->contact_cap = w->contact_count;
    check_cache_order(r, w);
    get_islands(r, w);
    check_bodies(r, w);
    get_sleep(r, w);
    get_events(r, w);
    if (!r->bad && r->at != r->n) fail(r, "the file has bytes after the last section");
    if (!r->bad && contacts_reserve(w)) fail(r, "out of memory");
    if (r->bad) {
        kyu_world_destroy(w);
        return NULL;
    }
    return w;
}

// Moves the loaded world's contents into `into`, which keeps its id, threads and error text.
static void adopt(kyu_world *into, kyu_world *loaded) {
    kyu_world old = *into;
    *into = *loaded;
    into->id = old.id;
    into->pool = old.pool;
    into->worker_scratch = old.worker_scratch;
    into->worker_scratch_cap = old.worker_scratch_cap;
    into->def.worker_count = old.def.worker_count;
    into->def.enqueue_task = old.def.enqueue_task;
    into->def.finish_task = old.def.finish_task;
    into->def.user_task_context = old.def.user_task_context;
    memcpy(into->error, old.error, sizeof into->error);
    adopt_handles(into);
    // What is left of the old world goes out through `loaded` (with the new world's one-worker scratch).
    kyu_world rest = old;
    rest.pool = NULL;
    rest.worker_scratch = loaded->worker_scratch;
    rest.worker_scratch_cap = loaded->worker_scratch_cap;
    rest.def.worker_count = 1;
    *loaded = rest;
    kyu_world_destroy(loaded);
}

kyu_status kyu_world_load_memory(kyu_world *w, const void *data, size_t size) {
    if (!w) return KYU_ERR_NULL;
    if (!data) return kyu_fail(w, KYU_ERR_NULL, "kyu_world_load_memory: data is NULL");
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_world_load during a step");
    const uint8_t *p = data;
    if (size < SNAP_HEADER || memcmp(p, SNAP_MAGIC, 8) != 0)
        return kyu_fail(w, KYU_ERR_BAD_SNAPSHOT, "not a kyu snapshot (no 'kyu-snap' header)");
    uint32_t version, order;
    uint64_t payload, sum;
    memcpy(&version, p + 8, 4);
    memcpy(&order, p + 12, 4);
    memcpy(&payload, p + 16, 8);
    memcpy(&sum, p + 24, 8);
    if (order != SNAP_ORDER) return kyu_fail(w, KYU_ERR_BAD_SNAPSHOT, "snapshot written with another byte order");
    if (version != SNAP_VERSION)
        return kyu_fail(w, KYU_ERR_BAD_SNAPSHOT, "snapshot format version %u, this kyu reads %u", version, SNAP_VERSION);
    if (payload != size - SNAP_HEADER)
        return kyu_fail(w, KYU_ERR_BAD_SNAPSHOT, "snapshot is %zu bytes, its header says %llu (truncated?)",
                        size, (unsigned long long)(payload + SNAP_HEADER));
    if (fnv1a(p + SNAP_HEADER, (size_t)payload) != sum)
        return kyu_fail(w, KYU_ERR_BAD_SNAPSHOT, "snapshot checksum mismatch (the file is corrupt)");
    reader r = {p + SNAP_HEADER, (size_t)payload, 0, NULL};
    kyu_world *loaded = build(&r, w);
    if (!loaded) {
        if (r.bad && strcmp(r.bad, "out of memory") == 0)
            return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "loading a snapshot");
        return kyu_fail(w, KYU_ERR_BAD_SNAPSHOT, "snapshot refused: %s", r.bad ? r.bad : "unknown");
    }
    adopt(w, loaded);
    kyu_query_invalidate(w);
    return KYU_OK;
}

kyu_status kyu_world_load(kyu_world *w, const char *path) {
    if (!w) return KYU_ERR_NULL;
    if (!path) return kyu_fail(w, KYU_ERR_NULL, "kyu_world_load: path is NULL");
    FILE *f = fopen(path, "rb");
    if (!f) return kyu_fail(w, KYU_ERR_IO, "cannot open snapshot '%s'", path);
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) { // read to the end: works for pipes too, no trust in a size the file system reports
        if (n == cap) {
            size_t grown = cap ? cap * 2 : 1 << 16;
            uint8_t *b = realloc(buf, grown);
            if (!b) {
                free(buf);
                fclose(f);
                return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "reading snapshot '%s'", path);
            }
            buf = b, cap = grown;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    int err = ferror(f);
    fclose(f);
    kyu_status st = err ? kyu_fail(w, KYU_ERR_IO, "cannot read snapshot '%s'", path) : kyu_world_load_memory(w, buf, n);
    free(buf);
    return st;
}
