/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * TargetInfo <-> JSON (docs/wire-format.md §1). Writing follows §1.2 to the
 * letter (compact, keys in lexicographic order, addressFormat a number,
 * 64-bit values as decimal strings, padded base64) plus our "ext" object;
 * reading follows §1.4 but reports every defect as MXL_ERR_INVALID_ARG with
 * a reason, and rejects an empty region list.
 */
#include "fabrics/wire/targetinfo.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

#include "fabrics/ofi/address.h"
#include "fabrics/wire/base64.h"
#include "fabrics/wire/jsonutil.h"
#include "fabrics/wire/userfile.h"

#include <mxl/fabrics-ext.h>

const char *
mxl_target_info_protocol (const struct mxlFabricsTargetInfo_t *info)
{
  return info->protocol != NULL ? info->protocol : MXL_TARGET_INFO_DEFAULT_PROTOCOL;
}

struct mxlFabricsTargetInfo_t *
mxl_target_info_new (void)
{
  return g_new0 (struct mxlFabricsTargetInfo_t, 1);
}

void
mxl_target_info_free (struct mxlFabricsTargetInfo_t *info)
{
  if (info == NULL)
    return;
  g_free (info->fabric_address);
  g_free (info->provider);
  g_free (info->regions);
  g_free (info->flow_def);
  g_free (info->protocol);
  mxl_target_info_free (info->path_b);
  g_free (info);
}

struct mxlFabricsTargetInfo_t *
mxl_target_info_copy (const struct mxlFabricsTargetInfo_t *info)
{
  struct mxlFabricsTargetInfo_t *copy;

  g_return_val_if_fail (info != NULL, NULL);

  copy = g_memdup2 (info, sizeof *info);
  copy->fabric_address = g_memdup2 (info->fabric_address, info->fabric_address_len);
  copy->provider = g_strdup (info->provider);
  copy->regions = g_memdup2 (info->regions,
      (gsize) info->n_regions * sizeof (MxlRemoteRegion));
  copy->flow_def = g_strdup (info->flow_def);
  copy->protocol = g_strdup (info->protocol);
  copy->path_b = info->path_b != NULL ? mxl_target_info_copy (info->path_b) : NULL;
  return copy;
}

struct mxlFabricsTargetInfo_t *
mxl_target_info_path (const struct mxlFabricsTargetInfo_t *info, guint path)
{
  struct mxlFabricsTargetInfo_t *copy;

  g_return_val_if_fail (info != NULL, NULL);
  if (path == 0) {
    copy = mxl_target_info_copy (info);
    g_clear_pointer (&copy->path_b, mxl_target_info_free);
    return copy;
  }
  if (path != 1 || info->path_b == NULL)
    return NULL;
  copy = mxl_target_info_copy (info->path_b);
  g_free (copy->flow_def);
  copy->flow_def = g_strdup (info->flow_def);
  return copy;
}

