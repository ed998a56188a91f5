/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssrc's reading (media.h, srcread.h): the completions of its
 * target (the head, late and missing grains, re-alignment a ring behind;
 * the holes and missed grains are kept by srcholes.c), the copy of a
 * grain out of the flow (a torn copy is dropped), stamping, the target's
 * events, stats and the timeout.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "srcread.h"
#include "srclatency.h"
#include "srcholes.h"
#include "srccredit.h"
#include "grainpool.h"
#include "media.h"
#include "mxlfabricssrc.h"

#include <mxl/flow-ext.h>

GST_DEBUG_CATEGORY_EXTERN (gst_mxl_fabrics_src_debug);
#define GST_CAT_DEFAULT gst_mxl_fabrics_src_debug

#define READ_WAIT_MS GST_MXL_FABRICS_SRC_READ_WAIT_MS
/* Longest wait for a grain absent from its slot while newer ones have
 * completed (completions may come out of order): a grain period, at most
 * this. */
#define ABSENT_WAIT_MAX_US (50 * G_TIME_SPAN_MILLISECOND)
#define STATS_PERIOD_US (200 * G_TIME_SPAN_MILLISECOND)
/* Most completions taken at once after a read
 * (gst_mxl_fabrics_src_read_grains). */
#define DRAIN_MAX 256

static GstMxlFabricsConnectionState
state_from_ext (mxlFabricsExtConnectionState s)
{
  switch (s) {
    case MXL_FABRICS_EXT_STATE_LISTENING:
      return GST_MXL_FABRICS_CONNECTION_LISTENING;
    case MXL_FABRICS_EXT_STATE_CONNECTING:
      return GST_MXL_FABRICS_CONNECTION_CONNECTING;
    case MXL_FABRICS_EXT_STATE_CONNECTED:
      return GST_MXL_FABRICS_CONNECTION_CONNECTED;
    default:
      return GST_MXL_FABRICS_CONNECTION_DISCONNECTED;
  }
}

/* obj->wake: unlock() ends a read that waits now. */
void
gst_mxl_fabrics_src_interrupt_read (gpointer data)
{
  GstMxlFabricsSrc *self = data;

  if (self->target)
    mxlFabricsExtTargetInterruptRead (self->target);
}

static gint64 absent_wait_us (GstMxlFabricsSrc * self);

/* How long the next read may wait: READ_WAIT_MS, or what is left of the
 * wait for an absent grain. */
static guint16
read_wait_ms (GstMxlFabricsSrc * self)
{
  gint64 left;

  if (self->absent_since_us == 0)
    return READ_WAIT_MS;
  left = self->absent_since_us + absent_wait_us (self) -
      g_get_monotonic_time ();
  return (guint16) CLAMP ((left + 999) / 1000, 1, READ_WAIT_MS);
}

static void
count (GstMxlFabricsSrc * self, guint64 * counter, guint64 n, gboolean drop)
{
  GST_OBJECT_LOCK (self);
  *counter += n;
  if (drop)
    self->obj->counters.dropped += n;
  GST_OBJECT_UNLOCK (self);
}

/* Copies the target's counters into the stats: every STATS_PERIOD_US
 * while streaming, and with @now_too at once
 * (gst_mxl_fabrics_src_refresh_stats()). */
static void
refresh_engine_stats (GstMxlFabricsSrc * self, gboolean now_too)
{
  mxlFabricsExtTargetStats ts;
  gint64 now = g_get_monotonic_time ();
  guint64 bad;

  if (!now_too && now - self->stats_at_us < STATS_PERIOD_US)
    return;
  self->stats_at_us = now;
  if (mxlFabricsExtTargetGetStats (self->target, &ts) != MXL_STATUS_OK)
    return;
  gst_mxl_fabrics_object_set_engine_stats (self->obj,
      GST_MXL_FABRICS_STATS_TARGET, &ts);
  gst_mxl_fabrics_src_credits_stats (self);
  bad = ts.badImmediateData + ts.badGrainHeaders + ts.badBounceEntries;
  if (bad > self->bad_input_seen) {
    self->bad_input_seen = bad;
    gst_mxl_fabrics_object_post_bad_input (self->obj, ts.badImmediateData,
        ts.badGrainHeaders, ts.badBounceEntries);
  }
}

