/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The initiator's side of the credit extension: see initiator_credit.h.
 * A connection to a target with credits keeps MXL_CREDIT_RECVS receives of
 * one release message each posted on its endpoint (fi_recv(3); the target
 * sends them with fi_inject(3)); every release is checked against the
 * window (credit.h) and one that does not fit is counted and ignored.
 */
#include "fabrics/initiator_credit.h"

#include <string.h>

#include "fabrics/wire/credit.h"

#define MXL_CREDIT_RECVS 8u
/* a receive holds one release; a longer message is truncated (an error
 * completion, counted as a bad release) */
#define MXL_CREDIT_RECV_SIZE 32u

typedef struct MxlCreditRecv {
  struct fi_context2 ctx;        /* first: the op_context libfabric returns */
  struct MxlConnCredit *owner;
  guint i;
} MxlCreditRecv;

struct MxlConnCredit {
  MxlConn *conn;
  struct fid_ep *ep;
  MxlCreditWindow window;
  uint8_t bufs[MXL_CREDIT_RECVS][MXL_CREDIT_RECV_SIZE];
  MxlOfiRegion region;           /* @bufs, FI_RECV */
  MxlCreditRecv rx[MXL_CREDIT_RECVS];
  /* the last reservation (mxl_initiator_credit_reserve()): its index and
   * what its slot held before, so that a failed transfer gives it back */
  gboolean reserved;
  uint64_t reserved_index, prev_index;
  guint8 prev_state;
};

gboolean
mxl_conn_credit_announce (MxlConn *conn)
{
  MxlInitiator *init = conn->init;

  conn->credit_id = 0;
  if (!mxl_credit_version_usable (conn->info->credits) || init->base.continuous
      || init->base.desc->ep_type != FI_EP_MSG
      || !(init->base.dom->info->caps & FI_RECV)
      || conn->info->n_regions > MXL_CREDIT_RING_MAX)
    return FALSE;
  while (conn->credit_id == 0)
    conn->credit_id = mxl_random_u64 ();
  return TRUE;
}

static gboolean
post_recv (MxlConnCredit *cc, guint i)
{
  ssize_t rc = fi_recv (cc->ep, cc->bufs[i], MXL_CREDIT_RECV_SIZE, cc->region.desc,
      0, &cc->rx[i].ctx);

  if (rc != 0)
    g_debug ("initiator: credit receive for target %" G_GUINT64_FORMAT ": %s",
        cc->conn->target_id, fi_strerror ((int) -rc));
  return rc == 0;
}

void
mxl_conn_credit_open (MxlConn *conn, struct fid_ep *ep)
{
  g_autoptr (GError) error = NULL;
  MxlConnCredit *cc;

  mxl_conn_credit_close (conn);
  if (conn->credit_id == 0 || ep == NULL)
    return;
  cc = g_new0 (MxlConnCredit, 1);
  cc->conn = conn;
  cc->ep = ep;
  if (mxl_credit_window_init (&cc->window, conn->info->n_regions, conn->credit_id)
      != MXL_STATUS_OK
      || mxl_ofi_region_register (conn->init->base.dom, cc->bufs, sizeof cc->bufs,
          FI_RECV, &cc->region, &error) != MXL_STATUS_OK) {
    g_warning ("initiator: credits for target %" G_GUINT64_FORMAT " not set up: %s",
        conn->target_id, error != NULL ? error->message : "bad ring");
    mxl_credit_window_clear (&cc->window);
    g_free (cc);
    return;
  }
  for (guint i = 0; i < MXL_CREDIT_RECVS; i++) {
    cc->rx[i].owner = cc;
    cc->rx[i].i = i;
    post_recv (cc, i);
  }
  conn->credit = cc;
  atomic_fetch_add (&conn->init->credit_conns, 1);
}

