/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The mxlfabrics:// URI (mxlfabricsuri.h; the scheme: docs/getting-started.md
 * "3. URIs"). GstUri parses and percent-decodes; every value is turned into
 * its property's type by GStreamer's deserializer (enum nicks, numbers,
 * booleans, caps) and checked against the property's range, all before
 * the first property is set.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mxlfabricsuri.h"

#include <gst/base/gstbasesrc.h>

/* The query keys of each element, each the name of a property. The src's
 * authority is node:service (what it listens on); the sink's names the
 * receiver, kept with the element (PEER_KEY) for get_uri: the sink connects
 * to the address in its TargetInfo, which also carries the remote keys. */
static const gchar *const src_keys[] = {
  "provider", "flow-id", "domain", "options", "caps", "flow-def",
  "target-info-file", "timeout", "ring-length", "latency", NULL
};

static const gchar *const sink_keys[] = {
  "target-info", "provider", "node", "service", "flow-id", "domain",
  "options", "auto-reconnect", "wait-for-connection", "wait-timeout",
  "zero-copy", "error-on-all-failed", NULL
};

#define PEER_KEY "gst-mxl-fabrics-uri-peer"
/* Characters left unescaped in a built value besides RFC 3986 unreserved
 * ones: none of them ends a key or a value for GstUri. */
#define VALUE_CHARS_ALLOWED "/:@,"

static gboolean
is_src (GstElement * element)
{
  return GST_IS_BASE_SRC (element);
}

static const gchar *const *
element_keys (GstElement * element)
{
  return is_src (element) ? src_keys : sink_keys;
}

/* @text as the value of property @pspec into @value (initialised here).
 * A string is taken as it is; other types go through gst_value_deserialize
 * and must be within the property's range. */
static gboolean
value_from_text (GParamSpec * pspec, const gchar * text, GValue * value,
    GError ** error)
{
  GType type = G_PARAM_SPEC_VALUE_TYPE (pspec);

  g_value_init (value, type);
  if (type == G_TYPE_STRING) {
    g_value_set_string (value, text);
    return TRUE;
  }
  if (gst_value_deserialize (value, text)) {
    if (!g_param_value_validate (pspec, value))
      return TRUE;
    g_value_unset (value);
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
        "URI key %s: %s is out of the property's range", pspec->name, text);
    return FALSE;
  }
  g_value_unset (value);
  if (G_IS_PARAM_SPEC_ENUM (pspec)) {
    GEnumClass *klass = G_PARAM_SPEC_ENUM (pspec)->enum_class;
    GString *nicks = g_string_new (NULL);
    guint i;

    for (i = 0; i < klass->n_values; i++)
      g_string_append_printf (nicks, "%s%s", i ? ", " : "",
          klass->values[i].value_nick);
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
        "URI key %s: \"%s\" is not one of %s", pspec->name, text,
        nicks->str);
    g_string_free (nicks, TRUE);
  } else {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
        "URI key %s: \"%s\" is not a valid %s (see the property's help)",
        pspec->name, text, g_type_name (G_PARAM_SPEC_VALUE_TYPE (pspec)));
  }
  return FALSE;
}

/* The property values a URI sets, gathered before any is set. */
typedef struct {
  GPtrArray *names;             /* const gchar *, property names */
  GArray *values;               /* GValue */
  GstUri *peer;                 /* sink: the receiver's host and port */
} UriSettings;

static void
settings_add (UriSettings * s, GParamSpec * pspec, GValue * value)
{
  g_ptr_array_add (s->names, (gpointer) pspec->name);
  g_array_append_vals (s->values, value, 1);
}

static gboolean
settings_add_text (UriSettings * s, GstElement * element, const gchar * name,
    const gchar * text, GError ** error)
{
  GParamSpec *pspec =
      g_object_class_find_property (G_OBJECT_GET_CLASS (element), name);
  GValue value = G_VALUE_INIT;

  g_assert (pspec != NULL);
  if (!value_from_text (pspec, text, &value, error))
    return FALSE;
  settings_add (s, pspec, &value);
  return TRUE;
}

