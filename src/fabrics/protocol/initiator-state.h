/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The initiator state the protocol layer works on: write contexts, queued
 * transfers, connections and the initiator itself. Defined here, below the
 * engine (initiator.h), so that the protocols, chunk sources and the egress
 * of this folder reach it without including a header of the layer above
 * (tests/unit/check-layers.py). The engine above is reached only through
 * the ops table it hands down at setup (MxlEngineOps, init->engine;
 * tests/unit/check-symbols.py).
 */
#pragma once

#include <glib.h>
#include <stdatomic.h>
#include <stdint.h>

#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>

#include "fabrics/wire/bounce.h"
#include "fabrics/protocol/grainstage.h"
#include "fabrics/protocol/grain_transfer.h"
#include "fabrics/protocol/endpoint.h"
#include "fabrics/ofi/ofi.h"
#include "fabrics/protocol/options.h"
#include "fabrics/ofi/progress.h"
#include "fabrics/protocol/protocol.h"
#include "fabrics/protocol/samples_transfer.h"
#include "fabrics/ofi/provider.h"
#include "fabrics/wire/targetinfo.h"

typedef struct MxlModeState MxlModeState;   /* initiator_progress.c */
typedef struct mxlFabricsInitiator_t MxlInitiator;
typedef struct MxlPayloadOverride MxlPayloadOverride;
typedef struct MxlEngineOps MxlEngineOps;   /* below */

/** Writes in flight per connection at most (bounded by the tx queue). */
#define MXL_CONN_WINDOW 64u
/** Transfers queued per connection at most. */
#define MXL_CONN_QUEUE 64u
/** Queued transfers not started within this are dropped (ms). */
#define MXL_TRANSFER_DEADLINE_MS 1000
/** A connectionless (RDM) connection with writes in flight and no
 * completion for this long is lost: a shm peer that died never answers
 * (ms). Connected endpoints rely on the transport's own detection. */
#define MXL_CONN_STALL_MS 5000
/** A connection attempt is abandoned after this (ms). */
#define MXL_CONNECT_TIMEOUT_MS 5000
/** Reconnect back-off after a refused attempt, or after a loss with the
 * setup option "reconnect": first and maximum (ms), doubled per attempt. */
#define MXL_RETRY_FIRST_MS 100
#define MXL_RETRY_MAX_MS 2000
/** A connection that stayed up this long starts the back-off afresh when it
 * is lost; one lost sooner goes on doubling it, so that a receiver that
 * accepts and drops at once is retried 100 ms, 200 ms, ... 2 s apart (ms). */
#define MXL_RETRY_RESET_MS 5000

/**
 * MxlWriteCtx:
 * Operation context of one posted write, from a fixed pool owned by the
 * initiator (no allocation per write). @fi comes first: providers that want
 * FI_CONTEXT/FI_CONTEXT2 use it.
 */
struct MxlWriteCtx {
  struct fi_context2 fi;
  uint64_t conn_id;          /* generation id of the connection that posted it */
  uint64_t transfer_seq;
  uint64_t bytes;
  gint64 orphaned_at;        /* > 0: its connection is gone; reclaim later */
  uint64_t reclaim_drain;    /* > 0: its endpoint is closed; reclaimed once
                                init->cq_drains reaches this */
  gboolean in_use;
  gboolean last;             /* carried the immediate data */
  gboolean released;         /* orphaned with its endpoint closed: the
                                provider reads its memory no more */
  guint next_free;
};

/** MxlWriteCtx transfer_seq of a claim write or read (initiator_rdm.c): no
 * transfer's (seqs count up from 0 per connection). */
#define MXL_CTX_SEQ_CLAIM G_MAXUINT64
/** MxlWriteCtx transfer_seq of an end-of-stream notice (initiator_eos.c,
 * src/fabrics/wire/eos.h). Seqs from here up are no transfer's: their
 * writes read no grain slot. */
#define MXL_CTX_SEQ_EOS (G_MAXUINT64 - 1)

