/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Extensions of this library beyond the MXL SDK API (not in the reference).
 *
 * Private domains: a flow that nobody else needs to find by domain path (for
 * example a GStreamer element given no domain) lives in a fresh domain
 * directory `<parent>/mxl-private-<pid>-<random>` that is removed when it is
 * destroyed. The owning process holds a flock on `<dir>/.mxl-private-owner`
 * for the domain's lifetime; a later mxlPrivateDomainCreate() (or
 * mxlPrivateDomainCleanStale()) removes private domains of the same user
 * whose owner lock is free (owner exited or crashed), so a crash leaks at
 * most until the next start.
 *
 * ANC data: conversion between GStreamer's SMPTE ST 2038 buffers and the
 * RFC 8331 payload of `video/smpte291` data grains (docs/anc-data.md).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mxl/flow.h>
#include <mxl/mxl.h>
#include <mxl/platform.h>

/** Default parent directory of private domains (tmpfs on Linux). */
#define MXL_PRIVATE_DOMAIN_PARENT "/dev/shm"

/** Most channels (channel_count) of an audio flow this library creates or
 * opens: our limit, the flow definition sets none (docs/flow-format.md §2.3). A
 * plain literal, so that it can be stringified into static caps. */
#define MXL_FLOW_MAX_CHANNELS 1024

/* Rates this library creates or parses flows of (our limits; the flow
 * definition sets none, docs/flow-format.md §2.2). Plain literals, so that they
 * can be stringified into static caps. */
/** Lowest grain_rate of a video or data flow: 1/MXL_FLOW_MIN_GRAIN_RATE_DEN,
 * one grain an hour. */
#define MXL_FLOW_MIN_GRAIN_RATE_DEN 3600
/** Highest grain_rate of a video or data flow, in grains per second. */
#define MXL_FLOW_MAX_GRAIN_RATE 1000
/** Highest sample_rate of an audio flow, in samples per second (8 x 96 kHz);
 * the lowest is what the domain's history allows (mxlCreateFlowWriter()). */
#define MXL_FLOW_MAX_SAMPLE_RATE 768000
/** Lowest sample_rate of an audio flow in a domain of the default history
 * (200 ms): its ring needs at least one sample of history
 * (docs/flow-format.md §2.5, L0 = history x rate / 5e8 >= 1). A longer
 * history allows lower rates, a shorter one needs higher ones
 * (mxlCreateFlowWriter() names the bound); what the elements' caps
 * templates allow. */
#define MXL_FLOW_MIN_SAMPLE_RATE 3

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque private domain handle. */
typedef struct mxlPrivateDomain_t *mxlPrivateDomain;

/**
 * mxlPrivateDomainCreate:
 * @in_parent: (nullable): existing directory to create the domain in; NULL
 *   means MXL_PRIVATE_DOMAIN_PARENT.
 * @out_domain: (out) (transfer full): destroy with mxlPrivateDomainDestroy().
 *
 * Removes stale private domains under @in_parent first (see
 * mxlPrivateDomainCleanStale()), then creates a new empty domain directory
 * (mode 0700) and takes its owner lock. Pass mxlPrivateDomainGetPath() to
 * mxlCreateInstance().
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG (NULL @out_domain, parent not a
 * directory); MXL_ERR_PERMISSION_DENIED (parent not writable);
 * MXL_ERR_UNKNOWN (other file system errors).
 */
MXL_EXPORT mxlStatus mxlPrivateDomainCreate (char const *in_parent,
    mxlPrivateDomain *out_domain);

/**
 * mxlPrivateDomainGetPath:
 * Returns: (transfer none) (nullable): absolute path of the domain
 * directory, valid until mxlPrivateDomainDestroy(); NULL for NULL.
 */
MXL_EXPORT char const *mxlPrivateDomainGetPath (mxlPrivateDomain in_domain);

