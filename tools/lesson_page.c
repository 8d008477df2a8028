// SPDX-License-Identifier: MIT
// kyu-lesson's panels: for each stage of the captured step, a picture (inline SVG), the engine's
// numbers and, where the lesson does the arithmetic itself, its numbers beside them with a verdict.
#include "lesson_page.h"

#include <math.h>
#include <string.h>

#include "lesson_svg.h"

const char *const lp_stage_titles[LP_STAGES] = {
    "Sweeps and swept boxes",   "Grid cells and candidate pairs", "Time of impact from P, Q, R",
    "Contact point and normal", "Velocity split and reflection",  "Escape of overlaps, kept and new pairs",
    "Islands and sleep",
};

static const char *const body_fill[] = {"#3a7bd5", "#e8833a", "#4caf50", "#9c27b0", "#d81b60",
                                        "#00897b", "#795548", "#c0a000", "#5c6bc0", "#8d6e63"};

// Formats a vector; a ring of buffers so one printf can show several.
static const char *V(vec3s v) {
    static char ring[12][72];
    static int next;
    char *b = ring[next++ % 12];
    // + 0.0f turns a negative zero into a plain 0 (no "-0.0000" on the page).
    snprintf(b, sizeof ring[0], "(%.4f, %.4f, %.4f)", v.x + 0.0f, v.y + 0.0f, v.z + 0.0f);
    return b;
}

static const char *side_name(const ls_capture *c, int i) {
    if (i == LS_WALL) return "wall";
    if (i == LS_GROUND) return "ground";
    return i >= 0 && i < c->nb ? c->b[i].name : "?";
}

// Where body b is s seconds into the step along its unobstructed path.
static vec3s free_pos(const ls_body *b, float s) {
    return glms_vec3_add(glms_vec3_add(b->p0, glms_vec3_scale(b->v0, s)),
                         glms_vec3_scale(b->accel, 0.5f * s * s));
}

// A body's contact margin and slop (types.h): the world def's lengths when set, else 4% and 0.4%
// of its radius.
static float margin_of(const ls_capture *c, float r) {
    return c->def.contact_margin > 0.0f ? c->def.contact_margin : 0.04f * r;
}
static float slop_of(const ls_capture *c, float r) {
    return c->def.linear_slop > 0.0f ? c->def.linear_slop : 0.004f * r;
}

// The box of a body's unobstructed path this step, grown by its radius and the contact margin,
// as engine/toi.c's kyu_path_box builds it (the parabola's turning point included).
static void path_box(const ls_capture *c, const ls_body *b, vec3s *lo, vec3s *hi) {
    float S = c->def.fixed_dt, grow = b->r + margin_of(c, b->r);
    vec3s e = free_pos(b, S);
    *lo = glms_vec3_minv(b->p0, e), *hi = glms_vec3_maxv(b->p0, e);
    for (int k = 0; k < 3; k++) {
        float a = b->accel.raw[k], s = a != 0.0f ? -b->v0.raw[k] / a : -1.0f;
        if (s > 0.0f && s < S) {
            float pt = free_pos(b, s).raw[k];
            lo->raw[k] = fminf(lo->raw[k], pt), hi->raw[k] = fmaxf(hi->raw[k], pt);
        }
    }
    *lo = glms_vec3_subs(*lo, grow), *hi = glms_vec3_adds(*hi, grow);
}

static bool swept(const ls_body *b) { return b->awake0 || b->awake1; }

static bool boxes_overlap(vec3s alo, vec3s ahi, vec3s blo, vec3s bhi) {
    for (int k = 0; k < 3; k++)
        if (alo.raw[k] > bhi.raw[k] || blo.raw[k] > ahi.raw[k]) return false;
    return true;
}

// ---- the shared picture ------------------------------------------------------------------------

static svg_view view_of(FILE *f, const ls_capture *c) {
    vec3s lo = {{1e30f, 1e30f, 0.0f}}, hi = {{-1e30f, -1e30f, 0.0f}};
    for (int i = 0; i < c->nb; i++) {
        vec3s blo, bhi;
        path_box(c, &c->b[i], &blo, &bhi);
        lo = glms_vec3_minv(lo, glms_vec3_minv(blo, glms_vec3_subs(c->b[i].p1, c->b[i].r)));
        hi = glms_vec3_maxv(hi, glms_vec3_maxv(bhi, glms_vec3_adds(c->b[i].p1, c->b[i].r)));
    }
    if (c->has_wall) {
        lo = glms_vec3_minv(lo, glms_vec3_sub(c->wall_p1, c->wall_half));
        hi = glms_vec3_maxv(hi, glms_vec3_add(c->wall_p0, c->wall_half));
    }
    if (c->has_ground) lo.y = fminf(lo.y, -0.15f);
    lo = glms_vec3_subs(lo, 0.12f), hi = glms_vec3_adds(hi, 0.12f);
    lo.z = hi.z = 0.0f;
    return svg_fit(f, lo, hi, 520, 320);
}

