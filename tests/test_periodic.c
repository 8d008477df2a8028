// SPDX-License-Identifier: MIT
// Periodic boundaries: a body that leaves through a face enters through the opposite one with its
// velocity unchanged; a pair across a seam (a face, an edge, a corner) meets, bounces and rests as
// the same pair away from it; an elastic gas in a fully periodic box keeps its energy and its
// bodies; the answer is the same for any worker count and after a snapshot; a bad box is refused.
#include <stdlib.h>
#include <string.h>

#include "test.h"

static kyu_world_def periodic_def(float lx, float ly, float lz, bool px, bool py, bool pz) {
    kyu_world_def d = kyu_world_def_default();
    d.gravity = v3(0.0f, 0.0f, 0.0f);
    d.periodic.axis[0] = px, d.periodic.axis[1] = py, d.periodic.axis[2] = pz;
    d.periodic.lower = v3(0.0f, 0.0f, 0.0f);
    d.periodic.upper = v3(lx, ly, lz);
    return d;
}

static kyu_body_id add_ball(kyu_world *w, vec3s p, vec3s v, float r, float m, float e) {
    kyu_body_def bd = kyu_body_def_default();
    bd.position = p, bd.velocity = v, bd.radius = r, bd.mass = m, bd.restitution = e;
    bd.friction = 0.0f;
    kyu_body_id id = KYU_NULL_BODY;
    kyu_body_create(w, &bd, &id);
    return id;
}

// The offset from a to b through the nearest image of a box of lengths L (0: not periodic).
static vec3s min_image(vec3s a, vec3s b, const float L[3]) {
    vec3s d = glms_vec3_sub(b, a);
    for (int k = 0; k < 3; k++)
        if (L[k] > 0.0f) d.raw[k] -= L[k] * floorf(d.raw[k] / L[k] + 0.5f);
    return d;
}

static int inside(vec3s p, const kyu_world_def *d) {
    for (int k = 0; k < 3; k++)
        if (d->periodic.axis[k] &&
            !(p.raw[k] >= d->periodic.lower.raw[k] && p.raw[k] < d->periodic.upper.raw[k]))
            return 0;
    return 1;
}

// Each of the 26 directions out of a cube (6 faces, 12 edges, 8 corners): a lone body leaves through
// it and comes back through the opposite side, its velocity bit for bit the same, its position the
// straight line's, wrapped, and inside the box after every step.
static void test_a_body_crossing_each_face_edge_and_corner_enters_opposite(void) {
    const float L[3] = {2.0f, 2.0f, 2.0f};
    for (int dir = 0; dir < 27; dir++) {
        int dx = dir % 3 - 1, dy = dir / 3 % 3 - 1, dz = dir / 9 - 1;
        if (!dx && !dy && !dz) continue;
        kyu_world_def d = periodic_def(2.0f, 2.0f, 2.0f, true, true, true);
        kyu_world *w = NULL;
        ENSURE(kyu_world_create(&d, &w) == KYU_OK);
        vec3s p0 = v3(1.0f, 1.0f, 1.0f), v = v3(3.0f * (float)dx, 3.0f * (float)dy, 3.0f * (float)dz);
        kyu_body_id b = add_ball(w, p0, v, 0.1f, 1.0f, 1.0f);
        int crossed = 0;
        vec3s last = p0;
        for (int s = 1; s <= 60; s++) { // 3 m at 3 m/s per axis: every crossing once and a half
            ENSURE(kyu_world_step(w) == KYU_OK);
            vec3s p = pos(w, b), u = vel(w, b);
            ENSURE(inside(p, &d));
            ENSURE(u.x == v.x && u.y == v.y && u.z == v.z);
            if (fabsf(p.x - last.x) > 1.0f || fabsf(p.y - last.y) > 1.0f || fabsf(p.z - last.z) > 1.0f)
                crossed++;
            last = p;
            vec3s want = glms_vec3_add(p0, glms_vec3_scale(v, (float)s / 60.0f));
            ENSURE(glms_vec3_norm(min_image(p, want, L)) < 1e-4f);
        }
        ENSURE(crossed >= 1);
        kyu_world_destroy(w);
    }
}

// A renderer's interpolation between the last two steps takes the short way across a face: a body
// at 1.95 moving at 3 m/s wraps from 2.0 to 0.0 in one step, and halfway through the next frame it
// is drawn at 1.975 (as -0.025, just beyond the lower face), not in the middle of the box.
static void test_interpolation_across_a_face_takes_the_short_way(void) {
    kyu_world_def d = periodic_def(2.0f, 2.0f, 2.0f, true, false, false);
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&d, &w) == KYU_OK);
    kyu_body_id b = add_ball(w, v3(1.95f, 1.0f, 1.0f), v3(3.0f, 0.0f, 0.0f), 0.1f, 1.0f, 1.0f);
    int steps = 0;
    ENSURE(kyu_world_update(w, 1.5f * d.fixed_dt, &steps) == KYU_OK && steps == 1);
    ENSURE(pos(w, b).x < 0.01f); // wrapped
    vec3s p;
    ENSURE(kyu_body_get_interpolated_position(w, b, &p) == KYU_OK);
    const float L[3] = {2.0f, 0.0f, 0.0f};
    ENSURE(glms_vec3_norm(min_image(p, v3(1.975f, 1.0f, 1.0f), L)) < 1e-5f);
    ENSURE(fabsf(p.x - 1.975f) < 1e-5f || fabsf(p.x + 0.025f) < 1e-5f);
    kyu_world_destroy(w);
}

