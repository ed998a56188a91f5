/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Target: setup, completion draining and reads (docs/wire-format.md §6.3, §6.6, §7). */
#include "fabrics/target.h"

#include <string.h>
#include <unistd.h>

#include <rdma/fi_eq.h>

#include "fabrics/ofi/localpeers.h"
#include "fabrics/wire/eos.h"
#include "fabrics/protocol/rxring.h"
#include "fabrics/setup.h"
#include "flow/flow-priv.h"

/**
 * MxlTargetMode:
 * What differs between a target read by the application's calls
 * (inline_wait_mode, or inline_poll_mode on a provider whose CQ cannot
 * wait) and one with a progress thread (thread_mode), chosen at setup
 * (t->mode): no call tests which it is.
 */
typedef struct MxlTargetMode {
  const char *name;
  /* ReadGrain/ReadSamples of a set-up target: drains, validates and
   * commits itself, or pops what the thread queued. */
  mxlStatus (*read) (MxlTarget *t, int timeout_ms, uint64_t *out_index,
      uint64_t *out_count);
  /* The inline modes: one wait of a connected target that found nothing,
   * at most @left_ms and never past @deadline (monotonic us, @now before
   * it). Returns what a read returned, or NOT_READY to go on. NULL for
   * the thread mode. */
  mxlStatus (*wait) (MxlTarget *t, int left_ms, gint64 now, gint64 deadline,
      uint64_t *out_index, uint64_t *out_count);
  /* After the interrupted flag is set (mxl_target_interrupt(), without the
   * lock): ends at once a read blocked in libfabric. NULL where a read
   * waits on the lock's condition (thread mode, woken by the broadcast)
   * or in naps of at most a wait slice (inline_poll_mode). */
  void (*interrupt) (MxlTarget *t);
} MxlTargetMode;

/** A read result queued by the progress thread. */
typedef struct MxlReadResult {
  mxlStatus status;
  uint64_t index;            /* grain index, or head index of samples */
  uint64_t count;            /* samples per channel (continuous flows) */
} MxlReadResult;

/* The thread mode's own state (t->thread), from the thread's start until
 * teardown: the ring of read results (base.res_head, base.res_len). */
typedef struct MxlTargetThread {
  MxlReadResult results[MXL_FABRICS_EXT_RESULT_QUEUE_MAX];
} MxlTargetThread;

static const MxlTargetMode inline_wait_mode, inline_poll_mode, thread_mode;

/* The inline mode for the target's provider: whether its CQ can wait
 * (MxlProviderDesc cq_can_wait, provider.h) is fixed at setup. */
static const MxlTargetMode *
inline_mode_of (const MxlTarget *t)
{
  return t->base.desc != NULL && !t->base.desc->cq_can_wait ? &inline_poll_mode
      : &inline_wait_mode;
}

void
mxl_target_push_event (MxlTarget *t, mxlFabricsExtConnectionState previous,
    mxlFabricsExtConnectionState current, mxlStatus reason)
{
  mxl_event_queue_push (&t->base.events, t->id, previous, current, reason);
}

mxlStatus
mxl_target_set_rx_ep (MxlTarget *t, struct fid_ep *ep)
{
  MxlTargetProto *p = t->pstate;

  if (p == NULL || p->rx_ops == NULL)
    return MXL_STATUS_OK;
  p->rx_ep = ep;
  return ep != NULL ? p->rx_ops->post_all (t, ep) : MXL_STATUS_OK;
}

mxlStatus
mxl_target_bind_cq (MxlTarget *t, struct fid_ep *ep, GError **error)
{
  int rc = fi_ep_bind (ep, &t->base.cq->fid, FI_TRANSMIT | FI_RECV);

  if (rc != 0)
    return mxl_ofi_fail (rc, "fi_ep_bind(cq)", error);
  return MXL_STATUS_OK;
}

/* The target's protocol state and the receives it needs, with their ring
 * (rxring.h): its descriptor's setup sets t->pstate and its rx_ops. */
static mxlStatus
setup_receives (MxlTarget *t, GError **error)
{
  return t->proto->target_setup (t, error);
}

