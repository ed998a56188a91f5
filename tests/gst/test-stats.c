/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stats a gst-launch user can see, and several targets from one
 * target-info (issue 19), each across two processes (this binary
 * re-executed with --child-src, tcp on 127.0.0.1):
 *  - stats-interval=200 posts the stats structure as an element message
 *    4 to 6 times a second while PLAYING, grains increasing, the same
 *    fields as the `stats` property, and none after PLAYING -> READY;
 *    on the src with a receive rate near the real one (50 fps, within a
 *    factor of 2) and a one-way latency above 0 and below 1 s; on the sink
 *    with its send rate and GstBaseSink's counters equal to the frames it
 *    rendered;
 *  - target-info="@a;<JSON of b>;@a" delivers every frame (checksums) to
 *    both receivers, the duplicate refused with a WARNING, and reads back
 *    as set.
 * Children are stopped and reaped by PID; every wait is bounded.
 */
#include <stdlib.h>
#include <string.h>

#include "../hardening/hgst.h"

#define NODE HGST_NODE
#define WIDTH 320
#define HEIGHT 180
#define FPS 50
#define CAPS "video/x-raw,format=v210,width=320,height=180,framerate=50/1"
#define FRAME_BYTES (((WIDTH + 47) / 48) * 128 * HEIGHT)
#define FRAME_NS (GST_SECOND / FPS)
#define N_FRAMES 150
#define STATS_NAME "application/x-mxl-fabrics-stats"

/* Child "src": a receiver writing its TargetInfo to @file and the SHA-1 of
 * every buffer to @out, until none came for 3 s (20 s for the first). */
static int
child_src (const gchar * file, const gchar * out)
{
  gchar *desc = g_strdup_printf ("mxlfabricssrc provider=tcp node=" NODE
      " caps=\"" CAPS "\" target-info-file=%s ! appsink name=out sync=false",
      file);
  GstElement *p = hgst_parse (desc);

  if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    return 3;
  hgst_write_checksums (p, out, 0, 20000, 3000);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
  return 0;
}

/* Child "sink": a live sender of N_FRAMES frames to the target of @file,
 * until EOS (at most 20 s). */
static int
child_sink (const gchar * file)
{
  gchar *desc = g_strdup_printf ("videotestsrc is-live=true num-buffers=%d ! "
      CAPS " ! mxlfabricssink provider=tcp node=" NODE " target-info=@%s",
      N_FRAMES, file);
  GstElement *p = hgst_parse (desc);
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *m;

  if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    return 3;
  m = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (m == NULL || GST_MESSAGE_TYPE (m) != GST_MESSAGE_EOS)
    return 4;
  gst_message_unref (m);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (p);
  g_free (desc);
  return 0;
}

/* The stats messages of @p's element @name for 1 s (copies, in order),
 * after dropping those already on the bus. */
static GPtrArray *
collect_stats (GstElement * p, const gchar * name, gint64 ms)
{
  GPtrArray *got = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  GstBus *bus = gst_element_get_bus (p);
  gint64 end;
  GstMessage *m;

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT)))
    gst_message_unref (m);
  end = g_get_monotonic_time () + ms * 1000;
  while (g_get_monotonic_time () < end) {
    gint64 left = end - g_get_monotonic_time ();

    m = gst_bus_timed_pop_filtered (bus, MAX (left, 0) * GST_USECOND,
        GST_MESSAGE_ELEMENT);
    if (m == NULL)
      continue;
    if (gst_message_has_name (m, STATS_NAME)
        && g_str_equal (GST_OBJECT_NAME (GST_MESSAGE_SRC (m)), name))
      g_ptr_array_add (got, gst_structure_copy (gst_message_get_structure
              (m)));
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  return got;
}

static gboolean
add_name (GQuark field, const GValue * value, gpointer names)
{
  g_string_append_printf (names, "%s,", g_quark_to_string (field));
  return TRUE;
}

/* The field names of @s, in order, as one string. */
static gchar *
field_names (const GstStructure * s)
{
  GString *names = g_string_new (NULL);

  gst_structure_foreach (s, add_name, names);
  return g_string_free (names, FALSE);
}

static guint64
u64 (const GstStructure * s, const gchar * field)
{
  guint64 v = 0;

  if (!gst_structure_get_uint64 (s, field, &v))
    g_error ("no uint64 %s in %s", field, gst_structure_to_string (s));
  return v;
}

/* 4 to 6 messages in 1 s, grains increasing, each with exactly the fields
 * of the `stats` property of @p's element @name. */
static void
check_messages (GstElement * p, const gchar * name, GPtrArray * msgs)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (p), name);
  GstStructure *prop = NULL;
  gchar *want;
  guint i;

  g_object_get (e, "stats", &prop, NULL);
  want = field_names (prop);
  g_assert_cmpuint (msgs->len, >=, 4);
  g_assert_cmpuint (msgs->len, <=, 6);
  for (i = 0; i < msgs->len; i++) {
    const GstStructure *s = g_ptr_array_index (msgs, i);
    gchar *have = field_names (s);

    g_assert_cmpstr (gst_structure_get_name (s), ==, STATS_NAME);
    g_assert_cmpstr (have, ==, want);
    g_free (have);
    if (i > 0)
      g_assert_cmpuint (u64 (s, "grains"), >,
          u64 (g_ptr_array_index (msgs, i - 1), "grains"));
  }
  g_free (want);
  gst_structure_free (prop);
  gst_object_unref (e);
}

