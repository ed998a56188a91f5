/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The claims of one connectionless connection to an exclusive target
 * (TargetInfo ext.claimAddr/claimKey, src/fabrics/wire/claim.h): the
 * claim write and the read of the owner word it is followed by, as a
 * state machine of its own (initiator_claim.c) that the connectionless
 * initiator (initiator_rdm.c) drives from its progress pass and its
 * completions.
 */
#pragma once

#include "fabrics/initiator.h"

typedef struct MxlConnClaim MxlConnClaim;

/**
 * mxl_claim_tick:
 * Posts the claim write or owner read of @conn that is due at @now, on @ep
 * to @addr with @token, allocating and registering *@claim on first use.
 * Returns: FALSE when nothing was due; else TRUE with the outcome in @rc:
 * 0 (posted), or the negative fi errno (-FI_EAGAIN: tried again later;
 * -FI_ENOMEM: *@claim could not be registered).
 */
gboolean mxl_claim_tick (MxlConnClaim **claim, MxlConn *conn, struct fid_ep *ep,
    fi_addr_t addr, uint64_t token, gint64 now, ssize_t *rc);
/** A claim write or read of @conn completed (@ok: without error); moves
 * @conn to connected when the owner read names @token, to an error when
 * it names another initiator or the operation failed. @claim NULL: none
 * was posted, nothing happens. */
void mxl_claim_done (MxlConnClaim *claim, MxlConn *conn, uint64_t token, gboolean ok);
/**
 * mxl_claim_post_eos:
 * Posts the end-of-stream notice of @conn (src/fabrics/wire/eos.h) with
 * @ctx: @token written into its mailbox of the target's claim region,
 * immediate data mxl_eos_imm() naming that mailbox, so that the target
 * knows it from its owner. Returns: 0 or the negative fi errno.
 */
ssize_t mxl_claim_post_eos (MxlConnClaim *claim, MxlConn *conn, struct fid_ep *ep,
    fi_addr_t addr, uint64_t token, MxlWriteCtx *ctx);
/** The connection opens (again): a claim write is due now. NULL: none. */
void mxl_claim_restart (MxlConnClaim *claim);
/** The connection closes: nothing is in flight any more. NULL: none. */
void mxl_claim_stop (MxlConnClaim *claim);
/** Closes the claim region in @dom (NULL: closed with it) and frees
 * @claim (NULL: nothing). */
void mxl_claim_free (MxlConnClaim *claim, MxlOfiDomain *dom);
