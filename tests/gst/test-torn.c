/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Integrity under a stalled target: a frame is either delivered bit-exact
 * or counted as dropped, never delivered torn.
 *
 * The src runs in a child process (this binary re-executed with
 * --child-src) that the test stops with SIGSTOP while the sink keeps
 * rendering 1080p v210 as fast as it can (sync=false). A stopped tcp target
 * reads nothing, so the sink's remote write of one grain stalls half sent
 * while the sink laps its 10-grain local ring: the slot that write is still
 * reading from comes up for the next grain. After SIGCONT the child checks
 * every buffer the src pushes: each frame of the sink is one 32-bit value
 * repeated (its frame number), so a frame made of two frames is caught at
 * once. Children are stopped and reaped by PID; every wait is bounded.
 */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "../hardening/hgst.h"

#define NODE HGST_NODE
#define CAPS "video/x-raw,format=v210,width=1920,height=1080,framerate=50/1"
#define FRAME_BYTES (5120 * 1080)
#define FRAME_NS (20 * GST_MSECOND)
#define N_BEFORE 5              /* frames while the src runs */
#define N_STOPPED 60            /* frames while it is stopped */
#define N_AFTER 25              /* frames after it continues */

/* The value every 32-bit word of frame @k holds. */
static guint32
frame_value (guint k)
{
  return 0x5a000000u | k;
}

/* What the child saw. */
typedef struct {
  guint bad;
  GString *values;
} Seen;

/* Checks one buffer the src pushed: bad = not one repeated value of a
 * frame that was sent. */
static void
check_frame (GstBuffer * b, gpointer data)
{
  Seen *seen = data;
  GstMapInfo map;
  gboolean ok;
  guint32 v = 0;

  g_assert_true (gst_buffer_map (b, &map, GST_MAP_READ));
  ok = map.size == FRAME_BYTES;
  if (ok) {
    const guint32 *w = (const guint32 *) map.data;
    gsize k;
    v = w[0];
    ok = (v & 0xff000000u) == 0x5a000000u
        && (v & 0xffffffu) < N_BEFORE + N_STOPPED + N_AFTER;
    for (k = 1; ok && k < map.size / 4; k++)
      ok = w[k] == v;
  }
  gst_buffer_unmap (b, &map);
  if (!ok)
    seen->bad++;
  g_string_append_printf (seen->values, " %s%u", ok ? "" : "BAD:",
      v & 0xffffffu);
}

/* Child: pulls buffers until EOS or none came for 3 s (20 s for the
 * first) and writes "received bad frames..." to @out (check_frame()). */
static int
child_src (const gchar * file, const gchar * out)
{
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=tcp "
      "node=" NODE " caps=\"" CAPS "\" target-info-file=%s ! appsink "
      "name=out sync=false max-buffers=1000", file);
  GstElement *p = hgst_parse (desc);
  Seen seen = { 0, g_string_new (NULL) };
  guint received;
  gchar *text;

  if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    return 3;
  received = hgst_pull_each (p, 0, 20000, 3000, check_frame, &seen);
  text = g_strdup_printf ("%u %u%s\n", received, seen.bad, seen.values->str);
  g_file_set_contents (out, text, -1, NULL);
  g_free (text);
  g_string_free (seen.values, TRUE);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
  return 0;
}

static void
push_frame (GstElement * p, guint k, GstClockTime base)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, FRAME_BYTES, NULL);
  GstMapInfo map;
  guint32 *w;
  gsize i;

  gst_buffer_map (b, &map, GST_MAP_WRITE);
  w = (guint32 *) map.data;
  for (i = 0; i < FRAME_BYTES / 4; i++)
    w[i] = frame_value (k);
  gst_buffer_unmap (b, &map);
  GST_BUFFER_PTS (b) = base + k * FRAME_NS;
  GST_BUFFER_DURATION (b) = FRAME_NS;
  hgst_push (p, b);
}

