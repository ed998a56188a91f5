/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Helpers of the element-level tests (suites hardening and gst): pipelines
 * built from text, bounded bus waits, stats fields, deterministic frame
 * content, and the child processes of tests that re-execute themselves.
 * Every wait has a deadline; nothing here touches the network itself.
 */
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gst/app/app.h>
#include <gst/gst.h>

#include "hfill.h"

#define HGST_NODE "127.0.0.1"

static inline GstElement *
hgst_parse (const gchar * desc)
{
  GError *error = NULL;
  GstElement *p = gst_parse_launch (desc, &error);

  if (p == NULL)
    g_error ("cannot build \"%s\": %s", desc, error->message);
  return p;
}

/* Fails the test with the ERROR message if the bus holds one. */
static inline void
hgst_assert_no_error (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  gst_object_unref (bus);
  if (msg) {
    GError *e = NULL;
    gchar *d = NULL;
    gst_message_parse_error (msg, &e, &d);
    g_error ("%s: %s (%s)", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
        e->message, d);
  }
}

static inline void
hgst_play (GstElement * p)
{
  GstStateChangeReturn r = gst_element_set_state (p, GST_STATE_PLAYING);

  if (r == GST_STATE_CHANGE_FAILURE)
    hgst_assert_no_error (p);
  g_assert_cmpint (r, !=, GST_STATE_CHANGE_FAILURE);
}

static inline void
hgst_stop (GstElement * p)
{
  g_assert_cmpint (gst_element_set_state (p, GST_STATE_NULL), ==,
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (p);
}

/* The TargetInfo of the element named "src" of @p (g_free()). */
static inline gchar *
hgst_target_info (GstElement * p)
{
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  gchar *ti = NULL;

  g_object_get (src, "target-info", &ti, NULL);
  gst_object_unref (src);
  g_assert_nonnull (ti);
  return ti;
}

static inline void
hgst_set_target_info (GstElement * p, const gchar * ti)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");

  g_object_set (sink, "target-info", ti, NULL);
  gst_object_unref (sink);
}

/* A uint64 field of the `stats` of element @name; fails if absent. */
static inline guint64
hgst_stat (GstElement * p, const gchar * name, const gchar * field)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (p), name);
  GstStructure *s = NULL;
  guint64 v = 0;

  g_object_get (e, "stats", &s, NULL);
  if (!gst_structure_get_uint64 (s, field, &v))
    g_error ("stats of %s have no uint64 field %s: %s", name, field,
        gst_structure_to_string (s));
  gst_structure_free (s);
  gst_object_unref (e);
  return v;
}

/* Logs the `stats` of element @name of @p (g_test_message()), "@what:
 * <structure>": what a failing assertion after it is to be read against. */
static inline void
hgst_log_stats (GstElement * p, const gchar * name, const gchar * what)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (p), name);
  GstStructure *s = NULL;
  gchar *text;

  g_object_get (e, "stats", &s, NULL);
  text = gst_structure_to_string (s);
  g_test_message ("%s: %s", what, text);
  g_free (text);
  gst_structure_free (s);
  gst_object_unref (e);
}

/* The entry of the `targets` stats of mxlfabricssink @sink whose source
 * (the target as given) is @source, a copy (gst_structure_free()), or NULL. */
static inline GstStructure *
hgst_sink_target_stats (GstElement * sink, const gchar * source)
{
  GstStructure *s = NULL, *found = NULL;
  const GValue *targets;
  guint k;

  g_object_get (sink, "stats", &s, NULL);
  targets = gst_structure_get_value (s, "targets");
  for (k = 0; targets && k < gst_value_array_get_size (targets); k++) {
    const GstStructure *t =
        gst_value_get_structure (gst_value_array_get_value (targets, k));
    if (g_strcmp0 (gst_structure_get_string (t, "source"), source) == 0)
      found = gst_structure_copy (t);
  }
  gst_structure_free (s);
  return found;
}

/* A uint64 of the `targets` entry of the element named "sink" of @p whose
 * source is @source; fails if there is none, or it lacks @field. */