static void draw_wall(svg_view *v, const ls_capture *c, bool start, bool end) {
    if (!c->has_wall) return;
    if (start)
        svg_rect(v, glms_vec3_sub(c->wall_p0, c->wall_half), glms_vec3_add(c->wall_p0, c->wall_half),
                 "wall ghost");
    if (end)
        svg_rect(v, glms_vec3_sub(c->wall_p1, c->wall_half), glms_vec3_add(c->wall_p1, c->wall_half), "wall");
}

static void draw_bodies_at(svg_view *v, const ls_capture *c, int when, float s) {
    for (int i = 0; i < c->nb; i++) {
        const ls_body *b = &c->b[i];
        vec3s p = when == 0 ? b->p0 : when == 1 ? b->p1 : free_pos(b, s);
        svg_circle(v, p, b->r, when == 0 ? "body ghost" : "body", body_fill[i % 10]);
        if (when != 0) svg_label(v, p, -6.0, 4.0, "name", b->name);
    }
}

// Positions at the impact time: the two sides on their paths, the others where they started.
static void draw_at_impact(svg_view *v, const ls_capture *c) {
    float s = c->imp.time * c->def.fixed_dt;
    draw_bodies_at(v, c, 0, 0.0f);
    for (int i = 0; i < c->nb; i++) {
        const ls_body *b = &c->b[i];
        vec3s p = (i == c->ia || i == c->ib) ? free_pos(b, s) : b->p0;
        svg_circle(v, p, b->r, "body", body_fill[i % 10]);
        svg_label(v, p, -6.0, 4.0, "name", b->name);
    }
    if (c->has_wall) {
        vec3s w = glms_vec3_add(c->wall_p0, glms_vec3_scale(c->wall_v, s));
        svg_rect(v, glms_vec3_sub(w, c->wall_half), glms_vec3_add(w, c->wall_half), "wall");
    }
}

static void picture_start(FILE *f, svg_view *v, const ls_capture *c, const char *label) {
    *v = view_of(f, c);
    svg_begin(v, label);
    if (c->has_ground) svg_ground(v, 0.0f);
}

// ---- panels --------------------------------------------------------------------------------------

static void panel_begin(FILE *f, const ls_capture *c, int stage) {
    fprintf(f, "<article class=\"stage\" id=\"s%d-stage%d\" data-stage=\"%d\">\n<h2>%d. %s</h2>\n",
            c->scenario, stage + 1, stage + 1, stage + 1, lp_stage_titles[stage]);
}

static void verdict(FILE *f, const ls_capture *c, const char *what, bool ok, const char *detail) {
    fprintf(f, "<p class=\"verdict %s\" id=\"s%d-%s-verdict\">%s: %s</p>\n", ok ? "agree" : "differ",
            c->scenario, what, ok ? "agree" : "DIFFER", detail);
}

