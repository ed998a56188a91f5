/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Caps <-> NMOS flow definition and grain geometry; see caps.h for the
 * representation of each MXL media type in caps. What is particular to a
 * media (its caps fields, its flow fields, its mismatches) is in its ops
 * table (media.h: media-video.c, media-audio.c, media-anc.c); this file
 * picks the table and runs the library's checks all media share.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "caps.h"
#include "media.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The library's values, so that no table maps one onto the other. */
G_STATIC_ASSERT ((int) GST_MXL_FABRICS_MEDIA_V210 == (int) MXL_FLOW_EXT_MEDIA_V210);
G_STATIC_ASSERT ((int) GST_MXL_FABRICS_MEDIA_AUDIO == (int) MXL_FLOW_EXT_MEDIA_FLOAT32);
G_STATIC_ASSERT ((int) GST_MXL_FABRICS_SCAN_INTERLACED_BFF == (int) MXL_FLOW_EXT_INTERLACED_BFF);

gsize
gst_mxl_fabrics_format_grain_size (const GstMxlFabricsFormat * fmt)
{
  return fmt->def.grainSize;
}

GstVideoBufferFlags
gst_mxl_fabrics_field_flags_for_index (const GstMxlFabricsFormat * fmt,
    guint64 index)
{
  const GstMxlFabricsMediaOps *ops = gst_mxl_fabrics_media_ops (fmt->media);

  return ops->field_flags (fmt, index);
}

/* ------------------------------------------------------- the ops tables */

/* The tables that have caps, each once (v210 and v210a share one). */
static const GstMxlFabricsMediaOps *const caps_tables[] = {
  &gst_mxl_fabrics_media_video,
  &gst_mxl_fabrics_media_audio,
  &gst_mxl_fabrics_media_anc,
};

/* The table whose caps structure @s is, or NULL. */
static const GstMxlFabricsMediaOps *
ops_for_caps (const GstStructure * s)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (caps_tables); i++)
    if (gst_structure_has_name (s, caps_tables[i]->caps_name))
      return caps_tables[i];
  return NULL;
}

const GstMxlFabricsMediaOps *
gst_mxl_fabrics_media_ops_for_caps (const GstCaps * caps)
{
  return caps && gst_caps_get_size (caps) > 0 ?
      ops_for_caps (gst_caps_get_structure (caps, 0)) : NULL;
}

gboolean
gst_mxl_fabrics_media_never_lends (const GstMxlFabricsFormat * fmt)
{
  return FALSE;
}

gboolean
gst_mxl_fabrics_media_no_payload_offset (const GstMxlFabricsFormat * fmt,
    GstBuffer * buffer, gsize * offset)
{
  return FALSE;
}

/* ------------------------------------------------ format <-> flow summary */

/* What @fmt says in the library's terms (the rates as the flow definition
 * writes them); the derived fields are the library's to fill. */
static void
format_to_def (const GstMxlFabricsFormat * fmt, mxlFlowExtDefinition * def)
{
  const GstMxlFabricsMediaOps *ops = gst_mxl_fabrics_media_ops (fmt->media);

  memset (def, 0, sizeof *def);
  def->mediaType = (mxlFlowExtMediaType) fmt->media;
  def->definitionRate.numerator = fmt->rate_n;
  def->definitionRate.denominator = fmt->rate_d;
  ops->to_def (fmt, def);
}

/* @fmt from a summary the library checked; FALSE (@fmt untouched) when
 * its rate has no caps form. */
