/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Flows across processes: a writer process and a reader process exchange
 * 1000 grains (SHA-256 over every payload byte), cross-process futex wake-up
 * for grains and samples, and a SIGKILLed writer (docs/flow-format.md §1.7, §1.10,
 * §4.1, §8.2 X2/X4). Every child is stopped by PID on timeout.
 */
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flowtest.h"

#define GRAINS 1000
#define AHEAD 4                 /* writer may run this many grains ahead (N = 11) */
#define BASE_INDEX 1000000000ull

/* fork() whose child is killed when the test process dies (a failed
 * assertion in the parent never leaves a child behind). */
static pid_t
fork_child (void)
{
  pid_t parent = getpid ();
  pid_t pid = fork ();

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0) {
    prctl (PR_SET_PDEATHSIG, SIGKILL);
    if (getppid () != parent)
      _exit (99);
  }
  return pid;
}

/* Waits for @pid at most @timeout_ms; kills it on timeout. Returns the
 * wait status. */
static int
wait_child (pid_t pid, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  int status = 0;

  for (;;) {
    pid_t r = waitpid (pid, &status, WNOHANG);
    if (r == pid)
      return status;
    g_assert_cmpint (r, ==, 0);
    if (g_get_monotonic_time () > deadline) {
      kill (pid, SIGKILL);
      waitpid (pid, &status, 0);
      g_error ("child %d did not finish within %d ms: killed", (int) pid, timeout_ms);
    }
    g_usleep (5000);
  }
}