/**
 * mxlPrivateDomainDestroy:
 * Deletes the domain directory recursively (flows in it included; readers'
 * existing mappings stay valid) and frees the handle. Destroy instances that
 * use the domain first.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL; MXL_ERR_UNKNOWN when
 * the directory could not be removed completely (the handle is freed anyway).
 */
MXL_EXPORT mxlStatus mxlPrivateDomainDestroy (mxlPrivateDomain in_domain);

/**
 * mxlPrivateDomainCleanStale:
 * @in_parent: (nullable): as for mxlPrivateDomainCreate().
 * @out_removed: (out) (optional): number of domains removed.
 *
 * Removes every `mxl-private-*` directory under @in_parent owned by the
 * calling user whose owner lock can be taken (its process is gone). Domains
 * of live processes and of other users are left alone.
 *
 * Returns: MXL_STATUS_OK (best effort); MXL_ERR_INVALID_ARG when @in_parent
 * cannot be listed.
 */
MXL_EXPORT mxlStatus mxlPrivateDomainCleanStale (char const *in_parent,
    unsigned int *out_removed);

/** Fewest grains mxlCreateFlowWriterWithGrainCount() gives a discrete flow
 * when asked for the domain's history: a writer and a reader need a slot
 * each, plus one being transferred and one of margin. */
#define MXL_FLOW_MIN_GRAIN_COUNT 4

/** Most grains of the ring of a discrete flow this library creates (each is
 * a file, an open descriptor and a mapping). A plain literal (property
 * ranges use it). */
#define MXL_FLOW_MAX_GRAIN_COUNT 4096

/** Most bytes of the grain ring (grains x grain size) or channel buffer of
 * a flow this library creates: 4 GiB, two seconds of 8K v210 at 50 fps. */
#define MXL_FLOW_MAX_RING_BYTES (UINT64_C (4) << 30)

/**
 * mxlCreateFlowWriterWithGrainCount:
 * @in_grainCount: slots of the ring of a discrete flow this call creates;
 *   0 = from the domain's history (docs/flow-format.md §2.5), but at least
 *   MXL_FLOW_MIN_GRAIN_COUNT, so that rates below 5 Hz (which the 200 ms
 *   default history would give no grain, and mxlCreateFlowWriter()
 *   refuses) get a usable ring. Ignored for continuous (audio) flows.
 *
 * As mxlCreateFlowWriter() otherwise; a flow that already exists keeps its
 * ring (read the actual grainCount from @configInfo).
 *
 * Returns: as mxlCreateFlowWriter(); MXL_ERR_INVALID_ARG also when the
 *   ring of @in_grainCount grains would hold more than 2^63 ns, or has more
 *   than MXL_FLOW_MAX_GRAIN_COUNT grains or MXL_FLOW_MAX_RING_BYTES bytes
 *   (mxlGetLastErrorMessage() names the count, the rate and the limit).
 */
MXL_EXPORT mxlStatus mxlCreateFlowWriterWithGrainCount (mxlInstance instance,
    char const *flowDef, char const *options, uint32_t in_grainCount,
    mxlFlowWriter *writer, mxlFlowConfigInfo *configInfo, bool *created);

/**
 * mxlGetLastErrorMessage:
 *
 * Why the last mxlCreateFlowWriter() of the calling thread failed: a flow
 * definition it refused, naming the field and its allowed range
 * ("flow definition: channel_count: 100000 is not an integer in 1 … 1024",
 * "flow definition: grain_rate: rate 1/2 is too low for a 200000000 ns
 * history (at least 5 per second)"), or a system error (creating, sizing or
 * publishing the flow's files): "<domain>: cannot build flow <id>: No space
 * left on device (...)" with a hint for the common causes (full domain file
 * system, open file limit). The status codes alone (MXL_ERR_INVALID_ARG,
 * MXL_ERR_UNKNOWN) cannot carry it.
 * Also why the last mxlFabricsTargetSetup() or mxlFabricsInitiatorSetup()
 * of the calling thread failed, as libfabric or the validation of the
 * config said it, e.g. "fi_passive_ep: Address already in use (-98)" or
 * "service \"80000\" is not a port number in 0 … 65535".
 * Thread-local; cleared when mxlCreateFlowWriter() or a fabrics setup
 * starts.
 *
 * Returns: (transfer none) (nullable): the message, valid until the next
 * of those calls in this thread; NULL when there is none.
 */
