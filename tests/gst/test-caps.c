/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* caps <-> NMOS flow definition, grain geometry and mismatch errors (gst/caps.h). */
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/audio/audio.h>
#include <json-glib/json-glib.h>

#include "caps.h"
#include "localflow.h"
#include "media.h"

#define UUID "5fbec3b1-1b0f-417d-9059-8b94a47197ed"

/* What the elements do with caps and a flow definition (sinkconn.c,
 * srcflow.c): parse both, then compare with the format check. */
static gboolean
caps_match_flow_def (const GstCaps * caps, const gchar * flow_def,
    GError ** error)
{
  GstMxlFabricsFormat caps_fmt, flow_fmt;

  return gst_mxl_fabrics_format_from_caps (caps, &caps_fmt, error)
      && gst_mxl_fabrics_format_from_flow_def (flow_def, &flow_fmt, NULL, error)
      && gst_mxl_fabrics_format_check_match (&caps_fmt, &flow_fmt, error);
}

/* Parses a definition with json-glib and returns its root object (owned by
 * the parser, which the caller frees). */
static JsonObject *
parse_object (JsonParser * parser, const gchar * json)
{
  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  g_assert_true (JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)));
  return json_node_get_object (json_parser_get_root (parser));
}

static void
assert_rate (JsonObject * o, const gchar * name, gint64 n, gint64 d)
{
  JsonObject *r = json_object_get_object_member (o, name);
  g_assert_nonnull (r);
  g_assert_cmpint (json_object_get_int_member (r, "numerator"), ==, n);
  g_assert_cmpint (json_object_get_int_member (r, "denominator"), ==, d);
}

static void
assert_same_format (const GstMxlFabricsFormat * a,
    const GstMxlFabricsFormat * b)
{
  g_assert_cmpint (a->media, ==, b->media);
  g_assert_cmpint (a->rate_n, ==, b->rate_n);
  g_assert_cmpint (a->rate_d, ==, b->rate_d);
  g_assert_cmpuint (a->width, ==, b->width);
  g_assert_cmpuint (a->height, ==, b->height);
  g_assert_cmpint (a->scan, ==, b->scan);
  g_assert_cmpuint (a->channels, ==, b->channels);
}

/* caps -> format -> flow def -> format -> caps -> format: all equal. */
static gchar *
round_trip (const gchar * caps_str, GstMxlFabricsFormat * out)
{
  GstCaps *caps = gst_caps_from_string (caps_str), *caps2;
  GstMxlFabricsFormat fmt, fmt2, fmt3;
  GError *error = NULL;
  gchar *def, *id = NULL;

  g_assert_nonnull (caps);
  g_assert_true (gst_mxl_fabrics_format_from_caps (caps, &fmt, &error));
  g_assert_no_error (error);
  def = gst_mxl_fabrics_flow_def_new (&fmt, UUID, "test flow",
      "test group:Video", &error);
  g_assert_no_error (error);
  g_assert_nonnull (def);
  g_assert_true (gst_mxl_fabrics_format_from_flow_def (def, &fmt2, &id,
          &error));
  g_assert_no_error (error);
  g_assert_cmpstr (id, ==, UUID);
  assert_same_format (&fmt, &fmt2);
  caps2 = gst_mxl_fabrics_format_to_caps (&fmt2);
  g_assert_true (gst_caps_is_fixed (caps2));
  g_assert_true (gst_mxl_fabrics_format_from_caps (caps2, &fmt3, &error));
  g_assert_no_error (error);
  assert_same_format (&fmt, &fmt3);
  /* The caps the src produces are accepted by the sink template. */
  {
    GstCaps *tmpl = gst_caps_from_string (GST_MXL_FABRICS_SINK_CAPS);
    g_assert_true (gst_caps_can_intersect (caps2, tmpl));
    gst_caps_unref (tmpl);
  }
  g_assert_true (caps_match_flow_def (caps, def, &error));
  g_assert_no_error (error);
  gst_caps_unref (caps);
  gst_caps_unref (caps2);
  g_free (id);
  *out = fmt;
  return def;
}

