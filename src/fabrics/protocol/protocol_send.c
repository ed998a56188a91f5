/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Send/receive: the design's two-way transfer, for providers or setups
 * where remote write is not wanted ({"protocol": "send"} in the target's
 * options). Not in the reference.
 *
 * A send carries what a remote write would: every message is a 32-byte
 * header (region, offset, length, last) followed by the piece of the
 * transfer, gathered from the header (one per write context, registered for
 * FI_SEND) and the local slot or channel rings: no copy at the initiator.
 * Pieces are cut by the shared egress pump exactly as writes are, to the
 * target's advertised receive size (TargetInfo ext.recvSize) less the
 * header, and at most the provider's iov_limit less one data iovecs. The last message carries the
 * immediate data (fi_sendmsg FI_REMOTE_CQ_DATA), the same value remote
 * write uses.
 *
 * The target keeps a ring of receive buffers posted (min(cqDepth, rx queue
 * size) of recvSize bytes). On every receive completion, in completion
 * order and before any result is handed out, the header is validated
 * (magic, region < regions, offset + length within the region, length =
 * received bytes - header, last flag = immediate data present) and the
 * payload copied into the grain slot or bounce entry: one extra copy of
 * every byte, the price of not needing FI_RMA. A message that fails is
 * counted (badBounceEntries) and nothing of it is written. Then the write
 * protocol's ingress (grain header check and commit, or bounce entry
 * unpack) runs on the completion that carries the immediate data, as it
 * would for a remote write. The buffer is re-posted when its completion is
 * consumed (or at once for an error completion).
 *
 * Wire header, little-endian: u32 magic "MXS1", u32 region (grain slot or
 * bounce entry), u64 offset (bytes into the region), u64 length (payload
 * bytes), u32 flags (bit 0: last message of the transfer), u32 zero.
 *
 * The data of a transfer must be in place when its last message is
 * processed: on connected endpoints (tcp) receives complete in stream
 * order; on connectionless ones (shm, tcp;ofi_rxm, whose large messages
 * complete after a rendezvous read) the last one waits until the others
 * have completed. Every message is sent FI_DELIVERY_COMPLETE, as writes
 * are. The target's
 * slots stay registered for remote write too.
 */
#include "fabrics/protocol/protocol_send.h"

#include <string.h>

#include "fabrics/protocol/initiator-state.h"
#ifdef MXL_TEST_HOOKS
#include "fabrics/protocol/protocol_hooks.h"
#endif

/* Receive buffers of a send target at most (memory: n · recvSize), and
 * their bytes at most: what lands in them is not yet in the slots, so it
 * lets an initiator run that much further ahead of the target's reads
 * than remote write would (keep it near a grain or two). */
#define SEND_MAX_RECEIVES 256u
#define SEND_MAX_RING_BYTES (16u * 1024u * 1024u)


/* Returns FALSE when the magic or the flags are not ours. */
static gboolean
header_read (const uint8_t *h, MxlSendHeader *v)
{
  uint32_t magic, region, flags;
  uint64_t offset, length;

  memcpy (&magic, h, 4);
  memcpy (&region, h + 4, 4);
  memcpy (&offset, h + 8, 8);
  memcpy (&length, h + 16, 8);
  memcpy (&flags, h + 24, 4);
  flags = GUINT32_FROM_LE (flags);
  v->region = GUINT32_FROM_LE (region);
  v->offset = GUINT64_FROM_LE (offset);
  v->length = GUINT64_FROM_LE (length);
  v->last = (flags & SEND_FLAG_LAST) != 0;
  return GUINT32_FROM_LE (magic) == SEND_MAGIC && (flags & ~SEND_FLAG_LAST) == 0;
}

/* -------------------------------------------------------------- initiator */

/* The message headers, one per write context (protocol_send.h), in the
 * protocol's own slot: send and tagged each make their own. */
static mxlStatus
send_initiator_setup (MxlInitiator *init, MxlInitiatorProto **out, GError **error)
{
  MxlSendInitiator *m = g_new0 (MxlSendInitiator, 1);
  size_t len = (size_t) init->ctx_count * MXL_SEND_HEADER_SIZE;

  *out = &m->base;
  m->headers = g_malloc0 (len);
  return mxl_ofi_region_register (init->base.dom, m->headers, len, FI_SEND, &m->region,
      error);
}

static void
send_initiator_teardown (MxlInitiator *init, MxlInitiatorProto *state)
{
  MxlSendInitiator *m = mxl_container_of (state, MxlSendInitiator, base);

  if (init->base.dom != NULL)
    mxl_ofi_region_close (init->base.dom, &m->region);
  g_free (m->headers);
  g_free (m);
}

static gboolean
send_initiator_ready (const MxlInitiatorProto *state)
{
  return mxl_container_of (state, MxlSendInitiator, base)->region.mr != NULL;
}

