/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Caps from the receiver (issue 19): mxlfabricssink answers CAPS queries
 * with the flow of its target's TargetInfo (gst/sinkcaps.h), so a sender
 * that gives the sink no caps negotiates to what the receiver wants.
 *
 * - two-processes/video: the receiver (this binary re-executed with
 *   --child-src) is mxlfabricssrc caps=640x360 v210 25/1; the sender is
 *   `videotestsrc num-buffers=25 ! video/x-raw,width=320,height=240,
 *   framerate=25/1 ! videoconvert ! videoscale ! mxlfabricssink
 *   target-info=@file`: its sink pad settles on 640x360 v210 and the
 *   receiver gets the 25 frames of 640x360 v210 (1792 * 360 bytes each).
 * - two-processes/audio: the same for `audiotestsrc ! audioconvert !
 *   audioresample ! mxlfabricssink` to a 48 kHz 8-channel F32 planar
 *   receiver: the sink pad is 48000 Hz, 8 channels F32LE, and the
 *   receiver's buffers are 8-channel F32 (32 bytes a sample).
 * - two-processes/renegotiate: the sender starts before its receiver
 *   (the template gives it 320x240); the TargetInfo file the receiver
 *   writes makes the sink send a RECONFIGURE: renegotiated to 640x360, a
 *   new flow, and the receiver gets only 640x360 frames (at least a
 *   second of them, none the sender did not transfer).
 * - two-processes/mismatch: the sender's upstream is fixed to 320x240
 *   (`videotestsrc ! video/x-raw,format=v210,width=320,height=240 !
 *   mxlfabricssink target-info=@file`, no converter) while the receiver's
 *   flow is 640x360: the pipeline fails not-negotiated, after one WARNING
 *   (CORE NEGOTIATION) of the sink naming the width and both values, the
 *   caps of both sides in its debug text; the receiver gets nothing.
 * - query: GstHarness on the sink alone: before any TargetInfo is known
 *   the CAPS query answers the pad template (and a file that does not
 *   exist yet changes nothing); once the @path file holds a TargetInfo
 *   with a flow definition, the caps of that flow, intersected with the
 *   filter; a filter the flow takes nothing of gets the WARNING naming the
 *   quantity (once until stop(), again after a restart); ACCEPT_CAPS
 *   takes the template (a superset), but for fixed caps the library
 *   refuses (video caps without interlace-mode are progressive), each
 *   refusal with a WARNING giving the library's reason; two targets of
 *   different flows give the template and one WARNING naming both.
 * - renegotiate-refused: GstHarness on the sink alone: after caps of a
 *   flow, caps within the template that no flow can hold are refused by
 *   ACCEPT_CAPS with the library's reason (a WARNING), not a request to
 *   restart the pipeline.
 *
 * tcp on 127.0.0.1; the child is stopped (SIGINT) and reaped by PID;
 * every wait is bounded.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gst/check/gstharness.h>

#include "../hardening/hgst.h"

#define VIDEO_RX "video/x-raw,format=v210,width=640,height=360,framerate=25/1"
#define AUDIO_RX "audio/x-raw,format=F32LE,layout=non-interleaved," \
  "rate=48000,channels=8"
#define N_FRAMES 25
#define V210_640x360 (1792 * 360)      /* ((640 + 47) / 48) * 128 a line */

static void
log_caps (const gchar * what, const GstCaps * caps)
{
  gchar *str = gst_caps_to_string (caps);

  g_test_message ("%s %s", what, str);
  g_free (str);
}

/* An HgstEachBuffer: one line "<bytes>" per buffer. */
static void
append_size (GstBuffer * b, gpointer text)
{
  g_string_append_printf (text, "%" G_GSIZE_FORMAT "\n",
      gst_buffer_get_size (b));
}

/* Child: mxlfabricssrc caps=@caps ! appsink; writes each buffer's size to
 * @out once SIGINT came (or 20 s without a buffer). */
