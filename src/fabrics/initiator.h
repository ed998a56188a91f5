/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An initiator: a flow reader's grain slots registered for FI_WRITE, and one
 * connection per added target. Connected (FI_EP_MSG: tcp, verbs) and
 * connectionless (FI_EP_RDM: shm, efa, tcp;ofi_rxm) initiators share this
 * code and differ only in their MxlInitiatorTypeOps (initiator_rc.c,
 * initiator_rdm.c). Every connection's state is a tagged union changed only
 * by mxl_conn_transition().
 *
 * Without a progress thread: driven by one thread at a time (wire spec
 * §6.8); progress happens inside TransferGrain and MakeProgress. With one
 * (setup option "progressThread"): TransferGrain only pushes a small
 * descriptor (MxlPostDesc) into the lock-free post ring and wakes the
 * thread; the progress thread (initiator_progress.c) is the only thread
 * touching endpoints, CQ and EQ (the raw test requests aside, which post
 * under init->lock: mxl_initiator_queue_one()), and holds init->lock
 * during each pass (never while it waits). Other calls (targets, events, stats, results,
 * MakeProgress) take init->lock. No call blocks without a deadline.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>

#include "fabrics/wire/bounce.h"
#include "fabrics/events.h"
#include "fabrics/protocol/grainstage.h"
#include "fabrics/ofi/ofi.h"
#include "fabrics/protocol/options.h"
#include "fabrics/postring.h"
#include "fabrics/ofi/progress.h"
#include "fabrics/protocol/protocol.h"
#include "fabrics/ofi/provider.h"
#include "fabrics/wire/targetinfo.h"
#include "fabrics/protocol/initiator-state.h"

extern const MxlInitiatorTypeOps mxl_initiator_rc_ops;
extern const MxlInitiatorTypeOps mxl_initiator_rdm_ops;
/** Connectionless: TRUE when every connection uses the one endpoint of
 * the initiator (every provider but shm, initiator_rdm.c). */
gboolean mxl_initiator_rdm_shares_endpoint (const MxlInitiator *init);

/** Sets up the initiator (mxlFabricsInitiatorSetup()). */
mxlStatus mxl_initiator_setup (MxlInitiator *init,
    const mxlFabricsInitiatorConfig *config, const char *options);
void mxl_initiator_destroy (MxlInitiator *init);

mxlStatus mxl_initiator_add_target (MxlInitiator *init,
    const struct mxlFabricsTargetInfo_t *info);
mxlStatus mxl_initiator_remove_target (MxlInitiator *init,
    const struct mxlFabricsTargetInfo_t *info);
mxlStatus mxl_initiator_transfer_grain (MxlInitiator *init, uint64_t index,
    uint16_t start, uint16_t end);
mxlStatus mxl_initiator_transfer_samples (MxlInitiator *init, uint64_t head,
    uint64_t count);
/** @timeout_ms: < 0 non-blocking. */
mxlStatus mxl_initiator_make_progress (MxlInitiator *init, int timeout_ms);

mxlStatus mxl_initiator_target_state (MxlInitiator *init, uint64_t target_id,
    mxlFabricsExtConnectionState *out);
void mxl_initiator_get_stats (MxlInitiator *init, mxlFabricsExtInitiatorStats *out);

/**
 * mxl_initiator_slot_in_use:
 * Whether local slot @slot (< grain_count) is still read by a transfer:
 * queued on a connection, or with a write posted and not yet completed
 * (including writes of a lost connection not yet reclaimed). Grain flows
 * only. Takes init->lock; with a progress thread, any descriptor still in
 * the post ring makes every slot count as in use (conservative).
 */
gboolean mxl_initiator_slot_in_use (MxlInitiator *init, uint32_t slot);
/** The same, init->lock held by the caller. */
gboolean mxl_initiator_slot_in_use_locked (const MxlInitiator *init, uint32_t slot);

/* --- raw test requests (initiator_raw.c): the test build only
 * (-DMXL_TEST_HOOKS, src/meson.build) --- */
#ifdef MXL_TEST_HOOKS

/**
 * mxl_initiator_queue_one:
 * Takes init->lock and queues @request on the connected target
 * @target_id through @queue, tracked for results as @what (grain index,
 * slices), then posts it from the calling thread, in both modes (under
 * init->lock, as RemoveTarget closes endpoints); the post ring is
 * bypassed. Used only by the raw test requests (initiator_raw.c).
 * Returns: OK, NOT_FOUND, INVALID_STATE (not connected), NOT_READY
 * (refused: queue full), or what @queue returned (INVALID_ARG: also a
 * result).
 */
mxlStatus mxl_initiator_queue_one (MxlInitiator *init, uint64_t target_id,
    const MxlTracked *what, MxlQueueFn queue, const void *request);

