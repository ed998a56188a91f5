/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Provider table, fi_getinfo hints and interface listing (docs/wire-format.md §5). */
#include "fabrics/ofi/provider.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include <unistd.h>

#include "fabrics/ofi/address.h"

/* One row per provider; the engine reads these fields and flags instead of
 * comparing provider values. auto_rank orders the automatic choice of the
 * GStreamer elements: the fastest transport present first. */
static const MxlProviderDesc providers[] = {
  {
    .provider = MXL_FABRICS_PROVIDER_TCP,
    .name = "tcp",
    .description = "Kernel TCP sockets (FI_EP_MSG)",
    .prov_name = "tcp",
    .ep_type = FI_EP_MSG,
    .protocol = FI_PROTO_SOCK_TCP,
    .addr_formats = { FI_SOCKADDR_IN, FI_SOCKADDR_IN6 },
    .filter_required_caps = FI_MSG,
    .filter_rejected_caps = FI_TAGGED,
    .node_kind = MXL_NODE_IP,
    .cq_can_wait = TRUE,
    .auto_rank = 3,
    .device_is_domain = TRUE,
  },
  {
    .provider = MXL_FABRICS_PROVIDER_VERBS,
    .name = "verbs",
    .description = "InfiniBand/RoCE verbs (FI_EP_MSG)",
    .prov_name = "verbs",
    .ep_type = FI_EP_MSG,
    .protocol = FI_PROTO_RDMA_CM_IB_RC,
    .addr_formats = { FI_SOCKADDR_IN, FI_SOCKADDR_IN6 },
    .filter_required_caps = FI_MSG,
    .filter_rejected_caps = FI_HMEM,
    .node_kind = MXL_NODE_IP,
    .cq_can_wait = TRUE,
    .rx_mode = FI_RX_CQ_DATA,
    .auto_rank = 2,
  },
  {
    .provider = MXL_FABRICS_PROVIDER_EFA,
    .name = "efa",
    .description = "AWS Elastic Fabric Adapter (FI_EP_RDM)",
    .prov_name = "efa",
    .ep_type = FI_EP_RDM,
    .protocol = FI_PROTO_EFA,
    .addr_formats = { FI_ADDR_EFA, 0 },
    .filter_rejected_caps = FI_HMEM | FI_TAGGED,
    .node_kind = MXL_NODE_IPV6,
    /* libfabric 1.17's efa has no CQ wait object (docs/libfabric-notes.md P9). */
    .cq_can_wait = FALSE,
    .auto_rank = 1,
  },
  {
    .provider = MXL_FABRICS_PROVIDER_SHM,
    .name = "shm",
    .description = "Shared memory between processes of one host (FI_EP_RDM)",
    .prov_name = "shm",
    .ep_type = FI_EP_RDM,
    .protocol = FI_PROTO_SHM,
    .addr_formats = { FI_ADDR_STR, 0 },
    .filter_rejected_caps = FI_HMEM,
    .node_kind = MXL_NODE_NAME,
    /* shm's fi_cq_sread() ignores its timeout on 1.17 (P9): poll. */
    .cq_can_wait = FALSE,
    .auto_rank = 4,
    .quirks = MXL_PROVIDER_QUIRK_OWNER_PID | MXL_PROVIDER_QUIRK_AV_REMOVE_UNSAFE
        | MXL_PROVIDER_QUIRK_SHM_REGIONS | MXL_PROVIDER_QUIRK_RECEIVER_COPIES
        | MXL_PROVIDER_QUIRK_LOCAL_PEER_SHARED,
  },
  {
    .provider = MXL_FABRICS_EXT_PROVIDER_TCP_RXM,
    .name = "tcp;ofi_rxm",
    .description = "Reliable datagrams over kernel TCP sockets "
        "(tcp;ofi_rxm, FI_EP_RDM)",
    .prov_name = "tcp;ofi_rxm",
    .ep_type = FI_EP_RDM,
    .protocol = FI_PROTO_RXM,
    .addr_formats = { FI_SOCKADDR_IN, FI_SOCKADDR_IN6 },
    .node_kind = MXL_NODE_IP,
    .cq_can_wait = TRUE,
    .extension = TRUE,
    .auto_rank = 0,
  },
};

