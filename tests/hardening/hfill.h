/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Deterministic frame bytes shared by the element-level hardening tests and
 * the hostile initiator they start (no GStreamer here): frame or grain @i is
 * an xorshift32 stream seeded from i, so a receiver can regenerate what any
 * index must hold.
 */
#pragma once

#include <glib.h>

static inline void
hgst_fill (guint8 * p, gsize size, guint i)
{
  guint32 x = 0x9e3779b9u * (i + 1);

  for (gsize k = 0; k < size; k++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    p[k] = (guint8) x;
  }
}