static inline guint64
hgst_sink_target_stat (GstElement * p, const gchar * source,
    const gchar * field)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  GstStructure *t = hgst_sink_target_stats (sink, source);
  guint64 v = 0;

  g_assert_nonnull (t);
  g_assert_true (gst_structure_get_uint64 (t, field, &v));
  gst_structure_free (t);
  gst_object_unref (sink);
  return v;
}

/* Waits (bounded by @ms) until the element named "sink" of @p has done @n
 * renders (stats buffers + dropped). */
static inline void
hgst_wait_rendered (GstElement * p, guint64 n, guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  while (hgst_stat (p, "sink", "buffers") + hgst_stat (p, "sink", "dropped") < n
      && g_get_monotonic_time () < end)
    g_usleep (5 * 1000);
}

/* Waits (bounded by @ms) until the sink of @p is connected (state 3), or
 * (@connected FALSE) no longer is. TRUE when it came to that. */
static inline gboolean
hgst_wait_sink_connected (GstElement * p, guint ms, gboolean connected)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (p), "sink");
  gint64 deadline = g_get_monotonic_time () + ms * 1000;
  gint state = 0;

  while (TRUE) {
    g_object_get (e, "connection-state", &state, NULL);
    if ((state == 3) == connected || g_get_monotonic_time () > deadline)
      break;
    g_usleep (10 * 1000);
  }
  gst_object_unref (e);
  return (state == 3) == connected;
}

/* Waits (bounded by @ms) until the sink of @p is connected (state 3). */
static inline gboolean
hgst_wait_connected (GstElement * p, guint ms)
{
  return hgst_wait_sink_connected (p, ms, TRUE);
}

/* Waits (bounded: 10 s) until @e has its base time: a src writes its
 * TargetInfo file when it listens, before PLAYING gives it one, and a
 * grain made before it is skipped-at-start (gst/srcread.c count_early), so
 * a sender starts after this. Not get_state: an appsink or fakesink
 * completes PLAYING only with a first buffer. */
static inline void
hgst_wait_base_time (GstElement * e)
{
  for (guint i = 0; i < 1000 && gst_element_get_base_time (e) == 0; i++)
    g_usleep (10 * 1000);
  g_assert_cmpuint (gst_element_get_base_time (e), !=, 0);
}

static inline GstBuffer *
hgst_frame (gsize size, guint i, GstClockTime pts, GstClockTime dur)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, size, NULL);
  GstMapInfo map;

  g_assert_true (gst_buffer_map (b, &map, GST_MAP_WRITE));
  hgst_fill (map.data, size, i);
  gst_buffer_unmap (b, &map);
  GST_BUFFER_PTS (b) = pts;
  GST_BUFFER_DURATION (b) = dur;
  return b;
}

static inline gchar *
hgst_checksum (GstBuffer * buf)
{
  GstMapInfo map;
  gchar *sum;

  g_assert_true (gst_buffer_map (buf, &map, GST_MAP_READ));
  sum = g_compute_checksum_for_data (G_CHECKSUM_SHA1, map.data, map.size);
  gst_buffer_unmap (buf, &map);
  return sum;
}

/* The running time of @p now plus @ahead (a PTS that sync=true renders soon). */
static inline GstClockTime
hgst_running_time (GstElement * p, GstClockTime ahead)
{
  GstClock *clock = gst_element_get_clock (p);
  GstClockTime t;

  g_assert_nonnull (clock);
  t = gst_clock_get_time (clock) - gst_element_get_base_time (p) + ahead;
  gst_object_unref (clock);
  return t;
}

/* Queues @n frames of @size bytes (hgst_frame(), frame k stamped k *
 * @frame_ns after 100 ms from now: sync=true paces them) on the appsrc
 * "in" of @p; returns their SHA-1s (g_ptr_array_unref()). */
