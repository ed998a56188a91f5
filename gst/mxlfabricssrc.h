/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mxlfabricssrc: an MXL Fabrics target; receives grains or sample batches
 * remotely written into a local MXL flow and pushes them as buffers. */
#pragma once

#include <gst/base/gstpushsrc.h>

#include "caps.h"
#include "localflow.h"
#include "media.h"
#include "srchttp.h"
#include "mxlfabricsobject.h"
#include "timing.h"

G_BEGIN_DECLS

#define GST_TYPE_MXL_FABRICS_SRC (gst_mxl_fabrics_src_get_type ())
G_DECLARE_FINAL_TYPE (GstMxlFabricsSrc, gst_mxl_fabrics_src, GST,
    MXL_FABRICS_SRC, GstPushSrc)

#define GST_MXL_FABRICS_SRC_DEFAULT_FLOW_DEF ""
#define GST_MXL_FABRICS_SRC_DEFAULT_TARGET_INFO_FILE ""
#define GST_MXL_FABRICS_SRC_DEFAULT_TIMEOUT 0
#define GST_MXL_FABRICS_SRC_DEFAULT_RING_LENGTH 0
#define GST_MXL_FABRICS_SRC_DEFAULT_LATENCY 0
#define GST_MXL_FABRICS_SRC_DEFAULT_HTTP_ADDRESS "127.0.0.1"
#define GST_MXL_FABRICS_SRC_DEFAULT_HTTP_PORT 0
#define GST_MXL_FABRICS_SRC_DEFAULT_CREDITS FALSE

/* Longest single wait of the streaming thread for a completion (ms):
 * bounds how often events and the timeout are checked, and so how often an
 * idle src wakes. unlock() does not wait for it: it interrupts the read
 * (mxlFabricsExtTargetInterruptRead). Without the progress thread the
 * target is driven on every wait slice (libfabric's manual progress). */
#define GST_MXL_FABRICS_SRC_READ_WAIT_MS 100

/* Grain indices counted missing that are remembered, so that one arriving
 * late after all moves to dropped-late (the newest ones are kept). */
#define GST_MXL_FABRICS_SRC_MISSED_KEPT 64
/* Latency measurements kept: the reported latency covers all but the two
 * largest of the last ones. */
#define GST_MXL_FABRICS_SRC_LATENESS_KEPT 16
/* Runs of indices the head jumped over (never completed) that are
 * remembered until the src reads past them. Enough for every hole a ring
 * can hold (two holes are a completed index apart, so a ring of
 * MXL_FLOW_MAX_GRAIN_COUNT holds at most half as many), and one more: the
 * src takes no more completions while the list is full, it reads (and
 * re-aligns, which forgets the holes it passes) first, so no hole is
 * forgotten before it is counted (srcholes.h). A forgotten hole would
 * count its indices as grains that arrived (a lapped one, reported by the
 * library, as skipped-at-start or dropped-skipped, not lapped-at-start or
 * dropped-missing). */
#define GST_MXL_FABRICS_SRC_HOLES_KEPT (MXL_FLOW_MAX_GRAIN_COUNT / 2 + 2)

/* A grain or sample index @index to its PTS in *@pts; FALSE when it has
 * none (before running time 0, or an origin time it cannot have).
 * @offset: the pipeline's TAI minus clock offset (timing.h). */
typedef gboolean (*GstMxlFabricsSrcToPts) (struct _GstMxlFabricsSrc * self,
    guint64 index, gint64 offset, GstClockTime * pts);

struct _GstMxlFabricsSrc {
  GstPushSrc parent;

  GstMxlFabricsObject *obj;
  GstMxlFabricsTiming timing;

  /* settings, object lock */
  GstCaps *caps;
  gchar *flow_def;
  gchar *target_info;           /* read-only property: published TargetInfo */
  gchar *target_info_file;
  GstClockTime timeout;
  guint ring_length;            /* grains; 0 = automatic */
  guint latency_ms;             /* headroom added to the reported latency */
  gboolean credits_on;          /* the credits property */
  GstClockTime latency;         /* reported min latency (without headroom) */

  /* resolved in start() */
  gboolean have_format;
  /* how a unit index becomes a PTS (srcread.c), chosen in start() from
   * is-live: its origin time on the pipeline clock (live), or its origin
   * time since that of the first pushed unit (not live) */
  GstMxlFabricsSrcToPts to_pts;
  /* not live: the TAI origin time of PTS 0 (GST_CLOCK_TIME_NONE until a
   * unit is pushed, and again after the sender went back to an earlier
   * time base), and the end of the last pushed buffer (PTS + duration),
   * where the PTS goes on after such a change */
  guint64 origin0;
  GstClockTime pts_end;
  GstMxlFabricsFormat format;
  const GstMxlFabricsMediaOps *media;   /* chosen with the format */
  gchar *flow_def_json;         /* definition of the local flow */

