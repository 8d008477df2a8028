// SPDX-License-Identifier: MIT
// kyu-lesson's pictures: inline SVG of the x-y plane (a side view; the lessons happen at z = 0).
#ifndef KYU_LESSON_SVG_H
#define KYU_LESSON_SVG_H

#include <stdio.h>

#include <kyu/kyu.h>

typedef struct svg_view {
    FILE *f;
    double x0, y0, scale; // world point (x0, y0) maps to the lower-left corner inside the margin
    int w, h, pad;
} svg_view;

// A view of width w that fits the world box [lo, hi] (x and y), the height following the aspect.
svg_view svg_fit(FILE *f, vec3s lo, vec3s hi, int w, int max_h);

void svg_begin(svg_view *v, const char *label);
void svg_end(svg_view *v);
// Styles are CSS class names defined by the page (lesson_page.c).
void svg_circle(svg_view *v, vec3s c, float r, const char *cls, const char *fill);
void svg_capsule(svg_view *v, vec3s a, vec3s b, float r, const char *cls);
void svg_rect(svg_view *v, vec3s lo, vec3s hi, const char *cls);
void svg_box(svg_view *v, const kyu_box *b, const char *cls);
void svg_line(svg_view *v, vec3s a, vec3s b, const char *cls);
// An arrow from a along d * scale metres (d a velocity or a normal).
void svg_arrow(svg_view *v, vec3s a, vec3s d, float scale, const char *cls);
void svg_label(svg_view *v, vec3s p, double dx, double dy, const char *cls, const char *text);
void svg_ground(svg_view *v, float y);

// A plot of f(t) = P t^2 + 2 Q t + R over t in [0, 1] against the level 0, with the root marked.
void svg_quadratic_plot(FILE *f, double P, double Q, double R, double root, const char *label);

#endif