const MxlProviderDesc *
mxl_provider_nth (guint index)
{
  return index < G_N_ELEMENTS (providers) ? &providers[index] : NULL;
}

const MxlProviderDesc *
mxl_provider_lookup (mxlFabricsProvider provider)
{
  for (guint i = 0; i < G_N_ELEMENTS (providers); i++)
    if (providers[i].provider == provider)
      return &providers[i];
  return NULL;
}

const MxlProviderDesc *
mxl_provider_lookup_prov_name (const char *prov_name)
{
  if (prov_name == NULL)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (providers); i++)
    if (strcmp (providers[i].prov_name, prov_name) == 0)
      return &providers[i];
  return NULL;
}

mxlStatus
mxl_provider_from_string (const char *str, gboolean allow_ext,
    mxlFabricsProvider *out)
{
  if (str == NULL || out == NULL)
    return MXL_ERR_INVALID_ARG;
  if (strcmp (str, "any") == 0) {
    *out = MXL_FABRICS_PROVIDER_ANY;
    return MXL_STATUS_OK;
  }
  for (guint i = 0; i < G_N_ELEMENTS (providers); i++) {
    if (!allow_ext && providers[i].extension)
      continue;
    if (strcmp (providers[i].name, str) == 0) {
      *out = providers[i].provider;
      return MXL_STATUS_OK;
    }
  }
  return MXL_ERR_INVALID_ARG;
}

const char *
mxl_provider_to_string (mxlFabricsProvider provider)
{
  const MxlProviderDesc *desc;

  if (provider == MXL_FABRICS_PROVIDER_ANY)
    return "any";
  desc = mxl_provider_lookup (provider);
  return desc ? desc->name : NULL;
}

/* The service libfabric gets for @service: for IP providers a port number
 * 0 … 65535, or a service name of this host's services database
 * (getservbyname(3): /etc/services, no network), given to libfabric as its
 * number; other providers take @service as it is. @buf holds a resolved
 * number. NULL with @error set when @service is neither. */
static const char *
resolve_service (const MxlProviderDesc *desc, const char *service,
    char buf[8], GError **error)
{
  struct servent entry, *found = NULL;
  char names[1024];
  guint64 port;

  if (service == NULL || desc->node_kind != MXL_NODE_IP)
    return service;
  /* all digits: a number (names such as "9pfs" may start with one) */
  if (service[0] != '\0' && strspn (service, "0123456789") == strlen (service)) {
    if (!g_ascii_string_to_unsigned (service, 10, 0, G_MAXUINT16, &port, NULL)) {
      g_set_error (error, MXL_OFI_ERROR, 0, "service \"%s\" is not a port "
          "number in 0 … %u", service, G_MAXUINT16);
      return NULL;
    }
    g_snprintf (buf, 8, "%u", (guint) port);
    return buf;
  }
  if (getservbyname_r (service, "tcp", &entry, names, sizeof names, &found) != 0
      || found == NULL) {
    g_set_error (error, MXL_OFI_ERROR, 0, "service \"%s\" is neither a port "
        "number (0 … %u) nor a service name of this host (/etc/services)",
        service, G_MAXUINT16);
    return NULL;
  }
  g_snprintf (buf, 8, "%u", (guint) ntohs ((uint16_t) found->s_port));
  return buf;
}

static gboolean
is_ipv4 (const char *node)
{
  struct in_addr a;
  return inet_pton (AF_INET, node, &a) == 1;
}

static gboolean
is_ipv6 (const char *node)
{
  struct in6_addr a;
  return inet_pton (AF_INET6, node, &a) == 1;
}

/* Returns the addr_format to request for @node, or 0 if @desc cannot use it. */
static uint32_t
node_addr_format (const MxlProviderDesc *desc, const char *node)
{
  switch (desc->node_kind) {
    case MXL_NODE_IP:
      if (strchr (node, ':') != NULL)
        return is_ipv6 (node) ? FI_SOCKADDR_IN6 : 0;
      return is_ipv4 (node) ? FI_SOCKADDR_IN : 0;
    case MXL_NODE_IPV6:
      return is_ipv6 (node) ? FI_ADDR_EFA : 0;
    case MXL_NODE_NAME:
      return FI_ADDR_STR;
  }
  return 0;
}

