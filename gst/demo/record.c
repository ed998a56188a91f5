/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-stream recording of the demo: pad probes, checksums, audio blocks,
 * the PNG snapshot and the JSON of one stream (demo.h). */
#include "demo.h"

#include <string.h>
#include <time.h>

#include <gst/audio/audio.h>
#include <gst/base/gstbasesink.h>
#include <gst/video/video.h>
#include <mxl/time.h>

#include "timing.h"

/* D = TAI - clock time (ns) for the element's clock: the one mxlfabricssink
 * answers context queries with (gst/timing.h) when it is for that clock,
 * else computed by the same rule the sink will apply when it adopts that
 * clock (gst_mxl_fabrics_timing_compute_offset: exactly 0 on the demo's TAI
 * system clock). The sink adopts the pipeline clock only in its first
 * render, after this probe has seen the first buffer: an offset sampled
 * here (a TAI read minus a clock read, some 100 ns to, when the thread is
 * preempted between them, milliseconds) moved that buffer's index by a
 * sample or more across a rounding boundary, and the contiguity rule below
 * carried the shift to every later buffer: every audio block of the run
 * then differed from the receiver's. */
static gint64
tai_offset (GstElement * element, GstPad * pad)
{
  GstClock *clock = gst_element_get_clock (element), *ctx_clock = NULL;
  GstQuery *q = gst_query_new_context (GST_MXL_FABRICS_TIMING_CONTEXT_TYPE);
  gboolean have = FALSE;
  gint64 offset = 0;

  if (clock && gst_pad_query (pad, q)) {
    GstContext *c = NULL;
    gst_query_parse_context (q, &c);
    if (c && gst_structure_get (gst_context_get_structure (c),
            "clock", GST_TYPE_CLOCK, &ctx_clock, NULL))
      have = ctx_clock == clock && gst_structure_get_int64
          (gst_context_get_structure (c), "tai-offset", &offset);
  }
  if (!have && clock)
    offset = gst_mxl_fabrics_timing_compute_offset (clock);
  gst_query_unref (q);
  g_clear_object (&ctx_clock);
  g_clear_object (&clock);
  return offset;
}

/* The TAI time of @buf's running time (running time + base time + D): when
 * a sink with sync=true renders it. FALSE without a usable timestamp. */
static gboolean
buffer_tai (DemoStream * s, GstPad * pad, GstBuffer * buf, guint64 * tai)
{
  GstEvent *ev = gst_pad_get_sticky_event (pad, GST_EVENT_SEGMENT, 0);
  const GstSegment *seg = NULL;
  GstClockTime rt = GST_CLOCK_TIME_NONE;
  gint64 t;

  if (ev) {
    gst_event_parse_segment (ev, &seg);
    if (seg->format == GST_FORMAT_TIME && GST_BUFFER_PTS_IS_VALID (buf))
      rt = gst_segment_to_running_time (seg, GST_FORMAT_TIME,
          GST_BUFFER_PTS (buf));
    gst_event_unref (ev);
  }
  if (!GST_CLOCK_TIME_IS_VALID (rt))
    return FALSE;
  t = (gint64) (rt + gst_element_get_base_time (s->element)) +
      tai_offset (s->element, pad);
  if (t < 0)
    return FALSE;
  *tai = (guint64) t;
  return TRUE;
}

/* The sample index mxlfabricssink gives audio buffer @buf (before its
 * contiguity rule): its TAI time at the sample rate @num/@den, or
 * G_MAXUINT64 without a usable timestamp. */
static guint64
sender_index (DemoStream * s, GstPad * pad, GstBuffer * buf, gint num,
    gint den)
{
  mxlRational rate = { num, den };
  guint64 t;

  if (!buffer_tai (s, pad, buf, &t))
    return G_MAXUINT64;
  return mxlTimestampToIndex (&rate, t);
}

static gchar *
md5_hex (GChecksum * c, gchar out[33])
{
  g_strlcpy (out, g_checksum_get_string (c), 33);
  return out;
}

/* Closes the audio block being summed; keeps it when it is complete. */
static void
block_close (DemoStream * s)
{
  guint c;

  if (!s->blk_open)
    return;
  if (s->blk_next == (s->blk + 1) * DEMO_AUDIO_BLOCK) {
    GChecksum *all = g_checksum_new (G_CHECKSUM_MD5);
    DemoBlock b = { s->blk, "" };

    for (c = 0; c < s->channels; c++)
      g_checksum_update (all, (const guchar *)
          g_checksum_get_string (s->blk_sums[c]), 32);
    md5_hex (all, b.sum);
    g_checksum_free (all);
    g_array_append_val (s->blocks, b);
  }
  for (c = 0; c < s->channels; c++)
    g_checksum_reset (s->blk_sums[c]);
  s->blk_open = FALSE;
}

