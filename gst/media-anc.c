/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ANC data media operations (media.h): `video/smpte291` grains carried as
 * `meta/x-st-2038` buffers, converted by the library (<mxl/flow-ext.h>,
 * docs/anc-data.md), and their caps and flow definitions.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "media.h"
#include "grainpool.h"
#include "mxlfabricssink.h"
#include "mxlfabricssrc.h"

#include <string.h>

#include <mxl/flow-ext.h>

/* Converts the ST 2038 @buffer into the RFC 8331 payload of a data grain
 * (docs/flow-format.md §3.10) with the library (mxlAncGrainFromSt2038(),
 * docs/anc-data.md), zeros after it. Packets that cannot be carried are
 * dropped and counted (anc-packets-dropped); a buffer too large for one
 * grain is never cut: its grain is written empty (ANC_Count 0). */
static gboolean
anc_fill_grain (GstMxlFabricsSink * self, GstBuffer * buffer,
    guint8 * payload)
{
  mxlAncStats stats;
  GstMapInfo map;
  gsize size = 0;
  guint64 dropped;
  mxlStatus st;

  if (!gst_buffer_map (buffer, &map, GST_MAP_READ))
    return FALSE;
  st = mxlAncGrainFromSt2038 (map.data, map.size, payload,
      MXL_DATA_FORMAT_GRAIN_SIZE, &size, &stats);
  gst_buffer_unmap (buffer, &map);
  dropped = (guint64) stats.badParity + stats.badChecksum + stats.malformed;
  if (st == MXL_ERR_STRLEN) {
    gchar *what = g_strdup_printf ("an ST 2038 buffer of %u ANC packets "
        "needs %" G_GSIZE_FORMAT " bytes as RFC 8331, a video/smpte291 grain "
        "holds %d bytes and %d packets: its packets are dropped, the grain "
        "is written empty", stats.packets, size,
        MXL_DATA_FORMAT_GRAIN_SIZE, MXL_ANC_MAX_PACKETS);
    gst_mxl_fabrics_object_count_anc_dropped (self->obj,
        dropped + stats.packets, what);
    g_free (what);
    dropped = 0;
    st = mxlAncGrainFromSt2038 (NULL, 0, payload,
        MXL_DATA_FORMAT_GRAIN_SIZE, &size, NULL);
  }
  if (st != MXL_STATUS_OK) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("cannot convert ANC data"),
        ("mxlAncGrainFromSt2038: %s", gst_mxl_fabrics_status_name (st)));
    return FALSE;
  }
  if (dropped > 0) {
    gchar *what = g_strdup_printf ("%" G_GUINT64_FORMAT " ANC packets of an "
        "ST 2038 buffer dropped (%u bad parity, %u bad checksum, %u cut "
        "short or malformed), %u kept", dropped, stats.badParity,
        stats.badChecksum, stats.malformed, stats.packets);
    gst_mxl_fabrics_object_count_anc_dropped (self->obj, dropped, what);
    g_free (what);
  }
  memset (payload + size, 0, MXL_DATA_FORMAT_GRAIN_SIZE - size);
  return TRUE;
}

/* Turns @grain, the copy of a data grain (an RFC 8331 payload from its
 * Length field, docs/flow-format.md §3.10), into the ST 2038 buffer pushed
 * downstream with the library (mxlAncGrainToSt2038(), docs/anc-data.md).
 * Packets with bad parity or checksum or cut short are dropped and counted
 * (anc-packets-dropped); the others are pushed, possibly none (an empty
 * buffer keeps the frame's time). Takes @grain. */
static GstBuffer *
anc_finish_grain (GstMxlFabricsSrc * self, GstBuffer * grain, guint64 index)
{
  GstBuffer *out = gst_mxl_fabrics_grain_pool_acquire (self->grain_pool,
      self->grain_size);
  GstMapInfo in_map, out_map;
  mxlAncStats stats = { 0 };
  gsize size = 0;
  guint64 dropped;
  mxlStatus st;

  gst_buffer_map (grain, &in_map, GST_MAP_READ);
  gst_buffer_map (out, &out_map, GST_MAP_WRITE);
  /* The output is never longer than the grain (docs/anc-data.md). */
  st = mxlAncGrainToSt2038 (in_map.data, in_map.size, out_map.data,
      out_map.size, &size, &stats);
  gst_buffer_unmap (out, &out_map);
  gst_buffer_unmap (grain, &in_map);
  gst_buffer_unref (grain);
  if (st != MXL_STATUS_OK) {
    GST_WARNING_OBJECT (self, "mxlAncGrainToSt2038: %s",
        gst_mxl_fabrics_status_name (st));
    size = 0;
  }
  gst_buffer_resize (out, 0, size);
  dropped = (guint64) stats.badParity + stats.badChecksum + stats.malformed;
  if (dropped > 0) {
    gchar *what = g_strdup_printf ("%" G_GUINT64_FORMAT " ANC packets of a "
        "grain from the network dropped (%u bad parity, %u bad checksum, %u "
        "beyond its Length or ANC_Count), %u pushed", dropped,
        stats.badParity, stats.badChecksum, stats.malformed, stats.packets);
    gst_mxl_fabrics_object_count_anc_dropped (self->obj, dropped, what);
    g_free (what);
  }
  return out;
}

