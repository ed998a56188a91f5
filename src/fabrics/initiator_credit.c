/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The initiator's side of the credit extension: see initiator_credit.h.
 * A connection to a target with credits keeps MXL_CREDIT_RECVS receives of
 * one release message each posted on its endpoint (fi_recv(3); the target
 * sends them with fi_inject(3)); every release is checked against the
 * window (credit.h) and one that does not fit is counted and ignored.
 *
 * Connectionless (FI_EP_RDM): the connection announces itself with an
 * MxlCreditAnnounce of its id and fi_getname(3) address, sent with
 * fi_inject(3) every MXL_CREDIT_ANNOUNCE_MS until the target acknowledges
 * it (an announce of the id without address); until then it has no
 * credit. Receives may sit on an endpoint all connections share
 * (tcp;ofi_rxm), so a message is handed to the connection its id names,
 * whichever receive took it; and the receives of a connection that left
 * stay posted, so its state is retired (init->credit_retired) rather
 * than freed: a later connection on the shared endpoint takes it over,
 * the rest are freed at teardown, once every endpoint is closed.
 */
#include "fabrics/initiator_credit.h"

#include <string.h>

#include "fabrics/wire/credit.h"

#define MXL_CREDIT_RECVS 8u
/* a receive holds one release; a longer message is truncated (an error
 * completion, counted as a bad release) */
#define MXL_CREDIT_RECV_SIZE 32u
/* connectionless: announce again until acknowledged, this often */
#define MXL_CREDIT_ANNOUNCE_MS 100

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
  guint8 prev_state, prev_posted;
  /* per target slot: a write of the index the window holds there was
   * posted (a dropped transfer then cannot give the slot back) */
  guint8 *posted;
  /* the target took the announce: RC at connection, RDM once it
   * acknowledged the announce message; no credit before */
  gboolean acked;
  /* connectionless: the target's address in the AV, this endpoint's own
   * address, when to announce next (monotonic us) */
  gboolean rdm, shared;
  fi_addr_t peer;
  uint8_t addr[MXL_CREDIT_ADDR_MAX];
  size_t addr_len;
  gint64 announce_at;
};

/* A credit came (a release, an acknowledged announce): the waiters
 * (mxl_initiator_wait_credit(), the notify). */
static void
credit_came (MxlInitiator *init)
{
  mxl_endpoint_wake (&init->base);
  if (init->notify)
    init->notify (init->notify_data);
}

gboolean
mxl_conn_credit_announce (MxlConn *conn)
{
  MxlInitiator *init = conn->init;

  conn->credit_id = 0;
  if (!mxl_credit_version_usable (conn->info->credits) || init->base.continuous
      || (init->base.desc->ep_type != FI_EP_MSG && init->base.desc->ep_type != FI_EP_RDM)
      || !(init->base.dom->info->caps & FI_RECV)
      || (init->base.desc->ep_type == FI_EP_RDM && !(init->base.dom->info->caps & FI_SEND))
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
      FI_ADDR_UNSPEC, &cc->rx[i].ctx);

  if (rc != 0)
    g_debug ("initiator: credit receive for target %" G_GUINT64_FORMAT ": %s",
        cc->conn->target_id, fi_strerror ((int) -rc));
  return rc == 0;
}

/* A retired state on the shared endpoint @ep, whose receives are still
 * posted there, taken out of the list; NULL if none. */
static MxlConnCredit *
take_retired (MxlInitiator *init, struct fid_ep *ep)
{
  if (init->credit_retired == NULL)
    return NULL;
  for (guint i = 0; i < init->credit_retired->len; i++) {
    MxlConnCredit *cc = g_ptr_array_index (init->credit_retired, i);

    if (cc->shared && cc->ep == ep) {
      g_ptr_array_remove_index_fast (init->credit_retired, i);
      return cc;
    }
  }
  return NULL;
}

