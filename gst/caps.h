/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Caps <-> NMOS flow definition (docs/flow-format.md §2) and the grain geometry the
 * elements need to map buffers onto MXL grains and sample rings.
 *
 * Media handled, and how each one appears in caps:
 *
 * - `video/v210`, progressive:
 *     video/x-raw, format=v210, width=W, height=H, framerate=N/D,
 *     interlace-mode=progressive
 *   One buffer = one grain = H lines of V(W) bytes (the default GStreamer
 *   v210 stride is the MXL line length, so the bytes are identical).
 *
 * - `video/v210`, interlaced (flow interlace_mode interlaced_tff/_bff):
 *     video/x-raw(format:Interlaced), format=v210, width=W, height=H,
 *     framerate=N/D, interlace-mode=alternate,
 *     field-order=top-field-first|bottom-field-first
 *   Caps carry the frame height and the frame rate (flow grain_rate), as
 *   GStreamer's alternate mode and NMOS both do. The MXL edit rate is the
 *   field rate 2N/D, and each buffer/grain is one field of H/2 lines flagged
 *   GST_VIDEO_BUFFER_FLAG_TOP_FIELD or _BOTTOM_FIELD. Rules of §2.3: the frame
 *   rate must be 30000/1001 or 25/1 and H even. Field parity (left open by
 *   MXL, §2.3 [AMB]) is our choice: an even grain index carries the first
 *   field in time (top for tff, bottom for bff), so a frame at frame index j
 *   is grains 2j and 2j+1 and starts at the same TAI instant.
 *
 * - the same flows as woven frames, as capture cards deliver them:
 *     video/x-raw, format=v210, width=W, height=H, framerate=N/D,
 *     interlace-mode=interleaved, field-order=top-field-first|
 *     bottom-field-first (absent: top-field-first)
 *   One buffer = one frame of H lines = grains 2j (the first field in time:
 *   its lines 0, 2, ... for tff, 1, 3, ... for bff) and 2j+1 (the other
 *   lines); for v210a the key plane after the fill is woven the same way.
 *   The sink splits each frame into its two grains, the src with these
 *   caps weaves grains 2j and 2j+1 back into one frame (flags INTERLACED,
 *   and TFF for tff flows; #GstMxlFabricsFormat @interleaved).
 *
 * - `video/v210a` (v210 fill + 10-bit key): the caps are the v210 caps above
 *   plus the boolean field `mxl-alpha=true`. The buffer holds the MXL grain
 *   payload as it is in the ring: the fill plane (S lines of V(W) bytes)
 *   FOLLOWED by the key plane (S lines of A(W) bytes, three 10-bit samples in
 *   bits 0-9, 10-19, 20-29 of each little-endian 32-bit word), S = lines per
 *   grain. Why this representation:
 *     * every stock v210 element accepts the caps (an extra field intersects
 *       with their templates) and reads the fill: gst_video_frame_map() only
 *       requires the buffer to be at least as large as the v210 frame, and a
 *       GstVideoMeta, when present, describes plane 0 = the fill;
 *     * the key plane is reachable at a fixed, documented offset and is byte-
 *       for-byte the GStreamer GRAY10_LE32 format (same packing and line
 *       stride), so a sub-buffer of it is something videoconvert
 *       understands;
 *     * buffers relayed src -> (queue, tee, identity, ...) -> sink keep both
 *       planes bit-exact, with no extra copy and no custom meta that could be
 *       dropped by a transform.
 *   Where the fill is described by a GstVideoMeta (offset O, stride P), the
 *   key plane starts at O + P * S and has a line stride of A(W). An element
 *   that re-creates the buffer as plain v210 loses the key; our sink detects
 *   the short buffer and fails with an error that says so.
 *
 * - `audio/float32`:
 *     audio/x-raw, format=F32LE, layout=non-interleaved, rate=R, channels=C,
 *     channel-mask=(bitmask)M
 *   with M = 0x3 for stereo, 0 (unpositioned) above 2 channels, absent for
 *   mono. Buffers carry GstAudioMeta. The sink also accepts layout=interleaved
 *   and de-interleaves itself.
 *
 * - `video/smpte291` (ANC data, fixed 4096-byte grains):
 *     meta/x-st-2038, alignment=frame, framerate=N/D
 *
 * Each media's part of the conversions below (its caps fields, flow
 * fields and mismatches) is in its ops table (media.h); caps.c picks it.
 *
 * Rates: `rate_n/rate_d` of #GstMxlFabricsFormat is always the normalised
 * MXL edit rate (grain rate, FIELD rate, or sample rate), the one that index
 * <-> time conversions use (timing.h).
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>
#include <mxl/flow-ext.h>

