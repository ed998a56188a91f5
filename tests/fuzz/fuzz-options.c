/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: the setup options parser (mxl_setup_options_parse, options.h),
 * whose input is user-supplied JSON.
 *
 * Properties checked for every input: MXL_STATUS_OK or MXL_ERR_INVALID_ARG
 * with a G_IO_ERROR_INVALID_DATA error; on success every value is inside its
 * documented range (cqDepth 1..MXL_MAX_CQ_DEPTH, iovLimit 0 or
 * 1..MXL_MAX_IOV_LIMIT, postRingCapacity a power of two in
 * 2..MXL_MAX_POST_RING_CAPACITY); on failure the output holds the
 * defaults.
 */
#include "fuzz.h"

#include "fabrics/protocol/options.h"
#include "fabrics/protocol/protocol.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = fuzz_strndup (data, size);
  MxlSetupOptions opts, defaults;
  GError *error = NULL;
  mxlStatus st;

  mxl_setup_options_defaults (&defaults);
  st = mxl_setup_options_parse (text, &opts, &error);
  if (st != MXL_STATUS_OK) {
    g_assert_cmpint (st, ==, MXL_ERR_INVALID_ARG);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    g_error_free (error);
    g_assert_cmpuint (opts.cq_depth, ==, defaults.cq_depth);
    g_assert_cmpuint (opts.post_ring_capacity, ==, defaults.post_ring_capacity);
    return 0;
  }
  g_assert_no_error (error);
  g_assert_cmpuint (opts.cq_depth, >=, 1);
  g_assert_cmpuint (opts.cq_depth, <=, MXL_MAX_CQ_DEPTH);
  g_assert_cmpuint (opts.iov_limit, <=, MXL_MAX_IOV_LIMIT);
  g_assert_cmpuint (opts.post_ring_capacity, >=, 2);
  g_assert_cmpuint (opts.post_ring_capacity, <=, MXL_MAX_POST_RING_CAPACITY);
  g_assert_cmpuint (opts.post_ring_capacity & (opts.post_ring_capacity - 1), ==, 0);
  if (opts.protocol_set)
    g_assert_true (opts.protocol != NULL
        && mxl_protocol_lookup (opts.protocol->name) == opts.protocol);
  return 0;
}
