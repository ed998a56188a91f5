/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Connected (FI_EP_MSG) target: tcp, verbs (docs/wire-format.md §6.3), with two
 * departures from the reference that keep a published TargetInfo valid:
 * the passive endpoint keeps listening while an initiator is connected
 * (further requests are rejected, not left unanswered), and after the
 * initiator goes away the target returns to listening on the same address
 * and accepts the next one. A request from the initiator that holds the
 * connection (the same claim token, src/fabrics/wire/claim.h) replaces it:
 * that initiator has left its old connection (it reconnects after a loss
 * the target has not seen yet, e.g. while the target was stopped), which
 * would otherwise refuse it as a second sender (docs/wire-format.md §6.3).
 */
#include "fabrics/target.h"

#include <string.h>

typedef enum MxlRcKind {
  MXL_RC_LISTENING,
  MXL_RC_ACCEPTING,
  MXL_RC_CONNECTED,
} MxlRcKind;

/** RC target state: a tagged union. The passive endpoint stays open in
 * every state, so the address (and port) in the TargetInfo stays valid. */
typedef struct MxlRcState {
  MxlRcKind kind;
  uint64_t token;    /* accepting, connected: the initiator's claim token
                        (its connection request's private data), 0 = none */
  uint64_t credit_id; /* accepting, connected: the credit id it announced
                        (target_credit.c), 0 = none */
  union {
    struct { struct fid_ep *ep; gint64 since; } accepting;
    struct { struct fid_ep *ep; } connected;
  } u;
} MxlRcState;

typedef enum MxlRcInputKind {
  RC_IN_CONNREQ,       /* @info: a connection request */
  RC_IN_CONNECTED,     /* @fid: FI_CONNECTED */
  RC_IN_SHUTDOWN,      /* @fid: FI_SHUTDOWN */
  RC_IN_ERROR,         /* @fid: EQ error entry */
  RC_IN_TICK,          /* time passes (accept timeout) */
  RC_IN_LISTEN,        /* the passive endpoint listens (open) */
  RC_IN_CLOSE,         /* the target closes: the endpoint in use goes */
} MxlRcInputKind;

typedef struct MxlRcInput {
  MxlRcInputKind kind;
  struct fid *fid;
  struct fi_info *info;
  uint64_t token;      /* CONNREQ: the initiator's claim token, 0 = none */
  uint64_t credit_id;  /* CONNREQ: its credit announce, 0 = none */
  gboolean has_target_check;     /* CONNREQ: @target_check was sent */
  uint32_t target_check;         /* CONNREQ: the target it means */
  int err;
} MxlRcInput;

/* The connected target's own state (t->type_state): the passive endpoint
 * and the connection state, from open until close. */
typedef struct MxlRcTarget {
  MxlTargetTypeState base;
  struct fid_eq *eq;           /* the passive endpoint's and connections' */
  struct fid_pep *pep;
  MxlRcState rc;
  /* the tokens of initiators already counted as refused (claim.h: only
   * its refused list is used; the claim region is connectionless) */
  MxlClaimTarget refused;
} MxlRcTarget;

static MxlRcTarget *
rc_target (MxlTarget *t)
{
  return mxl_container_of (t->type_state, MxlRcTarget, base);
}

static mxlFabricsExtConnectionState
public_state (const MxlRcState *s)
{
  switch (s->kind) {
    case MXL_RC_LISTENING:
      return MXL_FABRICS_EXT_STATE_LISTENING;
    case MXL_RC_ACCEPTING:
      return MXL_FABRICS_EXT_STATE_CONNECTING;
    case MXL_RC_CONNECTED:
      return MXL_FABRICS_EXT_STATE_CONNECTED;
  }
  return MXL_FABRICS_EXT_STATE_IDLE;
}

static struct fid_ep *
state_ep (const MxlRcState *s)
{
  switch (s->kind) {
    case MXL_RC_ACCEPTING:
      return s->u.accepting.ep;
    case MXL_RC_CONNECTED:
      return s->u.connected.ep;
    case MXL_RC_LISTENING:
      break;
  }
  return NULL;
}

/* Why a request is refused, said in the reject's private data so that our
 * initiator can tell it from a target that is not there. */
typedef enum {
  REJECT_FAILED,       /* no data: the endpoint could not be set up */
  REJECT_BUSY,         /* MXL_REJECT_BUSY: an initiator is connected */
  REJECT_OTHER,        /* MXL_REJECT_OTHER_TARGET: it names another target */
} MxlRejectWhy;

static void
reject (MxlTarget *t, const MxlRcInput *in, MxlRejectWhy why)
{
  struct fi_info *info = in->info;
  gboolean busy = why == REJECT_BUSY;
  const char *data = busy ? MXL_REJECT_BUSY
      : why == REJECT_OTHER ? MXL_REJECT_OTHER_TARGET : NULL;
  int rc = fi_reject (rc_target (t)->pep, info->handle, data, data ? strlen (data) + 1 : 0);
  if (rc != 0)
    g_debug ("fi_reject: %s", fi_strerror (-rc));
  t->stats.connectionsRejected++;
  /* Counted once per initiator (its retries carry the same token). */
  if (busy && mxl_claim_note_refused (&rc_target (t)->refused, in->token)) {
    t->stats.initiatorsRefused++;
    g_debug ("target %" G_GUINT64_FORMAT ": a second initiator refused (this "
        "target has one)", t->id);
  }
}

