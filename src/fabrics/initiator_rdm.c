/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Connectionless (FI_EP_RDM) initiator: shm, efa, tcp;ofi_rxm. A target
 * becomes usable as soon as its address is in the address vector (wire
 * spec §6.5). A target that vanished is noticed through error completions
 * or writes that stop completing (MXL_CONN_STALL_MS).
 *
 * shm gets one endpoint and address vector per connection, opened when the
 * connection opens and closed when it is left; the other providers share
 * one. Why: libfabric 1.17 shm completes an endpoint's sends and
 * delivery-complete writes strictly in posting order, from a response
 * queue in its own region that the peer updates once it has processed the
 * command (prov/shm/src/smr_progress.c, smr_progress_resp()). A receiver
 * that stops or is killed before it processed one leaves that response
 * busy forever, and every later completion of the endpoint, to any peer,
 * waits behind it: a restarted receiver then got a few grains (as many as
 * the sender's local ring holds) and nothing more. Closing the endpoint
 * drops that queue; a fresh one per connection also never needs
 * fi_av_remove(), which corrupts the endpoint on 1.17 (see rdm_close()).
 */
#include "fabrics/initiator.h"

#include <string.h>

static gboolean
own_endpoint (const MxlInitiator *init)
{
  return init->desc->provider == MXL_FABRICS_PROVIDER_SHM;
}

/* Opens an endpoint bound to @av and the initiator's CQ, from @info. */
static mxlStatus
open_endpoint (MxlInitiator *init, struct fi_info *info, struct fid_av **av,
    struct fid_ep **ep, GError **error)
{
  mxlStatus st;
  int rc;

  st = mxl_ofi_av_open (init->dom, 4, av, error);
  if (st != MXL_STATUS_OK)
    return st;
  rc = fi_endpoint (init->dom->domain, info, ep, NULL);
  if (rc != 0)
    return mxl_ofi_fail (rc, "fi_endpoint", error);
  if ((rc = fi_ep_bind (*ep, &(*av)->fid, 0)) != 0)
    return mxl_ofi_fail (rc, "fi_ep_bind(av)", error);
  if ((rc = fi_ep_bind (*ep, &init->cq->fid, FI_TRANSMIT | FI_RECV)) != 0)
    return mxl_ofi_fail (rc, "fi_ep_bind(cq)", error);
  if ((rc = fi_enable (*ep)) != 0)
    return mxl_ofi_fail (rc, "fi_enable", error);
  return MXL_STATUS_OK;
}

static void
close_endpoint (struct fid_ep *ep, struct fid_av *av)
{
  /* The endpoint goes first: for shm its fi_close() removes its /dev/shm
   * file (libfabric-local.md P12). */
  mxl_ofi_close (ep ? &ep->fid : NULL, "ep");
  mxl_ofi_close (av ? &av->fid : NULL, "av");
}

/* A shm endpoint is named after its info's source address: one given by
 * name (the elements name theirs, "fi_ns://<node>:<service>") would be the
 * same file for every connection, so each connection's endpoint gets the
 * name with ".<conn_id>" appended. Names from libfabric ("fi_shm://<pid>")
 * get a unique suffix from libfabric itself. */
static struct fi_info *
connection_info (const MxlConn *conn)
{
  const struct fi_info *base = conn->init->dom->info;
  struct fi_info *info = fi_dupinfo (base);
  char *name;

  if (info == NULL || base->src_addr == NULL || base->addr_format != FI_ADDR_STR
      || base->src_addrlen == 0 || ((const char *) base->src_addr)[base->src_addrlen - 1]
      || strstr (base->src_addr, "fi_shm://") != NULL)
    return info;
  name = g_strdup_printf ("%s.%" G_GUINT64_FORMAT, (const char *) base->src_addr,
      conn->conn_id);
  free (info->src_addr);
  info->src_addrlen = strlen (name) + 1;
  info->src_addr = strdup (name);
  g_free (name);
  if (info->src_addr == NULL) {
    fi_freeinfo (info);
    return NULL;
  }
  return info;
}

static mxlStatus
rdm_setup (MxlInitiator *init, GError **error)
{
  if (own_endpoint (init))
    return MXL_STATUS_OK;       /* per connection, in rdm_open() */
  return open_endpoint (init, init->dom->info, &init->av, &init->ep, error);
}

static mxlStatus
rdm_open (MxlConn *conn, MxlConnState *next)
{
  g_autoptr (GError) error = NULL;
  MxlInitiator *init = conn->init;
  fi_addr_t addr = FI_ADDR_NOTAVAIL;
  struct fid_ep *ep = init->ep;
  struct fid_av *av = init->av, *own_av = NULL;
  int rc;

  if (own_endpoint (init)) {
    struct fi_info *info = connection_info (conn);
    mxlStatus st = info ? open_endpoint (init, info, &own_av, &ep, &error)
        : MXL_ERR_INTERNAL;

    if (info)
      fi_freeinfo (info);
    if (st != MXL_STATUS_OK) {
      g_warning ("initiator: endpoint for target %" G_GUINT64_FORMAT ": %s",
          conn->target_id, error ? error->message : "out of memory");
      close_endpoint (ep, own_av);
      return st;
    }
    av = own_av;
  }
  rc = fi_av_insert (av, conn->info->fabric_address, 1, &addr, 0, NULL);
  if (rc != 1) {
    g_warning ("initiator: fi_av_insert of target %" G_GUINT64_FORMAT ": %s",
        conn->target_id, rc < 0 ? fi_strerror (-rc) : "address rejected");
    if (own_av)
      close_endpoint (ep, own_av);
    return MXL_ERR_INTERNAL;
  }
  next->kind = MXL_CONN_CONNECTED;
  next->u.connected.ep = ep;
  next->u.connected.addr = addr;
  next->u.connected.av = own_av;
  return MXL_STATUS_OK;
}

static void
rdm_close (MxlConn *conn, const MxlConnState *state, gboolean orderly)
{
  fi_addr_t addr;
  int rc;

  if (state->kind != MXL_CONN_CONNECTED)
    return;
  if (state->u.connected.av != NULL) {
    /* The connection's own endpoint: closing it discards whatever the
     * provider still holds for the peer (see the top of this file). */
    close_endpoint (state->u.connected.ep, state->u.connected.av);
    return;
  }
  /* A shared endpoint: only an orderly removal takes the address out of
   * the AV (on libfabric 1.17, fi_av_remove() of a shm peer, dead or
   * alive, left the next peer added crashing in its own fi_cq_read(): test
   * fabrics-transfer-shm-retarget-live; shm has its own endpoints now). */
  if (!orderly)
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
  close_endpoint (init->ep, init->av);
  init->ep = NULL;
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
