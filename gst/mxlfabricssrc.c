/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-mxlfabricssrc
 * @title: mxlfabricssrc
 * @see_also: mxlfabricssink
 *
 * mxlfabricssrc is an MXL Fabrics *target*. On READY to PAUSED it creates
 * the local MXL flow described by `caps` (for example
 * `video/x-raw,format=v210,width=1920,height=1080,framerate=50/1`) or by
 * `flow-def` (an NMOS flow JSON, or `@path` of one), opens a libfabric
 * endpoint on `provider`/`node`/`service`, registers the flow's memory, and
 * publishes its TargetInfo: the read-only `target-info` property (notified),
 * the file `target-info-file` (written atomically, rewritten if it changes),
 * and the element message `mxl-fabrics-target-info` (field `target-info`).
 * None of this waits for an initiator.
 *
 * It is a live source in TIME format. Every grain (or sample batch) that an
 * initiator remotely writes is pushed as a buffer whose PTS is the grain's
 * TAI origin time converted to running time with the offset shared by all
 * mxlfabrics elements of the pipeline (timing.h), so flows of a pipeline
 * stay aligned. Interlaced flows give one field per buffer
 * (`interlace-mode=alternate`), audio comes non-interleaved with
 * GstAudioMeta, v210a as v210 caps with `mxl-alpha=true` and the key plane
 * after the fill (caps.h).
 *
 * The library's progress thread (setup option `progressThread`, on unless
 * `options` set it) drains the target's completions and commits grains,
 * so a slow or blocked downstream does not hold up the sender's writes.
 * The streaming thread reads its results in bounded 10 ms reads (unlock()
 * interrupts within one), copies each completed grain out of the ring into
 * a new buffer, then checks that the slot still holds that grain: one
 * overwritten meanwhile by the remote writer is dropped (`dropped-torn`).
 * A grain absent from its slot while a newer one completed is waited for
 * up to a grain period (50 ms at most), then counted `dropped-missing`
 * (moved to `dropped-late` if it completes after all); a src that falls a
 * ring (`ring-length` grains) behind the newest re-aligns to it and counts
 * the grains skipped (`dropped-skipped`); a grain overwritten before it was
 * read is `dropped-late`. Each makes the next buffer DISCONT; grains flagged
 * invalid are skipped (`invalid`); grains whose PTS would fall before
 * running time 0 are skipped (`dropped-early`). ANC data grains (RFC 8331
 * payloads) are pushed as `meta/x-st-2038` buffers (docs/anc-data.md):
 * packets with bad parity or checksum, or beyond the grain's Length, are
 * dropped and counted in `anc-packets-dropped`, with a WARNING for the
 * first.
 *
 * Latency: a grain's PTS is its origin time, so it reaches the src as late
 * as the sender's pipeline, its sink and the transfer make it. The latency
 * query answers what the grains showed: arrival minus origin time of the
 * grains that completed while the src waited for them (all but the two
 * largest of the last 16), plus 10 ms, rounded up to a millisecond, at
 * least one grain period up to 100 ms (audio: one batch of the flow's sync
 * hint) plus 10 ms, at most the ring, never lowered while streaming; plus
 * the `latency` property (headroom, ms). A LATENCY message is posted once
 * the flow is set up and whenever it rises (the first grain raises it
 * before it is pushed, so the sinks' preroll already uses it;
 * docs/sizing.md).
 *
 * `stats` also carries the target's counters (grains-received,
 * bad-immediate-data, bad-grain-headers, cq-overruns, completions-superseded,
 * completion-errors, connections-accepted, disconnections,
 * initiators-refused,
 * commit-failures; audio: batches-received, batches-lost,
 * bad-bounce-entries, entries-out-of-sequence, samples-skipped); see
 * mxlfabricsobject.h. Input the target rejects (immediate data, grain
 * headers or bounce entries out of range) is dropped, counted there and
 * in `invalid`, and announced by the element message
 * `mxl-fabrics-bad-input` (totals; at most one per 200 ms).
 *
 * When `timeout` nanoseconds pass without data, the element message
 * `mxl-fabrics-timeout` (fields `timeout`, `last-index`) is posted and
 * connection-state becomes `stalled`; no EOS is sent. Every connection-state
 * change posts `mxl-fabrics-connection` (fields `state`, `target-id`,
 * `reason`). The TargetInfo holds remote keys: it is never logged above
 * LOG level, but `gst-launch-1.0 -v` prints readable properties.
 *
 * ## Examples (two hosts; start this element first)
 *
 * TCP:
 * |[
 * hostB$ gst-launch-1.0 mxlfabricssrc provider=tcp node=192.0.2.20 service=5000 \
 *     caps="video/x-raw,format=v210,width=1920,height=1080,framerate=50/1" \
 *     target-info-file=/tmp/target.json ! queue ! videoconvert ! autovideosink
 * hostA$ scp hostB:/tmp/target.json /tmp/target.json
 * hostA$ gst-launch-1.0 videotestsrc is-live=true ! \
 *     video/x-raw,format=v210,width=1920,height=1080,framerate=50/1 ! \
 *     mxlfabricssink provider=tcp node=192.0.2.10 target-info=@/tmp/target.json
 * ]|
 * Verbs (node = address of the RDMA interface), 1080p59.94:
 * |[
 * hostB$ gst-launch-1.0 mxlfabricssrc provider=verbs node=10.0.0.2 service=5000 \
 *     caps="video/x-raw,format=v210,width=1920,height=1080,framerate=60000/1001" \
 *     target-info-file=/tmp/target.json ! queue ! videoconvert ! autovideosink
 * hostA$ scp hostB:/tmp/target.json /tmp/target.json
 * hostA$ gst-launch-1.0 videotestsrc is-live=true ! \
 *     video/x-raw,format=v210,width=1920,height=1080,framerate=60000/1001 ! \
 *     mxlfabricssink provider=verbs node=10.0.0.1 target-info=@/tmp/target.json
 * ]|
 * Interlaced flows (for example 1080i25 from `flow-def`) carry one field per
 * buffer with `interlace-mode=alternate`; on GStreamer 1.22 videotestsrc
 * cannot produce such caps, so the sender is an application or a capture
 * element that outputs alternate fields.
 * EFA, audio, the TargetInfo passed as base64:
 * |[
 * hostB$ gst-launch-1.0 -m mxlfabricssrc provider=efa \
 *     caps="audio/x-raw,format=F32LE,layout=non-interleaved,rate=48000,channels=8" \
 *     target-info-file=/tmp/target.json ! audioconvert ! fakesink
 * hostA$ gst-launch-1.0 audiotestsrc is-live=true ! \
 *     audio/x-raw,format=F32LE,rate=48000,channels=8 ! \
 *     mxlfabricssink provider=efa target-info="$(ssh hostB base64 -w0 /tmp/target.json)"
 * ]|
 * SHM (processes of one host), ST 2038 ancillary data; the sender here is
 * an application that pushes RFC 8331 payloads (one per grain) into appsrc:
 * |[
 * $ gst-launch-1.0 mxlfabricssrc provider=shm \
 *     caps="meta/x-st-2038,alignment=frame,framerate=50/1" \
 *     target-info-file=/tmp/target.json ! fakesink dump=true &
 * $ gst-launch-1.0 appsrc is-live=true format=time \
 *     caps="meta/x-st-2038,alignment=frame,framerate=50/1" ! \
 *     mxlfabricssink provider=shm target-info=@/tmp/target.json
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mxlfabricssrc.h"
#include "gstmxlfabricselements.h"
#include "grainpool.h"
#include "mxlfabricsopen.h"

#include <string.h>

#include <gst/audio/audio.h>
#include <mxl/flow-ext.h>
#include <json-glib/json-glib.h>

GST_DEBUG_CATEGORY_STATIC (gst_mxl_fabrics_src_debug);
#define GST_CAT_DEFAULT gst_mxl_fabrics_src_debug

enum {
  PROP_CAPS = GST_MXL_FABRICS_PROP_LAST,
  PROP_FLOW_DEF,
  PROP_TARGET_INFO,
  PROP_TARGET_INFO_FILE,
  PROP_TIMEOUT,
  PROP_RING_LENGTH,
  PROP_LATENCY,
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_MXL_FABRICS_SRC_CAPS));

