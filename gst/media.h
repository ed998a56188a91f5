/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-media operations of the elements: what differs between video
 * (media-video.c: v210, and v210 + key), audio (media-audio.c) and ANC data
 * (media-anc.c) when a buffer is written into the local flow and when one is
 * read out of it. The table is chosen once, when the format is known
 * (gst_mxl_fabrics_media_ops()), so that the sink's render and set-up
 * (sinkwrite.c) and the src's create and set-up (srcflow.c, srclatency.c)
 * carry no media branches; so do the sink's lending (sinkwrite.c), its
 * allocation proposal (sinkwait.c) and its CAPS answer (sinkcaps.c), which
 * ask the table. Each table also holds its media's caps knowledge: caps to
 * the library's flow summary and back, the caps the sink takes for a flow,
 * and the check of caps against a flow; caps.c picks the table (by media
 * type, or by the caps structure's name) and keeps only what all media
 * share (the library's checks, the rate comparison). Every media has a
 * table, and every table sets every member (a media with nothing to do
 * has a trivial one), so no caller tests one for NULL, but for the two
 * grain-only members, fill_grain and finish_grain: the audio table leaves
 * them unset, and only the grain machinery (sinkwrite.c, srcread.c), which
 * audio's own write and read never enter, calls them.
 *
 * The generic grain and sample machinery stays in the elements; the ops
 * call back into it through the functions declared at the end of this
 * file (internal to the plugin).
 */
#pragma once

#include <gst/gst.h>
#include <mxl/fabrics.h>

#include "caps.h"

G_BEGIN_DECLS

/* The elements (mxlfabricssink.h, mxlfabricssrc.h), by their struct tags. */
struct _GstMxlFabricsSink;
struct _GstMxlFabricsSrc;

typedef struct {
  /* "video" (with or without key), "audio", "anc" (debug output) */
  const gchar *name;

  /* ---- sink (streaming thread) ---- */

  /* The index of @buffer: of its first grain, or the sample head before
   * it; G_MAXUINT64 when it is before the pipeline's start (dropped). */
  guint64 (*index) (struct _GstMxlFabricsSink * sink, GstBuffer * buffer);
  /* Writes @buffer into the local flow at @index and transfers it: grain
   * media with gst_mxl_fabrics_sink_write_grain(), audio as sample
   * batches. */
  GstFlowReturn (*write) (struct _GstMxlFabricsSink * sink, GstBuffer * buffer,
      guint64 index);
  /* Grain media (video, ANC; never called for audio, whose write is its
   * own): copies or converts @buffer into the grain @payload (grain_size
   * bytes). FALSE after posting an ERROR. */
  gboolean (*fill_grain) (struct _GstMxlFabricsSink * sink, GstBuffer * buffer,
      guint8 * payload);
  /* Posts the transfer of grain @index (@total_slices slices) or of the
   * @count samples before head @index to every connected target. */
  mxlStatus (*post) (mxlFabricsInitiator initiator, guint64 index,
      gsize count, guint16 total_slices);
  /* Whether buffers of @fmt may be lent to the flow in place (zero-copy,
   * sinkwrite.c), one buffer being one grain. */
  gboolean (*can_lend) (const GstMxlFabricsFormat * fmt);
  /* Where the grain payload starts in @buffer (*@offset) when its memory
   * already has the payload's layout (video: lines without padding, the
   * v210a key plane right after the fill); FALSE when it must be copied.
   * The sink checks the rest (one memory, the grain's size). */
  gboolean (*payload_offset) (const GstMxlFabricsFormat * fmt,
      GstBuffer * buffer, gsize * offset);
  /* propose_allocation for @caps of this media (sinkwait.c): adds to
   * @query the metas the sink honours on such buffers (video strides,
   * audio channel offsets) and returns the buffer size of the pool the
   * sink proposes (sinkpool.h), 0 for none. */
  guint (*propose_allocation) (GstQuery * query, GstCaps * caps);

  /* ---- src (streaming thread) ---- */

  /* One step of create: waits (bounded) for what the target received and
   * turns it into a buffer. Returns the buffer in *@buffer, or NULL (then
   * create calls it again unless the return is not GST_FLOW_OK). */
  GstFlowReturn (*read) (struct _GstMxlFabricsSrc * src, gint64 offset,
      GstBuffer ** buffer);
  /* Grain media (never called for audio, whose read is its own): turns
   * @grain, the copy of grain @index, into the buffer pushed downstream
   * (takes @grain). */
  GstBuffer *(*finish_grain) (struct _GstMxlFabricsSrc * src, GstBuffer * grain,
      guint64 index);
  /* TRUE for media read as sample batches (audio): no fixed grain size
   * (srcflow.c), the src's unit is a batch of the flow's sync hint
   * (srclatency.c). */
  gboolean batches;
  /* TRUE when the src honours the caps' `interleaved` as woven frames
   * (video, srcflow.c; what it adds to the latency, srclatency.c); for the
   * other media the src's output is never interleaved (planar audio). */
  gboolean src_weaves;

  /* ---- caps and flow definitions (caps.c, any thread) ---- */

  /* The name of this media's caps structure ("video/x-raw", ...). */
  const gchar *caps_name;
  /* The "role" of a default grouphint: "Video", "Audio" or "Data". */
  const gchar *group_role;
  /* What to put in front of the sink when caps of this media do not
   * match a receiver's flow (the sink's negotiation WARNINGs, sinkcaps.c),
   * e.g. "convert upstream: ... ! videoconvert ! videoscale ! videorate !
   * mxlfabricssink". */
  const gchar *convert_hint;
  /* Reads the fixed caps structure @s into @def, what the library checks
   * a flow by (mxlFlowExtBuildDefinition(): media type, the rate as the
   * flow definition writes it, the media's own fields), and into @fmt
   * (zeroed) what caps say and no flow does: @fmt->interleaved. FALSE with GST_STREAM_ERROR_FORMAT naming the caps
   * field to fix. */
  gboolean (*def_from_caps) (const GstStructure * s,
      mxlFlowExtDefinition * def, GstMxlFabricsFormat * fmt, GError ** error);
  /* When the library refused @def (from caps) for @reason: sets @error in
   * the caps' words and returns TRUE; FALSE leaves caps.c's general
   * message. */
  gboolean (*caps_refused) (const mxlFlowExtDefinition * def,
      const gchar * reason, GError ** error);
  /* After the library accepted the caps and @fmt holds its summary:
   * reads what caps say beyond the flow's numbers (video colorimetry into
   * @fmt->colorspace and @fmt->transfer, which caps.c leaves ""; the other
   * media: nothing). FALSE with GST_STREAM_ERROR_FORMAT. */
  gboolean (*finish_caps) (const GstStructure * s, GstMxlFabricsFormat * fmt,
      GError ** error);
  /* FALSE (@error in @domain, @code) when the flow summary @def, checked
   * by the library, has no caps of this media. */
  gboolean (*def_has_caps) (const mxlFlowExtDefinition * def, GQuark domain,
      gint code, GError ** error);
  /* Fixed caps of @fmt as the src produces them (transfer full). */
  GstCaps *(*to_caps) (const GstMxlFabricsFormat * fmt);
  /* The caps the sink takes for a flow of @fmt, preferred first
   * (gst_mxl_fabrics_format_to_sink_caps(), caps.h; transfer full): the
   * src's caps, then the media's variants (audio: either layout; video:
   * woven frames of an interlaced flow) and the same without what the
   * flow does not fix or the sink compares only when given. */
  GstCaps *(*sink_caps) (const GstMxlFabricsFormat * fmt);
  /* Writes the media's fields of @fmt into @def for
   * mxlFlowExtBuildDefinition(); caps.c has set the media type and the
   * edit rate as @def->definitionRate. */
  void (*to_def) (const GstMxlFabricsFormat * fmt, mxlFlowExtDefinition * def);
  /* Compares caps and flow formats whose media both use this table: what
   * gst_mxl_fabrics_format_check_match() (caps.h) says, the rate through
   * gst_mxl_fabrics_format_check_rate(). */
  gboolean (*check_match) (const GstMxlFabricsFormat * caps_fmt,
      const GstMxlFabricsFormat * flow_fmt, GError ** error);
  /* The field flags of the grain at @index (0 but for interlaced video),
   * what gst_mxl_fabrics_field_flags_for_index() (caps.h) returns. */
  GstVideoBufferFlags (*field_flags) (const GstMxlFabricsFormat * fmt,
      guint64 index);
} GstMxlFabricsMediaOps;

/**
 * gst_mxl_fabrics_media_ops:
 * Returns: (transfer none): the operations of @media, every media's
 * (v210 and v210a share one); NULL only for GST_MXL_FABRICS_MEDIA_NONE,
 * which no format from caps or a flow definition carries.
 */
const GstMxlFabricsMediaOps *gst_mxl_fabrics_media_ops (GstMxlFabricsMedia
    media);

/**
 * gst_mxl_fabrics_media_ops_for_caps:
 * Returns: (transfer none) (nullable): the operations of the media whose
 * caps structure the first one of @caps is (caps.c), NULL for caps no
 * media has (or none).
 */
const GstMxlFabricsMediaOps *gst_mxl_fabrics_media_ops_for_caps (const
    GstCaps * caps);

/* video/v210 and video/v210a (media-video.c), audio/float32
 * (media-audio.c), video/smpte291 (media-anc.c) */
extern const GstMxlFabricsMediaOps gst_mxl_fabrics_media_video;
extern const GstMxlFabricsMediaOps gst_mxl_fabrics_media_audio;
extern const GstMxlFabricsMediaOps gst_mxl_fabrics_media_anc;

/* ---- ops shared by the tables of media the sink always copies (audio
 * batches, ANC converted to RFC 8331): caps.c ---- */

/* can_lend: never lent in place. */
gboolean gst_mxl_fabrics_media_never_lends (const GstMxlFabricsFormat * fmt);

/* payload_offset: never in the payload's layout. */
gboolean gst_mxl_fabrics_media_no_payload_offset (const GstMxlFabricsFormat *
    fmt, GstBuffer * buffer, gsize * offset);

/* ---- caps.c's helpers for the caps members ---- */

/* The rate of the caps fraction @field into @rate; FALSE when it is not a
 * fixed fraction > 0. */
gboolean gst_mxl_fabrics_caps_get_rate (const GstStructure * s,
    const gchar * field, mxlRational * rate);
/* FALSE with GST_STREAM_ERROR_FORMAT when the edit rates of @caps_fmt and
 * @flow_fmt differ; the message names the flow's @flow_field (e.g.
 * "sample_rate"). */
gboolean gst_mxl_fabrics_format_check_rate (const GstMxlFabricsFormat *
    caps_fmt, const GstMxlFabricsFormat * flow_fmt, const gchar * flow_field,
    GError ** error);

/* ---- media-video.c's, for caps.c's video geometry ---- */

/* The FRAME rate of @fmt as caps and flow definitions give it: its edit
 * rate, halved for interlaced video (one field per grain). */
void gst_mxl_fabrics_format_frame_rate (const GstMxlFabricsFormat * fmt,
    gint * n, gint * d);

/* The members every grain media (video, ANC) shares: the elements' grain
 * machinery; a table adds its fill_grain and finish_grain. */
#define GST_MXL_FABRICS_MEDIA_GRAIN_OPS \
  .index = gst_mxl_fabrics_sink_grain_index, \
  .write = gst_mxl_fabrics_sink_write_grain, \
  .post = gst_mxl_fabrics_sink_post_grain, \
  .read = gst_mxl_fabrics_src_read_grains

/* ---- the elements' machinery the ops use: the sink's (sinkindex.c,
 * sinkwrite.c, sinkwait.c) ---- */

/* Gives the buffer being rendered its place in the flow: @last is its
 * grain index, or the sample head after it (audio). The only place the
 * sink's index state (have_last, last_index; index_phase goes with it)
 * advances, called as soon as the index is known and before anything can
 * drop the buffer: a grain dropped after that (its ring slot still in
 * flight, lent elsewhere, no target or no room while grains wait for one
 * in the flow, a flush) keeps its index, so the next buffer never takes
 * it. Left behind, the next frame of a 60 fps stream, whose deviation
 * from the grid moves by a ns, was written one index early, under the
 * dropped frame's time (issue 20; test gst-sink-index). */
void gst_mxl_fabrics_sink_take_index (struct _GstMxlFabricsSink * sink,
    guint64 last);
/* Grain media's index: from TAI with the stream's phase, a field at an
 * index of its parity, never backwards. */
guint64 gst_mxl_fabrics_sink_grain_index (struct _GstMxlFabricsSink * sink,
    GstBuffer * buffer);
/* Grain media's write: into the ring slot of @index with fill_grain (or
 * lent in place), then transferred. */
GstFlowReturn gst_mxl_fabrics_sink_write_grain (struct _GstMxlFabricsSink * sink,
    GstBuffer * buffer, guint64 index);
/* Grain media's post: mxlFabricsInitiatorTransferGrain() of all
 * @total_slices slices of grain @index (@count unused). */
mxlStatus gst_mxl_fabrics_sink_post_grain (mxlFabricsInitiator initiator,
    guint64 index, gsize count, guint16 total_slices);
/* Before writing grain @index, or the @count samples before head @index:
 * FALSE (with *@ret, GST_FLOW_OK when it is just dropped) when the ring
 * would come round onto the oldest pending grain or batch. */
gboolean gst_mxl_fabrics_sink_make_room (struct _GstMxlFabricsSink * sink,
    guint64 index, gsize count, GstFlowReturn * ret);
/* Posts what was committed at @index (ops->post) to the connected targets,
 * waiting for one as wait-for-connection says, or, with @defer (a grain or
 * sample batch the flow holds), keeping it pending while none is connected
 * (also when the initiator refuses it because its last target was just
 * lost); counts it. Without @defer (a grain lent from upstream's memory)
 * such a refusal returns GST_MXL_FABRICS_SINK_FLOW_REFUSED: nothing was
 * counted, the caller copies the grain into the flow and transfers it
 * again with @defer. */
#define GST_MXL_FABRICS_SINK_FLOW_REFUSED GST_FLOW_CUSTOM_SUCCESS
GstFlowReturn gst_mxl_fabrics_sink_transfer (struct _GstMxlFabricsSink * sink,
    guint64 index, gsize count, gsize bytes, guint16 total_slices,
    gboolean defer);
/* The running time of @buffer through TAI: FALSE when it has none usable
 * (no PTS, or a segment not in time); otherwise *@rt, the pipeline-wide TAI
 * *@offset and the element's *@base time (timing.h). */
gboolean gst_mxl_fabrics_sink_buffer_time (struct _GstMxlFabricsSink * sink,
    GstBuffer * buffer, GstClockTime * rt, gint64 * offset,
    GstClockTime * base);

/* ---- the src's (srcread.c) ---- */

/* Grain media's read. */
GstFlowReturn gst_mxl_fabrics_src_read_grains (struct _GstMxlFabricsSrc * src,
    gint64 offset, GstBuffer ** buffer);
/* What a read of the target returned other than data (timeouts, bad input,
 * overruns, errors: counted, posted); also polls the target's events and
 * refreshes the stats. Returns GST_FLOW_ERROR after posting an ERROR. */
GstFlowReturn gst_mxl_fabrics_src_read_status (struct _GstMxlFabricsSrc * src,
    mxlStatus status);
/* Marks that data arrived (for the timeout and the stall message). */
void gst_mxl_fabrics_src_on_data (struct _GstMxlFabricsSrc * src);
/* Stamps @buf for unit index @index, @units long (PTS, duration, offsets,
 * reference timestamp meta, DISCONT); FALSE when its time is before the
 * pipeline's start. */
gboolean gst_mxl_fabrics_src_stamp (struct _GstMxlFabricsSrc * src, GstBuffer * buf,
    guint64 index, guint64 units, gint64 offset);
/* Counts a grain (an audio batch) of @bytes read for index @index into a
 * buffer (`grains`, `bytes`; not `buffers`, which the src counts per
 * buffer it returns). */
void gst_mxl_fabrics_src_pushed (struct _GstMxlFabricsSrc * src, guint64 index,
    gsize bytes);
/* Adds @n to @counter (of obj->counters), also to `dropped` when @drop. */
void gst_mxl_fabrics_src_count (struct _GstMxlFabricsSrc * src, guint64 * counter,
    guint64 n, gboolean drop);

G_END_DECLS
