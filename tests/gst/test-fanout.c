/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fan-out under a bad receiver (issue 20, items 2 and 3): one mxlfabricssink
 * with two targets, each an mxlfabricssrc in its own process (this binary
 * re-executed with --child-src). One receiver is slowed downstream
 * (identity sleep-time) or stopped (SIGSTOP); the other must still get
 * every frame bit-exact, the bad one's losses are counted on its own
 * target in the sink's stats, and a WARNING names it.
 *
 * Also: add-target refuses what it can check at once (malformed,
 * duplicate given as @file, JSON or base64), and a target whose caps do not
 * match gets a WARNING and its own failed state while another target keeps
 * receiving every frame, with no ERROR.
 *
 * Children are stopped and reaped by PID; every wait is bounded.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "../hardening/hgst.h"

#define NODE HGST_NODE
#define WIDTH 320
#define HEIGHT 180
#define CAPS "video/x-raw,format=v210,width=320,height=180,framerate=50/1"
#define OTHER_CAPS "video/x-raw,format=v210,width=640,height=360,framerate=50/1"
#define FRAME_BYTES (((WIDTH + 47) / 48) * 128 * HEIGHT)
#define FRAME_NS (20 * GST_MSECOND)
#define N_FRAMES 150
#define SLOW_US 60000           /* the slow receiver's identity sleep-time */

/* GstMxlFabricsConnectionState values (mxlfabricsobject.h) */
#define STATE_CONNECTED 3
#define STATE_ERROR 5

/* Child: a src on @provider writing its TargetInfo to @file, @caps, with
 * identity sleep-time=@sleep_us downstream; pulls buffers until EOS (the
 * sender ends its stream) or, a receiver the sender lost, none came for
 * 3 s (20 s for the first), and writes their SHA-1s, one a line, to
 * @out. */
static int
child_src (const gchar * provider, const gchar * file, const gchar * out,
    const gchar * caps, guint sleep_us)
{
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=%s %s "
      "caps=\"%s\" target-info-file=%s ! identity sleep-time=%u ! appsink "
      "name=out sync=false", provider, g_str_equal (provider, "tcp") ?
      "node=" NODE : "", caps, file, sleep_us);
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

typedef struct {
  gchar *file, *out;
  GPid pid;
} Child;

static void
child_start (Child * c, const gchar * dir, const gchar * name,
    const gchar * provider, const gchar * caps, guint sleep_us)
{
  gchar *sleep = g_strdup_printf ("%u", sleep_us);
  gchar *file = g_strdup_printf ("%s/%s.json", dir, name);
  gchar *out = g_strdup_printf ("%s/%s.sums", dir, name);

  c->file = file;
  c->out = out;
  c->pid = hgst_spawn_child (provider, file, out, caps, sleep, NULL);
  g_assert_true (hgst_wait_file (file));
  g_free (sleep);
}

/* Stops a child that is still waiting (SIGKILL), by PID. */
static void
child_kill (Child * c)
{
  gint status = 0;

  kill (c->pid, SIGKILL);
  g_assert_cmpint (waitpid (c->pid, &status, 0), ==, c->pid);
  g_unlink (c->out);
  g_unlink (c->file);
  g_free (c->out);
  g_free (c->file);
}

/* Waits (bounded) for the child to end by itself; returns the checksums it
 * received (g_strfreev). */
static gchar **
child_finish (Child * c)
{
  gchar **sums;

  hgst_assert_child_ok (c->pid, 30000);
  sums = hgst_read_lines (c->out);
  g_unlink (c->out);
  g_unlink (c->file);
  g_free (c->out);
  g_free (c->file);
  return sums;
}

static gint
target_state (GstElement * sink, const gchar * source)
{
  GstStructure *t = hgst_sink_target_stats (sink, source);
  gint st = -1;

  if (t) {
    gst_structure_get_enum (t, "state",
        g_type_from_name ("GstMxlFabricsConnectionState"), &st);
    gst_structure_free (t);
  }
  return st;
}

static guint64
target_u64 (GstElement * sink, const gchar * source, const gchar * field)
{
  GstStructure *t = hgst_sink_target_stats (sink, source);
  guint64 v = G_MAXUINT64;

  g_assert_nonnull (t);
  if (!gst_structure_get_uint64 (t, field, &v))
    g_error ("target stats have no uint64 %s: %s", field,
        gst_structure_to_string (t));
  gst_structure_free (t);
  return v;
}

/* Waits (bounded) until the target of @source is in @state. */
static gboolean
wait_target_state (GstElement * sink, const gchar * source, gint state,
    guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  while (target_state (sink, source) != state) {
    if (g_get_monotonic_time () > end)
      return FALSE;
    g_usleep (10 * 1000);
  }
  return TRUE;
}

