/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Two-path targets, seamless protection (the idea of SMPTE ST 2022-7;
 * docs/fabrics-engine.md "Two paths", docs/wire-format.md §11.9).
 *
 * The application's target is the first path (A): its initiators write
 * straight into the flow's grain slots, as with one path. The second path
 * (B) is a whole target of its own (endpoint, CQ, progress thread, own
 * fabric and domain), set up by mxl_target_setup() on a private ring: a
 * flow of the same definition and history in a private domain
 * (<mxl/flow-ext.h>), so every check of its completions is the write
 * ingress's (protocol_write.c), the same code as A's. Only where a
 * validated grain goes differs, chosen at setup (MxlTargetSinkOps):
 *
 *  - A's sink commits a grain unless the merge already holds that index
 *    (then a duplicate on A) or a newer one in its slot (late on A);
 *  - B's sink, under A's lock, does the same check and copies the private
 *    slot into the flow's slot and commits it there, then queues the read
 *    result in A's result ring and wakes A's readers.
 *
 * The merge (one record per slot of the flow, guarded by A's lock) never
 * waits for a second copy: the first valid one is committed at once.
 */
#include "fabrics/target.h"

#include <string.h>

#include <mxl/flow-ext.h>

#include "fabrics/wire/immdata.h"
#include "fabrics/setup.h"
#include "flow/flow-priv.h"

/* The merge's record of one slot of the flow: the grain index it holds. */
typedef struct SlotRecord {
  uint64_t index;
  uint16_t slices;               /* valid slices committed */
  uint8_t first;                 /* the path that committed it first */
  gboolean valid;                /* an index was committed in this slot */
  gboolean both;                 /* the other path's copy arrived too */
} SlotRecord;

typedef struct PathCounters {
  uint64_t grains, bytes, duplicates, recovered, late;
} PathCounters;

/* What a validated copy of a grain is to the merge. */
typedef enum {
  COPY_NEW,                      /* an index the slot does not hold: commit */
  COPY_MORE,                     /* the slot's index, more slices: commit */
  COPY_DUPLICATE,                /* the slot's index, nothing more */
  COPY_LATE,                     /* older than the slot's grain or the ring */
} CopyKind;

struct MxlTargetPaths {
  MxlTarget *a;                  /* the first path: the application's target */
  MxlTarget *b;                  /* the second path, owned */
  mxlPrivateDomain domain;       /* the private ring's domain, owned */
  mxlInstance mxl;               /* its instance, owned */
  mxlFlowWriter ring;            /* the private ring B's initiators write into */
  /* below: guarded by A's lock */
  gboolean ready;                /* both paths set up: B may copy into A */
  SlotRecord *slots;
  guint n_slots;
  gboolean have_max;
  uint64_t max_index;            /* the newest index committed */
  gboolean eos_seen;             /* an end-of-stream notice was queued */
  PathCounters path[2];
};

/* Payload bytes of @slices valid slices. */
static uint64_t
slice_bytes (const MxlTarget *a, uint16_t slices)
{
  const MxlGrainLayout *l = &a->base.layout;

  return l->total_slices == 0 ? 0 : l->grain_size * slices / l->total_slices;
}

/* The one rule of both paths (A's lock held): counts a duplicate or a late
 * copy, says what to do with the others. */
static CopyKind
classify (MxlTargetPaths *p, guint path, uint64_t index, uint16_t slices)
{
  SlotRecord *r = &p->slots[index % p->n_slots];

  if (r->valid && r->index == index) {
    if (r->first != path)
      r->both = TRUE;
    if (slices > r->slices)
      return COPY_MORE;
    p->path[path].duplicates++;
    return COPY_DUPLICATE;
  }
  if ((r->valid && r->index > index)
      || (p->have_max && index + p->n_slots <= p->max_index)) {
    p->path[path].late++;
    return COPY_LATE;
  }
  return COPY_NEW;
}

/* Records a committed copy (A's lock held). A record replaced whose index
 * came on one path only was recovered by that path. */
static void
record (MxlTargetPaths *p, guint path, CopyKind kind, uint64_t index, uint16_t slices)
{
  SlotRecord *r = &p->slots[index % p->n_slots];

  if (kind == COPY_MORE) {
    p->path[path].bytes += slice_bytes (p->a, slices) - slice_bytes (p->a, r->slices);
    r->slices = slices;
    return;
  }
  if (r->valid && !r->both)
    p->path[r->first].recovered++;
  *r = (SlotRecord) { .index = index, .slices = slices, .first = (uint8_t) path,
    .valid = TRUE };
  p->path[path].grains++;
  p->path[path].bytes += slice_bytes (p->a, slices);
  if (!p->have_max || index > p->max_index)
    p->max_index = index;
  p->have_max = TRUE;
}

/* --- the first path's sink (its progress thread, its lock held) --- */

static mxlStatus
first_commit (MxlTarget *a, uint64_t index, uint16_t slices)
{
  MxlTargetPaths *p = a->paths;
  CopyKind kind = classify (p, 0, index, slices);
  mxlStatus st;

  if (kind == COPY_DUPLICATE || kind == COPY_LATE)
    return MXL_ERR_NOT_READY;
  st = mxl_target_commit_own (a, index, slices);
  if (st == MXL_STATUS_OK)
    record (p, 0, kind, index, slices);
  return st;
}

/* One end-of-stream notice of the two (A's lock held): the first. */
static void
push_once (MxlTargetPaths *p, mxlStatus st, uint64_t index, uint64_t count)
{
  if (st == MXL_FABRICS_EXT_STATUS_END_OF_STREAM) {
    if (p->eos_seen)
      return;
    p->eos_seen = TRUE;
  }
  mxl_target_push_result (p->a, st, index, count);
}

static void
first_push (MxlTarget *a, mxlStatus st, uint64_t index, uint64_t count)
{
  push_once (a->paths, st, index, count);
}

static const MxlTargetSinkOps first_sink = {
  .commit = first_commit,
  .push = first_push,
};

/* --- the second path's sink (its progress thread, its own lock held) --- */

/* Whether the flow's slot already holds the header of a grain newer than
 * @index (committed, or a write of the first path still landing). */
static gboolean
flow_slot_newer (MxlTarget *a, uint32_t slot, uint64_t index)
{
  uint64_t held = 0;

  return mxl_grain_header_check (a->base.regions[slot].base, slot, a->base.grain_count,
      (uint32_t) a->base.layout.grain_size, a->base.layout.total_slices, &held)
      == MXL_HEADER_OK && held > index;
}

/* Validated in the private ring by the write ingress: copied into the flow
 * and committed there when the merge takes it. Returns NOT_READY (the
 * result, if any, is A's) or the flow writer's failure. */
static mxlStatus
second_commit (MxlTarget *b, uint64_t index, uint16_t slices)
{
  MxlTargetPaths *p = b->paths;
  MxlTarget *a = p->a;
  uint32_t slot = (uint32_t) (index % p->n_slots);
  mxlStatus st = MXL_ERR_NOT_READY;
  CopyKind kind;

  mxl_lock (&a->base.lock);
  if (!p->ready) {
    p->path[1].late++;
    goto out;
  }
  kind = classify (p, 1, index, slices);
  if (kind == COPY_DUPLICATE || kind == COPY_LATE)
    goto out;
  if (flow_slot_newer (a, slot, index)) {
    p->path[1].late++;
    goto out;
  }
  memcpy (a->base.regions[slot].base, b->base.regions[slot].base, a->base.regions[slot].len);
  st = mxl_target_commit_own (a, index, slices);
  if (st != MXL_STATUS_OK) {
    a->stats.commitFailures++;
    goto out;
  }
  record (p, 1, kind, index, slices);
  a->stats.grainsReceived++;
  mxl_target_push_result (a, MXL_STATUS_OK, index, 0);
  mxl_endpoint_wake (&a->base);
  st = MXL_ERR_NOT_READY;
out:
  mxl_unlock (&a->base.lock);
  return st;
}

/* The second path's read results: its grains went to A in second_commit();
 * its errors are in its own counters (GetPathStats); only an end-of-stream
 * notice goes on, the first of the two. */
static void
second_push (MxlTarget *b, mxlStatus st, uint64_t index, uint64_t count)
{
  MxlTargetPaths *p = b->paths;

  if (st != MXL_FABRICS_EXT_STATUS_END_OF_STREAM)
    return;
  mxl_lock (&p->a->base.lock);
  if (p->ready) {
    push_once (p, st, index, count);
    mxl_endpoint_wake (&p->a->base);
  }
  mxl_unlock (&p->a->base.lock);
}

static const MxlTargetSinkOps second_sink = {
  .commit = second_commit,
  .push = second_push,
};

/* --- setup and teardown --- */

/* The private ring: a flow of @writer's definition in a private domain
 * whose history is @writer's domain's, so its ring has the same slots. */
static mxlStatus
open_ring (MxlTargetPaths *p, mxlFlowWriter writer)
{
  const char *def = mxl_flow_writer_get_def (writer);
  mxlStatus st;

  if (def == NULL)
    return MXL_ERR_INVALID_ARG;
  st = mxlPrivateDomainCreate (NULL, &p->domain);
  if (st != MXL_STATUS_OK)
    return st;
  if (!mxl_domain_write_history (mxlPrivateDomainGetPath (p->domain),
          writer->instance->history_ns))
    return MXL_ERR_UNKNOWN;
  p->mxl = mxlCreateInstance (mxlPrivateDomainGetPath (p->domain), NULL);
  if (p->mxl == NULL)
    return MXL_ERR_UNKNOWN;
  st = mxlCreateFlowWriter (p->mxl, def, NULL, &p->ring, NULL, NULL);
  if (st == MXL_STATUS_OK && p->ring->map.grain_count != writer->map.grain_count)
    st = MXL_ERR_UNKNOWN;
  return st;
}

static void
paths_free (MxlTargetPaths *p)
{
  if (p->b != NULL)
    mxl_target_destroy (p->b);
  if (p->ring != NULL)
    mxlReleaseFlowWriter (p->mxl, p->ring);
  if (p->mxl != NULL)
    mxlDestroyInstance (p->mxl);
  if (p->domain != NULL)
    mxlPrivateDomainDestroy (p->domain);
  g_free (p->slots);
  g_free (p);
}

mxlStatus
mxl_target_setup_paths (MxlTarget *a, const mxlFabricsTargetConfig *config,
    const mxlFabricsInterfaceConfig *path_b, const char *options,
    struct mxlFabricsTargetInfo_t **out_info)
{
  g_autoptr (GError) error = NULL;
  struct mxlFabricsTargetInfo_t *info_b = NULL;
  mxlFabricsTargetConfig config_b;
  MxlSetupOptions parsed;
  MxlTargetPaths *p;
  mxlStatus st;

  if (a->base.setup_done)
    return MXL_ERR_INVALID_STATE;
  if (config->writer == NULL || !config->writer->map.discrete
      || config->writer->map.grain_count == 0)
    return MXL_ERR_INVALID_ARG;
  if (mxl_setup_options_parse (options, &parsed, &error) != MXL_STATUS_OK) {
    g_warning ("target: %s", error->message);
    return MXL_ERR_INVALID_ARG;
  }
  if (parsed.credits) {
    g_warning ("target: two paths do not take the \"credits\" option");
    return MXL_ERR_INVALID_ARG;
  }
  p = g_new0 (MxlTargetPaths, 1);
  p->a = a;
  p->n_slots = config->writer->map.grain_count;
  p->slots = g_new0 (SlotRecord, p->n_slots);
  st = open_ring (p, config->writer);
  if (st != MXL_STATUS_OK) {
    g_warning ("target: the second path's private ring could not be made (%d)", st);
    paths_free (p);
    return st;
  }
  /* The second path first: the first one's failure tears it down with it
   * (mxl_target_paths_stop()). */
  p->b = g_new0 (MxlTarget, 1);
  mxl_endpoint_init (&p->b->base, a->base.instance);
  mxl_poll_nap_init (&p->b->nap, 0);
  p->b->paths = p;
  p->b->sink = &second_sink;
  memset (&config_b, 0, sizeof config_b);
  config_b.version = config->version;
  config_b.interface = *path_b;
  config_b.writer = p->ring;
  st = mxl_target_setup (p->b, &config_b, options, &info_b);
  if (st != MXL_STATUS_OK) {
    paths_free (p);
    return st;
  }
  a->paths = p;
  a->sink = &first_sink;
  st = mxl_target_setup (a, config, options, out_info);
  if (st != MXL_STATUS_OK) {
    /* its teardown freed the paths */
    mxl_target_info_free (info_b);
    return st;
  }
  /* The second path is advertised under ext."pathB" (the flow is the
   * first's). */
  g_clear_pointer (&info_b->flow_def, g_free);
  a->info->path_b = info_b;
  (*out_info)->path_b = mxl_target_info_copy (info_b);
  mxl_lock (&a->base.lock);
  p->ready = TRUE;
  mxl_unlock (&a->base.lock);
  g_debug ("target %" G_GUINT64_FORMAT ": second path %" G_GUINT64_FORMAT " (%s)",
      a->id, p->b->id, p->b->base.desc->name);
  return MXL_STATUS_OK;
}

void
mxl_target_paths_stop (MxlTarget *t)
{
  MxlTargetPaths *p = t->paths;

  if (p == NULL || p->a != t || p->b == NULL)
    return;
  mxl_target_destroy (p->b);
  p->b = NULL;
}

void
mxl_target_paths_free (MxlTarget *t)
{
  MxlTargetPaths *p = t->paths;

  if (p == NULL || p->a != t)
    return;
  paths_free (p);
  t->paths = NULL;
  t->sink = NULL;
}

mxlStatus
mxl_target_path_stats (MxlTarget *t, uint32_t path, mxlFabricsExtTargetPathStats *out)
{
  MxlTargetPaths *p = t->paths;
  mxlFabricsExtTargetStats ts;
  const PathCounters *c;

  if (p == NULL || p->a != t || path > 1)
    return MXL_ERR_NOT_FOUND;
  mxl_target_get_stats (path == 0 ? t : p->b, &ts);
  memset (out, 0, sizeof *out);
  out->version = MXL_FABRICS_API_VERSION;
  out->state = ts.state;
  out->invalid = ts.badImmediateData + ts.badGrainHeaders;
  mxl_lock (&t->base.lock);
  c = &p->path[path];
  out->grains = c->grains;
  out->bytes = c->bytes;
  out->duplicates = c->duplicates;
  out->late = c->late;
  out->recovered = c->recovered;
  /* the slots whose index came on this path only, so far */
  for (guint i = 0; i < p->n_slots; i++) {
    if (p->slots[i].valid && !p->slots[i].both && p->slots[i].first == path)
      out->recovered++;
  }
  mxl_unlock (&t->base.lock);
  return MXL_STATUS_OK;
}
