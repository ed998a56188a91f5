/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The audio bounce ring of continuous flows (docs/wire-format.md §4): entry
 * geometry from the flow's batch size, the fragments of a (headIndex, count)
 * batch in a channel ring, the initiator's scatter-gather list (entry header,
 * then each channel's one or two ring fragments) cut into writes by
 * iov_limit and max_msg_size, and the target's unpack into its own rings.
 * Pure arithmetic and memcpy: no libfabric, no allocation.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "fabrics/wire/layout.h"

/** Bytes of an entry header: u64 headIndex, u64 count, little-endian (§4.2). */
#define MXL_BOUNCE_HEADER_SIZE 16u

/**
 * MxlSampleRing:
 * Geometry of a flow's channel rings: @channels rings of @length samples of
 * @word_size bytes, back to back (channel c at byte c · length · word_size).
 */
typedef struct MxlSampleRing {
  uint32_t channels;      /* C */
  uint64_t length;        /* L, samples per channel ring */
  uint32_t word_size;     /* S, bytes per sample */
} MxlSampleRing;

/**
 * mxl_bounce_geometry:
 * @batch: samples per channel of one entry (the target flow's
 *   maxSyncBatchSizeHint, §4.1), >= 1.
 * @out_count: (out): entries, ceil(L / batch).
 * @out_size: (out): bytes per entry, 16 + C · S · batch.
 * Returns: FALSE when a value is zero or the sizes overflow.
 */
gboolean mxl_bounce_geometry (const MxlSampleRing *ring, uint64_t batch,
    uint64_t *out_count, uint64_t *out_size);

/** Returns: samples per channel an entry of @entry_size bytes holds. */
uint64_t mxl_bounce_capacity (const MxlSampleRing *ring, uint64_t entry_size);

/** One run of samples in a channel ring: first position and length. */
typedef struct MxlSampleRun {
  uint64_t position;
  uint64_t count;
} MxlSampleRun;

/**
 * mxl_samples_fragments:
 * @head: one past the newest sample; @count: samples per channel (1 .. L).
 * @out: (out caller-allocates): two runs; samples head - count .. head - 1
 *   at positions (head + L - count) mod L onwards, split where the ring wraps.
 * Returns: 1 or 2 (a zero-size second fragment is omitted), 0 for count 0
 * or count > L.
 */
guint mxl_samples_fragments (uint64_t ring_length, uint64_t head, uint64_t count,
    MxlSampleRun out[2]);

/** Writes (head, count) little-endian into @header (16 bytes). */
void mxl_bounce_header_write (uint8_t *header, uint64_t head, uint64_t count);

/** Reads (head, count) from a little-endian entry header (16 bytes). */
void mxl_bounce_header_read (const uint8_t *header, uint64_t *head, uint64_t *count);

/**
 * mxl_bounce_unpack:
 * @payload: channel-major samples: for each channel, @count samples in
 *   chronological order (count · S bytes per channel).
 * @rings: the target's channel rings (C · L · S bytes).
 *
 * Copies channel by channel into positions recomputed from (@head, @count)
 * with the target's own ring length (§4.4), fragment 0 then fragment 1.
 * Nothing else is written. Returns: FALSE (nothing written) for count 0 or
 * count > L.
 */
gboolean mxl_bounce_unpack (const MxlSampleRing *ring, uint8_t *rings,
    const uint8_t *payload, uint64_t head, uint64_t count);

/**
 * mxl_bounce_pack:
 * @rings: the initiator's channel rings (C · L · S bytes).
 * @payload: (out caller-allocates): C · @count · S bytes.
 *
 * The inverse of mxl_bounce_unpack(): copies samples @head - @count ..
 * @head - 1 of every channel, fragment 0 then fragment 1, into the
 * channel-major payload of a bounce entry (§4.2), exactly the bytes the
 * scatter-gather list of §4.3 would put on the wire after the header.
 * Returns: FALSE (nothing written) for count 0 or count > L.
 */
