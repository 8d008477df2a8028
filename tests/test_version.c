// SPDX-License-Identifier: MIT
// The library's version (include/kyu/base.h): kyu_version() and KYU_VERSION_STRING.
#include <stdio.h>
#include <string.h>

#include "test.h"

// The library and the headers it was built with agree, and the string is the three numbers.
static void test_version_is_the_headers_three_numbers(void) {
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", KYU_VERSION_MAJOR, KYU_VERSION_MINOR, KYU_VERSION_PATCH);
    ENSURE(strcmp(KYU_VERSION_STRING, expected) == 0);
    ENSURE(kyu_version() != NULL);
    ENSURE(strcmp(kyu_version(), KYU_VERSION_STRING) == 0);
}

void suite_version(void) { RUN_TEST(test_version_is_the_headers_three_numbers); }
