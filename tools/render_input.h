// SPDX-License-Identifier: MIT
// kyu-render's reader of kyu-sim recordings (frames.jsonl): a header line
//   {"kyu_recording":1,"scene":"<path>","dt":<s>,"every":K}
// then one line per body per recorded frame
//   {"step":S,"t":T,"id":I,"p":[x,y,z],"v":[x,y,z],"r":R,"awake":true}
// Lines of one step form a frame; steps must not go backwards.
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
    char *scene; // as written in the header (may be relative)
    double dt;
    int every;
    rec_body *bodies;
    int nbodies, capb;
    rec_frame *frames;
    int nframes, capf;
} recording;

// Reads a recording. Returns 0; 2 for bad input (err says which file, line and what is wrong);
// 1 for an internal error (out of memory). On failure *out is freed.
int recording_load(const char *path, recording *out, char *err, size_t errlen);

void recording_free(recording *r);

#endif
