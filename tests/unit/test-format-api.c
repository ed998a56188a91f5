/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The format exports of the shared library (<mxl/flow-ext.h>,
 * <mxl/fabrics-ext.h>) the GStreamer elements use: flow definition summary
 * and building, line sizes, status names, the user-string TargetInfo
 * resolver and the TargetInfo's flow definition. Linked against the shared
 * library, so a symbol that is not exported fails the build.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>
#include <mxl/flow-ext.h>

#define UUID "5fbec3b1-1b0f-417d-9059-8b94a47197ed"
#define TAGS "\"tags\":{\"urn:x-nmos:tag:grouphint/v1.0\":[\"g:Video\"]}"

static mxlFlowExtDefinition
parse_ok (const char *json)
{
  mxlFlowExtDefinition def;
  char *reason = (char *) "unset";

  memset (&def, 0xa5, sizeof def);
  g_assert_cmpint (mxlFlowExtParseDefinition (json, &def, &reason), ==,
      MXL_STATUS_OK);
  g_assert_null (reason);
  return def;
}

static void
parse_bad (const char *json, const char *needle)
{
  mxlFlowExtDefinition def;
  char *reason = NULL;

  memset (&def, 0x5a, sizeof def);
  g_assert_cmpint (mxlFlowExtParseDefinition (json, &def, &reason), ==,
      MXL_ERR_INVALID_ARG);
  g_assert_nonnull (reason);
  if (strstr (reason, needle) == NULL)
    g_error ("\"%s\" not in \"%s\"", needle, reason);
  g_assert_true (g_str_has_prefix (reason, "flow definition: "));
  g_assert_cmpuint (def.width, ==, 0x5a5a5a5au);      /* untouched */
  free (reason);
}

static void
test_parse_video (void)
{
  mxlFlowExtDefinition d = parse_ok ("{\"id\":\"5FBEC3B1-1B0F-417D-9059-8B94A47197ED\","
      "\"format\":\"urn:x-nmos:format:video\",\"label\":\"l\"," TAGS ","
      "\"media_type\":\"video/v210a\",\"grain_rate\":{\"numerator\":25},"
      "\"frame_width\":1280,\"frame_height\":720,"
      "\"interlace_mode\":\"interlaced_bff\",\"colorspace\":\"BT2020\"}");

  g_assert_cmpstr (d.id, ==, UUID);
  g_assert_cmpint (d.format, ==, MXL_DATA_FORMAT_VIDEO);
  g_assert_cmpint (d.mediaType, ==, MXL_FLOW_EXT_MEDIA_V210A);
  g_assert_cmpint (d.definitionRate.numerator, ==, 25);
  g_assert_cmpint (d.definitionRate.denominator, ==, 1);
  g_assert_cmpint (d.editRate.numerator, ==, 50);       /* fields */
  g_assert_cmpint (d.editRate.denominator, ==, 1);
  g_assert_cmpuint (d.width, ==, 1280);
  g_assert_cmpuint (d.height, ==, 720);
  g_assert_cmpint (d.interlace, ==, MXL_FLOW_EXT_INTERLACED_BFF);
  g_assert_cmpstr (d.colorspace, ==, "BT2020");
  g_assert_cmpuint (d.totalSlices, ==, 360);
  g_assert_cmpuint (d.sliceSizes[0], ==, 3456);
  g_assert_cmpuint (d.sliceSizes[1], ==, 1708);
  g_assert_cmpuint (d.grainSize, ==, (3456 + 1708) * 360);
  g_assert_cmpuint (d.channelCount, ==, 0);
  g_assert_cmpuint (d.bitDepth, ==, 0);

  /* no colorspace: the IS-04 default; a non-string one is ignored */
  d = parse_ok ("{\"id\":\"" UUID "\",\"format\":\"urn:x-nmos:format:video\","
      "\"label\":\"l\"," TAGS ",\"media_type\":\"video/v210\","
      "\"grain_rate\":{\"numerator\":60000,\"denominator\":1001},"
      "\"frame_width\":1920,\"frame_height\":1080,\"colorspace\":7}");
  g_assert_cmpstr (d.colorspace, ==, "BT709");
  g_assert_cmpint (d.interlace, ==, MXL_FLOW_EXT_PROGRESSIVE);
  g_assert_cmpint (d.editRate.numerator, ==, 60000);
  g_assert_cmpint (d.editRate.denominator, ==, 1001);
  g_assert_cmpuint (d.totalSlices, ==, 1080);
  g_assert_cmpuint (d.grainSize, ==, 5529600);
  g_assert_cmpuint (d.sliceSizes[1], ==, 0);
}

