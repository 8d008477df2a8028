// SPDX-License-Identifier: MIT
// What is process-wide rather than a world's: the allocator hooks (kyu_set_allocator), the one piece
// of process-wide state the engine has, set by the user before any world exists; and the version.
#include <string.h>

#include "kyu/kyu.h"

// The C library's functions, taken before core.h poisons their names.
static void *std_alloc(size_t size, void *user) {
    (void)user;
    return malloc(size);
}
static void *std_realloc(void *ptr, size_t size, void *user) {
    (void)user;
    return realloc(ptr, size);
}
static void std_free(void *ptr, void *user) {
    (void)user;
    free(ptr);
}

#include "core.h"

static kyu_allocator allocator = {std_alloc, std_realloc, std_free, NULL};

kyu_status kyu_set_allocator(const kyu_allocator *a) {
    if (!a) {
        allocator = (kyu_allocator){std_alloc, std_realloc, std_free, NULL};
        return KYU_OK;
    }
    if (!a->allocate || !a->reallocate || !a->deallocate) return KYU_ERR_NULL;
    allocator = *a;
    return KYU_OK;
}

// A request for 0 bytes gets 1, so a NULL result always means failure.
void *kyu_malloc(size_t size) { return allocator.allocate(size ? size : 1, allocator.user); }

void *kyu_calloc(size_t count, size_t size) {
    if (size != 0 && count > (size_t)-1 / size) return NULL;
    size_t n = count * size;
    void *p = allocator.allocate(n ? n : 1, allocator.user);
    if (p) memset(p, 0, n);
    return p;
}

void *kyu_realloc(void *ptr, size_t size) {
    if (size == 0) size = 1;
    if (!ptr) return allocator.allocate(size, allocator.user);
    return allocator.reallocate(ptr, size, allocator.user);
}

void kyu_free(void *ptr) {
    if (ptr) allocator.deallocate(ptr, allocator.user);
}

const char *kyu_version(void) { return KYU_VERSION_STRING; }
