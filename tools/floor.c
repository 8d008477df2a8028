// SPDX-License-Identifier: MIT
// floor: the least work any engine can do on the PILE scene (docs/benchmarks.md), as a yardstick
// for kyu's time: integrate gravity, bin the spheres into a uniform grid of 1 m cells (a sphere's
// diameter), and push each overlapping pair apart once a step (half the overlap, shared; all
// pushes of a step add up before they move anything; a body pushed up stops falling), on one
// thread. No contact cache,
// no friction, no time of impact, no sleep: not an engine, only a floor. "kyu takes k times the
// floor", measured in the same run on the same machine, survives the machine's noise.
//
//     floor N [STEPS]    prints one line: floor n=N steps=S ms_per_step=...
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint32_t lcg = 12345;
static double frand(void) {
    lcg = lcg * 1664525u + 1013904223u;
    return (lcg >> 8) * (1.0 / 16777216.0);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100000, steps = argc > 2 ? atoi(argv[2]) : 100;
    if (n < 1 || steps < 1) {
        fprintf(stderr, "usage: floor N [STEPS]\n");
        return 2;
    }
    // The PILE layout: k x k columns of `layers` spheres (radius 0.5) in a box of inner width L.
    int k = (int)ceil(sqrt(n / 10.0)), layers = (n + k * k - 1) / (k * k);
    float L = 1.1f * (float)k + 1.0f, H = 1.1f * (float)layers + 2.0f, dt = 1.0f / 60.0f, r = 0.5f;
    float *x = malloc(sizeof(float) * 3 * (size_t)n), *v = calloc(3 * (size_t)n, sizeof(float));
    float *push_sum = malloc(sizeof(float) * 3 * (size_t)n);
    int gx = (int)ceilf(L) + 1, gy = (int)ceilf(H + 40.0f) + 1, cells = gx * gy * gx;
    int *start = malloc(sizeof(int) * ((size_t)cells + 1)), *order = malloc(sizeof(int) * (size_t)n);
    int *cell = malloc(sizeof(int) * (size_t)n);
    if (!x || !v || !push_sum || !start || !order || !cell) return 1;
    for (int i = 0; i < n; i++) {
        int layer = i / (k * k), j = i % (k * k), a = j % k, b = j / k;
        x[3 * i] = -L / 2 + 0.55f + 1.1f * (float)a + 0.04f * (float)(frand() - 0.5);
        x[3 * i + 1] = 0.55f + 1.1f * (float)layer;
        x[3 * i + 2] = -L / 2 + 0.55f + 1.1f * (float)b + 0.04f * (float)(frand() - 0.5);
    }
    double t0 = now_ms();
    long pushes = 0;
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < n; i++) { // integrate
            v[3 * i + 1] -= 9.81f * dt;
            for (int c = 0; c < 3; c++) x[3 * i + c] += v[3 * i + c] * dt;
        }
        memset(push_sum, 0, sizeof(float) * 3 * (size_t)n);
        memset(start, 0, sizeof(int) * ((size_t)cells + 1)); // counting sort into cells
        for (int i = 0; i < n; i++) {
            int cx = (int)(x[3 * i] + L / 2), cy = (int)x[3 * i + 1], cz = (int)(x[3 * i + 2] + L / 2);
            cx = cx < 0     ? 0
                 : cx >= gx ? gx - 1
                            : cx,
            cy = cy < 0     ? 0
                 : cy >= gy ? gy - 1
                            : cy,
            cz = cz < 0     ? 0
                 : cz >= gx ? gx - 1
                            : cz;
            cell[i] = (cy * gx + cz) * gx + cx;
            start[cell[i] + 1]++;
        }
        for (int c = 0; c < cells; c++) start[c + 1] += start[c];
        for (int i = 0; i < n; i++) order[start[cell[i]]++] = i;
        for (int c = cells; c > 0; c--) start[c] = start[c - 1];
        start[0] = 0;
        for (int i = 0; i < n;
             i++) { // each pair once: the partner in this cell after i, or in a later neighbour
            int c = cell[i], cx = c % gx, cz = c / gx % gx, cy = c / gx / gx;
            for (int dy = -1; dy <= 1; dy++)
                for (int dz = -1; dz <= 1; dz++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int nx = cx + dx, ny = cy + dy, nz = cz + dz;
                        if (nx < 0 || ny < 0 || nz < 0 || nx >= gx || ny >= gy || nz >= gx) continue;
                        int d = (ny * gx + nz) * gx + nx;
                        for (int q = start[d]; q < start[d + 1]; q++) {
                            int j = order[q];
                            if (j <= i) continue;
                            float e[3], d2 = 0.0f;
                            for (int a = 0; a < 3; a++) e[a] = x[3 * j + a] - x[3 * i + a], d2 += e[a] * e[a];
                            if (d2 >= 4.0f * r * r || d2 <= 0.0f) continue;
                            float dist = sqrtf(d2), push = 0.25f * (2.0f * r - dist) / dist;
                            for (int a = 0; a < 3; a++)
                                push_sum[3 * i + a] -= e[a] * push, push_sum[3 * j + a] += e[a] * push;
                            pushes++;
                        }
                    }
        }
        for (int i = 0; i < n; i++) { // the pushes, then the box
            for (int c = 0; c < 3; c++) x[3 * i + c] += push_sum[3 * i + c];
            if (x[3 * i + 1] < r) x[3 * i + 1] = r, v[3 * i + 1] = fmaxf(v[3 * i + 1], 0.0f);
            for (int c = 0; c < 3; c += 2)
                if (fabsf(x[3 * i + c]) > L / 2 - r)
                    x[3 * i + c] = copysignf(L / 2 - r, x[3 * i + c]), v[3 * i + c] = 0.0f;
            if (push_sum[3 * i + 1] > 0.0f && v[3 * i + 1] < 0.0f) v[3 * i + 1] = 0.0f;
        }
    }
    double ms = (now_ms() - t0) / steps;
    printf("floor n=%d steps=%d ms_per_step=%.4f pushes_per_step=%.0f\n", n, steps, ms,
           (double)pushes / steps);
    free(x), free(v), free(push_sum), free(start), free(order), free(cell);
    return 0;
}
