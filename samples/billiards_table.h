// SPDX-License-Identifier: MIT
// The pool table of samples/billiards.c, also the browser's break (web/kyu_web.c), so the page
// plays the sample's very table: cloth, four cushions, a rack of 15 and the cue ball.
#ifndef KYU_SAMPLES_BILLIARDS_TABLE_H
#define KYU_SAMPLES_BILLIARDS_TABLE_H

#include <math.h>

#include <kyu/kyu.h>

#define BILLIARDS_R        0.028575f // a 57.15 mm pool ball
#define BILLIARDS_MASS     0.17f
#define BILLIARDS_HALF_X   1.27f // a 9 ft table's playing area
#define BILLIARDS_HALF_Z   0.635f
#define BILLIARDS_CLOTH_MU 0.2f
#define BILLIARDS_BALLS    16 // the rack of 15, then the cue ball (the last slot)

static inline void billiards_cushion(kyu_world *w, float x, float z, float hx, float hz) {
    kyu_collider_def c = kyu_collider_def_default();
    c.type = KYU_SHAPE_BOX, c.position = (vec3s){{x, 0.05f, z}}, c.half_extents = (vec3s){{hx, 0.05f, hz}};
    c.restitution = 0.75f, c.friction = 0.2f;
    kyu_collider_create(w, &c, NULL);
}

// The table in world w (made with friction_mix KYU_MIX_MAX: ball on cloth 0.2, ball on ball
// 0.05), the rack, and the cue ball at (-0.635, R, 0) moving at cue_speed along +x (struck at its
// centre: no spin). ids gets the 16 handles, the cue ball last. 0, or -1 if a body was refused.
static inline int billiards_table(kyu_world *w, float cue_speed, kyu_body_id ids[BILLIARDS_BALLS]) {
    const float R = BILLIARDS_R, X = BILLIARDS_HALF_X, Z = BILLIARDS_HALF_Z;
    kyu_collider_def cloth = kyu_collider_def_default(); // the plane y = 0
    cloth.friction = BILLIARDS_CLOTH_MU, cloth.rolling_resistance = 0.01f;
    kyu_collider_create(w, &cloth, NULL);
    billiards_cushion(w, -X - 0.05f, 0, 0.05f, Z + 0.1f);
    billiards_cushion(w, X + 0.05f, 0, 0.05f, Z + 0.1f);
    billiards_cushion(w, 0, -Z - 0.05f, X, 0.05f);
    billiards_cushion(w, 0, Z + 0.05f, X, 0.05f);
    kyu_body_def ball = kyu_body_def_default();
    ball.radius = R, ball.mass = BILLIARDS_MASS, ball.restitution = 0.95f, ball.friction = 0.05f;
    int n = 0, bad = 0;
    for (int row = 0; row < 5; row++) // the rack: a triangle, its apex towards the cue ball
        for (int k = 0; k <= row; k++) {
            ball.position = (vec3s){{0.635f + (float)row * R * sqrtf(3.0f) * 1.001f, R,
                                     ((float)k - 0.5f * (float)row) * 2.002f * R}};
            bad |= kyu_body_create(w, &ball, &ids[n++]) != KYU_OK;
        }
    ball.position = (vec3s){{-0.635f, R, 0}}, ball.velocity = (vec3s){{cue_speed, 0, 0}};
    bad |= kyu_body_create(w, &ball, &ids[n]) != KYU_OK;
    return bad ? -1 : 0;
}

#endif