/* A sink pipeline on @provider fed by appsrc, with wait-for-connection. */
static GstElement *
sink_pipeline (const gchar * provider, const gchar * extra)
{
  gchar *desc = g_strdup_printf ("appsrc name=in is-live=true format=time "
      "caps=\"" CAPS "\" ! mxlfabricssink name=sink provider=%s %s "
      "wait-for-connection=true %s", provider, g_str_equal (provider, "tcp") ?
      "node=" NODE : "", extra ? extra : "");
  GstElement *p = hgst_parse (desc);

  g_free (desc);
  return p;
}

static gboolean
add_target (GstElement * sink, const gchar * value)
{
  gboolean ok = FALSE;

  g_signal_emit_by_name (sink, "add-target", value, &ok);
  return ok;
}

/* Pushes N_FRAMES frames in real time (sync=true paces them) and returns
 * their checksums; waits (bounded) until the sink rendered them all. */
static GPtrArray *
push_n_frames (GstElement * p, guint n_frames)
{
  GPtrArray *sent = hgst_queue_frames (p, FRAME_BYTES, n_frames, FRAME_NS);
  gint64 end;

  end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (hgst_stat (p, "sink", "buffers") < n_frames
      && g_get_monotonic_time () < end)
    g_usleep (10 * 1000);
  g_assert_cmpuint (hgst_stat (p, "sink", "buffers"), ==, n_frames);
  g_usleep (300 * 1000);        /* the last transfers complete */
  return sent;
}

static GPtrArray *
push_frames (GstElement * p)
{
  return push_n_frames (p, N_FRAMES);
}

/* Every checksum of @got is in @sent, in increasing order of frame. */
static guint
assert_subsequence (gchar ** got, GPtrArray * sent)
{
  guint i, k = 0;

  for (i = 0; got[i]; i++) {
    while (k < sent->len && g_strcmp0 (got[i], g_ptr_array_index (sent, k)))
      k++;
    if (k == sent->len)
      g_error ("received frame %u is not a sent frame (or out of order)", i);
    k++;
  }
  return i;
}

/* Two receivers on @provider, one slowed downstream (identity, 60 ms a
 * frame at 50 fps; its src keeps draining the transport meanwhile, so its
 * losses happen in its own ring) or, with STOPPED, stopped by SIGSTOP (its
 * transport stops: the sender skips it and, tcp, disconnects it once its
 * writes hold a slot of the sender's ring a whole ring later) or, with
 * KILLED, killed a second into the stream: the fast one gets every
 * frame. */
/* Kills (and reaps) a child one second into the stream. */
static gpointer
kill_later (gpointer data)
{
  g_usleep (G_USEC_PER_SEC);
  child_kill (data);
  return NULL;
}

/* Continues a stopped child (SIGCONT, by PID) 1.5 s into the stream. */
static gpointer
continue_later (gpointer data)
{
  g_usleep (3 * G_USEC_PER_SEC / 2);
  kill (((Child *) data)->pid, SIGCONT);
  return NULL;
}

#define LONG_STALL_S 5          /* STALLED_LONG: SIGCONT 5 s into the stream */
#define LONG_FRAMES 400         /* ... of 8 s */

static gpointer
continue_much_later (gpointer data)
{
  g_usleep (LONG_STALL_S * G_USEC_PER_SEC);
  kill (((Child *) data)->pid, SIGCONT);
  return NULL;
}

typedef enum {
  SLOW,                         /* identity sleep-time downstream */
  STOPPED,                      /* SIGSTOP */
  STALLED,                      /* SIGSTOP, SIGCONT 1.5 s into the stream */
  STALLED_LONG,                 /* SIGSTOP, SIGCONT 5 s into an 8 s stream */
  KILLED,                       /* SIGKILL */
} Badness;

