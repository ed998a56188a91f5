/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Setup steps shared by targets and initiators. */
#include "fabrics/setup.h"

#include "fabrics/protocol.h"

mxlStatus
mxl_setup_begin (const char *options_json, const MxlFlowLayout *flow,
    const mxlFabricsInterfaceConfig *iface, MxlRole role,
    MxlSetupOptions *out_options, struct fi_info **out_info, GError **error)
{
  uint64_t extra;
  mxlStatus st;

  st = mxl_setup_options_parse (options_json, out_options, error);
  if (st == MXL_STATUS_OK)
    st = mxl_protocol_check_options (out_options, error);
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
  extra = mxl_protocol_extra_caps (out_options, role);
  st = mxl_provider_getinfo_caps (iface, role, extra, out_info, error);
  /* An initiator asks for FI_SEND only in case a target expects the send
   * protocol: without it, it can still write. */
  if (st == MXL_ERR_NO_FABRIC && extra != 0 && !out_options->protocol_set) {
    g_clear_error (error);
    st = mxl_provider_getinfo_caps (iface, role, 0, out_info, error);
  }
  return st;
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