/* Connection events of the target (RC: initiator accepted or gone). */
static void
poll_target_events (GstMxlFabricsSrc * self)
{
  mxlFabricsExtConnectionEvent ev;

  while (mxlFabricsExtTargetPollEvent (self->target, &ev) == MXL_STATUS_OK) {
    GstMxlFabricsConnectionState s = state_from_ext (ev.current);
    gchar *reason = ev.reason == MXL_STATUS_OK ? NULL :
        g_strdup_printf ("initiator %s (%s)",
        mxlFabricsExtConnectionStateName (ev.current),
        gst_mxl_fabrics_status_name (ev.reason));

    if (s == GST_MXL_FABRICS_CONNECTION_DISCONNECTED)
      s = GST_MXL_FABRICS_CONNECTION_LISTENING;
    gst_mxl_fabrics_object_set_state (self->obj, s, NULL,
        reason ? reason : mxlFabricsExtConnectionStateName (ev.current));
    g_free (reason);
  }
}

static void
check_timeout (GstMxlFabricsSrc * self)
{
  GstClockTime timeout;
  gint64 now = g_get_monotonic_time ();

  GST_OBJECT_LOCK (self);
  timeout = self->timeout;
  GST_OBJECT_UNLOCK (self);
  if (self->last_data_us == 0)
    self->last_data_us = now;   /* silence counts from the first wait */
  if (timeout == 0 || self->stalled
      || (guint64) (now - self->last_data_us) * 1000 < timeout)
    return;
  self->stalled = TRUE;
  GST_INFO_OBJECT (self, "no data for %" GST_TIME_FORMAT,
      GST_TIME_ARGS (timeout));
  gst_mxl_fabrics_object_post_timeout (self->obj, timeout, self->last_index);
  if (gst_mxl_fabrics_object_get_state (self->obj) ==
      GST_MXL_FABRICS_CONNECTION_CONNECTED)
    gst_mxl_fabrics_object_set_state (self->obj,
        GST_MXL_FABRICS_CONNECTION_STALLED, NULL, "no data for the timeout");
}

static void
on_data (GstMxlFabricsSrc * self)
{
  GstMxlFabricsConnectionState s = gst_mxl_fabrics_object_get_state (self->obj);

  self->last_data_us = g_get_monotonic_time ();
  self->stalled = FALSE;
  if (s != GST_MXL_FABRICS_CONNECTION_CONNECTED)
    gst_mxl_fabrics_object_set_state (self->obj,
        GST_MXL_FABRICS_CONNECTION_CONNECTED, NULL, "data received");
}

/* Whether the target took up another connection (or claim) since the
 * last call: its connectionsAccepted moved. */
static gboolean
sender_changed (GstMxlFabricsSrc * self)
{
  mxlFabricsExtTargetStats ts = {.version = MXL_FABRICS_API_VERSION };

  if (mxlFabricsExtTargetGetStats (self->target, &ts) != MXL_STATUS_OK)
    return FALSE;
  if (ts.connectionsAccepted == self->accepted_seen)
    return FALSE;
  self->accepted_seen = ts.connectionsAccepted;
  return TRUE;
}

/* Of the @n indices from @index on, how many the src counts as its own
 * loss: none below self->uncounted_below (see mxlfabricssrc.h). */
static guint64
own_loss (GstMxlFabricsSrc * self, guint64 index, guint64 n)
{
  guint64 from = MAX (index, MIN (self->uncounted_below, index + n));

  return index + n - from;
}

/* @lapped grains completed before grain @index but were lapped before the
 * library could commit them (mxlFabricsExtTargetReadGrainLapped()): they
 * arrived, and the sender sent them before @index. Before the first
 * completion they lie below the head the src starts at, so no hole tells
 * them: skipped-at-start at once (a ring behind the newest, arrived before
 * the first pushed grain). Later, before the first pushed grain, they are
 * in the hole this completion leaves: kept, and skipped-at-start when a
 * re-alignment passes that hole (take_grain()); after the first pushed
 * grain the hole counts them dropped-missing, as every index the head
 * jumped over (the library counts them completions-superseded). */
static void
count_lapped_before (GstMxlFabricsSrc * self, guint64 lapped)
{
  if (lapped == 0 || self->last_index != G_MAXUINT64)
    return;
  if (self->have_head) {
    self->lapped_in_holes += lapped;
    return;
  }
  GST_DEBUG_OBJECT (self, "%" G_GUINT64_FORMAT " grains lapped before the "
      "first completion: skipped-at-start", lapped);
  GST_OBJECT_LOCK (self);
  self->obj->counters.skipped_at_start += lapped;
  self->obj->counters.lapped_at_start += lapped;
  GST_OBJECT_UNLOCK (self);
}

/* A completion for grain @index was read (and committed by the target),
 * after @lapped lapped ones (count_lapped_before()); @waited: it arrived
 * while the src waited in a read (the queue was empty before), so now is
 * its arrival time. */