MXL_EXPORT char const *mxlGetLastErrorMessage (void);

/**
 * mxlAncStats:
 * @packets: packets written to the output.
 * @badParity: packets dropped: bits 8-9 of DID, SDID or Data_Count are not
 *   the parity of bits 0-7 (SMPTE ST 291-1; docs/anc-data.md).
 * @badChecksum: packets dropped: the checksum word is not the sum of the
 *   packet's words.
 * @malformed: packets dropped because they cannot be read: cut short by the
 *   end of the input or the RFC 8331 Length, nonzero ST 2038 leading bits or
 *   zero stuffing bits, ANC_Count packets beyond the Length.
 *
 * What one conversion did; every packet of the input is in exactly one of
 * the four counts (an ST 2038 buffer whose framing is lost counts the rest
 * of it as one malformed packet).
 */
typedef struct mxlAncStats_t {
  uint32_t packets;
  uint32_t badParity;
  uint32_t badChecksum;
  uint32_t malformed;
} mxlAncStats;

/** Bytes of the RFC 8331 header at the start of a data grain payload:
 * Length (16 bits), ANC_Count (8), F (2) and reserved (22). */
#define MXL_ANC_GRAIN_HEADER_SIZE 6

/** Most packets one RFC 8331 payload holds (ANC_Count is 8 bits). */
#define MXL_ANC_MAX_PACKETS 255

/**
 * mxlAncGrainFromSt2038:
 * @in: (array length=in_size) (nullable): an SMPTE ST 2038 bitstream: zero
 *   or more ANC packets back to back, optionally followed by 0xFF stuffing
 *   bytes; NULL only with @in_size 0.
 * @out: (array length=out_capacity): where the RFC 8331 payload is written,
 *   from its Length field on (a `video/smpte291` grain payload, docs/flow-format.md
 *   §3.10): Length, ANC_Count, F = 0, then each packet with S = 0 and
 *   StreamNum = 0, its parity bits and checksum computed, padded with zero
 *   bits to 32 bits. Must not overlap @in.
 * @out_capacity: bytes available at @out (MXL_DATA_FORMAT_GRAIN_SIZE for a
 *   grain).
 * @out_size: (out): bytes of payload written (6 + Length); on
 *   MXL_ERR_STRLEN the bytes the payload would need.
 * @stats: (out) (optional): what was converted and dropped.
 *
 * Converts one frame of ANC data from GStreamer's `meta/x-st-2038` layout
 * into the RFC 8331 payload of an MXL data grain. Packets whose DID, SDID or
 * Data_Count parity or whose checksum is wrong, and packets cut short, are
 * dropped and counted in @stats; the others keep their order. Layouts and
 * rules: docs/anc-data.md.
 *
 * Returns: MXL_STATUS_OK (also when packets were dropped: see @stats);
 * MXL_ERR_INVALID_ARG (NULL @out or @out_size, NULL @in with @in_size > 0);
 * MXL_ERR_STRLEN when the payload does not fit @out_capacity (or 65535 + 6
 * bytes) or has more than MXL_ANC_MAX_PACKETS packets: nothing usable is in
 * @out, nothing is cut; @out_size and @stats->packets give the need.
 */
MXL_EXPORT mxlStatus mxlAncGrainFromSt2038 (uint8_t const *in, size_t in_size,
    uint8_t *out, size_t out_capacity, size_t *out_size, mxlAncStats *stats);

