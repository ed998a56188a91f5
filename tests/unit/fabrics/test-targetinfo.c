/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* TargetInfo JSON (docs/wire-format.md §1.2-§1.6, §8.1 B8, §9.2). */
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>

#include "fabrics/protocol/protocol.h"
#include "fabrics/wire/targetinfo.h"
#include "fabrics/wire/claim.h"
#include "fabrics/wire/eos.h"

#include <stdlib.h>
#include <mxl/fabrics-ext.h>

/* §1.3(a), verbatim. */
static const char spec_example_a[] =
    "{\"addressFormat\":2,\"fabricAddress\":\"AgCJ0X8AAAEAAAAAAAAAAA==\","
    "\"id\":\"13835058055282163712\",\"provider\":\"tcp\",\"regions\":["
    "{\"addr\":\"0\",\"len\":\"5537792\",\"rkey\":\"1214795823910256147\"},"
    "{\"addr\":\"0\",\"len\":\"5537792\",\"rkey\":\"7012345678901234567\"},"
    "{\"addr\":\"0\",\"len\":\"5537792\",\"rkey\":\"15501234567890123457\"},"
    "{\"addr\":\"0\",\"len\":\"5537792\",\"rkey\":\"311111111111111111\"},"
    "{\"addr\":\"0\",\"len\":\"5537792\",\"rkey\":\"9876543210987654321\"}]}";

static const guint8 sockaddr_127_35281[16] = {
  0x02, 0x00, 0x89, 0xd1, 0x7f, 0x00, 0x00, 0x01,
};

/* A small valid document; rejection cases edit one piece of it. */
static const char valid_doc[] =
    "{\"addressFormat\":2,\"fabricAddress\":\"AgCJ0X8AAAEAAAAAAAAAAA==\","
    "\"id\":\"7\",\"provider\":\"tcp\",\"regions\":[{\"addr\":\"0\",\"len\":\"64\","
    "\"rkey\":\"5\"}]}";

static struct mxlFabricsTargetInfo_t *
make_info (void)
{
  struct mxlFabricsTargetInfo_t *info = mxl_target_info_new ();

  info->address_format = 2;
  info->fabric_address = g_memdup2 (sockaddr_127_35281, sizeof sockaddr_127_35281);
  info->fabric_address_len = sizeof sockaddr_127_35281;
  info->id = G_MAXUINT64;
  info->provider = g_strdup ("tcp");
  info->n_regions = 2;
  info->regions = g_new0 (MxlRemoteRegion, 2);
  info->regions[0] = (MxlRemoteRegion) { 0, 5537792, (G_GUINT64_CONSTANT (1) << 53) + 1 };
  info->regions[1] = (MxlRemoteRegion) { G_MAXUINT64, 1, G_MAXUINT64 - 1 };
  info->has_bounce_buffer = TRUE;
  info->bounce_entry_count = 41;
  info->bounce_entry_size = 3856;
  info->protocol = g_strdup ("send");
  info->flow_def = g_strdup ("{\"id\":\"x/y\"}");
  return info;
}

static const char make_info_json[] =
    "{\"addressFormat\":2,\"bounceBufferInfo\":{\"entryCount\":\"41\",\"entrySize\":\"3856\"},"
    "\"ext\":{\"flowDef\":\"{\\\"id\\\":\\\"x/y\\\"}\",\"protocol\":\"send\"},"
    "\"fabricAddress\":\"AgCJ0X8AAAEAAAAAAAAAAA==\",\"id\":\"18446744073709551615\","
    "\"provider\":\"tcp\",\"regions\":["
    "{\"addr\":\"0\",\"len\":\"5537792\",\"rkey\":\"9007199254740993\"},"
    "{\"addr\":\"18446744073709551615\",\"len\":\"1\",\"rkey\":\"18446744073709551614\"}]}";

static char *
replace_once (const char *doc, const char *from, const char *to)
{
  const char *at = strstr (doc, from);

  g_assert_nonnull (at);
  return g_strdup_printf ("%.*s%s%s", (int) (at - doc), doc, to, at + strlen (from));
}

static void
test_to_json_exact (void)
{
  struct mxlFabricsTargetInfo_t *info = make_info ();
  g_autofree char *json = mxl_target_info_to_json (info);

  g_assert_cmpstr (json, ==, make_info_json);
  mxl_target_info_free (info);
}

/* ext.recvSize (send protocol) is written after "protocol" when set and
 * read back; absent it stays 0. */
static void
test_recv_size (void)
{
  struct mxlFabricsTargetInfo_t *info = make_info ();
  g_autofree char *plain = mxl_target_info_to_json (info);
  g_autofree char *json = NULL;
  g_autoptr (GError) error = NULL;
  mxlStatus status = MXL_ERR_UNKNOWN;
  struct mxlFabricsTargetInfo_t *back;

  g_assert_null (strstr (plain, "recvSize"));
  back = mxl_target_info_from_json (plain, &status, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->recv_size, ==, 0);
  mxl_target_info_free (back);
  info->recv_size = G_GUINT64_CONSTANT (1048608);
  json = mxl_target_info_to_json (info);
  g_assert_nonnull (strstr (json, "\"protocol\":\"send\",\"recvSize\":\"1048608\"}"));
  back = mxl_target_info_from_json (json, &status, &error);
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, MXL_STATUS_OK);
  g_assert_cmpuint (back->recv_size, ==, 1048608);
  mxl_target_info_free (back);
  mxl_target_info_free (info);
}

/* ext.pid (shm targets) is written when set and read back. */
static void
test_owner_pid (void)
{
  struct mxlFabricsTargetInfo_t *info = make_info ();
  g_autofree char *json = NULL;
  g_autoptr (GError) error = NULL;
  mxlStatus status = MXL_ERR_UNKNOWN;
  struct mxlFabricsTargetInfo_t *back;

  info->owner_pid = 4194304;
  json = mxl_target_info_to_json (info);
  g_assert_nonnull (strstr (json, "\"pid\":\"4194304\"}"));
  back = mxl_target_info_from_json (json, &status, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->owner_pid, ==, 4194304);
  mxl_target_info_free (back);
  mxl_target_info_free (info);
}