static void
test_parse_audio_data (void)
{
  mxlFlowExtDefinition d = parse_ok ("{\"id\":\"" UUID "\","
      "\"format\":\"urn:x-nmos:format:audio\",\"label\":\"a\"," TAGS ","
      "\"media_type\":\"audio/float32\",\"sample_rate\":{\"numerator\":96000,"
      "\"denominator\":2},\"channel_count\":16,\"bit_depth\":32}");

  g_assert_cmpint (d.format, ==, MXL_DATA_FORMAT_AUDIO);
  g_assert_cmpint (d.mediaType, ==, MXL_FLOW_EXT_MEDIA_FLOAT32);
  g_assert_cmpint (d.editRate.numerator, ==, 48000);
  g_assert_cmpint (d.editRate.denominator, ==, 1);
  g_assert_cmpuint (d.channelCount, ==, 16);
  g_assert_cmpuint (d.bitDepth, ==, 32);
  g_assert_cmpuint (d.grainSize, ==, 0);
  g_assert_cmpuint (d.totalSlices, ==, 0);
  g_assert_cmpstr (d.colorspace, ==, "");

  d = parse_ok ("{\"id\":\"" UUID "\",\"format\":\"urn:x-nmos:format:data\","
      "\"label\":\"d\"," TAGS ",\"media_type\":\"video/smpte291\","
      "\"grain_rate\":{\"numerator\":50}}");
  g_assert_cmpint (d.format, ==, MXL_DATA_FORMAT_DATA);
  g_assert_cmpint (d.mediaType, ==, MXL_FLOW_EXT_MEDIA_SMPTE291);
  g_assert_cmpuint (d.grainSize, ==, MXL_DATA_FORMAT_GRAIN_SIZE);
  g_assert_cmpuint (d.totalSlices, ==, 4096);
  g_assert_cmpuint (d.sliceSizes[0], ==, 1);
}

/* The library's rules, the ones the plugin once relaxed (issue 15). */
static void
test_parse_rejects (void)
{
  char *reason = (char *) "unset";
  mxlFlowExtDefinition d;

  parse_bad ("{\"id\":\"" UUID "\",\"format\":\"urn:x-nmos:format:audio\","
      "\"label\":\"a\"," TAGS ",\"media_type\":\"audio/float32\","
      "\"sample_rate\":{\"numerator\":48000},\"channel_count\":1025,"
      "\"bit_depth\":32}", "channel_count: 1025");
  parse_bad ("{\"id\":\"" UUID "\",\"format\":\"urn:x-nmos:format:audio\","
      "\"label\":\"a\"," TAGS ",\"media_type\":\"audio/L24\","
      "\"sample_rate\":{\"numerator\":48000},\"channel_count\":2,"
      "\"bit_depth\":32}", "media_type: \"audio/L24\"");
  parse_bad ("{\"id\":\"" UUID "\",\"format\":\"urn:x-nmos:format:video\","
      "\"label\":\"l\"," TAGS ",\"media_type\":\"video/v210\","
      "\"grain_rate\":{\"numerator\":50},\"frame_width\":1920,"
      "\"frame_height\":1080,\"interlace_mode\":\"interlaced_tff\"}",
      "grain_rate: 50/1 is not 30000/1001 or 25/1");
  parse_bad ("{\"id\":\"" UUID "\",\"format\":\"urn:x-nmos:format:video\","
      "\"label\":\"l\"," TAGS ",\"media_type\":\"video/v210\","
      "\"grain_rate\":{\"numerator\":50},\"frame_width\":8193,"
      "\"frame_height\":1080}", "frame_width: 8193 is outside 2 … 8192");
  parse_bad ("[1]", "root is not an object");
  g_assert_cmpint (mxlFlowExtParseDefinition (NULL, &d, &reason), ==,
      MXL_ERR_INVALID_ARG);
  free (reason);
  /* the reason is optional */
  g_assert_cmpint (mxlFlowExtParseDefinition ("{}", &d, NULL), ==,
      MXL_ERR_INVALID_ARG);
}

