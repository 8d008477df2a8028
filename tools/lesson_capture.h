// SPDX-License-Identifier: MIT
// kyu-lesson's scenarios: each builds a small world with the public API, steps it to the step in
// which the collision of interest happens, and keeps what the engine says about that step (states
// before and after, impact events, contacts, begin/end events, sleep, and what kyu_world_draw
// draws), plus the lesson's own arithmetic (P, Q, R, the reflection) to set beside it.
#ifndef KYU_LESSON_CAPTURE_H
#define KYU_LESSON_CAPTURE_H

#include <stdbool.h>

#include <kyu/kyu.h>

#define LS_MAX_BODIES 12
#define LS_MAX_PAIRS  64
#define LS_MAX_DRAWN  256
#define LS_WALL       (-1) // "the other side is the wall (or the ground)"
#define LS_GROUND     (-2)

typedef struct ls_body {
    kyu_body_id id;
    char name[8];
    float r, m, e, mu;
    vec3s p0, v0, p1, v1; // before and after the step
    vec3s w0, w1;         // angular velocity before and after the step
    float inertia;        // moment of inertia (INFINITY: fixed rotation)
    vec3s accel;          // the acceleration of its path during the step (see lesson_capture.c)
    bool awake0, awake1;
    int sleep_step; // the step at whose end it fell asleep (after the lesson's step), or -1
    int island;     // the lesson's island number after the step (-1: touches nothing)
    bool has_engine_color;
    kyu_color engine_color; // kyu_world_draw's colour with KYU_DRAW_ISLANDS
} ls_body;

typedef struct ls_pair {
    int a, b; // body indices; b is LS_WALL or LS_GROUND for a collider
    bool before, after, began, ended;
    float gap0, gap1; // centre distance minus radii (or distance to the collider) before / after
} ls_pair;

typedef struct ls_seg {
    vec3s a, b;
    kyu_color color;
} ls_seg;

typedef struct ls_capsule {
    vec3s a, b;
    float r;
} ls_capsule;

typedef struct ls_text {
    vec3s p;
    char text[40];
} ls_text;

// What kyu_world_draw drew after the step, layer by layer.
typedef struct ls_drawn {
    bool available; // kyu_world_draw returned KYU_OK
    kyu_box grid[LS_MAX_DRAWN];
    int ngrid;
    kyu_box aabb[LS_MAX_BODIES * 2];
    int naabb;
    ls_capsule swept[LS_MAX_BODIES];
    int nswept;
    ls_seg segs[LS_MAX_DRAWN]; // contacts, pairs and impacts layers (colour tells kept from new)
    int nsegs;
    vec3s points[LS_MAX_DRAWN];
    int npoints;
    ls_text texts[32];
    int ntexts;
} ls_drawn;

// The time of impact, three ways: the lesson's float P, Q, R (docs/design.md), the same in double,
// kyu_sweep_sphere_sphere, and the engine's impact event.
typedef struct ls_toi {
    bool sphere;         // sphere-sphere (P, Q, R); false: sphere against the wall's face
    vec3s C0, D;         // C0 = b0 - a0, D = db - da (the chord of the relative path)
    float P, Q, R, disc; // float, as in the seed's code
    float t_naive;       // (-Q - sqrt(Q^2 - P R)) / P
    double t_double;     // the same formula in double
    kyu_hit sweep;       // kyu_sweep_sphere_sphere (or kyu_sweep_sphere_box) on the chord
    bool curved;         // the relative path is a parabola: the chord is only a first guess
    double t_exact;      // first touch along the true path (bisection), when curved
    float g0, rate;      // wall: gap at t = 0 and its rate over the step (t = -g0 / rate)
    float t_engine;      // kyu_impact_event.time
    bool agree;          // the lesson's time and the engine's agree to float precision
    double diff;
} ls_toi;

// The reflection at the impact (restitution along the normal), the lesson's arithmetic and the engine's
// result.
typedef struct ls_reflect {
    vec3s n, point;           // the engine's impact normal (B to A) and point
    vec3s va, vb;             // velocities at the impact (vb: the wall's velocity)
    vec3s vrel, vN, vT;       // relative velocity and its normal and tangential parts
    vec3s wa, wb;             // angular velocities at the impact (wb: the wall turns not)
    vec3s vslip;              // the contact points' tangential relative velocity, spin included
    float vn, e, mu, jn, jt;  // normal speed, restitution used, friction, impulses
    float kt, beta;           // tangential effective mass; the world's tangential restitution
    vec3s wa_after, wb_after; // the lesson's angular velocities after the impact
    vec3s vrel_after;         // vT' - e vN (+ friction), relative
    vec3s va_after, vb_after; // the lesson's world velocities after the impact
    float approach_engine;    // kyu_impact_event.approach_speed
    bool single;              // one impact per body this step: the step's end velocities compare
    bool agree;
    double diff;
    vec3s point_mine, n_mine; // from the positions at t (on the line of centres, r_A from A)
} ls_reflect;

typedef struct ls_capture {
    int scenario;
    const char *title, *intro;
    kyu_world_def def;
    int step; // the step shown (1 = the world's first step)
    ls_body b[LS_MAX_BODIES];
    int nb;
    bool has_wall, has_ground;
    vec3s wall_p0, wall_p1, wall_v, wall_half;
    float wall_e, wall_mu;
    kyu_impact_event imp; // the impact of interest
    int ia, ib;           // its two sides (ib < 0: a collider)
    kyu_impact_event imps[32];
    int nimps, nimps_total;
    int begin_count, end_count;
    kyu_step_stats stats;
    ls_pair pairs[LS_MAX_PAIRS];
    int npairs;
    int nislands;
    int sleep_horizon; // steps run after the lesson's step to see who sleeps
    ls_drawn drawn;
    ls_toi toi;
    ls_reflect refl;
    char error[256];
} ls_capture;

enum { LS_SCENARIOS = 3 };

// Runs scenario 1..3 into *c. Returns 0, or -1 with c->error set.
int ls_run(int scenario, ls_capture *c);

// The lesson's own arithmetic for the captured step (lesson_analysis.c): fills c->toi, c->refl.
void ls_analyse(ls_capture *c);

#endif
