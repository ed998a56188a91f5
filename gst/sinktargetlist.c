/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sink's target-info list; see sinktargetlist.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sinktargetlist.h"

#include <string.h>

/* The end of the JSON source at @p ('{'): past its matching '}', or the
 * end of the text when it has none. */
static const gchar *
json_end (const gchar * p)
{
  gboolean in_string = FALSE;
  gint depth = 0;

  for (; *p; p++) {
    if (in_string) {
      if (*p == '\\' && p[1] != '\0')
        p++;
      else if (*p == '"')
        in_string = FALSE;
    } else if (*p == '"') {
      in_string = TRUE;
    } else if (*p == '{') {
      depth++;
    } else if (*p == '}' && --depth == 0) {
      return p + 1;
    }
  }
  return p;
}

/* The separator ending the @path source at @p, or its terminating NUL. */
static const gchar *
path_end (const gchar * p)
{
  for (; *p && *p != ';'; p++) {
    const gchar *next = p + 1;

    if (*p != ',')
      continue;
    while (g_ascii_isspace (*next))
      next++;
    if (*next == '@' || *next == '{')
      return p;
  }
  return p;
}

gchar **
gst_mxl_fabrics_sink_split_target_info (const gchar * value)
{
  GPtrArray *items = g_ptr_array_new ();
  const gchar *p = value ? value : "";

  while (*p) {
    const gchar *start, *end;

    while (g_ascii_isspace (*p) || *p == ';' || *p == ',')
      p++;
    if (*p == '\0')
      break;
    start = p;
    if (*p == '@') {
      p = path_end (p);
    } else {
      if (*p == '{')
        p = json_end (p);
      /* to the separator (what follows a JSON source's brace is part of
       * it: the resolver refuses it) */
      while (*p && *p != ';' && *p != ',')
        p++;
    }
    end = p;
    while (end > start && g_ascii_isspace (end[-1]))
      end--;
    g_ptr_array_add (items, g_strndup (start, end - start));
  }
  if (items->len == 1) {
    /* one source: the value as given (a single @path may hold ',') */
    g_free (g_ptr_array_index (items, 0));
    g_ptr_array_index (items, 0) = g_strdup (value);
  }
  g_ptr_array_add (items, NULL);
  return (gchar **) g_ptr_array_free (items, FALSE);
}
