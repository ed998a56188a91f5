/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The protocol layer. Each transfer protocol is one descriptor
 * (MxlProtocolDesc) in one file, listed in the table of protocol_table.c: remote
 * write + immediate data (protocol_write.c), send/receive (protocol_send.c), tagged
 * send/receive (protocol_tagged.c). An initiator's egress is composed of the
 * generic pump (protocol_egress.c), a chunk source chosen at setup (protocol_grain.c or
 * protocol_samples.c) and the transport post of the protocol, installed when the
 * connection becomes connected; a target's ingress ops are chosen at
 * setup. The hot path makes one indirect call per piece and never switches
 * on the protocol.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_eq.h>

#include <mxl/mxl.h>

#include "fabrics/wire/bounce.h"
#include "fabrics/wire/layout.h"
#include "flow/flow-internal.h"
#include "fabrics/protocol/options.h"
#include "fabrics/ofi/provider.h"
#include "fabrics/wire/targetinfo.h"

typedef struct mxlFabricsTarget_t MxlTarget;
typedef struct MxlConn MxlConn;
typedef struct MxlWriteCtx MxlWriteCtx;
typedef struct MxlTransfer MxlTransfer;
typedef struct mxlFabricsInitiator_t MxlInitiator;
struct MxlPostDesc;

/** Queues @request on one connection: a chunk source's queue (the request
 * of its kind, MxlChunkSource.queue) or, in the test build only, a raw
 * test request's (initiator_raw.c).
 * Returns as MxlChunkSource.queue. */
typedef mxlStatus (*MxlQueueFn) (MxlConn *conn, const void *request);

/** The struct of type @type whose member @member is at @ptr. */
#define mxl_container_of(ptr, type, member) \
  ((type *) (void *) ((char *) (ptr) - G_STRUCT_OFFSET (type, member)))

/**
 * MxlTargetProto:
 * The base every protocol's private target state starts with (or embeds),
 * at t->pstate; the protocol reaches its own struct with
 * mxl_container_of(). NULL for protocols without state.
 */
typedef struct MxlTargetProto {
  const struct MxlProtocolDesc *desc;
  /* its receive ring (rxring.h), embedded in the protocol's own struct,
   * or NULL: what the untagged receive ops and recvSize read */
  struct MxlRxRing *ring;
  /* how its receives are posted (MxlRxOps, target-state.h), set by its
   * target_setup; NULL when it posts none */
  const struct MxlRxOps *rx_ops;
  /* the endpoint they are posted on, while there is one (the endpoint
   * type hands it over with mxl_target_set_rx_ep(), target.h), else NULL */
  struct fid_ep *rx_ep;
} MxlTargetProto;

/**
 * MxlInitiatorProto:
 * The base a protocol's private initiator state starts with, in its own
 * slot init->pstate[row] (row: the descriptor's in mxl_protocols[],
 * mxl_initiator_proto()): created by its descriptor's initiator setup,
 * freed by its teardown (MxlProtocolInitiatorOps); the protocol reaches
 * its own struct with mxl_container_of(). @desc names the protocol whose
 * slot it is (set by mxl_protocol_initiator_setup()). Protocols may share
 * code (send and tagged: protocol_send.c), never a slot.
 */
typedef struct MxlInitiatorProto {
  const struct MxlProtocolDesc *desc;
} MxlInitiatorProto;

/**
 * MxlConnProto:
 * The base a protocol's private state of one connection starts with, at
 * conn->proto_state: made by its initiator ops' conn_open when the
 * connection becomes connected, freed by their conn_close when it leaves
 * connected (mxl_conn_transition(), initiator_conn.c); the protocol
 * reaches its own struct with mxl_container_of(). NULL while not
 * connected and for protocols without conn_open.
 */
typedef struct MxlConnProto {
  const struct MxlProtocolDesc *desc;
} MxlConnProto;

/** Rows of mxl_protocols[] at most: the initiator's per-protocol state
 * slots (init->pstate). */