gboolean
mxl_target_info_equal (const struct mxlFabricsTargetInfo_t *a,
    const struct mxlFabricsTargetInfo_t *b)
{
  guint i;

  if (a == b)
    return TRUE;
  if (a == NULL || b == NULL)
    return FALSE;
  if (a->address_format != b->address_format || a->id != b->id
      || a->fabric_address_len != b->fabric_address_len
      || a->n_regions != b->n_regions)
    return FALSE;
  if (a->fabric_address_len > 0
      && memcmp (a->fabric_address, b->fabric_address, a->fabric_address_len) != 0)
    return FALSE;
  for (i = 0; i < a->n_regions; i++) {
    if (a->regions[i].addr != b->regions[i].addr
        || a->regions[i].len != b->regions[i].len
        || a->regions[i].rkey != b->regions[i].rkey)
      return FALSE;
  }
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Writing                                                              */

static void
add_u64_string (JsonBuilder *b, const char *key, guint64 value)
{
  char text[24];

  g_snprintf (text, sizeof text, "%" G_GUINT64_FORMAT, value);
  json_builder_set_member_name (b, key);
  json_builder_add_string_value (b, text);
}

/* One TargetInfo document as an object of @b: the outer one, or the
 * second path's under ext."pathB" (written without "flowDef", which is the
 * outer one's). */
static void
add_document (JsonBuilder *b, const struct mxlFabricsTargetInfo_t *info,
    gboolean nested)
{
  g_autofree char *address = NULL;
  guint i;

  address = mxl_base64_encode (info->fabric_address, info->fabric_address_len);

  /* json-glib keeps members in insertion order: insert them sorted (§1.2). */
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "addressFormat");
  json_builder_add_int_value (b, info->address_format);
  if (info->has_bounce_buffer) {
    json_builder_set_member_name (b, "bounceBufferInfo");
    json_builder_begin_object (b);
    add_u64_string (b, "entryCount", info->bounce_entry_count);
    add_u64_string (b, "entrySize", info->bounce_entry_size);
    json_builder_end_object (b);
  }
  json_builder_set_member_name (b, "ext");
  json_builder_begin_object (b);
  if (info->eos_version != 0)
    add_u64_string (b, "eos", info->eos_version);
  if (info->flow_def != NULL && !nested) {
    json_builder_set_member_name (b, "flowDef");
    json_builder_add_string_value (b, info->flow_def);
  }
  json_builder_set_member_name (b, "protocol");
  json_builder_add_string_value (b, mxl_target_info_protocol (info));
  if (info->recv_size != 0)
    add_u64_string (b, "recvSize", info->recv_size);
  if (info->owner_pid != 0)
    add_u64_string (b, "pid", info->owner_pid);
  if (info->has_claim) {
    add_u64_string (b, "claimAddr", info->claim_addr);
    add_u64_string (b, "claimKey", info->claim_key);
  }
  if (info->credits != 0)
    add_u64_string (b, "credits", info->credits);
  if (info->path_b != NULL && !nested) {
    json_builder_set_member_name (b, "pathB");
    add_document (b, info->path_b, TRUE);
  }
  json_builder_end_object (b);
  json_builder_set_member_name (b, "fabricAddress");
  json_builder_add_string_value (b, address);
  add_u64_string (b, "id", info->id);
  json_builder_set_member_name (b, "provider");
  json_builder_add_string_value (b, info->provider != NULL ? info->provider : "unknown");
  json_builder_set_member_name (b, "regions");
  json_builder_begin_array (b);
  for (i = 0; i < info->n_regions; i++) {
    json_builder_begin_object (b);
    add_u64_string (b, "addr", info->regions[i].addr);
    add_u64_string (b, "len", info->regions[i].len);
    add_u64_string (b, "rkey", info->regions[i].rkey);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

char *
mxl_target_info_to_json (const struct mxlFabricsTargetInfo_t *info)
{
  g_autoptr (JsonBuilder) b = json_builder_new_immutable ();
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = NULL;

  g_return_val_if_fail (info != NULL, NULL);

  add_document (b, info, FALSE);
  root = json_builder_get_root (b);
  json_generator_set_pretty (gen, FALSE);
  json_generator_set_root (gen, root);
  return json_generator_to_data (gen, NULL);
}

/* ------------------------------------------------------------------ */
/* Reading                                                              */

static gboolean
fail (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
fail (GError **error, const char *format, ...)
{
  va_list args;
  g_autofree char *msg = NULL;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "TargetInfo: %s", msg);
  return FALSE;
}

/* Decimal text of an unsigned 64-bit value: blanks, optional '+', digits
 * (required), blanks. Stricter than strtoull about '-', overflow and
 * trailing garbage; no producer writes those. */
static gboolean
parse_u64_text (const char *text, guint64 *out)
{
  const char *p = text;
  guint64 v = 0;

  while (g_ascii_isspace (*p))
    p++;
  if (*p == '+')
    p++;
  if (!g_ascii_isdigit (*p))
    return FALSE;
  for (; g_ascii_isdigit (*p); p++) {
    guint digit = (guint) (*p - '0');
    if (v > (G_MAXUINT64 - digit) / 10)
      return FALSE;
    v = v * 10 + digit;
  }
  while (g_ascii_isspace (*p))
    p++;
  if (*p != '\0')
    return FALSE;
  *out = v;
  return TRUE;
}

static gboolean
get_string (JsonObject *obj, const char *where, const char *key,
    gboolean required, const char **out, GError **error)
{
  JsonNode *node = json_object_get_member (obj, key);

  *out = NULL;
  if (node == NULL) {
    if (required)
      return fail (error, "%s\"%s\" is missing", where, key);
    return TRUE;
  }
  if (mxl_json_value_type (node) != G_TYPE_STRING)
    return fail (error, "%s\"%s\" must be a string", where, key);
  *out = json_node_get_string (node);
  return TRUE;
}

static gboolean
get_u64_string (JsonObject *obj, const char *where, const char *key,
    guint64 *out, GError **error)
{
  const char *text;

  if (!get_string (obj, where, key, TRUE, &text, error))
    return FALSE;
  if (!parse_u64_text (text, out))
    return fail (error, "%s\"%s\" is not an unsigned 64-bit decimal: \"%.40s\"",
        where, key, text);
  return TRUE;
}

static gboolean
get_object (JsonObject *obj, const char *key, gboolean required,
    JsonObject **out, GError **error)
{
  JsonNode *node = json_object_get_member (obj, key);

  *out = NULL;
  if (node == NULL)
    return required ? fail (error, "\"%s\" is missing", key) : TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return fail (error, "\"%s\" must be an object", key);
  *out = json_node_get_object (node);
  return TRUE;
}

static gboolean
read_address (JsonObject *root, struct mxlFabricsTargetInfo_t *info,
    GError **error)
{
  JsonNode *node = json_object_get_member (root, "addressFormat");
  const char *text;
  guint64 format;
  gsize len;
  g_autoptr (GError) b64_error = NULL;

  if (node == NULL)
    return fail (error, "\"addressFormat\" is missing");
  if (!mxl_json_node_to_uint64 (node, &format))
    return fail (error, "\"addressFormat\" must be a non-negative integer number");
  if (format > G_MAXUINT32 || !mxl_address_format_is_supported ((guint32) format))
    return fail (error, "\"addressFormat\" %" G_GUINT64_FORMAT
        " is not one of 1, 2, 3, 4, 9, 12, 17", format);
  info->address_format = (guint32) format;

  if (!get_string (root, "", "fabricAddress", TRUE, &text, error))
    return FALSE;
  info->fabric_address = mxl_base64_decode (text, -1, &len, &b64_error);
  if (info->fabric_address == NULL)
    return fail (error, "\"fabricAddress\": %s", b64_error->message);
  info->fabric_address_len = len;
  return TRUE;
}

static gboolean
read_regions (JsonObject *root, struct mxlFabricsTargetInfo_t *info,
    GError **error)
{
  JsonNode *node = json_object_get_member (root, "regions");
  JsonArray *array;
  guint i, n;

  if (node == NULL)
    return fail (error, "\"regions\" is missing");
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return fail (error, "\"regions\" must be an array");
  array = json_node_get_array (node);
  n = json_array_get_length (array);
  if (n == 0)
    return fail (error, "\"regions\" is empty (a target has at least one region)");

  info->regions = g_new0 (MxlRemoteRegion, n);
  info->n_regions = n;
  for (i = 0; i < n; i++) {
    JsonNode *elem = json_array_get_element (array, i);
    JsonObject *region;
    char where[40];

    g_snprintf (where, sizeof where, "regions[%u].", i);
    if (!JSON_NODE_HOLDS_OBJECT (elem))
      return fail (error, "regions[%u] must be an object", i);
    region = json_node_get_object (elem);
    if (!get_u64_string (region, where, "addr", &info->regions[i].addr, error)
        || !get_u64_string (region, where, "len", &info->regions[i].len, error)
        || !get_u64_string (region, where, "rkey", &info->regions[i].rkey, error))
      return FALSE;
  }
  return TRUE;
}

static gboolean read_document (JsonObject *root, struct mxlFabricsTargetInfo_t *info,
    gboolean nested, GError **error);

/* ext."pathB": the second path's whole document, read by read_document()
 * as the outer one (one level only: a "pathB" inside it is refused). */
static gboolean
read_path_b (JsonObject *ext, struct mxlFabricsTargetInfo_t *info, gboolean nested,
    GError **error)
{
  JsonObject *obj;
  g_autoptr (GError) inner = NULL;

  if (!get_object (ext, "pathB", FALSE, &obj, error))
    return FALSE;
  if (obj == NULL)
    return TRUE;
  if (nested)
    return fail (error, "ext.\"pathB\" holds another \"pathB\" (two paths at most)");
  info->path_b = mxl_target_info_new ();
  if (!read_document (obj, info->path_b, TRUE, &inner))
    return fail (error, "ext.\"pathB\": %s", inner->message);
  if (info->path_b->id == info->id)
    return fail (error, "ext.\"pathB\" has the id of the first path");
  return TRUE;
}

static gboolean
read_ext (JsonObject *root, struct mxlFabricsTargetInfo_t *info, gboolean nested,
    GError **error)
{
  JsonObject *ext;
  const char *protocol = NULL, *flow_def = NULL;

  if (!get_object (root, "ext", FALSE, &ext, error))
    return FALSE;
  if (ext == NULL)
    return TRUE;
  if (!get_string (ext, "ext.", "protocol", FALSE, &protocol, error)
      || !get_string (ext, "ext.", "flowDef", FALSE, &flow_def, error))
    return FALSE;
  if (json_object_has_member (ext, "recvSize")
      && !get_u64_string (ext, "ext.", "recvSize", &info->recv_size, error))
    return FALSE;
  if (json_object_has_member (ext, "pid")) {
    uint64_t pid = 0;
    if (!get_u64_string (ext, "ext.", "pid", &pid, error))
      return FALSE;
    /* Linux pids are at most 2^22 (pid_max); 0 and larger are refused. */
    if (pid == 0 || pid > (1u << 22))
      return fail (error, "ext.\"pid\" %" G_GUINT64_FORMAT " is not a process id", pid);
    info->owner_pid = (uint32_t) pid;
  }
  if (json_object_has_member (ext, "claimAddr") || json_object_has_member (ext, "claimKey")) {
    if (!get_u64_string (ext, "ext.", "claimAddr", &info->claim_addr, error)
        || !get_u64_string (ext, "ext.", "claimKey", &info->claim_key, error))
      return FALSE;
    info->has_claim = TRUE;
  }
  if (json_object_has_member (ext, "credits")) {
    uint64_t version = 0;
    if (!get_u64_string (ext, "ext.", "credits", &version, error))
      return FALSE;
    if (version == 0 || version > G_MAXUINT32)
      return fail (error, "ext.\"credits\" %" G_GUINT64_FORMAT
          " is not a version (1 .. 4294967295)", version);
    info->credits = (uint32_t) version;
  }
  if (json_object_has_member (ext, "eos")) {
    uint64_t version = 0;
    if (!get_u64_string (ext, "ext.", "eos", &version, error))
      return FALSE;
    info->eos_version = (uint32_t) MIN (version, G_MAXUINT32);
  }
  if (!read_path_b (ext, info, nested, error))
    return FALSE;
  /* Kept as given: the protocol table checks the name
   * (mxl_protocol_check_info(), protocol_table.c). */
  info->protocol = g_strdup (protocol);
  info->flow_def = g_strdup (flow_def);
  return TRUE;
}

static gboolean
read_document (JsonObject *root, struct mxlFabricsTargetInfo_t *info,
    gboolean nested, GError **error)
{
  JsonObject *bounce;
  const char *provider;

  if (!read_address (root, info, error) || !read_regions (root, info, error))
    return FALSE;

  if (!get_object (root, "bounceBufferInfo", FALSE, &bounce, error))
    return FALSE;
  if (bounce != NULL) {
    info->has_bounce_buffer = TRUE;
    if (!get_u64_string (bounce, "bounceBufferInfo.", "entryCount",
            &info->bounce_entry_count, error)
        || !get_u64_string (bounce, "bounceBufferInfo.", "entrySize",
            &info->bounce_entry_size, error))
      return FALSE;
  }

  if (!get_u64_string (root, "", "id", &info->id, error))
    return FALSE;
  /* Any provider name is accepted; it is informational (§1.4 step 8). */
  if (!get_string (root, "", "provider", TRUE, &provider, error))
    return FALSE;
  info->provider = g_strdup (provider);

  return read_ext (root, info, nested, error);
}

struct mxlFabricsTargetInfo_t *
mxl_target_info_from_json (const char *text, mxlStatus *out_status,
    GError **error)
{
  g_autoptr (JsonObject) root = NULL;
  struct mxlFabricsTargetInfo_t *info;

  root = mxl_json_parse_object (text, "TargetInfo", error);
  if (root == NULL) {
    if (out_status != NULL)
      *out_status = MXL_ERR_INVALID_ARG;
    return NULL;
  }
  info = mxl_target_info_new ();
  if (!read_document (root, info, FALSE, error)) {
    mxl_target_info_free (info);
    if (out_status != NULL)
      *out_status = MXL_ERR_INVALID_ARG;
    return NULL;
  }
  /* the second path carries the flow of the first */
  if (info->path_b != NULL) {
    g_free (info->path_b->flow_def);
    info->path_b->flow_def = g_strdup (info->flow_def);
  }
  if (out_status != NULL)
    *out_status = MXL_STATUS_OK;
  return info;
}

/* Raw JSON or base64-wrapped JSON (no '@' handling: files do not chain). */
static struct mxlFabricsTargetInfo_t *
from_json_or_base64 (const char *text, mxlStatus *out_status, GError **error)
{
  g_autoptr (GString) compact = NULL;
  g_autoptr (GError) b64_error = NULL;
  g_autofree guint8 *json = NULL;
  const char *p = text;
  gsize len;

  while (g_ascii_isspace (*p))
    p++;
  if (*p == '{')
    return mxl_target_info_from_json (p, out_status, error);

  /* Base64 as printed by the demo tool, possibly wrapped over lines. */
  compact = g_string_new (NULL);
  for (; *p != '\0'; p++) {
    if (!g_ascii_isspace (*p))
      g_string_append_c (compact, *p);
  }
  json = mxl_base64_decode (compact->str, (gssize) compact->len, &len, &b64_error);
  if (json == NULL) {
    if (out_status != NULL)
      *out_status = MXL_ERR_INVALID_ARG;
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
        "TargetInfo: neither a JSON document nor its base64 encoding (%s)",
        b64_error->message);
    return NULL;
  }
  /* The decoded bytes must be a NUL-free text: a NUL inside would cut it. */
  if (memchr (json, '\0', len) != NULL || !g_utf8_validate ((char *) json, len, NULL)) {
    if (out_status != NULL)
      *out_status = MXL_ERR_INVALID_ARG;
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
        "TargetInfo: the base64 text does not decode to UTF-8 JSON text");
    return NULL;
  }
  json = g_realloc (json, len + 1);
  json[len] = '\0';
  return mxl_target_info_from_json ((const char *) json, out_status, error);
}

