/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The 32-bit immediate data of grain transfers (docs/wire-format.md §2.1)
 * and the checks a target applies to it and to the grain header the
 * initiator wrote. Both come from the network and are untrusted.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

/** Returns: the immediate data `slot | (slice_end << 16)`; @slot < 65536. */
static inline uint32_t
mxl_imm_grain_encode (uint32_t slot, uint16_t slice_end)
{
  return (slot & 0xFFFFu) | ((uint32_t) slice_end << 16);
}

typedef enum MxlImmCheck {
  MXL_IMM_OK,
  MXL_IMM_BAD_SLOT,      /* slot >= grain count */
  MXL_IMM_BAD_SLICES,    /* slice end > totalSlices */
  MXL_IMM_BAD_HIGH_BITS, /* bits 32..63 set: not a value we (or the reference) send */
} MxlImmCheck;

/**
 * mxl_imm_grain_decode:
 * @data: the 64-bit CQ data of a completion.
 * @grain_count: N, slots of the local ring.
 * @total_slices: T of the local flow.
 * @out_slot, @out_slices: (out): decoded fields (set even when invalid).
 */
MxlImmCheck mxl_imm_grain_decode (uint64_t data, uint32_t grain_count,
    uint16_t total_slices, uint32_t *out_slot, uint16_t *out_slices);

typedef enum MxlHeaderCheck {
  MXL_HEADER_OK,
  MXL_HEADER_BAD_INDEX,     /* index mod N != slot */
  MXL_HEADER_BAD_GEOMETRY,  /* grainSize or totalSlices differ from the flow's */
} MxlHeaderCheck;

/**
 * mxl_grain_header_check:
 * @header: the slot's mxlGrainInfo bytes (at least 28 readable).
 * @out_index: (out): the header's grain index (set even when invalid).
 *
 * Reads index (offset 8), grainSize (20) and totalSlices (24) once each.
 */
MxlHeaderCheck mxl_grain_header_check (const uint8_t *header, uint32_t slot,
    uint32_t grain_count, uint32_t grain_size, uint16_t total_slices,
    uint64_t *out_index);