static void
test_stalled_target (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-torn-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *out = g_build_filename (dir, "received", NULL);
  gchar *desc = g_strdup_printf ("appsrc name=in format=time caps=\"" CAPS
      "\" max-bytes=0 block=true ! mxlfabricssink name=sink provider=tcp "
      "node=" NODE " sync=false wait-for-connection=true target-info=@%s",
      file);
  GstElement *p, *sink;
  GstClock *clock;
  GstClockTime base;
  GPid pid;
  gchar *text = NULL, **f;
  guint k, received, bad;
  guint64 busy;

  g_assert_nonnull (dir);
  pid = hgst_spawn_child (file, out, NULL);
  g_assert_true (hgst_wait_file (file));

  p = hgst_parse (desc);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  g_assert_cmpint (gst_element_set_state (p, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  /* not prerolled yet (no buffer): no clock until the first one */
  clock = gst_element_get_clock (p);
  base = clock ? gst_clock_get_time (clock) - gst_element_get_base_time (p)
      + 50 * GST_MSECOND : 0;
  g_clear_object (&clock);

  for (k = 0; k < N_BEFORE; k++) {
    push_frame (p, k, base);
    g_usleep (20 * 1000);
  }
  hgst_wait_rendered (p, N_BEFORE, 5000);
  /* the stall is of a connected target: with wait-for-connection the first
   * renders return before the connection is up, and a child stopped while
   * still connecting only makes the sink lap frames that wait for it
   * (dropped-no-target), with no write in flight */
  g_assert_true (hgst_wait_connected (p, 10000));
  g_assert_cmpint (kill (pid, SIGSTOP), ==, 0);
  for (; k < N_BEFORE + N_STOPPED; k++)
    push_frame (p, k, base);
  hgst_wait_rendered (p, N_BEFORE + N_STOPPED, 10000);
  g_assert_cmpint (kill (pid, SIGCONT), ==, 0);
  for (; k < N_BEFORE + N_STOPPED + N_AFTER; k++) {
    push_frame (p, k, base);
    g_usleep (20 * 1000);
  }
  hgst_wait_rendered (p, N_BEFORE + N_STOPPED + N_AFTER, 5000);
  g_usleep (200 * 1000);         /* let the last transfers complete */
  busy = hgst_stat (p, "sink", "dropped-in-flight");
  g_test_message ("sink: buffers %" G_GUINT64_FORMAT ", grains %"
      G_GUINT64_FORMAT ", dropped-in-flight %" G_GUINT64_FORMAT
      ", dropped-no-target %" G_GUINT64_FORMAT,
      hgst_stat (p, "sink", "buffers"), hgst_stat (p, "sink", "grains"), busy,
      hgst_stat (p, "sink", "dropped-no-target"));
  hgst_end_stream (p, 5000);    /* EOS across the link: the child ends */
  gst_element_set_state (p, GST_STATE_NULL);

  hgst_assert_child_ok (pid, 20000);
  g_assert_true (g_file_get_contents (out, &text, NULL, NULL));
  g_test_message ("src pushed (frame numbers): %s", g_strchomp (text));
  f = g_strsplit (text, " ", 3);
  received = (guint) atoi (f[0]);
  bad = (guint) atoi (f[1]);
  /* frames delivered at all, none of them torn */
  g_assert_cmpuint (received, >=, N_BEFORE);
  g_assert_cmpuint (bad, ==, 0);
  /* the stall did reach the state this test is about: a slot still read
   * by a write in flight came up for reuse, and that grain was dropped */
  g_assert_cmpuint (busy, >, 0);

  g_strfreev (f);
  g_free (text);
  gst_object_unref (sink);
  gst_object_unref (p);
  hgst_remove_files (dir, file, out);
  g_free (desc);
}

int
main (int argc, char **argv)
{
  if (hgst_init (&argc, &argv, 4))
    return child_src (argv[2], argv[3]);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/torn/stalled-target/tcp", test_stalled_target);
  return g_test_run ();
}