static void stage_sweeps(FILE *f, const ls_capture *c) {
    panel_begin(f, c, 0);
    svg_view v;
    picture_start(f, &v, c, "sweeps");
    float dt = c->def.fixed_dt;
    for (int i = 0; i < c->nb; i++) {
        if (!swept(&c->b[i])) continue;
        vec3s lo, hi;
        path_box(c, &c->b[i], &lo, &hi);
        svg_rect(&v, lo, hi, "aabb");
        svg_capsule(&v, c->b[i].p0, free_pos(&c->b[i], dt), c->b[i].r, "sweep");
    }
    for (int k = 0; k < c->drawn.nswept; k++)
        svg_capsule(&v, c->drawn.swept[k].a, c->drawn.swept[k].b, c->drawn.swept[k].r, "engine");
    for (int k = 0; k < c->drawn.naabb; k++) svg_box(&v, &c->drawn.aabb[k], "engine");
    draw_wall(&v, c, true, false);
    if (c->has_wall) svg_arrow(&v, c->wall_p0, c->wall_v, dt * 4.0f, "vw");
    draw_bodies_at(&v, c, 0, 0.0f);
    for (int i = 0; i < c->nb; i++) svg_label(&v, c->b[i].p0, -6.0, 4.0, "name", c->b[i].name);
    svg_end(&v);
    fprintf(f,
            "<p>Each awake particle's path over the step (dt = %.6f s) is a capsule: its sphere swept from "
            "where it starts to where it would be at the end if nothing were in the way%s. The broadphase "
            "does not look at capsules but at their boxes, grown by the radius and the contact margin "
            "(4%% of the radius: %.3f m for the first body): <span class=\"k aabb-k\">dashed boxes</span>. "
            "Sleeping bodies are not swept.</p>\n",
            dt, c->def.gravity.y != 0.0f ? " (a parabola for a body in free flight)" : "",
            margin_of(c, c->b[0].r));
    fprintf(f,
            "<p class=\"dt-note\">Measuring an acceleration from positions: a body in free flight is on the "
            "exact parabola, so 2s/t<sup>2</sup> gives a. A body a contact holds (rolling down a slope, "
            "pushed along the floor) takes each step's velocity first and then moves the whole step with "
            "it: its velocities are exact (v = a t) but its positions are s = a t (t + dt) / 2, half a step "
            "ahead of the parabola, so 2s/t<sup>2</sup> reads a (1 + dt/t), %.1f%% high after 1 s at this "
            "dt. The exact value from positions is a = 2s / (t (t + dt)), or the second difference "
            "(s<sub>n</sub> &#8722; 2s<sub>n&#8722;1</sub> + s<sub>n&#8722;2</sub>) / dt<sup>2</sup>.</p>\n",
            100.0 * (double)dt);
    fprintf(f, "<table><tr><th>body</th><th>awake</th><th>p before</th><th>v before</th><th>end of the free "
               "path</th><th>box lo</th><th>box hi</th></tr>\n");
    for (int i = 0; i < c->nb; i++) {
        const ls_body *b = &c->b[i];
        vec3s lo, hi;
        path_box(c, b, &lo, &hi);
        fprintf(f, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                b->name, b->awake0 ? "yes" : (b->awake1 ? "woken" : "asleep"), V(b->p0), V(b->v0),
                V(free_pos(b, dt)), V(lo), V(hi));
    }
    fprintf(f, "</table>\n<p class=\"engine-note\">%s</p>\n</article>\n",
            !c->drawn.available ? "kyu_world_draw is not available in this build: the engine's own capsules "
                                  "and boxes are not shown."
                                : "<span class=\"k engine-k\">Red, dotted</span>: kyu_world_draw after the "
                                  "step: KYU_DRAW_SWEPT's capsule of the "
                                  "motion each body actually made (start to end, bounce included) and "
                                  "KYU_DRAW_AABBS's box of each body where it ended.");
}

// Candidate pairs as the broadphase finds them: two swept bodies whose boxes overlap, and a swept
// body whose box meets a collider's bounds over the step; a plane is unbounded, so it is paired
// with every swept body (engine/collider.c, kyu_collider_touches_box).
static int my_candidates(const ls_capture *c, int pa[], int pb[], int max) {
    int n = 0;
    for (int i = 0; i < c->nb; i++) {
        vec3s al, ah;
        path_box(c, &c->b[i], &al, &ah);
        for (int j = i + 1; j < c->nb; j++) {
            if (!swept(&c->b[i]) && !swept(&c->b[j])) continue;
            vec3s bl, bh;
            path_box(c, &c->b[j], &bl, &bh);
            if (boxes_overlap(al, ah, bl, bh) && n < max) pa[n] = i, pb[n] = j, n++;
        }
        if (!swept(&c->b[i])) continue;
        if (c->has_ground && n < max) pa[n] = i, pb[n] = LS_GROUND, n++;
        if (c->has_wall) {
            vec3s w1 = glms_vec3_add(c->wall_p0, glms_vec3_scale(c->wall_v, c->def.fixed_dt));
            vec3s wl = glms_vec3_sub(glms_vec3_minv(c->wall_p0, w1), c->wall_half);
            vec3s wh = glms_vec3_add(glms_vec3_maxv(c->wall_p0, w1), c->wall_half);
            if (boxes_overlap(al, ah, wl, wh) && n < max) pa[n] = i, pb[n] = LS_WALL, n++;
        }
    }
    return n;
}

