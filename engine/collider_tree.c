// SPDX-License-Identifier: MIT
// The colliders' tree: which colliders a body's box meets, without asking every one. A level built
// of thousands of boxes or pegs (a pachinko board) had every awake body test every collider's
// bounds in the broadphase and again at each late insert of the impacts.
//
// The static colliders other than planes go into a bounding volume hierarchy over their bounds
// (kyu_bvh_build, as a mesh's), built again only when one of them was created, removed or
// moved: each step compares what it holds with the bounds just computed. Planes (unbounded) and
// kinematic colliders (they move every step) are asked every time. An answer is the colliders'
// indices in increasing order, as the scan over every collider gives them, so the tree changes no
// result; without a tree (few colliders, or its room could not be had) every collider is asked.
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { TREE_DEPTH = 64 }; // a median split's depth is log2 of the count: 64 holds any int

int kyu_collider_tree_min = KYU_COLLIDER_TREE_MIN;

static int in_tree(const collider *c) {
    return c->alive && c->motion == KYU_STATIC && c->type != KYU_SHAPE_PLANE;
}

static aabb bounds_of(const void *list, int32_t i) { return ((const collider *)list)[i].bounds; }
static float centre_of(const void *list, int32_t i, int axis) {
    const aabb *b = &((const collider *)list)[i].bounds;
    return b->lo[axis] + b->hi[axis];
}

// The tree over the static colliders' bounds of this step, built again if they changed, and the
// list of the others.
static void tree_update(collider_store *s) {
    collider_tree *t = &s->tree;
    int changed = !t->built, held = 0;
    t->other_count = 0;
    for (int i = 0; i < s->high; i++) {
        collider *c = &s->list[i];
        int want = in_tree(c);
        held += want;
        if (want != c->in_tree || (want && memcmp(&c->bounds, &c->tree_box, sizeof c->bounds) != 0))
            changed = 1;
        if (c->alive && !want) {
            if (RESERVE(t->others, t->other_cap, t->other_count + 1)) {
                t->built = 0; // every collider is asked
                return;
            }
            t->others[t->other_count++] = i;
        }
    }
    if (!changed) return;
    t->built = 0;
    for (int i = 0; i < s->high; i++) {
        s->list[i].in_tree = (uint8_t)in_tree(&s->list[i]);
        s->list[i].tree_box = s->list[i].bounds;
    }
    if (held < kyu_collider_tree_min) return; // (in_tree is kept: the tree is made when they become more)
    kyu_keyed *scratch = kyu_malloc((size_t)held * sizeof *scratch);
    if (!scratch || RESERVE(t->order, t->order_cap, held) || RESERVE(t->nodes, t->node_cap, 2 * held)) {
        kyu_free(scratch);
        for (int i = 0; i < s->high; i++) s->list[i].in_tree = 0; // built again next step
        return;
    }
    for (int i = 0, n = 0; i < s->high; i++)
        if (s->list[i].in_tree) t->order[n++] = i;
    kyu_bvh_build(&(kyu_bvh_build_ctx){t->nodes, 0, t->order, scratch, s->list, bounds_of, centre_of}, 0,
                  held);
    kyu_free(scratch);
    t->built = 1;
}

// Bounds of every shape over the step to come from where it stands (planes are unbounded and
// always tested), and the tree over them: at the step's sweeps, at its start when new bodies look
// for what they touch, and for a query (which asks where the colliders stand).
void kyu_colliders_update_bounds(kyu_world *w) {
    float dt = w->def.fixed_dt;
    for (int i = 0; i < w->colliders.high; i++) {
        collider *c = &w->colliders.list[i];
        if (!c->alive || c->type == KYU_SHAPE_PLANE) continue;
        aabb a, b;
        kyu_shape_world_bounds(c, c->box.center, &a);
        kyu_shape_world_bounds(c, glms_vec3_add(c->box.center, glms_vec3_scale(c->velocity, dt)), &b);
        c->bounds = a;
        kyu_box_join(&c->bounds, &b);
        if (glms_vec3_norm2(c->angular_velocity) > 0.0f) {
            // It turns at the end of the step: the box of every turn of it, a sphere about its
            // position through its farthest corner, at both ends of its move.
            float reach = 0.0f;
            for (int k = 0; k < 3; k++) {
                float e =
                    kyu_maxf(fabsf(a.lo[k] - c->box.center.raw[k]), fabsf(a.hi[k] - c->box.center.raw[k]));
                reach += e * e;
            }
            reach = sqrtf(reach);
            for (int k = 0; k < 3; k++) {
                float p0 = c->box.center.raw[k], p1 = p0 + c->velocity.raw[k] * dt;
                c->bounds.lo[k] = kyu_minf(c->bounds.lo[k], kyu_minf(p0, p1) - reach);
                c->bounds.hi[k] = kyu_maxf(c->bounds.hi[k], kyu_maxf(p0, p1) + reach);
            }
        }
    }
    tree_update(&w->colliders);
}

void kyu_collider_tree_free(collider_tree *t) {
    kyu_free(t->nodes);
    kyu_free(t->order);
    kyu_free(t->others);
    memset(t, 0, sizeof *t);
}

// Whether the collider's bounds over this step (kyu_colliders_update_bounds) meet a box.
int kyu_collider_touches_box(const collider *c, const aabb *box) {
    if (c->type == KYU_SHAPE_PLANE) return 1;
    for (int k = 0; k < 3; k++)
        if (c->bounds.lo[k] > box->hi[k] || c->bounds.hi[k] < box->lo[k]) return 0;
    return 1;
}

static int add(kyu_collider_near *it, int32_t i) {
    if (it->count == KYU_NEAR_COLLIDERS) return -1;
    it->index[it->count++] = i;
    return 0;
}

// The colliders whose bounds meet `box`, for kyu_colliders_next to give in index order.
void kyu_colliders_near(const collider_store *s, const aabb *box, kyu_collider_near *it) {
    const collider_tree *t = &s->tree;
    it->box = *box;
    it->next = 0;
    it->count = -1;
    if (!t->built) return;
    it->count = 0;
    int stack[TREE_DEPTH], top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const bvh_node *n = &t->nodes[stack[--top]];
        if (!kyu_boxes_overlap(&n->box, box)) continue;
        if (n->first < 0) {
            stack[top++] = n->right;
            stack[top++] = n->left;
            continue;
        }
        for (int k = n->first; k < n->first + n->count; k++)
            if (kyu_boxes_overlap(&s->list[t->order[k]].bounds, box) && add(it, t->order[k])) {
                it->count = -1; // more than fit: every collider is asked
                return;
            }
    }
    for (int k = 0; k < t->other_count; k++)
        if (kyu_collider_touches_box(&s->list[t->others[k]], box) && add(it, t->others[k])) {
            it->count = -1;
            return;
        }
    for (int k = 1; k < it->count; k++) { // a few: by insertion
        int32_t v = it->index[k];
        int j = k;
        for (; j > 0 && it->index[j - 1] > v; j--) it->index[j] = it->index[j - 1];
        it->index[j] = v;
    }
}

// The next collider whose bounds meet the box, or -1 when there is none.
int kyu_colliders_next(const collider_store *s, kyu_collider_near *it) {
    if (it->count >= 0) return it->next < it->count ? it->index[it->next++] : -1;
    while (it->next < s->high) {
        int i = it->next++;
        if (s->list[i].alive && kyu_collider_touches_box(&s->list[i], &it->box)) return i;
    }
    return -1;
}
