/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Connectionless (FI_EP_RDM) target: shm, efa, tcp;ofi_rxm (docs/wire-format.md §6.6).
 * One enabled endpoint with an address vector; there is no connection
 * state, every initiator simply writes. Unlike the reference, receives are
 * posted when the provider's immediate data consumes them (FI_RX_CQ_DATA).
 */
#include "fabrics/target.h"

#include "fabrics/ofi/shmstale.h"

/* The connectionless target's own state (t->type_state), from open until
 * close. */
typedef struct MxlRdmTarget {
  MxlTargetTypeState base;
  struct fid_ep *ep;             /* the enabled endpoint, bound to the CQ */
  struct fid_av *av;             /* the address vector bound to @ep */
  MxlShmHold *shm_hold;          /* shm: the endpoint's region is in use
                                    (shmstale.h) */
  /* exclusivity: a second initiator cannot be refused before its writes
   * land, an exclusive target needs claims (claim.h); private to
   * target_claim.c */
  MxlTargetClaims *claims;
} MxlRdmTarget;

static MxlRdmTarget *
rdm_target (MxlTarget *t)
{
  return mxl_container_of (t->type_state, MxlRdmTarget, base);
}

static mxlStatus
rdm_open (MxlTarget *t, GError **error)
{
  uint8_t addr[512];
  size_t addr_len = sizeof (addr);
  MxlRdmTarget *r = g_new0 (MxlRdmTarget, 1);
  mxlStatus st;
  int rc;

  r->base.ops = &mxl_target_rdm_ops;
  t->type_state = &r->base;
  /* One initiator at a time (target_claim.c). */
  st = mxl_target_claims_new (t, &r->claims, error);
  if (st != MXL_STATUS_OK)
    return st;
  st = mxl_ofi_av_open (t->base.dom, 4, &r->av, error);
  if (st != MXL_STATUS_OK)
    return st;
  rc = fi_endpoint (t->base.dom->domain, t->base.dom->info, &r->ep, NULL);
  if (rc != 0)
    return mxl_ofi_fail (rc, "fi_endpoint", error);
  if ((rc = fi_ep_bind (r->ep, &r->av->fid, 0)) != 0)
    return mxl_ofi_fail (rc, "fi_ep_bind(av)", error);
  st = mxl_target_bind_cq (t, r->ep, error);
  if (st != MXL_STATUS_OK)
    return st;
  if (mxl_provider_has_quirk (t->base.desc, MXL_PROVIDER_QUIRK_SHM_REGIONS)) {
    /* a name in use is refused before libfabric could remove the file of
     * the endpoint that has it */
    if ((rc = mxl_shm_enable (r->ep, error)) != 0)
      return mxl_ofi_status (rc);
    r->shm_hold = mxl_shm_region_hold (r->ep);
  } else if ((rc = fi_enable (r->ep)) != 0) {
    return mxl_ofi_fail (rc, "fi_enable", error);
  }
  st = mxl_target_set_rx_ep (t, r->ep);
  if (st == MXL_STATUS_OK)
    st = mxl_target_credit_open_rdm (t, r->ep, r->av);
  if (st != MXL_STATUS_OK)
    return st;
  if ((rc = fi_getname (&r->ep->fid, addr, &addr_len)) != 0)
    return mxl_ofi_fail (rc, "fi_getname", error);
  st = mxl_target_fill_info (t, addr, addr_len);
  if (st == MXL_STATUS_OK)
    mxl_target_claims_fill_info (r->claims, t->info);
  return st;
}

static gboolean
rdm_poll_events (MxlTarget *t, int timeout_ms)
{
  return TRUE;
}

static mxlFabricsExtConnectionState
rdm_state (MxlTarget *t)
{
  return MXL_FABRICS_EXT_STATE_CONNECTED;
}

static size_t
rdm_take (MxlTarget *t, struct fi_cq_data_entry *batch, size_t len)
{
  /* Credit announces and claims are handled as they are drained and
   * leave the batch. */
  len = mxl_target_credit_take (t, batch, len);
  return mxl_target_claims_take (t, rdm_target (t)->claims, batch, len);
}

static void
rdm_close (MxlTarget *t)
{
  MxlRdmTarget *r = t->type_state != NULL ? rdm_target (t) : NULL;

  mxl_target_set_rx_ep (t, NULL);
  mxl_target_credit_close_rdm (t);
  if (r == NULL)
    return;
  /* The endpoint goes first: for shm its fi_close() removes the /dev/shm
   * file (docs/libfabric-notes.md P12). */
  mxl_ofi_close (r->ep ? &r->ep->fid : NULL, "ep");
  r->ep = NULL;
  mxl_shm_region_release (r->shm_hold);
  mxl_ofi_close (r->av ? &r->av->fid : NULL, "av");
  r->av = NULL;
  /* the claim region last */
  mxl_target_claims_free (t, r->claims);
  g_free (r);
  t->type_state = NULL;
}

const MxlTargetTypeOps mxl_target_rdm_ops = {
  .name = "connectionless (FI_EP_RDM)",
  .open = rdm_open,
  .poll_events = rdm_poll_events,
  .state = rdm_state,
  .take = rdm_take,
  .close = rdm_close,
};
