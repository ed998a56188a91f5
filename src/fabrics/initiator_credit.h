/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The initiator's side of the credit extension (src/fabrics/wire/credit.h,
 * docs/fabrics-engine.md "Credits"): per connection to a target that
 * advertises credits, the window of what was written into each of the
 * target's slots, the receives its releases land in, the reservation
 * TransferGrain makes and the fan-out honours, and the wait for a credit.
 * Connected endpoints (FI_EP_MSG): the connection request announces the
 * initiator (initiator_rc.c). Connectionless ones (FI_EP_RDM): an announce
 * message, sent by mxl_conn_credit_tick() until the target acknowledges it
 * (initiator_rdm.c). Every call is made with init->lock held unless it
 * says otherwise.
 */
#pragma once

#include "fabrics/initiator.h"

/** TRUE when @conn's target advertises a credit version this code speaks
 * and this initiator can receive releases (connectionless: and send the
 * announce): its connection request (RC) or announce message (RDM) then
 * announces @conn->credit_id (made here, random, not 0; called once per
 * connection attempt or endpoint, so every one has a new id). */
gboolean mxl_conn_credit_announce (MxlConn *conn);

/** @conn became connected on @ep: makes its window and posts its receives
 * when it announced itself (connectionless: takes over the receives a
 * connection that left posted on the shared endpoint, if any). */
void mxl_conn_credit_open (MxlConn *conn, struct fid_ep *ep);

/** Connectionless: sends @conn's announce (its id and fi_getname(3)
 * address, fi_inject(3)) when it has credits, is connected, is not
 * acknowledged yet and the last one is MXL_CREDIT_ANNOUNCE_MS old
 * (@now, monotonic us). Returns: fi_inject()'s result (-FI_EAGAIN: shm
 * has not taken up the endpoint's request yet), or 1 when nothing was
 * sent. */
ssize_t mxl_conn_credit_tick (MxlConn *conn, gint64 now);

/** Teardown, after every endpoint is closed: frees the retired credit
 * states (their receives). */
void mxl_initiator_credit_teardown (MxlInitiator *init);

/** @conn left connected (its endpoint is closed) or is freed: its window's
 * counts are kept in @conn, the rest freed. */
void mxl_conn_credit_close (MxlConn *conn);

/** A completion the CQ read: TRUE when @op_context is one of the credit
 * receives, live or retired (then handled: a release of @len bytes, or
 * connectionless an acknowledgement of an announce, applied to the
 * connection whose id it names, else counted on the connection whose
 * receive took it; the receive posted again); FALSE for anything else. */
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

/** A write of a transfer of grain @index to @conn was posted (its slot's
 * reservation is then the target's to release). */
void mxl_conn_credit_posted (MxlConn *conn, uint64_t index);

/** A transfer of grain @index to @conn was dropped before any of its
 * writes was posted (not started within its deadline, or its local slot
 * released): when no write of @index to @conn was posted and no other
 * transfer of it is tracked (@others), its slot's reservation is given
 * back (the slot free, the waiters woken, counted in
 * creditReservationsReturned). */
void mxl_conn_credit_dropped (MxlConn *conn, uint64_t index, gboolean others);

/** The credit fields of GetTargetStats. */
void mxl_conn_credit_stats (const MxlConn *conn, mxlFabricsExtInitiatorTargetStats *out);

#ifdef MXL_TEST_HOOKS
/** Test build only: sends @len bytes as they are to the connectionless
 * target @target_id from its connection's endpoint (hostile announces).
 * Takes init->lock. Returns: OK; INVALID_STATE when that connection is
 * not connected with credits; UNKNOWN when fi_inject() failed. */
mxlStatus mxl_initiator_credit_debug_send (MxlInitiator *init, uint64_t target_id,
    const void *msg, size_t len);
#endif
