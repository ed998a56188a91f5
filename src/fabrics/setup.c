/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Setup steps shared by targets and initiators, and the life of their
 * endpoint base (fabrics/protocol/endpoint.h). */
#include "fabrics/setup.h"

#include "fabrics/events.h"
#include "fabrics/protocol/protocol.h"
#include "fabrics/ofi/shmstale.h"
#include "flow/flow-priv.h"
#ifdef MXL_TEST_HOOKS
#include "fabrics/protocol/protocol_hooks.h"
#endif

/* The fi_getinfo() setup asks, once per choice of protocol:
 * mxl_provider_getinfo_exact(); in the test build the hooks' choice, a
 * masking wrapper while a test hides capabilities (protocol_hooks.h). */
#ifdef MXL_TEST_HOOKS
#define SETUP_GETINFO() mxl_hooks_getinfo ()
#else
#define SETUP_GETINFO() mxl_provider_getinfo_exact
#endif
typedef __typeof__ (mxl_provider_getinfo_exact) *SetupGetinfoFn;

/* The statuses of a getinfo that found no entry with the capabilities. */
static gboolean
no_match (mxlStatus st)
{
  return st == MXL_ERR_NO_FABRIC || st == MXL_ERR_UNSUPPORTED_OPERATION;
}

/* The protocols of the table by target preference (rank), best first. */
static guint
by_rank (const MxlProtocolDesc **out)
{
  for (guint i = 0; i < mxl_n_protocols; i++) {
    guint j = i;
    for (; j > 0 && out[j - 1]->target_rank > mxl_protocols[i]->target_rank; j--)
      out[j] = out[j - 1];
    out[j] = mxl_protocols[i];
  }
  return mxl_n_protocols;
}

/* The fi_info for a protocol forced by the options: a provider that does
 * not offer it fails with UNSUPPORTED_OPERATION, naming the protocol. */
static mxlStatus
forced_protocol (const mxlFabricsInterfaceConfig *iface, MxlRole role,
    const MxlProtocolDesc *p, uint64_t extra, struct fi_info **out_info,
    GError **error)
{
  SetupGetinfoFn getinfo = SETUP_GETINFO ();
  struct fi_info *probe = NULL;
  mxlStatus st = getinfo (iface, role, p->caps[role] | extra, out_info, error);

  if (!no_match (st))
    return st;
  /* Is the provider there at all (a bad node fails the same way)? */
  if (getinfo (iface, role, 0, &probe, NULL) != MXL_STATUS_OK)
    return st;
  fi_freeinfo (probe);
  g_clear_error (error);
  g_set_error (error, MXL_OFI_ERROR, 0, "provider %s does not offer the \"%s\" "
      "protocol (%s)", mxl_provider_to_string (iface->provider),
      p->name, p->caps_name);
  return MXL_ERR_UNSUPPORTED_OPERATION;
}

/* Chooses the protocol and the fi_info. A target without a "protocol"
 * option takes the best its provider offers, in the order of the table's
 * target ranks (remote write, else tagged, else send), and records it in
 * options->protocol (the TargetInfo advertises it). An initiator without
 * one asks for every capability the provider has, so that it can speak
 * whatever its targets expect (checked at AddTarget): it tries every
 * subset of the table, the larger and the better ranked first (all, then
 * without the worst, ...). @extra: capabilities asked for besides the
 * protocol's (credit_caps()). */
static mxlStatus
select_protocol (const mxlFabricsInterfaceConfig *iface, MxlRole role,
    MxlSetupOptions *options, uint64_t extra, struct fi_info **out_info,
    GError **error)
{
  const MxlProtocolDesc *order[sizeof (guint) * 8];
  SetupGetinfoFn getinfo = SETUP_GETINFO ();
  guint n = by_rank (order);
  mxlStatus st = MXL_ERR_NO_FABRIC;

  g_assert (n == mxl_n_protocols && n < sizeof (guint) * 8);
  if (options->protocol_set)
    return forced_protocol (iface, role, options->protocol, extra, out_info, error);
  if (role == MXL_ROLE_TARGET) {
    for (guint i = 0; i < n; i++) {
      g_clear_error (error);
      st = getinfo (iface, role, order[i]->caps[role] | extra, out_info, error);
      if (st == MXL_STATUS_OK)
        options->protocol = order[i];
      if (!no_match (st))
        return st;
    }
    return st;
  }
  /* Subset bit n - 1 - i stands for order[i]: counting down from all ones
   * visits the subsets that hold the best protocol first. */
  for (guint set = (1u << n) - 1; set > 0; set--) {
    uint64_t caps = extra;
    for (guint i = 0; i < n; i++)
      if (set & (1u << (n - 1 - i)))
        caps |= order[i]->caps[role];
    g_clear_error (error);
    st = getinfo (iface, role, caps, out_info, error);
    if (!no_match (st))
      return st;
  }
  return st;
}

