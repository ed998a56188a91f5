/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test hooks, all in one place (protocol_hooks.c), in the way libfabric's
 * hook providers wrap a provider's ops: the hook ops table the
 * hostile-sender tests fill (send headers, tagged pieces) and the faults
 * they inject into an initiator (failed posts, error completions). None of
 * it is in a production struct or on the per-write path: arming a hook
 * swaps the transport post installed on the connections it concerns
 * (MxlConn.post) for a hooking wrapper, and a pending error completion
 * swaps the initiator's completion handler (MxlInitiator.on_completion);
 * both are put back when nothing is armed any more. The wrapper takes the
 * injected post failures, then runs the protocol's hooked post
 * (MxlProtocolDesc.post_hooked), which reads the hook ops below.
 *
 * Locks, outermost first: the list of initiators, init->lock, the hook
 * state. A connection that becomes connected installs
 * mxl_hooks_conn_post() (init->lock held).
 */
#pragma once

#include "fabrics/protocol/protocol.h"

typedef struct MxlHookOps {
  /* rewrites every send header after it is built (protocol_send.c, protocol_tagged.c) */
  MxlSendHeaderHook send_header;
  /* rewrites the tag and data of every in-place tagged piece (protocol_tagged.c) */
  MxlTaggedHook tagged_piece;
} MxlHookOps;

/** The hooks of the hook ops table (NULL unless a test set one), for the
 * protocols' hooked posts. Any thread. */
MxlSendHeaderHook mxl_hooks_send_header (void);
MxlTaggedHook mxl_hooks_tagged_piece (void);

/** The transport post @conn installs when it becomes connected: its
 * protocol's, or the hooking wrapper while a hook or an injected post
 * failure concerns it. init->lock held. */
MxlTransportPost mxl_hooks_conn_post (MxlConn *conn);

/** Setup of @init finished: process-wide hooks armed later reach its
 * connections, faults injected before take effect. Not under init->lock. */
void mxl_hooks_add (MxlInitiator *init);

/** Forgets @init and its faults (destroyed). Not under init->lock. */
void mxl_hooks_forget (const MxlInitiator *init);