G_BEGIN_DECLS

/* Caps field that marks v210 buffers carrying the MXL key plane after the fill. */
#define GST_MXL_FABRICS_CAPS_FIELD_ALPHA "mxl-alpha"

/* Pad template caps shared by both elements (src adds mxl-alpha when needed;
 * the sink template also lists interleaved audio). Picture sizes are limited
 * as the library's flows are (MXL_FLOW_MIN_WIDTH ... MXL_FLOW_MAX_HEIGHT),
 * channels too (MXL_FLOW_MAX_CHANNELS), and so are rates
 * (MXL_FLOW_MIN_GRAIN_RATE_DEN, MXL_FLOW_MAX_GRAIN_RATE,
 * MXL_FLOW_MIN_SAMPLE_RATE, MXL_FLOW_MAX_SAMPLE_RATE); the lowest sample
 * rate is the default history's (a domain with a shorter history refuses
 * more, and the ERROR then names the bound). */
#define GST_MXL_FABRICS_VIDEO_CAPS \
  "video/x-raw, format = (string) v210, " \
  "width = (int) [ " G_STRINGIFY (MXL_FLOW_MIN_WIDTH) ", " \
  G_STRINGIFY (MXL_FLOW_MAX_WIDTH) " ], height = (int) [ " \
  G_STRINGIFY (MXL_FLOW_MIN_HEIGHT) ", " G_STRINGIFY (MXL_FLOW_MAX_HEIGHT) " ], " \
  "framerate = (fraction) [ 1/" G_STRINGIFY (MXL_FLOW_MIN_GRAIN_RATE_DEN) \
  ", " G_STRINGIFY (MXL_FLOW_MAX_GRAIN_RATE) "/1 ]; " \
  "video/x-raw(format:Interlaced), format = (string) v210, " \
  "width = (int) [ " G_STRINGIFY (MXL_FLOW_MIN_WIDTH) ", " \
  G_STRINGIFY (MXL_FLOW_MAX_WIDTH) " ], height = (int) [ 2, " \
  G_STRINGIFY (MXL_FLOW_MAX_HEIGHT) " ], " \
  "framerate = (fraction) { 25/1, 30000/1001 }, " \
  "interlace-mode = (string) alternate; " \
  "video/x-raw, format = (string) v210, " \
  "width = (int) [ " G_STRINGIFY (MXL_FLOW_MIN_WIDTH) ", " \
  G_STRINGIFY (MXL_FLOW_MAX_WIDTH) " ], height = (int) [ 2, " \
  G_STRINGIFY (MXL_FLOW_MAX_HEIGHT) " ], " \
  "framerate = (fraction) { 25/1, 30000/1001 }, " \
  "interlace-mode = (string) interleaved"
#define GST_MXL_FABRICS_DATA_CAPS \
  "meta/x-st-2038, alignment = (string) frame"
