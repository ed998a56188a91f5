/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Raw test requests (initiator.h): a grain write or a bounce entry whose
 * remote region, immediate data and entry header a hostile-sender test
 * chooses. They are a request type of their own, queued on one connection
 * through mxl_initiator_queue_one() (initiator.c) with the queue functions
 * below, which call the protocol layer's mxl_grain_queue_into() and
 * mxl_samples_queue_entry_at() (protocol.h); once queued they are
 * ordinary transfers of the initiator's chunk source. Neither
 * TransferGrain's descriptor (MxlPostDesc), the chunk sources' queue
 * functions nor the engine's ops table (MxlEngineOps) carry anything of
 * them.
 */
#include "fabrics/initiator.h"

typedef struct RawGrain {
  MxlGrainRequest req;
  uint32_t remote_slot, imm;
} RawGrain;

typedef struct RawSamples {
  MxlSamplesRequest req;
  uint32_t entry, imm;
  uint64_t header_head, header_count;
} RawSamples;

static mxlStatus
queue_raw_grain (MxlConn *conn, const void *request)
{
  const RawGrain *r = request;

  return mxl_grain_queue_into (conn, &r->req, r->remote_slot, r->imm);
}

static mxlStatus
queue_raw_samples (MxlConn *conn, const void *request)
{
  const RawSamples *r = request;

  return mxl_samples_queue_entry_at (conn, &r->req, r->entry, r->imm, r->header_head,
      r->header_count);
}

mxlStatus
mxl_initiator_debug_post_raw (MxlInitiator *init, uint64_t target_id,
    uint32_t local_slot, uint32_t remote_slot, uint64_t offset, uint64_t length,
    uint32_t imm)
{
  RawGrain r = { .req = { .local_slot = local_slot, .n_runs = 1 },
    .remote_slot = remote_slot, .imm = imm };
  MxlTracked what = { .queued_at = g_get_monotonic_time () };

  if (!init->base.setup_done || init->base.continuous || local_slot >= init->base.grain_count)
    return MXL_ERR_INVALID_ARG;
  r.req.runs[0] = (MxlRun) { offset, length };
  return mxl_initiator_queue_one (init, target_id, &what, queue_raw_grain, &r);
}

mxlStatus
mxl_initiator_debug_samples_raw (MxlInitiator *init, uint64_t target_id,
    uint64_t head, uint64_t count, uint32_t entry, uint32_t imm, uint64_t header_head,
    uint64_t header_count)
{
  RawSamples r = { { head, count }, entry, imm, header_head, header_count };
  MxlTracked what = { .grain_index = head, .queued_at = g_get_monotonic_time () };

  if (!init->base.setup_done || !init->base.continuous)
    return MXL_ERR_INVALID_ARG;
  return mxl_initiator_queue_one (init, target_id, &what, queue_raw_samples, &r);
}
