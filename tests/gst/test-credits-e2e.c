/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Credits end to end (issue 16): mxlfabricssink in this process,
 * mxlfabricssrc credits=true in child processes (this binary re-executed),
 * on loopback. Every receiver stalls by not pulling from its appsink: its
 * zero-copy buffers keep their ring slots, so it gives no credit until the
 * parent lets it go on (the file OUT.go).
 *  - live-stalled/PROVIDER: a live sender (appsrc is-live=true, sink
 *    sync=true, 100 frames at 50 fps) with a stalled receiver keeps real
 *    time: every frame is rendered and none is late (basesink dropped 0);
 *    what the receiver had no credit for is dropped-no-credit, in the
 *    element and for the target, and grains + dropped-no-credit = 100.
 *    The receiver got at least its ring and at most its ring plus the 3
 *    it took before stalling, each bit-exact and in the order sent.
 *  - fan-out-stalled/PROVIDER: a sender that is not live (300 frames as
 *    fast as the receivers take them) to two receivers, one of them
 *    stalled: the other gets all 300, in order and bit-exact; the stalled
 *    one costs only itself (its dropped-no-credit = 300 - its grains, the
 *    element's dropped-no-credit 0: every grain reached a target).
 * PROVIDER: tcp (connected), shm and tcp;ofi_rxm (connectionless: the
 * initiator announces itself in a message, docs/wire-format.md §11.7).
 *
 * The child's last argument is "HOLD:RING": it pulls HOLD buffers, then
 * stops pulling until OUT.go exists (at most 60 s), then pulls until none
 * came for 2 s, and writes the SHA-1 of each buffer, one a line, to OUT.
 * Children are reaped or killed by PID; every wait is bounded.
 */
#include <stdlib.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "../hardening/hgst.h"

#define CAPS_50 "video/x-raw,format=v210,width=192,height=108,framerate=50/1"
/* its frame size: 512 bytes a line (v210), 108 lines */
#define FRAME_50 (512 * 108)
#define FRAME_NS (20 * GST_MSECOND)
#define RING 8u
#define HOLD 3u

/* The provider element property text for @provider (node only on tcp). */
static gchar *
provider_props (const gchar * provider)
{
  return g_strdup_printf ("provider=\"%s\"%s", provider,
      g_str_has_prefix (provider, "tcp") ? " node=" HGST_NODE : "");
}

static int
child_src (const gchar * provider, const gchar * file, const gchar * out,
    const gchar * arg)
{
  guint hold = 0, ring = 0;
  gchar *props = provider_props (provider);
  gchar *go = g_strconcat (out, ".go", NULL);
  gchar *desc;
  GstElement *p;
  GString *sums = g_string_new (NULL);
  guint got;

  if (sscanf (arg, "%u:%u", &hold, &ring) != 2)
    return 2;
  desc = g_strdup_printf ("mxlfabricssrc name=src %s credits=true "
      "caps=\"" CAPS_50 "\" target-info-file=%s ring-length=%u ! appsink "
      "name=out sync=false max-buffers=1000", props, file, ring);
  p = hgst_parse (desc);
  hgst_play (p);
  got = hold == 0 ? 0 : hgst_pull_each (p, hold, 20000, 20000,
      hgst_append_checksum, sums);
  if (got != hold)
    return 3;
  /* stalled: the buffers queue in the appsink and keep their slots */
  for (guint k = 0; k < 3000 && !g_file_test (go, G_FILE_TEST_EXISTS); k++)
    g_usleep (20 * 1000);
  hgst_pull_each (p, 0, 2000, 2000, hgst_append_checksum, sums);
  gst_element_set_state (p, GST_STATE_NULL);
  g_assert_true (g_file_set_contents (out, sums->str, -1, NULL));
  g_string_free (sums, TRUE);
  gst_object_unref (p);
  g_free (desc);
  g_free (go);
  g_free (props);
  return 0;
}

typedef struct
{
  gchar *dir, *file, *out, *go;
  GPid pid;
} Receiver;

/* Starts receiver @k on @provider that stalls after @hold buffers (0: does
 * not stall: its go file exists at once) and waits for its TargetInfo. */
static void
receiver_start (Receiver * r, const gchar * provider, guint k, guint hold)
{
  gchar *arg = g_strdup_printf ("%u:%u", hold, RING);
  gchar *name = g_strdup_printf ("target-%u.json", k);

  r->dir = g_dir_make_tmp ("mxlfab-credits-XXXXXX", NULL);
  g_assert_nonnull (r->dir);
  r->file = g_build_filename (r->dir, name, NULL);
  r->out = g_build_filename (r->dir, "got.txt", NULL);
  r->go = g_strconcat (r->out, ".go", NULL);
  if (hold == 0)
    g_assert_true (g_file_set_contents (r->go, "", 0, NULL));
  r->pid = hgst_spawn_child (provider, r->file, r->out, arg, NULL);
  g_assert_true (hgst_wait_file (r->file));
  g_free (arg);
  g_free (name);
}

/* Lets @r go on, waits for it to end well (at most 30 s) and returns the
 * SHA-1s it got (g_strfreev()). */
static gchar **
receiver_finish (Receiver * r)
{
  gchar **lines;

  g_assert_true (g_file_set_contents (r->go, "", 0, NULL));
  hgst_assert_child_ok (r->pid, 30000);
  lines = hgst_read_lines (r->out);
  g_unlink (r->go);
  g_unlink (r->out);
  g_unlink (r->file);
  g_rmdir (r->dir);
  g_free (r->dir);
  g_free (r->file);
  g_free (r->out);
  g_free (r->go);
  return lines;
}

/* Fails unless @got (SHA-1s, in the order received) are @n of @sent, in
 * the order sent. */
static void
assert_subsequence (gchar ** got, GPtrArray * sent, guint n)
{
  guint k = 0;

  g_assert_cmpuint (g_strv_length (got), ==, n);
  for (guint i = 0; got[i] != NULL; i++) {
    while (k < sent->len && g_strcmp0 (got[i], g_ptr_array_index (sent, k)))
      k++;
    if (k == sent->len)
      g_error ("received buffer %u is none of those sent after the last "
          "match: changed, or out of order", i);
    k++;
  }
}

/* The grains the sink of @p sent to the stalled receiver @source, of @n:
 * the rest is its dropped-no-credit; it took at least its ring and far
 * fewer than were sent. */
static guint64
stalled_grains (GstElement * p, const gchar * provider, const gchar * source,
    guint n)
{
  guint64 grains = hgst_sink_target_stat (p, source, "grains");
  guint64 no_credit = hgst_sink_target_stat (p, source, "dropped-no-credit");

  g_test_message ("%s: stalled receiver took %" G_GUINT64_FORMAT " grains, "
      "%" G_GUINT64_FORMAT " dropped-no-credit", provider, grains, no_credit);
  g_assert_cmpuint (grains + no_credit, ==, n);
  g_assert_cmpuint (grains, >=, RING);
  g_assert_cmpuint (grains, <, n / 4);
  return grains;
}

/* Whether the target @source of the sink of @p is connected (its state
 * in the sink's `targets` stats, GST_MXL_FABRICS_CONNECTION_CONNECTED). */
static gboolean
target_connected (GstElement * p, const gchar * source)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  GstStructure *t = hgst_sink_target_stats (sink, source);
  const GValue *v = t ? gst_structure_get_value (t, "state") : NULL;
  gboolean up = v != NULL && G_VALUE_HOLDS_ENUM (v)
      && g_value_get_enum (v) == 3;

  if (t)
    gst_structure_free (t);
  gst_object_unref (sink);
  return up;
}