#define MXL_PROTOCOLS_MAX 8u

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
} MxlGrainRequest;

/**
 * MxlSamplesRequest:
 * A batch of a continuous flow (TransferSamples): samples head - count ..
 * head - 1 of every channel (docs/wire-format.md §4).
 */
typedef struct MxlSamplesRequest {
  uint64_t head;
  uint64_t count;
} MxlSamplesRequest;

/**
 * MxlIngressState:
 * The base of the write ingress's private target state, at t->istate
 * (grain flows: protocol_write.c; continuous flows: protocol_samples.c);
 * the ingress reaches its own struct with mxl_container_of(). Created by
 * the ingress's setup, freed by its teardown (@ops).
 */
typedef struct MxlIngressState {
  const struct MxlIngressOps *ops;
} MxlIngressState;

typedef struct MxlIngressOps {
  const char *name;
  /* The write ingresses (mxl_rma_ingress_ops, mxl_rma_samples_ingress_ops):
   * creates t->istate for @flow (continuous flows: allocates and registers
   * the bounce ring, docs/wire-format.md §4.1), after the grain slots are
   * registered. NULL for the ingresses installed in front of them (send,
   * tagged). */
  mxlStatus (*setup) (MxlTarget *target, const MxlFlowLayout *flow, GError **error);
  /* Frees t->istate (the domain is still open). */
  void (*teardown) (MxlTarget *target);
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
  /* The write ingresses: fills the regions of the target's TargetInfo
   * @info (grains: one per slot; continuous flows: the bounce ring and
   * bounceBufferInfo, mxl_samples_target_fill_info()). Reached through
   * t->istate->ops, which names the write ingress whatever is installed
   * in front of it. NULL for the others. */
  void (*fill_info) (MxlTarget *target, struct mxlFabricsTargetInfo_t *info);
} MxlIngressOps;

extern const MxlIngressOps mxl_rma_ingress_ops;
extern const MxlIngressOps mxl_rma_samples_ingress_ops;
/* Send/receive (protocol_send.c): the ingress that unpacks received messages in
 * front of the target's write ingress (MxlSendTarget.inner,
 * protocol_send.h). */
extern const MxlIngressOps mxl_send_ingress_ops;
/* Tagged (protocol_tagged.c): in-place pieces in front of the send protocol's
 * ingress. */
extern const MxlIngressOps mxl_tagged_ingress_ops;

/**
 * MxlChunkSource:
 * What an initiator transfers, chosen once at setup (grain flows:
 * mxl_grain_chunks, protocol_grain.c; continuous flows: mxl_sample_chunks,
 * protocol_samples.c): how a request is queued and how a queued transfer is cut
 * into pieces; mxl_egress_pump() (protocol_egress.c) does the rest (deadlines,
 * window, contexts, holding the immediate data on unordered providers,
 * -FI_EAGAIN) and the connection's transport posts each piece.
 */
