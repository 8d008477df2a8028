// SPDX-License-Identifier: MIT
/// @file frame_files.h
/// Frames in the files that analysis tools open directly (issue 23), written by kyu-sim and by the
/// Python package:
/// - VTK XML PolyData (.vtp): one file a frame, the bodies as points (a vertex cell each) with the
///   point data "radius", "velocity" and "id", then "angular_velocity", "orientation" (a unit
///   quaternion x y z w), "force", "torque" and "coordination" when the frame has them, and the
///   frame's time as the field "TimeValue"; a .pvd collection lists the frames with their times, so
///   ParaView opens the series as one. Binary (appended raw data, the machine's byte order, declared
///   in the header).
/// - Extended XYZ (OVITO, ASE): one frame after another in one file, each a count line, a line of
///   key=value pairs (`Properties=species:S:1:pos:R:3:radius:R:1:velo:R:3:id:I:1`, then
///   `omega:R:3:orientation:R:4:force:R:3:torque:R:3:n_neighb:I:1` when the frame has them: the
///   names OVITO maps to Angular Velocity, Orientation, Force, Torque and Coordination; `Time=...
///   Step=...`, and `Lattice`, `Origin`, `pbc` when the box is known), and a row per body.
/// - The contact network (.vtp): each contact a line cell from body A's centre to body B's, or to
///   the contact point on a collider, with the cell data "normal_force", "tangential_force" (N,
///   magnitudes), "force" (N, on A), "normal" (from B to A), "body_a", "body_b" (ids, 0 for a
///   collider) and "collider" (its id, 0 for a body): ParaView draws force chains from it (a Tube
///   filter scaled by normal_force).
/// Numbers are written with 9 significant digits, so every float comes back to the same bits.
#ifndef KYU_TOOLS_FRAME_FILES_H
#define KYU_TOOLS_FRAME_FILES_H

#include <stdint.h>
#include <stdio.h>

#include <kyu/kyu.h>

/// One frame: `count` bodies, each array entry i is body i. The arrays after `time` may be NULL:
/// the files then leave them out.
typedef struct kyu_frame {
    int count;
    const uint32_t *ids;   ///< body ids (handle index1, the ids of kyu-sim's CSV)
    const float *position; ///< m, 3 per body
    const float *velocity; ///< m/s, 3 per body
    const float *radius;   ///< m
    long step;
    double time;                   ///< s
    const float *angular_velocity; ///< rad/s, 3 per body
    const float *rotation;         ///< the orientation, a unit quaternion x y z w, 4 per body
    const float *force;            ///< N, 3 per body: the last step's contacts and impacts (measure.h)
    const float *torque;           ///< N m, 3 per body
    const int32_t *coordination;   ///< the other bodies each touches
} kyu_frame;

/// The arrays behind a gathered frame (kyu_frame_gather); free them with kyu_frame_data_free.
typedef struct kyu_frame_data {
    kyu_body_id *all;
    uint32_t *ids;
    float *pos, *vel, *radius, *ang, *rot, *force, *torque;
    int32_t *coord;
} kyu_frame_data;

/// The frame of the bodies `ids` (n of them; every live body in slot order when ids is NULL), with
/// every array of kyu_frame filled (forces from kyu_world_get_body_forces). KYU_OK, or the error of
/// a bad handle, or KYU_ERR_OUT_OF_MEMORY; `data` is to be freed in every case.
int kyu_frame_gather(kyu_world *w, const kyu_body_id *ids, int n, long step, double time,
                     kyu_frame_data *data, kyu_frame *frame);
void kyu_frame_data_free(kyu_frame_data *data);

/// Writes the world's contact network (kyu_world_get_contact_network) to `path` as a .vtp file of
/// lines (see above). KYU_OK, KYU_ERR_IO with errno set, or KYU_ERR_OUT_OF_MEMORY.
int kyu_network_write_vtp(kyu_world *w, double time, const char *path);

/// Writes the frame to `path` as a .vtp file. 0, or -1 with errno set.
int kyu_frame_write_vtp(const kyu_frame *frame, const char *path);

/// Appends the frame to an extended XYZ stream. `box` (lower x, y, z, then upper x, y, z) may be
/// NULL: the box is unknown and nothing about it is written (OVITO then bounds the bodies itself).
/// `pbc` says which of its axes are periodic (OVITO's pbc key; NULL: none). 0, or -1 when the
/// stream has an error.
int kyu_frame_write_xyz(const kyu_frame *frame, FILE *out, const float box[6], const bool pbc[3]);

/// The world's periodic box into `box` on its periodic axes (the others are left as they are) and
/// their flags into `pbc`: the cell of a periodic world is its box. 1 when an axis is periodic.
int kyu_frame_periodic_cell(const kyu_world *world, float box[6], bool pbc[3]);

/// The box of the frame's bodies, each as its sphere (centre -/+ radius), in `box` as
/// kyu_frame_write_xyz takes it: the cell kyu-sim gives OVITO. 1, or 0 for a frame without bodies
/// (box untouched).
int kyu_frame_bounds(const kyu_frame *frame, float box[6]);

/// Writes a ParaView collection (.pvd) of `count` frame files with their times. The file names are
/// written as given: make them relative to the .pvd's directory. 0, or -1 with errno set.
int kyu_pvd_write(const char *path, int count, const double *times, const char *const *files);

#endif