static int
child_src (const gchar * caps, const gchar * file, const gchar * out)
{
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=tcp "
      "node=" HGST_NODE " caps=\"%s\" target-info-file=%s ! appsink "
      "name=out sync=false max-buffers=1000", caps, file);
  GstElement *p = hgst_parse (desc);
  GString *text = g_string_new (NULL);

  if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    return 3;
  hgst_pull_until_sigint (p, 20000, append_size, text);
  /* The parent sends SIGINT once its sender ended, when the last grain
   * can still be between the completion queue and the appsink (CI saw 24
   * of 25): take what is still coming, until none for 300 ms (at most
   * the appsink's max-buffers). */
  hgst_pull_each (p, 1000, 300, 300, append_size, text);
  gst_element_set_state (p, GST_STATE_NULL);
  g_assert_true (g_file_set_contents (out, text->str, -1, NULL));
  g_string_free (text, TRUE);
  gst_object_unref (p);
  g_free (desc);
  return 0;
}

/* The EOS or ERROR on @bus within @ms (NULL: fails); fails on a
 * negotiation WARNING (CORE NEGOTIATION) before it. */
static GstMessage *
wait_eos_no_negotiation_warning (GstBus * bus, guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  for (;;) {
    gint64 left = end - g_get_monotonic_time ();
    GstMessage *m = left > 0 ? gst_bus_timed_pop_filtered (bus,
        left * GST_USECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR |
        GST_MESSAGE_WARNING) : NULL;
    GError *err = NULL;

    g_assert_nonnull (m);
    if (GST_MESSAGE_TYPE (m) != GST_MESSAGE_WARNING)
      return m;
    gst_message_parse_warning (m, &err, NULL);
    g_test_message ("WARNING %s", err->message);
    g_assert_false (g_error_matches (err, GST_CORE_ERROR,
            GST_CORE_ERROR_NEGOTIATION));
    g_error_free (err);
    gst_message_unref (m);
  }
}

/* Runs the sender @head ! mxlfabricssink target-info=@@file to EOS
 * (bounded: 15 s); returns the caps its sink pad negotiated. */
static GstCaps *
run_sender (const gchar * head, const gchar * file)
{
  gchar *desc = g_strdup_printf ("%s ! mxlfabricssink name=sink "
      "provider=tcp node=" HGST_NODE " target-info=@%s", head, file);
  GstElement *p = hgst_parse (desc), *sink;
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  GstCaps *caps;
  GstPad *pad;

  hgst_play (p);
  /* converters that negotiate to the flow: no negotiation WARNING on the
   * way (bounded: 15 s) */
  msg = wait_eos_no_negotiation_warning (bus, 15000);
  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_EOS);
  gst_message_unref (msg);
  g_usleep (300 * 1000);        /* the last transfers complete */
  g_assert_cmpuint (hgst_stat (p, "sink", "dropped"), ==, 0);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  caps = gst_pad_get_current_caps (pad);
  g_assert_nonnull (caps);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (bus);
  hgst_stop (p);
  g_free (desc);
  return caps;
}

/* Starts the receiver with @rx_caps, runs the sender @head, stops the
 * receiver; returns the receiver's buffer sizes (g_strfreev) and the
 * sender's caps in @caps. */
static gchar **
transfer (const gchar * rx_caps, const gchar * head, GstCaps ** caps)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-sinkcaps-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *out = g_build_filename (dir, "received", NULL);
  GPid pid = hgst_spawn_child (rx_caps, file, out, NULL);
  gchar **lines;

  g_assert_true (hgst_wait_file (file));
  *caps = run_sender (head, file);
  g_assert_cmpint (kill (pid, SIGINT), ==, 0);
  hgst_assert_child_ok (pid, 10000);
  lines = hgst_read_lines (out);
  hgst_remove_files (dir, file, out);
  return lines;
}

static void
two_processes_video (void)
{
  GstCaps *caps;
  gchar **sizes = transfer (VIDEO_RX, "videotestsrc num-buffers="
      G_STRINGIFY (N_FRAMES) " ! video/x-raw,width=320,height=240,"
      "framerate=25/1 ! videoconvert ! videoscale", &caps);
  GstStructure *s = gst_caps_get_structure (caps, 0);
  gint w = 0, h = 0;

  log_caps ("sender caps", caps);
  g_assert_cmpstr (gst_structure_get_string (s, "format"), ==, "v210");
  g_assert_true (gst_structure_get_int (s, "width", &w));
  g_assert_true (gst_structure_get_int (s, "height", &h));
  g_assert_cmpint (w, ==, 640);
  g_assert_cmpint (h, ==, 360);
  g_assert_cmpuint (g_strv_length (sizes), ==, N_FRAMES);
  for (guint i = 0; sizes[i]; i++)
    g_assert_cmpuint (g_ascii_strtoull (sizes[i], NULL, 10), ==,
        V210_640x360);
  g_strfreev (sizes);
  gst_caps_unref (caps);
}

