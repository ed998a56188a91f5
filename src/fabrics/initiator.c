/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Initiator: setup and teardown, targets, and the fan-out of transfers to
 * every connected target (docs/wire-format.md §6.4, §6.5, §7.4, with the
 * improvements of our design: queued retries within a deadline instead of
 * failing on -FI_EAGAIN, reconnection on re-add). The connection state
 * machine and the fate of a lost connection's contexts are in
 * initiator_conn.c (the pool's get and put: protocol_egress.c), tracking and
 * results in initiator_results.c, progress in initiator_progress.c.
 */
#include "fabrics/initiator.h"
#include "fabrics/initiator_credit.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>

#include <mxl/flow.h>

#include "fabrics/ofi/address.h"
#include "fabrics/setup.h"
#include "flow/flow-priv.h"
#ifdef MXL_TEST_HOOKS
#include "fabrics/protocol/protocol_hooks.h"
#endif

#define CTX_POOL_SIZE 1024u
/* How long TransferGrain drives progress to make room in a full queue. */
#define QUEUE_WAIT_MS 200

/* --------------------------------------------------------------- setup */

static mxlStatus fan_out_grain (MxlInitiator *init, const MxlPostDesc *desc);
static mxlStatus fan_out_samples (MxlInitiator *init, const MxlPostDesc *desc);

/* What the protocol layer reaches of the engine (initiator-state.h): handed
 * down once, here, at setup (init->engine). */
static const MxlEngineOps engine_ops = {
  .track_write = mxl_conn_track_write,
  .track_fail = mxl_conn_track_fail,
  .track_drop = mxl_conn_track_drop,
  .transfer_idle = mxl_conn_transfer_idle,
};

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
        && c->protocol->drain_at_teardown;
  }
  if (!messages || init->type_ops == NULL)
    return;
  end = g_get_monotonic_time () + TEARDOWN_MESSAGE_DRAIN_MS * 1000;
  while (g_get_monotonic_time () < end) {
    init->type_ops->poll_events (init);
    mxl_initiator_drain_cq (init, -1);
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
  mxl_initiator_credit_teardown (init);
  if (init->chunks != NULL)
    init->chunks->teardown (init);
  mxl_protocol_initiator_teardown (init);
  mxl_initiator_wait_fd_close (init);
  mxl_endpoint_close (&init->base);
  g_clear_pointer (&init->ctx_pool, g_free);
  init->ctx_used = init->ctx_orphaned = 0;
  g_clear_pointer (&init->by_conn_id, g_hash_table_destroy);
  g_clear_pointer (&init->results, g_free);
  init->type_ops = NULL;
}

/* MxlSlotFn of the initiator's flow reader. */
static uint8_t *
reader_slot (gpointer reader, guint i, size_t *out_len)
{
  return (uint8_t *) mxl_flow_reader_grain_slot (reader, i, out_len);
}

static mxlStatus
reader_layout (gpointer reader, MxlFlowLayout *out)
{
  return mxl_flow_reader_get_layout (reader, out);
}

static const MxlEndpointRole initiator_role = { MXL_ROLE_INITIATOR, "initiator",
  reader_layout, reader_slot };

