// SPDX-License-Identifier: MIT
// kyu-render's recordings (see render_input.h): which kind a file is, the JSONL reader, and the
// scene of the others from summary.json. Every JSONL line is parsed with cJSON and checked field by
// field, so a bad file is refused with the line and the field named, never half-drawn.
#include "render_input.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Reads a finite number field; false (with a message) when missing or not a finite number.
static bool get_number(const cJSON *o, const char *key, double *out, char *why, size_t n) {
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(f) || !isfinite(f->valuedouble)) {
        snprintf(why, n, "\"%s\" %s", key, f ? "is not a finite number" : "is missing");
        return false;
    }
    *out = f->valuedouble;
    return true;
}

static bool get_int(const cJSON *o, const char *key, long lo, long *out, char *why, size_t n) {
    double d;
    if (!get_number(o, key, &d, why, n)) return false;
    if (d != floor(d) || d < (double)lo || d > 2e9) {
        snprintf(why, n, "\"%s\" must be an integer >= %ld (got %g)", key, lo, d);
        return false;
    }
    *out = (long)d;
    return true;
}

static bool get_vec3(const cJSON *o, const char *key, float out[3], char *why, size_t n) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3) {
        snprintf(why, n, "\"%s\" %s", key, a ? "must be an array of 3 numbers" : "is missing");
        return false;
    }
    for (int k = 0; k < 3; k++) {
        const cJSON *x = cJSON_GetArrayItem(a, k);
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || fabs(x->valuedouble) > 1e9) {
            snprintf(why, n, "\"%s\"[%d] is not a finite number", key, k);
            return false;
        }
        out[k] = (float)x->valuedouble;
    }
    return true;
}

static bool parse_header(const cJSON *o, recording *r, char *why, size_t n) {
    long version, every;
    const cJSON *scene = cJSON_GetObjectItemCaseSensitive(o, "scene");
    if (!get_int(o, "kyu_recording", 1, &version, why, n)) return false;
    if (version != 1) {
        snprintf(why, n, "\"kyu_recording\" is %ld; this reader knows version 1", version);
        return false;
    }
    if (!cJSON_IsString(scene)) {
        snprintf(why, n, "\"scene\" %s", scene ? "must be a string" : "is missing");
        return false;
    }
    if (!get_number(o, "dt", &r->dt, why, n)) return false;
    if (!(r->dt > 0.0)) {
        snprintf(why, n, "\"dt\" must be > 0 (got %g)", r->dt);
        return false;
    }
    if (!get_int(o, "every", 1, &every, why, n)) return false;
    r->every = (int)every;
    r->scene = strdup(scene->valuestring);
    if (!r->scene) snprintf(why, n, "out of memory");
    return r->scene != NULL;
}

static bool parse_body(const cJSON *o, rec_body *b, long *step, double *t, char *why, size_t n) {
    long id;
    double radius;
    const cJSON *awake = cJSON_GetObjectItemCaseSensitive(o, "awake");
    if (!get_int(o, "step", 0, step, why, n) || !get_number(o, "t", t, why, n) ||
        !get_int(o, "id", 0, &id, why, n) || !get_vec3(o, "p", b->p, why, n) ||
        !get_vec3(o, "v", b->v, why, n) || !get_number(o, "r", &radius, why, n))
        return false;
    if (!(radius > 0.0 && radius < 1e6)) {
        snprintf(why, n, "\"r\" must be > 0 (got %g)", radius);
        return false;
    }
    if (!cJSON_IsBool(awake)) {
        snprintf(why, n, "\"awake\" %s", awake ? "must be true or false" : "is missing");
        return false;
    }
    b->id = (int)id;
    b->r = (float)radius;
    b->awake = cJSON_IsTrue(awake);
    return true;
}

int recording_append(recording *r, const rec_body *b, long step, double t, char *why, size_t n) {
    rec_frame *last = r->nframes ? &r->frames[r->nframes - 1] : NULL;
    if (last && step < last->step) {
        snprintf(why, n, "step %ld comes after step %ld (steps must not go backwards)", step, last->step);
        return 2;
    }
    if (!last || step != last->step) {
        if (r->nframes == r->capf) {
            int cap = r->capf ? 2 * r->capf : 64;
            rec_frame *f = realloc(r->frames, (size_t)cap * sizeof *f);
            if (!f) return 1;
            r->frames = f, r->capf = cap;
        }
        r->frames[r->nframes++] = (rec_frame){step, t, r->nbodies, 0};
    }
    if (r->nbodies == r->capb) {
        int cap = r->capb ? 2 * r->capb : 1024;
        rec_body *nb = realloc(r->bodies, (size_t)cap * sizeof *nb);
        if (!nb) return 1;
        r->bodies = nb, r->capb = cap;
    }
    r->bodies[r->nbodies++] = *b;
    r->frames[r->nframes - 1].count++;
    return 0;
}

static bool blank(const char *s) {
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
    return *s == '\0';
}

