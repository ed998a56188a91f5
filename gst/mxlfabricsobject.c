/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the two mxlfabrics elements share: their common object, connection
 * state, bus messages, option checks and TargetInfo values; see
 * mxlfabricsobject.h (the properties are in mxlfabricsprops.c, the stats
 * in mxlfabricsstats.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mxlfabricsobject.h"

#include <stdlib.h>
#include <string.h>

#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>

GST_DEBUG_CATEGORY_STATIC (mxl_fabrics_object_debug);
#define GST_CAT_DEFAULT mxl_fabrics_object_debug

GstMxlFabricsObject *
gst_mxl_fabrics_object_new (GstElement * element)
{
  GstMxlFabricsObject *obj = g_new0 (GstMxlFabricsObject, 1);

  GST_DEBUG_CATEGORY_INIT (mxl_fabrics_object_debug, "mxlfabricsobject", 0,
      "MXL Fabrics element common part");
  obj->element = element;
  obj->provider = GST_MXL_FABRICS_DEFAULT_PROVIDER;
  obj->node = g_strdup (GST_MXL_FABRICS_DEFAULT_NODE);
  obj->service = g_strdup (GST_MXL_FABRICS_DEFAULT_SERVICE);
  obj->domain = g_strdup (GST_MXL_FABRICS_DEFAULT_DOMAIN);
  obj->flow_id = g_strdup (GST_MXL_FABRICS_DEFAULT_FLOW_ID);
  obj->options = g_strdup (GST_MXL_FABRICS_DEFAULT_OPTIONS);
  obj->state = GST_MXL_FABRICS_CONNECTION_DISCONNECTED;
  g_mutex_init (&obj->lock);
  g_cond_init (&obj->cond);
  g_rec_mutex_init (&obj->timer_lock);
  return obj;
}

void
gst_mxl_fabrics_object_free (GstMxlFabricsObject * obj)
{
  if (obj == NULL)
    return;
  g_free (obj->node);
  g_free (obj->resolved_node);
  g_free (obj->service);
  g_free (obj->domain);
  g_free (obj->flow_id);
  g_free (obj->options);
  if (obj->engine_stats)
    gst_structure_free (obj->engine_stats);
  g_free (obj->last_error);
  g_mutex_clear (&obj->lock);
  g_cond_clear (&obj->cond);
  /* no stats timer: each of its waits holds the element */
  g_rec_mutex_clear (&obj->timer_lock);
  g_free (obj);
}

void
gst_mxl_fabrics_object_unlock (GstMxlFabricsObject * obj)
{
  g_mutex_lock (&obj->lock);
  obj->flushing = TRUE;
  g_cond_broadcast (&obj->cond);
  g_mutex_unlock (&obj->lock);
  if (obj->wake)
    obj->wake (obj->wake_data);
}

void
gst_mxl_fabrics_object_unlock_stop (GstMxlFabricsObject * obj)
{
  g_mutex_lock (&obj->lock);
  obj->flushing = FALSE;
  g_mutex_unlock (&obj->lock);
}

gboolean
gst_mxl_fabrics_object_is_flushing (GstMxlFabricsObject * obj)
{
  gboolean flushing;

  g_mutex_lock (&obj->lock);
  flushing = obj->flushing;
  g_mutex_unlock (&obj->lock);
  return flushing;
}

/* The library's own check (mxlFabricsExtValidateOptions): malformed JSON,
 * an unknown key or a bad value is an error at once, not at setup. */
static gboolean
validate_options (const gchar * options, GError ** error)
{
  gchar reason[512];

  if (mxlFabricsExtValidateOptions (options, reason, sizeof reason) == MXL_STATUS_OK)
    return TRUE;
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      "property options: %s", reason);
  return FALSE;
}

gboolean
gst_mxl_fabrics_object_validate (GstMxlFabricsObject * obj, GError ** error)
{
  gchar *flow_id, *options;
  gboolean ok = TRUE;

  GST_OBJECT_LOCK (obj->element);
  flow_id = g_strdup (obj->flow_id);
  options = g_strdup (obj->options);
  GST_OBJECT_UNLOCK (obj->element);

  if (flow_id[0] != '\0' && !g_uuid_string_is_valid (flow_id)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "property flow-id \"%s\" is not a UUID (8-4-4-4-12 hex digits)",
        flow_id);
    ok = FALSE;
  } else if (!validate_options (options, error)) {
    ok = FALSE;
  }
  g_free (flow_id);
  g_free (options);
  return ok;
}

