// SPDX-License-Identifier: MIT
// kyu-render's camera, primitive list and cairo painter (see render_view.h).
#include "render_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RV_PI 3.14159265358979323846

// ---- camera ------------------------------------------------------------------------------------

bool rv_camera_prepare(rv_camera *cam) {
    vec3s f = glms_vec3_sub(cam->target, cam->eye);
    if (glms_vec3_norm(f) <= 1e-9f) return false;
    cam->fwd = glms_vec3_normalize(f);
    vec3s r = glms_vec3_cross(cam->fwd, cam->up);
    if (glms_vec3_norm(r) <= 1e-6f) return false;
    cam->right = glms_vec3_normalize(r);
    cam->upv = glms_vec3_cross(cam->right, cam->fwd);
    if (cam->ortho)
        cam->focal = (float)cam->height / cam->ortho_height;
    else
        cam->focal = 0.5f * (float)cam->height / tanf(0.5f * glm_rad(cam->fov_deg));
    return true;
}

void rv_camera_frame(rv_camera *cam, vec3s lo, vec3s hi, bool eye_set, bool target_set) {
    vec3s c = glms_vec3_scale(glms_vec3_add(lo, hi), 0.5f);
    float R = 0.5f * glms_vec3_norm(glms_vec3_sub(hi, lo));
    if (!(R > 1e-3f)) R = 1.0f;
    if (!target_set) cam->target = c;
    // Fit the bounding sphere in the narrower of the two fields of view, with a small border.
    float half_v = 0.5f * glm_rad(cam->fov_deg);
    float half_h = atanf(tanf(half_v) * (float)cam->width / (float)cam->height);
    float half = fminf(half_v, half_h);
    if (!eye_set) {
        vec3s dir = glms_vec3_normalize((vec3s){{0.55f, 0.55f, 1.0f}});
        float dist = 1.08f * R / sinf(half);
        cam->eye = glms_vec3_add(cam->target, glms_vec3_scale(dir, dist));
    }
    float aspect = (float)cam->width / (float)cam->height;
    cam->ortho_height = 2.16f * R * (aspect < 1.0f ? 1.0f / aspect : 1.0f);
}

bool rv_project(const rv_camera *cam, vec3s p, double *sx, double *sy, double *depth) {
    vec3s rel = glms_vec3_sub(p, cam->eye);
    double x = glms_vec3_dot(rel, cam->right), y = glms_vec3_dot(rel, cam->upv);
    double z = glms_vec3_dot(rel, cam->fwd);
    *depth = z;
    if (cam->ortho) {
        *sx = 0.5 * cam->width + cam->focal * x;
        *sy = 0.5 * cam->height - cam->focal * y;
        return true;
    }
    if (z < 1e-3) return false;
    *sx = 0.5 * cam->width + cam->focal * x / z;
    *sy = 0.5 * cam->height - cam->focal * y / z;
    return true;
}

// Radius in pixels of a sphere of radius r at depth z.
static double screen_radius(const rv_camera *cam, float r, double z) {
    if (cam->ortho) return cam->focal * r;
    double d = z * z - (double)r * r;
    return d > 1e-9 ? cam->focal * r / sqrt(d) : cam->focal * r / z;
}

// ---- primitive list ------------------------------------------------------------------------------

void rv_scene_clear(rv_scene *s) {
    s->count = 0;
    s->colliders_drawn = 0;
}

void rv_scene_free(rv_scene *s) {
    free(s->prims);
    s->prims = NULL;
    s->count = s->cap = 0;
}

static rv_prim *push(rv_scene *s, rv_kind kind, kyu_color color) {
    if (s->count == s->cap) {
        int cap = s->cap ? 2 * s->cap : 256;
        rv_prim *p = realloc(s->prims, (size_t)cap * sizeof *p);
        if (!p) {
            s->oom = true;
            return NULL;
        }
        s->prims = p;
        s->cap = cap;
    }
    rv_prim *p = &s->prims[s->count++];
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->color = color;
    return p;
}

static float view_depth(const rv_scene *s, vec3s p) {
    return glms_vec3_dot(glms_vec3_sub(p, s->cam.eye), s->cam.fwd);
}