static void
test_v210_1080p50 (void)
{
  GstMxlFabricsFormat fmt;
  JsonParser *parser = json_parser_new ();
  gchar *def = round_trip ("video/x-raw,format=v210,width=1920,height=1080,"
      "framerate=50/1,interlace-mode=progressive", &fmt);
  JsonObject *o = parse_object (parser, def);
  GstVideoInfo info;
  GstCaps *caps;

  g_assert_cmpstr (json_object_get_string_member (o, "format"), ==,
      "urn:x-nmos:format:video");
  g_assert_cmpstr (json_object_get_string_member (o, "media_type"), ==,
      "video/v210");
  g_assert_cmpstr (json_object_get_string_member (o, "id"), ==, UUID);
  g_assert_cmpstr (json_object_get_string_member (o, "label"), ==,
      "test flow");
  g_assert_cmpstr (json_object_get_string_member (o, "interlace_mode"), ==,
      "progressive");
  g_assert_cmpint (json_object_get_int_member (o, "frame_width"), ==, 1920);
  g_assert_cmpint (json_object_get_int_member (o, "frame_height"), ==, 1080);
  assert_rate (o, "grain_rate", 50, 1);
  {
    JsonArray *hints = json_object_get_array_member
        (json_object_get_object_member (o, "tags"),
        "urn:x-nmos:tag:grouphint/v1.0");
    g_assert_cmpuint (json_array_get_length (hints), ==, 1);
    g_assert_cmpstr (json_array_get_string_element (hints, 0), ==,
        "test group:Video");
  }
  g_assert_cmpint (fmt.rate_n, ==, 50);
  g_assert_cmpint (fmt.rate_d, ==, 1);
  g_assert_cmpuint (mxlFlowExtV210LineBytes (1920), ==, 5120);
  g_assert_cmpuint (fmt.def.totalSlices, ==, 1080);  /* lines per grain */
  g_assert_cmpuint (gst_mxl_fabrics_format_grain_size (&fmt), ==, 5529600);
  /* the caps the src negotiates describe one grain in the MXL geometry */
  caps = gst_mxl_fabrics_format_to_caps (&fmt);
  g_assert_true (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  g_assert_cmpint (GST_VIDEO_INFO_FORMAT (&info), ==, GST_VIDEO_FORMAT_v210);
  g_assert_cmpint (GST_VIDEO_INFO_PLANE_STRIDE (&info, 0), ==, 5120);
  g_assert_cmpuint (GST_VIDEO_INFO_SIZE (&info), ==, 5529600);
  g_assert_cmpint (gst_mxl_fabrics_field_flags_for_index (&fmt, 7), ==, 0);
  g_object_unref (parser);
  g_free (def);
}

static void
test_v210_720p5994 (void)
{
  GstMxlFabricsFormat fmt;
  JsonParser *parser = json_parser_new ();
  gchar *def = round_trip ("video/x-raw,format=v210,width=1280,height=720,"
      "framerate=60000/1001", &fmt);
  JsonObject *o = parse_object (parser, def);

  assert_rate (o, "grain_rate", 60000, 1001);
  g_assert_cmpint (fmt.rate_n, ==, 60000);
  g_assert_cmpint (fmt.rate_d, ==, 1001);
  g_assert_cmpuint (mxlFlowExtV210LineBytes (1280), ==, 3456);
  g_assert_cmpuint (gst_mxl_fabrics_format_grain_size (&fmt), ==, 2488320);
  g_object_unref (parser);
  g_free (def);
}

/* Woven frames (interlace-mode=interleaved, issue 19): the same flow as
 * alternate caps, with @interleaved set, and back to interleaved caps. */
static void
test_v210_1080i29_woven (void)
{
  GstMxlFabricsFormat fmt;
  JsonParser *parser = json_parser_new ();
  gchar *def = round_trip ("video/x-raw,format=v210,width=1920,height=1080,"
      "framerate=30000/1001,interlace-mode=interleaved,"
      "field-order=bottom-field-first", &fmt);
  JsonObject *o = parse_object (parser, def);
  GstCaps *caps, *want;

  assert_rate (o, "grain_rate", 30000, 1001);
  g_assert_cmpstr (json_object_get_string_member (o, "interlace_mode"), ==,
      "interlaced_bff");
  g_assert_true (fmt.interleaved);
  g_assert_cmpint (fmt.scan, ==, GST_MXL_FABRICS_SCAN_INTERLACED_BFF);
  g_assert_cmpint (fmt.rate_n, ==, 60000);
  g_assert_cmpint (fmt.rate_d, ==, 1001);
  g_assert_cmpuint (gst_mxl_fabrics_format_grain_size (&fmt), ==, 2764800);
  caps = gst_mxl_fabrics_format_to_caps (&fmt);
  want = gst_caps_from_string ("video/x-raw,format=v210,width=1920,"
      "height=1080,framerate=30000/1001,pixel-aspect-ratio=1/1,"
      "interlace-mode=interleaved,colorimetry=bt709,"
      "field-order=bottom-field-first");
  g_assert_true (gst_caps_is_equal (caps, want));
  gst_caps_unref (want);
  gst_caps_unref (caps);
  /* no field-order: top field first, as for alternate caps */
  g_free (round_trip ("video/x-raw,format=v210,width=720,height=576,"
          "framerate=25/1,interlace-mode=interleaved", &fmt));
  g_assert_true (fmt.interleaved);
  g_assert_cmpint (fmt.scan, ==, GST_MXL_FABRICS_SCAN_INTERLACED_TFF);
  g_object_unref (parser);
  g_free (def);
}

static void
test_v210_1080i25 (void)
{
  GstMxlFabricsFormat fmt;
  JsonParser *parser = json_parser_new ();
  gchar *def = round_trip ("video/x-raw(format:Interlaced),format=v210,"
      "width=1920,height=1080,framerate=25/1,interlace-mode=alternate,"
      "field-order=top-field-first", &fmt);
  JsonObject *o = parse_object (parser, def);
  GstCaps *caps;
  GstStructure *s;
  GstVideoInfo info;
  gint n, d;

  /* The flow carries the frame rate; the MXL edit rate is the field rate. */
  assert_rate (o, "grain_rate", 25, 1);
  g_assert_cmpstr (json_object_get_string_member (o, "interlace_mode"), ==,
      "interlaced_tff");
  g_assert_cmpint (fmt.rate_n, ==, 50);
  g_assert_cmpint (fmt.rate_d, ==, 1);
  g_assert_cmpint (fmt.scan, ==, GST_MXL_FABRICS_SCAN_INTERLACED_TFF);
  g_assert_cmpuint (fmt.def.totalSlices, ==, 540);   /* lines per grain */
  g_assert_cmpuint (gst_mxl_fabrics_format_grain_size (&fmt), ==, 2764800);
  g_assert_cmpint (gst_mxl_fabrics_field_flags_for_index (&fmt, 100), ==,
      GST_VIDEO_BUFFER_FLAG_TOP_FIELD);
  g_assert_cmpint (gst_mxl_fabrics_field_flags_for_index (&fmt, 101), ==,
      GST_VIDEO_BUFFER_FLAG_BOTTOM_FIELD);

  caps = gst_mxl_fabrics_format_to_caps (&fmt);
  s = gst_caps_get_structure (caps, 0);
  g_assert_true (gst_caps_features_contains (gst_caps_get_features (caps, 0),
          GST_CAPS_FEATURE_FORMAT_INTERLACED));
  g_assert_cmpstr (gst_structure_get_string (s, "interlace-mode"), ==,
      "alternate");
  g_assert_true (gst_structure_get_fraction (s, "framerate", &n, &d));
  g_assert_cmpint (n, ==, 25);
  g_assert_cmpint (d, ==, 1);
  g_assert_true (gst_video_info_from_caps (&info, caps));
  g_assert_cmpint (GST_VIDEO_INFO_FIELD_RATE_N (&info), ==, 50);
  /* one grain is one field */
  g_assert_cmpint (GST_VIDEO_INFO_INTERLACE_MODE (&info), ==,
      GST_VIDEO_INTERLACE_MODE_ALTERNATE);
  g_assert_cmpint (GST_VIDEO_INFO_FIELD_HEIGHT (&info), ==, 540);
  g_assert_cmpuint (GST_VIDEO_INFO_SIZE (&info), ==, 2764800);
  gst_caps_unref (caps);
  g_object_unref (parser);
  g_free (def);
}

static void
test_v210a (void)
{
  GstMxlFabricsFormat fmt;
  JsonParser *parser = json_parser_new ();
  gchar *def = round_trip ("video/x-raw,format=v210,width=1920,height=1080,"
      "framerate=30000/1001,mxl-alpha=true", &fmt);
  JsonObject *o = parse_object (parser, def);
  GstVideoInfo key_info;
  GstBuffer *buf, *key;
  gsize key_offset, key_size;
  GstMapInfo map;
  GstCaps *caps, *v210_only;
  gsize i;

  g_assert_cmpstr (json_object_get_string_member (o, "media_type"), ==,
      "video/v210a");
  g_assert_cmpint (fmt.media, ==, GST_MXL_FABRICS_MEDIA_V210A);
  g_assert_cmpuint (mxlFlowExtV210aKeyLineBytes (1920), ==, 2560);
  g_assert_cmpuint (mxlFlowExtV210aKeyLineBytes (1280), ==, 1708);
  /* padding edges: 3 key samples per word, 48 pixels per 128 bytes */
  g_assert_cmpuint (mxlFlowExtV210aKeyLineBytes (3), ==, 4);
  g_assert_cmpuint (mxlFlowExtV210aKeyLineBytes (4), ==, 8);
  g_assert_cmpuint (mxlFlowExtV210LineBytes (48), ==, 128);
  g_assert_cmpuint (mxlFlowExtV210LineBytes (49), ==, 256);
  g_assert_cmpuint (gst_mxl_fabrics_format_grain_size (&fmt), ==, 8294400);
  /* The key plane is byte-for-byte GRAY10_LE32 (caps.h): same line size. */
  g_assert_true (gst_video_info_set_format (&key_info,
          GST_VIDEO_FORMAT_GRAY10_LE32, 1920, fmt.def.totalSlices));
  g_assert_cmpint (GST_VIDEO_INFO_FORMAT (&key_info), ==,
      GST_VIDEO_FORMAT_GRAY10_LE32);
  g_assert_cmpint (GST_VIDEO_INFO_PLANE_STRIDE (&key_info, 0), ==, 2560);
  g_assert_cmpuint (fmt.def.sliceSizes[1], ==, 2560);

  /* The key plane of a grain-layout buffer is reachable at V*S, bit-exact. */
  buf = gst_buffer_new_allocate (NULL, 8294400, NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i < map.size; i++)
    map.data[i] = (guint8) (i * 7 + 3);
  gst_buffer_unmap (buf, &map);
  key_offset = (gsize) fmt.def.sliceSizes[0] * fmt.def.totalSlices;
  key_size = (gsize) fmt.def.sliceSizes[1] * fmt.def.totalSlices;
  g_assert_cmpuint (key_offset + key_size, ==, gst_buffer_get_size (buf));
  key = gst_buffer_copy_region (buf, GST_BUFFER_COPY_MEMORY, key_offset,
      key_size);
  g_assert_nonnull (key);
  g_assert_cmpuint (gst_buffer_get_size (key), ==, 2764800);
  gst_buffer_map (key, &map, GST_MAP_READ);
  g_assert_cmpuint (map.data[0], ==, (guint8) (5529600 * 7 + 3));
  g_assert_cmpuint (map.data[map.size - 1], ==, (guint8) (8294399 * 7 + 3));
  gst_buffer_unmap (key, &map);
  gst_buffer_unref (key);
  /* A plain v210 buffer (key lost upstream) is detected. */
  gst_buffer_resize (buf, 0, 5529600);
  g_assert_cmpuint (gst_buffer_get_size (buf), <, key_offset + key_size);
  gst_buffer_unref (buf);

  /* Stock v210 elements accept the caps: they intersect plain v210. */
  caps = gst_mxl_fabrics_format_to_caps (&fmt);
  v210_only = gst_caps_from_string ("video/x-raw,format=v210");
  g_assert_true (gst_caps_can_intersect (caps, v210_only));
  gst_caps_unref (v210_only);
  gst_caps_unref (caps);
  g_object_unref (parser);
  g_free (def);
}

static void
test_audio_8ch (void)
{
  GstMxlFabricsFormat fmt;
  JsonParser *parser = json_parser_new ();
  gchar *def = round_trip ("audio/x-raw,format=F32LE,layout=non-interleaved,"
      "rate=48000,channels=8", &fmt);
  JsonObject *o = parse_object (parser, def);
  GstCaps *caps;
  guint64 mask;
  GstAudioInfo ainfo;

  g_assert_cmpstr (json_object_get_string_member (o, "format"), ==,
      "urn:x-nmos:format:audio");
  g_assert_cmpstr (json_object_get_string_member (o, "media_type"), ==,
      "audio/float32");
  assert_rate (o, "sample_rate", 48000, 1);
  g_assert_cmpint (json_object_get_int_member (o, "bit_depth"), ==, 32);
  g_assert_cmpint (json_object_get_int_member (o, "channel_count"), ==, 8);
  g_assert_false (fmt.interleaved);

  caps = gst_mxl_fabrics_format_to_caps (&fmt);
  g_assert_true (gst_structure_get (gst_caps_get_structure (caps, 0),
          "channel-mask", GST_TYPE_BITMASK, &mask, NULL));
  g_assert_cmpuint (mask, ==, 0);
  g_assert_true (gst_audio_info_from_caps (&ainfo, caps));
  g_assert_cmpint (GST_AUDIO_INFO_LAYOUT (&ainfo), ==,
      GST_AUDIO_LAYOUT_NON_INTERLEAVED);
  g_assert_cmpint (GST_AUDIO_INFO_CHANNELS (&ainfo), ==, 8);
  gst_caps_unref (caps);
  g_object_unref (parser);
  g_free (def);
}

static void
test_audio_interleaved_sink (void)
{
  GstCaps *caps = gst_caps_from_string ("audio/x-raw,format=F32LE,"
      "layout=interleaved,rate=48000,channels=2,channel-mask=(bitmask)0x3");
  GstCaps *tmpl = gst_caps_from_string (GST_MXL_FABRICS_SINK_CAPS);
  GstCaps *src_tmpl = gst_caps_from_string (GST_MXL_FABRICS_SRC_CAPS);
  GstMxlFabricsFormat fmt;
  gchar *def;

  g_assert_true (gst_caps_can_intersect (caps, tmpl));
  g_assert_false (gst_caps_can_intersect (caps, src_tmpl));
  g_assert_true (gst_mxl_fabrics_format_from_caps (caps, &fmt, NULL));
  g_assert_true (fmt.interleaved);
  g_assert_cmpuint (fmt.channels, ==, 2);
  /* Interleaving is a buffer layout, not part of the flow. */
  def = gst_mxl_fabrics_flow_def_new (&fmt, NULL, NULL, NULL, NULL);
  g_assert_nonnull (def);
  g_assert_true (caps_match_flow_def (caps, def, NULL));
  g_free (def);
  gst_caps_unref (caps);
  gst_caps_unref (tmpl);
  gst_caps_unref (src_tmpl);
}

static void
test_st2038 (void)
{
  GstMxlFabricsFormat fmt;
  JsonParser *parser = json_parser_new ();
  gchar *def = round_trip ("meta/x-st-2038,alignment=frame,"
      "framerate=30000/1001", &fmt);
  JsonObject *o = parse_object (parser, def);

  g_assert_cmpstr (json_object_get_string_member (o, "format"), ==,
      "urn:x-nmos:format:data");
  g_assert_cmpstr (json_object_get_string_member (o, "media_type"), ==,
      "video/smpte291");
  assert_rate (o, "grain_rate", 30000, 1001);
  g_assert_cmpuint (gst_mxl_fabrics_format_grain_size (&fmt), ==, 4096);
  g_object_unref (parser);
  g_free (def);
}

static void
test_generated_defaults_valid (void)
{
  GstMxlFabricsFormat fmt = { 0 }, back;
  gchar *def, *id = NULL;
  JsonParser *parser = json_parser_new ();
  JsonObject *o;
  const gchar *hint;

  fmt.media = GST_MXL_FABRICS_MEDIA_DATA;
  fmt.rate_n = 50;
  fmt.rate_d = 1;
  def = gst_mxl_fabrics_flow_def_new (&fmt, NULL, NULL, NULL, NULL);
  g_assert_true (gst_mxl_fabrics_format_from_flow_def (def, &back, &id, NULL));
  g_assert_true (g_uuid_string_is_valid (id));
  o = parse_object (parser, def);
  g_assert_cmpstr (json_object_get_string_member (o, "label"), !=, "");
  hint = json_array_get_string_element (json_object_get_array_member
      (json_object_get_object_member (o, "tags"),
          "urn:x-nmos:tag:grouphint/v1.0"), 0);
  g_assert_true (g_str_has_suffix (hint, ":Data"));
  g_free (id);
  g_free (def);
  g_object_unref (parser);
}

/* A valid base definition, with one member replaced or removed. */
static gchar *
video_def (const gchar * drop, const gchar * extra)
{
  GString *s = g_string_new ("{");
  const gchar *members[][2] = {
    {"id", "\"" UUID "\""},
    {"format", "\"urn:x-nmos:format:video\""},
    {"label", "\"l\""},
    {"tags", "{\"urn:x-nmos:tag:grouphint/v1.0\":[\"g:Video\"]}"},
    {"grain_rate", "{\"numerator\":30000,\"denominator\":1001}"},
    {"frame_width", "1920"},
    {"frame_height", "1080"},
    {"media_type", "\"video/v210\""},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (members); i++) {
    if (drop && strcmp (drop, members[i][0]) == 0)
      continue;
    g_string_append_printf (s, "\"%s\":%s,", members[i][0], members[i][1]);
  }
  if (extra)
    g_string_append_printf (s, "%s,", extra);
  s->str[s->len - 1] = '}';
  return g_string_free (s, FALSE);
}

static void
expect_bad_def (const gchar * def, const gchar * needle)
{
  GstMxlFabricsFormat fmt;
  GError *error = NULL;

  g_assert_false (gst_mxl_fabrics_format_from_flow_def (def, &fmt, NULL,
          &error));
  g_assert_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS);
  if (strstr (error->message, needle) == NULL)
    g_error ("\"%s\" not in \"%s\"", needle, error->message);
  g_error_free (error);
}