static void
on_grain_completed (GstMxlFabricsSrc * self, guint64 index, guint64 lapped,
    gboolean waited)
{
  guint64 window = 2 * (guint64) self->flow.config.discrete.grainCount;
  /* the src had pushed everything before: it was waiting for this one */
  gboolean waiting = waited && (!self->have_head || self->next > self->head);

  /* the first completions after a change of sender: what lies below them
   * was the earlier sender's to send */
  if (sender_changed (self) && self->have_head && !self->sender_changed) {
    self->sender_changed = TRUE;
    self->oldest_since_change = index;
  }
  if (self->sender_changed) {
    self->uncounted_below = MAX (self->uncounted_below, index);
    self->oldest_since_change = MIN (self->oldest_since_change, index);
  }
  count_lapped_before (self, lapped);
  if (!self->have_head) {
    self->have_head = TRUE;
    self->head = self->next = index;
    self->n_holes = 0;
  } else if (index > self->head) {
    self->back_run = 0;
    gst_mxl_fabrics_src_hole_add (self, index);
    self->head = index;
  } else if (index + window < self->next
      && ++self->back_run > self->flow.config.discrete.grainCount) {
    /* Far behind what we pushed, for more than a ring of completions in a
     * row: the initiator restarted with another time base (e.g.
     * untimestamped input). Follow it. Fewer are grains that waited in
     * the sender and arrive after newer ones (a receiver that joins
     * mid-stream): late, counted below; following them would push the
     * newer ones again when they come round. */
    GST_INFO_OBJECT (self, "index went back from %" G_GUINT64_FORMAT " to %"
        G_GUINT64_FORMAT ": following the new sequence", self->next, index);
    self->back_run = 0;
    gst_mxl_fabrics_src_credits_forget (self);
    self->head = self->next = index;
    self->discont = TRUE;
    self->origin0 = GST_CLOCK_TIME_NONE;        /* not live: goes on */
    self->n_missed = 0;
    self->n_holes = 0;
    self->lapped_in_holes = 0;
    self->absent_since_us = 0;
  } else if (index < self->next) {
    if (index + window >= self->next)
      self->back_run = 0;
    gst_mxl_fabrics_src_missed_arrived (self, index);
  } else if (!gst_mxl_fabrics_src_hole_fill (self, index)) {
    /* completed twice: pushed once, the other is a rejected completion */
    count (self, &self->obj->counters.invalid, 1, FALSE);
  }
  if (self->absent_since_us != 0 && index == self->absent_index)
    self->absent_since_us = 0;  /* it came: read it now */
  /* the target holds it until released (credits) */
  gst_mxl_fabrics_src_credits_completed (self, index);
  if (waiting && index == self->head
      && gst_base_src_is_live (GST_BASE_SRC (self))) {
    guint64 origin = gst_mxl_fabrics_index_to_tai (index,
        self->format.rate_n, self->format.rate_d);
    guint64 now = gst_mxl_fabrics_tai_now ();

    /* raised before the grain is pushed: the first buffer's preroll
     * computes the pipeline latency with it */
    if (origin != GST_CLOCK_TIME_NONE && now != 0)
      gst_mxl_fabrics_src_update_latency (self,
          now > origin ? now - origin : 0);
  }
  on_data (self);
}

/* Live (is-live=true): the unit's origin time on the pipeline clock
 * (gst/timing.h), the same running time on every receiver of the flow. */
static gboolean
pts_of_origin (GstMxlFabricsSrc * self, guint64 index, gint64 offset,
    GstClockTime * pts)
{
  return gst_mxl_fabrics_timing_index_to_pts (index, self->format.rate_n,
      self->format.rate_d, offset,
      gst_element_get_base_time (GST_ELEMENT (self)), pts);
}

/* Not live (is-live=false): the unit's origin time since the origin of
 * the first pushed unit (self->origin0), so that what a sender held for
 * this receiver before it started (or sent faster than real time) is
 * pushed rather than found older than the src's start; after the sender
 * went back to an earlier time base (on_grain_completed()) the PTS goes on
 * from the end of the last pushed buffer. The pipeline clock plays no
 * part: a unit older than origin0 has none. */
static gboolean
pts_since_first (GstMxlFabricsSrc * self, guint64 index, gint64 offset,
    GstClockTime * pts)
{
  guint64 tai = gst_mxl_fabrics_index_to_tai (index, self->format.rate_n,
      self->format.rate_d);

  (void) offset;
  if (tai == GST_CLOCK_TIME_NONE)
    return FALSE;
  if (self->origin0 == GST_CLOCK_TIME_NONE) {
    if (tai < self->pts_end)
      return FALSE;
    self->origin0 = tai - self->pts_end;
  }
  if (tai < self->origin0)
    return FALSE;
  *pts = tai - self->origin0;
  return TRUE;
}

