/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The initiator's progress: completions, connection timers and posting
 * (mxl_initiator_progress_once(), shared by both modes), and its progress
 * thread (setup option "progressThread"): the post ring, the pass the thread runs, and what application threads call instead
 * of driving progress themselves. Threads and wake-ups: progress.h.
 *
 * Each pass, holding init->lock:
 *   1. pops at most RING_BUDGET descriptors, only while every connected
 *      target has room for one more transfer (otherwise the entries wait in
 *      the ring, which is the back-pressure the producers see), and queues
 *      each on every connected target without posting yet;
 *   2. runs the progress pass shared with the threadless mode: connection
 *      events, the CQ, connection timers, and posting at most
 *      MXL_PUMP_BUDGET writes per connection (consecutive writes with
 *      FI_MORE, the last of each batch without it);
 *   3. publishes the MakeProgress status and wakes waiters.
 */
#include "fabrics/initiator.h"
#include "fabrics/initiator_credit.h"

#include <errno.h>
#include <string.h>

#include "fabrics/setup.h"
#ifdef MXL_TEST_HOOKS
#include "fabrics/protocol/protocol_hooks.h"
#endif

#define CQ_BATCH 64

/* Descriptors popped per pass at most (fairness against the CQ). */
#define RING_BUDGET 64u
/* How long a transfer call retries a full post ring (ms). */
#define POST_DEADLINE_MS 20

/* The thread mode's state (init->mode_state), made by
 * mxl_initiator_progress_start() and freed by its stop; an inline
 * initiator has none. */
struct MxlModeState {
  MxlPostRing *post_ring;
  _Atomic uint64_t posts_pushed;   /* producers, before the push (undone on failure) */
  uint64_t posts_popped;           /* progress thread, under lock */
  mxlStatus thread_status;         /* MakeProgress status after the last pass */
  gboolean defer_pump;             /* pass: queue popped transfers, post after */
};

static void
mode_state_free (MxlInitiator *init)
{
  mxl_post_ring_free (init->mode_state->post_ring);
  g_clear_pointer (&init->mode_state, g_free);
}

static gboolean
has_posts (gpointer owner)
{
  MxlInitiator *init = owner;

  return mxl_post_ring_peek (init->mode_state->post_ring)
      && mxl_initiator_room_for_one (init);
}

/* The MakeProgress status as seen by application threads. */
static mxlStatus
current_status (MxlInitiator *init)
{
  MxlModeState *m = init->mode_state;

  if (atomic_load_explicit (&m->posts_pushed, memory_order_relaxed) != m->posts_popped
      && m->thread_status != MXL_ERR_INTERRUPTED)
    return MXL_ERR_NOT_READY;
  return m->thread_status;
}

static gboolean
pass (gpointer owner)
{
  MxlInitiator *init = owner;
  MxlModeState *m = init->mode_state;
  const mxlFabricsExtInitiatorStats *s = &init->stats;
  uint64_t before = s->writesPosted + s->writesCompleted + s->writeErrors;
  MxlPostDesc desc;
  guint popped = 0;
  mxlStatus st;

  /* Queue everything first, post after (progress_once), so that the
   * writes of consecutive transfers form one FI_MORE batch. */
  m->defer_pump = TRUE;
  while (popped < RING_BUDGET && mxl_initiator_room_for_one (init)
      && mxl_post_ring_pop (m->post_ring, &desc)) {
    popped++;
    m->posts_popped++;
    /* Failures become results (tracked) or are the test hook's own. */
    mxl_initiator_fan_out_desc (init, &desc);
  }
  m->defer_pump = FALSE;
  st = mxl_initiator_progress_once (init);
  if (popped > 0 || st != m->thread_status) {
    m->thread_status = st;
    mxl_endpoint_wake (&init->base);
  }
  if (popped > 0 || s->writesPosted + s->writesCompleted + s->writeErrors != before) {
    if (init->notify)
      init->notify (init->notify_data);
    return TRUE;
  }
  return FALSE;
}

