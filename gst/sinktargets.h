/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssink's requested targets (sinktargets.c): the list `targets`
 * (GstMxlFabricsSinkTarget, mxlfabricssink.h) under the object lock, fed by
 * the target-info property and the add-target / remove-target signals.
 * Each change wakes the engine thread (mxlfabricssinkconn.c), which adds
 * the target to or removes it from the initiator. Internal to the plugin.
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* The element (mxlfabricssink.h), by its struct tag. */
struct _GstMxlFabricsSink;

/* Frees one entry of `targets` (its GDestroyNotify). */
void gst_mxl_fabrics_sink_target_free (gpointer target);

/* Adds a target from a TargetInfo @value (JSON, base64 or @path);
 * @from_property: it is the target-info property's. Object lock NOT held.
 * @error: what gst_mxl_fabrics_target_info_resolve() and
 * gst_mxl_fabrics_sink_target_info_id() return for a value the library
 * refuses; GST_RESOURCE_ERROR_BUSY for a target already given (same value,
 * or same TargetInfo id). */
gboolean gst_mxl_fabrics_sink_add_target (struct _GstMxlFabricsSink * sink,
    const gchar * value, gboolean from_property, GError ** error);

/* Removes the target given as @value (the same string); FALSE when there
 * is none. */
gboolean gst_mxl_fabrics_sink_remove_target (struct _GstMxlFabricsSink *
    sink, const gchar * value);

/* start(): (re-)adds the target-info property's target (one also given by
 * add-target is a WARNING, not an error) and checks every TargetInfo
 * already readable. @error: as gst_mxl_fabrics_sink_add_target(), and
 * GST_RESOURCE_ERROR_SETTINGS for a malformed TargetInfo
 * (gst_mxl_fabrics_sink_check_target_info()). */
gboolean gst_mxl_fabrics_sink_targets_start (struct _GstMxlFabricsSink *
    sink, GError ** error);

G_END_DECLS