static inline GPtrArray *
hgst_queue_frames (GstElement * p, gsize size, guint n, GstClockTime frame_ns)
{
  GstElement *in = gst_bin_get_by_name (GST_BIN (p), "in");
  GPtrArray *sent = g_ptr_array_new_with_free_func (g_free);
  GstClockTime base = hgst_running_time (p, 100 * GST_MSECOND);
  guint k;

  for (k = 0; k < n; k++) {
    GstBuffer *b = hgst_frame (size, k, base + k * frame_ns, frame_ns);

    g_ptr_array_add (sent, hgst_checksum (b));
    g_assert_cmpint (gst_app_src_push_buffer (GST_APP_SRC (in), b), ==,
        GST_FLOW_OK);
  }
  gst_object_unref (in);
  return sent;
}

/* Now on CLOCK_TAI (the clock of MXL grain indices), in ns. */
static inline guint64
hgst_tai_now (void)
{
  struct timespec ts;

  g_assert_cmpint (clock_gettime (CLOCK_TAI, &ts), ==, 0);
  return (guint64) ts.tv_sec * GST_SECOND + (guint64) ts.tv_nsec;
}

/* Collects the text of every WARNING on the bus of @p, "message (debug)"
 * one a line, and fails on any ERROR (one filter: a pop drops the messages
 * it does not match). */
static inline gchar *
hgst_bus_warnings (GstElement * p)
{
  GstBus *bus = gst_element_get_bus (p);
  GString *all = g_string_new (NULL);
  GstMessage *m;

  while ((m = gst_bus_pop_filtered (bus,
              GST_MESSAGE_WARNING | GST_MESSAGE_ERROR))) {
    GError *e = NULL;
    gchar *d = NULL;

    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (m, &e, &d);
      g_error ("unexpected ERROR: %s (%s)", e->message, d);
    }
    gst_message_parse_warning (m, &e, &d);
    g_string_append_printf (all, "%s (%s)\n", e->message, d ? d : "");
    g_error_free (e);
    g_free (d);
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  return g_string_free (all, FALSE);
}

/* Plays @rx (whose src is named "src"), hands its TargetInfo to @tx (whose
 * sink is named "sink") and plays @tx; returns the TargetInfo (g_free()). */
static inline gchar *
hgst_play_pair (GstElement * rx, GstElement * tx)
{
  gchar *ti;

  hgst_play (rx);
  ti = hgst_target_info (rx);
  hgst_set_target_info (tx, ti);
  /* The sender's first grain is the index nearest its running time 0, so
   * its origin time can lie up to half a period before the sender started;
   * if that is before the receiver's base time the src does not push it
   * (skipped-at-start, docs/bus-and-stats.md). Start the sender once the
   * receiver has run 100 ms (more than half of any period these tests use),
   * so that every grain sent is the receiver's to push. */
  gst_element_get_state (rx, NULL, NULL, 5 * GST_SECOND);
  for (guint i = 0; i < 200 && hgst_running_time (rx, 0) < 100 * GST_MSECOND;
      i++)
    g_usleep (5 * 1000);
  hgst_play (tx);
  return ti;
}

/* Pushes @b into the appsrc named "in" of @p; fails unless it is taken. */
static inline void
hgst_push (GstElement * p, GstBuffer * b)
{
  GstElement *in = gst_bin_get_by_name (GST_BIN (p), "in");

  g_assert_cmpint (gst_app_src_push_buffer (GST_APP_SRC (in), b), ==,
      GST_FLOW_OK);
  gst_object_unref (in);
}

/* The next buffer of the appsink named @name of @p, NULL after @ms. */
static inline GstBuffer *
hgst_pull_from (GstElement * p, const gchar * name, guint ms)
{
  GstElement *out = gst_bin_get_by_name (GST_BIN (p), name);
  GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (out),
      ms * GST_MSECOND);
  GstBuffer *b = NULL;

  if (s) {
    b = gst_buffer_ref (gst_sample_get_buffer (s));
    gst_sample_unref (s);
  }
  gst_object_unref (out);
  return b;
}

/* The next buffer of the appsink named "out" of @p, NULL after @ms. */
static inline GstBuffer *
hgst_pull (GstElement * p, guint ms)
{
  return hgst_pull_from (p, "out", ms);
}