void rv_add_sphere(rv_scene *s, vec3s c, float r, kyu_color color) {
    rv_prim *p = push(s, RV_SPHERE, color);
    if (!p) return;
    p->p[0] = c;
    p->radius = r;
    p->depth = view_depth(s, c);
}

void rv_add_turned_sphere(rv_scene *s, vec3s c, float r, kyu_color color, versors rotation) {
    rv_add_sphere(s, c, r, color);
    if (s->oom || s->count == 0) return;
    rv_prim *p = &s->prims[s->count - 1];
    p->p[1] = glms_quat_rotatev(rotation, (vec3s){{1.0f, 0.0f, 0.0f}}); // the stripe's plane: its
    p->p[2] = glms_quat_rotatev(rotation, (vec3s){{0.0f, 0.0f, 1.0f}}); // own x and z axes
    p->n = 1;
}

void rv_add_segment(rv_scene *s, vec3s a, vec3s b, kyu_color color) {
    rv_prim *p = push(s, RV_SEGMENT, color);
    if (!p) return;
    p->p[0] = a;
    p->p[1] = b;
    p->n = 2;
    // A line lying on a sphere would be hidden by it at equal depth: pull it slightly forward.
    p->depth = view_depth(s, glms_vec3_scale(glms_vec3_add(a, b), 0.5f)) - 1e-3f;
}

void rv_add_face(rv_scene *s, const vec3s *v, int n, kyu_color color, bool filled) {
    rv_prim *p = push(s, RV_FACE, color);
    if (!p) return;
    vec3s c = glms_vec3_zero();
    float longest = 0.0f;
    for (int k = 0; k < n; k++) {
        p->p[k] = v[k];
        c = glms_vec3_add(c, v[k]);
        longest = fmaxf(longest, glms_vec3_norm(glms_vec3_sub(v[k], v[(k + 1) % n])));
    }
    p->n = n;
    p->filled = filled;
    p->depth = view_depth(s, glms_vec3_scale(c, 1.0f / (float)n));
    // Painter's order fails for faces as large as the scene (a floor's centre is nearer than the
    // balls at its back), so such faces are painted first, as a backdrop.
    p->background = filled && longest > 0.9f * s->scene_radius;
}

// ---- colours -------------------------------------------------------------------------------------

static kyu_color hsv(float h, float sat, float val) {
    // Each channel is a clamped triangle wave of the hue (the usual hexcone).
    float r = fabsf(h * 6.0f - 3.0f) - 1.0f;
    float g = 2.0f - fabsf(h * 6.0f - 2.0f);
    float b = 2.0f - fabsf(h * 6.0f - 4.0f);
    r = glm_clamp(r, 0.0f, 1.0f), g = glm_clamp(g, 0.0f, 1.0f), b = glm_clamp(b, 0.0f, 1.0f);
    kyu_color c = {val * (1.0f - sat + sat * r), val * (1.0f - sat + sat * g), val * (1.0f - sat + sat * b),
                   1.0f};
    return c;
}

kyu_color rv_body_color(int id, bool awake) {
    float h = fmodf(0.08f + (float)id * 0.618034f, 1.0f);
    kyu_color c = hsv(h, 0.6f, 0.92f);
    if (!awake) c.r *= 0.3f, c.g *= 0.3f, c.b *= 0.3f; // sleeping: dark, as kyu's debug draw shades it
    return c;
}

// ---- debug-draw callbacks ------------------------------------------------------------------------

static void dd_sphere(vec3s c, float r, kyu_color color, void *ctx) {
    rv_scene *s = ctx;
    if (s->dd_mode & RV_DD_SPHERES) rv_add_sphere(s, c, r, color);
}

static void dd_segment(vec3s a, vec3s b, kyu_color color, void *ctx) { rv_add_segment(ctx, a, b, color); }

static void dd_point(vec3s p, float size, kyu_color color, void *ctx) {
    rv_scene *s = ctx;
    rv_prim *q = push(s, RV_POINT, color);
    if (!q) return;
    q->p[0] = p;
    q->radius = size;
    q->depth = view_depth(s, p) - 1e-3f;
}

// The 6 faces of a box as corner indices (corner bit k set: +half extent along axis k), outward.
static const int box_faces[6][4] = {
    {0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5},
};