struct mxlFabricsTargetInfo_t *
mxl_target_info_from_user_string (const char *text, mxlStatus *out_status,
    GError **error)
{
  g_autofree char *contents = NULL;
  gsize len;
  const char *p;

  if (out_status != NULL)
    *out_status = MXL_ERR_INVALID_ARG;
  if (text == NULL) {
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
        "TargetInfo: no text");
    return NULL;
  }
  p = text;
  while (g_ascii_isspace (*p))
    p++;
  if (*p != '@')
    return from_json_or_base64 (p, out_status, error);

  contents = mxl_user_file_read (p + 1,
      MXL_FABRICS_EXT_TARGET_INFO_MAX_FILE_BYTES, &len, error);
  if (contents == NULL) {
    g_prefix_error (error, "TargetInfo: cannot read %s: ", p + 1);
    return NULL;
  }
  if (memchr (contents, '\0', len) != NULL) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
        "TargetInfo: file %s holds a NUL byte, not a text document", p + 1);
    return NULL;
  }
  return from_json_or_base64 (contents, out_status, error);
}

/* The end of the JSON source at @p ('{'): past its matching '}', or the
 * end of the text when it has none. */
static const char *
list_json_end (const char *p)
{
  gboolean in_string = FALSE;
  int depth = 0;

  for (; *p != '\0'; p++) {
    if (in_string) {
      if (*p == '\\' && p[1] != '\0')
        p++;
      else if (*p == '"')
        in_string = FALSE;
    } else if (*p == '"') {
      in_string = TRUE;
    } else if (*p == '{') {
      depth++;
    } else if (*p == '}' && --depth == 0) {
      return p + 1;
    }
  }
  return p;
}

