// SPDX-License-Identifier: MIT
// Static and kinematic colliders: storage, API, and their bounds and motion over a step. What a
// shape answers (distance, sweep, local bounds) is engine/shape.c's.
#include <stdlib.h>
#include <string.h>

#include "geometry/fquat.h"
#include "internal.h"

kyu_collider_def kyu_collider_def_default(void) {
    kyu_collider_def d;
    memset(&d, 0, sizeof d);
    d.type = KYU_SHAPE_PLANE;
    d.motion = KYU_STATIC;
    d.rotation = glms_quat_identity();
    d.half_extents = (vec3s){{0.5f, 0.5f, 0.5f}};
    d.normal = (vec3s){{0.0f, 1.0f, 0.0f}};
    d.restitution = 0.0f;
    d.friction = 0.5f;
    d.category_bits = 1u;
    d.mask_bits = 0xffffffffu;
    d.internal_cookie = KYU_DEF_COOKIE;
    return d;
}

#define COLLIDER_SLOT(w, id, slot)                                                                           \
    kyu_status st_ = KYU_OK;                                                                                 \
    if (!(w)) return KYU_ERR_NULL;                                                                           \
    int slot = kyu_collider_slot((w), (id), &st_);                                                           \
    if (slot < 0) return kyu_fail((w), st_, "collider handle {index1 %u}", (id).index1);

static kyu_status validate_rotation(kyu_world *w, versors q) {
    float n2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if (!(isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w)) || !(n2 <= 1e30f))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "rotation quaternion (%g, %g, %g, %g) must be finite",
                        (double)q.x, (double)q.y, (double)q.z, (double)q.w);
    if (!(n2 > 1e-12f)) return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "rotation quaternion is zero");
    return KYU_OK;
}

