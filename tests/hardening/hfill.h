/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Deterministic frame bytes shared by the element-level hardening tests and
 * the hostile initiator they start (no GStreamer here): frame or grain @i is
 * an xorshift32 stream seeded from i, audio sample k of channel c a hash of
 * (c, k), so a receiver can regenerate what any index must hold.
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

/* The 32-bit value of sample @k of channel @c (audio flows). */
static inline guint32
hfill_sample (guint32 c, guint64 k)
{
  return (guint32) (k * 2654435761u) ^ (c * 0x01000193u) ^ 0x5BD1E995u;
}
