/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A shm receiver restarted again and again under one live sender (issue
 * 20, item 1): every receiver instance gets every frame from its first one
 * on, bit-exact, and the sender's stats add up.
 *
 * The sender is an appsrc ! mxlfabricssink provider=shm following the
 * TargetInfo file (target-info=@file) in this process; it pushes a small
 * v210 frame every 20 ms from a thread. The receiver is this binary
 * re-executed with --child-src: mxlfabricssrc ! appsink, writing one line
 * per frame to a file ("<frame number>" or "BAD"), so that a receiver
 * killed with SIGKILL leaves its count behind too. Each instance is first
 * stopped (SIGSTOP) so that the sender has writes posted that the receiver
 * never processes, then ended with SIGKILL or SIGINT (its pipeline then
 * goes to NULL and it exits): on libfabric 1.17 shm such a write kept the
 * sender's endpoint from completing anything for any later receiver, which
 * then got as many frames as the sender's local ring holds and no more.
 * Children are stopped and reaped by PID; every wait is bounded.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "../hardening/hgst.h"

#define HEIGHT 32
#define CAPS "video/x-raw,format=v210,width=384,height=32,framerate=50/1"
#define FRAME_BYTES (1024 * HEIGHT)
#define FRAME_NS (20 * GST_MSECOND)
#define INSTANCES 6             /* the first receiver and 5 restarts */
#define MIN_FRAMES 40           /* each instance, before it is stopped */

static const gchar *self_exe;
static volatile sig_atomic_t child_stop;

static guint32
frame_value (guint k)
{
  return 0x5a000000u | k;
}

static void
on_sigint (int sig)
{
  child_stop = 1;
}

/* Child: one line per frame pushed by the src into @out; SIGINT stops the
 * pipeline in order and exits 0; no frame for 20 s exits too. */
static int
child_src (const gchar * file, const gchar * out)
{
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=shm "
      "caps=\"" CAPS "\" target-info-file=%s ! appsink name=out sync=false "
      "max-buffers=1000", file);
  GstElement *p = hgst_parse (desc), *sink = gst_bin_get_by_name (GST_BIN (p),
      "out");
  FILE *f = fopen (out, "w");
  gint64 last = g_get_monotonic_time ();

  signal (SIGINT, on_sigint);
  if (f == NULL || gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    return 3;
  while (!child_stop && g_get_monotonic_time () - last < 20 * G_USEC_PER_SEC) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        100 * GST_MSECOND);
    GstMapInfo map;
    gboolean ok;
    guint32 v = 0;

    if (s == NULL)
      continue;
    last = g_get_monotonic_time ();
    g_assert_true (gst_buffer_map (gst_sample_get_buffer (s), &map,
            GST_MAP_READ));
    ok = map.size == FRAME_BYTES;
    if (ok) {
      const guint32 *w = (const guint32 *) map.data;
      gsize k;
      v = w[0];
      ok = (v & 0xff000000u) == 0x5a000000u;
      for (k = 1; ok && k < map.size / 4; k++)
        ok = w[k] == v;
    }
    gst_buffer_unmap (gst_sample_get_buffer (s), &map);
    if (ok)
      fprintf (f, "%u\n", v & 0xffffffu);
    else
      fprintf (f, "BAD\n");
    fflush (f);
    gst_sample_unref (s);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  fclose (f);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (desc);
  return 0;
}

/* Lines of the child's file: frame numbers, G_MAXUINT for "BAD". */
static GArray *
read_frames (const gchar * out)
{
  GArray *frames = g_array_new (FALSE, FALSE, sizeof (guint));
  gchar *text = NULL, **lines;

  if (!g_file_get_contents (out, &text, NULL, NULL))
    return frames;
  lines = g_strsplit (text, "\n", -1);
  for (gchar ** l = lines; *l; l++) {
    guint v;
    if (**l == '\0')
      continue;
    v = g_str_equal (*l, "BAD") ? G_MAXUINT : (guint) g_ascii_strtoull (*l,
        NULL, 10);
    g_array_append_val (frames, v);
  }
  g_strfreev (lines);
  g_free (text);
  return frames;
}

typedef struct {
  GstElement *in;
  GstClockTime base;
  gint stop;
  guint pushed;
} Pusher;

static gpointer
pusher_thread (gpointer data)
{
  Pusher *ps = data;

  /* bounded: 60 s of frames at most */
  while (!g_atomic_int_get (&ps->stop) && ps->pushed < 3000) {
    GstBuffer *b = gst_buffer_new_allocate (NULL, FRAME_BYTES, NULL);
    GstMapInfo map;
    guint32 *w;

    gst_buffer_map (b, &map, GST_MAP_WRITE);
    w = (guint32 *) map.data;
    for (gsize i = 0; i < FRAME_BYTES / 4; i++)
      w[i] = frame_value (ps->pushed);
    gst_buffer_unmap (b, &map);
    GST_BUFFER_PTS (b) = ps->base + ps->pushed * FRAME_NS;
    GST_BUFFER_DURATION (b) = FRAME_NS;
    if (gst_app_src_push_buffer (GST_APP_SRC (ps->in), b) != GST_FLOW_OK)
      break;
    ps->pushed++;
    g_usleep (FRAME_NS / 1000);
  }
  return NULL;
}

