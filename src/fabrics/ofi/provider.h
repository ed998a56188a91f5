/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Providers: names, fi_getinfo hints per provider and role, and the
 * interface listing (docs/wire-format.md §5). Everything a provider needs
 * is described once in a static table (MxlProviderDesc); the rest of the
 * engine reads the descriptor instead of switching on the provider.
 */
#pragma once

#include <glib.h>

#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>

#include "fabrics/ofi/ofi.h"

typedef enum MxlRole {
  MXL_ROLE_TARGET,
  MXL_ROLE_INITIATOR,
} MxlRole;

/** How a node string is checked (docs/wire-format.md §5.3). */
typedef enum MxlNodeKind {
  MXL_NODE_IP,        /* numeric IPv4 or IPv6 literal */
  MXL_NODE_IPV6,      /* numeric IPv6 literal (EFA GID) */
  MXL_NODE_NAME,      /* any string (shm) */
} MxlNodeKind;

/**
 * MxlProviderQuirk:
 * @MXL_PROVIDER_QUIRK_OWNER_PID: endpoints belong to one process of this
 *   host: the TargetInfo carries the target's pid, the target's claim
 *   check compares it, and the initiator's claim token names its process
 *   (claim.h; shm).
 * @MXL_PROVIDER_QUIRK_AV_REMOVE_UNSAFE: fi_av_remove() of a peer corrupts
 *   the endpoint, and a peer that stops mid-transfer stalls every later
 *   completion of the endpoint (libfabric 1.17 shm; the top of
 *   initiator_rdm.c and its rdm_close()): an RDM initiator gives each
 *   target its own endpoint and AV and closes them instead of removing the
 *   peer.
 * @MXL_PROVIDER_QUIRK_SHM_REGIONS: each endpoint leaves a region in
 *   /dev/shm: hold it while the endpoint lives and remove regions of dead
 *   processes at setup (shmstale.h).
 * @MXL_PROVIDER_QUIRK_RECEIVER_COPIES: large writes are moved by the
 *   receiver (CMA, process_vm_readv on libfabric 1.17 shm): a posted write
 *   reads the sender's memory until the receiver gets to it, so a grain
 *   flow with more than one target sends from staging buffers of each
 *   connection instead of the ring slot (protocol/grainstage.h).
 * @MXL_PROVIDER_QUIRK_LOCAL_PEER_SHARED: a peer endpoint of this same
 *   process is reached through that endpoint's own mapping of its region,
 *   which its fi_close() unmaps while this side may still read or post
 *   to it (libfabric 1.17 shm, prov/util/src/util_shm.c,
 *   smr_map_to_region() and its ep_name_list): an initiator reaches a
 *   target of its own process under an alias of its address, which maps
 *   the region file separately (mxl_shm_address_separate_mapping(),
 *   docs/libfabric-notes.md P17).
 *
 * Behaviour that differs per provider, read by the engine instead of the
 * provider's identity.
 */
typedef enum MxlProviderQuirk {
  MXL_PROVIDER_QUIRK_OWNER_PID = 1u << 0,
  MXL_PROVIDER_QUIRK_AV_REMOVE_UNSAFE = 1u << 1,
  MXL_PROVIDER_QUIRK_SHM_REGIONS = 1u << 2,
  MXL_PROVIDER_QUIRK_RECEIVER_COPIES = 1u << 3,
  MXL_PROVIDER_QUIRK_LOCAL_PEER_SHARED = 1u << 4,
} MxlProviderQuirk;

/**
 * MxlProviderDesc:
 * Static description of a provider, one row of the table in provider.c;
 * rows are never freed, so pointers to them stay valid for the process.
 * @filter_* are the enumeration filter of §5.1 (applied by the interface
 * listing only).
 */
typedef struct MxlProviderDesc {
  mxlFabricsProvider provider;
  const char *name;              /* API string ("tcp", ..., "tcp;ofi_rxm") */
  const char *description;       /* one line for users (GStreamer enum) */
  const char *prov_name;         /* libfabric fabric_attr->prov_name */
  enum fi_ep_type ep_type;       /* FI_EP_MSG (connected) or FI_EP_RDM */
  uint32_t protocol;             /* FI_PROTO_* of the filter */
  uint32_t addr_formats[2];      /* accepted addr_format values (0 = unused) */
  uint64_t filter_required_caps;
  uint64_t filter_rejected_caps;
  MxlNodeKind node_kind;
  gboolean cq_can_wait;          /* fi_cq_sread() honours its timeout */
  uint64_t rx_mode;              /* FI_RX_CQ_DATA for verbs: imm consumes a receive */
  gboolean extension;            /* not a reference provider: named only by the
                                  * extension API, listed only when asked for */
  guint auto_rank;               /* order of an automatic choice, 1 = first;
                                  * 0 = only when named */
  guint quirks;                  /* MxlProviderQuirk flags */
  gboolean device_is_domain;     /* the interface listing names the device by
                                  * the domain (tcp: the network interface) */
} MxlProviderDesc;

/**
 * mxl_provider_has_quirk:
 * Returns: TRUE when @desc (non-NULL) has every flag of @quirk.
 */
static inline gboolean
mxl_provider_has_quirk (const MxlProviderDesc *desc, MxlProviderQuirk quirk)
{
  return (desc->quirks & quirk) == (guint) quirk;
}

/**
 * mxl_provider_names_nodes:
 * Returns: TRUE when the nodes of @desc (non-NULL) are names, not
 * addresses of the host (MXL_NODE_NAME, shm): an endpoint's default node
 * is then a name unique to it (mxlFabricsExtChooseInterface()).
 */