static void stage_grid(FILE *f, const ls_capture *c) {
    panel_begin(f, c, 1);
    svg_view v;
    picture_start(f, &v, c, "grid");
    for (int k = 0; k < c->drawn.ngrid; k++) svg_box(&v, &c->drawn.grid[k], "cell");
    for (int i = 0; i < c->nb; i++) {
        if (!swept(&c->b[i])) continue;
        vec3s lo, hi;
        path_box(c, &c->b[i], &lo, &hi);
        svg_rect(&v, lo, hi, "aabb");
    }
    draw_wall(&v, c, true, false);
    draw_bodies_at(&v, c, 0, 0.0f);
    int pa[64], pb[64], n = my_candidates(c, pa, pb, 64);
    for (int k = 0; k < n; k++)
        if (pb[k] >= 0) svg_line(&v, c->b[pa[k]].p0, c->b[pb[k]].p0, "cand");
    for (int i = 0; i < c->nb; i++) svg_label(&v, c->b[i].p0, -6.0, 4.0, "name", c->b[i].name);
    svg_end(&v);
    float cell = c->drawn.ngrid ? 2.0f * c->drawn.grid[0].half_extents.x : 0.0f;
    fprintf(f,
            "<p>The boxes are binned in a uniform grid (cell %.3f m, <span class=\"k cell-k\">grey "
            "squares</span>: "
            "the %d cells in use, drawn by kyu_world_draw with KYU_DRAW_GRID). Two bodies become a "
            "<em>candidate pair</em> when their boxes overlap (<span class=\"k cand-k\">purple "
            "dashes</span>): only "
            "those get an exact time of impact. Colliders are tested against every box directly, without the "
            "grid, "
            "and count as candidates too; the ground plane is unbounded, so it pairs with every swept "
            "body.</p>\n",
            cell, c->drawn.ngrid);
    fprintf(f,
            "<table><tr><th>candidate pairs (box overlaps, "
            "lesson)</th><th>kyu_world_stats().candidate_pairs</th></tr>"
            "<tr><td>%d:",
            n);
    for (int k = 0; k < n; k++) fprintf(f, " %s&#8211;%s", c->b[pa[k]].name, side_name(c, pb[k]));
    fprintf(f, "</td><td id=\"s%d-cand-engine\">%d</td></tr></table>\n", c->scenario,
            c->stats.candidate_pairs);
    verdict(f, c, "cand", n == c->stats.candidate_pairs,
            n == c->stats.candidate_pairs
                ? "the engine's broadphase found as many candidate pairs as the boxes' overlaps"
                : "the engine's count is not the number of overlapping boxes");
    fprintf(f, "</article>\n");
}

static void toi_table_spheres(FILE *f, const ls_capture *c) {
    const ls_toi *t = &c->toi;
    const ls_body *A = &c->b[c->ia], *B = &c->b[c->ib];
    fprintf(
        f,
        "<p>The time of impact of two moving spheres: with A = %s and B = %s (the engine's event names A as "
        "<code>body</code>, B as "
        "<code>other</code>), C(t) = C0 + t D is the vector from A to B at time t (a fraction of the step). "
        "|C(t)|&#178; = P t&#178; + 2 Q t + R' with P = D&#183;D, Q = C0&#183;D, R' = C0&#183;C0; contact "
        "when it "
        "equals (ra + rb)&#178;, so R = C0&#183;C0 &#8722; (ra+rb)&#178; and "
        "<b>t = (&#8722;Q &#8722; &#8730;(Q&#178; &#8722; P R)) / P</b>.</p>\n",
        A->name, B->name);
    fprintf(f,
            "<table class=\"nums\">"
            "<tr><td>C0 = b0 &#8722; a0</td><td>%s</td></tr><tr><td>D = db &#8722; da</td><td>%s</td></tr>"
            "<tr><td>ra + rb</td><td>%.4f</td></tr>"
            "<tr><td>P = D&#183;D</td><td>%.9g</td></tr><tr><td>Q = C0&#183;D</td><td>%.9g</td></tr>"
            "<tr><td>R = C0&#183;C0 &#8722; (ra+rb)&#178;</td><td>%.9g</td></tr>"
            "<tr><td>Q&#178; &#8722; P R</td><td>%.9g</td></tr>"
            "<tr><td>t, the formula in float (lesson)</td><td id=\"s%d-toi-mine\">%.7f</td></tr>"
            "<tr><td>t, the same in double (lesson)</td><td>%.9f</td></tr>",
            V(t->C0), V(t->D), A->r + B->r, t->P, t->Q, t->R, t->disc, c->scenario, t->t_naive, t->t_double);
    if (t->curved)
        fprintf(f, "<tr><td>t along the true curved paths (lesson, bisection)</td><td>%.7f</td></tr>",
                t->t_exact);
    fprintf(f,
            "<tr><td>t from kyu_sweep_sphere_sphere (geometry.h, on the chord)</td><td "
            "id=\"s%d-toi-sweep\">%.7f</td></tr>"
            "<tr><td>t of the engine's impact event (kyu_impact_event.time)</td><td "
            "id=\"s%d-toi-engine\">%.7f</td></tr></table>\n",
            c->scenario, t->sweep.t, c->scenario, t->t_engine);
}

