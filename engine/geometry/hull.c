// SPDX-License-Identifier: MIT
// Convex hulls from point clouds (incremental, in double) and SAT between built hulls with the
// Gauss-map pruning of edge pairs (Gregorius, GDC 2013; docs/design.md, "Contact information,
// separating axes, GJK and EPA").
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core.h"
#include "dmath.h"
#include "kyu/geometry.h"

static dv3 hx_add(dv3 a, dv3 b) { return (dv3){a.x + b.x, a.y + b.y, a.z + b.z}; }

// ---- building -----------------------------------------------------------------------------------

// A triangle of the hull under construction; adj[k] is the triangle across edge v[k] -> v[k+1].
typedef struct tri {
    int v[3], adj[3];
    dv3 n;
    double off;
    bool alive;
} tri;

typedef struct builder {
    const dv3 *p;
    tri *t;
    int nt, cap;
    double eps;
} builder;

static double tri_dist(const builder *b, int t, dv3 q) { return ddot(b->t[t].n, q) - b->t[t].off; }

static int new_tri(builder *b, int v0, int v1, int v2, int fallback) {
    if (b->nt == b->cap) {
        int cap = b->cap * 2;
        tri *t = kyu_realloc(b->t, (size_t)cap * sizeof *t);
        if (!t) return -1;
        b->t = t, b->cap = cap;
    }
    tri *t = &b->t[b->nt];
    t->v[0] = v0, t->v[1] = v1, t->v[2] = v2;
    t->adj[0] = t->adj[1] = t->adj[2] = -1;
    t->alive = true;
    dv3 n = dcross(dsub(b->p[v1], b->p[v0]), dsub(b->p[v2], b->p[v0]));
    double len = dlen(n);
    // A sliver (the new point in line with a horizon edge) lies in its neighbour's plane: borrow it,
    // the faces are merged later anyway.
    // Height over the horizon edge v0-v1 below eps: a sliver, whose own normal is noise.
    if (len > 0.0 && !(fallback >= 0 && len <= b->eps * dlen(dsub(b->p[v1], b->p[v0])))) {
        t->n = dscale(n, 1.0 / len);
    } else if (fallback >= 0) {
        t->n = b->t[fallback].n;
    } else {
        t->n = (dv3){0.0, 0.0, 0.0};
    }
    t->off = ddot(t->n, b->p[v0]);
    return b->nt++;
}

typedef struct by_area {
    double area;
    int t;
} by_area;

// Largest first; ties by index, so the result does not depend on qsort's order.
static int area_cmp(const void *x, const void *y) {
    const by_area *a = x, *b = y;
    if (a->area != b->area) return a->area > b->area ? -1 : 1;
    return (a->t > b->t) - (a->t < b->t);
}

static bool is_sliver(const builder *b, int t) {
    const int *v = b->t[t].v;
    double longest = 0.0;
    for (int k = 0; k < 3; k++) longest = fmax(longest, dlen(dsub(b->p[v[(k + 1) % 3]], b->p[v[k]])));
    double area2 = dlen(dcross(dsub(b->p[v[1]], b->p[v[0]]), dsub(b->p[v[2]], b->p[v[0]])));
    return area2 <= b->eps * longest;
}

// Grows a face from `seed` over neighbours whose corners lie within eps of the seed's plane.
static void grow_face(const builder *b, int *parent, int *stack, int seed) {
    parent[seed] = seed;
    int ns = 0;
    stack[ns++] = seed;
    while (ns > 0) {
        int t = stack[--ns];
        for (int k = 0; k < 3; k++) {
            int u = b->t[t].adj[k];
            if (parent[u] >= 0 || (ddot(b->t[seed].n, b->t[u].n) <= 0.0 && !is_sliver(b, u))) continue;
            bool flat = true;
            for (int j = 0; j < 3; j++)
                if (fabs(tri_dist(b, seed, b->p[b->t[u].v[j]])) > b->eps) flat = false;
            if (flat) parent[u] = seed, stack[ns++] = u;
        }
    }
}

