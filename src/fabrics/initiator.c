/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Initiator: setup, targets, fan-out of grain transfers, progress, and the
 * connection state machine (wire spec §6.4, §6.5, §7.4, with the
 * improvements of our design: queued retries within a deadline instead of
 * failing on -FI_EAGAIN, lost connections reported instead of silently
 * evicted, reconnection on re-add).
 */
#include "fabrics/initiator.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

#include <mxl/flow.h>

#include "fabrics/ofi/address.h"
#include "fabrics/claim.h"
#include "fabrics/setup.h"
#include "flow/flow-priv.h"

#define CTX_POOL_SIZE 1024u
#define ORPHAN_RECLAIM_US (2 * G_USEC_PER_SEC)
/* How long TransferGrain drives progress to make room in a full queue. */
#define QUEUE_WAIT_MS 200
#define CQ_BATCH 64

/* ------------------------------------------------------------ contexts */

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
  ctx->parked = FALSE;
  ctx->claim = FALSE;
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

/* Contexts of a connection generation that is gone: their completions, if
 * any still come, are ignored; they return to the pool after a while, or,
 * when the generation's own endpoint was closed (@closed: no completion of
 * it can be produced any more), once the CQ has been read empty after the
 * close: the local slots they read are free again at once, and a
 * completion still queued cannot meet a reused context. @parked: the
 * endpoint stays open (parked, initiator_rdm.c): they wait for their
 * completions (a stopped peer that continues still reads the slots they
 * name) or the park's end. */
static void
orphan_contexts (MxlInitiator *init, uint64_t conn_id, gboolean closed,
    gboolean parked)
{
  gint64 now = g_get_monotonic_time ();

  for (guint i = 0; i < init->ctx_count; i++) {
    MxlWriteCtx *ctx = &init->ctx_pool[i];
    if (ctx->in_use && ctx->conn_id == conn_id && ctx->orphaned_at == 0) {
      ctx->orphaned_at = now;
      ctx->reclaim_drain = closed && !parked ? init->cq_drains + 1 : 0;
      ctx->parked = parked;
      init->ctx_orphaned++;
    }
  }
}

/* The endpoint of connection generation @conn_id was closed (fi_close ends
 * every access to the buffers of its posted writes, fi_endpoint(3)), or the
 * shm receiver that would copy them is gone: its orphaned contexts no
 * longer hold their local slot, though they stay taken until reclaimed;
 * with @reclaim, they are reclaimed once the CQ has been read empty. */
static void
release_contexts (MxlInitiator *init, uint64_t conn_id, gboolean reclaim)
{
  for (guint i = 0; i < init->ctx_count; i++) {
    MxlWriteCtx *ctx = &init->ctx_pool[i];
    if (ctx->in_use && ctx->conn_id == conn_id && ctx->orphaned_at > 0) {
      ctx->released = TRUE;
      if (reclaim) {
        ctx->parked = FALSE;
        ctx->reclaim_drain = init->cq_drains + 1;
      }
    }
  }
}

void
mxl_initiator_release_contexts (MxlInitiator *init, uint64_t conn_id)
{
  release_contexts (init, conn_id, TRUE);
}

gboolean
mxl_initiator_contexts_in_use (const MxlInitiator *init, uint64_t conn_id)
{
  for (guint i = 0; i < init->ctx_count; i++)
    if (init->ctx_pool[i].in_use && init->ctx_pool[i].conn_id == conn_id)
      return TRUE;
  return FALSE;
}

static void
reclaim_orphans (MxlInitiator *init)
{
  gint64 now = g_get_monotonic_time ();

  for (guint i = 0; i < init->ctx_count; i++) {
    MxlWriteCtx *ctx = &init->ctx_pool[i];
    if (ctx->in_use && ctx->orphaned_at > 0
        && ((!ctx->parked && now - ctx->orphaned_at > ORPHAN_RECLAIM_US)
            || (ctx->reclaim_drain > 0 && init->cq_drains >= ctx->reclaim_drain)))
      mxl_initiator_ctx_put (init, ctx);
  }
}

/* --------------------------------------------------------- connections */

static mxlFabricsExtConnectionState
public_state (MxlConnKind kind)
{
  switch (kind) {
    case MXL_CONN_IDLE:
      return MXL_FABRICS_EXT_STATE_IDLE;
    case MXL_CONN_CONNECTING:
      return MXL_FABRICS_EXT_STATE_CONNECTING;
    case MXL_CONN_CONNECTED:
      return MXL_FABRICS_EXT_STATE_CONNECTED;
    case MXL_CONN_LOST:
      return MXL_FABRICS_EXT_STATE_LOST;
    case MXL_CONN_REMOVED:
      return MXL_FABRICS_EXT_STATE_REMOVED;
  }
  return MXL_FABRICS_EXT_STATE_IDLE;
}

static void
idle_state (MxlConnState *s, guint attempts)
{
  gint64 delay_ms = attempts == 0 ? 0
      : MIN ((gint64) MXL_RETRY_FIRST_MS << MIN (attempts - 1, 8u), MXL_RETRY_MAX_MS);

  memset (s, 0, sizeof (*s));
  s->kind = MXL_CONN_IDLE;
  s->u.idle.retry_at = g_get_monotonic_time () + delay_ms * 1000;
  s->u.idle.attempts = attempts;
}

/* ------------------------------------------------- tracking and results */

static void
wake_waiters (MxlInitiator *init)
{
  if (init->waiters > 0)
    mxl_lock_broadcast (&init->lock);
}

