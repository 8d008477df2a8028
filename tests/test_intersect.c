// SPDX-License-Identifier: MIT
// Placeholder: the intersect tests are being written (issue 5).
#include "test.h"

void suite_intersect(void) {}