/**
 * MxlTransfer:
 * One queued transfer of one connection: what the generic egress
 * (protocol_egress.c) and the transports read, and the part of the chunk
 * source in @u: @u.grain for mxl_grain_chunks, @u.samples for
 * mxl_sample_chunks. The member in use is the one of the initiator's
 * chunk source (init->chunks), chosen once at setup; only that source's
 * file reads it. Each source owns its member's definition in a header of
 * its own (grain_transfer.h, samples_transfer.h), included above: a new
 * chunk source adds its header and one member here, and edits no other
 * source's definition.
 */
struct MxlTransfer {
  uint64_t seq;
  uint32_t remote_slot;
  uint32_t imm;
  gboolean have_pending;
  gboolean started;
  guint outstanding;         /* writes of this transfer in flight */
  gint64 deadline;
  uint64_t chunk_length;     /* bytes of the pending chunk */
  uint64_t chunk_remote_offset;  /* where it lands in remote region remote_slot */
  gboolean chunk_last;       /* the pending chunk carries the immediate data */
  uint64_t post_more;        /* FI_MORE or 0 for the pending chunk (mxl_egress_pump) */
  union {
    MxlGrainTransfer grain;
    MxlSamplesTransfer samples;
  } u;
};

/** Transfers tracked per connection for results: queued, in flight, and
 * finished ones waiting behind an older unfinished one (results keep queue
 * order). A new transfer is only queued while MXL_CONN_TRACK_RESERVE
 * records are free (a batch of samples may become several transfers). */
#define MXL_CONN_TRACKED 1024u
#define MXL_CONN_TRACK_RESERVE 256u

/**
 * MxlTracked:
 * Completion tracking of one transfer to one connection (initiator.c),
 * from queueing until its last write completed: the transfer succeeds only
 * when every write it was cut into completed, and fails if any post or
 * completion failed.
 */
typedef struct MxlTracked {
  uint64_t seq;
  uint64_t grain_index;
  uint16_t start, end;
  uint32_t writes;           /* posted */
  uint32_t outstanding;      /* posted, not completed */
  gboolean posting_done;     /* no more writes will be posted */
  mxlStatus status;          /* first failure, or OK */
  int prov_err;
  gint64 queued_at;          /* monotonic us, when TransferGrain queued it */
  gboolean dropped;          /* counted in its connection's transfers_dropped
                                (mxl_conn_track_drop), so not in
                                transfers_failed */
} MxlTracked;

typedef enum MxlConnKind {
  MXL_CONN_IDLE,
  MXL_CONN_CONNECTING,
  MXL_CONN_CONNECTED,
  MXL_CONN_LOST,
  MXL_CONN_REMOVED,
} MxlConnKind;

/** Connection state: a tagged union (one member per kind that has data). */
typedef struct MxlConnState {
  MxlConnKind kind;
  union {
    struct { gint64 retry_at; guint attempts; } idle;
    /* the peer's address while an RDM connection claims its target is
     * the type's (conn->type_state, initiator_rdm.c) */
    struct { struct fid_ep *ep; gint64 since; guint attempts; } connecting;
    /* @addr: the peer in the endpoint's AV (RDM), FI_ADDR_UNSPEC on RC */
    struct { struct fid_ep *ep; fi_addr_t addr; gint64 since; guint attempts; } connected;
    /* @retry_at: with the setup option "reconnect", when it becomes idle
     * again (monotonic µs), else 0: lost until AddTarget */
    struct { mxlStatus reason; gint64 retry_at; guint attempts; } lost;
  } u;
} MxlConnState;

/** Inputs of mxl_conn_transition(). */
typedef enum MxlConnInput {
  MXL_CONN_IN_TICK,          /* time passes: start attempts, time out */
  MXL_CONN_IN_CONNECTED,     /* EQ: FI_CONNECTED */
  MXL_CONN_IN_SHUTDOWN,      /* EQ: FI_SHUTDOWN (peer closed) */
  MXL_CONN_IN_ERROR,         /* EQ error, write error, stalled writes */
  MXL_CONN_IN_REMOVE,        /* RemoveTarget */
  MXL_CONN_IN_READD,         /* AddTarget of a known id */
  MXL_CONN_IN_ADD,           /* AddTarget of a new id (from REMOVED) */
} MxlConnInput;

