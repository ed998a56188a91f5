/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The TargetInfo over HTTP (issue 17): mxlfabricssrc's endpoint
 * (http-port, gst/srchttp.c) and mxlfabricssink's target-info=http://...
 * (gst/sinkfetch.c, gst/sinktargeturl.c).
 *  - endpoints: curl GETs /target-info, /flow-def and /stats, each equal
 *    to its property; other paths 404, POST 405, a request body 413, HEAD
 *    without a body, 304 to If-None-Match with the ETag;
 *  - busy-port: a taken http-port is an ERROR naming the port;
 *  - transfer: a sink given only the URL sends 300 frames to a receiver in
 *    another process (this binary re-executed with --child-src), every one
 *    bit-exact (SHA-1), in order;
 *  - restart: the receiver restarted on the same http-port with new keys
 *    is followed within 2 s, with no ERROR, on tcp and on the
 *    connectionless shm (no refusal there);
 *  - userinfo-hidden: a URL's user:password@ is in no WARNING (text or
 *    debug); add-target refuses https;
 *  - hostile: a local server (tests/gst/hostile-http.py, 127.0.0.1) that
 *    answers slowly, never, too much (by Content-Length or without end),
 *    too little, no JSON, "@path", or a redirect: a WARNING naming the URL (and the HTTP status), further
 *    attempts, and a bounded stop.
 * Loopback only; children and the server are stopped by PID; every wait is
 * bounded.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "../hardening/hgst.h"

#define WIDTH 64
#define HEIGHT 32
#define CAPS "video/x-raw,format=v210,width=64,height=32,framerate=100/1"
#define FRAME_BYTES (((WIDTH + 47) / 48) * 128 * HEIGHT)
#define FRAME_NS (10 * GST_MSECOND)
#define N_FRAMES 300

/* curl [the NULL-terminated options...] @url: the HTTP status (0: no
 * answer); the body to *@body (nullable). */
G_GNUC_NULL_TERMINATED static guint
curl (const gchar * url, gchar ** body, ...)
{
  GPtrArray *argv = g_ptr_array_new ();
  gchar *out = NULL, *nl;
  const gchar *a;
  va_list ap;
  guint code;

  g_ptr_array_add (argv, (gpointer) "curl");
  g_ptr_array_add (argv, (gpointer) "-s");
  g_ptr_array_add (argv, (gpointer) "--max-time");
  g_ptr_array_add (argv, (gpointer) "5");
  g_ptr_array_add (argv, (gpointer) "-w");
  g_ptr_array_add (argv, (gpointer) "\n%{http_code}");
  va_start (ap, body);
  while ((a = va_arg (ap, const gchar *)) != NULL)
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, (gpointer) url);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv->pdata, NULL,
          G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out,
          NULL, NULL, NULL));
  g_ptr_array_free (argv, TRUE);
  nl = strrchr (out, '\n');
  g_assert_nonnull (nl);
  code = (guint) atoi (nl + 1);
  *nl = '\0';
  if (body)
    *body = g_strdup (out);
  g_free (out);
  return code;
}

static gchar *
url_of (guint port, const gchar * path)
{
  return g_strdup_printf ("http://127.0.0.1:%u%s", port, path);
}

/* The src named "src" of @p (unref). */
static GstElement *
src_of (GstElement * p)
{
  return gst_bin_get_by_name (GST_BIN (p), "src");
}

/* Every field of the stats structure @s equals the member of the /stats
 * object @o (numbers, strings, enums by nick). */
