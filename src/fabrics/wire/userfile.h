/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Files a user names with "@PATH" (a TargetInfo, an NMOS flow definition):
 * read bounded in size and in time. Only regular files are read: opened
 * non-blocking (a FIFO without a writer cannot hang the open) and checked
 * with fstat(2), so that a FIFO, a device or a directory is refused at once
 * instead of being waited for; at most one byte more than the limit is
 * read (docs/wire-format.md §1.6).
 */
#pragma once

#include <glib.h>

/**
 * mxl_user_file_read:
 * @path: the file.
 * @limit: the most bytes accepted.
 * @out_len: (out): bytes read (the NUL appended is not counted).
 * @error: G_FILE_ERROR from the errno of open(2), fstat(2) or read(2)
 *   (NOENT: it does not exist), G_IO_ERROR_NOT_REGULAR_FILE when it is
 *   not a regular file ("not a regular file (a FIFO)": a FIFO, a device,
 *   a directory, a socket), G_IO_ERROR_INVALID_DATA when it holds more
 *   than @limit bytes. Messages give the cause only ("larger than N
 *   bytes", strerror(3)): callers name the file.
 *
 * Returns: (transfer full) (nullable): the contents with a NUL appended
 * (g_free()), or NULL on error.
 */
gchar *mxl_user_file_read (const char *path, gsize limit, gsize *out_len,
    GError **error);