static void
test_invalid_defs (void)
{
  GstMxlFabricsFormat fmt;
  gchar *d;

  /* docs/flow-format.md §8 case 5. The member added last wins in json-glib. */
  expect_bad_def (d = video_def ("grain_rate", NULL), "grain_rate");
  g_free (d);
  expect_bad_def (d = video_def ("id", NULL), "\"id\" is missing");
  g_free (d);
  expect_bad_def (d = video_def ("media_type", NULL), "media_type");
  g_free (d);
  expect_bad_def (d = video_def ("label", NULL), "label");
  g_free (d);
  expect_bad_def (d = video_def ("label", "\"label\":\"\""), "empty");
  g_free (d);
  expect_bad_def (d = video_def ("tags",
          "\"tags\":{\"urn:x-nmos:tag:grouphint/v1.0\":[\"a/b/c\"]}"),
      "grouphint entry 0");
  g_free (d);
  expect_bad_def (d = video_def ("tags", NULL), "tags");
  g_free (d);
  expect_bad_def (d = video_def ("grain_rate",
          "\"interlace_mode\":\"interlaced_tff\",\"grain_rate\":"
          "{\"numerator\":60000,\"denominator\":1001}"), "60000/1001");
  g_free (d);
  expect_bad_def (d = video_def ("frame_height",
          "\"interlace_mode\":\"interlaced_tff\",\"frame_height\":1081"),
      "even");
  g_free (d);
  expect_bad_def ("{ this is not json", "malformed JSON");
  expect_bad_def (d = video_def ("grain_rate",
          "\"grain_rate\":{\"numerator\":0}"), "> 0");
  g_free (d);
  expect_bad_def (d = video_def ("id", "\"id\":\"not-a-uuid\""), "UUID");
  g_free (d);
  expect_bad_def (d = video_def ("frame_width", "\"frame_width\":8193"),
      "frame_width");
  g_free (d);
  expect_bad_def (d = video_def ("media_type",
          "\"media_type\":\"video/raw\""), "video/raw");
  g_free (d);

  /* 100000/2000 is accepted and normalised to 50/1. */
  d = video_def ("grain_rate",
      "\"grain_rate\":{\"numerator\":100000,\"denominator\":2000}");
  g_assert_true (gst_mxl_fabrics_format_from_flow_def (d, &fmt, NULL, NULL));
  g_assert_cmpint (fmt.rate_n, ==, 50);
  g_assert_cmpint (fmt.rate_d, ==, 1);
  g_free (d);
  /* Absent denominator = 1; uppercase id is lowercased. */
  d = video_def ("grain_rate", "\"grain_rate\":{\"numerator\":25}");
  g_assert_true (gst_mxl_fabrics_format_from_flow_def (d, &fmt, NULL, NULL));
  g_assert_cmpint (fmt.rate_n, ==, 25);
  g_assert_cmpint (fmt.rate_d, ==, 1);
  g_free (d);
}