static void
assert_stats_equal (const GstStructure * s, JsonObject * o)
{
  for (gint i = 0; i < gst_structure_n_fields (s); i++) {
    const gchar *name = gst_structure_nth_field_name (s, i);
    const GValue *v = gst_structure_get_value (s, name);

    g_assert_true (json_object_has_member (o, name));
    if (G_VALUE_TYPE (v) == G_TYPE_UINT64)
      g_assert_cmpint (json_object_get_int_member (o, name), ==,
          (gint64) g_value_get_uint64 (v));
    else if (G_VALUE_TYPE (v) == G_TYPE_STRING)
      g_assert_cmpstr (json_object_get_string_member (o, name), ==,
          g_value_get_string (v));
    else if (G_TYPE_IS_ENUM (G_VALUE_TYPE (v))) {
      GEnumValue *e = g_enum_get_value (g_type_class_peek (G_VALUE_TYPE (v)),
          g_value_get_enum (v));
      g_assert_cmpstr (json_object_get_string_member (o, name), ==,
          e->value_nick);
    }
  }
}

static void
test_endpoints (void)
{
  guint port = hgst_free_port ();
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=tcp "
      "node=" HGST_NODE " http-port=%u caps=\"" CAPS "\" ! fakesink", port);
  GstElement *rx = hgst_parse (desc), *src = src_of (rx);
  gchar *ti = NULL, *body = NULL, *u, *flow_def = NULL, *etag;
  GstStructure *stats = NULL;
  JsonParser *parser = json_parser_new ();

  hgst_play (rx);
  g_object_get (src, "target-info", &ti, NULL);
  g_assert_nonnull (ti);

  u = url_of (port, "/target-info");
  g_assert_cmpuint (curl (u, &body, NULL), ==, 200);
  g_assert_cmpstr (body, ==, ti);
  g_clear_pointer (&body, g_free);
  /* HEAD: the status and the ETag, no body */
  g_assert_cmpuint (curl (u, &body, "-I", NULL), ==, 200);
  g_assert_null (strstr (body, "fabricAddress"));
  etag = strstr (body, "ETag: ");
  g_assert_nonnull (etag);
  etag = g_strdup_printf ("If-None-Match: %.*s", (int) strcspn (etag + 6,
          "\r\n"), etag + 6);
  g_clear_pointer (&body, g_free);
  /* the same document: 304, no body */
  g_assert_cmpuint (curl (u, &body, "-H", etag, NULL), ==, 304);
  g_assert_cmpstr (body, ==, "");
  g_clear_pointer (&body, g_free);
  g_free (etag);
  g_assert_cmpuint (curl (u, NULL, "-X", "POST", NULL), ==, 405);
  g_assert_cmpuint (curl (u, NULL, "-X", "PUT", NULL), ==, 405);
  g_assert_cmpuint (curl (u, NULL, "--data-binary", "x", NULL), ==, 405);
  g_free (u);
  u = url_of (port, "/stats");
  /* a GET carrying a body is refused before the body is read */
  g_assert_cmpuint (curl (u, NULL, "-X", "GET", "--data-binary", "abc", NULL), ==, 413);
  /* an idle src: its counters do not move between the two reads */
  g_object_get (src, "stats", &stats, NULL);
  g_assert_cmpuint (curl (u, &body, NULL), ==, 200);
  g_assert_true (json_parser_load_from_data (parser, body, -1, NULL));
  assert_stats_equal (stats, json_node_get_object (json_parser_get_root
          (parser)));
  gst_structure_free (stats);
  g_clear_pointer (&body, g_free);
  g_free (u);
  u = url_of (port, "/");
  g_assert_cmpuint (curl (u, NULL, NULL), ==, 404);
  g_free (u);
  u = url_of (port, "/target-info/x");
  g_assert_cmpuint (curl (u, NULL, NULL), ==, 404);
  g_free (u);
  u = url_of (port, "/flow-def");
  g_assert_cmpuint (curl (u, &flow_def, NULL), ==, 200);
  g_assert_nonnull (strstr (flow_def, "urn:x-nmos:format:video"));
  hgst_stop (rx);
  gst_object_unref (src);
  g_free (desc);

  /* /flow-def is the flow-def property, when one is given */
  desc = g_strdup_printf ("mxlfabricssrc name=src provider=tcp node="
      HGST_NODE " http-port=%u ! fakesink", port);
  rx = hgst_parse (desc);
  src = src_of (rx);
  g_object_set (src, "flow-def", flow_def, NULL);
  hgst_play (rx);
  g_assert_cmpuint (curl (u, &body, NULL), ==, 200);
  g_assert_cmpstr (body, ==, flow_def);
  hgst_assert_no_error (rx);
  hgst_stop (rx);
  /* stopped: nothing listens */
  g_assert_cmpuint (curl (u, NULL, NULL), ==, 0);
  gst_object_unref (src);
  g_object_unref (parser);
  g_free (body);
  g_free (flow_def);
  g_free (ti);
  g_free (u);
  g_free (desc);
}

