/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssink's use of the credit extension (sinkcredit.c; the
 * library's side: docs/fabrics-engine.md "Credits", docs/wire-format.md
 * §11.7). A target whose TargetInfo advertises credits (a target set up
 * with the option "credits": true) gets grain i only once its reader
 * released grain i - ring, and an audio batch only once the target
 * consumed the batches its next bounce entries held (one credit per
 * entry, the target releases them itself); TransferGrain and
 * TransferSamples send a grain or batch a target has no credit for to the
 * other targets only. The sink has no
 * property for it: it follows what each target advertises, and a target
 * without credits is served as before.
 *
 *  - An input that is not live is held back (render waits, as TCP holds
 *    tcpclientsink back) until every connected target with credits can
 *    take the grain, for at most GST_MXL_FABRICS_SINK_CREDIT_WAIT_MS per
 *    grain and target: a target that gave no credit for that long is
 *    stalled, the grain goes to the others, and later grains do not wait
 *    for it until it has a credit again, so one stopped receiver never
 *    holds back the others for more than that once.
 *  - A live input never waits: the grain goes to the targets with a
 *    credit.
 *
 * A target that did not get a grain for want of a credit counts it in
 * its `dropped` and `dropped-no-credit` (`targets` stats) and as behind
 * (the "falling behind" WARNING, mxlfabricssinkconn.c check_behind); a
 * grain no connected target took for that reason is the element's
 * `dropped-no-credit` (in `dropped`): docs/bus-and-stats.md. Video, ANC
 * and audio alike ("grain" below stands for an audio batch too, its index
 * for the batch's head). Internal to the plugin.
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* The element (mxlfabricssink.h), by its struct tag. */
struct _GstMxlFabricsSink;

/* How long (ms) a render of an input that is not live waits for one
 * target's credit before it is stalled (see above). Longer than a
 * reader slower than the stream takes per grain, shorter than the EOS
 * and state changes a stopped receiver should not hold up. */
#define GST_MXL_FABRICS_SINK_CREDIT_WAIT_MS 1000

/**
 * gst_mxl_fabrics_sink_wait_credit:
 * @index: the grain about to be transferred.
 *
 * With an input that is not live (the latency query's answer, asked
 * before: sink->upstream_live), a grain flow and an initiator: waits until
 * every connected target that is not stalled can take grain @index
 * (mxlFabricsExtInitiatorWaitCredit(), asked without waiting for each
 * target), on the sink's slot_wait, which the library's notify signals
 * when a release frees a slot (its progress thread, or the engine
 * thread's progress passes: mxlfabricssinkconn.h), and unlock() when a
 * flush or a state change must end the wait. Ends at once on unlock()
 * (also when unlock_stop() followed already), when the pool proposed
 * upstream flushes (an EOS sent to the pipeline, sinkwait.h), and, for
 * each target, after GST_MXL_FABRICS_SINK_CREDIT_WAIT_MS: that target is
 * stalled (a log WARNING), until a later grain finds its credit. The
 * caller then transfers the grain to whoever can take it. Returns at once
 * with a live input, no initiator, or when every target can take it. engine_lock (obj->lock) held, released while waiting.
 */
void gst_mxl_fabrics_sink_wait_credit (struct _GstMxlFabricsSink * sink,
    guint64 index);

/**
 * gst_mxl_fabrics_sink_credit_holds_back:
 *
 * Whether the input is held back by credits: not live (sink->upstream_live
 * asked, 0), a grain flow, an initiator, and some connected target that is
 * not stalled uses credits (mxlFabricsExtInitiatorTargetStats.credits).
 * Such an input loses no grain to a slow transfer either: sinkwrite.c then
 * waits up to GST_MXL_FABRICS_SINK_CREDIT_WAIT_MS for a grain's local ring
 * slot to be sent instead of a quarter period (a burst of credits posts
 * grains faster than the transfers of their slots' previous grains
 * complete). engine_lock (obj->lock) held.
 */
gboolean gst_mxl_fabrics_sink_credit_holds_back (struct _GstMxlFabricsSink *
    sink);

/**
 * gst_mxl_fabrics_sink_engine_take_no_credit:
 *
 * After a TransferGrain (engine_lock held): marks each connected target
 * whose grainsNoCredit (mxlFabricsExtInitiatorGetTargetStats()) rose
 * since the last call, the targets the initiator did not give the grain
 * to for want of a credit, for the count of that grain that follows
 * (gst_mxl_fabrics_sink_engine_count_transfer() or _count_dropped(),
 * mxlfabricssinkconn.h).
 *
 * Returns: how many targets it marked.
 */
guint gst_mxl_fabrics_sink_engine_take_no_credit (struct _GstMxlFabricsSink *
    sink);

G_END_DECLS
