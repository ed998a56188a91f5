/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Time an application thread spends in mxlFabricsInitiatorTransferGrain()
 * with and without the progress thread (setup option "progressThread"),
 * 1080p v210 grains to one target in the same process, over tcp and shm,
 * side by side in one run. At most WINDOW grains are in flight (results are
 * polled with mxlFabricsExtInitiatorPollTransferResult, which also drives
 * progress when there is no thread). The target runs in a child process
 * of its own (as on another host: its threads, page faults and memory
 * maps do not interrupt the timed thread). Prints p50/p99/max of the call time
 * and the bytes per second of each run; the modes alternate, round after
 * round, and the last lines give the median of each figure over the rounds
 * with its range.
 *
 * On a machine with fewer cores than busy threads (here: the caller, the
 * progress thread, the target's reader and the kernel's tcp work on 2
 * cores) a call is sometimes descheduled in the middle: its wall time is
 * then the scheduler's, not ours. Every call's involuntary context switches
 * are counted (getrusage RUSAGE_THREAD, outside the timed window); "pre"
 * is how many calls were preempted and "p99 run" the 99th percentile of
 * the calls that were not. "blk" counts calls that blocked (a voluntary
 * switch: a contended lock, a wait), which a call that only enqueues must
 * not do. "ctl p99" is the 99th percentile of a 1 us busy loop timed
 * right after each call under the same load: what the machine adds to any
 * 1 us window of this thread.
 *
 *   bench-progress-latency [grains per run, default 600] [rounds, default 5]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>
#include <mxl/flow.h>
#include <mxl/mxl.h>

#include "benchutil.h"

#define FLOW_ID "3b8e4c9e-1f0c-4f54-bb0a-6c2e9f1d4a70"
#define WINDOW 4

static const char *flow_def =
  "{\"id\":\"" FLOW_ID "\",\"description\":\"bench\",\"format\":\"urn:x-nmos:format:video\","
  "\"label\":\"bench\",\"tags\":{\"urn:x-nmos:tag:grouphint/v1.0\":[\"Bench:Video\"]},"
  "\"parents\":[],\"media_type\":\"video/v210\","
  "\"grain_rate\":{\"numerator\":50,\"denominator\":1},\"frame_width\":1920,"
  "\"frame_height\":1080,\"interlace_mode\":\"progressive\",\"colorspace\":\"BT709\"}";

typedef struct Side {
  char dir[64];
  mxlInstance mxl;
  mxlFabricsInstance fab;
  mxlFlowWriter writer;
  mxlFlowReader reader;
} Side;

typedef struct Reader {
  mxlFabricsTarget t;
  volatile gint stop;
  guint64 grains;
} Reader;

static gboolean
side_open (Side *s)
{
  strcpy (s->dir, "/dev/shm/mxl-bench-XXXXXX");
  if (g_mkdtemp (s->dir) == NULL)
    return FALSE;
  s->mxl = mxlCreateInstance (s->dir, NULL);
  return s->mxl != NULL && mxlFabricsCreateInstance (s->mxl, NULL, &s->fab) == MXL_STATUS_OK
      && mxlCreateFlowWriter (s->mxl, flow_def, NULL, &s->writer, NULL, NULL) == MXL_STATUS_OK
      && mxlCreateFlowReader (s->mxl, FLOW_ID, NULL, &s->reader) == MXL_STATUS_OK;
}

static void
side_close (Side *s)
{
  char *cmd;
  mxlFabricsDestroyInstance (s->fab);
  mxlReleaseFlowReader (s->mxl, s->reader);
  mxlReleaseFlowWriter (s->mxl, s->writer);
  mxlDestroyInstance (s->mxl);
  cmd = g_strdup_printf ("rm -rf '%s'", s->dir);
  if (system (cmd) != 0)
    fprintf (stderr, "could not remove %s\n", s->dir);
  g_free (cmd);
}

static gpointer
read_loop (gpointer data)
{
  Reader *r = data;
  while (!g_atomic_int_get (&r->stop)) {
    uint64_t index;
    if (mxlFabricsTargetReadGrain (r->t, 20, &index) == MXL_STATUS_OK)
      r->grains++;
  }
  return NULL;
}

static mxlFabricsInterfaceConfig
iface (mxlFabricsProvider prov, const char *node)
{
  mxlFabricsInterfaceConfig c;
  memset (&c, 0, sizeof c);
  c.provider = prov;
  c.caps.flags = MXL_FABRICS_IFACE_CAP_REMOTE_WRITE | MXL_FABRICS_IFACE_CAP_BLOCKING_OPERATIONS;
  c.address.node = node;
  c.address.service = prov == MXL_FABRICS_PROVIDER_SHM ? "bench" : NULL;
  return c;
}