static void
push_result (MxlInitiator *init, uint64_t target_id, const MxlTracked *tr)
{
  mxlFabricsExtTransferResult *r;

  if (tr->status == MXL_STATUS_OK)
    init->stats.transfersCompleted++;
  else
    init->stats.transfersFailed++;
  if (init->results == NULL)
    return;
  if (init->res_len == MXL_FABRICS_EXT_RESULT_QUEUE_MAX) {
    init->res_head = (init->res_head + 1) % MXL_FABRICS_EXT_RESULT_QUEUE_MAX;
    init->res_len--;
    init->stats.transferResultsDropped++;
  }
  r = &init->results[(init->res_head + init->res_len++) % MXL_FABRICS_EXT_RESULT_QUEUE_MAX];
  r->version = MXL_FABRICS_API_VERSION;
  r->status = tr->status;
  r->providerError = tr->prov_err;
  r->targetId = target_id;
  r->grainIndex = tr->grain_index;
  r->startSlice = tr->start;
  r->endSlice = tr->end;
  r->writes = tr->writes;
  wake_waiters (init);
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

/* Reports finished transfers, oldest first (results keep queue order). */
static void
tracked_retire (MxlConn *conn)
{
  while (conn->tr_len > 0) {
    MxlTracked *tr = &conn->tracked[conn->tr_head];
    if (!tr->posting_done || tr->outstanding > 0)
      break;
    push_result (conn->init, conn->target_id, tr);
    conn->tr_head = (conn->tr_head + 1) % MXL_CONN_TRACKED;
    conn->tr_len--;
  }
}

static void
tracked_add (MxlConn *conn, uint64_t seq, const MxlTracked *what)
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
static void
tracked_cancel (MxlConn *conn, mxlStatus reason)
{
  for (guint i = 0; i < conn->tr_len; i++) {
    MxlTracked *tr = &conn->tracked[(conn->tr_head + i) % MXL_CONN_TRACKED];
    if (tr->status == MXL_STATUS_OK)
      tr->status = reason != MXL_STATUS_OK ? reason : MXL_ERR_INTERRUPTED;
    push_result (conn->init, conn->target_id, tr);
  }
  conn->tr_head = conn->tr_len = 0;
}

void
mxl_conn_track_write (MxlConn *conn, uint64_t seq, gboolean last)
{
  MxlTracked *tr = tracked_find (conn, seq);

  if (tr == NULL)
    return;
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

/* A write of @seq completed (or failed with positive @err). */
static void
tracked_complete (MxlConn *conn, uint64_t seq, gboolean ok, int err)
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

static gboolean
take_fault (MxlInitiator *init, MxlInjectKind kind, int *out_err)
{
  if (init->inject_count[kind] == 0)
    return FALSE;
  init->inject_count[kind]--;
  *out_err = init->inject_err[kind];
  return TRUE;
}

int
mxl_initiator_take_post_fault (MxlInitiator *init)
{
  int err = 0;

  return take_fault (init, MXL_INJECT_POST_FAILURE, &err) ? -err : 0;
}

void
mxl_initiator_debug_inject (MxlInitiator *init, MxlInjectKind kind, guint count,
    int fi_err)
{
  mxl_lock (&init->lock);
  init->inject_count[kind] = count;
  init->inject_err[kind] = fi_err;
  mxl_unlock (&init->lock);
}

/* Leaves a state that holds transport resources. */
static void
leave (MxlConn *conn, const MxlConnState *cur, gboolean orderly, mxlStatus reason)
{
  MxlInitiator *init = conn->init;
  gboolean own;

  if (cur->kind != MXL_CONN_CONNECTING && cur->kind != MXL_CONN_CONNECTED)
    return;
  tracked_cancel (conn, reason);
  if (conn->egress != NULL)
    conn->egress->reset (conn);
  conn->egress = NULL;
  conn->outstanding = 0;
  g_hash_table_remove (init->by_conn_id, &conn->conn_id);
  /* A connection with its own endpoint (shm, initiator_rdm.c) closes it,
   * or, lost with writes in flight to a peer that still lives (stopped,
   * say), parks it: should the peer continue, it would still read the
   * local slots those writes name, so they stay in use until their
   * completions come. */
  own = cur->kind == MXL_CONN_CONNECTED ? cur->u.connected.av != NULL
      : cur->u.connecting.av != NULL;
  conn->parking = own && !orderly && !mxl_conn_peer_gone (conn)
      && mxl_initiator_contexts_in_use (init, conn->conn_id);
  orphan_contexts (init, conn->conn_id, own, conn->parking);
  init->type_ops->close (conn, cur, orderly);
  /* Nobody reads the writes' memory any more: the endpoint is closed (RC,
   * or a connection's own shm endpoint that was not parked), or the shm
   * receiver that would copy it (it reads the sender's memory when it
   * progresses) has exited. */
  if (init->type_ops == &mxl_initiator_rc_ops || (own && !conn->parking)
      || mxl_conn_peer_gone (conn))
    release_contexts (init, conn->conn_id, FALSE);
  conn->parking = FALSE;
}

/* A shm target's process is gone (TargetInfo ext.pid, same host): its
 * shared region must not be written again, whatever state libfabric left
 * it in (a lock the process held when it died is never released, and
 * libfabric 1.17 spins on it). A reused pid only delays the verdict to the
 * stall check. */
gboolean
mxl_conn_peer_gone (const MxlConn *conn)
{
  return conn->info->owner_pid != 0 && kill ((pid_t) conn->info->owner_pid, 0) != 0
      && errno == ESRCH;
}

void
mxl_conn_transition (MxlConn *conn, MxlConnInput input, mxlStatus reason)
{
  MxlInitiator *init = conn->init;
  MxlConnState cur = conn->state;
  MxlConnState next = cur;
  gint64 now = g_get_monotonic_time ();

  switch (input) {
    case MXL_CONN_IN_TICK:
      if (cur.kind == MXL_CONN_IDLE && now >= cur.u.idle.retry_at && mxl_conn_peer_gone (conn)) {
        /* A TargetInfo of a process that is gone (a stale file): not
         * opened; retried with back-off until it is replaced. */
        idle_state (&next, cur.u.idle.attempts + 1);
      } else if (cur.kind == MXL_CONN_IDLE && now >= cur.u.idle.retry_at) {
        conn->conn_id = ++init->next_conn_id;
        if (init->type_ops->open (conn, &next) != MXL_STATUS_OK)
          idle_state (&next, cur.u.idle.attempts + 1);
        else
          g_hash_table_insert (init->by_conn_id, &conn->conn_id, conn);
      } else if (cur.kind == MXL_CONN_CONNECTING
          && now - cur.u.connecting.since > MXL_CONNECT_TIMEOUT_MS * 1000) {
        reason = MXL_ERR_NOT_READY;
        leave (conn, &cur, FALSE, reason);
        idle_state (&next, cur.u.connecting.attempts + 1);
      } else if (cur.kind == MXL_CONN_CONNECTED && !init->type_ops->reports_peer_loss
          && ((conn->outstanding > 0
                  && now - conn->last_progress > MXL_CONN_STALL_MS * 1000)
              || mxl_conn_peer_gone (conn))) {
        reason = MXL_ERR_NOT_READY;
        leave (conn, &cur, FALSE, MXL_ERR_INTERRUPTED);
        memset (&next, 0, sizeof (next));
        next.kind = MXL_CONN_LOST;
        next.u.lost.reason = reason;
      }
      break;
    case MXL_CONN_IN_CONNECTED:
      if (cur.kind == MXL_CONN_CONNECTING) {
        memset (&next, 0, sizeof (next));
        next.kind = MXL_CONN_CONNECTED;
        next.u.connected.ep = cur.u.connecting.ep;
        next.u.connected.addr = cur.u.connecting.addr;
        next.u.connected.av = cur.u.connecting.av;
      }
      break;
    case MXL_CONN_IN_SHUTDOWN:
    case MXL_CONN_IN_ERROR:
      if (cur.kind == MXL_CONN_CONNECTING) {
        /* Refused or unreachable: the target may not listen yet. */
        leave (conn, &cur, FALSE, MXL_ERR_INTERRUPTED);
        idle_state (&next, cur.u.connecting.attempts + 1);
      } else if (cur.kind == MXL_CONN_CONNECTED) {
        leave (conn, &cur, FALSE, MXL_ERR_INTERRUPTED);
        memset (&next, 0, sizeof (next));
        next.kind = MXL_CONN_LOST;
        next.u.lost.reason = reason;
      }
      break;
    case MXL_CONN_IN_REMOVE:
      if (cur.kind != MXL_CONN_REMOVED) {
        leave (conn, &cur, TRUE, MXL_ERR_INTERRUPTED);
        memset (&next, 0, sizeof (next));
        next.kind = MXL_CONN_REMOVED;
      }
      break;
    case MXL_CONN_IN_READD:
      if (cur.kind == MXL_CONN_LOST || cur.kind == MXL_CONN_IDLE)
        idle_state (&next, 0);
      break;
  }

  if (next.kind == MXL_CONN_CONNECTED && cur.kind != MXL_CONN_CONNECTED) {
    /* The protocol is chosen once, when the connection becomes usable. */
    conn->egress = conn->protocol;
    conn->last_progress = now;
    conn->q_head = conn->q_len = 0;
    conn->tr_head = conn->tr_len = 0;
    init->stats.targetsConnected++;
  }
  if (cur.kind == MXL_CONN_CONNECTED && next.kind != MXL_CONN_CONNECTED) {
    init->stats.targetsConnected--;
    if (next.kind == MXL_CONN_LOST) {
      init->stats.connectionsLost++;
      /* debug level: the application hears of it through the connection
       * events (the sink re-adds the target itself with auto-reconnect) */
      g_debug ("initiator: target %" G_GUINT64_FORMAT " lost (status %d); "
          "adding its TargetInfo again reconnects", conn->target_id, reason);
    }
  }
  conn->state = next;
  if (public_state (next.kind) != public_state (cur.kind)) {
    g_debug ("initiator: target %" G_GUINT64_FORMAT " %s -> %s", conn->target_id,
        mxlFabricsExtConnectionStateName (public_state (cur.kind)),
        mxlFabricsExtConnectionStateName (public_state (next.kind)));
    mxl_event_queue_push (&init->events, conn->target_id, public_state (cur.kind),
        public_state (next.kind), reason);
    if (init->notify)
      init->notify (init->notify_data);
  }
}

MxlConn *
mxl_initiator_conn_by_fid (MxlInitiator *init, struct fid *fid)
{
  return fid ? g_hash_table_lookup (init->by_fid, fid) : NULL;
}

static MxlConn *
find_conn (MxlInitiator *init, uint64_t target_id)
{
  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);
    if (c->target_id == target_id && c->state.kind != MXL_CONN_REMOVED)
      return c;
  }
  return NULL;
}

