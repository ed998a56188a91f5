/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Caps <-> NMOS flow definition and grain geometry; see caps.h for the
 * representation of each MXL media type in caps.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "caps.h"

#include <string.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#define GROUPHINT_TAG "urn:x-nmos:tag:grouphint/v1.0"
#define FORMAT_VIDEO "urn:x-nmos:format:video"
#define FORMAT_AUDIO "urn:x-nmos:format:audio"
#define FORMAT_DATA "urn:x-nmos:format:data"

/* Limits of mxl-flows.md §2.3. */
#define MIN_WIDTH 2
#define MAX_WIDTH 7680
#define MIN_HEIGHT 1
#define MAX_HEIGHT 4320

guint
gst_mxl_fabrics_v210_stride (guint width)
{
  return ((width + 47) / 48) * 128;
}

guint
gst_mxl_fabrics_key_stride (guint width)
{
  return ((width + 2) / 3) * 4;
}

static gboolean
format_is_video (const GstMxlFabricsFormat * fmt)
{
  return fmt->media == GST_MXL_FABRICS_MEDIA_V210
      || fmt->media == GST_MXL_FABRICS_MEDIA_V210A;
}

guint
gst_mxl_fabrics_format_lines_per_grain (const GstMxlFabricsFormat * fmt)
{
  if (!format_is_video (fmt))
    return 0;
  return fmt->scan == GST_MXL_FABRICS_SCAN_PROGRESSIVE ? fmt->height
      : fmt->height / 2;
}

gsize
gst_mxl_fabrics_format_grain_size (const GstMxlFabricsFormat * fmt)
{
  gsize lines = gst_mxl_fabrics_format_lines_per_grain (fmt);

  switch (fmt->media) {
    case GST_MXL_FABRICS_MEDIA_V210:
      return (gsize) gst_mxl_fabrics_v210_stride (fmt->width) * lines;
    case GST_MXL_FABRICS_MEDIA_V210A:
      return ((gsize) gst_mxl_fabrics_v210_stride (fmt->width) +
          gst_mxl_fabrics_key_stride (fmt->width)) * lines;
    case GST_MXL_FABRICS_MEDIA_DATA:
      return GST_MXL_FABRICS_DATA_GRAIN_SIZE;
    default:
      return 0;
  }
}

static void
frame_rate_of (const GstMxlFabricsFormat * fmt, gint * n, gint * d)
{
  /* Interlaced edit rates are field rates: the frame rate is half. */
  if (format_is_video (fmt) && fmt->scan != GST_MXL_FABRICS_SCAN_PROGRESSIVE)
    gst_util_fraction_multiply (fmt->rate_n, fmt->rate_d, 1, 2, n, d);
  else {
    *n = fmt->rate_n;
    *d = fmt->rate_d;
  }
}

gboolean
gst_mxl_fabrics_format_video_info (const GstMxlFabricsFormat * fmt,
    GstVideoInfo * info)
{
  gint fps_n, fps_d;

  if (!format_is_video (fmt))
    return FALSE;

  gst_video_info_init (info);
  if (fmt->scan == GST_MXL_FABRICS_SCAN_PROGRESSIVE) {
    if (!gst_video_info_set_format (info, GST_VIDEO_FORMAT_v210, fmt->width,
            fmt->height))
      return FALSE;
  } else if (!gst_video_info_set_interlaced_format (info, GST_VIDEO_FORMAT_v210,
          GST_VIDEO_INTERLACE_MODE_ALTERNATE, fmt->width, fmt->height)) {
    return FALSE;
  }
  frame_rate_of (fmt, &fps_n, &fps_d);
  info->fps_n = fps_n;
  info->fps_d = fps_d;

  /* Force the MXL geometry, so the layout never depends on GStreamer's
   * defaults (they agree at 1.22: stride V(w), size = stride * lines). */
  info->stride[0] = gst_mxl_fabrics_v210_stride (fmt->width);
  info->offset[0] = 0;
  info->size = (gsize) info->stride[0] *
      gst_mxl_fabrics_format_lines_per_grain (fmt);
  return TRUE;
}

gboolean
gst_mxl_fabrics_format_key_video_info (const GstMxlFabricsFormat * fmt,
    GstVideoInfo * info)
{
  if (fmt->media != GST_MXL_FABRICS_MEDIA_V210A)
    return FALSE;
  gst_video_info_init (info);
  if (!gst_video_info_set_format (info, GST_VIDEO_FORMAT_GRAY10_LE32,
          fmt->width, gst_mxl_fabrics_format_lines_per_grain (fmt)))
    return FALSE;
  info->stride[0] = gst_mxl_fabrics_key_stride (fmt->width);
  info->offset[0] = 0;
  return TRUE;
}

GstBuffer *
gst_mxl_fabrics_buffer_get_key (const GstMxlFabricsFormat * fmt,
    GstBuffer * buffer)
{
  GstVideoMeta *meta;
  gsize lines, key_offset, key_size;

  if (fmt->media != GST_MXL_FABRICS_MEDIA_V210A)
    return NULL;
  lines = gst_mxl_fabrics_format_lines_per_grain (fmt);
  meta = gst_buffer_get_video_meta (buffer);
  if (meta)
    key_offset = meta->offset[0] + (gsize) meta->stride[0] * lines;
  else
    key_offset = (gsize) gst_mxl_fabrics_v210_stride (fmt->width) * lines;
  key_size = (gsize) gst_mxl_fabrics_key_stride (fmt->width) * lines;
  if (gst_buffer_get_size (buffer) < key_offset + key_size)
    return NULL;
  return gst_buffer_copy_region (buffer, GST_BUFFER_COPY_MEMORY, key_offset,
      key_size);
}

