/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* index <-> TAI <-> PTS (gst/timing.h) and the pipeline-wide offset shared
 * through a GstContext by real mxlfabricssrc/mxlfabricssink instances. */
#include <gst/gst.h>

#include "mxlfabricssink.h"
#include "mxlfabricssrc.h"
#include "timing.h"

static void
test_index_to_tai (void)
{
  /* docs/flow-format.md §5.3 */
  g_assert_cmpuint (gst_mxl_fabrics_index_to_tai (0, 30000, 1001), ==, 0);
  g_assert_cmpuint (gst_mxl_fabrics_index_to_tai (1, 30000, 1001), ==,
      33366667);
  g_assert_cmpuint (gst_mxl_fabrics_index_to_tai (2, 30000, 1001), ==,
      66733333);
  g_assert_cmpuint (gst_mxl_fabrics_index_to_tai (3, 30000, 1001), ==,
      100100000);
  g_assert_cmpuint (gst_mxl_fabrics_index_to_tai (1, 60000, 1001), ==,
      16683333);
  g_assert_cmpuint (gst_mxl_fabrics_index_to_tai (3, 60000, 1001), ==,
      50050000);
  g_assert_cmpuint (gst_mxl_fabrics_index_to_tai (1, 48000, 1), ==, 20833);
  g_assert_cmpuint (gst_mxl_fabrics_index_to_tai (2, 48000, 1), ==, 41667);
  g_assert_cmpuint (gst_mxl_fabrics_index_to_tai (3, 48000, 1), ==, 62500);
  g_assert_cmpuint (gst_mxl_fabrics_index_to_tai (3, 50, 1), ==, 60000000);
  /* present-day index (needs 128-bit intermediates) */
  g_assert_cmpuint (gst_mxl_fabrics_index_to_tai (53496503497, 30000, 1001),
      ==, G_GUINT64_CONSTANT (1785000000016566667));
  g_assert_cmpuint (gst_mxl_fabrics_index_to_tai (1, 0, 1), ==,
      GST_CLOCK_TIME_NONE);
  g_assert_cmpuint (gst_mxl_fabrics_index_to_tai (1, 30000, 0), ==,
      GST_CLOCK_TIME_NONE);
}

static void
test_tai_to_index (void)
{
  guint64 i;

  g_assert_cmpuint (gst_mxl_fabrics_tai_to_index (9999999, 50, 1), ==, 0);
  g_assert_cmpuint (gst_mxl_fabrics_tai_to_index (10000000, 50, 1), ==, 1);
  g_assert_cmpuint (gst_mxl_fabrics_tai_to_index (29999999, 50, 1), ==, 1);
  g_assert_cmpuint (gst_mxl_fabrics_tai_to_index (30000000, 50, 1), ==, 2);
  g_assert_cmpuint (gst_mxl_fabrics_tai_to_index (33366667, 30000, 1001), ==,
      1);
  g_assert_cmpuint (gst_mxl_fabrics_tai_to_index (16683333, 30000, 1001), ==,
      0);
  g_assert_cmpuint (gst_mxl_fabrics_tai_to_index (16683334, 30000, 1001), ==,
      1);
  g_assert_cmpuint (gst_mxl_fabrics_tai_to_index
      (G_GUINT64_CONSTANT (1785000000000000000), 30000, 1001), ==,
      53496503497);
  for (i = 30000000; i < 30200000; i++)
    g_assert_cmpuint (gst_mxl_fabrics_tai_to_index
        (gst_mxl_fabrics_index_to_tai (i, 30000, 1001), 30000, 1001), ==, i);
  g_assert_cmpuint (gst_mxl_fabrics_tai_to_index (5, 0, 1), ==, G_MAXUINT64);
}

