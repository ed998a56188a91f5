/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * EOS while mxlfabricssink waits for a connection that never comes, after
 * a non-live source (issue 20 item 7): the ring fills, render holds the
 * source's streaming thread, and the EOS the application sends to the
 * pipeline goes to the source, which sets the pool it allocates from (the
 * sink's, sinkpool.h) flushing before it waits for that thread. The sink
 * ends its wait on that, so one Ctrl-C or one send_event ends the stream
 * at once, with wait-timeout=0 (no limit) as well.
 *
 * - app-non-live: gst_element_send_event(pipeline, EOS) from a thread on
 *   videotestsrc is-live=false: it returns and EOS is posted (bounded:
 *   5 s; without the pool's flush both wait for ever), every frame
 *   rendered is counted dropped-no-target and none was sent.
 * - launch-non-live: gst-launch-1.0 -e, one SIGINT: it exits with 0.
 * - queue-bounded: with a queue in between (render runs on the queue's
 *   thread, the EOS waits behind the queued frames) wait-timeout still
 *   bounds it (1.5 s here): EOS within it plus 5 s.
 *
 * No receiver exists (the TargetInfo file is never written); processes
 * started are reaped by PID; every wait is bounded.
 */
#include "../hardening/hgst.h"

#define CAPS "video/x-raw,format=v210,width=320,height=180,framerate=25/1"

static gchar *
never_file (void)
{
  return g_build_filename (g_get_tmp_dir (), "mxl-eos-never.json", NULL);
}

/* Waits (bounded: 10 s) until the sink has rendered frames and stopped
 * taking more for 300 ms: render holds the streaming thread. */
static void
wait_render_held (GstElement * p)
{
  guint64 n = 0, last = G_MAXUINT64;
  guint i, still = 0;

  for (i = 0; i < 1000 && still < 30; i++) {
    g_usleep (10 * 1000);
    n = hgst_stat (p, "sink", "buffers");
    still = n > 0 && n == last ? still + 1 : 0;
    last = n;
  }
  g_test_message ("render holds at buffer %" G_GUINT64_FORMAT, n);
  g_assert_cmpuint (still, ==, 30);
  g_assert_cmpuint (n, <, 1000);
}

typedef struct
{
  GstElement *pipeline;
  gint done;
} EosJob;

static gpointer
eos_thread (gpointer data)
{
  EosJob *job = data;

  g_assert_true (gst_element_send_event (job->pipeline, gst_event_new_eos ()));
  g_atomic_int_set (&job->done, 1);
  return NULL;
}

/* Builds and plays "@pre mxlfabricssink" after a non-live videotestsrc,
 * waits for render to hold, sends EOS from a thread and returns how long
 * (µs) the EOS message took; fails past @bound_ms. */
static gint64
eos_after_hold (const gchar * pre, guint wait_timeout, guint bound_ms)
{
  gchar *file = never_file ();
  gchar *desc = g_strdup_printf ("videotestsrc is-live=false num-buffers=1000"
      " ! " CAPS " ! %s mxlfabricssink name=sink provider=tcp node="
      HGST_NODE " wait-for-connection=true wait-timeout=%u target-info=@%s",
      pre, wait_timeout, file);
  GstElement *p = hgst_parse (desc);
  GstBus *bus = gst_element_get_bus (p);
  EosJob job = { p, 0 };
  GstMessage *m;
  GThread *th;
  gint64 t0, took;

  g_unlink (file);
  hgst_play (p);
  wait_render_held (p);
  t0 = g_get_monotonic_time ();
  th = g_thread_new ("eos", eos_thread, &job);
  m = gst_bus_timed_pop_filtered (bus, bound_ms * GST_MSECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  took = g_get_monotonic_time () - t0;
  /* without the fix, send_event and the EOS never come: fail here */
  g_assert_nonnull (m);
  g_assert_cmpint (GST_MESSAGE_TYPE (m), ==, GST_MESSAGE_EOS);
  gst_message_unref (m);
  g_thread_join (th);
  g_assert_cmpint (g_atomic_int_get (&job.done), ==, 1);
  g_test_message ("EOS %.3f s after send_event", took / 1e6);
  g_assert_cmpuint (hgst_stat (p, "sink", "grains"), ==, 0);
  g_assert_cmpuint (hgst_stat (p, "sink", "dropped-no-target"), ==,
      hgst_stat (p, "sink", "buffers"));
  gst_object_unref (bus);
  hgst_stop (p);
  g_free (desc);
  g_free (file);
  return took;
}

static void
test_app_non_live (void)
{
  eos_after_hold ("", 0, 5000);
}

static void
test_queue_bounded (void)
{
  eos_after_hold ("queue max-size-buffers=4 !", 1500, 6500);
}

static void
test_launch_non_live (void)
{
  gchar *file = never_file ();
  gchar *ti = g_strdup_printf ("target-info=@%s", file);
  gchar *argv[] = { (gchar *) "gst-launch-1.0", (gchar *) "-e",
    (gchar *) "videotestsrc", (gchar *) "is-live=false",
    (gchar *) "num-buffers=1000", (gchar *) "!", (gchar *) CAPS,
    (gchar *) "!", (gchar *) "mxlfabricssink", (gchar *) "provider=tcp",
    (gchar *) "node=" HGST_NODE, (gchar *) "wait-for-connection=true",
    (gchar *) "wait-timeout=0", ti, NULL
  };
  gint out_fd, status = 0;
  gboolean exited;
  GPid pid;

#ifdef __SANITIZE_ADDRESS__
  /* gst-launch-1.0 is not instrumented and cannot load this build's plugin */
  g_test_skip ("sanitizer build");
  g_free (ti);
  g_free (file);
  return;
#endif
  g_unlink (file);
  pid = hgst_launch_playing (argv, &out_fd);
  /* 25 frames fill a 320x180 ring at once: render holds by now */
  g_usleep (1000 * 1000);
  kill (pid, SIGINT);
  exited = hgst_reap (pid, 5000, &status);
  g_assert_true (exited);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  close (out_fd);
  g_free (ti);
  g_free (file);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/eos/app-non-live", test_app_non_live);
  g_test_add_func ("/gst/eos/launch-non-live", test_launch_non_live);
  g_test_add_func ("/gst/eos/queue-bounded", test_queue_bounded);
  return g_test_run ();
}