// Whether points span a volume: the largest tetrahedron on them (grown greedily: the farthest
// point, the farthest from that line, the farthest from that plane) is not flat, relative to size.
static int spans_volume(const vec3s *p, int n) {
    double a[3] = {(double)p[0].x, (double)p[0].y, (double)p[0].z}, best = 0.0;
    int i1 = 0;
    for (int i = 1; i < n; i++) {
        double d = 0.0;
        for (int k = 0; k < 3; k++) d += ((double)p[i].raw[k] - a[k]) * ((double)p[i].raw[k] - a[k]);
        if (d > best) best = d, i1 = i;
    }
    double size = sqrt(best), u[3], c[3] = {0.0, 0.0, 0.0}, area = 0.0;
    if (!(size > 0.0)) return 0;
    for (int k = 0; k < 3; k++) u[k] = (double)p[i1].raw[k] - a[k];
    for (int i = 1; i < n; i++) {
        double v[3] = {(double)p[i].raw[0] - a[0], (double)p[i].raw[1] - a[1], (double)p[i].raw[2] - a[2]};
        double x[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
        double m = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
        if (m > area) area = m, memcpy(c, x, sizeof c);
    }
    if (!(sqrt(area) > 1e-9 * size * size)) return 0;
    double vol = 0.0;
    for (int i = 1; i < n; i++) {
        double h = fabs(((double)p[i].raw[0] - a[0]) * c[0] + ((double)p[i].raw[1] - a[1]) * c[1] +
                        ((double)p[i].raw[2] - a[2]) * c[2]);
        if (h > vol) vol = h;
    }
    return vol > 1e-6 * size * size * size;
}

// A collider's turn and surface velocity: finite and bounded as velocities are; a static collider
// does not turn (a surface velocity is allowed: a conveyor belt stands still).
static kyu_status check_spin(kyu_world *w, kyu_motion motion, vec3s av, vec3s surface) {
    if (!kyu_bounded3(av, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE,
                        "collider angular_velocity (%g, %g, %g) must be finite, <= 1e9", (double)av.x,
                        (double)av.y, (double)av.z);
    if (!kyu_bounded3(surface, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE,
                        "collider surface_velocity (%g, %g, %g) must be finite, <= 1e9", (double)surface.x,
                        (double)surface.y, (double)surface.z);
    if (motion != KYU_KINEMATIC && glms_vec3_norm2(av) != 0.0f)
        return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT,
                        "collider angular_velocity (%g, %g, %g): only a kinematic collider turns",
                        (double)av.x, (double)av.y, (double)av.z);
    return KYU_OK;
}

kyu_status kyu_collider_def_validate(kyu_world *w, const kyu_collider_def *d) {
    if (d->internal_cookie != KYU_DEF_COOKIE)
        return kyu_fail(w, KYU_ERR_INVALID_DEF, "start from kyu_collider_def_default()");
    if (d->type < KYU_SHAPE_PLANE || d->type > KYU_SHAPE_MESH)
        return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "unknown shape type %d", (int)d->type);
    if (d->motion != KYU_STATIC && d->motion != KYU_KINEMATIC)
        return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "unknown motion %d", (int)d->motion);
    if (!kyu_bounded3(d->position, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE,
                        "collider position (%g, %g, %g) must be finite, each |x| <= 1e9",
                        (double)d->position.x, (double)d->position.y, (double)d->position.z);
    if (!kyu_bounded3(d->velocity, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE,
                        "collider velocity (%g, %g, %g) must be finite, each |v| <= 1e9",
                        (double)d->velocity.x, (double)d->velocity.y, (double)d->velocity.z);
    if (!(d->restitution >= 0.0f && d->restitution <= 1.0f))
        return kyu_fail(w, KYU_ERR_RESTITUTION, "collider restitution %g", (double)d->restitution);
    if (!(d->friction >= 0.0f && d->friction <= 1e6f))
        return kyu_fail(w, KYU_ERR_FRICTION, "collider friction %g", (double)d->friction);
    if (!(d->rolling_resistance >= 0.0f && d->rolling_resistance <= 1e6f))
        return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "collider rolling_resistance %g (allowed: [0, 1e6])",
                        (double)d->rolling_resistance);
    kyu_status sp = check_spin(w, d->motion, d->angular_velocity, d->surface_velocity);
    if (sp != KYU_OK) return sp;
    if (d->type == KYU_SHAPE_BOX) {
        vec3s e = d->half_extents;
        if (!kyu_bounded3(e, KYU_MAX_COORD))
            return kyu_fail(w, KYU_ERR_NOT_FINITE, "box half extents (%g, %g, %g) must be finite, <= 1e9",
                            (double)e.x, (double)e.y, (double)e.z);
        if (!(e.x > 0.0f && e.y > 0.0f && e.z > 0.0f))
            return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "box half extents (%g, %g, %g) must be > 0",
                            (double)e.x, (double)e.y, (double)e.z);
        return validate_rotation(w, d->rotation);
    }
    if (d->type == KYU_SHAPE_CAPSULE) {
        if (!kyu_bounded3(d->capsule_a, KYU_MAX_COORD) || !kyu_bounded3(d->capsule_b, KYU_MAX_COORD))
            return kyu_fail(w, KYU_ERR_NOT_FINITE,
                            "capsule ends (%g, %g, %g) and (%g, %g, %g) must be finite, each |x| <= 1e9",
                            (double)d->capsule_a.x, (double)d->capsule_a.y, (double)d->capsule_a.z,
                            (double)d->capsule_b.x, (double)d->capsule_b.y, (double)d->capsule_b.z);
        if (!(d->radius > 0.0f && d->radius <= KYU_MAX_RADIUS))
            return kyu_fail(w, KYU_ERR_RADIUS, "capsule radius %g", (double)d->radius);
        return validate_rotation(w, d->rotation);
    }
    if (d->type == KYU_SHAPE_HULL || d->type == KYU_SHAPE_MESH) {
        int min_points = d->type == KYU_SHAPE_HULL ? 4 : 3;
        if (!d->points) return kyu_fail(w, KYU_ERR_NULL, "points is NULL");
        if (d->point_count < min_points || d->point_count > (1 << 24))
            return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "point_count %d", d->point_count);
        for (int i = 0; i < d->point_count; i++)
            if (!kyu_bounded3(d->points[i], KYU_MAX_COORD))
                return kyu_fail(w, KYU_ERR_NOT_FINITE,
                                "points[%d] = (%g, %g, %g) must be finite, each |x| <= 1e9", i,
                                (double)d->points[i].x, (double)d->points[i].y, (double)d->points[i].z);
        if (d->type == KYU_SHAPE_HULL && !spans_volume(d->points, d->point_count))
            return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT,
                            "hull points are flat (coplanar or collinear): a hull needs volume");
        if (d->type == KYU_SHAPE_MESH) {
            if (!d->indices) return kyu_fail(w, KYU_ERR_NULL, "indices is NULL");
            if (d->triangle_count < 1 || d->triangle_count > (1 << 24))
                return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "triangle_count %d", d->triangle_count);
            for (int i = 0; i < 3 * d->triangle_count; i++)
                if (d->indices[i] < 0 || d->indices[i] >= d->point_count)
                    return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "indices[%d] = %d is not a vertex", i,
                                    d->indices[i]);
        }
        return validate_rotation(w, d->rotation);
    }
    if (!kyu_bounded3(d->normal, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE, "plane normal (%g, %g, %g) must be finite",
                        (double)d->normal.x, (double)d->normal.y, (double)d->normal.z);
    if (!(glms_vec3_norm2(d->normal) > 1e-12f))
        return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "plane normal (%g, %g, %g) must not be zero",
                        (double)d->normal.x, (double)d->normal.y, (double)d->normal.z);
    // A plane is its normal, but it keeps its rotation too (get_rotation, a kinematic plane turns
    // it, a snapshot saves it): checked as every other shape's.
    return validate_rotation(w, d->rotation);
}