/* The default of every key @s does not set yet (so the URI alone decides). */
static void
settings_add_defaults (UriSettings * s, GstElement * element,
    const gchar * const *keys)
{
  guint i, k;

  for (k = 0; keys[k]; k++) {
    gboolean given = FALSE;
    GParamSpec *pspec;
    GValue value = G_VALUE_INIT;

    for (i = 0; i < s->names->len && !given; i++)
      given = g_str_equal (g_ptr_array_index (s->names, i), keys[k]);
    if (given)
      continue;
    pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (element),
        keys[k]);
    g_value_init (&value, G_PARAM_SPEC_VALUE_TYPE (pspec));
    g_param_value_set_default (pspec, &value);
    settings_add (s, pspec, &value);
  }
}

static gboolean
bad_uri (GError ** error, const gchar * uri, const gchar * why)
{
  g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_URI,
      "URI \"%s\": %s", uri, why);
  return FALSE;
}

/* The authority: the src's node and service, the sink's peer (a URI of
 * the scheme, host and port only). */
static gboolean
parse_authority (UriSettings * s, GstElement * element, GstUri * u,
    const gchar * uri, GError ** error)
{
  const gchar *host = gst_uri_get_host (u);
  guint port = gst_uri_get_port (u);        /* GST_URI_NO_PORT (0): none */
  gchar *service;
  gboolean ok;

  if (port > 65535)
    return bad_uri (error, uri, "the port must be 0 ... 65535");
  if (!is_src (element)) {
    s->peer = gst_uri_new (GST_MXL_FABRICS_URI_SCHEME, NULL, host, port,
        NULL, NULL, NULL);
    return TRUE;
  }
  if (!settings_add_text (s, element, "node", host ? host : "", error))
    return FALSE;
  service = port ? g_strdup_printf ("%u", port) : g_strdup ("");
  ok = settings_add_text (s, element, "service", service, error);
  g_free (service);
  return ok;
}

/* The query: every key once, with a value, among @keys. */
static gboolean
parse_query (UriSettings * s, GstElement * element, GstUri * u,
    const gchar * uri, GError ** error)
{
  const gchar *const *keys = element_keys (element);
  GHashTable *query = gst_uri_get_query_table (u);
  gchar *raw = NULL, **pairs;
  guint n_pairs = 0, k;
  GHashTableIter it;
  gpointer key, text;
  gboolean ok = TRUE;

  /* GstUri keeps the last of a repeated key: count the pairs of the query
   * as written (GLib's URI splitter) to see one */
  g_uri_split (uri, G_URI_FLAGS_ENCODED_QUERY, NULL, NULL, NULL, NULL, NULL,
      &raw, NULL, NULL);
  pairs = raw ? g_strsplit (raw, "&", -1) : NULL;
  for (k = 0; pairs && pairs[k]; k++)
    n_pairs += *pairs[k] != '\0';
  if (query && g_hash_table_size (query) != n_pairs)
    ok = bad_uri (error, uri, "a key is given twice");
  if (query)
    g_hash_table_iter_init (&it, query);
  while (ok && query && g_hash_table_iter_next (&it, &key, &text)) {
    if (is_src (element) && g_str_equal (key, "service")) {
      /* a service name, which the port cannot hold (see uri_build) */
      if (gst_uri_get_port (u) != GST_URI_NO_PORT)
        ok = bad_uri (error, uri, "service is given as the port already");
      else
        ok = settings_add_text (s, element, key, text ? text : "", error);
    } else if (!g_strv_contains (keys, key)) {
      gchar *known = g_strjoinv (", ", (gchar **) keys);
      gchar *why = g_strdup_printf ("unknown key \"%s\" (known: %s)",
          (gchar *) key, known);

      ok = bad_uri (error, uri, why);
      g_free (why);
      g_free (known);
    } else if (text == NULL) {
      gchar *why = g_strdup_printf ("key \"%s\" has no value (or a bad "
          "%%-escape)", (gchar *) key);

      ok = bad_uri (error, uri, why);
      g_free (why);
    } else {
      ok = settings_add_text (s, element, key, text, error);
    }
  }
  if (ok && !is_src (element) && (query == NULL
          || g_hash_table_lookup (query, "target-info") == NULL))
    ok = bad_uri (error, uri, "the sink needs target-info (the TargetInfo "
        "as @path, JSON or base64, percent-encoded): an address alone "
        "carries no remote keys to write with");
  if (query)
    g_hash_table_unref (query);
  g_strfreev (pairs);
  g_free (raw);
  return ok;
}

