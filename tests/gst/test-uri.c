/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The mxlfabrics:// URI handler of both elements (gst/mxlfabricsuri.c,
 * issue 19 item "A URI handler"): every key of each element lands in its
 * property, percent-decoded; get_uri after set_uri gives the URI back and
 * sets the same properties again; keys left out get their defaults; a bad
 * scheme, port, key or value and a sink URI without target-info are
 * refused with the GError that names it, leaving every property as it
 * was; gst_element_make_from_uri() finds the elements as playbin and
 * uridecodebin do.
 */
#include <string.h>

#include <gst/gst.h>

#include "gstmxlfabricselements.h"

#define UUID "5fbec3b1-1b0f-417d-9059-8b94a47197ed"

static GstElement *
make (const gchar * factory)
{
  GstElement *e = gst_element_factory_make (factory, NULL);

  g_assert_nonnull (e);
  return gst_object_ref_sink (e);
}

static void
set_ok (GstElement * e, const gchar * uri)
{
  GError *error = NULL;

  if (!gst_uri_handler_set_uri (GST_URI_HANDLER (e), uri, &error))
    g_error ("%s refused: %s", uri, error->message);
}

static gchar *
get_string (GstElement * e, const gchar * name)
{
  gchar *v = NULL;

  g_object_get (e, name, &v, NULL);
  return v;
}

static void
assert_string (GstElement * e, const gchar * name, const gchar * expect)
{
  gchar *v = get_string (e, name);

  g_assert_cmpstr (v, ==, expect);
  g_free (v);
}

/* The nick of the provider property. */
static const gchar *
provider_nick (GstElement * e)
{
  GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "provider");
  gint v = 0;

  g_object_get (e, "provider", &v, NULL);
  return g_enum_get_value (G_PARAM_SPEC_ENUM (p)->enum_class, v)->value_nick;
}

static void
test_src_every_key (void)
{
  GstElement *e = make ("mxlfabricssrc");
  GstCaps *caps = NULL, *expect;
  guint64 timeout = 0;
  guint ring = 0, latency = 0;

  set_ok (e, "mxlfabrics://127.0.0.1:5000?provider=tcp&flow-id=" UUID
      "&domain=%2Ftmp%2Fmy%20domain&options=%7B%22cqDepth%22%3A64%7D"
      "&caps=video%2Fx-raw%2Cformat%3Dv210%2Cwidth%3D320%2Cheight%3D180"
      "%2Cframerate%3D25%2F1&flow-def=%40%2Ftmp%2Fflow.json"
      "&target-info-file=%2Ftmp%2Fti%2B1.json&timeout=500000000"
      "&ring-length=8&latency=20");
  assert_string (e, "node", "127.0.0.1");
  assert_string (e, "service", "5000");
  g_assert_cmpstr (provider_nick (e), ==, "tcp");
  assert_string (e, "flow-id", UUID);
  assert_string (e, "domain", "/tmp/my domain");
  assert_string (e, "options", "{\"cqDepth\":64}");
  assert_string (e, "flow-def", "@/tmp/flow.json");
  assert_string (e, "target-info-file", "/tmp/ti+1.json");
  g_object_get (e, "caps", &caps, "timeout", &timeout, "ring-length", &ring,
      "latency", &latency, NULL);
  expect = gst_caps_from_string ("video/x-raw,format=v210,width=320,"
      "height=180,framerate=25/1");
  g_assert_true (gst_caps_is_equal (caps, expect));
  g_assert_cmpuint (timeout, ==, 500000000);
  g_assert_cmpuint (ring, ==, 8);
  g_assert_cmpuint (latency, ==, 20);
  gst_caps_unref (caps);
  gst_caps_unref (expect);

  /* IPv6 node, a service name (not a port), a provider nick with ';' */
  set_ok (e, "mxlfabrics://[::1]?service=http&provider=tcp%3Bofi_rxm");
  assert_string (e, "node", "::1");
  assert_string (e, "service", "http");
  g_assert_cmpstr (provider_nick (e), ==, "tcp;ofi_rxm");
  gst_object_unref (e);
}

static void
test_sink_every_key (void)
{
  GstElement *e = make ("mxlfabricssink");
  gboolean reconnect = TRUE, wait = TRUE, zero_copy = TRUE, all = TRUE;
  guint wait_timeout = 0;

  set_ok (e, "mxlfabrics://192.0.2.20:5000?target-info=%40%2Ftmp%2Fa%20b"
      "%26c.json&provider=verbs&node=10.0.0.1&service=6000&flow-id=" UUID
      "&domain=%2Fdev%2Fshm%2Fmxl&options=%7B%7D&auto-reconnect=false"
      "&wait-for-connection=false&wait-timeout=100&zero-copy=false"
      "&error-on-all-failed=false");
  assert_string (e, "target-info", "@/tmp/a b&c.json");
  g_assert_cmpstr (provider_nick (e), ==, "verbs");
  assert_string (e, "node", "10.0.0.1");
  assert_string (e, "service", "6000");
  assert_string (e, "flow-id", UUID);
  assert_string (e, "domain", "/dev/shm/mxl");
  assert_string (e, "options", "{}");
  g_object_get (e, "auto-reconnect", &reconnect, "wait-for-connection",
      &wait, "wait-timeout", &wait_timeout, "zero-copy", &zero_copy,
      "error-on-all-failed", &all, NULL);
  g_assert_false (reconnect);
  g_assert_false (wait);
  g_assert_cmpuint (wait_timeout, ==, 100);
  g_assert_false (zero_copy);
  g_assert_false (all);
  gst_object_unref (e);
}