GstVideoBufferFlags
gst_mxl_fabrics_field_flags_for_index (const GstMxlFabricsFormat * fmt,
    guint64 index)
{
  gboolean first = (index % 2) == 0;

  switch (format_is_video (fmt) ? fmt->scan : GST_MXL_FABRICS_SCAN_PROGRESSIVE) {
    case GST_MXL_FABRICS_SCAN_INTERLACED_TFF:
      return first ? GST_VIDEO_BUFFER_FLAG_TOP_FIELD :
          GST_VIDEO_BUFFER_FLAG_BOTTOM_FIELD;
    case GST_MXL_FABRICS_SCAN_INTERLACED_BFF:
      return first ? GST_VIDEO_BUFFER_FLAG_BOTTOM_FIELD :
          GST_VIDEO_BUFFER_FLAG_TOP_FIELD;
    default:
      return 0;
  }
}

const gchar *
gst_mxl_fabrics_media_type_name (GstMxlFabricsMedia media)
{
  switch (media) {
    case GST_MXL_FABRICS_MEDIA_V210:
      return "video/v210";
    case GST_MXL_FABRICS_MEDIA_V210A:
      return "video/v210a";
    case GST_MXL_FABRICS_MEDIA_AUDIO:
      return "audio/float32";
    case GST_MXL_FABRICS_MEDIA_DATA:
      return "video/smpte291";
    default:
      return "none";
  }
}

static const gchar *
scan_name (GstMxlFabricsScan scan)
{
  switch (scan) {
    case GST_MXL_FABRICS_SCAN_INTERLACED_TFF:
      return "interlaced_tff";
    case GST_MXL_FABRICS_SCAN_INTERLACED_BFF:
      return "interlaced_bff";
    default:
      return "progressive";
  }
}

/* Reduces n/d by their gcd; FALSE unless both are > 0 and fit a gint. */
static gboolean
normalise_rate (gint64 n, gint64 d, gint * out_n, gint * out_d)
{
  gint64 a, b;

  if (n <= 0 || d <= 0)
    return FALSE;
  a = n;
  b = d;
  while (b != 0) {
    gint64 t = a % b;
    a = b;
    b = t;
  }
  n /= a;
  d /= a;
  if (n > G_MAXINT || d > G_MAXINT)
    return FALSE;
  *out_n = (gint) n;
  *out_d = (gint) d;
  return TRUE;
}

/* §2.3: interlaced flows exist only at 30000/1001 and 25/1 frames per
 * second, with an even frame height. */
static gboolean
check_interlace_rules (gint fps_n, gint fps_d, guint height,
    GQuark domain, gint code, const gchar * what, GError ** error)
{
  if (!((fps_n == 30000 && fps_d == 1001) || (fps_n == 25 && fps_d == 1))) {
    g_set_error (error, domain, code, "%s: interlaced video must have a frame "
        "rate of 30000/1001 or 25/1 (MXL rule), not %d/%d", what, fps_n, fps_d);
    return FALSE;
  }
  if (height % 2 != 0) {
    g_set_error (error, domain, code, "%s: interlaced video must have an even "
        "frame height, not %u", what, height);
    return FALSE;
  }
  return TRUE;
}

static void
set_field_rate (GstMxlFabricsFormat * fmt, gint fps_n, gint fps_d)
{
  if (fmt->scan == GST_MXL_FABRICS_SCAN_PROGRESSIVE) {
    fmt->rate_n = fps_n;
    fmt->rate_d = fps_d;
  } else {
    gst_util_fraction_multiply (fps_n, fps_d, 2, 1, &fmt->rate_n,
        &fmt->rate_d);
  }
}

/* ------------------------------------------------------------------ caps */

/* "" when the caps say nothing (any colourspace matches; a flow created
 * from them says BT709). */
static const gchar *
colorspace_from_colorimetry (const gchar * colorimetry)
{
  if (colorimetry == NULL)
    return "";
  if (g_str_has_prefix (colorimetry, "bt2020")
      || g_str_has_prefix (colorimetry, "bt2100"))
    return "BT2020";
  if (g_str_has_prefix (colorimetry, "bt601"))
    return "BT601";
  return "BT709";
}

