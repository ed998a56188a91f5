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
 * the `target-info` property (JSON, base64 of the JSON, `@path` of the
 * file the src writes with its `target-info-file` property, or
 * `http://HOST:PORT/target-info` of the src's `http-port` endpoint; or a
 * list of them, separated by `;` or `,`, e.g.
 * `target-info="@/tmp/a.json;@/tmp/b.json"` for fan-out from
 * gst-launch-1.0, gst/sinktargetlist.h) or with the `add-target` action
 * signal. A URL is fetched by the engine thread,
 * never in a state change (at most 2 s and 64 KiB an answer, no redirect
 * followed, JSON only), again while the target is lost, refused or failed
 * (100 ms doubling to 500 ms between attempts) and once a second while it
 * is connected (If-None-Match: a 304 has no body), so a receiver restarted
 * with new keys is followed; an unchanged answer keeps the connection. A
 * failed fetch is a WARNING naming the URL and the HTTP status
 * (docs/security.md "The HTTP endpoint").
 *
 * State changes never wait for the network. By default the sink waits for
 * a connection, as shmsink and srtsink do (`wait-for-connection`, default
 * true): a buffer is written into the local flow and waits there until a
 * target is connected, for at most `wait-timeout` (default 2 s). Video and
 * ANC grains and audio sample batches wait in the flow, not in render:
 * render returns at once, so that an EOS sent to the pipeline
 * (gst-launch-1.0 -e and Ctrl-C; GstBin hands it to the source, which can
 * push it only from the thread in render) reaches the sink at once. The
 * waiting grains and batches go out first, in order, once a target
 * connects (a batch as the samples it was written as); at EOS without a
 * target, on a flush and when `wait-timeout` runs out they are dropped
 * (`dropped-no-target`, one per grain or batch), except that with an input
 * that is not live an EOS waits for them while a target that was
 * connected is being reconnected (a receiver restarted), until
 * `wait-timeout` runs out. Only when the ring (the
 * grain count, or the audio flow's samples per channel) would come round
 * onto the oldest waiting grain or batch does render hold, after a live
 * upstream too, so that nothing is lost while the connection comes up (a
 * live source queues what it produces meanwhile, or produces what came
 * due at once, and it follows as a burst; dropping it lost the frames
 * after the ring's end, tests/gst/test-slow-connect.c). A render that holds ends at once on a flush
 * or a state change, and on an EOS sent to the pipeline if the source
 * allocates video frames from the sink's pool (sinkpool.h); otherwise
 * that EOS waits for at most 1 s with a live source (its hold is bounded
 * so: sinkwait.c LIVE_HOLD_MS), `wait-timeout` with one that is not live.
 * When the wait runs out the waiting buffers are dropped with a WARNING and renders stop waiting
 * until a target has connected. With `wait-for-connection=false`
 * buffers without a connected target are written into the local flow, not
 * transferred, and counted as `dropped-no-target` in `stats`. A
 * lost target is retried with a WARNING while `auto-reconnect` is on.
 * `node` (its own bind address) may be a host name, resolved by start()
 * as the src's (at most 2 s; an unknown name is an ERROR naming it).
 * At EOS, once its transfers completed, the sink sends the end-of-stream
 * notice to each connected target whose TargetInfo advertises it
 * (`ext.eos`, docs/wire-format.md §11.8), whose mxlfabricssrc then ends
 * its stream with EOS; others (the MXL reference) get nothing.
 *
 * One bad target never stops the others. `add-target` returns FALSE for a
 * TargetInfo the library refuses and for a target already given (compared
 * by TargetInfo id: `@path`, JSON and base64 of one target are one). A
 * target that fails later (caps that do not match its flow, refused by the
 * initiator, lost with `auto-reconnect=false`) gets a WARNING and its own
 * state `error`; one from an `@path` file is retried when the file changes.
 * The ERROR comes once every target has failed for good and
 * `error-on-all-failed` is set (the default): then no target can ever
 * receive the stream. A malformed `target-info` property and a missing
 * provider are ERRORs at start. A target that falls behind (slower than
 * the stream, or stopped) costs only itself: grains are not queued on it
 * while another target keeps up (its `dropped` in `targets`, a WARNING
 * naming it at most every 5 s), and on tcp it is disconnected and
 * reconnected when its writes still read a ring slot that comes round
 * again.
 *
 * Credits (flow control, docs/fabrics-engine.md "Credits"): a target whose
 * TargetInfo advertises them (a receiver set up with the option
 * `"credits": true`) gets a grain only once its reader released the grain
 * a ring before, an audio batch only once the target consumed what its
 * next bounce entries held; the sink follows what each target
 * advertises, there is no property. With an input that is not live render
 * waits for every connected target's credit, as TCP holds tcpclientsink
 * back, so a slow reader gets every grain; a flush, a state change and an
 * EOS sent to the pipeline end the wait at once, and a target that gave
 * no credit for 1 s is stalled: grains go to the others without waiting
 * for it until it releases one (gst/sinkcredit.h). A live input never
 * waits. A grain a target did not get for want of a credit is its
 * `dropped-no-credit` in `targets`, and the element's when no target took
 * it.
 *
 * Caps from the receiver: once a target's TargetInfo is known (JSON or
 * base64, or an `@path` file that is there), the sink pad's CAPS query
 * answers the caps of that target's flow (from the flow definition the
 * TargetInfo carries), the intersection of them with several targets; so
 * `videoconvert ! videoscale ! mxlfabricssink target-info=@file` and
 * `audioconvert ! audioresample ! mxlfabricssink ...` negotiate to what
 * the receiver wants without repeating its caps. Before any TargetInfo is
 * known, and when the targets' flows have no caps in common (a WARNING
 * naming them), it answers the pad template. When upstream offers nothing
 * a target's flow takes (caps fixed to another size, a stale TargetInfo
 * file), a WARNING (CORE NEGOTIATION) names the quantity that differs and
 * the converters to add, before upstream fails not-negotiated.
 * ACCEPT_CAPS takes the template (sinkcaps.h), but for fixed caps the
 * library refuses, which get the same kind of WARNING with its reason
 * (each text once until the sink stops). When a target's TargetInfo becomes known or
 * changes (its `@path` file appears or is rewritten) the sink sends a
 * RECONFIGURE upstream: a converter in front renegotiates to the new flow,
 * and caps of another format make the sink stop its engine, create the
 * new flow and initiator and add the targets again (as a restart would;
 * until then the target fails with the WARNING naming the mismatch).
 *
 * Accepted caps: `video/x-raw, format=v210` (progressive,
 * `interlace-mode=alternate` with one field per buffer, or
 * `interlace-mode=interleaved` with both fields woven in each buffer, as
 * capture cards deliver them: split into the flow's two grains of the
 * frame, the first field in time at an even index; interlaced only at
 * 25/1 or 30000/1001 frames a second, the rates the MXL flow format
 * allows for interlaced video, docs/flow-format.md §2.3: others are an
 * ERROR naming the rate), v210 + key
 * (`mxl-alpha=true`, see caps.h for the buffer layout), `audio/x-raw,
 * format=F32LE` (non-interleaved with GstAudioMeta, or interleaved) and
 * `meta/x-st-2038, alignment=frame` (each buffer converted into the RFC
 * 8331 payload of one data grain, docs/anc-data.md; packets that are bad
 * or do not fit are dropped and counted in `anc-packets-dropped`, with a
 * WARNING for the first). GstVideoMeta strides and GstAudioMeta
 * offsets are honoured. Grain or sample indices come from the buffer
 * running time through TAI (the pipeline-wide offset, see timing.h), so use
 * it with `sync=true` (the default). Video follows the stream's own phase
 * (gst_mxl_fabrics_follow_grain_index, docs/architecture.md "Grain
 * indices"): timestamps that jitter by less than half a period get
 * consecutive indices. Indices never go backwards: a buffer whose time
 * maps to an index already written takes the next one; a field
 * of interlaced video takes an index of its parity (even = first field);
 * a buffer without timestamp takes the index after the last one (the
 * current TAI index for the first). The caps must match the target's flow
 * (the src's `caps`): TargetInfos of this library carry the target's flow
 * definition and a mismatch is a STREAM FORMAT WARNING naming the
 * quantity (that target's failure, see above).
 *
 * Zero-copy (`zero-copy`, default true): when the local flow is private
 * (`domain` unset, so no other process can read it), a video buffer whose
 * memory already has the grain payload's layout (one GstMemory, lines
 * without padding, the v210a key plane right after the fill) is not copied
 * into the flow: the initiator writes the payload straight from the
 * buffer, which the sink keeps referenced until those writes completed
 * (`grains-lent` in `stats`). The private flow then holds the grain headers
 * only. With `domain` set, or for padded, multi-memory, audio or ANC
 * buffers, and on providers that need registered local memory (verbs,
 * efa), the buffer is copied into the flow as before. Keeping buffers
 * costs upstream up to one ring of buffers (the flow's grain count) while
 * a target is slow.
 *
 * Threads: render writes and commits the grain, then posts its transfer;
 * a ring slot still read by a transfer is never written (render waits for
 * it, on an event, for at most a quarter of a grain period, then drops the
 * buffer: `dropped-in-flight`), so a target receives every grain bit-exact
 * or not at all. A separate engine thread waits on events (the library's
 * news, render's posts, add-target and remove-target, the GFileMonitor of
 * each `@path` file), turns connection events into `connection-state` and
 * messages, and replaces a target whose `@path` file is rewritten. A lost
 * target is retried by the library with its back-off (`auto-reconnect`);
 * with `auto-reconnect=false` it fails. docs/architecture.md "Threads"
 * has the details.
 *
 * The element messages `mxl-fabrics-connection` (one per change of a
 * target's connection) and the `stats` structure (replacing GstBaseSink's
 * own `stats`, whose values it keeps as `rendered`, `basesink-dropped`
 * and `basesink-average-rate`; with `targets`, one structure per target;
 * posted on the bus every `stats-interval` ms when set) are the same
 * for the sink and the src: docs/bus-and-stats.md explains every field.
 *
 * ## URI
 *
 * The element handles `mxlfabrics://HOST:PORT?KEY=VALUE&...` URIs
 * (GstURIHandler, GST_URI_SINK; also the `uri` property). HOST:PORT names
 * the receiver (the src's `node` and `service`), for the reader and
 * get_uri: an address alone carries none of the remote keys a transfer
 * needs, so the key `target-info` (`@path`, JSON or base64, percent-encoded)
 * is required and the sink connects to the address in that TargetInfo.
 * The other keys, `provider`, `node`, `service` (the sink's own bind
 * address), `flow-id`, `domain`, `options`, `auto-reconnect`,
 * `wait-for-connection`, `wait-timeout`, `zero-copy` and
 * `error-on-all-failed`, set the properties of those names. Keys not given
 * get their defaults; an unknown key, a bad port or value is refused with
 * a GstURIError and changes nothing (docs/getting-started.md "3. URIs").
 * |[
 * hostA$ gst-launch-1.0 videotestsrc is-live=true ! \
 *     video/x-raw,format=v210,width=1920,height=1080,framerate=50/1 ! \
 *     mxlfabricssink uri="mxlfabrics://192.0.2.20:5000?provider=tcp&node=192.0.2.10&target-info=%40%2Ftmp%2Ftarget.json"
 * ]|
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
 * The other providers (verbs, efa, shm), for both sides: mxlfabricssrc's
 * examples and docs/two-hosts.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mxlfabricssink.h"
#include "gstmxlfabricselements.h"
#include "mxlfabricssinkconn.h"
#include "mxlfabricssinktarget.h"
#include "sinkcaps.h"
#include "sinkwait.h"
#include "sinkwrite.h"
#include "mxlfabricsopen.h"
#include "mxlfabricsuri.h"

GST_DEBUG_CATEGORY (gst_mxl_fabrics_sink_debug);
#define GST_CAT_DEFAULT gst_mxl_fabrics_sink_debug

enum {
  PROP_TARGET_INFO = GST_MXL_FABRICS_PROP_LAST,
  PROP_AUTO_RECONNECT,
  PROP_WAIT_FOR_CONNECTION,
  PROP_WAIT_TIMEOUT,
  PROP_ZERO_COPY,
  PROP_ERROR_ON_ALL_FAILED,
  PROP_URI,
  PROP_STATS_INTERVAL,
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

G_DEFINE_TYPE_WITH_CODE (GstMxlFabricsSink, gst_mxl_fabrics_sink,
    GST_TYPE_BASE_SINK, G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER,
        gst_mxl_fabrics_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE (mxlfabricssink, "mxlfabricssink", GST_RANK_NONE,
    GST_TYPE_MXL_FABRICS_SINK);

#define SINK_FIELD(id, type, member) \
  { PROP_##id, type, G_STRUCT_OFFSET (GstMxlFabricsSink, member) }
static const GstMxlFabricsPropField sink_fields[] = {
  SINK_FIELD (TARGET_INFO, G_TYPE_STRING, target_info),
  SINK_FIELD (AUTO_RECONNECT, G_TYPE_BOOLEAN, auto_reconnect),
  SINK_FIELD (WAIT_FOR_CONNECTION, G_TYPE_BOOLEAN, wait_for_connection),
  SINK_FIELD (WAIT_TIMEOUT, G_TYPE_UINT, wait_timeout),
  SINK_FIELD (ZERO_COPY, G_TYPE_BOOLEAN, zero_copy),
  SINK_FIELD (ERROR_ON_ALL_FAILED, G_TYPE_BOOLEAN, error_on_all_failed),
};

static void
gst_mxl_fabrics_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (object);

  if (prop_id == PROP_URI)
    gst_mxl_fabrics_uri_set_property (GST_ELEMENT (self), value);
  else if (prop_id == PROP_STATS_INTERVAL)
    gst_mxl_fabrics_object_set_stats_interval (self->obj,
        g_value_get_uint (value));
  else if (!gst_mxl_fabrics_object_set_property (self->obj, prop_id, value)
      && !gst_mxl_fabrics_prop_fields_set (GST_OBJECT (self), self,
          sink_fields, G_N_ELEMENTS (sink_fields), prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_mxl_fabrics_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (object);

  if (prop_id == PROP_URI)
    gst_mxl_fabrics_uri_get_property (GST_ELEMENT (self), value);
  else if (prop_id == PROP_STATS_INTERVAL)
    g_value_set_uint (value,
        gst_mxl_fabrics_object_get_stats_interval (self->obj));
  else if (!gst_mxl_fabrics_object_get_property (self->obj, prop_id, value)
      && !gst_mxl_fabrics_prop_fields_get (GST_OBJECT (self), self,
          sink_fields, G_N_ELEMENTS (sink_fields), prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
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
gst_mxl_fabrics_sink_post_message (GstElement * element, GstMessage * message)
{
  return gst_mxl_fabrics_object_post_message (GST_MXL_FABRICS_SINK (element)->obj,
      GST_ELEMENT_CLASS (gst_mxl_fabrics_sink_parent_class), message);
}

static GstStateChangeReturn
gst_mxl_fabrics_sink_change_state (GstElement * element,
    GstStateChange transition)
{
  return gst_mxl_fabrics_object_change_state (GST_MXL_FABRICS_SINK
      (element)->obj, GST_ELEMENT_CLASS (gst_mxl_fabrics_sink_parent_class),
      transition);
}

static gboolean
gst_mxl_fabrics_sink_query (GstBaseSink * sink, GstQuery * query)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (sink);

  if (gst_mxl_fabrics_timing_handle_query (&self->timing, query)
      || gst_mxl_fabrics_sink_accept_caps (self, query))
    return TRUE;
  return GST_BASE_SINK_CLASS (gst_mxl_fabrics_sink_parent_class)->query (sink,
      query);
}

/* CAPS: the targets' flows (sinkcaps.h); ACCEPT_CAPS: the template. */
static GstCaps *
gst_mxl_fabrics_sink_get_caps (GstBaseSink * sink, GstCaps * filter)
{
  return gst_mxl_fabrics_sink_get_caps_of_targets (GST_MXL_FABRICS_SINK (sink),
      filter);
}

static gboolean
gst_mxl_fabrics_sink_start (GstBaseSink * sink)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (sink);
  GError *error = NULL;

  gst_mxl_fabrics_object_reset_stats (self->obj);
  if (!gst_mxl_fabrics_object_validate (self->obj, &error)
      || !gst_mxl_fabrics_open_resolve_node (self->obj, &error)
      || !gst_mxl_fabrics_sink_add_property_target (self, &error))
    goto failed;
  /* Every TargetInfo already read was checked by the library's resolver
   * when it was added (a malformed one failed there: an ERROR now, not
   * later); files still to come are checked when read. */

  gst_mxl_fabrics_timing_ensure (GST_ELEMENT (self), &self->timing, NULL);
  self->have_last = FALSE;
  g_mutex_lock (&self->obj->lock);
  self->at_eos = FALSE;
  g_mutex_unlock (&self->obj->lock);
  self->wait_expired = FALSE;
  self->caps_failed = FALSE;
  self->upstream_live = -1;
  self->catch_up_until = 0;
  /* The flow and the initiator are created in set_caps (their geometry
   * comes from the caps); the engine thread handles targets from now on. */
  if (!gst_mxl_fabrics_sink_engine_start (self, &error))
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

  gst_mxl_fabrics_sink_engine_stop (self);
  g_mutex_lock (&self->obj->lock);
  gst_mxl_fabrics_sink_drop_pending (self);
  g_mutex_unlock (&self->obj->lock);
  gst_mxl_fabrics_sink_teardown_caps (self);
  gst_mxl_fabrics_object_set_state (self->obj,
      GST_MXL_FABRICS_CONNECTION_DISCONNECTED, NULL, NULL);
  gst_mxl_fabrics_sink_caps_forget_notices (self);
  return TRUE;
}

static gboolean
gst_mxl_fabrics_sink_set_caps (GstBaseSink * sink, GstCaps * caps)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (sink);
  GError *error = NULL;

  /* renegotiated to a target's new flow: a new flow and initiator */
  if (!gst_mxl_fabrics_sink_caps_renew (self, caps, &error)) {
    gst_mxl_fabrics_object_post_error (self->obj, error, NULL);
    g_error_free (error);
    return FALSE;
  }
  return gst_mxl_fabrics_sink_setup_caps (self, caps);
}

static gboolean
gst_mxl_fabrics_sink_propose_allocation (GstBaseSink * sink, GstQuery * query)
{
  /* the media's metas (strides, channel offsets: upstream may pad) and
   * pool (sinkwait.h) */
  gst_mxl_fabrics_sink_propose_pool (GST_MXL_FABRICS_SINK (sink), query);
  return TRUE;
}

/* Grains and sample batches still pending (transfer()) at EOS go out when a
 * target is connected by then and are dropped otherwise: EOS waits for a
 * connection only with an input that is not live whose target was
 * connected before (a receiver restarted: until wait-timeout runs out,
 * sinkwait.h), and for the stats (engine_eos). A flush drops them. */
static gboolean
gst_mxl_fabrics_sink_event (GstBaseSink * sink, GstEvent * event)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (sink);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS
      || GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
    gboolean live = GST_EVENT_TYPE (event) == GST_EVENT_EOS
        && gst_mxl_fabrics_sink_upstream_is_live (self);

    g_mutex_lock (&self->obj->lock);
    if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
      gst_mxl_fabrics_sink_wait_pending_at_eos (self, live);
    self->at_eos = GST_EVENT_TYPE (event) == GST_EVENT_EOS;
    if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
      gst_mxl_fabrics_sink_engine_eos (self);
    else
      gst_mxl_fabrics_sink_drop_pending (self);
    g_mutex_unlock (&self->obj->lock);
    /* the stats settled (engine_eos): the last message, before EOS's */
    if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
      gst_mxl_fabrics_object_post_final_stats (self->obj);
  }
  return GST_BASE_SINK_CLASS (gst_mxl_fabrics_sink_parent_class)->event (sink,
      event);
}

static gboolean
gst_mxl_fabrics_sink_unlock (GstBaseSink * sink)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (sink);

  /* before the wake: a render waiting for credits looks at it then */
  g_atomic_int_inc (&self->unlocks);
  gst_mxl_fabrics_object_unlock (self->obj);
  return TRUE;
}

static gboolean
gst_mxl_fabrics_sink_unlock_stop (GstBaseSink * sink)
{
  gst_mxl_fabrics_object_unlock_stop (GST_MXL_FABRICS_SINK (sink)->obj);
  return TRUE;
}

static GstFlowReturn
gst_mxl_fabrics_sink_render (GstBaseSink * sink, GstBuffer * buffer)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (sink);
  guint64 index;

  if (!self->have_format || self->flow.writer == NULL) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("buffer before caps"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  index = self->media->index (self, buffer);
  if (index == G_MAXUINT64) {
    gst_mxl_fabrics_sink_count_dropped (self,
        &self->obj->counters.dropped_early);
    return GST_FLOW_OK;
  }
  GST_OBJECT_LOCK (self);
  self->obj->counters.buffers++;
  GST_OBJECT_UNLOCK (self);
  return self->media->write (self, buffer, index);
}

static void
gst_mxl_fabrics_sink_finalize (GObject * object)
{
  GstMxlFabricsSink *self = GST_MXL_FABRICS_SINK (object);

  gst_mxl_fabrics_object_free (self->obj);
  gst_mxl_fabrics_slot_wait_clear (&self->slot_wait);
  gst_mxl_fabrics_timing_clear (&self->timing);
  g_free (self->target_info);
  g_ptr_array_unref (self->targets);
  g_free (self->flow_def);
  g_free (self->caps_warned);
  g_hash_table_unref (self->caps_notices);
  g_array_unref (self->pending);
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
          "JSON, @path of a file (a file that does not exist yet is "
          "waited for, a rewritten file retargets), or the src's "
          "http://HOST:PORT/target-info (fetched again when the target is "
          "lost, and re-validated once a second); or several of them, "
          "separated by ';' or ',' (a JSON source ends at its closing "
          "brace; a ',' ends an @path only before '@' or '{'), each a target "
          "as add-target makes it, a duplicate refused with a WARNING; "
          "empty means no target (use add-target). Default: \"\"",
          GST_MXL_FABRICS_SINK_DEFAULT_TARGET_INFO,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_AUTO_RECONNECT,
      g_param_spec_boolean ("auto-reconnect", "Auto reconnect",
          "Reconnect to a lost target with backoff, posting a WARNING for "
          "each loss; FALSE leaves a lost target failed (WARNING, its state "
          "error; see error-on-all-failed). Default: true",
          GST_MXL_FABRICS_SINK_DEFAULT_AUTO_RECONNECT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_WAIT_FOR_CONNECTION,
      g_param_spec_boolean ("wait-for-connection", "Wait for connection",
          "Keep buffers until a target is connected, for at most "
          "wait-timeout: video and ANC grains wait in the local flow "
          "(render returns, so an EOS gets through at once; they are "
          "dropped at EOS without a target, unless the input is not live "
          "and a target that was connected is reconnecting: then EOS waits "
          "for it up to wait-timeout, and on a flush); render blocks "
          "(never a state change) only when they fill the ring, live "
          "upstream or not, until a flush, a state change, or an EOS if the source "
          "allocates video frames from the sink's pool (videotestsrc); a "
          "live source holds at most 1 s. "
          "FALSE writes buffers into the local flow without transferring "
          "them and counts them as dropped-no-target. Default: true",
          GST_MXL_FABRICS_SINK_DEFAULT_WAIT_FOR_CONNECTION,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_WAIT_TIMEOUT,
      g_param_spec_uint ("wait-timeout", "Wait timeout",
          "With wait-for-connection: how long (ms) a render waits for a "
          "connection before it drops the waiting buffers with a WARNING and "
          "stops waiting until a target has connected; it bounds how long "
          "an EOS sent to the pipeline (gst-launch-1.0 -e, Ctrl-C) waits "
          "behind a render that blocks and that it cannot end (a source "
          "that is not live with buffers not from the sink's pool; a live "
          "one holds at most 1 s). 0: no limit (that EOS then waits for a "
          "target or a second Ctrl-C). Default: 2000",
          0, G_MAXUINT, GST_MXL_FABRICS_SINK_DEFAULT_WAIT_TIMEOUT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_ZERO_COPY,
      g_param_spec_boolean ("zero-copy", "Zero copy",
          "With a private local flow (domain unset), send video payloads "
          "straight from the buffer memory instead of copying them into the "
          "flow (the buffer is held until its remote writes completed); "
          "FALSE always copies. Flows in a shared domain are always copied "
          "so that local readers see the grains. Default: true",
          GST_MXL_FABRICS_SINK_DEFAULT_ZERO_COPY,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  g_object_class_install_property (gobject_class, PROP_ERROR_ON_ALL_FAILED,
      g_param_spec_boolean ("error-on-all-failed", "Error on all failed",
          "Post an ERROR once every target has failed for good (TargetInfo "
          "refused, caps that do not match its flow, refused by the "
          "initiator, or lost with auto-reconnect off) so that none can "
          "receive; a target read from an @path file is not failed for good "
          "(it is retried when the file changes). A target that fails while "
          "another can still receive only gets a WARNING and its own state "
          "error. FALSE never posts that ERROR (e.g. an application that adds "
          "targets later). Default: true",
          GST_MXL_FABRICS_SINK_DEFAULT_ERROR_ON_ALL_FAILED,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_PLAYING));
  gst_mxl_fabrics_uri_install_property (gobject_class, PROP_URI);
  g_object_class_install_property (gobject_class, PROP_STATS_INTERVAL,
      gst_mxl_fabrics_stats_interval_pspec ());

  /**
   * GstMxlFabricsSink::add-target:
   * @sink: the element
   * @target_info: TargetInfo as JSON, base64 of the JSON, or @path
   *
   * Adds one more target to transfer to.
   *
   * Returns: TRUE when the TargetInfo is well-formed (or names a file still
   * to come) and its target was not already added (compared by TargetInfo
   * id, whether given as @path, JSON or base64); FALSE, with a WARNING in
   * the log, otherwise. A target that fails later (caps mismatch, refused,
   * unreachable) gets a WARNING and its own state, and the others go on.
   */
  signals[SIGNAL_ADD_TARGET] = g_signal_new_class_handler ("add-target",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_mxl_fabrics_sink_add_signal_target), NULL, NULL, NULL,
      G_TYPE_BOOLEAN, 1, G_TYPE_STRING);
  /**
   * GstMxlFabricsSink::remove-target:
   * @sink: the element
   * @target_info: the target to remove: its TargetInfo as JSON or base64,
   *   in any spelling (the target of that TargetInfo id is removed, as
   *   add-target refuses a second one), or the same "@path" string given
   *   to add-target (matched as written).
   *
   * Returns: TRUE when the target was found and removed.
   */
  signals[SIGNAL_REMOVE_TARGET] = g_signal_new_class_handler ("remove-target",
      G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_ACTION,
      G_CALLBACK (gst_mxl_fabrics_sink_targets_remove), NULL, NULL, NULL,
      G_TYPE_BOOLEAN, 1, G_TYPE_STRING);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_set_static_metadata (element_class,
      "MXL Fabrics sink (initiator)", "Sink/Audio/Video/Network",
      "Writes buffers into an MXL flow and transfers its grains or samples "
      "to MXL Fabrics targets by libfabric remote write",
      "gst-mxl-fabrics developers");

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_set_context);
  element_class->post_message =
      GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_post_message);
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_change_state);
  basesink_class->start = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_start);
  basesink_class->stop = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_stop);
  basesink_class->set_caps = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_set_caps);
  basesink_class->get_caps = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_get_caps);
  basesink_class->query = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_query);
  basesink_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_propose_allocation);
  basesink_class->render = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_render);
  basesink_class->event = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_event);
  basesink_class->unlock = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_unlock);
  basesink_class->unlock_stop =
      GST_DEBUG_FUNCPTR (gst_mxl_fabrics_sink_unlock_stop);
}