// Two balls close across the seam x = 0 = 4 (gap 0.2 m at 2 m/s: they meet at 0.1 s) and bounce
// elastically; the same pair placed away from the seam in a world without periodic axes (shifted
// by a period) gives the same impact time and the same paths, to float rounding; the analytic
// answer (equal masses swap velocities) too.
static void run_pair(int periodic, float shift, vec3s out_p[2], vec3s out_v[2], float *t_hit, int *hits) {
    kyu_world_def d = periodic_def(4.0f, 4.0f, 4.0f, periodic, false, false);
    d.enable_impact_events = true;
    kyu_world *w = NULL;
    if (kyu_world_create(&d, &w) != KYU_OK) return;
    kyu_body_id a = add_ball(w, v3(3.8f, 2.0f, 2.0f), v3(1.0f, 0.0f, 0.0f), 0.1f, 1.0f, 1.0f);
    kyu_body_id b = add_ball(w, v3(0.2f + shift, 2.0f, 2.0f), v3(-1.0f, 0.0f, 0.0f), 0.1f, 1.0f, 1.0f);
    *hits = 0;
    for (int s = 0; s < 30; s++) {
        kyu_world_step(w);
        int n = 0;
        const kyu_impact_event *ev = kyu_world_impact_events(w, &n);
        for (int k = 0; k < n; k++) *t_hit = ((float)s + ev[k].time) / 60.0f, ++*hits;
    }
    out_p[0] = pos(w, a), out_p[1] = pos(w, b), out_v[0] = vel(w, a), out_v[1] = vel(w, b);
    kyu_world_destroy(w);
}

static void test_a_pair_across_a_seam_meets_as_the_same_pair_away_from_it(void) {
    vec3s ps[2], vs[2], pf[2], vf[2];
    float ts = -1.0f, tf = -1.0f;
    int hs = 0, hf = 0;
    run_pair(1, 0.0f, ps, vs, &ts, &hs);
    run_pair(0, 4.0f, pf, vf, &tf, &hf);
    ENSURE(hs == 1 && hf == 1);
    ENSURE_NEAR(ts, 0.1f, 1e-5f); // the analytic time
    ENSURE_NEAR(ts, tf, 1e-6f);
    const float L[3] = {4.0f, 0.0f, 0.0f};
    for (int k = 0; k < 2; k++) {
        ENSURE(glms_vec3_norm(min_image(ps[k], pf[k], L)) < 1e-5f);
        ENSURE_NEAR(vs[k].x, vf[k].x, 1e-6f);
    }
    // after 0.5 s: a went +x for 0.1 s, then -x for 0.4 s: 3.8 + 0.1 - 0.4 = 3.5; b to 0.5
    ENSURE_NEAR(vs[0].x, -1.0f, 1e-6f);
    ENSURE_NEAR(vs[1].x, 1.0f, 1e-6f);
    ENSURE_NEAR(ps[0].x, 3.5f, 1e-5f);
    ENSURE_NEAR(ps[1].x, 0.5f, 1e-5f);
}

// Head on through the corner (0, 0, 0) of a fully periodic box: unequal masses, e = 1. Momentum and
// energy are kept, and the velocities are the textbook's 1D elastic answer along the diagonal.
static void test_head_on_elastic_across_a_corner_keeps_momentum_and_energy(void) {
    kyu_world_def d = periodic_def(4.0f, 4.0f, 4.0f, true, true, true);
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&d, &w) == KYU_OK);
    float s = 1.0f / sqrtf(3.0f), m1 = 1.0f, m2 = 3.0f, u1 = 2.0f, u2 = -1.0f;
    vec3s n = v3(s, s, s);
    kyu_body_id a = add_ball(w, v3(3.9f, 3.9f, 3.9f), glms_vec3_scale(n, u1), 0.1f, m1, 1.0f);
    kyu_body_id b = add_ball(w, v3(0.1f, 0.1f, 0.1f), glms_vec3_scale(n, u2), 0.1f, m2, 1.0f);
    double e0 = kyu_world_kinetic_energy(w), p0[3], p1[3];
    kyu_world_momentum(w, p0);
    for (int k = 0; k < 12; k++) ENSURE(kyu_world_step(w) == KYU_OK); // they meet within 0.05 s
    kyu_world_momentum(w, p1);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(p1[k], p0[k], 1e-6);
    ENSURE_NEAR(kyu_world_kinetic_energy(w), e0, 1e-6 * e0);
    float w1 = ((m1 - m2) * u1 + 2.0f * m2 * u2) / (m1 + m2),
          w2 = ((m2 - m1) * u2 + 2.0f * m1 * u1) / (m1 + m2);
    vec3s va = vel(w, a), vb = vel(w, b);
    for (int k = 0; k < 3; k++) {
        ENSURE_NEAR(va.raw[k], w1 * s, 1e-5f);
        ENSURE_NEAR(vb.raw[k], w2 * s, 1e-5f);
    }
    ENSURE(inside(pos(w, a), &d) && inside(pos(w, b), &d));
    kyu_world_destroy(w);
}