mxlStatus
mxl_initiator_progress_start (MxlInitiator *init, GError **error)
{
  MxlPostRing *ring;
  MxlModeState *m;
  mxlStatus st;

  ring = mxl_post_ring_new (init->base.options.post_ring_capacity, sizeof (MxlPostDesc),
      error);
  if (ring == NULL)
    return MXL_ERR_INVALID_ARG;
  m = g_new0 (MxlModeState, 1);
  m->post_ring = ring;
  atomic_init (&m->posts_pushed, 0);
  m->posts_popped = 0;
  m->thread_status = MXL_ERR_INTERRUPTED;   /* no target yet */
  init->mode_state = m;
  st = mxl_endpoint_progress_start (&init->base, "mxl-initiator", pass, has_posts, init,
      error);
  if (st != MXL_STATUS_OK)
    mode_state_free (init);
  else
    init->mode = &mxl_initiator_thread_mode;
  return st;
}

void
mxl_initiator_progress_stop (MxlInitiator *init, int flush_ms)
{
  MxlPostDesc desc;

  /* Teardown, once: nothing to stop without a thread (inline mode, or
   * setup failed before it started). */
  if (init->mode_state == NULL)
    return;
  if (flush_ms > 0 && mxl_progress_running (&init->base.progress))
    mxl_initiator_progress_wait (init, flush_ms);
  mxl_progress_stop (&init->base.progress);
  /* The thread is joined: this thread is the consumer now. Whatever was
   * not taken up is cancelled (counted as dropped). */
  while (mxl_post_ring_pop (init->mode_state->post_ring, &desc))
    init->stats.transfersDropped++;
  mode_state_free (init);
  init->mode = &mxl_initiator_inline_mode;
}

mxlStatus
mxl_initiator_progress_post (MxlInitiator *init, const MxlPostDesc *desc)
{
  MxlModeState *m = init->mode_state;
  mxlStatus st;

  /* Counted before the push so that a MakeProgress that follows this call
   * sees it in flight; undone when the ring stays full. */
  atomic_fetch_add_explicit (&m->posts_pushed, 1, memory_order_relaxed);
  st = mxl_post_ring_push_with_deadline (m->post_ring, desc,
      g_get_monotonic_time () + POST_DEADLINE_MS * 1000);
  if (st != MXL_STATUS_OK) {
    atomic_fetch_sub_explicit (&m->posts_pushed, 1, memory_order_relaxed);
    return MXL_ERR_NOT_READY;    /* counted by the ring: postRingFull */
  }
  mxl_progress_wake (&init->base.progress);
  return MXL_STATUS_OK;
}

mxlStatus
mxl_initiator_progress_wait (MxlInitiator *init, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000;
  mxlStatus st;

  mxl_lock (&init->base.lock);
  for (;;) {
    st = current_status (init);
    if (st != MXL_ERR_NOT_READY || timeout_ms <= 0)
      break;
    if (!mxl_endpoint_wait (&init->base, deadline)) {
      st = current_status (init);
      break;
    }
  }
  mxl_unlock (&init->base.lock);
  return st;
}

/* ------------------------------------------------------------ progress */

/* Whether a failed write's error (fi_cq_readerr(3)'s err, fi_errno(3)
 * values) says the peer went away: its endpoint closed or reset the
 * connection (tcp cancels the writes still queued when the receiver
 * closes: FI_ECANCELED), rather than a transport failure. */
static gboolean
error_is_peer_closed (int err)
{
  switch (err) {
    case FI_ECANCELED:
    case FI_ECONNRESET:
    case FI_ECONNABORTED:
    case EPIPE:
    case FI_ENOTCONN:
    case FI_ESHUTDOWN:
      return TRUE;
    default:
      return FALSE;
  }
}