/* ext.claimAddr / ext.claimKey (exclusive RDM targets): both or neither. */
static void
test_claim_region (void)
{
  struct mxlFabricsTargetInfo_t *info = make_info ();
  g_autofree char *json = NULL;
  g_autoptr (GError) error = NULL;
  mxlStatus status = MXL_ERR_UNKNOWN;
  struct mxlFabricsTargetInfo_t *back;
  const char *half = "{\"addressFormat\":2,\"ext\":{\"claimAddr\":\"1\"},"
      "\"fabricAddress\":\"AgCJ0X8AAAEAAAAAAAAAAA==\",\"id\":\"1\",\"provider\":"
      "\"shm\",\"regions\":[{\"addr\":\"0\",\"len\":\"8\",\"rkey\":\"1\"}]}";

  info->has_claim = TRUE;
  info->claim_addr = G_MAXUINT64;
  info->claim_key = 42;
  json = mxl_target_info_to_json (info);
  g_assert_nonnull (strstr (json, "\"claimAddr\":\"18446744073709551615\","
          "\"claimKey\":\"42\""));
  back = mxl_target_info_from_json (json, &status, &error);
  g_assert_no_error (error);
  g_assert_true (back->has_claim);
  g_assert_cmpuint (back->claim_addr, ==, G_MAXUINT64);
  g_assert_cmpuint (back->claim_key, ==, 42);
  mxl_target_info_free (back);
  back = mxl_target_info_from_json (half, &status, &error);
  g_assert_null (back);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "claimKey"));
  mxl_target_info_free (info);
}

/* ext.credits (credit.h): printed only when set, read back, a version
 * out of range refused; a reference-style TargetInfo (no ext at all, or an
 * ext without it) parses with none. */
static void
test_credits (void)
{
  struct mxlFabricsTargetInfo_t *info = make_info ();
  g_autofree char *json = NULL, *plain = NULL;
  g_autoptr (GError) error = NULL;
  mxlStatus status = MXL_ERR_UNKNOWN;
  struct mxlFabricsTargetInfo_t *back;
  const char *reference = "{\"addressFormat\":2,"
      "\"fabricAddress\":\"AgCJ0X8AAAEAAAAAAAAAAA==\",\"id\":\"1\",\"provider\":"
      "\"tcp\",\"regions\":[{\"addr\":\"0\",\"len\":\"8\",\"rkey\":\"1\"}]}";
  const char *bad[] = { "\"0\"", "\"4294967296\"", "\"-1\"", "1" };

  plain = mxl_target_info_to_json (info);
  g_assert_null (strstr (plain, "credits"));
  info->credits = 1;
  json = mxl_target_info_to_json (info);
  g_assert_nonnull (strstr (json, "\"credits\":\"1\""));
  back = mxl_target_info_from_json (json, &status, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->credits, ==, 1);
  mxl_target_info_free (back);
  back = mxl_target_info_from_json (reference, &status, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->credits, ==, 0);
  mxl_target_info_free (back);
  back = mxl_target_info_from_json (plain, &status, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->credits, ==, 0);
  mxl_target_info_free (back);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autofree char *doc = g_strdup_printf ("{\"addressFormat\":2,\"ext\":{\"credits\":%s},"
        "\"fabricAddress\":\"AgCJ0X8AAAEAAAAAAAAAAA==\",\"id\":\"1\",\"provider\":"
        "\"tcp\",\"regions\":[{\"addr\":\"0\",\"len\":\"8\",\"rkey\":\"1\"}]}", bad[i]);

    g_clear_error (&error);
    back = mxl_target_info_from_json (doc, &status, &error);
    g_assert_null (back);
    g_assert_nonnull (error);
    g_assert_nonnull (strstr (error->message, "credits"));
  }
  mxl_target_info_free (info);
}

/* ext.eos (the end-of-stream notice, src/fabrics/wire/eos.h): written
 * first in ext when set, absent when not; read back; not a number is
 * refused; 0 and absent mean none; the value's imm encoding is told apart
 * from claims and grains. */
/* ext."pathB" (docs/wire-format.md §11.9): the second path's document,
 * read by the same code; refused as the outer one when malformed, nested
 * or with the first path's id. */
static void
test_path_b (void)
{
  struct mxlFabricsTargetInfo_t *info = make_info (), *back, *path;
  g_autofree char *plain = NULL, *json = NULL, *again = NULL;
  g_autoptr (GError) error = NULL;
  mxlStatus status = MXL_ERR_UNKNOWN;
#define PATH_DOC(b) "{\"addressFormat\":2,\"ext\":{\"flowDef\":\"F\",\"pathB\":" b "}," \
      "\"fabricAddress\":\"AgCJ0X8AAAEAAAAAAAAAAA==\",\"id\":\"1\",\"provider\":" \
      "\"tcp\",\"regions\":[{\"addr\":\"0\",\"len\":\"8\",\"rkey\":\"1\"}]}"
#define INNER(id, regions, ext) "{\"addressFormat\":2," ext "\"fabricAddress\":" \
      "\"AgCJ0X8AAAEAAAAAAAAAAA==\",\"id\":\"" id "\",\"provider\":\"shm\",\"regions\":" regions "}"
  const char *good = PATH_DOC (INNER ("2", "[{\"addr\":\"0\",\"len\":\"9\",\"rkey\":\"3\"}]", ""));
  const char *const bad[] = {
    PATH_DOC ("\"x\""),
    PATH_DOC (INNER ("2", "[]", "")),
    PATH_DOC (INNER ("1", "[{\"addr\":\"0\",\"len\":\"9\",\"rkey\":\"3\"}]", "")),
    PATH_DOC (INNER ("2", "[{\"addr\":\"0\",\"len\":\"9\",\"rkey\":\"3\"}]",
            "\"ext\":{\"pathB\":{}},")),
    PATH_DOC (INNER ("2", "[{\"addr\":\"0\",\"len\":\"-9\",\"rkey\":\"3\"}]", "")),
  };
#undef INNER
#undef PATH_DOC

  /* without a second path: byte for byte as before */
  plain = mxl_target_info_to_json (info);
  g_assert_cmpstr (plain, ==, make_info_json);
  back = mxl_target_info_from_json (good, &status, &error);
  g_assert_no_error (error);
  g_assert_nonnull (back->path_b);
  g_assert_cmpuint (back->path_b->id, ==, 2);
  g_assert_cmpstr (back->path_b->provider, ==, "shm");
  g_assert_cmpuint (back->path_b->regions[0].len, ==, 9);
  g_assert_cmpstr (back->path_b->flow_def, ==, "F");
  /* written back: the same document, the inner one without flowDef */
  json = mxl_target_info_to_json (back);
  g_assert_nonnull (strstr (json, "\"pathB\":{\"addressFormat\":2,\"ext\":{\"protocol\":\"write\"},"));
  {
    struct mxlFabricsTargetInfo_t *reread = mxl_target_info_from_json (json, &status, &error);
    g_assert_no_error (error);
    again = mxl_target_info_to_json (reread);
    g_assert_cmpstr (again, ==, json);
    mxl_target_info_free (reread);
  }
  path = mxl_target_info_path (back, 0);
  g_assert_null (path->path_b);
  g_assert_cmpuint (path->id, ==, 1);
  mxl_target_info_free (path);
  path = mxl_target_info_path (back, 1);
  g_assert_cmpuint (path->id, ==, 2);
  g_assert_cmpstr (path->flow_def, ==, "F");
  g_assert_null (path->path_b);
  mxl_target_info_free (path);
  g_assert_null (mxl_target_info_path (back, 2));
  g_assert_null (mxl_target_info_path (info, 1));
  mxl_target_info_free (back);
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_clear_error (&error);
    back = mxl_target_info_from_json (bad[i], &status, &error);
    g_assert_null (back);
    g_assert_cmpint (status, ==, MXL_ERR_INVALID_ARG);
    g_assert_nonnull (strstr (error->message, "pathB"));
  }
  mxl_target_info_free (info);
}

