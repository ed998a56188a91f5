/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Audio media operations (media.h): `audio/float32` flows, planar sample
 * rings written and read in batches; buffers F32LE, non-interleaved with
 * GstAudioMeta (the sink also takes interleaved ones and de-interleaves);
 * their caps and flow definitions.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "media.h"
#include "mxlfabricssink.h"
#include "mxlfabricssrc.h"

#include <string.h>

#include <gst/audio/audio.h>
#include <mxl/time.h>

/* Index of the sample head before @buffer: from its running time through
 * TAI (timing.h), or, without timestamp, the last head written (the
 * current TAI index for the first). */
static guint64
audio_index (GstMxlFabricsSink * self, GstBuffer * buffer)
{
  gint n = self->format.rate_n, d = self->format.rate_d;
  GstClockTime rt, base;
  gint64 offset;

  if (gst_mxl_fabrics_sink_buffer_time (self, buffer, &rt, &offset, &base))
    return gst_mxl_fabrics_timing_pts_to_index (rt, n, d, offset, base);
  if (self->have_last)
    return self->last_index;
  {
    mxlRational rate = { n, d };
    return mxlGetCurrentIndex (&rate);
  }
}

/* Checks @buffer against the caps before gst_audio_buffer_map(), whose
 * preconditions (a GstAudioMeta on non-interleaved buffers, of the caps'
 * layout, describing no more samples than the buffer holds) end in a
 * g_return_val_if_fail CRITICAL, and which takes a meta's channel count over
 * the caps'. Fills @ainfo with what to map with: the meta's info when there
 * is one (channel positions may differ from ours, harmlessly), else the
 * caps'. Returns: NULL, or why the buffer cannot be used. */
static gchar *
check_audio_buffer (GstMxlFabricsSink * self, GstBuffer * buffer,
    GstAudioInfo * ainfo)
{
  GstAudioLayout layout = self->format.interleaved ?
      GST_AUDIO_LAYOUT_INTERLEAVED : GST_AUDIO_LAYOUT_NON_INTERLEAVED;
  GstAudioMeta *meta = gst_buffer_get_audio_meta (buffer);

  gst_audio_info_set_format (ainfo, GST_AUDIO_FORMAT_F32LE,
      self->format.rate_n, self->format.channels, NULL);
  ainfo->layout = layout;
  if (meta == NULL && layout == GST_AUDIO_LAYOUT_NON_INTERLEAVED)
    return g_strdup ("a layout=non-interleaved buffer without GstAudioMeta: "
        "the meta gives each channel's offset (add it with "
        "gst_buffer_add_audio_meta)");
  if (meta == NULL)
    return gst_buffer_get_size (buffer) % GST_AUDIO_INFO_BPF (ainfo) == 0 ?
        NULL : g_strdup_printf ("its %" G_GSIZE_FORMAT " bytes are no whole "
        "number of %u-channel F32LE samples", gst_buffer_get_size (buffer),
        self->format.channels);
  if (meta->info.layout != layout)
    return g_strdup_printf ("its GstAudioMeta is %s, the caps say "
        "layout=%s", meta->info.layout == GST_AUDIO_LAYOUT_INTERLEAVED ?
        "interleaved" : "non-interleaved", self->format.interleaved ?
        "interleaved" : "non-interleaved");
  if (GST_AUDIO_INFO_FORMAT (&meta->info) != GST_AUDIO_FORMAT_F32LE
      || GST_AUDIO_INFO_CHANNELS (&meta->info) != (gint) self->format.channels)
    return g_strdup_printf ("its GstAudioMeta describes %d channels of %s, "
        "the caps %u channels of F32LE", GST_AUDIO_INFO_CHANNELS (&meta->info),
        gst_audio_format_to_string (GST_AUDIO_INFO_FORMAT (&meta->info)),
        self->format.channels);
  if (meta->samples > gst_buffer_get_size (buffer) /
      GST_AUDIO_INFO_BPF (&meta->info))
    return g_strdup_printf ("its GstAudioMeta describes %" G_GSIZE_FORMAT
        " samples, the buffer of %" G_GSIZE_FORMAT " bytes holds %"
        G_GSIZE_FORMAT, meta->samples, gst_buffer_get_size (buffer),
        gst_buffer_get_size (buffer) / GST_AUDIO_INFO_BPF (&meta->info));
  *ainfo = meta->info;
  return NULL;
}

