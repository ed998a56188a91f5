/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The initiator's progress thread (setup option "progressThread"): the post
 * ring, the pass the thread runs, and what application threads call instead
 * of driving progress themselves. Threads and wake-ups: progress.h.
 *
 * Each pass, holding init->lock:
 *   1. pops at most RING_BUDGET descriptors, only while every connected
 *      target has room for one more transfer (otherwise the entries wait in
 *      the ring, which is the back-pressure the producers see), and queues
 *      each on every connected target without posting yet;
 *   2. runs the progress pass shared with the threadless mode: connection
 *      events, the CQ, connection timers, and posting at most
 *      MXL_PUMP_BUDGET writes per connection (consecutive writes with
 *      FI_MORE, the last of each batch without it);
 *   3. publishes the MakeProgress status and wakes waiters.
 */
#include "fabrics/initiator.h"

#include <string.h>

/* Descriptors popped per pass at most (fairness against the CQ). */
#define RING_BUDGET 64u
/* How long a transfer call retries a full post ring (ms). */
#define POST_DEADLINE_MS 20

static gboolean
has_posts (gpointer owner)
{
  MxlInitiator *init = owner;

  return mxl_post_ring_peek (init->post_ring) && mxl_initiator_room_for_one (init);
}

/* The MakeProgress status as seen by application threads. */
static mxlStatus
current_status (MxlInitiator *init)
{
  if (atomic_load_explicit (&init->posts_pushed, memory_order_relaxed) != init->posts_popped
      && init->thread_status != MXL_ERR_INTERRUPTED)
    return MXL_ERR_NOT_READY;
  return init->thread_status;
}

static gboolean
pass (gpointer owner)
{
  MxlInitiator *init = owner;
  const mxlFabricsExtInitiatorStats *s = &init->stats;
  uint64_t before = s->writesPosted + s->writesCompleted + s->writeErrors;
  MxlPostDesc desc;
  guint popped = 0;
  mxlStatus st;

  /* Queue everything first, post after (progress_once), so that the
   * writes of consecutive transfers form one FI_MORE batch. */
  init->defer_pump = TRUE;
  while (popped < RING_BUDGET && mxl_initiator_room_for_one (init)
      && mxl_post_ring_pop (init->post_ring, &desc)) {
    popped++;
    init->posts_popped++;
    /* Failures become results (tracked) or are the test hook's own. */
    mxl_initiator_fan_out_desc (init, &desc);
  }
  init->defer_pump = FALSE;
  st = mxl_initiator_progress_once (init);
  if (popped > 0 || st != init->thread_status) {
    init->thread_status = st;
    if (init->waiters > 0)
      mxl_lock_broadcast (&init->lock);
  }
  if (popped > 0 || s->writesPosted + s->writesCompleted + s->writeErrors != before) {
    if (init->notify)
      init->notify (init->notify_data);
    return TRUE;
  }
  return FALSE;
}

mxlStatus
mxl_initiator_progress_start (MxlInitiator *init, GError **error)
{
  struct fid *fids[MXL_PROGRESS_MAX_WAIT_FIDS];
  guint n = 0;
  mxlStatus st;

  init->post_ring = mxl_post_ring_new (init->options.post_ring_capacity, sizeof (MxlPostDesc),
      error);
  if (init->post_ring == NULL)
    return MXL_ERR_INVALID_ARG;
  atomic_init (&init->posts_pushed, 0);
  init->posts_popped = 0;
  init->thread_status = MXL_ERR_INTERRUPTED;   /* no target yet */
  if (init->desc->cq_can_wait) {
    fids[n++] = &init->cq->fid;
    if (init->eq != NULL)
      fids[n++] = &init->eq->fid;
  }
  st = mxl_progress_start (&init->progress, "mxl-initiator", init->dom->fabric, fids, n,
      &init->lock, pass, has_posts, init, error);
  if (st != MXL_STATUS_OK)
    g_clear_pointer (&init->post_ring, mxl_post_ring_free);
  return st;
}

void
mxl_initiator_progress_stop (MxlInitiator *init, int flush_ms)
{
  MxlPostDesc desc;

  if (init->post_ring == NULL)
    return;
  if (flush_ms > 0 && mxl_progress_running (&init->progress))
    mxl_initiator_progress_wait (init, flush_ms);
  mxl_progress_stop (&init->progress);
  /* The thread is joined: this thread is the consumer now. Whatever was
   * not taken up is cancelled (counted as dropped). */
  while (mxl_post_ring_pop (init->post_ring, &desc))
    init->stats.transfersDropped++;
  g_clear_pointer (&init->post_ring, mxl_post_ring_free);
}

mxlStatus
mxl_initiator_progress_post (MxlInitiator *init, const MxlPostDesc *desc)
{
  mxlStatus st;

  /* Counted before the push so that a MakeProgress that follows this call
   * sees it in flight; undone when the ring stays full. */
  atomic_fetch_add_explicit (&init->posts_pushed, 1, memory_order_relaxed);
  st = mxl_post_ring_push_with_deadline (init->post_ring, desc,
      g_get_monotonic_time () + POST_DEADLINE_MS * 1000);
  if (st != MXL_STATUS_OK) {
    atomic_fetch_sub_explicit (&init->posts_pushed, 1, memory_order_relaxed);
    return MXL_ERR_NOT_READY;    /* counted by the ring: postRingFull */
  }
  mxl_progress_wake (&init->progress);
  return MXL_STATUS_OK;
}

mxlStatus
mxl_initiator_progress_wait (MxlInitiator *init, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000;
  mxlStatus st;

  mxl_lock (&init->lock);
  for (;;) {
    st = current_status (init);
    if (st != MXL_ERR_NOT_READY || timeout_ms <= 0)
      break;
    init->waiters++;
    if (!mxl_lock_wait_until (&init->lock, deadline)) {
      init->waiters--;
      st = current_status (init);
      break;
    }
    init->waiters--;
  }
  mxl_unlock (&init->lock);
  return st;
}