static gboolean
format_from_def (const mxlFlowExtDefinition * def, GstMxlFabricsFormat * fmt,
    GQuark domain, gint code, GError ** error)
{
  const GstMxlFabricsMediaOps *ops =
      gst_mxl_fabrics_media_ops ((GstMxlFabricsMedia) def->mediaType);

  if (def->editRate.numerator > G_MAXINT || def->editRate.denominator > G_MAXINT) {
    g_set_error (error, domain, code, "flow definition: rate %" G_GINT64_FORMAT
        "/%" G_GINT64_FORMAT " does not fit 32 bits once reduced",
        def->editRate.numerator, def->editRate.denominator);
    return FALSE;
  }
  if (!ops->def_has_caps (def, domain, code, error))
    return FALSE;
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

gboolean
gst_mxl_fabrics_caps_get_rate (const GstStructure * s, const gchar * field,
    mxlRational * rate)
{
  gint n, d;

  if (!gst_structure_get_fraction (s, field, &n, &d) || n <= 0 || d <= 0)
    return FALSE;
  rate->numerator = n;
  rate->denominator = d;
  return TRUE;
}

gboolean
gst_mxl_fabrics_format_from_caps (const GstCaps * caps,
    GstMxlFabricsFormat * fmt, GError ** error)
{
  const GstMxlFabricsMediaOps *ops;
  const GstStructure *s;
  mxlFlowExtDefinition def;
  GstMxlFabricsFormat caps_only;        /* what no flow says: interleaved */
  char *reason = NULL;

  g_return_val_if_fail (fmt != NULL, FALSE);
  memset (fmt, 0, sizeof *fmt);
  memset (&def, 0, sizeof def);
  memset (&caps_only, 0, sizeof caps_only);

  if (caps == NULL || gst_caps_get_size (caps) != 1) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "caps must hold exactly one structure");
    return FALSE;
  }
  s = gst_caps_get_structure (caps, 0);
  ops = ops_for_caps (s);
  if (ops == NULL) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "caps %s cannot be carried by MXL (use video/x-raw format=v210, "
        "audio/x-raw format=F32LE or meta/x-st-2038)",
        gst_structure_get_name (s));
    return FALSE;
  }
  if (!ops->def_from_caps (s, &def, &caps_only, error))
    return FALSE;

  /* The library's rules (sizes, rates, interlacing, channels), the ones
   * every flow is created by; they also give the geometry. */
  if (mxlFlowExtBuildDefinition (&def, NULL, NULL, NULL, &reason)
      != MXL_STATUS_OK) {
    if (!ops->caps_refused (&def, reason, error))
      g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          "caps do not fit an MXL flow: %s", reason);
    free (reason);
    return FALSE;
  }
  if (!format_from_def (&def, fmt, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
          error))
    return FALSE;
  fmt->interleaved = caps_only.interleaved;
  /* caps without colorimetry match any colour: "" (not the BT709 and SDR
   * a flow made from them says); only a media's finish_caps reads one */
  fmt->colorspace[0] = fmt->transfer[0] = '\0';
  return ops->finish_caps (s, fmt, error);
}

GstCaps *
gst_mxl_fabrics_format_to_caps (const GstMxlFabricsFormat * fmt)
{
  const GstMxlFabricsMediaOps *ops = gst_mxl_fabrics_media_ops (fmt->media);

  return ops->to_caps (fmt);
}

GstCaps *
gst_mxl_fabrics_format_to_sink_caps (const GstMxlFabricsFormat * fmt)
{
  const GstMxlFabricsMediaOps *ops = gst_mxl_fabrics_media_ops (fmt->media);

  return ops->sink_caps (fmt);
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
  const GstMxlFabricsMediaOps *ops;
  mxlFlowExtDefinition def;
  gchar *hint = NULL, *default_label = NULL, *text = NULL;
  char *json = NULL, *reason = NULL;

  g_return_val_if_fail (fmt != NULL, NULL);

  ops = gst_mxl_fabrics_media_ops (fmt->media);
  format_to_def (fmt, &def);
  if (flow_id)
    g_strlcpy (def.id, flow_id, sizeof def.id);
  if (group_hint == NULL)
    group_hint = hint = g_strdup_printf ("gst-mxl-fabrics %d:%s",
        (int) getpid (), ops->group_role);
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

gboolean
gst_mxl_fabrics_format_check_rate (const GstMxlFabricsFormat * caps_fmt,
    const GstMxlFabricsFormat * flow_fmt, const gchar * flow_field,
    GError ** error)
{
  gboolean audio = g_str_equal (flow_field, "sample_rate");

  if ((gint64) caps_fmt->rate_n * flow_fmt->rate_d ==
      (gint64) flow_fmt->rate_n * caps_fmt->rate_d)
    return TRUE;
  /* named as the caps name it: rate (audio), framerate (a grain rate);
   * an interlaced flow's edit rate is its field rate */
  if (audio && caps_fmt->rate_d == 1 && flow_fmt->rate_d == 1)
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "caps rate %d does not match the flow's sample_rate %d",
        caps_fmt->rate_n, flow_fmt->rate_n);
  else if (audio || g_str_equal (flow_field, "grain_rate"))
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "caps %s %d/%d does not match the flow's %s %d/%d",
        audio ? "rate" : "framerate", caps_fmt->rate_n, caps_fmt->rate_d,
        flow_field, flow_fmt->rate_n, flow_fmt->rate_d);
  else
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "caps field rate %d/%d does not match the flow's %d/%d (%s)",
        caps_fmt->rate_n, caps_fmt->rate_d, flow_fmt->rate_n,
        flow_fmt->rate_d, flow_field);
  return FALSE;
}

gboolean
gst_mxl_fabrics_format_check_match (const GstMxlFabricsFormat * caps_fmt,
    const GstMxlFabricsFormat * flow_fmt, GError ** error)
{
  const GstMxlFabricsMediaOps *ops = gst_mxl_fabrics_media_ops
      (flow_fmt->media);

  /* v210 against v210a is the video table's to tell (one table) */
  if (gst_mxl_fabrics_media_ops (caps_fmt->media) != ops) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "caps media %s does not match the flow's media_type %s",
        mxlFlowExtMediaTypeName ((mxlFlowExtMediaType) caps_fmt->media),
        mxlFlowExtMediaTypeName ((mxlFlowExtMediaType) flow_fmt->media));
    return FALSE;
  }
  return ops->check_match (caps_fmt, flow_fmt, error);
}
