/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * NMOS IS-04 flow definition parser and derived geometry
 * (docs/flow-format.md §2.1-§2.5, quirk policy §7.3).
 */
#include "flow/flowdef.h"

#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>
#include <mxl/flow-ext.h>

#include "flow/geometry.h"

#define GROUPHINT_TAG "urn:x-nmos:tag:grouphint/v1.0"
#define DATA_GRAIN_SLICES 4096u
#define MAX_CHANNELS ((guint) MXL_FLOW_MAX_CHANNELS)

G_DEFINE_QUARK (mxl-flow-def-error-quark, mxl_flow_def_error)

static gboolean
fail (GError **error, MxlFlowDefError code, const char *field,
    const char *fmt, ...) G_GNUC_PRINTF (4, 5);

static gboolean
fail (GError **error, MxlFlowDefError code, const char *field,
    const char *fmt, ...)
{
  va_list ap;
  char *reason;

  va_start (ap, fmt);
  reason = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, MXL_FLOW_DEF_ERROR, code, "flow definition: %s: %s",
      field, reason);
  g_free (reason);
  return FALSE;
}

/* A required member is absent: "flow definition: "id" is missing (a
 * required string)". */
static gboolean
missing (GError **error, const char *field, const char *kind)
{
  g_set_error (error, MXL_FLOW_DEF_ERROR, MXL_FLOW_DEF_ERROR_MISSING,
      "flow definition: \"%s\" is missing (a required %s)", field, kind);
  return FALSE;
}

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

gboolean
mxl_uuid_parse (const char *text, uint8_t out_bytes[16], char out_lower[37])
{
  uint8_t bytes[16];
  guint i, b = 0;

  if (text == NULL || strlen (text) != 36)
    return FALSE;
  for (i = 0; i < 36;) {
    int hi, lo;

    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-')
        return FALSE;
      i++;
      continue;
    }
    hi = hex_value (text[i]);
    lo = hex_value (text[i + 1]);
    if (hi < 0 || lo < 0)
      return FALSE;
    bytes[b++] = (uint8_t) (hi << 4 | lo);
    i += 2;
  }
  if (out_bytes)
    memcpy (out_bytes, bytes, 16);
  if (out_lower) {
    for (i = 0; i < 36; i++)
      out_lower[i] = g_ascii_tolower (text[i]);
    out_lower[36] = '\0';
  }
  return TRUE;
}

/* A JSON number (integer or float) of @obj, or FALSE with an error. */
static gboolean
get_number (JsonObject *obj, const char *field, const char *where,
    gboolean required, gboolean *present, double *out, GError **error)
{
  JsonNode *node = json_object_get_member (obj, field);
  GType t;

  *present = node != NULL;
  if (node == NULL) {
    if (required)
      return missing (error, where, "number");
    return TRUE;
  }
  t = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_INVALID;
  if (t != G_TYPE_INT64 && t != G_TYPE_DOUBLE)
    return fail (error, MXL_FLOW_DEF_ERROR_TYPE, where, "must be a number");
  *out = json_node_get_double (node);
  if (!isfinite (*out))
    return fail (error, MXL_FLOW_DEF_ERROR_VALUE, where, "must be finite");
  return TRUE;
}

static gboolean
get_string (JsonObject *obj, const char *field, const char **out,
    GError **error)
{
  JsonNode *node = json_object_get_member (obj, field);

  if (node == NULL)
    return missing (error, field, "string");
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return fail (error, MXL_FLOW_DEF_ERROR_TYPE, field, "must be a string");
  *out = json_node_get_string (node);
  return TRUE;
}

