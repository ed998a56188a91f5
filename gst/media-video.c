/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Video media operations (media.h): `video/v210` and `video/v210a` (v210
 * fill + 10-bit key, laid out as caps.h describes), progressive or one
 * field per grain; and the choice of the operations.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "media.h"
#include "mxlfabricssink.h"
#include "mxlfabricssrc.h"

#include <string.h>

/* Copies @buffer into @payload (grain_size bytes): v210 lines re-strided
 * from a GstVideoMeta, the v210a key plane after the fill. */
static gboolean
video_fill_grain (GstMxlFabricsSink * self, GstBuffer * buffer,
    guint8 * payload)
{
  const mxlFlowExtDefinition *def = &self->format.def;
  gsize size = gst_buffer_get_size (buffer);
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);
  guint lines = def->totalSlices;
  gsize v = def->sliceSizes[0];
  gsize a = def->sliceSizes[1];
  gsize offset = meta ? meta->offset[0] : 0;
  gsize stride = meta ? (gsize) meta->stride[0] : v;
  gsize need = offset + stride * (lines - 1) + v;
  gsize key_offset = offset + stride * lines;
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
    need = key_offset + a * lines;
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
  if (stride == v) {
    memcpy (payload, map.data + offset, v * lines);
  } else {
    for (l = 0; l < lines; l++)
      memcpy (payload + l * v, map.data + offset + l * stride, v);
  }
  if (alpha)
    memcpy (payload + v * lines, map.data + key_offset, a * lines);
  gst_buffer_unmap (buffer, &map);
  return TRUE;
}

/* A field of interlaced video is flagged with its parity (caps.h). */
static GstBuffer *
video_finish_grain (GstMxlFabricsSrc * self, GstBuffer * grain, guint64 index)
{
  GST_BUFFER_FLAG_SET (grain, gst_mxl_fabrics_field_flags_for_index
      (&self->format, index));
  return grain;
}

mxlStatus
gst_mxl_fabrics_media_post_grain (mxlFabricsInitiator initiator, guint64 index, gsize count,
    guint16 total_slices)
{
  return mxlFabricsInitiatorTransferGrain (initiator, index, 0, total_slices);
}

const GstMxlFabricsMediaOps gst_mxl_fabrics_media_video = {
  .name = "video",
  GST_MXL_FABRICS_MEDIA_GRAIN_OPS,
  .fill_grain = video_fill_grain,
  .finish_grain = video_finish_grain,
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
