/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What mxlfabricssink and mxlfabricssrc share (after gst-plugins-bad
 * ext/srt/gstsrtobject.c): the common properties and their enum types, the
 * connection state with its notify and bus message, the element messages, the
 * stats structure, and the reading of "JSON or @path" property values.
 *
 * Element messages (GST_MESSAGE_ELEMENT, posted by the element):
 *
 *  "mxl-fabrics-target-info" (src, when its target is ready, and again if the
 *      TargetInfo changes)
 *      target-info  G_TYPE_STRING  the TargetInfo JSON to hand to the sink.
 *          It holds remote keys: treat as sensitive.
 *
 *  "mxl-fabrics-connection" (both, on every change of connection-state and
 *      on every change of one target's connection)
 *      state        GstMxlFabricsConnectionState  the element's state after
 *          the change (sink: connected when at least one target is, else
 *          connecting while a target is being (re)connected or its
 *          TargetInfo file is awaited, else disconnected)
 *      target-id    G_TYPE_STRING  the TargetInfo id (decimal) of the target
 *          concerned, "" when the change is the element's own (the src
 *          listening, an error)
 *      target-state GstMxlFabricsConnectionState  that target's own state
 *          (equal to state when target-id is "")
 *      reason       G_TYPE_STRING  why, when there is a reason (errors,
 *          disconnections, "TargetInfo file changed"); absent otherwise
 *
 *  "mxl-fabrics-bad-input" (src, when the target rejected input from the
 *      network since the last check: at most once per 200 ms stats refresh;
 *      the data is dropped, streaming goes on)
 *      bad-immediate-data  G_TYPE_UINT64  totals since start, as in stats:
 *      bad-grain-headers   G_TYPE_UINT64    immediate data naming a slot,
 *      bad-bounce-entries  G_TYPE_UINT64    slice end or bounce entry out of
 *          range; grain headers whose index is not the slot's or whose
 *          geometry is not the flow's; bounce entry headers (head, count)
 *          out of range
 *
 *  "application/x-mxl-fabrics-stats" (both, every `stats-interval` ms
 *      while PAUSED or PLAYING when it is not 0): the stats structure
 *      below, exactly what the `stats` property returns then.
 *
 *  "mxl-fabrics-timeout" (src, when no grain arrived for `timeout` ns)
 *      timeout      G_TYPE_UINT64  the timeout property value, ns
 *      last-index   G_TYPE_UINT64  last grain/sample head index received,
 *          G_MAXUINT64 when none yet
 *
 * Stats structure "application/x-mxl-fabrics-stats" (the `stats` property):
 *      connection-state, last-error, the counters of the tables in
 *      mxlfabricsstats.c (GstMxlFabricsStatField, the one list of stats:
 *      the element's counters, the library's engine counters, and the sink's
 *      `targets` array of "target" structures); every field with its
 *      meaning: docs/bus-and-stats.md, checked against those tables by
 *      tests/gst/test-object.c.
 */
#pragma once

#include <gst/gst.h>
#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>

G_BEGIN_DECLS

/**
 * GstMxlFabricsProvider:
 *
 * The numeric values equal mxlFabricsProvider (mxl/fabrics.h): auto = ANY;
 * the other values are the library's own (mxlFabricsProvider, and
 * MXL_FABRICS_EXT_PROVIDER_TCP_RXM of mxl/fabrics-ext.h for tcp;ofi_rxm):
 * the GType's values are built from the library's list,
 * mxlFabricsExtGetProvider() (mxlfabricsprops.c).
 */
typedef enum {
  GST_MXL_FABRICS_PROVIDER_AUTO = 0,
} GstMxlFabricsProvider;

/**
 * GstMxlFabricsConnectionState:
 * @GST_MXL_FABRICS_CONNECTION_DISCONNECTED: nothing set up, or the last
 *   target went away.
 * @GST_MXL_FABRICS_CONNECTION_LISTENING: src: target endpoint set up,
 *   TargetInfo published, waiting for an initiator.
 * @GST_MXL_FABRICS_CONNECTION_CONNECTING: sink: connecting to a target
 *   (first time or reconnecting).
 * @GST_MXL_FABRICS_CONNECTION_CONNECTED: transfers flow.
 * @GST_MXL_FABRICS_CONNECTION_STALLED: src: connected but no grain for
 *   `timeout` ns (no data is not a disconnection).
 * @GST_MXL_FABRICS_CONNECTION_ERROR: a fatal error was posted; sink: also
 *   when every target failed, and a target's own state when it failed
 *   (the others go on).
 */