/* get_uri gives @canonical after set_uri of @uri, and setting that again
 * gives it once more (the same properties). */
static void
assert_round_trip (const gchar * factory, const gchar * uri,
    const gchar * canonical)
{
  GstElement *e = make (factory), *f = make (factory);
  gchar *got, *again;

  set_ok (e, uri);
  got = gst_uri_handler_get_uri (GST_URI_HANDLER (e));
  g_assert_cmpstr (got, ==, canonical);
  set_ok (f, got);
  again = gst_uri_handler_get_uri (GST_URI_HANDLER (f));
  g_assert_cmpstr (again, ==, canonical);
  g_free (again);
  g_free (got);
  gst_object_unref (f);
  gst_object_unref (e);
}

static void
test_round_trip (void)
{
  /* keys in the element's order, defaults left out, %20 and %2B kept
   * apart, the reserved characters of a caps string escaped */
  assert_round_trip ("mxlfabricssrc", "mxlfabrics://127.0.0.1:5000?latency=5"
      "&provider=tcp&ring-length=0&domain=%2Ftmp%2Fa%20b%2Bc&caps=video%2F"
      "x-raw%2Cformat%3Dv210%2Cwidth%3D320%2Cheight%3D180%2Cframerate%3D25"
      "%2F1",
      "mxlfabrics://127.0.0.1:5000?provider=tcp&domain=/tmp/a%20b%2Bc"
      "&caps=video/x-raw,%20format%3D%28string%29v210,%20width%3D%28int%29"
      "320,%20height%3D%28int%29180,%20framerate%3D%28fraction%2925/1"
      "&latency=5");
  assert_round_trip ("mxlfabricssrc", "mxlfabrics://[::1]?service=http",
      "mxlfabrics://[::1]?service=http");
  assert_round_trip ("mxlfabricssrc", "mxlfabrics://", "mxlfabrics://");
  assert_round_trip ("mxlfabricssink", "mxlfabrics://192.0.2.20:5000?"
      "target-info=%40%2Ftmp%2Fti.json&zero-copy=false&provider=tcp",
      "mxlfabrics://192.0.2.20:5000?target-info=@/tmp/ti.json&provider=tcp"
      "&zero-copy=false");
  assert_round_trip ("mxlfabricssink", "mxlfabrics://?target-info=e30%3D",
      "mxlfabrics://?target-info=e30%3D");
}

/* Keys a URI leaves out get their defaults. */
static void
test_defaults_reset (void)
{
  GstElement *e = make ("mxlfabricssrc");
  guint ring = 0;

  set_ok (e, "mxlfabrics://127.0.0.1:5000?ring-length=8&domain=%2Ftmp");
  set_ok (e, "mxlfabrics://127.0.0.2");
  g_object_get (e, "ring-length", &ring, NULL);
  g_assert_cmpuint (ring, ==, 0);
  assert_string (e, "domain", "");
  assert_string (e, "node", "127.0.0.2");
  assert_string (e, "service", "");
  gst_object_unref (e);
}

/* @uri is refused with @code and a message holding @what; the element's
 * settings (its URI) stay as they were. */
static void
assert_refused (const gchar * factory, const gchar * uri, GstURIError code,
    const gchar * what)
{
  GstElement *e = make (factory);
  GError *error = NULL;
  gchar *before, *after;

  set_ok (e, g_str_equal (factory, "mxlfabricssrc") ?
      "mxlfabrics://127.0.0.1:5000?ring-length=8&provider=tcp" :
      "mxlfabrics://127.0.0.1:5000?target-info=%40%2Ftmp%2Fti.json");
  before = gst_uri_handler_get_uri (GST_URI_HANDLER (e));
  g_assert_false (gst_uri_handler_set_uri (GST_URI_HANDLER (e), uri,
          &error));
  g_assert_error (error, GST_URI_ERROR, (gint) code);
  if (strstr (error->message, what) == NULL)
    g_error ("\"%s\" does not say \"%s\"", error->message, what);
  g_test_message ("%s: %s", uri, error->message);
  after = gst_uri_handler_get_uri (GST_URI_HANDLER (e));
  g_assert_cmpstr (after, ==, before);
  g_clear_error (&error);
  g_free (before);
  g_free (after);
  gst_object_unref (e);
}