/* The first ERROR or WARNING on @p's bus within @ms whose text holds
 * @what (and @what2, nullable), or NULL. (g_free()) */
static gchar *
wait_message (GstElement * p, GstMessageType type, const gchar * what,
    const gchar * what2, guint ms)
{
  GstBus *bus = gst_element_get_bus (p);
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;
  gchar *found = NULL;

  while (found == NULL && g_get_monotonic_time () < end) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 50 * GST_MSECOND, type);
    GError *e = NULL;

    if (m == NULL)
      continue;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
      gst_message_parse_error (m, &e, NULL);
    else
      gst_message_parse_warning (m, &e, NULL);
    if (strstr (e->message, what) && (what2 == NULL
            || strstr (e->message, what2)))
      found = g_strdup (e->message);
    g_error_free (e);
    gst_message_unref (m);
  }
  gst_object_unref (bus);
  return found;
}

static void
test_busy_port (void)
{
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
      G_SOCKET_PROTOCOL_TCP, NULL);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *a = g_inet_socket_address_new (lo, 0);
  GSocketAddress *bound;
  gchar *desc, *msg, *port_text;
  GstElement *rx;
  guint port;
  gint64 t0;

  g_assert_true (g_socket_bind (s, a, FALSE, NULL));
  g_assert_true (g_socket_listen (s, NULL));
  bound = g_socket_get_local_address (s, NULL);
  port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
  desc = g_strdup_printf ("mxlfabricssrc name=src provider=tcp node="
      HGST_NODE " http-port=%u caps=\"" CAPS "\" ! fakesink", port);
  rx = hgst_parse (desc);
  t0 = g_get_monotonic_time ();
  g_assert_cmpint (gst_element_set_state (rx, GST_STATE_PAUSED), ==,
      GST_STATE_CHANGE_FAILURE);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 2 * G_USEC_PER_SEC);
  port_text = g_strdup_printf ("port %u", port);
  msg = wait_message (rx, GST_MESSAGE_ERROR, port_text, "in use", 1000);
  g_assert_nonnull (msg);
  g_assert_cmpint (gst_element_set_state (rx, GST_STATE_NULL), ==,
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (rx);
  g_free (msg);
  g_free (port_text);
  g_free (desc);
  g_object_unref (bound);
  g_object_unref (a);
  g_object_unref (lo);
  g_object_unref (s);
}

/* Child: a src serving its TargetInfo on http-port @port; pulls buffers
 * until none came for 2 s (10 s for the first) and writes their SHA-1s to
 * @out; @ready is written once it plays. */
static int
child_src (const gchar * port, const gchar * out, const gchar * ready)
{
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=tcp node="
      HGST_NODE " http-port=%s caps=\"" CAPS "\" target-info-file=\"%s\" ! "
      "appsink name=out sync=false max-buffers=400", port, ready);
  GstElement *p = hgst_parse (desc);

  if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    return 3;
  hgst_write_checksums (p, out, N_FRAMES, 10000, 2000);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
  return 0;
}

