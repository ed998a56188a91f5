/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssrc (video and audio) fed by a hostile initiator
 * (hostile-initiator, our engine with its raw-write debug hook, run as a
 * separate process started and reaped by PID), then by a good one.
 *
 *  /hardening/hostile/video   (tcp, 127.0.0.1) four rejected writes (slot out of range,
 *      slice end above the total, header index not the slot's, all bits
 *      set): the src survives, stats say bad-immediate-data 3,
 *      bad-grain-headers 1, invalid 4, nothing is pushed, and the element
 *      message mxl-fabrics-bad-input carries those totals; then 20 good
 *      grains from a new initiator arrive, every one byte-exact (checksum
 *      of the regenerated content of its index) and none missing.
 *  /hardening/hostile/audio   (tcp, 2 x float32 at 48 kHz) five rejected
 *      bounce entries (entry index out of range, count 0, count above the
 *      entry's capacity, head < count, all bits set): stats say
 *      bad-immediate-data 2, bad-bounce-entries 3, invalid 5, nothing is
 *      pushed, the bus message carries the totals; then 50 batches from a
 *      good initiator: every sample of every channel equals hfill_sample
 *      of its index, and all samples of the range arrive.
 *  /hardening/hostile/flood   (shm) 300 grains back to back while the
 *      pipeline drains 40 ms per buffer for its first 50 buffers: the src
 *      survives, every grain is either pushed byte-exact or counted in
 *      dropped (late, torn, missing, early: they add up), and the 10 paced
 *      grains after the flood all arrive intact. Measured: the flood does
 *      not overrun the ring. With tcp and shm (libfabric 1.17) a write
 *      completes only when the target's reads drive its progress, and the
 *      initiator never rewrites a slot still in flight, so the initiator is
 *      held back to the src's pace (300 grains take ~2.2 s instead of a few
 *      ms) and drops stay rare (0-4 torn per run, superseded completions).
 */
#include "hgst.h"

#include <gst/audio/audio.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib-unix.h>
#include <glib/gstdio.h>

#define CAPS "video/x-raw,format=v210,width=320,height=180,framerate=50/1"
#define AUDIO_CAPS "audio/x-raw,format=F32LE,rate=48000,channels=2,layout=non-interleaved"
#define GRAIN_SIZE 161280       /* v210 320x180: 896 bytes x 180 lines */
#define HELPER_MS 30000
#define WAIT_MS 5000

static gint slow_buffers;

static GstPadProbeReturn
slow_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  if (g_atomic_int_add (&slow_buffers, -1) > 0)
    g_usleep (40 * 1000);
  return GST_PAD_PROBE_OK;
}

static GstElement *
start_src_caps (const gchar * prov, const gchar * caps, gchar ** ti_path)
{
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=%s %s "
      "caps=\"%s\" ! appsink name=out sync=false max-buffers=1000", prov,
      g_str_equal (prov, "tcp") ? "node=" HGST_NODE : "", caps);
  GstElement *p = hgst_parse (desc);
  gchar *ti;
  gint fd;

  hgst_play (p);
  ti = hgst_target_info (p);
  fd = g_file_open_tmp ("mxl-hostile-XXXXXX.json", ti_path, NULL);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_file_set_contents (*ti_path, ti, -1, NULL));
  g_free (ti);
  g_free (desc);
  return p;
}

static GstElement *
start_src (const gchar * prov, gchar ** ti_path)
{
  return start_src_caps (prov, CAPS, ti_path);
}

/* Runs hostile-initiator with @args (NULL-terminated, after the TargetInfo
 * path); returns its stdout. Killed (by PID) after HELPER_MS. */