static void
test_refused (void)
{
  const gchar *src = "mxlfabricssrc", *sink = "mxlfabricssink";

  assert_refused (src, "udp://127.0.0.1:5000",
      GST_URI_ERROR_UNSUPPORTED_PROTOCOL, "scheme");
  assert_refused (sink, "srt://127.0.0.1:5000?target-info=e30%3D",
      GST_URI_ERROR_UNSUPPORTED_PROTOCOL, "scheme");
  assert_refused (src, "mxlfabrics://127.0.0.1:65536",
      GST_URI_ERROR_BAD_URI, "port");
  assert_refused (src, "mxlfabrics://127.0.0.1:port",
      GST_URI_ERROR_BAD_URI, "not a URI");
  assert_refused (src, "mxlfabrics://127.0.0.1:5000?ringlength=8",
      GST_URI_ERROR_BAD_URI, "unknown key \"ringlength\"");
  /* the sink's key is not the src's */
  assert_refused (src, "mxlfabrics://127.0.0.1?target-info=e30%3D",
      GST_URI_ERROR_BAD_URI, "unknown key \"target-info\"");
  assert_refused (src, "mxlfabrics://127.0.0.1?latency=1&latency=2",
      GST_URI_ERROR_BAD_URI, "twice");
  assert_refused (src, "mxlfabrics://127.0.0.1?latency",
      GST_URI_ERROR_BAD_URI, "no value");
  assert_refused (src, "mxlfabrics://127.0.0.1?ring-length=eight",
      GST_URI_ERROR_BAD_URI, "ring-length: \"eight\"");
  assert_refused (src, "mxlfabrics://127.0.0.1?latency=60001",
      GST_URI_ERROR_BAD_URI, "latency: 60001 is out of");
  assert_refused (src, "mxlfabrics://127.0.0.1?provider=carrier-pigeon",
      GST_URI_ERROR_BAD_URI, "provider: \"carrier-pigeon\"");
  assert_refused (src, "mxlfabrics://127.0.0.1?caps=video%2Fx-raw%2Cwidth"
      "%3D%28int%29wide", GST_URI_ERROR_BAD_URI, "caps:");
  assert_refused (src, "mxlfabrics://127.0.0.1:5000/path",
      GST_URI_ERROR_BAD_URI, "path");
  assert_refused (src, "mxlfabrics://user@127.0.0.1:5000",
      GST_URI_ERROR_BAD_URI, "user info");
  assert_refused (sink, "mxlfabrics://127.0.0.1:5000?provider=tcp",
      GST_URI_ERROR_BAD_URI, "needs target-info");
  assert_refused (sink, "mxlfabrics://127.0.0.1:5000?target-info=e30%3D"
      "&wait-timeout=soon", GST_URI_ERROR_BAD_URI, "wait-timeout: \"soon\"");
}

/* What playbin and uridecodebin do to find a source or sink for a URI. */
static void
test_make_from_uri (void)
{
  GError *error = NULL;
  GstElement *src = gst_element_make_from_uri (GST_URI_SRC,
      "mxlfabrics://127.0.0.1:5000?provider=tcp", NULL, &error);
  GstElement *sink;
  gchar *uri;

  g_assert_no_error (error);
  g_assert_cmpstr (GST_OBJECT_NAME (gst_element_get_factory (src)), ==,
      "mxlfabricssrc");
  assert_string (src, "service", "5000");
  sink = gst_element_make_from_uri (GST_URI_SINK,
      "mxlfabrics://127.0.0.1:5000?target-info=%40%2Ftmp%2Fti.json", NULL,
      &error);
  g_assert_no_error (error);
  g_assert_cmpstr (GST_OBJECT_NAME (gst_element_get_factory (sink)), ==,
      "mxlfabricssink");
  /* the uri property is the handler's URI */
  g_object_get (sink, "uri", &uri, NULL);
  g_assert_cmpstr (uri, ==,
      "mxlfabrics://127.0.0.1:5000?target-info=@/tmp/ti.json");
  g_free (uri);
  g_object_set (src, "uri", "mxlfabrics://127.0.0.3:7000", NULL);
  assert_string (src, "node", "127.0.0.3");
  gst_object_unref (gst_object_ref_sink (src));
  gst_object_unref (gst_object_ref_sink (sink));
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_assert_true (GST_ELEMENT_REGISTER (mxlfabricssrc, NULL));
  g_assert_true (GST_ELEMENT_REGISTER (mxlfabricssink, NULL));
  g_test_add_func ("/uri/src-every-key", test_src_every_key);
  g_test_add_func ("/uri/sink-every-key", test_sink_every_key);
  g_test_add_func ("/uri/round-trip", test_round_trip);
  g_test_add_func ("/uri/defaults-reset", test_defaults_reset);
  g_test_add_func ("/uri/refused", test_refused);
  g_test_add_func ("/uri/make-from-uri", test_make_from_uri);
  return g_test_run ();
}
