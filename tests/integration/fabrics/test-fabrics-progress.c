/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The progress thread (setup option "progressThread") in one process, target
 * and initiator in separate MXL domains:
 *  - 4 application threads enqueue slice-range transfers of 1080p v210
 *    grains to 3 targets (tcp and shm); every result is OK and every target
 *    grain has the initiator's checksum;
 *  - an injected post failure and an injected error completion (the grain
 *    cut into several writes) are reported as failed transfers with their
 *    status, per target, never as successes;
 *  - a full post ring makes the transfer call return MXL_ERR_NOT_READY after
 *    its deadline, counted in postRingFull;
 *  - with the setup option "reconnect", a connection lost at once after
 *    each connection is retried by the library with doubling delays;
 *  - initiators and targets with a progress thread start and stop 1000
 *    times without leaking file descriptors or threads (run under ASan with
 *    detect_leaks=1 for memory).
 */
#include <poll.h>

#include "fabtest.h"

#include <dirent.h>

#define FLOW_ID "7d1fd1b5-6a3c-4c55-9b1b-3c4d7a0f2e11"
#define N_TARGETS 3
#define N_THREADS 4
#define N_RANGES 4
#define THREAD_OPTS "{\"progressThread\": true}"

typedef struct Rig {
  FabSide is, ts[N_TARGETS];
  mxlFabricsInitiator init;
  mxlFabricsTarget t[N_TARGETS];
  mxlFabricsTargetInfo info[N_TARGETS];
  uint64_t id[N_TARGETS];
  guint n_targets;
} Rig;

static gboolean
rig_open (Rig *r, const FabProv *p, guint n_targets, const char *init_opts)
{
  char *def = fabtest_v210_def (FLOW_ID, "video/v210", 1920, 1080);

  if (!fabtest_require (p)) {
    g_free (def);
    return FALSE;
  }
  memset (r, 0, sizeof *r);
  r->n_targets = n_targets;
  fabtest_side_init (&r->is, def, FLOW_ID);
  for (guint i = 0; i < n_targets; i++) {
    fabtest_side_init (&r->ts[i], def, FLOW_ID);
    r->t[i] = fabtest_target (&r->ts[i], p, THREAD_OPTS, &r->info[i]);
    g_assert_cmpint (mxlFabricsExtTargetInfoGetId (r->info[i], &r->id[i]), ==, MXL_STATUS_OK);
  }
  r->init = fabtest_initiator (&r->is, p, init_opts);
  for (guint i = 0; i < n_targets; i++)
    g_assert_cmpint (mxlFabricsInitiatorAddTarget (r->init, r->info[i]), ==, MXL_STATUS_OK);
  /* With the threads, MakeProgressBlocking waits on their status queue. */
  {
    gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
    mxlStatus st;
    while ((st = mxlFabricsInitiatorMakeProgressBlocking (r->init, 100)) != MXL_STATUS_OK) {
      g_assert_cmpint (st, ==, MXL_ERR_NOT_READY);
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    }
  }
  g_free (def);
  return TRUE;
}

static void
rig_close (Rig *r)
{
  for (guint i = 0; i < r->n_targets; i++)
    mxlFabricsFreeTargetInfo (r->info[i]);
  fabtest_side_clear (&r->is);
  for (guint i = 0; i < r->n_targets; i++)
    fabtest_side_clear (&r->ts[i]);
}

/* ---------------------------------------------- 4 threads, 3 targets */

typedef struct Producer {
  Rig *rig;
  guint k;
  guint n_grains;
  uint64_t base;
  guint calls;
} Producer;

static gpointer
produce (gpointer data)
{
  Producer *pr = data;

  for (guint g = pr->k; g < pr->n_grains; g += N_THREADS) {
    for (guint q = 0; q < N_RANGES; q++) {
      uint16_t a = (uint16_t) (q * 1080 / N_RANGES), b = (uint16_t) ((q + 1) * 1080 / N_RANGES);
      gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
      mxlStatus st;
      /* NOT_READY (ring full past its deadline) is back-pressure: retry. */
      while ((st = mxlFabricsInitiatorTransferGrain (pr->rig->init, pr->base + g, a, b))
          == MXL_ERR_NOT_READY)
        g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_assert_cmpint (st, ==, MXL_STATUS_OK);
      pr->calls++;
    }
  }
  return NULL;
}