mxlStatus
mxl_initiator_setup (MxlInitiator *init, const mxlFabricsInitiatorConfig *config,
    const char *options)
{
  g_autoptr (GError) error = NULL;
  struct fi_info *fi = NULL;
  MxlFlowLayout flow;
  mxlStatus st;

  if (init->base.setup_done)
    return MXL_ERR_INVALID_STATE;
  st = mxl_endpoint_setup_begin (&init->base, &initiator_role, config->reader, options,
      &config->interface, &flow, &fi, &error);
  if (st != MXL_STATUS_OK)
    goto fail;
  init->type_ops = fi->ep_attr->type == FI_EP_MSG ? &mxl_initiator_rc_ops
      : &mxl_initiator_rdm_ops;
  init->reader = config->reader;
  init->chunks = &mxl_grain_chunks;      /* mxl_sample_chunks for audio, below */
  init->mode = &mxl_initiator_inline_mode;      /* the thread's once it runs */
  init->engine = &engine_ops;
  init->fan_out = fan_out_grain;      /* fan_out_samples for audio, below */
  init->credit_ops = &mxl_grain_credit_ops;     /* and its credits */
  init->conns = g_ptr_array_new_with_free_func ((GDestroyNotify) mxl_conn_free);
  init->by_conn_id = g_hash_table_new (g_int64_hash, g_int64_equal);

  /* Writes are cut to the provider's limits, or lower ones from options. */
  init->max_msg = fi->ep_attr->max_msg_size ? fi->ep_attr->max_msg_size : UINT64_MAX;
  if (init->base.options.max_message_size)
    init->max_msg = MIN (init->max_msg, init->base.options.max_message_size);
  init->iov_limit = (uint32_t) MAX (fi->tx_attr->iov_limit, 1);
  init->tx_iov_limit = init->iov_limit;
  if (init->base.options.iov_limit)
    init->iov_limit = MIN (init->iov_limit, init->base.options.iov_limit);
  init->iov_limit = MIN (init->iov_limit, MXL_LAYOUT_MAX_IOV);
  init->ordered_writes = (fi->tx_attr->msg_order & FI_ORDER_WAW) != 0;
  init->window = (guint) MIN ((size_t) MXL_CONN_WINDOW, MAX (fi->tx_attr->size, 1));

  /* Slots are registered as write sources only; never written through. */
  st = mxl_endpoint_setup_open (&init->base, &initiator_role, init->reader, &flow, fi,
      CTX_POOL_SIZE, FI_WRITE, &error);
  if (st == MXL_STATUS_OK && flow.format == MXL_DATA_FORMAT_AUDIO) {
    init->chunks = &mxl_sample_chunks;
    init->fan_out = fan_out_samples;
    init->credit_ops = &mxl_samples_credit_ops;
  }
  if (st == MXL_STATUS_OK)
    st = init->chunks->setup (init, &flow, &error);
  if (st != MXL_STATUS_OK)
    goto fail;
  init->ctx_count = CTX_POOL_SIZE;
  init->ctx_pool = g_new0 (MxlWriteCtx, init->ctx_count);
  for (guint i = 0; i < init->ctx_count; i++)
    init->ctx_pool[i].next_free = i + 1;
  init->ctx_free = 0;
  st = mxl_protocol_initiator_setup (init, &error);
  if (st != MXL_STATUS_OK)
    goto fail;
  st = init->type_ops->setup (init, &error);
  if (st != MXL_STATUS_OK)
    goto fail;
  init->results = g_new0 (mxlFabricsExtTransferResult, MXL_FABRICS_EXT_RESULT_QUEUE_MAX);
  init->stats.version = MXL_FABRICS_API_VERSION;
  init->base.setup_done = TRUE;
  if (init->base.options.progress_thread) {
    st = mxl_initiator_progress_start (init, &error);
    if (st != MXL_STATUS_OK) {
      init->base.setup_done = FALSE;
      goto fail;
    }
  }
  g_debug ("initiator: %s %s %s, %u slots, max %" G_GUINT64_FORMAT " bytes and %u "
      "iovecs per write, %s writes", init->base.desc->name, init->type_ops->name,
      init->mode->name,
      init->base.grain_count, init->max_msg, init->iov_limit,
      init->ordered_writes ? "ordered" : "unordered (immediate data held)");
  return MXL_STATUS_OK;

fail:
  mxl_endpoint_setup_failed (&initiator_role, st, error);
  teardown (init);
  return st;
}

/* How long destroy lets a progress thread flush what is queued (ms). */
#define DESTROY_FLUSH_MS 500

