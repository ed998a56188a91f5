/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssink's grain indices when it drops grains (issue 20 item 5,
 * the sender side): a grain dropped because its ring slot is still being
 * sent takes its index with it, so every frame that arrives arrives under
 * the index of its own PTS, none one index early.
 *
 * The src runs in a child process (this binary re-executed with
 * --child-src) and writes "offset sha1" for every buffer it pushes. The
 * sink gets 720p60 v210 (a period of 16 666 666.67 ns: the origin times of
 * the indices round to whole ns, so a stream's deviations from them move
 * by a ns) stamped exactly frame k * 1/60 s after frame 0. The test stops
 * the child with SIGSTOP while the sink renders as fast as it can
 * (sync=false): a stopped tcp target reads nothing, its remote writes stay
 * in flight and the sink drops the grains whose ring slots they still read
 * (dropped-in-flight). (shm sends each connection's grains from its own
 * staging copy, so a stopped shm receiver holds no ring slot: no case.) After SIGCONT, every frame the child got must sit at
 * index(frame 0) + k, k its frame number found from its checksum. The sink
 * used to leave its index state at the last grain it wrote when it dropped
 * one, so the next frame took the dropped one's index (the demo's "shifted"
 * frames). With zero-copy (buffers lent to the initiator) and copying
 * into the flow. Children are stopped and reaped by PID; every
 * wait is bounded.
 */
#include <stdlib.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "../hardening/hgst.h"

#define CAPS "video/x-raw,format=v210,width=1280,height=720,framerate=60/1"
#define FRAME_BYTES ((gsize) 27 * 128 * 720)
#define N_BEFORE 6              /* frames while the src runs */
#define N_STOPPED 40            /* frames while it is stopped */
#define N_AFTER 30              /* frames after it continues */
#define N_ALL (N_BEFORE + N_STOPPED + N_AFTER)

/* PTS of frame @k after @base: k periods of 1/60 s, rounded to ns. */
static GstClockTime
frame_pts (GstClockTime base, guint k)
{
  return base + gst_util_uint64_scale_round (k, GST_SECOND, 60);
}

/* The node property for @provider: loopback for tcp, none for shm (its
 * endpoints are then named after their process). */
static const gchar *
node_of (const gchar * provider)
{
  return g_str_equal (provider, "tcp") ? "node=" HGST_NODE : "";
}

/* An HgstEachBuffer: appends "offset sha1" of @b to the GString @res. */
static void
append_line (GstBuffer * b, gpointer res)
{
  gchar *sum = hgst_checksum (b);

  g_string_append_printf (res, "%" G_GUINT64_FORMAT " %s\n",
      GST_BUFFER_OFFSET (b), sum);
  g_free (sum);
}

/* Child: the src; writes "offset sha1" per buffer to @out at EOS (or
 * once none came for 3 s, 20 s for the first), then "missing N", the
 * src's dropped-missing. */
static int
child_src (const gchar * provider, const gchar * file, const gchar * out)
{
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=%s %s "
      "caps=\"" CAPS "\" target-info-file=%s ! appsink name=out sync=false "
      "max-buffers=1000", provider, node_of (provider), file);
  GstElement *p = hgst_parse (desc);
  GString *res = g_string_new (NULL);

  hgst_play (p);
  hgst_pull_each (p, 0, 20000, 3000, append_line, res);
  g_string_append_printf (res, "missing %" G_GUINT64_FORMAT "\n",
      hgst_stat (p, "src", "dropped-missing"));
  g_file_set_contents (out, res->str, -1, NULL);
  g_string_free (res, TRUE);
  hgst_stop (p);
  g_free (desc);
  return 0;
}

/* Pushes frame @k (hgst_fill() content) and notes its checksum -> k. */
static void
push_frame (GstElement * p, guint k, GstClockTime base, GHashTable * sent)
{
  GstBuffer *b = hgst_frame (FRAME_BYTES, k, frame_pts (base, k),
      frame_pts (0, k + 1) - frame_pts (0, k));

  g_hash_table_insert (sent, hgst_checksum (b), GUINT_TO_POINTER (k + 1));
  hgst_push (p, b);
}

/* A line "offset sha1" of the child: returns the number of the frame sent
 * (in @sent, checksum -> number + 1) that it is, bit-exact, and its index
 * in @off. */
static guint
received_frame (const gchar * line, GHashTable * sent, guint64 * off)
{
  gchar **f = g_strsplit (line, " ", 2);
  guint n;

  g_assert_cmpuint (g_strv_length (f), ==, 2);
  *off = g_ascii_strtoull (f[0], NULL, 10);
  n = GPOINTER_TO_UINT (g_hash_table_lookup (sent, f[1]));
  g_test_message ("received index %" G_GUINT64_FORMAT ": frame %d", *off,
      (gint) n - 1);
  g_assert_cmpuint (n, >, 0);   /* bit-exact: one of the frames sent */
  g_strfreev (f);
  return n - 1;
}

/* Starts the child src on @provider (its TargetInfo in @file, what it gets
 * in @out), then the sink pipeline @desc (*@p) once connected; *@base:
 * 50 ms from now in its running time. Returns the child's PID. */