/* No stats message comes within 600 ms once @p is in READY. */
static void
check_stops (GstElement * p)
{
  GstBus *bus = gst_element_get_bus (p);
  gint64 end;
  GstMessage *m;

  g_assert_cmpint (gst_element_set_state (p, GST_STATE_READY), ==,
      GST_STATE_CHANGE_SUCCESS);
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT)))
    gst_message_unref (m);
  end = g_get_monotonic_time () + 600 * 1000;
  while (g_get_monotonic_time () < end) {
    m = gst_bus_timed_pop_filtered (bus, 50 * GST_MSECOND,
        GST_MESSAGE_ELEMENT);
    if (m && gst_message_has_name (m, STATS_NAME))
      g_error ("a stats message after PLAYING -> READY");
    if (m)
      gst_message_unref (m);
  }
  gst_object_unref (bus);
}

/* A rate measured against the real one: within a factor of 2. */
static void
assert_rate (guint64 measured, guint64 real)
{
  g_assert_cmpuint (measured, >=, real / 2);
  g_assert_cmpuint (measured, <=, real * 2);
}

static void
test_src_interval (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-stats-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "ti.json", NULL);
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=tcp node="
      NODE " caps=\"" CAPS "\" target-info-file=%s stats-interval=200 ! "
      "fakesink sync=false", file);
  GstElement *p = hgst_parse (desc);
  const GstStructure *last;
  GPtrArray *msgs;
  gint64 end;
  GPid pid;

  hgst_play (p);
  g_assert_true (hgst_wait_file (file));
  pid = hgst_spawn_child ("sink", file, "-", NULL);
  /* streaming: 10 frames in */
  end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (hgst_stat (p, "src", "grains") < 10 && g_get_monotonic_time () < end)
    g_usleep (10 * 1000);
  g_assert_cmpuint (hgst_stat (p, "src", "grains"), >=, 10);
  /* a rate window (1 s) closed since */
  g_usleep (1200 * 1000);
  msgs = collect_stats (p, "src", 1000);
  hgst_assert_no_error (p);
  check_messages (p, "src", msgs);
  last = g_ptr_array_index (msgs, msgs->len - 1);
  assert_rate (u64 (last, "grains-per-second"), FPS);
  assert_rate (u64 (last, "bytes-per-second"), (guint64) FPS * FRAME_BYTES);
  g_test_message ("src: %" G_GUINT64_FORMAT " grains/s, %" G_GUINT64_FORMAT
      " bytes/s, latency last %" G_GUINT64_FORMAT " ns, median %"
      G_GUINT64_FORMAT " ns", u64 (last, "grains-per-second"),
      u64 (last, "bytes-per-second"), u64 (last, "latency-last"),
      u64 (last, "latency-median"));
  /* one host: one TAI clock */
  g_assert_cmpuint (u64 (last, "latency-last"), >, 0);
  g_assert_cmpuint (u64 (last, "latency-last"), <, GST_SECOND);
  g_assert_cmpuint (u64 (last, "latency-median"), >, 0);
  g_assert_cmpuint (u64 (last, "latency-median"), <, GST_SECOND);
  g_ptr_array_unref (msgs);
  check_stops (p);
  hgst_assert_child_ok (pid, 20000);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_unlink (file);
  g_rmdir (dir);
  g_free (desc);
  g_free (file);
  g_free (dir);
}

typedef struct {
  gchar *file, *out;
  GPid pid;
} Child;

static void
child_start (Child * c, const gchar * dir, const gchar * name)
{
  c->file = g_strdup_printf ("%s/%s.json", dir, name);
  c->out = g_strdup_printf ("%s/%s.sums", dir, name);
  c->pid = hgst_spawn_child ("src", c->file, c->out, NULL);
  g_assert_true (hgst_wait_file (c->file));
}

/* Waits (bounded) for the child to end; asserts it got exactly @sent. */
static void
child_check (Child * c, GPtrArray * sent)
{
  gchar **got;
  guint i;

  hgst_assert_child_ok (c->pid, 30000);
  got = hgst_read_lines (c->out);
  g_assert_cmpuint (g_strv_length (got), ==, sent->len);
  for (i = 0; i < sent->len; i++)
    g_assert_cmpstr (got[i], ==, g_ptr_array_index (sent, i));
  g_strfreev (got);
  g_unlink (c->out);
  g_unlink (c->file);
  g_free (c->out);
  g_free (c->file);
}

/* Waits (bounded: 20 s) until the sink of @p rendered @n buffers, by its
 * own count and by GstBaseSink's: the base class counts a buffer as
 * rendered only after render() has returned, so its `rendered` can trail
 * ours by the one buffer in flight. */