G_DEFINE_TYPE (GstMxlFabricsSrc, gst_mxl_fabrics_src, GST_TYPE_PUSH_SRC);
GST_ELEMENT_REGISTER_DEFINE (mxlfabricssrc, "mxlfabricssrc", GST_RANK_NONE,
    GST_TYPE_MXL_FABRICS_SRC);

static void
gst_mxl_fabrics_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMxlFabricsSrc *self = GST_MXL_FABRICS_SRC (object);
  gboolean latency_changed = FALSE;

  if (gst_mxl_fabrics_object_set_property (self->obj, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_CAPS:
      gst_caps_replace (&self->caps, (GstCaps *) gst_value_get_caps (value));
      break;
    case PROP_FLOW_DEF:
      g_free (self->flow_def);
      self->flow_def = g_strdup (g_value_get_string (value) ?
          g_value_get_string (value) : "");
      break;
    case PROP_TARGET_INFO_FILE:
      g_free (self->target_info_file);
      self->target_info_file = g_strdup (g_value_get_string (value) ?
          g_value_get_string (value) : "");
      break;
    case PROP_TIMEOUT:
      self->timeout = g_value_get_uint64 (value);
      break;
    case PROP_RING_LENGTH:
      self->ring_length = g_value_get_uint (value);
      break;
    case PROP_LATENCY:
      latency_changed = self->latency_ms != g_value_get_uint (value);
      self->latency_ms = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (latency_changed)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
}

static void
gst_mxl_fabrics_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstMxlFabricsSrc *self = GST_MXL_FABRICS_SRC (object);

  if (gst_mxl_fabrics_object_get_property (self->obj, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_CAPS:
      gst_value_set_caps (value, self->caps);
      break;
    case PROP_FLOW_DEF:
      g_value_set_string (value, self->flow_def);
      break;
    case PROP_TARGET_INFO:
      g_value_set_string (value, self->target_info);
      break;
    case PROP_TARGET_INFO_FILE:
      g_value_set_string (value, self->target_info_file);
      break;
    case PROP_TIMEOUT:
      g_value_set_uint64 (value, self->timeout);
      break;
    case PROP_RING_LENGTH:
      g_value_set_uint (value, self->ring_length);
      break;
    case PROP_LATENCY:
      g_value_set_uint (value, self->latency_ms);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

gboolean
gst_mxl_fabrics_src_resolve_format (GstMxlFabricsSrc * self,
    GstMxlFabricsFormat * fmt, gchar ** flow_def, GError ** error)
{
  GstCaps *caps;
  gchar *flow_def_value, *flow_id, *json = NULL, *def_id = NULL;
  GstMxlFabricsFormat caps_fmt;
  gboolean ok = FALSE;

  *flow_def = NULL;
  GST_OBJECT_LOCK (self);
  caps = self->caps ? gst_caps_ref (self->caps) : NULL;
  flow_def_value = g_strdup (self->flow_def);
  flow_id = g_strdup (self->obj->flow_id);
  GST_OBJECT_UNLOCK (self);

  if (flow_def_value[0] != '\0') {
    if (!gst_mxl_fabrics_load_value (flow_def_value, &json, error)
        || !gst_mxl_fabrics_format_from_flow_def (json, fmt, &def_id, error))
      goto done;
    if (flow_id[0] != '\0' && g_ascii_strcasecmp (flow_id, def_id) != 0) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "property flow-id %s differs from the id %s in flow-def; unset one",
          flow_id, def_id);
      goto done;
    }
    if (caps) {
      GError *mismatch = NULL;
      if (!gst_mxl_fabrics_format_from_caps (caps, &caps_fmt, error))
        goto done;
      if (!gst_mxl_fabrics_format_check_match (&caps_fmt, fmt, &mismatch)) {
        g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
            "properties caps and flow-def disagree: %s", mismatch->message);
        g_error_free (mismatch);
        goto done;
      }
    }
    *flow_def = g_steal_pointer (&json);
    ok = TRUE;
  } else if (caps) {
    if (!gst_mxl_fabrics_format_from_caps (caps, fmt, error))
      goto done;
    fmt->interleaved = FALSE;   /* the src always outputs planar audio */
    *flow_def = gst_mxl_fabrics_flow_def_new (fmt,
        flow_id[0] ? flow_id : NULL, NULL, NULL, error);
    ok = *flow_def != NULL;
  } else {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "set the caps property (e.g. video/x-raw,format=v210,width=1920,"
        "height=1080,framerate=50/1) or flow-def (NMOS flow JSON or @path)");
  }

