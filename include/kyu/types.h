// SPDX-License-Identifier: MIT
/// @file types.h
/// Value types of kyu: status codes, handles, definition structs and statistics.
///
/// Units are SI (metres, seconds, kilograms). The y axis points up by default (only gravity says so).
/// Vectors are cglm's struct types (`vec3s`, `versors`), passed by value.
#ifndef KYU_TYPES_H
#define KYU_TYPES_H

#include "base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cglm/struct.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Every public function that can fail returns one of these. `KYU_OK` is zero.
/// `kyu_status_string` turns a code into a sentence; `kyu_world_last_error` gives the detail of the
/// last failure in a world (which argument, which value).
typedef enum kyu_status {
    KYU_OK = 0,
    KYU_ERR_NULL,             ///< a required pointer argument was NULL
    KYU_ERR_NOT_FINITE,       ///< a float was NaN, infinite or beyond 1e9 (radius, mass, restitution,
                              ///< friction and damping report their own codes, NaN included)
    KYU_ERR_RADIUS,           ///< a radius was <= 0 (or absurdly large)
    KYU_ERR_MASS,             ///< a mass was <= 0
    KYU_ERR_RESTITUTION,      ///< restitution outside [0, 1]
    KYU_ERR_FRICTION,         ///< friction < 0
    KYU_ERR_DAMPING,          ///< damping < 0
    KYU_ERR_STALE_HANDLE,     ///< the body or collider was removed (or the handle was never valid)
    KYU_ERR_FOREIGN_HANDLE,   ///< the handle belongs to another world
    KYU_ERR_CAPACITY,         ///< a capacity is reached: `max_bodies`, `max_colliders`, or a step's
                              ///< pairs or contacts (`pair_capacity_per_body`, `contact_capacity_per_body`)
    KYU_ERR_OUT_OF_MEMORY,    ///< an allocation failed; the world is unchanged
    KYU_ERR_INVALID_DEF,      ///< a def struct was not made by its `..._default()` function
    KYU_ERR_INVALID_ARGUMENT, ///< any other out-of-range argument (the last error says which)
    KYU_ERR_LOCKED,           ///< the world is in the middle of a step
    KYU_ERR_IO,               ///< a file could not be opened, read or written (snapshots)
    KYU_ERR_BAD_SNAPSHOT,     ///< a snapshot is truncated, corrupt, or of another format version
    KYU_STATUS_COUNT
} kyu_status;

/// A body (particle) handle: a value, not a pointer. `index1` is 1-based so a zeroed handle is null
/// (and reported stale). A handle whose body was removed is stale: every function reports
/// `KYU_ERR_STALE_HANDLE` for it, even after its slot was reused by a new body (the 32-bit
/// generation differs; it would take 2^32 reuses of one slot to alias). A handle of another live
/// world is `KYU_ERR_FOREIGN_HANDLE`.
typedef struct kyu_body_id {
    uint32_t index1;     ///< the body's slot + 1 (0: the null handle)
    uint32_t world;      ///< the id of the world it belongs to
    uint32_t generation; ///< the slot's generation when the body was made
} kyu_body_id;

/// A collider handle, same rules as `kyu_body_id`.
typedef struct kyu_collider_id {
    uint32_t index1;     ///< the collider's slot + 1 (0: the null handle)
    uint32_t world;      ///< the id of the world it belongs to
    uint32_t generation; ///< the slot's generation when the collider was made
} kyu_collider_id;

/// The null handles (a compound literal in C, which C++ does not have).
#ifdef __cplusplus
#define KYU_NULL_BODY     (kyu_body_id{0, 0, 0})
#define KYU_NULL_COLLIDER (kyu_collider_id{0, 0, 0})
#else
#define KYU_NULL_BODY     ((kyu_body_id){0, 0, 0})     ///< the null body handle
#define KYU_NULL_COLLIDER ((kyu_collider_id){0, 0, 0}) ///< the null collider handle
#endif

/// Whether two handles name the same body: slot, world and generation all equal. A removed body's
/// handle equals only its own copies, never the handle of a body that took its slot since, and the
/// null handle equals only itself. For finding your body in events (`kyu_impact_event.body`).
static inline bool kyu_body_id_equal(kyu_body_id a, kyu_body_id b) {
    return a.index1 == b.index1 && a.world == b.world && a.generation == b.generation;
}

