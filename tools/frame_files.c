// SPDX-License-Identifier: MIT
// VTK XML PolyData, ParaView collections and extended XYZ frames (frame_files.h).
#include "frame_files.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// Closes a file written with stdio: 0, or -1 with errno set when a write or the close failed.
static int close_checked(FILE *f) {
    int bad = ferror(f), closed = fclose(f);
    if (bad) errno = EIO;
    return bad || closed != 0 ? -1 : 0;
}

// ---- VTK XML PolyData ------------------------------------------------------------------------------

static const char *byte_order(void) {
    const uint16_t one = 1;
    return *(const uint8_t *)&one ? "LittleEndian" : "BigEndian";
}

// One block of the appended data: its size in bytes (header_type UInt64), then the bytes.
static void put_block(FILE *f, const void *data, uint64_t bytes) {
    fwrite(&bytes, sizeof bytes, 1, f);
    if (bytes > 0) fwrite(data, 1, (size_t)bytes, f);
}

// A data array that lives in the appended section at `offset`; returns the offset of the next one.
static uint64_t put_array(FILE *f, const char *type, const char *name, int components, uint64_t offset,
                          uint64_t bytes) {
    fprintf(f,
            "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"appended\" "
            "offset=\"%llu\"/>\n",
            type, name, components, (unsigned long long)offset);
    return offset + sizeof(uint64_t) + bytes;
}

// The optional per-body arrays of a frame, in the order the files carry them.
typedef struct optional_array {
    const void *data;
    const char *vtk_name, *vtk_type, *xyz_name;
    int components;
} optional_array;

static int optional_arrays(const kyu_frame *fr, optional_array out[5]) {
    const optional_array all[5] = {
        {fr->angular_velocity, "angular_velocity", "Float32", "omega:R:3", 3},
        {fr->rotation, "orientation", "Float32", "orientation:R:4", 4},
        {fr->force, "force", "Float32", "force:R:3", 3},
        {fr->torque, "torque", "Float32", "torque:R:3", 3},
        {fr->coordination, "coordination", "Int32", "n_neighb:I:1", 1},
    };
    int n = 0;
    for (int k = 0; k < 5; k++)
        if (all[k].data != NULL) out[n++] = all[k];
    return n;
}

static void put_vtp_header(FILE *f, const kyu_frame *fr) {
    uint64_t n = (uint64_t)fr->count, off = 0;
    fprintf(f,
            "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"%s\" "
            "header_type=\"UInt64\">\n  <PolyData>\n",
            byte_order());
    fprintf(f,
            "    <FieldData>\n      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
            "format=\"ascii\">%.15g</DataArray>\n    </FieldData>\n",
            fr->time);
    fprintf(f,
            "    <Piece NumberOfPoints=\"%d\" NumberOfVerts=\"%d\" NumberOfLines=\"0\" NumberOfStrips=\"0\" "
            "NumberOfPolys=\"0\">\n",
            fr->count, fr->count);
    fputs("      <PointData Scalars=\"radius\" Vectors=\"velocity\">\n", f);
    off = put_array(f, "Float32", "radius", 1, off, 4 * n);
    off = put_array(f, "Float32", "velocity", 3, off, 12 * n);
    off = put_array(f, "UInt32", "id", 1, off, 4 * n);
    optional_array opt[5];
    for (int k = 0, m = optional_arrays(fr, opt); k < m; k++)
        off = put_array(f, opt[k].vtk_type, opt[k].vtk_name, opt[k].components, off,
                        4 * (uint64_t)opt[k].components * n);
    fputs("      </PointData>\n      <Points>\n", f);
    off = put_array(f, "Float32", "Points", 3, off, 12 * n);
    fputs("      </Points>\n      <Verts>\n", f);
    off = put_array(f, "Int32", "connectivity", 1, off, 4 * n);
    put_array(f, "Int32", "offsets", 1, off, 4 * n);
    fputs("      </Verts>\n    </Piece>\n  </PolyData>\n  <AppendedData encoding=\"raw\">\n   _", f);
}