/* Endpoint for an incoming request, bound and accepted. */
static struct fid_ep *
accept_request (MxlTarget *t, struct fi_info *info)
{
  static const uint8_t accept_data[1] = { 0 };   /* docs/wire-format.md §6.2 */
  g_autoptr (GError) error = NULL;
  struct fid_ep *ep = NULL;
  int rc;

  rc = fi_endpoint (t->base.dom->domain, info, &ep, NULL);
  if (rc != 0) {
    g_warning ("fi_endpoint: %s", fi_strerror (-rc));
    return NULL;
  }
  if ((rc = fi_ep_bind (ep, &rc_target (t)->eq->fid, 0)) != 0
      || mxl_target_bind_cq (t, ep, &error) != MXL_STATUS_OK
      || (rc = fi_enable (ep)) != 0
      || (rc = fi_accept (ep, accept_data, sizeof (accept_data))) != 0) {
    g_warning ("accepting a connection failed: %s",
        error ? error->message : fi_strerror (-rc));
    mxl_ofi_close (&ep->fid, "ep");
    return NULL;
  }
  return ep;
}

/* The one transition function of the RC target state. */
static void
rc_transition (MxlTarget *t, const MxlRcInput *in)
{
  MxlRcTarget *r = rc_target (t);
  MxlRcState next = r->rc;
  mxlStatus reason = MXL_STATUS_OK;
  struct fid_ep *ep = state_ep (&r->rc);
  gboolean for_us = in->fid != NULL && ep != NULL && in->fid == &ep->fid;

  switch (in->kind) {
    case RC_IN_LISTEN:
    case RC_IN_CLOSE:
      /* set up and torn down without an event: nobody reads them then */
      mxl_target_credit_peer (t, NULL, 0);
      if (in->kind == RC_IN_CLOSE && ep != NULL)
        mxl_ofi_close (&ep->fid, "ep");
      memset (&r->rc, 0, sizeof (r->rc));
      r->rc.kind = MXL_RC_LISTENING;
      mxl_target_set_rx_ep (t, NULL);
      return;
    case RC_IN_CONNREQ:
      /* Our initiators say which target they mean (mxl_ofi_connect_data());
       * a request without it (the reference) is accepted as before. */
      if (in->has_target_check && in->target_check != mxl_ofi_target_check (t->id)) {
        g_debug ("target %" G_GUINT64_FORMAT ": refused a connection meant for "
            "another target (a stale TargetInfo)", t->id);
        reject (t, in, REJECT_OTHER);
        return;
      }
      if (r->rc.kind != MXL_RC_LISTENING
          && (in->token == 0 || in->token != r->rc.token)) {
        reject (t, in, REJECT_BUSY);   /* one initiator at a time */
        return;
      }
      next.kind = MXL_RC_ACCEPTING;
      next.token = in->token;
      next.credit_id = in->credit_id;
      next.u.accepting.ep = accept_request (t, in->info);
      next.u.accepting.since = g_get_monotonic_time ();
      if (r->rc.kind != MXL_RC_LISTENING) {
        /* its own stale connection: ended here, as if it had shut down
         * (closed after the new endpoint exists, so that the new one
         * cannot take the old one's address while events of the old one
         * may still be queued) */
        g_debug ("target %" G_GUINT64_FORMAT ": initiator %016" G_GINT64_MODIFIER
            "x reconnects; its old connection goes", t->id, in->token);
        if (r->rc.kind == MXL_RC_CONNECTED)
          t->stats.disconnections++;
        mxl_target_set_rx_ep (t, NULL);
        mxl_target_credit_peer (t, NULL, 0);
        mxl_ofi_close (&ep->fid, "ep");
        reason = MXL_ERR_INTERRUPTED;
      }
      if (next.u.accepting.ep == NULL) {
        reject (t, in, REJECT_FAILED);
        next.kind = MXL_RC_LISTENING;
        next.token = 0;
      }
      break;
    case RC_IN_CONNECTED:
      if (r->rc.kind != MXL_RC_ACCEPTING || !for_us)
        return;
      next.kind = MXL_RC_CONNECTED;
      next.u.connected.ep = ep;
      t->stats.connectionsAccepted++;
      mxl_target_set_rx_ep (t, ep);
      mxl_target_credit_peer (t, ep, r->rc.credit_id);
      break;
    case RC_IN_SHUTDOWN:
    case RC_IN_ERROR:
      if (!for_us) {
        if (in->kind == RC_IN_ERROR)
          g_debug ("target %" G_GUINT64_FORMAT ": event queue error %s", t->id,
              fi_strerror (in->err));
        return;
      }
      reason = in->kind == RC_IN_SHUTDOWN ? MXL_ERR_INTERRUPTED : MXL_ERR_UNKNOWN;
      if (r->rc.kind == MXL_RC_CONNECTED)
        t->stats.disconnections++;
      mxl_target_set_rx_ep (t, NULL);
      mxl_target_credit_peer (t, NULL, 0);
      mxl_ofi_close (&ep->fid, "ep");
      next.kind = MXL_RC_LISTENING;
      next.token = 0;
      break;
    case RC_IN_TICK:
      if (r->rc.kind != MXL_RC_ACCEPTING
          || g_get_monotonic_time () - r->rc.u.accepting.since < MXL_ACCEPT_TIMEOUT_MS * 1000)
        return;
      reason = MXL_ERR_NOT_READY;
      mxl_ofi_close (&ep->fid, "ep");
      next.kind = MXL_RC_LISTENING;
      next.token = 0;
      break;
  }
  if (public_state (&next) != public_state (&r->rc))
    mxl_target_push_event (t, public_state (&r->rc), public_state (&next), reason);
  r->rc = next;
}