void
mxl_conn_credit_open (MxlConn *conn, struct fid_ep *ep)
{
  g_autoptr (GError) error = NULL;
  MxlInitiator *init = conn->init;
  gboolean rdm = init->base.desc->ep_type == FI_EP_RDM;
  gboolean shared_ep = rdm && mxl_initiator_rdm_shares_endpoint (init);
  MxlConnCredit *cc;

  mxl_conn_credit_close (conn);
  if (conn->credit_id == 0 || ep == NULL)
    return;
  cc = rdm && shared_ep ? take_retired (init, ep) : NULL;
  if (cc != NULL) {
    /* its receives are posted on @ep already */
    cc->conn = conn;
    cc->reserved = FALSE;
    if (mxl_credit_window_init (&cc->window, conn->info->n_regions, conn->credit_id)
        != MXL_STATUS_OK) {
      cc->conn = NULL;
      g_ptr_array_add (init->credit_retired, cc);
      return;
    }
  } else {
    cc = g_new0 (MxlConnCredit, 1);
    cc->conn = conn;
    cc->ep = ep;
    cc->shared = rdm && shared_ep;
    if (mxl_credit_window_init (&cc->window, conn->info->n_regions, conn->credit_id)
        != MXL_STATUS_OK
        || mxl_ofi_region_register (init->base.dom, cc->bufs, sizeof cc->bufs,
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
  }
  g_free (cc->posted);
  cc->posted = g_new0 (guint8, conn->info->n_regions);
  cc->rdm = rdm;
  cc->acked = !rdm;          /* RC: the connection request announced it */
  cc->announce_at = 0;
  cc->addr_len = sizeof cc->addr;
  if (rdm && fi_getname (&ep->fid, cc->addr, &cc->addr_len) != 0)
    cc->addr_len = 0;        /* nothing to announce: never acknowledged */
  conn->credit = cc;
  atomic_fetch_add (&init->credit_conns, 1);
}

/* Frees @cc and its registration. */
static void
credit_free (MxlInitiator *init, MxlConnCredit *cc)
{
  mxl_ofi_region_close (init->base.dom, &cc->region);
  mxl_credit_window_clear (&cc->window);
  g_free (cc->posted);
  g_free (cc);
}

void
mxl_conn_credit_close (MxlConn *conn)
{
  MxlConnCredit *cc = conn->credit;
  MxlInitiator *init = conn->init;

  if (cc == NULL)
    return;
  conn->credit_releases += cc->window.releases;
  conn->credit_ahead += cc->window.releases_ahead;
  conn->credit_backwards += cc->window.releases_backwards;
  conn->credit_unknown += cc->window.releases_unknown;
  conn->credit = NULL;
  atomic_fetch_sub (&init->credit_conns, 1);
  if (!cc->rdm) {
    credit_free (init, cc);    /* its endpoint was closed with the connection */
    return;
  }
  /* its receives may still be posted (a shared or parked endpoint) */
  mxl_credit_window_clear (&cc->window);
  g_clear_pointer (&cc->posted, g_free);
  cc->conn = NULL;
  if (init->credit_retired == NULL)
    init->credit_retired = g_ptr_array_new ();
  g_ptr_array_add (init->credit_retired, cc);
}

void
mxl_initiator_credit_teardown (MxlInitiator *init)
{
  if (init->credit_retired == NULL)
    return;
  for (guint i = 0; i < init->credit_retired->len; i++)
    credit_free (init, g_ptr_array_index (init->credit_retired, i));
  g_clear_pointer (&init->credit_retired, g_ptr_array_unref);
}

ssize_t
mxl_conn_credit_tick (MxlConn *conn, gint64 now)
{
  MxlConnCredit *cc = conn->credit;
  MxlCreditAnnounce a;
  uint8_t msg[MXL_CREDIT_ANNOUNCE_HEADER + MXL_CREDIT_ADDR_MAX];
  size_t len;
  ssize_t rc;

  if (cc == NULL || !cc->rdm || cc->acked || conn->state.kind != MXL_CONN_CONNECTED
      || now < cc->announce_at || cc->addr_len == 0 || cc->addr_len > MXL_CREDIT_ADDR_MAX)
    return 1;
  cc->announce_at = now + MXL_CREDIT_ANNOUNCE_MS * 1000;
  a.initiator_id = cc->window.id;
  a.addr_len = (uint16_t) cc->addr_len;
  memcpy (a.addr, cc->addr, cc->addr_len);
  len = mxl_credit_announce_encode (&a, msg, sizeof msg);
  rc = fi_inject (cc->ep, msg, len, conn->state.u.connected.addr);
  if (rc != 0 && rc != -FI_EAGAIN)
    g_debug ("initiator: credit announce to target %" G_GUINT64_FORMAT ": %s",
        conn->target_id, fi_strerror ((int) -rc));
  return rc;
}

static gboolean
holds_context (const MxlConnCredit *cc, const void *op_context)
{
  return cc != NULL && (const uint8_t *) op_context >= (const uint8_t *) cc->rx
      && (const uint8_t *) op_context < (const uint8_t *) (cc->rx + MXL_CREDIT_RECVS);
}

/* The credit state @op_context belongs to, live or retired, or NULL (a
 * write's, or a receive of a connected endpoint closed since: its buffers
 * are gone, the pointer is only compared). */
static MxlConnCredit *
owner_of (MxlInitiator *init, void *op_context)
{
  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);

    if (holds_context (c->credit, op_context))
      return c->credit;
  }
  if (init->credit_retired != NULL)
    for (guint i = 0; i < init->credit_retired->len; i++)
      if (holds_context (g_ptr_array_index (init->credit_retired, i), op_context))
        return g_ptr_array_index (init->credit_retired, i);
  return NULL;
}