void
mxl_initiator_destroy (MxlInitiator *init)
{
#ifdef MXL_TEST_HOOKS
  mxl_hooks_forget (init);      /* the test build: no hook reaches it */
#endif
  /* Flush within a bound and cancel the rest (teardown). */
  mxl_initiator_progress_stop (init, DESTROY_FLUSH_MS);
  teardown (init);
#ifdef MXL_TEST_HOOKS
  /* a connection that became connected while it flushed joined again */
  mxl_hooks_forget (init);
#endif
  mxl_endpoint_clear (&init->base);
  g_free (init);
}

/* ------------------------------------------------------------- targets */

static gboolean
address_usable (const MxlInitiator *init, const struct mxlFabricsTargetInfo_t *info)
{
  uint32_t ours = init->base.dom->info->addr_format;
  uint32_t theirs = info->address_format;

  if (ours == FI_SOCKADDR_IN || ours == FI_SOCKADDR_IN6)
    return theirs == FI_SOCKADDR_IN || theirs == FI_SOCKADDR_IN6
        || theirs == FI_SOCKADDR || theirs == MXL_ADDR_FORMAT_SOCKADDR_IP;
  return theirs == ours;
}

/* Per-message limits for target @info with @protocol: the initiator's for
 * remote write, less for send and tagged (header iovec, the target's
 * receive size). FALSE when the target leaves no room. */
static gboolean
compute_limits (const MxlInitiator *init, const MxlProtocolDesc *protocol,
    const struct mxlFabricsTargetInfo_t *info, MxlConnLimits *limits)
{
  limits->max_msg = init->max_msg;
  limits->iov_limit = init->iov_limit;
  limits->ordered = init->ordered_writes;
  limits->last_after_previous = FALSE;
  return protocol->initiator == NULL || protocol->initiator->conn_limits == NULL
      || protocol->initiator->conn_limits (init, info, limits);
}

static void
set_limits (MxlConn *conn, const MxlConnLimits *limits)
{
  conn->max_msg = limits->max_msg;
  conn->iov_limit = limits->iov_limit;
  conn->ordered = limits->ordered;
  conn->last_after_previous = limits->last_after_previous;
}

static mxlStatus
add_target_locked (MxlInitiator *init, const struct mxlFabricsTargetInfo_t *info)
{
  const MxlProtocolDesc *protocol;
  MxlConnLimits limits;
  MxlConn *conn;

  if (!init->base.setup_done)
    return MXL_ERR_INVALID_STATE;
  if (info->n_regions == 0 || info->n_regions > 65536 || info->fabric_address_len == 0
      || !init->chunks->target_usable (init, info)
      || !address_usable (init, info)) {
    g_warning ("initiator: target %" G_GUINT64_FORMAT " unusable (regions %u, "
        "address format %u, %s target for a %s initiator)", info->id, info->n_regions,
        info->address_format, info->has_bounce_buffer ? "sample" : "grain",
        init->chunks->name);
    return MXL_ERR_INVALID_ARG;
  }
  protocol = mxl_initiator_protocol_for (init, mxl_target_info_protocol (info));
  if (protocol != NULL && !compute_limits (init, protocol, info, &limits)) {
    g_warning ("initiator: target %" G_GUINT64_FORMAT " advertises a receive size "
        "of %" G_GUINT64_FORMAT " bytes, too small for the messages of its "
        "protocol \"%s\"", info->id, info->recv_size, protocol->name);
    return MXL_ERR_INVALID_ARG;
  }
  if (protocol == NULL) {
    g_warning ("initiator: target %" G_GUINT64_FORMAT " expects the \"%.20s\" protocol, "
        "which this initiator (provider %s, options) cannot speak", info->id,
        mxl_target_info_protocol (info), init->base.desc->name);
    return MXL_ERR_UNSUPPORTED_OPERATION;
  }
  conn = mxl_initiator_find_conn (init, info->id);
  if (conn != NULL) {
    if (conn->state.kind != MXL_CONN_LOST)
      return MXL_ERR_EXISTS;
    /* Re-adding a lost target reconnects (with its possibly newer info). */
    if (init->chunks->release != NULL)
      init->chunks->release (conn, FALSE);
    mxl_target_info_free (conn->info);
    conn->info = mxl_target_info_copy (info);
    conn->protocol = protocol;
    set_limits (conn, &limits);
    mxl_conn_transition (conn, MXL_CONN_IN_READD, MXL_STATUS_OK);
    return MXL_STATUS_OK;
  }
  conn = mxl_conn_new (init, info, protocol);
  set_limits (conn, &limits);
  init->stats.targets++;
  return MXL_STATUS_OK;
}