static void
conn_free (MxlConn *conn)
{
  if (conn->init->dom != NULL)
    mxl_ofi_region_close (conn->init->dom, &conn->claim_region);
  g_free (conn->claim_buf);
  mxl_grain_stage_free (conn->init->dom, &conn->stage);
  mxl_samples_conn_release (conn);
  mxl_target_info_free (conn->info);
  g_free (conn);
}

/* --------------------------------------------------------------- setup */

static void drain_cq (MxlInitiator *init, int timeout_ms);

/* How long teardown keeps progressing connections that sent messages
 * (send, tagged) before closing them (ms). */
#define TEARDOWN_MESSAGE_DRAIN_MS 20

/* tcp;ofi_rxm reports a rendezvous send (a message over its 16 KiB eager
 * size) complete before it closes the memory regions it registered for
 * it, and only progress closes them: a domain closed right after the last
 * completion fails with -FI_EBUSY (libfabric 1.17). Connections that sent
 * messages are progressed a little first; remote write needs nothing. */
static void
drain_messages (MxlInitiator *init)
{
  gboolean messages = FALSE;
  gint64 end;

  for (guint i = 0; init->conns && i < init->conns->len && !messages; i++) {
    const MxlConn *c = g_ptr_array_index (init->conns, i);
    messages = c->state.kind == MXL_CONN_CONNECTED
        && c->info->protocol != MXL_PROTOCOL_WRITE;
  }
  if (!messages || init->type_ops == NULL)
    return;
  end = g_get_monotonic_time () + TEARDOWN_MESSAGE_DRAIN_MS * 1000;
  while (g_get_monotonic_time () < end) {
    init->type_ops->poll_events (init);
    drain_cq (init, -1);
    g_usleep (1000);
  }
}

static void
teardown (MxlInitiator *init)
{
  /* The progress thread goes first: from here on this thread owns the
   * endpoints again. */
  mxl_initiator_progress_stop (init, 0);
  drain_messages (init);
  if (init->conns) {
    for (guint i = 0; i < init->conns->len; i++)
      mxl_conn_transition (g_ptr_array_index (init->conns, i), MXL_CONN_IN_REMOVE,
          MXL_STATUS_OK);
    g_ptr_array_free (init->conns, TRUE);
    init->conns = NULL;
  }
  if (init->type_ops)
    init->type_ops->teardown (init);
  if (init->dom) {
    for (guint i = 0; init->regions && i < init->grain_count; i++)
      mxl_ofi_region_close (init->dom, &init->regions[i]);
    mxl_ofi_region_close (init->dom, &init->channels_region);
    mxl_ofi_region_close (init->dom, &init->ctx_region);
  }
  mxl_ofi_close (init->cq ? &init->cq->fid : NULL, "cq");
  init->cq = NULL;
  mxl_ofi_domain_close (init->dom);
  init->dom = NULL;
  g_clear_pointer (&init->regions, g_free);
  g_clear_pointer (&init->ctx_pool, g_free);
  init->ctx_used = init->ctx_orphaned = 0;
  g_clear_pointer (&init->by_conn_id, g_hash_table_destroy);
  g_clear_pointer (&init->by_fid, g_hash_table_destroy);
  g_clear_pointer (&init->results, g_free);
  init->res_head = init->res_len = 0;
  init->type_ops = NULL;
  init->setup_done = FALSE;
}

