/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The progress thread of targets and initiators (see progress.h). */
#include "fabrics/ofi/progress.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rdma/fi_eq.h>

#include "fabrics/ofi/ofi.h"

void
mxl_lock_init (MxlLock *l)
{
  pthread_condattr_t attr;

  pthread_mutex_init (&l->mutex, NULL);
  pthread_condattr_init (&attr);
  /* g_get_monotonic_time() is CLOCK_MONOTONIC. */
  pthread_condattr_setclock (&attr, CLOCK_MONOTONIC);
  pthread_cond_init (&l->cond, &attr);
  pthread_condattr_destroy (&attr);
}

void
mxl_lock_clear (MxlLock *l)
{
  pthread_cond_destroy (&l->cond);
  pthread_mutex_destroy (&l->mutex);
}

gboolean
mxl_lock_wait_until (MxlLock *l, gint64 deadline_us)
{
  struct timespec ts = { (time_t) (deadline_us / G_USEC_PER_SEC),
    (long) (deadline_us % G_USEC_PER_SEC) * 1000 };

  return pthread_cond_timedwait (&l->cond, &l->mutex, &ts) == 0;
}

static void
drain_wake_fd (MxlProgress *p)
{
  uint64_t v;

  /* Non-blocking eventfd: one read resets the counter. */
  while (read (p->wake_fd, &v, sizeof v) < 0 && errno == EINTR)
    ;
}

/* Waits until a post, a wait fd or the timeout; @timeout_us > 0. */
static void
wait_for (MxlProgress *p, gint64 timeout_us)
{
  struct pollfd fds[MXL_PROGRESS_MAX_WAIT_FIDS + 1];
  struct timespec ts = { (time_t) (timeout_us / G_USEC_PER_SEC),
    (long) (timeout_us % G_USEC_PER_SEC) * 1000 };
  guint n = 0;

  fds[n].fd = p->wake_fd;
  fds[n].events = POLLIN;
  fds[n++].revents = 0;
  if (p->wait == MXL_PROGRESS_WAIT_FD) {
    /* fi_trywait (fi_poll(3)): 0 means the fds may be waited on; otherwise
     * events are pending and the next pass reads them. */
    if (fi_trywait (p->fabric, p->wait_fids, (int) p->n_wait) != FI_SUCCESS) {
      /* Events pending (or a provider that cannot say): a short nap on
       * the eventfd only, so that a refusing trywait never spins. */
      ts.tv_sec = 0;
      ts.tv_nsec = MXL_PROGRESS_SLEEP_FIRST_US * 1000;
    } else {
      for (guint i = 0; i < p->n_wait; i++) {
        fds[n].fd = p->wait_fds[i];
        fds[n].events = POLLIN;
        fds[n++].revents = 0;
      }
    }
  }
  ppoll (fds, n, &ts, NULL);
}

static gpointer
progress_main (gpointer data)
{
  MxlProgress *p = data;
  gint64 sleep_us = MXL_PROGRESS_SLEEP_FIRST_US;
  gint64 worked_at = g_get_monotonic_time ();
  struct sched_param sp = { 0 };

  /* SCHED_BATCH (sched(7)): a woken progress thread does not preempt the
   * application thread that just posted (2 cores: the post call would
   * otherwise absorb the context switch); it runs at the next tick or
   * free core. Best effort. */
  pthread_setschedparam (pthread_self (), SCHED_BATCH, &sp);

  while (!atomic_load_explicit (&p->stop, memory_order_acquire)) {
    gboolean worked, has = FALSE, announce;

    mxl_lock (p->lock);
    worked = p->pass (p->owner);
    mxl_unlock (p->lock);
    p->passes++;
    if (worked) {
      sleep_us = MXL_PROGRESS_SLEEP_FIRST_US;
      worked_at = 0;
      continue;
    }
    if (worked_at == 0)
      worked_at = g_get_monotonic_time ();
    else if (g_get_monotonic_time () - worked_at > MXL_PROGRESS_REST_AFTER_US)
      sleep_us = MXL_PROGRESS_REST_US;    /* at rest (progress.h) */
    announce = p->wait == MXL_PROGRESS_WAIT_FD || sleep_us > MXL_PROGRESS_QUIET_NAP_US;
    if (announce) {
      /* Dekker-style handshake with mxl_progress_wake() (progress.h). */
      atomic_store_explicit (&p->sleeping, 1, memory_order_relaxed);
      atomic_thread_fence (memory_order_seq_cst);
      if (p->has_posts != NULL) {
        mxl_lock (p->lock);
        has = p->has_posts (p->owner);
        mxl_unlock (p->lock);
      }
    }
    if (!has && !atomic_load_explicit (&p->stop, memory_order_acquire)) {
      if (p->wait == MXL_PROGRESS_WAIT_FD) {
        wait_for (p, MAX (sleep_us, MXL_PROGRESS_TICK_US));
        if (sleep_us < MXL_PROGRESS_REST_US)
          sleep_us = MXL_PROGRESS_SLEEP_FIRST_US;
      } else {
        /* a quiet nap (not announced): a post made now waits for its end */
        wait_for (p, sleep_us);
        if (sleep_us < MXL_PROGRESS_REST_US)
          sleep_us = MIN (sleep_us * 2, MXL_PROGRESS_SLEEP_MAX_US);
      }
    }
    if (announce)
      atomic_store_explicit (&p->sleeping, 0, memory_order_relaxed);
    drain_wake_fd (p);
  }
  return NULL;
}

