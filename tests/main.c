// SPDX-License-Identifier: MIT
// Test runner: runs every suite (or the tests whose names contain any of the arguments, and every
// test of a suite named as suite:NAME, e.g. suite:threads) and ends with the line "N passed, N
// failed"; exits non-zero on any failure.
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
static const char *current_suite; // the suite running, without its suite_ prefix
static char filter_used[64];      // whether each filter chose a test: one that chose none is a typo
int test_current_failed;

void test_fail(const char *file, int line, const char *what) {
    test_current_failed = 1;
    printf("    FAIL %s:%d: %s\n", file, line, what);
}

void test_run(const char *name, void (*fn)(void)) {
    int chosen = filters == NULL;
    for (int i = 0; i < filter_count; i++)
        if (strncmp(filters[i], "suite:", 6) == 0 ? strcmp(filters[i] + 6, current_suite) == 0
                                                  : strstr(name, filters[i]) != NULL)
            chosen = 1, filter_used[i] = 1;
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

#define SUITE(name) (current_suite = #name, suite_##name())

int main(int argc, char **argv) {
    filters = argc > 1 ? argv + 1 : NULL;
    filter_count = argc - 1;
    if (filter_count > (int)sizeof filter_used) {
        printf("run_tests: at most %d names\n", (int)sizeof filter_used);
        return 2;
    }
    SUITE(geometry);
    SUITE(version);
    SUITE(errors);
    SUITE(world);
    SUITE(bodies);
    SUITE(handles);
    SUITE(physics);
    SUITE(islands);
    SUITE(threads);
    SUITE(closest);
    SUITE(intersect);
    SUITE(convex);
    SUITE(sweeps);
    SUITE(colliders);
    SUITE(query);
    SUITE(draw);
    SUITE(snapshot);
    SUITE(grid);
    SUITE(narrowphase);
    SUITE(removal);
    SUITE(robustness);
    SUITE(rest);
    SUITE(bulk);
    SUITE(spin);
    SUITE(validate);
    SUITE(forces);
    SUITE(audit);
    SUITE(measure);
    SUITE(insert);
    SUITE(periodic);
    SUITE(solver);
    for (int i = 0; i < filter_count; i++)
        if (!filter_used[i]) {
            printf("FAIL %s: no test is named so (suite:NAME for a suite)\n", filters[i]);
            failed++;
        }
    printf("%d passed, %d failed\n", passed, failed);
    return failed || passed == 0 ? 1 : 0;
}
