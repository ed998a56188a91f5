/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A target: a flow writer's grain slots registered for FI_REMOTE_WRITE, one
 * completion queue, and an endpoint-type variant: RC (FI_EP_MSG, a passive
 * endpoint that keeps listening and one accepted initiator at a time,
 * target_rc.c) or RDM (one connectionless endpoint, target_rdm.c).
 *
 * Reads drain the completion queue in batches into a small buffer; every
 * completion with immediate data is validated and then committed to the
 * flow by the target itself (mxlFlowWriterOpenGrain + validSlices from the
 * immediate data + mxlFlowWriterCommitGrain, wire spec §6.9), which makes the
 * grain visible to local readers.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>

#include "fabrics/wire/bounce.h"
#include "fabrics/claim.h"
#include "fabrics/events.h"
#include "fabrics/ofi/ofi.h"
#include "fabrics/options.h"
#include "fabrics/ofi/pollnap.h"
#include "fabrics/progress.h"
#include "fabrics/protocol.h"
#include "fabrics/ofi/provider.h"
#include "fabrics/wire/targetinfo.h"

/** Completions drained at once at most: cqDepth + 1 up to this, so that
 * more than cqDepth arriving between two drains is seen (cqDepth >= 1024
 * is then only checked by the provider, -FI_EOVERRUN). */
#define MXL_TARGET_MAX_BATCH 1024u
/** An RC accept that does not complete within this is abandoned (ms). */
#define MXL_ACCEPT_TIMEOUT_MS 5000
/** Longest single wait inside a blocking read before state is re-checked. */
#define MXL_TARGET_WAIT_SLICE_MS 20

typedef enum MxlRcKind {
  MXL_RC_LISTENING,
  MXL_RC_ACCEPTING,
  MXL_RC_CONNECTED,
} MxlRcKind;

/** RC target state: a tagged union. The passive endpoint stays open in
 * every state, so the address (and port) in the TargetInfo stays valid. */
typedef struct MxlRcState {
  MxlRcKind kind;
  union {
    struct { struct fid_ep *ep; gint64 since; } accepting;
    struct { struct fid_ep *ep; } connected;
  } u;
} MxlRcState;

/** A read result queued by the progress thread. */
typedef struct MxlReadResult {
  mxlStatus status;
  uint64_t index;            /* grain index, or head index of samples */
  uint64_t count;            /* samples per channel (continuous flows) */
} MxlReadResult;

typedef struct MxlTargetTypeOps {
  const char *name;
  /* Opens endpoints and fills the address of the TargetInfo. */
  mxlStatus (*open) (MxlTarget *target, GError **error);
  /* Reads connection events (RC); @timeout_ms < 0 non-blocking. Returns
   * TRUE when data completions can arrive (connected). */
  gboolean (*poll_events) (MxlTarget *target, int timeout_ms);
  mxlFabricsExtConnectionState (*state) (MxlTarget *target);
  void (*close) (MxlTarget *target);
} MxlTargetTypeOps;

/** How a target's receives are posted: untagged (target.c: FI_RX_CQ_DATA
 * providers and the send protocol) or tagged (protocol_tagged.c). */
typedef struct MxlRxOps {
  /* Posts every receive on @ep. Returns OK or the libfabric status. */
  mxlStatus (*post_all) (MxlTarget *target, struct fid_ep *ep);
  /* Re-posts the receive of @op_context if it is one of ours. */
  void (*repost) (MxlTarget *target, void *op_context);
  /* The receive of @op_context completed with an error (truncated
   * message): noted where it matters, then re-posted. */
  void (*failed) (MxlTarget *target, void *op_context);
} MxlRxOps;

extern const MxlRxOps mxl_target_untagged_rx_ops;
extern const MxlRxOps mxl_tagged_rx_ops;

extern const MxlTargetTypeOps mxl_target_rc_ops;
extern const MxlTargetTypeOps mxl_target_rdm_ops;

