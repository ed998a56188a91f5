/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Protocol selection: which ops table a connection uses, decided once when
 * a target is added (and installed when the connection becomes connected).
 */
#include "fabrics/protocol.h"

#include "fabrics/initiator.h"

uint64_t
mxl_protocol_caps (MxlProtocolKind kind, MxlRole role)
{
  gboolean target = role == MXL_ROLE_TARGET;

  switch (kind) {
    case MXL_PROTOCOL_WRITE:
      return FI_RMA | (target ? FI_REMOTE_WRITE : FI_WRITE);
    case MXL_PROTOCOL_SEND:
      return FI_MSG | (target ? FI_RECV : FI_SEND);
    case MXL_PROTOCOL_TAGGED:
      return FI_TAGGED | (target ? FI_RECV : FI_SEND);
  }
  return 0;
}

const MxlEgressOps *
mxl_egress_select (MxlProtocolKind kind, gboolean continuous)
{
  switch (kind) {
    case MXL_PROTOCOL_WRITE:
      return continuous ? &mxl_rma_samples_egress_ops : &mxl_rma_egress_ops;
    case MXL_PROTOCOL_SEND:
      return continuous ? &mxl_send_samples_egress_ops : &mxl_send_egress_ops;
    case MXL_PROTOCOL_TAGGED:
      return continuous ? &mxl_tagged_samples_egress_ops : &mxl_tagged_egress_ops;
  }
  return NULL;
}

const MxlEgressOps *
mxl_initiator_egress_for (const MxlInitiator *init, MxlProtocolKind kind)
{
  /* A protocol forced by the initiator's options must be the target's. */
  if (init->options.protocol_set && init->options.protocol != kind)
    return NULL;
  /* The capabilities the protocol needs (setup asked for every one the
   * provider has unless the options force a protocol); send and tagged
   * also the registered message headers. */
  if ((init->dom->info->caps & mxl_protocol_caps (kind, MXL_ROLE_INITIATOR))
      != mxl_protocol_caps (kind, MXL_ROLE_INITIATOR))
    return NULL;
  if (kind != MXL_PROTOCOL_WRITE && init->ctx_region.mr == NULL)
    return NULL;
  return mxl_egress_select (kind, init->continuous);
}
