// SPDX-License-Identifier: MIT
// Insertion (insert.h): the radii drawn have the moments of the distribution asked for (thousands
// of draws against the formulas), nothing inserted ever overlaps a body or a collider, the same
// seed inserts the same bodies (however the calls are cut), a rate inserts on time, a volume
// fraction is reached, velocities stay in their cone, and bad settings are refused by name.
#include <stdlib.h>
#include <string.h>

#include "test.h"

#define PI_D 3.14159265358979323846

static kyu_world *space(int max_bodies) {
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = v3(0, 0, 0);
    if (max_bodies > 0) wd.max_bodies = max_bodies;
    kyu_world *w = NULL;
    kyu_world_create(&wd, &w);
    return w;
}

// Mean and variance of n floats.
static void moments(const float *x, int n, double *mean, double *var) {
    double s = 0, s2 = 0;
    for (int i = 0; i < n; i++) s += x[i];
    *mean = s / n;
    for (int i = 0; i < n; i++) s2 += (x[i] - *mean) * (x[i] - *mean);
    *var = s2 / (n - 1);
}

static double phi(double z) { return exp(-0.5 * z * z) / sqrt(2 * PI_D); }
static double big_phi(double z) { return 0.5 * erfc(-z / sqrt(2.0)); }

enum { DRAWS = 20000 };

// Draws `DRAWS` radii of the distribution, and checks their mean and variance within 5 standard
// errors of the expected (the variance's error from the fourth moment, taken loosely as 2 var^2).
static void check_moments(kyu_size_distribution size, double mean, double var) {
    kyu_world *w = space(0);
    kyu_inserter_def d = kyu_inserter_def_default();
    d.size = size, d.count = 1, d.region.half_extents = v3(10, 10, 10), d.seed = 42;
    kyu_inserter *in = NULL;
    ENSURE(kyu_inserter_create(w, &d, &in) == KYU_OK);
    float *r = malloc(DRAWS * sizeof *r);
    ENSURE(kyu_inserter_sample_radii(in, 0, DRAWS, r) == KYU_OK);
    double m, v;
    moments(r, DRAWS, &m, &v);
    for (int i = 0; i < DRAWS; i++)
        ENSURE(r[i] > 0 && (size.kind == KYU_SIZE_DISCRETE || (r[i] >= size.min && r[i] <= size.max)));
    free(r);
    kyu_inserter_destroy(in);
    kyu_world_destroy(w);
    ENSURE_NEAR(m, mean, 5 * sqrt(var / DRAWS));
    ENSURE_NEAR(v, var, 5 * var * sqrt(2.0 / DRAWS) * 1.5);
}

static void test_radii_have_the_moments_asked_for(void) {
    kyu_size_distribution s = {0};
    s.kind = KYU_SIZE_UNIFORM, s.min = 0.01f, s.max = 0.03f;
    check_moments(s, 0.02, 0.02 * 0.02 / 12);
    if (test_current_failed) return;
    // A normal cut far out: its own mean and variance.
    s.kind = KYU_SIZE_NORMAL, s.mean = 0.05f, s.sigma = 0.005f, s.min = 0.02f, s.max = 0.08f;
    check_moments(s, 0.05, 0.005 * 0.005);
    if (test_current_failed) return;
    // A normal cut at -1 and +2 sigma: the truncated normal's moments.
    {
        double mu = 0.05, sg = 0.01, a = -1, b = 2, z = big_phi(b) - big_phi(a);
        double mean = mu + sg * (phi(a) - phi(b)) / z;
        double var = sg * sg * (1 + (a * phi(a) - b * phi(b)) / z - pow((phi(a) - phi(b)) / z, 2));
        s.mean = 0.05f, s.sigma = 0.01f, s.min = 0.04f, s.max = 0.07f;
        check_moments(s, mean, var);
        if (test_current_failed) return;
    }
    // Lognormal of median 0.01 and sigma 0.3, cut far out: mean m e^(s^2/2), var (e^(s^2) - 1) m^2 e^(s^2).
    {
        double med = 0.01, sg = 0.3;
        s.kind = KYU_SIZE_LOGNORMAL, s.mean = 0.01f, s.sigma = 0.3f, s.min = 0.001f, s.max = 0.1f;
        check_moments(s, med * exp(sg * sg / 2), (exp(sg * sg) - 1) * med * med * exp(sg * sg));
        if (test_current_failed) return;
    }
    // A mixture of three sizes by number: the fractions asked for.
    {
        const float radii[3] = {0.01f, 0.02f, 0.04f}, weights[3] = {2, 1, 1};
        s = (kyu_size_distribution){0};
        s.kind = KYU_SIZE_DISCRETE, s.radii = radii, s.weights = weights, s.count = 3;
        double mean = 0.5 * 0.01 + 0.25 * 0.02 + 0.25 * 0.04;
        double var = 0.5 * 0.0001 + 0.25 * 0.0004 + 0.25 * 0.0016 - mean * mean;
        check_moments(s, mean, var);
    }
}

