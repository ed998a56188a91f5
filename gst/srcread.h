/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssrc's reading (srcread.c): what the element itself needs of
 * it; the read steps the media ops call are in media.h. Internal to the
 * plugin.
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

struct _GstMxlFabricsSrc;

/* obj->wake (mxlfabricsobject.h), @data the src: unlock() ends a read of
 * the target that waits now (mxlFabricsExtTargetInterruptRead). */
void gst_mxl_fabrics_src_interrupt_read (gpointer data);

/* Copies the target's counters (grains-received, ...) into the stats at
 * once, not at the next STATS_PERIOD_US: when the src pushes EOS and when
 * it stops, so that the stats read then hold every grain it read
 * (docs/bus-and-stats.md). No-op without a target. Streaming thread or
 * stop(). */
void gst_mxl_fabrics_src_refresh_stats (struct _GstMxlFabricsSrc * self);

/* Chooses how indices become PTS from is-live (GstMxlFabricsSrcToPts,
 * mxlfabricssrc.h) and forgets the not-live origin: start(). */
void gst_mxl_fabrics_src_timing_reset (struct _GstMxlFabricsSrc * self);

G_END_DECLS
