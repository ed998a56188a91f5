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
#include "fabrics/protocol/grain_initiator.h"

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
  t->u.grain.req = *req;
  return MXL_STATUS_OK;
}

/* Grain i goes to remote region i mod N (docs/wire-format.md §3.3). */
static mxlStatus
grain_queue (MxlConn *conn, const void *request)
{
  const MxlGrainRequest *req = request;
  uint32_t slot = (uint32_t) (req->grain_index % conn->info->n_regions);

  return mxl_grain_queue_into (conn, req, slot, mxl_imm_grain_encode (slot,
          req->slice_end));
}

/* Produces the next write of @t into its pending chunk. Returns FALSE
 * when the transfer has no more writes. */
static gboolean
next_chunk (MxlConn *conn, MxlTransfer *t)
{
  MxlGrainTransfer *g = &t->u.grain;

  if (!t->started) {
    t->started = TRUE;
    g->run = 0;
    mxl_splitter_init (&g->splitter, &g->req.runs[0], 1, conn->iov_limit, conn->max_msg);
  }
  for (;;) {
    if (mxl_splitter_next (&g->splitter, &g->pending)) {
      /* Only the last write of the last run carries the immediate data. */
      g->pending.last = g->pending.last && g->run + 1 == g->req.n_runs;
      t->have_pending = TRUE;
      t->chunk_length = g->pending.length;
      t->chunk_last = g->pending.last;
      t->chunk_remote_offset = g->req.runs[g->run].offset + g->pending.remote_offset;
      return TRUE;
    }
    if (g->run + 1 >= g->req.n_runs)
      return FALSE;
    g->run++;
    mxl_splitter_init (&g->splitter, &g->req.runs[g->run], 1, conn->iov_limit,
        conn->max_msg);
  }
}

/* Local iovecs of the pending grain chunk, checked against the local slot. */
static gboolean
grain_iov (MxlConn *conn, MxlTransfer *t, struct iovec *iov, void **desc, guint *n_iov)
{
  const MxlGrainTransfer *g = &t->u.grain;
  const MxlChunk *c = &g->pending;
  const MxlOfiRegion *local = &conn->init->base.regions[g->req.local_slot];

  /* The application lends the payload (mxlFabricsExtInitiatorSetGrainPayload). */
  if (mxl_initiator_payload_overridden (conn->init, g->req.local_slot)) {
    if (!mxl_initiator_payload_iov (conn->init, g->req.local_slot, c,
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
  return !g->staged || mxl_grain_stage_copy (conn, t->seq, c, iov, desc, n_iov);
}

/* A staged grain write reads the connection's buffer, not the slot; a
 * buffer takes a new transfer once its previous one is done. Whether a
 * transfer is staged is decided once, when it starts (grainstage.h). */
static gboolean
grain_claim (MxlConn *conn, MxlTransfer *t)
{
  MxlGrainTransfer *g = &t->u.grain;

  if (!t->started) {
    g->staged = mxl_grain_stage_ensure (conn);
    if (g->staged && !mxl_grain_stage_ready (conn, t->seq))
      return FALSE;
  }
  return TRUE;
}

/* Records what the write of @ctx reads: the local slot, or the staging
 * buffer of a staged transfer (grain_initiator.h). */
static void
grain_bind (MxlConn *conn, const MxlTransfer *t, const MxlWriteCtx *ctx)
{
  MxlInitiator *init = conn->init;
  MxlGrainSource *s = mxl_grain_source (init);
  const MxlGrainTransfer *g = &t->u.grain;

  if (s->ctx_slot == NULL)
    s->ctx_slot = g_new0 (uint32_t, init->ctx_count);
  s->ctx_slot[ctx - init->ctx_pool] = g->staged
      ? MXL_GRAIN_STAGE_CTX_SLOT (mxl_grain_stage_slot (conn, t->seq)) : g->req.local_slot;
}

static gboolean
grain_transfer_reads_slot (const MxlTransfer *t, uint32_t slot)
{
  return t->u.grain.req.local_slot == slot;
}

static gboolean
grain_ctx_reads_slot (const MxlInitiator *init, const MxlWriteCtx *ctx, uint32_t slot)
{
  return mxl_grain_ctx_slot (init, ctx) == slot;
}

/* A grain initiator writes into targets of grain flows: slots, no bounce
 * ring (docs/wire-format.md §1.1, §3). */
static gboolean
grain_target_usable (const MxlInitiator *init, const struct mxlFabricsTargetInfo_t *info)
{
  (void) init;
  return !info->has_bounce_buffer;
}

const MxlChunkSource mxl_grain_chunks = {
  .name = "grain",
  .target_usable = grain_target_usable,
  .setup = mxl_grain_source_setup,
  .teardown = mxl_grain_source_teardown,
  .queue = grain_queue,
  .release = mxl_grain_stage_release,
  .claim = grain_claim,
  .bind = grain_bind,
  .transfer_reads_slot = grain_transfer_reads_slot,
  .ctx_reads_slot = grain_ctx_reads_slot,
  .next = next_chunk,
  .iov = grain_iov,
};