#define GST_MXL_FABRICS_SRC_CAPS \
  GST_MXL_FABRICS_VIDEO_CAPS "; " \
  "audio/x-raw, format = (string) F32LE, layout = (string) non-interleaved, " \
  "rate = (int) [ " G_STRINGIFY (MXL_FLOW_MIN_SAMPLE_RATE) ", " \
  G_STRINGIFY (MXL_FLOW_MAX_SAMPLE_RATE) " ], " \
  "channels = (int) [ 1, " G_STRINGIFY (MXL_FLOW_MAX_CHANNELS) " ]; " \
  GST_MXL_FABRICS_DATA_CAPS
#define GST_MXL_FABRICS_SINK_CAPS \
  GST_MXL_FABRICS_VIDEO_CAPS "; " \
  "audio/x-raw, format = (string) F32LE, " \
  "layout = (string) { non-interleaved, interleaved }, " \
  "rate = (int) [ " G_STRINGIFY (MXL_FLOW_MIN_SAMPLE_RATE) ", " \
  G_STRINGIFY (MXL_FLOW_MAX_SAMPLE_RATE) " ], " \
  "channels = (int) [ 1, " G_STRINGIFY (MXL_FLOW_MAX_CHANNELS) " ]; " \
  GST_MXL_FABRICS_DATA_CAPS

/* The library's media types (mxlFlowExtMediaType), value for value. */
typedef enum {
  GST_MXL_FABRICS_MEDIA_NONE = MXL_FLOW_EXT_MEDIA_NONE,
  GST_MXL_FABRICS_MEDIA_V210 = MXL_FLOW_EXT_MEDIA_V210,
  GST_MXL_FABRICS_MEDIA_V210A = MXL_FLOW_EXT_MEDIA_V210A,   /* fill + key planes */
  GST_MXL_FABRICS_MEDIA_AUDIO = MXL_FLOW_EXT_MEDIA_FLOAT32, /* planar */
  GST_MXL_FABRICS_MEDIA_DATA = MXL_FLOW_EXT_MEDIA_SMPTE291,
} GstMxlFabricsMedia;

/* The library's scanning (mxlFlowExtInterlace), value for value. */
typedef enum {
  GST_MXL_FABRICS_SCAN_PROGRESSIVE = MXL_FLOW_EXT_PROGRESSIVE,
  GST_MXL_FABRICS_SCAN_INTERLACED_TFF = MXL_FLOW_EXT_INTERLACED_TFF,
  GST_MXL_FABRICS_SCAN_INTERLACED_BFF = MXL_FLOW_EXT_INTERLACED_BFF,
} GstMxlFabricsScan;

/**
 * GstMxlFabricsFormat:
 * @media: the MXL media type, never GST_MXL_FABRICS_MEDIA_NONE in a format
 *   given to the calls below: every media has its table (media.h), which
 *   they call without a test.
 * @rate_n, @rate_d: normalised MXL edit rate (grains, fields or samples per
 *   second), both > 0 when valid.
 * @width, @height: video frame size in pixels (height of the FRAME, also
 *   for interlaced flows).
 * @scan: video scanning (progressive, or one field per grain).
 * @channels: audio channel count (>= 1).
 * @interleaved: caps-side only: the sink received interleaved audio and must
 *   de-interleave; or video caps say interlace-mode=interleaved (woven
 *   frames: the sink splits them into fields, the src weaves its fields
 *   into them); never written into a flow definition.
 * @colorspace: video "colorspace" as in the flow definition ("BT709",
 *   "BT601", "BT2020", "BT2100"); from caps: the one their colorimetry
 *   maps to (see gst_mxl_fabrics_format_from_caps()), "" when the caps
 *   have none (matches any; a flow made from it says BT709).
 * @transfer: video "transfer_characteristic" as in the flow definition
 *   ("SDR", "PQ", "HLG"); from caps as @colorspace ("" when the caps have
 *   no colorimetry: matches any; a flow made from it says SDR).
 * @def: the library's summary of the flow (mxlFlowExtDefinition): its
 *   grain geometry (grainSize, totalSlices, sliceSizes) is what the
 *   elements map buffers by. Set by gst_mxl_fabrics_format_from_caps() and
 *   gst_mxl_fabrics_format_from_flow_def(); zero in a format filled by
 *   hand, which only gst_mxl_fabrics_flow_def_new() and
 *   gst_mxl_fabrics_format_check_match() accept.
 *
 * The geometry that caps and flow definitions have in common.
 */