// By mass, with a density: a class's share of the bodies is its mass share over its body's mass,
// so equal mass shares of r and 2r give 8 small bodies for each large one; the mass drawn splits as
// asked.
static void test_mixture_by_mass_splits_the_mass(void) {
    const float radii[2] = {0.01f, 0.02f}, weights[2] = {1, 1};
    kyu_world *w = space(0);
    kyu_inserter_def d = kyu_inserter_def_default();
    d.size.kind = KYU_SIZE_DISCRETE, d.size.radii = radii, d.size.weights = weights, d.size.count = 2;
    d.size.basis = KYU_MIX_BY_MASS, d.density = 1000, d.count = 1, d.seed = 3;
    kyu_inserter *in;
    ENSURE(kyu_inserter_create(w, &d, &in) == KYU_OK);
    float *r = malloc(DRAWS * sizeof *r);
    kyu_inserter_sample_radii(in, 0, DRAWS, r);
    int small = 0;
    double mass_small = 0, mass = 0;
    for (int i = 0; i < DRAWS; i++) {
        double m = (double)r[i] * r[i] * r[i];
        small += r[i] == radii[0];
        mass_small += r[i] == radii[0] ? m : 0;
        mass += m;
    }
    free(r);
    kyu_inserter_destroy(in);
    kyu_world_destroy(w);
    double p = 8.0 / 9.0;
    ENSURE_NEAR((double)small / DRAWS, p, 5 * sqrt(p * (1 - p) / DRAWS));
    ENSURE_NEAR(mass_small / mass, 0.5, 0.03);
}

// Every pair of bodies is apart, and every body is apart from the walls: the world's bodies, the
// call's own, and the colliders, checked from the positions the world holds.
static int overlaps(kyu_world *w, float floor_y) {
    int n = kyu_world_body_count(w);
    float *p = malloc((size_t)n * 3 * sizeof *p), *r = malloc((size_t)n * sizeof *r);
    kyu_world_get_positions(w, p, n);
    kyu_world_get_radii(w, r, n);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        if (p[3 * i + 1] - r[i] < floor_y) bad++;
        for (int j = i + 1; j < n; j++) {
            double dx = p[3 * i] - p[3 * j], dy = p[3 * i + 1] - p[3 * j + 1],
                   dz = p[3 * i + 2] - p[3 * j + 2];
            if (sqrt(dx * dx + dy * dy + dz * dz) < (double)r[i] + r[j]) bad++;
        }
    }
    free(p), free(r);
    return bad;
}