static void
expect_mismatch (const gchar * caps_str, const gchar * def,
    const gchar * needle)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GError *error = NULL;

  g_assert_false (caps_match_flow_def (caps, def, &error));
  g_assert_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT);
  if (strstr (error->message, needle) == NULL)
    g_error ("\"%s\" not in \"%s\"", needle, error->message);
  g_error_free (error);
  gst_caps_unref (caps);
}

static void
test_mismatch (void)
{
  gchar *d = video_def (NULL, NULL);     /* 1080p 30000/1001 v210 */
  gchar *d_a = video_def ("media_type", "\"media_type\":\"video/v210a\"");
  gchar *d_709 = video_def (NULL, "\"colorspace\":\"BT709\"");
  GstMxlFabricsFormat fmt = { 0 };
  gchar *audio;

  expect_mismatch ("video/x-raw,format=v210,width=1280,height=1080,"
      "framerate=30000/1001", d, "caps width 1280 does not match the flow's "
      "frame_width 1920");
  expect_mismatch ("video/x-raw,format=v210,width=1920,height=720,"
      "framerate=30000/1001", d, "frame_height 1080");
  expect_mismatch ("video/x-raw,format=v210,width=1920,height=1080,"
      "framerate=25/1", d, "caps framerate 25/1 does not match the flow's "
      "grain_rate 30000/1001");
  expect_mismatch ("video/x-raw,format=v210,width=1920,height=1080,"
      "framerate=30000/1001", d_a, "mxl-alpha=true");
  expect_mismatch ("video/x-raw,format=v210,width=1920,height=1080,"
      "framerate=30000/1001,mxl-alpha=true", d, "flow is video/v210");
  expect_mismatch ("video/x-raw(format:Interlaced),format=v210,width=1920,"
      "height=1080,framerate=30000/1001,interlace-mode=alternate", d,
      "interlace_mode progressive");
  expect_mismatch ("audio/x-raw,format=F32LE,rate=48000,channels=2", d,
      "audio/float32 does not match the flow's media_type video/v210");
  /* issue 20: a bt601 sender was accepted by a BT709 flow and mislabelled */
  expect_mismatch ("video/x-raw,format=v210,width=1920,height=1080,"
      "framerate=30000/1001,colorimetry=bt601", d_709, "caps colorimetry "
      "(colorspace BT601) does not match the flow's colorspace BT709");
  expect_mismatch ("video/x-raw,format=v210,width=1920,height=1080,"
      "framerate=30000/1001,colorimetry=bt2020", d_709, "colorspace BT709");
  {
    GstCaps *c = gst_caps_from_string ("video/x-raw,format=v210,width=1920,"
        "height=1080,framerate=30000/1001,colorimetry=bt709");

    g_assert_true (caps_match_flow_def (c, d_709, NULL));
    gst_caps_unref (c);
    /* caps that give no colorimetry match any colorspace */
    c = gst_caps_from_string ("video/x-raw,format=v210,width=1920,"
        "height=1080,framerate=30000/1001");
    g_assert_true (caps_match_flow_def (c, d_709, NULL));
    gst_caps_unref (c);
  }

  fmt.media = GST_MXL_FABRICS_MEDIA_AUDIO;
  fmt.rate_n = 48000;
  fmt.rate_d = 1;
  fmt.channels = 8;
  audio = gst_mxl_fabrics_flow_def_new (&fmt, UUID, NULL, NULL, NULL);
  expect_mismatch ("audio/x-raw,format=F32LE,layout=non-interleaved,"
      "rate=48000,channels=2", audio, "caps channels 2 do not match the "
      "flow's channel_count 8");
  expect_mismatch ("audio/x-raw,format=F32LE,layout=non-interleaved,"
      "rate=44100,channels=8", audio, "sample_rate");
  g_free (audio);
  g_free (d);
  g_free (d_a);
  g_free (d_709);
}

