// SPDX-License-Identifier: MIT
// OpenGL 2.1 fixed-function drawing of kyu_world_draw's primitives. Fixed-function GL runs on any
// driver, Mesa's software one under Xvfb included; immediate mode and display lists are plenty for
// a few thousand spheres. Lights are grey, with no specular term, so a lit pixel is the draw colour
// times a factor: the headless test recognises a sphere by the ratios of its colour.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL_opengl.h>

#include "render.h"

#define PI_F 3.14159265f

// ---- meshes -------------------------------------------------------------------------------------

static unsigned sphere_list(int slices, int stacks) {
    unsigned id = glGenLists(1);
    glNewList(id, GL_COMPILE);
    for (int i = 0; i < stacks; i++) {
        float t0 = PI_F * (float)i / (float)stacks, t1 = PI_F * (float)(i + 1) / (float)stacks;
        glBegin(GL_TRIANGLE_STRIP);
        for (int j = 0; j <= slices; j++) {
            float p = 2.0f * PI_F * (float)j / (float)slices;
            for (int k = 0; k < 2; k++) {
                float t = k ? t1 : t0;
                float x = sinf(t) * cosf(p), y = cosf(t), z = sinf(t) * sinf(p);
                glNormal3f(x, y, z);
                glVertex3f(x, y, z);
            }
        }
        glEnd();
    }
    glEndList();
    return id;
}

// A band of half width w (radians) round the equator of a sphere of radius 1.004 (just outside
// the sphere, so it is never hidden by its own faces): drawn in a darker shade of the sphere's colour,
// it turns with the body, so a rolling ball is seen to roll.
static unsigned stripe_list(int slices, float w) {
    unsigned id = glGenLists(1);
    glNewList(id, GL_COMPILE);
    glBegin(GL_TRIANGLE_STRIP);
    for (int j = 0; j <= slices; j++) {
        float p = 2.0f * PI_F * (float)j / (float)slices;
        for (int k = 0; k < 2; k++) {
            float t = PI_F / 2.0f + (k ? w : -w);
            float x = sinf(t) * cosf(p), y = cosf(t), z = sinf(t) * sinf(p);
            glNormal3f(x, y, z);
            glVertex3f(1.004f * x, 1.004f * y, 1.004f * z);
        }
    }
    glEnd();
    glEndList();
    return id;
}

// A cylinder of radius 1 from z = 0 to z = 1 (no caps: capsules close it with spheres).
static unsigned cylinder_list(int slices) {
    unsigned id = glGenLists(1);
    glNewList(id, GL_COMPILE);
    glBegin(GL_TRIANGLE_STRIP);
    for (int j = 0; j <= slices; j++) {
        float p = 2.0f * PI_F * (float)j / (float)slices, x = cosf(p), y = sinf(p);
        glNormal3f(x, y, 0.0f);
        glVertex3f(x, y, 0.0f);
        glVertex3f(x, y, 1.0f);
    }
    glEnd();
    glEndList();
    return id;
}

int render_init(renderer *r) {
    memset(r, 0, sizeof *r);
    r->sphere_list[0] = sphere_list(20, 14);
    r->sphere_list[1] = sphere_list(10, 7);
    r->stripe_list[0] = stripe_list(40, 0.12f);
    r->stripe_list[1] = stripe_list(20, 0.16f);
    r->cylinder_list = cylinder_list(16);
    r->interpolate = 1;
    return r->sphere_list[0] && r->sphere_list[1] && r->stripe_list[0] && r->stripe_list[1] &&
                   r->cylinder_list
               ? 0
               : -1;
}

void render_free(renderer *r) {
    free(r->bodies);
    r->bodies = NULL;
}

// ---- frame --------------------------------------------------------------------------------------

static void setup_lights(void) {
    const float amb[4] = {0.28f, 0.28f, 0.28f, 1.0f}, dif[4] = {0.72f, 0.72f, 0.72f, 1.0f};
    const float none[4] = {0.0f, 0.0f, 0.0f, 1.0f}, dir[4] = {0.35f, 0.85f, 0.4f, 0.0f};
    glLightModelfv(GL_LIGHT_MODEL_AMBIENT, none);
    glLightModeli(GL_LIGHT_MODEL_TWO_SIDE, GL_TRUE); // meshes are two-sided surfaces
    glLightfv(GL_LIGHT0, GL_AMBIENT, amb);
    glLightfv(GL_LIGHT0, GL_DIFFUSE, dif);
    glLightfv(GL_LIGHT0, GL_SPECULAR, none);
    glLightfv(GL_LIGHT0, GL_POSITION, dir); // in view space: the light comes from over the shoulder
    glEnable(GL_LIGHT0);
    glColorMaterial(GL_FRONT_AND_BACK, GL_AMBIENT_AND_DIFFUSE);
    glEnable(GL_COLOR_MATERIAL);
    glEnable(GL_NORMALIZE);
}

