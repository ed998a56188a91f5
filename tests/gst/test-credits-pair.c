/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Credits end to end with both real elements (issue 16; gst/sinkcredit.h,
 * gst/srccredit.h), two processes on tcp over 127.0.0.1: this process's
 * `appsrc ! identity sleep-time ! mxlfabricssink sync=false` sends, not
 * live, frame k being hgst_fill() seeded with k (distinct, regenerable);
 * the receiver is this binary re-executed with --child-src:
 * `mxlfabricssrc credits=true ring-length=16 ! ... ! fakesink`, whose
 * handoff checks every byte of every frame against what frame k must hold
 * and keeps the buffer for the main loop to free (a fakesink without its
 * last sample: an appsink keeps the last buffer pulled, and so one ring
 * slot, until it starts again).
 *  - slow: the receiver's downstream (identity sleep-time) is 3x slower
 *    than the sender, 600 frames: all 600 arrive, in order, exact; the
 *    sink counts 600 grains, no drop, dropped-no-credit 0 (element and
 *    target); it was held back to the receiver's pace; the src released
 *    all 600, refused none, dropped none, held none after its stop.
 *  - hold: the receiver keeps every buffer 200 ms before it frees it, 120
 *    frames: each is exact when handed off and still exact, byte for byte,
 *    when freed (no torn or changed zero-copy buffer); all arrive, at
 *    most a ring of them held at once; the sender was held back to a ring
 *    per 200 ms.
 * In both every buffer is zero-copy (its ring slot), the first one too.
 *
 * The child is reaped by PID; every wait and loop is bounded.
 */
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "../hardening/hgst.h"

#define W 320
#define H 240
#define CAPS "video/x-raw,format=v210,width=320,height=240,framerate=50/1"
/* v210: 48 pixels in 128 bytes per line */
#define FRAME_BYTES ((gsize) ((W + 47) / 48) * 128 * H)
#define RING 16
#define SEND_US 3333            /* the sender's identity, per frame */
#define RECV_US 10000           /* the slow receiver's identity: 3x */
#define HOLD_MS 200             /* the holding receiver, per buffer */
#define FRAMES_SLOW 600
#define FRAMES_HOLD 120
/* the child ends on the sender's EOS, or after this long without a frame */
#define IDLE_MS 3000

/* One buffer the child keeps, from its handoff on. */
typedef struct {
  GstBuffer *buf;
  guint k;
  gint64 due_us;
} Held;

/* What the child's fakesink handoff (streaming thread) and its main loop
 * share. */
typedef struct {
  GAsyncQueue *held;            /* Held, in arrival order */
  guint hold_ms;
  guint8 *scratch;              /* the handoff's */
  guint frames, bad, zc;        /* the handoff's; read after the EOS */
  gint out;                     /* atomic: handed off, not freed yet */
} Child;

/* Whether @b holds exactly frame @k (@scratch: FRAME_BYTES of room). */
static gboolean
frame_ok (GstBuffer * b, guint k, guint8 * scratch)
{
  GstMapInfo map;
  gboolean ok;

  if (!gst_buffer_map (b, &map, GST_MAP_READ))
    return FALSE;
  hgst_fill (scratch, FRAME_BYTES, k);
  ok = map.size == FRAME_BYTES && memcmp (map.data, scratch, map.size) == 0;
  gst_buffer_unmap (b, &map);
  return ok;
}

/* Whether @b is one of the src's zero-copy buffers: a single read-only
 * memory wrapping the ring slot (its copies come from a pool, writable). */
static gboolean
zero_copy (GstBuffer * b)
{
  return gst_buffer_n_memory (b) == 1
      && GST_MEMORY_IS_READONLY (gst_buffer_peek_memory (b, 0));
}

/* fakesink's handoff: frame k is the k-th to arrive (a lost or reordered
 * one fails the check); the buffer is kept for the main loop. */
static void
on_handoff (GstElement * fakesink, GstBuffer * b, GstPad * pad, Child * c)
{
  Held *h = g_new (Held, 1);

  if (!frame_ok (b, c->frames, c->scratch))
    c->bad++;
  if (zero_copy (b))
    c->zc++;
  h->buf = gst_buffer_ref (b);
  h->k = c->frames++;
  h->due_us = g_get_monotonic_time () + (gint64) c->hold_ms * 1000;
  g_atomic_int_inc (&c->out);
  g_async_queue_push (c->held, h);
}

/* Child: the receiver (@mode "slow": downstream 3x slower than the
 * sender; "hold": every buffer kept HOLD_MS) until EOS or IDLE_MS without
 * a frame (bounded: 25 s in all); writes its counts to @out, "name value"
 * a line. */
