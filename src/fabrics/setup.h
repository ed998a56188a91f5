/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What target and initiator setup share: options, the flow check, the
 * provider's fi_info, and the registration of the grain slots.
 */
#pragma once

#include <glib.h>

#include <mxl/fabrics.h>

#include "fabrics/ofi/ofi.h"
#include "fabrics/protocol/options.h"
#include "fabrics/ofi/provider.h"
#include "flow/flow-internal.h"

/**
 * mxl_setup_begin:
 * @options_json: (nullable): setup options (options.h).
 * @flow: layout of the local flow.
 * @out_options, @out_info: (out): parsed options and the chosen fi_info
 *   (fi_freeinfo()). For a target without a "protocol" option,
 *   out_options->protocol is the descriptor chosen: of the table's
 *   protocols its provider offers, the one of the lowest target rank
 *   (protocol_table.c). An initiator without one gets every capability of
 *   the table's protocols its provider offers.
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
 * mxl_setup_endpoint:
 * The prologue target and initiator setup share after mxl_setup_begin():
 * opens the domain of @fi (freed here) and a completion queue of @cq_size
 * entries whose wait object fits the provider and the threading: none
 * where the provider cannot wait on its CQ (@desc->cq_can_wait FALSE: shm,
 * efa; callers poll), a wait fd for a progress thread (@threaded: polled
 * next to its eventfd), otherwise the provider's default (fi_cq_sread).
 * @out_dom, @out_cq: (out): closed by the caller, also on failure.
 * Returns: OK or the statuses of mxl_ofi_domain_open(), mxl_ofi_cq_open().
 */
mxlStatus mxl_setup_endpoint (struct fi_info *fi, const MxlProviderDesc *desc,
    gboolean threaded, size_t cq_size, MxlOfiDomain **out_dom,
    struct fid_cq **out_cq, GError **error);

/** The mapping of grain slot @i of @flow (a writer or a reader) and its
 * length in @out_len; NULL when unavailable. */
typedef uint8_t *(*MxlSlotFn) (gpointer flow, guint i, size_t *out_len);

/**
 * mxl_setup_register_slots:
 * Registers the @n grain slots of @flow (each @slot_size bytes, from
 * @slot_fn) for @access.
 * @out_regions: (out) (transfer full): @n regions, g_free() after closing
 *   (also when it fails part way).
 * Returns: OK, INVALID_ARG (a slot unavailable or of another size), or the
 * registration's status.
 */
mxlStatus mxl_setup_register_slots (MxlOfiDomain *dom, MxlSlotFn slot_fn,
    gpointer flow, guint n, size_t slot_size, uint64_t access,
    MxlOfiRegion **out_regions, GError **error);
