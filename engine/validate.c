// SPDX-License-Identifier: MIT
// The world's invariants, checked from scratch (Box2D's validators): for tests, and after every stage
// of a step in builds with KYU_VALIDATE. Each check says what it found in the message.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

typedef struct checker {
    char *msg;
    size_t cap;
    int bad;
} checker;

static int fail_at(checker *c, const char *fmt, ...) KYU_PRINTF_LIKE(2, 3);
static int fail_at(checker *c, const char *fmt, ...) {
    if (!c->bad && c->msg && c->cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->msg, c->cap, fmt, ap);
        va_end(ap);
    }
    c->bad = 1;
    return 1;
}

static int check_bodies(const kyu_world *w, checker *c) {
    const body_store *b = &w->bodies;
    int live = 0;
    for (int i = 0; i < b->high; i++) {
        if (!b->alive[i]) continue;
        live++;
        if (b->generation[i] == 0) return fail_at(c, "body %d: live with generation 0", i);
        if (!kyu_finite3(b->pos[i]) || !kyu_finite3(b->vel[i]) || !kyu_finite3(b->prev[i]))
            return fail_at(c, "body %d: position or velocity not finite", i);
        if (!kyu_finite3(b->ang[i]) || !kyu_inv_inertia_ok(b->inv_inertia[i], b->radius[i]))
            return fail_at(c, "body %d: angular velocity not finite or inverse inertia %g", i,
                           (double)b->inv_inertia[i]);
        if (b->inv_inertia[i] == 0.0f && (b->ang[i].x != 0.0f || b->ang[i].y != 0.0f || b->ang[i].z != 0.0f))
            return fail_at(c, "body %d: fixed rotation with an angular velocity", i);
        float q2 = glms_vec4_norm2((vec4s){{b->rot[i].x, b->rot[i].y, b->rot[i].z, b->rot[i].w}});
        if (!(fabsf(q2 - 1.0f) < 1e-5f))
            return fail_at(c, "body %d: rotation not unit (|q|^2 = %g)", i, (double)q2);
        if (!(b->radius[i] > 0.0f) || !(b->mass[i] > 0.0f) || b->inv_mass[i] != 1.0f / b->mass[i])
            return fail_at(c, "body %d: radius %g, mass %g, inverse mass %g", i, (double)b->radius[i],
                           (double)b->mass[i], (double)b->inv_mass[i]);
        if (b->awake[i] > 1) return fail_at(c, "body %d: awake flag %u", i, b->awake[i]);
        if (!b->awake[i]) {
            if (b->vel[i].x != 0.0f || b->vel[i].y != 0.0f || b->vel[i].z != 0.0f || b->ang[i].x != 0.0f ||
                b->ang[i].y != 0.0f || b->ang[i].z != 0.0f)
                return fail_at(c, "body %d: asleep with a velocity or an angular velocity", i);
            if (b->island[i] >= (uint32_t)w->islands.high)
                return fail_at(c, "body %d: asleep in no island", i);
            // that its island lists it: check_islands (once per body, not a walk of the island per body)
        }
    }
    if (live != b->count) return fail_at(c, "%d live bodies, count says %d", live, b->count);
    if (b->free_count + b->limbo_count != b->high - b->count)
        return fail_at(c, "%d free and %d removed slots for %d dead", b->free_count, b->limbo_count,
                       b->high - b->count);
    for (int k = 0; k < b->free_count; k++)
        if (b->free_slots[k] < 0 || b->free_slots[k] >= b->high || b->alive[b->free_slots[k]])
            return fail_at(c, "free slot %d is %d", k, b->free_slots[k]);
    for (int k = 0; k < b->limbo_count; k++)
        if (b->limbo[k] < 0 || b->limbo[k] >= b->high || b->alive[b->limbo[k]])
            return fail_at(c, "removed slot %d is %d", k, b->limbo[k]);
    if (w->contacts.removed != b->limbo_count + w->colliders.limbo_count)
        return fail_at(c, "%d removals, %d slots wait for reuse", w->contacts.removed,
                       b->limbo_count + w->colliders.limbo_count);
    // The forces held for the next step: one entry a slot, found by its table, finite; no torque on
    // a body that cannot turn (a removed body's entry waits, unread, for the step to clear it).
    for (int k = 0; k < b->force_count; k++) {
        const body_force *f = &b->forces[k];
        if (f->slot >= (uint32_t)b->high || kyu_body_force_of(b, f->slot) != f)
            return fail_at(c, "force %d: slot %u out of range, or not the one its table finds", k, f->slot);
        if (!kyu_finite3(f->force) || !kyu_finite3(f->torque))
            return fail_at(c, "force %d: body %u's force or torque is not finite", k, f->slot);
        if (b->alive[f->slot] && b->inv_inertia[f->slot] == 0.0f && glms_vec3_norm2(f->torque) != 0.0f)
            return fail_at(c, "force %d: body %u has fixed rotation and holds a torque", k, f->slot);
    }
    return 0;
}

