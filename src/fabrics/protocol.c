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
      return continuous ? &mxl_send_samples_egress_ops : &mxl_send_egress_ops;
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
  /* Send needs FI_SEND (asked for unless the options force "write") and
   * the registered message headers. */
  if (kind == MXL_PROTOCOL_SEND
      && (!(init->dom->info->caps & FI_SEND) || init->ctx_region.mr == NULL))
    return NULL;
  return mxl_egress_select (kind, init->continuous);
}
