/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Address rendering and base64 (docs/wire-format.md §8.3 U1, U2). */
#include <arpa/inet.h>
#include <endian.h>
#include <gio/gio.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "fabrics/ofi/address.h"
#include "fabrics/ofi/localpeers.h"
#include "fabrics/wire/base64.h"

static struct sockaddr_in
make_in (const char *ip, guint16 port)
{
  struct sockaddr_in sin;

  memset (&sin, 0, sizeof sin);
  sin.sin_family = AF_INET;
  sin.sin_port = htons (port);
  g_assert_cmpint (inet_pton (AF_INET, ip, &sin.sin_addr), ==, 1);
  return sin;
}

static struct sockaddr_in6
make_in6 (const char *ip, guint16 port)
{
  struct sockaddr_in6 sin6;

  memset (&sin6, 0, sizeof sin6);
  sin6.sin6_family = AF_INET6;
  sin6.sin6_port = htons (port);
  g_assert_cmpint (inet_pton (AF_INET6, ip, &sin6.sin6_addr), ==, 1);
  return sin6;
}

/* libfabric's ofi_sockaddr_ib, byte by byte (48 bytes). */
static void
make_ib (guint8 out[MXL_SOCKADDR_IB_LEN], const char *gid, guint16 pkey,
    guint16 port_space, guint64 scope, guint16 port)
{
  guint16 family = AF_IB, be_pkey = htons (pkey);
  guint64 sid = htobe64 (((guint64) port_space << 16) | port);
  guint64 be_scope = htobe64 (scope);

  memset (out, 0, MXL_SOCKADDR_IB_LEN);
  memcpy (out, &family, 2);
  memcpy (out + 2, &be_pkey, 2);
  g_assert_cmpint (inet_pton (AF_INET6, gid, out + 8), ==, 1);
  memcpy (out + 24, &sid, 8);
  memcpy (out + 40, &be_scope, 8);
}

static void
make_efa (guint8 out[MXL_EFA_ADDR_LEN], const char *gid, guint16 qpn, guint32 qkey)
{
  memset (out, 0, MXL_EFA_ADDR_LEN);
  g_assert_cmpint (inet_pton (AF_INET6, gid, out), ==, 1);
  memcpy (out + 16, &qpn, 2);
  memcpy (out + 20, &qkey, 4);
}

static void
assert_renders (guint32 format, const void *addr, gsize len,
    const char *expected, const char *expected_host)
{
  g_autofree char *s = mxl_fabric_address_to_string (format, addr, len);
  g_autofree char *h = mxl_fabric_address_host (format, addr, len);

  g_assert_cmpstr (s, ==, expected);
  g_assert_cmpstr (h, ==, expected_host);
}

static void
test_sockaddr_in (void)
{
  struct sockaddr_in sin = make_in ("10.130.40.13", 9000);
  struct sockaddr_in zero = make_in ("10.130.40.13", 0);

  assert_renders (MXL_ADDR_FORMAT_SOCKADDR_IN, &sin, sizeof sin,
      "fi_sockaddr_in://10.130.40.13:9000", "10.130.40.13");
  assert_renders (MXL_ADDR_FORMAT_SOCKADDR_IN, &zero, sizeof zero,
      "fi_sockaddr_in://10.130.40.13:0", "10.130.40.13");
  /* FI_SOCKADDR and FI_SOCKADDR_IP dispatch on the family. */
  assert_renders (MXL_ADDR_FORMAT_SOCKADDR, &sin, sizeof sin,
      "fi_sockaddr_in://10.130.40.13:9000", "10.130.40.13");
  assert_renders (MXL_ADDR_FORMAT_SOCKADDR_IP, &sin, sizeof sin,
      "fi_sockaddr_in://10.130.40.13:9000", "10.130.40.13");
}

static void
test_sockaddr_in6 (void)
{
  struct sockaddr_in6 sin6 = make_in6 ("2001:db8::1", 443);

  assert_renders (MXL_ADDR_FORMAT_SOCKADDR_IN6, &sin6, sizeof sin6,
      "fi_sockaddr_in6://[2001:db8::1]:443", "2001:db8::1");
  assert_renders (MXL_ADDR_FORMAT_SOCKADDR_IP, &sin6, sizeof sin6,
      "fi_sockaddr_in6://[2001:db8::1]:443", "2001:db8::1");
}

static void
test_efa (void)
{
  guint8 efa[MXL_EFA_ADDR_LEN];

  make_efa (efa, "fe80::1", 12, 34);
  assert_renders (MXL_ADDR_FORMAT_EFA, efa, sizeof efa,
      "fi_addr_efa://[fe80::1]:12:34", "fe80::1");
  make_efa (efa, "fe80::1", 65535, 0xffffffffu);
  assert_renders (MXL_ADDR_FORMAT_EFA, efa, sizeof efa,
      "fi_addr_efa://[fe80::1]:65535:4294967295", "fe80::1");
}

