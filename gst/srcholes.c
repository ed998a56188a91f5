/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssrc's gap bookkeeping (srcholes.h): the indices the head
 * jumped over that have not completed (holes), and the grains counted
 * missing that may still arrive late (missed); the reading (srcread.c)
 * calls these on every completion, lap and re-alignment.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "srcholes.h"
#include "media.h"
#include "mxlfabricssrc.h"

#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (gst_mxl_fabrics_src_debug);
#define GST_CAT_DEFAULT gst_mxl_fabrics_src_debug

/* Grain @index, behind what the src reads next, completed: counted
 * missing earlier, it was not missing but late. One not counted yet is
 * counted now, so that every grain that arrives is pushed or counted:
 * before the first pushed grain skipped-at-start, after it dropped-late. */
void
gst_mxl_fabrics_src_missed_arrived (GstMxlFabricsSrc * self, guint64 index)
{
  guint i;

  for (i = 0; i < self->n_missed; i++) {
    if (self->missed[i] != index)
      continue;
    self->missed[i] = self->missed[--self->n_missed];
    GST_OBJECT_LOCK (self);
    self->obj->counters.dropped_missing--;
    self->obj->counters.dropped_late++;
    GST_OBJECT_UNLOCK (self);
    return;
  }
  if (self->last_index == G_MAXUINT64 || index < self->first_index)
    gst_mxl_fabrics_src_count (self, &self->obj->counters.skipped_at_start, 1,
        FALSE);
  else
    gst_mxl_fabrics_src_count (self, &self->obj->counters.dropped_late, 1,
        TRUE);
}

/* Remembers @index as counted missing
 * (gst_mxl_fabrics_src_missed_arrived()). */
void
gst_mxl_fabrics_src_missed_add (GstMxlFabricsSrc * self, guint64 index)
{
  if (self->n_missed == GST_MXL_FABRICS_SRC_MISSED_KEPT) {
    memmove (self->missed, self->missed + 1,
        sizeof self->missed - sizeof self->missed[0]);
    self->n_missed--;
  }
  self->missed[self->n_missed++] = index;
}

/* The head jumps from self->head to @index: the indices between have not
 * completed (yet). */
void
gst_mxl_fabrics_src_hole_add (GstMxlFabricsSrc * self, guint64 index)
{
  if (index <= self->head + 1)
    return;
  if (self->n_holes == GST_MXL_FABRICS_SRC_HOLES_KEPT) {
    memmove (self->hole_lo, self->hole_lo + 1,
        sizeof self->hole_lo - sizeof self->hole_lo[0]);
    memmove (self->hole_hi, self->hole_hi + 1,
        sizeof self->hole_hi - sizeof self->hole_hi[0]);
    self->n_holes--;
  }
  self->hole_lo[self->n_holes] = self->head + 1;
  self->hole_hi[self->n_holes++] = index;
}

/* Grain @index, not behind what the src reads next nor after the head,
 * completed: not a hole any more (a run split in two when there is room;
 * else the shorter side is dropped, and what it held counts as skipped,
 * not missing, if skipped). Returns: FALSE when it was no hole: it had
 * completed already (a sender that sent it again). */
gboolean
gst_mxl_fabrics_src_hole_fill (GstMxlFabricsSrc * self, guint64 index)
{
  guint i;

  for (i = 0; i < self->n_holes; i++) {
    guint64 lo = self->hole_lo[i], hi = self->hole_hi[i];

    if (index < lo || index >= hi)
      continue;
    if (index == lo)
      self->hole_lo[i]++;
    else if (index == hi - 1)
      self->hole_hi[i]--;
    else if (self->n_holes < GST_MXL_FABRICS_SRC_HOLES_KEPT) {
      self->hole_lo[self->n_holes] = index + 1;
      self->hole_hi[self->n_holes++] = hi;
      self->hole_hi[i] = index;
    } else if (index - lo < hi - index)
      self->hole_lo[i] = index + 1;
    else
      self->hole_hi[i] = index;
    return TRUE;
  }
  return FALSE;
}

/* Of the indices [@from, @to) skipped re-aligning, how many never
 * completed (in a hole); forgets the holes before @to. With @counted they
 * are counted missing (the newest remembered,
 * gst_mxl_fabrics_src_missed_add()). */
guint64
gst_mxl_fabrics_src_holes_take (GstMxlFabricsSrc * self, guint64 from,
    guint64 to, gboolean counted)
{
  guint64 n = 0, k;
  guint i, kept = 0;

  for (i = 0; i < self->n_holes; i++) {
    guint64 lo = MAX (self->hole_lo[i], from), hi = MIN (self->hole_hi[i], to);

    if (hi > lo)
      n += hi - lo;
    for (k = hi > lo + GST_MXL_FABRICS_SRC_MISSED_KEPT ?
        hi - GST_MXL_FABRICS_SRC_MISSED_KEPT : lo; counted && k < hi; k++)
      gst_mxl_fabrics_src_missed_add (self, k);
    if (self->hole_hi[i] > to) {
      self->hole_lo[kept] = MAX (self->hole_lo[i], to);
      self->hole_hi[kept++] = self->hole_hi[i];
    }
  }
  self->n_holes = kept;
  return n;
}

gboolean
gst_mxl_fabrics_src_holes_full (GstMxlFabricsSrc * self)
{
  gst_mxl_fabrics_src_holes_take (self, 0, self->next, FALSE);
  return self->n_holes + 1 >= GST_MXL_FABRICS_SRC_HOLES_KEPT;
}

/* Before the src's first pushed grain, a grain that arrived and is
 * overwritten by a newer one in its slot before it was read (or while it
 * was copied: torn) was a ring behind the newest: what arrives then is the
 * grains that waited in the sender for this receiver and the burst after
 * them (a receiver restarted under a sender that is not live), or a
 * stream it joins; the re-alignment a ring behind counts those
 * skipped-at-start, and one the burst lapped between that check and the
 * read is the same grain, not the src's loss (they were one dropped-late
 * or dropped-torn now and then, issue 20). */
gboolean
gst_mxl_fabrics_src_before_first (GstMxlFabricsSrc * self)
{
  return self->last_index == G_MAXUINT64;
}

/* Grain @index (self->next) is lapped in its slot: dropped-late when it
 * had arrived (before the first pushed grain skipped-at-start:
 * gst_mxl_fabrics_src_before_first()), dropped-missing when it is a hole
 * (it never did). */
void
gst_mxl_fabrics_src_count_lapped (GstMxlFabricsSrc * self, guint64 index)
{
  guint i;

  for (i = 0; i < self->n_holes; i++) {
    if (index >= self->hole_lo[i] && index < self->hole_hi[i]) {
      gst_mxl_fabrics_src_count (self, &self->obj->counters.dropped_missing,
          1, TRUE);
      gst_mxl_fabrics_src_missed_add (self, index);
      return;
    }
  }
  if (gst_mxl_fabrics_src_before_first (self))
    gst_mxl_fabrics_src_count (self, &self->obj->counters.skipped_at_start,
        1, FALSE);
  else
    gst_mxl_fabrics_src_count (self, &self->obj->counters.dropped_late, 1,
        TRUE);
}
