/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: a video/smpte291 grain from the network turned into an
 * ST 2038 buffer (mxlAncGrainToSt2038(), src/flow/anc.c, docs/anc-data.md),
 * as mxlfabricssrc does with every data grain it receives.
 *
 * Input: the grain payload (RFC 8331 from its Length field), at most 4096
 * bytes; shorter inputs are zero-padded to at least the 6-byte header.
 *
 * Properties: the conversion never fails with an output of the grain's
 * size; every one of the ANC_Count packets is converted or counted as
 * dropped, exactly once; the output is no longer than Length; and the
 * packets kept are valid: converting them to RFC 8331 and back drops
 * nothing and gives the same bytes.
 */
#include "fuzz.h"

#include <mxl/dataformat.h>
#include <mxl/flow-ext.h>

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  uint8_t grain[MXL_DATA_FORMAT_GRAIN_SIZE] = { 0 };
  uint8_t st[MXL_DATA_FORMAT_GRAIN_SIZE], again[MXL_DATA_FORMAT_GRAIN_SIZE];
  uint8_t st2[MXL_DATA_FORMAT_GRAIN_SIZE];
  size_t n = MIN (size, sizeof (grain)), in_size = MAX (n, 6);
  size_t st_size = 0, again_size = 0, st2_size = 0;
  mxlAncStats stats, stats2;

  memcpy (grain, data, n);
  g_assert_cmpint (mxlAncGrainToSt2038 (grain, in_size, st, in_size,
          &st_size, &stats), ==, MXL_STATUS_OK);
  g_assert_cmpuint (stats.packets + stats.badParity + stats.badChecksum +
      stats.malformed, ==, grain[2]);
  g_assert_cmpuint (st_size, <=, ((size_t) grain[0] << 8 | grain[1]));

  g_assert_cmpint (mxlAncGrainFromSt2038 (st, st_size, again, sizeof (again),
          &again_size, &stats2), ==, MXL_STATUS_OK);
  g_assert_cmpuint (stats2.packets, ==, stats.packets);
  g_assert_cmpuint (stats2.badParity + stats2.badChecksum + stats2.malformed,
      ==, 0);
  g_assert_cmpuint (again[2], ==, stats.packets);
  g_assert_cmpint (mxlAncGrainToSt2038 (again, again_size, st2, sizeof (st2),
          &st2_size, &stats2), ==, MXL_STATUS_OK);
  g_assert_cmpmem (st2, st2_size, st, st_size);
  return 0;
}