/* Receives are re-posted while they have an endpoint (then rx_ops is set). */
void
mxl_target_repost (MxlTarget *t, void *op_context)
{
  if (t->pstate != NULL && t->pstate->rx_ep != NULL)
    t->pstate->rx_ops->repost (t, op_context);
}

void
mxl_target_receive_failed (MxlTarget *t, void *op_context)
{
  if (t->pstate != NULL && t->pstate->rx_ep != NULL)
    t->pstate->rx_ops->failed (t, op_context);
}

mxlStatus
mxl_target_fill_info (MxlTarget *t, const void *addr, size_t addr_len)
{
  struct mxlFabricsTargetInfo_t *info = mxl_target_info_new ();
  const char *def;

  info->address_format = t->base.dom->info->addr_format;
  info->fabric_address = g_memdup2 (addr, addr_len);
  info->fabric_address_len = addr_len;
  info->id = t->id;
  info->provider = g_strdup (t->base.desc->name);
  /* the regions: the write ingress's (grain slots, or the bounce ring) */
  t->istate->ops->fill_info (t, info);
  mxl_target_credit_fill_info (t, info);
  info->protocol = g_strdup (t->proto->name);
  if (mxl_provider_has_quirk (t->base.desc, MXL_PROVIDER_QUIRK_OWNER_PID))
    info->owner_pid = (uint32_t) getpid ();
  if (t->proto->advertises_recv_size)
    info->recv_size = t->pstate->ring->entry_size;
  def = mxl_flow_writer_get_def (t->writer);
  info->flow_def = def ? g_strdup (def) : NULL;
  /* The end-of-stream notice (wire/eos.h): remote write only (no message
   * ingress in front of the write one), and only where its slot field
   * 0xFFFF is no slot of ours. */
  if (t->ingress == t->istate->ops && t->base.grain_count < MXL_EOS_SLOT)
    info->eos_version = MXL_EOS_VERSION;
  t->info = info;
  /* an initiator of this process asks whether it still lives (P17) */
  if (mxl_provider_has_quirk (t->base.desc, MXL_PROVIDER_QUIRK_LOCAL_PEER_SHARED))
    mxl_local_peer_add (info->fabric_address, info->fabric_address_len);
  return MXL_STATUS_OK;
}

/* Undo everything setup created, in reverse order; safe on partial setups. */
static void
teardown (MxlTarget *t)
{
  /* A second path writes into this target's flow: it goes first
   * (target_paths.c; nothing for a one-path target or a second path). */
  mxl_target_paths_stop (t);
  /* The progress thread goes first: this thread owns the endpoints again. */
  mxl_progress_stop (&t->base.progress);
  t->mode = inline_mode_of (t);
  /* Nothing progresses it any more: an initiator of this process may
   * close the endpoints it holds for it (docs/libfabric-notes.md P17). */
  if (t->info != NULL
      && mxl_provider_has_quirk (t->base.desc, MXL_PROVIDER_QUIRK_LOCAL_PEER_SHARED))
    mxl_local_peer_remove (t->info->fabric_address, t->info->fabric_address_len);
  if (t->type_ops)
    t->type_ops->close (t);
  mxl_target_credit_free (t);
  if (t->pstate != NULL)
    t->proto->target_teardown (t);
  t->pstate = NULL;
  if (t->istate != NULL)
    t->istate->ops->teardown (t);
  mxl_endpoint_close (&t->base);
  g_clear_pointer (&t->batch, g_free);
  g_clear_pointer (&t->info, mxl_target_info_free);
  g_clear_pointer (&t->thread, g_free);
  mxl_target_paths_free (t);
  t->type_ops = NULL;
}

static mxlStatus read_once (MxlTarget *t, int timeout_ms, uint64_t *out_index,
    uint64_t *out_count);

void
mxl_target_push_result (MxlTarget *t, mxlStatus st, uint64_t index, uint64_t count)
{
  gboolean dropped;
  MxlReadResult *r = &t->thread->results[mxl_endpoint_result_push (&t->base,
          &dropped)];

  if (dropped)
    t->stats.readResultsDropped++;
  r->status = st;
  r->index = index;
  r->count = count;
}

/* One pass of the progress thread (t->lock held): connection events, then
 * the CQ drained, validated and committed, at most one batch of results. */