// A lognormal fill of a box until it is full (the calls then block), in a world that holds bodies
// already and a floor through the region: no body ever overlaps another or the floor; the inserter
// says how many it could not place.
static void test_inserted_bodies_never_overlap(void) {
    kyu_world *w = space(0);
    kyu_collider_def floor = kyu_collider_def_default();
    floor.position = v3(0, -0.2f, 0); // cuts the region's lower part away
    kyu_collider_create(w, &floor, NULL);
    for (int i = 0; i < 20; i++) { // bodies there already, on a line through the region
        kyu_body_def bd = kyu_body_def_default();
        bd.radius = 0.05f,
        bd.position = v3(-0.45f + 0.1f * (float)(i % 10), 0.12f * (float)(i / 10), 0.12f * (float)(i % 2));
        kyu_body_create(w, &bd, NULL);
    }
    ENSURE(overlaps(w, -0.2f) == 0);
    kyu_inserter_def d = kyu_inserter_def_default();
    d.size.kind = KYU_SIZE_LOGNORMAL, d.size.mean = 0.03f, d.size.sigma = 0.4f, d.size.min = 0.01f;
    d.size.max = 0.1f, d.density = 1000, d.count = TEST_LENGTH(2000, 600), d.attempts = 50, d.seed = 9;
    kyu_inserter *in;
    ENSURE(kyu_inserter_create(w, &d, &in) == KYU_OK);
    int total = 0;
    for (int call = 0; call < 5; call++) {
        int made = -1;
        ENSURE(kyu_inserter_run(in, w, 0.1 * call, &made) == KYU_OK);
        total += made;
        ENSURE(overlaps(w, -0.2f) == 0);
    }
    kyu_inserter_stats st = kyu_inserter_get_stats(in);
    ENSURE(st.inserted == total && total > 100);
    ENSURE(st.inserted < d.count && st.blocked >= 1); // the box filled before the count
    ENSURE(st.requested == d.count);
    ENSURE(kyu_world_body_count(w) == 20 + total);
    kyu_inserter_destroy(in);
    kyu_world_destroy(w);
}

// The world's state after inserting `count` bodies of seed `seed`, in `calls` calls.
static uint64_t inserted_hash(uint64_t seed, int calls) {
    kyu_world *w = space(0);
    kyu_inserter_def d = kyu_inserter_def_default();
    d.region.shape = KYU_REGION_CYLINDER, d.region.radius = 1, d.region.half_height = 0.5f;
    d.region.rotation = (versors){{0.2f, 0.1f, 0.0f, 1.0f}};
    d.size.kind = KYU_SIZE_NORMAL, d.size.mean = 0.05f, d.size.sigma = 0.01f, d.size.min = 0.03f;
    d.size.max = 0.07f, d.density = 2500, d.rate = 300, d.velocity = v3(0, -1, 0), d.cone_degrees = 20;
    d.seed = seed;
    kyu_inserter *in;
    kyu_inserter_create(w, &d, &in);
    for (int k = 1; k <= calls; k++) kyu_inserter_run(in, w, 1.0 * k / calls, NULL);
    uint64_t h = kyu_world_state_hash(w) ^ (uint64_t)kyu_world_body_count(w);
    kyu_inserter_destroy(in);
    kyu_world_destroy(w);
    return h;
}

// Same seed, same bodies (in one call or ten); another seed, other bodies.
static void test_same_seed_same_bodies(void) {
    uint64_t a = inserted_hash(5, 1);
    ENSURE(a == inserted_hash(5, 1));
    ENSURE(a == inserted_hash(5, 10));
    ENSURE(a != inserted_hash(6, 1));
}

