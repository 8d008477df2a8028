// SPDX-License-Identifier: MIT
// The escape, at the end of a step: overlap beyond the slop is pushed out along the contact normal,
// split by inverse mass (all of it to the particle against a collider). Positions only: the escape
// never adds velocity, so it cannot add energy.
#include <string.h>

#include "internal.h"

static int push_out(kyu_world *w, contact *c) {
    if (c->sensor) return 0;
    body_store *s = &w->bodies;
    if (kyu_is_collider(c->b) && w->colliders.list[c->b & ~KYU_COLLIDER_BIT].type == KYU_SHAPE_MESH) {
        const collider *col = &w->colliders.list[c->b & ~KYU_COLLIDER_BIT];
        vec3s p =
            kyu_mesh_push_out(col, col->box.center, s->pos[c->a], s->radius[c->a], kyu_body_slop(w, c->a));
        int moved = memcmp(&p, &s->pos[c->a], sizeof p) != 0;
        s->pos[c->a] = p;
        return moved;
    }
    vec3s n;
    float gap = kyu_contact_geometry(w, c, &n);
    float depth = -gap - kyu_pair_slop(w, c->a, c->b);
    if (!(depth > 0.0f)) return 0;
    float ia = s->inv_mass[c->a], ib = kyu_is_collider(c->b) ? 0.0f : s->inv_mass[c->b];
    // Shock propagation (Guendelman et al. 2003): under gravity, a pair one above the other is
    // mended by lifting the upper body only, so an escape never pushes a body down into what holds
    // it, and a stack of any depth is mended from the bottom up instead of sinking into its floor.
    float up = w->gravity_on ? -glms_vec3_dot(n, w->down) : 0.0f; // > 0: a is above b
    if (up > 0.5f)
        ib = 0.0f;
    else if (up < -0.5f && !kyu_is_collider(c->b))
        ia = 0.0f;
    float share = depth / (ia + ib);
    s->pos[c->a] = glms_vec3_add(s->pos[c->a], glms_vec3_scale(n, share * ia));
    if (!kyu_is_collider(c->b)) s->pos[c->b] = glms_vec3_sub(s->pos[c->b], glms_vec3_scale(n, share * ib));
    return 1;
}

// Every contact's gap and normal after the escape, and the deepest overlap left in each slice. A
// contact whose bodies the escape did not move keeps the gap and normal the contact search gave it:
// contact_geometry reads only the two positions and, for a centre inside a box, the contact's
// normal, which the search already set to the one it keeps. The exception is a contact the search
// met deep in a box (gap below -radius) with no normal yet: it is computed again.
typedef struct final_gaps {
    contact_slices slices;
    const uint16_t *moved_in; // per body: the escape pass it last moved in (0: none)
} final_gaps;

static int escape_moved(const kyu_world *w, const uint16_t *moved_in, const contact *c) {
    if (moved_in[c->a]) return 1;
    if (!kyu_is_collider(c->b)) return moved_in[c->b] != 0;
    return w->colliders.list[c->b & ~KYU_COLLIDER_BIT].type == KYU_SHAPE_BOX &&
           c->gap < -w->bodies.radius[c->a];
}

static void final_gaps_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    final_gaps *x = ctx;
    kyu_world *w = x->slices.w;
    for (int sl = begin; sl < end; sl++) {
        float worst = 0.0f;
        for (int i = kyu_slice_start(w->contacts.count, x->slices.slices, sl);
             i < kyu_slice_start(w->contacts.count, x->slices.slices, sl + 1); i++) {
            contact *c = &w->contacts.list[i];
            if (escape_moved(w, x->moved_in, c)) c->gap = kyu_contact_geometry(w, c, &c->normal);
            if (!c->sensor && -c->gap > worst) worst = -c->gap;
        }
        x->slices.worst[sl] = worst;
    }
}

