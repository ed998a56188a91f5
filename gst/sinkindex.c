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

/* Index of the grain of @buffer: from its running time through TAI (timing.h),
 * following the stream's phase (gst_mxl_fabrics_follow_grain_index), or,
 * for a buffer without timestamp, the one after the last (the current TAI
 * index for the first). Indices never go backwards: a buffer that maps to
 * an index already given gets the next one. The buffer takes its index
 * here (gst_mxl_fabrics_sink_take_index()), before anything can drop it. */
guint64
gst_mxl_fabrics_sink_grain_index (GstMxlFabricsSink * self, GstBuffer * buffer)
{
  gint n = self->format.rate_n, d = self->format.rate_d;
  GstVideoBufferFlags field;
  GstClockTime rt, base;
  gint64 offset;
  guint64 tai, index = G_MAXUINT64;

  if (gst_mxl_fabrics_sink_buffer_time (self, buffer, &rt, &offset, &base)) {
    if (gst_mxl_fabrics_timing_running_time_to_tai (rt, offset, base, &tai))
      index = gst_mxl_fabrics_follow_grain_index (tai, n, d, self->have_last,
          self->last_index, &self->index_phase);
  } else if (self->have_last) {
    index = self->last_index + 1;
  } else {
    mxlRational rate = { n, d };
    index = mxlGetCurrentIndex (&rate);
  }
  if (index == G_MAXUINT64)
    return index;
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
  gst_mxl_fabrics_sink_take_index (self, index);
  return index;
}