static int check_colliders(const kyu_world *w, checker *c) {
    int live = 0;
    for (int i = 0; i < w->colliders.high; i++) {
        const collider *col = &w->colliders.list[i];
        if (!col->alive) continue;
        live++;
        if (col->generation == 0) return fail_at(c, "collider %d: live with generation 0", i);
        if ((col->type == KYU_SHAPE_MESH) != (col->mesh != NULL) ||
            (col->type == KYU_SHAPE_HULL) != (col->hull_points != NULL))
            return fail_at(c, "collider %d: shape data does not match its type", i);
        versors q = col->rotation; // every shape's, a plane's too: what create and load accept
        float q2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
        if (!(isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w)) ||
            !(q2 > 1e-12f && q2 <= 1e30f))
            return fail_at(c, "collider %d: rotation (%g, %g, %g, %g) not finite or zero", i, (double)q.x,
                           (double)q.y, (double)q.z, (double)q.w);
    }
    if (live != w->colliders.count)
        return fail_at(c, "%d live colliders, count says %d", live, w->colliders.count);
    if (w->colliders.free_count + w->colliders.limbo_count != w->colliders.high - w->colliders.count)
        return fail_at(c, "collider free list length");
    return 0;
}

// A contact list: sorted by key when `sorted`, every side live (or removed since the last step,
// when `pending`), first bodies awake or, for an island, both sides in it.
static int check_contacts(const kyu_world *w, checker *c, const contact *cs, int n, int sorted, int pending,
                          int island, const char *what) {
    const body_store *b = &w->bodies;
    for (int i = 0; i < n; i++) {
        const contact *t = &cs[i];
        if (t->a & KYU_COLLIDER_BIT) return fail_at(c, "%s %d: a collider as the first side", what, i);
        if (!(t->b & KYU_COLLIDER_BIT) && t->b <= t->a)
            return fail_at(c, "%s %d: pair out of order", what, i);
        if (sorted && i > 0 && !kyu_contact_before(&cs[i - 1], t))
            return fail_at(c, "%s %d: list out of key order", what, i);
        // A mesh's planes: numbered from 1 in a run of their pair, at most KYU_MESH_PLANES.
        int first = i == 0 || kyu_contact_key(&cs[i - 1]) != kyu_contact_key(t);
        int last = i + 1 == n || kyu_contact_key(&cs[i + 1]) != kyu_contact_key(t);
        if (t->plane > KYU_MESH_PLANES || (first && last && t->plane != 0) ||
            (!(first && last) && t->plane == 0) || (!first && t->plane != cs[i - 1].plane + 1) ||
            (first && t->plane > 1))
            return fail_at(c, "%s %d: plane %d of its pair out of place", what, i, t->plane);
        if (t->plane && kyu_contact_live(w, t) &&
            (!(t->b & KYU_COLLIDER_BIT) ||
             w->colliders.list[t->b & ~KYU_COLLIDER_BIT].type != KYU_SHAPE_MESH))
            return fail_at(c, "%s %d: a plane of a pair that is no mesh's", what, i);
        if (!kyu_contact_live(w, t)) {
            if (pending) continue;
            return fail_at(c, "%s %d: names a removed body or collider (%u, %u)", what, i, t->a, t->b);
        }
        if (!kyu_finite3(t->normal) || !isfinite(t->jn) || !kyu_finite3(t->jt))
            return fail_at(c, "%s %d: a number that is not finite", what, i);
        if (island < 0 && !b->awake[t->a]) return fail_at(c, "%s %d: its first body sleeps", what, i);
        if (island >= 0) {
            int out = b->awake[t->a] || b->island[t->a] != (uint32_t)island;
            if (!(t->b & KYU_COLLIDER_BIT)) out |= b->awake[t->b] || b->island[t->b] != (uint32_t)island;
            if (out) return fail_at(c, "%s %d: names a body outside island %d", what, i, island);
        }
    }
    return 0;
}

