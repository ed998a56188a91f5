/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The receive ring: n posted receive buffers of entry_size bytes each in
 * one FI_RECV registration, one operation context per buffer. Owned by
 * the private target state of the protocols that need one: the write
 * protocol on FI_RX_CQ_DATA providers (the immediate data consumes a
 * posted receive, 8-byte entries, protocol_write.c), the send protocol
 * (its messages, protocol_send.c) and the tagged one (its bounce path,
 * protocol_tagged.c, through the send state it embeds). The protocol
 * points its MxlTargetProto.ring at it, so that the untagged receive ops
 * below reach it from the target (t->pstate->ring).
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "fabrics/ofi/ofi.h"
#include "fabrics/protocol/target-state.h"

typedef struct MxlRxRing {
  guint n;                        /* receive buffers */
  size_t entry_size;              /* bytes each */
  uint8_t *buf;                   /* n * entry_size bytes */
  MxlOfiRegion region;            /* @buf, registered FI_RECV */
  struct fi_context2 *ctx;        /* n contexts, one per buffer */
} MxlRxRing;

/**
 * mxl_rx_ring_open:
 * Allocates @n buffers of @entry_size bytes into the zeroed @r and
 * registers them FI_RECV in @dom. Returns: OK or the registration's
 * failure (@r is then still closed by mxl_rx_ring_close()).
 */
mxlStatus mxl_rx_ring_open (MxlRxRing *r, MxlOfiDomain *dom, guint n,
    size_t entry_size, GError **error);
/** Closes the registration and frees the buffers (safe on a partial open). */
void mxl_rx_ring_close (MxlRxRing *r, MxlOfiDomain *dom);

/** Which buffer of @r @op_context is (a completion's or a re-post's), or -1. */
static inline gint
mxl_rx_ring_index (const MxlRxRing *r, const void *op_context)
{
  return mxl_rx_context_index (op_context, r->ctx, r->n);
}

/** Buffer @i (< r->n) of @r. */
static inline uint8_t *
mxl_rx_ring_entry (const MxlRxRing *r, guint i)
{
  return r->buf + (size_t) i * r->entry_size;
}

/** Untagged receives (fi_recv) on the ring at t->pstate->ring: every
 * buffer posted, a buffer re-posted, a failed one re-posted as well. */
extern const MxlRxOps mxl_rx_ring_untagged_ops;