/* Feeds samples [@first, @first + @n) of every channel into the blocks.
 * @plane(c) gives channel c's samples, @step floats apart. */
static void
blocks_feed (DemoStream * s, guint64 first, guint64 n,
    const gfloat * const *planes, guint step)
{
  guint64 done = 0;

  while (done < n) {
    guint64 i = first + done, blk = i / DEMO_AUDIO_BLOCK;
    guint64 len = MIN (n - done, (blk + 1) * DEMO_AUDIO_BLOCK - i);
    guint c, k;

    if (s->blk_open && (blk != s->blk || i != s->blk_next))
      block_close (s);          /* a new block, or a gap: this one is over */
    if (!s->blk_open) {
      s->blk_open = i == blk * DEMO_AUDIO_BLOCK;   /* only from its start */
      s->blk = blk;
      s->blk_next = i;
    }
    if (s->blk_open) {
      for (c = 0; c < s->channels; c++) {
        const gfloat *p = planes[c] + done * step;
        if (step == 1) {
          g_checksum_update (s->blk_sums[c], (const guchar *) p, len * 4);
        } else {
          for (k = 0; k < len; k++)
            g_checksum_update (s->blk_sums[c], (const guchar *) &p[k * step],
                4);
        }
      }
      s->blk_next = i + len;
      if (s->blk_next == (blk + 1) * DEMO_AUDIO_BLOCK)
        block_close (s);
    }
    done += len;
  }
}

static void
record_audio (DemoStream * s, GstPad * pad, GstBuffer * buf, DemoItem * it)
{
  GstCaps *caps = gst_pad_get_current_caps (pad);
  GstAudioInfo info;
  GstAudioBuffer ab;
  const gfloat *planes[DEMO_MAX_CHANNELS];
  guint c;

  if (!caps || !gst_audio_info_from_caps (&info, caps)
      || GST_AUDIO_INFO_CHANNELS (&info) > DEMO_MAX_CHANNELS
      || !gst_audio_buffer_map (&ab, &info, buf, GST_MAP_READ)) {
    gst_clear_caps (&caps);
    return;
  }
  if (s->channels == 0) {
    s->channels = GST_AUDIO_INFO_CHANNELS (&info);
    for (c = 0; c < s->channels; c++)
      s->blk_sums[c] = g_checksum_new (G_CHECKSUM_MD5);
  }
  it->count = ab.n_samples;
  if (s->role == DEMO_SENDER) {
    guint64 first = sender_index (s, pad, buf, GST_AUDIO_INFO_RATE (&info), 1);
    /* mxlfabricssink's own rule: timestamps jitter, the flow stays
     * contiguous */
    if (first != G_MAXUINT64)
      first = gst_mxl_fabrics_follow_sample_index (first, ab.n_samples,
          s->have_last, s->last_index);
    it->index = first;
    if (first != G_MAXUINT64) {
      s->have_last = TRUE;
      s->last_index = first + ab.n_samples;
    }
  } else {
    it->index = GST_BUFFER_OFFSET (buf);
  }
  for (c = 0; c < s->channels && c < (guint) GST_AUDIO_INFO_CHANNELS (&info); c++)
    planes[c] = GST_AUDIO_INFO_LAYOUT (&info) ==
        GST_AUDIO_LAYOUT_INTERLEAVED ? (const gfloat *) ab.planes[0] + c :
        (const gfloat *) ab.planes[c];
  if (it->index != G_MAXUINT64 && c == s->channels)
    blocks_feed (s, it->index, ab.n_samples, planes,
        GST_AUDIO_INFO_LAYOUT (&info) == GST_AUDIO_LAYOUT_INTERLEAVED ?
        s->channels : 1);
  gst_audio_buffer_unmap (&ab);
  gst_caps_unref (caps);
}

/* The MD5 of frame @data (@size bytes) of index @index when it is the
 * loop's frame for that index: the same memory (the sender's buffers share
 * it), or equal bytes (memcmp, at memory speed); NULL when it is not. */
