// SPDX-License-Identifier: MIT
// physics-check: granular and gas checks a researcher would run before trusting kyu, with numbers
// against what the physics allows. Not a benchmark (bench is): the wall time it prints is per
// body-step, for comparing sizes.
//
//     physics-check pour R [N]        N (default 3000) spheres of radius R poured into a box
//     physics-check bed [N] [LAYERS]  a deep polydisperse bed of glass beads (r 10-12 mm, 2500 kg/m^3)
//     physics-check frictionless [N]  a frictionless pile (default 5000, 17 layers): does it sleep?
//     physics-check gas N STEPS       an elastic gas at packing 0.3: energy drift and largest jump
//     physics-check repose RR [N]     N (default 1500) 2 cm beads (mu 0.5) poured from a spout onto a
//                                     2 m plate with rolling resistance RR: the heap's flank angle
//     physics-check sizes [N] [RATIO] two beds of N (default 10000) spheres settled with the defaults:
//                                     radii spanning 1:RATIO (default 10, lognormal cut at its ends)
//                                     and equal radii of the same mean volume; overlaps per pair
//                                     against the smaller radius, sleep, and the broadphase's cost
//                                     per awake body-step of each (issue 37 item 4)
//     physics-check silo [N]          N (default 8000) 4 mm glass beads discharging from a flat-
//                                     bottomed silo through holes of 6-12 diameters: the mass flow
//                                     against Beverloo's law
//
// Every check prints one key=value line; `--workers W` sets the worker count. The environment
// changes a setting: MU (the pour's friction), RR (its rolling resistance), HZ (steps a second),
// NOSLEEP (never sleep), SECONDS_LIMIT (the sizes check's run, default 30 s; the frictionless
// pile's, default 40 s), SEED (the jitter of the pour's and the frictionless pile's starting
// positions; a pour's sleep time is chaotic: read it over several seeds), MESH (the pour's box is
// one triangle mesh, as a container read from a CAD file, not five box colliders).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <kyu/kyu.h>

#define PI 3.14159265358979323846

static uint32_t lcg = 12345;
static double frand(void) {
    lcg = lcg * 1664525u + 1013904223u;
    return (lcg >> 8) * (1.0 / 16777216.0);
}

static int workers = 1;

