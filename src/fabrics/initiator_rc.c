/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Connected (FI_EP_MSG) initiator: tcp, verbs. One event queue and one
 * completion queue for all targets, one endpoint per target connection,
 * connected with 8 bytes of private data (mxl_ofi_connect_data()): the
 * initiator's claim token, so that a target refusing it counts initiators,
 * not attempts (claim.h), and the TargetInfo id it means, so that a target
 * restarted on the same address refuses a stale TargetInfo
 * (MXL_REJECT_OTHER_TARGET, reported as MXL_ERR_NOT_FOUND) instead of
 * accepting writes meant for another one (docs/wire-format.md §6.2: a
 * reference target reads 24-byte EQ entries, which hold a connection
 * request with up to 8 bytes of data; it ignores them), §6.4. Event queue entries
 * are routed to connections through a table of live endpoints, so an event
 * for an endpoint already closed is ignored.
 */
#include "fabrics/initiator.h"
#include "fabrics/initiator_credit.h"

#include "fabrics/wire/claim.h"

/* The connected initiator's own state (init->type_state). */
typedef struct MxlRcInitiator {
  MxlInitiatorTypeState base;
  /* the claim token (claim.h: random, bit 63 clear, not 0); its low 32
   * bits go in every endpoint's connection data (mxl_ofi_connect_data()) */
  uint64_t token;
  /* the event queue of every connection's endpoint (rc_setup()) */
  struct fid_eq *eq;
  /* struct fid* → MxlConn*: the live endpoints, so that an event for an
   * endpoint already closed finds none (rc_poll_events()) */
  GHashTable *by_fid;
} MxlRcInitiator;

static MxlRcInitiator *
rc_state (MxlInitiator *init)
{
  return mxl_container_of (init->type_state, MxlRcInitiator, base);
}

static mxlStatus
rc_setup (MxlInitiator *init, GError **error)
{
  MxlRcInitiator *r = g_new0 (MxlRcInitiator, 1);
  struct fi_info *info;
  struct fid_ep *ep = NULL;
  int rc;
  mxlStatus st;

  r->base.ops = &mxl_initiator_rc_ops;
  r->token = mxl_claim_token (mxl_provider_has_quirk (init->base.desc,
          MXL_PROVIDER_QUIRK_OWNER_PID));
  r->by_fid = g_hash_table_new (g_direct_hash, g_direct_equal);
  init->type_state = &r->base;
  st = mxl_ofi_eq_open (init->base.dom, &r->eq, error);
  if (st != MXL_STATUS_OK)
    return st;
  init->base.wait_fid = &r->eq->fid;
  /* An endpoint binds the node (fi_endpoint(3)): one opened and closed
   * here makes a node that is not an address of this host a setup error,
   * not a warning at every connection attempt (rc_open). */
  info = mxl_ofi_dup_info_any_port (init->base.dom->info);
  if (info == NULL)
    return mxl_ofi_fail (-FI_ENOMEM, "fi_dupinfo", error);
  rc = fi_endpoint (init->base.dom->domain, info, &ep, NULL);
  fi_freeinfo (info);
  if (rc != 0)
    return mxl_ofi_fail (rc, "fi_endpoint", error);
  mxl_ofi_close (&ep->fid, "ep");
  return MXL_STATUS_OK;
}

