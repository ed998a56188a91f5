/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The local side shared by both elements: the MXL domain (given, or a
 * private one removed at close), the MXL and fabrics instances, the flow
 * (writer + reader on the same flow, its ring prefaulted when created
 * here). The choice of provider and the interface config are the open's
 * (mxlfabricsopen.c, from mxlFabricsExtChooseInterface()); format and
 * status knowledge is the library's (caps.c, mxlExtStatusName()).
 */
#pragma once

#include <gst/gst.h>

#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>
#include <mxl/flow-ext.h>
#include <mxl/flow.h>
#include <mxl/mxl.h>

#include "mxlfabricsobject.h"

G_BEGIN_DECLS

typedef struct {
  mxlPrivateDomain private_domain;      /* NULL when `domain` was given */
  mxlInstance instance;
  mxlFabricsInstance fabrics;
  mxlFlowWriter writer;
  mxlFlowReader reader;
  gchar *flow_id;
  mxlFlowConfigInfo config;             /* geometry of the flow as created */
} GstMxlFabricsLocalFlow;

/**
 * gst_mxl_fabrics_local_flow_open_ring:
 * @flow: (out): zero-initialised by the caller, filled on success.
 * @domain: domain directory; "" or NULL for a private domain under
 *   MXL_PRIVATE_DOMAIN_PARENT.
 * @flow_def: NMOS flow JSON (caps.c generated or user given).
 * @grain_count: ring slots of a video or ANC flow this call creates; 0 =
 *   automatic: the ring of the domain's history, at least
 *   MXL_FLOW_MIN_GRAIN_COUNT grains (mxlCreateFlowWriterWithGrainCount), so
 *   rates below 5 Hz work. A flow that already exists in @domain keeps its
 *   ring (flow->config tells).
 * @error: every error is in the GST_RESOURCE_ERROR domain:
 *   _SETTINGS when @flow_def is not a flow definition the library accepts
 *   (gst_mxl_fabrics_format_from_flow_def(), naming the field), or a flow
 *   of that id already exists in @domain with another geometry
 *   (MXL_ERR_CONFLICT); _NOT_FOUND when @domain is not an existing
 *   directory (mxlCreateInstance() refused it); _OPEN_READ_WRITE when no
 *   private domain can be created under MXL_PRIVATE_DOMAIN_PARENT, when the
 *   flow writer is refused for another reason (the mxlStatus name and the
 *   library's system error, e.g. a full tmpfs, in the message), or when the
 *   flow reader or the fabrics instance cannot be made.
 *
 * Creates the instances and the flow, and a reader on it (the initiator
 * reads its grains; the src copies grains out through it). On failure
 * everything already created is released.
 */
gboolean gst_mxl_fabrics_local_flow_open_ring (GstMxlFabricsLocalFlow * flow,
    const gchar * domain, const gchar * flow_def, guint grain_count,
    GError ** error);

/** Releases everything; safe on a partly opened or zeroed @flow. */
void gst_mxl_fabrics_local_flow_close (GstMxlFabricsLocalFlow * flow);

/** Returns: (transfer none): the library's short name of an mxlStatus,
 * for messages (mxlExtStatusName()). */
static inline const gchar *
gst_mxl_fabrics_status_name (mxlStatus status)
{
  return mxlExtStatusName (status);
}

G_END_DECLS