static void
test_pts (void)
{
  const gint64 d = G_GINT64_CONSTANT (1739000000000000000);
  const GstClockTime base = G_GUINT64_CONSTANT (1000000000000);
  GstClockTime pts = 0;

  g_assert_true (gst_mxl_fabrics_timing_index_to_pts (87000000123, 50, 1, d,
          base, &pts));
  g_assert_cmpuint (pts, ==, G_GUINT64_CONSTANT (999002460000000));
  g_assert_cmpuint (gst_mxl_fabrics_timing_pts_to_index (pts, 50, 1, d, base),
      ==, 87000000123);
  g_assert_true (gst_mxl_fabrics_timing_index_to_pts (53496503497, 30000,
          1001, d, base, &pts));
  g_assert_cmpuint (pts, ==, G_GUINT64_CONSTANT (45999000016566667));
  g_assert_cmpuint (gst_mxl_fabrics_timing_pts_to_index (pts, 30000, 1001, d,
          base), ==, 53496503497);
  /* A sink buffer 9 ms after a grain's origin still names that grain, 11 ms
   * after it names the next one (nearest index, 50/1). */
  g_assert_cmpuint (gst_mxl_fabrics_timing_pts_to_index (999002460000000 +
          9000000, 50, 1, d, base), ==, 87000000123);
  g_assert_cmpuint (gst_mxl_fabrics_timing_pts_to_index (999002460000000 +
          11000000, 50, 1, d, base), ==, 87000000124);
  /* Grains before running time 0 are refused, not clamped. */
  g_assert_false (gst_mxl_fabrics_timing_index_to_pts (1, 50, 1, d, base,
          &pts));
  g_assert_false (gst_mxl_fabrics_timing_index_to_pts (1, 0, 1, 0, 0, &pts));
}

static void
test_offset_tai_clock (void)
{
  GstClock *tai = g_object_new (GST_TYPE_SYSTEM_CLOCK, "clock-type",
      GST_CLOCK_TYPE_TAI, NULL);
  GstClock *mono = g_object_new (GST_TYPE_SYSTEM_CLOCK, "clock-type",
      GST_CLOCK_TYPE_MONOTONIC, NULL);
  gint64 d;

  g_assert_cmpint (gst_mxl_fabrics_timing_compute_offset (tai), ==, 0);
  /* Sampled offset: TAI(now) - monotonic(now), checked to 10 ms. */
  d = gst_mxl_fabrics_timing_compute_offset (mono);
  {
    gint64 expected = (gint64) gst_mxl_fabrics_tai_now () -
        (gint64) gst_clock_get_time (mono);
    g_assert_cmpint (ABS (d - expected), <, 10000000);
  }
  gst_object_unref (tai);
  gst_object_unref (mono);
}

static void
test_context_roundtrip (void)
{
  GstClock *clock = gst_system_clock_obtain ();
  GstContext *c = gst_mxl_fabrics_timing_context_new (clock, -12345);
  GstClock *out = NULL;
  gint64 d = 0;

  g_assert_cmpstr (gst_context_get_context_type (c), ==,
      "mxl-fabrics.timing");
  g_assert_true (gst_mxl_fabrics_timing_context_parse (c, &out, &d));
  g_assert_cmpint (d, ==, -12345);
  g_assert_true (out == clock);
  gst_object_unref (out);
  gst_context_unref (c);
  gst_object_unref (clock);
}

static guint have_context_messages;

static GstBusSyncReply
count_have_context (GstBus * bus, GstMessage * msg, gpointer data)
{
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_HAVE_CONTEXT)
    have_context_messages++;
  return GST_BUS_PASS;
}

/* Two of our elements in one pipeline share one offset (same PTS for the
 * same index); an element of another pipeline gets its own context; after a
 * clock change both adopt the new one. */
