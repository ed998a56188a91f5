/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Index <-> TAI <-> PTS conversions and the pipeline-wide clock offset
 * shared through a GstContext; see timing.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "timing.h"

#include <sys/timex.h>

#include <mxl/time.h>

#define NS_PER_S G_GUINT64_CONSTANT (1000000000)

G_STATIC_ASSERT (MXL_UNDEFINED_INDEX == GST_CLOCK_TIME_NONE);

/* Serialises gst_mxl_fabrics_timing_ensure() across all elements of the
 * process, so that two streaming threads never create two contexts. */
static GMutex ensure_lock;

/* The rules are the library's (src/flow/time.c); its MXL_UNDEFINED_INDEX
 * (UINT64_MAX) is both GST_CLOCK_TIME_NONE and our invalid index. */
guint64
gst_mxl_fabrics_index_to_tai (guint64 index, gint num, gint den)
{
  const mxlRational rate = { num, den };

  return mxlIndexToTimestamp (&rate, index);
}

guint64
gst_mxl_fabrics_tai_to_index (guint64 tai, gint num, gint den)
{
  const mxlRational rate = { num, den };

  return mxlTimestampToIndex (&rate, tai);
}

guint64
gst_mxl_fabrics_tai_now (void)
{
  return mxlGetTime ();
}

static gboolean
clock_is_uncalibrated_system_clock (GstClock * clock)
{
  GstClockTime internal, external, num, den;

  if (!GST_IS_SYSTEM_CLOCK (clock))
    return FALSE;
  gst_clock_get_calibration (clock, &internal, &external, &num, &den);
  return internal == external && num == den;
}

gint64
gst_mxl_fabrics_timing_compute_offset (GstClock * clock)
{
  gint64 best = 0;
  guint64 best_width = G_MAXUINT64;
  gint i;

  g_return_val_if_fail (GST_IS_CLOCK (clock), 0);

  if (clock_is_uncalibrated_system_clock (clock)) {
    GstClockType type;

    g_object_get (clock, "clock-type", &type, NULL);
    if (type == GST_CLOCK_TYPE_TAI)
      return 0;
    if (type == GST_CLOCK_TYPE_REALTIME) {
      struct timex tx = { 0 };
      /* modes = 0: read only, allowed without privileges. */
      if (adjtimex (&tx) >= 0)
        return (gint64) tx.tai * (gint64) NS_PER_S;
    }
  }

  /* Sampled: TAI read, clock read, TAI read; keep the tightest bracket. */
  for (i = 0; i < 5; i++) {
    guint64 t0 = gst_mxl_fabrics_tai_now ();
    GstClockTime c = gst_clock_get_time (clock);
    guint64 t1 = gst_mxl_fabrics_tai_now ();

    if (t1 >= t0 && t1 - t0 < best_width) {
      best_width = t1 - t0;
      best = (gint64) (t0 + (t1 - t0) / 2) - (gint64) c;
    }
  }
  return best;
}

GstContext *
gst_mxl_fabrics_timing_context_new (GstClock * clock, gint64 offset)
{
  GstContext *context =
      gst_context_new (GST_MXL_FABRICS_TIMING_CONTEXT_TYPE, FALSE);
  GstStructure *s = gst_context_writable_structure (context);

  gst_structure_set (s, "tai-offset", G_TYPE_INT64, offset,
      "clock", GST_TYPE_CLOCK, clock, NULL);
  return context;
}

gboolean
gst_mxl_fabrics_timing_context_parse (GstContext * context, GstClock ** clock,
    gint64 * offset)
{
  const GstStructure *s;

  if (context == NULL || g_strcmp0 (gst_context_get_context_type (context),
          GST_MXL_FABRICS_TIMING_CONTEXT_TYPE) != 0)
    return FALSE;
  s = gst_context_get_structure (context);
  if (!gst_structure_get_int64 (s, "tai-offset", offset))
    return FALSE;
  if (clock) {
    *clock = NULL;
    if (gst_structure_has_field_typed (s, "clock", GST_TYPE_CLOCK))
      gst_structure_get (s, "clock", GST_TYPE_CLOCK, clock, NULL);
  }
  return TRUE;
}

