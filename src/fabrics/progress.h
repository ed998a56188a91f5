/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MxlProgress: the optional progress thread of a target or an initiator
 * (setup option "progressThread": true). While it runs it is the only thread
 * that touches the owner's endpoints, completion queue and event queue
 * (docs/libfabric-notes.md P2: software providers move data only while someone
 * calls into libfabric). Application threads only enqueue (initiator: the
 * post ring) or pop results under the owner's lock.
 *
 * Loop: call the owner's pass (holding the owner's lock); when the pass did
 * no work, announce "sleeping", re-check the post ring, and wait:
 *   - providers with CQ/EQ wait fds (tcp, rxm): fi_trywait() on them, then
 *     ppoll() on those fds and the wake eventfd, at most MXL_PROGRESS_TICK_US
 *     (connection timers and transfer deadlines need ticks);
 *   - others (shm, efa: no CQ wait object on 1.17, P9): ppoll() on the wake
 *     eventfd alone for a short sleep growing from 50 µs to 1 ms, reset by
 *     every pass that did work.
 * Either way a new post wakes the thread at once (mxl_progress_wake()); no
 * busy spinning (P14: 2 cores). After 5 s without work both waits grow to
 * MXL_PROGRESS_REST_US (at rest).
 *
 * Wake-up handshake (no lost wake-ups, no syscall per post while busy):
 *   consumer: sleeping = 1; seq_cst fence; re-check the ring; wait.
 *   producer: push (release store of the slot sequence); seq_cst fence;
 *             if sleeping, write the eventfd.
 * The two fences order each side's store before its load, so at least one
 * side sees the other's store: the consumer sees the entry, or the producer
 * sees sleeping = 1 and writes the eventfd.
 */
#pragma once

#include <glib.h>
#include <pthread.h>
#include <stdatomic.h>

#include <rdma/fabric.h>

#include <mxl/mxl.h>

/** Longest wait of an idle progress thread with wait fds (µs). */
#define MXL_PROGRESS_TICK_US 10000
/** Growing sleep of an idle progress thread without wait fds (µs). */
#define MXL_PROGRESS_SLEEP_FIRST_US 50
#define MXL_PROGRESS_SLEEP_MAX_US 1000
/** Naps up to this long (µs) are not announced to posters: a post made
 * meanwhile is taken up when the nap ends, and the poster saves the
 * eventfd write that wakes the thread (a cross-CPU wake-up, several µs at
 * the 99th percentile on a VM). Longer sleeps are announced. */
#define MXL_PROGRESS_QUIET_NAP_US 100
#define MXL_PROGRESS_MAX_WAIT_FIDS 2
/** At rest: after MXL_PROGRESS_REST_AFTER_US without a pass that did work,
 * the thread waits up to MXL_PROGRESS_REST_US (both kinds of wait; the
 * sleep is announced, so a post still wakes it at once, and wait fds
 * still wake it at once). Timers (connection attempts and timeouts, a
 * stale shm peer) and the first completion after the rest are seen up to
 * that much later: the tcp provider of libfabric 1.17 moves incoming data
 * into the CQ only when progressed, so its CQ fd does not wake the thread
 * for it (with a 1 s threshold the first grain after a receiver's start-up
 * showed the 50 ms in the pipeline benchmark's p99). A stream of grains
 * at 0.2 Hz or more never rests. It keeps an idle src process below 50
 * wake-ups a second (bench/run-rest-wakeups.sh). */
#define MXL_PROGRESS_REST_AFTER_US 5000000
#define MXL_PROGRESS_REST_US 50000

/**
 * MxlLock:
 * The owner's lock and condition: POSIX (pthread_mutex_t, pthread_cond_t on
 * CLOCK_MONOTONIC) rather than GMutex/GCond, whose futex implementation
 * ThreadSanitizer cannot see (it would report false races).
 */
typedef struct MxlLock {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
} MxlLock;

void mxl_lock_init (MxlLock *l);
void mxl_lock_clear (MxlLock *l);
static inline void mxl_lock (MxlLock *l) { pthread_mutex_lock (&l->mutex); }
static inline void mxl_unlock (MxlLock *l) { pthread_mutex_unlock (&l->mutex); }
static inline void mxl_lock_broadcast (MxlLock *l) { pthread_cond_broadcast (&l->cond); }
/** Waits on the condition until @deadline_us (g_get_monotonic_time clock).
 * Returns: FALSE when the deadline passed. */
gboolean mxl_lock_wait_until (MxlLock *l, gint64 deadline_us);

/** One pass of the owner's work, called with the owner's lock held.
 * Returns TRUE when it did work (another pass follows at once). */
typedef gboolean (*MxlProgressPass) (gpointer owner);
/** Consumer-side check for queued posts (NULL: the owner has none). */
typedef gboolean (*MxlProgressHasPosts) (gpointer owner);

typedef enum MxlProgressWait {
  MXL_PROGRESS_WAIT_FD,          /* fi_trywait + ppoll on wait fds + eventfd */
  MXL_PROGRESS_WAIT_SLEEP,       /* ppoll on the eventfd, growing timeout */
} MxlProgressWait;

typedef struct MxlProgress {
  GThread *thread;
  MxlLock *lock;                 /* the owner's lock, held during passes */
  MxlProgressPass pass;
  MxlProgressHasPosts has_posts;
  gpointer owner;
  gboolean has_fd;               /* @wake_fd is open */
  int wake_fd;                   /* eventfd */
  atomic_int sleeping;
  atomic_int stop;
  MxlProgressWait wait;
  struct fid_fabric *fabric;
  struct fid *wait_fids[MXL_PROGRESS_MAX_WAIT_FIDS];
  int wait_fds[MXL_PROGRESS_MAX_WAIT_FIDS];
  guint n_wait;
  guint64 wakeups;               /* eventfd writes by producers (relaxed) */
  guint64 passes;                /* progress thread only */
} MxlProgress;

/**
 * mxl_progress_start:
 * @fabric: the fabric of @fids (fi_trywait()).
 * @fids: (nullable): up to MXL_PROGRESS_MAX_WAIT_FIDS CQs/EQs to wait on;
 *   when one of them has no wait fd (fi_control(FI_GETWAIT) fails) the
 *   thread uses growing sleeps instead.
 * @lock: the owner's lock, held around every @pass.
 *
 * Starts the thread. Returns: MXL_STATUS_OK; MXL_ERR_UNKNOWN when the
 * eventfd or the thread cannot be created (@error says why).
 */
mxlStatus mxl_progress_start (MxlProgress *p, const char *name,
    struct fid_fabric *fabric, struct fid *const *fids, guint n_fids,
    MxlLock *lock, MxlProgressPass pass, MxlProgressHasPosts has_posts,
    gpointer owner, GError **error);

/** Producer side, any thread, after a successful push: wakes the thread if
 * it sleeps (one eventfd write), otherwise only a fence and a load. */
void mxl_progress_wake (MxlProgress *p);

/** Stops and joins the thread (bounded: it wakes at once and finishes its
 * current pass). Must not be called with the owner's lock held. Safe on a
 * progress that was never started. */
void mxl_progress_stop (MxlProgress *p);

/** TRUE between a successful start and stop. */
static inline gboolean
mxl_progress_running (const MxlProgress *p)
{
  return p->thread != NULL;
}