/**
 * MxlConnTypeState:
 * The base of the endpoint type's private state of one connection, at
 * conn->type_state (initiator_rdm.c: the peer's address, its own endpoint's
 * address vector on shm, whether that endpoint's operations were accepted
 * yet, its claims of an exclusive target); the type reaches its own struct
 * with mxl_container_of(). Made by the type's open, freed with the
 * connection by @ops->conn_free; NULL for a type that keeps none
 * (connected endpoints).
 */
typedef struct MxlConnTypeState {
  const struct MxlInitiatorTypeOps *ops;
} MxlConnTypeState;

typedef struct MxlConnCredit MxlConnCredit;

struct MxlConn {
  MxlInitiator *init;
  uint64_t target_id;        /* TargetInfo id */
  uint64_t conn_id;          /* changes on every attempt; keys contexts */
  struct mxlFabricsTargetInfo_t *info;   /* owned copy */
  int peer_pidfd;            /* pidfd_open(2) of TargetInfo ext.pid, for
                                mxl_conn_peer_gone(); -1: none */
  MxlConnState state;
  MxlTransportPost post;     /* its protocol's (or a wrapper: a test
                                hook's, protocol_hooks.h; the endpoint
                                type's, MxlInitiatorTypeOps.connected), set
                                while connected */
  MxlTransfer queue[MXL_CONN_QUEUE];
  guint q_head, q_len;
  guint outstanding;
  gint64 last_progress;      /* last completion or idle moment (stall check) */
  uint64_t next_seq;         /* assigned by mxl_egress_enqueue (seq = next_seq++) */
  const MxlProtocolDesc *protocol;       /* chosen at AddTarget, used once connected */
  /* set when the connection becomes connected (mxl_conn_transition(),
   * initiator_conn.c), so that its posts look nothing up: its protocol's
   * initiator state (its slot init->pstate[row], mxl_initiator_proto())
   * and its per-connection state (MxlConnProto, made by the protocol's
   * conn_open and freed by its conn_close when it leaves connected);
   * each NULL when the protocol keeps none */
  MxlInitiatorProto *proto;
  MxlConnProto *proto_state;
  /* per-message limits for this target: the initiator's, or less for the
   * send protocol (header iovec, the target's receive size) */
  uint64_t max_msg;
  uint32_t iov_limit;
  gboolean ordered;          /* the last piece need not wait for the others */
  gboolean last_after_previous;  /* nor for the previous transfer's (MxlConnLimits) */
  MxlConnTypeState *type_state;   /* the endpoint type's, or NULL */
  /* the chunk source's private state (protocol_samples.c; grain flows on
   * shm: the staging buffers, grainstage.c), or NULL */
  MxlChunkState *chunk_state;
  /* Transfers tracked for results: a ring of consecutive seqs, oldest
   * first (initiator.c). */
  MxlTracked tracked[MXL_CONN_TRACKED];
  guint tr_head, tr_len;
  /* Fan-out to a target that falls behind (initiator.c, conn_behind()):
   * grains not queued on it, queued ones dropped before they started when
   * their local slot came up for reuse, and disconnections because its
   * posted writes still read a slot the others needed. Kept across
   * reconnections. */
  uint64_t grains_skipped;
  uint64_t transfers_dropped;
  uint64_t transfers_failed;   /* tracked ones that failed, not dropped */
  uint64_t fell_behind;
  gboolean behind;
  /* The credit extension (initiator_credit.c): the id this connection
   * announced (0: none), its window and receives while connected (NULL
   * without credits), and its counts, kept across reconnections. */
  uint64_t credit_id;
  struct MxlConnCredit *credit;
  uint64_t grains_no_credit;
  uint64_t credit_releases, credit_ahead, credit_backwards, credit_unknown,
      credit_bad, credit_returned;
};