static void
expect_bad_caps (const gchar * caps_str, const gchar * needle)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstMxlFabricsFormat fmt;
  GError *error = NULL;

  g_assert_nonnull (caps);
  g_assert_false (gst_mxl_fabrics_format_from_caps (caps, &fmt, &error));
  g_assert_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT);
  if (strstr (error->message, needle) == NULL)
    g_error ("\"%s\" not in \"%s\"", needle, error->message);
  g_error_free (error);
  gst_caps_unref (caps);
}

static void
test_bad_caps (void)
{
  expect_bad_caps ("video/x-raw,format=UYVY,width=1920,height=1080,"
      "framerate=25/1", "format=v210");
  expect_bad_caps ("video/x-raw(format:Interlaced),format=v210,width=1920,"
      "height=1080,framerate=50/1,interlace-mode=alternate", "30000/1001");
  expect_bad_caps ("video/x-raw(format:Interlaced),format=v210,width=1920,"
      "height=1081,framerate=25/1,interlace-mode=alternate", "even");
  /* interleaved is carried since issue 19 (test_v210_1080i29_woven);
   * mixed frames are not */
  expect_bad_caps ("video/x-raw,format=v210,width=1920,height=1080,"
      "framerate=25/1,interlace-mode=mixed", "alternate");
  expect_bad_caps ("video/x-raw,format=v210,width=1920,height=1080,"
      "framerate=50/1,interlace-mode=interleaved", "30000/1001");
  expect_bad_caps ("video/x-raw,format=v210,width=1920,height=1080,"
      "framerate=0/1", "framerate");
  expect_bad_caps ("video/x-raw,format=v210,width=8200,height=1080,"
      "framerate=25/1", "outside");
  expect_bad_caps ("audio/x-raw,format=S16LE,rate=48000,channels=2", "F32LE");
  expect_bad_caps ("meta/x-st-2038,alignment=packet,framerate=25/1",
      "alignment=frame");
  expect_bad_caps ("meta/x-st-2038,alignment=frame", "framerate");
  expect_bad_caps ("application/x-rtp", "cannot be carried");
}

