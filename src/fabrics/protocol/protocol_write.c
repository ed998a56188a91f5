/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Remote write + immediate data (docs/wire-format.md §2.1, §3.3).
 *
 * Egress: the transport post of the generic pump (protocol_egress.c): each piece is
 * one fi_writemsg into the remote region, only the last one carries the
 * immediate data.
 *
 * Ingress: the completion's immediate data and the slot's grain header are
 * validated, then the grain is committed to the flow.
 */
#include "fabrics/protocol/protocol.h"

#include <string.h>

#include <mxl/flow.h>

#include "fabrics/wire/immdata.h"
#include "fabrics/protocol/initiator-state.h"
#include "fabrics/protocol/target-state.h"
#include "fabrics/protocol/rxring.h"

/* ---------------------------------------------------------------- egress */

/* The transport post of remote write: one fi_writemsg per piece. */
static ssize_t
write_post (MxlConn *conn, MxlTransfer *t, const struct iovec *iov, void **desc,
    guint n_iov, MxlWriteCtx *ctx)
{
  const MxlRemoteRegion *remote = &conn->info->regions[t->remote_slot];
  uint64_t off = t->chunk_remote_offset, len = t->chunk_length;
  uint64_t flags = FI_DELIVERY_COMPLETE | FI_COMPLETION | t->post_more;
  struct fi_rma_iov rma;
  struct fi_msg_rma msg;

  /* Checked again per write: the remote range. */
  if (off > remote->len || len > remote->len - off)
    return -FI_EINVAL;
  rma.addr = remote->addr + off;
  rma.len = len;
  rma.key = remote->rkey;
  memset (&msg, 0, sizeof (msg));
  msg.msg_iov = iov;
  msg.desc = desc;
  msg.iov_count = n_iov;
  msg.addr = conn->state.u.connected.addr;
  msg.rma_iov = &rma;
  msg.rma_iov_count = 1;
  msg.context = ctx;
  if (t->chunk_last) {
    msg.data = t->imm;
    flags |= FI_REMOTE_CQ_DATA;
  }
  return fi_writemsg (conn->state.u.connected.ep, &msg, flags);
}

/* --------------------------------------------------------------- ingress */

/* The target's ingress state of a grain flow (t->istate). */
typedef struct {
  MxlIngressState base;
  uint32_t *slot_pending;         /* buffered completions per slot */
  gboolean have_committed;        /* committed_max is set */
  uint64_t committed_max;         /* highest grain index committed */
  uint64_t lapped;                /* whole grains lapped since the last
                                     grain committed (rma_on_completion) */
} MxlGrainIngress;

static MxlGrainIngress *
ingress_of (MxlTarget *t)
{
  return mxl_container_of (t->istate, MxlGrainIngress, base);
}

static mxlStatus
rma_ingress_setup (MxlTarget *t, const MxlFlowLayout *flow, GError **error)
{
  MxlGrainIngress *g = g_new0 (MxlGrainIngress, 1);

  (void) flow;
  (void) error;
  g->base.ops = &mxl_rma_ingress_ops;
  g->slot_pending = g_new0 (uint32_t, MAX (t->base.grain_count, 1));
  t->istate = &g->base;
  return MXL_STATUS_OK;
}

static void
rma_ingress_teardown (MxlTarget *t)
{
  MxlGrainIngress *g = ingress_of (t);

  g_free (g->slot_pending);
  g_free (g);
  t->istate = NULL;
}

static void
rma_on_drained (MxlTarget *t, const struct fi_cq_data_entry *entry)
{
  uint32_t slot = (uint32_t) (entry->data & 0xFFFFu);

  if ((entry->flags & FI_REMOTE_CQ_DATA) && slot < t->base.grain_count)
    ingress_of (t)->slot_pending[slot]++;
}

/* Whether the header index @index read in @slot for the completion being
 * consumed belongs to a newer write still landing (header first) rather
 * than to the completed one: a ring ahead of every grain committed, while
 * completions drained after this one hold older grains in other slots. The
 * initiator sends in index order and an ordered provider completes in that
 * order, so those later completions were sent after this one's write and
 * before the write whose header this is: this slot was lapped. */
