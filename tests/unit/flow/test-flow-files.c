/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Flow files on disk and instance behaviour: docs/flow-format.md §1, §3 (bytes read
 * back from the files themselves), §8.1 cases 5-7, 13, 14, 16-18, 20, 21.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mxl/flow-ext.h>

#include "flowtest.h"

#define LIB_DOMAIN "mxlfabrics"

static void
expect_lib_warning (const char *pattern)
{
  g_test_expect_message (LIB_DOMAIN, G_LOG_LEVEL_WARNING, pattern);
}

static guint
count_dir (const char *path)
{
  GDir *d = g_dir_open (path, 0, NULL);
  guint n = 0;

  g_assert_nonnull (d);
  while (g_dir_read_name (d))
    n++;
  g_dir_close (d);
  return n;
}

static void
test_v210_files (void)
{
  char *domain = flowtest_domain_new ();
  char *def = flowtest_v210_def ();
  mxlInstance inst = mxlCreateInstance (domain, NULL);
  mxlFlowWriter w;
  mxlFlowConfigInfo cfg;
  bool created = false;
  GBytes *data, *grain, *json;
  struct stat st;
  char *p;
  uint64_t t0 = mxlGetTime ();

  g_assert_nonnull (inst);
  g_assert_cmpint (mxlCreateFlowWriter (inst, def, NULL, &w, &cfg, &created), ==, MXL_STATUS_OK);
  g_assert_true (created);
  g_assert_cmpuint (cfg.discrete.sliceSizes[0], ==, 5120);
  g_assert_cmpuint (cfg.discrete.grainCount, ==, 5);

  /* exactly the file set of §1.2 */
  p = flowtest_flow_path (domain, FIXTURE_VIDEO_ID, "");
  g_assert_cmpuint (count_dir (p), ==, 4);   /* flow_def.json, data, access, grains */
  g_assert_cmpint (stat (p, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0755);
  g_free (p);
  p = flowtest_flow_path (domain, FIXTURE_VIDEO_ID, "grains");
  g_assert_cmpuint (count_dir (p), ==, 5);
  g_free (p);
  p = flowtest_flow_path (domain, FIXTURE_VIDEO_ID, "channels");
  g_assert_false (g_file_test (p, G_FILE_TEST_EXISTS));
  g_free (p);
  p = flowtest_flow_path (domain, FIXTURE_VIDEO_ID, "access");
  g_assert_cmpint (stat (p, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, 0);
  g_free (p);
  g_assert_cmpuint (count_dir (domain), ==, 1);   /* no .mxl-tmp-* left */

  json = flowtest_read_file (domain, FIXTURE_VIDEO_ID, "flow_def.json");
  g_assert_cmpmem (g_bytes_get_data (json, NULL), g_bytes_get_size (json), def, strlen (def));

  /* data: 2064 bytes, every offset of §3.3-§3.8 */
  data = flowtest_read_file (domain, FIXTURE_VIDEO_ID, "data");
  g_assert_cmpuint (g_bytes_get_size (data), ==, 2064);
  g_assert_cmpuint (flowtest_u32 (data, 0), ==, 1);          /* version */
  g_assert_cmpuint (flowtest_u32 (data, 4), ==, 2048);       /* size */
  g_assert_cmphex (((const uint8_t *) g_bytes_get_data (data, NULL))[8], ==, 0x5f);
  g_assert_cmphex (((const uint8_t *) g_bytes_get_data (data, NULL))[23], ==, 0xed);
  g_assert_cmpuint (flowtest_u32 (data, 24), ==, MXL_DATA_FORMAT_VIDEO);
  g_assert_cmpuint (flowtest_u32 (data, 28), ==, 0);         /* flags */
  g_assert_cmpuint (flowtest_u64 (data, 32), ==, 30000);     /* grainRate */
  g_assert_cmpuint (flowtest_u64 (data, 40), ==, 1001);
  g_assert_cmpuint (flowtest_u32 (data, 48), ==, 1080);      /* commit hint */
  g_assert_cmpuint (flowtest_u32 (data, 52), ==, 1080);      /* sync hint */
  g_assert_cmpuint (flowtest_u32 (data, 56), ==, 0);         /* payloadLocation */
  g_assert_cmpuint (flowtest_u32 (data, 60), ==, 0xffffffffu); /* deviceIndex -1 */
  g_assert_true (flowtest_all_zero (data, 64, 72));
  g_assert_cmpuint (flowtest_u32 (data, 136), ==, 5120);     /* sliceSizes */
  g_assert_true (flowtest_all_zero (data, 140, 12));
  g_assert_cmpuint (flowtest_u32 (data, 152), ==, 5);        /* grainCount */
  g_assert_true (flowtest_all_zero (data, 156, 44));
  g_assert_cmpuint (flowtest_u64 (data, 200), ==, 0);        /* headIndex */
  g_assert_cmpuint (flowtest_u64 (data, 208), >=, t0);       /* lastWriteTime */
  g_assert_cmpuint (flowtest_u64 (data, 208), <=, mxlGetTime ());
  g_assert_cmpuint (flowtest_u64 (data, 216), ==, flowtest_u64 (data, 208));
  g_assert_true (flowtest_all_zero (data, 224, 40));
  g_assert_true (flowtest_all_zero (data, 264, 1784));
  p = flowtest_flow_path (domain, FIXTURE_VIDEO_ID, "data");
  g_assert_cmpint (stat (p, &st), ==, 0);
  g_free (p);
  g_assert_cmpuint (flowtest_u64 (data, 2048), ==, (uint64_t) st.st_ino);   /* inode stamp */
  g_assert_cmpuint (flowtest_u32 (data, 2056), ==, 0);       /* syncCounter */
  g_assert_cmpuint (flowtest_u32 (data, 2060), ==, 0);

  /* every grain file: 8192 + 5 529 600, header of §3.9 and zero payload */
  for (guint i = 0; i < 5; i++) {
    char *name = g_strdup_printf ("grains/data.%u", i);
    grain = flowtest_read_file (domain, FIXTURE_VIDEO_ID, name);
    g_assert_cmpuint (g_bytes_get_size (grain), ==, 8192 + 5529600);
    g_assert_cmpuint (flowtest_u32 (grain, 0), ==, 1);
    g_assert_cmpuint (flowtest_u32 (grain, 4), ==, 4096);
    g_assert_cmpuint (flowtest_u64 (grain, 8), ==, 0);
    g_assert_cmpuint (flowtest_u32 (grain, 16), ==, 0);
    g_assert_cmpuint (flowtest_u32 (grain, 20), ==, 5529600);
    g_assert_cmpuint (flowtest_u16 (grain, 24), ==, 1080);
    g_assert_cmpuint (flowtest_u16 (grain, 26), ==, 0);
    g_assert_true (flowtest_all_zero (grain, 28, 8192 - 28 + 5529600));
    g_bytes_unref (grain);
    g_free (name);
  }

  /* the writer's lock makes it active; a commit shows up in the file bytes */
  {
    bool active = false;
    mxlGrainInfo gi;
    uint8_t *payload;

    g_assert_cmpint (mxlIsFlowActive (inst, FIXTURE_VIDEO_ID, &active), ==, MXL_STATUS_OK);
    g_assert_true (active);
    g_assert_cmpint (mxlFlowWriterOpenGrain (w, 1234567, &gi, &payload), ==, MXL_STATUS_OK);
    payload[0] = 0xCA;
    gi.validSlices = 1080;
    g_assert_cmpint (mxlFlowWriterCommitGrain (w, &gi), ==, MXL_STATUS_OK);
    g_bytes_unref (data);
    data = flowtest_read_file (domain, FIXTURE_VIDEO_ID, "data");
    g_assert_cmpuint (flowtest_u64 (data, 200), ==, 1234567);
    g_assert_cmpuint (flowtest_u32 (data, 2056), ==, 1);
    grain = flowtest_read_file (domain, FIXTURE_VIDEO_ID, "grains/data.2");  /* 1234567 mod 5 */
    g_assert_cmpuint (flowtest_u64 (grain, 8), ==, 1234567);
    g_assert_cmpuint (flowtest_u16 (grain, 26), ==, 1080);
    g_assert_cmphex (((const uint8_t *) g_bytes_get_data (grain, NULL))[8192], ==, 0xCA);
    g_bytes_unref (grain);
  }

  g_assert_cmpint (mxlReleaseFlowWriter (inst, w), ==, MXL_STATUS_OK);
  /* the only writer: the flow is deleted */
  p = flowtest_flow_path (domain, FIXTURE_VIDEO_ID, "");
  g_assert_false (g_file_test (p, G_FILE_TEST_EXISTS));
  g_free (p);
  g_bytes_unref (data);
  g_bytes_unref (json);
  g_assert_cmpint (mxlDestroyInstance (inst), ==, MXL_STATUS_OK);
  g_free (def);
  flowtest_domain_free (domain);
}

static void
test_audio_files (void)
{
  char *domain = flowtest_domain_new ();
  char *def = flowtest_audio_def ();
  mxlInstance inst = mxlCreateInstance (domain, NULL);
  mxlFlowWriter w;
  mxlFlowConfigInfo cfg;
  bool created = false;
  GBytes *data, *ch;
  char *p;
  struct stat st;

  g_assert_cmpint (mxlCreateFlowWriter (inst, def, NULL, &w, &cfg, &created), ==, MXL_STATUS_OK);
  g_assert_true (created);
  g_assert_cmpint (cfg.common.grainRate.numerator, ==, 48000);
  g_assert_cmpint (cfg.common.grainRate.denominator, ==, 1);
  g_assert_cmpuint (cfg.continuous.channelCount, ==, 2);
  g_assert_cmpuint (cfg.continuous.bufferLength, ==, 19456);

  p = flowtest_flow_path (domain, FIXTURE_AUDIO_ID, "");
  g_assert_cmpuint (count_dir (p), ==, 3);   /* flow_def.json, data, channels */
  g_free (p);
  p = flowtest_flow_path (domain, FIXTURE_AUDIO_ID, "grains");
  g_assert_false (g_file_test (p, G_FILE_TEST_EXISTS));
  g_free (p);
  p = flowtest_flow_path (domain, FIXTURE_AUDIO_ID, "access");
  g_assert_false (g_file_test (p, G_FILE_TEST_EXISTS));
  g_free (p);

  data = flowtest_read_file (domain, FIXTURE_AUDIO_ID, "data");
  g_assert_cmpuint (g_bytes_get_size (data), ==, 2064);
  g_assert_cmpuint (flowtest_u32 (data, 0), ==, 1);
  g_assert_cmpuint (flowtest_u32 (data, 4), ==, 2048);
  g_assert_cmphex (((const uint8_t *) g_bytes_get_data (data, NULL))[8], ==, 0xb3);
  g_assert_cmpuint (flowtest_u32 (data, 24), ==, MXL_DATA_FORMAT_AUDIO);
  g_assert_cmpuint (flowtest_u64 (data, 32), ==, 48000);
  g_assert_cmpuint (flowtest_u64 (data, 40), ==, 1);
  g_assert_cmpuint (flowtest_u32 (data, 48), ==, 480);
  g_assert_cmpuint (flowtest_u32 (data, 52), ==, 480);
  g_assert_cmpuint (flowtest_u32 (data, 60), ==, 0xffffffffu);
  g_assert_cmpuint (flowtest_u32 (data, 136), ==, 2);        /* channelCount */
  g_assert_cmpuint (flowtest_u32 (data, 140), ==, 19456);    /* bufferLength */
  g_assert_true (flowtest_all_zero (data, 144, 56));
  g_assert_cmpuint (flowtest_u64 (data, 200), ==, 0);
  g_assert_true (flowtest_all_zero (data, 264, 1784));
  p = flowtest_flow_path (domain, FIXTURE_AUDIO_ID, "data");
  g_assert_cmpint (stat (p, &st), ==, 0);
  g_free (p);
  g_assert_cmpuint (flowtest_u64 (data, 2048), ==, (uint64_t) st.st_ino);
  g_assert_cmpuint (flowtest_u32 (data, 2056), ==, 0);

  ch = flowtest_read_file (domain, FIXTURE_AUDIO_ID, "channels");
  g_assert_cmpuint (g_bytes_get_size (ch), ==, 155648);      /* C * L * 4 */
  g_assert_true (flowtest_all_zero (ch, 0, 155648));

  g_bytes_unref (data);
  g_bytes_unref (ch);
  g_assert_cmpint (mxlReleaseFlowWriter (inst, w), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlDestroyInstance (inst), ==, MXL_STATUS_OK);
  g_free (def);
  flowtest_domain_free (domain);
}

static void
test_data_flow_files (void)
{
  char *domain = flowtest_domain_new ();
  char *def = flowtest_data_def ();
  mxlInstance inst = mxlCreateInstance (domain, NULL);
  mxlFlowWriter w;
  GBytes *g;

  g_assert_cmpint (mxlCreateFlowWriter (inst, def, NULL, &w, NULL, NULL), ==, MXL_STATUS_OK);
  g = flowtest_read_file (domain, FIXTURE_DATA_ID, "grains/data.4");
  g_assert_cmpuint (g_bytes_get_size (g), ==, 12288);
  g_assert_cmpuint (flowtest_u32 (g, 20), ==, 4096);
  g_assert_cmpuint (flowtest_u16 (g, 24), ==, 4096);
  g_bytes_unref (g);
  mxlDestroyInstance (inst);
  g_free (def);
  flowtest_domain_free (domain);
}

static void
test_invalid_writer_args (void)
{
  char *domain = flowtest_domain_new ();
  mxlInstance inst = mxlCreateInstance (domain, NULL);
  char *def = flowtest_v210_def ();
  mxlFlowWriter w;
  char *bad;

  g_assert_null (mxlCreateInstance ("/nonexistent/domain", NULL));
  g_assert_null (mxlCreateInstance ("/dev/null", NULL));
  g_assert_cmpint (mxlCreateFlowWriter (NULL, def, NULL, &w, NULL, NULL), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlCreateFlowWriter (inst, NULL, NULL, &w, NULL, NULL), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlCreateFlowWriter (inst, def, NULL, NULL, NULL, NULL), ==, MXL_ERR_INVALID_ARG);

  /* invalid definitions: INVALID_ARG (issue 3), warning naming the field, no files */
  expect_lib_warning ("*frame_height*");
  bad = flowtest_video_def (FIXTURE_VIDEO_ID, "video/v210", 1920, 1081, 30000, 1001, "interlaced_tff");
  g_assert_cmpint (mxlCreateFlowWriter (inst, bad, NULL, &w, NULL, NULL), ==, MXL_ERR_INVALID_ARG);
  g_test_assert_expected_messages ();
  g_free (bad);
  expect_lib_warning ("*document*");
  g_assert_cmpint (mxlCreateFlowWriter (inst, "{ this is not json", NULL, &w, NULL, NULL), ==, MXL_ERR_INVALID_ARG);
  g_test_assert_expected_messages ();
  /* N = 0 at 4 Hz with a 200 ms history */
  expect_lib_warning ("*grain_rate*too low*");
  bad = flowtest_video_def (FIXTURE_VIDEO_ID, "video/v210", 1920, 1080, 4, 1, NULL);
  g_assert_cmpint (mxlCreateFlowWriter (inst, bad, NULL, &w, NULL, NULL), ==, MXL_ERR_INVALID_ARG);
  g_test_assert_expected_messages ();
  g_free (bad);
  /* issue 20: the refused quantity and its range are in the last error
   * message too (the status alone was all an element could show) */
  expect_lib_warning ("*channel_count*");
  bad = flowtest_audio_def_full (FIXTURE_AUDIO_ID, 48000, 100000);
  g_assert_cmpint (mxlCreateFlowWriter (inst, bad, NULL, &w, NULL, NULL), ==, MXL_ERR_INVALID_ARG);
  g_test_assert_expected_messages ();
  g_assert_cmpstr (mxlGetLastErrorMessage (), ==,
      "flow definition: channel_count: 100000 is not an integer in 1 … 1024");
  g_free (bad);
  expect_lib_warning ("*sample_rate*too low*");
  bad = flowtest_audio_def_full (FIXTURE_AUDIO_ID, 2, 2);
  g_assert_cmpint (mxlCreateFlowWriter (inst, bad, NULL, &w, NULL, NULL), ==, MXL_ERR_INVALID_ARG);
  g_test_assert_expected_messages ();
  g_assert_cmpstr (mxlGetLastErrorMessage (), ==, "flow definition: sample_rate: rate 2/1 "
      "is too low for a 200000000 ns history (at least 2.5 per second)");
  g_free (bad);
  /* issue 20: 2^31 - 1 fps made a 22 GB ring; rates and rings are bounded
   * (flow-ext.h) and refused before anything is allocated */
  expect_lib_warning ("*grain_rate*outside*");
  bad = flowtest_video_def (FIXTURE_VIDEO_ID, "video/v210", 1280, 720, 2147483647, 1, NULL);
  g_assert_cmpint (mxlCreateFlowWriterWithGrainCount (inst, bad, NULL, 0, &w, NULL, NULL), ==,
      MXL_ERR_INVALID_ARG);
  g_test_assert_expected_messages ();
  g_assert_cmpstr (mxlGetLastErrorMessage (), ==, "flow definition: grain_rate: "
      "2147483647/1 is outside 1/3600 … 1000/1 grains per second");
  g_free (bad);
  expect_lib_warning ("*limit of 4096 grains*");
  bad = flowtest_video_def (FIXTURE_VIDEO_ID, "video/v210", 96, 54, 50, 1, NULL);
  g_assert_cmpint (mxlCreateFlowWriterWithGrainCount (inst, bad, NULL,
          MXL_FLOW_MAX_GRAIN_COUNT + 1, &w, NULL, NULL), ==, MXL_ERR_INVALID_ARG);
  g_test_assert_expected_messages ();
  g_assert_cmpstr (mxlGetLastErrorMessage (), ==, "flow definition: grain_rate: a ring "
      "of 4097 grains (81940000000 ns at 50/1 per second) is more than the limit of "
      "4096 grains");
  g_free (bad);
  /* 100 slots of 8K v210 (88.5 MB each): above the 4 GiB bound */
  expect_lib_warning ("*more than the limit of 4294967296*");
  bad = flowtest_video_def (FIXTURE_VIDEO_ID, "video/v210", 7680, 4320, 50, 1, NULL);
  g_assert_cmpint (mxlCreateFlowWriterWithGrainCount (inst, bad, NULL, 100, &w, NULL, NULL),
      ==, MXL_ERR_INVALID_ARG);
  g_test_assert_expected_messages ();
  g_assert_cmpstr (mxlGetLastErrorMessage (), ==, "flow definition: grain_rate: a ring "
      "of 100 grains at 50/1 per second needs 8848179200 bytes, more than the limit of "
      "4294967296");
  g_free (bad);
  g_assert_cmpuint (count_dir (domain), ==, 0);

  mxlDestroyInstance (inst);
  g_free (def);
  flowtest_domain_free (domain);
}

static void
check_options (const char *def, const char *options, mxlStatus expected,
    uint32_t commit, uint32_t sync)
{
  char *domain = flowtest_domain_new ();
  mxlInstance inst = mxlCreateInstance (domain, NULL);
  mxlFlowWriter w;
  mxlFlowConfigInfo cfg;

  if (expected != MXL_STATUS_OK)
    expect_lib_warning ("*options*");
  g_assert_cmpint (mxlCreateFlowWriter (inst, def, options, &w, &cfg, NULL), ==, expected);
  g_test_assert_expected_messages ();
  if (expected == MXL_STATUS_OK) {
    g_assert_cmpuint (cfg.common.maxCommitBatchSizeHint, ==, commit);
    g_assert_cmpuint (cfg.common.maxSyncBatchSizeHint, ==, sync);
  } else {
    g_assert_cmpuint (count_dir (domain), ==, 0);
  }
  mxlDestroyInstance (inst);
  flowtest_domain_free (domain);
}

static void
test_writer_options (void)
{
  char *v = flowtest_v210_def ();
  char *a = flowtest_audio_def ();

  /* §8.1 case 6 */
  check_options (v, "{\"maxCommitBatchSizeHint\":0}", MXL_ERR_UNKNOWN, 0, 0);
  check_options (v, "{\"maxSyncBatchSizeHint\":-1}", MXL_ERR_UNKNOWN, 0, 0);
  check_options (v, "{\"maxCommitBatchSizeHint\":5,\"maxSyncBatchSizeHint\":6}", MXL_ERR_UNKNOWN, 0, 0);
  check_options (v, "{\"maxCommitBatchSizeHint\":\"5\"}", MXL_ERR_UNKNOWN, 0, 0);
  check_options (v, "not json", MXL_ERR_UNKNOWN, 0, 0);
  check_options (v, "{\"maxCommitBatchSizeHint\":5,\"maxSyncBatchSizeHint\":10}", MXL_STATUS_OK, 5, 10);
  check_options (v, NULL, MXL_STATUS_OK, 1080, 1080);
  check_options (v, "", MXL_STATUS_OK, 1080, 1080);
  /* §1.9 [Q]: sync alone is checked against 1 */
  check_options (v, "{\"maxSyncBatchSizeHint\":7}", MXL_STATUS_OK, 1080, 7);
  /* §8.1 case 7 */
  check_options (a, "{\"maxCommitBatchSizeHint\":-1}", MXL_ERR_UNKNOWN, 0, 0);
  check_options (a, "{\"maxSyncBatchSizeHint\":0}", MXL_ERR_UNKNOWN, 0, 0);
  check_options (a, "{\"maxCommitBatchSizeHint\":10,\"maxSyncBatchSizeHint\":2}", MXL_ERR_UNKNOWN, 0, 0);
  check_options (a, "{\"maxCommitBatchSizeHint\":5,\"maxSyncBatchSizeHint\":10}", MXL_STATUS_OK, 5, 10);
  check_options (a, NULL, MXL_STATUS_OK, 480, 480);
  g_free (v);
  g_free (a);
}

static void
test_domain_options (void)
{
  char *domain = flowtest_domain_new ();
  char *path = g_build_filename (domain, "options.json", NULL);
  char *def = flowtest_v210_def ();
  mxlInstance inst;

  /* §8.1 case 20 */
  inst = mxlCreateInstance (domain, NULL);
  g_assert_cmpuint (inst->history_ns, ==, 200000000);
  mxlDestroyInstance (inst);
  inst = mxlCreateInstance (domain, "{\"urn:x-mxl:option:history_duration/v1.0\": 500000000}");
  g_assert_cmpuint (inst->history_ns, ==, 200000000);
  mxlDestroyInstance (inst);
  g_assert_true (g_file_set_contents (path, "{\"urn:x-mxl:option:history_duration/v1.0\": 500000000}", -1, NULL));
  inst = mxlCreateInstance (domain, NULL);
  g_assert_cmpuint (inst->history_ns, ==, 500000000);
  {
    mxlFlowWriter w;
    mxlFlowConfigInfo cfg;
    g_assert_cmpint (mxlCreateFlowWriter (inst, def, NULL, &w, &cfg, NULL), ==, MXL_STATUS_OK);
    g_assert_cmpuint (cfg.discrete.grainCount, ==, 14);
  }
  mxlDestroyInstance (inst);
  g_assert_true (g_file_set_contents (path, "abc", -1, NULL));
  expect_lib_warning ("*options.json*");
  inst = mxlCreateInstance (domain, NULL);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (inst->history_ns, ==, 200000000);
  mxlDestroyInstance (inst);
  g_free (def);
  g_free (path);
  flowtest_domain_free (domain);
}

static void
test_get_flow_def (void)
{
  char *domain = flowtest_domain_new ();
  mxlInstance inst = mxlCreateInstance (domain, NULL);
  char *def = flowtest_v210_def ();
  size_t len = strlen (def);
  mxlFlowWriter w;
  char buf[4096];
  size_t size = sizeof buf;

  g_assert_cmpint (mxlCreateFlowWriter (inst, def, NULL, &w, NULL, NULL), ==, MXL_STATUS_OK);
  /* §8.1 case 13 */
  g_assert_cmpint (mxlGetFlowDef (NULL, FIXTURE_VIDEO_ID, buf, &size), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpuint (size, ==, sizeof buf);
  g_assert_cmpint (mxlGetFlowDef (inst, NULL, buf, &size), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlGetFlowDef (inst, "this is not UUID", buf, &size), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpuint (size, ==, sizeof buf);
  g_assert_cmpint (mxlGetFlowDef (inst, FIXTURE_AUDIO_ID, buf, &size), ==, MXL_ERR_FLOW_NOT_FOUND);
  g_assert_cmpuint (size, ==, sizeof buf);
  g_assert_cmpint (mxlGetFlowDef (inst, FIXTURE_VIDEO_ID, buf, NULL), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlGetFlowDef (inst, FIXTURE_VIDEO_ID, NULL, &size), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpuint (size, ==, len + 1);
  size = 10;
  g_assert_cmpint (mxlGetFlowDef (inst, FIXTURE_VIDEO_ID, buf, &size), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpuint (size, ==, len + 1);
  size = sizeof buf;
  g_assert_cmpint (mxlGetFlowDef (inst, FIXTURE_VIDEO_ID, buf, &size), ==, MXL_STATUS_OK);
  g_assert_cmpuint (size, ==, len + 1);
  g_assert_cmpstr (buf, ==, def);
  /* uppercase id finds the lowercase directory */
  size = sizeof buf;
  g_assert_cmpint (mxlGetFlowDef (inst, "5FBEC3B1-1B0F-417D-9059-8B94A47197ED", buf, &size), ==, MXL_STATUS_OK);
  /* the internal accessor returns the same text */
  g_assert_cmpstr (mxl_flow_writer_get_def (w), ==, def);

  mxlDestroyInstance (inst);
  g_free (def);
  flowtest_domain_free (domain);
}

static void
test_handle_caching (void)
{
  char *domain = flowtest_domain_new ();
  mxlInstance inst = mxlCreateInstance (domain, NULL);
  char *vdef = flowtest_v210_def (), *adef = flowtest_audio_def ();
  mxlFlowWriter wv, wv2, wa;
  mxlFlowReader r1, r2, ra;
  bool created = true;

  g_assert_cmpint (mxlCreateFlowWriter (inst, vdef, NULL, &wv, NULL, NULL), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlCreateFlowWriter (inst, vdef, NULL, &wv2, NULL, &created), ==, MXL_STATUS_OK);
  g_assert_true (wv == wv2);
  g_assert_false (created);
  g_assert_cmpint (mxlCreateFlowWriter (inst, adef, NULL, &wa, NULL, NULL), ==, MXL_STATUS_OK);
  /* §8.1 case 16 */
  g_assert_cmpint (mxlCreateFlowReader (inst, FIXTURE_VIDEO_ID, NULL, &r1), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlCreateFlowReader (inst, FIXTURE_VIDEO_ID, NULL, &r2), ==, MXL_STATUS_OK);
  g_assert_true (r1 == r2);
  g_assert_cmpint (mxlCreateFlowReader (inst, FIXTURE_AUDIO_ID, NULL, &ra), ==, MXL_STATUS_OK);
  g_assert_true (ra != r1);
  g_assert_true ((void *) r1 != (void *) wv);
  /* bad ids and missing flows */
  g_assert_cmpint (mxlCreateFlowReader (inst, "nope", NULL, &r2), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlCreateFlowReader (inst, FIXTURE_DATA_ID, NULL, &r2), ==, MXL_ERR_FLOW_NOT_FOUND);
  /* two releases for two creations; the flow stays after the first */
  g_assert_cmpint (mxlReleaseFlowReader (inst, r1), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlReleaseFlowReader (inst, r1), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlReleaseFlowWriter (inst, wv), ==, MXL_STATUS_OK);
  {
    char *p = flowtest_flow_path (domain, FIXTURE_VIDEO_ID, "data");
    g_assert_true (g_file_test (p, G_FILE_TEST_EXISTS));
    g_assert_cmpint (mxlReleaseFlowWriter (inst, wv), ==, MXL_STATUS_OK);
    g_assert_false (g_file_test (p, G_FILE_TEST_EXISTS));
    g_free (p);
  }
  /* readers and writers of another instance are refused */
  {
    mxlInstance other = mxlCreateInstance (domain, NULL);
    g_assert_cmpint (mxlReleaseFlowReader (other, ra), ==, MXL_ERR_INVALID_FLOW_READER);
    g_assert_cmpint (mxlReleaseFlowWriter (other, wa), ==, MXL_ERR_INVALID_FLOW_WRITER);
    mxlDestroyInstance (other);
  }
  mxlDestroyInstance (inst);
  g_free (vdef);
  g_free (adef);
  flowtest_domain_free (domain);
}

static void
deletion_case (gboolean by_destroy)
{
  char *domain = flowtest_domain_new ();
  mxlInstance a = mxlCreateInstance (domain, NULL), b = mxlCreateInstance (domain, NULL);
  char *def = flowtest_v210_def ();
  char *dir = flowtest_flow_path (domain, FIXTURE_VIDEO_ID, "");
  mxlFlowWriter wa, wb;
  bool ca = false, cb = true;

  g_assert_cmpint (mxlCreateFlowWriter (a, def, NULL, &wa, NULL, &ca), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlCreateFlowWriter (b, def, NULL, &wb, NULL, &cb), ==, MXL_STATUS_OK);
  g_assert_true (ca);
  g_assert_false (cb);
  /* both write the same shared memory */
  g_assert_true (mxl_flow_writer_grain_slot (wa, 3, NULL) != mxl_flow_writer_grain_slot (wb, 3, NULL));
  mxl_flow_writer_grain_slot (wa, 3, NULL)[8192 + 17] = 0x5A;
  g_assert_cmphex (mxl_flow_writer_grain_slot (wb, 3, NULL)[8192 + 17], ==, 0x5A);
  if (by_destroy)
    mxlDestroyInstance (a);
  else
    g_assert_cmpint (mxlReleaseFlowWriter (a, wa), ==, MXL_STATUS_OK);
  g_assert_true (g_file_test (dir, G_FILE_TEST_IS_DIR));
  if (by_destroy)
    mxlDestroyInstance (b);
  else
    g_assert_cmpint (mxlReleaseFlowWriter (b, wb), ==, MXL_STATUS_OK);
  g_assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));
  if (!by_destroy) {
    mxlDestroyInstance (a);
    mxlDestroyInstance (b);
  }
  g_free (dir);
  g_free (def);
  flowtest_domain_free (domain);
}

static void
test_deletion_on_release (void)
{
  deletion_case (FALSE);   /* §8.1 case 17 */
}

static void
test_deletion_on_destroy (void)
{
  deletion_case (TRUE);    /* §8.1 case 18 */
}

static void
test_reopen_and_kinds (void)
{
  char *domain = flowtest_domain_new ();
  mxlInstance a = mxlCreateInstance (domain, NULL), b = mxlCreateInstance (domain, NULL);
  char *def = flowtest_v210_def ();
  char *other_kind = flowtest_audio_def_full (FIXTURE_VIDEO_ID, 48000, 2);
  char *other_geom = flowtest_video_def (FIXTURE_VIDEO_ID, "video/v210", 1280, 720, 30000, 1001, NULL);
  mxlFlowWriter w, w2;

  g_assert_cmpint (mxlCreateFlowWriter (a, def, NULL, &w, NULL, NULL), ==, MXL_STATUS_OK);
  /* §8.1 case 21: the other kind fails; so does other geometry (§7.3) */
  expect_lib_warning ("*another format or geometry*");
  g_assert_cmpint (mxlCreateFlowWriter (b, other_kind, NULL, &w2, NULL, NULL), ==, MXL_ERR_CONFLICT);
  g_test_assert_expected_messages ();
  expect_lib_warning ("*another format or geometry*");
  g_assert_cmpint (mxlCreateFlowWriter (b, other_geom, NULL, &w2, NULL, NULL), ==, MXL_ERR_CONFLICT);
  g_test_assert_expected_messages ();
  /* the refused opener left the flow intact and did not delete it */
  {
    bool active = false;
    g_assert_cmpint (mxlIsFlowActive (b, FIXTURE_VIDEO_ID, &active), ==, MXL_STATUS_OK);
    g_assert_true (active);
    /* uppercase ids are lowercased (§1.8 [Q] not kept) */
    g_assert_cmpint (mxlIsFlowActive (b, "5FBEC3B1-1B0F-417D-9059-8B94A47197ED", &active), ==, MXL_STATUS_OK);
    g_assert_cmpint (mxlIsFlowActive (b, FIXTURE_AUDIO_ID, &active), ==, MXL_ERR_FLOW_NOT_FOUND);
    g_assert_cmpint (mxlIsFlowActive (b, "xyz", &active), ==, MXL_ERR_INVALID_ARG);
  }
  mxlDestroyInstance (a);
  mxlDestroyInstance (b);
  g_free (def);
  g_free (other_kind);
  g_free (other_geom);
  flowtest_domain_free (domain);
}

typedef struct {
  const char *domain;
  const char *def;
  GMutex *start_lock;
  gboolean created;
  mxlStatus st;
  mxlInstance inst;
  mxlFlowWriter w;
} RaceArg;

static gpointer
race_thread (gpointer data)
{
  RaceArg *r = data;
  bool created = false;

  g_mutex_lock (r->start_lock);
  g_mutex_unlock (r->start_lock);
  r->st = mxlCreateFlowWriter (r->inst, r->def, NULL, &r->w, NULL, &created);
  r->created = created;
  return NULL;
}

static void
test_concurrent_create (void)
{
  for (int round = 0; round < 20; round++) {
    char *domain = flowtest_domain_new ();
    char *def = flowtest_v210_def ();
    GMutex start;
    RaceArg args[2];
    GThread *t[2];

    g_mutex_init (&start);
    g_mutex_lock (&start);
    for (int i = 0; i < 2; i++) {
      args[i] = (RaceArg) { domain, def, &start, FALSE, MXL_ERR_UNKNOWN, mxlCreateInstance (domain, NULL), NULL };
      t[i] = g_thread_new ("race", race_thread, &args[i]);
    }
    g_mutex_unlock (&start);
    for (int i = 0; i < 2; i++)
      g_thread_join (t[i]);
    g_assert_cmpint (args[0].st, ==, MXL_STATUS_OK);
    g_assert_cmpint (args[1].st, ==, MXL_STATUS_OK);
    /* exactly one created it, both see the same memory */
    g_assert_cmpint (args[0].created + args[1].created, ==, 1);
    mxl_flow_writer_grain_slot (args[0].w, 0, NULL)[8192] = (uint8_t) (round + 1);
    g_assert_cmpuint (mxl_flow_writer_grain_slot (args[1].w, 0, NULL)[8192], ==, round + 1);
    g_assert_cmpuint (count_dir (domain), ==, 1);
    mxlDestroyInstance (args[0].inst);
    mxlDestroyInstance (args[1].inst);
    g_assert_cmpuint (count_dir (domain), ==, 0);
    g_mutex_clear (&start);
    g_free (def);
    flowtest_domain_free (domain);
  }
}

static void
test_garbage_collection (void)
{
  char *domain = flowtest_domain_new ();
  mxlInstance inst = mxlCreateInstance (domain, NULL);
  char *def = flowtest_v210_def ();
  char *bogus = g_build_filename (domain, "not-a-valid-uuid.mxl-flow", NULL);
  char *fresh_tmp = g_build_filename (domain, ".mxl-tmp-fresh", NULL);
  char *old_tmp = g_build_filename (domain, ".mxl-tmp-old", NULL);
  char *adef = flowtest_audio_def ();
  mxlFlowWriter w, wa;
  struct timespec old[2] = { { time (NULL) - 60, 0 }, { time (NULL) - 60, 0 } };
  char *data;
  int fd;

  g_assert_cmpint (mxlCreateFlowWriter (inst, def, NULL, &w, NULL, NULL), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlCreateFlowWriter (inst, adef, NULL, &wa, NULL, NULL), ==, MXL_STATUS_OK);
  g_assert_cmpint (g_mkdir (bogus, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (fresh_tmp, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (old_tmp, 0755), ==, 0);
  g_assert_cmpint (utimensat (AT_FDCWD, old_tmp, old, 0), ==, 0);

  /* make the audio flow stale: drop the writer's lock as a crash would */
  g_assert_cmpint (flock (wa->map.data_fd, LOCK_UN), ==, 0);
  {
    bool active = true;
    g_assert_cmpint (mxlIsFlowActive (inst, FIXTURE_AUDIO_ID, &active), ==, MXL_STATUS_OK);
    g_assert_false (active);
  }
  g_assert_cmpint (mxlGarbageCollectFlows (inst), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlGarbageCollectFlows (NULL), ==, MXL_ERR_INVALID_ARG);
  data = flowtest_flow_path (domain, FIXTURE_VIDEO_ID, "data");
  g_assert_true (g_file_test (data, G_FILE_TEST_EXISTS));        /* active: kept */
  g_free (data);
  data = flowtest_flow_path (domain, FIXTURE_AUDIO_ID, "");
  g_assert_false (g_file_test (data, G_FILE_TEST_EXISTS));       /* inactive: removed */
  g_free (data);
  g_assert_true (g_file_test (bogus, G_FILE_TEST_IS_DIR));       /* not a flow: ignored */
  g_assert_true (g_file_test (fresh_tmp, G_FILE_TEST_IS_DIR));   /* maybe being built */
  g_assert_false (g_file_test (old_tmp, G_FILE_TEST_EXISTS));    /* stale temp: removed */

  /* a temp dir whose creator still holds its data lock is kept even when old */
  {
    char *p = g_build_filename (old_tmp, "data", NULL);
    g_assert_cmpint (g_mkdir (old_tmp, 0755), ==, 0);
    fd = open (p, O_CREAT | O_RDWR, 0644);
    g_assert_cmpint (fd, >=, 0);
    g_assert_cmpint (flock (fd, LOCK_SH), ==, 0);
    g_assert_cmpint (utimensat (AT_FDCWD, old_tmp, old, 0), ==, 0);
    mxlGarbageCollectFlows (inst);
    g_assert_true (g_file_test (old_tmp, G_FILE_TEST_IS_DIR));
    close (fd);
    g_free (p);
  }
  mxlDestroyInstance (inst);
  g_free (bogus);
  g_free (fresh_tmp);
  g_free (old_tmp);
  g_free (def);
  g_free (adef);
  flowtest_domain_free (domain);
}

static void
test_unwritable_domain (void)
{
  char *domain = flowtest_domain_new ();
  char *def = flowtest_v210_def ();
  pid_t pid;
  int status;

  /* §8.1 case 14. Root ignores permission bits, so the check runs in a
   * child that drops to an unprivileged uid. */
  g_assert_cmpint (chmod (domain, 0555), ==, 0);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0) {
    mxlInstance inst;
    mxlFlowWriter w;
    mxlStatus st;

    if (geteuid () == 0 && setuid (65534) != 0)
      _exit (3);
    g_log_set_always_fatal (G_LOG_FATAL_MASK);
    g_log_set_handler (LIB_DOMAIN, G_LOG_LEVEL_WARNING, (GLogFunc) g_log_default_handler, NULL);
    inst = mxlCreateInstance (domain, NULL);
    if (inst == NULL)
      _exit (4);
    st = mxlCreateFlowWriter (inst, def, NULL, &w, NULL, NULL);
    mxlDestroyInstance (inst);
    _exit (st == MXL_ERR_PERMISSION_DENIED ? 0 : 10 + (int) st);
  }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  g_assert_cmpuint (count_dir (domain), ==, 0);
  g_assert_cmpint (chmod (domain, 0700), ==, 0);
  g_free (def);
  flowtest_domain_free (domain);
}

/* A system error while building the flow's files: the status is UNKNOWN,
 * mxlGetLastErrorMessage() names the domain, the flow and the errno text;
 * a later successful create clears it. RLIMIT_FSIZE (with SIGXFSZ ignored)
 * makes posix_fallocate fail with EFBIG; set in a child only. */
static void
test_last_error_message (void)
{
  char *domain = flowtest_domain_new ();
  char *def = flowtest_v210_def ();
  pid_t pid;
  int status;

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0) {
    struct rlimit lim, small;
    mxlInstance inst;
    mxlFlowWriter w;
    const char *msg;
    char *want;

    g_log_set_always_fatal (G_LOG_FATAL_MASK);
    g_log_set_handler (LIB_DOMAIN, G_LOG_LEVEL_WARNING, (GLogFunc) g_log_default_handler, NULL);
    signal (SIGXFSZ, SIG_IGN);
    if (getrlimit (RLIMIT_FSIZE, &lim) != 0)
      _exit (3);
    small = lim;
    small.rlim_cur = 64 * 1024;
    inst = mxlCreateInstance (domain, NULL);
    if (inst == NULL || mxlGetLastErrorMessage () != NULL)
      _exit (4);
    if (setrlimit (RLIMIT_FSIZE, &small) != 0)
      _exit (5);
    if (mxlCreateFlowWriter (inst, def, NULL, &w, NULL, NULL) != MXL_ERR_UNKNOWN)
      _exit (6);
    msg = mxlGetLastErrorMessage ();
    want = g_strdup_printf ("%s: cannot build flow " FIXTURE_VIDEO_ID ": %s", domain,
        g_strerror (EFBIG));
    if (msg == NULL || strcmp (msg, want) != 0) {
      g_printerr ("# got \"%s\", want \"%s\"\n", msg ? msg : "(null)", want);
      _exit (7);
    }
    g_free (want);
    if (setrlimit (RLIMIT_FSIZE, &lim) != 0)
      _exit (8);
    if (mxlCreateFlowWriter (inst, def, NULL, &w, NULL, NULL) != MXL_STATUS_OK
        || mxlGetLastErrorMessage () != NULL)
      _exit (9);
    mxlReleaseFlowWriter (inst, w);
    mxlDestroyInstance (inst);
    _exit (0);
  }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  g_free (def);
  flowtest_domain_free (domain);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/flow-files/v210", test_v210_files);
  g_test_add_func ("/flow-files/audio", test_audio_files);
  g_test_add_func ("/flow-files/data", test_data_flow_files);
  g_test_add_func ("/flow-files/invalid-writer-args", test_invalid_writer_args);
  g_test_add_func ("/flow-files/writer-options", test_writer_options);
  g_test_add_func ("/flow-files/domain-options", test_domain_options);
  g_test_add_func ("/flow-files/get-flow-def", test_get_flow_def);
  g_test_add_func ("/flow-files/handle-caching", test_handle_caching);
  g_test_add_func ("/flow-files/deletion-on-release", test_deletion_on_release);
  g_test_add_func ("/flow-files/deletion-on-destroy", test_deletion_on_destroy);
  g_test_add_func ("/flow-files/reopen-and-kinds", test_reopen_and_kinds);
  g_test_add_func ("/flow-files/concurrent-create", test_concurrent_create);
  g_test_add_func ("/flow-files/garbage-collection", test_garbage_collection);
  g_test_add_func ("/flow-files/unwritable-domain", test_unwritable_domain);
  g_test_add_func ("/flow-files/last-error-message", test_last_error_message);
  return g_test_run ();
}
