/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssrc's latency (srclatency.h): what it reports before any
 * grain arrived, and how it is raised from the arrival of the grains
 * after their origin time.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "srclatency.h"
#include "mxlfabricssrc.h"
#include "timing.h"

#include <stdlib.h>
#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (gst_mxl_fabrics_src_debug);
#define GST_CAT_DEFAULT gst_mxl_fabrics_src_debug

/* Added to the measured lateness (and to one grain period or batch before
 * any grain arrived) in the latency query: the copy out of the ring and
 * the push. */
#define LATENCY_MARGIN (10 * GST_MSECOND)
#define INITIAL_LATENCY_MAX (100 * GST_MSECOND)
/* The reported latency goes up to the ring or this, whichever is more
 * (timing.h: the sink's horizon for the grains it held). */
#define LATENCY_CAP_MIN GST_MXL_FABRICS_HELD_HORIZON

/* One grain period, or for audio one batch of the flow's sync hint. */
GstClockTime
gst_mxl_fabrics_src_unit_duration (GstMxlFabricsSrc * self)
{
  guint64 units = 1;

  if (self->flow.writer && self->media->batches)
    units = MAX (self->flow.config.common.maxSyncBatchSizeHint, 1);
  return gst_util_uint64_scale (units * GST_SECOND, self->format.rate_d,
      self->format.rate_n);
}

/* What weaving adds: a woven frame (caps interlace-mode=interleaved,
 * gst/media-video.c) is pushed when its second field arrived, one field
 * period after its PTS, the first field's time. */
static GstClockTime
woven_wait (GstMxlFabricsSrc * self)
{
  return self->format.interleaved && self->media != NULL
      && self->media->src_weaves ?
      gst_mxl_fabrics_src_unit_duration (self) : 0;
}

/* The latency before any grain arrived: a live sender's frame is complete
 * one period after its timestamp, plus LATENCY_MARGIN; for rates below
 * 10 fps at most 100 ms + LATENCY_MARGIN (the first grain raises it before
 * it is pushed when it arrives later: a still every 10 s need not wait
 * 10 s when it is sent as soon as it is stamped). */
GstClockTime
gst_mxl_fabrics_src_initial_latency (GstMxlFabricsSrc * self)
{
  return MIN (gst_mxl_fabrics_src_unit_duration (self), INITIAL_LATENCY_MAX)
      + woven_wait (self) + LATENCY_MARGIN;
}

GstClockTime
gst_mxl_fabrics_src_latency_cap (GstMxlFabricsSrc * self)
{
  GstClockTime ring = (guint64) self->flow.config.discrete.grainCount *
      gst_mxl_fabrics_src_unit_duration (self);

  return ring > 0 ? MAX (ring, LATENCY_CAP_MIN) : 0;
}

/* The most the src reports as latency (before the `latency` headroom):
 * the ring less one period, at least the initial latency. A sync=true sink
 * holds each buffer until its origin time plus the latency, and the src's
 * streaming thread with it; the src reads the next grain only then, so a
 * latency longer than the ring, once grains arrive on time again, made it
 * find each grain overwritten and re-align to the newest, a frame every
 * few hundred ms (issue 20: 421-453 ms after a 0.4 s sender stall at the
 * 200 ms default ring, 2.5 frames/s from then on). 0: no bound (audio,
 * whose ring is in samples). */
static GstClockTime
latency_max (GstMxlFabricsSrc * self)
{
  GstClockTime unit = gst_mxl_fabrics_src_unit_duration (self);
  GstClockTime ring = (guint64) self->flow.config.discrete.grainCount * unit;

  if (ring == 0)
    return 0;
  return MAX (ring - MIN (ring, unit), gst_mxl_fabrics_src_initial_latency (self));
}

/* The latency the src reports (before the `latency` headroom): the arrival
 * of a grain minus its origin time, for grains that completed while the src
 * waited for them (so downstream holding the streaming thread does not
 * count), all but the two largest of the last LATENESS_KEPT (one-off
 * hiccups), plus LATENCY_MARGIN (and woven_wait()); never less than
 * before (from start: initial_latency), never more than the ring less one
 * period (latency_max()): grains later than that (a sender whose input
 * fell behind, until it re-aligns, gst/sinkindex.c realign_late; one that
 * does not re-align, sync=false) reach a sync=true sink late and are
 * dropped there rather than making the src lose every grain after them; a
 * longer ring-length buys a longer latency. Raised in whole milliseconds;
 * each raise posts a LATENCY message. Returns: TRUE when it was raised. */
gboolean
gst_mxl_fabrics_src_update_latency (GstMxlFabricsSrc * self,
    GstClockTime lateness)
{
  GstClockTime sorted[GST_MXL_FABRICS_SRC_LATENESS_KEPT], want, cap;
  guint n;
  gboolean raised = FALSE;

  /* the stats' latency-last and latency-median */
  gst_mxl_fabrics_object_record_latency (self->obj, lateness);
  if (self->n_lateness < GST_MXL_FABRICS_SRC_LATENESS_KEPT) {
    self->lateness[self->n_lateness++] = lateness;
  } else {
    memmove (self->lateness, self->lateness + 1,
        sizeof self->lateness - sizeof self->lateness[0]);
    self->lateness[GST_MXL_FABRICS_SRC_LATENESS_KEPT - 1] = lateness;
  }
  n = self->n_lateness;
  memcpy (sorted, self->lateness, n * sizeof sorted[0]);
  qsort (sorted, n, sizeof sorted[0], gst_mxl_fabrics_cmp_u64);
  want = sorted[n > 2 ? n - 3 : n - 1] + woven_wait (self) + LATENCY_MARGIN;
  want = (want + GST_MSECOND - 1) / GST_MSECOND * GST_MSECOND;
  cap = latency_max (self);
  if (cap > 0)
    want = MIN (want, cap);
  GST_OBJECT_LOCK (self);
  if (want > self->latency) {
    self->latency = want;
    raised = TRUE;
  }
  GST_OBJECT_UNLOCK (self);
  if (raised) {
    GST_INFO_OBJECT (self, "grains arrive %" GST_TIME_FORMAT " after their "
        "origin time: latency raised to %" GST_TIME_FORMAT,
        GST_TIME_ARGS (lateness), GST_TIME_ARGS (want));
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
  }
  return raised;
}