void
gst_mxl_fabrics_timing_init (GstMxlFabricsTiming * timing)
{
  g_mutex_init (&timing->lock);
  timing->context = NULL;
  timing->clock = NULL;
  timing->offset = 0;
  timing->valid = FALSE;
}

void
gst_mxl_fabrics_timing_clear (GstMxlFabricsTiming * timing)
{
  g_clear_pointer (&timing->context, gst_context_unref);
  gst_clear_object (&timing->clock);
  timing->valid = FALSE;
  g_mutex_clear (&timing->lock);
}

void
gst_mxl_fabrics_timing_set_context (GstMxlFabricsTiming * timing,
    GstContext * context)
{
  GstClock *clock = NULL;
  gint64 offset;

  if (!gst_mxl_fabrics_timing_context_parse (context, &clock, &offset))
    return;
  g_mutex_lock (&timing->lock);
  gst_context_replace (&timing->context, context);
  gst_object_replace ((GstObject **) & timing->clock, (GstObject *) clock);
  timing->offset = offset;
  timing->valid = TRUE;
  g_mutex_unlock (&timing->lock);
  gst_clear_object (&clock);
}

gboolean
gst_mxl_fabrics_timing_handle_query (GstMxlFabricsTiming * timing,
    GstQuery * query)
{
  const gchar *type;
  gboolean answered = FALSE;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT
      || !gst_query_parse_context_type (query, &type)
      || g_strcmp0 (type, GST_MXL_FABRICS_TIMING_CONTEXT_TYPE) != 0)
    return FALSE;
  g_mutex_lock (&timing->lock);
  if (timing->context) {
    gst_query_set_context (query, timing->context);
    answered = TRUE;
  }
  g_mutex_unlock (&timing->lock);
  return answered;
}

static gboolean
timing_fits (GstMxlFabricsTiming * timing, GstClock * clock, gint64 * offset)
{
  gboolean fits;

  g_mutex_lock (&timing->lock);
  fits = timing->valid && timing->clock == clock;
  if (fits && offset)
    *offset = timing->offset;
  g_mutex_unlock (&timing->lock);
  return fits;
}

/* Asks the peers of every pad of @direction; sets the answer on @element. */
static gboolean
query_peers (GstElement * element, GstPadDirection direction)
{
  GstIterator *it = direction == GST_PAD_SRC ?
      gst_element_iterate_src_pads (element) :
      gst_element_iterate_sink_pads (element);
  GValue item = G_VALUE_INIT;
  gboolean found = FALSE, done = FALSE;

  while (!done && !found) {
    switch (gst_iterator_next (it, &item)) {
      case GST_ITERATOR_OK:{
        GstPad *pad = g_value_get_object (&item);
        GstQuery *query =
            gst_query_new_context (GST_MXL_FABRICS_TIMING_CONTEXT_TYPE);
        GstContext *context = NULL;

        if (gst_pad_peer_query (pad, query)) {
          gst_query_parse_context (query, &context);
          if (context) {
            gst_element_set_context (element, context);
            found = TRUE;
          }
        }
        gst_query_unref (query);
        g_value_reset (&item);
        break;
      }
      case GST_ITERATOR_RESYNC:
        gst_iterator_resync (it);
        break;
      default:
        done = TRUE;
        break;
    }
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  return found;
}

gboolean
gst_mxl_fabrics_timing_ensure (GstElement * element,
    GstMxlFabricsTiming * timing, gint64 * offset)
{
  GstClock *clock;
  gint64 d = 0;

  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);

  clock = gst_element_get_clock (element);
  if (clock == NULL)
    clock = gst_system_clock_obtain ();

  g_mutex_lock (&ensure_lock);
  if (!timing_fits (timing, clock, &d)) {
    /* 1. peers, 2. the bin or the application (NEED_CONTEXT is handled
     * synchronously by GstBin, which calls our set_context). */
    if (!(query_peers (element, GST_PAD_SRC) && timing_fits (timing, clock,
                &d)) && !(query_peers (element, GST_PAD_SINK)
            && timing_fits (timing, clock, &d))) {
      gst_element_post_message (element,
          gst_message_new_need_context (GST_OBJECT (element),
              GST_MXL_FABRICS_TIMING_CONTEXT_TYPE));
    }
  }
  if (!timing_fits (timing, clock, &d)) {
    /* 3. nobody has one for this clock: we are the first. */
    GstContext *context;

    d = gst_mxl_fabrics_timing_compute_offset (clock);
    context = gst_mxl_fabrics_timing_context_new (clock, d);
    GST_INFO_OBJECT (element, "new timing context: TAI - %s = %"
        G_GINT64_FORMAT " ns", GST_OBJECT_NAME (clock), d);
    gst_element_set_context (element, context);
    /* set_context of an element that does not chain to us: adopt directly. */
    if (!timing_fits (timing, clock, NULL))
      gst_mxl_fabrics_timing_set_context (timing, context);
    gst_element_post_message (element,
        gst_message_new_have_context (GST_OBJECT (element), context));
  }
  g_mutex_unlock (&ensure_lock);

  gst_object_unref (clock);
  if (offset)
    *offset = d;
  return TRUE;
}