/// Whether two handles name the same collider (as kyu_body_id_equal).
static inline bool kyu_collider_id_equal(kyu_collider_id a, kyu_collider_id b) {
    return a.index1 == b.index1 && a.world == b.world && a.generation == b.generation;
}

/// A slice of parallel work: items [begin, end) on worker `worker` (0 <= worker < worker_count).
/// kyu's tasks write only per-item results, so any split of the items gives the same answer.
typedef void kyu_task_fn(int begin, int end, int worker, void *task_context);

/// A game's job system runs kyu's parallel work (Box2D v3's model): split [0, item_count) into
/// ranges of at least `min_range` items, call `task` on each from any thread with a worker index
/// in [0, worker_count), and return a handle for `kyu_finish_task_fn` (or NULL if it already ran).
typedef void *kyu_enqueue_task_fn(kyu_task_fn *task, int item_count, int min_range, void *task_context,
                                  void *user_context);
/// Waits until the task returned by the enqueue callback has finished.
typedef void kyu_finish_task_fn(void *user_task, void *user_context);

/// Memory hooks (kyu_set_allocator): every allocation the engine makes goes through these.
/// They have the semantics of C's malloc, realloc and free, except that kyu never asks for 0 bytes,
/// never reallocates NULL and never frees NULL. A NULL result is a failure, which the calling
/// function reports as KYU_ERR_OUT_OF_MEMORY.
typedef struct kyu_allocator {
    void *(*allocate)(size_t size, void *user);              ///< as malloc
    void *(*reallocate)(void *ptr, size_t size, void *user); ///< as realloc
    void (*deallocate)(void *ptr, void *user);               ///< as free
    void *user;                                              ///< passed to each hook
} kyu_allocator;

/// Called when one of kyu's internal checks fails (kyu_set_assert_handler), with the condition as
/// written, the source file and the line. Such a failure is a bug in kyu (or memory corrupted
/// around it), never a consequence of bad input, which functions report with a kyu_status. kyu
/// aborts when the handler returns; a handler may log, or leave by longjmp (the world it came from
/// must not be used again). The checks are compiled out when kyu is built with NDEBUG.
typedef void kyu_assert_fn(const char *condition, const char *file, int line);

/// How a pair's friction or restitution comes from the values of its two sides (a body and a body,
/// or a body and a collider). Box2D v3 and Jolt offer the same rules.
typedef enum kyu_mix_rule {
    KYU_MIX_MAX = 0,        ///< the larger: the default for restitution (a lively ball bounces on anything)
    KYU_MIX_MIN,            ///< the smaller (a dead cushion deadens every ball)
    KYU_MIX_MEAN,           ///< (a + b) / 2
    KYU_MIX_MULTIPLY,       ///< a * b
    KYU_MIX_GEOMETRIC_MEAN, ///< sqrt(a * b): the default for friction (ice on anything is slippery)
} kyu_mix_rule;

/// A pair's friction or restitution from its two sides' values and material ids (the `material`
/// of kyu_body_def and kyu_collider_def), for when a rule is not enough: "cushion" with "ball" is
/// 0.6 whatever the ball's own value. Called during the step, possibly on several workers at once,
/// many times per pair: it must be fast, thread-safe and depend on its arguments only (results
/// are then the same for every worker count). A result that is NaN or out of range is clamped
/// (friction to [0, 1e6], restitution to [0, 1]).
typedef float kyu_mix_fn(float value_a, uint32_t material_a, float value_b, uint32_t material_b,
                         void *context);

