/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Transfer protocols behind small ops tables. An initiator connection picks
 * its egress ops when it becomes connected, a target its ingress ops at
 * setup; the hot path then makes one indirect call and never switches on
 * the protocol. Remote write + immediate data (protocol_rma.c), send/receive
 * (protocol_send.c) and tagged send/receive (protocol_tagged.c) plug in
 * with the same two tables.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_eq.h>

#include <mxl/mxl.h>

#include "fabrics/wire/layout.h"
#include "flow/flow-internal.h"
#include "fabrics/options.h"
#include "fabrics/ofi/provider.h"
#include "fabrics/wire/targetinfo.h"

typedef struct mxlFabricsTarget_t MxlTarget;
typedef struct MxlConn MxlConn;
typedef struct MxlWriteCtx MxlWriteCtx;
typedef struct MxlTransfer MxlTransfer;

/**
 * MxlGrainRequest:
 * A grain transfer as computed once per TransferGrain call from the local
 * flow (the same for every target): local slot, runs and slice end.
 */
typedef struct MxlGrainRequest {
  uint64_t grain_index;
  uint32_t local_slot;
  uint16_t slice_end;        /* imm slice value (0 for a header-only grain) */
  uint16_t req_start, req_end;   /* the slice range as requested (results) */
  guint n_runs;
  MxlRun runs[MXL_LAYOUT_MAX_PLANES];
  /* Test hook only (mxl_initiator_debug_post_raw()): use this remote slot
   * and immediate data instead of the computed ones. */
  gboolean raw;
  uint32_t raw_remote_slot;
  uint32_t raw_imm;
} MxlGrainRequest;

/**
 * MxlSamplesRequest:
 * A batch of a continuous flow (TransferSamples): samples head - count ..
 * head - 1 of every channel (wire spec §4).
 */
typedef struct MxlSamplesRequest {
  uint64_t head;
  uint64_t count;
  /* Test hook only (mxl_initiator_debug_samples_raw()): this entry index
   * and these header values instead of the computed ones. */
  gboolean raw;
  uint32_t raw_entry;
  uint32_t raw_imm;
  uint64_t raw_head, raw_count;
} MxlSamplesRequest;

typedef struct MxlEgressOps {
  const char *name;
  /* Checks the request against the connection's remote regions and queues
   * it. Returns OK, INVALID_ARG (a write would leave the remote region),
   * NOT_READY (queue full). */
  mxlStatus (*queue_grain) (MxlConn *conn, const MxlGrainRequest *req);
  /* The same for a batch of samples (continuous flows). */
  mxlStatus (*queue_samples) (MxlConn *conn, const MxlSamplesRequest *req);
  /* Posts queued writes while the provider accepts them. Returns OK, or the
   * status of a posting failure other than -FI_EAGAIN (connection broken). */
  mxlStatus (*pump) (MxlConn *conn);
  /* A write of this connection completed (@ok FALSE: error completion). */
  void (*on_write_done) (MxlConn *conn, const MxlWriteCtx *ctx, gboolean ok);
  /* Drops everything queued (connection closed). */
  void (*reset) (MxlConn *conn);
} MxlEgressOps;

typedef struct MxlIngressOps {
  const char *name;
  /* Decodes one completion that carries immediate data. Returns OK with the
   * grain index (continuous flows: the head index and the sample count),
   * INVALID_ARG for bad network input (counted), or NOT_READY when the
   * completion is consumed without a result (superseded). */
  mxlStatus (*on_completion) (MxlTarget *target,
      const struct fi_cq_data_entry *entry, uint64_t *out_index,
      uint64_t *out_count);
  /* Called for every drained completion before any is consumed (batch
   * bookkeeping: is a newer completion for the same slot or entry
   * waiting?). */
  void (*on_drained) (MxlTarget *target, const struct fi_cq_data_entry *entry);
} MxlIngressOps;

extern const MxlEgressOps mxl_rma_egress_ops;
extern const MxlEgressOps mxl_rma_samples_egress_ops;
extern const MxlIngressOps mxl_rma_ingress_ops;
extern const MxlIngressOps mxl_rma_samples_ingress_ops;
/* Send/receive (protocol_send.c): the grain and sample egress ops, and the
 * ingress that unpacks received messages in front of the target's write
 * ingress (t->rx_inner). */
extern const MxlEgressOps mxl_send_egress_ops;
extern const MxlEgressOps mxl_send_samples_egress_ops;
extern const MxlIngressOps mxl_send_ingress_ops;
/* Tagged (protocol_tagged.c): in-place pieces in front of the send
 * protocol's ingress. */