/* Waits (bounded by @ms) until @out holds @n lines. */
static void
wait_frames (const gchar * out, guint n, guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < end) {
    GArray *frames = read_frames (out);
    guint have = frames->len;
    g_array_unref (frames);
    if (have >= n)
      return;
    g_usleep (20 * 1000);
  }
}

static void
test_receiver_restarts (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-restart-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *desc = g_strdup_printf ("appsrc name=in format=time caps=\"" CAPS
      "\" max-bytes=0 block=true ! mxlfabricssink name=sink provider=shm "
      "sync=false target-info=@%s", file);
  GstElement *p, *in;
  GstClock *clock;
  Pusher ps = { 0 };
  GThread *thread;
  guint64 queued = 0, completed = 0, failed = 0, total = 0;

  g_assert_nonnull (dir);
  p = hgst_parse (desc);
  in = gst_bin_get_by_name (GST_BIN (p), "in");
  hgst_play (p);
  clock = gst_element_get_clock (p);
  ps.base = clock ? gst_clock_get_time (clock) - gst_element_get_base_time (p)
      + 50 * GST_MSECOND : 0;
  g_clear_object (&clock);
  ps.in = in;
  thread = g_thread_new ("pusher", pusher_thread, &ps);

  for (guint i = 0; i < INSTANCES; i++) {
    gchar *out = g_strdup_printf ("%s/received.%u", dir, i);
    gchar *argv[] = { (gchar *) self_exe, (gchar *) "--child-src", file, out,
      NULL
    };
    gboolean kill9 = i % 2 == 1;
    GError *error = NULL;
    GArray *frames;
    GPid pid;
    gint status = 0;
    guint bad = 0, gaps = 0;

    g_unlink (file);
    g_assert_true (g_spawn_async (NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
            NULL, NULL, &pid, &error));
    wait_frames (out, MIN_FRAMES, 8000);
    /* Writes posted while it is stopped are never processed by it. */
    g_assert_cmpint (kill (pid, SIGSTOP), ==, 0);
    g_usleep (150 * 1000);
    if (kill9) {
      g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
    } else {
      g_assert_cmpint (kill (pid, SIGINT), ==, 0);
      g_assert_cmpint (kill (pid, SIGCONT), ==, 0);
    }
    g_assert_true (hgst_reap (pid, 10000, &status));
    if (kill9)
      g_assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
    else
      g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);

    frames = read_frames (out);
    for (guint k = 0; k < frames->len; k++) {
      guint v = g_array_index (frames, guint, k);
      if (v == G_MAXUINT)
        bad++;
      else if (k > 0 && v != g_array_index (frames, guint, k - 1) + 1)
        gaps++;
    }
    g_test_message ("receiver %u (%s): %u frames (%u .. %u), %u bad, %u gaps",
        i, kill9 ? "SIGKILL" : "SIGINT", frames->len,
        frames->len ? g_array_index (frames, guint, 0) : 0,
        frames->len ? g_array_index (frames, guint, frames->len - 1) : 0, bad,
        gaps);
    /* every frame from its first one on, each one bit-exact */
    g_assert_cmpuint (frames->len, >=, MIN_FRAMES);
    g_assert_cmpuint (bad, ==, 0);
    g_assert_cmpuint (gaps, ==, 0);
    total += frames->len;
    g_array_unref (frames);
    g_unlink (out);
    g_free (out);
  }
  g_atomic_int_set (&ps.stop, 1);
  g_thread_join (thread);

  /* Nothing is left hanging: every transfer queued completed or failed
   * (the last receiver is gone, so its transfers fail within the stall
   * limit at most). Engine stats are refreshed every 100 ms. */
  for (guint t = 0; t < 800; t++) {
    queued = hgst_stat (p, "sink", "transfers-queued");
    completed = hgst_stat (p, "sink", "transfers-completed");
    failed = hgst_stat (p, "sink", "transfers-failed");
    if (queued == completed + failed)
      break;
    g_usleep (10 * 1000);
  }
  g_test_message ("sender: pushed %u, transfers queued %" G_GUINT64_FORMAT
      ", completed %" G_GUINT64_FORMAT ", failed %" G_GUINT64_FORMAT
      ", dropped-in-flight %" G_GUINT64_FORMAT, ps.pushed, queued, completed,
      failed, hgst_stat (p, "sink", "dropped-in-flight"));
  g_assert_cmpuint (queued, ==, completed + failed);
  g_assert_cmpuint (completed, >=, total);
  g_assert_cmpuint (queued, <=, ps.pushed);
  hgst_assert_no_error (p);

  hgst_stop (p);
  gst_object_unref (in);
  g_unlink (file);
  g_rmdir (dir);
  g_free (file);
  g_free (dir);
  g_free (desc);
}

int
main (int argc, char **argv)
{
  self_exe = argv[0];
  gst_registry_fork_set_enabled (FALSE);
  gst_init (&argc, &argv);
  if (argc == 4 && g_str_equal (argv[1], "--child-src"))
    return child_src (argv[2], argv[3]);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/restart/shm-receiver-restarts", test_receiver_restarts);
  return g_test_run ();
}