static JsonObject *
object_of (JsonParser * parser, const char *json)
{
  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  return json_node_get_object (json_parser_get_root (parser));
}

static void
test_build (void)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  mxlFlowExtDefinition d, back;
  char *json = NULL, *reason = (char *) "unset";
  JsonObject *o;
  JsonArray *components;

  memset (&d, 0, sizeof d);
  g_strlcpy (d.id, "5FBEC3B1-1B0F-417D-9059-8B94A47197ED", sizeof d.id);
  d.mediaType = MXL_FLOW_EXT_MEDIA_V210A;
  d.definitionRate.numerator = 30000;
  d.definitionRate.denominator = 1001;
  d.width = 1920;
  d.height = 1080;
  d.interlace = MXL_FLOW_EXT_INTERLACED_TFF;
  g_assert_cmpint (mxlFlowExtBuildDefinition (&d, "my flow", "grp:Video",
          &json, &reason), ==, MXL_STATUS_OK);
  g_assert_null (reason);
  g_assert_nonnull (json);
  /* derived fields filled in, as the parser gives them back */
  g_assert_cmpstr (d.id, ==, UUID);
  g_assert_cmpint (d.format, ==, MXL_DATA_FORMAT_VIDEO);
  g_assert_cmpint (d.editRate.numerator, ==, 60000);
  g_assert_cmpuint (d.totalSlices, ==, 540);
  g_assert_cmpuint (d.grainSize, ==, (5120 + 2560) * 540);
  g_assert_cmpstr (d.colorspace, ==, "BT709");
  back = parse_ok (json);
  g_assert_cmpmem (&back, sizeof back, &d, sizeof d);

  o = object_of (parser, json);
  g_assert_cmpstr (json_object_get_string_member (o, "label"), ==, "my flow");
  g_assert_cmpstr (json_object_get_string_member (o, "description"), ==, "my flow");
  g_assert_cmpstr (json_object_get_string_member (o, "interlace_mode"), ==,
      "interlaced_tff");
  g_assert_cmpstr (json_object_get_string_member (o, "transfer_characteristic"),
      ==, "SDR");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member
          (o, "grain_rate"), "numerator"), ==, 30000);
  components = json_object_get_array_member (o, "components");
  g_assert_cmpuint (json_array_get_length (components), ==, 4);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element
          (components, 3), "name"), ==, "A");
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element
          (components, 1), "width"), ==, 960);
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member
          (json_object_get_object_member (o, "tags"),
              "urn:x-nmos:tag:grouphint/v1.0"), 0), ==, "grp:Video");
  free (json);

  /* audio, random id, no JSON wanted: only the check and the summary */
  memset (&d, 0, sizeof d);
  d.mediaType = MXL_FLOW_EXT_MEDIA_FLOAT32;
  d.definitionRate.numerator = 48000;
  d.definitionRate.denominator = 1;
  d.channelCount = 8;
  g_assert_cmpint (mxlFlowExtBuildDefinition (&d, "a", "g:Audio", NULL, NULL),
      ==, MXL_STATUS_OK);
  g_assert_true (g_uuid_string_is_valid (d.id));
  g_assert_cmpint (d.format, ==, MXL_DATA_FORMAT_AUDIO);
  g_assert_cmpuint (d.bitDepth, ==, 32);
}

