/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Common properties, connection state, messages and stats of the two
 * mxlfabrics elements; see mxlfabricsobject.h.
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

/* The library's automatic order (mxlFabricsExtGetProvider(), autoRank 1
 * first) as "efa, verbs, tcp, shm", interned: kept for the life of the
 * process, as the enum values and the static property blurbs require. */
static const gchar *
provider_auto_order (void)
{
  mxlFabricsExtProviderInfo info;
  GString *order = g_string_new (NULL);
  const gchar *interned;
  guint32 rank, max_rank = 0;
  size_t i;

  for (i = 0; mxlFabricsExtGetProvider (i, &info) == MXL_STATUS_OK; i++)
    max_rank = MAX (max_rank, info.autoRank);
  for (rank = 1; rank <= max_rank; rank++)
    for (i = 0; mxlFabricsExtGetProvider (i, &info) == MXL_STATUS_OK; i++)
      if (info.autoRank == rank)
        g_string_append_printf (order, "%s%s", order->len ? ", " : "",
            info.name);
  interned = g_intern_string (order->str);
  g_string_free (order, TRUE);
  return interned;
}

/* The values: auto, then the providers the library knows
 * (mxlFabricsExtGetProvider()), with the library's names as nicks and its
 * descriptions; auto's description lists the library's automatic order.
 * Built once, kept for the life of the process as GLib requires. */
static GEnumValue *
provider_enum_values (void)
{
  mxlFabricsExtProviderInfo info;
  GArray *values = g_array_new (TRUE, TRUE, sizeof (GEnumValue));
  size_t i;
  GEnumValue v;

  v.value = GST_MXL_FABRICS_PROVIDER_AUTO;
  v.value_name = g_strdup_printf ("Best interface present: %s in that order",
      provider_auto_order ());
  v.value_nick = "auto";
  g_array_append_val (values, v);
  for (i = 0; mxlFabricsExtGetProvider (i, &info) == MXL_STATUS_OK; i++) {
    v.value = (gint) info.provider;
    v.value_name = info.description;
    v.value_nick = info.name;
    g_array_append_val (values, v);
  }
  return (GEnumValue *) g_array_free (values, FALSE);
}

GType
gst_mxl_fabrics_provider_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstMxlFabricsProvider",
        provider_enum_values ());
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_mxl_fabrics_connection_state_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_MXL_FABRICS_CONNECTION_DISCONNECTED, "Not connected",
        "disconnected"},
    {GST_MXL_FABRICS_CONNECTION_LISTENING, "Target ready, waiting for an "
          "initiator", "listening"},
    {GST_MXL_FABRICS_CONNECTION_CONNECTING, "Connecting to a target",
        "connecting"},
    {GST_MXL_FABRICS_CONNECTION_CONNECTED, "Connected", "connected"},
    {GST_MXL_FABRICS_CONNECTION_STALLED, "Connected, but no data for "
          "longer than the timeout", "stalled"},
    {GST_MXL_FABRICS_CONNECTION_ERROR, "Fatal error", "error"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstMxlFabricsConnectionState", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

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
  obj->target_stats =
      g_ptr_array_new_with_free_func ((GDestroyNotify) gst_structure_free);
  g_mutex_init (&obj->lock);
  g_cond_init (&obj->cond);
  return obj;
}

