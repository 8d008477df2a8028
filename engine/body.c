// SPDX-License-Identifier: MIT
// Particle storage (flat arrays by slot), handles with generations, slot reuse, and the body API.
#include <stdlib.h>
#include <string.h>

#include "internal.h"

// The second growth helper, on purpose: RESERVE (internal.h) keeps one capacity per array and grows
// it geometrically; the per-slot arrays here share the body store's one capacity, so each is set
// to exactly that size, and only once all succeeded does the capacity move.
static int grow(void **p, size_t elem, int n) {
    void *q = kyu_realloc(*p, (size_t)n * elem);
    if (!q) return -1;
    *p = q;
    return 0;
}
#define GROW(p, n) grow((void **)&(p), sizeof *(p), (n))

// Every per-slot array, body data and per-step scratch alike, grows together. On failure the
// arrays already grown keep their contents, so the world stays consistent.
int kyu_bodies_reserve(kyu_world *w, int slots) {
    body_store *b = &w->bodies;
    if (slots <= b->capacity) return 0;
    int n = b->capacity > 0 ? b->capacity : slots > 64 ? slots : 64; // the first reserve: as asked
    while (n < slots) n = n > (1 << 29) ? slots : n * 2;
    int failed = GROW(b->pos, n) || GROW(b->vel, n) || GROW(b->prev, n) || GROW(b->radius, n) ||
                 GROW(b->ang, n) || GROW(b->rot, n) || GROW(b->inv_inertia, n) || GROW(b->inv_mass, n) ||
                 GROW(b->mass, n) || GROW(b->kind, n) || GROW(b->user, n) || GROW(b->awake, n) ||
                 GROW(b->sleep_timer, n) || GROW(b->rest_speed, n) || GROW(b->island, n) ||
                 GROW(b->sleep_epoch, n) || GROW(w->step.active, n) || GROW(w->solver.slab, n) ||
                 GROW(w->solver.flags, n) || GROW(b->generation, n) || GROW(b->alive, n) ||
                 GROW(b->free_slots, n) || GROW(b->limbo, n) || GROW(w->pairs.adj_start, n + 1) ||
                 GROW(w->pairs.late_head, n) || GROW(w->contacts.run, n) || GROW(w->impacts.hits, n) ||
                 GROW(w->grid.stamp, n) || GROW(w->grid.multi_rec, n);
#ifdef KYU_VALIDATE
    failed = failed || GROW(w->step.check_marks, n + 1);
#endif
    size_t arena = (size_t)n * KYU_ARENA_PER_SLOT + KYU_ARENA_SLACK;
    unsigned char *base = failed ? NULL : kyu_realloc(w->step.arena.base, arena);
    if (base) {
        kyu_step_give_back_paths(&w->step); // they were in the old block
        w->step.arena.base = base, w->step.arena.cap = arena;
    } else
        failed = 1;
    if (failed) return -1;
    memset(b->generation + b->capacity, 0, (size_t)(n - b->capacity) * sizeof *b->generation);
    memset(b->alive + b->capacity, 0, (size_t)(n - b->capacity));
    memset(b->sleep_epoch + b->capacity, 0, (size_t)(n - b->capacity) * sizeof *b->sleep_epoch);
    memset(w->grid.stamp + b->capacity, 0, (size_t)(n - b->capacity) * sizeof *w->grid.stamp);
    memset(w->grid.multi_rec + b->capacity, 0xff, (size_t)(n - b->capacity) * sizeof *w->grid.multi_rec);
    b->capacity = n;
    return 0;
}

void kyu_bodies_free(body_store *b) {
    kyu_free(b->pos);
    kyu_free(b->vel);
    kyu_free(b->prev);
    kyu_free(b->ang);
    kyu_free(b->rot);
    kyu_free(b->inv_inertia);
    kyu_free(b->radius);
    kyu_free(b->inv_mass);
    kyu_free(b->mass);
    kyu_free(b->kind);
    kyu_free(b->kinds);
    kyu_free(b->kind_table);
    kyu_free(b->user);
    kyu_free(b->awake);
    kyu_free(b->sleep_timer);
    kyu_free(b->rest_speed);
    kyu_free(b->island);
    kyu_free(b->sleep_epoch);
    kyu_free(b->generation);
    kyu_free(b->alive);
    kyu_free(b->free_slots);
    kyu_free(b->limbo);
    kyu_free(b->forces);
    kyu_free(b->force_table);
    memset(b, 0, sizeof *b);
}

void kyu_bodies_release_limbo(body_store *s) {
    for (int k = 0; k < s->limbo_count; k++) s->free_slots[s->free_count++] = s->limbo[k];
    s->limbo_count = 0;
}

