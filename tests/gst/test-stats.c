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
 *  - with stats-interval, one last stats message as the element's EOS
 *    goes out, with the final counts (the sender's frames, every transfer
 *    completed), before the EOS message, and a rate above 0 although the
 *    stream was shorter than the rate window;
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
 * every buffer to @out, until EOS or none came for 3 s (20 s for the
 * first). */
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

/* The rate in a final stats message of a stream shorter than its rate
 * window (stats-interval 10 s): over the open window, from the element's
 * start to its end, so above 0 (it was 0: no window had closed) and at
 * most the real rate; the byte rate that of the same grains. */
static void
assert_final_rate (const GstStructure * last)
{
  guint64 gps = u64 (last, "grains-per-second");
  guint64 bps = u64 (last, "bytes-per-second");

  g_test_message ("final rate: %" G_GUINT64_FORMAT " grains/s, %"
      G_GUINT64_FORMAT " bytes/s", gps, bps);
  g_assert_cmpuint (gps, >, 0);
  g_assert_cmpuint (gps, <=, 2 * FPS);
  g_assert_cmpuint (bps + FRAME_BYTES, >=, gps * FRAME_BYTES);
  g_assert_cmpuint (bps, <=, gps * FRAME_BYTES + FRAME_BYTES);
}

/* A receiver in this process (mxlfabricssrc named "src", stats-interval
 * @interval_ms, into a fakesink) and the child sender of N_FRAMES, started
 * once the src listens and has its base time (a grain made before that
 * would be skipped-at-start; test-remote-eos.c). Bounded: 10 s each. */
typedef struct {
  gchar *dir, *file;
  GstElement *p;
  GPid pid;
} SrcRun;

static void
src_run_start (SrcRun * r, guint interval_ms)
{
  gchar *desc;

  r->dir = g_dir_make_tmp ("mxlfab-stats-XXXXXX", NULL);
  r->file = g_build_filename (r->dir, "ti.json", NULL);
  desc = g_strdup_printf ("mxlfabricssrc name=src provider=tcp node=" NODE
      " caps=\"" CAPS "\" target-info-file=%s stats-interval=%u ! "
      "fakesink sync=false", r->file, interval_ms);
  r->p = hgst_parse (desc);
  g_free (desc);
  hgst_play (r->p);
  g_assert_true (hgst_wait_file (r->file));
  hgst_wait_base_time (r->p);
  r->pid = hgst_spawn_child ("sink", r->file, "-", NULL);
}

/* Reaps the sender (bounded: 20 s), stops the receiver, cleans up. */
static void
src_run_end (SrcRun * r)
{
  hgst_assert_child_ok (r->pid, 20000);
  gst_element_set_state (r->p, GST_STATE_NULL);
  gst_object_unref (r->p);
  g_unlink (r->file);
  g_rmdir (r->dir);
  g_free (r->file);
  g_free (r->dir);
}

static void
test_src_interval (void)
{
  SrcRun r;
  GstElement *p;
  const GstStructure *last;
  GPtrArray *msgs;
  gint64 end;

  src_run_start (&r, 200);
  p = r.p;
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
  src_run_end (&r);
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

/* The stats messages of @p's element @name until EOS is on the bus
 * (bounded: 20 s): returns the last one before EOS (a copy), or fails. */
static GstStructure *
last_stats_before_eos (GstElement * p, const gchar * name)
{
  GstBus *bus = gst_element_get_bus (p);
  GstStructure *last = NULL;
  gint64 end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  gboolean eos = FALSE;

  while (!eos && g_get_monotonic_time () < end) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 100 * GST_MSECOND,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

    if (m == NULL)
      continue;
    g_assert_cmpint (GST_MESSAGE_TYPE (m), !=, GST_MESSAGE_ERROR);
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS)
      eos = TRUE;
    else if (gst_message_has_name (m, STATS_NAME)
        && g_str_equal (GST_OBJECT_NAME (GST_MESSAGE_SRC (m)), name)) {
      g_clear_pointer (&last, gst_structure_free);
      last = gst_structure_copy (gst_message_get_structure (m));
    }
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  g_assert_true (eos);
  g_assert_nonnull (last);
  return last;
}

/* stats-interval=10000, longer than the stream: the one stats message the
 * src posts is the final one, as its EOS (the sender's end of stream)
 * leaves it, with every grain of the sender's N_FRAMES counted. */
static void
test_src_final (void)
{
  GstStructure *last;
  SrcRun r;

  src_run_start (&r, 10000);
  last = last_stats_before_eos (r.p, "src");
  g_test_message ("src at EOS: grains %" G_GUINT64_FORMAT ", buffers %"
      G_GUINT64_FORMAT ", grains-received %" G_GUINT64_FORMAT,
      u64 (last, "grains"), u64 (last, "buffers"),
      u64 (last, "grains-received"));
  g_assert_cmpuint (u64 (last, "grains-received"), ==, N_FRAMES);
  g_assert_cmpuint (u64 (last, "grains") + u64 (last, "skipped-at-start"),
      ==, N_FRAMES);
  g_assert_cmpuint (u64 (last, "buffers"), ==, u64 (last, "grains"));
  assert_final_rate (last);
  gst_structure_free (last);
  src_run_end (&r);
}

/* stats-interval=10000: the one stats message the sink posts is the final
 * one, at its EOS, once every transfer completed. */
static void
test_sink_final (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-stats-XXXXXX", NULL);
  gchar *at;
  GstElement *p, *in;
  GstStructure *last;
  GPtrArray *sent;
  Child c;

  child_start (&c, dir, "a");
  at = g_strdup_printf ("@%s", c.file);
  p = sink_pipeline (at, "stats-interval=10000");
  hgst_play (p);
  g_assert_true (hgst_wait_connected (p, 10000));
  sent = hgst_queue_frames (p, FRAME_BYTES, N_FRAMES / 3, FRAME_NS);
  in = gst_bin_get_by_name (GST_BIN (p), "in");
  g_assert_cmpint (gst_app_src_end_of_stream (GST_APP_SRC (in)), ==,
      GST_FLOW_OK);
  gst_object_unref (in);
  last = last_stats_before_eos (p, "sink");
  g_test_message ("sink at EOS: grains %" G_GUINT64_FORMAT ", transfers "
      "completed %" G_GUINT64_FORMAT, u64 (last, "grains"),
      u64 (last, "transfers-completed"));
  g_assert_cmpuint (u64 (last, "grains"), ==, N_FRAMES / 3);
  g_assert_cmpuint (u64 (last, "buffers"), ==, N_FRAMES / 3);
  g_assert_cmpuint (u64 (last, "transfers-completed"), ==, N_FRAMES / 3);
  g_assert_cmpuint (u64 (last, "dropped"), ==, 0);
  assert_final_rate (last);
  gst_structure_free (last);
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
  hgst_end_stream (p, 5000);    /* EOS across the link: both children end */
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
  g_test_add_func ("/gst/stats/src-final-at-eos", test_src_final);
  g_test_add_func ("/gst/stats/sink-final-at-eos", test_sink_final);
  return g_test_run ();
}
