/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The buffer pool mxlfabricssink proposes upstream for raw video
 * (propose_allocation). Its buffers are plain system memory; it is there
 * for what its flushing tells: GstBaseSrc sets the pool it allocates from
 * flushing when the application sends it an EOS (gst_element_send_event()
 * on the pipeline, gst-launch-1.0 -e on Ctrl-C) and on a flushing seek,
 * before it waits for its streaming thread, which may be blocked in the
 * sink's render (gstbasesrc.c: send_event, set_flushing). A render that
 * waits for a connection ends its wait on that (sinkwait.c), so that the
 * EOS gets through at once.
 */
#ifndef __GST_MXL_FABRICS_SINKPOOL_H__
#define __GST_MXL_FABRICS_SINKPOOL_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* Called, without any lock of the sink, when upstream sets the pool
 * flushing: from GstBufferPool's flush_start, with the pool's lock held,
 * so it must not take a lock that is held while a pooled buffer is
 * released (the sink's engine_lock is); it wakes the sink's engine
 * thread. */
typedef void (*GstMxlFabricsUpstreamFlush) (GstElement * sink);

/* A new pool for @caps, @size-byte buffers, no limit on their number (an
 * upstream never waits for a buffer; the sink lends some to the
 * initiator). @sink is held weakly; @on_flush is called with it (while it
 * lives) each time the pool starts flushing. The caller owns the
 * reference; NULL when the pool cannot be configured. */
GstBufferPool *gst_mxl_fabrics_upstream_pool_new (GstElement * sink,
    GstCaps * caps, guint size, GstMxlFabricsUpstreamFlush on_flush);

/* TRUE from the pool's flush_start to its flush_stop: upstream is
 * flushing or has an EOS to push (any thread, no lock). */
gboolean gst_mxl_fabrics_upstream_pool_flushing (GstBufferPool * pool);

G_END_DECLS

#endif