gboolean
gst_mxl_fabrics_uri_apply (GstElement * element, const gchar * uri,
    GError ** error)
{
  UriSettings s = { g_ptr_array_new (), g_array_new (FALSE, TRUE,
        sizeof (GValue)), NULL };
  GstUri *u = NULL;
  gchar *path = NULL;
  GstState state;
  gboolean ok = FALSE;
  guint i;

  g_array_set_clear_func (s.values, (GDestroyNotify) g_value_unset);
  GST_OBJECT_LOCK (element);
  state = GST_STATE (element);
  GST_OBJECT_UNLOCK (element);
  if (state > GST_STATE_READY) {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_BAD_STATE,
        "the URI can only be set in state NULL or READY");
    goto done;
  }
  u = uri ? gst_uri_from_string (uri) : NULL;
  if (u == NULL) {
    bad_uri (error, uri ? uri : "(null)", "not a URI");
    goto done;
  }
  if (g_ascii_strcasecmp (gst_uri_get_scheme (u),
          GST_MXL_FABRICS_URI_SCHEME) != 0) {
    g_set_error (error, GST_URI_ERROR, GST_URI_ERROR_UNSUPPORTED_PROTOCOL,
        "URI \"%s\": the scheme is not " GST_MXL_FABRICS_URI_SCHEME, uri);
    goto done;
  }
  path = gst_uri_get_path (u);
  if (gst_uri_get_userinfo (u) || gst_uri_get_fragment (u)
      || (path && g_strcmp0 (path, "/"))) {
    bad_uri (error, uri, "user info, a path and a fragment are not part of "
        "the scheme (mxlfabrics://HOST:PORT?KEY=VALUE&...)");
    goto done;
  }
  if (!parse_authority (&s, element, u, uri, error)
      || !parse_query (&s, element, u, uri, error))
    goto done;
  settings_add_defaults (&s, element, element_keys (element));

  g_object_freeze_notify (G_OBJECT (element));
  for (i = 0; i < s.names->len; i++)
    g_object_set_property (G_OBJECT (element), g_ptr_array_index (s.names, i),
        &g_array_index (s.values, GValue, i));
  if (!is_src (element))
    g_object_set_data_full (G_OBJECT (element), PEER_KEY,
        g_steal_pointer (&s.peer), (GDestroyNotify) gst_uri_unref);
  g_object_thaw_notify (G_OBJECT (element));
  ok = TRUE;

done:
  g_free (path);
  if (u)
    gst_uri_unref (u);
  g_ptr_array_unref (s.names);
  g_array_unref (s.values);
  if (s.peer)
    gst_uri_unref (s.peer);
  return ok;
}

/* Property @name of @element as URI text, NULL when at its default. */
static gchar *
property_text (GstElement * element, const gchar * name)
{
  GParamSpec *pspec =
      g_object_class_find_property (G_OBJECT_GET_CLASS (element), name);
  GValue value = G_VALUE_INIT;
  gchar *text = NULL;

  g_value_init (&value, G_PARAM_SPEC_VALUE_TYPE (pspec));
  g_object_get_property (G_OBJECT (element), name, &value);
  /* caps as gst_caps_from_string() reads them (gst_value_serialize()
   * quotes them for a structure field) */
  if (g_param_value_defaults (pspec, &value))
    text = NULL;
  else if (G_VALUE_HOLDS_STRING (&value))
    text = g_value_dup_string (&value);
  else if (G_VALUE_HOLDS (&value, GST_TYPE_CAPS))
    text = gst_caps_to_string (gst_value_get_caps (&value));
  else
    text = gst_value_serialize (&value);
  g_value_unset (&value);
  return text;
}

