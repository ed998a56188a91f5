/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Flow definition parsing and derived geometry: docs/flow-format.md §2, §2.6, §8.1 case 5. */
#include <mxl/flow-ext.h>

#include "flowtest.h"

#define D200 200000000u
#define D500 500000000u

static MxlFlowDef
parse_ok (const char *json)
{
  MxlFlowDef def;
  GError *error = NULL;

  g_assert_true (mxl_flow_def_parse (json, &def, &error));
  g_assert_no_error (error);
  return def;
}

typedef struct {
  const char *media_type;
  int w, h, num, den;
  const char *interlace;
  int64_t rate_num, rate_den;
  uint32_t n, s0, s1, total, grain_size;
} VideoRow;

/* Every row of the worked examples table §2.6 plus 720p v210a at 60000/1001. */
static const VideoRow video_rows[] = {
  { "video/v210", 1920, 1080, 30000, 1001, NULL, 30000, 1001, 5, 5120, 0, 1080, 5529600 },
  { "video/v210a", 1920, 1080, 30000, 1001, "progressive", 30000, 1001, 5, 5120, 2560, 1080, 8294400 },
  { "video/v210", 1920, 1080, 25, 1, "interlaced_tff", 50, 1, 10, 5120, 0, 540, 2764800 },
  { "video/v210a", 1920, 1080, 30000, 1001, "interlaced_bff", 60000, 1001, 11, 5120, 2560, 540, 4147200 },
  { "video/v210", 1280, 720, 60000, 1001, NULL, 60000, 1001, 11, 3456, 0, 720, 2488320 },
  { "video/v210a", 1280, 720, 50, 1, NULL, 50, 1, 10, 3456, 1708, 720, 3718080 },
  { "video/v210", 3840, 2160, 50, 1, NULL, 50, 1, 10, 10240, 0, 2160, 22118400 },
  { "video/v210a", 3840, 2160, 60000, 1001, NULL, 60000, 1001, 11, 10240, 5120, 2160, 33177600 },
  /* issue 19: DCI 8K, the widest (MXL_FLOW_MAX_WIDTH) at the highest: V = 171 * 128,
   * A = 2731 * 4; the v210a grain still fits the uint32 grainSize */
  { "video/v210", 8192, 4320, 25, 1, NULL, 25, 1, 5, 21888, 0, 4320, 94556160 },
  { "video/v210a", MXL_FLOW_MAX_WIDTH, MXL_FLOW_MAX_HEIGHT, 24, 1, NULL, 24, 1, 4, 21888, 10924, 4320, 141747840 },
};

static void
test_video_geometry (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (video_rows); i++) {
    const VideoRow *r = &video_rows[i];
    char *json = flowtest_video_def (FIXTURE_VIDEO_ID, r->media_type, r->w, r->h, r->num, r->den, r->interlace);
    MxlFlowDef def = parse_ok (json);

    g_test_message ("row %u: %s %dx%d %s", i, r->media_type, r->w, r->h, r->interlace ? r->interlace : "");
    g_assert_cmpint (def.format, ==, MXL_DATA_FORMAT_VIDEO);
    g_assert_cmpint (def.rate.numerator, ==, r->rate_num);
    g_assert_cmpint (def.rate.denominator, ==, r->rate_den);
    g_assert_cmpuint (mxl_flow_def_grain_count (&def, D200), ==, r->n);
    g_assert_cmpuint (def.slice_sizes[0], ==, r->s0);
    g_assert_cmpuint (def.slice_sizes[1], ==, r->s1);
    g_assert_cmpuint (def.slice_sizes[2], ==, 0);
    g_assert_cmpuint (def.slice_sizes[3], ==, 0);
    g_assert_cmpuint (def.total_slices, ==, r->total);
    g_assert_cmpuint (def.grain_size, ==, r->grain_size);
    g_assert_cmpuint (mxl_flow_def_default_batch_hint (&def), ==, r->total);
    g_assert_cmpuint (mxl_flow_def_buffer_length (&def, D200), ==, 0);
    g_free (json);
  }
}