static GPid
start_pair (const gchar * provider, const gchar * file, const gchar * out,
    const gchar * desc, GstElement ** p, GstClockTime * base)
{
  GPid pid = hgst_spawn_child (provider, file, out, NULL);

  g_assert_true (hgst_wait_file (file));
  *p = hgst_parse (desc);
  hgst_play (*p);
  g_assert_true (hgst_wait_connected (*p, 10000));
  *base = hgst_running_time (*p, 50 * GST_MSECOND);
  return pid;
}

/* Checks that the sink of @p had no ERROR and took @n buffers, ends its
 * stream (EOS across the link: the child ends at once), stops it, waits
 * for the child @pid and returns the lines it wrote in @out; *@got: the
 * received buffers' ("missing N" is the line after them). */
static gchar **
stop_pair (GstElement * p, guint n, GPid pid, const gchar * out, guint * got)
{
  gchar **lines;

  hgst_assert_no_error (p);
  g_assert_cmpuint (hgst_stat (p, "sink", "buffers"), ==, n);
  hgst_end_stream (p, 5000);
  gst_element_set_state (p, GST_STATE_NULL);
  hgst_assert_child_ok (pid, 20000);
  lines = hgst_read_lines (out);
  *got = g_strv_length (lines) - 1;
  return lines;
}

typedef struct {
  const gchar *provider;
  gboolean zero_copy;           /* the sink lends buffers, or copies them */
} Case;