typedef struct Result {
  double p50_us, p99_us, max_us, p99_run_us, p99_control_us, bytes_per_s;
  guint failed, not_ready, preempted, blocked;
} Result;

/* Context switches of the calling thread: involuntary (preempted) in
 * @out_inv, voluntary (it blocked: a lock, a sleep, a syscall that waits)
 * returned. */
static long
context_switches (long *out_inv)
{
  struct rusage ru;
  getrusage (RUSAGE_THREAD, &ru);
  *out_inv = ru.ru_nivcsw;
  return ru.ru_nvcsw;
}

/* Child: the target (its own MXL domain), a reader thread draining grains;
 * sends its TargetInfo on @fd, runs until the parent closes @fd. */
static void G_GNUC_NORETURN
target_child (mxlFabricsProvider prov, gboolean thread, const char *tname, int fd)
{
  const char *opts = thread ? "{\"progressThread\": true}" : NULL;
  Side ts;
  mxlFabricsTarget t;
  mxlFabricsTargetInfo info;
  mxlFabricsTargetConfig tc;
  Reader rd;
  GThread *rth;
  char *str;
  size_t len = 0;
  uint32_t n32;
  char c;

  if (!side_open (&ts))
    _exit (2);
  memset (&tc, 0, sizeof tc);
  tc.interface = iface (prov, prov == MXL_FABRICS_PROVIDER_SHM ? tname : "127.0.0.1");
  tc.writer = ts.writer;
  if (mxlFabricsCreateTarget (ts.fab, &t) != MXL_STATUS_OK
      || mxlFabricsTargetSetup (t, &tc, opts, &info) != MXL_STATUS_OK
      || mxlFabricsTargetInfoToString (info, NULL, &len) != MXL_STATUS_OK)
    _exit (3);
  str = g_malloc (len);
  if (mxlFabricsTargetInfoToString (info, str, &len) != MXL_STATUS_OK)
    _exit (4);
  n32 = (uint32_t) strlen (str);
  if (!bench_write_all (fd, &n32, sizeof n32) || !bench_write_all (fd, str, n32))
    _exit (5);
  memset (&rd, 0, sizeof rd);
  rd.t = t;
  rth = g_thread_new ("reader", read_loop, &rd);
  /* until the parent closes its end (or 600 s) */
  bench_read_all (fd, &c, 1, bench_now_s () + 600);
  g_atomic_int_set (&rd.stop, 1);
  g_thread_join (rth);
  mxlFabricsFreeTargetInfo (info);
  mxlFabricsDestroyTarget (ts.fab, t);
  side_close (&ts);
  g_free (str);
  _exit (0);
}

/* Waits for @child at most 10 s, then kills it. */
static void
reap (pid_t child)
{
  int status;

  for (int i = 0; i < 1000; i++) {
    if (waitpid (child, &status, WNOHANG) == child)
      return;
    g_usleep (10000);
  }
  fprintf (stderr, "target process %d did not stop: killed\n", (int) child);
  kill (child, SIGKILL);
  waitpid (child, &status, 0);
}

static guint run_count;

