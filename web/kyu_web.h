// SPDX-License-Identifier: MIT
/// @file kyu_web.h
/// The browser's way into kyu: a few plain functions over two ready-made scenes (the collision
/// lesson and the billiards break) or a scene of your own (balls, planes, boxes), called from
/// JavaScript through WebAssembly (`make wasm`).
///
/// Only numbers, pointers and strings cross: JavaScript cannot pass cglm's `vec3s` by value, so
/// every function takes floats and returns a number, a pointer to floats in wasm memory, or a
/// zero-terminated string (JSON for the impact record). The same file builds natively
/// (`$(BUILD)/web/kyu-web-hash`), so the determinism test steps the very same scene on both sides.
///
/// A `kyu_web` owns one world. Buffers returned by it stay valid until its next call.
#ifndef KYU_WEB_H
#define KYU_WEB_H

#include <kyu/kyu.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kyu_web kyu_web;

/// The collision lesson, seen from above without gravity: ball A (radius 0.1 m, 1 kg) flies at
/// 2 m/s along +x into ball B at rest, `offset` ball diameters to the side, spinning at `spin`
/// rad/s about the vertical. Both balls have restitution `e` (in [0, 1]) and friction `mu` (in
/// [0, 10]); the world steps `hz` times a second (in [10, 1000]: an integer, so that the page and a
/// native program get the same float dt). NULL when a value is refused.
kyu_web *kyu_web_lesson_create(float e, float mu, float spin, float offset, int hz);

/// The pool break of samples/billiards.c: cloth, four cushions, a rack of 15 and the cue ball
/// (body 15, the last slot), at 240 Hz. `struck`: 1 sets the cue ball off at 2 m/s as the sample
/// does (the determinism test's scene), 0 leaves it at rest for the player. NULL on failure.
kyu_web *kyu_web_billiards_create(int struck);

/// An empty scene of your own: gravity (gx, gy, gz) in m/s^2, `hz` steps a second (in [10, 1000]),
/// impact events on (kyu_web_impact_json reports its first impact of the last step that had one).
/// Fill it with the three calls below. NULL when a value is refused.
kyu_web *kyu_web_create(float gx, float gy, float gz, int hz);

/// A ball at (x, y, z) moving at (vx, vy, vz), of `radius` m and `mass` kg, with its restitution and
/// friction. Returns its index in kyu_web_bodies (balls are numbered in the order they are added),
/// or -1 when the engine refused a value (kyu_web_error says which).
int kyu_web_add_ball(kyu_web *web, float x, float y, float z, float vx, float vy, float vz, float radius,
                     float mass, float restitution, float friction);

/// A static plane: the points p with n . p = offset, solid on the side away from n. 0, or -1.
int kyu_web_add_plane(kyu_web *web, float nx, float ny, float nz, float offset, float restitution,
                      float friction);

/// A static axis-aligned box: centre (x, y, z), half sizes (hx, hy, hz). 0, or -1.
int kyu_web_add_box(kyu_web *web, float x, float y, float z, float hx, float hy, float hz, float restitution,
                    float friction);

/// Why the last call on this scene failed (kyu_world_last_error's text).
const char *kyu_web_error(const kyu_web *web);

/// Destroys the scene (NULL does nothing).
void kyu_web_destroy(kyu_web *web);

/// One fixed step, drawn where it ended; records the step's first impact for kyu_web_impact_json.
/// 0, or -1 on failure.
int kyu_web_step(kyu_web *web);

/// Adds `seconds` (real time times the page's speed) to the accumulator and runs the steps that
/// fit, at most 8 (the rest is dropped, so a slow frame cannot spiral). Returns the steps run.
int kyu_web_advance(kyu_web *web, float seconds);

/// Bodies in the scene (2 for the lesson, 16 for billiards; at most 65536 in a scene of your own).
int kyu_web_body_count(const kyu_web *web);

/// Steps run since the scene was made.
int kyu_web_step_count(const kyu_web *web);

/// For drawing: 8 floats a body, in slot order: the position interpolated between the last two
/// steps (x, y, z), the orientation after the last step (x, y, z, w), the radius.
const float *kyu_web_bodies(kyu_web *web);

/// Total kinetic energy (J), translation and spin.
float kyu_web_kinetic_energy(const kyu_web *web);

/// Bodies faster than 1 cm/s.
int kyu_web_moving_count(const kyu_web *web);

/// Strikes the cue ball (billiards, body 15) with velocity (vx, 0, vz) in m/s, |v| at most 6 m/s.
/// 0, or -1 (not billiards, or a velocity the engine refused).
int kyu_web_shoot(kyu_web *web, float vx, float vz);

/// kyu_world_state_hash as 16 hexadecimal digits.
const char *kyu_web_state_hash(kyu_web *web);

/// The last step that had an impact, as JSON: the step, dt, the impact event (time as a fraction
/// of the step, point, normal, approach speed, normal and friction impulses), both sides' state
/// before and after that step (b is null for a collider), the lesson's e and mu (0 for billiards,
/// whose pairs mix their own) and the step's
/// counters (candidate pairs, impacts, contacts, begin events, awake and sleeping bodies).
/// "null" before the first impact.
const char *kyu_web_impact_json(kyu_web *web);

#ifdef __cplusplus
}
#endif
#endif
