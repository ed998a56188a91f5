/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The generic egress of every protocol: a transfer is queued per
 * connection (by the initiator's chunk source, protocol_grain.c or protocol_samples.c) and
 * posted piece by piece by the connection's transport (the post of its
 * protocol descriptor); each piece is at most max_msg bytes and iov_limit
 * local iovecs, only the last one carries the immediate data. Where the
 * provider does not order write-after-write (tx msg_order without
 * FI_ORDER_WAW: shm, efa; connectionless message protocols), the last
 * piece is held until the earlier pieces of the transfer have completed
 * (FI_DELIVERY_COMPLETE), so the target never sees the immediate data
 * before the data. -FI_EAGAIN leaves the piece pending for the next pump.
 * Every write takes a context of the initiator's pool (below); the
 * engine's tracking hears of each post and failure through init->engine
 * (MxlEngineOps).
 */
#include "fabrics/protocol/protocol.h"

#include <string.h>

#include "fabrics/protocol/initiator-state.h"

/* Writes posted per connection per pump call at most (fairness). */
#define MXL_PUMP_BUDGET 16u

/* ------------------------------------------------------------ contexts */

/* The write context pool (init->ctx_pool, a free list threaded through
 * next_free): taken per posted write here, given back by its completion
 * or failure; what happens to the contexts of a connection that is gone
 * (orphaned, released, reclaimed) is the engine's (initiator_conn.c). */
MxlWriteCtx *
mxl_initiator_ctx_get (MxlInitiator *init)
{
  MxlWriteCtx *ctx;

  if (init->ctx_free >= init->ctx_count)
    return NULL;
  ctx = &init->ctx_pool[init->ctx_free];
  init->ctx_free = ctx->next_free;
  ctx->in_use = TRUE;
  ctx->orphaned_at = 0;
  ctx->released = FALSE;
  ctx->reclaim_drain = 0;
  init->ctx_used++;
  return ctx;
}

void
mxl_initiator_ctx_put (MxlInitiator *init, MxlWriteCtx *ctx)
{
  if (!ctx->in_use)
    return;
  if (ctx->orphaned_at > 0)
    init->ctx_orphaned--;
  ctx->in_use = FALSE;
  ctx->orphaned_at = 0;
  ctx->next_free = init->ctx_free;
  init->ctx_free = (guint) (ctx - init->ctx_pool);
  init->ctx_used--;
}

/* -------------------------------------------------------------- queue */

static MxlTransfer *
queue_head (MxlConn *conn)
{
  return conn->q_len ? &conn->queue[conn->q_head] : NULL;
}

MxlTransfer *
mxl_egress_enqueue (MxlConn *conn)
{
  MxlTransfer *t;

  if (conn->q_len >= MXL_CONN_QUEUE)
    return NULL;
  t = &conn->queue[(conn->q_head + conn->q_len) % MXL_CONN_QUEUE];
  memset (t, 0, sizeof (*t));
  t->seq = conn->next_seq++;
  t->deadline = g_get_monotonic_time () + MXL_TRANSFER_DEADLINE_MS * 1000;
  conn->q_len++;
  conn->init->stats.transfersQueued++;
  return t;
}

mxlStatus
mxl_egress_queue (MxlConn *conn, const void *request)
{
  return conn->init->chunks->queue (conn, request);
}

static void
dequeue_head (MxlConn *conn)
{
  conn->q_head = (conn->q_head + 1) % MXL_CONN_QUEUE;
  conn->q_len--;
}

/* TRUE when another write will certainly be attempted right after the
 * pending write of @t in this pump call: that write is then posted with
 * FI_MORE (fi_msg(3): "the user has additional requests that will
 * immediately be posted"), and the last write of every batch without it.
 * Where writes are unordered (shm, efa) the next write of the same transfer
 * may be the held immediate data, so only a following transfer counts. */
static gboolean
next_write_follows (MxlConn *conn, const MxlTransfer *t, guint budget_left)
{
  MxlInitiator *init = conn->init;
  const MxlTransfer *next;

  if (budget_left <= 1 || conn->outstanding + 1 >= init->window
      || init->ctx_used + 1 >= init->ctx_count)
    return FALSE;
  if (!t->chunk_last)
    return conn->ordered;
  if (conn->q_len < 2)
    return FALSE;
  next = &conn->queue[(conn->q_head + 1) % MXL_CONN_QUEUE];
  return next->started || g_get_monotonic_time () <= next->deadline;
}