/**
 * mxl_initiator_debug_post_raw:
 * Test hook (internal, not exported): posts one write of @length bytes from
 * local slot @local_slot at @offset into remote region @remote_slot at the
 * same offset, with arbitrary immediate data @imm, to the connected target
 * @target_id. The write is still checked against both regions. Used by the
 * hostile-initiator tests.
 * Posted from the calling thread, also with a progress thread
 * (mxl_initiator_queue_one()).
 * Returns: OK, NOT_FOUND, INVALID_STATE (not connected), INVALID_ARG (out of
 * a region), NOT_READY (queue full, retry after progress).
 */
mxlStatus mxl_initiator_debug_post_raw (MxlInitiator *init, uint64_t target_id,
    uint32_t local_slot, uint32_t remote_slot, uint64_t offset, uint64_t length,
    uint32_t imm);

/**
 * mxl_initiator_debug_samples_raw:
 * Test hook (internal): transfers samples [head - count, head) into bounce
 * entry @entry of target @target_id with immediate data @imm and the entry
 * header saying (@header_head, @header_count), without advancing the entry
 * counter. Returns: as mxl_initiator_debug_post_raw().
 */
mxlStatus mxl_initiator_debug_samples_raw (MxlInitiator *init, uint64_t target_id,
    uint64_t head, uint64_t count, uint32_t entry, uint32_t imm, uint64_t header_head,
    uint64_t header_count);

#endif /* MXL_TEST_HOOKS */

/* --- grain payloads from caller memory (initiator_payload.c; stored by
 * protocol/payload.c) --- */

/** mxlFabricsExtInitiatorSetGrainPayload(), arguments checked for NULL. */
mxlStatus mxl_initiator_set_grain_payload (MxlInitiator *init, uint64_t index,
    const void *payload, size_t size);

/* --- shared by initiator.c, initiator_rc.c, initiator_rdm.c, protocol/ --- */

/** The one transition function of a connection's state (see MxlConnInput). */
void mxl_conn_transition (MxlConn *conn, MxlConnInput input, mxlStatus reason);

/** A lost connection's own endpoint is kept open this long at most while
 * its peer process lives and writes it posted have not completed (ms);
 * for a target of this process (mxl_conn_peer_local()), while it lives. */
#define MXL_PARK_MAX_MS 30000

/** How long destroy keeps progressing an endpoint whose writes a target of
 * this process has not processed yet, before it keeps the endpoint open
 * until that target is gone instead of closing it (ms; P17). */
#define MXL_LOCAL_PEER_DRAIN_MS 200

/** TRUE when the shm peer of @conn is known to be gone (TargetInfo ext.pid;
 * for a target of this process, its withdrawn address: localpeers.h). */
gboolean mxl_conn_peer_gone (const MxlConn *conn);

/**
 * mxl_initiator_send_eos:
 * mxlFabricsExtInitiatorSendEndOfStream() (initiator_eos.c): posts the
 * end-of-stream notice to every connected target that advertises it, each
 * once nothing is queued or in flight to it, and waits at most
 * @timeout_ms in all for their completions; @out_sent (nullable):
 * those that completed. Returns: OK, or MXL_ERR_TIMEOUT.
 */
mxlStatus mxl_initiator_send_eos (MxlInitiator *init, int timeout_ms, uint32_t *out_sent);
/** A completion of @ctx (base.lock held): TRUE when it is a notice's,
 * which it counts and puts back; FALSE for every other. */
gboolean mxl_initiator_eos_done (MxlInitiator *init, MxlWriteCtx *ctx, gboolean ok);

/** TRUE when the peer of @conn is a target of this process that the
 * provider reaches through the target's own memory, and that reaches this
 * side's endpoint through its memory too (docs/libfabric-notes.md P17). */
gboolean mxl_conn_peer_local (const MxlConn *conn);

/** Releases the contexts of connection generation @conn_id now that no
 * completion of theirs can come (their endpoint is closed). */
void mxl_initiator_release_contexts (MxlInitiator *init, uint64_t conn_id);

/** TRUE when a context of connection generation @conn_id is in use. */
gboolean mxl_initiator_contexts_in_use (const MxlInitiator *init, uint64_t conn_id);




/** mxlFabricsExtInitiatorReleaseGrainSlot() (initiator.c). */
mxlStatus mxl_initiator_release_slot (MxlInitiator *init, uint64_t index,
    gboolean drop_holders, gboolean *out_in_flight);

/** mxlFabricsExtInitiatorGetTargetStats() (initiator.c). */
mxlStatus mxl_initiator_target_stats (MxlInitiator *init, uint64_t target_id,
    mxlFabricsExtInitiatorTargetStats *out);

/** mxlFabricsExtInitiatorPollTransferResult(); @timeout_ms 0: at once. */
mxlStatus mxl_initiator_poll_result (MxlInitiator *init, int timeout_ms,
    mxlFabricsExtTransferResult *out);