// A row of 8 balls on a floor fills the periodic length 4 m exactly (touching through the seam),
// and a ninth rests on top of the seam itself, at x = 0, held by the balls at 3.75 and 0.25 across
// it. Gravity is along y (not periodic). Without the pairs across the seam it would roll off; with
// them it stays where geometry puts it: x = 0 (mod 4), y = 0.25 + sqrt(0.5^2 - 0.25^2). The bed
// then falls asleep, and a ball sliding in across the seam wakes it.
static void test_a_bed_across_a_seam_rests_and_wakes(void) {
    kyu_world_def d = periodic_def(4.0f, 4.0f, 4.0f, true, false, false);
    d.gravity = v3(0.0f, -9.81f, 0.0f);
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&d, &w) == KYU_OK);
    kyu_collider_def cd = kyu_collider_def_default();
    cd.type = KYU_SHAPE_PLANE;
    cd.normal = v3(0.0f, 1.0f, 0.0f);
    cd.friction = 0.5f;
    ENSURE(kyu_collider_create(w, &cd, NULL) == KYU_OK);
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 0.25f, bd.friction = 0.5f, bd.restitution = 0.0f;
    for (int i = 0; i < 8; i++) {
        bd.position = v3(0.25f + 0.5f * (float)i, 0.25f, 1.0f);
        ENSURE(kyu_body_create(w, &bd, NULL) == KYU_OK);
    }
    float y_top = 0.25f + sqrtf(0.25f - 0.0625f);
    bd.position = v3(0.0f, y_top + 0.001f, 1.0f);
    kyu_body_id top;
    ENSURE(kyu_body_create(w, &bd, &top) == KYU_OK);
    bd.friction = 0.0f, bd.restitution = 1.0f; // a lone ball in another lane, z = 2.5, to be hit later
    bd.position = v3(0.6f, 0.25f, 2.5f);
    kyu_body_id still;
    ENSURE(kyu_body_create(w, &bd, &still) == KYU_OK);
    bd.position = v3(3.92f, 0.25f, 3.5f); // and one poking 0.17 m out of the upper face, z = 3.5
    kyu_body_id poking;
    ENSURE(kyu_body_create(w, &bd, &poking) == KYU_OK);
    const float L[3] = {4.0f, 0.0f, 0.0f};
    for (int s = 0; s < 120; s++) {
        ENSURE(kyu_world_step(w) == KYU_OK);
        ENSURE(inside(pos(w, top), &d));
    }
    // On the seam within the slop a resting pair may sink by (0.4% of the radius, 1 mm): the solve's
    // order round the ring nudges it 0.4 mm, where rolling off would take it 0.25 m.
    vec3s p = pos(w, top);
    ENSURE(fabsf(min_image(p, v3(0.0f, p.y, p.z), L).x) < 1e-3f);
    ENSURE_NEAR(p.y, y_top, 1e-3f);
    int touching = 0;
    ENSURE(kyu_body_get_contacts(w, top, NULL, 0, &touching) == KYU_OK);
    ENSURE(touching == 2); // the two balls either side of the seam
    ENSURE(kyu_world_sleeping_body_count(w) == 11);
    ENSURE(!kyu_body_is_awake(w, still) && !kyu_body_is_awake(w, poking));
    // A frictionless ball slides in at 2 m/s from x = 3.5 in the lone ball's lane, crosses the seam
    // and hits it elastically (0.6 m of gap: at 0.3 s): the sleeper wakes and takes all the speed.
    bd.position = v3(3.5f, 0.25f, 2.5f), bd.velocity = v3(2.0f, 0.0f, 0.0f);
    kyu_body_id slider;
    ENSURE(kyu_body_create(w, &bd, &slider) == KYU_OK);
    for (int s = 0; s < 30; s++) ENSURE(kyu_world_step(w) == KYU_OK);
    ENSURE(kyu_body_is_awake(w, still));
    ENSURE_NEAR(vel(w, still).x, 2.0f, 1e-3f);
    ENSURE_NEAR(vel(w, slider).x, 0.0f, 1e-3f);
    // slider stopped touching it, at 0.6 - 0.5 = 0.1; still left at 0.6 + 2 (0.5 - 0.3) = 1.0
    ENSURE_NEAR(pos(w, slider).x, 0.1f, 1e-3f);
    ENSURE_NEAR(pos(w, still).x, 1.0f, 1e-3f);
    // A ball slides at 2 m/s from x = 1 towards the face x = 0, whose far side the sleeper pokes
    // through (its copy at -0.08): the slider's own path never crosses the face before they meet, at
    // 0.58 m, 0.29 s. The sleeper wakes as the slider comes near the face, and no step lets the two
    // overlap by more than the slop.
    bd.position = v3(1.0f, 0.25f, 3.5f), bd.velocity = v3(-2.0f, 0.0f, 0.0f);
    kyu_body_id slider2;
    ENSURE(kyu_body_create(w, &bd, &slider2) == KYU_OK);
    for (int s = 0; s < 30; s++) {
        ENSURE(kyu_world_step(w) == KYU_OK);
        ENSURE(glms_vec3_norm(min_image(pos(w, slider2), pos(w, poking), L)) > 0.5f - 1e-3f);
    }
    ENSURE(kyu_body_is_awake(w, poking));
    ENSURE_NEAR(vel(w, poking).x, -2.0f, 1e-3f);
    ENSURE_NEAR(vel(w, slider2).x, 0.0f, 1e-3f);
    ENSURE_NEAR(pos(w, slider2).x, 0.42f, 1e-3f); // stopped touching the copy at -0.08
    ENSURE_NEAR(pos(w, poking).x, 3.5f, 1e-3f);   // -0.08 - 2 (0.5 - 0.29), wrapped in
    kyu_world_destroy(w);
}

