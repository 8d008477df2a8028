// SPDX-License-Identifier: MIT
// The browser glue (web/kyu_web.h): two scenes built with kyu's public API and a handful of flat
// functions for the page's JavaScript. It keeps its own accumulator instead of kyu_world_update so
// that it sees every step alone: the lesson's panel needs the state just before the step that held
// the impact, which kyu_world_update's several steps a frame would hide.
#include "kyu_web.h"

#include "../samples/billiards_table.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_BODIES = 1 << 16, MAX_STEPS_PER_ADVANCE = 8 };

typedef struct body_state {
    float p[3], v[3], w[3];
} body_state;

struct kyu_web {
    kyu_world *world;
    int billiards;    // 0: the lesson
    int nbodies, cap; // every array below holds `cap` bodies
    kyu_body_id *ids; // slot order (the order of the bulk calls and the hash)
    float dt, accumulator, e, mu;
    int steps;
    float *prev, *cur; // 3 a body: positions before and after the last step
    float *draw;       // 8 a body (kyu_web_bodies)
    float *scratch;    // 4 a body: what the bulk getters fill
    char text[4096];   // the hash, or the impact record (at most about 1.5 kB)
    int have_impact;
    kyu_impact_event impact;                            // the first impact of the last step that had one
    int impact_step, impact_begins, impact_a, impact_b; // b: -1 for a collider
    body_state *before, *after, *states;                // states: step_once's copy of the state before a step
    kyu_step_stats impact_stats;
    int impact_asleep;
};

static vec3s v3(float x, float y, float z) { return (vec3s){{x, y, z}}; }

static kyu_web *web_new(const kyu_world_def *wd, int billiards) {
    kyu_web *web = calloc(1, sizeof *web);
    if (!web) return NULL;
    if (kyu_world_create(wd, &web->world) != KYU_OK) {
        free(web);
        return NULL;
    }
    web->billiards = billiards;
    web->dt = wd->fixed_dt;
    return web;
}

// Room for n bodies in every per-body array. 0, or -1 out of memory (the arrays keep their contents).
static int web_reserve(kyu_web *web, int n) {
    if (n <= web->cap) return 0;
    int cap = web->cap > 0 ? web->cap : 16;
    while (cap < n) cap *= 2;
#define GROW_TO(p, per)                                                                                      \
    do {                                                                                                     \
        void *q_ = realloc((p), (size_t)cap * (per) * sizeof *(p));                                          \
        if (!q_) return -1;                                                                                  \
        (p) = q_;                                                                                            \
    } while (0)
    GROW_TO(web->ids, 1);
    GROW_TO(web->prev, 3);
    GROW_TO(web->cur, 3);
    GROW_TO(web->draw, 8);
    GROW_TO(web->scratch, 4);
    GROW_TO(web->before, 1);
    GROW_TO(web->after, 1);
    GROW_TO(web->states, 1);
#undef GROW_TO
    web->cap = cap;
    return 0;
}

// After bodies were added: the handles in slot order, and the new bodies' positions both "before"
// and "after" so the next frame draws them where they are. 0, or -1.
static int web_refresh(kyu_web *web) {
    int old = web->nbodies, n = kyu_world_body_count(web->world);
    if (n > MAX_BODIES || web_reserve(web, n)) return -1;
    web->nbodies = kyu_world_get_bodies(web->world, web->ids, n);
    kyu_world_get_positions(web->world, web->cur, n);
    memcpy(web->prev + 3 * old, web->cur + 3 * old, (size_t)(n - old) * 3 * sizeof *web->cur);
    return 0;
}

// Called once a ready-made scene's bodies are made.
static kyu_web *web_ready(kyu_web *web) {
    if (web_refresh(web) || web->nbodies < 1) {
        kyu_web_destroy(web);
        return NULL;
    }
    return web;
}