/* The grainsSkipped of every target of @r, in @skipped; returns their sum. */
static guint
skipped_sum (Rig *r, guint *skipped)
{
  guint sum = 0;

  for (guint i = 0; i < r->n_targets; i++) {
    mxlFabricsExtInitiatorTargetStats ts;

    g_assert_cmpint (mxlFabricsExtInitiatorGetTargetStats (r->init, r->info[i], &ts), ==,
        MXL_STATUS_OK);
    skipped[i] = (guint) ts.grainsSkipped;
    sum += skipped[i];
  }
  return sum;
}

static void
threads_to_targets (const FabProv *p)
{
  Rig r;
  Producer prod[N_THREADS];
  GThread *th[N_THREADS];
  uint64_t base = 1000;
  guint n_grains, expected, got = 0, per_target[N_TARGETS] = { 0 };
  guint timeouts = 0, timeouts_of[N_TARGETS] = { 0 }, skipped[N_TARGETS] = { 0 };
  /* per target and grain, a bit per range: a result came, an OK one */
  guint seen_of[N_TARGETS][8] = { { 0 } }, ranges_of[N_TARGETS][8] = { { 0 } };
  guint bit, checked = 0;
  mxlFabricsExtInitiatorStats stats;
  gint64 deadline;

  if (!rig_open (&r, p, N_TARGETS, THREAD_OPTS))
    return;
  n_grains = MIN (8u, r.init->base.grain_count);
  for (guint g = 0; g < n_grains; g++)
    fabtest_write_grain (&r.is, base + g, 7, FALSE);

  for (guint k = 0; k < N_THREADS; k++) {
    prod[k] = (Producer) { &r, k, n_grains, base, 0 };
    th[k] = g_thread_new ("producer", produce, &prod[k]);
  }
  for (guint k = 0; k < N_THREADS; k++)
    g_thread_join (th[k]);

  /* One result per transfer call per target, all OK, except for a target
   * found behind the others when the call was taken up: it does not get
   * the grain (TransferGrain's fan-out, src/fabrics/initiator.c
   * conn_behind(); its oldest unfinished transfer 2 grains older, this
   * ring's half, and 50 ms old, while another target is not). Seen under
   * ASan with other tests on 2 cores, where the 20 calls take longer than
   * 50 ms to complete and one target finishes a grain before another:
   * such a call has no result on that target and counts once in its
   * grainsSkipped, so results + skipped make every call exactly. */
  expected = n_grains * N_RANGES * N_TARGETS;
  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (got + skipped_sum (&r, skipped) < expected) {
    mxlFabricsExtTransferResult res;
    mxlStatus st = mxlFabricsExtInitiatorPollTransferResult (r.init, 100, &res);
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    if (st == MXL_ERR_NOT_READY)
      continue;
    g_assert_cmpint (st, ==, MXL_STATUS_OK);
    g_assert_cmpint (res.providerError, ==, 0);
    g_assert_cmpuint (res.grainIndex, >=, base);
    g_assert_cmpuint (res.grainIndex, <, base + n_grains);
    g_assert_cmpuint (res.endSlice - res.startSlice, ==, 1080 / N_RANGES);
    /* A transfer still queued 1 s after its call is dropped unstarted
     * (MXL_TRANSFER_DEADLINE_MS, src/fabrics/protocol/initiator-state.h):
     * seen once in CI, ThreadSanitizer build with another test beside it
     * on 2 cores. Its result is still the one result of that call, with
     * no write; every other result is OK. */
    if (res.status == MXL_ERR_TIMEOUT) {
      g_assert_cmpuint (res.writes, ==, 0);
      timeouts++;
    } else {
      g_assert_cmpint (res.status, ==, MXL_STATUS_OK);
      g_assert_cmpuint (res.writes, >=, 1);
    }
    for (guint i = 0; i < N_TARGETS; i++)
      if (res.targetId == r.id[i]) {
        per_target[i]++;
        timeouts_of[i] += res.status == MXL_ERR_TIMEOUT;
        /* one result per range of a grain per target */
        bit = 1u << (res.startSlice * N_RANGES / 1080);
        g_assert_false (seen_of[i][res.grainIndex - base] & bit);
        seen_of[i][res.grainIndex - base] |= bit;
        if (res.status == MXL_STATUS_OK)
          ranges_of[i][res.grainIndex - base] |= bit;
      }
    got++;
  }
  if (timeouts > 0 || skipped_sum (&r, skipped) > 0)
    g_test_message ("of %u transfers: %u dropped unstarted after 1 s, %u skipped "
        "(target behind)", expected, timeouts, skipped_sum (&r, skipped));
  for (guint i = 0; i < N_TARGETS; i++)
    g_assert_cmpuint (per_target[i] + skipped[i], ==, n_grains * N_RANGES);
  g_assert_cmpint (mxlFabricsInitiatorMakeProgressBlocking (r.init, 1000), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtInitiatorGetStats (r.init, &stats), ==, MXL_STATUS_OK);
  g_assert_cmpuint (stats.transfersQueued, ==, got);
  g_assert_cmpuint (stats.transfersCompleted, ==, got - timeouts);
  g_assert_cmpuint (stats.transfersDropped, ==, timeouts);
  g_assert_cmpuint (stats.transfersFailed, ==, timeouts);
  g_assert_cmpuint (stats.transferResultsDropped, ==, 0);

  /* Every target slot whose 4 ranges all came holds the initiator's
   * payload bytes. (Grains of different threads commit out of order, so
   * the target flow's head is whichever committed last: the slots are
   * compared directly.) */
  for (guint g = 0; g < n_grains; g++) {
    uint32_t slot = (uint32_t) ((base + g) % r.init->base.grain_count);
    gsize size = r.init->base.layout.grain_size;
    char *want = g_compute_checksum_for_data (G_CHECKSUM_MD5,
        r.init->base.regions[slot].base + MXL_LAYOUT_HEADER_SIZE, size);

    for (guint i = 0; i < N_TARGETS; i++) {
      char *have;

      if (ranges_of[i][g] != (1u << N_RANGES) - 1)
        continue;               /* a range of it was not written there */
      have = g_compute_checksum_for_data (G_CHECKSUM_MD5,
          r.t[i]->base.regions[slot].base + MXL_LAYOUT_HEADER_SIZE, size);
      g_assert_cmpstr (have, ==, want);
      g_free (have);
      checked++;
    }
    g_free (want);
  }
  /* a skip costs a target a grain, not the whole test its checks */
  g_assert_cmpuint (checked, >, 0);
  /* The targets' reads pop what their threads committed (the newest
   * completion of a batch is never superseded: a target that received
   * anything committed something). */
  for (guint i = 0; i < N_TARGETS; i++) {
    uint64_t index = 0;
    mxlFabricsExtTargetStats ts;

    if (timeouts_of[i] + skipped[i] < n_grains * N_RANGES) {
      g_assert_cmpint (mxlFabricsTargetReadGrain (r.t[i], 100, &index), ==,
          MXL_STATUS_OK);
      g_assert_cmpuint (index, >=, base);
      g_assert_cmpuint (index, <, base + n_grains);
    }
    g_assert_cmpint (mxlFabricsExtTargetGetStats (r.t[i], &ts), ==, MXL_STATUS_OK);
    g_assert_cmpuint (ts.grainsReceived + ts.completionsSuperseded, ==,
        n_grains * N_RANGES - timeouts_of[i] - skipped[i]);
    g_assert_cmpuint (ts.badGrainHeaders + ts.badImmediateData, ==, 0);
  }
  rig_close (&r);
}