static void
two_processes_audio (void)
{
  GstCaps *caps;
  gchar **sizes = transfer (AUDIO_RX, "audiotestsrc num-buffers=20 "
      "samplesperbuffer=1024 ! audio/x-raw,rate=44100,channels=1 ! "
      "audioconvert ! audioresample", &caps);
  GstStructure *s = gst_caps_get_structure (caps, 0);
  guint64 samples = 0;
  gint rate = 0, channels = 0;

  log_caps ("sender caps", caps);
  g_assert_cmpstr (gst_structure_get_string (s, "format"), ==, "F32LE");
  g_assert_true (gst_structure_get_int (s, "rate", &rate));
  g_assert_true (gst_structure_get_int (s, "channels", &channels));
  g_assert_cmpint (rate, ==, 48000);
  g_assert_cmpint (channels, ==, 8);
  g_assert_cmpuint (g_strv_length (sizes), >, 0);
  for (guint i = 0; sizes[i]; i++) {
    guint64 bytes = g_ascii_strtoull (sizes[i], NULL, 10);
    g_assert_cmpuint (bytes % (8 * 4), ==, 0);
    samples += bytes / (8 * 4);
  }
  /* 20 * 1024 samples at 44.1 kHz are 22 291 at 48 kHz (audioresample
   * drains its filter at EOS): every one arrives */
  g_test_message ("receiver: %" G_GUINT64_FORMAT " samples", samples);
  g_assert_cmpuint (samples, ==, 22291);
  g_strfreev (sizes);
  gst_caps_unref (caps);
}

/* The sender runs before its receiver: its first caps come from the
 * template (320x240, what videoscale keeps); the TargetInfo file the
 * receiver then writes makes the sink send a RECONFIGURE, videoscale
 * renegotiates to the receiver's 640x360 and the sink sets up a new flow:
 * every frame the receiver gets is 640x360 v210. */
static void
two_processes_renegotiate (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-sinkcaps-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *out = g_build_filename (dir, "received", NULL);
  gchar *desc = g_strdup_printf ("videotestsrc is-live=true num-buffers=75 "
      "! video/x-raw,width=320,height=240,framerate=25/1 ! videoconvert ! "
      "videoscale ! mxlfabricssink name=sink provider=tcp node=" HGST_NODE
      " target-info=@%s", file);
  GstElement *p = hgst_parse (desc), *sink = gst_bin_get_by_name (GST_BIN (p),
      "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstBus *bus = gst_element_get_bus (p);
  GstCaps *caps = NULL;
  GstMessage *msg;
  gchar **sizes;
  guint64 completed;
  gint w = 0;
  GPid pid;

  hgst_play (p);
  for (guint i = 0; i < 500 && (caps = gst_pad_get_current_caps (pad)) ==
      NULL; i++)
    g_usleep (10 * 1000);
  g_assert_nonnull (caps);
  g_assert_true (gst_structure_get_int (gst_caps_get_structure (caps, 0),
          "width", &w));
  g_assert_cmpint (w, ==, 320);
  gst_caps_unref (caps);

  pid = hgst_spawn_child (VIDEO_RX, file, out, NULL);
  msg = wait_eos_no_negotiation_warning (bus, 15000);
  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_EOS);
  gst_message_unref (msg);
  g_usleep (300 * 1000);
  caps = gst_pad_get_current_caps (pad);
  log_caps ("sender caps at the end", caps);
  g_assert_true (gst_structure_get_int (gst_caps_get_structure (caps, 0),
          "width", &w));
  g_assert_cmpint (w, ==, 640);
  gst_caps_unref (caps);
  completed = hgst_stat (p, "sink", "transfers-completed");
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (bus);
  hgst_stop (p);
  g_assert_cmpint (kill (pid, SIGINT), ==, 0);
  hgst_assert_child_ok (pid, 10000);

  sizes = hgst_read_lines (out);
  g_test_message ("receiver: %u frames, sender: %" G_GUINT64_FORMAT
      " transfers completed", g_strv_length (sizes), completed);
  /* at least a second of the 3 s arrives after the renegotiation; the
   * src may count a few grains of the start as late and not push them */
  g_assert_cmpuint (g_strv_length (sizes), >=, 25);
  g_assert_cmpuint (g_strv_length (sizes), <=, completed);
  for (guint i = 0; sizes[i]; i++)
    g_assert_cmpuint (g_ascii_strtoull (sizes[i], NULL, 10), ==,
        V210_640x360);
  g_strfreev (sizes);
  g_free (desc);
  hgst_remove_files (dir, file, out);
}

