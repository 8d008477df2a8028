// SPDX-License-Identifier: MIT
// Built against an installed kyu through find_package(kyu): the headers and the library agree on
// the version, and a ball dropped on the ground comes to rest on it. Exit 0 when both hold.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <kyu/kyu.h>

int main(void) {
    kyu_world_def wd = kyu_world_def_default();
    kyu_world *world;
    if (kyu_world_create(&wd, &world) != KYU_OK) return 1;
    kyu_collider_def ground = kyu_collider_def_default();
    kyu_collider_create(world, &ground, NULL);
    kyu_body_def bd = kyu_body_def_default(); // radius 0.5
    bd.position.y = 2.0f;
    kyu_body_id ball;
    if (kyu_body_create(world, &bd, &ball) != KYU_OK) return 1;
    for (int i = 0; i < 240; i++) kyu_world_step(world);
    vec3s p;
    kyu_body_get_position(world, ball, &p);
    kyu_world_destroy(world);
    int same_version = strcmp(kyu_version(), KYU_VERSION_STRING) == 0;
    printf("kyu %s (headers %s): the ball rests at y = %.3f\n", kyu_version(), KYU_VERSION_STRING,
           (double)p.y);
    return same_version && fabsf(p.y - 0.5f) < 0.01f ? 0 : 1;
}