gboolean
mxl_send_conn_limits (const MxlInitiator *init, const struct mxlFabricsTargetInfo_t *info,
    MxlConnLimits *limits)
{
  uint64_t recv_size = info->recv_size;

  if (recv_size <= MXL_SEND_HEADER_SIZE || init->tx_iov_limit < 2
      || init->max_msg <= MXL_SEND_HEADER_SIZE)
    return FALSE;
  /* "iovLimit" counts data iovecs; the header takes one of the provider's. */
  limits->iov_limit = MIN (init->iov_limit, MIN (init->tx_iov_limit - 1, MXL_LAYOUT_MAX_IOV));
  limits->max_msg = MIN (init->max_msg, recv_size) - MXL_SEND_HEADER_SIZE;
  /* Receives complete in order on a connected endpoint's single stream;
   * connectionless providers may complete a small last message before a
   * large earlier one (tcp;ofi_rxm rendezvous), so the last message waits
   * until the others are delivered, and until the previous transfer's
   * last one is: two grains' last messages could complete the wrong way
   * round too, and the target commits grains in completion order. */
  limits->ordered = init->type_ops->ordered_receives;
  limits->last_after_previous = !limits->ordered;
  return TRUE;
}

/* Always inlined: the production post is compiled with the hooks NULL,
 * so that it tests none of them (protocol_hooks.h). */
static inline G_ALWAYS_INLINE ssize_t
send_post_with (MxlConn *conn, MxlTransfer *t, const struct iovec *iov,
    void **desc, guint n_iov, MxlWriteCtx *ctx, MxlSendHeaderHook hook)
{
  struct iovec v[MXL_LAYOUT_MAX_IOV + 1];
  void *d[MXL_LAYOUT_MAX_IOV + 1];
  struct fi_msg msg;
  ssize_t n = mxl_send_gather (conn, t, iov, desc, n_iov, ctx, v, d, hook);

  if (n < 0)
    return n;
  memset (&msg, 0, sizeof (msg));
  msg.msg_iov = v;
  msg.desc = d;
  msg.iov_count = (size_t) n;
  msg.addr = conn->state.u.connected.addr;
  msg.context = ctx;
  msg.data = t->chunk_last ? t->imm : 0;
  /* As remote writes: a completion means the data is at the target, so
   * the initiator's window does not run ahead of what the target has. */
  return fi_sendmsg (conn->state.u.connected.ep, &msg, FI_COMPLETION
      | FI_DELIVERY_COMPLETE | t->post_more | (t->chunk_last ? FI_REMOTE_CQ_DATA : 0));
}

/* The transport post of the send protocol, and in the test build its
 * hooked twin that runs the header hook (installed by protocol_hooks.c
 * only while one is set). */
static ssize_t
send_post (MxlConn *conn, MxlTransfer *t, const struct iovec *iov, void **desc,
    guint n_iov, MxlWriteCtx *ctx)
{
  return send_post_with (conn, t, iov, desc, n_iov, ctx, NULL);
}

#ifdef MXL_TEST_HOOKS
ssize_t
mxl_send_post_hooked (MxlConn *conn, MxlTransfer *t, const struct iovec *iov,
    void **desc, guint n_iov, MxlWriteCtx *ctx)
{
  return send_post_with (conn, t, iov, desc, n_iov, ctx, mxl_hooks_send_header ());
}
#endif

/* ----------------------------------------------------------------- target */

mxlStatus
mxl_send_target_init (MxlTarget *t, gsize state_size, GError **error)
{
  MxlSendTarget *s;
  const struct fi_info *info = t->base.dom->info;
  uint64_t size = t->base.options.max_message_size ? t->base.options.max_message_size
      : MXL_SEND_HEADER_SIZE + MXL_SEND_DEFAULT_PAYLOAD;
  guint n_rx;

  if (info->ep_attr->max_msg_size)
    size = MIN (size, info->ep_attr->max_msg_size);
  if (size <= MXL_SEND_HEADER_SIZE || size > G_MAXUINT32) {
    g_set_error (error, MXL_OFI_ERROR, 0, "receive size %" G_GUINT64_FORMAT
        " bytes leaves no room after the %u-byte message header", size,
        MXL_SEND_HEADER_SIZE);
    return MXL_ERR_INVALID_ARG;
  }
  g_assert (state_size >= sizeof (MxlSendTarget));
  s = g_malloc0 (state_size);
  s->base.desc = t->proto;
  s->base.ring = &s->ring;
  s->base.rx_ops = &mxl_rx_ring_untagged_ops;
  t->pstate = &s->base;
  n_rx = MIN (MIN (t->base.options.cq_depth, SEND_MAX_RECEIVES),
      (uint32_t) MAX (info->rx_attr->size, 1));
  n_rx = MAX (MIN (n_rx, SEND_MAX_RING_BYTES / size), 2u);
  /* Where messages may land: the grain slots or the bounce entries. */
  if (t->base.continuous) {
    uint64_t count, esize;
    uint8_t *bounce = mxl_samples_target_entries (t, &count, &esize);

    s->n_regions = (guint) count;
    s->regions = g_new0 (MxlRemoteRegion, s->n_regions);
    for (guint e = 0; e < s->n_regions; e++)
      s->regions[e] = (MxlRemoteRegion) {
          (uintptr_t) (bounce + e * esize), esize, 0 };
  } else {
    s->n_regions = t->base.grain_count;
    s->regions = g_new0 (MxlRemoteRegion, s->n_regions);
    for (guint i = 0; i < s->n_regions; i++)
      s->regions[i] = (MxlRemoteRegion) {
          (uintptr_t) t->base.regions[i].base, t->base.regions[i].len, 0 };
  }
  s->bad = g_new0 (gboolean, n_rx);
  s->inner = t->ingress;
  t->ingress = &mxl_send_ingress_ops;
  return mxl_rx_ring_open (&s->ring, t->base.dom, n_rx, size, error);
}