static gboolean
thread_pass (gpointer owner)
{
  MxlTarget *t = owner;
  guint n = 0;

  t->type_ops->poll_events (t, -1);
  for (; n < t->batch_cap; n++) {
    uint64_t index = 0, count = 0;
    mxlStatus st = read_once (t, -1, &index, &count);
    if (st == MXL_ERR_NOT_READY)
      break;
    t->sink->push (t, st, index, count);
  }
  if (n > 0)
    mxl_endpoint_wake (&t->base);
  return n > 0;
}

static mxlStatus
start_thread (MxlTarget *t, GError **error)
{
  mxlStatus st;

  t->thread = g_new0 (MxlTargetThread, 1);
  st = mxl_endpoint_progress_start (&t->base, "mxl-target", thread_pass, NULL, t,
      error);
  if (st == MXL_STATUS_OK)
    t->mode = &thread_mode;
  return st;
}

/* ReadGrain with a progress thread: pops a queued result, waiting on the
 * queue up to @timeout_ms. */
static mxlStatus
read_queued (MxlTarget *t, int timeout_ms, uint64_t *out_index, uint64_t *out_count)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000;
  mxlStatus st = MXL_ERR_NOT_READY;
  guint i;

  mxl_lock (&t->base.lock);
  for (;;) {
    if (atomic_exchange (&t->interrupted, 0)) {
      st = MXL_ERR_INTERRUPTED;
      break;
    }
    if (mxl_endpoint_result_pop (&t->base, &i)) {
      MxlReadResult *r = &t->thread->results[i];
      st = r->status;
      /* As the threadless read: index and count are set with OK (and with
       * the lost-samples status, which reports the lost batch). */
      if (st != MXL_ERR_NOT_READY) {
        *out_index = r->index;
        *out_count = r->count;
      }
      break;
    }
    if (timeout_ms <= 0 || g_get_monotonic_time () >= deadline)
      break;
    mxl_endpoint_wait (&t->base, deadline);
  }
  mxl_unlock (&t->base.lock);
  return st;
}

mxlStatus
mxl_target_commit_own (MxlTarget *t, uint64_t index, uint16_t slices)
{
  mxlGrainInfo info;
  uint8_t *payload = NULL;
  mxlStatus st = mxlFlowWriterOpenGrain (t->writer, index, &info, &payload);

  if (st == MXL_STATUS_OK) {
    info.validSlices = slices;
    st = mxlFlowWriterCommitGrain (t->writer, &info);
  }
  return st;
}

/* A one-path target: its own flow, its own result queue. */
static const MxlTargetSinkOps own_sink = {
  .commit = mxl_target_commit_own,
  .push = mxl_target_push_result,
};

/* MxlSlotFn of the target's flow writer. */
static uint8_t *
writer_slot (gpointer writer, guint i, size_t *out_len)
{
  return mxl_flow_writer_grain_slot (writer, i, out_len);
}

static mxlStatus
writer_layout (gpointer writer, MxlFlowLayout *out)
{
  return mxl_flow_writer_get_layout (writer, out);
}

static const MxlEndpointRole target_role = { MXL_ROLE_TARGET, "target", writer_layout,
  writer_slot };