static int
child_src (const gchar * mode, const gchar * file, const gchar * out)
{
  gboolean hold = g_str_equal (mode, "hold");
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=tcp node="
      HGST_NODE " caps=\"" CAPS "\" ring-length=%d credits=true "
      "target-info-file=%s ! %s fakesink name=out sync=false "
      "enable-last-sample=false signal-handoffs=true", RING, file,
      hold ? "" : "identity sleep-time=" G_STRINGIFY (RECV_US) " !");
  GstElement *p = hgst_parse (desc);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "out");
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstBus *bus = gst_element_get_bus (p);
  gchar *playing = g_strconcat (out, ".playing", NULL);
  guint8 *scratch = g_malloc (FRAME_BYTES);
  Child c = { g_async_queue_new (), hold ? HOLD_MS : 0,
    g_malloc (FRAME_BYTES), 0, 0, 0, 0
  };
  gint64 end = g_get_monotonic_time () + 25 * G_USEC_PER_SEC;
  gint64 last = g_get_monotonic_time ();
  guint changed = 0, freed = 0, held_max = 0;
  gboolean eos = FALSE;
  GString *text = g_string_new (NULL);

  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &c);
  if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    return 3;
  hgst_wait_base_time (src);
  g_assert_true (g_file_set_contents (playing, "", 0, NULL));
  while (g_get_monotonic_time () < end
      && g_get_monotonic_time () - last < (gint64) IDLE_MS * 1000) {
    Held *h = g_async_queue_timeout_pop (c.held, 5000);
    GstMessage *m;

    if (h != NULL) {
      gint64 wait = h->due_us - g_get_monotonic_time ();

      last = g_get_monotonic_time ();
      held_max = MAX (held_max, (guint) g_atomic_int_get (&c.out));
      if (wait > 0)
        g_usleep (wait);
      /* still frame k when freed: its slot was not written meanwhile */
      if (!frame_ok (h->buf, h->k, scratch))
        changed++;
      gst_buffer_unref (h->buf);
      g_atomic_int_add (&c.out, -1);
      g_free (h);
      freed++;
      continue;
    }
    m = gst_bus_pop_filtered (bus, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    if (m != NULL) {
      eos = GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
      gst_message_unref (m);
      if (!eos)
        break;
    }
    /* the EOS came after the last handoff: done once all are freed */
    if (eos && g_atomic_int_get (&c.out) == 0)
      break;
  }
  /* the stats as the src's stop leaves them: its last refresh was at the
   * EOS, with buffers still downstream; its stop counts the releases and
   * the buffers still out */
  gst_element_set_state (p, GST_STATE_NULL);
  g_string_append_printf (text, "frames %u\nbad %u\nchanged %u\nfreed %u\n"
      "zero-copy %u\nheld-max %u\neos %d\n", c.frames, c.bad, changed, freed,
      c.zc, held_max, eos);
  {
    static const gchar *fields[] = { "grains", "dropped", "credit-releases",
      "credit-release-failures", "credits-held"
    };
    for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
      g_string_append_printf (text, "%s %" G_GUINT64_FORMAT "\n", fields[i],
          hgst_stat (p, "src", fields[i]));
  }
  g_assert_true (g_file_set_contents (out, text->str, -1, NULL));
  g_string_free (text, TRUE);
  g_async_queue_unref (c.held);
  g_free (c.scratch);
  g_free (scratch);
  g_free (playing);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (desc);
  return 0;
}

/* The value of line "@name value" of the child's @lines; fails if absent. */
static guint64
child_count (gchar ** lines, const gchar * name)
{
  gsize len = strlen (name);

  for (guint i = 0; lines[i] != NULL; i++)
    if (strncmp (lines[i], name, len) == 0 && lines[i][len] == ' ')
      return g_ascii_strtoull (lines[i] + len + 1, NULL, 10);
  g_error ("the child wrote no \"%s\"", name);
  return 0;
}

