/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Poll naps of targets whose CQ has no wait object (src/fabrics/ofi/pollnap.h):
 * exact nap lengths away from, at the edge of and inside the window around
 * the grain expected next, and after grains that did not come.
 */
#include <glib.h>

#include "fabrics/ofi/pollnap.h"

#define T0 G_GINT64_CONSTANT (1000000)

/* No period (continuous flows): the plain back-off, reset by a grain. */
static void
test_backoff_without_period (void)
{
  static const guint want[] = { 50, 100, 200, 400, 800, 1000, 1000 };
  MxlPollNap nap;
  guint i;

  mxl_poll_nap_init (&nap, 0);
  for (i = 0; i < G_N_ELEMENTS (want); i++)
    g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + i), ==, want[i]);
  mxl_poll_nap_arrived (&nap, T0 + 10);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 20), ==, 50);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 20 + 16666), ==, 100);
}

/* 60 Hz (period 16666 us, half window 2083 us), last grain at T0: the
 * window is [T0 + 14583, T0 + 18749). */
static void
test_window_60hz (void)
{
  MxlPollNap nap;
  guint i;

  mxl_poll_nap_init (&nap, 16666);
  g_assert_cmpint (nap.half_window_us, ==, 2083);
  /* Before any grain: plain back-off. */
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 - 5000), ==, 50);
  mxl_poll_nap_arrived (&nap, T0);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 100), ==, 50);
  for (i = 0; i < 5; i++)
    mxl_poll_nap_next (&nap, T0 + 200);
  g_assert_cmpuint (nap.backoff_us, ==, 1000);
  /* Far from the window: the full back-off. */
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 5000), ==, 1000);
  /* A nap that would cross into the window ends at its start. */
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 14000), ==, 583);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 14582), ==, 1);
  /* Inside the window: short naps, first to last microsecond. */
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 14583), ==, 100);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 16666), ==, 100);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 18748), ==, 100);
  /* Past it without a grain: the next window is one period later,
   * [T0 + 31249, T0 + 35415). */
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 18749), ==, 1000);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 30500), ==, 749);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 31249), ==, 100);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 35414), ==, 100);
  /* The last window kept: around T0 + 4 * 16666, up to T0 + 68746. */
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 4 * 16666 - 2083), ==, 100);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 4 * 16666 + 2082), ==, 100);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 4 * 16666 - 2084), ==, 1);
  /* Then the stream counts as stopped: plain back-off, no more windows. */
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 4 * 16666 + 2083), ==, 1000);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 5 * 16666), ==, 1000);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 11 * 16666), ==, 1000);
  /* A grain re-anchors the window and restarts the back-off. */
  mxl_poll_nap_arrived (&nap, T0 + 40000);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 40010), ==, 50);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 40000 + 16666), ==, 100);
}

/* A short period: the half window is at least 1 ms. */
static void
test_short_period (void)
{
  MxlPollNap nap;

  mxl_poll_nap_init (&nap, 4000);
  g_assert_cmpint (nap.half_window_us, ==, 1000);
  mxl_poll_nap_arrived (&nap, T0);
  mxl_poll_nap_next (&nap, T0 + 1);
  mxl_poll_nap_next (&nap, T0 + 1);
  /* backoff is 200 now; the window starts at T0 + 3000 */
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 2900), ==, 100);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 3000), ==, 100);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 4999), ==, 100);
  /* [T0 + 5000, T0 + 7000) is outside: back-off 1000 capped at the next
   * window start. */
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 5000), ==, 1000);
  g_assert_cmpuint (mxl_poll_nap_next (&nap, T0 + 6500), ==, 500);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pollnap/backoff-without-period", test_backoff_without_period);
  g_test_add_func ("/pollnap/window-60hz", test_window_60hz);
  g_test_add_func ("/pollnap/short-period", test_short_period);
  return g_test_run ();
}
