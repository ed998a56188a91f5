/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The initiator's connections: what becomes of the write contexts of a
 * connection that is gone (the pool's get and put are the egress's,
 * protocol_egress.c) and the connection state machine, whose one
 * transition function (mxl_conn_transition()) is the only place that
 * writes a connection's state (lost connections are reported instead of
 * silently evicted, docs/wire-format.md §6.5).
 */
#include "fabrics/initiator.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <poll.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "fabrics/ofi/localpeers.h"

#ifdef MXL_TEST_HOOKS
#include "fabrics/protocol/protocol_hooks.h"
#endif

#define ORPHAN_RECLAIM_US (2 * G_USEC_PER_SEC)

/* ------------------------------------------------------------ contexts */

/* Contexts of a connection generation that is gone: their completions, if
 * any still come, are ignored; they return to the pool after a while, or,
 * when the generation's own endpoint was closed (@closed: no completion of
 * it can be produced any more), once the CQ has been read empty after the
 * close: the local slots they read are free again at once, and a
 * completion still queued cannot meet a reused context. While the
 * endpoint is parked (MxlInitiatorTypeOps.parked, initiator_rdm.c) they
 * wait for their completions (a stopped peer that continues still reads
 * the slots they name) or the park's end. */
static void
orphan_contexts (MxlInitiator *init, uint64_t conn_id, gboolean closed)
{
  gint64 now = g_get_monotonic_time ();

  for (guint i = 0; i < init->ctx_count; i++) {
    MxlWriteCtx *ctx = &init->ctx_pool[i];
    if (ctx->in_use && ctx->conn_id == conn_id && ctx->orphaned_at == 0) {
      ctx->orphaned_at = now;
      ctx->reclaim_drain = closed ? init->cq_drains + 1 : 0;
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
      if (reclaim)
        ctx->reclaim_drain = init->cq_drains + 1;
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

/* TRUE while the endpoint of @ctx's connection generation is parked. */
static gboolean
ctx_parked (const MxlInitiator *init, const MxlWriteCtx *ctx)
{
  return init->type_ops->parked != NULL && init->type_ops->parked (init, ctx->conn_id);
}

void
mxl_initiator_reclaim_orphans (MxlInitiator *init)
{
  gint64 now = g_get_monotonic_time ();

  for (guint i = 0; i < init->ctx_count; i++) {
    MxlWriteCtx *ctx = &init->ctx_pool[i];
    if (ctx->in_use && ctx->orphaned_at > 0
        && ((now - ctx->orphaned_at > ORPHAN_RECLAIM_US && !ctx_parked (init, ctx))
            || (ctx->reclaim_drain > 0 && init->cq_drains >= ctx->reclaim_drain)))
      mxl_initiator_ctx_put (init, ctx);
  }
}

/* --------------------------------------------------------- connections */

mxlFabricsExtConnectionState
mxl_conn_public_state (MxlConnKind kind)
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

/* The back-off before attempt @attempts (1, 2, ...): MXL_RETRY_FIRST_MS
 * doubled per attempt up to MXL_RETRY_MAX_MS; 0 for none (ms). */
static gint64
backoff_ms (guint attempts)
{
  return attempts == 0 ? 0
      : MIN ((gint64) MXL_RETRY_FIRST_MS << MIN (attempts - 1, 8u), MXL_RETRY_MAX_MS);
}

static void
idle_state (MxlConnState *s, guint attempts)
{
  memset (s, 0, sizeof (*s));
  s->kind = MXL_CONN_IDLE;
  s->u.idle.retry_at = g_get_monotonic_time () + backoff_ms (attempts) * 1000;
  s->u.idle.attempts = attempts;
}

/* @cur: the connected state that was lost. With the setup option
 * "reconnect" the loss is retried after the back-off: afresh when the
 * connection had stayed up MXL_RETRY_RESET_MS, else one step further
 * (a target that accepts and drops at once). */
static void
lost_state (MxlConnState *s, const MxlInitiator *init, const MxlConnState *cur,
    mxlStatus reason)
{
  gint64 now = g_get_monotonic_time ();
  guint attempts = now - cur->u.connected.since >= MXL_RETRY_RESET_MS * 1000
      ? 1 : cur->u.connected.attempts + 1;

  memset (s, 0, sizeof (*s));
  s->kind = MXL_CONN_LOST;
  s->u.lost.reason = reason;
  if (init->base.options.reconnect) {
    s->u.lost.attempts = attempts;
    s->u.lost.retry_at = now + backoff_ms (attempts) * 1000;
  }
}

static void
leave (MxlConn *conn, const MxlConnState *cur, gboolean orderly, mxlStatus reason)
{
  MxlInitiator *init = conn->init;
  MxlCloseEffect effect;

  if (cur->kind != MXL_CONN_CONNECTING && cur->kind != MXL_CONN_CONNECTED)
    return;
  mxl_conn_track_cancel (conn, reason);
  if (conn->post != NULL)
    mxl_egress_reset (conn);
  conn->post = NULL;
  conn->outstanding = 0;
  g_hash_table_remove (init->by_conn_id, &conn->conn_id);
  /* A connection with its own endpoint (shm, initiator_rdm.c) closes it,
   * or, lost with writes in flight to a peer that still lives (stopped,
   * say), parks it: should the peer continue, it would still read the
   * local slots those writes name, so they stay in use until their
   * completions come. */
  effect = init->type_ops->close (conn, cur, orderly);
  orphan_contexts (init, conn->conn_id, effect == MXL_CLOSE_ENDED);
  /* Nobody reads the writes' memory any more: the endpoint is closed (RC,
   * or a connection's own shm endpoint that was not parked), or the shm
   * receiver that would copy it (it reads the sender's memory when it
   * progresses) has exited. */
  if (effect == MXL_CLOSE_READS_ENDED || effect == MXL_CLOSE_ENDED
      || mxl_conn_peer_gone (conn))
    release_contexts (init, conn->conn_id, FALSE);
}

/* Process @pid has exited: no such process, or one that exited and was
 * not reaped yet (a zombie): kill(2) still succeeds on a zombie, and its
 * parent may take its time to reap it (a loaded shell does, for tens of
 * milliseconds). @pidfd (pidfd_open(2), -1: none) becomes readable when the
 * process exits, reaped or not: one poll(2) a post. Without one, the
 * state in /proc/<pid>/stat (proc(5)) tells a zombie (Z or X). */
static gboolean
process_gone (pid_t pid, int pidfd)
{
  gchar path[32], *text = NULL, *end;
  gboolean gone = FALSE;

  if (pidfd >= 0) {
    struct pollfd pfd = { pidfd, POLLIN, 0 };

    return poll (&pfd, 1, 0) > 0;
  }
  if (kill (pid, 0) != 0)
    return errno == ESRCH;
  g_snprintf (path, sizeof (path), "/proc/%d/stat", (int) pid);
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;               /* no /proc: kill() decides */
  /* "pid (comm) S ...": comm may hold spaces and parentheses */
  end = strrchr (text, ')');
  if (end != NULL && end[1] == ' ')
    gone = end[2] == 'Z' || end[2] == 'X';
  g_free (text);
  return gone;
}

/* A shm target's process is gone (TargetInfo ext.pid, same host), or has
 * exited and waits to be reaped: its shared region must not be written
 * again, whatever state libfabric left it in (a lock the process held when
 * it died is never released, and libfabric 1.17 spins on it in
 * fi_writemsg() and fi_readmsg(); tests/gst/test-demo-signals.sh). A
 * reused pid only delays the verdict to the stall check. A target of this
 * very process is gone once it withdrew its address (localpeers.h):
 * nothing progresses it any more. */
gboolean
mxl_conn_peer_gone (const MxlConn *conn)
{
  if (conn->info->owner_pid == 0)
    return FALSE;
  if (mxl_conn_peer_local (conn))
    return !mxl_local_peer_alive (conn->info->fabric_address,
        conn->info->fabric_address_len);
  return process_gone ((pid_t) conn->info->owner_pid, conn->peer_pidfd);
}

/* The target is an endpoint of this process that the provider reaches
 * through the target's own memory (MXL_PROVIDER_QUIRK_LOCAL_PEER_SHARED). */
gboolean
mxl_conn_peer_local (const MxlConn *conn)
{
  return conn->info->owner_pid == (uint32_t) getpid ()
      && mxl_provider_has_quirk (conn->init->base.desc,
      MXL_PROVIDER_QUIRK_LOCAL_PEER_SHARED);
}

/* The connection becomes connected: its protocol's initiator state,
 * resolved once for its posts, and the protocol's per-connection state
 * (MxlProtocolInitiatorOps conn_open; NULL for protocols without). */
static void
conn_open_proto (MxlConn *conn)
{
  const MxlProtocolInitiatorOps *ops = conn->protocol->initiator;

  conn->proto = mxl_initiator_proto (conn->init, conn->protocol);
  if (ops != NULL && ops->conn_open != NULL) {
    conn->proto_state = ops->conn_open (conn);
    if (conn->proto_state != NULL)
      conn->proto_state->desc = conn->protocol;
  }
}

/* It leaves connected (or is freed while connected): frees what
 * conn_open_proto() made. */
static void
conn_close_proto (MxlConn *conn)
{
  if (conn->proto_state != NULL)
    conn->proto_state->desc->initiator->conn_close (conn, conn->proto_state);
  conn->proto_state = NULL;
  conn->proto = NULL;
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
        /* a peer known gone (its process exited, or a target of this
         * process withdrew: mxl_conn_peer_gone()) stopped, like an orderly
         * shutdown; only a silent one is a timeout */
        reason = mxl_conn_peer_gone (conn) ? MXL_ERR_INTERRUPTED
            : MXL_ERR_NOT_READY;
        leave (conn, &cur, FALSE, MXL_ERR_INTERRUPTED);
        lost_state (&next, init, &cur, reason);
      } else if (cur.kind == MXL_CONN_LOST && cur.u.lost.retry_at > 0
          && now >= cur.u.lost.retry_at) {
        /* "reconnect": attempted at the next tick, the back-off kept */
        idle_state (&next, cur.u.lost.attempts);
        next.u.idle.retry_at = now;
      }
      break;
    case MXL_CONN_IN_CONNECTED:
      if (cur.kind == MXL_CONN_CONNECTING) {
        memset (&next, 0, sizeof (next));
        next.kind = MXL_CONN_CONNECTED;
        next.u.connected.ep = cur.u.connecting.ep;
        /* an RDM peer's address is the type's (its connected op) */
        next.u.connected.addr = FI_ADDR_UNSPEC;
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
        lost_state (&next, init, &cur, reason);
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
    case MXL_CONN_IN_ADD:
      /* REMOVED → IDLE: reported as the target being added. */
      if (cur.kind == MXL_CONN_REMOVED)
        idle_state (&next, 0);
      break;
  }

  if (next.kind == MXL_CONN_CONNECTED && cur.kind != MXL_CONN_CONNECTED) {
    /* The back-off it came through is kept until it stays up (lost_state). */
    next.u.connected.since = now;
    next.u.connected.attempts = cur.kind == MXL_CONN_CONNECTING ? cur.u.connecting.attempts
        : cur.kind == MXL_CONN_IDLE ? cur.u.idle.attempts : 0;
    /* The protocol is chosen once, when the connection becomes usable:
     * its post (in the test build a test hook's wrapper while one is
     * armed, protocol_hooks.h); the endpoint type completes the state and
     * may wrap the post. */
#ifdef MXL_TEST_HOOKS
    conn->post = mxl_hooks_conn_post (conn);
#else
    conn->post = conn->protocol->post;
#endif
    conn_open_proto (conn);
    if (init->type_ops->connected != NULL)
      init->type_ops->connected (conn, &next);
    conn->last_progress = now;
    conn->q_head = conn->q_len = 0;
    conn->tr_head = conn->tr_len = 0;
    init->stats.targetsConnected++;
  }
  if (cur.kind == MXL_CONN_CONNECTED && next.kind != MXL_CONN_CONNECTED) {
    conn_close_proto (conn);
    init->stats.targetsConnected--;
    if (next.kind == MXL_CONN_LOST) {
      init->stats.connectionsLost++;
      /* debug level: the application hears of it through the connection
       * events (the sink sets "reconnect") */
      g_debug ("initiator: target %" G_GUINT64_FORMAT " lost (status %d); %s",
          conn->target_id, reason, next.u.lost.retry_at > 0
          ? "retried after the back-off" : "adding its TargetInfo again reconnects");
    }
  }
  conn->state = next;
  if (mxl_conn_public_state (next.kind) != mxl_conn_public_state (cur.kind)) {
    mxlFabricsExtConnectionEvent *ev;

    g_debug ("initiator: target %" G_GUINT64_FORMAT " %s -> %s", conn->target_id,
        mxlFabricsExtConnectionStateName (mxl_conn_public_state (cur.kind)),
        mxlFabricsExtConnectionStateName (mxl_conn_public_state (next.kind)));
    ev = mxl_event_queue_push (&init->base.events,
        conn->target_id, mxl_conn_public_state (cur.kind),
        mxl_conn_public_state (next.kind), reason);

    /* the retry counts from the event's stamp, so that the delay it
     * reports is the back-off exactly */
    if (next.kind == MXL_CONN_LOST && next.u.lost.retry_at > 0) {
      conn->state.u.lost.retry_at = (gint64) (ev->timestampNs / 1000u)
          + backoff_ms (next.u.lost.attempts) * 1000;
      ev->retryAtNs = (uint64_t) conn->state.u.lost.retry_at * 1000u;
    }
    if (init->notify)
      init->notify (init->notify_data);
  }
}

MxlConn *
mxl_initiator_find_conn (MxlInitiator *init, uint64_t target_id)
{
  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);
    if (c->target_id == target_id && c->state.kind != MXL_CONN_REMOVED)
      return c;
  }
  return NULL;
}

