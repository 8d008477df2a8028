// SPDX-License-Identifier: MIT
// chute: 1000 glass beads (r 1 cm) flowing down an endless chute, headless.
//
// What it shows:
//   - a periodic box (kyu_world_def.periodic): the chute is 40 cm long and 10 cm wide, and what
//     leaves one end enters the other, so a short box holds a flow that never runs out;
//   - a rough base from colliders: a floor plane and capsules across the flow, one bead diameter
//     apart (colliders are not periodic: the row runs a little past both ends of the box);
//   - the slope as gravity tilted towards +x, which keeps the box axis-aligned.
//
// Granular flows on a rough incline come to rest below some angle and reach a steady flow above
// it (Pouliquen 1999, "Scaling laws in granular flows down rough inclined planes"). The sample runs
// 12 s at 18 and at 24 degrees, prints the mean velocity along the chute every second, and exits
// non-zero unless the 18-degree layer stops (mean speed under 1 cm/s) and the 24-degree one flows
// steadily over its last 6 s (every second's mean within 25% of their mean, none under 0.5 m/s).
// No bead is lost either way.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <kyu/kyu.h>

enum { BEADS = 1000, SECONDS = 12, STEPS_PER_SECOND = 60 };
static const float RADIUS = 0.01f, LENGTH = 0.4f, WIDTH = 0.1f, FRICTION = 0.5f;

static void check(kyu_status s, kyu_world *w, const char *what) {
    if (s == KYU_OK) return;
    fprintf(stderr, "chute: %s: %s\n", what, w ? kyu_world_last_error(w) : kyu_status_string(s));
    exit(1);
}

// Steps the chute at `degrees` and writes each second's mean velocity along it into mean[].
static void run(double degrees, double mean[SECONDS]) {
    double theta = degrees * 3.14159265358979 / 180.0;
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = (vec3s){{(float)(9.81 * sin(theta)), (float)(-9.81 * cos(theta)), 0}};
    wd.periodic.axis[0] = wd.periodic.axis[2] = true; // along and across the chute
    wd.periodic.lower = (vec3s){{0, -1, 0}};
    wd.periodic.upper = (vec3s){{LENGTH, 5, WIDTH}};
    wd.body_capacity = BEADS;
    kyu_world *w = NULL;
    check(kyu_world_create(&wd, &w), NULL, "the world");
    kyu_collider_def floor = kyu_collider_def_default(); // the plane y = 0
    floor.friction = FRICTION;
    check(kyu_collider_create(w, &floor, NULL), w, "the floor");
    for (int k = -1; k <= (int)(LENGTH / (2 * RADIUS)); k++) {
        kyu_collider_def bump = kyu_collider_def_default();
        bump.type = KYU_SHAPE_CAPSULE, bump.radius = RADIUS, bump.friction = FRICTION;
        bump.position = (vec3s){{2 * RADIUS * (float)k, 0, 0}};
        bump.capsule_a = (vec3s){{0, 0, -1}}, bump.capsule_b = (vec3s){{0, 0, 1}};
        check(kyu_collider_create(w, &bump, NULL), w, "a bump");
    }
    kyu_body_def bead = kyu_body_def_default();
    bead.radius = RADIUS, bead.friction = FRICTION, bead.restitution = 0.2f;
    bead.mass = 2500.0f * 4.18879f * RADIUS * RADIUS * RADIUS; // glass
    const float gap = 2.2f * RADIUS;
    int along = (int)(LENGTH / gap), across = (int)(WIDTH / gap);
    for (int i = 0; i < BEADS; i++) { // a loose lattice above the base
        int a = i % along, b = i / along % across, layer = i / (along * across);
        bead.position =
            (vec3s){{gap * ((float)a + 0.5f), 0.03f + gap * (float)layer, gap * ((float)b + 0.5f)}};
        check(kyu_body_create(w, &bead, NULL), w, "a bead");
    }
    float *v = malloc(3 * BEADS * sizeof *v);
    if (!v) exit(1);
    for (int s = 0; s < SECONDS; s++) {
        for (int k = 0; k < STEPS_PER_SECOND; k++) check(kyu_world_step(w), w, "a step");
        int n = kyu_world_get_velocities(w, v, BEADS);
        mean[s] = 0;
        for (int i = 0; i < n; i++) mean[s] += (double)v[3 * i] / BEADS;
        printf("  %4.1f deg  t = %2d s  mean velocity along the chute %.3f m/s  beads %d\n", degrees, s + 1,
               mean[s], kyu_world_body_count(w));
        if (kyu_world_body_count(w) != BEADS) {
            fprintf(stderr, "chute: beads lost\n");
            exit(1);
        }
    }
    free(v);
    kyu_world_destroy(w);
}

int main(void) {
    double slow[SECONDS], steep[SECONDS];
    run(18.0, slow);
    run(24.0, steep);
    double avg = 0;
    for (int s = SECONDS / 2; s < SECONDS; s++) avg += steep[s] / (SECONDS - SECONDS / 2);
    int steady = avg > 0.5;
    for (int s = SECONDS / 2; s < SECONDS; s++) steady = steady && fabs(steep[s] - avg) <= 0.25 * avg;
    int stopped = fabs(slow[SECONDS - 1]) < 0.01;
    printf("chute: 18 deg %s (%.4f m/s at the end); 24 deg %s (mean %.3f m/s over the last %d s)\n",
           stopped ? "stopped" : "did NOT stop", slow[SECONDS - 1],
           steady ? "flows steadily" : "is NOT steady", avg, SECONDS - SECONDS / 2);
    return stopped && steady ? 0 : 1;
}