static void toi_table_wall(FILE *f, const ls_capture *c) {
    const ls_toi *t = &c->toi;
    fprintf(f, "<p>A wall has no P, Q, R: seen from the wall (relative motion), the ball moves by "
               "D = (v &#8722; v_wall) dt and its gap to the face with normal n shrinks at the rate n&#183;D "
               "per step, "
               "so <b>t = &#8722;g0 / (n&#183;D)</b>.</p>\n");
    fprintf(f,
            "<table class=\"nums\"><tr><td>n (face normal, from the event)</td><td>%s</td></tr>"
            "<tr><td>D = (v &#8722; v_wall) dt</td><td>%s</td></tr><tr><td>g0 (gap at t = "
            "0)</td><td>%.9g</td></tr>"
            "<tr><td>n&#183;D</td><td>%.9g</td></tr>"
            "<tr><td>t = &#8722;g0 / n&#183;D (lesson)</td><td id=\"s%d-toi-mine\">%.7f</td></tr>"
            "<tr><td>t from kyu_sweep_sphere_box (geometry.h)</td><td id=\"s%d-toi-sweep\">%.7f</td></tr>"
            "<tr><td>t of the engine's impact event (kyu_impact_event.time)</td><td "
            "id=\"s%d-toi-engine\">%.7f</td></tr></table>\n",
            V(c->imp.normal), V(t->D), t->g0, t->rate, c->scenario, t->t_naive, c->scenario, t->sweep.t,
            c->scenario, t->t_engine);
}

static void stage_toi(FILE *f, const ls_capture *c) {
    panel_begin(f, c, 2);
    const ls_toi *t = &c->toi;
    fprintf(f, "<div class=\"row\">");
    svg_view v;
    picture_start(f, &v, c, "time of impact");
    draw_at_impact(&v, c);
    svg_end(&v);
    if (t->sphere) svg_quadratic_plot(f, t->P, t->Q, t->R, t->t_double, "distance squared over the step");
    fprintf(f, "</div>\n");
    if (t->sphere)
        toi_table_spheres(f, c);
    else
        toi_table_wall(f, c);
    char detail[300];
    if (t->curved)
        snprintf(detail, sizeof detail,
                 "the engine's time is %.2e from the first touch along the true paths. Here %s "
                 "falls (a parabola) and %s is held by its contacts (a line): the chord's P, Q, R is only a "
                 "first guess "
                 "(%.4f), and the engine advances conservatively along the true path from it.",
                 t->diff, c->b[c->b[c->ia].accel.y != 0.0f ? c->ia : c->ib].name,
                 c->b[c->b[c->ia].accel.y != 0.0f ? c->ib : c->ia].name, t->t_double);
    else
        snprintf(detail, sizeof detail,
                 "the lesson's t and the engine's differ by %.2e (float precision is ~6e-8 "
                 "relative); kyu_sweep_sphere_* gives %.7f.",
                 t->diff, t->sweep.t);
    verdict(f, c, "toi", t->agree, detail);
    fprintf(f, "</article>\n");
}

static void stage_contact(FILE *f, const ls_capture *c) {
    panel_begin(f, c, 3);
    const ls_reflect *r = &c->refl;
    svg_view v;
    picture_start(f, &v, c, "contact");
    draw_at_impact(&v, c);
    float len = 2.0f * c->b[c->ia].r;
    svg_arrow(&v, r->point, r->n, len, "n");
    svg_circle(&v, r->point, 2.5f / (float)v.scale, "point", NULL);
    svg_label(&v, glms_vec3_add(r->point, glms_vec3_scale(r->n, len)), 4.0, 0.0, "small", "n");
    svg_end(&v);
    double dp = glms_vec3_norm(glms_vec3_sub(r->point, r->point_mine)),
           dn = glms_vec3_norm(glms_vec3_sub(r->n, r->n_mine));
    fprintf(
        f,
        "<p>At t the two shapes touch. The normal points from B (%s) to A (%s); the contact point is on A's "
        "surface, %s: point = A(t) + ra/(ra+rb) (B(t) &#8722; A(t)).</p>\n",
        side_name(c, c->ib), c->b[c->ia].name,
        c->ib >= 0 ? "between the centres" : "the point of the wall nearest A");
    fprintf(f,
            "<table class=\"nums\"><tr><th></th><th>engine (kyu_impact_event)</th><th>lesson (positions at "
            "t)</th></tr>"
            "<tr><td>point</td><td id=\"s%d-point-engine\">%s</td><td>%s</td></tr>"
            "<tr><td>normal</td><td>%s</td><td>%s</td></tr>"
            "<tr><td>approach speed</td><td>%.6f m/s</td><td>%.6f m/s</td></tr></table>\n",
            c->scenario, V(r->point), V(r->point_mine), V(r->n), V(r->n_mine), r->approach_engine, -r->vn);
    char detail[160];
    snprintf(detail, sizeof detail, "point %.1e m apart, normals %.1e apart", dp, dn);
    verdict(f, c, "contact", dp < 1e-4 && dn < 1e-4, detail);
    fprintf(f, "</article>\n");
}