/* The one WARNING on @bus (CORE NEGOTIATION, the sink's) until an ERROR
 * or @ms: its message and debug text into *@message and *@debug; the
 * ERROR's debug text into *@error_debug (NULL when none came). */
static guint
negotiation_warnings (GstBus * bus, guint ms, gchar ** message,
    gchar ** debug, gchar ** error_debug)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;
  guint n = 0;

  *message = *debug = *error_debug = NULL;
  while (*error_debug == NULL) {
    gint64 left = end - g_get_monotonic_time ();
    GstMessage *m = left > 0 ? gst_bus_timed_pop_filtered (bus,
        left * GST_USECOND, GST_MESSAGE_WARNING | GST_MESSAGE_ERROR) : NULL;
    GError *err = NULL;
    gchar *d = NULL;

    if (m == NULL)
      break;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (m, &err, error_debug);
      g_test_message ("ERROR %s (%s)", err->message, *error_debug);
    } else {
      gst_message_parse_warning (m, &err, &d);
      g_test_message ("WARNING %s (%s)", err->message, d);
      g_assert_true (g_error_matches (err, GST_CORE_ERROR,
              GST_CORE_ERROR_NEGOTIATION));
      if (n++ == 0) {
        *message = g_strdup (err->message);
        *debug = d;
      } else {
        g_free (d);
      }
    }
    g_error_free (err);
    gst_message_unref (m);
  }
  return n;
}

/* Upstream fixed to caps the receiver's flow does not take, no converter
 * in front of the sink: not-negotiated, as before, but after the sink's
 * WARNING naming the quantity and both values (docs/bus-and-stats.md). */
static void
two_processes_mismatch (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-sinkcaps-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *out = g_build_filename (dir, "received", NULL);
  GPid pid = hgst_spawn_child (VIDEO_RX, file, out, NULL);
  gchar *desc, *message, *debug, *error_debug, **sizes;
  GstElement *p;
  GstBus *bus;

  g_assert_true (hgst_wait_file (file));
  desc = g_strdup_printf ("videotestsrc num-buffers=5 ! video/x-raw,"
      "format=v210,width=320,height=240,framerate=25/1 ! mxlfabricssink "
      "name=sink provider=tcp node=" HGST_NODE " target-info=@%s", file);
  p = hgst_parse (desc);
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);
  g_assert_cmpuint (negotiation_warnings (bus, 15000, &message, &debug,
          &error_debug), ==, 1);
  g_assert_nonnull (error_debug);
  g_assert_nonnull (strstr (error_debug, "not-negotiated"));
  g_assert_nonnull (strstr (message, "caps width 320 does not match the "
          "flow's frame_width 640"));
  g_assert_nonnull (strstr (message, "videoconvert ! videoscale"));
  /* both caps: what upstream offers and what the flow takes */
  g_assert_nonnull (strstr (debug, "width=(int)320"));
  g_assert_nonnull (strstr (debug, "width=(int)640"));
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_assert_cmpint (kill (pid, SIGINT), ==, 0);
  hgst_assert_child_ok (pid, 10000);
  sizes = hgst_read_lines (out);
  g_assert_cmpuint (g_strv_length (sizes), ==, 0);
  g_strfreev (sizes);
  g_free (message);
  g_free (debug);
  g_free (error_debug);
  g_free (desc);
  hgst_remove_files (dir, file, out);
}

/* An in-process receiver of @caps writing its TargetInfo to @file. */
static GstElement *
receiver (const gchar * caps, const gchar * file)
{
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=tcp "
      "node=" HGST_NODE " caps=\"%s\" target-info-file=%s ! fakesink", caps,
      file);
  GstElement *p = hgst_parse (desc);

  g_free (desc);
  hgst_play (p);
  g_assert_true (hgst_wait_file (file));
  return p;
}

