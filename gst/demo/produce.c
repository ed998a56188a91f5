/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The demo's media, rendered once at start and cycled (demo.h): a loop of
 * SMPTE-bars frames with a moving black box and a burnt-in loop counter, a loop
 * of 440 Hz tone batches, and the producer threads that hand them to an
 * appsrc at their MXL index times. */
#include "demo.h"

#include <math.h>
#include <string.h>

#include <gst/app/app.h>
#include <gst/audio/audio.h>
#include <gst/video/video.h>
#include <mxl/time.h>

#define BOX 120                 /* moving box: BOX x BOX pixels */
#define SEG 12                  /* counter digit stroke, pixels (2 v210 groups) */

/* 10-bit video levels (ITU-R BT.709 / BT.601 legal range) */
#define Y_WHITE 940
#define Y_BLACK 64
#define C_ZERO 512

/* Fills pixels [x, x + w) x [y, y + h) of a v210 frame with one colour.
 * @x and @w are multiples of 6 (one v210 group: 6 pixels in four 32-bit
 * little-endian words, Cb Y Cr / Y Cb Y / Cr Y Cb / Y Cr Y). */
static void
fill_v210 (GstVideoFrame * f, guint x, guint y, guint w, guint h, guint yv,
    guint cb, guint cr)
{
  guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (f, 0);
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, 0);
  guint fw = GST_VIDEO_FRAME_WIDTH (f), fh = GST_VIDEO_FRAME_HEIGHT (f);
  guint32 w0 = cb | yv << 10 | cr << 20, w1 = yv | cb << 10 | yv << 20;
  guint32 w2 = cr | yv << 10 | cb << 20, w3 = yv | cr << 10 | yv << 20;
  guint r, g;

  for (r = y; r < y + h && r < fh; r++) {
    guint8 *row = data + (gsize) r * stride;
    for (g = x / 6; g < (x + w) / 6 && g * 6 < fw; g++) {
      GST_WRITE_UINT32_LE (row + g * 16, w0);
      GST_WRITE_UINT32_LE (row + g * 16 + 4, w1);
      GST_WRITE_UINT32_LE (row + g * 16 + 8, w2);
      GST_WRITE_UINT32_LE (row + g * 16 + 12, w3);
    }
  }
}

/* One seven-segment digit, (4 * SEG) x (7 * SEG) pixels at x, y. */
static void
draw_digit (GstVideoFrame * f, guint x, guint y, guint d)
{
  /* segments a b c d e f g as bits 0..6 */
  static const guint8 seg[10] = { 0x3f, 0x06, 0x5b, 0x4f, 0x66, 0x6d, 0x7d,
    0x07, 0x7f, 0x6f
  };
  guint s = seg[d % 10];

  if (s & 0x01)
    fill_v210 (f, x, y, 4 * SEG, SEG, Y_WHITE, C_ZERO, C_ZERO);
  if (s & 0x02)
    fill_v210 (f, x + 3 * SEG, y, SEG, 4 * SEG, Y_WHITE, C_ZERO, C_ZERO);
  if (s & 0x04)
    fill_v210 (f, x + 3 * SEG, y + 3 * SEG, SEG, 4 * SEG, Y_WHITE, C_ZERO,
        C_ZERO);
  if (s & 0x08)
    fill_v210 (f, x, y + 6 * SEG, 4 * SEG, SEG, Y_WHITE, C_ZERO, C_ZERO);
  if (s & 0x10)
    fill_v210 (f, x, y + 3 * SEG, SEG, 4 * SEG, Y_WHITE, C_ZERO, C_ZERO);
  if (s & 0x20)
    fill_v210 (f, x, y, SEG, 4 * SEG, Y_WHITE, C_ZERO, C_ZERO);
  if (s & 0x40)
    fill_v210 (f, x, y + 3 * SEG, 4 * SEG, SEG, Y_WHITE, C_ZERO, C_ZERO);
}

/* videotestsrc's SMPTE bars, one frame of @caps (v210), bounded to 20 s. */
static GstSample *
render_bars (const gchar * caps, GError ** error)
{
  gchar *desc = g_strdup_printf ("videotestsrc pattern=smpte num-buffers=1 "
      "! %s ! appsink name=out sync=false", caps);
  GstElement *p = gst_parse_launch (desc, error), *sink;
  GstSample *sample = NULL;

  g_free (desc);
  if (p == NULL)
    return NULL;
  sink = gst_bin_get_by_name (GST_BIN (p), "out");
  if (gst_element_set_state (p, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE)
    sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        20 * GST_SECOND);
  if (sample == NULL)
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "videotestsrc gave no frame");
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  return sample;
}

