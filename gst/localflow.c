/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Local domain, instances, flow and provider choice; see localflow.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "localflow.h"

#include <string.h>
#include <unistd.h>

#include "caps.h"

void
gst_mxl_fabrics_local_flow_close (GstMxlFabricsLocalFlow * flow)
{
  if (flow->fabrics)
    mxlFabricsDestroyInstance (flow->fabrics);
  if (flow->reader)
    mxlReleaseFlowReader (flow->instance, flow->reader);
  if (flow->writer)
    mxlReleaseFlowWriter (flow->instance, flow->writer);
  if (flow->instance)
    mxlDestroyInstance (flow->instance);
  if (flow->private_domain)
    mxlPrivateDomainDestroy (flow->private_domain);
  g_free (flow->flow_id);
  memset (flow, 0, sizeof *flow);
}

/* Touches every grain slot of a flow this element just created (written,
 * then the grain cancelled: nothing is committed), so that the tmpfs pages
 * are allocated now and not while the first ring's worth of grains is
 * copied in or received: those page faults made the first frames of a
 * stream several milliseconds late (bench/run-pipelines.sh). Never done to
 * a flow that already existed: another writer may be using it. */
static void
prefault (GstMxlFabricsLocalFlow * flow)
{
  guint32 i;

  if (!mxlIsDiscreteDataFormat ((int) flow->config.common.format))
    return;
  for (i = 0; i < flow->config.discrete.grainCount; i++) {
    mxlGrainInfo info;
    uint8_t *payload = NULL;

    if (mxlFlowWriterOpenGrain (flow->writer, i, &info, &payload)
        != MXL_STATUS_OK)
      return;
    memset (payload, 0, info.grainSize);
    mxlFlowWriterCancelGrain (flow->writer);
  }
}

gboolean
gst_mxl_fabrics_local_flow_open (GstMxlFabricsLocalFlow * flow,
    const gchar * domain, const gchar * flow_def, GError ** error)
{
  return gst_mxl_fabrics_local_flow_open_ring (flow, domain, flow_def, 0,
      error);
}

gboolean
gst_mxl_fabrics_local_flow_open_ring (GstMxlFabricsLocalFlow * flow,
    const gchar * domain, const gchar * flow_def, guint grain_count,
    GError ** error)
{
  GstMxlFabricsFormat fmt;
  const gchar *path;
  bool created = false;
  mxlStatus st;

  memset (flow, 0, sizeof *flow);
  if (!gst_mxl_fabrics_format_from_flow_def (flow_def, &fmt, &flow->flow_id,
          error))
    return FALSE;
  if (domain == NULL || domain[0] == '\0') {
    st = mxlPrivateDomainCreate (NULL, &flow->private_domain);
    if (st != MXL_STATUS_OK) {
      g_set_error (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_OPEN_READ_WRITE, "cannot create a private MXL "
          "domain under " MXL_PRIVATE_DOMAIN_PARENT " (%s): set the domain "
          "property to a writable tmpfs directory",
          gst_mxl_fabrics_status_name (st));
      goto fail;
    }
    path = mxlPrivateDomainGetPath (flow->private_domain);
  } else {
    path = domain;
  }
  flow->instance = mxlCreateInstance (path, NULL);
  if (flow->instance == NULL) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "MXL domain \"%s\" is not an existing directory (property domain)",
        path);
    goto fail;
  }
  st = mxlCreateFlowWriterWithGrainCount (flow->instance, flow_def, NULL,
      grain_count, &flow->writer, &flow->config, &created);
  if (st != MXL_STATUS_OK) {
    if (st == MXL_ERR_CONFLICT)
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "flow %s already exists in domain \"%s\" with another geometry: "
          "use another flow-id or remove the old flow", flow->flow_id, path);
    else if (mxlGetLastErrorMessage () != NULL)
      /* the system error behind the status, e.g. a full domain tmpfs */
      g_set_error (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_OPEN_READ_WRITE, "cannot create flow %s in "
          "domain \"%s\": %s: %s", flow->flow_id, path,
          gst_mxl_fabrics_status_name (st), mxlGetLastErrorMessage ());
    else
      g_set_error (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_OPEN_READ_WRITE, "cannot create flow %s in "
          "domain \"%s\": %s", flow->flow_id, path,
          gst_mxl_fabrics_status_name (st));
    goto fail;
  }
  if (created)
    prefault (flow);
  st = mxlCreateFlowReader (flow->instance, flow->flow_id, NULL,
      &flow->reader);
  if (st == MXL_STATUS_OK)
    st = mxlFabricsCreateInstance (flow->instance, NULL, &flow->fabrics);
  if (st != MXL_STATUS_OK) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ_WRITE,
        "cannot open flow %s for reading or the fabrics instance: %s",
        flow->flow_id, gst_mxl_fabrics_status_name (st));
    goto fail;
  }
  return TRUE;

