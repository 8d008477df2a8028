// SPDX-License-Identifier: MIT
// bench: runs the benchmark scenes of docs/benchmarks.md (PILE, GAS, BULLETS) on kyu and
// prints one line of key=value pairs per run, so its figures sit next to other engines' figures.
//
//     bench SCENE [N] [WORKERS] [--steps S] [--repeat K] [--json]
//       SCENE    pile | gas | bullets (bullets always has 1000 spheres and ignores N)
//       N        sphere count, 1000 or 1k / 10k / 100k (default 1000)
//       WORKERS  world worker_count (default 1)
//       --steps  override the scene's step count
//       --repeat run the scene K times, then print the median ms_per_step
//       --json   one JSON object per line instead of key=value pairs
//       --no-sleep  keep every body awake (the awake cost, to compare with a sleeping pile)
//       --busy   a second process spins on one processor for the whole run (a renderer or another
//                job beside the simulation): how the workers do when the cores are not all theirs
//       --no-yield  workers never leave the phases to the caller when processors are busy
//       --cell M  the broadphase cell in metres (world def cell_size; default 0, kyu chooses): the
//                state hash must not depend on it (tests/tools/hashes.sh)
//       --periodic  gas: the box is periodic along x, y and z instead of walled; pile: periodic along x
//                and z, the floor kept and the four walls gone (neither is a scene of
//                docs/benchmarks.md: what periodic boundaries cost beside the walls, and a dense
//                bed across the seams whose hash every platform must agree on)
//       --from-heap  pile: first HEAP_STEPS steps of the spinning pile, untimed (its columns topple
//                into a heap), then the same bodies where they are, moving as they move, in a new
//                world: spinning, or with --fixed-rotation not (their spin dropped), timed from there.
//                Spin's own cost on the same geometry; the plain pile compares a heap with columns
//                that stand only when the balls cannot roll (docs/benchmarks.md)
//
// Besides the time: max_overlap is the deepest overlap after the last step, deepest_overlap the
// deepest after any step (kyu_step_stats.max_overlap, metres).
//
// The scenes must match docs/benchmarks.md exactly (geometry, LCG seed 12345, order of frand calls, step
// counts), otherwise the numbers cannot be compared with anything. Only the stepping is timed.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _WIN32 // the clock, the peak memory and --busy below have one version per system
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <psapi.h>
#else
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <unistd.h>
#endif

#include <kyu/kyu.h>

// ---- errors -------------------------------------------------------------------------------------

// A benchmark on a world that refused a call would measure nonsense, so any failure is fatal.
static void check(kyu_world *w, kyu_status st, const char *what) {
    if (st == KYU_OK) return;
    fprintf(stderr, "bench: %s failed: %s", what, kyu_status_string(st));
    if (w != NULL) fprintf(stderr, " (%s)", kyu_world_last_error(w));
    fprintf(stderr, "\n");
    exit(1);
}
#define CHECK(w, call) check((w), (call), #call)

// ---- the scenes' random numbers (docs/benchmarks.md) ----------------------------------------------------

static uint32_t lcg_state;

static uint32_t lcg_next(void) {
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return lcg_state;
}

static double frand(void) { return (lcg_next() >> 8) * (1.0 / 16777216.0); }

// ---- options and results ------------------------------------------------------------------------

// M_PI is not in C11.
#define PI 3.14159265358979323846

typedef enum scene_kind { SCENE_PILE, SCENE_GAS, SCENE_BULLETS } scene_kind;

typedef struct options {
    scene_kind scene;
    int n;
    int workers;
    int steps; // 0 = the scene's own count
    int repeat;
    int json;
    int no_sleep;
    int fixed_rotation; // --fixed-rotation: no body spins (kyu's particles before spin)
    int phases;         // print the mean ms per step of each stage
    int busy;           // --busy: another process keeps one processor busy while the scene runs
    int no_yield;       // --no-yield: workers never step aside for busy processors (yield_when_busy off)
    float cell_size;    // --cell M: the broadphase cell (0: kyu chooses)
    int periodic;       // --periodic: GAS in a periodic box, without its walls
    int from_heap;      // --from-heap: PILE timed from the heap its spinning columns toppled into
} options;