static void box_corners(const kyu_box *box, vec3s out[8]) {
    for (int k = 0; k < 8; k++) {
        vec3s local = {{(k & 1) ? box->half_extents.x : -box->half_extents.x,
                        (k & 2) ? box->half_extents.y : -box->half_extents.y,
                        (k & 4) ? box->half_extents.z : -box->half_extents.z}};
        out[k] = glms_vec3_add(box->center, glms_mat3_mulv(box->rotation, local));
    }
}

static void dd_box(const kyu_box *box, kyu_color color, void *ctx) {
    rv_scene *s = ctx;
    vec3s c[8];
    box_corners(box, c);
    if (s->dd_mode & RV_DD_FILL_BOXES) {
        s->colliders_drawn++;
        for (int f = 0; f < 6; f++) {
            vec3s q[4] = {c[box_faces[f][0]], c[box_faces[f][1]], c[box_faces[f][2]], c[box_faces[f][3]]};
            rv_add_face(s, q, 4, color, true);
        }
        return;
    }
    static const int edges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                     {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
    for (int e = 0; e < 12; e++) rv_add_segment(s, c[edges[e][0]], c[edges[e][1]], color);
}

static void dd_capsule(vec3s a, vec3s b, float r, kyu_color color, void *ctx) {
    rv_scene *s = ctx;
    rv_prim *p = push(s, RV_CAPSULE, color);
    if (!p) return;
    p->p[0] = a;
    p->p[1] = b;
    p->radius = r;
    p->depth = view_depth(s, glms_vec3_scale(glms_vec3_add(a, b), 0.5f)) - r;
}

static void dd_triangle(vec3s a, vec3s b, vec3s c, kyu_color color, void *ctx) {
    rv_scene *s = ctx;
    vec3s q[3] = {a, b, c};
    s->colliders_drawn++;
    rv_add_face(s, q, 3, color, true);
}

static void dd_text(vec3s p, const char *text, kyu_color color, void *ctx) {
    rv_scene *s = ctx;
    rv_prim *q = push(s, RV_TEXT, color);
    if (!q) return;
    q->p[0] = p;
    snprintf(q->text, sizeof q->text, "%s", text);
    q->depth = view_depth(s, p) - 1e-2f;
}

kyu_debug_draw rv_debug_draw(rv_scene *s, uint32_t flags) {
    kyu_debug_draw d = kyu_debug_draw_default();
    d.draw_sphere = dd_sphere;
    d.draw_segment = dd_segment;
    d.draw_point = dd_point;
    d.draw_box = dd_box;
    d.draw_capsule = dd_capsule;
    d.draw_triangle = dd_triangle;
    d.draw_text = dd_text;
    d.flags = flags;
    d.context = s;
    d.point_size = 4.0f;
    return d;
}

// ---- painting ------------------------------------------------------------------------------------

static void set_color(cairo_t *cr, kyu_color c, double alpha_scale) {
    cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a * alpha_scale);
}

static void paint_sphere(const rv_scene *s, cairo_t *cr, const rv_prim *p) {
    double x, y, z;
    if (!rv_project(&s->cam, p->p[0], &x, &y, &z)) return;
    double R = screen_radius(&s->cam, p->radius, z);
    if (R < 0.3) return;
    kyu_color c = p->color;
    // Light from the upper left: a highlight off-centre, the base colour, a darker rim.
    cairo_pattern_t *g = cairo_pattern_create_radial(x - 0.38 * R, y - 0.42 * R, 0.06 * R, x, y, R);
    // The highlight scales with the colour, so a dark (sleeping) body stays dark all over.
    cairo_pattern_add_color_stop_rgb(g, 0.0, fmin(1.0, 1.5 * c.r + 0.1), fmin(1.0, 1.5 * c.g + 0.1),
                                     fmin(1.0, 1.5 * c.b + 0.1));
    cairo_pattern_add_color_stop_rgb(g, 0.45, c.r, c.g, c.b);
    cairo_pattern_add_color_stop_rgb(g, 1.0, 0.35 * c.r, 0.35 * c.g, 0.35 * c.b);
    cairo_set_source(cr, g);
    cairo_arc(cr, x, y, R, 0.0, 2.0 * RV_PI);
    cairo_fill_preserve(cr);
    cairo_pattern_destroy(g);
    cairo_set_source_rgba(cr, 0.0, 0.0, 0.0, 0.35);
    cairo_set_line_width(cr, R > 6.0 ? 0.8 : 0.4);
    cairo_stroke(cr);
    if (p->n != 1 || R < 3.0) return;
    // The stripe: the body's equator (its x-z plane), the half that faces the eye, so a rolling
    // ball is seen to roll.
    vec3s to_eye = s->cam.ortho ? glms_vec3_negate(s->cam.fwd) : glms_vec3_sub(s->cam.eye, p->p[0]);
    cairo_set_source_rgba(cr, 0.35 * c.r, 0.35 * c.g, 0.35 * c.b, 1.0);
    cairo_set_line_width(cr, fmax(1.0, 0.16 * R));
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    bool drawing = false;
    for (int k = 0; k <= 64; k++) {
        double a = 2.0 * RV_PI * k / 64.0;
        vec3s d =
            glms_vec3_add(glms_vec3_scale(p->p[1], (float)cos(a)), glms_vec3_scale(p->p[2], (float)sin(a)));
        double px, py, pz;
        bool front = glms_vec3_dot(d, to_eye) > 0.0f;
        if (!front || !rv_project(&s->cam, glms_vec3_add(p->p[0], glms_vec3_scale(d, 0.999f * p->radius)),
                                  &px, &py, &pz)) {
            drawing = false;
            continue;
        }
        if (drawing)
            cairo_line_to(cr, px, py);
        else
            cairo_move_to(cr, px, py);
        drawing = true;
    }
    cairo_stroke(cr);
}

