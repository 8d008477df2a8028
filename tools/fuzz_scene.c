// SPDX-License-Identifier: MIT
// fuzz_scene: libFuzzer target for the scene loader (`make fuzz`). Any bytes must give a scene or
// a one-line error, never a crash, a leak or undefined behaviour; a scene that loads is stepped a
// few times so the engine meets what the loader let through. Body and point counts are capped so
// each input runs in milliseconds.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "scene.h"

enum { FUZZ_STEPS = 3 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    kyu_scene_options opt = {0};
    opt.threads = 1;
    opt.max_bodies = 300;
    opt.max_colliders = 64;
    opt.max_points = 2000;
    char err[512];
    kyu_scene *s = kyu_scene_load_string((const char *)data, size, "fuzz.json", &opt, err, sizeof err);
    if (s == NULL) {
        // An error must be one non-empty line naming the input.
        if (err[0] == '\0' || strchr(err, '\n') != NULL || strncmp(err, "fuzz.json", 9) != 0)
            __builtin_trap();
        return 0;
    }
    long steps = kyu_scene_run_steps(s);
    for (long i = 0; i < steps && i < FUZZ_STEPS; i++)
        if (kyu_scene_step(s) != 0) break;
    (void)kyu_scene_potential_energy(s);
    kyu_scene_destroy(s);
    return 0;
}
