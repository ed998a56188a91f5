/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rational numbers (edit rates) and the undefined index (docs/flow-format.md §6.1). */
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Index value meaning "no index" (UINT64_MAX). */
#define MXL_UNDEFINED_INDEX UINT64_MAX

/**
 * mxlRational:
 * An edit rate or duration as numerator/denominator (16 bytes, both signed
 * 64-bit). Rates stored in flows are normalised by their gcd.
 */
typedef struct mxlRational_t {
  int64_t numerator;
  int64_t denominator;
} mxlRational;

#ifdef __cplusplus
}
#endif