/* --- progress thread (initiator_progress.c) --- */

/** The two modes (MxlInitiatorMode): without a thread (set at setup) and
 * with one (set while it runs). */
extern const MxlInitiatorMode mxl_initiator_inline_mode;
extern const MxlInitiatorMode mxl_initiator_thread_mode;

/** Starts the thread and the post ring (options.progress_thread). */
mxlStatus mxl_initiator_progress_start (MxlInitiator *init, GError **error);
/** Flushes (at most @flush_ms) and stops the thread; frees the ring. */
void mxl_initiator_progress_stop (MxlInitiator *init, int flush_ms);
/** Producer side of TransferGrain: validated, then pushed with a deadline. */
mxlStatus mxl_initiator_progress_post (MxlInitiator *init, const MxlPostDesc *desc);
/** MakeProgress with the thread: waits on init->cond. */
mxlStatus mxl_initiator_progress_wait (MxlInitiator *init, int timeout_ms);

/* --- wait fd for inline progress (initiator_wait.c) --- */

/** mxlFabricsExtInitiatorGetWaitFd(): made at the first call; -1 without
 * wait objects or with the progress thread. @init->base.lock held. */
int mxl_initiator_wait_fd (MxlInitiator *init);
/** mxlFabricsExtInitiatorTryWait(); @init->base.lock held. */
mxlStatus mxl_initiator_try_wait (MxlInitiator *init);
/** Closes the wait fd (teardown). */
void mxl_initiator_wait_fd_close (MxlInitiator *init);

/* --- shared by the initiator files: initiator.c (setup, targets,
 * fan-out), initiator_conn.c (contexts, state machine), initiator_results.c
 * (tracking, results, application view), initiator_progress.c --- */

/** The application's name of state @kind. */
mxlFabricsExtConnectionState mxl_conn_public_state (MxlConnKind kind);
/** The connection of target @target_id, or NULL. */
MxlConn *mxl_initiator_find_conn (MxlInitiator *init, uint64_t target_id);
/**
 * mxl_conn_new:
 * A connection to the target of @info (copied) using @protocol, in the
 * initiator's list: REMOVED → IDLE through mxl_conn_transition()
 * (reported as the target being added).
 */
MxlConn *mxl_conn_new (MxlInitiator *init, const struct mxlFabricsTargetInfo_t *info,
    const MxlProtocolDesc *protocol);
/** Frees a connection (the list's free function). */
void mxl_conn_free (MxlConn *conn);
/** Contexts orphaned longer than the reclaim delay are taken back. */
void mxl_initiator_reclaim_orphans (MxlInitiator *init);
/** Reads completions; @timeout_ms >= 0 waits (CQs with a wait object). */
void mxl_initiator_drain_cq (MxlInitiator *init, int timeout_ms);
/** Queues the result of a finished transfer for PollTransferResult. */
void mxl_initiator_push_result (MxlInitiator *init, uint64_t target_id,
    const MxlTracked *tr);
/** Tracks transfer @seq of @conn (@what: index, slices, queue time). */
void mxl_conn_track_add (MxlConn *conn, uint64_t seq, const MxlTracked *what);
/** Every tracked transfer of @conn fails with @reason (connection left). */
void mxl_conn_track_cancel (MxlConn *conn, mxlStatus reason);
/** A write of transfer @seq completed (@ok, @err: its fi errno). */
void mxl_conn_track_complete (MxlConn *conn, uint64_t seq, gboolean ok, int err);
/* The engine's side of MxlEngineOps (initiator-state.h), handed to the
 * protocol layer at setup (initiator_results.c). */
void mxl_conn_track_write (MxlConn *conn, uint64_t seq, gboolean last);
void mxl_conn_track_fail (MxlConn *conn, uint64_t seq, mxlStatus status,
    int prov_err, gboolean final);
void mxl_conn_track_drop (MxlConn *conn, uint64_t seq, mxlStatus status);
gboolean mxl_conn_transfer_idle (MxlConn *conn, uint64_t seq);
/** Handles one completion the initiator's CQ read (initiator_progress.c,
 * which alone calls it): a write of a connection, or a claim
 * (initiator_rdm.c); @ok FALSE with @err (a positive fi errno) for an
 * error entry; contexts that are not the initiator's, or not in use, are
 * ignored. */
void mxl_initiator_on_completion (MxlInitiator *init, void *op_context, gboolean ok,
    int err);

mxlStatus mxl_initiator_progress_once (MxlInitiator *init);
/** Queues the request of @desc on every connected target through the
 * chunk source chosen at setup (init->fan_out). */
mxlStatus mxl_initiator_fan_out_desc (MxlInitiator *init, const MxlPostDesc *desc);
/** TRUE when every connected connection has room for one more transfer. */
gboolean mxl_initiator_room_for_one (MxlInitiator *init);
