/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Grain geometry as the transport sees it (docs/wire-format.md §3.3) and the
 * splitting of a transfer into remote writes by the provider's iov_limit and
 * max_msg_size. Pure arithmetic: no libfabric, no allocation.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

/** Offset of the payload in a grain slot: the 8192-byte grain header. */
#define MXL_LAYOUT_HEADER_SIZE 8192u
#define MXL_LAYOUT_MAX_PLANES 4u
/** Most local iovecs one write may gather (iov_limit is clamped to this). */
#define MXL_LAYOUT_MAX_IOV 8u

/**
 * MxlGrainLayout:
 * @slice_sizes: bytes per slice of each plane (0 = plane unused).
 * @total_slices: T, slices per plane in a complete grain.
 * @grain_size: payload bytes (without the header).
 * @slot_size: bytes of a grain slot: header + payload.
 */
typedef struct MxlGrainLayout {
  uint32_t slice_sizes[MXL_LAYOUT_MAX_PLANES];
  uint16_t total_slices;
  uint64_t grain_size;
  uint64_t slot_size;
} MxlGrainLayout;

void mxl_grain_layout_init (MxlGrainLayout *layout,
    const uint32_t slice_sizes[MXL_LAYOUT_MAX_PLANES], uint16_t total_slices,
    uint64_t grain_size);

/** Returns: the number of planes with a non-zero slice size (§8.3 U4). */
guint mxl_layout_active_planes (const uint32_t slice_sizes[MXL_LAYOUT_MAX_PLANES]);

/** Returns: byte offset of plane @plane in the slot:
 * 8192 + Σ_{q<plane} slice_sizes[q] · T (§3.3 base(p)). */
uint64_t mxl_layout_plane_offset (const MxlGrainLayout *layout, guint plane);

/** Returns: TRUE for a slice range with @start <= @end (§8.3 U8). */
gboolean mxl_layout_slice_range_valid (uint16_t start, uint16_t end);

/** Returns: bytes of slices [@start, @end) of a plane: (end - start) · slice. */
uint64_t mxl_layout_slice_range_size (uint16_t start, uint16_t end,
    uint32_t slice_size);

/** Returns: byte offset of slice @start of a plane starting at @plane_base. */
uint64_t mxl_layout_slice_offset (uint16_t start, uint64_t plane_base,
    uint32_t slice_size);

/** One contiguous byte range of a slot; grains use the same offset on both
 * sides. */
typedef struct MxlRun {
  uint64_t offset;
  uint64_t length;
} MxlRun;

/**
 * mxl_layout_grain_runs:
 * @start, @end: slice range [start, end), end <= T; @header_only sends just
 *   the 8192-byte header (grains flagged invalid).
 * @runs: (out caller-allocates): up to MXL_LAYOUT_MAX_PLANES runs.
 *
 * Whole grain ([0, T)): one run (0, slot_size). Otherwise one run per active
 * plane (§3.3 table): plane 0 includes the header when start is 0.
 * Zero-length runs are dropped. An empty range [a, a) with a > 0 becomes
 * one run over slice a - 1 of plane 0 (already valid, sent again) so that
 * the immediate data travels on a non-empty write: zero-length writes never
 * complete on libfabric 1.17 shm.
 *
 * Returns: the number of runs (>= 1), or 0 for an invalid range.
 */
guint mxl_layout_grain_runs (const MxlGrainLayout *layout, uint16_t start,
    uint16_t end, gboolean header_only, MxlRun runs[MXL_LAYOUT_MAX_PLANES]);

/**
 * MxlSplitter:
 * Walks a scatter-gather list of local pieces destined for one contiguous
 * remote range, and cuts it into writes of at most @iov_limit pieces and
 * @max_msg bytes each. Initialise with mxl_splitter_init().
 */
typedef struct MxlSplitter {
  const MxlRun *pieces;
  guint n_pieces;
  uint32_t iov_limit;
  uint64_t max_msg;
  guint index;          /* current piece */
  uint64_t offset;      /* bytes of the current piece already taken */
  uint64_t done;        /* bytes of the whole list already taken */
  gboolean emitted;     /* at least one write produced */
} MxlSplitter;

/** One write: local iovecs (offsets into the local region) and the offset
 * of its first byte relative to the start of the remote range. */
typedef struct MxlChunk {
  guint n_iov;
  MxlRun iov[MXL_LAYOUT_MAX_IOV];
  uint64_t remote_offset;
  uint64_t length;
  gboolean last;        /* no more writes follow for this list */
} MxlChunk;

/**
 * mxl_splitter_init:
 * @iov_limit: >= 1; clamped to MXL_LAYOUT_MAX_IOV.
 * @max_msg: >= 1 bytes per write.
 */
void mxl_splitter_init (MxlSplitter *splitter, const MxlRun *pieces,
    guint n_pieces, uint32_t iov_limit, uint64_t max_msg);

/**
 * mxl_splitter_next:
 * Returns: TRUE with the next write in @out, FALSE when the list is done.
 * A list of only zero-length pieces yields exactly one zero-length write.
 */
gboolean mxl_splitter_next (MxlSplitter *splitter, MxlChunk *out);

/** Returns: the number of writes mxl_splitter_next() produces for the list. */
guint mxl_splitter_count (const MxlRun *pieces, guint n_pieces,
    uint32_t iov_limit, uint64_t max_msg);