static void velocity_arrows(svg_view *v, const ls_capture *c, float scale) {
    const ls_reflect *r = &c->refl;
    // From A's centre at the impact: the arrows are A's motion as seen from B (or the wall).
    vec3s at = free_pos(&c->b[c->ia], c->imp.time * c->def.fixed_dt);
    svg_arrow(v, at, r->vrel, scale, "v");
    svg_arrow(v, at, r->vN, scale, "vn");
    svg_arrow(v, glms_vec3_add(at, glms_vec3_scale(r->vN, scale)), r->vT, scale, "vt");
    svg_arrow(v, at, r->vrel_after, scale, "vr");
}

static void stage_velocity(FILE *f, const ls_capture *c) {
    panel_begin(f, c, 4);
    const ls_reflect *r = &c->refl;
    svg_view v;
    picture_start(f, &v, c, "velocities");
    draw_at_impact(&v, c);
    float vmax = fmaxf(glms_vec3_norm(r->vrel), glms_vec3_norm(r->vrel_after));
    float scale = vmax > 0.0f ? 3.0f * c->b[c->ia].r / vmax : 0.0f;
    velocity_arrows(&v, c, scale);
    svg_end(&v);
    fprintf(
        f,
        "<p>Reflection with restitution: the velocity of A relative to B (or to the moving wall), v = vA "
        "&#8722; vB, splits into "
        "<span class=\"k vn-k\">vN = (v&#183;n) n</span> and <span class=\"k vt-k\">vT = v &#8722; "
        "vN</span>. "
        "The impact turns vN around and scales it by the restitution e: <span class=\"k vr-k\">v' = vT "
        "&#8722; e vN</span> "
        "(<span class=\"k v-k\">v</span> before). As an impulse: j = &#8722;(1+e) v&#183;n / (1/mA + 1/mB), "
        "a wall's 1/m "
        "being 0. The pair's e is the larger of the two (%.2f), &#956; = "
        "&#8730;(&#956;A &#956;B) = %.3f; impacts slower than %.2f m/s are inelastic.</p>\n"
        "<p>Friction acts where the surfaces touch, and the spheres spin, so it sees the slip of the contact "
        "points: vslip = the tangential part of v + n &#215; (rA &#969;A + rB &#969;B). The friction impulse "
        "jt takes "
        "the slip to &#8722;&#946; times itself (&#946; = %.2f, the tangential restitution) through the "
        "tangential "
        "effective mass kt = 1 / (1/mA + 1/mB + rA&#178;/IA + rB&#178;/IB) = %.4f kg, or slides with at most "
        "&#956; j. It acts at the contact point, off the centre, so it also turns each sphere: &#916;&#969;A "
        "= "
        "rA (n &#215; jt) / IA, with I = 2/5 m r&#178; for a solid sphere.</p>\n",
        r->e, r->mu, c->def.restitution_threshold, r->beta, r->kt);
    fprintf(
        f,
        "<table class=\"nums\"><tr><td>vA at t</td><td>%s</td></tr><tr><td>vB at t (%s)</td><td>%s</td></tr>"
        "<tr><td>v = vA &#8722; vB</td><td>%s</td></tr><tr><td>v&#183;n</td><td>%.6f</td></tr>"
        "<tr><td>vN</td><td>%s</td></tr><tr><td>vT</td><td>%s</td></tr>"
        "<tr><td>j (normal), jt (friction)</td><td>%.6f, %.6f N s</td></tr>"
        "<tr><td>v' relative, after</td><td>%s</td></tr>"
        "<tr><td>vA after (lesson)</td><td>%s</td></tr>"
        "<tr><td>&#969;A at t; slip of the contact points</td><td>%s rad/s; %s</td></tr>"
        "<tr><td>&#969;A after (lesson)</td><td>%s rad/s</td></tr>",
        V(r->va), side_name(c, c->ib), V(r->vb), V(r->vrel), r->vn, V(r->vN), V(r->vT), r->jn, r->jt,
        V(r->vrel_after), V(r->va_after), V(r->wa), V(r->vslip), V(r->wa_after));
    if (c->ib >= 0) fprintf(f, "<tr><td>vB after (lesson)</td><td>%s</td></tr>", V(r->vb_after));
    fprintf(f, "<tr><td>vA at the end of the step (engine)</td><td id=\"s%d-v-engine\">%s</td></tr>",
            c->scenario, V(c->b[c->ia].v1));
    fprintf(f,
            "<tr><td>&#969;A at the end of the step (engine)</td><td id=\"s%d-w-engine\">%s rad/s</td></tr>",
            c->scenario, V(c->b[c->ia].w1));
    if (c->ib >= 0)
        fprintf(f, "<tr><td>vB at the end of the step (engine)</td><td>%s</td></tr>", V(c->b[c->ib].v1));
    fprintf(f, "</table>\n");
    char detail[220];
    if (r->single)
        snprintf(detail, sizeof detail,
                 "the engine's end-of-step velocities are %.1e m/s from the lesson's "
                 "(after the rest of the step's free path)",
                 r->diff);
    else
        snprintf(detail, sizeof detail,
                 "other impacts changed these bodies later in the same step (%d impacts in all), "
                 "so the end-of-step velocities are not this one reflection",
                 c->nimps_total);
    verdict(f, c, "refl", r->single ? r->agree : true, detail);
    fprintf(f, "</article>\n");
}

