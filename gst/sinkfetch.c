/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sink's fetch of an http:// TargetInfo; see sinkfetch.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sinkfetch.h"

#include <libsoup/soup.h>
#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (mxl_fabrics_sink_conn_debug);
#define GST_CAT_DEFAULT mxl_fabrics_sink_conn_debug

struct _GstMxlFabricsSinkFetch {
  gint refs;                    /* atomic: the target's, a request's */
  gchar *url;
  gchar *shown;                 /* url without its userinfo, for texts */
  GMutex lock;                  /* cancellable: freed from any thread */
  GCancellable *cancellable;    /* the request in flight, or NULL */
  /* engine thread only */
  gboolean in_flight;
  gint64 next_us;               /* the earliest next request */
  guint delay_ms;               /* the back-off */
  gchar *etag;                  /* of the last document */
  gchar *last_body;
  gchar *last_failure;          /* the reason last reported */
  /* the ended request, until polled */
  gboolean ended;
  GstMxlFabricsSinkFetchResult result;
  gchar *body;
  GError *error;
};

/* One request: made, read and ended on the engine thread. */
typedef struct {
  GstMxlFabricsSinkFetch *fetch;
  SoupSession *session;
  SoupMessage *msg;
  GInputStream *stream;
  GCancellable *cancellable;
  GSource *timer;
  gboolean timed_out;
  guint status;                 /* 0 until the answer's status line */
  goffset length;               /* Content-Length, -1 none */
  GByteArray *data;
  guint8 chunk[8192];
} Request;

/* The requests this thread started and that have not ended. */
static _Thread_local guint requests_here;

static GstMxlFabricsSinkFetch *
fetch_ref (GstMxlFabricsSinkFetch * f)
{
  g_atomic_int_inc (&f->refs);
  return f;
}

static void
fetch_unref (GstMxlFabricsSinkFetch * f)
{
  if (!g_atomic_int_dec_and_test (&f->refs))
    return;
  g_clear_object (&f->cancellable);
  g_mutex_clear (&f->lock);
  g_free (f->url);
  g_free (f->shown);
  g_free (f->etag);
  g_free (f->last_body);
  g_free (f->last_failure);
  g_free (f->body);
  g_clear_error (&f->error);
  g_free (f);
}

gboolean
gst_mxl_fabrics_sink_fetch_is_url (const gchar * value)
{
  while (value && g_ascii_isspace (*value))
    value++;
  return value && (g_ascii_strncasecmp (value, "http://", 7) == 0
      || g_ascii_strncasecmp (value, "https://", 8) == 0);
}

GstMxlFabricsSinkFetch *
gst_mxl_fabrics_sink_fetch_new (const gchar * url, GError ** error)
{
  GstMxlFabricsSinkFetch *f;
  GUri *uri;

  while (g_ascii_isspace (*url))
    url++;
  if (g_ascii_strncasecmp (url, "https://", 8) == 0) {
    g_set_error_literal (error, GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_SETTINGS, "https is not supported (use http://; "
        "see docs/security.md)");
    return NULL;
  }
  uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  if (uri == NULL || g_uri_get_host (uri) == NULL
      || g_uri_get_host (uri)[0] == '\0') {
    /* not echoed: it may hold a password */
    g_set_error_literal (error, GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_SETTINGS, "the TargetInfo URL is not an "
        "http://HOST:PORT/target-info URL");
    if (uri)
      g_uri_unref (uri);
    return NULL;
  }
  f = g_new0 (GstMxlFabricsSinkFetch, 1);
  f->refs = 1;
  f->url = g_strdup (url);
  /* user:password@ stays out of every WARNING and log */
  f->shown = g_uri_to_string_partial (uri, G_URI_HIDE_USERINFO);
  g_uri_unref (uri);
  g_mutex_init (&f->lock);
  f->delay_ms = GST_MXL_FABRICS_SINK_FETCH_RETRY_MIN_MS;
  return f;
}

const gchar *
gst_mxl_fabrics_sink_fetch_url (GstMxlFabricsSinkFetch * f)
{
  return f->shown;
}

const gchar *
gst_mxl_fabrics_sink_fetch_shown (GstMxlFabricsSinkFetch * f,
    const gchar * value)
{
  return f ? f->shown : value;
}

static void
fetch_cancel (GstMxlFabricsSinkFetch * f)
{
  g_mutex_lock (&f->lock);
  if (f->cancellable)
    g_cancellable_cancel (f->cancellable);
  g_mutex_unlock (&f->lock);
}