DemoLoop *
demo_loop_new_video (const gchar * caps, guint n, GError ** error)
{
  GstSample *bars = render_bars (caps, error);
  GstVideoInfo info;
  GstVideoFrame src, dst;
  DemoLoop *l;
  guint k, step;

  if (bars == NULL)
    return NULL;
  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (bars))
      || GST_VIDEO_INFO_FORMAT (&info) != GST_VIDEO_FORMAT_v210
      || GST_VIDEO_INFO_WIDTH (&info) < 2 * BOX
      || !gst_video_frame_map (&src, &info, gst_sample_get_buffer (bars),
          GST_MAP_READ)) {
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "cannot map the bars frame as v210");
    gst_sample_unref (bars);
    return NULL;
  }
  l = g_new0 (DemoLoop, 1);
  l->n = n;
  l->frames = g_new0 (GstBuffer *, n);
  l->sums = g_new0 (gchar *, n);
  /* the box crosses the picture once per loop, in whole v210 groups */
  step = (GST_VIDEO_INFO_WIDTH (&info) - BOX) / MAX (n - 1, 1) / 6 * 6;
  for (k = 0; k < n; k++) {
    GstMapInfo map;

    l->frames[k] = gst_buffer_new_allocate (NULL, info.size, NULL);
    gst_video_frame_map (&dst, &info, l->frames[k], GST_MAP_WRITE);
    gst_video_frame_copy (&dst, &src);
    fill_v210 (&dst, k * step, (GST_VIDEO_INFO_HEIGHT (&info) - BOX) / 2,
        BOX, BOX, Y_BLACK, C_ZERO, C_ZERO);
    /* counter: k as three digits on black, top left */
    fill_v210 (&dst, 48, 48, 18 * SEG, 9 * SEG, Y_BLACK, C_ZERO, C_ZERO);
    draw_digit (&dst, 48 + SEG, 48 + SEG, k / 100);
    draw_digit (&dst, 48 + 7 * SEG, 48 + SEG, k / 10);
    draw_digit (&dst, 48 + 13 * SEG, 48 + SEG, k);
    gst_video_frame_unmap (&dst);
    gst_buffer_map (l->frames[k], &map, GST_MAP_READ);
    l->sums[k] = g_compute_checksum_for_data (G_CHECKSUM_MD5, map.data,
        map.size);
    gst_buffer_unmap (l->frames[k], &map);
  }
  gst_video_frame_unmap (&src);
  gst_sample_unref (bars);
  return l;
}

DemoLoop *
demo_loop_new_audio (guint rate, guint channels, guint batch, guint n)
{
  DemoLoop *l = g_new0 (DemoLoop, 1);
  guint k, i, c;

  l->n = n;
  l->frames = g_new0 (GstBuffer *, n);
  l->sums = g_new0 (gchar *, n);
  for (k = 0; k < n; k++) {
    GstMapInfo map;
    gfloat *p;

    l->frames[k] = gst_buffer_new_allocate (NULL, (gsize) batch * channels *
        sizeof (gfloat), NULL);
    gst_buffer_map (l->frames[k], &map, GST_MAP_WRITE);
    p = (gfloat *) map.data;
    for (i = 0; i < batch; i++) {
      guint64 t = (guint64) k * batch + i;
      gfloat v = 0.5f * (gfloat) sin (2 * G_PI * 440.0 * t / rate);
      for (c = 0; c < channels; c++)
        p[i * channels + c] = v;
    }
    gst_buffer_unmap (l->frames[k], &map);
  }
  return l;
}

void
demo_loop_free (DemoLoop * l)
{
  guint k;

  if (l == NULL)
    return;
  for (k = 0; k < l->n; k++) {
    gst_buffer_unref (l->frames[k]);
    g_free (l->sums[k]);
  }
  g_free (l->frames);
  g_free (l->sums);
  g_free (l);
}

/* The first index of @rate whose render time (origin time + @latency)
 * has not passed at @now (TAI ns). */
static guint64
first_unrendered (const mxlRational * rate, guint64 latency, guint64 now)
{
  guint64 k = now > latency ? mxlTimestampToIndex (rate, now - latency) : 0;

  if (mxlIndexToTimestamp (rate, k) + latency < now)
    k++;
  return k;
}

