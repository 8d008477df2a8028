// SPDX-License-Identifier: MIT
// Snapshots: the state a step reads and nothing it derives, written field by field (never raw
// structs, whose padding would make two saves of one state differ), behind a header with a format
// version and a checksum. Derived data (inverse masses, plane offsets, box frames, mesh trees, the
// sleep grid, island numbers) is rebuilt on load from what it derives from, never trusted from the
// file. Loading builds a complete new world first, checks every field as strictly as the public
// functions check their arguments (the same validators) and against every other field it must
// agree with, and swaps it in only when all passed: a bad file never leaves a world half loaded.
//
// Layout: "kyu-snap" | u32 version | u32 0x01020304 (byte order) | u64 payload size | u64 FNV-1a of
// the payload | payload. The payload is the sections below, in this order. Every number is
// little-endian whatever the host's byte order (store_le, load_le), so a file's bytes are the same
// from x86-64, ARM64 and wasm, and any of them loads what another wrote (CI saves on one and loads
// on the other: tests/tools/snapshots.sh). The byte-order word, written little-endian too, refuses
// a file that a kyu before this rule wrote on a big-endian host (in that host's order).
#include <float.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define SNAP_MAGIC "kyu-snap"
#define SNAP_VERSION                                                                                         \
    7u // 3: spin (angular velocity, orientation, rolling resistance); 4: slots in limbo;
       // 5: the forces and torques bodies hold for the next step; 6: the periodic box;
       // 7: the speed each body's rest began at
#define SNAP_ORDER  0x01020304u
#define SNAP_HEADER 32u

// Positions and velocities a loaded body may hold: the step can carry a body past what the API
// accepts (a body falling for hours), so a saved state may too; this bound keeps every product the
// step forms finite in float.
#define STATE_LIMIT 1e12f

// ---- writing: one pass that only counts, one that copies ----------------------------------------

typedef struct writer {
    uint8_t *p; // NULL while counting
    size_t n;
} writer;