static void test_threads_tcp (void) { threads_to_targets (&fab_tcp); }
static void test_threads_shm (void) { threads_to_targets (&fab_shm); }

/* ---------------------------------------------------- injected faults */

static mxlFabricsExtTransferResult
wait_result (mxlFabricsInitiator init)
{
  mxlFabricsExtTransferResult res;

  memset (&res, 0, sizeof res);
  g_assert_cmpint (mxlFabricsExtInitiatorPollTransferResult (init, 5000, &res), ==,
      MXL_STATUS_OK);
  return res;
}

static void
injected_err (const FabProv *p, MxlInjectKind kind, const char *opts, int err,
    mxlStatus lost_reason)
{
  Rig r;
  mxlFabricsExtTransferResult res;
  mxlFabricsExtInitiatorStats stats;
  mxlFabricsExtConnectionState state;
  mxlFabricsExtConnectionEvent ev;
  gboolean lost = FALSE;

  if (!rig_open (&r, p, 1, opts))
    return;
  fabtest_write_grain (&r.is, 500, 3, FALSE);
  /* A good transfer first: OK. */
  g_assert_cmpint (mxlFabricsInitiatorTransferGrain (r.init, 500, 0, 1080), ==, MXL_STATUS_OK);
  res = wait_result (r.init);
  g_assert_cmpint (res.status, ==, MXL_STATUS_OK);
  g_assert_cmpuint (res.writes, >, 1);          /* cut by maxMessageSize */

  mxl_initiator_debug_inject (r.init, kind, 1, err);
  fabtest_write_grain (&r.is, 501, 4, FALSE);
  g_assert_cmpint (mxlFabricsInitiatorTransferGrain (r.init, 501, 0, 1080), ==, MXL_STATUS_OK);
  res = wait_result (r.init);
  g_assert_cmpint (res.status, !=, MXL_STATUS_OK);
  g_assert_cmpint (res.providerError, ==, err);
  g_assert_cmpuint (res.targetId, ==, r.id[0]);
  g_assert_cmpuint (res.grainIndex, ==, 501);
  g_assert_cmpuint (res.startSlice, ==, 0);
  g_assert_cmpuint (res.endSlice, ==, 1080);
  if (kind == MXL_INJECT_POST_FAILURE)
    g_assert_cmpuint (res.writes, ==, 0);       /* its first post was refused */
  else
    g_assert_cmpuint (res.writes, >=, 1);
  /* Nothing else is reported for it, in particular no success. */
  g_assert_cmpint (mxlFabricsExtInitiatorPollTransferResult (r.init, 200, &res), ==,
      MXL_ERR_NOT_READY);
  g_assert_cmpint (mxlFabricsExtInitiatorGetStats (r.init, &stats), ==, MXL_STATUS_OK);
  g_assert_cmpuint (stats.transfersCompleted, ==, 1);
  g_assert_cmpuint (stats.transfersFailed, ==, 1);
  /* A failed write breaks the connection: reported as lost. */
  g_assert_cmpint (mxlFabricsExtInitiatorGetTargetState (r.init, r.info[0], &state), ==,
      MXL_STATUS_OK);
  g_assert_cmpint (state, ==, MXL_FABRICS_EXT_STATE_LOST);
  /* its LOST event tells why: a transport error, or a write the target's
   * close cancelled (an orderly loss, as its shutdown) */
  while (!lost && mxlFabricsExtInitiatorPollEvent (r.init, &ev) == MXL_STATUS_OK)
    if (ev.current == MXL_FABRICS_EXT_STATE_LOST) {
      lost = TRUE;
      g_assert_cmpint (ev.reason, ==, lost_reason);
    }
  g_assert_true (lost);
  rig_close (&r);
}

