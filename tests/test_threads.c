// SPDX-License-Identifier: MIT
// Workers: bit-identical results for any worker count, a game's job system honoured.
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "kyu/kyu.h"
#include "test.h"

static uint32_t lcg;
static double frand(void) {
    lcg = lcg * 1664525u + 1013904223u;
    return (lcg >> 8) * (1.0 / 16777216.0);
}

static void add_wall(kyu_world *w, vec3s lo, vec3s hi) {
    add_box(w, lo, hi, 0.2f, 0.5f, KYU_STATIC, v3(0, 0, 0));
}

// docs/benchmarks.md PILE(n) for `steps` steps with this def; returns the state hash.
static uint64_t pile_hash(kyu_world_def wd, int n, int steps) {
    lcg = 12345;
    int k = (int)ceil(sqrt(n / 10.0)), layers = (n + k * k - 1) / (k * k);
    float L = 1.1f * k + 1.0f, H = 1.1f * layers + 2;
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return 0;
    add_wall(w, v3(-L / 2 - 1, -1, -L / 2 - 1), v3(L / 2 + 1, 0, L / 2 + 1));
    add_wall(w, v3(-L / 2 - 1, 0, -L / 2 - 1), v3(-L / 2, H, L / 2 + 1));
    add_wall(w, v3(L / 2, 0, -L / 2 - 1), v3(L / 2 + 1, H, L / 2 + 1));
    add_wall(w, v3(-L / 2, 0, -L / 2 - 1), v3(L / 2, H, -L / 2));
    add_wall(w, v3(-L / 2, 0, L / 2), v3(L / 2, H, L / 2 + 1));
    kyu_body_def bd = kyu_body_def_default();
    bd.restitution = 0.2f;
    // Half the balls spin (both kinds of contact are solved in parallel); rolling resistance 0.3
    // holds the columns' small leans (0.3 R = 7.5 cm at the base contact), so the pile lands, rests
    // and sleeps as kyu's piles did before spin, and every phase runs in the 600 steps.
    bd.rolling_resistance = 0.3f;
    for (int i = 0; i < n; i++) {
        bd.fixed_rotation = i % 2 == 0;
        int layer = i / (k * k), j = i % (k * k), a = j % k, b = j / k;
        float x = -L / 2 + 0.55f + 1.1f * a + 0.04f * (float)(frand() - 0.5);
        float z = -L / 2 + 0.55f + 1.1f * b + 0.04f * (float)(frand() - 0.5);
        bd.position = v3(x, 0.55f + 1.1f * layer, z);
        kyu_body_create(w, &bd, NULL);
    }
    for (int i = 0; i < steps; i++) kyu_world_step(w);
    uint64_t h = kyu_world_state_hash(w);
    kyu_world_destroy(w);
    return h;
}

// The worker counts whose answers the tests below compare: 1, 2, 3 and 8 (more workers than
// processors). ThreadSanitizer's build runs these tests to watch the threads for races, at 10-20
// times the cost: it runs 3 workers alone (an uneven split, on threads; the one-worker answer it
// was compared with took a third of its time), and every other build (gcc, clang's sanitizers,
// Windows, ARM64, CMake) compares all four.
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifdef UNDER_TSAN
static const int worker_counts[] = {3};
#else
static const int worker_counts[] = {1, 2, 3, 8};
#endif
#define WORKER_COUNTS ((int)(sizeof worker_counts / sizeof worker_counts[0]))

// The defaults with `workers` workers that split every phase, even 8 workers on 2 processors.
static kyu_world_def split_def(int workers) {
    kyu_world_def wd = kyu_world_def_default();
    wd.worker_count = workers;
    wd.yield_when_busy = false;
    return wd;
}

static void test_pile_is_bit_identical_for_1_2_3_and_8_workers(void) {
    uint64_t h[4];
    for (int i = 0; i < WORKER_COUNTS; i++) {
        // enough pairs and bodies for every phase to split
        h[i] = pile_hash(split_def(worker_counts[i]), 5000, TEST_LENGTH(600, 120));
        ENSURE(h[i] != 0);
    }
    for (int i = 1; i < WORKER_COUNTS; i++) ENSURE(h[i] == h[0]);
}