static void
test_transfer (void)
{
  gchar *dir = g_dir_make_tmp ("mxl-http-XXXXXX", NULL);
  gchar *ready = g_build_filename (dir, "ready.json", NULL);
  gchar *out = g_build_filename (dir, "rx.sums", NULL);
  gchar *port = g_strdup_printf ("%u", hgst_free_port ());
  gchar *desc, *u;
  GPtrArray *sent;
  GPid pid;

  pid = hgst_spawn_child (port, out, ready, NULL);
  g_assert_true (hgst_wait_file (ready));
  g_usleep (100 * 1000);        /* past the receiver's start (hgst_play_pair) */
  u = g_strdup_printf ("http://127.0.0.1:%s/target-info", port);
  desc = g_strdup_printf ("appsrc name=in is-live=true format=time caps=\""
      CAPS "\" ! mxlfabricssink name=sink provider=tcp node=" HGST_NODE
      " target-info=%s", u);
  sent = hgst_connect_and_send (desc, N_FRAMES, FRAME_BYTES, FRAME_NS, 8000);

  hgst_assert_child_ok (pid, 10000);
  hgst_assert_sums (out, sent);

  g_ptr_array_unref (sent);
  g_free (desc);
  g_free (u);
  g_free (port);
  g_unlink (ready);
  hgst_remove_files (dir, g_strdup (ready), out);
  g_free (ready);
}

/* @data: the provider (tcp; shm is connectionless: a connect to a gone
 * receiver is never refused there) */
static void
test_restart (gconstpointer data)
{
  const gchar *provider = data;
  guint port = hgst_free_port ();
  gchar *desc = g_strdup_printf ("mxlfabricssrc name=src provider=\"%s\" "
      "node=" HGST_NODE " http-port=%u caps=\"" CAPS "\" ! appsink name=out "
      "sync=false max-buffers=4 drop=true", provider, port);
  GstElement *rx = hgst_parse (desc), *tx;
  gchar *tx_desc, *ti1, *ti2;
  GstBuffer *b;
  gint64 t0;

  hgst_play (rx);
  ti1 = hgst_target_info (rx);
  tx_desc = g_strdup_printf ("videotestsrc is-live=true ! " CAPS " ! "
      "mxlfabricssink name=sink provider=\"%s\" node=" HGST_NODE
      " target-info=http://127.0.0.1:%u/target-info", provider, port);
  tx = hgst_parse (tx_desc);
  hgst_play (tx);
  g_assert_true (hgst_wait_connected (tx, 5000));
  b = hgst_pull (rx, 3000);
  g_assert_nonnull (b);
  gst_buffer_unref (b);

  /* the receiver restarts: a new target, new keys, the same http-port */
  g_assert_cmpint (gst_element_set_state (rx, GST_STATE_NULL), ==,
      GST_STATE_CHANGE_SUCCESS);
  /* down longer than the library's first retry (MXL_RETRY_FIRST_MS in
   * src/fabrics/protocol/initiator-state.h): the lost target connects
   * again to the gone receiver when the new one comes up (never refused
   * on RDM) */
  g_usleep (700 * 1000);
  hgst_play (rx);
  t0 = g_get_monotonic_time ();
  ti2 = hgst_target_info (rx);
  g_assert_cmpstr (ti1, !=, ti2);
  /* followed within 2 s: the new receiver pushes what the sender sends */
  b = hgst_pull (rx, 2000);
  g_assert_nonnull (b);
  gst_buffer_unref (b);
  g_assert_cmpint (g_get_monotonic_time () - t0, <=, 2 * G_USEC_PER_SEC);
  g_assert_cmpuint (hgst_stat (tx, "sink", "reconnects"), >=, 1);
  hgst_assert_no_error (tx);
  hgst_assert_no_error (rx);
  hgst_stop (tx);
  hgst_stop (rx);
  g_free (ti1);
  g_free (ti2);
  g_free (tx_desc);
  g_free (desc);
}

/* A sink given a URL with user:password@ and nothing listening: its
 * WARNINGs name the URL without the userinfo, in text and debug;
 * add-target refuses an https:// URL. */
