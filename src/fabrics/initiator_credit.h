/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The initiator's side of the credit extension (src/fabrics/wire/credit.h,
 * docs/fabrics-engine.md "Credits"): per connection to a target that
 * advertises credits, the window of what was written into each of the
 * target's slots, the receives its releases land in, the reservation
 * TransferGrain makes and the fan-out honours, and the wait for a credit.
 * Connected endpoints only (FI_EP_MSG: the connection request announces
 * the initiator, initiator_rc.c); every call is made with init->lock held
 * unless it says otherwise.
 */
#pragma once

#include "fabrics/initiator.h"

/** TRUE when @conn's target advertises a credit version this code speaks
 * and this initiator can receive releases: its connection request then
 * announces @conn->credit_id (made here, not 0). */
gboolean mxl_conn_credit_announce (MxlConn *conn);

/** @conn became connected on @ep: makes its window and posts its receives
 * when it announced itself. */
void mxl_conn_credit_open (MxlConn *conn, struct fid_ep *ep);

/** @conn left connected (its endpoint is closed) or is freed: its window's
 * counts are kept in @conn, the rest freed. */
void mxl_conn_credit_close (MxlConn *conn);

/** A completion the CQ read: TRUE when @op_context is one of the credit
 * receives (then handled: a release of @len bytes applied, counted, the
 * receive posted again); FALSE for anything else. */
gboolean mxl_initiator_credit_completion (MxlInitiator *init, void *op_context,
    gboolean ok, size_t len);

/** TransferGrain of @index: reserves its slot in the window of every
 * connected target with credits that has one free. Returns: how many such
 * targets had none (they do not get the grain). @with_credit: how many
 * targets with credits took it. */
guint mxl_initiator_credit_reserve (MxlInitiator *init, uint64_t index,
    guint *with_credit);

/** TRUE when the fan-out must not queue grain @index on @conn: it has
 * credits and its slot was not reserved for @index. */
gboolean mxl_conn_credit_skips (MxlConn *conn, uint64_t index);

/** mxlFabricsExtInitiatorWaitCredit() (@info NULL: every target); takes
 * init->lock itself. */
mxlStatus mxl_initiator_wait_credit (MxlInitiator *init,
    const struct mxlFabricsTargetInfo_t *info, uint64_t index, int timeout_ms);

/** TransferGrain's submit (init->mode) of @desc, init->lock not held:
 * first the reservation of mxl_initiator_credit_reserve(), undone when the
 * submit fails. Returns: the submit's status; MXL_ERR_NOT_READY without
 * submitting when every connected target has credits and none is free
 * for the grain, and after submitting when some target had none. */
mxlStatus mxl_initiator_credit_submit (MxlInitiator *init, const MxlPostDesc *desc);

/** The fan-out could not queue grain @index on @conn: its reservation is
 * undone. */
void mxl_conn_credit_unreserve (MxlConn *conn, uint64_t index);

/** The credit fields of GetTargetStats. */
void mxl_conn_credit_stats (const MxlConn *conn, mxlFabricsExtInitiatorTargetStats *out);