typedef struct result {
    int n;
    int steps;
    double ms_per_step;
    double ms_per_step_last_half;
    int escaped;
    int sleeping;
    float max_overlap;
    float deepest; // the deepest overlap after any step (kyu_step_stats.max_overlap), m
    double energy_ratio;
    int passed;
    uint64_t state_hash;
    double peak_rss_mb;
    double phase_ms[5]; // per step: solve, broadphase, impacts, contacts, islands (kyu_step_stats)
    double per_step[5]; // mean awake bodies, candidate pairs, impacts, late inserts, solver passes
    long phases_alone;  // parallel phases run on the caller alone (busy processors)
} result;

static const char *scene_name(scene_kind s) {
    return s == SCENE_PILE ? "pile" : s == SCENE_GAS ? "gas" : "bullets";
}

// ---- world building helpers ---------------------------------------------------------------------

static kyu_world_def scene_world_def(const options *o, int capacity, vec3s gravity) {
    kyu_world_def wd = kyu_world_def_default();
    wd.worker_count = o->workers;
    wd.body_capacity = capacity;
    wd.gravity = gravity;
    wd.enable_sleep = !o->no_sleep;
    wd.yield_when_busy = !o->no_yield;
    wd.cell_size = o->cell_size;
    return wd;
}

static kyu_world *make_world(const kyu_world_def *wd) {
    kyu_world *w = NULL;
    CHECK(NULL, kyu_world_create(wd, &w));
    return w;
}

// The scenes give walls as axis-aligned boxes by their extent; kyu wants centre + half extents.
static void add_wall(kyu_world *w, vec3s lo, vec3s hi, float restitution, float friction) {
    kyu_collider_def cd = kyu_collider_def_default();
    cd.type = KYU_SHAPE_BOX;
    cd.motion = KYU_STATIC;
    cd.position = (vec3s){{0.5f * (lo.x + hi.x), 0.5f * (lo.y + hi.y), 0.5f * (lo.z + hi.z)}};
    cd.rotation = (versors){{0, 0, 0, 1}};
    cd.half_extents = (vec3s){{0.5f * (hi.x - lo.x), 0.5f * (hi.y - lo.y), 0.5f * (hi.z - lo.z)}};
    cd.restitution = restitution;
    cd.friction = friction;
    CHECK(w, kyu_collider_create(w, &cd, NULL));
}

static kyu_body_id add_sphere(kyu_world *w, const kyu_body_def *proto, vec3s p, vec3s v) {
    kyu_body_def bd = *proto;
    bd.position = p;
    bd.velocity = v;
    kyu_body_id id;
    CHECK(w, kyu_body_create(w, &bd, &id));
    return id;
}

// The live bodies' handles, fetched when the run is over: the harness keeps none while the world
// steps, so the peak memory it reports is the engine's (a handle per body was 1.2 MB at 100,000).
static kyu_body_id *live_bodies(kyu_world *w, int *count) {
    int n = kyu_world_get_bodies(w, NULL, 0);
    kyu_body_id *ids = malloc(sizeof *ids * (size_t)(n > 0 ? n : 1));
    if (ids == NULL) check(w, KYU_ERR_OUT_OF_MEMORY, "malloc");
    *count = kyu_world_get_bodies(w, ids, n);
    return ids;
}

static vec3s body_position(kyu_world *w, kyu_body_id id) {
    vec3s p;
    CHECK(w, kyu_body_get_position(w, id, &p));
    return p;
}

#ifdef _WIN32
static double now_seconds(void) {
    LARGE_INTEGER t, f;
    QueryPerformanceCounter(&t);
    QueryPerformanceFrequency(&f);
    return (double)t.QuadPart / (double)f.QuadPart;
}
#else
static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
#endif

