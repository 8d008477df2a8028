// SPDX-License-Identifier: MIT
// Private to the engine: every allocation goes through the hooks of kyu_set_allocator (world.h).
// After this header the C library's allocation functions are poisoned, so an engine file that calls
// malloc directly does not compile: a test that fails the Nth allocation reaches every one of them.
#ifndef KYU_CORE_H
#define KYU_CORE_H

#include <stddef.h>
#include <stdlib.h>

// Every header that may allocate in an inline function (cglm's SIMD headers reach mm_malloc.h) is
// read here, before the poison below, so the order of an engine file's includes never matters.
#include "kyu/kyu.h"

void *kyu_malloc(size_t size);
void *kyu_calloc(size_t count, size_t size);
void *kyu_realloc(void *ptr, size_t size);
void kyu_free(void *ptr);

// Live worlds, counted so kyu_set_allocator can refuse to swap the hooks under them (world.c).
void kyu_world_count_add(int delta);

// An internal invariant: a failure is a bug in kyu, never bad input (that is a kyu_status). It calls
// the hook of kyu_set_assert_handler (world.h), then aborts. Compiled out under NDEBUG, as C's
// assert is (kyu's own builds do not define it), but the condition still counts as a use of what
// it names.
#ifdef NDEBUG
#define KYU_ASSERT(cond) ((void)sizeof(cond))
#else
#define KYU_ASSERT(cond) ((cond) ? (void)0 : kyu_assert_fail(#cond, __FILE__, __LINE__))
#endif
_Noreturn void kyu_assert_fail(const char *condition, const char *file, int line);

// The library's own sources (the Makefile sets KYU_BUILD; tests may include internal.h), with a
// compiler that knows the pragma (gcc and clang: every build CI makes).
#if defined(KYU_BUILD) && defined(__GNUC__)
#pragma GCC poison malloc calloc realloc free aligned_alloc posix_memalign strdup strndup
#endif

#endif
