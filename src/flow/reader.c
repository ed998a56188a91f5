/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Flow readers (docs/flow-format.md §1.6, §4.4, §5.4, §5.5). */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "flow/flow-priv.h"
#include "flow/ring.h"

mxlStatus
mxlCreateFlowReader (mxlInstance instance, char const *flowId,
    char const *options, mxlFlowReader *reader)
{
  char id[37];
  mxlFlowReader r;
  char *dir;
  mxlStatus st;

  if (instance == NULL || flowId == NULL || reader == NULL || !mxl_uuid_parse (flowId, NULL, id))
    return MXL_ERR_INVALID_ARG;

  pthread_mutex_lock (&instance->lock);
  r = g_hash_table_lookup (instance->readers, id);
  if (r != NULL) {
    r->refs++;
    *reader = r;
    pthread_mutex_unlock (&instance->lock);
    return MXL_STATUS_OK;
  }
  r = g_new0 (struct mxlFlowReader_t, 1);
  r->instance = instance;
  memcpy (r->id, id, sizeof id);
  r->refs = 1;
  dir = mxl_flow_dir_path (instance, id);
  st = mxl_flow_map_open (&r->map, dir, FALSE);
  g_free (dir);
  if (st != MXL_STATUS_OK) {
    g_free (r);
  } else {
    g_hash_table_insert (instance->readers, r->id, r);
    *reader = r;
  }
  pthread_mutex_unlock (&instance->lock);
  return st;
}

void
mxl_flow_reader_free (mxlFlowReader reader)
{
  mxl_flow_map_close (&reader->map);
  g_free (reader);
}

mxlStatus
mxlReleaseFlowReader (mxlInstance instance, mxlFlowReader reader)
{
  if (instance == NULL || reader == NULL)
    return MXL_ERR_INVALID_ARG;
  pthread_mutex_lock (&instance->lock);
  if (reader->instance != instance
      || g_hash_table_lookup (instance->readers, reader->id) != reader) {
    pthread_mutex_unlock (&instance->lock);
    return MXL_ERR_INVALID_FLOW_READER;
  }
  if (--reader->refs == 0) {
    g_hash_table_remove (instance->readers, reader->id);
    mxl_flow_reader_free (reader);
  }
  pthread_mutex_unlock (&instance->lock);
  return MXL_STATUS_OK;
}

mxlStatus
mxlFlowReaderGetInfo (mxlFlowReader reader, mxlFlowInfo *info)
{
  if (reader == NULL || info == NULL)
    return MXL_ERR_INVALID_ARG;
  memcpy (info, &reader->map.data->info, sizeof *info);
  return MXL_STATUS_OK;
}

mxlStatus
mxlFlowReaderGetConfigInfo (mxlFlowReader reader, mxlFlowConfigInfo *info)
{
  if (reader == NULL || info == NULL)
    return MXL_ERR_INVALID_ARG;
  memcpy (info, &reader->map.data->info.config, sizeof *info);
  return MXL_STATUS_OK;
}

mxlStatus
mxlFlowReaderGetRuntimeInfo (mxlFlowReader reader, mxlFlowRuntimeInfo *info)
{
  const mxlFlowRuntimeInfo *rt;

  if (reader == NULL || info == NULL)
    return MXL_ERR_INVALID_ARG;
  rt = &reader->map.data->info.runtime;
  memset (info, 0, sizeof *info);
  info->headIndex = __atomic_load_n (&rt->headIndex, __ATOMIC_ACQUIRE);
  info->lastWriteTime = __atomic_load_n (&rt->lastWriteTime, __ATOMIC_RELAXED);
  info->lastReadTime = __atomic_load_n (&rt->lastReadTime, __ATOMIC_RELAXED);
  return MXL_STATUS_OK;
}

/* ---- grains ---- */

typedef struct {
  mxlFlowReader reader;
  uint64_t index;
  uint16_t min_valid;
  mxlGrainInfo *grain;
  uint8_t **payload;
} GrainRead;

static mxlStatus
grain_check (void *ctx)
{
  GrainRead *g = ctx;
  const MxlFlowMap *map = &g->reader->map;
  uint8_t *slot;
  mxlStatus st = mxl_grain_window_check (map, g->index, g->min_valid, &slot);

  if (st != MXL_STATUS_OK)
    return st;
  memcpy (g->grain, slot, sizeof *g->grain);
  *g->payload = slot + MXL_GRAIN_PAYLOAD_OFFSET;
  if (map->access_fd >= 0) {
    /* §1.11: tell the writer's watcher we read (atime only) */
    const struct timespec times[2] = { { 0, UTIME_NOW }, { 0, UTIME_OMIT } };
    futimens (map->access_fd, times);
  }
  return MXL_STATUS_OK;
}

