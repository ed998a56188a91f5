/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Caps colorimetry <-> flow definition colorspace and
 * transfer_characteristic (gst/caps.h, gst_mxl_fabrics_format_from_caps()):
 * what a flow cannot say is refused, what it can say is compared in full,
 * and the src's output caps give it back (HDR included).
 */
#include <string.h>

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <json-glib/json-glib.h>

#include "caps.h"
#include "mxlfabricsobject.h"
#include "mxlfabricssinkconn.h"
#include "mxlfabricssinktarget.h"
#include "mxlfabricssrc.h"

#define UUID "5fbec3b1-1b0f-417d-9059-8b94a47197ed"
#define VIDEO "video/x-raw,format=v210,width=1280,height=720,framerate=25/1"
#define WAIT_US (15 * G_USEC_PER_SEC)

/* The flow definition a receiver with @colorimetry publishes (what the src
 * makes from its caps property, srcflow.c). */
static gchar *
receiver_def (const gchar * colorimetry)
{
  gchar *str = g_strdup_printf (VIDEO ",colorimetry=%s", colorimetry);
  GstCaps *caps = gst_caps_from_string (str);
  GstMxlFabricsFormat fmt;
  GError *error = NULL;
  gchar *def;

  g_assert_true (gst_mxl_fabrics_format_from_caps (caps, &fmt, &error));
  g_assert_no_error (error);
  def = gst_mxl_fabrics_flow_def_new (&fmt, UUID, NULL, NULL, &error);
  g_assert_no_error (error);
  gst_caps_unref (caps);
  g_free (str);
  return def;
}

/* The sender's caps against the receiver's flow (sinkconn.c, srcflow.c):
 * NULL when they match, else the error message (g_free). */
static gchar *
sender_vs_receiver (const gchar * sender, const gchar * receiver)
{
  gchar *str = g_strdup_printf (VIDEO ",colorimetry=%s", sender);
  GstCaps *caps = gst_caps_from_string (str);
  gchar *def = receiver_def (receiver), *msg = NULL;
  GstMxlFabricsFormat caps_fmt, flow_fmt;
  GError *error = NULL;

  g_assert_true (gst_mxl_fabrics_format_from_flow_def (def, &flow_fmt, NULL,
          &error));
  if (!gst_mxl_fabrics_format_from_caps (caps, &caps_fmt, &error)
      || !gst_mxl_fabrics_format_check_match (&caps_fmt, &flow_fmt, &error)) {
    g_assert_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT);
    msg = g_strdup (error->message);
    g_error_free (error);
  }
  gst_caps_unref (caps);
  g_free (def);
  g_free (str);
  return msg;
}

static void
expect_refused (const gchar * sender, const gchar * receiver,
    const gchar * needle)
{
  gchar *msg = sender_vs_receiver (sender, receiver);

  if (msg == NULL)
    g_error ("%s accepted by a %s receiver", sender, receiver);
  if (strstr (msg, needle) == NULL)
    g_error ("\"%s\" not in \"%s\"", needle, msg);
  g_free (msg);
}

static void
expect_accepted (const gchar * sender, const gchar * receiver)
{
  gchar *msg = sender_vs_receiver (sender, receiver);

  if (msg != NULL)
    g_error ("%s vs %s receiver: %s", sender, receiver, msg);
}

/* finding B: these were mapped to BT709 and accepted by a BT709 receiver.
 * A flow cannot say them: refused, naming the colorimetry; 2:4:5:4 (BT.601
 * matrix and primaries, BT.709 transfer = BT.601's) is bt601: flagged. */
static void
test_inexpressible (void)
{
  expect_refused ("sRGB", "bt709", "caps colorimetry=sRGB cannot be "
      "expressed by an MXL flow definition");
  expect_refused ("smpte240m", "bt709", "colorimetry=smpte240m cannot");
  expect_refused ("2:4:16:1", "bt709", "colorimetry=2:4:16:1 cannot");
  expect_refused ("1:3:5:1", "bt709", "colorimetry=1:3:5:1 cannot");
  expect_refused ("2:4:5:4", "bt709", "caps colorimetry (colorspace BT601) "
      "does not match the flow's colorspace BT709");
}