static gboolean
get_rational (JsonObject *root, const char *field, mxlRational *out,
    GError **error)
{
  JsonNode *node = json_object_get_member (root, field);
  JsonObject *obj;
  char *where;
  gboolean present, ok;
  double num = 0, den = 1;
  int64_t a, b, g;

  if (node == NULL)
    return missing (error, field, "rational");
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return fail (error, MXL_FLOW_DEF_ERROR_TYPE, field, "must be an object");
  obj = json_node_get_object (node);
  where = g_strdup_printf ("%s.numerator", field);
  ok = get_number (obj, "numerator", where, TRUE, &present, &num, error);
  g_free (where);
  if (!ok)
    return FALSE;
  where = g_strdup_printf ("%s.denominator", field);
  ok = get_number (obj, "denominator", where, FALSE, &present, &den, error);
  g_free (where);
  if (!ok)
    return FALSE;
  /* §2.2 [Q] not reproduced: zero or negative rates are refused */
  if (num < 1 || num > (double) INT32_MAX * 1000 || den < 1
      || den > (double) INT32_MAX * 1000)
    return fail (error, MXL_FLOW_DEF_ERROR_VALUE, field,
        "numerator %g and denominator %g must be integers > 0", num, den);
  a = (int64_t) num;
  b = (int64_t) den;
  g = a;
  for (int64_t r = b; r != 0;) {
    int64_t t = g % r;
    g = r;
    r = t;
  }
  out->numerator = a / g;
  out->denominator = b / g;
  return TRUE;
}

static gboolean
check_grouphint (const char *hint, guint index, GError **error)
{
  char **parts = g_strsplit (hint, ":", -1);
  guint n = g_strv_length (parts);
  gboolean ok = (n == 2 || n == 3) && parts[0][0] != '\0' && parts[1][0] != '\0'
      && (n == 2 || strcmp (parts[2], "device") == 0 || strcmp (parts[2], "node") == 0);

  g_strfreev (parts);
  if (!ok)
    return fail (error, MXL_FLOW_DEF_ERROR_VALUE, "tags." GROUPHINT_TAG,
        "grouphint entry %u \"%s\" is not group:role or group:role:device|node",
        index, hint);
  return TRUE;
}

static gboolean
parse_common (JsonObject *root, MxlFlowDef *def, GError **error)
{
  const char *s;
  JsonNode *node;
  JsonArray *hints;
  guint i;

  if (!get_string (root, "id", &s, error))
    return FALSE;
  if (!mxl_uuid_parse (s, def->id, def->id_text))
    return fail (error, MXL_FLOW_DEF_ERROR_VALUE, "id", "\"%s\" is not a UUID", s);

  if (!get_string (root, "format", &s, error))
    return FALSE;
  if (strcmp (s, "urn:x-nmos:format:video") == 0)
    def->format = MXL_DATA_FORMAT_VIDEO;
  else if (strcmp (s, "urn:x-nmos:format:audio") == 0)
    def->format = MXL_DATA_FORMAT_AUDIO;
  else if (strcmp (s, "urn:x-nmos:format:data") == 0)
    def->format = MXL_DATA_FORMAT_DATA;
  else
    return fail (error, MXL_FLOW_DEF_ERROR_VALUE, "format", "\"%s\" is not video, audio or data", s);

  if (!get_string (root, "label", &s, error))
    return FALSE;
  if (s[0] == '\0')
    return fail (error, MXL_FLOW_DEF_ERROR_VALUE, "label", "must not be empty");

  node = json_object_get_member (root, "tags");
  if (node == NULL)
    return missing (error, "tags", "object");
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return fail (error, MXL_FLOW_DEF_ERROR_TYPE, "tags", "must be an object");
  node = json_object_get_member (json_node_get_object (node), GROUPHINT_TAG);
  if (node == NULL)
    return missing (error, "tags." GROUPHINT_TAG, "array");
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return fail (error, MXL_FLOW_DEF_ERROR_TYPE, "tags." GROUPHINT_TAG, "must be an array");
  hints = json_node_get_array (node);
  if (json_array_get_length (hints) == 0)
    return fail (error, MXL_FLOW_DEF_ERROR_VALUE, "tags." GROUPHINT_TAG, "must not be empty");
  for (i = 0; i < json_array_get_length (hints); i++) {
    JsonNode *e = json_array_get_element (hints, i);

    if (!JSON_NODE_HOLDS_VALUE (e) || json_node_get_value_type (e) != G_TYPE_STRING)
      return fail (error, MXL_FLOW_DEF_ERROR_TYPE, "tags." GROUPHINT_TAG, "elements must be strings");
    if (!check_grouphint (json_node_get_string (e), i, error))
      return FALSE;
  }
  return TRUE;
}

