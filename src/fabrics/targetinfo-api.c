/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Public TargetInfo functions of <mxl/fabrics.h> (docs/wire-format.md §1.2, §1.4) on
 * top of the internal targetinfo.c.
 */
#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

#include "fabrics/ofi/address.h"
#include "fabrics/protocol/protocol.h"
#include "fabrics/wire/targetinfo.h"
#include "fabrics/wire/userfile.h"

#include <mxl/fabrics-ext.h>

MXL_EXPORT mxlStatus
mxlFabricsTargetInfoToString (mxlFabricsTargetInfo in_targetInfo,
    char *out_string, size_t *in_stringSize)
{
  g_autofree char *json = NULL;
  size_t len;

  if (in_targetInfo == NULL || in_stringSize == NULL)
    return MXL_ERR_INVALID_ARG;

  json = mxl_target_info_to_json (in_targetInfo);
  len = strlen (json);
  if (out_string == NULL) {
    *in_stringSize = len + 1;
    return MXL_STATUS_OK;
  }
  if (*in_stringSize <= len)
    return MXL_ERR_STRLEN;
  memcpy (out_string, json, len + 1);
  return MXL_STATUS_OK;
}

/* A TargetInfo from text: the wire parser (targetinfo.c), then the check
 * of its protocol name against the table (protocol_table.c). */
static struct mxlFabricsTargetInfo_t *
parse_checked (char const *in_string, gboolean user_string, mxlStatus *status,
    GError **error)
{
  struct mxlFabricsTargetInfo_t *info = user_string
      ? mxl_target_info_from_user_string (in_string, status, error)
      : mxl_target_info_from_json (in_string, status, error);

  if (info != NULL && mxl_protocol_check_info (info, status, error) == NULL)
    g_clear_pointer (&info, mxl_target_info_free);
  return info;
}

MXL_EXPORT mxlStatus
mxlFabricsTargetInfoFromString (char const *in_string,
    mxlFabricsTargetInfo *out_targetInfo)
{
  g_autoptr (GError) error = NULL;
  mxlStatus status = MXL_ERR_INVALID_ARG;
  mxlFabricsTargetInfo info;

  if (in_string == NULL || out_targetInfo == NULL)
    return MXL_ERR_INVALID_ARG;

  info = parse_checked (in_string, FALSE, &status, &error);
  if (info == NULL) {
    /* g_message, not g_warning: bad input is the caller's to handle, and a
     * warning would abort GTest programs that test rejection. */
    g_message ("mxlFabricsTargetInfoFromString: %s",
        error != NULL ? error->message : "invalid document");
    return status;
  }
  *out_targetInfo = info;
  return MXL_STATUS_OK;
}

/* The status of a file read that failed with @error (userfile.h), else
 * @otherwise. */
static mxlStatus
file_status (const GError *error, mxlStatus otherwise)
{
  if (error->domain == G_FILE_ERROR)
    return error->code == G_FILE_ERROR_NOENT ? MXL_ERR_NOT_FOUND
        : error->code == G_FILE_ERROR_ACCES ? MXL_ERR_PERMISSION_DENIED
        : MXL_ERR_UNKNOWN;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE))
    return MXL_ERR_UNSUPPORTED_OPERATION;
  return otherwise;
}

MXL_EXPORT mxlStatus
mxlFabricsExtReadUserFile (char const *in_path, char **out_contents,
    size_t *out_length, char **out_reason)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *contents = NULL;
  gsize len = 0;

  if (out_reason != NULL)
    *out_reason = NULL;
  if (out_contents != NULL)
    *out_contents = NULL;
  if (in_path == NULL || out_contents == NULL)
    return MXL_ERR_INVALID_ARG;
  contents = mxl_user_file_read (in_path,
      MXL_FABRICS_EXT_TARGET_INFO_MAX_FILE_BYTES, &len, &error);
  if (contents == NULL) {
    if (out_reason != NULL)
      *out_reason = strdup (error->message);
    return file_status (error, MXL_ERR_INVALID_ARG);
  }
  /* malloc'd for free(3), as the API's other strings */
  *out_contents = malloc (len + 1);
  if (*out_contents == NULL)
    return MXL_ERR_UNKNOWN;
  memcpy (*out_contents, contents, len + 1);
  if (out_length != NULL)
    *out_length = len;
  return MXL_STATUS_OK;
}