static void
test_ib (void)
{
  guint8 ib[MXL_SOCKADDR_IB_LEN];

  make_ib (ib, "fe80::1", 0x1234, 0x10b, 0xff, 0x1f90);
  assert_renders (MXL_ADDR_FORMAT_SOCKADDR_IB, ib, sizeof ib,
      "fi_sockaddr_ib://[fe80::1]:0x1234:0x10b:0xff", "fe80::1");
  /* FI_SOCKADDR includes IB; FI_SOCKADDR_IP does not. */
  assert_renders (MXL_ADDR_FORMAT_SOCKADDR, ib, sizeof ib,
      "fi_sockaddr_ib://[fe80::1]:0x1234:0x10b:0xff", "fe80::1");
  assert_renders (MXL_ADDR_FORMAT_SOCKADDR_IP, ib, sizeof ib, NULL, NULL);
}

static void
test_str (void)
{
  static const char shm[] = "fi_ns://target:test";   /* 20 bytes incl. NUL */
  static const guint8 ctrl[] = { 'a', 0x07, 'b', 0 };

  assert_renders (MXL_ADDR_FORMAT_STR, shm, sizeof shm,
      "fi_ns://target:test", "target");
  /* Without a NUL inside @len: the @len bytes. */
  assert_renders (MXL_ADDR_FORMAT_STR, shm, 14, "fi_ns://target", "target");
  assert_renders (MXL_ADDR_FORMAT_STR, "plainhost", 10, "plainhost", "plainhost");
  assert_renders (MXL_ADDR_FORMAT_STR, ctrl, sizeof ctrl, NULL, NULL);
  assert_renders (MXL_ADDR_FORMAT_STR, "", 1, NULL, NULL);
}

static void
test_undecodable (void)
{
  struct sockaddr_in sin = make_in ("10.0.0.1", 9000);
  struct sockaddr_in6 sin6 = make_in6 ("fe80::1", 1);
  guint8 efa[MXL_EFA_ADDR_LEN], ib[MXL_SOCKADDR_IB_LEN];
  struct sockaddr unspec;
  g_autofree char *described = NULL;

  make_efa (efa, "fe80::1", 12, 34);
  make_ib (ib, "fe80::1", 1, 2, 3, 4);
  memset (&unspec, 0, sizeof unspec);
  unspec.sa_family = AF_UNSPEC;

  assert_renders (MXL_ADDR_FORMAT_SOCKADDR_IN, NULL, sizeof sin, NULL, NULL);
  assert_renders (MXL_ADDR_FORMAT_SOCKADDR_IN, &sin, sizeof sin - 1, NULL, NULL);
  assert_renders (MXL_ADDR_FORMAT_SOCKADDR_IN6, &sin6, sizeof sin6 - 1, NULL, NULL);
  assert_renders (MXL_ADDR_FORMAT_SOCKADDR_IN6, efa, sizeof efa, NULL, NULL);
  assert_renders (MXL_ADDR_FORMAT_EFA, efa, sizeof efa - 1, NULL, NULL);
  assert_renders (MXL_ADDR_FORMAT_SOCKADDR_IB, ib, sizeof ib - 1, NULL, NULL);
  assert_renders (0, &sin, sizeof sin, NULL, NULL);
  assert_renders (5, &sin, sizeof sin, NULL, NULL);
  assert_renders (MXL_ADDR_FORMAT_SOCKADDR, &unspec, sizeof unspec, NULL, NULL);
  assert_renders (MXL_ADDR_FORMAT_SOCKADDR, &sin, 1, NULL, NULL);
  /* The family must match the declared format. */
  assert_renders (MXL_ADDR_FORMAT_SOCKADDR_IN, &sin6, sizeof sin6, NULL, NULL);

  described = mxl_fabric_address_describe (MXL_ADDR_FORMAT_SOCKADDR, &unspec,
      sizeof unspec);
  g_assert_cmpstr (described, ==, "empty");
  g_clear_pointer (&described, g_free);
  described = mxl_fabric_address_describe (MXL_ADDR_FORMAT_SOCKADDR_IN, &sin,
      sizeof sin);
  g_assert_cmpstr (described, ==, "fi_sockaddr_in://10.0.0.1:9000");
}

static void
test_formats (void)
{
  static const guint32 ok[] = { 1, 2, 3, 4, 9, 12, 17 };
  guint32 f;
  guint i, n_ok = 0;

  for (f = 0; f < 64; f++) {
    gboolean expected = FALSE;
    for (i = 0; i < G_N_ELEMENTS (ok); i++)
      expected |= ok[i] == f;
    g_assert_cmpint (mxl_address_format_is_supported (f), ==, expected);
    n_ok += expected;
  }
  g_assert_cmpuint (n_ok, ==, 7);
  g_assert_cmpstr (mxl_address_format_name (2), ==, "FI_SOCKADDR_IN");
  g_assert_cmpstr (mxl_address_format_name (17), ==, "FI_SOCKADDR_IP");
  g_assert_cmpstr (mxl_address_format_name (0), ==, "FI_FORMAT_UNSPEC");
  g_assert_cmpstr (mxl_address_format_name (5), ==, "unknown");
}

