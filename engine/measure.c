// SPDX-License-Identifier: MIT
// What DEM work measures (include/kyu/measure.h), read between steps and never written: each
// body's force, torque and contacts from the impulses of the last step, the contact network, and a
// box's stress (the virial), packing fraction and coordination. The contacts' impulses are the
// cache's (contact.c: the solver's accumulated jn, jt, jr, carried into the next step's cache and
// into a sleeping island's records); the impacts' are the queue's, kept by response.c when the
// world asks (impacts.h: the tally).
#include <string.h>

#include "internal.h"

#define KYU_PI 3.14159265358979323846 // M_PI is not C11

kyu_status kyu_world_enable_impact_forces(kyu_world *w, bool enable) {
    if (!w) return KYU_ERR_NULL;
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_world_enable_impact_forces during a step");
    w->impacts.tally_on = enable ? 1 : 0;
    if (!enable) kyu_impacts_tally_free(&w->impacts);
    return KYU_OK;
}

// A contact counts in the network and a body's coordination when it touches (within the slop) or
// pushed in the last step (a speculative contact that stopped a pair closing its gap).
static int carries(const contact *c) { return !c->sensor && (c->touching || c->jn > 0.0f); }

// The point of a contact: halfway between the two spheres' surfaces, or on the collider's surface.
static vec3s contact_point(const kyu_world *w, const contact *c) {
    float r = w->bodies.radius[c->a];
    float d = kyu_is_collider(c->b) ? r + c->gap : r + 0.5f * c->gap;
    return glms_vec3_sub(w->bodies.pos[c->a], glms_vec3_scale(c->normal, d));
}

// ---- each body's force ----------------------------------------------------------------------------

typedef struct force_sum {
    const kyu_body_force_arrays *out;
    int *row; // per slot: its row in the output (-1: dead, or beyond the capacity)
} force_sum;

static void add3(float *dst, vec3s v) {
    for (int k = 0; k < 3; k++) dst[k] += v.raw[k];
}

// Impulse j and angular impulse l on body i (its row's sums), and one more partner.
static void add_to(const force_sum *x, uint32_t i, vec3s j, vec3s l, int body_partner, int count) {
    int r = x->row[i];
    if (r < 0) return;
    if (x->out->force) add3(x->out->force + 3 * r, j);
    if (x->out->torque) add3(x->out->torque + 3 * r, l);
    if (count && body_partner && x->out->coordination) x->out->coordination[r]++;
    if (count && !body_partner && x->out->wall_contacts) x->out->wall_contacts[r]++;
}

// A contact's impulses on its two sides: p = jn n + jt through the contact point, whose lever is
// the radius along the normal (as the solver applies it), and the angular impulse jr.
static void sum_contact(const kyu_world *w, const contact *c, void *ctx) {
    if (c->sensor) return;
    const force_sum *x = ctx;
    int body = !kyu_is_collider(c->b), count = carries(c);
    vec3s p = glms_vec3_add(glms_vec3_scale(c->normal, c->jn), c->jt);
    vec3s turn = glms_vec3_cross(c->normal, c->jt); // n x p: the normal part has no moment
    float ra = w->bodies.radius[c->a];
    add_to(x, c->a, p, glms_vec3_sub(c->jr, glms_vec3_scale(turn, ra)), body, count);
    if (body) {
        float rb = w->bodies.radius[c->b];
        add_to(x, c->b, glms_vec3_negate(p),
               glms_vec3_negate(glms_vec3_add(c->jr, glms_vec3_scale(turn, rb))), 1, count);
    }
}

// The live bodies' rows in slot order, or -1 beyond the capacity; NULL out of memory.
static int *rows_of(const kyu_world *w, int capacity) {
    const body_store *s = &w->bodies;
    int *row = kyu_malloc((size_t)(s->high > 0 ? s->high : 1) * sizeof *row);
    if (!row) return NULL;
    for (int i = 0, n = 0; i < s->high; i++) row[i] = s->alive[i] && n < capacity ? n++ : -1;
    return row;
}