static void
test_in_flight_drops (gconstpointer data)
{
  const Case *c = data;
  gboolean zero_copy = c->zero_copy;
  gchar *dir = g_dir_make_tmp ("mxlfab-sinkidx-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *out = g_build_filename (dir, "received", NULL);
  gchar *desc = g_strdup_printf ("appsrc name=in is-live=true format=time caps=\"" CAPS
      "\" max-bytes=%" G_GSIZE_FORMAT " block=true ! mxlfabricssink "
      "name=sink provider=%s %s sync=false wait-for-connection=true "
      "zero-copy=%s target-info=@%s", 4 * FRAME_BYTES, c->provider,
      node_of (c->provider), zero_copy ? "true" : "false", file);
  GHashTable *sent = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  GstElement *p;
  GstClockTime base;
  GPid pid;
  gchar **lines;
  guint k, i, got, after = 0;
  guint64 first = 0, in_flight;

  g_assert_nonnull (dir);
  pid = start_pair (c->provider, file, out, desc, &p, &base);

  for (k = 0; k < N_BEFORE; k++) {
    push_frame (p, k, base, sent);
    g_usleep (17 * 1000);
  }
  hgst_wait_rendered (p, N_BEFORE, 5000);
  g_usleep (100 * 1000);         /* the child has read them */
  g_assert_cmpint (kill (pid, SIGSTOP), ==, 0);
  for (; k < N_BEFORE + N_STOPPED; k++)
    push_frame (p, k, base, sent);
  hgst_wait_rendered (p, N_BEFORE + N_STOPPED, 10000);
  g_assert_cmpint (kill (pid, SIGCONT), ==, 0);
  for (; k < N_ALL; k++) {
    push_frame (p, k, base, sent);
    g_usleep (17 * 1000);
  }
  hgst_wait_rendered (p, N_ALL, 5000);
  g_usleep (300 * 1000);         /* let the last transfers complete */
  in_flight = hgst_stat (p, "sink", "dropped-in-flight");
  g_test_message ("sink (%s, zero-copy=%d): buffers %" G_GUINT64_FORMAT
      ", grains %" G_GUINT64_FORMAT ", lent %" G_GUINT64_FORMAT
      ", dropped %" G_GUINT64_FORMAT ", in flight %" G_GUINT64_FORMAT,
      c->provider, zero_copy, hgst_stat (p, "sink", "buffers"), hgst_stat (p, "sink",
          "grains"), hgst_stat (p, "sink", "grains-lent"), hgst_stat (p,
          "sink", "dropped"), in_flight);
  lines = stop_pair (p, N_ALL, pid, out, &got);
  for (i = 0; i < got; i++) {
    guint64 off;
    guint n = received_frame (lines[i], sent, &off) + 1;

    if (i == 0) {
      g_assert_cmpuint (n - 1, ==, 0);
      first = off;
    }
    /* the index of its own PTS, never a dropped frame's */
    g_assert_cmpuint (off, ==, first + n - 1);
    if (n - 1 >= N_BEFORE + N_STOPPED)
      after++;
  }
  /* the stall did drop grains whose slots were in flight, and frames after
   * those drops arrived (their indices checked above) */
  g_assert_cmpuint (in_flight, >, 0);
  g_assert_cmpuint (after, >, 0);

  g_strfreev (lines);
  g_hash_table_unref (sent);
  gst_object_unref (p);
  hgst_remove_files (dir, file, out);
  g_free (desc);
}

/* A late frame and do-timestamp's lateness (issue 20 item 5): 60 fps
 * stamped exactly k periods after frame 0 except frame 100, 1.2 periods
 * late (its PTS after frame 101's), or every frame 0 to 0.45 periods late
 * (a fixed pattern), paced at 60 fps. Every frame arrives bit-exact under
 * the index of its own nominal time, first + k, and the src counts no
 * index missing. The sink used to take the late frame for one after a
 * frame left out, give it frame 101's index and every later frame the
 * index after its own (the src counted one missing and two DISCONT).
 * late-numbered: the jitter and frame 100 1.1 periods late, its lateness
 * beyond the period within the jitter, from a source that numbers its
 * frames (GST_BUFFER_OFFSET = k, as videotestsrc and v4l2src do): the times
 * alone cannot tell it from the frame after one left out (the sink took it
 * for that, and every later frame arrived one index ahead); the numbers
 * can. */
#define N_LATE 130

typedef struct {
  const gchar *provider;
  gboolean jitter;              /* 0..0.45 P late, or frame 100 late */
  gboolean numbered;            /* and frame 100 1.1 P late, with
                                 * GST_BUFFER_OFFSET = k */
} LateCase;

static void
test_late_frame (gconstpointer data)
{
  const LateCase *c = data;
  gchar *dir = g_dir_make_tmp ("mxlfab-sinklate-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *out = g_build_filename (dir, "received", NULL);
  gchar *desc = g_strdup_printf ("appsrc name=in is-live=true format=time "
      "caps=\"" CAPS "\" ! mxlfabricssink name=sink provider=%s %s "
      "sync=false wait-for-connection=true target-info=@%s", c->provider,
      node_of (c->provider), file);
  GHashTable *sent = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  GRand *rand = g_rand_new_with_seed (20);
  const GstClockTime period = frame_pts (0, 1);
  GstElement *p;
  GstClockTime base;
  GPid pid;
  gchar **lines;
  guint k, i, got;
  guint64 first = 0;
  gint64 t0;

  g_assert_nonnull (dir);
  pid = start_pair (c->provider, file, out, desc, &p, &base);
  t0 = g_get_monotonic_time ();
  for (k = 0; k < N_LATE; k++) {
    GstClockTime pts = frame_pts (base, k);
    GstBuffer *b;
    gint64 due = t0 + (gint64) (frame_pts (0, k) / GST_USECOND);

    if (c->jitter)
      pts += k == 0 ? 0 : g_rand_int_range (rand, 0, (gint32) (period * 45
              / 100));
    else if (k == 100)
      pts += period * 12 / 10;
    if (c->numbered && k == 100)
      pts = frame_pts (base, k) + period * 11 / 10;
    b = hgst_frame (FRAME_BYTES, k, pts, period);
    if (c->numbered)
      GST_BUFFER_OFFSET (b) = k;
    g_hash_table_insert (sent, hgst_checksum (b), GUINT_TO_POINTER (k + 1));
    if (due > g_get_monotonic_time ())
      g_usleep (due - g_get_monotonic_time ());
    hgst_push (p, b);
  }
  hgst_wait_rendered (p, N_LATE, 5000);
  g_usleep (300 * 1000);         /* let the last transfers complete */
  g_assert_cmpuint (hgst_stat (p, "sink", "dropped"), ==, 0);
  lines = stop_pair (p, N_LATE, pid, out, &got);
  for (i = 0; i < got; i++) {
    guint64 off;
    guint n = received_frame (lines[i], sent, &off);

    if (i == 0)
      first = off - n;
    g_assert_cmpuint (off, ==, first + n);      /* its own nominal time's */
  }
  /* all but the first few (sent before the src read), none missing */
  g_assert_cmpuint (got, >=, N_LATE - 10);
  g_assert_cmpstr (lines[got], ==, "missing 0");

  g_strfreev (lines);
  g_rand_free (rand);
  g_hash_table_unref (sent);
  gst_object_unref (p);
  hgst_remove_files (dir, file, out);
  g_free (desc);
}

int
main (int argc, char **argv)
{
  static const Case cases[] = {
    {"tcp", TRUE}, {"tcp", FALSE},
  };
  static const LateCase late_cases[] = {
    {"tcp", FALSE, FALSE}, {"shm", FALSE, FALSE}, {"tcp", TRUE, FALSE},
    {"shm", TRUE, FALSE}, {"tcp", TRUE, TRUE},
  };
  guint i;

  if (hgst_init (&argc, &argv, 5))
    return child_src (argv[2], argv[3], argv[4]);
  g_test_init (&argc, &argv, NULL);
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *path = g_strdup_printf ("/gst/sink-index/in-flight-drops/%s/%s",
        cases[i].provider, cases[i].zero_copy ? "zero-copy" : "copy");
    g_test_add_data_func (path, &cases[i], test_in_flight_drops);
    g_free (path);
  }
  for (i = 0; i < G_N_ELEMENTS (late_cases); i++) {
    gchar *path = g_strdup_printf ("/gst/sink-index/%s/%s",
        late_cases[i].numbered ? "late-numbered" : late_cases[i].jitter ?
        "late-jitter" : "late-frame", late_cases[i].provider);
    g_test_add_data_func (path, &late_cases[i], test_late_frame);
    g_free (path);
  }
  return g_test_run ();
}
