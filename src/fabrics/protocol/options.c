/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Setup options of targets and initiators (see options.h): one table of keys,
 * each with its reader, so adding an option is one row and one function.
 */
#include "fabrics/protocol/options.h"

#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>

#include "fabrics/protocol/protocol.h"
#include "fabrics/wire/jsonutil.h"

#include <mxl/fabrics-ext.h>

typedef gboolean (*OptionReader) (JsonNode *node, const char *key,
    MxlSetupOptions *out, GError **error);

static gboolean
bad (GError **error, const char *key, const char *what)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
      "setup options: \"%s\" must be %s", key, what);
  return FALSE;
}

/* An integer in [min, max], named in the error when it is not. */
static gboolean
read_ranged (JsonNode *node, const char *key, guint64 min, guint64 max,
    guint64 *out, GError **error)
{
  g_autofree char *what = NULL;
  guint64 v;

  if (!mxl_json_node_to_uint64 (node, &v) || v < min || v > max) {
    what = g_strdup_printf ("an integer from %" G_GUINT64_FORMAT " to %"
        G_GUINT64_FORMAT, min, max);
    return bad (error, key, what);
  }
  *out = v;
  return TRUE;
}

/* A 32-bit field with an integer in [1, max]. */
static gboolean
read_u32_field (JsonNode *node, const char *key, guint32 max, uint32_t *field,
    GError **error)
{
  guint64 v;

  if (!read_ranged (node, key, 1, max, &v, error))
    return FALSE;
  *field = (uint32_t) v;
  return TRUE;
}

static gboolean
read_cq_depth (JsonNode *node, const char *key, MxlSetupOptions *out,
    GError **error)
{
  return read_u32_field (node, key, MXL_MAX_CQ_DEPTH, &out->cq_depth, error);
}

static gboolean
read_max_message_size (JsonNode *node, const char *key, MxlSetupOptions *out,
    GError **error)
{
  return read_ranged (node, key, 1, G_MAXINT64, &out->max_message_size, error);
}

static gboolean
read_iov_limit (JsonNode *node, const char *key, MxlSetupOptions *out,
    GError **error)
{
  return read_u32_field (node, key, MXL_MAX_IOV_LIMIT, &out->iov_limit, error);
}

static gboolean
read_post_ring_capacity (JsonNode *node, const char *key, MxlSetupOptions *out,
    GError **error)
{
  guint64 v;

  if (!mxl_json_node_to_uint64 (node, &v) || v < 2
      || v > MXL_MAX_POST_RING_CAPACITY || (v & (v - 1)) != 0)
    return bad (error, key, "a power of two from 2 to 1048576");
  out->post_ring_capacity = (uint32_t) v;
  return TRUE;
}

static gboolean
read_protocol (JsonNode *node, const char *key, MxlSetupOptions *out,
    GError **error)
{
  g_autoptr (GString) names = NULL;
  const MxlProtocolDesc *p = mxl_json_value_type (node) == G_TYPE_STRING
      ? mxl_protocol_lookup (json_node_get_string (node)) : NULL;

  if (p != NULL) {
    out->protocol = p;
    out->protocol_set = TRUE;
    return TRUE;
  }
  /* The names of the protocol table. */
  names = g_string_new ("one of ");
  mxl_protocol_append_names (names, "\"", ", ");
  return bad (error, key, names->str);
}

static gboolean
read_boolean (JsonNode *node, const char *key, gboolean *out, GError **error)
{
  if (mxl_json_value_type (node) != G_TYPE_BOOLEAN)
    return bad (error, key, "true or false");
  *out = json_node_get_boolean (node);
  return TRUE;
}

static gboolean
read_progress_thread (JsonNode *node, const char *key, MxlSetupOptions *out,
    GError **error)
{
  return read_boolean (node, key, &out->progress_thread, error);
}

static gboolean
read_exclusive (JsonNode *node, const char *key, MxlSetupOptions *out,
    GError **error)
{
  return read_boolean (node, key, &out->exclusive, error);
}

static gboolean
read_samples_staging (JsonNode *node, const char *key, MxlSetupOptions *out,
    GError **error)
{
  return read_boolean (node, key, &out->samples_staging, error);
}

static gboolean
read_reconnect (JsonNode *node, const char *key, MxlSetupOptions *out,
    GError **error)
{
  return read_boolean (node, key, &out->reconnect, error);
}

static gboolean
read_credits (JsonNode *node, const char *key, MxlSetupOptions *out,
    GError **error)
{
  return read_boolean (node, key, &out->credits, error);
}

/* The keys: each with its reader and its row of mxlFabricsExtGetOption()
 * (type, meaning, the defaults mxl_setup_options_defaults() sets, as text;
 * tests/unit/test-options.c checks them against it). */
static const struct {
  OptionReader read;
  mxlFabricsExtOptionInfo info;         /* info.name: the key */
} option_table[] = {
  { read_cq_depth, { "cqDepth", "integer",
      "completion queue entries", "64", NULL } },
  { read_max_message_size, { "maxMessageSize", "integer",
      "bytes per write or message",
      "the provider's max_msg_size", "the provider's max_msg_size" } },
  { read_iov_limit, { "iovLimit", "integer",
      "I/O vector entries per write",
      "the provider's tx iov_limit", "the provider's tx iov_limit" } },
  { read_protocol, { "protocol", "string",
      "the transfer protocol",
      "the lowest targetRank its provider offers", "the TargetInfo's" } },
  { read_progress_thread, { "progressThread", "boolean",
      "the library's progress thread", "false", "false" } },
  { read_post_ring_capacity, { "postRingCapacity",
      "integer", "entries, power of two", NULL, "1024" } },
  { read_samples_staging, { "samplesStaging", "boolean",
      "one write per batch of audio samples", NULL, "true" } },
  { read_exclusive, { "exclusive", "boolean",
      "one sender at a time; false lets several senders write into the flow",
      "true", NULL } },
  { read_reconnect, { "reconnect", "boolean",
      "a lost connection is retried with the back-off", NULL, "false" } },
  { read_credits, { "credits", "boolean",
      "grain flows (connectionless: remote write only): the sender waits for the "
      "reader's releases (mxlFabricsExtTargetReleaseGrain) instead of "
      "overwriting a slot", "false", NULL } },
};

