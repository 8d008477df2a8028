// SPDX-License-Identifier: MIT
// kyu-web-hash: steps the browser's two scenes natively and prints their state hashes and the
// lesson's impact record, the lines the page writes with ?test=STEPS (web/page.js).
// tests/tools/wasm.sh compares the two: the same C, the same floats, on x86-64 and in WebAssembly.
//   kyu-web-hash [STEPS]    (default 1200)
#include <stdio.h>
#include <stdlib.h>

#include "kyu_web.h"

// The lesson's test settings, also in web/page.js: values floats hold exactly, so the page's
// JavaScript numbers arrive as the same floats.
#define TEST_LESSON 0.75f, 0.25f, 20.0f, 0.25f, 120

static int run(const char *name, kyu_web *web, int steps, int impact) {
    if (!web) {
        fprintf(stderr, "kyu-web-hash: %s: the scene was not made\n", name);
        return 1;
    }
    // Checkpoints, so a difference shows when it began: every tenth of the run and the end.
    for (int s = 1; s <= steps; s++) {
        if (kyu_web_step(web) != 0) {
            fprintf(stderr, "kyu-web-hash: %s: step %d failed\n", name, s);
            kyu_web_destroy(web);
            return 1;
        }
        if (s == steps || (steps >= 10 && s % (steps / 10) == 0))
            printf("%s %d %s\n", name, s, kyu_web_state_hash(web));
    }
    if (impact) // the lesson: the record its page's panel shows
        printf("%s-impact %s\n", name, kyu_web_impact_json(web));
    kyu_web_destroy(web);
    return 0;
}

// A scene of your own, made with the calls a page makes (web/page.js builds the same): 200 balls
// poured into a box on a plane, off their columns by up to 3 cm so the heap tumbles. Every number is exact in
// binary, so JavaScript's doubles arrive as these very floats.
static kyu_web *pour(void) {
    kyu_web *web = kyu_web_create(0.0f, -9.8125f, 0.0f, 120);
    if (!web) return NULL;
    int bad = kyu_web_add_plane(web, 0.0f, 1.0f, 0.0f, 0.0f, 0.375f, 0.5f);
    bad |= kyu_web_add_box(web, -1.125f, 1.0f, 0.0f, 0.125f, 1.0f, 1.25f, 0.375f, 0.5f);
    bad |= kyu_web_add_box(web, 1.125f, 1.0f, 0.0f, 0.125f, 1.0f, 1.25f, 0.375f, 0.5f);
    bad |= kyu_web_add_box(web, 0.0f, 1.0f, -1.125f, 1.0f, 1.0f, 0.125f, 0.375f, 0.5f);
    bad |= kyu_web_add_box(web, 0.0f, 1.0f, 1.125f, 1.0f, 1.0f, 0.125f, 0.375f, 0.5f);
    for (int i = 0; i < 200; i++)
        bad |= kyu_web_add_ball(web, -0.75f + 0.25f * (float)(i % 7) + 0.0078125f * (float)(i % 5),
                                0.5f + 0.25f * (float)(i / 49), -0.75f + 0.25f * (float)((i / 7) % 7), 0.0f,
                                0.0f, 0.0f, 0.0625f + 0.015625f * (float)(i % 3), 1.0f, 0.375f, 0.5f) < 0;
    if (bad) {
        kyu_web_destroy(web);
        return NULL;
    }
    return web;
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 1200;
    if (steps < 1 || steps > 1000000) {
        fprintf(stderr, "usage: kyu-web-hash [STEPS in 1..1000000]\n");
        return 2;
    }
    int bad = run("billiards", kyu_web_billiards_create(1), steps, 0);
    bad |= run("lesson", kyu_web_lesson_create(TEST_LESSON), steps, 1);
    bad |= run("pour", pour(), steps, 0);
    return bad;
}
