/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What target and initiator setup share: options, the flow check, the
 * provider's fi_info, and the registration of the grain slots.
 */
#pragma once

#include <glib.h>

#include <mxl/fabrics.h>

#include "fabrics/ofi/ofi.h"
#include "fabrics/options.h"
#include "fabrics/ofi/provider.h"
#include "flow/flow-internal.h"

/**
 * mxl_setup_begin:
 * @options_json: (nullable): setup options (options.h).
 * @flow: layout of the local flow.
 * @out_options, @out_info: (out): parsed options and the chosen fi_info
 *   (fi_freeinfo()). For a target without a "protocol" option,
 *   out_options->protocol is the one chosen: write if the provider offers
 *   FI_RMA, else tagged (FI_TAGGED), else send (FI_MSG). An initiator
 *   without one gets every capability of the three its provider offers.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG (bad options, a flow with more
 * than 65536 grains); MXL_ERR_UNSUPPORTED_OPERATION (a protocol forced by
 * the options that the provider does not offer); the statuses of
 * mxl_provider_getinfo_exact().
 */
mxlStatus mxl_setup_begin (const char *options_json, const MxlFlowLayout *flow,
    const mxlFabricsInterfaceConfig *iface, MxlRole role,
    MxlSetupOptions *out_options, struct fi_info **out_info, GError **error);

/**
 * mxl_setup_register_slots:
 * @bases: @n slot mappings, each @slot_size bytes (NULL entries fail).
 * @out_regions: (out) (transfer full): @n regions, g_free() after closing.
 */
mxlStatus mxl_setup_register_slots (MxlOfiDomain *dom, uint8_t *const *bases,
    const size_t *lengths, guint n, size_t slot_size, uint64_t access,
    MxlOfiRegion **out_regions, GError **error);