static void pair_line(svg_view *v, const ls_capture *c, const ls_pair *p, const char *cls) {
    const ls_body *a = &c->b[p->a];
    vec3s q;
    if (p->b >= 0)
        q = c->b[p->b].p1;
    else if (p->b == LS_GROUND)
        q = (vec3s){{a->p1.x, 0.0f, 0.0f}};
    else
        q = (vec3s){{c->wall_p1.x - c->wall_half.x, a->p1.y, 0.0f}};
    svg_line(v, a->p1, q, cls);
}

static void stage_escape(FILE *f, const ls_capture *c) {
    panel_begin(f, c, 5);
    svg_view v;
    picture_start(f, &v, c, "pairs");
    draw_wall(&v, c, false, true);
    draw_bodies_at(&v, c, 1, 0.0f);
    for (int k = 0; k < c->npairs; k++) {
        const ls_pair *p = &c->pairs[k];
        if (p->after || p->ended) pair_line(&v, c, p, p->began ? "new" : p->after ? "kept" : "ended");
    }
    for (int k = 0; k < c->drawn.nsegs; k++)
        svg_line(&v, c->drawn.segs[k].a, c->drawn.segs[k].b, "engine thin");
    svg_end(&v);
    fprintf(f,
            "<p>After the impacts, pairs closer than the contact margin (%.3f m) are kept as contacts for "
            "the next "
            "step (<span class=\"k kept-k\">kept</span>: touching before and after; <span class=\"k "
            "new-k\">new</span>: "
            "a begin event this step; <span class=\"k ended-k\">ended</span>: an end event). Overlaps deeper "
            "than the "
            "slop (%.3f m) are pushed apart along the normal, split by inverse mass (all of it to the body "
            "against a "
            "collider); this moves positions only, so it never adds energy. Gap &lt; 0 is overlap.</p>\n",
            margin_of(c, c->b[0].r), slop_of(c, c->b[0].r));
    fprintf(f, "<table><tr><th>pair</th><th>before</th><th>after</th><th>event</th><th>gap before "
               "(mm)</th><th>gap after (mm)</th></tr>\n");
    for (int k = 0; k < c->npairs; k++) {
        const ls_pair *p = &c->pairs[k];
        fprintf(f,
                "<tr "
                "class=\"%s\"><td>%s&#8211;%s</td><td>%s</td><td>%s</td><td>%s</td><td>%.3f</td><td>%.3f</"
                "td></tr>\n",
                p->began   ? "new"
                : p->after ? "kept"
                           : "ended",
                c->b[p->a].name, side_name(c, p->b), p->before ? "touching" : "", p->after ? "touching" : "",
                p->began   ? "begin"
                : p->ended ? "end"
                           : "",
                1e3 * p->gap0, 1e3 * p->gap1);
    }
    fprintf(f,
            "</table>\n<p>Engine: %d contacts kept (kyu_world_stats), %d begin and %d end events, deepest "
            "overlap "
            "left after the escape %.3f mm; %d impacts resolved this step.</p>\n</article>\n",
            c->stats.contacts, c->begin_count, c->end_count, 1e3 * c->stats.max_overlap, c->stats.impacts);
}

