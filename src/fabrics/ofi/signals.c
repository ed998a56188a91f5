/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Undo the signal handlers that Debian's libfabric drags in.
 *
 * libfabric 1.17 on Debian is linked against libinfinipath (the psm
 * provider, package libpsm-infinipath1). Its library constructor installs
 * handlers for SIGINT, SIGTERM, SIGSEGV, SIGBUS, SIGILL and SIGABRT as soon
 * as libfabric is loaded, i.e. when an application or gst-launch-1.0 loads
 * our plugin. On SIGINT that handler calls exit() from the signal context;
 * exit handlers then deadlock on a libfabric mutex held by the interrupted
 * fi_getinfo(), so Ctrl-C during start-up hung gst-launch-1.0 or ended it
 * silently. We never use the psm provider (no TrueScale hardware is ever
 * selected by our hints), so the handlers serve nothing here.
 *
 * This constructor runs after libinfinipath's (a library's constructors run
 * after those of its dependencies) and puts back the default disposition of
 * each of those signals whose handler lives in a psm library, found with
 * dladdr(3). Handlers of any other library or of the application are left
 * alone. An application that installed a handler for one of these signals
 * before loading libfabric had it replaced by libinfinipath already; it
 * must install it again after loading us.
 */
#include <dlfcn.h>
#include <signal.h>
#include <string.h>

#include "fabrics/ofi/signals.h"

static gboolean
handler_is_psm (const struct sigaction *sa)
{
  void *fn = (sa->sa_flags & SA_SIGINFO) ? (void *) sa->sa_sigaction :
      (void *) sa->sa_handler;
  Dl_info info;

  if (fn == (void *) SIG_DFL || fn == (void *) SIG_IGN)
    return FALSE;
  if (dladdr (fn, &info) == 0 || info.dli_fname == NULL)
    return FALSE;
  return strstr (info.dli_fname, "libinfinipath") != NULL
      || strstr (info.dli_fname, "libpsm") != NULL;
}

guint
mxl_signals_restore_defaults (void)
{
  static const int sigs[] = { SIGINT, SIGTERM, SIGSEGV, SIGBUS, SIGILL,
    SIGABRT, SIGQUIT, SIGHUP, SIGFPE
  };
  guint restored = 0;

  for (guint i = 0; i < G_N_ELEMENTS (sigs); i++) {
    struct sigaction sa;

    if (sigaction (sigs[i], NULL, &sa) != 0 || !handler_is_psm (&sa))
      continue;
    memset (&sa, 0, sizeof (sa));
    sa.sa_handler = SIG_DFL;
    sigemptyset (&sa.sa_mask);
    if (sigaction (sigs[i], &sa, NULL) == 0)
      restored++;
  }
  return restored;
}

__attribute__((constructor))
static void
mxl_signals_constructor (void)
{
  mxl_signals_restore_defaults ();
}
