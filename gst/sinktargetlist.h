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
 * Splits @value into its sources. Sources are separated by ';' or ',':
 * a JSON source (one starting with '{') runs to its matching '}' (strings
 * and their escapes honoured), so separators inside it (a provider
 * "tcp;ofi_rxm", the commas of JSON) never split it; base64 holds neither
 * separator; an @path runs to the next ';', a ',' ends it only when the
 * next source starts right after it ('@' or '{', spaces allowed), since a
 * file name may hold commas. Spaces around a source are dropped, empty
 * ones skipped. A value with one source is returned as it is.
 *
 * Returns: (transfer full): the sources, NULL-terminated (g_strfreev);
 *   none for an empty value.
 */
gchar **gst_mxl_fabrics_sink_split_target_info (const gchar * value);

G_END_DECLS