static void
injected (const FabProv *p, MxlInjectKind kind, const char *opts)
{
  injected_err (p, kind, opts, FI_EIO, MXL_ERR_UNKNOWN);
}

#define SPLIT_OPTS(thread) "{\"progressThread\": " thread ", \"maxMessageSize\": 1048576}"

static void test_post_failure_tcp (void)
{ injected (&fab_tcp, MXL_INJECT_POST_FAILURE, SPLIT_OPTS ("true")); }
static void test_error_completion_tcp (void)
{ injected (&fab_tcp, MXL_INJECT_ERROR_COMPLETION, SPLIT_OPTS ("true")); }
static void test_error_completion_shm (void)
{ injected (&fab_shm, MXL_INJECT_ERROR_COMPLETION, SPLIT_OPTS ("true")); }
/* The same reporting without a progress thread. */
/* A write cancelled because the receiver closed (tcp cancels what is
 * queued): the loss is the receiver's orderly stop, MXL_ERR_INTERRUPTED,
 * not a transport error (a user saw "the connection failed (UNKNOWN)"). */
static void test_cancelled_completion_tcp (void)
{ injected_err (&fab_tcp, MXL_INJECT_ERROR_COMPLETION, SPLIT_OPTS ("false"),
      FI_ECANCELED, MXL_ERR_INTERRUPTED); }
static void test_error_completion_tcp_nothread (void)
{ injected (&fab_tcp, MXL_INJECT_ERROR_COMPLETION, SPLIT_OPTS ("false")); }

/* ------------------------------------------------------ ring full */