typedef struct {
  GstMxlFabricsMedia media;
  gint rate_n;
  gint rate_d;
  guint width;
  guint height;
  GstMxlFabricsScan scan;
  guint channels;
  gboolean interleaved;
  gchar colorspace[MXL_FLOW_EXT_COLORSPACE_SIZE];
  gchar transfer[MXL_FLOW_EXT_COLORSPACE_SIZE];
  mxlFlowExtDefinition def;
} GstMxlFabricsFormat;

/* ---- geometry (docs/flow-format.md §2.5, §3.10) ---- */

/* Line sizes: mxlFlowExtV210LineBytes(), mxlFlowExtV210aKeyLineBytes(). */

/**
 * gst_mxl_fabrics_format_grain_size:
 * Returns: payload bytes of one grain: V*S (v210), (V+A)*S (v210a), 4096
 * (data); for audio, 4 bytes per sample per channel is the only fixed
 * quantity and 0 is returned (grain size does not apply).
 */
gsize gst_mxl_fabrics_format_grain_size (const GstMxlFabricsFormat * fmt);

/**
 * gst_mxl_fabrics_field_flags_for_index:
 * Returns: GST_VIDEO_BUFFER_FLAG_TOP_FIELD or _BOTTOM_FIELD for the field
 * carried by grain @index of an interlaced format (even index = first field
 * in time), 0 for progressive.
 */
GstVideoBufferFlags gst_mxl_fabrics_field_flags_for_index (const
    GstMxlFabricsFormat * fmt, guint64 index);

/* ---- caps ---- */

/**
 * gst_mxl_fabrics_format_from_caps:
 * @caps: fixed caps, one structure, matching GST_MXL_FABRICS_SINK_CAPS.
 * @fmt: (out): the format.
 * @error: GST_STREAM_ERROR_FORMAT with a message naming the field to fix.
 *
 * The caps structure is read here; the numbers (picture size, rates,
 * interlaced rates and height, channel count) are checked by the library's
 * rules (mxlFlowExtBuildDefinition()), the ones every flow is created by,
 * which also give the geometry (@fmt->def). Interlaced caps give the field
 * rate as edit rate (2 * framerate). Audio channel-mask is not required
 * (gst_audio_info_from_caps() rules do not apply: channel order is the
 * flow's channel order).
 *
 * Video colorimetry is read with gst_video_colorimetry_from_string() and
 * mapped exactly onto what a flow definition can say (colorspace and
 * transfer_characteristic, limited range): bt709 is BT709/SDR, bt601
 * BT601/SDR, bt2020 (and bt2020-10) BT2020/SDR, bt2100-pq BT2100/PQ,
 * bt2100-hlg BT2100/HLG, and any equivalent spelling (e.g. 2:4:5:4, whose
 * BT.709 transfer is the BT.601 one: bt601). Any other colorimetry
 * (sRGB, smpte240m, full range, mixed matrix and primaries such as
 * 2:4:16:1) is refused with GST_STREAM_ERROR_FORMAT naming it.
 *
 * Returns: TRUE on success.
 */
gboolean gst_mxl_fabrics_format_from_caps (const GstCaps * caps,
    GstMxlFabricsFormat * fmt, GError ** error);

/**
 * gst_mxl_fabrics_format_to_caps:
 * Returns: (transfer full): fixed caps for @fmt as the src produces them
 * (audio non-interleaved). Video
 * caps carry the colorimetry of @colorspace and @transfer (the mapping of
 * gst_mxl_fabrics_format_from_caps() backwards; "" is BT709 and SDR), and
 * none when the flow's pair has no GStreamer colorimetry (e.g. a foreign
 * flow that says XYZ or LINEAR).
 */
