/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sink's target-info list (sinktargetlist.c): one value, several
 * TargetInfo sources, each added as add-target adds one.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * gst_mxl_fabrics_sink_split_target_info:
 * @value: the target-info property: one source (JSON, base64 of the JSON,
 *   or @path) or several.
 *
 * Splits @value into its sources by the library's rule
 * (mxlFabricsExtSplitTargetInfoList(), <mxl/fabrics-ext.h>: ';' or ',',
 * a JSON source to its closing brace, a ',' ending an @path only before
 * '@' or '{'; one source returned as given).
 *
 * Returns: (transfer full): the sources, NULL-terminated (g_strfreev);
 *   none for an empty value.
 */
gchar **gst_mxl_fabrics_sink_split_target_info (const gchar * value);

G_END_DECLS
