/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The src's HTTP endpoint (libsoup 3): GET or HEAD of /target-info,
 * /flow-def and /stats, answered on a GMainContext of the server's own
 * thread, never on the streaming thread or in a state change. The bodies
 * come from the element (GstMxlFabricsHttpBodyFunc), which reads them where
 * its properties read them. Security: docs/security.md "The HTTP endpoint".
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

typedef enum {
  GST_MXL_FABRICS_HTTP_TARGET_INFO,     /* /target-info, application/json */
  GST_MXL_FABRICS_HTTP_FLOW_DEF,        /* /flow-def, application/json */
  GST_MXL_FABRICS_HTTP_STATS,   /* /stats, application/json */
} GstMxlFabricsHttpResource;

/**
 * GstMxlFabricsHttpBodyFunc:
 * @data: the element.
 * @what: the resource asked for.
 * @reason: (out) (transfer full): when NULL is returned, why (the 503
 *   answer's text).
 *
 * Called on the server's thread without any lock held by the server.
 * Returns: (transfer full) (nullable): the body, NULL while it has none.
 */
typedef gchar *(*GstMxlFabricsHttpBodyFunc) (gpointer data,
    GstMxlFabricsHttpResource what, gchar ** reason);

typedef struct _GstMxlFabricsHttpServer GstMxlFabricsHttpServer;

/**
 * gst_mxl_fabrics_http_server_start:
 * @address: the address to bind (IPv4 or IPv6 literal), e.g. 127.0.0.1.
 * @port: the TCP port, 1-65535.
 * @body: where the bodies come from; @data its first argument.
 * @error: GST_RESOURCE_ERROR_OPEN_READ for a bind that fails (a port in
 *   use: the message names the address and the port),
 *   GST_RESOURCE_ERROR_SETTINGS for an address that is not a literal.
 *
 * Starts the server thread and waits for its socket to be bound (a local
 * bind(), no network wait).
 * Returns: (transfer full) (nullable): the server, NULL on error.
 */
GstMxlFabricsHttpServer *gst_mxl_fabrics_http_server_start (const gchar *
    address, guint port, GstMxlFabricsHttpBodyFunc body, gpointer data,
    GError ** error);

/** Stops the server (its thread quits, the socket is closed) and frees it;
 * NULL is ignored. Requests being answered finish first. */
void gst_mxl_fabrics_http_server_stop (GstMxlFabricsHttpServer * server);

/**
 * gst_mxl_fabrics_stats_to_json:
 * @s: a stats structure (gst_mxl_fabrics_object_build_stats()).
 *
 * The structure as one JSON object: each field under its name; integers
 * and doubles as numbers, booleans, strings, enums as their nick, nested
 * structures as objects, arrays as arrays, anything else as the string
 * gst_value_serialize() gives (docs/bus-and-stats.md "Over HTTP").
 * Returns: (transfer full): the JSON text.
 */
gchar *gst_mxl_fabrics_stats_to_json (const GstStructure * s);

G_END_DECLS