typedef enum {
  GST_MXL_FABRICS_CONNECTION_DISCONNECTED = 0,
  GST_MXL_FABRICS_CONNECTION_LISTENING,
  GST_MXL_FABRICS_CONNECTION_CONNECTING,
  GST_MXL_FABRICS_CONNECTION_CONNECTED,
  GST_MXL_FABRICS_CONNECTION_STALLED,
  GST_MXL_FABRICS_CONNECTION_ERROR,
} GstMxlFabricsConnectionState;

GType gst_mxl_fabrics_provider_get_type (void);
#define GST_TYPE_MXL_FABRICS_PROVIDER (gst_mxl_fabrics_provider_get_type ())
GType gst_mxl_fabrics_connection_state_get_type (void);
#define GST_TYPE_MXL_FABRICS_CONNECTION_STATE \
  (gst_mxl_fabrics_connection_state_get_type ())

#define GST_MXL_FABRICS_DEFAULT_PROVIDER GST_MXL_FABRICS_PROVIDER_AUTO
#define GST_MXL_FABRICS_DEFAULT_NODE ""
#define GST_MXL_FABRICS_DEFAULT_SERVICE ""
#define GST_MXL_FABRICS_DEFAULT_DOMAIN ""
#define GST_MXL_FABRICS_DEFAULT_FLOW_ID ""
#define GST_MXL_FABRICS_DEFAULT_OPTIONS ""
/* "progressThread" where the element's `options` do not set it: on for the
 * src's target, off for the sink's initiator (why: mxlfabricsopen.c,
 * with_progress_thread()); the open code applies it and the `options` help
 * says it (mxlfabricsprops.c), both from here. */
#define GST_MXL_FABRICS_SRC_PROGRESS_THREAD TRUE
#define GST_MXL_FABRICS_SINK_PROGRESS_THREAD FALSE

#define GST_MXL_FABRICS_STATS_NAME "application/x-mxl-fabrics-stats"
#define GST_MXL_FABRICS_MESSAGE_TARGET_INFO "mxl-fabrics-target-info"
#define GST_MXL_FABRICS_MESSAGE_CONNECTION "mxl-fabrics-connection"
#define GST_MXL_FABRICS_MESSAGE_TIMEOUT "mxl-fabrics-timeout"
#define GST_MXL_FABRICS_MESSAGE_BAD_INPUT "mxl-fabrics-bad-input"

/* Property ids of the common properties; elements number theirs from
 * GST_MXL_FABRICS_PROP_LAST. */
enum {
  GST_MXL_FABRICS_PROP_0,
  GST_MXL_FABRICS_PROP_PROVIDER,
  GST_MXL_FABRICS_PROP_NODE,
  GST_MXL_FABRICS_PROP_SERVICE,
  GST_MXL_FABRICS_PROP_DOMAIN,
  GST_MXL_FABRICS_PROP_FLOW_ID,
  GST_MXL_FABRICS_PROP_OPTIONS,
  GST_MXL_FABRICS_PROP_CONNECTION_STATE,
  GST_MXL_FABRICS_PROP_STATS,
  GST_MXL_FABRICS_PROP_LAST
};

