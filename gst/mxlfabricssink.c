/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-mxlfabricssink
 * @title: mxlfabricssink
 * @see_also: mxlfabricssrc
 *
 * mxlfabricssink is an MXL Fabrics *initiator*. It writes every buffer into
 * a local MXL flow (in `domain`, or a private one) as one grain (video,
 * ANC data) or one batch of samples (audio), and transfers it by libfabric
 * remote write with immediate data to every connected *target*: an
 * mxlfabricssrc, or any MXL Fabrics target, whose TargetInfo is given with
 * the `target-info` property (JSON, base64 of the JSON, or `@path` of the
 * file the src writes with its `target-info-file` property) or with the
 * `add-target` action signal.
 *
 * State changes never wait for the network. With no connected target,
 * buffers are still written into the local flow, not transferred, and
 * counted as `dropped` in `stats`, unless `wait-for-connection` is set. A
 * lost target is retried with a WARNING while `auto-reconnect` is on. A
 * malformed TargetInfo, caps that do not match the target's flow, or a
 * missing provider are ERRORs.
 *
 * Accepted caps: `video/x-raw, format=v210` (progressive, or
 * `interlace-mode=alternate` with one field per buffer), v210 + key
 * (`mxl-alpha=true`, see caps.h for the buffer layout), `audio/x-raw,
 * format=F32LE` (non-interleaved with GstAudioMeta, or interleaved) and
 * `meta/x-st-2038, alignment=frame`. GstVideoMeta strides and GstAudioMeta
 * offsets are honoured. Grain or sample indices come from the buffer
 * running time through TAI (the pipeline-wide offset, see timing.h), so use
 * it with `sync=true` (the default).
 *
 * The element messages `mxl-fabrics-connection` (fields `state`,
 * `target-id`, `reason`) are posted on every connection-state change;
 * `stats` is an `application/x-mxl-fabrics-stats` structure that replaces
 * GstBaseSink's own `stats` property (fields documented in
 * mxlfabricsobject.h).
 *
 * ## Examples (two hosts; start the src first, it writes the TargetInfo)
 *
 * TCP (any network):
 * |[
 * hostB$ gst-launch-1.0 mxlfabricssrc provider=tcp node=192.0.2.20 service=5000 \
 *     caps="video/x-raw,format=v210,width=1920,height=1080,framerate=50/1" \
 *     target-info-file=/tmp/target.json ! queue ! videoconvert ! autovideosink
 * hostA$ scp hostB:/tmp/target.json /tmp/target.json
 * hostA$ gst-launch-1.0 videotestsrc is-live=true ! \
 *     video/x-raw,format=v210,width=1920,height=1080,framerate=50/1 ! \
 *     mxlfabricssink provider=tcp node=192.0.2.10 target-info=@/tmp/target.json
 * ]|
 * Verbs (InfiniBand or RoCE; node is the address of the RDMA interface):
 * |[
 * hostB$ gst-launch-1.0 mxlfabricssrc provider=verbs node=10.0.0.2 service=5000 \
 *     caps="audio/x-raw,format=F32LE,layout=non-interleaved,rate=48000,channels=8" \
 *     target-info-file=/tmp/target.json ! audioconvert ! autoaudiosink
 * hostA$ gst-launch-1.0 audiotestsrc is-live=true ! \
 *     audio/x-raw,format=F32LE,layout=interleaved,rate=48000,channels=8 ! \
 *     mxlfabricssink provider=verbs node=10.0.0.1 target-info=@/tmp/target.json
 * ]|
 * EFA (AWS; addresses are found automatically):
 * |[
 * hostB$ gst-launch-1.0 mxlfabricssrc provider=efa \
 *     caps="video/x-raw,format=v210,width=3840,height=2160,framerate=50/1" \
 *     target-info-file=/tmp/target.json ! fakesink
 * hostA$ gst-launch-1.0 videotestsrc is-live=true ! \
 *     video/x-raw,format=v210,width=3840,height=2160,framerate=50/1 ! \
 *     mxlfabricssink provider=efa target-info="$(base64 -w0 /tmp/target.json)"
 * ]|
 * SHM (two processes of one host, e.g. two containers sharing /dev/shm):
 * |[
 * $ gst-launch-1.0 mxlfabricssrc provider=shm \
 *     caps="video/x-raw,format=v210,width=1280,height=720,framerate=60000/1001" \
 *     target-info-file=/tmp/target.json ! videoconvert ! autovideosink &
 * $ gst-launch-1.0 videotestsrc is-live=true ! \
 *     video/x-raw,format=v210,width=1280,height=720,framerate=60000/1001 ! \
 *     mxlfabricssink provider=shm target-info=@/tmp/target.json
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mxlfabricssink.h"
#include "gstmxlfabricselements.h"

#include <gst/audio/audio.h>

GST_DEBUG_CATEGORY_STATIC (gst_mxl_fabrics_sink_debug);
#define GST_CAT_DEFAULT gst_mxl_fabrics_sink_debug

enum {
  PROP_TARGET_INFO = GST_MXL_FABRICS_PROP_LAST,
  PROP_AUTO_RECONNECT,
  PROP_WAIT_FOR_CONNECTION,
};

enum {
  SIGNAL_ADD_TARGET,
  SIGNAL_REMOVE_TARGET,
  LAST_SIGNAL
};

static guint signals[LAST_SIGNAL];

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_MXL_FABRICS_SINK_CAPS));