void
gst_mxl_fabrics_src_timing_reset (GstMxlFabricsSrc * self)
{
  self->to_pts = gst_base_src_is_live (GST_BASE_SRC (self)) ?
      pts_of_origin : pts_since_first;
  self->origin0 = GST_CLOCK_TIME_NONE;
  self->pts_end = 0;
}

/* Stamps and flags a buffer for unit index @index, @units long. */
static gboolean
stamp (GstMxlFabricsSrc * self, GstBuffer * buf, guint64 index, guint64 units,
    gint64 offset)
{
  GstClockTime pts, end;
  gint n = self->format.rate_n, d = self->format.rate_d;

  if (!self->to_pts (self, index, offset, &pts))
    return FALSE;
  GST_BUFFER_PTS (buf) = pts;
  self->pts_end = pts;
  if (self->to_pts (self, index + units, offset, &end)) {
    GST_BUFFER_DURATION (buf) = end - pts;
    self->pts_end = end;
  }
  GST_BUFFER_OFFSET (buf) = index;
  GST_BUFFER_OFFSET_END (buf) = index + units;
  gst_mxl_fabrics_timing_add_reference_meta (buf,
      gst_mxl_fabrics_index_to_tai (index, n, d), GST_BUFFER_DURATION (buf));
  if (self->discont) {
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
    self->discont = FALSE;
    count (self, &self->obj->counters.discont, 1, FALSE);
  }
  return TRUE;
}

/* The first grain pushed is @index: a run of dropped-early grains that
 * leads up to it (count_early()) was the start of this very stream, made
 * before the src started (grains a sender that is not live held for this
 * receiver while it had none, and the burst it then made to catch up with
 * its clock), and is skipped-at-start instead. The run goes on across
 * indices that never arrived when fewer than a ring (a grain the sender
 * dropped as its target was lost: dropped-missing); a run that ended in a
 * jump of a ring or more stays dropped-early: those grains were stamped
 * on another time base (early_run_continues()). */
static gboolean
early_run_continues (GstMxlFabricsSrc * self, guint64 index)
{
  return self->early_run_next != G_MAXUINT64 && index >= self->early_run_next
      && index - self->early_run_next < self->flow.config.discrete.grainCount;
}

static void
move_early_run (GstMxlFabricsSrc * self)
{
  GST_OBJECT_LOCK (self);
  self->obj->counters.dropped_early -= self->early_run;
  self->obj->counters.dropped -= self->early_run;
  self->obj->counters.skipped_at_start += self->early_run;
  GST_OBJECT_UNLOCK (self);
  self->early_run = 0;
}

static void
settle_early_run (GstMxlFabricsSrc * self, guint64 index)
{
  if (self->early_run == 0 || !early_run_continues (self, index))
    return;
  GST_INFO_OBJECT (self, "the %" G_GUINT64_FORMAT " grains before the first "
      "pushed one (%" G_GUINT64_FORMAT ") that were made more than the "
      "latency cap before the src started lead up to it: skipped-at-start",
      self->early_run, index);
  move_early_run (self);
}

/* The sender ended its stream before the src pushed a grain: the run of
 * dropped-early grains that leads up to its end (a sender that is not
 * live sent what it held for this receiver, then ended) was the end of
 * this very stream, skipped-at-start like a run that leads up to a first
 * pushed grain (settle_early_run()). */
static void
settle_early_run_at_end (GstMxlFabricsSrc * self)
{
  if (self->early_run == 0 || self->last_index != G_MAXUINT64)
    return;
  GST_INFO_OBJECT (self, "the sender ended its stream after %"
      G_GUINT64_FORMAT " grains made more than the latency cap before the "
      "src started, none pushed: skipped-at-start", self->early_run);
  move_early_run (self);
}

/* A grain (or audio batch) read for a buffer: counted in `grains` and
 * `bytes`; `buffers` counts what create() returns (woven video makes one
 * buffer of two grains, media-video.c). */
