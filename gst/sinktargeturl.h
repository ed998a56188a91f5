/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A sink target given as an http:// URL (mxlfabricssrc's endpoint,
 * srchttp.h): its TargetInfo fetched by the engine thread (sinkfetch.h)
 * while none is known yet and again while the target is lost, refused or
 * failed, at the fetch's back-off; a changed document is taken like a
 * rewritten @path file (gst_mxl_fabrics_sink_target_take_text()), an
 * unchanged one changes nothing.
 */
#pragma once

#include "mxlfabricssinktarget.h"

G_BEGIN_DECLS

/** Engine thread, engine_lock held: the fetch's news for @t (a WARNING
 * naming the URL and the HTTP status for a failure, or a document that is
 * not TargetInfo JSON), and the next request when one is due. */
void gst_mxl_fabrics_sink_target_check_url (GstMxlFabricsSink * self,
    GstMxlFabricsSinkTarget * t, gint64 now, GPtrArray * notices);

/** Engine thread, engine_lock held: when @t's next request is due, or
 * @due (the earlier). */
gint64 gst_mxl_fabrics_sink_target_url_next_due (GstMxlFabricsSinkTarget * t,
    gint64 due);

G_END_DECLS