static gboolean
video_format_from_structure (const GstStructure * s, GstMxlFabricsFormat * fmt,
    GError ** error)
{
  const gchar *format = gst_structure_get_string (s, "format");
  const gchar *mode = gst_structure_get_string (s, "interlace-mode");
  const gchar *order = gst_structure_get_string (s, "field-order");
  gint width, height, fps_n, fps_d;
  gboolean alpha = FALSE;

  if (g_strcmp0 (format, "v210") != 0) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "video caps must have format=v210 (MXL video/v210), got %s",
        format ? format : "no format");
    return FALSE;
  }
  if (!gst_structure_get_int (s, "width", &width)
      || !gst_structure_get_int (s, "height", &height)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "video caps need fixed width and height");
    return FALSE;
  }
  if (width < MIN_WIDTH || width > MAX_WIDTH || height < MIN_HEIGHT
      || height > MAX_HEIGHT) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "video size %dx%d is outside the MXL limits %d..%d x %d..%d",
        width, height, MIN_WIDTH, MAX_WIDTH, MIN_HEIGHT, MAX_HEIGHT);
    return FALSE;
  }
  if (!gst_structure_get_fraction (s, "framerate", &fps_n, &fps_d)
      || !normalise_rate (fps_n, fps_d, &fps_n, &fps_d)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "video caps need a fixed framerate > 0 (MXL grains have a rate; "
        "variable frame rate 0/1 cannot be carried)");
    return FALSE;
  }
  if (gst_structure_has_field (s, GST_MXL_FABRICS_CAPS_FIELD_ALPHA)
      && !gst_structure_get_boolean (s, GST_MXL_FABRICS_CAPS_FIELD_ALPHA,
          &alpha)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "caps field " GST_MXL_FABRICS_CAPS_FIELD_ALPHA " must be a boolean");
    return FALSE;
  }

  fmt->media = alpha ? GST_MXL_FABRICS_MEDIA_V210A : GST_MXL_FABRICS_MEDIA_V210;
  fmt->width = width;
  fmt->height = height;
  if (mode == NULL || strcmp (mode, "progressive") == 0) {
    fmt->scan = GST_MXL_FABRICS_SCAN_PROGRESSIVE;
  } else if (strcmp (mode, "alternate") == 0) {
    if (order == NULL || strcmp (order, "top-field-first") == 0)
      fmt->scan = GST_MXL_FABRICS_SCAN_INTERLACED_TFF;
    else if (strcmp (order, "bottom-field-first") == 0)
      fmt->scan = GST_MXL_FABRICS_SCAN_INTERLACED_BFF;
    else {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "field-order=%s is not supported (top-field-first or "
          "bottom-field-first)", order);
      return FALSE;
    }
    if (!check_interlace_rules (fps_n, fps_d, height, GST_STREAM_ERROR,
            GST_STREAM_ERROR_FORMAT, "caps", error))
      return FALSE;
  } else {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "interlace-mode=%s is not supported: MXL carries one field per grain, "
        "use interlace-mode=alternate (one field per buffer) or progressive",
        mode);
    return FALSE;
  }
  set_field_rate (fmt, fps_n, fps_d);
  g_strlcpy (fmt->colorspace, colorspace_from_colorimetry
      (gst_structure_get_string (s, "colorimetry")), sizeof fmt->colorspace);
  return TRUE;
}

static gboolean
audio_format_from_structure (const GstStructure * s, GstMxlFabricsFormat * fmt,
    GError ** error)
{
  const gchar *format = gst_structure_get_string (s, "format");
  const gchar *layout = gst_structure_get_string (s, "layout");
  gint rate, channels;

  if (g_strcmp0 (format, "F32LE") != 0) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "audio caps must have format=F32LE (MXL audio/float32), got %s",
        format ? format : "no format");
    return FALSE;
  }
  if (!gst_structure_get_int (s, "rate", &rate) || rate <= 0
      || !gst_structure_get_int (s, "channels", &channels) || channels <= 0) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "audio caps need a fixed rate >= 1 and channels >= 1");
    return FALSE;
  }
  if (channels > MXL_FLOW_MAX_CHANNELS) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "audio caps channels=%d is outside 1 … %d (the most channels of an "
        "MXL flow)", channels, MXL_FLOW_MAX_CHANNELS);
    return FALSE;
  }
  fmt->media = GST_MXL_FABRICS_MEDIA_AUDIO;
  fmt->rate_n = rate;
  fmt->rate_d = 1;
  fmt->channels = channels;
  if (layout == NULL || strcmp (layout, "interleaved") == 0)
    fmt->interleaved = TRUE;
  else if (strcmp (layout, "non-interleaved") == 0)
    fmt->interleaved = FALSE;
  else {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "audio layout=%s is not supported", layout);
    return FALSE;
  }
  return TRUE;
}

static gboolean
data_format_from_structure (const GstStructure * s, GstMxlFabricsFormat * fmt,
    GError ** error)
{
  const gchar *alignment = gst_structure_get_string (s, "alignment");
  gint fps_n, fps_d;

  if (g_strcmp0 (alignment, "frame") != 0) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "meta/x-st-2038 caps must have alignment=frame (one grain per frame)");
    return FALSE;
  }
  if (!gst_structure_get_fraction (s, "framerate", &fps_n, &fps_d)
      || !normalise_rate (fps_n, fps_d, &fps_n, &fps_d)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "meta/x-st-2038 caps need a fixed framerate > 0 (the data grain rate)");
    return FALSE;
  }
  fmt->media = GST_MXL_FABRICS_MEDIA_DATA;
  fmt->rate_n = fps_n;
  fmt->rate_d = fps_d;
  return TRUE;
}