mxlStatus
mxl_target_setup (MxlTarget *t, const mxlFabricsTargetConfig *config,
    const char *options, struct mxlFabricsTargetInfo_t **out_info)
{
  g_autoptr (GError) error = NULL;
  struct fi_info *fi = NULL;
  MxlFlowLayout flow;
  mxlStatus st;

  if (t->base.setup_done)
    return MXL_ERR_INVALID_STATE;
  /* a path of a two-path target has its sink set already (target_paths.c) */
  if (t->sink == NULL)
    t->sink = &own_sink;
  st = mxl_endpoint_setup_begin (&t->base, &target_role, config->writer, options,
      &config->interface, &flow, &fi, &error);
  if (st != MXL_STATUS_OK)
    goto fail;
  t->mode = inline_mode_of (t);
  t->type_ops = fi->ep_attr->type == FI_EP_MSG ? &mxl_target_rc_ops : &mxl_target_rdm_ops;
  t->ingress = flow.format == MXL_DATA_FORMAT_AUDIO ? &mxl_rma_samples_ingress_ops
      : &mxl_rma_ingress_ops;
  /* Forced by the options, or the best the provider offers (setup.c). */
  t->proto = t->base.options.protocol;
  t->writer = config->writer;
  /* Grains are expected once per grain period (the flow's rate); continuous
   * flows arrive in batches of no fixed period: no poll window. */
  mxl_poll_nap_init (&t->nap, flow.format != MXL_DATA_FORMAT_AUDIO
      && flow.rate.numerator > 0 && flow.rate.denominator > 0
      ? (gint64) (G_USEC_PER_SEC * flow.rate.denominator / flow.rate.numerator) : 0);
  do {
    t->id = mxl_random_u64 ();
  } while (t->id == 0);

  /* Remote write needs the slots' keys; without FI_RMA (send, tagged
   * fallback) they are only local receive and copy destinations. */
  st = mxl_endpoint_setup_open (&t->base, &target_role, t->writer, &flow, fi,
      t->base.options.cq_depth, (fi->caps & FI_RMA) ? FI_REMOTE_WRITE : FI_RECV, &error);
  /* The write ingress's private state; continuous flows: the bounce ring. */
  if (st == MXL_STATUS_OK)
    st = t->ingress->setup (t, &flow, &error);
  if (st != MXL_STATUS_OK)
    goto fail;
  t->batch_cap = MIN ((size_t) t->base.options.cq_depth + 1, MXL_TARGET_MAX_BATCH);
  t->batch = g_new0 (struct fi_cq_data_entry, t->batch_cap);
  st = setup_receives (t, &error);
  if (st != MXL_STATUS_OK)
    goto fail;
  mxl_target_credit_setup (t);
  st = t->type_ops->open (t, &error);
  if (st != MXL_STATUS_OK)
    goto fail;
  t->stats.version = MXL_FABRICS_API_VERSION;
  /* Both paths of a two-path target merge in their progress threads. */
  if (t->base.options.progress_thread || t->paths != NULL) {
    st = start_thread (t, &error);
    if (st != MXL_STATUS_OK)
      goto fail;
  }
  t->base.setup_done = TRUE;
  *out_info = mxl_target_info_copy (t->info);
  g_debug ("target %" G_GUINT64_FORMAT ": %s %s, %u slots of %" G_GUINT64_FORMAT
      " bytes, cqDepth %u", t->id, t->base.desc->name, t->type_ops->name,
      t->base.grain_count, t->base.layout.slot_size, t->base.options.cq_depth);
  return MXL_STATUS_OK;

fail:
  mxl_endpoint_setup_failed (&target_role, st, error);
  teardown (t);
  return st;
}

void
mxl_target_destroy (MxlTarget *t)
{
  teardown (t);
  mxl_endpoint_clear (&t->base);
  g_free (t);
}

/* Drains the CQ into the batch: everything that arrived since the last
 * drain, up to cqDepth + 1 entries. Returns OK (entries buffered), NOT_READY
 * (nothing), MXL_FABRICS_EXT_STATUS_CQ_OVERRUN (entries buffered, and more
 * than cqDepth had arrived between two drains), or another error. */
