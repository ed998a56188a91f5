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
 * stay aligned. With `is-live=false` it is a source that is not live, for
 * recording and transcoding: the first pushed grain has PTS 0 and the
 * others follow by their origin times, so the grains a sender that is not
 * live held for this receiver before it started (or sends faster than
 * real time) are pushed, not skipped-at-start; it reports no latency. Interlaced flows give one field per buffer
 * (`interlace-mode=alternate`), or with `caps` saying
 * `interlace-mode=interleaved` one frame per buffer, its two fields (grains
 * 2j and 2j + 1) woven (gst/media-video.c), audio comes non-interleaved with
 * GstAudioMeta, v210a as v210 caps with `mxl-alpha=true` and the key plane
 * after the fill (caps.h).
 *
 * The library's progress thread (setup option `progressThread`, on unless
 * `options` set it) drains the target's completions and commits grains,
 * so a slow or blocked downstream does not hold up the sender's writes.
 * The streaming thread reads its results in bounded reads (unlock() ends
 * one at once), copies each completed grain out of the ring into
 * a new buffer, then checks that the slot still holds that grain: one
 * overwritten meanwhile by the remote writer is dropped (`dropped-torn`).
 * A grain absent from its slot while a newer one completed is waited for
 * up to a grain period (50 ms at most), then counted `dropped-missing`
 * (moved to `dropped-late` if it completes after all); a src that falls a
 * ring (`ring-length` grains) behind the newest re-aligns to it and counts
 * the grains skipped (`dropped-skipped`); a grain overwritten before it was
 * read is `dropped-late`. Each makes the next buffer DISCONT; grains flagged
 * invalid are skipped (`invalid`); grains whose PTS would fall before
 * running time 0 are skipped (`dropped-early`; before the first pushed
 * buffer, those at most the latency cap older than running time 0 were
 * made before the src started: `skipped-at-start`, not a drop, and so are
 * older ones that lead up to the first pushed grain with no gap of a ring,
 * docs/bus-and-stats.md; so are grains the library reports lapped in the
 * ring before it committed them, before the first pushed buffer:
 * `lapped-at-start` too). ANC data grains (RFC 8331
 * payloads) are pushed as `meta/x-st-2038` buffers (docs/anc-data.md):
 * packets with bad parity or checksum, or beyond the grain's Length, are
 * dropped and counted in `anc-packets-dropped`, with a WARNING for the
 * first.
 *
 * Credits (`credits=true`, default false; video and ANC over a connected
 * provider, tcp or verbs; gst/srccredit.h, docs/fabrics-engine.md
 * "Credits"): the target advertises the library's credit extension and
 * the src releases every grain the target returned once it is done with
 * it: copied, or skipped and counted (torn, lapped, late, missing,
 * invalid, early, skipped-at-start). A sender of ours then never writes a
 * slot the src still holds: one that is not live waits (all grains
 * arrive, however slow downstream is), a live one drops for this
 * receiver. While the target's initiator announced itself
 * (mxlFabricsExtTargetCreditsAnnounced(), asked for each grain read)
 * grains are pushed zero-copy, from the first one on: one read-only
 * GstMemory that is the ring slot, no seqlock check (nothing writes it),
 * released when downstream frees the buffer; the target and the flow stay
 * open after stop until the last such buffer is freed. Downstream that
 * holds as many buffers as the ring has slots holds the sender back (a
 * basesink's `enable-last-sample` keeps one, an appsink the last one
 * pulled until it starts again). A reference initiator ignores the
 * extension: the src copies as without it (its releases are only counted,
 * `creditReleasesUnsent`). Audio has no credits yet: the property is
 * accepted and does nothing (a debug line), as on a connectionless
 * provider (shm), whose target does not advertise them. Counted in
 * `credit-releases`, `credit-release-failures` (refused releases: logged,
 * never fatal) and `credits-held` (zero-copy buffers downstream holds).
 *
 * Latency: a grain's PTS is its origin time, so it reaches the src as late
 * as the sender's pipeline, its sink and the transfer make it. The latency
 * query answers what the grains showed: arrival minus origin time of the
 * grains that completed while the src waited for them (all but the two
 * largest of the last 16), plus 10 ms, rounded up to a millisecond, at
 * least one grain period up to 100 ms (audio: one batch of the flow's sync
 * hint) plus 10 ms, at most the ring, never lowered while streaming (woven
 * frames: one field period more, the wait for the second field); plus
 * the `latency` property (headroom, ms). A LATENCY message is posted once
 * the flow is set up and whenever it rises (the first grain raises it
 * before it is pushed, so the sinks' preroll already uses it;
 * docs/sizing.md).
 *
 * `stats` (posted on the bus every `stats-interval` ms when set) carries
 * the receive rate (grains-per-second, bytes-per-second) and the measured
 * one-way latency (latency-last, latency-median: arrival minus origin
 * time, TAI), and also the target's counters (grains-received,
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
 * connection-state becomes `stalled`; no EOS is sent. When the sender ends
 * its stream (an mxlfabricssink at EOS: the end-of-stream notice the
 * TargetInfo advertises, `ext.eos`, docs/wire-format.md §11.8), the src
 * pushes EOS after the grains or batches that came before it, so
 * `num-buffers` on the sender ends both pipelines; a sender that sends no
 * notice (the MXL reference) leaves the timeout as it was. Every connection-state
 * change posts `mxl-fabrics-connection` (fields `state`, `target-id`,
 * `reason`). The TargetInfo holds remote keys: it is never logged above
 * LOG level, but `gst-launch-1.0 -v` prints readable properties.
 *
 * `node` is a numeric address or, for every provider but shm (whose node
 * is a name), a host name: start() resolves it with GResolver, at most
 * 2 s (gst/mxlfabricsopen.c), and an unknown name is an ERROR naming it.
 *
 * ## URI
 *
 * The element handles `mxlfabrics://HOST:PORT?KEY=VALUE&...` URIs
 * (GstURIHandler, GST_URI_SRC; also the `uri` property): HOST and PORT are
 * `node` and `service`, where the target listens (empty or absent:
 * automatic; a service name goes in the key `service`), and the keys
 * `provider`, `flow-id`, `domain`, `options`, `caps`, `flow-def`,
 * `target-info-file`, `timeout`, `ring-length` and `latency` set the
 * properties of those names, percent-encoded. Keys not given get their
 * defaults; an unknown key, a bad port or value is refused with a
 * GstURIError and changes nothing (docs/getting-started.md "3. URIs").
 * |[
 * hostB$ gst-launch-1.0 mxlfabricssrc uri="mxlfabrics://192.0.2.20:5000?provider=tcp&caps=video%2Fx-raw%2Cformat%3Dv210%2Cwidth%3D1920%2Cheight%3D1080%2Cframerate%3D50%2F1&target-info-file=%2Ftmp%2Ftarget.json" \
 *     ! queue ! videoconvert ! autovideosink
 * ]|
 *
 * With `http-port` set the src also serves, from READY to PAUSED on and
 * on a thread of its own, `GET /target-info` (exactly the `target-info`
 * property; 503 until the target is set up), `GET /flow-def` (the flow
 * definition in use) and `GET /stats` (the `stats` structure as JSON),
 * all `application/json`, on `http-address` (default 127.0.0.1); other
 * paths are 404, methods other than GET and HEAD 405, a request body 413;
 * a port in use is an ERROR naming it. A sink then takes
 * `target-info=http://HOST:PORT/target-info`. Anyone who can reach that
 * port can write into the ring (docs/security.md "The HTTP endpoint").
 *
 * ## Examples (two hosts; start this element first)
 *
 * TCP, the TargetInfo fetched over HTTP:
 * |[
 * hostB$ gst-launch-1.0 mxlfabricssrc provider=tcp node=192.0.2.20 service=5000 \
 *     http-address=192.0.2.20 http-port=8410 \
 *     caps="video/x-raw,format=v210,width=1920,height=1080,framerate=50/1" \
 *     ! queue ! videoconvert ! autovideosink
 * hostA$ gst-launch-1.0 videotestsrc is-live=true ! \
 *     video/x-raw,format=v210,width=1920,height=1080,framerate=50/1 ! \
 *     mxlfabricssink provider=tcp node=192.0.2.10 \
 *     target-info=http://192.0.2.20:8410/target-info
 * ]|
 * TCP, the TargetInfo copied as a file:
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
 * buffer with `interlace-mode=alternate`, or woven frames with `caps`
 * saying `interlace-mode=interleaved`; on GStreamer 1.22 videotestsrc
 * cannot produce alternate caps but does produce interleaved ones, which
 * the sink splits into fields.
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
#include "srcflow.h"
#include "mxlfabricsopen.h"
#include "srclatency.h"
#include "srcread.h"
#include "mxlfabricsuri.h"

