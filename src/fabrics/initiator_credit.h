/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The initiator's side of the credit extension (src/fabrics/wire/credit.h,
 * docs/fabrics-engine.md "Credits"): per connection to a target that
 * advertises credits, the window of what was written into each of the
 * target's slots (grains) or bounce entries (samples), the receives its
 * releases land in, the reservation TransferGrain or TransferSamples makes
 * and the fan-out honours, and the wait for a credit.
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

/** What a credit is for, chosen at setup (init->credit_ops) with the
 * chunk source: a grain slot (mxl_grain_credit_ops: grain i goes into slot
 * i % ring) or a bounce entry (mxl_samples_credit_ops: the n-th entry a
 * connection writes, counted from 0 per connection, goes into entry
 * n % entryCount, the credit index n). The window, the release messages
 * and their checks are the same (credit.h). Every op is called with
 * init->lock held. */
typedef struct MxlCreditOps {
  /* TransferGrain / TransferSamples @desc on connected @conn: TRUE when
   * its target had room for it, now reserved; FALSE: it does not get it
   * (counted in grains_no_credit by the caller). */
  gboolean (*reserve) (MxlConn *conn, const MxlPostDesc *desc);
  /* The submit of @desc failed after reserve(): its reservation on @conn
   * is undone. */
  void (*undo) (MxlConn *conn, const MxlPostDesc *desc);
  /* TRUE when the fan-out must not queue @what on @conn: it has credits
   * and nothing was reserved for it there. */
  gboolean (*skips) (MxlConn *conn, const MxlTracked *what);
  /* The fan-out could not queue @what on @conn: its reservation is given
   * back. */
  void (*unqueued) (MxlConn *conn, const MxlTracked *what);
  /* The fan-out queued @what on @conn as the transfers from @first_seq
   * on (samples: each one entry, which the window then holds). */
  void (*queued) (MxlConn *conn, const MxlTracked *what, uint64_t first_seq);
  /* TRUE with @slot when the window holds what tracked transfer @tr
   * writes (its grain's slot, or the entry it writes). */
  gboolean (*slot_of) (const struct MxlConnCredit *cc, const MxlTracked *tr,
      guint *slot);
  /* Tracked transfer @tr was dropped before any of its writes was posted
   * (not started within its deadline, or its local slot released): when
   * no write of it was posted and (grains) no other transfer of its grain
   * is tracked (@others), its slot's or entry's reservation is given back
   * (free, the waiters woken, counted in creditReservationsReturned).
   * Called only for a connection with credits, as every op. */
  void (*dropped) (MxlConn *conn, const MxlTracked *tr, gboolean others);
  /* TRUE when @conn (credits, connected) can take @index now: a grain
   * index, or the head of the batch about to be sent (its length taken as
   * @index minus the head of the last batch reserved for @conn, one entry
   * when that is no batch length). */
  gboolean (*available) (MxlConn *conn, uint64_t index);
} MxlCreditOps;

extern const MxlCreditOps mxl_grain_credit_ops;
extern const MxlCreditOps mxl_samples_credit_ops;

/** TRUE when the fan-out must not queue @what on @conn (init->credit_ops
 * skips). */
gboolean mxl_conn_credit_skips (MxlConn *conn, const MxlTracked *what);

/** mxlFabricsExtInitiatorWaitCredit() (@info NULL: every target); takes
 * init->lock itself. */
mxlStatus mxl_initiator_wait_credit (MxlInitiator *init,
    const struct mxlFabricsTargetInfo_t *info, uint64_t index, int timeout_ms);

/** TransferGrain's and TransferSamples' submit (init->mode) of @desc,
 * init->lock not held: first the reservation of init->credit_ops, undone
 * when the submit fails. Returns: the submit's status; MXL_ERR_NOT_READY
 * without submitting when every connected target has credits and none has
 * room for it, and after submitting when some target had none. */
mxlStatus mxl_initiator_credit_submit (MxlInitiator *init, const MxlPostDesc *desc);

/** After the fan-out's attempt to queue @what on @conn: @queued, as the
 * transfers from @first_seq on (init->credit_ops queued), else its
 * reservation is undone (unqueued). Nothing without credits. */
void mxl_conn_credit_after_queue (MxlConn *conn, const MxlTracked *what, gboolean queued,
    uint64_t first_seq);

/** A write of tracked transfer @tr to @conn was posted: its slot or entry
 * is then the target's to release (a drop no longer gives it back). */
void mxl_conn_credit_posted (MxlConn *conn, const MxlTracked *tr);

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
