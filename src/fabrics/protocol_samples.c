/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Continuous flows over remote write (mxl-fabrics-wire.md §2.2, §4).
 *
 * Egress: one transfer per batch and target. The 16-byte entry header is
 * written into a header slot of the connection (one per transfer that can be
 * queued or in flight, so a slot is never rewritten while a write may still
 * read it); the scatter-gather list is the header then each channel's one or
 * two ring fragments (bounce.c), cut into writes by iov_limit and
 * max_msg_size; only the last write carries the immediate data (the entry
 * index, one counter per connection, modulo entryCount).
 *
 * Ingress: the target's bounce ring is one allocation of entryCount entries,
 * one memory region, advertised as entryCount regions (TargetInfo regions in
 * entry order, each entrySize long, same key): on the wire this is the
 * reference's layout. A completion is validated (entry index, count against
 * the entry's capacity and the ring, head >= count), the entry is copied out
 * and its header re-read (an initiator more than a ring ahead may be
 * overwriting it right now: a changed header means a torn copy, which is
 * dropped), then unpacked into the flow's channel rings at positions
 * recomputed with the target's own ring length, and committed by the target
 * (mxlFlowWriterOpenSamples + mxlFlowWriterCommitSamples), so that local
 * readers see the samples when the read returns, as for grains.
 *
 * Overrun (the reference has no flow control on the ring, §2.3): a
 * completion for an entry that has a newer completion in the same drain,
 * a torn copy, and an entry whose head index is not newer than the last
 * delivered one (its batch was overwritten by one delivered already) are
 * lost batches: counted, reported once each with
 * MXL_FABRICS_EXT_STATUS_SAMPLES_LOST, never unpacked. An entry index that
 * is not the successor of the previous one, and samples skipped between two
 * delivered batches, are counted too. All of it works with a reference
 * initiator, which writes only (head, count) and the entry index.
 */
#include "fabrics/protocol.h"

#include <string.h>

#include <mxl/flow.h>

#include "fabrics/bounce.h"
#include "fabrics/initiator.h"
#include "fabrics/target.h"

/* ------------------------------------------------------------ initiator */

mxlStatus
mxl_samples_initiator_setup (MxlInitiator *init, const MxlFlowLayout *flow,
    GError **error)
{
  size_t len = 0;
  uint8_t *channels = (uint8_t *) mxl_flow_reader_channels (init->reader, &len);

  init->continuous = TRUE;
  init->ring = (MxlSampleRing) { flow->channel_count, flow->buffer_length,
      flow->sample_word_size };
  if (channels == NULL || len == 0
      || len != (size_t) flow->channel_count * flow->buffer_length * flow->sample_word_size) {
    g_set_error (error, MXL_OFI_ERROR, 0, "channel rings unavailable");
    return MXL_ERR_INVALID_ARG;
  }
  /* Registered as a write source only; never written through. */
  return mxl_ofi_region_register (init->dom, channels, len, FI_WRITE,
      &init->channels_region, error);
}

/* Checks a sample target's bounce ring against the local flow. */
gboolean
mxl_samples_target_usable (const MxlInitiator *init,
    const struct mxlFabricsTargetInfo_t *info)
{
  if (!info->has_bounce_buffer || info->bounce_entry_count != info->n_regions
      || mxl_bounce_capacity (&init->ring, info->bounce_entry_size) == 0)
    return FALSE;
  for (guint e = 0; e < info->n_regions; e++)
    if (info->regions[e].len < info->bounce_entry_size)
      return FALSE;
  return TRUE;
}

void
mxl_samples_conn_release (MxlConn *conn)
{
  if (conn->entry_headers == NULL)
    return;
  mxl_ofi_region_close (conn->init->dom, &conn->entry_headers_region);
  g_clear_pointer (&conn->entry_headers, g_free);
}