/* The second path of a two-path TargetInfo (ext."pathB", wire-format.md
 * §11.9), after its first: a target of its own (own id, connection,
 * queue, reconnect, stats). One this initiator cannot reach (another
 * provider's address, protocol) is left to an initiator of that provider,
 * and the first path alone is sent to. */
static mxlStatus
add_second_path_locked (MxlInitiator *init, const struct mxlFabricsTargetInfo_t *info)
{
  struct mxlFabricsTargetInfo_t *second = mxl_target_info_path (info, 1);
  mxlStatus st;

  if (second == NULL)
    return MXL_STATUS_OK;
  if (address_usable (init, second)
      && mxl_initiator_protocol_for (init, mxl_target_info_protocol (second)) != NULL) {
    st = add_target_locked (init, second);
  } else {
    g_message ("initiator: the second path %" G_GUINT64_FORMAT " of target %"
        G_GUINT64_FORMAT " (provider %s) is not reachable from this initiator "
        "(provider %s): sending on the first path only; add it to an initiator of "
        "its provider (mxlFabricsExtTargetInfoGetPath())", second->id, info->id,
        second->provider, init->base.desc->name);
    st = MXL_STATUS_OK;
  }
  mxl_target_info_free (second);
  return st;
}

mxlStatus
mxl_initiator_add_target (MxlInitiator *init, const struct mxlFabricsTargetInfo_t *info)
{
  mxlStatus st;

  mxl_lock (&init->base.lock);
  st = add_target_locked (init, info);
  if (st == MXL_STATUS_OK)
    st = add_second_path_locked (init, info);
  if (st == MXL_STATUS_OK)
    init->mode->target_added (init);
  mxl_unlock (&init->base.lock);
  if (st == MXL_STATUS_OK)
    init->mode->wake (init);
  return st;
}

mxlStatus
mxl_initiator_remove_target (MxlInitiator *init, const struct mxlFabricsTargetInfo_t *info)
{
  MxlConn *conn;
  mxlStatus st = MXL_ERR_NOT_FOUND;

  if (!init->base.setup_done)
    return MXL_ERR_INVALID_STATE;
  mxl_lock (&init->base.lock);
  conn = mxl_initiator_find_conn (init, info->id);
  if (conn != NULL) {
    mxl_conn_transition (conn, MXL_CONN_IN_REMOVE, MXL_STATUS_OK);
    init->stats.targets--;
    st = MXL_STATUS_OK;
    /* a two-path TargetInfo: its second path goes with it */
    conn = info->path_b != NULL ? mxl_initiator_find_conn (init, info->path_b->id) : NULL;
    if (conn != NULL) {
      mxl_conn_transition (conn, MXL_CONN_IN_REMOVE, MXL_STATUS_OK);
      init->stats.targets--;
    }
  }
  mxl_unlock (&init->base.lock);
  return st;
}

/* Room in the tracking ring for one more transfer (the protocol's own
 * queue is checked by the chunk source's queue). A batch of samples may be
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

/* One wait for room in full @conn: progress, then a sleep of @sleep_us
 * (doubled up to 500 us). FALSE when waiting ends, @st set: OK (lost
 * meanwhile: reported by an event), NOT_READY (@deadline passed). */
