/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Poll naps for completion queues without a wait object (see pollnap.h). */
#include "fabrics/ofi/pollnap.h"

void
mxl_poll_nap_init (MxlPollNap *nap, gint64 period_us)
{
  nap->period_us = MAX (period_us, 0);
  nap->half_window_us = MAX (nap->period_us / 8, MXL_POLL_NAP_MIN_HALF_WINDOW_US);
  nap->last_arrival_us = 0;
  nap->backoff_us = MXL_POLL_NAP_FIRST_US;
}

void
mxl_poll_nap_arrived (MxlPollNap *nap, gint64 now_us)
{
  nap->last_arrival_us = now_us;
  nap->backoff_us = MXL_POLL_NAP_FIRST_US;
}

guint
mxl_poll_nap_next (MxlPollNap *nap, gint64 now_us)
{
  guint nap_us = nap->backoff_us;
  gint64 expected, since;

  nap->backoff_us = MIN (MAX (nap->backoff_us * 2, MXL_POLL_NAP_FIRST_US),
      MXL_POLL_NAP_MAX_US);
  if (nap->period_us == 0 || nap->last_arrival_us == 0)
    return nap_us;
  /* The next grain on the period grid from the last arrival (grains that
   * did not come move the grid on by whole periods), for a few periods. */
  since = now_us - nap->last_arrival_us;
  if (since >= MXL_POLL_NAP_WINDOWS * nap->period_us + nap->half_window_us)
    return nap_us;
  expected = nap->last_arrival_us + nap->period_us;
  if (since >= nap->period_us + nap->half_window_us)
    expected = nap->last_arrival_us
        + ((since - nap->half_window_us) / nap->period_us + 1) * nap->period_us;
  if (now_us >= expected - nap->half_window_us && now_us < expected + nap->half_window_us)
    return MIN (nap_us, MXL_POLL_NAP_WINDOW_US);
  if (now_us < expected - nap->half_window_us)
    return (guint) MAX (MIN ((gint64) nap_us, expected - nap->half_window_us - now_us), 1);
  return nap_us;
}