gboolean
gst_mxl_fabrics_format_from_caps (const GstCaps * caps,
    GstMxlFabricsFormat * fmt, GError ** error)
{
  const GstStructure *s;

  g_return_val_if_fail (fmt != NULL, FALSE);
  memset (fmt, 0, sizeof *fmt);

  if (caps == NULL || gst_caps_get_size (caps) != 1) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "caps must hold exactly one structure");
    return FALSE;
  }
  s = gst_caps_get_structure (caps, 0);
  if (gst_structure_has_name (s, "video/x-raw"))
    return video_format_from_structure (s, fmt, error);
  if (gst_structure_has_name (s, "audio/x-raw"))
    return audio_format_from_structure (s, fmt, error);
  if (gst_structure_has_name (s, "meta/x-st-2038"))
    return data_format_from_structure (s, fmt, error);

  g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "caps %s cannot be carried by MXL (use video/x-raw format=v210, "
      "audio/x-raw format=F32LE or meta/x-st-2038)", gst_structure_get_name (s));
  return FALSE;
}

GstCaps *
gst_mxl_fabrics_format_to_caps (const GstMxlFabricsFormat * fmt)
{
  GstCaps *caps;
  gint n, d;

  switch (fmt->media) {
    case GST_MXL_FABRICS_MEDIA_V210:
    case GST_MXL_FABRICS_MEDIA_V210A:{
      gchar *colorimetry = g_ascii_strdown (fmt->colorspace[0] ?
          fmt->colorspace : "BT709", -1);
      gboolean interlaced = fmt->scan != GST_MXL_FABRICS_SCAN_PROGRESSIVE;

      frame_rate_of (fmt, &n, &d);
      caps = gst_caps_new_simple ("video/x-raw",
          "format", G_TYPE_STRING, "v210",
          "width", G_TYPE_INT, (gint) fmt->width,
          "height", G_TYPE_INT, (gint) fmt->height,
          "framerate", GST_TYPE_FRACTION, n, d,
          "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1,
          "interlace-mode", G_TYPE_STRING,
          interlaced ? "alternate" : "progressive",
          "colorimetry", G_TYPE_STRING, colorimetry, NULL);
      g_free (colorimetry);
      if (interlaced) {
        gst_caps_set_simple (caps, "field-order", G_TYPE_STRING,
            fmt->scan == GST_MXL_FABRICS_SCAN_INTERLACED_TFF ?
            "top-field-first" : "bottom-field-first", NULL);
        gst_caps_set_features (caps, 0,
            gst_caps_features_new (GST_CAPS_FEATURE_FORMAT_INTERLACED, NULL));
      }
      if (fmt->media == GST_MXL_FABRICS_MEDIA_V210A)
        gst_caps_set_simple (caps, GST_MXL_FABRICS_CAPS_FIELD_ALPHA,
            G_TYPE_BOOLEAN, TRUE, NULL);
      return caps;
    }
    case GST_MXL_FABRICS_MEDIA_AUDIO:
      caps = gst_caps_new_simple ("audio/x-raw",
          "format", G_TYPE_STRING, "F32LE",
          "layout", G_TYPE_STRING, "non-interleaved",
          "rate", G_TYPE_INT, fmt->rate_n,
          "channels", G_TYPE_INT, (gint) fmt->channels, NULL);
      /* Mono needs no mask; stereo is positioned; above 2 channels MXL
       * carries no positions: unpositioned (mask 0). */
      if (fmt->channels >= 2)
        gst_caps_set_simple (caps, "channel-mask", GST_TYPE_BITMASK,
            (guint64) (fmt->channels == 2 ? 0x3 : 0), NULL);
      return caps;
    case GST_MXL_FABRICS_MEDIA_DATA:
      return gst_caps_new_simple ("meta/x-st-2038",
          "alignment", G_TYPE_STRING, "frame",
          "framerate", GST_TYPE_FRACTION, fmt->rate_n, fmt->rate_d, NULL);
    default:
      return NULL;
  }
}

/* ------------------------------------------------------- flow definitions */

#define FLOWDEF_ERROR(error, ...) \
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, \
      "flow definition: " __VA_ARGS__)

static gboolean
group_hint_is_valid (const gchar * hint)
{
  gchar **parts = g_strsplit (hint, ":", -1);
  guint n = g_strv_length (parts);
  gboolean ok = (n == 2 || n == 3) && parts[0][0] != '\0'
      && parts[1][0] != '\0'
      && (n == 2 || strcmp (parts[2], "device") == 0
      || strcmp (parts[2], "node") == 0);

  g_strfreev (parts);
  return ok;
}

/* A JSON number (integer or float), truncated towards zero (§2.1). */
static gboolean
member_number (JsonObject * obj, const gchar * name, gboolean required,
    gdouble fallback, gdouble * out, GError ** error)
{
  JsonNode *node = json_object_get_member (obj, name);
  GType t;

  if (node == NULL) {
    if (required) {
      FLOWDEF_ERROR (error, "\"%s\" is missing", name);
      return FALSE;
    }
    *out = fallback;
    return TRUE;
  }
  t = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) :
      G_TYPE_INVALID;
  if (t != G_TYPE_INT64 && t != G_TYPE_DOUBLE) {
    FLOWDEF_ERROR (error, "\"%s\" must be a number", name);
    return FALSE;
  }
  *out = json_node_get_double (node);
  return TRUE;
}

static const gchar *
member_string (JsonObject * obj, const gchar * name, GError ** error)
{
  JsonNode *node = json_object_get_member (obj, name);

  if (node == NULL) {
    FLOWDEF_ERROR (error, "\"%s\" is missing", name);
    return NULL;
  }
  if (!JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING) {
    FLOWDEF_ERROR (error, "\"%s\" must be a string", name);
    return NULL;
  }
  return json_node_get_string (node);
}

