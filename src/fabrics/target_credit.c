/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The target's side of the credit extension (src/fabrics/wire/credit.h,
 * docs/fabrics-engine.md "Credits"): which grain each slot holds from the
 * read that returned it until the reader releases it, and the release
 * messages, sent with fi_inject(3) on the connection of the initiator
 * that announced itself (its connection request, target_rc.c). Its own
 * lock: releases come from any thread (a src freeing buffers), the peer
 * changes in the reading or progress thread, which may hold t->base.lock.
 */
#include "fabrics/target.h"

#include <string.h>

#include "fabrics/wire/credit.h"

struct MxlTargetCredit {
  GMutex lock;
  MxlCreditHolds holds;
  struct fid_ep *ep;             /* the connection, or NULL */
  uint64_t peer_id;              /* the id it announced, 0 = none */
  uint64_t sent, unsent;
};

void
mxl_target_credit_setup (MxlTarget *t)
{
  MxlTargetCredit *c;

  if (!t->base.options.credits || t->base.continuous
      || t->base.desc->ep_type != FI_EP_MSG || !(t->base.dom->info->caps & FI_SEND))
    return;
  c = g_new0 (MxlTargetCredit, 1);
  if (mxl_credit_holds_init (&c->holds, t->base.grain_count) != MXL_STATUS_OK) {
    g_free (c);
    return;
  }
  g_mutex_init (&c->lock);
  t->credit = c;
}

void
mxl_target_credit_free (MxlTarget *t)
{
  MxlTargetCredit *c = t->credit;

  if (c == NULL)
    return;
  mxl_credit_holds_clear (&c->holds);
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
  g_mutex_unlock (&c->lock);
}

void
mxl_target_credit_read (MxlTarget *t, uint64_t index)
{
  MxlTargetCredit *c = t->credit;

  if (c == NULL)
    return;
  g_mutex_lock (&c->lock);
  mxl_credit_holds_commit (&c->holds, index);
  g_mutex_unlock (&c->lock);
}

mxlStatus
mxl_target_release_grain (MxlTarget *t, uint64_t index)
{
  MxlTargetCredit *c = t->credit;
  MxlCreditRelease r;
  uint8_t msg[MXL_CREDIT_RELEASE_SIZE];
  mxlStatus st;
  ssize_t rc = -FI_ENOTCONN;

  if (c == NULL)
    return MXL_ERR_INVALID_STATE;
  g_mutex_lock (&c->lock);
  st = mxl_credit_holds_release (&c->holds, index);
  if (st == MXL_STATUS_OK && c->ep != NULL && c->peer_id != 0) {
    r.initiator_id = c->peer_id;
    r.index = index;
    mxl_credit_release_encode (&r, msg);
    /* fi_inject(3): the buffer is free on return, no completion. A full
     * transmit queue is retried briefly (bounded: 100 tries, 2 ms). */
    for (guint i = 0; i < 100; i++) {
      rc = fi_inject (c->ep, msg, sizeof msg, 0);
      if (rc != -FI_EAGAIN)
        break;
      g_usleep (20);
    }
  }
  if (st == MXL_STATUS_OK) {
    if (rc == 0)
      c->sent++;
    else
      c->unsent++;
    if (rc != 0 && rc != -FI_ENOTCONN)
      g_debug ("target %" G_GUINT64_FORMAT ": release of grain %" G_GUINT64_FORMAT
          " not sent: %s", t->id, index, fi_strerror ((int) -rc));
  }
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
  rc = fi_inject (c->ep, msg, len, 0);
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
  g_mutex_unlock (&c->lock);
}
