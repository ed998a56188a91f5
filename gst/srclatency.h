/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssrc's latency (srclatency.c): the min latency its query
 * reports (before the `latency` headroom) starts at one grain period or
 * batch and is raised from how late the grains arrive after their origin
 * time. Internal to the plugin.
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* The element (mxlfabricssrc.h), by its struct tag. */
struct _GstMxlFabricsSrc;

/* One grain period, or for audio one batch of the flow's sync hint (ns). */
GstClockTime gst_mxl_fabrics_src_unit_duration (struct _GstMxlFabricsSrc *
    src);

/* The latency before any grain arrived (ns): a unit, at most 100 ms, plus
 * the margin for the copy and the push. */
GstClockTime gst_mxl_fabrics_src_initial_latency (struct _GstMxlFabricsSrc *
    src);

/* How late after their origin time grains may arrive from a sender whose
 * input fell behind before it re-aligns (ns): the ring (ring-length grain
 * periods) or 1 s, whichever is more (0 while the flow has no ring); read
 * by the start-of-stream counting (srcread.c). The reported latency stays
 * within the ring less one period (srclatency.c). */
GstClockTime gst_mxl_fabrics_src_latency_cap (struct _GstMxlFabricsSrc * src);

/* Records @lateness (ns: arrival minus origin time of a grain the src
 * waited for) and raises the reported latency when the recent ones need
 * more (posting a LATENCY message). Returns: TRUE when it was raised. */
gboolean gst_mxl_fabrics_src_update_latency (struct _GstMxlFabricsSrc * src,
    GstClockTime lateness);

G_END_DECLS
