/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Mapping the files of an existing flow (docs/flow-format.md §1.5, §1.6, §3). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flow/flow-priv.h"

mxlStatus
mxl_status_from_errno (int err)
{
  switch (err) {
    case EACCES:
    case EPERM:
    case EROFS:
      return MXL_ERR_PERMISSION_DENIED;
    case ENOENT:
    case ENOTDIR:
      return MXL_ERR_FLOW_NOT_FOUND;
    default:
      return MXL_ERR_UNKNOWN;
  }
}

void
mxl_flow_map_init (MxlFlowMap *map)
{
  memset (map, 0, sizeof *map);
  map->data_fd = -1;
  map->channels_fd = -1;
  map->access_fd = -1;
}

void
mxl_flow_map_close (MxlFlowMap *map)
{
  if (map->grains) {
    for (uint32_t i = 0; i < map->grain_count; i++) {
      if (map->grains[i])
        munmap (map->grains[i], map->grain_len);
    }
  }
  if (map->grain_fds) {
    for (uint32_t i = 0; i < map->grain_count; i++) {
      if (map->grain_fds[i] >= 0)
        close (map->grain_fds[i]);
    }
  }
  g_free (map->grains);
  g_free (map->grain_fds);
  if (map->channels)
    munmap (map->channels, map->channels_len);
  if (map->channels_fd >= 0)
    close (map->channels_fd);
  if (map->data)
    munmap (map->data, sizeof (MxlFlowData));
  if (map->data_fd >= 0)
    close (map->data_fd);
  if (map->access_fd >= 0)
    close (map->access_fd);
  g_free (map->dir);
  g_free (map->data_path);
  g_free (map->def_json);
  mxl_flow_map_init (map);
}

