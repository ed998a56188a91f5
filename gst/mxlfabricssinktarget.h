/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sink's targets, in the manner of multiudpsink's clients: one list
 * (GstMxlFabricsSink.targets) under one lock (the engine lock, obj->lock),
 * each target one GstMxlFabricsSinkTarget with an explicit tagged state
 * (GstMxlFabricsSinkTargetState: the data valid in a state lives in it),
 * moved only by gst_mxl_fabrics_sink_target_set_state(), which refuses a
 * move its table (sinktargetstate.c) does not allow. add-target,
 * remove-target and the target-info property act on the list directly;
 * the engine thread (mxlfabricssinkconn.c) drives the initiator, reads
 * @path files on their GFileMonitor events, fetches http:// TargetInfos
 * (sinktargeturl.h; AWAITING_FILE until the first document) and feeds
 * connection events in.
 *
 *   IDLE ──(file missing)──> AWAITING_FILE ──(file read)──> IDLE
 *   IDLE ──(added to the initiator)──> CONNECTING ──(event)──> CONNECTED
 *   CONNECTED ──(event lost)──> LOST{retry_at} ──(event idle)──> CONNECTING
 *   (the library retries a lost connection at retry_at with its back-off)
 *   any ──(bad TargetInfo, refused, lost without auto-reconnect)──> FAILED
 *   FAILED / any ──(@path file or URL document changed, stop)──> IDLE
 *
 * One WARNING per transition into LOST or FAILED (none while it stays).
 */
#pragma once

#include "mxlfabricssink.h"
#include "sinkfetch.h"

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum {
  GST_MXL_FABRICS_SINK_TARGET_IDLE,     /* TargetInfo known (or to be read
                                         * again), not on the initiator */
  GST_MXL_FABRICS_SINK_TARGET_AWAITING_FILE,    /* @path file not there */
  GST_MXL_FABRICS_SINK_TARGET_CONNECTING,       /* on the initiator */
  GST_MXL_FABRICS_SINK_TARGET_CONNECTED,
  GST_MXL_FABRICS_SINK_TARGET_LOST,     /* the library retries it at
                                         * u.lost.retry_at_us */
  GST_MXL_FABRICS_SINK_TARGET_FAILED,   /* left alone until its file changes */
} GstMxlFabricsSinkTargetKind;

/* On the initiator (CONNECTING, CONNECTED, LOST): the TargetInfo added to
 * it, owned; it travels with the target between these three states. */
typedef struct {
  GstMxlFabricsSinkTargetKind kind;
  union {
    struct {
      mxlFabricsTargetInfo info;
      guint refused;            /* failed connection attempts in a row */
      gboolean taken;           /* refused: the receiver has another sender */
    } connecting;
    struct {
      mxlFabricsTargetInfo info;
    } connected;
    struct {
      mxlFabricsTargetInfo info;
      gint64 retry_at_us;       /* monotonic: the library's retry time
                                 * (its LOST event's retryAtNs) */
      guint delay_ms;           /* from the loss to it */
      const gchar *why;         /* static text */
    } lost;
    struct {
      GError *error;            /* owned */
    } failed;
  } u;
} GstMxlFabricsSinkTargetState;

/* GstMxlFabricsSinkTarget.after_loss */
#define GST_MXL_FABRICS_SINK_LOSS_NONE 0
#define GST_MXL_FABRICS_SINK_LOSS_UNCOUNTED 1   /* lost, its reconnect not counted yet */
#define GST_MXL_FABRICS_SINK_LOSS_COUNTED 2     /* lost, its reconnect counted */

struct _GstMxlFabricsSinkTarget {
  gchar *value;                 /* as given (JSON, base64 or @path) */
  gchar *path;                  /* file of an @path value, else NULL */
  GstMxlFabricsSinkFetch *fetch;        /* of an http:// value, else NULL
                                         * (sinktargeturl.h) */
  gchar *json;                  /* TargetInfo JSON in use; NULL: to be read */
  /* the TargetInfo parsed from json, owned, until it goes on the
   * initiator (then the state holds it, gst_mxl_fabrics_sink_target_info);
   * NULL while on it or once taken off (plugged again from json) */
  mxlFabricsTargetInfo parsed;
  gboolean have_id;             /* json parsed: id is its TargetInfo id */
  guint64 id;
  gchar id_str[24];
  GstMxlFabricsSinkTargetState state;
  /* the flow of the last TargetInfo read, what the CAPS query answers
   * with: parsed once, when json is set (gst_mxl_fabrics_sink_caps_read_target(),
   * sinkcaps.h); kept while json is cleared to be read again (stop) */
  gboolean have_flow;           /* json carries a flow the library takes */
  guint64 flow_target_id;       /* json's TargetInfo id */
  GstMxlFabricsFormat flow;
  /* the watch of an @path file, in every state */
  GFileMonitor *monitor;        /* @path watched (engine thread's context) */
  gboolean watch_tried;
  gboolean file_dirty;          /* re-read the file */
  gint64 file_checked_us;
  GstMxlFabricsTargetCounters counters;        /* its `targets` stats */
  guint64 behind_drops;         /* of which because it was behind */
  guint64 behind_warned;        /* behind_drops at the last WARNING */
  gint64 behind_warned_us;
  guint64 seen_skipped, seen_dropped;   /* initiator's target counters */
  /* the credit extension (sinkcredit.h): the initiator's grainsNoCredit
   * of it as last seen; whether the last transfer had no credit for it
   * (set by gst_mxl_fabrics_sink_engine_take_no_credit(), taken by the
   * count of that transfer); whether a render that is not live waited
   * for its credit in vain (GST_MXL_FABRICS_SINK_CREDIT_WAIT_MS) and so
   * no longer waits for it until it has credit again */
  guint64 seen_no_credit;
  gboolean no_credit_now;
  gboolean credit_stalled;
  /* lost and not connected again since, with the TargetInfo it had then
   * (GST_MXL_FABRICS_SINK_LOSS_*): the loss is one WARNING and one
   * reconnect, counted at the library's retry or at the change of an
   * @path file, whichever comes first; for an @path target the attempts
   * that fail until its file changes (a restarted receiver writes a new
   * one) are expected, no "not reachable" WARNING */
  guint after_loss;
};