mxlStatus
mxl_provider_build_hints (const mxlFabricsInterfaceConfig *config,
    MxlRole role, uint64_t caps, struct fi_info **out_hints, GError **error)
{
  const MxlProviderDesc *desc;
  struct fi_info *hints;
  uint64_t flags;
  const char *node, *service;
  char port[8];

  if (config == NULL || out_hints == NULL) {
    g_set_error (error, MXL_OFI_ERROR, 0, "NULL config");
    return MXL_ERR_INVALID_ARG;
  }
  if (config->provider == MXL_FABRICS_PROVIDER_ANY) {
    g_set_error (error, MXL_OFI_ERROR, 0, "provider \"any\" cannot be set up");
    return MXL_ERR_INVALID_STATE;
  }
  desc = mxl_provider_lookup (config->provider);
  if (desc == NULL) {
    g_set_error (error, MXL_OFI_ERROR, 0, "unknown provider %d", config->provider);
    return MXL_ERR_INVALID_ARG;
  }
  flags = config->caps.flags;
  if (!(flags & (MXL_FABRICS_IFACE_CAP_REMOTE_WRITE | MXL_FABRICS_IFACE_CAP_SEND_RECEIVE))) {
    g_set_error (error, MXL_OFI_ERROR, 0,
        "caps must include REMOTE_WRITE (and optionally SEND_RECEIVE)");
    return MXL_ERR_INVALID_ARG;
  }
  if (!(flags & MXL_FABRICS_IFACE_CAP_REMOTE_WRITE)) {
    g_set_error (error, MXL_OFI_ERROR, 0,
        "SEND_RECEIVE without REMOTE_WRITE is not offered");
    return MXL_ERR_NO_FABRIC;
  }
  node = config->address.node;
  service = config->address.service;
  if (node == NULL && service != NULL) {
    g_set_error (error, MXL_OFI_ERROR, 0, "a service needs a node");
    return MXL_ERR_INVALID_ARG;
  }
  if (node != NULL && node_addr_format (desc, node) == 0) {
    g_set_error (error, MXL_OFI_ERROR, 0,
        "node \"%s\" is not a numeric address usable by %s", node, desc->name);
    return MXL_ERR_INVALID_ARG;
  }
  if (resolve_service (desc, service, port, error) == NULL && service != NULL)
    return MXL_ERR_INVALID_ARG;

  hints = fi_allocinfo ();
  if (hints == NULL) {
    g_set_error (error, MXL_OFI_ERROR, 0, "fi_allocinfo failed");
    return MXL_ERR_UNKNOWN;
  }
  hints->fabric_attr->prov_name = strdup (desc->prov_name);  /* freed by fi_freeinfo() */
  hints->ep_attr->type = desc->ep_type;
  /* what the caller's transfer protocol needs (MxlProtocolDesc.caps) */
  hints->caps = caps;
  if (flags & MXL_FABRICS_IFACE_CAP_SEND_RECEIVE)
    hints->caps |= FI_MSG | FI_SEND | FI_RECV;
  if (role == MXL_ROLE_TARGET && (desc->rx_mode & FI_RX_CQ_DATA))
    hints->caps |= FI_MSG | FI_RECV;     /* receives to consume immediate data */
  /* Connectionless with remote access: claims read the target's owner
   * word (claim.h). */
  if (desc->ep_type == FI_EP_RDM && (caps & FI_RMA))
    hints->caps |= role == MXL_ROLE_TARGET ? FI_REMOTE_READ : FI_READ;
  hints->domain_attr->mr_mode =
      FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
  hints->mode = FI_CONTEXT | FI_CONTEXT2 | desc->rx_mode;
  hints->rx_attr->mode = desc->rx_mode;
  if (node != NULL)
    hints->addr_format = node_addr_format (desc, node);
  *out_hints = hints;
  return MXL_STATUS_OK;
}

