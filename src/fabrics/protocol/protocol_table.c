/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The protocol table: every transfer protocol this build speaks, one
 * descriptor each (protocol_write.c, protocol_send.c, protocol_tagged.c). Adding a protocol is a new
 * file with its descriptor and a row here (and its wire name and kind in
 * targetinfo.c). Which protocol a connection uses is decided once, when
 * its target is added, and its transport installed when it becomes
 * connected.
 */
#include "fabrics/protocol/protocol.h"

#include "fabrics/protocol/initiator-state.h"

const MxlProtocolDesc *const mxl_protocols[] = {
  &mxl_protocol_write,
  &mxl_protocol_send,
  &mxl_protocol_tagged,
};

const guint mxl_n_protocols = G_N_ELEMENTS (mxl_protocols);

const MxlProtocolDesc *
mxl_protocol_desc (MxlProtocolKind kind)
{
  for (guint i = 0; i < G_N_ELEMENTS (mxl_protocols); i++)
    if (mxl_protocols[i]->kind == kind)
      return mxl_protocols[i];
  return NULL;
}

uint64_t
mxl_protocol_caps (MxlProtocolKind kind, MxlRole role)
{
  const MxlProtocolDesc *p = mxl_protocol_desc (kind);

  return p ? p->caps[role] : 0;
}

/* TRUE when @caps hold everything @p needs as an initiator. */
static gboolean
initiator_can (const MxlProtocolDesc *p, uint64_t caps)
{
  return (caps & p->caps[MXL_ROLE_INITIATOR]) == p->caps[MXL_ROLE_INITIATOR];
}

mxlStatus
mxl_protocol_initiator_setup (MxlInitiator *init, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (mxl_protocols); i++)
    if (mxl_protocols[i]->msg_headers
        && initiator_can (mxl_protocols[i], init->base.dom->info->caps)) {
      init->msg_headers = g_malloc0 ((gsize) init->ctx_count * MXL_SEND_HEADER_SIZE);
      return mxl_ofi_region_register (init->base.dom, init->msg_headers,
          (size_t) init->ctx_count * MXL_SEND_HEADER_SIZE, FI_SEND,
          &init->msg_headers_region, error);
    }
  return MXL_STATUS_OK;
}

const MxlProtocolDesc *
mxl_initiator_protocol_for (const MxlInitiator *init, MxlProtocolKind kind)
{
  const MxlProtocolDesc *p = mxl_protocol_desc (kind);

  /* A protocol forced by the initiator's options must be the target's. */
  if (p == NULL || (init->base.options.protocol_set && init->base.options.protocol != kind))
    return NULL;
  /* The capabilities the protocol needs (setup asked for every one the
   * provider has unless the options force a protocol); send and tagged
   * also the registered message headers. */
  if (!initiator_can (p, init->base.dom->info->caps))
    return NULL;
  if (p->msg_headers && init->msg_headers_region.mr == NULL)
    return NULL;
  return p;
}
