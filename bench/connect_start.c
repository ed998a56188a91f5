/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench-connect-start: how long a sender takes to get its first grain to a
 * receiver that is already listening (issue 13 item 6).
 *
 * The receiver, started once per provider in this process:
 *   mxlfabricssrc provider=P caps=C target-info-file=F ! fakesink
 * (a pad probe on the src's pad notes when a buffer comes out). Then, per
 * run, a new sender in a new process (this program with --sender, so that
 * loading libfabric's providers counts, as it does for a real sender):
 *   appsrc is-live=true format=time caps=C ! mxlfabricssink target-info=@F
 * with a buffer already queued in appsrc before it is set to PLAYING, and
 * one more pushed every frame period (60 fps) until the receiver has
 * pushed a buffer, as a live camera would (appsrc keeps only the newest
 * frame not taken yet). Measured, CLOCK_MONOTONIC:
 *   playing   - the sink element posts its state change to PLAYING
 *   connected - the sink posts mxl-fabrics-connection with state connected
 *   first     - the src pushes the first buffer of this run
 *   pad       - the first buffer reaches the sink's pad (before set_caps
 *               has created the flow and the initiator, and before preroll)
 * (one clock for both processes: same host). The sender prints its two
 * times on stdout; it stays up until told to quit on stdin.
 * and printed per provider as median [min-max] in ms over --runs runs:
 * "PLAYING -> connected", "PLAYING -> first grain", "set_state -> first
 * grain" (the pipeline start, including loading libfabric's providers and
 * creating the local flow) and "1st buffer at sink -> grain". Buffers carry no
 * timestamp (the sink takes the current TAI index), so clock sync plays no
 * part. Every wait has a deadline; a run without a grain within 5 s counts
 * as failed.
 *
 *   bench-connect-start [--runs N] [--providers tcp,shm] [--sink-props "..."]
 *       [--backlog]
 *
 * --backlog: appsrc keeps every frame pushed while the sink sets up (~12
 * at 60 fps), which the sink then renders in a burst.
 *
 * Before/after of a change: run it with GST_PLUGIN_PATH set to each build's
 * gst/ folder (bench/run-connect.sh does both, interleaved).
 */
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <glib/gstdio.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchutil.h"

#define CAPS "video/x-raw,format=v210,width=1920,height=1080,framerate=60/1"
#define FRAME_US 16667
#define FIRST_DEADLINE_S 5.0

typedef struct
{
  GMutex lock;
  double start, playing, connected, first, render;
  gboolean armed;               /* the src probe records from now on */
} Marks;

static Marks marks;

static GstPadProbeReturn
on_src_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  double now = bench_now_s ();

  g_mutex_lock (&marks.lock);
  if (marks.armed && marks.first == 0)
    marks.first = now;
  g_mutex_unlock (&marks.lock);
  return GST_PAD_PROBE_OK;
}

/* Sender: the first buffer reaches the sink's pad. */
static GstPadProbeReturn
on_sink_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  double now = bench_now_s ();

  g_mutex_lock (&marks.lock);
  if (marks.render == 0)
    marks.render = now;
  g_mutex_unlock (&marks.lock);
  return GST_PAD_PROBE_OK;
}

static GstBusSyncReply
on_sink_message (GstBus * bus, GstMessage * m, gpointer data)
{
  GstElement *sink = data;
  double now = bench_now_s ();

  g_mutex_lock (&marks.lock);
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_STATE_CHANGED
      && GST_MESSAGE_SRC (m) == GST_OBJECT (sink)) {
    GstState old_state, new_state;
    gst_message_parse_state_changed (m, &old_state, &new_state, NULL);
    if (new_state == GST_STATE_PLAYING && marks.playing == 0)
      marks.playing = now;
  } else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT
      && gst_message_has_name (m, "mxl-fabrics-connection")
      && marks.connected == 0) {
    const GstStructure *s = gst_message_get_structure (m);
    const GValue *v = gst_structure_get_value (s, "state");
    /* GstMxlFabricsConnectionState: 3 = connected */
    if (v && G_VALUE_HOLDS_ENUM (v) && g_value_get_enum (v) == 3)
      marks.connected = now;
  } else if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *e = NULL;
    gst_message_parse_error (m, &e, NULL);
    fprintf (stderr, "sink ERROR: %s\n", e->message);
    g_error_free (e);
  }
  g_mutex_unlock (&marks.lock);
  return GST_BUS_PASS;
}

static GstBuffer *
frame (void)
{
  /* v210 1080p: 5120 bytes a line */
  GstBuffer *b = gst_buffer_new_allocate (NULL, 5120 * 1080, NULL);
  gst_buffer_memset (b, 0, 0x40, 5120 * 1080);
  return b;
}

/* --sender: one sender; pushes a frame every period until "quit" on
 * stdin (at most 10 s), then prints "playing <s> connected <s>" (0: never). */