/// Periodic boundaries: a box whose opposite faces are joined along the axes marked periodic. A body
/// that leaves through one face enters through the opposite one, and pairs across a face meet,
/// bounce and rest exactly as any other pair (the minimum image: each pair is seen through the one
/// copy of the box where its bodies are nearest). Between steps every body's position on a periodic
/// axis lies in [lower, upper): bodies are wrapped in when created or moved, and once a step.
///
/// The box is a general description (a lower corner, an upper corner, a flag per axis), so the same
/// struct can later describe one rank's subdomain. `lower` and `upper` must be finite on every
/// axis, and `upper > lower` on a periodic one; a body whose radius plus contact margin reaches a
/// quarter of a periodic length is refused (KYU_ERR_RADIUS). Colliders are never periodic: a wall
/// across a periodic axis is the program's choice (and a body sees it only on its own side). Relative
/// travel of a pair in one step must stay under half a period less their radii, or a meeting across
/// the seam may be missed (docs/design.md, "Periodic boundaries").
typedef struct kyu_periodic_box {
    bool axis[3]; ///< periodic along x, y, z; default all false (no periodic boundary)
    vec3s lower;  ///< m, the box's lower corner, default (0, 0, 0)
    vec3s upper;  ///< m, the box's upper corner, default (0, 0, 0); on a periodic axis above `lower`
} kyu_periodic_box;

/// World settings. Get one from `kyu_world_def_default()`, edit, pass to `kyu_world_create`.
typedef struct kyu_world_def {
    vec3s gravity;                 ///< m/s^2, default (0, -9.81, 0)
    float fixed_dt;                ///< s, the length of one step, in [1e-6, 1], default 1/60. Bounded so
                                   ///< that a step moves something (below 1e-6 s float positions stop
                                   ///< changing) and gravity's parabola over one step stays exact
    int max_steps_per_update;      ///< cap of steps one `kyu_world_update` may run, default 8
    float tangential_restitution;  ///< [-1, 1], default 0: Walton's rough-sphere coefficient for an
                                   ///< impact that sticks (the Coulomb bound allows it): the contact
                                   ///< points' tangential relative velocity becomes -beta times itself.
                                   ///< -1 is perfectly smooth (no tangential impulse), 0 ends the slip,
                                   ///< 1 is perfectly rough and elastic (energy kept at e = 1)
    float restitution_threshold;   ///< m/s, default 0.1: under gravity, a touching pair closing or
                                   ///< parting slower than this rests (the solver holds it, no bounce),
                                   ///< and an impact whose rebound (e times its approach) would be no
                                   ///< faster than this is inelastic, which ends a ball's
                                   ///< bouncing (once its bounces are lower than v^2 / 2g = 0.5 mm) and a
                                   ///< pile's settling. A desk Newton's cradle struck at 0.2 m/s works.
                                   ///< Without gravity (a gas) restitution acts at every speed, and
                                   ///< every impact is an event
    int solver_iterations;         ///< velocity and position iterations over contacts, default 8
    float linear_slop;             ///< m: how far a resting pair may overlap; default 0 = 0.4% of the
                                   ///< smaller radius of the pair (2 mm at 0.5 m, 40 um at 1 cm), so
                                   ///< beads and boulders rest right with the defaults. > 0: this length
                                   ///< for every pair
    float contact_margin;          ///< m: pairs closer than this are kept as contacts; default 0 = 4% of
                                   ///< the smaller radius (2 cm at 0.5 m). > 0: this length for every pair
    int max_events_per_step;       ///< cap on impacts resolved in one step; 0 = 16 * bodies + 1024
    int body_capacity;             ///< bodies to allocate room for up front, default 1024
    int max_bodies;                ///< hard cap on live bodies, default 1 << 24
    int pair_capacity_per_body;    ///< candidate pairs a step may hold, per awake body (plus 4096),
                                   ///< default 256: a step that finds more fails with KYU_ERR_CAPACITY
                                   ///< before it allocates them (bodies piled inside each other, or
                                   ///< a formation of very fast bodies whose path boxes all meet)
    int contact_capacity_per_body; ///< kept contacts, per awake body (plus 4096), default 32
    int max_colliders;             ///< hard cap on live colliders, default 1 << 20
    float cell_size;               ///< m: grid cell of the broadphase and the query grid; 0 = chosen
                                   ///< from the radii (each grid picks its own), default 0
    int worker_count;              ///< threads stepping the world (1 = the caller only), default 1;
                                   ///< results are bit-identical for every worker count
    bool yield_when_busy;          ///< default true: when other processes keep the workers from
                                   ///< their processors (a renderer, another job), the step's
                                   ///< phases run on the calling thread alone for a second, then
                                   ///< the workers try again, so more workers are never much slower
                                   ///< than one; false keeps every phase parallel
    kyu_enqueue_task_fn *enqueue_task; ///< optional: run kyu's parallel work on your job system
    kyu_finish_task_fn *finish_task;   ///< (both or neither; then kyu starts no threads)
    void *user_task_context;           ///< passed to enqueue_task and finish_task
    bool enable_sleep;                 ///< resting islands fall asleep (cost nothing), default true
    bool enable_impact_events;         ///< record impact events (for sounds), default false: a settling
                                       ///< pile makes one per impact, which costs memory and time
    float sleep_speed;                 ///< m/s: a body slower than this is resting, default 0.05
    float sleep_time;              ///< s: an island sleeps once all its bodies rested this long, default 0.5
    kyu_mix_rule friction_mix;     ///< how a pair's friction is made, default KYU_MIX_GEOMETRIC_MEAN
    kyu_mix_rule restitution_mix;  ///< how a pair's restitution is made, default KYU_MIX_MAX
    kyu_mix_fn *friction_callback; ///< optional: replaces friction_mix (see kyu_mix_fn)
    kyu_mix_fn *restitution_callback; ///< optional: replaces restitution_mix
    void *mix_context;                ///< passed to the two callbacks
    kyu_periodic_box periodic;        ///< periodic boundaries, default none (see kyu_periodic_box)
    uint32_t internal_cookie;         ///< set by `kyu_world_def_default`; do not touch
} kyu_world_def;

