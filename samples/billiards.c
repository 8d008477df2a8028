// SPDX-License-Identifier: MIT
// billiards: a pool break, headless, with spinning balls.
//
// What it shows:
//   - a table from colliders: the cloth a plane (friction 0.2, a little rolling resistance), the
//     cushions four boxes with restitution;
//   - spheres that spin: the struck cue ball slides, friction spins it up, and it rolls at 5/7 of
//     its speed after 2 v / (7 mu g) seconds, as the textbook says; this sample prints both;
//   - materials through the mix rule: friction_mix = KYU_MIX_MAX gives ball on cloth 0.2 and
//     ball on ball 0.05 (the balls' own value), and restitution_mix the larger (0.95 between balls);
//   - reading spin back: kyu_body_get_angular_velocity, kyu_world_rotational_energy.
//
// It exits non-zero if a ball leaves the table or hops off the cloth, so it doubles as a check.
#include <math.h>
#include <stdio.h>

#include <kyu/kyu.h>

#include "billiards_table.h"

enum { BALLS = BILLIARDS_BALLS, FRAMES = 900, CUE = BALLS - 1 }; // the cue ball is the last; 15 s at 60 Hz
static const float R = BILLIARDS_R, HALF_X = BILLIARDS_HALF_X, HALF_Z = BILLIARDS_HALF_Z;
static const float CLOTH_MU = BILLIARDS_CLOTH_MU, CUE_SPEED = 2.0f;

int main(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.fixed_dt = 1.0f / 240; // small balls at 6 m/s: 240 Hz keeps a step's travel under a radius
    wd.friction_mix = KYU_MIX_MAX;
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return 1;
    kyu_body_id id[BALLS];
    if (billiards_table(w, CUE_SPEED, id) != 0) return 1; // samples/billiards_table.h

    // Until it reaches the rack the cue ball is alone: it slides, then rolls.
    double t = 0, t_roll = -1, t_theory = 2.0 * CUE_SPEED / (7.0 * CLOTH_MU * 9.81);
    int bad = 0;
    for (int frame = 1; frame <= FRAMES; frame++) {
        int steps = 0;
        kyu_world_update(w, 1.0f / 60, &steps);
        for (int s = 0; s < steps; s++) t += wd.fixed_dt;
        vec3s v, a;
        kyu_body_get_velocity(w, id[CUE], &v);
        kyu_body_get_angular_velocity(w, id[CUE], &a);
        if (t_roll < 0 &&
            fabsf(v.x + a.z * R) < 1e-3f * CUE_SPEED) { // its lowest point is still (checked each frame)
            t_roll = t;
            printf("cue ball rolls after %.3f s at %.3f m/s (theory: %.3f s, 5/7 v0 = %.3f m/s); spin %.1f "
                   "rad/s\n",
                   t, (double)v.x, t_theory, 5.0 / 7.0 * CUE_SPEED, (double)-a.z);
        }
        int moving = 0;
        for (int i = 0; i < BALLS; i++) {
            vec3s p, u;
            kyu_body_get_position(w, id[i], &p);
            kyu_body_get_velocity(w, id[i], &u);
            moving += glms_vec3_norm(u) > 0.01f;
            if (fabsf(p.x) > HALF_X || fabsf(p.z) > HALF_Z || p.y > 1.5f * R || p.y < 0.9f * R) {
                if (!bad++)
                    printf("ball %d at (%.4f, %.4f, %.4f), t = %.3f s\n", i, (double)p.x, (double)p.y,
                           (double)p.z, t);
            }
        }
        if (frame % 120 == 0)
            printf("t = %5.2f s: %2d balls moving, kinetic energy %.4f J (%.4f J of it spin)\n", t, moving,
                   kyu_world_kinetic_energy(w), kyu_world_rotational_energy(w));
    }
    kyu_world_destroy(w);
    if (bad) printf("FAILED: a ball left the table or the cloth (%d ball-frames)\n", bad);
    return bad ? 1 : 0;
}
