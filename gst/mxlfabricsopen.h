/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Open and close of the two elements' engine objects, written once (after
 * gst-plugins-bad ext/srt/gstsrtobject.c, whose open serves srtsink and
 * srtsrc): copy the settings of a GstMxlFabricsObject, create the local
 * flow, pick the provider, fill the interface config, create and set up the
 * initiator (sink) or target (src), and turn a refused setup into a GError
 * that says what to fix.
 */
#pragma once

#include "localflow.h"

G_BEGIN_DECLS

/* Longest wait of start() for a host name's resolution (ms). */
#define GST_MXL_FABRICS_RESOLVE_TIMEOUT_MS 2000

/**
 * gst_mxl_fabrics_open_resolve_node:
 * @obj: the element's settings.
 * @error: GST_RESOURCE_ERROR_NOT_FOUND naming the node when it does not
 *   resolve (or not within GST_MXL_FABRICS_RESOLVE_TIMEOUT_MS).
 *
 * start() of both elements, never the streaming thread (as udpsrc and
 * multiudpsink resolve theirs): when `node` is a host name and the
 * provider takes a numeric address (every provider but shm, whose node is
 * a name, mxlFabricsExtProviderNodeIsName(); `auto` included), resolves it
 * with GResolver, bounded by a GCancellable cancelled after
 * GST_MXL_FABRICS_RESOLVE_TIMEOUT_MS, and keeps the first IPv4 address
 * (else the first) in @obj->resolved_node, which the opens below use
 * instead of `node`. Numeric addresses and an empty node are kept as they
 * are.
 *
 * Returns: FALSE with @error set when the name does not resolve.
 */
gboolean gst_mxl_fabrics_open_resolve_node (GstMxlFabricsObject * obj,
    GError ** error);

/**
 * gst_mxl_fabrics_open_initiator:
 * @obj: the element's settings (provider, node, service, domain, options).
 * @flow: (out): zeroed by the caller; the local flow of @flow_def.
 * @flow_def: the NMOS flow definition of the local flow.
 * @initiator: (out): the initiator, set up on @flow's reader.
 * @provider: (out): the provider picked.
 * @progress_thread: (out): whether the initiator runs the library's
 *   progress thread: only when the options set "progressThread" true
 *   (docs/fabrics-engine.md, "Progress thread"); without it the sink's
 *   engine thread and render drive progress.
 * @error: the errors of gst_mxl_fabrics_local_flow_open_ring(),
 *   GST_RESOURCE_ERROR_NOT_FOUND when the provider asked for has no
 *   interface on this host (choose_provider() in gst/mxlfabricsopen.c); a
 *   refused mxlFabricsInitiatorSetup()
 *   is GST_RESOURCE_ERROR_NOT_FOUND (MXL_ERR_NO_FABRIC), _SETTINGS
 *   (MXL_ERR_UNSUPPORTED_OPERATION: a media type the library cannot send)
 *   or _OPEN_WRITE, with the library's reason (mxlGetLastErrorMessage()).
 *
 * Returns: TRUE on success; on failure nothing stays open.
 */
gboolean gst_mxl_fabrics_open_initiator (GstMxlFabricsObject * obj,
    GstMxlFabricsLocalFlow * flow, const gchar * flow_def,
    mxlFabricsInitiator * initiator, mxlFabricsProvider * provider,
    gboolean * progress_thread, GError ** error);

/** Destroys *@initiator (if any) and closes @flow; both are reset. */
void gst_mxl_fabrics_close_initiator (GstMxlFabricsLocalFlow * flow,
    mxlFabricsInitiator * initiator);

/**
 * gst_mxl_fabrics_open_target:
 * @ring_length: grain slots of a video or ANC flow (0 = automatic,
 *   gst_mxl_fabrics_local_flow_open_ring()).
 * @credits: adds "credits": true to the setup options unless they set it
 *   (the credit extension, docs/fabrics-engine.md "Credits"; the library
 *   takes it for every flow and provider; audio: per bounce entry).
 * @target: (out): the target, set up on @flow's writer with the element's
 *   options and the library's progress thread on unless the options set
 *   "progressThread" (docs/fabrics-engine.md, "Progress thread").
 * @target_info: (out) (transfer full): its TargetInfo JSON.
 * @error: as gst_mxl_fabrics_open_initiator(); a refused
 *   mxlFabricsTargetSetup() is GST_RESOURCE_ERROR_SETTINGS
 *   (MXL_ERR_UNSUPPORTED_OPERATION: a transfer protocol the provider does
 *   not offer), _NOT_FOUND (MXL_ERR_NO_FABRIC) or _OPEN_READ_WRITE (e.g. a
 *   service port in use); GST_CORE_ERROR_FAILED when the TargetInfo cannot
 *   be serialised.
 *
 * Returns: TRUE on success; on failure nothing stays open.
 */
gboolean gst_mxl_fabrics_open_target (GstMxlFabricsObject * obj,
    GstMxlFabricsLocalFlow * flow, const gchar * flow_def, guint ring_length,
    gboolean credits, mxlFabricsTarget * target, gchar ** target_info,
    GError ** error);

/** Destroys *@target (if any) and closes @flow; both are reset. */
void gst_mxl_fabrics_close_target (GstMxlFabricsLocalFlow * flow,
    mxlFabricsTarget * target);

G_END_DECLS