static gboolean
run (mxlFabricsProvider prov, gboolean thread, guint n, Result *out)
{
  const char *opts = thread ? "{\"progressThread\": true}" : NULL;
  char tname[64], iname[64], *str;
  Side is;
  mxlFabricsInitiator init;
  mxlFabricsTargetInfo info;
  mxlFabricsInitiatorConfig ic;
  double *lat = g_new0 (double, n), *run_lat = g_new0 (double, n), t0, t1;
  double *control = g_new0 (double, n);
  guint in_flight = 0, done = 0, n_run = 0;
  mxlGrainInfo gi;
  uint8_t *payload;
  uint64_t grain_bytes = 0;
  uint32_t n32 = 0;
  int sv[2];
  pid_t child;
  mxlStatus st;

  memset (out, 0, sizeof *out);
  run_count++;
  g_snprintf (tname, sizeof tname, "tgt-bench-%d-%u", (int) getpid (), run_count);
  g_snprintf (iname, sizeof iname, "ini-bench-%d-%u", (int) getpid (), run_count);
  if (socketpair (AF_UNIX, SOCK_STREAM, 0, sv) != 0)
    return FALSE;
  child = fork ();
  if (child < 0)
    return FALSE;
  if (child == 0) {
    close (sv[0]);
    target_child (prov, thread, tname, sv[1]);
  }
  close (sv[1]);
  if (!bench_read_all (sv[0], &n32, sizeof n32, bench_now_s () + 20) || n32 == 0
      || n32 > 1u << 20)
    goto child_failed;
  str = g_malloc0 (n32 + 1);
  if (!bench_read_all (sv[0], str, n32, bench_now_s () + 5)
      || mxlFabricsTargetInfoFromString (str, &info) != MXL_STATUS_OK) {
    g_free (str);
    goto child_failed;
  }
  g_free (str);
  if (!side_open (&is))
    goto child_failed;
  /* Initiator grains: committed once, transferred again and again. */
  for (uint64_t i = 0; i < 16; i++) {
    if (mxlFlowWriterOpenGrain (is.writer, 100 + i, &gi, &payload) != MXL_STATUS_OK)
      break;
    memset (payload, (int) i, gi.grainSize);
    grain_bytes = gi.grainSize;
    mxlFlowWriterCommitGrain (is.writer, &gi);
  }
  memset (&ic, 0, sizeof ic);
  ic.interface = iface (prov, prov == MXL_FABRICS_PROVIDER_SHM ? iname : "127.0.0.1");
  ic.reader = is.reader;
  if (mxlFabricsCreateInitiator (is.fab, &init) != MXL_STATUS_OK
      || mxlFabricsInitiatorSetup (init, &ic, opts) != MXL_STATUS_OK
      || mxlFabricsInitiatorAddTarget (init, info) != MXL_STATUS_OK)
    goto child_failed;
  t0 = bench_now_s ();
  while ((st = mxlFabricsInitiatorMakeProgressBlocking (init, 10)) == MXL_ERR_NOT_READY
      && bench_now_s () - t0 < 5)
    ;
  if (st != MXL_STATUS_OK)
    goto child_failed;

  t0 = bench_now_s ();
  for (guint i = 0; i < n; i++) {
    double a, b;
    long vol, inv, vol2, inv2;
    mxlFabricsExtTransferResult res;
    /* Window: wait for results (not timed). */
    while (in_flight >= WINDOW) {
      if (mxlFabricsExtInitiatorPollTransferResult (init, 100, &res) == MXL_STATUS_OK) {
        in_flight--;
        done++;
        out->failed += res.status != MXL_STATUS_OK;
      }
    }
    vol = context_switches (&inv);
    a = bench_now_s ();
    st = mxlFabricsInitiatorTransferGrain (init, 100 + (i % 5), 0, 1080);
    b = bench_now_s ();
    lat[i] = (b - a) * 1e6;
    vol2 = context_switches (&inv2);
    out->blocked += vol2 != vol;
    if (inv2 == inv)
      run_lat[n_run++] = lat[i];
    else
      out->preempted++;
    if (st == MXL_STATUS_OK)
      in_flight++;
    else
      out->not_ready++;
    /* Control: a 1 us busy window under the same load, right after the
     * call. Its 99th percentile is what interrupts and the hypervisor add
     * to any 1 us of this thread, whatever it runs. */
    a = bench_now_s ();
    while ((b = bench_now_s ()) - a < 1e-6)
      ;
    control[i] = (b - a) * 1e6;
  }
  while (in_flight > 0) {
    mxlFabricsExtTransferResult res;
    if (mxlFabricsExtInitiatorPollTransferResult (init, 1000, &res) != MXL_STATUS_OK)
      break;
    in_flight--;
    done++;
    out->failed += res.status != MXL_STATUS_OK;
  }
  t1 = bench_now_s ();
  qsort (lat, n, sizeof (double), bench_cmp_double);
  out->p50_us = lat[n / 2];
  out->p99_us = lat[(size_t) (n * 0.99)];
  out->max_us = lat[n - 1];
  if (n_run > 0) {
    qsort (run_lat, n_run, sizeof (double), bench_cmp_double);
    out->p99_run_us = run_lat[(size_t) (n_run * 0.99)];
  }
  qsort (control, n, sizeof (double), bench_cmp_double);
  out->p99_control_us = control[(size_t) (n * 0.99)];
  out->bytes_per_s = (double) done * (double) grain_bytes / (t1 - t0);
  mxlFabricsFreeTargetInfo (info);
  mxlFabricsDestroyInitiator (is.fab, init);
  side_close (&is);
  close (sv[0]);
  reap (child);
  g_free (lat);
  g_free (run_lat);
  g_free (control);
  return TRUE;

child_failed:
  close (sv[0]);
  kill (child, SIGKILL);
  reap (child);
  g_free (lat);
  g_free (run_lat);
  g_free (control);
  return FALSE;
}

#define MAX_ROUNDS 20

static double
median_of (double *v, guint n, double *lo, double *hi)
{
  qsort (v, n, sizeof (double), bench_cmp_double);
  *lo = v[0];
  *hi = v[n - 1];
  return v[n / 2];
}