struct mxlFabricsTarget_t {
  mxlFabricsInstance instance;
  gboolean setup_done;
  const MxlProviderDesc *desc;
  const MxlTargetTypeOps *type_ops;
  const MxlIngressOps *ingress;
  MxlSetupOptions options;
  MxlOfiDomain *dom;
  struct fid_cq *cq;
  mxlFlowWriter writer;
  MxlGrainLayout layout;
  uint32_t grain_count;
  MxlOfiRegion *regions;          /* one per slot, FI_REMOTE_WRITE */
  /* continuous flows (protocol_samples.c) */
  gboolean continuous;
  MxlSampleRing ring;
  uint8_t *channels;              /* the writer's channel rings */
  uint64_t entry_count, entry_size, entry_capacity;
  uint8_t *bounce;                /* entry_count * entry_size bytes */
  MxlOfiRegion bounce_region;     /* FI_REMOTE_WRITE */
  uint8_t *entry_copy;            /* one entry's payload, copied out */
  uint32_t *entry_pending;        /* buffered completions per entry */
  gboolean have_last_entry, have_last_head;
  uint64_t last_entry, last_head;
  struct mxlFabricsTargetInfo_t *info;
  uint64_t id;
  /* completion batch */
  struct fi_cq_data_entry *batch;
  size_t batch_cap, batch_len, batch_pos;
  uint32_t *slot_pending;         /* buffered completions per slot */
  gboolean have_committed;        /* committed_max is set */
  uint64_t committed_max;         /* highest grain index committed */
  MxlPollNap nap;                 /* polls of blocking reads without a CQ wait object */
  /* posted receives: consumed by immediate data (FI_RX_CQ_DATA providers,
   * 8 bytes each) or the send protocol's receive ring (rx_entry_size each) */
  gboolean rx_cq_data;
  guint n_rx;
  size_t rx_entry_size;
  uint8_t *rx_buf;                /* n_rx * rx_entry_size bytes */
  MxlOfiRegion rx_region;
  struct fi_context2 *rx_ctx;     /* n_rx contexts */
  struct fid_ep *rx_ep;           /* endpoint the receives are posted on */
  MxlProtocolKind protocol;       /* what the TargetInfo advertises */
  const MxlProtocolDesc *proto;   /* its descriptor (protocol_table.c) */
  MxlTargetProto *pstate;         /* its private state (protocol_send.c,
                                     tagged.c), or NULL */
  const MxlRxOps *rx_ops;
  /* RC */
  struct fid_eq *eq;
  struct fid_pep *pep;
  MxlRcState rc;
  /* RDM */
  struct fid_ep *ep;
  struct fid_av *av;
  struct MxlShmHold *shm_hold;    /* shm: the endpoint's region is in use
                                     (shmstale.h) */
  MxlClaimTarget claim;           /* exclusive RDM targets (claim.h) */
  /* application-visible */
  mxlFabricsExtTargetStats stats;
  GQueue events;                  /* mxlFabricsExtConnectionEvent* */
  /* progress thread (setup option "progressThread"): the thread drains the
   * CQ, validates and commits grains and queues the read results; reads
   * pop them (waiting on @cond). @lock guards everything the thread
   * touches; API calls take it. */
  MxlLock lock;                   /* mutex + condition (progress.h) */
  guint waiters;
  atomic_int interrupted;         /* mxl_target_interrupt(), until a read */
  MxlProgress progress;
  gboolean threaded;
  MxlReadResult *results;         /* ring of MXL_FABRICS_EXT_RESULT_QUEUE_MAX */
  guint res_head, res_len;
};

mxlStatus mxl_target_setup (MxlTarget *target,
    const mxlFabricsTargetConfig *config, const char *options,
    struct mxlFabricsTargetInfo_t **out_info);
void mxl_target_destroy (MxlTarget *target);

/** @timeout_ms: < 0 or 0 non-blocking, otherwise the longest wait.
 * @out_count: samples per channel (continuous flows; 0 for grains). */
mxlStatus mxl_target_read (MxlTarget *target, int timeout_ms,
    uint64_t *out_index, uint64_t *out_count);

/** Makes a waiting (or the next) read return MXL_ERR_INTERRUPTED. */
void mxl_target_interrupt (MxlTarget *target);
mxlStatus mxl_target_poll_event (MxlTarget *target,
    mxlFabricsExtConnectionEvent *out);
void mxl_target_get_stats (MxlTarget *target, mxlFabricsExtTargetStats *out);

/* --- shared by target.c, target_rc.c, target_rdm.c, protocol_rma.c --- */

/** Binds @ep to the target's CQ (FI_TRANSMIT | FI_RECV: 1.17 tcp crashes
 * otherwise, wire spec §6.1) and, when needed, posts the receives. */
mxlStatus mxl_target_bind_cq (MxlTarget *target, struct fid_ep *ep,
    GError **error);
/** Builds the target's TargetInfo from its regions and @addr (fi_getname()). */
mxlStatus mxl_target_fill_info (MxlTarget *target, const void *addr,
    size_t addr_len);
/** Posts every receive buffer on @ep (FI_RX_CQ_DATA providers and send
 * targets). */
mxlStatus mxl_target_post_receives (MxlTarget *target, struct fid_ep *ep);
/** Re-posts the receive buffer of @op_context if it is one of ours. */
void mxl_target_repost (MxlTarget *target, void *op_context);
/** The same for a receive that completed with an error. */
void mxl_target_receive_failed (MxlTarget *target, void *op_context);
/** Queues a connection event for mxlFabricsExtTargetPollEvent(). */
void mxl_target_push_event (MxlTarget *target,
    mxlFabricsExtConnectionState previous, mxlFabricsExtConnectionState current,
    mxlStatus reason);