void
gst_mxl_fabrics_object_free (GstMxlFabricsObject * obj)
{
  if (obj == NULL)
    return;
  g_free (obj->node);
  g_free (obj->service);
  g_free (obj->domain);
  g_free (obj->flow_id);
  g_free (obj->options);
  g_ptr_array_unref (obj->target_stats);
  if (obj->engine_stats)
    gst_structure_free (obj->engine_stats);
  g_free (obj->last_error);
  g_mutex_clear (&obj->lock);
  g_cond_clear (&obj->cond);
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

/* The options property's help. The protocols and the src's automatic
 * choice come from the library's list (mxlFabricsExtGetProtocol(): names in
 * its order, the choice by target rank). Interned: kept for the life of the
 * process, as G_PARAM_STATIC_STRINGS requires. */
static const gchar *
options_blurb (void)
{
  mxlFabricsExtProtocolInfo info;
  GString *s = g_string_new ("JSON object passed to the fabrics setup: "
      "cqDepth (completion queue entries), protocol (");
  const gchar *blurb;
  guint32 rank, max_rank = 0;
  size_t i, n, listed = 0;

  for (n = 0; mxlFabricsExtGetProtocol (n, &info) == MXL_STATUS_OK; n++)
    max_rank = MAX (max_rank, info.targetRank);
  for (i = 0; i < n && mxlFabricsExtGetProtocol (i, &info) == MXL_STATUS_OK; i++)
    g_string_append_printf (s, "%s\"%s\"", i == 0 ? "" : i + 1 == n ? " or " : ", ",
        info.name);
  g_string_append (s, "; unset: ");
  for (rank = 0; rank <= max_rank; rank++)
    for (i = 0; i < n && mxlFabricsExtGetProtocol (i, &info) == MXL_STATUS_OK; i++)
      if (info.targetRank == rank) {
        g_string_append_printf (s, "%s%s where %s offers %s", listed ? ", else " : "",
            info.name, listed ? "it" : "the provider", info.capability);
        listed++;
      }
  g_string_append (s, "; on the src it decides, the sink follows its "
      "TargetInfo), progressThread (boolean: the library's progress thread; "
      "src default true, sink false), postRingCapacity (entries, power of "
      "two), maxMessageSize (bytes), iovLimit (entries), samplesStaging "
      "(boolean, audio: one write per batch, default true), exclusive "
      "(boolean, src: one sender at a time, default true; false lets several "
      "senders write into the flow); empty means the library defaults. "
      "Default: \"\"");
  blurb = g_intern_string (s->str);
  g_string_free (s, TRUE);
  return blurb;
}

/* The provider property's blurb, with the library's automatic order;
 * interned (the property's strings are static). */
static const gchar *
provider_blurb (void)
{
  gchar *blurb = g_strdup_printf ("libfabric provider: auto picks the best "
      "interface present (%s in that order). Default: auto",
      provider_auto_order ());
  const gchar *interned = g_intern_string (blurb);

  g_free (blurb);
  return interned;
}

#define SETTING_FLAGS \
  (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)
#define READ_ONLY_FLAGS (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)

void
gst_mxl_fabrics_object_install_properties (GObjectClass * klass)
{
  g_object_class_install_property (klass, GST_MXL_FABRICS_PROP_PROVIDER,
      g_param_spec_enum ("provider", "Provider",
          provider_blurb (),
          GST_TYPE_MXL_FABRICS_PROVIDER, GST_MXL_FABRICS_DEFAULT_PROVIDER,
          SETTING_FLAGS));
  g_object_class_install_property (klass, GST_MXL_FABRICS_PROP_NODE,
      g_param_spec_string ("node", "Node",
          "Local bind address: numeric IP for tcp and verbs, GID for efa, a "
          "name for shm; empty means automatic: the first non-loopback "
          "address libfabric lists for the provider (tcp, verbs, efa), or a "
          "name unique to the element (shm, \"mxlfabrics-<pid>-<n>\"). "
          "Default: \"\"",
          GST_MXL_FABRICS_DEFAULT_NODE, SETTING_FLAGS));
  g_object_class_install_property (klass, GST_MXL_FABRICS_PROP_SERVICE,
      g_param_spec_string ("service", "Service",
          "Local bind port (tcp, verbs): a number 0 … 65535 or a service "
          "name of /etc/services (e.g. \"http\"); empty means automatic (an "
          "ephemeral port). Default: \"\"",
          GST_MXL_FABRICS_DEFAULT_SERVICE, SETTING_FLAGS));
  g_object_class_install_property (klass, GST_MXL_FABRICS_PROP_DOMAIN,
      g_param_spec_string ("domain", "Domain",
          "MXL domain directory holding the flow (e.g. /dev/shm/mxl, on "
          "tmpfs); empty means a private flow in a temporary domain removed "
          "at stop. Default: \"\"", GST_MXL_FABRICS_DEFAULT_DOMAIN,
          SETTING_FLAGS));
  g_object_class_install_property (klass, GST_MXL_FABRICS_PROP_FLOW_ID,
      g_param_spec_string ("flow-id", "Flow id",
          "MXL flow id, a UUID (8-4-4-4-12 hex digits); empty means random "
          "(sink) or the id in flow-def (src). Default: \"\"",
          GST_MXL_FABRICS_DEFAULT_FLOW_ID, SETTING_FLAGS));
  g_object_class_install_property (klass, GST_MXL_FABRICS_PROP_OPTIONS,
      g_param_spec_string ("options", "Options", options_blurb (),
          GST_MXL_FABRICS_DEFAULT_OPTIONS, SETTING_FLAGS));
  g_object_class_install_property (klass,
      GST_MXL_FABRICS_PROP_CONNECTION_STATE,
      g_param_spec_enum ("connection-state", "Connection state",
          "Connection state, read-only, notified on every change (also "
          "posted as mxl-fabrics-connection). Default: disconnected",
          GST_TYPE_MXL_FABRICS_CONNECTION_STATE,
          GST_MXL_FABRICS_CONNECTION_DISCONNECTED, READ_ONLY_FLAGS));
  /* Overrides GstBaseSink's "stats" on the sink (as srtsink does). */
  g_object_class_install_property (klass, GST_MXL_FABRICS_PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Transfer statistics, read-only: structure " GST_MXL_FABRICS_STATS_NAME
          " with counters of buffers, grains (or sample batches) and bytes, "
          "dropped, invalid, discont, reconnects, timeouts, and per-target "
          "entries on the sink. Default: all counters 0",
          GST_TYPE_STRUCTURE, READ_ONLY_FLAGS));

  gst_type_mark_as_plugin_api (GST_TYPE_MXL_FABRICS_PROVIDER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_MXL_FABRICS_CONNECTION_STATE, 0);
}