// A pour of 2,000 beads of radius R (10 x 10 a layer, a jittered lattice, into a box 12 diameters
// wide) for `steps` steps with this def: the state hash, and the most solve passes a step took.
static uint64_t bead_pour_hash(kyu_world_def wd, float R, int steps, int *most_passes) {
    lcg = 777;
    const float d = 2 * R, L = 12 * d, H = 60 * d;
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return 0;
    add_wall(w, v3(-L / 2 - d, -d, -L / 2 - d), v3(L / 2 + d, 0, L / 2 + d));
    add_wall(w, v3(-L / 2 - d, 0, -L / 2 - d), v3(-L / 2, H, L / 2 + d));
    add_wall(w, v3(L / 2, 0, -L / 2 - d), v3(L / 2 + d, H, L / 2 + d));
    add_wall(w, v3(-L / 2, 0, -L / 2 - d), v3(L / 2, H, -L / 2));
    add_wall(w, v3(-L / 2, 0, L / 2), v3(L / 2, H, L / 2 + d));
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = R, bd.restitution = 0.2f;
    for (int i = 0; i < 2000; i++) {
        int layer = i / 100, a = i % 10, b = i / 10 % 10;
        bd.position = v3(-L / 2 + 1.2f * d * ((float)a + 0.5f) + 0.2f * d * (float)(frand() - 0.5),
                         R + 1.2f * d * (float)(layer + 1),
                         -L / 2 + 1.2f * d * ((float)b + 0.5f) + 0.2f * d * (float)(frand() - 0.5));
        kyu_body_create(w, &bd, NULL);
    }
    *most_passes = 0;
    for (int i = 0; i < steps; i++) {
        kyu_world_step(w);
        int p = kyu_world_stats(w).solver_passes;
        if (p > *most_passes) *most_passes = p;
    }
    uint64_t h = kyu_world_state_hash(w);
    kyu_world_destroy(w);
    return h;
}

// The pour of beads of radius R on each of worker_counts: the same hash and the same most passes
// on each; the most passes a step took into *most_passes.
static void expect_bead_pour_same_for_any_worker_count(float R, int steps, int *most_passes) {
    *most_passes = 0;
    uint64_t h[4];
    int passes[4];
    for (int i = 0; i < WORKER_COUNTS; i++) {
        h[i] = bead_pour_hash(split_def(worker_counts[i]), R, steps, &passes[i]);
        ENSURE(h[i] != 0);
    }
    for (int i = 1; i < WORKER_COUNTS; i++) ENSURE(h[i] == h[0] && passes[i] == passes[0]);
    *most_passes = passes[0];
}

// The solve's passes past solver_iterations (small beads whose contacts still close) are decided
// per domain and joined in a fixed order: the answer is the same for any worker count. The pour
// lands in its first 30 steps (thousands of contacts: the domains run on the workers).
static void test_a_bead_pour_taking_extra_passes_is_bit_identical_for_1_2_3_and_8_workers(void) {
    int passes;
    expect_bead_pour_same_for_any_worker_count(0.01f, TEST_LENGTH(60, 30), &passes);
    ENSURE(passes > kyu_world_def_default().solver_iterations); // the extra passes ran
}

// The same pour of 5 mm beads: landing, the push lifts columns out of the boxes the broadphase
// paired their beads by, and those boxes grow and ask the grid again (serially, in slot order), and
// the push measures the pairs of the bodies it moved far (in parallel slices): the answer is the
// same for any worker count (and ThreadSanitizer watches it).
static void test_a_small_bead_pour_whose_push_asks_the_grid_again_is_the_same_for_any_worker_count(void) {
    int passes;
    expect_bead_pour_same_for_any_worker_count(0.005f, TEST_LENGTH(40, 24), &passes);
}

// A deep frictionless bed (1,600 spheres of 0.5 m dropped as 25 layers of 8 x 8): from its 30th
// step its frictionless pairs ask for the solve's extra passes (contact_solver.c), and from about
// its 95th it holds over 4,096 contacts, so the solves' domains run on the workers. The same hash
// and the same passes for any worker count. (The quick runs stop at 60 steps: serial solves.)
static void test_a_frictionless_bed_taking_extra_passes_is_the_same_for_any_worker_count(void) {
    const int steps = TEST_LENGTH(150, 60);
    uint64_t h[4];
    long passes[4];
    for (int i = 0; i < WORKER_COUNTS; i++) {
        kyu_world *w = frictionless_bed(split_def(worker_counts[i]), 8, 1600, 3);
        ENSURE(w);
        passes[i] = 0;
        for (int s = 0; s < steps; s++) {
            ENSURE(kyu_world_step(w) == KYU_OK);
            passes[i] += kyu_world_stats(w).solver_passes;
        }
        h[i] = kyu_world_state_hash(w);
        kyu_world_destroy(w);
    }
    for (int i = 1; i < WORKER_COUNTS; i++) ENSURE(h[i] == h[0] && passes[i] == passes[0]);
    ENSURE(passes[0] > (long)steps * kyu_world_def_default().solver_iterations); // the extra passes ran
}