/* The credit extension (src/fabrics/wire/credit.h), grain and continuous
 * flows alike: a target that advertises it sends releases (fi_inject),
 * every initiator can receive them. Connectionless (FI_EP_RDM), the initiator announces
 * itself with a message, which the target receives and acknowledges. */
static uint64_t
credit_caps (const MxlProviderDesc *desc, MxlRole role, const MxlSetupOptions *options)
{
  uint64_t rdm;

  if (desc == NULL || (desc->ep_type != FI_EP_MSG && desc->ep_type != FI_EP_RDM))
    return 0;
  rdm = desc->ep_type == FI_EP_RDM ? FI_SEND | FI_RECV : 0;
  if (role == MXL_ROLE_TARGET)
    return options->credits ? FI_MSG | FI_SEND | rdm : 0;
  return FI_MSG | FI_RECV | rdm;
}

mxlStatus
mxl_setup_begin (const char *options_json, const MxlFlowLayout *flow,
    const mxlFabricsInterfaceConfig *iface, MxlRole role,
    MxlSetupOptions *out_options, struct fi_info **out_info, GError **error)
{
  const MxlProviderDesc *desc = mxl_provider_lookup (iface->provider);
  mxlStatus st;

  st = mxl_setup_options_parse (options_json, out_options, error);
  if (st != MXL_STATUS_OK)
    return st;
  if (flow->format == MXL_DATA_FORMAT_AUDIO
      ? flow->channel_count == 0 || flow->buffer_length == 0 || flow->sample_word_size == 0
      : flow->grain_count == 0) {
    g_set_error (error, MXL_OFI_ERROR, 0, "the flow has no ring");
    return MXL_ERR_INVALID_ARG;
  }
  if (flow->grain_count > 65536) {
    /* The immediate data carries the slot in 16 bits (docs/wire-format.md §2.3). */
    g_set_error (error, MXL_OFI_ERROR, 0, "more than 65536 grains cannot be addressed");
    return MXL_ERR_INVALID_ARG;
  }
  /* Regions of dead processes would fill /dev/shm (shmstale.h). */
  if (desc != NULL && mxl_provider_has_quirk (desc, MXL_PROVIDER_QUIRK_SHM_REGIONS))
    mxl_shm_clean_stale (MXL_SHM_REGION_DIR);
  return select_protocol (iface, role, out_options,
      credit_caps (desc, role, out_options), out_info, error);
}

mxlStatus
mxl_setup_endpoint (struct fi_info *fi, const MxlProviderDesc *desc, gboolean threaded,
    size_t cq_size, MxlOfiDomain **out_dom, struct fid_cq **out_cq, GError **error)
{
  mxlStatus st = mxl_ofi_domain_open (fi, out_dom, error);

  fi_freeinfo (fi);
  if (st != MXL_STATUS_OK)
    return st;
  /* A progress thread polls the CQ's wait fd (FI_WAIT_FD) next to its
   * eventfd, and so may an application without one
   * (mxlFabricsExtInitiatorGetWaitFd()); a calling thread uses
   * fi_cq_sread, which works with it too (P9). */
  (void) threaded;
  return mxl_ofi_cq_open (*out_dom, cq_size, !desc->cq_can_wait ? FI_WAIT_NONE
      : FI_WAIT_FD, out_cq, error);
}

mxlStatus
mxl_setup_register_slots (MxlOfiDomain *dom, MxlSlotFn slot_fn, gpointer flow,
    guint n, size_t slot_size, uint64_t access, MxlOfiRegion **out_regions,
    GError **error)
{
  MxlOfiRegion *regions = g_new0 (MxlOfiRegion, n);
  mxlStatus st = MXL_STATUS_OK;

  *out_regions = regions;     /* partial arrays are closed by the caller */
  for (guint i = 0; i < n && st == MXL_STATUS_OK; i++) {
    size_t len = 0;
    uint8_t *base = slot_fn (flow, i, &len);
    if (base == NULL || len != slot_size) {
      g_set_error (error, MXL_OFI_ERROR, 0, "grain slot %u unavailable", i);
      return MXL_ERR_INVALID_ARG;
    }
    st = mxl_ofi_region_register (dom, base, len, access, &regions[i], error);
  }
  return st;
}

