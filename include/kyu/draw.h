// SPDX-License-Identifier: MIT
/// @file draw.h
/// Debug drawing, renderer-agnostic (in the style of Box2D's b2DebugDraw): fill a kyu_debug_draw
/// with the callbacks your renderer has (any may be NULL: that primitive is skipped), choose the
/// layers in `flags`, and call kyu_world_draw(world, &draw) between steps. kyu calls back with
/// world-space primitives and colours; it reads the world only (several threads may draw one world
/// at once) and keeps no state; the islands layer allocates one scratch array for the call.
/// Bodies come in slot order (the order of kyu_world_get_bodies), one draw_sphere each, at their
/// stepped positions: draw them at kyu_body_get_interpolated_position yourself if you interpolate.
///
///     kyu_debug_draw d = kyu_debug_draw_default();
///     d.draw_sphere = my_sphere; d.draw_segment = my_line; d.context = &renderer;
///     d.flags = KYU_DRAW_SHAPES | KYU_DRAW_CONTACTS | KYU_DRAW_ISLANDS;
///     kyu_world_draw(world, &d);
#ifndef KYU_DRAW_H
#define KYU_DRAW_H

#include "geometry.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A colour, components in [0, 1].
typedef struct kyu_color {
    float r; ///< red
    float g; ///< green
    float b; ///< blue
    float a; ///< opacity
} kyu_color;

/// Layers: OR them into kyu_debug_draw.flags.
typedef enum kyu_draw_flags {
    KYU_DRAW_SHAPES = 1u << 0,       ///< spheres and colliders (planes as a square of plane_extent),
                                     ///< and a world's periodic box (one draw_box, its def's corners)
    KYU_DRAW_SLEEP = 1u << 1,        ///< sleeping bodies dark, awake ones bright
    KYU_DRAW_ISLANDS = 1u << 2,      ///< one colour per island (touching group) instead of per body
    KYU_DRAW_AABBS = 1u << 3,        ///< each body's bounding box, and each bounded collider's
    KYU_DRAW_SWEPT = 1u << 4,        ///< the last frame's swept volume of each moving body (a capsule
                                     ///< from where kyu_world_update's last step began)
    KYU_DRAW_GRID = 1u << 5,         ///< the broadphase grid cells in use at the last step
    KYU_DRAW_CONTACTS = 1u << 6,     ///< kept contacts: point, normal, depth (text with KYU_DRAW_TEXT)
    KYU_DRAW_IMPACTS = 1u << 7,      ///< the last step's impacts: point, normal, time of impact (they
                                     ///< are recorded only with kyu_world_def.enable_impact_events)
    KYU_DRAW_PAIRS = 1u << 8,        ///< touching pairs as centre-to-centre segments, new vs kept (a
                                     ///< pair across a periodic seam: to the other body's nearest copy)
    KYU_DRAW_VELOCITIES = 1u << 9,   ///< velocity arrows (segments of length v * velocity_scale)
    KYU_DRAW_TEXT = 1u << 10,        ///< numbers beside contacts and impacts (depth, time of impact)
    KYU_DRAW_ORIENTATION = 1u << 11, ///< a marker turning with each sphere: a segment from its centre
                                     ///< to its surface along its own x axis (red) and y axis (green)
} kyu_draw_flags;

/// Callbacks and settings for kyu_world_draw. Make it with kyu_debug_draw_default().
typedef struct kyu_debug_draw {
    /// A sphere (a body; its orientation comes as segments with KYU_DRAW_ORIENTATION).
    void (*draw_sphere)(vec3s center, float radius, kyu_color color, void *context);
    /// A line segment (normals, velocities, pairs, orientation markers).
    void (*draw_segment)(vec3s a, vec3s b, kyu_color color, void *context);
    /// A point; `size` is point_size (contact and impact points).
    void (*draw_point)(vec3s p, float size, kyu_color color, void *context);
    /// An oriented box (also used for AABBs and grid cells, with an identity rotation).
    void (*draw_box)(const kyu_box *box, kyu_color color, void *context);
    /// A capsule (capsule colliders, swept volumes).
    void (*draw_capsule)(vec3s a, vec3s b, float radius, kyu_color color, void *context);
    /// A triangle (planes as two, hull and mesh faces).
    void (*draw_triangle)(vec3s a, vec3s b, vec3s c, kyu_color color, void *context);
    /// A label at a point (with KYU_DRAW_TEXT).
    void (*draw_text)(vec3s p, const char *text, kyu_color color, void *context);
    uint32_t flags;       ///< kyu_draw_flags; default KYU_DRAW_SHAPES | KYU_DRAW_SLEEP
    float plane_extent;   ///< half size of the square drawn for a plane, m; default 10
    float velocity_scale; ///< arrow length per m/s, s; default 0.1
    float point_size;     ///< size passed to draw_point, in the renderer's units; default 4
    void *context;        ///< passed to every callback
    uint32_t cookie;      ///< set by kyu_debug_draw_default(); do not touch
} kyu_debug_draw;

/// Defaults: no callbacks, shapes and sleep layers.
KYU_API kyu_debug_draw kyu_debug_draw_default(void);

/// Calls draw's callbacks for the chosen layers. Reads the world only; call it between steps.
/// Errors: NULL world or draw, a draw not made by kyu_debug_draw_default.
KYU_API kyu_status kyu_world_draw(const kyu_world *world, const kyu_debug_draw *draw);

#ifdef __cplusplus
}
#endif

#endif
