/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssink's local flow and grain writes: the set-up of the flow
 * and the initiator (sinkwrite.h), and the write of a grain (media.h),
 * never into a ring slot a transfer still reads, lent in place (zero-copy,
 * sinklend.h) or copied into the local flow, committed, then transferred
 * (sinkwait.c) with the grain media's post.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sinkwait.h"
#include "sinkwrite.h"
#include "sinkcredit.h"
#include "media.h"
#include "mxlfabricssink.h"
#include "mxlfabricsopen.h"
#include "sinkcaps.h"
#include "mxlfabricssinkconn.h"

#include <mxl/flow-ext.h>

GST_DEBUG_CATEGORY_EXTERN (gst_mxl_fabrics_sink_debug);
#define GST_CAT_DEFAULT gst_mxl_fabrics_sink_debug

/* Whether the ring slot of grain @index is still read by a transfer
 * (queued, or posted and not completed), after dropping what only a target
 * a ring behind still waited for (mxlFabricsExtInitiatorReleaseGrainSlot;
 * @drop_holders: also disconnect tcp/verbs targets whose posted writes
 * still read it while another target does not). Call with engine_lock
 * held. */
static gboolean
slot_in_flight (GstMxlFabricsSink * self, guint64 index,
    gboolean drop_holders)
{
  bool busy = FALSE;

  return self->initiator != NULL
      && mxlFabricsExtInitiatorReleaseGrainSlot (self->initiator, index,
      drop_holders, &busy) == MXL_STATUS_OK && busy;
}

static void
slot_wait_wake (gpointer w)
{
  gst_mxl_fabrics_slot_wait_signal (w);
}

void
gst_mxl_fabrics_slot_wait_init (GstMxlFabricsSlotWait * w,
    GstMxlFabricsObject * obj)
{
  g_mutex_init (&w->lock);
  g_cond_init (&w->cond);
  w->seq = 0;
  w->waiters = 0;
  obj->wake = slot_wait_wake;
  obj->wake_data = w;
}

void
gst_mxl_fabrics_slot_wait_clear (GstMxlFabricsSlotWait * w)
{
  g_mutex_clear (&w->lock);
  g_cond_clear (&w->cond);
}

void
gst_mxl_fabrics_slot_wait_signal (GstMxlFabricsSlotWait * w)
{
  g_mutex_lock (&w->lock);
  g_atomic_int_inc (&w->seq);
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
}

gboolean
gst_mxl_fabrics_slot_wait_wanted (GstMxlFabricsSlotWait * w)
{
  return g_atomic_int_get (&w->waiters) > 0;
}

guint
gst_mxl_fabrics_slot_wait_seq (GstMxlFabricsSlotWait * w)
{
  return (guint) g_atomic_int_get (&w->seq);
}

void
gst_mxl_fabrics_slot_wait_until (GstMxlFabricsSlotWait * w, guint seq,
    gint64 end)
{
  g_atomic_int_inc (&w->waiters);
  g_mutex_lock (&w->lock);
  while ((guint) g_atomic_int_get (&w->seq) == seq
      && g_cond_wait_until (&w->cond, &w->lock, end));
  g_mutex_unlock (&w->lock);
  g_atomic_int_dec_and_test (&w->waiters);
}

/* A ring slot still read by a remote write must not change under it: the
 * target would get the old grain's header with a payload partly of the new
 * one, a torn frame nothing downstream can detect. Waits until the slot of
 * @index is free, for at most a quarter of a grain period (20 ms at most;
 * a period, 100 ms at most, for the burst after a wait for a connection;
 * GST_MXL_FABRICS_SINK_CREDIT_WAIT_MS for an input held back by credits,
 * sinkcredit.h), so that a stalled target does not stall the stream, or
 * until unlock;
 * then a target still reading it is dropped if that frees the slot for
 * the others (a target a ring behind costs only itself). It waits on
 * slot_wait, signalled by the library's notify (its progress thread
 * completed writes) or, without that thread, by the engine thread's
 * progress passes; it drives a pass itself at each wake-up too. The
 * signal count is read before each look, so that a signal between the
 * look and the sleep is not lost. Returns FALSE when it is still in
 * flight: the caller drops the buffer. */
