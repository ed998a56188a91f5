/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private target state of the message protocols (send.c, and tagged.c,
 * which builds on it): reached from the target's protocol state
 * (t->pstate) with container_of, the way libfabric providers embed their
 * util_ep. Nothing outside src/fabrics/protocol/ includes this.
 */
#pragma once

#include "fabrics/protocol/protocol.h"
#include "fabrics/target.h"

/** A send target: where messages may land and what was refused. */
typedef struct MxlSendTarget {
  MxlTargetProto base;
  const MxlIngressOps *inner;     /* the write ingress behind the unpack */
  MxlRemoteRegion *regions;       /* where messages may land: addr = local
                                     address, len (slots or bounce entries) */
  guint n_regions;
  gboolean *bad;                  /* per receive buffer: last message refused */
} MxlSendTarget;

static inline MxlSendTarget *
mxl_send_target (MxlTarget *t)
{
  return mxl_container_of (t->pstate, MxlSendTarget, base);
}

/**
 * mxl_send_target_init:
 * Sets up the receive ring of a send target into a zeroed protocol state
 * of @size bytes (at least sizeof (MxlSendTarget), which it starts with)
 * and installs the send ingress. Returns: OK, INVALID_ARG (no room for the
 * header), or the registration's status.
 */
mxlStatus mxl_send_target_init (MxlTarget *t, gsize size, GError **error);

/** Frees what mxl_send_target_init() allocated (not the state itself). */
void mxl_send_target_clear (MxlSendTarget *s);
