// SPDX-License-Identifier: MIT
// The scene loader's private header: what its files share. The tools see only scene.h.
//   scene.c             the entry points of scene.h: loading (the JSON text, the root keys, the
//                       capacity and memory check, the two passes), stepping, resuming, accessors
//   scene_json.c        error messages with key paths, key checks, typed values read from cJSON
//   scene_bodies.c      body materials over the defaults, the "bodies" array, creating one body
//   scene_colliders.c   the "colliders" array: shapes, rotations, hull points, mesh triangles
//   scene_generators.c  lattices, random boxes and emitters, and their random numbers
//   scene_inserters.c   inserters (insert.h): regions, radius distributions, their runs
//   scene_mesh_file.c   a mesh collider's triangles from a file (STL, OBJ...) through assimp
//   scene_settings.c    the "world" settings and the "run" section
#ifndef KYU_TOOLS_SCENE_INTERNAL_H
#define KYU_TOOLS_SCENE_INTERNAL_H

#include "scene.h"

#include <cjson/cJSON.h>

// M_PI is not in C11.
#define PI 3.14159265358979323846

// Engine limits on coordinates (world.h: |position| or |velocity| > 1e9 is refused).
#define COORD_LIMIT 1e9

// ---- the scene -----------------------------------------------------------------------------------

// A body as generators and emitters make it: the def plus a density that, when set, gives the mass
// from the radius (so a random radius keeps one material).
typedef struct body_tpl {
    kyu_body_def def;
    double density; // kg/m^3; 0 = use def.mass
} body_tpl;

enum { GEN_LATTICE, GEN_RANDOM_BOX, GEN_EMITTER, GEN_INSERT };

typedef struct generator {
    int kind;
    int index; // position in the generators array, for messages and seeds
    body_tpl body;
    vec3s a, b; // lattice origin, random box min and max, emitter position (a)
    vec3s velocity;
    vec3s spacing;
    long n[3];
    long count; // bodies (lattice: n[0] n[1] n[2]; emitter: the most it will ever emit)
    float jitter, speed, spread;
    float rmin, rmax;         // random box radius range (both = the body radius without one)
    int overlap;              // random box: allow overlapping bodies
    double rate, start, stop; // emitter: bodies per second from start until stop (s)
    uint64_t seed;            // mixed from the scene seed, the index and the generator's own seed
    long emitted;             // emitter: bodies emitted so far
    kyu_inserter_def insert;  // inserter: its settings (size.radii and size.weights point below)
    kyu_inserter *inserter;   // made with the world
    float radii[64], weights[64];
} generator;

// A box whose stress, packing and coordination kyu-sim measures (run.measure).
typedef struct kyu_scene_region_rec {
    char name[64];
    vec3s lo, hi;
} kyu_scene_region_rec;

struct kyu_scene {
    char *name;
    kyu_world *world;
    kyu_world_def wd;
    bool impact_forces; // world.impact_forces: kyu_world_enable_impact_forces (default true)
    uint64_t seed;
    long run_steps;
    int every;
    int format;
    uint32_t *ids;
    int id_count;
    generator *gen;
    int gen_count;
    long step;
    long planned;
    kyu_scene_region_rec *regions; // run.measure
    int region_count;
    float *gscale; // gravity scale per body id (index1 - 1), for the potential energy
    long gs_len, gs_cap;
    char error[320];
};

// ---- errors and key paths --------------------------------------------------------------------------

// What one load is reading, its limits, and where its one error message goes.
typedef struct ctx {
    const char *file;
    char *err;
    size_t errlen;
    int failed;
    int max_bodies, max_colliders, max_points;
} ctx;

typedef struct keypath {
    char s[200];
} keypath;

// The functions below were file-static before the loader was split into files; hidden keeps them
// out of the dynamic symbols of what links the loader into a shared object (the Python extension).
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

// ---- scene_json.c: errors, key paths, keys and values ---------------------------------------------