static void
test_eos_key (void)
{
  struct mxlFabricsTargetInfo_t *info = make_info ();
  g_autofree char *json = NULL, *plain = NULL;
  g_autoptr (GError) error = NULL;
  mxlStatus status = MXL_ERR_UNKNOWN;
  struct mxlFabricsTargetInfo_t *back;
#define EOS_DOC(v) "{\"addressFormat\":2,\"ext\":{\"eos\":" v "}," \
      "\"fabricAddress\":\"AgCJ0X8AAAEAAAAAAAAAAA==\",\"id\":\"1\",\"provider\":" \
      "\"tcp\",\"regions\":[{\"addr\":\"0\",\"len\":\"8\",\"rkey\":\"1\"}]}"
  const char *bad = EOS_DOC ("\"one\"");
  const char *zero = EOS_DOC ("\"0\"");
  const char *big = EOS_DOC ("\"99999999999\"");
#undef EOS_DOC

  plain = mxl_target_info_to_json (info);
  g_assert_null (strstr (plain, "\"eos\""));
  info->eos_version = MXL_EOS_VERSION;
  json = mxl_target_info_to_json (info);
  g_assert_nonnull (strstr (json, "\"ext\":{\"eos\":\"1\","));
  back = mxl_target_info_from_json (json, &status, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->eos_version, ==, 1);
  mxl_target_info_free (back);
  back = mxl_target_info_from_json (plain, &status, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->eos_version, ==, 0);
  mxl_target_info_free (back);
  back = mxl_target_info_from_json (zero, &status, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->eos_version, ==, 0);
  mxl_target_info_free (back);
  back = mxl_target_info_from_json (big, &status, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->eos_version, ==, G_MAXUINT32);
  mxl_target_info_free (back);
  back = mxl_target_info_from_json (bad, &status, &error);
  g_assert_null (back);
  g_assert_cmpint (status, ==, MXL_ERR_INVALID_ARG);
  g_assert_nonnull (strstr (error->message, "eos"));
  mxl_target_info_free (info);

  /* the notice's immediate data: not a claim, not a grain of < 0xFFFF
   * slots; only its own form is one */
  g_assert_cmphex (mxl_eos_imm (0), ==, 0x8000FFFFu);
  g_assert_cmphex (mxl_eos_imm (5), ==, 0x8005FFFFu);
  g_assert_true (mxl_eos_is_imm (mxl_eos_imm (63)));
  g_assert_cmpuint (mxl_eos_mailbox (mxl_eos_imm (63)), ==, 63);
  g_assert_false (mxl_claim_is_imm (mxl_eos_imm (5)));
  g_assert_false (mxl_eos_is_imm (mxl_claim_imm (5)));
  g_assert_false (mxl_eos_is_imm (0xFFFFu | (0x40u << 16)));
  g_assert_false (mxl_eos_is_imm (0x8000FFFEu));
  g_assert_false (mxl_eos_is_imm ((UINT64_C (1) << 32) | mxl_eos_imm (0)));
}

static void
test_round_trip_64bit (void)
{
  struct mxlFabricsTargetInfo_t *info = make_info ();
  g_autofree char *json = mxl_target_info_to_json (info);
  g_autoptr (GError) error = NULL;
  mxlStatus status = MXL_ERR_UNKNOWN;
  struct mxlFabricsTargetInfo_t *back = mxl_target_info_from_json (json, &status, &error);

  g_assert_no_error (error);
  g_assert_cmpint (status, ==, MXL_STATUS_OK);
  g_assert_true (mxl_target_info_equal (info, back));
  g_assert_cmpuint (back->id, ==, G_MAXUINT64);
  g_assert_cmpuint (back->regions[0].rkey, ==, 9007199254740993u);
  g_assert_cmpuint (back->regions[1].addr, ==, G_MAXUINT64);
  g_assert_cmpuint (back->regions[1].rkey, ==, G_MAXUINT64 - 1);
  g_assert_true (back->has_bounce_buffer);
  g_assert_cmpuint (back->bounce_entry_count, ==, 41);
  g_assert_cmpuint (back->bounce_entry_size, ==, 3856);
  g_assert_cmpstr (back->protocol, ==, "send");
  g_assert_cmpstr (back->flow_def, ==, "{\"id\":\"x/y\"}");
  g_assert_cmpstr (back->provider, ==, "tcp");
  mxl_target_info_free (info);
  mxl_target_info_free (back);
}