/* What a change found, posted once engine_lock is released (a bus sync
 * handler may call back into the element). */
typedef struct {
  GstMessageType type;          /* ERROR, WARNING, or ELEMENT (connection) */
  GError *error;
  gchar *debug;
  GstMxlFabricsConnectionState state;   /* aggregate after the change */
  gchar *target_id;
  GstMxlFabricsConnectionState target_state;
  gchar *reason;
} GstMxlFabricsSinkNotice;

GPtrArray *gst_mxl_fabrics_sink_notices_new (void);
/** Posts and empties @notices; engine_lock NOT held. */
void gst_mxl_fabrics_sink_notices_post (GstMxlFabricsSink * self,
    GPtrArray * notices);
void gst_mxl_fabrics_sink_notice_problem (GPtrArray * notices,
    GstMessageType type, GQuark domain, gint code, gchar * message,
    const gchar * debug);

/** The public connection state of a target state. */
GstMxlFabricsConnectionState
gst_mxl_fabrics_sink_target_public_state (GstMxlFabricsSinkTargetKind kind);

/* How messages, logs and stats name @t: its value, a URL without its
 * userinfo (gst_mxl_fabrics_sink_fetch_shown()). */
static inline const gchar *
gst_mxl_fabrics_sink_target_shown (const GstMxlFabricsSinkTarget * t)
{
  return gst_mxl_fabrics_sink_fetch_shown (t->fetch, t->value);
}

/** The TargetInfo on the initiator: the one of an on-initiator state
 * (CONNECTING, CONNECTED, LOST), else NULL. (transfer none) */
mxlFabricsTargetInfo gst_mxl_fabrics_sink_target_info (const
    GstMxlFabricsSinkTarget * t);

/** Frees what @s owns (its TargetInfo, its error); the kind stays. */
void gst_mxl_fabrics_sink_target_state_clear (GstMxlFabricsSinkTargetState *
    s);

/**
 * gst_mxl_fabrics_sink_target_set_state:
 * @t: a target of self->targets; engine_lock held.
 * @next: the new state. A FAILED one's error is taken; so is the info of a
 *   CONNECTING one entered from IDLE (the TargetInfo just added to the
 *   initiator). Between on-initiator states the info travels from the
 *   current state (@next's is ignored); leaving them frees it (the caller
 *   took it off the initiator first, or the initiator goes next).
 * @reason: the reason in the target's connection message.
 * @notices: (nullable): where the messages go; NULL for a quiet step.
 *
 * The one function that moves a target between states (its table of
 * allowed moves: sinktargetstate.c): posts the per-target connection
 * message, the WARNING on entering LOST or FAILED, and wakes
 * wait-for-connection. A move the table does not allow is a programming
 * error: g_critical(), the state stays, and what @next owns is freed.
 *
 * Returns: TRUE when @t moved.
 */
gboolean gst_mxl_fabrics_sink_target_set_state (GstMxlFabricsSink * self,
    GstMxlFabricsSinkTarget * t, const GstMxlFabricsSinkTargetState * next,
    const gchar * reason, GPtrArray * notices);

/** The element's connection state: connected while any target is,
 * connecting while any is, error when every target failed, else
 * disconnected; engine_lock held. */
GstMxlFabricsConnectionState
gst_mxl_fabrics_sink_targets_aggregate (GstMxlFabricsSink * self);

/** Counts the connected targets and wakes wait-for-connection when that
 * number changed; engine_lock held. */
void gst_mxl_fabrics_sink_targets_recount (GstMxlFabricsSink * self);