int kyu_world_get_body_forces(const kyu_world *w, const kyu_body_force_arrays *out, int capacity) {
    if (!w || !out || capacity < 0) return -1;
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_world_get_body_forces during a step"), -1;
    if (w->impacts.tally_lost)
        return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "the last step could not keep its impacts' impulses"), -1;
    int n = capacity < w->bodies.count ? capacity : w->bodies.count;
    if (out->force) memset(out->force, 0, (size_t)n * 3 * sizeof *out->force);
    if (out->torque) memset(out->torque, 0, (size_t)n * 3 * sizeof *out->torque);
    if (out->coordination) memset(out->coordination, 0, (size_t)n * sizeof *out->coordination);
    if (out->wall_contacts) memset(out->wall_contacts, 0, (size_t)n * sizeof *out->wall_contacts);
    if (n == 0) return w->bodies.count;
    force_sum x = {out, rows_of(w, capacity)};
    if (!x.row) return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "kyu_world_get_body_forces"), -1;
    kyu_contacts_each(w, sum_contact, &x);
    const impact_state *im = &w->impacts;
    for (int k = 0; k < im->tally_count; k++) { // the impacts: p on a at -rA n, -p on b at rB n
        const impact_tally *t = &im->tally[k];
        if (!w->bodies.alive[t->a]) continue; // removed since the step
        vec3s turn = glms_vec3_cross(t->normal, t->impulse);
        add_to(&x, t->a, t->impulse, glms_vec3_scale(turn, -w->bodies.radius[t->a]), 0, 0);
        if (!kyu_is_collider(t->b) && w->bodies.alive[t->b])
            add_to(&x, t->b, glms_vec3_negate(t->impulse), glms_vec3_scale(turn, -w->bodies.radius[t->b]), 1,
                   0);
    }
    kyu_free(x.row);
    float per_second = 1.0f / w->def.fixed_dt;
    for (int k = 0; k < 3 * n; k++) {
        if (out->force) out->force[k] *= per_second;
        if (out->torque) out->torque[k] *= per_second;
    }
    return w->bodies.count;
}

// ---- the contact network --------------------------------------------------------------------------

typedef struct network_fill {
    const kyu_contact_arrays *out;
    int capacity, count;
    float per_second;
} network_fill;

static void put3(float *dst, int k, vec3s v) {
    if (dst) memcpy(dst + 3 * k, v.raw, sizeof v.raw);
}

static void fill_contact(const kyu_world *w, const contact *c, void *ctx) {
    network_fill *x = ctx;
    if (!carries(c)) return;
    int k = x->count++;
    if (k >= x->capacity) return;
    const kyu_contact_arrays *o = x->out;
    kyu_contact_event ev = kyu_contact_event_of(w, c); // the two sides' handles
    if (o->body) o->body[k] = ev.body;
    if (o->other) o->other[k] = ev.other;
    if (o->collider) o->collider[k] = ev.collider;
    put3(o->point, k, contact_point(w, c));
    put3(o->normal, k, c->normal);
    if (o->normal_force) o->normal_force[k] = c->jn * x->per_second;
    put3(o->tangent_force, k, glms_vec3_scale(c->jt, x->per_second));
    put3(o->rolling_torque, k, glms_vec3_scale(c->jr, x->per_second));
    if (o->gap) o->gap[k] = c->gap;
}

int kyu_world_get_contact_network(const kyu_world *w, const kyu_contact_arrays *out, int capacity) {
    if (!w || !out || capacity < 0) return -1;
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_world_get_contact_network during a step"), -1;
    network_fill x = {out, capacity, 0, 1.0f / w->def.fixed_dt};
    kyu_contacts_each(w, fill_contact, &x);
    return x.count;
}

// ---- a region: stress, packing, coordination ---------------------------------------------------------

// The area of the disc x^2 + y^2 <= rho^2 where x <= a and y <= b. With S(x) the area of the disc
// left of x, a column at x holds the chord's part below b: all of it (2 s(x)) where the chord ends
// below b, b + s(x) where b cuts it (|x| < xb), nothing where it starts above b.
static double disc_strip(double rho, double x) { // the disc's area left of x, x in [-rho, rho]
    double u = fmax(-1.0, fmin(1.0, x / rho)), s = rho * sqrt(fmax(0.0, 1.0 - u * u));
    return 0.5 * (x * s + rho * rho * asin(u)) + 0.25 * KYU_PI * rho * rho;
}