/** Header slots per connection: queued + in-flight transfers at most. */
#define MXL_CONN_HEADER_SLOTS (MXL_CONN_QUEUE + MXL_CONN_WINDOW)

/** Post ring entry: one TransferGrain or TransferSamples call, copied by
 * value into the ring; everything else is computed by the progress thread.
 * Which of the two it is follows from the initiator's flow (its chunk
 * source, chosen at setup). The test hooks' raw requests do not travel
 * here (initiator_raw.c). */
typedef struct MxlPostDesc {
  uint16_t start, end;       /* GRAIN: slice range */
  uint64_t index;            /* GRAIN: grain index; SAMPLES: head */
  uint64_t count;            /* SAMPLES: samples per channel */
} MxlPostDesc;

/** Faults injected by tests (mxl_initiator_debug_inject()). */
typedef enum MxlInjectKind {
  MXL_INJECT_POST_FAILURE,      /* the next posts fail as if fi_writemsg returned -err */
  MXL_INJECT_ERROR_COMPLETION,  /* the next good completions read as errors with err */
} MxlInjectKind;

/**
 * MxlInitiatorMode:
 * What differs between an initiator driven by the application's calls
 * (mxl_initiator_inline_mode) and one with a progress thread
 * (mxl_initiator_thread_mode), chosen at setup (initiator_progress.c).
 */
typedef struct MxlInitiatorMode {
  const char *name;
  /* Where TransferGrain's and TransferSamples' descriptor goes: queued and
   * posted by the caller (mxl_initiator_fan_out_desc) or pushed into the
   * post ring (mxl_initiator_progress_post). */
  mxlStatus (*submit) (MxlInitiator *init, const MxlPostDesc *desc);
  /* MakeProgress: drives progress itself, or waits for the thread. */
  mxlStatus (*make_progress) (MxlInitiator *init, int timeout_ms);
  /* PollTransferResult, init->lock held, no result yet: drives progress
   * or waits on init->lock's condition, at most until @deadline
   * (monotonic us; @sleep_us: the caller's growing back-off). FALSE when
   * the deadline passed. */
  gboolean (*await_result) (MxlInitiator *init, gint64 deadline, guint *sleep_us);
  /* AddTarget succeeded, init->lock held: the thread reports NOT_READY
   * until its next pass. */
  void (*target_added) (MxlInitiator *init);
  /* The same after init->lock is released: wakes the thread. */
  void (*wake) (MxlInitiator *init);
  /* TRUE while descriptors wait in the post ring (init->lock held). */
  gboolean (*posts_waiting) (const MxlInitiator *init);
  /* Adds what the post ring counts to @out (GetStats). */
  void (*ring_stats) (MxlInitiator *init, mxlFabricsExtInitiatorStats *out);
  /* TRUE while the thread's pass queues popped descriptors and posts them
   * after (init->lock held): queueing does not pump. */
  gboolean (*pump_deferred) (const MxlInitiator *init);
} MxlInitiatorMode;

/**
 * MxlInitiatorTypeState:
 * The base of the endpoint type's private initiator state, at
 * init->type_state (initiator_rc.c, initiator_rdm.c: the claim token the
 * type sends, claim.h; connected also its EQ and the live endpoints its
 * entries are routed by; connectionless also its shared endpoint and AV,
 * its shm region holds and parked endpoints); the type reaches its own struct with
 * mxl_container_of(). Created by MxlInitiatorTypeOps.setup, freed by its
 * teardown.
 */
typedef struct MxlInitiatorTypeState {
  const struct MxlInitiatorTypeOps *ops;
} MxlInitiatorTypeState;

