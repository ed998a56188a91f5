/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Grain payloads from caller memory, the egress's side
 * (mxlFabricsExtInitiatorSetGrainPayload(), initiator_payload.c): one
 * override per local ring slot, and the local iovecs of a grain chunk of an
 * overridden slot. The part of a chunk in the grain header (the first
 * MXL_GRAIN_HEADER_SIZE bytes of the slot) comes from the local flow, as
 * always; the payload part from the application's memory, which has no
 * memory descriptor (the API refuses FI_MR_LOCAL providers,
 * docs/libfabric-notes.md P6). Read when a write of the slot is posted
 * (mxl_egress_pump -> grain_iov, protocol_grain.c), under init->lock.
 */
#include "fabrics/protocol/initiator-state.h"
#include "fabrics/protocol/grain_initiator.h"

#include "flow/flow-internal.h"

struct MxlPayloadOverride {
  const uint8_t *base;       /* NULL: the slot's payload comes from the flow */
  size_t len;
};

void
mxl_initiator_payload_store (MxlInitiator *init, uint32_t slot, const void *payload,
    size_t size)
{
  MxlGrainSource *s = mxl_grain_source (init);

  g_return_if_fail (s != NULL);
  if (s->payload_override == NULL)
    s->payload_override = g_new0 (MxlPayloadOverride, init->base.grain_count);
  s->payload_override[slot].base = payload;
  s->payload_override[slot].len = payload ? size : 0;
}

void
mxl_initiator_payload_free (MxlInitiator *init)
{
  MxlGrainSource *s = mxl_grain_source (init);

  if (s != NULL)
    g_clear_pointer (&s->payload_override, g_free);
}

gboolean
mxl_initiator_payload_overridden (const MxlInitiator *init, uint32_t slot)
{
  const MxlGrainSource *s = mxl_grain_source (init);

  return s != NULL && s->payload_override != NULL && slot < init->base.grain_count
      && s->payload_override[slot].base != NULL;
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
  const MxlPayloadOverride *o = &mxl_grain_source (init)->payload_override[slot];
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