/**
 * mxlAncGrainToSt2038:
 * @in: (array length=in_size): an RFC 8331 payload from its Length field
 *   (a `video/smpte291` grain payload, docs/flow-format.md §3.10); bytes after
 *   6 + Length are not read.
 * @out: (array length=out_capacity): where the ST 2038 bitstream is
 *   written: the packets back to back, each padded with one bits to a byte.
 *   Must not overlap @in.
 * @out_capacity: bytes at @out; @in_size bytes always suffice (an ST 2038
 *   packet is never longer than its RFC 8331 form).
 * @out_size: (out): bytes written (0 when no packet is left); on
 *   MXL_ERR_STRLEN the bytes needed.
 * @stats: (out) (optional): what was converted and dropped.
 *
 * Converts a data grain, typically received from the network, back into
 * one `meta/x-st-2038` buffer. Everything is validated: a Length beyond
 * @in_size drops every packet (malformed); a packet that runs past Length
 * drops it and the ones after it (malformed); a packet whose DID, SDID or
 * Data_Count parity or whose checksum is wrong is dropped (badParity,
 * badChecksum) and the next one read. S, StreamNum and F have no ST 2038
 * field and are not kept. Layouts and rules: docs/anc-data.md.
 *
 * Returns: MXL_STATUS_OK (also when packets were dropped: see @stats);
 * MXL_ERR_INVALID_ARG (NULL @in, @out or @out_size, @in_size < 6);
 * MXL_ERR_STRLEN when the result does not fit @out_capacity.
 */
MXL_EXPORT mxlStatus mxlAncGrainToSt2038 (uint8_t const *in, size_t in_size,
    uint8_t *out, size_t out_capacity, size_t *out_size, mxlAncStats *stats);

/* ---- flow definitions (docs/flow-format.md §2) ---- */

/* Picture size limits of a video flow (docs/flow-format.md §2.3). Plain literals,
 * so that they can be stringified into static caps. */
/** Narrowest frame_width, in pixels. */
#define MXL_FLOW_MIN_WIDTH 2
/** Widest frame_width, in pixels: DCI 8K (8192). The MXL reference bounds
 * it at 7680 only to keep a bad document from allocating unbounded memory;
 * the flow layout stores slice (line) and grain sizes as uint32
 * (docs/flow-format.md §2.5, §3.5, §3.9), and 8192 x 4320 fits them easily:
 * a v210 line is 21 888 bytes, a v210a grain (fill and key planes)
 * 141 747 840 bytes, 3 % of UINT32_MAX. A flow wider than 7680 is not
 * opened by a reference reader. */
#define MXL_FLOW_MAX_WIDTH 8192
/** Lowest frame_height, in lines. */
#define MXL_FLOW_MIN_HEIGHT 1
/** Highest frame_height, in lines. */
#define MXL_FLOW_MAX_HEIGHT 4320

/** Media types of the flows this library creates and opens (docs/flow-format.md §2.3). */
typedef enum mxlFlowExtMediaType {
  MXL_FLOW_EXT_MEDIA_NONE = 0,
  MXL_FLOW_EXT_MEDIA_V210 = 1,      /* video/v210 */
  MXL_FLOW_EXT_MEDIA_V210A = 2,     /* video/v210a: fill plane, then key plane */
  MXL_FLOW_EXT_MEDIA_SMPTE291 = 3,  /* video/smpte291: 4096-byte ANC data grains */
  MXL_FLOW_EXT_MEDIA_FLOAT32 = 4,   /* audio/float32 */
} mxlFlowExtMediaType;

/** Scanning of a video flow ("interlace_mode", docs/flow-format.md §2.3). */
typedef enum mxlFlowExtInterlace {
  MXL_FLOW_EXT_PROGRESSIVE = 0,
  MXL_FLOW_EXT_INTERLACED_TFF = 1,  /* one field per grain, top field first */
  MXL_FLOW_EXT_INTERLACED_BFF = 2,  /* one field per grain, bottom field first */
} mxlFlowExtInterlace;

/** Bytes of mxlFlowExtDefinition.colorspace, its NUL included. */
#define MXL_FLOW_EXT_COLORSPACE_SIZE 16

