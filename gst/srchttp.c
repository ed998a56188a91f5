/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The src's HTTP endpoint; see srchttp.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "srchttp.h"

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

GST_DEBUG_CATEGORY_STATIC (mxl_fabrics_http_debug);
#define GST_CAT_DEFAULT mxl_fabrics_http_debug

struct _GstMxlFabricsHttpServer {
  GThread *thread;
  GMainContext *ctx;
  GMainLoop *loop;
  gchar *address;
  guint port;
  GstMxlFabricsHttpBodyFunc body;
  gpointer data;
  /* the start handshake */
  GMutex lock;
  GCond cond;
  gboolean bound_or_failed;
  GError *error;
};

/* The three paths, each with its resource. */
static const struct {
  const gchar *path;
  GstMxlFabricsHttpResource what;
} resources[] = {
  {"/target-info", GST_MXL_FABRICS_HTTP_TARGET_INFO},
  {"/flow-def", GST_MXL_FABRICS_HTTP_FLOW_DEF},
  {"/stats", GST_MXL_FABRICS_HTTP_STATS},
};

static gint
resource_of (const gchar * path)
{
  for (guint i = 0; i < G_N_ELEMENTS (resources); i++)
    if (g_strcmp0 (path, resources[i].path) == 0)
      return (gint) resources[i].what;
  return -1;
}

static void
answer_text (SoupServerMessage * msg, guint status, const gchar * text)
{
  gchar *body = g_strdup_printf ("%s\n", text);

  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "text/plain; charset=utf-8",
      SOUP_MEMORY_TAKE, body, strlen (body));
}

/* After the request headers, before any body is read: whatever is not a
 * GET or HEAD of one of the three paths without a body is answered here,
 * so that no request body is ever read. */
static void
on_request_headers (SoupServer * server, SoupServerMessage * msg,
    const char *path, GHashTable * query, gpointer data)
{
  const char *method = soup_server_message_get_method (msg);
  SoupMessageHeaders *h = soup_server_message_get_request_headers (msg);

  if (g_strcmp0 (method, SOUP_METHOD_GET) != 0
      && g_strcmp0 (method, SOUP_METHOD_HEAD) != 0) {
    soup_message_headers_replace (soup_server_message_get_response_headers
        (msg), "Allow", "GET, HEAD");
    answer_text (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, "only GET and HEAD");
  } else if (resource_of (path) < 0) {
    answer_text (msg, SOUP_STATUS_NOT_FOUND,
        "not found: /target-info, /flow-def and /stats are served");
  } else if (soup_message_headers_get_encoding (h) != SOUP_ENCODING_NONE
      && (soup_message_headers_get_encoding (h) != SOUP_ENCODING_CONTENT_LENGTH
          || soup_message_headers_get_content_length (h) > 0)) {
    answer_text (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE,
        "no request body is accepted");
  }
}

static void
on_request (SoupServer * server, SoupServerMessage * msg, const char *path,
    GHashTable * query, gpointer data)
{
  GstMxlFabricsHttpServer *self = data;
  gint what = resource_of (path);
  gchar *reason = NULL, *body, *sum, *etag;
  SoupMessageHeaders *h;
  const char *match;

  if (what < 0) {               /* answered by on_request_headers */
    answer_text (msg, SOUP_STATUS_NOT_FOUND, "not found");
    return;
  }
  body = self->body (self->data, (GstMxlFabricsHttpResource) what, &reason);
  if (body == NULL) {
    answer_text (msg, SOUP_STATUS_SERVICE_UNAVAILABLE,
        reason ? reason : "not available yet");
    g_free (reason);
    return;
  }
  g_free (reason);
  /* the document's ETag: a sink that has it gets 304, not the body
   * again (gst/sinkfetch.c) */
  sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, body, -1);
  etag = g_strdup_printf ("\"%s\"", sum);
  h = soup_server_message_get_response_headers (msg);
  soup_message_headers_replace (h, "Cache-Control", "no-store");
  soup_message_headers_replace (h, "ETag", etag);
  match = soup_message_headers_get_one (soup_server_message_get_request_headers
      (msg), "If-None-Match");
  if (g_strcmp0 (match, etag) == 0) {
    soup_server_message_set_status (msg, SOUP_STATUS_NOT_MODIFIED, NULL);
    g_free (body);
    g_free (etag);
    g_free (sum);
    return;
  }
  g_free (etag);
  g_free (sum);
  soup_server_message_set_status (msg, SOUP_STATUS_OK, NULL);
  soup_server_message_set_response (msg, "application/json",
      SOUP_MEMORY_TAKE, body, strlen (body));
}

static void
started (GstMxlFabricsHttpServer * self, GError * error)
{
  g_mutex_lock (&self->lock);
  self->error = error;
  self->bound_or_failed = TRUE;
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);
}

/* The server's thread: the server, its sockets and every request live on
 * its own context. */
