/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test hooks, compiled only into the test build: protocol_hooks.c is in
 * the static library only the tests link (mxl_test_sources,
 * src/meson.build), and the files that call what is declared here
 * (initiator.c, initiator_conn.c, initiator_progress.c, setup.c,
 * protocol_send.c, protocol_tagged.c) include this header and call it
 * only with -DMXL_TEST_HOOKS, which that library's copies of them are
 * compiled with. The shared library (libmxlfabrics.so) calls none of it
 * and holds none of it (tests/unit/check-no-hooks.py): there a connection
 * installs its protocol's post, setup asks mxl_provider_getinfo_exact()
 * and the engine hands every completion to its handler directly. All of
 * the following is the test build.
 *
 * The hooks are all in one place (protocol_hooks.c), in the way libfabric's
 * hook providers wrap a provider's ops: the hook ops table the
 * hostile-sender tests fill (send headers, tagged pieces), the
 * capabilities the protocol fallback tests hide from setup, and the faults
 * they inject into an initiator (failed posts, error completions). None of
 * it is in a production struct, a protocol descriptor or on the per-write
 * path: arming a hook swaps the transport post installed on the
 * connections it concerns (MxlConn.post) for a hooking wrapper, put back
 * when nothing is armed any more, and the test build's copy of the
 * engine's completion dispatch (initiator_progress.c) asks
 * mxl_hooks_completion_fault() about every completion first. The wrapper
 * takes the injected post failures, then runs the
 * hooked twin of the protocol's post (the table in protocol_hooks.c:
 * mxl_send_post_hooked(), mxl_tagged_post_hooked()), which reads the hook
 * ops below. Setup asks for its fi_info through mxl_hooks_getinfo(): the
 * ofi layer's, or a masking wrapper while capabilities are hidden.
 *
 * Locks, outermost first: the registry lock (held while a process-wide
 * hook reaches the initiators and while one is forgotten), init->lock,
 * the hook state (with the set of initiators those hooks reach). A
 * connection that becomes connected installs mxl_hooks_conn_post()
 * (init->lock held). Setup joins
 * nothing: an initiator becomes known to the hooks only when a connection
 * of a protocol with hooks becomes connected.
 */
#pragma once

#include "fabrics/protocol/protocol.h"
#include "fabrics/protocol/initiator-state.h"

typedef struct MxlHookOps {
  /* rewrites every send header after it is built (protocol_send.c, protocol_tagged.c) */
  MxlSendHeaderHook send_header;
  /* rewrites the tag and data of every in-place tagged piece (protocol_tagged.c) */
  MxlTaggedHook tagged_piece;
  /* capabilities setup's getinfo hides (mxl_setup_debug_mask_caps()) */
  uint64_t caps_mask;
} MxlHookOps;

/** The hooked twins of the send and tagged posts (protocol_send.c,
 * protocol_tagged.c): the protocol's post with the hooks of the hook ops
 * table run. Installed only by the hooking wrapper. */
ssize_t mxl_send_post_hooked (MxlConn *conn, MxlTransfer *t,
    const struct iovec *iov, void **desc, guint n_iov, MxlWriteCtx *ctx);
ssize_t mxl_tagged_post_hooked (MxlConn *conn, MxlTransfer *t,
    const struct iovec *iov, void **desc, guint n_iov, MxlWriteCtx *ctx);

/** The fi_getinfo() of setup: as mxl_provider_getinfo_exact(). */
typedef mxlStatus (*MxlGetinfoFn) (const mxlFabricsInterfaceConfig *config,
    MxlRole role, uint64_t caps, struct fi_info **out_info, GError **error);

/** The getinfo setup calls (setup.c): mxl_provider_getinfo_exact(), or
 * while capabilities are masked its masking wrapper. Any thread. */
MxlGetinfoFn mxl_hooks_getinfo (void);

/**
 * mxl_setup_debug_mask_caps:
 * Test hook (internal, not exported): setup asking for any of @caps (0
 * clears) finds no provider (MXL_ERR_NO_FABRIC), and the fi_info it gets
 * otherwise lacks them, as if the provider did not offer them: the
 * protocol fallback tests on machines whose providers all have FI_RMA.
 * Process-wide.
 */
void mxl_setup_debug_mask_caps (uint64_t caps);

/** The hooks of the hook ops table (NULL unless a test set one), for the
 * protocols' hooked posts. Any thread. */
MxlSendHeaderHook mxl_hooks_send_header (void);
MxlTaggedHook mxl_hooks_tagged_piece (void);

/** The transport post @conn installs when it becomes connected: its
 * protocol's, or the hooking wrapper while a hook or an injected post
 * failure concerns it. A connection of a protocol with hooks (send,
 * tagged) also makes its initiator one that process-wide hooks armed
 * later reach; nothing is kept for the others. init->lock held. */
MxlTransportPost mxl_hooks_conn_post (MxlConn *conn);

/** Called by the test build's completion dispatch (initiator_progress.c)
 * before the engine's handler with what the CQ read: while an error
 * completion is injected for @init, a good completion of one of its
 * writes in flight (a context of its pool in use, not a claim) reads as
 * an error (*@ok FALSE, *@err the injected positive fi errno), as if
 * fi_cq_readerr() had returned it. The thread driving progress. */
void mxl_hooks_completion_fault (const MxlInitiator *init, const void *op_context,
    gboolean *ok, int *err);

/** Forgets @init and its faults (destroyed): called when destroy begins,
 * and again after its teardown (a connection that became connected while
 * it flushed joined again). Not under init->lock. */
void mxl_hooks_forget (const MxlInitiator *init);
