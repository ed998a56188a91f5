/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Index and time conversions: docs/flow-format.md §5.2, §5.3, §8.1 case 19. */
#include <time.h>

#include "flowtest.h"

static const mxlRational r30 = { 30000, 1001 };
static const mxlRational r60 = { 60000, 1001 };
static const mxlRational r50 = { 50, 1 };
static const mxlRational r48k = { 48000, 1 };

static void
test_examples (void)
{
  /* §5.3 table */
  static const struct { const mxlRational *r; uint64_t ts[4]; } rows[] = {
    { &r50, { 0, 20000000, 40000000, 60000000 } },
    { &r30, { 0, 33366667, 66733333, 100100000 } },
    { &r60, { 0, 16683333, 33366667, 50050000 } },
    { &r48k, { 0, 20833, 41667, 62500 } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++) {
    for (uint64_t k = 0; k < 4; k++) {
      g_assert_cmpuint (mxlIndexToTimestamp (rows[i].r, k), ==, rows[i].ts[k]);
      g_assert_cmpuint (mxlTimestampToIndex (rows[i].r, rows[i].ts[k]), ==, k);
    }
  }
  g_assert_cmpuint (mxlTimestampToIndex (&r50, 9999999), ==, 0);
  g_assert_cmpuint (mxlTimestampToIndex (&r50, 10000000), ==, 1);
  g_assert_cmpuint (mxlTimestampToIndex (&r50, 29999999), ==, 1);
  g_assert_cmpuint (mxlTimestampToIndex (&r50, 30000000), ==, 2);
  g_assert_cmpuint (mxlTimestampToIndex (&r30, 33366667), ==, 1);
  g_assert_cmpuint (mxlTimestampToIndex (&r30, 16683333), ==, 0);
  g_assert_cmpuint (mxlTimestampToIndex (&r30, 16683334), ==, 1);
  /* present-day TAI: no 64-bit overflow (ts * num is ~5.4e22) */
  g_assert_cmpuint (mxlTimestampToIndex (&r30, 1785000000000000000ull), ==, 53496503497ull);
  g_assert_cmpuint (mxlTimestampToIndex (&r48k, 1785000000000000000ull), ==, 85680000000000ull);
  g_assert_cmpuint (mxlTimestampToIndex (&r50, 1785000000000000000ull), ==, 89250000000ull);
  g_assert_cmpuint (mxlTimestampToIndex (&r60, 1785000000000000000ull), ==, 106993006993ull);
  g_assert_cmpuint (mxlIndexToTimestamp (&r30, 53496503497ull), ==, 1785000000016566667ull);
}

static void
test_round_trips (void)
{
  const mxlRational *rates[] = { &r30, &r60, &r50, &r48k };

  /* §5.3: 30000/1001 over [30 000 000, 60 000 000) exactly */
  for (uint64_t i = 30000000; i < 60000000; i++) {
    if (mxlTimestampToIndex (&r30, mxlIndexToTimestamp (&r30, i)) != i)
      g_error ("30000/1001: idx(ts(%" G_GUINT64_FORMAT ")) != i", i);
  }
  /* every rate, around present-day indices (TAI ~1.78e18 ns) */
  for (guint k = 0; k < G_N_ELEMENTS (rates); k++) {
    uint64_t now_idx = mxlTimestampToIndex (rates[k], 1785000000000000000ull);
    for (uint64_t i = now_idx - 500000; i < now_idx + 500000; i++) {
      uint64_t ts = mxlIndexToTimestamp (rates[k], i);
      if (mxlTimestampToIndex (rates[k], ts) != i)
        g_error ("rate %u: round trip of %" G_GUINT64_FORMAT " failed", k, i);
    }
  }
}

static void
test_invalid_rates (void)
{
  const mxlRational zero = { 0, 0 }, z1001 = { 0, 1001 }, d0 = { 30000, 0 };

  g_assert_cmpuint (mxlTimestampToIndex (NULL, 1), ==, MXL_UNDEFINED_INDEX);
  g_assert_cmpuint (mxlIndexToTimestamp (NULL, 1), ==, MXL_UNDEFINED_INDEX);
  g_assert_cmpuint (mxlGetCurrentIndex (NULL), ==, MXL_UNDEFINED_INDEX);
  g_assert_cmpuint (mxlGetNsUntilIndex (1, NULL), ==, MXL_UNDEFINED_INDEX);
  g_assert_cmpuint (mxlGetCurrentIndex (&zero), ==, MXL_UNDEFINED_INDEX);
  g_assert_cmpuint (mxlGetCurrentIndex (&z1001), ==, MXL_UNDEFINED_INDEX);
  g_assert_cmpuint (mxlGetCurrentIndex (&d0), ==, MXL_UNDEFINED_INDEX);
  g_assert_cmpuint (mxlIndexToTimestamp (&d0, 5), ==, MXL_UNDEFINED_INDEX);
}

static void
test_edges (void)
{
  const mxlRational neg = { -30000, 1001 }, dneg = { 30000, -1001 };
  const mxlRational big = { 3000000000ll, 1 }, fine = { 1, INT64_MAX };
  const mxlRational fast = { INT64_MAX, 1 };

  /* §5.2: a term <= 0 is invalid, as 0 is */
  g_assert_cmpuint (mxlIndexToTimestamp (&neg, 1), ==, MXL_UNDEFINED_INDEX);
  g_assert_cmpuint (mxlTimestampToIndex (&neg, 1), ==, MXL_UNDEFINED_INDEX);
  g_assert_cmpuint (mxlTimestampToIndex (&dneg, 1), ==, MXL_UNDEFINED_INDEX);
  /* timestamps are int64: the last one converts, the next is undefined */
  g_assert_cmpuint (mxlTimestampToIndex (&r50, INT64_MAX), ==,
      461168601843ull);
  g_assert_cmpuint (mxlTimestampToIndex (&r50, (uint64_t) INT64_MAX + 1), ==,
      MXL_UNDEFINED_INDEX);
  g_assert_cmpuint (mxlTimestampToIndex (&r50, UINT64_MAX - 1), ==,
      MXL_UNDEFINED_INDEX);
  /* an index past UINT64_MAX saturates instead of wrapping */
  g_assert_cmpuint (mxlTimestampToIndex (&fast, INT64_MAX), ==,
      MXL_UNDEFINED_INDEX);
  /* a time beyond INT64_MAX is undefined: the last index that fits, and
   * the next one; huge products (index * den > 2^97) too */
  g_assert_cmpuint (mxlIndexToTimestamp (&r50, 461168601842ull), ==,
      9223372036840000000ull);
  g_assert_cmpuint (mxlIndexToTimestamp (&r50, 461168601843ull), ==,
      MXL_UNDEFINED_INDEX);
  g_assert_cmpuint (mxlIndexToTimestamp (&r50, UINT64_MAX - 1), ==,
      MXL_UNDEFINED_INDEX);
  g_assert_cmpuint (mxlIndexToTimestamp (&fine, UINT64_MAX - 1), ==,
      MXL_UNDEFINED_INDEX);
  /* §5.2 [Q]: a zero timestamp for a nonzero index stays undefined */
  g_assert_cmpuint (mxlIndexToTimestamp (&big, 1), ==, MXL_UNDEFINED_INDEX);
  g_assert_cmpuint (mxlIndexToTimestamp (&big, 0), ==, 0);
}

static void
test_now (void)
{
  struct timespec tai;
  uint64_t now, idx, ts, until;

  g_assert_cmpint (clock_gettime (CLOCK_TAI, &tai), ==, 0);
  now = mxlGetTime ();
  /* mxlGetTime is CLOCK_TAI: within a second of our own read */
  g_assert_cmpuint (now / 1000000000u, >=, (uint64_t) tai.tv_sec);
  g_assert_cmpuint (now / 1000000000u, <=, (uint64_t) tai.tv_sec + 1);
  idx = mxlGetCurrentIndex (&r30);
  ts = mxlIndexToTimestamp (&r30, idx);
  now = mxlGetTime ();
  g_assert_cmpuint (now > ts ? now - ts : ts - now, <, 33366667);
  until = mxlGetNsUntilIndex (idx + 33, &r30);
  g_assert_cmpuint (until, >, 0);
  g_assert_cmpuint (until, <=, 34 * 33366667ull);
  g_assert_cmpuint (mxlGetNsUntilIndex (idx - 100, &r30), ==, 0);
}

static void
test_sleep (void)
{
  uint64_t t0 = mxlGetTime (), t1;

  mxlSleepForNs (5000000);
  t1 = mxlGetTime ();
  g_assert_cmpuint (t1 - t0, >=, 5000000);
  mxlSleepUntil (t1 + 3000000);
  g_assert_cmpuint (mxlGetTime (), >=, t1 + 3000000);
  /* a past deadline returns at once */
  t0 = mxlGetTime ();
  mxlSleepUntil (t0 - 1000000000);
  g_assert_cmpuint (mxlGetTime () - t0, <, 500000000);
}

static void
test_is_tmpfs (void)
{
  bool tmpfs = false;

  g_assert_cmpint (mxlIsTmpFs (NULL, &tmpfs), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlIsTmpFs ("/dev/shm", NULL), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlIsTmpFs ("/nonexistent/mxl/path", &tmpfs), !=, MXL_STATUS_OK);
  g_assert_cmpint (mxlIsTmpFs ("/dev/shm", &tmpfs), ==, MXL_STATUS_OK);
  g_assert_true (tmpfs);
}

static void
test_version (void)
{
  mxlVersionType v;

  g_assert_cmpint (mxlGetVersion (NULL), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlGetVersion (&v), ==, MXL_STATUS_OK);
  g_assert_nonnull (v.full);
  {
    char *s = g_strdup_printf ("%u.%u.%u", v.major, v.minor, v.bugfix);
    g_assert_cmpstr (s, ==, v.full);
    g_free (s);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/time/examples", test_examples);
  g_test_add_func ("/time/round-trips", test_round_trips);
  g_test_add_func ("/time/invalid-rates", test_invalid_rates);
  g_test_add_func ("/time/edges", test_edges);
  g_test_add_func ("/time/now", test_now);
  g_test_add_func ("/time/sleep", test_sleep);
  g_test_add_func ("/time/is-tmpfs", test_is_tmpfs);
  g_test_add_func ("/time/version", test_version);
  return g_test_run ();
}
