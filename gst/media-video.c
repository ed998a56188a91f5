/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Video media operations (media.h): `video/v210` and `video/v210a` (v210
 * fill + 10-bit key, laid out as caps.h describes), progressive or one
 * field per grain, the fields of a frame in one buffer or one each
 * (interlace-mode interleaved or alternate): buffers, caps (with the colorimetry <->
 * colorspace/transfer_characteristic table, docs/flow-format.md §2.3) and
 * flow definitions; and the choice of the operations.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "media.h"
#include "mxlfabricssink.h"
#include "mxlfabricssrc.h"

#include <string.h>

/* Copies @buffer into @payload (grain_size bytes): v210 lines re-strided
 * from a GstVideoMeta, the v210a key plane after the fill. A woven frame
 * (format.interleaved, interlace-mode=interleaved) gives the field that
 * video_write() flagged its view of the frame with: lines @first, @first +
 * 2, ... of the frame, of fill and key alike. */
static gboolean
video_fill_grain (GstMxlFabricsSink * self, GstBuffer * buffer,
    guint8 * payload)
{
  const mxlFlowExtDefinition *def = &self->format.def;
  gsize size = gst_buffer_get_size (buffer);
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  guint lines = def->totalSlices;
  guint step = self->format.interleaved ? 2 : 1;
  guint first = self->format.interleaved && !GST_BUFFER_FLAG_IS_SET (buffer,
      GST_VIDEO_BUFFER_FLAG_TFF) ? 1 : 0;
  gsize v = def->sliceSizes[0];
  gsize a = def->sliceSizes[1];
  gsize offset = meta ? meta->offset[0] : 0;
  gsize stride = meta ? (gsize) meta->stride[0] : v;
  gsize frame_lines = (gsize) lines * step;
  gsize need = offset + stride * (frame_lines - 1) + v;
  gsize key_offset = offset + stride * frame_lines;
  gboolean alpha = a > 0;
  GstMapInfo map;
  guint l;

  if (meta && (meta->stride[0] <= 0 || offset > size)) {
    /* a cast to gsize would wrap the checks below around */
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("cannot use the video "
            "buffer: its GstVideoMeta has stride %d and offset %"
            G_GSIZE_FORMAT " for a buffer of %" G_GSIZE_FORMAT " bytes",
            meta->stride[0], offset, size), (NULL));
    return FALSE;
  }
  if (alpha)
    need = key_offset + a * frame_lines;
  if (stride < v || size < need) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("buffer too small for the "
            "caps"), ("%s buffer of %" G_GSIZE_FORMAT " bytes (stride %"
            G_GSIZE_FORMAT ") needs %" G_GSIZE_FORMAT " bytes%s", alpha ?
            "v210a" : "v210", size, stride, need, alpha ? ": a v210a "
            "buffer holds the key plane after the fill; an element that "
            "re-created it as plain v210 lost the key" : ""));
    return FALSE;
  }
  if (!gst_buffer_map (buffer, &map, GST_MAP_READ))
    return FALSE;
  if (stride == v && step == 1) {
    memcpy (payload, map.data + offset, v * lines);
  } else {
    for (l = 0; l < lines; l++)
      memcpy (payload + l * v, map.data + offset + (first + l * step) * stride,
          v);
  }
  if (alpha && step == 1)
    memcpy (payload + v * lines, map.data + key_offset, a * lines);
  else if (alpha) {
    for (l = 0; l < lines; l++)
      memcpy (payload + v * lines + l * a, map.data + key_offset +
          (first + l * step) * a, a);
  }
  gst_buffer_unmap (buffer, &map);
  return TRUE;
}

/* ---- woven frames (interlace-mode=interleaved, caps.h) ---- */

/* The sink's index of a woven frame: that of its first field, at an index
 * of the first field's parity (even, caps.h); its second field takes the
 * next one, which the sink's index state then holds. */
static guint64
video_index (GstMxlFabricsSink * self, GstBuffer * buffer)
{
  gboolean had = self->have_last;
  guint64 before = self->last_index;
  guint64 index = gst_mxl_fabrics_sink_grain_index (self, buffer);

  if (!self->format.interleaved || index == G_MAXUINT64)
    return index;
  if (index % 2 == 1)
    index = index > 0 && (!had || index - 1 > before) ? index - 1 : index + 1;
  gst_mxl_fabrics_sink_take_index (self, index + 1);
  return index;
}