typedef struct MxlChunkSource {
  /* "grain" or "sample": what it transfers (log messages) */
  const char *name;
  /* TRUE when a target described by @info can take this source's
   * transfers (AddTarget, initiator.c): a grain target for grains; a
   * bounce ring that batches of the local flow fit for samples
   * (mxl_samples_target_usable()). */
  gboolean (*target_usable) (const MxlInitiator *init,
      const struct mxlFabricsTargetInfo_t *info);
  /* Checks @request against the connection's remote regions and queues
   * it: an MxlGrainRequest (mxl_grain_chunks) or an MxlSamplesRequest
   * (mxl_sample_chunks), as the source's @fan_out builds it. Returns OK,
   * INVALID_ARG (a write would leave the remote region), NOT_READY (queue
   * full). */
  MxlQueueFn queue;
  /* Before the next piece of @t: FALSE when it must wait (its buffer is
   * still in use). */
  gboolean (*claim) (MxlConn *conn, MxlTransfer *t);
  /* The pending chunk of @t is about to be posted with context @ctx
   * (filled): the source records what the write reads; NULL when it
   * keeps nothing per write. */
  void (*bind) (MxlConn *conn, const MxlTransfer *t, const MxlWriteCtx *ctx);
  /* TRUE when queued transfer @t, or the posted write of context @ctx (in
   * use), will read local grain slot @slot (fan-out slot reuse,
   * mxl_egress_transfer_reads_slot()); NULL: the source reads no grain
   * slot. */
  gboolean (*transfer_reads_slot) (const MxlTransfer *t, uint32_t slot);
  gboolean (*ctx_reads_slot) (const MxlInitiator *init, const MxlWriteCtx *ctx,
      uint32_t slot);
  /* Produces the next piece of @t into its pending chunk (sets
   * t->have_pending, t->chunk_length, t->chunk_last,
   * t->chunk_remote_offset); FALSE when done. */
  gboolean (*next) (MxlConn *conn, MxlTransfer *t);
  /* Local iovecs (at most MXL_LAYOUT_MAX_IOV) of the pending chunk, each
   * checked against its local region; FALSE when one would leave it. */
  gboolean (*iov) (MxlConn *conn, MxlTransfer *t, struct iovec *iov, void **desc,
      guint *n_iov);
  /* Creates the source's initiator-wide state (init->source_state, an
   * MxlChunkState base) for the local @flow, after the slots are
   * registered. Returns: OK, or a failure (@error set); on failure the
   * state stays for @teardown. */
  mxlStatus (*setup) (MxlInitiator *init, const MxlFlowLayout *flow, GError **error);
  /* Frees init->source_state (the domain still open); nothing without
   * one. */
  void (*teardown) (MxlInitiator *init);
  /* Frees the connection's chunk state (conn->chunk_state) when its target
   * is re-added (@final FALSE: counters stay) or removed (@final TRUE);
   * NULL when the source keeps none. */
  void (*release) (MxlConn *conn, gboolean final);
} MxlChunkSource;

/**
 * MxlChunkState:
 * The base of a chunk source's per-connection state, at conn->chunk_state
 * (protocol_samples.c, grainstage.c), allocated by the source when it
 * first needs it; the source reaches its own struct with
 * mxl_container_of() and frees it in its release (@final TRUE). Also the
 * base of its initiator-wide state, at init->source_state
 * (samples_initiator.h, grain_initiator.h), made by its setup and freed by its
 * teardown.
 */
typedef struct MxlChunkState {
  const struct MxlChunkSource *source;
} MxlChunkState;

/* Grain chunks (protocol_grain.c) and sample chunks (protocol_samples.c). */
extern const MxlChunkSource mxl_grain_chunks;
extern const MxlChunkSource mxl_sample_chunks;

/** The grain chunk source's setup (grainstage.c): creates its state
 * (init->source_state, MxlGrainSource, grain_initiator.h), which records
 * whether grain writes may go from a per-connection copy (grainstage.h: a
 * discrete flow on a MXL_PROVIDER_QUIRK_RECEIVER_COPIES provider), and
 * later the caller payloads and what each grain write reads. Returns: OK. */
mxlStatus mxl_grain_source_setup (MxlInitiator *init, const MxlFlowLayout *flow,
    GError **error);
/** The grain chunk source's teardown: frees its state (with the payload
 * overrides); nothing without one. */
void mxl_grain_source_teardown (MxlInitiator *init);

/**
 * mxl_grain_queue_into:
 * Queues grain @req into remote region @slot with immediate data @imm: the
 * grain chunk source's queue (slot and imm from the grain index) and the
 * raw test requests (initiator_raw.c). Returns: OK, INVALID_ARG (@slot out
 * of the TargetInfo, or a run leaves the remote region or the local slot),
 * NOT_READY (queue full).
 */
mxlStatus mxl_grain_queue_into (MxlConn *conn, const MxlGrainRequest *req,
    uint32_t slot, uint32_t imm);