static void
test_shared_context (void)
{
  GstElement *pipeline = gst_pipeline_new ("p1");
  GstElement *pipeline2 = gst_pipeline_new ("p2");
  GstMxlFabricsSrc *src = g_object_new (GST_TYPE_MXL_FABRICS_SRC, NULL);
  GstMxlFabricsSink *sink = g_object_new (GST_TYPE_MXL_FABRICS_SINK, NULL);
  GstMxlFabricsSrc *other = g_object_new (GST_TYPE_MXL_FABRICS_SRC, NULL);
  GstBus *bus = gst_pipeline_get_bus (GST_PIPELINE (pipeline));
  GstClock *tai;
  gint64 d1 = 1, d2 = 2, d3 = 3;
  GstClockTime pts1 = 0, pts2 = 1;
  const GstClockTime base = 5 * GST_SECOND;

  gst_bus_set_sync_handler (bus, count_have_context, NULL, NULL);
  gst_bin_add_many (GST_BIN (pipeline), GST_ELEMENT (src), GST_ELEMENT (sink),
      NULL);
  gst_bin_add (GST_BIN (pipeline2), GST_ELEMENT (other));

  g_assert_true (gst_mxl_fabrics_timing_ensure (GST_ELEMENT (src),
          &src->timing, &d1));
  g_assert_cmpuint (have_context_messages, ==, 1);
  g_assert_true (gst_mxl_fabrics_timing_ensure (GST_ELEMENT (sink),
          &sink->timing, &d2));
  /* The second got the first's context through the bin: no new one. */
  g_assert_cmpuint (have_context_messages, ==, 1);
  g_assert_cmpint (d1, ==, d2);
  g_assert_true (src->timing.context == sink->timing.context);

  g_assert_true (gst_mxl_fabrics_timing_index_to_pts
      (gst_mxl_fabrics_tai_to_index (gst_mxl_fabrics_tai_now (), 50, 1),
          50, 1, d1, base, &pts1));
  g_assert_true (gst_mxl_fabrics_timing_index_to_pts
      (gst_mxl_fabrics_tai_to_index (gst_mxl_fabrics_tai_now (), 50, 1) - 0,
          50, 1, d2, base, &pts2));
  /* same index (unless the 20 ms grain boundary passed between the calls) */
  g_assert_true (pts1 == pts2 || pts2 - pts1 == 20000000);

  g_assert_true (gst_mxl_fabrics_timing_ensure (GST_ELEMENT (other),
          &other->timing, &d3));
  g_assert_true (other->timing.context != src->timing.context);

  /* Calling again is stable. */
  g_assert_true (gst_mxl_fabrics_timing_ensure (GST_ELEMENT (src),
          &src->timing, &d3));
  g_assert_cmpint (d3, ==, d1);
  g_assert_cmpuint (have_context_messages, ==, 1);

  /* The pipeline switches to a TAI clock: D becomes exactly 0 for both. */
  tai = g_object_new (GST_TYPE_SYSTEM_CLOCK, "clock-type", GST_CLOCK_TYPE_TAI,
      NULL);
  g_assert_true (gst_element_set_clock (pipeline, tai));
  g_assert_true (gst_mxl_fabrics_timing_ensure (GST_ELEMENT (sink),
          &sink->timing, &d2));
  g_assert_cmpint (d2, ==, 0);
  g_assert_cmpuint (have_context_messages, ==, 2);
  g_assert_true (gst_mxl_fabrics_timing_ensure (GST_ELEMENT (src),
          &src->timing, &d1));
  g_assert_cmpint (d1, ==, 0);
  g_assert_true (src->timing.context == sink->timing.context);
  g_assert_cmpuint (have_context_messages, ==, 2);

  gst_element_set_clock (pipeline, NULL);
  gst_object_unref (tai);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  gst_object_unref (pipeline2);
}

static void
test_reference_meta (void)
{
  GstBuffer *buf = gst_buffer_new ();
  GstCaps *caps = gst_caps_from_string ("timestamp/x-tai");
  GstReferenceTimestampMeta *meta;

  gst_mxl_fabrics_timing_add_reference_meta (buf,
      G_GUINT64_CONSTANT (1785000000016566667), 33366667);
  meta = gst_buffer_get_reference_timestamp_meta (buf, caps);
  g_assert_nonnull (meta);
  g_assert_cmpuint (meta->timestamp, ==,
      G_GUINT64_CONSTANT (1785000000016566667));
  g_assert_cmpuint (meta->duration, ==, 33366667);
  gst_caps_unref (caps);
  gst_buffer_unref (buf);
}

/* gst_mxl_fabrics_follow_grain_index: timestamps at a phase near half a
 * period with deterministic jitter of +-40% of half a period get consecutive
 * indices; a buffer the sender left out leaves exactly one index out; a
 * sender running slow leaves out one index per period of drift. */
