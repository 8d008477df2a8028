// SPDX-License-Identifier: MIT
// Snapshots across machines (tests/tools/snapshots.sh): one build saves a world, another (another
// processor or operating system) loads it, and both must then step to the same state hash.
//   snapshot_check save FILE   builds the scene, steps it, saves FILE; prints "saved HASH" and,
//                              after STEPS more steps, "later HASH"
//   snapshot_check load FILE   loads FILE; prints "loaded HASH", then "later HASH" after STEPS
//                              steps, and saves the loaded world again to FILE.again (the bytes
//                              must be FILE's)
// The scene has every kind of collider (a turning kinematic box and a tilted box among them: the
// quaternion arithmetic), bodies that spin and bodies that do not, sleepers beside awake bodies,
// and removed bodies and colliders (slots waiting for reuse), so every section of the format holds
// something.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kyu/kyu.h>

#define STEPS 60

static kyu_world *build(void) {
    kyu_world_def wd = kyu_world_def_default();
    wd.worker_count = 2;
    wd.sleep_time = 0.3f;
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return NULL;
    kyu_collider_def ground = kyu_collider_def_default();
    kyu_collider_create(w, &ground, NULL);
    kyu_collider_def box = kyu_collider_def_default();
    box.type = KYU_SHAPE_BOX;
    box.position = (vec3s){{-5.5f, 1.5f, 0}};
    box.half_extents = (vec3s){{0.5f, 1.5f, 6}};
    box.rotation = (versors){{0, 0.0998f, 0, 0.995f}}; // tilted (normalised on create)
    kyu_collider_create(w, &box, NULL);
    box.position = (vec3s){{0, 0.3f, 3.5f}};
    box.half_extents = (vec3s){{1, 0.1f, 0.5f}};
    box.rotation = (versors){{0, 0, 0, 1}};
    box.motion = KYU_KINEMATIC;
    box.velocity = (vec3s){{0.5f, 0, 0}};
    box.angular_velocity = (vec3s){{0, 0.7f, 0}}; // turns as it slides
    kyu_collider_create(w, &box, NULL);
    kyu_collider_def cap = kyu_collider_def_default();
    cap.type = KYU_SHAPE_CAPSULE;
    cap.capsule_a = (vec3s){{-2, 0.3f, -3}}, cap.capsule_b = (vec3s){{2, 0.3f, -3}}, cap.radius = 0.3f;
    kyu_collider_create(w, &cap, NULL);
    vec3s hull_pts[5] = {{{3, 0, 0}}, {{4, 0, 0}}, {{3.5f, 0, 1}}, {{3.5f, 1, 0.5f}}, {{3.5f, 0.1f, 0.4f}}};
    kyu_collider_def hull = kyu_collider_def_default();
    hull.type = KYU_SHAPE_HULL, hull.points = hull_pts, hull.point_count = 5;
    kyu_collider_create(w, &hull, NULL);
    vec3s mesh_pts[4] = {{{-4, 0.05f, -5}}, {{-2, 0.05f, -5}}, {{-2, 0.5f, -3}}, {{-4, 0.5f, -3}}};
    int32_t tris[6] = {0, 1, 2, 0, 2, 3};
    kyu_collider_def mesh = kyu_collider_def_default();
    mesh.type = KYU_SHAPE_MESH, mesh.points = mesh_pts, mesh.point_count = 4;
    mesh.indices = tris, mesh.triangle_count = 2;
    kyu_collider_create(w, &mesh, NULL);
    kyu_collider_id doomed;
    box.motion = KYU_STATIC;
    box.velocity = box.angular_velocity = (vec3s){{0, 0, 0}};
    box.position = (vec3s){{0, 5, 0}};
    kyu_collider_create(w, &box, &doomed);
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 0.2f;
    bd.restitution = 0.3f;
    bd.rolling_resistance = 0.2f;
    kyu_body_id ids[300];
    for (int i = 0; i < 300; i++) {
        bd.fixed_rotation = i % 2 == 0;
        bd.position = (vec3s){{-4.0f + (float)(i % 20) * 0.42f, 0.25f + (float)(i / 60) * 0.42f,
                               -2.0f + (float)(i / 20 % 3) * 0.42f + (float)(i % 3) * 0.01f}};
        bd.velocity = i % 50 == 0 ? (vec3s){{3, 6, -1}} : (vec3s){{0, 0, 0}};
        bd.angular_velocity = i % 7 == 0 ? (vec3s){{0, 0, 4}} : (vec3s){{0, 0, 0}};
        kyu_body_create(w, &bd, &ids[i]);
    }
    bd.position = (vec3s){{4, 3, -5.5f}}; // bounces for ever: part of the world stays awake
    bd.velocity = bd.angular_velocity = (vec3s){{0, 0, 0}};
    bd.restitution = 1.0f;
    bd.allow_sleep = false;
    kyu_body_create(w, &bd, NULL);
    for (int s = 0; s < 150; s++) kyu_world_step(w);
    for (int i = 0; i < 300; i += 37) kyu_body_destroy(w, ids[i]);
    kyu_collider_destroy(w, doomed);
    for (int s = 0; s < 30; s++) kyu_world_step(w);
    return w;
}

static int later(kyu_world *w) {
    for (int s = 0; s < STEPS; s++) kyu_world_step(w);
    printf("later %016llx\n", (unsigned long long)kyu_world_state_hash(w));
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "save") != 0 && strcmp(argv[1], "load") != 0)) {
        fprintf(stderr, "usage: snapshot_check save|load FILE\n");
        return 2;
    }
    kyu_world *w = NULL;
    if (strcmp(argv[1], "save") == 0) {
        w = build();
        if (!w || kyu_world_save(w, argv[2]) != KYU_OK) {
            fprintf(stderr, "snapshot_check: cannot build or save (%s)\n", w ? kyu_world_last_error(w) : "");
            return 1;
        }
        printf("saved %016llx\n", (unsigned long long)kyu_world_state_hash(w));
    } else {
        kyu_world_def wd = kyu_world_def_default();
        wd.worker_count = 2;
        if (kyu_world_create(&wd, &w) != KYU_OK || kyu_world_load(w, argv[2]) != KYU_OK) {
            fprintf(stderr, "snapshot_check: cannot load %s (%s)\n", argv[2],
                    w ? kyu_world_last_error(w) : "");
            return 1;
        }
        printf("loaded %016llx\n", (unsigned long long)kyu_world_state_hash(w));
        size_t n = strlen(argv[2]) + 7;
        char *again = malloc(n);
        if (!again) return 1;
        snprintf(again, n, "%s.again", argv[2]);
        if (kyu_world_save(w, again) != KYU_OK) return 1;
        free(again);
    }
    later(w);
    kyu_world_destroy(w);
    return 0;
}
