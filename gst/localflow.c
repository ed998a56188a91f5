/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Local domain, instances and flow; see localflow.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "localflow.h"

#include <string.h>

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
