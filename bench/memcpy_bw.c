/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench-memcpy: the memory limit. One thread copies @size bytes from one
 * pre-faulted buffer into another (both written once before timing, so no
 * page faults are measured: docs/libfabric-notes.md §7 shows a fresh destination
 * runs ~50x slower). Each of @reps repetitions copies for at least
 * @min_time seconds; the median, min and max GB/s of the repetitions and
 * CPU seconds per GB are printed as one JSON line.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "benchutil.h"

int
main (int argc, char **argv)
{
  size_t size = 5529600;
  unsigned reps = 5;
  double min_time = 0.2;
  double *gbps, cpu_total = 0, bytes_total = 0;
  uint8_t *src, *dst;
  volatile uint8_t sink = 0;

  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp (argv[i], "--size"))
      size = strtoull (argv[i + 1], NULL, 10);
    else if (!strcmp (argv[i], "--reps"))
      reps = (unsigned) strtoul (argv[i + 1], NULL, 10);
    else if (!strcmp (argv[i], "--min-time"))
      min_time = strtod (argv[i + 1], NULL);
    else {
      fprintf (stderr, "usage: bench-memcpy [--size BYTES] [--reps N] "
          "[--min-time S]\n");
      return 2;
    }
  }
  if (size == 0 || reps == 0 || reps > 1000 || min_time <= 0 || min_time > 60) {
    fprintf (stderr, "bench-memcpy: bad arguments\n");
    return 2;
  }
  src = aligned_alloc (4096, (size + 4095) / 4096 * 4096);
  dst = aligned_alloc (4096, (size + 4095) / 4096 * 4096);
  gbps = calloc (reps, sizeof (*gbps));
  if (!src || !dst || !gbps) {
    fprintf (stderr, "bench-memcpy: out of memory\n");
    return 1;
  }
  for (size_t i = 0; i < size; i++)
    src[i] = (uint8_t) (i * 131u);
  memset (dst, 0, size);        /* pre-fault the destination */

  for (unsigned r = 0; r < reps; r++) {
    uint64_t n = 0;
    double t0 = bench_now_s (), c0 = bench_cpu_s (), t;
    do {
      src[n % size] ^= 1;       /* the compiler may not drop the copy */
      memcpy (dst, src, size);
      sink ^= dst[(n * 4099) % size];
      n++;
      t = bench_now_s ();
    } while (t - t0 < min_time && n < 100000000);
    gbps[r] = (double) n * size / 1e9 / (t - t0);
    cpu_total += bench_cpu_s () - c0;
    bytes_total += (double) n * size;
  }
  qsort (gbps, reps, sizeof (*gbps), bench_cmp_double);
  printf ("{\"bench\":\"memcpy\",\"size\":%zu,\"reps\":%u,"
      "\"gb_per_s\":%.4f,\"gb_per_s_min\":%.4f,\"gb_per_s_max\":%.4f,"
      "\"copies_per_s\":%.3f,\"cpu_s_per_gb\":%.4f}\n",
      size, reps, gbps[reps / 2], gbps[0], gbps[reps - 1],
      gbps[reps / 2] * 1e9 / size, cpu_total / (bytes_total / 1e9));
  (void) sink;
  free (gbps);
  free (src);
  free (dst);
  return 0;
}
