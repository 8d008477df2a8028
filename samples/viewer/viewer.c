// SPDX-License-Identifier: MIT
// kyu's interactive viewer (SDL2 + OpenGL 2.1): a menu of scenes drawn through kyu_world_draw, with
// interpolated bodies, an orbit camera, and keys for every debug layer.
//
//   viewer [--scene NAME] [--frames N] [--dt SECONDS] [--size WxH] [--layers a,b,...]
//          [--report-frame K] [--screenshot FILE.bmp]
//
// --frames quits after N frames; --dt advances every frame by a fixed time instead of the clock
// (the same pictures on a slow machine); --report-frame prints, after frame K is on screen, where
// the largest spheres are (screen pixels) and their colours, then pauses so that the picture holds
// still: the headless test takes a screenshot from outside and looks there.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <SDL.h>
#include <SDL_opengl.h>

#include "render.h"
#include "scenes.h"

static const struct {
    const char *name, *key;
    uint32_t flag;
} layers[] = {
    {"shapes", "F1", KYU_DRAW_SHAPES},     {"sleep", "F2", KYU_DRAW_SLEEP},
    {"islands", "F3", KYU_DRAW_ISLANDS},   {"aabbs", "F4", KYU_DRAW_AABBS},
    {"swept", "F5", KYU_DRAW_SWEPT},       {"grid", "F6", KYU_DRAW_GRID},
    {"contacts", "F7", KYU_DRAW_CONTACTS}, {"impacts", "F8", KYU_DRAW_IMPACTS},
    {"pairs", "F9", KYU_DRAW_PAIRS},       {"velocities", "F10", KYU_DRAW_VELOCITIES},
    {"text", "F11", KYU_DRAW_TEXT},
};
#define LAYER_COUNT (int)(sizeof layers / sizeof layers[0])

typedef struct options {
    const char *scene, *screenshot;
    long frames, report_frame;
    float dt;
    int width, height;
    uint32_t flags;
} options;

typedef struct app {
    options opt;
    SDL_Window *window;
    SDL_GLContext gl;
    renderer r;
    scene s;
    camera cam;
    int scene_index, paused, step_once, help, running;
    uint32_t flags;
    double step_ms, fps; // smoothed
    long frame;
} app;

// ---- options ------------------------------------------------------------------------------------

static int parse_layers(const char *list, uint32_t *flags) {
    *flags = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int found = 0;
        for (int i = 0; i < LAYER_COUNT; i++)
            if (strcmp(tok, layers[i].name) == 0) *flags |= layers[i].flag, found = 1;
        if (!found) return -1;
    }
    return 0;
}

static void usage(FILE *f) {
    fprintf(f, "usage: viewer [--scene NAME] [--frames N] [--dt SECONDS] [--size WxH] [--layers a,b]\n"
               "              [--report-frame K] [--screenshot FILE.bmp]\nscenes:");
    for (int k = 0; k < scene_count; k++) fprintf(f, " %s", scene_list[k].name);
    fprintf(f, "\nlayers:");
    for (int i = 0; i < LAYER_COUNT; i++) fprintf(f, " %s", layers[i].name);
    fprintf(f, "\n");
}