typedef struct {
  guint64 buffers;
  guint64 grains;
  guint64 bytes;
  guint64 dropped;              /* total of the dropped-* causes below */
  guint64 dropped_no_target;    /* sink: no connected target */
  guint64 dropped_late;         /* src: lapped (slot overwritten before read) */
  guint64 dropped_torn;         /* src: overwritten while being copied */
  guint64 dropped_missing;      /* src: index never arrived (gap) */
  guint64 dropped_skipped;      /* src: skipped re-aligning to the head */
  guint64 dropped_early;        /* src: before running time 0; sink: no
                                 * index (no clock/segment) */
  guint64 dropped_in_flight;    /* sink: ring slot still being sent */
  guint64 dropped_no_credit;    /* sink: no connected target had a credit
                                 * for it (sinkcredit.h) */
  guint64 left_out_late;        /* sink: indices left out re-aligning a late
                                 * input (not buffers: not in dropped) */
  guint64 skipped_at_start;     /* src: grains that arrived before the first
                                 * pushed one, skipped (a ring behind, or
                                 * made before the src started; not in
                                 * dropped) */
  guint64 lapped_at_start;      /* src: of skipped_at_start, the grains
                                 * lapped before the library could commit
                                 * them (not in grains-received) */
  guint64 grains_lent;          /* sink: sent from the buffer (zero-copy) */
  guint64 credit_releases;      /* src: grains released to the sender
                                   (credits, srccredit.h) */
  guint64 credit_release_failures; /* src: releases the target refused */
  guint64 credits_held;         /* src: zero-copy buffers downstream still
                                   holds (a ring slot each) */
  guint64 anc_packets_dropped;  /* ANC packets bad, cut short or too many */
  guint64 invalid;
  guint64 discont;
  guint64 reconnects;
  guint64 timeouts;
  /* over the last window (mxlfabricsstats.c, stats timer): sink sent,
   * src received */
  guint64 grains_per_second;
  guint64 bytes_per_second;
  /* src: arrival minus origin time of grains (ns), the last one and the
   * median of the last GST_MXL_FABRICS_LATENCY_KEPT */
  guint64 latency_last;
  guint64 latency_median;
} GstMxlFabricsCounters;

/* One-way latencies kept for latency-median. */
#define GST_MXL_FABRICS_LATENCY_KEPT 32
/* The receive / send rate is taken over windows of about this (µs). */
#define GST_MXL_FABRICS_RATE_WINDOW_US G_USEC_PER_SEC
/* A window closes once it is this long (µs): 7/8 of the window, so that a
 * timer tick a period after the last, which the monotonic clock may see a
 * little under the period, does not leave the rate a tick behind. */
#define GST_MXL_FABRICS_RATE_WINDOW_MIN_US \
  (GST_MXL_FABRICS_RATE_WINDOW_US - GST_MXL_FABRICS_RATE_WINDOW_US / 8)

/**
 * GstMxlFabricsObject:
 *
 * Settings and state shared by both elements. Settings and counters are
 * protected by the element's object lock.
 */
typedef struct {
  GstElement *element;          /* not owned */
  GstMxlFabricsProvider provider;
  gchar *node;
  /* @node resolved by start() when it is a host name
   * (gst_mxl_fabrics_open_resolve_node()), else NULL */
  gchar *resolved_node;
  gchar *service;
  gchar *domain;
  gchar *flow_id;
  gchar *options;
  GstMxlFabricsConnectionState state;
  GstMxlFabricsCounters counters;
  /* nullable: appends the sink's `targets` stats ("target" structures,
   * built from its target list) to @targets, an initialised
   * GST_TYPE_ARRAY; called without the object lock */
  void (*targets_stats) (gpointer data, GValue * targets);
  gpointer targets_stats_data;
  /* Engine counters (ext stats API), merged into stats; nullable. */
  GstStructure *engine_stats;
  gchar *last_error;
  /* gst_mxl_fabrics_object_post_error() posted since the last start */
  gboolean error_posted;

  /* The connection lock: the engine objects (sink: initiator, targets,
   * lender; src: waits of the streaming thread) are used under it, and
   * @cond is broadcast on every change a waiting thread may look for
   * (a target connected, unlock). */
  GMutex lock;
  GCond cond;
  gboolean flushing;            /* lock: between unlock and unlock_stop */
  /* nullable: called by unlock after the broadcast, without the lock, to
   * wake a thread blocked in the library (the src's target read) */
  void (*wake) (gpointer data);
  gpointer wake_data;

  /* The stats timer (mxlfabricsstats.c), armed while PAUSED or PLAYING: a
   * single-shot wait of the system clock, re-armed by its callback on the
   * clock's own thread, never the streaming thread. */
  guint stats_interval;         /* object lock: ms, 0 = no messages */
  GRecMutex timer_lock;         /* held by the callback and by stop */
  GstClockID timer_id;          /* timer_lock: the armed wait, or NULL */
  /* object lock: the open rate window's start (monotonic µs, 0: none) and
   * the counters then; the same for the window closed last (0: none yet) */
  gint64 rate_since_us;
  guint64 rate_grains, rate_bytes;
  gint64 rate_prev_since_us;
  guint64 rate_prev_grains, rate_prev_bytes;
  /* object lock: the last one-way latencies (ns), a ring */
  guint64 latency_kept[GST_MXL_FABRICS_LATENCY_KEPT];
  guint n_latency, latency_next;
} GstMxlFabricsObject;

