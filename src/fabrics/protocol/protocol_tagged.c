/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tagged send/receive (FI_TAGGED): the second variant of the design's
 * two-way transfer ({"protocol": "tagged"}, or chosen at setup when the
 * provider offers FI_TAGGED but not FI_RMA). Not in the reference. Offered
 * here by tcp;ofi_rxm and shm; plain tcp (FI_EP_MSG) has no tag matching,
 * so setup asking for it there fails with UNSUPPORTED_OPERATION.
 *
 * The target cuts every region (grain slot, or bounce entry of a
 * continuous flow) into pieces of P bytes, P = the advertised receive size
 * (TargetInfo ext.recvSize) less the 32-byte send header, and keeps one
 * tagged receive posted on each piece, directly on the flow's memory: tag
 * = region << 32 | piece (mxl_tagged_piece_tag()), no ignore bits. A
 * message whose remote offset is a multiple of P (and which, being cut to
 * at most P bytes, fits the piece) is sent with fi_tsendmsg to that tag
 * and lands in place: no copy. Whole grains always do: the egress pump
 * cuts a run that starts at 0 into pieces of exactly P. Every other
 * message (a slice range starting mid-piece, the v210a key plane, sample
 * chunks cut by iov_limit) goes the send protocol's way, header and data,
 * with tag MXL_TAG_BOUNCE, into the receive ring (tagged receives that
 * ignore every bit but the top one) and is validated and copied
 * (protocol_send.c): correctness never depends on alignment.
 *
 * The immediate data is the value remote write uses and rides the last
 * message (fi_tsendmsg FI_REMOTE_CQ_DATA). Tagged providers here are
 * connectionless (rxm completes a large message after a rendezvous read,
 * possibly after a later small one), so the initiator holds the last
 * message until the others have completed (FI_DELIVERY_COMPLETE), as the
 * send protocol does: when the last one's receive completes, the grain is
 * whole, and the write protocol's ingress checks the grain header (or
 * unpacks the bounce entry) and commits.
 *
 * Validation of a piece receive (the message matched our exact tag, so
 * region and piece are those of the receive's context): length not zero
 * and at most the piece (the provider truncates longer ones: an error
 * completion, counted in completionErrors, and re-posted); with immediate
 * data, the data must name this region (grain slot in the low 16 bits, or
 * the entry), else it is counted in badImmediateData and not committed.
 * A refused piece is counted in badBounceEntries, as the send protocol
 * counts refused messages. A tag naming no region or piece matches no
 * receive: the provider keeps it as an unexpected message and nothing of
 * it reaches the flow. A receive is re-posted when its completion is
 * consumed; a message arriving for a piece not yet re-posted waits in the
 * provider (flow control rather than loss).
 */
#include "fabrics/protocol/protocol_send.h"

#include <string.h>

#include <rdma/fi_tagged.h>

#include "fabrics/protocol/initiator-state.h"
#ifdef MXL_TEST_HOOKS
#include "fabrics/protocol/protocol_hooks.h"
#endif

/* A tagged target: the send protocol's state (its receive ring is the
 * bounce path) and the piece receives posted on the flow. */
typedef struct MxlTaggedTarget {
  MxlSendTarget send;
  uint64_t piece;                 /* bytes of a piece (recvSize - header) */
  guint per_region;               /* pieces per grain slot / bounce entry */
  guint n;                        /* piece receives: regions x pieces */
  struct fi_context2 *ctx;        /* n contexts, region-major */
  gboolean *bad;                  /* per piece receive: last message refused */
  MxlOfiRegion *mrs;              /* FI_RECV registrations of the regions */
  guint n_mrs;
  gboolean *poisoned;             /* per region: a piece failed since the
                                     last immediate data for it */
  /* the region immediate data names: grain_region() or entry_region(),
   * chosen at setup by the kind of flow */
  uint64_t (*region_of) (uint64_t data);
} MxlTaggedTarget;

static MxlTaggedTarget *
mxl_tagged_target (MxlTarget *t)
{
  return mxl_container_of (t->pstate, MxlTaggedTarget, send.base);
}

/* ------------------------------------------------------------ initiator */

/* Always inlined: the production post is compiled with the hooks NULL,
 * so that it tests none of them (protocol_hooks.h). */
static inline G_ALWAYS_INLINE ssize_t
tagged_post_with (MxlConn *conn, MxlTransfer *t, const struct iovec *iov,
    void **desc, guint n_iov, MxlWriteCtx *ctx, MxlTaggedHook piece_hook,
    MxlSendHeaderHook header_hook)
{
  const struct mxlFabricsTargetInfo_t *info = conn->info;
  uint64_t piece = info->recv_size - MXL_SEND_HEADER_SIZE;
  uint64_t off = t->chunk_remote_offset, len = t->chunk_length;
  struct iovec v[MXL_LAYOUT_MAX_IOV + 1];
  void *d[MXL_LAYOUT_MAX_IOV + 1];
  struct fi_msg_tagged msg;
  ssize_t n;

  memset (&msg, 0, sizeof (msg));
  msg.data = t->chunk_last ? t->imm : 0;
  /* A whole piece (or the region's shorter last one) lands in place. */
  if (t->remote_slot < info->n_regions && off % piece == 0 && len > 0 && len <= piece
      && off / piece <= G_MAXUINT32 && off <= info->regions[t->remote_slot].len
      && len <= info->regions[t->remote_slot].len - off && n_iov <= MXL_LAYOUT_MAX_IOV) {
    msg.msg_iov = iov;
    msg.desc = desc;
    msg.iov_count = n_iov;
    msg.tag = mxl_tagged_piece_tag (t->remote_slot, (uint32_t) (off / piece));
    if (piece_hook != NULL)
      piece_hook (&msg.tag, &msg.data);
  } else {
    n = mxl_send_gather (conn, t, iov, desc, n_iov, ctx, v, d, header_hook);
    if (n < 0)
      return n;
    msg.msg_iov = v;
    msg.desc = d;
    msg.iov_count = (size_t) n;
    msg.tag = MXL_TAG_BOUNCE;
  }
  msg.addr = conn->state.u.connected.addr;
  msg.context = ctx;
  return fi_tsendmsg (conn->state.u.connected.ep, &msg, FI_COMPLETION
      | FI_DELIVERY_COMPLETE | t->post_more | (t->chunk_last ? FI_REMOTE_CQ_DATA : 0));
}

/* The transport post of the tagged protocol, and in the test build its
 * hooked twin that runs the piece and header hooks (installed by
 * protocol_hooks.c only while one is set). */
static ssize_t
tagged_post (MxlConn *conn, MxlTransfer *t, const struct iovec *iov, void **desc,
    guint n_iov, MxlWriteCtx *ctx)
{
  return tagged_post_with (conn, t, iov, desc, n_iov, ctx, NULL, NULL);
}

#ifdef MXL_TEST_HOOKS
ssize_t
mxl_tagged_post_hooked (MxlConn *conn, MxlTransfer *t, const struct iovec *iov,
    void **desc, guint n_iov, MxlWriteCtx *ctx)
{
  return tagged_post_with (conn, t, iov, desc, n_iov, ctx, mxl_hooks_tagged_piece (),
      mxl_hooks_send_header ());
}
#endif

/* ----------------------------------------------------------------- target */

/* Bytes of piece receive @i and where it lands. */
static uint64_t
piece_span (MxlTarget *t, guint i, uint8_t **out_base, void **out_desc)
{
  MxlTaggedTarget *g = mxl_tagged_target (t);
  MxlSendTarget *s = mxl_send_target (t);
  guint r = i / g->per_region, k = i % g->per_region;
  const MxlRemoteRegion *reg = &s->regions[r];
  uint64_t off = (uint64_t) k * g->piece;

  *out_base = (uint8_t *) (uintptr_t) reg->addr + off;
  *out_desc = g->mrs[t->base.continuous ? 0 : r].desc;
  return MIN (g->piece, reg->len - off);
}

static ssize_t
post_piece (MxlTarget *t, struct fid_ep *ep, guint i)
{
  MxlTaggedTarget *g = mxl_tagged_target (t);
  uint8_t *base;
  void *desc;
  uint64_t len = piece_span (t, i, &base, &desc);

  return fi_trecv (ep, base, len, desc, FI_ADDR_UNSPEC,
      mxl_tagged_piece_tag (i / g->per_region, i % g->per_region), 0,
      &g->ctx[i]);
}

static ssize_t
post_ring (MxlTarget *t, struct fid_ep *ep, guint i)
{
  const MxlRxRing *r = &mxl_send_target (t)->ring;

  return fi_trecv (ep, mxl_rx_ring_entry (r, i), r->entry_size, r->region.desc,
      FI_ADDR_UNSPEC, MXL_TAG_BOUNCE, ~MXL_TAG_BOUNCE, &r->ctx[i]);
}

static mxlStatus
tagged_post_all (MxlTarget *t, struct fid_ep *ep)
{
  MxlTaggedTarget *g = mxl_tagged_target (t);
  guint n_rx = g->send.ring.n;

  for (guint i = 0; i < n_rx + g->n; i++) {
    ssize_t rc = i < n_rx ? post_ring (t, ep, i) : post_piece (t, ep, i - n_rx);
    if (rc != 0) {
      g_warning ("fi_trecv: %s (%zd)", fi_strerror ((int) -rc), rc);
      return mxl_ofi_status (rc);
    }
  }
  return MXL_STATUS_OK;
}

static void
tagged_repost (MxlTarget *t, void *op_context)
{
  MxlTaggedTarget *g = mxl_tagged_target (t);
  gint i;
  ssize_t rc;

  if ((i = mxl_rx_ring_index (&g->send.ring, op_context)) >= 0)
    rc = post_ring (t, g->send.base.rx_ep, (guint) i);
  else if ((i = mxl_rx_context_index (op_context, g->ctx, g->n)) >= 0)
    rc = post_piece (t, g->send.base.rx_ep, (guint) i);
  else
    return;
  if (rc != 0)
    g_warning ("fi_trecv (re-post): %s", fi_strerror ((int) -rc));
}

/* A piece whose message failed (truncated: longer than the piece) leaves
 * its region incomplete: the next immediate data for it is refused. */
static void
tagged_failed (MxlTarget *t, void *op_context)
{
  MxlTaggedTarget *g = mxl_tagged_target (t);
  gint i = mxl_rx_context_index (op_context, g->ctx, g->n);

  if (i >= 0)
    g->poisoned[(guint) i / g->per_region] = TRUE;
  tagged_repost (t, op_context);
}

const MxlRxOps mxl_tagged_rx_ops = { tagged_post_all, tagged_repost, tagged_failed };

/* The region of a grain's immediate data: its slot (docs/wire-format.md
 * §2: the low 16 bits). */
static uint64_t
grain_region (uint64_t data)
{
  return data & 0xFFFFu;
}

/* The region of a batch of samples' immediate data: the bounce entry it
 * names, the whole value. */
static uint64_t
entry_region (uint64_t data)
{
  return data;
}

static mxlStatus
tagged_target_setup (MxlTarget *t, GError **error)
{
  MxlTaggedTarget *g;
  MxlSendTarget *s;
  uint64_t region_len, per_region, total;
  size_t rx_size = MAX (t->base.dom->info->rx_attr->size, 1);
  mxlStatus st;

  /* The receive ring (bounce path) and the regions it copies into. */
  st = mxl_send_target_init (t, sizeof (MxlTaggedTarget), error);
  if (st != MXL_STATUS_OK)
    return st;
  g = mxl_tagged_target (t);
  s = &g->send;
  t->ingress = &mxl_tagged_ingress_ops;
  s->base.rx_ops = &mxl_tagged_rx_ops;
  g->region_of = t->base.continuous ? entry_region : grain_region;
  g->piece = s->ring.entry_size - MXL_SEND_HEADER_SIZE;
  region_len = s->regions[0].len;
  per_region = (region_len + g->piece - 1) / g->piece;
  total = per_region * s->n_regions;
  /* Every receive stays posted at once: the provider's receive queue must
   * hold them all. */
  if (per_region == 0 || total + s->ring.n > rx_size) {
    g_set_error (error, MXL_OFI_ERROR, 0, "tagged protocol: %" G_GUINT64_FORMAT
        " piece receives (%u regions of %" G_GUINT64_FORMAT " bytes in pieces of %"
        G_GUINT64_FORMAT ") and %u ring receives exceed the provider's receive "
        "queue of %zu: raise maxMessageSize or use fewer grains", total,
        s->n_regions, region_len, g->piece, s->ring.n, rx_size);
    return MXL_ERR_INVALID_ARG;
  }
  g->per_region = (guint) per_region;
  g->n = (guint) total;
  g->ctx = g_new0 (struct fi_context2, g->n);
  g->bad = g_new0 (gboolean, g->n);
  g->poisoned = g_new0 (gboolean, s->n_regions);
  /* The flow's memory as receive buffers (local access; the slots may also
   * be registered for remote write). */
  g->n_mrs = t->base.continuous ? 1 : s->n_regions;
  g->mrs = g_new0 (MxlOfiRegion, g->n_mrs);
  if (t->base.continuous) {
    uint64_t count, size;
    uint8_t *bounce = mxl_samples_target_entries (t, &count, &size);

    return mxl_ofi_region_register (t->base.dom, bounce, count * size, FI_RECV,
        &g->mrs[0], error);
  }
  for (guint r = 0; r < g->n_mrs; r++) {
    st = mxl_ofi_region_register (t->base.dom, t->base.regions[r].base, t->base.regions[r].len,
        FI_RECV, &g->mrs[r], error);
    if (st != MXL_STATUS_OK)
      return st;
  }
  return MXL_STATUS_OK;
}

/* Index of our piece receive that completed, or -1. */
static gint
piece_index (MxlTarget *t, const struct fi_cq_data_entry *e)
{
  MxlTaggedTarget *g = mxl_tagged_target (t);

  if (!(e->flags & FI_RECV))
    return -1;
  return mxl_rx_context_index (e->op_context, g->ctx, g->n);
}

/* Validates a completed piece receive (its data is already in place);
 * counts what it refuses. */
static gboolean
piece_ok (MxlTarget *t, guint i, const struct fi_cq_data_entry *e)
{
  MxlTaggedTarget *g = mxl_tagged_target (t);
  uint8_t *base;
  void *desc;
  uint32_t region = i / g->per_region;

  if (e->len == 0 || e->len > piece_span (t, i, &base, &desc)) {
    t->stats.badBounceEntries++;
    g_debug ("target %" G_GUINT64_FORMAT ": tagged piece %u of %zu bytes refused",
        t->id, i, e->len);
    return FALSE;
  }
  /* The immediate data must name the region the last piece landed in. */
  if ((e->flags & FI_REMOTE_CQ_DATA)
      && g->region_of (e->data) != region) {
    t->stats.badImmediateData++;
    g_debug ("target %" G_GUINT64_FORMAT ": immediate data 0x%" G_GINT64_MODIFIER
        "x on a piece of region %u", t->id, (guint64) e->data, region);
    return FALSE;
  }
  return TRUE;
}

/* The region named by immediate data @data, or -1. */
static gint64
imm_region (MxlTarget *t, uint64_t data)
{
  MxlSendTarget *s = mxl_send_target (t);
  uint64_t r = mxl_tagged_target (t)->region_of (data);

  return r < s->n_regions ? (gint64) r : -1;
}

/* TRUE (and counted, and cleared) when a piece of the region of this
 * immediate data failed since the last one: the transfer is incomplete. */
static gboolean
poisoned (MxlTarget *t, const struct fi_cq_data_entry *e)
{
  MxlTaggedTarget *g = mxl_tagged_target (t);
  gint64 r;

  if (!(e->flags & FI_REMOTE_CQ_DATA) || (r = imm_region (t, e->data)) < 0
      || !g->poisoned[r])
    return FALSE;
  g->poisoned[r] = FALSE;
  t->stats.badBounceEntries++;
  g_debug ("target %" G_GUINT64_FORMAT ": region %" G_GINT64_FORMAT " lost a piece: "
      "transfer not committed", t->id, r);
  return TRUE;
}

static void
tagged_on_drained (MxlTarget *t, const struct fi_cq_data_entry *e)
{
  MxlTaggedTarget *g = mxl_tagged_target (t);
  MxlSendTarget *s = mxl_send_target (t);
  gint i = piece_index (t, e);

  if (i < 0) {
    /* The send ring (bounce path): validated and copied there. */
    gint r = (e->flags & FI_RECV) ?
        mxl_rx_ring_index (&s->ring, e->op_context) : -1;

    if (r >= 0 && poisoned (t, e)) {
      s->bad[r] = TRUE;
      return;
    }
    mxl_send_ingress_ops.on_drained (t, e);
    return;
  }
  g->bad[i] = !piece_ok (t, (guint) i, e);
  if (g->bad[i]) {
    g->poisoned[i / g->per_region] = TRUE;
    if (e->flags & FI_REMOTE_CQ_DATA)
      g->poisoned[i / g->per_region] = FALSE;   /* this was its end */
    return;
  }
  if (e->flags & FI_REMOTE_CQ_DATA) {
    g->bad[i] = poisoned (t, e);
    if (!g->bad[i])
      s->inner->on_drained (t, e);
  }
}

static mxlStatus
tagged_on_completion (MxlTarget *t, const struct fi_cq_data_entry *e,
    uint64_t *out_index, uint64_t *out_count)
{
  MxlTaggedTarget *g = mxl_tagged_target (t);
  MxlSendTarget *s = mxl_send_target (t);
  gint i = piece_index (t, e);

  if (i < 0)
    return mxl_send_ingress_ops.on_completion (t, e, out_index, out_count);
  if (g->bad[i])
    return MXL_ERR_INVALID_ARG;    /* counted when drained */
  return s->inner->on_completion (t, e, out_index, out_count);
}

const MxlIngressOps mxl_tagged_ingress_ops = {
  .name = "tagged",
  .on_completion = tagged_on_completion,
  .on_drained = tagged_on_drained,
};

static void
tagged_target_teardown (MxlTarget *t)
{
  MxlTaggedTarget *g = mxl_tagged_target (t);

  for (guint i = 0; g->mrs && i < g->n_mrs; i++)
    mxl_ofi_region_close (t->base.dom, &g->mrs[i]);
  g_free (g->mrs);
  g_free (g->ctx);
  g_free (g->bad);
  g_free (g->poisoned);
  mxl_send_target_clear (&g->send, t->base.dom);
  g_free (g);
}

#ifdef MXL_TEST_HOOKS
void
mxl_tagged_debug_pieces (MxlTarget *t, guint *out_per_region, guint *out_pieces)
{
  MxlTaggedTarget *g = mxl_tagged_target (t);

  *out_per_region = g->per_region;
  *out_pieces = g->n;
}
#endif

const MxlProtocolDesc mxl_protocol_tagged = {
  .name = "tagged",
  .caps = { [MXL_ROLE_TARGET] = FI_TAGGED | FI_RECV,
            [MXL_ROLE_INITIATOR] = FI_TAGGED | FI_SEND },
  .caps_name = "FI_TAGGED",
  .target_rank = 1,
  .target_setup = tagged_target_setup,
  .target_teardown = tagged_target_teardown,
  .advertises_recv_size = TRUE,
  .initiator = &mxl_send_initiator_ops,
  .drain_at_teardown = TRUE,
  .post = tagged_post,
};