/**
 * gst_mxl_fabrics_sink_parse_target_info:
 * @json: TargetInfo JSON.
 * @error: GST_RESOURCE_ERROR_SETTINGS for a document the library refuses
 *   (mxlFabricsExtTargetInfoParse(), the parse of
 *   mxlFabricsTargetInfoFromString() with its reason), with that reason.
 *
 * Returns: (transfer full) (nullable): the TargetInfo (free with
 * mxlFabricsFreeTargetInfo()), NULL on error.
 */
mxlFabricsTargetInfo gst_mxl_fabrics_sink_parse_target_info (const gchar *
    json, GError ** error);

/**
 * gst_mxl_fabrics_sink_check_target_flow:
 * @info: a parsed TargetInfo (gst_mxl_fabrics_sink_parse_target_info()).
 * @fmt: the caps format to compare with the target's flow ("ext.flowDef",
 *   mxlFabricsExtTargetInfoGetFlowDef(); a target without one is trusted).
 * @error: GST_RESOURCE_ERROR_SETTINGS for an invalid flow definition (or
 *   one the library cannot give), GST_STREAM_ERROR_FORMAT when the caps do not match the target's flow.
 */
gboolean gst_mxl_fabrics_sink_check_target_flow (mxlFabricsTargetInfo info,
    const GstMxlFabricsFormat * fmt, GError ** error);

/** Adds a target (add-target, target-info); engine_lock NOT held. Fails
 * with GST_RESOURCE_ERROR_SETTINGS for a TargetInfo the library refuses,
 * GST_RESOURCE_ERROR_BUSY for one already given (by TargetInfo id). */
gboolean gst_mxl_fabrics_sink_targets_add (GstMxlFabricsSink * self,
    const gchar * value, GError ** error);

/** Removes the target given as @value (off the initiator at once): JSON or
 * base64 of the same TargetInfo id in any spelling, or the literal string
 * it was added as (the only match for "@path"); engine_lock NOT held.
 * Returns: TRUE when a target was removed. */
gboolean gst_mxl_fabrics_sink_targets_remove (GstMxlFabricsSink * self,
    const gchar * value);

/** Engine thread, engine_lock held: @text (taken) is the TargetInfo JSON
 * just read from @t's source (an @path file, an http:// URL), @parsed
 * (taken, nullable) the TargetInfo the resolver parsed from it; when it
 * differs from the one in use, @t goes off the initiator (@reason) and back
 * to IDLE with it, for this pass to put it on again. */
void gst_mxl_fabrics_sink_target_take_text (GstMxlFabricsSink * self,
    GstMxlFabricsSinkTarget * t, gchar * text, mxlFabricsTargetInfo parsed,
    const gchar * reason, GPtrArray * notices);

/** Engine thread, engine_lock held: one pass over every target (watches,
 * file re-reads, adds to the initiator). The due @path files are read with
 * engine_lock released (another thread may change the list meanwhile; a
 * read's result is used only for a target still listed). */
void gst_mxl_fabrics_sink_targets_tick (GstMxlFabricsSink * self,
    GPtrArray * notices);

/** Engine thread, engine_lock held, after progress: the initiator's
 * connection events, each one transition (the library retries refused
 * attempts and lost connections with its own back-off; without
 * @auto_reconnect a lost target is taken off the initiator and fails). */
void gst_mxl_fabrics_sink_targets_poll_events (GstMxlFabricsSink * self,
    gboolean auto_reconnect, GPtrArray * notices);

/** Engine thread, engine_lock held: the soonest time a pass is due for a
 * target (the library's retry of a lost one, which progress carries out;
 * an unwatched @path file), or @due. */
gint64 gst_mxl_fabrics_sink_targets_next_due (GstMxlFabricsSink * self,
    gint64 due);

/** Whether a connection attempt is under way on the initiator. */
gboolean gst_mxl_fabrics_sink_targets_connecting (GstMxlFabricsSink * self);

/** The falling-behind WARNINGs of the targets; engine_lock held. */
void gst_mxl_fabrics_sink_targets_update_stats (GstMxlFabricsSink * self,
    gint64 now, GPtrArray * notices);

/**
 * gst_mxl_fabrics_sink_targets_stats:
 * @data: the GstMxlFabricsSink (GstMxlFabricsObject.targets_stats_data).
 * @targets: an initialised GST_TYPE_ARRAY: one "target" structure is
 *   appended per target of the list, its counters (t->counters, updated
 *   as grains are sent) read through their table (mxlfabricsstats.c).
 *
 * GstMxlFabricsObject.targets_stats of the sink; takes engine_lock (call
 * without it and without the object lock).
 */
void gst_mxl_fabrics_sink_targets_stats (gpointer data, GValue * targets);

/** The element's ERROR once every target failed for good. */
void gst_mxl_fabrics_sink_targets_check_all_failed (GstMxlFabricsSink * self,
    GPtrArray * notices);

/** Engine thread leaving (stop()): every target off the initiator, its
 * monitor gone, its counters reset, back to IDLE (kept for a restart). */
void gst_mxl_fabrics_sink_targets_reset (GstMxlFabricsSink * self);

void gst_mxl_fabrics_sink_target_free (GstMxlFabricsSinkTarget * t);

G_END_DECLS