mxlStatus
mxl_provider_getinfo_exact (const mxlFabricsInterfaceConfig *config, MxlRole role,
    uint64_t caps, struct fi_info **out_info, GError **error)
{
  struct fi_info *hints = NULL, *info = NULL;
  const char *service;
  char port[8];
  mxlStatus st;
  int rc;

  st = mxl_provider_build_hints (config, role, caps, &hints, error);
  if (st != MXL_STATUS_OK)
    return st;
  /* validated by mxl_provider_build_hints(): cannot fail here */
  service = resolve_service (mxl_provider_lookup (config->provider),
      config->address.service, port, NULL);
  rc = fi_getinfo (MXL_FI_VERSION, config->address.node, service, FI_SOURCE,
      hints, &info);
  fi_freeinfo (hints);
  if (rc != 0) {
    mxl_ofi_fail (rc, "fi_getinfo", error);
    return rc == -FI_ENODATA ? MXL_ERR_NO_FABRIC : mxl_ofi_status (rc);
  }
  /* The first entry is used (docs/wire-format.md §5.3); the rest is freed. */
  if (info->next != NULL) {
    fi_freeinfo (info->next);
    info->next = NULL;
  }
  if ((info->caps & caps) != caps) {
    fi_freeinfo (info);
    g_set_error (error, MXL_OFI_ERROR, 0, "provider lacks a capability asked for "
        "(%s)", (caps & FI_RMA) ? "RMA write" : (caps & FI_TAGGED) ? "tagged messages"
        : "messages");
    return MXL_ERR_UNSUPPORTED_OPERATION;
  }
  if (info->domain_attr->cq_data_size < 4) {
    fi_freeinfo (info);
    g_set_error (error, MXL_OFI_ERROR, 0,
        "provider carries no 32-bit immediate data (cq_data_size < 4)");
    return MXL_ERR_NO_FABRIC;
  }
  *out_info = info;
  return MXL_STATUS_OK;
}

uint64_t
mxl_provider_info_caps (const struct fi_info *info)
{
  uint64_t flags = MXL_FABRICS_IFACE_CAP_BLOCKING_OPERATIONS;

  if (info->caps & (FI_SEND | FI_RECV | FI_MSG))
    flags |= MXL_FABRICS_IFACE_CAP_SEND_RECEIVE;
  if (info->caps & (FI_REMOTE_WRITE | FI_WRITE | FI_RMA))
    flags |= MXL_FABRICS_IFACE_CAP_REMOTE_WRITE;
  return flags;
}

gboolean
mxl_provider_info_passes_filter (const MxlProviderDesc *desc,
    const struct fi_info *info)
{
  if (info->ep_attr == NULL || info->ep_attr->type != desc->ep_type)
    return FALSE;
  if (info->ep_attr->protocol != desc->protocol)
    return FALSE;
  if (info->addr_format != desc->addr_formats[0]
      && (desc->addr_formats[1] == 0 || info->addr_format != desc->addr_formats[1]))
    return FALSE;
  if ((info->caps & desc->filter_required_caps) != desc->filter_required_caps)
    return FALSE;
  if (info->caps & desc->filter_rejected_caps)
    return FALSE;
  if (!(info->caps & FI_RMA))
    return FALSE;
  if (info->domain_attr == NULL || info->domain_attr->cq_data_size < 4)
    return FALSE;
  return TRUE;
}

/* The text after the first ':' after the scheme of a string address,
 * "fi_ns://node:service" → "service". */
static char *
string_address_service (const struct fi_info *info)
{
  const char *s, *colon;

  if (info->src_addr == NULL || info->addr_format != FI_ADDR_STR)
    return g_strdup ("");
  s = info->src_addr;
  if (strnlen (s, info->src_addrlen) == info->src_addrlen)
    return g_strdup ("");
  if ((colon = strstr (s, "://")) != NULL)
    s = colon + 3;
  colon = strchr (s, ':');
  return g_strdup (colon ? colon + 1 : "");
}