body_kind kyu_body_kind_of_def(const kyu_body_def *d) {
    body_kind k;
    memset(&k, 0, sizeof k);
    k.restitution = d->restitution, k.friction = d->friction, k.gravity_scale = d->gravity_scale;
    k.linear_damping = d->linear_damping, k.angular_damping = d->angular_damping;
    k.rolling = d->rolling_resistance;
    k.category = d->category_bits, k.mask = d->mask_bits, k.material = d->material, k.group = d->group;
    k.sensor = d->is_sensor ? 1 : 0, k.allow_sleep = d->allow_sleep ? 1 : 0;
    return k;
}

// A kind's fields as bits (floats too: 0 and -0 are different kinds, as they may mix differently).
static int kind_bits(const body_kind *k, uint32_t out[11]) {
    float f[6] = {k->restitution,    k->friction,        k->gravity_scale,
                  k->linear_damping, k->angular_damping, k->rolling};
    memcpy(out, f, sizeof f);
    out[6] = k->category, out[7] = k->mask, out[8] = k->material, out[9] = (uint32_t)k->group;
    out[10] = (uint32_t)k->sensor | (uint32_t)k->allow_sleep << 1;
    return 11;
}

static uint32_t kind_hash(const body_kind *k) {
    uint32_t bits[11], h = 2166136261u; // FNV-1a over the words
    for (int i = 0, n = kind_bits(k, bits); i < n; i++) h = (h ^ bits[i]) * 16777619u;
    return h;
}

static int same_kind(const body_kind *x, const body_kind *y) {
    uint32_t a[11], b[11];
    kind_bits(x, a), kind_bits(y, b);
    return memcmp(a, b, sizeof a) == 0;
}

// The table slot of kind k: its own, or the empty one where it would go.
static uint32_t *kind_slot(const body_store *s, const body_kind *k) {
    uint32_t mask = (uint32_t)s->kind_table_size - 1;
    for (uint32_t h = kind_hash(k) & mask;; h = (h + 1) & mask)
        if (s->kind_table[h] == 0 || same_kind(&s->kinds[s->kind_table[h] - 1], k)) return &s->kind_table[h];
}

int kyu_bodies_kind_of(body_store *s, const body_kind *k) {
    if (s->kind_table_size > 0) {
        uint32_t found = *kind_slot(s, k);
        if (found != 0) return (int)found - 1;
    }
    if (RESERVE(s->kinds, s->kind_cap, s->kind_count + 1)) return -1;
    if (2 * (s->kind_count + 1) > s->kind_table_size) { // at most half full: rebuilt twice as large
        int size = s->kind_table_size > 0 ? 2 * s->kind_table_size : 16;
        uint32_t *table = kyu_calloc((size_t)size, sizeof *table);
        if (!table) return -1;
        kyu_free(s->kind_table);
        s->kind_table = table, s->kind_table_size = size;
        for (int i = 0; i < s->kind_count; i++) *kind_slot(s, &s->kinds[i]) = (uint32_t)i + 1;
    }
    s->kinds[s->kind_count] = *k;
    *kind_slot(s, k) = (uint32_t)++s->kind_count;
    return s->kind_count - 1;
}

// The table slot of body i's force: its own, or the empty one where it would go.
static uint32_t *force_slot(const body_store *s, uint32_t i) {
    uint32_t mask = (uint32_t)s->force_table_size - 1;
    for (uint32_t h = (i * 2654435761u) & mask;; h = (h + 1) & mask)
        if (s->force_table[h] == 0 || s->forces[s->force_table[h] - 1].slot == i) return &s->force_table[h];
}

// Room for one more entry (the list and a table at most half full); nothing a caller can see changes.
static int force_reserve(body_store *s) {
    if (RESERVE(s->forces, s->force_cap, s->force_count + 1)) return -1;
    if (2 * (s->force_count + 1) <= s->force_table_size) return 0;
    int size = s->force_table_size > 0 ? 2 * s->force_table_size : 16; // rebuilt twice as large
    uint32_t *table = kyu_calloc((size_t)size, sizeof *table);
    if (!table) return -1;
    kyu_free(s->force_table);
    s->force_table = table, s->force_table_size = size;
    for (int k = 0; k < s->force_count; k++) *force_slot(s, s->forces[k].slot) = (uint32_t)k + 1;
    return 0;
}

body_force *kyu_bodies_force_entry(body_store *s, uint32_t i) {
    body_force *f = kyu_body_force_of(s, i);
    if (f) return f;
    if (force_reserve(s)) return NULL;
    f = &s->forces[s->force_count];
    memset(f, 0, sizeof *f);
    f->slot = i;
    *force_slot(s, i) = (uint32_t)++s->force_count;
    return f;
}

void kyu_bodies_clear_forces(body_store *s) {
    if (s->force_count == 0) return;
    s->force_count = 0;
    memset(s->force_table, 0, (size_t)s->force_table_size * sizeof *s->force_table);
}

// Looks up a handle for a function, or returns its error from the calling function.
#define BODY_SLOT(w, id, slot)                                                                               \
    kyu_status st_ = KYU_OK;                                                                                 \
    if (!(w)) return KYU_ERR_NULL;                                                                           \
    int slot = kyu_body_slot((w), (id), &st_);                                                               \
    if (slot < 0)                                                                                            \
        return kyu_fail((w), st_, "body handle {index1 %u, generation %u, world %u}", (id).index1,           \
                        (id).generation, (id).world);

