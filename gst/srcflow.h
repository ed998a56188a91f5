/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssrc's flow and target (srcflow.c), opened in start() and
 * closed in stop(). srcflow.c also holds
 * gst_mxl_fabrics_src_resolve_format() and
 * gst_mxl_fabrics_src_publish_target_info() (mxlfabricssrc.h). Internal
 * to the plugin.
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* The element (mxlfabricssrc.h), by its struct tag. */
struct _GstMxlFabricsSrc;

/* Creates the local flow of flow_def_json, sets up the target on it
 * (gst_mxl_fabrics_open_target(), whose errors it returns), the grain
 * pool, and publishes the TargetInfo (GST_RESOURCE_ERROR_WRITE when
 * target-info-file cannot be written; then nothing stays open). Never
 * waits for an initiator. */
gboolean gst_mxl_fabrics_src_engine_start (struct _GstMxlFabricsSrc * src,
    GError ** error);

/* Closes what gst_mxl_fabrics_src_engine_start() opened; safe when it
 * did not. */
void gst_mxl_fabrics_src_engine_stop (struct _GstMxlFabricsSrc * src);

G_END_DECLS