/* The TargetInfo id in @json: the digits of its top-level "id". */
static gchar *
target_id (const gchar * json)
{
  const gchar *p = g_strrstr (json, "\"id\":\"");

  g_assert_nonnull (p);
  p += strlen ("\"id\":\"");
  return g_strndup (p, strspn (p, "0123456789"));
}

static gboolean
accepts (GstHarness * h, const gchar * str)
{
  GstCaps *caps = gst_caps_from_string (str);
  gboolean ok = gst_pad_peer_query_accept_caps (h->srcpad, caps);

  gst_caps_unref (caps);
  return ok;
}

static GstCaps *
query (GstHarness * h, const gchar * filter_str)
{
  GstCaps *filter = filter_str ? gst_caps_from_string (filter_str) : NULL;
  GstCaps *caps = gst_pad_peer_query_caps (h->srcpad, filter);

  if (filter)
    gst_caps_unref (filter);
  return caps;
}

/* No WARNING waits on @bus. */
static void
assert_no_warning (GstBus * bus)
{
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);

  if (m) {
    GError *e = NULL;
    gst_message_parse_warning (m, &e, NULL);
    g_error ("unexpected WARNING: %s", e->message);
  }
}

/* The next WARNING on @bus is the sink's CORE NEGOTIATION one and says
 * @needle; no other waits. */
static void
assert_negotiation_warning (GstBus * bus, const gchar * needle)
{
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  GError *err = NULL;
  gchar *debug = NULL;

  g_assert_nonnull (m);
  gst_message_parse_warning (m, &err, &debug);
  g_test_message ("%s (%s)", err->message, debug);
  g_assert_true (g_error_matches (err, GST_CORE_ERROR,
          GST_CORE_ERROR_NEGOTIATION));
  if (strstr (err->message, needle) == NULL)
    g_error ("\"%s\" not in \"%s\"", needle, err->message);
  g_error_free (err);
  g_free (debug);
  gst_message_unref (m);
  assert_no_warning (bus);
}

/* The CAPS query with @filter answers nothing, and the sink's WARNING
 * says @needle. */
static void
assert_query_mismatch (GstHarness * h, GstBus * bus, const gchar * filter,
    const gchar * needle)
{
  GstCaps *caps = query (h, filter);

  g_assert_true (gst_caps_is_empty (caps));
  gst_caps_unref (caps);
  assert_negotiation_warning (bus, needle);
}

