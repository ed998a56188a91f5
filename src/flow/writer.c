/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Flow writers (docs/flow-format.md §1.4, §1.5, §1.9, §1.10, §4.2, §4.3). */
#include <math.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <json-glib/json-glib.h>

#include <mxl/flow-ext.h>
#include <mxl/time.h>

#include "flow/flow-priv.h"
#include "flow/ring.h"

/* Writer options (§1.9). Malformed options give MXL_ERR_UNKNOWN as in the
 * reference (spec cases 6 and 7). */
static mxlStatus
parse_options (const char *options, uint32_t *commit_hint, uint32_t *sync_hint)
{
  JsonParser *parser;
  JsonObject *obj;
  JsonNode *node;
  mxlStatus st = MXL_ERR_UNKNOWN;
  gboolean have_commit = FALSE;
  double v;

  if (options == NULL || options[0] == '\0')
    return MXL_STATUS_OK;
  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, options, -1, NULL)
      || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser))) {
    g_warning ("flow writer options: not a JSON object");
    goto out;
  }
  obj = json_node_get_object (json_parser_get_root (parser));
  node = json_object_get_member (obj, "maxCommitBatchSizeHint");
  if (node != NULL) {
    if (!JSON_NODE_HOLDS_VALUE (node) || (json_node_get_value_type (node) != G_TYPE_INT64
            && json_node_get_value_type (node) != G_TYPE_DOUBLE)
        || !((v = json_node_get_double (node)) >= 1) || v > G_MAXUINT32) {
      g_warning ("flow writer options: maxCommitBatchSizeHint must be a number >= 1");
      goto out;
    }
    *commit_hint = (uint32_t) v;
    have_commit = TRUE;
  }
  node = json_object_get_member (obj, "maxSyncBatchSizeHint");
  if (node != NULL) {
    if (!JSON_NODE_HOLDS_VALUE (node) || (json_node_get_value_type (node) != G_TYPE_INT64
            && json_node_get_value_type (node) != G_TYPE_DOUBLE)
        || !((v = json_node_get_double (node)) >= 1) || v > G_MAXUINT32) {
      g_warning ("flow writer options: maxSyncBatchSizeHint must be a number >= 1");
      goto out;
    }
    *sync_hint = (uint32_t) v;
    /* §1.9 [Q] kept: without a commit hint the sync hint is checked against 1 */
    if (have_commit && *sync_hint % *commit_hint != 0) {
      g_warning ("flow writer options: maxSyncBatchSizeHint %u is not a multiple of "
          "maxCommitBatchSizeHint %u", *sync_hint, *commit_hint);
      goto out;
    }
  }
  st = MXL_STATUS_OK;
out:
  g_object_unref (parser);
  return st;
}

/* The history that gives a discrete flow @grains slots (§2.5: N = floor(D
 * num / (1e9 den)); D = ceil(grains 1e9 den / num) gives exactly @grains
 * for any rate up to 1 GHz). 0 when it does not fit. */
static uint64_t
history_for_grains (const MxlFlowDef *def, uint32_t grains)
{
  unsigned __int128 d;

  if (def->rate.numerator <= 0 || def->rate.denominator <= 0)
    return 0;
  d = ((unsigned __int128) grains * 1000000000u * (uint64_t) def->rate.denominator
      + (uint64_t) def->rate.numerator - 1) / (uint64_t) def->rate.numerator;
  return d > G_MAXINT64 ? 0 : (uint64_t) d;
}

/* @grains: G_MAXUINT32 = the domain's history as is (mxlCreateFlowWriter);
 * 0 = the domain's, at least MXL_FLOW_MIN_GRAIN_COUNT; else exactly. */