static bool path_of(const rv_scene *s, cairo_t *cr, const vec3s *v, int n) {
    cairo_new_path(cr);
    for (int k = 0; k < n; k++) {
        double x, y, z;
        if (!rv_project(&s->cam, v[k], &x, &y, &z)) return false;
        if (k == 0)
            cairo_move_to(cr, x, y);
        else
            cairo_line_to(cr, x, y);
    }
    cairo_close_path(cr);
    return true;
}

static void paint_face(const rv_scene *s, cairo_t *cr, const rv_prim *p) {
    vec3s e1 = glms_vec3_sub(p->p[1], p->p[0]), e2 = glms_vec3_sub(p->p[2], p->p[0]);
    vec3s n = glms_vec3_cross(e1, e2);
    if (glms_vec3_norm(n) <= 0.0f) return;
    n = glms_vec3_normalize(n);
    vec3s to_eye = s->cam.ortho ? glms_vec3_negate(s->cam.fwd) : glms_vec3_sub(s->cam.eye, p->p[0]);
    float facing = glms_vec3_dot(n, to_eye);
    if (p->n == 4 && facing < 0.0f) return; // a box's back face: hidden by its front
    if (!path_of(s, cr, p->p, p->n)) return;
    vec3s light = glms_vec3_normalize((vec3s){{-0.4f, 1.0f, 0.6f}});
    float lambert = 0.55f + 0.45f * fabsf(glms_vec3_dot(n, light));
    kyu_color c = p->color;
    // A backdrop (floor, plane) is opaque and has no outline: its triangles' diagonals would show.
    cairo_set_source_rgba(cr, c.r * lambert, c.g * lambert, c.b * lambert,
                          (p->background ? 1.0 : 0.55) * c.a);
    if (p->background) { // without antialiasing, so the two triangles of a plane show no seam
        cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE);
        cairo_fill(cr);
        cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT);
        return;
    }
    cairo_fill_preserve(cr);
    set_color(cr, (kyu_color){0.2f * c.r, 0.2f * c.g, 0.2f * c.b, 1.0f}, 0.5);
    cairo_set_line_width(cr, 0.6);
    cairo_stroke(cr);
}

static void paint_segment(const rv_scene *s, cairo_t *cr, const rv_prim *p) {
    double x0, y0, x1, y1, z;
    if (!rv_project(&s->cam, p->p[0], &x0, &y0, &z) || !rv_project(&s->cam, p->p[1], &x1, &y1, &z)) return;
    set_color(cr, p->color, 1.0);
    cairo_set_line_width(cr, 1.2);
    cairo_move_to(cr, x0, y0);
    cairo_line_to(cr, x1, y1);
    cairo_stroke(cr);
}

