// SPDX-License-Identifier: MIT
// Insertion (include/kyu/insert.h): an inserter places bodies in a region where they overlap
// nothing, with radii from a distribution, at a rate, to a count or to a volume fraction. It is not
// part of the world: it reads the world through the query grid (query.c) and the colliders'
// distances (shape.c), and adds bodies through kyu_body_create, all of a call's bodies or none.
//
// Every random number comes from splitmix64 over counters: body n's radius and velocity from the
// stream (seed, n), its k-th place from (seed, n, k). So body n is the same whatever the calls
// were, and a resumed run (kyu_inserter_restore) goes on with the same bodies. The arithmetic of a
// draw is + - * / and sqrt, which IEEE 754 rounds the same everywhere; the logarithm, exponential
// and cosine the distributions need are written out below in those operations (libm's last bits
// differ between C libraries), so a seed gives the same bodies on every machine.
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define PI_D        3.14159265358979323846
#define MAX_CLASSES 64
#define CLEARANCE   1e-6 // a placed body's gap to its neighbours, at least this fraction of the radii

struct kyu_inserter {
    kyu_inserter_def def; // as given, with the mixture's arrays pointing at the copies below
    uint32_t world;       // the id of the world it was checked against
    float radii[MAX_CLASSES];
    double pick[MAX_CLASSES]; // the mixture's cumulative number fractions
    versors rotation;         // the region's, normalised
    double region_volume;     // m^3 (0 for a rectangle)
    float rmin, rmax;         // the radii it can draw
    kyu_inserter_stats stats;
};

// ---- arithmetic written out (+ - * / sqrt only; frexp and ldexp are exact) --------------------------

static double det_exp(double x) {
    if (x < -700.0) return 0.0;
    if (x > 700.0) x = 700.0;
    double k = floor(x / 0.6931471805599453 + 0.5);
    double f = (x - k * 0.6931471803691238) - k * 1.9082149292705877e-10; // ln 2 in two parts
    double term = 1.0, sum = 1.0;
    for (int i = 1; i < 22; i++) term *= f / i, sum += term; // |f| <= 0.35: the tail is below 1e-30
    return ldexp(sum, (int)k);
}

static double det_log(double x) { // x > 0
    int e;
    double m = frexp(x, &e); // m in [0.5, 1)
    if (m < 0.7071067811865476) m *= 2.0, e--;
    double s = (m - 1.0) / (m + 1.0), s2 = s * s, term = s, sum = 0.0; // |s| <= 0.172
    for (int i = 1; i < 60; i += 2) sum += term / i, term *= s2;
    return 2.0 * sum + e * 0.6931471805599453;
}

static double det_cos(double x) { // x in [0, pi]
    double x2 = x * x, term = 1.0, sum = 1.0;
    for (int i = 1; i < 30; i++) term *= -x2 / ((2 * i - 1) * (2 * i)), sum += term;
    return sum;
}

// ---- the generator ------------------------------------------------------------------------------------

