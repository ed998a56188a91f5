/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * `node` as users write it (issue 19): a host name on either element is
 * resolved in start() (gst/mxlfabricsopen.c, GResolver bounded by 2 s).
 *
 * - localhost: src and sink both given node=localhost (tcp) transfer 20
 *   frames, every one arriving with the checksum sent.
 * - unresolvable: node=no-such-host.invalid (RFC 6761: never resolves) on
 *   the sink and on the src: the state change fails with an ERROR that
 *   names the node, within the resolver's bound.
 * - no-answer: with a resolver that never answers (installed as GLib's
 *   default), the lookup is given up after 2 s: an ERROR naming the node,
 *   no hang.
 * - shm-same-node: a receiver (this binary re-executed with --child-src)
 *   and its sender in another process both given the same shm node (issue
 *   19 item F): the sink's endpoint was named after the node, as the
 *   receiver's is, so its fi_enable failed EBUSY ("shm file in use") and
 *   the receiver got nothing, without a message on the bus; now the
 *   initiator names its endpoints itself and every one of 20 frames
 *   arrives with the checksum sent. A second receiver given that node is
 *   an ERROR that says each receiver needs a node of its own.
 *
 * Every wait is bounded.
 */
#include <signal.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <gst/app/gstappsrc.h>

#include "../hardening/hgst.h"

#define CAPS "video/x-raw,format=v210,width=320,height=180,framerate=50/1"
#define FRAMES 20
#define BAD_NODE "no-such-host.invalid"
#define FRAME_BYTES (7 * 128 * 180)     /* v210 320x180: 7 blocks a line */
#define FRAME_NS (GST_SECOND / 50)

static void
on_handoff (GstElement * identity, GstBuffer * b, GPtrArray * sums)
{
  g_ptr_array_add (sums, hgst_checksum (b));
}

static void
test_localhost (void)
{
  GstElement *rx = hgst_parse ("mxlfabricssrc name=src provider=tcp "
      "node=localhost caps=\"" CAPS "\" ring-length=64 ! appsink name=out "
      "sync=false max-buffers=1000");
  GstElement *tx = hgst_parse ("videotestsrc num-buffers=20 pattern=ball ! "
      CAPS " ! identity name=id signal-handoffs=true ! mxlfabricssink "
      "name=sink provider=tcp node=localhost");
  GstElement *id = gst_bin_get_by_name (GST_BIN (tx), "id");
  GPtrArray *sums = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *got = g_ptr_array_new_with_free_func (g_free);
  gchar *ti;

  g_signal_connect (id, "handoff", G_CALLBACK (on_handoff), sums);
  ti = hgst_play_pair (rx, tx);
  while (got->len < FRAMES) {
    GstBuffer *b = hgst_pull (rx, 5000);

    if (b == NULL)
      break;
    g_ptr_array_add (got, hgst_checksum (b));
    gst_buffer_unref (b);
  }
  hgst_assert_no_error (rx);
  hgst_assert_no_error (tx);
  g_assert_cmpuint (got->len, ==, FRAMES);
  g_assert_cmpuint (sums->len, ==, FRAMES);
  for (guint k = 0; k < FRAMES; k++)
    g_assert_cmpstr (g_ptr_array_index (got, k), ==,
        g_ptr_array_index (sums, k));
  gst_object_unref (id);
  hgst_stop (tx);
  hgst_stop (rx);
  g_ptr_array_unref (sums);
  g_ptr_array_unref (got);
  g_free (ti);
}

/* Starts @desc; the state change fails with an ERROR (RESOURCE @code)
 * saying @needle, within 10 s (the resolver's bound, 2 s, and slack). */