static void
test_ring_full (void)
{
  Rig r;
  mxlFabricsExtInitiatorStats stats;
  gint64 t0, elapsed;
  guint ok = 0;

  if (!rig_open (&r, &fab_tcp, 1, "{\"progressThread\": true, \"postRingCapacity\": 4}"))
    return;
  fabtest_write_grain (&r.is, 10, 1, FALSE);
  /* Holding the initiator's lock keeps its progress thread from taking
   * entries: the ring fills. */
  mxl_lock (&r.init->base.lock);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpint (mxlFabricsInitiatorTransferGrain (r.init, 10, 0, 1080), ==, MXL_STATUS_OK);
  t0 = g_get_monotonic_time ();
  g_assert_cmpint (mxlFabricsInitiatorTransferGrain (r.init, 10, 0, 1080), ==,
      MXL_ERR_NOT_READY);
  elapsed = g_get_monotonic_time () - t0;
  mxl_unlock (&r.init->base.lock);
  /* Retried for its 20 ms deadline, then gave up (bounded). */
  g_assert_cmpint (elapsed, >=, 19000);
  g_assert_cmpint (elapsed, <, 1000000);
  g_assert_cmpint (mxlFabricsExtInitiatorGetStats (r.init, &stats), ==, MXL_STATUS_OK);
  g_assert_cmpuint (stats.postRingFull, ==, 1);
  g_assert_cmpuint (stats.transfersDropped, ==, 1);
  /* The 4 queued ones go through. */
  for (guint i = 0; i < 4; i++) {
    mxlFabricsExtTransferResult res = wait_result (r.init);
    if (res.status == MXL_STATUS_OK)
      ok++;
  }
  g_assert_cmpuint (ok, ==, 4);
  g_assert_cmpint (mxlFabricsInitiatorTransferGrain (r.init, 10, 0, 1080), ==, MXL_STATUS_OK);
  g_assert_cmpint (wait_result (r.init).status, ==, MXL_STATUS_OK);
  rig_close (&r);
}

/* ------------------------------------------------------ start/stop */

static guint
count_dir (const char *path)
{
  DIR *d = opendir (path);
  guint n = 0;

  g_assert_nonnull (d);
  while (readdir (d) != NULL)
    n++;
  closedir (d);
  return n;
}

/* The number of entries of /proc/self/task once it is back to @want, or
 * what it is after 2 s. A joined thread may stay listed for a moment:
 * pthread_join() returns when the kernel clears the thread's id, early in
 * its exit, and the task entry goes only when the exit is finished (CI saw
 * 5 against 4 once). A thread not joined stays listed and still fails. */
static guint
count_tasks_settled (guint want)
{
  gint64 deadline = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  guint n = count_dir ("/proc/self/task");

  while (n != want && g_get_monotonic_time () < deadline) {
    g_usleep (1000);
    n = count_dir ("/proc/self/task");
  }
  return n;
}

static void
start_stop (const FabProv *p, guint n_init, guint n_target)
{
  char *def = fabtest_v210_def (FLOW_ID, "video/v210", 1920, 1080);
  FabSide s;
  guint fds0, tasks0;

  if (!fabtest_require (p)) {
    g_free (def);
    return;
  }
  fabtest_side_init (&s, def, FLOW_ID);
  fds0 = count_dir ("/proc/self/fd");
  tasks0 = count_dir ("/proc/self/task");
  for (guint i = 0; i < n_init; i++) {
    mxlFabricsInitiator init = fabtest_initiator (&s, p, THREAD_OPTS);
    g_assert_true (mxl_progress_running (&init->base.progress));
    g_assert_cmpint (mxlFabricsDestroyInitiator (s.fab, init), ==, MXL_STATUS_OK);
  }
  for (guint i = 0; i < n_target; i++) {
    mxlFabricsTargetInfo info = NULL;
    mxlFabricsTarget t = fabtest_target (&s, p, THREAD_OPTS, &info);
    g_assert_true (mxl_progress_running (&t->base.progress));
    g_assert_cmpint (mxlFabricsDestroyTarget (s.fab, t), ==, MXL_STATUS_OK);
    mxlFabricsFreeTargetInfo (info);
  }
  /* Every thread joined, every eventfd and endpoint closed. */
  g_assert_cmpuint (count_tasks_settled (tasks0), ==, tasks0);
  g_assert_cmpuint (count_dir ("/proc/self/fd"), ==, fds0);
  fabtest_side_clear (&s);
  g_free (def);
}