static void
pushed (GstMxlFabricsSrc * self, guint64 index, gsize bytes)
{
  self->sender_changed = FALSE;
  GST_OBJECT_LOCK (self);
  self->obj->counters.grains++;
  self->obj->counters.bytes += bytes;
  GST_OBJECT_UNLOCK (self);
  if (self->last_index == G_MAXUINT64) {
    self->first_index = index;
    settle_early_run (self, index);
    /* lapped grains still in holes ahead: dropped-missing from now on,
     * as after the first pushed grain (count_lapped_before()) */
    self->lapped_in_holes = 0;
  }
  self->last_index = index;
}

/* How long a grain absent from its slot is waited for once a newer one has
 * completed: one grain period, at most ABSENT_WAIT_MAX_US. */
static gint64
absent_wait_us (GstMxlFabricsSrc * self)
{
  return CLAMP ((gint64) (gst_mxl_fabrics_src_unit_duration (self) /
          GST_USECOND), 1000,
      ABSENT_WAIT_MAX_US);
}

/* Whether self->next is an absent grain still waited for. */
static gboolean
awaiting_absent (GstMxlFabricsSrc * self)
{
  return self->absent_since_us != 0 && self->absent_index == self->next
      && g_get_monotonic_time () - self->absent_since_us <
      absent_wait_us (self);
}

/* Grain @index (= self->next) is not in its slot (the slot holds an older
 * grain, or none) although a newer one completed: wait for it, then count
 * it missing (remembered, in case it still completes). The wait covers the
 * whole gap: an index after it that is absent too has been waited for as
 * long (the newer grain had completed when the wait began), so it is
 * counted at once, and a gap of k indices (a sender that left them out)
 * costs one wait, not k. */
static void
grain_absent (GstMxlFabricsSrc * self, guint64 index)
{
  if (self->absent_since_us == 0 || self->absent_index != index) {
    self->absent_index = index;
    self->absent_since_us = g_get_monotonic_time ();
    return;
  }
  if (awaiting_absent (self))
    return;
  if (index < self->head)
    self->absent_index = index + 1;     /* the wait goes on for the gap */
  else
    self->absent_since_us = 0;
  if (own_loss (self, index, 1) == 0) {
    GST_DEBUG_OBJECT (self, "grain %" G_GUINT64_FORMAT " was not sent to us "
        "(the sender changed)", index);
    self->next++;
    self->discont = TRUE;
    return;
  }
  GST_DEBUG_OBJECT (self, "grain %" G_GUINT64_FORMAT " never arrived", index);
  count (self, &self->obj->counters.dropped_missing, 1, TRUE);
  gst_mxl_fabrics_src_missed_add (self, index);
  self->next++;
  self->discont = TRUE;
}

/* Grain @index could not be stamped (stamp()): its origin time lies before
 * running time 0, or it has no usable PTS. Before the src's first pushed
 * buffer, a grain whose origin lies before running time 0 by no more than
 * the latency cap (the ring or 1 s, whichever is more: srclatency.h) was
 * made before the src started, or by a sender whose input is late: it
 * waited in the sender for this receiver (a receiver that joins, or is
 * restarted under, a live sender), arrived while the src was PAUSED, or
 * was written that late after its origin time (the sender re-aligns past
 * that, gst/sinkindex.c). It is skipped-at-start, not the src's loss (like
 * the grains a ring behind at start, take_grain()). Any other is
 * dropped-early: one further back is stamped on a time base other than
 * the receiver's, and after the first pushed buffer one before running
 * time 0 comes from a sender that went back to an earlier time base
 * (on_grain_completed()). Dropped-early grains before the first pushed
 * one are provisional: a run of them that leads up to the first pushed
 * grain (consecutive indices, or gaps of fewer than a ring) is the
 * start of the same stream, held in or delayed by a sender that is not
 * live, and becomes skipped-at-start (settle_early_run(); fewer than a
 * ring of indices that never arrived do not break it). */
static void
count_early (GstMxlFabricsSrc * self, guint64 index, gint64 offset)
{
  guint64 origin = gst_mxl_fabrics_index_to_tai (index, self->format.rate_n,
      self->format.rate_d), start;

  if (self->last_index == G_MAXUINT64 && origin != GST_CLOCK_TIME_NONE
      && gst_mxl_fabrics_timing_running_time_to_tai (0, offset,
          gst_element_get_base_time (GST_ELEMENT (self)), &start)
      && origin < start
      && start - origin <= gst_mxl_fabrics_src_latency_cap (self)) {
    GST_DEBUG_OBJECT (self, "grain %" G_GUINT64_FORMAT " is %" GST_TIME_FORMAT
        " older than the src's start", index, GST_TIME_ARGS (start - origin));
    count (self, &self->obj->counters.skipped_at_start, 1, FALSE);
    if (early_run_continues (self, index))
      self->early_run_next = index + 1;
  } else {
    GST_DEBUG_OBJECT (self, "grain %" G_GUINT64_FORMAT " lies before "
        "running time 0", index);
    count (self, &self->obj->counters.dropped_early, 1, TRUE);
    if (self->last_index != G_MAXUINT64)
      return;
    /* before the first pushed grain: provisional (settle_early_run()) */
    if (!early_run_continues (self, index))
      self->early_run = 0;      /* a jump: the run before it stays early */
    self->early_run++;
    self->early_run_next = index + 1;
  }
}