G_DEFINE_TYPE (GstMxlFabricsSink, gst_mxl_fabrics_sink, GST_TYPE_BASE_SINK);
GST_ELEMENT_REGISTER_DEFINE (mxlfabricssink, "mxlfabricssink", GST_RANK_NONE,
    GST_TYPE_MXL_FABRICS_SINK);

static void
target_free (GstMxlFabricsSinkTarget * target)
{
  g_free (target->value);
  g_free (target->json);
  g_free (target->path);
  g_free (target);
}

/* Adds a target from a TargetInfo value; object lock NOT held. */
static gboolean
add_target (GstMxlFabricsSink * self, const gchar * value,
    gboolean from_property, GError ** error)
{
  GstMxlFabricsSinkTarget *target;
  gchar *json = NULL, *path = NULL;
  guint i;

  if (!gst_mxl_fabrics_target_info_resolve (value, NULL, &json, &path, error))
    return FALSE;

  GST_OBJECT_LOCK (self);
  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    if (g_strcmp0 (t->value, value) == 0) {
      GST_OBJECT_UNLOCK (self);
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "this TargetInfo was already added");
      g_free (json);
      g_free (path);
      return FALSE;
    }
  }
  target = g_new0 (GstMxlFabricsSinkTarget, 1);
  target->value = g_strdup (value);
  target->json = json;
  target->path = path;
  target->from_property = from_property;
  g_ptr_array_add (self->targets, target);
  GST_OBJECT_UNLOCK (self);
  /* TODO(engine): when the initiator exists, mxlFabricsTargetInfoFromString
   * + mxlFabricsInitiatorAddTarget here (a file target once it appears). */
  return TRUE;
}

static gboolean
remove_target (GstMxlFabricsSink * self, const gchar * value)
{
  gboolean found = FALSE;
  guint i;

  GST_OBJECT_LOCK (self);
  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    if (g_strcmp0 (t->value, value) == 0) {
      /* TODO(engine): mxlFabricsInitiatorRemoveTarget. */
      g_ptr_array_remove_index (self->targets, i);
      found = TRUE;
      break;
    }
  }
  GST_OBJECT_UNLOCK (self);
  return found;
}

