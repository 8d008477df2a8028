// SPDX-License-Identifier: MIT
// The worker pool: worker_count - 1 threads owned by the world plus the calling thread, or the
// game's own job system through the enqueue/finish callbacks. A parallel phase gives each worker a
// contiguous share of its items, whose last chunks a worker that finished early may take (see
// run_share); every task writes only per-item results, so neither the split nor the timing can
// change an answer (results are bit-identical for any worker count).
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "os.h" // threads, locks, clocks: pthreads or Win32

// A worker's share of a phase: items [front, back), packed in one word so the owner (taking chunks
// from the front) and a thief (taking chunks from the back) never take the same item.
typedef struct share {
    _Alignas(64) atomic_uint_fast64_t range; // front << 32 | back
} share;

// The caller's account of its parallel phases (see meter_phase).
typedef struct meter {
    double wall, lost;
    int short_windows; // windows in a row that lost more than BUSY_LOSS of their time
} meter;

struct kyu_pool {
    kyu_thread *threads;
    int count; // threads started (worker_count - 1)
    kyu_mutex lock;
    kyu_cond wake, done;
    int spin;                        // workers fit on the machine's processors: spin between phases
    double alone_until;              // s (kyu_os_seconds): until then phases run on the caller alone
    meter caller;                    // only the caller (the stepping thread) touches these two
    atomic_uint_fast64_t generation; // bumped for each parallel phase (after its fields are set)
    atomic_int pending;              // workers still running the current phase
    atomic_int sleepers;             // workers asleep on `wake`, or about to be
    atomic_int quit;
    kyu_task_fn *task;
    void *context;
    int items, workers, chunk;
    share *shares;      // one per worker, each on its own cache line
    void *shares_block; // what kyu_malloc gave for them (shares is inside it, aligned)
};

typedef struct worker_arg {
    struct kyu_pool *pool;
    int index; // 1 .. count (the caller is worker 0)
} worker_arg;

static uint64_t pack(uint32_t front, uint32_t back) { return (uint64_t)front << 32 | back; }