static void
test_follow_index (void)
{
  const guint64 p = 20000000;   /* 50 fps */
  const guint64 t0 = G_GUINT64_CONSTANT (1785000000000000000);
  GRand *rand = g_rand_new_with_seed (20);
  guint64 last = 0, first = 0, i, gaps = 0;
  GstMxlFabricsIndexPhase phase = { 0, 0, 0, 0 };
  gboolean have = FALSE;

  for (i = 0; i < 2000; i++) {
    /* phase 0.4 P: rounding each time alone gives the first buffer (the
     * earliest possible) the index below, and a later one the index above */
    gint64 jitter = i == 0 ? -4000000 : g_rand_int_range (rand, -4000000,
        4000001);
    guint64 t = t0 + i * p + p * 40 / 100 + jitter;
    guint64 idx = gst_mxl_fabrics_follow_grain_index (t, 50, 1, have, last,
        &phase);

    if (!have)
      first = idx;
    else
      g_assert_cmpuint (idx, ==, last + 1);
    have = TRUE;
    last = idx;
  }
  g_assert_cmpuint (last - first, ==, 1999);

  /* the sender drops frame 10 (of a stream at phase -0.45 P) */
  have = FALSE;
  for (i = 0; i < 40; i++) {
    gint64 jitter = g_rand_int_range (rand, -4000000, 4000001);
    guint64 t = t0 + i * p - p * 45 / 100 + jitter, idx;

    if (i == 10)
      continue;
    idx = gst_mxl_fabrics_follow_grain_index (t, 50, 1, have, last, &phase);
    if (have)
      g_assert_cmpuint (idx, ==, last + (i == 11 ? 2 : 1));
    have = TRUE;
    last = idx;
  }

  /* 0.1% slow (period 20.02 ms): 10000 buffers span 10010 periods, so 10
   * indices are left out, one at a time, and indices stay near the times */
  have = FALSE;
  for (i = 0; i < 10000; i++) {
    guint64 t = t0 + i * (p + p / 1000) + g_rand_int_range (rand, -2000000,
        2000001), idx;
    idx = gst_mxl_fabrics_follow_grain_index (t, 50, 1, have, last, &phase);
    if (!have)
      first = idx;
    else {
      g_assert_cmpuint (idx, >, last);
      g_assert_cmpuint (idx, <=, last + 2);
      gaps += idx - last - 1;
    }
    g_assert_cmpuint (gst_mxl_fabrics_index_to_tai (idx, 50, 1) + p + p / 2,
        >, t);
    g_assert_cmpuint (t + p, >, gst_mxl_fabrics_index_to_tai (idx, 50, 1));
    have = TRUE;
    last = idx;
  }
  g_assert_cmpuint (gaps, >=, 9);
  g_assert_cmpuint (gaps, <=, 11);
  g_assert_cmpuint (gst_mxl_fabrics_follow_grain_index (t0, 0, 1, FALSE, 0,
          &phase), ==, G_MAXUINT64);
  g_rand_free (rand);
}

/* Jitter at the edge of half a period (10 ms at 50 fps) stays consecutive
 * at every phase to the grid: +-9 ms alternating, runs of 20 buffers at
 * +9.5 ms then -9.5 ms, and do-timestamp's one-sided lateness of 0..9.9 ms;
 * a frame left out among that jitter is still exactly one index. */
static void
test_follow_index_edge (void)
{
  const gint64 p = 20000000;
  const guint64 t0 = G_GUINT64_CONSTANT (1785000000000000000);
  gint64 grid;

  for (grid = -p / 2; grid < p / 2; grid += p / 20) {
    gint pattern;

    for (pattern = 0; pattern < 4; pattern++) {
      GstMxlFabricsIndexPhase phase = { 0, 0, 0, 0 };
      guint64 last = 0, i;
      gboolean have = FALSE;

      for (i = 0; i < 400; i++) {
        gint64 j;
        guint64 idx;

        if (pattern == 0)
          j = i % 2 ? 9000000 : -9000000;
        else if (pattern == 1)
          j = (i / 20) % 2 ? -9500000 : 9500000;
        else if (pattern == 2)
          j = (i / 20) % 2 ? 9500000 : -9500000;
        else
          j = (gint64) ((i * 7919) % 100) * 99000;      /* 0 .. 9.8 ms late */
        if (i == 310)
          continue;             /* the sender drops this frame */
        idx = gst_mxl_fabrics_follow_grain_index (t0 + i * p + grid + j, 50,
            1, have, last, &phase);
        if (have)
          g_assert_cmpuint (idx, ==, last + (i == 311 ? 2 : 1));
        have = TRUE;
        last = idx;
      }
    }
  }
}

/* Gives the buffers at times @t[0..n) their indices from a fresh state;
 * fills @idx. */
