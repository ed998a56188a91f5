/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MXL flow readers and writers (docs/flow-format.md §1, §4, §5, §6). A flow is a
 * ring of grains (VIDEO, DATA: "discrete") or of per-channel sample rings
 * (AUDIO: "continuous") in a domain directory on tmpfs, shared between
 * processes by memory mapping. Names, types, constants and status values
 * follow the MXL SDK (mxl/flow.h) for the subset docs/flow-format.md §6.2 marks [F].
 *
 * Units used below: indices are absolute grain indices (discrete) or sample
 * indices (continuous) at the flow's edit rate (see <mxl/time.h>); sample
 * counts are samples per channel; sizes are bytes; timeouts are nanoseconds.
 *
 * Sample-index convention (§5.5, decision (A), end-exclusive): a request
 * (index I, count n) covers samples I - n … I - 1; sample k lives in ring slot
 * k mod L; after committing (I, n) the head index is I.
 *
 * Threading: a reader or writer handle is used by one thread at a time.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mxl/flowinfo.h>
#include <mxl/mxl.h>
#include <mxl/platform.h>

/** Grain flag: the grain carries no usable content but moves the ring on;
 * readers get MXL_STATUS_OK for it whatever validSlices says (§4.6). */
#define MXL_GRAIN_FLAG_INVALID 0x00000001

/** minValidSlices value: any number of valid slices will do. */
#define MXL_GRAIN_VALID_SLICES_ANY ((uint16_t) 0)

/** minValidSlices value: all slices (validSlices == totalSlices). */
#define MXL_GRAIN_VALID_SLICES_ALL ((uint16_t) UINT16_MAX)

/** Byte offset of the payload in a grain file / slot mapping (§3.9). */
#define MXL_GRAIN_PAYLOAD_OFFSET 8192