kyu_body_def kyu_body_def_default(void) {
    kyu_body_def d;
    memset(&d, 0, sizeof d);
    d.radius = 0.5f;
    d.mass = 1.0f;
    d.restitution = 0.0f;
    d.friction = 0.5f;
    d.linear_damping = 0.0f;
    d.rotation = glms_quat_identity();
    d.inertia_scale = 1.0f;
    d.gravity_scale = 1.0f;
    d.category_bits = 1u;
    d.mask_bits = 0xffffffffu;
    d.group = 0;
    d.is_sensor = false;
    d.allow_sleep = true;
    d.internal_cookie = KYU_DEF_COOKIE;
    return d;
}

// Float resolves a position to 2^-24 of its size, so a contact can be found to within a fraction of
// a radius only while the body's distance from the origin and its travel in one step stay within
// KYU_REACH radii (measured: balls against a 2 cm box and a 2-triangle mesh held to 2^22 radii;
// the limit keeps a factor 4). Beyond it kyu refuses the position or velocity instead of letting
// the body pass through walls.
static float abs_max(vec3s v) { return kyu_maxf(fabsf(v.x), kyu_maxf(fabsf(v.y), fabsf(v.z))); }

kyu_status kyu_body_check_position(kyu_world *w, vec3s p, float r) {
    if (!kyu_bounded3(p, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "position (%g, %g, %g) must be finite, each |x| <= 1e9",
                        (double)p.x, (double)p.y, (double)p.z);
    if (abs_max(p) > KYU_REACH * r)
        return kyu_fail(
            w, KYU_ERR_INVALID_ARGUMENT,
            "position %g m from the origin is over 2^20 radii (radius %g m): float positions there are "
            "%g m apart, too coarse to resolve the body's contacts (keep the scene near the origin)",
            (double)abs_max(p), (double)r, (double)(abs_max(p) * 0x1p-24f));
    return KYU_OK;
}

kyu_status kyu_body_check_velocity(kyu_world *w, vec3s v, float r, const char *what) {
    if (!kyu_bounded3(v, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "%s (%g, %g, %g) must be finite, each |v| <= 1e9", what,
                        (double)v.x, (double)v.y, (double)v.z);
    float travel = glms_vec3_norm(v) * w->def.fixed_dt;
    if (travel > KYU_REACH * r)
        return kyu_fail(
            w, KYU_ERR_INVALID_ARGUMENT,
            "%s: speed %g m/s carries the body %g m in one step, over 2^20 radii (radius %g m): its "
            "contacts cannot be resolved in float (use a smaller fixed_dt)",
            what, (double)glms_vec3_norm(v), (double)travel, (double)r);
    return KYU_OK;
}

// A body of radius r may live in a periodic world: its radius and contact margin stay under a quarter
// of every period (then the nearest image of any pair that can touch is unique: engine/periodic.h).
// The margin grows with the rest speed, which gravity sets: kyu_world_set_gravity asks again.
kyu_status kyu_body_check_periodic_radius(kyu_world *w, float r, float rest_speed) {
    const periodic_state *ps = &w->periodic;
    if (!ps->mask) return KYU_OK;
    // The body's contact margin as kyu_body_margin gives it (internal.h), from the radius alone.
    float m = w->def.contact_margin > 0.0f ? w->def.contact_margin : KYU_MARGIN_RATIO * r;
    m = kyu_maxf(m, kyu_minf(rest_speed, KYU_SPECULATIVE_RATIO * r / w->def.fixed_dt) * w->def.fixed_dt);
    for (int k = 0; k < 3; k++)
        if ((ps->mask >> k & 1) && !(r + m < 0.25f * ps->len[k]))
            return kyu_fail(w, KYU_ERR_RADIUS,
                            "radius %g with its contact margin %g must stay under a quarter of the periodic "
                            "length %g along %c (periodic.upper.%c - periodic.lower.%c): a pair must not "
                            "touch through two images at once",
                            (double)r, (double)m, (double)ps->len[k], "xyz"[k], "xyz"[k], "xyz"[k]);
    return KYU_OK;
}

kyu_status kyu_body_def_validate(kyu_world *w, const kyu_body_def *d) {
    if (d->internal_cookie != KYU_DEF_COOKIE)
        return kyu_fail(w, KYU_ERR_INVALID_DEF, "start from kyu_body_def_default()");
    if (!(d->radius > 0.0f && d->radius <= KYU_MAX_RADIUS))
        return kyu_fail(w, KYU_ERR_RADIUS, "radius %g (allowed: (0, 1e6])", (double)d->radius);
    kyu_status st = kyu_body_check_periodic_radius(w, d->radius, w->rest_speed);
    if (st == KYU_OK) st = kyu_body_check_position(w, d->position, d->radius);
    if (st == KYU_OK) st = kyu_body_check_velocity(w, d->velocity, d->radius, "velocity");
    if (st != KYU_OK) return st;
    if (!(d->mass >= KYU_MIN_MASS && d->mass <= KYU_MAX_MASS))
        return kyu_fail(w, KYU_ERR_MASS, "mass %g (allowed: [1e-20, 1e20])", (double)d->mass);
    if (!(d->restitution >= 0.0f && d->restitution <= 1.0f))
        return kyu_fail(w, KYU_ERR_RESTITUTION, "restitution %g", (double)d->restitution);
    if (!(d->friction >= 0.0f && d->friction <= 1e6f))
        return kyu_fail(w, KYU_ERR_FRICTION, "friction %g", (double)d->friction);
    if (!(d->linear_damping >= 0.0f && d->linear_damping <= 1e6f))
        return kyu_fail(w, KYU_ERR_DAMPING, "linear_damping %g", (double)d->linear_damping);
    if (!(fabsf(d->gravity_scale) <= 1e6f))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "gravity_scale %g", (double)d->gravity_scale);
    if (!(d->angular_damping >= 0.0f && d->angular_damping <= 1e6f))
        return kyu_fail(w, KYU_ERR_DAMPING, "angular_damping %g (allowed: [0, 1e6])",
                        (double)d->angular_damping);
    if (!(d->inertia_scale > 0.0f && d->inertia_scale <= 1e6f))
        return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT,
                        "inertia_scale %g (allowed: (0, 1e6]; 1 is a solid sphere)",
                        (double)d->inertia_scale);
    if (!(d->rolling_resistance >= 0.0f && d->rolling_resistance <= 1e6f))
        return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "rolling_resistance %g (allowed: [0, 1e6])",
                        (double)d->rolling_resistance);
    kyu_status rs = kyu_body_check_rotation(w, d->rotation);
    if (rs != KYU_OK) return rs;
    if (d->fixed_rotation &&
        !(d->angular_velocity.x == 0.0f && d->angular_velocity.y == 0.0f && d->angular_velocity.z == 0.0f))
        return kyu_fail(
            w, KYU_ERR_INVALID_ARGUMENT,
            "angular_velocity (%g, %g, %g) on a fixed_rotation body (it never turns: must be zero)",
            (double)d->angular_velocity.x, (double)d->angular_velocity.y, (double)d->angular_velocity.z);
    return kyu_body_check_angular_velocity(w, d->angular_velocity, d->radius, "angular_velocity");
}