void render_begin(renderer *r, const camera *cam, int width, int height) {
    r->width = width;
    r->height = height;
    glViewport(0, 0, width, height);
    glClearColor(0.11f, 0.12f, 0.15f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    float cp = cosf(cam->pitch);
    vec3s eye = {{cam->target.x + cam->distance * cp * sinf(cam->yaw),
                  cam->target.y + cam->distance * sinf(cam->pitch),
                  cam->target.z + cam->distance * cp * cosf(cam->yaw)}};
    r->view = glms_lookat(eye, cam->target, (vec3s){{0.0f, 1.0f, 0.0f}});
    r->proj = glms_perspective(0.8f, (float)width / (float)(height > 0 ? height : 1), 0.05f, 500.0f);
    glMatrixMode(GL_PROJECTION);
    glLoadMatrixf(r->proj.raw[0]);
    glMatrixMode(GL_MODELVIEW);
    glLoadIdentity();
    setup_lights();
    glLoadMatrixf(r->view.raw[0]);
    glEnable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    r->text_count = 0;
    r->sample_count = 0;
}

void render_mark_visible(renderer *r) {
    float A = r->proj.m22, B = r->proj.m32; // perspective: window depth d gives eye distance B / (2d - 1 + A)
    for (int i = 0; i < r->sample_count; i++) {
        screen_sphere *s = &r->samples[i];
        int px = (int)s->x, py = r->height - 1 - (int)s->y;
        float d = 1.0f;
        s->visible = 0;
        if (px < 0 || py < 0 || px >= r->width || py >= r->height) continue;
        glReadPixels(px, py, 1, 1, GL_DEPTH_COMPONENT, GL_FLOAT, &d);
        float seen = B / (2.0f * d - 1.0f + A);
        s->visible = seen >= s->distance - 1.5f * s->metres; // its own front is at distance - metres
    }
}

int render_project(const renderer *r, vec3s p, float *x, float *y) {
    vec4s c = glms_mat4_mulv(glms_mat4_mul(r->proj, r->view), (vec4s){{p.x, p.y, p.z, 1.0f}});
    if (!(c.w > 1e-6f)) return 0;
    *x = (c.x / c.w * 0.5f + 0.5f) * (float)r->width;
    *y = (0.5f - c.y / c.w * 0.5f) * (float)r->height;
    return 1;
}

// ---- solid primitives ---------------------------------------------------------------------------

static void color(kyu_color c) { glColor4f(c.r, c.g, c.b, c.a); }

static void sphere_at(const renderer *r, vec3s c, float radius) {
    glPushMatrix();
    glTranslatef(c.x, c.y, c.z);
    glScalef(radius, radius, radius);
    glCallList(r->sphere_list[r->coarse]);
    glPopMatrix();
}

// Where the k-th sphere of the frame is drawn: its body's interpolated position, if the k-th body
// is where the sphere is (anything else means the order assumption broke: keep the given centre),
// and its orientation (identity when unknown).
static vec3s body_center(renderer *r, vec3s c, versors *rot) {
    int k = r->sphere_index++;
    *rot = glms_quat_identity();
    vec3s p, q;
    if (k >= r->body_count || kyu_body_get_position(r->world, r->bodies[k], &p) != KYU_OK ||
        !glms_vec3_eqv(p, c))
        return c;
    if (r->interpolate ? kyu_body_get_interpolated_rotation(r->world, r->bodies[k], rot) != KYU_OK
                       : kyu_body_get_rotation(r->world, r->bodies[k], rot) != KYU_OK)
        *rot = glms_quat_identity();
    if (!r->interpolate || kyu_body_get_interpolated_position(r->world, r->bodies[k], &q) != KYU_OK) return c;
    return q;
}

static void stripe_at(const renderer *r, vec3s c, float radius, versors rot, kyu_color col) {
    glColor4f(0.55f * col.r, 0.55f * col.g, 0.55f * col.b, col.a);
    mat4s m = glms_quat_mat4(rot);
    glPushMatrix();
    glTranslatef(c.x, c.y, c.z);
    glMultMatrixf(m.raw[0]);
    glScalef(radius, radius, radius);
    glCallList(r->stripe_list[r->coarse]);
    glPopMatrix();
}

static void remember_sphere(renderer *r, vec3s c, float radius, kyu_color col) {
    float x, y, x2, y2;
    if (r->sample_count >= RENDER_MAX_SAMPLES || !render_project(r, c, &x, &y)) return;
    vec3s right = {{r->view.m00, r->view.m10, r->view.m20}}; // the camera's right axis in the world
    if (!render_project(r, glms_vec3_add(c, glms_vec3_scale(right, radius)), &x2, &y2)) return;
    vec4s eye = glms_mat4_mulv(r->view, (vec4s){{c.x, c.y, c.z, 1.0f}});
    r->samples[r->sample_count++] = (screen_sphere){x, y, hypotf(x2 - x, y2 - y), -eye.z, radius, 0, col};
}

static void cb_sphere(vec3s c, float radius, kyu_color col, void *ctx) {
    renderer *r = ctx;
    versors rot;
    c = body_center(r, c, &rot);
    color(col);
    sphere_at(r, c, radius);
    stripe_at(r, c, radius, rot, col);
    remember_sphere(r, c, radius, col);
}

// The 4x4 matrix of a kyu_box's frame (rotation columns, then the centre).
static void box_matrix(const kyu_box *b, float m[16]) {
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 3; i++) m[4 * j + i] = b->rotation.col[j].raw[i] * b->half_extents.raw[j];
        m[4 * j + 3] = 0.0f;
    }
    m[12] = b->center.x, m[13] = b->center.y, m[14] = b->center.z, m[15] = 1.0f;
}

