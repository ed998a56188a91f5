/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Senders and receivers coming and going (issue 20, items 1 and 4), with
 * the real elements in two processes.
 *
 * Senders are appsrc ! mxlfabricssink pipelines in this process that
 * follow the receiver's TargetInfo file (target-info=@file); each pushes a
 * small v210 frame every 20 ms from a thread, every 32-bit word of frame k
 * of sender s being (s << 24) | k. The receiver is this binary re-executed
 * with --child-src: mxlfabricssrc ! appsink, writing one line per frame to
 * a file ("<sender> <k>", or "BAD" for a frame that is not one repeated
 * word), so that a receiver killed with SIGKILL leaves its count behind
 * too; on SIGINT it stops its pipeline in order and appends "refused <n>"
 * (its initiators-refused counter).
 *
 * - shm-receiver-restarts: one sender, a shm receiver restarted 5 times;
 *   frames are made only while the sender is connected (pusher_thread).
 *   Each instance is first stopped (SIGSTOP) so that the sender has writes
 *   posted that the receiver never processes, then ended with SIGKILL or
 *   SIGINT: on libfabric 1.17 shm such a write kept the sender's endpoint
 *   from completing anything for any later receiver, which then got as
 *   many frames as the sender's local ring holds and no more.
 * - second-sender-{shm,tcp}: a second sender to the same receiver is
 *   refused with a WARNING saying the receiver already has a sender, the
 *   receiver counts it, and only the first sender's frames arrive.
 * - shared-receiver-shm: a receiver whose options allow several senders
 *   ("exclusive": false) takes both.
 * - stalled-receiver-shm: a receiver stopped (SIGSTOP) is reported lost and
 *   its transfers failed; it gets frames again once it continues.
 * - stopped-receiver-sender-leaves-shm: a sender that reconnected to a
 *   stopped receiver leaves; the receiver continues and ends in order.
 *
 * Children are stopped and reaped by PID; every wait is bounded.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "../hardening/hgst.h"

#define HEIGHT 32
#define CAPS "video/x-raw,format=v210,width=384,height=32,framerate=50/1"
#define FRAME_BYTES (1024 * HEIGHT)
#define FRAME_NS (20 * GST_MSECOND)
#define INSTANCES 6             /* the first receiver and 5 restarts */
#define MIN_FRAMES 40           /* each instance, before it is stopped */

static volatile sig_atomic_t child_stop;

static guint32
frame_value (guint sender, guint k)
{
  return (guint32) sender << 24 | (k & 0xffffffu);
}

static void
on_sigint (int sig)
{
  child_stop = 1;
}

/* Child: see the top of the file. No frame for 20 s ends it too. */
static int
child_src (const gchar * provider, const gchar * file, const gchar * out)
{
  /* "shared": shm with several senders allowed */
  gboolean shared = g_str_equal (provider, "shared");
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=%s %s "
      "caps=\"" CAPS "\" target-info-file=%s ! appsink name=out sync=false "
      "max-buffers=1000", shared ? "shm" : provider,
      g_str_equal (provider, "tcp") ? "node=" HGST_NODE : shared ?
      "options=\"{\\\"exclusive\\\":false}\"" : "", file);
  GstElement *p = hgst_parse (desc), *sink = gst_bin_get_by_name (GST_BIN (p),
      "out");
  FILE *f = fopen (out, "w");
  gint64 last = g_get_monotonic_time ();

  signal (SIGINT, on_sigint);
  if (f == NULL || gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    return 3;
  while (!child_stop && g_get_monotonic_time () - last < 20 * G_USEC_PER_SEC) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        100 * GST_MSECOND);
    GstMapInfo map;
    gboolean ok;
    guint32 v = 0;

    if (s == NULL)
      continue;
    last = g_get_monotonic_time ();
    g_assert_true (gst_buffer_map (gst_sample_get_buffer (s), &map,
            GST_MAP_READ));
    ok = map.size == FRAME_BYTES;
    if (ok) {
      const guint32 *w = (const guint32 *) map.data;
      gsize k;
      v = w[0];
      ok = (v >> 24) >= 1 && (v >> 24) <= 2;
      for (k = 1; ok && k < map.size / 4; k++)
        ok = w[k] == v;
    }
    gst_buffer_unmap (gst_sample_get_buffer (s), &map);
    if (ok)
      fprintf (f, "%u %u\n", v >> 24, v & 0xffffffu);
    else
      fprintf (f, "BAD\n");
    fflush (f);
    gst_sample_unref (s);
  }
  fprintf (f, "refused %" G_GUINT64_FORMAT "\n", hgst_stat (p, "src",
          "initiators-refused"));
  gst_element_set_state (p, GST_STATE_NULL);
  fclose (f);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (desc);
  return 0;
}