// The vertex cells: cell i is point i (connectivity i, offset i + 1), in chunks of 4096.
static void put_verts(FILE *f, int count) {
    uint64_t bytes = 4 * (uint64_t)count;
    int32_t chunk[4096];
    for (int pass = 0; pass < 2; pass++) {
        fwrite(&bytes, sizeof bytes, 1, f);
        for (int i = 0; i < count; i += 4096) {
            int m = count - i < 4096 ? count - i : 4096;
            for (int k = 0; k < m; k++) chunk[k] = i + k + pass;
            fwrite(chunk, sizeof *chunk, (size_t)m, f);
        }
    }
}

int kyu_frame_write_vtp(const kyu_frame *fr, const char *path) {
    if (fr->count < 0 || fr->count > 0x1fffffff) {
        errno = EINVAL;
        return -1;
    }
    FILE *f = fopen(path, "wb");
    if (f == NULL) return -1;
    uint64_t n = (uint64_t)fr->count;
    put_vtp_header(f, fr);
    put_block(f, fr->radius, 4 * n);
    put_block(f, fr->velocity, 12 * n);
    put_block(f, fr->ids, 4 * n);
    optional_array opt[5];
    for (int k = 0, m = optional_arrays(fr, opt); k < m; k++)
        put_block(f, opt[k].data, 4 * (uint64_t)opt[k].components * n);
    put_block(f, fr->position, 12 * n);
    put_verts(f, fr->count);
    fputs("\n  </AppendedData>\n</VTKFile>\n", f);
    return close_checked(f);
}

// ---- ParaView collection ---------------------------------------------------------------------------