static void store_le(uint8_t *p, uint64_t v, size_t bytes) {
    for (size_t i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t load_le(const uint8_t *p, size_t bytes) {
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

// len bytes of 4-byte numbers (int32, uint32, float, and vectors and arrays of them) from src.
static void put(writer *o, const void *src, size_t len) {
    KYU_ASSERT(len % 4 == 0);
    for (size_t k = 0; o->p && k < len; k += 4) {
        uint32_t v;
        memcpy(&v, (const uint8_t *)src + k, 4);
        store_le(o->p + o->n + k, v, 4);
    }
    o->n += len;
}
static void put_u32(writer *o, uint32_t v) { put(o, &v, 4); }
static void put_i32(writer *o, int32_t v) { put(o, &v, 4); }
static void put_f32(writer *o, float v) { put(o, &v, 4); }
static void put_u8(writer *o, uint8_t v) {
    if (o->p) o->p[o->n] = v;
    o->n += 1;
}
static void put_f64(writer *o, double v) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    if (o->p) store_le(o->p + o->n, bits, 8);
    o->n += 8;
}
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
    put_i32(o, d->pair_capacity_per_body);
    put_i32(o, d->contact_capacity_per_body);
    put_u8(o, d->enable_sleep);
    put_u8(o, d->enable_impact_events);
    put_f32(o, d->sleep_speed);
    put_f32(o, d->sleep_time);
    put_i32(o, (int32_t)d->friction_mix);
    put_i32(o, (int32_t)d->restitution_mix);
    put_f32(o, d->tangential_restitution);
    for (int k = 0; k < 3; k++) put_u8(o, d->periodic.axis[k]);
    put_vec(o, d->periodic.lower);
    put_vec(o, d->periodic.upper);
}

static void put_bodies(writer *o, const body_store *b) {
    put_i32(o, b->high);
    for (int i = 0; i < b->high; i++) {
        put_u8(o, b->alive[i]);
        put_u32(o, b->generation[i]);
        if (!b->alive[i]) continue;
        const body_kind *k = kyu_body_kind(b, (uint32_t)i);
        put_vec(o, b->pos[i]);
        put_vec(o, b->vel[i]);
        put_vec(o, b->prev[i]);
        put_f32(o, b->radius[i]);
        put_f32(o, b->mass[i]);
        put_f32(o, k->restitution);
        put_f32(o, k->friction);
        put_f32(o, k->linear_damping);
        put_f32(o, k->gravity_scale);
        put_u32(o, k->category);
        put_u32(o, k->mask);
        put_i32(o, k->group);
        put_u32(o, k->material);
        put_u8(o, k->sensor);
        put_u8(o, k->allow_sleep);
        put_u8(o, b->awake[i]);
        put_f32(o, b->sleep_timer[i]);
        put_f32(o, b->rest_speed[i]);
        put_vec(o, b->ang[i]);
        put(o, b->rot[i].raw, 16);
        put_f32(o, b->inv_inertia[i]);
        put_f32(o, k->rolling);
        put_f32(o, k->angular_damping);
    }
    put_f32(o, b->max_radius);
    put_i32(o, b->free_count); // the order of reuse is state: it decides the next body's slot
    put(o, b->free_slots, (size_t)b->free_count * sizeof *b->free_slots);
    put_i32(o, b->limbo_count); // removed since the last step: free once the next step begins
    put(o, b->limbo, (size_t)b->limbo_count * sizeof *b->limbo);
}

// The forces and torques bodies hold for the next step (kyu_body_apply_force), in slot order: the
// next step adds them, so a resumed run must too.
static void put_forces(writer *o, const body_store *b) {
    int n = 0;
    for (int i = 0; i < b->high && b->force_count > 0; i++)
        n += b->alive[i] && kyu_body_force_of(b, (uint32_t)i);
    put_i32(o, n);
    for (int i = 0; i < b->high && n > 0; i++) {
        const body_force *f = b->alive[i] ? kyu_body_force_of(b, (uint32_t)i) : NULL;
        if (!f) continue;
        put_u32(o, (uint32_t)i);
        put_vec(o, f->force);
        put_vec(o, f->torque);
    }
}

static void put_collider(writer *o, const collider *c) {
    put_u8(o, c->alive);
    put_u32(o, c->generation);
    if (!c->alive) return;
    put_i32(o, (int32_t)c->type);
    put_i32(o, (int32_t)c->motion);
    put_vec(o, c->box.center);
    put(o, c->rotation.raw, 16);
    put_vec(o, c->box.half_extents);
    put_vec(o, c->cap_a);
    put_vec(o, c->cap_b);
    put_f32(o, c->cap_radius);
    put_vec(o, c->normal);
    put_vec(o, c->velocity);
    put_f32(o, c->restitution);
    put_f32(o, c->friction);
    put_vec(o, c->angular_velocity);
    put_vec(o, c->surface_velocity);
    put_f32(o, c->rolling);
    put_u32(o, c->category);
    put_u32(o, c->mask);
    put_u32(o, c->material);
    put_i32(o, c->hull_count);
    put(o, c->hull_points, (size_t)c->hull_count * 12);
    put_i32(o, c->mesh ? c->mesh->vert_count : 0);
    put_i32(o, c->mesh ? c->mesh->tri_count : 0);
    if (c->mesh) {
        put(o, c->mesh->verts, (size_t)c->mesh->vert_count * 12);
        put(o, c->mesh->tris, (size_t)c->mesh->tri_count * 12);
    }
}

// What a contact carries from step to step. Its gap is found again from the positions on load, its
// sensor flag from its bodies; the solver's scratch (target, skip, mark) is set before it is read.
static void put_contacts(writer *o, const kyu_world *w, const contact *c, int n) {
    put_i32(o, n);
    for (int i = 0; i < n; i++, c++) {
        put_u32(o, c->a);
        put_u32(o, c->b);
        put_u32(o, kyu_body_named_generation(&w->bodies, c->a)); // checked on load
        put_u32(o, c->b & KYU_COLLIDER_BIT
                       ? kyu_collider_named_generation(&w->colliders, c->b & ~KYU_COLLIDER_BIT)
                       : kyu_body_named_generation(&w->bodies, c->b));
        put_vec(o, c->normal);
        put_f32(o, c->jn);
        put_vec(o, c->jt);
        put_vec(o, c->jr);
        put_u8(o, c->touching);
    }
}

// Whether record id holds a sleeping island (a freed record keeps its lists until it is reused).
static int island_in_use(const kyu_world *w, int id) {
    const sleep_island *isl = &w->islands.list[id];
    if (isl->body_count == 0) return 0;
    uint32_t b0 = isl->bodies[0];
    return w->bodies.alive[b0] && !w->bodies.awake[b0] && w->bodies.island[b0] == (uint32_t)id;
}

static void put_world(writer *o, const kyu_world *w) {
    put_def(o, &w->def);
    put_f64(o, w->accumulator);
    put_i32(o, w->contacts.removed);
    put_bodies(o, &w->bodies);
    put_forces(o, &w->bodies);
    put_i32(o, w->contacts.fresh_count); // created or moved since the last step: contacts still to find
    put(o, w->contacts.fresh, (size_t)w->contacts.fresh_count * 4);
    put_i32(o, w->colliders.high);
    for (int i = 0; i < w->colliders.high; i++) put_collider(o, &w->colliders.list[i]);
    put_i32(o, w->colliders.free_count);
    put(o, w->colliders.free_slots, (size_t)w->colliders.free_count * 4);
    put_i32(o, w->colliders.limbo_count);
    put(o, w->colliders.limbo, (size_t)w->colliders.limbo_count * 4);
    put_contacts(o, w, w->contacts.list, w->contacts.count);
    put_contacts(o, w, w->islands.woken, w->islands.woken_count);
    put_f32(o, w->islands.grid.cell);
    int islands = 0;
    for (int i = 0; i < w->islands.high; i++) islands += island_in_use(w, i);
    put_i32(o, islands);
    for (int i = 0; i < w->islands.high; i++) {
        if (!island_in_use(w, i)) continue;
        const sleep_island *isl = &w->islands.list[i];
        put_i32(o, isl->body_count);
        put(o, isl->bodies, (size_t)isl->body_count * 4);
        put_contacts(o, w, isl->contacts, isl->contact_count);
    }
}

static uint64_t fnv1a(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

kyu_status kyu_world_save_memory(const kyu_world *w, void *buffer, size_t capacity, size_t *size) {
    if (!w) return KYU_ERR_NULL;
    if (!size) return kyu_fail(w, KYU_ERR_NULL, "kyu_world_save_memory: size is NULL");
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_world_save_memory during a step");
    writer count = {NULL, 0};
    put_world(&count, w);
    *size = SNAP_HEADER + count.n;
    if (!buffer) return KYU_OK;
    if (capacity < *size)
        return kyu_fail(w, KYU_ERR_CAPACITY, "snapshot needs %zu bytes, buffer has %zu", *size, capacity);
    uint8_t *out = buffer;
    writer o = {out + SNAP_HEADER, 0};
    put_world(&o, w);
    memcpy(out, SNAP_MAGIC, 8);
    store_le(out + 8, SNAP_VERSION, 4);
    store_le(out + 12, SNAP_ORDER, 4);
    store_le(out + 16, o.n, 8);
    store_le(out + 24, fnv1a(out + SNAP_HEADER, o.n), 8);
    return KYU_OK;
}

kyu_status kyu_world_save(const kyu_world *w, const char *path) {
    if (!w) return KYU_ERR_NULL;
    if (!path) return kyu_fail(w, KYU_ERR_NULL, "kyu_world_save: path is NULL");
    size_t n = 0;
    kyu_status st = kyu_world_save_memory(w, NULL, 0, &n);
    if (st != KYU_OK) return st;
    uint8_t *buf = kyu_malloc(n);
    if (!buf) return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "snapshot of %zu bytes", n);
    st = kyu_world_save_memory(w, buf, n, &n);
    if (st == KYU_OK) {
        FILE *f = fopen(path, "wb");
        int ok = f && fwrite(buf, 1, n, f) == n;
        if (f && fclose(f) != 0) ok = 0;
        if (!ok) st = kyu_fail(w, KYU_ERR_IO, "cannot write snapshot '%s'", path);
    }
    kyu_free(buf);
    return st;
}

// ---- reading: every count is checked against the bytes left before anything is allocated -----

typedef struct reader {
    const uint8_t *p;
    size_t n, at;
    char why[200]; // the first problem found (then every read returns zeros)
    int bad, no_memory;
    kyu_world *w; // the world being built (its validators write their message there)
} reader;

static void fail(reader *r, const char *fmt, ...) KYU_PRINTF_LIKE(2, 3);
static void fail(reader *r, const char *fmt, ...) {
    if (r->bad) return;
    r->bad = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
}

static void out_of_memory(reader *r) {
    fail(r, "out of memory");
    r->no_memory = 1;
}

// Steps over the next len bytes: where they start, or NULL when the file ends before them.
static const uint8_t *advance(reader *r, size_t len) {
    if (r->bad || len > r->n - r->at) {
        fail(r, "the file ends early (truncated)");
        return NULL;
    }
    const uint8_t *p = r->p + r->at;
    r->at += len;
    return p;
}
// len bytes of 4-byte numbers into dst (as put wrote them), or zeros when the file ends early.
static int take(reader *r, void *dst, size_t len) {
    KYU_ASSERT(len % 4 == 0);
    const uint8_t *p = advance(r, len);
    if (!p) {
        if (dst && len) memset(dst, 0, len);
        return -1;
    }
    for (size_t k = 0; dst && k < len; k += 4) {
        uint32_t v = (uint32_t)load_le(p + k, 4);
        memcpy((uint8_t *)dst + k, &v, 4);
    }
    return 0;
}
static uint32_t get_u32(reader *r) {
    uint32_t v;
    take(r, &v, 4);
    return v;
}
static int32_t get_i32(reader *r) {
    int32_t v;
    take(r, &v, 4);
    return v;
}
static float get_f32(reader *r) {
    float v;
    take(r, &v, 4);
    return v;
}
static uint8_t get_u8(reader *r) {
    const uint8_t *p = advance(r, 1);
    return p ? *p : 0;
}
static double get_f64(reader *r) {
    const uint8_t *p = advance(r, 8);
    uint64_t bits = p ? load_le(p, 8) : 0;
    double v;
    memcpy(&v, &bits, 8);
    return v;
}
static vec3s get_vec(reader *r) {
    vec3s v;
    take(r, v.raw, 12);
    return v;
}

// A 0/1 flag.
static uint8_t get_flag(reader *r, const char *what, int index) {
    uint8_t v = get_u8(r);
    if (v > 1) fail(r, "%s %d: a flag is %u, not 0 or 1", what, index, v);
    return v;
}

// A count of items of at least `elem` bytes each that must fit in what is left of the file.
static int get_count(reader *r, size_t elem, int limit, const char *what) {
    int32_t n = get_i32(r);
    if (r->bad) return 0;
    if (n < 0 || n > limit || (size_t)n > (r->n - r->at) / (elem ? elem : 1)) {
        fail(r, "%s: count %d is negative, over %d, or larger than the file", what, n, limit);
        return 0;
    }
    return n;
}

// Reads n items of elem bytes into a new array (NULL for n = 0 or on failure).
static void *get_array(reader *r, int n, size_t elem) {
    if (r->bad || n <= 0) return NULL;
    void *a = kyu_malloc((size_t)n * elem);
    if (!a) {
        out_of_memory(r);
        return NULL;
    }
    if (take(r, a, (size_t)n * elem)) {
        kyu_free(a);
        return NULL;
    }
    return a;
}

// A validator of the world being built refused a value: its message names field and value.
static void refused(reader *r, kyu_status st, const char *what, int index) {
    if (st == KYU_OK) return;
    if (st == KYU_ERR_OUT_OF_MEMORY)
        out_of_memory(r);
    else
        fail(r, "%s %d: %s", what, index, kyu_world_last_error(r->w));
}

static int state_ok(vec3s v) { return kyu_bounded3(v, STATE_LIMIT); }

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
    d->pair_capacity_per_body = get_i32(r);
    d->contact_capacity_per_body = get_i32(r);
    d->enable_sleep = get_flag(r, "settings", 0);
    d->enable_impact_events = get_flag(r, "settings", 0);
    d->sleep_speed = get_f32(r);
    d->sleep_time = get_f32(r);
    d->friction_mix = (kyu_mix_rule)get_i32(r);
    d->restitution_mix = (kyu_mix_rule)get_i32(r);
    d->tangential_restitution = get_f32(r);
    for (int k = 0; k < 3; k++) d->periodic.axis[k] = get_flag(r, "periodic axis", 0);
    d->periodic.lower = get_vec(r);
    d->periodic.upper = get_vec(r);
}

