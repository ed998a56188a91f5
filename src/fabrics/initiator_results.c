/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The initiator's tracking of every transfer to every connection until its
 * last write completed, the results and events it reports, and the
 * application's view (target states, stats, slots still in use).
 */
#include "fabrics/initiator.h"
#include "fabrics/initiator_credit.h"

#include <string.h>

/* ------------------------------------------------- tracking and results */

void
mxl_initiator_push_result (MxlInitiator *init, uint64_t target_id, const MxlTracked *tr)
{
  mxlFabricsExtTransferResult *r;
  gboolean dropped;

  if (tr->status == MXL_STATUS_OK)
    init->stats.transfersCompleted++;
  else
    init->stats.transfersFailed++;
  if (init->results == NULL)
    return;
  r = &init->results[mxl_endpoint_result_push (&init->base, &dropped)];
  if (dropped)
    init->stats.transferResultsDropped++;
  r->version = MXL_FABRICS_API_VERSION;
  r->status = tr->status;
  r->providerError = tr->prov_err;
  r->targetId = target_id;
  r->grainIndex = tr->grain_index;
  r->startSlice = tr->start;
  r->endSlice = tr->end;
  r->writes = tr->writes;
  mxl_endpoint_wake (&init->base);
}

static MxlTracked *
tracked_find (MxlConn *conn, uint64_t seq)
{
  MxlTracked *tr;
  uint64_t first;

  if (conn->tr_len == 0)
    return NULL;
  first = conn->tracked[conn->tr_head].seq;
  if (seq < first || seq - first >= conn->tr_len)
    return NULL;
  tr = &conn->tracked[(conn->tr_head + (guint) (seq - first)) % MXL_CONN_TRACKED];
  return tr->seq == seq ? tr : NULL;
}

/* Reports a finished transfer; one that failed after it was queued and was
 * not dropped (its connection lost, a post or a write failed) is counted in
 * the connection's transfersFailed: its target's loss. */
static void
tracked_report (MxlConn *conn, const MxlTracked *tr)
{
  if (tr->status != MXL_STATUS_OK && !tr->dropped)
    conn->transfers_failed++;
  mxl_initiator_push_result (conn->init, conn->target_id, tr);
}

/* Reports finished transfers, oldest first (results keep queue order). */
static void
tracked_retire (MxlConn *conn)
{
  while (conn->tr_len > 0) {
    MxlTracked *tr = &conn->tracked[conn->tr_head];
    if (!tr->posting_done || tr->outstanding > 0)
      break;
    tracked_report (conn, tr);
    conn->tr_head = (conn->tr_head + 1) % MXL_CONN_TRACKED;
    conn->tr_len--;
  }
}

void
mxl_conn_track_add (MxlConn *conn, uint64_t seq, const MxlTracked *what)
{
  MxlTracked *tr;

  if (conn->tr_len == MXL_CONN_TRACKED) {
    /* Never with the room check of queue_on(); defensive: this transfer
     * then yields no result (tracked_find() checks seqs). */
    g_warning ("initiator: target %" G_GUINT64_FORMAT ": too many transfers tracked",
        conn->target_id);
    return;
  }
  tr = &conn->tracked[(conn->tr_head + conn->tr_len++) % MXL_CONN_TRACKED];
  memset (tr, 0, sizeof *tr);
  tr->seq = seq;
  tr->grain_index = what->grain_index;
  tr->start = what->start;
  tr->end = what->end;
  tr->queued_at = what->queued_at;
  tr->status = MXL_STATUS_OK;
}

/* The connection is left: everything tracked fails with @reason unless it
 * failed already. */
void
mxl_conn_track_cancel (MxlConn *conn, mxlStatus reason)
{
  for (guint i = 0; i < conn->tr_len; i++) {
    MxlTracked *tr = &conn->tracked[(conn->tr_head + i) % MXL_CONN_TRACKED];
    if (tr->status == MXL_STATUS_OK)
      tr->status = reason != MXL_STATUS_OK ? reason : MXL_ERR_INTERRUPTED;
    tracked_report (conn, tr);
  }
  conn->tr_head = conn->tr_len = 0;
}

void
mxl_conn_track_write (MxlConn *conn, uint64_t seq, gboolean last)
{
  MxlTracked *tr = tracked_find (conn, seq);

  if (tr == NULL)
    return;
  mxl_conn_credit_posted (conn, tr);
  tr->writes++;
  tr->outstanding++;
  if (last)
    tr->posting_done = TRUE;
}

gboolean
mxl_conn_transfer_idle (MxlConn *conn, uint64_t seq)
{
  const MxlTracked *tr = tracked_find (conn, seq);

  return tr == NULL || (tr->posting_done && tr->outstanding == 0);
}