static void
test_live_stalled (gconstpointer data)
{
  const gchar *provider = data;
  const guint n = 100;
  Receiver r;
  gchar *props = provider_props (provider);
  gchar *desc, *source;
  GstElement *tx;
  GPtrArray *sent = g_ptr_array_new_with_free_func (g_free);
  GstElement *in;
  GstClockTime base;
  guint64 grains;
  gchar **got;

  receiver_start (&r, provider, 0, HOLD);
  source = g_strconcat ("@", r.file, NULL);
  desc = g_strdup_printf ("appsrc name=in is-live=true format=time "
      "caps=\"" CAPS_50 "\" ! mxlfabricssink name=sink %s target-info=%s "
      "sync=true", props, source);
  tx = hgst_parse (desc);
  hgst_play (tx);
  g_assert_true (hgst_wait_connected (tx, 10000));
  in = gst_bin_get_by_name (GST_BIN (tx), "in");
  base = hgst_running_time (tx, 100 * GST_MSECOND);
  for (guint k = 0; k < n; k++) {
    GstBuffer *b = hgst_frame (FRAME_50, k, base + k * FRAME_NS, FRAME_NS);

    g_ptr_array_add (sent, hgst_checksum (b));
    g_assert_cmpint (gst_app_src_push_buffer (GST_APP_SRC (in), b), ==,
        GST_FLOW_OK);
  }
  /* 2 s of frames: all rendered on time (bounded: 10 s) */
  for (guint k = 0; k < 500 && hgst_stat (tx, "sink", "buffers") < n; k++)
    g_usleep (20 * 1000);
  g_usleep (300 * 1000);        /* the last transfers complete */
  hgst_assert_no_error (tx);
  g_assert_cmpuint (hgst_stat (tx, "sink", "rendered"), ==, n);
  g_assert_cmpuint (hgst_stat (tx, "sink", "basesink-dropped"), ==, 0);
  grains = stalled_grains (tx, provider, source, n);
  g_assert_cmpuint (hgst_stat (tx, "sink", "dropped-no-credit"), ==,
      n - grains);
  got = receiver_finish (&r);
  assert_subsequence (got, sent, (guint) grains);
  g_strfreev (got);
  hgst_stop (tx);
  gst_object_unref (in);
  g_ptr_array_unref (sent);
  g_free (desc);
  g_free (source);
  g_free (props);
}

