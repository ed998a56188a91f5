/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Connectionless (FI_EP_RDM) initiator: shm, efa, tcp;ofi_rxm. One enabled
 * endpoint; a target becomes usable as soon as its address is in the
 * address vector (wire spec §6.5). A target that vanished is noticed through
 * error completions or writes that stop completing (MXL_CONN_STALL_MS).
 */
#include "fabrics/initiator.h"

#include "fabrics/shmstale.h"

static mxlStatus
rdm_setup (MxlInitiator *init, GError **error)
{
  mxlStatus st;
  int rc;

  st = mxl_ofi_av_open (init->dom, 4, &init->av, error);
  if (st != MXL_STATUS_OK)
    return st;
  rc = fi_endpoint (init->dom->domain, init->dom->info, &init->ep, NULL);
  if (rc != 0)
    return mxl_ofi_fail (rc, "fi_endpoint", error);
  if ((rc = fi_ep_bind (init->ep, &init->av->fid, 0)) != 0)
    return mxl_ofi_fail (rc, "fi_ep_bind(av)", error);
  if ((rc = fi_ep_bind (init->ep, &init->cq->fid, FI_TRANSMIT | FI_RECV)) != 0)
    return mxl_ofi_fail (rc, "fi_ep_bind(cq)", error);
  if ((rc = fi_enable (init->ep)) != 0)
    return mxl_ofi_fail (rc, "fi_enable", error);
  if (init->desc->provider == MXL_FABRICS_PROVIDER_SHM)
    init->shm_hold = mxl_shm_region_hold (init->ep);
  return MXL_STATUS_OK;
}

static mxlStatus
rdm_open (MxlConn *conn, MxlConnState *next)
{
  MxlInitiator *init = conn->init;
  fi_addr_t addr = FI_ADDR_NOTAVAIL;
  int rc;

  rc = fi_av_insert (init->av, conn->info->fabric_address, 1, &addr, 0, NULL);
  if (rc != 1) {
    g_warning ("initiator: fi_av_insert of target %" G_GUINT64_FORMAT ": %s",
        conn->target_id, rc < 0 ? fi_strerror (-rc) : "address rejected");
    return MXL_ERR_INTERNAL;
  }
  next->kind = MXL_CONN_CONNECTED;
  next->u.connected.ep = init->ep;
  next->u.connected.addr = addr;
  return MXL_STATUS_OK;
}

static void
rdm_close (MxlConn *conn, const MxlConnState *state, gboolean orderly)
{
  fi_addr_t addr;
  int rc;

  /* Only an orderly removal takes the address out of the AV, and never on
   * shm: on libfabric 1.17, fi_av_remove() of a shm peer, dead or alive,
   * leaves the next peer added crashing in its own fi_cq_read() (test
   * fabrics-transfer-shm-retarget-live). Such entries stay (bounded by the
   * AV size, 256 shm peers); re-adding inserts the new address. */
  if (state->kind != MXL_CONN_CONNECTED || !orderly
      || conn->init->desc->provider == MXL_FABRICS_PROVIDER_SHM)
    return;
  addr = state->u.connected.addr;
  rc = fi_av_remove (conn->init->av, &addr, 1, 0);
  if (rc != 0)
    g_debug ("initiator: fi_av_remove: %s", fi_strerror (-rc));
}

static void
rdm_poll_events (MxlInitiator *init)
{
}

static void
rdm_teardown (MxlInitiator *init)
{
  mxl_ofi_close (init->ep ? &init->ep->fid : NULL, "ep");
  init->ep = NULL;
  mxl_shm_region_release (init->shm_hold);
  init->shm_hold = NULL;
  mxl_ofi_close (init->av ? &init->av->fid : NULL, "av");
  init->av = NULL;
}

const MxlInitiatorTypeOps mxl_initiator_rdm_ops = {
  .name = "connectionless (FI_EP_RDM)",
  .setup = rdm_setup,
  .open = rdm_open,
  .close = rdm_close,
  .poll_events = rdm_poll_events,
  .teardown = rdm_teardown,
  .reports_peer_loss = FALSE,
};