static void
test_spec_example (void)
{
  g_autoptr (GError) error = NULL;
  mxlStatus status;
  struct mxlFabricsTargetInfo_t *info = mxl_target_info_from_json (spec_example_a,
      &status, &error);
  g_autofree char *again = NULL;
  g_autofree char *expected = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (info->address_format, ==, 2);
  g_assert_cmpmem (info->fabric_address, info->fabric_address_len,
      sockaddr_127_35281, sizeof sockaddr_127_35281);
  g_assert_cmpuint (info->id, ==, G_GUINT64_CONSTANT (13835058055282163712));
  g_assert_cmpuint (info->n_regions, ==, 5);
  g_assert_cmpuint (info->regions[2].rkey, ==, G_GUINT64_CONSTANT (15501234567890123457));
  g_assert_cmpuint (info->regions[4].len, ==, 5537792);
  g_assert_false (info->has_bounce_buffer);
  g_assert_cmpstr (mxl_target_info_protocol (info), ==, "write");
  g_assert_null (info->flow_def);

  /* Written back: the same document plus our "ext" in its sorted place. */
  again = mxl_target_info_to_json (info);
  expected = replace_once (spec_example_a, "\"fabricAddress\"",
      "\"ext\":{\"protocol\":\"write\"},\"fabricAddress\"");
  g_assert_cmpstr (again, ==, expected);
  mxl_target_info_free (info);
}

static void
test_copy_equal (void)
{
  struct mxlFabricsTargetInfo_t *info = make_info ();
  struct mxlFabricsTargetInfo_t *copy = mxl_target_info_copy (info);

  g_assert_true (copy->fabric_address != info->fabric_address);
  g_assert_true (mxl_target_info_equal (info, copy));
  g_assert_cmpstr (copy->flow_def, ==, info->flow_def);
  /* provider and bounce info are not part of equality (§1.4). */
  g_free (copy->provider);
  copy->provider = g_strdup ("verbs");
  copy->bounce_entry_count = 1;
  g_assert_true (mxl_target_info_equal (info, copy));
  copy->regions[1].rkey ^= 1;
  g_assert_false (mxl_target_info_equal (info, copy));
  copy->regions[1].rkey ^= 1;
  copy->fabric_address[3] ^= 1;
  g_assert_false (mxl_target_info_equal (info, copy));
  copy->fabric_address[3] ^= 1;
  copy->id--;
  g_assert_false (mxl_target_info_equal (info, copy));
  copy->id++;
  copy->address_format = 3;
  g_assert_false (mxl_target_info_equal (info, copy));
  g_assert_false (mxl_target_info_equal (info, NULL));
  mxl_target_info_free (info);
  mxl_target_info_free (copy);
}

typedef struct {
  const char *accepted;
  guint64 id;
  guint32 format;
  gsize address_len;
  const char *protocol;
} Lenient;

static void
test_lenient_reading (void)
{
  static const Lenient cases[] = {
    /* Unknown keys at every level, reordered keys, blanks. */
    { "{ \"zzz\": [1, {\"a\": null}], \"regions\" : [ {\"rkey\":\"5\",\"x\":1,"
      "\"len\":\"64\",\"addr\":\"0\"} ], \"provider\":\"foo\", \"id\":\"7\","
      "\"fabricAddress\":\"AgCJ0X8AAAEAAAAAAAAAAA==\", \"addressFormat\": 2,"
      "\"bounceBufferInfo\":{\"entrySize\":\"8\",\"entryCount\":\"2\",\"y\":true},"
      "\"ext\":{\"future\":3} }", 7, 2, 16, "write" },
    /* "\/" escapes (the reference's serializer writes them): //v/ = ff fb ff. */
    { "{\"addressFormat\":9,\"fabricAddress\":\"\\/\\/v\\/\",\"id\":\"1\","
      "\"provider\":\"shm\",\"regions\":[{\"addr\":\"1\",\"len\":\"2\",\"rkey\":\"3\"}]}",
      1, 9, 3, "write" },
    /* Unpadded base64, format 17, integral double, blanks and '+' in numbers. */
    { "{\"addressFormat\":17,\"fabricAddress\":\"AgCJ0X8AAAEAAAAAAAAAAA\",\"id\":\" +42 \","
      "\"provider\":\"tcp\",\"regions\":[{\"addr\":\"0\",\"len\":\"1\",\"rkey\":\"0\"}],"
      "\"ext\":{\"protocol\":\"tagged\"}}", 42, 17, 16, "tagged" },
    { "{\"addressFormat\":3.0,\"fabricAddress\":\"AQ==\",\"id\":\"0\","
      "\"provider\":\"verbs\",\"regions\":[{\"addr\":\"0\",\"len\":\"1\",\"rkey\":\"0\"}]}",
      0, 3, 1, "write" },
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GError) error = NULL;
    mxlStatus status = MXL_ERR_UNKNOWN;
    struct mxlFabricsTargetInfo_t *info = mxl_target_info_from_json (cases[i].accepted,
        &status, &error);

    g_test_message ("case %u", i);
    g_assert_no_error (error);
    g_assert_cmpint (status, ==, MXL_STATUS_OK);
    g_assert_cmpuint (info->id, ==, cases[i].id);
    g_assert_cmpuint (info->address_format, ==, cases[i].format);
    g_assert_cmpuint (info->fabric_address_len, ==, cases[i].address_len);
    g_assert_cmpstr (mxl_target_info_protocol (info), ==, cases[i].protocol);
    g_assert_cmpuint (info->n_regions, ==, 1);
    if (i == 0) {
      g_assert_true (info->has_bounce_buffer);
      g_assert_cmpuint (info->bounce_entry_count, ==, 2);
      g_assert_cmpuint (info->bounce_entry_size, ==, 8);
      g_assert_cmpuint (info->regions[0].len, ==, 64);
      g_assert_cmpuint (info->regions[0].rkey, ==, 5);
      g_assert_cmpstr (info->provider, ==, "foo");
    }
    if (i == 1) {
      static const guint8 ff[] = { 0xff, 0xfb, 0xff };
      g_assert_cmpmem (info->fabric_address, info->fabric_address_len, ff, 3);
    }
    mxl_target_info_free (info);
  }
}

typedef struct {
  const char *from, *to;   /* edit of valid_doc; from NULL: @to is the document */
  const char *reason;      /* substring of the error message */
} Reject;