/* Tries to turn grain self->next into a buffer. Returns the buffer, or NULL
 * when the grain was skipped (self->next moved on) or must be waited for.
 * With credits (srccredit.h) the buffer may wrap the ring slot itself
 * (zero-copy); every index it passes is released by take_grain(). */
static GstBuffer *
take_grain_at (GstMxlFabricsSrc * self, gint64 offset, GstFlowReturn * ret)
{
  mxlGrainInfo info, again;
  uint8_t *payload = NULL, *payload2 = NULL;
  guint64 ring = self->flow.config.discrete.grainCount;
  guint64 index = self->next;
  GstBuffer *buf;
  mxlStatus st;

  if (ring > 0 && self->head - index >= ring) {
    /* A ring behind the newest grain: the sender has overwritten what we
     * would read next (grain index + ring <= head) and is going on. Re-align
     * to the newest and count what is skipped, from the first grain pushed
     * on: before it (a sender that connected with grains that waited for
     * it, then the ones it dropped without a target, which it counts
     * itself) nothing is the src's loss, its first grain is where its
     * counting starts (the grains before it that did arrive are
     * skipped-at-start, so every grain that arrives is pushed or counted).
     * Indices the head jumped over that never completed (a sender that left
     * them out, e.g. re-aligning a late input) are dropped-missing: only
     * grains that did arrive are the src's skip. After a change of sender
     * it goes back to the new sender's first grains, if still held, and
     * the indices below them are not its loss ("Which side counts a
     * loss"). */
    guint64 to = self->head, holes;

    if (self->sender_changed)
      to = CLAMP (self->oldest_since_change, self->head - ring + 1,
          self->head);
    if (self->last_index != G_MAXUINT64) {
      guint64 own = own_loss (self, index, to - index);

      gst_mxl_fabrics_src_holes_take (self, index, to - own, FALSE);
      holes = gst_mxl_fabrics_src_holes_take (self, to - own, to, TRUE);
      count (self, &self->obj->counters.dropped_skipped, own - holes, TRUE);
      count (self, &self->obj->counters.dropped_missing, holes, TRUE);
    } else {
      /* of the holes, the grains the library reported lapped arrived:
       * skipped-at-start too (count_lapped_before()) */
      guint64 lapped;

      holes = gst_mxl_fabrics_src_holes_take (self, index, to, FALSE);
      lapped = MIN (self->lapped_in_holes, holes);
      self->lapped_in_holes -= lapped;
      holes -= lapped;
      GST_OBJECT_LOCK (self);
      self->obj->counters.skipped_at_start += to - index - holes;
      self->obj->counters.lapped_at_start += lapped;
      GST_OBJECT_UNLOCK (self);
      if (early_run_continues (self, index)
          && holes < self->flow.config.discrete.grainCount)
        self->early_run_next = to;      /* a run of dropped-early goes on */
    }
    GST_WARNING_OBJECT (self, "%" G_GUINT64_FORMAT " grains behind the "
        "newest (%" G_GUINT64_FORMAT "): skipping to %" G_GUINT64_FORMAT
        " (%" G_GUINT64_FORMAT " of them never arrived)", self->head - index,
        self->head, to, holes);
    self->next = index = to;
    self->discont = TRUE;
    self->absent_since_us = 0;
  }
  st = mxlFlowReaderGetGrainNonBlocking (self->flow.reader, index, &info,
      &payload);
  switch (st) {
    case MXL_STATUS_OK:
      break;
    case MXL_ERR_OUT_OF_RANGE_TOO_LATE:
      /* Lapped since the check above. */
      gst_mxl_fabrics_src_count_lapped (self, index);
      self->next++;
      self->discont = TRUE;
      return NULL;
    case MXL_ERR_OUT_OF_RANGE_TOO_EARLY:
      /* A newer grain completed but this one is not (complete) in its
       * slot: not arrived yet, or never. */
      grain_absent (self, index);
      return NULL;
    default:
      GST_ELEMENT_ERROR (self, RESOURCE, READ, ("cannot read the local flow"),
          ("mxlFlowReaderGetGrainNonBlocking(%" G_GUINT64_FORMAT "): %s",
              index, gst_mxl_fabrics_status_name (st)));
      *ret = GST_FLOW_ERROR;
      return NULL;
  }
  if (info.index < index) {
    /* The slot still holds a grain of an earlier lap: this one has not
     * arrived. */
    grain_absent (self, index);
    return NULL;
  }
  self->absent_since_us = 0;
  self->next++;
  if (info.index != index) {
    /* The slot already holds a newer grain: lapped before we read it. */
    GST_DEBUG_OBJECT (self, "grain %" G_GUINT64_FORMAT " overwritten by %"
        G_GUINT64_FORMAT " before it was read", index, info.index);
    gst_mxl_fabrics_src_count_lapped (self, index);
    self->discont = TRUE;
    return NULL;
  }
  if (info.flags & MXL_GRAIN_FLAG_INVALID) {
    count (self, &self->obj->counters.invalid, 1, FALSE);
    self->discont = TRUE;
    return NULL;
  }
  if (info.grainSize != self->grain_size) {
    count (self, &self->obj->counters.invalid, 1, FALSE);
    return NULL;
  }
  /* Zero-copy with credits: the sender announced itself, so it does not
   * write the slot until the buffer's release; no seqlock check needed. */
  buf = gst_mxl_fabrics_src_credits_wrap (self, index, payload,
      self->grain_size);
  if (buf != NULL)
    goto finish;
  buf = gst_mxl_fabrics_grain_pool_acquire (self->grain_pool,
      self->grain_size);
  gst_buffer_fill (buf, 0, payload, self->grain_size);
  /* The remote writer may have reused the slot while we copied: read the
   * header again, after the copy (a seqlock read; writes land header
   * first on the ordered providers, so any payload byte we copied from a
   * newer write shows as a newer header index here). */
  __atomic_thread_fence (__ATOMIC_ACQUIRE);
  st = mxlFlowReaderGetGrainNonBlocking (self->flow.reader, index, &again,
      &payload2);
  if (st != MXL_STATUS_OK || again.index != index) {
    GST_DEBUG_OBJECT (self, "grain %" G_GUINT64_FORMAT " torn", index);
    if (gst_mxl_fabrics_src_before_first (self))
      count (self, &self->obj->counters.skipped_at_start, 1, FALSE);
    else
      count (self, &self->obj->counters.dropped_torn, 1, TRUE);
    self->discont = TRUE;
    gst_buffer_unref (buf);
    return NULL;
  }
finish:
  buf = self->media->finish_grain (self, buf, index);
  if (!stamp (self, buf, index, 1, offset)) {
    count_early (self, index, offset);
    gst_buffer_unref (buf);
    return NULL;
  }
  pushed (self, index, self->grain_size);
  return buf;
}