mxlStatus
mxl_egress_pump (MxlConn *conn)
{
  MxlInitiator *init = conn->init;
  const MxlChunkSource *src = init->chunks;
  /* the protocol's post, or a wrapper: a test hook's (protocol_hooks.c),
   * or the connectionless type's until a shm endpoint's first operation
   * was accepted (initiator_rdm.c) */
  MxlTransportPost post = conn->post;
  MxlTransfer *t;
  guint budget = MXL_PUMP_BUDGET;

  /* Fairness: at most MXL_PUMP_BUDGET writes per connection per call, so
   * that one busy target cannot starve the others or the CQ. */
  while ((t = queue_head (conn)) != NULL && conn->outstanding < init->window
      && budget > 0) {
    MxlWriteCtx *ctx;
    ssize_t rc;

    if (!t->started && g_get_monotonic_time () > t->deadline) {
      init->engine->track_drop (conn, t->seq, MXL_ERR_TIMEOUT);
      dequeue_head (conn);
      continue;
    }
    if (!src->claim (conn, t))
      break;
    if (!t->have_pending && !src->next (conn, t)) {
      dequeue_head (conn);         /* defensive: a transfer always ends on a last write */
      continue;
    }
    /* Hold the immediate data until the data is known to be in place,
     * and where the protocol asks for it until the previous transfer's is
     * (transfers are pumped one after the other, so every other write
     * outstanding is that one). */
    if (t->chunk_last && !conn->ordered
        && (conn->last_after_previous ? conn->outstanding : t->outstanding) > 0)
      break;
    ctx = mxl_initiator_ctx_get (init);
    if (ctx == NULL)
      break;
    ctx->conn_id = conn->conn_id;
    ctx->transfer_seq = t->seq;
    ctx->bytes = t->chunk_length;
    ctx->last = t->chunk_last;
    if (src->bind != NULL)
      src->bind (conn, t, ctx);
    {
      struct iovec iov[MXL_LAYOUT_MAX_IOV];
      void *desc[MXL_LAYOUT_MAX_IOV];
      guint n_iov = 0;
      t->post_more = next_write_follows (conn, t, budget) ? FI_MORE : 0;
      rc = src->iov (conn, t, iov, desc, &n_iov) ? post (conn, t, iov, desc, n_iov, ctx)
          : -FI_EINVAL;
    }
    if (rc == -FI_EAGAIN) {
      mxl_initiator_ctx_put (init, ctx);
      init->stats.retries++;
      break;
    }
    if (rc != 0) {
      mxlStatus st = rc == -FI_EINVAL ? MXL_ERR_INVALID_ARG : mxl_ofi_status (rc);
      mxl_initiator_ctx_put (init, ctx);
      g_message ("posting to target %" G_GUINT64_FORMAT ": %s (%zd)",
          conn->target_id, fi_strerror ((int) -rc), rc);
      init->engine->track_fail (conn, t->seq, st, (int) -rc, TRUE);
      return st;
    }
    budget--;
    init->engine->track_write (conn, t->seq, t->chunk_last);
    init->stats.writesPosted++;
    init->stats.bytesPosted += t->chunk_length;
    conn->outstanding++;
    t->outstanding++;
    t->have_pending = FALSE;
    if (t->chunk_last)
      dequeue_head (conn);
  }
  return MXL_STATUS_OK;
}

void
mxl_egress_on_write_done (MxlConn *conn, const MxlWriteCtx *ctx, gboolean ok)
{
  MxlTransfer *t = queue_head (conn);

  if (conn->outstanding > 0)
    conn->outstanding--;
  if (t != NULL && t->seq == ctx->transfer_seq && t->outstanding > 0)
    t->outstanding--;
  /* Transfers completed/failed are counted by the initiator's tracking. */
  (void) ok;
}

void
mxl_egress_reset (MxlConn *conn)
{
  conn->q_head = 0;
  conn->q_len = 0;
  conn->outstanding = 0;
}

gboolean
mxl_egress_transfer_reads_slot (const MxlInitiator *init, const MxlTransfer *t,
    uint32_t slot)
{
  return init->chunks->transfer_reads_slot != NULL
      && init->chunks->transfer_reads_slot (t, slot);
}

gboolean
mxl_egress_ctx_reads_slot (const MxlInitiator *init, const MxlWriteCtx *ctx,
    uint32_t slot)
{
  return init->chunks->ctx_reads_slot != NULL
      && init->chunks->ctx_reads_slot (init, ctx, slot);
}