/* Our rate limits (flow-ext.h): a grain rate in 1/3600 … 1000/1, a sample
 * rate up to 768000/1 (a lower one is refused for the domain's history when
 * the flow is created). Both terms are < 2^42 (get_rational): no overflow. */
static gboolean
check_rate (const mxlRational *r, const char *field, gboolean audio,
    GError **error)
{
  if (audio && r->numerator > (int64_t) MXL_FLOW_MAX_SAMPLE_RATE * r->denominator)
    return fail (error, MXL_FLOW_DEF_ERROR_VALUE, field, "%" G_GINT64_FORMAT
        "/%" G_GINT64_FORMAT " is above %u samples per second", r->numerator,
        r->denominator, (guint) MXL_FLOW_MAX_SAMPLE_RATE);
  if (!audio && (r->numerator > (int64_t) MXL_FLOW_MAX_GRAIN_RATE * r->denominator
          || r->numerator * MXL_FLOW_MIN_GRAIN_RATE_DEN < r->denominator))
    return fail (error, MXL_FLOW_DEF_ERROR_VALUE, field, "%" G_GINT64_FORMAT
        "/%" G_GINT64_FORMAT " is outside 1/%u … %u/1 grains per second",
        r->numerator, r->denominator, (guint) MXL_FLOW_MIN_GRAIN_RATE_DEN,
        (guint) MXL_FLOW_MAX_GRAIN_RATE);
  return TRUE;
}

static gboolean
rate_is (const mxlRational *r, int64_t num, int64_t den)
{
  return r->numerator == num && r->denominator == den;
}

/* A string member kept as a label (cut to @size): @fallback when it is
 * absent or not a string. */
static void
label_or_default (JsonObject *root, const char *field, const char *fallback,
    char *out, gsize size)
{
  JsonNode *node = json_object_get_member (root, field);

  g_strlcpy (out, node && JSON_NODE_HOLDS_VALUE (node)
      && json_node_get_value_type (node) == G_TYPE_STRING ?
      json_node_get_string (node) : fallback, size);
}

