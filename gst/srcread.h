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

G_END_DECLS
