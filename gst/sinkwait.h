/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssink's wait for a connection (sinkwait.c): grains and sample
 * batches written into the local flow while no target is connected wait
 * there (pending) for at most wait-timeout. What the element's event and
 * stop need of it, and the drop counter render and the grain write share;
 * the rest is in media.h (gst_mxl_fabrics_sink_make_room(),
 * gst_mxl_fabrics_sink_transfer()). Internal to the plugin.
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* The element (mxlfabricssink.h), by its struct tag. */
struct _GstMxlFabricsSink;

/* Adds one to @cause (a dropped-* counter of obj->counters) and to
 * `dropped`, under the object lock. */
void gst_mxl_fabrics_sink_count_dropped (struct _GstMxlFabricsSink * sink,
    guint64 * cause);

/* Drops the pending grains or sample batches, each counted as
 * dropped-no-target (EOS without a target, a flush, stop). engine_lock
 * (obj->lock) held. */
void gst_mxl_fabrics_sink_drop_pending (struct _GstMxlFabricsSink * sink);

/* At EOS, before gst_mxl_fabrics_sink_engine_eos() sends or drops them:
 * the pending grains or sample batches of an input that is not live
 * (@live FALSE) wait for a target when one was connected before and none
 * is now (a receiver restarted: the sink reconnects), until their
 * deadline (wait-timeout from the first of them; none with
 * wait-timeout=0), as they would have waited while the stream went on;
 * a flush or a state change ends the wait. A sink that never had a target
 * (wait-for-connection with no receiver, gst-launch-1.0 -e and Ctrl-C)
 * does not wait. engine_lock (obj->lock) held, released while waiting. */
void gst_mxl_fabrics_sink_wait_pending_at_eos (struct _GstMxlFabricsSink *
    sink, gboolean live);

/* (sinkindex.c) Whether upstream is live: the latency query's answer,
 * asked once per stream (sink->upstream_live). Streaming thread, no lock
 * held (it queries the peer). */
gboolean gst_mxl_fabrics_sink_upstream_is_live (struct _GstMxlFabricsSink *
    sink);

/* (sinkindex.c) With a live input, grain @index's origin time lies more
 * than GST_MXL_FABRICS_HELD_HORIZON (timing.h) before now: held that long
 * for a target, it is not sent (dropped-no-target), for no receiver
 * starting now would count it as one that waited for it. FALSE for a
 * not-live input (it sends all) and for sample batches. */
gboolean gst_mxl_fabrics_sink_held_too_long (struct _GstMxlFabricsSink *
    sink, guint64 index);

/* Sends the pending grains or sample batches, oldest first, to the
 * connected targets (a target connected, or EOS with one); with an input
 * that is not live each grain first waits for the targets' credits
 * (gst_mxl_fabrics_sink_wait_credit(), sinkcredit.h). engine_lock
 * (obj->lock) held, released while waiting for credits. */
void gst_mxl_fabrics_sink_post_pending (struct _GstMxlFabricsSink * sink);

/* propose_allocation: what the media of the caps in @query proposes
 * (media.h propose_allocation): its metas added to @query and, for raw
 * video, a new pool of frame-sized buffers (sinkpool.h) added to @query
 * and kept as the one the wait watches (replacing the previous one);
 * @query NULL (stop) drops it. A source that allocates from it tells by its flushing that it
 * has an EOS to push (gstbasesrc.c send_event), and a render waiting for
 * a connection lets it through. */
void gst_mxl_fabrics_sink_propose_pool (struct _GstMxlFabricsSink * sink,
    GstQuery * query);

/* TRUE while the pool the sink proposed upstream flushes (sinkpool.h):
 * upstream has an EOS to push or flushes; a render waiting for a
 * connection returns (engine_lock held). */
gboolean gst_mxl_fabrics_sink_upstream_flushing (struct _GstMxlFabricsSink *
    sink);

G_END_DECLS