mxlStatus
mxl_initiator_setup (MxlInitiator *init, const mxlFabricsInitiatorConfig *config,
    const char *options)
{
  g_autoptr (GError) error = NULL;
  struct fi_info *fi = NULL;
  MxlFlowLayout flow;
  mxlStatus st;

  if (init->setup_done)
    return MXL_ERR_INVALID_STATE;
  mxl_last_error_clear ();
  if (config->reader == NULL) {
    st = MXL_ERR_INVALID_ARG;
    goto fail;
  }
  st = mxl_flow_reader_get_layout (config->reader, &flow);
  if (st == MXL_STATUS_OK)
    st = mxl_setup_begin (options, &flow, &config->interface, MXL_ROLE_INITIATOR,
        &init->options, &fi, &error);
  if (st != MXL_STATUS_OK)
    goto fail;
  init->desc = mxl_provider_lookup (config->interface.provider);
  init->type_ops = fi->ep_attr->type == FI_EP_MSG ? &mxl_initiator_rc_ops
      : &mxl_initiator_rdm_ops;
  init->reader = config->reader;
  init->grain_count = flow.grain_count;
  mxl_grain_layout_init (&init->layout, flow.slice_sizes, flow.total_slices, flow.grain_size);
  init->conns = g_ptr_array_new_with_free_func ((GDestroyNotify) conn_free);
  init->by_conn_id = g_hash_table_new (g_int64_hash, g_int64_equal);
  init->by_fid = g_hash_table_new (g_direct_hash, g_direct_equal);

  /* Writes are cut to the provider's limits, or lower ones from options. */
  init->max_msg = fi->ep_attr->max_msg_size ? fi->ep_attr->max_msg_size : UINT64_MAX;
  if (init->options.max_message_size)
    init->max_msg = MIN (init->max_msg, init->options.max_message_size);
  init->iov_limit = (uint32_t) MAX (fi->tx_attr->iov_limit, 1);
  init->tx_iov_limit = init->iov_limit;
  if (init->options.iov_limit)
    init->iov_limit = MIN (init->iov_limit, init->options.iov_limit);
  init->iov_limit = MIN (init->iov_limit, MXL_LAYOUT_MAX_IOV);
  init->ordered_writes = (fi->tx_attr->msg_order & FI_ORDER_WAW) != 0;
  init->window = (guint) MIN ((size_t) MXL_CONN_WINDOW, MAX (fi->tx_attr->size, 1));

  st = mxl_ofi_domain_open (fi, &init->dom, &error);
  fi_freeinfo (fi);
  if (st != MXL_STATUS_OK)
    goto fail;
  /* A progress thread polls the CQ's wait fd (FI_WAIT_FD) next to its
   * eventfd; a calling thread uses fi_cq_sread (P9). */
  st = mxl_ofi_cq_open (init->dom, CTX_POOL_SIZE,
      !init->desc->cq_can_wait ? FI_WAIT_NONE
      : init->options.progress_thread ? FI_WAIT_FD : FI_WAIT_UNSPEC, &init->cq, &error);
  if (st != MXL_STATUS_OK)
    goto fail;
  if (flow.format == MXL_DATA_FORMAT_AUDIO) {
    st = mxl_samples_initiator_setup (init, &flow, &error);
    if (st != MXL_STATUS_OK)
      goto fail;
  } else {
    /* Registered as write sources only; never written through. */
    uint8_t **bases = g_new0 (uint8_t *, init->grain_count);
    size_t *lengths = g_new0 (size_t, init->grain_count);
    for (guint i = 0; i < init->grain_count; i++)
      bases[i] = (uint8_t *) mxl_flow_reader_grain_slot (init->reader, i, &lengths[i]);
    st = mxl_setup_register_slots (init->dom, bases, lengths, init->grain_count,
        init->layout.slot_size, FI_WRITE, &init->regions, &error);
    g_free (bases);
    g_free (lengths);
    if (st != MXL_STATUS_OK)
      goto fail;
  }
  init->ctx_count = CTX_POOL_SIZE;
  init->ctx_pool = g_new0 (MxlWriteCtx, init->ctx_count);
  for (guint i = 0; i < init->ctx_count; i++)
    init->ctx_pool[i].next_free = i + 1;
  init->ctx_free = 0;
  st = mxl_send_initiator_setup (init, &error);
  if (st != MXL_STATUS_OK)
    goto fail;
  st = init->type_ops->setup (init, &error);
  if (st != MXL_STATUS_OK)
    goto fail;
  init->results = g_new0 (mxlFabricsExtTransferResult, MXL_FABRICS_EXT_RESULT_QUEUE_MAX);
  init->claim_token = mxl_claim_token (mxl_provider_has_quirk (init->desc,
          MXL_PROVIDER_QUIRK_OWNER_PID));
  init->stats.version = MXL_FABRICS_API_VERSION;
  init->setup_done = TRUE;
  if (init->options.progress_thread) {
    st = mxl_initiator_progress_start (init, &error);
    if (st != MXL_STATUS_OK) {
      init->setup_done = FALSE;
      goto fail;
    }
  }
  g_debug ("initiator: %s %s, %u slots, max %" G_GUINT64_FORMAT " bytes and %u "
      "iovecs per write, %s writes", init->desc->name, init->type_ops->name,
      init->grain_count, init->max_msg, init->iov_limit,
      init->ordered_writes ? "ordered" : "unordered (immediate data held)");
  return MXL_STATUS_OK;

fail:
  g_warning ("initiator setup failed (status %d): %s", st,
      error ? error->message : "invalid configuration");
  mxl_last_error_set ("%s", error ? error->message : "invalid configuration");
  teardown (init);
  return st;
}

/* How long destroy lets a progress thread flush what is queued (ms). */
#define DESTROY_FLUSH_MS 500

void
mxl_initiator_destroy (MxlInitiator *init)
{
  /* Flush within a bound, then cancel the rest (teardown). */
  mxl_initiator_progress_stop (init, DESTROY_FLUSH_MS);
  teardown (init);
  mxl_initiator_payload_free (init);
  mxl_event_queue_clear (&init->events);
  mxl_lock_clear (&init->lock);
  g_free (init);
}

/* ------------------------------------------------------------- targets */

static gboolean
address_usable (const MxlInitiator *init, const struct mxlFabricsTargetInfo_t *info)
{
  uint32_t ours = init->dom->info->addr_format;
  uint32_t theirs = info->address_format;

  if (ours == FI_SOCKADDR_IN || ours == FI_SOCKADDR_IN6)
    return theirs == FI_SOCKADDR_IN || theirs == FI_SOCKADDR_IN6
        || theirs == FI_SOCKADDR || theirs == MXL_ADDR_FORMAT_SOCKADDR_IP;
  return theirs == ours;
}

/* Per-message limits of a connection: the initiator's for remote write,
 * less for send and tagged (header iovec, the target's receive size). */
static void
set_limits (MxlConn *conn)
{
  conn->max_msg = conn->init->max_msg;
  conn->iov_limit = conn->init->iov_limit;
  conn->ordered = conn->init->ordered_writes;
  if (conn->info->protocol != MXL_PROTOCOL_WRITE)
    mxl_send_conn_limits (conn);
}