static void
build_bad (mxlFlowExtDefinition * d, const char *label, const char *hint,
    const char *needle)
{
  char *json = (char *) "unset", *reason = NULL;

  g_assert_cmpint (mxlFlowExtBuildDefinition (d, label, hint, &json, &reason),
      ==, MXL_ERR_INVALID_ARG);
  g_assert_null (json);
  g_assert_nonnull (reason);
  if (strstr (reason, needle) == NULL)
    g_error ("\"%s\" not in \"%s\"", needle, reason);
  free (reason);
}

static void
test_build_rejects (void)
{
  mxlFlowExtDefinition d;

  memset (&d, 0, sizeof d);
  build_bad (&d, "l", "g:r", "no media type");
  d.mediaType = MXL_FLOW_EXT_MEDIA_FLOAT32;
  d.definitionRate.numerator = 48000;
  d.definitionRate.denominator = 1;
  d.channelCount = 2000;
  build_bad (&d, "l", "g:r", "channel_count: 2000");
  d.channelCount = 2;
  build_bad (&d, "", "g:r", "label: must not be empty");
  build_bad (&d, "l", "a/b", "grouphint");
  g_strlcpy (d.id, "not-a-uuid", sizeof d.id);
  build_bad (&d, "l", "g:r", "id: \"not-a-uuid\" is not a UUID");
  memset (&d, 0, sizeof d);
  d.mediaType = MXL_FLOW_EXT_MEDIA_V210;
  d.definitionRate.numerator = 50;
  d.definitionRate.denominator = 1;
  d.width = 1920;
  d.height = 1081;
  d.interlace = MXL_FLOW_EXT_INTERLACED_TFF;
  build_bad (&d, "l", "g:r", "30000/1001 or 25/1");
  d.definitionRate.numerator = 25;
  build_bad (&d, "l", "g:r", "1081 must be even");
  /* the rate range is the writer's (with the history), not the parser's */
  d.height = 1080;
  d.interlace = MXL_FLOW_EXT_PROGRESSIVE;
  d.definitionRate.numerator = 2000;
  {
    char *json = NULL;
    mxlFlowExtDefinition back;

    g_assert_cmpint (mxlFlowExtBuildDefinition (&d, "l", "g:r", &json, NULL),
        ==, MXL_STATUS_OK);
    back = parse_ok (json);
    g_assert_cmpint (back.editRate.numerator, ==, 2000);
    free (json);
  }
  d.definitionRate.numerator = 0;
  build_bad (&d, "l", "g:r", "grain_rate: numerator 0 and denominator 1 must be integers > 0");
  d.definitionRate.numerator = 25;
  build_bad (NULL, "l", "g:r", "NULL");
  /* label and group hint have defaults */
  d.interlace = MXL_FLOW_EXT_INTERLACED_TFF;
  g_assert_cmpint (mxlFlowExtBuildDefinition (&d, NULL, NULL, NULL, NULL), ==,
      MXL_STATUS_OK);
  g_assert_cmpint (d.editRate.numerator, ==, 50);
}

static void
test_line_bytes (void)
{
  g_assert_cmpuint (mxlFlowExtV210LineBytes (1920), ==, 5120);
  g_assert_cmpuint (mxlFlowExtV210LineBytes (1280), ==, 3456);
  g_assert_cmpuint (mxlFlowExtV210LineBytes (48), ==, 128);
  g_assert_cmpuint (mxlFlowExtV210LineBytes (49), ==, 256);
  g_assert_cmpuint (mxlFlowExtV210aKeyLineBytes (1920), ==, 2560);
  g_assert_cmpuint (mxlFlowExtV210aKeyLineBytes (1280), ==, 1708);
  g_assert_cmpuint (mxlFlowExtV210aKeyLineBytes (3), ==, 4);
  g_assert_cmpuint (mxlFlowExtV210aKeyLineBytes (4), ==, 8);
}