/* Opens and maps one file whole; writers lock it LOCK_SH (§1.7). */
static mxlStatus
map_file (const char *path, gboolean writable, size_t min_size, int *out_fd,
    void **out_map, size_t *out_len)
{
  struct stat st;
  int fd;
  void *p;

  fd = open (path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
  if (fd < 0)
    return mxl_status_from_errno (errno);
  if (writable && flock (fd, LOCK_SH | LOCK_NB) != 0) {
    /* EWOULDBLOCK: the last writer is deleting the flow right now */
    close (fd);
    return MXL_ERR_FLOW_NOT_FOUND;
  }
  if (fstat (fd, &st) != 0 || (size_t) st.st_size < min_size || st.st_size == 0) {
    g_warning ("%s: %s", path, "file missing or shorter than its layout");
    close (fd);
    return MXL_ERR_UNKNOWN;
  }
  p = mmap (NULL, (size_t) st.st_size, writable ? PROT_READ | PROT_WRITE : PROT_READ,
      MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    int err = errno;
    close (fd);
    return mxl_status_from_errno (err);
  }
  *out_fd = fd;
  *out_map = p;
  *out_len = (size_t) st.st_size;
  return MXL_STATUS_OK;
}

static mxlStatus
map_grains (MxlFlowMap *map)
{
  const mxlFlowInfo *info = &map->data->info;
  uint32_t n = info->config.discrete.grainCount;
  mxlStatus st;

  if (n == 0)
    return MXL_ERR_UNKNOWN;
  map->grain_count = n;
  map->grain_fds = g_new (int, n);
  map->grains = g_new0 (uint8_t *, n);
  for (uint32_t i = 0; i < n; i++)
    map->grain_fds[i] = -1;

  for (uint32_t i = 0; i < n; i++) {
    char *path = g_strdup_printf ("%s/grains/data.%u", map->dir, i);
    void *p = NULL;
    size_t len = 0;
    const mxlGrainInfo *g;

    st = map_file (path, map->writable, MXL_GRAIN_PAYLOAD_OFFSET, &map->grain_fds[i], &p, &len);
    g_free (path);
    if (st != MXL_STATUS_OK)
      return st == MXL_ERR_FLOW_NOT_FOUND ? MXL_ERR_UNKNOWN : st;
    map->grains[i] = p;
    g = p;
    if (i == 0) {
      map->grain_len = len;
      map->grain_size = g->grainSize;
      map->total_slices = g->totalSlices;
    }
    /* our hardening: every slot must hold the whole payload (no SIGBUS) */
    if (g->version != 1 || len != map->grain_len
        || len < (size_t) MXL_GRAIN_PAYLOAD_OFFSET + g->grainSize
        || g->grainSize != map->grain_size || g->totalSlices != map->total_slices) {
      g_warning ("%s: grain %u has version %u or an inconsistent size", map->dir, i, g->version);
      return MXL_ERR_UNKNOWN;
    }
  }
  return MXL_STATUS_OK;
}

static mxlStatus
map_channels (MxlFlowMap *map)
{
  const mxlContinuousFlowConfigInfo *c = &map->data->info.config.continuous;
  uint64_t samples = (uint64_t) c->channelCount * c->bufferLength;
  char *path;
  void *p = NULL;
  mxlStatus st;

  if (samples == 0 || c->bufferLength < 2)
    return MXL_ERR_UNKNOWN;
  path = g_strdup_printf ("%s/channels", map->dir);
  st = map_file (path, map->writable, 1, &map->channels_fd, &p, &map->channels_len);
  g_free (path);
  if (st != MXL_STATUS_OK)
    return st == MXL_ERR_FLOW_NOT_FOUND ? MXL_ERR_UNKNOWN : st;
  map->channels = p;
  map->channel_count = c->channelCount;
  map->buffer_length = c->bufferLength;
  /* §3.11: W is not stored; it is the file size per sample */
  map->word_size = map->channels_len >= samples ? (uint32_t) (map->channels_len / samples) : 1;
  if (map->word_size != 4) {
    g_warning ("%s: %u-byte samples are not supported (float32 only)", map->dir, map->word_size);
    return MXL_ERR_UNKNOWN;
  }
  return MXL_STATUS_OK;
}

mxlStatus
mxl_flow_map_open (MxlFlowMap *map, const char *dir, gboolean writable)
{
  void *p = NULL;
  size_t len = 0;
  char *path;
  mxlStatus st;
  uint32_t format;

  mxl_flow_map_init (map);
  map->dir = g_strdup (dir);
  map->data_path = g_build_filename (dir, "data", NULL);
  map->writable = writable;

  st = map_file (map->data_path, writable, sizeof (MxlFlowData), &map->data_fd, &p, &len);
  if (st != MXL_STATUS_OK)
    goto fail;
  map->data = p;
  if (len != sizeof (MxlFlowData)) {
    /* the whole file is mapped; keep only the header mapped */
    munmap (p, len);
    map->data = mmap (NULL, sizeof (MxlFlowData),
        writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, map->data_fd, 0);
    if (map->data == MAP_FAILED) {
      map->data = NULL;
      st = MXL_ERR_UNKNOWN;
      goto fail;
    }
  }
  if (map->data->info.version != 1) {
    g_warning ("%s: flow layout version %u is not supported", dir, map->data->info.version);
    st = MXL_ERR_UNKNOWN;
    goto fail;
  }

  path = g_build_filename (dir, "flow_def.json", NULL);
  if (!g_file_get_contents (path, &map->def_json, NULL, NULL))
    map->def_json = NULL;
  g_free (path);

  format = map->data->info.config.common.format;
  map->discrete = mxlIsDiscreteDataFormat ((int) format);
  if (map->discrete) {
    st = map_grains (map);
    if (st == MXL_STATUS_OK && !writable) {
      path = g_build_filename (dir, "access", NULL);
      map->access_fd = open (path, O_RDWR | O_CLOEXEC);   /* failure is fine (§1.6) */
      g_free (path);
    }
  } else if (format == MXL_DATA_FORMAT_AUDIO) {
    if (!writable && map->def_json == NULL) {
      st = MXL_ERR_UNKNOWN;        /* §1.6: continuous readers need flow_def.json */
      goto fail;
    }
    st = map_channels (map);
  } else {
    st = MXL_ERR_UNKNOWN;
  }
  if (st != MXL_STATUS_OK)
    goto fail;
  if (map->def_json == NULL)
    map->def_json = g_strdup ("");
  return MXL_STATUS_OK;

fail:
  mxl_flow_map_close (map);
  return st;
}

void
mxl_flow_map_layout (const MxlFlowMap *map, MxlFlowLayout *out)
{
  const mxlFlowInfo *info = &map->data->info;

  memset (out, 0, sizeof *out);
  out->format = (mxlDataFormat) info->config.common.format;
  out->rate = info->config.common.grainRate;
  out->sync_batch_hint = info->config.common.maxSyncBatchSizeHint;
  out->commit_batch_hint = info->config.common.maxCommitBatchSizeHint;
  if (map->discrete) {
    out->grain_count = map->grain_count;
    memcpy (out->slice_sizes, info->config.discrete.sliceSizes, sizeof out->slice_sizes);
    out->total_slices = map->total_slices;
    out->grain_size = map->grain_size;
  } else {
    out->channel_count = map->channel_count;
    out->buffer_length = map->buffer_length;
    out->sample_word_size = map->word_size;
  }
}

char *
mxl_flow_dir_path (mxlInstance instance, const char *lower_id)
{
  char *name = g_strconcat (lower_id, MXL_FLOW_DIR_SUFFIX, NULL);
  char *dir = g_build_filename (instance->domain, name, NULL);

  g_free (name);
  return dir;
}

static int
remove_entry (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  return remove (path) == 0 || errno == ENOENT ? 0 : -1;
}

gboolean
mxl_remove_tree (const char *path)
{
  return nftw (path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0;
}