static void test_start_stop_tcp (void) { start_stop (&fab_tcp, 1000, 1000); }
static void test_start_stop_shm (void) { start_stop (&fab_shm, 300, 100); }

/* ------------------------------------------ reconnect after a loss */

/* The next connection event of the target, driving the initiator (no
 * progress thread); at most 5 s. */
static mxlFabricsExtConnectionEvent
next_event (mxlFabricsInitiator init)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  mxlFabricsExtConnectionEvent ev;

  while (mxlFabricsExtInitiatorPollEvent (init, &ev) != MXL_STATUS_OK) {
    mxlStatus st = mxlFabricsInitiatorMakeProgressBlocking (init, 5);
    g_assert_true (st == MXL_STATUS_OK || st == MXL_ERR_NOT_READY);
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
  }
  return ev;
}

/* Setup option "reconnect": a connection that is lost at once after each
 * connection (an injected post failure breaks it) is retried by the
 * library itself, each time after twice the delay (100, 200, 400, 800 ms;
 * the back-off does not start afresh on a connection that did not stay
 * up), with the exact state sequence connected, lost, idle, connecting,
 * connected; the LOST event says when it is retried. */
static void
test_reconnect_backoff (void)
{
  static const guint64 delays_ms[] = { 100, 200, 400, 800 };
  Rig r;
  mxlFabricsExtInitiatorStats stats;

  mxlFabricsExtConnectionEvent ev;

  if (!rig_open (&r, &fab_tcp, 1, "{\"reconnect\": true}"))
    return;
  /* added and connected (rig_open) */
  while (mxlFabricsExtInitiatorPollEvent (r.init, &ev) == MXL_STATUS_OK)
    g_assert_cmpuint (ev.retryAtNs, ==, 0);
  g_assert_cmpint (ev.current, ==, MXL_FABRICS_EXT_STATE_CONNECTED);
  for (guint k = 0; k < G_N_ELEMENTS (delays_ms); k++) {
    static const mxlFabricsExtConnectionState after[][2] = {
      { MXL_FABRICS_EXT_STATE_LOST, MXL_FABRICS_EXT_STATE_IDLE },
      { MXL_FABRICS_EXT_STATE_IDLE, MXL_FABRICS_EXT_STATE_CONNECTING },
      { MXL_FABRICS_EXT_STATE_CONNECTING, MXL_FABRICS_EXT_STATE_CONNECTED },
    };
    guint64 retry_at;

    mxl_initiator_debug_inject (r.init, MXL_INJECT_POST_FAILURE, 1, FI_EIO);
    fabtest_write_grain (&r.is, 600 + k, 5, FALSE);
    g_assert_cmpint (mxlFabricsInitiatorTransferGrain (r.init, 600 + k, 0, 1080), ==,
        MXL_STATUS_OK);
    ev = next_event (r.init);
    g_assert_cmpuint (ev.targetId, ==, r.id[0]);
    g_assert_cmpint (ev.previous, ==, MXL_FABRICS_EXT_STATE_CONNECTED);
    g_assert_cmpint (ev.current, ==, MXL_FABRICS_EXT_STATE_LOST);
    /* the retry counts from the event's stamp: its delay exactly */
    g_assert_cmpuint (ev.retryAtNs, ==, ev.timestampNs + delays_ms[k] * 1000000u);
    retry_at = ev.retryAtNs;
    for (guint j = 0; j < G_N_ELEMENTS (after); j++) {
      ev = next_event (r.init);
      g_assert_cmpuint (ev.targetId, ==, r.id[0]);
      g_assert_cmpint (ev.previous, ==, after[j][0]);
      g_assert_cmpint (ev.current, ==, after[j][1]);
      g_assert_cmpint (ev.reason, ==, MXL_STATUS_OK);
      g_assert_cmpuint (ev.timestampNs, >=, retry_at);
    }
  }
  g_assert_cmpint (mxlFabricsExtInitiatorGetStats (r.init, &stats), ==, MXL_STATUS_OK);
  g_assert_cmpuint (stats.connectionsLost, ==, G_N_ELEMENTS (delays_ms));
  g_assert_cmpuint (stats.targetsConnected, ==, 1);
  rig_close (&r);
}