// Gravity along a periodic axis (a chute: gravity tilted 20 degrees from -y towards +x, a floor, x
// periodic over 2 m): a ball rolls down the endless slope through the seam again and again, its
// speed 5/7 g sin(theta) t as on any slope (within 1%, the rolling test of tests/test_spin.c).
static void test_a_ball_rolls_down_an_endless_periodic_chute(void) {
    kyu_world_def d = periodic_def(2.0f, 4.0f, 4.0f, true, false, false);
    float th = 20.0f * 3.14159265f / 180.0f, g = 9.81f;
    d.gravity = v3(g * sinf(th), -g * cosf(th), 0.0f);
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&d, &w) == KYU_OK);
    kyu_collider_def cd = kyu_collider_def_default();
    cd.type = KYU_SHAPE_PLANE;
    cd.normal = v3(0.0f, 1.0f, 0.0f);
    cd.friction = 0.5f;
    ENSURE(kyu_collider_create(w, &cd, NULL) == KYU_OK);
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 0.1f, bd.friction = 0.5f, bd.restitution = 0.0f, bd.allow_sleep = false;
    bd.position = v3(1.0f, 0.1f, 2.0f);
    kyu_body_id b;
    ENSURE(kyu_body_create(w, &bd, &b) == KYU_OK);
    int crossings = 0;
    float last = 1.0f;
    for (int s = 0; s < 120; s++) {
        ENSURE(kyu_world_step(w) == KYU_OK);
        vec3s p = pos(w, b);
        ENSURE(inside(p, &d));
        ENSURE_NEAR(p.y, 0.1f, 1e-3f); // on the floor
        crossings += p.x < last - 1.0f;
        last = p.x;
    }
    float want = 5.0f / 7.0f * g * sinf(th) * 2.0f; // after 2 s
    ENSURE_NEAR(vel(w, b).x, want, 0.01f * want);
    ENSURE(crossings >= 2); // 0.5 a t^2 = 4.8 m of a 2 m period
    kyu_world_destroy(w);
}

// An elastic gas in a fully periodic box: the energy is kept to 1e-4 (relative), the momentum to
// float rounding, no body is lost or duplicated, every body is inside the box after every step,
// and many bodies crossed a seam.
static kyu_world *make_gas(int n, float L, int workers, float cell) {
    kyu_world_def d = periodic_def(L, L, L, true, true, true);
    d.enable_sleep = false; // a slow molecule would fall asleep and take its energy with it
    d.worker_count = workers;
    d.cell_size = cell;
    kyu_world *w = NULL;
    if (kyu_world_create(&d, &w) != KYU_OK) return NULL;
    uint64_t s = 12345;
    int side = (int)ceilf(cbrtf((float)n)), made = 0;
    float step = L / (float)side;
    for (int i = 0; i < side && made < n; i++)
        for (int j = 0; j < side && made < n; j++)
            for (int k = 0; k < side && made < n; k++, made++) {
                float r[3];
                for (int c = 0; c < 3; c++) {
                    s = s * 6364136223846793005ull + 1442695040888963407ull;
                    r[c] = (float)(s >> 40) / (float)(1u << 24) * 2.0f - 1.0f;
                }
                add_ball(w, v3(((float)i + 0.5f) * step, ((float)j + 0.5f) * step, ((float)k + 0.5f) * step),
                         v3(2.0f * r[0], 2.0f * r[1], 2.0f * r[2]), 0.1f, 1.0f, 1.0f);
            }
    return w;
}

static void test_an_elastic_gas_in_a_periodic_box_keeps_energy_and_bodies(void) {
    const int n = 343;
    const float L = 3.0f;
    kyu_world *w = make_gas(n, L, 1, 0.0f);
    ENSURE(w != NULL);
    kyu_world_def d = kyu_world_get_def(w);
    double e0 = kyu_world_kinetic_energy(w), p0[3], p1[3];
    kyu_world_momentum(w, p0);
    kyu_body_id *ids = malloc((size_t)n * sizeof *ids);
    vec3s *last = malloc((size_t)n * sizeof *last);
    ENSURE(ids && last);
    ENSURE(kyu_world_get_bodies(w, ids, n) == n);
    for (int i = 0; i < n; i++) last[i] = pos(w, ids[i]);
    long crossings = 0, impacts = 0;
    float deepest = 0.0f; // the deepest overlap of any pair, through the nearest image (all pairs)
    const float box[3] = {L, L, L};
    int steps = TEST_LENGTH(3000, 600);
    for (int s = 0; s < steps; s++) {
        ENSURE(kyu_world_step(w) == KYU_OK);
        impacts += kyu_world_stats(w).impacts;
        ENSURE(kyu_world_body_count(w) == n);
        for (int i = 0; i < n; i++) {
            vec3s p = pos(w, ids[i]);
            ENSURE(inside(p, &d));
            for (int k = 0; k < 3; k++) crossings += fabsf(p.raw[k] - last[i].raw[k]) > 0.5f * L;
            last[i] = p;
        }
        for (int i = 0; i < n && s % 10 == 0; i++)
            for (int j = 0; j < i; j++)
                deepest = fmaxf(deepest, 0.2f - glms_vec3_norm(min_image(last[i], last[j], box)));
    }
    kyu_world_momentum(w, p1);
    double e1 = kyu_world_kinetic_energy(w);
    printf("    gas %d bodies, %d steps: energy %.9g -> %.9g (rel %.2e), %ld seam crossings, %ld impacts, "
           "deepest overlap %.2g m\n",
           n, steps, e0, e1, fabs(e1 - e0) / e0, crossings, impacts, (double)deepest);
    ENSURE(deepest < 1e-4f); // hard spheres met at their exact times: a pair the broadphase missed
                             // across a face would pass into each other
    ENSURE_NEAR(e1, e0, 1e-4 * e0);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(p1[k], p0[k], 1e-3);
    ENSURE(crossings > n);
    free(ids);
    free(last);
    kyu_world_destroy(w);
}