static void cb_box_solid(const kyu_box *b, kyu_color col, void *ctx) {
    (void)ctx;
    static const float n[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    float m[16];
    box_matrix(b, m);
    glPushMatrix();
    glMultMatrixf(m);
    color(col);
    glBegin(GL_QUADS);
    for (int f = 0; f < 6; f++) {
        int a = f / 2, u = (a + 1) % 3, v = (a + 2) % 3;
        float s = n[f][a];
        glNormal3fv(n[f]);
        for (int k = 0; k < 4; k++) {
            float p[3];
            p[a] = s;
            p[u] = (k == 1 || k == 2) ? 1.0f : -1.0f;
            p[v] = (k >= 2) ? 1.0f : -1.0f;
            glVertex3fv(p);
        }
    }
    glEnd();
    glPopMatrix();
}

static void capsule_body(const renderer *r, vec3s a, vec3s b, float radius, kyu_color col);

static void cb_capsule(vec3s a, vec3s b, float radius, kyu_color col, void *ctx) {
    renderer *r = ctx;
    int xray = !glIsEnabled(GL_DEPTH_TEST);
    if (xray) { // a swept volume: see-through, but behind what is in front of it
        glEnable(GL_DEPTH_TEST);
        glDepthMask(GL_FALSE);
    }
    capsule_body(r, a, b, radius, col);
    if (xray) {
        glDepthMask(GL_TRUE);
        glDisable(GL_DEPTH_TEST);
    }
}

static void capsule_body(const renderer *r, vec3s a, vec3s b, float radius, kyu_color col) {
    color(col);
    sphere_at(r, a, radius);
    sphere_at(r, b, radius);
    vec3s d = glms_vec3_sub(b, a);
    float len = glms_vec3_norm(d);
    if (!(len > 1e-6f)) return;
    vec3s z = glms_vec3_scale(d, 1.0f / len);
    vec3s x =
        glms_vec3_normalize(glms_vec3_cross(fabsf(z.y) < 0.9f ? (vec3s){{0, 1, 0}} : (vec3s){{1, 0, 0}}, z));
    vec3s y = glms_vec3_cross(z, x);
    float m[16] = {x.x * radius, x.y * radius, x.z * radius, 0, y.x * radius, y.y * radius, y.z * radius, 0,
                   d.x,          d.y,          d.z,          0, a.x,          a.y,          a.z,          1};
    glPushMatrix();
    glMultMatrixf(m);
    glCallList(r->cylinder_list);
    glPopMatrix();
}

static void cb_triangle(vec3s a, vec3s b, vec3s c, kyu_color col, void *ctx) {
    (void)ctx;
    vec3s n = glms_vec3_cross(glms_vec3_sub(b, a), glms_vec3_sub(c, a));
    color(col);
    glBegin(GL_TRIANGLES);
    glNormal3f(n.x, n.y, n.z);
    glVertex3f(a.x, a.y, a.z);
    glVertex3f(b.x, b.y, b.z);
    glVertex3f(c.x, c.y, c.z);
    glEnd();
}

// ---- lines, points, text ------------------------------------------------------------------------

static void cb_segment(vec3s a, vec3s b, kyu_color col, void *ctx) {
    (void)ctx;
    int lit = glIsEnabled(GL_LIGHTING);
    glDisable(GL_LIGHTING);
    color(col);
    glBegin(GL_LINES);
    glVertex3f(a.x, a.y, a.z);
    glVertex3f(b.x, b.y, b.z);
    glEnd();
    if (lit) glEnable(GL_LIGHTING);
}

static void cb_point(vec3s p, float size, kyu_color col, void *ctx) {
    (void)ctx;
    int lit = glIsEnabled(GL_LIGHTING);
    glDisable(GL_LIGHTING);
    glPointSize(size);
    color(col);
    glBegin(GL_POINTS);
    glVertex3f(p.x, p.y, p.z);
    glEnd();
    if (lit) glEnable(GL_LIGHTING);
}

static void cb_box_wire(const kyu_box *b, kyu_color col, void *ctx) {
    (void)ctx;
    float m[16];
    box_matrix(b, m);
    glPushMatrix();
    glMultMatrixf(m);
    color(col);
    glBegin(GL_LINES);
    for (int a = 0; a < 3; a++) // the 4 edges along each axis
        for (int k = 0; k < 4; k++) {
            float p[3], q[3];
            int u = (a + 1) % 3, v = (a + 2) % 3;
            p[a] = -1.0f, q[a] = 1.0f;
            p[u] = q[u] = (k & 1) ? 1.0f : -1.0f;
            p[v] = q[v] = (k & 2) ? 1.0f : -1.0f;
            glVertex3fv(p);
            glVertex3fv(q);
        }
    glEnd();
    glPopMatrix();
}

static void cb_text(vec3s p, const char *s, kyu_color col, void *ctx) {
    (void)col;
    renderer *r = ctx;
    if (r->text_count >= RENDER_MAX_TEXTS) return;
    r->texts[r->text_count].p = p;
    snprintf(r->texts[r->text_count++].s, sizeof r->texts[0].s, "%s", s);
}

// ---- the world ----------------------------------------------------------------------------------

static void list_bodies(renderer *r, const kyu_world *w) {
    int n = kyu_world_get_bodies(w, NULL, 0);
    if (n > r->body_cap) {
        kyu_body_id *b = realloc(r->bodies, (size_t)n * sizeof *b);
        if (!b)
            n = 0;
        else
            r->bodies = b, r->body_cap = n;
    }
    r->body_count = n > 0 ? kyu_world_get_bodies(w, r->bodies, n) : 0;
    r->sphere_index = 0;
    r->world = w;
    r->coarse = n > 1500;
}

#define SOLID_LAYERS (KYU_DRAW_SHAPES | KYU_DRAW_SLEEP | KYU_DRAW_ISLANDS)

// Shapes lit with depth; then the debug layers as lines over everything (an x-ray: contacts inside
// a pile stay visible), swept capsules see-through.
void render_world(renderer *r, const kyu_world *w, uint32_t flags) {
    list_bodies(r, w);
    kyu_debug_draw d = kyu_debug_draw_default();
    d.context = r;
    d.plane_extent = 30.0f;
    d.point_size = 3.0f;
    d.flags = flags & SOLID_LAYERS;
    d.draw_sphere = cb_sphere;
    d.draw_box = cb_box_solid;
    d.draw_capsule = cb_capsule;
    d.draw_triangle = cb_triangle;
    d.draw_segment = cb_segment;
    d.draw_point = cb_point;
    glEnable(GL_LIGHTING);
    if (d.flags & KYU_DRAW_SHAPES) kyu_world_draw(w, &d);
    glDisable(GL_LIGHTING);
    d.flags = flags & ~(uint32_t)SOLID_LAYERS;
    if (!d.flags) return;
    d.draw_sphere = NULL;
    d.draw_box = cb_box_wire;
    d.draw_text = cb_text;
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glLineWidth(1.5f);
    kyu_world_draw(w, &d);
    glDisable(GL_BLEND);
    glEnable(GL_DEPTH_TEST);
}

// ---- the 3x5 font -------------------------------------------------------------------------------

// Rows top to bottom, '#' lit. Lowercase letters use the capitals.
static const char *glyph(char ch) {
    static const char *const digits[10] = {
        "####.##.##.####", ".#.##..#..#.###", "###..#####..###", "###..####..####", "#.##.####..#..#",
        "####..###..####", "####..####.####", "###..#..#.#..#.", "####.#####.####", "####.####..####",
    };
    static const char *const letters[26] = {
        ".#.#.#####.##.#", "##.#.###.#.###.", ".###..#..#...##", "##.#.##.##.###.", "####..##.#..###",
        "####..##.#..#..", ".###..#.##.#.##", "#.##.#####.##.#", "###.#..#..#.###", "..#..#..##.#.#.",
        "#.##.###.#.##.#", "#..#..#..#..###", "#.########.##.#", "##.#.##.##.##.#", ".#.#.##.##.#.#.",
        "##.#.###.#..#..", ".#.#.##.###..##", "##.#.###.#.##.#", ".###...#...###.", "###.#..#..#..#.",
        "#.##.##.##.####", "#.##.##.##.#.#.", "#.##.########.#", "#.##.#.#.#.##.#", "#.##.#.#..#..#.",
        "###..#.#.#..###",
    };
    if (ch >= '0' && ch <= '9') return digits[ch - '0'];
    if (ch >= 'a' && ch <= 'z') ch = (char)(ch - 'a' + 'A');
    if (ch >= 'A' && ch <= 'Z') return letters[ch - 'A'];
    switch (ch) {
    case '.':
        return "............#..";
    case ',':
        return ".........#.#...";
    case ':':
        return "....#.....#....";
    case '-':
        return "......###......";
    case '+':
        return "....#.###.#....";
    case '=':
        return "...###...###...";
    case '/':
        return "..#..#.#.#..#..";
    case '%':
        return "#.#..#.#.#..#.#";
    case '(':
        return ".#.#..#..#...#.";
    case ')':
        return ".#...#..#..#.#.";
    case '[':
        return "##.#..#..#..##.";
    case ']':
        return ".##..#..#..#.##";
    case '<':
        return "..#.#.#...#...#";
    case '>':
        return "#...#...#.#.#..";
    case '!':
        return ".#..#..#.....#.";
    case '?':
        return "##...#.#.....#.";
    case '_':
        return "............###";
    case '\'':
        return ".#..#..........";
    case '*':
        return "...#.#.#.#.#...";
    case '#':
        return "#.#####.#####.#";
    default:
        return "...............";
    }
}

float render_text_width(const char *s, float scale) { return (float)strlen(s) * 4.0f * scale; }

static void glyph_quads(float x, float y, float scale, const char *g) {
    for (int i = 0; i < 15 && g[i]; i++) {
        if (g[i] != '#') continue;
        float px = x + (float)(i % 3) * scale, py = y + (float)(i / 3) * scale;
        glVertex2f(px, py);
        glVertex2f(px + scale, py);
        glVertex2f(px + scale, py + scale);
        glVertex2f(px, py + scale);
    }
}

static void begin_2d(const renderer *r) {
    glMatrixMode(GL_PROJECTION);
    glPushMatrix();
    glLoadIdentity();
    glOrtho(0.0, r->width, r->height, 0.0, -1.0, 1.0);
    glMatrixMode(GL_MODELVIEW);
    glPushMatrix();
    glLoadIdentity();
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_LIGHTING);
}