// The triangle across t's longest side (a sliver lies along it).
static int longest_side_neighbour(const builder *b, int t) {
    int best = b->t[t].adj[0];
    double longest = -1.0;
    for (int k = 0; k < 3; k++) {
        double l = dlen(dsub(b->p[b->t[t].v[(k + 1) % 3]], b->p[b->t[t].v[k]]));
        if (l > longest) longest = l, best = b->t[t].adj[k];
    }
    return best;
}

static int find(int *parent, int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
}

typedef struct dedge {
    int lo, hi, face, from;
} dedge;

static int dedge_cmp(const void *x, const void *y) {
    const dedge *a = x, *b = y;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    return a->from < b->from ? -1 : a->from > b->from;
}

// Adds point i to the hull: removes the triangles it sees (a connected cap grown from the one it
// sees most) and fans new triangles from the horizon to it. Returns 0, or a negative code.
static int add_point(builder *b, int i, int *stack, int *horizon, int hcap) {
    dv3 q = b->p[i];
    int start = -1;
    double far = b->eps;
    for (int t = 0; t < b->nt; t++)
        if (b->t[t].alive && tri_dist(b, t, q) > far) far = tri_dist(b, t, q), start = t;
    if (start < 0) return 0; // inside, or within eps of the surface: absorbed
    // Flood the visible cap; horizon = edges from a visible triangle to one that is not.
    int ns = 0, nh = 0;
    b->t[start].alive = false;
    stack[ns++] = start;
    while (ns > 0) {
        int t = stack[--ns];
        for (int k = 0; k < 3; k++) {
            int u = b->t[t].adj[k];
            if (!b->t[u].alive) continue;
            // Grow through everything the point is above, however slightly: stopping at eps could
            // leave a visible triangle cut off behind a near-coplanar band (a dent in the hull).
            if (tri_dist(b, u, q) > 0.0) {
                b->t[u].alive = false;
                stack[ns++] = u;
            } else {
                if (nh == hcap) return KYU_HULL_FAILED;
                horizon[nh * 3 + 0] = b->t[t].v[k];
                horizon[nh * 3 + 1] = b->t[t].v[(k + 1) % 3];
                horizon[nh * 3 + 2] = u;
                nh++;
            }
        }
    }
    // A triangle is pushed once: it is marked dead when pushed. Now fan the horizon.
    int first = b->nt;
    for (int h = 0; h < nh; h++) {
        int a = horizon[h * 3], c = horizon[h * 3 + 1], u = horizon[h * 3 + 2];
        int t = new_tri(b, a, c, i, u);
        if (t < 0) return KYU_HULL_NO_MEMORY;
        b->t[t].adj[0] = u;
        for (int k = 0; k < 3; k++)
            if (b->t[u].v[k] == c && b->t[u].v[(k + 1) % 3] == a) b->t[u].adj[k] = t;
    }
    // Link the fan: the triangle on horizon edge (a, c) meets the one starting at c across c -> i.
    for (int h = 0; h < nh; h++) {
        int t = first + h, c = b->t[t].v[1], a = b->t[t].v[0];
        int next = -1, prev = -1;
        for (int g = 0; g < nh; g++) {
            if (b->t[first + g].v[0] == c) next = next < 0 ? first + g : -2;
            if (b->t[first + g].v[1] == a) prev = prev < 0 ? first + g : -2;
        }
        if (next < 0 || prev < 0) return KYU_HULL_FAILED; // the horizon is not one loop
        b->t[t].adj[1] = next;
        b->t[t].adj[2] = prev;
    }
    return 0;
}

static int build(const dv3 *p, int count, double eps, kyu_hull_data *out);

