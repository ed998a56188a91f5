/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The stats tables of gst/mxlfabricsstats.c: they build the stats
 * structure of both elements, and docs/bus-and-stats.md names exactly their
 * fields (a stat added in one place and not the other fails here). The
 * sink's wait for a ring slot (sinkwrite.h): woken by a signal from
 * another thread and by unlock, a signal before the sleep not lost. */
#include <string.h>

#include <gst/gst.h>
#include <mxl/fabrics-ext.h>

#include "mxlfabricsobject.h"
#include "mxlfabricssink.h"
#include "mxlfabricssrc.h"

static gchar *
read_doc (void)
{
  gchar *text = NULL;
  GError *error = NULL;

  g_file_get_contents (BUS_AND_STATS_MD, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

/* The section of @doc from the line starting with @from to the next line
 * starting with @to (or the end). */
static gchar *
section (const gchar * doc, const gchar * from, const gchar * to)
{
  const gchar *a = strstr (doc, from), *b;

  g_assert_nonnull (a);
  b = to ? strstr (a + strlen (from), to) : NULL;
  return b ? g_strndup (a, b - a) : g_strdup (a);
}

/* Names in the first column of the table rows "| `name` | ..." of @text. */
static GHashTable *
table_names (const gchar * text)
{
  GHashTable *names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  gchar **lines = g_strsplit (text, "\n", -1);
  guint i;

  for (i = 0; lines[i]; i++) {
    const gchar *l = lines[i], *end;

    if (!g_str_has_prefix (l, "| `"))
      continue;
    end = strchr (l + 3, '`');
    g_assert_nonnull (end);
    g_hash_table_add (names, g_strndup (l + 3, end - (l + 3)));
  }
  g_strfreev (lines);
  return names;
}

/* Every `word` of @text. */
static GHashTable *
quoted_names (const gchar * text)
{
  GHashTable *names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  const gchar *p = text;

  while ((p = strchr (p, '`')) != NULL) {
    const gchar *end = strchr (p + 1, '`');

    g_assert_nonnull (end);
    g_hash_table_add (names, g_strndup (p + 1, end - p - 1));
    p = end + 1;
  }
  return names;
}

static void
test_stats_doc_table (void)
{
  gchar *doc = read_doc ();
  gchar *part = section (doc, "## The `stats` property", "Engine counters");
  GHashTable *names = table_names (part);
  const GstMxlFabricsStatField *f;
  guint n, i;

  f = gst_mxl_fabrics_stat_fields (GST_MXL_FABRICS_STATS_ELEMENT, &n);
  g_assert_cmpuint (n, ==, 28);
  for (i = 0; i < n; i++) {
    if (!g_hash_table_remove (names, f[i].name))
      g_error ("stat %s is not in docs/bus-and-stats.md's table", f[i].name);
  }
  /* GstBaseSink's counters, kept in the sink's */
  f = gst_mxl_fabrics_stat_fields (GST_MXL_FABRICS_STATS_BASESINK, &n);
  g_assert_cmpuint (n, ==, 2);
  for (i = 0; i < n; i++) {
    if (!g_hash_table_remove (names, f[i].name))
      g_error ("stat %s is not in docs/bus-and-stats.md's table", f[i].name);
  }
  /* the fields that are no counters */
  g_assert_true (g_hash_table_remove (names, "last-error"));
  g_assert_true (g_hash_table_remove (names,
          GST_MXL_FABRICS_STATS_BASESINK_AVERAGE_RATE));
  if (g_hash_table_size (names) > 0) {
    GList *left = g_hash_table_get_keys (names);
    g_error ("docs/bus-and-stats.md lists %s, which no table has",
        (const gchar *) left->data);
  }
  g_hash_table_unref (names);
  g_free (part);
  g_free (doc);
}

/* @names (taken) are exactly the fields of @table, @expected of them. */
static void
check_names (GHashTable * names, GstMxlFabricsStatTable table,
    guint expected)
{
  const GstMxlFabricsStatField *f;
  guint n, i;

  f = gst_mxl_fabrics_stat_fields (table, &n);
  g_assert_cmpuint (n, ==, expected);
  for (i = 0; i < n; i++) {
    if (!g_hash_table_remove (names, f[i].name))
      g_error ("engine or target stat %s is not in docs/bus-and-stats.md",
          f[i].name);
  }
  if (g_hash_table_size (names) > 0) {
    GList *left = g_hash_table_get_keys (names);
    g_error ("docs/bus-and-stats.md lists engine or target counter %s, which "
        "no table has", (const gchar *) left->data);
  }
  g_hash_table_unref (names);
}

static void
check_engine_names (const gchar * text, GstMxlFabricsStatTable table,
    guint expected)
{
  check_names (quoted_names (text), table, expected);
}

static void
test_stats_doc_engine (void)
{
  gchar *doc = read_doc ();
  gchar *sink = section (doc, "Engine counters, refreshed", "; src\n");
  gchar *src = section (doc, "; src\n", "The sink also has");

  check_engine_names (sink, GST_MXL_FABRICS_STATS_INITIATOR, 10);
  check_engine_names (src, GST_MXL_FABRICS_STATS_TARGET, 15);
  g_free (sink);
  g_free (src);
  g_free (doc);
}

/* The sink's per-target stats table names exactly the SINK_TARGET fields. */
static void
test_stats_doc_targets (void)
{
  gchar *doc = read_doc ();
  gchar *part = section (doc, "The sink also has `targets`",
      "ANC packets are not grains");

  check_names (table_names (part), GST_MXL_FABRICS_STATS_SINK_TARGET, 5);
  g_free (part);
  g_free (doc);
}

/* Each field of the structure holds its own counter (offsets right). */
static void
test_stats_structure (void)
{
  GstElement *src = g_object_new (GST_TYPE_MXL_FABRICS_SRC, NULL);
  GstMxlFabricsObject *obj = GST_MXL_FABRICS_SRC (src)->obj;
  mxlFabricsExtTargetStats ts;
  const GstMxlFabricsStatField *f;
  GstStructure *s;
  guint n, i;

  gst_object_ref_sink (src);
  f = gst_mxl_fabrics_stat_fields (GST_MXL_FABRICS_STATS_ELEMENT, &n);
  for (i = 0; i < n; i++) {
    guint64 v = 1000 + i;
    memcpy ((guint8 *) & obj->counters + f[i].offset, &v, sizeof v);
  }
  memset (&ts, 0, sizeof ts);
  ts.grainsReceived = 7;
  ts.samplesSkipped = 9;
  ts.initiatorsRefused = 11;
  gst_mxl_fabrics_object_set_engine_stats (obj, GST_MXL_FABRICS_STATS_TARGET,
      &ts);
  g_object_get (src, "stats", &s, NULL);
  for (i = 0; i < n; i++) {
    guint64 v = 0;
    g_assert_true (gst_structure_get_uint64 (s, f[i].name, &v));
    g_assert_cmpuint (v, ==, 1000 + i);
  }
  {
    guint64 a = 0, b = 0, c = 0, d = 1;
    g_assert_true (gst_structure_get_uint64 (s, "grains-received", &a));
    g_assert_true (gst_structure_get_uint64 (s, "samples-skipped", &b));
    g_assert_true (gst_structure_get_uint64 (s, "initiators-refused", &c));
    g_assert_true (gst_structure_get_uint64 (s, "cq-overruns", &d));
    g_assert_cmpuint (a, ==, 7);
    g_assert_cmpuint (b, ==, 9);
    g_assert_cmpuint (c, ==, 11);
    g_assert_cmpuint (d, ==, 0);
  }
  g_assert_cmpstr (gst_structure_get_string (s, "last-error"), ==, "");
  /* connection-state, 28 counters, last-error, 15 engine counters, targets */
  g_assert_cmpint (gst_structure_n_fields (s), ==, 1 + 28 + 1 + 15 + 1);
  gst_structure_free (s);
  gst_object_unref (src);
}

/* The sink's stats keep GstBaseSink's own counters under their names. */
static void
test_stats_basesink (void)
{
  GstElement *sink = g_object_new (GST_TYPE_MXL_FABRICS_SINK, NULL);
  GstStructure *s;
  guint64 rendered = 1, dropped = 1;
  gdouble rate = -1.0;

  gst_object_ref_sink (sink);
  g_object_get (sink, "stats", &s, NULL);
  g_assert_true (gst_structure_get_uint64 (s, "rendered", &rendered));
  g_assert_true (gst_structure_get_uint64 (s, "basesink-dropped", &dropped));
  g_assert_true (gst_structure_get_double (s,
          GST_MXL_FABRICS_STATS_BASESINK_AVERAGE_RATE, &rate));
  g_assert_cmpuint (rendered, ==, 0);
  g_assert_cmpuint (dropped, ==, 0);
  g_assert_cmpfloat (rate, >=, 0.0);
  g_assert_true (gst_structure_has_field (s, "buffers"));
  gst_structure_free (s);
  gst_object_unref (sink);
}

/* latency-last is the last one recorded, latency-median the median of the
 * last GST_MXL_FABRICS_LATENCY_KEPT. */
static void
test_stats_latency (void)
{
  GstElement *src = g_object_new (GST_TYPE_MXL_FABRICS_SRC, NULL);
  GstMxlFabricsObject *obj = GST_MXL_FABRICS_SRC (src)->obj;
  guint i;

  gst_object_ref_sink (src);
  gst_mxl_fabrics_object_record_latency (obj, 5000);
  g_assert_cmpuint (obj->counters.latency_last, ==, 5000);
  g_assert_cmpuint (obj->counters.latency_median, ==, 5000);
  gst_mxl_fabrics_object_record_latency (obj, 1000);
  gst_mxl_fabrics_object_record_latency (obj, 9000);
  g_assert_cmpuint (obj->counters.latency_last, ==, 9000);
  g_assert_cmpuint (obj->counters.latency_median, ==, 5000);
  /* the oldest ones leave: 40 of 100 ns after them, the median is 100 */
  for (i = 0; i < 40; i++)
    gst_mxl_fabrics_object_record_latency (obj, 100);
  g_assert_cmpuint (obj->counters.latency_median, ==, 100);
  g_assert_cmpuint (obj->n_latency, ==, GST_MXL_FABRICS_LATENCY_KEPT);
  gst_object_unref (src);
}

static gpointer
signal_later (gpointer data)
{
  GstMxlFabricsSlotWait *w = data;

  /* until the waiter sleeps (bounded: 5 s) */
  for (guint i = 0; i < 5000 && g_atomic_int_get (&w->waiters) == 0; i++)
    g_usleep (1000);
  gst_mxl_fabrics_slot_wait_signal (w);
  return NULL;
}

/* The deadlines are 10 s: a wait that returns well before has been woken
 * (no speed asserted). */
static void
test_slot_wait (void)
{
  GstElement *sink = g_object_new (GST_TYPE_MXL_FABRICS_SINK, NULL);
  GstMxlFabricsSlotWait *w = &GST_MXL_FABRICS_SINK (sink)->slot_wait;
  gint64 t0;
  GThread *th;
  guint seq;

  gst_object_ref_sink (sink);
  /* a signal between reading the count and sleeping is not lost */
  seq = gst_mxl_fabrics_slot_wait_seq (w);
  gst_mxl_fabrics_slot_wait_signal (w);
  t0 = g_get_monotonic_time ();
  gst_mxl_fabrics_slot_wait_until (w, seq, t0 + 10 * G_USEC_PER_SEC);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
  g_assert_cmpuint (gst_mxl_fabrics_slot_wait_seq (w), ==, seq + 1);

  /* another thread's signal (the library's notify) wakes a sleeper */
  seq = gst_mxl_fabrics_slot_wait_seq (w);
  th = g_thread_new ("signal", signal_later, w);
  t0 = g_get_monotonic_time ();
  gst_mxl_fabrics_slot_wait_until (w, seq, t0 + 10 * G_USEC_PER_SEC);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 5 * G_USEC_PER_SEC);
  g_thread_join (th);
  g_assert_cmpint (g_atomic_int_get (&w->waiters), ==, 0);

  /* unlock signals it (and sets flushing, which ends the render's wait) */
  seq = gst_mxl_fabrics_slot_wait_seq (w);
  gst_mxl_fabrics_object_unlock (GST_MXL_FABRICS_SINK (sink)->obj);
  g_assert_cmpuint (gst_mxl_fabrics_slot_wait_seq (w), ==, seq + 1);
  g_assert_true (gst_mxl_fabrics_object_is_flushing (GST_MXL_FABRICS_SINK
          (sink)->obj));
  gst_mxl_fabrics_object_unlock_stop (GST_MXL_FABRICS_SINK (sink)->obj);

  /* without a signal it sleeps until its deadline, not longer */
  seq = gst_mxl_fabrics_slot_wait_seq (w);
  t0 = g_get_monotonic_time ();
  gst_mxl_fabrics_slot_wait_until (w, seq, t0 + 20 * 1000);
  g_assert_cmpint (g_get_monotonic_time () - t0, >=, 20 * 1000);
  gst_object_unref (sink);
}

int
main (int argc, char **argv)
{
  /* Scan in this process: under AddressSanitizer the forked
   * gst-plugin-scanner cannot load the plugin and would blacklist it in
   * the shared test registry (tests/meson.build). */
  gst_registry_fork_set_enabled (FALSE);
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/object/stats-doc-table", test_stats_doc_table);
  g_test_add_func ("/gst/object/stats-doc-engine", test_stats_doc_engine);
  g_test_add_func ("/gst/object/stats-doc-targets", test_stats_doc_targets);
  g_test_add_func ("/gst/object/stats-structure", test_stats_structure);
  g_test_add_func ("/gst/object/stats-basesink", test_stats_basesink);
  g_test_add_func ("/gst/object/stats-latency", test_stats_latency);
  g_test_add_func ("/gst/object/slot-wait", test_slot_wait);
  return g_test_run ();
}