// Steps the world and fills the timing fields. The clock is read only at the start, the half-way
// step and the end, so the loop times nothing but kyu_world_step.
static void run_steps(kyu_world *w, int steps, result *r) {
    int half = steps / 2;
    double t0 = now_seconds(), t_half = t0;
    for (int s = 0; s < steps; s++) {
        if (s == half) t_half = now_seconds();
        CHECK(w, kyu_world_step(w));
        kyu_step_stats st = kyu_world_stats(w);
        float ph[5] = {st.ms_solve, st.ms_broadphase, st.ms_impacts, st.ms_contacts, st.ms_islands};
        for (int k = 0; k < 5; k++) r->phase_ms[k] += ph[k] / steps;
        int counts[5] = {st.awake_bodies, st.candidate_pairs, st.impacts, st.late_inserts, st.solver_passes};
        for (int k = 0; k < 5; k++) r->per_step[k] += (double)counts[k] / steps;
        r->phases_alone += st.phases_alone;
        if (st.max_overlap > r->deepest) r->deepest = st.max_overlap;
    }
    double t1 = now_seconds();
    r->steps = steps;
    r->ms_per_step = (t1 - t0) * 1e3 / steps;
    r->ms_per_step_last_half = (t1 - t_half) * 1e3 / (steps - half);
}

// ---- PILE(N) ------------------------------------------------------------------------------------

// Integer forms of ceil(sqrt(N / 10)) and ceil(N / k^2), so no float rounding can shift them.
static int pile_k(int n) {
    int k = 1;
    while (10LL * k * k < n) k++;
    return k;
}

static void pile_container(kyu_world *w, double L, double H, float e, float mu) {
    float h = (float)(L / 2), o = h + 1.0f, top = (float)H;
    add_wall(w, (vec3s){{-o, -1, -o}}, (vec3s){{o, 0, o}}, e, mu);   // floor, top face y = 0
    add_wall(w, (vec3s){{-o, 0, -o}}, (vec3s){{-h, top, o}}, e, mu); // -x
    add_wall(w, (vec3s){{h, 0, -o}}, (vec3s){{o, top, o}}, e, mu);   // +x
    add_wall(w, (vec3s){{-o, 0, -o}}, (vec3s){{o, top, -h}}, e, mu); // -z
    add_wall(w, (vec3s){{-o, 0, h}}, (vec3s){{o, top, o}}, e, mu);   // +z
}

// --from-heap: how long the spinning pile runs before the timed run starts from its state.
#define HEAP_STEPS 150

static void pile_walls(kyu_world *w, const options *o, double L, double H) {
    const float e = 0.2f, mu = 0.5f;
    if (o->periodic)
        add_wall(w, (vec3s){{(float)(-L / 2 - 1), -1, (float)(-L / 2 - 1)}},
                 (vec3s){{(float)(L / 2 + 1), 0, (float)(L / 2 + 1)}}, e, mu); // the floor alone
    else
        pile_container(w, L, H, e, mu);
}

// The world's bodies where they are, moving as they move, in a new world with PILE's walls:
// spinning, or with fixed rotation (their spin dropped). The old world is destroyed.
static kyu_world *restart_from(kyu_world *w, const kyu_world_def *wd, const kyu_body_def *proto,
                               const options *o, double L, double H) {
    int live;
    kyu_body_id *ids = live_bodies(w, &live);
    kyu_body_def *defs = malloc(sizeof *defs * (size_t)(live > 0 ? live : 1));
    if (defs == NULL) check(w, KYU_ERR_OUT_OF_MEMORY, "malloc");
    for (int i = 0; i < live; i++) {
        defs[i] = *proto;
        CHECK(w, kyu_body_get_position(w, ids[i], &defs[i].position));
        CHECK(w, kyu_body_get_velocity(w, ids[i], &defs[i].velocity));
        CHECK(w, kyu_body_get_rotation(w, ids[i], &defs[i].rotation));
        if (!proto->fixed_rotation)
            CHECK(w, kyu_body_get_angular_velocity(w, ids[i], &defs[i].angular_velocity));
    }
    kyu_world_destroy(w);
    w = make_world(wd);
    pile_walls(w, o, L, H);
    for (int i = 0; i < live; i++) CHECK(w, kyu_body_create(w, &defs[i], NULL));
    free(defs);
    free(ids);
    return w;
}

