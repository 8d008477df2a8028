// SPDX-License-Identifier: MIT
/// @file insert.h
/// Insertion: an inserter fills a region (a box, a cylinder, or a plane's rectangular face) with
/// bodies whose radii follow a distribution (uniform, normal, lognormal, or a mixture of sizes by
/// number or by mass), at a rate (bodies or kilograms a second), to a count, or to a volume
/// fraction, each with a velocity fixed or random within a cone. A body is placed only where it
/// overlaps nothing: no body (found through the world's query grid) and no collider. Every draw
/// comes from the inserter's own counter-based generator (splitmix64, seeded by `seed`), and its
/// arithmetic is + - * / and sqrt only (logarithms and exponentials are written out), so the same
/// seed inserts the same bodies on every machine, and body n's radius and velocity are the same
/// however the run was cut into calls.
///
/// The inserter is yours, not the world's: call kyu_inserter_run between steps with the time since
/// it began, and it inserts what is due by then.
///
///     kyu_inserter_def d = kyu_inserter_def_default();
///     d.region.shape = KYU_REGION_CYLINDER;
///     d.region.center = (vec3s){{0, 2, 0}}, d.region.radius = 0.4f, d.region.half_height = 0.2f;
///     d.size.kind = KYU_SIZE_LOGNORMAL;
///     d.size.mean = 0.01f, d.size.sigma = 0.25f, d.size.min = 0.005f, d.size.max = 0.02f;
///     d.density = 2500, d.mass_rate = 2.0f, d.count = 20000, d.seed = 7;
///     kyu_inserter *in;
///     kyu_inserter_create(world, &d, &in);
///     for (int step = 0; step < 600; step++) {
///         kyu_inserter_run(in, world, step * wd.fixed_dt, NULL);
///         kyu_world_step(world);
///     }
///     kyu_inserter_stats s = kyu_inserter_get_stats(in);  // s.inserted of s.requested
///     kyu_inserter_destroy(in);
#ifndef KYU_INSERT_H
#define KYU_INSERT_H

#include "types.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The shape of an insertion region.
typedef enum kyu_region_shape {
    KYU_REGION_BOX = 1,   ///< the box of `half_extents` about `center`; bodies lie wholly inside
    KYU_REGION_CYLINDER,  ///< `radius`, and `half_height` along the region's y axis; bodies wholly inside
    KYU_REGION_RECTANGLE, ///< a plane's face: `half_extents.x` by `half_extents.z` in the region's x-z
                          ///< plane (y is its normal); each body's centre lies on it, the body within
                          ///< its edges (bodies enter through the face with their velocity)
} kyu_region_shape;

/// A region, in its own frame turned by `rotation` about `center`.
typedef struct kyu_region {
    kyu_region_shape shape; ///< default KYU_REGION_BOX
    vec3s center;           ///< m
    versors rotation;       ///< the region's axes (normalised), default identity
    vec3s half_extents;     ///< m: the box's half sizes; the rectangle's x and z (y unused); default 0.5
    float radius;           ///< m: the cylinder's radius
    float half_height;      ///< m: the cylinder's half height along its axis (the region's y)
} kyu_region;

/// How the radii are drawn.
typedef enum kyu_size_kind {
    KYU_SIZE_FIXED = 0, ///< every body has the template's radius (`body.radius`); the default
    KYU_SIZE_UNIFORM,   ///< uniform in [min, max]
    KYU_SIZE_NORMAL,    ///< normal of mean `mean` and standard deviation `sigma` (m), cut to [min, max]
    KYU_SIZE_LOGNORMAL, ///< ln r normal: median radius `mean` (m, e^mu), `sigma` the deviation of ln r;
                        ///< cut to [min, max]
    KYU_SIZE_DISCRETE,  ///< one of `count` radii, chosen by `weights` (by number or by mass)
} kyu_size_kind;

/// What the weights of a discrete mixture are fractions of.
typedef enum kyu_mixture_basis {
    KYU_MIX_BY_NUMBER = 0, ///< of the bodies
    KYU_MIX_BY_MASS,       ///< of the mass (with a density: a big size is drawn less often)
} kyu_mixture_basis;

/// A distribution of radii. The cut of a normal or lognormal one is drawn again, not clamped (the
/// distribution is truncated, not piled at its bounds); [min, max] must hold at least 1% of it.
typedef struct kyu_size_distribution {
    kyu_size_kind kind;      ///< default KYU_SIZE_FIXED
    float mean;              ///< m: the normal's mean; the lognormal's median
    float sigma;             ///< the normal's standard deviation (m); the lognormal's of ln r (> 0)
    float min;               ///< m: every radius drawn is at least this (0 < min <= max)
    float max;               ///< m: and at most this
    const float *radii;      ///< discrete: the radii (m, each in (0, 1e6]); copied by kyu_inserter_create
    const float *weights;    ///< discrete: their weights (> 0; normalised); copied
    int count;               ///< discrete: how many, 1 to 64
    kyu_mixture_basis basis; ///< discrete: what the weights are fractions of
} kyu_size_distribution;