static void
assert_exit_ok (int status)
{
  if (!WIFEXITED (status))
    g_error ("child died by signal %d", WTERMSIG (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
}

static gboolean
read_full (int fd, void *buf, size_t len, int timeout_ms)
{
  size_t done = 0;

  while (done < len) {
    struct pollfd p = { .fd = fd, .events = POLLIN };
    ssize_t n;

    if (poll (&p, 1, timeout_ms) <= 0)
      return FALSE;
    n = read (fd, (char *) buf + done, len - done);
    if (n <= 0)
      return FALSE;
    done += (size_t) n;
  }
  return TRUE;
}

static void
write_full (int fd, const void *buf, size_t len)
{
  if (write (fd, buf, len) != (ssize_t) len)
    _exit (90);
}

static char *
small_video_def (void)
{
  /* 320x180 v210 at 60000/1001: N = 11, 161 280-byte grains */
  return flowtest_video_def (FIXTURE_VIDEO_ID, "video/v210", 320, 180, 60000, 1001, NULL);
}

static void
fill_payload (uint8_t *p, size_t len, uint64_t index)
{
  uint64_t x = index * 0x9E3779B97F4A7C15ull + 1;

  for (size_t i = 0; i + 8 <= len; i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    memcpy (p + i, &x, 8);
  }
}

/* ---- 1000 grains between two processes ---- */

static void
writer_1000 (const char *domain, int ready_fd, int ack_fd, int digest_fd)
{
  char *def = small_video_def ();
  mxlInstance inst = mxlCreateInstance (domain, NULL);
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  mxlFlowWriter w;
  uint64_t acked = 0;

  if (inst == NULL || mxlCreateFlowWriter (inst, def, NULL, &w, NULL, NULL) != MXL_STATUS_OK)
    _exit (10);
  write_full (ready_fd, "R", 1);
  for (uint64_t i = 0; i < GRAINS; i++) {
    mxlGrainInfo gi;
    uint8_t *p;

    /* flow control over a pipe: never more than AHEAD grains ahead */
    while (i >= acked + AHEAD) {
      uint64_t a;
      if (!read_full (ack_fd, &a, sizeof a, 10000))
        _exit (11);
      acked = a + 1;
    }
    if (mxlFlowWriterOpenGrain (w, BASE_INDEX + i, &gi, &p) != MXL_STATUS_OK)
      _exit (12);
    fill_payload (p, gi.grainSize, BASE_INDEX + i);
    g_checksum_update (sum, p, gi.grainSize);
    gi.validSlices = gi.totalSlices;
    gi.flags = 0;
    if (mxlFlowWriterCommitGrain (w, &gi) != MXL_STATUS_OK)
      _exit (13);
  }
  write_full (digest_fd, g_checksum_get_string (sum), 64);
  /* stay alive (and the flow with us) until the reader is done */
  {
    uint64_t a = 0;
    while (acked < GRAINS && read_full (ack_fd, &a, sizeof a, 10000))
      acked = a + 1;
  }
  mxlDestroyInstance (inst);
  _exit (acked == GRAINS ? 0 : 14);
}

static void
reader_1000 (const char *domain, int ack_fd, int digest_fd)
{
  mxlInstance inst = mxlCreateInstance (domain, NULL);
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA256);
  mxlFlowReader r;

  if (inst == NULL || mxlCreateFlowReader (inst, FIXTURE_VIDEO_ID, NULL, &r) != MXL_STATUS_OK)
    _exit (20);
  for (uint64_t i = 0; i < GRAINS; i++) {
    mxlGrainInfo gi;
    uint8_t *p;
    mxlStatus st = mxlFlowReaderGetGrain (r, BASE_INDEX + i, 2000000000ull, &gi, &p);

    if (st != MXL_STATUS_OK)
      _exit (21 + (int) st);
    if (gi.index != BASE_INDEX + i || gi.validSlices != 180)
      _exit (40);
    g_checksum_update (sum, p, gi.grainSize);
    write_full (ack_fd, &i, sizeof i);
  }
  write_full (digest_fd, g_checksum_get_string (sum), 64);
  mxlDestroyInstance (inst);
  _exit (0);
}

static void
test_grains_1000 (void)
{
  char *domain = flowtest_domain_new ();
  int ready[2], ack[2], wdig[2], rdig[2];
  char wsum[65] = { 0 }, rsum[65] = { 0 }, c;
  pid_t writer, reader;
  gint64 t0 = g_get_monotonic_time ();

  g_assert_cmpint (pipe (ready), ==, 0);
  g_assert_cmpint (pipe (ack), ==, 0);
  g_assert_cmpint (pipe (wdig), ==, 0);
  g_assert_cmpint (pipe (rdig), ==, 0);
  writer = fork_child ();
  if (writer == 0)
    writer_1000 (domain, ready[1], ack[0], wdig[1]);
  if (!read_full (ready[0], &c, 1, 10000)) {
    kill (writer, SIGKILL);
    g_error ("writer never created the flow");
  }
  reader = fork_child ();
  if (reader == 0)
    reader_1000 (domain, ack[1], rdig[1]);

  /* Within meson's 120 s: 40 s for the writer's digest, 20 s for the reader's, 20 s per child. A
   * child that failed says so by its exit code (10-14 writer, 20-40
   * reader), which the wait reports. */
  if (!read_full (wdig[0], wsum, 64, 40000) || !read_full (rdig[0], rsum, 64, 20000)) {
    int ws, rs;
    kill (writer, SIGKILL);
    kill (reader, SIGKILL);
    waitpid (writer, &ws, 0);
    waitpid (reader, &rs, 0);
    g_error ("no digests after %.1f s: writer %s %d, reader %s %d",
        (g_get_monotonic_time () - t0) / 1e6,
        WIFEXITED (ws) ? "exit" : "signal", WIFEXITED (ws) ? WEXITSTATUS (ws) : WTERMSIG (ws),
        WIFEXITED (rs) ? "exit" : "signal", WIFEXITED (rs) ? WEXITSTATUS (rs) : WTERMSIG (rs));
  }
  assert_exit_ok (wait_child (reader, 20000));
  assert_exit_ok (wait_child (writer, 20000));
  g_test_message ("1000 grains of 161280 bytes in %.1f ms, sha256 %s",
      (g_get_monotonic_time () - t0) / 1000.0, rsum);
  g_assert_cmpstr (rsum, ==, wsum);
  for (int i = 0; i < 2; i++) {
    close (ready[i]);
    close (ack[i]);
    close (wdig[i]);
    close (rdig[i]);
  }
  flowtest_domain_free (domain);
}

/* ---- wake-up across processes ---- */

#define WAKES 40

/* Commits WAKES grains, 5 ms apart, each stamped with its commit time;
 * from the second on, only once the reader said it has the one before
 * (lock-step, at most 10 s each): a reader starved of the CPU for the ring
 * (11 grains, 55 ms) on a loaded machine would otherwise be lapped
 * (MXL_ERR_OUT_OF_RANGE_TOO_LATE), which is not what this measures. */
static void
wake_writer (const char *domain, int ready_fd, gboolean audio)
{
  char *def = audio ? flowtest_audio_def () : small_video_def ();
  mxlInstance inst = mxlCreateInstance (domain, NULL);
  mxlFlowWriter w;
  char go;

  if (inst == NULL || mxlCreateFlowWriter (inst, def, NULL, &w, NULL, NULL) != MXL_STATUS_OK)
    _exit (10);
  write_full (ready_fd, "R", 1);
  /* the parent says go once its reader is open */
  if (!read_full (ready_fd, &go, 1, 10000))
    _exit (11);
  for (uint64_t k = 1; k <= WAKES; k++) {
    uint64_t now;

    if (k > 1 && !read_full (ready_fd, &go, 1, 10000))
      _exit (15);
    mxlSleepForNs (5000000);
    now = mxlGetTime ();
    if (audio) {
      mxlMutableWrappedMultiBufferSlice s;
      if (mxlFlowWriterOpenSamples (w, k * 480, 480, &s) != MXL_STATUS_OK)
        _exit (12);
      /* the newest sample of channel 0 carries the commit time */
      memset (s.base.fragments[0].pointer, (int) k, s.base.fragments[0].size);
      memcpy ((uint8_t *) s.base.fragments[0].pointer + s.base.fragments[0].size - 8, &now, 8);
      if (mxlFlowWriterCommitSamples (w) != MXL_STATUS_OK)
        _exit (13);
    } else {
      mxlGrainInfo gi;
      uint8_t *p;
      if (mxlFlowWriterOpenGrain (w, k, &gi, &p) != MXL_STATUS_OK)
        _exit (12);
      memcpy (p, &now, 8);
      gi.validSlices = gi.totalSlices;
      gi.flags = 0;
      if (mxlFlowWriterCommitGrain (w, &gi) != MXL_STATUS_OK)
        _exit (13);
    }
  }
  if (!read_full (ready_fd, &go, 1, 10000))
    _exit (14);
  mxlDestroyInstance (inst);
  _exit (0);
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

static void
wakeup_case (gboolean audio)
{
  char *domain = flowtest_domain_new ();
  int sv[2];
  char c;
  pid_t writer;
  mxlInstance inst;
  mxlFlowReader r;
  uint64_t lat[WAKES];

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM, 0, sv), ==, 0);
  writer = fork_child ();
  if (writer == 0) {
    close (sv[0]);
    wake_writer (domain, sv[1], audio);
  }
  close (sv[1]);
  if (!read_full (sv[0], &c, 1, 10000)) {
    kill (writer, SIGKILL);
    g_error ("writer never created the flow");
  }
  inst = mxlCreateInstance (domain, NULL);
  g_assert_cmpint (mxlCreateFlowReader (inst, audio ? FIXTURE_AUDIO_ID : FIXTURE_VIDEO_ID, NULL, &r), ==, MXL_STATUS_OK);
  g_assert_cmpint (write (sv[0], "G", 1), ==, 1);
  for (uint64_t k = 1; k <= WAKES; k++) {
    uint64_t stamp, woke;
    gint64 t0 = g_get_monotonic_time ();
    mxlStatus st;

    if (audio) {
      mxlWrappedMultiBufferSlice s;
      st = mxlFlowReaderGetSamples (r, k * 480, 480, 1000000000ull, &s);
      woke = mxlGetTime ();
      g_assert_cmpint (st, ==, MXL_STATUS_OK);
      g_assert_cmpuint (s.base.fragments[1].size, ==, 0);
      memcpy (&stamp, (const uint8_t *) s.base.fragments[0].pointer + s.base.fragments[0].size - 8, 8);
      g_assert_cmpuint (((const uint8_t *) s.base.fragments[0].pointer)[0], ==, (uint8_t) k);
    } else {
      mxlGrainInfo gi;
      uint8_t *p;
      st = mxlFlowReaderGetGrain (r, k, 1000000000ull, &gi, &p);
      woke = mxlGetTime ();
      g_assert_cmpint (st, ==, MXL_STATUS_OK);
      memcpy (&stamp, p, 8);
    }
    /* woken by the writer's FUTEX_WAKE, long before the 1 s timeout */
    g_assert_cmpint (g_get_monotonic_time () - t0, <, 500000);
    g_assert_cmpuint (woke, >=, stamp);
    lat[k - 1] = woke - stamp;
    if (k < WAKES)              /* the writer's lock-step (wake_writer()) */
      g_assert_cmpint (write (sv[0], "A", 1), ==, 1);
  }
  g_assert_cmpint (write (sv[0], "D", 1), ==, 1);
  assert_exit_ok (wait_child (writer, 10000));
  qsort (lat, WAKES, sizeof lat[0], cmp_u64);
  g_test_message ("%s wake-up latency across processes: median %" G_GUINT64_FORMAT
      " us, max %" G_GUINT64_FORMAT " us", audio ? "samples" : "grain",
      lat[WAKES / 2] / 1000, lat[WAKES - 1] / 1000);
  /* generous: a median over 20 ms would mean polling, not a futex wake */
  g_assert_cmpuint (lat[WAKES / 2], <, 20000000);
  mxlDestroyInstance (inst);
  close (sv[0]);
  flowtest_domain_free (domain);
}