#include <mxl/flow-ext.h>

GST_DEBUG_CATEGORY (gst_mxl_fabrics_src_debug);
#define GST_CAT_DEFAULT gst_mxl_fabrics_src_debug

enum {
  PROP_CAPS = GST_MXL_FABRICS_PROP_LAST,
  PROP_FLOW_DEF,
  PROP_TARGET_INFO,
  PROP_TARGET_INFO_FILE,
  PROP_TIMEOUT,
  PROP_RING_LENGTH,
  PROP_LATENCY,
  PROP_URI,
  PROP_STATS_INTERVAL,
  PROP_HTTP_ADDRESS,
  PROP_HTTP_PORT,
  PROP_IS_LIVE,
  PROP_CREDITS,
};

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_MXL_FABRICS_SRC_CAPS));

G_DEFINE_TYPE_WITH_CODE (GstMxlFabricsSrc, gst_mxl_fabrics_src,
    GST_TYPE_PUSH_SRC, G_IMPLEMENT_INTERFACE (GST_TYPE_URI_HANDLER,
        gst_mxl_fabrics_uri_handler_init));
GST_ELEMENT_REGISTER_DEFINE (mxlfabricssrc, "mxlfabricssrc", GST_RANK_NONE,
    GST_TYPE_MXL_FABRICS_SRC);