GstMxlFabricsObject *gst_mxl_fabrics_object_new (GstElement * element);
void gst_mxl_fabrics_object_free (GstMxlFabricsObject * obj);

/**
 * gst_mxl_fabrics_object_unlock:
 * GstBaseSink/GstBaseSrc unlock: sets flushing, wakes every thread waiting
 * on the object's cond and calls the wake hook, so that a render or create
 * blocked waiting returns at once (GstBaseSink/GstBaseSrc docs, "unlock").
 */
void gst_mxl_fabrics_object_unlock (GstMxlFabricsObject * obj);

/** unlock_stop: clears flushing. */
void gst_mxl_fabrics_object_unlock_stop (GstMxlFabricsObject * obj);

/** Returns: whether unlock was called and unlock_stop not yet (takes the
 * lock: call without it). */
gboolean gst_mxl_fabrics_object_is_flushing (GstMxlFabricsObject * obj);

/** Installs provider, node, service, domain, flow-id, options,
 * connection-state and stats (ids GST_MXL_FABRICS_PROP_*). */
void gst_mxl_fabrics_object_install_properties (GObjectClass * klass);

/**
 * GstMxlFabricsPropField:
 * A property kept in a field of a struct (@offset bytes in): G_TYPE_STRING
 * (gchar *, owned, "" for NULL), G_TYPE_BOOLEAN, G_TYPE_UINT,
 * G_TYPE_UINT64 or G_TYPE_ENUM (a C enum). The elements' and the shared
 * object's plain properties are tables of these (what a property does
 * beyond storing its value stays in the element's own set_property).
 */
typedef struct {
  guint prop_id;
  GType type;
  gsize offset;
} GstMxlFabricsPropField;

/** Sets or gets property @prop_id of the field table @fields (@n rows)
 * of the struct at @base, under @lock's object lock. Returns: FALSE when
 * @prop_id is not in the table. */
gboolean gst_mxl_fabrics_prop_fields_set (GstObject * lock, gpointer base,
    const GstMxlFabricsPropField * fields, guint n, guint prop_id,
    const GValue * value);
gboolean gst_mxl_fabrics_prop_fields_get (GstObject * lock, gpointer base,
    const GstMxlFabricsPropField * fields, guint n, guint prop_id,
    GValue * value);

/** Returns: FALSE if @prop_id is not a common property. */
gboolean gst_mxl_fabrics_object_set_property (GstMxlFabricsObject * obj,
    guint prop_id, const GValue * value);
gboolean gst_mxl_fabrics_object_get_property (GstMxlFabricsObject * obj,
    guint prop_id, GValue * value);

/**
 * gst_mxl_fabrics_object_validate:
 * Checks the settings before setup: flow-id empty or a UUID, options empty or
 * a JSON object that mxlFabricsExtValidateOptions() accepts: keys of the
 * library's option table (src/fabrics/protocol/options.c), with the values
 * setup would take (setup ignores unknown keys; a typo here would silently
 * do nothing), the reason naming the key.
 * @error: GST_RESOURCE_ERROR_SETTINGS naming the property to fix.
 */
gboolean gst_mxl_fabrics_object_validate (GstMxlFabricsObject * obj,
    GError ** error);

/**
 * gst_mxl_fabrics_object_set_state:
 * @target_id: (nullable): target concerned, NULL = "".
 * @reason: (nullable): why.
 *
 * Sets connection-state; on a change notifies the property and posts
 * "mxl-fabrics-connection". Call without the object lock held.
 */
void gst_mxl_fabrics_object_set_state (GstMxlFabricsObject * obj,
    GstMxlFabricsConnectionState state, const gchar * target_id,
    const gchar * reason);

GstMxlFabricsConnectionState
gst_mxl_fabrics_object_get_state (GstMxlFabricsObject * obj);

/**
 * gst_mxl_fabrics_object_post_bad_input:
 * Posts "mxl-fabrics-bad-input" with the three totals (see above) and logs a
 * WARNING line. Call without the object lock held.
 */
void gst_mxl_fabrics_object_post_bad_input (GstMxlFabricsObject * obj,
    guint64 bad_immediate_data, guint64 bad_grain_headers,
    guint64 bad_bounce_entries);