static const gchar *
loop_sum (DemoStream * s, guint64 index, const guint8 * data, gsize size)
{
  GstBuffer *frame;
  GstMapInfo m;
  gboolean same;

  if (s->loop == NULL || index == G_MAXUINT64)
    return NULL;
  frame = s->loop->frames[index % s->loop->n];
  if (!gst_buffer_map (frame, &m, GST_MAP_READ))
    return NULL;
  same = m.size == size && (m.data == data || memcmp (m.data, data,
          size) == 0);
  gst_buffer_unmap (frame, &m);
  if (!same)
    return NULL;
  s->loop_matched++;
  return s->loop->sums[index % s->loop->n];
}

static void
record_video (DemoStream * s, GstPad * pad, GstBuffer * buf, DemoItem * it)
{
  GstMapInfo map;

  if (s->role == DEMO_RECEIVER) {
    it->index = GST_BUFFER_OFFSET (buf);
  } else {
    GstCaps *caps = gst_pad_get_current_caps (pad);
    GstVideoInfo info;
    guint64 index = G_MAXUINT64, tai;

    /* mxlfabricssink's rule: the stream's own phase, never backwards */
    if (caps && gst_video_info_from_caps (&info, caps)
        && buffer_tai (s, pad, buf, &tai))
      index = gst_mxl_fabrics_follow_grain_index (tai,
          GST_VIDEO_INFO_FPS_N (&info), GST_VIDEO_INFO_FPS_D (&info),
          s->have_last, s->last_index, &s->phase);
    gst_clear_caps (&caps);
    if (index != G_MAXUINT64) {
      s->have_last = TRUE;
      s->last_index = index;
    }
    it->index = index;
  }
  if (gst_buffer_map (buf, &map, GST_MAP_READ)) {
    const gchar *known = loop_sum (s, it->index, map.data, map.size);

    if (known) {
      g_strlcpy (it->sum, known, sizeof (it->sum));
    } else {
      GChecksum *c = g_checksum_new (G_CHECKSUM_MD5);
      g_checksum_update (c, map.data, map.size);
      md5_hex (c, it->sum);
      g_checksum_free (c);
    }
    gst_buffer_unmap (buf, &map);
  }
  if (s->role == DEMO_RECEIVER && s->snapshot_after && s->snapshot == NULL
      && it->tai >= s->first_tai + s->snapshot_after) {
    GstCaps *caps = gst_pad_get_current_caps (pad);
    s->snapshot = gst_sample_new (buf, caps, NULL, NULL);
    gst_clear_caps (&caps);
  }
}

static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  DemoStream *s = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  DemoItem it = { 0 };
  guint64 now = gst_mxl_fabrics_tai_now ();

  it.count = 1;
  it.bytes = gst_buffer_get_size (buf);
  it.tai = now;
  g_mutex_lock (&s->lock);
  if (s->first_tai == 0)
    s->first_tai = now;
  if (s->audio)
    record_audio (s, pad, buf, &it);
  else
    record_video (s, pad, buf, &it);
  if (s->role == DEMO_SENDER && it.index != G_MAXUINT64) {
    /* The sink renders when the clock reaches the buffer's time plus the
     * pipeline latency it was given (sync; its processing deadline), or
     * at once when it is late: sent = the later of now and that time. */
    guint64 due;
    if (buffer_tai (s, pad, buf, &due))
      it.tai = MAX (now, due + gst_base_sink_get_latency (GST_BASE_SINK
              (s->element)));
  }
  g_array_append_val (s->items, it);
  g_mutex_unlock (&s->lock);
  if (s->role == DEMO_RECEIVER) {
    /* the consuming stage: this check, and MXL_DEMO_SLOW's sleep */
    if (s->slow_ms > 0)
      g_usleep (s->slow_ms * 1000);
    if (GST_BUFFER_DURATION_IS_VALID (buf)
        && gst_mxl_fabrics_tai_now () - now > GST_BUFFER_DURATION (buf)) {
      g_mutex_lock (&s->lock);
      s->consume_slow++;
      g_mutex_unlock (&s->lock);
    }
  }
  return GST_PAD_PROBE_OK;
}

DemoStream *
demo_stream_new (const gchar * name, DemoRole role, gboolean audio,
    GstElement * element)
{
  DemoStream *s = g_new0 (DemoStream, 1);
  GstPad *pad = gst_element_get_static_pad (element,
      role == DEMO_SENDER ? "sink" : "src");

  s->name = g_strdup (name);
  s->role = role;
  s->audio = audio;
  s->element = gst_object_ref (element);
  g_mutex_init (&s->lock);
  s->items = g_array_new (FALSE, FALSE, sizeof (DemoItem));
  s->blocks = g_array_new (FALSE, FALSE, sizeof (DemoBlock));
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, s, NULL);
  gst_object_unref (pad);
  return s;
}