// A dense gas in a small box (64 balls of 0.1 m in 1 m^3, 27% of the volume, at up to 3.5 m/s):
// every body is near a face, an edge or a corner, most impacts happen across them and turn paths
// out of their boxes (late inserts across faces). No pair ever overlaps (checked through the
// nearest image after every step), and the energy is kept.
static void test_a_dense_gas_in_a_small_periodic_box_never_overlaps(void) {
    kyu_world *w = make_gas(64, 1.0f, 1, 0.0f);
    ENSURE(w != NULL);
    kyu_body_id ids[64];
    ENSURE(kyu_world_get_bodies(w, ids, 64) == 64);
    const float box[3] = {1.0f, 1.0f, 1.0f};
    double e0 = kyu_world_kinetic_energy(w);
    float deepest = 0.0f;
    long late = 0, impacts = 0;
    for (int s = 0; s < TEST_LENGTH(2000, 400); s++) {
        ENSURE(kyu_world_step(w) == KYU_OK);
        late += kyu_world_stats(w).late_inserts, impacts += kyu_world_stats(w).impacts;
        vec3s p[64];
        for (int i = 0; i < 64; i++) p[i] = pos(w, ids[i]);
        for (int i = 0; i < 64; i++)
            for (int j = 0; j < i; j++)
                deepest = fmaxf(deepest, 0.2f - glms_vec3_norm(min_image(p[i], p[j], box)));
    }
    double e1 = kyu_world_kinetic_energy(w);
    printf("    %ld impacts, %ld late inserts, energy %.9g -> %.9g, deepest overlap %.2g m\n", impacts, late,
           e0, e1, (double)deepest);
    ENSURE(deepest < 1e-4f);
    ENSURE(late > 100 && impacts > 1000);
    ENSURE_NEAR(e1, e0, 1e-4 * e0);
    kyu_world_destroy(w);
}

// The same gas gives the same bits for 1, 2, 3 and 8 workers, and for broadphase cells of 0.25,
// 0.5 and 1 m (kyu chooses about 0.3).
static void test_a_periodic_gas_is_bit_identical_for_any_workers_and_cell(void) {
    const int workers[6] = {1, 2, 3, 8, 1, 1};
    const float cells[6] = {0.0f, 0.0f, 0.0f, 0.0f, 0.25f, 1.0f};
    uint64_t h[6];
    for (int k = 0; k < 6; k++) {
        kyu_world *w = make_gas(343, 3.0f, workers[k], cells[k]);
        ENSURE(w != NULL);
        for (int s = 0; s < TEST_LENGTH(300, 100); s++) ENSURE(kyu_world_step(w) == KYU_OK);
        h[k] = kyu_world_state_hash(w);
        kyu_world_destroy(w);
        ENSURE(h[k] == h[0]);
    }
}

// Saved half way and loaded into another world, the gas goes on to the same bits, box and all.
static void test_a_periodic_snapshot_continues_bit_identically(void) {
    kyu_world *w = make_gas(125, 2.5f, 1, 0.0f);
    ENSURE(w != NULL);
    for (int s = 0; s < 100; s++) ENSURE(kyu_world_step(w) == KYU_OK);
    size_t size = 0;
    ENSURE(kyu_world_save_memory(w, NULL, 0, &size) == KYU_OK);
    void *buf = malloc(size);
    ENSURE(buf != NULL);
    ENSURE(kyu_world_save_memory(w, buf, size, &size) == KYU_OK);
    for (int s = 0; s < 200; s++) ENSURE(kyu_world_step(w) == KYU_OK);
    uint64_t want = kyu_world_state_hash(w);
    kyu_world_def plain = kyu_world_def_default();
    kyu_world *r = NULL;
    ENSURE(kyu_world_create(&plain, &r) == KYU_OK);
    ENSURE(kyu_world_load_memory(r, buf, size) == KYU_OK);
    kyu_world_def got = kyu_world_get_def(r);
    ENSURE(got.periodic.axis[0] && got.periodic.axis[1] && got.periodic.axis[2]);
    ENSURE(got.periodic.upper.x == 2.5f && got.periodic.lower.z == 0.0f);
    for (int s = 0; s < 200; s++) ENSURE(kyu_world_step(r) == KYU_OK);
    ENSURE(kyu_world_state_hash(r) == want);
    free(buf);
    kyu_world_destroy(w);
    kyu_world_destroy(r);
}

// A bad box is refused with the field and its value named, and a refused body leaves the world as
// it was.
static void test_a_bad_periodic_box_or_body_is_refused(void) {
    char msg[256];
    kyu_world_def d = periodic_def(4.0f, 4.0f, 4.0f, true, false, false);
    d.periodic.upper.x = NAN;
    ENSURE(kyu_world_def_check(&d, msg, sizeof msg) == KYU_ERR_NOT_FINITE);
    ENSURE(strstr(msg, "periodic.upper.x") != NULL);
    d.periodic.upper.x = 4.0f, d.periodic.lower.y = INFINITY;
    ENSURE(kyu_world_def_check(&d, msg, sizeof msg) == KYU_ERR_NOT_FINITE);
    ENSURE(strstr(msg, "periodic.lower.y") != NULL);
    d.periodic.lower.y = 0.0f, d.periodic.upper.x = -1.0f;
    ENSURE(kyu_world_def_check(&d, msg, sizeof msg) == KYU_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(msg, "periodic.upper.x = -1") != NULL);
    d.periodic.upper.x = 0.0f; // an empty box on a periodic axis
    ENSURE(kyu_world_def_check(&d, msg, sizeof msg) == KYU_ERR_INVALID_ARGUMENT);
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&d, &w) == KYU_ERR_INVALID_ARGUMENT && w == NULL);
    d.periodic.upper.x = 4.0f, d.periodic.upper.y = -2.0f; // y is not periodic: its bounds are free
    ENSURE(kyu_world_def_check(&d, msg, sizeof msg) == KYU_OK);
    ENSURE(kyu_world_create(&d, &w) == KYU_OK);
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 1.0f; // with its margin over a quarter of 4 m
    kyu_body_id id = KYU_NULL_BODY;
    ENSURE(kyu_body_create(w, &bd, &id) == KYU_ERR_RADIUS);
    ENSURE(strstr(kyu_world_last_error(w), "quarter of the periodic length 4 along x") != NULL);
    ENSURE(kyu_world_body_count(w) == 0 && id.index1 == 0);
    ENSURE(kyu_world_step(w) == KYU_OK);
    bd.radius = 0.9f;                    // fits
    bd.position = v3(-1.0f, 7.0f, 0.0f); // outside on x: wrapped in; y is not periodic: left alone
    ENSURE(kyu_body_create(w, &bd, &id) == KYU_OK);
    vec3s p = pos(w, id);
    ENSURE(p.x == 3.0f && p.y == 7.0f && p.z == 0.0f);
    ENSURE(kyu_body_set_position(w, id, v3(9.5f, 0.0f, 0.0f)) == KYU_OK);
    ENSURE(pos(w, id).x == 1.5f);
    kyu_world_destroy(w);
    // Gravity sets the rest speed and with it a small body's contact margin: a 1 cm bead fits a
    // 4.4 cm period without gravity (1 + 0.04 cm < 1.1 cm) but not under it (1 + 0.17 cm): the
    // gravity is refused, naming the body, and the world keeps its own.
    d = periodic_def(0.044f, 1.0f, 1.0f, true, false, false);
    ENSURE(kyu_world_create(&d, &w) == KYU_OK);
    bd = kyu_body_def_default();
    bd.radius = 0.01f, bd.position = v3(0.02f, 0.5f, 0.5f);
    ENSURE(kyu_body_create(w, &bd, &id) == KYU_OK);
    ENSURE(kyu_world_set_gravity(w, v3(0.0f, -9.81f, 0.0f)) == KYU_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(kyu_world_last_error(w), "quarter of the periodic length") != NULL);
    ENSURE(kyu_world_get_def(w).gravity.y == 0.0f);
    kyu_world_destroy(w);
}

