// SPDX-License-Identifier: MIT
// Private to the engine: the step's module (world.c, validate.c): the step context and the
// validators that check the world after every stage.
#ifndef KYU_STEP_H
#define KYU_STEP_H

#include "common.h"

// The step context: the arrays one step works on, sized to the body capacity (world.c, every
// stage). Per-slot scratch of one stage is taken from `arena` at the stage's start and given back
// at its end (NULL outside it): the stages never overlap, so they share the arena's memory, each
// under names of its own; the arena grows with the body store to what the largest stage takes.
// Each awake body's path (t_body, accel, box) is read from the forces to the end of the impacts:
// taken from the arena before the forces and kept there until the next step begins or the body
// store grows (world.c, kyu_step_take_paths; NULL outside that).
typedef struct step_context {
    uint32_t *active; // awake bodies this step, in slot order
    int active_count;
    float *t_body; // stages 1-4: time (fraction of the step) at which pos and vel are valid
    vec3s *accel;  // this step: gravity for a body in free flight, 0 for one the solver held
    aabb *box;     // broadphase box of the rest of this step's motion
    kyu_arena arena;
    struct {
        int *meets; // stage 0, kyu_islands_wake_touched: 1 its path meets a sleeper, 2 not, 0 asleep
    } wake;
    struct {
        int *cell, *rank; // stage 3, a dense grid's build: each active body's cell (-1: not a small
    } dense_fill;         //   box) and its rank among the bodies of that cell
    struct {
        int *run_start; // stage 5, kyu_contacts_find: where the body's run of last step's contacts starts
        int *offset;    //   per active body: its region of contacts.next,
        int *count;     //   how many contacts it kept (then how many begin or end events it has)
    } find;
    struct {
        uint32_t *parent; // stage 6, the island pass: union-find parent,
        float *rest;      //   the least time at rest in the set (at its root),
        int *record;      //   the sleeping island record of a root that falls asleep
    } uf;
    uint64_t **worker_scratch; // per worker: a body's partner list (partner << 1 | hit)
    int *worker_scratch_cap;
    uint8_t *check_marks; // KYU_VALIDATE builds: per body, the validator's scratch (validate.c)
} step_context;
void kyu_step_take_paths(kyu_world *w); // the paths from the arena (world.c)

// The paths leave the arena: at the next step's start, and when the body store grows the arena
// (body.c), whose old block held them.
static inline void kyu_step_give_back_paths(step_context *s) {
    kyu_arena_clear(&s->arena);
    s->t_body = NULL, s->accel = NULL, s->box = NULL;
}

// world.c
float kyu_alpha_of(double accumulator, float dt); // the interpolation factor of kyu_world_alpha

// validate.c: 0, or -1 with the first broken invariant described in msg
int kyu_world_validate(const kyu_world *w, char *msg, size_t capacity);
// Inside a step: the bodies and colliders, and the checks named (a stage asks for what it can
// change: the contact lists, the sleeping islands, the active list, the grid).
// KYU_CHECK_INSIDE: every body inside the periodic box (between steps, and after the wrap).
enum {
    KYU_CHECK_ACTIVE = 1,
    KYU_CHECK_GRID = 2,
    KYU_CHECK_CONTACTS = 4,
    KYU_CHECK_ISLANDS = 8,
    KYU_CHECK_INSIDE = 16
};
int kyu_world_validate_step(const kyu_world *w, int checks, char *msg, size_t capacity);

#endif
