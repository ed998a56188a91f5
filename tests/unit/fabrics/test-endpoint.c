/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The result ring of the endpoint base (src/fabrics/protocol/endpoint.h),
 * which targets (read results) and initiators (transfer results) share:
 * exact indices, which pushes drop the oldest entry, and pop order.
 */
#include <glib.h>

#include "fabrics/protocol/endpoint.h"

#define RING_MAX MXL_FABRICS_EXT_RESULT_QUEUE_MAX

/* Fills the ring past its size: the first RING_MAX pushes keep everything, each
 * further one drops the oldest; what pops is the newest RING_MAX, oldest first. */
static void
test_result_ring_drops_oldest (void)
{
  MxlEndpoint ep = { 0 };
  uint64_t *values = g_new0 (uint64_t, RING_MAX);
  gboolean dropped;
  guint i, index = 0, n_dropped = 0;

  g_assert_false (mxl_endpoint_result_pop (&ep, &index));
  for (i = 0; i < RING_MAX + 3; i++) {
    index = mxl_endpoint_result_push (&ep, &dropped);
    g_assert_cmpuint (index, ==, i % RING_MAX);
    g_assert_cmpint (dropped, ==, i >= RING_MAX);
    values[index] = 1000 + i;
    n_dropped += dropped;
  }
  g_assert_cmpuint (n_dropped, ==, 3);
  g_assert_cmpuint (ep.res_len, ==, RING_MAX);
  g_assert_cmpuint (ep.res_head, ==, 3);
  for (i = 0; i < RING_MAX; i++) {
    g_assert_true (mxl_endpoint_result_pop (&ep, &index));
    g_assert_cmpuint (index, ==, (3 + i) % RING_MAX);
    g_assert_cmpuint (values[index], ==, 1003 + i);
  }
  g_assert_false (mxl_endpoint_result_pop (&ep, &index));
  g_assert_cmpuint (ep.res_len, ==, 0);
  g_free (values);
}

/* Interleaved: a pop frees a place, so the next push drops nothing and
 * lands where the ring wraps. */
static void
test_result_ring_interleaved (void)
{
  MxlEndpoint ep = { 0 };
  gboolean dropped;
  guint i, index = 0;

  for (i = 0; i < RING_MAX; i++)
    mxl_endpoint_result_push (&ep, &dropped);
  g_assert_true (mxl_endpoint_result_pop (&ep, &index));
  g_assert_cmpuint (index, ==, 0);
  g_assert_cmpuint (mxl_endpoint_result_push (&ep, &dropped), ==, 0);
  g_assert_false (dropped);
  g_assert_cmpuint (ep.res_head, ==, 1);
  g_assert_cmpuint (ep.res_len, ==, RING_MAX);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/endpoint/result-ring-drops-oldest", test_result_ring_drops_oldest);
  g_test_add_func ("/endpoint/result-ring-interleaved", test_result_ring_interleaved);
  return g_test_run ();
}