/* finding B: bt2100-hlg and bt2100-pq were both "BT2020". */
static void
test_hdr_mismatch (void)
{
  expect_refused ("bt2100-hlg", "bt2100-pq", "caps colorimetry "
      "(transfer_characteristic HLG) does not match the flow's "
      "transfer_characteristic PQ");
  expect_refused ("bt2100-pq", "bt2020", "colorspace BT2100");
  expect_refused ("bt2020", "bt709", "colorspace BT2020");
}

/* What still works: each expressible colorimetry against itself, its
 * equivalent spellings, and caps that say none. */
static void
test_expressible (void)
{
  const gchar *same[] = { "bt709", "bt601", "bt2020", "bt2100-pq",
    "bt2100-hlg"
  };
  GstCaps *caps = gst_caps_from_string (VIDEO);
  GstMxlFabricsFormat fmt;
  gchar *def = receiver_def ("bt709");

  for (guint i = 0; i < G_N_ELEMENTS (same); i++)
    expect_accepted (same[i], same[i]);
  expect_accepted ("2:4:5:4", "bt601");
  expect_accepted ("bt2020-10", "bt2020");
  /* caps without colorimetry match any receiver */
  g_assert_true (gst_mxl_fabrics_format_from_caps (caps, &fmt, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (same); i++) {
    gchar *other = receiver_def (same[i]);
    GstMxlFabricsFormat flow_fmt;

    g_assert_true (gst_mxl_fabrics_format_from_flow_def (other, &flow_fmt,
            NULL, NULL));
    g_assert_true (gst_mxl_fabrics_format_check_match (&fmt, &flow_fmt,
            NULL));
    g_free (other);
  }
  /* the library writes the pair into the definition */
  g_assert_nonnull (strstr (def, "\"colorspace\":\"BT709\""));
  g_assert_nonnull (strstr (def, "\"transfer_characteristic\":\"SDR\""));
  g_free (def);
  def = receiver_def ("bt2100-hlg");
  g_assert_nonnull (strstr (def, "\"colorspace\":\"BT2100\""));
  g_assert_nonnull (strstr (def, "\"transfer_characteristic\":\"HLG\""));
  g_free (def);
  gst_caps_unref (caps);
}

/* Flow definition -> src caps, for every pair a flow can say and for a
 * definition without colour members (IS-04 defaults BT709, SDR). */
static void
test_flow_to_caps (void)
{
  const struct { const gchar *members, *colorimetry; } rows[] = {
    {"\"colorspace\":\"BT2100\",\"transfer_characteristic\":\"PQ\"",
        "bt2100-pq"},
    {"\"colorspace\":\"BT2100\",\"transfer_characteristic\":\"HLG\"",
        "bt2100-hlg"},
    {"\"colorspace\":\"BT2020\",\"transfer_characteristic\":\"SDR\"",
        "bt2020"},
    {"\"colorspace\":\"BT601\"", "bt601"},
    {"\"frame_width\":1280", "bt709"},
    {"\"colorspace\":\"XYZ\"", NULL},
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++) {
    gchar *def = g_strdup_printf ("{\"id\":\"" UUID "\",\"label\":\"l\","
        "\"format\":\"urn:x-nmos:format:video\",\"tags\":{"
        "\"urn:x-nmos:tag:grouphint/v1.0\":[\"g:Video\"]},"
        "\"media_type\":\"video/v210\",\"grain_rate\":{\"numerator\":25},"
        "\"frame_width\":1280,\"frame_height\":720,%s}", rows[i].members);
    GstMxlFabricsFormat fmt;
    GError *error = NULL;
    GstCaps *caps;

    g_assert_true (gst_mxl_fabrics_format_from_flow_def (def, &fmt, NULL,
            &error));
    g_assert_no_error (error);
    caps = gst_mxl_fabrics_format_to_caps (&fmt);
    g_assert_cmpstr (gst_structure_get_string (gst_caps_get_structure (caps,
                0), "colorimetry"), ==, rows[i].colorimetry);
    gst_caps_unref (caps);
    g_free (def);
  }
}

/* A src element with @caps, started: its TargetInfo is out. */
static GstHarness *
start_src (const gchar * caps_str)
{
  GstElement *e = g_object_new (GST_TYPE_MXL_FABRICS_SRC, NULL);
  GstCaps *caps = gst_caps_from_string (caps_str);
  gint64 end = g_get_monotonic_time () + WAIT_US;
  GstHarness *h;
  gchar *ti = NULL;

  g_object_set (e, "provider", 1, "node", "127.0.0.1", "caps", caps, NULL);
  gst_caps_unref (caps);
  h = gst_harness_new_with_element (e, NULL, "src");
  gst_object_unref (e);
  gst_harness_use_systemclock (h);
  gst_harness_play (h);
  while (ti == NULL || ti[0] == '\0') {
    g_free (ti);
    if (g_get_monotonic_time () > end)
      g_error ("the src published no TargetInfo in %d s",
          (int) (WAIT_US / G_USEC_PER_SEC));
    g_usleep (10 * 1000);
    g_object_get (h->element, "target-info", &ti, NULL);
  }
  g_free (ti);
  return h;
}

/* finding B, in the elements: a bt2100-pq receiver's src said plain
 * bt2020 downstream (HDR lost), and a bt2100-hlg sender was let in by the
 * sink's check of its TargetInfo. */
static void
test_src_element (void)
{
  GstHarness *h = start_src (VIDEO ",colorimetry=bt2100-pq");
  GstPad *pad = gst_element_get_static_pad (h->element, "src");
  GstCaps *out = gst_pad_query_caps (pad, NULL), *sender;
  GstMxlFabricsFormat fmt;
  GError *error = NULL;
  gchar *ti = NULL;
  mxlFabricsTargetInfo info;

  g_assert_true (gst_caps_is_fixed (out));
  g_assert_cmpstr (gst_structure_get_string (gst_caps_get_structure (out, 0),
          "colorimetry"), ==, "bt2100-pq");
  g_object_get (h->element, "target-info", &ti, NULL);

  /* the same caps pass the sink's check of the target, HLG does not */
  info = gst_mxl_fabrics_sink_parse_target_info (ti, &error);
  g_assert_no_error (error);
  g_assert_nonnull (info);
  g_assert_true (gst_mxl_fabrics_format_from_caps (out, &fmt, NULL));
  g_assert_true (gst_mxl_fabrics_sink_check_target_flow (info, &fmt, &error));
  g_assert_no_error (error);
  sender = gst_caps_from_string (VIDEO ",colorimetry=bt2100-hlg");
  g_assert_true (gst_mxl_fabrics_format_from_caps (sender, &fmt, NULL));
  g_assert_false (gst_mxl_fabrics_sink_check_target_flow (info, &fmt, &error));
  mxlFabricsFreeTargetInfo (info);
  g_assert_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT);
  if (strstr (error->message, "transfer_characteristic HLG") == NULL)
    g_error ("transfer not named in \"%s\"", error->message);
  g_error_free (error);
  gst_caps_unref (sender);
  gst_caps_unref (out);
  gst_object_unref (pad);
  g_free (ti);
  gst_harness_teardown (h);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gst/caps-color/inexpressible", test_inexpressible);
  g_test_add_func ("/gst/caps-color/hdr-mismatch", test_hdr_mismatch);
  g_test_add_func ("/gst/caps-color/expressible", test_expressible);
  g_test_add_func ("/gst/caps-color/flow-to-caps", test_flow_to_caps);
  g_test_add_func ("/gst/caps-color/src-element", test_src_element);
  return g_test_run ();
}