static inline gboolean
mxl_provider_names_nodes (const MxlProviderDesc *desc)
{
  return desc->node_kind == MXL_NODE_NAME;
}

/**
 * mxl_provider_nth:
 * Returns: (nullable): row @index of the provider table (0 …), in table
 * order; NULL past its end.
 */
const MxlProviderDesc *mxl_provider_nth (guint index);

/** Returns: (nullable): the descriptor of @provider; NULL for ANY or unknown. */
const MxlProviderDesc *mxl_provider_lookup (mxlFabricsProvider provider);

/** Returns: (nullable): the descriptor whose libfabric prov_name is @prov_name. */
const MxlProviderDesc *mxl_provider_lookup_prov_name (const char *prov_name);

/**
 * mxl_provider_from_string:
 * @allow_ext: also accept "tcp;ofi_rxm" (MXL_FABRICS_EXT_PROVIDER_TCP_RXM).
 * Returns: MXL_STATUS_OK or MXL_ERR_INVALID_ARG (exact, case-sensitive
 * match, docs/wire-format.md §5.2).
 */
mxlStatus mxl_provider_from_string (const char *str, gboolean allow_ext,
    mxlFabricsProvider *out);

/** Returns: (nullable): "any", "tcp", "verbs", "efa", "shm", "tcp;ofi_rxm". */
const char *mxl_provider_to_string (mxlFabricsProvider provider);

/**
 * mxl_provider_build_hints:
 * @config: provider, caps and address of a setup call.
 * @role: target or initiator.
 * @caps: the libfabric capabilities the caller's transfer protocol needs
 *   in @role (MxlProtocolDesc.caps, protocol.h; 0: none, a probe); this
 *   layer adds none of its own for a protocol.
 * @out_hints: (out) (transfer full): fi_freeinfo().
 *
 * Validates the config as §5.3 and builds the hints: FI_SOURCE node and
 * service, prov_name, endpoint type, @caps plus FI_MSG | FI_SEND | FI_RECV
 * when the config asks for SEND_RECEIVE, FI_MSG | FI_RECV for a target on
 * a provider whose immediate data consumes a receive (verbs), FI_READ
 * (initiator) or FI_REMOTE_READ (target) when @caps has FI_RMA on an RDM
 * provider (claims, claim.h), mr_mode LOCAL|VIRT_ADDR|ALLOCATED|PROV_KEY,
 * addr_format when a node is given, mode FI_CONTEXT|FI_CONTEXT2 (our
 * operation contexts start with a struct fi_context2) plus the provider's
 * rx mode (FI_RX_CQ_DATA for verbs, docs/libfabric-notes.md P8).
 *
 * The service of tcp and verbs (MXL_NODE_IP) is a port number 0 … 65535 or
 * a name getservbyname(3) resolves from the host's services database (no
 * network); libfabric gets its number (mxl_provider_getinfo_exact()).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG (unknown provider, caps without
 * REMOTE_WRITE and SEND_RECEIVE, service without node, a node or service the
 * provider cannot use, a port above 65535); MXL_ERR_INVALID_STATE (provider ANY);
 * MXL_ERR_NO_FABRIC (SEND_RECEIVE without REMOTE_WRITE).
 */
mxlStatus mxl_provider_build_hints (const mxlFabricsInterfaceConfig *config,
    MxlRole role, uint64_t caps, struct fi_info **out_hints, GError **error);

/**
 * mxl_provider_getinfo_exact:
 * Builds the hints with @caps (mxl_provider_build_hints(): what one
 * transfer protocol needs, or the union of several, MxlProtocolDesc.caps,
 * protocol.h) and calls fi_getinfo(); takes the first result and checks
 * that it has every capability of @caps and carries immediate data
 * (cq_data_size >= 4).
 *
 * Returns: as mxl_provider_build_hints(); MXL_ERR_NO_FABRIC when no
 * provider entry offers @caps or the entry carries no immediate data;
 * MXL_ERR_UNSUPPORTED_OPERATION when the entry returned lacks one of them.
 */
mxlStatus mxl_provider_getinfo_exact (const mxlFabricsInterfaceConfig *config,
    MxlRole role, uint64_t caps, struct fi_info **out_info, GError **error);

/**
 * mxl_provider_info_caps:
 * Returns: the mxlFabricsInterfaceCapFlags of a returned fi_info (§5.4).
 * BLOCKING_OPERATIONS is always reported: blocking calls of this engine poll
 * with short sleeps where the provider cannot wait (shm, efa).
 */
uint64_t mxl_provider_info_caps (const struct fi_info *info);

/**
 * mxl_provider_info_passes_filter:
 * Returns: TRUE when @info passes the §5.1 enumeration filter of @desc
 * (endpoint type, protocol, addr_format, required and rejected caps) and
 * carries immediate data of at least 4 bytes.
 */
gboolean mxl_provider_info_passes_filter (const MxlProviderDesc *desc,
    const struct fi_info *info);

/**
 * mxl_provider_list_interfaces:
 * @query: (nullable): provider and address.node filter (§5.4).
 * @out_list: (out) (transfer full) (nullable): see mxlFabricsGetInterfaces().
 */
mxlStatus mxl_provider_list_interfaces (const mxlFabricsInterfaceConfig *query,
    mxlFabricsInterfaceList **out_list, GError **error);

/** Frees a list from mxl_provider_list_interfaces(). */
void mxl_provider_free_interfaces (mxlFabricsInterfaceList *list);