/* Writes the samples of @buffer from sample @first on, in batches of at
 * most the flow's write limit, de-interleaving interleaved input and
 * honouring GstAudioMeta offsets (gst_audio_buffer_map). */
static GstFlowReturn
audio_write (GstMxlFabricsSink * self, GstBuffer * buffer, guint64 first)
{
  GstAudioInfo ainfo;
  GstAudioBuffer abuf;
  guint channels = self->format.channels, c;
  size_t max_write = 0;
  gsize done, n;
  GstFlowReturn ret = GST_FLOW_OK;
  gchar *why = check_audio_buffer (self, buffer, &ainfo);

  if (why != NULL) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("cannot use the audio buffer: "
            "%s", why), (NULL));
    g_free (why);
    return GST_FLOW_ERROR;
  }
  if (!gst_audio_buffer_map (&abuf, &ainfo, buffer, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("cannot map the audio buffer"),
        ("its size or GstAudioMeta does not fit the caps"));
    return GST_FLOW_ERROR;
  }
  mxlFlowWriterGetMaxWriteLengthSamples (self->flow.writer, &max_write);
  n = abuf.n_samples;
  /* jitter of the timestamps: stay contiguous */
  first = gst_mxl_fabrics_follow_sample_index (first, n, self->have_last,
      self->last_index);
  if (n > 0)
    gst_mxl_fabrics_sink_take_index (self, first + n);
  for (done = 0; done < n && ret == GST_FLOW_OK; done += max_write) {
    gsize len = MIN (n - done, MAX (max_write, 1));
    guint64 head = first + done + len;
    mxlMutableWrappedMultiBufferSlice slices;
    mxlStatus st;

    if (!gst_mxl_fabrics_sink_make_room (self, head, len, &ret)) {
      if (ret != GST_FLOW_OK)
        break;
      continue;                 /* dropped: the ring holds pending ones */
    }
    st = mxlFlowWriterOpenSamples (self->flow.writer, head, len, &slices);
    if (st != MXL_STATUS_OK) {
      GST_ELEMENT_ERROR (self, RESOURCE, WRITE, ("cannot write the local "
              "flow"), ("mxlFlowWriterOpenSamples(%" G_GUINT64_FORMAT ", %"
              G_GSIZE_FORMAT "): %s", head, len,
              gst_mxl_fabrics_status_name (st)));
      ret = GST_FLOW_ERROR;
      break;
    }
    for (c = 0; c < channels; c++) {
      gsize f0 = slices.base.fragments[0].size / 4, k;
      gfloat *d0 = (gfloat *) ((guint8 *) slices.base.fragments[0].pointer +
          c * slices.stride);
      gfloat *d1 = (gfloat *) ((guint8 *) slices.base.fragments[1].pointer +
          c * slices.stride);

      if (!self->format.interleaved) {
        const gfloat *src = (const gfloat *) abuf.planes[c] + done;
        memcpy (d0, src, f0 * 4);
        memcpy (d1, src + f0, (len - f0) * 4);
      } else {
        const gfloat *src = (const gfloat *) abuf.planes[0] +
            done * channels + c;
        for (k = 0; k < len; k++)
          *(k < f0 ? &d0[k] : &d1[k - f0]) = src[k * channels];
      }
    }
    mxlFlowWriterCommitSamples (self->flow.writer);
    ret = gst_mxl_fabrics_sink_transfer (self, head, len, len * 4 * channels,
        0, TRUE);
  }
  gst_audio_buffer_unmap (&abuf);
  return ret;
}

static mxlStatus
audio_post (mxlFabricsInitiator initiator, guint64 index, gsize count,
    guint16 total_slices)
{
  return mxlFabricsInitiatorTransferSamples (initiator, index, count);
}

/* Copies the batch (@head - @n ... @head - 1) of every channel out of the
 * flow into a planar buffer with GstAudioMeta. */
