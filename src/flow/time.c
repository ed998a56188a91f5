/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Index and TAI time conversions (docs/flow-format.md §5.1, §5.2). */
#include <errno.h>
#include <time.h>

#include <mxl/time.h>

#define NS_PER_S 1000000000LL

static int
rate_valid (mxlRational const *rate)
{
  return rate != NULL && rate->numerator != 0 && rate->denominator != 0;
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
  __int128 num, den;

  if (!rate_valid (editRate))
    return MXL_UNDEFINED_INDEX;
  num = editRate->numerator;
  den = editRate->denominator;
  /* §5.2: nearest index, ties up; the timestamp is taken as int64 */
  return (uint64_t) (((__int128) (int64_t) timestamp * num + 500000000 * den)
      / (NS_PER_S * den));
}

uint64_t
mxlIndexToTimestamp (mxlRational const *editRate, uint64_t index)
{
  __int128 num, den, ts;

  if (!rate_valid (editRate))
    return MXL_UNDEFINED_INDEX;
  num = editRate->numerator;
  den = editRate->denominator;
  ts = ((__int128) index * den * NS_PER_S + num / 2) / num;
  /* §5.2 [Q], kept: a zero timestamp for a nonzero index is undefined */
  if (ts == 0 && index != 0)
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
