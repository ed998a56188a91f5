/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Standard base64 (RFC 4648 §4, alphabet A-Z a-z 0-9 + /) as TargetInfo uses
 * it for fabricAddress (docs/wire-format.md §1.2) and as the demo tool wraps
 * whole TargetInfo documents (§1.6). GLib does the coding; this file adds
 * the strict validation GLib's decoder does not do (it skips bad characters).
 */
#pragma once

#include <glib.h>

/**
 * mxl_base64_encode:
 * Returns: (transfer full): padded standard base64 of @len bytes at @data;
 * the empty string for @len 0 (docs/wire-format.md §8.3 U1). g_free().
 */
char *mxl_base64_encode (const guint8 *data, gsize len);

/**
 * mxl_base64_decode:
 * @text: base64 text; exactly @text_len characters are read (-1: up to NUL).
 * @out_len: (out): decoded length in bytes (>= 1 on success).
 * @error: (out): G_IO_ERROR_INVALID_DATA naming the defect.
 *
 * Accepts padded text (length a multiple of 4, at most two trailing '=')
 * and, leniently (docs/wire-format.md §1.5), unpadded text whose length mod 4 is 2 or 3.
 * Rejects characters outside the alphabet, '=' anywhere but at the end,
 * a length of 1 mod 4, and text that decodes to zero bytes.
 *
 * Returns: (transfer full) (nullable): the bytes (g_free()), or NULL.
 */
guint8 *mxl_base64_decode (const char *text, gssize text_len, gsize *out_len,
    GError **error);
