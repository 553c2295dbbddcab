/*
 * The few threading primitives xs_threads.c needs, on POSIX threads or the
 * Win32 API behind one interface: start and join a thread, a mutex, a
 * condition variable with a timed wait, and the number of CPUs this process
 * may use.  Elsewhere (no threads known) XS_HAVE_THREADS stays undefined and
 * every row is summed by the calling thread.
 */
#ifndef XS_THREAD_API_H
#define XS_THREAD_API_H

#if defined(_WIN32)
#define XS_HAVE_THREADS 1
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <process.h>
#include <stdint.h>

typedef HANDLE xs_thread;
typedef SRWLOCK xs_mutex;
typedef CONDITION_VARIABLE xs_cond;

/* The thread entry of both systems: run(arg). */
typedef struct {
    void (*run)(void *arg);
    void *arg;
} xs_thread_start_args;

static unsigned __stdcall xs_thread_entry(void *p)
{
    xs_thread_start_args *s = p;
    s->run(s->arg);
    return 0;
}

/* 1 when the thread started.  `start` must live until the thread ends. */
static inline int xs_thread_create(xs_thread *t, xs_thread_start_args *start)
{
    uintptr_t h = _beginthreadex(NULL, 0, xs_thread_entry, start, 0, NULL);
    *t = (HANDLE)h;
    return h != 0;
}

static inline void xs_thread_join(xs_thread t)
{
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
}

static inline int xs_mutex_init(xs_mutex *m) { InitializeSRWLock(m); return 1; }
static inline void xs_mutex_destroy(xs_mutex *m) { (void)m; }
static inline void xs_mutex_lock(xs_mutex *m) { AcquireSRWLockExclusive(m); }
static inline void xs_mutex_unlock(xs_mutex *m) { ReleaseSRWLockExclusive(m); }
static inline int xs_cond_init(xs_cond *c) { InitializeConditionVariable(c); return 1; }
static inline void xs_cond_destroy(xs_cond *c) { (void)c; }
static inline void xs_cond_signal(xs_cond *c) { WakeConditionVariable(c); }

/* Waits on c (m held) for at most `ms` milliseconds; 0 when it timed out. */
static inline int xs_cond_wait_ms(xs_cond *c, xs_mutex *m, long ms)
{
    return SleepConditionVariableSRW(c, m, (DWORD)ms, 0) ? 1 : 0;
}

static inline int xs_cpus_available(void)
{
    DWORD_PTR process, system;
    if (GetProcessAffinityMask(GetCurrentProcess(), &process, &system) && process != 0) {
        int n = 0;
        for (; process != 0; process &= process - 1) {
            n++;
        }
        return n;
    }
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return n > 0 ? (int)n : 1;
}

#elif defined(__unix__) || defined(__APPLE__)
#define XS_HAVE_THREADS 1
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sched.h>
#endif

typedef pthread_t xs_thread;
typedef pthread_mutex_t xs_mutex;
typedef pthread_cond_t xs_cond;

typedef struct {
    void (*run)(void *arg);
    void *arg;
} xs_thread_start_args;

static void *xs_thread_entry(void *p)
{
    xs_thread_start_args *s = p;
    s->run(s->arg);
    return NULL;
}

static inline int xs_thread_create(xs_thread *t, xs_thread_start_args *start)
{
    return pthread_create(t, NULL, xs_thread_entry, start) == 0;
}

static inline void xs_thread_join(xs_thread t) { pthread_join(t, NULL); }
static inline int xs_mutex_init(xs_mutex *m) { return pthread_mutex_init(m, NULL) == 0; }
static inline void xs_mutex_destroy(xs_mutex *m) { pthread_mutex_destroy(m); }
static inline void xs_mutex_lock(xs_mutex *m) { pthread_mutex_lock(m); }
static inline void xs_mutex_unlock(xs_mutex *m) { pthread_mutex_unlock(m); }
static inline int xs_cond_init(xs_cond *c) { return pthread_cond_init(c, NULL) == 0; }
static inline void xs_cond_destroy(xs_cond *c) { pthread_cond_destroy(c); }
static inline void xs_cond_signal(xs_cond *c) { pthread_cond_signal(c); }

/* Waits on c (m held) for at most `ms` milliseconds (< 1000); 0 when it
 * timed out. */
static inline int xs_cond_wait_ms(xs_cond *c, xs_mutex *m, long ms)
{
    struct timespec until;
    if (clock_gettime(CLOCK_REALTIME, &until) != 0) {
        pthread_cond_wait(c, m);
        return 1;
    }
    until.tv_nsec += ms * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec += 1;
        until.tv_nsec -= 1000000000L;
    }
    return pthread_cond_timedwait(c, m, &until) != ETIMEDOUT;
}

/* The CPUs this process may run on: its affinity mask where the system
 * has one (taskset, container cpusets), else the online CPUs. */
static inline int xs_cpus_available(void)
{
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
        return CPU_COUNT(&set);
    }
#endif
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? (cpus > 1 << 20 ? 1 << 20 : (int)cpus) : 1;
}
#endif

#endif