/* The separator ending the "@PATH" source at @p, or its terminating NUL. */
static const char *
list_path_end (const char *p)
{
  for (; *p != '\0' && *p != ';'; p++) {
    const char *next = p + 1;

    if (*p != ',')
      continue;
    while (g_ascii_isspace (*next))
      next++;
    if (*next == '@' || *next == '{')
      return p;
  }
  return p;
}

char **
mxl_target_info_split_user_list (const char *text)
{
  GPtrArray *items = g_ptr_array_new ();
  const char *p = text != NULL ? text : "";

  while (*p != '\0') {
    const char *start, *end;

    while (g_ascii_isspace (*p) || *p == ';' || *p == ',')
      p++;
    if (*p == '\0')
      break;
    start = p;
    /* the first character decides the form, as for
     * mxl_target_info_from_user_string() */
    if (*p == '@') {
      p = list_path_end (p);
    } else {
      if (*p == '{')
        p = list_json_end (p);
      /* to the separator (what follows a JSON source's brace is part of
       * it: the resolver refuses it) */
      while (*p != '\0' && *p != ';' && *p != ',')
        p++;
    }
    end = p;
    while (end > start && g_ascii_isspace (end[-1]))
      end--;
    g_ptr_array_add (items, g_strndup (start, (gsize) (end - start)));
  }
  if (items->len == 1) {
    /* one source: the text as given (a single "@PATH" may hold ',') */
    g_free (g_ptr_array_index (items, 0));
    g_ptr_array_index (items, 0) = g_strdup (text);
  }
  g_ptr_array_add (items, NULL);
  return (char **) g_ptr_array_free (items, FALSE);
}