void kyu_collider_place(collider *c, vec3s position, versors rotation) {
    c->rotation = rotation;
    if (c->type != KYU_SHAPE_PLANE) {
        c->box = kyu_box_make(position, rotation, c->box.half_extents);
    } else {
        c->box.center = position;
        c->offset = glms_vec3_dot(c->normal, position);
    }
}

kyu_status kyu_collider_create(kyu_world *w, const kyu_collider_def *d, kyu_collider_id *out) {
    if (out) *out = KYU_NULL_COLLIDER;
    if (!w || !d) return w ? kyu_fail(w, KYU_ERR_NULL, "collider def is NULL") : KYU_ERR_NULL;
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_collider_create during a step");
    kyu_status st = kyu_collider_def_validate(w, d);
    if (st != KYU_OK) return st;
    if (w->colliders.count >= w->def.max_colliders)
        return kyu_fail(w, KYU_ERR_CAPACITY, "max_colliders = %d", w->def.max_colliders);
    // Everything that can fail comes first (room, shape data, waking what it lands on); the slot is
    // taken only after, so a failed create leaves the world as it was.
    if (w->colliders.free_count == 0) {
        int cap = w->colliders.cap, cap2 = w->colliders.cap, cap3 = w->colliders.cap;
        int failed = RESERVE(w->colliders.list, cap, w->colliders.high + 1) ||
                     RESERVE(w->colliders.free_slots, cap2, w->colliders.high + 1) ||
                     RESERVE(w->colliders.limbo, cap3, w->colliders.high + 1);
        int least = cap < cap2 ? cap : cap2; // what all three arrays hold, if one failed to grow
        w->colliders.cap = least < cap3 ? least : cap3;
        if (failed) return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "growing collider storage");
    }
    int i = w->colliders.free_count > 0 ? w->colliders.free_slots[w->colliders.free_count - 1]
                                        : w->colliders.high;
    collider c;
    memset(&c, 0, sizeof c);
    uint32_t gen = (i < w->colliders.high ? w->colliders.list[i].generation : 0) + 1;
    c.generation = gen ? gen : 1;
    c.type = d->type;
    c.motion = d->motion;
    c.velocity = d->motion == KYU_KINEMATIC ? d->velocity : glms_vec3_zero();
    c.angular_velocity = d->angular_velocity;
    c.surface_velocity = d->surface_velocity;
    c.restitution = d->restitution;
    c.friction = d->friction;
    c.rolling = d->rolling_resistance;
    c.user = d->user_data;
    c.category = d->category_bits;
    c.mask = d->mask_bits;
    c.material = d->material;
    c.box.half_extents = d->half_extents;
    c.cap_a = d->capsule_a;
    c.cap_b = d->capsule_b;
    c.cap_radius = d->radius;
    c.normal = glms_vec3_normalize(d->normal);
    if (d->type == KYU_SHAPE_HULL) {
        c.hull_points = kyu_malloc((size_t)d->point_count * sizeof *c.hull_points);
        if (!c.hull_points) return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "copying the hull points");
        memcpy(c.hull_points, d->points, (size_t)d->point_count * sizeof *c.hull_points);
        c.hull_count = d->point_count;
    } else if (d->type == KYU_SHAPE_MESH) {
        c.mesh = kyu_mesh_create(d->points, d->point_count, d->indices, d->triangle_count);
        if (!c.mesh) return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "building the mesh");
    }
    kyu_collider_place(&c, d->position, d->rotation);
    c.alive = 1;
    if (kyu_wake_near_colliders(w, &c, NULL)) {
        kyu_free(c.hull_points);
        kyu_mesh_destroy(c.mesh);
        return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "waking what the collider lands on");
    }
    if (i == w->colliders.high)
        w->colliders.high++;
    else
        w->colliders.free_count--;
    w->colliders.list[i] = c;
    w->colliders.count++;
    if (out) *out = (kyu_collider_id){(uint32_t)i + 1, w->id, c.generation};
    kyu_query_invalidate(w);
    return KYU_OK;
}