void
mxl_conn_track_fail (MxlConn *conn, uint64_t seq, mxlStatus status, int prov_err,
    gboolean final)
{
  MxlTracked *tr = tracked_find (conn, seq);

  if (tr == NULL)
    return;
  if (tr->status == MXL_STATUS_OK) {
    tr->status = status != MXL_STATUS_OK ? status : MXL_ERR_UNKNOWN;
    tr->prov_err = prov_err;
  }
  if (final)
    tr->posting_done = TRUE;
  tracked_retire (conn);
}

/* Whether another transfer of @tr's grain than @tr, not dropped, is
 * tracked on @conn (queued, in flight or finished behind an older one). */
static gboolean
tracked_same_grain (const MxlConn *conn, const MxlTracked *tr)
{
  for (guint i = 0; i < conn->tr_len; i++) {
    const MxlTracked *o = &conn->tracked[(conn->tr_head + i) % MXL_CONN_TRACKED];

    if (o != tr && !o->dropped && o->grain_index == tr->grain_index)
      return TRUE;
  }
  return FALSE;
}

void
mxl_conn_track_drop (MxlConn *conn, uint64_t seq, mxlStatus status)
{
  MxlTracked *tr = tracked_find (conn, seq);

  conn->transfers_dropped++;
  conn->init->stats.transfersDropped++;
  if (tr != NULL)
    tr->dropped = TRUE;
  /* credits: a grain none of whose writes went out gives its slot back */
  if (tr != NULL && tr->writes == 0 && conn->credit != NULL)
    conn->init->credit_ops->dropped (conn, tr, tracked_same_grain (conn, tr));
  mxl_conn_track_fail (conn, seq, status, 0, TRUE);
}

/* A write of @seq completed (or failed with positive @err). */
void
mxl_conn_track_complete (MxlConn *conn, uint64_t seq, gboolean ok, int err)
{
  MxlTracked *tr = tracked_find (conn, seq);

  if (tr == NULL)
    return;
  if (tr->outstanding > 0)
    tr->outstanding--;
  if (!ok && tr->status == MXL_STATUS_OK) {
    tr->status = mxl_ofi_status (-(ssize_t) (err ? err : FI_EIO));
    tr->prov_err = err;
  }
  tracked_retire (conn);
}


/* --------------------------------------------------- application view */

static gboolean
pop_result (MxlInitiator *init, mxlFabricsExtTransferResult *out)
{
  guint i;

  if (!mxl_endpoint_result_pop (&init->base, &i))
    return FALSE;
  *out = init->results[i];
  return TRUE;
}

mxlStatus
mxl_initiator_poll_result (MxlInitiator *init, int timeout_ms,
    mxlFabricsExtTransferResult *out)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000;
  guint sleep_us = 50;
  gboolean got;

  if (!init->base.setup_done)
    return MXL_ERR_INVALID_STATE;
  mxl_lock (&init->base.lock);
  for (;;) {
    if ((got = pop_result (init, out)))
      break;
    /* Drives progress (no thread) or waits for the thread's passes. */
    if (!init->mode->await_result (init, deadline, &sleep_us)) {
      got = pop_result (init, out);
      break;
    }
  }
  mxl_unlock (&init->base.lock);
  return got ? MXL_STATUS_OK : MXL_ERR_NOT_READY;
}

mxlStatus
mxl_initiator_target_state (MxlInitiator *init, uint64_t target_id,
    mxlFabricsExtConnectionState *out)
{
  mxlFabricsExtInitiatorTargetStats ts;
  mxlStatus st = mxl_initiator_target_stats (init, target_id, &ts);

  if (st == MXL_STATUS_OK)
    *out = ts.state;
  return st;
}

gboolean
mxl_initiator_slot_in_use_locked (const MxlInitiator *init, uint32_t slot)
{
  /* With a progress thread, descriptors still in the post ring count as
   * in flight, a conservative answer. */
  if (init->mode->posts_waiting (init))
    return TRUE;
  /* Queued transfers read the slot when their writes are posted ... */
  for (guint i = 0; i < init->conns->len; i++) {
    const MxlConn *c = g_ptr_array_index (init->conns, i);
    for (guint k = 0; k < c->q_len; k++)
      if (mxl_egress_transfer_reads_slot (init, &c->queue[(c->q_head + k) % MXL_CONN_QUEUE],
              slot))
        return TRUE;
  }
  /* ... and the provider reads it until each posted write completes. */
  for (guint i = 0; i < init->ctx_count; i++)
    if (init->ctx_pool[i].in_use && !init->ctx_pool[i].released
        && mxl_egress_ctx_reads_slot (init, &init->ctx_pool[i], slot))
      return TRUE;
  return FALSE;
}