// A bed of 1,500 spheres of radii 5 mm to 5 cm (lognormal, inserted at once into a box over a floor,
// falling 2.4 m at most) stepped `steps` steps: the state hash. The grid puts the larger ones on
// its coarser levels.
static uint64_t sizes_hash(kyu_world_def wd, int steps) {
    const float L = 0.5f;
    kyu_world *w = NULL;
    if (kyu_world_create(&wd, &w) != KYU_OK) return 0;
    add_wall(w, v3(-L, -0.1f, -L), v3(L, 0, L));
    add_wall(w, v3(-L, 0, -L), v3(-L / 2, 3, L));
    add_wall(w, v3(L / 2, 0, -L), v3(L, 3, L));
    add_wall(w, v3(-L / 2, 0, -L), v3(L / 2, 3, -L / 2));
    add_wall(w, v3(-L / 2, 0, L / 2), v3(L / 2, 3, L));
    kyu_inserter_def d = kyu_inserter_def_default();
    d.region.center = v3(0, 1.2f, 0), d.region.half_extents = v3(L / 2, 1.2f, L / 2); // 8% full
    d.count = 1500, d.attempts = 10000, d.seed = 5;
    d.size.kind = KYU_SIZE_LOGNORMAL, d.size.min = 0.005f, d.size.max = 0.05f;
    d.size.mean = 0.0158f, d.size.sigma = 0.576f;
    kyu_inserter *in = NULL;
    if (kyu_inserter_create(w, &d, &in) != KYU_OK || kyu_inserter_run(in, w, 0, NULL) != KYU_OK ||
        kyu_world_body_count(w) != 1500)
        return kyu_world_destroy(w), 0;
    kyu_inserter_destroy(in);
    for (int i = 0; i < steps; i++) kyu_world_step(w);
    uint64_t h = kyu_world_state_hash(w);
    kyu_world_destroy(w);
    return h;
}

// Beds of mixed sizes put bodies on the grid's levels; their pairs are found in parallel slices: the
// answer is the same for any worker count, and for any cell (the chosen one, or cells that put
// nearly every body on a level or nearly none).
static void test_a_bed_of_mixed_sizes_is_the_same_for_any_worker_count_and_cell(void) {
#ifdef UNDER_TSAN // the worlds of several workers alone (ThreadSanitizer watches their threads)
    const int workers[] = {2, 3, 3};
    const float cells[] = {0.0f, 0.0f, 0.012f};
#else
    const int workers[] = {1, 2, 3, 1, 3, 1, 1};
    const float cells[] = {0.0f, 0.0f, 0.0f, 0.012f, 0.012f, 0.05f, 0.13f}; // 0.012: six slices of levels
#endif
    const int worlds = (int)(sizeof workers / sizeof workers[0]);
    uint64_t h[7];
    for (int i = 0; i < worlds; i++) {
        kyu_world_def wd = split_def(workers[i]);
        wd.cell_size = cells[i];
        h[i] = sizes_hash(wd, TEST_LENGTH(90, 30));
        ENSURE(h[i] != 0);
    }
    for (int i = 1; i < worlds; i++) ENSURE(h[i] == h[0]);
}

// Another job on the machine: a thread that spins until told to stop.
static atomic_int stop_spinning;

static void *spin_main(void *arg) {
    (void)arg;
    volatile unsigned x = 0;
    while (!atomic_load_explicit(&stop_spinning, memory_order_relaxed)) x = x + 1u;
    return NULL;
}