/* ------------------------------------------------------- endpoint base */

void
mxl_endpoint_init (MxlEndpoint *ep, mxlFabricsInstance inst)
{
  ep->instance = inst;
  mxl_lock_init (&ep->lock);
}

void
mxl_endpoint_clear (MxlEndpoint *ep)
{
  mxl_event_queue_clear (&ep->events);
  mxl_lock_clear (&ep->lock);
}

mxlStatus
mxl_endpoint_setup_begin (MxlEndpoint *ep, const MxlEndpointRole *role,
    gpointer flow, const char *options, const mxlFabricsInterfaceConfig *iface,
    MxlFlowLayout *out_flow, struct fi_info **out_fi, GError **error)
{
  mxlStatus st;

  mxl_last_error_clear ();
  if (flow == NULL)
    return MXL_ERR_INVALID_ARG;
  st = role->get_layout (flow, out_flow);
  if (st == MXL_STATUS_OK)
    st = mxl_setup_begin (options, out_flow, iface, role->role, &ep->options, out_fi,
        error);
  if (st != MXL_STATUS_OK)
    return st;
  ep->desc = mxl_provider_lookup (iface->provider);
  ep->grain_count = out_flow->grain_count;
  mxl_grain_layout_init (&ep->layout, out_flow->slice_sizes, out_flow->total_slices,
      out_flow->grain_size);
  return MXL_STATUS_OK;
}

mxlStatus
mxl_endpoint_setup_open (MxlEndpoint *ep, const MxlEndpointRole *role,
    gpointer flow, const MxlFlowLayout *layout, struct fi_info *fi, size_t cq_size,
    uint64_t slot_access, GError **error)
{
  mxlStatus st = mxl_setup_endpoint (fi, ep->desc, ep->options.progress_thread,
      cq_size, &ep->dom, &ep->cq, error);

  if (st != MXL_STATUS_OK || layout->format == MXL_DATA_FORMAT_AUDIO)
    return st;
  return mxl_setup_register_slots (ep->dom, role->slot, flow, ep->grain_count,
      ep->layout.slot_size, slot_access, &ep->regions, error);
}

void
mxl_endpoint_setup_failed (const MxlEndpointRole *role, mxlStatus st,
    const GError *error)
{
  const char *why = error ? error->message : "invalid configuration";

  g_warning ("%s setup failed (status %d): %s", role->name, st, why);
  mxl_last_error_set ("%s", why);
}

mxlStatus
mxl_endpoint_progress_start (MxlEndpoint *ep, const char *name,
    MxlProgressPass pass, MxlProgressHasPosts has_posts, gpointer owner,
    GError **error)
{
  struct fid *fids[MXL_PROGRESS_MAX_WAIT_FIDS];
  guint n = 0;

  if (ep->desc->cq_can_wait) {
    fids[n++] = &ep->cq->fid;
    if (ep->wait_fid != NULL)
      fids[n++] = ep->wait_fid;
  }
  return mxl_progress_start (&ep->progress, name, ep->dom->fabric, fids, n,
      &ep->lock, pass, has_posts, owner, error);
}

mxlStatus
mxl_endpoint_poll_event (MxlEndpoint *ep, mxlFabricsExtConnectionEvent *out)
{
  mxlStatus st;

  mxl_lock (&ep->lock);
  st = mxl_event_queue_pop (&ep->events, out);
  mxl_unlock (&ep->lock);
  return st;
}

void
mxl_endpoint_close (MxlEndpoint *ep)
{
  if (ep->keep_open != NULL) {
    /* what an endpoint kept open is bound to goes with it */
    ep->keep_open (ep);
    ep->keep_open = NULL;
  }
  for (guint i = 0; ep->dom && ep->regions && i < ep->grain_count; i++)
    mxl_ofi_region_close (ep->dom, &ep->regions[i]);
  mxl_ofi_close (ep->cq ? &ep->cq->fid : NULL, "cq");
  ep->cq = NULL;
  mxl_ofi_domain_close (ep->dom);
  ep->dom = NULL;
  g_clear_pointer (&ep->regions, g_free);
  ep->res_head = ep->res_len = 0;
  ep->setup_done = FALSE;
}