// A rate of 30 bodies a second into a wide region under gravity, stepped at 60 Hz: after each
// call, floor(30 t) + 1 bodies, as due; a mass rate keeps the mass within one body of rate * t.
static void test_rate_inserts_on_time(void) {
    for (int by_mass = 0; by_mass < 2; by_mass++) {
        kyu_world_def wd = kyu_world_def_default();
        kyu_world *w;
        kyu_world_create(&wd, &w);
        kyu_inserter_def d = kyu_inserter_def_default();
        d.region.center = v3(0, 5, 0), d.region.half_extents = v3(3, 0.2f, 3);
        d.size.kind = KYU_SIZE_UNIFORM, d.size.min = 0.02f, d.size.max = 0.05f, d.density = 1000;
        if (by_mass)
            d.mass_rate = 0.5f;
        else
            d.rate = 30;
        d.count = 50;
        kyu_inserter *in;
        ENSURE(kyu_inserter_create(w, &d, &in) == KYU_OK);
        double biggest = 1000 * 4.0 / 3.0 * PI_D * 0.05 * 0.05 * 0.05;
        for (int step = 0; step < 120; step++) {
            double t = step * (double)wd.fixed_dt;
            ENSURE(kyu_inserter_run(in, w, t, NULL) == KYU_OK);
            ENSURE(overlaps(w, -1e9f) == 0);
            kyu_inserter_stats st = kyu_inserter_get_stats(in);
            if (by_mass) {
                ENSURE(st.mass > 0.5 * t || st.inserted == 50);
                ENSURE(st.mass <= 0.5 * t + biggest);
                ENSURE(st.requested == -1 && st.mass_requested == 0.5 * t);
            } else {
                long due = (long)floor(30 * t + 1e-9) + 1;
                ENSURE(st.inserted == (due < 50 ? due : 50));
                ENSURE(st.requested == st.inserted);
            }
            kyu_world_step(w);
        }
        if (!by_mass) ENSURE(kyu_inserter_get_stats(in).inserted == 50);
        kyu_inserter_destroy(in);
        kyu_world_destroy(w);
    }
}

// A volume fraction of 0.2 of a box, asked in one call: the bodies whose centre is in it fill 0.2
// of it (and less than one more body would), as measure.h's packing fraction reads it too.
static void test_volume_fraction_is_reached(void) {
    kyu_world *w = space(0);
    kyu_inserter_def d = kyu_inserter_def_default();
    d.region.half_extents = v3(0.5f, 0.5f, 0.5f);
    d.size.kind = KYU_SIZE_UNIFORM, d.size.min = 0.02f, d.size.max = 0.04f;
    d.volume_fraction = 0.2f, d.attempts = 1000, d.seed = 11;
    kyu_inserter *in;
    ENSURE(kyu_inserter_create(w, &d, &in) == KYU_OK);
    ENSURE(kyu_inserter_run(in, w, 0, NULL) == KYU_OK);
    kyu_inserter_stats st = kyu_inserter_get_stats(in);
    double body = 4.0 / 3.0 * PI_D * 0.04 * 0.04 * 0.04;
    ENSURE(st.volume_fraction >= 0.2 && st.volume_fraction < 0.2 + body);
    kyu_region_measure m;
    ENSURE(kyu_world_measure_box(w, v3(-0.5f, -0.5f, -0.5f), v3(0.5f, 0.5f, 0.5f), &m) == KYU_OK);
    ENSURE_NEAR(m.packing_fraction, st.volume_fraction, 1e-6);
    ENSURE(m.bodies == st.inserted && st.blocked == 0);
    // Asked again, nothing more is due.
    int made = -1;
    ENSURE(kyu_inserter_run(in, w, 1, &made) == KYU_OK && made == 0);
    kyu_inserter_destroy(in);
    kyu_world_destroy(w);
}