/// An inserter's settings. Get one from kyu_inserter_def_default(), edit, pass to
/// kyu_inserter_create. It needs at least one end: a count, a volume fraction, or a rate.
typedef struct kyu_inserter_def {
    kyu_body_def body; ///< every body's material, filter and sleep (from kyu_body_def_default()); its
                       ///< position, velocity and (unless the size is fixed) radius are the inserter's
    float density;     ///< kg/m^3: each body's mass from its radius; 0 (default): `body.mass` for every body
    kyu_region region; ///< where bodies are placed
    kyu_size_distribution size; ///< their radii
    vec3s velocity;             ///< m/s, each body's initial velocity (default 0)
    float cone_degrees;         ///< [0, 180]: each body's velocity turned from `velocity` by a random angle
                        ///< within this cone (uniform over its solid angle), the speed kept; default 0
    int64_t count;            ///< the most bodies it inserts, 0 (default): no limit
    float volume_fraction;    ///< (0, 1): inserts until the bodies whose centre is in the region fill this
                              ///< fraction of it (those there already count); 0 (default): no target
    float rate;               ///< bodies per second: body n is due at n / rate s; 0 (default): no rate
    float mass_rate;          ///< kg per second: a body is due while the mass inserted is at most
                              ///< mass_rate * t; 0 (default): no rate. Not with `rate`
    int attempts;             ///< places tried for a body in one call before the call gives up and the
                              ///< body waits for the next call (the region is full), default 100
    uint64_t seed;            ///< the generator's seed, default 1
    uint32_t internal_cookie; ///< set by kyu_inserter_def_default(); do not touch
} kyu_inserter_def;

/// An inserter (opaque): its settings, its generator's counters and what it inserted.
typedef struct kyu_inserter kyu_inserter;

/// What an inserter has done, and the state a resumed run gives back to it (kyu_inserter_restore).
typedef struct kyu_inserter_stats {
    int64_t inserted;       ///< bodies inserted
    int64_t requested;      ///< bodies asked for by now: due by the rate (at most `count`), or `count`
                            ///< without a rate; -1 when only a volume fraction or a mass rate says how many
    double mass;            ///< kg inserted
    double mass_requested;  ///< kg due by now with a mass rate (0 without one)
    double volume_fraction; ///< of the region, the bodies whose centre is in it, after the last call (0 for a
                            ///< rectangle, which has no volume)
    int64_t tries;          ///< places tried for the next body since it fell due
    int64_t blocked;        ///< calls that ended with a body they found no room for
    double time;            ///< s, the time of the last call
} kyu_inserter_stats;

/// The inserter settings with every default filled in.
KYU_API kyu_inserter_def kyu_inserter_def_default(void);

/// Makes an inserter for `world` (which it checks the settings against: the template body at the
/// smallest and the largest radius, the region's reach, the speed). Every field is checked;
/// KYU_ERR_INVALID_ARGUMENT (or the body's own code) names the first bad one and its value in
/// kyu_world_last_error. `*out` is NULL on failure. The allocation hooks (kyu_set_allocator) stay
/// locked while an inserter exists, as while a world does.
KYU_API kyu_status kyu_inserter_create(kyu_world *world, const kyu_inserter_def *def, kyu_inserter **out);

/// Frees an inserter (the bodies it inserted stay). NULL does nothing.
KYU_API void kyu_inserter_destroy(kyu_inserter *inserter);

/// Inserts what is due at `seconds` after the inserter began (finite, >= 0, not before the last
/// call's time): bodies up to the rate, the count or the volume fraction, each in a place where it
/// overlaps nothing, tried `attempts` times; a body without room waits for the next call (and the
/// stats count the call blocked). `inserted` (may be NULL) is how many this call made. All or
/// nothing: KYU_ERR_CAPACITY when they would pass the world's `max_bodies`, and any failure leaves
/// the world and the inserter as they were. Between steps only (KYU_ERR_LOCKED); the world must be
/// the one it was made for (KYU_ERR_FOREIGN_HANDLE).
KYU_API kyu_status kyu_inserter_run(kyu_inserter *inserter, kyu_world *world, double seconds, int *inserted);

/// What the inserter has done (zeros for NULL).
KYU_API kyu_inserter_stats kyu_inserter_get_stats(const kyu_inserter *inserter);

/// Gives a new inserter the counters of one that ran before (its stats when a snapshot was
/// taken), so a run resumed from the snapshot inserts the same bodies as one that never stopped.
/// KYU_ERR_INVALID_ARGUMENT for negative or non-finite counters.
KYU_API kyu_status kyu_inserter_restore(kyu_inserter *inserter, const kyu_inserter_stats *saved);

/// The radii of bodies first .. first + count - 1 as the inserter draws them, without a world:
/// a preview of the distribution. KYU_ERR_NULL, or KYU_ERR_INVALID_ARGUMENT for first < 0 or
/// count < 0.
KYU_API kyu_status kyu_inserter_sample_radii(const kyu_inserter *inserter, int64_t first, int count,
                                             float *out);

#ifdef __cplusplus
}
#endif
#endif
