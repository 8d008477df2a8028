// SPDX-License-Identifier: MIT
// kyu-render's readers of kyu-sim's CSV, extended XYZ and VTK frames (render_input.h). Each checks
// every value it uses and refuses a bad file with the file, the line (or the array) and what is
// wrong, as the JSONL reader does, so nothing is drawn from half a file. VTK's XML goes through
// expat; the raw appended data after it is read by the offsets the XML gives.
#include <errno.h>
#include <expat.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_input.h"

// ---- values ------------------------------------------------------------------------------------

// A whole token as a finite number.
static bool number(const char *s, double *out) {
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(d)) return false;
    *out = d;
    return true;
}

static bool whole(double d, double lo, double hi) { return d == floor(d) && d >= lo && d <= hi; }

// The checks the JSONL reader makes of a body (radius > 0, coordinates within 1e9, id >= 0).
static bool body_ok(const rec_body *b, char *why, size_t n) {
    for (int k = 0; k < 3; k++)
        if (fabsf(b->p[k]) > 1e9f || fabsf(b->v[k]) > 1e9f)
            return snprintf(why, n, "a coordinate beyond 1e9"), false;
    if (!(b->r > 0.0f && b->r < 1e6f))
        return snprintf(why, n, "radius must be > 0 (got %g)", (double)b->r), false;
    return true;
}

static void strip_newline(char *s) { s[strcspn(s, "\r\n")] = '\0'; }

// ---- CSV ---------------------------------------------------------------------------------------

enum { C_STEP, C_T, C_ID, C_X, C_Y, C_Z, C_VX, C_VY, C_VZ, C_R, C_AWAKE, C_COUNT, MAX_FIELDS = 64 };
static const char *const csv_names[C_COUNT] = {"step", "t",  "id", "x", "y",    "z",
                                               "vx",   "vy", "vz", "r", "awake"};

// Splits a line at the commas, in place. The number of fields, or -1 beyond MAX_FIELDS.
static int split_csv(char *line, char **fields) {
    int n = 0;
    for (char *s = line;; s++) {
        if (n == MAX_FIELDS) return -1;
        fields[n++] = s;
        s += strcspn(s, ",");
        if (*s == '\0') return n;
        *s = '\0';
    }
}

static int csv_header(char *line, int *col, char *why, size_t n) {
    char *fields[MAX_FIELDS];
    int count = split_csv(line, fields);
    if (count < 0) return snprintf(why, n, "more than %d columns", MAX_FIELDS), -1;
    for (int k = 0; k < C_COUNT; k++) {
        col[k] = -1;
        for (int i = 0; i < count; i++)
            if (strcmp(fields[i], csv_names[k]) == 0) col[k] = i;
        bool optional = k == C_VX || k == C_VY || k == C_VZ || k == C_AWAKE;
        if (col[k] < 0 && !optional)
            return snprintf(
                       why, n,
                       "the header has no column \"%s\" (kyu-sim's: step,t,id,x,y,z,vx,vy,vz,r,awake,...)",
                       csv_names[k]),
                   -1;
    }
    return count;
}

// One row into b, step and t; false with why set.
static bool csv_row(char *line, const int *col, int ncols, rec_body *b, long *step, double *t, char *why,
                    size_t n) {
    char *fields[MAX_FIELDS];
    int count = split_csv(line, fields);
    if (count != ncols) return snprintf(why, n, "%d fields, the header has %d", count, ncols), false;
    double v[C_COUNT] = {0};
    for (int k = 0; k < C_COUNT; k++)
        if (col[k] >= 0 && !number(fields[col[k]], &v[k]))
            return snprintf(why, n, "\"%s\" is not a finite number: \"%.40s\"", csv_names[k], fields[col[k]]),
                   false;
    if (!whole(v[C_STEP], 0, 2e9) || !whole(v[C_ID], 0, 2e9))
        return snprintf(why, n, "\"step\" and \"id\" must be whole numbers >= 0"), false;
    if (col[C_AWAKE] >= 0 && v[C_AWAKE] != 0 && v[C_AWAKE] != 1)
        return snprintf(why, n, "\"awake\" must be 0 or 1"), false;
    *b = (rec_body){(int)v[C_ID],
                    {(float)v[C_X], (float)v[C_Y], (float)v[C_Z]},
                    {(float)v[C_VX], (float)v[C_VY], (float)v[C_VZ]},
                    (float)v[C_R],
                    col[C_AWAKE] < 0 || v[C_AWAKE] == 1};
    *step = (long)v[C_STEP];
    *t = v[C_T];
    return body_ok(b, why, n);
}