// Angular velocity: finite, and the spin's surface speed |w| r within the same bound as a velocity
// (it enters every friction impulse as a velocity). A sphere's shape does not turn with it, so no
// reach limit applies.
kyu_status kyu_body_check_angular_velocity(kyu_world *w, vec3s av, float r, const char *what) {
    if (!kyu_bounded3(av, KYU_MAX_COORD) || !(glms_vec3_norm(av) * r <= KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "%s (%g, %g, %g) rad/s must be finite, |w| r <= 1e9 m/s", what,
                        (double)av.x, (double)av.y, (double)av.z);
    return KYU_OK;
}

// A rotation quaternion: finite and not zero (it is normalised).
kyu_status kyu_body_check_rotation(kyu_world *w, versors q) {
    float n2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if (!(isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w)) || !(n2 <= 1e30f))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "rotation (%g, %g, %g, %g) must be finite", (double)q.x,
                        (double)q.y, (double)q.z, (double)q.w);
    if (!(n2 > 1e-12f))
        return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT,
                        "rotation (%g, %g, %g, %g) is zero (identity is (0, 0, 0, 1))", (double)q.x,
                        (double)q.y, (double)q.z, (double)q.w);
    return KYU_OK;
}

// 1 / (inertia_scale 2/5 m r^2), or 0 for a body of fixed rotation. Infinite, or imprecise, for a
// def check_inertia refuses.
float kyu_body_inv_inertia(float mass, float radius, float inertia_scale, bool fixed_rotation) {
    if (fixed_rotation) return 0.0f;
    return 1.0f / (inertia_scale * 0.4f * mass * radius * radius);
}

// A body that turns needs its moment of inertia I, its inverse and its angular momentum at the
// fastest spin accepted, all as floats of full precision. Each of radius, mass and inertia_scale is
// in range alone, but their product can underflow (the inverse is then infinite, and 0 instead
// would mark fixed rotation while the body spins), pass through float's subnormal numbers and lose
// its digits, or be so large that I |w| overflows in the spin solve: such a def is refused, naming
// the three. The float product is the one bodies have always been given (it is in every state
// hash); it is checked against the exact one, which it meets within a few ulps whenever every
// factor and partial product is a normal float.
static kyu_status check_inertia(kyu_world *w, const kyu_body_def *d, float ii) {
    if (d->fixed_rotation) return KYU_OK; // it never turns: any inertia will do
    double inertia = (double)d->inertia_scale * 0.4 * (double)d->mass * (double)d->radius * (double)d->radius;
    if (ii != 0.0f && kyu_inv_inertia_ok(ii, d->radius) && fabs((double)ii * inertia - 1.0) <= 0x1p-20)
        return KYU_OK;
    return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT,
                    "radius %g, mass %g, inertia_scale %g: the moment of inertia inertia_scale 2/5 m r^2 = "
                    "%g kg m^2 is out of what float can turn: it must be at least 1e-37 (each partial "
                    "product above 1.2e-38), and its angular momentum at the fastest spin accepted (1e9 "
                    "rad/s, or 1e9 m/s at the surface) at most 1e37; change them, or set fixed_rotation",
                    (double)d->radius, (double)d->mass, (double)d->inertia_scale, inertia);
}