static gboolean
wait_slot_free (GstMxlFabricsSink * self, guint64 index)
{
  GstClockTime period = gst_util_uint64_scale (GST_SECOND,
      self->format.rate_d, self->format.rate_n);
  GstClockTime budget = MIN (period / 4, 20 * GST_MSECOND);
  gint64 start = g_get_monotonic_time (), end;
  gboolean busy, extended = FALSE;

  /* the burst after render's own wait for a connection
   * (self->catch_up_until, sinkwait.c make_room): a whole ring was just
   * posted at once and its transfers are under way, not stalled */
  if (self->catch_up_until != 0 && start < self->catch_up_until)
    budget = MIN (period, 100 * GST_MSECOND);
  end = start + budget / GST_USECOND;

  g_mutex_lock (&self->obj->lock);
  for (;;) {
    guint seq = gst_mxl_fabrics_slot_wait_seq (&self->slot_wait);

    if (!self->threaded && self->initiator != NULL)
      mxlFabricsInitiatorMakeProgressNonBlocking (self->initiator);
    busy = slot_in_flight (self, index, FALSE);
    /* an input held back by credits loses no grain to a slow transfer
     * either (sinkcredit.h): asked only once the budget ran out */
    if (busy && !extended && g_get_monotonic_time () >= end) {
      extended = TRUE;
      if (gst_mxl_fabrics_sink_credit_holds_back (self))
        end = start + (gint64) GST_MXL_FABRICS_SINK_CREDIT_WAIT_MS * 1000;
    }
    if (!busy || self->obj->flushing || g_get_monotonic_time () >= end)
      break;
    g_mutex_unlock (&self->obj->lock);
    gst_mxl_fabrics_slot_wait_until (&self->slot_wait, seq, end);
    g_mutex_lock (&self->obj->lock);
  }
  if (busy)
    busy = slot_in_flight (self, index, TRUE);
  g_mutex_unlock (&self->obj->lock);
  return !busy;
}

/* Where the grain payload of @buffer starts when its memory already has
 * the payload's layout (one memory; the media's layout, media.h
 * payload_offset; the whole grain from there): the initiator can then
 * read it in place. Returns FALSE when it must be copied into the flow. */
static gboolean
payload_in_place (GstMxlFabricsSink * self, GstBuffer * buffer,
    gsize * offset)
{
  if (!self->lend || gst_buffer_n_memory (buffer) != 1
      || !self->media->payload_offset (&self->format, buffer, offset))
    return FALSE;
  return gst_buffer_get_size (buffer) >= *offset
      && gst_buffer_get_size (buffer) - *offset >= self->grain_size;
}

/* Lends @buffer for grain @index when it can be sent in place; otherwise
 * makes sure the slot's payload comes from the flow. Returns whether the
 * payload must be copied into the flow (*copy), FALSE when the slot still
 * holds a buffer that cannot be given back (the grain is dropped). */
static gboolean
lend_or_copy (GstMxlFabricsSink * self, GstBuffer * buffer, guint64 index,
    gboolean * copy)
{
  gsize offset = 0;
  gboolean ok = TRUE;

  *copy = TRUE;
  if (!self->lend)
    return TRUE;
  g_mutex_lock (&self->obj->lock);
  gst_mxl_fabrics_lender_reclaim (&self->lender, self->initiator);
  /* without a target the grain may have to wait in the flow (transfer()) */
  if (self->n_connected > 0 && payload_in_place (self, buffer, &offset)
      && gst_mxl_fabrics_lender_lend (&self->lender, self->initiator, index,
          buffer, offset, self->grain_size))
    *copy = FALSE;
  else {
    gst_mxl_fabrics_lender_take_back (&self->lender, self->initiator, index);
    ok = self->lender.slots[index % self->lender.n_slots].buffer == NULL;
  }
  g_mutex_unlock (&self->obj->lock);
  return ok;
}

/* Writes grain @index into the local flow and commits it: its header,
 * and with @copy the payload of @buffer (a lent one is sent from its own
 * memory: the private flow keeps only the grain header, what local readers
 * would see is not this grain). *@info: the committed grain's. */
