/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The `mxlfabrics://` URI of both elements (GstURIHandler): parsing a URI
 * into the elements' properties and building one from them. The scheme,
 * its keys and what is refused are described in docs/getting-started.md
 * "3. URIs" and in the elements' SECTION blocks (mxlfabricssrc.c,
 * mxlfabricssink.c); the parsing is GStreamer's GstUri.
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_MXL_FABRICS_URI_SCHEME "mxlfabrics"

/**
 * gst_mxl_fabrics_uri_handler_init:
 * The GInterfaceInitFunc of GST_TYPE_URI_HANDLER for both elements (pass
 * it to G_IMPLEMENT_INTERFACE): protocol "mxlfabrics", type GST_URI_SRC
 * for a GstBaseSrc (mxlfabricssrc), GST_URI_SINK otherwise.
 */
void gst_mxl_fabrics_uri_handler_init (gpointer g_iface, gpointer iface_data);

/**
 * gst_mxl_fabrics_uri_apply:
 * @element: an mxlfabricssrc or mxlfabricssink, in state NULL or READY.
 * @uri: the URI.
 * @error: GST_URI_ERROR_UNSUPPORTED_PROTOCOL for another scheme;
 *   GST_URI_ERROR_BAD_STATE above READY; GST_URI_ERROR_BAD_URI for text
 *   GstUri cannot parse, a port above 65535, user info, a path or a
 *   fragment, an unknown or repeated key, a key without a value, a value
 *   the property refuses (not a number, out of range, an unknown provider,
 *   caps that do not parse) and, for the sink, a URI without target-info.
 *
 * Sets the properties the URI names (keys percent-decoded by GstUri) and
 * resets every other property the scheme covers to its default, so that
 * the URI alone says how the element is set. Nothing is set on an error.
 *
 * Returns: TRUE on success.
 */
gboolean gst_mxl_fabrics_uri_apply (GstElement * element, const gchar * uri,
    GError ** error);

/**
 * gst_mxl_fabrics_uri_build:
 * Returns: (transfer full): the URI of @element's current settings: the
 *   authority, then a key for every property of the scheme that is not at
 *   its default, percent-encoded (RFC 3986: a space is %20, "+" is %2B).
 */
gchar *gst_mxl_fabrics_uri_build (GstElement * element);

/** Installs the read-write `uri` property as @prop_id (srtsrc and udpsrc
 * expose theirs so, for gst-launch-1.0 and applications). */
void gst_mxl_fabrics_uri_install_property (GObjectClass * klass,
    guint prop_id);

/** The `uri` property: set applies the URI (a refused one leaves the
 * element as it was and is logged as a g_warning with the reason); get
 * builds it. */
void gst_mxl_fabrics_uri_set_property (GstElement * element,
    const GValue * value);
void gst_mxl_fabrics_uri_get_property (GstElement * element, GValue * value);

G_END_DECLS
