/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Interlaced video as capture cards deliver it (issue 19):
 * `interlace-mode=interleaved` frames (both fields woven in one buffer) are
 * split by mxlfabricssink into the two fields (two grains) of an MXL
 * interlaced flow, and mxlfabricssrc with interleaved caps weaves two
 * consecutive fields back into one frame.
 *
 * The sender is videotestsrc (a moving ball, so every frame differs) in
 * interleaved, top-field-first v210, teed into the sink and an appsink
 * whose frames the test splits into fields itself (GstVideoFrame, every
 * second line). The src runs in a child process (this binary re-executed
 * with --child-src) and writes "offset flags sha1" for every buffer it
 * pushes: asked for alternate caps every field must be the reference
 * split's field of one sent frame (top at the even grain), asked for
 * interleaved every frame must be a sent frame, bit-exact, and the src's
 * latency must include the wait for the second field; the src's
 * `buffers` counts what it pushed (frames, or fields), its `grains` and
 * `grains-received` the fields. Children are
 * reaped by PID; every wait is bounded.
 */
#include <string.h>

#include <glib/gstdio.h>
#include <gst/video/video.h>

#include "../hardening/hgst.h"

#define N_FRAMES 20
#define GEOMETRY "format=v210,width=320,height=240,framerate=25/1"
#define SEND_CAPS "video/x-raw," GEOMETRY ",interlace-mode=interleaved," \
  "field-order=top-field-first"
#define FIELD_CAPS "video/x-raw(format:Interlaced)," GEOMETRY \
  ",interlace-mode=alternate,field-order=top-field-first"

/* An HgstEachBuffer: appends "offset flags sha1" of @b to the GString. */
static void
append_line (GstBuffer * b, gpointer res)
{
  gchar *sum = hgst_checksum (b);

  g_string_append_printf (res, "%" G_GUINT64_FORMAT " %u %s\n",
      GST_BUFFER_OFFSET (b), GST_BUFFER_FLAGS (b) &
      (GST_VIDEO_BUFFER_FLAG_INTERLACED | GST_VIDEO_BUFFER_FLAG_TFF |
          GST_VIDEO_BUFFER_FLAG_ONEFIELD), sum);
  g_free (sum);
}

/* Child: the src with @caps ("fields" or "frames"); writes a line per
 * buffer to @out once none came for 2 s (20 s for the first), then
 * "stats B G R", the src's buffers, grains and grains-received, and
 * "latency NS", the minimum latency the src reported before any grain
 * arrived. The sender starts once the file @out.playing says the src has
 * its base time, so that no grain is skipped at the start. */
static int
child_src (const gchar * file, const gchar * out, const gchar * mode)
{
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=tcp "
      "node=" HGST_NODE " caps=\"%s\" target-info-file=%s ! appsink name=out "
      "sync=false max-buffers=1000", g_str_equal (mode, "frames") ?
      SEND_CAPS : FIELD_CAPS, file);
  GstElement *p = hgst_parse (desc);
  GString *res = g_string_new (NULL);
  GstQuery *q = gst_query_new_latency ();
  GstClockTime min = 0;
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  gchar *playing = g_strconcat (out, ".playing", NULL);

  hgst_play (p);
  if (gst_element_query (src, q))
    gst_query_parse_latency (q, NULL, &min, NULL);
  hgst_wait_base_time (src);
  gst_object_unref (src);
  gst_query_unref (q);
  g_assert_true (g_file_set_contents (playing, "", 0, NULL));
  hgst_pull_each (p, 0, 20000, 2000, append_line, res);
  g_string_append_printf (res, "stats %" G_GUINT64_FORMAT " %"
      G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", hgst_stat (p, "src",
          "buffers"), hgst_stat (p, "src", "grains"), hgst_stat (p, "src",
          "grains-received"));
  g_string_append_printf (res, "latency %" G_GUINT64_FORMAT "\n", min);
  g_file_set_contents (out, res->str, -1, NULL);
  g_string_free (res, TRUE);
  hgst_stop (p);
  g_unlink (playing);
  g_free (playing);
  g_free (desc);
  return 0;
}

/* The SHA-1 of field @field (0 top: lines 0, 2, ...; 1 bottom) of the
 * frame @b in @info, its lines packed as in a grain. */
static gchar *
field_checksum (GstBuffer * b, const GstVideoInfo * info, guint field)
{
  GChecksum *sum = g_checksum_new (G_CHECKSUM_SHA1);
  GstVideoFrame frame;
  guint line, height = GST_VIDEO_INFO_HEIGHT (info);
  gchar *text;

  g_assert_true (gst_video_frame_map (&frame, (GstVideoInfo *) info, b,
          GST_MAP_READ));
  for (line = field; line < height; line += 2)
    g_checksum_update (sum, (const guchar *) GST_VIDEO_FRAME_PLANE_DATA
        (&frame, 0) + line * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0),
        /* v210 lines of 320 pixels: 7 blocks of 48 pixels, 128 bytes */
        7 * 128);
  gst_video_frame_unmap (&frame);
  text = g_strdup (g_checksum_get_string (sum));
  g_checksum_free (sum);
  return text;
}

