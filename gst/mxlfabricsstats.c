/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The stats of both elements (mxlfabricsobject.h, "Stats structure"): the
 * tables that name every counter, and the structure built from them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mxlfabricsobject.h"

#include <string.h>

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
  COUNTER ("left-out-late", left_out_late),
  COUNTER ("skipped-at-start", skipped_at_start),
  COUNTER ("grains-lent", grains_lent),
  COUNTER ("anc-packets-dropped", anc_packets_dropped),
  COUNTER ("invalid", invalid),
  COUNTER ("discont", discont),
  COUNTER ("reconnects", reconnects),
  COUNTER ("timeouts", timeouts),
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
  SINK_TARGET ("reconnects", reconnects),
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
  GstStructure *s;
  GValue targets = G_VALUE_INIT;
  guint i;

  gst_value_array_init (&targets, 0);
  if (obj->targets_stats)
    obj->targets_stats (obj->targets_stats_data, &targets);
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
  gst_structure_take_value (s, "targets", &targets);
  return s;
}
