/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The endpoint base: what a target (target-state.h) and an initiator
 * (initiator-state.h) share, with the same meaning in both. Each embeds it
 * as its first member `base`, so that the shared setup, teardown, lock,
 * event and result-ring helpers work on either through MxlEndpoint *, and
 * the object of either is reached from its base with mxl_container_of().
 * Defined here, in the protocol layer, so that both state headers include
 * it (tests/unit/check-layers.py). The setup and teardown helpers are the
 * engine's (src/fabrics/setup.h); the ring arithmetic is inline below.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>

#include "fabrics/ofi/ofi.h"
#include "fabrics/ofi/progress.h"
#include "fabrics/wire/layout.h"
#include "fabrics/protocol/options.h"
#include "fabrics/ofi/provider.h"

typedef struct MxlEndpoint {
  /** The fabrics instance that created it and destroys it (instance.c). */
  mxlFabricsInstance instance;
  /** Setup succeeded and teardown has not run: the API may be used. */
  gboolean setup_done;
  /** The provider's descriptor (provider.h), set by setup. */
  const MxlProviderDesc *desc;
  /** The parsed setup options (options.h); for a target the protocol
   * chosen when the options named none. */
  MxlSetupOptions options;
  /** The libfabric fabric, domain and the fi_info setup chose (ofi.h). */
  MxlOfiDomain *dom;
  /** The one completion queue every endpoint of it is bound to; its wait
   * object fits the provider and the threading (mxl_setup_endpoint()). */
  struct fid_cq *cq;
  /** Slot, slice and header sizes of the local grain flow (layout.h). */
  MxlGrainLayout layout;
  /** Grain slots of the local flow (0 for a continuous flow). */
  uint32_t grain_count;
  /** One registered region per grain slot: FI_WRITE sources of an
   * initiator, FI_REMOTE_WRITE (or FI_RECV) destinations of a target;
   * NULL for a continuous flow. */
  MxlOfiRegion *regions;
  /** The local flow is continuous (audio samples, protocol_samples.c). */
  gboolean continuous;
  /** The endpoint type's event object the progress thread and the wait fd
   * (initiator_wait.c) also wait on (connected: its event queue,
   * initiator_rc.c, target_rc.c), set by the
   * type's setup and cleared by its teardown; NULL = none (connectionless:
   * the type's endpoint and address vector are its own, initiator_rdm.c,
   * target_rdm.c). */
  struct fid *wait_fid;
  /** Connection events for the application (mxlFabricsExtConnectionEvent*,
   * events.h), guarded by @lock. */
  GQueue events;
  /** Mutex and condition (progress.h): guards what a progress thread
   * touches; the API calls take it. */
  MxlLock lock;
  /** Threads in mxl_endpoint_wait() (woken by mxl_endpoint_wake()). */
  guint waiters;
  /** The progress thread (setup option "progressThread"), when running. */
  MxlProgress progress;
  /** Oldest entry and entries of the result ring (the role's results,
   * MXL_FABRICS_EXT_RESULT_QUEUE_MAX entries), guarded by @lock. */
  guint res_head, res_len;
  /** An endpoint of it stays open for the rest of the process (a target
   * of this process still holds writes from it, P17): teardown leaves the
   * completion queue, regions and domain open as well. */
  gboolean kept_open;
} MxlEndpoint;

/** Wakes the threads in mxl_endpoint_wait() on @ep, if any; @ep->lock held. */
static inline void
mxl_endpoint_wake (MxlEndpoint *ep)
{
  if (ep->waiters > 0)
    mxl_lock_broadcast (&ep->lock);
}

/**
 * mxl_endpoint_wait:
 * Waits, @ep->lock held, until mxl_endpoint_wake() or @deadline_us
 * (monotonic), counted in @ep->waiters meanwhile.
 * Returns: FALSE when the deadline passed (mxl_lock_wait_until()).
 */
static inline gboolean
mxl_endpoint_wait (MxlEndpoint *ep, gint64 deadline_us)
{
  gboolean signalled;

  ep->waiters++;
  signalled = mxl_lock_wait_until (&ep->lock, deadline_us);
  ep->waiters--;
  return signalled;
}

/**
 * mxl_endpoint_result_push:
 * Makes room for one result at the end of @ep's result ring: when the ring
 * is full its oldest entry is dropped and @dropped set to TRUE (else FALSE).
 * Returns: the ring index the new result goes to.
 */
static inline guint
mxl_endpoint_result_push (MxlEndpoint *ep, gboolean *dropped)
{
  *dropped = ep->res_len == MXL_FABRICS_EXT_RESULT_QUEUE_MAX;
  if (*dropped) {
    ep->res_head = (ep->res_head + 1) % MXL_FABRICS_EXT_RESULT_QUEUE_MAX;
    ep->res_len--;
  }
  return (ep->res_head + ep->res_len++) % MXL_FABRICS_EXT_RESULT_QUEUE_MAX;
}

/**
 * mxl_endpoint_result_pop:
 * Takes the oldest result of @ep's result ring.
 * Returns: FALSE when the ring is empty; else TRUE with its ring index in
 * @out_index (valid until the next push).
 */
static inline gboolean
mxl_endpoint_result_pop (MxlEndpoint *ep, guint *out_index)
{
  if (ep->res_len == 0)
    return FALSE;
  *out_index = ep->res_head;
  ep->res_head = (ep->res_head + 1) % MXL_FABRICS_EXT_RESULT_QUEUE_MAX;
  ep->res_len--;
  return TRUE;
}
