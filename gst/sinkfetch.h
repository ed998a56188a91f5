/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sink's fetch of a TargetInfo given as http://HOST:PORT/PATH (the
 * endpoint of mxlfabricssrc, srchttp.h), with libsoup 3. Every request is
 * made and finished on the sink's engine thread, on its thread-default
 * GMainContext (mxlfabricssinkconn.c, wait_once), never in a state change
 * or on the streaming thread; a fetch object may be freed from any thread.
 * Bounded: GST_MXL_FABRICS_SINK_FETCH_TIMEOUT_MS for the whole request,
 * GST_MXL_FABRICS_SINK_FETCH_MAX_BYTES of body (read no further), no
 * redirect followed, no proxy. An answer equal to the last one (304 to
 * If-None-Match with its ETag, or the same body) is UNCHANGED.
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_MXL_FABRICS_SINK_FETCH_TIMEOUT_MS 2000
#define GST_MXL_FABRICS_SINK_FETCH_MAX_BYTES (64 * 1024)
/* Between the attempts while a fetch is wanted: from the first, doubled
 * after each failed or unchanged answer, up to the second. */
#define GST_MXL_FABRICS_SINK_FETCH_RETRY_MIN_MS 100
#define GST_MXL_FABRICS_SINK_FETCH_RETRY_MAX_MS 500
/* While its target is connected, a URL's document is asked for again
 * (If-None-Match: a 304 costs no body) this often (ms), so a receiver
 * restarted with new keys at the same address is followed even where the
 * provider reports no loss. */
#define GST_MXL_FABRICS_SINK_FETCH_REVALIDATE_MS 1000

typedef struct _GstMxlFabricsSinkFetch GstMxlFabricsSinkFetch;

typedef enum {
  GST_MXL_FABRICS_SINK_FETCH_NONE,      /* nothing new */
  GST_MXL_FABRICS_SINK_FETCH_DOCUMENT,  /* a new body */
  GST_MXL_FABRICS_SINK_FETCH_UNCHANGED, /* the same document as before */
  GST_MXL_FABRICS_SINK_FETCH_FAILED,    /* a new reason of failure */
} GstMxlFabricsSinkFetchResult;

/** Whether a target-info value is an http:// (or https://, which
 * gst_mxl_fabrics_sink_fetch_new() refuses) URL (the scheme in any
 * case). */
gboolean gst_mxl_fabrics_sink_fetch_is_url (const gchar * value);

/**
 * gst_mxl_fabrics_sink_fetch_new:
 * @url: an http:// URL.
 * @error: GST_RESOURCE_ERROR_SETTINGS for a URL that is not an absolute
 *   http URL with a host (GLib's g_uri_parse()), the URL not repeated
 *   (it may hold a password); "https is not supported" for https, which
 *   mxlfabricssrc does not serve (docs/security.md).
 * Returns: (transfer full) (nullable): the fetch, idle.
 */
GstMxlFabricsSinkFetch *gst_mxl_fabrics_sink_fetch_new (const gchar * url,
    GError ** error);

/** Cancels a request in flight (its end is dispatched on the engine
 * thread) and drops this reference; any thread. */
void gst_mxl_fabrics_sink_fetch_free (GstMxlFabricsSinkFetch * f);

/** The URL as texts show it: without its userinfo (user:password@);
 * owned by @f. */
const gchar *gst_mxl_fabrics_sink_fetch_url (GstMxlFabricsSinkFetch * f);

/** What texts show of a target's value: the URL without its userinfo for
 * a fetched target (@f non-NULL), else @value itself. */
const gchar *gst_mxl_fabrics_sink_fetch_shown (GstMxlFabricsSinkFetch * f,
    const gchar * value);

/**
 * gst_mxl_fabrics_sink_fetch_poll:
 * @now: monotonic µs.
 * @wanted: whether the document is wanted now (none yet, or the target
 *   lost, connecting without success yet, or failed): a request is made when none is in flight and
 *   the back-off allows.
 * @body: (out) (transfer full): the body of a DOCUMENT.
 * @error: (out): the reason of a FAILED, naming the URL and the HTTP
 *   status when one came (GST_RESOURCE_ERROR_READ; a redirect:
 *   GST_RESOURCE_ERROR_NOT_FOUND). A failure with the reason of the one
 *   before is not reported again (NONE).
 *
 * Engine thread only: the result of the request that ended, if any, then
 * maybe the next request. Returns: what ended.
 */
GstMxlFabricsSinkFetchResult gst_mxl_fabrics_sink_fetch_poll
    (GstMxlFabricsSinkFetch * f, gint64 now, gboolean wanted, gchar ** body,
    GError ** error);

/** Engine thread: no request before @not_before_us (monotonic µs), e.g.
 * the slower re-validation of a connected target's document. */
void gst_mxl_fabrics_sink_fetch_defer (GstMxlFabricsSinkFetch * f,
    gint64 not_before_us);

/** Engine thread: the time the next request is due when @wanted and none
 * is in flight, else @due (the earlier). */
gint64 gst_mxl_fabrics_sink_fetch_next_due (GstMxlFabricsSinkFetch * f,
    gboolean wanted, gint64 due);

/** Engine thread: cancels a request in flight and forgets the last
 * document, its ETag and the back-off (a stop: the next start fetches
 * anew). */
void gst_mxl_fabrics_sink_fetch_reset (GstMxlFabricsSinkFetch * f);

/** Engine thread leaving, no lock held: dispatches @ctx until the
 * requests this thread started (cancelled by reset) have ended, for at
 * most 500 ms. */
void gst_mxl_fabrics_sink_fetch_drain (GMainContext * ctx);

G_END_DECLS