// The validator's per-body marks, all 0 (KYU_VALIDATE builds grow them with the bodies: a check
// never allocates, so it cannot fail or change what an allocation-failure test counts); NULL in
// other builds, whose checks then skip what needs them.
static uint8_t *marks(const kyu_world *w) {
    if (!w->step.check_marks) return NULL;
    memset(w->step.check_marks, 0, (size_t)w->bodies.high);
    return w->step.check_marks;
}

static int check_islands(const kyu_world *w, checker *c) {
    const body_store *b = &w->bodies;
    int asleep = 0;
    uint8_t *listed = marks(w); // which bodies an island lists (NULL: not checked)
    for (int id = 0; id < w->islands.high; id++) {
        const sleep_island *isl = &w->islands.list[id];
        if (isl->body_count == 0) continue;
        uint32_t b0 = isl->bodies[0];
        if (!b->alive[b0] || b->awake[b0] || b->island[b0] != (uint32_t)id) continue; // a freed record
        for (int k = 0; k < isl->body_count; k++) {
            uint32_t j = isl->bodies[k];
            if (j >= (uint32_t)b->high || !b->alive[j] || b->awake[j] || b->island[j] != (uint32_t)id)
                return fail_at(c, "island %d: body %u is not one of its sleepers", id, j);
            if (listed && listed[j]++) return fail_at(c, "island %d: body %u listed twice", id, j);
        }
        asleep += isl->body_count;
        char what[32];
        snprintf(what, sizeof what, "island %d contact", id);
        if (check_contacts(w, c, isl->contacts, isl->contact_count, 1, 0, id, what)) return 1;
    }
    for (int i = 0; i < b->high; i++) {
        if (!b->alive[i] || b->awake[i]) continue;
        int found = listed && listed[i];
        const sleep_island *isl = &w->islands.list[b->island[i]]; // in range: check_bodies
        for (int k = 0; k < isl->body_count && !listed && !found; k++)
            found = isl->bodies[k] == (uint32_t)i; // no marks: a walk
        if (!found) return fail_at(c, "body %d: asleep but not listed by its island %u", i, b->island[i]);
    }
    if (asleep != kyu_islands_body_count_asleep(w))
        return fail_at(c, "islands hold %d sleepers, %d bodies sleep", asleep,
                       kyu_islands_body_count_asleep(w));
    return 0;
}