static GstFlowReturn
commit_grain (GstMxlFabricsSink * self, GstBuffer * buffer, guint64 index,
    gboolean copy, mxlGrainInfo * info)
{
  uint8_t *payload = NULL;
  mxlStatus st;

  st = mxlFlowWriterOpenGrain (self->flow.writer, index, info, &payload);
  if (st != MXL_STATUS_OK) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("cannot write the local flow"),
        ("mxlFlowWriterOpenGrain(%" G_GUINT64_FORMAT "): %s", index,
            gst_mxl_fabrics_status_name (st)));
    return GST_FLOW_ERROR;
  }
  if (copy && !self->media->fill_grain (self, buffer, payload)) {
    mxlFlowWriterCancelGrain (self->flow.writer);
    return GST_FLOW_ERROR;
  }
  info->flags = 0;
  info->validSlices = info->totalSlices;
  st = mxlFlowWriterCommitGrain (self->flow.writer, info);
  if (st != MXL_STATUS_OK) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("cannot write the local flow"),
        ("mxlFlowWriterCommitGrain(%" G_GUINT64_FORMAT "): %s", index,
            gst_mxl_fabrics_status_name (st)));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

/* Lent grain @index was refused: the last target was lost before the
 * engine thread saw it (sinkwait.c refused_no_target). The initiator
 * stops pointing at @buffer, the grain is copied into the flow and waits
 * there for a connection as any grain written without a target does. */
static GstFlowReturn
write_refused (GstMxlFabricsSink * self, GstBuffer * buffer, guint64 index)
{
  mxlGrainInfo info;
  GstFlowReturn ret;

  g_mutex_lock (&self->obj->lock);
  gst_mxl_fabrics_lender_take_back (&self->lender, self->initiator, index);
  g_mutex_unlock (&self->obj->lock);
  ret = commit_grain (self, buffer, index, TRUE, &info);
  if (ret != GST_FLOW_OK)
    return ret;
  GST_DEBUG_OBJECT (self, "grain %" G_GUINT64_FORMAT ": refused, its target "
      "just lost; copied into the flow to wait there", index);
  return gst_mxl_fabrics_sink_transfer (self, index, 1, self->grain_size,
      info.totalSlices, TRUE);
}

GstFlowReturn
gst_mxl_fabrics_sink_write_grain (GstMxlFabricsSink * self, GstBuffer * buffer,
    guint64 index)
{
  mxlGrainInfo info;
  gboolean copy = TRUE;
  GstFlowReturn ret;

  GST_LOG_OBJECT (self, "grain %" G_GUINT64_FORMAT " from PTS %"
      GST_TIME_FORMAT, index, GST_TIME_ARGS (GST_BUFFER_PTS (buffer)));
  if (!gst_mxl_fabrics_sink_make_room (self, index, 1, &ret))
    return ret;
  if (!wait_slot_free (self, index)
      || !lend_or_copy (self, buffer, index, &copy)) {
    gboolean none;

    g_mutex_lock (&self->obj->lock);
    none = self->n_connected == 0;
    gst_mxl_fabrics_sink_engine_count_dropped (self);
    g_mutex_unlock (&self->obj->lock);
    /* With no target connected the slot is held by the writes of a lost
     * one (a stopped shm receiver keeps them until it continues or ends):
     * no target could have had this grain, dropped-no-target
     * (docs/bus-and-stats.md) */
    GST_WARNING_OBJECT (self, "grain %" G_GUINT64_FORMAT ": its ring slot is "
        "still being sent (%s); dropped instead of overwriting it", index,
        none ? "by a lost target, and no target is connected" :
        "a target or the network is slower than the stream");
    gst_mxl_fabrics_sink_count_dropped (self, none ?
        &self->obj->counters.dropped_no_target :
        &self->obj->counters.dropped_in_flight);
    return GST_FLOW_OK;
  }
  ret = commit_grain (self, buffer, index, copy, &info);
  if (ret != GST_FLOW_OK)
    return ret;
  ret = gst_mxl_fabrics_sink_transfer (self, index, 1, self->grain_size,
      info.totalSlices, copy);
  if (!copy) {
    g_mutex_lock (&self->obj->lock);
    gst_mxl_fabrics_lender_posted (&self->lender, index);
    g_mutex_unlock (&self->obj->lock);
    GST_OBJECT_LOCK (self);
    self->obj->counters.grains_lent++;
    GST_OBJECT_UNLOCK (self);
  }
  if (ret == GST_MXL_FABRICS_SINK_FLOW_REFUSED)
    ret = write_refused (self, buffer, index);
  return ret;
}