static void
bad_receiver_with (const gchar * provider, Badness how, const gchar * options)
{
  gboolean stop = how != SLOW;
  gchar *dir = g_dir_make_tmp ("mxlfab-fanout-XXXXXX", NULL);
  Child fast, slow;
  gchar *extra, *at_fast, *at_slow, *warnings, **got_fast, **got_slow;
  GstElement *p, *sink;
  GPtrArray *sent;
  guint64 slow_dropped, fast_dropped, fast_grains, slow_grains;
  GThread *killer = NULL;
  guint n_frames = how == STALLED_LONG ? LONG_FRAMES : N_FRAMES;
  guint i;

  g_assert_nonnull (dir);
  child_start (&fast, dir, "fast", provider, CAPS, 0);
  child_start (&slow, dir, "slow", provider, CAPS, how == SLOW ? SLOW_US : 0);
  at_fast = g_strdup_printf ("@%s", fast.file);
  at_slow = g_strdup_printf ("@%s", slow.file);
  extra = g_strdup_printf ("target-info=%s %s", at_fast, options);
  p = sink_pipeline (provider, extra);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  hgst_play (p);
  g_assert_true (add_target (sink, at_slow));
  g_assert_true (wait_target_state (sink, at_fast, STATE_CONNECTED, 10000));
  g_assert_true (wait_target_state (sink, at_slow, STATE_CONNECTED, 10000));
  if (how == STOPPED || how == STALLED || how == STALLED_LONG)
    g_assert_cmpint (kill (slow.pid, SIGSTOP), ==, 0);
  if (how == STALLED)
    killer = g_thread_new ("continuer", continue_later, &slow);
  else if (how == STALLED_LONG)
    killer = g_thread_new ("continuer", continue_much_later, &slow);
  else if (how == KILLED)       /* mid-stream, reaped as a shell would */
    killer = g_thread_new ("killer", kill_later, &slow);

  sent = push_n_frames (p, n_frames);
  if (killer)
    g_thread_join (killer);
  /* per-target stats are refreshed every 100 ms */
  g_usleep (200 * 1000);
  fast_grains = target_u64 (sink, at_fast, "grains");
  fast_dropped = target_u64 (sink, at_fast, "dropped");
  slow_grains = target_u64 (sink, at_slow, "grains");
  slow_dropped = target_u64 (sink, at_slow, "dropped");
  warnings = hgst_bus_warnings (p);
  g_test_message ("sink: fast target grains %" G_GUINT64_FORMAT " dropped %"
      G_GUINT64_FORMAT ", slow target grains %" G_GUINT64_FORMAT " dropped %"
      G_GUINT64_FORMAT ", dropped-in-flight %" G_GUINT64_FORMAT "; warnings: %s",
      fast_grains, fast_dropped, slow_grains, slow_dropped,
      hgst_stat (p, "sink", "dropped-in-flight"), warnings);
  /* EOS across the link: the receivers still connected end at once */
  hgst_end_stream (p, 5000);
  gst_element_set_state (p, GST_STATE_NULL);

  got_fast = child_finish (&fast);
  if (how == KILLED)
    got_slow = g_new0 (gchar *, 1);
  else
    got_slow = child_finish (&slow);
  g_test_message ("fast receiver got %u of %u frames, slow one %u",
      g_strv_length (got_fast), n_frames, g_strv_length (got_slow));
  /* the fast receiver: every frame, bit-exact, in order */
  g_assert_cmpuint (g_strv_length (got_fast), ==, n_frames);
  for (i = 0; i < n_frames; i++)
    g_assert_cmpstr (got_fast[i], ==, g_ptr_array_index (sent, i));
  g_assert_cmpuint (fast_grains, ==, n_frames);
  g_assert_cmpuint (fast_dropped, ==, 0);
  /* the slow one: what it got is bit-exact, and every frame is either
   * sent to it or counted as dropped on its own target */
  assert_subsequence (got_slow, sent);
  g_assert_cmpuint (g_strv_length (got_slow), <, n_frames);
  g_assert_cmpuint (slow_grains + slow_dropped, ==, n_frames);
  if (stop) {
    /* a stopped receiver falls behind at the sender: a WARNING names it */
    g_assert_cmpuint (slow_dropped, >, 0);
    if (!strstr (warnings, at_slow + 1)
        || !strstr (warnings, how == KILLED ? "lost" : "behind"))
      g_error ("no WARNING names the slow target %s: %s", at_slow, warnings);
  }
  if (how == STALLED_LONG) {
    /* back, it gets every frame from then on: the frames it got end with
     * a run of the last sent ones, of (at least) the last 2 s */
    guint n = g_strv_length (got_slow), k = 0;

    while (k < n && g_strcmp0 (got_slow[n - 1 - k],
            g_ptr_array_index (sent, n_frames - 1 - k)) == 0)
      k++;
    g_test_message ("the stalled receiver got the last %u frames in a row", k);
    /* its sender's reconnection is not refused by its own old connection */
    g_assert_null (strstr (warnings, "already has a sender"));
    /* its target counts as sent no more than it got: the transfers its
     * lost connection failed count as dropped (one may have arrived: the
     * sender cannot tell), and at least the run it got after it came back */
    g_assert_cmpuint (slow_grains, <=, n);
    g_assert_cmpuint (slow_grains, >=, k);
    g_assert_cmpuint (k, >=, n_frames - (LONG_STALL_S + 1) * 50);
  }

  g_strfreev (got_fast);
  g_strfreev (got_slow);
  g_ptr_array_unref (sent);
  g_free (warnings);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (extra);
  g_free (at_fast);
  g_free (at_slow);
  g_rmdir (dir);
  g_free (dir);
}

