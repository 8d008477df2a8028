// SPDX-License-Identifier: MIT
// The scene loader's mesh files (scene_internal.h): a mesh collider's triangles read from a file
// (STL, OBJ, PLY, ... whatever the Open Asset Import Library reads: Debian's libassimp-dev), so a
// hopper or a mixer drawn in CAD becomes a wall as LIGGGHTS users bring theirs. Built only where
// assimp is (KYU_HAVE_ASSIMP, set by the Makefile); elsewhere a "file" key is refused by name.
#include "scene_internal.h"

#include <stdlib.h>
#include <string.h>

#ifdef KYU_HAVE_ASSIMP
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#endif

// The file's path: as written when absolute, else beside the scene file.
static void beside_scene(const ctx *c, const char *file, char *out, size_t cap) {
    const char *slash = strrchr(c->file, '/');
    if (file[0] == '/' || slash == NULL)
        say(out, cap, "%s", file);
    else
        say(out, cap, "%.*s/%s", (int)(slash - c->file), c->file, file);
}

int load_mesh_file(ctx *c, const char *path, const char *file, float scale, vec3s **points, int *point_count,
                   int32_t **tris, int *tri_count) {
    char where[1024];
    beside_scene(c, file, where, sizeof where);
#ifndef KYU_HAVE_ASSIMP
    (void)points, (void)point_count, (void)tris, (void)tri_count, (void)scale;
    return fail(c, path,
                "cannot read %s: this build has no mesh reader (install libassimp-dev and build again)",
                where);
#else
    // Triangles only, identical vertices joined (STL repeats every corner), the file's node
    // transforms applied, so the mesh is one list in the file's own frame.
    const struct aiScene *sc =
        aiImportFile(where, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                                aiProcess_PreTransformVertices | aiProcess_SortByPType);
    if (sc == NULL) return fail(c, path, "cannot read %s: %s", where, aiGetErrorString());
    long nv = 0, nt = 0;
    for (unsigned m = 0; m < sc->mNumMeshes; m++) {
        const struct aiMesh *mesh = sc->mMeshes[m];
        nv += mesh->mNumVertices;
        for (unsigned f = 0; f < mesh->mNumFaces; f++) nt += mesh->mFaces[f].mNumIndices == 3;
    }
    if (nv < 3 || nt < 1 || nv > c->max_points || nt > c->max_points) {
        aiReleaseImport(sc);
        return fail(c, path,
                    "%s has %ld vertices and %ld triangles (a mesh needs 3 and 1, at most %d of each)", where,
                    nv, nt, c->max_points);
    }
    vec3s *p = malloc((size_t)nv * sizeof *p);
    int32_t *t = malloc((size_t)nt * 3 * sizeof *t);
    if (p == NULL || t == NULL) {
        free(p), free(t);
        aiReleaseImport(sc);
        return fail(c, path, "out of memory for %s", where);
    }
    long at = 0, tri = 0;
    int bad = 0;
    for (unsigned m = 0; m < sc->mNumMeshes; m++) {
        const struct aiMesh *mesh = sc->mMeshes[m];
        for (unsigned f = 0; f < mesh->mNumFaces; f++) {
            const struct aiFace *face = &mesh->mFaces[f];
            if (face->mNumIndices != 3) continue; // points and lines of the file are not walls
            for (int k = 0; k < 3; k++) t[3 * tri + k] = (int32_t)(at + (long)face->mIndices[k]);
            tri++;
        }
        for (unsigned v = 0; v < mesh->mNumVertices; v++, at++) {
            const struct aiVector3D *q = &mesh->mVertices[v];
            p[at] = (vec3s){{q->x * scale, q->y * scale, q->z * scale}};
            bad |= !(fabsf(p[at].x) <= COORD_LIMIT && fabsf(p[at].y) <= COORD_LIMIT &&
                     fabsf(p[at].z) <= COORD_LIMIT);
        }
    }
    aiReleaseImport(sc);
    if (bad) {
        free(p), free(t);
        return fail(c, path, "%s: a vertex (times the scale %g) is not finite or beyond +-1e9", where,
                    (double)scale);
    }
    *points = p, *point_count = (int)nv, *tris = t, *tri_count = (int)nt;
    return 0;
#endif
}