static void
gst_mxl_fabrics_sink_init (GstMxlFabricsSink * self)
{
  self->obj = gst_mxl_fabrics_object_new (GST_ELEMENT (self));
  /* unlock ends a render's wait for a ring slot at once */
  gst_mxl_fabrics_slot_wait_init (&self->slot_wait, self->obj);
  self->engine_wake_fd = -1;
  gst_mxl_fabrics_timing_init (&self->timing);
  self->target_info = g_strdup (GST_MXL_FABRICS_SINK_DEFAULT_TARGET_INFO);
  self->auto_reconnect = GST_MXL_FABRICS_SINK_DEFAULT_AUTO_RECONNECT;
  self->wait_for_connection = GST_MXL_FABRICS_SINK_DEFAULT_WAIT_FOR_CONNECTION;
  self->wait_timeout = GST_MXL_FABRICS_SINK_DEFAULT_WAIT_TIMEOUT;
  self->zero_copy = GST_MXL_FABRICS_SINK_DEFAULT_ZERO_COPY;
  self->error_on_all_failed = GST_MXL_FABRICS_SINK_DEFAULT_ERROR_ON_ALL_FAILED;
  self->targets = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_mxl_fabrics_sink_target_free);
  /* the `targets` stats are built from that list */
  self->obj->targets_stats = gst_mxl_fabrics_sink_targets_stats;
  self->obj->targets_stats_data = self;
  self->pending = g_array_new (FALSE, FALSE, sizeof (GstMxlFabricsSinkPending));
  self->caps_notices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  gst_base_sink_set_sync (GST_BASE_SINK (self), TRUE);
}