// The bodies and colliders always; the contact lists and the sleeping islands when asked.
// On every periodic axis, every live body's position lies in [lower, upper).
static int check_inside(const kyu_world *w, checker *c) {
    const body_store *b = &w->bodies;
    if (!w->periodic.mask) return 0;
    for (int i = 0; i < b->high; i++) {
        if (!b->alive[i]) continue;
        vec3s in = kyu_periodic_wrap_point(&w->periodic, b->pos[i]);
        if (in.x != b->pos[i].x || in.y != b->pos[i].y || in.z != b->pos[i].z)
            return fail_at(c, "body %d: position (%g, %g, %g) outside the periodic box", i,
                           (double)b->pos[i].x, (double)b->pos[i].y, (double)b->pos[i].z);
    }
    return 0;
}

static int check_world(const kyu_world *w, checker *c, int checks) {
    if (check_bodies(w, c) || check_colliders(w, c)) return -1;
    if ((checks & KYU_CHECK_INSIDE) && check_inside(w, c)) return -1;
    int pending = w->contacts.removed > 0;
    if ((checks & KYU_CHECK_CONTACTS) &&
        (check_contacts(w, c, w->contacts.list, w->contacts.count, 1, pending, -1, "contact") ||
         check_contacts(w, c, w->islands.woken, w->islands.woken_count, 0, pending, -1, "woken contact")))
        return -1;
    if ((checks & KYU_CHECK_ISLANDS) && check_islands(w, c)) return -1;
    return 0;
}

int kyu_world_validate(const kyu_world *w, char *msg, size_t capacity) {
    checker c = {msg, capacity, 0};
    if (msg && capacity) msg[0] = '\0';
    return check_world(w, &c, KYU_CHECK_CONTACTS | KYU_CHECK_ISLANDS | KYU_CHECK_INSIDE) ? -1 : 0;
}

// Whether every awake body is on the active list once (KYU_CHECK_ACTIVE: until the islands stage,
// which puts some to sleep and leaves the list to the next step), and (KYU_CHECK_GRID: from the
// broadphase to the end of the impacts) in the grid, as an entry of its cell, a multi-cell body, a
// huge one or a late insert.
static int check_step(const kyu_world *w, checker *c, int checks) {
    const body_store *b = &w->bodies;
    uint8_t *seen = marks(w);
    if (!seen) return 0; // not a KYU_VALIDATE build: not checked
    int bad = 0;
    for (int k = 0; k < w->step.active_count && !bad && (checks & KYU_CHECK_ACTIVE); k++) {
        uint32_t i = w->step.active[k];
        if (i >= (uint32_t)b->high || !b->alive[i] || !b->awake[i])
            bad = fail_at(c, "active %d: body %u is not a live awake body", k, i);
        else if (seen[i]++)
            bad = fail_at(c, "active %d: body %u is on the list twice", k, i);
    }
    for (int i = 0; i < b->high && !bad && (checks & KYU_CHECK_ACTIVE); i++)
        if (b->alive[i] && b->awake[i] && !seen[i])
            bad = fail_at(c, "body %d: awake but not on the active list", i);
    if ((checks & KYU_CHECK_GRID) && !bad) {
        const grid *g = &w->grid;
        seen = marks(w);
        for (int k = 0; k < g->entry_count; k++)
            if (g->entries[k].body < (uint32_t)b->high) seen[g->entries[k].body] = 1;
        for (int k = 0; k < g->big_count; k++) seen[g->big[k]] = 1;
        for (int k = 0; k < g->huge_count; k++) seen[g->huge[k]] = 1;
        for (int k = 0; k < g->late_count; k++) seen[g->late[k].body] = 1; // late inserts (woken, re-aimed)
        for (int k = 0; k < w->step.active_count && !bad; k++)
            if (!seen[w->step.active[k]])
                bad = fail_at(c, "awake body %u is not in the grid", w->step.active[k]);
    }
    return bad;
}

int kyu_world_validate_step(const kyu_world *w, int checks, char *msg, size_t capacity) {
    checker c = {msg, capacity, 0};
    if (msg && capacity) msg[0] = '\0';
    return check_world(w, &c, checks) || check_step(w, &c, checks) ? -1 : 0;
}