static void
replace_string (gchar ** field, const GValue * value)
{
  const gchar *s = g_value_get_string (value);

  g_free (*field);
  *field = g_strdup (s ? s : "");
}

/* One get or set (@in NULL: get into @out) of a field property, under
 * @lock's object lock. */
static gboolean
field_access (GstObject * lock, gpointer base,
    const GstMxlFabricsPropField * fields, guint n, guint prop_id,
    const GValue * in, GValue * out)
{
  gpointer p = NULL;
  guint i;

  for (i = 0; i < n && p == NULL; i++)
    if (fields[i].prop_id == prop_id)
      p = G_STRUCT_MEMBER_P (base, fields[i].offset);
  if (p == NULL)
    return FALSE;
  GST_OBJECT_LOCK (lock);
  switch (fields[i - 1].type) {
    case G_TYPE_STRING:
      if (in)
        replace_string (p, in);
      else
        g_value_set_string (out, *(gchar **) p);
      break;
    case G_TYPE_BOOLEAN:
      if (in)
        *(gboolean *) p = g_value_get_boolean (in);
      else
        g_value_set_boolean (out, *(gboolean *) p);
      break;
    case G_TYPE_UINT:
      if (in)
        *(guint *) p = g_value_get_uint (in);
      else
        g_value_set_uint (out, *(guint *) p);
      break;
    default:                   /* G_TYPE_ENUM */
      if (in)
        *(gint *) p = g_value_get_enum (in);
      else
        g_value_set_enum (out, *(gint *) p);
      break;
  }
  GST_OBJECT_UNLOCK (lock);
  return TRUE;
}