static double disc_corner(double rho, double a, double b) {
    double hi = fmin(a, rho);
    if (!(hi > -rho) || !(b > -rho)) return 0.0;
    if (b >= rho) return 2.0 * disc_strip(rho, hi);
    double xb = sqrt(rho * rho - b * b), area = 0.0;
    double cut_lo = -xb, cut_hi = fmin(xb, hi);
    if (cut_hi > cut_lo) area += b * (cut_hi - cut_lo) + disc_strip(rho, cut_hi) - disc_strip(rho, cut_lo);
    if (b > 0.0) { // the chords that end below b: left of -xb, and right of xb
        area += 2.0 * disc_strip(rho, fmin(-xb, hi));
        if (hi > xb) area += 2.0 * (disc_strip(rho, hi) - disc_strip(rho, xb));
    }
    return area;
}

// The disc of radius rho about the origin cut by the rectangle [x0, x1] x [y0, y1].
static double disc_in_rect(double rho, const double lo[2], const double hi[2]) {
    if (!(rho > 0.0)) return 0.0;
    return disc_corner(rho, hi[0], hi[1]) - disc_corner(rho, lo[0], hi[1]) - disc_corner(rho, hi[0], lo[1]) +
           disc_corner(rho, lo[0], lo[1]);
}

typedef struct slice_area {
    double r, lo[2], hi[2]; // the sphere's radius; the box's x and y sides about the centre
} slice_area;

static double area_at(const slice_area *s, double z) {
    return disc_in_rect(sqrt(fmax(0.0, s->r * s->r - z * z)), s->lo, s->hi);
}

// Adaptive Simpson over [a, b] of the slice areas (each piece between the breakpoints is smooth but
// for the 3/2-power touch of a slice reaching a side, which the subdivision takes in).
static double simpson(const slice_area *s, double a, double b, double fa, double fm, double fb, double whole,
                      double tol, int depth) {
    double m = 0.5 * (a + b), lm = 0.5 * (a + m), rm = 0.5 * (m + b);
    double flm = area_at(s, lm), frm = area_at(s, rm);
    double left = (m - a) / 6.0 * (fa + 4.0 * flm + fm), right = (b - m) / 6.0 * (fm + 4.0 * frm + fb);
    if (depth <= 0 || fabs(left + right - whole) <= 15.0 * tol)
        return left + right + (left + right - whole) / 15.0;
    return simpson(s, a, m, fa, flm, fm, left, 0.5 * tol, depth - 1) +
           simpson(s, m, b, fm, frm, fb, right, 0.5 * tol, depth - 1);
}