static gboolean
member_rate (JsonObject * obj, const gchar * name, gint * n, gint * d,
    GError ** error)
{
  JsonNode *node = json_object_get_member (obj, name);
  JsonObject *r;
  gdouble num, den;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node)) {
    FLOWDEF_ERROR (error, "\"%s\" must be an object {numerator, denominator}",
        name);
    return FALSE;
  }
  r = json_node_get_object (node);
  if (!member_number (r, "numerator", TRUE, 0, &num, error)
      || !member_number (r, "denominator", FALSE, 1, &den, error))
    return FALSE;
  if (num > (gdouble) G_MAXINT64 || den > (gdouble) G_MAXINT64
      || !normalise_rate ((gint64) num, (gint64) den, n, d)) {
    FLOWDEF_ERROR (error, "\"%s\" must have numerator and denominator > 0 "
        "(and fit 32 bits once reduced), got %g/%g", name, num, den);
    return FALSE;
  }
  return TRUE;
}

static gboolean
check_tags (JsonObject * root, GError ** error)
{
  JsonNode *tags = json_object_get_member (root, "tags");
  JsonNode *hints;
  JsonArray *arr;
  guint i, n;

  if (tags == NULL || !JSON_NODE_HOLDS_OBJECT (tags)) {
    FLOWDEF_ERROR (error, "\"tags\" must be an object holding \""
        GROUPHINT_TAG "\"");
    return FALSE;
  }
  hints = json_object_get_member (json_node_get_object (tags), GROUPHINT_TAG);
  if (hints == NULL || !JSON_NODE_HOLDS_ARRAY (hints)
      || (n = json_array_get_length (arr = json_node_get_array (hints))) == 0) {
    FLOWDEF_ERROR (error, "tag \"" GROUPHINT_TAG "\" must be a non-empty "
        "array of \"group:role[:scope]\" strings");
    return FALSE;
  }
  for (i = 0; i < n; i++) {
    JsonNode *e = json_array_get_element (arr, i);
    if (!JSON_NODE_HOLDS_VALUE (e)
        || json_node_get_value_type (e) != G_TYPE_STRING
        || !group_hint_is_valid (json_node_get_string (e))) {
      FLOWDEF_ERROR (error, "grouphint entry %u is not a \"group:role\" or "
          "\"group:role:device|node\" string", i);
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean
parse_video (JsonObject * root, GstMxlFabricsFormat * fmt, GError ** error)
{
  gdouble w, h;
  gint fps_n, fps_d;
  const gchar *media_type, *mode = "progressive", *cs;
  JsonNode *node;

  if (!member_rate (root, "grain_rate", &fps_n, &fps_d, error)
      || !member_number (root, "frame_width", TRUE, 0, &w, error)
      || !member_number (root, "frame_height", TRUE, 0, &h, error))
    return FALSE;
  if (w < MIN_WIDTH || w >= MAX_WIDTH + 1) {
    FLOWDEF_ERROR (error, "frame_width %g outside %d..%d", w, MIN_WIDTH,
        MAX_WIDTH);
    return FALSE;
  }
  if (h < MIN_HEIGHT || h >= MAX_HEIGHT + 1) {
    FLOWDEF_ERROR (error, "frame_height %g outside %d..%d", h, MIN_HEIGHT,
        MAX_HEIGHT);
    return FALSE;
  }
  if (!(media_type = member_string (root, "media_type", error)))
    return FALSE;
  if (strcmp (media_type, "video/v210") == 0)
    fmt->media = GST_MXL_FABRICS_MEDIA_V210;
  else if (strcmp (media_type, "video/v210a") == 0)
    fmt->media = GST_MXL_FABRICS_MEDIA_V210A;
  else {
    FLOWDEF_ERROR (error, "video media_type \"%s\" is not supported "
        "(video/v210 or video/v210a)", media_type);
    return FALSE;
  }
  fmt->width = (guint) w;
  fmt->height = (guint) h;

  node = json_object_get_member (root, "interlace_mode");
  if (node && !(mode = member_string (root, "interlace_mode", error)))
    return FALSE;
  if (strcmp (mode, "progressive") == 0)
    fmt->scan = GST_MXL_FABRICS_SCAN_PROGRESSIVE;
  else if (strcmp (mode, "interlaced_tff") == 0)
    fmt->scan = GST_MXL_FABRICS_SCAN_INTERLACED_TFF;
  else if (strcmp (mode, "interlaced_bff") == 0)
    fmt->scan = GST_MXL_FABRICS_SCAN_INTERLACED_BFF;
  else {
    FLOWDEF_ERROR (error, "interlace_mode \"%s\" is not progressive, "
        "interlaced_tff or interlaced_bff", mode);
    return FALSE;
  }
  if (fmt->scan != GST_MXL_FABRICS_SCAN_PROGRESSIVE
      && !check_interlace_rules (fps_n, fps_d, fmt->height, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_SETTINGS, "flow definition", error))
    return FALSE;
  set_field_rate (fmt, fps_n, fps_d);

  node = json_object_get_member (root, "colorspace");
  cs = (node && JSON_NODE_HOLDS_VALUE (node)
      && json_node_get_value_type (node) == G_TYPE_STRING) ?
      json_node_get_string (node) : "BT709";
  g_strlcpy (fmt->colorspace, cs, sizeof fmt->colorspace);
  return TRUE;
}

static gboolean
parse_audio (JsonObject * root, GstMxlFabricsFormat * fmt, GError ** error)
{
  gdouble depth, channels;

  if (!member_rate (root, "sample_rate", &fmt->rate_n, &fmt->rate_d, error)
      || !member_number (root, "bit_depth", TRUE, 0, &depth, error)
      || !member_number (root, "channel_count", FALSE, 1, &channels, error))
    return FALSE;
  if ((gint64) depth != 32) {
    FLOWDEF_ERROR (error, "audio bit_depth %g is not supported (only 32-bit "
        "float samples)", depth);
    return FALSE;
  }
  if (channels < 1 || channels != (gdouble) (gint64) channels
      || channels > MXL_FLOW_MAX_CHANNELS) {
    FLOWDEF_ERROR (error, "channel_count %g must be an integer in 1 … %d",
        channels, MXL_FLOW_MAX_CHANNELS);
    return FALSE;
  }
  if (fmt->rate_d != 1) {
    FLOWDEF_ERROR (error, "sample_rate %d/%d is not an integral rate "
        "(audio/x-raw needs one)", fmt->rate_n, fmt->rate_d);
    return FALSE;
  }
  fmt->media = GST_MXL_FABRICS_MEDIA_AUDIO;
  fmt->channels = (guint) channels;
  return TRUE;
}

static gboolean
parse_data (JsonObject * root, GstMxlFabricsFormat * fmt, GError ** error)
{
  const gchar *media_type;

  if (!member_rate (root, "grain_rate", &fmt->rate_n, &fmt->rate_d, error)
      || !(media_type = member_string (root, "media_type", error)))
    return FALSE;
  if (strcmp (media_type, "video/smpte291") != 0) {
    FLOWDEF_ERROR (error, "data media_type \"%s\" is not video/smpte291",
        media_type);
    return FALSE;
  }
  fmt->media = GST_MXL_FABRICS_MEDIA_DATA;
  return TRUE;
}

gboolean
gst_mxl_fabrics_format_from_flow_def (const gchar * json,
    GstMxlFabricsFormat * fmt, gchar ** flow_id, GError ** error)
{
  JsonParser *parser;
  JsonNode *root_node;
  JsonObject *root;
  const gchar *id, *format, *label;
  GError *parse_error = NULL;
  gboolean ok = FALSE;

  g_return_val_if_fail (fmt != NULL, FALSE);
  memset (fmt, 0, sizeof *fmt);
  if (flow_id)
    *flow_id = NULL;

  if (json == NULL) {
    FLOWDEF_ERROR (error, "none given");
    return FALSE;
  }
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, json, -1, &parse_error)) {
    FLOWDEF_ERROR (error, "malformed JSON: %s", parse_error->message);
    g_error_free (parse_error);
    goto done;
  }
  root_node = json_parser_get_root (parser);
  if (root_node == NULL || !JSON_NODE_HOLDS_OBJECT (root_node)) {
    FLOWDEF_ERROR (error, "the root must be a JSON object");
    goto done;
  }
  root = json_node_get_object (root_node);

  if (!(id = member_string (root, "id", error)))
    goto done;
  if (!g_uuid_string_is_valid (id)) {
    FLOWDEF_ERROR (error, "\"id\" \"%s\" is not a UUID", id);
    goto done;
  }
  if (!(format = member_string (root, "format", error))
      || !(label = member_string (root, "label", error)))
    goto done;
  if (label[0] == '\0') {
    FLOWDEF_ERROR (error, "\"label\" must not be empty");
    goto done;
  }
  if (!check_tags (root, error))
    goto done;

  if (strcmp (format, FORMAT_VIDEO) == 0)
    ok = parse_video (root, fmt, error);
  else if (strcmp (format, FORMAT_AUDIO) == 0)
    ok = parse_audio (root, fmt, error);
  else if (strcmp (format, FORMAT_DATA) == 0)
    ok = parse_data (root, fmt, error);
  else
    FLOWDEF_ERROR (error, "\"format\" \"%s\" is not " FORMAT_VIDEO ", "
        FORMAT_AUDIO " or " FORMAT_DATA, format);

  if (ok && flow_id)
    *flow_id = g_ascii_strdown (id, -1);
done:
  if (!ok)
    memset (fmt, 0, sizeof *fmt);
  g_object_unref (parser);
  return ok;
}

static void
add_rate (JsonBuilder * b, const gchar * name, gint n, gint d)
{
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "numerator");
  json_builder_add_int_value (b, n);
  json_builder_set_member_name (b, "denominator");
  json_builder_add_int_value (b, d);
  json_builder_end_object (b);
}