static mxlStatus
create_writer (mxlInstance instance, char const *flowDef, char const *options,
    uint32_t grains, mxlFlowWriter *writer, mxlFlowConfigInfo *configInfo,
    bool *created)
{
  MxlFlowDef def;
  GError *error = NULL;
  uint32_t commit_hint, sync_hint;
  uint64_t history_ns;
  mxlFlowWriter w;
  gboolean was_created = FALSE;
  mxlStatus st;

  if (instance == NULL || flowDef == NULL || writer == NULL)
    return MXL_ERR_INVALID_ARG;
  mxl_last_error_clear ();
  if (!mxl_flow_def_parse (flowDef, &def, &error)) {
    g_warning ("%s", error->message);
    /* names the field and its range, e.g. "channel_count: ... in 1 … 1024" */
    mxl_last_error_set ("%s", error->message);
    g_error_free (error);
    return MXL_ERR_INVALID_ARG;
  }
  history_ns = instance->history_ns;
  if (grains != G_MAXUINT32 && mxlIsDiscreteDataFormat (def.format)) {
    if (grains == 0 && mxl_flow_def_grain_count (&def, history_ns) <
        MXL_FLOW_MIN_GRAIN_COUNT)
      grains = MXL_FLOW_MIN_GRAIN_COUNT;
    if (grains != 0 && (history_ns = history_for_grains (&def, grains)) == 0) {
      g_warning ("flow definition: a ring of %u grains at %" G_GINT64_FORMAT
          "/%" G_GINT64_FORMAT " Hz is too long", grains, def.rate.numerator,
          def.rate.denominator);
      return MXL_ERR_INVALID_ARG;
    }
  }
  commit_hint = sync_hint = mxl_flow_def_default_batch_hint (&def);
  st = parse_options (options, &commit_hint, &sync_hint);
  if (st != MXL_STATUS_OK)
    return st;

  pthread_mutex_lock (&instance->lock);
  w = g_hash_table_lookup (instance->writers, def.id_text);
  if (w != NULL) {
    w->refs++;
  } else {
    w = g_new0 (struct mxlFlowWriter_t, 1);
    w->instance = instance;
    memcpy (w->id, def.id_text, sizeof w->id);
    w->refs = 1;
    w->watch = -1;
    st = mxl_flow_create (instance, &def, flowDef, history_ns,
        commit_hint, sync_hint, &w->map, &was_created);
    if (st != MXL_STATUS_OK) {
      g_free (w);
      pthread_mutex_unlock (&instance->lock);
      return st;
    }
    g_hash_table_insert (instance->writers, w->id, w);
    if (w->map.discrete)
      mxl_instance_watch_access (instance, w);
  }
  pthread_mutex_unlock (&instance->lock);

  *writer = w;
  if (configInfo)
    memcpy (configInfo, &w->map.data->info.config, sizeof *configInfo);
  if (created)
    *created = was_created;
  return MXL_STATUS_OK;
}

mxlStatus
mxlCreateFlowWriter (mxlInstance instance, char const *flowDef,
    char const *options, mxlFlowWriter *writer, mxlFlowConfigInfo *configInfo,
    bool *created)
{
  return create_writer (instance, flowDef, options, G_MAXUINT32, writer,
      configInfo, created);
}

mxlStatus
mxlCreateFlowWriterWithGrainCount (mxlInstance instance, char const *flowDef,
    char const *options, uint32_t in_grainCount, mxlFlowWriter *writer,
    mxlFlowConfigInfo *configInfo, bool *created)
{
  return create_writer (instance, flowDef, options,
      in_grainCount == G_MAXUINT32 ? G_MAXUINT32 - 1 : in_grainCount, writer,
      configInfo, created);
}

/* Called with the instance lock held, the writer already out of the table. */
void
mxl_flow_writer_free (mxlFlowWriter writer)
{
  if (writer->watch >= 0)
    mxl_instance_unwatch_access (writer->instance, writer);
  /* §1.10: if no other writer anywhere holds LOCK_SH, the flow goes away;
   * only if the directory still holds our `data` (not a flow recreated
   * after a garbage collection) */
  if (writer->map.data_fd >= 0 && flock (writer->map.data_fd, LOCK_EX | LOCK_NB) == 0) {
    struct stat mine, now;

    if (fstat (writer->map.data_fd, &mine) == 0 && stat (writer->map.data_path, &now) == 0
        && mine.st_ino == now.st_ino && mine.st_dev == now.st_dev
        && !mxl_remove_tree (writer->map.dir))
      g_warning ("%s: could not delete the flow completely", writer->map.dir);
  }
  mxl_flow_map_close (&writer->map);
  g_free (writer);
}

