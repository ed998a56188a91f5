/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What mxlfabricssink and mxlfabricssrc share (after gst-plugins-bad
 * ext/srt/gstsrtobject.c): the common properties and their enum types, the
 * connection state with its notify and bus message, the element messages, the
 * stats structure, and the reading of "JSON or @path" property values.
 *
 * Element messages (GST_MESSAGE_ELEMENT, posted by the element):
 *
 *  "mxl-fabrics-target-info" (src, when its target is ready, and again if the
 *      TargetInfo changes)
 *      target-info  G_TYPE_STRING  the TargetInfo JSON to hand to the sink.
 *          It holds remote keys: treat as sensitive.
 *
 *  "mxl-fabrics-connection" (both, on every change of connection-state)
 *      state        GstMxlFabricsConnectionState  the new state
 *      target-id    G_TYPE_STRING  the target concerned ("" when the state is
 *          the element's own, e.g. the src listening)
 *      reason       G_TYPE_STRING  why, when there is a reason (errors,
 *          disconnections); absent otherwise
 *
 *  "mxl-fabrics-timeout" (src, when no grain arrived for `timeout` ns)
 *      timeout      G_TYPE_UINT64  the timeout property value, ns
 *      last-index   G_TYPE_UINT64  last grain/sample head index received,
 *          G_MAXUINT64 when none yet
 *
 * Stats structure "application/x-mxl-fabrics-stats" (the `stats` property):
 *      connection-state  GstMxlFabricsConnectionState
 *      buffers           G_TYPE_UINT64  buffers rendered (sink) / pushed (src)
 *      grains            G_TYPE_UINT64  grains or sample batches transferred
 *          (sink: posted to at least one target; src: completed and read)
 *      bytes             G_TYPE_UINT64  payload bytes of those grains/batches
 *      dropped           G_TYPE_UINT64  sink: written locally but not
 *          transferred (no connected target); src: grains skipped (lapped by
 *          the initiator, before running time 0)
 *      invalid           G_TYPE_UINT64  grains flagged invalid, or rejected
 *          completions (bad immediate data)
 *      discont           G_TYPE_UINT64  buffers pushed with DISCONT (src)
 *      reconnects        G_TYPE_UINT64  reconnection attempts (sink)
 *      timeouts          G_TYPE_UINT64  timeout messages posted (src)
 *      targets           GST_TYPE_ARRAY of "target" structures (sink only):
 *          target-id (string), state (enum), grains, bytes (uint64)
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/**
 * GstMxlFabricsProvider:
 *
 * The numeric values equal mxlFabricsProvider (mxl/fabrics.h): auto = ANY.
 */
typedef enum {
  GST_MXL_FABRICS_PROVIDER_AUTO = 0,
  GST_MXL_FABRICS_PROVIDER_TCP = 1,
  GST_MXL_FABRICS_PROVIDER_VERBS = 2,
  GST_MXL_FABRICS_PROVIDER_EFA = 3,
  GST_MXL_FABRICS_PROVIDER_SHM = 4,
} GstMxlFabricsProvider;

/**
 * GstMxlFabricsConnectionState:
 * @GST_MXL_FABRICS_CONNECTION_DISCONNECTED: nothing set up, or the last
 *   target went away.
 * @GST_MXL_FABRICS_CONNECTION_LISTENING: src: target endpoint set up,
 *   TargetInfo published, waiting for an initiator.
 * @GST_MXL_FABRICS_CONNECTION_CONNECTING: sink: connecting to a target
 *   (first time or reconnecting).
 * @GST_MXL_FABRICS_CONNECTION_CONNECTED: transfers flow.
 * @GST_MXL_FABRICS_CONNECTION_STALLED: src: connected but no grain for
 *   `timeout` ns (no data is not a disconnection).
 * @GST_MXL_FABRICS_CONNECTION_ERROR: a fatal error was posted.
 */
typedef enum {
  GST_MXL_FABRICS_CONNECTION_DISCONNECTED = 0,
  GST_MXL_FABRICS_CONNECTION_LISTENING,
  GST_MXL_FABRICS_CONNECTION_CONNECTING,
  GST_MXL_FABRICS_CONNECTION_CONNECTED,
  GST_MXL_FABRICS_CONNECTION_STALLED,
  GST_MXL_FABRICS_CONNECTION_ERROR,
} GstMxlFabricsConnectionState;

GType gst_mxl_fabrics_provider_get_type (void);
#define GST_TYPE_MXL_FABRICS_PROVIDER (gst_mxl_fabrics_provider_get_type ())
GType gst_mxl_fabrics_connection_state_get_type (void);
#define GST_TYPE_MXL_FABRICS_CONNECTION_STATE \
  (gst_mxl_fabrics_connection_state_get_type ())

#define GST_MXL_FABRICS_DEFAULT_PROVIDER GST_MXL_FABRICS_PROVIDER_AUTO
#define GST_MXL_FABRICS_DEFAULT_NODE ""
#define GST_MXL_FABRICS_DEFAULT_SERVICE ""
#define GST_MXL_FABRICS_DEFAULT_DOMAIN ""
#define GST_MXL_FABRICS_DEFAULT_FLOW_ID ""
#define GST_MXL_FABRICS_DEFAULT_OPTIONS ""

#define GST_MXL_FABRICS_STATS_NAME "application/x-mxl-fabrics-stats"
#define GST_MXL_FABRICS_MESSAGE_TARGET_INFO "mxl-fabrics-target-info"
#define GST_MXL_FABRICS_MESSAGE_CONNECTION "mxl-fabrics-connection"
#define GST_MXL_FABRICS_MESSAGE_TIMEOUT "mxl-fabrics-timeout"

/* Property ids of the common properties; elements number theirs from
 * GST_MXL_FABRICS_PROP_LAST. */
enum {
  GST_MXL_FABRICS_PROP_0,
  GST_MXL_FABRICS_PROP_PROVIDER,
  GST_MXL_FABRICS_PROP_NODE,
  GST_MXL_FABRICS_PROP_SERVICE,
  GST_MXL_FABRICS_PROP_DOMAIN,
  GST_MXL_FABRICS_PROP_FLOW_ID,
  GST_MXL_FABRICS_PROP_OPTIONS,
  GST_MXL_FABRICS_PROP_CONNECTION_STATE,
  GST_MXL_FABRICS_PROP_STATS,
  GST_MXL_FABRICS_PROP_LAST
};

typedef struct {
  guint64 buffers;
  guint64 grains;
  guint64 bytes;
  guint64 dropped;
  guint64 invalid;
  guint64 discont;
  guint64 reconnects;
  guint64 timeouts;
} GstMxlFabricsCounters;

/**
 * GstMxlFabricsObject:
 *
 * Settings and state shared by both elements. Settings and counters are
 * protected by the element's object lock.
 */
typedef struct {
  GstElement *element;          /* not owned */
  GstMxlFabricsProvider provider;
  gchar *node;
  gchar *service;
  gchar *domain;
  gchar *flow_id;
  gchar *options;
  GstMxlFabricsConnectionState state;
  GstMxlFabricsCounters counters;
  /* Per-target stats of the sink: GstStructure "target" each. */
  GPtrArray *target_stats;
} GstMxlFabricsObject;

GstMxlFabricsObject *gst_mxl_fabrics_object_new (GstElement * element);
void gst_mxl_fabrics_object_free (GstMxlFabricsObject * obj);

/** Installs provider, node, service, domain, flow-id, options,
 * connection-state and stats (ids GST_MXL_FABRICS_PROP_*). */
void gst_mxl_fabrics_object_install_properties (GObjectClass * klass);

/** Returns: FALSE if @prop_id is not a common property. */
gboolean gst_mxl_fabrics_object_set_property (GstMxlFabricsObject * obj,
    guint prop_id, const GValue * value);
gboolean gst_mxl_fabrics_object_get_property (GstMxlFabricsObject * obj,
    guint prop_id, GValue * value);

/**
 * gst_mxl_fabrics_object_validate:
 * Checks the settings before setup: flow-id empty or a UUID, options empty or
 * a JSON object whose keys are among cqDepth, protocol, maxMessageSize,
 * iovLimit, progressThread, postRingCapacity (the library ignores unknown
 * keys; a typo here would silently do nothing). Value types and ranges are
 * checked by the library's setup.
 * @error: GST_RESOURCE_ERROR_SETTINGS naming the property to fix.
 */
gboolean gst_mxl_fabrics_object_validate (GstMxlFabricsObject * obj,
    GError ** error);

/**
 * gst_mxl_fabrics_object_set_state:
 * @target_id: (nullable): target concerned, NULL = "".
 * @reason: (nullable): why.
 *
 * Sets connection-state; on a change notifies the property and posts
 * "mxl-fabrics-connection". Call without the object lock held.
 */
void gst_mxl_fabrics_object_set_state (GstMxlFabricsObject * obj,
    GstMxlFabricsConnectionState state, const gchar * target_id,
    const gchar * reason);

GstMxlFabricsConnectionState
gst_mxl_fabrics_object_get_state (GstMxlFabricsObject * obj);

/** Posts "mxl-fabrics-target-info". The TargetInfo is logged only at LOG
 * level (it holds remote keys). */
void gst_mxl_fabrics_object_post_target_info (GstMxlFabricsObject * obj,
    const gchar * target_info);

/** Posts "mxl-fabrics-timeout" and counts it. */
void gst_mxl_fabrics_object_post_timeout (GstMxlFabricsObject * obj,
    GstClockTime timeout, guint64 last_index);

/** Posts an ERROR message from @error (its domain and code), with @debug,
 * and moves connection-state to error. */
void gst_mxl_fabrics_object_post_error (GstMxlFabricsObject * obj,
    const GError * error, const gchar * debug);

/**
 * gst_mxl_fabrics_object_set_target_stats:
 * @stats: (transfer full): a "target" structure whose "target-id" names the
 *   target; replaces the entry with the same id. NULL with @target_id
 *   removes the entry.
 */
void gst_mxl_fabrics_object_set_target_stats (GstMxlFabricsObject * obj,
    const gchar * target_id, GstStructure * stats);

/** Returns: (transfer full): the stats structure described above. */
GstStructure *gst_mxl_fabrics_object_build_stats (GstMxlFabricsObject * obj);

/**
 * gst_mxl_fabrics_load_value:
 * @value: a property value: literal text, or "@path" to read a file.
 * @contents: (out) (transfer full): the text.
 * @error: GST_RESOURCE_ERROR_NOT_FOUND / _READ for a file that cannot be
 *   read, naming the path.
 *
 * Returns: TRUE on success.
 */
gboolean gst_mxl_fabrics_load_value (const gchar * value, gchar ** contents,
    GError ** error);

/**
 * GstMxlFabricsTargetInfoSource:
 * How a sink target-info value is given: literal JSON, base64 of the JSON,
 * or "@path" (read, maybe later: the file may not exist yet).
 */
typedef enum {
  GST_MXL_FABRICS_TARGET_INFO_JSON,
  GST_MXL_FABRICS_TARGET_INFO_BASE64,
  GST_MXL_FABRICS_TARGET_INFO_FILE,
} GstMxlFabricsTargetInfoSource;

/**
 * gst_mxl_fabrics_target_info_resolve:
 * @value: the property/signal value.
 * @source: (out) (optional): how it was given.
 * @json: (out) (transfer full): the JSON text; for a file that does not
 *   exist yet, NULL with TRUE returned (wait for it).
 * @path: (out) (optional) (transfer full): the path for "@path", else NULL.
 * @error: GST_RESOURCE_ERROR_SETTINGS when the value is neither JSON, nor
 *   base64 of a JSON object, nor "@path"; GST_RESOURCE_ERROR_READ for an
 *   existing file that cannot be read; the JSON must have an object root.
 *
 * Returns: TRUE when @value is usable (now or once the file appears).
 */
gboolean gst_mxl_fabrics_target_info_resolve (const gchar * value,
    GstMxlFabricsTargetInfoSource * source, gchar ** json, gchar ** path,
    GError ** error);

G_END_DECLS