static mxlStatus
add_target_locked (MxlInitiator *init, const struct mxlFabricsTargetInfo_t *info)
{
  const MxlEgressOps *protocol;
  MxlConn *conn;

  if (!init->setup_done)
    return MXL_ERR_INVALID_STATE;
  if (info->n_regions == 0 || info->n_regions > 65536 || info->fabric_address_len == 0
      || info->has_bounce_buffer != init->continuous
      || (init->continuous && !mxl_samples_target_usable (init, info))
      || !address_usable (init, info)) {
    g_warning ("initiator: target %" G_GUINT64_FORMAT " unusable (regions %u, "
        "address format %u, %s target for a %s initiator)", info->id, info->n_regions,
        info->address_format, info->has_bounce_buffer ? "sample" : "grain",
        init->continuous ? "sample" : "grain");
    return MXL_ERR_INVALID_ARG;
  }
  protocol = mxl_initiator_egress_for (init, info->protocol);
  if (protocol != NULL && info->protocol != MXL_PROTOCOL_WRITE) {
    /* Only to check the target's recvSize: conn limits are set below. */
    MxlConn probe = { .init = init, .info = (struct mxlFabricsTargetInfo_t *) info };
    if (!mxl_send_conn_limits (&probe)) {
      g_warning ("initiator: target %" G_GUINT64_FORMAT " advertises a receive size "
          "of %" G_GUINT64_FORMAT " bytes, too small for send messages", info->id,
          info->recv_size);
      return MXL_ERR_INVALID_ARG;
    }
  }
  if (protocol == NULL) {
    g_warning ("initiator: target %" G_GUINT64_FORMAT " expects the \"%s\" protocol, "
        "which this initiator (provider %s, options) cannot speak", info->id,
        mxl_protocol_kind_to_string (info->protocol), init->desc->name);
    return MXL_ERR_UNSUPPORTED_OPERATION;
  }
  conn = find_conn (init, info->id);
  if (conn != NULL) {
    if (conn->state.kind != MXL_CONN_LOST)
      return MXL_ERR_EXISTS;
    /* Re-adding a lost target reconnects (with its possibly newer info). */
    mxl_samples_conn_release (conn);
    mxl_target_info_free (conn->info);
    conn->info = mxl_target_info_copy (info);
    conn->protocol = protocol;
    set_limits (conn);
    conn->next_entry = 0;
    mxl_conn_transition (conn, MXL_CONN_IN_READD, MXL_STATUS_OK);
    return MXL_STATUS_OK;
  }
  conn = g_new0 (MxlConn, 1);
  conn->init = init;
  conn->target_id = info->id;
  conn->info = mxl_target_info_copy (info);
  conn->protocol = protocol;
  set_limits (conn);
  conn->state.kind = MXL_CONN_REMOVED;
  g_ptr_array_add (init->conns, conn);
  /* REMOVED → IDLE: reported as the target being added. */
  idle_state (&conn->state, 0);
  mxl_event_queue_push (&init->events, conn->target_id, MXL_FABRICS_EXT_STATE_REMOVED,
      MXL_FABRICS_EXT_STATE_IDLE, MXL_STATUS_OK);
  init->stats.targets++;
  return MXL_STATUS_OK;
}

mxlStatus
mxl_initiator_add_target (MxlInitiator *init, const struct mxlFabricsTargetInfo_t *info)
{
  mxlStatus st;

  mxl_lock (&init->lock);
  st = add_target_locked (init, info);
  if (st == MXL_STATUS_OK && init->post_ring != NULL)
    init->thread_status = MXL_ERR_NOT_READY;     /* until the next pass */
  mxl_unlock (&init->lock);
  if (st == MXL_STATUS_OK && init->post_ring != NULL)
    mxl_progress_wake (&init->progress);
  return st;
}

mxlStatus
mxl_initiator_remove_target (MxlInitiator *init, const struct mxlFabricsTargetInfo_t *info)
{
  MxlConn *conn;
  mxlStatus st = MXL_ERR_NOT_FOUND;

  if (!init->setup_done)
    return MXL_ERR_INVALID_STATE;
  mxl_lock (&init->lock);
  conn = find_conn (init, info->id);
  if (conn != NULL) {
    mxl_conn_transition (conn, MXL_CONN_IN_REMOVE, MXL_STATUS_OK);
    init->stats.targets--;
    st = MXL_STATUS_OK;
  }
  mxl_unlock (&init->lock);
  return st;
}

/* ------------------------------------------------------------ progress */

static void
on_completion (MxlInitiator *init, void *op_context, gboolean ok, int err)
{
  MxlWriteCtx *ctx = op_context;
  MxlConn *conn;

  if (ctx < init->ctx_pool || ctx >= init->ctx_pool + init->ctx_count || !ctx->in_use)
    return;                  /* not ours, or reclaimed already */
  conn = g_hash_table_lookup (init->by_conn_id, &ctx->conn_id);
  if (ctx->claim) {
    mxl_initiator_ctx_put (init, ctx);
    if (conn != NULL)
      mxl_initiator_rdm_claim_done (conn, ok);
    return;
  }
  if (ok && take_fault (init, MXL_INJECT_ERROR_COMPLETION, &err))
    ok = FALSE;              /* test hook: as if fi_cq_readerr() returned it */
  if (ok)
    init->stats.writesCompleted++;
  else
    init->stats.writeErrors++;
  if (conn != NULL && conn->state.kind == MXL_CONN_CONNECTED) {
    conn->last_progress = g_get_monotonic_time ();
    tracked_complete (conn, ctx->transfer_seq, ok, err);
    conn->egress->on_write_done (conn, ctx, ok);
    mxl_initiator_ctx_put (init, ctx);
    if (!ok) {
      g_message ("initiator: write to target %" G_GUINT64_FORMAT " failed: %s",
          conn->target_id, fi_strerror (err));
      mxl_conn_transition (conn, MXL_CONN_IN_ERROR, MXL_ERR_UNKNOWN);
    }
    return;
  }
  mxl_initiator_ctx_put (init, ctx);
}

/* Reads completions; @timeout_ms >= 0 waits (CQs with a wait object). */
static void
drain_cq (MxlInitiator *init, int timeout_ms)
{
  struct fi_cq_data_entry buf[CQ_BATCH];
  struct fi_cq_err_entry err;

  for (int round = 0; round < 16; round++) {
    size_t n = 0;
    ssize_t rc = 0;

    switch (mxl_ofi_cq_read (init->cq, buf, CQ_BATCH, timeout_ms, &n, &err, &rc)) {
      case MXL_CQ_READ_EMPTY:
        init->cq_drains++;
        return;
      case MXL_CQ_READ_ENTRIES:
        for (size_t i = 0; i < n; i++)
          on_completion (init, buf[i].op_context, TRUE, 0);
        if (n < CQ_BATCH)
          return;
        break;
      case MXL_CQ_READ_ERROR_ENTRY:
        on_completion (init, err.op_context, FALSE, err.err);
        break;
      case MXL_CQ_READ_FAILED:
        g_warning ("initiator: fi_cq_read: %s", fi_strerror ((int) -rc));
        return;
    }
    timeout_ms = -1;
  }
}

static void
sweep_removed (MxlInitiator *init)
{
  for (guint i = init->conns->len; i-- > 0;) {
    MxlConn *c = g_ptr_array_index (init->conns, i);
    if (c->state.kind == MXL_CONN_REMOVED)
      g_ptr_array_remove_index_fast (init->conns, i);
  }
}