static gboolean
wait_for_room (MxlConn *conn, gint64 deadline, guint *sleep_us, mxlStatus *st)
{
  MxlInitiator *init = conn->init;

  mxl_initiator_progress_once (init);
  if (conn->state.kind != MXL_CONN_CONNECTED) {
    *st = MXL_STATUS_OK;
    return FALSE;
  }
  if (g_get_monotonic_time () > deadline) {
    init->stats.transfersDropped++;
    *st = MXL_ERR_NOT_READY;
    return FALSE;
  }
  g_usleep (*sleep_us);
  *sleep_us = MIN (*sleep_us * 2, 500u);
  return TRUE;
}

/* Queues @request on @conn through @queue; a full queue: drives progress
 * (bounded) until there is room. */
static inline mxlStatus
queue_waiting (MxlConn *conn, MxlQueueFn queue, const void *request)
{
  gint64 deadline = g_get_monotonic_time () + QUEUE_WAIT_MS * 1000;
  guint sleep_us = 20;
  mxlStatus st;

  while ((st = !conn_has_room (conn) ? MXL_ERR_NOT_READY
          : queue (conn, request)) == MXL_ERR_NOT_READY)
    if (!wait_for_room (conn, deadline, &sleep_us, &st))
      break;
  return st;
}

/* Queues @request on @conn through its chunk source (mxl_egress_queue()),
 * waiting for room as queue_waiting(). */
static mxlStatus
queue_on (MxlConn *conn, const void *request)
{
  return queue_waiting (conn, mxl_egress_queue, request);
}

/* Grains a target may lag behind the newest before it is skipped: half the
 * local ring, so that its posted writes hold at most half the slots and
 * have half a ring of time to complete before their slot comes up for
 * reuse; at most half a queue, so that its queue never fills. */
static uint64_t
behind_lag (const MxlInitiator *init)
{
  return CLAMP (init->base.grain_count / 2, 1u, MXL_CONN_QUEUE / 2);
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
  mxl_initiator_push_result (init, conn->target_id, &tr);
}

/* Whether connection @c gets a transfer tracked as @what: not when it is
 * not connected or its peer is gone (refused, counted in @refused), nor
 * when @skip (a grain it does not get: behind). */
static gboolean
fan_out_admit (MxlInitiator *init, MxlConn *c, const MxlTracked *what, gboolean skip,
    guint *refused)
{
  if (c->state.kind != MXL_CONN_CONNECTED) {
    if (c->state.kind != MXL_CONN_REMOVED) {
      refuse_not_connected (init, c, what);
      (*refused)++;
    }
    return FALSE;
  }
  if (mxl_conn_peer_gone (c)) {
    /* checked before every post: see mxl_conn_peer_gone() */
    mxl_conn_transition (c, MXL_CONN_IN_TICK, MXL_STATUS_OK);
    refuse_not_connected (init, c, what);
    (*refused)++;
    return FALSE;
  }
  if (skip) {
    c->grains_skipped++;
    return FALSE;
  }
  return TRUE;
}

/* After queueing on @c returned @st (the transfers from @first_seq on
 * are new): tracks them as @what and posts them (unless the pass posts
 * later); counts the transfer in @taken or @refused. Returns: @st. */