static void
post_connection (GstMxlFabricsObject * obj, GstMxlFabricsConnectionState state,
    const gchar * target_id, GstMxlFabricsConnectionState target_state,
    const gchar * reason, gboolean always)
{
  GstStructure *s;
  gboolean changed;

  GST_OBJECT_LOCK (obj->element);
  changed = obj->state != state;
  obj->state = state;
  GST_OBJECT_UNLOCK (obj->element);
  if (!changed && !always)
    return;

  GST_DEBUG_OBJECT (obj->element, "connection-state %d target '%s' %d (%s)",
      state, target_id ? target_id : "", target_state,
      reason ? reason : "no reason");
  if (changed)
    g_object_notify (G_OBJECT (obj->element), "connection-state");
  s = gst_structure_new (GST_MXL_FABRICS_MESSAGE_CONNECTION,
      "state", GST_TYPE_MXL_FABRICS_CONNECTION_STATE, state,
      "target-id", G_TYPE_STRING, target_id ? target_id : "",
      "target-state", GST_TYPE_MXL_FABRICS_CONNECTION_STATE, target_state,
      NULL);
  if (reason)
    gst_structure_set (s, "reason", G_TYPE_STRING, reason, NULL);
  gst_element_post_message (obj->element,
      gst_message_new_element (GST_OBJECT (obj->element), s));
}

void
gst_mxl_fabrics_object_set_state (GstMxlFabricsObject * obj,
    GstMxlFabricsConnectionState state, const gchar * target_id,
    const gchar * reason)
{
  post_connection (obj, state, target_id, state, reason, FALSE);
}

void
gst_mxl_fabrics_object_post_target_change (GstMxlFabricsObject * obj,
    GstMxlFabricsConnectionState state, const gchar * target_id,
    GstMxlFabricsConnectionState target_state, const gchar * reason)
{
  post_connection (obj, state, target_id, target_state, reason, TRUE);
}

void
gst_mxl_fabrics_object_set_last_error (GstMxlFabricsObject * obj,
    const gchar * text)
{
  GST_OBJECT_LOCK (obj->element);
  g_free (obj->last_error);
  obj->last_error = g_strdup (text);
  GST_OBJECT_UNLOCK (obj->element);
}

void
gst_mxl_fabrics_object_reset_stats (GstMxlFabricsObject * obj)
{
  GST_OBJECT_LOCK (obj->element);
  memset (&obj->counters, 0, sizeof obj->counters);
  obj->n_latency = obj->latency_next = 0;
  g_clear_pointer (&obj->engine_stats, gst_structure_free);
  g_clear_pointer (&obj->last_error, g_free);
  obj->error_posted = FALSE;
  GST_OBJECT_UNLOCK (obj->element);
}

GstMxlFabricsConnectionState
gst_mxl_fabrics_object_get_state (GstMxlFabricsObject * obj)
{
  GstMxlFabricsConnectionState state;

  GST_OBJECT_LOCK (obj->element);
  state = obj->state;
  GST_OBJECT_UNLOCK (obj->element);
  return state;
}

void
gst_mxl_fabrics_object_post_target_info (GstMxlFabricsObject * obj,
    const gchar * target_info)
{
  GST_LOG_OBJECT (obj->element, "TargetInfo ready (%" G_GSIZE_FORMAT
      " bytes)", strlen (target_info));
  gst_element_post_message (obj->element,
      gst_message_new_element (GST_OBJECT (obj->element),
          gst_structure_new (GST_MXL_FABRICS_MESSAGE_TARGET_INFO,
              "target-info", G_TYPE_STRING, target_info, NULL)));
}

void
gst_mxl_fabrics_object_post_timeout (GstMxlFabricsObject * obj,
    GstClockTime timeout, guint64 last_index)
{
  GST_OBJECT_LOCK (obj->element);
  obj->counters.timeouts++;
  GST_OBJECT_UNLOCK (obj->element);
  gst_element_post_message (obj->element,
      gst_message_new_element (GST_OBJECT (obj->element),
          gst_structure_new (GST_MXL_FABRICS_MESSAGE_TIMEOUT,
              "timeout", G_TYPE_UINT64, (guint64) timeout,
              "last-index", G_TYPE_UINT64, last_index, NULL)));
}

