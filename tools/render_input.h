// SPDX-License-Identifier: MIT
// kyu-render's readers of what kyu-sim writes (docs/scenes.md), each into one recording in memory:
// - frames.jsonl: a header line
//     {"kyu_recording":1,"scene":"<path>","dt":<s>,"every":K}
//   then one line per body per recorded frame
//     {"step":S,"t":T,"id":I,"p":[x,y,z],"v":[x,y,z],"r":R,"awake":true}
// - frames.csv: the header `step,t,id,x,y,z,vx,vy,vz,r,awake,...` (columns found by name), a row
//   per body per frame;
// - frames.xyz: extended XYZ frames (a count line, a line with Properties=... and Time=, Step=,
//   then a row per body; the columns pos:R:3 and radius:R:1 are needed, id and velo read when there);
// - frames.pvd (a ParaView collection of .vtp files) or one .vtp file: VTK XML PolyData as kyu-sim
//   writes it (points with "radius", and "velocity" and "id" when there; the time as "TimeValue";
//   raw appended data), read with expat.
// Lines of one step form a frame; steps must not go backwards. CSV, XYZ and VTK carry no scene and no
// dt: they come from summary.json in the file's directory or the one above (kyu-sim writes it beside
// its frames), when it is there; without it no colliders are drawn. Only JSONL and CSV say which
// bodies sleep: the others' bodies are drawn awake.
#ifndef KYU_RENDER_INPUT_H
#define KYU_RENDER_INPUT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct rec_body {
    int id;
    float p[3], v[3], r;
    bool awake;
} rec_body;

typedef struct rec_frame {
    long step;
    double t;
    int first, count; // bodies[first .. first + count)
} rec_frame;

typedef struct recording {
    char *scene; // as written in the header or summary.json (may be relative); "" when unknown
    double dt;   // 0 when unknown
    int every;
    rec_body *bodies;
    int nbodies, capb;
    rec_frame *frames;
    int nframes, capf;
} recording;

typedef enum rec_kind { REC_NONE = 0, REC_JSONL, REC_CSV, REC_XYZ, REC_VTK } rec_kind;

// What the first line of a file (`head`, NUL-terminated) says it is: one of kyu-sim's records, or
// REC_NONE (a scene file, or anything else).
rec_kind recording_kind(const char *head);

// Reads a recording of any kind. Returns 0; 2 for bad input (err says which file, line and what is
// wrong); 1 for an internal error (out of memory). On failure *out is freed.
int recording_load(const char *path, recording *out, char *err, size_t errlen);

void recording_free(recording *r);

// ---- for the readers (render_input.c, render_formats.c) ----------------------------------------

// Appends a body to the last frame, or to a new one when the step changes. 0; 1 out of memory; 2
// when the step goes backwards (why set).
int recording_append(recording *r, const rec_body *b, long step, double t, char *why, size_t n);

// The readers of the formats without a header: 0, 1 (out of memory) or 2 (bad input; `err` names the
// file, and the line where there is one). The scene and dt are the caller's (summary.json).
int recording_load_csv(const char *path, recording *r, char *err, size_t errlen);
int recording_load_xyz(const char *path, recording *r, char *err, size_t errlen);
int recording_load_vtk(const char *path, recording *r, char *err, size_t errlen);

#endif
