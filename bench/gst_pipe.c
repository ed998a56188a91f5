/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench-gst-pipe: one end of a GStreamer transport benchmark.
 *
 *   --role send: "appsrc ! <pipeline>". Frames are rendered ONCE by
 *     videotestsrc into @slots buffers, then pushed as fast as possible or
 *     paced at --fps, each wrapped (no copy) in a new GstBuffer. Before a
 *     push the frame gets a 64-byte header (magic, frame counter,
 *     CLOCK_MONOTONIC send time, size, check word) and an 8-byte stamp
 *     (counter << 24 | k) at every offset k * 1024 (k >= 1). A slot is
 *     reused only after GStreamer has released its memory, so no frame in
 *     flight is ever rewritten.
 *   --role recv: "<pipeline> ! fakesink". A pad probe on the fakesink
 *     checks every frame: a frame whose header is good and whose stamps all
 *     match is "ok"; anything else is "damaged". Lost frames are the
 *     counters never seen between the first and the last counter seen
 *     (a counter seen twice, e.g. a frame split in two, is a duplicate).
 *     Latency = receive time - send time (same host, same monotonic clock).
 *
 * Both print "READY" when their pipeline is PLAYING; the sender then waits
 * for a line "GO" on stdin, and after its results for "QUIT" (so its sink
 * can drain while the receiver finishes). Each prints one JSON line of results at the end,
 * or {"error": ...} and exits 3 when the pipeline fails (e.g. an element
 * that is not implemented yet). CPU is getrusage(RUSAGE_SELF) user+sys (the
 * counters behind /proc/<pid>/stat utime+stime, at microsecond resolution)
 * between the first and the last frame. Every wait has a deadline.
 */
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>

#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "benchutil.h"

#define MAGIC G_GUINT64_CONSTANT (0x48434e45424c584d)   /* "MXLBENCH" */
#define STAMP_STRIDE 1024
#define HEADER_BYTES 64
#define MAX_LATENCIES 1000000
#define MAX_COUNTER (1u << 24)

typedef struct
{
  const char *role, *pipeline, *caps;
  double fps, duration, deadline, idle;
  guint64 max_frames;
  gboolean hold;                /* send: no EOS after the frames */
  gboolean not_live;            /* send: appsrc is-live=false (a file-like
                                 * source: a sink may hold it back) */
  guint slots;
} Options;

typedef struct
{
  guint8 *data;
  gsize size;
  gboolean busy;
} Slot;

typedef struct
{
  GMutex lock;
  GCond cond;
  Slot *slots;
  guint n_slots;
} SlotRing;

typedef struct
{
  guint64 ok, damaged, header_bad;
  guint64 first_ctr, last_ctr, seen;    /* counters of ok + damaged frames */
  guint64 distinct;             /* counters seen at least once */
  guint8 *seen_bits;            /* one bit per counter < MAX_COUNTER */
  double first_s, last_s, cpu0, cpu1;
  double *lat_ms;
  guint64 n_lat;
} RecvStats;

static guint64
now_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * 1000000000u + (guint64) ts.tv_nsec;
}

static guint64
header_check (const guint64 * h)
{
  return (h[0] ^ (h[1] * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) ^ h[2]
      ^ (h[3] << 17)) + 1;
}

static void
print_error (const char *domain, int code, const char *message)
{
  gchar *m = g_strescape (message ? message : "", NULL);
  printf ("{\"error\":\"%s\",\"domain\":\"%s\",\"code\":%d}\n", m, domain,
      code);
  fflush (stdout);
  g_free (m);
}

/* Pops bus messages for @timeout; returns FALSE after an ERROR (printed),
 * sets *eos on EOS. */
static gboolean
poll_bus (GstElement * pipe, GstClockTime timeout, gboolean * eos)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, timeout,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  gboolean alive = TRUE;

  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (msg, &err, &dbg);
    print_error (g_quark_to_string (err->domain), err->code, err->message);
    g_printerr ("bench-gst-pipe: %s\n%s\n", err->message, dbg ? dbg : "");
    g_clear_error (&err);
    g_free (dbg);
    alive = FALSE;
  } else if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS && eos) {
    *eos = TRUE;
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  return alive;
}