static result run_pile(const options *o) {
    const float e = 0.2f, mu = 0.5f;
    int n = o->n, k = pile_k(n), layers = (n + k * k - 1) / (k * k);
    double L = 1.1 * k + 1.0, H = 1.1 * layers + 2;
    kyu_world_def wd = scene_world_def(o, n, (vec3s){{0, -9.81f, 0}});
    kyu_world_def awake = wd; // --from-heap: the heap forms awake, whatever the timed run asks
    awake.enable_sleep = false;
    if (o->periodic) { // the box's sides joined: a bed without walls, its columns leaning across the seams
        wd.periodic.axis[0] = wd.periodic.axis[2] = true;
        wd.periodic.lower = (vec3s){{(float)(-L / 2), 0, (float)(-L / 2)}};
        wd.periodic.upper = (vec3s){{(float)(L / 2), (float)H, (float)(L / 2)}};
    }
    kyu_world *w = make_world(o->from_heap ? &awake : &wd);
    pile_walls(w, o, L, H);

    kyu_body_def proto = kyu_body_def_default();
    proto.radius = 0.5f;
    proto.mass = 1.0f;
    proto.restitution = e;
    proto.friction = mu;
    proto.fixed_rotation = o->fixed_rotation && !o->from_heap;
    lcg_state = 12345;
    for (int i = 0; i < n; i++) {
        int layer = i / (k * k), j = i % (k * k), a = j % k, b = j / k;
        // Evaluated in double and rounded once, as written in docs/benchmarks.md; x's frand comes before z's.
        double x = -L / 2 + 0.5 + 0.05 + 1.1 * a + 0.04 * (frand() - 0.5);
        double y = 0.5 + 0.05 + 1.1 * layer;
        double z = -L / 2 + 0.5 + 0.05 + 1.1 * b + 0.04 * (frand() - 0.5);
        add_sphere(w, &proto, (vec3s){{(float)x, (float)y, (float)z}}, (vec3s){{0, 0, 0}});
    }
    if (o->from_heap) {
        for (int s = 0; s < HEAP_STEPS; s++) CHECK(w, kyu_world_step(w));
        proto.fixed_rotation = o->fixed_rotation;
        w = restart_from(w, &wd, &proto, o, L, H);
    }

    result r = {.n = n};
    run_steps(w, o->steps > 0 ? o->steps : n >= 100000 ? 300 : 600, &r);
    float h = (float)(L / 2);
    int live;
    kyu_body_id *ids = live_bodies(w, &live);
    r.escaped = n - live; // a lost particle is an escaped one
    for (int i = 0; i < live; i++) {
        vec3s p = body_position(w, ids[i]);
        if (!(fabsf(p.x) <= h && fabsf(p.z) <= h && p.y >= 0)) r.escaped++;
    }
    r.sleeping = kyu_world_sleeping_body_count(w);
    r.max_overlap = kyu_world_stats(w).max_overlap;
    r.state_hash = kyu_world_state_hash(w);
    free(ids);
    kyu_world_destroy(w);
    return r;
}

// ---- GAS(N) -------------------------------------------------------------------------------------

// ceil(N^(1/3)) without trusting cbrt to land exactly on perfect cubes.
static int gas_m(int n) {
    int m = 1;
    while ((long long)m * m * m < n) m++;
    return m;
}

