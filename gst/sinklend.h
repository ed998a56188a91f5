/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Zero-copy sending for mxlfabricssink: buffers whose memory already has
 * the layout of a grain payload are lent to the initiator
 * (mxlFabricsExtInitiatorSetGrainPayload) instead of being copied into the
 * local flow. A lent buffer stays referenced and mapped until no transfer
 * reads its ring slot any more (mxlFabricsExtInitiatorGrainInFlight), so
 * upstream never gets it back while a remote write may still read it.
 *
 * All functions are called with the sink's engine_lock held (the lock that
 * serialises every use of the initiator), except _clear.
 */
#pragma once

#include <gst/gst.h>

#include <mxl/fabrics-ext.h>
#include <mxl/fabrics.h>

G_BEGIN_DECLS

typedef struct {
  GstBuffer *buffer;            /* NULL: nothing lent for this slot */
  GstMapInfo map;
  gboolean posting;             /* lent, its transfer not queued yet */
} GstMxlFabricsLent;

typedef struct {
  GstMxlFabricsLent *slots;     /* one per local ring slot */
  guint n_slots;
  guint held;                   /* slots with a buffer */
} GstMxlFabricsLender;

/** Sets up @lender for a ring of @n_slots grains (zeroed before). */
void gst_mxl_fabrics_lender_init (GstMxlFabricsLender * lender, guint n_slots);

/**
 * gst_mxl_fabrics_lender_lend:
 * @buffer: the buffer to send grain @index from (one GstMemory); @offset
 *   and @size are the payload's bytes in it (@size >= the grain payload).
 *
 * Gives back what slot @index held (it must not be in flight: the caller
 * waited for that), then lends @buffer for it. Returns: TRUE when the
 * initiator will read the payload from @buffer (a reference is kept);
 * FALSE when it cannot (provider needs registered memory, a mapping
 * failed): the slot's payload comes from the flow, copy it there.
 */
gboolean gst_mxl_fabrics_lender_lend (GstMxlFabricsLender * lender,
    mxlFabricsInitiator initiator, guint64 index, GstBuffer * buffer,
    gsize offset, gsize size);

/** The transfer of grain @index was queued (or will not be): from now on
 * the slot's buffer goes back once the initiator no longer reads it. Until
 * this call _reclaim leaves a freshly lent slot alone: not in flight yet
 * does not mean done. */
void gst_mxl_fabrics_lender_posted (GstMxlFabricsLender * lender,
    guint64 index);

/** Gives back what slot @index held (not in flight); its payload comes from
 * the flow again. */
void gst_mxl_fabrics_lender_take_back (GstMxlFabricsLender * lender,
    mxlFabricsInitiator initiator, guint64 index);

/** Gives back every lent buffer whose slot no transfer reads any more
 * (posted ones only). */
void gst_mxl_fabrics_lender_reclaim (GstMxlFabricsLender * lender,
    mxlFabricsInitiator initiator);

/** Gives back everything and frees the table; only once the initiator is
 * destroyed (nothing reads the buffers any more). Safe when unused. */
void gst_mxl_fabrics_lender_clear (GstMxlFabricsLender * lender);

G_END_DECLS
