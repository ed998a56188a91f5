/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The target state the protocol layer works on: the target itself, its
 * endpoint-type and receive ops. Defined here, below the engine (target.h),
 * so that the ingress ops of this folder reach it without including a
 * header of the layer above (tests/unit/check-layers.py).
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>

#include "fabrics/wire/bounce.h"
#include "fabrics/protocol/endpoint.h"
#include "fabrics/ofi/ofi.h"
#include "fabrics/protocol/options.h"
#include "fabrics/ofi/pollnap.h"
#include "fabrics/ofi/progress.h"
#include "fabrics/protocol/protocol.h"
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

/**
 * MxlTargetTypeState:
 * The base of the endpoint type's private target state, at t->type_state
 * (target_rc.c: the EQ, the passive endpoint, the connection state and
 * the refused tokens; target_rdm.c: the endpoint and its AV, the shm
 * region hold and the claims), made
 * by its open and freed by its close; the type reaches its own struct
 * with mxl_container_of().
 */
typedef struct MxlTargetTypeState {
  const struct MxlTargetTypeOps *ops;
} MxlTargetTypeState;

typedef struct MxlTargetTypeOps {
  const char *name;
  /* Creates t->type_state, opens endpoints and fills the address of the
   * TargetInfo. */
  mxlStatus (*open) (MxlTarget *target, GError **error);
  /* Reads connection events (RC); @timeout_ms < 0 non-blocking. Returns
   * TRUE when data completions can arrive (connected). */
  gboolean (*poll_events) (MxlTarget *target, int timeout_ms);
  mxlFabricsExtConnectionState (*state) (MxlTarget *target);
  /* Takes the completions the type handles itself out of the @len just
   * drained at @batch (connectionless: the claims of an exclusive target,
   * target_claim.c). Returns: the completions left (in order). */
  size_t (*take) (MxlTarget *target, struct fi_cq_data_entry *batch, size_t len);
  /* Closes what open opened and frees t->type_state (also after a failed
   * or missing open). */
  void (*close) (MxlTarget *target);
} MxlTargetTypeOps;

/** How a target's receives are posted: untagged (rxring.c: FI_RX_CQ_DATA
 * providers and the send protocol) or tagged (protocol_tagged.c); at
 * t->pstate->rx_ops, set by the protocol's target setup, NULL when it
 * posts none. */
/**
 * MxlTargetSinkOps:
 * Where a target's validated grains and read results go, chosen by the
 * engine at setup (target.c: its own flow and result queue;
 * target_paths.c: the merge of a two-path target, docs/fabrics-engine.md
 * "Two paths"). The write ingress calls @commit, the engine @push.
 */
typedef struct MxlTargetSinkOps {
  /* Commits grain @index, slices 0 .. @slices - 1 valid, whose data is in
   * the target's own slot (index mod grain count), validated. Returns OK
   * (committed: a read result), NOT_READY (no result: another path
   * committed it already, or it was forwarded), or the flow writer's
   * failure. Called with the target's lock held by its progress thread,
   * or by the reading thread (one-path targets). */
  mxlStatus (*commit) (MxlTarget *target, uint64_t index, uint16_t slices);
  /* Queues one read result of the progress thread (t->lock held). */
  void (*push) (MxlTarget *target, mxlStatus status, uint64_t index, uint64_t count);
} MxlTargetSinkOps;

typedef struct MxlRxOps {
  /* Posts every receive on @ep. Returns OK or the libfabric status. */
  mxlStatus (*post_all) (MxlTarget *target, struct fid_ep *ep);
  /* Re-posts the receive of @op_context if it is one of ours. */
  void (*repost) (MxlTarget *target, void *op_context);
  /* The receive of @op_context completed with an error (truncated
   * message): noted where it matters, then re-posted. */
  void (*failed) (MxlTarget *target, void *op_context);
} MxlRxOps;


/** Which of the @n receive contexts starting at @ctxs @op_context is (a
 * completion's or a re-post's context), or -1 when it is none of them. */
static inline gint
mxl_rx_context_index (const void *op_context, const struct fi_context2 *ctxs,
    guint n)
{
  const struct fi_context2 *ctx = op_context;

  if (ctxs == NULL || ctx < ctxs || ctx >= ctxs + n)
    return -1;
  return (gint) (ctx - ctxs);
}


struct mxlFabricsTarget_t {
  MxlEndpoint base;          /* shared with the other role (endpoint.h) */
  const MxlTargetTypeOps *type_ops;
  MxlTargetTypeState *type_state;   /* type_ops' private state */
  const MxlIngressOps *ingress;
  mxlFlowWriter writer;
  /* the write ingress's private state: grains protocol_write.c, continuous
   * flows protocol_samples.c (their bounce ring) */
  MxlIngressState *istate;
  struct mxlFabricsTargetInfo_t *info;
  uint64_t id;
  /* completion batch */
  struct fi_cq_data_entry *batch;
  size_t batch_cap, batch_len, batch_pos;
  MxlPollNap nap;                 /* polls of blocking reads without a CQ wait object */
  const MxlProtocolDesc *proto;   /* what the TargetInfo advertises: a row
                                     of the table (protocol_table.c) */
  MxlTargetProto *pstate;         /* its private state (protocol_write.c,
                                     protocol_send.c, protocol_tagged.c;
                                     the receive ring, rxring.h, and its
                                     receives), or NULL */
  /* application-visible */
  mxlFabricsExtTargetStats stats;
  atomic_int interrupted;         /* mxl_target_interrupt(), until a read */
  /* inline or progress thread (setup option "progressThread"), chosen at
   * setup (target.c): with the thread, it drains the CQ, validates and
   * commits grains and queues the read results in @thread; reads pop them
   * (waiting on base.lock, which guards everything the thread touches;
   * API calls take it). */
  const struct MxlTargetMode *mode;
  struct MxlTargetThread *thread; /* the thread mode's state, else NULL */
  /* the credit extension (target_credit.c, setup option "credits"), else
   * NULL */
  struct MxlTargetCredit *credit;
  /* where validated grains and read results go (MxlTargetSinkOps), set at
   * setup; a two-path target's paths (target_paths.c): the merge state
   * shared by its first path (the one the application holds) and its
   * second, else NULL */
  const MxlTargetSinkOps *sink;
  struct MxlTargetPaths *paths;
};