/* Counts debug log lines of ours that hold "s3cret" (@data: a guint). */
static void
secret_log (GstDebugCategory * category, GstDebugLevel level,
    const gchar * file, const gchar * function, gint line, GObject * object,
    GstDebugMessage * message, gpointer data)
{
  const gchar *text = gst_debug_message_get (message);

  if (text != NULL && strstr (text, "s3cret") != NULL)
    (*(guint *) data)++;
}

static void
test_userinfo_hidden (void)
{
  guint port = hgst_free_port ();
  gchar *desc = g_strdup_printf ("videotestsrc is-live=true ! " CAPS " ! "
      "mxlfabricssink name=sink provider=tcp node=" HGST_NODE
      " target-info=http://user:s3cret@127.0.0.1:%u/target-info", port);
  gchar *shown = g_strdup_printf ("http://127.0.0.1:%u/target-info", port);
  GstElement *tx = hgst_parse (desc), *sink;
  GstBus *bus = gst_element_get_bus (tx);
  gint64 end = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;
  guint warnings = 0, logged = 0;
  gboolean added = TRUE;
  GstStructure *stats = NULL;
  gchar *text;

  /* every debug line of the sink's categories (INFO and more) is looked at,
   * none printed */
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (secret_log, &logged, NULL);
  gst_debug_set_threshold_from_string ("*mxl*:6", FALSE);
  hgst_play (tx);
  while (warnings < 2 && g_get_monotonic_time () < end) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 50 * GST_MSECOND,
        GST_MESSAGE_WARNING | GST_MESSAGE_ERROR);
    GError *e = NULL;
    gchar *debug = NULL;

    if (m == NULL)
      continue;
    g_assert_cmpint (GST_MESSAGE_TYPE (m), ==, GST_MESSAGE_WARNING);
    gst_message_parse_warning (m, &e, &debug);
    g_test_message ("%s (%s)", e->message, debug);
    g_assert_null (strstr (e->message, "s3cret"));
    g_assert_true (debug == NULL || strstr (debug, "s3cret") == NULL);
    warnings += strstr (e->message, shown) != NULL;
    g_error_free (e);
    g_free (debug);
    gst_message_unref (m);
  }
  g_assert_cmpuint (warnings, >=, 1);
  /* the per-target stats name the source as shown too */
  sink = gst_bin_get_by_name (GST_BIN (tx), "sink");
  g_object_get (sink, "stats", &stats, NULL);
  text = gst_structure_to_string (stats);
  g_test_message ("stats: %s", text);
  g_assert_nonnull (strstr (text, shown));
  g_assert_null (strstr (text, "s3cret"));
  g_free (text);
  gst_structure_free (stats);
  gst_object_unref (sink);
  /* https: refused (the reason, tests/gst/test-fetch.c, in the log) */
  sink = gst_bin_get_by_name (GST_BIN (tx), "sink");
  g_signal_emit_by_name (sink, "add-target", "https://127.0.0.1:1/x", &added);
  g_assert_false (added);
  hgst_stop (tx);
  gst_debug_set_threshold_from_string ("*mxl*:0", FALSE);
  gst_debug_remove_log_function (secret_log);
  gst_debug_add_log_function (gst_debug_log_default, NULL, NULL);
  g_assert_cmpuint (logged, ==, 0);
  gst_object_unref (sink);
  gst_object_unref (bus);
  g_free (shown);
  g_free (desc);
}

/* Lines in the hostile server's request log. */
static guint
requests_logged (const gchar * log)
{
  gchar *text = NULL;
  guint n = 0;

  if (g_file_get_contents (log, &text, NULL, NULL))
    for (const gchar * p = text; *p; p++)
      n += *p == '\n';
  g_free (text);
  return n;
}