// The escape's passes skip what cannot move. A contact that pushed nothing in one pass pushes
// nothing in the next unless one of its bodies moved since it was looked at: its answer depends on
// the two positions only (a collider stands still through the escape, and the normal a box keeps is
// not changed here). So each body keeps the pass it last moved in, counted from 1, and a contact
// left quiet by pass p - 1 is looked at again in pass p only if a body of its moved in pass p - 1
// (before or after it) or in pass p so far. The passes give the same positions bit for bit as
// passes over every contact; in a resting heap nearly every contact is quiet after the first.
typedef struct escape_pass {
    kyu_world *w;
    uint16_t pass;                    // this pass, from 1
    uint16_t *moved_in;               // per body: the pass it last moved in (0: none yet)
    uint32_t *pair;                   // per place in the order: its contact's a and b (the first
                                      //   pass writes them: the later ones skip without the contact)
    uint8_t *quiet;                   // per place in the order: pushed nothing when last looked at
    int moved[KYU_SOLVE_DOMAINS + 1]; // per domain: whether the pass moved a body
} escape_pass;

static void escape_task(int begin, int end, int worker, void *ctx) {
    (void)worker;
    escape_pass *p = ctx;
    kyu_world *w = p->w;
    uint16_t since = (uint16_t)(p->pass - 1);
    for (int d = begin; d < end; d++) {
        int moved = 0;
        for (int k = w->solver.start[d], last = w->solver.start[d + 1]; k < last; k++) {
            uint32_t *ab = &p->pair[2 * k];
            if (p->pass == 1) {
                kyu_solver_prefetch(w, k, last, 0);
                const contact *c = &w->contacts.list[w->solver.order[k]];
                ab[0] = c->a, ab[1] = c->b;
            } else if (p->quiet[k] && p->moved_in[ab[0]] < since &&
                       !(!kyu_is_collider(ab[1]) && p->moved_in[ab[1]] >= since)) {
                continue;
            }
            int m = push_out(w, &w->contacts.list[w->solver.order[k]]);
            p->quiet[k] = (uint8_t)!m;
            if (!m) continue;
            moved = 1;
            p->moved_in[ab[0]] = p->pass;
            if (!kyu_is_collider(ab[1])) p->moved_in[ab[1]] = p->pass;
        }
        p->moved[d] = moved;
    }
}

// The scratch holds the pairs (two ints a place), then the quiet flags (a byte a place).
static int escape_passes(kyu_world *w, uint16_t *moved_in) {
    if (w->def.solver_iterations <= 0) return 0;
    int n = w->contacts.count;
    if (RESERVE(w->solver.tmp, w->solver.tmp_cap, 2 * n + n / (int)sizeof(int) + 1)) return -1;
    escape_pass p = {.w = w,
                     .pair = (uint32_t *)(void *)w->solver.tmp,
                     .quiet = (uint8_t *)(void *)(w->solver.tmp + 2 * n),
                     .moved_in = moved_in};
    for (int it = 0; it < w->def.solver_iterations; it++) {
        p.pass = (uint16_t)(it + 1);
        kyu_solver_run(w, escape_task, &p);
        int moved = 0;
        for (int d = 0; d <= KYU_SOLVE_DOMAINS; d++) moved |= p.moved[d];
        if (!moved) break; // nothing moved: neither would a pass after it
    }
    return 0;
}

int kyu_contacts_escape(kyu_world *w) {
    if (kyu_solver_partition(w)) return -1;
    uint16_t *moved_in = kyu_arena_take(&w->step.arena, (size_t)w->bodies.high * sizeof *moved_in);
    if (w->bodies.high > 0) memset(moved_in, 0, (size_t)w->bodies.high * sizeof *moved_in);
    int failed = escape_passes(w, moved_in);
    final_gaps x = {.slices = {.w = w, .slices = kyu_slice_count(w->contacts.count)}, .moved_in = moved_in};
    if (!failed) kyu_parallel_for(w, x.slices.slices, 1, final_gaps_task, &x);
    kyu_arena_reset(&w->step.arena);
    if (failed) return -1;
    float worst = kyu_islands_max_overlap(w); // the true deepest, asleep or awake
    for (int sl = 0; sl < x.slices.slices; sl++) worst = kyu_maxf(worst, x.slices.worst[sl]);
    w->stats.max_overlap = worst;
    return 0;
}