// Do the engine's island colours split the bodies the same way as the lesson's islands?
static bool same_islands(const ls_capture *c) {
    for (int i = 0; i < c->nb; i++)
        for (int j = 0; j < c->nb; j++) {
            const ls_body *a = &c->b[i], *b = &c->b[j];
            if (!a->has_engine_color || !b->has_engine_color) return false;
            bool same_colour = a->engine_color.r == b->engine_color.r &&
                               a->engine_color.g == b->engine_color.g &&
                               a->engine_color.b == b->engine_color.b;
            // Colours may repeat across islands (a palette), so only "same island, same colour" is checked.
            if (a->island == b->island && !same_colour) return false;
        }
    return true;
}

static void colour_css(char *buf, size_t n, kyu_color c) {
    snprintf(buf, n, "rgb(%d,%d,%d)", (int)lroundf(255.0f * c.r), (int)lroundf(255.0f * c.g),
             (int)lroundf(255.0f * c.b));
}

static void stage_islands(FILE *f, const ls_capture *c) {
    static const char *island_fill[] = {"#3a7bd5", "#e8833a", "#4caf50", "#9c27b0", "#d81b60", "#00897b"};
    panel_begin(f, c, 6);
    svg_view v;
    picture_start(f, &v, c, "islands");
    draw_wall(&v, c, false, true);
    for (int i = 0; i < c->nb; i++) {
        const ls_body *b = &c->b[i];
        svg_circle(&v, b->p1, b->r, b->awake1 ? "body" : "body asleep", island_fill[b->island % 6]);
        svg_label(&v, b->p1, -6.0, 4.0, "name", b->name);
    }
    svg_end(&v);
    fprintf(f,
            "<p>Bodies linked by contacts form an island (colour = island, from the contacts after the step; "
            "dark = asleep). An island sleeps when all its bodies stayed slower than %.3f m/s for %.2f s; "
            "then its "
            "bodies leave the step and cost nothing. Touching a sleeping island wakes all of it.</p>\n",
            c->def.sleep_speed, c->def.sleep_time);
    fprintf(f, "<table><tr><th>body</th><th>island</th><th>before the step</th><th>after</th><th>falls "
               "asleep</th><th>kyu_world_draw colour</th></tr>\n");
    for (int i = 0; i < c->nb; i++) {
        const ls_body *b = &c->b[i];
        char sleep[64], css[32] = "";
        if (b->sleep_step < 0)
            snprintf(sleep, sizeof sleep, "not within %d more steps", c->sleep_horizon);
        else if (b->sleep_step == c->step)
            snprintf(sleep, sizeof sleep, "asleep now");
        else
            snprintf(sleep, sizeof sleep, "at step %d (+%.2f s)", b->sleep_step,
                     (b->sleep_step - c->step) * c->def.fixed_dt);
        if (b->has_engine_color) colour_css(css, sizeof css, b->engine_color);
        fprintf(f, "<tr><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s%s%s</td></tr>\n",
                b->name, b->island + 1, b->awake0 ? "awake" : "asleep", b->awake1 ? "awake" : "asleep", sleep,
                css[0] ? "<span class=\"swatch\" style=\"background:" : "n/a", css,
                css[0] ? "\"></span>" : "");
    }
    fprintf(f, "</table>\n");
    if (c->drawn.available)
        verdict(f, c, "islands", same_islands(c),
                "the colours kyu_world_draw gives with KYU_DRAW_ISLANDS group the bodies as the lesson's "
                "islands");
    fprintf(f, "</article>\n");
}

void lp_scenario(FILE *f, const ls_capture *c) {
    fprintf(f,
            "<section class=\"scenario\" id=\"scenario%d\" data-scenario=\"%d\">\n<h1 class=\"sc-title\">%d. "
            "%s</h1>\n",
            c->scenario, c->scenario, c->scenario, c->title);
    fprintf(f,
            "<p class=\"intro\">%s The step shown is step %d%s; its time of impact (engine): "
            "<b class=\"toi\">%.7f</b> of the step.</p>\n",
            c->intro, c->step, c->scenario == 3 ? " after the drop" : "", c->imp.time);
    stage_sweeps(f, c);
    stage_grid(f, c);
    stage_toi(f, c);
    stage_contact(f, c);
    stage_velocity(f, c);
    stage_escape(f, c);
    stage_islands(f, c);
    fprintf(f, "</section>\n");
}