int kyu_hull_build(const vec3s *points, int count, kyu_hull_data *out) {
    if (!out) return KYU_HULL_TOO_FEW;
    memset(out, 0, sizeof *out);
    if (!points || count < 4) return KYU_HULL_TOO_FEW;
    dv3 *p = kyu_malloc((size_t)count * sizeof *p);
    if (!p) return KYU_HULL_NO_MEMORY;
    dv3 lo = dv(points[0]), hi = lo;
    double maxabs = 0.0;
    for (int i = 0; i < count; i++) {
        p[i] = dv(points[i]);
        lo = (dv3){fmin(lo.x, p[i].x), fmin(lo.y, p[i].y), fmin(lo.z, p[i].z)};
        hi = (dv3){fmax(hi.x, p[i].x), fmax(hi.y, p[i].y), fmax(hi.z, p[i].z)};
        maxabs = fmax(maxabs, fmax(fabs(p[i].x), fmax(fabs(p[i].y), fabs(p[i].z))));
    }
    // The tolerance: 1e-6 of the size, plus the float rounding of coordinates far from the origin.
    double eps = 1e-6 * dlen(dsub(hi, lo)) + 4e-7 * maxabs;
    int rc = build(p, count, eps, out);
    kyu_free(p);
    if (rc != KYU_HULL_OK) kyu_hull_free(out);
    return rc;
}

static int initial_tetrahedron(builder *b, int count, int idx[4]) {
    const dv3 *p = b->p;
    int i0 = 0;
    for (int i = 1; i < count; i++)
        if (p[i].x < p[i0].x) i0 = i;
    int i1 = -1;
    double best = b->eps;
    for (int i = 0; i < count; i++) {
        double d = dlen(dsub(p[i], p[i0]));
        if (d > best) best = d, i1 = i;
    }
    if (i1 < 0) return KYU_HULL_TOO_FEW;
    dv3 u = dsub(p[i1], p[i0]);
    u = dscale(u, 1.0 / dlen(u));
    int i2 = -1;
    best = b->eps;
    for (int i = 0; i < count; i++) {
        dv3 d = dsub(p[i], p[i0]);
        double off = dlen(dmad(d, u, -ddot(d, u)));
        if (off > best) best = off, i2 = i;
    }
    if (i2 < 0) return KYU_HULL_FLAT;
    dv3 n = dcross(dsub(p[i1], p[i0]), dsub(p[i2], p[i0]));
    n = dscale(n, 1.0 / dlen(n));
    int i3 = -1;
    best = b->eps;
    for (int i = 0; i < count; i++) {
        double d = fabs(ddot(n, dsub(p[i], p[i0])));
        if (d > best) best = d, i3 = i;
    }
    if (i3 < 0) return KYU_HULL_FLAT;
    idx[0] = i0, idx[1] = i1, idx[2] = i2, idx[3] = i3;
    if (ddot(n, dsub(p[i3], p[i0])) > 0.0) idx[1] = i2, idx[2] = i1; // make (0,1,2) face outward
    return 0;
}

// Merged faces: union of coplanar neighbouring triangles, then their boundary loops.
static int finish(builder *b, kyu_hull_data *out);

static int build(const dv3 *p, int count, double eps, kyu_hull_data *out) {
    builder b = {p, NULL, 0, 64, eps};
    b.t = kyu_malloc((size_t)b.cap * sizeof *b.t);
    int *stack = NULL, *horizon = NULL;
    int rc = KYU_HULL_NO_MEMORY;
    if (!b.t) goto done;
    int idx[4];
    rc = initial_tetrahedron(&b, count, idx);
    if (rc) goto done;
    // Faces (0 1 2), (0 3 1), (1 3 2), (0 2 3), all outward.
    const int f[4][3] = {{idx[0], idx[1], idx[2]},
                         {idx[0], idx[3], idx[1]},
                         {idx[1], idx[3], idx[2]},
                         {idx[0], idx[2], idx[3]}};
    for (int k = 0; k < 4; k++) new_tri(&b, f[k][0], f[k][1], f[k][2], -1);
    for (int t = 0; t < 4; t++)
        for (int k = 0; k < 3; k++)
            for (int u = 0; u < 4; u++)
                for (int j = 0; j < 3; j++)
                    if (b.t[u].v[j] == b.t[t].v[(k + 1) % 3] && b.t[u].v[(j + 1) % 3] == b.t[t].v[k])
                        b.t[t].adj[k] = u;
    for (int i = 0; i < count; i++) {
        if (i == idx[0] || i == idx[1] || i == idx[2] || i == idx[3]) continue;
        // Room: a stack of up to nt triangles, a horizon of up to 3 nt edges.
        kyu_free(stack), kyu_free(horizon);
        stack = kyu_malloc((size_t)(2 * b.nt + 2) * sizeof *stack);
        horizon = kyu_malloc((size_t)(9 * b.nt + 3) * sizeof *horizon);
        rc = KYU_HULL_NO_MEMORY;
        if (!stack || !horizon) goto done;
        rc = add_point(&b, i, stack, horizon, 3 * b.nt + 1);
        if (rc) goto done;
    }
    rc = finish(&b, out);
done:
    kyu_free(stack), kyu_free(horizon), kyu_free(b.t);
    return rc;
}

