/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Time an application thread spends in mxlFabricsInitiatorTransferGrain()
 * with and without the progress thread (setup option "progressThread"),
 * 1080p v210 grains to one target in the same process, over tcp and shm,
 * side by side in one run. At most WINDOW grains are in flight (results are
 * polled with mxlFabricsExtInitiatorPollTransferResult, which also drives
 * progress when there is no thread). Prints p50/p99/max of the call time
 * and the bytes per second of each run.
 *
 *   bench-progress-latency [grains per run, default 600]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
  double p50_us, p99_us, max_us, bytes_per_s;
  guint failed, not_ready;
} Result;

static gboolean
run (mxlFabricsProvider prov, gboolean thread, guint n, Result *out)
{
  const char *opts = thread ? "{\"progressThread\": true}" : NULL;
  char tname[64], iname[64];
  Side ts, is;
  mxlFabricsTarget t;
  mxlFabricsInitiator init;
  mxlFabricsTargetInfo info;
  mxlFabricsTargetConfig tc;
  mxlFabricsInitiatorConfig ic;
  Reader rd;
  GThread *rth;
  double *lat = g_new0 (double, n), t0, t1;
  guint in_flight = 0, done = 0;
  mxlGrainInfo gi;
  uint8_t *payload;
  uint64_t grain_bytes = 0;
  mxlStatus st;

  memset (out, 0, sizeof *out);
  g_snprintf (tname, sizeof tname, "tgt-bench-%d-%d", (int) getpid (), thread);
  g_snprintf (iname, sizeof iname, "ini-bench-%d-%d", (int) getpid (), thread);
  if (!side_open (&ts) || !side_open (&is))
    return FALSE;
  /* Initiator grains: committed once, transferred again and again. */
  for (uint64_t i = 0; i < 16; i++) {
    if (mxlFlowWriterOpenGrain (is.writer, 100 + i, &gi, &payload) != MXL_STATUS_OK)
      break;
    memset (payload, (int) i, gi.grainSize);
    grain_bytes = gi.grainSize;
    mxlFlowWriterCommitGrain (is.writer, &gi);
  }
  memset (&tc, 0, sizeof tc);
  tc.interface = iface (prov, prov == MXL_FABRICS_PROVIDER_SHM ? tname : "127.0.0.1");
  tc.writer = ts.writer;
  memset (&ic, 0, sizeof ic);
  ic.interface = iface (prov, prov == MXL_FABRICS_PROVIDER_SHM ? iname : "127.0.0.1");
  ic.reader = is.reader;
  if (mxlFabricsCreateTarget (ts.fab, &t) != MXL_STATUS_OK
      || mxlFabricsTargetSetup (t, &tc, opts, &info) != MXL_STATUS_OK
      || mxlFabricsCreateInitiator (is.fab, &init) != MXL_STATUS_OK
      || mxlFabricsInitiatorSetup (init, &ic, opts) != MXL_STATUS_OK
      || mxlFabricsInitiatorAddTarget (init, info) != MXL_STATUS_OK)
    return FALSE;
  memset (&rd, 0, sizeof rd);
  rd.t = t;
  rth = g_thread_new ("reader", read_loop, &rd);
  t0 = bench_now_s ();
  while ((st = mxlFabricsInitiatorMakeProgressBlocking (init, 10)) == MXL_ERR_NOT_READY
      && bench_now_s () - t0 < 5)
    ;
  if (st != MXL_STATUS_OK)
    return FALSE;

  t0 = bench_now_s ();
  for (guint i = 0; i < n; i++) {
    double a, b;
    mxlFabricsExtTransferResult res;
    /* Window: wait for results (not timed). */
    while (in_flight >= WINDOW) {
      if (mxlFabricsExtInitiatorPollTransferResult (init, 100, &res) == MXL_STATUS_OK) {
        in_flight--;
        done++;
        out->failed += res.status != MXL_STATUS_OK;
      }
    }
    a = bench_now_s ();
    st = mxlFabricsInitiatorTransferGrain (init, 100 + (i % 5), 0, 1080);
    b = bench_now_s ();
    lat[i] = (b - a) * 1e6;
    if (st == MXL_STATUS_OK)
      in_flight++;
    else
      out->not_ready++;
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
  g_atomic_int_set (&rd.stop, 1);
  g_thread_join (rth);
  qsort (lat, n, sizeof (double), bench_cmp_double);
  out->p50_us = lat[n / 2];
  out->p99_us = lat[(size_t) (n * 0.99)];
  out->max_us = lat[n - 1];
  out->bytes_per_s = (double) done * (double) grain_bytes / (t1 - t0);
  mxlFabricsFreeTargetInfo (info);
  mxlFabricsDestroyInitiator (is.fab, init);
  mxlFabricsDestroyTarget (ts.fab, t);
  side_close (&is);
  side_close (&ts);
  g_free (lat);
  return TRUE;
}

int
main (int argc, char **argv)
{
  guint n = argc > 1 ? (guint) atoi (argv[1]) : 600;
  static const struct { const char *name; mxlFabricsProvider prov; } provs[] = {
    { "tcp", MXL_FABRICS_PROVIDER_TCP }, { "shm", MXL_FABRICS_PROVIDER_SHM },
  };

  if (n < 10)
    n = 10;
  g_log_set_always_fatal (G_LOG_FATAL_MASK);
  printf ("1080p v210 grains, %u per run, window %d, one target\n", n, WINDOW);
  printf ("%-4s %-10s %10s %10s %10s %12s %7s %9s\n", "prov", "mode", "p50 us", "p99 us",
      "max us", "MB/s", "failed", "notready");
  for (guint p = 0; p < G_N_ELEMENTS (provs); p++) {
    for (int thread = 0; thread < 2; thread++) {
      Result r;
      if (!run (provs[p].prov, thread, n, &r)) {
        printf ("%-4s %-10s setup failed\n", provs[p].name, thread ? "thread" : "caller");
        continue;
      }
      printf ("%-4s %-10s %10.2f %10.2f %10.2f %12.1f %7u %9u\n", provs[p].name,
          thread ? "thread" : "caller", r.p50_us, r.p99_us, r.max_us, r.bytes_per_s / 1e6,
          r.failed, r.not_ready);
      fflush (stdout);
    }
  }
  return 0;
}