/// A particle: a rigid sphere that moves and spins. Friction acts at the contact point, so it
/// turns the sphere: a ball rolls down a slope at 5/7 g sin(theta), a struck billiard ball slides,
/// then rolls at 5/7 of its speed.
typedef struct kyu_body_def {
    vec3s position;         ///< m, centre
    vec3s velocity;         ///< m/s
    vec3s angular_velocity; ///< rad/s, world frame, default 0
    versors rotation;       ///< orientation, a unit quaternion (normalised on create), default identity
    float radius;           ///< m, > 0, default 0.5
    float mass;             ///< kg, > 0, default 1
    float restitution;     ///< [0, 1], default 0; a pair mixes its two values (kyu_world_def.restitution_mix)
    float friction;        ///< >= 0, default 0.5; a pair mixes its two values (kyu_world_def.friction_mix)
    uint32_t material;     ///< your id for the mix callbacks (kyu_mix_fn), default 0
    float linear_damping;  ///< 1/s, >= 0, default 0: v *= 1 / (1 + dt * damping) each step
    float angular_damping; ///< 1/s, >= 0, default 0: w *= 1 / (1 + dt * damping) each step
    float inertia_scale;   ///< (0, 1e6], default 1: the moment of inertia is inertia_scale * 2/5 m r^2
                           ///< (1: a solid sphere; 5/3: a thin shell, 2/3 m r^2). Unless the body has
                           ///< fixed_rotation, a moment below 1e-37 kg m^2, one whose product of
                           ///< inertia_scale, mass and radius passes below float's normal numbers, or
                           ///< one above 1e28 kg m^2 times r (r > 1 m) is refused: float cannot turn it
    float rolling_resistance; ///< >= 0, default 0 (dimensionless): a contact resists rolling and
                              ///< spinning with a torque of at most rolling_resistance * r * normal
                              ///< force (Box2D v3's rollingResistance); a ball rests on a slope of
                              ///< tan(theta) <= rolling_resistance. A pair uses the larger value
    bool fixed_rotation;      ///< true: the body never turns (a sliding point mass: friction slows it
                              ///< but cannot spin it); default false
    float gravity_scale;      ///< default 1
    void *user_data;          ///< yours, kyu never reads it
    uint32_t category_bits;   ///< what this body is, default 1
    uint32_t mask_bits;       ///< what it collides with, default all: a pair collides when each one's
                              ///< mask has a bit of the other's category (and the group allows it)
    int32_t group;            ///< same non-zero group: > 0 always collide, < 0 never; default 0
    bool is_sensor;           ///< reports overlap begin/end events, never collides; default false
    bool allow_sleep;         ///< false: this body (and its island) never sleeps; default true
    uint32_t internal_cookie; ///< set by kyu_body_def_default(); a def made otherwise is refused
} kyu_body_def;