/**
 * mxlFlowExtDefinition:
 * @id: the flow's "id" as lowercase UUID text (NUL-terminated); "" when
 *   building asks for a random one.
 * @format: VIDEO, AUDIO or DATA; follows from @mediaType.
 * @mediaType: the "media_type".
 * @definitionRate: "grain_rate" (the FRAME rate of interlaced video) or
 *   "sample_rate" as written, reduced by its gcd.
 * @editRate: the rate of the flow's index: grains per second, FIELDS per
 *   second (2 x @definitionRate) for interlaced video, samples per second
 *   for audio. Derived.
 * @width, @height: video "frame_width" in pixels, "frame_height" in lines
 *   of a FRAME (also when interlaced); 0 otherwise.
 * @interlace: video "interlace_mode" (progressive when absent).
 * @colorspace: video "colorspace" as written, cut to 15 bytes; "BT709" when
 *   the definition has none (the IS-04 default); "" otherwise. Not
 *   validated: the flow carries it as a label.
 * @transferCharacteristic: video "transfer_characteristic" as written,
 *   cut to 15 bytes; "SDR" when the definition has none (the IS-04
 *   default); "" otherwise. A label too, like @colorspace.
 * @grainSize: payload bytes of one grain: V(w) x S (v210), (V(w) + A(w)) x
 *   S (v210a), 4096 (data), 0 (audio); S = @totalSlices. Derived.
 * @totalSlices: slices of one grain: the lines of a frame, of a field when
 *   interlaced, 4096 for data; 0 for audio. Derived.
 * @sliceSizes: bytes of one slice of each plane: {V(w), A(w) or 0} for
 *   video, {1, 0} for data, {0, 0} for audio. Derived.
 * @channelCount: audio "channel_count" (1 … MXL_FLOW_MAX_CHANNELS); 0 otherwise.
 * @bitDepth: audio "bit_depth" (always 32); 0 otherwise. Derived.
 *
 * What a flow definition says, in the units the flow uses: the one
 * summary of docs/flow-format.md §2.1-§2.5 that writers, readers and
 * applications (the GStreamer elements) share.
 */
typedef struct mxlFlowExtDefinition_t {
  char id[37];
  mxlDataFormat format;
  mxlFlowExtMediaType mediaType;
  mxlRational definitionRate;
  mxlRational editRate;
  uint32_t width;
  uint32_t height;
  mxlFlowExtInterlace interlace;
  char colorspace[MXL_FLOW_EXT_COLORSPACE_SIZE];
  uint32_t grainSize;
  uint32_t totalSlices;
  uint32_t sliceSizes[2];
  uint32_t channelCount;
  uint32_t bitDepth;
  char transferCharacteristic[MXL_FLOW_EXT_COLORSPACE_SIZE];
} mxlFlowExtDefinition;

/**
 * mxlFlowExtParseDefinition:
 * @in_flowDef: NUL-terminated NMOS IS-04 flow resource JSON.
 * @out_def: (out): the summary, every field set; untouched on failure.
 * @out_reason: (out) (transfer full) (nullable): on failure why the
 *   definition was refused, naming the field, e.g. "flow definition:
 *   frame_height: 1081 must be even for interlaced video" (free with
 *   free(3)); NULL to ignore.
 *
 * Applies the rules this library creates flows by (docs/flow-format.md §2.1-§2.3
 * and ours, §7.3), with the parser of mxlCreateFlowWriter(): a UUID id,
 * format, a non-empty label, a non-empty grouphint tag array of
 * "group:role[:device|node]", rates that are positive integers, the
 * picture size limits above, media_type v210 or v210a (video), smpte291
 * (data), float32 with bit_depth 32 and 1 … MXL_FLOW_MAX_CHANNELS channels
 * (audio), interlaced video only at 30000/1001 or 25/1 with an even
 * height. The rate ranges (MXL_FLOW_MIN_GRAIN_RATE_DEN …
 * MXL_FLOW_MAX_GRAIN_RATE grains, up to MXL_FLOW_MAX_SAMPLE_RATE samples
 * per second) are left to mxlCreateFlowWriter(), which checks the rate
 * against the domain's history too and names rate, range and history in
 * mxlGetLastErrorMessage().
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL @in_flowDef or
 * @out_def, or a definition that breaks a rule.
 */