kyu_status kyu_body_create(kyu_world *w, const kyu_body_def *d, kyu_body_id *out) {
    if (out) *out = KYU_NULL_BODY;
    if (!w || !d) return w ? kyu_fail(w, KYU_ERR_NULL, "body def is NULL") : KYU_ERR_NULL;
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_body_create during a step");
    kyu_status st = kyu_body_def_validate(w, d);
    float ii = kyu_body_inv_inertia(d->mass, d->radius, d->inertia_scale, d->fixed_rotation);
    if (st == KYU_OK) st = check_inertia(w, d, ii);
    if (st != KYU_OK) return st;
    body_store *b = &w->bodies;
    if (b->count >= w->def.max_bodies)
        return kyu_fail(w, KYU_ERR_CAPACITY, "max_bodies = %d", w->def.max_bodies);
    if (RESERVE(w->contacts.fresh, w->contacts.fresh_cap, w->contacts.fresh_count + 1))
        return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "growing the list of new bodies");
    body_kind kind = kyu_body_kind_of_def(d);
    int k = kyu_bodies_kind_of(b, &kind); // a kind no body ends up with is harmless: nothing reads it
    if (k < 0) return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "the table of body kinds");
    int slot;
    if (b->free_count > 0) {
        slot = b->free_slots[--b->free_count];
    } else {
        if (kyu_bodies_reserve(w, b->high + 1))
            return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "growing body storage");
        slot = b->high++;
        b->generation[slot] = 0;
    }
    b->pos[slot] = kyu_periodic_wrap_point(&w->periodic, d->position); // inside the periodic box
    b->prev[slot] = b->pos[slot];
    b->vel[slot] = d->velocity;
    b->radius[slot] = d->radius;
    if (d->radius > b->max_radius) b->max_radius = d->radius;
    b->mass[slot] = d->mass;
    b->inv_mass[slot] = 1.0f / d->mass;
    b->ang[slot] = d->angular_velocity;
    b->rot[slot] = kyu_quat_unit(d->rotation);
    b->inv_inertia[slot] = ii;
    b->kind[slot] = (uint32_t)k;
    b->user[slot] = d->user_data;
    b->awake[slot] = 1;
    b->sleep_timer[slot] = 0.0f;
    b->rest_speed[slot] = 0.0f;
    b->generation[slot] = b->generation[slot] + 1;
    if (b->generation[slot] == 0) b->generation[slot] = 1; // 0 never names a live body
    b->alive[slot] = 1;
    b->count++;
    w->contacts.fresh[w->contacts.fresh_count++] =
        (uint32_t)slot; // its contacts are found before the next step moves it
    if (out) *out = (kyu_body_id){(uint32_t)slot + 1, w->id, b->generation[slot]};
    kyu_query_invalidate(w);
    return KYU_OK;
}

kyu_status kyu_body_destroy(kyu_world *w, kyu_body_id id) {
    BODY_SLOT(w, id, slot);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_body_destroy during a step");
    // Its island wakes: what rested on it must fall (and its contacts return to the cache, where
    // the next step drops them and reports their end). Room first, so a failure changes nothing.
    if (kyu_islands_reserve_wake_of(w, (uint32_t)slot))
        return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "waking the removed body's island");
    (void)kyu_wake_body(w, (uint32_t)slot);
    (void)kyu_islands_flush_woken(w);
    body_store *b = &w->bodies;
    b->alive[slot] = 0;
    b->generation[slot] = b->generation[slot] + 1;
    b->limbo[b->limbo_count++] = slot; // free after the next step's start drops its contacts
    b->count--;
    w->contacts.removed++; // its contacts leave at the start of the next step (kyu_contacts_purge)
    kyu_query_invalidate(w);
    return KYU_OK;
}

bool kyu_body_is_valid(const kyu_world *w, kyu_body_id id) {
    kyu_status st;
    return w && kyu_body_slot(w, id, &st) >= 0;
}

kyu_status kyu_body_get_position(const kyu_world *w, kyu_body_id id, vec3s *out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "out is NULL");
    *out = w->bodies.pos[slot];
    return KYU_OK;
}