/* The live credit state on endpoint @ep whose id is @id, or NULL. */
static MxlConnCredit *
named_by (MxlInitiator *init, struct fid_ep *ep, uint64_t id)
{
  for (guint i = 0; i < init->conns->len; i++) {
    MxlConnCredit *cc = ((MxlConn *) g_ptr_array_index (init->conns, i))->credit;

    if (cc != NULL && cc->ep == ep && cc->window.id == id)
      return cc;
  }
  return NULL;
}

gboolean
mxl_initiator_credit_completion (MxlInitiator *init, void *op_context,
    gboolean ok, size_t len)
{
  MxlWriteCtx *ctx = op_context;
  MxlConnCredit *cc, *target;
  MxlCreditRecv *rx;
  MxlCreditRelease r;
  MxlCreditAnnounce ack;
  enum { CREDIT_MSG_BAD, CREDIT_MSG_RELEASE, CREDIT_MSG_ACK } kind;
  uint64_t id = 0;

  if (ctx >= init->ctx_pool && ctx < init->ctx_pool + init->ctx_count)
    return FALSE;            /* a write context */
  if ((cc = owner_of (init, op_context)) == NULL)
    return FALSE;
  rx = op_context;
  if (!ok || len > MXL_CREDIT_RECV_SIZE)
    kind = CREDIT_MSG_BAD;
  else if (mxl_credit_release_decode (cc->bufs[rx->i], len, &r))
    kind = CREDIT_MSG_RELEASE, id = r.initiator_id;
  else if (cc->rdm && mxl_credit_announce_decode (cc->bufs[rx->i], len, &ack)
      && ack.addr_len == 0)
    kind = CREDIT_MSG_ACK, id = ack.initiator_id;
  else
    kind = CREDIT_MSG_BAD;
  /* the connection the message names (a shared endpoint's receive may
   * take another connection's), else the one whose receive took it; a
   * retired connection's receive naming no live one is dropped */
  target = kind != CREDIT_MSG_BAD ? named_by (init, cc->ep, id) : NULL;
  if (target == NULL)
    target = cc->conn != NULL ? cc : NULL;
  if (target != NULL) {
    switch (kind) {
      case CREDIT_MSG_BAD:
        target->conn->credit_bad++;
        break;
      case CREDIT_MSG_ACK:
        /* the target took the announce: credits from now on (again: no-op) */
        if (id != target->window.id)
          target->conn->credit_bad++;
        else if (!target->acked) {
          target->acked = TRUE;
          credit_came (init);
        }
        break;
      case CREDIT_MSG_RELEASE:
        if (mxl_credit_window_on_release (&target->window, &r) == MXL_CREDIT_RELEASED)
          credit_came (init);
        break;
    }
  }
  /* a retired connection's own endpoint may be closed: only a shared one
   * takes receives again */
  if (cc->conn != NULL || cc->shared)
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
    if (c->credit->acked && mxl_credit_window_may_write (&c->credit->window, index)) {
      MxlConnCredit *cc = c->credit;
      guint s = (guint) (index % cc->window.slots.ring);

      cc->reserved = TRUE;
      cc->reserved_index = index;
      cc->prev_index = cc->window.slots.slot_index[s];
      cc->prev_state = cc->window.slots.slot_state[s];
      cc->prev_posted = cc->posted[s];
      /* another grain in the slot: none of its writes posted yet */
      if (cc->prev_state != MXL_CREDIT_SLOT_HELD || cc->prev_index != index)
        cc->posted[s] = 0;
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
  cc->posted[s] = cc->prev_posted;
  cc->reserved = FALSE;
}

/* The slot of @index in @cc's window, when it holds @index. */
static gboolean
holds_index (const MxlConnCredit *cc, uint64_t index, guint *slot)
{
  const MxlCreditHolds *h = &cc->window.slots;

  *slot = (guint) (index % h->ring);
  return h->slot_state[*slot] == MXL_CREDIT_SLOT_HELD && h->slot_index[*slot] == index;
}

void
mxl_conn_credit_posted (MxlConn *conn, uint64_t index)
{
  guint s;

  if (conn->credit != NULL && holds_index (conn->credit, index, &s))
    conn->credit->posted[s] = 1;
}

void
mxl_conn_credit_dropped (MxlConn *conn, uint64_t index, gboolean others)
{
  MxlConnCredit *cc = conn->credit;
  guint s;

  if (cc == NULL || others || !holds_index (cc, index, &s) || cc->posted[s])
    return;
  /* nothing of @index reached the target, which will never release it:
   * the slot is free again (a late release of @index counts as
   * backwards) */
  cc->window.slots.slot_state[s] = MXL_CREDIT_SLOT_FREE;
  if (cc->reserved && cc->reserved_index == index)
    cc->reserved = FALSE;
  conn->credit_returned++;
  credit_came (conn->init);
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
credit_available (MxlInitiator *init, uint64_t target_id, uint64_t index)
{
  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);

    if ((target_id == 0 || c->target_id == target_id)
        && c->credit != NULL && c->state.kind == MXL_CONN_CONNECTED
        && (!c->credit->acked || !mxl_credit_window_may_write (&c->credit->window, index)))
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
    if (credit_available (init, target_id, index)) {
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
       * slices of at most 10 ms (connection timers, announces); a CQ
       * that cannot wait (shm, efa: cq_can_wait) is polled every 1 ms */
      if (init->base.desc->cq_can_wait)
        mxl_initiator_drain_cq (init, (int) MIN ((deadline - now) / 1000 + 1, 10));
      else
        g_usleep (1000);
    }
  }
  mxl_unlock (&init->base.lock);
  return st;
}

#ifdef MXL_TEST_HOOKS
mxlStatus
mxl_initiator_credit_debug_send (MxlInitiator *init, uint64_t target_id, const void *msg,
    size_t len)
{
  MxlConn *conn;
  ssize_t rc = -FI_ENOTCONN;

  mxl_lock (&init->base.lock);
  conn = mxl_initiator_find_conn (init, target_id);
  if (conn != NULL && conn->credit != NULL && conn->credit->rdm
      && conn->state.kind == MXL_CONN_CONNECTED)
    rc = fi_inject (conn->credit->ep, msg, len, conn->state.u.connected.addr);
  mxl_unlock (&init->base.lock);
  return rc == 0 ? MXL_STATUS_OK : rc == -FI_ENOTCONN ? MXL_ERR_INVALID_STATE
      : MXL_ERR_UNKNOWN;
}
#endif

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
  out->creditReservationsReturned = conn->credit_returned;
}