/**
 * mxl_samples_queue_entry_at:
 * Queues samples [head - count, head) of @req as one entry into bounce
 * entry @entry with immediate data @imm and an entry header saying
 * (@header_head, @header_count), without advancing the connection's entry
 * counter: the raw test requests (initiator_raw.c). Returns: OK,
 * INVALID_ARG (@entry out of the TargetInfo, more samples than an entry
 * holds), NOT_READY (queue or staging full), or a registration failure.
 */
mxlStatus mxl_samples_queue_entry_at (MxlConn *conn, const MxlSamplesRequest *req,
    uint32_t entry, uint32_t imm, uint64_t header_head, uint64_t header_count);

/**
 * MxlConnLimits:
 * Per-message limits of one connection (MxlConn max_msg, iov_limit,
 * ordered): @max_msg payload bytes per posted piece, @iov_limit local data
 * iovecs per piece, @ordered: the last piece need not wait for the others;
 * @last_after_previous (not @ordered): it also waits for the previous
 * transfer's last piece, where a later small message can complete before
 * an earlier large one (connectionless message providers).
 * Computed from the initiator and the target's TargetInfo alone, so that
 * AddTarget can check a target before it makes a connection.
 */
typedef struct MxlConnLimits {
  uint64_t max_msg;
  uint32_t iov_limit;
  gboolean ordered;
  gboolean last_after_previous;
} MxlConnLimits;

/**
 * MxlTransportPost:
 * Posts the pending chunk of @t (t->chunk_remote_offset and t->chunk_length
 * bytes into remote region t->remote_slot; t->imm when t->chunk_last) from
 * the local @iov. Returns: the libfabric status.
 */
typedef ssize_t (*MxlTransportPost) (MxlConn *conn, MxlTransfer *t,
    const struct iovec *iov, void **desc, guint n_iov, MxlWriteCtx *ctx);

/* --- generic egress (protocol_egress.c): the same for every chunk source and
 * transport --- */

/** Queues @request (of the kind of the initiator's chunk source) on @conn
 * through that source: an MxlQueueFn. */
mxlStatus mxl_egress_queue (MxlConn *conn, const void *request);

/** Posts queued pieces of @conn (connected: conn->post set) while the
 * provider accepts them. Returns OK, or the status of a posting failure
 * other than -FI_EAGAIN (connection broken). */
mxlStatus mxl_egress_pump (MxlConn *conn);

/** Appends a transfer to the connection's queue (NULL when full): sequence,
 * deadline and the queued counter are set, the rest is zeroed. */
MxlTransfer *mxl_egress_enqueue (MxlConn *conn);

/** TRUE when queued transfer @t of @init will read local grain slot @slot
 * (its chunk source's transfer_reads_slot; FALSE without one). */
gboolean mxl_egress_transfer_reads_slot (const MxlInitiator *init, const MxlTransfer *t,
    uint32_t slot);
/** TRUE when the posted write of context @ctx (in use) still reads local
 * grain slot @slot (its chunk source's ctx_reads_slot; FALSE without one,
 * and for claim contexts). */
gboolean mxl_egress_ctx_reads_slot (const MxlInitiator *init, const MxlWriteCtx *ctx,
    uint32_t slot);

/** A write of this connection completed (@ok FALSE: error completion). */
void mxl_egress_on_write_done (MxlConn *conn, const MxlWriteCtx *ctx, gboolean ok);
/** Drops everything queued (connection closed). */
void mxl_egress_reset (MxlConn *conn);

/* --- protocol descriptors (protocol_table.c) --- */

/**
 * MxlProtocolInitiatorOps:
 * The initiator side of a protocol (MxlProtocolDesc.initiator): one table
 * that protocols built on the same code share (send and tagged,
 * protocol_send.c), each with a state slot of its own.
 */