// Takes a chunk of share s: from the front for its owner, from the back for a thief. 0 if empty.
static int take(struct kyu_pool *p, share *s, int from_back, uint32_t *begin, uint32_t *end) {
    uint64_t r = atomic_load_explicit(&s->range, memory_order_relaxed);
    for (;;) {
        uint32_t front = (uint32_t)(r >> 32), back = (uint32_t)r;
        if (front >= back) return 0;
        uint32_t n = back - front < (uint32_t)p->chunk ? back - front : (uint32_t)p->chunk;
        uint64_t next = from_back ? pack(front, back - n) : pack(front + n, back);
        if (atomic_compare_exchange_weak_explicit(&s->range, &r, next, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            *begin = from_back ? back - n : front;
            *end = from_back ? back : front + n;
            return 1;
        }
    }
}

// A worker runs its own contiguous share (the same part of the data phase after phase, so it stays
// in that worker's cache), front to back, then takes what is left of the others' from their backs:
// a worker that runs slower (another process on its processor, data in the other's cache) gives
// up its last chunks. The split follows the timing; no answer does (every task gives the same
// result for any split).
static void run_share(struct kyu_pool *p, int worker) {
    KYU_ASSERT(worker < p->workers); // every thread the pool started takes part in every phase
    uint32_t begin, end;
    while (take(p, &p->shares[worker], 0, &begin, &end)) p->task((int)begin, (int)end, worker, p->context);
    for (int k = 1; k < p->workers; k++) {
        share *victim = &p->shares[(worker + k) % p->workers];
        while (take(p, victim, 1, &begin, &end)) p->task((int)begin, (int)end, worker, p->context);
    }
}

// Busy processors. When another process (a renderer, a game loop, another job) needs the processors
// the workers run on, a parallel phase waits for whichever worker the kernel took the processor
// from (to see the phase begin, or to finish a chunk it holds), for a time slice of milliseconds,
// and a step of a few dozen phases becomes several times slower than on one thread. The caller
// meters its phases: of each phase's wall time, the part it spent waiting for the workers after
// its own share (unless it had to wake them: see meter_phase), plus the part of its own share the
// kernel kept it from running (thread CPU time short of wall time). When that lost part is more than
// BUSY_LOSS of a window of METER_WINDOW seconds of phases, BUSY_WINDOWS windows in a row (one is a hiccup),
// the machine is busy: for the next ALONE_SECONDS the phases run on the caller alone (as with one worker;
// answers do not change with the split), then the workers try again (kyu_world_def.yield_when_busy, default
// on). Measured on two cores with one busy process beside: see docs/benchmarks.md.
#define METER_WINDOW  4e-3
#define BUSY_LOSS     0.35
#define BUSY_WINDOWS  2
#define ALONE_SECONDS 0.5

static void meter_phase(struct kyu_pool *p, double start, double share_wall, double share_cpu, double end,
                        int woke) {
    meter *m = &p->caller;
    m->wall += end - start;
    // A phase that had to wake sleeping workers waited for the wake-up too (tens of microseconds,
    // busy or not): only its own share's lost time counts.
    m->lost += (woke ? 0.0 : end - start - share_wall) + (share_wall - share_cpu);
    if (m->wall < METER_WINDOW) return;
    m->short_windows = m->lost > BUSY_LOSS * m->wall ? m->short_windows + 1 : 0;
    if (m->short_windows >= BUSY_WINDOWS) {
        p->alone_until = end + ALONE_SECONDS;
        m->short_windows = 0;
    }
    m->wall = m->lost = 0.0;
}

// A step dispatches a few dozen phases with short serial stretches between them. A worker that
// slept on the condition variable between them took tens of microseconds to wake (measured: 27 us
// a phase on average in PILE 100k), while the caller, which starts its share at once, then waited
// for it. So a worker first spins a short while for the next phase, and only then sleeps. Only when
// every worker has a processor of its own: with more workers than processors, a spinning worker
// takes the processor from one with work (PILE 10k with 8 workers on 2 cores: 0.93 -> 5.4 ms).
#define SPIN_SECONDS 200e-6

static int wait_for_phase(struct kyu_pool *p, uint64_t seen) {
    double until = 0.0;
    for (int i = 1; p->spin; i++) {
        if (atomic_load_explicit(&p->quit, memory_order_acquire)) return 0;
        if (atomic_load_explicit(&p->generation, memory_order_acquire) != seen) return 1;
        kyu_os_relax();
        if ((i & 63) == 0) {
            double t = kyu_os_seconds();
            if (until == 0.0)
                until = t + SPIN_SECONDS;
            else if (t > until)
                break;
        }
    }
    // Sleep. `sleepers` is raised before the generation is read again and the dispatcher bumps the
    // generation before it reads `sleepers` (both sequentially consistent), so either this thread
    // sees the new phase or the dispatcher sees a sleeper and signals it under the lock.
    kyu_mutex_lock(&p->lock);
    atomic_fetch_add(&p->sleepers, 1);
    while (!atomic_load(&p->quit) && atomic_load(&p->generation) == seen) kyu_cond_wait(&p->wake, &p->lock);
    atomic_fetch_sub(&p->sleepers, 1);
    kyu_mutex_unlock(&p->lock);
    return !atomic_load(&p->quit);
}

static void worker_main(void *arg) {
    worker_arg *wa = arg;
    struct kyu_pool *p = wa->pool;
    uint64_t seen = 0;
    while (wait_for_phase(p, seen)) {
        seen = atomic_load_explicit(&p->generation, memory_order_acquire);
        run_share(p, wa->index);
        if (atomic_fetch_sub_explicit(&p->pending, 1, memory_order_acq_rel) == 1 && !p->spin) {
            kyu_mutex_lock(&p->lock); // the caller waits on `done` under the lock: no lost wake
            kyu_cond_signal(&p->done);
            kyu_mutex_unlock(&p->lock);
        }
    }
    kyu_free(wa);
}

int kyu_pool_create(kyu_world *w) {
    int n = w->def.worker_count - 1;
    if (n <= 0 || w->def.enqueue_task) return 0;
    struct kyu_pool *p = kyu_calloc(1, sizeof *p);
    if (!p) return -1;
    p->threads = kyu_calloc((size_t)n, sizeof *p->threads);
    // The user's hooks promise no alignment beyond malloc's, so the shares are aligned inside a
    // block with room to spare (aligned_alloc would bypass the hooks, and kyu_free would hand them
    // a block they never gave).
    p->shares_block = kyu_malloc((size_t)(n + 1) * sizeof *p->shares + _Alignof(share));
    if (!p->threads || !p->shares_block || kyu_mutex_init(&p->lock)) {
        kyu_free(p->threads);
        kyu_free(p->shares_block);
        kyu_free(p);
        return -1;
    }
    uintptr_t at = (uintptr_t)p->shares_block + _Alignof(share) - 1;
    p->shares = (share *)(at - at % _Alignof(share));
    for (int k = 0; k <= n; k++) atomic_init(&p->shares[k].range, 0); // empty
    kyu_cond_init(&p->wake);
    kyu_cond_init(&p->done);
    p->spin = n + 1 <= kyu_os_processors();
    w->pool = p;
    for (int i = 0; i < n; i++) {
        worker_arg *wa = kyu_malloc(sizeof *wa);
        if (!wa) return -1;
        wa->pool = p;
        wa->index = i + 1;
        if (kyu_thread_start(&p->threads[i], worker_main, wa)) {
            kyu_free(wa);
            return -1;
        }
        p->count++;
    }
    return 0;
}

void kyu_pool_destroy(kyu_world *w) {
    struct kyu_pool *p = w->pool;
    if (!p) return;
    kyu_mutex_lock(&p->lock);
    atomic_store(&p->quit, 1);
    kyu_cond_broadcast(&p->wake);
    kyu_mutex_unlock(&p->lock);
    for (int i = 0; i < p->count; i++) kyu_thread_join(&p->threads[i]);
    kyu_cond_destroy(&p->wake);
    kyu_cond_destroy(&p->done);
    kyu_mutex_destroy(&p->lock);
    kyu_free(p->threads);
    kyu_free(p->shares_block);
    kyu_free(p);
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
    double start = kyu_os_seconds();
    if (w->def.yield_when_busy && start < p->alone_until) {
        w->stats.phases_alone++;
        task(0, items, 0, context);
        return;
    }
    p->task = task;
    p->context = context;
    p->items = items;
    p->workers = p->count + 1 < workers ? p->count + 1 : workers;
    int chunk = items / (8 * p->workers); // eight chunks a share: the last ones can move
    p->chunk = chunk > min_range ? chunk : min_range;
    for (int k = 0; k < p->workers; k++)
        atomic_store_explicit(&p->shares[k].range,
                              pack((uint32_t)((int64_t)items * k / p->workers),
                                   (uint32_t)((int64_t)items * (k + 1) / p->workers)),
                              memory_order_relaxed);
    atomic_store_explicit(&p->pending, p->count, memory_order_relaxed);
    atomic_fetch_add(&p->generation, 1); // publishes the fields above
    int woke = atomic_load(&p->sleepers) > 0;
    if (woke) {
        kyu_mutex_lock(&p->lock);
        kyu_cond_broadcast(&p->wake);
        kyu_mutex_unlock(&p->lock);
    }
    double cpu0 = kyu_os_thread_seconds(), share_start = kyu_os_seconds();
    run_share(p, 0);
    double share_wall = kyu_os_seconds() - share_start;
    // Without a fine clock of the thread's own time (os.h), only the waits for the workers count.
    double share_cpu = cpu0 < 0.0 ? share_wall : kyu_os_thread_seconds() - cpu0;
    if (!p->spin) {
        kyu_mutex_lock(&p->lock);
        while (atomic_load(&p->pending) > 0) kyu_cond_wait(&p->done, &p->lock);
        kyu_mutex_unlock(&p->lock);
    } else {
        for (int i = 1; atomic_load_explicit(&p->pending, memory_order_acquire) > 0; i++) {
            kyu_os_relax();
            if ((i & 1023) == 0) kyu_os_yield(); // a worker descheduled by another process: let it run
        }
    }
    meter_phase(p, start, share_wall, share_cpu, kyu_os_seconds(), woke);
}