static gboolean
parse_video (JsonObject *root, MxlFlowDef *def, gboolean rates, GError **error)
{
  gboolean present;
  double w, h;
  const char *s;
  uint32_t v, a, lines;

  if (!get_rational (root, "grain_rate", &def->def_rate, error)
      || (rates && !check_rate (&def->def_rate, "grain_rate", FALSE, error)))
    return FALSE;
  def->rate = def->def_rate;

  /* §2.3: the width is checked before media_type */
  if (!get_number (root, "frame_width", "frame_width", TRUE, &present, &w, error))
    return FALSE;
  if (w < MXL_FLOW_MIN_WIDTH || w >= MXL_FLOW_MAX_WIDTH + 1)
    return fail (error, MXL_FLOW_DEF_ERROR_VALUE, "frame_width", "%g is outside %d … %d", w,
        MXL_FLOW_MIN_WIDTH, MXL_FLOW_MAX_WIDTH);
  if (!get_number (root, "frame_height", "frame_height", TRUE, &present, &h, error))
    return FALSE;
  if (h < MXL_FLOW_MIN_HEIGHT || h >= MXL_FLOW_MAX_HEIGHT + 1)
    return fail (error, MXL_FLOW_DEF_ERROR_VALUE, "frame_height", "%g is outside %d … %d", h,
        MXL_FLOW_MIN_HEIGHT, MXL_FLOW_MAX_HEIGHT);
  def->width = (uint32_t) w;
  def->height = (uint32_t) h;

  if (!get_string (root, "media_type", &s, error))
    return FALSE;
  if (strcmp (s, "video/v210") == 0)
    def->media_type = MXL_MEDIA_TYPE_V210;
  else if (strcmp (s, "video/v210a") == 0)
    def->media_type = MXL_MEDIA_TYPE_V210A;
  else
    return fail (error, MXL_FLOW_DEF_ERROR_VALUE, "media_type",
        "\"%s\" is not video/v210 or video/v210a", s);

  def->interlace = MXL_INTERLACE_PROGRESSIVE;
  if (json_object_has_member (root, "interlace_mode")) {
    if (!get_string (root, "interlace_mode", &s, error))
      return FALSE;
    if (strcmp (s, "interlaced_tff") == 0)
      def->interlace = MXL_INTERLACE_TFF;
    else if (strcmp (s, "interlaced_bff") == 0)
      def->interlace = MXL_INTERLACE_BFF;
    else if (strcmp (s, "progressive") != 0)
      return fail (error, MXL_FLOW_DEF_ERROR_VALUE, "interlace_mode",
          "\"%s\" is not progressive, interlaced_tff or interlaced_bff", s);
  }

  /* labels only: kept as written (IS-04 defaults BT709 and SDR), never
   * validated */
  label_or_default (root, "colorspace", "BT709", def->colorspace,
      sizeof def->colorspace);
  label_or_default (root, "transfer_characteristic", "SDR", def->transfer,
      sizeof def->transfer);

  lines = def->height;
  if (def->interlace != MXL_INTERLACE_PROGRESSIVE) {
    if (!rate_is (&def->def_rate, 30000, 1001) && !rate_is (&def->def_rate, 25, 1))
      return fail (error, MXL_FLOW_DEF_ERROR_VALUE, "grain_rate",
          "%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT " is not 30000/1001 or 25/1 for interlaced video",
          def->def_rate.numerator, def->def_rate.denominator);
    if (def->height % 2 != 0)
      return fail (error, MXL_FLOW_DEF_ERROR_VALUE, "frame_height",
          "%u must be even for interlaced video", def->height);
    /* a grain is one field: the edit rate is the field rate */
    def->rate.numerator = def->def_rate.numerator * 2;
    lines = def->height / 2;
  }

  v = mxl_v210_line_bytes (def->width);
  a = def->media_type == MXL_MEDIA_TYPE_V210A ? mxl_v210a_key_line_bytes (def->width) : 0;
  def->slice_sizes[0] = v;
  def->slice_sizes[1] = a;
  def->total_slices = lines;
  def->grain_size = (v + a) * lines;
  return TRUE;
}

static gboolean
parse_data (JsonObject *root, MxlFlowDef *def, gboolean rates, GError **error)
{
  const char *s;

  if (!get_rational (root, "grain_rate", &def->def_rate, error)
      || (rates && !check_rate (&def->def_rate, "grain_rate", FALSE, error)))
    return FALSE;
  def->rate = def->def_rate;
  if (!get_string (root, "media_type", &s, error))
    return FALSE;
  if (strcmp (s, "video/smpte291") != 0)
    return fail (error, MXL_FLOW_DEF_ERROR_VALUE, "media_type",
        "\"%s\" is not video/smpte291", s);
  def->media_type = MXL_MEDIA_TYPE_SMPTE291;
  def->slice_sizes[0] = 1;
  def->total_slices = DATA_GRAIN_SLICES;
  def->grain_size = MXL_DATA_FORMAT_GRAIN_SIZE;
  return TRUE;
}

static gboolean
parse_audio (JsonObject *root, MxlFlowDef *def, gboolean rates, GError **error)
{
  gboolean present;
  double depth, channels = 1;
  const char *s;

  if (!get_rational (root, "sample_rate", &def->def_rate, error)
      || (rates && !check_rate (&def->def_rate, "sample_rate", TRUE, error)))
    return FALSE;
  def->rate = def->def_rate;
  if (!get_number (root, "bit_depth", "bit_depth", TRUE, &present, &depth, error))
    return FALSE;
  /* the reference also accepts 64; we create float32 flows only (§2.3) */
  if (depth != 32)
    return fail (error, MXL_FLOW_DEF_ERROR_VALUE, "bit_depth",
        "%g is not supported (only 32-bit float)", depth);
  if (!get_number (root, "channel_count", "channel_count", FALSE, &present, &channels, error))
    return FALSE;
  if (channels < 1 || channels != floor (channels) || channels > MAX_CHANNELS)
    return fail (error, MXL_FLOW_DEF_ERROR_VALUE, "channel_count",
        "%g is not an integer in 1 … %u", channels, MAX_CHANNELS);
  if (!get_string (root, "media_type", &s, error))
    return FALSE;
  if (strcmp (s, "audio/float32") != 0)
    return fail (error, MXL_FLOW_DEF_ERROR_VALUE, "media_type",
        "\"%s\" is not audio/float32", s);
  def->media_type = MXL_MEDIA_TYPE_FLOAT32;
  def->channel_count = (uint32_t) channels;
  def->bit_depth = 32;
  def->sample_word_size = 4;
  return TRUE;
}

