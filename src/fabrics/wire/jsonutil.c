/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fabrics/wire/jsonutil.h"

#include <gio/gio.h>
#include <math.h>

/* Scans @text for the deepest [ / { nesting outside strings. Malformed
 * text is left for the parser to report; only depth is judged here. */
static gboolean
depth_within (const char *text, guint max_depth)
{
  guint depth = 0;
  gboolean in_string = FALSE;
  const char *p;

  for (p = text; *p != '\0'; p++) {
    if (in_string) {
      if (*p == '\\' && p[1] != '\0')
        p++;
      else if (*p == '"')
        in_string = FALSE;
      continue;
    }
    switch (*p) {
      case '"':
        in_string = TRUE;
        break;
      case '[':
      case '{':
        if (++depth > max_depth)
          return FALSE;
        break;
      case ']':
      case '}':
        if (depth > 0)
          depth--;
        break;
      default:
        break;
    }
  }
  return TRUE;
}

JsonObject *
mxl_json_parse_object (const char *text, const char *what, GError **error)
{
  g_autoptr (JsonParser) parser = NULL;
  g_autoptr (GError) parse_error = NULL;
  JsonNode *root;

  if (text == NULL) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
        "%s: no document", what);
    return NULL;
  }
  if (!depth_within (text, MXL_JSON_MAX_DEPTH)) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
        "%s: JSON nested deeper than %d levels", what, MXL_JSON_MAX_DEPTH);
    return NULL;
  }
  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, text, -1, &parse_error)) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
        "%s: not valid JSON: %s", what, parse_error->message);
    return NULL;
  }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root)) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
        "%s: the JSON root must be an object", what);
    return NULL;
  }
  return json_object_ref (json_node_get_object (root));
}

GType
mxl_json_value_type (JsonNode *node)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return G_TYPE_INVALID;
  return json_node_get_value_type (node);
}

gboolean
mxl_json_node_to_uint64 (JsonNode *node, guint64 *out)
{
  GType type = mxl_json_value_type (node);

  if (type == G_TYPE_INT64) {
    gint64 v = json_node_get_int (node);
    if (v < 0)
      return FALSE;
    *out = (guint64) v;
    return TRUE;
  }
  if (type == G_TYPE_DOUBLE) {
    double d = json_node_get_double (node);
    /* 2^64 is exactly representable; anything at or above it does not fit. */
    if (!isfinite (d) || d < 0.0 || d >= 18446744073709551616.0 || floor (d) != d)
      return FALSE;
    *out = (guint64) d;
    return TRUE;
  }
  return FALSE;
}
