/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Flow definition parser (NMOS IS-04 flow JSON, docs/flow-format.md §2) and derived
 * geometry (§2.5). Internal to the library; used by the flow writer and
 * the fabrics engine (to compare geometry). Applications, the GStreamer
 * elements among them, reach it through mxlFlowExtParseDefinition() and
 * mxlFlowExtBuildDefinition() of <mxl/flow-ext.h> (flowdef-api.c).
 */
#pragma once

#include <stdint.h>

#include <glib.h>

#include <mxl/dataformat.h>
#include <mxl/rational.h>

G_BEGIN_DECLS

#define MXL_FLOW_DEF_ERROR (mxl_flow_def_error_quark ())
GQuark mxl_flow_def_error_quark (void);

/** Error codes of MXL_FLOW_DEF_ERROR. */
typedef enum {
  MXL_FLOW_DEF_ERROR_JSON,       /* not JSON, or the root is not an object */
  MXL_FLOW_DEF_ERROR_MISSING,    /* a required field is absent */
  MXL_FLOW_DEF_ERROR_TYPE,       /* a field has the wrong JSON type */
  MXL_FLOW_DEF_ERROR_VALUE,      /* a field's value is out of range or unsupported */
} MxlFlowDefError;

/** Media types this library creates and opens. */
typedef enum {
  MXL_MEDIA_TYPE_V210 = 1,       /* video/v210 */
  MXL_MEDIA_TYPE_V210A,          /* video/v210a: fill plane, then key plane */
  MXL_MEDIA_TYPE_SMPTE291,       /* video/smpte291: 4096-byte ANC data grains */
  MXL_MEDIA_TYPE_FLOAT32,        /* audio/float32 */
} MxlMediaType;

typedef enum {
  MXL_INTERLACE_PROGRESSIVE = 0,
  MXL_INTERLACE_TFF,
  MXL_INTERLACE_BFF,
} MxlInterlaceMode;

/**
 * MxlFlowDef:
 * A parsed, validated flow definition with its history-independent geometry.
 */
typedef struct MxlFlowDef {
  uint8_t id[16];                /* RFC 4122 byte order */
  char id_text[37];              /* lowercase canonical UUID text */
  mxlDataFormat format;
  MxlMediaType media_type;
  mxlRational def_rate;          /* grain_rate or sample_rate as given, normalised */
  mxlRational rate;              /* edit rate stored in the flow (field rate when interlaced) */

  /* video */
  uint32_t width;                /* pixels */
  uint32_t height;               /* lines of a frame */
  MxlInterlaceMode interlace;
  char colorspace[16];           /* "colorspace" as written, cut; "BT709" when absent */
  char transfer[16];             /* "transfer_characteristic" as written, cut; "SDR" when absent */

  /* discrete (VIDEO, DATA) */
  uint32_t slice_sizes[4];       /* bytes per slice of each plane */
  uint32_t total_slices;         /* slices per grain (lines per grain or field; 4096 for data) */
  uint32_t grain_size;           /* payload bytes */

  /* continuous (AUDIO) */
  uint32_t channel_count;        /* C */
  uint32_t bit_depth;            /* 32 */
  uint32_t sample_word_size;     /* W = bit_depth / 8 */
} MxlFlowDef;

/**
 * mxl_flow_def_parse:
 * @json: NUL-terminated flow definition text.
 * @out: (out): filled on success; untouched fields are zero.
 * @error: (nullable): on failure an MXL_FLOW_DEF_ERROR whose message names
 *   the field, e.g. "flow definition: frame_height: 1081 must be even for
 *   interlaced video".
 *
 * Applies every rule of docs/flow-format.md §2.1–§2.3 plus ours (§7.3): rates <= 0
 * rejected, only bit_depth 32 and media_type audio/float32 for audio,
 * totalSlices <= 65535.
 *
 * Returns: TRUE when @json is a valid definition this library supports.
 */
gboolean mxl_flow_def_parse (const char *json, MxlFlowDef *out, GError **error);

/**
 * mxl_flow_def_parse_form:
 * As mxl_flow_def_parse() without our rate ranges (flow-ext.h
 * MXL_FLOW_MIN_GRAIN_RATE_DEN … MXL_FLOW_MAX_SAMPLE_RATE): rates must still
 * be positive integers, and interlaced video 30000/1001 or 25/1. What
 * applications parse and build (mxlFlowExtParseDefinition(),
 * mxlFlowExtBuildDefinition()): the flow writer checks the rate with the
 * domain's history, naming both in one reason.
 */
gboolean mxl_flow_def_parse_form (const char *json, MxlFlowDef *out, GError **error);

/**
 * mxl_flow_def_grain_count:
 * @history_ns: history duration D in ns (200 000 000 by default).
 *
 * Returns: N = (D * num) div (1e9 * den) for a discrete definition; 0 for
 * audio or when N would be 0 (such a flow must not be created).
 */
uint32_t mxl_flow_def_grain_count (const MxlFlowDef *def, uint64_t history_ns);

/**
 * mxl_flow_def_buffer_length:
 * Returns: L in samples per channel: (D * num) div (5e8 * den) rounded up to
 * a multiple of 4096 / W; 0 for discrete definitions or overflow.
 */
uint32_t mxl_flow_def_buffer_length (const MxlFlowDef *def, uint64_t history_ns);

/**
 * mxl_flow_def_default_batch_hint:
 * Returns: default maxCommitBatchSizeHint = maxSyncBatchSizeHint (§2.5):
 * totalSlices (discrete) or num div (100 * den) (10 ms of audio, at least 1).
 */
uint32_t mxl_flow_def_default_batch_hint (const MxlFlowDef *def);

/**
 * mxl_uuid_parse:
 * @text: 8-4-4-4-12 hex UUID text, any case.
 * @out_bytes: (out) (nullable): 16 bytes in RFC 4122 order.
 * @out_lower: (out) (nullable): 37-byte buffer for the lowercase text.
 *
 * Returns: TRUE for valid UUID text.
 */
gboolean mxl_uuid_parse (const char *text, uint8_t out_bytes[16], char out_lower[37]);

G_END_DECLS