gboolean
mxl_initiator_slot_in_use (MxlInitiator *init, uint32_t slot)
{
  gboolean in_use;

  mxl_lock (&init->base.lock);
  in_use = mxl_initiator_slot_in_use_locked (init, slot);
  mxl_unlock (&init->base.lock);
  return in_use;
}

/* Whether a posted write of @conn still reads local slot @slot. */
static gboolean
conn_holds_slot (const MxlInitiator *init, const MxlConn *conn, uint32_t slot)
{
  for (guint i = 0; i < init->ctx_count; i++) {
    const MxlWriteCtx *ctx = &init->ctx_pool[i];
    if (ctx->in_use && !ctx->released && ctx->orphaned_at == 0
        && ctx->conn_id == conn->conn_id && mxl_egress_ctx_reads_slot (init, ctx, slot))
      return TRUE;
  }
  return FALSE;
}

/* Drops @conn's queued transfers of local slot @slot that have not
 * started: from the head of its queue, where the oldest are (a transfer
 * further back of the same slot would be a ring younger than the one in
 * front of it, which conn_behind() prevents). */
static void
drop_queued_of_slot (MxlConn *conn, uint32_t slot)
{
  while (conn->q_len > 0) {
    MxlTransfer *t = &conn->queue[conn->q_head];

    if (t->started || !mxl_egress_transfer_reads_slot (conn->init, t, slot))
      break;
    mxl_conn_track_drop (conn, t->seq, MXL_ERR_OUT_OF_RANGE_TOO_LATE);
    conn->q_head = (conn->q_head + 1) % MXL_CONN_QUEUE;
    conn->q_len--;
  }
}

mxlStatus
mxl_initiator_release_slot (MxlInitiator *init, uint64_t index,
    gboolean drop_holders, gboolean *out_in_flight)
{
  uint32_t slot = (uint32_t) (index % init->base.grain_count);
  guint free_conns = 0;

  mxl_lock (&init->base.lock);
  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);

    if (c->state.kind != MXL_CONN_CONNECTED || c->post == NULL)
      continue;
    drop_queued_of_slot (c, slot);
    if (!conn_holds_slot (init, c, slot))
      free_conns++;
  }
  /* Closing a connected endpoint ends its reads of the slot; only worth it
   * when another target waits for the slot (a lone target skips the grain
   * and keeps its connection). */
  if (drop_holders && free_conns > 0 && init->type_ops->close_ends_reads) {
    for (guint i = 0; i < init->conns->len; i++) {
      MxlConn *c = g_ptr_array_index (init->conns, i);

      if (c->state.kind != MXL_CONN_CONNECTED || !conn_holds_slot (init, c, slot))
        continue;
      c->fell_behind++;
      g_debug ("initiator: target %" G_GUINT64_FORMAT " is a ring behind: "
          "disconnected so that the others get grain %" G_GUINT64_FORMAT,
          c->target_id, index);
      mxl_conn_transition (c, MXL_CONN_IN_ERROR, MXL_ERR_OUT_OF_RANGE_TOO_LATE);
    }
  }
  *out_in_flight = mxl_initiator_slot_in_use_locked (init, slot);
  mxl_unlock (&init->base.lock);
  return MXL_STATUS_OK;
}

mxlStatus
mxl_initiator_target_stats (MxlInitiator *init, uint64_t target_id,
    mxlFabricsExtInitiatorTargetStats *out)
{
  MxlConn *conn;
  mxlStatus st = MXL_ERR_NOT_FOUND;

  mxl_lock (&init->base.lock);
  conn = init->conns ? mxl_initiator_find_conn (init, target_id) : NULL;
  if (conn != NULL) {
    memset (out, 0, sizeof *out);
    out->version = MXL_FABRICS_API_VERSION;
    out->state = mxl_conn_public_state (conn->state.kind);
    out->grainsSkipped = conn->grains_skipped;
    mxl_conn_credit_stats (conn, out);
    out->transfersDropped = conn->transfers_dropped;
    out->fellBehind = conn->fell_behind;
    out->transfersFailed = conn->transfers_failed;
    out->behind = conn->behind;
    st = MXL_STATUS_OK;
  }
  mxl_unlock (&init->base.lock);
  return st;
}

void
mxl_initiator_get_stats (MxlInitiator *init, mxlFabricsExtInitiatorStats *out)
{
  mxl_lock (&init->base.lock);
  *out = init->stats;
  mxl_unlock (&init->base.lock);
  init->mode->ring_stats (init, out);
  out->version = MXL_FABRICS_API_VERSION;
}