done:
  if (caps)
    gst_caps_unref (caps);
  g_free (flow_def_value);
  g_free (flow_id);
  g_free (json);
  g_free (def_id);
  return ok;
}

gboolean
gst_mxl_fabrics_src_publish_target_info (GstMxlFabricsSrc * self,
    const gchar * target_info, GError ** error)
{
  gchar *path;
  gboolean changed, ok = TRUE;

  GST_OBJECT_LOCK (self);
  changed = g_strcmp0 (self->target_info, target_info) != 0;
  if (changed) {
    g_free (self->target_info);
    self->target_info = g_strdup (target_info);
  }
  path = g_strdup (self->target_info_file);
  GST_OBJECT_UNLOCK (self);

  if (changed) {
    GError *file_error = NULL;

    /* g_file_set_contents writes a temporary file and renames it: readers
     * (a sink waiting on @path) never see a partial TargetInfo. */
    if (path && path[0] != '\0'
        && !g_file_set_contents (path, target_info, -1, &file_error)) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE,
          "cannot write target-info-file \"%s\": %s", path,
          file_error->message);
      g_error_free (file_error);
      ok = FALSE;
    }
    g_object_notify (G_OBJECT (self), "target-info");
    gst_mxl_fabrics_object_post_target_info (self->obj, target_info);
  }
  g_free (path);
  return ok;
}

static void
gst_mxl_fabrics_src_set_context (GstElement * element, GstContext * context)
{
  GstMxlFabricsSrc *self = GST_MXL_FABRICS_SRC (element);

  gst_mxl_fabrics_timing_set_context (&self->timing, context);
  GST_ELEMENT_CLASS (gst_mxl_fabrics_src_parent_class)->set_context (element,
      context);
}

static gboolean
gst_mxl_fabrics_src_post_message (GstElement * element, GstMessage * message)
{
  return gst_mxl_fabrics_object_post_message (GST_MXL_FABRICS_SRC (element)->obj,
      GST_ELEMENT_CLASS (gst_mxl_fabrics_src_parent_class), message);
}

#define READ_WAIT_MS GST_MXL_FABRICS_SRC_READ_WAIT_MS
/* Added to the measured lateness (and to one grain period or batch before
 * any grain arrived) in the latency query: the copy out of the ring and
 * the push. */
#define LATENCY_MARGIN (10 * GST_MSECOND)
#define INITIAL_LATENCY_MAX (100 * GST_MSECOND)
/* Longest wait for a grain absent from its slot while newer ones have
 * completed (completions may come out of order): a grain period, at most
 * this. */
#define ABSENT_WAIT_MAX_US (50 * G_TIME_SPAN_MILLISECOND)
#define STATS_PERIOD_US (200 * G_TIME_SPAN_MILLISECOND)
/* Most completions taken at once after a read (see create). */
#define DRAIN_MAX 256

static gboolean
is_audio (GstMxlFabricsSrc * self)
{
  return self->format.media == GST_MXL_FABRICS_MEDIA_AUDIO;
}

static GstMxlFabricsConnectionState
state_from_ext (mxlFabricsExtConnectionState s)
{
  switch (s) {
    case MXL_FABRICS_EXT_STATE_LISTENING:
      return GST_MXL_FABRICS_CONNECTION_LISTENING;
    case MXL_FABRICS_EXT_STATE_CONNECTING:
      return GST_MXL_FABRICS_CONNECTION_CONNECTING;
    case MXL_FABRICS_EXT_STATE_CONNECTED:
      return GST_MXL_FABRICS_CONNECTION_CONNECTED;
    default:
      return GST_MXL_FABRICS_CONNECTION_DISCONNECTED;
  }
}

static void
engine_stop (GstMxlFabricsSrc * self)
{
  gst_mxl_fabrics_close_target (&self->flow, &self->target);
  g_clear_pointer (&self->grain_pool, gst_mxl_fabrics_grain_pool_free);
}

/* Creates the flow, sets up the target and publishes its TargetInfo. Never
 * waits for an initiator. */
static gboolean
engine_start (GstMxlFabricsSrc * self, GError ** error)
{
  gchar *json;
  guint ring_length;

  GST_OBJECT_LOCK (self);
  ring_length = self->ring_length;
  GST_OBJECT_UNLOCK (self);
  if (!gst_mxl_fabrics_open_target (self->obj, &self->flow,
          self->flow_def_json, ring_length, &self->target, &json, error))
    return FALSE;
  if (is_audio (self))
    self->grain_size = 0;
  else
    self->grain_size = gst_mxl_fabrics_format_grain_size (&self->format);
  /* NULL for audio (no fixed size): buffers are then allocated per batch */
  self->grain_pool = gst_mxl_fabrics_grain_pool_new (self->grain_size);
  if (!gst_mxl_fabrics_src_publish_target_info (self, json, error)) {
    g_free (json);
    engine_stop (self);
    return FALSE;
  }
  g_free (json);
  return TRUE;
}

static GstClockTime unit_duration (GstMxlFabricsSrc * self);

/* The latency before any grain arrived: a live sender's frame is complete
 * one period after its timestamp, plus LATENCY_MARGIN; for rates below
 * 10 fps at most 100 ms + LATENCY_MARGIN (the first grain raises it before
 * it is pushed when it arrives later: a still every 10 s need not wait
 * 10 s when it is sent as soon as it is stamped). */
static GstClockTime
initial_latency (GstMxlFabricsSrc * self)
{
  return MIN (unit_duration (self), INITIAL_LATENCY_MAX) + LATENCY_MARGIN;
}