int recording_load_csv(const char *path, recording *r, char *err, size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) return snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno)), 2;
    char *line = NULL, why[200] = "";
    size_t cap = 0;
    long lineno = 0;
    int col[C_COUNT], ncols = 0, rc = 0;
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        lineno++;
        strip_newline(line);
        if (lineno == 1) {
            ncols = csv_header(line, col, why, sizeof why);
            rc = ncols < 0 ? 2 : 0;
        } else if (line[0] != '\0') {
            rec_body b;
            long step;
            double t;
            rc = csv_row(line, col, ncols, &b, &step, &t, why, sizeof why)
                     ? recording_append(r, &b, step, t, why, sizeof why)
                     : 2;
        }
    }
    free(line);
    fclose(f);
    if (rc == 2) snprintf(err, errlen, "%s:%ld: %s", path, lineno, why);
    if (rc == 1) snprintf(err, errlen, "%s: out of memory", path);
    return rc;
}

// ---- extended XYZ ------------------------------------------------------------------------------

// Where the columns kyu-render reads are among a frame's (-1: absent), and how many there are.
typedef struct xyz_columns {
    int pos, radius, velo, id, total;
} xyz_columns;

// Properties=name:type:count:... into columns; false with why set.
static bool xyz_properties(const char *spec, xyz_columns *c, char *why, size_t n) {
    *c = (xyz_columns){-1, -1, -1, -1, 0};
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", spec) >= (int)sizeof buf)
        return snprintf(why, n, "Properties too long"), false;
    char *save = NULL;
    for (char *name = strtok_r(buf, ":", &save); name; name = strtok_r(NULL, ":", &save)) {
        char *type = strtok_r(NULL, ":", &save), *count = strtok_r(NULL, ":", &save);
        double k;
        if (!type || !count || !number(count, &k) || !whole(k, 1, 64) || strlen(type) != 1 ||
            !strchr("RISL", *type))
            return snprintf(why, n, "Properties must be name:type:count triples (at \"%s\")", name), false;
        const struct {
            const char *name;
            char type;
            int count;
            int *at;
        } known[] = {{"pos", 'R', 3, &c->pos},
                     {"radius", 'R', 1, &c->radius},
                     {"velo", 'R', 3, &c->velo},
                     {"id", 'I', 1, &c->id}};
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            if (strcmp(name, known[i].name) == 0) {
                if (*type != known[i].type || (int)k != known[i].count)
                    return snprintf(why, n, "Properties: %s must be %s:%c:%d", name, name, known[i].type,
                                    known[i].count),
                           false;
                *known[i].at = c->total;
            }
        c->total += (int)k;
        if (c->total > MAX_FIELDS) return snprintf(why, n, "more than %d columns", MAX_FIELDS), false;
    }
    if (c->pos < 0 || c->radius < 0)
        return snprintf(why, n, "Properties has no pos:R:3 or no radius:R:1 (kyu-render draws spheres)"),
               false;
    return true;
}