/* Waits up to @ms for child @pid to exit (continuing it first, in case it
 * was stopped); past that, kills it by PID. TRUE when it exited by itself. */
static inline gboolean
hgst_reap (GPid pid, guint ms, gint * status)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  kill (pid, SIGCONT);
  while (g_get_monotonic_time () < end) {
    if (waitpid (pid, status, WNOHANG) == pid)
      return TRUE;
    g_usleep (20 * 1000);
  }
  kill (pid, SIGKILL);
  waitpid (pid, status, 0);
  return FALSE;
}

/* Reaps child @pid as hgst_reap() does (@ms) and fails unless it exited by
 * itself with status 0. */
static inline void
hgst_assert_child_ok (GPid pid, guint ms)
{
  gint status = 0;

  g_assert_true (hgst_reap (pid, ms, &status));
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
}

/* Removes a test's files @file and @out (nullable) and then its directory
 * @dir, and frees the three names. */
static inline void
hgst_remove_files (gchar * dir, gchar * file, gchar * out)
{
  if (out)
    g_unlink (out);
  g_unlink (file);
  g_rmdir (dir);
  g_free (out);
  g_free (file);
  g_free (dir);
}

/* ------------------------------------------- tests that re-execute themselves
 *
 * A two-process test runs its receiver in this same binary started again
 * with "--child-src" and the child's arguments (hgst_spawn_child()); its
 * main() begins with hgst_init(), which says when it is that child. */

/* argv[0] of this process, set by hgst_init(). */
static const gchar *hgst_self_exe;

/* The prologue of main(): notes argv[0] (hgst_self_exe), keeps the registry
 * update in this process (no fork) and initialises GStreamer. TRUE when
 * this process is a child started by hgst_spawn_child() with @child_argc
 * arguments in all (argv[0], "--child-src" and the child's own). */
static inline gboolean
hgst_init (int *argc, char ***argv, int child_argc)
{
  hgst_self_exe = (*argv)[0];
  gst_registry_fork_set_enabled (FALSE);
  gst_init (argc, argv);
  return *argc == child_argc && g_str_equal ((*argv)[1], "--child-src");
}

/* Starts this binary again as `hgst_self_exe --child-src @first ...` (a
 * NULL-terminated list of strings), not reaped: the caller reaps it by PID
 * (hgst_reap(), hgst_assert_child_ok()). Returns its PID. */
G_GNUC_NULL_TERMINATED static inline GPid
hgst_spawn_child (const gchar * first, ...)
{
  GPtrArray *argv = g_ptr_array_new ();
  GError *error = NULL;
  const gchar *a;
  va_list ap;
  GPid pid;

  g_assert_nonnull (hgst_self_exe);
  g_ptr_array_add (argv, (gpointer) hgst_self_exe);
  g_ptr_array_add (argv, (gpointer) "--child-src");
  va_start (ap, first);
  for (a = first; a != NULL; a = va_arg (ap, const gchar *))
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_async (NULL, (gchar **) argv->pdata, NULL,
          G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, &error));
  g_ptr_array_free (argv, TRUE);
  return pid;
}

/* Waits (bounded: 500 times 20 ms) until @file exists, as a child's
 * TargetInfo file does once its src listens. TRUE when it does. */
static inline gboolean
hgst_wait_file (const gchar * file)
{
  for (guint i = 0; i < 500 && !g_file_test (file, G_FILE_TEST_EXISTS); i++)
    g_usleep (20 * 1000);
  return g_file_test (file, G_FILE_TEST_EXISTS);
}

/* Starts @argv (NULL-terminated: "gst-launch-1.0" and its arguments,
 * found on PATH, stderr to /dev/null), not reaped, and waits (bounded:
 * 10 s) until it printed PLAYING; fails otherwise. Returns its PID;
 * *@out_fd is its stdout, for the caller to close. */