static void
caps_query (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-sinkcaps-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *file2 = g_build_filename (dir, "other.json", NULL);
  gchar *value = g_strdup_printf ("@%s", file);
  GstElement *e = gst_element_factory_make ("mxlfabricssink", NULL);
  GstBus *bus = gst_bus_new ();
  GstHarness *h;
  GstElement *rx, *rx2;
  GstCaps *templ, *caps;
  GstStructure *s;
  gchar *json2 = NULL, *id = NULL, *id2 = NULL;
  gboolean ok = FALSE;
  gint w = 0, h_ = 0;

  g_object_set (e, "provider", 1, "node", HGST_NODE, "target-info", value,
      NULL);
  h = gst_harness_new_with_element (e, "sink", NULL);
  gst_element_set_bus (e, bus);
  {
    GstPad *pad = gst_element_get_static_pad (e, "sink");
    templ = gst_pad_get_pad_template_caps (pad);
    gst_object_unref (pad);
  }

  /* no TargetInfo yet (the file does not exist): the template */
  caps = query (h, NULL);
  g_assert_true (gst_caps_is_equal (caps, templ));
  gst_caps_unref (caps);
  g_assert_true (accepts (h, "video/x-raw,format=v210,width=320,"
          "height=240,framerate=25/1"));

  /* the receiver writes its TargetInfo: the caps of its flow */
  rx = receiver (VIDEO_RX, file);
  caps = query (h, NULL);
  log_caps ("caps", caps);
  g_assert_cmpuint (gst_caps_get_size (caps), ==, 2);
  for (guint i = 0; i < 2; i++) {
    s = gst_caps_get_structure (caps, i);
    g_assert_cmpstr (gst_structure_get_name (s), ==, "video/x-raw");
    g_assert_cmpstr (gst_structure_get_string (s, "format"), ==, "v210");
    g_assert_true (gst_structure_get_int (s, "width", &w));
    g_assert_true (gst_structure_get_int (s, "height", &h_));
    g_assert_cmpint (w, ==, 640);
    g_assert_cmpint (h_, ==, 360);
  }
  /* preferred: square pixels, the receiver's colorimetry */
  g_assert_cmpstr (gst_structure_get_string (gst_caps_get_structure (caps,
              0), "colorimetry"), ==, "bt709");
  gst_caps_unref (caps);
  /* with a filter: intersected with it; one the flow takes nothing of
   * gets a WARNING naming the quantity the library's check finds
   * different, on the caps of the filter nearest the flow (issue 19) */
  assert_query_mismatch (h, bus, "video/x-raw,width=320", "caps width 320 "
      "does not match the flow's frame_width 640");
  caps = query (h, "video/x-raw,width=320");      /* once until stop() */
  gst_caps_unref (caps);
  assert_no_warning (bus);
  assert_query_mismatch (h, bus, "video/x-raw,width=[ 600, 700 ],height=480",
      "caps height 480 does not match the flow's frame_height 360");
  assert_query_mismatch (h, bus, "video/x-raw,framerate=50/1",
      "caps framerate 50/1 does not match the flow's grain_rate 25/1");
  assert_query_mismatch (h, bus, "audio/x-raw,format=F32LE,"
      "layout=non-interleaved,rate=48000,channels=2",
      "media_type video/v210");
  caps = query (h, "video/x-raw,framerate=25/1");
  g_assert_cmpuint (gst_caps_get_size (caps), ==, 2);
  gst_caps_unref (caps);
  assert_no_warning (bus);
  /* ACCEPT_CAPS takes the template, a superset: the flow's caps, with or
   * without colorimetry, pixel aspect ratio and interlace-mode
   * (progressive), and caps its flow does not match (they fail that target
   * with the sink's WARNING naming the quantity, tests/gst/test-fanout.c),
   * not what no flow can carry: fixed caps the library refuses, each with
   * a WARNING giving its reason */
  g_assert_true (accepts (h, "video/x-raw,format=v210,width=640,"
          "height=360,framerate=25/1"));
  g_assert_true (accepts (h, "video/x-raw,format=v210,width=640,"
          "height=360,framerate=25/1,pixel-aspect-ratio=1/1,"
          "colorimetry=bt709,interlace-mode=progressive"));
  g_assert_true (accepts (h, "video/x-raw,format=v210,width=320,"
          "height=240,framerate=25/1"));
  assert_no_warning (bus);
  g_assert_false (accepts (h, "video/x-raw,format=UYVY,width=640,"
          "height=360,framerate=25/1"));
  assert_negotiation_warning (bus, "format=v210");
  g_assert_false (accepts (h, "application/x-rtp"));
  assert_negotiation_warning (bus, "cannot be carried by MXL");
  /* within the template's progressive structure (it names no
   * interlace-mode), but no flow carries it */
  g_assert_false (accepts (h, "video/x-raw,format=v210,width=640,"
          "height=360,framerate=25/1,interlace-mode=mixed"));
  assert_negotiation_warning (bus, "interlace-mode=mixed is not supported");
  g_assert_false (accepts (h, "video/x-raw,format=v210,width=640,"
          "height=360,framerate=25/1,interlace-mode=mixed"));
  assert_no_warning (bus);
  /* after stop() the same text is posted again */
  g_assert_cmpint (gst_element_set_state (e, GST_STATE_PLAYING), !=,
      GST_STATE_CHANGE_FAILURE);
  g_assert_cmpint (gst_element_set_state (e, GST_STATE_NULL), ==,
      GST_STATE_CHANGE_SUCCESS);
  assert_query_mismatch (h, bus, "video/x-raw,width=320", "caps width 320 "
      "does not match the flow's frame_width 640");

  /* a second target of another flow: nothing in common: the template and
   * one WARNING naming both targets (not one per query) */
  rx2 = receiver (AUDIO_RX, file2);
  json2 = hgst_target_info (rx2);
  g_signal_emit_by_name (e, "add-target", json2, &ok);
  g_assert_true (ok);
  caps = query (h, NULL);
  g_assert_true (gst_caps_is_equal (caps, templ));
  gst_caps_unref (caps);
  caps = query (h, NULL);
  gst_caps_unref (caps);
  {
    GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
    gchar *json = NULL;
    GError *err = NULL;

    g_assert_true (g_file_get_contents (file, &json, NULL, NULL));
    id = target_id (json);
    id2 = target_id (json2);
    g_assert_nonnull (m);
    gst_message_parse_warning (m, &err, NULL);
    g_test_message ("%s", err->message);
    g_assert_nonnull (strstr (err->message, "no caps in common"));
    g_assert_nonnull (strstr (err->message, id));
    g_assert_nonnull (strstr (err->message, id2));
    g_error_free (err);
    gst_message_unref (m);
    g_free (json);
  }
  assert_no_warning (bus);

  gst_harness_teardown (h);
  gst_caps_unref (templ);
  gst_element_set_state (rx, GST_STATE_NULL);
  gst_element_set_state (rx2, GST_STATE_NULL);
  gst_object_unref (rx);
  gst_object_unref (rx2);
  gst_object_unref (bus);
  g_free (json2);
  g_free (id);
  g_free (id2);
  g_free (value);
  g_unlink (file2);
  g_free (file2);
  hgst_remove_files (dir, file, NULL);
}