static gboolean
gst_mxl_fabrics_src_start (GstBaseSrc * src)
{
  GstMxlFabricsSrc *self = GST_MXL_FABRICS_SRC (src);
  GError *error = NULL;
  gchar *flow_def = NULL;

  gst_mxl_fabrics_object_reset_stats (self->obj);
  if (!gst_mxl_fabrics_object_validate (self->obj, &error)
      || !gst_mxl_fabrics_src_resolve_format (self, &self->format, &flow_def,
          &error))
    goto failed;
  self->have_format = TRUE;
  self->media = gst_mxl_fabrics_media_ops (self->format.media);
  g_free (self->flow_def_json);
  self->flow_def_json = flow_def;

  gst_mxl_fabrics_timing_ensure (GST_ELEMENT (self), &self->timing, NULL);

  if (!engine_start (self, &error))
    goto failed;
  self->have_head = FALSE;
  self->discont = TRUE;
  self->last_index = G_MAXUINT64;
  self->last_data_us = 0;
  self->stalled = FALSE;
  self->stats_at_us = 0;
  self->bad_input_seen = 0;
  self->absent_since_us = 0;
  self->n_missed = 0;
  self->n_lateness = 0;
  GST_OBJECT_LOCK (self);
  self->latency = initial_latency (self);
  GST_OBJECT_UNLOCK (self);
  gst_mxl_fabrics_object_set_state (self->obj,
      GST_MXL_FABRICS_CONNECTION_LISTENING, NULL, "target ready");
  /* The flow (and so the grain period) is known: let the pipeline ask. */
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_latency (GST_OBJECT (self)));
  return TRUE;

failed:
  self->have_format = FALSE;
  gst_mxl_fabrics_object_post_error (self->obj, error, NULL);
  g_error_free (error);
  return FALSE;
}

static gboolean
gst_mxl_fabrics_src_stop (GstBaseSrc * src)
{
  GstMxlFabricsSrc *self = GST_MXL_FABRICS_SRC (src);

  engine_stop (self);
  self->have_format = FALSE;
  g_clear_pointer (&self->flow_def_json, g_free);
  gst_mxl_fabrics_object_set_state (self->obj,
      GST_MXL_FABRICS_CONNECTION_DISCONNECTED, NULL, NULL);
  return TRUE;
}

static GstCaps *
gst_mxl_fabrics_src_get_caps (GstBaseSrc * src, GstCaps * filter)
{
  GstMxlFabricsSrc *self = GST_MXL_FABRICS_SRC (src);
  GstCaps *caps;

  if (self->have_format)
    caps = gst_mxl_fabrics_format_to_caps (&self->format);
  else
    caps = gst_pad_get_pad_template_caps (GST_BASE_SRC_PAD (src));
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, caps,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (caps);
    caps = tmp;
  }
  return caps;
}

/* One grain period, or for audio one batch of the flow's sync hint. */
static GstClockTime
unit_duration (GstMxlFabricsSrc * self)
{
  guint64 units = 1;

  if (is_audio (self) && self->flow.writer)
    units = MAX (self->flow.config.common.maxSyncBatchSizeHint, 1);
  return gst_util_uint64_scale (units * GST_SECOND, self->format.rate_d,
      self->format.rate_n);
}

static gboolean
gst_mxl_fabrics_src_query (GstBaseSrc * src, GstQuery * query)
{
  GstMxlFabricsSrc *self = GST_MXL_FABRICS_SRC (src);

  if (gst_mxl_fabrics_timing_handle_query (&self->timing, query))
    return TRUE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY && self->have_format) {
    GstClockTime min;

    /* what the grains showed (see update_latency), plus the headroom */
    GST_OBJECT_LOCK (self);
    min = self->latency + self->latency_ms * GST_MSECOND;
    GST_OBJECT_UNLOCK (self);
    gst_query_set_latency (query, TRUE, min, GST_CLOCK_TIME_NONE);
    return TRUE;
  }
  return GST_BASE_SRC_CLASS (gst_mxl_fabrics_src_parent_class)->query (src,
      query);
}

/* obj->wake: unlock() ends a read that waits now. */
static void
interrupt_read (gpointer data)
{
  GstMxlFabricsSrc *self = data;

  if (self->target)
    mxlFabricsExtTargetInterruptRead (self->target);
}

static gint64 absent_wait_us (GstMxlFabricsSrc * self);

/* How long the next read may wait: READ_WAIT_MS, or what is left of the
 * wait for an absent grain. */
static guint16
read_wait_ms (GstMxlFabricsSrc * self)
{
  gint64 left;

  if (self->absent_since_us == 0)
    return READ_WAIT_MS;
  left = self->absent_since_us + absent_wait_us (self) -
      g_get_monotonic_time ();
  return (guint16) CLAMP ((left + 999) / 1000, 1, READ_WAIT_MS);
}

static gboolean
gst_mxl_fabrics_src_unlock (GstBaseSrc * src)
{
  gst_mxl_fabrics_object_unlock (GST_MXL_FABRICS_SRC (src)->obj);
  return TRUE;
}

static gboolean
gst_mxl_fabrics_src_unlock_stop (GstBaseSrc * src)
{
  gst_mxl_fabrics_object_unlock_stop (GST_MXL_FABRICS_SRC (src)->obj);
  return TRUE;
}

static void
count (GstMxlFabricsSrc * self, guint64 * counter, guint64 n, gboolean drop)
{
  GST_OBJECT_LOCK (self);
  *counter += n;
  if (drop)
    self->obj->counters.dropped += n;
  GST_OBJECT_UNLOCK (self);
}

static void
refresh_engine_stats (GstMxlFabricsSrc * self)
{
  mxlFabricsExtTargetStats ts;
  gint64 now = g_get_monotonic_time ();
  guint64 bad;

  if (now - self->stats_at_us < STATS_PERIOD_US)
    return;
  self->stats_at_us = now;
  if (mxlFabricsExtTargetGetStats (self->target, &ts) != MXL_STATUS_OK)
    return;
  gst_mxl_fabrics_object_set_engine_stats (self->obj,
      GST_MXL_FABRICS_STATS_TARGET, &ts);
  bad = ts.badImmediateData + ts.badGrainHeaders + ts.badBounceEntries;
  if (bad > self->bad_input_seen) {
    self->bad_input_seen = bad;
    gst_mxl_fabrics_object_post_bad_input (self->obj, ts.badImmediateData,
        ts.badGrainHeaders, ts.badBounceEntries);
  }
}

