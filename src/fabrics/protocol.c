/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Protocol selection: which ops table a connection uses, decided once when
 * a target is added (and installed when the connection becomes connected).
 */
#include "fabrics/protocol.h"

#include "fabrics/initiator.h"

const MxlEgressOps *
mxl_egress_select (MxlProtocolKind kind, gboolean continuous)
{
  switch (kind) {
    case MXL_PROTOCOL_WRITE:
      return continuous ? &mxl_rma_samples_egress_ops : &mxl_rma_egress_ops;
    case MXL_PROTOCOL_SEND:
    case MXL_PROTOCOL_TAGGED:
      break;
  }
  return NULL;
}

const MxlEgressOps *
mxl_initiator_egress_for (const MxlInitiator *init, MxlProtocolKind kind)
{
  /* A protocol forced by the initiator's options must be the target's. */
  if (init->options.protocol_set && init->options.protocol != kind)
    return NULL;
  return mxl_egress_select (kind, init->continuous);
}