static void
test_wakeup_grains (void)
{
  wakeup_case (FALSE);
}

static void
test_wakeup_samples (void)
{
  wakeup_case (TRUE);
}

/* ---- a writer killed with SIGKILL ---- */

static pid_t
spawn_idle_writer (const char *domain, uint64_t commits)
{
  int p[2];
  char c;
  pid_t pid;

  g_assert_cmpint (pipe (p), ==, 0);
  pid = fork_child ();
  if (pid == 0) {
    char *def = small_video_def ();
    mxlInstance inst = mxlCreateInstance (domain, NULL);
    mxlFlowWriter w;

    if (inst == NULL || mxlCreateFlowWriter (inst, def, NULL, &w, NULL, NULL) != MXL_STATUS_OK)
      _exit (10);
    for (uint64_t i = 1; i <= commits; i++) {
      mxlGrainInfo gi;
      uint8_t *pl;
      mxlFlowWriterOpenGrain (w, i, &gi, &pl);
      gi.validSlices = gi.totalSlices;
      mxlFlowWriterCommitGrain (w, &gi);
    }
    write_full (p[1], "R", 1);
    for (;;)
      pause ();
  }
  close (p[1]);
  if (!read_full (p[0], &c, 1, 10000)) {
    kill (pid, SIGKILL);
    g_error ("writer did not start");
  }
  close (p[0]);
  return pid;
}