kyu_web *kyu_web_lesson_create(float e, float mu, float spin, float offset, int hz) {
    if (!(e >= 0.0f && e <= 1.0f && mu >= 0.0f && mu <= 10.0f && fabsf(spin) <= 1000.0f &&
          fabsf(offset) <= 2.0f && hz >= 10 && hz <= 1000))
        return NULL;
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = v3(0, 0, 0); // seen from above: the balls glide, so their paths are straight
    wd.fixed_dt = 1.0f / (float)hz;
    wd.enable_impact_events = true;
    kyu_web *web = web_new(&wd, 0);
    if (!web) return NULL;
    web->e = e, web->mu = mu;
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 0.1f, bd.mass = 1.0f, bd.restitution = e, bd.friction = mu;
    bd.position = v3(-0.8f, 0, 0), bd.velocity = v3(2.0f, 0, 0), bd.angular_velocity = v3(0, spin, 0);
    kyu_status a = kyu_body_create(web->world, &bd, NULL);
    bd.position = v3(0, 0, offset * 0.2f), bd.velocity = v3(0, 0, 0), bd.angular_velocity = v3(0, 0, 0);
    kyu_status b = kyu_body_create(web->world, &bd, NULL);
    if (a != KYU_OK || b != KYU_OK) {
        kyu_web_destroy(web);
        return NULL;
    }
    return web_ready(web);
}

kyu_web *kyu_web_billiards_create(int struck) {
    kyu_world_def wd = kyu_world_def_default();
    wd.fixed_dt = 1.0f / 240;
    wd.friction_mix = KYU_MIX_MAX;
    wd.enable_impact_events = true;
    kyu_web *web = web_new(&wd, 1);
    if (!web) return NULL;
    kyu_body_id ids[BILLIARDS_BALLS];
    if (billiards_table(web->world, struck ? 2.0f : 0.0f, ids) != 0) { // samples/billiards.c's table
        kyu_web_destroy(web);
        return NULL;
    }
    return web_ready(web);
}

void kyu_web_destroy(kyu_web *web) {
    if (!web) return;
    kyu_world_destroy(web->world);
    free(web->ids), free(web->prev), free(web->cur), free(web->draw), free(web->scratch);
    free(web->before), free(web->after), free(web->states);
    free(web);
}

// ---- scenes of your own ----------------------------------------------------------------------

kyu_web *kyu_web_create(float gx, float gy, float gz, int hz) {
    if (!(isfinite(gx) && isfinite(gy) && isfinite(gz) && hz >= 10 && hz <= 1000)) return NULL;
    kyu_world_def wd = kyu_world_def_default();
    wd.gravity = v3(gx, gy, gz);
    wd.fixed_dt = 1.0f / (float)hz;
    wd.enable_impact_events = true;
    return web_new(&wd, 0);
}

int kyu_web_add_ball(kyu_web *web, float x, float y, float z, float vx, float vy, float vz, float radius,
                     float mass, float restitution, float friction) {
    if (!web || web->nbodies >= MAX_BODIES) return -1;
    kyu_body_def bd = kyu_body_def_default();
    bd.position = v3(x, y, z), bd.velocity = v3(vx, vy, vz);
    bd.radius = radius, bd.mass = mass, bd.restitution = restitution, bd.friction = friction;
    if (kyu_body_create(web->world, &bd, NULL) != KYU_OK) return -1;
    return web_refresh(web) == 0 ? web->nbodies - 1 : -1;
}

static int add_collider(kyu_web *web, kyu_collider_def *c, float restitution, float friction) {
    if (!web) return -1;
    c->restitution = restitution, c->friction = friction;
    return kyu_collider_create(web->world, c, NULL) == KYU_OK ? 0 : -1;
}

int kyu_web_add_plane(kyu_web *web, float nx, float ny, float nz, float offset, float restitution,
                      float friction) {
    kyu_collider_def c = kyu_collider_def_default();
    float nn = nx * nx + ny * ny + nz * nz, s = nn > 0.0f ? offset / nn : 0.0f; // the point n offset / |n|^2
    c.type = KYU_SHAPE_PLANE, c.normal = v3(nx, ny, nz), c.position = v3(nx * s, ny * s, nz * s);
    return add_collider(web, &c, restitution, friction);
}

int kyu_web_add_box(kyu_web *web, float x, float y, float z, float hx, float hy, float hz, float restitution,
                    float friction) {
    kyu_collider_def c = kyu_collider_def_default();
    c.type = KYU_SHAPE_BOX, c.position = v3(x, y, z), c.half_extents = v3(hx, hy, hz);
    return add_collider(web, &c, restitution, friction);
}

const char *kyu_web_error(const kyu_web *web) { return web ? kyu_world_last_error(web->world) : "no scene"; }

static int slot_of(const kyu_web *web, kyu_body_id id) {
    for (int i = 0; i < web->nbodies; i++)
        if (web->ids[i].index1 == id.index1 && web->ids[i].generation == id.generation) return i;
    return -1;
}

