/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private target state of the message protocols (protocol_send.c, and protocol_tagged.c,
 * which builds on it): reached from the target's protocol state
 * (t->pstate) with container_of, the way libfabric providers embed their
 * util_ep. Only the protocol files include this.
 */
#pragma once

#include "fabrics/protocol/protocol.h"
#include "fabrics/protocol/target-state.h"
#include "fabrics/protocol/rxring.h"

#include <string.h>

#include "fabrics/protocol/initiator-state.h"

/* Wire header of every send-protocol message (protocol_send.c), little-endian: u32
 * magic "MXS1", u32 region, u64 offset, u64 length, u32 flags (bit 0:
 * last), u32 zero. */
#define SEND_MAGIC 0x3153584Du   /* "MXS1" */
#define SEND_FLAG_LAST 1u

typedef struct MxlSendHeader {
  uint32_t region;
  uint64_t offset;
  uint64_t length;
  gboolean last;
} MxlSendHeader;

static inline void
mxl_send_header_write (uint8_t *h, const MxlSendHeader *v)
{
  uint32_t magic = GUINT32_TO_LE (SEND_MAGIC), region = GUINT32_TO_LE (v->region);
  uint64_t offset = GUINT64_TO_LE (v->offset), length = GUINT64_TO_LE (v->length);
  uint32_t flags = GUINT32_TO_LE (v->last ? SEND_FLAG_LAST : 0u), zero = 0;

  memcpy (h, &magic, 4);
  memcpy (h + 4, &region, 4);
  memcpy (h + 8, &offset, 8);
  memcpy (h + 16, &length, 8);
  memcpy (h + 24, &flags, 4);
  memcpy (h + 28, &zero, 4);
}

/* The initiator state of a message protocol (send, and tagged, which
 * builds on it), in that protocol's own slot (init->pstate,
 * mxl_initiator_proto()): one message header per write context (index =
 * context - ctx_pool), alive until its completion, registered FI_SEND as
 * @region. A connection reaches it through conn->proto. */
typedef struct MxlSendInitiator {
  MxlInitiatorProto base;
  uint8_t *headers;
  MxlOfiRegion region;
} MxlSendInitiator;

/* The state of @conn's protocol (send or tagged), resolved when the
 * connection became connected (conn->proto): no lookup per post. */
static inline MxlSendInitiator *
mxl_send_initiator (const MxlConn *conn)
{
  return mxl_container_of (conn->proto, MxlSendInitiator, base);
}

/** The initiator side of send and tagged (MxlProtocolDesc.initiator): each
 * makes its own message headers, registered FI_SEND, and narrows the
 * limits with mxl_send_conn_limits(). */
extern const MxlProtocolInitiatorOps mxl_send_initiator_ops;

/* Always inlined, so that the production posts, which pass @hook NULL,
 * test no hook (protocol_hooks.h). */
static inline G_ALWAYS_INLINE ssize_t
mxl_send_gather (MxlConn *conn, MxlTransfer *t, const struct iovec *iov, void **desc,
    guint n_iov, MxlWriteCtx *ctx, struct iovec *v, void **d, MxlSendHeaderHook hook)
{
  const struct mxlFabricsTargetInfo_t *info = conn->info;
  MxlSendHeader h = { t->remote_slot, t->chunk_remote_offset, t->chunk_length,
      t->chunk_last };
  /* The context's header, alive until its completion. */
  MxlSendInitiator *msg = mxl_send_initiator (conn);
  uint8_t *m = msg->headers
      + (size_t) (ctx - conn->init->ctx_pool) * MXL_SEND_HEADER_SIZE;

  /* Checked again per message: the remote range and the receive size. */
  if (h.region >= info->n_regions || h.offset > info->regions[h.region].len
      || h.length > info->regions[h.region].len - h.offset || h.length > conn->max_msg
      || n_iov > MXL_LAYOUT_MAX_IOV)
    return -FI_EINVAL;
  mxl_send_header_write (m, &h);
  if (hook != NULL)
    hook (m);
  v[0].iov_base = m;
  v[0].iov_len = MXL_SEND_HEADER_SIZE;
  d[0] = msg->region.desc;
  memcpy (v + 1, iov, n_iov * sizeof (*iov));
  memcpy (d + 1, desc, n_iov * sizeof (*desc));
  return (ssize_t) n_iov + 1;
}

/** A send target: its receive ring, where messages may land and what was
 * refused. */
typedef struct MxlSendTarget {
  MxlTargetProto base;
  MxlRxRing ring;                 /* the messages (base.ring points here) */
  const MxlIngressOps *inner;     /* the write ingress behind the unpack */
  MxlRemoteRegion *regions;       /* where messages may land: addr = local
                                     address, len (slots or bounce entries) */
  guint n_regions;
  gboolean *bad;                  /* per receive buffer: last message refused */
} MxlSendTarget;

static inline MxlSendTarget *
mxl_send_target (MxlTarget *t)
{
  return mxl_container_of (t->pstate, MxlSendTarget, base);
}

/**
 * mxl_send_target_init:
 * Sets up the receive ring of a send target into a zeroed protocol state
 * of @size bytes (at least sizeof (MxlSendTarget), which it starts with)
 * and installs the send ingress. Returns: OK, INVALID_ARG (no room for the
 * header), or the registration's status.
 */
mxlStatus mxl_send_target_init (MxlTarget *t, gsize size, GError **error);

/** Frees what mxl_send_target_init() allocated in @dom (not the state
 * itself). */
void mxl_send_target_clear (MxlSendTarget *s, MxlOfiDomain *dom);