static gboolean
gst_mxl_fabrics_sink_add_target_signal (GstMxlFabricsSink * self,
    const gchar * value)
{
  GError *error = NULL;

  if (!add_target (self, value, FALSE, &error)) {
    GST_WARNING_OBJECT (self, "add-target refused: %s", error->message);
    g_error_free (error);
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_mxl_fabrics_sink_remove_target_signal (GstMxlFabricsSink * self,
    const gchar * value)
{
  return remove_target (self, value);
}

static void
gst_mxl_fabrics_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (object);

  if (gst_mxl_fabrics_object_set_property (self->obj, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TARGET_INFO:
      g_free (self->target_info);
      self->target_info = g_value_dup_string (value);
      if (self->target_info == NULL)
        self->target_info = g_strdup ("");
      break;
    case PROP_AUTO_RECONNECT:
      self->auto_reconnect = g_value_get_boolean (value);
      break;
    case PROP_WAIT_FOR_CONNECTION:
      self->wait_for_connection = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mxl_fabrics_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (object);

  if (gst_mxl_fabrics_object_get_property (self->obj, prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_TARGET_INFO:
      g_value_set_string (value, self->target_info);
      break;
    case PROP_AUTO_RECONNECT:
      g_value_set_boolean (value, self->auto_reconnect);
      break;
    case PROP_WAIT_FOR_CONNECTION:
      g_value_set_boolean (value, self->wait_for_connection);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mxl_fabrics_sink_set_context (GstElement * element, GstContext * context)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (element);

  gst_mxl_fabrics_timing_set_context (&self->timing, context);
  GST_ELEMENT_CLASS (gst_mxl_fabrics_sink_parent_class)->set_context (element,
      context);
}

static gboolean
gst_mxl_fabrics_sink_query (GstBaseSink * sink, GstQuery * query)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (sink);

  if (gst_mxl_fabrics_timing_handle_query (&self->timing, query))
    return TRUE;
  return GST_BASE_SINK_CLASS (gst_mxl_fabrics_sink_parent_class)->query (sink,
      query);
}

/* The engine seam: sets up the initiator for the negotiated flow. Until the
 * fabrics engine is wired in, it fails: nothing pretends to transfer. */
static gboolean
engine_start (GstMxlFabricsSink * self, GError ** error)
{
  g_set_error (error, GST_CORE_ERROR, GST_CORE_ERROR_NOT_IMPLEMENTED,
      "mxlfabricssink: transfers are not implemented yet (the MXL Fabrics "
      "initiator is not wired in)");
  return FALSE;
}

static gboolean
gst_mxl_fabrics_sink_start (GstBaseSink * sink)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (sink);
  GError *error = NULL;
  gchar *target_info;

  if (!gst_mxl_fabrics_object_validate (self->obj, &error))
    goto failed;

  GST_OBJECT_LOCK (self);
  target_info = g_strdup (self->target_info);
  GST_OBJECT_UNLOCK (self);
  if (target_info[0] != '\0') {
    remove_target (self, target_info);
    if (!add_target (self, target_info, TRUE, &error)) {
      g_free (target_info);
      goto failed;
    }
  }
  g_free (target_info);

  gst_mxl_fabrics_timing_ensure (GST_ELEMENT (self), &self->timing, NULL);

  /* The flow is created in set_caps (its geometry comes from the caps);
   * fabrics instance, interfaces and provider are set up here. */
  if (!engine_start (self, &error))
    goto failed;
  return TRUE;

failed:
  gst_mxl_fabrics_object_post_error (self->obj, error, NULL);
  g_error_free (error);
  return FALSE;
}

static gboolean
gst_mxl_fabrics_sink_stop (GstBaseSink * sink)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (sink);

  /* TODO(engine): destroy initiator, release flow writer and domain. */
  self->have_format = FALSE;
  g_clear_pointer (&self->flow_def, g_free);
  gst_mxl_fabrics_object_set_state (self->obj,
      GST_MXL_FABRICS_CONNECTION_DISCONNECTED, NULL, NULL);
  return TRUE;
}

static gboolean
gst_mxl_fabrics_sink_set_caps (GstBaseSink * sink, GstCaps * caps)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (sink);
  GstMxlFabricsFormat fmt;
  GError *error = NULL;
  gchar *flow_id, *flow_def;

  if (self->have_format) {
    /* A caps change needs a new flow with a new geometry: refused for now. */
    gboolean same = gst_mxl_fabrics_format_from_caps (caps, &fmt, NULL)
        && gst_mxl_fabrics_format_check_match (&fmt, &self->format, NULL)
        && fmt.interleaved == self->format.interleaved;
    if (same)
      return TRUE;
    GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("caps changed mid-stream"),
        ("the MXL flow geometry is fixed when it is created; restart the "
            "pipeline to change caps"));
    return FALSE;
  }

  if (!gst_mxl_fabrics_format_from_caps (caps, &fmt, &error))
    goto failed;
  GST_OBJECT_LOCK (self);
  flow_id = g_strdup (self->obj->flow_id[0] ? self->obj->flow_id : NULL);
  GST_OBJECT_UNLOCK (self);
  flow_def = gst_mxl_fabrics_flow_def_new (&fmt, flow_id, NULL, NULL, &error);
  g_free (flow_id);
  if (flow_def == NULL)
    goto failed;

  self->format = fmt;
  self->have_format = TRUE;
  g_free (self->flow_def);
  self->flow_def = flow_def;
  if (fmt.media == GST_MXL_FABRICS_MEDIA_V210
      || fmt.media == GST_MXL_FABRICS_MEDIA_V210A)
    gst_mxl_fabrics_format_video_info (&fmt, &self->video_info);
  GST_DEBUG_OBJECT (self, "flow definition %s", flow_def);
  /* TODO(engine): create the flow writer in the domain from flow_def, set up
   * the initiator on it, add the targets, compare each target's flow
   * geometry (ERROR STREAM FORMAT on mismatch). */
  return TRUE;

failed:
  gst_mxl_fabrics_object_post_error (self->obj, error,
      "the caps cannot be written into an MXL flow");
  g_error_free (error);
  return FALSE;
}

static gboolean
gst_mxl_fabrics_sink_propose_allocation (GstBaseSink * sink, GstQuery * query)
{
  /* We honour strides and channel offsets, so upstream may pad. */
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  gst_query_add_allocation_meta (query, GST_AUDIO_META_API_TYPE, NULL);
  return TRUE;
}