/* One non-blocking pass. Returns the MakeProgress status. */
mxlStatus
mxl_initiator_progress_once (MxlInitiator *init)
{
  gboolean pending = FALSE, any_live = FALSE;

  init->type_ops->poll_events (init);
  drain_cq (init, -1);
  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);

    mxl_conn_transition (c, MXL_CONN_IN_TICK, MXL_STATUS_OK);
    if (c->state.kind == MXL_CONN_CONNECTED) {
      mxlStatus st = c->egress->pump (c);
      if (st != MXL_STATUS_OK)
        mxl_conn_transition (c, MXL_CONN_IN_ERROR, st);
    }
    switch (c->state.kind) {
      case MXL_CONN_IDLE:
      case MXL_CONN_CONNECTING:
        pending = any_live = TRUE;
        break;
      case MXL_CONN_CONNECTED:
        any_live = TRUE;
        if (c->outstanding > 0 || c->q_len > 0)
          pending = TRUE;
        else
          c->last_progress = g_get_monotonic_time ();
        break;
      case MXL_CONN_LOST:
      case MXL_CONN_REMOVED:
        break;
    }
  }
  /* Scanned only while there are orphans: every progress pass with writes
   * in flight walked the whole pool (~6,000 instructions, 1 ms audio). */
  if (init->parked != NULL && init->parked->len > 0)
    mxl_initiator_rdm_check_parked (init);
  if (init->ctx_orphaned > 0)
    reclaim_orphans (init);
  sweep_removed (init);
  if (!any_live)
    return MXL_ERR_INTERRUPTED;
  return pending ? MXL_ERR_NOT_READY : MXL_STATUS_OK;
}

mxlStatus
mxl_initiator_make_progress (MxlInitiator *init, int timeout_ms)
{
  gint64 deadline;
  guint sleep_us = 50;
  mxlStatus st;

  if (!init->setup_done)
    return MXL_ERR_INVALID_STATE;
  if (init->post_ring != NULL)
    return mxl_initiator_progress_wait (init, timeout_ms);
  deadline = g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000;
  for (;;) {
    gint64 now;
    st = mxl_initiator_progress_once (init);
    if (st != MXL_ERR_NOT_READY || timeout_ms <= 0)
      return st;
    now = g_get_monotonic_time ();
    if (now >= deadline)
      return st;
    if (init->desc->cq_can_wait && init->stats.targetsConnected > 0) {
      drain_cq (init, (int) MIN ((deadline - now + 999) / 1000, 10));
    } else {
      g_usleep (MIN ((gint64) sleep_us, deadline - now));
      sleep_us = MIN (sleep_us * 2, 1000u);
    }
  }
}

/* Room in the tracking ring for one more transfer (the protocol's own
 * queue is checked by queue_grain/queue_samples). A batch of samples may be
 * cut into several entries: each is one tracked transfer. */
static gboolean
conn_has_room (MxlConn *conn)
{
  return conn->tr_len + MXL_CONN_TRACK_RESERVE <= MXL_CONN_TRACKED
      && conn->q_len < MXL_CONN_QUEUE;
}

gboolean
mxl_initiator_room_for_one (MxlInitiator *init)
{
  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);
    if (c->state.kind == MXL_CONN_CONNECTED && !conn_has_room (c))
      return FALSE;
  }
  return TRUE;
}

/* Queues a grain (@req) or a batch of samples (@sreq) on @conn. */
static mxlStatus
queue_on (MxlConn *conn, const MxlGrainRequest *req, const MxlSamplesRequest *sreq)
{
  MxlInitiator *init = conn->init;
  gint64 deadline = g_get_monotonic_time () + QUEUE_WAIT_MS * 1000;
  guint sleep_us = 20;
  mxlStatus st;

  /* A full queue: drive progress (bounded) until there is room. */
  while ((st = !conn_has_room (conn) ? MXL_ERR_NOT_READY
          : req ? conn->egress->queue_grain (conn, req)
          : conn->egress->queue_samples (conn, sreq)) == MXL_ERR_NOT_READY) {
    mxl_initiator_progress_once (init);
    if (conn->state.kind != MXL_CONN_CONNECTED)
      return MXL_STATUS_OK;     /* lost meanwhile: reported by an event */
    if (g_get_monotonic_time () > deadline) {
      init->stats.transfersDropped++;
      return MXL_ERR_NOT_READY;
    }
    g_usleep (sleep_us);
    sleep_us = MIN (sleep_us * 2, 500u);
  }
  return st;
}

/* Grains a target may lag behind the newest before it is skipped: half the
 * local ring, so that its posted writes hold at most half the slots and
 * have half a ring of time to complete before their slot comes up for
 * reuse; at most half a queue, so that its queue never fills. */
static uint64_t
behind_lag (const MxlInitiator *init)
{
  return CLAMP (init->grain_count / 2, 1u, MXL_CONN_QUEUE / 2);
}

/* How long the oldest unfinished transfer of a target must have waited
 * before the target counts as behind: a burst (a sender faster than real
 * time, several producer threads) queues many grains within a few ms on
 * every target, which is not falling behind the stream. */
#define BEHIND_MIN_US (50 * 1000)

/* Whether @conn is behind for grain @index at @now: its oldest unfinished
 * transfer is behind_lag() grains older and has waited BEHIND_MIN_US at
 * least. When another connected target is not,
 * such a target does not get the grain: one slow, stalled or lost target
 * must not make the writer wait for it, nor hold slots of the local ring
 * that the other targets' grains need. A lone target is never skipped
 * (the writer's own slot check paces it). */
static gboolean
conn_behind (MxlConn *conn, uint64_t index, gint64 now)
{
  const MxlTracked *oldest;

  conn->behind = FALSE;
  if (conn->tr_len == 0)
    return FALSE;
  oldest = &conn->tracked[conn->tr_head];
  conn->behind = oldest->grain_index < index
      && index - oldest->grain_index >= behind_lag (conn->init)
      && now - oldest->queued_at >= BEHIND_MIN_US;
  return conn->behind;
}

/* A transfer for a target that is added but not connected (idle or
 * connecting, also after a re-add, or lost): not queued, counted, and
 * reported with a result of its own, so that it is never lost unseen. */
static void
refuse_not_connected (MxlInitiator *init, MxlConn *conn, const MxlTracked *what)
{
  MxlTracked tr = *what;

  tr.status = MXL_ERR_NOT_READY;
  init->stats.transfersNotConnected++;
  push_result (init, conn->target_id, &tr);
}

