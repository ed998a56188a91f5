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

/* A batch a submit reserved entries for, which the fan-out has not
 * queued yet (samples). */
typedef struct MxlCreditBatch {
  uint64_t head;
  guint pieces;
} MxlCreditBatch;

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
  /* samples (mxl_samples_credit_ops): the credit index of the next entry
   * the fan-out writes, the entries submits reserved that the fan-out has
   * not queued yet (@batches, oldest first, at most one per entry), and
   * per entry the transfer seq written into it */
  uint64_t next_entry, promised;
  MxlCreditBatch *batches;
  guint b_head, b_len;
  uint64_t *seq_of;
  gboolean have_last_head;
  uint64_t last_head;
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
  if (!mxl_credit_version_usable (conn->info->credits)
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
  g_free (cc->batches);
  cc->batches = g_new0 (MxlCreditBatch, conn->info->n_regions);
  g_free (cc->seq_of);
  cc->seq_of = g_new0 (uint64_t, conn->info->n_regions);
  cc->next_entry = cc->promised = 0;
  cc->b_head = cc->b_len = 0;
  cc->have_last_head = FALSE;
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
  g_free (cc->batches);
  g_free (cc->seq_of);
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
  g_clear_pointer (&cc->batches, g_free);
  g_clear_pointer (&cc->seq_of, g_free);
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

/* ------------------------------------------------------------ grains */

static gboolean
grain_reserve (MxlConn *c, const MxlPostDesc *desc)
{
  MxlConnCredit *cc = c->credit;
  uint64_t index = desc->index;
  guint s;

  if (!cc->acked || !mxl_credit_window_may_write (&cc->window, index))
    return FALSE;
  s = (guint) (index % cc->window.slots.ring);
  cc->reserved = TRUE;
  cc->reserved_index = index;
  cc->prev_index = cc->window.slots.slot_index[s];
  cc->prev_state = cc->window.slots.slot_state[s];
  cc->prev_posted = cc->posted[s];
  /* another grain in the slot: none of its writes posted yet */
  if (cc->prev_state != MXL_CREDIT_SLOT_HELD || cc->prev_index != index)
    cc->posted[s] = 0;
  mxl_credit_window_note_written (&cc->window, index);
  return TRUE;
}

static void
grain_unreserve (MxlConn *conn, uint64_t index)
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

static void
grain_undo (MxlConn *conn, const MxlPostDesc *desc)
{
  grain_unreserve (conn, desc->index);
}

static void
grain_unqueued (MxlConn *conn, const MxlTracked *what)
{
  grain_unreserve (conn, what->grain_index);
}

static void
grain_queued (MxlConn *conn, const MxlTracked *what, uint64_t first_seq)
{
  (void) conn;
  (void) what;
  (void) first_seq;
}

/* The slot of @index in @cc's window, when it holds @index. */
static gboolean
holds_index (const MxlConnCredit *cc, uint64_t index, guint *slot)
{
  const MxlCreditHolds *h = &cc->window.slots;

  *slot = (guint) (index % h->ring);
  return h->slot_state[*slot] == MXL_CREDIT_SLOT_HELD && h->slot_index[*slot] == index;
}

static gboolean
grain_slot_of (const MxlConnCredit *cc, const MxlTracked *tr, guint *slot)
{
  return holds_index (cc, tr->grain_index, slot);
}

/* Slot @s of @conn's window is free again: nothing of what it held
 * reached the target, which will never release it (a late release counts
 * as backwards). */
static void
give_back (MxlConn *conn, guint s)
{
  conn->credit->window.slots.slot_state[s] = MXL_CREDIT_SLOT_FREE;
  conn->credit_returned++;
  credit_came (conn->init);
}

static void
grain_dropped (MxlConn *conn, const MxlTracked *tr, gboolean others)
{
  MxlConnCredit *cc = conn->credit;
  guint s;

  if (others || !grain_slot_of (cc, tr, &s) || cc->posted[s])
    return;
  if (cc->reserved && cc->reserved_index == tr->grain_index)
    cc->reserved = FALSE;
  give_back (conn, s);
}

static gboolean
grain_skips (MxlConn *conn, const MxlTracked *what)
{
  const MxlCreditHolds *h = &conn->credit->window.slots;
  guint s = (guint) (what->grain_index % h->ring);

  return h->slot_state[s] != MXL_CREDIT_SLOT_HELD || h->slot_index[s] != what->grain_index;
}

static gboolean
grain_available (MxlConn *conn, uint64_t index)
{
  return conn->credit->acked && mxl_credit_window_may_write (&conn->credit->window, index);
}

const MxlCreditOps mxl_grain_credit_ops = {
  .reserve = grain_reserve,
  .undo = grain_undo,
  .skips = grain_skips,
  .unqueued = grain_unqueued,
  .queued = grain_queued,
  .slot_of = grain_slot_of,
  .dropped = grain_dropped,
  .available = grain_available,
};

/* ----------------------------------------------------------- samples */

/* Entries @from .. @from + @n - 1 of @cc's window may all be written. */
static gboolean
entries_free (const MxlConnCredit *cc, uint64_t from, uint64_t n)
{
  if (n == 0 || n > cc->window.slots.ring)
    return FALSE;
  for (uint64_t k = 0; k < n; k++)
    if (!mxl_credit_window_may_write (&cc->window, from + k))
      return FALSE;
  return TRUE;
}

/* The batch the fan-out takes next from @cc, or NULL. */
static MxlCreditBatch *
oldest_batch (MxlConnCredit *cc)
{
  return cc->b_len > 0 ? &cc->batches[cc->b_head] : NULL;
}

static void
drop_oldest_batch (MxlConnCredit *cc)
{
  cc->promised -= cc->batches[cc->b_head].pieces;
  cc->b_head = (cc->b_head + 1) % cc->window.slots.ring;
  cc->b_len--;
}

/* A batch of @count samples: the entries after those written and those
 * promised already, when they are free, are promised to it (written only
 * when the fan-out queues the batch, in order, so that no entry is left
 * out: the target counts entries in the order they come,
 * target_credit.c). */
static gboolean
samples_reserve (MxlConn *c, const MxlPostDesc *desc)
{
  MxlConnCredit *cc = c->credit;
  uint64_t pieces = mxl_samples_batch_entries (c, desc->count);
  guint b;

  if (!cc->acked || cc->b_len >= cc->window.slots.ring
      || !entries_free (cc, cc->next_entry + cc->promised, pieces))
    return FALSE;
  b = (cc->b_head + cc->b_len++) % cc->window.slots.ring;
  cc->batches[b].head = desc->index;
  cc->batches[b].pieces = (guint) pieces;
  cc->promised += pieces;
  cc->have_last_head = TRUE;
  cc->last_head = desc->index;
  return TRUE;
}

/* The submit failed: the newest batch promised, if it is @desc's. */
static void
samples_undo (MxlConn *conn, const MxlPostDesc *desc)
{
  MxlConnCredit *cc = conn->credit;
  MxlCreditBatch *b;

  if (cc == NULL || cc->b_len == 0)
    return;
  b = &cc->batches[(cc->b_head + cc->b_len - 1) % cc->window.slots.ring];
  if (b->head != desc->index)
    return;
  cc->promised -= b->pieces;
  cc->b_len--;
}

static gboolean
samples_skips (MxlConn *conn, const MxlTracked *what)
{
  const MxlCreditBatch *b = oldest_batch (conn->credit);

  return b == NULL || b->head != what->grain_index;
}

static void
samples_unqueued (MxlConn *conn, const MxlTracked *what)
{
  MxlConnCredit *cc = conn->credit;
  const MxlCreditBatch *b;

  if (cc != NULL && (b = oldest_batch (cc)) != NULL && b->head == what->grain_index)
    drop_oldest_batch (cc);
}

/* The batch's entries were queued: the window holds them from now on, at
 * the credit indices that follow the last one written and fall on the
 * entries samples_queue() took (the same ones unless a re-added target
 * restarted its entry counter). */
static void
samples_queued (MxlConn *conn, const MxlTracked *what, uint64_t first_seq)
{
  MxlConnCredit *cc = conn->credit;
  guint ring, pieces;
  uint64_t first_entry, first;
  const MxlCreditBatch *b;

  if (cc == NULL || (b = oldest_batch (cc)) == NULL || b->head != what->grain_index)
    return;
  ring = cc->window.slots.ring;
  pieces = b->pieces;
  drop_oldest_batch (cc);
  first_entry = (mxl_samples_next_entry (conn) + ring - pieces % ring) % ring;
  first = cc->next_entry + (first_entry + ring - cc->next_entry % ring) % ring;
  for (guint k = 0; k < pieces; k++) {
    guint s = (guint) ((first + k) % ring);

    mxl_credit_window_note_written (&cc->window, first + k);
    cc->posted[s] = 0;
    cc->seq_of[s] = first_seq + k;
  }
  cc->next_entry = first + pieces;
}

/* The entry transfer @tr was written into, while the window holds it. */
static gboolean
entry_of_seq (const MxlConnCredit *cc, const MxlTracked *tr, guint *slot)
{
  for (guint s = 0; s < cc->window.slots.ring; s++)
    if (cc->seq_of[s] == tr->seq && cc->window.slots.slot_state[s] == MXL_CREDIT_SLOT_HELD) {
      *slot = s;
      return TRUE;
    }
  return FALSE;
}

static void
samples_dropped (MxlConn *conn, const MxlTracked *tr, gboolean others)
{
  guint s;

  (void) others;             /* one transfer per entry */
  if (entry_of_seq (conn->credit, tr, &s) && !conn->credit->posted[s])
    give_back (conn, s);
}

static gboolean
samples_available (MxlConn *conn, uint64_t index)
{
  MxlConnCredit *cc = conn->credit;
  uint64_t pieces = 1;

  if (cc->have_last_head && index > cc->last_head)
    pieces = MAX (mxl_samples_batch_entries (conn, index - cc->last_head), 1);
  return cc->acked && cc->b_len < cc->window.slots.ring
      && entries_free (cc, cc->next_entry + cc->promised, pieces);
}

const MxlCreditOps mxl_samples_credit_ops = {
  .reserve = samples_reserve,
  .undo = samples_undo,
  .skips = samples_skips,
  .unqueued = samples_unqueued,
  .queued = samples_queued,
  .slot_of = entry_of_seq,
  .dropped = samples_dropped,
  .available = samples_available,
};

/* ------------------------------------------------- through the ops */

void
mxl_conn_credit_posted (MxlConn *conn, const MxlTracked *tr)
{
  guint s;

  if (conn->credit != NULL && conn->init->credit_ops->slot_of (conn->credit, tr, &s))
    conn->credit->posted[s] = 1;
}

void
mxl_conn_credit_after_queue (MxlConn *conn, const MxlTracked *what, gboolean queued,
    uint64_t first_seq)
{
  if (conn->credit == NULL)
    return;
  if (queued)
    conn->init->credit_ops->queued (conn, what, first_seq);
  else
    conn->init->credit_ops->unqueued (conn, what);
}

/* Reserves @desc on every connected target with credits that has room
 * for it; counts the others in their grains_no_credit. Returns: how many
 * had none; @with_credit: how many took it. */
static guint
reserve (MxlInitiator *init, const MxlPostDesc *desc, guint *with_credit)
{
  guint missing = 0;

  *with_credit = 0;
  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);

    if (c->credit == NULL || c->state.kind != MXL_CONN_CONNECTED)
      continue;
    if (init->credit_ops->reserve (c, desc))
      (*with_credit)++;
    else {
      c->grains_no_credit++;
      missing++;
    }
  }
  return missing;
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
  missing = reserve (init, desc, &with_credit);
  none = missing > 0 && with_credit == 0 && missing == init->stats.targetsConnected;
  mxl_unlock (&init->base.lock);
  if (none)
    return MXL_ERR_NOT_READY;    /* no target can take it: nothing posted */
  st = init->mode->submit (init, desc);
  if (st != MXL_STATUS_OK && with_credit > 0) {
    mxl_lock (&init->base.lock);
    for (guint i = 0; i < init->conns->len; i++) {
      MxlConn *c = g_ptr_array_index (init->conns, i);

      if (c->credit != NULL)
        init->credit_ops->undo (c, desc);
    }
    mxl_unlock (&init->base.lock);
  }
  return st == MXL_STATUS_OK && missing > 0 ? MXL_ERR_NOT_READY : st;
}

gboolean
mxl_conn_credit_skips (MxlConn *conn, const MxlTracked *what)
{
  return conn->credit != NULL && conn->init->credit_ops->skips (conn, what);
}

/* Every connected target with credits (or @target_id only, when not 0)
 * can take @index. */
static gboolean
credit_available (MxlInitiator *init, uint64_t target_id, uint64_t index)
{
  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);

    if ((target_id == 0 || c->target_id == target_id)
        && c->credit != NULL && c->state.kind == MXL_CONN_CONNECTED
        && !init->credit_ops->available (c, index))
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

  if (!init->base.setup_done)
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
