// SPDX-License-Identifier: MIT
// kyu-lesson's inline SVG (see lesson_svg.h). Plain text written with fprintf: the browser draws.
#include "lesson_svg.h"

#include <math.h>

svg_view svg_fit(FILE *f, vec3s lo, vec3s hi, int w, int max_h) {
    svg_view v = {.f = f, .w = w, .pad = 18};
    double dx = fmax(hi.x - lo.x, 1e-3), dy = fmax(hi.y - lo.y, 1e-3);
    v.scale = (w - 2.0 * v.pad) / dx;
    if (dy * v.scale > max_h - 2.0 * v.pad) v.scale = (max_h - 2.0 * v.pad) / dy;
    v.h = (int)ceil(dy * v.scale + 2.0 * v.pad);
    // Centre the picture horizontally when the height limited the scale.
    v.x0 = lo.x - 0.5 * ((w - 2.0 * v.pad) / v.scale - dx);
    v.y0 = lo.y;
    return v;
}

static double sx(const svg_view *v, double x) { return v->pad + (x - v->x0) * v->scale; }
static double sy(const svg_view *v, double y) { return v->h - v->pad - (y - v->y0) * v->scale; }

void svg_begin(svg_view *v, const char *label) {
    fprintf(v->f,
            "<svg class=\"pic\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
            "aria-label=\"%s\">\n",
            v->w, v->h, v->w, v->h, label);
}

void svg_end(svg_view *v) { fprintf(v->f, "</svg>\n"); }

void svg_circle(svg_view *v, vec3s c, float r, const char *cls, const char *fill) {
    fprintf(v->f, "<circle class=\"%s\" cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\"%s%s%s/>\n", cls, sx(v, c.x),
            sy(v, c.y), r * v->scale, fill ? " style=\"fill:" : "", fill ? fill : "", fill ? "\"" : "");
}

void svg_capsule(svg_view *v, vec3s a, vec3s b, float r, const char *cls) {
    double ax = sx(v, a.x), ay = sy(v, a.y), bx = sx(v, b.x), by = sy(v, b.y), R = r * v->scale;
    double len = hypot(bx - ax, by - ay);
    double nx = len > 1e-9 ? -(by - ay) / len * R : 0.0, ny = len > 1e-9 ? (bx - ax) / len * R : R;
    // Two half circles joined by the tangent lines: the capsule's outline in the plane. Each arc
    // goes round the far side of its end (sweep flag 0: decreasing angle with y pointing down).
    fprintf(
        v->f,
        "<path class=\"%s\" d=\"M%.2f %.2f L%.2f %.2f A%.2f %.2f 0 0 0 %.2f %.2f L%.2f %.2f A%.2f %.2f 0 0 0 "
        "%.2f %.2f Z\"/>\n",
        cls, ax + nx, ay + ny, bx + nx, by + ny, R, R, bx - nx, by - ny, ax - nx, ay - ny, R, R, ax + nx,
        ay + ny);
}

void svg_rect(svg_view *v, vec3s lo, vec3s hi, const char *cls) {
    fprintf(v->f, "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>\n", cls,
            sx(v, lo.x), sy(v, hi.y), (hi.x - lo.x) * v->scale, (hi.y - lo.y) * v->scale);
}

void svg_box(svg_view *v, const kyu_box *b, const char *cls) {
    // The lessons' boxes are axis-aligned (grid cells, AABBs, the wall): their x-y rectangle.
    svg_rect(v, glms_vec3_sub(b->center, b->half_extents), glms_vec3_add(b->center, b->half_extents), cls);
}

void svg_line(svg_view *v, vec3s a, vec3s b, const char *cls) {
    fprintf(v->f, "<line class=\"%s\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", cls, sx(v, a.x),
            sy(v, a.y), sx(v, b.x), sy(v, b.y));
}

void svg_arrow(svg_view *v, vec3s a, vec3s d, float scale, const char *cls) {
    vec3s b = glms_vec3_add(a, glms_vec3_scale(d, scale));
    if (glms_vec3_norm(glms_vec3_sub(b, a)) * v->scale < 1.0) return; // too short to see
    fprintf(v->f,
            "<line class=\"arrow %s\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
            "marker-end=\"url(#head-%s)\"/>\n",
            cls, sx(v, a.x), sy(v, a.y), sx(v, b.x), sy(v, b.y), cls);
}

void svg_label(svg_view *v, vec3s p, double dx, double dy, const char *cls, const char *text) {
    fprintf(v->f, "<text class=\"%s\" x=\"%.2f\" y=\"%.2f\">%s</text>\n", cls, sx(v, p.x) + dx,
            sy(v, p.y) + dy, text);
}

void svg_ground(svg_view *v, float y) {
    double gy = sy(v, y);
    fprintf(v->f, "<rect class=\"ground\" x=\"0\" y=\"%.2f\" width=\"%d\" height=\"%.2f\"/>\n", gy, v->w,
            fmax(v->h - gy, 0.0));
}

void svg_quadratic_plot(FILE *f, double P, double Q, double R, double root, const char *label) {
    const int W = 340, H = 200, L = 46, B = 24;
    double lo = 0.0, hi = 0.0;
    for (int k = 0; k <= 50; k++) {
        double t = k / 50.0, y = P * t * t + 2.0 * Q * t + R;
        lo = fmin(lo, y), hi = fmax(hi, y);
    }
    if (hi - lo < 1e-12) hi = lo + 1.0;
    double ys = (H - B - 10.0) / (hi - lo);
#define PX(t) (L + (t) * (W - L - 10.0))
#define PY(y) (H - B - ((y)-lo) * ys)
    fprintf(f,
            "<svg class=\"plot\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
            "aria-label=\"%s\">\n",
            W, H, W, H, label);
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\"/>\n", L, PY(0.0), W - 10,
            PY(0.0));
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"10\" x2=\"%d\" y2=\"%d\"/>\n", L, L, H - B);
    fprintf(f, "<polyline class=\"curve\" points=\"");
    for (int k = 0; k <= 50; k++) {
        double t = k / 50.0;
        fprintf(f, "%.2f,%.2f ", PX(t), PY(P * t * t + 2.0 * Q * t + R));
    }
    fprintf(f, "\"/>\n");
    if (root >= 0.0 && root <= 1.0)
        fprintf(f,
                "<circle class=\"root\" cx=\"%.2f\" cy=\"%.2f\" r=\"4\"/><text class=\"small\" x=\"%.2f\" "
                "y=\"%.2f\">t = %.4f</text>\n",
                PX(root), PY(0.0), PX(root) + 6.0, PY(0.0) - 6.0, root);
    fprintf(f,
            "<text class=\"small\" x=\"%d\" y=\"%d\">t = 0</text><text class=\"small\" x=\"%d\" y=\"%d\">t = "
            "1</text>\n",
            L - 10, H - 6, W - 40, H - 6);
    fprintf(f, "<text class=\"small\" x=\"2\" y=\"%.2f\">0</text>\n", PY(0.0) + 4.0);
    fprintf(f, "<text class=\"small\" x=\"%d\" y=\"20\">|C(t)|&#178; &#8722; (ra+rb)&#178;</text>\n", L + 6);
    fprintf(f, "</svg>\n");
#undef PX
#undef PY
}
