/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A live sender whose connection is slow to come up, with the real
 * elements in two processes (issue 20, README "By hand"): appsrc
 * is-live=true do-timestamp=true pushes 100 v210 frames at 50 fps from
 * PLAYING on into mxlfabricssink (wait-for-connection, the default) whose
 * TargetInfo names a tcp relay (tcprelay.h) that holds each connection's
 * handshake back for SLOW_MS (300 ms: longer than the sink's ring, 10
 * grains, 200 ms at 50 fps), to a receiver that is already listening with
 * a ring (ring-length) that holds every frame the sender produces until
 * it is connected. The sink holds the frames while it waits (the ring
 * full, render waits too, and appsrc queues the rest); they go out as a
 * burst once it is connected, and the receiver gets every frame from the
 * first one: 100 buffers, frame numbers 0 to 99 in order, nothing dropped
 * or skipped on either side. The sink used to drop the frames after its
 * ring's end (dropped-no-target) until the connection came.
 *
 * The receiver is this binary re-executed with --child-src: mxlfabricssrc
 * ! appsink, writing each buffer's frame number (its first 32-bit word),
 * then "stats" and its counters. Children are reaped or killed by PID;
 * every wait is bounded.
 */
#include <stdlib.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "../hardening/hgst.h"
#include "tcprelay.h"

#define W 192
#define H 108
#define CAPS "video/x-raw,format=v210,width=192,height=108,framerate=50/1"
/* v210: 128 bytes per 48 pixels a line */
#define FRAME_BYTES ((W + 47) / 48 * 128 * H)
#define N_FRAMES 100
#define SLOW_MS 300
/* the receiver's ring: 1 s, more than the frames that wait for the
 * connection (its set-up and SLOW_MS) */
#define RX_RING 50

static void
append_frame_number (GstBuffer * b, gpointer res)
{
  guint32 k = 0;

  g_assert_cmpuint (gst_buffer_extract (b, 0, &k, sizeof k), ==, sizeof k);
  g_string_append_printf (res, "%u\n", k);
}

/* Child: see the top of the file. */
static int
child_src (const gchar * service, const gchar * file, const gchar * out)
{
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=tcp node="
      HGST_NODE " service=%s ring-length=%u caps=\"" CAPS "\" "
      "target-info-file=%s ! appsink "
      "name=out sync=false max-buffers=1000", service, RX_RING, file);
  GstElement *p = hgst_parse (desc);
  GString *res = g_string_new (NULL);

  hgst_play (p);
  /* ends after N_FRAMES buffers, or 3 s without one */
  hgst_pull_each (p, N_FRAMES, 20000, 3000, append_frame_number, res);
  /* the counters are refreshed every 100 ms */
  g_usleep (300 * 1000);
  g_string_append_printf (res, "stats %" G_GUINT64_FORMAT " %"
      G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", hgst_stat (p, "src",
          "dropped"), hgst_stat (p, "src", "skipped-at-start"), hgst_stat (p,
          "src", "grains-received"));
  g_file_set_contents (out, res->str, -1, NULL);
  g_string_free (res, TRUE);
  hgst_stop (p);
  g_free (desc);
  return 0;
}

/* Pushes N_FRAMES frames into the appsrc "in" of @p at 50 fps (each one
 * 32-bit word, its frame number, repeated), then EOS, and runs the bus
 * until EOS (at most 10 s more; an ERROR fails). */
static void
push_live (GstElement * p)
{
  GstElement *in = gst_bin_get_by_name (GST_BIN (p), "in");
  GstBus *bus = gst_element_get_bus (p);
  gint64 t = g_get_monotonic_time ();
  GstMessage *m;
  guint k;

  for (k = 0; k < N_FRAMES; k++) {
    guint32 *words = g_malloc (FRAME_BYTES);
    GstFlowReturn ret;

    for (guint i = 0; i < FRAME_BYTES / 4; i++)
      words[i] = k;
    g_signal_emit_by_name (in, "push-buffer",
        gst_buffer_new_wrapped (words, FRAME_BYTES), &ret);
    g_assert_cmpint (ret, ==, GST_FLOW_OK);
    t += 20 * 1000;
    if (t > g_get_monotonic_time ())
      g_usleep (t - g_get_monotonic_time ());
  }
  g_signal_emit_by_name (in, "end-of-stream", &(GstFlowReturn) { 0 });
  m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_EOS |
      GST_MESSAGE_ERROR);
  g_assert_nonnull (m);
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
    hgst_assert_no_error (p);
  gst_message_unref (m);
  gst_object_unref (bus);
  gst_object_unref (in);
}