static void
add_int (JsonBuilder * b, const gchar * name, gint64 v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, v);
}

static void
add_string (JsonBuilder * b, const gchar * name, const gchar * v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_string_value (b, v);
}

static void
add_component (JsonBuilder * b, const gchar * name, guint w, guint h)
{
  json_builder_begin_object (b);
  add_string (b, "name", name);
  add_int (b, "width", w);
  add_int (b, "height", h);
  add_int (b, "bit_depth", 10);
  json_builder_end_object (b);
}

static void
add_video_members (JsonBuilder * b, const GstMxlFabricsFormat * fmt)
{
  gint n, d;

  frame_rate_of (fmt, &n, &d);
  add_rate (b, "grain_rate", n, d);
  add_int (b, "frame_width", fmt->width);
  add_int (b, "frame_height", fmt->height);
  add_string (b, "interlace_mode", scan_name (fmt->scan));
  add_string (b, "colorspace", fmt->colorspace[0] ? fmt->colorspace : "BT709");
  add_string (b, "transfer_characteristic", "SDR");
  json_builder_set_member_name (b, "components");
  json_builder_begin_array (b);
  add_component (b, "Y", fmt->width, fmt->height);
  add_component (b, "Cb", fmt->width / 2, fmt->height);
  add_component (b, "Cr", fmt->width / 2, fmt->height);
  if (fmt->media == GST_MXL_FABRICS_MEDIA_V210A)
    add_component (b, "A", fmt->width, fmt->height);
  json_builder_end_array (b);
}