static void
expect_start_error (const gchar * desc, const gchar * needle, gint code)
{
  GstElement *p = hgst_parse (desc);
  GstBus *bus = gst_element_get_bus (p);
  gint64 start = g_get_monotonic_time ();
  GstStateChangeReturn r = gst_element_set_state (p, GST_STATE_PAUSED);
  GstMessage *msg;
  GError *e = NULL;

  if (r == GST_STATE_CHANGE_ASYNC)
    r = gst_element_get_state (p, NULL, NULL, 10 * GST_SECOND);
  g_assert_cmpint (r, ==, GST_STATE_CHANGE_FAILURE);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  gst_message_parse_error (msg, &e, NULL);
  g_test_message ("%s", e->message);
  if (strstr (e->message, needle) == NULL)
    g_error ("\"%s\" not in \"%s\"", needle, e->message);
  g_assert_true (g_error_matches (e, GST_RESOURCE_ERROR, code));
  g_error_free (e);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

/* A GResolver that never answers a lookup by name: only its cancellable
 * ends it. */
typedef GResolver MuteResolver;
typedef GResolverClass MuteResolverClass;
GType mute_resolver_get_type (void);
G_DEFINE_TYPE (MuteResolver, mute_resolver, G_TYPE_RESOLVER);

static void
mute_cancelled (GCancellable * cancellable, GTask * task)
{
  g_task_return_error_if_cancelled (task);
}

static void
mute_lookup_async (GResolver * resolver, const gchar * hostname,
    GCancellable * cancellable, GAsyncReadyCallback callback, gpointer data)
{
  GTask *task = g_task_new (resolver, cancellable, callback, data);

  g_assert_nonnull (cancellable);
  g_cancellable_connect (cancellable, G_CALLBACK (mute_cancelled), task,
      g_object_unref);
}

static GList *
mute_lookup_finish (GResolver * resolver, GAsyncResult * result,
    GError ** error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
mute_resolver_class_init (MuteResolverClass * klass)
{
  klass->lookup_by_name_async = mute_lookup_async;
  klass->lookup_by_name_finish = mute_lookup_finish;
}

static void
mute_resolver_init (MuteResolver * self)
{
}

static void
test_no_answer (void)
{
  GResolver *saved = g_resolver_get_default ();
  GResolver *mute = g_object_new (mute_resolver_get_type (), NULL);
  gint64 start = g_get_monotonic_time ();
  GstElement *p = hgst_parse ("videotestsrc num-buffers=5 ! " CAPS
      " ! mxlfabricssink provider=tcp node=silent.example "
      "target-info=@/nonexistent-never");
  GstBus *bus = gst_element_get_bus (p);
  GstMessage *msg;
  GError *e = NULL;

  g_resolver_set_default (mute);
  g_assert_cmpint (gst_element_set_state (p, GST_STATE_PAUSED), ==,
      GST_STATE_CHANGE_FAILURE);
  g_resolver_set_default (saved);
  /* the bound (2 s) was waited for, not much more */
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 2 * G_USEC_PER_SEC);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  g_assert_nonnull (msg);
  gst_message_parse_error (msg, &e, NULL);
  g_test_message ("%s", e->message);
  g_assert_cmpstr (e->message, ==, "cannot resolve node \"silent.example\": "
      "no answer within 2000 ms");
  g_error_free (e);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_object_unref (mute);
  g_object_unref (saved);
}

static void
test_unresolvable_sink (void)
{
  expect_start_error ("videotestsrc num-buffers=5 ! " CAPS " ! "
      "mxlfabricssink provider=tcp node=" BAD_NODE " target-info=@/nonexistent-"
      "never", "cannot resolve node \"" BAD_NODE "\"",
      GST_RESOURCE_ERROR_NOT_FOUND);
}

static void
test_unresolvable_src (void)
{
  expect_start_error ("mxlfabricssrc provider=tcp node=" BAD_NODE " caps=\""
      CAPS "\" ! fakesink", "cannot resolve node \"" BAD_NODE "\"",
      GST_RESOURCE_ERROR_NOT_FOUND);
}

static void
drop_buffer (GstBuffer * b, gpointer data)
{
}

/* Child: a shm receiver of @node writing its TargetInfo to @file, then the
 * SHA-1s of the FRAMES frames it gets to @out; it keeps its endpoint until
 * SIGINT (or 20 s without one). */
static int
child_src (const gchar * node, const gchar * file, const gchar * out)
{
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=shm "
      "node=%s caps=\"" CAPS "\" ring-length=64 target-info-file=%s ! "
      "appsink name=out sync=false max-buffers=1000", node, file);
  GstElement *p = hgst_parse (desc);

  hgst_play (p);
  hgst_write_checksums (p, out, FRAMES, 20000, 3000);
  hgst_pull_until_sigint (p, 20000, drop_buffer, NULL);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
  return 0;
}

