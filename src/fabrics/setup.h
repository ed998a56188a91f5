/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What target and initiator setup share: options, the flow check, the
 * provider's fi_info, the registration of the grain slots, and the life
 * of the endpoint base both embed (fabrics/protocol/endpoint.h): its
 * creation, setup prologue, progress thread, events and teardown.
 */
#pragma once

#include <glib.h>

#include <mxl/fabrics.h>

#include "fabrics/ofi/ofi.h"
#include "fabrics/protocol/options.h"
#include "fabrics/ofi/provider.h"
#include "fabrics/protocol/endpoint.h"
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
 * efa; callers poll), otherwise a wait fd (FI_WAIT_FD), polled by a
 * progress thread next to its eventfd, by an application through
 * mxlFabricsExtInitiatorGetWaitFd(), or waited on with fi_cq_sread
 * (@threaded no longer changes it).
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

/**
 * MxlEndpointRole:
 * What the shared setup steps need to know of a role: @role (MxlRole, for
 * the provider query), @name ("target", "initiator": messages), the
 * layout of its local flow (a writer or a reader; INVALID_ARG when NULL)
 * and the mapping of one of its grain slots.
 */
typedef struct MxlEndpointRole {
  MxlRole role;
  const char *name;
  mxlStatus (*get_layout) (gpointer flow, MxlFlowLayout *out);
  MxlSlotFn slot;
} MxlEndpointRole;

/** Fills a new, zeroed endpoint base: its instance @inst and its lock. */
void mxl_endpoint_init (MxlEndpoint *ep, mxlFabricsInstance inst);
/** Frees what mxl_endpoint_init() and the events queued since hold; after
 * the role's teardown, before the object is freed. */
void mxl_endpoint_clear (MxlEndpoint *ep);

/**
 * mxl_endpoint_setup_begin:
 * The prologue of target and initiator setup: clears the thread's last
 * error, reads the layout of the local flow @flow (@role's writer or
 * reader) into @out_flow, parses @options and chooses the fi_info
 * (mxl_setup_begin()), and fills @ep's desc, options, grain_count and
 * layout.
 * @out_fi: (out): the chosen fi_info, for mxl_endpoint_setup_open().
 * Returns: OK; INVALID_ARG when @flow is NULL; the statuses of
 * mxl_setup_begin(). On failure the caller tears down and reports with
 * mxl_endpoint_setup_failed().
 */
mxlStatus mxl_endpoint_setup_begin (MxlEndpoint *ep, const MxlEndpointRole *role,
    gpointer flow, const char *options, const mxlFabricsInterfaceConfig *iface,
    MxlFlowLayout *out_flow, struct fi_info **out_fi, GError **error);

/**
 * mxl_endpoint_setup_open:
 * The step after the role's choices that depend on @fi: opens @ep's domain
 * and CQ of @cq_size entries (mxl_setup_endpoint(), @fi freed there) and,
 * for a grain flow, registers every slot of @flow for @slot_access into
 * @ep->regions (mxl_setup_register_slots()). A continuous flow (@layout's
 * format audio) registers nothing here: its role's samples setup does.
 * Returns: OK or the statuses of those two; what was opened is closed by
 * mxl_endpoint_close(), also on failure.
 */
mxlStatus mxl_endpoint_setup_open (MxlEndpoint *ep, const MxlEndpointRole *role,
    gpointer flow, const MxlFlowLayout *layout, struct fi_info *fi, size_t cq_size,
    uint64_t slot_access, GError **error);

/** Reports a failed setup of @role with status @st: a warning and the
 * thread's last error, both with @error's message (or "invalid
 * configuration" without one). */
void mxl_endpoint_setup_failed (const MxlEndpointRole *role, mxlStatus st,
    const GError *error);

/**
 * mxl_endpoint_progress_start:
 * Starts @ep's progress thread @name running @pass (and @has_posts, may be
 * NULL) on @owner under @ep->lock, waiting on the CQ and the EQ (RC) where
 * the provider can wait on its CQ, else on its own eventfd and naps
 * (progress.h).
 * Returns: the statuses of mxl_progress_start().
 */
mxlStatus mxl_endpoint_progress_start (MxlEndpoint *ep, const char *name,
    MxlProgressPass pass, MxlProgressHasPosts has_posts, gpointer owner,
    GError **error);

/** Pops @ep's oldest connection event into @out under its lock.
 * Returns: OK, or NOT_READY when none is queued. */
mxlStatus mxl_endpoint_poll_event (MxlEndpoint *ep, mxlFabricsExtConnectionEvent *out);

/**
 * mxl_endpoint_close:
 * The end of every teardown, after the role closed its endpoints and its
 * own regions: closes the slot regions, the CQ and the domain, empties the
 * result ring and clears setup_done. Safe on a partial setup.
 */
void mxl_endpoint_close (MxlEndpoint *ep);