kyu_status kyu_collider_destroy(kyu_world *w, kyu_collider_id id) {
    COLLIDER_SLOT(w, id, i);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_collider_destroy during a step");
    // What rests on it must fall: every island with a contact on it wakes (by identity: a body
    // resting on a collider has a contact with it). Its contacts then leave the cache at the start
    // of the next step, which reports the end of those that touched (kyu_contacts_purge).
    if (kyu_islands_wake_collider_contacts(w, KYU_COLLIDER_BIT | (uint32_t)i))
        return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "waking what rests on the collider");
    (void)kyu_islands_flush_woken(w); // cannot fail: the wake reserved its room
    collider *c = &w->colliders.list[i];
    kyu_free(c->hull_points);
    kyu_mesh_destroy(c->mesh);
    c->hull_points = NULL;
    c->mesh = NULL;
    c->alive = 0;
    c->generation++;
    w->colliders.limbo[w->colliders.limbo_count++] = i; // reused after the next step's start
    w->colliders.count--;
    w->contacts.removed++;
    kyu_query_invalidate(w);
    return KYU_OK;
}

void kyu_colliders_release_limbo(collider_store *s) {
    for (int k = 0; k < s->limbo_count; k++) s->free_slots[s->free_count++] = s->limbo[k];
    s->limbo_count = 0;
}

bool kyu_collider_is_valid(const kyu_world *w, kyu_collider_id id) {
    kyu_status st;
    return w && kyu_collider_slot(w, id, &st) >= 0;
}

kyu_status kyu_collider_set_velocity(kyu_world *w, kyu_collider_id id, vec3s v) {
    COLLIDER_SLOT(w, id, i);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_collider_set_velocity during a step");
    if (w->colliders.list[i].motion != KYU_KINEMATIC)
        return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT, "only a kinematic collider has a velocity");
    if (!kyu_bounded3(v, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE,
                        "collider velocity (%g, %g, %g) must be finite, each |v| <= 1e9", (double)v.x,
                        (double)v.y, (double)v.z);
    collider moved = w->colliders.list[i];
    moved.velocity = v;
    if (kyu_wake_near_colliders(w, &moved, NULL))
        return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "waking what the collider will touch");
    w->colliders.list[i].velocity = v;
    return KYU_OK;
}

