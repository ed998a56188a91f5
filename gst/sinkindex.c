/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssink's grain-index rule (media.h): the running time of a
 * buffer through TAI, and the index of a video or ANC grain from it,
 * following the stream's phase (docs/architecture.md "Grain indices").
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "media.h"
#include "mxlfabricssink.h"
#include "sinkwait.h"

#include <mxl/flow-ext.h>
#include <mxl/time.h>

GST_DEBUG_CATEGORY_EXTERN (gst_mxl_fabrics_sink_debug);
#define GST_CAT_DEFAULT gst_mxl_fabrics_sink_debug

gboolean
gst_mxl_fabrics_sink_buffer_time (GstMxlFabricsSink * self, GstBuffer * buffer,
    GstClockTime * rt, gint64 * offset, GstClockTime * base)
{
  GstBaseSink *sink = GST_BASE_SINK (self);
  GstClockTime pts = GST_BUFFER_PTS (buffer);

  if (!GST_CLOCK_TIME_IS_VALID (pts) || sink->segment.format != GST_FORMAT_TIME)
    return FALSE;
  *rt = gst_segment_to_running_time (&sink->segment, GST_FORMAT_TIME, pts);
  *base = gst_element_get_base_time (GST_ELEMENT (self));
  *offset = 0;
  gst_mxl_fabrics_timing_ensure (GST_ELEMENT (self), &self->timing, offset);
  return TRUE;
}

void
gst_mxl_fabrics_sink_take_index (GstMxlFabricsSink * self, guint64 last)
{
  self->have_last = TRUE;
  self->last_index = last;
}

/* At most one "later than real time" WARNING per this many ms. */
#define LATE_WARN_MS 10000
/* Fewest buffers in a row that late before the stream re-aligns. */
#define LATE_RUN_MIN 25

gboolean
gst_mxl_fabrics_sink_upstream_is_live (GstMxlFabricsSink * self)
{
  if (self->upstream_live < 0) {
    GstQuery *q = gst_query_new_latency ();
    gboolean live = FALSE;

    if (gst_pad_peer_query (GST_BASE_SINK_PAD (self), q))
      gst_query_parse_latency (q, &live, NULL, NULL);
    self->upstream_live = live;
    gst_query_unref (q);
  }
  return self->upstream_live > 0;
}

gboolean
gst_mxl_fabrics_sink_held_too_long (GstMxlFabricsSink * self, guint64 index)
{
  guint64 ts, now;

  if (mxlIsContinuousDataFormat (self->flow.config.common.format)
      || !gst_mxl_fabrics_sink_upstream_is_live (self))
    return FALSE;
  ts = gst_mxl_fabrics_index_to_tai (index, self->format.rate_n,
      self->format.rate_d);
  now = gst_mxl_fabrics_tai_now ();
  return ts != GST_CLOCK_TIME_NONE && now > GST_MXL_FABRICS_HELD_HORIZON
      && ts < now - GST_MXL_FABRICS_HELD_HORIZON;
}

/* A live input later than real time, with sync=true (the sink renders
 * against the clock; with sync=false buffer times are not due at any
 * clock time): grain @index would be written more than the local flow's
 * ring (at least 5 periods) after the time the sink is due to render it
 * (its origin time + the pipeline latency + ts-offset), and so were the
 * buffers before it, for as many buffers in a row as the ring has grains
 * (at least LATE_RUN_MIN):
 * a sender whose input falls behind (a slow element upstream) would write
 * each grain further in the past, and every receiver's latency would grow
 * without bound. The stream re-aligns to now instead: this buffer takes
 * the index of the current time (minus the latency), the ones after it
 * follow from there (the index rule gives consecutive indices to buffers
 * behind the last index), and the indices between are left out (the
 * stats' left-out-late counts them; each receiver counts them
 * dropped-missing: it never gets them). A WARNING says by how much
 * the input is late, at most one per LATE_WARN_MS. Not for the buffers a
 * live source queued while render waited for a connection
 * (self->catch_up_until): they drain at the sink's pace. Returns: the
 * index. */