/// Collider shapes. More shapes come later; the collider code dispatches on this.
typedef enum kyu_shape_type {
    KYU_SHAPE_PLANE = 1, ///< infinite one-sided plane: solid behind `normal`
    KYU_SHAPE_BOX,       ///< oriented box
    KYU_SHAPE_CAPSULE,   ///< segment capsule_a-capsule_b grown by `radius`
    KYU_SHAPE_HULL,      ///< convex hull of `points`
    KYU_SHAPE_MESH,      ///< triangle mesh: `points` are vertices, `indices` 3 per triangle (two-sided)
} kyu_shape_type;

/// How a collider moves.
typedef enum kyu_motion {
    KYU_STATIC = 0, ///< never moves (until teleported by `kyu_collider_set_transform`)
    KYU_KINEMATIC,  ///< moves by its velocity each step, pushes particles, is never pushed
} kyu_motion;

/// A collider: static or kinematic level geometry that particles collide with.
typedef struct kyu_collider_def {
    kyu_shape_type type;      ///< the shape; default KYU_SHAPE_PLANE
    kyu_motion motion;        ///< static (default) or kinematic
    vec3s position;           ///< box: centre. plane: any point on the plane
    versors rotation;         ///< box orientation (normalised on create), default identity
    vec3s half_extents;       ///< box half sizes, each > 0
    vec3s capsule_a;          ///< capsule axis end, in the collider's frame (rotated, then moved)
    vec3s capsule_b;          ///< the other end
    float radius;             ///< capsule radius, > 0
    const vec3s *points;      ///< hull points or mesh vertices in the collider's frame (copied on create)
    int point_count;          ///< hull: >= 4 points spanning a volume; mesh: >= 3 vertices
    const int32_t *indices;   ///< mesh: 3 vertex indices per triangle (copied on create)
    int triangle_count;       ///< mesh: >= 1
    vec3s normal;             ///< plane normal (normalised on create), pointing out of the solid side
    vec3s velocity;           ///< m/s, kinematic colliders only (translation)
    float restitution;        ///< [0, 1], default 0
    float friction;           ///< >= 0, default 0.5
    float rolling_resistance; ///< >= 0, default 0 (see kyu_body_def; a pair uses the larger value)
    vec3s angular_velocity;   ///< rad/s, kinematic colliders only: it turns about its position (a
                              ///< turntable, a drum mixer, a paddle) and carries what it touches by
                              ///< friction; contacts and impacts see its surface's velocity
                              ///< v + w x (point - position). Its sweeps do not: within a step its
                              ///< shape moves with its linear velocity, and the turn is applied at
                              ///< the end of the step, so keep the turn's travel |w| d dt at its
                              ///< farthest point d below the radius of what it touches (a shape
                              ///< turning within itself, a disc about its axis, a drum, is exact).
                              ///< Within that bound what its surface meets faster than an
                              ///< impact bounces off it with restitution (a flipper throws a
                              ///< ball at (1 + e) w d); past it, it is stopped and carried
    vec3s surface_velocity;   ///< m/s, world frame: its surface moves at this velocity (a conveyor
                              ///< belt) without the collider moving; acts through friction
    uint32_t material;        ///< your id for the mix callbacks (kyu_mix_fn), default 0
    void *user_data;          ///< yours; kyu never reads it
    uint32_t category_bits;   ///< default 1
    uint32_t mask_bits;       ///< default all (see kyu_body_def)
    uint32_t internal_cookie; ///< set by kyu_collider_def_default(); a def made otherwise is refused
} kyu_collider_def;

/// A pair that began or ended touching. `body` is the pair's lower slot; the other side is either
/// `other` (a body) or `collider` (the unused one is the null handle). A removed body's end events
/// come with the next step and name it by its (now stale) handle.
typedef struct kyu_contact_event {
    kyu_body_id body;         ///< the pair's lower slot
    kyu_body_id other;        ///< the other body, or the null handle
    kyu_collider_id collider; ///< the collider, or the null handle
    bool sensor;              ///< an overlap of a sensor (no collision happened)
    int step;                 ///< which step of the last kyu_world_update it happened in (0 first; 0
                              ///< after kyu_world_step)
} kyu_contact_event;