void
mxl_initiator_on_completion (MxlInitiator *init, void *op_context, gboolean ok, int err)
{
  MxlWriteCtx *ctx = op_context;
  MxlConn *conn;

  if (ctx < init->ctx_pool || ctx >= init->ctx_pool + init->ctx_count || !ctx->in_use)
    return;                  /* not ours, or reclaimed already */
  conn = g_hash_table_lookup (init->by_conn_id, &ctx->conn_id);
  if (mxl_initiator_eos_done (init, ctx, ok))
    return;                  /* an end-of-stream notice (initiator_eos.c) */
  if (init->type_ops->own_completion != NULL
      && init->type_ops->own_completion (init, ctx, conn, ok))
    return;                  /* the endpoint type's own operation */
  if (ok)
    init->stats.writesCompleted++;
  else
    init->stats.writeErrors++;
  if (conn != NULL && conn->state.kind == MXL_CONN_CONNECTED) {
    conn->last_progress = g_get_monotonic_time ();
    mxl_conn_track_complete (conn, ctx->transfer_seq, ok, err);
    mxl_egress_on_write_done (conn, ctx, ok);
    mxl_initiator_ctx_put (init, ctx);
    if (!ok && error_is_peer_closed (err)) {
      /* the receiver stopped: an orderly loss, as its FI_SHUTDOWN would
       * be (the event's reason says so; nothing on stderr) */
      g_debug ("initiator: write to target %" G_GUINT64_FORMAT " ended: %s "
          "(the target closed)", conn->target_id, fi_strerror (err));
      mxl_conn_transition (conn, MXL_CONN_IN_ERROR, MXL_ERR_INTERRUPTED);
    } else if (!ok) {
      g_message ("initiator: write to target %" G_GUINT64_FORMAT " failed: %s",
          conn->target_id, fi_strerror (err));
      mxl_conn_transition (conn, MXL_CONN_IN_ERROR, MXL_ERR_UNKNOWN);
    }
    return;
  }
  mxl_initiator_ctx_put (init, ctx);
}

/* One completion the CQ read, to the handler above; the test build first
 * turns it into an injected error completion while a test armed one
 * (protocol_hooks.c). */
static inline void
dispatch_completion (MxlInitiator *init, void *op_context, gboolean ok, int err)
{
#ifdef MXL_TEST_HOOKS
  mxl_hooks_completion_fault (init, op_context, &ok, &err);
#endif
  mxl_initiator_on_completion (init, op_context, ok, err);
}

/* Reads completions; @timeout_ms >= 0 waits (CQs with a wait object). */
void
mxl_initiator_drain_cq (MxlInitiator *init, int timeout_ms)
{
  struct fi_cq_data_entry buf[CQ_BATCH];
  struct fi_cq_err_entry err;

  for (int round = 0; round < 16; round++) {
    size_t n = 0;
    ssize_t rc = 0;

    switch (mxl_ofi_cq_read (init->base.cq, buf, CQ_BATCH, timeout_ms, &n, &err, &rc)) {
      case MXL_CQ_READ_EMPTY:
        init->cq_drains++;
        return;
      case MXL_CQ_READ_ENTRIES:
        for (size_t i = 0; i < n; i++)
          if (!mxl_initiator_credit_completion (init, buf[i].op_context, TRUE, buf[i].len))
            dispatch_completion (init, buf[i].op_context, TRUE, 0);
        if (n < CQ_BATCH)
          return;
        break;
      case MXL_CQ_READ_ERROR_ENTRY:
        if (!mxl_initiator_credit_completion (init, err.op_context, FALSE, 0))
          dispatch_completion (init, err.op_context, FALSE, err.err);
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
  mxl_initiator_drain_cq (init, -1);
  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);

    mxl_conn_transition (c, MXL_CONN_IN_TICK, MXL_STATUS_OK);
    if (c->state.kind == MXL_CONN_CONNECTED) {
      mxlStatus st = mxl_egress_pump (c);
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
        /* with "reconnect" it becomes idle again by itself */
        if (c->state.u.lost.retry_at > 0)
          pending = any_live = TRUE;
        break;
      case MXL_CONN_REMOVED:
        break;
    }
  }
  /* Scanned only while there are orphans: every progress pass with writes
   * in flight walked the whole pool (~6,000 instructions, 1 ms audio). */
  if (init->type_ops->check_parked != NULL)
    init->type_ops->check_parked (init);
  if (init->ctx_orphaned > 0)
    mxl_initiator_reclaim_orphans (init);
  sweep_removed (init);
  if (!any_live)
    return MXL_ERR_INTERRUPTED;
  return pending ? MXL_ERR_NOT_READY : MXL_STATUS_OK;
}