static void paint_capsule(const rv_scene *s, cairo_t *cr, const rv_prim *p) {
    double x0, y0, x1, y1, z0, z1;
    if (!rv_project(&s->cam, p->p[0], &x0, &y0, &z0) || !rv_project(&s->cam, p->p[1], &x1, &y1, &z1)) return;
    double R = 0.5 * (screen_radius(&s->cam, p->radius, z0) + screen_radius(&s->cam, p->radius, z1));
    double th = atan2(y1 - y0, x1 - x0);
    cairo_new_path(cr); // the screen outline of a capsule: two half circles joined by tangents
    cairo_arc(cr, x1, y1, R, th - 0.5 * RV_PI, th + 0.5 * RV_PI);
    cairo_arc(cr, x0, y0, R, th + 0.5 * RV_PI, th + 1.5 * RV_PI);
    cairo_close_path(cr);
    set_color(cr, p->color, 0.18);
    cairo_fill_preserve(cr);
    set_color(cr, p->color, 0.9);
    cairo_set_line_width(cr, 1.0);
    cairo_stroke(cr);
}

static void paint_point(const rv_scene *s, cairo_t *cr, const rv_prim *p) {
    double x, y, z;
    if (!rv_project(&s->cam, p->p[0], &x, &y, &z)) return;
    set_color(cr, p->color, 1.0);
    cairo_arc(cr, x, y, 0.5 * p->radius, 0.0, 2.0 * RV_PI);
    cairo_fill(cr);
}

static void paint_text(const rv_scene *s, cairo_t *cr, const rv_prim *p) {
    double x, y, z;
    if (!rv_project(&s->cam, p->p[0], &x, &y, &z)) return;
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 10.0);
    set_color(cr, p->color, 1.0);
    cairo_move_to(cr, x + 3.0, y - 3.0);
    cairo_show_text(cr, p->text);
}

static void paint_prim(const rv_scene *s, cairo_t *cr, const rv_prim *p) {
    switch (p->kind) {
    case RV_SPHERE:
        paint_sphere(s, cr, p);
        break;
    case RV_FACE:
        paint_face(s, cr, p);
        break;
    case RV_SEGMENT:
        paint_segment(s, cr, p);
        break;
    case RV_CAPSULE:
        paint_capsule(s, cr, p);
        break;
    case RV_POINT:
        paint_point(s, cr, p);
        break;
    case RV_TEXT:
        paint_text(s, cr, p);
        break;
    }
}

static int far_first(const void *x, const void *y) {
    const rv_prim *a = x, *b = y;
    if (a->background != b->background) return a->background ? -1 : 1;
    if (a->depth != b->depth) return a->depth > b->depth ? -1 : 1;
    return (int)a->kind - (int)b->kind;
}

// Bounds of the spheres in the horizontal plane, for the floor.
static void sphere_extent(const rv_scene *s, float lo[2], float hi[2]) {
    lo[0] = lo[1] = 1e30f;
    hi[0] = hi[1] = -1e30f;
    for (int i = 0; i < s->count; i++) {
        const rv_prim *p = &s->prims[i];
        if (p->kind != RV_SPHERE) continue;
        lo[0] = fminf(lo[0], p->p[0].x - p->radius), hi[0] = fmaxf(hi[0], p->p[0].x + p->radius);
        lo[1] = fminf(lo[1], p->p[0].z - p->radius), hi[1] = fmaxf(hi[1], p->p[0].z + p->radius);
    }
    if (lo[0] > hi[0]) lo[0] = lo[1] = -1.0f, hi[0] = hi[1] = 1.0f;
}

