/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Time and index helpers (docs/flow-format.md §5). Time is nanoseconds since
 * 1970-01-01T00:00:00 TAI read from CLOCK_TAI ("TAI ns"). An index counts
 * edit units (grains, fields or samples) at an edit rate num/den since that
 * epoch. Conversions use 128-bit intermediates, so present-day timestamps
 * (~1.8e18 ns) at 48000/1 or 60000/1001 never overflow.
 * Names and signatures follow the MXL SDK (mxl/time.h).
 */
#pragma once

#include <stdint.h>

#include <mxl/platform.h>
#include <mxl/rational.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * mxlGetCurrentIndex:
 * @editRate: (nullable): edit rate; NULL or a term <= 0 is invalid.
 *
 * Returns: the grain/sample index of now, mxlTimestampToIndex (editRate,
 * mxlGetTime ()); MXL_UNDEFINED_INDEX for an invalid rate or a clock failure.
 */
MXL_EXPORT uint64_t mxlGetCurrentIndex (mxlRational const *editRate);

/**
 * mxlGetNsUntilIndex:
 * @index: grain/sample index (note: index first, rate second, as in MXL).
 * @editRate: (nullable): edit rate.
 *
 * Returns: nanoseconds from now until the origin timestamp of @index, 0 when
 * it is in the past; MXL_UNDEFINED_INDEX for an invalid rate.
 */
MXL_EXPORT uint64_t mxlGetNsUntilIndex (uint64_t index, mxlRational const *editRate);

/**
 * mxlTimestampToIndex:
 * @editRate: (nullable): edit rate.
 * @timestamp: TAI ns, valid up to INT64_MAX.
 *
 * Returns: (ts * num + 5e8 * den) div (1e9 * den): the nearest index, ties
 * rounded up (§5.2); MXL_UNDEFINED_INDEX for an invalid rate, a timestamp
 * beyond INT64_MAX, or an index that does not fit below MXL_UNDEFINED_INDEX.
 */
MXL_EXPORT uint64_t mxlTimestampToIndex (mxlRational const *editRate, uint64_t timestamp);

/**
 * mxlIndexToTimestamp:
 * @editRate: (nullable): edit rate.
 * @index: grain/sample index.
 *
 * Returns: the origin timestamp in TAI ns, (index * den * 1e9 + num div 2)
 * div num (nearest ns); MXL_UNDEFINED_INDEX for an invalid rate, a result
 * beyond INT64_MAX, or a result of 0 for an index other than 0 (§5.2 [Q],
 * kept).
 */
MXL_EXPORT uint64_t mxlIndexToTimestamp (mxlRational const *editRate, uint64_t index);

/** mxlSleepForNs: sleeps @ns nanoseconds on CLOCK_TAI (restarts on EINTR). */
MXL_EXPORT void mxlSleepForNs (uint64_t ns);

/** mxlSleepUntil: sleeps until the absolute TAI ns @timestamp (CLOCK_TAI,
 * TIMER_ABSTIME; restarts on EINTR). Returns at once for a past time. */
MXL_EXPORT void mxlSleepUntil (uint64_t timestamp);

/** mxlGetTime: Returns: now in TAI ns (clock_gettime (CLOCK_TAI)), 0 if the
 * clock cannot be read. */
MXL_EXPORT uint64_t mxlGetTime (void);

#ifdef __cplusplus
}
#endif