// 0 parsed, 1 --help (the usage went to stdout), -1 a bad command line (said on stderr).
static int parse_options(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->scene = "cannon";
    o->width = 960, o->height = 600;
    o->frames = -1, o->report_frame = -1;
    o->flags = KYU_DRAW_SHAPES | KYU_DRAW_SLEEP;
    for (int i = 1; i < argc; i += 2) { // every option takes a value
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 1;
        }
        int ok = v != NULL;
        if (strcmp(a, "--scene") == 0 && v)
            o->scene = v;
        else if (strcmp(a, "--frames") == 0 && v)
            o->frames = strtol(v, NULL, 10);
        else if (strcmp(a, "--report-frame") == 0 && v)
            o->report_frame = strtol(v, NULL, 10);
        else if (strcmp(a, "--dt") == 0 && v)
            o->dt = strtof(v, NULL), ok = o->dt > 0.0f && o->dt < 1.0f;
        else if (strcmp(a, "--size") == 0 && v)
            ok = sscanf(v, "%dx%d", &o->width, &o->height) == 2 && o->width > 0 && o->height > 0;
        else if (strcmp(a, "--layers") == 0 && v)
            ok = parse_layers(v, &o->flags) == 0;
        else if (strcmp(a, "--screenshot") == 0 && v)
            o->screenshot = v;
        else
            ok = 0;
        if (!ok) {
            if (!v)
                fprintf(stderr, "viewer: %s needs a value\n", a);
            else
                fprintf(stderr, "viewer: bad option or value: %s %s\n", a, v);
            usage(stderr);
            return -1;
        }
    }
    if (scene_find(o->scene) < 0) {
        fprintf(stderr, "viewer: no scene '%s'\n", o->scene);
        usage(stderr);
        return -1;
    }
    return 0;
}

// ---- scenes and input ---------------------------------------------------------------------------

static int load_scene(app *a, int k) {
    if (scene_load(&a->s, k)) {
        fprintf(stderr, "viewer: could not build scene %s\n", scene_list[k].name);
        return -1;
    }
    a->scene_index = k;
    a->cam = scene_list[k].cam;
    a->step_ms = 0.0;
    return 0;
}

static void on_key(app *a, SDL_Keycode key) {
    if (key >= SDLK_1 && key < SDLK_1 + scene_count)
        load_scene(a, (int)(key - SDLK_1));
    else if (key >= SDLK_F1 && key < SDLK_F1 + LAYER_COUNT)
        a->flags ^= layers[key - SDLK_F1].flag;
    else if (key == SDLK_SPACE || key == SDLK_f)
        scene_fire(&a->s);
    else if (key == SDLK_p)
        a->paused = !a->paused;
    else if (key == SDLK_n || key == SDLK_PERIOD)
        a->paused = 1, a->step_once = 1;
    else if (key == SDLK_r)
        load_scene(a, a->scene_index);
    else if (key == SDLK_a)
        a->s.auto_fire = !a->s.auto_fire;
    else if (key == SDLK_i)
        a->r.interpolate = !a->r.interpolate;
    else if (key == SDLK_h)
        a->help = !a->help;
    else if (key == SDLK_TAB)
        load_scene(a, (a->scene_index + 1) % scene_count);
    else if (key == SDLK_ESCAPE || key == SDLK_q)
        a->running = 0;
}

// Left drag orbits, right (or middle) drag pans, the wheel zooms.
static void on_mouse(app *a, const SDL_Event *e) {
    if (e->type == SDL_MOUSEWHEEL) {
        a->cam.distance *= powf(0.88f, (float)e->wheel.y);
        a->cam.distance = fminf(fmaxf(a->cam.distance, 0.5f), 200.0f);
        return;
    }
    if (e->type != SDL_MOUSEMOTION) return;
    float dx = (float)e->motion.xrel, dy = (float)e->motion.yrel;
    if (e->motion.state & SDL_BUTTON_LMASK) {
        a->cam.yaw -= dx * 0.008f;
        a->cam.pitch = fminf(fmaxf(a->cam.pitch + dy * 0.008f, -1.5f), 1.5f);
    } else if (e->motion.state & (SDL_BUTTON_RMASK | SDL_BUTTON_MMASK)) {
        float k = a->cam.distance * 0.0015f;
        vec3s right = {{a->r.view.m00, a->r.view.m10, a->r.view.m20}},
              up = {{a->r.view.m01, a->r.view.m11, a->r.view.m21}};
        a->cam.target = glms_vec3_add(a->cam.target, glms_vec3_scale(right, -dx * k));
        a->cam.target = glms_vec3_add(a->cam.target, glms_vec3_scale(up, dy * k));
    }
}

static void poll(app *a) {
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
        if (e.type == SDL_QUIT)
            a->running = 0;
        else if (e.type == SDL_KEYDOWN)
            on_key(a, e.key.keysym.sym);
        else
            on_mouse(a, &e);
    }
}

