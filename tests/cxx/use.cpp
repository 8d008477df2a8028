// SPDX-License-Identifier: MIT
// A C++ program of kyu: it includes <kyu/kyu.h> with C++'s standard library, prints the layout of
// the public structs (tests/tools/cxx.sh compares it with layout.c's), then drops three balls and
// measures a convex distance through a support callback, so calls cross the C/C++ boundary both ways.
#include <cmath>
#include <cstdio>
#include <vector>

#include <kyu/kyu.h>

#include "layout.h"

// The support function of a unit sphere at the origin, called by kyu's C code.
static vec3s unit_sphere_support(const void *, vec3s dir) {
    float n = std::sqrt(dir.x * dir.x + dir.y * dir.y + dir.z * dir.z);
    vec3s p = {{0.0f, 0.0f, 0.0f}};
    if (n > 0.0f) p = vec3s{{dir.x / n, dir.y / n, dir.z / n}};
    return p;
}

int main() {
#define PRINT(T) std::printf("%s %zu %zu\n", #T, sizeof(T), alignof(T));
    KYU_PUBLIC_STRUCTS(PRINT)

    kyu_world_def wd = kyu_world_def_default();
    kyu_world *world = nullptr;
    if (kyu_world_create(&wd, &world) != KYU_OK) return 1;
    kyu_collider_def ground = kyu_collider_def_default();
    kyu_collider_create(world, &ground, nullptr);
    std::vector<kyu_body_id> balls(3, KYU_NULL_BODY);
    for (size_t i = 0; i < balls.size(); i++) {
        kyu_body_def bd = kyu_body_def_default();
        bd.position.x = 2.0f * static_cast<float>(i);
        bd.position.y = 1.0f + static_cast<float>(i);
        if (kyu_body_create(world, &bd, &balls[i]) != KYU_OK) return 1;
    }
    for (int s = 0; s < 240; s++) kyu_world_step(world);
    for (kyu_body_id b : balls) {
        vec3s p;
        kyu_body_get_position(world, b, &p);
        std::printf("rests at y=%.2f\n", static_cast<double>(p.y)); // radius 0.5 on the plane y = 0
    }
    kyu_world_destroy(world);

    kyu_convex a = kyu_convex_sphere(vec3s{{3.0f, 0.0f, 0.0f}}, 0.5f);
    kyu_convex b = {};
    b.type = KYU_CONVEX_CALLBACK;
    b.callback.support = unit_sphere_support;
    float d = kyu_convex_distance(&a, &b, nullptr, nullptr, nullptr);
    std::printf("convex distance %.3f\n", static_cast<double>(d)); // 3 - 0.5 - 1
    return 0;
}