static void
print_row (const char *prov, const char *mode, const char *round, const Result *r)
{
  printf ("%-4s %-7s %-6s %9.2f %9.2f %9.2f %10.2f %8.2f %5u %5u %9.1f %6u %8u\n", prov,
      mode, round, r->p50_us, r->p99_us, r->max_us, r->p99_run_us, r->p99_control_us,
      r->preempted, r->blocked, r->bytes_per_s / 1e6, r->failed, r->not_ready);
}

int
main (int argc, char **argv)
{
  guint n = argc > 1 ? (guint) atoi (argv[1]) : 600;
  guint rounds = argc > 2 ? (guint) atoi (argv[2]) : 5;
  static const struct { const char *name; mxlFabricsProvider prov; } provs[] = {
    { "tcp", MXL_FABRICS_PROVIDER_TCP }, { "shm", MXL_FABRICS_PROVIDER_SHM },
  };
  static Result res[2][2][MAX_ROUNDS];
  gboolean ok[2][2][MAX_ROUNDS] = { { { FALSE } } };

  n = MAX (n, 10);
  rounds = CLAMP (rounds, 1, MAX_ROUNDS);
  g_log_set_always_fatal (G_LOG_FATAL_MASK);
  printf ("1080p v210 grains, %u per run, window %d, one target, %u rounds "
      "(modes alternate in each round); times in microseconds\n", n, WINDOW, rounds);
  printf ("%-4s %-7s %-6s %9s %9s %9s %10s %8s %5s %5s %9s %6s %8s\n", "prov", "mode",
      "round", "p50", "p99", "max", "p99 run", "ctl p99", "pre", "blk", "MB/s", "failed",
      "notready");
  for (guint k = 0; k < rounds; k++) {
    for (guint p = 0; p < G_N_ELEMENTS (provs); p++) {
      for (int thread = 0; thread < 2; thread++) {
        char round[16];
        const char *mode = thread ? "thread" : "caller";

        g_snprintf (round, sizeof round, "%u", k + 1);
        ok[p][thread][k] = run (provs[p].prov, thread, n, &res[p][thread][k]);
        if (!ok[p][thread][k])
          printf ("%-4s %-7s %-6s setup failed\n", provs[p].name, mode, round);
        else
          print_row (provs[p].name, mode, round, &res[p][thread][k]);
        fflush (stdout);
      }
    }
  }
  printf ("\nmedian over rounds [min .. max]\n");
  for (guint p = 0; p < G_N_ELEMENTS (provs); p++) {
    double with_tp = 0, without_tp = 0;
    for (int thread = 0; thread < 2; thread++) {
      double p99[MAX_ROUNDS], run99[MAX_ROUNDS], bps[MAX_ROUNDS], p50[MAX_ROUNDS];
      double ctl[MAX_ROUNDS];
      double lo1, hi1, lo2, hi2, lo3, hi3, lo4, hi4, lo5, hi5, m1, m2, m3, m4, m5;
      guint c = 0;
      for (guint k = 0; k < rounds; k++) {
        if (!ok[p][thread][k])
          continue;
        p50[c] = res[p][thread][k].p50_us;
        p99[c] = res[p][thread][k].p99_us;
        run99[c] = res[p][thread][k].p99_run_us;
        bps[c] = res[p][thread][k].bytes_per_s / 1e6;
        ctl[c] = res[p][thread][k].p99_control_us;
        c++;
      }
      if (c == 0)
        continue;
      m1 = median_of (p50, c, &lo1, &hi1);
      m2 = median_of (p99, c, &lo2, &hi2);
      m3 = median_of (run99, c, &lo3, &hi3);
      m4 = median_of (bps, c, &lo4, &hi4);
      m5 = median_of (ctl, c, &lo5, &hi5);
      printf ("%-4s %-7s p50 %.2f [%.2f .. %.2f]  p99 %.2f [%.2f .. %.2f]  "
          "p99 run %.2f [%.2f .. %.2f]  control p99 %.2f [%.2f .. %.2f]  "
          "MB/s %.0f [%.0f .. %.0f]\n", provs[p].name,
          thread ? "thread" : "caller", m1, lo1, hi1, m2, lo2, hi2, m3, lo3, hi3,
          m5, lo5, hi5, m4, lo4, hi4);
      if (thread)
        with_tp = m4;
      else
        without_tp = m4;
    }
    if (without_tp > 0)
      printf ("%-4s bytes/s with the thread / without: %.2f\n", provs[p].name,
          with_tp / without_tp);
  }
  return 0;
}