/* take_grain_at(), then the release of every index it passed (credits:
 * copied, skipped or counted, the src is done with them). */
static GstBuffer *
take_grain (GstMxlFabricsSrc * self, gint64 offset, GstFlowReturn * ret)
{
  GstBuffer *buf = take_grain_at (self, offset, ret);

  gst_mxl_fabrics_src_credits_sweep (self);
  return buf;
}

void
gst_mxl_fabrics_src_refresh_stats (GstMxlFabricsSrc * self)
{
  if (self->target)
    refresh_engine_stats (self, TRUE);
}

/* ---- for the media operations (media.h) ---- */

void
gst_mxl_fabrics_src_count (GstMxlFabricsSrc * self, guint64 * counter,
    guint64 n, gboolean drop)
{
  count (self, counter, n, drop);
}

void
gst_mxl_fabrics_src_on_data (GstMxlFabricsSrc * self)
{
  on_data (self);
}

gboolean
gst_mxl_fabrics_src_stamp (GstMxlFabricsSrc * self, GstBuffer * buf,
    guint64 index, guint64 units, gint64 offset)
{
  return stamp (self, buf, index, units, offset);
}

void
gst_mxl_fabrics_src_pushed (GstMxlFabricsSrc * self, guint64 index,
    gsize bytes)
{
  pushed (self, index, bytes);
}