static void
test_killed_writer (void)
{
  char *domain = flowtest_domain_new ();
  char *dir = flowtest_flow_path (domain, FIXTURE_VIDEO_ID, "");
  mxlInstance inst = mxlCreateInstance (domain, NULL);
  pid_t pid = spawn_idle_writer (domain, 7);
  mxlFlowReader r;
  mxlGrainInfo gi;
  uint8_t *p;
  bool active = false;
  int status;

  g_assert_cmpint (mxlCreateFlowReader (inst, FIXTURE_VIDEO_ID, NULL, &r), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlIsFlowActive (inst, FIXTURE_VIDEO_ID, &active), ==, MXL_STATUS_OK);
  g_assert_true (active);
  /* the live writer's flow survives garbage collection */
  g_assert_cmpint (mxlGarbageCollectFlows (inst), ==, MXL_STATUS_OK);
  g_assert_true (g_file_test (dir, G_FILE_TEST_IS_DIR));

  g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
  status = wait_child (pid, 10000);
  g_assert_true (WIFSIGNALED (status));
  /* stale: not active, still readable, new indices TOO_EARLY (inode intact) */
  g_assert_cmpint (mxlIsFlowActive (inst, FIXTURE_VIDEO_ID, &active), ==, MXL_STATUS_OK);
  g_assert_false (active);
  g_assert_cmpint (mxlFlowReaderGetGrainNonBlocking (r, 7, &gi, &p), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFlowReaderGetGrain (r, 8, 1000000, &gi, &p), ==, MXL_ERR_OUT_OF_RANGE_TOO_EARLY);

  g_assert_cmpint (mxlGarbageCollectFlows (inst), ==, MXL_STATUS_OK);
  g_assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));
  /* our reader, still mapped, learns on its next TOO_EARLY (§8.2 X4) */
  g_assert_cmpint (mxlFlowReaderGetGrainNonBlocking (r, 8, &gi, &p), ==, MXL_ERR_FLOW_INVALID);
  g_assert_cmpint (mxlIsFlowActive (inst, FIXTURE_VIDEO_ID, &active), ==, MXL_ERR_FLOW_NOT_FOUND);
  mxlDestroyInstance (inst);
  g_free (dir);
  flowtest_domain_free (domain);
}