#define SRC_FIELD(id, type, member) \
  { PROP_##id, type, G_STRUCT_OFFSET (GstMxlFabricsSrc, member) }
static const GstMxlFabricsPropField src_fields[] = {
  SRC_FIELD (FLOW_DEF, G_TYPE_STRING, flow_def),
  SRC_FIELD (TARGET_INFO, G_TYPE_STRING, target_info),  /* read-only */
  SRC_FIELD (TARGET_INFO_FILE, G_TYPE_STRING, target_info_file),
  SRC_FIELD (TIMEOUT, G_TYPE_UINT64, timeout),
  SRC_FIELD (RING_LENGTH, G_TYPE_UINT, ring_length),
  SRC_FIELD (HTTP_PORT, G_TYPE_UINT, http_port),
  SRC_FIELD (CREDITS, G_TYPE_BOOLEAN, credits_on),
};

/* caps (a boxed value), latency (whose change posts a LATENCY message)
 * and http-address (NULL sets its default, not "") are the src's
 * properties outside its field table */
static void
gst_mxl_fabrics_src_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMxlFabricsSrc *self = GST_MXL_FABRICS_SRC (object);
  gboolean latency_changed = FALSE;

  if (prop_id == PROP_URI) {
    gst_mxl_fabrics_uri_set_property (GST_ELEMENT (self), value);
  } else if (prop_id == PROP_STATS_INTERVAL) {
    gst_mxl_fabrics_object_set_stats_interval (self->obj,
        g_value_get_uint (value));
  } else if (prop_id == PROP_CAPS) {
    GST_OBJECT_LOCK (self);
    gst_caps_replace (&self->caps, (GstCaps *) gst_value_get_caps (value));
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_LATENCY) {
    GST_OBJECT_LOCK (self);
    latency_changed = self->latency_ms != g_value_get_uint (value);
    self->latency_ms = g_value_get_uint (value);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_IS_LIVE) {
    gst_base_src_set_live (GST_BASE_SRC (self), g_value_get_boolean (value));
  } else if (prop_id == PROP_HTTP_ADDRESS) {
    GST_OBJECT_LOCK (self);
    g_free (self->http_address);
    self->http_address = g_strdup (g_value_get_string (value) ?
        g_value_get_string (value) : GST_MXL_FABRICS_SRC_DEFAULT_HTTP_ADDRESS);
    GST_OBJECT_UNLOCK (self);
  } else if (!gst_mxl_fabrics_object_set_property (self->obj, prop_id, value)
      && !gst_mxl_fabrics_prop_fields_set (GST_OBJECT (self), self,
          src_fields, G_N_ELEMENTS (src_fields), prop_id, value)) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  if (latency_changed)
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
}