// The queries see across the seam x = 0 = 4: an overlap, the nearest body, a raycast and a sphere
// cast through the face, the distance and time to collision of a pair across it; each answer is
// the one the same query gives in a plain world with the body's copy placed where it meets it.
static void test_queries_see_through_a_periodic_face(void) {
    kyu_world_def d = periodic_def(4.0f, 4.0f, 4.0f, true, false, false);
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&d, &w) == KYU_OK);
    kyu_body_id a = add_ball(w, v3(3.9f, 2.0f, 2.0f), v3(0.0f, 0.0f, 0.0f), 0.1f, 1.0f, 1.0f);
    kyu_body_id b = add_ball(w, v3(0.3f, 2.0f, 2.0f), v3(-1.0f, 0.0f, 0.0f), 0.1f, 1.0f, 1.0f);
    kyu_query_filter f = kyu_query_filter_default();
    kyu_query_hit h;
    kyu_body_id found[4];
    int n = 0;
    // a sphere at x = 0.05 of radius 0.1 reaches a's copy at -0.1 (0.15 < 0.2), not b (0.25 > 0.2)
    ENSURE(kyu_world_overlap_sphere(w, v3(0.05f, 2.0f, 2.0f), 0.1f, f, found, 4, &n) == KYU_OK);
    ENSURE(n == 1 && kyu_body_id_equal(found[0], a));
    ENSURE(kyu_world_overlap_aabb(w, v3(-0.05f, 1.9f, 1.9f), v3(0.0f, 2.1f, 2.1f), f, found, 4, &n) ==
           KYU_OK);
    ENSURE(n == 1 && kyu_body_id_equal(found[0], a)); // the box pokes out of the lower face into a
    // c pokes out of the upper face by 0.05 (its copy spans -0.15..0.05); a sphere at x = 0.1 of
    // radius 0.06 stays inside the box and still reaches it (0.15 < 0.16)
    kyu_body_id c = add_ball(w, v3(3.95f, 1.0f, 2.0f), v3(0.0f, 0.0f, 0.0f), 0.1f, 1.0f, 1.0f);
    ENSURE(kyu_world_overlap_sphere(w, v3(0.1f, 1.0f, 2.0f), 0.06f, f, found, 4, &n) == KYU_OK);
    ENSURE(n == 1 && kyu_body_id_equal(found[0], c));
    ENSURE(kyu_world_raycast(w, v3(0.1f, 1.0f, 2.0f), v3(-0.08f, 0.0f, 0.0f), f, &h) == KYU_OK);
    ENSURE(h.hit && kyu_body_id_equal(h.body, c));
    ENSURE_NEAR(h.fraction, 0.05f / 0.08f, 1e-5f);
    kyu_body_destroy(w, c);
    kyu_body_id near = KYU_NULL_BODY;
    float dist = 0.0f;
    ENSURE(kyu_world_nearest_body(w, v3(0.0f, 2.0f, 2.0f), 10.0f, f, &near, &dist) == KYU_OK);
    ENSURE(kyu_body_id_equal(near, a)); // 0.1 - 0.1 = 0 through the face, against 0.3 - 0.1 for b
    ENSURE_NEAR(dist, 0.0f, 1e-6f);
    // from x = 0.15 towards -x: b is behind, a's copy ends at x = 0: fraction 0.15 / 1
    ENSURE(kyu_world_raycast(w, v3(0.15f, 2.0f, 2.0f), v3(-1.0f, 0.0f, 0.0f), f, &h) == KYU_OK);
    ENSURE(h.hit && kyu_body_id_equal(h.body, a));
    ENSURE_NEAR(h.fraction, 0.15f, 1e-6f);
    ENSURE_NEAR(h.point.x, 0.0f, 1e-6f); // in the ray's own frame, where it crossed the face
    ENSURE_NEAR(h.normal.x, 1.0f, 1e-6f);
    ENSURE(kyu_world_sphere_cast(w, v3(0.15f, 2.0f, 2.0f), 0.05f, v3(-1.0f, 0.0f, 0.0f), f, &h) == KYU_OK);
    ENSURE(h.hit && kyu_body_id_equal(h.body, a));
    ENSURE_NEAR(h.fraction, 0.1f, 1e-6f);
    kyu_query_hit all[4];
    ENSURE(kyu_world_raycast_all(w, v3(3.5f, 2.0f, 2.0f), v3(1.5f, 0.0f, 0.0f), f, all, 4, &n) == KYU_OK);
    ENSURE(n == 2 && kyu_body_id_equal(all[0].body, a) && kyu_body_id_equal(all[1].body, b));
    ENSURE_NEAR(all[1].fraction, 0.7f / 1.5f, 1e-6f); // b's copy at 4.3 starts at 4.2
    ENSURE_NEAR(all[1].point.x, 4.2f, 1e-5f);
    kyu_distance_result dr;
    ENSURE(kyu_body_distance(w, a, b, &dr) == KYU_OK);
    ENSURE_NEAR(dr.distance, 0.2f, 1e-6f); // 3.9 to 4.3, less the radii
    ENSURE_NEAR(dr.normal.x, -1.0f, 1e-6f);
    bool will = false;
    float t = 0.0f;
    ENSURE(kyu_body_time_to_collision(w, a, b, 1.0f, &will, &t) == KYU_OK);
    ENSURE(will);
    ENSURE_NEAR(t, 0.2f, 1e-5f);
    kyu_world_destroy(w);
}