static void
test_restart_before_gc (void)
{
  char *domain = flowtest_domain_new ();
  char *dir = flowtest_flow_path (domain, FIXTURE_VIDEO_ID, "");
  char *def = small_video_def ();
  mxlInstance inst = mxlCreateInstance (domain, NULL);
  pid_t pid = spawn_idle_writer (domain, 9);
  mxlFlowWriter w;
  mxlFlowReader r;
  mxlFlowRuntimeInfo rt;
  bool created = true;

  g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
  wait_child (pid, 10000);
  /* §1.10: the restarted writer reopens the old flow, head preserved */
  g_assert_cmpint (mxlCreateFlowWriter (inst, def, NULL, &w, NULL, &created), ==, MXL_STATUS_OK);
  g_assert_false (created);
  g_assert_cmpint (mxlCreateFlowReader (inst, FIXTURE_VIDEO_ID, NULL, &r), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFlowReaderGetRuntimeInfo (r, &rt), ==, MXL_STATUS_OK);
  g_assert_cmpuint (rt.headIndex, ==, 9);
  g_assert_cmpint (mxlGarbageCollectFlows (inst), ==, MXL_STATUS_OK);
  g_assert_true (g_file_test (dir, G_FILE_TEST_IS_DIR));
  g_assert_cmpint (mxlReleaseFlowWriter (inst, w), ==, MXL_STATUS_OK);
  g_assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));
  mxlDestroyInstance (inst);
  g_free (def);
  g_free (dir);
  flowtest_domain_free (domain);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/flow-ipc/grains-1000", test_grains_1000);
  g_test_add_func ("/flow-ipc/wakeup-grains", test_wakeup_grains);
  g_test_add_func ("/flow-ipc/wakeup-samples", test_wakeup_samples);
  g_test_add_func ("/flow-ipc/killed-writer", test_killed_writer);
  g_test_add_func ("/flow-ipc/restart-before-gc", test_restart_before_gc);
  return g_test_run ();
}
