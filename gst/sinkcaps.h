/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* mxlfabricssink's caps from its receivers (issue 19): the CAPS query of
 * the sink pad answers the flow each target's TargetInfo carries. */
#pragma once

#include "mxlfabricssink.h"

G_BEGIN_DECLS

/**
 * gst_mxl_fabrics_sink_get_caps_of_targets:
 * @self: the sink; engine_lock NOT held (it is taken to copy the
 *   targets' flows).
 * @filter: (nullable): the query's filter.
 *
 * GstBaseSink::get_caps: the CAPS query of the sink pad. ACCEPT_CAPS
 * takes the pad template (gst_mxl_fabrics_sink_accept_caps()), a
 * superset of this answer: caps that a target's flow
 * does not match still reach set_caps, where that target fails alone with
 * the WARNING naming the quantity (mxlfabricssinktarget.c), while other
 * targets go on, as before. Every target whose
 * TargetInfo was read (JSON or base64 given, or its `@path` file read
 * when added or by the engine thread; a file read later sends a
 * RECONFIGURE, gst_mxl_fabrics_sink_targets_changed(); a file the engine
 * thread has not read, as before the first caps, when no initiator
 * exists, is read for the answer, bounded by the library) and carries its
 * flow definition ("ext.flowDef", mxlFabricsExtTargetInfoGetFlowDef(),
 * parsed by gst_mxl_fabrics_format_from_flow_def() once, when read:
 * gst_mxl_fabrics_sink_caps_read_target()) gives the caps the sink takes
 * for that flow (gst_mxl_fabrics_format_to_sink_caps(): its caps first,
 * audio in either layout, as the sink template; then the same without
 * what the flow does not fix or the sink compares only when given,
 * pixel-aspect-ratio, colorimetry, interlace-mode, which the caps
 * features and the template fix, field-order, channel-mask), so that an
 * upstream filter that fixes one of these differently still negotiates
 * the flow's geometry, as it did with the template; all within the pad
 * template. Several targets give the
 * intersection of theirs. With no such target, or when the targets' caps
 * do not intersect (a WARNING naming the targets, once per set of
 * targets), the pad template. A target without a flow definition (a
 * reference target) or with one the library refuses adds no constraint
 * (it fails when added, mxlfabricssinktarget.c).
 *
 * When the targets' caps have nothing of @filter (upstream fixed to other
 * caps: it fails not-negotiated), a WARNING (GST_CORE_ERROR_NEGOTIATION)
 * for each target whose flow takes none of it: "target <id>: " and what
 * the library's check (gst_mxl_fabrics_format_from_caps(), then
 * gst_mxl_fabrics_format_check_match(), as set_caps) says of the caps of
 * @filter nearest the flow (each structure fixed toward the flow's caps:
 * a field it leaves open takes the flow's value, but for the scanning,
 * absent meaning progressive; the first of the flow's media that differs
 * from it, else the first), then the media's converters (convert_hint,
 * media.h); @filter, the nearest caps and the flow's caps in the debug
 * text. Each text once until stop().
 *
 * Returns: (transfer full): the caps intersected with @filter (its order
 * first).
 */
GstCaps *gst_mxl_fabrics_sink_get_caps_of_targets (GstMxlFabricsSink * self,
    GstCaps * filter);

/**
 * gst_mxl_fabrics_sink_caps_read_target:
 * @t: a target whose json was just set (add-target, the target-info
 *   property, an @path file read); engine_lock held.
 *
 * Reads @t's TargetInfo, parsed once when read (@t->parsed, set with
 * @t->json), for the CAPS query: its id and the flow of its flow
 * definition into @t->flow_target_id and @t->flow, @t->have_flow TRUE;
 * FALSE (no constraint) without one, for a TargetInfo the library
 * refuses, one without a flow definition (a reference target) or with
 * one the library refuses (debug output says which).
 */
void gst_mxl_fabrics_sink_caps_read_target (GstMxlFabricsSink * self,
    GstMxlFabricsSinkTarget * t);

/**
 * gst_mxl_fabrics_sink_targets_changed:
 *
 * A target's TargetInfo became known or changed (an `@path` file read or
 * rewritten; any thread, engine_lock may be held): sends a RECONFIGURE
 * upstream, from GStreamer's thread pool (gst_element_call_async(), no
 * lock of ours held), so that upstream asks the CAPS query again and
 * renegotiates to the target's flow; not when the negotiated caps are
 * still within the CAPS answer.
 */
void gst_mxl_fabrics_sink_targets_changed (GstMxlFabricsSink * self);

/**
 * gst_mxl_fabrics_sink_is_current_flow:
 * @fmt: a format from caps (gst_mxl_fabrics_format_from_caps()).
 *
 * The one test of "the same flow as now" (streaming thread): a format is
 * set up, @fmt matches it (gst_mxl_fabrics_format_check_match()) and has
 * its layout (woven or not, interleaved audio or not).
 */
gboolean gst_mxl_fabrics_sink_is_current_flow (GstMxlFabricsSink * self,
    const GstMxlFabricsFormat * fmt);

/**
 * gst_mxl_fabrics_sink_caps_renew:
 * @caps: the caps set_caps got.
 * @error: as gst_mxl_fabrics_sink_engine_start().
 *
 * set_caps, before gst_mxl_fabrics_sink_setup_caps(): when a format is
 * set up and @caps give another one (renegotiated after a RECONFIGURE),
 * the engine stops, the pending grains are dropped, flow and initiator
 * are torn down and the engine starts again, as between stop() and
 * start(), so that setup_caps creates the flow of the new caps and the
 * targets are added to its initiator again (their `targets` counters
 * start from 0). Otherwise nothing: the same flow
 * (gst_mxl_fabrics_sink_is_current_flow()), or caps that are no format
 * (gst_mxl_fabrics_sink_setup_caps() posts their ERROR).
 *
 * Returns: FALSE when the engine cannot start again.
 */
gboolean gst_mxl_fabrics_sink_caps_renew (GstMxlFabricsSink * self,
    GstCaps * caps, GError ** error);

/**
 * gst_mxl_fabrics_sink_accept_caps:
 * @query: any query.
 *
 * Answers an ACCEPT_CAPS query: TRUE for caps within the pad template,
 * whatever the targets' flows (see gst_mxl_fabrics_sink_get_caps_of_targets()),
 * that the library takes when fixed (gst_mxl_fabrics_format_from_caps(),
 * as set_caps reads them: video caps without interlace-mode are
 * progressive), so that caps no flow can carry, such as interlace-mode=mixed
 * (the template's progressive structure names no interlace-mode) or
 * interlaced at 50 frames/s, are refused before set_caps. Fixed caps
 * refused get a WARNING (GST_CORE_ERROR_NEGOTIATION) with the library's
 * reason (or "not within the sink's pad template") and the media's
 * converters, each text once until stop().
 *
 * Returns: TRUE when @query was an ACCEPT_CAPS query, now answered.
 */
gboolean gst_mxl_fabrics_sink_accept_caps (GstMxlFabricsSink * self,
    GstQuery * query);

/**
 * gst_mxl_fabrics_sink_caps_forget_notices:
 *
 * stop(): the negotiation WARNINGs of the CAPS and ACCEPT_CAPS queries
 * (each text posted once) may be posted again.
 */
void gst_mxl_fabrics_sink_caps_forget_notices (GstMxlFabricsSink * self);

G_END_DECLS