/* The sink's write of a woven frame: its two fields, each a view of the
 * frame (its memory shared, not copied) flagged with the field it stands
 * for (TFF: the top one), into grains @index (the first in time: top for
 * tff flows, bottom for bff) and @index + 1. A frame whose own flags give
 * the other field order than the flow (caps without field-order, buffer
 * flags without TFF) is still split by the flow's order, with a
 * WARNING-level debug line: the flow's order is fixed when it is made. */
static GstFlowReturn
video_write (GstMxlFabricsSink * self, GstBuffer * buffer, guint64 index)
{
  gboolean tff = self->format.scan == GST_MXL_FABRICS_SCAN_INTERLACED_TFF;
  GstFlowReturn ret = GST_FLOW_OK;
  guint f;

  if (!self->format.interleaved)
    return gst_mxl_fabrics_sink_write_grain (self, buffer, index);
  if (GST_BUFFER_FLAG_IS_SET (buffer, GST_VIDEO_BUFFER_FLAG_INTERLACED)
      && GST_BUFFER_FLAG_IS_SET (buffer, GST_VIDEO_BUFFER_FLAG_TFF) != tff)
    GST_WARNING_OBJECT (self, "frame at grain %" G_GUINT64_FORMAT " says "
        "%s field first, the flow is %s: split in the flow's order", index,
        tff ? "bottom" : "top", tff ? "interlaced_tff" : "interlaced_bff");
  for (f = 0; f < 2 && ret == GST_FLOW_OK; f++) {
    GstBuffer *field = gst_buffer_copy (buffer);
    gboolean top = (f == 0) == tff;

    GST_BUFFER_FLAG_UNSET (field, GST_VIDEO_BUFFER_FLAG_TFF);
    if (top)
      GST_BUFFER_FLAG_SET (field, GST_VIDEO_BUFFER_FLAG_TFF);
    ret = gst_mxl_fabrics_sink_write_grain (self, field, index + f);
    gst_buffer_unref (field);
  }
  return ret;
}

/* The src's first field of the frame being woven (a GstBuffer of the
 * field's grain, stamped), kept on the element until its second field. */
#define PENDING_FIELD "mxl-fabrics-woven-first"

/* Weaves @first (grain 2j) and @second (grain 2j + 1), the two fields of a
 * frame, into one frame buffer (fill lines alternating, the key plane
 * after the fill likewise); the frame takes @first's time, flags and
 * reference timestamp meta, and both fields' duration and offsets. */
static GstBuffer *
weave (GstMxlFabricsSrc * self, GstBuffer * first, GstBuffer * second)
{
  const mxlFlowExtDefinition *def = &self->format.def;
  guint lines = def->totalSlices, l, f;
  gsize v = def->sliceSizes[0], a = def->sliceSizes[1];
  gboolean tff = self->format.scan == GST_MXL_FABRICS_SCAN_INTERLACED_TFF;
  GstBuffer *frame = gst_buffer_new_allocate (NULL, 2 * self->grain_size,
      NULL);
  GstReferenceTimestampMeta *ref = gst_buffer_get_reference_timestamp_meta
      (first, NULL);
  GstMapInfo out, in;

  gst_buffer_map (frame, &out, GST_MAP_WRITE);
  for (f = 0; f < 2; f++) {
    /* the top field is the frame's even lines */
    guint line0 = (f == 0) == tff ? 0 : 1;

    gst_buffer_map (f == 0 ? first : second, &in, GST_MAP_READ);
    for (l = 0; l < lines; l++) {
      memcpy (out.data + (line0 + 2 * l) * v, in.data + l * v, v);
      if (a > 0)
        memcpy (out.data + 2 * lines * v + (line0 + 2 * l) * a,
            in.data + lines * v + l * a, a);
    }
    gst_buffer_unmap (f == 0 ? first : second, &in);
  }
  gst_buffer_unmap (frame, &out);
  GST_BUFFER_PTS (frame) = GST_BUFFER_PTS (first);
  if (GST_BUFFER_DURATION_IS_VALID (first)
      && GST_BUFFER_DURATION_IS_VALID (second))
    GST_BUFFER_DURATION (frame) = GST_BUFFER_DURATION (first) +
        GST_BUFFER_DURATION (second);
  GST_BUFFER_OFFSET (frame) = GST_BUFFER_OFFSET (first);
  GST_BUFFER_OFFSET_END (frame) = GST_BUFFER_OFFSET_END (second);
  if (ref != NULL)
    gst_buffer_add_reference_timestamp_meta (frame, ref->reference,
        ref->timestamp, GST_BUFFER_DURATION (frame));
  GST_BUFFER_FLAG_SET (frame, GST_VIDEO_BUFFER_FLAG_INTERLACED);
  if (tff)
    GST_BUFFER_FLAG_SET (frame, GST_VIDEO_BUFFER_FLAG_TFF);
  if (GST_BUFFER_FLAG_IS_SET (first, GST_BUFFER_FLAG_DISCONT))
    GST_BUFFER_FLAG_SET (frame, GST_BUFFER_FLAG_DISCONT);
  return frame;
}