static void end_2d(void) {
    glMatrixMode(GL_PROJECTION);
    glPopMatrix();
    glMatrixMode(GL_MODELVIEW);
    glPopMatrix();
    glEnable(GL_DEPTH_TEST);
}

static void text_quads(float x, float y, float scale, const char *s) {
    for (; *s; s++, x += 4.0f * scale) glyph_quads(x, y, scale, glyph(*s));
}

// A dark shadow one font pixel down-right keeps text readable over anything.
void render_text(const renderer *r, float x, float y, float scale, kyu_color c, const char *s) {
    begin_2d(r);
    glBegin(GL_QUADS);
    glColor4f(0.0f, 0.0f, 0.0f, 1.0f);
    text_quads(x + scale * 0.5f, y + scale * 0.5f, scale, s);
    glColor4f(c.r, c.g, c.b, c.a);
    text_quads(x, y, scale, s);
    glEnd();
    end_2d();
}

// The numbers kyu_world_draw placed in the world, at their projected points.
void render_world_texts(const renderer *r) {
    const kyu_color white = {1.0f, 1.0f, 1.0f, 1.0f};
    for (int i = 0; i < r->text_count; i++) {
        float x, y;
        if (render_project(r, r->texts[i].p, &x, &y))
            render_text(r, x + 4.0f, y - 12.0f, 2.0f, white, r->texts[i].s);
    }
}
