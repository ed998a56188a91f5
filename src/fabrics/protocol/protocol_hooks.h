/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test hooks, all in one place (protocol_hooks.c): the hook ops table the
 * hostile-sender tests fill (send headers, tagged pieces) and the faults
 * they inject into an initiator (failed posts, error completions). None of
 * it is in a production struct or on the per-write path: while nothing is
 * armed, mxl_egress_pump() posts through the connection's own transport;
 * once something is, it posts through mxl_hooks_post(), which takes the
 * injected faults and then runs the protocol's hooked post
 * (MxlProtocolDesc.post_hooked).
 */
#pragma once

#include "fabrics/protocol/protocol.h"

typedef struct MxlHookOps {
  /* rewrites every send header after it is built (protocol_send.c, protocol_tagged.c) */
  MxlSendHeaderHook send_header;
  /* rewrites the tag and data of every in-place tagged piece (protocol_tagged.c) */
  MxlTaggedHook tagged_piece;
} MxlHookOps;

/** The process-wide hook table (all NULL unless a test set one). */
extern MxlHookOps mxl_hook_ops;

/** TRUE while a hook is set or a fault is pending for any initiator:
 * read once per pump call and per completion. */
gboolean mxl_hooks_armed (void);

/** The transport used while hooks are armed: an injected post failure of
 * the connection's initiator, else the protocol's hooked post. */
ssize_t mxl_hooks_post (MxlConn *conn, MxlTransfer *t, const struct iovec *iov,
    void **desc, guint n_iov, MxlWriteCtx *ctx);

/** Takes one injected fault of @kind (MxlInjectKind) for @init: TRUE and
 * the positive fi errno in @out_err, or FALSE. */
gboolean mxl_hooks_take_fault (const MxlInitiator *init, guint kind, int *out_err);

/** Forgets the faults of @init (destroyed). */
void mxl_hooks_forget (const MxlInitiator *init);