// How many slots a world of at most `most` live bodies (or colliders) can have used: a slot removed
// is reused only after the next step has begun (the limbo), so between two steps a full world can
// remove every one and make as many anew in new slots.
static int slots_of(int most) { return most <= INT_MAX / 2 ? 2 * most : INT_MAX; }

// A list of dead body slots (the free list or the limbo), at most `most` long, each listed once:
// a listed slot is marked with awake = 2 (dead slots' flags are unused otherwise) until
// get_bodies clears the marks. Returns how many were read.
static int get_dead_slots(reader *r, body_store *b, int *out, int most, const char *what) {
    int n = get_count(r, 4, most, what);
    for (int k = 0; k < n && !r->bad; k++) {
        int32_t s = get_i32(r);
        if (s < 0 || s >= b->high || b->alive[s] || b->awake[s] == 2)
            fail(r, "%s %d is out of range, live, or listed twice", what, s);
        else
            out[k] = s, b->awake[s] = 2;
    }
    return r->bad ? 0 : n;
}

// Every live body through the checks of kyu_body_create (its position and velocity against the
// state's limit instead: see STATE_LIMIT), and what no def holds: flags, a sleeping body at rest.
static void get_bodies(reader *r, kyu_world *w) {
    body_store *b = &w->bodies;
    int high = get_count(r, 5, slots_of(w->def.max_bodies), "body slots");
    if (r->bad) return;
    if (kyu_bodies_reserve(w, high > 0 ? high : 1)) {
        out_of_memory(r);
        return;
    }
    for (int i = 0; i < high && !r->bad; i++) {
        b->high = i + 1;
        b->alive[i] = get_flag(r, "body", i);
        b->generation[i] = get_u32(r);
        b->sleep_epoch[i] = 0;
        b->user[i] = NULL;
        b->awake[i] = 0;
        if (!b->alive[i]) continue;
        if (b->generation[i] == 0) fail(r, "body %d: a live body has generation 0", i);
        kyu_body_def d = kyu_body_def_default();
        vec3s p = get_vec(r), v = get_vec(r), prev = get_vec(r);
        d.radius = get_f32(r);
        d.mass = get_f32(r);
        d.restitution = get_f32(r);
        d.friction = get_f32(r);
        d.linear_damping = get_f32(r);
        d.gravity_scale = get_f32(r);
        d.category_bits = get_u32(r);
        d.mask_bits = get_u32(r);
        d.group = get_i32(r);
        d.material = get_u32(r);
        d.is_sensor = get_flag(r, "body", i);
        d.allow_sleep = get_flag(r, "body", i);
        uint8_t awake = get_flag(r, "body", i);
        float timer = get_f32(r);
        float rest_speed = get_f32(r);
        vec3s av = get_vec(r);
        versors q;
        take(r, q.raw, 16);
        float ii = get_f32(r);
        d.rolling_resistance = get_f32(r);
        d.angular_damping = get_f32(r);
        if (r->bad) return;
        // The inverse inertia is saved as the step holds it (recomputing it from a scale would not
        // give its bits back), and must be one that some inertia_scale in range gives, and one that
        // kyu_body_create gives (0 only for fixed rotation, at most KYU_MAX_INV_INERTIA).
        double scale =
            ii > 0.0f ? 1.0 / ((double)ii * 0.4 * (double)d.mass * (double)d.radius * (double)d.radius) : 1.0;
        if (!(kyu_inv_inertia_ok(ii, d.radius) && scale > 0.0 && scale <= 1.000001e6)) {
            fail(r,
                 "body %d: inverse inertia %g is not 1 / (s 2/5 m r^2) for an inertia_scale s in (0, 1e6], "
                 "or not one kyu_body_create gives",
                 i, (double)ii);
            return;
        }
        if (!kyu_bounded3(av, STATE_LIMIT) || !(glms_vec3_norm(av) * d.radius <= STATE_LIMIT)) {
            fail(r, "body %d: angular velocity not finite or its surface speed beyond 1e12", i);
            return;
        }
        float q2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
        if (!(fabsf(q2 - 1.0f) <= 1e-5f)) {
            fail(r, "body %d: the rotation is not a unit quaternion", i);
            return;
        }
        if (ii == 0.0f && (av.x != 0.0f || av.y != 0.0f || av.z != 0.0f)) {
            fail(r, "body %d: a body of fixed rotation has an angular velocity", i);
            return;
        }
        if (!awake && (av.x != 0.0f || av.y != 0.0f || av.z != 0.0f)) {
            fail(r, "body %d: a sleeping body has an angular velocity", i);
            return;
        }
        if (!state_ok(p) || !state_ok(v) || !state_ok(prev)) {
            fail(r, "body %d: position, velocity or previous position is not finite or beyond 1e12", i);
            return;
        }
        vec3s in = kyu_periodic_wrap_point(&w->periodic, p);
        if (in.x != p.x || in.y != p.y || in.z != p.z) {
            fail(r, "body %d: position (%g, %g, %g) is outside the periodic box", i, (double)p.x, (double)p.y,
                 (double)p.z);
            return;
        }
        if (!(timer >= 0.0f && timer <= 1e30f)) {
            fail(r, "body %d: sleep timer %g", i, (double)timer);
            return;
        }
        if (!(rest_speed >= 0.0f && rest_speed <= STATE_LIMIT)) {
            fail(r, "body %d: rest speed %g", i, (double)rest_speed);
            return;
        }
        if (!awake && (v.x != 0.0f || v.y != 0.0f || v.z != 0.0f)) {
            fail(r, "body %d: a sleeping body has a velocity", i);
            return;
        }
        refused(r, kyu_body_def_validate(w, &d), "body", i);
        b->pos[i] = p, b->vel[i] = v, b->prev[i] = prev;
        b->radius[i] = d.radius, b->mass[i] = d.mass, b->inv_mass[i] = 1.0f / d.mass;
        body_kind kind = kyu_body_kind_of_def(&d);
        int k = kyu_bodies_kind_of(b, &kind);
        if (k < 0) {
            out_of_memory(r);
            return;
        }
        b->kind[i] = (uint32_t)k, b->awake[i] = awake;
        b->sleep_timer[i] = timer;
        b->rest_speed[i] = rest_speed;
        b->ang[i] = av, b->rot[i] = q, b->inv_inertia[i] = ii;
        b->count++;
    }
    b->max_radius = get_f32(r);
    for (int i = 0; i < high && !r->bad; i++)
        if (b->alive[i] && !(b->radius[i] <= b->max_radius))
            fail(r, "the largest radius %g is below body %d's %g", (double)b->max_radius, i,
                 (double)b->radius[i]);
    if (!r->bad && !(b->max_radius >= 0.0f && b->max_radius <= KYU_MAX_RADIUS))
        fail(r, "the largest radius %g is out of range", (double)b->max_radius);
    // The free list and the limbo hold every dead slot exactly once between them.
    b->free_count = get_dead_slots(r, b, b->free_slots, high, "free body slot");
    b->limbo_count =
        get_dead_slots(r, b, b->limbo, high - b->free_count, "body slot removed since the last step");
    if (r->bad) return;
    if (b->count > w->def.max_bodies)
        fail(r, "%d live bodies, over max_bodies %d", b->count, w->def.max_bodies);
    else if (b->free_count + b->limbo_count != high - b->count)
        fail(r, "the free body slots are not the %d dead slots", high - b->count);
    for (int k = 0; k < b->free_count; k++) b->awake[b->free_slots[k]] = 0;
    for (int k = 0; k < b->limbo_count; k++) b->awake[b->limbo[k]] = 0;
}

