/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Caps <-> NMOS flow definition and grain geometry; see caps.h for the
 * representation of each MXL media type in caps.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "caps.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The library's values, so that no table maps one onto the other. */
G_STATIC_ASSERT ((int) GST_MXL_FABRICS_MEDIA_V210 == (int) MXL_FLOW_EXT_MEDIA_V210);
G_STATIC_ASSERT ((int) GST_MXL_FABRICS_MEDIA_AUDIO == (int) MXL_FLOW_EXT_MEDIA_FLOAT32);
G_STATIC_ASSERT ((int) GST_MXL_FABRICS_SCAN_INTERLACED_BFF == (int) MXL_FLOW_EXT_INTERLACED_BFF);

static gboolean
format_is_video (const GstMxlFabricsFormat * fmt)
{
  return fmt->media == GST_MXL_FABRICS_MEDIA_V210
      || fmt->media == GST_MXL_FABRICS_MEDIA_V210A;
}

guint
gst_mxl_fabrics_format_lines_per_grain (const GstMxlFabricsFormat * fmt)
{
  return format_is_video (fmt) ? fmt->def.totalSlices : 0;
}

gsize
gst_mxl_fabrics_format_grain_size (const GstMxlFabricsFormat * fmt)
{
  return fmt->def.grainSize;
}

/* GStreamer's alternate-mode caps and NMOS both give the FRAME rate; the
 * edit rate of an interlaced format is the field rate. */
static void
frame_rate_of (const GstMxlFabricsFormat * fmt, gint * n, gint * d)
{
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
  info->stride[0] = mxlFlowExtV210LineBytes (fmt->width);
  info->offset[0] = 0;
  info->size = (gsize) info->stride[0] *
      gst_mxl_fabrics_format_lines_per_grain (fmt);
  return TRUE;
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

/* ------------------------------------------------ format <-> flow summary */

/* What @fmt says in the library's terms (the rates as the flow definition
 * writes them); the derived fields are the library's to fill. */
static void
format_to_def (const GstMxlFabricsFormat * fmt, mxlFlowExtDefinition * def)
{
  gint n, d;

  memset (def, 0, sizeof *def);
  def->mediaType = (mxlFlowExtMediaType) fmt->media;
  frame_rate_of (fmt, &n, &d);
  def->definitionRate.numerator = n;
  def->definitionRate.denominator = d;
  if (format_is_video (fmt)) {
    def->width = fmt->width;
    def->height = fmt->height;
    def->interlace = (mxlFlowExtInterlace) fmt->scan;
    g_strlcpy (def->colorspace, fmt->colorspace, sizeof def->colorspace);
    g_strlcpy (def->transferCharacteristic, fmt->transfer,
        sizeof def->transferCharacteristic);
  }
  def->channelCount = fmt->channels;
}

/* @fmt from a summary the library checked; FALSE (@fmt untouched) when
 * its rate has no caps form. */
static gboolean
format_from_def (const mxlFlowExtDefinition * def, GstMxlFabricsFormat * fmt,
    GQuark domain, gint code, GError ** error)
{
  if (def->editRate.numerator > G_MAXINT || def->editRate.denominator > G_MAXINT) {
    g_set_error (error, domain, code, "flow definition: rate %" G_GINT64_FORMAT
        "/%" G_GINT64_FORMAT " does not fit 32 bits once reduced",
        def->editRate.numerator, def->editRate.denominator);
    return FALSE;
  }
  if (def->mediaType == MXL_FLOW_EXT_MEDIA_FLOAT32
      && def->editRate.denominator != 1) {
    g_set_error (error, domain, code, "flow definition: sample_rate %"
        G_GINT64_FORMAT "/%" G_GINT64_FORMAT " is not an integral rate "
        "(audio/x-raw needs one)", def->editRate.numerator,
        def->editRate.denominator);
    return FALSE;
  }
  fmt->media = (GstMxlFabricsMedia) def->mediaType;
  fmt->rate_n = (gint) def->editRate.numerator;
  fmt->rate_d = (gint) def->editRate.denominator;
  fmt->width = def->width;
  fmt->height = def->height;
  fmt->scan = (GstMxlFabricsScan) def->interlace;
  fmt->channels = def->channelCount;
  g_strlcpy (fmt->colorspace, def->colorspace, sizeof fmt->colorspace);
  g_strlcpy (fmt->transfer, def->transferCharacteristic,
      sizeof fmt->transfer);
  fmt->def = *def;
  return TRUE;
}

/* ------------------------------------------------------------------ caps */

/* What a flow definition can say about colour: "colorspace" (primaries
 * and matrix) and "transfer_characteristic" (IS-04 flow resource), for the
 * limited (16-235) range of 10-bit v210; one row per pair, with the
 * GStreamer colorimetry that means the same. The one colour rule: caps to
 * flow and back both read it. */
static const struct {
  const gchar *colorimetry;
  const gchar *colorspace;
  const gchar *transfer;
} colour_rows[] = {
  {GST_VIDEO_COLORIMETRY_BT709, "BT709", "SDR"},
  {GST_VIDEO_COLORIMETRY_BT601, "BT601", "SDR"},
  {GST_VIDEO_COLORIMETRY_BT2020, "BT2020", "SDR"},
  {GST_VIDEO_COLORIMETRY_BT2100_PQ, "BT2100", "PQ"},
  {GST_VIDEO_COLORIMETRY_BT2100_HLG, "BT2100", "HLG"},
};

/* @fmt's colorspace and transfer from the caps colorimetry: "" when the
 * caps say nothing (any matches; a flow created from them says BT709,
 * SDR); refused when no row is equivalent at v210's 10 bits. */
static gboolean
colour_from_caps (const GstStructure * s, GstMxlFabricsFormat * fmt,
    GError ** error)
{
  const gchar *text = gst_structure_get_string (s, "colorimetry");
  GstVideoColorimetry caps_c, row_c;
  guint i;

  fmt->colorspace[0] = fmt->transfer[0] = '\0';
  if (text == NULL)
    return TRUE;
  if (gst_video_colorimetry_from_string (&caps_c, text)) {
    for (i = 0; i < G_N_ELEMENTS (colour_rows); i++) {
      if (gst_video_colorimetry_from_string (&row_c,
              colour_rows[i].colorimetry)
          && gst_video_colorimetry_is_equivalent (&caps_c, 10, &row_c, 10)) {
        g_strlcpy (fmt->colorspace, colour_rows[i].colorspace,
            sizeof fmt->colorspace);
        g_strlcpy (fmt->transfer, colour_rows[i].transfer,
            sizeof fmt->transfer);
        return TRUE;
      }
    }
  }
  g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "caps colorimetry=%s cannot be expressed by an MXL flow definition "
      "(its colorspace and transfer_characteristic carry limited-range "
      "bt709, bt601, bt2020, bt2100-pq or bt2100-hlg)", text);
  return FALSE;
}

