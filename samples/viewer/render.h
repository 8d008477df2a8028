// SPDX-License-Identifier: MIT
// The viewer's OpenGL 2.1 fixed-function renderer: a camera, kyu_world_draw's callbacks turned into
// lit spheres, boxes, capsules and triangles, and a tiny bitmap font for the on-screen text.
#ifndef VIEWER_RENDER_H
#define VIEWER_RENDER_H

#include <kyu/kyu.h>

#define RENDER_MAX_TEXTS   512
#define RENDER_MAX_SAMPLES 4096

// An orbit camera around `target`.
typedef struct camera {
    vec3s target;
    float yaw, pitch; // radians
    float distance;   // m
} camera;

// A sphere as it reached the screen: for the test's report (where spheres must be, which colour).
typedef struct screen_sphere {
    float x, y, radius; // window pixels, top-left origin
    float distance;     // m, from the eye to its centre along the view direction
    float metres;       // its radius in the world
    int visible;        // its centre pixel shows it (nothing nearer drawn there): render_mark_visible
    kyu_color color;
} screen_sphere;

typedef struct renderer {
    int width, height;
    mat4s view, proj;
    unsigned sphere_list[2], cylinder_list; // display lists: fine and coarse sphere, unit cylinder
    unsigned stripe_list[2];                // a band round each sphere's equator: it shows the spin
    int coarse;                             // many bodies: the coarse sphere
    int interpolate;                        // draw bodies at kyu_body_get_interpolated_position
    // The bodies of the frame in slot order: kyu_world_draw calls draw_sphere once per body in that
    // order, so the k-th sphere is bodies[k] (checked against its position before it is moved).
    const kyu_world *world;
    kyu_body_id *bodies;
    int body_count, body_cap, sphere_index;
    struct {
        vec3s p;
        char s[48];
    } texts[RENDER_MAX_TEXTS];
    int text_count;
    screen_sphere samples[RENDER_MAX_SAMPLES];
    int sample_count;
} renderer;

int render_init(renderer *r);
void render_free(renderer *r);
// Clears the frame and loads the camera; width and height are the drawable's pixels.
void render_begin(renderer *r, const camera *cam, int width, int height);
// The world through kyu_world_draw with the given kyu_draw_flags: shapes lit, debug layers on top.
void render_world(renderer *r, const kyu_world *w, uint32_t flags);
// Screen text (pixels from the top-left) in the built-in 3x5 font, `scale` pixels per font pixel.
void render_text(const renderer *r, float x, float y, float scale, kyu_color c, const char *s);
// Width in pixels of s at scale.
float render_text_width(const char *s, float scale);
// The numbers of the debug layers (KYU_DRAW_TEXT), at their points.
void render_world_texts(const renderer *r);
// Window coordinates of a world point; 0 when it is behind the camera.
int render_project(const renderer *r, vec3s p, float *x, float *y);
// Reads the depth buffer (before the frame is swapped) at each remembered sphere's centre and marks
// the spheres that nothing nearer hides there.
void render_mark_visible(renderer *r);

#endif
