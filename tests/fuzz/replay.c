/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Replays fuzz inputs through one fuzz target without libFuzzer, so the
 * checked-in seed corpus and every regression input (a crash found by
 * fuzzing, saved under tests/fuzz/regressions/<target>/) run in the normal
 * test suite, under gcc and under ASan+UBSan.
 *
 * Usage: fuzz-<target>-replay PATH...  (files, or directories whose regular
 * files are read, not recursively; a missing directory is an error). Prints
 * one TAP line per input. Exits non-zero if no input was found; a failing
 * property aborts (the test fails with the input's name printed just
 * before).
 */
#include "fuzz.h"

#include <stdio.h>

static guint n_run;

static void
replay_file (const char *path)
{
  g_autofree gchar *contents = NULL;
  g_autoptr (GError) error = NULL;
  gsize len;

  if (!g_file_get_contents (path, &contents, &len, &error))
    g_error ("%s", error->message);
  printf ("# input %s (%" G_GSIZE_FORMAT " bytes)\n", path, len);
  fflush (stdout);
  LLVMFuzzerTestOneInput ((const uint8_t *) contents, len);
  printf ("ok %u - %s\n", ++n_run, path);
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const gchar * const *) a, *(const gchar * const *) b);
}

static void
replay_path (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) names = NULL;
  GDir *dir;
  const gchar *name;

  if (!g_file_test (path, G_FILE_TEST_IS_DIR)) {
    replay_file (path);
    return;
  }
  dir = g_dir_open (path, 0, &error);
  if (dir == NULL)
    g_error ("%s", error->message);
  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL) {
    gchar *full = g_build_filename (path, name, NULL);

    /* README and dot files describe a directory; they are not inputs. */
    if (name[0] != '.' && g_strcmp0 (name, "README") != 0
        && g_file_test (full, G_FILE_TEST_IS_REGULAR))
      g_ptr_array_add (names, full);
    else
      g_free (full);
  }
  g_dir_close (dir);
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    replay_file (g_ptr_array_index (names, i));
}

int
main (int argc, char **argv)
{
  for (int i = 1; i < argc; i++) {
    if (!g_file_test (argv[i], G_FILE_TEST_EXISTS))
      g_error ("no such input: %s", argv[i]);
    replay_path (argv[i]);
  }
  if (n_run == 0) {
    printf ("Bail out! no inputs\n");
    return 1;
  }
  printf ("1..%u\n", n_run);
  return 0;
}