/* Caps of another flow renew it (two-processes/renegotiate); caps within
 * the template that no flow can hold, once a flow is set up (interlaced
 * at 50 frames/s: the library's rule allows 25/1 and 30000/1001), are
 * refused by ACCEPT_CAPS with the reason of that refusal (a WARNING, CORE
 * NEGOTIATION; upstream gets not-negotiated), not with a claim that caps
 * cannot change while playing. */
static void
renegotiate_refused (void)
{
  GstElement *e = gst_element_factory_make ("mxlfabricssink", NULL);
  GstBus *bus = gst_bus_new ();
  GstCaps *bad = gst_caps_from_string ("video/x-raw,format=v210,width=320,"
      "height=240,framerate=50/1,interlace-mode=interleaved,"
      "field-order=top-field-first");
  GstHarness *h;
  GstMessage *m;
  GError *err = NULL;
  gchar *debug = NULL;

  g_object_set (e, "provider", 1, "node", HGST_NODE, "wait-for-connection",
      FALSE, NULL);
  h = gst_harness_new_with_element (e, "sink", NULL);
  gst_element_set_bus (e, bus);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=v210,width=320,"
      "height=240,framerate=25/1");
  g_assert_null (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR));
  /* a sticky event (stored whatever the sink answered), refused before
   * set_caps: the sink pad keeps its caps */
  gst_pad_push_event (h->srcpad, gst_event_new_caps (bad));
  {
    GstPad *pad = gst_element_get_static_pad (e, "sink");
    GstCaps *now = gst_pad_get_current_caps (pad);

    g_assert_nonnull (now);
    g_assert_false (gst_caps_is_equal (now, bad));
    gst_caps_unref (now);
    gst_object_unref (pad);
  }
  m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING | GST_MESSAGE_ERROR);
  g_assert_nonnull (m);
  g_assert_cmpint (GST_MESSAGE_TYPE (m), ==, GST_MESSAGE_WARNING);
  g_assert_null (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR));
  gst_message_parse_warning (m, &err, &debug);
  g_test_message ("%s (%s)", err->message, debug);
  g_assert_true (g_error_matches (err, GST_CORE_ERROR,
          GST_CORE_ERROR_NEGOTIATION));
  g_assert_nonnull (strstr (err->message, "caps do not fit an MXL flow"));
  g_assert_null (strstr (err->message, "mid-stream"));
  g_assert_null (strstr (debug, "restart"));
  g_error_free (err);
  g_free (debug);
  gst_message_unref (m);
  gst_caps_unref (bad);
  gst_harness_teardown (h);
  gst_object_unref (bus);
}

int
main (int argc, char **argv)
{
  if (hgst_init (&argc, &argv, 5))
    return child_src (argv[2], argv[3], argv[4]);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/sink-caps/query", caps_query);
  g_test_add_func ("/gst/sink-caps/renegotiate-refused", renegotiate_refused);
  g_test_add_func ("/gst/sink-caps/two-processes/video", two_processes_video);
  g_test_add_func ("/gst/sink-caps/two-processes/audio", two_processes_audio);
  g_test_add_func ("/gst/sink-caps/two-processes/renegotiate",
      two_processes_renegotiate);
  g_test_add_func ("/gst/sink-caps/two-processes/mismatch",
      two_processes_mismatch);
  return g_test_run ();
}