/* The wait strategy each provider gets: fds where the CQ has one. */
static void
test_wait_strategy (void)
{
  char *def = fabtest_v210_def (FLOW_ID, "video/v210", 1920, 1080);
  const FabProv *provs[] = { &fab_tcp, &fab_rxm, &fab_shm };
  FabSide s;

  fabtest_side_init (&s, def, FLOW_ID);
  for (guint i = 0; i < G_N_ELEMENTS (provs); i++) {
    mxlFabricsInitiator init;
    if (!fabtest_require (provs[i]))
      continue;
    init = fabtest_initiator (&s, provs[i], THREAD_OPTS);
    g_assert_cmpint (init->base.progress.wait, ==,
        provs[i]->shm ? MXL_PROGRESS_WAIT_SLEEP : MXL_PROGRESS_WAIT_FD);
    g_assert_cmpint (mxlFabricsDestroyInitiator (s.fab, init), ==, MXL_STATUS_OK);
  }
  fabtest_side_clear (&s);
  g_free (def);
}

/* The wait fd of an initiator without a progress thread
 * (mxlFabricsExtInitiatorGetWaitFd): a grain's completion on tcp wakes a
 * poll on it, so an application need not progress on a timer; none with
 * the progress thread or on shm (no wait objects, P9). */
static void
test_wait_fd_tcp (void)
{
  char *def = fabtest_v210_def (FLOW_ID, "video/v210", 1920, 1080);
  mxlFabricsExtInitiatorStats st = { .version = MXL_FABRICS_API_VERSION };
  gint64 deadline;
  guint woken = 0;
  int fd = -2;
  Rig r;
  FabSide s;

  if (!rig_open (&r, &fab_tcp, 1, NULL)) {
    g_free (def);
    return;
  }
  g_assert_cmpint (mxlFabricsExtInitiatorGetWaitFd (r.init, &fd), ==, MXL_STATUS_OK);
  g_assert_cmpint (fd, >=, 0);
  /* A grain whose write completes within the first progress passes never
   * gets to the poll (seen in CI: woken 0); the next grain is tried then,
   * up to 5 */
  for (guint g = 0; g < 5 && woken == 0; g++) {
    fabtest_write_grain (&r.is, 700 + g, 3, FALSE);
    g_assert_cmpint (mxlFabricsInitiatorTransferGrain (r.init, 700 + g, 0,
            1080), ==, MXL_STATUS_OK);
    deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
    for (;;) {
      mxlFabricsInitiatorMakeProgressNonBlocking (r.init);
      g_assert_cmpint (mxlFabricsExtInitiatorGetStats (r.init, &st), ==,
          MXL_STATUS_OK);
      if (st.transfersCompleted == g + 1)
        break;
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      if (mxlFabricsExtInitiatorTryWait (r.init) == MXL_STATUS_OK) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        if (poll (&pfd, 1, 100) > 0)
          woken++;
      }
    }
  }
  g_assert_cmpuint (woken, >=, 1);
  rig_close (&r);

  /* with the progress thread, and on shm: none */
  fabtest_side_init (&s, def, FLOW_ID);
  for (guint i = 0; i < 2; i++) {
    mxlFabricsInitiator init = fabtest_initiator (&s, i == 0 ? &fab_tcp : &fab_shm,
        i == 0 ? THREAD_OPTS : NULL);
    g_assert_cmpint (mxlFabricsExtInitiatorGetWaitFd (init, &fd), ==, MXL_STATUS_OK);
    g_assert_cmpint (fd, ==, -1);
    g_assert_cmpint (mxlFabricsExtInitiatorTryWait (init), ==, MXL_ERR_INVALID_STATE);
    g_assert_cmpint (mxlFabricsDestroyInitiator (s.fab, init), ==, MXL_STATUS_OK);
  }
  fabtest_side_clear (&s);
  g_free (def);
}

/* ---------------------------------------------- interrupting a read */

typedef struct Blocked {
  mxlFabricsTarget t;
  mxlStatus st;
} Blocked;

static gpointer
read_blocked (gpointer data)
{
  Blocked *b = data;
  uint64_t index;

  b->st = mxlFabricsTargetReadGrain (b->t, 10000, &index);
  return NULL;
}

/* A read waiting up to 10 s is interrupted from another thread: it
 * returns INTERRUPTED (had the interrupt come before it waited, it returns
 * it at once: the same result). */
