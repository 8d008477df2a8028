// SPDX-License-Identifier: MIT
// The viewer's scenes: each builds a world and may spawn, recycle or steer things between steps.
#ifndef VIEWER_SCENES_H
#define VIEWER_SCENES_H

#include <kyu/kyu.h>

#include "render.h"

#define SCENE_RING 512 // bodies a scene fires or spawns and recycles, oldest first

typedef struct scene scene;

typedef struct scene_desc {
    const char *name;  // for --scene
    const char *title; // on screen
    int (*build)(scene *s);
    void (*update)(scene *s, float dt); // before the frame's steps: spawn, recycle, steer (may be NULL)
    void (*fire)(scene *s);             // the fire key (may be NULL)
    camera cam;
} scene_desc;

struct scene {
    const scene_desc *desc;
    kyu_world *world;
    uint32_t rng;
    double time; // simulated seconds
    float timer; // next automatic fire or spawn
    int auto_fire;
    kyu_body_id ring[SCENE_RING]; // spawned bodies still alive, oldest first
    int ring_start, ring_count, ring_max;
    int fired, recycled, passed, spawn_left;
    kyu_collider_id mover;
    char status[96]; // a scene line for the on-screen text
};

extern const scene_desc scene_list[];
extern const int scene_count;

// The scene named `name`, or -1.
int scene_find(const char *name);
// Builds scene k (destroying what s held). 0 on success.
int scene_load(scene *s, int k);
void scene_free(scene *s);
void scene_update(scene *s, float dt);
void scene_fire(scene *s);

#endif
