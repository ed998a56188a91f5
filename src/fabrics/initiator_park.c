/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Parked endpoints of a connectionless initiator (initiator_park.h).
 */
#include "fabrics/initiator_park.h"

#include <errno.h>
#include <signal.h>

#include "fabrics/ofi/localpeers.h"

typedef struct {
  struct fid_ep *ep;
  struct fid_av *av;
  uint64_t conn_id;
  uint32_t pid;
  gint64 since;
  MxlGrainStage stage;          /* what the parked writes read (grainstage.h) */
  GBytes *local;                /* the address of a target of this process
                                   (mxl_conn_peer_local()), else NULL */
} MxlParkedEp;

struct MxlParking {
  MxlParkCloseFn close_fn;
  GPtrArray *eps;               /* MxlParkedEp* */
};

/* The endpoints of one destroyed initiator kept open for targets of this
 * process that still hold writes from them (mxl_parking_free()), with
 * what they are bound to: closed all together once each of those targets
 * is gone (sweep_kept()). */
typedef struct {
  const MxlEndpoint *owner;     /* the initiator until keep_open() ran */
  GPtrArray *eps;               /* MxlParkedEp* */
  MxlOfiDomain *dom;
  struct fid_cq *cq;
  MxlOfiRegion *regions;
  guint n_regions;
} MxlKept;

static GPtrArray *kept;         /* MxlKept*, under kept_lock */
static GMutex kept_lock;

MxlParking *
mxl_parking_new (MxlParkCloseFn close_fn)
{
  MxlParking *pk = g_new0 (MxlParking, 1);

  pk->close_fn = close_fn;
  pk->eps = g_ptr_array_new ();
  return pk;
}

void
mxl_parking_add (MxlParking *pk, MxlConn *conn, struct fid_ep *ep,
    struct fid_av *av)
{
  MxlParkedEp *p = g_new0 (MxlParkedEp, 1);

  p->ep = ep;
  p->av = av;
  p->conn_id = conn->conn_id;
  p->pid = conn->info->owner_pid;
  p->since = g_get_monotonic_time ();
  /* the parked writes read the connection's staging buffer: it goes with
   * them (the connection allocates a new one should it connect again) */
  mxl_grain_stage_take (conn, &p->stage);
  if (mxl_conn_peer_local (conn))
    p->local = g_bytes_new (conn->info->fabric_address, conn->info->fabric_address_len);
  g_ptr_array_add (pk->eps, p);
  g_debug ("initiator: endpoint of target %" G_GUINT64_FORMAT " parked until "
      "its writes complete", conn->target_id);
}

static void
unpark (MxlParking *pk, MxlInitiator *init, guint i)
{
  MxlParkedEp *p = g_ptr_array_index (pk->eps, i);

  pk->close_fn (init, p->ep, p->av);
  mxl_grain_stage_free (init->base.dom, &p->stage);
  mxl_initiator_release_contexts (init, p->conn_id);
  g_ptr_array_remove_index_fast (pk->eps, i);
  g_clear_pointer (&p->local, g_bytes_unref);
  g_free (p);
}

/* The parked endpoint's peer is gone: its process (ext.pid), or, for a
 * target of this process, its withdrawn address (localpeers.h). */
static gboolean
peer_gone (const MxlParkedEp *p)
{
  if (p->local != NULL)
    return !mxl_local_peer_alive (g_bytes_get_data (p->local, NULL),
        g_bytes_get_size (p->local));
  return p->pid != 0 && kill ((pid_t) p->pid, 0) != 0 && errno == ESRCH;
}

/* A live target of this process has not processed every write of the
 * parked endpoint: it would write its answers into the endpoint's region,
 * which fi_close() frees (docs/libfabric-notes.md P17). */
static gboolean
needed_by_local_peer (const MxlInitiator *init, const MxlParkedEp *p)
{
  return p->local != NULL && !peer_gone (p)
      && mxl_initiator_contexts_in_use (init, p->conn_id);
}

void
mxl_parking_check (MxlParking *pk, MxlInitiator *init)
{
  gint64 now = g_get_monotonic_time ();

  for (guint i = pk->eps->len; i-- > 0;) {
    MxlParkedEp *p = g_ptr_array_index (pk->eps, i);

    if (peer_gone (p) || !mxl_initiator_contexts_in_use (init, p->conn_id)
        || (p->local == NULL && now - p->since > (gint64) MXL_PARK_MAX_MS * 1000))
      unpark (pk, init, i);
  }
}

gboolean
mxl_parking_holds (const MxlParking *pk, uint64_t conn_id)
{
  for (guint i = 0; pk != NULL && i < pk->eps->len; i++)
    if (((MxlParkedEp *) g_ptr_array_index (pk->eps, i))->conn_id == conn_id)
      return TRUE;
  return FALSE;
}

/* Endpoints a live target of this process still needs are progressed up
 * to MXL_LOCAL_PEER_DRAIN_MS while that target processes their writes
 * (shm has no wait object, P9: a 1 ms nap between reads). */