/* The src's read: one field per buffer, or, woven, one frame per buffer
 * once both its fields arrived (grains 2j and 2j + 1, in order: the grain
 * machinery pushes indices in order). A second field whose first did not
 * arrive (missing, lapped, torn: counted there, as the loss of the frame)
 * cannot make a frame: it is left out, with a debug line. */
static GstFlowReturn
video_read (GstMxlFabricsSrc * self, gint64 offset, GstBuffer ** buffer)
{
  GstBuffer *field = NULL, *first;
  GstFlowReturn ret;
  guint64 index;

  ret = gst_mxl_fabrics_src_read_grains (self, offset, &field);
  if (!self->format.interleaved || ret != GST_FLOW_OK || field == NULL) {
    *buffer = field;
    return ret;
  }
  *buffer = NULL;
  index = GST_BUFFER_OFFSET (field);
  if (index % 2 == 0) {
    g_object_set_data_full (G_OBJECT (self), PENDING_FIELD, field,
        (GDestroyNotify) gst_buffer_unref);
    return GST_FLOW_OK;
  }
  first = g_object_steal_data (G_OBJECT (self), PENDING_FIELD);
  if (first != NULL && GST_BUFFER_OFFSET (first) + 1 == index)
    *buffer = weave (self, first, field);
  else {
    GST_DEBUG_OBJECT (self, "field %" G_GUINT64_FORMAT " without the first "
        "field of its frame: left out", index);
  }
  if (first != NULL)
    gst_buffer_unref (first);
  gst_buffer_unref (field);
  return GST_FLOW_OK;
}

/* A field of interlaced video is flagged with its parity (caps.h). */
static GstBuffer *
video_finish_grain (GstMxlFabricsSrc * self, GstBuffer * grain, guint64 index)
{
  GST_BUFFER_FLAG_SET (grain, gst_mxl_fabrics_field_flags_for_index
      (&self->format, index));
  return grain;
}

/* Zero-copy only for a buffer that is one grain: not for woven frames,
 * whose fields are split into two grains. */
static gboolean
video_can_lend (const GstMxlFabricsFormat * fmt)
{
  return !fmt->interleaved;
}

/* A buffer whose fill lines have no padding (a GstVideoMeta, if any,
 * with the flow's line length as stride; the v210a key plane then follows
 * the fill) is the payload from the meta's offset on. */
static gboolean
video_payload_offset (const GstMxlFabricsFormat * fmt, GstBuffer * buffer,
    gsize * offset)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);

  *offset = meta ? meta->offset[0] : 0;
  return meta == NULL || (gsize) meta->stride[0] ==
      mxlFlowExtV210LineBytes (fmt->width);
}

/* Strides are honoured (video_fill_grain); the pool of frame-sized
 * buffers tells by its flushing that upstream has an EOS to push
 * (sinkpool.h). */
static guint
video_propose_allocation (GstQuery * query, GstCaps * caps)
{
  GstVideoInfo info;

  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  if (!gst_video_info_from_caps (&info, caps) || info.size == 0
      || info.size > G_MAXUINT)
    return 0;
  return (guint) info.size;
}

/* ------------------------------------------------------------------ caps */

