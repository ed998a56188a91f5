/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The stats of both elements (mxlfabricsobject.h, "Stats structure"): the
 * tables that name every counter, and the structure built from them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mxlfabricsobject.h"

#include <stdlib.h>
#include <string.h>

#include <gst/base/gstbasesink.h>
#include <mxl/fabrics-ext.h>

/* The one list of every stat (docs/bus-and-stats.md's tables are checked
 * against it by tests/gst/test-object.c): the element's own counters, and
 * the library's ext stats of an initiator (sink) and a target (src), and
 * the counters of each of the sink's targets. */
#define COUNTER(name, field) \
  { name, G_STRUCT_OFFSET (GstMxlFabricsCounters, field) }
static const GstMxlFabricsStatField element_fields[] = {
  COUNTER ("buffers", buffers),
  COUNTER ("grains", grains),
  COUNTER ("bytes", bytes),
  COUNTER ("dropped", dropped),
  COUNTER ("dropped-no-target", dropped_no_target),
  COUNTER ("dropped-late", dropped_late),
  COUNTER ("dropped-torn", dropped_torn),
  COUNTER ("dropped-missing", dropped_missing),
  COUNTER ("dropped-skipped", dropped_skipped),
  COUNTER ("dropped-early", dropped_early),
  COUNTER ("dropped-in-flight", dropped_in_flight),
  COUNTER ("dropped-no-credit", dropped_no_credit),
  COUNTER ("left-out-late", left_out_late),
  COUNTER ("skipped-at-start", skipped_at_start),
  COUNTER ("lapped-at-start", lapped_at_start),
  COUNTER ("grains-lent", grains_lent),
  COUNTER ("credit-releases", credit_releases),
  COUNTER ("credit-release-failures", credit_release_failures),
  COUNTER ("credits-held", credits_held),
  COUNTER ("anc-packets-dropped", anc_packets_dropped),
  COUNTER ("invalid", invalid),
  COUNTER ("discont", discont),
  COUNTER ("reconnects", reconnects),
  COUNTER ("timeouts", timeouts),
  COUNTER ("grains-per-second", grains_per_second),
  COUNTER ("bytes-per-second", bytes_per_second),
  COUNTER ("latency-last", latency_last),
  COUNTER ("latency-median", latency_median),
};

#define INITIATOR(name, field) \
  { name, G_STRUCT_OFFSET (mxlFabricsExtInitiatorStats, field) }
static const GstMxlFabricsStatField initiator_fields[] = {
  INITIATOR ("transfers-queued", transfersQueued),
  INITIATOR ("transfers-completed", transfersCompleted),
  INITIATOR ("transfers-dropped", transfersDropped),
  INITIATOR ("transfers-failed", transfersFailed),
  INITIATOR ("transfers-not-connected", transfersNotConnected),
  INITIATOR ("writes-posted", writesPosted),
  INITIATOR ("write-errors", writeErrors),
  INITIATOR ("retries", retries),
  INITIATOR ("bytes-posted", bytesPosted),
  INITIATOR ("connections-lost", connectionsLost),
};

#define TARGET(name, field) \
  { name, G_STRUCT_OFFSET (mxlFabricsExtTargetStats, field) }
static const GstMxlFabricsStatField target_fields[] = {
  TARGET ("grains-received", grainsReceived),
  TARGET ("bad-immediate-data", badImmediateData),
  TARGET ("bad-grain-headers", badGrainHeaders),
  TARGET ("cq-overruns", cqOverruns),
  TARGET ("completions-superseded", completionsSuperseded),
  TARGET ("completion-errors", completionErrors),
  TARGET ("connections-accepted", connectionsAccepted),
  TARGET ("disconnections", disconnections),
  TARGET ("initiators-refused", initiatorsRefused),
  TARGET ("commit-failures", commitFailures),
  TARGET ("batches-received", batchesReceived),
  TARGET ("batches-lost", batchesLost),
  TARGET ("bad-bounce-entries", badBounceEntries),
  TARGET ("entries-out-of-sequence", entriesOutOfSequence),
  TARGET ("samples-skipped", samplesSkipped),
};

#define SINK_TARGET(name, field) \
  { name, G_STRUCT_OFFSET (GstMxlFabricsTargetCounters, field) }
static const GstMxlFabricsStatField sink_target_fields[] = {
  SINK_TARGET ("grains", grains),
  SINK_TARGET ("bytes", bytes),
  SINK_TARGET ("dropped", dropped),
  SINK_TARGET ("dropped-no-credit", dropped_no_credit),
  SINK_TARGET ("reconnects", reconnects),
};

#define BASESINK(name, field) \
  { name, G_STRUCT_OFFSET (GstMxlFabricsBaseSinkCounters, field) }