mxlStatus
mxlReleaseFlowWriter (mxlInstance instance, mxlFlowWriter writer)
{
  if (instance == NULL || writer == NULL)
    return MXL_ERR_INVALID_ARG;
  pthread_mutex_lock (&instance->lock);
  if (writer->instance != instance
      || g_hash_table_lookup (instance->writers, writer->id) != writer) {
    pthread_mutex_unlock (&instance->lock);
    return MXL_ERR_INVALID_FLOW_WRITER;
  }
  if (--writer->refs == 0) {
    g_hash_table_remove (instance->writers, writer->id);
    mxl_flow_writer_free (writer);
  }
  pthread_mutex_unlock (&instance->lock);
  return MXL_STATUS_OK;
}

/* ---- grains (§4.2) ---- */

static mxlStatus
check_discrete (mxlFlowWriter writer)
{
  if (writer == NULL)
    return MXL_ERR_INVALID_ARG;
  return writer->map.discrete ? MXL_STATUS_OK : MXL_ERR_INVALID_FLOW_WRITER;
}

mxlStatus
mxlFlowWriterGetGrainInfo (mxlFlowWriter writer, uint64_t index,
    mxlGrainInfo *grain)
{
  mxlStatus st = check_discrete (writer);

  if (st != MXL_STATUS_OK)
    return st;
  if (grain == NULL)
    return MXL_ERR_INVALID_ARG;
  memcpy (grain, writer->map.grains[index % writer->map.grain_count], sizeof *grain);
  return MXL_STATUS_OK;
}

mxlStatus
mxlFlowWriterOpenGrain (mxlFlowWriter writer, uint64_t index,
    mxlGrainInfo *grain, uint8_t **payload)
{
  mxlStatus st = check_discrete (writer);
  uint8_t *slot;

  if (st != MXL_STATUS_OK)
    return st;
  if (grain == NULL || payload == NULL)
    return MXL_ERR_INVALID_ARG;
  slot = writer->map.grains[index % writer->map.grain_count];
  /* store the index only: validSlices and flags survive (§4.2, §6.3) */
  __atomic_store_n (&((mxlGrainInfo *) slot)->index, index, __ATOMIC_RELEASE);
  memcpy (grain, slot, sizeof *grain);
  *payload = slot + MXL_GRAIN_PAYLOAD_OFFSET;
  writer->grain_open = TRUE;
  writer->grain_index = index;
  return MXL_STATUS_OK;
}

mxlStatus
mxlFlowWriterCancelGrain (mxlFlowWriter writer)
{
  mxlStatus st = check_discrete (writer);

  if (st == MXL_STATUS_OK)
    writer->grain_open = FALSE;
  return st;
}

mxlStatus
mxlFlowWriterCommitGrain (mxlFlowWriter writer, mxlGrainInfo const *grain)
{
  mxlStatus st = check_discrete (writer);
  MxlFlowMap *map;
  mxlGrainInfo *slot;

  if (st != MXL_STATUS_OK)
    return st;
  map = &writer->map;
  if (grain == NULL || !writer->grain_open || grain->index != writer->grain_index
      || grain->validSlices > map->total_slices)
    return MXL_ERR_INVALID_ARG;

  /* our order (§4.2): slot header, then H, so H never points at a stale header */
  slot = (mxlGrainInfo *) map->grains[grain->index % map->grain_count];
  slot->version = 1;
  slot->size = sizeof (mxlGrainInfo);
  slot->grainSize = map->grain_size;
  slot->totalSlices = map->total_slices;
  __atomic_store_n (&slot->index, grain->index, __ATOMIC_RELAXED);
  __atomic_store_n (&slot->flags, grain->flags, __ATOMIC_RELEASE);
  __atomic_store_n (&slot->validSlices, grain->validSlices, __ATOMIC_RELEASE);
  __atomic_store_n (&map->data->info.runtime.headIndex, grain->index, __ATOMIC_RELEASE);
  __atomic_store_n (&map->data->info.runtime.lastWriteTime, mxlGetTime (), __ATOMIC_RELAXED);
  if (grain->validSlices == map->total_slices)
    writer->grain_open = FALSE;
  mxl_flow_signal (map->data);
  return MXL_STATUS_OK;
}