/**
 * MxlCloseEffect:
 * What MxlInitiatorTypeOps.close did to the writes the connection's
 * endpoint had posted, which tells the engine when their contexts and the
 * local memory they read are free again (initiator_conn.c, leave()).
 * @MXL_CLOSE_SHARED: the endpoint stays open for the other connections
 *   (an RDM endpoint shared by all): the writes may still be read and
 *   complete.
 * @MXL_CLOSE_READS_ENDED: closed (connected endpoints): the provider reads
 *   the writes' memory no more; their contexts are reclaimed after a delay.
 * @MXL_CLOSE_ENDED: the connection's own endpoint closed (shm): nothing of
 *   it is read or completes any more; its contexts are reclaimed once the
 *   CQ has been read empty.
 * @MXL_CLOSE_PARKED: the connection's own endpoint is kept open (parked,
 *   shm: writes in flight to a peer that lives): the writes are read and
 *   complete until the type ends the park (check_parked).
 */
typedef enum MxlCloseEffect {
  MXL_CLOSE_SHARED,
  MXL_CLOSE_READS_ENDED,
  MXL_CLOSE_ENDED,
  MXL_CLOSE_PARKED,
} MxlCloseEffect;

typedef struct MxlInitiatorTypeOps {
  const char *name;
  /* Creates init->type_state and opens the endpoint-type objects (RC: EQ;
   * RDM: endpoint + AV). */
  mxlStatus (*setup) (MxlInitiator *init, GError **error);
  /* Starts a connection. Fills @next with CONNECTING (RC) or CONNECTED (RDM). */
  mxlStatus (*open) (MxlConn *conn, MxlConnState *next);
  /* The connection becomes connected, its post in conn->post: completes
   * @next, the state it enters, with what the type kept while connecting
   * (RDM: the peer's address) and may wrap conn->post; NULL when there is
   * nothing to do (connected endpoints). */
  void (*connected) (MxlConn *conn, MxlConnState *next);
  /* Releases what open() created for the state being left; @orderly is
   * FALSE when the peer failed (lost, refused, timed out). Returns what
   * became of the writes in flight. */
  MxlCloseEffect (*close) (MxlConn *conn, const MxlConnState *state, gboolean orderly);
  /* Frees conn->type_state (with the connection); NULL when the type
   * keeps none. */
  void (*conn_free) (MxlConn *conn);
  /* Reads connection events and feeds them to mxl_conn_transition(). */
  void (*poll_events) (MxlInitiator *init);
  /* Closes what setup opened and frees init->type_state (also after a
   * failed or missing setup). */
  void (*teardown) (MxlInitiator *init);
  /* Closes the endpoints parked with writes in flight whose writes
   * completed or whose wait ended (every progress pass); NULL when the
   * type parks none (connected endpoints). */
  void (*check_parked) (MxlInitiator *init);
  /* TRUE while the endpoint of connection generation @conn_id is parked:
   * its orphaned contexts wait for their completions or the park's end,
   * not for the reclaim delay; NULL when the type parks none. */
  gboolean (*parked) (const MxlInitiator *init, uint64_t conn_id);
  /* Handles a completion of @ctx if it is one of the type's own
   * operations, not a write of the egress (connectionless: a claim write
   * or read, MXL_CTX_SEQ_CLAIM, initiator_claim.c), puts @ctx back and
   * returns TRUE; FALSE for every other completion. @conn is the live
   * connection of @ctx, or NULL. NULL when the type posts none of its own
   * (connected endpoints). */
  gboolean (*own_completion) (MxlInitiator *init, MxlWriteCtx *ctx,
      MxlConn *conn, gboolean ok);
  /* Posts the end-of-stream notice of connected @conn with @ctx
   * (wire/eos.h) if the type has its own (connectionless to an exclusive
   * target: the claim token into its mailbox, initiator_claim.c), with
   * the outcome in @rc (0 or the negative fi errno), and returns TRUE;
   * FALSE: the engine posts the zero-length one (initiator_eos.c). NULL:
   * the type has none of its own (connected endpoints). */
  gboolean (*post_eos) (MxlConn *conn, MxlWriteCtx *ctx, ssize_t *rc);
  /* TRUE when the transport reports a vanished peer itself (connected
   * endpoints); otherwise stalled writes mean a lost peer. */
  gboolean reports_peer_loss;
  /* TRUE when every connection has its own endpoint, so that closing it
   * ends the provider's reads of its writes' memory (connected
   * endpoints); otherwise only a connection's own endpoint does, as its
   * close reports (MXL_CLOSE_ENDED: shm, initiator_rdm.c). */
  gboolean close_ends_reads;
  /* TRUE when messages of one connection are received in the order they
   * were sent (a connected endpoint's single stream); connectionless
   * providers may complete a small later message first (tcp;ofi_rxm
   * rendezvous, protocol_send.c). */
  gboolean ordered_receives;
} MxlInitiatorTypeOps;


