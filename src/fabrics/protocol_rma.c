/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Remote write + immediate data (mxl-fabrics-wire.md §2.1, §3.3).
 *
 * Egress: a transfer is queued per connection and posted write by write;
 * each write is at most max_msg bytes and iov_limit local iovecs, only the
 * last one carries the immediate data. Where the provider does not order
 * write-after-write (tx msg_order without FI_ORDER_WAW: shm, efa), the last
 * write is held until the earlier writes of the transfer have completed
 * (FI_DELIVERY_COMPLETE), so the target never sees the immediate data before
 * the data. -FI_EAGAIN leaves the write pending for the next pump.
 *
 * Ingress: the completion's immediate data and the slot's grain header are
 * validated, then the grain is committed to the flow.
 */
#include "fabrics/protocol.h"

#include <string.h>

#include <mxl/flow.h>

#include "fabrics/wire/immdata.h"
#include "fabrics/initiator.h"
#include "fabrics/target.h"

/* ---------------------------------------------------------------- egress */

/* Writes posted per connection per pump call at most (fairness). */
#define MXL_PUMP_BUDGET 16u

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

/* Checks the runs of @req against remote region @slot and the local slot
 * (wire spec §3.3). Writes are pieces of the runs, so checking the runs
 * checks them all. */
static gboolean
runs_fit (MxlConn *conn, const MxlGrainRequest *req, uint32_t slot)
{
  const MxlRemoteRegion *remote = &conn->info->regions[slot];
  const MxlOfiRegion *local = &conn->init->regions[req->local_slot];

  for (guint r = 0; r < req->n_runs; r++) {
    const MxlRun *run = &req->runs[r];
    if (run->offset > remote->len || run->length > remote->len - run->offset)
      return FALSE;
    if (run->offset > local->len || run->length > local->len - run->offset)
      return FALSE;
  }
  return TRUE;
}

mxlStatus
mxl_rma_queue_grain (MxlConn *conn, const MxlGrainRequest *req)
{
  const struct mxlFabricsTargetInfo_t *info = conn->info;
  MxlTransfer *t;
  uint32_t slot;

  if (conn->q_len >= MXL_CONN_QUEUE)
    return MXL_ERR_NOT_READY;
  slot = req->raw ? req->raw_remote_slot : (uint32_t) (req->grain_index % info->n_regions);
  if (slot >= info->n_regions || !runs_fit (conn, req, slot))
    return MXL_ERR_INVALID_ARG;
  t = mxl_egress_enqueue (conn);
  t->remote_slot = slot;
  t->imm = req->raw ? req->raw_imm : mxl_imm_grain_encode (slot, req->slice_end);
  t->req = *req;
  return MXL_STATUS_OK;
}

static void
dequeue_head (MxlConn *conn)
{
  conn->q_head = (conn->q_head + 1) % MXL_CONN_QUEUE;
  conn->q_len--;
}

/* Produces the next write of @t into t->pending. Returns FALSE when the
 * transfer has no more writes. */
static gboolean
next_chunk (MxlConn *conn, MxlTransfer *t)
{
  if (!t->started) {
    t->started = TRUE;
    t->run = 0;
    mxl_splitter_init (&t->splitter, &t->req.runs[0], 1, conn->iov_limit, conn->max_msg);
  }
  for (;;) {
    if (mxl_splitter_next (&t->splitter, &t->pending)) {
      /* Only the last write of the last run carries the immediate data. */
      t->pending.last = t->pending.last && t->run + 1 == t->req.n_runs;
      t->have_pending = TRUE;
      t->chunk_length = t->pending.length;
      t->chunk_last = t->pending.last;
      t->chunk_remote_offset = t->req.runs[t->run].offset + t->pending.remote_offset;
      return TRUE;
    }
    if (t->run + 1 >= t->req.n_runs)
      return FALSE;
    t->run++;
    mxl_splitter_init (&t->splitter, &t->req.runs[t->run], 1, conn->iov_limit,
        conn->max_msg);
  }
}

/* Local iovecs of the pending grain chunk, checked against the local slot. */
static gboolean
grain_iov (MxlConn *conn, MxlTransfer *t, struct iovec *iov, void **desc, guint *n_iov)
{
  const MxlChunk *c = &t->pending;
  const MxlOfiRegion *local = &conn->init->regions[t->req.local_slot];

  /* The application lends the payload (mxlFabricsExtInitiatorSetGrainPayload). */
  if (mxl_initiator_payload_overridden (conn->init, t->req.local_slot)) {
    if (!mxl_initiator_payload_iov (conn->init, t->req.local_slot, c,
            conn->iov_limit, iov, desc, n_iov))
      return FALSE;
  } else {
    for (guint i = 0; i < c->n_iov; i++) {
      if (c->iov[i].offset > local->len || c->iov[i].length > local->len - c->iov[i].offset)
        return FALSE;
      iov[i].iov_base = local->base + c->iov[i].offset;
      iov[i].iov_len = c->iov[i].length;
      desc[i] = local->desc;
    }
    *n_iov = c->n_iov;
  }
  /* shm: sent from the connection's own copy (grainstage.h) */
  return conn->stage.base == NULL
      || mxl_grain_stage_copy (conn, t->seq, c, iov, desc, n_iov);
}

