// SPDX-License-Identifier: MIT
// Placeholder: the sweeps tests are being written (issue 5).
#include "test.h"

void suite_sweeps(void) {}
