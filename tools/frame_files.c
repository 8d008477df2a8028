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

int kyu_frame_write_xyz(const kyu_frame *fr, FILE *out, const float box[6]) {
    fprintf(out, "%d\nProperties=species:S:1:pos:R:3:radius:R:1:velo:R:3:id:I:1 Time=%.15g Step=%ld",
            fr->count, fr->time, fr->step);
    if (box != NULL) // the cell vectors of an axis-aligned box, and its corner (OVITO's Origin key)
        fprintf(out, " Lattice=\"%.9g 0 0 0 %.9g 0 0 0 %.9g\" Origin=\"%.9g %.9g %.9g\" pbc=\"F F F\"",
                (double)box[3] - box[0], (double)box[4] - box[1], (double)box[5] - box[2], (double)box[0],
                (double)box[1], (double)box[2]);
    fputc('\n', out);
    for (int i = 0; i < fr->count; i++) {
        const float *p = fr->position + 3 * i, *v = fr->velocity + 3 * i;
        fprintf(out, "B %.9g %.9g %.9g %.9g %.9g %.9g %.9g %lu\n", (double)p[0], (double)p[1], (double)p[2],
                (double)fr->radius[i], (double)v[0], (double)v[1], (double)v[2], (unsigned long)fr->ids[i]);
    }
    return ferror(out) ? -1 : 0;
}