static gchar *
run_helper (const gchar * ti_path, const gchar * const *args)
{
  const gchar *dir = g_getenv ("MXL_HOSTILE_INITIATOR");
  GPtrArray *argv = g_ptr_array_new ();
  GError *error = NULL;
  GString *out = g_string_new (NULL);
  gint64 deadline = g_get_monotonic_time () + HELPER_MS * 1000;
  GPid pid;
  gint out_fd, status = 0;
  char buf[256];

  g_assert_nonnull (dir);
  g_ptr_array_add (argv, (gpointer) dir);
  g_ptr_array_add (argv, (gpointer) ti_path);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  if (!g_spawn_async_with_pipes (NULL, (gchar **) argv->pdata, NULL,
          G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL, &out_fd, NULL,
          &error))
    g_error ("cannot start %s: %s", dir, error->message);
  g_ptr_array_free (argv, TRUE);
  g_unix_set_fd_nonblocking (out_fd, TRUE, NULL);
  for (;;) {
    ssize_t n = read (out_fd, buf, sizeof buf);
    pid_t r;

    if (n > 0)
      g_string_append_len (out, buf, n);
    r = waitpid (pid, &status, WNOHANG);
    if (r == pid) {
      while ((n = read (out_fd, buf, sizeof buf)) > 0)
        g_string_append_len (out, buf, n);
      break;
    }
    if (g_get_monotonic_time () > deadline) {
      kill (pid, SIGKILL);
      waitpid (pid, &status, 0);
      g_error ("hostile-initiator did not finish within %d ms: killed", HELPER_MS);
    }
    g_usleep (5 * 1000);
  }
  close (out_fd);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  return g_string_free (out, FALSE);
}

/* Parses "WORD FIRST LAST" from the helper's output. */
static void
range_of (const gchar * out, const gchar * word, guint64 * first, guint64 * last)
{
  const gchar *line = strstr (out, word);
  gchar **f;

  g_assert_nonnull (line);
  f = g_strsplit_set (line, " \n", 4);
  g_assert_cmpuint (g_strv_length (f), >=, 3);
  g_assert_true (g_ascii_string_to_unsigned (f[1], 10, 0, G_MAXUINT64, first, NULL));
  g_assert_true (g_ascii_string_to_unsigned (f[2], 10, 0, G_MAXUINT64, last, NULL));
  g_strfreev (f);
}

/* Waits until stats field @field of the src reaches @want. */
static void
wait_stat (GstElement * p, const gchar * field, guint64 want)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_MS * 1000;

  while (hgst_stat (p, "src", field) < want && g_get_monotonic_time () < deadline)
    g_usleep (20 * 1000);
  g_assert_cmpuint (hgst_stat (p, "src", field), ==, want);
}

/* Pulls buffers until @last_index arrived or WAIT_MS passed; checks each
 * one's bytes against the content of its index (GST_BUFFER_OFFSET). Sets
 * bit (index - @first) of @seen for indices in [first, last]. */
static guint
pull_checked (GstElement * p, guint64 first, guint64 last, guint64 * seen)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "out");
  guint8 *want = g_malloc (GRAIN_SIZE);
  gint64 deadline = g_get_monotonic_time () + WAIT_MS * 1000;
  guint n = 0;

  while (g_get_monotonic_time () < deadline) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 50 * GST_MSECOND);
    GstBuffer *b;
    guint64 index;
    gchar *got_sum, *want_sum;

    if (s == NULL)
      continue;
    b = gst_sample_get_buffer (s);
    index = GST_BUFFER_OFFSET (b);
    g_assert_cmpuint (gst_buffer_get_size (b), ==, GRAIN_SIZE);
    hgst_fill (want, GRAIN_SIZE, (guint) index);
    got_sum = hgst_checksum (b);
    want_sum = g_compute_checksum_for_data (G_CHECKSUM_SHA1, want, GRAIN_SIZE);
    g_assert_cmpstr (got_sum, ==, want_sum);
    g_free (got_sum);
    g_free (want_sum);
    n++;
    if (index >= first && index <= last)
      seen[(index - first) / 64] |= G_GUINT64_CONSTANT (1) << ((index - first) % 64);
    gst_sample_unref (s);
    if (index == last)
      break;
  }
  g_free (want);
  gst_object_unref (sink);
  return n;
}

static guint
count_bits (const guint64 * seen, guint n_words)
{
  guint n = 0;

  for (guint i = 0; i < n_words; i++)
    n += (guint) __builtin_popcountll (seen[i]);
  return n;
}

/* The last "mxl-fabrics-bad-input" message on the bus (NULL if none). */
static GstStructure *
last_bad_input (GstElement * p)
{
  GstBus *bus = gst_element_get_bus (p);
  GstStructure *last = NULL;
  GstMessage *m;

  /* (popping discards the other types: ERROR is kept in the filter) */
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR)) != NULL) {
    const GstStructure *s = gst_message_get_structure (m);
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
      g_error ("ERROR from %s", GST_OBJECT_NAME (GST_MESSAGE_SRC (m)));
    if (gst_structure_has_name (s, "mxl-fabrics-bad-input")) {
      if (last)
        gst_structure_free (last);
      last = gst_structure_copy (s);
    }
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  return last;
}