static result run_gas(const options *o) {
    int n = o->n, m = gas_m(n);
    double G = cbrt(n * (4.0 / 3.0) * PI * 0.125 / 0.1);
    kyu_world_def wd = scene_world_def(o, n, (vec3s){{0, 0, 0}});
    // docs/benchmarks.md: every contact acts with restitution 1. kyu's default threshold would make the
    // slow impacts inelastic and bleed energy, which is not the scene (and hides real losses).
    wd.restitution_threshold = 0.0f;
    float g = (float)G;
    if (o->periodic) { // the same cube, its opposite faces joined instead of walled
        wd.periodic.axis[0] = wd.periodic.axis[1] = wd.periodic.axis[2] = true;
        wd.periodic.upper = (vec3s){{g, g, g}};
    }
    kyu_world *w = make_world(&wd);
    // Six 1-thick walls; each spans the whole outer cube so the edges and corners are closed.
    if (!o->periodic) {
        add_wall(w, (vec3s){{-1, -1, -1}}, (vec3s){{0, g + 1, g + 1}}, 1, 0);
        add_wall(w, (vec3s){{g, -1, -1}}, (vec3s){{g + 1, g + 1, g + 1}}, 1, 0);
        add_wall(w, (vec3s){{-1, -1, -1}}, (vec3s){{g + 1, 0, g + 1}}, 1, 0);
        add_wall(w, (vec3s){{-1, g, -1}}, (vec3s){{g + 1, g + 1, g + 1}}, 1, 0);
        add_wall(w, (vec3s){{-1, -1, -1}}, (vec3s){{g + 1, g + 1, 0}}, 1, 0);
        add_wall(w, (vec3s){{-1, -1, g}}, (vec3s){{g + 1, g + 1, g + 1}}, 1, 0);
    }

    kyu_body_def proto = kyu_body_def_default();
    proto.radius = 0.5f;
    proto.mass = 1.0f;
    proto.restitution = 1.0f;
    proto.friction = 0.0f;
    proto.fixed_rotation = o->fixed_rotation;
    proto.linear_damping = 0.0f;
    lcg_state = 12345;
    double spacing = G / m;
    for (int i = 0; i < n; i++) {
        int a = i % m, b = (i / m) % m, c = i / (m * m);
        vec3s p = {
            {(float)(spacing * (a + 0.5)), (float)(spacing * (b + 0.5)), (float)(spacing * (c + 0.5))}};
        float vx = (float)(10 * (frand() - 0.5));
        float vy = (float)(10 * (frand() - 0.5));
        float vz = (float)(10 * (frand() - 0.5));
        add_sphere(w, &proto, p, (vec3s){{vx, vy, vz}});
    }

    result r = {.n = n};
    double e0 = kyu_world_kinetic_energy(w);
    run_steps(w, o->steps > 0 ? o->steps : 600, &r);
    r.energy_ratio = kyu_world_kinetic_energy(w) / e0;
    int live;
    kyu_body_id *ids = live_bodies(w, &live);
    r.escaped = n - live;
    for (int i = 0; i < live; i++) {
        vec3s p = body_position(w, ids[i]);
        if (!(p.x >= 0 && p.x <= g && p.y >= 0 && p.y <= g && p.z >= 0 && p.z <= g)) r.escaped++;
    }
    r.state_hash = kyu_world_state_hash(w);
    free(ids);
    kyu_world_destroy(w);
    return r;
}

// ---- BULLETS ------------------------------------------------------------------------------------