void
mxl_conn_credit_close (MxlConn *conn)
{
  MxlConnCredit *cc = conn->credit;

  if (cc == NULL)
    return;
  conn->credit_releases += cc->window.releases;
  conn->credit_ahead += cc->window.releases_ahead;
  conn->credit_backwards += cc->window.releases_backwards;
  conn->credit_unknown += cc->window.releases_unknown;
  mxl_ofi_region_close (conn->init->base.dom, &cc->region);
  mxl_credit_window_clear (&cc->window);
  g_free (cc);
  conn->credit = NULL;
  atomic_fetch_sub (&conn->init->credit_conns, 1);
}

/* The live credit state @op_context belongs to, or NULL (a write's, or a
 * receive of a connection closed since: its buffers are gone, the pointer
 * is only compared). */
static MxlConnCredit *
owner_of (MxlInitiator *init, void *op_context)
{
  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);
    MxlConnCredit *cc = c->credit;

    if (cc != NULL && (uint8_t *) op_context >= (uint8_t *) cc->rx
        && (uint8_t *) op_context < (uint8_t *) (cc->rx + MXL_CREDIT_RECVS))
      return cc;
  }
  return NULL;
}

gboolean
mxl_initiator_credit_completion (MxlInitiator *init, void *op_context,
    gboolean ok, size_t len)
{
  MxlWriteCtx *ctx = op_context;
  MxlConnCredit *cc;
  MxlCreditRecv *rx;
  MxlCreditRelease r;

  if (ctx >= init->ctx_pool && ctx < init->ctx_pool + init->ctx_count)
    return FALSE;            /* a write context */
  if ((cc = owner_of (init, op_context)) == NULL)
    return FALSE;
  rx = op_context;
  if (!ok || len > MXL_CREDIT_RECV_SIZE
      || !mxl_credit_release_decode (cc->bufs[rx->i], len, &r))
    cc->conn->credit_bad++;
  else if (mxl_credit_window_on_release (&cc->window, &r) == MXL_CREDIT_RELEASED) {
    /* a credit: waiters (mxl_initiator_wait_credit(), the notify) */
    mxl_endpoint_wake (&init->base);
    if (init->notify)
      init->notify (init->notify_data);
  }
  post_recv (cc, rx->i);
  return TRUE;
}

guint
mxl_initiator_credit_reserve (MxlInitiator *init, uint64_t index, guint *with_credit)
{
  guint missing = 0;

  *with_credit = 0;
  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);

    if (c->credit == NULL || c->state.kind != MXL_CONN_CONNECTED)
      continue;
    if (mxl_credit_window_may_write (&c->credit->window, index)) {
      MxlConnCredit *cc = c->credit;
      guint s = (guint) (index % cc->window.slots.ring);

      cc->reserved = TRUE;
      cc->reserved_index = index;
      cc->prev_index = cc->window.slots.slot_index[s];
      cc->prev_state = cc->window.slots.slot_state[s];
      mxl_credit_window_note_written (&cc->window, index);
      (*with_credit)++;
    } else {
      c->grains_no_credit++;
      missing++;
    }
  }
  return missing;
}

void
mxl_conn_credit_unreserve (MxlConn *conn, uint64_t index)
{
  MxlConnCredit *cc = conn->credit;
  guint s;

  if (cc == NULL || !cc->reserved || cc->reserved_index != index)
    return;
  s = (guint) (index % cc->window.slots.ring);
  cc->window.slots.slot_index[s] = cc->prev_index;
  cc->window.slots.slot_state[s] = cc->prev_state;
  cc->reserved = FALSE;
}