/* NULL -> PLAYING; FALSE (error printed) on failure. A pipeline with a
 * live source and async sinks completes PLAYING only with its first buffer,
 * so ASYNC after @wait is success: every element has been started (sockets
 * bound, connections made) by then. */
static gboolean
go_playing (GstElement * pipe)
{
  GstStateChangeReturn r = gst_element_set_state (pipe, GST_STATE_PLAYING);
  if (r != GST_STATE_CHANGE_FAILURE)
    r = gst_element_get_state (pipe, NULL, NULL, 500 * GST_MSECOND);
  if (r != GST_STATE_CHANGE_FAILURE)
    return poll_bus (pipe, 0, NULL);
  if (poll_bus (pipe, 500 * GST_MSECOND, NULL))
    print_error ("state", (int) r, "pipeline did not reach PLAYING");
  return FALSE;
}

/* ---- sender ---- */

typedef struct
{
  SlotRing *ring;
  Slot *slot;
} SlotRef;

static void
slot_ref_free (gpointer p)
{
  SlotRef *r = p;
  g_mutex_lock (&r->ring->lock);
  r->slot->busy = FALSE;
  g_cond_broadcast (&r->ring->cond);
  g_mutex_unlock (&r->ring->lock);
  g_free (r);
}

/* Renders one frame of @caps with videotestsrc into @out (size in *size). */
static guint8 *
render_frame (const char *caps, gsize * size)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 pattern=smpte ! "
      "%s ! appsink name=out sync=false", caps);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  GstSample *sample = NULL;
  guint8 *data = NULL;

  g_free (desc);
  if (!pipe || err) {           /* a partial pipeline comes with an error */
    print_error ("parse", err ? err->code : 0, err ? err->message : "?");
    g_clear_object (&pipe);
    g_clear_error (&err);
    return NULL;
  }
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 10 * GST_SECOND);
  if (sample) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    *size = gst_buffer_get_size (buf);
    data = g_malloc (*size);
    gst_buffer_extract (buf, 0, data, *size);
    gst_sample_unref (sample);
  } else {
    print_error ("render", 0, "videotestsrc gave no frame for these caps");
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return data;
}

static void
stamp_frame (guint8 * d, gsize size, guint64 ctr)
{
  guint64 h[5] = { MAGIC, ctr, now_ns (), size, 0 };
  h[4] = header_check (h);
  for (gsize k = 1; k * STAMP_STRIDE + 8 <= size; k++) {
    guint64 v = (ctr << 24) | (k & 0xffffff);
    memcpy (d + k * STAMP_STRIDE, &v, 8);
  }
  memcpy (d, h, sizeof (h));    /* last: the send time is as late as can be */
}

/* Waits for a line starting with @word on stdin until @deadline. */
static gboolean
wait_line (const char *word, double deadline)
{
  char line[16];
  struct pollfd pfd = {.fd = 0,.events = POLLIN };
  int ms = (int) ((deadline - bench_now_s ()) * 1000);
  if (ms <= 0 || poll (&pfd, 1, ms) != 1)
    return FALSE;
  return fgets (line, sizeof (line), stdin)
      && !strncmp (line, word, strlen (word));
}

