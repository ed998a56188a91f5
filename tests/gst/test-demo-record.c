/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxl-fabrics-demo's recording (gst/demo/record.c) against the elements:
 * the sample index the sender records for an audio buffer must be the one
 * mxlfabricssink writes it at, or every 100 ms block checksum of the run
 * differs from the receiver's although nothing was damaged.
 *
 * The sink pipeline runs on a CLOCK_TAI system clock (as the demo's) with
 * a base time chosen so that the first buffer's TAI time is an exact tie of
 * the sample rounding (docs/flow-format.md §5.2: half up): any error in the clock
 * offset the recorder assumes, however small, moves that buffer to the
 * sample before. The demo's first audio buffer reaches the recorder before
 * the sink has adopted a timing context for the pipeline clock, which is
 * when the recorder used to sample the offset itself (a few hundred ns off;
 * milliseconds when the thread is preempted between the two clock reads).
 */
#include <time.h>

#include <gst/audio/audio.h>

#include "../hardening/hgst.h"
#include "demo.h"

#define WAIT_S 10
#define CHANNELS 8
#define RATE 48000
#define PER_BUFFER 480          /* 10 ms, as the demo's audiotestsrc */
#define N_BUFFERS 50            /* 500 ms: at least 4 complete blocks */

/* The first TAI time >= @after whose sample index is an exact rounding tie
 * at 48 kHz: t * 48000 = k * 1e9 + 5e8, i.e. t = 31250 (mod 62500) ns. */
static guint64
tie_after (guint64 after)
{
  guint64 t = after - after % 62500 + 31250;

  return t < after ? t + 62500 : t;
}

/* The sample whose value the buffers carry: exact in float32. */
static gfloat
sample_value (guint c, guint64 k)
{
  return (gfloat) (c * 1000000 + k);
}

/* Polls (bounded) until @s has recorded @n samples per channel. */
static void
wait_samples (DemoStream * s, guint64 n)
{
  guint64 got = 0;
  guint i, k;

  for (i = 0; i < WAIT_S * 100 && got < n; i++) {
    g_mutex_lock (&s->lock);
    for (got = 0, k = 0; k < s->items->len; k++)
      got += g_array_index (s->items, DemoItem, k).count;
    g_mutex_unlock (&s->lock);
    if (got < n)
      g_usleep (10 * 1000);
  }
  g_assert_cmpuint (got, >=, n);
}

static void
test_audio_index_at_tie (void)
{
  gchar *ti = NULL;
  GstElement *src, *sink, *e, *in;
  DemoStream *sent, *recv;
  GstClock *clock;
  guint64 base, first_index;
  guint i, k, verified = 0;

  src = hgst_parse ("mxlfabricssrc name=src provider=tcp node=" HGST_NODE
      " caps=\"audio/x-raw,format=F32LE,layout=non-interleaved,rate=48000,"
      "channels=8\" ! appsink name=out sync=false max-buffers=1000 "
      "drop=true");
  e = gst_bin_get_by_name (GST_BIN (src), "src");
  recv = demo_stream_new ("audio", DEMO_RECEIVER, TRUE, e);
  gst_object_unref (e);
  hgst_play (src);
  ti = hgst_target_info (src);

  sink = hgst_parse ("appsrc name=in is-live=true format=time caps=\""
      "audio/x-raw,format=F32LE,layout=interleaved,rate=48000,channels=8,"
      "channel-mask=(bitmask)0\" ! "
      "mxlfabricssink name=sink provider=tcp node=" HGST_NODE
      " wait-for-connection=true");
  hgst_set_target_info (sink, ti);
  e = gst_bin_get_by_name (GST_BIN (sink), "sink");
  sent = demo_stream_new ("audio", DEMO_SENDER, TRUE, e);
  gst_object_unref (e);
  /* The demo's clock (gst/demo/main.c), and a base time of our choosing:
   * buffer PTS 0 is rendered at TAI @base, an exact tie. */
  clock = g_object_new (GST_TYPE_SYSTEM_CLOCK, "clock-type",
      GST_CLOCK_TYPE_TAI, NULL);
  gst_pipeline_use_clock (GST_PIPELINE (sink), clock);
  gst_object_unref (clock);
  base = tie_after (hgst_tai_now () + 300 * GST_MSECOND);
  gst_element_set_start_time (sink, GST_CLOCK_TIME_NONE);
  gst_element_set_base_time (sink, base);
  /* idx(t) = (t * 48000 + 5e8) / 1e9: the tie rounds up */
  first_index = (guint64) (((unsigned __int128) base * RATE + 500000000u) /
      1000000000u);
  g_assert_cmpuint ((guint64) (((unsigned __int128) base * RATE) %
          1000000000u), ==, 500000000u);

  hgst_play (sink);
  in = gst_bin_get_by_name (GST_BIN (sink), "in");
  for (i = 0; i < N_BUFFERS; i++) {
    GstBuffer *b = gst_buffer_new_allocate (NULL, PER_BUFFER * 4 * CHANNELS,
        NULL);
    GstMapInfo map;
    gfloat *f;

    gst_buffer_map (b, &map, GST_MAP_WRITE);
    f = (gfloat *) map.data;
    for (k = 0; k < PER_BUFFER; k++)
      for (guint c = 0; c < CHANNELS; c++)
        f[k * CHANNELS + c] = sample_value (c, (guint64) i * PER_BUFFER + k);
    gst_buffer_unmap (b, &map);
    GST_BUFFER_PTS (b) = gst_util_uint64_scale (i * PER_BUFFER, GST_SECOND,
        RATE);
    GST_BUFFER_DURATION (b) = gst_util_uint64_scale (PER_BUFFER, GST_SECOND,
        RATE);
    g_assert_cmpint (gst_app_src_push_buffer (GST_APP_SRC (in), b), ==,
        GST_FLOW_OK);
  }
  gst_object_unref (in);
  wait_samples (recv, (guint64) N_BUFFERS * PER_BUFFER);
  hgst_assert_no_error (sink);
  hgst_assert_no_error (src);
  hgst_stop (sink);
  hgst_stop (src);

  /* The sender recorded the first buffer at the index the sink's rule
   * gives it (timing.h: D = 0 on a TAI clock), and the sink wrote it
   * there: the receiver's first samples carry that index. */
  g_assert_cmpuint (sent->items->len, ==, N_BUFFERS);
  g_assert_cmpuint (g_array_index (sent->items, DemoItem, 0).index, ==,
      first_index);
  g_assert_cmpuint (recv->items->len, >, 0);
  g_assert_cmpuint (g_array_index (recv->items, DemoItem, 0).index, ==,
      first_index);
  /* Every complete block the sender summed arrived with the same sum. */
  g_assert_cmpuint (sent->blocks->len, >=, 4);
  for (i = 0; i < sent->blocks->len; i++) {
    DemoBlock *s = &g_array_index (sent->blocks, DemoBlock, i);
    for (k = 0; k < recv->blocks->len; k++) {
      DemoBlock *r = &g_array_index (recv->blocks, DemoBlock, k);
      if (r->block == s->block) {
        g_assert_cmpstr (r->sum, ==, s->sum);
        verified++;
      }
    }
  }
  g_assert_cmpuint (verified, ==, sent->blocks->len);

  demo_stream_free (sent);
  demo_stream_free (recv);
  g_free (ti);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/demo-record/audio-index-at-tie/tcp",
      test_audio_index_at_tie);
  return g_test_run ();
}
