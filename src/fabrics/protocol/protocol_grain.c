/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The chunk source of grain flows (docs/wire-format.md §2.1, §3.3): a
 * grain transfer is the runs of its slice range, each cut into pieces of
 * at most max_msg bytes and iov_limit local iovecs (layout.c); the last
 * piece of the last run carries the immediate data (slot and slice end).
 */
#include "fabrics/protocol/protocol.h"

#include "fabrics/wire/immdata.h"
#include "fabrics/protocol/grainstage.h"
#include "fabrics/protocol/initiator-state.h"

/* Checks the runs of @req against remote region @slot and the local slot
 * (docs/wire-format.md §3.3). Writes are pieces of the runs, so checking the runs
 * checks them all. */
static gboolean
runs_fit (MxlConn *conn, const MxlGrainRequest *req, uint32_t slot)
{
  const MxlRemoteRegion *remote = &conn->info->regions[slot];
  const MxlOfiRegion *local = &conn->init->base.regions[req->local_slot];

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
mxl_grain_queue_into (MxlConn *conn, const MxlGrainRequest *req, uint32_t slot,
    uint32_t imm)
{
  MxlTransfer *t;

  if (conn->q_len >= MXL_CONN_QUEUE)
    return MXL_ERR_NOT_READY;
  if (slot >= conn->info->n_regions || !runs_fit (conn, req, slot))
    return MXL_ERR_INVALID_ARG;
  t = mxl_egress_enqueue (conn);
  t->remote_slot = slot;
  t->imm = imm;
  t->req = *req;
  return MXL_STATUS_OK;
}

/* Grain i goes to remote region i mod N (docs/wire-format.md §3.3). */
static mxlStatus
grain_queue (MxlConn *conn, const MxlGrainRequest *req)
{
  uint32_t slot = (uint32_t) (req->grain_index % conn->info->n_regions);

  return mxl_grain_queue_into (conn, req, slot, mxl_imm_grain_encode (slot,
          req->slice_end));
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
  const MxlOfiRegion *local = &conn->init->base.regions[t->req.local_slot];

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
  /* shm fan-out: sent from the connection's own copy (grainstage.h) */
  return !t->staged || mxl_grain_stage_copy (conn, t->seq, c, iov, desc, n_iov);
}

/* A staged grain write reads the connection's buffer, not the slot; a
 * buffer takes a new transfer once its previous one is done. Whether a
 * transfer is staged is decided once, when it starts (grainstage.h). */
static gboolean
grain_claim (MxlConn *conn, MxlTransfer *t, uint32_t *out_local_slot)
{
  *out_local_slot = t->req.local_slot;
  if (!t->started) {
    t->staged = mxl_grain_stage_ensure (conn);
    if (t->staged && !mxl_grain_stage_ready (conn, t->seq))
      return FALSE;
  }
  if (t->staged)
    *out_local_slot = MXL_GRAIN_STAGE_CTX_SLOT (mxl_grain_stage_slot (conn, t->seq));
  return TRUE;
}

const MxlChunkSource mxl_grain_chunks = {
  .queue_grain = grain_queue,
  .release = mxl_grain_stage_release,
  .claim = grain_claim,
  .next = next_chunk,
  .iov = grain_iov,
};