static uint64_t splitmix(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t mix(uint64_t a, uint64_t b) {
    uint64_t s = a ^ (b * 0xD1B54A32D192ED03ull);
    return splitmix(&s);
}

static double uniform(uint64_t *s) { return (double)(splitmix(s) >> 11) * 0x1.0p-53; } // [0, 1)

static double gaussian(uint64_t *s) { // Marsaglia's polar method: one of its pair
    for (;;) {
        double u = 2.0 * uniform(s) - 1.0, v = 2.0 * uniform(s) - 1.0, q = u * u + v * v;
        if (q > 0.0 && q < 1.0) return u * sqrt(-2.0 * det_log(q) / q);
    }
}

// ---- draws --------------------------------------------------------------------------------------------

// Body n's radius: a truncated distribution is drawn again until it falls in [min, max] (at least
// 1% of it does, so 10^4 draws miss with odds below e^-100).
static float draw_radius(const kyu_inserter *in, uint64_t *s) {
    const kyu_size_distribution *d = &in->def.size;
    switch (d->kind) {
    case KYU_SIZE_UNIFORM:
        return (float)((double)d->min + uniform(s) * ((double)d->max - (double)d->min));
    case KYU_SIZE_NORMAL:
    case KYU_SIZE_LOGNORMAL:
        for (int k = 0; k < 10000; k++) {
            double z = gaussian(s), r = d->kind == KYU_SIZE_NORMAL
                                            ? (double)d->mean + (double)d->sigma * z
                                            : (double)d->mean * det_exp((double)d->sigma * z);
            if (r >= (double)d->min && r <= (double)d->max) return (float)r;
        }
        return d->kind == KYU_SIZE_NORMAL ? 0.5f * (d->min + d->max) : d->mean;
    case KYU_SIZE_DISCRETE: {
        double u = uniform(s);
        int k = 0;
        while (k + 1 < d->count && u >= in->pick[k]) k++;
        return in->radii[k];
    }
    default:
        return in->def.body.radius;
    }
}

// A unit vector perpendicular to unit d, and a second one perpendicular to both.
static void perpendiculars(vec3s d, vec3s *e1, vec3s *e2) {
    vec3s axis = fabsf(d.x) < 0.57f   ? (vec3s){{1, 0, 0}}
                 : fabsf(d.y) < 0.57f ? (vec3s){{0, 1, 0}}
                                      : (vec3s){{0, 0, 1}};
    *e1 = glms_vec3_normalize(glms_vec3_cross(d, axis));
    *e2 = glms_vec3_cross(d, *e1);
}

// Body n's velocity: the def's, turned within the cone (cos theta uniform in [cos a, 1], the turn's
// direction uniform around the axis), its speed kept.
static vec3s draw_velocity(const kyu_inserter *in, uint64_t *s) {
    vec3s v = in->def.velocity;
    float speed = glms_vec3_norm(v);
    if (!(in->def.cone_degrees > 0.0f) || !(speed > 0.0f)) return v;
    double lowest = det_cos((double)in->def.cone_degrees * PI_D / 180.0);
    double c = lowest + uniform(s) * (1.0 - lowest), sn = sqrt(fmax(0.0, 1.0 - c * c)), x, y, q;
    do x = 2.0 * uniform(s) - 1.0, y = 2.0 * uniform(s) - 1.0, q = x * x + y * y;
    while (!(q > 0.0 && q <= 1.0));
    q = sqrt(q), x /= q, y /= q;
    vec3s d = glms_vec3_scale(v, 1.0f / speed), e1, e2;
    perpendiculars(d, &e1, &e2);
    vec3s dir;
    for (int k = 0; k < 3; k++)
        dir.raw[k] = (float)(c * (double)d.raw[k] + sn * (x * (double)e1.raw[k] + y * (double)e2.raw[k]));
    return glms_vec3_scale(dir, speed);
}

// A place for a body of radius r, uniform over where it lies wholly in the region (a rectangle:
// its centre on the face, the body within the face's edges).
static vec3s draw_place(const kyu_inserter *in, float r, uint64_t *s) {
    const kyu_region *g = &in->def.region;
    vec3s p = glms_vec3_zero();
    double rr = (double)r;
    if (g->shape == KYU_REGION_CYLINDER) {
        double room = (double)g->radius - rr, x, z;
        do x = 2.0 * uniform(s) - 1.0, z = 2.0 * uniform(s) - 1.0;
        while (x * x + z * z > 1.0);
        p.x = (float)(x * room), p.z = (float)(z * room);
        p.y = (float)((2.0 * uniform(s) - 1.0) * ((double)g->half_height - rr));
    } else {
        for (int k = 0; k < 3; k++) {
            double u = 2.0 * uniform(s) - 1.0;
            p.raw[k] = g->shape == KYU_REGION_RECTANGLE && k == 1
                           ? 0.0f
                           : (float)(u * ((double)g->half_extents.raw[k] - rr));
        }
    }
    return glms_vec3_add(g->center, glms_quat_rotatev(in->rotation, p));
}

static int in_region(const kyu_inserter *in, vec3s p) {
    const kyu_region *g = &in->def.region;
    vec3s q = glms_quat_rotatev(glms_quat_inv(in->rotation), glms_vec3_sub(p, g->center));
    if (g->shape == KYU_REGION_CYLINDER)
        return q.x * q.x + q.z * q.z <= g->radius * g->radius && fabsf(q.y) <= g->half_height;
    if (g->shape == KYU_REGION_BOX)
        return fabsf(q.x) <= g->half_extents.x && fabsf(q.y) <= g->half_extents.y &&
               fabsf(q.z) <= g->half_extents.z;
    return 0;
}

static double ball(double r) { return 4.0 / 3.0 * PI_D * r * r * r; }

static float mass_of(const kyu_inserter *in, float r) {
    return in->def.density > 0.0f ? (float)((double)in->def.density * ball((double)r)) : in->def.body.mass;
}

// ---- the def ------------------------------------------------------------------------------------------

kyu_inserter_def kyu_inserter_def_default(void) {
    kyu_inserter_def d;
    memset(&d, 0, sizeof d);
    d.body = kyu_body_def_default();
    d.region.shape = KYU_REGION_BOX;
    d.region.rotation = glms_quat_identity();
    d.region.half_extents = (vec3s){{0.5f, 0.5f, 0.5f}};
    d.size.kind = KYU_SIZE_FIXED;
    d.attempts = 100;
    d.seed = 1;
    d.internal_cookie = KYU_DEF_COOKIE;
    return d;
}

#define BAD(code, ...) return kyu_fail(w, (code), __VA_ARGS__)

static int positive(float x, float hi) { return x > 0.0f && x <= hi; }

static kyu_status check_region(kyu_world *w, const kyu_region *g) {
    if (g->shape < KYU_REGION_BOX || g->shape > KYU_REGION_RECTANGLE)
        BAD(KYU_ERR_INVALID_ARGUMENT, "region.shape = %d (allowed: KYU_REGION_BOX, _CYLINDER, _RECTANGLE)",
            (int)g->shape);
    if (!kyu_bounded3(g->center, KYU_MAX_COORD))
        BAD(KYU_ERR_NOT_FINITE, "region.center (%g, %g, %g) must be finite, each |x| <= 1e9",
            (double)g->center.x, (double)g->center.y, (double)g->center.z);
    versors q = g->rotation;
    double n2 = (double)q.x * (double)q.x + (double)q.y * (double)q.y + (double)q.z * (double)q.z +
                (double)q.w * (double)q.w;
    if (!(n2 > 1e-12 && n2 < 1e30))
        BAD(KYU_ERR_INVALID_ARGUMENT, "region.rotation (%g, %g, %g, %g) must be finite and not zero",
            (double)q.x, (double)q.y, (double)q.z, (double)q.w);
    if (g->shape == KYU_REGION_CYLINDER) {
        if (!positive(g->radius, KYU_MAX_COORD) || !positive(g->half_height, KYU_MAX_COORD))
            BAD(KYU_ERR_INVALID_ARGUMENT, "region radius = %g, half_height = %g (each must be in (0, 1e9])",
                (double)g->radius, (double)g->half_height);
        return KYU_OK;
    }
    for (int k = 0; k < 3; k++)
        if (!(g->shape == KYU_REGION_RECTANGLE && k == 1) && !positive(g->half_extents.raw[k], KYU_MAX_COORD))
            BAD(KYU_ERR_INVALID_ARGUMENT, "region.half_extents.%c = %g (must be in (0, 1e9])", "xyz"[k],
                (double)g -> half_extents.raw[k]);
    return KYU_OK;
}

// The share of a normal of mean 0 and deviation 1 in [a, b] (libm's erfc: only to check a cut).
static double normal_share(double a, double b) { return 0.5 * (erfc(-b / sqrt(2.0)) - erfc(-a / sqrt(2.0))); }

static kyu_status check_size(kyu_world *w, kyu_inserter *in) {
    const kyu_size_distribution *d = &in->def.size;
    if (d->kind < KYU_SIZE_FIXED || d->kind > KYU_SIZE_DISCRETE)
        BAD(KYU_ERR_INVALID_ARGUMENT, "size.kind = %d (allowed: KYU_SIZE_FIXED to KYU_SIZE_DISCRETE)",
            (int)d->kind);
    if (d->kind == KYU_SIZE_FIXED) {
        in->rmin = in->rmax = in->def.body.radius;
        if (!positive(in->rmin, KYU_MAX_RADIUS))
            BAD(KYU_ERR_RADIUS, "body.radius = %g (allowed: (0, 1e6])", (double)in->rmin);
        return KYU_OK;
    }
    if (d->kind == KYU_SIZE_DISCRETE) {
        if (d->count < 1 || d->count > MAX_CLASSES)
            BAD(KYU_ERR_INVALID_ARGUMENT, "size.count = %d (allowed: 1 to %d sizes)", d->count, MAX_CLASSES);
        if (!d->radii || !d->weights)
            BAD(KYU_ERR_NULL, "size.radii or size.weights is NULL (size.count %d)", d->count);
        if (d->basis != KYU_MIX_BY_NUMBER && d->basis != KYU_MIX_BY_MASS)
            BAD(KYU_ERR_INVALID_ARGUMENT, "size.basis = %d (allowed: KYU_MIX_BY_NUMBER, KYU_MIX_BY_MASS)",
                (int)d->basis);
        double total = 0.0, share[MAX_CLASSES];
        in->rmin = INFINITY, in->rmax = 0.0f;
        for (int k = 0; k < d->count; k++) {
            if (!positive(d->radii[k], KYU_MAX_RADIUS))
                BAD(KYU_ERR_RADIUS, "size.radii[%d] = %g (allowed: (0, 1e6])", k, (double)d->radii[k]);
            if (!(d->weights[k] > 0.0f && d->weights[k] <= 1e30f))
                BAD(KYU_ERR_INVALID_ARGUMENT, "size.weights[%d] = %g (must be > 0 and finite)", k,
                    (double)d->weights[k]);
            in->radii[k] = d->radii[k];
            in->rmin = kyu_minf(in->rmin, d->radii[k]), in->rmax = kyu_maxf(in->rmax, d->radii[k]);
            // by mass: a class's share of the bodies is its share of the mass over its body's mass
            share[k] = (double)d->weights[k];
            if (d->basis == KYU_MIX_BY_MASS)
                share[k] /= in->def.density > 0.0f ? ball((double)d->radii[k]) : 1.0;
            total += share[k];
        }
        for (int k = 0; k < d->count; k++) {
            in->pick[k] = (k ? in->pick[k - 1] : 0.0) + share[k] / total;
        }
        in->pick[d->count - 1] = 1.0;
        return KYU_OK;
    }
    if (!positive(d->min, KYU_MAX_RADIUS) || !positive(d->max, KYU_MAX_RADIUS) || !(d->min <= d->max))
        BAD(KYU_ERR_RADIUS, "size.min = %g, size.max = %g (allowed: 0 < min <= max <= 1e6)", (double)d->min,
            (double)d->max);
    in->rmin = d->min, in->rmax = d->max;
    if (d->kind == KYU_SIZE_UNIFORM) return KYU_OK;
    if (!(d->sigma > 0.0f && d->sigma <= 1e6f))
        BAD(KYU_ERR_INVALID_ARGUMENT, "size.sigma = %g (must be > 0)", (double)d->sigma);
    if (d->kind == KYU_SIZE_NORMAL ? !(fabsf(d->mean) <= KYU_MAX_RADIUS) : !positive(d->mean, KYU_MAX_RADIUS))
        BAD(KYU_ERR_INVALID_ARGUMENT, "size.mean = %g (%s)", (double)d->mean,
            d->kind == KYU_SIZE_NORMAL ? "must be finite" : "the median radius: must be in (0, 1e6]");
    double a = d->kind == KYU_SIZE_NORMAL ? ((double)d->min - (double)d->mean) / (double)d->sigma
                                          : (log((double)d->min) - log((double)d->mean)) / (double)d->sigma;
    double b = d->kind == KYU_SIZE_NORMAL ? ((double)d->max - (double)d->mean) / (double)d->sigma
                                          : (log((double)d->max) - log((double)d->mean)) / (double)d->sigma;
    if (!(normal_share(a, b) >= 0.01))
        BAD(KYU_ERR_INVALID_ARGUMENT,
            "size.min = %g and size.max = %g hold %.3g of the distribution (mean %g, sigma %g): at least 1%% "
            "must lie between them",
            (double)d->min, (double)d->max, normal_share(a, b), (double)d->mean, (double)d->sigma);
    return KYU_OK;
}

static kyu_status check_amounts(kyu_world *w, const kyu_inserter_def *d) {
    if (d->count < 0) BAD(KYU_ERR_INVALID_ARGUMENT, "count = %lld (must be >= 0)", (long long)d->count);
    if (!(d->volume_fraction >= 0.0f && d->volume_fraction < 1.0f))
        BAD(KYU_ERR_INVALID_ARGUMENT, "volume_fraction = %g (allowed: [0, 1))", (double)d->volume_fraction);
    if (d->volume_fraction > 0.0f && d->region.shape == KYU_REGION_RECTANGLE)
        BAD(KYU_ERR_INVALID_ARGUMENT, "volume_fraction = %g of a rectangle, which has no volume",
            (double)d->volume_fraction);
    if (!(d->rate >= 0.0f && d->rate <= 1e9f))
        BAD(KYU_ERR_INVALID_ARGUMENT, "rate = %g bodies/s (allowed: [0, 1e9])", (double)d->rate);
    if (!(d->mass_rate >= 0.0f && d->mass_rate <= 1e30f))
        BAD(KYU_ERR_INVALID_ARGUMENT, "mass_rate = %g kg/s (must be >= 0 and finite)", (double)d->mass_rate);
    if (d->rate > 0.0f && d->mass_rate > 0.0f)
        BAD(KYU_ERR_INVALID_ARGUMENT, "rate = %g and mass_rate = %g: give one of them", (double)d->rate,
            (double)d->mass_rate);
    if (d->count == 0 && !(d->volume_fraction > 0.0f) && !(d->rate > 0.0f) && !(d->mass_rate > 0.0f))
        BAD(KYU_ERR_INVALID_ARGUMENT, "no end: set count, volume_fraction, rate or mass_rate");
    if (d->attempts < 1 || d->attempts > 1000000)
        BAD(KYU_ERR_INVALID_ARGUMENT, "attempts = %d (allowed: 1 to 1000000)", d->attempts);
    if (!(d->density >= 0.0f && d->density <= 1e9f))
        BAD(KYU_ERR_INVALID_ARGUMENT, "density = %g kg/m^3 (allowed: [0, 1e9]; 0 uses body.mass)",
            (double)d->density);
    if (!kyu_bounded3(d->velocity, KYU_MAX_COORD))
        BAD(KYU_ERR_NOT_FINITE, "velocity (%g, %g, %g) must be finite, each |v| <= 1e9",
            (double)d->velocity.x, (double)d->velocity.y, (double)d->velocity.z);
    if (!(d->cone_degrees >= 0.0f && d->cone_degrees <= 180.0f))
        BAD(KYU_ERR_INVALID_ARGUMENT, "cone_degrees = %g (allowed: [0, 180])", (double)d->cone_degrees);
    return KYU_OK;
}

// The template at the smallest and the largest radius (mass, inertia), every place of the region
// within the reach of the smallest body, the speed within its limit, and room for the largest.
static kyu_status check_bodies(kyu_world *w, const kyu_inserter *in) {
    const kyu_region *g = &in->def.region;
    float room = g->shape == KYU_REGION_CYLINDER ? kyu_minf(g->radius, g->half_height)
                 : g->shape == KYU_REGION_BOX
                     ? kyu_minf(g->half_extents.x, kyu_minf(g->half_extents.y, g->half_extents.z))
                     : kyu_minf(g->half_extents.x, g->half_extents.z);
    if (in->rmax > room)
        BAD(KYU_ERR_INVALID_ARGUMENT,
            "region: its narrowest half size %g m cannot hold the largest radius %g m (of the size)",
            (double)room, (double)in->rmax);
    char why[KYU_ERROR_SIZE];
    for (int k = 0; k < 2; k++) {
        kyu_body_def b = in->def.body;
        b.radius = k ? in->rmax : in->rmin;
        b.mass = mass_of(in, b.radius);
        b.velocity = in->def.velocity;
        b.position = g->center;
        // The body's own checks, at this radius, without making it: a world of the same def says.
        kyu_status st = kyu_body_def_validate(w, &b);
        float ii = kyu_body_inv_inertia(b.mass, b.radius, b.inertia_scale, b.fixed_rotation);
        if (st == KYU_OK && !b.fixed_rotation && !(ii > 0.0f && kyu_inv_inertia_ok(ii, b.radius)))
            st = kyu_fail(w, KYU_ERR_INVALID_ARGUMENT,
                          "mass %g: its moment of inertia is out of float's range", (double)b.mass);
        if (st != KYU_OK) {
            snprintf(why, sizeof why, "%s", kyu_world_last_error(w));
            BAD(st, "body at radius %g (the %s the size gives): %s", (double)b.radius,
                k ? "largest" : "smallest", why);
        }
    }
    float reach = g->shape == KYU_REGION_CYLINDER
                      ? kyu_maxf(g->radius, g->half_height)
                      : kyu_maxf(g->half_extents.x, kyu_maxf(g->half_extents.y, g->half_extents.z));
    vec3s far = g->center;
    for (int k = 0; k < 3; k++)
        far.raw[k] += (far.raw[k] < 0.0f ? -1.7321f : 1.7321f) * reach; // a corner, or beyond
    kyu_status st = kyu_body_check_position(w, far, in->rmin);
    if (st != KYU_OK) {
        snprintf(why, sizeof why, "%s", kyu_world_last_error(w));
        BAD(st, "region reaches too far for the smallest body: %s", why);
    }
    return KYU_OK;
}

kyu_status kyu_inserter_create(kyu_world *w, const kyu_inserter_def *def, kyu_inserter **out) {
    if (out) *out = NULL;
    if (!w) return KYU_ERR_NULL;
    if (!def || !out) BAD(KYU_ERR_NULL, "kyu_inserter_create: def or out is NULL");
    if (def->internal_cookie != KYU_DEF_COOKIE)
        BAD(KYU_ERR_INVALID_DEF, "start from kyu_inserter_def_default()");
    if (w->locked) BAD(KYU_ERR_LOCKED, "kyu_inserter_create during a step");
    kyu_inserter probe;
    memset(&probe, 0, sizeof probe);
    probe.def = *def;
    kyu_status st = check_amounts(w, def);
    if (st == KYU_OK) st = check_region(w, &def->region);
    if (st == KYU_OK) st = check_size(w, &probe);
    if (st == KYU_OK) st = check_bodies(w, &probe);
    if (st != KYU_OK) return st;
    kyu_inserter *in = kyu_malloc(sizeof *in);
    if (!in) BAD(KYU_ERR_OUT_OF_MEMORY, "kyu_inserter_create");
    *in = probe;
    in->def.size.radii = in->radii;
    in->def.size.weights = NULL; // read once, into pick
    in->world = w->id;
    in->rotation = glms_quat_normalize(def->region.rotation);
    const kyu_region *g = &def->region;
    in->region_volume = g->shape == KYU_REGION_BOX ? 8.0 * (double)g->half_extents.x *
                                                         (double)g->half_extents.y * (double)g->half_extents.z
                        : g->shape == KYU_REGION_CYLINDER
                            ? 2.0 * PI_D * (double)g->radius * (double)g->radius * (double)g->half_height
                            : 0.0;
    kyu_world_count_add(1); // the allocation hooks stay as they are while it lives (kyu_set_allocator)
    *out = in;
    return KYU_OK;
}

void kyu_inserter_destroy(kyu_inserter *in) {
    if (!in) return;
    kyu_free(in);
    kyu_world_count_add(-1);
}

kyu_inserter_stats kyu_inserter_get_stats(const kyu_inserter *in) {
    kyu_inserter_stats s;
    memset(&s, 0, sizeof s);
    return in ? in->stats : s;
}

kyu_status kyu_inserter_restore(kyu_inserter *in, const kyu_inserter_stats *saved) {
    if (!in || !saved) return KYU_ERR_NULL;
    if (saved->inserted < 0 || saved->tries < 0 || saved->blocked < 0 || !(saved->mass >= 0.0) ||
        !isfinite(saved->mass) || !(saved->time >= 0.0) || !isfinite(saved->time))
        return KYU_ERR_INVALID_ARGUMENT;
    in->stats = *saved;
    return KYU_OK;
}

kyu_status kyu_inserter_sample_radii(const kyu_inserter *in, int64_t first, int count, float *out) {
    if (!in || (count > 0 && !out)) return KYU_ERR_NULL;
    if (first < 0 || count < 0) return KYU_ERR_INVALID_ARGUMENT;
    for (int k = 0; k < count; k++) {
        uint64_t s = mix(in->def.seed, 2 * (uint64_t)(first + k) + 1);
        out[k] = draw_radius(in, &s);
    }
    return KYU_OK;
}

// ---- placing ------------------------------------------------------------------------------------------

typedef struct planned {
    vec3s p, v;
    float r, m;
} planned;

// The bodies a call has placed but not yet made, in a hash grid so a new place is checked against
// them as against the world's bodies.
typedef struct plan {
    planned *list;
    int count, cap;
    int32_t *head, *next;
    int buckets, next_cap;
    float cell;
} plan;

static uint32_t bucket_of(const plan *pl, int64_t x, int64_t y, int64_t z) {
    uint64_t h = mix((uint64_t)x * 73856093u ^ (uint64_t)y * 19349663u ^ (uint64_t)z * 83492791u, 0);
    return (uint32_t)(h & (uint64_t)(pl->buckets - 1));
}

static int64_t cell_of(float v, float cell) { return (int64_t)floor((double)v / (double)cell); }

static void plan_link(plan *pl, int i) {
    vec3s p = pl->list[i].p;
    uint32_t b = bucket_of(pl, cell_of(p.x, pl->cell), cell_of(p.y, pl->cell), cell_of(p.z, pl->cell));
    pl->next[i] = pl->head[b];
    pl->head[b] = i;
}

static int plan_add(plan *pl, planned b) {
    if (RESERVE(pl->list, pl->cap, pl->count + 1) || RESERVE(pl->next, pl->next_cap, pl->count + 1))
        return -1;
    if (2 * (pl->count + 1) > pl->buckets) { // rehash into twice as many buckets
        int n = pl->buckets ? 2 * pl->buckets : 1024;
        int32_t *head = kyu_realloc(pl->head, (size_t)n * sizeof *head);
        if (!head) return -1;
        pl->head = head, pl->buckets = n;
        for (int k = 0; k < n; k++) pl->head[k] = -1;
        for (int k = 0; k < pl->count; k++) plan_link(pl, k);
    }
    pl->list[pl->count] = b;
    plan_link(pl, pl->count++);
    return 0;
}

static int apart(vec3s a, double ra, vec3s b, double rb) {
    double d2 = 0.0, need = (ra + rb) * (1.0 + CLEARANCE);
    for (int k = 0; k < 3; k++)
        d2 += ((double)a.raw[k] - (double)b.raw[k]) * ((double)a.raw[k] - (double)b.raw[k]);
    return d2 >= need * need;
}

static int plan_free(const plan *pl, vec3s p, float r) {
    if (pl->count == 0) return 1;
    int64_t c[3];
    for (int k = 0; k < 3; k++) c[k] = cell_of(p.raw[k], pl->cell);
    for (int64_t dz = -1; dz <= 1; dz++)
        for (int64_t dy = -1; dy <= 1; dy++)
            for (int64_t dx = -1; dx <= 1; dx++)
                for (int32_t i = pl->head[bucket_of(pl, c[0] + dx, c[1] + dy, c[2] + dz)]; i >= 0;
                     i = pl->next[i])
                    if (!apart(p, (double)r, pl->list[i].p, (double)pl->list[i].r)) return 0;
    return 1;
}

// Whether the template body and another body, or a collider, would collide (the pair filter).
static int meets(const kyu_body_def *t, const body_kind *k) {
    if (k->sensor) return 0;
    if (t->group != 0 && t->group == k->group) return t->group > 0;
    return (t->mask_bits & k->category) && (k->mask & t->category_bits);
}

// A place overlaps nothing: no collider, no body of the world, no body planned by this call.
static int room_at(kyu_world *w, const kyu_inserter *in, const plan *pl, vec3s p, float r, uint32_t **near,
                   int *near_cap) {
    const kyu_body_def *t = &in->def.body;
    // The colliders whose bounds (where they stand: kyu_inserter_run readied the query grid, which
    // took them again) come within the clearance.
    aabb near_box = kyu_box_around(p, 1.01f * r * (1.0f + (float)CLEARANCE));
    kyu_collider_near cn;
    kyu_colliders_near(&w->colliders, &near_box, &cn);
    for (int i; (i = kyu_colliders_next(&w->colliders, &cn)) >= 0;) {
        const collider *c = &w->colliders.list[i];
        if (!((t->mask_bits & c->category) && (c->mask & t->category_bits))) continue;
        vec3s n;
        if ((double)kyu_collider_distance(c, p, r, 0.0f, w->def.fixed_dt, &n) < CLEARANCE * (double)r)
            return 0;
    }
    if (!plan_free(pl, p, r)) return 0;
    if (w->periodic.mask) { // the planned bodies across a periodic face, through the place's copies
        float reach = (r + w->bodies.max_radius + in->rmax) * (1.0f + 2.0f * (float)CLEARANCE);
        aabb box = kyu_box_around(p, reach), img[27];
        int n = kyu_periodic_box_images(&w->periodic, &box, 0.0f, img); // the box holds their radii
        for (int i = 1; i < n; i++)
            if (!plan_free(pl, (vec3s){{img[i].lo[0] + reach, img[i].lo[1] + reach, img[i].lo[2] + reach}},
                           r))
                return 0;
    }
    int found = kyu_query_bodies_near(w, p, r * (1.0f + 2.0f * (float)CLEARANCE), near, near_cap);
    if (found < 0) return -1;
    const body_store *s = &w->bodies;
    for (int k = 0; k < found; k++) {
        uint32_t b = (*near)[k];
        vec3s q = kyu_periodic_image(&w->periodic, p, s->pos[b]); // the copy nearest the place
        if (meets(t, kyu_body_kind(s, b)) && !apart(p, (double)r, q, (double)s->radius[b])) return 0;
    }
    return 1;
}

// The volume of the bodies whose centre is in the region (sensors and other filters count too: they
// take room).
static double region_filled(const kyu_world *w, const kyu_inserter *in) {
    const body_store *s = &w->bodies;
    double v = 0.0;
    for (int i = 0; i < s->high; i++)
        if (s->alive[i] && in_region(in, s->pos[i])) v += ball((double)s->radius[i]);
    return v;
}

// How many bodies are due at time t by the count and the rate (INT64_MAX: no bound).
static int64_t due_by_number(const kyu_inserter *in, double t) {
    int64_t due = INT64_MAX;
    if (in->def.rate > 0.0f) {
        double n = floor((double)in->def.rate * t + 1e-9) + 1.0;
        due = n < 9e18 ? (int64_t)n : INT64_MAX;
    }
    if (in->def.count > 0 && in->def.count < due) due = in->def.count;
    return due;
}

// Plans the bodies due at time t into pl; the stats after them in *next. 0, or -1 out of memory.
static int plan_call(kyu_world *w, const kyu_inserter *in, double t, plan *pl, kyu_inserter_stats *next) {
    int64_t due = due_by_number(in, t);
    double due_mass = in->def.mass_rate > 0.0f ? (double)in->def.mass_rate * t : (double)INFINITY;
    double target = in->def.volume_fraction > 0.0f ? (double)in->def.volume_fraction * in->region_volume
                                                   : (double)INFINITY;
    double filled = in->region_volume > 0.0 ? region_filled(w, in) : 0.0;
    uint32_t *near = NULL;
    int near_cap = 0, failed = 0;
    // One body past the world's room is enough to refuse the call (make_bodies): no more is planned.
    int left = w->def.max_bodies - w->bodies.count;
    while (next->inserted < due && next->mass <= due_mass && filled < target && pl->count <= left) {
        uint64_t own = mix(in->def.seed, 2 * (uint64_t)next->inserted + 1);
        planned b;
        b.r = draw_radius(in, &own);
        b.v = draw_velocity(in, &own);
        b.m = mass_of(in, b.r);
        int placed = 0;
        for (int k = 0; k < in->def.attempts && !placed && !failed; k++, next->tries++) {
            uint64_t at = mix(mix(in->def.seed, 2 * (uint64_t)next->inserted + 2), (uint64_t)next->tries);
            b.p = kyu_periodic_wrap_point(&w->periodic, draw_place(in, b.r, &at)); // where it will be
            int room = room_at(w, in, pl, b.p, b.r, &near, &near_cap);
            if (room < 0) failed = 1;
            placed = room > 0;
        }
        if (failed || (placed && plan_add(pl, b))) {
            failed = 1;
            break;
        }
        if (!placed) {
            next->blocked++;
            break;
        }
        next->inserted++, next->tries = 0, next->mass += (double)b.m;
        if (in_region(in, b.p)) filled += ball((double)b.r);
    }
    kyu_free(near);
    next->requested = in->def.rate > 0.0f || (in->def.count > 0 && !(in->def.mass_rate > 0.0f) &&
                                              !(in->def.volume_fraction > 0.0f))
                          ? due
                          : -1;
    next->mass_requested = in->def.mass_rate > 0.0f ? due_mass : 0.0;
    next->volume_fraction = in->region_volume > 0.0 ? filled / in->region_volume : 0.0;
    next->time = t;
    return failed ? -1 : 0;
}

// Makes the planned bodies: the room for all of them is taken first, so after the first (whose
// kind may be new) nothing can fail, and a failure of the first changes nothing.
static kyu_status make_bodies(kyu_world *w, const kyu_inserter *in, const plan *pl) {
    if (pl->count == 0) return KYU_OK;
    if ((int64_t)w->bodies.count + pl->count > w->def.max_bodies)
        BAD(KYU_ERR_CAPACITY, "kyu_inserter_run: %d more bodies would pass max_bodies = %d (%d live)",
            pl->count, w->def.max_bodies, w->bodies.count);
    if (kyu_bodies_reserve(w, w->bodies.high + pl->count) ||
        RESERVE(w->contacts.fresh, w->contacts.fresh_cap, w->contacts.fresh_count + pl->count))
        BAD(KYU_ERR_OUT_OF_MEMORY, "kyu_inserter_run: room for %d bodies", pl->count);
    for (int k = 0; k < pl->count; k++) {
        kyu_body_def d = in->def.body;
        d.position = pl->list[k].p, d.velocity = pl->list[k].v, d.radius = pl->list[k].r,
        d.mass = pl->list[k].m;
        kyu_status st = kyu_body_create(w, &d, NULL);
        if (st != KYU_OK) {
            KYU_ASSERT(k == 0); // checked at create; the room is taken: only the first body's kind can fail
            return st;
        }
    }
    return KYU_OK;
}

kyu_status kyu_inserter_run(kyu_inserter *in, kyu_world *w, double seconds, int *inserted) {
    if (inserted) *inserted = 0;
    if (!w) return KYU_ERR_NULL;
    if (!in) BAD(KYU_ERR_NULL, "kyu_inserter_run: inserter is NULL");
    if (w->locked) BAD(KYU_ERR_LOCKED, "kyu_inserter_run during a step");
    if (in->world != w->id)
        BAD(KYU_ERR_FOREIGN_HANDLE, "kyu_inserter_run: the inserter was made for world %u, not %u", in->world,
            w->id);
    if (!(seconds >= in->stats.time) || !(seconds <= 1e12))
        BAD(KYU_ERR_INVALID_ARGUMENT,
            "kyu_inserter_run: seconds = %g (must be finite and >= the last call's %g)", seconds,
            in->stats.time);
    // Nothing due by the count or a rate: only the clock moves (the query grid is not built).
    int64_t due = due_by_number(in, seconds);
    if (in->stats.inserted >= due ||
        (in->def.mass_rate > 0.0f && in->stats.mass > (double)in->def.mass_rate * seconds)) {
        if (in->def.rate > 0.0f || in->stats.requested >= 0) in->stats.requested = due;
        if (in->def.mass_rate > 0.0f) in->stats.mass_requested = (double)in->def.mass_rate * seconds;
        in->stats.time = seconds;
        return KYU_OK;
    }
    if (kyu_query_ready(w)) BAD(KYU_ERR_OUT_OF_MEMORY, "kyu_inserter_run: the query grid");
    plan pl;
    memset(&pl, 0, sizeof pl);
    pl.cell = 2.0f * in->rmax;
    kyu_inserter_stats next = in->stats;
    kyu_status st = plan_call(w, in, seconds, &pl, &next)
                        ? kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "kyu_inserter_run")
                        : make_bodies(w, in, &pl);
    int made = pl.count;
    kyu_free(pl.list), kyu_free(pl.head), kyu_free(pl.next);
    if (st != KYU_OK) return st;
    in->stats = next;
    if (inserted) *inserted = made;
    return KYU_OK;
}