static gboolean
rc_poll_events (MxlTarget *t, int timeout_ms)
{
  MxlEqEvent ev;

  /* With nothing to wait for but the EQ, block on it for the timeout;
   * otherwise only drain what is there. */
  while (mxl_ofi_eq_read (rc_target (t)->eq, timeout_ms, &ev) == MXL_STATUS_OK) {
    MxlRcInput in = { .fid = ev.fid, .info = ev.info, .err = ev.err,
      .token = ev.token, .credit_id = ev.credit_id,
      .has_target_check = ev.has_target_check,
      .target_check = ev.target_check };

    if (ev.error)
      in.kind = RC_IN_ERROR;
    else if (ev.event == FI_CONNREQ)
      in.kind = RC_IN_CONNREQ;
    else if (ev.event == FI_CONNECTED)
      in.kind = RC_IN_CONNECTED;
    else if (ev.event == FI_SHUTDOWN)
      in.kind = RC_IN_SHUTDOWN;
    else
      in.kind = RC_IN_TICK;
    rc_transition (t, &in);
    if (ev.info)
      fi_freeinfo (ev.info);
    timeout_ms = -1;
  }
  {
    MxlRcInput tick = { .kind = RC_IN_TICK };
    rc_transition (t, &tick);
  }
  return rc_target (t)->rc.kind == MXL_RC_CONNECTED;
}

static mxlStatus
rc_open (MxlTarget *t, GError **error)
{
  uint8_t addr[512];
  size_t addr_len = sizeof (addr);
  MxlRcTarget *r = g_new0 (MxlRcTarget, 1);
  mxlStatus st;
  int rc;

  r->base.ops = &mxl_target_rc_ops;
  t->type_state = &r->base;
  st = mxl_ofi_eq_open (t->base.dom, &r->eq, error);
  if (st != MXL_STATUS_OK)
    return st;
  t->base.wait_fid = &r->eq->fid;
  rc = fi_passive_ep (t->base.dom->fabric, t->base.dom->info, &r->pep, NULL);
  if (rc != 0)
    return mxl_ofi_fail (rc, "fi_passive_ep", error);
  if ((rc = fi_pep_bind (r->pep, &r->eq->fid, 0)) != 0)
    return mxl_ofi_fail (rc, "fi_pep_bind", error);
  if ((rc = fi_listen (r->pep)) != 0)
    return mxl_ofi_fail (rc, "fi_listen", error);
  if ((rc = fi_getname (&r->pep->fid, addr, &addr_len)) != 0)
    return mxl_ofi_fail (rc, "fi_getname", error);
  {
    MxlRcInput listen = { .kind = RC_IN_LISTEN };
    rc_transition (t, &listen);
  }
  return mxl_target_fill_info (t, addr, addr_len);
}

static mxlFabricsExtConnectionState
rc_state (MxlTarget *t)
{
  /* Before open and after close: a zeroed state (listening), as before
   * the state had its own struct. */
  static const MxlRcState none;

  return public_state (t->type_state != NULL ? &rc_target (t)->rc : &none);
}

/* A connected target has no claims: every completion is data. */
static size_t
rc_take (MxlTarget *t, struct fi_cq_data_entry *batch, size_t len)
{
  return len;
}

static void
rc_close (MxlTarget *t)
{
  MxlRcInput close = { .kind = RC_IN_CLOSE };
  MxlRcTarget *r = t->type_state != NULL ? rc_target (t) : NULL;

  if (r != NULL) {
    rc_transition (t, &close);
    mxl_ofi_close (r->pep ? &r->pep->fid : NULL, "pep");
    mxl_ofi_close (r->eq ? &r->eq->fid : NULL, "eq");
    g_free (r);
    t->type_state = NULL;
  } else {
    mxl_target_set_rx_ep (t, NULL);     /* what the close transition also does */
  }
  t->base.wait_fid = NULL;
}

const MxlTargetTypeOps mxl_target_rc_ops = {
  .name = "connected (FI_EP_MSG)",
  .open = rc_open,
  .poll_events = rc_poll_events,
  .state = rc_state,
  .take = rc_take,
  .close = rc_close,
};