/* The audio templates allow exactly the sample rates the library's flows
 * take in a domain of the default history (MXL_FLOW_MIN_SAMPLE_RATE,
 * MXL_FLOW_MAX_SAMPLE_RATE): rate=1 used to pass the template and fail
 * with a bare INVALID_ARG when the flow was created. The lowest one makes
 * a flow, one less does not. */
static void
test_audio_rate_limits (void)
{
  const gchar *tmpls[] = { GST_MXL_FABRICS_SINK_CAPS, GST_MXL_FABRICS_SRC_CAPS };
  const struct { gint rate; gboolean ok; } rows[] = {
    {1, FALSE}, {MXL_FLOW_MIN_SAMPLE_RATE - 1, FALSE},
    {MXL_FLOW_MIN_SAMPLE_RATE, TRUE}, {48000, TRUE},
    {MXL_FLOW_MAX_SAMPLE_RATE, TRUE}, {MXL_FLOW_MAX_SAMPLE_RATE + 1, FALSE},
  };

  for (guint t = 0; t < G_N_ELEMENTS (tmpls); t++) {
    GstCaps *tmpl = gst_caps_from_string (tmpls[t]);

    for (guint i = 0; i < G_N_ELEMENTS (rows); i++) {
      gchar *str = g_strdup_printf ("audio/x-raw,format=F32LE,"
          "layout=non-interleaved,rate=%d,channels=2", rows[i].rate);
      GstCaps *caps = gst_caps_from_string (str);

      if (gst_caps_can_intersect (caps, tmpl) != rows[i].ok)
        g_error ("template %u %s %s", t, rows[i].ok ? "refuses" : "allows",
            str);
      gst_caps_unref (caps);
      g_free (str);
    }
    gst_caps_unref (tmpl);
  }
  for (gint rate = MXL_FLOW_MIN_SAMPLE_RATE - 1;
      rate <= MXL_FLOW_MIN_SAMPLE_RATE; rate++) {
    gchar *str = g_strdup_printf ("audio/x-raw,format=F32LE,"
        "layout=non-interleaved,rate=%d,channels=2", rate);
    GstCaps *caps = gst_caps_from_string (str);
    GstMxlFabricsLocalFlow flow = { 0 };
    GstMxlFabricsFormat fmt;
    GError *error = NULL;
    gchar *def;
    gboolean opened;

    g_assert_true (gst_mxl_fabrics_format_from_caps (caps, &fmt, NULL));
    def = gst_mxl_fabrics_flow_def_new (&fmt, NULL, NULL, NULL, NULL);
    if (rate < MXL_FLOW_MIN_SAMPLE_RATE)
      g_test_expect_message ("mxlfabrics", G_LOG_LEVEL_WARNING, "*too low*");
    opened = gst_mxl_fabrics_local_flow_open_ring (&flow, NULL, def, 0,
        &error);
    g_test_assert_expected_messages ();
    g_test_message ("rate %d: %s", rate, opened ? "flow created" :
        error->message);
    g_assert_cmpint (opened, ==, rate >= MXL_FLOW_MIN_SAMPLE_RATE);
    if (opened)
      gst_mxl_fabrics_local_flow_close (&flow);
    g_clear_error (&error);
    g_free (def);
    gst_caps_unref (caps);
    g_free (str);
  }
}