typedef struct {
  gchar *frame, *top, *bottom;
} Sent;

/* The src's counters at its end (the child's "stats" line). */
typedef struct {
  guint64 buffers, grains, grains_received;
} SrcStats;

/* Runs the sender into a child src in @mode; returns the child's buffer
 * lines and, in *@sent (N_FRAMES), the sent frames' checksums and those
 * of their fields, in *@latency the src's latency, in *@stats its
 * counters. */
static gchar **
run (const gchar * mode, Sent * sent, GstClockTime * latency,
    SrcStats * stats)
{
  gchar *dir = g_dir_make_tmp ("mxlfab-woven-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *out = g_build_filename (dir, "received", NULL);
  gchar *playing = g_strconcat (out, ".playing", NULL);
  gchar *desc = g_strdup_printf ("videotestsrc is-live=true pattern=ball "
      "num-buffers=%d ! " SEND_CAPS " ! tee name=t ! queue ! mxlfabricssink "
      "name=sink provider=tcp node=" HGST_NODE " wait-for-connection=true "
      "target-info=@%s t. ! queue ! appsink name=ref sync=false", N_FRAMES,
      file);
  GstElement *p;
  GstMessage *msg;
  GstVideoInfo info;
  GstCaps *caps = gst_caps_from_string (SEND_CAPS);
  GPid pid;
  gchar **lines;
  guint k;

  g_assert_nonnull (dir);
  g_assert_true (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  pid = hgst_spawn_child (file, out, mode, NULL);
  g_assert_true (hgst_wait_file (file));
  g_assert_true (hgst_wait_file (playing));
  p = hgst_parse (desc);
  hgst_play (p);
  for (k = 0; k < N_FRAMES; k++) {
    GstBuffer *b = hgst_pull_from (p, "ref", 10000);

    g_assert_nonnull (b);
    sent[k].frame = hgst_checksum (b);
    sent[k].top = field_checksum (b, &info, 0);
    sent[k].bottom = field_checksum (b, &info, 1);
    gst_buffer_unref (b);
  }
  /* appsink posts its EOS once its queue is drained */
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_EOS);
  gst_message_unref (msg);
  g_usleep (300 * 1000);        /* let the last transfers complete */
  /* every frame made two grains, none dropped */
  g_assert_cmpuint (hgst_stat (p, "sink", "buffers"), ==, N_FRAMES);
  g_assert_cmpuint (hgst_stat (p, "sink", "grains"), ==, 2 * N_FRAMES);
  g_assert_cmpuint (hgst_stat (p, "sink", "dropped"), ==, 0);
  hgst_assert_no_error (p);
  gst_element_set_state (p, GST_STATE_NULL);
  hgst_assert_child_ok (pid, 20000);
  lines = hgst_read_lines (out);
  k = g_strv_length (lines);
  g_assert_cmpuint (k, >, 1);
  g_assert_true (g_str_has_prefix (lines[k - 1], "latency "));
  *latency = g_ascii_strtoull (lines[k - 1] + 8, NULL, 10);
  g_assert_cmpint (sscanf (lines[k - 2], "stats %" G_GUINT64_FORMAT " %"
          G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, &stats->buffers,
          &stats->grains, &stats->grains_received), ==, 3);
  g_free (lines[k - 1]);
  g_free (lines[k - 2]);
  lines[k - 2] = NULL;
  gst_object_unref (p);
  hgst_remove_files (dir, file, out);
  g_free (playing);
  g_free (desc);
  return lines;
}

static void
sent_clear (Sent * sent)
{
  for (guint k = 0; k < N_FRAMES; k++) {
    g_free (sent[k].frame);
    g_free (sent[k].top);
    g_free (sent[k].bottom);
  }
}

/* One line of the child: its offset, flags and checksum. */
static void
parse_line (const gchar * line, guint64 * off, guint * flags, gchar ** sum)
{
  gchar **f = g_strsplit (line, " ", 3);

  g_assert_cmpuint (g_strv_length (f), ==, 3);
  *off = g_ascii_strtoull (f[0], NULL, 10);
  *flags = (guint) g_ascii_strtoull (f[1], NULL, 10);
  *sum = g_strdup (f[2]);
  g_strfreev (f);
}

/* The sent frame whose @what ("frame", "top", "bottom") has checksum
 * @sum, or -1. */
static gint
find_sent (const Sent * sent, const gchar * what, const gchar * sum)
{
  for (guint k = 0; k < N_FRAMES; k++) {
    const gchar *s = g_str_equal (what, "frame") ? sent[k].frame :
        g_str_equal (what, "top") ? sent[k].top : sent[k].bottom;

    if (g_str_equal (s, sum))
      return (gint) k;
  }
  return -1;
}

/* The sink splits each woven frame: every field arrives as its own grain,
 * top at an even index and bottom at the next, both of the same sent
 * frame, the frames in order. */
static void
test_split (void)
{
  Sent sent[N_FRAMES] = { {0} };
  GstClockTime latency;
  SrcStats st;
  gchar **lines = run ("fields", sent, &latency, &st);
  guint n = g_strv_length (lines), i;
  gint last = -1;

  g_test_message ("%u fields received, latency %" GST_TIME_FORMAT ", src "
      "buffers %" G_GUINT64_FORMAT " grains %" G_GUINT64_FORMAT
      " grains-received %" G_GUINT64_FORMAT, n, GST_TIME_ARGS (latency),
      st.buffers, st.grains, st.grains_received);
  g_assert_cmpuint (latency, ==, 30 * GST_MSECOND);
  /* all but a few (a loaded host), one buffer each: `buffers` and
   * `grains` count each field pushed */
  g_assert_cmpuint (n, >=, 2 * (N_FRAMES - 3));
  g_assert_cmpuint (st.buffers, ==, n);
  g_assert_cmpuint (st.grains, ==, n);
  g_assert_cmpuint (st.grains_received, >=, n);
  for (i = 0; i + 1 < n; i += 2) {
    guint64 off, off2;
    guint flags, flags2;
    gchar *sum, *sum2;
    gint k;

    parse_line (lines[i], &off, &flags, &sum);
    if (off % 2 == 1) {         /* a frame's second field first: skip it */
      g_free (sum);
      i--;
      continue;
    }
    parse_line (lines[i + 1], &off2, &flags2, &sum2);
    g_assert_cmpuint (off2, ==, off + 1);
    g_assert_cmpuint (flags, ==, GST_VIDEO_BUFFER_FLAG_TOP_FIELD);
    g_assert_cmpuint (flags2, ==, GST_VIDEO_BUFFER_FLAG_BOTTOM_FIELD);
    k = find_sent (sent, "top", sum);
    g_assert_cmpint (k, >, last);
    g_assert_cmpint (find_sent (sent, "bottom", sum2), ==, k);
    last = k;
    g_free (sum);
    g_free (sum2);
  }
  g_assert_cmpint (last, ==, N_FRAMES - 1);
  g_strfreev (lines);
  sent_clear (sent);
}

/* The src asked for interleaved caps weaves the two fields of each frame
 * back: every frame arrives bit-exact, flagged interlaced and top field
 * first, at an even offset, in order. */
static void
test_weave (void)
{
  Sent sent[N_FRAMES] = { {0} };
  GstClockTime latency;
  SrcStats st;
  gchar **lines = run ("frames", sent, &latency, &st);
  guint n = g_strv_length (lines), i;
  gint last = -1;

  g_test_message ("%u frames received, latency %" GST_TIME_FORMAT ", src "
      "buffers %" G_GUINT64_FORMAT " grains %" G_GUINT64_FORMAT
      " grains-received %" G_GUINT64_FORMAT, n, GST_TIME_ARGS (latency),
      st.buffers, st.grains, st.grains_received);
  /* a frame is pushed when its second field arrived: a field period
   * (20 ms) more than a field's own (gst/srclatency.c: one period and the
   * 10 ms margin) */
  g_assert_cmpuint (latency, ==, 50 * GST_MSECOND);
  /* all but a few (a loaded host), one buffer of two grains (fields)
   * each: `buffers` counts the frames pushed (it counted 40 for 20),
   * `grains` the fields read (a field whose partner is lost is read
   * too) */
  g_assert_cmpuint (n, >=, N_FRAMES - 3);
  g_assert_cmpuint (st.buffers, ==, n);
  g_assert_cmpuint (st.grains, >=, 2 * n);
  g_assert_cmpuint (st.grains_received, >=, 2 * n);
  for (i = 0; i < n; i++) {
    guint64 off;
    guint flags;
    gchar *sum;
    gint k;

    parse_line (lines[i], &off, &flags, &sum);
    g_assert_cmpuint (off % 2, ==, 0);
    g_assert_cmpuint (flags, ==, GST_VIDEO_BUFFER_FLAG_INTERLACED |
        GST_VIDEO_BUFFER_FLAG_TFF);
    k = find_sent (sent, "frame", sum);
    g_assert_cmpint (k, >, last);
    last = k;
    g_free (sum);
  }
  g_assert_cmpint (last, ==, N_FRAMES - 1);
  g_strfreev (lines);
  sent_clear (sent);
}

int
main (int argc, char **argv)
{
  if (hgst_init (&argc, &argv, 5))
    return child_src (argv[2], argv[3], argv[4]);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/interleaved/split/tcp", test_split);
  g_test_add_func ("/gst/interleaved/weave/tcp", test_weave);
  return g_test_run ();
}
