/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sample chunk source's initiator-wide state (init->source_state): private
 * to the sample source, included only by protocol_samples.c and
 * samples_initiator.c (its setup, teardown and checks, declared in
 * protocol.h).
 */
#pragma once

#include "fabrics/protocol/protocol.h"
#include "fabrics/protocol/initiator-state.h"

/* The local flow's channel rings and their region, at init->source_state
 * (continuous flows). */
typedef struct MxlSamplesInitiator {
  MxlChunkState base;
  MxlSampleRing ring;        /* the local flow's channel rings */
  MxlOfiRegion region;       /* the whole channels mapping, FI_WRITE */
} MxlSamplesInitiator;

/* The state of sample initiator @init, NULL for a grain initiator (or
 * before setup). */
static inline MxlSamplesInitiator *
mxl_samples_initiator (const MxlInitiator *init)
{
  return init->source_state == NULL || init->source_state->source != &mxl_sample_chunks
      ? NULL : mxl_container_of (init->source_state, MxlSamplesInitiator, base);
}