/* One line of the child's file. */
typedef struct {
  guint sender;                 /* 0: BAD */
  guint k;
} Frame;

/* The child's frames; @refused: its last "refused" line, G_MAXUINT64 when
 * there is none. */
static GArray *
read_frames (const gchar * out, guint64 * refused)
{
  GArray *frames = g_array_new (FALSE, FALSE, sizeof (Frame));
  gchar *text = NULL, **lines;

  if (refused)
    *refused = G_MAXUINT64;
  if (!g_file_get_contents (out, &text, NULL, NULL))
    return frames;
  lines = g_strsplit (text, "\n", -1);
  for (gchar ** l = lines; *l; l++) {
    Frame fr = { 0, 0 };
    if (**l == '\0')
      continue;
    if (g_str_has_prefix (*l, "refused ")) {
      if (refused)
        *refused = g_ascii_strtoull (*l + 8, NULL, 10);
      continue;
    }
    if (!g_str_equal (*l, "BAD"))
      sscanf (*l, "%u %u", &fr.sender, &fr.k);
    g_array_append_val (frames, fr);
  }
  g_strfreev (lines);
  g_free (text);
  return frames;
}

/* A sender pipeline and the thread that pushes its frames. */
typedef struct {
  GstElement *p, *in;
  GstClockTime base;
  guint sender;
  gint stop;
  guint pushed;
  gboolean only_connected;      /* make frames only while the sink is connected */
  GThread *thread;
} Sender;

static gboolean
sink_connected (Sender * ps)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (ps->p), "sink");
  gint state = 0;

  g_object_get (sink, "connection-state", &state, NULL);
  gst_object_unref (sink);
  return state == 3;            /* GST_MXL_FABRICS_CONNECTION_CONNECTED */
}

/* Pushes like a live source: frame after frame on a 20 ms grid of time
 * since the thread started (PTS from ps->base), each stamped with its
 * tick. A push blocks while the sink does (it waits for a receiver to
 * connect, wait-for-connection); the ticks that passed meanwhile are left
 * out, not made up for, so that no backlog goes out in a burst once a
 * receiver connects (more grains at once than the receiver's 200 ms ring
 * holds, which it then skips: "grains behind the newest"). The frame
 * counter k still counts every frame pushed. With ps->only_connected, no
 * frame is made while the sink's connection-state is not connected: each
 * receiver's first frame is then one made after its connection, not one
 * that waited for it (see test_receiver_restarts). */
static gpointer
pusher_thread (gpointer data)
{
  Sender *ps = data;
  gint64 start = g_get_monotonic_time ();
  guint64 tick = 0;

  /* bounded: 60 s of frames at most */
  while (!g_atomic_int_get (&ps->stop) && ps->pushed < 3000) {
    GstClockTime now = (g_get_monotonic_time () - start) * GST_USECOND;
    GstBuffer *b;
    GstMapInfo map;
    guint32 *w;

    tick = MAX (tick, now / FRAME_NS);
    if (tick * FRAME_NS > now)
      g_usleep ((tick * FRAME_NS - now) / GST_USECOND);
    if (ps->only_connected && !sink_connected (ps)) {
      tick++;
      continue;
    }
    b = gst_buffer_new_allocate (NULL, FRAME_BYTES, NULL);
    gst_buffer_map (b, &map, GST_MAP_WRITE);
    w = (guint32 *) map.data;
    for (gsize i = 0; i < FRAME_BYTES / 4; i++)
      w[i] = frame_value (ps->sender, ps->pushed);
    gst_buffer_unmap (b, &map);
    GST_BUFFER_PTS (b) = ps->base + tick * FRAME_NS;
    GST_BUFFER_DURATION (b) = FRAME_NS;
    if (gst_app_src_push_buffer (GST_APP_SRC (ps->in), b) != GST_FLOW_OK)
      break;
    ps->pushed++;
    tick++;
  }
  return NULL;
}