// The comment line's key=value pairs (a value may be quoted): the three kyu-render reads.
static bool xyz_comment(char *s, char **props, char **time, char **step, char *why, size_t n) {
    *props = *time = *step = NULL;
    while (*s) {
        s += strspn(s, " \t");
        if (*s == '\0') break;
        char *key = s;
        s += strcspn(s, "= \t");
        if (*s != '=') return snprintf(why, n, "\"%.20s\" is not key=value", key), false;
        *s++ = '\0';
        char *value = s;
        if (*s == '"') {
            value = ++s;
            s = strchr(s, '"');
            if (!s) return snprintf(why, n, "%s: the quote is not closed", key), false;
        } else {
            s += strcspn(s, " \t");
        }
        if (*s) *s++ = '\0';
        if (strcmp(key, "Properties") == 0) *props = value;
        if (strcmp(key, "Time") == 0) *time = value;
        if (strcmp(key, "Step") == 0) *step = value;
    }
    if (!*props) return snprintf(why, n, "no Properties= on the comment line"), false;
    return true;
}

static bool xyz_row(char *line, const xyz_columns *c, rec_body *b, int index, char *why, size_t n) {
    char *tok[MAX_FIELDS], *save = NULL;
    int count = 0;
    for (char *t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (count == c->total)
            return snprintf(why, n, "more than the %d columns of Properties", c->total), false;
        tok[count++] = t;
    }
    if (count != c->total) return snprintf(why, n, "%d columns, Properties has %d", count, c->total), false;
    double v[8] = {0}, id = index;
    int at[8] = {c->pos, c->pos + 1, c->pos + 2, c->radius, c->velo, c->velo + 1, c->velo + 2};
    for (int k = 0; k < 7; k++)
        if ((k < 4 || c->velo >= 0) && !number(tok[at[k]], &v[k]))
            return snprintf(why, n, "column %d is not a finite number: \"%.40s\"", at[k] + 1, tok[at[k]]),
                   false;
    if (c->id >= 0 && (!number(tok[c->id], &id) || !whole(id, 0, 2e9)))
        return snprintf(why, n, "the id \"%.40s\" is not a whole number >= 0", tok[c->id]), false;
    *b = (rec_body){(int)id,
                    {(float)v[0], (float)v[1], (float)v[2]},
                    {(float)v[4], (float)v[5], (float)v[6]},
                    (float)v[3],
                    true};
    return body_ok(b, why, n);
}

int recording_load_xyz(const char *path, recording *r, char *err, size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) return snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno)), 2;
    char *line = NULL, why[200] = "";
    size_t cap = 0;
    long lineno = 0, frame = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, f) >= 0) {
        lineno++;
        strip_newline(line);
        double count, time = 0, stepd = (double)frame;
        if (!number(line, &count) || !whole(count, 0, 1e8)) {
            rc = 2, snprintf(why, sizeof why, "a frame starts with its count of bodies, not \"%.40s\"", line);
            break;
        }
        char *props, *t, *s;
        xyz_columns c;
        if (getline(&line, &cap, f) < 0) {
            rc = 2, snprintf(why, sizeof why, "the frame's comment line is missing");
            break;
        }
        lineno++;
        strip_newline(line);
        if (!xyz_comment(line, &props, &t, &s, why, sizeof why) ||
            !xyz_properties(props, &c, why, sizeof why) || (t && !number(t, &time)) ||
            (s && (!number(s, &stepd) || !whole(stepd, 0, 2e9)))) {
            if (!why[0]) snprintf(why, sizeof why, "Time or Step is not a number");
            rc = 2;
            break;
        }
        for (long i = 0; rc == 0 && i < (long)count; i++) {
            rec_body b;
            if (getline(&line, &cap, f) < 0) {
                rc = 2, snprintf(why, sizeof why, "the frame has %ld of its %ld rows", i, (long)count);
                break;
            }
            lineno++;
            strip_newline(line);
            rc = xyz_row(line, &c, &b, (int)i, why, sizeof why)
                     ? recording_append(r, &b, (long)stepd, time, why, sizeof why)
                     : 2;
        }
        frame++;
    }
    free(line);
    fclose(f);
    if (rc == 2) snprintf(err, errlen, "%s:%ld: %s", path, lineno, why);
    if (rc == 1) snprintf(err, errlen, "%s: out of memory", path);
    return rc;
}

// ---- VTK ---------------------------------------------------------------------------------------