// Appends src to dst, tame characters only (keys come from the input), at most 48 of them.
void append_clean(char *dst, size_t cap, const char *src);
// snprintf that may cut short.
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void say(char *dst, size_t cap, const char *fmt, ...);
keypath kp_key(const char *path, const char *key);
keypath kp_index(const char *path, long i);
// Records the first error ("FILE: key `path`: message") and returns -1.
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int fail(ctx *c, const char *path, const char *fmt, ...);
const char *json_type_name(const cJSON *j);
int fail_type(ctx *c, const char *path, const cJSON *j, const char *want);
int check_keys(ctx *c, const cJSON *obj, const char *path, const char *const *a, const char *const *b);
const cJSON *item(const cJSON *obj, const char *key);
int number_value(ctx *c, const cJSON *j, const char *path, double *out);
int opt_double(ctx *c, const cJSON *obj, const char *path, const char *key, double *dst, double lo, double hi,
               int lo_open, const char *rule);
int opt_float(ctx *c, const cJSON *obj, const char *path, const char *key, float *dst, double lo, double hi,
              int lo_open, const char *rule);
int int_value(ctx *c, const cJSON *j, const char *path, double lo, double hi, double *out);
int opt_long(ctx *c, const cJSON *obj, const char *path, const char *key, long *dst, double lo, double hi);
int opt_bool(ctx *c, const cJSON *obj, const char *path, const char *key, bool *dst);
int vec3_value(ctx *c, const cJSON *j, const char *path, double limit, vec3s *out);
int opt_vec3(ctx *c, const cJSON *obj, const char *path, const char *key, vec3s *dst, double limit);
int need(ctx *c, const cJSON *obj, const char *path, const char *key);
int opt_enum(ctx *c, const cJSON *obj, const char *path, const char *key, const char *const *names, int *dst);
int need_object(ctx *c, const cJSON *j, const char *path);
int need_array(ctx *c, const cJSON *j, const char *path);

// ---- scene_bodies.c ---------------------------------------------------------------------------------

extern const char *const BODY_MATERIAL_KEYS[];
int parse_material(ctx *c, const cJSON *o, const char *path, body_tpl *tpl);
int parse_override(ctx *c, const cJSON *obj, const char *path, const char *key, body_tpl *tpl);
int remember_gscale(kyu_scene *s, uint32_t index1, float gs);
int add_body(kyu_scene *s, const body_tpl *tpl, vec3s p, vec3s v, float radius, const char *path, char *err,
             size_t errlen);
int add_body_ctx(ctx *c, kyu_scene *s, const body_tpl *tpl, vec3s p, vec3s v, float r, const char *path);
int parse_bodies(ctx *c, kyu_scene *s, const cJSON *arr, const body_tpl *defaults);

// ---- scene_colliders.c ------------------------------------------------------------------------------

int build_colliders(ctx *c, kyu_scene *s, const cJSON *arr);
int parse_rotation(ctx *c, const cJSON *obj, const char *path, versors *out);

// ---- scene_mesh_file.c ------------------------------------------------------------------------------

// A mesh file's vertices (times scale) and triangles, allocated; the file is beside the scene.
int load_mesh_file(ctx *c, const char *path, const char *file, float scale, vec3s **points, int *point_count,
                   int32_t **tris, int *tri_count);

// ---- scene_generators.c -----------------------------------------------------------------------------

int parse_seed(ctx *c, const cJSON *obj, const char *path, uint64_t *dst);
int parse_generator(ctx *c, const cJSON *o, int index, const body_tpl *defaults, uint64_t scene_seed,
                    generator *g);
int make_lattice(ctx *c, kyu_scene *s, generator *g);
int make_random_box(ctx *c, kyu_scene *s, generator *g);
long emitter_due(const kyu_scene *s, const generator *g, long k);
int run_emitters(kyu_scene *s, long step);

// ---- scene_inserters.c ------------------------------------------------------------------------------

int parse_inserter(ctx *c, const cJSON *o, const char *path, generator *g);
int make_inserter(ctx *c, kyu_scene *s, generator *g);
int run_inserters(kyu_scene *s, long step);
int parse_measure(ctx *c, const cJSON *arr, kyu_scene *s);

// ---- scene_settings.c -------------------------------------------------------------------------------

int parse_world(ctx *c, const cJSON *o, kyu_world_def *d, bool *impact_forces);
int parse_run(ctx *c, const cJSON *o, kyu_scene *s);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