static void
gst_mxl_fabrics_src_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstMxlFabricsSrc *self = GST_MXL_FABRICS_SRC (object);

  if (prop_id == PROP_URI) {
    gst_mxl_fabrics_uri_get_property (GST_ELEMENT (self), value);
  } else if (prop_id == PROP_STATS_INTERVAL) {
    g_value_set_uint (value,
        gst_mxl_fabrics_object_get_stats_interval (self->obj));
  } else if (prop_id == PROP_CAPS) {
    GST_OBJECT_LOCK (self);
    gst_value_set_caps (value, self->caps);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_LATENCY) {
    GST_OBJECT_LOCK (self);
    g_value_set_uint (value, self->latency_ms);
    GST_OBJECT_UNLOCK (self);
  } else if (prop_id == PROP_IS_LIVE) {
    g_value_set_boolean (value, gst_base_src_is_live (GST_BASE_SRC (self)));
  } else if (prop_id == PROP_HTTP_ADDRESS) {
    GST_OBJECT_LOCK (self);
    g_value_set_string (value, self->http_address);
    GST_OBJECT_UNLOCK (self);
  } else if (!gst_mxl_fabrics_object_get_property (self->obj, prop_id, value)
      && !gst_mxl_fabrics_prop_fields_get (GST_OBJECT (self), self,
          src_fields, G_N_ELEMENTS (src_fields), prop_id, value)) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
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

static GstStateChangeReturn
gst_mxl_fabrics_src_change_state (GstElement * element,
    GstStateChange transition)
{
  return gst_mxl_fabrics_object_change_state (GST_MXL_FABRICS_SRC
      (element)->obj, GST_ELEMENT_CLASS (gst_mxl_fabrics_src_parent_class),
      transition);
}

/* The bodies of the HTTP endpoint (srchttp.h), read where the properties
 * read them: target-info, the flow definition in use, stats. */
static gchar *
gst_mxl_fabrics_src_http_body (gpointer data, GstMxlFabricsHttpResource what,
    gchar ** reason)
{
  GstMxlFabricsSrc *self = data;
  gchar *body = NULL;

  if (what == GST_MXL_FABRICS_HTTP_STATS) {
    GstStructure *s = gst_mxl_fabrics_object_build_stats (self->obj);

    body = gst_mxl_fabrics_stats_to_json (s);
    gst_structure_free (s);
    return body;
  }
  GST_OBJECT_LOCK (self);
  if (what == GST_MXL_FABRICS_HTTP_TARGET_INFO && self->http_ready)
    body = g_strdup (self->target_info);
  else if (what == GST_MXL_FABRICS_HTTP_FLOW_DEF)
    body = g_strdup (self->flow_def_json);
  GST_OBJECT_UNLOCK (self);
  if (body == NULL)
    *reason = g_strdup ("the target is not set up yet (the src is between "
        "READY and PAUSED)");
  return body;
}

/* The endpoint, when http-port is set: READY to PAUSED. */
static gboolean
gst_mxl_fabrics_src_http_start (GstMxlFabricsSrc * self, GError ** error)
{
  gchar *address;
  guint port;

  GST_OBJECT_LOCK (self);
  address = g_strdup (self->http_address);
  port = self->http_port;
  self->http_ready = FALSE;
  GST_OBJECT_UNLOCK (self);
  if (port != 0)
    self->http = gst_mxl_fabrics_http_server_start (address, port,
        gst_mxl_fabrics_src_http_body, self, error);
  g_free (address);
  return port == 0 || self->http != NULL;
}

static void
gst_mxl_fabrics_src_http_stop (GstMxlFabricsSrc * self)
{
  GST_OBJECT_LOCK (self);
  self->http_ready = FALSE;
  GST_OBJECT_UNLOCK (self);
  gst_mxl_fabrics_http_server_stop (self->http);
  self->http = NULL;
}