static void
drain_local (MxlParking *pk, MxlInitiator *init)
{
  gint64 end = g_get_monotonic_time () + (gint64) MXL_LOCAL_PEER_DRAIN_MS * 1000;

  while (g_get_monotonic_time () < end) {
    gboolean needed = FALSE;

    for (guint i = 0; i < pk->eps->len && !needed; i++)
      needed = needed_by_local_peer (init, g_ptr_array_index (pk->eps, i));
    if (!needed)
      return;
    mxl_initiator_drain_cq (init, -1);
    g_usleep (1000);
  }
}

/* MxlEndpoint.keep_open of an initiator with kept endpoints: its
 * completion queue, regions and domain go with them. */
static void
adopt_endpoint (MxlEndpoint *ep)
{
  g_mutex_lock (&kept_lock);
  for (guint i = 0; kept != NULL && i < kept->len; i++) {
    MxlKept *k = g_ptr_array_index (kept, i);

    if (k->owner != ep)
      continue;
    k->owner = NULL;
    k->dom = ep->dom;
    k->cq = ep->cq;
    k->regions = ep->regions;
    k->n_regions = ep->regions != NULL ? ep->grain_count : 0;
    ep->dom = NULL;
    ep->cq = NULL;
    ep->regions = NULL;
  }
  g_mutex_unlock (&kept_lock);
}

/* Closes the kept endpoints whose targets are all gone, and what they are
 * bound to; @kept_lock held. Nothing progresses them: their initiator is
 * destroyed, their targets no longer progress (localpeers.h). */
static void
sweep_kept_locked (void)
{
  for (guint i = kept != NULL ? kept->len : 0; i-- > 0;) {
    MxlKept *k = g_ptr_array_index (kept, i);
    gboolean needed = k->owner != NULL;

    for (guint j = 0; j < k->eps->len && !needed; j++)
      needed = !peer_gone (g_ptr_array_index (k->eps, j));
    if (needed)
      continue;
    for (guint j = 0; j < k->eps->len; j++) {
      MxlParkedEp *p = g_ptr_array_index (k->eps, j);

      /* the endpoint first: for shm its fi_close() removes its file (P12) */
      mxl_ofi_close (&p->ep->fid, "ep");
      mxl_ofi_close (&p->av->fid, "av");
      mxl_grain_stage_free (k->dom, &p->stage);
      g_bytes_unref (p->local);
      g_free (p);
    }
    g_ptr_array_unref (k->eps);
    for (guint j = 0; k->dom != NULL && j < k->n_regions; j++)
      mxl_ofi_region_close (k->dom, &k->regions[j]);
    g_free (k->regions);
    mxl_ofi_close (k->cq ? &k->cq->fid : NULL, "cq");
    mxl_ofi_domain_close (k->dom);
    g_debug ("initiator: kept endpoints closed, their targets are gone");
    g_free (k);
    g_ptr_array_remove_index_fast (kept, i);
  }
}

/* localpeers.h withdraw hook: a target of this process went. */
static void
sweep_kept (void)
{
  g_mutex_lock (&kept_lock);
  sweep_kept_locked ();
  g_mutex_unlock (&kept_lock);
}

guint
mxl_parking_kept_count (void)
{
  guint n;

  g_mutex_lock (&kept_lock);
  n = kept != NULL ? kept->len : 0;
  g_mutex_unlock (&kept_lock);
  return n;
}

/* Destroy: the endpoints of @pk still needed by a live target of this
 * process stay open, with their address vectors, staging buffers and
 * everything of the initiator they are bound to (its MxlEndpoint.keep_open
 * hands those over at its teardown), until each of those targets is gone
 * (sweep_kept()): a shm region (16 MiB, P12) held that long instead of a
 * crash of that target. */
static void
keep_needed (MxlParking *pk, MxlInitiator *init)
{
  MxlKept *k = NULL;

  for (guint i = pk->eps->len; i-- > 0;) {
    if (!needed_by_local_peer (init, g_ptr_array_index (pk->eps, i)))
      continue;
    if (k == NULL) {
      k = g_new0 (MxlKept, 1);
      k->owner = &init->base;
      k->eps = g_ptr_array_new ();
    }
    g_ptr_array_add (k->eps, g_ptr_array_steal_index_fast (pk->eps, i));
  }
  if (k == NULL)
    return;
  g_message ("initiator: %u endpoint(s) kept open after destroy: a target of "
      "this process has not processed all writes to them yet; closed once "
      "it is gone (docs/libfabric-notes.md P17)", k->eps->len);
  init->base.keep_open = adopt_endpoint;
  mxl_local_peer_set_withdraw_hook (sweep_kept);
  g_mutex_lock (&kept_lock);
  if (kept == NULL)
    kept = g_ptr_array_new ();
  g_ptr_array_add (kept, k);
  g_mutex_unlock (&kept_lock);
}

void
mxl_parking_free (MxlParking *pk, MxlInitiator *init)
{
  if (pk == NULL)
    return;
  drain_local (pk, init);
  keep_needed (pk, init);
  while (pk->eps->len > 0)
    unpark (pk, init, pk->eps->len - 1);
  g_ptr_array_unref (pk->eps);
  g_free (pk);
}