static gboolean
header_overtaken (MxlTarget *t, uint32_t slot, uint64_t index)
{
  const MxlGrainIngress *g = ingress_of (t);

  if (!g->have_committed || index <= g->committed_max + t->base.grain_count)
    return FALSE;
  for (size_t j = t->batch_pos; j < t->batch_len; j++) {
    const struct fi_cq_data_entry *e = &t->batch[j];
    uint32_t s = (uint32_t) (e->data & 0xFFFFu);
    uint64_t other = 0;

    if (!(e->flags & FI_REMOTE_CQ_DATA) || s >= t->base.grain_count || s == slot)
      continue;
    if (mxl_grain_header_check (t->base.regions[s].base, s, t->base.grain_count,
            (uint32_t) t->base.layout.grain_size, t->base.layout.total_slices,
            &other) == MXL_HEADER_OK && other < index)
      return TRUE;
  }
  return FALSE;
}

/* A completion consumed without a result (superseded): counted. One whose
 * slice end is the grain's last slice (@slices = totalSlices) was a whole
 * grain that a newer grain overwrote before it could be committed: it is
 * handed to the reader with the next grain committed (its count,
 * mxlFabricsExtTargetReadGrainLapped()), so that a reader can account for
 * every grain sent, also before the first one it is given. A shorter range
 * may be extended by a later range of the same grain: not counted as lapped. */
static void
lapped_grain (MxlTarget *t, uint16_t slices)
{
  t->stats.completionsSuperseded++;
  if (slices == t->base.layout.total_slices)
    ingress_of (t)->lapped++;
}

static mxlStatus
rma_on_completion (MxlTarget *t, const struct fi_cq_data_entry *entry,
    uint64_t *out_index, uint64_t *out_count)
{
  MxlGrainIngress *g = ingress_of (t);
  uint32_t slot;
  uint16_t slices;
  uint64_t index;
  mxlStatus st;
  gboolean superseded = FALSE;
  uint32_t raw_slot = (uint32_t) (entry->data & 0xFFFFu);

  /* Bookkeeping of the batch first (rma_on_drained() counted every completion
   * whose low 16 bits name an existing slot): is a newer completion for
   * this slot already waiting? */
  if (raw_slot < t->base.grain_count && g->slot_pending[raw_slot] > 0)
    superseded = --g->slot_pending[raw_slot] > 0;

  if (mxl_imm_grain_decode (entry->data, t->base.grain_count, t->base.layout.total_slices,
          &slot, &slices) != MXL_IMM_OK) {
    t->stats.badImmediateData++;
    g_debug ("target %" G_GUINT64_FORMAT ": immediate data 0x%" G_GINT64_MODIFIER
        "x out of range (slots %u, slices %u)", t->id, (guint64) entry->data,
        t->base.grain_count, t->base.layout.total_slices);
    return MXL_ERR_INVALID_ARG;
  }
  /* The newer completion commits: this one's data has been extended (a
   * later slice range) or overwritten (a newer grain). One that completed
   * its grain (slice end totalSlices) has no later slice range: a newer
   * grain overwrote it, a whole grain lapped (lapped_grain()). */
  if (superseded) {
    lapped_grain (t, slices);
    return MXL_ERR_NOT_READY;
  }
  if (mxl_grain_header_check (t->base.regions[slot].base, slot, t->base.grain_count,
          (uint32_t) t->base.layout.grain_size, t->base.layout.total_slices,
          &index) != MXL_HEADER_OK) {
    t->stats.badGrainHeaders++;
    g_debug ("target %" G_GUINT64_FORMAT ": grain header of slot %u does not "
        "match (index %" G_GUINT64_FORMAT ")", t->id, slot, index);
    return MXL_ERR_INVALID_ARG;
  }
  /* Committing a landing write's header would publish a half-written
   * grain; the completed grain itself was overwritten. */
  if (header_overtaken (t, slot, index)) {
    lapped_grain (t, slices);
    g_debug ("target %" G_GUINT64_FORMAT ": slot %u already holds the header "
        "of grain %" G_GUINT64_FORMAT ", still landing: lapped, not committed",
        t->id, slot, index);
    return MXL_ERR_NOT_READY;
  }
  /* Commit with validSlices from the immediate data (docs/wire-format.md
   * §6.9), where the sink chosen at setup puts it (MxlTargetSinkOps). */
  st = t->sink->commit (t, index, slices);
  if (st != MXL_STATUS_OK && st != MXL_ERR_NOT_READY) {
    t->stats.commitFailures++;
    return st;
  }
  /* NOT_READY: committed by another path, or forwarded; the slot holds
   * @index all the same */
  if (!g->have_committed || index > g->committed_max)
    g->committed_max = index;
  g->have_committed = TRUE;
  if (st == MXL_ERR_NOT_READY)
    return st;
  t->stats.grainsReceived++;
  *out_index = index;
  *out_count = g->lapped;
  g->lapped = 0;
  return MXL_STATUS_OK;
}

