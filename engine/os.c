// SPDX-License-Identifier: MIT
// The operating system under the worker pool (os.h): one version of each call per platform.
// Threads and locks follow the thread layer (Win32 or pthreads, os.h); the clocks, the processor
// count and the yield follow the operating system (mingw's winpthreads is still Windows).
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L // clock_gettime, sysconf
#endif
#if defined(__APPLE__) && !defined(_DARWIN_C_SOURCE)
#define _DARWIN_C_SOURCE // macOS declares them and _SC_NPROCESSORS_ONLN only with it (not built here)
#endif

#include "os.h"

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <process.h> // _beginthreadex: the C runtime's own start, as the workers call into it
#else
#include <sched.h>
#include <time.h>
#include <unistd.h>
#endif

#if defined(__SSE2__) || defined(_M_X64) || defined(_M_AMD64)
#include <emmintrin.h> // _mm_pause
#elif defined(_M_ARM64)
#include <intrin.h> // __yield
#endif

#ifdef KYU_WIN32_THREADS
_Static_assert(sizeof(SRWLOCK) == sizeof(void *), "kyu_mutex holds an SRWLOCK");
_Static_assert(sizeof(CONDITION_VARIABLE) == sizeof(void *), "kyu_cond holds a CONDITION_VARIABLE");
// Both are one pointer that only the kernel's calls read; os.h keeps them without <windows.h>.
#define SRW(m) ((PSRWLOCK)(void *)&(m)->srwlock)
#define CV(c)  ((PCONDITION_VARIABLE)(void *)&(c)->condition_variable)

static unsigned __stdcall thread_entry(void *arg) {
    kyu_thread *t = arg;
    t->main(t->arg);
    return 0;
}

int kyu_thread_start(kyu_thread *t, void (*main)(void *arg), void *arg) {
    t->main = main;
    t->arg = arg;
    uintptr_t h = _beginthreadex(NULL, 0, thread_entry, t, 0, NULL);
    t->handle = (void *)h;
    return h ? 0 : -1;
}

void kyu_thread_join(kyu_thread *t) {
    WaitForSingleObject(t->handle, INFINITE);
    CloseHandle(t->handle);
}

int kyu_mutex_init(kyu_mutex *m) {
    InitializeSRWLock(SRW(m));
    return 0;
}
void kyu_mutex_destroy(kyu_mutex *m) { (void)m; } // an SRWLOCK holds nothing to free
void kyu_mutex_lock(kyu_mutex *m) { AcquireSRWLockExclusive(SRW(m)); }
void kyu_mutex_unlock(kyu_mutex *m) { ReleaseSRWLockExclusive(SRW(m)); }
int kyu_cond_init(kyu_cond *c) {
    InitializeConditionVariable(CV(c));
    return 0;
}
void kyu_cond_destroy(kyu_cond *c) { (void)c; }
void kyu_cond_wait(kyu_cond *c, kyu_mutex *m) { SleepConditionVariableSRW(CV(c), SRW(m), INFINITE, 0); }
void kyu_cond_signal(kyu_cond *c) { WakeConditionVariable(CV(c)); }
void kyu_cond_broadcast(kyu_cond *c) { WakeAllConditionVariable(CV(c)); }
#else
static void *thread_entry(void *arg) {
    kyu_thread *t = arg;
    t->main(t->arg);
    return NULL;
}

int kyu_thread_start(kyu_thread *t, void (*main)(void *arg), void *arg) {
    t->main = main;
    t->arg = arg;
    return pthread_create(&t->id, NULL, thread_entry, t) ? -1 : 0;
}

void kyu_thread_join(kyu_thread *t) { pthread_join(t->id, NULL); }
int kyu_mutex_init(kyu_mutex *m) { return pthread_mutex_init(&m->m, NULL) ? -1 : 0; }
void kyu_mutex_destroy(kyu_mutex *m) { pthread_mutex_destroy(&m->m); }
void kyu_mutex_lock(kyu_mutex *m) { pthread_mutex_lock(&m->m); }
void kyu_mutex_unlock(kyu_mutex *m) { pthread_mutex_unlock(&m->m); }
int kyu_cond_init(kyu_cond *c) { return pthread_cond_init(&c->c, NULL) ? -1 : 0; }
void kyu_cond_destroy(kyu_cond *c) { pthread_cond_destroy(&c->c); }
void kyu_cond_wait(kyu_cond *c, kyu_mutex *m) { pthread_cond_wait(&c->c, &m->m); }
void kyu_cond_signal(kyu_cond *c) { pthread_cond_signal(&c->c); }
void kyu_cond_broadcast(kyu_cond *c) { pthread_cond_broadcast(&c->c); }
#endif

#ifdef _WIN32
double kyu_os_seconds(void) {
    LARGE_INTEGER t, f;
    QueryPerformanceCounter(&t);
    QueryPerformanceFrequency(&f);
    return (double)t.QuadPart / (double)f.QuadPart;
}

double kyu_os_thread_seconds(void) { return -1.0; }

int kyu_os_processors(void) {
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return n > 0 ? (int)n : 1;
}

void kyu_os_yield(void) { SwitchToThread(); }
#else
double kyu_os_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

double kyu_os_thread_seconds(void) {
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)) return -1.0;
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int kyu_os_processors(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void kyu_os_yield(void) { sched_yield(); }
#endif

void kyu_os_relax(void) {
#if defined(__SSE2__) || defined(_M_X64) || defined(_M_AMD64)
    _mm_pause();
#elif defined(_M_ARM64)
    __yield();
#elif defined(__aarch64__) && defined(__GNUC__)
    __asm__ __volatile__("yield"); // gcc and clang (an extension, so only where they are)
#endif
}
