/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sink pad's caps from the targets' flows; see sinkcaps.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sinkcaps.h"
#include "mxlfabricssinkconn.h"
#include "mxlfabricssinktarget.h"
#include "sinkwait.h"

GST_DEBUG_CATEGORY_EXTERN (gst_mxl_fabrics_sink_debug);
#define GST_CAT_DEFAULT gst_mxl_fabrics_sink_debug

/* The caps of the flow that the TargetInfo @source (JSON, base64 or
 * "@path") carries, within @templ; NULL when it says none yet. Its id goes
 * to @id. */
static GstCaps *
target_caps (GstMxlFabricsSink * self, const gchar * source, GstCaps * templ,
    guint64 * id)
{
  mxlFabricsTargetInfo info;
  GstMxlFabricsFormat fmt;
  GError *error = NULL;
  const char *def = NULL;
  gchar *json = NULL;
  GstCaps *flow, *caps = NULL;

  if (!gst_mxl_fabrics_target_info_resolve (source, NULL, &json, NULL,
          NULL, &error) || json == NULL
      || (info = gst_mxl_fabrics_sink_parse_target_info (json, &error))
      == NULL) {
    GST_DEBUG_OBJECT (self, "no TargetInfo yet from %s: %s", source,
        error ? error->message : "file not there");
    g_clear_error (&error);
    g_free (json);
    return NULL;
  }
  g_free (json);
  if (mxlFabricsExtTargetInfoGetId (info, id) != MXL_STATUS_OK
      || mxlFabricsExtTargetInfoGetFlowDef (info, &def) != MXL_STATUS_OK)
    def = NULL;                 /* no caps from it: the template */
  /* the caps the sink takes for that flow, preferred first (caps.h) */
  if (def && gst_mxl_fabrics_format_from_flow_def (def, &fmt, NULL, &error)
      && (flow = gst_mxl_fabrics_format_to_sink_caps (&fmt)) != NULL) {
    caps = gst_caps_intersect_full (flow, templ, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (flow);
  } else if (error) {
    GST_DEBUG_OBJECT (self, "target %" G_GUINT64_FORMAT ": %s", *id,
        error->message);
    g_clear_error (&error);
  }
  mxlFabricsFreeTargetInfo (info);
  return caps;
}

GstCaps *
gst_mxl_fabrics_sink_get_caps_of_targets (GstMxlFabricsSink * self,
    GstCaps * filter)
{
  GstCaps *templ = gst_pad_get_pad_template_caps (GST_BASE_SINK_PAD (self));
  gchar **sources = gst_mxl_fabrics_sink_targets_sources (self);
  GString *ids = g_string_new (NULL);
  GstCaps *caps = NULL, *res;

  for (gchar ** s = sources; *s; s++) {
    guint64 id = 0;
    GstCaps *c = target_caps (self, *s, templ, &id);

    if (c == NULL)
      continue;
    g_string_append_printf (ids, "%s%" G_GUINT64_FORMAT, ids->len ? ", " : "",
        id);
    if (caps == NULL) {
      caps = c;
    } else {
      GstCaps *both = gst_caps_intersect_full (caps, c,
          GST_CAPS_INTERSECT_FIRST);
      gst_caps_unref (caps);
      gst_caps_unref (c);
      caps = both;
    }
  }
  g_strfreev (sources);

  if (caps && gst_caps_is_empty (caps)) {
    GST_OBJECT_LOCK (self);
    if (g_strcmp0 (self->caps_warned, ids->str) != 0) {
      g_free (self->caps_warned);
      self->caps_warned = g_strdup (ids->str);
      GST_OBJECT_UNLOCK (self);
      GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("the flows of targets %s "
              "have no caps in common: offering any caps of the template; "
              "a target whose flow the stream does not match fails",
              ids->str), (NULL));
    } else {
      GST_OBJECT_UNLOCK (self);
    }
    gst_caps_replace (&caps, NULL);
  } else {
    GST_OBJECT_LOCK (self);
    g_clear_pointer (&self->caps_warned, g_free);
    GST_OBJECT_UNLOCK (self);
  }
  if (caps == NULL)
    caps = gst_caps_ref (templ);
  GST_DEBUG_OBJECT (self, "caps from targets [%s]: %" GST_PTR_FORMAT,
      ids->str, caps);
  g_string_free (ids, TRUE);
  gst_caps_unref (templ);
  if (filter == NULL)
    return caps;
  res = gst_caps_intersect_full (filter, caps, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (caps);
  return res;
}

gboolean
gst_mxl_fabrics_sink_accept_caps (GstMxlFabricsSink * self, GstQuery * query)
{
  GstCaps *caps, *templ;

  if (GST_QUERY_TYPE (query) != GST_QUERY_ACCEPT_CAPS)
    return FALSE;
  gst_query_parse_accept_caps (query, &caps);
  templ = gst_pad_get_pad_template_caps (GST_BASE_SINK_PAD (self));
  gst_query_set_accept_caps_result (query, gst_caps_is_subset (caps, templ));
  gst_caps_unref (templ);
  return TRUE;
}

static void
push_reconfigure (GstElement * element, gpointer data)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (element);
  GstCaps *current = gst_pad_get_current_caps (GST_BASE_SINK_PAD (self));

  /* caps the targets' flows still take need no renegotiation */
  if (current) {
    GstCaps *want = gst_mxl_fabrics_sink_get_caps_of_targets (self, NULL);
    gboolean fits = gst_caps_is_subset (current, want);

    gst_caps_unref (want);
    gst_caps_unref (current);
    if (fits)
      return;
  }
  GST_DEBUG_OBJECT (self, "a target's TargetInfo changed: RECONFIGURE");
  gst_pad_push_event (GST_BASE_SINK_PAD (self), gst_event_new_reconfigure ());
}

void
gst_mxl_fabrics_sink_targets_changed (GstMxlFabricsSink * self)
{
  gst_element_call_async (GST_ELEMENT (self), push_reconfigure, NULL, NULL);
}

gboolean
gst_mxl_fabrics_sink_is_current_flow (GstMxlFabricsSink * self,
    const GstMxlFabricsFormat * fmt)
{
  return self->have_format
      && gst_mxl_fabrics_format_check_match (fmt, &self->format, NULL)
      && fmt->interleaved == self->format.interleaved;
}

gboolean
gst_mxl_fabrics_sink_caps_renew (GstMxlFabricsSink * self, GstCaps * caps,
    GError ** error)
{
  GstMxlFabricsFormat fmt;

  /* the same flow: nothing to do; caps that are no format get
   * setup_caps' ERROR (sinkwrite.c) */
  if (!self->have_format
      || !gst_mxl_fabrics_format_from_caps (caps, &fmt, NULL)
      || gst_mxl_fabrics_sink_is_current_flow (self, &fmt))
    return TRUE;
  GST_INFO_OBJECT (self, "caps changed to %" GST_PTR_FORMAT ": a new flow",
      caps);
  gst_mxl_fabrics_sink_engine_stop (self);
  g_mutex_lock (&self->obj->lock);
  gst_mxl_fabrics_sink_drop_pending (self);
  g_mutex_unlock (&self->obj->lock);
  gst_mxl_fabrics_sink_teardown_caps (self);
  self->have_last = FALSE;
  self->wait_expired = FALSE;
  self->catch_up_until = 0;
  return gst_mxl_fabrics_sink_engine_start (self, error);
}