static gpointer
produce (gpointer data)
{
  DemoProducer *p = data;
  mxlRational rate = { p->rate_n, p->rate_d };
  guint64 slot = mxlTimestampToIndex (&rate, gst_mxl_fabrics_tai_now ()) + 2;
  guint64 queued;

  for (;;) {
    guint64 due = mxlIndexToTimestamp (&rate, slot), now;
    GstClockReturn r;
    GstBuffer *b;

    g_mutex_lock (&p->lock);
    if (p->stop) {
      g_mutex_unlock (&p->lock);
      break;
    }
    /* the pipeline clock is CLOCK_TAI: clock time = TAI ns */
    p->wait = gst_clock_new_single_shot_id (p->clock, due);
    g_mutex_unlock (&p->lock);
    r = gst_clock_id_wait (p->wait, NULL);
    g_mutex_lock (&p->lock);
    gst_clock_id_unref (p->wait);
    p->wait = NULL;
    g_mutex_unlock (&p->lock);
    if (r == GST_CLOCK_UNSCHEDULED)
      break;

    /* produce: the loop's buffer for this index (memory shared, not
     * copied), stamped with the index's running time */
    b = gst_buffer_copy (p->loop->frames[slot % p->loop->n]);
    if (p->slow_ms > 0)
      g_usleep (p->slow_ms * 1000);     /* MXL_DEMO_SLOW: a slow stage */
    GST_BUFFER_PTS (b) = due - p->base_time;
    GST_BUFFER_DURATION (b) = mxlIndexToTimestamp (&rate, slot + 1) - due;
    now = gst_mxl_fabrics_tai_now ();
    p->produced++;
    /* done after the sink should have rendered it: it goes out late */
    if (now > due + p->latency)
      p->late++;
    g_object_get (p->appsrc, "current-level-buffers", &queued, NULL);
    if (queued >= (guint64) MAX (p->rate_n / p->rate_d / 2, 1)) {
      p->refused++;             /* the sink is not taking frames */
      gst_buffer_unref (b);
    } else if (gst_app_src_push_buffer (GST_APP_SRC (p->appsrc), b) !=
        GST_FLOW_OK) {
      break;                    /* flushing or EOS: the pipeline stops */
    }
    {
      /* catch up on the indices that can still be rendered on time; the
       * ones whose render time passed are not produced at all (as a
       * capture card drops the frames nobody took) */
      guint64 next = first_unrendered (&rate, p->latency, gst_mxl_fabrics_tai_now ());
      if (next > slot + 1)
        p->missed += next - slot - 1;
      slot = MAX (slot + 1, next);
    }
  }
  return NULL;
}

DemoProducer *
demo_producer_start (GstElement * appsrc, DemoLoop * loop, gint rate_n,
    gint rate_d, GstClockTime latency, guint slow_ms)
{
  DemoProducer *p = g_new0 (DemoProducer, 1);

  p->latency = latency;
  p->appsrc = gst_object_ref (appsrc);
  p->loop = loop;
  p->rate_n = rate_n;
  p->rate_d = rate_d;
  p->slow_ms = slow_ms;
  p->clock = gst_element_get_clock (appsrc);
  p->base_time = gst_element_get_base_time (appsrc);
  g_mutex_init (&p->lock);
  p->thread = g_thread_new ("demo-producer", produce, p);
  return p;
}

void
demo_producer_stop (DemoProducer * p)
{
  if (p == NULL || p->thread == NULL)
    return;
  g_mutex_lock (&p->lock);
  p->stop = TRUE;
  if (p->wait)
    gst_clock_id_unschedule (p->wait);
  g_mutex_unlock (&p->lock);
  g_thread_join (p->thread);
  p->thread = NULL;
  gst_app_src_end_of_stream (GST_APP_SRC (p->appsrc));
}

void
demo_producer_free (DemoProducer * p)
{
  if (p == NULL)
    return;
  demo_producer_stop (p);
  gst_object_unref (p->appsrc);
  g_clear_object (&p->clock);
  g_mutex_clear (&p->lock);
  g_free (p);
}

void
demo_producer_to_json (DemoProducer * p, JsonBuilder * b)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "produced");
  json_builder_add_int_value (b, (gint64) p->produced);
  json_builder_set_member_name (b, "late");
  json_builder_add_int_value (b, (gint64) p->late);
  json_builder_set_member_name (b, "missed");
  json_builder_add_int_value (b, (gint64) p->missed);
  json_builder_set_member_name (b, "refused");
  json_builder_add_int_value (b, (gint64) p->refused);
  json_builder_end_object (b);
}