/**
 * gst_mxl_fabrics_object_count_anc_dropped:
 * @n: ANC packets dropped (> 0).
 * @what: why, for the log line and the WARNING (names counts and sizes).
 *
 * Adds @n to anc-packets-dropped and logs @what at WARNING level; the first
 * drop since start also posts a STREAM FORMAT WARNING with it (ANC is not
 * worth stopping a pipeline; one message, not one per frame) and sets
 * last-error. Call without the object lock held.
 */
void gst_mxl_fabrics_object_count_anc_dropped (GstMxlFabricsObject * obj,
    guint64 n, const gchar * what);

/**
 * gst_mxl_fabrics_object_post_target_change:
 * @state: the element's connection-state after the change (aggregate).
 * @target_id: the target whose connection changed ("" for none).
 * @target_state: that connection's state.
 * @reason: (nullable): why.
 *
 * Sets connection-state (notified when it changes) and always posts
 * "mxl-fabrics-connection" with fields state, target-id, target-state and
 * reason. Call without the object lock held.
 */
void gst_mxl_fabrics_object_post_target_change (GstMxlFabricsObject * obj,
    GstMxlFabricsConnectionState state, const gchar * target_id,
    GstMxlFabricsConnectionState target_state, const gchar * reason);

/**
 * GstMxlFabricsStatTable:
 * Which counters a stats table names: the element's own
 * (GstMxlFabricsCounters), the library's ext stats of an initiator
 * (mxlFabricsExtInitiatorStats, sink) or a target (mxlFabricsExtTargetStats,
 * src), or one of the sink's targets (GstMxlFabricsTargetCounters).
 */
typedef enum {
  GST_MXL_FABRICS_STATS_ELEMENT,
  GST_MXL_FABRICS_STATS_INITIATOR,
  GST_MXL_FABRICS_STATS_TARGET,
  GST_MXL_FABRICS_STATS_SINK_TARGET,
  GST_MXL_FABRICS_STATS_BASESINK,
} GstMxlFabricsStatTable;

/**
 * GstMxlFabricsBaseSinkCounters:
 * GstBaseSink's own counters (gst_base_sink_get_stats()), kept in the
 * sink's stats under names of their own (GST_MXL_FABRICS_STATS_BASESINK):
 * its `stats` property is replaced by ours.
 */
typedef struct {
  guint64 rendered;
  guint64 dropped;
} GstMxlFabricsBaseSinkCounters;

/* The double field GstBaseSink's `average-rate` is kept as (no counter, so
 * not in a table; docs/bus-and-stats.md). */
#define GST_MXL_FABRICS_STATS_BASESINK_AVERAGE_RATE "basesink-average-rate"

/**
 * GstMxlFabricsTargetCounters:
 * The counters of one of the sink's targets (GST_MXL_FABRICS_STATS_SINK_TARGET;
 * docs/bus-and-stats.md, `targets`).
 */
typedef struct {
  guint64 grains;               /* grains transferred to it */
  guint64 bytes;                /* payload bytes of those */
  guint64 dropped;              /* grains this target did not get */
  guint64 dropped_no_credit;    /* of those, because it had no credit for
                                 * them (its grainsNoCredit, sinkcredit.h) */
  guint64 reconnects;
} GstMxlFabricsTargetCounters;

/**
 * GstMxlFabricsStatField:
 * One stats field: its name in the stats structure and the offset of its
 * 64-bit counter in the struct of its table. These tables are the only list
 * of stats: the stats structure is built from them, and
 * docs/bus-and-stats.md is checked against them (tests/gst/test-object.c).
 */
typedef struct {
  const gchar *name;
  gsize offset;
} GstMxlFabricsStatField;

/** Returns: (transfer none): the fields of @table, *@n of them. */
const GstMxlFabricsStatField *gst_mxl_fabrics_stat_fields
    (GstMxlFabricsStatTable table, guint * n);

/** Sets every field of @table on @s (G_TYPE_UINT64), read from @base, a
 * struct of @table's type. */
void gst_mxl_fabrics_stats_set (GstStructure * s,
    GstMxlFabricsStatTable table, gconstpointer base);

/** Replaces the engine counters merged into stats with those of
 * @engine_stats, a struct of @table's type (copied). */
void gst_mxl_fabrics_object_set_engine_stats (GstMxlFabricsObject * obj,
    GstMxlFabricsStatTable table, gconstpointer engine_stats);

/** Records the last error/warning text shown in stats as last-error. */
void gst_mxl_fabrics_object_set_last_error (GstMxlFabricsObject * obj,
    const gchar * text);