// A ring of 8 balls on a floor filling the periodic length 4 m, shifted by `offset` along x, and a
// ninth on top between the balls either side of x = offset; settled for 1 s.
static kyu_world *settled_ring_on(float offset, int workers) {
    kyu_world_def d = periodic_def(4.0f, 4.0f, 4.0f, true, false, false);
    d.worker_count = workers;
    d.gravity = v3(0.0f, -9.81f, 0.0f);
    kyu_world *w = NULL;
    if (kyu_world_create(&d, &w) != KYU_OK) return NULL;
    kyu_collider_def cd = kyu_collider_def_default();
    cd.type = KYU_SHAPE_PLANE;
    cd.normal = v3(0.0f, 1.0f, 0.0f);
    cd.friction = 0.5f;
    kyu_collider_create(w, &cd, NULL);
    kyu_body_def bd = kyu_body_def_default();
    bd.radius = 0.25f, bd.friction = 0.5f, bd.restitution = 0.0f;
    for (int i = 0; i < 8; i++) {
        bd.position = v3(offset + 0.25f + 0.5f * (float)i, 0.25f, 1.0f); // wrapped in by the create
        kyu_body_create(w, &bd, NULL);
    }
    bd.position = v3(offset, 0.25f + sqrtf(0.25f - 0.0625f) + 0.001f, 1.0f);
    kyu_body_create(w, &bd, NULL);
    for (int s = 0; s < 60; s++) kyu_world_step(w);
    return w;
}
static kyu_world *settled_ring(float offset) { return settled_ring_on(offset, 1); }

// A bed across a seam and a dense gas bouncing across faces, edges and corners give the same bits
// on 1 and 2 workers.
static void test_seam_scenes_give_the_same_bits_on_1_and_2_workers(void) {
    kyu_world *a = settled_ring_on(0.0f, 1), *b = settled_ring_on(0.0f, 2);
    ENSURE(a && b);
    ENSURE(kyu_world_state_hash(a) == kyu_world_state_hash(b));
    kyu_world_destroy(a);
    kyu_world_destroy(b);
    a = make_gas(64, 1.0f, 1, 0.0f), b = make_gas(64, 1.0f, 2, 0.0f);
    ENSURE(a && b);
    for (int s = 0; s < 300; s++) ENSURE(kyu_world_step(a) == KYU_OK && kyu_world_step(b) == KYU_OK);
    ENSURE(kyu_world_state_hash(a) == kyu_world_state_hash(b));
    kyu_world_destroy(a);
    kyu_world_destroy(b);
    // large enough (4096 bodies) for the stages to split their work between the workers
    a = make_gas(4096, 7.0f, 1, 0.0f), b = make_gas(4096, 7.0f, 2, 0.0f);
    ENSURE(a && b);
    for (int s = 0; s < TEST_LENGTH(100, 30); s++)
        ENSURE(kyu_world_step(a) == KYU_OK && kyu_world_step(b) == KYU_OK);
    ENSURE(kyu_world_state_hash(a) == kyu_world_state_hash(b));
    kyu_world_destroy(a);
    kyu_world_destroy(b);
}

// The stress and packing of the periodic box do not depend on where the seam cuts the bed: the top
// ball sitting on the seam (its two contacts across it) or away from it. A branch taken to the far
// copy of a body (4 m instead of 0.25) would change the stress many times over; the solid volume
// counts a ball cut by a face once, whole.
static void test_measures_of_a_periodic_box_do_not_see_the_seam(void) {
    kyu_world *on = settled_ring(0.0f), *off = settled_ring(1.0f);
    ENSURE(on && off);
    kyu_region_measure a, b;
    vec3s lo = v3(0.0f, 0.0f, 0.5f), hi = v3(4.0f, 1.25f, 1.5f);
    ENSURE(kyu_world_measure_box(on, lo, hi, &a) == KYU_OK);
    ENSURE(kyu_world_measure_box(off, lo, hi, &b) == KYU_OK);
    double ball = 4.0 / 3.0 * 3.14159265358979 * 0.25 * 0.25 * 0.25;
    ENSURE_NEAR(a.solid_volume, 9.0 * ball, 1e-6);
    ENSURE_NEAR(b.solid_volume, 9.0 * ball, 1e-6);
    ENSURE(a.bodies == 9 && b.bodies == 9);
    // sigma_yy = sum over contacts of (x_b - x_a)_y f_y / V: the floor carries all 9 weights at a
    // branch of -r, the top ball its weight over a height h = sqrt(0.5^2 - 0.25^2) above the row;
    // within 1% (the balls sink into their slop). sigma_xx, the squeeze round the ring, is not
    // determined by statics (the ring is hyperstatic), so it is not compared.
    double h = sqrt(0.25 - 0.0625), want = -(9.0 * 0.25 + h) * 9.81 / (4.0 * 1.25 * 1.0);
    ENSURE_NEAR(a.contact_stress[4], want, 1e-2 * fabs(want));
    ENSURE_NEAR(b.contact_stress[4], want, 1e-2 * fabs(want));
    ENSURE_NEAR(a.contact_stress[4], b.contact_stress[4], 1e-3 * fabs(want));
    ENSURE_NEAR(a.coordination, b.coordination, 1e-12);
    kyu_world_destroy(on);
    kyu_world_destroy(off);
}