static void
test_hostile_video (void)
{
  const gchar *hostile_args[] = { "tcp", "hostile", NULL };
  const gchar *good_args[] = { "tcp", "good", "20", NULL };
  gchar *ti_path = NULL, *out;
  GstElement *p = start_src ("tcp", &ti_path);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "out");
  GstStructure *msg;
  guint64 first, last, seen[1] = { 0 }, v = 0;

  out = run_helper (ti_path, hostile_args);
  g_free (out);
  wait_stat (p, "bad-immediate-data", 3);
  wait_stat (p, "bad-grain-headers", 1);
  wait_stat (p, "invalid", 4);
  g_assert_cmpuint (hgst_stat (p, "src", "grains-received"), ==, 0);
  g_assert_null (gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 0));
  /* the bus says so too (posted at the stats refresh that counted them) */
  msg = last_bad_input (p);
  g_assert_nonnull (msg);
  g_assert_true (gst_structure_get_uint64 (msg, "bad-immediate-data", &v));
  g_assert_cmpuint (v, ==, 3);
  g_assert_true (gst_structure_get_uint64 (msg, "bad-grain-headers", &v));
  g_assert_cmpuint (v, ==, 1);
  g_assert_true (gst_structure_get_uint64 (msg, "bad-bounce-entries", &v));
  g_assert_cmpuint (v, ==, 0);
  gst_structure_free (msg);

  /* a good initiator afterwards: every grain arrives intact */
  out = run_helper (ti_path, good_args);
  range_of (out, "good", &first, &last);
  g_assert_cmpuint (last - first + 1, ==, 20);
  pull_checked (p, first, last, seen);
  g_assert_cmpuint (count_bits (seen, 1), ==, 20);
  g_assert_cmpuint (hgst_stat (p, "src", "bad-immediate-data"), ==, 3);
  g_assert_cmpuint (hgst_stat (p, "src", "bad-grain-headers"), ==, 1);
  hgst_assert_no_error (p);
  g_free (out);

  gst_object_unref (sink);
  hgst_stop (p);
  g_unlink (ti_path);
  g_free (ti_path);
}

static void
test_flood (void)
{
  const gchar *flood_args[] = { "shm", "flood", "300", "10", NULL };
  gchar *ti_path = NULL, *out;
  GstElement *p = start_src ("shm", &ti_path);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "out");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  guint64 flood_first, flood_last, first, last, seen[5] = { 0 }, good_seen[1] = { 0 };
  guint pushed;

  g_atomic_int_set (&slow_buffers, 50);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, slow_probe, NULL, NULL);
  out = run_helper (ti_path, flood_args);
  range_of (out, "flood", &flood_first, &flood_last);
  range_of (out, "good", &first, &last);
  g_assert_cmpuint (flood_last - flood_first + 1, ==, 300);
  g_assert_cmpuint (first, ==, flood_last + 1);
  /* everything pushed is byte-exact; the paced grains after the flood all
   * arrive */
  pushed = pull_checked (p, flood_first, flood_last + 10, seen);
  for (guint64 i = first; i <= last; i++)
    if (seen[(i - flood_first) / 64] & (G_GUINT64_CONSTANT (1) << ((i - flood_first) % 64)))
      good_seen[0] |= G_GUINT64_CONSTANT (1) << (i - first);
  g_assert_cmpuint (count_bits (good_seen, 1), ==, 10);
  /* every grain sent is either pushed or counted as dropped, by cause */
  g_assert_cmpuint (hgst_stat (p, "src", "buffers"), ==, pushed);
  g_assert_cmpuint (pushed + hgst_stat (p, "src", "dropped"), ==, 310);
  g_assert_cmpuint (hgst_stat (p, "src", "dropped"), ==,
      hgst_stat (p, "src", "dropped-late") + hgst_stat (p, "src", "dropped-torn")
      + hgst_stat (p, "src", "dropped-missing") + hgst_stat (p, "src", "dropped-early")
      + hgst_stat (p, "src", "dropped-skipped"));
  g_assert_cmpuint (hgst_stat (p, "src", "bad-immediate-data"), ==, 0);
  g_test_message ("%s", out);
  g_test_message ("flood: %u of 310 grains pushed, dropped %" G_GUINT64_FORMAT
      " (late %" G_GUINT64_FORMAT ", torn %" G_GUINT64_FORMAT ", missing %"
      G_GUINT64_FORMAT "), superseded %" G_GUINT64_FORMAT, pushed,
      hgst_stat (p, "src", "dropped"), hgst_stat (p, "src", "dropped-late"),
      hgst_stat (p, "src", "dropped-torn"), hgst_stat (p, "src", "dropped-missing"),
      hgst_stat (p, "src", "completions-superseded"));
  hgst_assert_no_error (p);
  g_free (out);

  gst_object_unref (pad);
  gst_object_unref (sink);
  hgst_stop (p);
  g_unlink (ti_path);
  g_free (ti_path);
}

