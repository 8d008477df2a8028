// SPDX-License-Identifier: MIT
// Test runner: runs every suite (or the tests whose names contain any of the arguments) and ends
// with the line "N passed, N failed"; exits non-zero on any failure.
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test.h"

static int passed, failed;

int test_quick(void) {
    static int quick = -1;
    if (quick < 0) quick = getenv("KYU_TEST_QUICK") != NULL && getenv("KYU_TEST_QUICK")[0] != '\0';
    return quick;
}
static char **filters; // NULL: every test
static int filter_count;
int test_current_failed;

void test_fail(const char *file, int line, const char *what) {
    test_current_failed = 1;
    printf("    FAIL %s:%d: %s\n", file, line, what);
}

void test_run(const char *name, void (*fn)(void)) {
    int chosen = filters == NULL;
    for (int i = 0; i < filter_count && !chosen; i++) chosen = strstr(name, filters[i]) != NULL;
    if (!chosen) return;
    test_current_failed = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fn();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6;
    printf("%s %s (%.0f ms)\n", test_current_failed ? "FAIL" : "ok  ", name, ms);
    fflush(stdout);
    if (test_current_failed)
        failed++;
    else
        passed++;
}

int main(int argc, char **argv) {
    filters = argc > 1 ? argv + 1 : NULL;
    filter_count = argc - 1;
    suite_geometry();
    suite_version();
    suite_errors();
    suite_world();
    suite_bodies();
    suite_handles();
    suite_physics();
    suite_islands();
    suite_threads();
    suite_closest();
    suite_intersect();
    suite_convex();
    suite_sweeps();
    suite_colliders();
    suite_query();
    suite_draw();
    suite_snapshot();
    suite_grid();
    suite_narrowphase();
    suite_removal();
    suite_robustness();
    suite_rest();
    suite_bulk();
    suite_spin();
    suite_validate();
    suite_forces();
    suite_audit();
    suite_measure();
    suite_insert();
    suite_periodic();
    suite_solver();
    printf("%d passed, %d failed\n", passed, failed);
    return failed || passed == 0 ? 1 : 0;
}