/** Resets counters, engine stats and last-error (start). */
void gst_mxl_fabrics_object_reset_stats (GstMxlFabricsObject * obj);

/** Posts "mxl-fabrics-target-info". The TargetInfo is logged only at LOG
 * level (it holds remote keys). */
void gst_mxl_fabrics_object_post_target_info (GstMxlFabricsObject * obj,
    const gchar * target_info);

/** Posts "mxl-fabrics-timeout" and counts it. */
void gst_mxl_fabrics_object_post_timeout (GstMxlFabricsObject * obj,
    GstClockTime timeout, guint64 last_index);

/** Posts an ERROR message from @error (its domain and code), with @debug,
 * and moves connection-state to error. */
void gst_mxl_fabrics_object_post_error (GstMxlFabricsObject * obj,
    const GError * error, const gchar * debug);

/**
 * gst_mxl_fabrics_object_post_message:
 * @parent_class: the element's parent class, whose post_message posts.
 * @message: (transfer full): what the element posts.
 *
 * The elements' GstElementClass.post_message. When start() returns FALSE,
 * GstBaseSrc (READY->PAUSED) and GstBaseSink (NULL->READY) of GStreamer 1.22
 * always post a fallback ERROR of their own, CORE_ERROR_STATE_CHANGE ("state
 * change failed and some element failed to post a proper error message"),
 * even when the element already posted one. Every start() of ours posts its
 * ERROR with gst_mxl_fabrics_object_post_error() before returning FALSE, so
 * that fallback is dropped here when ours came first: the bus gets exactly
 * one ERROR, the one that says what to fix. Any other message is posted.
 *
 * Returns: what @parent_class's post_message returns; FALSE when dropped.
 */
gboolean gst_mxl_fabrics_object_post_message (GstMxlFabricsObject * obj,
    GstElementClass * parent_class, GstMessage * message);

/** Returns: (transfer full): the stats structure described above (the
 * sink's with GstBaseSink's counters: rendered, basesink-dropped,
 * basesink-average-rate). Call without the object lock. */
GstStructure *gst_mxl_fabrics_object_build_stats (GstMxlFabricsObject * obj);

/** Returns: (transfer full): the spec of `stats-interval` (guint ms, 0 =
 * off, the default), which both elements install under their own id. */
GParamSpec *gst_mxl_fabrics_stats_interval_pspec (void);

/** Sets `stats-interval` (ms); a timer armed now is re-armed with it. */
void gst_mxl_fabrics_object_set_stats_interval (GstMxlFabricsObject * obj,
    guint interval_ms);
guint gst_mxl_fabrics_object_get_stats_interval (GstMxlFabricsObject * obj);

/** With `stats-interval` set, posts the stats structure as an element
 * message now, as the timer does: the element's end of stream (the sink
 * once its EOS settled, the src as its EOS leaves), so that the last
 * message a gst-launch-1.0 -m user sees holds the final counts. Any thread
 * but the clock's; without the object lock. */
void gst_mxl_fabrics_object_post_final_stats (GstMxlFabricsObject * obj);

/**
 * gst_mxl_fabrics_object_change_state:
 * @parent_class: the element's parent class, whose change_state runs.
 *
 * The elements' GstElementClass.change_state: after READY->PAUSED
 * succeeded it arms the stats timer, before PAUSED->READY it stops it
 * (after that no stats message is posted). The timer, every
 * `stats-interval` ms (1 s when 0), closes the rate window once it is at
 * least GST_MXL_FABRICS_RATE_WINDOW_MIN_US long (grains-per-second,
 * bytes-per-second; until the first closes, the rate over the open one)
 * and, when `stats-interval` is set, posts the stats
 * structure as an element message ("application/x-mxl-fabrics-stats",
 * above). It runs on the system clock's thread (gst_clock_id_wait_async):
 * never the streaming thread.
 *
 * Returns: what @parent_class's change_state returns.
 */
GstStateChangeReturn gst_mxl_fabrics_object_change_state
    (GstMxlFabricsObject * obj, GstElementClass * parent_class,
    GstStateChange transition);

/**
 * gst_mxl_fabrics_object_record_latency:
 * @latency: ns: a grain's arrival minus its origin time (both TAI,
 *   <mxl/time.h>), 0 when it arrived before its origin time.
 *
 * Sets latency-last and latency-median (the median of the last
 * GST_MXL_FABRICS_LATENCY_KEPT). Call without the object lock.
 */
