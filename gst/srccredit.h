/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssrc's credits (srccredit.c; the `credits` property, the
 * library's credit extension, docs/fabrics-engine.md "Credits"): every
 * grain index the target returned is released back to the sender once the
 * src is done with it (copied, skipped, counted lost), or, zero-copy, when
 * the last reference to the buffer that wraps its ring slot is dropped.
 *
 * Two parts: the bookkeeping of the streaming thread (which completed
 * indices are still held), and the shared, reference-counted part that
 * zero-copy buffers keep (the target, and after the src's stop the flow
 * its slots are mapped from, with the release counters). Internal to the
 * plugin.
 */
#pragma once

#include <gst/gst.h>
#include <mxl/fabrics-ext.h>

G_BEGIN_DECLS

/* The element (mxlfabricssrc.h), by its struct tag. */
struct _GstMxlFabricsSrc;

typedef struct _GstMxlFabricsSrcCredits GstMxlFabricsSrcCredits;

/* After the target is set up (srcflow.c): with the `credits` property on
 * a grain flow whose target advertises the extension (TargetInfo
 * ext.credits in @target_info), src->credits holds the bookkeeping; FALSE
 * leaves it NULL (no credits: audio, a provider that does not advertise
 * them; debug line). */
gboolean gst_mxl_fabrics_src_credits_start (struct _GstMxlFabricsSrc * src,
    const gchar * target_info);

/* At stop (srcflow.c): hands src->target and src->flow to the shared part
 * (both reset in @src), which closes them once the last zero-copy buffer
 * is freed (at once when none is out). Without credits: nothing. */
void gst_mxl_fabrics_src_credits_stop (struct _GstMxlFabricsSrc * src);

/* Grain @index was returned by a read of the target (so the target holds
 * it until it is released): kept until the src passes it, released at
 * once when it lies behind what the src reads next. */
void gst_mxl_fabrics_src_credits_completed (struct _GstMxlFabricsSrc * src,
    guint64 index);

/* Releases every held index below src->next not handed to a buffer: the
 * src is done with them (pushed as copies, skipped, counted). */
void gst_mxl_fabrics_src_credits_sweep (struct _GstMxlFabricsSrc * src);

/* The index sequence restarted (a sender with another time base): every
 * held index is released, none will be read. */
void gst_mxl_fabrics_src_credits_forget (struct _GstMxlFabricsSrc * src);

/* A buffer whose one read-only GstMemory is grain @index's @size payload
 * bytes at @payload, in the ring slot (zero-copy): only when the src has
 * credits, @index is held and the target's initiator announced itself
 * (mxlFabricsExtTargetCreditsAnnounced(), asked for each grain: it does
 * not write the slot until the release); the buffer then owns the hold,
 * released when its memory is freed. NULL otherwise: the caller copies. */
GstBuffer *gst_mxl_fabrics_src_credits_wrap (struct _GstMxlFabricsSrc * src,
    guint64 index, const guint8 * payload, gsize size);

/* Copies the release counters into src->obj->counters (credit-releases,
 * credit-release-failures, credits-held), under the object lock. */
void gst_mxl_fabrics_src_credits_stats (struct _GstMxlFabricsSrc * src);

G_END_DECLS
