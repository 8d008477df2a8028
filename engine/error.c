// SPDX-License-Identifier: MIT
// Status codes, their sentences, and the per-world detail of the last error.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *const status_text[KYU_STATUS_COUNT] = {
    [KYU_OK] = "ok",
    [KYU_ERR_NULL] = "a required pointer argument was NULL",
    [KYU_ERR_NOT_FINITE] = "a number was NaN, infinite or beyond kyu's range",
    [KYU_ERR_RADIUS] = "radius must be > 0 and finite",
    [KYU_ERR_MASS] = "mass must be > 0 and finite",
    [KYU_ERR_RESTITUTION] = "restitution must be in [0, 1]",
    [KYU_ERR_FRICTION] = "friction must be >= 0 and finite",
    [KYU_ERR_DAMPING] = "damping must be >= 0 and finite",
    [KYU_ERR_STALE_HANDLE] = "the handle names a removed (or never created) object",
    [KYU_ERR_FOREIGN_HANDLE] = "the handle belongs to another world",
    [KYU_ERR_CAPACITY] = "a capacity of the world is exhausted (bodies, colliders, pairs or contacts)",
    [KYU_ERR_OUT_OF_MEMORY] = "out of memory",
    [KYU_ERR_INVALID_DEF] = "the def was not made by its ..._default() function",
    [KYU_ERR_INVALID_ARGUMENT] = "an argument is out of range",
    [KYU_ERR_LOCKED] = "the world is in the middle of a step",
    [KYU_ERR_IO] = "a file could not be opened, read or written",
    [KYU_ERR_BAD_SNAPSHOT] = "the snapshot is truncated, corrupt or of another version",
};

const char *kyu_status_string(kyu_status status) {
    if ((int)status < 0 || status >= KYU_STATUS_COUNT) return "unknown kyu status";
    return status_text[status];
}

kyu_status kyu_fail(const kyu_world *w, kyu_status status, const char *fmt, ...) {
    if (w && w->error) {
        va_list ap;
        va_start(ap, fmt);
        int n = snprintf(w->error, KYU_ERROR_SIZE, "%s: ", kyu_status_string(status));
        if (n > 0 && n < KYU_ERROR_SIZE) vsnprintf(w->error + n, (size_t)(KYU_ERROR_SIZE - n), fmt, ap);
        va_end(ap);
    }
    return status;
}

const char *kyu_world_last_error(const kyu_world *w) {
    return w ? w->error : "world is NULL";
} // set at creation

int kyu_finite3(vec3s v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

int kyu_bounded3(vec3s v, float limit) {
    return kyu_finite3(v) && fabsf(v.x) <= limit && fabsf(v.y) <= limit && fabsf(v.z) <= limit;
}

// Gives back most of an array that holds less than half what it has room for (n in use): a pile
// that falls asleep moves its contacts to island records, and the cache it leaves would stay
// resident. It keeps half as much again as n, so an array that hovers does not shrink every step.
void kyu_shrink(void **data, int *capacity, int n, size_t elem) {
    if (*capacity <= 4096 || n > *capacity / 2) return;
    int cap = n + n / 2 + 1024;
    void *p = kyu_realloc(*data, (size_t)cap * elem);
    if (!p) return; // keeping the larger array is fine
    *data = p;
    *capacity = cap;
}

// A large array that only a burst needed (the late-insert table of a landing step, the new bodies'
// query lists) goes back to the system, but for a token 1024 elements (a realloc, which for a
// mapped block is an mremap: glibc's mmap threshold is left alone). Not for the arrays the stages
// fill every step: taking one again costs a page fault per 4 KB, which cost a third of an awake
// PILE 100k step (world.c, trim_scratch). An array below kyu_idle_bytes (KYU_IDLE_BYTES) keeps
// its room.
size_t kyu_idle_bytes = KYU_IDLE_BYTES;

void kyu_give_back(void **data, int *capacity, size_t elem) {
    if (*capacity <= 1024 || (size_t)*capacity * elem < kyu_idle_bytes) return;
    void *p = kyu_realloc(*data, 1024 * elem);
    if (!p) return; // keeping the larger array is fine
    *data = p;
    *capacity = 1024;
}

int kyu_reserve(void **data, int *capacity, int n, size_t elem) {
    if (n <= *capacity) return 0;
    int cap = *capacity > 0 ? *capacity : 16;
    while (cap < n) {
        if (cap > INT32_MAX / 2) return -1;
        cap *= 2;
    }
    void *p = kyu_realloc(*data, (size_t)cap * elem);
    if (!p) return -1;
    *data = p;
    *capacity = cap;
    return 0;
}