void gst_mxl_fabrics_object_record_latency (GstMxlFabricsObject * obj,
    GstClockTime latency);

/** The qsort() order of guint64 (and GstClockTime) values, ascending. */
int gst_mxl_fabrics_cmp_u64 (gconstpointer a, gconstpointer b);

/* The most bytes read from the file of an "@path" value: the library's
 * bound (<mxl/fabrics-ext.h>), so that a FIFO or a device such as
 * /dev/zero cannot make start() read forever or fill memory. */
#define GST_MXL_FABRICS_MAX_FILE_BYTES \
  MXL_FABRICS_EXT_TARGET_INFO_MAX_FILE_BYTES

/**
 * gst_mxl_fabrics_load_value:
 * @value: a property value: literal text, or "@path" to read a file with
 *   the library's bounded reader (mxlFabricsExtReadUserFile(): at most
 *   GST_MXL_FABRICS_MAX_FILE_BYTES, opened non-blocking: a FIFO without a
 *   writer reads as empty, one whose writer is silent fails after 1 s).
 * @contents: (out) (transfer full): the text.
 * @error: GST_RESOURCE_ERROR_NOT_FOUND / _READ for a file that cannot be
 *   read, is larger than the limit (the message names the file and the
 *   limit) or stays silent, naming the path.
 *
 * Returns: TRUE on success.
 */
gboolean gst_mxl_fabrics_load_value (const gchar * value, gchar ** contents,
    GError ** error);

/**
 * GstMxlFabricsTargetInfoSource:
 * How a sink target-info value is given: literal JSON, base64 of the JSON,
 * or "@path" (read, maybe later: the file may not exist yet).
 */
typedef enum {
  GST_MXL_FABRICS_TARGET_INFO_JSON,
  GST_MXL_FABRICS_TARGET_INFO_BASE64,
  GST_MXL_FABRICS_TARGET_INFO_FILE,
} GstMxlFabricsTargetInfoSource;

/**
 * gst_mxl_fabrics_target_info_to_json:
 * @info: a TargetInfo of the library.
 *
 * The TargetInfo document as the library writes it
 * (mxlFabricsTargetInfoToString(): size query, then the text), the one
 * text of a target whatever form it was given in.
 *
 * Returns: (transfer full) (nullable): the JSON, NULL when the library
 * cannot write it.
 */
gchar *gst_mxl_fabrics_target_info_to_json (mxlFabricsTargetInfo info);

/**
 * gst_mxl_fabrics_target_info_resolve:
 * @value: the property/signal value.
 * @source: (out) (optional): how it was given.
 * @json: (out) (transfer full): the JSON text; for a file that does not
 *   exist yet, NULL with TRUE returned (wait for it).
 * @path: (out) (optional) (transfer full): the path for "@path", else NULL.
 * @id: (out) (optional): the TargetInfo's id (mxlFabricsExtTargetInfoGetId)
 *   when @json is set, else 0: the document is parsed once, here.
 * @error: GST_RESOURCE_ERROR_SETTINGS when the value is neither JSON, nor
 *   base64 of a JSON object, nor "@path", or the library gives no id;
 *   GST_RESOURCE_ERROR_READ for an existing file that cannot be read; the
 *   JSON must have an object root.
 *
 * Returns: TRUE when @value is usable (now or once the file appears).
 */
gboolean gst_mxl_fabrics_target_info_resolve (const gchar * value,
    GstMxlFabricsTargetInfoSource * source, gchar ** json, gchar ** path,
    guint64 * id, GError ** error);

/**
 * gst_mxl_fabrics_target_info_resolve_parsed:
 * @parsed: (out) (optional) (transfer full): the TargetInfo the library
 *   parsed when @json is set (mxlFabricsFreeTargetInfo()), else NULL: the
 *   caller keeps it instead of parsing @json again.
 *
 * gst_mxl_fabrics_target_info_resolve() that also gives the parsed
 * TargetInfo; the other arguments and the errors are the same.
 */
gboolean gst_mxl_fabrics_target_info_resolve_parsed (const gchar * value,
    GstMxlFabricsTargetInfoSource * source, gchar ** json, gchar ** path,
    guint64 * id, mxlFabricsTargetInfo * parsed, GError ** error);

G_END_DECLS
