// SPDX-License-Identifier: MIT
// Placeholder: the convex tests are being written (issue 5).
#include "test.h"

void suite_convex(void) {}