GstCaps *gst_mxl_fabrics_format_to_caps (const GstMxlFabricsFormat * fmt);

/**
 * gst_mxl_fabrics_format_to_sink_caps:
 * Returns: (transfer full): the caps mxlfabricssink takes for a flow of
 * @fmt, preferred first (the media's sink_caps, media.h; the sink's CAPS
 * answer, sinkcaps.h): the caps of gst_mxl_fabrics_format_to_caps()
 * (audio in either layout), for an interlaced video flow also its woven
 * frames (interlace-mode=interleaved, system memory), then the same
 * without the fields the flow does not fix or the sink compares only when
 * given (pixel-aspect-ratio, colorimetry, interlace-mode, field-order,
 * channel-mask); not fixed.
 */
GstCaps *gst_mxl_fabrics_format_to_sink_caps (const GstMxlFabricsFormat *
    fmt);

/* ---- flow definitions ---- */

/**
 * gst_mxl_fabrics_format_from_flow_def:
 * @json: NMOS flow resource JSON text.
 * @fmt: (out): the format.
 * @flow_id: (out) (optional) (transfer full): the flow's "id", lowercase.
 * @error: GST_RESOURCE_ERROR_SETTINGS with the library's reason, naming
 *   the field ("flow definition: frame_width: ...").
 *
 * Parses with mxlFlowExtParseDefinition() (every rule of docs/flow-format.md
 * §2.1-2.3 the library creates flows by), then refuses what caps cannot
 * carry: an audio sample_rate that is not integral, a rate that does not
 * fit 32 bits.
 *
 * Returns: TRUE on success.
 */
gboolean gst_mxl_fabrics_format_from_flow_def (const gchar * json,
    GstMxlFabricsFormat * fmt, gchar ** flow_id, GError ** error);

/**
 * gst_mxl_fabrics_flow_def_new:
 * @fmt: a valid format (rates as in #GstMxlFabricsFormat).
 * @flow_id: (nullable): UUID text; NULL generates a random one.
 * @label: (nullable): non-empty label; NULL gives "<media> flow".
 * @group_hint: (nullable): "group:role" or "group:role:scope"; NULL gives
 *   "gst-mxl-fabrics <pid>:<Video|Audio|Data>".
 * @error: GST_RESOURCE_ERROR_SETTINGS for a bad id, label or group hint, or
 *   a format that violates §2 (e.g. interlaced at 50/1 frames, odd height),
 *   with the library's reason.
 *
 * Builds the flow definition with mxlFlowExtBuildDefinition(), so that
 * gst_mxl_fabrics_format_from_flow_def() accepts it and gives back @fmt
 * (audio @interleaved is not part of a flow).
 *
 * Returns: (transfer full): compact JSON text, or NULL on error.
 */
gchar *gst_mxl_fabrics_flow_def_new (const GstMxlFabricsFormat * fmt,
    const gchar * flow_id, const gchar * label, const gchar * group_hint,
    GError ** error);

/**
 * gst_mxl_fabrics_format_check_match:
 * @caps_fmt: format from caps (what the pipeline offers).
 * @flow_fmt: format of an existing flow (from its definition).
 * @error: GST_STREAM_ERROR_FORMAT naming the first differing quantity, with
 *   both values, e.g. "caps width 1280 does not match the flow's
 *   frame_width 1920".
 *
 * Compares media type, edit rate, size, scanning, video colorspace and
 * transfer_characteristic (each when both give one; case-insensitive) and
 * channel count (audio layout is not compared).
 *
 * Returns: TRUE when the caps can be written into / read from the flow.
 */
gboolean gst_mxl_fabrics_format_check_match (const GstMxlFabricsFormat *
    caps_fmt, const GstMxlFabricsFormat * flow_fmt, GError ** error);

G_END_DECLS