static mxlStatus
fan_out (MxlInitiator *init, const MxlGrainRequest *req, const MxlSamplesRequest *sreq,
    uint64_t only_target)
{
  mxlStatus result = MXL_STATUS_OK;
  guint taken = 0, refused = 0;
  /* What a result reports: grains their index and slice range; batches of
   * samples their head index. */
  MxlTracked what = { .grain_index = req ? req->grain_index : sreq->head,
    .start = req ? req->req_start : 0, .end = req ? req->req_end : 0,
    .queued_at = g_get_monotonic_time () };
  guint keeping_up = 0;

  for (guint i = 0; req != NULL && !req->raw && i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);
    if (c->state.kind == MXL_CONN_CONNECTED
        && !conn_behind (c, req->grain_index, what.queued_at))
      keeping_up++;
  }

  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);
    uint64_t first_seq = c->next_seq;
    mxlStatus st;

    if (only_target && c->target_id != only_target)
      continue;
    if (c->state.kind != MXL_CONN_CONNECTED) {
      if (c->state.kind != MXL_CONN_REMOVED) {
        refuse_not_connected (init, c, &what);
        refused++;
      }
      continue;
    }
    if (mxl_conn_peer_gone (c)) {
      /* checked before every post: see mxl_conn_peer_gone() */
      mxl_conn_transition (c, MXL_CONN_IN_TICK, MXL_STATUS_OK);
      refuse_not_connected (init, c, &what);
      refused++;
      continue;
    }
    if (req != NULL && !req->raw && c->behind && keeping_up > 0) {
      c->grains_skipped++;
      continue;
    }
    st = queue_on (c, req, sreq);
    if (st == MXL_STATUS_OK && c->next_seq == first_seq
        && c->state.kind != MXL_CONN_CONNECTED) {
      /* lost while queue_on made room: nothing was queued */
      refuse_not_connected (init, c, &what);
      refused++;
    } else if (st == MXL_STATUS_OK) {
      /* Every transfer the protocol queued (one per grain, one or more
       * per batch of samples) is tracked until its writes completed. */
      for (uint64_t seq = first_seq; seq < c->next_seq; seq++)
        tracked_add (c, seq, &what);
      taken++;
    } else if (st == MXL_ERR_INVALID_ARG) {
      MxlTracked tr = what;
      tr.status = st;
      push_result (init, c->target_id, &tr);
    }
    if (st == MXL_ERR_INVALID_ARG)
      result = st;
    else if (st != MXL_STATUS_OK && result == MXL_STATUS_OK)
      result = st;
    if (c->state.kind == MXL_CONN_CONNECTED && !init->defer_pump) {
      st = c->egress->pump (c);
      if (st != MXL_STATUS_OK)
        mxl_conn_transition (c, MXL_CONN_IN_ERROR, st);
    }
  }
  /* No target took it because none is connected yet (or any more): the
   * caller can wait for a connection event and send it again. */
  if (result == MXL_STATUS_OK && taken == 0 && refused > 0)
    result = MXL_ERR_NOT_READY;
  return result;
}

/* The test hooks post to one connected target. */
static mxlStatus
debug_check_connected (MxlInitiator *init, uint64_t target_id)
{
  MxlConn *conn = find_conn (init, target_id);

  if (conn == NULL)
    return MXL_ERR_NOT_FOUND;
  return conn->state.kind == MXL_CONN_CONNECTED ? MXL_STATUS_OK : MXL_ERR_INVALID_STATE;
}

/* Builds the request of @desc and queues it: a grain (the local flow's
 * grain header decides whether only the header travels), a batch of
 * samples, or a test hook's raw request to one target. */
mxlStatus
mxl_initiator_fan_out_desc (MxlInitiator *init, const MxlPostDesc *desc)
{
  MxlGrainRequest req;
  MxlSamplesRequest sreq;
  uint32_t flags;
  mxlStatus st;

  memset (&req, 0, sizeof (req));
  memset (&sreq, 0, sizeof (sreq));
  switch ((MxlPostOp) desc->op) {
    case MXL_POST_GRAIN:
      break;
    case MXL_POST_RAW:
      if ((st = debug_check_connected (init, desc->target)) != MXL_STATUS_OK)
        return st;
      req.local_slot = desc->local_slot;
      req.n_runs = 1;
      req.runs[0] = (MxlRun) { desc->offset, desc->length };
      req.raw = TRUE;
      req.raw_remote_slot = desc->remote_slot;
      req.raw_imm = desc->imm;
      return fan_out (init, &req, NULL, desc->target);
    case MXL_POST_SAMPLES:
    case MXL_POST_SAMPLES_RAW:
      sreq.head = desc->index;
      sreq.count = desc->count;
      if (desc->op == MXL_POST_SAMPLES)
        return fan_out (init, NULL, &sreq, 0);
      if ((st = debug_check_connected (init, desc->target)) != MXL_STATUS_OK)
        return st;
      sreq.raw = TRUE;
      sreq.raw_entry = desc->entry;
      sreq.raw_imm = desc->imm;
      sreq.raw_head = desc->offset;
      sreq.raw_count = desc->length;
      return fan_out (init, NULL, &sreq, desc->target);
  }
  req.grain_index = desc->index;
  req.req_start = desc->start;
  req.req_end = desc->end;
  req.local_slot = (uint32_t) (desc->index % init->grain_count);
  /* A grain flagged invalid moves the ring on without content: only its
   * header travels (immediate data slice value 0). */
  memcpy (&flags, init->regions[req.local_slot].base + 16, sizeof (flags));
  if (flags & MXL_GRAIN_FLAG_INVALID) {
    req.slice_end = 0;
    req.n_runs = mxl_layout_grain_runs (&init->layout, 0, 0, TRUE, req.runs);
  } else {
    req.slice_end = desc->end;
    req.n_runs = mxl_layout_grain_runs (&init->layout, desc->start, desc->end, FALSE,
        req.runs);
  }
  if (req.n_runs == 0)
    return MXL_ERR_INVALID_ARG;
  return fan_out (init, &req, NULL, 0);
}

/* With a progress thread the descriptor goes through the post ring;
 * without, this thread queues and posts it. */
static mxlStatus
submit (MxlInitiator *init, const MxlPostDesc *desc)
{
  if (init->post_ring != NULL)
    return mxl_initiator_progress_post (init, desc);
  return mxl_initiator_fan_out_desc (init, desc);
}

mxlStatus
mxl_initiator_transfer_grain (MxlInitiator *init, uint64_t index, uint16_t start,
    uint16_t end)
{
  MxlPostDesc desc;

  if (!init->setup_done || init->continuous)
    return MXL_ERR_INVALID_STATE;
  if (start > end || end > init->layout.total_slices)
    return MXL_ERR_INVALID_ARG;
  desc.op = MXL_POST_GRAIN;
  desc.start = start;
  desc.end = end;
  desc.index = index;
  return submit (init, &desc);
}

mxlStatus
mxl_initiator_transfer_samples (MxlInitiator *init, uint64_t head, uint64_t count)
{
  MxlPostDesc desc;

  if (!init->setup_done || !init->continuous)
    return MXL_ERR_INVALID_STATE;
  /* §4.3: count >= 1; a batch cannot be longer than the local ring. */
  if (count == 0 || count > init->ring.length || head < count)
    return MXL_ERR_INVALID_ARG;
  memset (&desc, 0, sizeof desc);
  desc.op = MXL_POST_SAMPLES;
  desc.index = head;
  desc.count = count;
  return submit (init, &desc);
}

mxlStatus
mxl_initiator_debug_samples_raw (MxlInitiator *init, uint64_t target_id,
    uint64_t head, uint64_t count, uint32_t entry, uint32_t imm, uint64_t header_head,
    uint64_t header_count)
{
  MxlPostDesc desc;

  if (!init->setup_done || !init->continuous)
    return MXL_ERR_INVALID_ARG;
  memset (&desc, 0, sizeof desc);
  desc.op = MXL_POST_SAMPLES_RAW;
  desc.target = target_id;
  desc.index = head;
  desc.count = count;
  desc.entry = entry;
  desc.imm = imm;
  desc.offset = header_head;
  desc.length = header_count;
  return submit (init, &desc);
}