static void
sender_start_with (Sender * ps, guint sender, const gchar * provider,
    const gchar * file, gboolean only_connected)
{
  gchar *desc = g_strdup_printf ("appsrc name=in format=time caps=\"" CAPS
      "\" max-bytes=0 max-buffers=1 block=true ! mxlfabricssink name=sink provider=%s %s "
      "sync=false target-info=@%s", provider, g_str_equal (provider, "tcp") ?
      "node=" HGST_NODE : "", file);
  GstClock *clock;

  memset (ps, 0, sizeof *ps);
  ps->sender = sender;
  ps->only_connected = only_connected;
  ps->p = hgst_parse (desc);
  ps->in = gst_bin_get_by_name (GST_BIN (ps->p), "in");
  hgst_play (ps->p);
  clock = gst_element_get_clock (ps->p);
  ps->base = clock ? gst_clock_get_time (clock) -
      gst_element_get_base_time (ps->p) + 50 * GST_MSECOND : 0;
  g_clear_object (&clock);
  ps->thread = g_thread_new ("pusher", pusher_thread, ps);
  g_free (desc);
}

static void
sender_start (Sender * ps, guint sender, const gchar * provider,
    const gchar * file)
{
  sender_start_with (ps, sender, provider, file, FALSE);
}

static void
sender_stop_pushing (Sender * ps)
{
  g_atomic_int_set (&ps->stop, 1);
  g_thread_join (ps->thread);
}

static void
sender_free (Sender * ps)
{
  hgst_stop (ps->p);
  gst_object_unref (ps->in);
}

static GPid
spawn_receiver (const gchar * provider, const gchar * file, const gchar * out)
{
  g_unlink (file);
  return hgst_spawn_child (provider, file, out, NULL);
}

/* Ends a receiver with SIGINT (in order) and reaps it. */
static void
stop_receiver (GPid pid)
{
  g_assert_cmpint (kill (pid, SIGINT), ==, 0);
  hgst_assert_child_ok (pid, 10000);
}

/* Waits (bounded by @ms) until @out holds @n frames. */
static void
wait_frames (const gchar * out, guint n, guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < end) {
    GArray *frames = read_frames (out, NULL);
    guint have = frames->len;
    g_array_unref (frames);
    if (have >= n)
      return;
    g_usleep (20 * 1000);
  }
}

static void
test_receiver_restarts (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-restart-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  Sender ps;
  guint64 queued = 0, completed = 0, failed = 0, total = 0;

  g_assert_nonnull (dir);
  /* "from its connection on": frames are made only while the sink is
   * connected. A frame made before (it waited in the sink for the
   * connection) is followed by one whose index is as many periods later
   * as it waited, often more than the receiver's ring: the grains before
   * that jump are then outside the flow's valid window (docs/flow-format.md §5.2,
   * i < H - N + 1 is TOO_LATE) unless the src read them first. */
  sender_start_with (&ps, 1, "shm", file, TRUE);
  for (guint i = 0; i < INSTANCES; i++) {
    gchar *out = g_strdup_printf ("%s/received.%u", dir, i);
    gboolean kill9 = i % 2 == 1;
    GPid pid = spawn_receiver ("shm", file, out);
    GArray *frames;
    gint status = 0;
    guint bad = 0, gaps = 0;

    wait_frames (out, MIN_FRAMES, 8000);
    /* Writes posted while it is stopped are never processed by it. */
    g_assert_cmpint (kill (pid, SIGSTOP), ==, 0);
    g_usleep (150 * 1000);
    if (kill9) {
      g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
    } else {
      g_assert_cmpint (kill (pid, SIGINT), ==, 0);
      g_assert_cmpint (kill (pid, SIGCONT), ==, 0);
    }
    g_assert_true (hgst_reap (pid, 10000, &status));
    if (kill9)
      g_assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
    else
      g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);

    frames = read_frames (out, NULL);
    for (guint k = 0; k < frames->len; k++) {
      const Frame *fr = &g_array_index (frames, Frame, k);
      if (fr->sender != 1)
        bad++;
      else if (k > 0 && fr->k != g_array_index (frames, Frame, k - 1).k + 1)
        gaps++;
    }
    g_test_message ("receiver %u (%s): %u frames (%u .. %u), %u bad, %u gaps",
        i, kill9 ? "SIGKILL" : "SIGINT", frames->len,
        frames->len ? g_array_index (frames, Frame, 0).k : 0,
        frames->len ? g_array_index (frames, Frame, frames->len - 1).k : 0,
        bad, gaps);
    /* every frame from its first one on, each one bit-exact */
    g_assert_cmpuint (frames->len, >=, MIN_FRAMES);
    g_assert_cmpuint (bad, ==, 0);
    g_assert_cmpuint (gaps, ==, 0);
    total += frames->len;
    g_array_unref (frames);
    g_unlink (out);
    g_free (out);
  }
  sender_stop_pushing (&ps);

  /* Nothing is left hanging: every transfer queued completed or failed
   * (the last receiver is gone, so its transfers fail within the stall
   * limit at most). Engine stats are refreshed every 100 ms. */
  for (guint t = 0; t < 800; t++) {
    queued = hgst_stat (ps.p, "sink", "transfers-queued");
    completed = hgst_stat (ps.p, "sink", "transfers-completed");
    /* transfers-failed also counts the transfers refused unqueued while
     * no receiver was connected (transfers-not-connected) */
    failed = hgst_stat (ps.p, "sink", "transfers-failed")
        - hgst_stat (ps.p, "sink", "transfers-not-connected");
    if (queued == completed + failed)
      break;
    g_usleep (10 * 1000);
  }
  g_test_message ("sender: pushed %u, transfers queued %" G_GUINT64_FORMAT
      ", completed %" G_GUINT64_FORMAT ", failed %" G_GUINT64_FORMAT
      ", dropped-in-flight %" G_GUINT64_FORMAT, ps.pushed, queued, completed,
      failed, hgst_stat (ps.p, "sink", "dropped-in-flight"));
  g_assert_cmpuint (queued, ==, completed + failed);
  g_assert_cmpuint (completed, >=, total);
  g_assert_cmpuint (queued, <=, ps.pushed);
  hgst_assert_no_error (ps.p);

  sender_free (&ps);
  hgst_remove_files (dir, file, NULL);
}