typedef struct MxlProtocolInitiatorOps {
  /* Creates the protocol's private state into *@out (its slot, NULL on
   * entry) once the context pool exists, when the provider offers the
   * protocol. Returns: OK, or a failure (@error set); what it made stays
   * in *@out for @teardown. */
  mxlStatus (*setup) (MxlInitiator *init, MxlInitiatorProto **out, GError **error);
  /* Frees @state, made by @setup (the domain still open). */
  void (*teardown) (MxlInitiator *init, MxlInitiatorProto *state);
  /* TRUE when @state is ready for a connection (NULL: once it exists) */
  gboolean (*ready) (const MxlInitiatorProto *state);
  /* per-connection limits (NULL: the initiator's), narrowing @limits
   * (filled with the initiator's) for a target described by @info; FALSE
   * when the target's TargetInfo leaves no room */
  gboolean (*conn_limits) (const MxlInitiator *init,
      const struct mxlFabricsTargetInfo_t *info, MxlConnLimits *limits);
  /* The connection becomes connected (conn->proto, the protocol's
   * initiator state, is set; its post is not yet called): returns its
   * per-connection state (conn->proto_state, an MxlConnProto base; the
   * caller sets its desc). Cannot fail: what may fail belongs in @setup
   * or @conn_limits. NULL: the protocol keeps no per-connection state. */
  MxlConnProto *(*conn_open) (MxlConn *conn);
  /* The connection leaves connected (or is freed while connected): frees
   * conn->proto_state. Writes it posted may still be in flight (orphaned
   * contexts, initiator_conn.c): memory they read must outlive this. Set
   * whenever @conn_open is. */
  void (*conn_close) (MxlConn *conn, MxlConnProto *state);
} MxlProtocolInitiatorOps;

/**
 * MxlProtocolDesc:
 * Everything the engine knows about one transfer protocol. One per
 * protocol file (protocol_write.c, protocol_send.c, protocol_tagged.c), listed in mxl_protocols[]
 * (protocol_table.c); nothing outside the table tests which protocol is in use.
 */
typedef struct MxlProtocolDesc {
  /* its name in TargetInfo ext."protocol" (docs/wire-format.md §11.1) and
   * the "protocol" setup option: lower case, unique in the table */
  const char *name;
  /* libfabric capabilities it needs, per MxlRole (target, initiator), and
   * their name for errors */
  uint64_t caps[2];
  const char *caps_name;
  /* a target without a "protocol" option takes the offered protocol of
   * the lowest rank */
  guint target_rank;
  /* target: posts its receives and installs its ingress in front of the
   * write ingress (t->ingress); torn down with the target */
  mxlStatus (*target_setup) (MxlTarget *target, GError **error);
  /* target: frees its protocol state (t->pstate, set by target_setup);
   * NULL when it keeps none. The domain is still open. */
  void (*target_teardown) (MxlTarget *target);
  /* target: its TargetInfo advertises recvSize (the entry size of its
   * receive ring, t->pstate->ring) */
  gboolean advertises_recv_size;
  /* target: exclusive RDM targets can use claims (claim.h) */
  gboolean claims;
  /* initiator: its private state and per-connection limits; NULL when
   * it keeps no state and uses the initiator's limits (write) */
  const struct MxlProtocolInitiatorOps *initiator;
  /* initiator: connections are progressed a little before teardown */
  gboolean drain_at_teardown;
  /* initiator: posts one piece, installed when the connection becomes
   * connected */
  MxlTransportPost post;
} MxlProtocolDesc;

/** The protocols this build speaks, and their count. */
extern const MxlProtocolDesc *const mxl_protocols[];
extern const guint mxl_n_protocols;

/** The descriptor named @name (exact, case-sensitive), or NULL (also for
 * NULL @name). */
const MxlProtocolDesc *mxl_protocol_lookup (const char *name);

/** Appends the names of the table, in table order, each between @quote
 * and @quote, separated by ", " and the last by @last_sep (", ", " or "):
 * the lists of error messages and property texts. */