static mxlStatus
ensure_header_slots (MxlConn *conn)
{
  g_autoptr (GError) error = NULL;

  if (conn->entry_headers != NULL)
    return MXL_STATUS_OK;
  conn->entry_headers = g_malloc0 (MXL_CONN_HEADER_SLOTS * MXL_BOUNCE_HEADER_SIZE);
  if (mxl_ofi_region_register (conn->init->dom, conn->entry_headers,
          MXL_CONN_HEADER_SLOTS * MXL_BOUNCE_HEADER_SIZE, FI_WRITE,
          &conn->entry_headers_region, &error) != MXL_STATUS_OK) {
    g_warning ("initiator: %s", error->message);
    g_clear_pointer (&conn->entry_headers, g_free);
    return MXL_ERR_UNKNOWN;
  }
  return MXL_STATUS_OK;
}

/* Queues one entry's worth: samples [head - count, head). */
static void
queue_entry (MxlConn *conn, const MxlSamplesRequest *req, uint64_t head,
    uint64_t count)
{
  MxlInitiator *init = conn->init;
  MxlTransfer *t = mxl_egress_enqueue (conn);
  uint32_t entry = req->raw ? req->raw_entry : conn->next_entry;

  if (!req->raw)
    conn->next_entry = (uint32_t) ((conn->next_entry + 1) % conn->info->bounce_entry_count);
  t->remote_slot = entry;
  t->imm = req->raw ? req->raw_imm : entry;
  t->samples.head = head;
  t->samples.count = count;
  t->header_slot = (guint) (t->seq % MXL_CONN_HEADER_SLOTS);
  mxl_bounce_header_write (conn->entry_headers + t->header_slot * MXL_BOUNCE_HEADER_SIZE,
      req->raw ? req->raw_head : head, req->raw ? req->raw_count : count);
  mxl_samples_sgl_init (&t->sgl, &init->ring, head, count, conn->iov_limit, conn->max_msg);
}

/* A batch longer than the target's entries travels as several entries of
 * consecutive samples (the reference refuses it, §4.3); they are queued all
 * or none. */
mxlStatus
mxl_samples_queue (MxlConn *conn, const MxlSamplesRequest *req)
{
  const struct mxlFabricsTargetInfo_t *info = conn->info;
  uint64_t cap = mxl_bounce_capacity (&conn->init->ring, info->bounce_entry_size);
  uint64_t pieces, first;
  mxlStatus st;

  if (req->count == 0 || req->count > conn->init->ring.length || cap == 0)
    return MXL_ERR_INVALID_ARG;
  pieces = req->raw ? 1 : (req->count + cap - 1) / cap;
  if ((req->raw && (req->raw_entry >= info->n_regions || req->count > cap))
      || pieces > MXL_CONN_QUEUE)
    return MXL_ERR_INVALID_ARG;
  if (conn->q_len + pieces > MXL_CONN_QUEUE)
    return MXL_ERR_NOT_READY;
  st = ensure_header_slots (conn);
  if (st != MXL_STATUS_OK)
    return st;
  first = req->head - req->count;
  for (uint64_t done = 0; done < req->count;) {
    uint64_t n = MIN (cap, req->count - done);
    done += n;
    queue_entry (conn, req, first + done, n);
  }
  return MXL_STATUS_OK;
}

static gboolean
samples_next (MxlConn *conn, MxlTransfer *t)
{
  (void) conn;
  if (!mxl_samples_sgl_next (&t->sgl, &t->sg_pending))
    return FALSE;
  t->started = TRUE;
  t->have_pending = TRUE;
  t->chunk_length = t->sg_pending.length;
  t->chunk_last = t->sg_pending.last;
  t->chunk_remote_offset = t->sg_pending.remote_offset;
  return TRUE;
}

/* Local iovecs of a chunk, each checked against its region. */
static gboolean
samples_iov (MxlConn *conn, MxlTransfer *t, struct iovec *iov, void **desc, guint *n_iov)
{
  const MxlSgChunk *c = &t->sg_pending;

  for (guint i = 0; i < c->n_iov; i++) {
    const MxlSgIov *p = &c->iov[i];
    const MxlOfiRegion *r;
    uint8_t *base;
    uint64_t len;

    if (p->region == MXL_SG_HEADER) {
      r = &conn->entry_headers_region;
      base = conn->entry_headers + t->header_slot * MXL_BOUNCE_HEADER_SIZE;
      len = MXL_BOUNCE_HEADER_SIZE;
    } else {
      r = &conn->init->channels_region;
      base = r->base;
      len = r->len;
    }
    if (p->offset > len || p->length > len - p->offset)
      return FALSE;
    iov[i].iov_base = base + p->offset;
    iov[i].iov_len = p->length;
    desc[i] = r->desc;
  }
  *n_iov = c->n_iov;
  return TRUE;
}