// A cone of 30 degrees about (0, -2, 0): every speed is 2, every angle within 30 degrees, and
// cos(angle), uniform over the cone's solid angle, averages (1 + cos 30) / 2.
static void test_velocities_fill_their_cone(void) {
    kyu_world *w = space(0);
    kyu_inserter_def d = kyu_inserter_def_default();
    d.region.shape = KYU_REGION_RECTANGLE, d.region.half_extents = v3(20, 0, 20);
    d.body.radius = 0.05f, d.velocity = v3(0, -2, 0), d.cone_degrees = 30, d.count = 3000;
    kyu_inserter *in;
    ENSURE(kyu_inserter_create(w, &d, &in) == KYU_OK);
    ENSURE(kyu_inserter_run(in, w, 0, NULL) == KYU_OK);
    int n = kyu_world_body_count(w);
    ENSURE(n == 3000);
    float *v = malloc((size_t)n * 3 * sizeof *v), *p = malloc((size_t)n * 3 * sizeof *p);
    kyu_world_get_velocities(w, v, n);
    kyu_world_get_positions(w, p, n);
    double sum = 0, lowest = cos(30 * PI_D / 180);
    for (int i = 0; i < n; i++) {
        double speed = sqrt(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
        double c = -v[3 * i + 1] / speed;
        ENSURE_NEAR(speed, 2, 1e-5);
        ENSURE(c >= lowest - 1e-6);
        ENSURE(p[3 * i + 1] == 0.0f); // on the face
        sum += c;
    }
    free(v), free(p);
    double expect = (1 + lowest) / 2, sd = (1 - lowest) / sqrt(12.0 * n);
    ENSURE_NEAR(sum / n, expect, 5 * sd);
    kyu_inserter_destroy(in);
    kyu_world_destroy(w);
}

// Bodies inserted into a cylinder lie wholly in it; around a box collider inside it, none touches
// the box.
static void test_cylinder_holds_its_bodies_and_spares_a_wall(void) {
    kyu_world *w = space(0);
    kyu_collider_def cd = kyu_collider_def_default();
    cd.type = KYU_SHAPE_BOX, cd.position = v3(0, 1, 0), cd.half_extents = v3(0.2f, 0.2f, 0.2f);
    kyu_collider_id box;
    kyu_collider_create(w, &cd, &box);
    kyu_inserter_def d = kyu_inserter_def_default();
    d.region.shape = KYU_REGION_CYLINDER, d.region.center = v3(0, 1, 0), d.region.radius = 0.5f;
    d.region.half_height = 0.3f, d.body.radius = 0.03f, d.count = 300, d.seed = 4;
    kyu_inserter *in;
    ENSURE(kyu_inserter_create(w, &d, &in) == KYU_OK);
    ENSURE(kyu_inserter_run(in, w, 0, NULL) == KYU_OK);
    kyu_body_id ids[300];
    int n = kyu_world_get_bodies(w, ids, 300);
    ENSURE(n == 300);
    for (int i = 0; i < n; i++) {
        vec3s p = pos(w, ids[i]);
        ENSURE(sqrtf(p.x * p.x + p.z * p.z) <= 0.5f - 0.03f + 1e-6f);
        ENSURE(fabsf(p.y - 1) <= 0.3f - 0.03f + 1e-6f);
        kyu_distance_result dr;
        ENSURE(kyu_body_collider_distance(w, ids[i], box, &dr) == KYU_OK);
        ENSURE(dr.distance >= 0);
    }
    kyu_inserter_destroy(in);
    kyu_world_destroy(w);
}

// Every bad setting is refused, naming its field and value; a call that would pass max_bodies fails
// whole, the world and the inserter as they were.
static void test_bad_settings_are_refused_by_name(void) {
    kyu_world *w = space(50);
    kyu_inserter *in = NULL;
    kyu_inserter_def d = kyu_inserter_def_default();
    ENSURE(kyu_inserter_create(w, &d, &in) == KYU_ERR_INVALID_ARGUMENT && in == NULL);
    ENSURE(strstr(kyu_world_last_error(w), "no end") != NULL);
    d.count = 10;
#define REFUSED(edit, code, text)                                                                            \
    do {                                                                                                     \
        kyu_inserter_def e = d;                                                                              \
        edit;                                                                                                \
        ENSURE(kyu_inserter_create(w, &e, &in) == (code));                                                   \
        ENSURE(in == NULL);                                                                                  \
        if (!strstr(kyu_world_last_error(w), text)) printf("    message: %s\n", kyu_world_last_error(w));    \
        ENSURE(strstr(kyu_world_last_error(w), text) != NULL);                                               \
    } while (0)
    REFUSED(e.internal_cookie = 0, KYU_ERR_INVALID_DEF, "kyu_inserter_def_default");
    REFUSED(e.count = -1, KYU_ERR_INVALID_ARGUMENT, "count = -1");
    REFUSED(e.volume_fraction = 1.5f, KYU_ERR_INVALID_ARGUMENT, "volume_fraction = 1.5");
    REFUSED(e.rate = NAN, KYU_ERR_INVALID_ARGUMENT, "rate = nan");
    REFUSED((e.rate = 1, e.mass_rate = 1), KYU_ERR_INVALID_ARGUMENT, "give one of them");
    REFUSED(e.attempts = 0, KYU_ERR_INVALID_ARGUMENT, "attempts = 0");
    REFUSED(e.density = -1, KYU_ERR_INVALID_ARGUMENT, "density = -1");
    REFUSED(e.cone_degrees = 190, KYU_ERR_INVALID_ARGUMENT, "cone_degrees = 190");
    REFUSED(e.velocity.x = INFINITY, KYU_ERR_NOT_FINITE, "velocity (inf");
    REFUSED(e.region.shape = (kyu_region_shape)9, KYU_ERR_INVALID_ARGUMENT, "region.shape = 9");
    REFUSED(e.region.half_extents.y = 0, KYU_ERR_INVALID_ARGUMENT, "region.half_extents.y = 0");
    REFUSED(e.region.rotation = glms_quat_init(0, 0, 0, 0), KYU_ERR_INVALID_ARGUMENT, "region.rotation");
    REFUSED((e.region.shape = KYU_REGION_CYLINDER, e.region.radius = -1), KYU_ERR_INVALID_ARGUMENT,
            "region radius = -1");
    REFUSED((e.region.shape = KYU_REGION_RECTANGLE, e.volume_fraction = 0.2f), KYU_ERR_INVALID_ARGUMENT,
            "of a rectangle");
    REFUSED(e.size.kind = (kyu_size_kind)7, KYU_ERR_INVALID_ARGUMENT, "size.kind = 7");
    REFUSED((e.size.kind = KYU_SIZE_UNIFORM, e.size.min = 0.2f, e.size.max = 0.1f), KYU_ERR_RADIUS,
            "size.min = 0.2");
    REFUSED((e.size.kind = KYU_SIZE_NORMAL, e.size.min = 0.1f, e.size.max = 0.2f, e.size.sigma = 0),
            KYU_ERR_INVALID_ARGUMENT, "size.sigma = 0");
    REFUSED((e.size.kind = KYU_SIZE_NORMAL, e.size.min = 0.1f, e.size.max = 0.2f, e.size.mean = 1,
             e.size.sigma = 0.01f),
            KYU_ERR_INVALID_ARGUMENT, "at least 1%");
    REFUSED((e.size.kind = KYU_SIZE_LOGNORMAL, e.size.min = 0.1f, e.size.max = 0.2f, e.size.mean = -1,
             e.size.sigma = 0.1f),
            KYU_ERR_INVALID_ARGUMENT, "size.mean = -1");
    REFUSED((e.size.kind = KYU_SIZE_DISCRETE, e.size.count = 0), KYU_ERR_INVALID_ARGUMENT, "size.count = 0");
    const float radii[2] = {0.1f, -0.2f}, weights[2] = {1, 0};
    REFUSED((e.size.kind = KYU_SIZE_DISCRETE, e.size.count = 2), KYU_ERR_NULL, "size.radii");
    REFUSED(
        (e.size.kind = KYU_SIZE_DISCRETE, e.size.count = 2, e.size.radii = radii, e.size.weights = weights),
        KYU_ERR_RADIUS, "size.radii[1] = -0.2");
    REFUSED(e.body.radius = 0.6f, KYU_ERR_INVALID_ARGUMENT, "cannot hold the largest radius");
    REFUSED(e.body.restitution = 2, KYU_ERR_RESTITUTION, "body at radius 0.5");
    REFUSED((e.density = 1e-9f, e.body.radius = 1e-5f), KYU_ERR_MASS, "body at radius 1e-05");
    REFUSED(e.region.center.x = 524287.75f, KYU_ERR_INVALID_ARGUMENT, "region reaches too far");
#undef REFUSED
    // All or nothing: 60 bodies into a world of at most 50.
    d.count = 60, d.region.half_extents = v3(10, 10, 10), d.body.radius = 0.1f;
    ENSURE(kyu_inserter_create(w, &d, &in) == KYU_OK);
    uint64_t before = kyu_world_state_hash(w);
    int made = -1;
    ENSURE(kyu_inserter_run(in, w, 0, &made) == KYU_ERR_CAPACITY && made == 0);
    ENSURE(strstr(kyu_world_last_error(w), "max_bodies = 50") != NULL);
    ENSURE(kyu_world_body_count(w) == 0 && kyu_world_state_hash(w) == before);
    ENSURE(kyu_inserter_get_stats(in).inserted == 0 && kyu_inserter_get_stats(in).tries == 0);
    ENSURE(kyu_inserter_run(in, w, -1, NULL) == KYU_ERR_INVALID_ARGUMENT);
    ENSURE(kyu_inserter_run(in, NULL, 0, NULL) == KYU_ERR_NULL);
    kyu_world *other = space(0);
    ENSURE(kyu_inserter_run(in, other, 0, NULL) == KYU_ERR_FOREIGN_HANDLE);
    kyu_world_destroy(other);
    kyu_inserter_destroy(in);
    kyu_inserter_destroy(NULL);
    kyu_world_destroy(w);
}

// A run resumed from a snapshot with the inserter's stats restored inserts what one that never
// stopped inserts: same state hash.
static void test_restored_inserter_continues_the_same(void) {
    kyu_world_def wd = kyu_world_def_default();
    kyu_inserter_def d = kyu_inserter_def_default();
    d.region.center = v3(0, 2, 0), d.region.half_extents = v3(0.4f, 0.2f, 0.4f);
    d.size.kind = KYU_SIZE_UNIFORM, d.size.min = 0.03f, d.size.max = 0.06f, d.density = 1000;
    d.rate = 40, d.count = 60, d.velocity = v3(0, -1, 0), d.cone_degrees = 10;
    kyu_world *a, *b;
    kyu_world_create(&wd, &a);
    kyu_world_create(&wd, &b);
    kyu_collider_def floor = kyu_collider_def_default();
    kyu_collider_create(a, &floor, NULL);
    kyu_inserter *ia, *ib;
    ENSURE(kyu_inserter_create(a, &d, &ia) == KYU_OK);
    ENSURE(kyu_inserter_create(b, &d, &ib) == KYU_OK);
    void *snap = NULL;
    kyu_inserter_stats saved = {0};
    for (int step = 0; step < 120; step++) {
        if (step == 50) {
            size_t size;
            kyu_world_save_memory(a, NULL, 0, &size);
            snap = malloc(size);
            kyu_world_save_memory(a, snap, size, &size);
            ENSURE(kyu_world_load_memory(b, snap, size) == KYU_OK);
            saved = kyu_inserter_get_stats(ia);
            ENSURE(kyu_inserter_restore(ib, &saved) == KYU_OK);
        }
        double t = step * (double)wd.fixed_dt;
        kyu_inserter_run(ia, a, t, NULL);
        kyu_world_step(a);
        if (step >= 50) {
            kyu_inserter_run(ib, b, t, NULL);
            kyu_world_step(b);
        }
    }
    ENSURE(kyu_world_body_count(a) == 60);
    ENSURE(kyu_world_state_hash(a) == kyu_world_state_hash(b));
    saved.mass = -1;
    ENSURE(kyu_inserter_restore(ib, &saved) == KYU_ERR_INVALID_ARGUMENT);
    free(snap);
    kyu_inserter_destroy(ia), kyu_inserter_destroy(ib);
    kyu_world_destroy(a), kyu_world_destroy(b);
}

void suite_insert(void) {
    RUN_TEST(test_radii_have_the_moments_asked_for);
    RUN_TEST(test_mixture_by_mass_splits_the_mass);
    RUN_TEST(test_inserted_bodies_never_overlap);
    RUN_TEST(test_same_seed_same_bodies);
    RUN_TEST(test_rate_inserts_on_time);
    RUN_TEST(test_volume_fraction_is_reached);
    RUN_TEST(test_velocities_fill_their_cone);
    RUN_TEST(test_cylinder_holds_its_bodies_and_spares_a_wall);
    RUN_TEST(test_bad_settings_are_refused_by_name);
    RUN_TEST(test_restored_inserter_continues_the_same);
}
