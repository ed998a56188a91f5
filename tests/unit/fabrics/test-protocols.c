/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The protocol table (src/fabrics/protocol/protocol_table.c) is the one
 * place that names the transfer protocols: every row's name goes through
 * TargetInfo print and parse (docs/wire-format.md §11.1), the table's
 * check, the "protocol" setup option and the public list
 * (mxlFabricsExtGetProtocol()) unchanged, and a name outside the table is
 * refused by each, naming the rows (issue 14: adding a protocol is its
 * file and its row).
 */
#include <gio/gio.h>
#include <string.h>

#include "fabrics/protocol/options.h"
#include "fabrics/protocol/protocol.h"
#include "fabrics/wire/targetinfo.h"

#include <mxl/fabrics-ext.h>

static const guint8 address[16] = { 0x02, 0x00, 0x89, 0xd1, 0x7f, 0x00, 0x00, 0x01 };

/* A grain target's TargetInfo advertising @protocol. */
static struct mxlFabricsTargetInfo_t *
info_with (const char *protocol)
{
  struct mxlFabricsTargetInfo_t *info = mxl_target_info_new ();

  info->address_format = 2;
  info->fabric_address = g_memdup2 (address, sizeof address);
  info->fabric_address_len = sizeof address;
  info->id = 77;
  info->provider = g_strdup ("tcp");
  info->n_regions = 1;
  info->regions = g_new0 (MxlRemoteRegion, 1);
  info->regions[0] = (MxlRemoteRegion) { 0, 4096, 9 };
  info->protocol = g_strdup (protocol);
  return info;
}

/* Every row: TargetInfo print -> parse -> check keeps the name and finds
 * the same row; the setup option of that name selects it. */
static void
test_names_round_trip (void)
{
  g_assert_cmpuint (mxl_n_protocols, >=, 1);
  for (guint i = 0; i < mxl_n_protocols; i++) {
    const MxlProtocolDesc *p = mxl_protocols[i];
    struct mxlFabricsTargetInfo_t *info = info_with (p->name);
    g_autofree char *json = mxl_target_info_to_json (info);
    g_autofree char *member = g_strdup_printf ("\"protocol\":\"%s\"", p->name);
    g_autofree char *opts = g_strdup_printf ("{\"protocol\":\"%s\"}", p->name);
    g_autoptr (GError) error = NULL;
    mxlStatus st = MXL_ERR_UNKNOWN;
    struct mxlFabricsTargetInfo_t *back;
    MxlSetupOptions o;

    g_test_message ("protocol %s", p->name);
    g_assert_nonnull (strstr (json, member));
    back = mxl_target_info_from_json (json, &st, &error);
    g_assert_no_error (error);
    g_assert_cmpint (st, ==, MXL_STATUS_OK);
    g_assert_cmpstr (back->protocol, ==, p->name);
    g_assert_true (mxl_protocol_check_info (back, &st, &error) == p);
    g_assert_no_error (error);
    g_assert_true (mxl_protocol_lookup (p->name) == p);
    for (guint j = 0; j < i; j++)
      g_assert_cmpstr (mxl_protocols[j]->name, !=, p->name);
    g_assert_cmpint (mxl_setup_options_parse (opts, &o, &error), ==, MXL_STATUS_OK);
    g_assert_no_error (error);
    g_assert_true (o.protocol_set);
    g_assert_true (o.protocol == p);
    mxl_target_info_free (info);
    mxl_target_info_free (back);
  }
}

/* The public list is the table, in table order. */
static void
test_public_list (void)
{
  mxlFabricsExtProtocolInfo pi;
  guint i;

  for (i = 0; mxlFabricsExtGetProtocol (i, &pi) == MXL_STATUS_OK; i++) {
    g_assert_cmpuint (i, <, mxl_n_protocols);
    g_assert_cmpstr (pi.name, ==, mxl_protocols[i]->name);
    g_assert_cmpstr (pi.capability, ==, mxl_protocols[i]->caps_name);
    g_assert_cmpuint (pi.targetRank, ==, mxl_protocols[i]->target_rank);
  }
  g_assert_cmpuint (i, ==, mxl_n_protocols);
  g_assert_cmpint (mxlFabricsExtGetProtocol (i, &pi), ==, MXL_ERR_NOT_FOUND);
  g_assert_cmpint (mxlFabricsExtGetProtocol (0, NULL), ==, MXL_ERR_INVALID_ARG);
}

/* The names of the public list (mxlFabricsExtGetProtocol()) joined the way
 * the error texts join them: each between @quote, ", " between them and
 * @last_sep before the last. */
static char *
public_names (const char *quote, const char *last_sep)
{
  GString *out = g_string_new (NULL);
  mxlFabricsExtProtocolInfo pi;
  size_t n = 0;

  while (mxlFabricsExtGetProtocol (n, &pi) == MXL_STATUS_OK)
    n++;
  g_assert_cmpuint (n, >=, 1);
  for (size_t i = 0; i < n; i++) {
    g_assert_cmpint (mxlFabricsExtGetProtocol (i, &pi), ==, MXL_STATUS_OK);
    g_string_append_printf (out, "%s%s%s%s", i == 0 ? "" : i + 1 == n ? last_sep : ", ",
        quote, pi.name, quote);
  }
  return g_string_free (out, FALSE);
}

/* A name outside the table: the parser keeps it, the table's check and the
 * setup option refuse it, listing every row. A TargetInfo without a
 * protocol is the default row. */
static void
test_unknown_name (void)
{
  struct mxlFabricsTargetInfo_t *info = info_with ("rdma");
  g_autofree char *json = mxl_target_info_to_json (info);
  g_autoptr (GString) names = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  mxlStatus st = MXL_STATUS_OK;
  struct mxlFabricsTargetInfo_t *back = mxl_target_info_from_json (json, &st, &error);
  g_autofree char *listed = public_names ("", " or ");
  g_autofree char *quoted = public_names ("\"", ", ");
  g_autofree char *not_listed = g_strdup_printf ("\"rdma\" is not %s", listed);
  g_autofree char *one_of = g_strdup_printf ("one of %s", quoted);
  MxlSetupOptions o;

  g_assert_no_error (error);
  g_assert_cmpstr (back->protocol, ==, "rdma");
  g_assert_null (mxl_protocol_check_info (back, &st, &error));
  g_assert_cmpint (st, ==, MXL_ERR_INVALID_ARG);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  mxl_protocol_append_names (names, "", " or ");
  g_assert_cmpstr (names->str, ==, listed);
  g_assert_nonnull (strstr (error->message, not_listed));
  g_clear_error (&error);
  g_assert_cmpint (mxl_setup_options_parse ("{\"protocol\":\"rdma\"}", &o, &error), ==,
      MXL_ERR_INVALID_ARG);
  g_assert_nonnull (strstr (error->message, one_of));
  mxl_target_info_free (back);
  mxl_target_info_free (info);

  info = info_with (NULL);
  g_assert_cmpstr (mxl_target_info_protocol (info), ==, MXL_TARGET_INFO_DEFAULT_PROTOCOL);
  g_assert_true (mxl_protocol_check_info (info, NULL, NULL)
      == mxl_protocol_lookup (MXL_TARGET_INFO_DEFAULT_PROTOCOL));
  mxl_target_info_free (info);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/protocols/names-round-trip", test_names_round_trip);
  g_test_add_func ("/fabrics/protocols/public-list", test_public_list);
  g_test_add_func ("/fabrics/protocols/unknown-name", test_unknown_name);
  return g_test_run ();
}