// One line: the header (line 1) or a body. Returns 0, 1 (out of memory) or 2 (bad, why set).
static int parse_line(recording *r, const char *text, long lineno, char *why, size_t n) {
    cJSON *o = cJSON_Parse(text);
    if (!cJSON_IsObject(o)) {
        snprintf(why, n, "not a JSON object");
        cJSON_Delete(o);
        return 2;
    }
    int rc = 0;
    if (lineno == 1) {
        rc = parse_header(o, r, why, n) ? 0 : 2;
    } else {
        rec_body b;
        long step;
        double t;
        rc = parse_body(o, &b, &step, &t, why, n) ? recording_append(r, &b, step, t, why, n) : 2;
    }
    cJSON_Delete(o);
    return rc;
}

void recording_free(recording *r) {
    free(r->scene);
    free(r->bodies);
    free(r->frames);
    memset(r, 0, sizeof *r);
}

static int load_jsonl(const char *path, recording *r, char *err, size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return 2;
    }
    char *line = NULL, why[200] = "";
    size_t cap = 0;
    long lineno = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        lineno++;
        if (lineno > 1 && blank(line)) continue;
        rc = parse_line(r, line, lineno, why, sizeof why);
    }
    free(line);
    fclose(f);
    if (rc == 0 && lineno == 0) rc = 2, snprintf(why, sizeof why, "empty file (no header line)");
    if (rc == 0 && r->nframes == 0) rc = 2, snprintf(why, sizeof why, "no body lines after the header");
    if (rc == 2) {
        snprintf(err, errlen, "%s:%ld: %s", path, lineno ? lineno : 1, why);
    } else if (rc == 1) {
        snprintf(err, errlen, "%s: out of memory", path);
    }
    return rc;
}

rec_kind recording_kind(const char *head) {
    size_t line = strcspn(head, "\n");
    const char *s = head + strspn(head, " \t\r");
    if (strstr(head, "\"kyu_recording\"") && (size_t)(strstr(head, "\"kyu_recording\"") - head) < line)
        return REC_JSONL;
    if (strncmp(s, "<?xml", 5) == 0 || strncmp(s, "<VTKFile", 8) == 0) return REC_VTK;
    if (*s == '{' || *s == '[') return REC_NONE; // JSON: a scene file
    size_t digits = strspn(s, "0123456789");
    if (digits > 0 && strspn(s + digits, " \t\r") + digits + (size_t)(s - head) == line) return REC_XYZ;
    if (memchr(s, ',', line - (size_t)(s - head)) != NULL) return REC_CSV;
    return REC_NONE;
}

// The scene and dt of a run from its summary.json: in the directory of `path`, else in the one above
// (kyu-sim writes DIR/frames.csv, DIR/frames.xyz, DIR/frames.pvd and DIR/frames/frame_STEP.vtp
// beside DIR/summary.json). Leaves r->scene "" when there is none.
static int summary_scene(const char *path, recording *r) {
    char dir[4096], file[4200];
    snprintf(dir, sizeof dir, "%s", path);
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else if (up == 0)
            snprintf(dir, sizeof dir, ".");
        else
            break;
        snprintf(file, sizeof file, "%s/summary.json", dir);
        FILE *f = fopen(file, "rb");
        if (!f) continue;
        char buf[16384];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        cJSON *j = cJSON_Parse(buf);
        const cJSON *scene = cJSON_GetObjectItemCaseSensitive(j, "scene");
        const cJSON *dt = cJSON_GetObjectItemCaseSensitive(j, "dt");
        bool found = cJSON_IsString(scene) && cJSON_IsNumber(dt) && dt->valuedouble > 0;
        if (found) {
            r->dt = dt->valuedouble;
            free(r->scene);
            r->scene = strdup(scene->valuestring);
        }
        cJSON_Delete(j);
        if (found) return r->scene ? 0 : 1;
    }
    return 0;
}

int recording_load(const char *path, recording *r, char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    char head[512] = "";
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return 2;
    }
    size_t n = fread(head, 1, sizeof head - 1, f);
    head[n] = '\0';
    fclose(f);
    rec_kind kind = recording_kind(head);
    int rc = 0;
    if (kind != REC_JSONL) {
        r->scene = strdup("");
        r->every = 1;
        rc = r->scene ? summary_scene(path, r) : 1;
        if (rc) snprintf(err, errlen, "%s: out of memory", path);
    }
    if (rc == 0) switch (kind) {
        case REC_JSONL:
            rc = load_jsonl(path, r, err, errlen);
            break;
        case REC_CSV:
            rc = recording_load_csv(path, r, err, errlen);
            break;
        case REC_XYZ:
            rc = recording_load_xyz(path, r, err, errlen);
            break;
        case REC_VTK:
            rc = recording_load_vtk(path, r, err, errlen);
            break;
        default:
            rc = 2, snprintf(err, errlen, "%s: not a kyu-sim recording (JSONL, CSV, XYZ or VTK)", path);
        }
    if (rc == 0 && r->nframes == 0) rc = 2, snprintf(err, errlen, "%s: no bodies in any frame", path);
    if (rc) recording_free(r);
    return rc;
}