MXL_EXPORT mxlStatus mxlFlowExtParseDefinition (char const *in_flowDef,
    mxlFlowExtDefinition *out_def, char **out_reason);

/**
 * mxlFlowExtBuildDefinition:
 * @inout_def: what the flow is: @mediaType, @definitionRate, and for video
 *   @width, @height, @interlace, @colorspace ("" = BT709) and
 *   @transferCharacteristic ("" = SDR), for audio
 *   @channelCount; @id ("" = a random UUID). The other fields are ignored
 *   on input. On success every field is set as
 *   mxlFlowExtParseDefinition() sets it from the returned JSON.
 * @in_label: (nullable): non-empty "label" (also written as
 *   "description"); NULL writes "mxl-fabrics flow".
 * @in_groupHint: (nullable): the grouphint tag value, "group:role" or
 *   "group:role:device|node"; NULL writes "mxl-fabrics:flow".
 * @out_flowDef: (out) (transfer full) (nullable): compact flow JSON
 *   (free with free(3)); NULL to only check @inout_def and fill in the
 *   derived fields.
 * @out_reason: (out) (transfer full) (nullable): on failure, as for
 *   mxlFlowExtParseDefinition().
 *
 * Writes the NMOS flow resource (docs/flow-format.md §2.1-§2.3): id, label,
 * description, tags, format, parents, media_type and the rate; video adds
 * frame_width, frame_height, interlace_mode, colorspace,
 * transfer_characteristic and the 10-bit Y, Cb, Cr (and A for v210a)
 * components; audio adds bit_depth 32 and channel_count. The result is
 * checked by mxlFlowExtParseDefinition() (so the rate ranges are left to
 * mxlCreateFlowWriter()).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL @inout_def or a
 * definition that breaks a rule (the reason names the field).
 */
MXL_EXPORT mxlStatus mxlFlowExtBuildDefinition (mxlFlowExtDefinition *inout_def,
    char const *in_label, char const *in_groupHint, char **out_flowDef,
    char **out_reason);

/**
 * mxlFlowExtMediaTypeName:
 * Returns: (transfer none): "video/v210", "video/v210a", "video/smpte291",
 * "audio/float32"; "none" for any other value.
 */
MXL_EXPORT char const *mxlFlowExtMediaTypeName (mxlFlowExtMediaType in_mediaType);

/**
 * mxlFlowExtV210LineBytes:
 * @in_width: picture width in pixels.
 *
 * Returns: bytes of one `video/v210` line (the line stride of a grain),
 * V(w) = ((w + 47) / 48) x 128: six pixels in four 32-bit words, the line
 * padded to 48 pixels (128 bytes) (docs/flow-format.md §2.5).
 */
MXL_EXPORT uint32_t mxlFlowExtV210LineBytes (uint32_t in_width);

/**
 * mxlFlowExtV210aKeyLineBytes:
 * @in_width: picture width in pixels.
 *
 * Returns: bytes of one key (alpha) line of `video/v210a`,
 * A(w) = ((w + 2) / 3) x 4: three 10-bit samples per 32-bit word
 * (docs/flow-format.md §2.5).
 */
MXL_EXPORT uint32_t mxlFlowExtV210aKeyLineBytes (uint32_t in_width);

/**
 * mxlExtStatusName:
 * Returns: (transfer none): the name of @in_status without its prefix,
 * e.g. "OK", "INVALID_ARG", "FLOW_NOT_FOUND"; "UNKNOWN" for a value that
 * is not an mxlStatus.
 */
MXL_EXPORT char const *mxlExtStatusName (mxlStatus in_status);

#ifdef __cplusplus
}
#endif