static result run_bullets(const options *o) {
    const int rows = 10, cols = 100, n = rows * cols;
    kyu_world_def wd = scene_world_def(o, n, (vec3s){{0, 0, 0}});
    kyu_world *w = make_world(&wd);
    // Friction is not part of this scene: the impacts are head-on, so the defaults are left alone.
    add_wall(w, (vec3s){{10.0f, -1, -1}}, (vec3s){{10.1f, 3, 21}}, 0.5f, 0.5f);

    kyu_body_def proto = kyu_body_def_default();
    proto.radius = 0.05f;
    proto.mass = 0.01f;
    proto.restitution = 0.5f;
    proto.fixed_rotation = o->fixed_rotation;
    kyu_body_id *ids = malloc(sizeof *ids * (size_t)n);
    if (ids == NULL) check(w, KYU_ERR_OUT_OF_MEMORY, "malloc");
    lcg_state = 12345; // unused by this scene, seeded anyway as docs/benchmarks.md says for every scene
    for (int row = 0; row < rows; row++)
        for (int col = 0; col < cols; col++)
            ids[row * cols + col] =
                add_sphere(w, &proto, (vec3s){{2.5f, 0.2f * row, 0.2f * col}}, (vec3s){{300, 0, 0}});

    result r = {.n = n};
    run_steps(w, o->steps > 0 ? o->steps : 60, &r);
    for (int i = 0; i < n; i++)
        if (body_position(w, ids[i]).x > 10.05f) r.passed++;
    r.state_hash = kyu_world_state_hash(w);
    free(ids);
    kyu_world_destroy(w);
    return r;
}

// ---- output -------------------------------------------------------------------------------------

// One emitter for both formats, so the key=value line and the JSON object can never disagree.
typedef struct emitter {
    int json;
    int count;
} emitter;

static void emit_raw(emitter *e, const char *key, const char *value, int quote) {
    if (e->json)
        printf("%s\"%s\":%s%s%s", e->count ? "," : "{", key, quote ? "\"" : "", value, quote ? "\"" : "");
    else
        printf("%s%s=%s", e->count ? " " : "", key, value);
    e->count++;
}

static void emit_str(emitter *e, const char *key, const char *value) { emit_raw(e, key, value, 1); }

static void emit_int(emitter *e, const char *key, long long value) {
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", value);
    emit_raw(e, key, buf, 0);
}

static void emit_num(emitter *e, const char *key, const char *fmt, double value) {
    char buf[64];
    snprintf(buf, sizeof buf, fmt, value);
    // JSON has no NaN or infinity; a broken run must still print valid JSON.
    emit_raw(e, key, isfinite(value) ? buf : e->json ? "null" : buf, 0);
}

static void emit_end(emitter *e) {
    printf(e->json ? "}\n" : "\n");
    fflush(stdout);
}

static void emit_head(emitter *e, const options *o, int n, int steps) {
    emit_str(e, "engine", "kyu");
    emit_str(e, "scene", scene_name(o->scene));
    emit_int(e, "n", n);
    emit_int(e, "workers", o->workers);
    emit_int(e, "steps", steps);
    emit_int(e, "sleep", !o->no_sleep);
    emit_int(e, "spin", !o->fixed_rotation);
    if (o->from_heap) emit_int(e, "from_heap", HEAP_STEPS); // the untimed steps before the timed run
}

