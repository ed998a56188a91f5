/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssink's use of the credit extension: the wait of an input that
 * is not live for its targets' credits, and which targets a transfer
 * found without one (sinkcredit.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sinkcredit.h"
#include "sinkwait.h"
#include "sinkwrite.h"
#include "mxlfabricssink.h"
#include "mxlfabricssinktarget.h"

#include <mxl/fabrics-ext.h>

GST_DEBUG_CATEGORY_EXTERN (gst_mxl_fabrics_sink_debug);
#define GST_CAT_DEFAULT gst_mxl_fabrics_sink_debug

/* Whether every connected target that is not stalled can take grain
 * @index now (engine_lock held). A stalled target that can is no longer
 * stalled; with @expired, one that still cannot becomes stalled. */
static gboolean
credits_ready (GstMxlFabricsSink * self, guint64 index, gboolean expired)
{
  guint i, waiting = 0;

  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    mxlStatus st;

    if (t->state.kind != GST_MXL_FABRICS_SINK_TARGET_CONNECTED)
      continue;
    /* 0 ms: only asks; OK also for a target without credits */
    st = mxlFabricsExtInitiatorWaitCredit (self->initiator,
        t->state.u.connected.info, index, 0);
    if (st != MXL_ERR_TIMEOUT) {
      if (t->credit_stalled)
        GST_INFO_OBJECT (self, "target %s has a credit again (grain %"
            G_GUINT64_FORMAT "): renders wait for it again", t->id_str, index);
      t->credit_stalled = FALSE;
    } else if (!t->credit_stalled && expired) {
      t->credit_stalled = TRUE;
      GST_WARNING_OBJECT (self, "target %s gave no credit for grain %"
          G_GUINT64_FORMAT " within %u ms: its receiver holds its ring "
          "(slower than the stream, or stopped); grains go to the other "
          "targets without waiting for it until it releases one",
          t->id_str, index, GST_MXL_FABRICS_SINK_CREDIT_WAIT_MS);
    } else if (!t->credit_stalled)
      waiting++;
  }
  return waiting == 0;
}

static gboolean
any_stalled (GstMxlFabricsSink * self)
{
  guint i;

  for (i = 0; i < self->targets->len; i++)
    if (((GstMxlFabricsSinkTarget *) g_ptr_array_index (self->targets,
                i))->credit_stalled)
      return TRUE;
  return FALSE;
}

void
gst_mxl_fabrics_sink_wait_credit (GstMxlFabricsSink * self, guint64 index)
{
  gint unlocks = g_atomic_int_get (&self->unlocks);
  gint64 end;

  if (self->initiator == NULL || self->upstream_live > 0)
    return;
  /* every connected target with credits can take it (or none has them) */
  if (mxlFabricsExtInitiatorWaitCredit (self->initiator, NULL, index, 0)
      == MXL_STATUS_OK && !any_stalled (self))
    return;
  end = g_get_monotonic_time () +
      (gint64) GST_MXL_FABRICS_SINK_CREDIT_WAIT_MS * 1000;
  for (;;) {
    /* read before the look: a signal between the look and the sleep is
     * not lost (sinkwrite.h) */
    guint seq = gst_mxl_fabrics_slot_wait_seq (&self->slot_wait);

    if (self->initiator == NULL
        || credits_ready (self, index, g_get_monotonic_time () >= end))
      break;
    if (self->obj->flushing || g_atomic_int_get (&self->unlocks) != unlocks
        || gst_mxl_fabrics_sink_upstream_flushing (self)) {
      GST_DEBUG_OBJECT (self, "grain %" G_GUINT64_FORMAT ": the wait for "
          "credits ended by a flush, a state change or an EOS upstream",
          index);
      break;
    }
    g_mutex_unlock (&self->obj->lock);
    gst_mxl_fabrics_slot_wait_until (&self->slot_wait, seq, end);
    g_mutex_lock (&self->obj->lock);
  }
}

gboolean
gst_mxl_fabrics_sink_credit_holds_back (GstMxlFabricsSink * self)
{
  guint i;

  if (self->initiator == NULL || self->upstream_live != 0
      || mxlIsContinuousDataFormat (self->flow.config.common.format))
    return FALSE;
  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    mxlFabricsExtInitiatorTargetStats ts = {.version =
          MXL_FABRICS_API_VERSION };

    if (t->state.kind == GST_MXL_FABRICS_SINK_TARGET_CONNECTED
        && !t->credit_stalled
        && mxlFabricsExtInitiatorGetTargetStats (self->initiator,
            t->state.u.connected.info, &ts) == MXL_STATUS_OK && ts.credits)
      return TRUE;
  }
  return FALSE;
}

guint
gst_mxl_fabrics_sink_engine_take_no_credit (GstMxlFabricsSink * self)
{
  guint i, n = 0;

  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    mxlFabricsExtInitiatorTargetStats ts = {.version =
          MXL_FABRICS_API_VERSION };

    t->no_credit_now = FALSE;
    if (t->state.kind != GST_MXL_FABRICS_SINK_TARGET_CONNECTED
        || mxlFabricsExtInitiatorGetTargetStats (self->initiator,
            t->state.u.connected.info, &ts) != MXL_STATUS_OK)
      continue;
    if (ts.grainsNoCredit > t->seen_no_credit) {
      t->no_credit_now = TRUE;
      n++;
    }
    t->seen_no_credit = ts.grainsNoCredit;
  }
  return n;
}
