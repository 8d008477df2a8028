// SPDX-License-Identifier: MIT
// kyu-render's picture: a camera, a list of primitives (shaded spheres, lines, faces, text) sorted
// back to front and painted with cairo, and kyu_debug_draw callbacks that feed the list, so the
// engine's own debug drawing (colliders, boxes, contacts...) appears in the pictures unchanged.
#ifndef KYU_RENDER_VIEW_H
#define KYU_RENDER_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include <cairo.h>
#include <kyu/kyu.h>

typedef struct rv_camera {
    vec3s eye, target, up;
    float fov_deg; // vertical field of view (perspective)
    bool ortho;    // orthographic: ortho_height metres fill the picture's height
    float ortho_height;
    int width, height;
    // derived by rv_camera_prepare
    vec3s right, upv, fwd;
    float focal; // pixels per unit of x/z (perspective) or per metre (ortho)
} rv_camera;

// Derives the camera basis; false when eye == target or the up vector is along the view.
bool rv_camera_prepare(rv_camera *cam);

// Frames the box [lo, hi]: looks at its centre from a three-quarter view above, far enough that
// its bounding sphere fits the picture (keeps eye/target the user gave when *_set is true).
void rv_camera_frame(rv_camera *cam, vec3s lo, vec3s hi, bool eye_set, bool target_set);

// Screen position and depth of p; false when p is behind the eye.
bool rv_project(const rv_camera *cam, vec3s p, double *sx, double *sy, double *depth);

typedef enum rv_kind { RV_SPHERE, RV_SEGMENT, RV_FACE, RV_POINT, RV_TEXT, RV_CAPSULE } rv_kind;

typedef struct rv_prim {
    rv_kind kind;
    bool background; // large faces (floors, planes, walls) are painted before everything else
    bool filled;
    float depth;
    kyu_color color;
    vec3s p[4];
    int n;        // corners of a face (3 or 4)
    float radius; // sphere or capsule radius, point size
    char text[40];
} rv_prim;

// What the debug-draw callbacks do with what kyu hands them.
enum {
    RV_DD_SPHERES = 1,    // keep kyu's spheres (with kyu's colours); otherwise skip them
    RV_DD_FILL_BOXES = 2, // boxes are solid colliders (faces); otherwise wireframes
};

typedef struct rv_scene {
    rv_camera cam;
    rv_prim *prims;
    int count, cap;
    bool oom;
    int dd_mode;         // RV_DD_* for the next kyu_world_draw
    int colliders_drawn; // faces or boxes received from kyu: then no floor of our own is needed
    float scene_radius;  // size of the framed bounds: faces larger than this are background
    float ground_y;      // height of the floor and the shadows
    bool shadows, floor;
} rv_scene;

void rv_scene_clear(rv_scene *s);
void rv_scene_free(rv_scene *s);
void rv_add_sphere(rv_scene *s, vec3s c, float r, kyu_color color);
// A sphere with a stripe round its equator (its own x-z plane, turned by rotation): spin shows.
void rv_add_turned_sphere(rv_scene *s, vec3s c, float r, kyu_color color, versors rotation);
void rv_add_segment(rv_scene *s, vec3s a, vec3s b, kyu_color color);
void rv_add_face(rv_scene *s, const vec3s *p, int n, kyu_color color, bool filled);

// A body's colour from its id (a golden-ratio walk around the hue circle); dark when asleep.
kyu_color rv_body_color(int id, bool awake);

// Debug-draw callbacks that add to s (flags chosen by the caller). Needs engine/draw.c.
kyu_debug_draw rv_debug_draw(rv_scene *s, uint32_t flags);

// Paints the scene: background, floor and shadows, then every primitive back to front.
// Returns 0, or -1 when cairo failed (the message in err).
int rv_paint(rv_scene *s, cairo_t *cr);

// Renders s into a new PNG file. Returns 0, or -1 (message in err).
int rv_write_png(rv_scene *s, const char *path, char *err, size_t errlen);

#endif