// The forces bodies hold, as kyu_body_apply_force leaves them: each on an awake body (the call woke
// it, and nothing puts a body to sleep before the step that clears it), listed once in slot order,
// finite, with an acceleration force / mass within gravity's bound; a torque only on a body that
// turns, with an angular acceleration within what separates two spins kyu accepts in one step.
// (The velocity and spin they give after a step are not checked again: the body's velocity may
// have been set since the call, within its own limit.)
static void get_forces(reader *r, kyu_world *w) {
    body_store *b = &w->bodies;
    int n = get_count(r, 28, b->high, "forces");
    for (int k = 0, last = -1; k < n && !r->bad; k++) {
        uint32_t i = get_u32(r);
        vec3s f = get_vec(r), t = get_vec(r);
        if (r->bad) return;
        if (i >= (uint32_t)b->high || !b->alive[i] || !b->awake[i] || (int)i <= last) {
            fail(r, "force %d: body %u is not an awake body after the last one listed", k, i);
            return;
        }
        last = (int)i;
        vec3s a = glms_vec3_scale(f, b->inv_mass[i]);
        if (!kyu_finite3(f) || !kyu_bounded3(a, KYU_MAX_COORD)) {
            fail(r, "force %d: body %u's force (%g, %g, %g) N is not finite, or force / mass beyond 1e9", k,
                 i, (double)f.x, (double)f.y, (double)f.z);
            return;
        }
        double t2 = 0.0; // in double: a heavy body's torque squared is beyond float
        for (int c = 0; c < 3; c++) t2 += (double)t.raw[c] * (double)t.raw[c];
        double spin_change =
            sqrt(t2) * (double)b->inv_inertia[i] * (double)w->def.fixed_dt * (double)b->radius[i];
        if (!kyu_finite3(t) || (b->inv_inertia[i] == 0.0f && t2 != 0.0) ||
            !(spin_change <= 2.0 * (double)KYU_MAX_COORD)) {
            fail(r,
                 "force %d: body %u's torque (%g, %g, %g) N m is not finite, on a body of fixed rotation, or "
                 "turns its surface faster than 2e9 m/s in a step",
                 k, i, (double)t.x, (double)t.y, (double)t.z);
            return;
        }
        body_force *e = kyu_bodies_force_entry(b, i);
        if (!e) {
            out_of_memory(r);
            return;
        }
        e->force = f, e->torque = t;
    }
}