#ifdef __cplusplus
extern "C" {
#endif

/** Read-only bytes: @pointer, @size in bytes (16 bytes, §3.14). */
typedef struct mxlBufferSlice_t {
  void const *pointer;
  size_t size;
} mxlBufferSlice;

/** Writable bytes: @pointer, @size in bytes. */
typedef struct mxlMutableBufferSlice_t {
  void *pointer;
  size_t size;
} mxlMutableBufferSlice;

/** A byte range in a ring that may wrap: fragment 0, then fragment 1
 * (size 0 when the range does not wrap; its pointer is then the ring base). */
typedef struct mxlWrappedBufferSlice_t {
  mxlBufferSlice fragments[2];
} mxlWrappedBufferSlice;

/** Writable variant of mxlWrappedBufferSlice. */
typedef struct mxlMutableWrappedBufferSlice_t {
  mxlMutableBufferSlice fragments[2];
} mxlMutableWrappedBufferSlice;

/**
 * mxlWrappedMultiBufferSlice:
 * @base: the range in channel 0's ring.
 * @stride: bytes from a position in one channel's ring to the same position
 *   in the next (L * W).
 * @count: number of channels (C). Channel c uses fragments[k].pointer + c * stride.
 */
typedef struct mxlWrappedMultiBufferSlice_t {
  mxlWrappedBufferSlice base;
  size_t stride;
  size_t count;
} mxlWrappedMultiBufferSlice;

/** Writable variant of mxlWrappedMultiBufferSlice. */
typedef struct mxlMutableWrappedMultiBufferSlice_t {
  mxlMutableWrappedBufferSlice base;
  size_t stride;
  size_t count;
} mxlMutableWrappedMultiBufferSlice;

/**
 * mxlGrainInfo: (4096 bytes, at offset 0 of every grain file, §3.9)
 * @version: 1. @size: 4096.
 * @index: absolute grain index last opened or committed in this slot.
 * @flags: MXL_GRAIN_FLAG_INVALID or 0.
 * @grainSize: payload bytes.
 * @totalSlices: slices of a complete grain (lines per grain, 4096 for data).
 * @validSlices: slices 0 … validSlices - 1 are committed.
 */
typedef struct mxlGrainInfo_t {
  uint32_t version;
  uint32_t size;
  uint64_t index;
  uint32_t flags;
  uint32_t grainSize;
  uint16_t totalSlices;
  uint16_t validSlices;
  uint8_t reserved[4068];
} mxlGrainInfo;

#ifndef __cplusplus
_Static_assert (sizeof (mxlGrainInfo) == 4096, "mxlGrainInfo is 4096 bytes");
_Static_assert (offsetof (mxlGrainInfo, index) == 8, "grain index at 8");
_Static_assert (offsetof (mxlGrainInfo, flags) == 16, "grain flags at 16");
_Static_assert (offsetof (mxlGrainInfo, grainSize) == 20, "grainSize at 20");
_Static_assert (offsetof (mxlGrainInfo, totalSlices) == 24, "totalSlices at 24");
_Static_assert (offsetof (mxlGrainInfo, validSlices) == 26, "validSlices at 26");
_Static_assert (sizeof (mxlBufferSlice) == 16, "mxlBufferSlice is 16 bytes");
_Static_assert (sizeof (mxlWrappedBufferSlice) == 32, "wrapped slice is 32 bytes");
_Static_assert (sizeof (mxlWrappedMultiBufferSlice) == 48, "multi slice is 48 bytes");
_Static_assert (sizeof (mxlMutableWrappedMultiBufferSlice) == 48, "multi slice is 48 bytes");
#endif

/** Opaque reader handle; owned by its instance, freed by mxlReleaseFlowReader(). */
typedef struct mxlFlowReader_t *mxlFlowReader;
/** Opaque writer handle; owned by its instance, freed by mxlReleaseFlowWriter(). */
typedef struct mxlFlowWriter_t *mxlFlowWriter;
/** Opaque synchronisation group handle (not implemented by this library). */
typedef struct mxlFlowSynchronizationGroup_t *mxlFlowSynchronizationGroup;

/**
 * mxlCreateFlowWriter:
 * @instance: the instance whose domain holds the flow.
 * @flowDef: NMOS IS-04 flow JSON (§2); stored byte-for-byte in flow_def.json.
 *   Supported media types: video/v210, video/v210a, video/smpte291,
 *   audio/float32 (bit_depth 32).
 * @options: (nullable): JSON object with maxCommitBatchSizeHint and
 *   maxSyncBatchSizeHint (slices or samples, >= 1, sync a multiple of commit).
 * @writer: (out) (transfer full): the writer; release with mxlReleaseFlowWriter().
 *   A second call for the same id in one instance returns the same handle
 *   with its reference count raised.
 * @configInfo: (out) (optional): the flow's actual config (the stored
 *   geometry when the flow already existed).
 * @created: (out) (optional): true when this call created the flow.
 *
 * Creates the flow under a temporary name and publishes it by rename (§1.4),
 * or opens an existing one (§1.5). Unlike the reference, opening an existing
 * flow whose geometry differs from @flowDef fails (§7.3).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL arguments or an
 * invalid definition (deviation from the reference's MXL_ERR_UNKNOWN; the
 * reason, naming the field, is logged with g_warning; this library's
 * limits are in flow-ext.h: grain_rate 1/MXL_FLOW_MIN_GRAIN_RATE_DEN …
 * MXL_FLOW_MAX_GRAIN_RATE, sample_rate up to MXL_FLOW_MAX_SAMPLE_RATE, a ring
 * of at most MXL_FLOW_MAX_GRAIN_COUNT grains and MXL_FLOW_MAX_RING_BYTES
 * bytes from the domain's history); MXL_ERR_UNKNOWN for
 * invalid @options (as the reference, §1.9); MXL_ERR_CONFLICT
 * when an existing flow of that id has another geometry or kind;
 * MXL_ERR_PERMISSION_DENIED (EACCES, EPERM, EROFS on the domain);
 * MXL_ERR_UNKNOWN for other file system errors. A failure leaves no files.
 */
MXL_EXPORT mxlStatus mxlCreateFlowWriter (mxlInstance instance, char const *flowDef,
    char const *options, mxlFlowWriter *writer, mxlFlowConfigInfo *configInfo,
    bool *created);

/**
 * mxlReleaseFlowWriter:
 * Drops one reference. On the last one the mappings and locks are released
 * and, when no other writer in any process holds the flow, its directory is
 * deleted (§1.10). An open grain or sample range is cancelled.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL;
 * MXL_ERR_INVALID_FLOW_WRITER when @writer does not belong to @instance.
 */
MXL_EXPORT mxlStatus mxlReleaseFlowWriter (mxlInstance instance, mxlFlowWriter writer);

/**
 * mxlCreateFlowReader:
 * @flowId: UUID text (any case; the directory name is lowercase).
 * @options: (nullable): ignored.
 * @reader: (out) (transfer full): the reader; release with
 *   mxlReleaseFlowReader(). Same flow twice in one instance: same handle.
 *
 * Maps the flow read-only (§1.6). Readers never lock and never write shared
 * memory.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG (NULL, bad UUID);
 * MXL_ERR_FLOW_NOT_FOUND (no such flow); MXL_ERR_PERMISSION_DENIED;
 * MXL_ERR_UNKNOWN (unknown layout version, truncated files, W != 4).
 */
MXL_EXPORT mxlStatus mxlCreateFlowReader (mxlInstance instance, char const *flowId,
    char const *options, mxlFlowReader *reader);

/**
 * mxlReleaseFlowReader:
 * Drops one reference; unmaps on the last one.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL;
 * MXL_ERR_INVALID_FLOW_READER when @reader does not belong to @instance.
 */
MXL_EXPORT mxlStatus mxlReleaseFlowReader (mxlInstance instance, mxlFlowReader reader);

/**
 * mxlIsFlowActive:
 * @isActive: (out): true when some process holds a writer lock on the flow's
 *   `data` (probe with flock (LOCK_EX | LOCK_NB), §1.7).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG (NULL, bad UUID);
 * MXL_ERR_FLOW_NOT_FOUND when `data` cannot be opened.
 */
MXL_EXPORT mxlStatus mxlIsFlowActive (mxlInstance instance, char const *flowId,
    bool *isActive);

/**
 * mxlGetFlowDef:
 * @buffer: (nullable): receives flow_def.json plus a terminating NUL.
 * @bufferSize: (inout): bytes available in @buffer; on success the bytes
 *   written including the NUL.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for a NULL instance, id or
 * size pointer, or a bad UUID (size unchanged), and for a NULL or too small
 * @buffer (then *@bufferSize = length + 1); MXL_ERR_FLOW_NOT_FOUND (size
 * unchanged); MXL_ERR_UNKNOWN when the file cannot be read.
 */
MXL_EXPORT mxlStatus mxlGetFlowDef (mxlInstance instance, char const *flowId,
    char *buffer, size_t *bufferSize);

/** Copies the 2048-byte flow header (not atomic as a whole).
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL. */
MXL_EXPORT mxlStatus mxlFlowReaderGetInfo (mxlFlowReader reader, mxlFlowInfo *info);

/** Copies the 192-byte config block.
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL. */
MXL_EXPORT mxlStatus mxlFlowReaderGetConfigInfo (mxlFlowReader reader,
    mxlFlowConfigInfo *info);

/** Copies the runtime block (head index, last write/read time in TAI ns).
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL. */
MXL_EXPORT mxlStatus mxlFlowReaderGetRuntimeInfo (mxlFlowReader reader,
    mxlFlowRuntimeInfo *info);

/**
 * mxlFlowReaderGetGrain:
 * @index: absolute grain index.
 * @timeoutNs: longest wait in ns (0: one check, no sleep).
 * @grain: (out): copy of the slot header.
 * @payload: (out) (transfer none): payload in the read-only slot mapping
 *   (grainSize bytes), valid until the writer reuses the slot a lap later.
 *
 * Waits for a complete grain (validSlices == totalSlices) or one flagged
 * MXL_GRAIN_FLAG_INVALID (§5.4, §4.4). On OK the `access` file is touched.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_OUT_OF_RANGE_TOO_LATE (slot reused);
 * MXL_ERR_OUT_OF_RANGE_TOO_EARLY (not there when the timeout expired; never
 * MXL_ERR_TIMEOUT); MXL_ERR_FLOW_INVALID (the flow was deleted or recreated:
 * release and reopen); MXL_ERR_INVALID_ARG (NULL);
 * MXL_ERR_INVALID_FLOW_READER (continuous flow).
 */
MXL_EXPORT mxlStatus mxlFlowReaderGetGrain (mxlFlowReader reader, uint64_t index,
    uint64_t timeoutNs, mxlGrainInfo *grain, uint8_t **payload);

/**
 * mxlFlowReaderGetGrainSlice:
 * @minValidSlices: MXL_GRAIN_VALID_SLICES_ANY, MXL_GRAIN_VALID_SLICES_ALL, or
 *   a slice count v (min (v, totalSlices) is required).
 *
 * As mxlFlowReaderGetGrain() for a partial grain. Same status codes.
 */
MXL_EXPORT mxlStatus mxlFlowReaderGetGrainSlice (mxlFlowReader reader, uint64_t index,
    uint16_t minValidSlices, uint64_t timeoutNs, mxlGrainInfo *grain,
    uint8_t **payload);

/** Single check of mxlFlowReaderGetGrain(): same status codes, never waits. */
MXL_EXPORT mxlStatus mxlFlowReaderGetGrainNonBlocking (mxlFlowReader reader,
    uint64_t index, mxlGrainInfo *grain, uint8_t **payload);

/** Single check of mxlFlowReaderGetGrainSlice(): same status codes. */
MXL_EXPORT mxlStatus mxlFlowReaderGetGrainSliceNonBlocking (mxlFlowReader reader,
    uint64_t index, uint16_t minValidSlices, mxlGrainInfo *grain,
    uint8_t **payload);

/**
 * mxlFlowWriterGetGrainInfo:
 * @mxlGrainInfo: (out): copy of the header of slot @index mod N (no window
 *   check).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG (NULL);
 * MXL_ERR_INVALID_FLOW_WRITER (continuous flow).
 */
MXL_EXPORT mxlStatus mxlFlowWriterGetGrainInfo (mxlFlowWriter writer, uint64_t index,
    mxlGrainInfo *mxlGrainInfo);

/**
 * mxlFlowWriterOpenGrain:
 * @index: absolute grain index; slot = index mod N (no range check).
 * @mxlGrainInfo: (out): copy of the slot header after storing @index in it.
 *   validSlices and flags are NOT reset (they may come from the previous lap
 *   or a remote fabrics write, §4.2): set them before committing.
 * @payload: (out) (transfer none): writable payload (grainSize bytes).
 *
 * Makes @index the current grain (replacing any other open grain).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG (NULL);
 * MXL_ERR_INVALID_FLOW_WRITER (continuous flow).
 */
MXL_EXPORT mxlStatus mxlFlowWriterOpenGrain (mxlFlowWriter writer, uint64_t index,
    mxlGrainInfo *mxlGrainInfo, uint8_t **payload);

/** Forgets the current grain; nothing in shared memory is undone.
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG (NULL);
 * MXL_ERR_INVALID_FLOW_WRITER (continuous flow). */
MXL_EXPORT mxlStatus mxlFlowWriterCancelGrain (mxlFlowWriter writer);

/**
 * mxlFlowWriterCommitGrain:
 * @grain: header to publish; grain->index must be the current grain. Its
 *   validSlices (<= totalSlices) and flags are stored; version, size,
 *   grainSize and totalSlices are forced to the flow's values.
 *
 * Publishes the slot header, sets the head index to grain->index, stores
 * lastWriteTime and wakes every waiting reader in any process. The grain
 * stays open for further partial commits until validSlices == totalSlices.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG (NULL, no open grain, index
 * mismatch, validSlices > totalSlices); MXL_ERR_INVALID_FLOW_WRITER.
 */
MXL_EXPORT mxlStatus mxlFlowWriterCommitGrain (mxlFlowWriter writer,
    mxlGrainInfo const *grain);

/** @maxReadLength: (out): L div 2, samples per channel.
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG; MXL_ERR_INVALID_FLOW_READER
 * (discrete flow). */
MXL_EXPORT mxlStatus mxlFlowReaderGetMaxReadLengthSamples (mxlFlowReader reader,
    size_t *maxReadLength);

/**
 * mxlFlowReaderGetSamples:
 * @index: one past the newest sample wanted (convention (A)).
 * @count: samples per channel, 1 … L div 2.
 * @timeoutNs: longest wait in ns.
 * @payloadBuffersSlices: (out): the read-only ranges (§5.5).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_OUT_OF_RANGE_TOO_EARLY (index > head when
 * the timeout expired); MXL_ERR_OUT_OF_RANGE_TOO_LATE (overwritten, or count
 * > L div 2); MXL_ERR_FLOW_INVALID; MXL_ERR_INVALID_ARG (NULL, count 0);
 * MXL_ERR_INVALID_FLOW_READER (discrete flow).
 */
MXL_EXPORT mxlStatus mxlFlowReaderGetSamples (mxlFlowReader reader, uint64_t index,
    size_t count, uint64_t timeoutNs,
    mxlWrappedMultiBufferSlice *payloadBuffersSlices);

/** Single check of mxlFlowReaderGetSamples(): same status codes. */
MXL_EXPORT mxlStatus mxlFlowReaderGetSamplesNonBlocking (mxlFlowReader reader,
    uint64_t index, size_t count,
    mxlWrappedMultiBufferSlice *payloadBuffersSlices);

/** @maxWriteLength: (out): L div 2, samples per channel.
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG; MXL_ERR_INVALID_FLOW_WRITER. */
MXL_EXPORT mxlStatus mxlFlowWriterGetMaxWriteLengthSamples (mxlFlowWriter writer,
    size_t *maxWriteLength);

/**
 * mxlFlowWriterOpenSamples:
 * @index: one past the last sample to write: opening (k0 + n, n) writes
 *   samples k0 … k0 + n - 1 (convention (A)).
 * @count: samples per channel, 1 … L div 2.
 * @payloadBuffersSlices: (out): writable ranges into the channel rings.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG (NULL, count 0 or > L div 2);
 * MXL_ERR_INVALID_FLOW_WRITER (discrete flow).
 */
MXL_EXPORT mxlStatus mxlFlowWriterOpenSamples (mxlFlowWriter writer, uint64_t index,
    size_t count, mxlMutableWrappedMultiBufferSlice *payloadBuffersSlices);

/** Forgets the open range. Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG;
 * MXL_ERR_INVALID_FLOW_WRITER. */
MXL_EXPORT mxlStatus mxlFlowWriterCancelSamples (mxlFlowWriter writer);

/** Sets the head index to the open range's index, updates lastWriteTime and
 * wakes readers. Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG (NULL, nothing
 * open: unlike the reference the head is left alone);
 * MXL_ERR_INVALID_FLOW_WRITER. */
MXL_EXPORT mxlStatus mxlFlowWriterCommitSamples (mxlFlowWriter writer);

#ifdef __cplusplus
}
#endif
