/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The target's side of the credit extension (src/fabrics/wire/credit.h,
 * docs/fabrics-engine.md "Credits"): which grain each slot holds from the
 * read that returned it until the reader releases it (audio: each bounce
 * entry, released as soon as its completion was consumed, TargetCreditOps
 * below), and the release messages, sent with fi_inject(3) to the initiator that announced
 * itself: on a connected endpoint its connection request named it
 * (target_rc.c); on a connectionless one (target_rdm.c) its announce
 * message, which lands in receives posted here, gives its id and address
 * (inserted into the target's AV) and is acknowledged with an announce
 * carrying no address. Its own lock: releases come from any thread (a src
 * freeing buffers), the peer changes in the reading or progress thread,
 * which may hold t->base.lock.
 */
#include "fabrics/target.h"

#include <string.h>

#include "fabrics/ofi/address.h"
#include "fabrics/wire/credit.h"

/* connectionless: receives posted for announces, each one message */
#define MXL_CREDIT_ANNOUNCE_RECVS 4u
#define MXL_CREDIT_ANNOUNCE_BUF (MXL_CREDIT_ANNOUNCE_HEADER + MXL_CREDIT_ADDR_MAX)

/* What a slot of the holds is, chosen at setup with the flow: a grain
 * slot, which ReadGrain fills and the application empties
 * (ReleaseGrain), or a bounce entry, which the target fills and empties
 * itself when it committed the entry's samples into the flow. */
typedef struct TargetCreditOps {
  /* ReadGrain / ReadSamples returned @index (takes c->lock if it needs it) */
  void (*read) (MxlTarget *t, MxlTargetCredit *c, uint64_t index);
  /* a completion of bounce entry @entry was consumed (the same) */
  void (*entry_done) (MxlTarget *t, MxlTargetCredit *c, uint64_t entry);
  /* mxlFabricsExtTargetReleaseGrain() applies */
  gboolean app_releases;
} TargetCreditOps;

struct MxlTargetCredit {
  GMutex lock;
  const TargetCreditOps *ops;
  MxlCreditHolds holds;
  /* bounce entries: the credit index of the last entry consumed since the
   * peer announced itself (have_last FALSE: none yet) */
  gboolean have_last;
  uint64_t last;
  struct fid_ep *ep;             /* the connection (RC) or the endpoint
                                    (RDM) releases go out on, or NULL */
  fi_addr_t addr;                /* RDM: the peer in @av; RC: 0 (ignored) */
  uint64_t peer_id;              /* the id it announced, 0 = none */
  uint64_t sent, unsent, announces_bad;
  /* connectionless only (rdm set): the receives announces land in */
  gboolean rdm;
  struct fid_av *av;             /* the target endpoint's AV */
  struct fid_ep *rx_ep;          /* @rx posted on it, NULL = none */
  uint8_t bufs[MXL_CREDIT_ANNOUNCE_RECVS][MXL_CREDIT_ANNOUNCE_BUF];
  MxlOfiRegion region;           /* @bufs, FI_RECV */
  struct fi_context2 rx[MXL_CREDIT_ANNOUNCE_RECVS];
};

static void send_release (MxlTarget *t, MxlTargetCredit *c, uint64_t index);

static void
grain_read (MxlTarget *t, MxlTargetCredit *c, uint64_t index)
{
  (void) t;
  g_mutex_lock (&c->lock);
  mxl_credit_holds_commit (&c->holds, index);
  g_mutex_unlock (&c->lock);
}

static void
grain_entry_done (MxlTarget *t, MxlTargetCredit *c, uint64_t entry)
{
  (void) t;
  (void) c;
  (void) entry;
}

static const TargetCreditOps grain_credit_ops = {
  .read = grain_read,
  .entry_done = grain_entry_done,
  .app_releases = TRUE,
};

static void
entry_read (MxlTarget *t, MxlTargetCredit *c, uint64_t index)
{
  (void) t;
  (void) c;
  (void) index;
}

/* Bounce entry @entry was consumed (its samples committed into the flow,
 * or the entry refused): released at once. Its credit index is the first
 * one after the last consumed that falls on @entry (the initiator writes
 * entries in order, each only once the target released what it held
 * before, and may leave out fewer than entryCount in a row); the first
 * entry after the announce is its own index. Without an announced peer
 * (a reference initiator, or one without credits) nothing is kept. */
static void
entry_done (MxlTarget *t, MxlTargetCredit *c, uint64_t entry)
{
  guint ring = c->holds.ring;
  uint64_t index;

  if (entry >= ring)
    return;
  g_mutex_lock (&c->lock);
  if (c->peer_id == 0) {
    g_mutex_unlock (&c->lock);
    return;
  }
  if (!c->have_last)
    index = entry;
  else {
    uint64_t d = (entry + ring - c->last % ring) % ring;

    index = c->last + (d == 0 ? ring : d);
  }
  c->have_last = TRUE;
  c->last = index;
  mxl_credit_holds_commit (&c->holds, index);
  if (mxl_credit_holds_release (&c->holds, index) == MXL_STATUS_OK)
    send_release (t, c, index);
  g_mutex_unlock (&c->lock);
}

static const TargetCreditOps entry_credit_ops = {
  .read = entry_read,
  .entry_done = entry_done,
  .app_releases = FALSE,
};

void
mxl_target_credit_setup (MxlTarget *t)
{
  MxlTargetCredit *c;
  uint64_t entries = 0, entry_size = 0;

  g_autoptr (GError) error = NULL;
  gboolean rdm = t->base.desc->ep_type == FI_EP_RDM;

  if (!t->base.options.credits
      || (t->base.desc->ep_type != FI_EP_MSG && !rdm)
      || !(t->base.dom->info->caps & FI_SEND))
    return;
  /* Connectionless: announces are received, so neither FI_RECV may be
   * missing nor may the protocol post untagged receives of its own
   * (send, tagged, write on FI_RX_CQ_DATA providers) that would take
   * them. */
  if (rdm && (!(t->base.dom->info->caps & FI_RECV) || t->pstate != NULL))
    return;
  /* a continuous flow's holds are its bounce entries */
  if (t->base.continuous)
    mxl_samples_target_entries (t, &entries, &entry_size);
  c = g_new0 (MxlTargetCredit, 1);
  c->ops = t->base.continuous ? &entry_credit_ops : &grain_credit_ops;
  if (entries > MXL_CREDIT_RING_MAX
      || mxl_credit_holds_init (&c->holds, t->base.continuous ? (guint) entries
          : t->base.grain_count) != MXL_STATUS_OK) {
    g_free (c);
    return;
  }
  c->rdm = rdm;
  if (rdm && mxl_ofi_region_register (t->base.dom, c->bufs, sizeof c->bufs, FI_RECV,
          &c->region, &error) != MXL_STATUS_OK) {
    g_warning ("target %" G_GUINT64_FORMAT ": credits not offered: %s", t->id,
        error->message);
    mxl_credit_holds_clear (&c->holds);
    g_free (c);
    return;
  }
  g_mutex_init (&c->lock);
  t->credit = c;
}

static gboolean
post_announce_recv (MxlTargetCredit *c, guint i)
{
  ssize_t rc = fi_recv (c->rx_ep, c->bufs[i], MXL_CREDIT_ANNOUNCE_BUF, c->region.desc,
      FI_ADDR_UNSPEC, &c->rx[i]);

  if (rc != 0)
    g_warning ("target: credit announce receive: %s", fi_strerror ((int) -rc));
  return rc == 0;
}

mxlStatus
mxl_target_credit_open_rdm (MxlTarget *t, struct fid_ep *ep, struct fid_av *av)
{
  MxlTargetCredit *c = t->credit;

  if (c == NULL || !c->rdm)
    return MXL_STATUS_OK;
  c->av = av;
  c->rx_ep = ep;
  for (guint i = 0; i < MXL_CREDIT_ANNOUNCE_RECVS; i++)
    if (!post_announce_recv (c, i)) {
      /* not advertised: the target works without credits */
      c->rx_ep = NULL;
      mxl_target_credit_free (t);
      return MXL_STATUS_OK;
    }
  return MXL_STATUS_OK;
}

void
mxl_target_credit_close_rdm (MxlTarget *t)
{
  MxlTargetCredit *c = t->credit;

  if (c == NULL || !c->rdm)
    return;
  g_mutex_lock (&c->lock);
  c->ep = c->rx_ep = NULL;
  c->peer_id = 0;
  c->av = NULL;
  g_mutex_unlock (&c->lock);
}

/* Which announce receive @op_context is, or -1. */
static gint
announce_index (const MxlTargetCredit *c, const void *op_context)
{
  return mxl_rx_context_index (op_context, c->rx, MXL_CREDIT_ANNOUNCE_RECVS);
}

/* Sends the acknowledgement of announce @id (an announce without address)
 * to @addr; lost or refused, the initiator announces again. */
static void
send_ack (MxlTargetCredit *c, uint64_t id)
{
  MxlCreditAnnounce ack = { .initiator_id = id, .addr_len = 0 };
  uint8_t msg[MXL_CREDIT_ANNOUNCE_HEADER];
  size_t len = mxl_credit_announce_encode (&ack, msg, sizeof msg);
  ssize_t rc = fi_inject (c->ep, msg, len, c->addr);

  if (rc != 0)
    g_debug ("target: credit announce of %" G_GUINT64_FORMAT " not acknowledged: %s",
        id, fi_strerror ((int) -rc));
}

/* A valid announce from the network: its initiator becomes the peer
 * (another id replaces the one before, every slot free again; the same
 * id is acknowledged again). Called with c->lock held. */
static void
on_announce (MxlTarget *t, MxlTargetCredit *c, const MxlCreditAnnounce *a)
{
  fi_addr_t addr = FI_ADDR_NOTAVAIL;
  char *alias = NULL;
  int rc;

  if (a->initiator_id == c->peer_id && c->ep != NULL) {
    send_ack (c, a->initiator_id);
    return;
  }
  /* A shm peer of this process through its own mapping of the region,
   * which its close unmaps (docs/libfabric-notes.md P17). */
  if (mxl_provider_has_quirk (t->base.desc, MXL_PROVIDER_QUIRK_LOCAL_PEER_SHARED))
    alias = mxl_shm_address_separate_mapping (a->addr, a->addr_len);
  if (alias == NULL && a->addr_len > 0 && t->base.dom->info->addr_format == FI_ADDR_STR
      && a->addr[a->addr_len - 1] != '\0')
    rc = -FI_EINVAL;           /* a string address must end in its NUL */
  else
    rc = fi_av_insert (c->av, alias != NULL ? (const void *) alias : a->addr, 1, &addr,
        0, NULL);
  g_free (alias);
  if (rc != 1) {
    c->announces_bad++;
    g_debug ("target %" G_GUINT64_FORMAT ": credit announce with an address the AV "
        "refused (%d)", t->id, rc);
    return;
  }
  /* The peer before it is not removed from the AV: on shm that corrupts
   * the endpoint (docs/libfabric-notes.md); one entry per initiator id. */
  c->ep = c->rx_ep;
  c->addr = addr;
  c->peer_id = a->initiator_id;
  memset (c->holds.slot_state, 0, c->holds.ring);
  c->have_last = FALSE;
  send_ack (c, a->initiator_id);
}

size_t
mxl_target_credit_take (MxlTarget *t, struct fi_cq_data_entry *batch, size_t len)
{
  MxlTargetCredit *c = t->credit;
  size_t kept = 0;

  if (c == NULL || !c->rdm || c->rx_ep == NULL)
    return len;
  for (size_t i = 0; i < len; i++) {
    gint k = announce_index (c, batch[i].op_context);
    MxlCreditAnnounce a;

    if (k < 0) {
      batch[kept++] = batch[i];
      continue;
    }
    g_mutex_lock (&c->lock);
    /* untrusted: length, magic, version, address length (credit.c) */
    if (batch[i].len > MXL_CREDIT_ANNOUNCE_BUF
        || !mxl_credit_announce_decode (c->bufs[k], batch[i].len, &a)
        || a.addr_len == 0)
      c->announces_bad++;
    else
      on_announce (t, c, &a);
    g_mutex_unlock (&c->lock);
    post_announce_recv (c, (guint) k);
  }
  return kept;
}

gboolean
mxl_target_credit_receive_failed (MxlTarget *t, void *op_context, int err)
{
  MxlTargetCredit *c = t->credit;
  gint k;

  if (c == NULL || !c->rdm || c->rx_ep == NULL
      || (k = announce_index (c, op_context)) < 0)
    return FALSE;
  if (err == FI_ECANCELED)
    return TRUE;
  g_mutex_lock (&c->lock);
  c->announces_bad++;          /* longer than any announce: truncated */
  g_mutex_unlock (&c->lock);
  post_announce_recv (c, (guint) k);
  return TRUE;
}

void
mxl_target_credit_free (MxlTarget *t)
{
  MxlTargetCredit *c = t->credit;

  if (c == NULL)
    return;
  mxl_credit_holds_clear (&c->holds);
  if (c->rdm)
    mxl_ofi_region_close (t->base.dom, &c->region);
  g_mutex_clear (&c->lock);
  g_free (c);
  t->credit = NULL;
}

void
mxl_target_credit_fill_info (const MxlTarget *t, struct mxlFabricsTargetInfo_t *info)
{
  if (t->credit != NULL)
    info->credits = MXL_CREDIT_VERSION;
}

void
mxl_target_credit_peer (MxlTarget *t, struct fid_ep *ep, uint64_t credit_id)
{
  MxlTargetCredit *c = t->credit;

  if (c == NULL)
    return;
  g_mutex_lock (&c->lock);
  c->ep = ep;
  c->peer_id = ep != NULL ? credit_id : 0;
  /* a new initiator starts with every slot free (its window is new) */
  if (ep != NULL)
    memset (c->holds.slot_state, 0, c->holds.ring);
  c->have_last = FALSE;
  g_mutex_unlock (&c->lock);
}

void
mxl_target_credit_read (MxlTarget *t, uint64_t index)
{
  MxlTargetCredit *c = t->credit;

  if (c == NULL)
    return;
  c->ops->read (t, c, index);
}

void
mxl_target_credit_entry (MxlTarget *t, uint64_t entry)
{
  MxlTargetCredit *c = t->credit;

  if (c == NULL)
    return;
  c->ops->entry_done (t, c, entry);
}

/* Sends the release of @index to the peer, if any (c->lock held), and
 * counts it: sent, or unsent. */
static void
send_release (MxlTarget *t, MxlTargetCredit *c, uint64_t index)
{
  MxlCreditRelease r;
  uint8_t msg[MXL_CREDIT_RELEASE_SIZE];
  ssize_t rc = -FI_ENOTCONN;

  if (c->ep != NULL && c->peer_id != 0) {
    r.initiator_id = c->peer_id;
    r.index = index;
    mxl_credit_release_encode (&r, msg);
    /* fi_inject(3): the buffer is free on return, no completion. A full
     * transmit queue is retried briefly (bounded: 100 tries, 2 ms). */
    for (guint i = 0; i < 100; i++) {
      rc = fi_inject (c->ep, msg, sizeof msg, c->addr);
      if (rc != -FI_EAGAIN)
        break;
      g_usleep (20);
    }
  }
  if (rc == 0)
    c->sent++;
  else
    c->unsent++;
  if (rc != 0 && rc != -FI_ENOTCONN)
    g_debug ("target %" G_GUINT64_FORMAT ": release of %" G_GUINT64_FORMAT
        " not sent: %s", t->id, index, fi_strerror ((int) -rc));
}

mxlStatus
mxl_target_release_grain (MxlTarget *t, uint64_t index)
{
  MxlTargetCredit *c = t->credit;
  mxlStatus st;

  /* none, or bounce entries, which the target releases itself */
  if (c == NULL || !c->ops->app_releases)
    return MXL_ERR_INVALID_STATE;
  g_mutex_lock (&c->lock);
  st = mxl_credit_holds_release (&c->holds, index);
  if (st == MXL_STATUS_OK)
    send_release (t, c, index);
  g_mutex_unlock (&c->lock);
  return st;
}

mxlStatus
mxl_target_credit_announced (MxlTarget *t, bool *out_announced)
{
  MxlTargetCredit *c = t->credit;

  if (c == NULL)
    return MXL_ERR_INVALID_STATE;
  g_mutex_lock (&c->lock);
  *out_announced = c->ep != NULL && c->peer_id != 0;
  g_mutex_unlock (&c->lock);
  return MXL_STATUS_OK;
}

#ifdef MXL_TEST_HOOKS
mxlStatus
mxl_target_credit_debug_send (MxlTarget *t, const void *msg, size_t len)
{
  MxlTargetCredit *c = t->credit;
  ssize_t rc;

  if (c == NULL || c->ep == NULL)
    return MXL_ERR_INVALID_STATE;
  g_mutex_lock (&c->lock);
  rc = c->ep != NULL ? fi_inject (c->ep, msg, len, c->addr) : -FI_ENOTCONN;
  g_mutex_unlock (&c->lock);
  return rc == 0 ? MXL_STATUS_OK : MXL_ERR_UNKNOWN;
}

uint64_t
mxl_target_credit_debug_peer_id (MxlTarget *t)
{
  return t->credit != NULL ? t->credit->peer_id : 0;
}
#endif

void
mxl_target_credit_stats (MxlTarget *t, mxlFabricsExtTargetStats *out)
{
  MxlTargetCredit *c = t->credit;

  if (c == NULL)
    return;
  g_mutex_lock (&c->lock);
  out->creditReleasesSent = c->sent;
  out->creditReleasesUnsent = c->unsent;
  out->creditAnnouncesBad = c->announces_bad;
  g_mutex_unlock (&c->lock);
}