static void
test_names (void)
{
  g_assert_cmpstr (mxlFlowExtMediaTypeName (MXL_FLOW_EXT_MEDIA_V210), ==, "video/v210");
  g_assert_cmpstr (mxlFlowExtMediaTypeName (MXL_FLOW_EXT_MEDIA_V210A), ==, "video/v210a");
  g_assert_cmpstr (mxlFlowExtMediaTypeName (MXL_FLOW_EXT_MEDIA_SMPTE291), ==, "video/smpte291");
  g_assert_cmpstr (mxlFlowExtMediaTypeName (MXL_FLOW_EXT_MEDIA_FLOAT32), ==, "audio/float32");
  g_assert_cmpstr (mxlFlowExtMediaTypeName (MXL_FLOW_EXT_MEDIA_NONE), ==, "none");
  g_assert_cmpstr (mxlExtStatusName (MXL_STATUS_OK), ==, "OK");
  g_assert_cmpstr (mxlExtStatusName (MXL_ERR_INVALID_ARG), ==, "INVALID_ARG");
  g_assert_cmpstr (mxlExtStatusName (MXL_ERR_FLOW_NOT_FOUND), ==, "FLOW_NOT_FOUND");
  g_assert_cmpstr (mxlExtStatusName (MXL_ERR_UNSUPPORTED_OPERATION), ==,
      "UNSUPPORTED_OPERATION");
  g_assert_cmpstr (mxlExtStatusName ((mxlStatus) 4242), ==, "UNKNOWN");
}

#define TI_FLOWDEF "{\\\"id\\\":\\\"x\\\"}"
#define TI_JSON "{\"addressFormat\":2,\"fabricAddress\":\"AgCJ0X8AAAEAAAAAAAAAAA==\"," \
  "\"id\":\"7\",\"provider\":\"tcp\",\"regions\":[{\"addr\":\"0\",\"len\":\"8192\"," \
  "\"rkey\":\"42\"}],\"ext\":{\"flowDef\":\"" TI_FLOWDEF "\"}}"

static void
assert_user_string_ok (const char *text)
{
  mxlFabricsTargetInfo info = NULL;
  char *reason = (char *) "unset";
  const char *def = NULL;
  uint64_t id = 0;

  g_assert_cmpint (mxlFabricsExtTargetInfoFromUserString (text, &info,
          &reason), ==, MXL_STATUS_OK);
  g_assert_null (reason);
  g_assert_cmpint (mxlFabricsExtTargetInfoGetId (info, &id), ==, MXL_STATUS_OK);
  g_assert_cmpuint (id, ==, 7);
  g_assert_cmpint (mxlFabricsExtTargetInfoGetFlowDef (info, &def), ==,
      MXL_STATUS_OK);
  g_assert_cmpstr (def, ==, "{\"id\":\"x\"}");
  mxlFabricsFreeTargetInfo (info);
}

static mxlStatus
user_string_fails (const char *text, const char *needle)
{
  mxlFabricsTargetInfo info = NULL;
  char *reason = NULL;
  mxlStatus st = mxlFabricsExtTargetInfoFromUserString (text, &info, &reason);

  g_assert_cmpint (st, !=, MXL_STATUS_OK);
  g_assert_null (info);
  g_assert_nonnull (reason);
  if (strstr (reason, needle) == NULL)
    g_error ("\"%s\" not in \"%s\"", needle, reason);
  free (reason);
  return st;
}