void mxl_protocol_append_names (GString *out, const char *quote,
    const char *last_sep);

/**
 * mxl_protocol_check_info:
 * The check of the TargetInfo parser (targetinfo.c) that needs the table:
 * @info's protocol (mxl_target_info_protocol()) names a row. Called on
 * every TargetInfo read from text (targetinfo-api.c). Returns: its
 * descriptor, or NULL with MXL_ERR_INVALID_ARG in *@out_status (nullable)
 * and a G_IO_ERROR_INVALID_DATA error naming the known ones.
 */
const MxlProtocolDesc *mxl_protocol_check_info (
    const struct mxlFabricsTargetInfo_t *info, mxlStatus *out_status,
    GError **error);

/** Runs the initiator setup of every protocol the initiator's provider
 * offers (table order), each into its own slot init->pstate[row], after
 * the context pool exists. Returns: OK, or the first failing setup's
 * status (@error set); what was made stays for
 * mxl_protocol_initiator_teardown(). */
mxlStatus mxl_protocol_initiator_setup (MxlInitiator *init, GError **error);
/** Runs the initiator teardown of every protocol whose slot holds a state
 * and empties the slot (the domain still open). */
void mxl_protocol_initiator_teardown (MxlInitiator *init);
/** The private initiator state of protocol @p (a row of the table) in
 * @init's slot for it, or NULL when it made none. A connection resolves
 * it once, when it becomes connected (conn->proto): posts read that. */
MxlInitiatorProto *mxl_initiator_proto (const MxlInitiator *init,
    const MxlProtocolDesc *p);

/**
 * mxl_initiator_protocol_for:
 * The protocol this initiator uses for a target expecting the protocol
 * named @name (its provider's capabilities and its own "protocol" option
 * decide). Returns: NULL when it cannot speak it or no row has that name.
 */
const MxlProtocolDesc *mxl_initiator_protocol_for (const MxlInitiator *init,
    const char *name);

/* --- continuous flows (protocol_samples.c) --- */

/** The sample chunk source's setup: creates its state (init->source_state:
 * the channel rings of @flow) and registers the rings (FI_WRITE). On
 * failure the state stays for mxl_samples_initiator_teardown(). */
mxlStatus mxl_samples_initiator_setup (MxlInitiator *init, const MxlFlowLayout *flow,
    GError **error);
/** The sample chunk source's teardown: closes the channel rings' region
 * (the domain still open) and frees its state; nothing without one. */
void mxl_samples_initiator_teardown (MxlInitiator *init);
/** TRUE when a batch of @count samples per channel fits the local channel
 * ring, the bound TransferSamples enforces (initiator.c); FALSE for a
 * grain initiator. */
gboolean mxl_samples_batch_fits (const MxlInitiator *init, uint64_t count);
#ifdef MXL_TEST_HOOKS
/** Test hook (internal, test build only: src/meson.build): the
 * initiator's local channel ring, NULL for a grain initiator. */
const MxlSampleRing *mxl_samples_debug_initiator_ring (const MxlInitiator *init);
#endif
/** How many bounce entries of @conn's target a batch of @count samples
 * per channel takes (a batch longer than an entry travels as several,
 * samples_queue()); 0 when it cannot be sent (empty, longer than the
 * local ring, or the target's entries hold nothing). The credits reserve
 * that many entries (initiator_credit.c). */
uint64_t mxl_samples_batch_entries (MxlConn *conn, uint64_t count);
/** The bounce entry @conn's next batch starts at (0 before its first):
 * its entries are this one and the following ones, modulo the target's
 * entry count. */
uint32_t mxl_samples_next_entry (const MxlConn *conn);
/** TRUE when @info has a bounce ring that batches of this flow fit. */
gboolean mxl_samples_target_usable (const MxlInitiator *init,
    const struct mxlFabricsTargetInfo_t *info);