static gboolean
parse (const char *json, MxlFlowDef *out, gboolean rates, GError **error)
{
  JsonParser *parser;
  JsonNode *root;
  GError *json_error = NULL;
  MxlFlowDef def;
  gboolean ok;

  g_return_val_if_fail (out != NULL, FALSE);
  memset (&def, 0, sizeof def);
  if (json == NULL)
    return fail (error, MXL_FLOW_DEF_ERROR_JSON, "(document)", "is NULL");

  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, json, -1, &json_error)) {
    fail (error, MXL_FLOW_DEF_ERROR_JSON, "(document)", "malformed JSON: %s", json_error->message);
    g_error_free (json_error);
    g_object_unref (parser);
    return FALSE;
  }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root)) {
    g_object_unref (parser);
    return fail (error, MXL_FLOW_DEF_ERROR_JSON, "(document)", "root is not an object");
  }

  ok = parse_common (json_node_get_object (root), &def, error);
  if (ok) {
    switch (def.format) {
      case MXL_DATA_FORMAT_VIDEO:
        ok = parse_video (json_node_get_object (root), &def, rates, error);
        break;
      case MXL_DATA_FORMAT_DATA:
        ok = parse_data (json_node_get_object (root), &def, rates, error);
        break;
      default:
        ok = parse_audio (json_node_get_object (root), &def, rates, error);
        break;
    }
  }
  g_object_unref (parser);
  if (ok && mxlIsDiscreteDataFormat (def.format) && def.total_slices > G_MAXUINT16)
    ok = fail (error, MXL_FLOW_DEF_ERROR_VALUE, "frame_height", "more than 65535 slices");
  if (ok)
    *out = def;
  return ok;
}

gboolean
mxl_flow_def_parse (const char *json, MxlFlowDef *out, GError **error)
{
  return parse (json, out, TRUE, error);
}

gboolean
mxl_flow_def_parse_form (const char *json, MxlFlowDef *out, GError **error)
{
  return parse (json, out, FALSE, error);
}

uint32_t
mxl_flow_def_grain_count (const MxlFlowDef *def, uint64_t history_ns)
{
  unsigned __int128 n;

  if (!mxlIsDiscreteDataFormat (def->format) || def->rate.denominator <= 0)
    return 0;
  n = (unsigned __int128) history_ns * (uint64_t) def->rate.numerator
      / ((unsigned __int128) 1000000000u * (uint64_t) def->rate.denominator);
  return n > G_MAXUINT32 ? 0 : (uint32_t) n;
}

uint32_t
mxl_flow_def_buffer_length (const MxlFlowDef *def, uint64_t history_ns)
{
  unsigned __int128 l0, p, l;

  if (def->format != MXL_DATA_FORMAT_AUDIO || def->rate.denominator <= 0
      || def->sample_word_size == 0)
    return 0;
  l0 = (unsigned __int128) history_ns * (uint64_t) def->rate.numerator
      / ((unsigned __int128) 500000000u * (uint64_t) def->rate.denominator);
  p = 4096u / def->sample_word_size;
  l = (l0 + p - 1) / p * p;
  return l > G_MAXUINT32 ? 0 : (uint32_t) l;
}

uint32_t
mxl_flow_def_default_batch_hint (const MxlFlowDef *def)
{
  int64_t hint;

  if (mxlIsDiscreteDataFormat (def->format))
    return def->total_slices;
  hint = def->rate.numerator / (100 * def->rate.denominator);
  return hint < 1 ? 1 : (hint > G_MAXUINT32 ? G_MAXUINT32 : (uint32_t) hint);
}
