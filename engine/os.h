// SPDX-License-Identifier: MIT
// Private to the engine: what the worker pool (threads.c) asks of the operating system, in one
// place (os.c): threads, a lock with its condition variables, two clocks, the processor count, and
// the hints a spinning thread gives. pthreads where the platform has them; on Windows the Win32
// calls (_beginthreadex, SRWLOCK, CONDITION_VARIABLE), so a program built with MSVC needs no
// pthreads library. KYU_USE_PTHREADS chooses pthreads on Windows too (mingw-w64's winpthreads).
// Nothing here changes an answer: the pool's split of the work never does.
#ifndef KYU_OS_H
#define KYU_OS_H

#if defined(_WIN32) && !defined(KYU_USE_PTHREADS)
#define KYU_WIN32_THREADS 1
#else
#include <pthread.h>
#endif

// A thread runs main(arg); the struct stays where it is until the thread is joined.
typedef struct kyu_thread {
    void (*main)(void *arg);
    void *arg;
#ifdef KYU_WIN32_THREADS
    void *handle; // what _beginthreadex gave
#else
    pthread_t id;
#endif
} kyu_thread;

#ifdef KYU_WIN32_THREADS
// One pointer each, as Windows' SRWLOCK and CONDITION_VARIABLE are (os.c checks the sizes), so
// that this header needs no <windows.h>.
typedef struct kyu_mutex {
    void *srwlock;
} kyu_mutex;
typedef struct kyu_cond {
    void *condition_variable;
} kyu_cond;
#else
typedef struct kyu_mutex {
    pthread_mutex_t m;
} kyu_mutex;
typedef struct kyu_cond {
    pthread_cond_t c;
} kyu_cond;
#endif

int kyu_thread_start(kyu_thread *t, void (*main)(void *arg), void *arg); // 0, or -1 when it failed
void kyu_thread_join(kyu_thread *t);
int kyu_mutex_init(kyu_mutex *m); // 0, or -1 when it failed
void kyu_mutex_destroy(kyu_mutex *m);
void kyu_mutex_lock(kyu_mutex *m);
void kyu_mutex_unlock(kyu_mutex *m);
int kyu_cond_init(kyu_cond *c); // 0, or -1 when it failed
void kyu_cond_destroy(kyu_cond *c);
void kyu_cond_wait(kyu_cond *c, kyu_mutex *m);
void kyu_cond_signal(kyu_cond *c);
void kyu_cond_broadcast(kyu_cond *c);

// Seconds on a monotonic clock (its origin is arbitrary).
double kyu_os_seconds(void);
// Seconds of processor time the calling thread has used, or -1 where the platform keeps no
// clock of it finer than a timer tick (Windows counts thread time in ticks of 15.6 ms, far coarser
// than a phase: the pool's meter then counts only its waits for the workers).
double kyu_os_thread_seconds(void);
// Processors online (1 when the platform will not say).
int kyu_os_processors(void);
// Gives the rest of the time slice to another thread.
void kyu_os_yield(void);
// A spinning thread's hint to the processor (x86 PAUSE, ARM YIELD): nothing where there is none.
void kyu_os_relax(void);

#endif