static void
test_fan_out_stalled (gconstpointer data)
{
  const gchar *provider = data;
  const guint n = 300;
  Receiver fast, slow;
  gchar *props = provider_props (provider);
  gchar *desc, *src_fast, *src_slow;
  GstElement *tx, *in;
  GPtrArray *sent = g_ptr_array_new_with_free_func (g_free);
  guint64 grains;
  gchar **got;

  receiver_start (&fast, provider, 0, 0);
  receiver_start (&slow, provider, 1, HOLD);
  src_fast = g_strconcat ("@", fast.file, NULL);
  src_slow = g_strconcat ("@", slow.file, NULL);
  desc = g_strdup_printf ("appsrc name=in is-live=false format=time "
      "block=true max-buffers=4 caps=\"" CAPS_50 "\" ! mxlfabricssink "
      "name=sink %s target-info=\"%s,%s\" sync=false", props, src_fast,
      src_slow);
  tx = hgst_parse (desc);
  hgst_play (tx);
  /* both connected (bounded: 10 s) */
  for (guint k = 0; k < 500 && !(target_connected (tx, src_slow)
          && target_connected (tx, src_fast)); k++)
    g_usleep (20 * 1000);
  g_assert_true (target_connected (tx, src_slow));
  g_assert_true (target_connected (tx, src_fast));
  in = gst_bin_get_by_name (GST_BIN (tx), "in");
  for (guint k = 0; k < n; k++) {
    GstBuffer *b = hgst_frame (FRAME_50, k, k * FRAME_NS, FRAME_NS);

    g_ptr_array_add (sent, hgst_checksum (b));
    g_assert_cmpint (gst_app_src_push_buffer (GST_APP_SRC (in), b), ==,
        GST_FLOW_OK);
  }
  gst_object_unref (in);
  hgst_end_stream (tx, 30000);
  grains = stalled_grains (tx, provider, src_slow, n);
  g_assert_cmpuint (hgst_sink_target_stat (tx, src_fast, "grains"), ==, n);
  g_assert_cmpuint (hgst_sink_target_stat (tx, src_fast, "dropped-no-credit"), ==, 0);
  g_assert_cmpuint (hgst_stat (tx, "sink", "dropped-no-credit"), ==, 0);
  g_assert_cmpuint (hgst_stat (tx, "sink", "dropped"), ==, 0);
  got = receiver_finish (&fast);
  assert_subsequence (got, sent, n);    /* all n of n: exactly those sent */
  g_strfreev (got);
  got = receiver_finish (&slow);
  assert_subsequence (got, sent, (guint) grains);
  g_strfreev (got);
  hgst_stop (tx);
  g_ptr_array_unref (sent);
  g_free (desc);
  g_free (src_fast);
  g_free (src_slow);
  g_free (props);
}

int
main (int argc, char **argv)
{
  static const gchar *providers[] = { "tcp", "shm", "tcp;ofi_rxm" };

  if (hgst_init (&argc, &argv, 6))
    return child_src (argv[2], argv[3], argv[4], argv[5]);
  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (providers); i++) {
    gchar *a = g_strdup_printf ("/gst/credits-e2e/live-stalled/%s",
        providers[i]);
    gchar *b = g_strdup_printf ("/gst/credits-e2e/fan-out-stalled/%s",
        providers[i]);

    g_test_add_data_func (a, providers[i], test_live_stalled);
    g_test_add_data_func (b, providers[i], test_fan_out_stalled);
    g_free (a);
    g_free (b);
  }
  return g_test_run ();
}