extern const MxlEgressOps mxl_tagged_egress_ops;
extern const MxlEgressOps mxl_tagged_samples_egress_ops;
extern const MxlIngressOps mxl_tagged_ingress_ops;

/** Queue functions shared by the write and send egress ops. */
mxlStatus mxl_rma_queue_grain (MxlConn *conn, const MxlGrainRequest *req);
mxlStatus mxl_samples_queue (MxlConn *conn, const MxlSamplesRequest *req);
mxlStatus mxl_samples_queue_grain (MxlConn *conn, const MxlGrainRequest *req);

/**
 * MxlChunkSource:
 * How a protocol produces and posts the writes (or sends) of a queued
 * transfer; mxl_egress_pump() does the rest (deadlines, window, contexts,
 * holding the immediate data on unordered providers, -FI_EAGAIN).
 */
typedef struct MxlChunkSource {
  /* Produces the next piece of @t into its pending chunk (sets
   * t->have_pending, t->chunk_length, t->chunk_last,
   * t->chunk_remote_offset); FALSE when done. */
  gboolean (*next) (MxlConn *conn, MxlTransfer *t);
  /* Local iovecs (at most MXL_LAYOUT_MAX_IOV) of the pending chunk, each
   * checked against its local region; FALSE when one would leave it. */
  gboolean (*iov) (MxlConn *conn, MxlTransfer *t, struct iovec *iov, void **desc,
      guint *n_iov);
} MxlChunkSource;

/* Grain chunks (protocol_rma.c) and sample chunks (protocol_samples.c). */
extern const MxlChunkSource mxl_grain_chunks;
extern const MxlChunkSource mxl_sample_chunks;

/**
 * MxlTransportPost:
 * Posts the pending chunk of @t (t->chunk_remote_offset and t->chunk_length
 * bytes into remote region t->remote_slot; t->imm when t->chunk_last) from
 * the local @iov. Returns: the libfabric status.
 */
typedef ssize_t (*MxlTransportPost) (MxlConn *conn, MxlTransfer *t,
    const struct iovec *iov, void **desc, guint n_iov, MxlWriteCtx *ctx);

/** Send with remote CQ data: a message header, then the chunk
 * (protocol_send.c). */
ssize_t mxl_send_post (MxlConn *conn, MxlTransfer *t, const struct iovec *iov,
    void **desc, guint n_iov, MxlWriteCtx *ctx);

/**
 * mxl_send_gather:
 * Writes the send header of the pending chunk of @t into @ctx and returns
 * in @v / @d the header iovec followed by @iov / @desc (room for
 * MXL_LAYOUT_MAX_IOV + 1). Returns: the iovec count, or -FI_EINVAL when the
 * chunk leaves its remote region or the receive size.
 */
ssize_t mxl_send_gather (MxlConn *conn, MxlTransfer *t, const struct iovec *iov,
    void **desc, guint n_iov, MxlWriteCtx *ctx, struct iovec *v, void **d);

/** Tagged send with remote CQ data: in place when the chunk is a whole
 * piece, else a send header and the chunk (protocol_tagged.c). */
ssize_t mxl_tagged_post (MxlConn *conn, MxlTransfer *t, const struct iovec *iov,
    void **desc, guint n_iov, MxlWriteCtx *ctx);

/** Remote write + immediate data (protocol_rma.c). */
ssize_t mxl_rma_post (MxlConn *conn, MxlTransfer *t, const struct iovec *iov,
    void **desc, guint n_iov, MxlWriteCtx *ctx);

mxlStatus mxl_egress_pump (MxlConn *conn, const MxlChunkSource *src,
    MxlTransportPost post);

/** Appends a transfer to the connection's queue (NULL when full): sequence,
 * deadline and the queued counter are set, the rest is zeroed. */
MxlTransfer *mxl_egress_enqueue (MxlConn *conn);

/** The shared on_write_done and reset of queued-transfer protocols. */
void mxl_egress_on_write_done (MxlConn *conn, const MxlWriteCtx *ctx, gboolean ok);
void mxl_egress_reset (MxlConn *conn);

/**
 * mxl_egress_select:
 * The egress ops for a target of protocol @kind, for a grain (@continuous
 * FALSE) or sample initiator. Returns: NULL when this build cannot speak it.
 */
const MxlEgressOps *mxl_egress_select (MxlProtocolKind kind, gboolean continuous);

/* --- continuous flows (protocol_samples.c) --- */

typedef struct mxlFabricsInitiator_t MxlInitiator;

/** Registers the initiator's channel rings (FI_WRITE). */
mxlStatus mxl_samples_initiator_setup (MxlInitiator *init, const MxlFlowLayout *flow,
    GError **error);