static gboolean
gst_mxl_fabrics_src_start (GstBaseSrc * src)
{
  GstMxlFabricsSrc *self = GST_MXL_FABRICS_SRC (src);
  GError *error = NULL;
  gchar *flow_def = NULL;

  gst_mxl_fabrics_object_reset_stats (self->obj);
  if (!gst_mxl_fabrics_object_validate (self->obj, &error)
      || !gst_mxl_fabrics_open_resolve_node (self->obj, &error)
      || !gst_mxl_fabrics_src_resolve_format (self, &self->format, &flow_def,
          &error))
    goto failed;
  self->have_format = TRUE;
  self->media = gst_mxl_fabrics_media_ops (self->format.media);
  GST_OBJECT_LOCK (self);       /* the HTTP endpoint reads it */
  g_free (self->flow_def_json);
  self->flow_def_json = flow_def;
  GST_OBJECT_UNLOCK (self);

  gst_mxl_fabrics_timing_ensure (GST_ELEMENT (self), &self->timing, NULL);

  if (!gst_mxl_fabrics_src_http_start (self, &error))
    goto failed;
  if (!gst_mxl_fabrics_src_engine_start (self, &error)) {
    gst_mxl_fabrics_src_http_stop (self);
    goto failed;
  }
  gst_mxl_fabrics_src_timing_reset (self);
  self->have_head = FALSE;
  self->discont = TRUE;
  self->last_index = G_MAXUINT64;
  self->early_run = 0;
  self->early_run_next = G_MAXUINT64;
  self->last_data_us = 0;
  self->stalled = FALSE;
  self->remote_eos = FALSE;
  self->stats_at_us = 0;
  self->bad_input_seen = 0;
  self->absent_since_us = 0;
  self->n_missed = 0;
  self->n_holes = 0;
  self->lapped_in_holes = 0;
  self->back_run = 0;
  self->n_lateness = 0;
  self->accepted_seen = 0;
  self->sender_changed = FALSE;
  self->uncounted_below = 0;
  self->oldest_since_change = 0;
  GST_OBJECT_LOCK (self);
  self->latency = gst_mxl_fabrics_src_initial_latency (self);
  self->http_ready = TRUE;      /* /target-info answers */
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

  gst_mxl_fabrics_src_http_stop (self);
  gst_mxl_fabrics_src_refresh_stats (self);
  gst_mxl_fabrics_src_engine_stop (self);
  self->have_format = FALSE;
  GST_OBJECT_LOCK (self);
  g_clear_pointer (&self->flow_def_json, g_free);
  GST_OBJECT_UNLOCK (self);
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

static gboolean
gst_mxl_fabrics_src_query (GstBaseSrc * src, GstQuery * query)
{
  GstMxlFabricsSrc *self = GST_MXL_FABRICS_SRC (src);

  if (gst_mxl_fabrics_timing_handle_query (&self->timing, query))
    return TRUE;
  /* not live: GstBaseSrc answers (not live, no latency) */
  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY && self->have_format
      && gst_base_src_is_live (src)) {
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
    if (*buffer) {
      /* a buffer, not a grain: woven video reads two grains for one */
      GST_OBJECT_LOCK (self);
      self->obj->counters.buffers++;
      GST_OBJECT_UNLOCK (self);
    }
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
  g_free (self->http_address);
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
  gst_mxl_fabrics_uri_install_property (gobject_class, PROP_URI);
  g_object_class_install_property (gobject_class, PROP_STATS_INTERVAL,
      gst_mxl_fabrics_stats_interval_pspec ());
  g_object_class_install_property (gobject_class, PROP_HTTP_ADDRESS,
      g_param_spec_string ("http-address", "HTTP address",
          "Address the HTTP endpoint binds to when http-port is set (an IPv4 "
          "or IPv6 literal; 0.0.0.0 for every interface: anyone reaching it "
          "may write into the ring, docs/security.md). Default: \""
          GST_MXL_FABRICS_SRC_DEFAULT_HTTP_ADDRESS "\"",
          GST_MXL_FABRICS_SRC_DEFAULT_HTTP_ADDRESS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_HTTP_PORT,
      g_param_spec_uint ("http-port", "HTTP port",
          "TCP port of an HTTP endpoint serving GET /target-info (what "
          "target-info holds), /flow-def and /stats (JSON) from READY to "
          "PAUSED on; a sink takes target-info=http://ADDRESS:PORT/"
          "target-info. 0 = no endpoint. Default: 0", 0, 65535,
          GST_MXL_FABRICS_SRC_DEFAULT_HTTP_PORT,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  g_object_class_install_property (gobject_class, PROP_IS_LIVE,
      g_param_spec_boolean ("is-live", "Is live",
          "TRUE: a live source, each buffer stamped with its grain's origin "
          "time on the pipeline clock, grains made before the src started "
          "counted skipped-at-start, latency reported. FALSE: not live, the "
          "first pushed grain at PTS 0 and the others after it by their "
          "origin times, so that grains a sender that is not live held for "
          "this receiver (or sends faster than real time) are pushed, not "
          "skipped: for recording, transcoding and tests. Default: true",
          TRUE,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  g_object_class_install_property (gobject_class, PROP_CREDITS,
      g_param_spec_boolean ("credits", "Credits",
          "Flow control for video and ANC (every provider; audio: per "
          "bounce entry, released by the target itself): the target "
          "advertises the credit extension and releases "
          "each grain once done with it, so a sender of ours never "
          "overwrites a grain the src still holds (one that is not live is "
          "held back, a live one drops for this receiver); with such a "
          "sender buffers are pushed zero-copy (read-only memory in the "
          "ring slot, released when freed). A reference initiator ignores "
          "it (copies, as without). Default: false",
          GST_MXL_FABRICS_SRC_DEFAULT_CREDITS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

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
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_mxl_fabrics_src_change_state);
  basesrc_class->start = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_src_start);
  basesrc_class->stop = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_src_stop);
  basesrc_class->get_caps = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_src_get_caps);
  basesrc_class->query = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_src_query);
  basesrc_class->unlock = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_src_unlock);
  basesrc_class->unlock_stop =
      GST_DEBUG_FUNCPTR (gst_mxl_fabrics_src_unlock_stop);
  pushsrc_class->create = GST_DEBUG_FUNCPTR (gst_mxl_fabrics_src_create);
}

/* An EOS leaving the src (num-buffers, the sender's end of stream, or one
 * the application sent): the stats hold every grain read before it
 * (srcread.h), and with stats-interval one last stats message says so. */
static GstPadProbeReturn
on_eos_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS) {
    GstMxlFabricsSrc *self = GST_MXL_FABRICS_SRC (data);

    gst_mxl_fabrics_src_refresh_stats (self);
    gst_mxl_fabrics_object_post_final_stats (self->obj);
  }
  return GST_PAD_PROBE_OK;
}