struct mxlFabricsInitiator_t {
  MxlEndpoint base;          /* shared with the other role (endpoint.h) */
  const MxlInitiatorTypeOps *type_ops;
  MxlInitiatorTypeState *type_state;   /* type_ops' private state */
  mxlFlowReader reader;
  const MxlChunkSource *chunks;  /* grain or sample chunks, fixed at setup */
  /* the chunk source's own state (MxlChunkState base), made by its setup:
   * the channel rings and their region (samples_initiator.c); whether
   * grain writes are staged, the caller payloads and the local slot each
   * grain write reads (grain_initiator.h) */
  MxlChunkState *source_state;
  uint64_t max_msg;          /* effective bytes per write */
  uint32_t iov_limit;        /* effective local iovecs per write */
  uint32_t tx_iov_limit;     /* the provider's (send: header + data iovecs) */
  gboolean ordered_writes;   /* tx msg_order has FI_ORDER_WAW */
  guint window;              /* writes in flight per connection */
  /* write context pool */
  MxlWriteCtx *ctx_pool;
  guint ctx_count;
  guint ctx_free;            /* head of the free list (ctx_count = none) */
  guint ctx_used;
  guint ctx_orphaned;        /* in use by a connection generation that is gone */
  uint64_t cq_drains;        /* drain_cq() calls that found the CQ empty */
  /* the protocols' private state (MxlInitiatorProto base), one slot per
   * row of mxl_protocols[] (mxl_initiator_proto()), made by the row's
   * initiator setup (send and tagged: their message headers,
   * protocol_send.c), else NULL */
  MxlInitiatorProto *pstate[MXL_PROTOCOLS_MAX];
  /* connections */
  GPtrArray *conns;          /* MxlConn*, including REMOVED until swept */
  GHashTable *by_conn_id;    /* conn_id → MxlConn* (live generations only) */
  uint64_t next_conn_id;
  /* connections with credits (conn->credit set; changed under base.lock):
   * read without it by TransferGrain, which takes base.lock for the
   * credits only when there are any (initiator_credit.c) */
  atomic_uint credit_conns;
  /* what a credit is for, grain slots or bounce entries, chosen at setup
   * with @chunks (initiator_credit.h) */
  const struct MxlCreditOps *credit_ops;
  /* connectionless: credit states of connections that left, whose
   * receives may still be posted (initiator_credit.c); freed at teardown */
  GPtrArray *credit_retired;
  /* application-visible */
  mxlFabricsExtInitiatorStats stats;
  mxlFabricsExtTransferResult *results;  /* ring of MXL_FABRICS_EXT_RESULT_QUEUE_MAX
                                            (base.res_head, base.res_len) */
  /* base.lock: the progress thread's; taken in both modes by the API
   * calls other than TransferGrain.
   * mxlFabricsExtInitiatorSetNotify(): called with base.lock held */
  void (*notify) (void *data);
  void *notify_data;
  int wait_fd;               /* epoll fd of the CQ and EQ wait fds for an
                                application that progresses itself
                                (initiator_wait.c), -1 = none; valid with
                                wait_fd_made */
  gboolean wait_fd_made;
  /* progress thread */
  /* inline or threaded, fixed at setup (initiator_progress.c) */
  const MxlInitiatorMode *mode;
  /* the engine's ops (MxlEngineOps), set once at setup */
  const MxlEngineOps *engine;
  /* TransferGrain's or TransferSamples' descriptor to every target: the
   * engine's fan-out for the chunk source (initiator.c), set at setup */
  mxlStatus (*fan_out) (MxlInitiator *init, const MxlPostDesc *desc);
  /* the mode's own state (the thread's post ring and counters,
   * initiator_progress.c), NULL inline */
  MxlModeState *mode_state;
  /* end-of-stream notices posted whose completion has not been read
   * (initiator_eos.c), base.lock */
  guint eos_pending;
  guint eos_completed;       /* of those, completed without error */
};

