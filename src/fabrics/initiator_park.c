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

/* Parked endpoints kept open for the rest of the process
 * (mxl_parking_free()): never freed, a target of this process may still
 * write into them. */
static GPtrArray *kept_for_process;
G_LOCK_DEFINE_STATIC (kept_for_process);

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

/* Parked endpoint @i, still needed by a live target of this process, stays
 * open for the rest of the process with its address vector, staging
 * buffer and everything of the initiator it is bound to
 * (MxlEndpoint.kept_open): a leak of one shm region (16 MiB, P12) instead
 * of a crash of that target. */
static void
keep_for_process (MxlParking *pk, MxlInitiator *init, guint i)
{
  MxlParkedEp *p = g_ptr_array_steal_index_fast (pk->eps, i);

  g_message ("initiator: endpoint of a target of this process kept open until "
      "the process ends: the target has not processed all writes to it yet "
      "(docs/libfabric-notes.md P17)");
  init->base.kept_open = TRUE;
  G_LOCK (kept_for_process);
  if (kept_for_process == NULL)
    kept_for_process = g_ptr_array_new ();
  g_ptr_array_add (kept_for_process, p);
  G_UNLOCK (kept_for_process);
}

void
mxl_parking_free (MxlParking *pk, MxlInitiator *init)
{
  if (pk == NULL)
    return;
  drain_local (pk, init);
  while (pk->eps->len > 0) {
    guint last = pk->eps->len - 1;

    if (needed_by_local_peer (init, g_ptr_array_index (pk->eps, last)))
      keep_for_process (pk, init, last);
    else
      unpark (pk, init, last);
  }
  g_ptr_array_unref (pk->eps);
  g_free (pk);
}