enum { MAX_ARRAYS = 16 };

typedef struct vtk_array {
    char name[64], type[16];
    int components;
    unsigned long long offset;
} vtk_array;

// What expat found in a .vtp's XML (or a .pvd's data sets).
typedef struct vtk_xml {
    char file_type[32], byte_order[16], header_type[16], encoding[16];
    bool compressed, in_points, in_point_data, in_field_data, in_time;
    int pieces;
    long long points;
    vtk_array arrays[MAX_ARRAYS];
    int narrays;
    char time_text[64];
    bool has_time;
    char **files; // a .pvd's data sets, with their times
    double *times;
    int nsets, capsets;
    char why[200]; // the first thing wrong
} vtk_xml;

static const char *attr(const XML_Char **atts, const char *name) {
    for (int i = 0; atts[i]; i += 2)
        if (strcmp(atts[i], name) == 0) return atts[i + 1];
    return NULL;
}

static void copy(char *dst, size_t cap, const char *src) { snprintf(dst, cap, "%s", src ? src : ""); }

static void data_array(vtk_xml *x, const XML_Char **atts) {
    const char *name = attr(atts, "Name"), *format = attr(atts, "format");
    if (x->in_field_data && name && strcmp(name, "TimeValue") == 0) {
        x->in_time = format && strcmp(format, "ascii") == 0;
        x->has_time = x->in_time;
        return;
    }
    if (!x->in_points && !x->in_point_data) return; // the vertex cells: every point is one
    if (!format || strcmp(format, "appended") != 0) {
        snprintf(x->why, sizeof x->why, "array \"%s\" is format=\"%s\": kyu-render reads appended data",
                 name ? name : "?", format ? format : "");
        return;
    }
    if (x->narrays == MAX_ARRAYS) return;
    vtk_array *a = &x->arrays[x->narrays++];
    copy(a->name, sizeof a->name, x->in_points ? "Points" : name);
    copy(a->type, sizeof a->type, attr(atts, "type"));
    const char *comps = attr(atts, "NumberOfComponents"), *offset = attr(atts, "offset");
    a->components = comps ? atoi(comps) : 1;
    a->offset = offset ? strtoull(offset, NULL, 10) : 0;
}

static void data_set(vtk_xml *x, const XML_Char **atts) {
    const char *file = attr(atts, "file"), *time = attr(atts, "timestep");
    double t = 0;
    if (!file || (time && !number(time, &t))) {
        snprintf(x->why, sizeof x->why, "a DataSet needs a file and a numeric timestep");
        return;
    }
    if (x->nsets == x->capsets) {
        int cap = x->capsets ? 2 * x->capsets : 64;
        char **files = realloc(x->files, (size_t)cap * sizeof *files);
        if (files) x->files = files;
        double *times = realloc(x->times, (size_t)cap * sizeof *times);
        if (times) x->times = times;
        if (!files || !times) {
            snprintf(x->why, sizeof x->why, "out of memory");
            return;
        }
        x->capsets = cap;
    }
    if (!(x->files[x->nsets] = strdup(file))) {
        snprintf(x->why, sizeof x->why, "out of memory");
        return;
    }
    x->times[x->nsets++] = t;
}

static void XMLCALL on_start(void *ud, const XML_Char *el, const XML_Char **atts) {
    vtk_xml *x = ud;
    if (strcmp(el, "VTKFile") == 0) {
        copy(x->file_type, sizeof x->file_type, attr(atts, "type"));
        copy(x->byte_order, sizeof x->byte_order, attr(atts, "byte_order"));
        copy(x->header_type, sizeof x->header_type, attr(atts, "header_type"));
        x->compressed = attr(atts, "compressor") != NULL;
    } else if (strcmp(el, "Piece") == 0) {
        const char *np = attr(atts, "NumberOfPoints");
        x->pieces++;
        x->points = np ? atoll(np) : -1;
    } else if (strcmp(el, "Points") == 0) {
        x->in_points = true;
    } else if (strcmp(el, "PointData") == 0) {
        x->in_point_data = true;
    } else if (strcmp(el, "FieldData") == 0) {
        x->in_field_data = true;
    } else if (strcmp(el, "DataArray") == 0) {
        data_array(x, atts);
    } else if (strcmp(el, "AppendedData") == 0) {
        copy(x->encoding, sizeof x->encoding, attr(atts, "encoding"));
    } else if (strcmp(el, "DataSet") == 0) {
        data_set(x, atts);
    }
}