static const GstMxlFabricsStatField basesink_fields[] = {
  BASESINK ("rendered", rendered),
  BASESINK ("basesink-dropped", dropped),
};

const GstMxlFabricsStatField *
gst_mxl_fabrics_stat_fields (GstMxlFabricsStatTable table, guint * n)
{
  switch (table) {
    case GST_MXL_FABRICS_STATS_INITIATOR:
      *n = G_N_ELEMENTS (initiator_fields);
      return initiator_fields;
    case GST_MXL_FABRICS_STATS_TARGET:
      *n = G_N_ELEMENTS (target_fields);
      return target_fields;
    case GST_MXL_FABRICS_STATS_SINK_TARGET:
      *n = G_N_ELEMENTS (sink_target_fields);
      return sink_target_fields;
    case GST_MXL_FABRICS_STATS_BASESINK:
      *n = G_N_ELEMENTS (basesink_fields);
      return basesink_fields;
    default:
      *n = G_N_ELEMENTS (element_fields);
      return element_fields;
  }
}

void
gst_mxl_fabrics_stats_set (GstStructure * s, GstMxlFabricsStatTable table,
    gconstpointer base)
{
  const GstMxlFabricsStatField *fields;
  guint n, i;

  fields = gst_mxl_fabrics_stat_fields (table, &n);
  for (i = 0; i < n; i++) {
    guint64 v;

    /* the library's structs are not packed: every field is aligned */
    memcpy (&v, (const guint8 *) base + fields[i].offset, sizeof v);
    gst_structure_set (s, fields[i].name, G_TYPE_UINT64, v, NULL);
  }
}

void
gst_mxl_fabrics_object_set_engine_stats (GstMxlFabricsObject * obj,
    GstMxlFabricsStatTable table, gconstpointer engine_stats)
{
  GstStructure *stats = gst_structure_new_empty ("engine");

  gst_mxl_fabrics_stats_set (stats, table, engine_stats);
  GST_OBJECT_LOCK (obj->element);
  if (obj->engine_stats)
    gst_structure_free (obj->engine_stats);
  obj->engine_stats = stats;
  GST_OBJECT_UNLOCK (obj->element);
}

GstStructure *
gst_mxl_fabrics_object_build_stats (GstMxlFabricsObject * obj)
{
  GstStructure *s, *basesink = NULL;
  GValue targets = G_VALUE_INIT;
  guint i;

  gst_value_array_init (&targets, 0);
  if (obj->targets_stats)
    obj->targets_stats (obj->targets_stats_data, &targets);
  /* GstBaseSink's own, read under the same object lock: before ours */
  if (GST_IS_BASE_SINK (obj->element))
    basesink = gst_base_sink_get_stats (GST_BASE_SINK (obj->element));
  GST_OBJECT_LOCK (obj->element);
  s = gst_structure_new (GST_MXL_FABRICS_STATS_NAME,
      "connection-state", GST_TYPE_MXL_FABRICS_CONNECTION_STATE, obj->state,
      NULL);
  gst_mxl_fabrics_stats_set (s, GST_MXL_FABRICS_STATS_ELEMENT,
      &obj->counters);
  gst_structure_set (s, "last-error", G_TYPE_STRING,
      obj->last_error ? obj->last_error : "", NULL);
  if (obj->engine_stats) {
    guint n = gst_structure_n_fields (obj->engine_stats);
    for (i = 0; i < n; i++) {
      const gchar *name = gst_structure_nth_field_name (obj->engine_stats, i);
      gst_structure_set_value (s, name,
          gst_structure_get_value (obj->engine_stats, name));
    }
  }
  GST_OBJECT_UNLOCK (obj->element);
  if (basesink) {
    GstMxlFabricsBaseSinkCounters b = { 0, 0 };
    gdouble rate = 0.0;

    gst_structure_get_uint64 (basesink, "rendered", &b.rendered);
    gst_structure_get_uint64 (basesink, "dropped", &b.dropped);
    gst_structure_get_double (basesink, "average-rate", &rate);
    gst_mxl_fabrics_stats_set (s, GST_MXL_FABRICS_STATS_BASESINK, &b);
    gst_structure_set (s, GST_MXL_FABRICS_STATS_BASESINK_AVERAGE_RATE,
        G_TYPE_DOUBLE, rate, NULL);
    gst_structure_free (basesink);
  }
  gst_structure_take_value (s, "targets", &targets);
  return s;
}

/* ---- the stats timer (mxlfabricsobject.h, change_state) ---- */

static gboolean stats_tick (GstClock * clock, GstClockTime t, GstClockID id,
    gpointer data);

/* The destroy notify of a wait: it held the element (and so @data, the
 * element's object). */