/* The caps colorimetry of a flow's colorspace and transfer ("" = BT709,
 * SDR), or NULL when no row has that pair. */
static const gchar *
colorimetry_of (const GstMxlFabricsFormat * fmt)
{
  const gchar *space = fmt->colorspace[0] ? fmt->colorspace : "BT709";
  const gchar *transfer = fmt->transfer[0] ? fmt->transfer : "SDR";
  guint i;

  for (i = 0; i < G_N_ELEMENTS (colour_rows); i++)
    if (g_ascii_strcasecmp (space, colour_rows[i].colorspace) == 0
        && g_ascii_strcasecmp (transfer, colour_rows[i].transfer) == 0)
      return colour_rows[i].colorimetry;
  return NULL;
}

/* The rate of a caps field, > 0. */
static gboolean
caps_rate (const GstStructure * s, const gchar * field, mxlRational * rate)
{
  gint n, d;

  if (!gst_structure_get_fraction (s, field, &n, &d) || n <= 0 || d <= 0)
    return FALSE;
  rate->numerator = n;
  rate->denominator = d;
  return TRUE;
}

static gboolean
video_def_from_structure (const GstStructure * s, mxlFlowExtDefinition * def,
    GError ** error)
{
  const gchar *format = gst_structure_get_string (s, "format");
  const gchar *mode = gst_structure_get_string (s, "interlace-mode");
  const gchar *order = gst_structure_get_string (s, "field-order");
  gint width, height;
  gboolean alpha = FALSE;

  if (g_strcmp0 (format, "v210") != 0) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "video caps must have format=v210 (MXL video/v210), got %s",
        format ? format : "no format");
    return FALSE;
  }
  if (!gst_structure_get_int (s, "width", &width)
      || !gst_structure_get_int (s, "height", &height)
      || width <= 0 || height <= 0) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "video caps need fixed width and height");
    return FALSE;
  }
  if (!caps_rate (s, "framerate", &def->definitionRate)) {
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

  def->mediaType = alpha ? MXL_FLOW_EXT_MEDIA_V210A : MXL_FLOW_EXT_MEDIA_V210;
  def->width = width;
  def->height = height;
  if (mode == NULL || strcmp (mode, "progressive") == 0) {
    def->interlace = MXL_FLOW_EXT_PROGRESSIVE;
  } else if (strcmp (mode, "alternate") == 0) {
    if (order == NULL || strcmp (order, "top-field-first") == 0)
      def->interlace = MXL_FLOW_EXT_INTERLACED_TFF;
    else if (strcmp (order, "bottom-field-first") == 0)
      def->interlace = MXL_FLOW_EXT_INTERLACED_BFF;
    else {
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "field-order=%s is not supported (top-field-first or "
          "bottom-field-first)", order);
      return FALSE;
    }
  } else {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "interlace-mode=%s is not supported: MXL carries one field per grain, "
        "use interlace-mode=alternate (one field per buffer) or progressive",
        mode);
    return FALSE;
  }
  return TRUE;
}