void
gst_mxl_fabrics_sink_fetch_free (GstMxlFabricsSinkFetch * f)
{
  if (f == NULL)
    return;
  fetch_cancel (f);
  fetch_unref (f);
}

/* The end of @r: its result kept for the next poll. Takes @error. */
static void
request_end (Request * r, GstMxlFabricsSinkFetchResult result,
    GError * error)
{
  GstMxlFabricsSinkFetch *f = r->fetch;

  g_source_destroy (r->timer);
  g_source_unref (r->timer);
  g_free (f->body);
  g_clear_error (&f->error);
  f->body = NULL;
  if (result == GST_MXL_FABRICS_SINK_FETCH_DOCUMENT) {
    const char *etag = soup_message_headers_get_one
        (soup_message_get_response_headers (r->msg), "ETag");

    g_byte_array_append (r->data, (const guint8 *) "", 1);
    f->body = (gchar *) g_byte_array_free (g_steal_pointer (&r->data), FALSE);
    g_free (f->etag);
    f->etag = g_strdup (etag);
    if (g_strcmp0 (f->body, f->last_body) == 0) {
      result = GST_MXL_FABRICS_SINK_FETCH_UNCHANGED;
      g_clear_pointer (&f->body, g_free);
    } else {
      g_free (f->last_body);
      f->last_body = g_strdup (f->body);
    }
  }
  if (g_cancellable_is_cancelled (r->cancellable) && !r->timed_out) {
    /* reset or freed: nobody waits for it */
    result = GST_MXL_FABRICS_SINK_FETCH_NONE;
    g_clear_pointer (&f->body, g_free);
    g_clear_error (&error);
  }
  f->result = result;
  f->error = error;
  f->ended = TRUE;
  f->in_flight = FALSE;
  g_mutex_lock (&f->lock);
  g_clear_object (&f->cancellable);
  g_mutex_unlock (&f->lock);
  if (r->data)
    g_byte_array_unref (r->data);
  g_clear_object (&r->stream);
  g_object_unref (r->msg);
  g_object_unref (r->session);
  g_object_unref (r->cancellable);
  fetch_unref (f);
  g_free (r);
  requests_here--;
}

/* A failure of @r: what happened, with the URL and the HTTP status. */
static void
request_fail (Request * r, GError * cause, gint code, const gchar * fmt, ...)
    G_GNUC_PRINTF (4, 5);

static void
request_fail (Request * r, GError * cause, gint code, const gchar * fmt, ...)
{
  gchar *what, *status;
  va_list args;

  va_start (args, fmt);
  what = g_strdup_vprintf (fmt, args);
  va_end (args);
  status = r->status ? g_strdup_printf ("HTTP %u %s", r->status,
      soup_status_get_phrase (r->status)) : g_strdup ("no HTTP answer");
  request_end (r, GST_MXL_FABRICS_SINK_FETCH_FAILED,
      g_error_new (GST_RESOURCE_ERROR, code, "cannot fetch the TargetInfo "
          "from %s (%s): %s%s%s", r->fetch->shown, status, r->timed_out ?
          "no complete answer within " G_STRINGIFY
          (GST_MXL_FABRICS_SINK_FETCH_TIMEOUT_MS) " ms" : what,
          cause && !r->timed_out ? ": " : "", cause && !r->timed_out ?
          cause->message : ""));
  g_free (what);
  g_free (status);
  g_clear_error (&cause);
}

static void on_read (GObject * source, GAsyncResult * res, gpointer data);

static void
read_more (Request * r)
{
  g_input_stream_read_async (r->stream, r->chunk, sizeof r->chunk,
      G_PRIORITY_DEFAULT, r->cancellable, on_read, r);
}