static void
timer_release (gpointer data)
{
  GstMxlFabricsObject *obj = data;

  gst_object_unref (obj->element);
}

/* Arms the timer's next wait at @at (system clock time); timer_lock held. */
static void
timer_arm (GstMxlFabricsObject * obj, GstClock * clock, GstClockTime at)
{
  obj->timer_id = gst_clock_new_single_shot_id (clock, at);
  /* each wait holds the element, so that a callback already under way
   * when the timer stops never outlives it */
  gst_object_ref (obj->element);
  gst_clock_id_wait_async (obj->timer_id, stats_tick, obj, timer_release);
}

/* timer_lock held. */
static void
timer_disarm (GstMxlFabricsObject * obj)
{
  if (obj->timer_id == NULL)
    return;
  gst_clock_id_unschedule (obj->timer_id);
  gst_clock_id_unref (obj->timer_id);
  obj->timer_id = NULL;
}

/* The period of the timer: stats-interval, or a rate window when 0. */
static GstClockTime
timer_period (GstMxlFabricsObject * obj, guint * interval)
{
  GST_OBJECT_LOCK (obj->element);
  *interval = obj->stats_interval;
  GST_OBJECT_UNLOCK (obj->element);
  return *interval > 0 ? *interval * GST_MSECOND :
      GST_MXL_FABRICS_RATE_WINDOW_US * GST_USECOND;
}

/* object lock held: the counters' growth since @since_us (counters
 * @grains, @bytes then) up to @now, per second (rounded), as the rate. */
static void
set_rate (GstMxlFabricsObject * obj, gint64 now, gint64 since_us,
    guint64 grains, guint64 bytes)
{
  GstMxlFabricsCounters *c = &obj->counters;

  c->grains_per_second = gst_util_uint64_scale_round (c->grains - grains,
      G_USEC_PER_SEC, now - since_us);
  c->bytes_per_second = gst_util_uint64_scale_round (c->bytes - bytes,
      G_USEC_PER_SEC, now - since_us);
}

/* The rate at @now. A window at least GST_MXL_FABRICS_RATE_WINDOW_MIN_US
 * long closes: the rate is the counters' growth over it, and the next one
 * opens. Until the first window closed, the rate is that over the open one
 * (a stream, or a burst, shorter than a window shows its rate, not 0).
 * @final (the stream ended: the last stats message): a shorter open window
 * counts together with the one closed before it (about a window up to the
 * end, not the rate of a second ago). */
static void
update_rate (GstMxlFabricsObject * obj, gint64 now, gboolean final)
{
  GstMxlFabricsCounters *c = &obj->counters;
  gint64 elapsed;

  GST_OBJECT_LOCK (obj->element);
  elapsed = now - obj->rate_since_us;
  if (obj->rate_since_us == 0 || c->grains < obj->rate_grains
      || c->bytes < obj->rate_bytes) {
    /* no window yet, or the counters were reset */
    obj->rate_since_us = now;
    obj->rate_grains = c->grains;
    obj->rate_bytes = c->bytes;
    obj->rate_prev_since_us = 0;
  } else if (elapsed >= GST_MXL_FABRICS_RATE_WINDOW_MIN_US) {
    set_rate (obj, now, obj->rate_since_us, obj->rate_grains, obj->rate_bytes);
    obj->rate_prev_since_us = obj->rate_since_us;
    obj->rate_prev_grains = obj->rate_grains;
    obj->rate_prev_bytes = obj->rate_bytes;
    obj->rate_since_us = now;
    obj->rate_grains = c->grains;
    obj->rate_bytes = c->bytes;
  } else if (final && obj->rate_prev_since_us != 0) {
    set_rate (obj, now, obj->rate_prev_since_us, obj->rate_prev_grains,
        obj->rate_prev_bytes);
  } else if (obj->rate_prev_since_us == 0 && elapsed > 0) {
    set_rate (obj, now, obj->rate_since_us, obj->rate_grains, obj->rate_bytes);
  }
  GST_OBJECT_UNLOCK (obj->element);
}

/* Posts the stats structure as an element message. */
static void
post_stats (GstMxlFabricsObject * obj)
{
  gst_element_post_message (obj->element,
      gst_message_new_element (GST_OBJECT (obj->element),
          gst_mxl_fabrics_object_build_stats (obj)));
}