static void
interrupt_blocked (mxlFabricsTarget t)
{
  Blocked b = { .t = t, .st = MXL_STATUS_OK };
  GThread *reader = g_thread_new ("reader", read_blocked, &b);

  g_usleep (50000);
  g_assert_cmpint (mxlFabricsExtTargetInterruptRead (t), ==, MXL_STATUS_OK);
  g_thread_join (reader);
  g_assert_cmpint (b.st, ==, MXL_ERR_INTERRUPTED);
}

/* mxlFabricsExtTargetInterruptRead on a target without the progress
 * thread, whose reads block in libfabric: listening (fi_eq_sread) and
 * connected (fi_cq_sread), the read returns INTERRUPTED, and what the
 * interrupt leaves behind (an FI_NOTIFY entry in the EQ, a signalled CQ)
 * disturbs nothing after: reads find nothing, the initiator connects, a
 * grain arrives with its index. How soon the read returns is a benchmark
 * figure (issue 15), not asserted. */
static void
test_interrupt_read_tcp (void)
{
  char *def = fabtest_v210_def (FLOW_ID, "video/v210", 1920, 1080);
  mxlFabricsTargetInfo info = NULL;
  mxlFabricsInitiator init;
  mxlFabricsTarget t;
  uint64_t index = 0;
  FabSide is, ts;

  if (!fabtest_require (&fab_tcp)) {
    g_free (def);
    return;
  }
  fabtest_side_init (&ts, def, FLOW_ID);
  fabtest_side_init (&is, def, FLOW_ID);
  t = fabtest_target (&ts, &fab_tcp, NULL, &info);
  /* no read waiting: the next read returns it, the one after finds nothing */
  g_assert_cmpint (mxlFabricsExtTargetInterruptRead (t), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsTargetReadGrain (t, 1000, &index), ==,
      MXL_ERR_INTERRUPTED);
  g_assert_cmpint (mxlFabricsTargetReadGrain (t, 0, &index), ==, MXL_ERR_NOT_READY);
  interrupt_blocked (t);

  init = fabtest_initiator (&is, &fab_tcp, NULL);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (init, info), ==, MXL_STATUS_OK);
  fabtest_connect (init, &t, 1, TRUE, 5000);
  interrupt_blocked (t);
  g_assert_cmpint (mxlFabricsTargetReadGrain (t, 0, &index), ==, MXL_ERR_NOT_READY);
  fabtest_write_grain (&is, 700, 3, FALSE);
  g_assert_cmpint (mxlFabricsInitiatorTransferGrain (init, 700, 0, 1080), ==,
      MXL_STATUS_OK);
  g_assert_cmpint (fabtest_read_one (t, init, TRUE, &index, 5000), ==, MXL_STATUS_OK);
  g_assert_cmpuint (index, ==, 700);

  g_assert_cmpint (mxlFabricsDestroyInitiator (is.fab, init), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsDestroyTarget (ts.fab, t), ==, MXL_STATUS_OK);
  mxlFabricsFreeTargetInfo (info);
  fabtest_side_clear (&is);
  fabtest_side_clear (&ts);
  g_free (def);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/progress/tcp/threads", test_threads_tcp);
  g_test_add_func ("/fabrics/progress/shm/threads", test_threads_shm);
  g_test_add_func ("/fabrics/progress/tcp/post-failure", test_post_failure_tcp);
  g_test_add_func ("/fabrics/progress/tcp/error-completion", test_error_completion_tcp);
  g_test_add_func ("/fabrics/progress/shm/error-completion", test_error_completion_shm);
  g_test_add_func ("/fabrics/progress/tcp/error-completion-nothread",
      test_error_completion_tcp_nothread);
  g_test_add_func ("/fabrics/progress/tcp/cancelled-completion",
      test_cancelled_completion_tcp);
  g_test_add_func ("/fabrics/progress/tcp/ring-full", test_ring_full);
  g_test_add_func ("/fabrics/progress/wait-strategy", test_wait_strategy);
  g_test_add_func ("/fabrics/progress/tcp/wait-fd", test_wait_fd_tcp);
  g_test_add_func ("/fabrics/progress/tcp/interrupt-read", test_interrupt_read_tcp);
  g_test_add_func ("/fabrics/progress/tcp/reconnect-backoff", test_reconnect_backoff);
  g_test_add_func ("/fabrics/progress/tcp/start-stop", test_start_stop_tcp);
  g_test_add_func ("/fabrics/progress/shm/start-stop", test_start_stop_shm);
  return g_test_run ();
}