void
demo_stream_free (DemoStream * s)
{
  guint c;

  for (c = 0; c < s->channels; c++)
    g_checksum_free (s->blk_sums[c]);
  if (s->snapshot)
    gst_sample_unref (s->snapshot);
  g_array_unref (s->items);
  g_array_unref (s->blocks);
  gst_object_unref (s->element);
  g_mutex_clear (&s->lock);
  g_free (s->name);
  g_free (s);
}

void
demo_stream_set_loop (DemoStream * s, DemoLoop * loop)
{
  g_mutex_lock (&s->lock);
  s->loop = loop;
  g_mutex_unlock (&s->lock);
}

void
demo_stream_want_snapshot (DemoStream * s, GstClockTime delay)
{
  g_mutex_lock (&s->lock);
  s->snapshot_after = MAX (delay, 1);
  g_mutex_unlock (&s->lock);
}

gboolean
demo_stream_save_png (DemoStream * s, const gchar * path, GError ** error)
{
  GstCaps *png = gst_caps_new_empty_simple ("image/png");
  GstSample *out;
  GstMapInfo map;
  gboolean ok;

  g_mutex_lock (&s->lock);
  if (s->snapshot == NULL && s->items->len > 0)
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "no frame arrived after the snapshot delay");
  else if (s->snapshot == NULL)
    g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_FAILED,
        "no video frame arrived");
  out = s->snapshot ? gst_video_convert_sample (s->snapshot, png,
      20 * GST_SECOND, error) : NULL;
  g_mutex_unlock (&s->lock);
  gst_caps_unref (png);
  if (out == NULL)
    return FALSE;
  gst_buffer_map (gst_sample_get_buffer (out), &map, GST_MAP_READ);
  ok = g_file_set_contents (path, (const gchar *) map.data, map.size, error);
  gst_buffer_unmap (gst_sample_get_buffer (out), &map);
  gst_sample_unref (out);
  return ok;
}

static void
stats_to_json (GstElement * e, JsonBuilder * b)
{
  GstStructure *st = NULL;
  gint i;

  json_builder_set_member_name (b, "stats");
  json_builder_begin_object (b);
  g_object_get (e, "stats", &st, NULL);
  for (i = 0; st && i < gst_structure_n_fields (st); i++) {
    const gchar *f = gst_structure_nth_field_name (st, i);
    const GValue *v = gst_structure_get_value (st, f);
    if (G_VALUE_HOLDS_UINT64 (v)) {
      json_builder_set_member_name (b, f);
      json_builder_add_int_value (b, (gint64) g_value_get_uint64 (v));
    } else if (G_VALUE_HOLDS_STRING (v)) {
      json_builder_set_member_name (b, f);
      json_builder_add_string_value (b, g_value_get_string (v));
    }
  }
  if (st)
    gst_structure_free (st);
  json_builder_end_object (b);
}

void
demo_stream_to_json (DemoStream * s, JsonBuilder * b)
{
  guint i;

  g_mutex_lock (&s->lock);
  block_close (s);
  json_builder_set_member_name (b, s->name);
  json_builder_begin_object (b);
  stats_to_json (s->element, b);
  /* items: [index, count, bytes, tai, checksum] (index -1: none) */
  json_builder_set_member_name (b, "items");
  json_builder_begin_array (b);
  for (i = 0; i < s->items->len; i++) {
    DemoItem *it = &g_array_index (s->items, DemoItem, i);
    json_builder_begin_array (b);
    json_builder_add_int_value (b, it->index == G_MAXUINT64 ? -1 :
        (gint64) it->index);
    json_builder_add_int_value (b, (gint64) it->count);
    json_builder_add_int_value (b, (gint64) it->bytes);
    json_builder_add_int_value (b, (gint64) it->tai);
    json_builder_add_string_value (b, it->sum);
    json_builder_end_array (b);
  }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "blocks");
  json_builder_begin_array (b);
  for (i = 0; i < s->blocks->len; i++) {
    DemoBlock *bl = &g_array_index (s->blocks, DemoBlock, i);
    json_builder_begin_array (b);
    json_builder_add_int_value (b, (gint64) bl->block);
    json_builder_add_string_value (b, bl->sum);
    json_builder_end_array (b);
  }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "loop_matched");
  json_builder_add_int_value (b, (gint64) s->loop_matched);
  json_builder_set_member_name (b, "consume_slow");
  json_builder_add_int_value (b, (gint64) s->consume_slow);
  json_builder_end_object (b);
  g_mutex_unlock (&s->lock);
}