// An XML attribute value: the characters XML reserves, escaped.
static void put_attr(FILE *f, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

int kyu_pvd_write(const char *path, int count, const double *times, const char *const *files) {
    FILE *f = fopen(path, "w");
    if (f == NULL) return -1;
    fputs("<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n", f);
    for (int i = 0; i < count; i++) {
        fprintf(f, "    <DataSet timestep=\"%.15g\" part=\"0\" file=\"", times[i]);
        put_attr(f, files[i]);
        fputs("\"/>\n", f);
    }
    fputs("  </Collection>\n</VTKFile>\n", f);
    return close_checked(f);
}

// ---- extended XYZ ----------------------------------------------------------------------------------

int kyu_frame_bounds(const kyu_frame *fr, float box[6]) {
    if (fr->count <= 0) return 0;
    for (int k = 0; k < 3; k++) box[k] = INFINITY, box[3 + k] = -INFINITY;
    for (int i = 0; i < fr->count; i++)
        for (int k = 0; k < 3; k++) {
            float p = fr->position[3 * i + k], r = fr->radius[i];
            box[k] = fminf(box[k], p - r);
            box[3 + k] = fmaxf(box[3 + k], p + r);
        }
    return 1;
}

int kyu_frame_periodic_cell(const kyu_world *w, float box[6], bool pbc[3]) {
    kyu_world_def d = kyu_world_get_def(w);
    int any = 0;
    for (int k = 0; k < 3; k++) {
        pbc[k] = d.periodic.axis[k];
        if (!pbc[k]) continue;
        box[k] = d.periodic.lower.raw[k], box[3 + k] = d.periodic.upper.raw[k];
        any = 1;
    }
    return any;
}

int kyu_frame_write_xyz(const kyu_frame *fr, FILE *out, const float box[6], const bool pbc[3]) {
    optional_array opt[5];
    int m = optional_arrays(fr, opt);
    fprintf(out, "%d\nProperties=species:S:1:pos:R:3:radius:R:1:velo:R:3:id:I:1", fr->count);
    for (int k = 0; k < m; k++) fprintf(out, ":%s", opt[k].xyz_name);
    fprintf(out, " Time=%.15g Step=%ld", fr->time, fr->step);
    if (box != NULL) // the cell vectors of an axis-aligned box, and its corner (OVITO's Origin key)
        fprintf(out, " Lattice=\"%.9g 0 0 0 %.9g 0 0 0 %.9g\" Origin=\"%.9g %.9g %.9g\" pbc=\"%c %c %c\"",
                (double)box[3] - box[0], (double)box[4] - box[1], (double)box[5] - box[2], (double)box[0],
                (double)box[1], (double)box[2], pbc && pbc[0] ? 'T' : 'F', pbc && pbc[1] ? 'T' : 'F',
                pbc && pbc[2] ? 'T' : 'F');
    fputc('\n', out);
    for (int i = 0; i < fr->count; i++) {
        const float *p = fr->position + 3 * i, *v = fr->velocity + 3 * i;
        fprintf(out, "B %.9g %.9g %.9g %.9g %.9g %.9g %.9g %lu", (double)p[0], (double)p[1], (double)p[2],
                (double)fr->radius[i], (double)v[0], (double)v[1], (double)v[2], (unsigned long)fr->ids[i]);
        for (int k = 0; k < m; k++) {
            int c = opt[k].components;
            if (opt[k].vtk_type[0] == 'I') {
                fprintf(out, " %ld", (long)((const int32_t *)opt[k].data)[i]);
                continue;
            }
            for (int j = 0; j < c; j++)
                fprintf(out, " %.9g", (double)((const float *)opt[k].data)[c * i + j]);
        }
        fputc('\n', out);
    }
    return ferror(out) ? -1 : 0;
}

// ---- gathering a frame from a world ----------------------------------------------------------------

void kyu_frame_data_free(kyu_frame_data *d) {
    free(d->all), free(d->ids), free(d->pos), free(d->vel), free(d->radius);
    free(d->ang), free(d->rot), free(d->force), free(d->torque), free(d->coord);
    memset(d, 0, sizeof *d);
}

// Every live body's force, torque and coordination (measure.h), then the rows of `ids` picked from
// them (rows are slot order: a handle's row is its place among the live slots).
static int gather_forces(kyu_world *w, const kyu_body_id *ids, int n, kyu_frame_data *d) {
    int live = kyu_world_body_count(w);
    size_t m = (size_t)(live > 0 ? live : 1);
    float *force = malloc(3 * m * sizeof *force), *torque = malloc(3 * m * sizeof *torque);
    int32_t *coord = malloc(m * sizeof *coord), *row = NULL;
    kyu_body_id *handles = NULL;
    int st = KYU_OK;
    kyu_body_force_arrays fa = {force, torque, coord, NULL};
    if (!force || !torque || !coord || kyu_world_get_body_forces(w, &fa, live) < 0)
        st = KYU_ERR_OUT_OF_MEMORY;
    if (st == KYU_OK && ids != NULL) { // a slot's row
        handles = malloc(m * sizeof *handles);
        uint32_t high = 0;
        if (handles) kyu_world_get_bodies(w, handles, live);
        for (int i = 0; handles && i < live; i++) high = handles[i].index1 > high ? handles[i].index1 : high;
        row = handles ? malloc(((size_t)high + 1) * sizeof *row) : NULL;
        if (!row) st = KYU_ERR_OUT_OF_MEMORY;
        for (int i = 0; row && i < live; i++) row[handles[i].index1] = i;
        for (int k = 0; row && k < n; k++) {
            int r = row[ids[k].index1]; // ids were checked when the positions were read
            memcpy(d->force + 3 * k, force + 3 * r, 3 * sizeof *force);
            memcpy(d->torque + 3 * k, torque + 3 * r, 3 * sizeof *torque);
            d->coord[k] = coord[r];
        }
    } else if (st == KYU_OK) {
        memcpy(d->force, force, 3 * (size_t)n * sizeof *force);
        memcpy(d->torque, torque, 3 * (size_t)n * sizeof *torque);
        memcpy(d->coord, coord, (size_t)n * sizeof *coord);
    }
    free(force), free(torque), free(coord), free(row), free(handles);
    return st;
}

int kyu_frame_gather(kyu_world *w, const kyu_body_id *ids, int n, long step, double time, kyu_frame_data *d,
                     kyu_frame *frame) {
    memset(d, 0, sizeof *d);
    if (ids == NULL) n = kyu_world_body_count(w);
    size_t m = (size_t)(n > 0 ? n : 1);
    d->all = malloc(m * sizeof *d->all), d->ids = malloc(m * sizeof *d->ids);
    d->pos = malloc(3 * m * sizeof *d->pos), d->vel = malloc(3 * m * sizeof *d->vel);
    d->radius = malloc(m * sizeof *d->radius), d->ang = malloc(3 * m * sizeof *d->ang);
    d->rot = malloc(4 * m * sizeof *d->rot), d->force = malloc(3 * m * sizeof *d->force);
    d->torque = malloc(3 * m * sizeof *d->torque), d->coord = malloc(m * sizeof *d->coord);
    if (!d->all || !d->ids || !d->pos || !d->vel || !d->radius || !d->ang || !d->rot || !d->force ||
        !d->torque || !d->coord)
        return KYU_ERR_OUT_OF_MEMORY;
    if (ids == NULL) {
        kyu_world_get_bodies(w, d->all, n);
        kyu_world_get_positions(w, d->pos, n);
        kyu_world_get_velocities(w, d->vel, n);
        kyu_world_get_radii(w, d->radius, n);
        kyu_world_get_angular_velocities(w, d->ang, n);
        kyu_world_get_rotations(w, d->rot, n);
    } else {
        memcpy(d->all, ids, (size_t)n * sizeof *ids);
        kyu_status st = kyu_bodies_get_positions(w, ids, n, d->pos);
        if (st != KYU_OK) return st;
        kyu_bodies_get_velocities(w, ids, n, d->vel);
        kyu_bodies_get_radii(w, ids, n, d->radius);
        kyu_bodies_get_angular_velocities(w, ids, n, d->ang);
        kyu_bodies_get_rotations(w, ids, n, d->rot);
    }
    for (int i = 0; i < n; i++) d->ids[i] = d->all[i].index1;
    int st = gather_forces(w, ids, n, d);
    if (st != KYU_OK) return st;
    *frame = (kyu_frame){n,    d->ids, d->pos, d->vel,   d->radius, step,
                         time, d->ang, d->rot, d->force, d->torque, d->coord};
    return KYU_OK;
}

// ---- the contact network ---------------------------------------------------------------------------

int kyu_network_write_vtp(kyu_world *w, double time, const char *path) {
    int n = kyu_world_get_contact_network(w, &(kyu_contact_arrays){0}, 0);
    if (n < 0) return KYU_ERR_OUT_OF_MEMORY;
    size_t m = (size_t)(n > 0 ? n : 1);
    kyu_body_id *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b);
    kyu_collider_id *c = malloc(m * sizeof *c);
    float *point = malloc(3 * m * sizeof *point), *normal = malloc(3 * m * sizeof *normal);
    float *fn = malloc(m * sizeof *fn), *ft = malloc(3 * m * sizeof *ft),
          *ends = malloc(6 * m * sizeof *ends);
    float *force = malloc(3 * m * sizeof *force), *tangential = malloc(m * sizeof *tangential);
    uint32_t *ida = malloc(m * sizeof *ida), *idb = malloc(m * sizeof *idb), *idc = malloc(m * sizeof *idc);
    int32_t *conn = malloc(2 * m * sizeof *conn), *offs = malloc(m * sizeof *offs);
    int st = KYU_OK;
    if (!a || !b || !c || !point || !normal || !fn || !ft || !ends || !force || !tangential || !ida || !idb ||
        !idc || !conn || !offs)
        st = KYU_ERR_OUT_OF_MEMORY;
    kyu_contact_arrays ca = {a, b, c, point, normal, fn, ft, NULL, NULL};
    if (st == KYU_OK && kyu_world_get_contact_network(w, &ca, n) != n) st = KYU_ERR_OUT_OF_MEMORY;
    kyu_periodic_box box = kyu_world_get_def(w).periodic;
    for (int k = 0; st == KYU_OK && k < n; k++) {
        vec3s pa, pb;
        kyu_body_get_position(w, a[k], &pa);
        if (b[k].index1)
            kyu_body_get_position(w, b[k], &pb);
        else
            pb = (vec3s){{point[3 * k], point[3 * k + 1], point[3 * k + 2]}};
        for (int j = 0; j < 3 && b[k].index1; j++) { // a pair across a periodic face: to b's nearest copy
            float len = box.upper.raw[j] - box.lower.raw[j];
            if (box.axis[j]) pb.raw[j] -= len * floorf((pb.raw[j] - pa.raw[j]) / len + 0.5f);
        }
        float t2 = 0.0f;
        for (int j = 0; j < 3; j++) {
            ends[6 * k + j] = pa.raw[j], ends[6 * k + 3 + j] = pb.raw[j];
            force[3 * k + j] = fn[k] * normal[3 * k + j] + ft[3 * k + j];
            t2 += ft[3 * k + j] * ft[3 * k + j];
        }
        tangential[k] = sqrtf(t2);
        ida[k] = a[k].index1, idb[k] = b[k].index1, idc[k] = c[k].index1;
        conn[2 * k] = 2 * k, conn[2 * k + 1] = 2 * k + 1, offs[k] = 2 * (k + 1);
    }
    FILE *f = st == KYU_OK ? fopen(path, "wb") : NULL;
    if (st == KYU_OK && f == NULL) st = KYU_ERR_IO;
    if (f != NULL) {
        uint64_t nn = (uint64_t)n, off = 0;
        fprintf(f,
                "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"%s\" "
                "header_type=\"UInt64\">\n  <PolyData>\n",
                byte_order());
        fprintf(f,
                "    <FieldData>\n      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
                "format=\"ascii\">%.15g</DataArray>\n    </FieldData>\n",
                time);
        fprintf(f,
                "    <Piece NumberOfPoints=\"%d\" NumberOfVerts=\"0\" NumberOfLines=\"%d\" "
                "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n",
                2 * n, n);
        fputs("      <CellData Scalars=\"normal_force\" Vectors=\"force\">\n", f);
        off = put_array(f, "Float32", "normal_force", 1, off, 4 * nn);
        off = put_array(f, "Float32", "tangential_force", 1, off, 4 * nn);
        off = put_array(f, "Float32", "force", 3, off, 12 * nn);
        off = put_array(f, "Float32", "normal", 3, off, 12 * nn);
        off = put_array(f, "UInt32", "body_a", 1, off, 4 * nn);
        off = put_array(f, "UInt32", "body_b", 1, off, 4 * nn);
        off = put_array(f, "UInt32", "collider", 1, off, 4 * nn);
        fputs("      </CellData>\n      <Points>\n", f);
        off = put_array(f, "Float32", "Points", 3, off, 24 * nn);
        fputs("      </Points>\n      <Lines>\n", f);
        off = put_array(f, "Int32", "connectivity", 1, off, 8 * nn);
        put_array(f, "Int32", "offsets", 1, off, 4 * nn);
        fputs("      </Lines>\n    </Piece>\n  </PolyData>\n  <AppendedData encoding=\"raw\">\n   _", f);
        put_block(f, fn, 4 * nn);
        put_block(f, tangential, 4 * nn);
        put_block(f, force, 12 * nn);
        put_block(f, normal, 12 * nn);
        put_block(f, ida, 4 * nn);
        put_block(f, idb, 4 * nn);
        put_block(f, idc, 4 * nn);
        put_block(f, ends, 24 * nn);
        put_block(f, conn, 8 * nn);
        put_block(f, offs, 4 * nn);
        fputs("\n  </AppendedData>\n</VTKFile>\n", f);
        if (close_checked(f) != 0) st = KYU_ERR_IO;
    }
    free(a), free(b), free(c), free(point), free(normal), free(fn), free(ft), free(ends), free(force);
    free(tangential), free(ida), free(idb), free(idc), free(conn), free(offs);
    return st;
}