/* The system clock's callback: on its thread, without its lock. */
static gboolean
stats_tick (GstClock * clock, GstClockTime t, GstClockID id, gpointer data)
{
  GstMxlFabricsObject *obj = data;
  GstClockTime period, now;
  guint interval;

  g_rec_mutex_lock (&obj->timer_lock);
  if (obj->timer_id != id) {
    g_rec_mutex_unlock (&obj->timer_lock);
    return TRUE;                /* stopped, or re-armed meanwhile */
  }
  update_rate (obj, g_get_monotonic_time (), FALSE);
  period = timer_period (obj, &interval);
  if (interval > 0)
    post_stats (obj);
  /* a sync handler may have stopped it (a state change on this thread) */
  if (obj->timer_id == id) {
    gst_clock_id_unref (obj->timer_id);
    now = gst_clock_get_time (clock);
    /* the next one a period on, or a period from now when late (no burst
     * of messages after a stall) */
    timer_arm (obj, clock, t + period > now ? t + period : now + period);
  }
  g_rec_mutex_unlock (&obj->timer_lock);
  return TRUE;
}

static void
timer_start (GstMxlFabricsObject * obj)
{
  GstClock *clock = gst_system_clock_obtain ();
  guint interval;
  GstClockTime period = timer_period (obj, &interval);

  g_rec_mutex_lock (&obj->timer_lock);
  timer_disarm (obj);
  timer_arm (obj, clock, gst_clock_get_time (clock) + period);
  g_rec_mutex_unlock (&obj->timer_lock);
  gst_object_unref (clock);
}

static void
timer_stop (GstMxlFabricsObject * obj)
{
  g_rec_mutex_lock (&obj->timer_lock);
  timer_disarm (obj);
  g_rec_mutex_unlock (&obj->timer_lock);
}

GParamSpec *
gst_mxl_fabrics_stats_interval_pspec (void)
{
  return g_param_spec_uint ("stats-interval", "Stats interval",
      "Post the stats structure (the `stats` property, structure "
      GST_MXL_FABRICS_STATS_NAME ") as an element message on the bus every "
      "this many ms while PAUSED or PLAYING (0 = never)", 0, G_MAXUINT, 0,
      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
}

void
gst_mxl_fabrics_object_set_stats_interval (GstMxlFabricsObject * obj,
    guint interval_ms)
{
  gboolean armed;

  GST_OBJECT_LOCK (obj->element);
  obj->stats_interval = interval_ms;
  GST_OBJECT_UNLOCK (obj->element);
  g_rec_mutex_lock (&obj->timer_lock);
  armed = obj->timer_id != NULL;
  g_rec_mutex_unlock (&obj->timer_lock);
  if (armed)
    timer_start (obj);
}

void
gst_mxl_fabrics_object_post_final_stats (GstMxlFabricsObject * obj)
{
  update_rate (obj, g_get_monotonic_time (), TRUE);
  if (gst_mxl_fabrics_object_get_stats_interval (obj) > 0)
    post_stats (obj);
}

guint
gst_mxl_fabrics_object_get_stats_interval (GstMxlFabricsObject * obj)
{
  guint v;

  GST_OBJECT_LOCK (obj->element);
  v = obj->stats_interval;
  GST_OBJECT_UNLOCK (obj->element);
  return v;
}

GstStateChangeReturn
gst_mxl_fabrics_object_change_state (GstMxlFabricsObject * obj,
    GstElementClass * parent_class, GstStateChange transition)
{
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    timer_stop (obj);
  ret = parent_class->change_state (obj->element, transition);
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED
      && ret != GST_STATE_CHANGE_FAILURE) {
    GST_OBJECT_LOCK (obj->element);
    obj->rate_since_us = g_get_monotonic_time ();
    obj->rate_grains = obj->counters.grains;
    obj->rate_bytes = obj->counters.bytes;
    obj->rate_prev_since_us = 0;
    GST_OBJECT_UNLOCK (obj->element);
    timer_start (obj);
  }
  return ret;
}

int
gst_mxl_fabrics_cmp_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return (x > y) - (x < y);
}

void
gst_mxl_fabrics_object_record_latency (GstMxlFabricsObject * obj,
    GstClockTime latency)
{
  guint64 sorted[GST_MXL_FABRICS_LATENCY_KEPT];
  guint n;

  GST_OBJECT_LOCK (obj->element);
  obj->latency_kept[obj->latency_next] = latency;
  obj->latency_next = (obj->latency_next + 1) % GST_MXL_FABRICS_LATENCY_KEPT;
  obj->n_latency = MIN (obj->n_latency + 1, GST_MXL_FABRICS_LATENCY_KEPT);
  n = obj->n_latency;
  memcpy (sorted, obj->latency_kept, sizeof sorted);
  qsort (sorted, n, sizeof sorted[0], gst_mxl_fabrics_cmp_u64);
  obj->counters.latency_last = latency;
  /* the lower middle one of an even count */
  obj->counters.latency_median = sorted[(n - 1) / 2];
  GST_OBJECT_UNLOCK (obj->element);
}
