/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Bounded reads of "@PATH" files (userfile.h).
 */
#include "fabrics/wire/userfile.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

/* Reads @fd to its end into @buf, at most @limit + 1 bytes (one more than
 * allowed tells a file too large), waiting for a silent FIFO up to
 * MXL_USER_FILE_WAIT_MS in all. Returns: 0, or the errno. */
static int
read_fd_bounded (int fd, GByteArray *buf, gsize limit)
{
  gint64 deadline = g_get_monotonic_time () +
      MXL_USER_FILE_WAIT_MS * G_TIME_SPAN_MILLISECOND;
  guint8 chunk[16384];

  while (buf->len <= limit) {
    gssize n = read (fd, chunk, MIN (sizeof chunk, limit + 1 - buf->len));
    GPollFD pfd = { fd, G_IO_IN, 0 };
    gint64 left_ms;

    if (n > 0) {
      g_byte_array_append (buf, chunk, (guint) n);
      continue;
    }
    if (n == 0)
      return 0;
    if (errno == EINTR)
      continue;
    if (errno != EAGAIN)
      return errno;
    left_ms = (deadline - g_get_monotonic_time () + 999) / 1000;
    if (left_ms <= 0)
      return ETIMEDOUT;
    g_poll (&pfd, 1, (gint) left_ms);
  }
  return 0;
}

gchar *
mxl_user_file_read (const char *path, gsize limit, gsize *out_len,
    GError **error)
{
  GByteArray *buf;
  int fd, err;

  fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0) {
    err = errno;
    g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (err),
        g_strerror (err));
    return NULL;
  }
  buf = g_byte_array_new ();
  err = read_fd_bounded (fd, buf, limit);
  g_close (fd, NULL);
  if (err == 0 && buf->len > limit)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
        "larger than %" G_GSIZE_FORMAT " bytes", limit);
  else if (err == ETIMEDOUT)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
        "nothing to read within %u ms", MXL_USER_FILE_WAIT_MS);
  else if (err != 0)
    g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (err),
        g_strerror (err));
  if (err != 0 || buf->len > limit) {
    g_byte_array_free (buf, TRUE);
    return NULL;
  }
  *out_len = buf->len;
  g_byte_array_append (buf, (const guint8 *) "", 1);
  return (gchar *) g_byte_array_free (buf, FALSE);
}