mxlStatus
gst_mxl_fabrics_sink_post_grain (mxlFabricsInitiator initiator, guint64 index,
    gsize count, guint16 total_slices)
{
  return mxlFabricsInitiatorTransferGrain (initiator, index, 0, total_slices);
}

/* Creates the local flow and the initiator on it
 * (gst_mxl_fabrics_open_initiator(), whose errors it returns), decides on
 * zero-copy (zero-copy set, private domain, a media that lends) and wakes
 * the engine thread, which adds the targets. */
static gboolean
setup_engine (GstMxlFabricsSink * self, GError ** error)
{
  mxlFabricsInitiator initiator;
  mxlFabricsProvider provider;
  gboolean threaded;

  if (!gst_mxl_fabrics_open_initiator (self->obj, &self->flow, self->flow_def,
          &initiator, &provider, &threaded, error))
    return FALSE;
  g_mutex_lock (&self->obj->lock);
  self->threaded = threaded;
  self->initiator = initiator;
  self->provider = provider;
  /* Zero-copy only where nobody else reads the flow: a private domain;
   * and only for what the media lends (media.h can_lend). */
  GST_OBJECT_LOCK (self);
  self->lend = self->zero_copy && self->flow.private_domain != NULL
      && self->media->can_lend (&self->format);
  GST_OBJECT_UNLOCK (self);
  if (self->lend)
    gst_mxl_fabrics_lender_init (&self->lender,
        self->flow.config.discrete.grainCount);
  g_mutex_unlock (&self->obj->lock);
  gst_mxl_fabrics_sink_engine_wake (self);      /* it adds the targets */
  return TRUE;
}

gboolean
gst_mxl_fabrics_sink_setup_caps (GstMxlFabricsSink * self, GstCaps * caps)
{
  GstMxlFabricsFormat fmt;
  GError *error = NULL;
  gchar *flow_id, *flow_def;

  /* One ERROR per start: a sticky caps event that failed is sent again
   * before every buffer, and setting up again would post it again. */
  if (self->caps_failed)
    return FALSE;

  /* caps no flow can hold, also after a flow was set up (renegotiated to
   * them: the flow set up stays until stop) */
  if (!gst_mxl_fabrics_format_from_caps (caps, &fmt, &error))
    goto failed;
  if (self->have_format) {
    /* caps of another flow made gst_mxl_fabrics_sink_caps_renew() tear
     * this one down: these are its caps */
    g_return_val_if_fail (gst_mxl_fabrics_sink_is_current_flow (self, &fmt),
        FALSE);
    return TRUE;
  }
  GST_OBJECT_LOCK (self);
  flow_id = g_strdup (self->obj->flow_id[0] ? self->obj->flow_id : NULL);
  GST_OBJECT_UNLOCK (self);
  flow_def = gst_mxl_fabrics_flow_def_new (&fmt, flow_id, NULL, NULL, &error);
  g_free (flow_id);
  if (flow_def == NULL)
    goto failed;

  g_mutex_lock (&self->obj->lock);
  self->format = fmt;
  self->media = gst_mxl_fabrics_media_ops (fmt.media);
  g_mutex_unlock (&self->obj->lock);
  g_free (self->flow_def);
  self->flow_def = flow_def;
  self->grain_size = gst_mxl_fabrics_format_grain_size (&fmt);
  GST_DEBUG_OBJECT (self, "flow definition %s", flow_def);
  if (!setup_engine (self, &error))
    goto failed;
  self->have_format = TRUE;
  return TRUE;

failed:
  self->caps_failed = TRUE;
  gst_mxl_fabrics_object_post_error (self->obj, error,
      "the caps cannot be written into an MXL flow");
  g_error_free (error);
  return FALSE;
}

void
gst_mxl_fabrics_sink_teardown_caps (GstMxlFabricsSink * self)
{
  /* The initiator is gone, and the local flow with it (engine_stop closed
   * both, gst_mxl_fabrics_close_initiator()): nothing reads lent buffers
   * any more. */
  gst_mxl_fabrics_lender_clear (&self->lender);
  self->lend = FALSE;
  gst_mxl_fabrics_sink_propose_pool (self, NULL);
  self->have_format = FALSE;
  g_clear_pointer (&self->flow_def, g_free);
}
