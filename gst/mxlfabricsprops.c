/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The properties both elements share (mxlfabricsobject.h): the provider
 * enum type (from the library's provider list) and the connection-state
 * enum type (the elements' own states: the library's
 * mxlFabricsExtConnectionState has no stalled or error), the property
 * specs with their blurbs (built from the library's provider, protocol and
 * options lists), and the field tables that store the elements' properties
 * (GstMxlFabricsPropField).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mxlfabricsobject.h"

#include <mxl/fabrics-ext.h>

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

/* The protocol key's help: the library's names in its order and the
 * src's automatic choice by target rank (mxlFabricsExtGetProtocol()). */
static void
append_protocols (GString * s)
{
  mxlFabricsExtProtocolInfo info;
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
      "TargetInfo");
}

/* The options property's help, one entry per key of the library's options
 * table (mxlFabricsExtGetOption(): type, meaning, its defaults on a target,
 * the src, and an initiator, the sink), except "reconnect", which the sink
 * sets from its auto-reconnect. The elements' own default of
 * "progressThread" (mxlfabricsopen.c) replaces the library's. Interned:
 * kept for the life of the process, as G_PARAM_STATIC_STRINGS requires. */
static const gchar *
options_blurb (void)
{
  mxlFabricsExtOptionInfo o;
  GString *s = g_string_new ("JSON object passed to the fabrics setup: ");
  const gchar *blurb;
  size_t i, listed = 0;

  for (i = 0; mxlFabricsExtGetOption (i, &o) == MXL_STATUS_OK; i++) {
    const gchar *src = o.targetDefault, *sink = o.initiatorDefault;

    if (g_str_equal (o.name, "reconnect"))
      continue;
    g_string_append_printf (s, "%s%s (%s: %s", listed++ ? ", " : "", o.name,
        o.type, o.meaning);
    if (g_str_equal (o.name, "protocol")) {
      g_string_append (s, ", ");
      append_protocols (s);
    } else if (g_str_equal (o.name, "progressThread")) {
      g_string_append_printf (s, "; src default %s, sink %s",
          GST_MXL_FABRICS_SRC_PROGRESS_THREAD ? "true" : "false",
          GST_MXL_FABRICS_SINK_PROGRESS_THREAD ? "true" : "false");
    } else if (src && sink && g_str_equal (src, sink)) {
      g_string_append_printf (s, "; default %s", src);
    } else {
      g_string_append (s, ";");
      if (src)
        g_string_append_printf (s, " src default %s", src);
      if (sink)
        g_string_append_printf (s, "%s sink default %s", src ? "," : "", sink);
    }
    g_string_append_c (s, ')');
  }
  g_string_append (s, "; empty means the library defaults. Default: \"\"");
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
          "Local bind address: an IP address or a host name (resolved at "
          "start, at most 2 s) for tcp and verbs, GID for efa, a "
          "name for shm; empty means automatic: the first non-loopback "
          "address libfabric lists for the provider (tcp, verbs, efa), or a "
          "name unique to the element (shm, \"mxlfabrics-<pid>-<n>\"). "
          "On shm the node names a receiver's endpoint (its file in "
          "/dev/shm, one receiver each); the sink's connections name their "
          "own. Default: \"\"",
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
    case G_TYPE_UINT64:
      if (in)
        *(guint64 *) p = g_value_get_uint64 (in);
      else
        g_value_set_uint64 (out, *(guint64 *) p);
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