/* Waits (bounded by @ms) for a WARNING of @p containing @text. */
static gboolean
wait_warning (GstElement * p, const gchar * text, guint ms)
{
  GstBus *bus = gst_element_get_bus (p);
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;
  gboolean found = FALSE;

  while (!found && g_get_monotonic_time () < end) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 50 * GST_MSECOND,
        GST_MESSAGE_WARNING | GST_MESSAGE_ERROR);
    GError *e = NULL;

    if (m == NULL)
      continue;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING)
      gst_message_parse_warning (m, &e, NULL);
    else
      gst_message_parse_error (m, &e, NULL);
    g_test_message ("%s: %s", GST_MESSAGE_TYPE_NAME (m), e->message);
    found = GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING
        && strstr (e->message, text) != NULL;
    g_error_free (e);
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  return found;
}

static void
second_sender (const gchar * provider)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-senders-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *out = g_build_filename (dir, "received", NULL);
  GPid pid = spawn_receiver (provider, file, out);
  Sender a, b;
  GArray *frames;
  guint64 refused = 0;
  guint from_a = 0, from_b = 0, bad = 0, gaps = 0;

  hgst_wait_file (file);
  sender_start (&a, 1, provider, file);
  wait_frames (out, 10, 8000);
  sender_start (&b, 2, provider, file);
  g_assert_true (wait_warning (b.p, "the receiver already has a sender", 5000));
  g_usleep (500 * 1000);        /* both keep pushing */
  sender_stop_pushing (&b);
  sender_stop_pushing (&a);
  g_assert_cmpint (hgst_stat (b.p, "sink", "transfers-queued"), ==, 0);
  sender_free (&b);
  sender_free (&a);

  stop_receiver (pid);
  frames = read_frames (out, &refused);
  for (guint k = 0; k < frames->len; k++) {
    const Frame *fr = &g_array_index (frames, Frame, k);
    if (fr->sender == 1 && k > 0 && fr->k != g_array_index (frames, Frame,
            k - 1).k + 1)
      gaps++;
    from_a += fr->sender == 1;
    from_b += fr->sender == 2;
    bad += fr->sender == 0;
  }
  g_test_message ("%s receiver: %u frames of sender 1 (%u gaps), %u of "
      "sender 2, %u bad; initiators-refused %" G_GUINT64_FORMAT, provider,
      from_a, gaps, from_b, bad, refused);
  /* only the first sender's frames, bit-exact, and the refusal counted */
  g_assert_cmpuint (from_a, >=, 30);
  g_assert_cmpuint (from_b, ==, 0);
  g_assert_cmpuint (bad, ==, 0);
  g_assert_cmpuint (refused, ==, 1);

  g_array_unref (frames);
  hgst_remove_files (dir, file, out);
}