mxlStatus
mxlFabricsExtGetOption (size_t in_index, mxlFabricsExtOptionInfo *out_info)
{
  if (out_info == NULL)
    return MXL_ERR_INVALID_ARG;
  if (in_index >= G_N_ELEMENTS (option_table))
    return MXL_ERR_NOT_FOUND;
  *out_info = option_table[in_index].info;
  return MXL_STATUS_OK;
}

void
mxl_setup_options_defaults (MxlSetupOptions *out)
{
  memset (out, 0, sizeof *out);
  out->cq_depth = MXL_DEFAULT_CQ_DEPTH;
  out->protocol = mxl_protocol_lookup (MXL_TARGET_INFO_DEFAULT_PROTOCOL);
  out->post_ring_capacity = MXL_DEFAULT_POST_RING_CAPACITY;
  out->samples_staging = TRUE;
  out->exclusive = TRUE;
}

mxlStatus
mxl_setup_options_parse (const char *json, MxlSetupOptions *out,
    GError **error)
{
  g_autoptr (JsonObject) root = NULL;
  MxlSetupOptions opts;
  guint i;

  g_return_val_if_fail (out != NULL, MXL_ERR_INVALID_ARG);

  mxl_setup_options_defaults (out);
  if (json == NULL || json[0] == '\0')
    return MXL_STATUS_OK;

  root = mxl_json_parse_object (json, "setup options", error);
  if (root == NULL)
    return MXL_ERR_INVALID_ARG;

  mxl_setup_options_defaults (&opts);
  for (i = 0; i < G_N_ELEMENTS (option_table); i++) {
    JsonNode *node = json_object_get_member (root, option_table[i].info.name);
    if (node != NULL && !option_table[i].read (node, option_table[i].info.name, &opts, error))
      return MXL_ERR_INVALID_ARG;
  }
  *out = opts;
  return MXL_STATUS_OK;
}

mxlStatus
mxl_setup_options_validate (const char *json, GError **error)
{
  g_autoptr (JsonObject) root = NULL;
  g_autoptr (GList) members = NULL;
  MxlSetupOptions opts;

  if (json == NULL || json[0] == '\0')
    return MXL_STATUS_OK;
  root = mxl_json_parse_object (json, "setup options", error);
  if (root == NULL)
    return MXL_ERR_INVALID_ARG;
  members = json_object_get_members (root);
  for (GList *l = members; l != NULL; l = l->next) {
    gboolean known = FALSE;
    for (guint i = 0; i < G_N_ELEMENTS (option_table) && !known; i++)
      known = g_str_equal (option_table[i].info.name, l->data);
    if (!known) {
      GString *keys = g_string_new (NULL);
      for (guint i = 0; i < G_N_ELEMENTS (option_table); i++)
        g_string_append_printf (keys, "%s%s", i ? ", " : "", option_table[i].info.name);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
          "setup options: unknown key \"%s\" (known: %s)", (const char *) l->data,
          keys->str);
      g_string_free (keys, TRUE);
      return MXL_ERR_INVALID_ARG;
    }
  }
  return mxl_setup_options_parse (json, &opts, error);
}

mxlStatus
mxlFabricsExtValidateOptions (char const *in_options, char *out_error, size_t in_error_len)
{
  g_autoptr (GError) error = NULL;
  mxlStatus st = mxl_setup_options_validate (in_options, &error);

  if (out_error != NULL && in_error_len > 0)
    g_strlcpy (out_error, error ? error->message : "", in_error_len);
  return st;
}

mxlStatus
mxlFabricsExtOptionsWithDefaults (char const *in_options, bool in_progressThread,
    bool in_reconnect, char **out_options, bool *out_progressThread)
{
  g_autoptr (JsonObject) root = NULL;
  g_autoptr (JsonNode) node = NULL;
  g_autofree char *text = NULL;
  JsonNode *member;

  if (out_options == NULL)
    return MXL_ERR_INVALID_ARG;
  *out_options = NULL;
  if (out_progressThread != NULL)
    *out_progressThread = in_progressThread;
  if (in_options == NULL || in_options[0] == '\0')
    root = json_object_new ();
  else if ((root = mxl_json_parse_object (in_options, "setup options", NULL)) == NULL)
    return MXL_ERR_INVALID_ARG;
  member = json_object_get_member (root, "progressThread");
  if (member == NULL)
    json_object_set_boolean_member (root, "progressThread", in_progressThread);
  else if (out_progressThread != NULL && JSON_NODE_HOLDS_VALUE (member)
      && json_node_get_value_type (member) == G_TYPE_BOOLEAN)
    *out_progressThread = json_node_get_boolean (member);
  if (in_reconnect)
    json_object_set_boolean_member (root, "reconnect", TRUE);
  node = json_node_init_object (json_node_alloc (), root);
  text = json_to_string (node, FALSE);
  *out_options = strdup (text);
  return *out_options != NULL ? MXL_STATUS_OK : MXL_ERR_UNKNOWN;
}