static const Reject rejects[] = {
  { NULL, "", "root must be an object" },
  { NULL, "   ", "" },
  { NULL, "[]", "root must be an object" },
  { NULL, "42", "root must be an object" },
  { NULL, "\"x\"", "root must be an object" },
  { NULL, "{not json", "not valid JSON" },
  { NULL, "{}", "\"addressFormat\" is missing" },
  { "\"addressFormat\":2,", "", "\"addressFormat\" is missing" },
  { "\"addressFormat\":2", "\"addressFormat\":\"2\"", "non-negative integer" },
  { "\"addressFormat\":2", "\"addressFormat\":true", "non-negative integer" },
  { "\"addressFormat\":2", "\"addressFormat\":null", "non-negative integer" },
  { "\"addressFormat\":2", "\"addressFormat\":2.5", "non-negative integer" },
  { "\"addressFormat\":2", "\"addressFormat\":-2", "non-negative integer" },
  { "\"addressFormat\":2", "\"addressFormat\":0", "not one of" },
  { "\"addressFormat\":2", "\"addressFormat\":5", "not one of" },
  { "\"addressFormat\":2", "\"addressFormat\":4294967298", "not one of" },
  { "\"fabricAddress\":\"AgCJ0X8AAAEAAAAAAAAAAA==\",", "", "\"fabricAddress\" is missing" },
  { "\"AgCJ0X8AAAEAAAAAAAAAAA==\"", "16", "\"fabricAddress\" must be a string" },
  { "AgCJ0X8AAAEAAAAAAAAAAA==", "", "zero bytes" },
  { "AgCJ0X8AAAEAAAAAAAAAAA==", "==", "zero bytes" },
  { "AgCJ0X8AAAEAAAAAAAAAAA==", "AgCJ0X8AAAEAAAAAAAAAA===", "padding" },
  { "AgCJ0X8AAAEAAAAAAAAAAA==", "AgCJ0X8AAAEAAAAAAAAAA=A", "alphabet" },
  { "AgCJ0X8AAAEAAAAAAAAAAA==", "AgCJ0X8AAAEAAAA*AAAAAA==", "alphabet" },
  { "AgCJ0X8AAAEAAAAAAAAAAA==", "AgCJ0", "not a valid encoding" },
  { "\"id\":\"7\",", "", "\"id\" is missing" },
  { "\"id\":\"7\"", "\"id\":7", "\"id\" must be a string" },
  { "\"id\":\"7\"", "\"id\":\"-7\"", "\"id\" is not an unsigned 64-bit decimal" },
  { "\"id\":\"7\"", "\"id\":\"\"", "\"id\" is not an unsigned" },
  { "\"id\":\"7\"", "\"id\":\"x7\"", "\"id\" is not an unsigned" },
  { "\"id\":\"7\"", "\"id\":\"7x\"", "\"id\" is not an unsigned" },
  { "\"id\":\"7\"", "\"id\":\"18446744073709551616\"", "\"id\" is not an unsigned" },
  { "\"provider\":\"tcp\",", "", "\"provider\" is missing" },
  { "\"provider\":\"tcp\"", "\"provider\":1", "\"provider\" must be a string" },
  { "[{\"addr\":\"0\",\"len\":\"64\",\"rkey\":\"5\"}]", "[]", "\"regions\" is empty" },
  { "[{\"addr\":\"0\",\"len\":\"64\",\"rkey\":\"5\"}]", "{}", "\"regions\" must be an array" },
  { "[{\"addr\":\"0\",\"len\":\"64\",\"rkey\":\"5\"}]", "[1]", "regions[0] must be an object" },
  { ",\"rkey\":\"5\"", "", "regions[0].\"rkey\" is missing" },
  { "\"len\":\"64\"", "\"len\":64", "regions[0].\"len\" must be a string" },
  { "\"rkey\":\"5\"}", "\"rkey\":\"5\"},{\"addr\":\"-1\",\"len\":\"1\",\"rkey\":\"1\"}",
    "regions[1].\"addr\" is not an unsigned" },
  { "\"id\"", "\"bounceBufferInfo\":{\"entryCount\":\"41\"},\"id\"",
    "bounceBufferInfo.\"entrySize\" is missing" },
  { "\"id\"", "\"bounceBufferInfo\":{\"entryCount\":41,\"entrySize\":\"8\"},\"id\"",
    "bounceBufferInfo.\"entryCount\" must be a string" },
  { "\"id\"", "\"bounceBufferInfo\":[],\"id\"", "\"bounceBufferInfo\" must be an object" },
  { "\"id\"", "\"ext\":\"write\",\"id\"", "\"ext\" must be an object" },
  { "\"id\"", "\"ext\":{\"protocol\":\"foo\"},\"id\"", "ext.\"protocol\" \"foo\" is not " },
  { "\"id\"", "\"ext\":{\"protocol\":1},\"id\"", "ext.\"protocol\" must be a string" },
  { "\"id\"", "\"ext\":{\"flowDef\":{}},\"id\"", "ext.\"flowDef\" must be a string" },
  { "\"id\"", "\"ext\":{\"recvSize\":4096},\"id\"", "ext.\"recvSize\" must be a string" },
  { "\"id\"", "\"ext\":{\"recvSize\":\"-1\"},\"id\"", "ext.\"recvSize\" is not an unsigned" },
  { "\"id\"", "\"ext\":{\"pid\":\"0\"},\"id\"", "ext.\"pid\" 0 is not a process id" },
  { "\"id\"", "\"ext\":{\"pid\":\"4194305\"},\"id\"", "ext.\"pid\" 4194305 is not a process id" },
  { "\"id\"", "\"ext\":{\"pid\":77},\"id\"", "ext.\"pid\" must be a string" },
};

static void
test_rejects (void)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (rejects); i++) {
    g_autofree char *doc = rejects[i].from == NULL ? g_strdup (rejects[i].to)
        : replace_once (valid_doc, rejects[i].from, rejects[i].to);
    g_autoptr (GError) error = NULL;
    mxlStatus status = MXL_STATUS_OK;
    struct mxlFabricsTargetInfo_t *info = mxl_target_info_from_json (doc, &status, &error);

    /* The protocol name is checked by the table, as the API does
     * (targetinfo-api.c). */
    if (info != NULL && mxl_protocol_check_info (info, &status, &error) == NULL)
      g_clear_pointer (&info, mxl_target_info_free);
    if (info != NULL)
      g_error ("case %u accepted: %s", i, doc);
    g_assert_cmpint (status, ==, MXL_ERR_INVALID_ARG);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    if (strstr (error->message, rejects[i].reason) == NULL)
      g_error ("case %u (%s): reason \"%s\" lacks \"%s\"", i, doc, error->message,
          rejects[i].reason);
    /* An unknown protocol: the reason names every protocol of the public
     * list (mxlFabricsExtGetProtocol()), however many there are. */
    if (strstr (rejects[i].reason, "ext.\"protocol\" \"foo\"") != NULL) {
      mxlFabricsExtProtocolInfo pi;
      size_t n;

      for (n = 0; mxlFabricsExtGetProtocol (n, &pi) == MXL_STATUS_OK; n++)
        g_assert_nonnull (strstr (strstr (error->message, " is not "), pi.name));
      g_assert_cmpuint (n, >=, 1);
    }
  }
}