mxlStatus
mxlFlowReaderGetGrainSlice (mxlFlowReader reader, uint64_t index,
    uint16_t minValidSlices, uint64_t timeoutNs, mxlGrainInfo *grain,
    uint8_t **payload)
{
  GrainRead g = { reader, index, minValidSlices, grain, payload };

  if (reader == NULL || grain == NULL || payload == NULL)
    return MXL_ERR_INVALID_ARG;
  if (!reader->map.discrete)
    return MXL_ERR_INVALID_FLOW_READER;
  return mxl_flow_wait (&reader->map, timeoutNs, grain_check, &g);
}

mxlStatus
mxlFlowReaderGetGrain (mxlFlowReader reader, uint64_t index,
    uint64_t timeoutNs, mxlGrainInfo *grain, uint8_t **payload)
{
  return mxlFlowReaderGetGrainSlice (reader, index, MXL_GRAIN_VALID_SLICES_ALL,
      timeoutNs, grain, payload);
}

mxlStatus
mxlFlowReaderGetGrainSliceNonBlocking (mxlFlowReader reader, uint64_t index,
    uint16_t minValidSlices, mxlGrainInfo *grain, uint8_t **payload)
{
  return mxlFlowReaderGetGrainSlice (reader, index, minValidSlices, 0, grain, payload);
}

mxlStatus
mxlFlowReaderGetGrainNonBlocking (mxlFlowReader reader, uint64_t index,
    mxlGrainInfo *grain, uint8_t **payload)
{
  return mxlFlowReaderGetGrainSlice (reader, index, MXL_GRAIN_VALID_SLICES_ALL,
      0, grain, payload);
}

/* ---- samples ---- */

mxlStatus
mxlFlowReaderGetMaxReadLengthSamples (mxlFlowReader reader, size_t *maxReadLength)
{
  if (reader == NULL || maxReadLength == NULL)
    return MXL_ERR_INVALID_ARG;
  if (reader->map.discrete)
    return MXL_ERR_INVALID_FLOW_READER;
  *maxReadLength = reader->map.buffer_length / 2;
  return MXL_STATUS_OK;
}

typedef struct {
  mxlFlowReader reader;
  uint64_t index;
  size_t count;
  mxlWrappedMultiBufferSlice *out;
} SamplesRead;

static mxlStatus
samples_check (void *ctx)
{
  SamplesRead *s = ctx;
  const MxlFlowMap *map = &s->reader->map;
  mxlStatus st = mxl_samples_window_check (map, s->index, s->count);
  mxlMutableWrappedMultiBufferSlice slices;

  if (st != MXL_STATUS_OK)
    return st;
  mxl_samples_slices (map, s->index, s->count, &slices);
  for (int k = 0; k < 2; k++) {
    s->out->base.fragments[k].pointer = slices.base.fragments[k].pointer;
    s->out->base.fragments[k].size = slices.base.fragments[k].size;
  }
  s->out->stride = slices.stride;
  s->out->count = slices.count;
  return MXL_STATUS_OK;
}

mxlStatus
mxlFlowReaderGetSamples (mxlFlowReader reader, uint64_t index, size_t count,
    uint64_t timeoutNs, mxlWrappedMultiBufferSlice *payloadBuffersSlices)
{
  SamplesRead s = { reader, index, count, payloadBuffersSlices };

  if (reader == NULL || payloadBuffersSlices == NULL || count == 0)
    return MXL_ERR_INVALID_ARG;
  if (reader->map.discrete)
    return MXL_ERR_INVALID_FLOW_READER;
  return mxl_flow_wait (&reader->map, timeoutNs, samples_check, &s);
}

mxlStatus
mxlFlowReaderGetSamplesNonBlocking (mxlFlowReader reader, uint64_t index,
    size_t count, mxlWrappedMultiBufferSlice *payloadBuffersSlices)
{
  return mxlFlowReaderGetSamples (reader, index, count, 0, payloadBuffersSlices);
}

/* ---- internal accessors (flow-internal.h) ---- */

mxlStatus
mxl_flow_reader_get_layout (mxlFlowReader reader, MxlFlowLayout *out)
{
  if (reader == NULL || out == NULL)
    return MXL_ERR_INVALID_ARG;
  mxl_flow_map_layout (&reader->map, out);
  return MXL_STATUS_OK;
}

const uint8_t *
mxl_flow_reader_grain_slot (mxlFlowReader reader, uint32_t slot, size_t *out_length)
{
  if (reader == NULL || !reader->map.discrete || slot >= reader->map.grain_count)
    return NULL;
  if (out_length)
    *out_length = reader->map.grain_len;
  return reader->map.grains[slot];
}

const uint8_t *
mxl_flow_reader_channels (mxlFlowReader reader, size_t *out_length)
{
  if (reader == NULL || reader->map.discrete)
    return NULL;
  if (out_length)
    *out_length = reader->map.channels_len;
  return reader->map.channels;
}

const char *
mxl_flow_reader_get_def (mxlFlowReader reader)
{
  return reader != NULL ? reader->map.def_json : NULL;
}