/* Checks a format before writing it into a definition, so that every
 * definition we generate passes our own parser (§2). */
static gboolean
check_format_for_flow (const GstMxlFabricsFormat * fmt, GError ** error)
{
  gint n, d;

  switch (fmt->media) {
    case GST_MXL_FABRICS_MEDIA_V210:
    case GST_MXL_FABRICS_MEDIA_V210A:
      if (fmt->width < MIN_WIDTH || fmt->width > MAX_WIDTH
          || fmt->height < MIN_HEIGHT || fmt->height > MAX_HEIGHT) {
        FLOWDEF_ERROR (error, "video size %ux%u outside the MXL limits",
            fmt->width, fmt->height);
        return FALSE;
      }
      if (fmt->rate_n <= 0 || fmt->rate_d <= 0) {
        FLOWDEF_ERROR (error, "grain rate must be > 0");
        return FALSE;
      }
      frame_rate_of (fmt, &n, &d);
      if (fmt->scan != GST_MXL_FABRICS_SCAN_PROGRESSIVE
          && !check_interlace_rules (n, d, fmt->height, GST_RESOURCE_ERROR,
              GST_RESOURCE_ERROR_SETTINGS, "flow definition", error))
        return FALSE;
      return TRUE;
    case GST_MXL_FABRICS_MEDIA_AUDIO:
      if (fmt->rate_n <= 0 || fmt->rate_d != 1 || fmt->channels < 1) {
        FLOWDEF_ERROR (error, "audio needs an integral rate > 0 and "
            "channels >= 1");
        return FALSE;
      }
      return TRUE;
    case GST_MXL_FABRICS_MEDIA_DATA:
      if (fmt->rate_n <= 0 || fmt->rate_d <= 0) {
        FLOWDEF_ERROR (error, "grain rate must be > 0");
        return FALSE;
      }
      return TRUE;
    default:
      FLOWDEF_ERROR (error, "no media type");
      return FALSE;
  }
}

gchar *
gst_mxl_fabrics_flow_def_new (const GstMxlFabricsFormat * fmt,
    const gchar * flow_id, const gchar * label, const gchar * group_hint,
    GError ** error)
{
  JsonBuilder *b;
  JsonGenerator *gen;
  JsonNode *root;
  gchar *id, *hint, *text, *default_label = NULL;
  const gchar *role, *format;

  g_return_val_if_fail (fmt != NULL, NULL);

  if (!check_format_for_flow (fmt, error))
    return NULL;
  if (flow_id && !g_uuid_string_is_valid (flow_id)) {
    FLOWDEF_ERROR (error, "flow id \"%s\" is not a UUID", flow_id);
    return NULL;
  }
  if (label && label[0] == '\0') {
    FLOWDEF_ERROR (error, "the label must not be empty");
    return NULL;
  }
  if (group_hint && !group_hint_is_valid (group_hint)) {
    FLOWDEF_ERROR (error, "group hint \"%s\" is not \"group:role\" or "
        "\"group:role:device|node\"", group_hint);
    return NULL;
  }

  switch (fmt->media) {
    case GST_MXL_FABRICS_MEDIA_AUDIO:
      role = "Audio";
      format = FORMAT_AUDIO;
      break;
    case GST_MXL_FABRICS_MEDIA_DATA:
      role = "Data";
      format = FORMAT_DATA;
      break;
    default:
      role = "Video";
      format = FORMAT_VIDEO;
      break;
  }
  id = flow_id ? g_ascii_strdown (flow_id, -1) : g_uuid_string_random ();
  hint = group_hint ? g_strdup (group_hint) :
      g_strdup_printf ("gst-mxl-fabrics %d:%s", (int) getpid (), role);
  if (label == NULL)
    label = default_label = g_strdup_printf ("gst-mxl-fabrics %s flow",
        gst_mxl_fabrics_media_type_name (fmt->media));

  b = json_builder_new ();
  json_builder_begin_object (b);
  add_string (b, "id", id);
  add_string (b, "description", label);
  add_string (b, "label", label);
  json_builder_set_member_name (b, "tags");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, GROUPHINT_TAG);
  json_builder_begin_array (b);
  json_builder_add_string_value (b, hint);
  json_builder_end_array (b);
  json_builder_end_object (b);
  add_string (b, "format", format);
  json_builder_set_member_name (b, "parents");
  json_builder_begin_array (b);
  json_builder_end_array (b);
  add_string (b, "media_type", gst_mxl_fabrics_media_type_name (fmt->media));
  switch (fmt->media) {
    case GST_MXL_FABRICS_MEDIA_AUDIO:
      add_rate (b, "sample_rate", fmt->rate_n, fmt->rate_d);
      add_int (b, "bit_depth", 32);
      add_int (b, "channel_count", fmt->channels);
      break;
    case GST_MXL_FABRICS_MEDIA_DATA:
      add_rate (b, "grain_rate", fmt->rate_n, fmt->rate_d);
      break;
    default:
      add_video_members (b, fmt);
      break;
  }
  json_builder_end_object (b);

  root = json_builder_get_root (b);
  gen = json_generator_new ();
  json_generator_set_root (gen, root);
  text = json_generator_to_data (gen, NULL);

  json_node_unref (root);
  g_object_unref (gen);
  g_object_unref (b);
  g_free (id);
  g_free (hint);
  g_free (default_label);
  return text;
}

