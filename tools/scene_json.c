// SPDX-License-Identifier: MIT
// The scene loader's reading of JSON values (scene_internal.h): one error message with the key path
// of what is wrong, unknown and duplicate keys refused, numbers, whole numbers, booleans, vectors
// and names read from cJSON with their ranges checked.
#include "scene_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// ---- errors and key paths --------------------------------------------------------------------------

// Keys come from the input: print only tame characters so a message stays one readable line.
void append_clean(char *dst, size_t cap, const char *src) {
    size_t n = strlen(dst);
    for (size_t i = 0; src[i] != '\0' && n + 1 < cap; i++) {
        if (i == 48) {
            if (n + 4 < cap) memcpy(dst + n, "...", 4), n += 3;
            break;
        }
        unsigned char ch = (unsigned char)src[i];
        dst[n++] = (ch >= 32 && ch < 127 && ch != '`') ? (char)ch : '?';
        dst[n] = '\0';
    }
}

// snprintf through a function: a key path or a message cut short is fine, and gcc's
// -Wformat-truncation would otherwise ask for a check of every call.
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void say(char *dst, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
}

keypath kp_key(const char *path, const char *key) {
    keypath k;
    say(k.s, sizeof k.s, "%s%s", path, path[0] ? "." : "");
    append_clean(k.s, sizeof k.s, key);
    return k;
}

keypath kp_index(const char *path, long i) {
    keypath k;
    say(k.s, sizeof k.s, "%s[%ld]", path, i);
    return k;
}