MxlConn *
mxl_conn_new (MxlInitiator *init, const struct mxlFabricsTargetInfo_t *info,
    const MxlProtocolDesc *protocol)
{
  MxlConn *conn = g_new0 (MxlConn, 1);

  conn->init = init;
  conn->target_id = info->id;
  conn->info = mxl_target_info_copy (info);
  conn->protocol = protocol;
  /* the target's process, watched for its exit (process_gone()); a pid
   * that does not exist, or a kernel without pidfd_open(2): -1 */
  conn->peer_pidfd = info->owner_pid != 0
      && info->owner_pid != (uint32_t) getpid ()
      ? pidfd_open ((pid_t) info->owner_pid, 0) : -1;
  conn->state.kind = MXL_CONN_REMOVED;    /* the initial state */
  g_ptr_array_add (init->conns, conn);
  mxl_conn_transition (conn, MXL_CONN_IN_ADD, MXL_STATUS_OK);
  return conn;
}

void
mxl_conn_free (MxlConn *conn)
{
  conn_close_proto (conn);
  if (conn->type_state != NULL)
    conn->type_state->ops->conn_free (conn);
  if (conn->init->chunks->release != NULL)
    conn->init->chunks->release (conn, TRUE);
  mxl_target_info_free (conn->info);
  if (conn->peer_pidfd >= 0)
    close (conn->peer_pidfd);
  g_free (conn);
}

