/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Immediate data and grain header validation (docs/wire-format.md §2.1, §3.3). */
#include "fabrics/wire/immdata.h"

#include <string.h>

MxlImmCheck
mxl_imm_grain_decode (uint64_t data, uint32_t grain_count,
    uint16_t total_slices, uint32_t *out_slot, uint16_t *out_slices)
{
  *out_slot = (uint32_t) (data & 0xFFFFu);
  *out_slices = (uint16_t) ((data >> 16) & 0xFFFFu);
  if (data >> 32)
    return MXL_IMM_BAD_HIGH_BITS;
  if (*out_slot >= grain_count)
    return MXL_IMM_BAD_SLOT;
  if (*out_slices > total_slices)
    return MXL_IMM_BAD_SLICES;
  return MXL_IMM_OK;
}

MxlHeaderCheck
mxl_grain_header_check (const uint8_t *header, uint32_t slot,
    uint32_t grain_count, uint32_t grain_size, uint16_t total_slices,
    uint64_t *out_index)
{
  uint64_t index;
  uint32_t size;
  uint16_t slices;

  /* The slot may be rewritten by the network at any time: copy each field
   * once and decide on the copies. */
  memcpy (&index, header + 8, sizeof (index));
  memcpy (&size, header + 20, sizeof (size));
  memcpy (&slices, header + 24, sizeof (slices));
  *out_index = index;
  if (grain_count == 0 || index % grain_count != slot)
    return MXL_HEADER_BAD_INDEX;
  if (size != grain_size || slices != total_slices)
    return MXL_HEADER_BAD_GEOMETRY;
  return MXL_HEADER_OK;
}