static void
test_rejects_deep_nesting (void)
{
  g_autoptr (GString) doc = g_string_new ("{\"zzz\":");
  g_autoptr (GError) error = NULL;
  mxlStatus status;
  guint i;

  for (i = 0; i < 100000; i++)
    g_string_append_c (doc, '[');
  for (i = 0; i < 100000; i++)
    g_string_append_c (doc, ']');
  g_string_append_c (doc, '}');
  g_assert_null (mxl_target_info_from_json (doc->str, &status, &error));
  g_assert_cmpint (status, ==, MXL_ERR_INVALID_ARG);
  g_assert_nonnull (strstr (error->message, "nested deeper"));
}

static void
test_api_to_string (void)
{
  struct mxlFabricsTargetInfo_t *info = make_info ();
  size_t size = 0, len = strlen (make_info_json);
  char *buf;

  g_assert_cmpint (mxlFabricsTargetInfoToString (info, NULL, &size), ==, MXL_STATUS_OK);
  g_assert_cmpuint (size, ==, len + 1);

  buf = g_malloc (len + 1);
  memset (buf, 'Z', len + 1);
  size = len;
  g_assert_cmpint (mxlFabricsTargetInfoToString (info, buf, &size), ==, MXL_ERR_STRLEN);
  size = 0;
  g_assert_cmpint (mxlFabricsTargetInfoToString (info, buf, &size), ==, MXL_ERR_STRLEN);
  size = len + 1;
  g_assert_cmpint (mxlFabricsTargetInfoToString (info, buf, &size), ==, MXL_STATUS_OK);
  g_assert_cmpstr (buf, ==, make_info_json);

  g_assert_cmpint (mxlFabricsTargetInfoToString (NULL, buf, &size), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsTargetInfoToString (info, buf, NULL), ==, MXL_ERR_INVALID_ARG);
  g_free (buf);
  g_assert_cmpint (mxlFabricsFreeTargetInfo (info), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsFreeTargetInfo (NULL), ==, MXL_ERR_INVALID_ARG);
}

/* B8: ToString(NULL) for the size, ToString, FromString, compare. */
static void
test_api_round_trip (void)
{
  struct mxlFabricsTargetInfo_t *info = make_info ();
  mxlFabricsTargetInfo back = NULL;
  size_t size = 0;
  char *buf;

  g_assert_cmpint (mxlFabricsTargetInfoToString (info, NULL, &size), ==, MXL_STATUS_OK);
  buf = g_malloc (size);
  g_assert_cmpint (mxlFabricsTargetInfoToString (info, buf, &size), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsTargetInfoFromString (buf, &back), ==, MXL_STATUS_OK);
  g_assert_true (mxl_target_info_equal (info, back));
  g_free (buf);
  mxlFabricsFreeTargetInfo (back);
  mxlFabricsFreeTargetInfo (info);
}

static void
test_api_from_string_rejects (void)
{
  mxlFabricsTargetInfo out = NULL;

  g_test_expect_message ("mxlfabrics", G_LOG_LEVEL_MESSAGE, "*\"regions\" is empty*");
  g_assert_cmpint (mxlFabricsTargetInfoFromString (
          "{\"addressFormat\":2,\"fabricAddress\":\"AQ==\",\"id\":\"1\","
          "\"provider\":\"tcp\",\"regions\":[]}", &out), ==, MXL_ERR_INVALID_ARG);
  g_test_assert_expected_messages ();
  g_assert_null (out);

  g_test_expect_message ("mxlfabrics", G_LOG_LEVEL_MESSAGE, "*not valid JSON*");
  g_assert_cmpint (mxlFabricsTargetInfoFromString ("{not json", &out), ==,
      MXL_ERR_INVALID_ARG);
  g_test_assert_expected_messages ();
  g_assert_null (out);

  g_assert_cmpint (mxlFabricsTargetInfoFromString (NULL, &out), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsTargetInfoFromString (valid_doc, NULL), ==, MXL_ERR_INVALID_ARG);
}

static void
assert_user_string_gives_example (const char *text)
{
  g_autoptr (GError) error = NULL;
  mxlStatus status = MXL_ERR_UNKNOWN;
  struct mxlFabricsTargetInfo_t *info = mxl_target_info_from_user_string (text,
      &status, &error);

  g_assert_no_error (error);
  g_assert_cmpint (status, ==, MXL_STATUS_OK);
  g_assert_cmpuint (info->id, ==, G_GUINT64_CONSTANT (13835058055282163712));
  g_assert_cmpuint (info->n_regions, ==, 5);
  g_assert_cmpuint (info->regions[4].rkey, ==, G_GUINT64_CONSTANT (9876543210987654321));
  mxl_target_info_free (info);
}