static int finish(builder *b, kyu_hull_data *out) {
    int nt = b->nt, rc = KYU_HULL_NO_MEMORY;
    int *parent = kyu_malloc((size_t)nt * sizeof *parent);
    int *next = NULL, *degree = NULL, *remap = NULL, *loops = NULL, *loop_start = NULL, *group_face = NULL;
    dedge *de = NULL;
    if (!parent) goto done;
    for (int t = 0; t < nt; t++) parent[t] = t;
    // Merge coplanar triangles by growing regions from the largest ones: a neighbour joins when
    // its corners lie within eps of the seed's plane. Measuring against the seed (not against the
    // neighbour it touches) keeps a gently curved cloud from chaining into one bent "face".
    by_area *order = kyu_malloc((size_t)nt * sizeof *order);
    int *stack = kyu_malloc((size_t)nt * sizeof *stack);
    if (!order || !stack) {
        kyu_free(order), kyu_free(stack);
        goto done;
    }
    int no = 0;
    for (int t = 0; t < nt; t++) {
        parent[t] = -1;
        if (!b->t[t].alive) continue;
        const int *tv = b->t[t].v;
        order[no].area = dlen(dcross(dsub(b->p[tv[1]], b->p[tv[0]]), dsub(b->p[tv[2]], b->p[tv[0]])));
        order[no++].t = t;
    }
    qsort(order, (size_t)no, sizeof *order, area_cmp);
    // Slivers (height below eps: in effect a segment on the surface) have no reliable normal of
    // their own; they do not seed a face and join a neighbour's at the end.
    for (int o = 0; o < no; o++)
        if (parent[order[o].t] < 0 && !is_sliver(b, order[o].t)) grow_face(b, parent, stack, order[o].t);
    for (int sweep = 0; sweep < 4; sweep++)
        for (int t = 0; t < nt; t++)
            if (b->t[t].alive && parent[t] < 0) {
                int across = longest_side_neighbour(b, t);
                if (parent[across] >= 0) parent[t] = parent[across];
            }
    for (int o = 0; o < no; o++) // slivers among slivers, if any: faces of their own
        if (parent[order[o].t] < 0) grow_face(b, parent, stack, order[o].t);
    for (int t = 0; t < nt; t++)
        if (parent[t] < 0) parent[t] = t;
    kyu_free(order), kyu_free(stack);
    // Boundary of each group: directed edges whose other side is another group.
    int np = 0;
    for (int t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++)
            if (b->t[t].alive) np = b->t[t].v[k] > np ? b->t[t].v[k] : np;
    np++;
    next = kyu_malloc((size_t)np * sizeof *next);
    degree = kyu_calloc((size_t)np, sizeof *degree);
    remap = kyu_malloc((size_t)np * sizeof *remap);
    loops = kyu_malloc((size_t)(3 * nt + 1) * sizeof *loops);
    loop_start = kyu_malloc((size_t)(nt + 1) * sizeof *loop_start);
    group_face = kyu_malloc((size_t)nt * sizeof *group_face);
    if (!next || !degree || !remap || !loops || !loop_start || !group_face) goto done;
    rc = KYU_HULL_FAILED;
    int nf = 0, nl = 0;
    for (int g = 0; g < nt; g++) {
        group_face[g] = -1;
        if (!b->t[g].alive || find(parent, g) != g) continue;
        for (int v = 0; v < np; v++) next[v] = -1;
        int nb = 0, v0 = -1;
        for (int t = 0; t < nt; t++) {
            if (!b->t[t].alive || find(parent, t) != g) continue;
            for (int k = 0; k < 3; k++) {
                if (find(parent, b->t[t].adj[k]) == g) continue;
                int a = b->t[t].v[k];
                if (next[a] >= 0) goto done; // a vertex twice on one boundary: not a simple loop
                next[a] = b->t[t].v[(k + 1) % 3];
                v0 = a, nb++;
            }
        }
        loop_start[nf] = nl;
        int v = v0, len = 0;
        do {
            loops[nl++] = v;
            v = next[v];
            len++;
        } while (v != v0 && v >= 0 && len <= nb);
        if (v != v0 || len != nb) goto done;
        for (int i = loop_start[nf]; i < nl; i++) degree[loops[i]]++;
        group_face[g] = nf++;
    }
    loop_start[nf] = nl;
    // Vertices where fewer than three faces meet and that are in line with their neighbours lie
    // inside an edge: drop them. (A bent one, left by merging near-coplanar triangles, stays.)
    for (int v = 0; v < np; v++) remap[v] = degree[v] >= 3 ? 1 : 0;
    for (int fi = 0; fi < nf; fi++) {
        int first = loop_start[fi], len = loop_start[fi + 1] - first;
        for (int i = 0; i < len; i++) {
            int v = loops[first + i];
            dv3 a = b->p[loops[first + (i + len - 1) % len]], c = b->p[loops[first + (i + 1) % len]];
            dv3 u = dsub(c, a), w = dsub(b->p[v], a);
            double uu = ddot(u, u);
            dv3 off = uu > 0.0 ? dmad(w, u, -ddot(w, u) / uu) : w;
            if (dlen(off) > b->eps) remap[v] = 1;
        }
    }
    int nv = 0;
    for (int v = 0; v < np; v++) remap[v] = remap[v] ? nv++ : -1;
    int nfv = 0;
    for (int i = 0; i < nl; i++) nfv += remap[loops[i]] >= 0;
    out->vertices = kyu_malloc((size_t)nv * sizeof *out->vertices);
    out->faces = kyu_malloc((size_t)nf * sizeof *out->faces);
    out->face_vertices = kyu_malloc((size_t)nfv * sizeof *out->face_vertices);
    de = kyu_malloc((size_t)nfv * sizeof *de);
    out->edges = kyu_malloc((size_t)(nfv / 2 + 1) * sizeof *out->edges);
    rc = KYU_HULL_NO_MEMORY;
    if (!out->vertices || !out->faces || !out->face_vertices || !de || !out->edges) goto done;
    rc = KYU_HULL_FAILED;
    dv3 centroid = {0.0, 0.0, 0.0};
    for (int v = 0; v < np; v++)
        if (remap[v] >= 0) out->vertices[remap[v]] = fv(b->p[v]), centroid = hx_add(centroid, b->p[v]);
    out->vertex_count = nv;
    out->centroid = fv(dscale(centroid, 1.0 / nv));
    int k = 0;
    for (int g = 0; g < nt; g++) {
        int fi = group_face[g];
        if (fi < 0) continue;
        // Area-weighted normal of the group's triangles (Newell's method on the loop would ignore
        // the absorbed interior points; the triangles are the same surface).
        dv3 n = {0.0, 0.0, 0.0};
        for (int t = 0; t < nt; t++) {
            if (!b->t[t].alive || find(parent, t) != g) continue;
            const int *tv = b->t[t].v;
            n = hx_add(n, dcross(dsub(b->p[tv[1]], b->p[tv[0]]), dsub(b->p[tv[2]], b->p[tv[0]])));
        }
        if (!(dlen(n) > 0.0))
            n = b->t[g].n;
        else
            n = dscale(n, 1.0 / dlen(n));
        kyu_hull_face *face = &out->faces[fi];
        face->normal = fv(n);
        face->first = k;
        for (int i = loop_start[fi]; i < loop_start[fi + 1]; i++)
            if (remap[loops[i]] >= 0) out->face_vertices[k++] = remap[loops[i]];
        face->count = k - face->first;
        if (face->count < 3) goto done;
    }
    out->face_count = nf;
    // Offsets from the float normal over every vertex, so that the whole hull is inside each plane.
    for (int fi = 0; fi < nf; fi++) {
        kyu_hull_face *face = &out->faces[fi];
        double off = -DBL_MAX;
        for (int v = 0; v < nv; v++) off = fmax(off, ddot(dv(face->normal), dv(out->vertices[v])));
        float o = (float)off;
        if ((double)o < off) o = nextafterf(o, FLT_MAX);
        face->offset = o;
    }
    // Edges: each directed face edge meets its reverse in exactly one other face.
    int n = 0;
    for (int fi = 0; fi < nf; fi++) {
        const kyu_hull_face *face = &out->faces[fi];
        for (int i = 0; i < face->count; i++) {
            int a = out->face_vertices[face->first + i];
            int c = out->face_vertices[face->first + (i + 1) % face->count];
            de[n++] = (dedge){a < c ? a : c, a < c ? c : a, fi, a};
        }
    }
    qsort(de, (size_t)n, sizeof *de, dedge_cmp);
    int ne = 0;
    for (int i = 0; i < n; i += 2) {
        if (i + 1 >= n || de[i].lo != de[i + 1].lo || de[i].hi != de[i + 1].hi ||
            de[i].from == de[i + 1].from)
            goto done;
        if (i + 2 < n && de[i + 2].lo == de[i].lo && de[i + 2].hi == de[i].hi) goto done;
        // face0 is the face that runs a -> b.
        int a = de[i].from, c = a == de[i].lo ? de[i].hi : de[i].lo;
        out->edges[ne++] = (kyu_hull_edge){a, c, de[i].face, de[i + 1].face};
    }
    out->edge_count = ne;
    if (nv - ne + nf != 2) goto done;
    rc = KYU_HULL_OK;
done:
    kyu_free(parent), kyu_free(next), kyu_free(degree), kyu_free(remap), kyu_free(loops),
        kyu_free(loop_start), kyu_free(group_face), kyu_free(de);
    return rc;
}