static void XMLCALL on_end(void *ud, const XML_Char *el) {
    vtk_xml *x = ud;
    if (strcmp(el, "Points") == 0) x->in_points = false;
    if (strcmp(el, "PointData") == 0) x->in_point_data = false;
    if (strcmp(el, "FieldData") == 0) x->in_field_data = false;
    if (strcmp(el, "DataArray") == 0) x->in_time = false;
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int len) {
    vtk_xml *x = ud;
    size_t have = strlen(x->time_text);
    if (x->in_time && len > 0 && have + (size_t)len < sizeof x->time_text) {
        memcpy(x->time_text + have, s, (size_t)len);
        x->time_text[have + (size_t)len] = '\0';
    }
}

// Parses len bytes of XML (all of a .pvd, or a .vtp up to the end of its AppendedData tag).
static bool parse_xml(const char *text, size_t len, bool final, vtk_xml *x) {
    XML_Parser p = XML_ParserCreate(NULL);
    if (!p) return snprintf(x->why, sizeof x->why, "out of memory"), false;
    XML_SetUserData(p, x);
    XML_SetElementHandler(p, on_start, on_end);
    XML_SetCharacterDataHandler(p, on_text);
    bool ok = XML_Parse(p, text, (int)len, final) == XML_STATUS_OK;
    if (!ok)
        snprintf(x->why, sizeof x->why, "line %lu: %s", (unsigned long)XML_GetCurrentLineNumber(p),
                 XML_ErrorString(XML_GetErrorCode(p)));
    XML_ParserFree(p);
    return ok && !x->why[0];
}

static void xml_free(vtk_xml *x) {
    for (int i = 0; i < x->nsets; i++) free(x->files[i]);
    free(x->files);
    free(x->times);
}

// The whole file, NUL-terminated (the XML is searched as text; the binary part is read by offset).
static char *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && n < (1L << 31) && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
            errno = EIO;
        } else {
            buf[n] = '\0';
            *size = (size_t)n;
        }
    }
    fclose(f);
    return buf;
}