void
gst_mxl_fabrics_format_frame_rate (const GstMxlFabricsFormat * fmt, gint * n,
    gint * d)
{
  /* GStreamer's alternate-mode caps and NMOS both give the FRAME rate;
   * the edit rate of an interlaced format is the field rate. */
  if ((fmt->media == GST_MXL_FABRICS_MEDIA_V210
          || fmt->media == GST_MXL_FABRICS_MEDIA_V210A)
      && fmt->scan != GST_MXL_FABRICS_SCAN_PROGRESSIVE)
    gst_util_fraction_multiply (fmt->rate_n, fmt->rate_d, 1, 2, n, d);
  else {
    *n = fmt->rate_n;
    *d = fmt->rate_d;
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
video_finish_caps (const GstStructure * s, GstMxlFabricsFormat * fmt,
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

/* video/x-raw, format=v210 (mxl-alpha=true for v210a), progressive,
 * alternate or interleaved (caps.h) into the flow summary. */
static gboolean
video_def_from_caps (const GstStructure * s, mxlFlowExtDefinition * def,
    GstMxlFabricsFormat * fmt, GError ** error)
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
  if (!gst_mxl_fabrics_caps_get_rate (s, "framerate", &def->definitionRate)) {
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
  } else if (strcmp (mode, "alternate") == 0
      || strcmp (mode, "interleaved") == 0) {
    /* interleaved: both fields woven in each buffer, as capture cards
     * deliver them; the sink splits them into the flow's two grains */
    fmt->interleaved = strcmp (mode, "interleaved") == 0;
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
        "use interlace-mode=alternate (one field per buffer), interleaved "
        "(both fields in one buffer) or progressive",
        mode);
    return FALSE;
  }
  return TRUE;
}

static GstCaps *
video_to_caps (const GstMxlFabricsFormat * fmt)
{
  const gchar *colorimetry = colorimetry_of (fmt);
  gboolean interlaced = fmt->scan != GST_MXL_FABRICS_SCAN_PROGRESSIVE;
  GstCaps *caps;
  gint n, d;

  gst_mxl_fabrics_format_frame_rate (fmt, &n, &d);
  caps = gst_caps_new_simple ("video/x-raw",
      "format", G_TYPE_STRING, "v210",
      "width", G_TYPE_INT, (gint) fmt->width,
      "height", G_TYPE_INT, (gint) fmt->height,
      "framerate", GST_TYPE_FRACTION, n, d,
      "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1,
      "interlace-mode", G_TYPE_STRING, !interlaced ? "progressive" :
      fmt->interleaved ? "interleaved" : "alternate", NULL);
  if (colorimetry)
    gst_caps_set_simple (caps, "colorimetry", G_TYPE_STRING, colorimetry,
        NULL);
  if (interlaced) {
    gst_caps_set_simple (caps, "field-order", G_TYPE_STRING,
        fmt->scan == GST_MXL_FABRICS_SCAN_INTERLACED_TFF ?
        "top-field-first" : "bottom-field-first", NULL);
    if (!fmt->interleaved)
      gst_caps_set_features (caps, 0,
          gst_caps_features_new (GST_CAPS_FEATURE_FORMAT_INTERLACED, NULL));
  }
  if (fmt->media == GST_MXL_FABRICS_MEDIA_V210A)
    gst_caps_set_simple (caps, GST_MXL_FABRICS_CAPS_FIELD_ALPHA,
        G_TYPE_BOOLEAN, TRUE, NULL);
  return caps;
}

/* The src's caps first (square pixels, the flow's colorimetry); for an
 * interlaced flow also its frames with both fields woven in one buffer
 * (interlace-mode=interleaved, system memory: the sink splits them); then
 * the same without what the sink accepted before as not compared or
 * compared only when given (gst_mxl_fabrics_format_check_match()), so that
 * caps ACCEPT_CAPS took from the template stay accepted. */
static GstCaps *
video_sink_caps (const GstMxlFabricsFormat * fmt)
{
  GstCaps *caps = video_to_caps (fmt);
  GstStructure *exact = gst_structure_copy (gst_caps_get_structure (caps, 0));

  gst_structure_remove_fields (exact, "pixel-aspect-ratio", "colorimetry",
      "interlace-mode", "field-order", NULL);
  if (fmt->scan != GST_MXL_FABRICS_SCAN_PROGRESSIVE) {
    GstStructure *woven = gst_structure_copy (exact);

    gst_structure_set (woven, "interlace-mode", G_TYPE_STRING, "interleaved",
        NULL);
    gst_caps_append_structure (caps, woven);
  }
  gst_caps_append_structure_full (caps, exact,
      gst_caps_features_copy (gst_caps_get_features (caps, 0)));
  return caps;
}

static gboolean
video_caps_refused (const mxlFlowExtDefinition * def, const gchar * reason,
    GError ** error)
{
  return FALSE;                 /* caps.c's message names the rule */
}

/* Every v210 flow has caps. */
static gboolean
video_def_has_caps (const mxlFlowExtDefinition * def, GQuark domain,
    gint code, GError ** error)
{
  return TRUE;
}

/* The flow definition gives the FRAME rate ("grain_rate"). */
static void
video_to_def (const GstMxlFabricsFormat * fmt, mxlFlowExtDefinition * def)
{
  gint n, d;

  gst_mxl_fabrics_format_frame_rate (fmt, &n, &d);
  def->definitionRate.numerator = n;
  def->definitionRate.denominator = d;
  def->width = fmt->width;
  def->height = fmt->height;
  def->interlace = (mxlFlowExtInterlace) fmt->scan;
  g_strlcpy (def->colorspace, fmt->colorspace, sizeof def->colorspace);
  g_strlcpy (def->transferCharacteristic, fmt->transfer,
      sizeof def->transferCharacteristic);
}

#define MISMATCH(error, ...) \
  g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, __VA_ARGS__)