static void
on_read (GObject * source, GAsyncResult * res, gpointer data)
{
  Request *r = data;
  GError *error = NULL;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (source), res,
      &error);

  if (n < 0) {
    request_fail (r, error, GST_RESOURCE_ERROR_READ, "the body %s",
        g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT) ?
        "ended before its Content-Length" : "could not be read");
    return;
  }
  if (n == 0) {
    if (r->length >= 0 && r->data->len < (guint64) r->length)
      request_fail (r, NULL, GST_RESOURCE_ERROR_READ, "the body ended after "
          "%u of its %" G_GINT64_FORMAT " bytes (Content-Length)",
          r->data->len, (gint64) r->length);
    else if (memchr (r->data->data, '\0', r->data->len))
      request_fail (r, NULL, GST_RESOURCE_ERROR_READ, "the body is not text");
    else
      request_end (r, GST_MXL_FABRICS_SINK_FETCH_DOCUMENT, NULL);
    return;
  }
  if (r->data->len + (gsize) n > GST_MXL_FABRICS_SINK_FETCH_MAX_BYTES) {
    request_fail (r, NULL, GST_RESOURCE_ERROR_READ, "the body is larger "
        "than %u bytes (not read further)",
        GST_MXL_FABRICS_SINK_FETCH_MAX_BYTES);
    return;
  }
  g_byte_array_append (r->data, r->chunk, (guint) n);
  read_more (r);
}

static void
on_sent (GObject * source, GAsyncResult * res, gpointer data)
{
  Request *r = data;
  GError *error = NULL;
  r->stream = soup_session_send_finish (SOUP_SESSION (source), res, &error);
  if (r->stream == NULL) {
    request_fail (r, error, GST_RESOURCE_ERROR_READ, "%s",
        "the request failed");
    return;
  }
  r->status = soup_message_get_status (r->msg);
  if (r->status == SOUP_STATUS_NOT_MODIFIED) {
    request_end (r, GST_MXL_FABRICS_SINK_FETCH_UNCHANGED, NULL);
    return;
  }
  if (SOUP_STATUS_IS_REDIRECTION (r->status)) {
    const char *to = soup_message_headers_get_one
        (soup_message_get_response_headers (r->msg), "Location");

    request_fail (r, NULL, GST_RESOURCE_ERROR_NOT_FOUND, "redirected to "
        "\"%s\", and redirects are not followed: give the final URL",
        to ? to : "");
    return;
  }
  if (r->status != SOUP_STATUS_OK) {
    request_fail (r, NULL, GST_RESOURCE_ERROR_READ, "%s", r->status ==
        SOUP_STATUS_SERVICE_UNAVAILABLE ? "the receiver's target is not set "
        "up yet" : "not the TargetInfo");
    return;
  }
  r->length = soup_message_headers_get_encoding
      (soup_message_get_response_headers (r->msg)) ==
      SOUP_ENCODING_CONTENT_LENGTH ? soup_message_headers_get_content_length
      (soup_message_get_response_headers (r->msg)) : -1;
  if (r->length > GST_MXL_FABRICS_SINK_FETCH_MAX_BYTES) {
    request_fail (r, NULL, GST_RESOURCE_ERROR_READ, "the body is larger "
        "than %u bytes (Content-Length %" G_GINT64_FORMAT ")",
        GST_MXL_FABRICS_SINK_FETCH_MAX_BYTES, (gint64) r->length);
    return;
  }
  r->data = g_byte_array_new ();
  read_more (r);
}

static gboolean
on_timeout (gpointer data)
{
  Request *r = data;

  r->timed_out = TRUE;
  g_cancellable_cancel (r->cancellable);
  return G_SOURCE_REMOVE;
}

/* A GET of the URL, on this thread's default context. */
static void
request_start (GstMxlFabricsSinkFetch * f)
{
  Request *r = g_new0 (Request, 1);
  SoupMessageHeaders *h;

  r->fetch = fetch_ref (f);
  /* no proxy: the URL is the receiver's own endpoint */
  r->session = soup_session_new_with_options ("proxy-resolver", NULL,
      "timeout", GST_MXL_FABRICS_SINK_FETCH_TIMEOUT_MS / 1000,
      "user-agent", "gst-mxl-fabrics", NULL);
  r->msg = soup_message_new (SOUP_METHOD_GET, f->url);
  if (r->msg == NULL) {
    g_object_unref (r->session);
    g_free (r);
    f->result = GST_MXL_FABRICS_SINK_FETCH_FAILED;
    f->ended = TRUE;
    f->error = g_error_new (GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "cannot fetch the TargetInfo from %s (no HTTP answer): libsoup "
        "refuses the URL", f->shown);
    fetch_unref (f);
    return;
  }
  r->cancellable = g_cancellable_new ();
  soup_message_add_flags (r->msg, SOUP_MESSAGE_NO_REDIRECT);
  h = soup_message_get_request_headers (r->msg);
  soup_message_headers_replace (h, "Accept", "application/json");
  if (f->etag)
    soup_message_headers_replace (h, "If-None-Match", f->etag);
  g_mutex_lock (&f->lock);
  g_set_object (&f->cancellable, r->cancellable);
  g_mutex_unlock (&f->lock);
  f->in_flight = TRUE;
  requests_here++;
  /* the whole request, however slowly the answer trickles in */
  r->timer = g_timeout_source_new (GST_MXL_FABRICS_SINK_FETCH_TIMEOUT_MS);
  g_source_set_callback (r->timer, on_timeout, r, NULL);
  g_source_attach (r->timer, g_main_context_get_thread_default ());
  soup_session_send_async (r->session, r->msg, G_PRIORITY_DEFAULT,
      r->cancellable, on_sent, r);
}