static char *
interface_node (const MxlProviderDesc *desc, const struct fi_info *info)
{
  if (desc->node_kind == MXL_NODE_NAME) {
    char host[256] = "";
    gethostname (host, sizeof (host) - 1);
    return g_strdup (host);
  }
  if (info->src_addr == NULL)
    return NULL;
  return mxl_fabric_address_host (info->addr_format, info->src_addr,
      info->src_addrlen);
}

static void
add_string (GTree *tree, const char *key, const char *value)
{
  if (value != NULL && *value != '\0')
    g_tree_insert (tree, (gpointer) key, json_node_init_string (json_node_alloc (), value));
}

static void
add_int (GTree *tree, const char *key, gint64 value)
{
  g_tree_insert (tree, (gpointer) key, json_node_init_int (json_node_alloc (), value));
}

static gboolean
add_member (gpointer key, gpointer value, gpointer data)
{
  json_object_set_member (data, key, json_node_copy (value));
  return FALSE;
}

static gint
compare_keys (gconstpointer a, gconstpointer b, gpointer unused)
{
  return strcmp (a, b);
}

/* Compact JSON object with keys in lexicographic order (docs/wire-format.md §5.4). */
static char *
interface_attr (const MxlProviderDesc *desc, const struct fi_info *info)
{
  GTree *tree = g_tree_new_full (compare_keys, NULL, NULL,
      (GDestroyNotify) json_node_unref);
  JsonObject *obj;
  JsonNode *root;
  char *text = NULL;

  add_string (tree, "ep_addr_format", fi_tostr (&info->addr_format, FI_TYPE_ADDR_FORMAT));
  add_string (tree, "ep_protocol", fi_tostr (&info->ep_attr->protocol, FI_TYPE_PROTOCOL));
  add_string (tree, "ep_type", fi_tostr (&info->ep_attr->type, FI_TYPE_EP_TYPE));
  add_string (tree, "fi_domain_name", info->domain_attr->name);
  add_int (tree, "fi_domain_cq_cnt", (gint64) info->domain_attr->cq_cnt);
  add_int (tree, "fi_domain_ep_cnt", (gint64) info->domain_attr->ep_cnt);
  add_int (tree, "fi_domain_mr_cnt", (gint64) info->domain_attr->mr_cnt);
  if (info->nic != NULL && info->nic->device_attr != NULL) {
    struct fi_device_attr *dev = info->nic->device_attr;
    add_string (tree, "device_name", desc->device_is_domain
        ? info->domain_attr->name : dev->name);
    add_string (tree, "device_id", dev->device_id);
    add_string (tree, "device_vendor_id", dev->vendor_id);
    add_string (tree, "device_version", dev->device_version);
    add_string (tree, "device_driver", dev->driver);
    add_string (tree, "device_firmware", dev->firmware);
  }
  if (info->nic != NULL && info->nic->link_attr != NULL) {
    struct fi_link_attr *link = info->nic->link_attr;
    add_string (tree, "link_state", link->state == FI_LINK_UP ? "up"
        : link->state == FI_LINK_DOWN ? "down" : "unknown");
    if (link->speed != 0)
      add_int (tree, "link_speed", (gint64) link->speed);
    add_string (tree, "link_address", link->address);
    add_string (tree, "link_type", link->network_type);
  }
  if (g_tree_nnodes (tree) > 0) {
    obj = json_object_new ();
    g_tree_foreach (tree, add_member, obj);
    root = json_node_init_object (json_node_alloc (), obj);
    text = json_to_string (root, FALSE);
    json_node_unref (root);
    json_object_unref (obj);
  }
  g_tree_destroy (tree);
  return text;
}

static gboolean
node_matches (const MxlProviderDesc *desc, const struct fi_info *info,
    const char *query_node)
{
  char *node;
  gboolean match;

  if (query_node == NULL)
    return TRUE;
  if (node_addr_format (desc, query_node) == 0)
    return FALSE;
  node = interface_node (desc, info);
  if (node == NULL)
    return FALSE;
  if (desc->node_kind == MXL_NODE_NAME) {
    match = strcmp (node, query_node) == 0;
  } else {
    /* Compare canonical forms so "::1" and "0::1" are the same node. */
    guint8 a[16], b[16];
    int family = strchr (query_node, ':') ? AF_INET6 : AF_INET;
    match = inet_pton (family, query_node, a) == 1 && inet_pton (family, node, b) == 1
        && memcmp (a, b, family == AF_INET6 ? 16 : 4) == 0;
  }
  g_free (node);
  return match;
}

