/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Signal dispositions changed by libfabric's dependencies (see signals.c). */
#pragma once

#include <glib.h>

/**
 * mxl_signals_restore_defaults:
 * Puts back SIG_DFL for every signal whose handler lives in a psm library
 * (libinfinipath, libpsm*) pulled in by Debian's libfabric. Runs once as a
 * library constructor; callable again (idempotent).
 *
 * Returns: the number of signals restored.
 */
guint mxl_signals_restore_defaults (void);