/* ST 2038 buffers carry no meta the sink reads; no pool. */
static guint
anc_propose_allocation (GstQuery * query, GstCaps * caps)
{
  return 0;
}

/* ------------------------------------------------------------------ caps */

/* meta/x-st-2038, alignment=frame: one grain per frame, at its rate. */
static gboolean
anc_def_from_caps (const GstStructure * s, mxlFlowExtDefinition * def,
    GstMxlFabricsFormat * fmt, GError ** error)
{
  if (g_strcmp0 (gst_structure_get_string (s, "alignment"), "frame") != 0) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "meta/x-st-2038 caps must have alignment=frame (one grain per frame)");
    return FALSE;
  }
  if (!gst_mxl_fabrics_caps_get_rate (s, "framerate", &def->definitionRate)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "meta/x-st-2038 caps need a fixed framerate > 0 (the data grain rate)");
    return FALSE;
  }
  def->mediaType = MXL_FLOW_EXT_MEDIA_SMPTE291;
  return TRUE;
}

static GstCaps *
anc_to_caps (const GstMxlFabricsFormat * fmt)
{
  return gst_caps_new_simple ("meta/x-st-2038",
      "alignment", G_TYPE_STRING, "frame",
      "framerate", GST_TYPE_FRACTION, fmt->rate_n, fmt->rate_d, NULL);
}

static gboolean
anc_caps_refused (const mxlFlowExtDefinition * def, const gchar * reason,
    GError ** error)
{
  return FALSE;                 /* caps.c's message names the rule */
}

static gboolean
anc_finish_caps (const GstStructure * s, GstMxlFabricsFormat * fmt,
    GError ** error)
{
  return TRUE;
}

/* Every data flow has caps. */
static gboolean
anc_def_has_caps (const mxlFlowExtDefinition * def, GQuark domain,
    gint code, GError ** error)
{
  return TRUE;
}

/* The caps have nothing the flow does not fix: the src's caps. */
static GstCaps *
anc_sink_caps (const GstMxlFabricsFormat * fmt)
{
  return anc_to_caps (fmt);
}

/* Data grains have no fields. */
static GstVideoBufferFlags
anc_field_flags (const GstMxlFabricsFormat * fmt, guint64 index)
{
  return 0;
}

/* A data flow has a rate only (caps.c has written it). */
static void
anc_to_def (const GstMxlFabricsFormat * fmt, mxlFlowExtDefinition * def)
{
}

static gboolean
anc_check_match (const GstMxlFabricsFormat * caps_fmt,
    const GstMxlFabricsFormat * flow_fmt, GError ** error)
{
  return gst_mxl_fabrics_format_check_rate (caps_fmt, flow_fmt, "grain_rate",
      error);
}

const GstMxlFabricsMediaOps gst_mxl_fabrics_media_anc = {
  .name = "anc",
  GST_MXL_FABRICS_MEDIA_GRAIN_OPS,
  .fill_grain = anc_fill_grain,
  .finish_grain = anc_finish_grain,
  /* the payload is converted (RFC 8331), never the buffer's own bytes */
  .can_lend = gst_mxl_fabrics_media_never_lends,
  .payload_offset = gst_mxl_fabrics_media_no_payload_offset,
  .propose_allocation = anc_propose_allocation,
  .caps_name = "meta/x-st-2038",
  .group_role = "Data",
  .convert_hint = "give the sink ST 2038 frames at the flow's rate",
  .def_from_caps = anc_def_from_caps,
  .caps_refused = anc_caps_refused,
  .finish_caps = anc_finish_caps,
  .def_has_caps = anc_def_has_caps,
  .to_caps = anc_to_caps,
  .sink_caps = anc_sink_caps,
  .to_def = anc_to_def,
  .check_match = anc_check_match,
  .field_flags = anc_field_flags,
};
