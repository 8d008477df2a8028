// SPDX-License-Identifier: MIT
/// @file scene.h
/// Scene files for headless runs (kyu-sim, the renderer, the fuzzer): a JSON description of a world
/// (settings, colliders, bodies, generators, emitters) and of the run (steps, recording). The
/// format is documented in docs/scenes.md.
///
/// Loading validates everything before the world is built: a bad file gives one line in `err`,
/// "FILE:LINE:COL: what is wrong" for a syntax error, "FILE: key `bodies[3].radius`: must be > 0,
/// got -1" for a semantic one, and NULL. Nothing is half built.
#ifndef KYU_TOOLS_SCENE_H
#define KYU_TOOLS_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include <kyu/kyu.h>

typedef struct kyu_scene kyu_scene;

/// What a caller may override. A zeroed struct (or NULL) means "as the scene says".
typedef struct kyu_scene_options {
    int threads;  ///< world worker count; 0 = the scene's (`world.threads`, default 1)
    int has_seed; ///< non-zero: `seed` replaces the scene's top-level seed
    uint64_t seed;
    int max_bodies;    ///< cap on the scene's bodies (all generators and emitters); 0 = 10 million
    int max_colliders; ///< cap on colliders; 0 = 100000
    int max_points;    ///< cap on the points of one hull or mesh (and on mesh triangles); 0 = 4 million
} kyu_scene_options;

/// Hard limits of the loader (the options can only lower them).
#define KYU_SCENE_MAX_BODIES     10000000
#define KYU_SCENE_MAX_COLLIDERS  100000
#define KYU_SCENE_MAX_POINTS     4000000
#define KYU_SCENE_MAX_FILE_BYTES (512u << 20)

/// Which record files a run writes (a bit set).
enum { KYU_RECORD_CSV = 1, KYU_RECORD_JSONL = 2 };

/// Loads and validates a scene file and builds its world. NULL on error, with one line in err
/// (err may be NULL; errlen is its size).
kyu_scene *kyu_scene_load(const char *path, const kyu_scene_options *opt, char *err, size_t errlen);

/// The same from memory (`text` need not be NUL-terminated); `name` is used in messages.
kyu_scene *kyu_scene_load_string(const char *text, size_t len, const char *name, const kyu_scene_options *opt,
                                 char *err, size_t errlen);

/// Destroys the scene and its world. NULL does nothing.
void kyu_scene_destroy(kyu_scene *s);

/// The scene's world (owned by the scene).
kyu_world *kyu_scene_world(kyu_scene *s);

/// One step: the emitters add the bodies due at this step, then kyu_world_step. 0 ok, -1 error
/// (kyu_scene_last_error says what).
int kyu_scene_step(kyu_scene *s);

/// The detail of the last kyu_scene_step or kyu_scene_resume failure ("" if none).
const char *kyu_scene_last_error(const kyu_scene *s);

/// Steps run so far (the scene's clock: time = step * fixed_dt).
long kyu_scene_step_index(const kyu_scene *s);

/// Replaces the world by a snapshot (kyu_world_load) taken at step `step` of this same scene and
/// sets the scene's clock and emitters to that step. 0 ok; -1 with a line in err (the scene is
/// unchanged when the snapshot is refused).
int kyu_scene_resume(kyu_scene *s, const char *snapshot_path, long step, char *err, size_t errlen);

// ---- the run section -----------------------------------------------------------------------------

/// Steps the run asks for (`run.steps`, or `run.seconds` / fixed_dt rounded up; default 600).
long kyu_scene_run_steps(const kyu_scene *s);
/// Record a frame every this many steps (`run.record.every`, default 10).
int kyu_scene_record_every(const kyu_scene *s);
/// KYU_RECORD_* bits (`run.record.format`: "csv", "jsonl", "both" (default) or "none" = 0).
int kyu_scene_record_format(const kyu_scene *s);
/// Body ids (handle index1) to record, or NULL with *count 0 for every body (`run.record.ids`).
const uint32_t *kyu_scene_record_ids(const kyu_scene *s, int *count);
/// The boxes of `run.measure` (kyu-sim writes their stress, packing and coordination): how many.
int kyu_scene_measure_count(const kyu_scene *s);
/// Box k's name and corners. 0, or -1 for no such box.
int kyu_scene_measure_box(const kyu_scene *s, int k, const char **name, float lo[3], float hi[3]);

// ---- inserters (the "insert" generators, in the order of the generators array) ------------------

/// How many inserters the scene has.
int kyu_scene_inserter_count(const kyu_scene *s);
/// Inserter k's index in the generators array, or -1.
int kyu_scene_inserter_generator(const kyu_scene *s, int k);
/// What inserter k has done (zeros for no such inserter).
kyu_inserter_stats kyu_scene_inserter_stats(const kyu_scene *s, int k);
/// Gives inserter k the stats it had when a snapshot was taken, after kyu_scene_resume: the resumed
/// run then inserts what one that never stopped inserts. 0, or -1 (no such inserter, bad stats).
int kyu_scene_inserter_restore(kyu_scene *s, int k, const kyu_inserter_stats *saved);

// ---- facts about the scene -------------------------------------------------------------------------

/// The name given at load (the path for kyu_scene_load).
const char *kyu_scene_name(const kyu_scene *s);
/// The world settings the scene built its world with (fixed_dt, gravity...).
const kyu_world_def *kyu_scene_world_def(const kyu_scene *s);
/// The seed in effect (the scene's, or the option's).
uint64_t kyu_scene_seed(const kyu_scene *s);
/// Bodies the scene will have once every emitter has finished (for progress and capacity).
long kyu_scene_planned_bodies(const kyu_scene *s);
/// Gravitational potential energy of the bodies, sum of -m * gravity_scale * (g . p), in joules
/// (zero at the origin), so kinetic + potential is conserved by a lossless scene.
double kyu_scene_potential_energy(const kyu_scene *s);

#endif