static int
run_send (const Options * o)
{
  double deadline = bench_now_s () + o->deadline;
  gsize size = 0;
  guint8 *frame = render_frame (o->caps, &size);
  SlotRing ring;
  GstElement *pipe, *src;
  GError *err = NULL;
  gchar *desc;
  guint64 sent = 0, slot_waits = 0;
  double first = 0, last = 0, cpu0 = 0, cpu1 = 0, period;
  gboolean eos = FALSE, alive = TRUE;

  if (!frame)
    return 3;
  g_mutex_init (&ring.lock);
  g_cond_init (&ring.cond);
  ring.n_slots = o->slots;
  ring.slots = g_new0 (Slot, o->slots);
  for (guint i = 0; i < o->slots; i++) {
    ring.slots[i].data = g_memdup2 (frame, size);       /* pre-rendered */
    ring.slots[i].size = size;
  }
  g_free (frame);

  desc = g_strdup_printf ("appsrc name=bench_src is-live=%s format=time "
      "block=true max-buffers=2 caps=\"%s\" ! %s",
      o->not_live ? "false" : "true", o->caps, o->pipeline);
  pipe = gst_parse_launch (desc, &err);
  g_free (desc);
  if (!pipe || err) {           /* a partial pipeline comes with an error */
    print_error ("parse", err ? err->code : 0, err ? err->message : "?");
    g_clear_object (&pipe);
    return 3;
  }
  src = gst_bin_get_by_name (GST_BIN (pipe), "bench_src");
  if (!go_playing (pipe))
    goto fail;
  printf ("READY\n");
  fflush (stdout);
  if (!wait_line ("GO", deadline)) {
    print_error ("control", 0, "no GO on stdin before the deadline");
    goto fail;
  }

  period = o->fps > 0 ? 1.0 / o->fps : 0;
  first = bench_now_s ();
  cpu0 = bench_cpu_s ();
  while (alive && sent < o->max_frames && bench_now_s () - first < o->duration
      && bench_now_s () < deadline) {
    Slot *s = &ring.slots[sent % ring.n_slots];
    SlotRef *ref;
    GstBuffer *buf;

    if (period > 0) {           /* pace on an absolute schedule */
      double due = first + sent * period, t = bench_now_s ();
      if (due > t)
        g_usleep ((gulong) ((due - t) * 1e6));
    }
    g_mutex_lock (&ring.lock);
    if (s->busy)
      slot_waits++;
    while (s->busy && bench_now_s () < deadline)
      g_cond_wait_until (&ring.cond, &ring.lock,
          g_get_monotonic_time () + 100 * G_TIME_SPAN_MILLISECOND);
    s->busy = TRUE;
    g_mutex_unlock (&ring.lock);
    if (bench_now_s () >= deadline)
      break;

    stamp_frame (s->data, s->size, sent);
    ref = g_new (SlotRef, 1);
    ref->ring = &ring;
    ref->slot = s;
    buf = gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY, s->data,
        s->size, 0, s->size, ref, slot_ref_free);
    GST_BUFFER_PTS (buf) = sent * (GstClockTime) (period > 0 ? period * 1e9
        : GST_SECOND / 60);
    GST_BUFFER_DURATION (buf) = GST_SECOND / 60;
    if (gst_app_src_push_buffer (GST_APP_SRC (src), buf) != GST_FLOW_OK)
      break;
    sent++;
    last = bench_now_s ();
    cpu1 = bench_cpu_s ();
    alive = poll_bus (pipe, 0, &eos);
  }
  if (!alive)
    goto fail;
  if (!o->hold)
    gst_app_src_end_of_stream (GST_APP_SRC (src));
  if (!o->hold) {
    double until = MIN (bench_now_s () + 3, deadline);
    while (!eos && alive && bench_now_s () < until)
      alive = poll_bus (pipe, 50 * GST_MSECOND, &eos);
  }
  printf ("{\"role\":\"send\",\"frames\":%" G_GUINT64_FORMAT ",\"size\":%"
      G_GSIZE_FORMAT ",\"fps\":%.3f,\"cpu_ms_per_frame\":%.4f,"
      "\"slot_waits\":%" G_GUINT64_FORMAT ",\"eos\":%s}\n", sent, size,
      last > first && sent > 1 ? (sent - 1) / (last - first) : 0,
      sent ? (cpu1 - cpu0) * 1e3 / sent : 0, slot_waits,
      eos ? "true" : "false");
  fflush (stdout);
  /* Sinks post EOS before their sockets drain: stay PLAYING until the
   * driver has seen the receiver finish ("QUIT"), or the deadline. */
  wait_line ("QUIT", deadline);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (pipe);
  return 0;

fail:
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (pipe);
  return 3;
}

/* ---- receiver ---- */

static gboolean
read_at (GstBuffer * buf, GstMapInfo * map, gsize off, guint64 * v)
{
  if (map)
    memcpy (v, map->data + off, 8);
  else if (gst_buffer_extract (buf, off, v, 8) != 8)
    return FALSE;
  return TRUE;
}

