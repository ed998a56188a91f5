/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Setup steps shared by targets and initiators. */
#include "fabrics/setup.h"

#include "fabrics/protocol.h"
#include "fabrics/ofi/shmstale.h"

/* The statuses of a getinfo that found no entry with the capabilities. */
static gboolean
no_match (mxlStatus st)
{
  return st == MXL_ERR_NO_FABRIC || st == MXL_ERR_UNSUPPORTED_OPERATION;
}

/* Capability sets an initiator tries in turn when its options force no
 * protocol: everything first, so that it can speak to any target. */
static const MxlProtocolKind initiator_sets[][3] = {
  { MXL_PROTOCOL_WRITE, MXL_PROTOCOL_TAGGED, MXL_PROTOCOL_SEND },
  { MXL_PROTOCOL_WRITE, MXL_PROTOCOL_TAGGED, MXL_PROTOCOL_TAGGED },
  { MXL_PROTOCOL_WRITE, MXL_PROTOCOL_SEND, MXL_PROTOCOL_SEND },
  { MXL_PROTOCOL_WRITE, MXL_PROTOCOL_WRITE, MXL_PROTOCOL_WRITE },
  { MXL_PROTOCOL_TAGGED, MXL_PROTOCOL_SEND, MXL_PROTOCOL_SEND },
  { MXL_PROTOCOL_TAGGED, MXL_PROTOCOL_TAGGED, MXL_PROTOCOL_TAGGED },
  { MXL_PROTOCOL_SEND, MXL_PROTOCOL_SEND, MXL_PROTOCOL_SEND },
};

/* The fi_info for a protocol forced by the options: a provider that does
 * not offer it fails with UNSUPPORTED_OPERATION, naming the protocol. */
static mxlStatus
forced_protocol (const mxlFabricsInterfaceConfig *iface, MxlRole role,
    MxlProtocolKind kind, struct fi_info **out_info, GError **error)
{
  struct fi_info *probe = NULL;
  mxlStatus st = mxl_provider_getinfo_exact (iface, role,
      mxl_protocol_caps (kind, role), out_info, error);

  if (!no_match (st))
    return st;
  /* Is the provider there at all (a bad node fails the same way)? */
  if (mxl_provider_getinfo_exact (iface, role, 0, &probe, NULL) != MXL_STATUS_OK)
    return st;
  fi_freeinfo (probe);
  g_clear_error (error);
  g_set_error (error, MXL_OFI_ERROR, 0, "provider %s does not offer the \"%s\" "
      "protocol (%s)", mxl_provider_to_string (iface->provider),
      mxl_protocol_kind_to_string (kind), kind == MXL_PROTOCOL_WRITE ? "FI_RMA"
      : kind == MXL_PROTOCOL_TAGGED ? "FI_TAGGED" : "FI_MSG");
  return MXL_ERR_UNSUPPORTED_OPERATION;
}

/* Chooses the protocol and the fi_info. A target without a "protocol"
 * option takes the best its provider offers: remote write (FI_RMA), else
 * tagged (FI_TAGGED), else send (FI_MSG), and records it in
 * options->protocol (the TargetInfo advertises it). An initiator without
 * one asks for every capability the provider has, so that it can speak
 * whatever its targets expect (checked at AddTarget). */
static mxlStatus
select_protocol (const mxlFabricsInterfaceConfig *iface, MxlRole role,
    MxlSetupOptions *options, struct fi_info **out_info, GError **error)
{
  static const MxlProtocolKind target_order[] = { MXL_PROTOCOL_WRITE,
      MXL_PROTOCOL_TAGGED, MXL_PROTOCOL_SEND };
  mxlStatus st = MXL_ERR_NO_FABRIC;

  if (options->protocol_set)
    return forced_protocol (iface, role, options->protocol, out_info, error);
  if (role == MXL_ROLE_TARGET) {
    for (guint i = 0; i < G_N_ELEMENTS (target_order); i++) {
      g_clear_error (error);
      st = mxl_provider_getinfo_exact (iface, role,
          mxl_protocol_caps (target_order[i], role), out_info, error);
      if (st == MXL_STATUS_OK)
        options->protocol = target_order[i];
      if (!no_match (st))
        return st;
    }
    return st;
  }
  for (guint i = 0; i < G_N_ELEMENTS (initiator_sets); i++) {
    uint64_t caps = 0;
    for (guint k = 0; k < 3; k++)
      caps |= mxl_protocol_caps (initiator_sets[i][k], role);
    g_clear_error (error);
    st = mxl_provider_getinfo_exact (iface, role, caps, out_info, error);
    if (!no_match (st))
      return st;
  }
  return st;
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
    /* The immediate data carries the slot in 16 bits (wire spec §2.3). */
    g_set_error (error, MXL_OFI_ERROR, 0, "more than 65536 grains cannot be addressed");
    return MXL_ERR_INVALID_ARG;
  }
  /* Regions of dead processes would fill /dev/shm (shmstale.h). */
  if (desc != NULL && mxl_provider_has_quirk (desc, MXL_PROVIDER_QUIRK_SHM_REGIONS))
    mxl_shm_clean_stale (MXL_SHM_REGION_DIR);
  return select_protocol (iface, role, out_options, out_info, error);
}

mxlStatus
mxl_setup_register_slots (MxlOfiDomain *dom, uint8_t *const *bases,
    const size_t *lengths, guint n, size_t slot_size, uint64_t access,
    MxlOfiRegion **out_regions, GError **error)
{
  MxlOfiRegion *regions = g_new0 (MxlOfiRegion, n);
  mxlStatus st = MXL_STATUS_OK;

  *out_regions = regions;     /* partial arrays are closed by the caller */
  for (guint i = 0; i < n && st == MXL_STATUS_OK; i++) {
    if (bases[i] == NULL || lengths[i] != slot_size) {
      g_set_error (error, MXL_OFI_ERROR, 0, "grain slot %u unavailable", i);
      return MXL_ERR_INVALID_ARG;
    }
    st = mxl_ofi_region_register (dom, bases[i], lengths[i], access, &regions[i], error);
  }
  return st;
}
