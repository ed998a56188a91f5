/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sink's engine thread, which drives its targets
 * (mxlfabricssinktarget.h) so that
 * no state change and no render waits for the network. It waits on events
 * (render's posts, the library's notify, GFileMonitor, add/remove, the
 * initiator's wait fd where the provider has one) and ticks only while
 * writes (without a wait fd) or connections are under way. It resolves the
 * requested TargetInfos
 * (waiting for @path files and reading them again when they change), checks
 * each target's flow against the caps, adds and removes targets, drives
 * the initiator (MakeProgressNonBlocking), turns connection events into
 * connection-state, messages and per-target stats; the library retries
 * lost targets with its back-off (setup option "reconnect", which the sink
 * always sets; auto-reconnect=false removes a lost target instead).
 */
#pragma once

#include "mxlfabricssink.h"

G_BEGIN_DECLS

/* Without the library's progress thread (the sink's default): period of
 * the engine thread while a connection or lent buffers are under way (with
 * the initiator's wait fd: the deadline of a wait on it), and while
 * transfers are in flight without a wait fd (us; with one: the pause
 * after a wake-up by the fd that ended no transfer); a connection attempt
 * is ticked at the busy period for CONNECT_FAST_MS. At rest it waits for
 * events and the STATS_MS refresh only. */
#define GST_MXL_FABRICS_SINK_TICK_MS 5
#define GST_MXL_FABRICS_SINK_BUSY_TICK_US 200
/* Without a wait fd the busy period doubles after each pass that ended no
 * transfer, up to this (us); it starts again at BUSY_TICK_US. */
#define GST_MXL_FABRICS_SINK_BUSY_TICK_MAX_US 800
#define GST_MXL_FABRICS_SINK_CONNECT_FAST_MS 100
/* Re-reading of an @path file that no GFileMonitor watches (ms). */
#define GST_MXL_FABRICS_SINK_FILE_CHECK_MS 100
/* Refresh of stats and per-target WARNINGs (ms): at rest the engine
 * thread's only wake-up. */
#define GST_MXL_FABRICS_SINK_STATS_MS 100
/* At most one "falling behind" WARNING per target per this (ms). */
#define GST_MXL_FABRICS_SINK_BEHIND_WARN_MS 5000
/* Failed connection attempts in a row before a WARNING says so. */
#define GST_MXL_FABRICS_SINK_UNREACHABLE_WARN 3

/**
 * gst_mxl_fabrics_sink_engine_start:
 * Starts the engine thread (start()).
 * @error: GST_RESOURCE_ERROR_OPEN_READ_WRITE with strerror when the eventfd
 *   that wakes the thread cannot be created (e.g. EMFILE); nothing started.
 *
 * Returns: TRUE when the thread runs.
 */
gboolean gst_mxl_fabrics_sink_engine_start (GstMxlFabricsSink * self,
    GError ** error);

/** Stops and joins the engine thread, removes every target and closes the
 * initiator and its local flow (gst_mxl_fabrics_close_initiator(), the
 * close open's failure path uses; stop()). Safe when not started. */
void gst_mxl_fabrics_sink_engine_stop (GstMxlFabricsSink * self);

/* Longest wait of an EOS for the transfers in flight before the stats
 * are refreshed (ms): gst_mxl_fabrics_sink_engine_eos(). */
#define GST_MXL_FABRICS_SINK_SETTLE_MS 500
/* Longest wait of an EOS for its end-of-stream notices (ms). */
#define GST_MXL_FABRICS_SINK_EOS_NOTICE_MS 1000

/**
 * gst_mxl_fabrics_sink_engine_eos:
 *
 * Called at EOS with engine_lock held, before the EOS goes on (and
 * GstBaseSink posts it): posts the grains and batches still pending when a
 * target is connected, drops them otherwise (sinkwait.h); then waits, at
 * most GST_MXL_FABRICS_SINK_SETTLE_MS, until no transfer is in flight, and
 * has the engine thread refresh the stats (the engine's and each
 * target's), so that stats read when the EOS is on the bus count every
 * transfer up to it. A flush or a state change (unlock) ends the wait at
 * once. No wait when the engine is not running. Then, with a target
 * connected, sends the end-of-stream notice
 * (mxlFabricsExtInitiatorSendEndOfStream(), at most
 * GST_MXL_FABRICS_SINK_EOS_NOTICE_MS) to the targets whose TargetInfo
 * advertises it, so that their mxlfabricssrc ends its stream too.
 */
void gst_mxl_fabrics_sink_engine_eos (GstMxlFabricsSink * self);

/** start(): (re)adds the target of the target-info property (a target
 * add-target gave already is kept once, with a WARNING). Returns: FALSE
 * with @error (gst_mxl_fabrics_sink_targets_add()) for a TargetInfo the
 * library refuses. */
gboolean gst_mxl_fabrics_sink_add_property_target (GstMxlFabricsSink * self,
    GError ** error);

/** The add-target action signal: gst_mxl_fabrics_sink_targets_add(), a
 * refusal logged as a WARNING. */
gboolean gst_mxl_fabrics_sink_add_signal_target (GstMxlFabricsSink * self,
    const gchar * value);

/** Makes the engine thread look at the requested targets now. */
void gst_mxl_fabrics_sink_engine_wake (GstMxlFabricsSink * self);

/** Why a connection was lost, in words (a connection event's reason
 * status). Returns: (transfer none): static or interned text. */
const gchar *gst_mxl_fabrics_sink_lost_why (mxlStatus reason);

/**
 * gst_mxl_fabrics_sink_stale_target_error:
 * @t: a target whose connection attempt the receiver at its address refused
 *   as meant for another target (event reason MXL_ERR_NOT_FOUND,
 *   docs/wire-format.md §6.2: a receiver restarted there since its
 *   TargetInfo was published).
 * Returns: (transfer full): GST_RESOURCE_ERROR_NOT_FOUND saying so in words.
 */
GError *gst_mxl_fabrics_sink_stale_target_error (
    const GstMxlFabricsSinkTarget * t);

/** Called with engine_lock held after a transfer of @bytes was posted:
 * counts it on every connected target it was queued on, and as dropped on
 * those the initiator skipped because they were behind (WARNING from the
 * engine thread, at most one per GST_MXL_FABRICS_SINK_BEHIND_WARN_MS) and
 * on those it did not queue it on for want of a credit (also their
 * dropped-no-credit: gst_mxl_fabrics_sink_engine_take_no_credit(),
 * sinkcredit.h). */
void gst_mxl_fabrics_sink_engine_count_transfer (GstMxlFabricsSink * self,
    gsize bytes);

/** Called with engine_lock held when a grain was not transferred at all
 * (its ring slot still read, no target connected, or no connected target
 * had a credit for it): counted on every target added to the initiator,
 * and as dropped-no-credit on those
 * gst_mxl_fabrics_sink_engine_take_no_credit() found without credit. */
void gst_mxl_fabrics_sink_engine_count_dropped (GstMxlFabricsSink * self);

G_END_DECLS
