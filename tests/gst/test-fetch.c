/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sink's fetch of an http:// TargetInfo (gst/sinkfetch.c) against the
 * src's HTTP server (gst/srchttp.c) with a body of the test's own, in one
 * process on 127.0.0.1: a first document; the same one again is UNCHANGED
 * (the server's ETag answered 304); a new one is a DOCUMENT; no body yet is
 * a 503 FAILED whose reason names the URL and the status, said once; no
 * server is a FAILED without an HTTP answer; the back-off grows between
 * attempts and is back at its start after a document. Every wait is
 * bounded. */
#include <string.h>

#include <gio/gio.h>
#include <gst/gst.h>

#include "sinkfetch.h"
#include "srchttp.h"

typedef struct {
  gchar *body;                  /* NULL: 503 */
  gint asked;
} Served;

static gchar *
body_of (gpointer data, GstMxlFabricsHttpResource what, gchar ** reason)
{
  Served *s = data;

  g_atomic_int_inc (&s->asked);
  if (s->body == NULL)
    *reason = g_strdup ("not set up");
  return g_strdup (s->body);
}

static guint
free_port (void)
{
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
      G_SOCKET_PROTOCOL_TCP, NULL);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *a = g_inet_socket_address_new (lo, 0), *bound;
  guint port;

  g_assert_true (g_socket_bind (s, a, FALSE, NULL));
  bound = g_socket_get_local_address (s, NULL);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  g_object_unref (bound);
  g_object_unref (a);
  g_object_unref (lo);
  g_object_unref (s);
  return port;
}

static gboolean
on_tick (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* Polls @f (wanted) on this thread's context until a result other than
 * NONE, for at most 3 s (fails the test then). */
static GstMxlFabricsSinkFetchResult
poll_until (GstMxlFabricsSinkFetch * f, gchar ** body, GError ** error)
{
  gint64 end = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;
  GSource *tick = g_timeout_source_new (10);
  GstMxlFabricsSinkFetchResult r = GST_MXL_FABRICS_SINK_FETCH_NONE;

  g_source_set_callback (tick, on_tick, NULL, NULL);
  g_source_attach (tick, g_main_context_get_thread_default ());
  while (g_get_monotonic_time () < end) {
    r = gst_mxl_fabrics_sink_fetch_poll (f, g_get_monotonic_time (), TRUE,
        body, error);
    if (r != GST_MXL_FABRICS_SINK_FETCH_NONE)
      break;
    g_main_context_iteration (g_main_context_get_thread_default (), TRUE);
  }
  g_source_destroy (tick);
  g_source_unref (tick);
  g_assert_cmpint (r, !=, GST_MXL_FABRICS_SINK_FETCH_NONE);
  return r;
}

/* The back-off now: how far ahead the next request is due. */
static gint64
delay_us (GstMxlFabricsSinkFetch * f)
{
  return gst_mxl_fabrics_sink_fetch_next_due (f, TRUE, G_MAXINT64) -
      g_get_monotonic_time ();
}

static void
test_fetch (void)
{
  GMainContext *ctx = g_main_context_new ();
  Served served = { g_strdup ("{\"a\":1}"), 0 };
  guint port = free_port ();
  gchar *url = g_strdup_printf ("http://127.0.0.1:%u/target-info", port);
  GstMxlFabricsHttpServer *server;
  GstMxlFabricsSinkFetch *f;
  GError *error = NULL;
  gchar *body = NULL;
  gint asked;

  g_main_context_push_thread_default (ctx);
  server = gst_mxl_fabrics_http_server_start ("127.0.0.1", port, body_of,
      &served, &error);
  g_assert_no_error (error);
  f = gst_mxl_fabrics_sink_fetch_new (url, &error);
  g_assert_no_error (error);

  g_assert_cmpint (poll_until (f, &body, &error), ==,
      GST_MXL_FABRICS_SINK_FETCH_DOCUMENT);
  g_assert_cmpstr (body, ==, "{\"a\":1}");
  g_clear_pointer (&body, g_free);
  g_assert_cmpint (delay_us (f), <=,
      GST_MXL_FABRICS_SINK_FETCH_RETRY_MIN_MS * 1000);

  /* the same document: the server's ETag, 304, no body */
  g_assert_cmpint (poll_until (f, &body, &error), ==,
      GST_MXL_FABRICS_SINK_FETCH_UNCHANGED);
  g_assert_null (body);
  /* doubled after an unchanged answer */
  g_assert_cmpint (delay_us (f), >,
      GST_MXL_FABRICS_SINK_FETCH_RETRY_MIN_MS * 1000);

  /* a new document */
  g_free (served.body);
  served.body = g_strdup ("{\"a\":2}");
  g_assert_cmpint (poll_until (f, &body, &error), ==,
      GST_MXL_FABRICS_SINK_FETCH_DOCUMENT);
  g_assert_cmpstr (body, ==, "{\"a\":2}");
  g_clear_pointer (&body, g_free);

  /* none: 503 with the URL and the status, said once */
  g_clear_pointer (&served.body, g_free);
  g_assert_cmpint (poll_until (f, &body, &error), ==,
      GST_MXL_FABRICS_SINK_FETCH_FAILED);
  g_assert_nonnull (strstr (error->message, url));
  g_assert_nonnull (strstr (error->message, "HTTP 503"));
  g_clear_error (&error);
  asked = g_atomic_int_get (&served.asked);
  {
    gint64 end = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;

    while (g_atomic_int_get (&served.asked) < asked + 2
        && g_get_monotonic_time () < end) {
      g_assert_cmpint (gst_mxl_fabrics_sink_fetch_poll (f,
              g_get_monotonic_time (), TRUE, &body, &error), ==,
          GST_MXL_FABRICS_SINK_FETCH_NONE);
      g_main_context_iteration (ctx, FALSE);
      g_usleep (5 * 1000);
    }
  }
  g_assert_cmpint (g_atomic_int_get (&served.asked), >=, asked + 2);
  g_assert_no_error (error);

  /* no server: no HTTP answer */
  gst_mxl_fabrics_http_server_stop (server);
  g_assert_cmpint (poll_until (f, &body, &error), ==,
      GST_MXL_FABRICS_SINK_FETCH_FAILED);
  g_assert_nonnull (strstr (error->message, "no HTTP answer"));
  g_clear_error (&error);

  gst_mxl_fabrics_sink_fetch_reset (f);
  gst_mxl_fabrics_sink_fetch_drain (ctx);
  gst_mxl_fabrics_sink_fetch_free (f);
  g_main_context_pop_thread_default (ctx);
  g_main_context_unref (ctx);
  g_free (url);
}

/* Not a URL of an http host: refused at once. */
static void
test_refused_urls (void)
{
  const gchar *bad[] = { "http://", "http:///target-info", "http://[x" };
  GError *error = NULL;

  g_assert_true (gst_mxl_fabrics_sink_fetch_is_url (" HTTP://h/x"));
  g_assert_false (gst_mxl_fabrics_sink_fetch_is_url ("@/tmp/x"));
  g_assert_false (gst_mxl_fabrics_sink_fetch_is_url ("https://h/x"));
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_assert_null (gst_mxl_fabrics_sink_fetch_new (bad[i], &error));
    g_assert_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS);
    g_clear_error (&error);
  }
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fetch/documents", test_fetch);
  g_test_add_func ("/fetch/refused-urls", test_refused_urls);
  return g_test_run ();
}