// Every live collider through the checks of kyu_collider_create, built as create builds it (the
// box frame from its rotation, the mesh tree from its triangles, the plane's offset from its point).
static void get_collider(reader *r, kyu_world *w, int i) {
    collider *c = &w->colliders.list[i];
    memset(c, 0, sizeof *c);
    c->alive = get_flag(r, "collider", i);
    c->generation = get_u32(r);
    if (!c->alive || r->bad) return;
    if (c->generation == 0) {
        fail(r, "collider %d: a live collider has generation 0", i);
        return;
    }
    kyu_collider_def d = kyu_collider_def_default();
    d.type = (kyu_shape_type)get_i32(r);
    d.motion = (kyu_motion)get_i32(r);
    d.position = get_vec(r);
    take(r, d.rotation.raw, 16);
    d.half_extents = get_vec(r);
    d.capsule_a = get_vec(r);
    d.capsule_b = get_vec(r);
    d.radius = get_f32(r);
    d.normal = get_vec(r);
    d.velocity = get_vec(r);
    if (!r->bad && !(isfinite(d.rotation.x) && isfinite(d.rotation.y) && isfinite(d.rotation.z) &&
                     isfinite(d.rotation.w)))
        fail(r, "collider %d: the rotation is not finite", i);
    d.restitution = get_f32(r);
    d.friction = get_f32(r);
    d.angular_velocity = get_vec(r);
    d.surface_velocity = get_vec(r);
    d.rolling_resistance = get_f32(r);
    d.category_bits = get_u32(r);
    d.mask_bits = get_u32(r);
    d.material = get_u32(r);
    int hull = get_count(r, 12, 1 << 24, "hull points");
    vec3s *points = get_array(r, hull, 12);
    int nv = get_count(r, 12, 1 << 24, "mesh vertices"), nt = get_count(r, 12, 1 << 24, "mesh triangles");
    vec3s *verts = get_array(r, nv, 12);
    int32_t *tris = get_array(r, nt * 3, 4);
    if (!r->bad) {
        if (d.type == KYU_SHAPE_HULL) d.points = points, d.point_count = hull;
        if (d.type == KYU_SHAPE_MESH)
            d.points = verts, d.point_count = nv, d.indices = tris, d.triangle_count = nt;
        if ((d.type != KYU_SHAPE_HULL && hull) || (d.type != KYU_SHAPE_MESH && (nv || nt)))
            fail(r, "collider %d: points of a shape that has none", i);
        else
            refused(r, kyu_collider_def_validate(w, &d), "collider", i);
    }
    if (!r->bad && d.type == KYU_SHAPE_PLANE && fabsf(glms_vec3_norm2(d.normal) - 1.0f) > 1e-5f)
        fail(r, "collider %d: the plane normal is not of unit length", i);
    if (!r->bad && d.type == KYU_SHAPE_MESH && !(c->mesh = kyu_mesh_create(verts, nv, tris, nt)))
        out_of_memory(r);
    kyu_free(verts);
    kyu_free(tris);
    if (r->bad) {
        kyu_free(points);
        return;
    }
    c->type = d.type;
    c->motion = d.motion;
    c->velocity = d.velocity;
    if (d.motion != KYU_KINEMATIC && glms_vec3_norm2(d.velocity) != 0.0f)
        fail(r, "collider %d: a static collider has a velocity", i);
    c->restitution = d.restitution;
    c->friction = d.friction;
    c->angular_velocity = d.angular_velocity;
    c->surface_velocity = d.surface_velocity;
    c->rolling = d.rolling_resistance;
    c->category = d.category_bits;
    c->mask = d.mask_bits;
    c->material = d.material;
    c->box.half_extents = d.half_extents;
    c->cap_a = d.capsule_a, c->cap_b = d.capsule_b, c->cap_radius = d.radius;
    c->normal = d.normal;
    c->hull_points = points;
    c->hull_count = points ? hull : 0;
    kyu_collider_place(c, d.position, d.rotation);
}

// A list of dead collider slots (the free list or the limbo), as get_dead_slots for bodies; `listed`
// marks the slots already read.
static int get_dead_colliders(reader *r, const collider_store *cs, uint8_t *listed, int *out, int most,
                              const char *what) {
    int n = r->bad ? 0 : get_count(r, 4, most, what);
    for (int k = 0; k < n && !r->bad; k++) {
        int32_t s = get_i32(r);
        if (s < 0 || s >= cs->high || cs->list[s].alive || listed[s])
            fail(r, "%s %d is out of range, live, or listed twice", what, s);
        else
            out[k] = s, listed[s] = 1;
    }
    return r->bad ? 0 : n;
}

static void get_colliders(reader *r, kyu_world *w) {
    int high = get_count(r, 5, slots_of(w->def.max_colliders), "collider slots");
    if (!r->bad && high == 0 && get_count(r, 4, 0, "free collider slots") == 0 &&
        get_count(r, 4, 0, "collider slots removed since the last step") == 0)
        return; // none at all
    if (r->bad) return;
    w->colliders.list = kyu_calloc((size_t)high, sizeof *w->colliders.list);
    w->colliders.free_slots = kyu_calloc((size_t)high, sizeof *w->colliders.free_slots);
    w->colliders.limbo = kyu_calloc((size_t)high, sizeof *w->colliders.limbo);
    if (!w->colliders.list || !w->colliders.free_slots || !w->colliders.limbo) {
        out_of_memory(r);
        return;
    }
    w->colliders.cap = high;
    for (int i = 0; i < high && !r->bad; i++) {
        get_collider(r, w, i);
        w->colliders.high = i + 1; // what is built so far is freed by kyu_world_destroy
        w->colliders.count += w->colliders.list[i].alive;
    }
    uint8_t *listed = r->bad ? NULL : kyu_calloc((size_t)high, 1);
    if (!r->bad && !listed) {
        out_of_memory(r);
        return;
    }
    collider_store *cs = &w->colliders;
    cs->free_count = get_dead_colliders(r, cs, listed, cs->free_slots, high, "free collider slot");
    cs->limbo_count = get_dead_colliders(r, cs, listed, cs->limbo, high - cs->free_count,
                                         "collider slot removed since the last step");
    kyu_free(listed);
    if (!r->bad && w->colliders.count > w->def.max_colliders)
        fail(r, "%d live colliders, over max_colliders %d", w->colliders.count, w->def.max_colliders);
    else if (!r->bad && w->colliders.free_count + w->colliders.limbo_count != high - w->colliders.count)
        fail(r, "the free collider slots are not the %d dead slots", high - w->colliders.count);
}