// ---- simulation ---------------------------------------------------------------------------------

static double now_ms(void) {
    return (double)SDL_GetPerformanceCounter() * 1000.0 / (double)SDL_GetPerformanceFrequency();
}

// The scene's own logic, then the fixed steps that fit in frame_dt (kyu_world_update keeps the rest
// for the next frame and sets alpha, which the renderer interpolates by).
static void advance(app *a, float frame_dt) {
    if (a->paused && !a->step_once) return;
    if (a->step_once) frame_dt = kyu_world_def_default().fixed_dt; // exactly one step
    a->step_once = 0;
    scene_update(&a->s, frame_dt);
    int steps = 0;
    double t0 = now_ms();
    kyu_world_update(a->s.world, frame_dt, &steps);
    if (steps > 0) {
        double ms = (now_ms() - t0) / steps;
        a->step_ms = a->step_ms == 0.0 ? ms : 0.9 * a->step_ms + 0.1 * ms;
    }
}

// ---- on-screen text -----------------------------------------------------------------------------

static const kyu_color white = {1.0f, 1.0f, 1.0f, 1.0f}, grey = {0.65f, 0.68f, 0.72f, 1.0f};
static const kyu_color on_color = {0.5f, 1.0f, 0.5f, 1.0f};

static void draw_hud(app *a) {
    char line[160];
    render_text(&a->r, 10, 10, 2.0f, white, a->s.desc->title);
    render_text(&a->r, 10, 26, 2.0f, grey, a->s.status);
    snprintf(line, sizeof line, "bodies %d  step %.2f ms  %.0f fps%s%s", kyu_world_body_count(a->s.world),
             a->step_ms, a->fps, a->paused ? "  paused" : "", a->r.interpolate ? "" : "  no interpolation");
    render_text(&a->r, 10, 42, 2.0f, white, line);
    for (int i = 0; i < LAYER_COUNT; i++) {
        snprintf(line, sizeof line, "%s %s", layers[i].key, layers[i].name);
        float x = (float)a->r.width - render_text_width(line, 2.0f) - 10.0f;
        render_text(&a->r, x, 10.0f + 14.0f * (float)i, 2.0f, (a->flags & layers[i].flag) ? on_color : grey,
                    line);
    }
    if (!a->help) {
        render_text(&a->r, 10, (float)a->r.height - 20.0f, 2.0f, grey, "H help");
        return;
    }
    static const char *const help[] = {"1-6 or tab: scene   space/f: fire   a: auto fire   r: reset",
                                       "p: pause   n: one step   i: interpolation   esc: quit",
                                       "mouse: left drag orbit, right drag pan, wheel zoom   F1-F11: layers"};
    for (int i = 0; i < 3; i++)
        render_text(&a->r, 10, (float)a->r.height - 52.0f + 14.0f * (float)i, 2.0f, grey, help[i]);
}

// ---- the test's report and the screenshot -------------------------------------------------------

static int by_radius(const void *x, const void *y) {
    float a = ((const screen_sphere *)x)->radius, b = ((const screen_sphere *)y)->radius;
    return a < b ? 1 : a > b ? -1 : 0;
}

// The largest spheres well inside the window that nothing hides at their centre.
static void report(app *a) {
    int wx, wy;
    SDL_GetWindowPosition(a->window, &wx, &wy);
    renderer *r = &a->r;
    printf("viewer: frame %ld scene %s bodies %d window %d %d %d %d\n", a->frame, a->s.desc->name,
           kyu_world_body_count(a->s.world), wx, wy, r->width, r->height);
    qsort(r->samples, (size_t)r->sample_count, sizeof *r->samples, by_radius);
    for (int i = 0, n = 0; i < r->sample_count && n < 8; i++) {
        const screen_sphere *p = &r->samples[i];
        if (!p->visible || p->radius < 3.0f || p->x < 40 || p->y < 70 || p->x > r->width - 200 ||
            p->y > r->height - 30)
            continue;
        printf("sphere %d %d %.1f %.3f %.3f %.3f\n", wx + (int)p->x, wy + (int)p->y, (double)p->radius,
               (double)p->color.r, (double)p->color.g, (double)p->color.b);
        n++;
    }
    printf("viewer: end of report\n");
    fflush(stdout);
}

