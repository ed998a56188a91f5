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

/* One target's flow, copied out of the target list for the CAPS query. */
typedef struct {
  guint64 id;
  GstMxlFabricsFormat fmt;
} TargetFlow;

/* The id and flow of the parsed TargetInfo @info (of the target given as
 * @value) into *@id and *@fmt; FALSE when it gives no caps: without a
 * flow definition (a reference target) or with one the library refuses
 * (debug output says which). */
static gboolean
flow_of_info (GstMxlFabricsSink * self, mxlFabricsTargetInfo info,
    guint64 * id, GstMxlFabricsFormat * fmt)
{
  GError *error = NULL;
  const char *def = NULL;
  gboolean ok = FALSE;

  if (mxlFabricsExtTargetInfoGetId (info, id) != MXL_STATUS_OK
      || mxlFabricsExtTargetInfoGetFlowDef (info, &def) != MXL_STATUS_OK)
    def = NULL;                 /* no caps from it: the template */
  if (def)
    ok = gst_mxl_fabrics_format_from_flow_def (def, fmt, NULL, &error);
  if (error) {
    GST_DEBUG_OBJECT (self, "target %" G_GUINT64_FORMAT ": %s", *id,
        error->message);
    g_clear_error (&error);
  }
  return ok;
}

/* flow_of_info() of the TargetInfo @json, parsed for it (refused by the
 * library: FALSE). */
static gboolean
parse_flow (GstMxlFabricsSink * self, const gchar * json,
    const gchar * value, guint64 * id, GstMxlFabricsFormat * fmt)
{
  mxlFabricsTargetInfo info;
  GError *error = NULL;
  gboolean ok;

  info = gst_mxl_fabrics_sink_parse_target_info (json, &error);
  if (info == NULL) {
    GST_DEBUG_OBJECT (self, "no caps from the TargetInfo of %s: %s", value,
        error->message);
    g_clear_error (&error);
    return FALSE;
  }
  ok = flow_of_info (self, info, id, fmt);
  mxlFabricsFreeTargetInfo (info);
  return ok;
}

void
gst_mxl_fabrics_sink_caps_read_target (GstMxlFabricsSink * self,
    GstMxlFabricsSinkTarget * t)
{
  /* the TargetInfo the list parsed when it read it (t->parsed), else
   * (plugged, its parsed one taken by the initiator state) its JSON */
  if (t->parsed != NULL)
    t->have_flow = flow_of_info (self, t->parsed, &t->flow_target_id,
        &t->flow);
  else
    t->have_flow = t->json != NULL && parse_flow (self, t->json, t->value,
        &t->flow_target_id, &t->flow);
}

/* The caps the sink takes for @flow, preferred first (caps.h), within
 * @templ. */
static GstCaps *
target_caps (const TargetFlow * flow, GstCaps * templ)
{
  GstCaps *all = gst_mxl_fabrics_format_to_sink_caps (&flow->fmt), *caps;

  if (all == NULL)
    return NULL;
  caps = gst_caps_intersect_full (all, templ, GST_CAPS_INTERSECT_FIRST);
  gst_caps_unref (all);
  return caps;
}

/* The flows of the targets in list order, as parsed when read
 * (engine_lock taken); a target that gives none is left out. An @path
 * file the engine thread has not read yet (it reads them once the
 * initiator exists, after the first caps) is read here, bounded by the
 * library, for this answer only. */
static GArray *
copy_flows (GstMxlFabricsSink * self)
{
  GArray *flows = g_array_new (FALSE, FALSE, sizeof (TargetFlow));
  GPtrArray *unread = g_ptr_array_new_with_free_func (g_free);
  guint i, n = 0;

  g_mutex_lock (&self->obj->lock);
  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    TargetFlow f = { t->flow_target_id, t->flow };
    gboolean unread_file = !t->have_flow && t->json == NULL && t->path;

    if (t->have_flow || unread_file) {
      g_array_append_val (flows, f);
      g_ptr_array_add (unread, unread_file ? g_strdup (t->value) : NULL);
    }
  }
  g_mutex_unlock (&self->obj->lock);
  for (i = 0; i < unread->len; i++) {
    const gchar *value = g_ptr_array_index (unread, i);
    TargetFlow *f = &g_array_index (flows, TargetFlow, n);
    gchar *json = NULL;

    if (value == NULL
        || (gst_mxl_fabrics_target_info_resolve (value, NULL, &json, NULL,
                NULL, NULL) && json != NULL
            && parse_flow (self, json, value, &f->id, &f->fmt)))
      n++;
    else
      g_array_remove_index (flows, n);
    g_free (json);
  }
  g_ptr_array_unref (unread);
  return flows;
}

GstCaps *
gst_mxl_fabrics_sink_get_caps_of_targets (GstMxlFabricsSink * self,
    GstCaps * filter)
{
  GstCaps *templ = gst_pad_get_pad_template_caps (GST_BASE_SINK_PAD (self));
  GArray *flows = copy_flows (self);
  GString *ids = g_string_new (NULL);
  GstCaps *caps = NULL, *res;

  for (guint i = 0; i < flows->len; i++) {
    const TargetFlow *f = &g_array_index (flows, TargetFlow, i);
    GstCaps *c = target_caps (f, templ);

    if (c == NULL)
      continue;
    g_string_append_printf (ids, "%s%" G_GUINT64_FORMAT, ids->len ? ", " : "",
        f->id);
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
  g_array_unref (flows);

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