/* Each media's caps knowledge is its ops table's (gst/media.h): for caps
 * of every media, in the form the src produces, the table chosen by the
 * media type is the one named by the caps structure, its own to_caps,
 * to_def and check_match give what the caps.h calls give, and caps ->
 * flow definition -> caps comes back equal. */
static void
test_media_ops_table (void)
{
  const struct {
    const gchar *caps;
    const GstMxlFabricsMediaOps *ops;
    const gchar *role;
  } rows[] = {
    {"video/x-raw, format=(string)v210, width=(int)1920, height=(int)1080, "
          "framerate=(fraction)50/1, pixel-aspect-ratio=(fraction)1/1, "
          "interlace-mode=(string)progressive, colorimetry=(string)bt709",
        &gst_mxl_fabrics_media_video, "Video"},
    {"video/x-raw(format:Interlaced), format=(string)v210, width=(int)1920, "
          "height=(int)1080, framerate=(fraction)25/1, "
          "pixel-aspect-ratio=(fraction)1/1, interlace-mode=(string)alternate, "
          "colorimetry=(string)bt2100-hlg, "
          "field-order=(string)bottom-field-first",
        &gst_mxl_fabrics_media_video, "Video"},
    {"video/x-raw, format=(string)v210, width=(int)1280, height=(int)720, "
          "framerate=(fraction)60000/1001, pixel-aspect-ratio=(fraction)1/1, "
          "interlace-mode=(string)progressive, colorimetry=(string)bt2100-pq, "
          "mxl-alpha=(boolean)true",
        &gst_mxl_fabrics_media_video, "Video"},
    {"audio/x-raw, format=(string)F32LE, layout=(string)non-interleaved, "
          "rate=(int)48000, channels=(int)2, channel-mask=(bitmask)0x3",
        &gst_mxl_fabrics_media_audio, "Audio"},
    {"audio/x-raw, format=(string)F32LE, layout=(string)non-interleaved, "
          "rate=(int)96000, channels=(int)1",
        &gst_mxl_fabrics_media_audio, "Audio"},
    {"meta/x-st-2038, alignment=(string)frame, framerate=(fraction)30000/1001",
        &gst_mxl_fabrics_media_anc, "Data"},
  };
  GstMxlFabricsFormat fmts[G_N_ELEMENTS (rows)];
  guint i, j;

  for (i = 0; i < G_N_ELEMENTS (rows); i++) {
    GstCaps *caps = gst_caps_from_string (rows[i].caps), *back, *own;
    const GstMxlFabricsMediaOps *ops;
    GstMxlFabricsFormat fmt, flow_fmt;
    mxlFlowExtDefinition def;
    GError *error = NULL;
    gchar *json, *hint, *role;
    char *own_json = NULL;

    g_assert_nonnull (caps);
    g_assert_true (gst_mxl_fabrics_format_from_caps (caps, &fmt, &error));
    g_assert_no_error (error);
    ops = gst_mxl_fabrics_media_ops (fmt.media);
    g_assert_true (ops == rows[i].ops);
    g_assert_true (gst_structure_has_name (gst_caps_get_structure (caps, 0),
            ops->caps_name));
    g_assert_cmpstr (ops->group_role, ==, rows[i].role);

    /* caps -> flow definition: what the table writes, built by the library */
    json = gst_mxl_fabrics_flow_def_new (&fmt, UUID, "t", "g:r", &error);
    g_assert_no_error (error);
    memset (&def, 0, sizeof def);
    def.mediaType = (mxlFlowExtMediaType) fmt.media;
    def.definitionRate.numerator = fmt.rate_n;
    def.definitionRate.denominator = fmt.rate_d;
    ops->to_def (&fmt, &def);
    g_strlcpy (def.id, UUID, sizeof def.id);
    g_assert_cmpint (mxlFlowExtBuildDefinition (&def, "t", "g:r", &own_json,
            NULL), ==, MXL_STATUS_OK);
    g_assert_cmpstr (json, ==, own_json);
    free (own_json);

    /* flow definition -> caps: equal to the caps we started from */
    g_assert_true (gst_mxl_fabrics_format_from_flow_def (json, &flow_fmt, NULL,
            &error));
    g_assert_no_error (error);
    back = gst_mxl_fabrics_format_to_caps (&flow_fmt);
    own = ops->to_caps (&flow_fmt);
    if (!gst_caps_is_equal (back, caps) || !gst_caps_is_equal (own, caps)) {
      gchar *s = gst_caps_to_string (back);
      g_error ("%s came back as %s", rows[i].caps, s);
    }
    g_assert_true (gst_mxl_fabrics_format_check_match (&fmt, &flow_fmt,
            &error));
    g_assert_true (ops->check_match (&fmt, &flow_fmt, &error));
    g_assert_no_error (error);

    /* the default grouphint names the table's role */
    g_free (json);
    json = gst_mxl_fabrics_flow_def_new (&fmt, UUID, "t", NULL, NULL);
    role = g_strdup_printf (":%s\"", rows[i].role);
    hint = strstr (json, "\"gst-mxl-fabrics ");
    g_assert_nonnull (hint);
    g_assert_nonnull (strstr (hint, role));
    g_free (role);
    g_free (json);
    gst_caps_unref (back);
    gst_caps_unref (own);
    gst_caps_unref (caps);
    fmts[i] = fmt;
  }

  /* caps against a flow of another table: refused by media, before any
   * table's own check */
  for (i = 0; i < G_N_ELEMENTS (rows); i++)
    for (j = 0; j < G_N_ELEMENTS (rows); j++) {
      GError *error = NULL;

      if (rows[i].ops == rows[j].ops)
        continue;
      g_assert_false (gst_mxl_fabrics_format_check_match (&fmts[i], &fmts[j],
              &error));
      g_assert_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT);
      g_assert_nonnull (strstr (error->message, "does not match the flow's "
              "media_type"));
      g_error_free (error);
    }
}

