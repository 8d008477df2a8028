// SPDX-License-Identifier: MIT
// The scene loader's colliders (scene_internal.h): the "colliders" array, each shape's keys,
// rotations, hull points that must span a volume, and mesh triangles.
#include "scene_internal.h"

#include <math.h>
#include <stdlib.h>

// ---- colliders -------------------------------------------------------------------------------------

static const char *const SHAPE_NAMES[] = {"plane", "box", "capsule", "hull", "mesh", NULL};
static const char *const MOTION_NAMES[] = {"static", "kinematic", NULL};
static const char *const COLLIDER_KEYS[] = {
    "type",     "motion", "velocity",         "position",         "restitution",        "friction",
    "category", "mask",   "angular_velocity", "surface_velocity", "rolling_resistance", NULL};
static const char *const PLANE_KEYS[] = {"normal", NULL};
static const char *const BOX_KEYS[] = {"half_extents", "rotation", NULL};
static const char *const CAPSULE_KEYS[] = {"a", "b", "radius", "rotation", NULL};
static const char *const HULL_KEYS[] = {"points", "rotation", NULL};
static const char *const MESH_KEYS[] = {"vertices", "triangles", "file", "scale", "rotation", NULL};
static const char *const *const SHAPE_KEYS[] = {PLANE_KEYS, BOX_KEYS, CAPSULE_KEYS, HULL_KEYS, MESH_KEYS};

// A rotation is a quaternion [x, y, z, w] or {"axis": [x, y, z], "degrees": a}.
int parse_rotation(ctx *c, const cJSON *obj, const char *path, versors *out) {
    static const char *const AXIS_KEYS[] = {"axis", "degrees", NULL};
    const cJSON *j = item(obj, "rotation");
    if (j == NULL) return 0;
    keypath k = kp_key(path, "rotation");
    if (cJSON_IsArray(j)) {
        if (cJSON_GetArraySize(j) != 4)
            return fail(c, k.s,
                        "must be a quaternion [x, y, z, w] (4 numbers) or "
                        "{\"axis\": [x, y, z], \"degrees\": a}");
        double q[4], n2 = 0;
        int i = 0;
        for (const cJSON *e = j->child; e != NULL; e = e->next, i++) {
            if (number_value(c, e, kp_index(k.s, i).s, &q[i]) != 0) return -1;
            if (fabs(q[i]) > 1e6) return fail(c, kp_index(k.s, i).s, "must be within +-1e6, got %g", q[i]);
            n2 += q[i] * q[i];
        }
        if (n2 < 1e-12) return fail(c, k.s, "must not be the zero quaternion");
        *out = (versors){{(float)q[0], (float)q[1], (float)q[2], (float)q[3]}};
        return 0;
    }
    if (!cJSON_IsObject(j))
        return fail_type(c, k.s, j, "a quaternion [x, y, z, w] or {\"axis\", \"degrees\"}");
    vec3s axis = {{0, 1, 0}};
    double deg = 0;
    if (check_keys(c, j, k.s, AXIS_KEYS, NULL) || need(c, j, k.s, "axis") || need(c, j, k.s, "degrees") ||
        opt_vec3(c, j, k.s, "axis", &axis, 1e6) ||
        opt_double(c, j, k.s, "degrees", &deg, -1e6, 1e6, 0, "must be in [-1e6, 1e6]"))
        return -1;
    float n = glms_vec3_norm(axis);
    if (!(n > 1e-6f)) return fail(c, kp_key(k.s, "axis").s, "must not be the zero vector");
    double half = deg * PI / 360.0, sn = sin(half) / n;
    *out = (versors){{(float)(axis.x * sn), (float)(axis.y * sn), (float)(axis.z * sn), (float)cos(half)}};
    return 0;
}

// An array of [x, y, z] points, between lo and hi of them.
static int parse_points(ctx *c, const cJSON *obj, const char *path, const char *key, int lo, vec3s **out,
                        int *count) {
    const cJSON *j = item(obj, key);
    keypath k = kp_key(path, key);
    if (need_array(c, j, k.s) != 0) return -1;
    int n = cJSON_GetArraySize(j);
    if (n < lo || n > c->max_points)
        return fail(c, k.s, "must have between %d and %d points, got %d", lo, c->max_points, n);
    vec3s *p = malloc((size_t)n * sizeof *p);
    if (p == NULL) return fail(c, k.s, "out of memory for %d points", n);
    int i = 0;
    for (const cJSON *e = j->child; e != NULL; e = e->next, i++)
        if (vec3_value(c, e, kp_index(k.s, i).s, COORD_LIMIT, &p[i]) != 0) {
            free(p);
            return -1;
        }
    *out = p;
    *count = n;
    return 0;
}