// The side of a contact: a live body or collider with the generation the contact saw, or, while
// removals are pending (removed > 0) in the cache or woken list, a side removed since.
static int side_ok(const kyu_world *w, uint32_t x, uint32_t gen, int pending) {
    if (x & KYU_COLLIDER_BIT) {
        uint32_t k = x & ~KYU_COLLIDER_BIT;
        if (k >= (uint32_t)w->colliders.high) return 0;
        return (w->colliders.list[k].alive || pending) &&
               kyu_collider_named_generation(&w->colliders, k) == gen;
    }
    if (x >= (uint32_t)w->bodies.high) return 0;
    return (w->bodies.alive[x] || pending) && kyu_body_named_generation(&w->bodies, x) == gen;
}

// A removed side of a pending contact must be in limbo, not on the free list: a body created before
// the next step would take a free slot and inherit the contact.
static void check_dead_sides(reader *r, const kyu_world *w) {
    if (r->bad || w->contacts.removed == 0) return;
    uint8_t *body = kyu_calloc((size_t)w->bodies.high + 1, 1),
            *col = kyu_calloc((size_t)w->colliders.high + 1, 1);
    if (!body || !col) {
        kyu_free(body), kyu_free(col);
        out_of_memory(r);
        return;
    }
    for (int k = 0; k < w->bodies.limbo_count; k++) body[w->bodies.limbo[k]] = 1;
    for (int k = 0; k < w->colliders.limbo_count; k++) col[w->colliders.limbo[k]] = 1;
    for (int list = 0; list < 2 && !r->bad; list++) {
        const contact *cs = list ? w->islands.woken : w->contacts.list;
        int n = list ? w->islands.woken_count : w->contacts.count;
        for (int i = 0; i < n && !r->bad; i++) {
            uint32_t a = cs[i].a, b = cs[i].b, k = b & ~KYU_COLLIDER_BIT;
            int dead_free = (!w->bodies.alive[a] && !body[a]) ||
                            ((b & KYU_COLLIDER_BIT) ? !w->colliders.list[k].alive && !col[k]
                                                    : !w->bodies.alive[b] && !body[b]);
            if (dead_free)
                fail(r, "%s %d: names a removed slot that is free for reuse",
                     list ? "woken contact" : "contact", i);
        }
    }
    kyu_free(body), kyu_free(col);
}

// Whether |v| <= bound as the step's clamps leave it. The step takes a length in float, and a light
// body's impulses (mass 1e-20: 1e-21 N s) have squares below float's normal numbers, on the
// subnormal grid 1.4e-45 apart: its clamp can miss the bound by a few of those in the square (and
// one whose squares all round to 0 is not clamped at all). The square is taken here in double.
static int within(vec3s v, double bound) {
    double v2 = 0.0;
    for (int k = 0; k < 3; k++) v2 += (double)v.raw[k] * (double)v.raw[k];
    return v2 <= bound * bound + 1e-44;
}

// A list of contacts, each checked against the bodies and colliders it names: in range, the pair
// in key order, allowed to meet by the filters, a unit normal, impulses within the Coulomb cone.
// `island` >= 0: a sleeping island's, whose bodies must all be in it; -1: the cache or woken list,
// whose first bodies are awake.
static contact *get_contacts(reader *r, kyu_world *w, int *count, int island, const char *what) {
    int n = get_count(r, 57, 1 << 30, what);
    *count = 0;
    if (r->bad || n == 0) return NULL;
    contact *cs = kyu_calloc((size_t)n, sizeof *cs);
    if (!cs) {
        out_of_memory(r);
        return NULL;
    }
    int pending = island < 0 && w->contacts.removed > 0;
    const body_store *b = &w->bodies;
    for (int i = 0; i < n && !r->bad; i++) {
        contact *c = &cs[i];
        c->a = get_u32(r);
        c->b = get_u32(r);
        uint32_t ga = get_u32(r), gb = get_u32(r);
        c->normal = get_vec(r);
        c->jn = get_f32(r);
        c->jt = get_vec(r);
        c->jr = get_vec(r);
        c->touching = get_flag(r, what, i);
        if (r->bad) break;
        if ((c->a & KYU_COLLIDER_BIT) || !side_ok(w, c->a, ga, pending) || !side_ok(w, c->b, gb, pending)) {
            fail(r, "%s %d: names a body or collider that does not exist", what, i);
            break;
        }
        if (!(c->b & KYU_COLLIDER_BIT) && c->b <= c->a) {
            fail(r, "%s %d: the pair is out of order", what, i);
            break;
        }
        int live = kyu_contact_live(w, c);
        if (island >= 0 &&
            (!live || b->awake[c->a] || b->island[c->a] != (uint32_t)island ||
             (!(c->b & KYU_COLLIDER_BIT) && (b->awake[c->b] || b->island[c->b] != (uint32_t)island)))) {
            fail(r, "%s %d: names a body outside its island", what, i);
            break;
        }
        if (island < 0 && live && !b->awake[c->a]) {
            fail(r, "%s %d: a sleeping body's contact is awake", what, i);
            break;
        }
        if (!live) continue; // removed since the last step: dropped, unread, at the next step
        if (!kyu_pair_allowed(w, c->a, c->b)) {
            fail(r, "%s %d: the filters never let this pair meet", what, i);
            break;
        }
        c->sensor = (uint8_t)kyu_pair_is_sensor(w, c->a, c->b);
        float n2 = glms_vec3_norm2(c->normal), mu = kyu_contact_friction(w, c);
        // A normal impulse the warm start can give back: the velocity change it makes, jn (1/mA +
        // 1/mB), is a float. Not one within the speeds kyu accepts: a stack's weight on a light
        // body is far more (a 1 kg ball resting on a speck of 1e-20 kg: jn = 1.2e-3 N s, 1.2e17 m/s
        // for the speck, which the solve takes back at once; a 1e12 kg ball on a 1 kg one).
        double jn_max = (double)FLT_MAX * (double)kyu_contact_mass(w, c);
        if (!kyu_finite3(c->normal) || fabsf(n2 - 1.0f) > 1e-4f) {
            fail(r, "%s %d: the normal is not a unit vector", what, i);
            break;
        }
        if (!(c->jn >= 0.0f && (double)c->jn <= jn_max) || !kyu_finite3(c->jt) ||
            !within(c->jt, (double)mu * (double)c->jn * 1.0001)) {
            fail(r, "%s %d: impulses outside the friction cone or beyond range", what, i);
            break;
        }
        // Within the bounds of its two parts (as a whole: the normal has turned since they were
        // split, when the escape moved the bodies).
        float roll_max, twist_max;
        kyu_contact_spin_limits(w, c, &roll_max, &twist_max);
        if (!kyu_finite3(c->jr) ||
            !within(c->jr, sqrt((double)roll_max * (double)roll_max + (double)twist_max * (double)twist_max) *
                               1.001)) {
            fail(r,
                 "%s %d: the rolling or twisting resistance's impulse %g is beyond its bound %g, %g (jn %g)",
                 what, i, (double)glms_vec3_norm(c->jr), (double)roll_max, (double)twist_max, (double)c->jn);
            break;
        }
    }
    // A mesh's planes (one contact each) are a run of their pair's, numbered from 1 in the order
    // saved; then every gap, each plane's from its own plane.
    for (int i = 0, j; i < n && !r->bad; i = j) {
        for (j = i + 1; j < n && cs[j].a == cs[i].a && cs[j].b == cs[i].b; j++) {
        }
        if (j - i == 1) continue;
        const contact *c = &cs[i];
        int live = kyu_contact_live(w, c);
        if (j - i > KYU_MESH_PLANES ||
            (live && (!(c->b & KYU_COLLIDER_BIT) ||
                      w->colliders.list[c->b & ~KYU_COLLIDER_BIT].type != KYU_SHAPE_MESH))) {
            fail(r, "%s %d: the pair is in the list %d times (only a mesh's planes may be, up to %d)", what,
                 i, j - i, KYU_MESH_PLANES);
            break;
        }
        for (int k = i; k < j; k++) cs[k].plane = (uint8_t)(k - i + 1);
    }
    for (int i = 0; i < n && !r->bad; i++) {
        contact *c = &cs[i];
        if (!kyu_contact_live(w, c)) continue;
        vec3s normal = c->normal;
        c->gap = kyu_contact_gap(w, c, &normal);
    }
    *count = n;
    return cs;
}