static int by_value(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

// The volume of the ball of radius r beyond the plane at t from its centre, t in [-r, r]: the cap of
// height h = r - t, pi h^2 (3 r - h) / 3.
static double beyond(double r, double t) {
    double h = r - t;
    return KYU_PI * h * h * (3.0 * r - h) / 3.0;
}

// The volume of the sphere (centre c, radius r) inside the box [lo, hi]: exact for a sphere wholly
// in or out or cut on one axis only (by a face, or by two opposite ones: caps), otherwise the slices
// across z integrated between the heights where a slice's circle reaches a side or a corner of the
// box (to 1e-10 of the sphere's volume; 20-70 us a sphere, where the caps take well under one).
static double sphere_in_box(vec3s c, float radius, const double lo[3], const double hi[3]) {
    double r = (double)radius, d[3][2];
    int inside = 1;
    for (int k = 0; k < 3; k++) {
        d[k][0] = lo[k] - (double)c.raw[k], d[k][1] = hi[k] - (double)c.raw[k];
        if (d[k][0] >= r || d[k][1] <= -r) return 0.0;
        inside &= d[k][0] <= -r && d[k][1] >= r;
    }
    double ball = 4.0 / 3.0 * KYU_PI * r * r * r;
    if (inside) return ball;
    int axes = 0, axis = 0; // the axes on which a face of the box cuts the sphere
    for (int k = 0; k < 3; k++)
        if (d[k][0] > -r || d[k][1] < r) axes++, axis = k;
    if (axes == 1) // a slab across it, or a half-space: the caps' closed form (most cut spheres)
        return fmin(fmax(beyond(r, fmax(d[axis][0], -r)) - beyond(r, fmin(d[axis][1], r)), 0.0), ball);
    slice_area s = {r, {d[0][0], d[1][0]}, {d[0][1], d[1][1]}};
    double cuts[2 + 2 * 8], z0 = fmax(d[2][0], -r), z1 = fmin(d[2][1], r);
    int n = 0;
    cuts[n++] = z0, cuts[n++] = z1;
    double reach[8]; // squared distances from the axis of the sides (x, then y) and of the corners
    for (int j = 0; j < 2; j++) {
        reach[j] = d[0][j] * d[0][j], reach[2 + j] = d[1][j] * d[1][j];
        reach[4 + j] = reach[j] + d[1][0] * d[1][0], reach[6 + j] = reach[j] + d[1][1] * d[1][1];
    }
    for (int j = 0; j < 8; j++) {
        if (reach[j] >= r * r) continue;
        double h = sqrt(r * r - reach[j]);
        if (-h > z0 && -h < z1) cuts[n++] = -h;
        if (h > z0 && h < z1) cuts[n++] = h;
    }
    qsort(cuts, (size_t)n, sizeof *cuts, by_value);
    double v = 0.0;
    for (int k = 0; k + 1 < n; k++) {
        double a = cuts[k], b = cuts[k + 1];
        if (!(b > a)) continue;
        double fa = area_at(&s, a), fb = area_at(&s, b), fm = area_at(&s, 0.5 * (a + b));
        v += simpson(&s, a, b, fa, fm, fb, (b - a) / 6.0 * (fa + 4.0 * fm + fb), 1e-11 * ball, 40);
    }
    return fmin(fmax(v, 0.0), ball);
}

// Body i's volume inside the box, its copies across the periodic faces it crosses included.
static double solid_in_box(const kyu_world *w, uint32_t i, const double lo[3], const double hi[3]) {
    vec3s p = w->bodies.pos[i];
    float r = w->bodies.radius[i];
    double v = sphere_in_box(p, r, lo, hi);
    if (!w->periodic.mask) return v;
    aabb b = kyu_box_around(p, r), images[27];
    int n = kyu_periodic_box_images(&w->periodic, &b, 0.0f, images); // the copies of its own sphere
    for (int k = 1; k < n; k++) {
        vec3s c = {{images[k].lo[0] + r, images[k].lo[1] + r, images[k].lo[2] + r}};
        v += sphere_in_box(c, r, lo, hi);
    }
    return v;
}

typedef struct region {
    const kyu_world *w;
    double lo[3], hi[3];
    double virial[9]; // sum of (x_c - x_i)_i f_j over the counted bodies' contacts (N m)
    long touching;    // body partners of the counted bodies
} region;

static int counted(const region *g, uint32_t i) {
    const body_store *s = &g->w->bodies;
    if (!s->alive[i] || kyu_body_kind(s, i)->sensor) return 0;
    for (int k = 0; k < 3; k++)
        if (!((double)s->pos[i].raw[k] >= g->lo[k] && (double)s->pos[i].raw[k] <= g->hi[k])) return 0;
    return 1;
}

// Body i's share of a contact: its branch to the contact point times the impulse on it.
static void add_virial(region *g, uint32_t i, vec3s point, vec3s impulse) {
    const vec3s p = g->w->bodies.pos[i]; // a contact across a periodic seam: the point's copy beside i
    vec3s branch = glms_vec3_sub(kyu_periodic_image(&g->w->periodic, p, point), p);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) g->virial[3 * r + c] += (double)branch.raw[r] * (double)impulse.raw[c];
}

static void region_contact(const kyu_world *w, const contact *c, void *ctx) {
    region *g = ctx;
    if (c->sensor) return;
    vec3s p = glms_vec3_add(glms_vec3_scale(c->normal, c->jn), c->jt), x = contact_point(w, c);
    int body = !kyu_is_collider(c->b), touch = carries(c) && body;
    if (counted(g, c->a)) add_virial(g, c->a, x, p), g->touching += touch;
    if (body && counted(g, c->b)) add_virial(g, c->b, x, glms_vec3_negate(p)), g->touching += touch;
}

