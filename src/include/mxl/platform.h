/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Platform macros shared by every public header. Names follow the MXL SDK
 * headers (mxl/platform.h) so that code written against them compiles here.
 */
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define MXL_EXPORT __attribute__((visibility("default")))
#else
#define MXL_EXPORT
#endif

#ifdef __cplusplus
#define MXL_NODISCARD [[nodiscard]]
#define MXL_CONSTEXPR constexpr
#else
#define MXL_NODISCARD
#define MXL_CONSTEXPR static inline
#endif