// Only the first error is kept: it is the one the user should fix first.
static int failv(ctx *c, const char *path, const char *fmt, va_list ap) {
    if (c->failed) return -1;
    c->failed = 1;
    char msg[256];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (c->err == NULL || c->errlen == 0) return -1;
    if (path != NULL && path[0] != '\0')
        say(c->err, c->errlen, "%s: key `%s`: %s", c->file, path, msg);
    else
        say(c->err, c->errlen, "%s: %s", c->file, msg);
    // One line, whatever the scene named: a file name with a newline in it (or assimp's message
    // about it) made the error several lines (found by the fuzzer, tests/fuzz-regressions/).
    for (char *p = c->err; *p != '\0'; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    return -1;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int fail(ctx *c, const char *path, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    failv(c, path, fmt, ap);
    va_end(ap);
    return -1;
}

const char *json_type_name(const cJSON *j) {
    if (cJSON_IsNumber(j)) return "a number";
    if (cJSON_IsString(j)) return "a string";
    if (cJSON_IsBool(j)) return "a boolean";
    if (cJSON_IsNull(j)) return "null";
    if (cJSON_IsArray(j)) return "an array";
    if (cJSON_IsObject(j)) return "an object";
    return "an unknown value";
}

int fail_type(ctx *c, const char *path, const cJSON *j, const char *want) {
    return fail(c, path, "must be %s, got %s", want, json_type_name(j));
}

// ---- keys ------------------------------------------------------------------------------------------

static int key_index(const char *const *list, const char *key) {
    for (int i = 0; list != NULL && list[i] != NULL; i++)
        if (strcmp(list[i], key) == 0) return i;
    return -1;
}

static void list_keys(char *dst, size_t cap, const char *const *a, const char *const *b) {
    dst[0] = '\0';
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; (pass ? b : a) != NULL && (pass ? b : a)[i] != NULL; i++) {
            size_t n = strlen(dst);
            say(dst + n, cap - n, "%s%s", n ? ", " : "", (pass ? b : a)[i]);
        }
}

// Every key of obj must be in one of the two lists (b may be NULL), once: a misspelt key silently
// ignored is the worst kind of scene bug, and cJSON keeps duplicate keys where other parsers
// keep the last one.
int check_keys(ctx *c, const cJSON *obj, const char *path, const char *const *a, const char *const *b) {
    uint64_t seen = 0;
    int na = 0;
    while (a[na] != NULL) na++;
    for (const cJSON *j = obj->child; j != NULL; j = j->next) {
        const char *key = j->string ? j->string : "";
        int i = key_index(a, key);
        if (i < 0 && (i = key_index(b, key)) >= 0) i += na;
        if (i < 0) {
            char known[512];
            list_keys(known, sizeof known, a, b);
            return fail(c, kp_key(path, key).s, "unknown key (known here: %s)", known);
        }
        if (seen & ((uint64_t)1 << i)) return fail(c, kp_key(path, key).s, "duplicate key");
        seen |= (uint64_t)1 << i;
    }
    return 0;
}

const cJSON *item(const cJSON *obj, const char *key) { return cJSON_GetObjectItemCaseSensitive(obj, key); }

// ---- values ----------------------------------------------------------------------------------------

// A finite number: 1e999 parses as inf, and a scene must never feed inf to the engine.
int number_value(ctx *c, const cJSON *j, const char *path, double *out) {
    if (!cJSON_IsNumber(j)) return fail_type(c, path, j, "a number");
    if (!isfinite(j->valuedouble))
        return fail(c, path, "must be a finite number, got one beyond the range of a double");
    *out = j->valuedouble;
    return 0;
}

// Optional number in [lo, hi] (lo excluded when lo_open); `rule` says it in words for the message.
int opt_double(ctx *c, const cJSON *obj, const char *path, const char *key, double *dst, double lo, double hi,
               int lo_open, const char *rule) {
    const cJSON *j = item(obj, key);
    if (j == NULL) return 0;
    keypath k = kp_key(path, key);
    double v;
    if (number_value(c, j, k.s, &v) != 0) return -1;
    if (v < lo || v > hi || (lo_open && v == lo)) return fail(c, k.s, "%s, got %g", rule, v);
    *dst = v;
    return 0;
}

int opt_float(ctx *c, const cJSON *obj, const char *path, const char *key, float *dst, double lo, double hi,
              int lo_open, const char *rule) {
    double v = *dst;
    if (opt_double(c, obj, path, key, &v, lo, hi, lo_open, rule) != 0) return -1;
    *dst = (float)v;
    return 0;
}

int int_value(ctx *c, const cJSON *j, const char *path, double lo, double hi, double *out) {
    double v;
    if (number_value(c, j, path, &v) != 0) return -1;
    if (v != floor(v)) return fail(c, path, "must be a whole number, got %g", v);
    if (v < lo || v > hi) return fail(c, path, "must be between %.0f and %.0f, got %g", lo, hi, v);
    *out = v;
    return 0;
}

int opt_long(ctx *c, const cJSON *obj, const char *path, const char *key, long *dst, double lo, double hi) {
    const cJSON *j = item(obj, key);
    double v;
    if (j == NULL) return 0;
    if (int_value(c, j, kp_key(path, key).s, lo, hi, &v) != 0) return -1;
    *dst = (long)v;
    return 0;
}

int opt_bool(ctx *c, const cJSON *obj, const char *path, const char *key, bool *dst) {
    const cJSON *j = item(obj, key);
    if (j == NULL) return 0;
    if (!cJSON_IsBool(j)) return fail_type(c, kp_key(path, key).s, j, "true or false");
    *dst = cJSON_IsTrue(j);
    return 0;
}

int vec3_value(ctx *c, const cJSON *j, const char *path, double limit, vec3s *out) {
    if (!cJSON_IsArray(j) || cJSON_GetArraySize(j) != 3)
        return fail(c, path, "must be an array of 3 numbers [x, y, z], got %s%s", json_type_name(j),
                    cJSON_IsArray(j) ? " of another length" : "");
    int i = 0;
    for (const cJSON *e = j->child; e != NULL; e = e->next, i++) {
        keypath k = kp_index(path, i);
        double v;
        if (number_value(c, e, k.s, &v) != 0) return -1;
        if (fabs(v) > limit) return fail(c, k.s, "must be within +-%g, got %g", limit, v);
        out->raw[i] = (float)v;
    }
    return 0;
}

int opt_vec3(ctx *c, const cJSON *obj, const char *path, const char *key, vec3s *dst, double limit) {
    const cJSON *j = item(obj, key);
    return j == NULL ? 0 : vec3_value(c, j, kp_key(path, key).s, limit, dst);
}

int need(ctx *c, const cJSON *obj, const char *path, const char *key) {
    if (item(obj, key) != NULL) return 0;
    return fail(c, path, "missing required key \"%s\"", key);
}

// A string that must be one of names; *dst is its index.
int opt_enum(ctx *c, const cJSON *obj, const char *path, const char *key, const char *const *names,
             int *dst) {
    const cJSON *j = item(obj, key);
    if (j == NULL) return 0;
    keypath k = kp_key(path, key);
    char known[256];
    list_keys(known, sizeof known, names, NULL);
    if (!cJSON_IsString(j))
        return fail(c, k.s, "must be a string (one of: %s), got %s", known, json_type_name(j));
    int i = key_index(names, j->valuestring);
    if (i < 0) {
        char got[64] = "";
        append_clean(got, sizeof got, j->valuestring);
        return fail(c, k.s, "must be one of: %s; got \"%s\"", known, got);
    }
    *dst = i;
    return 0;
}

int need_object(ctx *c, const cJSON *j, const char *path) {
    return cJSON_IsObject(j) ? 0 : fail_type(c, path, j, "an object");
}

int need_array(ctx *c, const cJSON *j, const char *path) {
    return cJSON_IsArray(j) ? 0 : fail_type(c, path, j, "an array");
}
