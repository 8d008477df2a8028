// SPDX-License-Identifier: MIT
// Placeholder: the closest tests are being written (issue 5).
#include "test.h"

void suite_closest(void) {}