mxlStatus
mxl_initiator_credit_submit (MxlInitiator *init, const MxlPostDesc *desc)
{
  guint missing, with_credit;
  gboolean none;
  mxlStatus st;

  /* without credits the submit stays as it was: no lock (the progress
   * thread's post ring is lock-free) */
  if (atomic_load (&init->credit_conns) == 0)
    return init->mode->submit (init, desc);
  mxl_lock (&init->base.lock);
  missing = mxl_initiator_credit_reserve (init, desc->index, &with_credit);
  none = missing > 0 && with_credit == 0 && missing == init->stats.targetsConnected;
  mxl_unlock (&init->base.lock);
  if (none)
    return MXL_ERR_NOT_READY;    /* no target can take it: nothing posted */
  st = init->mode->submit (init, desc);
  if (st != MXL_STATUS_OK && with_credit > 0) {
    mxl_lock (&init->base.lock);
    for (guint i = 0; i < init->conns->len; i++)
      mxl_conn_credit_unreserve (g_ptr_array_index (init->conns, i), desc->index);
    mxl_unlock (&init->base.lock);
  }
  return st == MXL_STATUS_OK && missing > 0 ? MXL_ERR_NOT_READY : st;
}

gboolean
mxl_conn_credit_skips (MxlConn *conn, uint64_t index)
{
  const MxlCreditHolds *h;
  guint s;

  if (conn->credit == NULL)
    return FALSE;
  h = &conn->credit->window.slots;
  s = (guint) (index % h->ring);
  return h->slot_state[s] != MXL_CREDIT_SLOT_HELD || h->slot_index[s] != index;
}

/* Every connected target with credits (or @target_id only, when not 0)
 * can take grain @index. */
static gboolean
credit_free (MxlInitiator *init, uint64_t target_id, uint64_t index)
{
  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);

    if ((target_id == 0 || c->target_id == target_id)
        && c->credit != NULL && c->state.kind == MXL_CONN_CONNECTED
        && !mxl_credit_window_may_write (&c->credit->window, index))
      return FALSE;
  }
  return TRUE;
}

mxlStatus
mxl_initiator_wait_credit (MxlInitiator *init, const struct mxlFabricsTargetInfo_t *info,
    uint64_t index, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000;
  uint64_t target_id = info != NULL ? info->id : 0;
  gboolean threaded;
  mxlStatus st = MXL_ERR_TIMEOUT;

  if (!init->base.setup_done || init->base.continuous)
    return MXL_ERR_INVALID_STATE;
  mxl_lock (&init->base.lock);
  if (info != NULL && mxl_initiator_find_conn (init, target_id) == NULL) {
    mxl_unlock (&init->base.lock);
    return MXL_ERR_NOT_FOUND;
  }
  threaded = init->mode == &mxl_initiator_thread_mode;
  for (;;) {
    gint64 now;

    if (!threaded)
      mxl_initiator_progress_once (init);
    if (credit_free (init, target_id, index)) {
      st = MXL_STATUS_OK;
      break;
    }
    now = g_get_monotonic_time ();
    if (now >= deadline)
      break;
    if (threaded) {
      /* the progress thread wakes it when a release comes in */
      mxl_endpoint_wait (&init->base, deadline);
    } else {
      /* no thread: this call waits on the completion queue itself, in
       * slices of at most 10 ms (connection timers; credits are on
       * connected providers, whose CQs wait: cq_can_wait) */
      mxl_initiator_drain_cq (init, (int) MIN ((deadline - now) / 1000 + 1, 10));
    }
  }
  mxl_unlock (&init->base.lock);
  return st;
}

void
mxl_conn_credit_stats (const MxlConn *conn, mxlFabricsExtInitiatorTargetStats *out)
{
  const MxlConnCredit *cc = conn->credit;

  out->credits = cc != NULL;
  out->grainsNoCredit = conn->grains_no_credit;
  out->creditReleases = conn->credit_releases + (cc ? cc->window.releases : 0);
  out->creditReleasesAhead = conn->credit_ahead + (cc ? cc->window.releases_ahead : 0);
  out->creditReleasesBackwards = conn->credit_backwards
      + (cc ? cc->window.releases_backwards : 0);
  out->creditReleasesUnknown = conn->credit_unknown
      + (cc ? cc->window.releases_unknown : 0);
  out->creditReleasesBad = conn->credit_bad;
}