const MxlChunkSource mxl_sample_chunks = { samples_next, samples_iov };

static mxlStatus
samples_pump (MxlConn *conn)
{
  return mxl_egress_pump (conn, &mxl_sample_chunks, mxl_rma_post);
}

mxlStatus
mxl_samples_queue_grain (MxlConn *conn, const MxlGrainRequest *req)
{
  (void) conn;
  (void) req;
  return MXL_ERR_INVALID_STATE;
}

const MxlEgressOps mxl_rma_samples_egress_ops = {
  .name = "rma-write-samples",
  .queue_grain = mxl_samples_queue_grain,
  .queue_samples = mxl_samples_queue,
  .pump = samples_pump,
  .on_write_done = mxl_egress_on_write_done,
  .reset = mxl_egress_reset,
};

/* --------------------------------------------------------------- target */

mxlStatus
mxl_samples_target_setup (MxlTarget *t, const MxlFlowLayout *flow, GError **error)
{
  size_t len = 0;
  uint64_t batch = flow->sync_batch_hint ? flow->sync_batch_hint : 1;

  t->continuous = TRUE;
  t->ring = (MxlSampleRing) { flow->channel_count, flow->buffer_length,
      flow->sample_word_size };
  t->channels = mxl_flow_writer_channels (t->writer, &len);
  if (t->channels == NULL
      || len != (size_t) flow->channel_count * flow->buffer_length * flow->sample_word_size) {
    g_set_error (error, MXL_OFI_ERROR, 0, "channel rings unavailable");
    return MXL_ERR_INVALID_ARG;
  }
  /* §4.1: batch = the flow's maxSyncBatchSizeHint; at most the ring. */
  batch = MIN (batch, (uint64_t) flow->buffer_length);
  if (!mxl_bounce_geometry (&t->ring, batch, &t->entry_count, &t->entry_size)
      || t->entry_count > G_MAXUINT32) {
    g_set_error (error, MXL_OFI_ERROR, 0, "bounce ring too large");
    return MXL_ERR_INVALID_ARG;
  }
  t->entry_capacity = batch;
  t->bounce = g_malloc0 (t->entry_count * t->entry_size);
  t->entry_copy = g_malloc (t->entry_size);
  t->entry_pending = g_new0 (uint32_t, t->entry_count);
  return mxl_ofi_region_register (t->dom, t->bounce, t->entry_count * t->entry_size,
      FI_REMOTE_WRITE, &t->bounce_region, error);
}

void
mxl_samples_target_fill_info (MxlTarget *t, struct mxlFabricsTargetInfo_t *info)
{
  info->n_regions = (guint) t->entry_count;
  info->regions = g_new0 (MxlRemoteRegion, t->entry_count);
  for (uint64_t e = 0; e < t->entry_count; e++) {
    info->regions[e].addr = t->bounce_region.remote_addr + e * t->entry_size;
    info->regions[e].len = t->entry_size;
    info->regions[e].rkey = t->bounce_region.key;
  }
  info->has_bounce_buffer = TRUE;
  info->bounce_entry_count = t->entry_count;
  info->bounce_entry_size = t->entry_size;
}

void
mxl_samples_target_teardown (MxlTarget *t)
{
  if (t->dom)
    mxl_ofi_region_close (t->dom, &t->bounce_region);
  g_clear_pointer (&t->bounce, g_free);
  g_clear_pointer (&t->entry_copy, g_free);
  g_clear_pointer (&t->entry_pending, g_free);
}

static void
samples_on_drained (MxlTarget *t, const struct fi_cq_data_entry *entry)
{
  if ((entry->flags & FI_REMOTE_CQ_DATA) && entry->data < t->entry_count)
    t->entry_pending[entry->data]++;
}

