/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mxlfabricssink: writes buffers into a local MXL flow and transfers each
 * grain (or sample batch) to one or more MXL Fabrics targets. */
#pragma once

#include <gst/base/gstbasesink.h>
#include <gst/video/video.h>

#include "caps.h"
#include "localflow.h"
#include "media.h"
#include "mxlfabricsobject.h"
#include "sinklend.h"
#include "sinkwrite.h"
#include "timing.h"

G_BEGIN_DECLS

#define GST_TYPE_MXL_FABRICS_SINK (gst_mxl_fabrics_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstMxlFabricsSink, gst_mxl_fabrics_sink, GST,
    MXL_FABRICS_SINK, GstBaseSink)

#define GST_MXL_FABRICS_SINK_DEFAULT_TARGET_INFO ""
#define GST_MXL_FABRICS_SINK_DEFAULT_AUTO_RECONNECT TRUE
#define GST_MXL_FABRICS_SINK_DEFAULT_WAIT_FOR_CONNECTION TRUE
/* How long render waits for a connection (ms, 0 = no limit). */
#define GST_MXL_FABRICS_SINK_DEFAULT_WAIT_TIMEOUT 2000
#define GST_MXL_FABRICS_SINK_DEFAULT_ZERO_COPY TRUE
#define GST_MXL_FABRICS_SINK_DEFAULT_ERROR_ON_ALL_FAILED TRUE

/* One target requested through target-info or add-target
 * (mxlfabricssinktarget.h). */
typedef struct _GstMxlFabricsSinkTarget GstMxlFabricsSinkTarget;

typedef struct {
  guint64 index;                /* grain index, or sample head (audio) */
  gsize count;                  /* 1 grain, or the batch's samples */
  gsize bytes;
  guint16 slices;
} GstMxlFabricsSinkPending;

struct _GstMxlFabricsSink {
  GstBaseSink parent;

  GstMxlFabricsObject *obj;
  GstMxlFabricsTiming timing;

  /* settings, object lock */
  gchar *target_info;
  gboolean auto_reconnect;
  gboolean wait_for_connection;
  guint wait_timeout;           /* ms, 0 = no limit */
  gboolean zero_copy;
  gboolean error_on_all_failed;

  /* negotiated (streaming thread) */
  gboolean have_format;
  gboolean caps_failed;         /* set_caps posted its ERROR: the caps event
                                 * re-sent with each buffer fails silently */
  GstMxlFabricsFormat format;
  const GstMxlFabricsMediaOps *media;   /* chosen with the format */
  gchar *flow_def;              /* the definition of the local flow */
  GstMxlFabricsLocalFlow flow;
  gsize grain_size;
  gboolean have_last;
  guint64 last_index;           /* last grain index / sample head given */
  GstMxlFabricsIndexPhase index_phase; /* video: gst_mxl_fabrics_follow_grain_index */
  guint64 last_offset;          /* GST_BUFFER_OFFSET of the last buffer */
  /* a live input later than real time (sinkindex.c realign_late) */
  guint64 late_run;             /* buffers in a row later than that */
  guint64 late_left_out;        /* indices left out re-aligning to now */
  guint64 late_warned;          /* late_left_out at the last WARNING */
  gint64 late_warned_us;        /* monotonic us of it, 0 = none yet */
  gint64 catch_up_until;        /* monotonic us: until then, or a buffer
                                 * on time, late buffers are what queued
                                 * upstream while render waited for a
                                 * connection (sinkwait.c make_room), not
                                 * a late input; 0 = none */

  /* engine: the initiator and the per-target connections are used under
   * engine_lock (obj->lock, with obj->cond), by the streaming thread
   * (transfers) and the engine thread (progress, events, TargetInfo files,
   * reconnection). */
  mxlFabricsInitiator initiator;
  mxlFabricsProvider provider;  /* the initiator's (engine_lock) */
  GPtrArray *targets;           /* GstMxlFabricsSinkTarget, engine_lock:
                                 * the one list of targets */
  guint n_connected;            /* engine_lock */
  gboolean engine_quit;         /* engine_lock */
  gboolean all_failed_posted;   /* engine_lock: the no-target ERROR is out */
  gboolean at_eos;              /* engine_lock: EOS was rendered (until a
                                 * flush or stop): a target lost now ended
                                 * its stream, no WARNING (sinktargetstate.c) */
  gboolean ever_connected;      /* engine_lock: a target was connected since
                                 * start (sinktargetstate.c) */
  gboolean wait_expired;        /* engine_lock: a render waited wait-timeout
                                 * in vain; no more waits until a target
                                 * has connected */
  GArray *pending;              /* engine_lock: GstMxlFabricsSinkPending of grains
                                 * or sample batches written while wait-for-connection waits,
                                 * not sent yet (oldest first) */
  gint64 pending_deadline;      /* engine_lock: monotonic us when the wait
                                 * for them runs out; 0 = no limit */
  gint64 settle_until;          /* engine_lock: monotonic us, an EOS waits
                                 * for the stats (engine_eos); 0 none */
  gint upstream_live;           /* streaming: -1 not asked yet, else the
                                 * latency query's upstream-live */
  gboolean lend;                /* zero-copy in use (set_caps, streaming) */
  GstMxlFabricsLender lender;   /* engine_lock: buffers the initiator reads */
  GstBufferPool *upstream_pool; /* engine_lock: proposed upstream for raw
                                 * video (sinkpool.h), or NULL */
  GThread *engine_thread;
  int engine_wake_fd;           /* eventfd: wakes the engine thread */
  gboolean threaded;            /* the initiator runs the library's progress
                                 * thread (set_caps, before the initiator) */
  GstMxlFabricsSlotWait slot_wait;      /* render waiting for a ring slot
                                         * or for credits (sinkcredit.h) */
  gint unlocks;                 /* atomic: unlock() calls, so that a wait
                                 * sees one whose unlock_stop() came
                                 * already (sinkcredit.c) */
  gchar *caps_warned;           /* object lock: the targets whose flows had
                                 * no caps in common at the last WARNING
                                 * (sinkcaps.c) */
  GHashTable *caps_notices;     /* object lock: the texts of the negotiation
                                 * WARNINGs posted since stop() (a set,
                                 * sinkcaps.c): each is posted once */
};

G_END_DECLS
