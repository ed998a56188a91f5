/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * State changes of mxlfabricssrc and mxlfabricssink that valgrind memcheck
 * checks for leaks and memory errors (valgrind-gst.sh), also run plainly:
 * no wall-clock assertions here (valgrind is ~30x slower), every wait is
 * bounded.
 *
 *  /hardening/state/src-cycles     src NULL->PLAYING->READY->PLAYING->NULL,
 *                                  3 times over tcp and shm
 *  /hardening/state/pair-cycles    src + sink connected, 4 frames carried
 *                                  byte-exact, torn down in both orders,
 *                                  twice over tcp and shm
 */
#include "hgst.h"

#include <gst/video/video.h>

#define CAPS "video/x-raw,format=v210,width=320,height=180,framerate=50/1"
#define WAIT_MS 20000

static gchar *
src_desc (const gchar * prov)
{
  return g_strdup_printf ("mxlfabricssrc name=src provider=%s %s caps=\"%s\" "
      "! appsink name=out sync=false max-buffers=100", prov,
      g_str_equal (prov, "tcp") ? "node=" HGST_NODE : "", CAPS);
}

static void
test_src_cycles (void)
{
  const gchar *provs[] = { "tcp", "shm" };

  for (guint k = 0; k < G_N_ELEMENTS (provs); k++) {
    for (guint i = 0; i < 3; i++) {
      gchar *desc = src_desc (provs[k]);
      GstElement *p = hgst_parse (desc);
      gchar *ti;

      hgst_play (p);
      ti = hgst_target_info (p);
      g_assert_true (g_str_has_prefix (ti, "{"));
      g_assert_cmpint (gst_element_set_state (p, GST_STATE_READY), ==,
          GST_STATE_CHANGE_SUCCESS);
      hgst_play (p);
      hgst_assert_no_error (p);
      hgst_stop (p);
      g_free (ti);
      g_free (desc);
    }
  }
}

static void
pair_once (const gchar * prov, gboolean sink_first)
{
  gchar *sdesc = src_desc (prov);
  gchar *kdesc = g_strdup_printf ("appsrc name=in is-live=true format=time "
      "caps=\"%s\" ! mxlfabricssink name=sink provider=%s %s", CAPS, prov,
      g_str_equal (prov, "tcp") ? "node=" HGST_NODE : "");
  GstElement *src = hgst_parse (sdesc), *sink = hgst_parse (kdesc);
  GstElement *in, *out;
  GstVideoInfo vi;
  GstCaps *caps = gst_caps_from_string (CAPS);
  GstClockTime pts, dur = GST_SECOND / 50;
  gchar *ti, *want[4];
  guint got = 0;
  gint64 deadline;

  g_assert_true (gst_video_info_from_caps (&vi, caps));
  gst_caps_unref (caps);
  hgst_play (src);
  ti = hgst_target_info (src);
  hgst_set_target_info (sink, ti);
  hgst_play (sink);
  g_assert_true (hgst_wait_connected (sink, WAIT_MS));

  in = gst_bin_get_by_name (GST_BIN (sink), "in");
  out = gst_bin_get_by_name (GST_BIN (src), "out");
  pts = hgst_running_time (sink, 100 * GST_MSECOND);
  for (guint i = 0; i < 4; i++) {
    GstBuffer *b = hgst_frame (GST_VIDEO_INFO_SIZE (&vi), i, pts + i * dur, dur);
    want[i] = hgst_checksum (b);
    g_assert_cmpint (gst_app_src_push_buffer (GST_APP_SRC (in), b), ==, GST_FLOW_OK);
  }
  /* Every buffer the src delivers is one of the four, in order. */
  deadline = g_get_monotonic_time () + WAIT_MS * 1000;
  while (got < 4 && g_get_monotonic_time () < deadline) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (out), 100 * GST_MSECOND);
    gchar *sum;
    guint j;

    if (s == NULL)
      continue;
    sum = hgst_checksum (gst_sample_get_buffer (s));
    for (j = 0; j < 4 && !g_str_equal (sum, want[j]); j++);
    g_assert_cmpuint (j, <, 4);
    got = j + 1;
    g_free (sum);
    gst_sample_unref (s);
  }
  g_assert_cmpuint (got, ==, 4);
  hgst_assert_no_error (src);
  hgst_assert_no_error (sink);
  gst_object_unref (in);
  gst_object_unref (out);
  if (sink_first) {
    hgst_stop (sink);
    hgst_stop (src);
  } else {
    hgst_stop (src);
    hgst_stop (sink);
  }
  for (guint i = 0; i < 4; i++)
    g_free (want[i]);
  g_free (ti);
  g_free (sdesc);
  g_free (kdesc);
}

static void
test_pair_cycles (void)
{
  pair_once ("tcp", TRUE);
  pair_once ("tcp", FALSE);
  pair_once ("shm", TRUE);
  pair_once ("shm", FALSE);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hardening/state/src-cycles", test_src_cycles);
  g_test_add_func ("/hardening/state/pair-cycles", test_pair_cycles);
  return g_test_run ();
}
