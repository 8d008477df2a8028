// SPDX-License-Identifier: MIT
// The worker pool: worker_count - 1 pthreads owned by the world plus the calling thread, or the
// game's own job system through the enqueue/finish callbacks. A parallel phase splits its items
// into one contiguous range per worker; every task writes only per-item results, so neither the
// split nor the timing can change an answer (results are bit-identical for any worker count).
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct kyu_pool {
    pthread_t *threads;
    int count; // threads started (worker_count - 1)
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    uint64_t generation;   // bumped for each parallel phase
    int pending;           // workers still running the current phase
    int quit;
    kyu_task_fn *task;
    void *context;
    int items, workers;
};

typedef struct worker_arg {
    struct kyu_pool *pool;
    int index; // 1 .. count (the caller is worker 0)
} worker_arg;

static void run_share(struct kyu_pool *p, int worker) {
    int64_t begin = (int64_t)p->items * worker / p->workers, end = (int64_t)p->items * (worker + 1) / p->workers;
    if (end > begin) p->task((int)begin, (int)end, worker, p->context);
}

static void *worker_main(void *arg) {
    worker_arg *wa = arg;
    struct kyu_pool *p = wa->pool;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->quit && p->generation == seen) pthread_cond_wait(&p->wake, &p->lock);
        if (p->quit) break;
        seen = p->generation;
        pthread_mutex_unlock(&p->lock);
        run_share(p, wa->index);
        pthread_mutex_lock(&p->lock);
        if (--p->pending == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    free(wa);
    return NULL;
}

int kyu_pool_create(kyu_world *w) {
    int n = w->def.worker_count - 1;
    if (n <= 0 || w->def.enqueue_task) return 0;
    struct kyu_pool *p = calloc(1, sizeof *p);
    if (!p) return -1;
    p->threads = calloc((size_t)n, sizeof *p->threads);
    if (!p->threads || pthread_mutex_init(&p->lock, NULL)) {
        free(p->threads);
        free(p);
        return -1;
    }
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    w->pool = p;
    for (int i = 0; i < n; i++) {
        worker_arg *wa = malloc(sizeof *wa);
        if (!wa) return -1;
        wa->pool = p;
        wa->index = i + 1;
        if (pthread_create(&p->threads[i], NULL, worker_main, wa)) {
            free(wa);
            return -1;
        }
        p->count++;
    }
    return 0;
}

void kyu_pool_destroy(kyu_world *w) {
    struct kyu_pool *p = w->pool;
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->count; i++) pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
    free(p->threads);
    free(p);
    w->pool = NULL;
}

// Runs task over [0, items) on every worker and returns when all are done. Small phases run on the
// caller alone: waking threads costs more than it saves.
void kyu_parallel_for(kyu_world *w, int items, int min_range, kyu_task_fn *task, void *context) {
    if (items <= 0) return;
    int workers = w->def.worker_count;
    if (w->def.enqueue_task) {
        void *t = w->def.enqueue_task(task, items, min_range, context, w->def.user_task_context);
        if (t) w->def.finish_task(t, w->def.user_task_context);
        return;
    }
    struct kyu_pool *p = w->pool;
    if (!p || p->count == 0 || items < 2 * min_range) {
        task(0, items, 0, context);
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->task = task;
    p->context = context;
    p->items = items;
    p->workers = p->count + 1 < workers ? p->count + 1 : workers;
    p->pending = p->count;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    run_share(p, 0);
    pthread_mutex_lock(&p->lock);
    while (p->pending > 0) pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}