/* Index of our receive buffer that completed, or -1. */
static gint
rx_index (MxlTarget *t, const struct fi_cq_data_entry *e)
{
  if (!(e->flags & FI_RECV))
    return -1;
  return mxl_rx_ring_index (&mxl_send_target (t)->ring, e->op_context);
}

/* Validates the message in receive buffer @i and copies its payload. */
static gboolean
unpack (MxlTarget *t, guint i, const struct fi_cq_data_entry *e)
{
  MxlSendTarget *s = mxl_send_target (t);
  const uint8_t *m = mxl_rx_ring_entry (&s->ring, i);
  const MxlRemoteRegion *r;
  MxlSendHeader h;

  if (e->len < MXL_SEND_HEADER_SIZE || e->len > s->ring.entry_size
      || !header_read (m, &h))
    return FALSE;
  if (h.length != e->len - MXL_SEND_HEADER_SIZE || h.region >= s->n_regions
      || h.last != ((e->flags & FI_REMOTE_CQ_DATA) != 0))
    return FALSE;
  r = &s->regions[h.region];
  if (h.offset > r->len || h.length > r->len - h.offset)
    return FALSE;
  memcpy ((uint8_t *) (uintptr_t) r->addr + h.offset, m + MXL_SEND_HEADER_SIZE,
      h.length);
  return TRUE;
}

static void
send_on_drained (MxlTarget *t, const struct fi_cq_data_entry *e)
{
  MxlSendTarget *s = mxl_send_target (t);
  gint i = rx_index (t, e);

  if (i >= 0) {
    s->bad[i] = !unpack (t, (guint) i, e);
    if (s->bad[i]) {
      t->stats.badBounceEntries++;
      g_debug ("target %" G_GUINT64_FORMAT ": send message of %zu bytes refused "
          "(header out of range)", t->id, e->len);
      return;
    }
  }
  if (e->flags & FI_REMOTE_CQ_DATA)
    s->inner->on_drained (t, e);
}

static mxlStatus
send_on_completion (MxlTarget *t, const struct fi_cq_data_entry *e,
    uint64_t *out_index, uint64_t *out_count)
{
  MxlSendTarget *s = mxl_send_target (t);
  gint i = rx_index (t, e);

  if (i >= 0 && s->bad[i])
    return MXL_ERR_INVALID_ARG;    /* counted when drained */
  return s->inner->on_completion (t, e, out_index, out_count);
}

const MxlIngressOps mxl_send_ingress_ops = {
  .name = "send",
  .on_completion = send_on_completion,
  .on_drained = send_on_drained,
};

void
mxl_send_target_clear (MxlSendTarget *s, MxlOfiDomain *dom)
{
  mxl_rx_ring_close (&s->ring, dom);
  g_clear_pointer (&s->regions, g_free);
  g_clear_pointer (&s->bad, g_free);
}

static mxlStatus
send_target_setup (MxlTarget *t, GError **error)
{
  return mxl_send_target_init (t, sizeof (MxlSendTarget), error);
}

static void
send_target_teardown (MxlTarget *t)
{
  MxlSendTarget *s = mxl_send_target (t);

  mxl_send_target_clear (s, t->base.dom);
  g_free (s);
}

const MxlProtocolInitiatorOps mxl_send_initiator_ops = {
  .setup = send_initiator_setup,
  .teardown = send_initiator_teardown,
  .ready = send_initiator_ready,
  .conn_limits = mxl_send_conn_limits,
};

const MxlProtocolDesc mxl_protocol_send = {
  .name = "send",
  .caps = { [MXL_ROLE_TARGET] = FI_MSG | FI_RECV,
            [MXL_ROLE_INITIATOR] = FI_MSG | FI_SEND },
  .caps_name = "FI_MSG",
  .target_rank = 2,
  .target_setup = send_target_setup,
  .target_teardown = send_target_teardown,
  .advertises_recv_size = TRUE,
  .initiator = &mxl_send_initiator_ops,
  .drain_at_teardown = TRUE,
  .post = send_post,
};