static mxlStatus
fan_out_queued (MxlInitiator *init, MxlConn *c, const MxlTracked *what,
    uint64_t first_seq, mxlStatus st, guint *taken, guint *refused)
{
  if (st == MXL_STATUS_OK && c->next_seq == first_seq
      && c->state.kind != MXL_CONN_CONNECTED) {
    /* lost while queue_on made room: nothing was queued */
    refuse_not_connected (init, c, what);
    (*refused)++;
  } else if (st == MXL_STATUS_OK) {
    /* Every transfer the protocol queued (one per grain, one or more
     * per batch of samples) is tracked until its writes completed. */
    for (uint64_t seq = first_seq; seq < c->next_seq; seq++)
      mxl_conn_track_add (c, seq, what);
    (*taken)++;
  } else if (st == MXL_ERR_INVALID_ARG) {
    MxlTracked tr = *what;
    tr.status = st;
    mxl_initiator_push_result (init, c->target_id, &tr);
  }
  if (c->state.kind == MXL_CONN_CONNECTED && !init->mode->pump_deferred (init)) {
    mxlStatus pst = mxl_egress_pump (c);
    if (pst != MXL_STATUS_OK)
      mxl_conn_transition (c, MXL_CONN_IN_ERROR, pst);
  }
  return st;
}

/* One connection's part of a fan-out: @request queued through the chunk
 * source (fan_out_admit(), queue_on(), fan_out_queued()). Returns: the
 * status of queueing. */
static mxlStatus
fan_out_one (MxlInitiator *init, MxlConn *c, const MxlTracked *what,
    const void *request, gboolean skip, guint *taken, guint *refused)
{
  uint64_t first_seq = c->next_seq;
  mxlStatus st;

  /* credits: a target that had no room for the grain or batch at its
   * submit (mxl_initiator_credit_submit()) does not get it */
  if (c->state.kind == MXL_CONN_CONNECTED && mxl_conn_credit_skips (c, what))
    return MXL_STATUS_OK;
  if (!fan_out_admit (init, c, what, skip, refused)) {
    mxl_conn_credit_after_queue (c, what, FALSE, first_seq);
    return MXL_STATUS_OK;
  }
  st = fan_out_queued (init, c, what, first_seq, queue_on (c, request), taken, refused);
  mxl_conn_credit_after_queue (c, what, st == MXL_STATUS_OK && c->next_seq > first_seq,
      first_seq);
  return st;
}

/* @request queued on every target, tracked as @what; @skip_behind: a
 * connection behind the others does not get it (grains). */
static mxlStatus
fan_out (MxlInitiator *init, const MxlTracked *what, const void *request,
    gboolean skip_behind)
{
  mxlStatus result = MXL_STATUS_OK;
  guint taken = 0, refused = 0;

  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);
    mxlStatus st = fan_out_one (init, c, what, request, skip_behind && c->behind,
        &taken, &refused);

    if (st == MXL_ERR_INVALID_ARG)
      result = st;
    else if (st != MXL_STATUS_OK && result == MXL_STATUS_OK)
      result = st;
  }
  /* No target took it because none is connected yet (or any more): the
   * caller can wait for a connection event and send it again. */
  if (result == MXL_STATUS_OK && taken == 0 && refused > 0)
    result = MXL_ERR_NOT_READY;
  return result;
}

#ifdef MXL_TEST_HOOKS
/* The test build only: the raw test requests' own path (initiator_raw.c),
 * a fan-out to one connection whose request is queued through @queue. */
mxlStatus
mxl_initiator_queue_one (MxlInitiator *init, uint64_t target_id, const MxlTracked *what,
    MxlQueueFn queue, const void *request)
{
  MxlConn *conn;
  guint taken = 0, refused = 0;
  mxlStatus st = MXL_ERR_NOT_FOUND;

  mxl_lock (&init->base.lock);
  conn = mxl_initiator_find_conn (init, target_id);
  if (conn != NULL && conn->state.kind != MXL_CONN_CONNECTED)
    st = MXL_ERR_INVALID_STATE;
  else if (conn != NULL && !fan_out_admit (init, conn, what, FALSE, &refused))
    st = MXL_STATUS_OK;
  else if (conn != NULL) {
    uint64_t first_seq = conn->next_seq;

    st = queue_waiting (conn, queue, request);
    st = fan_out_queued (init, conn, what, first_seq, st, &taken, &refused);
  }
  if (st == MXL_STATUS_OK && taken == 0 && refused > 0)
    st = MXL_ERR_NOT_READY;
  mxl_unlock (&init->base.lock);
  return st;
}
#endif