/* The document (@user_string: or what a user gave, see
 * mxl_target_info_from_user_string()) with the reason of a refusal. */
static mxlStatus
parse_with_reason (char const *in_string, gboolean user_string,
    mxlFabricsTargetInfo *out_targetInfo, char **out_reason)
{
  g_autoptr (GError) error = NULL;
  mxlStatus status = MXL_ERR_INVALID_ARG;
  mxlFabricsTargetInfo info;

  if (out_reason != NULL)
    *out_reason = NULL;
  if (in_string == NULL || out_targetInfo == NULL)
    return MXL_ERR_INVALID_ARG;
  info = parse_checked (in_string, user_string, &status, &error);
  if (info != NULL) {
    *out_targetInfo = info;
    return MXL_STATUS_OK;
  }
  /* a file to come is not a bad document: a caller may wait for it */
  if (error != NULL)
    status = file_status (error, status);
  if (out_reason != NULL)
    *out_reason = strdup (error != NULL ? error->message : "invalid document");
  return status == MXL_STATUS_OK ? MXL_ERR_INVALID_ARG : status;
}

MXL_EXPORT mxlStatus
mxlFabricsExtTargetInfoParse (char const *in_string,
    mxlFabricsTargetInfo *out_targetInfo, char **out_reason)
{
  return parse_with_reason (in_string, FALSE, out_targetInfo, out_reason);
}

MXL_EXPORT mxlStatus
mxlFabricsExtTargetInfoGetPath (mxlFabricsTargetInfo in_targetInfo, uint32_t in_path,
    mxlFabricsTargetInfo *out_info)
{
  if (in_targetInfo == NULL || out_info == NULL)
    return MXL_ERR_INVALID_ARG;
  *out_info = mxl_target_info_path (in_targetInfo, in_path);
  return *out_info != NULL ? MXL_STATUS_OK : MXL_ERR_NOT_FOUND;
}

MXL_EXPORT mxlStatus
mxlFabricsFreeTargetInfo (mxlFabricsTargetInfo in_info)
{
  if (in_info == NULL)
    return MXL_ERR_INVALID_ARG;
  mxl_target_info_free (in_info);
  return MXL_STATUS_OK;
}

MXL_EXPORT mxlStatus
mxlFabricsExtTargetInfoFromUserString (char const *in_text,
    mxlFabricsTargetInfo *out_targetInfo, char **out_reason)
{
  return parse_with_reason (in_text, TRUE, out_targetInfo, out_reason);
}

MXL_EXPORT mxlStatus
mxlFabricsExtSplitTargetInfoList (char const *in_text, char ***out_sources,
    size_t *out_count)
{
  char **sources;

  if (out_sources == NULL)
    return MXL_ERR_INVALID_ARG;
  sources = mxl_target_info_split_user_list (in_text);
  if (out_count != NULL)
    *out_count = g_strv_length (sources);
  *out_sources = sources;
  return MXL_STATUS_OK;
}

MXL_EXPORT void
mxlFabricsExtFreeTargetInfoList (char **in_sources)
{
  g_strfreev (in_sources);
}

MXL_EXPORT mxlStatus
mxlFabricsExtTargetInfoGetFlowDef (mxlFabricsTargetInfo in_targetInfo,
    char const **out_flowDef)
{
  if (in_targetInfo == NULL || out_flowDef == NULL)
    return MXL_ERR_INVALID_ARG;
  *out_flowDef = in_targetInfo->flow_def;
  return MXL_STATUS_OK;
}

mxlStatus
mxlFabricsExtTargetInfoGetAddress (mxlFabricsTargetInfo in_targetInfo, char *out_text,
    size_t in_len)
{
  g_autofree char *text = NULL;

  if (in_targetInfo == NULL || out_text == NULL || in_len == 0)
    return MXL_ERR_INVALID_ARG;
  text = mxl_fabric_address_describe (in_targetInfo->address_format,
      in_targetInfo->fabric_address, in_targetInfo->fabric_address_len);
  g_strlcpy (out_text, text, in_len);
  return MXL_STATUS_OK;
}