static void
test_target_info_user_string (void)
{
  g_autofree char *b64 = g_base64_encode ((const guchar *) TI_JSON, strlen (TI_JSON));
  g_autofree char *dir = g_dir_make_tmp ("test-format-api-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "target.b64", NULL);
  g_autofree char *big = g_build_filename (dir, "big", NULL);
  g_autofree char *at = g_strconcat ("@", path, NULL);
  g_autofree char *at_big = g_strconcat ("@", big, NULL);
  g_autofree char *at_missing = g_strconcat ("@", dir, "/missing", NULL);
  const gsize max = MXL_FABRICS_EXT_TARGET_INFO_MAX_FILE_BYTES;
  g_autofree char *zeros = g_malloc0 (max + 1);
  mxlFabricsTargetInfo info = NULL;
  const char *def = (const char *) "unset";
  char wrapped[512];
  gsize i, j = 0;

  assert_user_string_ok (TI_JSON);
  assert_user_string_ok ("  \n" TI_JSON);
  /* base64 wrapped every 20 characters, as a terminal copy gives it */
  for (i = 0; b64[i] != '\0' && j + 3 < sizeof wrapped; i++) {
    wrapped[j++] = b64[i];
    if (i % 20 == 19)
      wrapped[j++] = '\n';
  }
  wrapped[j] = '\0';
  assert_user_string_ok (wrapped);
  g_assert_true (g_file_set_contents (path, wrapped, -1, NULL));
  assert_user_string_ok (at);

  g_assert_cmpint (user_string_fails (at_missing, "missing"), ==,
      MXL_ERR_NOT_FOUND);
  /* the bound itself: a document padded to exactly the limit is read, one
   * byte more is refused */
  g_assert_cmpuint (max, ==, 4u << 20);
  memset (zeros, ' ', max + 1);
  memcpy (zeros, TI_JSON, strlen (TI_JSON));
  g_assert_true (g_file_set_contents (big, zeros, max, NULL));
  assert_user_string_ok (at_big);
  g_assert_true (g_file_set_contents (big, zeros, max + 1, NULL));
  g_assert_cmpint (user_string_fails (at_big, "larger than"), ==,
      MXL_ERR_INVALID_ARG);
  g_assert_cmpint (user_string_fails ("not base64!", "neither a JSON document"),
      ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (user_string_fails ("{\"addressFormat\":2}",
          "\"fabricAddress\" is missing"), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsExtTargetInfoFromUserString (NULL, &info, NULL),
      ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsExtTargetInfoFromUserString (TI_JSON, NULL, NULL),
      ==, MXL_ERR_INVALID_ARG);

  /* a TargetInfo without ext.flowDef (a reference target) */
  g_assert_cmpint (mxlFabricsExtTargetInfoParse ("{\"addressFormat\":2,"
          "\"fabricAddress\":\"AgCJ0X8AAAEAAAAAAAAAAA==\",\"id\":\"7\","
          "\"provider\":\"tcp\",\"regions\":[{\"addr\":\"0\",\"len\":\"8\","
          "\"rkey\":\"4\"}]}", &info, NULL), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtTargetInfoGetFlowDef (info, &def), ==,
      MXL_STATUS_OK);
  g_assert_null (def);
  g_assert_cmpint (mxlFabricsExtTargetInfoGetFlowDef (info, NULL), ==,
      MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsExtTargetInfoGetFlowDef (NULL, &def), ==,
      MXL_ERR_INVALID_ARG);
  mxlFabricsFreeTargetInfo (info);

  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_unlink (big), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* "@PATH" files are read bounded in size (mxlFabricsExtReadUserFile, also
 * under mxlFabricsExtTargetInfoFromUserString), and only regular files: a
 * FIFO without a writer used to block the TargetInfo's fopen() forever,
 * then one with a silent writer was waited for 1 s; a FIFO, a directory or
 * a device is refused at once now. */
static void
test_read_user_file (void)
{
  g_autofree char *dir = g_dir_make_tmp ("test-format-api-XXXXXX", NULL);
  g_autofree char *file = g_build_filename (dir, "def.json", NULL);
  g_autofree char *fifo = g_build_filename (dir, "fifo", NULL);
  g_autofree char *at_fifo = g_strconcat ("@", fifo, NULL);
  mxlFabricsTargetInfo info = NULL;
  char *data = NULL, *reason = NULL;
  g_autofree char *expect = NULL;
  size_t len = 0;
  gint64 t0;
  int wfd;

  g_assert_true (g_file_set_contents (file, "{\"a\": 1}", -1, NULL));
  g_assert_cmpint (mxlFabricsExtReadUserFile (file, &data, &len, &reason), ==,
      MXL_STATUS_OK);
  g_assert_cmpstr (data, ==, "{\"a\": 1}");
  g_assert_cmpuint (len, ==, 8);
  g_assert_null (reason);
  free (data);
  g_assert_cmpint (mxlFabricsExtReadUserFile (fifo, &data, NULL, &reason), ==,
      MXL_ERR_NOT_FOUND);
  g_assert_null (data);
  g_assert_cmpstr (reason, ==, g_strerror (ENOENT));
  free (reason);
  g_assert_cmpint (mxlFabricsExtReadUserFile (NULL, &data, NULL, NULL), ==,
      MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsExtReadUserFile (file, NULL, NULL, NULL), ==,
      MXL_ERR_INVALID_ARG);

  /* a directory: refused, named as such */
  g_assert_cmpint (mxlFabricsExtReadUserFile (dir, &data, NULL, &reason), ==,
      MXL_ERR_UNSUPPORTED_OPERATION);
  g_assert_null (data);
  g_assert_cmpstr (reason, ==, "not a regular file (a directory)");
  free (reason);
  /* a FIFO without a writer: refused at once, for a TargetInfo too */
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (mxlFabricsExtReadUserFile (fifo, &data, &len, &reason), ==,
      MXL_ERR_UNSUPPORTED_OPERATION);
  g_assert_null (data);
  g_assert_cmpstr (reason, ==, "not a regular file (a FIFO)");
  free (reason);
  g_assert_cmpint (mxlFabricsExtTargetInfoFromUserString (at_fifo, &info,
          &reason), ==, MXL_ERR_UNSUPPORTED_OPERATION);
  g_assert_null (info);
  expect = g_strdup_printf ("TargetInfo: cannot read %s: not a regular file "
      "(a FIFO)", fifo);
  g_assert_cmpstr (reason, ==, expect);
  free (reason);
  /* a writer that stays silent: refused at once as well, not waited for
   * (the bound is a failure bound, far above the time it takes) */
  wfd = open (fifo, O_RDWR | O_NONBLOCK);
  g_assert_cmpint (wfd, >=, 0);
  t0 = g_get_monotonic_time ();
  g_assert_cmpint (mxlFabricsExtTargetInfoFromUserString (at_fifo, &info,
          &reason), ==, MXL_ERR_UNSUPPORTED_OPERATION);
  g_assert_cmpstr (reason, ==, expect);
  free (reason);
  g_assert_cmpint (mxlFabricsExtReadUserFile (fifo, &data, NULL, &reason), ==,
      MXL_ERR_UNSUPPORTED_OPERATION);
  g_assert_cmpstr (reason, ==, "not a regular file (a FIFO)");
  free (reason);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 500 * 1000);
  close (wfd);
  /* a character device (/dev/zero would read forever without the bound) */
  g_assert_cmpint (mxlFabricsExtReadUserFile ("/dev/zero", &data, NULL,
          &reason), ==, MXL_ERR_UNSUPPORTED_OPERATION);
  g_assert_cmpstr (reason, ==, "not a regular file (a character device)");
  free (reason);
  g_assert_cmpint (g_unlink (fifo), ==, 0);
  g_assert_cmpint (g_unlink (file), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/format-api/parse-video", test_parse_video);
  g_test_add_func ("/format-api/parse-audio-data", test_parse_audio_data);
  g_test_add_func ("/format-api/parse-rejects", test_parse_rejects);
  g_test_add_func ("/format-api/build", test_build);
  g_test_add_func ("/format-api/build-rejects", test_build_rejects);
  g_test_add_func ("/format-api/line-bytes", test_line_bytes);
  g_test_add_func ("/format-api/names", test_names);
  g_test_add_func ("/format-api/read-user-file", test_read_user_file);
  g_test_add_func ("/format-api/target-info-user-string",
      test_target_info_user_string);
  return g_test_run ();
}