static void check(kyu_world *w, kyu_status st, const char *what) {
    if (st == KYU_OK) return;
    fprintf(stderr, "physics-check: %s: %s\n", what, w ? kyu_world_last_error(w) : kyu_status_string(st));
    exit(1);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void add_box(kyu_world *w, vec3s lo, vec3s hi, float e, float mu) {
    kyu_collider_def cd = kyu_collider_def_default();
    cd.type = KYU_SHAPE_BOX;
    cd.position = glms_vec3_scale(glms_vec3_add(lo, hi), 0.5f);
    cd.half_extents = glms_vec3_scale(glms_vec3_sub(hi, lo), 0.5f);
    cd.restitution = e, cd.friction = mu;
    check(w, kyu_collider_create(w, &cd, NULL), "a wall");
}

// An open box: floor top at y = 0, inner walls at |x|, |z| = L/2, walls t thick and H high.
static void container(kyu_world *w, float L, float H, float t, float e, float mu) {
    add_box(w, (vec3s){{-L / 2 - t, -t, -L / 2 - t}}, (vec3s){{L / 2 + t, 0, L / 2 + t}}, e, mu);
    add_box(w, (vec3s){{-L / 2 - t, 0, -L / 2 - t}}, (vec3s){{-L / 2, H, L / 2 + t}}, e, mu);
    add_box(w, (vec3s){{L / 2, 0, -L / 2 - t}}, (vec3s){{L / 2 + t, H, L / 2 + t}}, e, mu);
    add_box(w, (vec3s){{-L / 2, 0, -L / 2 - t}}, (vec3s){{L / 2, H, -L / 2}}, e, mu);
    add_box(w, (vec3s){{-L / 2, 0, L / 2}}, (vec3s){{L / 2, H, L / 2 + t}}, e, mu);
}

// The same open box as one triangle mesh of its inner faces (floor and four walls, two triangles
// each), as a container read from a CAD file would be.
static void container_mesh(kyu_world *w, float L, float H, float e, float mu) {
    float h = L / 2;
    vec3s p[8] = {{{-h, 0, -h}}, {{h, 0, -h}}, {{h, 0, h}}, {{-h, 0, h}},
                  {{-h, H, -h}}, {{h, H, -h}}, {{h, H, h}}, {{-h, H, h}}};
    static const int32_t t[30] = {0, 2, 1, 0, 3, 2, 0, 1, 5, 0, 5, 4, 1, 2, 6,
                                  1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
    kyu_collider_def cd = kyu_collider_def_default();
    cd.type = KYU_SHAPE_MESH, cd.points = p, cd.point_count = 8, cd.indices = t, cd.triangle_count = 10;
    cd.restitution = e, cd.friction = mu;
    check(w, kyu_collider_create(w, &cd, NULL), "the box's mesh");
}

typedef struct bed_stats {
    int n, below_floor, outside;
    double packing, mean_overlap, max_overlap; // overlaps relative to the smaller radius
    double max_overlap_deep;                   // the worst in the bottom quarter
    double contacts_per_body;                  // pairs closer than 4% of the smaller radius, walls too
    double top;
    double kinetic;
} bed_stats;

// From positions (not the engine's contact caches): the packing fraction of the bulk (the slab
// more than 2 largest diameters from the walls, the floor and the top), overlaps of every pair,
// pairs within the default margin.
static bed_stats measure(kyu_world *w, float L) {
    bed_stats st;
    memset(&st, 0, sizeof st);
    int n = kyu_world_get_bodies(w, NULL, 0);
    kyu_body_id *ids = malloc((size_t)n * sizeof *ids), *near = malloc(4096 * sizeof *near);
    kyu_world_get_bodies(w, ids, n);
    vec3s *p = malloc((size_t)n * sizeof *p);
    float *r = malloc((size_t)n * sizeof *r), rmax = 0;
    double *ys = calloc((size_t)n + 1, sizeof *ys);
    for (int i = 0; i < n; i++) {
        kyu_body_get_position(w, ids[i], &p[i]);
        kyu_body_get_radius(w, ids[i], &r[i]);
        ys[i] = p[i].y;
        rmax = fmaxf(rmax, r[i]);
        st.below_floor += p[i].y < 0.0f;
        st.outside += fabsf(p[i].x) > L / 2 || fabsf(p[i].z) > L / 2;
    }
    // the top of the bed: the height below which 98% of the centres are
    for (int i = 1; i < n; i++) // insertion sort is fine for a check of a few thousand
        for (int j = i; j > 0 && ys[j - 1] > ys[j]; j--) {
            double t = ys[j];
            ys[j] = ys[j - 1], ys[j - 1] = t;
        }
    st.top = ys[(int)(0.98 * (n - 1))];
    double lo = 4 * rmax, hi = st.top - 4 * rmax, half = L / 2 - 4 * rmax;
    long pairs = 0, overlaps = 0;
    for (int i = 0; i < n; i++) {
        int k = 0;
        kyu_world_overlap_sphere(w, p[i], r[i] * 1.05f, kyu_query_filter_default(), near, 4096, &k);
        for (int j = 0; j < k && j < 4096; j++) {
            if (near[j].index1 <= ids[i].index1) continue; // each pair once
            vec3s q;
            float rj;
            kyu_body_get_position(w, near[j], &q);
            kyu_body_get_radius(w, near[j], &rj);
            double d = glms_vec3_distance(p[i], q), rmin = fmin(r[i], rj), gap = d - r[i] - rj;
            if (gap < 0.04 * rmin) pairs++;
            if (gap < 0) {
                double o = -gap / rmin;
                st.mean_overlap += o, overlaps++;
                st.max_overlap = fmax(st.max_overlap, o);
                if (p[i].y < 0.25 * st.top) st.max_overlap_deep = fmax(st.max_overlap_deep, o);
            }
        }
        if (p[i].y - r[i] < 0.04f * r[i]) pairs++; // the floor
        if (L / 2 - fabsf(p[i].x) - r[i] < 0.04f * r[i] || L / 2 - fabsf(p[i].z) - r[i] < 0.04f * r[i])
            pairs++;
    }
    // Every sphere cut by the slab exactly (kyu_world_measure_box, tested against closed forms): a
    // whole sphere for each centre inside overcounts a slab a layer or two thick whose faces fall
    // between the bed's layers (600 beads of 1 cm read 1.006).
    kyu_region_measure bulk;
    if (hi > lo && half > 0 &&
        kyu_world_measure_box(w, (vec3s){{(float)-half, (float)lo, (float)-half}},
                              (vec3s){{(float)half, (float)hi, (float)half}}, &bulk) == KYU_OK)
        st.packing = bulk.packing_fraction;
    st.mean_overlap = overlaps ? st.mean_overlap / overlaps : 0.0;
    st.contacts_per_body = (double)pairs / n;
    st.n = n;
    st.kinetic = kyu_world_kinetic_energy(w);
    free(ids), free(near), free(p), free(r), free(ys);
    return st;
}

static void print_bed(const char *what, const bed_stats *b, double seconds, int steps, double wall,
                      int asleep) {
    printf(
        "check=%s n=%d simulated_s=%.2f steps=%d packing_bulk=%.3f mean_overlap_r=%.4f max_overlap_r=%.4f "
        "max_overlap_deep_r=%.4f contacts_per_body=%.2f below_floor=%d outside=%d asleep=%d kinetic_j=%.3g "
        "us_per_body_step=%.3f\n",
        what, b->n, seconds, steps, b->packing, b->mean_overlap, b->max_overlap, b->max_overlap_deep,
        b->contacts_per_body, b->below_floor, b->outside, asleep, b->kinetic,
        1e6 * wall / ((double)steps * b->n));
}

// The energy audit of a settle (kyu_world_set_energy_audit): what each stage of the step changed of
// the kinetic plus potential energy, summed over the run and, apart, over the steps at rest (the
// kinetic energy under 1e-3 of its peak), with the steps at rest in which the energy rose.
typedef struct audit_sums {
    double stage[KYU_AUDIT_STAGES], rest[KYU_AUDIT_STAGES];
    int rest_steps, rising_steps;
    double kinetic_peak, rise_max;
} audit_sums;

static const char *stage_name[KYU_AUDIT_STAGES] = {"forces",  "push",  "solve",
                                                   "impacts", "relax", "wall_push"};

static void audit_step(audit_sums *a, kyu_world *w, const kyu_step_stats *st) {
    double ke = kyu_world_kinetic_energy(w), change = 0;
    if (ke > a->kinetic_peak) a->kinetic_peak = ke;
    int rest = ke < 1e-3 * a->kinetic_peak;
    for (int k = 0; k < KYU_AUDIT_STAGES; k++) {
        a->stage[k] += st->energy_change[k], change += st->energy_change[k];
        if (rest) a->rest[k] += st->energy_change[k];
    }
    if (rest) {
        a->rest_steps++;
        if (change > 0) a->rising_steps++, a->rise_max = change > a->rise_max ? change : a->rise_max;
    }
}

static void print_audit(const audit_sums *a) {
    printf("  energy_audit_j");
    for (int k = 0; k < KYU_AUDIT_STAGES; k++) printf(" %s=%.4g", stage_name[k], a->stage[k]);
    printf("\n  energy_audit_at_rest_j steps=%d", a->rest_steps);
    for (int k = 0; k < KYU_AUDIT_STAGES; k++) printf(" %s=%.4g", stage_name[k], a->rest[k]);
    printf(" rising_steps=%d largest_rise=%.3g\n", a->rising_steps, a->rise_max);
}

// Steps until every body sleeps (or `limit` seconds pass); returns the wall time of the stepping.
// TRACE=N: every N steps of a settle, the time, the awake bodies, the kinetic and the gravitational
// potential energy, the deepest overlap, the impacts and whether the event cap stopped the step.
static void trace_line(kyu_world *w, int step, const kyu_step_stats *st) {
    int n = kyu_world_body_count(w);
    float *xyz = malloc((size_t)n * 3 * sizeof *xyz), *m = malloc((size_t)n * sizeof *m);
    kyu_world_get_positions(w, xyz, n);
    kyu_world_get_masses(w, m, n);
    double pe = 0;
    for (int i = 0; i < n; i++) pe += 9.81 * m[i] * xyz[3 * i + 1];
    printf("  t=%.3f awake=%d kinetic_j=%.4g potential_j=%.6g max_overlap_m=%.3g impacts=%d cap=%d\n",
           (double)(step + 1) * kyu_world_get_def(w).fixed_dt, st->awake_bodies, kyu_world_kinetic_energy(w),
           pe, (double)st->max_overlap, st->impacts, st->event_cap_hit);
    free(xyz), free(m);
}

// Steps the world until every body sleeps or `limit` seconds have passed. *max_overlap_stat: the
// deepest overlap of any step from `from` seconds on (kyu_step_stats.max_overlap, metres).
static double settle(kyu_world *w, double limit, double from, int *steps_out, float *max_overlap_stat) {
    kyu_world_def d = kyu_world_get_def(w);
    int steps = (int)(limit / d.fixed_dt), s = 0;
    double t0 = now();
    *max_overlap_stat = 0;
    int trace = getenv("TRACE") ? atoi(getenv("TRACE")) : 0; // every TRACE steps, a line of numbers
    audit_sums audit = {0};
    check(w, kyu_world_set_energy_audit(w, true), "the energy audit");
    for (; s < steps; s++) {
        check(w, kyu_world_step(w), "a step");
        kyu_step_stats st = kyu_world_stats(w);
        audit_step(&audit, w, &st);
        float m = st.max_overlap;
        if (m > *max_overlap_stat && (s + 1) * d.fixed_dt >= from) *max_overlap_stat = m;
        if (trace > 0 && s % trace == 0) trace_line(w, s, &st);
        if (kyu_world_sleeping_body_count(w) == kyu_world_body_count(w)) {
            s++;
            break;
        }
    }
    check(w, kyu_world_set_energy_audit(w, false), "the energy audit");
    print_audit(&audit);
    *steps_out = s;
    return now() - t0;
}

static kyu_world *new_world(int capacity) {
    kyu_world_def wd = kyu_world_def_default();
    if (getenv("NOSLEEP")) wd.sleep_speed = 0.0f;
    if (getenv("HZ")) wd.fixed_dt = 1.0f / (float)atof(getenv("HZ")); // steps a second (default 60)
    if (getenv("ITER")) wd.solver_iterations = atoi(getenv("ITER"));  // the solves' passes (default 8)
    wd.worker_count = workers;
    wd.body_capacity = capacity;
    kyu_world *w = NULL;
    check(NULL, kyu_world_create(&wd, &w), "the world");
    return w;
}

// Monodisperse spheres of radius R, mass 1, e 0.2, mu 0.5, dropped from a loose random lattice
// (10 x 10 per layer, 1.2 diameters apart, jittered by 0.2 of a diameter, with a random velocity
// of 0.2 sqrt(g R)) into a box 12 diameters wide: a random pour, the same at every size once
// lengths are scaled by R and times by sqrt(R / g).
static int pour(float R, int n) {
    kyu_world *w = new_world(n);
    float d = 2 * R, L = 12 * d;
    int layers = (n + 99) / 100;
    if (getenv("MESH"))
        container_mesh(w, L, 1.3f * d * (float)layers + 4 * d, 0.2f, 0.5f);
    else
        container(w, L, 1.3f * d * (float)layers + 4 * d, d, 0.2f, 0.5f);
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = R, bd.restitution = 0.2f, bd.friction = getenv("MU") ? (float)atof(getenv("MU")) : 0.5f;
    bd.rolling_resistance = getenv("RR") ? (float)atof(getenv("RR")) : 0.0f;
    float vs = 0.2f * sqrtf(9.81f * R);
    for (int i = 0; i < n; i++) {
        int layer = i / 100, a = i % 10, b = i / 10 % 10;
        bd.position = (vec3s){{(float)(-L / 2 + 1.2 * d * (a + 0.5) + 0.2 * d * (frand() - 0.5)),
                               (float)(R + 1.2 * d * (layer + 1)),
                               (float)(-L / 2 + 1.2 * d * (b + 0.5) + 0.2 * d * (frand() - 0.5))}};
        bd.velocity = (vec3s){{(float)(vs * (frand() - 0.5)), 0, (float)(vs * (frand() - 0.5))}};
        check(w, kyu_body_create(w, &bd, NULL), "a sphere");
    }
    int steps;
    float stat;
    double fall = sqrt(2 * 1.3 * d * layers / 9.81);
    double wall = settle(w, 10 * fall + 5, fall, &steps, &stat);
    bed_stats b = measure(w, L);
    char what[32];
    snprintf(what, sizeof what, "pour_r%g", (double)R);
    double t_end = steps * kyu_world_get_def(w).fixed_dt;
    int asleep = kyu_world_sleeping_body_count(w) == kyu_world_body_count(w);
    // The top layer's free fall to the floor: every bead has landed by then (the bed is higher).
    printf("  after_landing landed_by_s=%.2f max_overlap_r=%.4f asleep_after_s=%s%.2f\n", fall,
           (double)stat / R, asleep ? "" : ">", t_end - fall);
    print_bed(what, &b, t_end, steps, wall, asleep);
    kyu_world_destroy(w);
    return 0;
}

// Glass beads r 10-12 mm, 2500 kg/m^3, mu 0.5, e 0.5, poured in layers (n / layers beads, 400 by
// default) into a box a layer's lattice wide (0.5 m for 400): a layer appears every 0.25 s 3 cm
// above the bed, its beads 2.33 cm apart; then the bed settles. Any depth must hold.
static int bed(int n, int layers) {
    kyu_world *w = new_world(n);
    int per = (n + layers - 1) / layers, k = (int)ceil(sqrt(per));
    float L = 0.0233f * (float)k + 0.03f;
    container(w, L, 3.0f, 0.05f, 0.5f, 0.5f);
    kyu_body_def bd = kyu_body_def_default();
    bd.restitution = 0.5f, bd.friction = 0.5f;
    double t0 = now(), dt = kyu_world_get_def(w).fixed_dt;
    int made = 0, steps = 0, stride = (int)(0.25 / dt);
    float stat = 0;
    while (made < n) {
        // the new layer starts 3 cm above the highest centre
        double top = 0;
        kyu_body_id *ids = malloc((size_t)(made + 1) * sizeof *ids);
        int have = kyu_world_get_bodies(w, ids, made + 1);
        for (int i = 0; i < have; i++) {
            vec3s p;
            kyu_body_get_position(w, ids[i], &p);
            top = fmax(top, p.y);
        }
        free(ids);
        for (int i = 0; i < per && made < n; i++, made++) {
            bd.radius = (float)(0.010 + 0.002 * frand());
            bd.mass = (float)(2500.0 * 4.0 / 3.0 * PI * bd.radius * bd.radius * bd.radius);
            double sp = (L - 0.03) / k;
            bd.position = (vec3s){{(float)(-L / 2 + 0.015 + sp * (i % k + 0.5)), (float)(top + 0.03 + 0.0),
                                   (float)(-L / 2 + 0.015 + sp * (i / k + 0.5))}};
            check(w, kyu_body_create(w, &bd, NULL), "a bead");
        }
        float layer_max = 0;
        for (int s = 0; s < stride; s++, steps++) {
            check(w, kyu_world_step(w), "a step");
            layer_max = fmaxf(layer_max, kyu_world_stats(w).max_overlap);
        }
        stat = fmaxf(stat, layer_max);
        if (getenv("TRACE")) // a line a layer: its steps' deepest overlap, the bed's kinetic energy
            printf("  layer=%d bodies=%d t=%.2f max_overlap_m=%.4g kinetic_j=%.4g top_m=%.3f\n", made / per,
                   made, steps * dt, (double)layer_max, kyu_world_kinetic_energy(w), top);
    }
    int more;
    float stat2;
    double wall = now() - t0;
    wall += settle(w, 4.0, 0.0, &more, &stat2);
    steps += more;
    bed_stats b = measure(w, L);
    print_bed("bed", &b, steps * dt, steps, wall,
              kyu_world_sleeping_body_count(w) == kyu_world_body_count(w));
    printf("  max_overlap_stat_m=%.5f true_max_overlap_m~%.5f\n", (double)fmaxf(stat, stat2),
           b.max_overlap * 0.010);
    kyu_world_destroy(w);
    return 0;
}

// A frictionless pile (PILE's lattice, mu 0 everywhere): does it come to rest and sleep?
static int frictionless(int n) {
    kyu_world *w = new_world(n);
    int k = (int)ceil(sqrt(n / 17.0)), layers = (n + k * k - 1) / (k * k);
    float L = 1.1f * (float)k + 1.0f;
    container(w, L, 1.1f * (float)layers + 2, 1, 0.2f, 0.0f);
    kyu_body_def bd = kyu_body_def_default();
    bd.restitution = 0.2f, bd.friction = 0.0f;
    for (int i = 0; i < n; i++) {
        int layer = i / (k * k), j = i % (k * k);
        bd.position = (vec3s){{(float)(-L / 2 + 0.55 + 1.1 * (j % k) + 0.04 * (frand() - 0.5)),
                               (float)(0.55 + 1.1 * layer),
                               (float)(-L / 2 + 0.55 + 1.1 * (j / k) + 0.04 * (frand() - 0.5))}};
        check(w, kyu_body_create(w, &bd, NULL), "a sphere");
    }
    int steps;
    float stat;
    double limit = getenv("SECONDS_LIMIT") ? atof(getenv("SECONDS_LIMIT")) : 40.0;
    double wall = settle(w, limit, 0.0, &steps, &stat);
    bed_stats b = measure(w, L);
    print_bed("frictionless", &b, steps * kyu_world_get_def(w).fixed_dt, steps, wall,
              kyu_world_sleeping_body_count(w) == kyu_world_body_count(w));
    kyu_world_destroy(w);
    return 0;
}

static int gas(int n, long steps) {
    double G = cbrt(n * (4.0 / 3.0) * PI * 0.125 / 0.3);
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = (vec3s){{0, 0, 0}};
    wd.worker_count = workers;
    wd.body_capacity = n;
    kyu_world *w = NULL;
    check(NULL, kyu_world_create(&wd, &w), "the world");
    for (int k = 0; k < 6; k++) {
        vec3s lo = {{-1, -1, -1}}, hi = {{(float)G + 1, (float)G + 1, (float)G + 1}};
        if (k % 2)
            lo.raw[k / 2] = (float)G;
        else
            hi.raw[k / 2] = 0;
        add_box(w, lo, hi, 1, 0);
    }
    int m = (int)ceil(cbrt((double)n));
    double sp = G / m;
    kyu_body_def bd = kyu_body_def_default();
    bd.restitution = 1, bd.friction = 0;
    for (int i = 0; i < n; i++) {
        bd.position = (vec3s){{(float)(sp * (i % m) + sp / 2), (float)(sp * (i / m % m) + sp / 2),
                               (float)(sp * (i / (m * m)) + sp / 2)}};
        bd.velocity = (vec3s){
            {(float)(10 * (frand() - 0.5)), (float)(10 * (frand() - 0.5)), (float)(10 * (frand() - 0.5))}};
        check(w, kyu_body_create(w, &bd, NULL), "a sphere");
    }
    double e0 = kyu_world_kinetic_energy(w), prev = e0, drift = 0, jump = 0, t0 = now();
    for (long s = 0; s < steps; s++) {
        check(w, kyu_world_step(w), "a step");
        double e = kyu_world_kinetic_energy(w);
        drift = fmax(drift, fabs(e / e0 - 1)), jump = fmax(jump, fabs(e - prev) / e0);
        prev = e;
    }
    printf("check=gas n=%d steps=%ld packing=0.3 max_drift=%.3g largest_step_change=%.3g final=%.9f "
           "us_per_body_step=%.3f\n",
           n, steps, drift, jump, prev / e0, 1e6 * (now() - t0) / ((double)steps * n));
    kyu_world_destroy(w);
    return 0;
}

// A heap poured onto a square plate 2 m wide from a spout 0.8 m above its centre, four beads every
// third step; when all sleep (or 1,200 steps after the last), the heap's surface: the highest
// centre in rings 2 r wide, and the slope of those heights against the ring's radius over the
// flank (above 3 r, below 85% of the peak).
static int repose(float rolling, int n) {
    kyu_world_def wd = kyu_world_def_default();
    wd.worker_count = workers;
    kyu_world *w = NULL;
    check(w, kyu_world_create(&wd, &w), "world");
    kyu_collider_def c = kyu_collider_def_default();
    c.type = KYU_SHAPE_BOX, c.position = (vec3s){{0, -0.5f, 0}}, c.half_extents = (vec3s){{1, 0.5f, 1}},
    c.friction = 0.5f;
    check(w, kyu_collider_create(w, &c, NULL), "plate");
    const float r = 0.02f;
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = r, bd.mass = (float)(2500.0 * 4.0 / 3.0 * PI * r * r * r), bd.friction = 0.5f,
    bd.restitution = 0.3f;
    bd.rolling_resistance = rolling, bd.velocity = (vec3s){{0, -1, 0}};
    int made = 0, step = 0;
    clock_t t0 = clock();
    while (made < n || step < made / 4 * 3 + 1200) {
        for (int k = 0; k < 4 && made < n && step % 3 == 0; k++, made++) {
            bd.position = (vec3s){{0.03f * (float)(frand() - 0.5) + (k & 1 ? 0.025f : -0.025f), 0.8f,
                                   0.03f * (float)(frand() - 0.5) + (k & 2 ? 0.025f : -0.025f)}};
            check(w, kyu_body_create(w, &bd, NULL), "bead");
        }
        check(w, kyu_world_step(w), "step");
        step++;
        if (made == n && kyu_world_sleeping_body_count(w) == n) break;
    }
    double seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    kyu_body_id *ids = malloc((size_t)n * sizeof *ids);
    if (!ids) return 1;
    int count = kyu_world_get_bodies(w, ids, n), on = 0;
    float top[64] = {0};
    for (int i = 0; i < count; i++) {
        vec3s p;
        kyu_body_get_position(w, ids[i], &p);
        if (p.y < 0.0f) continue;
        on++;
        int b = (int)(sqrtf(p.x * p.x + p.z * p.z) / (2 * r));
        if (b < 64 && p.y > top[b]) top[b] = p.y;
    }
    free(ids);
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0;
    for (int b = 1; b < 64; b++)
        if (top[b] > 3 * r && top[b] < 0.85f * top[0]) {
            double x = (b + 0.5) * 2 * r;
            sx += x, sy += top[b], sxx += x * x, sxy += x * top[b], m++;
        }
    double slope = m > 1 ? -(m * sxy - sx * sy) / (m * sxx - sx * sx) : 0.0;
    printf("repose rolling_resistance=%g poured=%d on_plate=%d asleep=%d steps=%d height_m=%.3f "
           "height_diameters=%.1f flank_slope=%.3f angle_deg=%.1f rings=%d seconds=%.1f\n",
           (double)rolling, n, on, kyu_world_sleeping_body_count(w), step, (double)top[0], top[0] / (2 * r),
           slope, atan(slope) * 180.0 / PI, m, seconds);
    kyu_world_destroy(w);
    return 0;
}

// ---- sizes in one scene -----------------------------------------------------------------------------

typedef struct sized_bed {
    int n, asleep, awake_end, steps,
        over_1pct;                  // over_1pct: pairs overlapping over 1% of their smaller radius
    double worst;                   // the deepest overlap over the pair's smaller radius (walls: the body's)
    double broadphase_us, total_us; // per awake body-step, over every step
    double broadphase_us_2s;   // the same over the first 2 s (the fall and the first settling: all awake)
    double pairs_2s;           // candidate pairs per awake body-step over the first 2 s
    double broadphase_us_last; // the same over the last 2 s of the run (with NOSLEEP: the settled bed)
    double pairs_last;         // candidate pairs per awake body-step over the last 2 s
    double packing, settle_s, fastest, fastest_spin; // m/s at the end: speed, and |w| r of the spin
} sized_bed;

// N spheres (density 2500, kyu's default material) inserted at once at a volume fraction of 0.12 into
// a box over a floor 30 sqrt(N / 2000) mean-volume radii wide (kyu_inserter: no overlaps), so that
// the bed is about 16 mean diameters deep and the highest sphere falls about 6 m, whatever N; then
// stepped with the defaults until every one sleeps (or 30 s pass). rmin == rmax: equal radii.
static sized_bed sized(int n, float rmin, float rmax, double r_eq) {
    sized_bed out;
    memset(&out, 0, sizeof out);
    kyu_world *w = new_world(n);
    float L = (float)(30.0 * r_eq * sqrt(n / 2000.0)),
          H = (float)(n * 4.0 / 3.0 * PI * r_eq * r_eq * r_eq / (0.12 * L * L));
    kyu_collider_def cd = kyu_collider_def_default();
    check(w, kyu_collider_create(w, &cd, NULL), "the floor");
    for (int k = 0; k < 4; k++) {
        cd.normal = (vec3s){{k == 0   ? 1.0f
                             : k == 1 ? -1.0f
                                      : 0.0f,
                             0,
                             k == 2   ? 1.0f
                             : k == 3 ? -1.0f
                                      : 0.0f}};
        cd.position = glms_vec3_scale(cd.normal, -L / 2);
        check(w, kyu_collider_create(w, &cd, NULL), "a wall");
    }
    kyu_inserter_def d = kyu_inserter_def_default();
    d.region.center = (vec3s){{0, H / 2 + 0.001f, 0}}, d.region.half_extents = (vec3s){{L / 2, H / 2, L / 2}};
    d.density = 2500, d.count = n, d.attempts = 10000, d.seed = 37;
    if (getenv("RR")) d.body.rolling_resistance = (float)atof(getenv("RR")); // the defaults: 0
    if (rmax > rmin) { // ln r normal, its median the geometric mean, +-2 sigma at the ends
        d.size.kind = KYU_SIZE_LOGNORMAL, d.size.min = rmin, d.size.max = rmax;
        d.size.mean = sqrtf(rmin * rmax), d.size.sigma = logf(rmax / rmin) / 4.0f;
    } else {
        d.body.radius = rmin;
    }
    kyu_inserter *in;
    check(w, kyu_inserter_create(w, &d, &in), "the inserter");
    check(w, kyu_inserter_run(in, w, 0, NULL), "the insertion");
    if (kyu_world_body_count(w) != n) {
        fprintf(stderr, "physics-check: the inserter placed %d of %d bodies\n", kyu_world_body_count(w), n);
        exit(1);
    }
    kyu_inserter_destroy(in);
    double awake = 0, bp = 0, total = 0, pairs = 0, dt = kyu_world_get_def(w).fixed_dt;
    double seconds = getenv("SECONDS_LIMIT") ? atof(getenv("SECONDS_LIMIT")) : 30.0; // default 30 s
    int limit = (int)(seconds / dt), early = (int)(2.0 / dt), last = limit - early;
    double awake_last = 0, bp_last = 0, pairs_last = 0;
    for (out.steps = 0; out.steps < limit && kyu_world_sleeping_body_count(w) < n; out.steps++) {
        check(w, kyu_world_step(w), "a step");
        kyu_step_stats st = kyu_world_stats(w);
        awake += st.awake_bodies, bp += st.ms_broadphase, total += st.ms_total, pairs += st.candidate_pairs;
        if (out.steps + 1 == early) out.broadphase_us_2s = 1e3 * bp / awake, out.pairs_2s = pairs / awake;
        if (out.steps >= last)
            awake_last += st.awake_bodies, bp_last += st.ms_broadphase, pairs_last += st.candidate_pairs;
    }
    out.broadphase_us_last = awake_last > 0 ? 1e3 * bp_last / awake_last : 0.0;
    out.pairs_last = awake_last > 0 ? pairs_last / awake_last : 0.0;
    out.n = n, out.asleep = kyu_world_sleeping_body_count(w) == n, out.settle_s = out.steps * dt;
    out.awake_end = n - kyu_world_sleeping_body_count(w);
    out.broadphase_us = 1e3 * bp / awake, out.total_us = 1e3 * total / awake;
    float *vel = malloc((size_t)n * 3 * sizeof *vel);
    kyu_world_get_velocities(w, vel, n);
    for (int i = 0; i < n; i++)
        out.fastest =
            fmax(out.fastest, sqrt((double)vel[3 * i] * vel[3 * i] + (double)vel[3 * i + 1] * vel[3 * i + 1] +
                                   (double)vel[3 * i + 2] * vel[3 * i + 2]));
    float *ang = malloc((size_t)n * 3 * sizeof *ang), *rad = malloc((size_t)n * sizeof *rad);
    kyu_world_get_angular_velocities(w, ang, n);
    kyu_world_get_radii(w, rad, n);
    for (int i = 0; i < n; i++)
        out.fastest_spin = fmax(out.fastest_spin, rad[i] * sqrt((double)ang[3 * i] * ang[3 * i] +
                                                                (double)ang[3 * i + 1] * ang[3 * i + 1] +
                                                                (double)ang[3 * i + 2] * ang[3 * i + 2]));
    free(vel), free(ang), free(rad);
    // Every pair that touches, from the contact network: its overlap against its smaller radius.
    int m = kyu_world_get_contact_network(w, &(kyu_contact_arrays){0}, 0);
    kyu_body_id *a = malloc((size_t)m * sizeof *a + 1), *b = malloc((size_t)m * sizeof *b + 1);
    float *gap = malloc((size_t)m * sizeof *gap + 1);
    kyu_contact_arrays ca = {.body = a, .other = b, .gap = gap};
    kyu_world_get_contact_network(w, &ca, m);
    for (int k = 0; k < m; k++) {
        float ra, rb = INFINITY;
        kyu_body_get_radius(w, a[k], &ra);
        if (b[k].index1) kyu_body_get_radius(w, b[k], &rb);
        double rel = -gap[k] / fmin(ra, rb);
        out.worst = fmax(out.worst, rel);
        out.over_1pct += rel > 0.01;
    }
    free(a), free(b), free(gap);
    kyu_region_measure rm;
    check(w, // the bulk: away from the floor, the walls and the top (the bed is about 0.2 H deep)
          kyu_world_measure_box(w, (vec3s){{-0.4f * L, (float)(0.03 * H), -0.4f * L}},
                                (vec3s){{0.4f * L, (float)(0.13 * H), 0.4f * L}}, &rm),
          "the measure");
    out.packing = rm.packing_fraction;
    kyu_world_destroy(w);
    return out;
}

static void print_sized(const char *what, const sized_bed *b) {
    printf("check=sizes bed=%s n=%d asleep=%d awake_at_end=%d fastest_at_end=%.3g spin_at_end=%.3g "
           "settle_s=%.2f steps=%d "
           "max_overlap_of_smaller_r=%.4f pairs_over_1pct=%d packing_bulk=%.3f "
           "broadphase_us_per_awake_body_step=%.4f (first_2s=%.4f last_2s=%.4f) "
           "pairs_per_awake_body_step_first_2s=%.2f (last_2s=%.2f) step_us_per_awake_body_step=%.3f\n",
           what, b->n, b->asleep, b->awake_end, b->fastest, b->fastest_spin, b->settle_s, b->steps, b->worst,
           b->over_1pct, b->packing, b->broadphase_us, b->broadphase_us_2s, b->broadphase_us_last,
           b->pairs_2s, b->pairs_last, b->total_us);
}

static int sizes(int n, float ratio) {
    float rmax = 0.05f, rmin = rmax / ratio;
    // The equal radius of the same mean volume (the lognormal cut at its ends, by sampling it).
    kyu_world *probe = new_world(16);
    kyu_inserter_def d = kyu_inserter_def_default();
    d.size.kind = KYU_SIZE_LOGNORMAL, d.size.min = rmin, d.size.max = rmax;
    d.size.mean = sqrtf(rmin * rmax), d.size.sigma = logf(rmax / rmin) / 4.0f, d.count = 1, d.seed = 37;
    d.region.half_extents = (vec3s){{1, 1, 1}};
    kyu_inserter *in;
    check(probe, kyu_inserter_create(probe, &d, &in), "the probe");
    float *r = malloc((size_t)n * sizeof *r);
    kyu_inserter_sample_radii(in, 0, n, r);
    double v = 0;
    for (int i = 0; i < n; i++) v += (double)r[i] * r[i] * r[i] / n;
    free(r);
    kyu_inserter_destroy(in);
    kyu_world_destroy(probe);
    double r_eq = cbrt(v);
    sized_bed poly = sized(n, rmin, rmax, r_eq), equal = sized(n, (float)r_eq, (float)r_eq, r_eq);
    char what[32];
    snprintf(what, sizeof what, "1:%g", (double)ratio);
    print_sized(what, &poly);
    print_sized("equal", &equal);
    printf("  broadphase_cost_ratio=%.3f (first_2s=%.3f last_2s=%.3f) step_cost_ratio=%.3f (radii %g to %g m "
           "against %.4f "
           "m)\n",
           poly.broadphase_us / equal.broadphase_us, poly.broadphase_us_2s / equal.broadphase_us_2s,
           equal.broadphase_us_last > 0 ? poly.broadphase_us_last / equal.broadphase_us_last : 0.0,
           poly.total_us / equal.total_us, (double)rmin, (double)rmax, r_eq);
    return 0;
}

// A flat-bottomed silo discharging through a round hole, against Beverloo's law: the mass flow
// W = C rho_b sqrt(g) (D - k d)^(5/2) of beads of diameter d through a hole of diameter D, with C
// about 0.58 and k about 1.5 (Beverloo, Leniger and van de Velde 1961; Nedderman's "Statics and
// kinematics of granular materials"), rho_b the bulk density (packing times the beads' density).
// The silo is square, 20 d wide, its walls four planes; its floor is one mesh (a plate with a
// hole of 48 sides) under which a box closes the hole while n glass beads (2500 kg/m^3, mu 0.5,
// the defaults otherwise) dropped as a lattice settle; then the box goes and the beads that pass
// below the floor are counted. The rate is taken between 20% and 70% of the beads out. Returns 0,
// or 1 when 70% did not leave within 20 s.
typedef struct silo_run {
    double rate, packing, deepest_flow, settle_s, hz;
    int outside; // beads outside the walls above the floor at the end
} silo_run;

static int silo_once(float d, float hole, int n, silo_run *out) {
    float r = d / 2, D = hole * d, W = 20 * d;
    double rho = 2500, m = rho * 4.0 / 3.0 * PI * r * r * r;
    kyu_world *w = new_world(n);
    enum { SIDES = 48 };
    vec3s p[2 * SIDES];
    int32_t t[6 * SIDES];
    for (int j = 0; j < SIDES; j++) { // the hole's rim, and the square's edge at the same angle
        float a = (float)(2 * PI * j / SIDES), c = cosf(a), s = sinf(a), edge = W / fmaxf(fabsf(c), fabsf(s));
        p[2 * j] = (vec3s){{D / 2 * c, 0, D / 2 * s}};
        p[2 * j + 1] = (vec3s){{edge * c, 0, edge * s}};
        int32_t i0 = 2 * j, i1 = 2 * ((j + 1) % SIDES), q[6] = {i0, i1, i0 + 1, i1, i1 + 1, i0 + 1};
        memcpy(&t[6 * j], q, sizeof q);
    }
    kyu_collider_def cd = kyu_collider_def_default();
    cd.type = KYU_SHAPE_MESH, cd.points = p, cd.point_count = 2 * SIDES, cd.indices = t;
    cd.triangle_count = 2 * SIDES, cd.friction = 0.5f;
    check(w, kyu_collider_create(w, &cd, NULL), "the floor");
    for (int k = 0; k < 4; k++) {
        float sx = k == 0 ? 1.0f : k == 1 ? -1.0f : 0.0f, sz = k == 2 ? 1.0f : k == 3 ? -1.0f : 0.0f;
        kyu_collider_def wall = kyu_collider_def_default();
        wall.position = (vec3s){{sx * W / 2, 0, sz * W / 2}}, wall.normal = (vec3s){{-sx, 0, -sz}};
        check(w, kyu_collider_create(w, &wall, NULL), "a wall");
    }
    kyu_collider_def lid = kyu_collider_def_default();
    lid.type = KYU_SHAPE_BOX, lid.position = (vec3s){{0, -d, 0}}, lid.half_extents = (vec3s){{D, d, D}};
    kyu_collider_id lid_id;
    check(w, kyu_collider_create(w, &lid, &lid_id), "the lid");
    int per = (int)(W / (1.1f * d)) - 1;
    for (int i = 0; i < n; i++) {
        int layer = i / (per * per), ix = i % per, iz = (i / per) % per;
        kyu_body_def bd = kyu_body_def_default();
        bd.radius = r, bd.mass = (float)m;
        bd.position = (vec3s){{-W / 2 + (float)(ix + 1) * 1.1f * d + (float)(frand() - 0.5) * 0.08f * d,
                               r + 0.2f * d + (float)layer * 1.1f * d,
                               -W / 2 + (float)(iz + 1) * 1.1f * d + (float)(frand() - 0.5) * 0.08f * d}};
        check(w, kyu_body_create(w, &bd, NULL), "a bead");
    }
    double hz = out->hz = 1.0 / kyu_world_get_def(w).fixed_dt;
    int step = 0;
    while (step < (int)(4 * hz) && kyu_world_sleeping_body_count(w) < n)
        check(w, kyu_world_step(w), "a step"), step++;
    out->settle_s = step / hz;
    float *pos = malloc((size_t)n * 3 * sizeof *pos);
    kyu_world_get_positions(w, pos, n);
    float top = 0;
    for (int i = 0; i < n; i++) top = fmaxf(top, pos[3 * i + 1]);
    // The bulk: 2 d off the floor and the walls, 3 d under the top (a fill too shallow for that,
    // under about 2,000 beads, is measured whole).
    float y0 = 2 * d, y1 = top - 3 * d;
    if (!(y1 > y0)) y0 = 0, y1 = top + r;
    kyu_region_measure rm;
    check(w,
          kyu_world_measure_box(w, (vec3s){{-W / 2 + 2 * d, y0, -W / 2 + 2 * d}},
                                (vec3s){{W / 2 - 2 * d, y1, W / 2 - 2 * d}}, &rm),
          "the measure");
    out->packing = rm.packing_fraction;
    check(w, kyu_collider_destroy(w, lid_id), "the lid's removal");
    double t20 = -1, t70 = -1;
    out->deepest_flow = 0;
    for (int s = 1; s <= (int)(20 * hz) && t70 < 0; s++) {
        check(w, kyu_world_step(w), "a step");
        out->deepest_flow = fmax(out->deepest_flow, kyu_world_stats(w).max_overlap / r);
        kyu_world_get_positions(w, pos, n);
        int below = 0;
        for (int i = 0; i < n; i++) below += pos[3 * i + 1] < -r;
        if (t20 < 0 && below >= n / 5) t20 = s / hz;
        if (below >= n * 7 / 10) t70 = s / hz;
    }
    out->outside = 0;
    for (int i = 0; i < n; i++)
        out->outside += pos[3 * i + 1] > -r && (fabsf(pos[3 * i]) > W / 2 || fabsf(pos[3 * i + 2]) > W / 2);
    out->rate = t70 > t20 && t20 > 0 ? (n * 7 / 10 - n / 5) * m / (t70 - t20) : 0;
    free(pos);
    kyu_world_destroy(w);
    return t70 < 0;
}

// Holes of 6, 8, 10 and 12 bead diameters: each rate against Beverloo's with C 0.58 and k 1.5,
// and C fitted to each (with k 1.5): the 5/2 power holds where the four agree.
static int silo(int n) {
    const float d = 0.004f, holes[] = {6, 8, 10, 12};
    double c[4], lo = INFINITY, hi = 0, mean = 0;
    int failed = 0;
    for (int k = 0; k < 4; k++) {
        silo_run run;
        double t0 = now();
        if (silo_once(d, holes[k], n, &run)) {
            printf("check=silo hole_d=%g: 70%% of the %d beads did not leave within 20 s (a flat floor keeps "
                   "the beads in its corners: fill more, 8,000 by default)\n",
                   (double)holes[k], n);
            failed = 1;
            continue;
        }
        double bulk = run.packing * 2500, scale = bulk * sqrt(9.81) * pow((holes[k] - 1.5) * d, 2.5);
        c[k] = run.rate / scale, lo = fmin(lo, c[k]), hi = fmax(hi, c[k]), mean += c[k] / 4;
        printf("check=silo d=%g hole_d=%g n=%d hz=%g settle_s=%.2f packing=%.3f rate_kg_s=%.4f "
               "beverloo_kg_s=%.4f "
               "ratio=%.3f c_fit=%.3f deepest_in_flow=%.3f outside=%d seconds=%.1f\n",
               (double)d, (double)holes[k], n, run.hz, run.settle_s, run.packing, run.rate, 0.58 * scale,
               run.rate / (0.58 * scale), c[k], run.deepest_flow, run.outside, now() - t0);
    }
    if (failed) return 1;
    printf(
        "check=silo_law c_mean=%.3f c_spread=%.3f (Beverloo: C 0.58, 0.55-0.65 measured; the 5/2 power with "
        "k 1.5 holds where the spread is small)\n",
        mean, (hi - lo) / mean);
    return 0;
}

static void usage(FILE *f) {
    fprintf(f, "usage: physics-check pour R [N] | bed [N] [LAYERS] | frictionless [N] | gas N STEPS | repose "
               "RR [N] | sizes [N] [RATIO] | silo [N] [--workers W]\n");
}

int main(int argc, char **argv) {
    if (getenv("SEED")) lcg = (uint32_t)atoi(getenv("SEED"));
    int nargs = 0;
    const char *args[8];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--workers") == 0) {
            if (i + 1 >= argc || (workers = atoi(argv[++i])) < 1) {
                fprintf(stderr, "physics-check: --workers needs a count >= 1\n");
                return 2;
            }
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            fprintf(stderr, "physics-check: unknown option %s\n", argv[i]);
            return 2;
        } else if (nargs < 8) {
            args[nargs++] = argv[i];
        }
    }
    if (nargs >= 2 && strcmp(args[0], "pour") == 0)
        return pour((float)atof(args[1]), nargs > 2 ? atoi(args[2]) : 3000);
    if (nargs >= 1 && strcmp(args[0], "bed") == 0)
        return bed(nargs > 1 ? atoi(args[1]) : 20000, nargs > 2 ? atoi(args[2]) : 50);
    if (nargs >= 1 && strcmp(args[0], "frictionless") == 0)
        return frictionless(nargs > 1 ? atoi(args[1]) : 5000);
    if (nargs >= 3 && strcmp(args[0], "gas") == 0) return gas(atoi(args[1]), atol(args[2]));
    if (nargs >= 1 && strcmp(args[0], "sizes") == 0)
        return sizes(nargs > 1 ? atoi(args[1]) : 10000, nargs > 2 ? (float)atof(args[2]) : 10.0f);
    if (nargs >= 1 && strcmp(args[0], "silo") == 0) return silo(nargs > 1 ? atoi(args[1]) : 8000);
    if (nargs >= 2 && strcmp(args[0], "repose") == 0)
        return repose((float)atof(args[1]), nargs > 2 ? atoi(args[2]) : 1500);
    usage(stderr);
    return 2;
}