/* The TargetInfo regions of a grain target: one per slot, its address,
 * length and key (docs/wire-format.md §1.1, §3). */
static void
rma_fill_info (MxlTarget *t, struct mxlFabricsTargetInfo_t *info)
{
  info->n_regions = t->base.grain_count;
  info->regions = g_new0 (MxlRemoteRegion, t->base.grain_count);
  for (guint i = 0; i < t->base.grain_count; i++) {
    info->regions[i].addr = t->base.regions[i].remote_addr;
    info->regions[i].len = t->base.regions[i].len;
    info->regions[i].rkey = t->base.regions[i].key;
  }
}

const MxlIngressOps mxl_rma_ingress_ops = {
  .name = "rma-write",
  .setup = rma_ingress_setup,
  .teardown = rma_ingress_teardown,
  .on_completion = rma_on_completion,
  .on_drained = rma_on_drained,
  .fill_info = rma_fill_info,
};

/* ---------------------------------------------------------------- target */

/* A write target's private state: only on providers whose immediate data
 * consumes a posted receive (FI_RX_CQ_DATA, verbs), its receive ring;
 * elsewhere the write protocol keeps none (t->pstate NULL). */
typedef struct MxlWriteTarget {
  MxlTargetProto base;
  MxlRxRing ring;
} MxlWriteTarget;

/* Receive buffers for providers whose immediate data consumes a posted
 * receive (FI_RX_CQ_DATA, verbs): one per CQ entry so that a full CQ's worth
 * of writes never finds the receive queue empty (docs/wire-format.md §7.2). */
static mxlStatus
write_target_setup (MxlTarget *t, GError **error)
{
  const struct fi_info *info = t->base.dom->info;
  MxlWriteTarget *w;

  if (!((info->rx_attr->mode | info->mode) & FI_RX_CQ_DATA))
    return MXL_STATUS_OK;
  w = g_new0 (MxlWriteTarget, 1);
  w->base.desc = t->proto;
  w->base.ring = &w->ring;
  w->base.rx_ops = &mxl_rx_ring_untagged_ops;
  t->pstate = &w->base;
  return mxl_rx_ring_open (&w->ring, t->base.dom,
      MIN (t->base.options.cq_depth, (uint32_t) MAX (info->rx_attr->size, 1)), 8, error);
}

static void
write_target_teardown (MxlTarget *t)
{
  MxlWriteTarget *w = mxl_container_of (t->pstate, MxlWriteTarget, base);

  mxl_rx_ring_close (&w->ring, t->base.dom);
  g_free (w);
}

const MxlProtocolDesc mxl_protocol_write = {
  .name = "write",
  .caps = { [MXL_ROLE_TARGET] = FI_RMA | FI_REMOTE_WRITE,
            [MXL_ROLE_INITIATOR] = FI_RMA | FI_WRITE },
  .caps_name = "FI_RMA",
  .target_rank = 0,
  .target_setup = write_target_setup,
  .target_teardown = write_target_teardown,
  .claims = TRUE,
  .post = write_post,
};