kyu_status kyu_body_set_position(kyu_world *w, kyu_body_id id, vec3s p) {
    BODY_SLOT(w, id, slot);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_body_set_position during a step");
    kyu_status st = kyu_body_check_position(w, p, w->bodies.radius[slot]);
    if (st != KYU_OK) return st;
    if (RESERVE(w->contacts.fresh, w->contacts.fresh_cap, w->contacts.fresh_count + 1) ||
        kyu_wake_body(w, (uint32_t)slot))
        return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "waking its island");
    w->bodies.pos[slot] = kyu_periodic_wrap_point(&w->periodic, p); // inside the periodic box
    w->bodies.prev[slot] = w->bodies.pos[slot];
    w->contacts.fresh[w->contacts.fresh_count++] = (uint32_t)slot;
    kyu_query_invalidate(w);
    return KYU_OK;
}

kyu_status kyu_body_get_velocity(const kyu_world *w, kyu_body_id id, vec3s *out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "out is NULL");
    *out = w->bodies.vel[slot];
    return KYU_OK;
}

kyu_status kyu_body_set_velocity(kyu_world *w, kyu_body_id id, vec3s v) {
    BODY_SLOT(w, id, slot);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_body_set_velocity during a step");
    kyu_status st = kyu_body_check_velocity(w, v, w->bodies.radius[slot], "velocity");
    if (st != KYU_OK) return st;
    if (kyu_wake_body(w, (uint32_t)slot)) return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "waking its island");
    w->bodies.vel[slot] = v;
    return KYU_OK;
}

kyu_status kyu_body_apply_impulse(kyu_world *w, kyu_body_id id, vec3s impulse) {
    BODY_SLOT(w, id, slot);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_body_apply_impulse during a step");
    if (!kyu_finite3(impulse))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "impulse (%g, %g, %g) must be finite", (double)impulse.x,
                        (double)impulse.y, (double)impulse.z);
    vec3s v = glms_vec3_add(w->bodies.vel[slot], glms_vec3_scale(impulse, w->bodies.inv_mass[slot]));
    kyu_status st = kyu_body_check_velocity(w, v, w->bodies.radius[slot], "the impulse gives a velocity");
    if (st != KYU_OK) return st;
    if (kyu_wake_body(w, (uint32_t)slot)) return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "waking its island");
    w->bodies.vel[slot] = v;
    return KYU_OK;
}

kyu_status kyu_body_get_interpolated_position(const kyu_world *w, kyu_body_id id, vec3s *out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "out is NULL");
    *out = glms_vec3_lerp(w->bodies.prev[slot], w->bodies.pos[slot], w->alpha);
    return KYU_OK;
}

kyu_status kyu_body_get_angular_velocity(const kyu_world *w, kyu_body_id id, vec3s *out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "out is NULL");
    *out = w->bodies.ang[slot];
    return KYU_OK;
}

// The angular velocity a body may take: checked, and zero only for a body of fixed rotation.
kyu_status kyu_body_check_spin(kyu_world *w, int slot, vec3s av, const char *what) {
    kyu_status st = kyu_body_check_angular_velocity(w, av, w->bodies.radius[slot], what);
    if (st != KYU_OK) return st;
    if (w->bodies.inv_inertia[slot] == 0.0f && !(av.x == 0.0f && av.y == 0.0f && av.z == 0.0f))
        return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT,
                        "%s (%g, %g, %g): the body has fixed rotation (it never turns)", what, (double)av.x,
                        (double)av.y, (double)av.z);
    return KYU_OK;
}

kyu_status kyu_body_set_angular_velocity(kyu_world *w, kyu_body_id id, vec3s av) {
    BODY_SLOT(w, id, slot);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_body_set_angular_velocity during a step");
    kyu_status st = kyu_body_check_spin(w, slot, av, "angular_velocity");
    if (st != KYU_OK) return st;
    if (kyu_wake_body(w, (uint32_t)slot)) return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "waking its island");
    w->bodies.ang[slot] = av;
    return KYU_OK;
}

kyu_status kyu_body_get_rotation(const kyu_world *w, kyu_body_id id, versors *out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "out is NULL");
    *out = w->bodies.rot[slot];
    return KYU_OK;
}

kyu_status kyu_body_set_rotation(kyu_world *w, kyu_body_id id, versors q) {
    BODY_SLOT(w, id, slot);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_body_set_rotation during a step");
    kyu_status st = kyu_body_check_rotation(w, q);
    if (st != KYU_OK) return st;
    w->bodies.rot[slot] = kyu_quat_unit(q); // the shape does not change: nothing to wake
    return KYU_OK;
}

versors kyu_body_interpolated_rotation(const kyu_world *w, uint32_t slot) {
    const body_store *s = &w->bodies;
    float back = (w->alpha - 1.0f) * w->def.fixed_dt; // from the end of the last step back to alpha
    return s->awake[slot] && w->alpha < 1.0f ? kyu_quat_turn(s->rot[slot], s->ang[slot], back) : s->rot[slot];
}