void
gst_mxl_fabrics_object_post_bad_input (GstMxlFabricsObject * obj,
    guint64 bad_immediate_data, guint64 bad_grain_headers,
    guint64 bad_bounce_entries)
{
  GST_WARNING_OBJECT (obj->element, "rejected input from the network: "
      "%" G_GUINT64_FORMAT " bad immediate data, %" G_GUINT64_FORMAT
      " bad grain headers, %" G_GUINT64_FORMAT " bad bounce entries so far",
      bad_immediate_data, bad_grain_headers, bad_bounce_entries);
  gst_element_post_message (obj->element,
      gst_message_new_element (GST_OBJECT (obj->element),
          gst_structure_new (GST_MXL_FABRICS_MESSAGE_BAD_INPUT,
              "bad-immediate-data", G_TYPE_UINT64, bad_immediate_data,
              "bad-grain-headers", G_TYPE_UINT64, bad_grain_headers,
              "bad-bounce-entries", G_TYPE_UINT64, bad_bounce_entries,
              NULL)));
}

void
gst_mxl_fabrics_object_count_anc_dropped (GstMxlFabricsObject * obj,
    guint64 n, const gchar * what)
{
  guint64 before;

  GST_OBJECT_LOCK (obj->element);
  before = obj->counters.anc_packets_dropped;
  obj->counters.anc_packets_dropped += n;
  GST_OBJECT_UNLOCK (obj->element);
  GST_WARNING_OBJECT (obj->element, "%s", what);
  if (before > 0)
    return;
  gst_mxl_fabrics_object_set_last_error (obj, what);
  GST_ELEMENT_WARNING (obj->element, STREAM, FORMAT, ("ANC packets dropped"),
      ("%s; later drops are counted in anc-packets-dropped (stats) and "
          "logged, not posted (docs/anc-data.md)", what));
}

void
gst_mxl_fabrics_object_post_error (GstMxlFabricsObject * obj,
    const GError * error, const gchar * debug)
{
  gst_mxl_fabrics_object_set_last_error (obj, error->message);
  GST_OBJECT_LOCK (obj->element);
  obj->error_posted = TRUE;
  GST_OBJECT_UNLOCK (obj->element);
  gst_element_message_full (obj->element, GST_MESSAGE_ERROR, error->domain,
      error->code, g_strdup (error->message), g_strdup (debug), __FILE__,
      GST_FUNCTION, __LINE__);
  gst_mxl_fabrics_object_set_state (obj, GST_MXL_FABRICS_CONNECTION_ERROR,
      NULL, error->message);
}

gboolean
gst_mxl_fabrics_object_post_message (GstMxlFabricsObject * obj,
    GstElementClass * parent_class, GstMessage * message)
{
  gboolean fallback = FALSE;

  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR
      && GST_MESSAGE_SRC (message) == GST_OBJECT (obj->element)) {
    GError *error = NULL;

    gst_message_parse_error (message, &error, NULL);
    GST_OBJECT_LOCK (obj->element);
    fallback = obj->error_posted
        && g_error_matches (error, GST_CORE_ERROR, GST_CORE_ERROR_STATE_CHANGE);
    if (fallback)
      obj->error_posted = FALSE;
    GST_OBJECT_UNLOCK (obj->element);
    g_error_free (error);
  }
  if (fallback) {
    GST_DEBUG_OBJECT (obj->element, "dropped the base class's fallback ERROR: "
        "ours was posted");
    gst_message_unref (message);
    return FALSE;
  }
  return parent_class->post_message (obj->element, message);
}

