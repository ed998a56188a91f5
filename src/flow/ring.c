/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "flow/ring.h"

mxlStatus
mxl_grain_window_check (const MxlFlowMap *map, uint64_t index,
    uint16_t min_valid, uint8_t **out_slot)
{
  uint64_t head = __atomic_load_n (&map->data->info.runtime.headIndex, __ATOMIC_ACQUIRE);
  uint64_t n = map->grain_count;
  uint64_t min_index = head >= n ? head - n + 1 : 0;
  uint8_t *slot;
  mxlGrainInfo *g;
  uint16_t valid, total, need;
  uint32_t flags;

  if (index > head)
    return MXL_ERR_OUT_OF_RANGE_TOO_EARLY;
  if (index < min_index)
    return MXL_ERR_OUT_OF_RANGE_TOO_LATE;
  slot = map->grains[index % n];
  g = (mxlGrainInfo *) slot;
  valid = __atomic_load_n (&g->validSlices, __ATOMIC_ACQUIRE);
  flags = __atomic_load_n (&g->flags, __ATOMIC_ACQUIRE);
  total = g->totalSlices;
  need = min_valid < total ? min_valid : total;
  if (valid < need && !(flags & MXL_GRAIN_FLAG_INVALID))
    return MXL_ERR_OUT_OF_RANGE_TOO_EARLY;
  *out_slot = slot;
  return MXL_STATUS_OK;
}

mxlStatus
mxl_samples_window_check (const MxlFlowMap *map, uint64_t index, size_t count)
{
  uint64_t head = __atomic_load_n (&map->data->info.runtime.headIndex, __ATOMIC_ACQUIRE);
  uint64_t half = map->buffer_length / 2;
  uint64_t min_index = head >= half ? head - half : 0;

  if (index > head)
    return MXL_ERR_OUT_OF_RANGE_TOO_EARLY;
  if (count <= half && index >= min_index && index - min_index >= count)
    return MXL_STATUS_OK;
  return MXL_ERR_OUT_OF_RANGE_TOO_LATE;
}

void
mxl_samples_slices (const MxlFlowMap *map, uint64_t index, size_t count,
    mxlMutableWrappedMultiBufferSlice *out)
{
  uint64_t l = map->buffer_length;
  size_t w = map->word_size;
  uint64_t end = index % l;
  uint64_t start = (end + l - count) % l;

  if (start < end) {
    out->base.fragments[0].pointer = map->channels + start * w;
    out->base.fragments[0].size = count * w;
    out->base.fragments[1].size = 0;
  } else {
    uint64_t first = l - start;
    out->base.fragments[0].pointer = map->channels + start * w;
    out->base.fragments[0].size = first * w;
    out->base.fragments[1].size = (count - first) * w;
  }
  out->base.fragments[1].pointer = map->channels;
  out->stride = l * w;
  out->count = map->channel_count;
}
