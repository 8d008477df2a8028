// SPDX-License-Identifier: MIT
#include <kyu/kyu.h>
#include <stdio.h>

int main(void) {
    kyu_world_def wd = kyu_world_def_default(); // gravity -9.81 y, dt 1/60, ...
    kyu_world *world;
    if (kyu_world_create(&wd, &world) != KYU_OK) return 1;
    kyu_collider_def ground = kyu_collider_def_default(); // the static plane y = 0
    ground.restitution = 0.8f;
    kyu_collider_create(world, &ground, NULL);
    kyu_body_def bd = kyu_body_def_default(); // radius 0.5 m, mass 1 kg
    bd.position.y = 5.0f;                     // 5 m up (x and z are 0)
    bd.restitution = 0.8f;
    kyu_body_id ball;
    kyu_status st = kyu_body_create(world, &bd, &ball);
    if (st != KYU_OK) printf("%s\n", kyu_world_last_error(world));
    for (int frame = 0; frame < 120; frame++) {
        kyu_world_update(world, 1.0f / 60.0f, NULL); // fixed steps, accumulator, alpha
        vec3s p;
        kyu_body_get_interpolated_position(world, ball, &p);
        if (frame % 20 == 0) printf("t=%.2f y=%.3f\n", frame / 60.0, p.y); // drawn a step behind
    }
    kyu_world_destroy(world);
}