static void
test_grain_counts (void)
{
  static const struct { int num, den; uint64_t d; uint32_t n; } rows[] = {
    { 25, 1, D200, 5 }, { 24000, 1001, D200, 4 }, { 50, 1, D200, 10 },
    { 60000, 1001, D200, 11 }, { 30000, 1001, D500, 14 }, { 50, 1, D500, 25 },
    { 4, 1, D200, 0 },   /* < 5 Hz: N = 0, must not be created */
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++) {
    char *json = flowtest_video_def (FIXTURE_VIDEO_ID, "video/v210", 1920, 1080, rows[i].num, rows[i].den, NULL);
    MxlFlowDef def = parse_ok (json);

    g_assert_cmpuint (mxl_flow_def_grain_count (&def, rows[i].d), ==, rows[i].n);
    g_free (json);
  }
}

static void
test_data_geometry (void)
{
  char *json = flowtest_data_def ();
  MxlFlowDef def = parse_ok (json);

  g_assert_cmpint (def.format, ==, MXL_DATA_FORMAT_DATA);
  g_assert_cmpint (def.media_type, ==, MXL_MEDIA_TYPE_SMPTE291);
  g_assert_cmpuint (def.slice_sizes[0], ==, 1);
  g_assert_cmpuint (def.total_slices, ==, 4096);
  g_assert_cmpuint (def.grain_size, ==, 4096);
  g_assert_cmpuint (mxl_flow_def_grain_count (&def, D200), ==, 5);
  g_assert_cmpstr (def.id_text, ==, FIXTURE_DATA_ID);
  g_assert_cmphex (def.id[0], ==, 0xdb);
  g_assert_cmphex (def.id[15], ==, 0x8b);
  g_free (json);
}