static inline GPid
hgst_launch_playing (gchar ** argv, gint * out_fd)
{
  GError *error = NULL;
  GString *text = g_string_new (NULL);
  gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  GPid pid;

  g_assert_true (g_spawn_async_with_pipes (NULL, argv, NULL,
          G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD |
          G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &pid, NULL, out_fd, NULL,
          &error));
  while (!strstr (text->str, "PLAYING") && g_get_monotonic_time () < end) {
    gchar buf[256];
    struct pollfd pfd = { *out_fd, POLLIN, 0 };
    ssize_t n;

    if (poll (&pfd, 1, 100) <= 0)
      continue;
    n = read (*out_fd, buf, sizeof buf);
    if (n <= 0)
      break;
    g_string_append_len (text, buf, n);
  }
  g_assert_nonnull (strstr (text->str, "PLAYING"));
  g_string_free (text, TRUE);
  return pid;
}

typedef void (*HgstEachBuffer) (GstBuffer * b, gpointer data);

/* Pulls buffers from the appsink "out" of @p and hands each to @each (which
 * does not keep it) until @n came (0: no limit) or none came within
 * @first_ms (for the first buffer) or @ms (for each later one). Returns
 * how many came. */
static inline guint
hgst_pull_each (GstElement * p, guint n, guint first_ms, guint ms,
    HgstEachBuffer each, gpointer data)
{
  guint got = 0;

  while (n == 0 || got < n) {
    GstBuffer *b = hgst_pull (p, got ? ms : first_ms);

    if (b == NULL)
      break;
    each (b, data);
    gst_buffer_unref (b);
    got++;
  }
  return got;
}

/* An HgstEachBuffer: appends the SHA-1 of @b and a newline to the GString
 * @sums. */
static inline void
hgst_append_checksum (GstBuffer * b, gpointer sums)
{
  gchar *sum = hgst_checksum (b);

  g_string_append_printf (sums, "%s\n", sum);
  g_free (sum);
}

static volatile sig_atomic_t hgst_sigint_seen;

static inline void
hgst_on_sigint (int sig)
{
  hgst_sigint_seen = 1;
}

/* A child receiver's loop that its parent ends with SIGINT: hands each
 * buffer from the appsink "out" of @p to @each until SIGINT came or none
 * came for @idle_ms. Returns how many came. */
static inline guint
hgst_pull_until_sigint (GstElement * p, guint idle_ms, HgstEachBuffer each,
    gpointer data)
{
  gint64 last = g_get_monotonic_time ();
  guint got = 0;

  signal (SIGINT, hgst_on_sigint);
  while (!hgst_sigint_seen
      && g_get_monotonic_time () - last < (gint64) idle_ms * 1000) {
    GstBuffer *b = hgst_pull (p, 100);

    if (b == NULL)
      continue;
    last = g_get_monotonic_time ();
    each (b, data);
    gst_buffer_unref (b);
    got++;
  }
  return got;
}

/* A child receiver's loop: pulls buffers as hgst_pull_each() does and
 * writes their SHA-1s, one a line, to @out. Returns how many came. */
static inline guint
hgst_write_checksums (GstElement * p, const gchar * out, guint n,
    guint first_ms, guint ms)
{
  GString *sums = g_string_new (NULL);
  guint got = hgst_pull_each (p, n, first_ms, ms, hgst_append_checksum, sums);

  g_file_set_contents (out, sums->str, -1, NULL);
  g_string_free (sums, TRUE);
  return got;
}

/* The lines of the file @out that a child wrote (g_strfreev()); fails if
 * it cannot be read. An empty file has no lines. */
static inline gchar **
hgst_read_lines (const gchar * out)
{
  gchar *text = NULL, **lines;

  g_assert_true (g_file_get_contents (out, &text, NULL, NULL));
  lines = g_strsplit (g_strchomp (text), "\n", -1);
  g_free (text);
  return lines;
}

/* A tcp port of 127.0.0.1 free now (the kernel's pick, released). */
static inline guint
hgst_free_port (void)
{
  struct sockaddr_in a = { 0 };
  socklen_t len = sizeof a;
  gint fd = socket (AF_INET, SOCK_STREAM, 0);

  g_assert_cmpint (fd, >=, 0);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (bind (fd, (struct sockaddr *) &a, sizeof a), ==, 0);
  g_assert_cmpint (getsockname (fd, (struct sockaddr *) &a, &len), ==, 0);
  close (fd);
  return ntohs (a.sin_port);
}

