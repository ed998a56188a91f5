/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Clocks and a sort order shared by the benchmark programs. */
#ifndef BENCH_BENCHUTIL_H
#define BENCH_BENCHUTIL_H

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* CLOCK_MONOTONIC in seconds. */
static inline double
bench_now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* User + system CPU seconds of this process, all threads (getrusage: the
 * counters behind /proc/<pid>/stat utime + stime, in microseconds). */
static inline double
bench_cpu_s (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6
      + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

/* qsort order of doubles, ascending. */
static inline int
bench_cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* Writes all @n bytes of @p to @fd (a socketpair between the two
 * processes of a benchmark). */
static inline bool
bench_write_all (int fd, const void *p, size_t n)
{
  const uint8_t *b = p;
  while (n > 0) {
    ssize_t w = write (fd, b, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    b += w;
    n -= (size_t) w;
  }
  return true;
}

/* Reads exactly @n bytes, waiting at most until @deadline (bench_now_s). */
static inline bool
bench_read_all (int fd, void *p, size_t n, double deadline)
{
  uint8_t *b = p;
  while (n > 0) {
    struct pollfd pfd = {.fd = fd,.events = POLLIN };
    int left_ms = (int) ((deadline - bench_now_s ()) * 1000);
    if (left_ms <= 0 || poll (&pfd, 1, left_ms) <= 0)
      return false;
    ssize_t r = read (fd, b, n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return false;
    b += r;
    n -= (size_t) r;
  }
  return true;
}

#endif