static void save_screenshot(const app *a, const char *path) {
    int w = a->r.width, h = a->r.height;
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 24, SDL_PIXELFORMAT_RGB24);
    if (!s) return;
    unsigned char *row = malloc((size_t)w * 3);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    for (int y = 0; y < h && row; y++) { // GL's rows go bottom-up
        glReadPixels(0, h - 1 - y, w, 1, GL_RGB, GL_UNSIGNED_BYTE, row);
        memcpy((unsigned char *)s->pixels + (size_t)y * (size_t)s->pitch, row, (size_t)w * 3);
    }
    free(row);
    if (SDL_SaveBMP(s, path) != 0) fprintf(stderr, "viewer: %s: %s\n", path, SDL_GetError());
    SDL_FreeSurface(s);
}

// ---- main ---------------------------------------------------------------------------------------

static int open_window(app *a) {
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "viewer: SDL_Init: %s (no display? try xvfb-run)\n", SDL_GetError());
        return -1;
    }
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 2);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 1);
    SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 24);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    a->window =
        SDL_CreateWindow("kyu viewer", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, a->opt.width,
                         a->opt.height, SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!a->window || !(a->gl = SDL_GL_CreateContext(a->window))) {
        fprintf(stderr, "viewer: no OpenGL 2.1 window: %s\n", SDL_GetError());
        return -1;
    }
    SDL_GL_SetSwapInterval(a->opt.dt > 0.0f ? 0 : 1); // fixed-time runs go as fast as they can
    return render_init(&a->r);
}

static void frame(app *a, float frame_dt) {
    int w, h;
    SDL_GL_GetDrawableSize(a->window, &w, &h);
    advance(a, frame_dt);
    render_begin(&a->r, &a->cam, w, h);
    render_world(&a->r, a->s.world, a->flags);
    if (a->frame + 1 == a->opt.report_frame)
        render_mark_visible(&a->r); // before the debug texts and the swap
    render_world_texts(&a->r);
    draw_hud(a);
    if (a->opt.screenshot && a->frame + 1 == a->opt.frames) save_screenshot(a, a->opt.screenshot);
    SDL_GL_SwapWindow(a->window);
    a->frame++;
    if (a->frame == a->opt.report_frame) {
        glFinish();
        report(a);
        a->paused = 1;
    }
}

static void run(app *a) {
    double last = now_ms();
    a->running = 1;
    while (a->running && (a->opt.frames < 0 || a->frame < a->opt.frames)) {
        poll(a);
        double t = now_ms(), ms = t - last;
        last = t;
        a->fps = ms > 0.0 ? (a->fps == 0.0 ? 1000.0 / ms : 0.95 * a->fps + 0.05 * 1000.0 / ms) : a->fps;
        float dt = a->opt.dt > 0.0f ? a->opt.dt : (float)fmin(ms / 1000.0, 0.1); // a stall is not a leap
        frame(a, dt);
        if (a->paused && a->opt.dt > 0.0f) SDL_Delay(10); // no vsync: do not spin on a still picture
    }
}

int main(int argc, char **argv) {
    static app a; // large (the renderer's buffers): not on the stack
    int parsed = parse_options(argc, argv, &a.opt);
    if (parsed) return parsed > 0 ? 0 : 2;
    a.flags = a.opt.flags;
    int status = 1;
    if (open_window(&a) == 0 && load_scene(&a, scene_find(a.opt.scene)) == 0) {
        run(&a);
        status = 0;
    }
    scene_free(&a.s);
    render_free(&a.r);
    if (a.gl) SDL_GL_DeleteContext(a.gl);
    if (a.window) SDL_DestroyWindow(a.window);
    SDL_Quit();
    return status;
}