static int
sender_main (const char *provider, const char *file, const char *props,
    gboolean backlog)
{
  gchar *desc = g_strdup_printf ("appsrc name=in is-live=true format=time "
      "%s caps=\"" CAPS "\" ! mxlfabricssink name=sink provider=%s %s "
      "target-info=@%s %s", backlog ? "" :
      "max-buffers=1 leaky-type=downstream", provider,
      g_str_equal (provider, "tcp") ? "node=127.0.0.1" : "", file, props);
  GError *error = NULL;
  GstElement *p = gst_parse_launch (desc, &error);
  GstElement *sink, *in;
  GstBus *bus;
  double end;

  g_free (desc);
  if (p == NULL) {
    fprintf (stderr, "%s\n", error->message);
    return 2;
  }
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  in = gst_bin_get_by_name (GST_BIN (p), "in");
  bus = gst_element_get_bus (p);
  gst_bus_set_sync_handler (bus, on_sink_message, sink, NULL);
  {
    GstPad *pad = gst_element_get_static_pad (sink, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_sink_buffer, NULL,
        NULL);
    gst_object_unref (pad);
  }
  gst_app_src_push_buffer (GST_APP_SRC (in), frame ());
  marks.start = bench_now_s ();
  gst_element_set_state (p, GST_STATE_PLAYING);
  end = bench_now_s () + 10.0;
  while (bench_now_s () < end) {
    struct pollfd pfd = {.fd = 0,.events = POLLIN };
    if (poll (&pfd, 1, FRAME_US / 1000) > 0)
      break;                    /* "quit" (or EOF) */
    /* a live camera keeps producing: appsrc keeps the newest frame the
     * sink has not taken yet (max-buffers=1, leaky downstream), as a
     * capture ring would, not a backlog of every frame since the start */
    gst_app_src_push_buffer (GST_APP_SRC (in), frame ());
  }
  g_mutex_lock (&marks.lock);
  printf ("playing %.6f connected %.6f start %.6f render %.6f\n",
      marks.playing, marks.connected, marks.start, marks.render);
  g_mutex_unlock (&marks.lock);
  fflush (stdout);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (in);
  gst_object_unref (sink);
  gst_object_unref (p);
  return 0;
}

/* One sender run in a child process: returns FALSE when no grain arrived
 * within the deadline. */
static gboolean
run_once (const char *self, const char *provider, const char *file,
    const char *props, gboolean backlog, double *to_connected, double *to_first,
    double *start_to_first, double *pad_to_first)
{
  const gchar *argv[] = { self, "--sender", provider, file, props,
    backlog ? "backlog" : "newest", NULL
  };
  GError *error = NULL;
  GPid pid;
  gint in_fd, out_fd, status = 0;
  double end, first = 0, playing = 0, connected = 0, start = 0, render = 0;
  gchar buf[256];
  ssize_t n, got = 0;

  g_mutex_lock (&marks.lock);
  marks.first = 0;
  marks.armed = TRUE;
  g_mutex_unlock (&marks.lock);
  if (!g_spawn_async_with_pipes (NULL, (gchar **) argv, NULL,
          G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, &in_fd, &out_fd, NULL,
          &error)) {
    fprintf (stderr, "%s\n", error->message);
    exit (2);
  }
  end = bench_now_s () + FIRST_DEADLINE_S;
  while (first == 0 && bench_now_s () < end) {
    g_usleep (1000);
    g_mutex_lock (&marks.lock);
    first = marks.first;
    g_mutex_unlock (&marks.lock);
  }
  g_mutex_lock (&marks.lock);
  marks.armed = FALSE;
  g_mutex_unlock (&marks.lock);
  if (write (in_fd, "quit\n", 5) != 5)
    fprintf (stderr, "sender gone\n");
  end = bench_now_s () + 10.0;
  while (got < (ssize_t) sizeof buf - 1 && bench_now_s () < end) {
    struct pollfd pfd = {.fd = out_fd,.events = POLLIN };
    if (poll (&pfd, 1, 100) <= 0)
      continue;
    n = read (out_fd, buf + got, sizeof buf - 1 - got);
    if (n <= 0)
      break;
    got += n;
    if (memchr (buf, '\n', got))
      break;
  }
  buf[got] = 0;
  if (sscanf (buf, "playing %lf connected %lf start %lf render %lf",
          &playing, &connected, &start, &render) != 4)
    playing = start = render = 0;
  end = bench_now_s () + 10.0;
  while (waitpid (pid, &status, WNOHANG) != pid) {
    if (bench_now_s () > end) {
      kill (pid, SIGKILL);
      waitpid (pid, &status, 0);
      break;
    }
    g_usleep (10000);
  }
  g_spawn_close_pid (pid);
  close (in_fd);
  close (out_fd);
  *to_first = first > 0 && playing > 0 ? (first - playing) * 1e3 : -1;
  /* may be negative: the sink may connect before it reaches PLAYING */
  *to_connected = connected > 0 && playing > 0 ?
      (connected - playing) * 1e3 : G_MAXDOUBLE;
  *start_to_first = first > 0 && start > 0 ? (first - start) * 1e3 : -1;
  *pad_to_first = first > 0 && render > 0 ? (first - render) * 1e3 : -1;
  return *to_first >= 0;
}