// A floor of our own (when kyu drew no colliders): a light square with a 1 m grid.
static void paint_floor(const rv_scene *s, cairo_t *cr) {
    float lo[2], hi[2];
    sphere_extent(s, lo, hi);
    float pad = fmaxf(1.0f, 0.35f * fmaxf(hi[0] - lo[0], hi[1] - lo[1]));
    float x0 = floorf(lo[0] - pad), x1 = ceilf(hi[0] + pad), z0 = floorf(lo[1] - pad),
          z1 = ceilf(hi[1] + pad);
    float y = s->ground_y;
    vec3s q[4] = {{{x0, y, z0}}, {{x1, y, z0}}, {{x1, y, z1}}, {{x0, y, z1}}};
    if (!path_of(s, cr, q, 4)) return;
    cairo_set_source_rgb(cr, 0.86, 0.87, 0.85);
    cairo_fill(cr);
    float step = (x1 - x0 > 40.0f || z1 - z0 > 40.0f) ? 5.0f : 1.0f;
    cairo_set_source_rgba(cr, 0.0, 0.0, 0.0, 0.12);
    cairo_set_line_width(cr, 0.6);
    for (float x = x0; x <= x1 + 1e-3f; x += step) {
        vec3s a = {{x, y, z0}}, b = {{x, y, z1}};
        rv_prim seg = {.kind = RV_SEGMENT, .p = {a, b}, .color = {0.0f, 0.0f, 0.0f, 0.12f}};
        paint_segment(s, cr, &seg);
    }
    for (float z = z0; z <= z1 + 1e-3f; z += step) {
        rv_prim seg = {
            .kind = RV_SEGMENT, .p = {{{x0, y, z}}, {{x1, y, z}}}, .color = {0.0f, 0.0f, 0.0f, 0.12f}};
        paint_segment(s, cr, &seg);
    }
}

// Soft shadows straight below each sphere: a disc on the ground, fainter and wider with height.
static void paint_shadows(const rv_scene *s, cairo_t *cr) {
    for (int i = 0; i < s->count; i++) {
        const rv_prim *p = &s->prims[i];
        if (p->kind != RV_SPHERE) continue;
        float h = p->p[0].y - p->radius - s->ground_y;
        if (h < -p->radius) continue; // below the floor: nothing to shade
        float k = 1.0f / (1.0f + fmaxf(h, 0.0f) / (4.0f * p->radius));
        vec3s ring[16];
        for (int j = 0; j < 16; j++) {
            float a = (float)j * 2.0f * (float)RV_PI / 16.0f, r = p->radius * (0.9f + 0.3f * (1.0f - k));
            ring[j] = (vec3s){{p->p[0].x + r * cosf(a), s->ground_y + 1e-3f, p->p[0].z + r * sinf(a)}};
        }
        cairo_new_path(cr);
        for (int j = 0; j < 16; j++) {
            double x, y, z;
            if (!rv_project(&s->cam, ring[j], &x, &y, &z)) break;
            if (j == 0)
                cairo_move_to(cr, x, y);
            else
                cairo_line_to(cr, x, y);
        }
        cairo_close_path(cr);
        cairo_set_source_rgba(cr, 0.0, 0.0, 0.0, 0.28 * k);
        cairo_fill(cr);
    }
}

static void paint_background(const rv_scene *s, cairo_t *cr) {
    cairo_pattern_t *g = cairo_pattern_create_linear(0.0, 0.0, 0.0, s->cam.height);
    cairo_pattern_add_color_stop_rgb(g, 0.0, 0.80, 0.86, 0.93);
    cairo_pattern_add_color_stop_rgb(g, 1.0, 0.97, 0.97, 0.98);
    cairo_set_source(cr, g);
    cairo_paint(cr);
    cairo_pattern_destroy(g);
}

int rv_paint(rv_scene *s, cairo_t *cr) {
    paint_background(s, cr);
    if (s->floor && s->colliders_drawn == 0) paint_floor(s, cr);
    qsort(s->prims, (size_t)s->count, sizeof *s->prims, far_first);
    int first = 0;
    while (first < s->count && s->prims[first].background) paint_prim(s, cr, &s->prims[first++]);
    if (s->shadows) paint_shadows(s, cr);
    for (int i = first; i < s->count; i++) paint_prim(s, cr, &s->prims[i]);
    return cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : -1;
}

int rv_write_png(rv_scene *s, const char *path, char *err, size_t errlen) {
    if (s->oom) {
        snprintf(err, errlen, "out of memory collecting the primitives");
        return -1;
    }
    cairo_surface_t *surf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, s->cam.width, s->cam.height);
    cairo_t *cr = cairo_create(surf);
    int rc = rv_paint(s, cr);
    cairo_status_t st = cairo_status(cr);
    cairo_destroy(cr);
    if (rc == 0) st = cairo_surface_write_to_png(surf, path);
    cairo_surface_destroy(surf);
    if (st != CAIRO_STATUS_SUCCESS) {
        snprintf(err, errlen, "%s: %s", path, cairo_status_to_string(st));
        return -1;
    }
    return 0;
}
