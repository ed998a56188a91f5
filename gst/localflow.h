/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The local side shared by both elements: the MXL domain (given, or a
 * private one removed at close), the MXL and fabrics instances, the flow
 * (writer + reader on the same flow), and the choice of provider. Format
 * and status knowledge is the library's (caps.c, mxlExtStatusName()).
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
 * gst_mxl_fabrics_local_flow_open:
 * @flow: (out): zero-initialised by the caller, filled on success.
 * @domain: domain directory; "" or NULL for a private domain under
 *   MXL_PRIVATE_DOMAIN_PARENT.
 * @flow_def: NMOS flow JSON (caps.c generated or user given).
 * @error: GST_RESOURCE_ERROR_OPEN_READ_WRITE (domain missing, flow writer
 *   refused, with the mxlStatus in the message) or _SETTINGS (a flow of that
 *   id already exists in @domain with another geometry).
 *
 * Creates the instances and the flow, and a reader on it (the initiator
 * reads its grains; the src copies grains out through it). A video or
 * ANC flow gets the ring of the domain's history, at least
 * MXL_FLOW_MIN_GRAIN_COUNT grains (mxlCreateFlowWriterWithGrainCount), so
 * rates below 5 Hz work. On failure everything already created is
 * released.
 */
gboolean gst_mxl_fabrics_local_flow_open (GstMxlFabricsLocalFlow * flow,
    const gchar * domain, const gchar * flow_def, GError ** error);

/**
 * gst_mxl_fabrics_local_flow_open_ring:
 * @grain_count: ring slots of a video or ANC flow this call creates; 0 =
 *   automatic as gst_mxl_fabrics_local_flow_open(). A flow that already
 *   exists in @domain keeps its ring (flow->config tells).
 *
 * As gst_mxl_fabrics_local_flow_open(); the same errors.
 */
gboolean gst_mxl_fabrics_local_flow_open_ring (GstMxlFabricsLocalFlow * flow,
    const gchar * domain, const gchar * flow_def, guint grain_count,
    GError ** error);

/** Releases everything; safe on a partly opened or zeroed @flow. */
void gst_mxl_fabrics_local_flow_close (GstMxlFabricsLocalFlow * flow);

/**
 * gst_mxl_fabrics_pick_provider:
 * @want: the `provider` property; AUTO picks the best interface present
 *   (mxlFabricsGetInterfaces()) in the library's order
 *   (mxlFabricsExtGetProvider() autoRank: efa, verbs, tcp, shm; tcp;ofi_rxm
 *   only when named).
 * @out: (out): the library provider value.
 * @node: (inout): the `node` property; when empty it is replaced by the
 *   default: for shm a name unique to this element instance
 *   ("mxlfabrics-<pid>-<n>"), otherwise the first non-loopback address that
 *   mxlFabricsGetInterfaces() lists for the provider (else its first).
 * @error: GST_RESOURCE_ERROR_NOT_FOUND naming the provider that is absent.
 */
gboolean gst_mxl_fabrics_pick_provider (mxlFabricsInstance fabrics,
    GstMxlFabricsProvider want, mxlFabricsProvider * out, gchar ** node,
    GError ** error);

/**
 * gst_mxl_fabrics_interface_config:
 * Fills @config for @provider with @node and @service ("" = NULL: libfabric
 * chooses; see the `node` property docs).
 */
void gst_mxl_fabrics_interface_config (mxlFabricsInterfaceConfig * config,
    mxlFabricsProvider provider, const gchar * node, const gchar * service);

/** Returns: (transfer none): the library's short name of an mxlStatus,
 * for messages (mxlExtStatusName()). */
static inline const gchar *
gst_mxl_fabrics_status_name (mxlStatus status)
{
  return mxlExtStatusName (status);
}

G_END_DECLS
