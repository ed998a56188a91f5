/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sample chunk source's initiator-wide state (samples_initiator.h):
 * created at setup, checked against every sample target at AddTarget and
 * every TransferSamples, freed at teardown.
 */
#include "fabrics/protocol/samples_initiator.h"

#include <mxl/flow.h>

#include "fabrics/wire/bounce.h"
#include "fabrics/protocol/initiator-state.h"

mxlStatus
mxl_samples_initiator_setup (MxlInitiator *init, const MxlFlowLayout *flow,
    GError **error)
{
  size_t len = 0;
  uint8_t *channels = (uint8_t *) mxl_flow_reader_channels (init->reader, &len);
  MxlSamplesInitiator *s = g_new0 (MxlSamplesInitiator, 1);

  init->base.continuous = TRUE;
  s->base.source = &mxl_sample_chunks;
  init->source_state = &s->base;
  s->ring = (MxlSampleRing) { flow->channel_count, flow->buffer_length,
      flow->sample_word_size };
  if (channels == NULL || len == 0
      || len != (size_t) flow->channel_count * flow->buffer_length * flow->sample_word_size) {
    g_set_error (error, MXL_OFI_ERROR, 0, "channel rings unavailable");
    return MXL_ERR_INVALID_ARG;
  }
  /* Registered as a write source only; never written through. */
  return mxl_ofi_region_register (init->base.dom, channels, len, FI_WRITE,
      &s->region, error);
}

void
mxl_samples_initiator_teardown (MxlInitiator *init)
{
  MxlSamplesInitiator *s = mxl_samples_initiator (init);

  if (s == NULL)
    return;
  if (init->base.dom != NULL)
    mxl_ofi_region_close (init->base.dom, &s->region);
  g_free (s);
  init->source_state = NULL;
}

gboolean
mxl_samples_batch_fits (const MxlInitiator *init, uint64_t count)
{
  const MxlSamplesInitiator *s = mxl_samples_initiator (init);

  return s != NULL && count <= s->ring.length;
}

#ifdef MXL_TEST_HOOKS
const MxlSampleRing *
mxl_samples_debug_initiator_ring (const MxlInitiator *init)
{
  const MxlSamplesInitiator *s = mxl_samples_initiator (init);

  return s ? &s->ring : NULL;
}
#endif

/* Checks a sample target's bounce ring against the local flow. */
gboolean
mxl_samples_target_usable (const MxlInitiator *init,
    const struct mxlFabricsTargetInfo_t *info)
{
  if (!info->has_bounce_buffer || info->bounce_entry_count != info->n_regions
      || mxl_bounce_capacity (&mxl_samples_initiator (init)->ring, info->bounce_entry_size) == 0)
    return FALSE;
  for (guint e = 0; e < info->n_regions; e++)
    if (info->regions[e].len < info->bounce_entry_size)
      return FALSE;
  return TRUE;
}
