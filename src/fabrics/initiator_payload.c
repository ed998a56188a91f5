/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Grain payloads read from caller memory instead of the local flow
 * (mxlFabricsExtInitiatorSetGrainPayload()): the remote write then takes
 * the grain header (the first MXL_GRAIN_HEADER_SIZE bytes of a slot) from
 * the local flow, as always, and the payload bytes straight from memory the
 * application owns, so that the application does not copy a frame into the
 * flow only for the provider to read it again.
 *
 * The override is per local ring slot; it is read when a write of the slot
 * is posted (mxl_egress_pump -> grain_iov), under init->lock like every
 * other use of the queues, and may only change while no transfer reads the
 * slot (mxl_initiator_slot_in_use()). Providers that need local memory
 * registration (FI_MR_LOCAL: verbs, efa; docs/libfabric-notes.md P6) are refused:
 * caller memory has no descriptor there.
 *
 * This file is the API's side (checks, the slot-in-use test under the
 * lock); the overrides themselves and the iovecs the egress builds from
 * them are the protocol layer's (protocol/payload.c).
 */
#include "fabrics/initiator.h"

mxlStatus
mxl_initiator_set_grain_payload (MxlInitiator *init, uint64_t index,
    const void *payload, size_t size)
{
  uint32_t slot;
  mxlStatus st = MXL_STATUS_OK;

  if (!init->base.setup_done || init->base.continuous || init->base.grain_count == 0)
    return MXL_ERR_INVALID_STATE;
  if (payload != NULL && size < init->base.layout.grain_size)
    return MXL_ERR_INVALID_ARG;
  if (init->base.dom->info->domain_attr->mr_mode & FI_MR_LOCAL)
    return MXL_ERR_UNSUPPORTED_OPERATION;
  slot = (uint32_t) (index % init->base.grain_count);
  mxl_lock (&init->base.lock);
  if (mxl_initiator_slot_in_use_locked (init, slot))
    st = MXL_ERR_NOT_READY;
  else
    mxl_initiator_payload_store (init, slot, payload, size);
  mxl_unlock (&init->base.lock);
  return st;
}

MXL_EXPORT mxlStatus
mxlFabricsExtInitiatorSetGrainPayload (mxlFabricsInitiator in_initiator,
    uint64_t in_grainIndex, const void *in_payload, size_t in_size)
{
  if (in_initiator == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_initiator_set_grain_payload (in_initiator, in_grainIndex,
      in_payload, in_size);
}