int
main (int argc, char **argv)
{
  /* Scan in this process: under AddressSanitizer the forked
   * gst-plugin-scanner cannot load the plugin and would blacklist it in
   * the shared test registry (tests/meson.build). */
  gst_registry_fork_set_enabled (FALSE);
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gst/caps/v210-1080p50", test_v210_1080p50);
  g_test_add_func ("/gst/caps/v210-720p5994", test_v210_720p5994);
  g_test_add_func ("/gst/caps/v210-1080i25", test_v210_1080i25);
  g_test_add_func ("/gst/caps/v210-1080i29-woven", test_v210_1080i29_woven);
  g_test_add_func ("/gst/caps/v210a", test_v210a);
  g_test_add_func ("/gst/caps/audio-8ch", test_audio_8ch);
  g_test_add_func ("/gst/caps/audio-interleaved-sink",
      test_audio_interleaved_sink);
  g_test_add_func ("/gst/caps/st2038", test_st2038);
  g_test_add_func ("/gst/caps/generated-defaults", test_generated_defaults_valid);
  g_test_add_func ("/gst/caps/invalid-flow-defs", test_invalid_defs);
  g_test_add_func ("/gst/caps/mismatch", test_mismatch);
  g_test_add_func ("/gst/caps/bad-caps", test_bad_caps);
  g_test_add_func ("/gst/caps/audio-rate-limits", test_audio_rate_limits);
  g_test_add_func ("/gst/caps/media-ops-table", test_media_ops_table);
  return g_test_run ();
}