/* Connection events of the target (RC: initiator accepted or gone). */
static void
poll_target_events (GstMxlFabricsSrc * self)
{
  mxlFabricsExtConnectionEvent ev;

  while (mxlFabricsExtTargetPollEvent (self->target, &ev) == MXL_STATUS_OK) {
    GstMxlFabricsConnectionState s = state_from_ext (ev.current);
    gchar *reason = ev.reason == MXL_STATUS_OK ? NULL :
        g_strdup_printf ("initiator %s (%s)",
        mxlFabricsExtConnectionStateName (ev.current),
        gst_mxl_fabrics_status_name (ev.reason));

    if (s == GST_MXL_FABRICS_CONNECTION_DISCONNECTED)
      s = GST_MXL_FABRICS_CONNECTION_LISTENING;
    gst_mxl_fabrics_object_set_state (self->obj, s, NULL,
        reason ? reason : mxlFabricsExtConnectionStateName (ev.current));
    g_free (reason);
  }
}

static void
check_timeout (GstMxlFabricsSrc * self)
{
  GstClockTime timeout;
  gint64 now = g_get_monotonic_time ();

  GST_OBJECT_LOCK (self);
  timeout = self->timeout;
  GST_OBJECT_UNLOCK (self);
  if (self->last_data_us == 0)
    self->last_data_us = now;   /* silence counts from the first wait */
  if (timeout == 0 || self->stalled
      || (guint64) (now - self->last_data_us) * 1000 < timeout)
    return;
  self->stalled = TRUE;
  GST_INFO_OBJECT (self, "no data for %" GST_TIME_FORMAT,
      GST_TIME_ARGS (timeout));
  gst_mxl_fabrics_object_post_timeout (self->obj, timeout, self->last_index);
  if (gst_mxl_fabrics_object_get_state (self->obj) ==
      GST_MXL_FABRICS_CONNECTION_CONNECTED)
    gst_mxl_fabrics_object_set_state (self->obj,
        GST_MXL_FABRICS_CONNECTION_STALLED, NULL, "no data for the timeout");
}

static void
on_data (GstMxlFabricsSrc * self)
{
  GstMxlFabricsConnectionState s = gst_mxl_fabrics_object_get_state (self->obj);

  self->last_data_us = g_get_monotonic_time ();
  self->stalled = FALSE;
  if (s != GST_MXL_FABRICS_CONNECTION_CONNECTED)
    gst_mxl_fabrics_object_set_state (self->obj,
        GST_MXL_FABRICS_CONNECTION_CONNECTED, NULL, "data received");
}

static int
cmp_clock_time (gconstpointer a, gconstpointer b)
{
  GstClockTime x = *(const GstClockTime *) a, y = *(const GstClockTime *) b;

  return (x > y) - (x < y);
}

/* The latency the src reports (before the `latency` headroom): the arrival
 * of a grain minus its origin time, for grains that completed while the src
 * waited for them (so downstream holding the streaming thread does not
 * count), all but the two largest of the last LATENESS_KEPT (one-off
 * hiccups), plus LATENCY_MARGIN; never less than before (from start:
 * initial_latency), never more than the ring (an older grain is
 * overwritten anyway). Raised in whole milliseconds; each raise posts a
 * LATENCY message. Returns: TRUE when it was raised. */
static gboolean
update_latency (GstMxlFabricsSrc * self, GstClockTime lateness)
{
  GstClockTime sorted[GST_MXL_FABRICS_SRC_LATENESS_KEPT], want, ring;
  guint n;
  gboolean raised = FALSE;

  if (self->n_lateness < GST_MXL_FABRICS_SRC_LATENESS_KEPT) {
    self->lateness[self->n_lateness++] = lateness;
  } else {
    memmove (self->lateness, self->lateness + 1,
        sizeof self->lateness - sizeof self->lateness[0]);
    self->lateness[GST_MXL_FABRICS_SRC_LATENESS_KEPT - 1] = lateness;
  }
  n = self->n_lateness;
  memcpy (sorted, self->lateness, n * sizeof sorted[0]);
  qsort (sorted, n, sizeof sorted[0], cmp_clock_time);
  want = sorted[n > 2 ? n - 3 : n - 1] + LATENCY_MARGIN;
  want = (want + GST_MSECOND - 1) / GST_MSECOND * GST_MSECOND;
  ring = (guint64) self->flow.config.discrete.grainCount * unit_duration (self);
  if (ring > 0)
    want = MIN (want, ring);
  GST_OBJECT_LOCK (self);
  if (want > self->latency) {
    self->latency = want;
    raised = TRUE;
  }
  GST_OBJECT_UNLOCK (self);
  if (raised) {
    GST_INFO_OBJECT (self, "grains arrive %" GST_TIME_FORMAT " after their "
        "origin time: latency raised to %" GST_TIME_FORMAT,
        GST_TIME_ARGS (lateness), GST_TIME_ARGS (want));
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
  }
  return raised;
}

/* Grain @index, counted missing earlier, completed after all: it was not
 * missing but late. */
static void
missed_arrived (GstMxlFabricsSrc * self, guint64 index)
{
  guint i;

  for (i = 0; i < self->n_missed; i++) {
    if (self->missed[i] != index)
      continue;
    self->missed[i] = self->missed[--self->n_missed];
    GST_OBJECT_LOCK (self);
    self->obj->counters.dropped_missing--;
    self->obj->counters.dropped_late++;
    GST_OBJECT_UNLOCK (self);
    return;
  }
}

/* A completion for grain @index was read (and committed by the target);
 * @waited: it arrived while the src waited in a read (the queue was empty
 * before), so now is its arrival time. */