static kyu_status region_check(const kyu_world *w, vec3s lower, vec3s upper, const kyu_region_measure *out) {
    if (!out) return kyu_fail(w, KYU_ERR_NULL, "kyu_world_measure_box: out is NULL");
    if (w->locked) return kyu_fail(w, KYU_ERR_LOCKED, "kyu_world_measure_box during a step");
    if (!kyu_bounded3(lower, KYU_MAX_COORD) || !kyu_bounded3(upper, KYU_MAX_COORD))
        return kyu_fail(w, KYU_ERR_NOT_FINITE,
                        "kyu_world_measure_box: lower (%g, %g, %g) and upper (%g, %g, %g) must be finite, "
                        "each |x| <= 1e9",
                        (double)lower.x, (double)lower.y, (double)lower.z, (double)upper.x, (double)upper.y,
                        (double)upper.z);
    for (int k = 0; k < 3; k++)
        if (!(lower.raw[k] < upper.raw[k]))
            return kyu_fail(w, KYU_ERR_INVALID_ARGUMENT,
                            "kyu_world_measure_box: lower.%c = %g must be below upper.%c = %g", "xyz"[k],
                            (double)lower.raw[k], "xyz"[k], (double)upper.raw[k]);
    if (w->impacts.tally_lost)
        return kyu_fail(w, KYU_ERR_OUT_OF_MEMORY, "the last step could not keep its impacts' impulses");
    return KYU_OK;
}

kyu_status kyu_world_measure_box(const kyu_world *w, vec3s lower, vec3s upper, kyu_region_measure *out) {
    if (!w) return KYU_ERR_NULL;
    kyu_status st = region_check(w, lower, upper, out);
    if (st != KYU_OK) return st;
    region g;
    memset(&g, 0, sizeof g);
    g.w = w;
    for (int k = 0; k < 3; k++) g.lo[k] = (double)lower.raw[k], g.hi[k] = (double)upper.raw[k];
    kyu_region_measure m;
    memset(&m, 0, sizeof m);
    m.volume = (g.hi[0] - g.lo[0]) * (g.hi[1] - g.lo[1]) * (g.hi[2] - g.lo[2]);
    const body_store *s = &w->bodies;
    double momentum[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < s->high; i++) {
        if (!s->alive[i] || kyu_body_kind(s, (uint32_t)i)->sensor) continue;
        m.solid_volume += solid_in_box(w, (uint32_t)i, g.lo, g.hi);
        if (!counted(&g, (uint32_t)i)) continue;
        m.bodies++, m.mass += (double)s->mass[i];
        for (int k = 0; k < 3; k++) momentum[k] += (double)s->mass[i] * (double)s->vel[i].raw[k];
    }
    for (int k = 0; k < 3 && m.mass > 0.0; k++) m.mean_velocity[k] = momentum[k] / m.mass;
    double kinetic[9] = {0.0};
    for (int i = 0; i < s->high; i++) {
        if (!counted(&g, (uint32_t)i)) continue;
        double v[3];
        for (int k = 0; k < 3; k++) v[k] = (double)s->vel[i].raw[k] - m.mean_velocity[k];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) kinetic[3 * r + c] += (double)s->mass[i] * v[r] * v[c];
    }
    kyu_contacts_each(w, region_contact, &g);
    for (int k = 0; k < w->impacts.tally_count; k++) { // the impacts: both touch at the impact's point
        const impact_tally *t = &w->impacts.tally[k];
        vec3s at = glms_vec3_sub(s->pos[t->a], glms_vec3_scale(t->normal, s->radius[t->a]));
        if (counted(&g, t->a)) add_virial(&g, t->a, at, t->impulse);
        if (!kyu_is_collider(t->b) && counted(&g, t->b)) {
            vec3s bt = glms_vec3_add(s->pos[t->b], glms_vec3_scale(t->normal, s->radius[t->b]));
            add_virial(&g, t->b, bt, glms_vec3_negate(t->impulse));
        }
    }
    double dt = (double)w->def.fixed_dt;
    for (int k = 0; k < 9; k++) {
        m.contact_stress[k] = g.virial[k] / (dt * m.volume);
        m.kinetic_stress[k] = -kinetic[k] / m.volume;
        m.stress[k] = m.contact_stress[k] + m.kinetic_stress[k];
    }
    m.pressure = 0.0 - (m.stress[0] + m.stress[4] + m.stress[8]) / 3.0; // 0, not -0, for an empty box
    m.packing_fraction = m.solid_volume / m.volume;
    m.coordination = m.bodies > 0 ? (double)g.touching / m.bodies : 0.0;
    *out = m;
    return KYU_OK;
}