static mxlStatus
rc_open (MxlConn *conn, MxlConnState *next)
{
  MxlInitiator *init = conn->init;
  MxlRcInitiator *r = rc_state (init);
  /* [1]: the credit announce, only to a target that advertises credits
   * (initiator_credit.h; docs/wire-format.md §11.7) */
  uint64_t data[2] = { mxl_ofi_connect_data (r->token, conn->target_id), 0 };
  size_t data_len = sizeof (data[0]);
  struct fi_info *info;
  struct fid_ep *ep = NULL;
  int rc;

  if (mxl_conn_credit_announce (conn)) {
    data[1] = GUINT64_TO_LE (conn->credit_id);
    data_len = sizeof (data);
  }
  /* Every endpoint binds its own ephemeral port on the configured node. */
  info = mxl_ofi_dup_info_any_port (init->base.dom->info);
  if (info == NULL)
    return MXL_ERR_UNKNOWN;
  rc = fi_endpoint (init->base.dom->domain, info, &ep, NULL);
  fi_freeinfo (info);
  if (rc != 0) {
    g_warning ("initiator: fi_endpoint: %s", fi_strerror (-rc));
    return mxl_ofi_status (rc);
  }
  /* The CQ is bound for both directions: 1.17 tcp crashes otherwise
   * (docs/wire-format.md §6.1). */
  if ((rc = fi_ep_bind (ep, &r->eq->fid, 0)) != 0
      || (rc = fi_ep_bind (ep, &init->base.cq->fid, FI_TRANSMIT | FI_RECV)) != 0
      || (rc = fi_connect (ep, conn->info->fabric_address, data, data_len)) != 0) {
    g_debug ("initiator: connecting to target %" G_GUINT64_FORMAT ": %s",
        conn->target_id, fi_strerror (-rc));
    mxl_ofi_close (&ep->fid, "ep");
    return mxl_ofi_status (rc);
  }
  g_hash_table_insert (r->by_fid, &ep->fid, conn);
  next->kind = MXL_CONN_CONNECTING;
  next->u.connecting.ep = ep;
  next->u.connecting.since = g_get_monotonic_time ();
  next->u.connecting.attempts = conn->state.kind == MXL_CONN_IDLE
      ? conn->state.u.idle.attempts : 0;
  return MXL_STATUS_OK;
}

/* The endpoint is the connection's own: closing it ends the provider's
 * reads of its writes' memory (fi_endpoint(3)). */
static MxlCloseEffect
rc_close (MxlConn *conn, const MxlConnState *state, gboolean orderly)
{
  struct fid_ep *ep = state->kind == MXL_CONN_CONNECTING ? state->u.connecting.ep
      : state->kind == MXL_CONN_CONNECTED ? state->u.connected.ep : NULL;

  if (ep == NULL)
    return MXL_CLOSE_READS_ENDED;
  g_hash_table_remove (rc_state (conn->init)->by_fid, &ep->fid);
  if (state->kind == MXL_CONN_CONNECTED && orderly)
    fi_shutdown (ep, 0);
  mxl_ofi_close (&ep->fid, "ep");
  return MXL_CLOSE_READS_ENDED;
}

static void
rc_poll_events (MxlInitiator *init)
{
  MxlRcInitiator *r = rc_state (init);
  MxlEqEvent ev;

  for (int i = 0; i < 64 && mxl_ofi_eq_read (r->eq, -1, &ev) == MXL_STATUS_OK; i++) {
    MxlConn *conn = ev.fid ? g_hash_table_lookup (r->by_fid, ev.fid) : NULL;

    if (ev.info)
      fi_freeinfo (ev.info);
    if (conn == NULL)
      continue;              /* endpoint already closed */
    if (ev.error)
      mxl_conn_transition (conn, MXL_CONN_IN_ERROR, ev.busy ? MXL_ERR_CONFLICT
          : ev.other_target ? MXL_ERR_NOT_FOUND : MXL_ERR_UNKNOWN);
    else if (ev.event == FI_CONNECTED)
      mxl_conn_transition (conn, MXL_CONN_IN_CONNECTED, MXL_STATUS_OK);
    else if (ev.event == FI_SHUTDOWN)
      mxl_conn_transition (conn, MXL_CONN_IN_SHUTDOWN, MXL_ERR_INTERRUPTED);
  }
}

static void
rc_teardown (MxlInitiator *init)
{
  MxlRcInitiator *r = init->type_state != NULL ? rc_state (init) : NULL;

  init->base.wait_fid = NULL;
  if (r == NULL)
    return;
  mxl_ofi_close (r->eq ? &r->eq->fid : NULL, "eq");
  g_clear_pointer (&r->by_fid, g_hash_table_destroy);
  g_free (r);
  init->type_state = NULL;
}

const MxlInitiatorTypeOps mxl_initiator_rc_ops = {
  .name = "connected (FI_EP_MSG)",
  .setup = rc_setup,
  .open = rc_open,
  .close = rc_close,
  .poll_events = rc_poll_events,
  .teardown = rc_teardown,
  .reports_peer_loss = TRUE,
  .close_ends_reads = TRUE,
  .ordered_receives = TRUE,
};