// The debug draw: the periodic box once, as the def gives it, and every touching pair as a short
// segment to the other body's nearest copy (never across the box).
typedef struct draw_log {
    int boxes, segments, across; // across: segments between 0.6 and 10 m long
    kyu_box last;
} draw_log;
static void log_box(const kyu_box *b, kyu_color c, void *ctx) {
    (void)c;
    draw_log *l = ctx;
    l->boxes++, l->last = *b;
}
static void log_segment(vec3s a, vec3s b, kyu_color c, void *ctx) {
    (void)c;
    draw_log *l = ctx;
    l->segments++;
    float len = glms_vec3_distance(a, b);
    l->across += len > 0.6f && len < 10.0f;
}

static void test_the_debug_draw_shows_the_periodic_box_and_pairs_across_it(void) {
    kyu_world *w = settled_ring(0.0f);
    ENSURE(w != NULL);
    draw_log l = {0};
    kyu_debug_draw dd = kyu_debug_draw_default();
    dd.draw_box = log_box, dd.draw_segment = log_segment, dd.context = &l;
    dd.flags = KYU_DRAW_SHAPES | KYU_DRAW_PAIRS;
    ENSURE(kyu_world_draw(w, &dd) == KYU_OK);
    ENSURE(l.boxes == 1); // the plane is two triangles; the periodic box is the one box
    ENSURE(l.last.center.x == 2.0f && l.last.half_extents.x == 2.0f && l.last.half_extents.y == 2.0f);
    // 8 pairs round the ring, 2 under the top ball, 8 balls on the floor, the plane's square (4 sides
    // of 20 m); a pair drawn across the box would be about 3.5 m long
    ENSURE(l.segments == 22);
    ENSURE(l.across == 0);
    kyu_world_destroy(w);
}

// An inserter whose region is wider than the periodic box places its bodies wrapped in, and never
// where one would overlap another through a face (checked pair by pair with the minimum image).
static void test_an_inserter_in_a_periodic_box_overlaps_nothing_across_a_face(void) {
    kyu_world_def d = periodic_def(2.0f, 2.0f, 2.0f, true, true, true);
    kyu_world *w = NULL;
    ENSURE(kyu_world_create(&d, &w) == KYU_OK);
    kyu_inserter_def id = kyu_inserter_def_default();
    id.body.radius = 0.1f;
    id.region.center = v3(1.0f, 1.0f, 1.0f), id.region.half_extents = v3(1.3f, 1.3f, 1.3f);
    id.count = 300, id.seed = 3;
    kyu_inserter *in = NULL;
    ENSURE(kyu_inserter_create(w, &id, &in) == KYU_OK);
    int made = 0;
    ENSURE(kyu_inserter_run(in, w, 0.0, &made) == KYU_OK);
    kyu_inserter_destroy(in);
    ENSURE(made == 300);
    kyu_body_id ids[300];
    ENSURE(kyu_world_get_bodies(w, ids, 300) == 300);
    const float L[3] = {2.0f, 2.0f, 2.0f};
    int near_faces = 0;
    for (int i = 0; i < 300; i++) {
        vec3s p = pos(w, ids[i]);
        ENSURE(inside(p, &d));
        near_faces += p.x < 0.1f || p.x > 1.9f;
        for (int j = 0; j < i; j++) ENSURE(glms_vec3_norm(min_image(p, pos(w, ids[j]), L)) >= 0.2f);
    }
    ENSURE(near_faces > 0); // some straddle a face: the copies were checked, not only the box
    kyu_world_destroy(w);
}

void suite_periodic(void) {
    RUN_TEST(test_a_body_crossing_each_face_edge_and_corner_enters_opposite);
    RUN_TEST(test_interpolation_across_a_face_takes_the_short_way);
    RUN_TEST(test_a_pair_across_a_seam_meets_as_the_same_pair_away_from_it);
    RUN_TEST(test_head_on_elastic_across_a_corner_keeps_momentum_and_energy);
    RUN_TEST(test_a_bed_across_a_seam_rests_and_wakes);
    RUN_TEST(test_a_ball_rolls_down_an_endless_periodic_chute);
    RUN_TEST(test_an_elastic_gas_in_a_periodic_box_keeps_energy_and_bodies);
    RUN_TEST(test_a_dense_gas_in_a_small_periodic_box_never_overlaps);
    RUN_TEST(test_a_periodic_gas_is_bit_identical_for_any_workers_and_cell);
    RUN_TEST(test_a_periodic_snapshot_continues_bit_identically);
    RUN_TEST(test_a_bad_periodic_box_or_body_is_refused);
    RUN_TEST(test_queries_see_through_a_periodic_face);
    RUN_TEST(test_measures_of_a_periodic_box_do_not_see_the_seam);
    RUN_TEST(test_the_debug_draw_shows_the_periodic_box_and_pairs_across_it);
    RUN_TEST(test_seam_scenes_give_the_same_bits_on_1_and_2_workers);
    RUN_TEST(test_an_inserter_in_a_periodic_box_overlaps_nothing_across_a_face);
}