kyu_status kyu_body_get_interpolated_rotation(const kyu_world *w, kyu_body_id id, versors *out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "out is NULL");
    *out = kyu_body_interpolated_rotation(w, (uint32_t)slot);
    return KYU_OK;
}

kyu_status kyu_body_apply_impulse_at_point(kyu_world *w, kyu_body_id id, vec3s impulse, vec3s point) {
    BODY_SLOT(w, id, slot);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_body_apply_impulse_at_point during a step");
    if (!kyu_finite3(impulse))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "impulse (%g, %g, %g) must be finite", (double)impulse.x,
                        (double)impulse.y, (double)impulse.z);
    if (!kyu_finite3(point))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "point (%g, %g, %g) must be finite", (double)point.x,
                        (double)point.y, (double)point.z);
    body_store *s = &w->bodies;
    vec3s v = glms_vec3_add(s->vel[slot], glms_vec3_scale(impulse, s->inv_mass[slot]));
    vec3s arm = glms_vec3_sub(point, s->pos[slot]);
    vec3s av =
        glms_vec3_add(s->ang[slot], glms_vec3_scale(glms_vec3_cross(arm, impulse), s->inv_inertia[slot]));
    kyu_status st = kyu_body_check_velocity(w, v, s->radius[slot], "the impulse gives a velocity");
    if (st == KYU_OK) st = kyu_body_check_spin(w, slot, av, "the impulse gives an angular_velocity");
    if (st != KYU_OK) return st;
    if (kyu_wake_body(w, (uint32_t)slot)) return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "waking its island");
    s->vel[slot] = v;
    s->ang[slot] = av;
    return KYU_OK;
}

kyu_status kyu_body_apply_angular_impulse(kyu_world *w, kyu_body_id id, vec3s angular_impulse) {
    BODY_SLOT(w, id, slot);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_body_apply_angular_impulse during a step");
    if (!kyu_finite3(angular_impulse))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "angular impulse (%g, %g, %g) must be finite",
                        (double)angular_impulse.x, (double)angular_impulse.y, (double)angular_impulse.z);
    body_store *s = &w->bodies;
    vec3s av = glms_vec3_add(s->ang[slot], glms_vec3_scale(angular_impulse, s->inv_inertia[slot]));
    kyu_status st = kyu_body_check_spin(w, slot, av, "the angular impulse gives an angular_velocity");
    if (st != KYU_OK) return st;
    if (kyu_wake_body(w, (uint32_t)slot)) return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "waking its island");
    s->ang[slot] = av;
    return KYU_OK;
}

// ---- forces and torques: summed until the next step, which integrates them as it does gravity ----

// Adds force (N) and torque (N m) to what body `slot` holds for the next step, as one call. The
// sums are checked before anything changes: finite, an acceleration F / m within gravity's bound,
// and the velocity and spin one step of them alone gives within the limits of
// kyu_body_set_velocity and kyu_body_set_angular_velocity (beyond those a body could pass through
// walls). A body of fixed rotation holds no torque (it never turns). Then its island wakes.
static kyu_status push_force(kyu_world *w, int slot, vec3s force, vec3s torque, const char *what) {
    body_store *s = &w->bodies;
    const body_force *held = kyu_body_force_of(s, (uint32_t)slot);
    vec3s f = glms_vec3_add(held ? held->force : glms_vec3_zero(), force);
    vec3s t = held ? held->torque : glms_vec3_zero();
    int turns = s->inv_inertia[slot] > 0.0f;
    if (turns) t = glms_vec3_add(t, torque);
    float dt = w->def.fixed_dt, m = s->mass[slot];
    vec3s a = glms_vec3_scale(f, s->inv_mass[slot]);
    if (!kyu_finite3(f) || !kyu_bounded3(a, KYU_MAX_COORD))
        return kyu_fail(
            w, KYU_ERR_NOT_FINITE,
            "%s: the body's force would be (%g, %g, %g) N, on its %g kg an acceleration of (%g, "
            "%g, %g) m/s^2: each component of force / mass must be finite and <= 1e9, as gravity's",
            what, (double)f.x, (double)f.y, (double)f.z, (double)m, (double)a.x, (double)a.y, (double)a.z);
    kyu_status st = kyu_body_check_velocity(w, glms_vec3_add(s->vel[slot], glms_vec3_scale(a, dt)),
                                            s->radius[slot], "the force gives a velocity after one step");
    if (st != KYU_OK) return st;
    if (turns) {
        if (!kyu_finite3(t))
            return kyu_fail(w, KYU_ERR_NOT_FINITE,
                            "%s: the body's torque would be (%g, %g, %g) N m (must be finite)", what,
                            (double)t.x, (double)t.y, (double)t.z);
        vec3s spin = glms_vec3_add(s->ang[slot], glms_vec3_scale(t, s->inv_inertia[slot] * dt));
        st = kyu_body_check_spin(w, slot, spin, "the torque gives an angular_velocity after one step");
        if (st != KYU_OK) return st;
    }
    if ((!held && force_reserve(s)) || kyu_wake_body(w, (uint32_t)slot)) // room first: then nothing fails
        return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "%s: room for the force, or waking its island", what);
    body_force *e = kyu_bodies_force_entry(s, (uint32_t)slot);
    e->force = f, e->torque = t;
    return KYU_OK;
}