gchar *
gst_mxl_fabrics_uri_build (GstElement * element)
{
  const gchar *const *keys = element_keys (element);
  GString *s = g_string_new (NULL);
  gchar *node = NULL, *service = NULL, *authority;
  GstUri *u;
  guint k;
  gchar sep = '?';

  if (is_src (element)) {
    guint64 port = 0;

    g_object_get (element, "node", &node, "service", &service, NULL);
    /* a service name (not a number) cannot be the port: it is a key */
    if (*service == '\0' || g_ascii_string_to_unsigned (service, 10, 1,
            65535, &port, NULL))
      g_clear_pointer (&service, g_free);
    u = gst_uri_new (GST_MXL_FABRICS_URI_SCHEME, NULL, *node ? node : NULL,
        (guint) port, NULL, NULL, NULL);
  } else {
    GstUri *peer = g_object_get_data (G_OBJECT (element), PEER_KEY);

    u = peer ? gst_uri_ref (peer) : gst_uri_new (GST_MXL_FABRICS_URI_SCHEME,
        NULL, NULL, GST_URI_NO_PORT, NULL, NULL, NULL);
  }
  /* "mxlfabrics:" without a host: keep the "//" of the scheme's form */
  authority = gst_uri_to_string (u);
  g_string_append (s, authority);
  if (gst_uri_get_host (u) == NULL && gst_uri_get_port (u) == GST_URI_NO_PORT)
    g_string_assign (s, GST_MXL_FABRICS_URI_SCHEME "://");
  g_free (authority);
  gst_uri_unref (u);
  for (k = 0; keys[k]; k++) {
    gchar *text = property_text (element, keys[k]);
    gchar *escaped;

    if (text == NULL)
      continue;
    escaped = g_uri_escape_string (text, VALUE_CHARS_ALLOWED, FALSE);
    g_string_append_printf (s, "%c%s=%s", sep, keys[k], escaped);
    sep = '&';
    g_free (escaped);
    g_free (text);
  }
  if (service) {
    gchar *escaped = g_uri_escape_string (service, NULL, FALSE);

    g_string_append_printf (s, "%cservice=%s", sep, escaped);
    g_free (escaped);
  }
  g_free (node);
  g_free (service);
  return g_string_free (s, FALSE);
}

void
gst_mxl_fabrics_uri_install_property (GObjectClass * klass, guint prop_id)
{
  g_object_class_install_property (klass, prop_id,
      g_param_spec_string ("uri", "URI",
          "The element's settings as one URI, mxlfabrics://HOST:PORT?KEY="
          "VALUE&... (src: HOST:PORT is node:service, what it listens on; "
          "sink: the receiver, and target-info is required); keys are "
          "property names, percent-encoded values; keys not given get "
          "their defaults. Read: the URI of the current settings. "
          "Default: mxlfabrics:// (all settings at their defaults)", NULL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
}

void
gst_mxl_fabrics_uri_set_property (GstElement * element, const GValue * value)
{
  GError *error = NULL;

  if (!gst_mxl_fabrics_uri_apply (element, g_value_get_string (value),
          &error)) {
    g_warning ("%s: uri not set: %s", GST_ELEMENT_NAME (element),
        error->message);
    g_error_free (error);
  }
}

void
gst_mxl_fabrics_uri_get_property (GstElement * element, GValue * value)
{
  g_value_take_string (value, gst_mxl_fabrics_uri_build (element));
}

static GstURIType
uri_get_type (GType type)
{
  return g_type_is_a (type, GST_TYPE_BASE_SRC) ? GST_URI_SRC : GST_URI_SINK;
}

static const gchar *const *
uri_get_protocols (GType type)
{
  static const gchar *const protocols[] = { GST_MXL_FABRICS_URI_SCHEME, NULL };

  return protocols;
}

static gchar *
uri_get_uri (GstURIHandler * handler)
{
  return gst_mxl_fabrics_uri_build (GST_ELEMENT (handler));
}

static gboolean
uri_set_uri (GstURIHandler * handler, const gchar * uri, GError ** error)
{
  return gst_mxl_fabrics_uri_apply (GST_ELEMENT (handler), uri, error);
}

void
gst_mxl_fabrics_uri_handler_init (gpointer g_iface, gpointer iface_data)
{
  GstURIHandlerInterface *iface = g_iface;

  iface->get_type = uri_get_type;
  iface->get_protocols = uri_get_protocols;
  iface->get_uri = uri_get_uri;
  iface->set_uri = uri_set_uri;
}
