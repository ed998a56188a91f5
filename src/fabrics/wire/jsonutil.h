/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Small json-glib helpers shared by the TargetInfo and setup-options parsers:
 * parse a document whose root must be an object (with a nesting-depth guard,
 * since json-glib's parser recurses once per level), and typed member access
 * that names the offending key in its error.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

/** Deepest object/array nesting accepted by mxl_json_parse_object(). */
#define MXL_JSON_MAX_DEPTH 32

/**
 * mxl_json_parse_object:
 * @text: NUL-terminated JSON text.
 * @what: what the document is ("TargetInfo", "setup options"), for messages.
 * @error: (out): G_IO_ERROR_INVALID_DATA with a reason on failure.
 *
 * Returns: (transfer full) (nullable): the root object (json_object_unref()),
 * or NULL for malformed JSON, nesting deeper than MXL_JSON_MAX_DEPTH, an empty
 * document or a root that is not an object.
 */
JsonObject *mxl_json_parse_object (const char *text, const char *what,
    GError **error);

/**
 * mxl_json_value_type:
 * Returns: the GType of a JSON scalar node (G_TYPE_INT64, G_TYPE_DOUBLE,
 * G_TYPE_BOOLEAN, G_TYPE_STRING), or G_TYPE_INVALID for null, objects and
 * arrays.
 */
GType mxl_json_value_type (JsonNode *node);

/**
 * mxl_json_node_to_uint64:
 * Reads a JSON number that must be a non-negative integer: an integer
 * literal, or a floating literal with an integral value (64.0) that fits.
 * Returns: FALSE (nothing written) for other types, fractions, negatives.
 */
gboolean mxl_json_node_to_uint64 (JsonNode *node, guint64 *out);
