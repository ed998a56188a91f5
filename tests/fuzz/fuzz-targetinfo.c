/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: the TargetInfo parsers (mxl_target_info_from_json,
 * mxl_target_info_from_user_string), docs/wire-format.md §1.4/§1.6. A TargetInfo
 * comes from a peer or a user, so it is untrusted.
 *
 * Properties checked for every input:
 *  - the parser returns a TargetInfo XOR sets MXL_ERR_INVALID_ARG and a
 *    G_IO_ERROR_INVALID_DATA error;
 *  - what parses has >= 1 region and >= 1 address byte, and serialising it
 *    then parsing again gives an equal TargetInfo whose JSON is identical
 *    (the round trip of §1.2 is stable);
 *  - the user-string parser (raw JSON or base64) agrees with the JSON
 *    parser on raw documents. Inputs starting with '@' (after blanks) are
 *    not given to it: they would name files of the fuzzing host.
 */
#include "fuzz.h"

#include "fabrics/protocol/protocol.h"
#include "fabrics/wire/targetinfo.h"

static void
check_parsed (struct mxlFabricsTargetInfo_t *info)
{
  g_autofree char *json = NULL, *json2 = NULL;
  struct mxlFabricsTargetInfo_t *again;
  mxlStatus st = MXL_STATUS_OK;
  GError *error = NULL;

  g_assert_cmpuint (info->n_regions, >=, 1);
  g_assert_nonnull (info->regions);
  g_assert_cmpuint (info->fabric_address_len, >=, 1);
  g_assert_nonnull (mxl_target_info_protocol (info));
  /* the table's check: a row, or a reason */
  if (mxl_protocol_check_info (info, &st, &error) == NULL) {
    g_assert_cmpint (st, ==, MXL_ERR_INVALID_ARG);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    g_clear_error (&error);
  }

  json = mxl_target_info_to_json (info);
  g_assert_nonnull (json);
  again = mxl_target_info_from_json (json, &st, &error);
  if (again == NULL)
    g_error ("re-parse of our own JSON failed: %s\n%s", error->message, json);
  g_assert_true (mxl_target_info_equal (info, again));
  g_assert_cmpstr (mxl_target_info_protocol (again), ==, mxl_target_info_protocol (info));
  g_assert_cmpstr (again->flow_def, ==, info->flow_def);
  json2 = mxl_target_info_to_json (again);
  g_assert_cmpstr (json, ==, json2);
  mxl_target_info_free (again);
}

static struct mxlFabricsTargetInfo_t *
parse_checked (struct mxlFabricsTargetInfo_t *(*parse) (const char *,
        mxlStatus *, GError **), const char *text)
{
  mxlStatus st = MXL_STATUS_OK;
  GError *error = NULL;
  struct mxlFabricsTargetInfo_t *info = parse (text, &st, &error);

  if (info == NULL) {
    g_assert_cmpint (st, ==, MXL_ERR_INVALID_ARG);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    g_assert_nonnull (error->message);
    g_error_free (error);
    return NULL;
  }
  g_assert_no_error (error);
  check_parsed (info);
  return info;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *text = fuzz_strndup (data, size);
  struct mxlFabricsTargetInfo_t *a, *b;
  const char *p = text, *q = text;

  a = parse_checked (mxl_target_info_from_json, text);
  /* The user string parser strips ASCII space (form feed and vertical tab
   * too) before it decides what it holds; "@path" reads a file, which the
   * fuzzer must never do. */
  while (g_ascii_isspace (*q))
    q++;
  /* JSON's own white space only (RFC 8259: space, tab, LF, CR): a document
   * after other space is not raw JSON to the JSON parser. */
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  if (*q != '@') {
    b = parse_checked (mxl_target_info_from_user_string, text);
    /* A raw JSON document means the same to both parsers. */
    if (*p == '{')
      g_assert_true ((a == NULL) == (b == NULL));
    if (a && b)
      g_assert_true (mxl_target_info_equal (a, b));
    mxl_target_info_free (b);
  }
  mxl_target_info_free (a);
  return 0;
}