/* Pushes @n frames of @bytes (hgst_frame(), live timestamps @frame_ns
 * apart from 100 ms ahead) into the appsrc "in" of the playing @tx, whose
 * sink "sink" is connected; waits (bounded by @ms) until all were
 * rendered, fails unless every one was sent (none dropped) and no ERROR
 * came, and stops @tx. Returns the SHA-1s sent, in order
 * (g_ptr_array_unref()). */
static inline GPtrArray *
hgst_send_frames_and_stop (GstElement * tx, guint n, gsize bytes,
    GstClockTime frame_ns, guint ms)
{
  GPtrArray *sent = g_ptr_array_new_with_free_func (g_free);
  GstElement *in = gst_bin_get_by_name (GST_BIN (tx), "in");
  GstClockTime base = hgst_running_time (tx, 100 * GST_MSECOND);

  for (guint k = 0; k < n; k++) {
    GstBuffer *b = hgst_frame (bytes, k, base + k * frame_ns, frame_ns);

    g_ptr_array_add (sent, hgst_checksum (b));
    g_assert_cmpint (gst_app_src_push_buffer (GST_APP_SRC (in), b), ==,
        GST_FLOW_OK);
  }
  hgst_wait_rendered (tx, n, ms);
  g_assert_cmpuint (hgst_stat (tx, "sink", "buffers"), ==, n);
  g_assert_cmpuint (hgst_stat (tx, "sink", "dropped"), ==, 0);
  g_usleep (300 * 1000);        /* the last transfers complete */
  hgst_assert_no_error (tx);
  gst_object_unref (in);
  hgst_stop (tx);
  return sent;
}

/* Parses and plays the sender @desc (an appsrc "in" in front of an
 * mxlfabricssink "sink"), waits (bounded: 5 s) until its sink is connected
 * and sends @n frames with hgst_send_frames_and_stop(), which stops it.
 * Returns the SHA-1s sent. */
static inline GPtrArray *
hgst_connect_and_send (const gchar * desc, guint n, gsize bytes,
    GstClockTime frame_ns, guint ms)
{
  GstElement *tx = hgst_parse (desc);

  hgst_play (tx);
  g_assert_true (hgst_wait_connected (tx, 5000));
  return hgst_send_frames_and_stop (tx, n, bytes, frame_ns, ms);
}

/* Fails unless the file @out a child wrote lists exactly the SHA-1s
 * @sent, in order. */
static inline void
hgst_assert_sums (const gchar * out, GPtrArray * sent)
{
  gchar **got = hgst_read_lines (out);

  g_assert_cmpuint (g_strv_length (got), ==, sent->len);
  for (guint k = 0; k < sent->len; k++)
    g_assert_cmpstr (got[k], ==, g_ptr_array_index (sent, k));
  g_strfreev (got);
}

/* Ends the stream of the sender @p: EOS into its appsrc "in", then waits
 * (bounded by @ms) for the EOS message on its bus, which its
 * mxlfabricssink posts once its last transfers completed and it sent the
 * end-of-stream notice to its targets (docs/bus-and-stats.md): a receiver
 * (an appsink pulling until none came for a while) then ends at EOS at
 * once instead of after its idle timeout. Fails on an ERROR or when no
 * EOS came; @p stays playing for the caller to stop. */
static inline void
hgst_end_stream (GstElement * p, guint ms)
{
  GstElement *in = gst_bin_get_by_name (GST_BIN (p), "in");
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *m;

  g_assert_cmpint (gst_app_src_end_of_stream (GST_APP_SRC (in)), ==,
      GST_FLOW_OK);
  m = gst_bus_timed_pop_filtered (bus, (GstClockTime) ms * GST_MSECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  g_assert_nonnull (m);
  g_assert_cmpint (GST_MESSAGE_TYPE (m), ==, GST_MESSAGE_EOS);
  gst_message_unref (m);
  gst_object_unref (bus);
  gst_object_unref (in);
}