/* ---- samples (§4.3, §5.5 convention (A)) ---- */

static mxlStatus
check_continuous (mxlFlowWriter writer)
{
  if (writer == NULL)
    return MXL_ERR_INVALID_ARG;
  return writer->map.discrete ? MXL_ERR_INVALID_FLOW_WRITER : MXL_STATUS_OK;
}

mxlStatus
mxlFlowWriterGetMaxWriteLengthSamples (mxlFlowWriter writer, size_t *maxWriteLength)
{
  mxlStatus st = check_continuous (writer);

  if (st != MXL_STATUS_OK)
    return st;
  if (maxWriteLength == NULL)
    return MXL_ERR_INVALID_ARG;
  *maxWriteLength = writer->map.buffer_length / 2;
  return MXL_STATUS_OK;
}

mxlStatus
mxlFlowWriterOpenSamples (mxlFlowWriter writer, uint64_t index, size_t count,
    mxlMutableWrappedMultiBufferSlice *payloadBuffersSlices)
{
  mxlStatus st = check_continuous (writer);

  if (st != MXL_STATUS_OK)
    return st;
  if (payloadBuffersSlices == NULL || count == 0 || count > writer->map.buffer_length / 2)
    return MXL_ERR_INVALID_ARG;
  mxl_samples_slices (&writer->map, index, count, payloadBuffersSlices);
  writer->samples_open = TRUE;
  writer->samples_index = index;
  return MXL_STATUS_OK;
}

mxlStatus
mxlFlowWriterCancelSamples (mxlFlowWriter writer)
{
  mxlStatus st = check_continuous (writer);

  if (st == MXL_STATUS_OK)
    writer->samples_open = FALSE;
  return st;
}

mxlStatus
mxlFlowWriterCommitSamples (mxlFlowWriter writer)
{
  mxlStatus st = check_continuous (writer);
  MxlFlowData *data;

  if (st != MXL_STATUS_OK)
    return st;
  /* §4.3 [Q] not reproduced: no open range, no head change */
  if (!writer->samples_open)
    return MXL_ERR_INVALID_ARG;
  data = writer->map.data;
  __atomic_store_n (&data->info.runtime.headIndex, writer->samples_index, __ATOMIC_RELEASE);
  __atomic_store_n (&data->info.runtime.lastWriteTime, mxlGetTime (), __ATOMIC_RELAXED);
  writer->samples_open = FALSE;
  /* waking on every commit is compatible (§4.3) and never late */
  mxl_flow_signal (data);
  return MXL_STATUS_OK;
}

/* ---- internal accessors (flow-internal.h) ---- */

mxlStatus
mxl_flow_writer_get_layout (mxlFlowWriter writer, MxlFlowLayout *out)
{
  if (writer == NULL || out == NULL)
    return MXL_ERR_INVALID_ARG;
  mxl_flow_map_layout (&writer->map, out);
  return MXL_STATUS_OK;
}

uint8_t *
mxl_flow_writer_grain_slot (mxlFlowWriter writer, uint32_t slot, size_t *out_length)
{
  if (writer == NULL || !writer->map.discrete || slot >= writer->map.grain_count)
    return NULL;
  if (out_length)
    *out_length = writer->map.grain_len;
  return writer->map.grains[slot];
}

uint8_t *
mxl_flow_writer_channels (mxlFlowWriter writer, size_t *out_length)
{
  if (writer == NULL || writer->map.discrete)
    return NULL;
  if (out_length)
    *out_length = writer->map.channels_len;
  return writer->map.channels;
}

const char *
mxl_flow_writer_get_def (mxlFlowWriter writer)
{
  return writer != NULL ? writer->map.def_json : NULL;
}