static mxlStatus
refill (MxlTarget *t, int timeout_ms)
{
  struct fi_cq_err_entry err;
  size_t len = 0, n_data = 0;
  mxlStatus st = MXL_ERR_NOT_READY;

  while (len < t->batch_cap) {
    size_t n = 0;
    ssize_t rc = 0;
    MxlCqRead r = mxl_ofi_cq_read (t->base.cq, t->batch + len, t->batch_cap - len,
        len == 0 ? timeout_ms : -1, &n, &err, &rc);

    if (r == MXL_CQ_READ_EMPTY)
      break;
    if (r == MXL_CQ_READ_ENTRIES) {
      len += n;
      continue;
    }
    t->stats.completionErrors++;
    /* A refused receive (truncated message) goes back to the ring. */
    if (r == MXL_CQ_READ_ERROR_ENTRY
        && !mxl_target_credit_receive_failed (t, err.op_context, err.err)
        && err.err != FI_ECANCELED)
      mxl_target_receive_failed (t, err.op_context);
    if ((r == MXL_CQ_READ_ERROR_ENTRY && err.err == FI_EOVERRUN) || rc == -FI_EOVERRUN) {
      t->stats.cqOverruns++;
      st = MXL_FABRICS_EXT_STATUS_CQ_OVERRUN;
      break;
    }
    if (r == MXL_CQ_READ_FAILED) {
      g_warning ("target %" G_GUINT64_FORMAT ": fi_cq_read: %s", t->id,
          fi_strerror ((int) -rc));
      st = mxl_ofi_status (rc);
      break;
    }
    g_debug ("target %" G_GUINT64_FORMAT ": error completion %s", t->id,
        fi_strerror (err.err));
  }
  /* What the endpoint type handles itself (claims) leaves the batch. */
  len = t->type_ops->take (t, t->batch, len);
  t->batch_len = len;
  t->batch_pos = 0;
  for (size_t i = 0; i < len; i++) {
    t->ingress->on_drained (t, &t->batch[i]);
    if (t->batch[i].flags & FI_REMOTE_CQ_DATA)
      n_data++;
  }
  /* libfabric's software CQs (tcp, shm, rxm) never drop entries, they queue
   * beyond their size; more than cqDepth arriving between two drains is
   * what overruns a hardware CQ of that depth. Reported, nothing dropped. */
  if (n_data > t->base.options.cq_depth) {
    t->stats.cqOverruns++;
    g_warning ("target %" G_GUINT64_FORMAT ": more than cqDepth (%u) completions "
        "arrived between two drains: drain more often or raise cqDepth", t->id,
        t->base.options.cq_depth);
    return MXL_FABRICS_EXT_STATUS_CQ_OVERRUN;
  }
  if (len > 0 && st == MXL_ERR_NOT_READY)
    return MXL_STATUS_OK;
  return st;
}

/* Consumes buffered completions until one gives a result. */
static mxlStatus
consume (MxlTarget *t, uint64_t *out_index, uint64_t *out_count)
{
  while (t->batch_pos < t->batch_len) {
    const struct fi_cq_data_entry *e = &t->batch[t->batch_pos++];
    mxlStatus st;

    if (e->flags & FI_RECV)
      mxl_target_repost (t, e->op_context);
    if (!(e->flags & FI_REMOTE_CQ_DATA)) {
      /* A receive without data: a send message that is not the last of its
       * transfer (send protocol), no event. */
      if (!(e->flags & FI_RECV))
        t->stats.completionsWithoutData++;
      continue;
    }
    /* The end-of-stream notice (wire/eos.h), where advertised: after the
     * completions before it. Elsewhere the ingress refuses the value as
     * out-of-range immediate data. A connectionless target with claims
     * has taken the notices of others than its owner out already
     * (target_claim.c). */
    if (t->info != NULL && t->info->eos_version != 0 && mxl_eos_is_imm (e->data)) {
      t->stats.endOfStreamNotices++;
      return MXL_FABRICS_EXT_STATUS_END_OF_STREAM;
    }
    st = t->ingress->on_completion (t, e, out_index, out_count);
    /* credits of a continuous flow: the entry is free again */
    mxl_target_credit_entry (t, e->data);
    if (st != MXL_ERR_NOT_READY)
      return st;
  }
  return MXL_ERR_NOT_READY;
}

static mxlStatus
read_once (MxlTarget *t, int timeout_ms, uint64_t *out_index, uint64_t *out_count)
{
  mxlStatus st = consume (t, out_index, out_count);

  if (st != MXL_ERR_NOT_READY)
    return st;
  st = refill (t, timeout_ms);
  if (st != MXL_STATUS_OK)
    return st;
  return consume (t, out_index, out_count);
}

/* ReadGrain without a progress thread: drains, validates and commits
 * itself, waiting up to @timeout_ms. */