void kyu_hull_free(kyu_hull_data *hull) {
    if (!hull) return;
    kyu_free(hull->vertices), kyu_free(hull->faces), kyu_free(hull->face_vertices), kyu_free(hull->edges);
    memset(hull, 0, sizeof *hull);
}

kyu_hull kyu_hull_view(const kyu_hull_data *hull) { return (kyu_hull){hull->vertices, hull->vertex_count}; }

// ---- SAT ----------------------------------------------------------------------------------------

static double hull_size(const kyu_hull_data *h) {
    double r = 0.0;
    for (int i = 0; i < h->vertex_count; i++) r = fmax(r, dlen(dsub(dv(h->vertices[i]), dv(h->centroid))));
    return r;
}

// Largest separation of B from face plane f of A, and the mean of B's vertices at that depth.
static double face_sep(const kyu_hull_data *a, int f, const kyu_hull_data *b, double tol, dv3 *deepest) {
    dv3 n = dv(a->faces[f].normal);
    double off = (double)a->faces[f].offset, lo = DBL_MAX;
    for (int i = 0; i < b->vertex_count; i++) lo = fmin(lo, ddot(n, dv(b->vertices[i])));
    if (deepest) {
        dv3 sum = {0.0, 0.0, 0.0};
        int cnt = 0;
        for (int i = 0; i < b->vertex_count; i++)
            if (ddot(n, dv(b->vertices[i])) <= lo + tol) sum = hx_add(sum, dv(b->vertices[i])), cnt++;
        *deepest = dscale(sum, 1.0 / cnt);
    }
    return lo - off;
}