/** TRUE when @info has a bounce ring that batches of this flow fit. */
gboolean mxl_samples_target_usable (const MxlInitiator *init,
    const struct mxlFabricsTargetInfo_t *info);
/** Frees a connection's header slots and staging slots. */
void mxl_samples_conn_release (MxlConn *conn);
/**
 * mxl_samples_debug_set_staging_budget:
 * Test hook (internal): bytes of staging slots a connection gets when it
 * first queues a batch (slot count = @bytes / slot size, at least 4); 0
 * restores the default (4 MiB). Process-wide.
 */
void mxl_samples_debug_set_staging_budget (uint64_t bytes);
/** Allocates and registers the target's bounce ring (§4.1). */
mxlStatus mxl_samples_target_setup (MxlTarget *target, const MxlFlowLayout *flow,
    GError **error);
/** Regions and bounceBufferInfo of the TargetInfo. */
void mxl_samples_target_fill_info (MxlTarget *target,
    struct mxlFabricsTargetInfo_t *info);
void mxl_samples_target_teardown (MxlTarget *target);
/** Validates, copies out, unpacks and commits bounce entry @e (whose data
 * is complete). Returns OK with (head, count), INVALID_ARG (bad header,
 * counted), MXL_FABRICS_EXT_STATUS_SAMPLES_LOST (counted), or the flow
 * writer's status. */
mxlStatus mxl_samples_deliver_entry (MxlTarget *target, uint64_t e,
    uint64_t *out_head, uint64_t *out_count);

/**
 * mxl_protocol_caps:
 * The libfabric capabilities protocol @kind needs in @role: write
 * FI_RMA | FI_REMOTE_WRITE (target) or FI_RMA | FI_WRITE (initiator); send
 * FI_MSG, tagged FI_TAGGED, each with FI_RECV (target) or FI_SEND
 * (initiator). Setup asks fi_getinfo() for them (setup.c).
 */
uint64_t mxl_protocol_caps (MxlProtocolKind kind, MxlRole role);

/* --- send/receive (protocol_send.c) --- */

/** Bytes of the header in front of every send-protocol message. */
#define MXL_SEND_HEADER_SIZE 32u
/** Payload bytes of one posted receive unless "maxMessageSize" is lower. */
#define MXL_SEND_DEFAULT_PAYLOAD (1024u * 1024u)

/** Allocates, registers and describes the receive ring of a send target. */
mxlStatus mxl_send_target_setup (MxlTarget *target, GError **error);
/** Sets the connection's per-message limits for a send target: one iovec
 * and MXL_SEND_HEADER_SIZE bytes less, at most the target's recvSize.
 * Returns: FALSE when the target's recvSize or our iov_limit leave no room. */
gboolean mxl_send_conn_limits (MxlConn *conn);
/** Registers the initiator's context pool (message headers) for FI_SEND. */
mxlStatus mxl_send_initiator_setup (MxlInitiator *init, GError **error);

/**
 * mxl_send_debug_set_header_hook:
 * Test hook (internal): @hook (NULL to clear) may rewrite every send
 * header (MXL_SEND_HEADER_SIZE bytes) after it is built, before it is
 * posted: the hostile-sender tests. Process-wide.
 */
typedef void (*MxlSendHeaderHook) (uint8_t *header);
void mxl_send_debug_set_header_hook (MxlSendHeaderHook hook);

/* --- tagged send/receive (protocol_tagged.c) --- */

/** Tag bit of a message that carries a send header (not a whole piece). */
#define MXL_TAG_BOUNCE (G_GUINT64_CONSTANT (1) << 63)

/**
 * mxl_tagged_piece_tag:
 * The tag of piece @piece (bytes [piece · P, piece · P + P) of the region)
 * of region @region (grain slot or bounce entry): region in bits 32..62,
 * piece in bits 0..31.
 */
static inline uint64_t
mxl_tagged_piece_tag (uint32_t region, uint32_t piece)
{
  return ((uint64_t) region << 32) | piece;
}

/** Sets up a tagged target: the send protocol's receive ring (tagged
 * receives of MXL_TAG_BOUNCE) plus one tagged receive per piece of every
 * grain slot or bounce entry, posted on the flow's memory. */
mxlStatus mxl_tagged_target_setup (MxlTarget *target, GError **error);

/**
 * mxl_tagged_debug_set_hook:
 * Test hook (internal): @hook (NULL to clear) may rewrite the tag and the
 * immediate data of every in-place piece before it is posted (hostile
 * sender tests). Process-wide.
 */
typedef void (*MxlTaggedHook) (uint64_t *tag, uint64_t *data);
void mxl_tagged_debug_set_hook (MxlTaggedHook hook);