gboolean
gst_mxl_fabrics_timing_index_to_pts (guint64 index, gint num, gint den,
    gint64 offset, GstClockTime base_time, GstClockTime * pts)
{
  guint64 tai = gst_mxl_fabrics_index_to_tai (index, num, den);
  __int128 t;

  if (tai == GST_CLOCK_TIME_NONE || !GST_CLOCK_TIME_IS_VALID (base_time))
    return FALSE;
  t = (__int128) tai - offset - (__int128) base_time;
  if (t < 0 || t > (__int128) G_MAXINT64)
    return FALSE;
  *pts = (GstClockTime) t;
  return TRUE;
}

gboolean
gst_mxl_fabrics_timing_running_time_to_tai (GstClockTime running_time,
    gint64 offset, GstClockTime base_time, guint64 * tai)
{
  __int128 t;

  if (!GST_CLOCK_TIME_IS_VALID (running_time)
      || !GST_CLOCK_TIME_IS_VALID (base_time))
    return FALSE;
  t = (__int128) running_time + (__int128) base_time + offset;
  if (t < 0 || t > (__int128) G_MAXUINT64)
    return FALSE;
  *tai = (guint64) t;
  return TRUE;
}

guint64
gst_mxl_fabrics_timing_pts_to_index (GstClockTime running_time, gint num,
    gint den, gint64 offset, GstClockTime base_time)
{
  guint64 tai;

  if (!gst_mxl_fabrics_timing_running_time_to_tai (running_time, offset,
          base_time, &tai))
    return G_MAXUINT64;
  return gst_mxl_fabrics_tai_to_index (tai, num, den);
}

/* Records deviation @d (ns from the origin time of the index just given) in
 * the window @phase: both bounds close in by P/512 per buffer, then each
 * takes a deviation beyond it, and the window stays under a period wide,
 * so a window left by a clock that drifts follows it (up to P/512 per
 * period, 0.2%). */
static void
phase_record (GstMxlFabricsIndexPhase * phase, __int128 d, __int128 period)
{
  __int128 lo = phase->lo, hi = phase->hi, step = MAX (period / 512, 1);

  d = CLAMP (d, -2 * period, 2 * period);
  if (hi - lo > 2 * step) {
    lo += step;
    hi -= step;
  }
  if (d < lo) {
    lo = d;
    hi = MIN (hi, lo + period - 1);
  }
  if (d > hi) {
    hi = d;
    lo = MAX (lo, hi - period + 1);
  }
  phase->lo = (gint64) lo;
  phase->hi = (gint64) hi;
  /* the recent top: falls by P/64 per buffer, so a rare late one soon
   * stops hiding the lateness of the next */
  phase->top = (gint64) CLAMP (MAX (phase->top - period / 64, d), lo, hi);
}

/* Late buffers in a row, and periods of lateness, that
 * gst_mxl_fabrics_follow_grain_index() gives their own index. */
