/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Index and TAI time conversions (docs/flow-format.md §5.1, §5.2). */
#include <errno.h>
#include <time.h>

#include <mxl/time.h>

#define NS_PER_S 1000000000LL

/* The one rule set for every caller (the elements' gst/timing.c forwards
 * here): a rate is valid when both terms are positive, and a timestamp is
 * an int64 of TAI ns, so one beyond INT64_MAX, or an index whose timestamp
 * would be, is undefined. */
static int
rate_valid (mxlRational const *rate)
{
  return rate != NULL && rate->numerator > 0 && rate->denominator > 0;
}

uint64_t
mxlGetTime (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_TAI, &ts) != 0)
    return 0;
  return (uint64_t) ts.tv_sec * NS_PER_S + (uint64_t) ts.tv_nsec;
}

uint64_t
mxlTimestampToIndex (mxlRational const *editRate, uint64_t timestamp)
{
  unsigned __int128 num, den, i;

  if (!rate_valid (editRate) || timestamp > (uint64_t) INT64_MAX)
    return MXL_UNDEFINED_INDEX;
  num = (uint64_t) editRate->numerator;
  den = (uint64_t) editRate->denominator;
  /* §5.2: nearest index, ties up; < 2^126 + 2^92, no overflow */
  i = ((unsigned __int128) timestamp * num + 500000000 * den)
      / (NS_PER_S * den);
  /* an index past the last one is undefined, not wrapped */
  return i >= MXL_UNDEFINED_INDEX ? MXL_UNDEFINED_INDEX : (uint64_t) i;
}

uint64_t
mxlIndexToTimestamp (mxlRational const *editRate, uint64_t index)
{
  unsigned __int128 num, den, q, ts;

  if (!rate_valid (editRate))
    return MXL_UNDEFINED_INDEX;
  num = (uint64_t) editRate->numerator;
  den = (uint64_t) editRate->denominator;
  q = (unsigned __int128) index * den;  /* < 2^127 */
  /* past 2^97, ts >= q * 1e9 / 2^63 > INT64_MAX; below, q * 1e9 fits */
  if (q >> 97)
    return MXL_UNDEFINED_INDEX;
  ts = (q * NS_PER_S + num / 2) / num;
  /* §5.2 [Q], kept: a zero timestamp for a nonzero index is undefined */
  if ((ts == 0 && index != 0) || ts > (unsigned __int128) INT64_MAX)
    return MXL_UNDEFINED_INDEX;
  return (uint64_t) ts;
}

uint64_t
mxlGetCurrentIndex (mxlRational const *editRate)
{
  uint64_t now;

  if (!rate_valid (editRate))
    return MXL_UNDEFINED_INDEX;
  now = mxlGetTime ();
  if (now == 0)
    return MXL_UNDEFINED_INDEX;
  return mxlTimestampToIndex (editRate, now);
}

uint64_t
mxlGetNsUntilIndex (uint64_t index, mxlRational const *editRate)
{
  uint64_t ts = mxlIndexToTimestamp (editRate, index);
  uint64_t now;

  if (ts == MXL_UNDEFINED_INDEX)
    return MXL_UNDEFINED_INDEX;
  now = mxlGetTime ();
  return ts > now ? ts - now : 0;
}

static void
sleep_tai (int flags, uint64_t ns)
{
  struct timespec ts = {
    .tv_sec = (time_t) (ns / NS_PER_S),
    .tv_nsec = (long) (ns % NS_PER_S),
  };
  struct timespec rem;

  /* relative sleeps continue with the remainder after a signal */
  while (clock_nanosleep (CLOCK_TAI, flags, &ts, &rem) == EINTR) {
    if (!(flags & TIMER_ABSTIME))
      ts = rem;
  }
}

void
mxlSleepForNs (uint64_t ns)
{
  sleep_tai (0, ns);
}

void
mxlSleepUntil (uint64_t timestamp)
{
  sleep_tai (TIMER_ABSTIME, timestamp);
}