GstFlowReturn
gst_mxl_fabrics_src_read_status (GstMxlFabricsSrc * self, mxlStatus st)
{
  poll_target_events (self);
  refresh_engine_stats (self, FALSE);
  /* The sender ended its stream (its notice, docs/wire-format.md §11.8):
   * EOS after what it sent before. A status of the extension, outside
   * the enumeration. */
  if (st == MXL_FABRICS_EXT_STATUS_END_OF_STREAM) {
    GST_INFO_OBJECT (self, "the sender's end of stream");
    self->remote_eos = TRUE;
    /* nothing more comes: the stats as they end */
    refresh_engine_stats (self, TRUE);
    return GST_FLOW_EOS;
  }
  /* An audio batch overwritten in the bounce ring before the target could
   * unpack it (counted by the library, batches-lost): the next buffer
   * follows a gap. A status of the extension too. */
  if (st == MXL_FABRICS_EXT_STATUS_SAMPLES_LOST) {
    GST_DEBUG_OBJECT (self, "a batch of samples was lost");
    self->discont = TRUE;
    return GST_FLOW_OK;
  }
  switch (st) {
    case MXL_STATUS_OK:
      break;
    case MXL_ERR_NOT_READY:
      check_timeout (self);
      break;
    case MXL_ERR_INVALID_ARG:
      /* Bad immediate data or header from the network: counted, skipped. */
      count (self, &self->obj->counters.invalid, 1, FALSE);
      break;
    case MXL_FABRICS_EXT_STATUS_CQ_OVERRUN:
      GST_DEBUG_OBJECT (self, "completion queue overrun: draining");
      break;
    case MXL_ERR_INTERRUPTED:
      break;
    default:{
      GError *error = g_error_new (GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_READ, "MXL Fabrics target read failed: %s%s",
          gst_mxl_fabrics_status_name (st),
          st == MXL_ERR_UNSUPPORTED_OPERATION ? " (this library cannot "
          "receive this media type yet)" : "");
      gst_mxl_fabrics_object_post_error (self->obj, error, NULL);
      g_error_free (error);
      return GST_FLOW_ERROR;
    }
  }
  return GST_FLOW_OK;
}

GstFlowReturn
gst_mxl_fabrics_src_read_grains (GstMxlFabricsSrc * self, gint64 offset,
    GstBuffer ** buffer)
{
  GstFlowReturn ret = GST_FLOW_OK;
  gboolean waited = FALSE;
  guint64 index = 0, lapped = 0;
  mxlStatus st;
  guint k;

  /* with the holes full, read (re-align) before another completion, even
   * while an absent grain is waited for: no hole is forgotten
   * (GST_MXL_FABRICS_SRC_HOLES_KEPT) */
  if (self->have_head && self->next <= self->head && (!awaiting_absent (self)
          || gst_mxl_fabrics_src_holes_full (self))) {
    *buffer = take_grain (self, offset, &ret);
    if (*buffer || ret != GST_FLOW_OK || !awaiting_absent (self))
      return ret;
  }
  /* the sender's end of stream, once every grain completed before it is
   * out */
  if (self->remote_eos && (!self->have_head || self->next > self->head)) {
    settle_early_run_at_end (self);
    return GST_FLOW_EOS;
  }
  /* a completion already queued arrived earlier than now: only one that
   * comes during the wait tells the arrival time */
  st = mxlFabricsExtTargetReadGrainLapped (self->target, 0, &index, &lapped);
  waited = st == MXL_ERR_NOT_READY;
  if (waited)
    st = mxlFabricsExtTargetReadGrainLapped (self->target,
        read_wait_ms (self), &index, &lapped);
  ret = gst_mxl_fabrics_src_read_status (self, st);
  if (ret == GST_FLOW_EOS)
    return GST_FLOW_OK;         /* the grains before it first (above) */
  if (st != MXL_STATUS_OK || ret != GST_FLOW_OK)
    return ret;
  on_grain_completed (self, index, lapped, waited);
  /* Take every completion that is already there before reading a grain,
   * so that the head is the newest (after a stall, a ring behind:
   * re-align instead of meeting overwritten slots one by one). Bounded:
   * what a default CQ holds, several times, and no more than the holes
   * can keep (GST_MXL_FABRICS_SRC_HOLES_KEPT: the src reads first). */
  for (k = 0; k < DRAIN_MAX && !gst_mxl_fabrics_src_holes_full (self); k++) {
    st = mxlFabricsExtTargetReadGrainLapped (self->target, 0, &index,
        &lapped);
    if (st == MXL_ERR_INVALID_ARG)
      count (self, &self->obj->counters.invalid, 1, FALSE);
    else if (st == MXL_FABRICS_EXT_STATUS_END_OF_STREAM) {
      gst_mxl_fabrics_src_read_status (self, st);
      break;
    } else if (st != MXL_STATUS_OK)
      break;
    else
      on_grain_completed (self, index, lapped, FALSE);
  }
  return GST_FLOW_OK;
}
