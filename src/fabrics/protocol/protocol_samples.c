/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Continuous flows over remote write (docs/wire-format.md §2.2, §4).
 *
 * Egress: one transfer per entry and target; only the last write of a
 * transfer carries the immediate data (the entry index, one counter per
 * connection, modulo entryCount). Two ways to put the same bytes on the
 * wire (§4.2):
 *   - staged (default, setup option "samplesStaging"): the entry header and
 *     the channel-major payload are packed into a staging slot of the
 *     connection when the batch is queued (one memcpy per channel
 *     fragment), then sent as ONE write (cut only by max_msg_size). The
 *     slots (one registered region, allocated when the connection first
 *     queues, sized from the target's entry capacity) are used round-robin
 *     by transfer sequence; a slot is reused only when the transfer in it
 *     is neither queued nor has a write in flight, otherwise the batch is
 *     refused with NOT_READY (back-pressure, as a full queue). Where 64
 *     channels took 17 chained writes on tcp and shm (iov_limit 4), a batch
 *     is one write: shm, which holds the immediate data until the others
 *     completed, can then carry 64 channels in 1 ms batches.
 *   - scatter-gather (staging off, an entry larger than
 *     MXL_STAGING_MAX_SLOT, or a batch of more entries than there are
 *     slots): the 16-byte header from a header slot (one per transfer that
 *     can be queued or in flight), then each channel's one or two ring
 *     fragments (bounce.c), cut into writes by iov_limit and max_msg_size;
 *     no copy at the initiator.
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
#include "fabrics/protocol/protocol.h"

#include <string.h>

#include <mxl/flow.h>

#include "fabrics/wire/bounce.h"
#include "fabrics/protocol/initiator-state.h"
#include "fabrics/protocol/samples_initiator.h"
#include "fabrics/protocol/target-state.h"

/* ------------------------------------------------------------ initiator */

/* Per-connection state of the sample chunk source (conn->chunk_state),
 * allocated when the connection first queues a batch. */
typedef struct {
  MxlChunkState base;
  /* entry index counter (docs/wire-format.md §2.2) and the 16-byte header slots, one
   * per transfer that can be queued or in flight */
  uint32_t next_entry;
  uint8_t *entry_headers;
  MxlOfiRegion entry_headers_region;
  /* staging: each entry packed (header + channel-major payload) into one
   * registered slot and sent as one write. The slot of transfer seq is
   * seq % n_staging; it is reused only when the transfer in it has no
   * write queued or in flight. */
  uint8_t *staging;
  MxlOfiRegion staging_region;
  guint n_staging;           /* 0: scatter-gather path only */
  uint64_t staging_slot_size;
  uint64_t *staging_owner;   /* transfer seq in each slot, G_MAXUINT64 = none */
} MxlSampleConn;

/* The connection's state, NULL before its first batch. */
static MxlSampleConn *
peek_state (const MxlConn *conn)
{
  return conn->chunk_state == NULL ? NULL
      : mxl_container_of (conn->chunk_state, MxlSampleConn, base);
}

static MxlSampleConn *
conn_state (MxlConn *conn)
{
  if (conn->chunk_state == NULL) {
    MxlSampleConn *c = g_new0 (MxlSampleConn, 1);
    c->base.source = &mxl_sample_chunks;
    conn->chunk_state = &c->base;
  }
  return peek_state (conn);
}

/* Frees the connection's header and staging slots and restarts its entry
 * counter (@final: the state too). */
static void
samples_release (MxlConn *conn, gboolean final)
{
  MxlSampleConn *c = peek_state (conn);

  if (c == NULL)
    return;
  c->next_entry = 0;
  if (c->staging != NULL) {
    mxl_ofi_region_close (conn->init->base.dom, &c->staging_region);
    g_clear_pointer (&c->staging, g_free);
    g_clear_pointer (&c->staging_owner, g_free);
    c->n_staging = 0;
  }
  if (c->entry_headers != NULL) {
    mxl_ofi_region_close (conn->init->base.dom, &c->entry_headers_region);
    g_clear_pointer (&c->entry_headers, g_free);
  }
  if (final) {
    g_free (c);
    conn->chunk_state = NULL;
  }
}

static mxlStatus
ensure_header_slots (MxlConn *conn)
{
  MxlSampleConn *c = conn_state (conn);
  g_autoptr (GError) error = NULL;

  if (c->entry_headers != NULL)
    return MXL_STATUS_OK;
  c->entry_headers = g_malloc0 (MXL_CONN_HEADER_SLOTS * MXL_BOUNCE_HEADER_SIZE);
  if (mxl_ofi_region_register (conn->init->base.dom, c->entry_headers,
          MXL_CONN_HEADER_SLOTS * MXL_BOUNCE_HEADER_SIZE, FI_WRITE,
          &c->entry_headers_region, &error) != MXL_STATUS_OK) {
    g_warning ("initiator: %s", error->message);
    g_clear_pointer (&c->entry_headers, g_free);
    return MXL_ERR_UNKNOWN;
  }
  return MXL_STATUS_OK;
}

/* Staging (one write per entry instead of a chain of scatter-gather
 * writes) applies to entries of at most this many bytes; a larger entry
 * has channel fragments of more than MXL_STAGING_MAX_SLOT / C bytes, whose
 * writes cost little next to the extra copy packing would add. */
#define MXL_STAGING_MAX_SLOT (1024u * 1024u)
/* Bytes of staging slots per connection; the slot count is this divided by
 * the slot size, at least MXL_STAGING_MIN_SLOTS and at most one per
 * transfer that can be queued or in flight (MXL_CONN_HEADER_SLOTS). */
#define MXL_STAGING_BUDGET (4u * 1024u * 1024u)
#define MXL_STAGING_MIN_SLOTS 4u

#ifdef MXL_TEST_HOOKS
/* The test build's budget, which tests may change; the shared library's
 * is the constant MXL_STAGING_BUDGET. */
static uint64_t staging_budget = MXL_STAGING_BUDGET;

void
mxl_samples_debug_set_staging_budget (uint64_t bytes)
{
  staging_budget = bytes ? bytes : MXL_STAGING_BUDGET;
}
#else
#define staging_budget ((uint64_t) MXL_STAGING_BUDGET)
#endif

/* Allocates (pre-faulted) and registers the connection's staging slots,
 * sized from the target's entry capacity, once per TargetInfo. Leaves
 * n_staging 0 (scatter-gather path) when staging does not apply or the
 * registration fails. */
static void
ensure_staging (MxlConn *conn)
{
  MxlSampleConn *c = conn_state (conn);
  g_autoptr (GError) error = NULL;
  MxlInitiator *init = conn->init;
  const MxlSampleRing *ring = &mxl_samples_initiator (init)->ring;
  uint64_t cap = mxl_bounce_capacity (ring, conn->info->bounce_entry_size);
  uint64_t size = MXL_BOUNCE_HEADER_SIZE
      + (uint64_t) ring->channels * ring->word_size * cap;
  guint n;

  if (c->staging != NULL || !init->base.options.samples_staging || cap == 0
      || size > MXL_STAGING_MAX_SLOT)
    return;
  n = (guint) CLAMP (staging_budget / size, MXL_STAGING_MIN_SLOTS, MXL_CONN_HEADER_SLOTS);
  c->staging = g_malloc (n * size);
  memset (c->staging, 0, n * size);
  /* A source of writes, and of sends for a send target (tcp;ofi_rxm's
   * rendezvous of large messages needs a region registered for FI_SEND). */
  if (mxl_ofi_region_register (init->base.dom, c->staging, n * size,
          FI_WRITE | (init->base.dom->info->caps & FI_SEND), &c->staging_region,
          &error) != MXL_STATUS_OK) {
    g_message ("initiator: staging slots not registered (%s): scatter-gather "
        "writes instead", error->message);
    g_clear_pointer (&c->staging, g_free);
    return;
  }
  c->staging_owner = g_new (uint64_t, n);
  for (guint k = 0; k < n; k++)
    c->staging_owner[k] = G_MAXUINT64;
  c->staging_slot_size = size;
  c->n_staging = n;
}

/* Whether the @pieces transfers queued next can each take their staging
 * slot (seq % n_staging): the transfer last in it is done with it. */
static gboolean
staging_free (MxlConn *conn, uint64_t pieces)
{
  MxlSampleConn *c = conn_state (conn);
  uint64_t queued_from = conn->q_len > 0 ? conn->queue[conn->q_head].seq : G_MAXUINT64;

  for (uint64_t k = 0; k < pieces; k++) {
    uint64_t owner = c->staging_owner[(conn->next_seq + k) % c->n_staging];
    if (owner != G_MAXUINT64
        && (owner >= queued_from || !conn->init->engine->transfer_idle (conn, owner)))
      return FALSE;
  }
  return TRUE;
}

#ifdef MXL_TEST_HOOKS
/* The test hook reads what the egress keeps anyway (the slot owners), so
 * that nothing is counted for it. */
void
mxl_samples_debug_staging (MxlConn *conn, MxlSamplesStaging *out)
{
  const MxlSampleConn *c = peek_state (conn);

  memset (out, 0, sizeof (*out));
  if (c == NULL)
    return;
  out->n_staging = c->n_staging;
  out->slot_size = c->staging_slot_size;
  out->next_slot_free = c->n_staging > 0 && staging_free (conn, 1);
}

gboolean
mxl_samples_debug_staged (const MxlConn *conn, uint64_t seq)
{
  const MxlSampleConn *c = peek_state (conn);

  return c != NULL && c->n_staging > 0 && seq < conn->next_seq
      && c->staging_owner[seq % c->n_staging] == seq;
}
#endif

/* What one queued entry says on the wire: its bounce entry, immediate
 * data and entry header (§4.2). */
typedef struct EntryWire {
  uint32_t entry, imm;
  uint64_t header_head, header_count;
} EntryWire;

/* Queues one entry's worth: samples [head - count, head) as @w says.
 * Staged: the header and the samples are packed into the transfer's slot
 * now (the bytes the scatter-gather list would send, §4.2), one piece. */
static void
queue_entry (MxlConn *conn, const EntryWire *w, uint64_t head, uint64_t count,
    gboolean staged)
{
  MxlSampleConn *c = conn_state (conn);
  MxlInitiator *init = conn->init;
  MxlTransfer *t = mxl_egress_enqueue (conn);
  MxlSamplesTransfer *s = &t->u.samples;

  t->remote_slot = w->entry;
  t->imm = w->imm;
  if (staged) {
    const MxlSamplesInitiator *si = mxl_samples_initiator (init);
    uint8_t *slot;
    s->header_slot = (guint) (t->seq % c->n_staging);
    c->staging_owner[s->header_slot] = t->seq;
    slot = c->staging + s->header_slot * c->staging_slot_size;
    mxl_bounce_header_write (slot, w->header_head, w->header_count);
    mxl_bounce_pack (&si->ring, si->region.base,
        slot + MXL_BOUNCE_HEADER_SIZE, head, count);
    mxl_samples_sgl_init_staged (&s->sgl, MXL_BOUNCE_HEADER_SIZE
        + (uint64_t) si->ring.channels * si->ring.word_size * count,
        conn->max_msg);
    return;
  }
  s->header_slot = (guint) (t->seq % MXL_CONN_HEADER_SLOTS);
  mxl_bounce_header_write (c->entry_headers + s->header_slot * MXL_BOUNCE_HEADER_SIZE,
      w->header_head, w->header_count);
  mxl_samples_sgl_init (&s->sgl, &mxl_samples_initiator (init)->ring, head, count, conn->iov_limit,
      conn->max_msg);
}

/* Room for @pieces entries of @req: queue slots, and staging slots or
 * header slots. @out_staged: the entries are staged (the connection has
 * staging slots and the batch's entries fit in them; a batch of more
 * entries than slots goes the scatter-gather way); no free slot is
 * back-pressure: NOT_READY, as a full queue. */
static mxlStatus
make_room (MxlConn *conn, uint64_t pieces, gboolean *out_staged)
{
  MxlSampleConn *c = conn_state (conn);

  if (pieces > MXL_CONN_QUEUE)
    return MXL_ERR_INVALID_ARG;
  if (conn->q_len + pieces > MXL_CONN_QUEUE)
    return MXL_ERR_NOT_READY;
  ensure_staging (conn);
  *out_staged = c->n_staging > 0 && pieces <= c->n_staging;
  if (*out_staged && !staging_free (conn, pieces))
    return MXL_ERR_NOT_READY;
  return *out_staged ? MXL_STATUS_OK : ensure_header_slots (conn);
}

/* Samples per channel one entry of @conn's target holds (0: none), after
 * checking @req against the local ring. */
static uint64_t
entry_capacity (MxlConn *conn, const MxlSamplesRequest *req)
{
  if (req->count == 0 || !mxl_samples_batch_fits (conn->init, req->count))
    return 0;
  return mxl_bounce_capacity (&mxl_samples_initiator (conn->init)->ring, conn->info->bounce_entry_size);
}

uint64_t
mxl_samples_batch_entries (MxlConn *conn, uint64_t count)
{
  MxlSamplesRequest req = { .head = count, .count = count };
  uint64_t cap = entry_capacity (conn, &req);

  return cap == 0 ? 0 : (count + cap - 1) / cap;
}

uint32_t
mxl_samples_next_entry (const MxlConn *conn)
{
  const MxlSampleConn *c = peek_state (conn);

  return c != NULL ? c->next_entry : 0;
}

/* A batch longer than the target's entries travels as several entries of
 * consecutive samples (the reference refuses it, §4.3), in consecutive
 * entries of the ring; they are queued all or none. */
static mxlStatus
samples_queue (MxlConn *conn, const void *request)
{
  const MxlSamplesRequest *req = request;
  MxlSampleConn *c = conn_state (conn);
  uint64_t cap = entry_capacity (conn, req);
  uint64_t first;
  gboolean staged;
  mxlStatus st;

  if (cap == 0)
    return MXL_ERR_INVALID_ARG;
  /* the entry count mxl_samples_batch_entries() gives the credits */
  if ((st = make_room (conn, (req->count + cap - 1) / cap, &staged)) != MXL_STATUS_OK)
    return st;
  first = req->head - req->count;
  for (uint64_t done = 0; done < req->count;) {
    uint64_t n = MIN (cap, req->count - done);
    EntryWire w = { .entry = c->next_entry, .imm = c->next_entry };
    done += n;
    w.header_head = first + done;
    w.header_count = n;
    c->next_entry = (uint32_t) ((c->next_entry + 1) % conn->info->bounce_entry_count);
    queue_entry (conn, &w, first + done, n, staged);
  }
  return MXL_STATUS_OK;
}

mxlStatus
mxl_samples_queue_entry_at (MxlConn *conn, const MxlSamplesRequest *req,
    uint32_t entry, uint32_t imm, uint64_t header_head, uint64_t header_count)
{
  EntryWire w = { entry, imm, header_head, header_count };
  uint64_t cap = entry_capacity (conn, req);
  gboolean staged;
  mxlStatus st;

  if (cap == 0 || entry >= conn->info->n_regions || req->count > cap)
    return MXL_ERR_INVALID_ARG;
  if ((st = make_room (conn, 1, &staged)) != MXL_STATUS_OK)
    return st;
  queue_entry (conn, &w, req->head, req->count, staged);
  return MXL_STATUS_OK;
}

static gboolean
samples_next (MxlConn *conn, MxlTransfer *t)
{
  MxlSamplesTransfer *s = &t->u.samples;

  (void) conn;
  if (!mxl_samples_sgl_next (&s->sgl, &s->pending))
    return FALSE;
  t->started = TRUE;
  t->have_pending = TRUE;
  t->chunk_length = s->pending.length;
  t->chunk_last = s->pending.last;
  t->chunk_remote_offset = s->pending.remote_offset;
  return TRUE;
}

/* Local iovecs of a chunk, each checked against its region. */
static gboolean
samples_iov (MxlConn *conn, MxlTransfer *t, struct iovec *iov, void **desc, guint *n_iov)
{
  MxlSampleConn *st = peek_state (conn);
  const MxlSamplesTransfer *s = &t->u.samples;
  const MxlSgChunk *c = &s->pending;

  for (guint i = 0; i < c->n_iov; i++) {
    const MxlSgIov *p = &c->iov[i];
    const MxlOfiRegion *r;
    uint8_t *base;
    uint64_t len;

    if (p->region == MXL_SG_HEADER) {
      r = &st->entry_headers_region;
      base = st->entry_headers + s->header_slot * MXL_BOUNCE_HEADER_SIZE;
      len = MXL_BOUNCE_HEADER_SIZE;
    } else if (p->region == MXL_SG_STAGING) {
      r = &st->staging_region;
      base = st->staging + s->header_slot * st->staging_slot_size;
      len = st->staging_slot_size;
    } else {
      r = &mxl_samples_initiator (conn->init)->region;
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

/* Sample chunks read the channel rings or the connection's own slots, no
 * grain slot: they never wait here and record nothing per write. */
static gboolean
samples_claim (MxlConn *conn, MxlTransfer *t)
{
  (void) conn;
  (void) t;
  return TRUE;
}

const MxlChunkSource mxl_sample_chunks = {
  .name = "sample",
  .target_usable = mxl_samples_target_usable,
  .setup = mxl_samples_initiator_setup,
  .teardown = mxl_samples_initiator_teardown,
  .queue = samples_queue,
  .release = samples_release,
  .claim = samples_claim,
  .next = samples_next,
  .iov = samples_iov,
};

/* --------------------------------------------------------------- target */

/* The target's ingress state of a continuous flow (t->istate): the bounce
 * ring (§4.1) and what the checks of the entries delivered so far need. */
typedef struct {
  MxlIngressState base;
  MxlSampleRing ring;
  uint8_t *channels;              /* the writer's channel rings */
  uint64_t entry_count, entry_size, entry_capacity;
  uint8_t *bounce;                /* entry_count * entry_size bytes */
  MxlOfiRegion bounce_region;     /* FI_REMOTE_WRITE */
  uint8_t *entry_copy;            /* one entry's payload, copied out */
  uint32_t *entry_pending;        /* buffered completions per entry */
  gboolean have_last_entry, have_last_head;
  uint64_t last_entry, last_head;
} MxlSamplesIngress;

/* The hot path's: t->istate is this ingress's (it is installed with it). */
static MxlSamplesIngress *
samples_of (MxlTarget *t)
{
  return mxl_container_of (t->istate, MxlSamplesIngress, base);
}

/* The accessors': NULL unless @t's ingress state is this one. */
static MxlSamplesIngress *
ingress_of (MxlTarget *t)
{
  return t->istate != NULL && t->istate->ops == &mxl_rma_samples_ingress_ops
      ? mxl_container_of (t->istate, MxlSamplesIngress, base) : NULL;
}

/* Allocates and registers the target's bounce ring (§4.1). */
static mxlStatus
samples_ingress_setup (MxlTarget *t, const MxlFlowLayout *flow, GError **error)
{
  MxlSamplesIngress *s = g_new0 (MxlSamplesIngress, 1);
  size_t len = 0;
  uint64_t batch = flow->sync_batch_hint ? flow->sync_batch_hint : 1;

  s->base.ops = &mxl_rma_samples_ingress_ops;
  t->istate = &s->base;
  t->base.continuous = TRUE;
  s->ring = (MxlSampleRing) { flow->channel_count, flow->buffer_length,
      flow->sample_word_size };
  s->channels = mxl_flow_writer_channels (t->writer, &len);
  if (s->channels == NULL
      || len != (size_t) flow->channel_count * flow->buffer_length * flow->sample_word_size) {
    g_set_error (error, MXL_OFI_ERROR, 0, "channel rings unavailable");
    return MXL_ERR_INVALID_ARG;
  }
  /* §4.1: batch = the flow's maxSyncBatchSizeHint; at most the ring. */
  batch = MIN (batch, (uint64_t) flow->buffer_length);
  if (!mxl_bounce_geometry (&s->ring, batch, &s->entry_count, &s->entry_size)
      || s->entry_count > G_MAXUINT32) {
    g_set_error (error, MXL_OFI_ERROR, 0, "bounce ring too large");
    return MXL_ERR_INVALID_ARG;
  }
  s->entry_capacity = batch;
  s->bounce = g_malloc0 (s->entry_count * s->entry_size);
  s->entry_copy = g_malloc (s->entry_size);
  s->entry_pending = g_new0 (uint32_t, s->entry_count);
  return mxl_ofi_region_register (t->base.dom, s->bounce, s->entry_count * s->entry_size,
      FI_REMOTE_WRITE, &s->bounce_region, error);
}

uint8_t *
mxl_samples_target_entries (MxlTarget *t, uint64_t *out_count, uint64_t *out_size)
{
  MxlSamplesIngress *s = ingress_of (t);

  *out_count = s ? s->entry_count : 0;
  *out_size = s ? s->entry_size : 0;
  return s ? s->bounce : NULL;
}

#ifdef MXL_TEST_HOOKS
const MxlSampleRing *
mxl_samples_debug_target_ring (MxlTarget *t)
{
  MxlSamplesIngress *s = ingress_of (t);

  return s ? &s->ring : NULL;
}
#endif

void
mxl_samples_target_fill_info (MxlTarget *t, struct mxlFabricsTargetInfo_t *info)
{
  MxlSamplesIngress *s = ingress_of (t);

  info->n_regions = (guint) s->entry_count;
  info->regions = g_new0 (MxlRemoteRegion, s->entry_count);
  for (uint64_t e = 0; e < s->entry_count; e++) {
    info->regions[e].addr = s->bounce_region.remote_addr + e * s->entry_size;
    info->regions[e].len = s->entry_size;
    info->regions[e].rkey = s->bounce_region.key;
  }
  info->has_bounce_buffer = TRUE;
  info->bounce_entry_count = s->entry_count;
  info->bounce_entry_size = s->entry_size;
}

static void
samples_ingress_teardown (MxlTarget *t)
{
  MxlSamplesIngress *s = samples_of (t);

  if (t->base.dom)
    mxl_ofi_region_close (t->base.dom, &s->bounce_region);
  g_free (s->bounce);
  g_free (s->entry_copy);
  g_free (s->entry_pending);
  g_free (s);
  t->istate = NULL;
}

static void
samples_on_drained (MxlTarget *t, const struct fi_cq_data_entry *entry)
{
  MxlSamplesIngress *s = samples_of (t);

  if ((entry->flags & FI_REMOTE_CQ_DATA) && entry->data < s->entry_count)
    s->entry_pending[entry->data]++;
}

static mxlStatus
lost (MxlTarget *t, uint64_t e, const char *why)
{
  t->stats.batchesLost++;
  g_debug ("target %" G_GUINT64_FORMAT ": batch of bounce entry %" G_GUINT64_FORMAT
      " lost (%s): the initiator is more than the bounce ring ahead", t->id, e, why);
  return MXL_FABRICS_EXT_STATUS_SAMPLES_LOST;
}

/* Validates, copies out, unpacks and commits bounce entry @e (whose data
 * is complete). Returns OK with (head, count), INVALID_ARG (bad header,
 * counted), MXL_FABRICS_EXT_STATUS_SAMPLES_LOST (counted), or the flow
 * writer's status. */
static mxlStatus
deliver_entry (MxlTarget *t, MxlSamplesIngress *s, uint64_t e, uint64_t *out_head,
    uint64_t *out_count)
{
  const uint8_t *entry = s->bounce + e * s->entry_size;
  mxlMutableWrappedMultiBufferSlice slices;
  uint64_t head, count, head2, count2;
  mxlStatus st;

  mxl_bounce_header_read (entry, &head, &count);
  if (!mxl_bounce_entry_check (&s->ring, s->entry_capacity, head, count)) {
    t->stats.badBounceEntries++;
    g_debug ("target %" G_GUINT64_FORMAT ": bounce entry %" G_GUINT64_FORMAT
        " header (head %" G_GUINT64_FORMAT ", count %" G_GUINT64_FORMAT ") out of "
        "range (capacity %" G_GUINT64_FORMAT ")", t->id, e, head, count, s->entry_capacity);
    return MXL_ERR_INVALID_ARG;
  }
  /* Copy out, then check that nobody rewrote the entry meanwhile. */
  memcpy (s->entry_copy, entry + MXL_BOUNCE_HEADER_SIZE,
      (size_t) (count * s->ring.channels * s->ring.word_size));
  __atomic_thread_fence (__ATOMIC_ACQUIRE);
  mxl_bounce_header_read (entry, &head2, &count2);
  if (head2 != head || count2 != count)
    return lost (t, e, "overwritten while copied");
  /* Not newer than what was delivered: this entry's own batch was
   * overwritten by one delivered already (a head more than a ring behind
   * is a restarted initiator, accepted). */
  if (s->have_last_head && head <= s->last_head && s->last_head - head < s->ring.length)
    return lost (t, e, "stale entry");
  if (s->have_last_head && head - count > s->last_head)
    t->stats.samplesSkipped += head - count - s->last_head;
  st = mxlFlowWriterOpenSamples (t->writer, head, count, &slices);
  if (st == MXL_STATUS_OK) {
    mxl_bounce_unpack (&s->ring, s->channels, s->entry_copy, head, count);
    st = mxlFlowWriterCommitSamples (t->writer);
  }
  if (st != MXL_STATUS_OK) {
    t->stats.commitFailures++;
    return st;
  }
  s->have_last_head = TRUE;
  s->last_head = head;
  t->stats.batchesReceived++;
  *out_head = head;
  *out_count = count;
  return MXL_STATUS_OK;
}

static mxlStatus
samples_on_completion (MxlTarget *t, const struct fi_cq_data_entry *entry,
    uint64_t *out_head, uint64_t *out_count)
{
  MxlSamplesIngress *s = samples_of (t);
  uint64_t e = entry->data;
  gboolean superseded = FALSE;

  if (e < s->entry_count && s->entry_pending[e] > 0)
    superseded = --s->entry_pending[e] > 0;
  if (e >= s->entry_count) {
    t->stats.badImmediateData++;
    g_debug ("target %" G_GUINT64_FORMAT ": bounce entry %" G_GUINT64_FORMAT
        " out of range (%" G_GUINT64_FORMAT " entries)", t->id, e, s->entry_count);
    return MXL_ERR_INVALID_ARG;
  }
  /* A reference initiator counts entries 0, 1, ... modulo entryCount. */
  if (s->have_last_entry && e != (s->last_entry + 1) % s->entry_count)
    t->stats.entriesOutOfSequence++;
  s->have_last_entry = TRUE;
  s->last_entry = e;
  if (superseded)
    return lost (t, e, "a newer batch is in the entry");
  return deliver_entry (t, s, e, out_head, out_count);
}

const MxlIngressOps mxl_rma_samples_ingress_ops = {
  .name = "rma-write-samples",
  .setup = samples_ingress_setup,
  .teardown = samples_ingress_teardown,
  .on_completion = samples_on_completion,
  .on_drained = samples_on_drained,
  .fill_info = mxl_samples_target_fill_info,
};