static void
test_user_string (void)
{
  g_autofree char *b64 = g_base64_encode ((const guchar *) spec_example_a,
      strlen (spec_example_a));
  g_autoptr (GString) wrapped = g_string_new (NULL);
  g_autofree char *padded_json = g_strconcat ("  \n", spec_example_a, "\n", NULL);
  g_autofree char *dir = NULL;
  g_autofree char *json_path = NULL, *b64_path = NULL, *at = NULL;
  g_autoptr (GError) error = NULL;
  gsize i;

  /* The demo tool's wrapping: 548 characters, known prefix (§1.6). */
  g_assert_cmpuint (strlen (b64), ==, 548);
  g_assert_true (g_str_has_prefix (b64,
          "eyJhZGRyZXNzRm9ybWF0IjoyLCJmYWJyaWNBZGRyZXNzIjoiQWdDSjBYOEFBQUVB"));

  assert_user_string_gives_example (spec_example_a);
  assert_user_string_gives_example (padded_json);
  assert_user_string_gives_example (b64);
  /* Line-wrapped base64 as copied from a terminal. */
  for (i = 0; b64[i] != '\0'; i++) {
    g_string_append_c (wrapped, b64[i]);
    if (i % 76 == 75)
      g_string_append (wrapped, "\r\n");
  }
  assert_user_string_gives_example (wrapped->str);

  dir = g_dir_make_tmp ("test-targetinfo-XXXXXX", &error);
  g_assert_no_error (error);
  json_path = g_build_filename (dir, "info.json", NULL);
  b64_path = g_build_filename (dir, "info.b64", NULL);
  g_assert_true (g_file_set_contents (json_path, padded_json, -1, &error));
  g_assert_true (g_file_set_contents (b64_path, wrapped->str, -1, &error));
  at = g_strconcat ("@", json_path, NULL);
  assert_user_string_gives_example (at);
  g_clear_pointer (&at, g_free);
  at = g_strconcat ("@", b64_path, NULL);
  assert_user_string_gives_example (at);

  /* Missing file: the GFileError comes back. */
  {
    g_autofree char *missing = g_strconcat ("@", dir, "/nope.json", NULL);
    mxlStatus status = MXL_STATUS_OK;
    g_assert_null (mxl_target_info_from_user_string (missing, &status, &error));
    g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
    g_assert_cmpint (status, ==, MXL_ERR_INVALID_ARG);
    g_clear_error (&error);
  }
  g_assert_cmpint (g_unlink (json_path), ==, 0);
  g_assert_cmpint (g_unlink (b64_path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static void
test_user_string_rejects (void)
{
  /* base64 of "hello" (not JSON), of "[1]" (not an object), of bytes with a
   * NUL, and text that is neither JSON nor base64. */
  static const struct { const char *text; const char *reason; } cases[] = {
    { "aGVsbG8=", "not valid JSON" },
    { "WzFd", "root must be an object" },
    { "AAEC", "does not decode to UTF-8 JSON text" },
    { "not base64!", "neither a JSON document nor its base64" },
    { "", "neither a JSON document nor its base64" },
    { "{\"addressFormat\":2}", "\"fabricAddress\" is missing" },
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    g_autoptr (GError) error = NULL;
    mxlStatus status = MXL_STATUS_OK;

    g_assert_null (mxl_target_info_from_user_string (cases[i].text, &status, &error));
    g_assert_cmpint (status, ==, MXL_ERR_INVALID_ARG);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    if (strstr (error->message, cases[i].reason) == NULL)
      g_error ("case %u: \"%s\" lacks \"%s\"", i, error->message, cases[i].reason);
  }
}

static void
test_protocol_names (void)
{
  mxlFabricsExtProtocolInfo pi;
  size_t i;

  /* The names come from the protocol table (protocol_table.c), which the
   * public list enumerates: each finds its own row, whatever their number. */
  for (i = 0; mxlFabricsExtGetProtocol (i, &pi) == MXL_STATUS_OK; i++) {
    g_assert_cmpuint (i, <, mxl_n_protocols);
    g_assert_cmpstr (mxl_protocols[i]->name, ==, pi.name);
    g_assert_true (mxl_protocol_lookup (pi.name) == mxl_protocols[i]);
  }
  g_assert_cmpuint (i, ==, mxl_n_protocols);
  g_assert_nonnull (mxl_protocol_lookup (MXL_TARGET_INFO_DEFAULT_PROTOCOL));
  g_assert_null (mxl_protocol_lookup ("Write"));
  g_assert_null (mxl_protocol_lookup (""));
  g_assert_null (mxl_protocol_lookup (NULL));
}

/* mxlFabricsExtTargetInfoParse hands the reason back (the sink's ERROR
 * shows it) and parses what FromString parses. */
static void
test_parse_with_reason (void)
{
  const char *good = "{\"addressFormat\":2,\"fabricAddress\":\"AgCJ0X8AAAEAAAAAAAAAAA==\","
      "\"id\":\"7\",\"provider\":\"tcp\",\"regions\":[{\"addr\":\"0\",\"len\":\"8192\","
      "\"rkey\":\"42\"}]}";
  mxlFabricsTargetInfo info = NULL;
  char *reason = (char *) "unset";
  uint64_t id = 0;

  g_assert_cmpint (mxlFabricsExtTargetInfoParse ("{\"x\":1}", &info, &reason),
      ==, MXL_ERR_INVALID_ARG);
  g_assert_null (info);
  g_assert_nonnull (reason);
  g_assert_nonnull (strstr (reason, "addressFormat"));
  free (reason);

  reason = (char *) "unset";
  g_assert_cmpint (mxlFabricsExtTargetInfoParse (good, &info, &reason), ==,
      MXL_STATUS_OK);
  g_assert_null (reason);
  g_assert_cmpint (mxlFabricsExtTargetInfoGetId (info, &id), ==, MXL_STATUS_OK);
  g_assert_cmpuint (id, ==, 7);
  g_assert_cmpint (mxlFabricsFreeTargetInfo (info), ==, MXL_STATUS_OK);

  /* the reason is optional */
  g_assert_cmpint (mxlFabricsExtTargetInfoParse ("[]", &info, NULL), ==,
      MXL_ERR_INVALID_ARG);
}

/* The provider a TargetInfo names: known names map to their value, an
 * unknown one (accepted, §1.4 step 8) to ANY, with the name as written. */
static void
test_get_provider (void)
{
  static const struct {
    const char *name;
    mxlFabricsProvider want;
  } cases[] = {
    { "tcp", MXL_FABRICS_PROVIDER_TCP }, { "shm", MXL_FABRICS_PROVIDER_SHM },
    { "verbs", MXL_FABRICS_PROVIDER_VERBS }, { "efa", MXL_FABRICS_PROVIDER_EFA },
    { "tcp;ofi_rxm", MXL_FABRICS_EXT_PROVIDER_TCP_RXM },
    { "rdma-magic", MXL_FABRICS_PROVIDER_ANY }, { "TCP", MXL_FABRICS_PROVIDER_ANY },
    { "unknown", MXL_FABRICS_PROVIDER_ANY }, { "", MXL_FABRICS_PROVIDER_ANY },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    char *json = g_strdup_printf ("{\"addressFormat\":2,\"fabricAddress\":"
        "\"AgCJ0X8AAAEAAAAAAAAAAA==\",\"id\":\"7\",\"provider\":\"%s\","
        "\"regions\":[{\"addr\":\"0\",\"len\":\"64\",\"rkey\":\"1\"}]}",
        cases[i].name);
    mxlFabricsTargetInfo info = NULL;
    mxlFabricsProvider p = (mxlFabricsProvider) 999;
    const char *name = NULL;

    g_assert_cmpint (mxlFabricsTargetInfoFromString (json, &info), ==, MXL_STATUS_OK);
    g_assert_cmpint (mxlFabricsExtTargetInfoGetProvider (info, &p, &name), ==,
        MXL_STATUS_OK);
    g_assert_cmpint (p, ==, cases[i].want);
    g_assert_cmpstr (name, ==, cases[i].name);
    p = (mxlFabricsProvider) 999;
    g_assert_cmpint (mxlFabricsExtTargetInfoGetProvider (info, &p, NULL), ==,
        MXL_STATUS_OK);
    g_assert_cmpint (p, ==, cases[i].want);
    g_assert_cmpint (mxlFabricsExtTargetInfoGetProvider (info, NULL, &name), ==,
        MXL_ERR_INVALID_ARG);
    mxlFabricsFreeTargetInfo (info);
    g_free (json);
  }
  {
    mxlFabricsProvider p;
    g_assert_cmpint (mxlFabricsExtTargetInfoGetProvider (NULL, &p, NULL), ==,
        MXL_ERR_INVALID_ARG);
  }
}

/* @text splits into exactly the NULL-terminated @want, by the public call
 * (the rule: <mxl/fabrics-ext.h>, mxlFabricsExtSplitTargetInfoList()). */
static void
check_split (const char *text, const char *const *want)
{
  char **got = NULL;
  size_t count = 99, i;

  g_assert_cmpint (mxlFabricsExtSplitTargetInfoList (text, &got, &count), ==,
      MXL_STATUS_OK);
  for (i = 0; want[i] != NULL; i++) {
    if (got[i] == NULL)
      g_error ("\"%s\": %zu sources, wanted more", text, i);
    g_assert_cmpstr (got[i], ==, want[i]);
  }
  g_assert_null (got[i]);
  g_assert_cmpuint (count, ==, i);
  mxlFabricsExtFreeTargetInfoList (got);
}

/* ';' and ',' separate, never inside a JSON source (strings and escapes
 * honoured); a ',' ends an @path only before a new '@' or '{' source; one
 * source comes back as given (the cases of tests/gst/test-target-states.c
 * split-list, which checks the sink's use of this call). */
static void
test_split_list (void)
{
  const char *none[] = { NULL };
  const char *one_json[] = { "{\"provider\":\"tcp;ofi_rxm\",\"a\":[1,2]}",
    NULL
  };
  const char *two_json[] = { "{\"p\":\"a;b\",\"x\":\"}\\\"{\"}", "{\"q\":1}",
    NULL
  };
  const char *paths[] = { "@/tmp/a.json", "@/tmp/b.json", NULL };
  const char *comma_path[] = { "@/tmp/a,b.json", NULL };
  const char *mixed[] = { "@/tmp/a,b.json", "{\"q\":1}", "ZXlK", "@/c",
    NULL
  };
  const char *tail[] = { "{\"q\":1} x", "ZXlK", NULL };
  const char *spaced[] = { " @/tmp/a.json ", NULL };
  char **got = NULL;

  check_split (NULL, none);
  check_split ("", none);
  check_split (" ; , ", none);
  check_split (one_json[0], one_json);
  check_split ("{\"p\":\"a;b\",\"x\":\"}\\\"{\"} ; {\"q\":1}", two_json);
  check_split ("{\"p\":\"a;b\",\"x\":\"}\\\"{\"},{\"q\":1}", two_json);
  check_split ("@/tmp/a.json;@/tmp/b.json", paths);
  check_split ("@/tmp/a.json, @/tmp/b.json", paths);
  check_split ("@/tmp/a.json,@/tmp/b.json;", paths);
  check_split ("@/tmp/a,b.json", comma_path);
  check_split ("@/tmp/a,b.json,{\"q\":1},ZXlK;@/c", mixed);
  /* what follows a JSON source's brace stays in it, to the separator */
  check_split ("{\"q\":1} x;ZXlK", tail);
  /* one source: as given */
  check_split (" @/tmp/a.json ", spaced);
  g_assert_cmpint (mxlFabricsExtSplitTargetInfoList ("@/a", NULL, NULL), ==,
      MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsExtSplitTargetInfoList ("@/a", &got, NULL), ==,
      MXL_STATUS_OK);
  g_assert_cmpstr (got[0], ==, "@/a");
  mxlFabricsExtFreeTargetInfoList (got);
  mxlFabricsExtFreeTargetInfoList (NULL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/targetinfo/get-provider", test_get_provider);
  g_test_add_func ("/fabrics/targetinfo/to-json-exact", test_to_json_exact);
  g_test_add_func ("/fabrics/targetinfo/round-trip-64bit", test_round_trip_64bit);
  g_test_add_func ("/fabrics/targetinfo/recv-size", test_recv_size);
  g_test_add_func ("/fabrics/targetinfo/owner-pid", test_owner_pid);
  g_test_add_func ("/fabrics/targetinfo/path-b", test_path_b);
  g_test_add_func ("/fabrics/targetinfo/claim-region", test_claim_region);
  g_test_add_func ("/fabrics/targetinfo/eos-key", test_eos_key);
  g_test_add_func ("/fabrics/targetinfo/parse-with-reason", test_parse_with_reason);
  g_test_add_func ("/fabrics/targetinfo/spec-example", test_spec_example);
  g_test_add_func ("/fabrics/targetinfo/copy-equal", test_copy_equal);
  g_test_add_func ("/fabrics/targetinfo/lenient-reading", test_lenient_reading);
  g_test_add_func ("/fabrics/targetinfo/rejects", test_rejects);
  g_test_add_func ("/fabrics/targetinfo/rejects-deep-nesting", test_rejects_deep_nesting);
  g_test_add_func ("/fabrics/targetinfo/api-to-string", test_api_to_string);
  g_test_add_func ("/fabrics/targetinfo/api-round-trip", test_api_round_trip);
  g_test_add_func ("/fabrics/targetinfo/api-from-string-rejects", test_api_from_string_rejects);
  g_test_add_func ("/fabrics/targetinfo/user-string", test_user_string);
  g_test_add_func ("/fabrics/targetinfo/user-string-rejects", test_user_string_rejects);
  g_test_add_func ("/fabrics/targetinfo/protocol-names", test_protocol_names);
  g_test_add_func ("/fabrics/targetinfo/credits", test_credits);
  g_test_add_func ("/fabrics/targetinfo/split-list", test_split_list);
  return g_test_run ();
}
