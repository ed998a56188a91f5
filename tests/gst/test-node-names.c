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
 *
 * Every wait is bounded.
 */
#include <gio/gio.h>

#include "../hardening/hgst.h"

#define CAPS "video/x-raw,format=v210,width=320,height=180,framerate=50/1"
#define FRAMES 20
#define BAD_NODE "no-such-host.invalid"

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

/* Starts @desc; the state change fails with an ERROR naming BAD_NODE,
 * within the resolver's bound (2 s) and some slack. */
static void
unresolvable (const gchar * desc)
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
  g_assert_nonnull (strstr (e->message, "cannot resolve node \"" BAD_NODE "\""));
  g_assert_true (g_error_matches (e, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND));
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
  unresolvable ("videotestsrc num-buffers=5 ! " CAPS " ! mxlfabricssink "
      "provider=tcp node=" BAD_NODE " target-info=@/nonexistent-never");
}

static void
test_unresolvable_src (void)
{
  unresolvable ("mxlfabricssrc provider=tcp node=" BAD_NODE " caps=\""
      CAPS "\" ! fakesink");
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/node/localhost", test_localhost);
  g_test_add_func ("/gst/node/unresolvable-sink", test_unresolvable_sink);
  g_test_add_func ("/gst/node/unresolvable-src", test_unresolvable_src);
  g_test_add_func ("/gst/node/no-answer", test_no_answer);
  return g_test_run ();
}