ssize_t
mxl_rma_post (MxlConn *conn, MxlTransfer *t, const struct iovec *iov, void **desc,
    guint n_iov, MxlWriteCtx *ctx)
{
  const MxlRemoteRegion *remote = &conn->info->regions[t->remote_slot];
  uint64_t off = t->chunk_remote_offset, len = t->chunk_length;
  uint64_t flags = FI_DELIVERY_COMPLETE | FI_COMPLETION | t->post_more;
  struct fi_rma_iov rma;
  struct fi_msg_rma msg;

  /* Checked again per write: the remote range. */
  if (off > remote->len || len > remote->len - off)
    return -FI_EINVAL;
  rma.addr = remote->addr + off;
  rma.len = len;
  rma.key = remote->rkey;
  memset (&msg, 0, sizeof (msg));
  msg.msg_iov = iov;
  msg.desc = desc;
  msg.iov_count = n_iov;
  msg.addr = conn->state.u.connected.addr;
  msg.rma_iov = &rma;
  msg.rma_iov_count = 1;
  msg.context = ctx;
  if (t->chunk_last) {
    msg.data = t->imm;
    flags |= FI_REMOTE_CQ_DATA;
  }
  return fi_writemsg (conn->state.u.connected.ep, &msg, flags);
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
mxl_egress_pump (MxlConn *conn, const MxlChunkSource *src, MxlTransportPost post)
{
  MxlInitiator *init = conn->init;
  MxlTransfer *t;
  guint budget = MXL_PUMP_BUDGET;

  /* Fairness: at most MXL_PUMP_BUDGET writes per connection per call, so
   * that one busy target cannot starve the others or the CQ. */
  while ((t = queue_head (conn)) != NULL && conn->outstanding < init->window
      && budget > 0) {
    MxlWriteCtx *ctx;
    gboolean staged;
    ssize_t rc;

    if (!t->started && g_get_monotonic_time () > t->deadline) {
      init->stats.transfersDropped++;
      conn->transfers_dropped++;
      mxl_conn_track_fail (conn, t->seq, MXL_ERR_TIMEOUT, 0, TRUE);
      dequeue_head (conn);
      continue;
    }
    /* A staged grain write reads the connection's buffer, not the slot;
     * a buffer takes a new transfer once its previous one is done. */
    staged = src == &mxl_grain_chunks && mxl_grain_stage_ensure (conn);
    if (staged && !t->started && !mxl_grain_stage_ready (conn, t->seq))
      break;
    if (!t->have_pending && !src->next (conn, t)) {
      dequeue_head (conn);         /* defensive: a transfer always ends on a last write */
      continue;
    }
    /* Hold the immediate data until the data is known to be in place. */
    if (t->chunk_last && !conn->ordered && t->outstanding > 0)
      break;
    ctx = mxl_initiator_ctx_get (init);
    if (ctx == NULL)
      break;
    ctx->conn_id = conn->conn_id;
    ctx->transfer_seq = t->seq;
    ctx->bytes = t->chunk_length;
    ctx->last = t->chunk_last;
    ctx->local_slot = staged
        ? MXL_GRAIN_STAGE_CTX_SLOT (mxl_grain_stage_slot (conn, t->seq))
        : t->req.local_slot;
    {
      struct iovec iov[MXL_LAYOUT_MAX_IOV];
      void *desc[MXL_LAYOUT_MAX_IOV];
      guint n_iov = 0;
      t->post_more = next_write_follows (conn, t, budget) ? FI_MORE : 0;
      rc = mxl_initiator_take_post_fault (init);
      if (rc == 0)
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
      mxl_conn_track_fail (conn, t->seq, st, (int) -rc, TRUE);
      return st;
    }
    budget--;
    mxl_conn_track_write (conn, t->seq, t->chunk_last);
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

const MxlChunkSource mxl_grain_chunks = { next_chunk, grain_iov };

static mxlStatus
rma_pump (MxlConn *conn)
{
  return mxl_egress_pump (conn, &mxl_grain_chunks, mxl_rma_post);
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

const MxlEgressOps mxl_rma_egress_ops = {
  .name = "rma-write",
  .queue_grain = mxl_rma_queue_grain,
  .pump = rma_pump,
  .on_write_done = mxl_egress_on_write_done,
  .reset = mxl_egress_reset,
};

/* --------------------------------------------------------------- ingress */

static void
rma_on_drained (MxlTarget *t, const struct fi_cq_data_entry *entry)
{
  uint32_t slot = (uint32_t) (entry->data & 0xFFFFu);

  if ((entry->flags & FI_REMOTE_CQ_DATA) && slot < t->grain_count)
    t->slot_pending[slot]++;
}

/* Whether the header index @index read in @slot for the completion being
 * consumed belongs to a newer write still landing (header first) rather
 * than to the completed one: a ring ahead of every grain committed, while
 * completions drained after this one hold older grains in other slots. The
 * initiator sends in index order and an ordered provider completes in that
 * order, so those later completions were sent after this one's write and
 * before the write whose header this is: this slot was lapped. */
static gboolean
header_overtaken (MxlTarget *t, uint32_t slot, uint64_t index)
{
  if (!t->have_committed || index <= t->committed_max + t->grain_count)
    return FALSE;
  for (size_t j = t->batch_pos; j < t->batch_len; j++) {
    const struct fi_cq_data_entry *e = &t->batch[j];
    uint32_t s = (uint32_t) (e->data & 0xFFFFu);
    uint64_t other = 0;

    if (!(e->flags & FI_REMOTE_CQ_DATA) || s >= t->grain_count || s == slot)
      continue;
    if (mxl_grain_header_check (t->regions[s].base, s, t->grain_count,
            (uint32_t) t->layout.grain_size, t->layout.total_slices,
            &other) == MXL_HEADER_OK && other < index)
      return TRUE;
  }
  return FALSE;
}

static mxlStatus
rma_on_completion (MxlTarget *t, const struct fi_cq_data_entry *entry,
    uint64_t *out_index, uint64_t *out_count)
{
  mxlGrainInfo info;
  uint8_t *payload = NULL;
  uint32_t slot;
  uint16_t slices;
  uint64_t index;
  mxlStatus st;
  gboolean superseded = FALSE;
  uint32_t raw_slot = (uint32_t) (entry->data & 0xFFFFu);

  /* Bookkeeping of the batch first (rma_on_drained() counted every completion
   * whose low 16 bits name an existing slot): is a newer completion for
   * this slot already waiting? */
  if (raw_slot < t->grain_count && t->slot_pending[raw_slot] > 0)
    superseded = --t->slot_pending[raw_slot] > 0;

  if (mxl_imm_grain_decode (entry->data, t->grain_count, t->layout.total_slices,
          &slot, &slices) != MXL_IMM_OK) {
    t->stats.badImmediateData++;
    g_debug ("target %" G_GUINT64_FORMAT ": immediate data 0x%" G_GINT64_MODIFIER
        "x out of range (slots %u, slices %u)", t->id, (guint64) entry->data,
        t->grain_count, t->layout.total_slices);
    return MXL_ERR_INVALID_ARG;
  }
  /* The newer completion commits: this one's data has been extended (a
   * later slice range) or overwritten (a newer grain). */
  if (superseded) {
    t->stats.completionsSuperseded++;
    return MXL_ERR_NOT_READY;
  }
  if (mxl_grain_header_check (t->regions[slot].base, slot, t->grain_count,
          (uint32_t) t->layout.grain_size, t->layout.total_slices,
          &index) != MXL_HEADER_OK) {
    t->stats.badGrainHeaders++;
    g_debug ("target %" G_GUINT64_FORMAT ": grain header of slot %u does not "
        "match (index %" G_GUINT64_FORMAT ")", t->id, slot, index);
    return MXL_ERR_INVALID_ARG;
  }
  /* Committing a landing write's header would publish a half-written
   * grain; the completed grain itself was overwritten. */
  if (header_overtaken (t, slot, index)) {
    t->stats.completionsSuperseded++;
    g_debug ("target %" G_GUINT64_FORMAT ": slot %u already holds the header "
        "of grain %" G_GUINT64_FORMAT ", still landing: lapped, not committed",
        t->id, slot, index);
    return MXL_ERR_NOT_READY;
  }
  /* Commit with validSlices from the immediate data (wire spec §6.9). */
  st = mxlFlowWriterOpenGrain (t->writer, index, &info, &payload);
  if (st == MXL_STATUS_OK) {
    info.validSlices = slices;
    st = mxlFlowWriterCommitGrain (t->writer, &info);
  }
  if (st != MXL_STATUS_OK) {
    t->stats.commitFailures++;
    return st;
  }
  t->stats.grainsReceived++;
  if (!t->have_committed || index > t->committed_max)
    t->committed_max = index;
  t->have_committed = TRUE;
  *out_index = index;
  *out_count = 0;
  return MXL_STATUS_OK;
}

const MxlIngressOps mxl_rma_ingress_ops = {
  .name = "rma-write",
  .on_completion = rma_on_completion,
  .on_drained = rma_on_drained,
};