static gpointer
server_thread (gpointer data)
{
  GstMxlFabricsHttpServer *self = data;
  SoupServer *server;
  GSocketAddress *addr;
  GError *error = NULL;

  g_main_context_push_thread_default (self->ctx);
  server = soup_server_new ("server-header", "gst-mxl-fabrics", NULL);
  soup_server_add_early_handler (server, NULL, on_request_headers, self,
      NULL);
  soup_server_add_handler (server, NULL, on_request, self, NULL);
  addr = g_inet_socket_address_new_from_string (self->address, self->port);
  if (addr == NULL) {
    started (self, g_error_new (GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_SETTINGS, "http-address \"%s\" is not an IPv4 "
            "or IPv6 address", self->address));
  } else if (!soup_server_listen (server, addr, 0, &error)) {
    started (self, g_error_new (GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_OPEN_READ, "cannot serve HTTP on %s port %u%s: "
            "%s", self->address, self->port,
            g_error_matches (error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE) ?
            " (the port is in use: give another http-port)" : "",
            error->message));
    g_error_free (error);
  } else {
    GST_INFO ("serving http://%s:%u/target-info", self->address, self->port);
    started (self, NULL);
    g_main_loop_run (self->loop);
  }
  g_clear_object (&addr);
  soup_server_disconnect (server);
  g_object_unref (server);
  g_main_context_pop_thread_default (self->ctx);
  return NULL;
}

static void
server_free (GstMxlFabricsHttpServer * self)
{
  g_main_loop_unref (self->loop);
  g_main_context_unref (self->ctx);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_clear_error (&self->error);
  g_free (self->address);
  g_free (self);
}

GstMxlFabricsHttpServer *
gst_mxl_fabrics_http_server_start (const gchar * address, guint port,
    GstMxlFabricsHttpBodyFunc body, gpointer data, GError ** error)
{
  GstMxlFabricsHttpServer *self = g_new0 (GstMxlFabricsHttpServer, 1);

  GST_DEBUG_CATEGORY_INIT (mxl_fabrics_http_debug, "mxlfabricshttp", 0,
      "mxlfabricssrc HTTP endpoint");
  self->ctx = g_main_context_new ();
  self->loop = g_main_loop_new (self->ctx, FALSE);
  self->address = g_strdup (address);
  self->port = port;
  self->body = body;
  self->data = data;
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->thread = g_thread_new ("mxlfabricshttp", server_thread, self);
  /* bind() is local: this wait is short */
  g_mutex_lock (&self->lock);
  while (!self->bound_or_failed)
    g_cond_wait (&self->cond, &self->lock);
  g_mutex_unlock (&self->lock);
  if (self->error) {
    g_thread_join (self->thread);
    g_propagate_error (error, g_steal_pointer (&self->error));
    server_free (self);
    return NULL;
  }
  return self;
}

void
gst_mxl_fabrics_http_server_stop (GstMxlFabricsHttpServer * self)
{
  if (self == NULL)
    return;
  g_main_loop_quit (self->loop);
  g_thread_join (self->thread);
  server_free (self);
}

static void add_value (JsonBuilder * b, const GValue * v);

static gboolean
add_field (GQuark field, const GValue * v, gpointer data)
{
  json_builder_set_member_name (data, g_quark_to_string (field));
  add_value (data, v);
  return TRUE;
}

static void
add_value (JsonBuilder * b, const GValue * v)
{
  GType t = G_VALUE_TYPE (v);

  if (t == G_TYPE_INT)
    json_builder_add_int_value (b, g_value_get_int (v));
  else if (t == G_TYPE_UINT)
    json_builder_add_int_value (b, g_value_get_uint (v));
  else if (t == G_TYPE_INT64)
    json_builder_add_int_value (b, g_value_get_int64 (v));
  else if (t == G_TYPE_UINT64)
    json_builder_add_int_value (b, (gint64) g_value_get_uint64 (v));
  else if (t == G_TYPE_DOUBLE)
    json_builder_add_double_value (b, g_value_get_double (v));
  else if (t == G_TYPE_FLOAT)
    json_builder_add_double_value (b, g_value_get_float (v));
  else if (t == G_TYPE_BOOLEAN)
    json_builder_add_boolean_value (b, g_value_get_boolean (v));
  else if (t == G_TYPE_STRING)
    json_builder_add_string_value (b, g_value_get_string (v));
  else if (G_TYPE_IS_ENUM (t)) {
    GEnumValue *e = g_enum_get_value (g_type_class_peek (t),
        g_value_get_enum (v));
    json_builder_add_string_value (b, e ? e->value_nick : "");
  } else if (t == GST_TYPE_STRUCTURE && gst_value_get_structure (v)) {
    json_builder_begin_object (b);
    gst_structure_foreach (gst_value_get_structure (v), add_field, b);
    json_builder_end_object (b);
  } else if (t == GST_TYPE_ARRAY || t == GST_TYPE_LIST) {
    guint n = t == GST_TYPE_ARRAY ? gst_value_array_get_size (v) :
        gst_value_list_get_size (v);

    json_builder_begin_array (b);
    for (guint i = 0; i < n; i++)
      add_value (b, t == GST_TYPE_ARRAY ? gst_value_array_get_value (v, i) :
          gst_value_list_get_value (v, i));
    json_builder_end_array (b);
  } else {
    gchar *s = gst_value_serialize (v);
    json_builder_add_string_value (b, s ? s : "");
    g_free (s);
  }
}

gchar *
gst_mxl_fabrics_stats_to_json (const GstStructure * s)
{
  JsonBuilder *b = json_builder_new ();
  JsonNode *root;
  gchar *text;

  json_builder_begin_object (b);
  gst_structure_foreach (s, add_field, b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  text = json_to_string (root, FALSE);
  json_node_unref (root);
  g_object_unref (b);
  return text;
}