static void
test_hostile (gconstpointer data)
{
  const gchar *const *mode = data;      /* mode, text the WARNING holds */
  gchar *dir = g_dir_make_tmp ("mxl-hostile-XXXXXX", NULL);
  gchar *portfile = g_build_filename (dir, "port", NULL);
  gchar *log = g_strconcat (portfile, ".log", NULL);
  const gchar *argv[] = { "python3", HOSTILE_HTTP_PY, mode[0], portfile,
    "20", NULL
  };
  gchar *text = NULL, *u, *desc, *msg;
  GstElement *tx;
  GPid pid;
  gint64 t0;
  gint status;

  g_assert_true (g_spawn_async (NULL, (gchar **) argv, NULL,
          G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid,
          NULL));
  g_assert_true (hgst_wait_file (portfile));
  g_assert_true (g_file_get_contents (portfile, &text, NULL, NULL));
  u = g_strdup_printf ("http://127.0.0.1:%u/target-info",
      (guint) atoi (text));
  desc = g_strdup_printf ("videotestsrc is-live=true ! " CAPS " ! "
      "mxlfabricssink name=sink provider=tcp node=" HGST_NODE
      " target-info=%s", u);
  tx = hgst_parse (desc);
  t0 = g_get_monotonic_time ();
  hgst_play (tx);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, G_USEC_PER_SEC);
  /* a WARNING naming the URL (and what was wrong), within the 2 s bound */
  msg = wait_message (tx, GST_MESSAGE_WARNING, u, mode[1], 4000);
  if (msg == NULL)
    g_error ("no WARNING with \"%s\" and \"%s\"", u, mode[1]);
  g_test_message ("%s: %s", mode[0], msg);
  /* it keeps trying */
  for (guint i = 0; i < 200 && requests_logged (log) < 2; i++)
    g_usleep (20 * 1000);
  g_assert_cmpuint (requests_logged (log), >=, 2);
  hgst_assert_no_error (tx);
  /* a request in flight does not hold the stop up */
  t0 = g_get_monotonic_time ();
  hgst_stop (tx);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, G_USEC_PER_SEC);

  kill (pid, SIGTERM);
  hgst_reap (pid, 2000, &status);
  g_unlink (log);
  g_free (log);
  g_free (msg);
  g_free (desc);
  g_free (u);
  g_free (text);
  hgst_remove_files (dir, portfile, NULL);
}

static const gchar *const slow[] = { "slow", "no complete answer" };
static const gchar *const silent[] = { "silent", "no HTTP answer" };
static const gchar *const oversized[] = { "oversized", "HTTP 200 OK): the body is larger" };
static const gchar *const endless[] = { "endless", "not read further" };
static const gchar *const truncated[] = { "truncated", "HTTP 200 OK): the body ended" };
static const gchar *const nonjson[] = { "nonjson", "not a TargetInfo JSON" };
static const gchar *const atfile[] = { "atfile", "not a TargetInfo JSON" };
static const gchar *const redirect[] = { "redirect", "HTTP 302" };

int
main (int argc, char **argv)
{
  if (hgst_init (&argc, &argv, 5))
    return child_src (argv[2], argv[3], argv[4]);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/http/endpoints", test_endpoints);
  g_test_add_func ("/http/busy-port", test_busy_port);
  g_test_add_func ("/http/transfer", test_transfer);
  g_test_add_data_func ("/http/restart", "tcp", test_restart);
  g_test_add_data_func ("/http/restart/shm", "shm", test_restart);
  g_test_add_data_func ("/http/restart/tcp-ofi-rxm", "tcp;ofi_rxm",
      test_restart);
  g_test_add_func ("/http/userinfo-hidden", test_userinfo_hidden);
  g_test_add_data_func ("/http/hostile/slow", slow, test_hostile);
  g_test_add_data_func ("/http/hostile/silent", silent, test_hostile);
  g_test_add_data_func ("/http/hostile/oversized", oversized, test_hostile);
  g_test_add_data_func ("/http/hostile/endless", endless, test_hostile);
  g_test_add_data_func ("/http/hostile/truncated", truncated, test_hostile);
  g_test_add_data_func ("/http/hostile/nonjson", nonjson, test_hostile);
  g_test_add_data_func ("/http/hostile/atfile", atfile, test_hostile);
  g_test_add_data_func ("/http/hostile/redirect", redirect, test_hostile);
  return g_test_run ();
}