static void
bad_receiver (const gchar * provider, Badness how)
{
  bad_receiver_with (provider, how, "");
}

/* add-target refuses at once what it can check: documents the library
 * refuses, and a target given already, whichever form names it. */
static void
test_add_target_refusals (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-fanout-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *at_file = g_strdup_printf ("@%s", file);
  GstElement *src = hgst_parse ("mxlfabricssrc name=src provider=tcp node="
      NODE " caps=\"" CAPS "\" ! fakesink");
  GstElement *p = sink_pipeline ("tcp", NULL), *sink;
  gchar *json, *b64, *extra, *warnings;
  gboolean removed = FALSE;

  hgst_play (src);
  json = hgst_target_info (src);
  b64 = g_base64_encode ((const guchar *) json, strlen (json));
  g_assert_true (g_file_set_contents (file, json, -1, NULL));
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  g_assert_false (add_target (sink, "{}"));
  g_assert_false (add_target (sink, "{\"provider\":\"tcp\"}"));
  g_assert_true (add_target (sink, at_file));
  g_assert_false (add_target (sink, at_file));
  g_assert_false (add_target (sink, json));     /* the same target as JSON */
  g_assert_false (add_target (sink, b64));      /* and as base64 */
  /* and the other way round: JSON first, then the file naming it */
  g_signal_emit_by_name (sink, "remove-target", at_file, &removed);
  g_assert_true (removed);
  g_assert_true (add_target (sink, b64));
  g_assert_false (add_target (sink, at_file));
  g_assert_false (add_target (sink, json));
  gst_object_unref (sink);
  gst_object_unref (p);

  /* the target-info property naming a target add-target gave already: one
   * target, a WARNING, no ERROR at start */
  extra = g_strdup_printf ("target-info=%s", at_file);
  p = sink_pipeline ("tcp", extra);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  g_assert_true (add_target (sink, json));
  hgst_play (p);
  warnings = hgst_bus_warnings (p);  /* fails on any ERROR */
  g_assert_nonnull (strstr (warnings, "already added"));
  g_free (warnings);
  g_free (extra);
  gst_object_unref (sink);
  hgst_stop (p);
  hgst_stop (src);
  g_free (json);
  g_free (b64);
  g_unlink (file);
  g_rmdir (dir);
  g_free (at_file);
  g_free (file);
  g_free (dir);
}

/* A target whose flow does not match the caps fails alone: a WARNING
 * naming the mismatch, its own state error, no ERROR, and the other target
 * gets every frame. */
static void
test_caps_mismatch_alone (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-fanout-XXXXXX", NULL);
  Child good, bad;
  gchar *extra, *at_good, *at_bad, *warnings, **got;
  GstElement *p, *sink;
  GPtrArray *sent;
  gint state = 0;
  guint i;

  g_assert_nonnull (dir);
  child_start (&good, dir, "good", "tcp", CAPS, 0);
  child_start (&bad, dir, "bad", "tcp", OTHER_CAPS, 0);
  at_good = g_strdup_printf ("@%s", good.file);
  at_bad = g_strdup_printf ("@%s", bad.file);
  extra = g_strdup_printf ("target-info=%s", at_good);
  p = sink_pipeline ("tcp", extra);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  hgst_play (p);
  g_assert_true (add_target (sink, at_bad));
  g_assert_true (wait_target_state (sink, at_good, STATE_CONNECTED, 10000));

  sent = push_frames (p);
  g_assert_true (wait_target_state (sink, at_bad, STATE_ERROR, 5000));
  g_object_get (sink, "connection-state", &state, NULL);
  g_assert_cmpint (state, ==, STATE_CONNECTED);
  g_usleep (200 * 1000);
  g_assert_cmpuint (target_u64 (sink, at_good, "grains"), ==, N_FRAMES);
  warnings = hgst_bus_warnings (p);  /* fails on any ERROR */
  g_test_message ("warnings: %s", warnings);
  if (!strstr (warnings, at_bad) || !strstr (warnings, "does not match"))
    g_error ("no WARNING names the mismatched target %s: %s", at_bad,
        warnings);
  hgst_end_stream (p, 5000);    /* the good receiver ends at its EOS */
  gst_element_set_state (p, GST_STATE_NULL);

  got = child_finish (&good);
  child_kill (&bad);
  g_assert_cmpuint (g_strv_length (got), ==, N_FRAMES);
  for (i = 0; i < N_FRAMES; i++)
    g_assert_cmpstr (got[i], ==, g_ptr_array_index (sent, i));

  g_strfreev (got);
  g_ptr_array_unref (sent);
  g_free (warnings);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (extra);
  g_free (at_good);
  g_free (at_bad);
  g_rmdir (dir);
  g_free (dir);
}