mxlStatus
mxl_progress_start (MxlProgress *p, const char *name, struct fid_fabric *fabric,
    struct fid *const *fids, guint n_fids, MxlLock *lock, MxlProgressPass pass,
    MxlProgressHasPosts has_posts, gpointer owner, GError **error)
{
  memset (p, 0, sizeof *p);
  p->wake_fd = -1;
  g_return_val_if_fail (n_fids <= MXL_PROGRESS_MAX_WAIT_FIDS, MXL_ERR_INVALID_ARG);
  p->lock = lock;
  p->pass = pass;
  p->has_posts = has_posts;
  p->owner = owner;
  p->fabric = fabric;
  p->wait = n_fids > 0 ? MXL_PROGRESS_WAIT_FD : MXL_PROGRESS_WAIT_SLEEP;
  for (guint i = 0; i < n_fids; i++) {
    int fd = -1;
    /* fi_control(FI_GETWAIT): the fd of an FI_WAIT_FD (or UNSPEC that
     * chose an fd) wait object; shm/efa have none (P9). */
    if (fids[i] == NULL || fi_control (fids[i], FI_GETWAIT, &fd) != 0 || fd < 0) {
      p->wait = MXL_PROGRESS_WAIT_SLEEP;
      p->n_wait = 0;
      break;
    }
    p->wait_fids[p->n_wait] = fids[i];
    p->wait_fds[p->n_wait++] = fd;
  }
  atomic_init (&p->sleeping, 0);
  atomic_init (&p->stop, 0);
  p->wake_fd = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (p->wake_fd < 0) {
    g_set_error (error, MXL_OFI_ERROR, errno, "eventfd: %s", g_strerror (errno));
    return MXL_ERR_UNKNOWN;
  }
  p->has_fd = TRUE;
  p->thread = g_thread_try_new (name, progress_main, p, error);
  if (p->thread == NULL) {
    close (p->wake_fd);
    p->has_fd = FALSE;
    return MXL_ERR_UNKNOWN;
  }
  g_debug ("%s: progress thread started, %s", name,
      p->wait == MXL_PROGRESS_WAIT_FD ? "waiting on CQ/EQ fds" : "sleeping 50 us .. 1 ms");
  return MXL_STATUS_OK;
}

void
mxl_progress_wake (MxlProgress *p)
{
  atomic_thread_fence (memory_order_seq_cst);
  if (atomic_load_explicit (&p->sleeping, memory_order_relaxed)) {
    uint64_t one = 1;
    /* A full eventfd counter (never, at 2^64 - 1) only means it is
     * readable already. */
    if (write (p->wake_fd, &one, sizeof one) < 0 && errno != EAGAIN)
      g_warning ("progress: eventfd write: %s", g_strerror (errno));
  }
}

void
mxl_progress_stop (MxlProgress *p)
{
  if (p->thread != NULL) {
    uint64_t one = 1;
    atomic_store_explicit (&p->stop, 1, memory_order_release);
    if (write (p->wake_fd, &one, sizeof one) < 0)
      g_warning ("progress: eventfd write: %s", g_strerror (errno));
    g_thread_join (p->thread);
    p->thread = NULL;
  }
  if (p->has_fd) {
    close (p->wake_fd);
    p->has_fd = FALSE;
  }
}
