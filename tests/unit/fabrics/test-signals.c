/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Loading libmxlfabrics (and with it Debian's libfabric, which pulls in
 * libinfinipath) leaves no signal handler of a psm library installed: the
 * default dispositions are back (src/fabrics/ofi/signals.c). Linked against the
 * shared library, as an application or the plugin is.
 */
#include <dlfcn.h>
#include <signal.h>
#include <string.h>

#include <glib.h>
#include <mxl/fabrics.h>

static gboolean
psm_loaded (void)
{
  g_autofree char *maps = NULL;

  if (!g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL))
    return FALSE;
  return strstr (maps, "libinfinipath") != NULL || strstr (maps, "libpsm") != NULL;
}

static void
test_no_psm_handlers (void)
{
  static const int sigs[] = { SIGINT, SIGTERM, SIGSEGV, SIGBUS, SIGILL, SIGABRT };
  mxlFabricsProvider p;

  /* use the library so that it is really loaded */
  g_assert_cmpint (mxlFabricsProviderFromString ("tcp", &p), ==, MXL_STATUS_OK);
  g_assert_cmpint (p, ==, MXL_FABRICS_PROVIDER_TCP);
  if (!psm_loaded ()) {
    g_test_skip ("libfabric here does not load libinfinipath/libpsm");
    return;
  }
  for (guint i = 0; i < G_N_ELEMENTS (sigs); i++) {
    struct sigaction sa;
    void *fn;
    Dl_info info;

    g_assert_cmpint (sigaction (sigs[i], NULL, &sa), ==, 0);
    fn = (sa.sa_flags & SA_SIGINFO) ? (void *) sa.sa_sigaction : (void *) sa.sa_handler;
    if (fn == (void *) SIG_DFL || fn == (void *) SIG_IGN)
      continue;
    /* a handler of the test runtime (sanitizers) is fine; none of psm */
    g_assert_cmpint (dladdr (fn, &info), !=, 0);
    g_assert_null (strstr (info.dli_fname ? info.dli_fname : "", "libinfinipath"));
    g_assert_null (strstr (info.dli_fname ? info.dli_fname : "", "libpsm"));
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/signals/no-psm-handlers", test_no_psm_handlers);
  return g_test_run ();
}
