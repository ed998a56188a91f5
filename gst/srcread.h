/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssrc's reading (srcread.c): what the element itself needs of
 * it; the read steps the media ops call are in media.h. Internal to the
 * plugin.
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* obj->wake (mxlfabricsobject.h), @data the src: unlock() ends a read of
 * the target that waits now (mxlFabricsExtTargetInterruptRead). */
void gst_mxl_fabrics_src_interrupt_read (gpointer data);

/* The src stops (from stop(), the streaming thread has ended, before the
 * target closes): counts what count_early() held back (srcread.c) and
 * refreshes the target's counters, so that the stats read after it hold
 * every grain that arrived. @src: the element (mxlfabricssrc.h). */
struct _GstMxlFabricsSrc;
void gst_mxl_fabrics_src_read_stop (struct _GstMxlFabricsSrc * src);

G_END_DECLS