// Gauss-map test (Gregorius): the arcs a-b (A's edge) and c-d (B's edge, normals negated) cross.
static bool minkowski_face(dv3 a, dv3 b, dv3 c, dv3 d) {
    dv3 bxa = dcross(b, a), dxc = dcross(d, c);
    double cba = ddot(c, bxa), dba = ddot(d, bxa), adc = ddot(a, dxc), bdc = ddot(b, dxc);
    return cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0;
}

kyu_sat_result kyu_sat_hull_hull(const kyu_hull_data *a, const kyu_hull_data *b) {
    kyu_sat_result r = {0};
    double size = hull_size(a) + hull_size(b), tol = 1e-6 * size;
    double best = -DBL_MAX;
    dv3 best_n = {0.0, 1.0, 0.0}, best_p = {0.0, 0.0, 0.0};
    r.index_a = r.index_b = -1;
    for (int f = 0; f < a->face_count; f++) {
        dv3 deep;
        double s = face_sep(a, f, b, tol, &deep);
        if (s > best) {
            best = s, r.feature = KYU_SAT_FACE_A, r.index_a = f, r.index_b = -1;
            best_n = dscale(dv(a->faces[f].normal), -1.0), best_p = deep;
        }
    }
    for (int f = 0; f < b->face_count; f++) {
        dv3 deep;
        double s = face_sep(b, f, a, tol, &deep);
        if (s > best) {
            dv3 n = dv(b->faces[f].normal);
            best = s, r.feature = KYU_SAT_FACE_B, r.index_a = -1, r.index_b = f;
            best_n = n, best_p = dmad(deep, n, -(ddot(n, deep) - (double)b->faces[f].offset));
        }
    }
    double face_best = best;
    dv3 ca = dv(a->centroid);
    int tested = 0, ea_best = -1, eb_best = -1;
    dv3 edge_n = {0.0, 0.0, 0.0};
    double edge_best = -DBL_MAX;
    for (int i = 0; i < a->edge_count; i++) {
        const kyu_hull_edge *e1 = &a->edges[i];
        dv3 na = dv(a->faces[e1->face0].normal), nb = dv(a->faces[e1->face1].normal);
        dv3 p1 = dv(a->vertices[e1->a]), d1 = dsub(dv(a->vertices[e1->b]), p1);
        for (int j = 0; j < b->edge_count; j++) {
            const kyu_hull_edge *e2 = &b->edges[j];
            dv3 nc = dscale(dv(b->faces[e2->face0].normal), -1.0),
                nd = dscale(dv(b->faces[e2->face1].normal), -1.0);
            if (!minkowski_face(na, nb, nc, nd)) continue;
            tested++;
            dv3 p2 = dv(b->vertices[e2->a]), d2 = dsub(dv(b->vertices[e2->b]), p2);
            dv3 axis = dcross(d1, d2);
            double len = dlen(axis);
            if (!(len > 1e-6 * dlen(d1) * dlen(d2))) continue; // parallel: a face axis covers it
            axis = dscale(axis, 1.0 / len);
            if (ddot(axis, dsub(p1, ca)) < 0.0) axis = dscale(axis, -1.0); // out of A
            double s = ddot(axis, dsub(p2, p1));
            if (s > edge_best) edge_best = s, ea_best = i, eb_best = j, edge_n = axis;
        }
    }
    r.edge_pairs_tested = tested;
    // An edge axis must beat the faces by a margin, so a resting face keeps its normal.
    if (ea_best >= 0 && edge_best > face_best + 1e-6 * size) {
        const kyu_hull_edge *e1 = &a->edges[ea_best], *e2 = &b->edges[eb_best];
        dv3 c1;
        kyu_dsegments_closest(dv(a->vertices[e1->a]), dv(a->vertices[e1->b]), dv(b->vertices[e2->a]),
                              dv(b->vertices[e2->b]), &c1, &best_p);
        best = edge_best, best_n = dscale(edge_n, -1.0);
        r.feature = KYU_SAT_EDGES, r.index_a = ea_best, r.index_b = eb_best;
    }
    r.separation = (float)best;
    r.normal = fv(best_n);
    r.point = fv(best_p);
    return r;
}

kyu_contact kyu_contact_hull_hull(const kyu_hull_data *a, const kyu_hull_data *b) {
    kyu_sat_result s = kyu_sat_hull_hull(a, b);
    if (s.separation > 0.0f) {
        // Apart: SAT only bounds the gap from below; GJK gives the exact closest points.
        kyu_hull ha = kyu_hull_view(a), hb = kyu_hull_view(b);
        kyu_convex ca = kyu_convex_hull(&ha, 0.0f), cb = kyu_convex_hull(&hb, 0.0f);
        return kyu_convex_contact(&ca, &cb);
    }
    return (kyu_contact){s.point, s.normal, s.separation};
}