static mxlStatus
lost (MxlTarget *t, uint64_t e, const char *why)
{
  t->stats.batchesLost++;
  g_debug ("target %" G_GUINT64_FORMAT ": batch of bounce entry %" G_GUINT64_FORMAT
      " lost (%s): the initiator is more than the bounce ring ahead", t->id, e, why);
  return MXL_FABRICS_EXT_STATUS_SAMPLES_LOST;
}

mxlStatus
mxl_samples_deliver_entry (MxlTarget *t, uint64_t e, uint64_t *out_head,
    uint64_t *out_count)
{
  const uint8_t *entry = t->bounce + e * t->entry_size;
  mxlMutableWrappedMultiBufferSlice slices;
  uint64_t head, count, head2, count2;
  mxlStatus st;

  mxl_bounce_header_read (entry, &head, &count);
  if (!mxl_bounce_entry_check (&t->ring, t->entry_capacity, head, count)) {
    t->stats.badBounceEntries++;
    g_debug ("target %" G_GUINT64_FORMAT ": bounce entry %" G_GUINT64_FORMAT
        " header (head %" G_GUINT64_FORMAT ", count %" G_GUINT64_FORMAT ") out of "
        "range (capacity %" G_GUINT64_FORMAT ")", t->id, e, head, count, t->entry_capacity);
    return MXL_ERR_INVALID_ARG;
  }
  /* Copy out, then check that nobody rewrote the entry meanwhile. */
  memcpy (t->entry_copy, entry + MXL_BOUNCE_HEADER_SIZE,
      (size_t) (count * t->ring.channels * t->ring.word_size));
  __atomic_thread_fence (__ATOMIC_ACQUIRE);
  mxl_bounce_header_read (entry, &head2, &count2);
  if (head2 != head || count2 != count)
    return lost (t, e, "overwritten while copied");
  /* Not newer than what was delivered: this entry's own batch was
   * overwritten by one delivered already (a head more than a ring behind
   * is a restarted initiator, accepted). */
  if (t->have_last_head && head <= t->last_head && t->last_head - head < t->ring.length)
    return lost (t, e, "stale entry");
  if (t->have_last_head && head - count > t->last_head)
    t->stats.samplesSkipped += head - count - t->last_head;
  st = mxlFlowWriterOpenSamples (t->writer, head, count, &slices);
  if (st == MXL_STATUS_OK) {
    mxl_bounce_unpack (&t->ring, t->channels, t->entry_copy, head, count);
    st = mxlFlowWriterCommitSamples (t->writer);
  }
  if (st != MXL_STATUS_OK) {
    t->stats.commitFailures++;
    return st;
  }
  t->have_last_head = TRUE;
  t->last_head = head;
  t->stats.batchesReceived++;
  *out_head = head;
  *out_count = count;
  return MXL_STATUS_OK;
}

static mxlStatus
samples_on_completion (MxlTarget *t, const struct fi_cq_data_entry *entry,
    uint64_t *out_head, uint64_t *out_count)
{
  uint64_t e = entry->data;
  gboolean superseded = FALSE;

  if (e < t->entry_count && t->entry_pending[e] > 0)
    superseded = --t->entry_pending[e] > 0;
  if (e >= t->entry_count) {
    t->stats.badImmediateData++;
    g_debug ("target %" G_GUINT64_FORMAT ": bounce entry %" G_GUINT64_FORMAT
        " out of range (%" G_GUINT64_FORMAT " entries)", t->id, e, t->entry_count);
    return MXL_ERR_INVALID_ARG;
  }
  /* A reference initiator counts entries 0, 1, ... modulo entryCount. */
  if (t->have_last_entry && e != (t->last_entry + 1) % t->entry_count)
    t->stats.entriesOutOfSequence++;
  t->have_last_entry = TRUE;
  t->last_entry = e;
  if (superseded)
    return lost (t, e, "a newer batch is in the entry");
  return mxl_samples_deliver_entry (t, e, out_head, out_count);
}

const MxlIngressOps mxl_rma_samples_ingress_ops = {
  .name = "rma-write-samples",
  .on_completion = samples_on_completion,
  .on_drained = samples_on_drained,
};