static gboolean
audio_def_from_structure (const GstStructure * s, mxlFlowExtDefinition * def,
    gboolean * interleaved, GError ** error)
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
  if (layout == NULL || strcmp (layout, "interleaved") == 0)
    *interleaved = TRUE;
  else if (strcmp (layout, "non-interleaved") == 0)
    *interleaved = FALSE;
  else {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "audio layout=%s is not supported", layout);
    return FALSE;
  }
  def->mediaType = MXL_FLOW_EXT_MEDIA_FLOAT32;
  def->definitionRate.numerator = rate;
  def->definitionRate.denominator = 1;
  def->channelCount = channels;
  return TRUE;
}

static gboolean
data_def_from_structure (const GstStructure * s, mxlFlowExtDefinition * def,
    GError ** error)
{
  if (g_strcmp0 (gst_structure_get_string (s, "alignment"), "frame") != 0) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "meta/x-st-2038 caps must have alignment=frame (one grain per frame)");
    return FALSE;
  }
  if (!caps_rate (s, "framerate", &def->definitionRate)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "meta/x-st-2038 caps need a fixed framerate > 0 (the data grain rate)");
    return FALSE;
  }
  def->mediaType = MXL_FLOW_EXT_MEDIA_SMPTE291;
  return TRUE;
}

gboolean
gst_mxl_fabrics_format_from_caps (const GstCaps * caps,
    GstMxlFabricsFormat * fmt, GError ** error)
{
  const GstStructure *s;
  mxlFlowExtDefinition def;
  gboolean interleaved = FALSE, ok;
  char *reason = NULL;

  g_return_val_if_fail (fmt != NULL, FALSE);
  memset (fmt, 0, sizeof *fmt);
  memset (&def, 0, sizeof def);

  if (caps == NULL || gst_caps_get_size (caps) != 1) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "caps must hold exactly one structure");
    return FALSE;
  }
  s = gst_caps_get_structure (caps, 0);
  if (gst_structure_has_name (s, "video/x-raw"))
    ok = video_def_from_structure (s, &def, error);
  else if (gst_structure_has_name (s, "audio/x-raw"))
    ok = audio_def_from_structure (s, &def, &interleaved, error);
  else if (gst_structure_has_name (s, "meta/x-st-2038"))
    ok = data_def_from_structure (s, &def, error);
  else {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "caps %s cannot be carried by MXL (use video/x-raw format=v210, "
        "audio/x-raw format=F32LE or meta/x-st-2038)",
        gst_structure_get_name (s));
    return FALSE;
  }
  if (!ok)
    return FALSE;

  /* The library's rules (sizes, rates, interlacing, channels), the ones
   * every flow is created by; they also give the geometry. */
  if (mxlFlowExtBuildDefinition (&def, NULL, NULL, NULL, &reason)
      != MXL_STATUS_OK) {
    if (g_str_has_prefix (reason, "flow definition: channel_count:"))
      /* in the caps' words: the field to fix is theirs */
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "audio caps channels=%u is outside 1 … %d, the most channels of "
          "an MXL flow (%s)", def.channelCount, MXL_FLOW_MAX_CHANNELS, reason);
    else
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "caps do not fit an MXL flow: %s", reason);
    free (reason);
    return FALSE;
  }
  if (!format_from_def (&def, fmt, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          error))
    return FALSE;
  fmt->interleaved = interleaved;
  /* caps without colorimetry match any colour: "" (not the BT709 and SDR
   * a flow made from them says) */
  if (!format_is_video (fmt)) {
    fmt->colorspace[0] = fmt->transfer[0] = '\0';
    return TRUE;
  }
  return colour_from_caps (s, fmt, error);
}

