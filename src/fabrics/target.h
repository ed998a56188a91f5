/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A target: a flow writer's grain slots registered for FI_REMOTE_WRITE, one
 * completion queue, and an endpoint-type variant: RC (FI_EP_MSG, a passive
 * endpoint that keeps listening and one accepted initiator at a time,
 * target_rc.c) or RDM (one connectionless endpoint, target_rdm.c).
 *
 * Reads drain the completion queue in batches into a small buffer; every
 * completion with immediate data is validated and then committed to the
 * flow by the target itself (mxlFlowWriterOpenGrain + validSlices from the
 * immediate data + mxlFlowWriterCommitGrain, docs/wire-format.md §6.9), which makes the
 * grain visible to local readers.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>

#include "fabrics/wire/bounce.h"
#include "fabrics/wire/claim.h"
#include "fabrics/events.h"
#include "fabrics/ofi/ofi.h"
#include "fabrics/protocol/options.h"
#include "fabrics/ofi/pollnap.h"
#include "fabrics/ofi/progress.h"
#include "fabrics/protocol/protocol.h"
#include "fabrics/ofi/provider.h"
#include "fabrics/wire/targetinfo.h"
#include "fabrics/protocol/target-state.h"

extern const MxlTargetTypeOps mxl_target_rc_ops;
extern const MxlTargetTypeOps mxl_target_rdm_ops;

mxlStatus mxl_target_setup (MxlTarget *target,
    const mxlFabricsTargetConfig *config, const char *options,
    struct mxlFabricsTargetInfo_t **out_info);
void mxl_target_destroy (MxlTarget *target);

/** @timeout_ms: < 0 or 0 non-blocking, otherwise the longest wait.
 * @out_count: samples per channel (continuous flows; 0 for grains). */
mxlStatus mxl_target_read (MxlTarget *target, int timeout_ms,
    uint64_t *out_index, uint64_t *out_count);

/** Makes a waiting (or the next) read return MXL_ERR_INTERRUPTED. */
void mxl_target_interrupt (MxlTarget *target);
void mxl_target_get_stats (MxlTarget *target, mxlFabricsExtTargetStats *out);

/* --- shared by target.c, target_rc.c, target_rdm.c, protocol/ --- */

/** Binds @ep to the target's CQ (FI_TRANSMIT | FI_RECV: 1.17 tcp crashes
 * otherwise, docs/wire-format.md §6.1). */
mxlStatus mxl_target_bind_cq (MxlTarget *target, struct fid_ep *ep,
    GError **error);
/** Builds the target's TargetInfo from its regions and @addr (fi_getname()). */
mxlStatus mxl_target_fill_info (MxlTarget *target, const void *addr,
    size_t addr_len);
/** Hands @ep to the protocol's receives (t->pstate->rx_ops), the one
 * call of the endpoint types (target_rc.c: when a connection is
 * established, target_rdm.c: when the endpoint is enabled): all are
 * posted on it and re-posted there; NULL when the endpoint goes (before
 * the caller closes it). Nothing when the protocol posts none.
 * Returns: OK or the status of the first post that failed. */
mxlStatus mxl_target_set_rx_ep (MxlTarget *target, struct fid_ep *ep);
/** Re-posts the receive buffer of @op_context if it is one of ours. */
void mxl_target_repost (MxlTarget *target, void *op_context);
/** The same for a receive that completed with an error. */
void mxl_target_receive_failed (MxlTarget *target, void *op_context);
/* --- exclusivity of a connectionless target (target_claim.c), kept by
 * its type state (target_rdm.c) --- */

typedef struct MxlTargetClaims MxlTargetClaims;

/** Creates the exclusivity state into *@out, set also on failure (for
 * mxl_target_claims_free()); for an exclusive target of a protocol that
 * can use claims (and FI_REMOTE_READ, fewer than MXL_CLAIM_SLOT regions)
 * also the claim region. Returns: OK or the registration's failure. */
mxlStatus mxl_target_claims_new (MxlTarget *target, MxlTargetClaims **out,
    GError **error);
/** Closes the claim region and frees @claims (NULL: nothing). */
void mxl_target_claims_free (MxlTarget *target, MxlTargetClaims *claims);
/** Advertises the claim region in @info, if @claims has one. */
void mxl_target_claims_fill_info (const MxlTargetClaims *claims,
    struct mxlFabricsTargetInfo_t *info);
/** Handles the claims among the @len completions of @batch and removes
 * them from it. Returns: the completions left (in order). */
size_t mxl_target_claims_take (MxlTarget *target, MxlTargetClaims *claims,
    struct fi_cq_data_entry *batch, size_t len);

/* --- the credit extension (target_credit.c; src/fabrics/wire/credit.h) --- */

typedef struct MxlTargetCredit MxlTargetCredit;

/** Setup option "credits", grain or continuous flow, FI_SEND, a connected endpoint, or
 * a connectionless one with FI_RECV whose protocol posts no receives of
 * its own (t->pstate NULL): makes t->credit (its holds, the peer to send
 * releases to; connectionless: the registration of the announce
 * receives). Called after the protocol's setup, before the type's open. */