static void
test_base64_round_trip (void)
{
  static const guint8 five[] = { 1, 2, 3, 4, 5 };
  g_autofree char *empty = mxl_base64_encode (NULL, 0);
  g_autofree char *enc = mxl_base64_encode (five, sizeof five);
  g_autofree guint8 *dec = NULL;
  g_autofree guint8 *unpadded = NULL;
  g_autoptr (GError) error = NULL;
  gsize len = 0;

  g_assert_cmpstr (empty, ==, "");
  g_assert_cmpstr (enc, ==, "AQIDBAU=");
  dec = mxl_base64_decode ("AQIDBAU=", -1, &len, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (dec, len, five, sizeof five);
  /* Lenient: unpadded input decodes to the same bytes (docs/wire-format.md §1.5). */
  unpadded = mxl_base64_decode ("AQIDBAU", -1, &len, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (unpadded, len, five, sizeof five);
}

static void
test_base64_rejects (void)
{
  static const char *const bad[] = {
    "",          /* zero bytes */
    "=",         /* only padding */
    "==",
    "A",         /* 1 mod 4 */
    "AQIDB",     /* 1 mod 4 */
    "A===",      /* three '=' */
    "AB=C",      /* '=' inside */
    "AQ=",       /* padded, not a multiple of 4 */
    "AQI==",     /* wrong amount of padding for the body */
    "AQID*AU=",  /* outside the alphabet */
    "AQ-_",      /* URL-safe alphabet is not the standard one */
    "AQ ID",     /* blank */
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_autoptr (GError) error = NULL;
    gsize len = 0;
    guint8 *dec = mxl_base64_decode (bad[i], -1, &len, &error);

    if (dec != NULL)
      g_error ("base64 \"%s\" was accepted", bad[i]);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  }
}

/* docs/libfabric-notes.md P17: one more '/' after "://", within 255 bytes. */
static void
test_shm_separate_mapping (void)
{
  const char a[] = "fi_ns://mxlfabrics-42-1:0:3";
  char big[300];
  char *s;

  s = mxl_shm_address_separate_mapping (a, sizeof a);
  g_assert_cmpstr (s, ==, "fi_ns:///mxlfabrics-42-1:0:3");
  g_free (s);
  s = mxl_shm_address_separate_mapping ("fi_shm://7", 11);
  g_assert_cmpstr (s, ==, "fi_shm:///7");
  g_free (s);
  /* no NUL within len, no scheme, NULL */
  g_assert_null (mxl_shm_address_separate_mapping (a, sizeof a - 1));
  g_assert_null (mxl_shm_address_separate_mapping ("plain:0:1", 10));
  g_assert_null (mxl_shm_address_separate_mapping (NULL, 4));
  g_assert_null (mxl_shm_address_separate_mapping (a, 0));
  /* 254 characters give a 255-character alias plus NUL: 256, the limit */
  memset (big, 'n', sizeof big);
  memcpy (big, "fi_ns://", 8);
  big[254] = '\0';
  s = mxl_shm_address_separate_mapping (big, 255);
  g_assert_nonnull (s);
  g_assert_cmpuint (strlen (s), ==, 255);
  g_free (s);
  big[254] = 'n';
  big[255] = '\0';
  g_assert_null (mxl_shm_address_separate_mapping (big, 256));
}

/* localpeers.h: registrations count, removal of an unknown one is a no-op. */
static void
test_local_peers (void)
{
  const char a[] = "fi_ns://t:1", b[] = "fi_ns://t:2";

  g_assert_false (mxl_local_peer_alive (a, sizeof a));
  mxl_local_peer_add (a, sizeof a);
  mxl_local_peer_add (a, sizeof a);
  g_assert_true (mxl_local_peer_alive (a, sizeof a));
  g_assert_false (mxl_local_peer_alive (b, sizeof b));
  g_assert_false (mxl_local_peer_alive (a, sizeof a - 1));
  mxl_local_peer_remove (b, sizeof b);
  mxl_local_peer_remove (a, sizeof a);
  g_assert_true (mxl_local_peer_alive (a, sizeof a));
  mxl_local_peer_remove (a, sizeof a);
  g_assert_false (mxl_local_peer_alive (a, sizeof a));
  mxl_local_peer_remove (a, sizeof a);
  g_assert_false (mxl_local_peer_alive (NULL, 0));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/address/sockaddr-in", test_sockaddr_in);
  g_test_add_func ("/fabrics/address/sockaddr-in6", test_sockaddr_in6);
  g_test_add_func ("/fabrics/address/efa", test_efa);
  g_test_add_func ("/fabrics/address/sockaddr-ib", test_ib);
  g_test_add_func ("/fabrics/address/str", test_str);
  g_test_add_func ("/fabrics/address/undecodable", test_undecodable);
  g_test_add_func ("/fabrics/address/formats", test_formats);
  g_test_add_func ("/fabrics/address/shm-separate-mapping", test_shm_separate_mapping);
  g_test_add_func ("/fabrics/local-peers", test_local_peers);
  g_test_add_func ("/fabrics/base64/round-trip", test_base64_round_trip);
  g_test_add_func ("/fabrics/base64/rejects", test_base64_rejects);
  return g_test_run ();
}