/* Starts sender 1 to the shm receiver @pid, waits for 20 frames, stops the
 * receiver (SIGSTOP) and waits until the sender says it is lost. */
static void
stall_receiver (GPid pid, const gchar * file, const gchar * out, Sender * ps)
{
  hgst_wait_file (file);
  sender_start (ps, 1, "shm", file);
  wait_frames (out, 20, 8000);
  g_assert_cmpint (kill (pid, SIGSTOP), ==, 0);
  g_assert_true (wait_warning (ps->p, "the receiver stopped answering", 8000));
}

/* A shm receiver that stops answering (SIGSTOP): the sender fails what it
 * had in flight and says the connection is lost within the stall limit
 * (5 s, MXL_CONN_STALL_MS), and streams to it again once it continues. */
static void
test_stalled_receiver_shm (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-stalled-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *out = g_build_filename (dir, "received", NULL);
  GPid pid = spawn_receiver ("shm", file, out);
  Sender ps;
  GArray *frames;
  guint before, bad = 0;
  gint state = 0;
  guint64 queued, completed, failed;
  GstElement *sink;

  stall_receiver (pid, file, out, &ps);
  sink = gst_bin_get_by_name (GST_BIN (ps.p), "sink");
  g_object_get (sink, "connection-state", &state, NULL);
  gst_object_unref (sink);
  g_assert_cmpint (state, !=, 3);       /* not connected */
  g_usleep (300 * 1000);                /* engine stats: every 100 ms */
  queued = hgst_stat (ps.p, "sink", "transfers-queued");
  completed = hgst_stat (ps.p, "sink", "transfers-completed");
  failed = hgst_stat (ps.p, "sink", "transfers-failed")
      - hgst_stat (ps.p, "sink", "transfers-not-connected");
  g_test_message ("stalled: queued %" G_GUINT64_FORMAT ", completed %"
      G_GUINT64_FORMAT ", failed %" G_GUINT64_FORMAT, queued, completed, failed);
  g_assert_cmpuint (failed, >, 0);
  g_assert_cmpuint (queued, ==, completed + failed);

  frames = read_frames (out, NULL);
  before = frames->len;
  g_array_unref (frames);
  g_assert_cmpint (kill (pid, SIGCONT), ==, 0);
  wait_frames (out, before + 20, 10000);
  sender_stop_pushing (&ps);
  hgst_assert_no_error (ps.p);
  sender_free (&ps);
  stop_receiver (pid);
  frames = read_frames (out, NULL);
  for (guint k = 0; k < frames->len; k++)
    bad += g_array_index (frames, Frame, k).sender != 1;
  g_test_message ("stalled receiver: %u frames before the stop, %u in all, "
      "%u bad", before, frames->len, bad);
  g_assert_cmpuint (frames->len, >=, before + 20);
  g_assert_cmpuint (bad, ==, 0);
  g_array_unref (frames);
  hgst_remove_files (dir, file, out);
}

/* A shm receiver stopped in order (SIGINT, NULL state, its process exits):
 * the sender's WARNING says the receiver stopped, which the library knows
 * from its process (initiator_conn.c mxl_conn_peer_gone()), not that it
 * "stopped answering" (a receiver that lives but is silent). */
static void
test_clean_stop_receiver_shm (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-cleanstop-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *out = g_build_filename (dir, "received", NULL);
  GPid pid = spawn_receiver ("shm", file, out);
  Sender ps;

  hgst_wait_file (file);
  sender_start (&ps, 1, "shm", file);
  wait_frames (out, 20, 8000);
  stop_receiver (pid);
  g_assert_true (wait_warning (ps.p, "the receiver stopped (it closed the "
          "connection or its process exited)", 8000));
  sender_stop_pushing (&ps);
  hgst_assert_no_error (ps.p);
  sender_free (&ps);
  hgst_remove_files (dir, file, out);
}