static int parse_triangles(ctx *c, const cJSON *obj, const char *path, int vertices, int32_t **out,
                           int *count) {
    const cJSON *j = item(obj, "triangles");
    keypath k = kp_key(path, "triangles");
    if (need_array(c, j, k.s) != 0) return -1;
    int n = cJSON_GetArraySize(j);
    if (n < 1 || n > c->max_points)
        return fail(c, k.s, "must have between 1 and %d triangles, got %d", c->max_points, n);
    int32_t *t = malloc((size_t)n * 3 * sizeof *t);
    if (t == NULL) return fail(c, k.s, "out of memory for %d triangles", n);
    int i = 0;
    for (const cJSON *e = j->child; e != NULL; e = e->next, i++) {
        keypath ki = kp_index(k.s, i);
        if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 3) {
            free(t);
            return fail(c, ki.s, "must be 3 vertex indices [i, j, k], got %s", json_type_name(e));
        }
        int v = 0;
        for (const cJSON *x = e->child; x != NULL; x = x->next, v++) {
            double d;
            if (int_value(c, x, kp_index(ki.s, v).s, 0, vertices - 1, &d) != 0) {
                free(t);
                return -1;
            }
            t[i * 3 + v] = (int32_t)d;
        }
    }
    *out = t;
    *count = n;
    return 0;
}

static int farthest(const vec3s *p, int n, double (*dist)(vec3s, const vec3s *), const vec3s *ref,
                    double *best) {
    int at = 0;
    *best = -1;
    for (int i = 0; i < n; i++) {
        double d = dist(p[i], ref);
        if (d > *best) *best = d, at = i;
    }
    return at;
}

static double dist_point(vec3s q, const vec3s *r) { return glms_vec3_norm(glms_vec3_sub(q, r[0])); }

static double dist_line(vec3s q, const vec3s *r) {
    vec3s u = glms_vec3_normalize(glms_vec3_sub(r[1], r[0]));
    return glms_vec3_norm(glms_vec3_cross(glms_vec3_sub(q, r[0]), u));
}

static double dist_plane(vec3s q, const vec3s *r) {
    vec3s n = glms_vec3_normalize(glms_vec3_cross(glms_vec3_sub(r[1], r[0]), glms_vec3_sub(r[2], r[0])));
    return fabs(glms_vec3_dot(glms_vec3_sub(q, r[0]), n));
}

// A hull's points must not all lie on a plane: the engine would get a flat "solid" (found by
// building a scene with four coplanar points, which kyu_collider_create accepts).
static int spans_volume(const vec3s *p, int n) {
    vec3s r[3] = {p[0]};
    double size, d;
    r[1] = p[farthest(p, n, dist_point, r, &size)];
    if (!(size > 0)) return 0;
    r[2] = p[farthest(p, n, dist_line, r, &d)];
    if (!(d > 1e-6 * size)) return 0;
    farthest(p, n, dist_plane, r, &d);
    return d > 1e-6 * size;
}

