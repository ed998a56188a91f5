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
  /* the TargetInfo the list parsed when it read it (t->parsed): both
   * callers, add-target and take_text (an @path file or an http:// URL
   * read, both by the resolver), set it with t->json (none while the
   * document is not there yet) */
  t->have_flow = t->parsed != NULL && flow_of_info (self, t->parsed,
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

/* ---- the negotiation WARNINGs (issue 19) ---- */

/* Posts the WARNING @text (CORE NEGOTIATION, with @debug) unless it was
 * posted since stop(). */
static void
post_notice (GstMxlFabricsSink * self, const gchar * text,
    const gchar * debug)
{
  gboolean fresh;

  GST_OBJECT_LOCK (self);
  fresh = g_hash_table_add (self->caps_notices, g_strdup (text));
  GST_OBJECT_UNLOCK (self);
  if (fresh)
    GST_ELEMENT_WARNING (self, CORE, NEGOTIATION, ("%s", text), ("%s",
            debug));
  else
    GST_DEBUG_OBJECT (self, "posted already: %s", text);
}

void
gst_mxl_fabrics_sink_caps_forget_notices (GstMxlFabricsSink * self)
{
  GST_OBJECT_LOCK (self);
  g_hash_table_remove_all (self->caps_notices);
  GST_OBJECT_UNLOCK (self);
}

/* gst_structure_foreach() over the flow's caps: fixes the field @field of
 * the structure @data, where it leaves a choice, nearest the flow's
 * @value; a field it does not give takes @value (the filter leaves it
 * open), but for the scanning: caps without interlace-mode are
 * progressive, whatever the flow. */
static gboolean
toward_flow (GQuark field, const GValue * value, gpointer data)
{
  GstStructure *s = data;
  const gchar *name = g_quark_to_string (field);

  if (!gst_structure_id_has_field (s, field)) {
    if (g_strcmp0 (name, "interlace-mode") != 0
        && g_strcmp0 (name, "field-order") != 0)
      gst_structure_id_set_value (s, field, value);
  } else if (G_VALUE_HOLDS_INT (value)) {
    gst_structure_fixate_field_nearest_int (s, name, g_value_get_int (value));
  } else if (GST_VALUE_HOLDS_FRACTION (value)) {
    gst_structure_fixate_field_nearest_fraction (s, name,
        gst_value_get_fraction_numerator (value),
        gst_value_get_fraction_denominator (value));
  } else if (G_VALUE_HOLDS_STRING (value)) {
    gst_structure_fixate_field_string (s, name, g_value_get_string (value));
  } else if (G_VALUE_HOLDS_BOOLEAN (value)) {
    gst_structure_fixate_field_boolean (s, name, g_value_get_boolean (value));
  }
  return TRUE;
}

/* Why @flow takes nothing of @filter: the library's check, as set_caps
 * runs it (gst_mxl_fabrics_format_from_caps(), then
 * gst_mxl_fabrics_format_check_match() against the flow), on the nearest
 * caps: each structure of @filter fixed toward the flow's caps, the first
 * of the flow's media that the check finds different from the flow, else
 * the first one. Returns the message (g_free), the nearest caps in
 * *@nearest; NULL for an empty @filter. */
static gchar *
flow_refusal (const TargetFlow * flow, GstCaps * filter, GstCaps ** nearest)
{
  GstCaps *want = gst_mxl_fabrics_format_to_caps (&flow->fmt);
  const GstStructure *w = gst_caps_get_structure (want, 0);
  gchar *reason = NULL;

  *nearest = NULL;
  for (guint i = 0; i < gst_caps_get_size (filter); i++) {
    GstCaps *c = gst_caps_copy_nth (filter, i);
    gboolean same = gst_structure_has_name (gst_caps_get_structure (c, 0),
        gst_structure_get_name (w));
    gboolean differs = FALSE;
    GstMxlFabricsFormat fmt;
    GError *error = NULL;

    if (same)
      gst_structure_foreach (w, toward_flow, gst_caps_get_structure (c, 0));
    c = gst_caps_fixate (c);
    if (gst_mxl_fabrics_format_from_caps (c, &fmt, &error))
      differs = !gst_mxl_fabrics_format_check_match (&fmt, &flow->fmt,
          &error);
    if (*nearest == NULL || (same && differs)) {
      gst_caps_replace (nearest, c);
      g_free (reason);
      reason = error ? g_strdup (error->message) : NULL;
    }
    g_clear_error (&error);
    gst_caps_unref (c);
    if (same && differs)
      break;
  }
  gst_caps_unref (want);
  if (*nearest && reason == NULL) {
    /* the library takes them (e.g. in another memory): not the sink */
    gchar *str = gst_caps_to_string (*nearest);

    reason = g_strdup_printf ("caps %s are not among those the sink takes "
        "for the flow", str);
    g_free (str);
  }
  return reason;
}

/* The CAPS answer of the targets' @flows (@caps) has nothing of @filter:
 * a WARNING for each target whose flow takes none of it, naming what
 * differs (flow_refusal()), with both caps in the debug text. */
static void
post_mismatches (GstMxlFabricsSink * self, GArray * flows, GstCaps * filter,
    GstCaps * templ)
{
  gchar *offered = gst_caps_to_string (filter);

  for (guint i = 0; i < flows->len; i++) {
    const TargetFlow *f = &g_array_index (flows, TargetFlow, i);
    GstCaps *c = target_caps (f, templ), *nearest = NULL;
    gchar *reason, *text, *debug, *near_str, *flow_str;

    if (c == NULL || gst_caps_can_intersect (filter, c)) {
      gst_clear_caps (&c);
      continue;
    }
    reason = flow_refusal (f, filter, &nearest);
    if (reason) {
      near_str = gst_caps_to_string (nearest);
      flow_str = gst_caps_to_string (c);
      text = g_strdup_printf ("target %" G_GUINT64_FORMAT ": %s (%s)", f->id,
          reason, gst_mxl_fabrics_media_ops (f->fmt.media)->convert_hint);
      debug = g_strdup_printf ("upstream offers %s (nearest the flow: %s); "
          "the flow of target %" G_GUINT64_FORMAT " takes %s", offered,
          near_str, f->id, flow_str);
      post_notice (self, text, debug);
      g_free (text);
      g_free (debug);
      g_free (near_str);
      g_free (flow_str);
      g_free (reason);
      gst_caps_unref (nearest);
    }
    gst_caps_unref (c);
  }
  g_free (offered);
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
  gboolean of_targets;

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
  of_targets = caps != NULL;
  if (caps == NULL)
    caps = gst_caps_ref (templ);
  GST_DEBUG_OBJECT (self, "caps from targets [%s]: %" GST_PTR_FORMAT,
      ids->str, caps);
  g_string_free (ids, TRUE);
  res = filter ? gst_caps_intersect_full (filter, caps,
      GST_CAPS_INTERSECT_FIRST) : gst_caps_ref (caps);
  /* upstream offers nothing the targets' flows take: it will fail with a
   * bare not-negotiated; say which quantity differs */
  if (of_targets && gst_caps_is_empty (res))
    post_mismatches (self, flows, filter, templ);
  g_array_unref (flows);
  gst_caps_unref (caps);
  gst_caps_unref (templ);
  return res;
}

gboolean
gst_mxl_fabrics_sink_accept_caps (GstMxlFabricsSink * self, GstQuery * query)
{
  const GstMxlFabricsMediaOps *ops;
  GstMxlFabricsFormat fmt;
  GstCaps *caps, *templ;
  GError *error = NULL;
  gboolean ok;

  if (GST_QUERY_TYPE (query) != GST_QUERY_ACCEPT_CAPS)
    return FALSE;
  gst_query_parse_accept_caps (query, &caps);
  templ = gst_pad_get_pad_template_caps (GST_BASE_SINK_PAD (self));
  ok = gst_caps_is_subset (caps, templ);
  gst_caps_unref (templ);
  /* fixed caps also by the library's rules, as set_caps reads them
   * (video without interlace-mode is progressive): the template's
   * progressive structure names no interlace-mode */
  if (gst_caps_is_fixed (caps)) {
    if (!gst_mxl_fabrics_format_from_caps (caps, &fmt, &error))
      ok = FALSE;
    else if (!ok)
      g_set_error (&error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "caps are not within the sink's pad template");
  }
  if (!ok && error) {
    gchar *str = gst_caps_to_string (caps), *text, *debug;

    ops = gst_mxl_fabrics_media_ops_for_caps (caps);
    text = ops ? g_strdup_printf ("%s (%s)", error->message,
        ops->convert_hint) : g_strdup (error->message);
    debug = g_strdup_printf ("refused caps %s (ACCEPT_CAPS)", str);
    post_notice (self, text, debug);
    g_free (text);
    g_free (debug);
    g_free (str);
  }
  g_clear_error (&error);
  gst_query_set_accept_caps_result (query, ok);
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