/* A sender that reconnects to a stopped shm receiver and then leaves: its
 * new endpoint's connection request waits in the receiver's region, and the
 * receiver takes it up when it continues. On libfabric 1.17 that crashed
 * the receiver (SIGSEGV in fi_cq_read) once the sender's endpoint file was
 * gone; the file now stays (initiator_rdm.c, rdm_close()) and the receiver
 * must end in order. */
static void
test_stopped_receiver_sender_leaves_shm (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-leave-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *out = g_build_filename (dir, "received", NULL);
  GPid pid = spawn_receiver ("shm", file, out);
  Sender ps;
  GArray *frames;

  stall_receiver (pid, file, out, &ps);
  /* the library's reconnection (its first back-off, 100 ms later) opens
   * a new endpoint and asks */
  g_usleep (800 * 1000);
  sender_stop_pushing (&ps);
  sender_free (&ps);
  g_assert_cmpint (kill (pid, SIGCONT), ==, 0);
  g_usleep (300 * 1000);                /* it progresses: the request */
  stop_receiver (pid);                  /* exits 0: no crash */
  frames = read_frames (out, NULL);
  g_test_message ("receiver: %u frames", frames->len);
  g_assert_cmpuint (frames->len, >=, 20);
  g_array_unref (frames);
  hgst_remove_files (dir, file, out);
}

/* The application allows more senders: both are accepted. */
static void
test_shared_receiver_shm (void)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-shared-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *out = g_build_filename (dir, "received", NULL);
  GPid pid = spawn_receiver ("shared", file, out);
  Sender a, b;
  GArray *frames;
  guint64 refused = 0;
  guint from[3] = { 0, 0, 0 };

  hgst_wait_file (file);
  sender_start (&a, 1, "shm", file);
  sender_start (&b, 2, "shm", file);
  g_assert_true (hgst_wait_connected (a.p, 5000));
  g_assert_true (hgst_wait_connected (b.p, 5000));
  wait_frames (out, 40, 8000);
  sender_stop_pushing (&b);
  sender_stop_pushing (&a);
  /* Both wrote (their grains share indices, so the receiver may keep
   * either one's grain of an index). */
  g_assert_cmpuint (hgst_stat (a.p, "sink", "transfers-completed"), >=, 10);
  g_assert_cmpuint (hgst_stat (b.p, "sink", "transfers-completed"), >=, 10);
  hgst_assert_no_error (a.p);
  hgst_assert_no_error (b.p);
  sender_free (&b);
  sender_free (&a);
  stop_receiver (pid);
  frames = read_frames (out, &refused);
  for (guint k = 0; k < frames->len; k++)
    from[g_array_index (frames, Frame, k).sender]++;
  g_test_message ("shared receiver: %u frames of sender 1, %u of sender 2, "
      "%u bad; initiators-refused %" G_GUINT64_FORMAT, from[1], from[2],
      from[0], refused);
  g_assert_cmpuint (from[1] + from[2], >=, 40);
  /* from[0], frames of neither sender, is not asserted: two live senders
   * on one clock write the same index into the same slot at about the
   * same time, and with the same header index a frame partly of each
   * cannot be told torn (seen once in CI: 1 bad frame). One sender per
   * receiver, the default, is what keeps frames whole. */
  g_assert_cmpuint (refused, ==, 0);
  g_array_unref (frames);
  hgst_remove_files (dir, file, out);
}

static void
test_second_sender_shm (void)
{
  second_sender ("shm");
}

static void
test_second_sender_tcp (void)
{
  second_sender ("tcp");
}

int
main (int argc, char **argv)
{
  if (hgst_init (&argc, &argv, 5))
    return child_src (argv[2], argv[3], argv[4]);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/senders/shm-receiver-restarts", test_receiver_restarts);
  g_test_add_func ("/gst/senders/second-sender-shm", test_second_sender_shm);
  g_test_add_func ("/gst/senders/second-sender-tcp", test_second_sender_tcp);
  g_test_add_func ("/gst/senders/shared-receiver-shm", test_shared_receiver_shm);
  g_test_add_func ("/gst/senders/stalled-receiver-shm", test_stalled_receiver_shm);
  g_test_add_func ("/gst/senders/clean-stop-receiver-shm",
      test_clean_stop_receiver_shm);
  g_test_add_func ("/gst/senders/stopped-receiver-sender-leaves-shm",
      test_stopped_receiver_sender_leaves_shm);
  return g_test_run ();
}
