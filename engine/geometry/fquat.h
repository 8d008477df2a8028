// SPDX-License-Identifier: MIT
// Private to the engine: the three quaternion functions of cglm that the engine's state depends
// on, written out in one order of operations for every processor. cglm adds a quaternion's four
// squares in a different order on each: SSE2 as (x x + z z) + (y y + w w) and divides by the norm,
// NEON (ARM64) as (x x + y y) + (z z + w w) and multiplies by its reciprocal, plain C (wasm) left to
// right; so a box collider's frame, built from a quaternion whose norm is not exactly 1, would differ
// in its last bits from one processor to another. These follow cglm's SSE2 path operation for
// operation (so x86-64's answers, and the pinned state hashes, are unchanged; tests/test_geometry.c
// compares them with cglm's on x86-64) in plain float arithmetic, which every target computes alike
// (IEEE single precision, no fused multiply-add: -ffp-contract=off).
#ifndef KYU_FQUAT_H
#define KYU_FQUAT_H

#include <math.h>

#include <cglm/struct.h>

// glm_quat_normalize (SSE2): q / |q|, or the identity for a zero quaternion.
static inline versors kyu_fquat_normalize(versors q) {
    float x = q.raw[0], y = q.raw[1], z = q.raw[2], w = q.raw[3];
    float dot = (x * x + z * z) + (y * y + w * w);
    if (dot <= 0.0f) return glms_quat_identity();
    float n = sqrtf(dot);
    return (versors){{x / n, y / n, z / n, w / n}};
}

// glm_quat_rotatev: v turned by q (normalised first).
static inline vec3s kyu_fquat_rotatev(versors q, vec3s v) {
    versors p = kyu_fquat_normalize(q);
    vec3s u = {{p.raw[0], p.raw[1], p.raw[2]}};
    float s = p.raw[3];
    vec3s v1 = glms_vec3_scale(u, 2.0f * glms_vec3_dot(u, v));
    vec3s v2 = glms_vec3_scale(v, s * s - glms_vec3_dot(u, u));
    v1 = glms_vec3_add(v1, v2);
    v2 = glms_vec3_scale(glms_vec3_cross(u, v), 2.0f * s);
    return glms_vec3_add(v1, v2);
}

// glm_quat_mat3: the rotation matrix of q (scaled by 2 / |q|^2 through its norm, as cglm does).
static inline mat3s kyu_fquat_mat3(versors q) {
    float x = q.raw[0], y = q.raw[1], z = q.raw[2], w = q.raw[3];
    float norm = sqrtf((x * x + y * y) + (z * z + w * w));
    float s = norm > 0.0f ? 2.0f / norm : 0.0f;
    float xx = s * x * x, xy = s * x * y, wx = s * w * x;
    float yy = s * y * y, yz = s * y * z, wy = s * w * y;
    float zz = s * z * z, xz = s * x * z, wz = s * w * z;
    mat3s m;
    m.raw[0][0] = 1.0f - yy - zz;
    m.raw[1][1] = 1.0f - xx - zz;
    m.raw[2][2] = 1.0f - xx - yy;
    m.raw[0][1] = xy + wz;
    m.raw[1][2] = yz + wx;
    m.raw[2][0] = xz + wy;
    m.raw[1][0] = xy - wz;
    m.raw[2][1] = yz - wx;
    m.raw[0][2] = xz - wy;
    return m;
}

#endif