static void
on_grain_completed (GstMxlFabricsSrc * self, guint64 index, gboolean waited)
{
  guint64 window = 2 * (guint64) self->flow.config.discrete.grainCount;
  /* the src had pushed everything before: it was waiting for this one */
  gboolean waiting = waited && (!self->have_head || self->next > self->head);

  if (!self->have_head) {
    self->have_head = TRUE;
    self->head = self->next = index;
  } else if (index > self->head) {
    self->head = index;
  } else if (index + window < self->next) {
    /* Far behind what we pushed: the initiator restarted with another
     * time base (e.g. untimestamped input). Follow it. */
    GST_INFO_OBJECT (self, "index went back from %" G_GUINT64_FORMAT " to %"
        G_GUINT64_FORMAT ": following the new sequence", self->next, index);
    self->head = self->next = index;
    self->discont = TRUE;
    self->n_missed = 0;
    self->absent_since_us = 0;
  } else if (index < self->next) {
    missed_arrived (self, index);
  }
  if (self->absent_since_us != 0 && index == self->absent_index)
    self->absent_since_us = 0;  /* it came: read it now */
  if (waiting && index == self->head) {
    guint64 origin = gst_mxl_fabrics_index_to_tai (index,
        self->format.rate_n, self->format.rate_d);
    guint64 now = gst_mxl_fabrics_tai_now ();

    /* raised before the grain is pushed: the first buffer's preroll
     * computes the pipeline latency with it */
    if (origin != GST_CLOCK_TIME_NONE && now != 0)
      update_latency (self, now > origin ? now - origin : 0);
  }
  on_data (self);
}

/* Stamps and flags a buffer for unit index @index, @units long. */
static gboolean
stamp (GstMxlFabricsSrc * self, GstBuffer * buf, guint64 index, guint64 units,
    gint64 offset)
{
  GstClockTime pts, end, base = gst_element_get_base_time (GST_ELEMENT (self));
  gint n = self->format.rate_n, d = self->format.rate_d;

  if (!gst_mxl_fabrics_timing_index_to_pts (index, n, d, offset, base, &pts))
    return FALSE;
  GST_BUFFER_PTS (buf) = pts;
  if (gst_mxl_fabrics_timing_index_to_pts (index + units, n, d, offset, base,
          &end))
    GST_BUFFER_DURATION (buf) = end - pts;
  GST_BUFFER_OFFSET (buf) = index;
  GST_BUFFER_OFFSET_END (buf) = index + units;
  gst_mxl_fabrics_timing_add_reference_meta (buf,
      gst_mxl_fabrics_index_to_tai (index, n, d), GST_BUFFER_DURATION (buf));
  if (self->discont) {
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    self->discont = FALSE;
    count (self, &self->obj->counters.discont, 1, FALSE);
  }
  return TRUE;
}

static void
pushed (GstMxlFabricsSrc * self, guint64 index, gsize bytes)
{
  GST_OBJECT_LOCK (self);
  self->obj->counters.buffers++;
  self->obj->counters.grains++;
  self->obj->counters.bytes += bytes;
  GST_OBJECT_UNLOCK (self);
  self->last_index = index;
}

/* How long a grain absent from its slot is waited for once a newer one has
 * completed: one grain period, at most ABSENT_WAIT_MAX_US. */
static gint64
absent_wait_us (GstMxlFabricsSrc * self)
{
  return CLAMP ((gint64) (unit_duration (self) / GST_USECOND), 1000,
      ABSENT_WAIT_MAX_US);
}

/* Whether self->next is an absent grain still waited for. */
static gboolean
awaiting_absent (GstMxlFabricsSrc * self)
{
  return self->absent_since_us != 0 && self->absent_index == self->next
      && g_get_monotonic_time () - self->absent_since_us <
      absent_wait_us (self);
}

/* Grain @index (= self->next) is not in its slot (the slot holds an older
 * grain, or none) although a newer one completed: wait for it, then count
 * it missing (remembered, in case it still completes). */
static void
grain_absent (GstMxlFabricsSrc * self, guint64 index)
{
  if (self->absent_since_us == 0 || self->absent_index != index) {
    self->absent_index = index;
    self->absent_since_us = g_get_monotonic_time ();
    return;
  }
  if (awaiting_absent (self))
    return;
  self->absent_since_us = 0;
  GST_DEBUG_OBJECT (self, "grain %" G_GUINT64_FORMAT " never arrived", index);
  count (self, &self->obj->counters.dropped_missing, 1, TRUE);
  if (self->n_missed == GST_MXL_FABRICS_SRC_MISSED_KEPT) {
    memmove (self->missed, self->missed + 1,
        sizeof self->missed - sizeof self->missed[0]);
    self->n_missed--;
  }
  self->missed[self->n_missed++] = index;
  self->next++;
  self->discont = TRUE;
}

/* Tries to turn grain self->next into a buffer. Returns the buffer, or NULL
 * when the grain was skipped (self->next moved on) or must be waited for. */