// Beside a busy thread, with more workers than processors, the phases switch between the workers
// and the caller alone as the meter decides (yield_when_busy): the answer is the one worker's.
static void test_workers_beside_a_busy_job_give_the_one_worker_answer(void) {
    kyu_world_def one = kyu_world_def_default(), busy = kyu_world_def_default();
    busy.worker_count = 4;
    uint64_t a = pile_hash(one, 2000, 300);
    pthread_t spinner;
    atomic_store(&stop_spinning, 0);
    ENSURE(pthread_create(&spinner, NULL, spin_main, NULL) == 0);
    uint64_t b = pile_hash(busy, 2000, 300);
    atomic_store(&stop_spinning, 1);
    pthread_join(spinner, NULL);
    ENSURE(a != 0 && a == b);
}

// A toy job system as a game has one: three threads started once, waiting for work; a task is
// split into one range a thread (min_range ignored: small ranges), enqueue hands it over and
// returns at once, finish waits for the last range.
typedef struct job_pool {
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    pthread_t thread[3];
    int threads, generation, pending, quit, batches;
    kyu_task_fn *task;
    void *ctx;
    int items;
} job_pool;

typedef struct job_thread {
    job_pool *pool;
    int index;
} job_thread;

static void *job_main(void *arg) {
    job_thread *me = arg;
    job_pool *p = me->pool;
    int seen = 0;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->generation == seen && !p->quit) pthread_cond_wait(&p->work, &p->lock);
        if (p->quit) break;
        seen = p->generation;
        kyu_task_fn *task = p->task;
        void *ctx = p->ctx;
        int begin = p->items * me->index / p->threads, end = p->items * (me->index + 1) / p->threads;
        pthread_mutex_unlock(&p->lock);
        if (begin < end) task(begin, end, me->index, ctx);
        pthread_mutex_lock(&p->lock);
        if (--p->pending == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static void *enqueue(kyu_task_fn *task, int items, int min_range, void *ctx, void *user) {
    job_pool *p = user;
    (void)min_range;
    pthread_mutex_lock(&p->lock);
    p->task = task, p->ctx = ctx, p->items = items;
    p->pending = p->threads;
    p->generation++;
    p->batches++;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    return p; // still running: finish waits for it
}

static void finish(void *task, void *user) {
    job_pool *p = task;
    ENSURE(p == user);
    pthread_mutex_lock(&p->lock);
    while (p->pending > 0) pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

static void test_a_games_job_system_runs_the_work_and_changes_nothing(void) {
    static job_pool pool = {.lock = PTHREAD_MUTEX_INITIALIZER,
                            .work = PTHREAD_COND_INITIALIZER,
                            .done = PTHREAD_COND_INITIALIZER,
                            .threads = 3};
    static job_thread self[3];
    for (int k = 0; k < pool.threads; k++) {
        self[k] = (job_thread){&pool, k};
        ENSURE(pthread_create(&pool.thread[k], NULL, job_main, &self[k]) == 0);
    }
    kyu_world_def plain = kyu_world_def_default();
    kyu_world_def hooked = kyu_world_def_default();
    hooked.worker_count = pool.threads;
    hooked.enqueue_task = enqueue;
    hooked.finish_task = finish;
    hooked.user_task_context = &pool;
    const int steps = TEST_LENGTH(200, 60);
    uint64_t a = pile_hash(plain, 1000, steps), b = pile_hash(hooked, 1000, steps);
    pthread_mutex_lock(&pool.lock);
    pool.quit = 1;
    pthread_cond_broadcast(&pool.work);
    pthread_mutex_unlock(&pool.lock);
    for (int k = 0; k < pool.threads; k++) pthread_join(pool.thread[k], NULL);
    ENSURE(pool.batches > 0);
    ENSURE(a == b);
}

void suite_threads(void) {
    RUN_TEST(test_pile_is_bit_identical_for_1_2_3_and_8_workers);
    RUN_TEST(test_a_bead_pour_taking_extra_passes_is_bit_identical_for_1_2_3_and_8_workers);
    RUN_TEST(test_a_small_bead_pour_whose_push_asks_the_grid_again_is_the_same_for_any_worker_count);
    RUN_TEST(test_a_frictionless_bed_taking_extra_passes_is_the_same_for_any_worker_count);
    RUN_TEST(test_a_bed_of_mixed_sizes_is_the_same_for_any_worker_count_and_cell);
    RUN_TEST(test_a_games_job_system_runs_the_work_and_changes_nothing);
    RUN_TEST(test_workers_beside_a_busy_job_give_the_one_worker_answer);
}