static void read_states(const kyu_web *web, body_state *out) {
    int n = web->nbodies;
    float *a = web->scratch;
    kyu_world_get_positions(web->world, a, n);
    for (int i = 0; i < n; i++) memcpy(out[i].p, a + 3 * i, sizeof out[i].p);
    kyu_world_get_velocities(web->world, a, n);
    for (int i = 0; i < n; i++) memcpy(out[i].v, a + 3 * i, sizeof out[i].v);
    kyu_world_get_angular_velocities(web->world, a, n);
    for (int i = 0; i < n; i++) memcpy(out[i].w, a + 3 * i, sizeof out[i].w);
}

static int step_once(kyu_web *web) {
    int n = web->nbodies;
    body_state *before = web->states;
    read_states(web, before);
    memcpy(web->prev, web->cur, (size_t)n * 3 * sizeof *web->cur);
    if (kyu_world_step(web->world) != KYU_OK) return -1;
    web->steps++;
    kyu_world_get_positions(web->world, web->cur, n);
    int count = 0;
    const kyu_impact_event *ev = kyu_world_impact_events(web->world, &count);
    if (count > 0) { // the step's first impact, and the states around that step
        web->have_impact = 1;
        web->impact = ev[0];
        web->impact_step = web->steps;
        web->impact_a = slot_of(web, ev[0].body);
        web->impact_b = kyu_body_is_valid(web->world, ev[0].other) ? slot_of(web, ev[0].other) : -1;
        memcpy(web->before, before, (size_t)n * sizeof *before);
        read_states(web, web->after);
        web->impact_stats = kyu_world_stats(web->world);
        kyu_world_begin_events(web->world, &web->impact_begins);
        web->impact_asleep = kyu_world_sleeping_body_count(web->world);
    }
    return 0;
}

int kyu_web_step(kyu_web *web) {
    if (!web || step_once(web) != 0) return -1;
    // Drawn where the step ended (a single step of a paused page shows its result, not a blend).
    web->accumulator = 0.0f;
    memcpy(web->prev, web->cur, (size_t)web->nbodies * 3 * sizeof *web->cur);
    return 0;
}

int kyu_web_advance(kyu_web *web, float seconds) {
    if (!web || !(seconds >= 0.0f) || seconds > 1.0f) return 0;
    web->accumulator += seconds;
    int n = 0;
    while (web->accumulator >= web->dt && n < MAX_STEPS_PER_ADVANCE) {
        if (step_once(web) != 0) break;
        web->accumulator -= web->dt;
        n++;
    }
    if (web->accumulator >= web->dt) web->accumulator = 0.0f;
    return n;
}

int kyu_web_body_count(const kyu_web *web) { return web ? web->nbodies : 0; }

int kyu_web_step_count(const kyu_web *web) { return web ? web->steps : 0; }

const float *kyu_web_bodies(kyu_web *web) {
    if (!web) return NULL;
    int n = web->nbodies;
    float *a = web->scratch, alpha = web->accumulator / web->dt;
    kyu_world_get_rotations(web->world, a, n);
    for (int i = 0; i < n; i++) {
        float *o = web->draw + 8 * i;
        for (int d = 0; d < 3; d++)
            o[d] = web->prev[3 * i + d] + alpha * (web->cur[3 * i + d] - web->prev[3 * i + d]);
        for (int d = 0; d < 4; d++) o[3 + d] = a[4 * i + d];
    }
    kyu_world_get_radii(web->world, a, n);
    for (int i = 0; i < n; i++) web->draw[8 * i + 7] = a[i];
    return web->draw;
}

float kyu_web_kinetic_energy(const kyu_web *web) {
    return web ? (float)kyu_world_kinetic_energy(web->world) : 0.0f;
}

int kyu_web_moving_count(const kyu_web *web) {
    if (!web) return 0;
    const float *v = web->scratch;
    kyu_world_get_velocities(web->world, web->scratch, web->nbodies);
    int moving = 0;
    for (int i = 0; i < web->nbodies; i++)
        moving += v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2] > 1e-4f;
    return moving;
}

