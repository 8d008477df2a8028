// SPDX-License-Identifier: MIT
// Private to the engine: every allocation goes through the hooks of kyu_set_allocator (world.h).
// After this header the C library's allocation functions are poisoned, so an engine file that calls
// malloc directly does not compile: a test that fails the Nth allocation reaches every one of them.
#ifndef KYU_CORE_H
#define KYU_CORE_H

#include <stddef.h>
#include <stdlib.h>

void *kyu_malloc(size_t size);
void *kyu_calloc(size_t count, size_t size);
void *kyu_realloc(void *ptr, size_t size);
void kyu_free(void *ptr);

#ifdef KYU_BUILD // the library's own sources (the Makefile sets it); tests may include internal.h
#pragma GCC poison malloc calloc realloc free
#endif

#endif