static GstFlowReturn
gst_mxl_fabrics_sink_render (GstBaseSink * sink, GstBuffer * buffer)
{
  /* TODO(engine): running time -> index (timing.h), copy into the grain or
   * sample ring, commit, transfer. Unreachable while start() fails. */
  GST_ELEMENT_ERROR (sink, CORE, NOT_IMPLEMENTED, (NULL),
      ("mxlfabricssink: rendering is not implemented yet"));
  return GST_FLOW_ERROR;
}

static void
gst_mxl_fabrics_sink_finalize (GObject * object)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (object);

  gst_mxl_fabrics_object_free (self->obj);
  gst_mxl_fabrics_timing_clear (&self->timing);
  g_free (self->target_info);
  g_ptr_array_unref (self->targets);
  g_free (self->flow_def);
  G_OBJECT_CLASS (gst_mxl_fabrics_sink_parent_class)->finalize (object);
}

static void
gst_mxl_fabrics_sink_class_init (GstMxlFabricsSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *basesink_class = GST_BASE_SINK_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_mxl_fabrics_sink_debug, "mxlfabricssink", 0,
      "MXL Fabrics initiator sink");

  gobject_class->set_property = gst_mxl_fabrics_sink_set_property;
  gobject_class->get_property = gst_mxl_fabrics_sink_get_property;
  gobject_class->finalize = gst_mxl_fabrics_sink_finalize;

  gst_mxl_fabrics_object_install_properties (gobject_class);
  g_object_class_install_property (gobject_class, PROP_TARGET_INFO,
      g_param_spec_string ("target-info", "TargetInfo",
          "TargetInfo of the target to transfer to: the JSON, base64 of the "
          "JSON, or @path of a file (a file that does not exist yet is "
          "waited for, a rewritten file retargets); empty means no target "
          "(use add-target). Default: \"\"",
          GST_MXL_FABRICS_SINK_DEFAULT_TARGET_INFO,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_AUTO_RECONNECT,
      g_param_spec_boolean ("auto-reconnect", "Auto reconnect",
          "Reconnect to a lost target with backoff, posting a WARNING for "
          "each loss; FALSE makes a lost target an ERROR. Default: true",
          GST_MXL_FABRICS_SINK_DEFAULT_AUTO_RECONNECT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_WAIT_FOR_CONNECTION,
      g_param_spec_boolean ("wait-for-connection", "Wait for connection",
          "Block rendering until a target is connected; FALSE writes buffers "
          "into the local flow without transferring them and counts them as "
          "dropped. Default: false",
          GST_MXL_FABRICS_SINK_DEFAULT_WAIT_FOR_CONNECTION,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstMxlFabricsSink::add-target:
   * @sink: the element
   * @target_info: TargetInfo as JSON, base64 of the JSON, or @path
   *
   * Adds one more target to transfer to.
   *
   * Returns: TRUE when the TargetInfo is well-formed (or names a file still
   * to come) and was not already added.
   */
  signals[SIGNAL_ADD_TARGET] = g_signal_new_class_handler ("add-target",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_mxl_fabrics_sink_add_target_signal), NULL, NULL, NULL,
      G_TYPE_BOOLEAN, 1, G_TYPE_STRING);
  /**
   * GstMxlFabricsSink::remove-target:
   * @sink: the element
   * @target_info: the same string given to add-target
   *
   * Returns: TRUE when the target was found and removed.
   */
  signals[SIGNAL_REMOVE_TARGET] = g_signal_new_class_handler ("remove-target",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_mxl_fabrics_sink_remove_target_signal), NULL, NULL, NULL,
      G_TYPE_BOOLEAN, 1, G_TYPE_STRING);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class,
      "MXL Fabrics sink (initiator)", "Sink/Audio/Video/Network",
      "Writes buffers into an MXL flow and transfers its grains or samples "
      "to MXL Fabrics targets by libfabric remote write",
      "gst-mxl-fabrics developers");

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_set_context);
  basesink_class->start = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_start);
  basesink_class->stop = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_stop);
  basesink_class->set_caps = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_set_caps);
  basesink_class->query = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_query);
  basesink_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_propose_allocation);
  basesink_class->render = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_render);
}

static void
gst_mxl_fabrics_sink_init (GstMxlFabricsSink * self)
{
  self->obj = gst_mxl_fabrics_object_new (GST_ELEMENT (self));
  gst_mxl_fabrics_timing_init (&self->timing);
  self->target_info = g_strdup (GST_MXL_FABRICS_SINK_DEFAULT_TARGET_INFO);
  self->auto_reconnect = GST_MXL_FABRICS_SINK_DEFAULT_AUTO_RECONNECT;
  self->wait_for_connection = GST_MXL_FABRICS_SINK_DEFAULT_WAIT_FOR_CONNECTION;
  self->targets = g_ptr_array_new_with_free_func ((GDestroyNotify) target_free);
  gst_base_sink_set_sync (GST_BASE_SINK (self), TRUE);
}