mxlStatus
mxl_initiator_make_progress (MxlInitiator *init, int timeout_ms)
{
  if (!init->base.setup_done)
    return MXL_ERR_INVALID_STATE;
  return init->mode->make_progress (init, timeout_ms);
}

/* ---------------------------------------------------------------- modes */

/* MakeProgress without a thread: this thread drives progress. */
static mxlStatus
drive_progress (MxlInitiator *init, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000;
  guint sleep_us = 50;
  mxlStatus st;

  for (;;) {
    gint64 now;
    st = mxl_initiator_progress_once (init);
    if (st != MXL_ERR_NOT_READY || timeout_ms <= 0)
      return st;
    now = g_get_monotonic_time ();
    if (now >= deadline)
      return st;
    if (init->base.desc->cq_can_wait && init->stats.targetsConnected > 0) {
      mxl_initiator_drain_cq (init, (int) MIN ((deadline - now + 999) / 1000, 10));
    } else {
      g_usleep (MIN ((gint64) sleep_us, deadline - now));
      sleep_us = MIN (sleep_us * 2, 1000u);
    }
  }
}

/* PollTransferResult without a thread: this thread drives progress while
 * it waits, sleeping a growing back-off between passes. */
static gboolean
drive_until_result (MxlInitiator *init, gint64 deadline, guint *sleep_us)
{
  mxl_initiator_progress_once (init);
  if (init->base.res_len > 0)
    return TRUE;
  if (g_get_monotonic_time () >= deadline)
    return FALSE;
  mxl_unlock (&init->base.lock);
  g_usleep (*sleep_us);
  *sleep_us = MIN (*sleep_us * 2, 1000u);
  mxl_lock (&init->base.lock);
  return TRUE;
}

/* With a thread: its passes signal init->base.lock's condition. */
static gboolean
wait_for_result (MxlInitiator *init, gint64 deadline, guint *sleep_us)
{
  (void) sleep_us;
  return mxl_endpoint_wait (&init->base, deadline);
}

static void
nothing (MxlInitiator *init)
{
  (void) init;
}

static void
thread_target_added (MxlInitiator *init)
{
  init->mode_state->thread_status = MXL_ERR_NOT_READY;     /* until the next pass */
}

static void
thread_wake (MxlInitiator *init)
{
  mxl_progress_wake (&init->base.progress);
}

/* Inline: no post ring waits, no pass defers its pumping. */
static gboolean
never (const MxlInitiator *init)
{
  (void) init;
  return FALSE;
}

/* Descriptors still in the post ring are not readable from here (single
 * consumer): any of them counts as in flight. */
static gboolean
thread_posts_waiting (const MxlInitiator *init)
{
  MxlModeState *m = init->mode_state;

  return atomic_load_explicit (&m->posts_pushed, memory_order_relaxed) != m->posts_popped;
}

/* During a pass's fan-out of popped descriptors (pass()). */
static gboolean
thread_pump_deferred (const MxlInitiator *init)
{
  return init->mode_state->defer_pump;
}

static void
no_ring_stats (MxlInitiator *init, mxlFabricsExtInitiatorStats *out)
{
  (void) init;
  (void) out;
}

/* Refusals of a full ring are counted by the ring (any thread). */
static void
thread_ring_stats (MxlInitiator *init, mxlFabricsExtInitiatorStats *out)
{
  out->postRingFull = mxl_post_ring_full_count (init->mode_state->post_ring);
  out->transfersDropped += out->postRingFull;
}

const MxlInitiatorMode mxl_initiator_inline_mode = {
  .name = "inline",
  .submit = mxl_initiator_fan_out_desc,
  .make_progress = drive_progress,
  .await_result = drive_until_result,
  .target_added = nothing,
  .wake = nothing,
  .posts_waiting = never,
  .ring_stats = no_ring_stats,
  .pump_deferred = never,
};

const MxlInitiatorMode mxl_initiator_thread_mode = {
  .name = "progress thread",
  .submit = mxl_initiator_progress_post,
  .make_progress = mxl_initiator_progress_wait,
  .await_result = wait_for_result,
  .target_added = thread_target_added,
  .wake = thread_wake,
  .posts_waiting = thread_posts_waiting,
  .ring_stats = thread_ring_stats,
  .pump_deferred = thread_pump_deferred,
};
