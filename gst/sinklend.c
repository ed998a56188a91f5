/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Buffers lent to the initiator (zero-copy sending); see sinklend.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sinklend.h"

static void
release (GstMxlFabricsLender * lender, GstMxlFabricsLent * lent)
{
  if (lent->buffer == NULL)
    return;
  gst_buffer_unmap (lent->buffer, &lent->map);
  gst_buffer_unref (lent->buffer);
  lent->buffer = NULL;
  lender->held--;
}

void
gst_mxl_fabrics_lender_init (GstMxlFabricsLender * lender, guint n_slots)
{
  lender->slots = g_new0 (GstMxlFabricsLent, n_slots);
  lender->n_slots = n_slots;
  lender->held = 0;
}

void
gst_mxl_fabrics_lender_take_back (GstMxlFabricsLender * lender,
    mxlFabricsInitiator initiator, guint64 index)
{
  GstMxlFabricsLent *lent;

  if (lender->n_slots == 0)
    return;
  lent = &lender->slots[index % lender->n_slots];
  if (lent->buffer == NULL)
    return;
  /* The initiator must stop pointing at the memory before it goes back;
   * refused only while the slot is in flight, which the caller excluded. */
  if (mxlFabricsExtInitiatorSetGrainPayload (initiator, index, NULL, 0)
      != MXL_STATUS_OK)
    return;
  release (lender, lent);
}

gboolean
gst_mxl_fabrics_lender_lend (GstMxlFabricsLender * lender,
    mxlFabricsInitiator initiator, guint64 index, GstBuffer * buffer,
    gsize offset, gsize size)
{
  GstMxlFabricsLent *lent;

  if (lender->n_slots == 0 || initiator == NULL)
    return FALSE;
  gst_mxl_fabrics_lender_take_back (lender, initiator, index);
  lent = &lender->slots[index % lender->n_slots];
  if (lent->buffer != NULL || gst_buffer_n_memory (buffer) != 1
      || !gst_buffer_map (buffer, &lent->map, GST_MAP_READ))
    return FALSE;
  if (offset > lent->map.size || size > lent->map.size - offset
      || mxlFabricsExtInitiatorSetGrainPayload (initiator, index,
          lent->map.data + offset, size) != MXL_STATUS_OK) {
    gst_buffer_unmap (buffer, &lent->map);
    return FALSE;
  }
  lent->buffer = gst_buffer_ref (buffer);
  lent->posting = TRUE;
  lender->held++;
  return TRUE;
}

void
gst_mxl_fabrics_lender_posted (GstMxlFabricsLender * lender, guint64 index)
{
  if (lender->n_slots > 0)
    lender->slots[index % lender->n_slots].posting = FALSE;
}

void
gst_mxl_fabrics_lender_reclaim (GstMxlFabricsLender * lender,
    mxlFabricsInitiator initiator)
{
  guint i;

  for (i = 0; i < lender->n_slots && lender->held > 0; i++) {
    bool busy = TRUE;

    if (lender->slots[i].buffer != NULL && !lender->slots[i].posting
        && mxlFabricsExtInitiatorGrainInFlight (initiator, i, &busy)
        == MXL_STATUS_OK && !busy)
      gst_mxl_fabrics_lender_take_back (lender, initiator, i);
  }
}

void
gst_mxl_fabrics_lender_clear (GstMxlFabricsLender * lender)
{
  guint i;

  for (i = 0; i < lender->n_slots; i++)
    release (lender, &lender->slots[i]);
  g_clear_pointer (&lender->slots, g_free);
  lender->n_slots = 0;
}