guint64
gst_mxl_fabrics_follow_sample_index (guint64 first, gsize n_samples,
    gboolean have_last, guint64 last)
{
  guint64 distance = first > last ? first - last : last - first;

  if (have_last && first != last && distance < MAX (n_samples / 2, 1))
    return last;
  return first;
}

#define FOLLOW_LATE_MAX 4

guint64
gst_mxl_fabrics_follow_grain_index (guint64 tai, gint num, gint den,
    gboolean have_last, guint64 last, GstMxlFabricsIndexPhase * phase)
{
  return gst_mxl_fabrics_follow_grain_index_full (tai, num, den, have_last,
      last, FALSE, phase);
}

guint64
gst_mxl_fabrics_follow_grain_index_full (guint64 tai, gint num, gint den,
    gboolean have_last, guint64 last, gboolean next_frame,
    GstMxlFabricsIndexPhase * phase)
{
  __int128 period, r, d, mid;
  guint64 index, ts;

  if (num <= 0 || den <= 0)
    return G_MAXUINT64;
  /* P rounded to ns; 1 ns more or less per period does not move a rounding */
  period = MAX (gst_util_uint64_scale_round (GST_SECOND, den, num), 1);
  if (have_last && last < G_MAXUINT64 - 1
      && (ts = gst_mxl_fabrics_index_to_tai (last + 1, num, den))
      != GST_CLOCK_TIME_NONE) {
    mid = ((__int128) phase->lo + phase->hi) / 2;
    d = (__int128) tai - ts;
    r = d - phase->lo;
    if (r < period || mid >= -period) {
      /* consecutive: less than a period after the earliest recent time (so
       * both may be jitter of under P/2), or early; else a gap of k
       * indices in the sender's own phase */
      __int128 k = MAX (r, 0) / period;   /* early: 0 */
      gboolean after_late = phase->late > 0;

      if (k >= 1 && k <= FOLLOW_LATE_MAX && phase->late < FOLLOW_LATE_MAX
          && (next_frame
              || d - k * period > (__int128) phase->top + period / 16)) {
        /* not in the stream's phase after k left out, or the source's
         * next frame: a late buffer, at its own index; the window stays,
         * so the next takes its own */
        phase->late++;
        return last + 1;
      }
      phase->late = 0;
      if (k >= (__int128) (G_MAXUINT64 - 2 - last))
        return G_MAXUINT64 - 1;
      index = last + 1 + (guint64) k;
      if (k == 0 && d <= (__int128) phase->hi - period)
        /* a period early: after an index given ahead of its time (a late
         * buffer taken for a gap); the stream's phase has not moved */
        return index;
      if (k == 0 && after_late)
        /* pushed right behind a late buffer (a sender catching up after a
         * stall): late by what is left of that stall, not jitter; taken
         * into the window it would raise the recent top and make the next
         * stall look like a gap */
        return index;
      phase_record (phase, d - k * period, period);
      if (((__int128) phase->lo + phase->hi) / 2 >= period) {
        /* a slow sender: its window reached the next slot */
        phase->lo -= (gint64) period;
        phase->hi -= (gint64) period;
        phase->top -= (gint64) period;
        index++;
      }
      return index;
    }
    /* a fast sender ran ahead of its times: re-anchor after its gap */
  }
  index = gst_mxl_fabrics_tai_to_index (tai, num, den);
  if (have_last && index <= last && last < G_MAXUINT64 - 1)
    index = last + 1;
  ts = gst_mxl_fabrics_index_to_tai (index, num, den);
  r = ts == GST_CLOCK_TIME_NONE ? 0 : (__int128) tai - ts;
  phase->lo = phase->hi = phase->top = (gint64) CLAMP (r, -period, period);
  phase->late = 0;
  return index;
}

void
gst_mxl_fabrics_timing_add_reference_meta (GstBuffer * buffer, guint64 tai,
    GstClockTime duration)
{
  static GstStaticCaps caps =
      GST_STATIC_CAPS (GST_MXL_FABRICS_TAI_REFERENCE_CAPS);

  GstCaps *ref = gst_static_caps_get (&caps);

  gst_buffer_add_reference_timestamp_meta (buffer, ref, tai, duration);
  gst_caps_unref (ref);
}