static void
test_slow_connect (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-slow-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *out = g_build_filename (dir, "got.txt", NULL);
  gchar *service = tcp_relay_free_port ();
  gchar *json = NULL, *relayed, **lines;
  guint64 dropped = 1, at_start = 1, received = 0;
  TcpRelay *relay;
  GstElement *p;
  GPid pid;
  guint n, i;

  pid = hgst_spawn_child (service, file, out, NULL);
  g_assert_true (hgst_wait_file (file));
  g_assert_true (g_file_get_contents (file, &json, NULL, NULL));
  relay = tcp_relay_new ((guint16) atoi (service));
  tcp_relay_set_delay (relay, SLOW_MS);
  relayed = tcp_relay_retarget (json, tcp_relay_port (relay));
  p = hgst_parse ("appsrc name=in is-live=true do-timestamp=true "
      "format=time caps=\"" CAPS "\" ! mxlfabricssink name=sink "
      "provider=tcp node=" HGST_NODE);
  hgst_set_target_info (p, relayed);
  hgst_play (p);
  push_live (p);
  hgst_assert_child_ok (pid, 10000);

  lines = hgst_read_lines (out);
  for (n = 0; lines[n] && !g_str_has_prefix (lines[n], "stats "); n++);
  g_assert_nonnull (lines[n]);
  g_assert_cmpint (sscanf (lines[n], "stats %" G_GUINT64_FORMAT " %"
          G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, &dropped, &at_start,
          &received), ==, 3);
  g_test_message ("relay carried %u connection(s); received %u buffers, "
      "first frame %s; receiver dropped %" G_GUINT64_FORMAT
      ", skipped-at-start %" G_GUINT64_FORMAT ", grains-received %"
      G_GUINT64_FORMAT "; sender grains %" G_GUINT64_FORMAT
      ", dropped-no-target %" G_GUINT64_FORMAT ", dropped %" G_GUINT64_FORMAT,
      tcp_relay_accepted (relay), n, n > 0 ? lines[0] : "-", dropped,
      at_start, received, hgst_stat (p, "sink", "grains"), hgst_stat (p,
          "sink", "dropped-no-target"), hgst_stat (p, "sink", "dropped"));
  g_assert_cmpuint (tcp_relay_accepted (relay), ==, 1);
  g_assert_cmpuint (hgst_stat (p, "sink", "dropped-no-target"), ==, 0);
  g_assert_cmpuint (hgst_stat (p, "sink", "dropped"), ==, 0);
  g_assert_cmpuint (hgst_stat (p, "sink", "grains"), ==, N_FRAMES);
  g_assert_cmpuint (n, ==, N_FRAMES);
  for (i = 0; i < n; i++)
    g_assert_cmpuint (atoi (lines[i]), ==, i);
  g_assert_cmpuint (dropped, ==, 0);
  g_assert_cmpuint (at_start, ==, 0);
  g_assert_cmpuint (received, ==, N_FRAMES);

  hgst_stop (p);
  tcp_relay_free (relay);
  g_strfreev (lines);
  g_free (relayed);
  g_free (json);
  g_free (service);
  hgst_remove_files (dir, file, out);
}

int
main (int argc, char **argv)
{
  if (hgst_init (&argc, &argv, 5))
    return child_src (argv[2], argv[3], argv[4]);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gst/slow-connect/live-burst/tcp", test_slow_connect);
  return g_test_run ();
}