kyu_status kyu_body_apply_force(kyu_world *w, kyu_body_id id, vec3s force) {
    BODY_SLOT(w, id, slot);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_body_apply_force during a step");
    if (!kyu_finite3(force))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "force (%g, %g, %g) must be finite", (double)force.x,
                        (double)force.y, (double)force.z);
    return push_force(w, slot, force, glms_vec3_zero(), "kyu_body_apply_force");
}

kyu_status kyu_body_apply_force_at_point(kyu_world *w, kyu_body_id id, vec3s force, vec3s point) {
    BODY_SLOT(w, id, slot);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_body_apply_force_at_point during a step");
    if (!kyu_finite3(force))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "force (%g, %g, %g) must be finite", (double)force.x,
                        (double)force.y, (double)force.z);
    if (!kyu_bounded3(point, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "point (%g, %g, %g) must be finite, each |x| <= 1e9",
                        (double)point.x, (double)point.y, (double)point.z);
    vec3s torque = glms_vec3_cross(glms_vec3_sub(point, w->bodies.pos[slot]), force);
    return push_force(w, slot, force, torque, "kyu_body_apply_force_at_point");
}

kyu_status kyu_body_apply_torque(kyu_world *w, kyu_body_id id, vec3s torque) {
    BODY_SLOT(w, id, slot);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_body_apply_torque during a step");
    if (!kyu_finite3(torque))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "torque (%g, %g, %g) must be finite", (double)torque.x,
                        (double)torque.y, (double)torque.z);
    return push_force(w, slot, glms_vec3_zero(), torque, "kyu_body_apply_torque");
}

kyu_status kyu_body_get_force(const kyu_world *w, kyu_body_id id, vec3s *out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "out is NULL");
    const body_force *f = kyu_body_force_of(&w->bodies, (uint32_t)slot);
    *out = f ? f->force : glms_vec3_zero();
    return KYU_OK;
}

kyu_status kyu_body_get_torque(const kyu_world *w, kyu_body_id id, vec3s *out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "out is NULL");
    const body_force *f = kyu_body_force_of(&w->bodies, (uint32_t)slot);
    *out = f ? f->torque : glms_vec3_zero();
    return KYU_OK;
}

kyu_status kyu_body_get_inertia(const kyu_world *w, kyu_body_id id, float *out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "out is NULL");
    float ii = w->bodies.inv_inertia[slot];
    *out = ii > 0.0f ? 1.0f / ii : INFINITY;
    return KYU_OK;
}

kyu_status kyu_body_get_radius(const kyu_world *w, kyu_body_id id, float *out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "out is NULL");
    *out = w->bodies.radius[slot];
    return KYU_OK;
}

kyu_status kyu_body_get_mass(const kyu_world *w, kyu_body_id id, float *out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "out is NULL");
    *out = w->bodies.mass[slot];
    return KYU_OK;
}

kyu_status kyu_body_get_user_data(const kyu_world *w, kyu_body_id id, void **out) {
    BODY_SLOT(w, id, slot);
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "out is NULL");
    *out = w->bodies.user[slot];
    return KYU_OK;
}

bool kyu_body_is_awake(const kyu_world *w, kyu_body_id id) {
    kyu_status st;
    if (!w) return false;
    int slot = kyu_body_slot(w, id, &st);
    return slot >= 0 && w->bodies.awake[slot];
}

typedef struct touching_of {
    uint32_t slot;
    kyu_contact_event *out;
    int capacity, n;
    uint64_t last; // the pair of the last one listed: a mesh's planes come one after another
} touching_of;

static void push_touching(const kyu_world *w, const contact *c, void *ctx) {
    touching_of *x = ctx;
    int mine = c->a == x->slot || (!(c->b & KYU_COLLIDER_BIT) && c->b == x->slot);    // live: no slot reuse
    if (!c->touching || !mine || (x->n > 0 && kyu_contact_key(c) == x->last)) return; // a pair once
    if (x->n < x->capacity) x->out[x->n] = kyu_contact_event_of(w, c);
    x->n++;
    x->last = kyu_contact_key(c);
}

kyu_status kyu_body_get_contacts(const kyu_world *w, kyu_body_id id, kyu_contact_event *out, int capacity,
                                 int *total) {
    BODY_SLOT(w, id, slot);
    if (!total || capacity < 0 || (capacity > 0 && !out))
        return kyu_fail(w, KYU_ERR_NULL, "total is NULL, or out is NULL with capacity > 0");
    touching_of x = {(uint32_t)slot, out, capacity, 0, 0};
    kyu_contacts_each(w, push_touching, &x);
    *total = x.n;
    return KYU_OK;
}