/* Child: a second shm receiver of @node that must not start; writes the
 * text of its ERROR to @out. */
static int
child_second_receiver (const gchar * node, const gchar * out)
{
  gchar *desc = g_strdup_printf ("mxlfabricssrc provider=shm node=%s "
      "caps=\"" CAPS "\" ! fakesink", node);
  GstElement *p = hgst_parse (desc);
  GstBus *bus = gst_element_get_bus (p);
  GstStateChangeReturn r = gst_element_set_state (p, GST_STATE_PAUSED);
  GstMessage *msg;
  GError *e = NULL;

  if (r == GST_STATE_CHANGE_ASYNC)
    r = gst_element_get_state (p, NULL, NULL, 10 * GST_SECOND);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (r != GST_STATE_CHANGE_FAILURE || msg == NULL)
    return 3;
  gst_message_parse_error (msg, &e, NULL);
  g_assert_true (g_file_set_contents (out, e->message, -1, NULL));
  g_error_free (e);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
  return 0;
}

/* A second receiver of @node in a process of its own (this binary again):
 * its start fails, with the ERROR that a node in use asks for one of its
 * own. */
static void
second_receiver (const gchar * node, const gchar * dir)
{
  gchar *out = g_build_filename (dir, "second.txt", NULL);
  GPid pid = hgst_spawn_child (node, "-", out, NULL);
  gchar *text = NULL;

  hgst_assert_child_ok (pid, 15000);
  g_assert_true (g_file_get_contents (out, &text, NULL, NULL));
  g_test_message ("second receiver: %s", text);
  g_assert_nonnull (strstr (text, "each receiver needs a node of its own"));
  g_unlink (out);
  g_free (text);
  g_free (out);
}

static void
test_shm_same_node (void)
{
  gchar *dir = g_dir_make_tmp ("mxl-node-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *out = g_build_filename (dir, "rx.sums", NULL);
  /* a node of the user's choosing: not the library's own form */
  gchar *node = g_strdup_printf ("mxl-test-node-%d", (int) getpid ());
  gchar *desc, *region;
  GPtrArray *sent;
  GPid pid;

  pid = hgst_spawn_child (node, file, out, NULL);
  g_assert_true (hgst_wait_file (file));

  /* a second receiver of that node in a process of its own (its first shm
   * endpoint, as the first receiver's is): the file its endpoint would
   * have is taken; refused before libfabric would have removed that file
   * (the first receiver could no longer be reached), with an ERROR that
   * says what to do */
  second_receiver (node, dir);
  region = g_strdup_printf ("/dev/shm/%s:%u:0", node, (guint) getuid ());
  g_assert_true (g_file_test (region, G_FILE_TEST_EXISTS));
  g_free (region);

  /* the sender given the receiver's node (this process's first shm
   * endpoint, as the receiver's is in its own) connects and sends every
   * frame */
  desc = g_strdup_printf ("appsrc name=in is-live=true format=time caps=\""
      CAPS "\" ! mxlfabricssink name=sink provider=shm node=%s "
      "target-info=@%s", node, file);
  sent = hgst_connect_and_send (desc, FRAMES, FRAME_BYTES, FRAME_NS, 10000);
  g_free (desc);
  g_assert_true (hgst_wait_file (out));
  hgst_assert_sums (out, sent);
  g_ptr_array_unref (sent);
  g_assert_cmpint (kill (pid, SIGINT), ==, 0);
  hgst_assert_child_ok (pid, 10000);
  g_free (node);
  hgst_remove_files (dir, file, out);
}

int
main (int argc, char **argv)
{
  if (hgst_init (&argc, &argv, 5))
    return g_str_equal (argv[3], "-") ? child_second_receiver (argv[2],
        argv[4]) : child_src (argv[2], argv[3], argv[4]);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/node/localhost", test_localhost);
  g_test_add_func ("/gst/node/unresolvable-sink", test_unresolvable_sink);
  g_test_add_func ("/gst/node/unresolvable-src", test_unresolvable_src);
  g_test_add_func ("/gst/node/no-answer", test_no_answer);
  g_test_add_func ("/gst/node/shm-same-node", test_shm_same_node);
  return g_test_run ();
}