static GstPadProbeReturn
on_frame (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  RecvStats *st = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  gsize size = gst_buffer_get_size (buf);
  GstMapInfo map, *m = NULL;
  guint64 h[5] = { 0 };
  guint64 t = now_ns ();
  gboolean good = TRUE;

  if (gst_buffer_n_memory (buf) == 1 && gst_buffer_map (buf, &map,
          GST_MAP_READ))
    m = &map;                   /* one memory: no merge copy */
  if (size < HEADER_BYTES || (m ? (memcpy (h, m->data, sizeof (h)), 0)
          : gst_buffer_extract (buf, 0, h, sizeof (h)) != sizeof (h))
      || h[0] != MAGIC || h[4] != header_check (h) || h[3] != size) {
    st->header_bad++;
    st->damaged++;
  } else {
    guint64 ctr = h[1];
    for (gsize k = 1; good && k * STAMP_STRIDE + 8 <= size; k++) {
      guint64 v;
      good = read_at (buf, m, k * STAMP_STRIDE, &v)
          && v == ((ctr << 24) | (k & 0xffffff));
    }
    if (good)
      st->ok++;
    else
      st->damaged++;
    if (st->seen == 0 || ctr < st->first_ctr)
      st->first_ctr = ctr;
    if (st->seen == 0 || ctr > st->last_ctr)
      st->last_ctr = ctr;
    st->seen++;
    if (ctr < MAX_COUNTER && !(st->seen_bits[ctr / 8] & (1u << (ctr % 8)))) {
      st->seen_bits[ctr / 8] |= (guint8) (1u << (ctr % 8));
      st->distinct++;
    }
    if (good && st->n_lat < MAX_LATENCIES && t >= h[2])
      st->lat_ms[st->n_lat++] = (t - h[2]) / 1e6;
  }
  if (m)
    gst_buffer_unmap (buf, m);
  if (st->ok + st->damaged == 1) {
    st->first_s = bench_now_s ();
    st->cpu0 = bench_cpu_s ();
  }
  st->last_s = bench_now_s ();
  st->cpu1 = bench_cpu_s ();
  return GST_PAD_PROBE_OK;
}

static double
percentile (const double *v, guint64 n, double p)
{
  if (n == 0)
    return 0;
  guint64 i = (guint64) (p * (n - 1) + 0.5);
  return v[MIN (i, n - 1)];
}