static void
follow_all (const guint64 * t, guint n, gint num, guint64 * idx)
{
  GstMxlFabricsIndexPhase phase = { 0, 0, 0, 0 };
  guint i;

  for (i = 0; i < n; i++)
    idx[i] = gst_mxl_fabrics_follow_grain_index (t[i], num, 1, i > 0,
        i > 0 ? idx[i - 1] : 0, &phase);
}

/* Time of frame @k at @num fps after @t0 (the origin times round to ns). */
static guint64
nominal (guint64 t0, gint num, guint k)
{
  return t0 + gst_util_uint64_scale_round (k, GST_SECOND, num);
}

/* One late buffer (issue 20 item 5): 60 fps stamped exactly, frame 100 at
 * +1.2 periods (its PTS after frame 101's), and the do-timestamp form of
 * it (50 fps, frame 100 pushed 25 ms late and frame 101 at once after
 * it), a late block of 3 periods (frames 100-102 pushed together), and
 * a fixed pattern of 0..0.45-period lateness, and +-2 ms jitter with a
 * 1.5-period stall (30 ms at 50 fps) every 10 frames, the frame after it
 * pushed right behind it (which used to raise the recent top, so a later
 * stall was taken for a gap), at 10 phases: every frame takes the index of its own nominal time; the late one never moves the
 * frames after it. A late frame taken for a gap (1.1 periods late, within
 * the jitter) moves the frames after it one ahead only until the sender's
 * next gap. A stream whose time moves on by 1.3 periods for good takes
 * the indices of its times again after 5 buffers. */
static void
test_follow_index_late (void)
{
  const guint64 t0 = G_GUINT64_CONSTANT (1785000000000000000);
  const guint n = 300;
  guint64 *t = g_new (guint64, n), *idx = g_new (guint64, n), first;
  GRand *rand = g_rand_new_with_seed (5);
  gint rates[] = { 60, 50 }, r, grid, pattern;
  guint i;

  for (r = 0; r < 2; r++) {
    gint num = rates[r];
    gint64 p = (gint64) gst_util_uint64_scale_round (GST_SECOND, 1, num);

    for (grid = -5; grid < 5; grid++) {
      for (pattern = 0; pattern < 5; pattern++) {
        for (i = 0; i < n; i++) {
          gint64 j = grid * p / 10;

          if (pattern == 3)
            j += g_rand_int_range (rand, 0, (gint32) (p * 45 / 100));
          if (pattern == 4)
            j += g_rand_int_range (rand, -2000000, 2000001)
                + (i > 0 && i % 10 == 0 ? p * 3 / 2 : 0);
          t[i] = nominal (t0, num, i) + j;
          if (pattern == 4 && i > 0)
            t[i] = MAX (t[i], t[i - 1] + 500000);
        }
        if (pattern == 0)
          t[100] += p * 12 / 10;
        else if (pattern == 1) {
          t[100] += p * 5 / 4;
          t[101] = t[100] + 100000;
        } else if (pattern == 2)
          t[100] = t[101] = t[102] = t[102] + p * 12 / 10;
        follow_all (t, n, num, idx);
        first = idx[0];
        for (i = 0; i < n; i++)
          g_assert_cmpuint (idx[i], ==, first + i);
      }
    }
  }

  /* taken for a gap, then the sender leaves frame 150 out (buffer i is
   * frame i + 1 from there) */
  for (i = 0; i < n; i++)
    t[i] = nominal (t0, 60, i < 150 ? i : i + 1) + g_rand_int_range (rand,
        0, 7500000);
  t[100] = nominal (t0, 60, 100) + 18300000;
  follow_all (t, n, 60, idx);
  first = idx[0];
  for (i = 1; i < n; i++) {
    g_assert_cmpuint (idx[i], >, idx[i - 1]);
    if (i < 100)
      g_assert_cmpuint (idx[i], ==, first + i);
    else if (i < 150)
      g_assert_cmpuint (idx[i], <=, first + i + 1);
    else
      g_assert_cmpuint (idx[i], ==, first + i + 1);
  }

  /* the sender's time moves on by 1.3 periods for good at frame 100 */
  for (i = 0; i < n; i++)
    t[i] = nominal (t0, 60, i) + (i >= 100 ? 21666667 : 0);
  follow_all (t, n, 60, idx);
  first = idx[0];
  for (i = 1; i < n; i++)
    g_assert_cmpuint (idx[i], >, idx[i - 1]);
  for (i = 105; i < n; i++)
    g_assert_cmpuint (idx[i], ==, first + i + 1);

  g_rand_free (rand);
  g_free (t);
  g_free (idx);
}