/* Checks every sample of every buffer pulled against hfill_sample and
 * returns how many of the samples [@first, @head) arrived; stops at @head
 * or after WAIT_MS. */
static guint64
pull_audio_checked (GstElement * p, guint64 first, guint64 head)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "out");
  gint64 deadline = g_get_monotonic_time () + WAIT_MS * 1000;
  guint64 covered = 0, end = 0;

  while (end < head && g_get_monotonic_time () < deadline) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 50 * GST_MSECOND);
    GstBuffer *b;
    GstAudioMeta *meta;
    GstMapInfo map;
    guint64 start;

    if (s == NULL)
      continue;
    b = gst_sample_get_buffer (s);
    meta = gst_buffer_get_audio_meta (b);
    g_assert_nonnull (meta);
    start = GST_BUFFER_OFFSET (b);
    end = GST_BUFFER_OFFSET_END (b);
    g_assert_cmpuint (end - start, ==, meta->samples);
    g_assert_true (gst_buffer_map (b, &map, GST_MAP_READ));
    for (guint c = 0; c < 2; c++) {
      const guint32 *plane = (const guint32 *) (map.data + meta->offsets[c]);
      for (gsize j = 0; j < meta->samples; j++)
        if (plane[j] != hfill_sample (c, start + j))
          g_error ("channel %u sample %" G_GUINT64_FORMAT ": %08x, want %08x", c,
              start + j, plane[j], hfill_sample (c, start + j));
    }
    gst_buffer_unmap (b, &map);
    if (end > first && start < head)
      covered += MIN (end, head) - MAX (start, first);
    gst_sample_unref (s);
  }
  gst_object_unref (sink);
  return covered;
}

static void
test_hostile_audio (void)
{
  const gchar *hostile_args[] = { "tcp", "audio-hostile", NULL };
  const gchar *good_args[] = { "tcp", "audio-good", "50", NULL };
  gchar *ti_path = NULL, *out;
  GstElement *p = start_src_caps ("tcp", AUDIO_CAPS, &ti_path);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "out");
  GstStructure *msg;
  guint64 first, head, v = 0;

  out = run_helper (ti_path, hostile_args);
  g_free (out);
  wait_stat (p, "bad-immediate-data", 2);
  wait_stat (p, "bad-bounce-entries", 3);
  wait_stat (p, "invalid", 5);
  g_assert_cmpuint (hgst_stat (p, "src", "batches-received"), ==, 0);
  g_assert_null (gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 0));
  msg = last_bad_input (p);
  g_assert_nonnull (msg);
  g_assert_true (gst_structure_get_uint64 (msg, "bad-immediate-data", &v));
  g_assert_cmpuint (v, ==, 2);
  g_assert_true (gst_structure_get_uint64 (msg, "bad-bounce-entries", &v));
  g_assert_cmpuint (v, ==, 3);
  gst_structure_free (msg);

  /* a good initiator afterwards: every sample arrives, value-exact */
  out = run_helper (ti_path, good_args);
  range_of (out, "good", &first, &head);
  g_test_message ("audio: good samples %" G_GUINT64_FORMAT " .. %" G_GUINT64_FORMAT
      " (%" G_GUINT64_FORMAT " per channel)", first, head - 1, head - first);
  g_assert_cmpuint (head - first, >=, 50);
  g_assert_cmpuint (pull_audio_checked (p, first, head), ==, head - first);
  g_assert_cmpuint (hgst_stat (p, "src", "bad-bounce-entries"), ==, 3);
  g_assert_cmpuint (hgst_stat (p, "src", "batches-lost"), ==, 0);
  g_free (out);

  gst_object_unref (sink);
  hgst_stop (p);
  g_unlink (ti_path);
  g_free (ti_path);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hardening/hostile/video", test_hostile_video);
  g_test_add_func ("/hardening/hostile/audio", test_hostile_audio);
  g_test_add_func ("/hardening/hostile/flood", test_flood);
  return g_test_run ();
}
