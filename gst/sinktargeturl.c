/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A sink target given as an http:// URL; see sinktargeturl.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sinktargeturl.h"

GST_DEBUG_CATEGORY_EXTERN (mxl_fabrics_sink_conn_debug);
#define GST_CAT_DEFAULT mxl_fabrics_sink_conn_debug

/* Whether @t needs its document: none yet, or the receiver may have
 * restarted with another one (lost, failed, or connecting without success
 * yet; while connected, re-validated every
 * GST_MXL_FABRICS_SINK_FETCH_REVALIDATE_MS: tcp;ofi_rxm reports no loss of
 * a receiver restarted at the same address, its old target stays
 * connected). Connecting counts whatever the provider says: on a connectionless
 * one (shm, tcp;ofi_rxm) a connect to a gone receiver is never refused,
 * so waiting for a refusal would retry the dead address forever. The
 * fetch's back-off spaces the requests (sinkfetch.h); an unchanged
 * document (ETag, content compare) changes nothing. */
static gboolean
wanted (const GstMxlFabricsSinkTarget * t)
{
  /* IDLE with a document: about to be plugged, nothing to ask */
  return t->state.kind != GST_MXL_FABRICS_SINK_TARGET_IDLE || t->json == NULL;
}

static void
warn (GstMxlFabricsSinkTarget * t, GError * error, GPtrArray * notices)
{
  gst_mxl_fabrics_sink_notice_problem (notices, GST_MESSAGE_WARNING,
      error->domain, error->code, g_strdup_printf ("%s%s%s%s; still trying",
          t->id_str[0] ? "target " : "", t->id_str[0] ? t->id_str : "",
          t->id_str[0] ? ": " : "", error->message),
      gst_mxl_fabrics_sink_fetch_url (t->fetch));
  g_error_free (error);
}

void
gst_mxl_fabrics_sink_target_check_url (GstMxlFabricsSink * self,
    GstMxlFabricsSinkTarget * t, gint64 now, GPtrArray * notices)
{
  const gchar *url = gst_mxl_fabrics_sink_fetch_url (t->fetch);
  GstMxlFabricsSinkFetchResult r;
  GError *error = NULL;
  gchar *body = NULL, *json = NULL;
  mxlFabricsTargetInfo parsed = NULL;
  const gchar *p;

  if (t->json == NULL && t->state.kind == GST_MXL_FABRICS_SINK_TARGET_IDLE) {
    GstMxlFabricsSinkTargetState s = {
      .kind = GST_MXL_FABRICS_SINK_TARGET_AWAITING_FILE
    };
    gst_mxl_fabrics_sink_target_set_state (self, t, &s,
        "fetching the TargetInfo", notices);
  }
  r = gst_mxl_fabrics_sink_fetch_poll (t->fetch, now, wanted (t), &body,
      &error);
  /* connected: the next re-validation in a while, not on the back-off */
  if (r != GST_MXL_FABRICS_SINK_FETCH_NONE
      && t->state.kind == GST_MXL_FABRICS_SINK_TARGET_CONNECTED)
    gst_mxl_fabrics_sink_fetch_defer (t->fetch,
        now + GST_MXL_FABRICS_SINK_FETCH_REVALIDATE_MS * 1000);
  if (r == GST_MXL_FABRICS_SINK_FETCH_FAILED) {
    warn (t, error, notices);
    return;
  }
  if (r != GST_MXL_FABRICS_SINK_FETCH_DOCUMENT)
    return;
  /* JSON only: the answer is untrusted, and the resolver would read a
   * local file for "@path" */
  for (p = body; g_ascii_isspace (*p); p++);
  if (*p != '{')
    error = g_error_new (GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "the answer of %s (HTTP 200) is not a TargetInfo JSON document",
        url);
  else if (!gst_mxl_fabrics_target_info_resolve_parsed (p, NULL, &json, NULL,
          NULL, &parsed, &error))
    g_prefix_error (&error, "the answer of %s (HTTP 200) is not a usable "
        "TargetInfo: ", url);
  g_free (body);
  if (error) {
    warn (t, error, notices);
    return;
  }
  gst_mxl_fabrics_sink_target_take_text (self, t, json, parsed,
      "TargetInfo at its URL changed", notices);
}

gint64
gst_mxl_fabrics_sink_target_url_next_due (GstMxlFabricsSinkTarget * t,
    gint64 due)
{
  return gst_mxl_fabrics_sink_fetch_next_due (t->fetch, wanted (t), due);
}
