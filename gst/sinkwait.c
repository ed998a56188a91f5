/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssink's wait for a connection (wait-for-connection,
 * wait-timeout): grains and sample batches pending in the local flow while
 * no target is connected, the room the ring leaves them, and the transfer
 * of what was committed to the connected targets (sinkwait.h, media.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sinkwait.h"
#include "sinkcredit.h"
#include "media.h"
#include "mxlfabricssink.h"
#include "mxlfabricssinkconn.h"
#include "sinkpool.h"

#include <mxl/flow-ext.h>

GST_DEBUG_CATEGORY_EXTERN (gst_mxl_fabrics_sink_debug);
#define GST_CAT_DEFAULT gst_mxl_fabrics_sink_debug

void
gst_mxl_fabrics_sink_count_dropped (GstMxlFabricsSink * self, guint64 * cause)
{
  GST_OBJECT_LOCK (self);
  *cause += 1;
  self->obj->counters.dropped++;
  GST_OBJECT_UNLOCK (self);
}

static void
upstream_flush (GstElement * sink)
{
  gst_mxl_fabrics_sink_engine_wake (GST_MXL_FABRICS_SINK (sink));
}

void
gst_mxl_fabrics_sink_propose_pool (GstMxlFabricsSink * self, GstQuery * query)
{
  const GstMxlFabricsMediaOps *ops = NULL;
  GstBufferPool *pool = NULL, *old;
  GstCaps *caps = NULL;
  guint size = 0;

  if (query != NULL)
    gst_query_parse_allocation (query, &caps, NULL);
  if (caps != NULL)
    ops = gst_mxl_fabrics_media_ops_for_caps (caps);
  /* the media's metas, and the size of its pool's buffers (media.h) */
  if (ops != NULL)
    size = ops->propose_allocation (query, caps);
  if (size > 0)
    pool = gst_mxl_fabrics_upstream_pool_new (GST_ELEMENT (self), caps,
        size, upstream_flush);
  if (pool != NULL)
    gst_query_add_allocation_pool (query, pool, size, 0, 0);
  g_mutex_lock (&self->obj->lock);
  old = self->upstream_pool;
  self->upstream_pool = pool;
  g_mutex_unlock (&self->obj->lock);
  g_clear_object (&old);
}

gboolean
gst_mxl_fabrics_sink_upstream_flushing (GstMxlFabricsSink * self)
{
  return self->upstream_pool != NULL
      && gst_mxl_fabrics_upstream_pool_flushing (self->upstream_pool);
}

/* With wait-for-connection: waits (engine_lock held, released while
 * waiting) until a target is connected, on engine_cond, which the engine
 * thread signals on every change of the connected count and while the
 * upstream pool flushes, and unlock() on a flush or state change. A flush
 * or state change makes it wait for the pipeline to play again
 * (gst_base_sink_wait_preroll), or returns FLUSHING. An EOS sent to the
 * pipeline goes to the source: GstBin gives it to its sources, and
 * basesrc sets the pool it allocates from flushing, then takes the stream
 * lock this render's thread holds and pushes the EOS once render returned
 * (gstbasesrc.c send_event). So the wait ends when the upstream pool
 * (sinkpool.h: raw video, a source that allocates from it) flushes; an
 * EOS behind a source that does not (audio, an element in between that
 * allocates its own buffers) waits until the wait ends otherwise. That is
 * why grains and sample batches wait in the flow instead (transfer(),
 * gst_mxl_fabrics_sink_make_room()) and only a full ring gets here. The
 * wait is bounded by wait-timeout; once that ran out, renders do not wait
 * again until a target has connected (*expired is set once, for the
 * WARNING). */
static GstFlowReturn
wait_connected (GstMxlFabricsSink * self, guint timeout_ms, gboolean * expired)
{
  gint64 deadline;

  deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  *expired = FALSE;
  if (self->n_connected > 0)
    self->wait_expired = FALSE;
  while (self->n_connected == 0 && !self->wait_expired
      && !gst_mxl_fabrics_sink_upstream_flushing (self)) {
    if (self->obj->flushing) {
      GstFlowReturn ret;

      g_mutex_unlock (&self->obj->lock);
      ret = gst_base_sink_wait_preroll (GST_BASE_SINK (self));
      g_mutex_lock (&self->obj->lock);
      if (ret != GST_FLOW_OK)
        return ret;
      /* paused meanwhile: the time paused does not count */
      deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
      continue;
    }
    if (timeout_ms == 0)
      g_cond_wait (&self->obj->cond, &self->obj->lock);
    else if (!g_cond_wait_until (&self->obj->cond, &self->obj->lock,
            deadline) && self->n_connected == 0 && !self->obj->flushing) {
      self->wait_expired = TRUE;
      *expired = TRUE;
    }
  }
  return GST_FLOW_OK;
}

/* Drops the pending grains or sample batches (engine_lock held): each
 * counted as dropped-no-target, as a render that found no target counts
 * its own. */
void
gst_mxl_fabrics_sink_drop_pending (GstMxlFabricsSink * self)
{
  guint i;

  for (i = 0; i < self->pending->len; i++) {
    gst_mxl_fabrics_sink_engine_count_dropped (self);
    gst_mxl_fabrics_sink_count_dropped (self,
        &self->obj->counters.dropped_no_target);
  }
  g_array_set_size (self->pending, 0);
  self->pending_deadline = 0;
}

static mxlStatus post_grain (GstMxlFabricsSink * self, guint64 index,
    gsize count, gsize bytes, guint16 total_slices);

/* Without it, grains pending for a restarted receiver were lost when the
 * input ended before the ring filled (render never held): the same stream
 * lost all of them or none depending on how many were pending. */
void
gst_mxl_fabrics_sink_wait_pending_at_eos (GstMxlFabricsSink * self,
    gboolean live)
{
  if (live || self->pending->len == 0 || self->n_connected > 0
      || !self->ever_connected || self->wait_expired)
    return;
  GST_INFO_OBJECT (self, "EOS: %u grains or batches wait for the target "
      "to reconnect (at most until wait-timeout runs out)",
      self->pending->len);
  while (self->n_connected == 0 && !self->obj->flushing) {
    if (self->pending_deadline == 0)
      g_cond_wait (&self->obj->cond, &self->obj->lock);
    else if (!g_cond_wait_until (&self->obj->cond, &self->obj->lock,
            self->pending_deadline))
      break;
  }
}

/* Whether a post that returned @st was refused because no target is
 * connected any more (engine_lock held): the initiator saw the loss of the
 * last one before the engine thread took its event, so n_connected still
 * counts it. Such a grain or batch was not lost for want of a target that
 * could be waited for: with wait-for-connection it waits in the flow as one
 * written while none was connected (transfer()). A full provider queue or
 * a target without credit (NOT_READY too) leaves targetsConnected above 0. */
static gboolean
refused_no_target (GstMxlFabricsSink * self, mxlStatus st)
{
  mxlFabricsExtInitiatorStats s = {.version = MXL_FABRICS_API_VERSION };

  return st == MXL_ERR_NOT_READY && self->initiator != NULL
      && mxlFabricsExtInitiatorGetStats (self->initiator, &s) == MXL_STATUS_OK
      && s.targetsConnected == 0;
}

/* Keeps the grain or batch @p pending (engine_lock held); the first one
 * starts the wait-timeout of the wait for a connection. */
static void
keep_pending (GstMxlFabricsSink * self, const GstMxlFabricsSinkPending * p,
    guint timeout_ms)
{
  if (self->pending->len == 0)
    self->pending_deadline = timeout_ms == 0 ? 0 :
        g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  g_array_append_val (self->pending, *p);
}

/* Sends the pending grains or sample batches, oldest first, now that a
 * target is connected (engine_lock held); the ring still holds them
 * (gst_mxl_fabrics_sink_make_room()). A grain of a live input held longer
 * than any receiver takes one that waited for it is not sent
 * (gst_mxl_fabrics_sink_held_too_long()): dropped-no-target. Those the
 * initiator refuses because its last target was lost meanwhile
 * (refused_no_target()) stay pending, oldest first, with their deadline:
 * the wait for a connection goes on. */
void
gst_mxl_fabrics_sink_post_pending (GstMxlFabricsSink * self)
{
  guint i, kept = 0;

  for (i = 0; i < self->pending->len; i++) {
    /* a copy: post_grain() may release engine_lock to wait for credits
     * (only this streaming thread changes the array, though) */
    GstMxlFabricsSinkPending p =
        g_array_index (self->pending, GstMxlFabricsSinkPending, i);

    if (!gst_mxl_fabrics_sink_held_too_long (self, p.index)) {
      mxlStatus st = post_grain (self, p.index, p.count, p.bytes, p.slices);

      if (st == MXL_STATUS_OK)
        continue;
      if (refused_no_target (self, st)) {
        g_array_index (self->pending, GstMxlFabricsSinkPending, kept++) = p;
        continue;
      }
    }
    gst_mxl_fabrics_sink_engine_count_dropped (self);
    gst_mxl_fabrics_sink_count_dropped (self,
        &self->obj->counters.dropped_no_target);
  }
  g_array_set_size (self->pending, kept);
  if (kept == 0)
    self->pending_deadline = 0;
}

/* TRUE once the wait for the pending grains ran out with no target
 * (engine_lock held); sets wait_expired, as wait_connected() does. */
static gboolean
pending_expired (GstMxlFabricsSink * self)
{
  if (self->pending->len == 0 || self->n_connected > 0
      || self->pending_deadline == 0
      || g_get_monotonic_time () < self->pending_deadline)
    return FALSE;
  self->wait_expired = TRUE;
  return TRUE;
}

/* A live input's render held for a connection (make_room) no longer than
 * this (ms): the EOS that gst-launch-1.0 -e and Ctrl-C send ends that hold
 * only when the source itself allocates from the sink's pool (not audio,
 * appsrc, or a videoconvert in between that allocates from it: the
 * source's EOS flushes the source's own pool, and whose buffers these are
 * cannot be told here), and a grain held longer is not sent anyway
 * (GST_MXL_FABRICS_HELD_HORIZON, gst_mxl_fabrics_sink_held_too_long()). */
#define LIVE_HOLD_MS (GST_MXL_FABRICS_HELD_HORIZON / GST_MSECOND)

static void
warn_live_hold (GstMxlFabricsSink * self)
{
  GST_ELEMENT_WARNING (self, RESOURCE, WRITE, ("no target connected within "
          "%u ms of the local ring filling up with a live input: buffers "
          "are dropped until one connects", (guint) LIVE_HOLD_MS),
      ("a live input's render holds for a connection at most that long "
          "(wait-timeout bounds it further); is the receiver running, and "
          "is this its current TargetInfo? The sink goes on connecting"));
}

static void
warn_expired (GstMxlFabricsSink * self, guint timeout_ms)
{
  GST_ELEMENT_WARNING (self, RESOURCE, WRITE, ("no target connected "
          "within %u ms (wait-timeout): buffers are dropped until one "
          "connects", timeout_ms), ("is the receiver running, and is "
          "this its current TargetInfo? The sink goes on connecting; "
          "wait-timeout=0 waits without limit"));
}

/* Holds render for a connection (engine_lock held, released while
 * waiting: wait_connected()) for @timeout_ms (0: no limit), and with a live
 * input for LIVE_HOLD_MS at most (*held_live says that bound applied):
 * every hold of a live input's render is bounded so, whatever it waits
 * for (the ring coming round onto the oldest pending grain, make_room(),
 * or a grain sent from upstream's memory that found no target,
 * transfer()). What upstream queued or produced meanwhile follows late as
 * a burst (catch_up_until, for twice the wait): not a late input
 * (sinkindex.c realign_late), and a grain of it held longer than any
 * receiver takes one is not sent (transfer(), held_too_long). */
static GstFlowReturn
hold_render (GstMxlFabricsSink * self, guint timeout_ms, gboolean live,
    gboolean * expired, gboolean * held_live)
{
  GstFlowReturn ret;
  gint64 waited;

  *held_live = FALSE;
  if (self->n_connected > 0 || self->wait_expired)
    return wait_connected (self, timeout_ms, expired);  /* at once */
  if (live && (timeout_ms == 0 || timeout_ms > LIVE_HOLD_MS)) {
    timeout_ms = LIVE_HOLD_MS;
    *held_live = TRUE;
  }
  waited = g_get_monotonic_time ();
  ret = wait_connected (self, timeout_ms, expired);
  waited = g_get_monotonic_time () - waited;
  self->catch_up_until = g_get_monotonic_time () + 2 * waited;
  return ret;
}

/* Posts the transfer of the committed grain @index (or sample batch of
 * @count samples ending before head @index) to every connected target;
 * with none, waits (wait-for-connection) or counts the grain or batch as
 * dropped. A grain or batch the flow holds (@defer: it was copied there,
 * not lent; every audio batch) does not wait here: it is kept pending and
 * render returns at once, so that an EOS the application sends to the
 * pipeline, which the source can only push once render returned, gets
 * through at once (gst_mxl_fabrics_sink_make_room() tells how far).
 * Pending grains and batches go out, oldest first, before the first one
 * rendered once a target is connected, or at EOS; they are dropped (one
 * dropped-no-target each) at EOS without a target, on a flush, and once
 * wait-timeout ran out. */
GstFlowReturn
gst_mxl_fabrics_sink_transfer (GstMxlFabricsSink * self, guint64 index,
    gsize count, gsize bytes, guint16 total_slices, gboolean defer)
{
  GstMxlFabricsSinkPending p = { index, count, bytes, total_slices };
  gboolean wait, live, expired = FALSE, held_live = FALSE;
  guint timeout_ms;
  mxlStatus st;

  GST_OBJECT_LOCK (self);
  wait = self->wait_for_connection;
  timeout_ms = self->wait_timeout;
  GST_OBJECT_UNLOCK (self);
  live = gst_mxl_fabrics_sink_upstream_is_live (self);

  g_mutex_lock (&self->obj->lock);
  if (wait && pending_expired (self))
    expired = TRUE;
  else if (wait && defer && self->n_connected == 0 && !self->wait_expired) {
    keep_pending (self, &p, timeout_ms);
    g_mutex_unlock (&self->obj->lock);
    return GST_FLOW_OK;
  } else if (wait) {
    /* a grain sent from upstream's memory (!@defer: its target was lost
     * after it was lent) cannot wait in the flow: render holds */
    GstFlowReturn ret = hold_render (self, timeout_ms, live, &expired,
        &held_live);

    if (ret != GST_FLOW_OK) {
      g_mutex_unlock (&self->obj->lock);
      return ret;
    }
  }
  if (self->n_connected == 0) {
    gst_mxl_fabrics_sink_drop_pending (self);
    gst_mxl_fabrics_sink_engine_count_dropped (self);
    g_mutex_unlock (&self->obj->lock);
    if (expired && held_live)
      warn_live_hold (self);
    else if (expired)
      warn_expired (self, timeout_ms);
    gst_mxl_fabrics_sink_count_dropped (self,
        &self->obj->counters.dropped_no_target);
    return GST_FLOW_OK;
  }
  gst_mxl_fabrics_sink_post_pending (self);
  /* what a live source queued while render waited for the connection
   * (catch_up_until) was held as long as the pending grains */
  if (self->catch_up_until != 0
      && gst_mxl_fabrics_sink_held_too_long (self, index)) {
    gst_mxl_fabrics_sink_engine_count_dropped (self);
    g_mutex_unlock (&self->obj->lock);
    gst_mxl_fabrics_sink_count_dropped (self,
        &self->obj->counters.dropped_no_target);
    return GST_FLOW_OK;
  }
  /* pending ones the initiator refused (its last target lost, the engine
   * thread has not taken the event yet) go first: this one waits too */
  if (wait && self->pending->len > 0)
    st = MXL_ERR_NOT_READY;
  else
    st = post_grain (self, index, count, bytes, total_slices);
  if (wait && (self->pending->len > 0 || refused_no_target (self, st))) {
    /* no target any more, though n_connected still counts the lost one:
     * it waits as a grain written while none was connected; one read from
     * upstream's memory is copied into the flow first (the caller) */
    if (defer)
      keep_pending (self, &p, timeout_ms);
    g_mutex_unlock (&self->obj->lock);
    return defer ? GST_FLOW_OK : GST_MXL_FABRICS_SINK_FLOW_REFUSED;
  }
  g_mutex_unlock (&self->obj->lock);

  if (st == MXL_ERR_NOT_READY) {
    /* The provider queue stayed full: this grain is lost for some target. */
    gst_mxl_fabrics_sink_count_dropped (self,
        &self->obj->counters.dropped_no_target);
    return GST_FLOW_OK;
  }
  if (st != MXL_STATUS_OK) {
    GError *error = g_error_new (GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE,
        "the MXL Fabrics transfer of index %" G_GUINT64_FORMAT " failed: %s%s",
        index, gst_mxl_fabrics_status_name (st),
        st == MXL_ERR_UNSUPPORTED_OPERATION ? " (this library cannot send "
        "this media type yet)" : "");
    gst_mxl_fabrics_object_post_error (self->obj, error, NULL);
    g_error_free (error);
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

/* Whether a post that returned @st was refused for want of credits
 * only (engine_lock held; sinkcredit.h): some connected target had no
 * credit for it. *@none: no connected target took it (nothing was
 * posted), else the others did and it counts as posted. */
static gboolean
refused_no_credit (GstMxlFabricsSink * self, mxlStatus st, gboolean * none)
{
  mxlFabricsExtInitiatorStats s = {.version = MXL_FABRICS_API_VERSION };
  guint missing = gst_mxl_fabrics_sink_engine_take_no_credit (self);

  *none = FALSE;
  if (st != MXL_ERR_NOT_READY || missing == 0)
    return FALSE;
  if (mxlFabricsExtInitiatorGetStats (self->initiator, &s) == MXL_STATUS_OK)
    *none = missing >= s.targetsConnected;
  return TRUE;
}

/* Posts one transfer to every connected target (engine_lock held) and
 * counts it. With an input that is not live, first waits for the targets'
 * credits (sinkcredit.h; engine_lock released meanwhile). A grain some
 * target had no credit for counts as posted when another target took it
 * (the one without credit counts it, gst_mxl_fabrics_sink_engine_count_transfer()),
 * else as dropped-no-credit: either way MXL_STATUS_OK, so that no caller
 * takes it for a queue that stayed full or a target that was lost
 * (refused_no_target()). */
static mxlStatus
post_grain (GstMxlFabricsSink * self, guint64 index, gsize count,
    gsize bytes, guint16 total_slices)
{
  gboolean none = FALSE;
  mxlStatus st;

  gst_mxl_fabrics_sink_wait_credit (self, index);
  st = self->media->post (self->initiator, index, count, total_slices);
  if (refused_no_credit (self, st, &none)) {
    if (none) {
      gst_mxl_fabrics_sink_engine_count_dropped (self);
      GST_LOG_OBJECT (self, "grain %" G_GUINT64_FORMAT ": no connected "
          "target had a credit for it", index);
      gst_mxl_fabrics_sink_count_dropped (self,
          &self->obj->counters.dropped_no_credit);
      return MXL_STATUS_OK;
    }
    st = MXL_STATUS_OK;         /* the others took it */
  }
  if (st == MXL_STATUS_OK)
    gst_mxl_fabrics_sink_engine_count_transfer (self, bytes);
  /* Without the progress thread, wake the engine thread now: it progresses
   * the writes every busy tick while they are in flight, but only from its
   * next wake-up on, which at rest is up to 100 ms away; tcp sends what the
   * socket did not take at posting only when progressed. With it, the post
   * has woken the library's thread. */
  if (!self->threaded) {
    mxlFabricsInitiatorMakeProgressNonBlocking (self->initiator);
    if (st == MXL_STATUS_OK)
      gst_mxl_fabrics_sink_engine_wake (self);
  }
  if (st == MXL_STATUS_OK) {
    GST_OBJECT_LOCK (self);
    self->obj->counters.grains++;
    self->obj->counters.bytes += bytes;
    GST_OBJECT_UNLOCK (self);
  }
  return st;
}

/* Before grain @index (or the batch of @count samples before head
 * @index: audio) is written: while grains or batches are pending
 * (transfer()) and no target is connected, the ring (grainCount grains, or
 * the continuous flow's bufferLength samples) must not come round onto the
 * oldest. Render then waits here for the connection (wait_connected(), for
 * what is left of wait-timeout, ended by a flush, a state change, or an
 * EOS sent to the pipeline if upstream allocates from the sink's pool),
 * live upstream or not: wait-for-connection promises a receiver that is
 * already listening every frame from the first one, and a connection may
 * take longer than the ring lasts (a busy host, a slow network). A live
 * source meanwhile queues what it produces (appsrc) or produces what came
 * due at once when render returns (basesrc), and those frames follow the
 * pending ones as a burst; dropping the new grain instead lost every frame
 * from the ring's end until the connection came (dropped-no-target). With
 * a live input the hold lasts at most LIVE_HOLD_MS (1 s), within
 * wait-timeout: an EOS sent to the pipeline may not end it, and what it
 * held longer would not be sent. Once the wait ends with a target the
 * pending grains go out, else they are dropped (with a WARNING, and
 * renders do not wait again until a target has connected). Returns FALSE
 * (and *ret) when the caller must not write it. */
gboolean
gst_mxl_fabrics_sink_make_room (GstMxlFabricsSink * self, guint64 index,
    gsize count, GstFlowReturn * ret)
{
  const GstMxlFabricsSinkPending *oldest;
  guint64 start, end, ring;
  gint64 left;
  gboolean expired = FALSE, live, held_live = FALSE;
  guint timeout_ms;

  *ret = GST_FLOW_OK;
  live = gst_mxl_fabrics_sink_upstream_is_live (self);
  g_mutex_lock (&self->obj->lock);
  if (self->pending->len == 0 || self->n_connected > 0
      || pending_expired (self)) {
    g_mutex_unlock (&self->obj->lock);
    return TRUE;                /* transfer() sends or drops them */
  }
  oldest = &g_array_index (self->pending, GstMxlFabricsSinkPending, 0);
  if (mxlIsContinuousDataFormat (self->flow.config.common.format)) {
    start = oldest->index - oldest->count;      /* samples, heads */
    end = index;
    ring = self->flow.config.continuous.bufferLength;
  } else {
    start = oldest->index;
    end = index + count;
    ring = self->flow.config.discrete.grainCount;
  }
  if (end - start <= ring) {
    g_mutex_unlock (&self->obj->lock);
    return TRUE;
  }
  left = self->pending_deadline - g_get_monotonic_time ();
  timeout_ms = self->pending_deadline == 0 ? 0 : (guint) MAX (1, left / 1000);
  *ret = hold_render (self, timeout_ms, live, &expired, &held_live);
  if (*ret == GST_FLOW_OK && self->n_connected > 0)
    gst_mxl_fabrics_sink_post_pending (self);
  else if (*ret == GST_FLOW_OK)
    gst_mxl_fabrics_sink_drop_pending (self);
  g_mutex_unlock (&self->obj->lock);
  if (expired && held_live)
    warn_live_hold (self);
  else if (expired)
    warn_expired (self, self->wait_timeout);
  return *ret == GST_FLOW_OK;
}
