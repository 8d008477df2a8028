// SPDX-License-Identifier: MIT
// Rotation: turning an orientation by an angular velocity, and the velocity of a point on a
// kinematic collider's surface. A sphere's shape does not depend on its orientation, so rotation
// enters the step only through the velocity of contact points (friction, engine/contact_solver.c and
// engine/response.c) and is integrated for drawing and for the user.
#include "internal.h"

// The rotation by the vector phi (angle |phi|, axis phi / |phi|) as a unit quaternion, in double:
// (sin(h) / |phi| phi, cos h) with h = |phi| / 2. The half angle is halved k times until h <= 1/4,
// where the Taylor series below are exact to 2e-14 (their first term left out is h^10 / 10!), and
// the result squared k times (squaring a rotation doubles its angle). Only + - * / and sqrt: no
// libm sin or cos, whose last bits differ between C libraries (the browser build must give the
// same state hash as the native one).
#define KEEP_UNIT 32
static void turn_of(const double phi[3], double out[4]) {
    double a2 = phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2], h2 = 0.25 * a2, scale = 0.5;
    int k = 0;
    while (h2 > 0.0625 && k < 200) h2 *= 0.25, scale *= 0.5, k++;
    double sinc = 1.0 - h2 / 6.0 * (1.0 - h2 / 20.0 * (1.0 - h2 / 42.0 * (1.0 - h2 / 72.0))); // sin(h) / h
    double c = 1.0 - h2 / 2.0 * (1.0 - h2 / 12.0 * (1.0 - h2 / 30.0 * (1.0 - h2 / 56.0)));    // cos(h)
    double f = scale * sinc; // h = |phi| scale: the vector part sin(h) phi / |phi| = sinc scale phi
    double x = f * phi[0], y = f * phi[1], z = f * phi[2];
    for (int i = 0; i < k; i++) { // (v, c)^2 = (2 c v, c^2 - v.v) about one axis
        double c2 = c * c - (x * x + y * y + z * z);
        x *= 2.0 * c, y *= 2.0 * c, z *= 2.0 * c;
        c = c2;
        // Each squaring doubles the rounding's share of the length (2^32 of an ulp is 5e-7). Beyond
        // KEEP_UNIT squarings, a turn of over 2^31 radians in one step (more than the fastest spin
        // kyu accepts, 1e9 rad/s, turns in its longest step, 1 s: reached only by a body of next to
        // no inertia that a contact's warm start spun up), the length is brought back to 1 at each
        // one; left alone it overflowed into NaN (a snapshot holding such a body: its rotation).
        if (k > KEEP_UNIT) {
            double n = sqrt(x * x + y * y + z * z + c * c);
            x /= n, y /= n, z /= n, c /= n;
        }
    }
    out[0] = x, out[1] = y, out[2] = z, out[3] = c;
}

versors kyu_quat_turn(versors q, vec3s w, float seconds) {
    double phi[3] = {(double)w.x * (double)seconds, (double)w.y * (double)seconds,
                     (double)w.z * (double)seconds};
    if (phi[0] == 0.0 && phi[1] == 0.0 && phi[2] == 0.0) return q;
    double d[4], r[4];
    turn_of(phi, d);
    // r = d q (the turn in the world frame comes first from the left); cglm's versors is (x, y, z, w).
    double qx = (double)q.x, qy = (double)q.y, qz = (double)q.z, qw = (double)q.w;
    r[0] = d[3] * qx + qw * d[0] + (d[1] * qz - d[2] * qy);
    r[1] = d[3] * qy + qw * d[1] + (d[2] * qx - d[0] * qz);
    r[2] = d[3] * qz + qw * d[2] + (d[0] * qy - d[1] * qx);
    r[3] = d[3] * qw - (d[0] * qx + d[1] * qy + d[2] * qz);
    double n = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    versors out;
    for (int i = 0; i < 4; i++) out.raw[i] = (float)(r[i] / n);
    return out;
}

versors kyu_quat_unit(versors q) {
    double n2 = 0.0;
    for (int i = 0; i < 4; i++) n2 += (double)q.raw[i] * (double)q.raw[i];
    double n = sqrt(n2);
    versors out;
    for (int i = 0; i < 4; i++) out.raw[i] = (float)((double)q.raw[i] / n);
    return out;
}

// The velocity of the collider's surface at point p (n: the contact normal, out of the collider):
// its linear velocity, its turn about its position, and the tangential part of its surface velocity.
vec3s kyu_collider_point_velocity(const collider *c, vec3s p, vec3s n) {
    vec3s v = c->velocity;
    v = glms_vec3_add(v, glms_vec3_cross(c->angular_velocity, glms_vec3_sub(p, c->box.center)));
    vec3s s = c->surface_velocity;
    return glms_vec3_add(v, glms_vec3_sub(s, glms_vec3_scale(n, glms_vec3_dot(s, n))));
}

// Whether the collider's surface moves other than by its linear velocity (turn or surface velocity).
int kyu_collider_spins(const collider *c) {
    return glms_vec3_norm2(c->angular_velocity) > 0.0f || glms_vec3_norm2(c->surface_velocity) > 0.0f;
}