/// An impact: two things met with a closing speed above the restitution threshold (for sounds and
/// damage). `normal` points from the other side to `body`; `point` is on the contact.
typedef struct kyu_impact_event {
    kyu_body_id body;         ///< the body that met something
    kyu_body_id other;        ///< the other body, or the null handle
    kyu_collider_id collider; ///< the collider, or the null handle
    vec3s point;              ///< m, where they met
    vec3s normal;             ///< unit, from the other side to `body`
    float approach_speed;     ///< m/s, > 0
    float normal_impulse;     ///< N s, the impulse on `body` along `normal` (>= 0)
    vec3s tangent_impulse;    ///< N s, friction's impulse on `body` (perpendicular to `normal`): it
                              ///< turns the body by (point - centre) x impulse / I
    float time;               ///< when in the step, as a fraction in [0, 1]
    int step;                 ///< which step of the last kyu_world_update (0 first; 0 after kyu_world_step)
} kyu_impact_event;

/// The stages of a step as the energy audit splits it (kyu_world_set_energy_audit,
/// kyu_step_stats.energy_change), in the order they run (docs/design.md, "One step"), except the
/// push, which runs last (it ran first, at the start of the step, and kept its value when moved).
typedef enum kyu_audit_stage {
    KYU_AUDIT_FORCES,    ///< gravity, applied forces and damping; net of the gravity that bodies no
                         ///< contact holds take back (they fly it on their exact path, in IMPACTS)
    KYU_AUDIT_PUSH,      ///< the push out of the overlaps the step leaves, at its end (positions only)
    KYU_AUDIT_SOLVE,     ///< the velocity solve over the solver's contacts
    KYU_AUDIT_IMPACTS,   ///< the move along each body's path, and the impacts in time order
    KYU_AUDIT_RELAX,     ///< the short velocity solve after the impacts
    KYU_AUDIT_WALL_PUSH, ///< the push out of what overlaps a collider, after the relax and the push
    KYU_AUDIT_STAGES     ///< how many stages the audit reports
} kyu_audit_stage;

/// Counters of the last step, for tuning and tests.
typedef struct kyu_step_stats {
    int awake_bodies;       ///< bodies stepped
    int candidate_pairs;    ///< broadphase pairs (swept AABBs overlap)
    int impacts;            ///< impacts resolved in time order
    int stale_events;       ///< queued impacts dropped because a body changed first
    int late_inserts;       ///< bodies whose new sweep or push left their broadphase box mid-step
    int contacts;           ///< contacts kept at the end (body-body plus body-collider)
    int event_cap_hit;      ///< 1 when `max_events_per_step` stopped the impact loop
                            ///< (docs/design.md, "Impacts in time order")
    float max_overlap;      ///< m, the deepest overlap between any two things after the step's
                            ///< escape, in sleeping islands too
    int islands_woken;      ///< sleeping islands woken during the step
    int bodies_fell_asleep; ///< bodies that fell asleep at the end of the step
    int phases_alone;       ///< parallel phases the calling thread ran alone because other
                            ///< processes kept the workers from their processors (yield_when_busy)
    int solver_passes;      ///< passes of the velocity solve: solver_iterations, or one for every 5
                            ///< layers of the deepest stack of contacts when that is more (the push's
                            ///< passes), and up to 8x that while small bodies' contacts still close
                            ///< past their slop (docs/design.md, "Contacts kept between steps");
                            ///< in a frictionless bed 8 layers deep, up to 4x for balls and up
                            ///< to 256 passes for beads of 1 cm (docs/limits.md)
    // Wall-clock milliseconds of the step's stages (a monotonic clock; for profiling, not results).
    float ms_solve;      ///< ms: forces, sweeps and the kept contacts' velocity solve
    float ms_broadphase; ///< ms: the broadphase
    float ms_impacts;    ///< ms: the impact queue
    float ms_contacts;   ///< ms: the contact search and escape
    float ms_islands;    ///< ms: waking and falling asleep
    float ms_total;      ///< ms: the whole step
    /// J, with the energy audit on (kyu_world_set_energy_audit; else 0): what each stage of the
    /// step changed of every body's kinetic energy (translation and spin) plus its potential energy
    /// in gravity, indexed by kyu_audit_stage. They sum to the step's change of that energy.
    double energy_change[KYU_AUDIT_STAGES];
} kyu_step_stats;

#ifdef __cplusplus
}
#endif
#endif