/* The same frame 100, 1.1 periods late within the jitter, from a source
 * that numbers its frames (gst_mxl_fabrics_follow_grain_index_full with
 * next_frame): it takes its own index and so does every frame after it;
 * the frame the sender leaves out at 150 (its number skipped) is still one
 * index left out, and a stream whose time moves on by 1.3 periods for good
 * still takes the indices of its times after 5 buffers. */
static void
test_follow_index_next_frame (void)
{
  const guint64 t0 = G_GUINT64_CONSTANT (1785000000000000000);
  const guint n = 300;
  GRand *rand = g_rand_new_with_seed (5);
  GstMxlFabricsIndexPhase phase = { 0, 0, 0, 0 };
  guint64 idx = 0, first = 0;
  guint i, round;

  for (round = 0; round < 2; round++) {
    for (i = 0; i < n; i++) {
      guint frame = round == 0 && i >= 150 ? i + 1 : i;
      guint64 t = nominal (t0, 60, frame);

      if (round == 0)
        t += i == 100 ? 18300000 : g_rand_int_range (rand, 0, 7500000);
      else if (i >= 100)
        t += 21666667;
      idx = gst_mxl_fabrics_follow_grain_index_full (t, 60, 1, i > 0, idx,
          i > 0 && !(round == 0 && i == 150), &phase);
      if (i == 0)
        first = idx;
      if (round == 0)
        g_assert_cmpuint (idx, ==, first + frame);
      else if (i < 100 || i >= 105)
        g_assert_cmpuint (idx, ==, first + i + (i >= 100));
    }
  }
  g_rand_free (rand);
}

/* The sink's audio index rule (timing.h): within half a buffer of the
 * previous end it continues; from half a buffer on it is a gap. */
static void
test_follow_sample_index (void)
{
  /* 480-sample buffers: up to 239 samples off continue at 48000 */
  g_assert_cmpuint (gst_mxl_fabrics_follow_sample_index (48239, 480, TRUE, 48000), ==, 48000);
  g_assert_cmpuint (gst_mxl_fabrics_follow_sample_index (47761, 480, TRUE, 48000), ==, 48000);
  g_assert_cmpuint (gst_mxl_fabrics_follow_sample_index (48240, 480, TRUE, 48000), ==, 48240);
  g_assert_cmpuint (gst_mxl_fabrics_follow_sample_index (47760, 480, TRUE, 48000), ==, 47760);
  /* the first buffer keeps its own index */
  g_assert_cmpuint (gst_mxl_fabrics_follow_sample_index (48100, 480, FALSE, 48000), ==, 48100);
  /* a one-sample buffer: only an exact continuation */
  g_assert_cmpuint (gst_mxl_fabrics_follow_sample_index (48001, 1, TRUE, 48000), ==, 48001);
  g_assert_cmpuint (gst_mxl_fabrics_follow_sample_index (48000, 1, TRUE, 48000), ==, 48000);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/gst/timing/index-to-tai", test_index_to_tai);
  g_test_add_func ("/gst/timing/tai-to-index", test_tai_to_index);
  g_test_add_func ("/gst/timing/pts", test_pts);
  g_test_add_func ("/gst/timing/follow-index", test_follow_index);
  g_test_add_func ("/gst/timing/follow-index-edge", test_follow_index_edge);
  g_test_add_func ("/gst/timing/follow-index-late", test_follow_index_late);
  g_test_add_func ("/gst/timing/follow-index-next-frame",
      test_follow_index_next_frame);
  g_test_add_func ("/gst/timing/offset-tai-clock", test_offset_tai_clock);
  g_test_add_func ("/gst/timing/context-roundtrip", test_context_roundtrip);
  g_test_add_func ("/gst/timing/shared-context", test_shared_context);
  g_test_add_func ("/gst/timing/reference-meta", test_reference_meta);
  g_test_add_func ("/gst/timing/follow-sample-index", test_follow_sample_index);
  return g_test_run ();
}
