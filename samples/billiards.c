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

enum { BALLS = 16, FRAMES = 900 }; // the cue ball and a rack of 15; 15 s at 60 Hz
static const float R = 0.028575f, MASS = 0.17f;     // a 57.15 mm pool ball
static const float HALF_X = 1.27f, HALF_Z = 0.635f; // a 9 ft table's playing area
static const float CLOTH_MU = 0.2f, CUE_SPEED = 2.0f;

static vec3s v3(float x, float y, float z) { return (vec3s){{x, y, z}}; }

static void cushion(kyu_world *w, vec3s centre, vec3s half) {
    kyu_collider_def c = kyu_collider_def_default();
    c.type = KYU_SHAPE_BOX, c.position = centre, c.half_extents = half;
    c.restitution = 0.75f, c.friction = 0.2f;
    kyu_collider_create(w, &c, NULL);
}

int main(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.fixed_dt = 1.0f / 240; // small balls at 6 m/s: 240 Hz keeps a step's travel under a radius
    wd.friction_mix = KYU_MIX_MAX;
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return 1;
    kyu_collider_def cloth = kyu_collider_def_default(); // the plane y = 0
    cloth.friction = CLOTH_MU, cloth.rolling_resistance = 0.01f;
    kyu_collider_create(w, &cloth, NULL);
    cushion(w, v3(-HALF_X - 0.05f, 0.05f, 0), v3(0.05f, 0.05f, HALF_Z + 0.1f));
    cushion(w, v3(HALF_X + 0.05f, 0.05f, 0), v3(0.05f, 0.05f, HALF_Z + 0.1f));
    cushion(w, v3(0, 0.05f, -HALF_Z - 0.05f), v3(HALF_X, 0.05f, 0.05f));
    cushion(w, v3(0, 0.05f, HALF_Z + 0.05f), v3(HALF_X, 0.05f, 0.05f));

    kyu_body_def ball = kyu_body_def_default();
    ball.radius = R, ball.mass = MASS, ball.restitution = 0.95f, ball.friction = 0.05f;
    kyu_body_id id[BALLS];
    int n = 0;
    for (int row = 0; row < 5; row++) // the rack: a triangle, its apex towards the cue ball
        for (int k = 0; k <= row; k++) {
            ball.position = v3(0.635f + (float)row * R * sqrtf(3.0f) * 1.001f, R, ((float)k - 0.5f * (float)row) * 2.002f * R);
            kyu_body_create(w, &ball, &id[1 + n++]);
        }
    ball.position = v3(-0.635f, R, 0), ball.velocity = v3(CUE_SPEED, 0, 0); // struck at its centre: no spin
    kyu_body_create(w, &ball, &id[0]);

    // Until it reaches the rack the cue ball is alone: it slides, then rolls.
    double t = 0, t_roll = -1, t_theory = 2.0 * CUE_SPEED / (7.0 * CLOTH_MU * 9.81);
    int bad = 0;
    for (int frame = 1; frame <= FRAMES; frame++) {
        int steps = 0;
        kyu_world_update(w, 1.0f / 60, &steps);
        for (int s = 0; s < steps; s++) t += wd.fixed_dt;
        vec3s v, a;
        kyu_body_get_velocity(w, id[0], &v);
        kyu_body_get_angular_velocity(w, id[0], &a);
        if (t_roll < 0 && fabsf(v.x + a.z * R) < 1e-3f * CUE_SPEED) { // its lowest point is still (checked each frame)
            t_roll = t;
            printf("cue ball rolls after %.3f s at %.3f m/s (theory: %.3f s, 5/7 v0 = %.3f m/s); spin %.1f rad/s\n",
                   t, (double)v.x, t_theory, 5.0 / 7.0 * CUE_SPEED, (double)-a.z);
        }
        int moving = 0;
        for (int i = 0; i < BALLS; i++) {
            vec3s p, u;
            kyu_body_get_position(w, id[i], &p);
            kyu_body_get_velocity(w, id[i], &u);
            moving += glms_vec3_norm(u) > 0.01f;
            if (fabsf(p.x) > HALF_X || fabsf(p.z) > HALF_Z || p.y > 1.5f * R || p.y < 0.9f * R) {
                if (!bad++) printf("ball %d at (%.4f, %.4f, %.4f), t = %.3f s\n", i, (double)p.x, (double)p.y, (double)p.z, t);
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