static mxlStatus
read_inline (MxlTarget *t, int timeout_ms, uint64_t *out_index, uint64_t *out_count)
{
  gint64 deadline;
  mxlStatus st;

  /* Fast path: completions already buffered. */
  st = consume (t, out_index, out_count);
  if (st != MXL_ERR_NOT_READY)
    return st;
  deadline = g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000;
  for (;;) {
    gint64 now, left_ms;
    gboolean ready;

    if (atomic_exchange (&t->interrupted, 0))
      return MXL_ERR_INTERRUPTED;
    ready = t->type_ops->poll_events (t, -1);

    st = read_once (t, -1, out_index, out_count);
    if (st != MXL_ERR_NOT_READY)
      break;
    now = g_get_monotonic_time ();
    if (timeout_ms <= 0 || now >= deadline)
      break;
    left_ms = MIN ((deadline - now + 999) / 1000, MXL_TARGET_WAIT_SLICE_MS);
    if (!ready) {
      /* Not connected: wait for a connection event (RC) instead. */
      t->type_ops->poll_events (t, (int) left_ms);
      continue;
    }
    st = t->mode->wait (t, (int) left_ms, now, deadline, out_index, out_count);
    if (st != MXL_ERR_NOT_READY)
      break;
  }
  if (st == MXL_STATUS_OK)
    mxl_poll_nap_arrived (&t->nap, g_get_monotonic_time ());
  return st;
}

/* The CQ has a wait object: the read waits on it. */
static mxlStatus
wait_on_cq (MxlTarget *t, int left_ms, gint64 now, gint64 deadline,
    uint64_t *out_index, uint64_t *out_count)
{
  (void) now;
  (void) deadline;
  return read_once (t, left_ms, out_index, out_count);
}

/* shm/efa cannot wait on the CQ (P9): poll with naps, short around the
 * grain expected next (pollnap.h), never past the deadline. */
static mxlStatus
wait_nap (MxlTarget *t, int left_ms, gint64 now, gint64 deadline,
    uint64_t *out_index, uint64_t *out_count)
{
  (void) left_ms;
  (void) out_index;
  (void) out_count;
  g_usleep (MIN ((gint64) mxl_poll_nap_next (&t->nap, now), deadline - now));
  return MXL_ERR_NOT_READY;
}

/* inline_wait_mode's interrupt: fi_cq_signal(3) ends an fi_cq_sread() at
 * once, and an FI_NOTIFY entry (fi_eq_write(3)) the fi_eq_sread() of a
 * target waiting for a connection (the endpoint type's EQ, base.wait_fid;
 * read as a tick, target_rc.c). The read then sees the flag. */
static void
interrupt_sread (MxlTarget *t)
{
  struct fi_eq_entry entry = { 0 };

  fi_cq_signal (t->base.cq);
  if (t->base.wait_fid != NULL && t->base.wait_fid->fclass == FI_CLASS_EQ)
    fi_eq_write (container_of (t->base.wait_fid, struct fid_eq, fid),
        FI_NOTIFY, &entry, sizeof entry, 0);
}

static const MxlTargetMode inline_wait_mode = {
  .name = "inline",
  .read = read_inline,
  .wait = wait_on_cq,
  .interrupt = interrupt_sread,
};

static const MxlTargetMode inline_poll_mode = {
  .name = "inline, polling",
  .read = read_inline,
  .wait = wait_nap,
};

static const MxlTargetMode thread_mode = {
  .name = "progress thread",
  .read = read_queued,
};

mxlStatus
mxl_target_read (MxlTarget *t, int timeout_ms, uint64_t *out_index,
    uint64_t *out_count)
{
  mxlStatus st;

  if (!t->base.setup_done)
    return MXL_ERR_INVALID_STATE;
  st = t->mode->read (t, timeout_ms, out_index, out_count);
  if (st == MXL_STATUS_OK)
    mxl_target_credit_read (t, *out_index);
  return st;
}

void
mxl_target_interrupt (MxlTarget *t)
{
  const MxlTargetMode *mode;

  mxl_lock (&t->base.lock);
  atomic_store (&t->interrupted, 1);
  mxl_lock_broadcast (&t->base.lock);
  mode = t->base.setup_done ? t->mode : NULL;
  mxl_unlock (&t->base.lock);
  if (mode != NULL && mode->interrupt != NULL)
    mode->interrupt (t);
}

void
mxl_target_get_stats (MxlTarget *t, mxlFabricsExtTargetStats *out)
{
  mxl_lock (&t->base.lock);
  *out = t->stats;
  out->version = MXL_FABRICS_API_VERSION;
  out->state = t->type_ops ? t->type_ops->state (t) : MXL_FABRICS_EXT_STATE_IDLE;
  mxl_unlock (&t->base.lock);
  mxl_target_credit_stats (t, out);
}
