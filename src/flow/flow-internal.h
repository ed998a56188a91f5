/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal accessors the fabrics engine needs from flow readers and writers
 * (docs/flow-format.md §6.3). Not exported from the shared library.
 *
 * Contract between src/flow/ (implements) and src/fabrics/ (uses).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <mxl/mxl.h>
#include <mxl/flow.h>

/** Offset of the grain payload inside a grain slot (MXL_GRAIN_PAYLOAD_OFFSET). */
#define MXL_GRAIN_HEADER_SIZE 8192u

/**
 * MxlFlowLayout:
 * Geometry of an open flow as the transport sees it. Filled from the flow
 * header actually mapped (the existing flow's geometry wins, §1.5).
 */
typedef struct MxlFlowLayout {
  mxlDataFormat format;          /* VIDEO, AUDIO or DATA */
  mxlRational rate;              /* normalised edit rate (field rate when interlaced) */
  uint32_t sync_batch_hint;      /* maxSyncBatchSizeHint: slices or samples */
  uint32_t commit_batch_hint;    /* maxCommitBatchSizeHint */

  /* discrete (VIDEO, DATA); zero for AUDIO */
  uint32_t grain_count;          /* N: slots in the ring */
  uint32_t slice_sizes[4];       /* bytes per slice of each plane, unused planes 0 */
  uint16_t total_slices;         /* slices in a complete grain */
  uint32_t grain_size;           /* payload bytes (no header) */

  /* continuous (AUDIO); zero for discrete */
  uint32_t channel_count;        /* C */
  uint32_t buffer_length;        /* L: samples per channel ring */
  uint32_t sample_word_size;     /* W: bytes per sample (4 for float32) */
} MxlFlowLayout;

/**
 * mxl_flow_writer_get_layout / mxl_flow_reader_get_layout:
 * Returns: MXL_STATUS_OK, MXL_ERR_INVALID_ARG for NULL arguments.
 */
mxlStatus mxl_flow_writer_get_layout (mxlFlowWriter writer, MxlFlowLayout *out);
mxlStatus mxl_flow_reader_get_layout (mxlFlowReader reader, MxlFlowLayout *out);

/**
 * mxl_flow_writer_grain_slot:
 * @slot: ring slot, 0 … grain_count - 1.
 * @out_length: (out): bytes of the slot mapping, 8192 + grain_size.
 *
 * Returns: (transfer none) (nullable): the read-write mapping of
 * `grains/data.<slot>` (mxlGrainInfo at offset 0, payload at 8192), valid
 * until the writer is released; NULL for a continuous flow or a slot out of
 * range.
 */
uint8_t *mxl_flow_writer_grain_slot (mxlFlowWriter writer, uint32_t slot,
    size_t *out_length);

/** Read-only variant for readers (the mapping is PROT_READ). */
const uint8_t *mxl_flow_reader_grain_slot (mxlFlowReader reader,
    uint32_t slot, size_t *out_length);

/**
 * mxl_flow_writer_channels:
 * @out_length: (out): bytes of the `channels` mapping, C * L * W.
 *
 * Returns: (transfer none) (nullable): the read-write mapping of the channel
 * rings (channel c at byte c * L * W); NULL for a discrete flow.
 */
uint8_t *mxl_flow_writer_channels (mxlFlowWriter writer, size_t *out_length);

/** Read-only variant for readers. */
const uint8_t *mxl_flow_reader_channels (mxlFlowReader reader,
    size_t *out_length);

/**
 * mxl_flow_writer_get_def / mxl_flow_reader_get_def:
 * Returns: (transfer none): the flow definition JSON text as stored in
 * flow_def.json (NUL-terminated), valid while the handle is held.
 */
const char *mxl_flow_writer_get_def (mxlFlowWriter writer);
const char *mxl_flow_reader_get_def (mxlFlowReader reader);
