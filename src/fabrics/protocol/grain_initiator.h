/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The grain chunk source's initiator-wide state (init->source_state):
 * private to the grain source, included only by its files
 * (protocol_grain.c, grainstage.c, payload.c). Made by
 * mxl_grain_source_setup() and freed by mxl_grain_source_teardown()
 * (grainstage.c, declared in protocol.h).
 */
#pragma once

#include "fabrics/protocol/protocol.h"
#include "fabrics/protocol/initiator-state.h"

/** What mxl_grain_ctx_slot() answers for a context that reads no local
 * slot (not posted by the grain source: a claim, initiator_rdm.c). */
#define MXL_GRAIN_NO_SLOT G_MAXUINT32

typedef struct MxlGrainSource {
  MxlChunkState base;
  /* grain writes may go from a per-connection copy: a discrete flow on a
   * MXL_PROVIDER_QUIRK_RECEIVER_COPIES provider; set at setup */
  gboolean stage_grains;
  /* per local slot, or NULL: payloads from caller memory (payload.c) */
  MxlPayloadOverride *payload_override;
  /* per write context (index ctx - init->ctx_pool), allocated with the
   * first grain write: the local slot its posted write reads, or its
   * staging buffer (MXL_GRAIN_STAGE_CTX_SLOT, grainstage.h) */
  uint32_t *ctx_slot;
} MxlGrainSource;

/* The state of grain initiator @init, NULL for a sample initiator (or
 * before setup). */
static inline MxlGrainSource *
mxl_grain_source (const MxlInitiator *init)
{
  return init->source_state == NULL || init->source_state->source != &mxl_grain_chunks
      ? NULL : mxl_container_of (init->source_state, MxlGrainSource, base);
}

/* The local slot (or staging buffer) the posted write of @ctx reads, or
 * MXL_GRAIN_NO_SLOT for a context the grain source did not post (a claim:
 * transfer_seq MXL_CTX_SEQ_CLAIM). @ctx is in use. */
static inline uint32_t
mxl_grain_ctx_slot (const MxlInitiator *init, const MxlWriteCtx *ctx)
{
  const MxlGrainSource *s = mxl_grain_source (init);

  if (s == NULL || s->ctx_slot == NULL || ctx->transfer_seq >= MXL_CTX_SEQ_EOS)
    return MXL_GRAIN_NO_SLOT;
  return s->ctx_slot[ctx - init->ctx_pool];
}