fail:
  gst_mxl_fabrics_local_flow_close (flow);
  return FALSE;
}

/* Rank of @p when @want is asked for: lower is better, G_MAXINT never.
 * auto follows the library's order (mxlFabricsExtGetProvider() autoRank;
 * 0 there = only when named); a named provider takes its own interfaces. */
static gint
provider_rank (mxlFabricsProvider p, GstMxlFabricsProvider want)
{
  mxlFabricsExtProviderInfo info;
  size_t i;

  if (want != GST_MXL_FABRICS_PROVIDER_AUTO)
    return (gint) p == (gint) want ? 0 : G_MAXINT;
  for (i = 0; mxlFabricsExtGetProvider (i, &info) == MXL_STATUS_OK; i++)
    if (info.provider == p)
      return info.autoRank > 0 ? (gint) info.autoRank : G_MAXINT;
  return G_MAXINT;
}

static gboolean
is_loopback (const gchar * node)
{
  return node == NULL || g_str_has_prefix (node, "127.")
      || g_strcmp0 (node, "::1") == 0;
}

gboolean
gst_mxl_fabrics_pick_provider (mxlFabricsInstance fabrics,
    GstMxlFabricsProvider want, mxlFabricsProvider * out, gchar ** node,
    GError ** error)
{
  mxlFabricsInterfaceList *list = NULL, *l;
  mxlFabricsInterfaceConfig query;
  gint best = G_MAXINT;

  memset (&query, 0, sizeof query);
  query.version = MXL_FABRICS_API_VERSION;
  query.provider = (mxlFabricsProvider) want;   /* AUTO == ANY */
  if (mxlFabricsGetInterfaces (fabrics, &query, &list) != MXL_STATUS_OK)
    list = NULL;
  for (l = list; l; l = l->next) {
    gint rank = provider_rank (l->interface.provider, want);
    if (rank < best) {
      best = rank;
      *out = l->interface.provider;
    }
  }
  if (best != G_MAXINT && node && (*node == NULL || (*node)[0] == '\0')) {
    const gchar *pick = NULL;

    /* The first non-loopback address of that provider, else the first. */
    for (l = list; l; l = l->next) {
      const gchar *n = l->interface.address.node;
      if (l->interface.provider != *out || n == NULL || n[0] == '\0')
        continue;
      if (pick == NULL || (is_loopback (pick) && !is_loopback (n)))
        pick = n;
    }
    g_free (*node);
    if (*out == MXL_FABRICS_PROVIDER_SHM || pick == NULL) {
      /* shm names its endpoints: one unique name per element instance. */
      static gint counter;
      *node = g_strdup_printf (MXL_FABRICS_EXT_SHM_NODE_PREFIX "%d-%d",
          (int) getpid (), g_atomic_int_add (&counter, 1));
    } else {
      *node = g_strdup (pick);
    }
  }
  mxlFabricsFreeInterfaceList (list);
  if (best == G_MAXINT) {
    GEnumClass *klass = g_type_class_ref (GST_TYPE_MXL_FABRICS_PROVIDER);
    GEnumValue *v = g_enum_get_value (klass, want);

    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
        "no libfabric interface for provider %s on this host: choose another "
        "provider (fi_info -l lists what libfabric finds)",
        v ? v->value_nick : "?");
    g_type_class_unref (klass);
    return FALSE;
  }
  return TRUE;
}

void
gst_mxl_fabrics_interface_config (mxlFabricsInterfaceConfig * config,
    mxlFabricsProvider provider, const gchar * node, const gchar * service)
{
  memset (config, 0, sizeof *config);
  config->version = MXL_FABRICS_API_VERSION;
  config->provider = provider;
  config->caps.version = MXL_FABRICS_API_VERSION;
  /* Remote write with immediate data (the "write" protocol); blocking reads
   * let the src wait on the completion queue instead of spinning. */
  config->caps.flags = MXL_FABRICS_IFACE_CAP_REMOTE_WRITE
      | MXL_FABRICS_IFACE_CAP_BLOCKING_OPERATIONS;
  config->address.node = node && node[0] ? node : NULL;
  config->address.service = service && service[0] ? service : NULL;
}
