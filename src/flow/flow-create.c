/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Creating a flow: build every file under a temporary name, then publish it
 * with one rename (docs/flow-format.md §1.4, values of §3.12).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mxl/flow-ext.h>
#include <mxl/time.h>

#include "flow/flow-priv.h"

/* Creates @path zero-filled with @size bytes, locks it LOCK_SH and maps it
 * read-write (§1.4 step 5). On failure errno is kept. */
static gboolean
create_segment (const char *path, size_t size, int *out_fd, void **out_map)
{
  int fd, err;
  void *p;

  fd = open (path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0664);
  if (fd < 0)
    return FALSE;
  err = posix_fallocate (fd, 0, (off_t) size);
  if (err != 0) {
    close (fd);
    errno = err;
    return FALSE;
  }
  if (flock (fd, LOCK_SH | LOCK_NB) != 0)
    goto fail;
  p = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    goto fail;
  *out_fd = fd;
  *out_map = p;
  return TRUE;

fail:
  err = errno;
  close (fd);
  errno = err;
  return FALSE;
}

static gboolean
write_file (const char *path, const char *bytes, size_t len)
{
  int fd = open (path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
  size_t done = 0;

  if (fd < 0)
    return FALSE;
  while (done < len) {
    ssize_t n = write (fd, bytes + done, len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int err = n < 0 ? errno : EIO;
      close (fd);
      errno = err;
      return FALSE;
    }
    done += (size_t) n;
  }
  return close (fd) == 0;
}

static void
fill_flow_info (MxlFlowData *data, const MxlFlowDef *def, uint32_t n,
    uint32_t l, uint32_t commit_hint, uint32_t sync_hint, uint64_t inode)
{
  mxlFlowInfo *info = &data->info;
  uint64_t now = mxlGetTime ();

  info->version = 1;
  info->size = sizeof (mxlFlowInfo);
  memcpy (info->config.common.id, def->id, 16);
  info->config.common.format = def->format;
  info->config.common.flags = 0;
  info->config.common.grainRate = def->rate;
  info->config.common.maxCommitBatchSizeHint = commit_hint;
  info->config.common.maxSyncBatchSizeHint = sync_hint;
  info->config.common.payloadLocation = MXL_PAYLOAD_LOCATION_HOST_MEMORY;
  info->config.common.deviceIndex = -1;
  if (mxlIsDiscreteDataFormat (def->format)) {
    memcpy (info->config.discrete.sliceSizes, def->slice_sizes, sizeof def->slice_sizes);
    info->config.discrete.grainCount = n;
  } else {
    info->config.continuous.channelCount = def->channel_count;
    info->config.continuous.bufferLength = l;
  }
  info->runtime.headIndex = 0;
  info->runtime.lastWriteTime = now;
  info->runtime.lastReadTime = now;
  data->state.inode = inode;
  data->state.syncCounter = 0;
}

/* Builds the flow's files in @map (whose dir is the temp dir). Sets errno
 * on failure. */
static gboolean
build_files (MxlFlowMap *map, const MxlFlowDef *def, const char *def_json,
    uint32_t n, uint32_t l, uint32_t commit_hint, uint32_t sync_hint)
{
  char *path;
  struct stat st;
  void *p;
  gboolean ok;

  path = g_build_filename (map->dir, "flow_def.json", NULL);
  ok = write_file (path, def_json, strlen (def_json));
  g_free (path);
  if (!ok)
    return FALSE;

  if (map->discrete) {
    path = g_build_filename (map->dir, "access", NULL);
    ok = write_file (path, "", 0);
    g_free (path);
    if (!ok)
      return FALSE;
  }

  if (!create_segment (map->data_path, sizeof (MxlFlowData), &map->data_fd, &p))
    return FALSE;
  map->data = p;
  if (fstat (map->data_fd, &st) != 0)
    return FALSE;
  fill_flow_info (map->data, def, n, l, commit_hint, sync_hint, (uint64_t) st.st_ino);

  if (map->discrete) {
    path = g_build_filename (map->dir, "grains", NULL);
    ok = mkdir (path, 0777) == 0;
    g_free (path);
    if (!ok)
      return FALSE;
    map->grain_count = n;
    map->grain_size = def->grain_size;
    map->total_slices = (uint16_t) def->total_slices;
    map->grain_len = MXL_GRAIN_PAYLOAD_OFFSET + (size_t) def->grain_size;
    map->grain_fds = g_new (int, n);
    map->grains = g_new0 (uint8_t *, n);
    for (uint32_t i = 0; i < n; i++)
      map->grain_fds[i] = -1;
    for (uint32_t i = 0; i < n; i++) {
      mxlGrainInfo *g;

      path = g_strdup_printf ("%s/grains/data.%u", map->dir, i);
      ok = create_segment (path, map->grain_len, &map->grain_fds[i], &p);
      g_free (path);
      if (!ok)
        return FALSE;
      map->grains[i] = p;
      g = p;
      g->version = 1;
      g->size = sizeof (mxlGrainInfo);
      g->index = 0;
      g->flags = 0;
      g->grainSize = def->grain_size;
      g->totalSlices = (uint16_t) def->total_slices;
      g->validSlices = 0;
    }
  } else {
    map->channel_count = def->channel_count;
    map->buffer_length = l;
    map->word_size = def->sample_word_size;
    map->channels_len = (size_t) def->channel_count * l * def->sample_word_size;
    path = g_build_filename (map->dir, "channels", NULL);
    ok = create_segment (path, map->channels_len, &map->channels_fd, &p);
    g_free (path);
    if (!ok)
      return FALSE;
    map->channels = p;
  }
  return chmod (map->dir, 0755) == 0;
}

/* Makes an existing flow's geometry must match @def (§7.3: we compare). */
static gboolean
geometry_matches (const MxlFlowMap *map, const MxlFlowDef *def)
{
  const mxlFlowInfo *info = &map->data->info;

  if (info->config.common.format != (uint32_t) def->format
      || info->config.common.grainRate.numerator != def->rate.numerator
      || info->config.common.grainRate.denominator != def->rate.denominator)
    return FALSE;
  if (map->discrete)
    return memcmp (info->config.discrete.sliceSizes, def->slice_sizes, sizeof def->slice_sizes) == 0
        && map->total_slices == def->total_slices && map->grain_size == def->grain_size;
  return map->channel_count == def->channel_count && map->word_size == def->sample_word_size;
}

static mxlStatus
open_existing (const char *dir, const MxlFlowDef *def, MxlFlowMap *out)
{
  mxlStatus st = mxl_flow_map_open (out, dir, TRUE);

  if (st != MXL_STATUS_OK)
    return st;
  if (!geometry_matches (out, def)) {
    g_warning ("flow %s exists with another format or geometry", def->id_text);
    mxl_flow_map_close (out);
    return MXL_ERR_CONFLICT;
  }
  return MXL_STATUS_OK;
}

mxlStatus
mxl_flow_create (mxlInstance instance, const MxlFlowDef *def,
    const char *def_json, uint64_t history_ns, uint32_t commit_hint,
    uint32_t sync_hint, MxlFlowMap *out, gboolean *created)
{
  char *final_dir = mxl_flow_dir_path (instance, def->id_text);
  uint32_t n = mxl_flow_def_grain_count (def, history_ns);
  uint32_t l = mxl_flow_def_buffer_length (def, history_ns);
  mxlStatus st = MXL_ERR_UNKNOWN;

  mxl_last_error_clear ();
  /* §7.3: N = 0 (or L too small) would make an unusable flow */
  if (mxlIsDiscreteDataFormat (def->format) ? n == 0 : l < 2) {
    /* N >= 1 needs rate >= 1e9 / D, L0 >= 1 needs rate >= 5e8 / D (§2.5) */
    char *why = g_strdup_printf ("flow definition: %s: rate %" G_GINT64_FORMAT
        "/%" G_GINT64_FORMAT " is too low for a %" G_GUINT64_FORMAT " ns "
        "history (at least %g per second)",
        def->format == MXL_DATA_FORMAT_AUDIO ? "sample_rate" : "grain_rate",
        def->rate.numerator, def->rate.denominator, history_ns,
        (mxlIsDiscreteDataFormat (def->format) ? 1e9 : 5e8) / (double) history_ns);

    g_warning ("%s", why);
    mxl_last_error_set ("%s", why);
    g_free (why);
    g_free (final_dir);
    return MXL_ERR_INVALID_ARG;
  }

  /* flow-ext.h: a bounded ring, refused before anything is allocated */
  {
    gboolean discrete = mxlIsDiscreteDataFormat (def->format);
    uint64_t bytes = discrete ?
        (uint64_t) n * (MXL_GRAIN_PAYLOAD_OFFSET + (uint64_t) def->grain_size) :
        (uint64_t) l * def->channel_count * def->sample_word_size;
    char *why = NULL;

    if (discrete && n > MXL_FLOW_MAX_GRAIN_COUNT)
      why = g_strdup_printf ("flow definition: grain_rate: a ring of %u "
          "grains (%" G_GUINT64_FORMAT " ns at %" G_GINT64_FORMAT "/%"
          G_GINT64_FORMAT " per second) is more than the limit of %u grains",
          n, history_ns, def->rate.numerator, def->rate.denominator,
          (guint) MXL_FLOW_MAX_GRAIN_COUNT);
    else if (bytes > MXL_FLOW_MAX_RING_BYTES)
      why = g_strdup_printf ("flow definition: %s: a ring of %u %s at %"
          G_GINT64_FORMAT "/%" G_GINT64_FORMAT " per second needs %"
          G_GUINT64_FORMAT " bytes, more than the limit of %" G_GUINT64_FORMAT,
          discrete ? "grain_rate" : "sample_rate", discrete ? n : l,
          discrete ? "grains" : "samples", def->rate.numerator,
          def->rate.denominator, bytes, (guint64) MXL_FLOW_MAX_RING_BYTES);
    if (why != NULL) {
      g_warning ("%s", why);
      mxl_last_error_set ("%s", why);
      g_free (why);
      g_free (final_dir);
      return MXL_ERR_INVALID_ARG;
    }
  }

  /* a flow being deleted by its last writer may vanish under us: retry */
  for (int attempt = 0; attempt < 20; attempt++) {
    char *tmp = g_strdup_printf ("%s/" MXL_FLOW_TMP_PREFIX "XXXXXXXXXXXXXXXX", instance->domain);

    if (g_file_test (final_dir, G_FILE_TEST_IS_DIR)) {
      g_free (tmp);
      st = open_existing (final_dir, def, out);
      if (st != MXL_ERR_FLOW_NOT_FOUND) {
        *created = FALSE;
        break;
      }
      g_usleep (1000);
      continue;
    }

    if (mkdtemp (tmp) == NULL) {
      int err = errno;
      st = mxl_status_from_errno (err);
      if (st == MXL_ERR_FLOW_NOT_FOUND)
        st = MXL_ERR_UNKNOWN;
      g_warning ("%s: cannot create a flow: %s", instance->domain, g_strerror (err));
      mxl_last_error_set_errno (err, "%s: cannot create flow %s", instance->domain,
          def->id_text);
      g_free (tmp);
      break;
    }
    mxl_flow_map_init (out);
    out->dir = tmp;
    out->data_path = g_build_filename (tmp, "data", NULL);
    out->writable = TRUE;
    out->discrete = mxlIsDiscreteDataFormat (def->format);
    if (!build_files (out, def, def_json, n, l, commit_hint, sync_hint)) {
      int err = errno;
      g_warning ("%s: cannot build flow %s: %s", instance->domain, def->id_text, g_strerror (err));
      mxl_last_error_set_errno (err, "%s: cannot build flow %s", instance->domain,
          def->id_text);
      st = mxl_status_from_errno (err);
      if (st == MXL_ERR_FLOW_NOT_FOUND)
        st = MXL_ERR_UNKNOWN;
      mxl_remove_tree (tmp);
      mxl_flow_map_close (out);
      break;
    }
    if (renameat2 (AT_FDCWD, tmp, AT_FDCWD, final_dir, RENAME_NOREPLACE) == 0) {
      g_free (out->dir);
      g_free (out->data_path);
      out->dir = g_strdup (final_dir);
      out->data_path = g_build_filename (final_dir, "data", NULL);
      out->def_json = g_strdup (def_json);
      *created = TRUE;
      st = MXL_STATUS_OK;
      break;
    }
    {
      int err = errno;
      mxl_remove_tree (tmp);
      mxl_flow_map_close (out);
      if (err != EEXIST && err != ENOTEMPTY) {
        g_warning ("%s: cannot publish flow %s: %s", instance->domain, def->id_text, g_strerror (err));
        mxl_last_error_set_errno (err, "%s: cannot publish flow %s",
            instance->domain, def->id_text);
        st = mxl_status_from_errno (err);
        if (st == MXL_ERR_FLOW_NOT_FOUND)
          st = MXL_ERR_UNKNOWN;
        break;
      }
    }
    /* lost the race with another creator: open theirs on the next pass */
  }
  if (st == MXL_ERR_FLOW_NOT_FOUND)
    st = MXL_ERR_UNKNOWN;
  g_free (final_dir);
  return st;
}
