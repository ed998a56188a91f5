/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssink's local flow and grain writes (sinkwrite.c): set-up of
 * the flow and the initiator on it, here; the write of a grain is
 * gst_mxl_fabrics_sink_write_grain() (media.h). Internal to the plugin.
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* The element (mxlfabricssink.h), by its struct tag. */
struct _GstMxlFabricsSink;

/* set_caps(): creates the local flow of flow_def and the initiator on it
 * (gst_mxl_fabrics_open_initiator(), whose errors it returns), decides on
 * zero-copy (zero-copy set, private domain, video) and wakes the engine
 * thread, which adds the targets. */
gboolean gst_mxl_fabrics_sink_setup_engine (struct _GstMxlFabricsSink * sink,
    GError ** error);

G_END_DECLS