static void print_result(const options *o, const result *r) {
    emitter e = {.json = o->json};
    char hash[24];
    snprintf(hash, sizeof hash, "0x%016llx", (unsigned long long)r->state_hash);
    emit_head(&e, o, r->n, r->steps);
    emit_num(&e, "ms_per_step", "%.4f", r->ms_per_step);
    if (o->scene == SCENE_PILE) {
        emit_num(&e, "ms_per_step_last_half", "%.4f", r->ms_per_step_last_half);
        emit_int(&e, "escaped", r->escaped);
        emit_int(&e, "sleeping", r->sleeping);
        emit_num(&e, "max_overlap", "%.6f", r->max_overlap);
        emit_num(&e, "deepest_overlap", "%.6f", r->deepest);
    } else if (o->scene == SCENE_GAS) {
        emit_num(&e, "energy_ratio", "%.6f", r->energy_ratio);
        emit_int(&e, "escaped", r->escaped);
    } else {
        emit_int(&e, "passed", r->passed);
    }
    // The hash is a string in JSON: a 64-bit integer does not survive a double.
    emit_raw(&e, "state_hash", hash, o->json);
    emit_num(&e, "peak_rss_mb", "%.1f", r->peak_rss_mb);
    if (o->workers > 1) emit_int(&e, "phases_alone", (int)r->phases_alone);
    if (o->phases) {
        static const char *names[5] = {"ms_solve", "ms_broadphase", "ms_impacts", "ms_contacts",
                                       "ms_islands"};
        for (int k = 0; k < 5; k++) emit_num(&e, names[k], "%.3f", r->phase_ms[k]);
        static const char *counts[5] = {"awake", "pairs", "impacts", "late_inserts", "solver_passes"};
        for (int k = 0; k < 5; k++) emit_num(&e, counts[k], k == 4 ? "%.2f" : "%.0f", r->per_step[k]);
    }
    emit_end(&e);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// The median of K runs resists the odd slow run; equal hashes across runs show determinism.
static void print_median(const options *o, const result *runs) {
    double *ms = malloc(sizeof *ms * (size_t)o->repeat);
    if (ms == NULL) check(NULL, KYU_ERR_OUT_OF_MEMORY, "malloc");
    int same = 1;
    for (int i = 0; i < o->repeat; i++) {
        ms[i] = runs[i].ms_per_step;
        same &= runs[i].state_hash == runs[0].state_hash;
    }
    qsort(ms, (size_t)o->repeat, sizeof *ms, cmp_double);
    int k = o->repeat;
    double median = k % 2 ? ms[k / 2] : 0.5 * (ms[k / 2 - 1] + ms[k / 2]);
    emitter e = {.json = o->json};
    emit_head(&e, o, runs[0].n, runs[0].steps);
    emit_int(&e, "repeats", k);
    emit_num(&e, "median_ms_per_step", "%.4f", median);
    emit_str(&e, "deterministic", same ? "yes" : "no");
    emit_end(&e);
    free(ms);
}

// ---- command line -------------------------------------------------------------------------------

static void usage_to(FILE *f) {
    fprintf(f, "usage: bench pile|gas|bullets [N] [WORKERS] [--steps S] [--repeat K] [--json] [--no-sleep] "
               "[--fixed-rotation] [--phases] [--busy] [--no-yield] [--cell M] [--periodic] [--from-heap]\n"
               "  N: sphere count, e.g. 1000 or 1k, 10k, 100k (bullets ignores it)\n");
}

// A bad command line: what was wrong, then the usage; exit 2.
static void bad(const char *what, const char *arg) {
    fprintf(stderr, "bench: %s: %s\n", what, arg);
    usage_to(stderr);
    exit(2);
}

// A positive count with an optional k (thousand) or m (million) suffix; anything else is refused.
static int parse_count(const char *s, int max) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s) bad("not a count", s);
    long scale = 1;
    if (*end == 'k' || *end == 'K')
        scale = 1000, end++;
    else if (*end == 'm' || *end == 'M')
        scale = 1000000, end++;
    if (*end != '\0' || v <= 0 || v > max / scale) bad("not a count in range", s);
    return (int)(v * scale);
}