gboolean
gst_mxl_fabrics_prop_fields_set (GstObject * lock, gpointer base,
    const GstMxlFabricsPropField * fields, guint n, guint prop_id,
    const GValue * value)
{
  return field_access (lock, base, fields, n, prop_id, value, NULL);
}

gboolean
gst_mxl_fabrics_prop_fields_get (GstObject * lock, gpointer base,
    const GstMxlFabricsPropField * fields, guint n, guint prop_id,
    GValue * value)
{
  return field_access (lock, base, fields, n, prop_id, NULL, value);
}

#define OBJ_FIELD(id, type, member) \
  { GST_MXL_FABRICS_PROP_##id, type, G_STRUCT_OFFSET (GstMxlFabricsObject, member) }
static const GstMxlFabricsPropField object_fields[] = {
  OBJ_FIELD (PROVIDER, G_TYPE_ENUM, provider),
  OBJ_FIELD (NODE, G_TYPE_STRING, node),
  OBJ_FIELD (SERVICE, G_TYPE_STRING, service),
  OBJ_FIELD (DOMAIN, G_TYPE_STRING, domain),
  OBJ_FIELD (FLOW_ID, G_TYPE_STRING, flow_id),
  OBJ_FIELD (OPTIONS, G_TYPE_STRING, options),
  OBJ_FIELD (CONNECTION_STATE, G_TYPE_ENUM, state),     /* read-only */
};

gboolean
gst_mxl_fabrics_object_set_property (GstMxlFabricsObject * obj,
    guint prop_id, const GValue * value)
{
  return gst_mxl_fabrics_prop_fields_set (GST_OBJECT (obj->element), obj,
      object_fields, G_N_ELEMENTS (object_fields), prop_id, value);
}

gboolean
gst_mxl_fabrics_object_get_property (GstMxlFabricsObject * obj,
    guint prop_id, GValue * value)
{
  if (prop_id == GST_MXL_FABRICS_PROP_STATS) {
    g_value_take_boxed (value, gst_mxl_fabrics_object_build_stats (obj));
    return TRUE;
  }
  return gst_mxl_fabrics_prop_fields_get (GST_OBJECT (obj->element), obj,
      object_fields, G_N_ELEMENTS (object_fields), prop_id, value);
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
  g_ptr_array_set_size (obj->target_stats, 0);
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
  GError *file_error = NULL;

  *contents = NULL;
  if (value == NULL)
    value = "";
  if (value[0] != '@') {
    *contents = g_strdup (value);
    return TRUE;
  }
  if (!g_file_get_contents (value + 1, contents, NULL, &file_error)) {
    g_set_error (error, GST_RESOURCE_ERROR,
        g_error_matches (file_error, G_FILE_ERROR, G_FILE_ERROR_NOENT) ?
        GST_RESOURCE_ERROR_NOT_FOUND : GST_RESOURCE_ERROR_READ,
        "cannot read \"%s\": %s", value + 1, file_error->message);
    g_error_free (file_error);
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_mxl_fabrics_target_info_resolve (const gchar * value,
    GstMxlFabricsTargetInfoSource * source, gchar ** json, gchar ** path,
    GError ** error)
{
  mxlFabricsTargetInfo info = NULL;
  char *reason = NULL;
  const gchar *p;
  gboolean file;
  size_t size = 0;
  mxlStatus st;

  *json = NULL;
  if (path)
    *path = NULL;
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
  /* The document as the library writes it: one text per target, whatever
   * form it was given in. */
  if (mxlFabricsTargetInfoToString (info, NULL, &size) == MXL_STATUS_OK) {
    *json = g_malloc (size);
    if (mxlFabricsTargetInfoToString (info, *json, &size) != MXL_STATUS_OK)
      g_clear_pointer (json, g_free);
  }
  mxlFabricsFreeTargetInfo (info);
  if (*json == NULL) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "TargetInfo cannot be written back as JSON");
    return FALSE;
  }
  if (path && file)
    *path = g_strdup (p + 1);
  return TRUE;
}
