// SPDX-License-Identifier: MIT
// Private to the engine: the threads' module (threads.c): the world's worker pool (its state is the
// world's `pool`, opaque outside threads.c) and the one way the stages run work on it.
#ifndef KYU_POOL_H
#define KYU_POOL_H

#include "common.h"

int kyu_pool_create(kyu_world *w);
void kyu_pool_destroy(kyu_world *w);
// task(begin, end, worker, context) over [0, items) in ranges of at least min_range, on the pool's
// workers or the user's job system (kyu_world_def.enqueue_task); returns when every range is done.
void kyu_parallel_for(kyu_world *w, int items, int min_range, kyu_task_fn *task, void *context);

#endif