/* Sends @n frames to a child receiver in @mode; returns its lines. */
static gchar **
run (const gchar * mode, guint n, gint64 * took_us)
{
  gchar *dir = g_dir_make_tmp ("mxl-credits-pair-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *out = g_build_filename (dir, "out.txt", NULL);
  gchar *playing = g_strconcat (out, ".playing", NULL);
  gchar *source = g_strconcat ("@", file, NULL);
  GPid pid = hgst_spawn_child (mode, file, out, NULL);
  GstElement *p, *in;
  GstBus *bus;
  GstMessage *msg;
  gchar *desc, **lines;
  gint64 t0, end;

  g_assert_true (hgst_wait_file (file));
  g_assert_true (hgst_wait_file (playing));
  desc = g_strdup_printf ("appsrc name=in is-live=false format=time "
      "block=true max-bytes=%" G_GSIZE_FORMAT " caps=\"" CAPS "\" ! "
      "identity sleep-time=" G_STRINGIFY (SEND_US) " ! mxlfabricssink "
      "name=sink provider=tcp node=" HGST_NODE " sync=false "
      "target-info=%s", 4 * FRAME_BYTES, source);
  p = hgst_parse (desc);
  in = gst_bin_get_by_name (GST_BIN (p), "in");
  hgst_play (p);
  g_assert_true (hgst_wait_connected (p, 5000));
  t0 = g_get_monotonic_time ();
  /* bounded: each push waits at most for appsrc's queue, which a render
   * empties within the sink's 1 s credit wait */
  end = t0 + 20 * G_USEC_PER_SEC;
  for (guint k = 0; k < n && g_get_monotonic_time () < end; k++)
    g_assert_cmpint (gst_app_src_push_buffer (GST_APP_SRC (in),
            hgst_frame (FRAME_BYTES, k, k * 20 * GST_MSECOND,
                20 * GST_MSECOND)), ==, GST_FLOW_OK);
  g_assert_cmpint (gst_app_src_end_of_stream (GST_APP_SRC (in)), ==,
      GST_FLOW_OK);
  bus = gst_element_get_bus (p);
  msg = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  g_assert_cmpint (GST_MESSAGE_TYPE (msg), ==, GST_MESSAGE_EOS);
  gst_message_unref (msg);
  *took_us = g_get_monotonic_time () - t0;
  hgst_log_stats (p, "sink", "sink stats at EOS");
  /* every frame went out, none for want of a credit */
  g_assert_cmpuint (hgst_stat (p, "sink", "grains"), ==, n);
  g_assert_cmpuint (hgst_stat (p, "sink", "dropped"), ==, 0);
  g_assert_cmpuint (hgst_stat (p, "sink", "dropped-no-credit"), ==, 0);
  g_assert_cmpuint (hgst_sink_target_stat (p, source, "grains"), ==, n);
  g_assert_cmpuint (hgst_sink_target_stat (p, source, "dropped-no-credit"),
      ==, 0);
  g_assert_cmpuint (hgst_stat (p, "sink", "transfers-completed"), ==, n);
  hgst_assert_child_ok (pid, 25000);
  gst_object_unref (bus);
  gst_object_unref (in);
  hgst_stop (p);
  lines = hgst_read_lines (out);
  g_test_message ("%s: %u frames sent in %" G_GINT64_FORMAT " ms", mode, n,
      *took_us / 1000);
  for (guint i = 0; lines[i] != NULL; i++)
    g_test_message ("  child %s", lines[i]);
  g_free (desc);
  g_unlink (playing);
  g_free (playing);
  g_free (source);
  hgst_remove_files (dir, file, out);
  return lines;
}

/* What both cases assert of the receiver: all @n frames, exact, in order,
 * zero-copy, ended by the sender's EOS; every grain released, none refused, none
 * still held. */
static void
assert_received (gchar ** lines, guint n)
{
  g_assert_cmpuint (child_count (lines, "frames"), ==, n);
  g_assert_cmpuint (child_count (lines, "freed"), ==, n);
  g_assert_cmpuint (child_count (lines, "bad"), ==, 0);
  /* the sender announced itself: each buffer is its ring slot, the first
   * one too (mxlFabricsExtTargetCreditsAnnounced, srccredit.c) */
  g_assert_cmpuint (child_count (lines, "zero-copy"), ==, n);
  g_assert_cmpuint (child_count (lines, "eos"), ==, 1);
  g_assert_cmpuint (child_count (lines, "grains"), ==, n);
  g_assert_cmpuint (child_count (lines, "dropped"), ==, 0);
  g_assert_cmpuint (child_count (lines, "credit-releases"), ==, n);
  g_assert_cmpuint (child_count (lines, "credit-release-failures"), ==, 0);
  g_assert_cmpuint (child_count (lines, "credits-held"), ==, 0);
}

static void
test_slow (void)
{
  gint64 took;
  gchar **lines = run ("slow", FRAMES_SLOW, &took);

  assert_received (lines, FRAMES_SLOW);
  /* held back to the receiver's pace, not the sender's 3x faster one */
  g_assert_cmpint (took, >=, (gint64) FRAMES_SLOW * RECV_US * 9 / 10);
  g_strfreev (lines);
}

static void
test_hold (void)
{
  gint64 took;
  gchar **lines = run ("hold", FRAMES_HOLD, &took);

  assert_received (lines, FRAMES_HOLD);
  g_assert_cmpuint (child_count (lines, "changed"), ==, 0);
  /* the sender waited for the held slots: a ring per HOLD_MS at most */
  g_assert_cmpint (took, >=, (gint64) (FRAMES_HOLD / RING - 1) * HOLD_MS
      * 1000);
  /* every buffer wrapped its ring slot (assert_received()): held at
   * once, at most the ring */
  g_assert_cmpuint (child_count (lines, "held-max"), <=, RING);
  g_strfreev (lines);
}

int
main (int argc, char **argv)
{
  if (hgst_init (&argc, &argv, 5))
    return child_src (argv[2], argv[3], argv[4]);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/credits-pair/slow", test_slow);
  g_test_add_func ("/gst/credits-pair/hold", test_hold);
  return g_test_run ();
}
