/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Grain/sample index <-> buffer PTS through TAI time.
 *
 * MXL names every grain (or sample) by its index i at the flow's edit rate
 * r = num/den; its origin timestamp is ts(i) = round-half-up(i * 1e9 * den /
 * num) TAI ns (docs/flow-format.md §5.2), and indices keep their value from host to
 * host. A buffer's PTS is a running time on the pipeline clock. Both are
 * linked by one offset
 *
 *   D = TAI(now) - pipeline_clock(now)                      (ns, signed)
 *
 *   PTS(i)   = ts(i) - D - base_time                        (src)
 *   index(b) = idx(PTS(b) + base_time + D)                  (sink)
 *
 * where idx(t) = round-half-up(t * num / (1e9 * den)) (§5.2) and base_time is
 * the element's (= the pipeline's) base time.
 *
 * D is computed ONCE per pipeline and clock, and shared by every mxlfabrics
 * element of the pipeline through a GstContext of type
 * GST_MXL_FABRICS_TIMING_CONTEXT_TYPE, so that the same index gives the same
 * PTS in every element (two flows of one rate stay aligned; an audio and a
 * video src agree). Sampling D separately in each element would give each a
 * few microseconds of different error, and an ST 2038 / video pair would
 * mis-pair at grain boundaries (dmf-mxl/mxl#500).
 *
 * How D relates to the clocks (Linux):
 *  - CLOCK_TAI = CLOCK_REALTIME + the kernel TAI offset (adjtimex `tai`, set
 *    by ptp4l/phc2sys or chrony; 0 when nothing sets it) (docs/flow-format.md §5.1).
 *  - GstSystemClock clock-type=tai (GST_CLOCK_TYPE_TAI, 1.18+): its time IS
 *    CLOCK_TAI, so D = 0 exactly (applications may select this clock with
 *    gst_pipeline_use_clock(); the MXL tools do).
 *  - clock-type=realtime: D = TAI offset * 1e9 exactly, read with adjtimex().
 *  - clock-type=monotonic (GStreamer's default system clock) and any other
 *    clock (audio sink clocks, network clocks): D is sampled as TAI(now) -
 *    clock(now), bracketing the clock read between two CLOCK_TAI reads and
 *    keeping the tightest of a few tries (error below a microsecond on an idle
 *    host). The monotonic clock is slewed by NTP like CLOCK_TAI, so D stays
 *    constant except across a step of the wall clock; a step is not followed
 *    (pipelines keep a consistent running time; restart to re-align).
 *  - Clocks whose calibration is not the identity use the sampled path.
 * The elements provide no clock.
 *
 * Context protocol: gst_mxl_fabrics_timing_ensure() looks for a context
 * whose clock is the element's current clock (the pipeline clock once
 * PLAYING; before that, the system clock, which is what a pipeline of live
 * sources without a clock provider selects): first the one set on the element
 * (set_context), then a context query to peers, then a NEED_CONTEXT message
 * (GstBin answers with the context posted earlier by a sibling, applications
 * may answer too). If none fits, it samples D, stores it, and posts
 * HAVE_CONTEXT so the bin hands it to the next element asking. A process-wide
 * lock serialises the whole procedure, so two streaming threads reaching it at
 * once agree on one context.
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

/* GstContext type holding the shared offset. Structure fields:
 *  "tai-offset" (gint64): D in ns, TAI minus clock time.
 *  "clock" (GstClock): the clock D refers to. */
#define GST_MXL_FABRICS_TIMING_CONTEXT_TYPE "mxl-fabrics.timing"

/* Reference timestamp caps of the GstReferenceTimestampMeta carrying a
 * grain's origin TAI time (ns since 1970-01-01T00:00:00 TAI). */
#define GST_MXL_FABRICS_TAI_REFERENCE_CAPS "timestamp/x-tai"

/* How long after its origin time a grain may reach a receiver that has
 * just started and still be one it could have had (ns), one rule for both
 * elements: a src takes a grain whose origin lies up to its latency cap
 * (its ring or this, whichever is more: srclatency.c) before its running
 * time 0 as one that waited in a sender for it (skipped-at-start, srcread.c
 * count_early), and one further back as its loss (dropped-early); a sink
 * with a live input does not send a grain it held for a target (while none
 * was connected) once it is older than this (sinkwait.c, sinkindex.c
 * gst_mxl_fabrics_sink_held_too_long): dropped-no-target there, so that no
 * receiver counts a drop of a grain it was not there for. */
#define GST_MXL_FABRICS_HELD_HORIZON GST_SECOND

/**
 * gst_mxl_fabrics_index_to_tai:
 * @index: grain/field/sample index.
 * @num, @den: edit rate, both > 0.
 *
 * ts(i) = (i * den * 1e9 + num / 2) / num: mxlIndexToTimestamp()
 * (src/flow/time.c, docs/flow-format.md §5.2), whose MXL_UNDEFINED_INDEX is
 * GST_CLOCK_TIME_NONE.
 *
 * Returns: TAI ns, or GST_CLOCK_TIME_NONE for an invalid rate, a result
 * that does not fit 63 bits, or 0 for an index other than 0 (§5.2).
 */
guint64 gst_mxl_fabrics_index_to_tai (guint64 index, gint num, gint den);

/**
 * gst_mxl_fabrics_tai_to_index:
 * @tai: TAI ns.
 *
 * idx(t) = (t * num + 5e8 * den) / (1e9 * den): mxlTimestampToIndex()
 * (src/flow/time.c, §5.2).
 *
 * Returns: the nearest index (ties up), or G_MAXUINT64 (MXL_UNDEFINED_INDEX)
 * for an invalid rate, a @tai beyond G_MAXINT64 or an index that does not
 * fit.
 */
guint64 gst_mxl_fabrics_tai_to_index (guint64 tai, gint num, gint den);

/** Returns: mxlGetTime(): CLOCK_TAI now in ns, or 0 if the clock cannot be
 * read. */
guint64 gst_mxl_fabrics_tai_now (void);

/**
 * gst_mxl_fabrics_timing_compute_offset:
 * @clock: the pipeline clock.
 *
 * Returns: D = TAI - @clock time in ns, by the rules at the top of this file.
 */
gint64 gst_mxl_fabrics_timing_compute_offset (GstClock * clock);

/**
 * gst_mxl_fabrics_timing_context_new:
 * Returns: (transfer full): a non-persistent context of type
 * GST_MXL_FABRICS_TIMING_CONTEXT_TYPE holding @offset for @clock.
 */
GstContext *gst_mxl_fabrics_timing_context_new (GstClock * clock,
    gint64 offset);

/**
 * gst_mxl_fabrics_timing_context_parse:
 * @clock: (out) (optional) (transfer full): the clock stored, may be NULL.
 * @offset: (out): D in ns.
 *
 * Returns: FALSE if @context is not a timing context or lacks the offset.
 */
gboolean gst_mxl_fabrics_timing_context_parse (GstContext * context,
    GstClock ** clock, gint64 * offset);

/**
 * GstMxlFabricsTiming:
 *
 * Per-element timing state. Embed it in the element, call _init in
 * instance_init, _clear in finalize, _set_context from the element's
 * set_context vfunc (before chaining up), and answer context queries with
 * _handle_query. Fields are protected by an internal lock.
 */
typedef struct {
  GMutex lock;
  GstContext *context;          /* the timing context adopted, or NULL */
  GstClock *clock;              /* the clock of @offset */
  gint64 offset;                /* D, ns */
  gboolean valid;
} GstMxlFabricsTiming;

void gst_mxl_fabrics_timing_init (GstMxlFabricsTiming * timing);
void gst_mxl_fabrics_timing_clear (GstMxlFabricsTiming * timing);

/** Adopts @context if it is a timing context; other contexts are ignored. */
void gst_mxl_fabrics_timing_set_context (GstMxlFabricsTiming * timing,
    GstContext * context);

/** Answers a GST_QUERY_CONTEXT for our type. Returns: TRUE if answered. */
gboolean gst_mxl_fabrics_timing_handle_query (GstMxlFabricsTiming * timing,
    GstQuery * query);

/**
 * gst_mxl_fabrics_timing_ensure:
 * @element: the element owning @timing (any GstElement).
 * @timing: its timing state.
 * @offset: (out) (optional): D in ns.
 *
 * Makes @timing hold the pipeline-wide offset for the element's current
 * clock (see the protocol above); creates and posts it when nobody has one.
 * Call it from READY->PAUSED (start) and again before converting times
 * (create/render): it is cheap when the clock did not change. Must be
 * called without holding the element's object lock.
 *
 * Returns: TRUE (always succeeds; FALSE only for a non-element).
 */
gboolean gst_mxl_fabrics_timing_ensure (GstElement * element,
    GstMxlFabricsTiming * timing, gint64 * offset);

/**
 * gst_mxl_fabrics_timing_index_to_pts:
 * @offset: D (ns), from gst_mxl_fabrics_timing_ensure().
 * @base_time: the element's base time (ns of clock time).
 * @pts: (out): ts(index) - offset - base_time.
 *
 * Returns: FALSE when the rate is invalid or the grain lies before running
 * time 0 (such grains are skipped, not clamped).
 */
gboolean gst_mxl_fabrics_timing_index_to_pts (guint64 index, gint num,
    gint den, gint64 offset, GstClockTime base_time, GstClockTime * pts);

/**
 * gst_mxl_fabrics_timing_pts_to_index:
 * @running_time: buffer running time (ns).
 *
 * Returns: idx(running_time + base_time + offset), G_MAXUINT64 for an invalid
 * rate or a time before the TAI epoch.
 */
guint64 gst_mxl_fabrics_timing_pts_to_index (GstClockTime running_time,
    gint num, gint den, gint64 offset, GstClockTime base_time);

/**
 * gst_mxl_fabrics_timing_running_time_to_tai:
 * @tai: (out): @running_time + @base_time + @offset, TAI ns.
 *
 * Returns: FALSE for an invalid time or one before the TAI epoch.
 */
gboolean gst_mxl_fabrics_timing_running_time_to_tai (GstClockTime running_time,
    gint64 offset, GstClockTime base_time, guint64 * tai);

/**
 * GstMxlFabricsIndexPhase:
 * @lo, @hi: the window, ns, of the recent deviations of a stream's buffer
 *   times from the origin times ts(i) of the indices they got; its middle
 *   is the stream's phase.
 * @top: the recent latest deviation, in [lo, hi]: falls faster than hi.
 * @late: buffers in a row taken as late (gst_mxl_fabrics_follow_grain_index()).
 *
 * State of gst_mxl_fabrics_follow_grain_index(), kept with the last index.
 */
typedef struct
{
  gint64 lo, hi, top;
  guint late;
} GstMxlFabricsIndexPhase;

/**
 * gst_mxl_fabrics_follow_grain_index:
 * @tai: TAI ns of the buffer (gst_mxl_fabrics_timing_running_time_to_tai()).
 * @num, @den: grain (or field) rate, both > 0.
 * @have_last: whether @last holds the index given to the previous buffer.
 * @last: that index.
 * @phase: (inout): state of the rule (any value when !@have_last; keep it
 *   with @last between calls).
 *
 * The grain index rule of mxlfabricssink (docs/architecture.md "Grain
 * indices"). Timestamps from a capture or `do-timestamp=true` sit at an
 * arbitrary phase to the TAI grid of ts(i) (docs/flow-format.md §5.2) and jitter;
 * rounding each one alone makes two buffers of a phase near half a period
 * share an index and the next skip one. So a stream follows its own phase,
 * the middle of the window [lo, hi] of its recent deviations d = @tai -
 * ts(index):
 *
 *  - the first buffer takes idx(@tai); the window is its d;
 *  - a later buffer whose deviation from ts(@last + 1) lies less than a
 *    period P above lo (so both may be jitter of under P/2 around one
 *    time) takes @last + 1 (earlier ones too: indices never go back or
 *    repeat);
 *  - one k more periods above lo (k >= 1) takes @last + 1 + k when its
 *    deviation from ts(@last + 1 + k) is no more than P/16 above the
 *    recent top (the latest recent deviation, falling by P/64 per buffer):
 *    the sender left k indices out (a frame it dropped is an index the
 *    receiver never gets);
 *  - one further above that, k <= 4, is a late buffer (a sender that
 *    pushed it late; with `do-timestamp=true` it is stamped late): it takes
 *    @last + 1, its own index, and leaves the window as it is, so the
 *    buffers after it take their own indices again (a late buffer never
 *    moves the ones after it). After 4 late buffers in a row the stream's
 *    time has moved: the next takes @last + 1 + k and sets the window;
 *  - one less than a period above lo right after a late buffer (pushed
 *    right behind it by a sender making up for a stall) takes @last + 1
 *    and leaves the window as it is: its lateness is what is left of the
 *    stall, and raising the window's top with it would make the next
 *    stall look like a gap;
 *  - a buffer more than a period before hi (it follows one given an index
 *    ahead of its time) takes @last + 1 and leaves the window as it is, so
 *    at the sender's next gap the stream takes its own indices again;
 *  - each d widens the window (kept under P wide); both bounds close in by
 *    P/512 per buffer, so the window follows a sender clock that drifts by
 *    up to 0.2%. One that runs slow moves it up; when its middle reaches a
 *    whole period one index is left out and it moves back by P. A sender
 *    that runs fast gets consecutive indices ahead of its times (never
 *    backwards); after its next gap once its phase is beyond -P it takes
 *    idx(@tai) again.
 *
 * Timestamps that jitter by less than half a period around a steady time
 * thus get consecutive indices, whatever that time's phase to the grid and
 * however the jitter runs: a gap needs a deviation a period beyond one
 * really seen (the bounds only close in). Long runs on one side only move
 * the window's middle; a run of more than 2 (P/2 - J) / (P/512) buffers
 * (e.g. 9.5 ms at 50 fps: 25) can bring it to the slow-sender step when
 * the stream's phase is near P/2, and delay the sight of a real gap.
 * The index's origin time stays within a period (plus jitter) of the
 * buffer's time. A late buffer whose lateness beyond whole periods lies
 * within the jitter is taken for a gap here; a caller that knows from the
 * source's frame numbers that no frame was left out says so with
 * gst_mxl_fabrics_follow_grain_index_full().
 *
 * Returns: the index, or G_MAXUINT64 for an invalid rate.
 */
guint64 gst_mxl_fabrics_follow_grain_index (guint64 tai, gint num, gint den,
    gboolean have_last, guint64 last, GstMxlFabricsIndexPhase * phase);

/**
 * gst_mxl_fabrics_follow_grain_index_full:
 * @next_frame: the source numbers its frames (GST_BUFFER_OFFSET, as
 *   videotestsrc and v4l2src do) and this buffer is the one after the
 *   previous: it was not preceded by a frame left out.
 *
 * gst_mxl_fabrics_follow_grain_index() (which passes FALSE), with this
 * knowledge for the one case the times cannot decide: a buffer one to
 * FOLLOW_LATE_MAX (4) periods late whose lateness beyond the whole periods
 * lies within the stream's recent jitter looks like the buffer after k
 * frames left out and is taken for that; with @next_frame it is a late
 * buffer and takes @last + 1 (the buffers after it keep their own
 * indices). The limit on late buffers in a row holds as before.
 */
guint64 gst_mxl_fabrics_follow_grain_index_full (guint64 tai, gint num,
    gint den, gboolean have_last, guint64 last, gboolean next_frame,
    GstMxlFabricsIndexPhase * phase);

/**
 * gst_mxl_fabrics_follow_sample_index:
 * @first: the index of the buffer's first sample from its time (samples at
 *   the flow's rate, mxlTimestampToIndex()).
 * @n_samples: samples per channel in the buffer.
 * @have_last: a buffer was written before in this stream.
 * @last: one past the last sample index written before.
 *
 * mxlfabricssink's rule for audio (docs/architecture.md "Grain indices"):
 * a buffer whose time lies within half its own length (at least one
 * sample) of where the previous one ended continues it, so that the
 * jitter of timestamps leaves no gap or overlap; a larger difference is a
 * real gap (or a jump back) and keeps @first.
 *
 * Returns: the index of the buffer's first sample.
 */
guint64 gst_mxl_fabrics_follow_sample_index (guint64 first, gsize n_samples,
    gboolean have_last, guint64 last);

/**
 * gst_mxl_fabrics_timing_add_reference_meta:
 * Adds a GstReferenceTimestampMeta with caps
 * GST_MXL_FABRICS_TAI_REFERENCE_CAPS, timestamp @tai and @duration ns.
 */
void gst_mxl_fabrics_timing_add_reference_meta (GstBuffer * buffer,
    guint64 tai, GstClockTime duration);

G_END_DECLS
