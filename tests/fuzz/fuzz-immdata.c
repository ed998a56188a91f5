/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: the checks a target applies to what an initiator sends with
 * each grain (immdata.h, docs/wire-format.md §2.1 and §3.3): the 64-bit CQ data and
 * the grain header written into the slot.
 *
 * Input layout (shorter inputs are zero-padded): bytes 0-7 CQ data (LE),
 * 8-11 grain count N, 12-13 total slices T, 14-17 grain size, 18-45 the
 * 28-byte header (index at 8, grainSize at 20, totalSlices at 24).
 *
 * Properties: MXL_IMM_OK exactly when the high 32 bits are clear, slot < N
 * and slice end <= T, and then encoding (slot, slice end) gives back the low
 * 32 bits; the decoded fields are always the low and next 16 bits.
 * MXL_HEADER_OK exactly when N > 0, index mod N == slot and size/slices
 * match; the index is always reported.
 */
#include "fuzz.h"

#include "fabrics/wire/immdata.h"

#define INPUT_BYTES 46

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  uint8_t in[INPUT_BYTES] = { 0 };
  uint8_t header[28];
  uint64_t cq, index, want_index;
  uint32_t n, grain_size, slot, want_size;
  uint16_t t, slices, want_slices;
  MxlImmCheck ic;
  MxlHeaderCheck hc;

  memcpy (in, data, MIN (size, sizeof (in)));
  memcpy (&cq, in, 8);
  memcpy (&n, in + 8, 4);
  memcpy (&t, in + 12, 2);
  memcpy (&grain_size, in + 14, 4);
  memcpy (header, in + 18, sizeof (header));
  cq = GUINT64_FROM_LE (cq);

  ic = mxl_imm_grain_decode (cq, n, t, &slot, &slices);
  g_assert_cmpuint (slot, ==, cq & 0xFFFF);
  g_assert_cmpuint (slices, ==, (cq >> 16) & 0xFFFF);
  if (cq >> 32)
    g_assert_cmpint (ic, ==, MXL_IMM_BAD_HIGH_BITS);
  else if (slot >= n)
    g_assert_cmpint (ic, ==, MXL_IMM_BAD_SLOT);
  else if (slices > t)
    g_assert_cmpint (ic, ==, MXL_IMM_BAD_SLICES);
  else {
    g_assert_cmpint (ic, ==, MXL_IMM_OK);
    g_assert_cmpuint (mxl_imm_grain_encode (slot, slices), ==, (uint32_t) cq);
  }

  hc = mxl_grain_header_check (header, slot, n, grain_size, t, &index);
  memcpy (&want_index, header + 8, 8);
  memcpy (&want_size, header + 20, 4);
  memcpy (&want_slices, header + 24, 2);
  g_assert_cmpuint (index, ==, want_index);
  if (n == 0 || want_index % n != slot)
    g_assert_cmpint (hc, ==, MXL_HEADER_BAD_INDEX);
  else if (want_size != grain_size || want_slices != t)
    g_assert_cmpint (hc, ==, MXL_HEADER_BAD_GEOMETRY);
  else
    g_assert_cmpint (hc, ==, MXL_HEADER_OK);
  return 0;
}