/* --- egress machinery of this layer: payload overrides of the grain
 * source (payload.c), the context pool (protocol_egress.c) --- */

/** TRUE when local slot @slot reads its payload from caller memory. */
gboolean mxl_initiator_payload_overridden (const MxlInitiator *init, uint32_t slot);
/**
 * mxl_initiator_payload_iov:
 * Local iovecs of grain chunk @chunk of overridden slot @slot: the part in
 * the grain header from the local flow region (its descriptor), the payload
 * part from the caller's memory (descriptor NULL), at most @max_iov of
 * them. Returns: FALSE when a piece would leave the slot or the caller's
 * memory, or more than @max_iov iovecs would be needed.
 */
gboolean mxl_initiator_payload_iov (const MxlInitiator *init, uint32_t slot,
    const MxlChunk *chunk, guint max_iov, struct iovec *iov, void **desc,
    guint *n_iov);
/**
 * mxl_initiator_payload_store:
 * Makes local slot @slot (< grain_count) read its payload from @payload
 * (@size bytes, not copied: the caller keeps it alive while a transfer
 * reads the slot), or from the flow again when @payload is NULL. The
 * caller checked the arguments and that no transfer reads the slot.
 */
void mxl_initiator_payload_store (MxlInitiator *init, uint32_t slot,
    const void *payload, size_t size);
/** Frees the overrides (the grain source's teardown); nothing without
 * them. */
void mxl_initiator_payload_free (MxlInitiator *init);
/** Takes a context from the pool; NULL when exhausted. */
MxlWriteCtx *mxl_initiator_ctx_get (MxlInitiator *init);
/** Returns @ctx to the pool (nothing when it is not in use). */
void mxl_initiator_ctx_put (MxlInitiator *init, MxlWriteCtx *ctx);

/**
 * MxlEngineOps:
 * What the protocol layer reaches of the engine above it: completion
 * tracking (initiator_results.c); nothing of it is there for tests (the
 * engine reads its completions itself: initiator_progress.c calls its
 * handler by name). The engine hands its table down once, at setup
 * (init->engine, mxl_initiator_setup()); no file of this layer calls a
 * function of the engine by name (tests/unit/check-symbols.py).
 */
struct MxlEngineOps {
  /* A write of transfer @seq was posted; @last: it was the transfer's
   * last (mxl_egress_pump()). */
  void (*track_write) (MxlConn *conn, uint64_t seq, gboolean last);
  /* Transfer @seq failed with @status (@prov_err: positive fi errno or
   * 0); @final: no more of its writes will be posted (dropped, or posting
   * failed). */
  void (*track_fail) (MxlConn *conn, uint64_t seq, mxlStatus status,
      int prov_err, gboolean final);
  /* Transfer @seq of @conn is dropped before it started (@status: why):
   * counted in the connection's and the initiator's transfersDropped (not
   * in its transfersFailed), and fails as track_fail() (final). */
  void (*track_drop) (MxlConn *conn, uint64_t seq, mxlStatus status);
  /* TRUE when transfer @seq of @conn will read no more local memory: not
   * queued, every posted write completed (or it was never tracked, or is
   * retired). */
  gboolean (*transfer_idle) (MxlConn *conn, uint64_t seq);
};

/**
 * mxl_initiator_debug_inject:
 * Test hook (internal, not exported): the next @count posts (POST_FAILURE)
 * or good completions (ERROR_COMPLETION) fail with @fi_err (positive, e.g.
 * FI_EIO). Any thread. The faults are kept in protocol_hooks.c (test
 * build only: src/meson.build).
 */
void mxl_initiator_debug_inject (MxlInitiator *init, MxlInjectKind kind,
    guint count, int fi_err);