static gboolean
video_check_match (const GstMxlFabricsFormat * caps_fmt,
    const GstMxlFabricsFormat * flow_fmt, GError ** error)
{
  if (caps_fmt->media == GST_MXL_FABRICS_MEDIA_V210
      && flow_fmt->media == GST_MXL_FABRICS_MEDIA_V210A) {
    MISMATCH (error, "the flow is video/v210a (fill + key) but the caps "
        "have no key plane: add " GST_MXL_FABRICS_CAPS_FIELD_ALPHA "=true");
    return FALSE;
  }
  if (caps_fmt->media == GST_MXL_FABRICS_MEDIA_V210A
      && flow_fmt->media == GST_MXL_FABRICS_MEDIA_V210) {
    MISMATCH (error, "the caps carry a key plane ("
        GST_MXL_FABRICS_CAPS_FIELD_ALPHA "=true) but the flow is video/v210");
    return FALSE;
  }
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
  return gst_mxl_fabrics_format_check_rate (caps_fmt, flow_fmt,
      flow_fmt->scan != GST_MXL_FABRICS_SCAN_PROGRESSIVE ?
      "field rate = 2 x grain_rate" : "grain_rate", error);
}

/* A field's parity by its index: the first field (of the scan order) at
 * an even index (caps.h). */
static GstVideoBufferFlags
video_field_flags (const GstMxlFabricsFormat * fmt, guint64 index)
{
  gboolean first = (index % 2) == 0;

  switch (fmt->scan) {
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

const GstMxlFabricsMediaOps gst_mxl_fabrics_media_video = {
  .name = "video",
  /* GST_MXL_FABRICS_MEDIA_GRAIN_OPS (media.h), woven frames wrapped round
   * its index, write and read */
  .index = video_index,
  .write = video_write,
  .post = gst_mxl_fabrics_sink_post_grain,
  .can_lend = video_can_lend,
  .payload_offset = video_payload_offset,
  .propose_allocation = video_propose_allocation,
  .read = video_read,
  .fill_grain = video_fill_grain,
  .finish_grain = video_finish_grain,
  .src_weaves = TRUE,
  .caps_name = "video/x-raw",
  .group_role = "Video",
  .convert_hint = "convert upstream: ... ! videoconvert ! videoscale ! "
      "videorate ! mxlfabricssink",
  .def_from_caps = video_def_from_caps,
  .caps_refused = video_caps_refused,
  .finish_caps = video_finish_caps,
  .def_has_caps = video_def_has_caps,
  .to_caps = video_to_caps,
  .sink_caps = video_sink_caps,
  .to_def = video_to_def,
  .check_match = video_check_match,
  .field_flags = video_field_flags,
};

const GstMxlFabricsMediaOps *
gst_mxl_fabrics_media_ops (GstMxlFabricsMedia media)
{
  switch (media) {
    case GST_MXL_FABRICS_MEDIA_V210:
    case GST_MXL_FABRICS_MEDIA_V210A:
      /* the key plane changes only the geometry (format.def), which the
       * same operations read */
      return &gst_mxl_fabrics_media_video;
    case GST_MXL_FABRICS_MEDIA_AUDIO:
      return &gst_mxl_fabrics_media_audio;
    case GST_MXL_FABRICS_MEDIA_DATA:
      return &gst_mxl_fabrics_media_anc;
    default:
      return NULL;
  }
}