gboolean mxl_bounce_pack (const MxlSampleRing *ring, const uint8_t *rings,
    uint8_t *payload, uint64_t head, uint64_t count);

/**
 * mxl_bounce_entry_check:
 * @capacity: samples per channel one entry holds (mxl_bounce_capacity()).
 * @head, @count: an entry header as read from the bounce ring (untrusted:
 *   written by the initiator, §4.2).
 *
 * The target's check before it copies an entry out: count <= @capacity
 * (§4.4 step 2), and ours on top: count >= 1, count <= L / 2 (a batch of
 * more than half the ring could not be told from a lapped one), and head >=
 * count (no sample before index 0).
 * Returns: TRUE when (@head, @count) may be passed to mxl_bounce_unpack().
 */
gboolean mxl_bounce_entry_check (const MxlSampleRing *ring, uint64_t capacity,
    uint64_t head, uint64_t count);

/** Which local memory an SGL piece lives in. */
typedef enum MxlSgRegion {
  MXL_SG_HEADER = 0,      /* the entry header slot */
  MXL_SG_CHANNELS = 1,    /* the initiator's channel rings */
  MXL_SG_STAGING = 2,     /* a packed entry (header + payload) in a staging slot */
} MxlSgRegion;

typedef struct MxlSgIov {
  MxlSgRegion region;
  uint64_t offset;        /* bytes into the region (header slot: 0..15) */
  uint64_t length;
} MxlSgIov;

/** One write of a batch: local pieces, and where it lands in the entry. */
typedef struct MxlSgChunk {
  guint n_iov;
  MxlSgIov iov[MXL_LAYOUT_MAX_IOV];
  uint64_t remote_offset; /* bytes from the start of the entry */
  uint64_t length;
  gboolean last;          /* the write that carries the immediate data */
} MxlSgChunk;

/**
 * MxlSamplesSgl:
 * The scatter-gather list of one batch from the initiator's rings (§4.3):
 * piece 0 is the 16-byte header; then for c = 0..C-1 the fragment(s) of
 * channel c. Pieces are produced on demand (no list is stored), and cut
 * into chunks of at most @iov_limit pieces and @max_msg bytes.
 */
typedef struct MxlSamplesSgl {
  MxlSampleRing ring;
  gboolean staged;        /* one piece: the packed entry in a staging slot */
  guint n_frags;
  MxlSampleRun frags[2];
  uint32_t iov_limit;
  uint64_t max_msg;
  /* walker */
  guint piece;            /* current piece index */
  uint64_t taken;         /* bytes of the current piece already emitted */
  uint64_t done;          /* bytes of the whole list emitted */
  uint64_t total;         /* 16 + C · S · count */
} MxlSamplesSgl;

/**
 * mxl_samples_sgl_init:
 * @iov_limit: >= 1, clamped to MXL_LAYOUT_MAX_IOV; @max_msg: >= 1.
 * Returns: FALSE for count 0 or count > L.
 */
gboolean mxl_samples_sgl_init (MxlSamplesSgl *sgl, const MxlSampleRing *ring,
    uint64_t head, uint64_t count, uint32_t iov_limit, uint64_t max_msg);

/**
 * mxl_samples_sgl_init_staged:
 * @total: bytes of the packed entry (16 + C · S · count), >= 16.
 * @max_msg: >= 1.
 *
 * A list of one piece, the whole entry packed in a staging slot
 * (MXL_SG_STAGING, offset 0): one write when @total <= @max_msg, else cut
 * at @max_msg bytes. The bytes on the wire are those of the list of
 * mxl_samples_sgl_init() for the same batch.
 */
void mxl_samples_sgl_init_staged (MxlSamplesSgl *sgl, uint64_t total, uint64_t max_msg);

/** Returns: pieces of the list, 1 + C · (1 or 2), or 1 when staged. */
guint mxl_samples_sgl_pieces (const MxlSamplesSgl *sgl);

/** Returns: TRUE with the next write in @out, FALSE when the list is done. */
gboolean mxl_samples_sgl_next (MxlSamplesSgl *sgl, MxlSgChunk *out);