// Sets collider i's turn and surface velocity (checked together), after waking what rests on it.
static kyu_status set_spin(kyu_world *w, int i, vec3s av, vec3s surface) {
    collider *c = &w->colliders.list[i];
    kyu_status sp = check_spin(w, c->motion, av, surface);
    if (sp != KYU_OK) return sp;
    if (kyu_islands_wake_collider_contacts(w, KYU_COLLIDER_BIT | (uint32_t)i)) // what rests on it moves
        return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "waking what rests on the collider");
    (void)kyu_islands_flush_woken(w); // cannot fail: the wake reserved its room
    c->angular_velocity = av;
    c->surface_velocity = surface;
    return KYU_OK;
}

kyu_status kyu_collider_set_angular_velocity(kyu_world *w, kyu_collider_id id, vec3s av) {
    COLLIDER_SLOT(w, id, i);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_collider_set_angular_velocity during a step");
    return set_spin(w, i, av, w->colliders.list[i].surface_velocity);
}

kyu_status kyu_collider_set_surface_velocity(kyu_world *w, kyu_collider_id id, vec3s surface) {
    COLLIDER_SLOT(w, id, i);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_collider_set_surface_velocity during a step");
    return set_spin(w, i, w->colliders.list[i].angular_velocity, surface);
}

kyu_status kyu_collider_get_rotation(const kyu_world *w, kyu_collider_id id, versors *out) {
    COLLIDER_SLOT(w, id, i);
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "out is NULL");
    *out = w->colliders.list[i].rotation;
    return KYU_OK;
}

kyu_status kyu_collider_set_transform(kyu_world *w, kyu_collider_id id, vec3s p, versors q) {
    COLLIDER_SLOT(w, id, i);
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_collider_set_transform during a step");
    if (!kyu_bounded3(p, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE,
                        "collider position (%g, %g, %g) must be finite, each |x| <= 1e9", (double)p.x,
                        (double)p.y, (double)p.z);
    kyu_status st = validate_rotation(w, q); // every shape stores it, a plane too
    if (st != KYU_OK) return st;
    // What rested against it where it was, and what it now lands on.
    collider moved = w->colliders.list[i];
    kyu_collider_place(&moved, p, q);
    if (kyu_wake_near_colliders(w, &w->colliders.list[i], &moved))
        return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "waking what the collider touches");
    w->colliders.list[i] = moved;
    kyu_query_invalidate(w);
    return KYU_OK;
}

kyu_status kyu_collider_get_position(const kyu_world *w, kyu_collider_id id, vec3s *out) {
    COLLIDER_SLOT(w, id, i);
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "out is NULL");
    *out = w->colliders.list[i].box.center;
    return KYU_OK;
}

// ---- bounds and motion for the step -------------------------------------------------------------

void kyu_colliders_advance(kyu_world *w) {
    float dt = w->def.fixed_dt;
    for (int i = 0; i < w->colliders.high; i++) {
        collider *c = &w->colliders.list[i];
        if (!c->alive || c->motion != KYU_KINEMATIC) continue;
        vec3s step = glms_vec3_scale(c->velocity, dt);
        c->box.center = glms_vec3_add(c->box.center, step);
        if (glms_vec3_norm2(c->angular_velocity) > 0.0f) { // the turn of this step, about its position
            if (c->type == KYU_SHAPE_PLANE) { // a plane is its normal (a turn about it changes nothing)
                versors turn = kyu_quat_turn(glms_quat_identity(), c->angular_velocity, dt);
                c->normal = glms_vec3_normalize(kyu_fquat_rotatev(turn, c->normal));
            }
            kyu_collider_place(c, c->box.center, kyu_quat_turn(c->rotation, c->angular_velocity, dt));
        }
        if (c->type == KYU_SHAPE_PLANE) c->offset = glms_vec3_dot(c->normal, c->box.center);
    }
}

void kyu_colliders_free(collider_store *c) {
    for (int i = 0; i < c->high; i++) {
        kyu_free(c->list[i].hull_points);
        kyu_mesh_destroy(c->list[i].mesh);
    }
    kyu_free(c->list);
    kyu_free(c->free_slots);
    kyu_free(c->limbo);
    kyu_collider_tree_free(&c->tree);
}
