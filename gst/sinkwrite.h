/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssink's local flow and grain writes (sinkwrite.c): set-up of
 * the flow and the initiator on it, here; the write of a grain is
 * gst_mxl_fabrics_sink_write_grain() (media.h). Internal to the plugin.
 */
#pragma once

#include <gst/gst.h>

#include "mxlfabricsobject.h"

G_BEGIN_DECLS

/* The element (mxlfabricssink.h), by its struct tag. */
struct _GstMxlFabricsSink;

/* What a render waiting for a ring slot to be free waits on: @seq moves,
 * and @cond is broadcast, when the slot may have come free (the library's
 * notify: a pass of its progress thread did work; a progress pass of the
 * engine thread) or the wait must end (unlock). @lock is never held around
 * an initiator call, so the library's notify may take it. */
typedef struct {
  GMutex lock;
  GCond cond;
  gint seq;                     /* atomic, changed under lock */
  gint waiters;                 /* atomic: renders waiting */
} GstMxlFabricsSlotWait;

/** Also makes @obj's unlock (its wake hook) signal @w. */
void gst_mxl_fabrics_slot_wait_init (GstMxlFabricsSlotWait * w,
    GstMxlFabricsObject * obj);
void gst_mxl_fabrics_slot_wait_clear (GstMxlFabricsSlotWait * w);

/** The signal count: read it before looking at the slot, then sleep with
 * gst_mxl_fabrics_slot_wait_until() (a signal in between is not lost). */
guint gst_mxl_fabrics_slot_wait_seq (GstMxlFabricsSlotWait * w);

/** Sleeps until a signal after @seq was read, or until @end (monotonic
 * µs); returns at once when one came already. */
void gst_mxl_fabrics_slot_wait_until (GstMxlFabricsSlotWait * w, guint seq,
    gint64 end);

/** Any thread, any lock held (the library's notify hook included): wakes
 * every render waiting for a slot, which then looks again. */
void gst_mxl_fabrics_slot_wait_signal (GstMxlFabricsSlotWait * w);

/** Whether a render waits for a slot now (the engine thread signals its
 * progress passes only then). */
gboolean gst_mxl_fabrics_slot_wait_wanted (GstMxlFabricsSlotWait * w);

/* set_caps(): the format and flow definition of @caps, then the local
 * flow and the initiator on it (gst_mxl_fabrics_open_initiator()), zero-copy
 * decided, the engine thread woken to add the targets. Called after
 * gst_mxl_fabrics_sink_caps_renew() (sinkcaps.h), which tore down the
 * flow of other caps: caps of the flow set up are accepted. Caps no MXL
 * flow can hold (also renegotiated to, once a flow is set up: it stays
 * until stop) and setup failures post one ERROR per start (the reason,
 * from gst_mxl_fabrics_format_from_caps() or the set-up) and return
 * FALSE. */
gboolean gst_mxl_fabrics_sink_setup_caps (struct _GstMxlFabricsSink * sink,
    GstCaps * caps);

/* stop(), after the engine thread and the initiator are gone: undoes
 * gst_mxl_fabrics_sink_setup_caps() (lent buffers back, flow closed). */
void gst_mxl_fabrics_sink_teardown_caps (struct _GstMxlFabricsSink * sink);

G_END_DECLS