GstMxlFabricsSinkFetchResult
gst_mxl_fabrics_sink_fetch_poll (GstMxlFabricsSinkFetch * f, gint64 now,
    gboolean wanted, gchar ** body, GError ** error)
{
  GstMxlFabricsSinkFetchResult result = f->result;
  gboolean ended = f->ended;

  *body = NULL;
  f->result = GST_MXL_FABRICS_SINK_FETCH_NONE;
  f->ended = FALSE;
  switch (result) {
    case GST_MXL_FABRICS_SINK_FETCH_DOCUMENT:
      *body = g_steal_pointer (&f->body);
      f->delay_ms = GST_MXL_FABRICS_SINK_FETCH_RETRY_MIN_MS;
      g_clear_pointer (&f->last_failure, g_free);
      break;
    case GST_MXL_FABRICS_SINK_FETCH_UNCHANGED:
    case GST_MXL_FABRICS_SINK_FETCH_FAILED:
      f->delay_ms = MIN (f->delay_ms * 2,
          GST_MXL_FABRICS_SINK_FETCH_RETRY_MAX_MS);
      if (result == GST_MXL_FABRICS_SINK_FETCH_UNCHANGED) {
        g_clear_pointer (&f->last_failure, g_free);
      } else if (g_strcmp0 (f->last_failure, f->error->message) == 0) {
        GST_DEBUG ("%s", f->error->message);    /* said already */
        g_clear_error (&f->error);
        result = GST_MXL_FABRICS_SINK_FETCH_NONE;
      } else {
        g_free (f->last_failure);
        f->last_failure = g_strdup (f->error->message);
        g_propagate_error (error, g_steal_pointer (&f->error));
      }
      break;
    default:
      break;
  }
  if (!wanted)
    f->delay_ms = GST_MXL_FABRICS_SINK_FETCH_RETRY_MIN_MS;
  if (ended)
    f->next_us = now + f->delay_ms * (gint64) 1000;
  if (wanted && !f->in_flight && now >= f->next_us)
    request_start (f);
  return result;
}

void
gst_mxl_fabrics_sink_fetch_defer (GstMxlFabricsSinkFetch * f,
    gint64 not_before_us)
{
  f->next_us = MAX (f->next_us, not_before_us);
}

gint64
gst_mxl_fabrics_sink_fetch_next_due (GstMxlFabricsSinkFetch * f,
    gboolean wanted, gint64 due)
{
  return wanted && !f->in_flight ? MIN (due, f->next_us) : due;
}

void
gst_mxl_fabrics_sink_fetch_reset (GstMxlFabricsSinkFetch * f)
{
  fetch_cancel (f);
  f->result = GST_MXL_FABRICS_SINK_FETCH_NONE;
  f->next_us = 0;
  f->delay_ms = GST_MXL_FABRICS_SINK_FETCH_RETRY_MIN_MS;
  g_clear_pointer (&f->etag, g_free);
  g_clear_pointer (&f->last_body, g_free);
  g_clear_pointer (&f->last_failure, g_free);
  g_clear_pointer (&f->body, g_free);
  g_clear_error (&f->error);
}

static gboolean
on_drain_tick (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

void
gst_mxl_fabrics_sink_fetch_drain (GMainContext * ctx)
{
  gint64 deadline = g_get_monotonic_time () + 500 * 1000;
  GSource *tick;

  if (requests_here == 0)
    return;
  /* the cancelled requests end through @ctx; the tick bounds each wait */
  tick = g_timeout_source_new (20);
  g_source_set_callback (tick, on_drain_tick, NULL, NULL);
  g_source_attach (tick, ctx);
  while (requests_here > 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (ctx, TRUE);
  g_source_destroy (tick);
  g_source_unref (tick);
}
