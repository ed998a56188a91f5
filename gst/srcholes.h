/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssrc's gap bookkeeping (srcholes.c): holes the head jumped
 * over and grains counted missing that may still arrive, kept in the
 * element's fixed arrays (mxlfabricssrc.h: hole_lo/hole_hi, missed).
 * Called from the reading thread only (srcread.c). Internal to the plugin.
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* The element (mxlfabricssrc.h), by its struct tag. */
struct _GstMxlFabricsSrc;

/* Grain @index, behind what the src reads next, completed: moves it from
 * dropped-missing to dropped-late when it had been counted missing, else
 * counts it skipped-at-start (before the first push) or dropped-late. */
void gst_mxl_fabrics_src_missed_arrived (struct _GstMxlFabricsSrc * src,
    guint64 index);

/* Remembers @index as counted missing; the oldest is forgotten when
 * GST_MXL_FABRICS_SRC_MISSED_KEPT are kept. */
void gst_mxl_fabrics_src_missed_add (struct _GstMxlFabricsSrc * src,
    guint64 index);

/* The head jumps from src->head to @index: records the indices between
 * as a hole (the oldest hole is forgotten when full: the src avoids it,
 * gst_mxl_fabrics_src_holes_full()). */
void gst_mxl_fabrics_src_hole_add (struct _GstMxlFabricsSrc * src,
    guint64 index);

/* Grain @index (not behind the read position nor after the head)
 * completed: removes it from its hole. Returns: FALSE when it lay in no
 * hole (it had completed already). */
gboolean gst_mxl_fabrics_src_hole_fill (struct _GstMxlFabricsSrc * src,
    guint64 index);

/* Of [@from, @to), how many indices lie in holes; forgets the holes
 * before @to; with @counted remembers them as missed. */
guint64 gst_mxl_fabrics_src_holes_take (struct _GstMxlFabricsSrc * src,
    guint64 from, guint64 to, gboolean counted);

/* Whether the holes are full (the next hole_add() would forget one):
 * forgets first the holes below the grain the src reads next, whose
 * indices have been counted. The src then reads before it takes another
 * completion (srcread.c). */
gboolean gst_mxl_fabrics_src_holes_full (struct _GstMxlFabricsSrc * src);

/* Whether no grain was pushed yet: a grain lapped or torn then is
 * skipped-at-start, not dropped (srcholes.c). */
gboolean gst_mxl_fabrics_src_before_first (struct _GstMxlFabricsSrc * src);

/* Grain @index is lapped in its slot: counts it dropped-missing (and
 * remembers it) when in a hole, else dropped-late (skipped-at-start
 * before the first pushed grain). */
void gst_mxl_fabrics_src_count_lapped (struct _GstMxlFabricsSrc * src,
    guint64 index);

G_END_DECLS
