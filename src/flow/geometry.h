/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Grain geometry helpers: exact integer formulas of docs/flow-format.md §2.5.
 * Internal to the library (not exported).
 */
#pragma once

#include <stdint.h>

/**
 * mxl_v210_line_bytes:
 * @width: picture width in pixels (2 … MXL_FLOW_MAX_WIDTH, 8192).
 *
 * Returns: bytes of one v210 line, V(w) = ((w + 47) / 48) * 128: six pixels
 * in four 32-bit words, the line padded to 48 pixels (128 bytes).
 */
uint32_t mxl_v210_line_bytes (uint32_t width);

/**
 * mxl_v210a_key_line_bytes:
 * @width: picture width in pixels.
 *
 * Returns: bytes of one key (alpha) line of `video/v210a`,
 * A(w) = ((w + 2) / 3) * 4: three 10-bit samples per 32-bit word.
 */
uint32_t mxl_v210a_key_line_bytes (uint32_t width);
