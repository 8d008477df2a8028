// SPDX-License-Identifier: MIT
/// @file frame_files.h
/// Frames in the files that analysis tools open directly (issue 23), written by kyu-sim and by the
/// Python package:
/// - VTK XML PolyData (.vtp): one file a frame, the bodies as points (a vertex cell each) with the
///   point data "radius", "velocity" and "id", and the frame's time as the field "TimeValue"; a
///   .pvd collection lists the frames with their times, so ParaView opens the series as one.
///   Binary (appended raw data, the machine's byte order, declared in the header).
/// - Extended XYZ (OVITO, ASE): one frame after another in one file, each a count line, a line of
///   key=value pairs (`Properties=species:S:1:pos:R:3:radius:R:1:velo:R:3:id:I:1 Time=... Step=...`,
///   and `Lattice`, `Origin`, `pbc` when the box is known), and a row per body.
/// Numbers are written with 9 significant digits, so every float comes back to the same bits.
#ifndef KYU_TOOLS_FRAME_FILES_H
#define KYU_TOOLS_FRAME_FILES_H

#include <stdint.h>
#include <stdio.h>

/// One frame: `count` bodies, each array entry i is body i. Bodies do not rotate yet: their spin
/// joins here (and the files' point data as "angular_velocity") once they do.
typedef struct kyu_frame {
    int count;
    const uint32_t *ids;   ///< body ids (handle index1, the ids of kyu-sim's CSV)
    const float *position; ///< m, 3 per body
    const float *velocity; ///< m/s, 3 per body
    const float *radius;   ///< m
    long step;
    double time; ///< s
} kyu_frame;

/// Writes the frame to `path` as a .vtp file. 0, or -1 with errno set.
int kyu_frame_write_vtp(const kyu_frame *frame, const char *path);

/// Appends the frame to an extended XYZ stream. `box` (lower x, y, z, then upper x, y, z) may be
/// NULL: the box is unknown and nothing about it is written (OVITO then bounds the bodies itself).
/// 0, or -1 when the stream has an error.
int kyu_frame_write_xyz(const kyu_frame *frame, FILE *out, const float box[6]);

/// The box of the frame's bodies, each as its sphere (centre -/+ radius), in `box` as
/// kyu_frame_write_xyz takes it: the cell kyu-sim gives OVITO. 1, or 0 for a frame without bodies
/// (box untouched).
int kyu_frame_bounds(const kyu_frame *frame, float box[6]);

/// Writes a ParaView collection (.pvd) of `count` frame files with their times. The file names are
/// written as given: make them relative to the .pvd's directory. 0, or -1 with errno set.
int kyu_pvd_write(const char *path, int count, const double *times, const char *const *files);

#endif
