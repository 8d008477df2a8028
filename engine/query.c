// SPDX-License-Identifier: MIT
// World queries (placeholder until the query module lands): nothing cached yet.
#include "internal.h"

void kyu_query_invalidate(kyu_world *w) { (void)w; }
void kyu_query_free(kyu_world *w) { (void)w; }