// The fields every shape has, then its own; points and indices are allocated (freed by caller).
static int parse_collider(ctx *c, const cJSON *o, const char *path, kyu_collider_def *d, vec3s **points,
                          int32_t **tris) {
    int shape = 0, motion = 0;
    long cat = d->category_bits, mask = d->mask_bits;
    if (need_object(c, o, path) || need(c, o, path, "type") ||
        opt_enum(c, o, path, "type", SHAPE_NAMES, &shape) ||
        check_keys(c, o, path, COLLIDER_KEYS, SHAPE_KEYS[shape]) ||
        opt_enum(c, o, path, "motion", MOTION_NAMES, &motion) ||
        opt_vec3(c, o, path, "position", &d->position, COORD_LIMIT) ||
        opt_vec3(c, o, path, "velocity", &d->velocity, COORD_LIMIT) ||
        opt_float(c, o, path, "restitution", &d->restitution, 0, 1, 0, "must be in [0, 1]") ||
        opt_float(c, o, path, "friction", &d->friction, 0, 1e3, 0, "must be in [0, 1000]") ||
        opt_float(c, o, path, "rolling_resistance", &d->rolling_resistance, 0, 1e3, 0,
                  "must be in [0, 1000]") ||
        opt_vec3(c, o, path, "angular_velocity", &d->angular_velocity, 1e6) ||
        opt_vec3(c, o, path, "surface_velocity", &d->surface_velocity, COORD_LIMIT) ||
        opt_long(c, o, path, "category", &cat, 0, 4294967295.0) ||
        opt_long(c, o, path, "mask", &mask, 0, 4294967295.0) || parse_rotation(c, o, path, &d->rotation))
        return -1;
    if (motion == 0 && item(o, "velocity") != NULL)
        return fail(c, kp_key(path, "velocity").s,
                    "only a collider with \"motion\": "
                    "\"kinematic\" moves");
    if (motion == 0 && item(o, "angular_velocity") != NULL)
        return fail(c, kp_key(path, "angular_velocity").s,
                    "only a collider with \"motion\": "
                    "\"kinematic\" turns (a static one may have a \"surface_velocity\")");
    d->type = (kyu_shape_type)(KYU_SHAPE_PLANE + shape);
    d->motion = motion ? KYU_KINEMATIC : KYU_STATIC;
    d->category_bits = (uint32_t)cat;
    d->mask_bits = (uint32_t)mask;
    switch (d->type) {
    case KYU_SHAPE_PLANE:
        if (opt_vec3(c, o, path, "normal", &d->normal, 1e6)) return -1;
        if (!(glms_vec3_norm(d->normal) > 1e-6f))
            return fail(c, kp_key(path, "normal").s, "must not be the zero vector");
        return 0;
    case KYU_SHAPE_BOX:
        if (need(c, o, path, "half_extents") ||
            opt_vec3(c, o, path, "half_extents", &d->half_extents, COORD_LIMIT))
            return -1;
        for (int i = 0; i < 3; i++)
            if (!(d->half_extents.raw[i] > 0))
                return fail(c, kp_index(kp_key(path, "half_extents").s, i).s, "must be > 0, got %g",
                            (double)d->half_extents.raw[i]);
        return 0;
    case KYU_SHAPE_CAPSULE:
        if (need(c, o, path, "a") || need(c, o, path, "b") || need(c, o, path, "radius") ||
            opt_vec3(c, o, path, "a", &d->capsule_a, COORD_LIMIT) ||
            opt_vec3(c, o, path, "b", &d->capsule_b, COORD_LIMIT) ||
            opt_float(c, o, path, "radius", &d->radius, 0, 1e6, 1, "must be > 0 and <= 1e6"))
            return -1;
        return 0;
    case KYU_SHAPE_HULL:
        if (parse_points(c, o, path, "points", 4, points, &d->point_count) != 0) return -1;
        d->points = *points;
        if (!spans_volume(*points, d->point_count))
            return fail(c, kp_key(path, "points").s,
                        "must span a volume (these are all on one "
                        "plane or line)");
        return 0;
    case KYU_SHAPE_MESH:
        if (item(o, "file") != NULL || item(o, "scale") != NULL) {
            const cJSON *file = item(o, "file");
            float scale = 1.0f;
            keypath kf = kp_key(path, "file");
            if (item(o, "vertices") != NULL || item(o, "triangles") != NULL)
                return fail(c, path, "give \"file\" or \"vertices\" and \"triangles\", not both");
            if (need(c, o, path, "file") ||
                opt_float(c, o, path, "scale", &scale, 0, 1e6, 1, "must be > 0 and <= 1e6"))
                return -1;
            if (!cJSON_IsString(file) || file->valuestring[0] == '\0')
                return fail_type(c, kf.s, file, "a file name (STL, OBJ, PLY...)");
            if (load_mesh_file(c, kf.s, file->valuestring, scale, points, &d->point_count, tris,
                               &d->triangle_count) != 0)
                return -1;
            d->points = *points;
            d->indices = *tris;
            return 0;
        }
        if (parse_points(c, o, path, "vertices", 3, points, &d->point_count) != 0 ||
            parse_triangles(c, o, path, d->point_count, tris, &d->triangle_count) != 0)
            return -1;
        d->points = *points;
        d->indices = *tris;
        return 0;
    }
    return -1;
}

int build_colliders(ctx *c, kyu_scene *s, const cJSON *arr) {
    long i = 0;
    for (const cJSON *o = arr->child; o != NULL; o = o->next, i++) {
        keypath k = kp_index("colliders", i);
        kyu_collider_def d = kyu_collider_def_default();
        vec3s *points = NULL;
        int32_t *tris = NULL;
        int r = parse_collider(c, o, k.s, &d, &points, &tris);
        if (r == 0) {
            kyu_status st = kyu_collider_create(s->world, &d, NULL);
            if (st != KYU_OK)
                r = fail(c, k.s, "kyu refused the collider: %s (%s)", kyu_status_string(st),
                         kyu_world_last_error(s->world));
        }
        free(points);
        free(tris);
        if (r != 0) return -1;
    }
    return 0;
}