static int by_pair(const contact *x, const contact *y) {
    return x->a < y->a || (x->a == y->a && x->b < y->b);
}

static void check_order(reader *r, const contact *cs, int n, const char *what) {
    for (int i = 1; i < n && !r->bad; i++)
        if (!kyu_contact_before(&cs[i - 1], &cs[i])) fail(r, "%s %d: the list is out of key order", what, i);
}

// The woken contacts join the cache at the next step: no pair may be in both, or twice. The list
// is kept in the order saved, the order of the wakes (island by island, not by key: the step sorts
// it when it merges it), so the loaded world saves it back as it was; a sorted copy is checked.
static void check_woken(reader *r, kyu_world *w) {
    int n = w->islands.woken_count;
    if (r->bad || n == 0) return;
    contact *sorted = kyu_malloc((size_t)n * sizeof *sorted);
    if (!sorted) {
        out_of_memory(r);
        return;
    }
    memcpy(sorted, w->islands.woken, (size_t)n * sizeof *sorted);
    kyu_contacts_sort(sorted, n);
    check_order(r, sorted, n, "woken contact");
    for (int i = 0, j = 0; i < n && !r->bad; i++) {
        while (j < w->contacts.count && by_pair(&w->contacts.list[j], &sorted[i])) j++;
        if (j < w->contacts.count && !by_pair(&sorted[i], &w->contacts.list[j]))
            fail(r, "woken contact %d: the pair is in the cache too", i);
    }
    kyu_free(sorted);
}

// Sleeping islands: each body asleep in exactly one, each sleeping body in one. Records are
// numbered in file order; the sleep grid is built from them.
static void get_islands(reader *r, kyu_world *w) {
    body_store *b = &w->bodies;
    float cell = get_f32(r);
    int n = get_count(r, 8, 1 << 30, "islands");
    if (r->bad) return;
    if (n > 0) {
        w->islands.list = kyu_calloc((size_t)n, sizeof *w->islands.list);
        if (!w->islands.list) {
            out_of_memory(r);
            return;
        }
        w->islands.cap = n;
    }
    for (int i = 0; i < b->high; i++) b->island[i] = UINT32_MAX;
    for (int id = 0; id < n && !r->bad; id++) {
        sleep_island *isl = &w->islands.list[id];
        isl->next_free = -1;
        w->islands.high = id + 1;
        isl->body_count = get_count(r, 4, 1 << 30, "island bodies");
        isl->bodies = get_array(r, isl->body_count, 4);
        isl->body_cap = isl->bodies ? isl->body_count : 0;
        if (!r->bad && isl->body_count == 0) {
            fail(r, "island %d is empty", id);
            return;
        }
        for (int k = 0; k < isl->body_count && !r->bad; k++) {
            uint32_t j = isl->bodies[k];
            if (j >= (uint32_t)b->high || !b->alive[j] || b->awake[j] || b->island[j] != UINT32_MAX) {
                fail(r, "island %d: body %u is not a sleeping body of no other island", id, j);
                return;
            }
            if (k > 0 && isl->bodies[k - 1] >= j) {
                fail(r, "island %d: its bodies are out of slot order", id);
                return;
            }
            b->island[j] = (uint32_t)id;
        }
        isl->contacts = get_contacts(r, w, &isl->contact_count, id, "island contact");
        isl->contact_cap = isl->contact_count;
        isl->max_overlap = 0.0f;
        for (int k = 0; k < isl->contact_count; k++)
            if (!isl->contacts[k].sensor && -isl->contacts[k].gap > isl->max_overlap)
                isl->max_overlap = -isl->contacts[k].gap;
        check_order(r, isl->contacts, isl->contact_count, "island contact");
    }
    if (r->bad) return;
    for (int i = 0; i < b->high; i++)
        if (b->alive[i] && !b->awake[i] && b->island[i] == UINT32_MAX) {
            fail(r, "body %d sleeps in no island", i);
            return;
        }
    // The cell is the world's with or without islands (0 until an island first sleeps): the next
    // island keeps it while any body sleeps, and a world saves it back as it was loaded.
    if (!((cell > 0.0f || (n == 0 && cell == 0.0f && !signbit(cell))) && cell <= 1e30f)) {
        fail(r, "the sleep grid's cell %g is not a positive number%s", (double)cell,
             n == 0 ? " or 0" : " (islands sleep in it)");
        return;
    }
    w->islands.grid.cell = cell;
    w->islands.grid.inv_cell = cell > 0.0f ? 1.0f / cell : 0.0f;
    if (n > 0 && kyu_islands_rebuild_grid(w)) out_of_memory(r);
}