static void
test_audio_geometry (void)
{
  static const struct { int rate; uint64_t d; uint32_t l, hint; } rows[] = {
    { 48000, D200, 19456, 480 }, { 48000, D500, 48128, 480 },
    { 44100, D200, 18432, 441 }, { 96000, D200, 38912, 960 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++) {
    char *json = flowtest_audio_def_full (FIXTURE_AUDIO_ID, rows[i].rate, 2);
    MxlFlowDef def = parse_ok (json);

    g_assert_cmpint (def.format, ==, MXL_DATA_FORMAT_AUDIO);
    g_assert_cmpint (def.rate.numerator, ==, rows[i].rate);
    g_assert_cmpint (def.rate.denominator, ==, 1);
    g_assert_cmpuint (def.channel_count, ==, 2);
    g_assert_cmpuint (def.sample_word_size, ==, 4);
    g_assert_cmpuint (mxl_flow_def_buffer_length (&def, rows[i].d), ==, rows[i].l);
    g_assert_cmpuint (mxl_flow_def_default_batch_hint (&def), ==, rows[i].hint);
    g_assert_cmpuint (mxl_flow_def_grain_count (&def, rows[i].d), ==, 0);
    g_free (json);
  }
  /* MXL_FLOW_MIN_SAMPLE_RATE is the lowest rate the default history gives
   * a ring (L >= 2, flow-create.c) */
  for (int rate = MXL_FLOW_MIN_SAMPLE_RATE - 1; rate <= MXL_FLOW_MIN_SAMPLE_RATE;
      rate++) {
    char *json = flowtest_audio_def_full (FIXTURE_AUDIO_ID, rate, 2);
    MxlFlowDef def = parse_ok (json);
    uint32_t l = mxl_flow_def_buffer_length (&def, MXL_DEFAULT_HISTORY_NS);

    if (rate < MXL_FLOW_MIN_SAMPLE_RATE)
      g_assert_cmpuint (l, <, 2);
    else
      g_assert_cmpuint (l, >=, 2);
    g_free (json);
  }
}

static void
test_rate_normalised (void)
{
  char *json = flowtest_video_def (FIXTURE_VIDEO_ID, "video/v210", 1920, 1080, 100000, 2000, NULL);
  MxlFlowDef def = parse_ok (json);

  g_assert_cmpint (def.rate.numerator, ==, 50);
  g_assert_cmpint (def.rate.denominator, ==, 1);
  g_free (json);
}

/* Replaces the first occurrence of @from in @json. */
static char *
edit (const char *json, const char *from, const char *to)
{
  const char *at = strstr (json, from);
  GString *s;

  g_assert_nonnull (at);
  s = g_string_new_len (json, at - json);
  g_string_append (s, to);
  g_string_append (s, at + strlen (from));
  return g_string_free (s, FALSE);
}

static void
expect_invalid (const char *json, MxlFlowDefError code, const char *field)
{
  MxlFlowDef def;
  GError *error = NULL;

  g_assert_false (mxl_flow_def_parse (json, &def, &error));
  g_assert_error (error, MXL_FLOW_DEF_ERROR, (gint) code);
  g_test_message ("%s", error->message);
  /* the message names the field */
  g_assert_nonnull (strstr (error->message, field));
  g_error_free (error);
}

static void
test_invalid_definitions (void)
{
  char *v210 = flowtest_v210_def ();
  char *audio = flowtest_audio_def ();
  static const struct { const char *from, *to, *field; MxlFlowDefError code; } cases[] = {
    /* §8.1 case 5 */
    { "\"grain_rate\":{\"numerator\":30000,\"denominator\":1001},", "", "grain_rate", MXL_FLOW_DEF_ERROR_MISSING },
    { "\"id\":\"" FIXTURE_VIDEO_ID "\",", "", "id", MXL_FLOW_DEF_ERROR_MISSING },
    { "\"media_type\":\"video/v210\",", "", "media_type", MXL_FLOW_DEF_ERROR_MISSING },
    { "\"label\":\"Test video\",", "", "label", MXL_FLOW_DEF_ERROR_MISSING },
    { "\"label\":\"Test video\"", "\"label\":\"\"", "label", MXL_FLOW_DEF_ERROR_VALUE },
    { "\"Test:Video\"", "\"a/b/c\"", "grouphint", MXL_FLOW_DEF_ERROR_VALUE },
    { "\"tags\":{\"urn:x-nmos:tag:grouphint/v1.0\":[\"Test:Video\"]},", "", "tags", MXL_FLOW_DEF_ERROR_MISSING },
    /* ours and the remaining §2 rules */
    { "\"Test:Video\"", "\"a::b\"", "grouphint", MXL_FLOW_DEF_ERROR_VALUE },
    { "\"Test:Video\"", "\"a:b:\"", "grouphint", MXL_FLOW_DEF_ERROR_VALUE },
    { "[\"Test:Video\"]", "[]", "grouphint", MXL_FLOW_DEF_ERROR_VALUE },
    { "[\"Test:Video\"]", "[3]", "grouphint", MXL_FLOW_DEF_ERROR_TYPE },
    { "urn:x-nmos:format:video", "urn:x-nmos:format:mux", "format", MXL_FLOW_DEF_ERROR_VALUE },
    { "\"numerator\":30000", "\"numerator\":0", "grain_rate", MXL_FLOW_DEF_ERROR_VALUE },
    { "\"denominator\":1001", "\"denominator\":0", "grain_rate", MXL_FLOW_DEF_ERROR_VALUE },
    { "\"denominator\":1001", "\"denominator\":-1001", "grain_rate", MXL_FLOW_DEF_ERROR_VALUE },
    { "\"numerator\":30000", "\"numerator\":\"30000\"", "grain_rate.numerator", MXL_FLOW_DEF_ERROR_TYPE },
    { "\"frame_width\":1920", "\"frame_width\":1", "frame_width", MXL_FLOW_DEF_ERROR_VALUE },
    { "\"frame_width\":1920", "\"frame_width\":8193", "frame_width", MXL_FLOW_DEF_ERROR_VALUE },
    { "\"frame_height\":1080", "\"frame_height\":4321", "frame_height", MXL_FLOW_DEF_ERROR_VALUE },
    { "\"frame_height\":1080", "\"frame_height\":0", "frame_height", MXL_FLOW_DEF_ERROR_VALUE },
    { "video/v210", "video/raw", "media_type", MXL_FLOW_DEF_ERROR_VALUE },
    { "\"progressive\"", "\"psf\"", "interlace_mode", MXL_FLOW_DEF_ERROR_VALUE },
    { "\"id\":\"" FIXTURE_VIDEO_ID "\"", "\"id\":\"not-a-uuid\"", "id", MXL_FLOW_DEF_ERROR_VALUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    char *json = edit (v210, cases[i].from, cases[i].to);
    g_test_message ("case %u", i);
    expect_invalid (json, cases[i].code, cases[i].field);
    g_free (json);
  }

  {
    /* interlaced: 60000/1001 and an odd height are refused; so is every
     * frame rate but 30000/1001 and 25/1, as the MXL SDK's flow parser
     * refuses them (docs/flow-format.md §2.3): its readers could not open
     * such a flow */
    static const struct { int num, den; } other_rates[] = {
      { 50, 1 }, { 30, 1 }, { 24, 1 }, { 24000, 1001 }, { 60, 1 },
    };
    char *j = flowtest_video_def (FIXTURE_VIDEO_ID, "video/v210", 1920, 1080, 60000, 1001, "interlaced_tff");
    expect_invalid (j, MXL_FLOW_DEF_ERROR_VALUE, "grain_rate");
    g_free (j);
    for (guint i = 0; i < G_N_ELEMENTS (other_rates); i++) {
      j = flowtest_video_def (FIXTURE_VIDEO_ID, "video/v210", 1920, 1080,
          other_rates[i].num, other_rates[i].den, "interlaced_bff");
      expect_invalid (j, MXL_FLOW_DEF_ERROR_VALUE, "grain_rate");
      g_free (j);
    }
    j = flowtest_video_def (FIXTURE_VIDEO_ID, "video/v210", 1920, 1081, 30000, 1001, "interlaced_tff");
    expect_invalid (j, MXL_FLOW_DEF_ERROR_VALUE, "frame_height");
    g_free (j);
  }

  {
    /* issue 20: our rate limits (flow-ext.h), named with their range */
    static const struct { int num, den; } bad_rates[] = {
      { 1001, 1 }, { 2147483647, 1 }, { 1, 3601 }, { 1, 2147483647 },
    };
    char *d = flowtest_data_def ();
    MxlFlowDef def;
    GError *error = NULL;

    for (guint i = 0; i < G_N_ELEMENTS (bad_rates); i++) {
      char *j = flowtest_video_def (FIXTURE_VIDEO_ID, "video/v210", 1920, 1080,
          bad_rates[i].num, bad_rates[i].den, NULL);
      g_assert_false (mxl_flow_def_parse (j, &def, &error));
      g_assert_error (error, MXL_FLOW_DEF_ERROR, MXL_FLOW_DEF_ERROR_VALUE);
      g_assert_nonnull (strstr (error->message, "grain_rate"));
      g_assert_nonnull (strstr (error->message, "is outside 1/3600 … 1000/1 grains per second"));
      g_clear_error (&error);
      g_free (j);
    }
    {
      char *j = edit (d, "\"numerator\":30000,\"denominator\":1001", "\"numerator\":1001");
      expect_invalid (j, MXL_FLOW_DEF_ERROR_VALUE, "grain_rate: 1001/1 is outside");
      g_free (j);
      j = flowtest_audio_def_full (FIXTURE_AUDIO_ID, 768001, 2);
      expect_invalid (j, MXL_FLOW_DEF_ERROR_VALUE,
          "sample_rate: 768001/1 is above 768000 samples per second");
      g_free (j);
    }
    g_free (d);
  }

  expect_invalid ("{ this is not json", MXL_FLOW_DEF_ERROR_JSON, "document");
  expect_invalid ("[1, 2]", MXL_FLOW_DEF_ERROR_JSON, "document");

  {
    static const struct { const char *from, *to, *field; } acases[] = {
      { "\"bit_depth\":32", "\"bit_depth\":64", "bit_depth" },
      { ",\"bit_depth\":32", "", "bit_depth" },
      { "\"channel_count\":2", "\"channel_count\":2.5", "channel_count" },
      { "\"channel_count\":2", "\"channel_count\":0", "channel_count" },
      { "audio/float32", "audio/L24", "media_type" },
      { "\"sample_rate\":{\"numerator\":48000},", "", "sample_rate" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (acases); i++) {
      char *json = edit (audio, acases[i].from, acases[i].to);
      MxlFlowDef def;
      GError *error = NULL;

      g_assert_false (mxl_flow_def_parse (json, &def, &error));
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, acases[i].field));
      g_error_free (error);
      g_free (json);
    }
  }
  g_free (v210);
  g_free (audio);
}

static void
test_valid_variants (void)
{
  char *v210 = flowtest_v210_def ();
  char *audio = flowtest_audio_def ();
  char *j;
  MxlFlowDef def;

  /* grouphint with a scope, 2.0 channels, float width, no interlace_mode */
  j = edit (v210, "\"Test:Video\"", "\"Test:Video:device\",\"X:Y:node\"");
  parse_ok (j);
  g_free (j);
  j = edit (audio, "\"channel_count\":2", "\"channel_count\":2.0");
  def = parse_ok (j);
  g_assert_cmpuint (def.channel_count, ==, 2);
  g_free (j);
  j = edit (audio, ",\"channel_count\":2", "");
  def = parse_ok (j);
  g_assert_cmpuint (def.channel_count, ==, 1);
  g_free (j);
  j = edit (v210, "\"frame_width\":1920", "\"frame_width\":1920.9");
  def = parse_ok (j);
  g_assert_cmpuint (def.width, ==, 1920);
  g_free (j);
  /* the rate limits themselves are valid (flow-ext.h) */
  j = flowtest_video_def (FIXTURE_VIDEO_ID, "video/v210", 1920, 1080, 1, 3600, NULL);
  def = parse_ok (j);
  g_assert_cmpint (def.rate.denominator, ==, MXL_FLOW_MIN_GRAIN_RATE_DEN);
  g_free (j);
  j = flowtest_video_def (FIXTURE_VIDEO_ID, "video/v210", 1920, 1080, 1000, 1, NULL);
  def = parse_ok (j);
  g_assert_cmpint (def.rate.numerator, ==, MXL_FLOW_MAX_GRAIN_RATE);
  g_free (j);
  j = flowtest_audio_def_full (FIXTURE_AUDIO_ID, 768000, 2);
  def = parse_ok (j);
  g_assert_cmpint (def.rate.numerator, ==, MXL_FLOW_MAX_SAMPLE_RATE);
  g_free (j);
  /* uppercase id: stored lowercase */
  j = edit (v210, FIXTURE_VIDEO_ID, "5FBEC3B1-1B0F-417D-9059-8B94A47197ED");
  def = parse_ok (j);
  g_assert_cmpstr (def.id_text, ==, FIXTURE_VIDEO_ID);
  g_assert_cmphex (def.id[0], ==, 0x5f);
  g_assert_cmphex (def.id[1], ==, 0xbe);
  g_free (j);
  g_free (v210);
  g_free (audio);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/flowdef/video-geometry", test_video_geometry);
  g_test_add_func ("/flowdef/grain-counts", test_grain_counts);
  g_test_add_func ("/flowdef/data-geometry", test_data_geometry);
  g_test_add_func ("/flowdef/audio-geometry", test_audio_geometry);
  g_test_add_func ("/flowdef/rate-normalised", test_rate_normalised);
  g_test_add_func ("/flowdef/invalid", test_invalid_definitions);
  g_test_add_func ("/flowdef/valid-variants", test_valid_variants);
  return g_test_run ();
}