#ifdef MXL_TEST_HOOKS
/** Staging of a connection (tests): slots, their size, and whether the
 * transfer queued next would find its slot free (FALSE: a staged batch is
 * refused with NOT_READY now). Read from the staging state itself: the
 * egress counts nothing for tests. */
typedef struct MxlSamplesStaging {
  guint n_staging;
  uint64_t slot_size;
  gboolean next_slot_free;
} MxlSamplesStaging;
/** Test hook (internal, test build only): the staging figures of
 * continuous-flow @conn. */
void mxl_samples_debug_staging (MxlConn *conn, MxlSamplesStaging *out);
/** Test hook (internal, test build only): TRUE when transfer @seq of
 * @conn (an entry) was packed into a staging slot and sent from it, while
 * no later transfer took that slot (slot @seq mod slot count still names
 * it). */
gboolean mxl_samples_debug_staged (const MxlConn *conn, uint64_t seq);
/**
 * mxl_samples_debug_set_staging_budget:
 * Test hook (internal, test build only): bytes of staging slots a
 * connection gets when it first queues a batch (slot count = @bytes /
 * slot size, at least 4); 0 restores the default (4 MiB, the shared
 * library's fixed budget). Process-wide.
 */
void mxl_samples_debug_set_staging_budget (uint64_t bytes);
#endif
/** Regions and bounceBufferInfo of the TargetInfo of continuous-flow
 * @target (its bounce ring, set up by mxl_rma_samples_ingress_ops). */
void mxl_samples_target_fill_info (MxlTarget *target,
    struct mxlFabricsTargetInfo_t *info);
/**
 * mxl_samples_target_entries:
 * The bounce ring of continuous-flow @target (docs/wire-format.md §4.1):
 * @out_count entries of @out_size bytes each, one allocation (where the
 * send and tagged protocols receive). Returns: its first byte, owned by
 * the target; NULL (and 0, 0) before the ring is set up.
 */
uint8_t *mxl_samples_target_entries (MxlTarget *target, uint64_t *out_count,
    uint64_t *out_size);
#ifdef MXL_TEST_HOOKS
/** Test hook (internal, test build only): the channel rings' shape of
 * continuous-flow @target as the target uses them, or NULL before setup. */
const MxlSampleRing *mxl_samples_debug_target_ring (MxlTarget *target);
#endif

/* --- send/receive (protocol_send.c) --- */

/** Bytes of the header in front of every send-protocol message. */
#define MXL_SEND_HEADER_SIZE 32u
/** Payload bytes of one posted receive unless "maxMessageSize" is lower. */
#define MXL_SEND_DEFAULT_PAYLOAD (1024u * 1024u)

/** Computes into @limits the per-message limits of @init for the send (or
 * tagged) target @info: one iovec and MXL_SEND_HEADER_SIZE bytes less, at
 * most the target's recvSize. Returns: FALSE when the target's recvSize or
 * our iov_limit leave no room (@limits then unchanged). */
gboolean mxl_send_conn_limits (const MxlInitiator *init,
    const struct mxlFabricsTargetInfo_t *info, MxlConnLimits *limits);

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

#ifdef MXL_TEST_HOOKS
/**
 * mxl_tagged_debug_pieces:
 * Test hook (internal, test build only): the piece receives tagged
 * target @target posts on its flow: @out_per_region pieces per region,
 * @out_pieces in all. (Which pieces land in place the tests see from the
 * initiator, through the piece hook: a piece tag matches only a piece
 * receive.)
 */
void mxl_tagged_debug_pieces (MxlTarget *target, guint *out_per_region,
    guint *out_pieces);
#endif

/**
 * mxl_tagged_debug_set_hook:
 * Test hook (internal): @hook (NULL to clear) may rewrite the tag and the
 * immediate data of every in-place piece before it is posted (hostile
 * sender tests). Process-wide.
 */
typedef void (*MxlTaggedHook) (uint64_t *tag, uint64_t *data);
void mxl_tagged_debug_set_hook (MxlTaggedHook hook);