static GstBuffer *
take_grain (GstMxlFabricsSrc * self, gint64 offset, GstFlowReturn * ret)
{
  mxlGrainInfo info, again;
  uint8_t *payload = NULL, *payload2 = NULL;
  guint64 ring = self->flow.config.discrete.grainCount;
  guint64 index = self->next;
  GstBuffer *buf;
  mxlStatus st;

  if (ring > 0 && self->head - index >= ring) {
    /* A ring behind the newest grain: the sender has overwritten what we
     * would read next (grain index + ring <= head) and is going on. Re-align
     * to the newest and count what is skipped. */
    GST_WARNING_OBJECT (self, "%" G_GUINT64_FORMAT " grains behind the "
        "newest (%" G_GUINT64_FORMAT "): skipping to it", self->head - index,
        self->head);
    count (self, &self->obj->counters.dropped_skipped, self->head - index,
        TRUE);
    self->next = index = self->head;
    self->discont = TRUE;
    self->absent_since_us = 0;
  }
  st = mxlFlowReaderGetGrainNonBlocking (self->flow.reader, index, &info,
      &payload);
  switch (st) {
    case MXL_STATUS_OK:
      break;
    case MXL_ERR_OUT_OF_RANGE_TOO_LATE:
      /* Lapped since the check above. */
      count (self, &self->obj->counters.dropped_late, 1, TRUE);
      self->next++;
      self->discont = TRUE;
      return NULL;
    case MXL_ERR_OUT_OF_RANGE_TOO_EARLY:
      /* A newer grain completed but this one is not (complete) in its
       * slot: not arrived yet, or never. */
      grain_absent (self, index);
      return NULL;
    default:
      GST_ELEMENT_ERROR (self, RESOURCE, READ, ("cannot read the local flow"),
          ("mxlFlowReaderGetGrainNonBlocking(%" G_GUINT64_FORMAT "): %s",
              index, gst_mxl_fabrics_status_name (st)));
      *ret = GST_FLOW_ERROR;
      return NULL;
  }
  if (info.index < index) {
    /* The slot still holds a grain of an earlier lap: this one has not
     * arrived. */
    grain_absent (self, index);
    return NULL;
  }
  self->absent_since_us = 0;
  self->next++;
  if (info.index != index) {
    /* The slot already holds a newer grain: lapped before we read it. */
    GST_DEBUG_OBJECT (self, "grain %" G_GUINT64_FORMAT " overwritten by %"
        G_GUINT64_FORMAT " before it was read", index, info.index);
    count (self, &self->obj->counters.dropped_late, 1, TRUE);
    self->discont = TRUE;
    return NULL;
  }
  if (info.flags & MXL_GRAIN_FLAG_INVALID) {
    count (self, &self->obj->counters.invalid, 1, FALSE);
    self->discont = TRUE;
    return NULL;
  }
  if (info.grainSize != self->grain_size) {
    count (self, &self->obj->counters.invalid, 1, FALSE);
    return NULL;
  }
  buf = gst_mxl_fabrics_grain_pool_acquire (self->grain_pool,
      self->grain_size);
  gst_buffer_fill (buf, 0, payload, self->grain_size);
  /* The remote writer may have reused the slot while we copied: read the
   * header again, after the copy (a seqlock read; writes land header
   * first on the ordered providers, so any payload byte we copied from a
   * newer write shows as a newer header index here). */
  __atomic_thread_fence (__ATOMIC_ACQUIRE);
  st = mxlFlowReaderGetGrainNonBlocking (self->flow.reader, index, &again,
      &payload2);
  if (st != MXL_STATUS_OK || again.index != index) {
    GST_DEBUG_OBJECT (self, "grain %" G_GUINT64_FORMAT " torn", index);
    count (self, &self->obj->counters.dropped_torn, 1, TRUE);
    self->discont = TRUE;
    gst_buffer_unref (buf);
    return NULL;
  }
  buf = self->media->finish_grain (self, buf, index);
  if (!stamp (self, buf, index, 1, offset)) {
    count (self, &self->obj->counters.dropped_early, 1, TRUE);
    gst_buffer_unref (buf);
    return NULL;
  }
  pushed (self, index, self->grain_size);
  return buf;
}

/* ---- for the media operations (media.h) ---- */

void
gst_mxl_fabrics_src_count (GstMxlFabricsSrc * self, guint64 * counter,
    guint64 n, gboolean drop)
{
  count (self, counter, n, drop);
}

void
gst_mxl_fabrics_src_on_data (GstMxlFabricsSrc * self)
{
  on_data (self);
}

gboolean
gst_mxl_fabrics_src_stamp (GstMxlFabricsSrc * self, GstBuffer * buf,
    guint64 index, guint64 units, gint64 offset)
{
  return stamp (self, buf, index, units, offset);
}

void
gst_mxl_fabrics_src_pushed (GstMxlFabricsSrc * self, guint64 index,
    gsize bytes)
{
  pushed (self, index, bytes);
}

GstFlowReturn
gst_mxl_fabrics_src_read_status (GstMxlFabricsSrc * self, mxlStatus st)
{
  poll_target_events (self);
  refresh_engine_stats (self);
  switch (st) {
    case MXL_STATUS_OK:
      break;
    case MXL_ERR_NOT_READY:
      check_timeout (self);
      break;
    case MXL_ERR_INVALID_ARG:
      /* Bad immediate data or header from the network: counted, skipped. */
      count (self, &self->obj->counters.invalid, 1, FALSE);
      break;
    case MXL_FABRICS_EXT_STATUS_CQ_OVERRUN:
      GST_DEBUG_OBJECT (self, "completion queue overrun: draining");
      break;
    case MXL_ERR_INTERRUPTED:
      break;
    default:{
      GError *error = g_error_new (GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_READ, "MXL Fabrics target read failed: %s%s",
          gst_mxl_fabrics_status_name (st),
          st == MXL_ERR_UNSUPPORTED_OPERATION ? " (this library cannot "
          "receive this media type yet)" : "");
      gst_mxl_fabrics_object_post_error (self->obj, error, NULL);
      g_error_free (error);
      return GST_FLOW_ERROR;
    }
  }
  return GST_FLOW_OK;
}

GstFlowReturn
gst_mxl_fabrics_src_read_grains (GstMxlFabricsSrc * self, gint64 offset,
    GstBuffer ** buffer)
{
  GstFlowReturn ret = GST_FLOW_OK;
  gboolean waited = FALSE;
  guint64 index = 0;
  mxlStatus st;
  guint k;

  if (self->have_head && self->next <= self->head && !awaiting_absent (self)) {
    *buffer = take_grain (self, offset, &ret);
    if (*buffer || ret != GST_FLOW_OK || !awaiting_absent (self))
      return ret;
  }
  /* a completion already queued arrived earlier than now: only one that
   * comes during the wait tells the arrival time */
  st = mxlFabricsTargetReadGrainNonBlocking (self->target, &index);
  waited = st == MXL_ERR_NOT_READY;
  if (waited)
    st = mxlFabricsTargetReadGrain (self->target, read_wait_ms (self),
        &index);
  ret = gst_mxl_fabrics_src_read_status (self, st);
  if (st != MXL_STATUS_OK || ret != GST_FLOW_OK)
    return ret;
  on_grain_completed (self, index, waited);
  /* Take every completion that is already there before reading a grain,
   * so that the head is the newest (after a stall, a ring behind:
   * re-align instead of meeting overwritten slots one by one). Bounded:
   * what a default CQ holds, several times. */
  for (k = 0; k < DRAIN_MAX; k++) {
    st = mxlFabricsTargetReadGrainNonBlocking (self->target, &index);
    if (st == MXL_ERR_INVALID_ARG)
      count (self, &self->obj->counters.invalid, 1, FALSE);
    else if (st != MXL_STATUS_OK)
      break;
    else
      on_grain_completed (self, index, FALSE);
  }
  return GST_FLOW_OK;
}

/* One read step of the media (media.h) after another, until a buffer, a
 * flush or an error. */