  /* engine (created in start(), used by the streaming thread only) */
  GstMxlFabricsLocalFlow flow;
  mxlFabricsTarget target;
  gsize grain_size;             /* payload bytes (discrete flows) */
  GstBufferPool *grain_pool;    /* buffers grains are copied into (grainpool.h) */
  /* with credits on a target that advertises them: the held indices and
   * the zero-copy buffers (srccredit.h); NULL without */
  struct _GstMxlFabricsSrcCredits *credits;
  gboolean have_head;           /* a completion has been seen */
  guint64 head;                 /* newest index completed by the target */
  guint64 next;                 /* next grain index to push */
  gboolean discont;             /* next buffer gets DISCONT */
  gint64 last_data_us;          /* monotonic time of the last grain */
  guint64 last_index;           /* G_MAXUINT64 until a grain was pushed */
  guint64 first_index;          /* the first pushed (valid with last_index) */
  /* before the first pushed grain: the grains counted dropped-early so far
   * in a run of grains with gaps under a ring (early_run), and the index
   * after the run (early_run_next; G_MAXUINT64: none). A first pushed grain
   * at early_run_next turns the run into skipped-at-start (srcread.c
   * count_early()) */
  guint64 early_run;
  guint64 early_run_next;
  gboolean stalled;
  gboolean remote_eos;          /* the sender's end-of-stream notice came
                                   (MXL_FABRICS_EXT_STATUS_END_OF_STREAM):
                                   EOS once the grains before it are out */
  gint64 stats_at_us;           /* last engine stats refresh */
  guint64 bad_input_seen;       /* bad input total last posted */
  /* an index absent from its slot while newer ones completed: waited for
   * up to a grain period (absent_since_us), then counted missing */
  guint64 absent_index;
  gint64 absent_since_us;       /* 0: nothing awaited */
  guint64 missed[GST_MXL_FABRICS_SRC_MISSED_KEPT];
  guint n_missed;
  /* a change of sender (a connection accepted, a claim taken up: the
   * target's connectionsAccepted moved) since the last pushed grain: the
   * indices below the newest completed since then (uncounted_below) were
   * never sent to this src over one connection and are not its loss
   * (docs/bus-and-stats.md, "Which side counts a loss"); a re-alignment
   * then goes back to the oldest completed since (oldest_since_change)
   * if the ring still holds it */
  guint64 accepted_seen;
  gboolean sender_changed;
  guint64 uncounted_below;
  guint64 oldest_since_change;
  /* [hole_lo, hole_hi): indices the head jumped over that have not
   * completed (a sender that left them out): a re-alignment over them
   * counts them dropped-missing, not dropped-skipped */
  guint64 hole_lo[GST_MXL_FABRICS_SRC_HOLES_KEPT];
  guint64 hole_hi[GST_MXL_FABRICS_SRC_HOLES_KEPT];
  guint n_holes;
  /* before the first pushed grain: grains the library reported lapped
   * (mxlFabricsExtTargetReadGrainLapped()) after the first completion, so
   * in holes: arrived, skipped-at-start when a re-alignment passes them */
  guint64 lapped_in_holes;
  guint back_run;               /* completions in a row far behind next */
  /* arrival - origin time of grains completed while the src waited */
  GstClockTime lateness[GST_MXL_FABRICS_SRC_LATENESS_KEPT];
  guint n_lateness;

  /* the HTTP endpoint (srchttp.h): settings under the object lock; the
   * server runs from start() to stop(); http_ready (object lock): the
   * target is set up, /target-info answers */
  gchar *http_address;
  guint http_port;              /* 0 = no endpoint */
  GstMxlFabricsHttpServer *http;
  gboolean http_ready;
};

/**
 * gst_mxl_fabrics_src_resolve_format:
 * @fmt: (out): the flow's format.
 * @flow_def: (out) (transfer full): the flow definition to create the local
 *   flow with (the flow-def property, or one generated from caps).
 * @error: GST_RESOURCE_ERROR_SETTINGS when neither caps nor flow-def is set,
 *   flow-def is invalid or unreadable, the caps are unusable, or both are
 *   set and disagree (the message names the differing quantity).
 *
 * Uses the settings; flow-id, when set, overrides the id of a generated
 * definition and must equal the id inside flow-def.
 */
gboolean gst_mxl_fabrics_src_resolve_format (GstMxlFabricsSrc * src,
    GstMxlFabricsFormat * fmt, gchar ** flow_def, GError ** error);

/**
 * gst_mxl_fabrics_src_publish_target_info:
 * @target_info: TargetInfo JSON from the engine.
 * @error: GST_RESOURCE_ERROR_WRITE when target-info-file cannot be written.
 *
 * Sets the read-only target-info property and notifies it, writes
 * target-info-file atomically (temporary file + rename, g_file_set_contents)
 * when set, and posts "mxl-fabrics-target-info". Nothing happens when the
 * TargetInfo did not change. Call without the object lock.
 */
gboolean gst_mxl_fabrics_src_publish_target_info (GstMxlFabricsSrc * src,
    const gchar * target_info, GError ** error);

G_END_DECLS