/* With error-on-all-failed=false, even a sink whose only target fails
 * posts no ERROR: the target's state is error, and so is the element's. */
static void
test_all_failed_no_error (void)
{
  GstElement *src = hgst_parse ("mxlfabricssrc name=src provider=tcp node="
      NODE " caps=\"" OTHER_CAPS "\" ! fakesink");
  GstElement *p = sink_pipeline ("tcp", "error-on-all-failed=false"), *sink;
  GstElement *in;
  gchar *json, *warnings;
  gint state = 0;

  hgst_play (src);
  json = hgst_target_info (src);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  in = gst_bin_get_by_name (GST_BIN (p), "in");
  g_object_set (sink, "wait-for-connection", FALSE, NULL);
  hgst_play (p);
  g_assert_true (add_target (sink, json));
  g_assert_cmpint (gst_app_src_push_buffer (GST_APP_SRC (in),
          hgst_frame (FRAME_BYTES, 0, hgst_running_time (p, 0), FRAME_NS)),
      ==, GST_FLOW_OK);
  g_assert_true (wait_target_state (sink, json, STATE_ERROR, 5000));
  g_usleep (300 * 1000);
  warnings = hgst_bus_warnings (p);  /* fails on any ERROR */
  g_assert_nonnull (strstr (warnings, "does not match"));
  g_object_get (sink, "connection-state", &state, NULL);
  g_assert_cmpint (state, ==, STATE_ERROR);

  g_free (warnings);
  gst_object_unref (in);
  gst_object_unref (sink);
  hgst_stop (p);
  hgst_stop (src);
  g_free (json);
}

static void
test_slow_tcp (void)
{
  bad_receiver ("tcp", SLOW);
}

static void
test_slow_shm (void)
{
  bad_receiver ("shm", SLOW);
}

static void
test_stopped_tcp (void)
{
  bad_receiver ("tcp", STOPPED);
}

static void
test_killed_tcp (void)
{
  bad_receiver ("tcp", KILLED);
}

static void
test_stalled_shm (void)
{
  bad_receiver ("shm", STALLED);
}

static void
test_stalled_tcp (void)
{
  bad_receiver ("tcp", STALLED);
}

/* the same with every buffer copied into the sink's ring (the stalled
 * writes then read ring slots, not lent buffers) */
static void
test_stalled_shm_copy (void)
{
  bad_receiver_with ("shm", STALLED, "zero-copy=false");
}

/* stopped for 5 s of an 8 s stream, then continued */
static void
test_stalled_long_tcp (void)
{
  bad_receiver ("tcp", STALLED_LONG);
}

static void
test_stalled_tcp_copy (void)
{
  bad_receiver_with ("tcp", STALLED, "zero-copy=false");
}


int
main (int argc, char **argv)
{
  if (hgst_init (&argc, &argv, 7))
    return child_src (argv[2], argv[3], argv[4], argv[5],
        (guint) atoi (argv[6]));
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/fanout/add-target-refusals", test_add_target_refusals);
  g_test_add_func ("/gst/fanout/caps-mismatch-alone/tcp",
      test_caps_mismatch_alone);
  g_test_add_func ("/gst/fanout/all-failed-no-error", test_all_failed_no_error);
  g_test_add_func ("/gst/fanout/slow-receiver/tcp", test_slow_tcp);
  g_test_add_func ("/gst/fanout/slow-receiver/shm", test_slow_shm);
  g_test_add_func ("/gst/fanout/stopped-receiver/tcp", test_stopped_tcp);
  g_test_add_func ("/gst/fanout/killed-receiver/tcp", test_killed_tcp);
  g_test_add_func ("/gst/fanout/stalled-receiver/shm", test_stalled_shm);
  g_test_add_func ("/gst/fanout/stalled-receiver/tcp", test_stalled_tcp);
  g_test_add_func ("/gst/fanout/stalled-receiver/shm-copy",
      test_stalled_shm_copy);
  g_test_add_func ("/gst/fanout/stalled-receiver/tcp-copy",
      test_stalled_tcp_copy);
  g_test_add_func ("/gst/fanout/stalled-long/tcp", test_stalled_long_tcp);
  return g_test_run ();
}