static options parse_args(int argc, char **argv) {
    options o = {.n = 1000, .workers = 1, .repeat = 1};
    int positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage_to(stdout);
            exit(0);
        } else if (strcmp(a, "--json") == 0)
            o.json = 1;
        else if (strcmp(a, "--no-sleep") == 0)
            o.no_sleep = 1;
        else if (strcmp(a, "--fixed-rotation") == 0)
            o.fixed_rotation = 1;
        else if (strcmp(a, "--phases") == 0)
            o.phases = 1;
        else if (strcmp(a, "--busy") == 0)
            o.busy = 1;
        else if (strcmp(a, "--no-yield") == 0)
            o.no_yield = 1;
        else if (strcmp(a, "--periodic") == 0)
            o.periodic = 1;
        else if (strcmp(a, "--from-heap") == 0)
            o.from_heap = 1;
        else if (strcmp(a, "--steps") == 0 && i + 1 < argc)
            o.steps = parse_count(argv[++i], 1 << 30);
        else if (strcmp(a, "--repeat") == 0 && i + 1 < argc)
            o.repeat = parse_count(argv[++i], 1000);
        else if (strcmp(a, "--cell") == 0 && i + 1 < argc) {
            char *end;
            double c = strtod(argv[++i], &end);
            if (*end != '\0' || !(c > 0 && c < 1e6)) bad("not a cell size in metres (0 < M < 1e6)", argv[i]);
            o.cell_size = (float)c;
        } else if (strcmp(a, "--steps") == 0 || strcmp(a, "--repeat") == 0 || strcmp(a, "--cell") == 0)
            bad("needs a value", a);
        else if (a[0] == '-')
            bad("unknown option", a);
        else if (positional == 0) {
            if (strcmp(a, "pile") == 0)
                o.scene = SCENE_PILE;
            else if (strcmp(a, "gas") == 0)
                o.scene = SCENE_GAS;
            else if (strcmp(a, "bullets") == 0)
                o.scene = SCENE_BULLETS;
            else
                bad("no such scene (pile, gas or bullets)", a);
            positional++;
        } else if (positional == 1)
            o.n = parse_count(a, 1 << 26), positional++;
        else if (positional == 2)
            o.workers = parse_count(a, 1024), positional++;
        else
            bad("one argument too many", a);
    }
    if (positional == 0) {
        fprintf(stderr, "bench: which scene?\n");
        usage_to(stderr);
        exit(2);
    }
    if (o.periodic && o.scene == SCENE_BULLETS)
        bad("--periodic is for the gas and the pile", scene_name(o.scene));
    if (o.from_heap && o.scene != SCENE_PILE) bad("--from-heap is for the pile", scene_name(o.scene));
    return o;
}

#ifdef _WIN32
static double peak_rss_mb(void) {
    PROCESS_MEMORY_COUNTERS pmc;
    if (!GetProcessMemoryInfo(GetCurrentProcess(), &pmc, sizeof pmc)) return 0.0;
    return (double)pmc.PeakWorkingSetSize / (1024.0 * 1024.0);
}

static int start_busy_process(void) {
    fprintf(stderr, "bench: --busy forks a process: not on Windows\n");
    exit(2);
}
static void stop_busy_process(int busy) { (void)busy; }
#else
static double peak_rss_mb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0; // Linux reports kilobytes
}

// The load of --busy: a child process that spins until the bench ends (or dies: it watches its parent).
static int start_busy_process(void) {
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) {
        perror("bench: fork");
        exit(1);
    }
    if (pid == 0) {
        volatile unsigned long x = 0;
        for (;;) {
            for (int i = 0; i < 10000000; i++) x = x + (unsigned long)i;
            if (getppid() != parent) _exit(0);
        }
    }
    return (int)pid;
}
static void stop_busy_process(int busy) {
    if (busy > 0) kill((pid_t)busy, SIGKILL);
}
#endif

int main(int argc, char **argv) {
    options o = parse_args(argc, argv);
    int busy = o.busy ? start_busy_process() : 0;
    result *runs = calloc((size_t)o.repeat, sizeof *runs);
    if (runs == NULL) check(NULL, KYU_ERR_OUT_OF_MEMORY, "calloc");
    for (int i = 0; i < o.repeat; i++) {
        runs[i] = o.scene == SCENE_PILE ? run_pile(&o) : o.scene == SCENE_GAS ? run_gas(&o) : run_bullets(&o);
        runs[i].peak_rss_mb = peak_rss_mb();
        print_result(&o, &runs[i]);
    }
    if (o.repeat > 1) print_median(&o, runs);
    free(runs);
    stop_busy_process(busy);
    return 0;
}
