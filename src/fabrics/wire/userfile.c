/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Bounded reads of "@PATH" files (userfile.h).
 */
#include "fabrics/wire/userfile.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

/* Reads @fd (a regular file) to its end into @buf, at most @limit + 1
 * bytes (one more than allowed tells a file too large). Returns: 0, or the
 * errno. */
static int
read_fd_bounded (int fd, GByteArray *buf, gsize limit)
{
  guint8 chunk[16384];

  while (buf->len <= limit) {
    gssize n = read (fd, chunk, MIN (sizeof chunk, limit + 1 - buf->len));

    if (n > 0)
      g_byte_array_append (buf, chunk, (guint) n);
    else if (n == 0)
      return 0;
    else if (errno != EINTR)
      return errno;
  }
  return 0;
}

/* What a file of mode @mode is, when not a regular file. */
static const char *
kind_of (mode_t mode)
{
  return S_ISFIFO (mode) ? "a FIFO" : S_ISDIR (mode) ? "a directory"
      : S_ISCHR (mode) ? "a character device" : S_ISBLK (mode)
      ? "a block device" : S_ISSOCK (mode) ? "a socket" : "of another kind";
}

gchar *
mxl_user_file_read (const char *path, gsize limit, gsize *out_len,
    GError **error)
{
  GByteArray *buf;
  struct stat st;
  int fd, err;

  /* non-blocking: the open of a FIFO without a writer returns at once */
  fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0) {
    err = errno;
    g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (err),
        g_strerror (err));
    return NULL;
  }
  if (fstat (fd, &st) != 0) {
    err = errno;
    g_close (fd, NULL);
    g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (err),
        g_strerror (err));
    return NULL;
  }
  if (!S_ISREG (st.st_mode)) {
    g_close (fd, NULL);
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
        "not a regular file (%s)", kind_of (st.st_mode));
    return NULL;
  }
  buf = g_byte_array_new ();
  err = read_fd_bounded (fd, buf, limit);
  g_close (fd, NULL);
  if (err == 0 && buf->len > limit)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
        "larger than %" G_GSIZE_FORMAT " bytes", limit);
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
