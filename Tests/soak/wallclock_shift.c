/* An LD_PRELOAD library that steps the wall clock of one process as an NTP step steps the system's: CLOCK_REALTIME
 * (and what reads it: gettimeofday, time, timespec_get) is shifted by a number of seconds read from the file named by
 * WALLCLOCK_SHIFT_FILE (one integer, may be negative; the file is read again at most every 20 ms, so a test moves the
 * clock by rewriting it), while CLOCK_MONOTONIC and CLOCK_BOOTTIME are left alone. Absolute waits on the wall clock
 * (timerfd on CLOCK_REALTIME, pthread_cond_timedwait, sem_timedwait, clock_nanosleep on CLOCK_REALTIME) are moved
 * back into real time, so they end when the shifted clock reaches their deadline, as after a real step.
 *
 * Why not libfaketime: 0.9.10 (Debian 12) also shifts absolute CLOCK_MONOTONIC deadlines by the offset even with
 * DONT_FAKE_MONOTONIC=1 (timerfd_settime, clock_nanosleep): after a forward jump libdispatch's monotonic timers are
 * always expired (a busy loop), after a backward one every Task.sleep in a Swift program ends minutes late, which
 * would be blamed on the program. Built by Tests/soak/faults_clock.py with `cc -shared -fPIC -O2 ... -ldl`. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static _Atomic long shift_seconds;
static _Atomic long long next_read_ns;
#define MAX_FDS 65536
static _Atomic unsigned char realtime_fd[MAX_FDS];

static long long mono_ns(void) {
    struct timespec ts;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long shift(void) {
    long long now = mono_ns();
    if (now >= atomic_load(&next_read_ns)) {
        atomic_store(&next_read_ns, now + 20000000LL);
        const char *path = getenv("WALLCLOCK_SHIFT_FILE");
        if (path) {
            int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
            if (fd >= 0) {
                char buf[64];
                long n = (long)syscall(SYS_read, fd, buf, sizeof buf - 1);
                syscall(SYS_close, fd);
                if (n > 0) {
                    buf[n] = 0;
                    char *end;
                    long v = strtol(buf, &end, 10);
                    if (end != buf) atomic_store(&shift_seconds, v);
                }
            }
        }
    }
    return atomic_load(&shift_seconds);
}

static int is_wall(clockid_t c) { return c == CLOCK_REALTIME || c == CLOCK_REALTIME_COARSE || c == CLOCK_TAI || c == CLOCK_REALTIME_ALARM; }

int clock_gettime(clockid_t clk, struct timespec *ts) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = dlsym(RTLD_NEXT, "clock_gettime");
    int r = real(clk, ts);
    if (r == 0 && ts && is_wall(clk)) ts->tv_sec += shift();
    return r;
}

int gettimeofday(struct timeval *tv, void *tz) {
    static int (*real)(struct timeval *, void *);
    if (!real) real = dlsym(RTLD_NEXT, "gettimeofday");
    int r = real(tv, tz);
    if (r == 0 && tv) tv->tv_sec += shift();
    return r;
}

time_t time(time_t *out) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out) *out = ts.tv_sec;
    return ts.tv_sec;
}

int timespec_get(struct timespec *ts, int base) {
    if (base != TIME_UTC) return 0;
    clock_gettime(CLOCK_REALTIME, ts);
    return base;
}

static struct timespec back(const struct timespec *t) {
    struct timespec r = *t;
    r.tv_sec -= shift();
    return r;
}

int timerfd_create(int clk, int flags) {
    static int (*real)(int, int);
    if (!real) real = dlsym(RTLD_NEXT, "timerfd_create");
    int fd = real(clk, flags);
    if (fd >= 0 && fd < MAX_FDS) atomic_store(&realtime_fd[fd], is_wall(clk));
    return fd;
}

int timerfd_settime(int fd, int flags, const struct itimerspec *nv, struct itimerspec *old) {
    static int (*real)(int, int, const struct itimerspec *, struct itimerspec *);
    if (!real) real = dlsym(RTLD_NEXT, "timerfd_settime");
    if (nv && (flags & TFD_TIMER_ABSTIME) && fd >= 0 && fd < MAX_FDS && atomic_load(&realtime_fd[fd])
        && (nv->it_value.tv_sec || nv->it_value.tv_nsec)) {
        struct itimerspec moved = *nv;
        moved.it_value = back(&nv->it_value);
        return real(fd, flags, &moved, old);
    }
    return real(fd, flags, nv, old);
}

int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem) {
    static int (*real)(clockid_t, int, const struct timespec *, struct timespec *);
    if (!real) real = dlsym(RTLD_NEXT, "clock_nanosleep");
    if ((flags & TIMER_ABSTIME) && is_wall(clk) && req) {
        struct timespec moved = back(req);
        return real(clk, flags, &moved, rem);
    }
    return real(clk, flags, req, rem);
}

/* glibc's default condition variables wait on CLOCK_REALTIME; a program that waits on the monotonic clock uses
 * pthread_cond_clockwait (libstdc++ does for steady_clock), which is left alone. */
int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *t) {
    static int (*real)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
    if (!real) real = dlvsym(RTLD_NEXT, "pthread_cond_timedwait", "GLIBC_2.3.2");
    if (!t) return real(c, m, t);
    struct timespec moved = back(t);
    return real(c, m, &moved);
}

int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk, const struct timespec *t) {
    static int (*real)(pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *);
    if (!real) real = dlsym(RTLD_NEXT, "pthread_cond_clockwait");
    if (t && is_wall(clk)) {
        struct timespec moved = back(t);
        return real(c, m, clk, &moved);
    }
    return real(c, m, clk, t);
}

int sem_timedwait(sem_t *s, const struct timespec *t) {
    static int (*real)(sem_t *, const struct timespec *);
    if (!real) real = dlsym(RTLD_NEXT, "sem_timedwait");
    if (!t) return real(s, t);
    struct timespec moved = back(t);
    return real(s, &moved);
}