/* The fan-out of the grain source (init->fan_out of grain flows): builds the
 * request of TransferGrain @desc (the local flow's grain header decides
 * whether only the header travels) and queues it on every target; a
 * target behind the others is skipped while another keeps up. */
static mxlStatus
fan_out_grain (MxlInitiator *init, const MxlPostDesc *desc)
{
  MxlGrainRequest req;
  MxlTracked what = { .grain_index = desc->index, .start = desc->start,
    .end = desc->end, .queued_at = g_get_monotonic_time () };
  guint keeping_up = 0;
  uint32_t flags;

  memset (&req, 0, sizeof (req));
  req.grain_index = desc->index;
  req.req_start = desc->start;
  req.req_end = desc->end;
  req.local_slot = (uint32_t) (desc->index % init->base.grain_count);
  /* A grain flagged invalid moves the ring on without content: only its
   * header travels (immediate data slice value 0). */
  memcpy (&flags, init->base.regions[req.local_slot].base
      + offsetof (mxlGrainInfo, flags), sizeof (flags));
  if (flags & MXL_GRAIN_FLAG_INVALID) {
    req.slice_end = 0;
    req.n_runs = mxl_layout_grain_runs (&init->base.layout, 0, 0, TRUE, req.runs);
  } else {
    req.slice_end = desc->end;
    req.n_runs = mxl_layout_grain_runs (&init->base.layout, desc->start, desc->end, FALSE,
        req.runs);
  }
  if (req.n_runs == 0)
    return MXL_ERR_INVALID_ARG;
  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);
    if (c->state.kind == MXL_CONN_CONNECTED
        && !conn_behind (c, req.grain_index, what.queued_at))
      keeping_up++;
  }
  return fan_out (init, &what, &req, keeping_up > 0);
}

/* The fan-out of the sample source (init->fan_out of continuous flows): the batch
 * of TransferSamples @desc to every target; results report its head. */
static mxlStatus
fan_out_samples (MxlInitiator *init, const MxlPostDesc *desc)
{
  MxlSamplesRequest sreq = { desc->index, desc->count };
  MxlTracked what = { .grain_index = desc->index, .queued_at = g_get_monotonic_time () };

  return fan_out (init, &what, &sreq, FALSE);
}

/* A post descriptor to every target, through the chunk source chosen at
 * setup. */
mxlStatus
mxl_initiator_fan_out_desc (MxlInitiator *init, const MxlPostDesc *desc)
{
  return init->fan_out (init, desc);
}


mxlStatus
mxl_initiator_transfer_grain (MxlInitiator *init, uint64_t index, uint16_t start,
    uint16_t end)
{
  MxlPostDesc desc;

  if (!init->base.setup_done || init->base.continuous)
    return MXL_ERR_INVALID_STATE;
  if (start > end || end > init->base.layout.total_slices)
    return MXL_ERR_INVALID_ARG;
  desc.start = start;
  desc.end = end;
  desc.index = index;
  /* through the credits of the targets that have them */
  return mxl_initiator_credit_submit (init, &desc);
}

mxlStatus
mxl_initiator_transfer_samples (MxlInitiator *init, uint64_t head, uint64_t count)
{
  MxlPostDesc desc;

  if (!init->base.setup_done || !init->base.continuous)
    return MXL_ERR_INVALID_STATE;
  /* §4.3: count >= 1; a batch cannot be longer than the local ring. */
  if (count == 0 || !mxl_samples_batch_fits (init, count) || head < count)
    return MXL_ERR_INVALID_ARG;
  memset (&desc, 0, sizeof desc);
  desc.index = head;
  desc.count = count;
  /* through the credits of the targets that have them (bounce entries) */
  return mxl_initiator_credit_submit (init, &desc);
}