/* --------------------------------------------------------------- matching */

#define MISMATCH(error, ...) \
  g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, __VA_ARGS__)

gboolean
gst_mxl_fabrics_format_check_match (const GstMxlFabricsFormat * caps_fmt,
    const GstMxlFabricsFormat * flow_fmt, GError ** error)
{
  if (caps_fmt->media != flow_fmt->media) {
    if (caps_fmt->media == GST_MXL_FABRICS_MEDIA_V210
        && flow_fmt->media == GST_MXL_FABRICS_MEDIA_V210A)
      MISMATCH (error, "the flow is video/v210a (fill + key) but the caps "
          "have no key plane: add " GST_MXL_FABRICS_CAPS_FIELD_ALPHA "=true");
    else if (caps_fmt->media == GST_MXL_FABRICS_MEDIA_V210A
        && flow_fmt->media == GST_MXL_FABRICS_MEDIA_V210)
      MISMATCH (error, "the caps carry a key plane ("
          GST_MXL_FABRICS_CAPS_FIELD_ALPHA "=true) but the flow is video/v210");
    else
      MISMATCH (error, "caps media %s does not match the flow's media_type %s",
          gst_mxl_fabrics_media_type_name (caps_fmt->media),
          gst_mxl_fabrics_media_type_name (flow_fmt->media));
    return FALSE;
  }
  if (format_is_video (flow_fmt)) {
    if (caps_fmt->width != flow_fmt->width) {
      MISMATCH (error, "caps width %u does not match the flow's frame_width %u",
          caps_fmt->width, flow_fmt->width);
      return FALSE;
    }
    if (caps_fmt->height != flow_fmt->height) {
      MISMATCH (error, "caps height %u does not match the flow's "
          "frame_height %u", caps_fmt->height, flow_fmt->height);
      return FALSE;
    }
    if (caps_fmt->scan != flow_fmt->scan) {
      MISMATCH (error, "caps scanning %s does not match the flow's "
          "interlace_mode %s", scan_name (caps_fmt->scan),
          scan_name (flow_fmt->scan));
      return FALSE;
    }
    /* Written as a label only, but a wrong one shifts every colour. */
    if (caps_fmt->colorspace[0] != '\0' && flow_fmt->colorspace[0] != '\0'
        && g_ascii_strcasecmp (caps_fmt->colorspace,
            flow_fmt->colorspace) != 0) {
      MISMATCH (error, "caps colorimetry (colorspace %s) does not match the "
          "flow's colorspace %s", caps_fmt->colorspace, flow_fmt->colorspace);
      return FALSE;
    }
  }
  if ((gint64) caps_fmt->rate_n * flow_fmt->rate_d !=
      (gint64) flow_fmt->rate_n * caps_fmt->rate_d) {
    MISMATCH (error, "caps edit rate %d/%d does not match the flow's %d/%d "
        "(%s)", caps_fmt->rate_n, caps_fmt->rate_d, flow_fmt->rate_n,
        flow_fmt->rate_d, flow_fmt->media == GST_MXL_FABRICS_MEDIA_AUDIO ?
        "sample_rate" : format_is_video (flow_fmt)
        && flow_fmt->scan != GST_MXL_FABRICS_SCAN_PROGRESSIVE ?
        "field rate = 2 x grain_rate" : "grain_rate");
    return FALSE;
  }
  if (flow_fmt->media == GST_MXL_FABRICS_MEDIA_AUDIO
      && caps_fmt->channels != flow_fmt->channels) {
    MISMATCH (error, "caps channels %u do not match the flow's "
        "channel_count %u", caps_fmt->channels, flow_fmt->channels);
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_mxl_fabrics_caps_check_flow_def (const GstCaps * caps,
    const gchar * flow_def, GError ** error)
{
  GstMxlFabricsFormat caps_fmt, flow_fmt;

  return gst_mxl_fabrics_format_from_caps (caps, &caps_fmt, error)
      && gst_mxl_fabrics_format_from_flow_def (flow_def, &flow_fmt, NULL, error)
      && gst_mxl_fabrics_format_check_match (&caps_fmt, &flow_fmt, error);
}