static gboolean
interface_listed (const mxlFabricsInterfaceList *list, const mxlFabricsInterfaceConfig *c)
{
  for (; list != NULL; list = list->next) {
    const mxlFabricsInterfaceConfig *o = &list->interface;
    if (o->provider == c->provider && o->caps.flags == c->caps.flags
        && o->caps.maxMessageSize == c->caps.maxMessageSize
        && g_strcmp0 (o->address.node, c->address.node) == 0
        && g_strcmp0 (o->address.service, c->address.service) == 0
        && g_strcmp0 (o->attr, c->attr) == 0)
      return TRUE;
  }
  return FALSE;
}

mxlStatus
mxl_provider_list_interfaces (const mxlFabricsInterfaceConfig *query,
    mxlFabricsInterfaceList **out_list, GError **error)
{
  struct fi_info *all = NULL;
  mxlFabricsInterfaceList *head = NULL, **tail = &head;
  mxlFabricsProvider want = query ? query->provider : MXL_FABRICS_PROVIDER_ANY;
  const char *want_node = query ? query->address.node : NULL;
  int rc;

  if (want != MXL_FABRICS_PROVIDER_ANY && mxl_provider_lookup (want) == NULL) {
    g_set_error (error, MXL_OFI_ERROR, 0, "unknown provider %d", want);
    return MXL_ERR_INVALID_ARG;
  }
  rc = fi_getinfo (MXL_FI_VERSION, NULL, NULL, 0, NULL, &all);
  if (rc == -FI_ENODATA) {
    *out_list = NULL;
    return MXL_STATUS_OK;
  }
  if (rc != 0)
    return mxl_ofi_fail (rc, "fi_getinfo", error);

  for (struct fi_info *info = all; info != NULL; info = info->next) {
    const MxlProviderDesc *desc = mxl_provider_lookup_prov_name (
        info->fabric_attr ? info->fabric_attr->prov_name : NULL);
    mxlFabricsInterfaceList *item;
    char *node;

    if (desc == NULL)
      continue;
    /* "tcp;ofi_rxm" is listed only when asked for by name (extension). */
    if (desc->extension && want != desc->provider)
      continue;
    if (want != MXL_FABRICS_PROVIDER_ANY && want != desc->provider)
      continue;
    if (!mxl_provider_info_passes_filter (desc, info))
      continue;
    if (!node_matches (desc, info, want_node))
      continue;
    node = interface_node (desc, info);
    item = g_new0 (mxlFabricsInterfaceList, 1);
    item->interface.attr = interface_attr (desc, info);
    item->interface.version = MXL_FABRICS_API_VERSION;
    item->interface.provider = desc->provider;
    item->interface.caps.version = MXL_FABRICS_API_VERSION;
    item->interface.caps.flags = mxl_provider_info_caps (info);
    item->interface.caps.maxMessageSize = info->ep_attr->max_msg_size;
    item->interface.address.node = node ? node : g_strdup ("");
    item->interface.address.service = desc->node_kind == MXL_NODE_NAME
        ? string_address_service (info) : g_strdup ("");
    /* Some providers (tcp;ofi_rxm) list one interface several times with
     * capability variants: report each reported tuple once. */
    if (interface_listed (head, &item->interface)) {
      mxl_provider_free_interfaces (item);
      continue;
    }
    *tail = item;
    tail = &item->next;
  }
  fi_freeinfo (all);
  *out_list = head;
  return MXL_STATUS_OK;
}

void
mxl_provider_free_interfaces (mxlFabricsInterfaceList *list)
{
  while (list != NULL) {
    mxlFabricsInterfaceList *next = list->next;
    g_free ((char *) list->interface.address.node);
    g_free ((char *) list->interface.address.service);
    g_free ((char *) list->interface.attr);
    g_free (list);
    list = next;
  }
}