gboolean
gst_mxl_fabrics_load_value (const gchar * value, gchar ** contents,
    GError ** error)
{
  const gchar *path;
  char *data = NULL, *reason = NULL;
  mxlStatus st;

  *contents = NULL;
  if (value == NULL)
    value = "";
  if (value[0] != '@') {
    *contents = g_strdup (value);
    return TRUE;
  }
  path = value + 1;
  st = mxlFabricsExtReadUserFile (path, &data, NULL, &reason);
  if (st == MXL_STATUS_OK) {
    *contents = g_strdup (data);
    free (data);
    return TRUE;
  }
  if (st == MXL_ERR_INVALID_ARG)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
        "cannot read \"%s\": larger than %u bytes, the limit of an @path "
        "value", path, GST_MXL_FABRICS_MAX_FILE_BYTES);
  else
    g_set_error (error, GST_RESOURCE_ERROR, st == MXL_ERR_NOT_FOUND ?
        GST_RESOURCE_ERROR_NOT_FOUND : GST_RESOURCE_ERROR_READ,
        "cannot read \"%s\": %s", path, reason ? reason : "read error");
  free (reason);
  return FALSE;
}

gchar *
gst_mxl_fabrics_target_info_to_json (mxlFabricsTargetInfo info)
{
  size_t size = 0;
  gchar *json;

  if (mxlFabricsTargetInfoToString (info, NULL, &size) != MXL_STATUS_OK
      || size == 0)
    return NULL;
  json = g_malloc (size);
  if (mxlFabricsTargetInfoToString (info, json, &size) == MXL_STATUS_OK)
    return json;
  g_free (json);
  return NULL;
}

gboolean
gst_mxl_fabrics_target_info_resolve (const gchar * value,
    GstMxlFabricsTargetInfoSource * source, gchar ** json, gchar ** path,
    guint64 * id, GError ** error)
{
  return gst_mxl_fabrics_target_info_resolve_parsed (value, source, json,
      path, id, NULL, error);
}

gboolean
gst_mxl_fabrics_target_info_resolve_parsed (const gchar * value,
    GstMxlFabricsTargetInfoSource * source, gchar ** json, gchar ** path,
    guint64 * id, mxlFabricsTargetInfo * parsed, GError ** error)
{
  mxlFabricsTargetInfo info = NULL;
  char *reason = NULL;
  const gchar *p;
  gboolean file;
  mxlStatus st;
  uint64_t v = 0;

  *json = NULL;
  if (path)
    *path = NULL;
  if (id)
    *id = 0;
  if (parsed)
    *parsed = NULL;
  if (value == NULL || value[0] == '\0') {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "empty TargetInfo: give the JSON, its base64, or @path of the file "
        "the src writes (target-info-file)");
    return FALSE;
  }
  for (p = value; g_ascii_isspace (*p); p++);
  file = *p == '@';
  if (source)
    *source = file ? GST_MXL_FABRICS_TARGET_INFO_FILE : *p == '{' ?
        GST_MXL_FABRICS_TARGET_INFO_JSON : GST_MXL_FABRICS_TARGET_INFO_BASE64;

  /* The library's resolver: bounded file read, strict base64, the
   * document checked (mxlFabricsExtTargetInfoFromUserString()). */
  st = mxlFabricsExtTargetInfoFromUserString (value, &info, &reason);
  if (st == MXL_ERR_NOT_FOUND && file) {
    free (reason);
    if (path)
      *path = g_strdup (p + 1);
    return TRUE;                /* not written yet: wait for it */
  }
  if (st != MXL_STATUS_OK) {
    if (st == MXL_ERR_INVALID_ARG)
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "malformed TargetInfo (%s): give the src's target-info or @ its "
          "target-info-file", reason ? reason : "not a TargetInfo");
    else
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
          "%s", reason ? reason : "cannot read the TargetInfo file");
    free (reason);
    return FALSE;
  }
  st = mxlFabricsExtTargetInfoGetId (info, &v);
  /* The document as the library writes it: one text per target, whatever
   * form it was given in. */
  *json = st == MXL_STATUS_OK ? gst_mxl_fabrics_target_info_to_json (info) :
      NULL;
  if (*json == NULL || parsed == NULL)
    mxlFabricsFreeTargetInfo (info);
  else
    *parsed = info;
  if (*json == NULL) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "TargetInfo cannot be %s", st == MXL_STATUS_OK ?
        "written back as JSON" : "used: the library gives no id for it");
    return FALSE;
  }
  if (id)
    *id = v;
  if (path && file)
    *path = g_strdup (p + 1);
  return TRUE;
}
