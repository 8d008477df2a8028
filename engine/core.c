// SPDX-License-Identifier: MIT
// What is process-wide rather than a world's: the allocator hooks (kyu_set_allocator), set by the
// user before any world exists, the count of live worlds that enforces it, the assert hook, and the
// version. Everything else lives in a world.
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
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

static atomic_int live_worlds;

void kyu_world_count_add(int delta) { atomic_fetch_add(&live_worlds, delta); }

kyu_status kyu_set_allocator(const kyu_allocator *a) {
    // A world's memory must go back to the hooks that gave it.
    if (atomic_load(&live_worlds) > 0) return KYU_ERR_LOCKED;
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

// ---- invariants (KYU_ASSERT) ---------------------------------------------------------------------

static _Atomic(kyu_assert_fn *) assert_handler;

void kyu_set_assert_handler(kyu_assert_fn *handler) { atomic_store(&assert_handler, handler); }

_Noreturn void kyu_assert_fail(const char *condition, const char *file, int line) {
    kyu_assert_fn *handler = atomic_load(&assert_handler);
    if (handler) handler(condition, file, line);
    fprintf(stderr, "kyu: internal check failed: %s (%s:%d)\n", condition, file, line);
    abort();
}

const char *kyu_version(void) { return KYU_VERSION_STRING; }