GstCaps *
gst_mxl_fabrics_format_to_caps (const GstMxlFabricsFormat * fmt)
{
  GstCaps *caps;
  gint n, d;

  switch (fmt->media) {
    case GST_MXL_FABRICS_MEDIA_V210:
    case GST_MXL_FABRICS_MEDIA_V210A:{
      const gchar *colorimetry = colorimetry_of (fmt);
      gboolean interlaced = fmt->scan != GST_MXL_FABRICS_SCAN_PROGRESSIVE;

      frame_rate_of (fmt, &n, &d);
      caps = gst_caps_new_simple ("video/x-raw",
          "format", G_TYPE_STRING, "v210",
          "width", G_TYPE_INT, (gint) fmt->width,
          "height", G_TYPE_INT, (gint) fmt->height,
          "framerate", GST_TYPE_FRACTION, n, d,
          "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1,
          "interlace-mode", G_TYPE_STRING,
          interlaced ? "alternate" : "progressive", NULL);
      if (colorimetry)
        gst_caps_set_simple (caps, "colorimetry", G_TYPE_STRING, colorimetry,
            NULL);
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

gboolean
gst_mxl_fabrics_format_from_flow_def (const gchar * json,
    GstMxlFabricsFormat * fmt, gchar ** flow_id, GError ** error)
{
  mxlFlowExtDefinition def;
  char *reason = NULL;

  g_return_val_if_fail (fmt != NULL, FALSE);
  memset (fmt, 0, sizeof *fmt);
  if (flow_id)
    *flow_id = NULL;
  if (mxlFlowExtParseDefinition (json, &def, &reason) != MXL_STATUS_OK) {
    g_set_error_literal (error, GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_SETTINGS, reason);
    free (reason);
    return FALSE;
  }
  if (!format_from_def (&def, fmt, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_SETTINGS, error))
    return FALSE;
  if (flow_id)
    *flow_id = g_strdup (def.id);
  return TRUE;
}

gchar *
gst_mxl_fabrics_flow_def_new (const GstMxlFabricsFormat * fmt,
    const gchar * flow_id, const gchar * label, const gchar * group_hint,
    GError ** error)
{
  mxlFlowExtDefinition def;
  gchar *hint = NULL, *default_label = NULL, *text = NULL;
  char *json = NULL, *reason = NULL;
  const gchar *role;

  g_return_val_if_fail (fmt != NULL, NULL);

  format_to_def (fmt, &def);
  if (flow_id)
    g_strlcpy (def.id, flow_id, sizeof def.id);
  switch (fmt->media) {
    case GST_MXL_FABRICS_MEDIA_AUDIO:
      role = "Audio";
      break;
    case GST_MXL_FABRICS_MEDIA_DATA:
      role = "Data";
      break;
    default:
      role = "Video";
      break;
  }
  if (group_hint == NULL)
    group_hint = hint = g_strdup_printf ("gst-mxl-fabrics %d:%s",
        (int) getpid (), role);
  if (label == NULL)
    label = default_label = g_strdup_printf ("gst-mxl-fabrics %s flow",
        mxlFlowExtMediaTypeName ((mxlFlowExtMediaType) fmt->media));

  if (flow_id && strlen (flow_id) >= sizeof def.id)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "flow definition: id: \"%s\" is not a UUID", flow_id);
  else if (mxlFlowExtBuildDefinition (&def, label, group_hint, &json, &reason)
      != MXL_STATUS_OK)
    g_set_error_literal (error, GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_SETTINGS, reason);
  else
    text = g_strdup (json);
  free (json);
  free (reason);
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
          mxlFlowExtMediaTypeName ((mxlFlowExtMediaType) caps_fmt->media),
          mxlFlowExtMediaTypeName ((mxlFlowExtMediaType) flow_fmt->media));
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
    if (caps_fmt->transfer[0] != '\0' && flow_fmt->transfer[0] != '\0'
        && g_ascii_strcasecmp (caps_fmt->transfer, flow_fmt->transfer) != 0) {
      MISMATCH (error, "caps colorimetry (transfer_characteristic %s) does "
          "not match the flow's transfer_characteristic %s",
          caps_fmt->transfer, flow_fmt->transfer);
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