static GstBuffer *
take_samples (GstMxlFabricsSrc * self, guint64 head, gsize n, gint64 offset,
    GstFlowReturn * ret)
{
  mxlWrappedMultiBufferSlice slices;
  guint channels = self->format.channels, c;
  GstAudioInfo ainfo;
  GstBuffer *buf;
  GstMapInfo map;
  mxlStatus st;

  st = mxlFlowReaderGetSamplesNonBlocking (self->flow.reader, head, n,
      &slices);
  if (st == MXL_ERR_OUT_OF_RANGE_TOO_LATE) {
    gst_mxl_fabrics_src_count (self, &self->obj->counters.dropped_late, 1, TRUE);
    self->discont = TRUE;
    return NULL;
  }
  if (st != MXL_STATUS_OK) {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("cannot read the local flow"),
        ("mxlFlowReaderGetSamplesNonBlocking(%" G_GUINT64_FORMAT ", %"
            G_GSIZE_FORMAT "): %s", head, n, gst_mxl_fabrics_status_name (st)));
    *ret = GST_FLOW_ERROR;
    return NULL;
  }
  buf = gst_buffer_new_allocate (NULL, n * 4 * channels, NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (c = 0; c < channels; c++) {
    guint8 *dst = map.data + (gsize) c * n * 4;
    gsize f0 = slices.base.fragments[0].size;
    memcpy (dst, (const guint8 *) slices.base.fragments[0].pointer +
        c * slices.stride, f0);
    if (slices.base.fragments[1].size)
      memcpy (dst + f0, (const guint8 *) slices.base.fragments[1].pointer +
          c * slices.stride, slices.base.fragments[1].size);
  }
  gst_buffer_unmap (buf, &map);
  /* Re-check: overwritten while copying? */
  if (mxlFlowReaderGetSamplesNonBlocking (self->flow.reader, head, n,
          &slices) != MXL_STATUS_OK) {
    gst_mxl_fabrics_src_count (self, &self->obj->counters.dropped_torn, 1, TRUE);
    self->discont = TRUE;
    gst_buffer_unref (buf);
    return NULL;
  }
  gst_audio_info_set_format (&ainfo, GST_AUDIO_FORMAT_F32LE,
      self->format.rate_n, channels, NULL);
  ainfo.layout = GST_AUDIO_LAYOUT_NON_INTERLEAVED;
  gst_buffer_add_audio_meta (buf, &ainfo, n, NULL);
  if (self->have_head && head - n != self->next)
    self->discont = TRUE;
  self->have_head = TRUE;
  self->next = head;
  if (!gst_mxl_fabrics_src_stamp (self, buf, head - n, n, offset)) {
    gst_mxl_fabrics_src_count (self, &self->obj->counters.dropped_early, 1, TRUE);
    gst_buffer_unref (buf);
    return NULL;
  }
  gst_mxl_fabrics_src_pushed (self, head, n * 4 * channels);
  return buf;
}

/* One step of create: waits (bounded) for the next batch the target
 * received and copies it out. */
static GstFlowReturn
audio_read (GstMxlFabricsSrc * self, gint64 offset, GstBuffer ** buffer)
{
  GstFlowReturn ret = GST_FLOW_OK;
  guint64 index = 0;
  size_t n = 0;
  mxlStatus st;

  st = mxlFabricsTargetReadSamples (self->target,
      GST_MXL_FABRICS_SRC_READ_WAIT_MS, &index, &n);
  ret = gst_mxl_fabrics_src_read_status (self, st);
  if (st != MXL_STATUS_OK || ret != GST_FLOW_OK)
    return ret;
  gst_mxl_fabrics_src_on_data (self);
  *buffer = take_samples (self, index, n, offset, &ret);
  return ret;
}

/* Channel offsets are honoured (gst_audio_buffer_map()); no pool. */
static guint
audio_propose_allocation (GstQuery * query, GstCaps * caps)
{
  gst_query_add_allocation_meta (query, GST_AUDIO_META_API_TYPE, NULL);
  return 0;
}

/* ------------------------------------------------------------------ caps */

/* audio/x-raw, format=F32LE, either layout (the sink de-interleaves), into
 * the flow summary. */
static gboolean
audio_def_from_caps (const GstStructure * s, mxlFlowExtDefinition * def,
    GstMxlFabricsFormat * fmt, GError ** error)
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
    fmt->interleaved = TRUE;
  else if (strcmp (layout, "non-interleaved") == 0)
    fmt->interleaved = FALSE;
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