void mxl_target_credit_setup (MxlTarget *target);
void mxl_target_credit_free (MxlTarget *target);
/** Advertises ext.credits in @info when t->credit exists. */
void mxl_target_credit_fill_info (const MxlTarget *target,
    struct mxlFabricsTargetInfo_t *info);
/** The connection the releases go to: @ep with the id @credit_id its
 * request announced (0: none, a reference initiator), or NULL before the
 * endpoint is closed. Any thread; takes the credit state's own lock. */
void mxl_target_credit_peer (MxlTarget *target, struct fid_ep *ep, uint64_t credit_id);
/** Connectionless: posts the announce receives on the enabled @ep, whose
 * AV @av takes the announced addresses. A receive the provider refuses
 * leaves the target without credits (t->credit freed, not advertised).
 * Returns: MXL_STATUS_OK. */
mxlStatus mxl_target_credit_open_rdm (MxlTarget *target, struct fid_ep *ep,
    struct fid_av *av);
/** Connectionless: forgets the endpoint, AV and peer before they are
 * closed. */
void mxl_target_credit_close_rdm (MxlTarget *target);
/** Connectionless: handles the announces among the @len completions of
 * @batch (untrusted: a malformed one counted in creditAnnouncesBad, a
 * valid one makes its initiator the peer and is acknowledged) and removes
 * them. Returns: the completions left, in order. */
size_t mxl_target_credit_take (MxlTarget *target, struct fi_cq_data_entry *batch,
    size_t len);
/** An error completion of @op_context with error @err (positive): TRUE
 * when it was an announce receive (counted bad unless cancelled, posted
 * again), FALSE for anything else. */
gboolean mxl_target_credit_receive_failed (MxlTarget *target, void *op_context, int err);
/** ReadGrain returned @index: its slot holds it until released (grain
 * flows; nothing for a continuous one). */
void mxl_target_credit_read (MxlTarget *target, uint64_t index);
/** A completion for bounce entry @entry (the immediate data, untrusted:
 * out of range is ignored) was consumed, its samples committed into the
 * flow or refused: continuous flows with an announced peer release it at
 * once (its credit index derived from the order of the entries,
 * target_credit.c); nothing for a grain flow. Any thread; takes the
 * credit state's own lock. */
void mxl_target_credit_entry (MxlTarget *target, uint64_t entry);
/** mxlFabricsExtTargetReleaseGrain(): INVALID_STATE without credits or
 * for a continuous flow (the target releases its entries itself). */
mxlStatus mxl_target_release_grain (MxlTarget *target, uint64_t index);
/** mxlFabricsExtTargetCreditsAnnounced(). */
mxlStatus mxl_target_credit_announced (MxlTarget *target, bool *out_announced);
/** The credit counters of GetStats. */
void mxl_target_credit_stats (MxlTarget *target, mxlFabricsExtTargetStats *out);
#ifdef MXL_TEST_HOOKS
/** Test build only: sends @len bytes as they are to the initiator that
 * announced itself (hostile releases). Returns: OK, INVALID_STATE without
 * one, UNKNOWN when fi_inject() failed. */
mxlStatus mxl_target_credit_debug_send (MxlTarget *target, const void *msg, size_t len);
/** Test build only: the id the initiator announced (0: none). */
uint64_t mxl_target_credit_debug_peer_id (MxlTarget *target);
#endif

/* --- sinks (MxlTargetSinkOps, target-state.h) --- */

/** The one-path commit: grain @index, validSlices @slices, published in
 * @target's own flow (mxlFlowWriterOpenGrain() + CommitGrain()).
 * Returns: OK or the flow writer's status. */
mxlStatus mxl_target_commit_own (MxlTarget *target, uint64_t index, uint16_t slices);
/** Queues one read result in @target's result ring (thread mode, its lock
 * held); the oldest is dropped (readResultsDropped) when it is full. */
void mxl_target_push_result (MxlTarget *target, mxlStatus status, uint64_t index,
    uint64_t count);

/* --- two paths (target_paths.c, docs/fabrics-engine.md "Two paths") --- */

typedef struct MxlTargetPaths MxlTargetPaths;

/** mxlFabricsExtTargetSetupTwoPaths() (<mxl/fabrics-ext.h>, its errors). */
mxlStatus mxl_target_setup_paths (MxlTarget *target, const mxlFabricsTargetConfig *config,
    const mxlFabricsInterfaceConfig *path_b, const char *options,
    struct mxlFabricsTargetInfo_t **out_info);
/** The first path's teardown, first: destroys the second path (its
 * progress thread stopped, its endpoints and private ring closed).
 * Nothing for a one-path target or for the second path itself. */
void mxl_target_paths_stop (MxlTarget *target);
/** The end of the first path's teardown: frees the merge state and the
 * second path's private flow. Nothing without paths. */
void mxl_target_paths_free (MxlTarget *target);
/** mxlFabricsExtTargetGetPathStats(). */
mxlStatus mxl_target_path_stats (MxlTarget *target, uint32_t path,
    mxlFabricsExtTargetPathStats *out);

/** Queues a connection event for mxlFabricsExtTargetPollEvent(). */
void mxl_target_push_event (MxlTarget *target,
    mxlFabricsExtConnectionState previous, mxlFabricsExtConnectionState current,
    mxlStatus reason);