static bool little_endian(void) {
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

// Reads `size` bytes at p as an unsigned integer or a float of the file's byte order.
static void load_bytes(const unsigned char *p, int size, bool swap, unsigned char *out) {
    for (int i = 0; i < size; i++) out[i] = p[swap ? size - 1 - i : i];
}

static double element(const unsigned char *p, const char *type, bool swap) {
    unsigned char b[8];
    if (strcmp(type, "Float32") == 0 || strcmp(type, "Int32") == 0 || strcmp(type, "UInt32") == 0) {
        load_bytes(p, 4, swap, b);
        float f;
        int32_t i;
        uint32_t u;
        memcpy(&f, b, 4), memcpy(&i, b, 4), memcpy(&u, b, 4);
        return type[0] == 'F' ? (double)f : type[0] == 'I' ? (double)i : (double)u;
    }
    load_bytes(p, 8, swap, b);
    double d;
    int64_t i;
    uint64_t u;
    memcpy(&d, b, 8), memcpy(&i, b, 8), memcpy(&u, b, 8);
    return type[0] == 'F' ? d : type[0] == 'I' ? (double)i : (double)u;
}

static int type_size(const char *type) {
    static const char *const four[] = {"Float32", "Int32", "UInt32"}, *const eight[] = {"Float64", "Int64",
                                                                                        "UInt64"};
    for (int i = 0; i < 3; i++) {
        if (strcmp(type, four[i]) == 0) return 4;
        if (strcmp(type, eight[i]) == 0) return 8;
    }
    return 0;
}

// The values of the appended array `name` with `components` components (points * components of
// them into out). 1 found, 0 absent, -1 bad (why set).
static int vtk_values(const vtk_xml *x, const char *name, int components, const unsigned char *data,
                      size_t left, double *out, char *why, size_t n) {
    const vtk_array *a = NULL;
    for (int i = 0; i < x->narrays; i++)
        if (strcmp(x->arrays[i].name, name) == 0) a = &x->arrays[i];
    if (!a) return 0;
    int size = type_size(a->type), header = strcmp(x->header_type, "UInt32") == 0 ? 4 : 8;
    bool swap = (strcmp(x->byte_order, "BigEndian") == 0) == little_endian();
    if (size == 0 || a->components != components)
        return snprintf(why, n, "array \"%s\" is %s with %d components, not %d numbers", name, a->type,
                        a->components, components),
               -1;
    unsigned long long want = (unsigned long long)x->points * (unsigned long long)components * (unsigned)size;
    if (a->offset > left || left - a->offset < (unsigned)header)
        return snprintf(why, n, "array \"%s\": its offset is past the end of the file", name), -1;
    unsigned char hb[8] = {0};
    load_bytes(data + a->offset, header, swap, hb);
    unsigned long long bytes = 0;
    if (header == 4) {
        uint32_t b4;
        memcpy(&b4, hb, 4);
        bytes = b4;
    } else {
        uint64_t b8;
        memcpy(&b8, hb, 8);
        bytes = b8;
    }
    if (bytes != want)
        return snprintf(why, n, "array \"%s\" has %llu bytes, %lld points need %llu", name, bytes, x->points,
                        want),
               -1;
    if (left - a->offset - (unsigned)header < want)
        return snprintf(why, n, "the file ends inside array \"%s\" (cut short?)", name), -1;
    const unsigned char *p = data + a->offset + header;
    for (long long i = 0; i < x->points * components; i++) out[i] = element(p + i * size, a->type, swap);
    return 1;
}

// The XML of a VTK file: all of a .pvd; a .vtp's up to its AppendedData tag, whose raw data follows
// the '_' after it (*data, *left bytes).
static bool vtk_read_xml(const char *buf, size_t size, vtk_xml *x, const unsigned char **data, size_t *left) {
    const char *app = strstr(buf, "<AppendedData");
    const char *end = app ? strchr(app, '>') : NULL;
    if (app && !end) return snprintf(x->why, sizeof x->why, "the AppendedData tag is not closed"), false;
    if (!parse_xml(buf, end ? (size_t)(end + 1 - buf) : size, !end, x)) return false;
    if (end) {
        const char *mark = end + 1 + strspn(end + 1, " \t\r\n");
        if (*mark != '_' || strcmp(x->encoding, "raw") != 0)
            return snprintf(x->why, sizeof x->why, "AppendedData must be encoding=\"raw\", after a '_'"),
                   false;
        *data = (const unsigned char *)mark + 1;
        *left = size - (size_t)(mark + 1 - buf);
    }
    return true;
}

// One .vtp file, a frame: index is its place in the series, time_default the .pvd's time for it.
static int load_vtp(const char *path, recording *r, int index, double time_default, char *why, size_t n) {
    size_t size = 0, left = 0;
    const unsigned char *data = NULL;
    char *buf = slurp(path, &size);
    if (!buf) return snprintf(why, n, "cannot read: %s", strerror(errno)), 2;
    vtk_xml x = {0};
    int rc = 0;
    if (!vtk_read_xml(buf, size, &x, &data, &left))
        rc = 2, snprintf(why, n, "%s", x.why);
    else if (strcmp(x.file_type, "PolyData") != 0 || x.compressed || x.pieces != 1 || x.points < 0 ||
             x.points > 100000000 || (x.points > 0 && !data))
        rc = 2, snprintf(why, n,
                         "not PolyData of one piece with its points in raw appended data, uncompressed "
                         "(as kyu-sim writes it)");
    double *pos = NULL, *rad = NULL, *vel = NULL, *ids = NULL, t = time_default;
    if (rc == 0 && x.points > 0) {
        size_t np = (size_t)x.points;
        pos = malloc(np * 3 * sizeof *pos), rad = malloc(np * sizeof *rad);
        vel = calloc(np * 3, sizeof *vel), ids = malloc(np * sizeof *ids);
        if (!pos || !rad || !vel || !ids) rc = 1;
    }
    int got[4] = {0};
    if (rc == 0 && x.points > 0) {
        got[0] = vtk_values(&x, "Points", 3, data, left, pos, why, n);
        got[1] = got[0] < 0 ? -1 : vtk_values(&x, "radius", 1, data, left, rad, why, n);
        got[2] = got[1] < 0 ? -1 : vtk_values(&x, "velocity", 3, data, left, vel, why, n);
        got[3] = got[2] < 0 ? -1 : vtk_values(&x, "id", 1, data, left, ids, why, n);
        if (got[3] < 0)
            rc = 2;
        else if (!got[0] || !got[1])
            rc = 2,
            snprintf(why, n, "no %s (kyu-render draws spheres)", got[0] ? "point data \"radius\"" : "Points");
    }
    if (rc == 0 && x.has_time) {
        char *text = x.time_text + strspn(x.time_text, " \t\r\n");
        text[strcspn(text, " \t\r\n")] = '\0';
        if (!number(text, &t)) rc = 2, snprintf(why, n, "TimeValue is not a number");
    }
    long step = r->dt > 0 ? lround(t / r->dt) : index;
    for (long long i = 0; rc == 0 && i < x.points; i++) {
        double id = got[3] ? ids[i] : (double)i;
        rec_body b = {whole(id, 0, 2e9) ? (int)id : -1,
                      {(float)pos[3 * i], (float)pos[3 * i + 1], (float)pos[3 * i + 2]},
                      {(float)vel[3 * i], (float)vel[3 * i + 1], (float)vel[3 * i + 2]},
                      (float)rad[i],
                      true};
        if (b.id < 0)
            rc = 2, snprintf(why, n, "point %lld: the id is not a whole number >= 0", i);
        else if (!body_ok(&b, why, n))
            rc = 2;
        else
            rc = recording_append(r, &b, step, t, why, n);
    }
    free(pos), free(rad), free(vel), free(ids);
    xml_free(&x);
    free(buf);
    return rc;
}

int recording_load_vtk(const char *path, recording *r, char *err, size_t errlen) {
    size_t size = 0, left = 0;
    const unsigned char *data = NULL;
    char why[300] = "";
    char *buf = slurp(path, &size);
    if (!buf) return snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno)), 2;
    vtk_xml x = {0};
    bool ok = vtk_read_xml(buf, size, &x, &data, &left);
    int rc = 0;
    if (!ok) {
        rc = strcmp(x.why, "out of memory") == 0 ? 1 : 2;
        snprintf(err, errlen, "%s: %s", path, x.why);
    } else if (strcmp(x.file_type, "Collection") == 0) {
        // A .pvd: its data sets in order, each file relative to the .pvd's directory.
        const char *slash = strrchr(path, '/');
        for (int i = 0; rc == 0 && i < x.nsets; i++) {
            char file[4096];
            if (x.files[i][0] == '/' || !slash)
                snprintf(file, sizeof file, "%s", x.files[i]);
            else
                snprintf(file, sizeof file, "%.*s/%s", (int)(slash - path), path, x.files[i]);
            rc = load_vtp(file, r, i, x.times[i], why, sizeof why);
            if (rc)
                snprintf(err, errlen, "%s: data set %d, %s: %s", path, i, file,
                         rc == 1 ? "out of memory" : why);
        }
    } else {
        rc = load_vtp(path, r, 0, 0.0, why, sizeof why);
        if (rc) snprintf(err, errlen, "%s: %s", path, rc == 1 ? "out of memory" : why);
    }
    xml_free(&x);
    free(buf);
    return rc;
}