static guint64
realign_late (GstMxlFabricsSink * self, guint64 index)
{
  GstBaseSink *sink = GST_BASE_SINK (self);
  gint n = self->format.rate_n, d = self->format.rate_d;
  guint64 ts = gst_mxl_fabrics_index_to_tai (index, n, d);
  guint64 now = gst_mxl_fabrics_tai_now (), due, head;
  guint64 ring = MAX (self->flow.config.discrete.grainCount, 5);
  GstClockTime period = gst_util_uint64_scale (GST_SECOND, d, n);
  gint64 ts_offset = gst_base_sink_get_ts_offset (sink), now_us;
  gchar *msg;

  if (ts == GST_CLOCK_TIME_NONE || now == 0)
    return index;
  due = ts + gst_base_sink_get_latency (sink);
  due = ts_offset < 0 ? due - MIN (due, (guint64) - ts_offset) :
      due + (guint64) ts_offset;
  if (now <= due + ring * period || !gst_base_sink_get_sync (sink)) {
    self->late_run = 0;
    self->catch_up_until = 0;
    return index;
  }
  /* the backlog of render's own wait for a connection: it drains as fast
   * as the sink sends, upstream is not late */
  if (self->catch_up_until != 0) {
    if (g_get_monotonic_time () < self->catch_up_until) {
      self->late_run = 0;
      return index;
    }
    self->catch_up_until = 0;
  }
  /* a few late buffers (an application that paused, a loaded host) are
   * not a trend */
  if (++self->late_run < MAX (ring, LATE_RUN_MIN)
      || !gst_mxl_fabrics_sink_upstream_is_live (self))
    return index;
  self->late_run = 0;
  head = gst_mxl_fabrics_tai_to_index (now - (due - ts), n, d);
  if (head == G_MAXUINT64 || head <= index)
    return index;
  self->late_left_out += head - index;
  GST_OBJECT_LOCK (self);
  self->obj->counters.left_out_late += head - index;
  GST_OBJECT_UNLOCK (self);
  /* the phase of the stream starts again at the new index */
  gst_mxl_fabrics_follow_grain_index (gst_mxl_fabrics_index_to_tai (head, n,
          d), n, d, FALSE, 0, &self->index_phase);
  now_us = g_get_monotonic_time ();
  msg = g_strdup_printf ("the input is %" G_GUINT64_FORMAT " ms later than "
      "real time (more than the local ring of %" G_GUINT64_FORMAT " grains, "
      "at grain %" G_GUINT64_FORMAT "): re-aligned to now, leaving out %"
      G_GUINT64_FORMAT " grain indices (%" G_GUINT64_FORMAT " since the last "
      "warning)", (now - due) / GST_MSECOND, ring, index, head - index,
      self->late_left_out - self->late_warned);
  if (self->late_warned_us == 0
      || now_us - self->late_warned_us >= LATE_WARN_MS * 1000) {
    GST_ELEMENT_WARNING (self, STREAM, FAILED, ("input later than real time: "
            "upstream is too slow for the stream's rate"), ("%s", msg));
    self->late_warned_us = now_us;
    self->late_warned = self->late_left_out;
  } else {
    GST_INFO_OBJECT (self, "%s", msg);
  }
  g_free (msg);
  return head;
}

/* Index of the grain of @buffer: from its running time through TAI (timing.h),
 * following the stream's phase (gst_mxl_fabrics_follow_grain_index), or,
 * for a buffer without timestamp, the one after the last (the current TAI
 * index for the first). Indices never go backwards: a buffer that maps to
 * an index already given gets the next one. The buffer takes its index
 * here (gst_mxl_fabrics_sink_take_index()), before anything can drop it.
 * A live input more than a ring later than real time re-aligns to now
 * (realign_late()). */
guint64
gst_mxl_fabrics_sink_grain_index (GstMxlFabricsSink * self, GstBuffer * buffer)
{
  gint n = self->format.rate_n, d = self->format.rate_d;
  GstVideoBufferFlags field;
  GstClockTime rt, base;
  gint64 offset;
  guint64 tai, index = G_MAXUINT64;

  if (!self->have_last) {
    self->late_left_out = self->late_warned = 0;
    self->late_run = 0;
    self->late_warned_us = 0;
    self->last_offset = GST_BUFFER_OFFSET_NONE;
  }
  if (gst_mxl_fabrics_sink_buffer_time (self, buffer, &rt, &offset, &base)) {
    /* a source that numbers its frames says whether one was left out */
    gboolean next_frame = self->have_last
        && GST_BUFFER_OFFSET_IS_VALID (buffer)
        && self->last_offset != GST_BUFFER_OFFSET_NONE
        && GST_BUFFER_OFFSET (buffer) == self->last_offset + 1;

    if (gst_mxl_fabrics_timing_running_time_to_tai (rt, offset, base, &tai))
      index = gst_mxl_fabrics_follow_grain_index_full (tai, n, d,
          self->have_last, self->last_index, next_frame, &self->index_phase);
  } else if (self->have_last) {
    index = self->last_index + 1;
  } else {
    mxlRational rate = { n, d };
    index = mxlGetCurrentIndex (&rate);
  }
  if (index == G_MAXUINT64)
    return index;
  index = realign_late (self, index);
  field = GST_BUFFER_FLAGS (buffer) &
      (GST_VIDEO_BUFFER_FLAG_TOP_FIELD | GST_VIDEO_BUFFER_FLAG_BOTTOM_FIELD);
  if (self->format.scan == GST_MXL_FABRICS_SCAN_PROGRESSIVE
      || (field != GST_VIDEO_BUFFER_FLAG_TOP_FIELD
          && field != GST_VIDEO_BUFFER_FLAG_BOTTOM_FIELD))
    field = 0;
  /* A field goes to a grain of its parity (caps.h: an even index is the
   * first field in time): when the rounding of its time gave the other
   * parity, it belongs with the field before it. */
  if (field && gst_mxl_fabrics_field_flags_for_index (&self->format,
          index) != field)
    index = index > 0 ? index - 1 : index + 1;
  if (self->have_last && index <= self->last_index) {
    index = self->last_index + 1;
    if (field && gst_mxl_fabrics_field_flags_for_index (&self->format,
            index) != field)
      index++;
  }
  self->last_offset = GST_BUFFER_OFFSET (buffer);
  gst_mxl_fabrics_sink_take_index (self, index);
  return index;
}
