/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How long a reading thread naps between polls of a completion queue that
 * has no wait object (shm and efa in libfabric 1.17: fi_cq_sread is not
 * available, docs/libfabric-notes.md P9), for grain flows paced at a known rate.
 *
 * Away from the expected arrival of the next grain the nap grows 50 us ..
 * 1 ms (few wake-ups while nothing is due); inside a window around it,
 * (last arrival + one grain period) +- MAX (period / 8, 1 ms), the nap is
 * at most MXL_POLL_NAP_WINDOW_US, so a grain that lands there waits about
 * half of that for its completion to be read instead of about half of the
 * back-off (up to 1 ms). A nap that would cross into the window stops at
 * its start. Grains that do not come move the window on by whole periods,
 * for MXL_POLL_NAP_WINDOWS periods after the last grain; then, and without
 * a period (continuous flows, unknown rate), it is the plain back-off.
 */
#ifndef MXL_FABRICS_POLLNAP_H
#define MXL_FABRICS_POLLNAP_H

#include <glib.h>

G_BEGIN_DECLS

#define MXL_POLL_NAP_FIRST_US 50
#define MXL_POLL_NAP_MAX_US 1000
/* Longest nap inside the window around an expected grain (us). */
#define MXL_POLL_NAP_WINDOW_US 100
/* Smallest half-width of that window (us). */
#define MXL_POLL_NAP_MIN_HALF_WINDOW_US 1000
/* Windows kept on the grid after the last grain: a stream that stopped
 * goes back to the plain back-off after this many periods. */
#define MXL_POLL_NAP_WINDOWS 4

typedef struct {
  gint64 period_us;     /* one grain period; 0: no window */
  gint64 half_window_us;
  gint64 last_arrival_us; /* monotonic time of the last grain read; 0: none yet */
  guint backoff_us;     /* the next nap away from the window */
} MxlPollNap;

/* Sets up @nap for grains every @period_us microseconds (0 or less: no
 * window, plain back-off). */
void mxl_poll_nap_init (MxlPollNap *nap, gint64 period_us);

/* A grain was read at @now_us (g_get_monotonic_time): re-anchors the window
 * on it and restarts the back-off. */
void mxl_poll_nap_arrived (MxlPollNap *nap, gint64 now_us);

/* Microseconds to nap at @now_us before the next poll (1 .. MXL_POLL_NAP_MAX_US);
 * advances the back-off. */
guint mxl_poll_nap_next (MxlPollNap *nap, gint64 now_us);

G_END_DECLS

#endif
