/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The mxl-fabrics-interfaces tool (path in argv[1], passed by meson): it
 * reports the libfabric version in use, lists tcp on 127.0.0.1 and shm,
 * filters by provider and node, and rejects unknown providers.
 */
#include <string.h>

#include <glib.h>
#include <rdma/fabric.h>

static char *tool;

static char *
run (int *status, ...)
{
  GPtrArray *args = g_ptr_array_new ();
  char *out = NULL;
  GError *error = NULL;
  va_list ap;
  const char *a;

  g_ptr_array_add (args, tool);
  va_start (ap, status);
  while ((a = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (args, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) args->pdata, NULL, G_SPAWN_STDERR_TO_DEV_NULL,
      NULL, NULL, &out, NULL, status, &error));
  g_assert_no_error (error);
  g_ptr_array_free (args, TRUE);
  return out;
}

static void
test_list (void)
{
  int status;
  char *version = g_strdup_printf ("libfabric %u.%u\n", FI_MAJOR (fi_version ()),
      FI_MINOR (fi_version ()));
  char *out = run (&status, NULL);

  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (g_str_has_prefix (out, version));
  g_assert_nonnull (strstr (out, "\ntcp "));
  g_assert_nonnull (strstr (out, " 127.0.0.1 "));
  g_assert_nonnull (strstr (out, "\nshm "));
  g_assert_nonnull (strstr (out, "remote-write"));
  g_free (out);

  out = run (&status, "--provider", "tcp", "--node", "127.0.0.1", "--attr", NULL);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_null (strstr (out, "\nshm "));
  g_assert_nonnull (strstr (out, "\ntcp          127.0.0.1 "));
  g_assert_nonnull (strstr (out, "\"ep_type\":\"FI_EP_MSG\""));
  g_assert_nonnull (strstr (out, "1 interface(s)"));
  g_free (out);

  out = run (&status, "-p", "bogus", NULL);
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_free (out);
  g_free (version);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 2)
    g_error ("usage: %s PATH-OF-mxl-fabrics-interfaces", argv[0]);
  tool = argv[1];
  g_test_add_func ("/fabrics/tool/interfaces", test_list);
  return g_test_run ();
}