// Builds the saved world as a new world (one worker, no threads) with `into`'s threading.
static kyu_world *build(reader *r, const kyu_world *into) {
    kyu_world_def d = kyu_world_def_default();
    get_def(r, &d);
    if (r->bad) return NULL;
    char why[200];
    if (kyu_world_def_check(&d, why, sizeof why) != KYU_OK) {
        fail(r, "world settings: %s", why);
        return NULL;
    }
    d.body_capacity = 1;
    kyu_world *w;
    if (kyu_world_create(&d, &w) != KYU_OK) {
        out_of_memory(r);
        return NULL;
    }
    r->w = w;
    w->def.body_capacity = into->def.body_capacity;
    w->accumulator = get_f64(r);
    if (!r->bad &&
        !(w->accumulator >= 0.0 && w->accumulator <= (double)d.max_steps_per_update * (double)d.fixed_dt))
        fail(r, "the accumulator %g is outside [0, max_steps_per_update * fixed_dt]", w->accumulator);
    w->alpha = kyu_alpha_of(w->accumulator, d.fixed_dt);
    w->contacts.removed = get_i32(r);
    if (!r->bad && w->contacts.removed < 0) fail(r, "the count of removals is negative");
    get_bodies(r, w);
    get_forces(r, w);
    int fresh = get_count(r, 4, 1 << 30, "new bodies");
    if (!r->bad && fresh > 0) {
        w->contacts.fresh = get_array(r, fresh, 4);
        w->contacts.fresh_count = w->contacts.fresh_cap = w->contacts.fresh ? fresh : 0;
        for (int k = 0; k < w->contacts.fresh_count && !r->bad; k++)
            if (w->contacts.fresh[k] >= (uint32_t)w->bodies.high)
                fail(r, "new body %u does not exist", w->contacts.fresh[k]);
    }
    get_colliders(r, w);
    if (!r->bad && w->contacts.removed != w->bodies.limbo_count + w->colliders.limbo_count)
        fail(r, "%d removals since the last step, but %d slots wait to be reused", w->contacts.removed,
             w->bodies.limbo_count + w->colliders.limbo_count);
    w->contacts.list = get_contacts(r, w, &w->contacts.count, -1, "contact");
    w->contacts.cap = w->contacts.count;
    check_order(r, w->contacts.list, w->contacts.count, "contact");
    w->islands.woken = get_contacts(r, w, &w->islands.woken_count, -1, "woken contact");
    w->islands.woken_cap = w->islands.woken_count;
    check_woken(r, w);
    check_dead_sides(r, w);
    get_islands(r, w);
    if (!r->bad && r->at != r->n) fail(r, "the file has bytes after the last section");
    if (!r->bad &&
        RESERVE(w->contacts.next, w->contacts.next_cap, w->contacts.count + w->islands.woken_count + 1))
        out_of_memory(r);
    if (r->bad) {
        kyu_world_destroy(w);
        return NULL;
    }
    return w;
}

// Moves the loaded world's contents into `into`, which keeps its id, threads and error text.
static void adopt(kyu_world *into, kyu_world *loaded) {
    kyu_world old = *into;
    char *loaded_error = loaded->error;
    *into = *loaded;
    into->id = old.id;
    into->pool = old.pool;
    into->step.worker_scratch = old.step.worker_scratch;
    into->step.worker_scratch_cap = old.step.worker_scratch_cap;
    into->def.worker_count = old.def.worker_count;
    into->def.yield_when_busy = old.def.yield_when_busy;
    into->def.enqueue_task = old.def.enqueue_task;
    into->def.finish_task = old.def.finish_task;
    into->def.user_task_context = old.def.user_task_context;
    into->def.friction_callback = old.def.friction_callback; // functions are not saved: the loader's stay
    into->def.restitution_callback = old.def.restitution_callback;
    into->def.mix_context = old.def.mix_context;
    into->impacts.tally_on = old.impacts.tally_on; // a setting of the world object, not of the state
    into->error = old.error;
    // What is left of the old world goes out through `loaded` (with the new world's one-worker scratch).
    kyu_world rest = old;
    rest.pool = NULL;
    rest.step.worker_scratch = loaded->step.worker_scratch;
    rest.step.worker_scratch_cap = loaded->step.worker_scratch_cap;
    rest.def.worker_count = 1;
    rest.error = loaded_error;
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
    uint32_t version = (uint32_t)load_le(p + 8, 4), order = (uint32_t)load_le(p + 12, 4);
    uint64_t payload = load_le(p + 16, 8), sum = load_le(p + 24, 8);
    if (order != SNAP_ORDER)
        return kyu_fail(w, KYU_ERR_BAD_SNAPSHOT, "snapshot written with another byte order");
    if (version != SNAP_VERSION)
        return kyu_fail(w, KYU_ERR_BAD_SNAPSHOT,
                        "snapshot format version %u, this kyu reads version %u only (save it again with the "
                        "kyu that wrote it)",
                        version, SNAP_VERSION);
    if (payload != size - SNAP_HEADER)
        return kyu_fail(w, KYU_ERR_BAD_SNAPSHOT, "snapshot is %zu bytes, its header says %llu (truncated?)",
                        size, (unsigned long long)(payload + SNAP_HEADER));
    if (fnv1a(p + SNAP_HEADER, (size_t)payload) != sum)
        return kyu_fail(w, KYU_ERR_BAD_SNAPSHOT, "snapshot checksum mismatch (the file is corrupt)");
    reader r;
    memset(&r, 0, sizeof r);
    r.p = p + SNAP_HEADER;
    r.n = (size_t)payload;
    kyu_world *loaded = build(&r, w);
    if (!loaded) {
        if (r.no_memory) return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "loading a snapshot");
        return kyu_fail(w, KYU_ERR_BAD_SNAPSHOT, "snapshot refused: %s", r.bad ? r.why : "unknown");
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
            uint8_t *b = kyu_realloc(buf, grown);
            if (!b) {
                kyu_free(buf);
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
    kyu_status st =
        err ? kyu_fail(w, KYU_ERR_IO, "cannot read snapshot '%s'", path) : kyu_world_load_memory(w, buf, n);
    kyu_free(buf);
    return st;
}
