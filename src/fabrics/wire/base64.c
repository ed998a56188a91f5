/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fabrics/wire/base64.h"

#include <gio/gio.h>
#include <string.h>

char *
mxl_base64_encode (const guint8 *data, gsize len)
{
  if (len == 0)
    return g_strdup ("");
  return g_base64_encode (data, len);
}

static gboolean
in_alphabet (char c)
{
  return g_ascii_isalnum (c) || c == '+' || c == '/';
}

guint8 *
mxl_base64_decode (const char *text, gssize text_len, gsize *out_len,
    GError **error)
{
  gsize len, body, pad = 0, i;
  g_autofree char *padded = NULL;
  guint8 *bytes;

  if (text == NULL) {
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
        "base64: no text");
    return NULL;
  }
  len = text_len < 0 ? strlen (text) : (gsize) text_len;

  while (pad < len && text[len - 1 - pad] == '=')
    pad++;
  body = len - pad;
  if (body == 0) {
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
        "base64: decodes to zero bytes");
    return NULL;
  }
  if (pad > 2) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
        "base64: %" G_GSIZE_FORMAT " padding characters (at most 2)", pad);
    return NULL;
  }
  for (i = 0; i < body; i++) {
    if (!in_alphabet (text[i])) {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
          "base64: character 0x%02x at offset %" G_GSIZE_FORMAT
          " is not in the standard alphabet", (guint) (guchar) text[i], i);
      return NULL;
    }
  }
  if (pad > 0 && len % 4 != 0) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
        "base64: padded length %" G_GSIZE_FORMAT " is not a multiple of 4", len);
    return NULL;
  }
  /* 4n+1 characters never encode whole bytes; "==" ends a 4n+2 body and
   * "=" a 4n+3 body. */
  if (body % 4 == 1 || (pad == 2 && body % 4 != 2) || (pad == 1 && body % 4 != 3)) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
        "base64: length %" G_GSIZE_FORMAT " is not a valid encoding", len);
    return NULL;
  }

  /* GLib's decoder wants padded input; restore it for unpadded text. */
  padded = g_malloc (body + 4);
  memcpy (padded, text, body);
  for (i = body; i % 4 != 0; i++)
    padded[i] = '=';
  padded[i] = '\0';

  bytes = g_base64_decode (padded, out_len);
  if (bytes == NULL || *out_len == 0) {
    g_free (bytes);
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
        "base64: decodes to zero bytes");
    return NULL;
  }
  return bytes;
}
