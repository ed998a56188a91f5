/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The protocol table: every transfer protocol this build speaks, one
 * descriptor each (protocol_write.c, protocol_send.c, protocol_tagged.c). Adding a protocol is a new
 * file with its descriptor, its declaration and row here and its line in
 * meson.build: its name, TargetInfo check, setup option value, error texts
 * and the list applications read (mxlFabricsExtGetProtocol()) come from
 * the table. Which protocol a connection uses is decided once, when
 * its target is added, and its transport installed when it becomes
 * connected.
 */
#include "fabrics/protocol/protocol.h"

#include <gio/gio.h>
#include <string.h>

#include "fabrics/protocol/initiator-state.h"

/* The descriptors, one per protocol file. */
extern const MxlProtocolDesc mxl_protocol_write;
extern const MxlProtocolDesc mxl_protocol_send;
extern const MxlProtocolDesc mxl_protocol_tagged;

const MxlProtocolDesc *const mxl_protocols[] = {
  &mxl_protocol_write,
  &mxl_protocol_send,
  &mxl_protocol_tagged,
};

const guint mxl_n_protocols = G_N_ELEMENTS (mxl_protocols);

/* One initiator state slot per row (init->pstate). */
G_STATIC_ASSERT (G_N_ELEMENTS (mxl_protocols) <= MXL_PROTOCOLS_MAX);

const MxlProtocolDesc *
mxl_protocol_lookup (const char *name)
{
  if (name == NULL)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (mxl_protocols); i++)
    if (strcmp (mxl_protocols[i]->name, name) == 0)
      return mxl_protocols[i];
  return NULL;
}

void
mxl_protocol_append_names (GString *out, const char *quote, const char *last_sep)
{
  for (guint i = 0; i < G_N_ELEMENTS (mxl_protocols); i++)
    g_string_append_printf (out, "%s%s%s%s", i == 0 ? ""
        : i + 1 == G_N_ELEMENTS (mxl_protocols) ? last_sep : ", ", quote,
        mxl_protocols[i]->name, quote);
}

const MxlProtocolDesc *
mxl_protocol_check_info (const struct mxlFabricsTargetInfo_t *info,
    mxlStatus *out_status, GError **error)
{
  const MxlProtocolDesc *p = mxl_protocol_lookup (mxl_target_info_protocol (info));
  g_autoptr (GString) names = NULL;

  if (p != NULL)
    return p;
  names = g_string_new (NULL);
  mxl_protocol_append_names (names, "", " or ");
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
      "TargetInfo: ext.\"protocol\" \"%.20s\" is not %s", info->protocol, names->str);
  if (out_status != NULL)
    *out_status = MXL_ERR_INVALID_ARG;
  return NULL;
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
  for (guint i = 0; i < G_N_ELEMENTS (mxl_protocols); i++) {
    const MxlProtocolDesc *p = mxl_protocols[i];
    mxlStatus st;

    if (p->initiator == NULL || !initiator_can (p, init->base.dom->info->caps))
      continue;
    st = p->initiator->setup (init, &init->pstate[i], error);
    if (init->pstate[i] != NULL)
      init->pstate[i]->desc = p;
    if (st != MXL_STATUS_OK)
      return st;
  }
  return MXL_STATUS_OK;
}

void
mxl_protocol_initiator_teardown (MxlInitiator *init)
{
  for (guint i = 0; i < G_N_ELEMENTS (mxl_protocols); i++)
    if (init->pstate[i] != NULL) {
      mxl_protocols[i]->initiator->teardown (init, init->pstate[i]);
      init->pstate[i] = NULL;
    }
}

MxlInitiatorProto *
mxl_initiator_proto (const MxlInitiator *init, const MxlProtocolDesc *p)
{
  for (guint i = 0; i < G_N_ELEMENTS (mxl_protocols); i++)
    if (mxl_protocols[i] == p)
      return init->pstate[i];
  return NULL;
}

const MxlProtocolDesc *
mxl_initiator_protocol_for (const MxlInitiator *init, const char *name)
{
  const MxlProtocolDesc *p = mxl_protocol_lookup (name);

  /* A protocol forced by the initiator's options must be the target's. */
  if (p == NULL || (init->base.options.protocol_set && init->base.options.protocol != p))
    return NULL;
  /* The capabilities the protocol needs (setup asked for every one the
   * provider has unless the options force a protocol), and its initiator
   * state ready (send and tagged: the registered message headers). */
  if (!initiator_can (p, init->base.dom->info->caps))
    return NULL;
  if (p->initiator != NULL) {
    const MxlInitiatorProto *state = mxl_initiator_proto (init, p);

    if (state == NULL || (p->initiator->ready != NULL && !p->initiator->ready (state)))
      return NULL;
  }
  return p;
}
