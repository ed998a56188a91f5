/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The cause of the last failed flow creation or fabrics setup in the calling
 * thread (mxlGetLastErrorMessage(), flow-ext.h): the mxlStatus codes of the
 * SDK API cannot say "No space left on device" or "Address already in use",
 * so the text is kept aside for callers that report errors to a user.
 */
#include <errno.h>
#include <stdarg.h>

#include <glib.h>

#include "flow-priv.h"
#include "mxl/flow-ext.h"

static GPrivate last_error = G_PRIVATE_INIT (g_free);

void
mxl_last_error_clear (void)
{
  g_private_replace (&last_error, NULL);
}

void
mxl_last_error_set_errno (int err, const char *format, ...)
{
  va_list args;
  gchar *what;
  const char *hint = "";

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);
  if (err == ENOSPC || err == EDQUOT)
    hint = " (the file system of the domain is full: enlarge it, for example "
        "the tmpfs of /dev/shm, or remove unused flows)";
  else if (err == EMFILE || err == ENFILE)
    hint = " (raise the open file limit, ulimit -n)";
  g_private_replace (&last_error,
      g_strdup_printf ("%s: %s%s", what, g_strerror (err), hint));
  g_free (what);
}

void
mxl_last_error_set (const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_private_replace (&last_error, g_strdup_vprintf (format, args));
  va_end (args);
}

MXL_EXPORT const char *
mxlGetLastErrorMessage (void)
{
  return g_private_get (&last_error);
}