static void
wait_buffers (GstElement * p, guint64 n)
{
  gint64 end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while ((hgst_stat (p, "sink", "buffers") < n
          || hgst_stat (p, "sink", "rendered") < n)
      && g_get_monotonic_time () < end)
    g_usleep (10 * 1000);
  g_assert_cmpuint (hgst_stat (p, "sink", "buffers"), ==, n);
}

static GstElement *
sink_pipeline (const gchar * target_info, const gchar * extra)
{
  gchar *desc = g_strdup_printf ("appsrc name=in is-live=true format=time "
      "caps=\"" CAPS "\" ! mxlfabricssink name=sink provider=tcp node=" NODE
      " %s", extra);
  GstElement *p = hgst_parse (desc), *sink;

  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  g_object_set (sink, "target-info", target_info, NULL);
  gst_object_unref (sink);
  g_free (desc);
  return p;
}

static void
test_sink_interval (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-stats-XXXXXX", NULL);
  gchar *at;
  GstElement *p;
  GPtrArray *sent, *msgs;
  const GstStructure *last;
  gint64 end;
  Child c;

  child_start (&c, dir, "a");
  at = g_strdup_printf ("@%s", c.file);
  p = sink_pipeline (at, "stats-interval=200");
  hgst_play (p);
  g_assert_true (hgst_wait_connected (p, 10000));
  sent = hgst_queue_frames (p, FRAME_BYTES, N_FRAMES, FRAME_NS);
  end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (hgst_stat (p, "sink", "grains") < 10 && g_get_monotonic_time () < end)
    g_usleep (10 * 1000);
  g_usleep (1200 * 1000);
  msgs = collect_stats (p, "sink", 1000);
  hgst_assert_no_error (p);
  check_messages (p, "sink", msgs);
  last = g_ptr_array_index (msgs, msgs->len - 1);
  g_test_message ("sink: %" G_GUINT64_FORMAT " grains/s, %" G_GUINT64_FORMAT
      " bytes/s", u64 (last, "grains-per-second"),
      u64 (last, "bytes-per-second"));
  assert_rate (u64 (last, "grains-per-second"), FPS);
  assert_rate (u64 (last, "bytes-per-second"), (guint64) FPS * FRAME_BYTES);
  g_ptr_array_unref (msgs);
  wait_buffers (p, N_FRAMES);
  /* GstBaseSink's own counters, kept */
  g_assert_cmpuint (hgst_stat (p, "sink", "rendered"), ==, N_FRAMES);
  g_assert_cmpuint (hgst_stat (p, "sink", "basesink-dropped"), ==, 0);
  g_usleep (300 * 1000);        /* the last transfers complete */
  check_stops (p);
  gst_element_set_state (p, GST_STATE_NULL);
  child_check (&c, sent);
  g_ptr_array_unref (sent);
  gst_object_unref (p);
  g_rmdir (dir);
  g_free (at);
  g_free (dir);
}

static void
test_target_list (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-stats-XXXXXX", NULL);
  gchar *json = NULL, *list, *read_back = NULL, *warning;
  GstElement *p, *sink;
  GstStructure *s = NULL;
  GPtrArray *sent;
  Child a, b;

  child_start (&a, dir, "a");
  child_start (&b, dir, "b");
  g_assert_true (g_file_get_contents (b.file, &json, NULL, NULL));
  /* @path, JSON (with its commas), and @path again: refused */
  list = g_strdup_printf ("@%s; %s;@%s", a.file, g_strstrip (json), a.file);
  p = sink_pipeline (list, "");
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  g_object_get (sink, "target-info", &read_back, NULL);
  g_assert_cmpstr (read_back, ==, list);
  hgst_play (p);
  g_assert_true (hgst_wait_connected (p, 10000));
  /* one WARNING: the duplicate */
  warning = hgst_bus_warnings (p);
  g_assert_true (g_str_has_prefix (warning, "this TargetInfo (target "));
  g_assert_nonnull (strstr (warning, "already added"));
  g_assert_null (strstr (strstr (warning, "already added") + 1,
          "already added"));
  sent = hgst_queue_frames (p, FRAME_BYTES, N_FRAMES / 2, FRAME_NS);
  wait_buffers (p, N_FRAMES / 2);
  g_usleep (300 * 1000);        /* the last transfers complete */
  g_object_get (sink, "stats", &s, NULL);
  g_assert_cmpuint (gst_value_array_get_size (gst_structure_get_value (s,
              "targets")), ==, 2);
  gst_structure_free (s);
  hgst_assert_no_error (p);
  gst_element_set_state (p, GST_STATE_NULL);
  child_check (&a, sent);
  child_check (&b, sent);
  g_ptr_array_unref (sent);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_rmdir (dir);
  g_free (warning);
  g_free (read_back);
  g_free (list);
  g_free (json);
  g_free (dir);
}

int
main (int argc, char **argv)
{
  if (hgst_init (&argc, &argv, 5))
    return g_str_equal (argv[2], "src") ? child_src (argv[3], argv[4]) :
        child_sink (argv[3]);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/stats/src-interval", test_src_interval);
  g_test_add_func ("/gst/stats/sink-interval", test_sink_interval);
  g_test_add_func ("/gst/stats/target-list", test_target_list);
  return g_test_run ();
}