static void
gst_mxl_fabrics_src_init (GstMxlFabricsSrc * self)
{
  self->obj = gst_mxl_fabrics_object_new (GST_ELEMENT (self));
  self->obj->wake = gst_mxl_fabrics_src_interrupt_read;
  self->obj->wake_data = self;
  gst_mxl_fabrics_timing_init (&self->timing);
  self->flow_def = g_strdup (GST_MXL_FABRICS_SRC_DEFAULT_FLOW_DEF);
  self->target_info_file =
      g_strdup (GST_MXL_FABRICS_SRC_DEFAULT_TARGET_INFO_FILE);
  self->timeout = GST_MXL_FABRICS_SRC_DEFAULT_TIMEOUT;
  self->ring_length = GST_MXL_FABRICS_SRC_DEFAULT_RING_LENGTH;
  self->latency_ms = GST_MXL_FABRICS_SRC_DEFAULT_LATENCY;
  self->http_address = g_strdup (GST_MXL_FABRICS_SRC_DEFAULT_HTTP_ADDRESS);
  self->http_port = GST_MXL_FABRICS_SRC_DEFAULT_HTTP_PORT;
  self->credits_on = GST_MXL_FABRICS_SRC_DEFAULT_CREDITS;
  gst_base_src_set_live (GST_BASE_SRC (self), TRUE);
  gst_base_src_set_format (GST_BASE_SRC (self), GST_FORMAT_TIME);
  gst_base_src_set_do_timestamp (GST_BASE_SRC (self), FALSE);
  gst_pad_add_probe (GST_BASE_SRC_PAD (self),
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_eos_probe, self, NULL);
}