static int
run_recv (const Options * o)
{
  double deadline = bench_now_s () + o->deadline;
  RecvStats st = { 0 };
  GError *err = NULL;
  gchar *desc = g_strdup_printf ("%s ! fakesink name=bench_sink sync=false "
      "async=false", o->pipeline);
  GstElement *pipe = gst_parse_launch (desc, &err);
  GstElement *sink;
  GstPad *pad;
  gboolean eos = FALSE, alive = TRUE;
  guint64 frames;

  g_free (desc);
  if (!pipe || err) {           /* a partial pipeline comes with an error */
    print_error ("parse", err ? err->code : 0, err ? err->message : "?");
    g_clear_object (&pipe);
    return 3;
  }
  st.lat_ms = g_new (double, MAX_LATENCIES);
  st.seen_bits = g_malloc0 (MAX_COUNTER / 8);
  sink = gst_bin_get_by_name (GST_BIN (pipe), "bench_sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_frame, &st, NULL);
  gst_object_unref (pad);
  if (!go_playing (pipe)) {
    gst_element_set_state (pipe, GST_STATE_NULL);
    return 3;
  }
  printf ("READY\n");
  fflush (stdout);
  /* Until EOS, --idle seconds without a frame after the first, or the
   * deadline. (Counters are read unlocked: a late value only delays.) */
  while (alive && !eos && bench_now_s () < deadline) {
    alive = poll_bus (pipe, 50 * GST_MSECOND, &eos);
    if (st.ok + st.damaged > 0 && bench_now_s () - st.last_s > o->idle)
      break;
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  if (!alive)
    return 3;
  frames = st.ok + st.damaged;
  qsort (st.lat_ms, st.n_lat, sizeof (double), bench_cmp_double);
  printf ("{\"role\":\"recv\",\"frames\":%" G_GUINT64_FORMAT ",\"ok\":%"
      G_GUINT64_FORMAT ",\"damaged\":%" G_GUINT64_FORMAT ",\"header_bad\":%"
      G_GUINT64_FORMAT ",\"first_ctr\":%" G_GUINT64_FORMAT ",\"last_ctr\":%"
      G_GUINT64_FORMAT ",\"lost\":%" G_GUINT64_FORMAT ",\"duplicates\":%"
      G_GUINT64_FORMAT ",\"fps\":%.3f,"
      "\"cpu_ms_per_frame\":%.4f,\"latency_ms_median\":%.4f,"
      "\"latency_ms_p99\":%.4f,\"latency_ms_max\":%.4f,\"eos\":%s}\n",
      frames, st.ok, st.damaged, st.header_bad, st.first_ctr, st.last_ctr,
      st.seen ? (st.last_ctr - st.first_ctr + 1) - MIN (st.distinct,
          st.last_ctr - st.first_ctr + 1) : 0, st.seen - st.distinct,
      frames > 1 && st.last_s > st.first_s ?
      (frames - 1) / (st.last_s - st.first_s) : 0,
      frames > 1 ? (st.cpu1 - st.cpu0) * 1e3 / (frames - 1) : 0,
      percentile (st.lat_ms, st.n_lat, 0.5),
      percentile (st.lat_ms, st.n_lat, 0.99),
      percentile (st.lat_ms, st.n_lat, 1.0), eos ? "true" : "false");
  fflush (stdout);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (st.lat_ms);
  g_free (st.seen_bits);
  return 0;
}

int
main (int argc, char **argv)
{
  Options o = {.fps = 0,.duration = 3,.deadline = 30,.idle = 1.5,
    .max_frames = 1000000,.slots = 8
  };
  gchar *role = NULL, *pipeline = NULL, *caps = NULL;
  gint64 max_frames = 1000000;
  gint slots = 8;
  GOptionEntry entries[] = {
    {"role", 0, 0, G_OPTION_ARG_STRING, &role, "send or recv", "ROLE"},
    {"pipeline", 0, 0, G_OPTION_ARG_STRING, &pipeline,
        "transport part (gst-launch syntax)", "DESC"},
    {"caps", 0, 0, G_OPTION_ARG_STRING, &caps, "send: frame caps", "CAPS"},
    {"fps", 0, 0, G_OPTION_ARG_DOUBLE, &o.fps, "send: 0 = as fast as possible",
        "F"},
    {"duration", 0, 0, G_OPTION_ARG_DOUBLE, &o.duration,
        "send: seconds of frames", "S"},
    {"max-frames", 0, 0, G_OPTION_ARG_INT64, &max_frames, "send: at most",
        "N"},
    {"slots", 0, 0, G_OPTION_ARG_INT, &slots, "send: pre-rendered frames",
        "K"},
    {"idle", 0, 0, G_OPTION_ARG_DOUBLE, &o.idle,
        "recv: stop after S s without a frame", "S"},
    {"deadline", 0, 0, G_OPTION_ARG_DOUBLE, &o.deadline,
        "hard bound of the whole run", "S"},
    {"hold", 0, 0, G_OPTION_ARG_NONE, &o.hold,
        "send: no EOS after the frames: stay PLAYING, idle, until QUIT "
        "(bench/run-rest-wakeups.sh)", NULL},
    {"not-live", 0, 0, G_OPTION_ARG_NONE, &o.not_live,
        "send: appsrc is-live=false, a source the sink may hold back "
        "(credits, bench/run_pipelines.py)", NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- one end of a transport "
      "benchmark");
  GError *err = NULL;
  int rc;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  o.role = role;
  o.pipeline = pipeline;
  o.caps = caps;
  o.max_frames = max_frames > 0 ? (guint64) max_frames : 1;
  o.slots = slots >= 2 && slots <= 64 ? (guint) slots : 8;
  if (!role || !pipeline || o.deadline <= 0 || o.deadline > 600
      || o.duration <= 0 || o.idle <= 0 || (!strcmp (role, "send") && !caps)) {
    g_printerr ("bench-gst-pipe: need --role send|recv --pipeline DESC "
        "(and --caps for send); bounded --deadline\n");
    return 2;
  }
  if (!strcmp (role, "send"))
    rc = run_send (&o);
  else if (!strcmp (role, "recv"))
    rc = run_recv (&o);
  else
    rc = 2;
  g_free (role);
  g_free (pipeline);
  g_free (caps);
  return rc;
}
