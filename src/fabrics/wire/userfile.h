/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Files a user names with "@PATH" (a TargetInfo, an NMOS flow definition):
 * read bounded in size and in time. Opened non-blocking, so that a FIFO
 * without a writer (bash's <(...), a named pipe) cannot hang the caller;
 * at most one byte more than the limit is read, so /dev/zero cannot make
 * it read forever (docs/wire-format.md §1.6).
 */
#pragma once

#include <glib.h>

/** How long a FIFO whose writer has written nothing yet is waited for. */
#define MXL_USER_FILE_WAIT_MS 1000u

/**
 * mxl_user_file_read:
 * @path: the file.
 * @limit: the most bytes accepted.
 * @out_len: (out): bytes read (the NUL appended is not counted).
 * @error: G_FILE_ERROR from the errno of open(2) or read(2) (NOENT: it
 *   does not exist), G_IO_ERROR_INVALID_DATA when it holds more than
 *   @limit bytes, G_IO_ERROR_TIMED_OUT when a FIFO stayed silent for
 *   MXL_USER_FILE_WAIT_MS. Messages give the cause only ("larger than N
 *   bytes", strerror(3)): callers name the file.
 *
 * Returns: (transfer full) (nullable): the contents with a NUL appended
 * (g_free()), or NULL on error.
 */
gchar *mxl_user_file_read (const char *path, gsize limit, gsize *out_len,
    GError **error);
