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
 */
#include "fabrics/initiator.h"

#include <string.h>

#include "flow/flow-internal.h"

struct MxlPayloadOverride {
  const uint8_t *base;       /* NULL: the slot's payload comes from the flow */
  size_t len;
};

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
  if (mxl_initiator_slot_in_use_locked (init, slot)) {
    st = MXL_ERR_NOT_READY;
  } else {
    if (init->payload_override == NULL)
      init->payload_override = g_new0 (MxlPayloadOverride, init->base.grain_count);
    init->payload_override[slot].base = payload;
    init->payload_override[slot].len = payload ? size : 0;
  }
  mxl_unlock (&init->base.lock);
  return st;
}

gboolean
mxl_initiator_payload_overridden (const MxlInitiator *init, uint32_t slot)
{
  return init->payload_override != NULL && slot < init->base.grain_count
      && init->payload_override[slot].base != NULL;
}

/* Appends [@base, @base + @len) with @desc; FALSE when @max is reached. */
static gboolean
push_iov (struct iovec *iov, void **desc, guint *n, guint max, uint8_t *base,
    size_t len, void *d)
{
  if (len == 0)
    return TRUE;
  if (*n >= max)
    return FALSE;
  iov[*n].iov_base = base;
  iov[*n].iov_len = len;
  desc[*n] = d;
  (*n)++;
  return TRUE;
}

gboolean
mxl_initiator_payload_iov (const MxlInitiator *init, uint32_t slot,
    const MxlChunk *chunk, guint max_iov, struct iovec *iov, void **desc,
    guint *n_iov)
{
  const MxlOfiRegion *local = &init->base.regions[slot];
  const MxlPayloadOverride *o = &init->payload_override[slot];
  guint n = 0;

  max_iov = MIN (max_iov, MXL_LAYOUT_MAX_IOV);
  for (guint i = 0; i < chunk->n_iov; i++) {
    uint64_t off = chunk->iov[i].offset, len = chunk->iov[i].length;
    uint64_t head = 0;

    if (off > local->len || len > local->len - off)
      return FALSE;
    /* The part in the grain header: from the flow, as always. */
    if (off < MXL_GRAIN_HEADER_SIZE) {
      head = MIN (len, MXL_GRAIN_HEADER_SIZE - off);
      if (!push_iov (iov, desc, &n, max_iov, local->base + off, head,
              local->desc))
        return FALSE;
      off += head;
      len -= head;
    }
    if (len == 0)
      continue;
    /* The payload part: from the caller's memory, within its length. */
    off -= MXL_GRAIN_HEADER_SIZE;
    if (off > o->len || len > o->len - off)
      return FALSE;
    if (!push_iov (iov, desc, &n, max_iov, (uint8_t *) o->base + off, len,
            NULL))
      return FALSE;
  }
  *n_iov = n;
  return TRUE;
}

void
mxl_initiator_payload_free (MxlInitiator *init)
{
  g_clear_pointer (&init->payload_override, g_free);
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
