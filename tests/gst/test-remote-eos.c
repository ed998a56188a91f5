/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * End of stream across the link (issue 19, docs/wire-format.md §11.8):
 * `videotestsrc num-buffers=50 ! mxlfabricssink` ends, and the receiver in
 * another process (this binary re-executed with --child-src:
 * `mxlfabricssrc ! appsink`) gets EOS with exactly the 50 frames before it,
 * their checksums those the sender sent (an identity's handoffs), on tcp
 * and shm. A receiver whose TargetInfo lacks ext."eos" (stripped here, as
 * the MXL reference's or an older one) gets no EOS, its 50 frames still,
 * and the sender still ends normally.
 *
 * Children are reaped by PID; every wait is bounded.
 */
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "../hardening/hgst.h"

#define CAPS "video/x-raw,format=v210,width=320,height=180,framerate=50/1"
#define FRAMES 50
/* a receiver without EOS stops after this long without a frame (ms) */
#define IDLE_MS 2500

/* Child: src ! appsink until EOS or IDLE_MS without a frame (bounded: 20
 * s in all); writes the SHA-1 of each buffer, one a line, then "eos 1"
 * or "eos 0" to @out. */
static int
child_src (const gchar * provider, const gchar * file, const gchar * out)
{
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=%s %s "
      "caps=\"" CAPS "\" ring-length=64 target-info-file=%s ! appsink "
      "name=out sync=false max-buffers=1000", provider,
      g_str_equal (provider, "tcp") ? "node=" HGST_NODE : "", file);
  GstElement *p = hgst_parse (desc);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "out");
  GString *text = g_string_new (NULL);
  gint64 end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  gint64 last = g_get_monotonic_time ();
  gboolean eos = FALSE;
  gchar *playing = g_strconcat (out, ".playing", NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");

  if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    return 3;
  /* the sender starts once this file says the src has its base time */
  hgst_wait_base_time (src);
  gst_object_unref (src);
  g_assert_true (g_file_set_contents (playing, "", 0, NULL));
  g_free (playing);
  while (g_get_monotonic_time () < end
      && g_get_monotonic_time () - last < (gint64) IDLE_MS * 1000) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        100 * GST_MSECOND);

    if (s == NULL) {
      if (gst_app_sink_is_eos (GST_APP_SINK (sink))) {
        eos = TRUE;
        break;
      }
      continue;
    }
    last = g_get_monotonic_time ();
    hgst_append_checksum (gst_sample_get_buffer (s), text);
    gst_sample_unref (s);
  }
  g_string_append_printf (text, "eos %d\n", eos);
  gst_element_set_state (p, GST_STATE_NULL);
  g_assert_true (g_file_set_contents (out, text->str, -1, NULL));
  g_string_free (text, TRUE);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (desc);
  return 0;
}

static void
on_handoff (GstElement * identity, GstBuffer * b, GPtrArray * sums)
{
  g_ptr_array_add (sums, hgst_checksum (b));
}

/* The TargetInfo in @file (compact JSON, as the src writes it) without
 * its ext."eos", into @stripped. */
static void
strip_eos (const gchar * file, const gchar * stripped)
{
  gchar *text = NULL;
  GString *s;

  g_assert_true (g_file_get_contents (file, &text, NULL, NULL));
  s = g_string_new (text);
  g_assert_cmpuint (g_string_replace (s, "\"eos\":\"1\",", "", 0), ==, 1);
  g_assert_null (strstr (s->str, "\"eos\""));
  g_assert_true (g_file_set_contents (stripped, s->str, -1, NULL));
  g_string_free (s, TRUE);
  g_free (text);
}

static void
remote_eos (const gchar * provider, gboolean strip)
{
  gchar *dir = g_dir_make_tmp ("mxl-remote-eos-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *stripped = g_build_filename (dir, "stripped.json", NULL);
  gchar *out = g_build_filename (dir, "out.txt", NULL);
  gchar *playing = g_strconcat (out, ".playing", NULL);
  GPtrArray *sums = g_ptr_array_new_with_free_func (g_free);
  GPid pid = hgst_spawn_child (provider, file, out, NULL);
  GstElement *p, *id;
  GstBus *bus;
  GstMessage *msg;
  gchar *desc, **lines, *warnings;
  guint n;

  g_assert_true (hgst_wait_file (file));
  g_assert_true (hgst_wait_file (playing));
  if (strip)
    strip_eos (file, stripped);
  desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! "
      CAPS " ! identity name=id signal-handoffs=true ! mxlfabricssink "
      "name=sink provider=%s %s target-info=@%s", FRAMES, provider,
      g_str_equal (provider, "tcp") ? "node=" HGST_NODE : "",
      strip ? stripped : file);
  p = hgst_parse (desc);
  id = gst_bin_get_by_name (GST_BIN (p), "id");
  g_signal_connect (id, "handoff", G_CALLBACK (on_handoff), sums);
  hgst_play (p);
  /* the sender ends normally, with or without the notice (bounded) */
  bus = gst_element_get_bus (p);
  msg = gst_bus_timed_pop_filtered (bus, 15 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_EOS);
  gst_message_unref (msg);
  g_assert_cmpuint (hgst_stat (p, "sink", "transfers-completed"), ==, FRAMES);
  gst_object_unref (bus);
  gst_object_unref (id);
  /* the receiver ends (on the notice, or idle) while the sender, at EOS,
   * still plays: over tcp the sender sees the connection close; that is
   * no loss to warn about after EOS (issue 19) */
  hgst_assert_child_ok (pid, 25000);
  if (g_str_equal (provider, "tcp"))
    g_assert_true (hgst_wait_sink_connected (p, 5000, FALSE));
  warnings = hgst_bus_warnings (p);
  g_assert_null (strstr (warnings, "lost"));
  g_free (warnings);
  hgst_stop (p);
  g_assert_cmpuint (sums->len, ==, FRAMES);

  lines = hgst_read_lines (out);
  n = g_strv_length (lines);
  /* the frames in order, then whether EOS came */
  g_assert_cmpuint (n, ==, FRAMES + 1);
  for (guint k = 0; k < FRAMES; k++)
    g_assert_cmpstr (lines[k], ==, g_ptr_array_index (sums, k));
  g_assert_cmpstr (lines[FRAMES], ==, strip ? "eos 0" : "eos 1");
  g_strfreev (lines);

  g_ptr_array_unref (sums);
  g_free (desc);
  g_unlink (stripped);
  g_free (stripped);
  g_unlink (playing);
  g_free (playing);
  hgst_remove_files (dir, file, out);
}

static void
test_tcp (void)
{
  remote_eos ("tcp", FALSE);
}

static void
test_shm (void)
{
  remote_eos ("shm", FALSE);
}

static void
test_tcp_without_key (void)
{
  remote_eos ("tcp", TRUE);
}

static void
test_shm_without_key (void)
{
  remote_eos ("shm", TRUE);
}

int
main (int argc, char **argv)
{
  if (hgst_init (&argc, &argv, 5))
    return child_src (argv[2], argv[3], argv[4]);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/remote-eos/tcp", test_tcp);
  g_test_add_func ("/gst/remote-eos/shm", test_shm);
  g_test_add_func ("/gst/remote-eos/tcp-without-key", test_tcp_without_key);
  g_test_add_func ("/gst/remote-eos/shm-without-key", test_shm_without_key);
  return g_test_run ();
}
