/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Public API glue of <mxl/fabrics.h> and <mxl/fabrics-ext.h>: argument
 * checks, then the engine. (TargetInfo ToString/FromString/Free live in
 * targetinfo.c.)
 */
#include <string.h>
#include <unistd.h>

#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>

#include "fabrics/initiator.h"
#include "fabrics/initiator_credit.h"
#include "fabrics/instance.h"
#include "fabrics/ofi/provider.h"
#include "fabrics/protocol/protocol.h"
#include "fabrics/setup.h"
#include "fabrics/target.h"

MXL_EXPORT mxlStatus
mxlFabricsCreateInstance (mxlInstance in_instance, char const *options,
    mxlFabricsInstance *out_fabricsInstance)
{
  if (in_instance == NULL || out_fabricsInstance == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_instance_create (in_instance, out_fabricsInstance);
}

MXL_EXPORT mxlStatus
mxlFabricsDestroyInstance (mxlFabricsInstance in_instance)
{
  if (in_instance == NULL)
    return MXL_ERR_INVALID_ARG;
  mxl_instance_destroy (in_instance);
  return MXL_STATUS_OK;
}

MXL_EXPORT mxlStatus
mxlFabricsGetInterfaces (mxlFabricsInstance in_instance,
    mxlFabricsInterfaceConfig const *in_query, mxlFabricsInterfaceList **out_list)
{
  g_autoptr (GError) error = NULL;
  mxlStatus st;

  if (in_instance == NULL || out_list == NULL)
    return MXL_ERR_INVALID_ARG;
  st = mxl_provider_list_interfaces (in_query, out_list, &error);
  if (st != MXL_STATUS_OK)
    g_warning ("mxlFabricsGetInterfaces: %s", error ? error->message : "failed");
  return st;
}

MXL_EXPORT mxlStatus
mxlFabricsFreeInterfaceList (mxlFabricsInterfaceList *interfaceList)
{
  mxl_provider_free_interfaces (interfaceList);
  return MXL_STATUS_OK;
}

MXL_EXPORT mxlStatus
mxlFabricsCreateTarget (mxlFabricsInstance in_fabricsInstance, mxlFabricsTarget *out_target)
{
  if (in_fabricsInstance == NULL || out_target == NULL)
    return MXL_ERR_INVALID_ARG;
  *out_target = mxl_instance_new_target (in_fabricsInstance);
  return MXL_STATUS_OK;
}

MXL_EXPORT mxlStatus
mxlFabricsDestroyTarget (mxlFabricsInstance in_fabricsInstance, mxlFabricsTarget in_target)
{
  if (in_fabricsInstance == NULL || in_target == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_instance_destroy_target (in_fabricsInstance, in_target);
}

MXL_EXPORT mxlStatus
mxlFabricsTargetSetup (mxlFabricsTarget in_target, mxlFabricsTargetConfig const *in_config,
    char const *in_options, mxlFabricsTargetInfo *out_info)
{
  if (in_target == NULL || in_config == NULL || out_info == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_target_setup (in_target, in_config, in_options, out_info);
}

/* A grain read; *@out_lapped (when not NULL, set with OK): the whole grains
 * lapped before this one was committed (protocol_write.c lapped_grain()). */
static mxlStatus
read_grain (mxlFabricsTarget t, int timeout_ms, uint64_t *out_index,
    uint64_t *out_lapped)
{
  uint64_t count = 0;
  mxlStatus st;

  if (t->base.setup_done && t->base.continuous)
    return MXL_ERR_INVALID_STATE;
  st = mxl_target_read (t, timeout_ms, out_index, &count);
  if (st == MXL_STATUS_OK && out_lapped != NULL)
    *out_lapped = count;
  return st;
}

MXL_EXPORT mxlStatus
mxlFabricsTargetReadGrainNonBlocking (mxlFabricsTarget in_target, uint64_t *out_grainIndex)
{
  if (in_target == NULL || out_grainIndex == NULL)
    return MXL_ERR_INVALID_ARG;
  return read_grain (in_target, -1, out_grainIndex, NULL);
}

MXL_EXPORT mxlStatus
mxlFabricsTargetReadGrain (mxlFabricsTarget in_target, uint16_t in_timeoutMs,
    uint64_t *out_grainIndex)
{
  if (in_target == NULL || out_grainIndex == NULL)
    return MXL_ERR_INVALID_ARG;
  return read_grain (in_target, in_timeoutMs, out_grainIndex, NULL);
}

/* Continuous flows (docs/wire-format.md §4). */
static mxlStatus
read_samples (mxlFabricsTarget t, int timeout_ms, uint64_t *out_head, size_t *out_count)
{
  uint64_t count = 0;
  mxlStatus st;

  if (t->base.setup_done && !t->base.continuous)
    return MXL_ERR_INVALID_STATE;
  st = mxl_target_read (t, timeout_ms, out_head, &count);
  if (st == MXL_STATUS_OK)
    *out_count = (size_t) count;
  return st;
}

MXL_EXPORT mxlStatus
mxlFabricsTargetReadSamplesNonBlocking (mxlFabricsTarget in_target,
    uint64_t *out_headIndex, size_t *out_count)
{
  if (in_target == NULL || out_headIndex == NULL || out_count == NULL)
    return MXL_ERR_INVALID_ARG;
  return read_samples (in_target, -1, out_headIndex, out_count);
}

MXL_EXPORT mxlStatus
mxlFabricsTargetReadSamples (mxlFabricsTarget in_target, uint16_t in_timeoutMs,
    uint64_t *out_headIndex, size_t *out_count)
{
  if (in_target == NULL || out_headIndex == NULL || out_count == NULL)
    return MXL_ERR_INVALID_ARG;
  return read_samples (in_target, in_timeoutMs, out_headIndex, out_count);
}

MXL_EXPORT mxlStatus
mxlFabricsCreateInitiator (mxlFabricsInstance in_fabricsInstance,
    mxlFabricsInitiator *out_initiator)
{
  if (in_fabricsInstance == NULL || out_initiator == NULL)
    return MXL_ERR_INVALID_ARG;
  *out_initiator = mxl_instance_new_initiator (in_fabricsInstance);
  return MXL_STATUS_OK;
}

MXL_EXPORT mxlStatus
mxlFabricsDestroyInitiator (mxlFabricsInstance in_fabricsInstance,
    mxlFabricsInitiator in_initiator)
{
  if (in_fabricsInstance == NULL || in_initiator == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_instance_destroy_initiator (in_fabricsInstance, in_initiator);
}

MXL_EXPORT mxlStatus
mxlFabricsInitiatorSetup (mxlFabricsInitiator in_initiator,
    mxlFabricsInitiatorConfig const *in_config, char const *in_options)
{
  if (in_initiator == NULL || in_config == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_initiator_setup (in_initiator, in_config, in_options);
}

MXL_EXPORT mxlStatus
mxlFabricsInitiatorAddTarget (mxlFabricsInitiator in_initiator,
    mxlFabricsTargetInfo in_targetInfo)
{
  if (in_initiator == NULL || in_targetInfo == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_initiator_add_target (in_initiator, in_targetInfo);
}

MXL_EXPORT mxlStatus
mxlFabricsInitiatorRemoveTarget (mxlFabricsInitiator in_initiator,
    mxlFabricsTargetInfo in_targetInfo)
{
  if (in_initiator == NULL || in_targetInfo == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_initiator_remove_target (in_initiator, in_targetInfo);
}

MXL_EXPORT mxlStatus
mxlFabricsInitiatorTransferGrain (mxlFabricsInitiator in_initiator, uint64_t in_grainIndex,
    uint16_t in_startSlice, uint16_t in_endSlice)
{
  if (in_initiator == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_initiator_transfer_grain (in_initiator, in_grainIndex, in_startSlice,
      in_endSlice);
}

MXL_EXPORT mxlStatus
mxlFabricsInitiatorTransferSamples (mxlFabricsInitiator in_initiator, uint64_t in_headIndex,
    size_t in_count)
{
  if (in_initiator == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_initiator_transfer_samples (in_initiator, in_headIndex, in_count);
}

MXL_EXPORT mxlStatus
mxlFabricsInitiatorMakeProgressNonBlocking (mxlFabricsInitiator in_initiator)
{
  if (in_initiator == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_initiator_make_progress (in_initiator, -1);
}

MXL_EXPORT mxlStatus
mxlFabricsInitiatorMakeProgressBlocking (mxlFabricsInitiator in_initiator,
    uint16_t in_timeoutMs)
{
  if (in_initiator == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_initiator_make_progress (in_initiator, in_timeoutMs);
}

MXL_EXPORT mxlStatus
mxlFabricsProviderFromString (char const *in_string, mxlFabricsProvider *out_provider)
{
  return mxl_provider_from_string (in_string, FALSE, out_provider);
}

MXL_EXPORT mxlStatus
mxlFabricsProviderToString (mxlFabricsProvider in_provider, char *out_string,
    size_t *in_stringSize)
{
  const char *name = mxl_provider_to_string (in_provider);
  size_t need;

  if (name == NULL || in_stringSize == NULL)
    return MXL_ERR_INVALID_ARG;
  need = strlen (name) + 1;
  if (out_string == NULL) {
    *in_stringSize = need;
    return MXL_STATUS_OK;
  }
  if (*in_stringSize < need)
    return MXL_ERR_STRLEN;
  memcpy (out_string, name, need);
  return MXL_STATUS_OK;
}

/* ------------------------------------------------------------ extensions */

MXL_EXPORT mxlStatus
mxlFabricsExtProviderFromString (char const *in_string, mxlFabricsProvider *out_provider)
{
  return mxl_provider_from_string (in_string, TRUE, out_provider);
}

MXL_EXPORT mxlStatus
mxlFabricsExtGetProvider (size_t in_index, mxlFabricsExtProviderInfo *out_info)
{
  const MxlProviderDesc *desc;

  if (out_info == NULL)
    return MXL_ERR_INVALID_ARG;
  desc = in_index <= G_MAXUINT ? mxl_provider_nth ((guint) in_index) : NULL;
  if (desc == NULL)
    return MXL_ERR_NOT_FOUND;
  out_info->provider = desc->provider;
  out_info->name = desc->name;
  out_info->description = desc->description;
  out_info->autoRank = desc->auto_rank;
  return MXL_STATUS_OK;
}

MXL_EXPORT mxlStatus
mxlFabricsExtProviderNodeIsName (mxlFabricsProvider in_provider, bool *out_isName)
{
  const MxlProviderDesc *desc = mxl_provider_lookup (in_provider);

  if (desc == NULL || out_isName == NULL)
    return MXL_ERR_INVALID_ARG;
  *out_isName = mxl_provider_names_nodes (desc);
  return MXL_STATUS_OK;
}

/* Rank of provider @p when @want is asked for: lower is better, G_MAXUINT
 * never. ANY follows autoRank (0 there: only when named). */
static guint
choice_rank (mxlFabricsProvider p, mxlFabricsProvider want)
{
  const MxlProviderDesc *desc;

  if (want != MXL_FABRICS_PROVIDER_ANY)
    return p == want ? 0 : G_MAXUINT;
  desc = mxl_provider_lookup (p);
  return desc != NULL && desc->auto_rank > 0 ? desc->auto_rank : G_MAXUINT;
}

/* A loopback address reaches only this host: a default node avoids it. */
static gboolean
is_loopback (const char *node)
{
  return g_str_has_prefix (node, "127.") || g_strcmp0 (node, "::1") == 0;
}

MXL_EXPORT mxlStatus
mxlFabricsExtChooseInterface (mxlFabricsInstance in_instance,
    mxlFabricsProvider in_provider, mxlFabricsProvider *out_provider, char *out_node,
    size_t in_node_len)
{
  static gint counter;
  mxlFabricsInterfaceList *list = NULL;
  mxlFabricsInterfaceConfig query;
  const char *pick = NULL;
  g_autofree char *node = NULL;
  guint best = G_MAXUINT;

  if (in_instance == NULL || out_provider == NULL)
    return MXL_ERR_INVALID_ARG;
  memset (&query, 0, sizeof query);
  query.version = MXL_FABRICS_API_VERSION;
  query.provider = in_provider;
  if (mxlFabricsGetInterfaces (in_instance, &query, &list) != MXL_STATUS_OK)
    list = NULL;
  for (mxlFabricsInterfaceList *l = list; l != NULL; l = l->next) {
    guint rank = choice_rank (l->interface.provider, in_provider);
    if (rank < best) {
      best = rank;
      *out_provider = l->interface.provider;
    }
  }
  for (mxlFabricsInterfaceList *l = list; l != NULL && best != G_MAXUINT; l = l->next) {
    const char *n = l->interface.address.node;
    if (l->interface.provider == *out_provider && n != NULL && n[0] != '\0'
        && (pick == NULL || (is_loopback (pick) && !is_loopback (n))))
      pick = n;
  }
  /* A provider whose nodes are names (shm) gets one unique to the caller;
   * the others an address of this host, one that is not loopback if any. */
  if (best != G_MAXUINT && out_node != NULL) {
    node = mxl_provider_names_nodes (mxl_provider_lookup (*out_provider))
        || pick == NULL ? g_strdup_printf (MXL_FABRICS_EXT_SHM_NODE_PREFIX "%d-%d", (int) getpid (),
            g_atomic_int_add (&counter, 1))
        : g_strdup (pick);
  }
  mxlFabricsFreeInterfaceList (list);
  if (best == G_MAXUINT)
    return MXL_ERR_NOT_FOUND;
  if (out_node != NULL && g_strlcpy (out_node, node, in_node_len) >= in_node_len)
    return MXL_ERR_INVALID_ARG;
  return MXL_STATUS_OK;
}

MXL_EXPORT mxlStatus
mxlFabricsExtGetProtocol (size_t in_index, mxlFabricsExtProtocolInfo *out_info)
{
  const MxlProtocolDesc *p;

  if (out_info == NULL)
    return MXL_ERR_INVALID_ARG;
  if (in_index >= mxl_n_protocols)
    return MXL_ERR_NOT_FOUND;
  p = mxl_protocols[in_index];
  out_info->name = p->name;
  out_info->capability = p->caps_name;
  out_info->targetRank = p->target_rank;
  return MXL_STATUS_OK;
}

MXL_EXPORT mxlStatus
mxlFabricsExtGetLibfabricVersion (uint32_t *out_major, uint32_t *out_minor)
{
  uint32_t v;

  if (out_major == NULL || out_minor == NULL)
    return MXL_ERR_INVALID_ARG;
  v = fi_version ();
  *out_major = FI_MAJOR (v);
  *out_minor = FI_MINOR (v);
  return MXL_STATUS_OK;
}

MXL_EXPORT char const *
mxlFabricsExtConnectionStateName (mxlFabricsExtConnectionState in_state)
{
  switch (in_state) {
    case MXL_FABRICS_EXT_STATE_IDLE:
      return "idle";
    case MXL_FABRICS_EXT_STATE_LISTENING:
      return "listening";
    case MXL_FABRICS_EXT_STATE_CONNECTING:
      return "connecting";
    case MXL_FABRICS_EXT_STATE_CONNECTED:
      return "connected";
    case MXL_FABRICS_EXT_STATE_LOST:
      return "lost";
    case MXL_FABRICS_EXT_STATE_REMOVED:
      return "removed";
  }
  return "unknown";
}

MXL_EXPORT mxlStatus
mxlFabricsExtInitiatorPollEvent (mxlFabricsInitiator in_initiator,
    mxlFabricsExtConnectionEvent *out_event)
{
  if (in_initiator == NULL || out_event == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_endpoint_poll_event (&in_initiator->base, out_event);
}

MXL_EXPORT mxlStatus
mxlFabricsExtInitiatorGetTargetState (mxlFabricsInitiator in_initiator,
    mxlFabricsTargetInfo in_targetInfo, mxlFabricsExtConnectionState *out_state)
{
  if (in_initiator == NULL || in_targetInfo == NULL || out_state == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_initiator_target_state (in_initiator, in_targetInfo->id, out_state);
}

MXL_EXPORT mxlStatus
mxlFabricsExtTargetPollEvent (mxlFabricsTarget in_target,
    mxlFabricsExtConnectionEvent *out_event)
{
  if (in_target == NULL || out_event == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_endpoint_poll_event (&in_target->base, out_event);
}

MXL_EXPORT mxlStatus
mxlFabricsExtTargetReadGrainLapped (mxlFabricsTarget in_target,
    uint16_t in_timeoutMs, uint64_t *out_grainIndex, uint64_t *out_lapped)
{
  if (in_target == NULL || out_grainIndex == NULL || out_lapped == NULL)
    return MXL_ERR_INVALID_ARG;
  return read_grain (in_target, in_timeoutMs == 0 ? -1 : in_timeoutMs,
      out_grainIndex, out_lapped);
}

MXL_EXPORT mxlStatus
mxlFabricsExtTargetInterruptRead (mxlFabricsTarget in_target)
{
  if (in_target == NULL)
    return MXL_ERR_INVALID_ARG;
  mxl_target_interrupt (in_target);
  return MXL_STATUS_OK;
}

MXL_EXPORT mxlStatus
mxlFabricsExtInitiatorSetNotify (mxlFabricsInitiator in_initiator,
    void (*in_notify) (void *in_data), void *in_data)
{
  if (in_initiator == NULL)
    return MXL_ERR_INVALID_ARG;
  mxl_lock (&in_initiator->base.lock);
  in_initiator->notify = in_notify;
  in_initiator->notify_data = in_data;
  mxl_unlock (&in_initiator->base.lock);
  return MXL_STATUS_OK;
}

MXL_EXPORT mxlStatus
mxlFabricsExtInitiatorGetWaitFd (mxlFabricsInitiator in_initiator, int *out_fd)
{
  if (in_initiator == NULL || out_fd == NULL)
    return MXL_ERR_INVALID_ARG;
  mxl_lock (&in_initiator->base.lock);
  *out_fd = mxl_initiator_wait_fd (in_initiator);
  mxl_unlock (&in_initiator->base.lock);
  return MXL_STATUS_OK;
}

MXL_EXPORT mxlStatus
mxlFabricsExtInitiatorTryWait (mxlFabricsInitiator in_initiator)
{
  mxlStatus st;

  if (in_initiator == NULL)
    return MXL_ERR_INVALID_ARG;
  mxl_lock (&in_initiator->base.lock);
  st = mxl_initiator_try_wait (in_initiator);
  mxl_unlock (&in_initiator->base.lock);
  return st;
}

MXL_EXPORT mxlStatus
mxlFabricsExtTargetGetStats (mxlFabricsTarget in_target, mxlFabricsExtTargetStats *out_stats)
{
  if (in_target == NULL || out_stats == NULL)
    return MXL_ERR_INVALID_ARG;
  if (!in_target->base.setup_done)
    return MXL_ERR_INVALID_STATE;
  mxl_target_get_stats (in_target, out_stats);
  return MXL_STATUS_OK;
}

MXL_EXPORT mxlStatus
mxlFabricsExtTargetSetupTwoPaths (mxlFabricsTarget in_target,
    mxlFabricsTargetConfig const *in_config, mxlFabricsInterfaceConfig const *in_pathB,
    char const *in_options, mxlFabricsTargetInfo *out_info)
{
  if (in_target == NULL || in_config == NULL || in_pathB == NULL || out_info == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_target_setup_paths (in_target, in_config, in_pathB, in_options, out_info);
}

MXL_EXPORT mxlStatus
mxlFabricsExtTargetGetPathStats (mxlFabricsTarget in_target, uint32_t in_path,
    mxlFabricsExtTargetPathStats *out_stats)
{
  if (in_target == NULL || out_stats == NULL)
    return MXL_ERR_INVALID_ARG;
  if (!in_target->base.setup_done)
    return MXL_ERR_INVALID_STATE;
  return mxl_target_path_stats (in_target, in_path, out_stats);
}

MXL_EXPORT mxlStatus
mxlFabricsExtInitiatorGetStats (mxlFabricsInitiator in_initiator,
    mxlFabricsExtInitiatorStats *out_stats)
{
  if (in_initiator == NULL || out_stats == NULL)
    return MXL_ERR_INVALID_ARG;
  if (!in_initiator->base.setup_done)
    return MXL_ERR_INVALID_STATE;
  mxl_initiator_get_stats (in_initiator, out_stats);
  return MXL_STATUS_OK;
}

MXL_EXPORT mxlStatus
mxlFabricsExtInitiatorSendEndOfStream (mxlFabricsInitiator in_initiator,
    uint16_t in_timeoutMs, uint32_t *out_sent)
{
  if (in_initiator == NULL)
    return MXL_ERR_INVALID_ARG;
  if (!in_initiator->base.setup_done)
    return MXL_ERR_INVALID_STATE;
  return mxl_initiator_send_eos (in_initiator, in_timeoutMs, out_sent);
}

MXL_EXPORT mxlStatus
mxlFabricsExtInitiatorGrainInFlight (mxlFabricsInitiator in_initiator,
    uint64_t in_grainIndex, bool *out_inFlight)
{
  if (in_initiator == NULL || out_inFlight == NULL)
    return MXL_ERR_INVALID_ARG;
  if (!in_initiator->base.setup_done || in_initiator->base.continuous
      || in_initiator->base.grain_count == 0)
    return MXL_ERR_INVALID_STATE;
  *out_inFlight = mxl_initiator_slot_in_use (in_initiator,
      (uint32_t) (in_grainIndex % in_initiator->base.grain_count));
  return MXL_STATUS_OK;
}

MXL_EXPORT mxlStatus
mxlFabricsExtInitiatorReleaseGrainSlot (mxlFabricsInitiator in_initiator,
    uint64_t in_grainIndex, bool in_dropHolders, bool *out_inFlight)
{
  gboolean in_flight = FALSE;
  mxlStatus st;

  if (in_initiator == NULL || out_inFlight == NULL)
    return MXL_ERR_INVALID_ARG;
  if (!in_initiator->base.setup_done || in_initiator->base.continuous
      || in_initiator->base.grain_count == 0)
    return MXL_ERR_INVALID_STATE;
  st = mxl_initiator_release_slot (in_initiator, in_grainIndex, in_dropHolders,
      &in_flight);
  *out_inFlight = in_flight;
  return st;
}

MXL_EXPORT mxlStatus
mxlFabricsExtInitiatorGetTargetStats (mxlFabricsInitiator in_initiator,
    mxlFabricsTargetInfo in_targetInfo, mxlFabricsExtInitiatorTargetStats *out_stats)
{
  if (in_initiator == NULL || in_targetInfo == NULL || out_stats == NULL)
    return MXL_ERR_INVALID_ARG;
  if (!in_initiator->base.setup_done)
    return MXL_ERR_INVALID_STATE;
  return mxl_initiator_target_stats (in_initiator, in_targetInfo->id, out_stats);
}

MXL_EXPORT mxlStatus
mxlFabricsExtInitiatorWaitCredit (mxlFabricsInitiator in_initiator,
    mxlFabricsTargetInfo in_targetInfo, uint64_t in_index, uint16_t in_timeoutMs)
{
  if (in_initiator == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_initiator_wait_credit (in_initiator, in_targetInfo, in_index, in_timeoutMs);
}

MXL_EXPORT mxlStatus
mxlFabricsExtTargetReleaseGrain (mxlFabricsTarget in_target, uint64_t in_index)
{
  if (in_target == NULL)
    return MXL_ERR_INVALID_ARG;
  if (!in_target->base.setup_done)
    return MXL_ERR_INVALID_STATE;
  return mxl_target_release_grain (in_target, in_index);
}

MXL_EXPORT mxlStatus
mxlFabricsExtTargetCreditsAnnounced (mxlFabricsTarget in_target, bool *out_announced)
{
  if (in_target == NULL || out_announced == NULL)
    return MXL_ERR_INVALID_ARG;
  if (!in_target->base.setup_done)
    return MXL_ERR_INVALID_STATE;
  return mxl_target_credit_announced (in_target, out_announced);
}

MXL_EXPORT mxlStatus
mxlFabricsExtInitiatorPollTransferResult (mxlFabricsInitiator in_initiator,
    uint16_t in_timeoutMs, mxlFabricsExtTransferResult *out_result)
{
  if (in_initiator == NULL || out_result == NULL)
    return MXL_ERR_INVALID_ARG;
  return mxl_initiator_poll_result (in_initiator, in_timeoutMs, out_result);
}

MXL_EXPORT mxlStatus
mxlFabricsExtTargetInfoGetId (mxlFabricsTargetInfo in_targetInfo, uint64_t *out_id)
{
  if (in_targetInfo == NULL || out_id == NULL)
    return MXL_ERR_INVALID_ARG;
  *out_id = in_targetInfo->id;
  return MXL_STATUS_OK;
}

MXL_EXPORT mxlStatus
mxlFabricsExtTargetInfoGetProvider (mxlFabricsTargetInfo in_targetInfo,
    mxlFabricsProvider *out_provider, char const **out_name)
{
  if (in_targetInfo == NULL || out_provider == NULL)
    return MXL_ERR_INVALID_ARG;
  if (in_targetInfo->provider == NULL
      || mxl_provider_from_string (in_targetInfo->provider, TRUE, out_provider)
      != MXL_STATUS_OK)
    *out_provider = MXL_FABRICS_PROVIDER_ANY;
  if (out_name != NULL)
    *out_name = in_targetInfo->provider;
  return MXL_STATUS_OK;
}