int kyu_web_shoot(kyu_web *web, float vx, float vz) {
    if (!web || !web->billiards || !(vx * vx + vz * vz <= 36.0f)) return -1;
    kyu_body_id cue = web->ids[web->nbodies - 1];
    if (kyu_body_set_angular_velocity(web->world, cue, v3(0, 0, 0)) != KYU_OK) return -1;
    return kyu_body_set_velocity(web->world, cue, v3(vx, 0, vz)) == KYU_OK ? 0 : -1;
}

const char *kyu_web_state_hash(kyu_web *web) {
    if (!web) return "";
    snprintf(web->text, sizeof web->text, "%016" PRIx64, kyu_world_state_hash(web->world));
    return web->text;
}

// JSON numbers: 9 significant digits give a float back exactly.
static int put_vec(char *s, size_t n, const char *key, const float *x) {
    return snprintf(s, n, "\"%s\":[%.9g,%.9g,%.9g]", key, (double)x[0], (double)x[1], (double)x[2]);
}

static int put_side(const kyu_web *web, char *s, size_t n, const char *key, int slot) {
    if (slot < 0) return snprintf(s, n, "\"%s\":null", key);
    float r = 0, m = 0, inertia = 0;
    kyu_body_get_radius(web->world, web->ids[slot], &r);
    kyu_body_get_mass(web->world, web->ids[slot], &m);
    kyu_body_get_inertia(web->world, web->ids[slot], &inertia);
    const body_state *b0 = &web->before[slot], *b1 = &web->after[slot];
    int k = snprintf(s, n, "\"%s\":{\"slot\":%d,\"r\":%.9g,\"m\":%.9g,\"inertia\":%.9g,", key, slot,
                     (double)r, (double)m, isfinite(inertia) ? (double)inertia : 0.0);
    k += put_vec(s + k, n - (size_t)k, "p0", b0->p), k += snprintf(s + k, n - (size_t)k, ",");
    k += put_vec(s + k, n - (size_t)k, "v0", b0->v), k += snprintf(s + k, n - (size_t)k, ",");
    k += put_vec(s + k, n - (size_t)k, "w0", b0->w), k += snprintf(s + k, n - (size_t)k, ",");
    k += put_vec(s + k, n - (size_t)k, "p1", b1->p), k += snprintf(s + k, n - (size_t)k, ",");
    k += put_vec(s + k, n - (size_t)k, "v1", b1->v), k += snprintf(s + k, n - (size_t)k, ",");
    k += put_vec(s + k, n - (size_t)k, "w1", b1->w);
    return k + snprintf(s + k, n - (size_t)k, "}");
}

const char *kyu_web_impact_json(kyu_web *web) {
    if (!web) return "null";
    if (!web->have_impact) return strcpy(web->text, "null");
    char *s = web->text;
    size_t n = sizeof web->text;
    const kyu_impact_event *ev = &web->impact;
    const kyu_step_stats *st = &web->impact_stats;
    int k = snprintf(
        s, n, "{\"step\":%d,\"dt\":%.9g,\"e\":%.9g,\"mu\":%.9g,\"time\":%.9g,\"approach\":%.9g,\"jn\":%.9g,",
        web->impact_step, (double)web->dt, (double)web->e, (double)web->mu, (double)ev->time,
        (double)ev->approach_speed, (double)ev->normal_impulse);
    k += put_vec(s + k, n - (size_t)k, "point", ev->point.raw), k += snprintf(s + k, n - (size_t)k, ",");
    k += put_vec(s + k, n - (size_t)k, "normal", ev->normal.raw), k += snprintf(s + k, n - (size_t)k, ",");
    k += put_vec(s + k, n - (size_t)k, "jt", ev->tangent_impulse.raw),
        k += snprintf(s + k, n - (size_t)k, ",");
    k += put_side(web, s + k, n - (size_t)k, "a", web->impact_a), k += snprintf(s + k, n - (size_t)k, ",");
    k += put_side(web, s + k, n - (size_t)k, "b", web->impact_b);
    snprintf(
        s + k, n - (size_t)k,
        ",\"stats\":{\"awake\":%d,\"asleep\":%d,\"candidate_pairs\":%d,\"impacts\":%d,\"late_inserts\":%d,"
        "\"contacts\":%d,\"begin_events\":%d,\"max_overlap\":%.9g}}",
        st->awake_bodies, web->impact_asleep, st->candidate_pairs, st->impacts, st->late_inserts,
        st->contacts, web->impact_begins, (double)st->max_overlap);
    return web->text;
}
