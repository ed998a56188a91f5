/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Clocks and a sort order shared by the benchmark programs. */
#ifndef BENCH_BENCHUTIL_H
#define BENCH_BENCHUTIL_H

#include <sys/resource.h>
#include <time.h>

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

#endif