mxlStatus
mxl_initiator_debug_post_raw (MxlInitiator *init, uint64_t target_id,
    uint32_t local_slot, uint32_t remote_slot, uint64_t offset, uint64_t length,
    uint32_t imm)
{
  MxlPostDesc desc;

  if (!init->setup_done || init->continuous || local_slot >= init->grain_count)
    return MXL_ERR_INVALID_ARG;
  memset (&desc, 0, sizeof desc);
  desc.op = MXL_POST_RAW;
  desc.target = target_id;
  desc.local_slot = local_slot;
  desc.remote_slot = remote_slot;
  desc.offset = offset;
  desc.length = length;
  desc.imm = imm;
  return submit (init, &desc);
}

/* --------------------------------------------------- application view */

mxlStatus
mxl_initiator_poll_event (MxlInitiator *init, mxlFabricsExtConnectionEvent *out)
{
  mxlStatus st;

  mxl_lock (&init->lock);
  st = mxl_event_queue_pop (&init->events, out);
  mxl_unlock (&init->lock);
  return st;
}

static gboolean
pop_result (MxlInitiator *init, mxlFabricsExtTransferResult *out)
{
  if (init->res_len == 0)
    return FALSE;
  *out = init->results[init->res_head];
  init->res_head = (init->res_head + 1) % MXL_FABRICS_EXT_RESULT_QUEUE_MAX;
  init->res_len--;
  return TRUE;
}

mxlStatus
mxl_initiator_poll_result (MxlInitiator *init, int timeout_ms,
    mxlFabricsExtTransferResult *out)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000;
  guint sleep_us = 50;
  gboolean got;

  if (!init->setup_done)
    return MXL_ERR_INVALID_STATE;
  mxl_lock (&init->lock);
  for (;;) {
    if ((got = pop_result (init, out)))
      break;
    if (init->post_ring == NULL) {
      /* No progress thread: this thread drives progress while it waits. */
      mxl_initiator_progress_once (init);
      if ((got = pop_result (init, out)) || g_get_monotonic_time () >= deadline)
        break;
      mxl_unlock (&init->lock);
      g_usleep (sleep_us);
      sleep_us = MIN (sleep_us * 2, 1000u);
      mxl_lock (&init->lock);
    } else {
      gboolean signalled;
      init->waiters++;
      signalled = mxl_lock_wait_until (&init->lock, deadline);
      init->waiters--;
      if (!signalled) {
        got = pop_result (init, out);
        break;
      }
    }
  }
  mxl_unlock (&init->lock);
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
  /* With a progress thread, descriptors still in the post ring are not
   * readable from here (single consumer): any of them counts as in flight,
   * a conservative answer. */
  if (init->post_ring != NULL
      && atomic_load_explicit (&((MxlInitiator *) init)->posts_pushed, memory_order_relaxed)
          != init->posts_popped)
    return TRUE;
  /* Queued transfers read the slot when their writes are posted ... */
  for (guint i = 0; i < init->conns->len; i++) {
    const MxlConn *c = g_ptr_array_index (init->conns, i);
    for (guint k = 0; k < c->q_len; k++)
      if (c->queue[(c->q_head + k) % MXL_CONN_QUEUE].req.local_slot == slot)
        return TRUE;
  }
  /* ... and the provider reads it until each posted write completes. */
  for (guint i = 0; i < init->ctx_count; i++)
    if (init->ctx_pool[i].in_use && !init->ctx_pool[i].released
        && init->ctx_pool[i].local_slot == slot)
      return TRUE;
  return FALSE;
}

gboolean
mxl_initiator_slot_in_use (MxlInitiator *init, uint32_t slot)
{
  gboolean in_use;

  mxl_lock (&init->lock);
  in_use = mxl_initiator_slot_in_use_locked (init, slot);
  mxl_unlock (&init->lock);
  return in_use;
}

/* Whether a posted write of @conn still reads local slot @slot. */
static gboolean
conn_holds_slot (const MxlInitiator *init, const MxlConn *conn, uint32_t slot)
{
  for (guint i = 0; i < init->ctx_count; i++) {
    const MxlWriteCtx *ctx = &init->ctx_pool[i];
    if (ctx->in_use && !ctx->released && ctx->orphaned_at == 0
        && ctx->conn_id == conn->conn_id && ctx->local_slot == slot)
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

    if (t->started || t->req.local_slot != slot)
      break;
    conn->transfers_dropped++;
    conn->init->stats.transfersDropped++;
    mxl_conn_track_fail (conn, t->seq, MXL_ERR_OUT_OF_RANGE_TOO_LATE, 0, TRUE);
    conn->q_head = (conn->q_head + 1) % MXL_CONN_QUEUE;
    conn->q_len--;
  }
}

mxlStatus
mxl_initiator_release_slot (MxlInitiator *init, uint64_t index,
    gboolean drop_holders, gboolean *out_in_flight)
{
  uint32_t slot = (uint32_t) (index % init->grain_count);
  guint free_conns = 0;

  mxl_lock (&init->lock);
  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);

    if (c->state.kind != MXL_CONN_CONNECTED || c->egress == NULL)
      continue;
    drop_queued_of_slot (c, slot);
    if (!conn_holds_slot (init, c, slot))
      free_conns++;
  }
  /* Closing a connected endpoint ends its reads of the slot; only worth it
   * when another target waits for the slot (a lone target skips the grain
   * and keeps its connection). */
  if (drop_holders && free_conns > 0 && init->type_ops == &mxl_initiator_rc_ops) {
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
  mxl_unlock (&init->lock);
  return MXL_STATUS_OK;
}

mxlStatus
mxl_initiator_target_stats (MxlInitiator *init, uint64_t target_id,
    mxlFabricsExtInitiatorTargetStats *out)
{
  MxlConn *conn;
  mxlStatus st = MXL_ERR_NOT_FOUND;

  mxl_lock (&init->lock);
  conn = init->conns ? find_conn (init, target_id) : NULL;
  if (conn != NULL) {
    memset (out, 0, sizeof *out);
    out->version = MXL_FABRICS_API_VERSION;
    out->state = public_state (conn->state.kind);
    out->grainsSkipped = conn->grains_skipped;
    out->transfersDropped = conn->transfers_dropped;
    out->fellBehind = conn->fell_behind;
    out->behind = conn->behind;
    st = MXL_STATUS_OK;
  }
  mxl_unlock (&init->lock);
  return st;
}

void
mxl_initiator_get_stats (MxlInitiator *init, mxlFabricsExtInitiatorStats *out)
{
  mxl_lock (&init->lock);
  *out = init->stats;
  mxl_unlock (&init->lock);
  if (init->post_ring != NULL) {
    /* Refusals of a full ring are counted by the ring (any thread). */
    out->postRingFull = mxl_post_ring_full_count (init->post_ring);
    out->transfersDropped += out->postRingFull;
  }
  out->version = MXL_FABRICS_API_VERSION;
}