/* The library's channel limit, in the caps' words: the field to fix is
 * theirs. The limit is the library's published MXL_FLOW_MAX_CHANNELS
 * (<mxl/flow-ext.h>), not a match on its message. */
static gboolean
audio_caps_refused (const mxlFlowExtDefinition * def, const gchar * reason,
    GError ** error)
{
  if (def->channelCount >= 1 && def->channelCount <= MXL_FLOW_MAX_CHANNELS)
    return FALSE;
  g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "audio caps channels=%u is outside 1 … %d, the most channels of "
      "an MXL flow (%s)", def->channelCount, MXL_FLOW_MAX_CHANNELS, reason);
  return TRUE;
}

/* audio/x-raw carries integral rates only. */
static gboolean
audio_def_has_caps (const mxlFlowExtDefinition * def, GQuark domain,
    gint code, GError ** error)
{
  if (def->editRate.denominator == 1)
    return TRUE;
  g_set_error (error, domain, code, "flow definition: sample_rate %"
      G_GINT64_FORMAT "/%" G_GINT64_FORMAT " is not an integral rate "
      "(audio/x-raw needs one)", def->editRate.numerator,
      def->editRate.denominator);
  return FALSE;
}

static GstCaps *
audio_to_caps (const GstMxlFabricsFormat * fmt)
{
  GstCaps *caps = gst_caps_new_simple ("audio/x-raw",
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
}

/* The src's caps in either layout (the sink de-interleaves), then the
 * same without channel-mask (the sink compares channels only). */
static GstCaps *
audio_sink_caps (const GstMxlFabricsFormat * fmt)
{
  GstCaps *caps = audio_to_caps (fmt);
  GstStructure *any;

  gst_structure_remove_field (gst_caps_get_structure (caps, 0), "layout");
  any = gst_structure_copy (gst_caps_get_structure (caps, 0));
  gst_structure_remove_field (any, "channel-mask");
  gst_caps_append_structure (caps, any);
  return caps;
}

/* Caps say nothing beyond the flow's numbers. */
static gboolean
audio_finish_caps (const GstStructure * s, GstMxlFabricsFormat * fmt,
    GError ** error)
{
  return TRUE;
}

/* Samples have no fields. */
static GstVideoBufferFlags
audio_field_flags (const GstMxlFabricsFormat * fmt, guint64 index)
{
  return 0;
}

static void
audio_to_def (const GstMxlFabricsFormat * fmt, mxlFlowExtDefinition * def)
{
  def->channelCount = fmt->channels;
}

/* The rate, then the channel count (the layout is the sink's business). */
static gboolean
audio_check_match (const GstMxlFabricsFormat * caps_fmt,
    const GstMxlFabricsFormat * flow_fmt, GError ** error)
{
  if (!gst_mxl_fabrics_format_check_rate (caps_fmt, flow_fmt, "sample_rate",
          error))
    return FALSE;
  if (caps_fmt->channels != flow_fmt->channels) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "caps channels %u do not match the flow's channel_count %u",
        caps_fmt->channels, flow_fmt->channels);
    return FALSE;
  }
  return TRUE;
}

const GstMxlFabricsMediaOps gst_mxl_fabrics_media_audio = {
  .name = "audio",
  .index = audio_index,
  .write = audio_write,
  .post = audio_post,
  /* batches are copied out of the buffer, never lent */
  .can_lend = gst_mxl_fabrics_media_never_lends,
  .payload_offset = gst_mxl_fabrics_media_no_payload_offset,
  .propose_allocation = audio_propose_allocation,
  .read = audio_read,
  .batches = TRUE,
  .caps_name = "audio/x-raw",
  .group_role = "Audio",
  .convert_hint = "convert upstream: ... ! audioconvert ! audioresample ! "
      "mxlfabricssink",
  .def_from_caps = audio_def_from_caps,
  .caps_refused = audio_caps_refused,
  .finish_caps = audio_finish_caps,
  .def_has_caps = audio_def_has_caps,
  .to_caps = audio_to_caps,
  .sink_caps = audio_sink_caps,
  .to_def = audio_to_def,
  .check_match = audio_check_match,
  .field_flags = audio_field_flags,
};
