/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Transfer protocols behind small ops tables. An initiator connection picks
 * its egress ops when it becomes connected, a target its ingress ops at
 * setup; the hot path then makes one indirect call and never switches on
 * the protocol. Remote write + immediate data (protocol_rma.c) is the only
 * protocol today; send/receive plugs in with the same two tables.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_eq.h>

#include <mxl/mxl.h>

#include "fabrics/layout.h"
#include "fabrics/options.h"

typedef struct mxlFabricsTarget_t MxlTarget;
typedef struct MxlConn MxlConn;
typedef struct MxlWriteCtx MxlWriteCtx;

/**
 * MxlGrainRequest:
 * A grain transfer as computed once per TransferGrain call from the local
 * flow (the same for every target): local slot, runs and slice end.
 */
typedef struct MxlGrainRequest {
  uint64_t grain_index;
  uint32_t local_slot;
  uint16_t slice_end;        /* imm slice value (0 for a header-only grain) */
  guint n_runs;
  MxlRun runs[MXL_LAYOUT_MAX_PLANES];
  /* Test hook only (mxl_initiator_debug_post_raw()): use this remote slot
   * and immediate data instead of the computed ones. */
  gboolean raw;
  uint32_t raw_remote_slot;
  uint32_t raw_imm;
} MxlGrainRequest;

typedef struct MxlEgressOps {
  const char *name;
  /* Checks the request against the connection's remote regions and queues
   * it. Returns OK, INVALID_ARG (a write would leave the remote region),
   * NOT_READY (queue full). */
  mxlStatus (*queue_grain) (MxlConn *conn, const MxlGrainRequest *req);
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
   * grain index, INVALID_ARG for bad network input (counted), or NOT_READY
   * when the completion is consumed without a result (superseded). */
  mxlStatus (*on_completion) (MxlTarget *target,
      const struct fi_cq_data_entry *entry, uint64_t *out_index);
} MxlIngressOps;

extern const MxlEgressOps mxl_rma_egress_ops;
extern const MxlIngressOps mxl_rma_ingress_ops;

/**
 * mxl_protocol_check_options:
 * Returns: MXL_STATUS_OK when the engine implements what @options ask for;
 * MXL_ERR_UNSUPPORTED_OPERATION for protocol "send"/"tagged" or
 * progressThread (not implemented yet), with the reason in @error.
 */
mxlStatus mxl_protocol_check_options (const MxlSetupOptions *options,
    GError **error);