static GstFlowReturn
gst_mxl_fabrics_src_create (GstPushSrc * src, GstBuffer ** buffer)
{
  GstMxlFabricsSrc *self = GST_MXL_FABRICS_SRC (src);
  GstFlowReturn ret = GST_FLOW_OK;
  gint64 offset = 0;

  *buffer = NULL;
  gst_mxl_fabrics_timing_ensure (GST_ELEMENT (self), &self->timing, &offset);
  for (;;) {
    if (gst_mxl_fabrics_object_is_flushing (self->obj))
      return GST_FLOW_FLUSHING;
    ret = self->media->read (self, offset, buffer);
    if (*buffer || ret != GST_FLOW_OK)
      return ret;
  }
}

static void
gst_mxl_fabrics_src_finalize (GObject * object)
{
  GstMxlFabricsSrc *self = GST_MXL_FABRICS_SRC (object);

  gst_mxl_fabrics_object_free (self->obj);
  gst_mxl_fabrics_timing_clear (&self->timing);
  gst_clear_caps (&self->caps);
  g_free (self->flow_def);
  g_free (self->target_info);
  g_free (self->target_info_file);
  g_free (self->flow_def_json);
  G_OBJECT_CLASS (gst_mxl_fabrics_src_parent_class)->finalize (object);
}

static void
gst_mxl_fabrics_src_class_init (GstMxlFabricsSrcClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSrcClass *basesrc_class = GST_BASE_SRC_CLASS (klass);
  GstPushSrcClass *pushsrc_class = GST_PUSH_SRC_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_mxl_fabrics_src_debug, "mxlfabricssrc", 0,
      "MXL Fabrics target source");

  gobject_class->set_property = gst_mxl_fabrics_src_set_property;
  gobject_class->get_property = gst_mxl_fabrics_src_get_property;
  gobject_class->finalize = gst_mxl_fabrics_src_finalize;

  gst_mxl_fabrics_object_install_properties (gobject_class);
  g_object_class_install_property (gobject_class, PROP_CAPS,
      g_param_spec_boxed ("caps", "Caps",
          "The flow to receive, as caps, e.g. video/x-raw,format=v210,"
          "width=1920,height=1080,framerate=50/1 (a flow definition is "
          "generated from them); NULL means use flow-def. Default: NULL",
          GST_TYPE_CAPS, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_FLOW_DEF,
      g_param_spec_string ("flow-def", "Flow definition",
          "The flow to receive as an NMOS flow definition: the JSON, or @path "
          "of a file holding it; empty means use caps. Default: \"\"",
          GST_MXL_FABRICS_SRC_DEFAULT_FLOW_DEF,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_TARGET_INFO,
      g_param_spec_string ("target-info", "TargetInfo",
          "TargetInfo JSON to give to the sink, read-only, set after READY to "
          "PAUSED and notified (holds remote keys: sensitive). Default: NULL",
          NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_TARGET_INFO_FILE,
      g_param_spec_string ("target-info-file", "TargetInfo file",
          "Path written atomically with the TargetInfo JSON when the target "
          "is ready, rewritten if it changes; empty means no file. "
          "Default: \"\"", GST_MXL_FABRICS_SRC_DEFAULT_TARGET_INFO_FILE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_TIMEOUT,
      g_param_spec_uint64 ("timeout", "Timeout",
          "Nanoseconds without data before an mxl-fabrics-timeout element "
          "message (connection-state becomes stalled; no EOS); 0 disables. "
          "Default: 0", 0, G_MAXUINT64, GST_MXL_FABRICS_SRC_DEFAULT_TIMEOUT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property (gobject_class, PROP_RING_LENGTH,
      g_param_spec_uint ("ring-length", "Ring length",
          "Grain slots of the flow's ring (video, ANC; ignored for audio): "
          "how many grains the src may fall behind the sender before it "
          "re-aligns to the newest (it may lag ring-length - 1 grain periods "
          "without a loss); 0 = the domain's history (200 ms by default: "
          "10 grains at 50 fps), at "
          "least 4 grains; at most " G_STRINGIFY (MXL_FLOW_MAX_GRAIN_COUNT)
          " (the library's limit, which also bounds the automatic ring). An "
          "existing flow in domain keeps its ring. Default: 0", 0,
          MXL_FLOW_MAX_GRAIN_COUNT, GST_MXL_FABRICS_SRC_DEFAULT_RING_LENGTH,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_LATENCY,
      g_param_spec_uint ("latency", "Latency",
          "Milliseconds of headroom added to the latency the src reports "
          "(which covers how late the grains arrive after their origin "
          "time, measured while streaming). Default: 0", 0, 60000,
          GST_MXL_FABRICS_SRC_DEFAULT_LATENCY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));

  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "MXL Fabrics source (target)", "Source/Audio/Video/Network",
      "Receives the grains or samples of an MXL flow remotely written by an "
      "MXL Fabrics initiator and pushes them as buffers",
      "gst-mxl-fabrics developers");

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_mxl_fabrics_src_set_context);
  element_class->post_message =
      GST_DEBUG_FUNCPTR (gst_mxl_fabrics_src_post_message);
  basesrc_class->start = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_src_start);
  basesrc_class->stop = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_src_stop);
  basesrc_class->get_caps = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_src_get_caps);
  basesrc_class->query = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_src_query);
  basesrc_class->unlock = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_src_unlock);
  basesrc_class->unlock_stop =
      GST_DEBUG_FUNCPTR (gst_mxl_fabrics_src_unlock_stop);
  pushsrc_class->create = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_src_create);
}

static void
gst_mxl_fabrics_src_init (GstMxlFabricsSrc * self)
{
  self->obj = gst_mxl_fabrics_object_new (GST_ELEMENT (self));
  self->obj->wake = interrupt_read;
  self->obj->wake_data = self;
  gst_mxl_fabrics_timing_init (&self->timing);
  self->flow_def = g_strdup (GST_MXL_FABRICS_SRC_DEFAULT_FLOW_DEF);
  self->target_info_file =
      g_strdup (GST_MXL_FABRICS_SRC_DEFAULT_TARGET_INFO_FILE);
  self->timeout = GST_MXL_FABRICS_SRC_DEFAULT_TIMEOUT;
  self->ring_length = GST_MXL_FABRICS_SRC_DEFAULT_RING_LENGTH;
  self->latency_ms = GST_MXL_FABRICS_SRC_DEFAULT_LATENCY;
  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
  gst_base_src_set_do_timestamp (GST_BASE_SRC (self), FALSE);
}