static void
print_stat (const char *what, double *v, guint n)
{
  if (n == 0) {
    printf ("  %-24s no run\n", what);
    return;
  }
  qsort (v, n, sizeof *v, bench_cmp_double);
  printf ("  %-24s median %7.1f ms  [%.1f-%.1f]  (%u runs)\n", what,
      v[n / 2], v[0], v[n - 1], n);
}

int
main (int argc, char **argv)
{
  guint runs = 11;
  const char *providers = "tcp,shm", *props = "";
  gboolean backlog = FALSE;
  gchar **list;

  gst_init (&argc, &argv);
  g_mutex_init (&marks.lock);
  if (argc == 6 && g_str_equal (argv[1], "--sender"))
    return sender_main (argv[2], argv[3], argv[4],
        g_str_equal (argv[5], "backlog"));
  for (int i = 1; i < argc; i++) {
    if (g_str_equal (argv[i], "--runs") && i + 1 < argc)
      runs = (guint) atoi (argv[++i]);
    else if (g_str_equal (argv[i], "--providers") && i + 1 < argc)
      providers = argv[++i];
    else if (g_str_equal (argv[i], "--sink-props") && i + 1 < argc)
      props = argv[++i];
    else if (g_str_equal (argv[i], "--backlog"))
      backlog = TRUE;
    else {
      fprintf (stderr, "usage: %s [--runs N] [--providers tcp,shm] "
          "[--sink-props \"prop=value ...\"] [--backlog]\n", argv[0]);
      return 2;
    }
  }
  list = g_strsplit (providers, ",", -1);
  for (gchar ** pv = list; *pv; pv++) {
    gchar *dir = g_dir_make_tmp ("mxl-bench-connect-XXXXXX", NULL);
    gchar *file = g_build_filename (dir, "target.json", NULL);
    gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=%s %s "
        "caps=\"" CAPS "\" target-info-file=%s ! fakesink sync=false", *pv,
        g_str_equal (*pv, "tcp") ? "node=127.0.0.1" : "", file);
    GstElement *src_p = gst_parse_launch (desc, NULL);
    GstElement *src = src_p ? gst_bin_get_by_name (GST_BIN (src_p), "src") : NULL;
    GstPad *pad = gst_element_get_static_pad (src, "src");
    double *conn = g_new0 (double, runs), *first = g_new0 (double, runs);
    double *whole = g_new0 (double, runs), *pad_first = g_new0 (double, runs);
    guint n_conn = 0, n_first = 0, n_whole = 0, n_pad = 0, failed = 0;

    if (src == NULL) {
      fprintf (stderr, "no mxlfabricssrc: set GST_PLUGIN_PATH to the build's "
          "gst/ folder\n");
      return 2;
    }

    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_src_buffer, NULL,
        NULL);
    gst_element_set_state (src_p, GST_STATE_PLAYING);
    for (int i = 0; i < 250 && !g_file_test (file, G_FILE_TEST_EXISTS); i++)
      g_usleep (20000);
    for (guint r = 0; r < runs; r++) {
      double c, f, w, b;
      if (!run_once (argv[0], *pv, file, props, backlog, &c, &f, &w, &b))
        failed++;
      if (b >= 0)
        pad_first[n_pad++] = b;
      if (c != G_MAXDOUBLE)
        conn[n_conn++] = c;
      if (f >= 0)
        first[n_first++] = f;
      if (w >= 0)
        whole[n_whole++] = w;
      g_usleep (200000);        /* the target listens again */
    }
    printf ("%s (1080p60 v210, receiver listening, sink props \"%s\"%s)\n",
        *pv, props, backlog ? ", backlog" : "");
    print_stat ("PLAYING -> connected", conn, n_conn);
    print_stat ("PLAYING -> first grain", first, n_first);
    print_stat ("set_state -> first grain", whole, n_whole);
    print_stat ("1st buffer at sink -> grain", pad_first, n_pad);
    if (failed)
      printf ("  %u runs without a grain within %.0f s\n", failed,
          FIRST_DEADLINE_S);
    fflush (stdout);
    gst_element_set_state (src_p, GST_STATE_NULL);
    gst_object_unref (pad);
    gst_object_unref (src);
    gst_object_unref (src_p);
    g_unlink (file);
    g_rmdir (dir);
    g_free (conn);
    g_free (first);
    g_free (whole);
    g_free (pad_first);
    g_free (file);
    g_free (dir);
    g_free (desc);
  }
  g_strfreev (list);
  return 0;
}
