/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of the fabrics engine helpers (docs/wire-format.md §8.3 U4-U8
 * and more): layout and write splitting, immediate data and grain header
 * checks, provider names and fi_getinfo hints (verbs and efa included, built
 * without their hardware), memory regions and keys, status mapping, events.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <string.h>

#include <glib.h>

#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>

#include "fabrics/events.h"
#include "fabrics/wire/immdata.h"
#include "fabrics/wire/layout.h"
#include "fabrics/ofi/ofi.h"
#include "fabrics/ofi/provider.h"
#include "fabrics/protocol/protocol.h"

/* v210 and v210a 1920x1080 (docs/flow-format.md §3.10). */

/* The write protocol's capabilities in @role: what the ofi layer is asked
 * for on its behalf (the caps come from the protocol table only). */
static uint64_t
write_caps (MxlRole role)
{
  return mxl_protocol_lookup ("write")->caps[role];
}

/* fi_getinfo() for the write protocol. */
static mxlStatus
write_getinfo (const mxlFabricsInterfaceConfig *c, MxlRole role, struct fi_info **out,
    GError **error)
{
  return mxl_provider_getinfo_exact (c, role, write_caps (role), out, error);
}

static const uint32_t v210[4] = { 5120, 0, 0, 0 };
static const uint32_t v210a[4] = { 5120, 2560, 0, 0 };

/* U4 */
static void
test_planes (void)
{
  const uint32_t none[4] = { 0, 0, 0, 0 }, four[4] = { 100, 200, 300, 400 };
  MxlGrainLayout l;

  g_assert_cmpuint (mxl_layout_active_planes (none), ==, 0);
  g_assert_cmpuint (mxl_layout_active_planes (v210), ==, 1);
  g_assert_cmpuint (mxl_layout_active_planes (v210a), ==, 2);
  g_assert_cmpuint (mxl_layout_active_planes (four), ==, 4);

  mxl_grain_layout_init (&l, v210, 1080, 5529600);
  g_assert_cmpuint (mxl_layout_plane_offset (&l, 0), ==, 8192);
  g_assert_cmpuint (l.slot_size, ==, 5537792);
  mxl_grain_layout_init (&l, v210a, 1080, 8294400);
  g_assert_cmpuint (mxl_layout_plane_offset (&l, 1), ==, 8192 + 1080 * 5120);
  mxl_grain_layout_init (&l, four, 10, 10000);
  g_assert_cmpuint (mxl_layout_plane_offset (&l, 0), ==, 8192);
  g_assert_cmpuint (mxl_layout_plane_offset (&l, 1), ==, 8192 + 1000);
  g_assert_cmpuint (mxl_layout_plane_offset (&l, 2), ==, 8192 + 1000 + 2000);
  g_assert_cmpuint (mxl_layout_plane_offset (&l, 3), ==, 8192 + 1000 + 2000 + 3000);
}

/* U8 */
static void
test_slice_range (void)
{
  g_assert_true (mxl_layout_slice_range_valid (10, 20));
  g_assert_true (mxl_layout_slice_range_valid (5, 6));
  g_assert_true (mxl_layout_slice_range_valid (0, 0));
  g_assert_false (mxl_layout_slice_range_valid (10, 5));
  g_assert_cmpuint (mxl_layout_slice_range_size (540, 1080, 5120), ==, 540 * 5120);
  g_assert_cmpuint (mxl_layout_slice_offset (540, 8192, 5120), ==, 8192 + 540 * 5120);
}

/* §3.3 and its worked v210a example. */
static void
test_grain_runs (void)
{
  MxlGrainLayout l;
  MxlRun r[4];

  mxl_grain_layout_init (&l, v210a, 1080, 8294400);
  g_assert_cmpuint (mxl_layout_grain_runs (&l, 0, 1080, FALSE, r), ==, 1);
  g_assert_cmpuint (r[0].offset, ==, 0);
  g_assert_cmpuint (r[0].length, ==, 8192 + 8294400);

  g_assert_cmpuint (mxl_layout_grain_runs (&l, 540, 1080, FALSE, r), ==, 2);
  g_assert_cmpuint (r[0].offset, ==, 2772992);
  g_assert_cmpuint (r[0].length, ==, 2764800);
  g_assert_cmpuint (r[1].offset, ==, 6920192);
  g_assert_cmpuint (r[1].length, ==, 1382400);

  g_assert_cmpuint (mxl_layout_grain_runs (&l, 0, 540, FALSE, r), ==, 2);
  g_assert_cmpuint (r[0].offset, ==, 0);
  g_assert_cmpuint (r[0].length, ==, 2772992);
  g_assert_cmpuint (r[1].offset, ==, 5537792);
  g_assert_cmpuint (r[1].length, ==, 1382400);

  /* Header only (invalid grains) and [0, 0). */
  g_assert_cmpuint (mxl_layout_grain_runs (&l, 0, 1080, TRUE, r), ==, 1);
  g_assert_cmpuint (r[0].offset, ==, 0);
  g_assert_cmpuint (r[0].length, ==, 8192);
  g_assert_cmpuint (mxl_layout_grain_runs (&l, 0, 0, FALSE, r), ==, 1);
  g_assert_cmpuint (r[0].length, ==, 8192);
  /* [7, 7): slice 6 of plane 0 is sent again. */
  g_assert_cmpuint (mxl_layout_grain_runs (&l, 7, 7, FALSE, r), ==, 1);
  g_assert_cmpuint (r[0].offset, ==, 8192 + 6 * 5120);
  g_assert_cmpuint (r[0].length, ==, 5120);
  /* Invalid ranges. */
  g_assert_cmpuint (mxl_layout_grain_runs (&l, 10, 5, FALSE, r), ==, 0);
  g_assert_cmpuint (mxl_layout_grain_runs (&l, 0, 1081, FALSE, r), ==, 0);
}

static void
test_splitter (void)
{
  const MxlRun one[1] = { { 100, 10000 } };
  const MxlRun sgl[5] = { { 0, 16 }, { 1000, 1744 }, { 5000, 176 }, { 9000, 1744 }, { 20000, 176 } };
  const MxlRun empty[1] = { { 64, 0 } };
  MxlSplitter s;
  MxlChunk c;
  uint64_t total = 0, expect_remote = 0;
  guint n = 0;

  /* One contiguous run cut by max_msg: 4096 + 4096 + 1808. */
  mxl_splitter_init (&s, one, 1, 4, 4096);
  while (mxl_splitter_next (&s, &c)) {
    g_assert_cmpuint (c.n_iov, ==, 1);
    g_assert_cmpuint (c.remote_offset, ==, expect_remote);
    g_assert_cmpuint (c.iov[0].offset, ==, 100 + expect_remote);
    g_assert_cmpuint (c.last, ==, n == 2);
    expect_remote += c.length;
    n++;
  }
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpuint (expect_remote, ==, 10000);

  /* The spec's audio example (§4.3): k = 5 pieces, iov_limit 4 → 2 writes:
   * 3680 bytes then 176 with the immediate data. */
  mxl_splitter_init (&s, sgl, 5, 4, UINT64_MAX);
  g_assert_true (mxl_splitter_next (&s, &c));
  g_assert_cmpuint (c.n_iov, ==, 4);
  g_assert_cmpuint (c.length, ==, 3680);
  g_assert_false (c.last);
  g_assert_true (mxl_splitter_next (&s, &c));
  g_assert_cmpuint (c.n_iov, ==, 1);
  g_assert_cmpuint (c.length, ==, 176);
  g_assert_cmpuint (c.remote_offset, ==, 3680);
  g_assert_true (c.last);
  g_assert_false (mxl_splitter_next (&s, &c));

  /* iov_limit 1 and max_msg 1000 together: every write one iovec <= 1000. */
  mxl_splitter_init (&s, sgl, 5, 1, 1000);
  n = 0;
  while (mxl_splitter_next (&s, &c)) {
    g_assert_cmpuint (c.n_iov, ==, 1);
    g_assert_cmpuint (c.length, <=, 1000);
    g_assert_cmpuint (c.remote_offset, ==, total);
    total += c.length;
    n++;
  }
  g_assert_cmpuint (total, ==, 16 + 1744 + 176 + 1744 + 176);
  g_assert_cmpuint (n, ==, 1 + 2 + 1 + 2 + 1);
  g_assert_cmpuint (mxl_splitter_count (sgl, 5, 1, 1000), ==, 7);
  /* Clamped iov_limit: 0 behaves as 1, 100 as MXL_LAYOUT_MAX_IOV. */
  g_assert_cmpuint (mxl_splitter_count (sgl, 5, 0, UINT64_MAX), ==, 5);
  g_assert_cmpuint (mxl_splitter_count (sgl, 5, 100, UINT64_MAX), ==, 1);

  /* Only empty pieces: exactly one zero-length write. */
  mxl_splitter_init (&s, empty, 1, 4, 4096);
  g_assert_true (mxl_splitter_next (&s, &c));
  g_assert_cmpuint (c.length, ==, 0);
  g_assert_cmpuint (c.iov[0].offset, ==, 64);
  g_assert_true (c.last);
  g_assert_false (mxl_splitter_next (&s, &c));
}

/* §2.1 */
static void
test_immdata (void)
{
  uint32_t slot;
  uint16_t slices;

  g_assert_cmphex (mxl_imm_grain_encode (143 % 5, 1080), ==, 0x04380003);
  g_assert_cmphex (mxl_imm_grain_encode (143 % 5, 540), ==, 0x021C0003);
  g_assert_cmpint (mxl_imm_grain_decode (0x04380003, 5, 1080, &slot, &slices), ==, MXL_IMM_OK);
  g_assert_cmpuint (slot, ==, 3);
  g_assert_cmpuint (slices, ==, 1080);
  g_assert_cmpint (mxl_imm_grain_decode (0x04380005, 5, 1080, &slot, &slices), ==, MXL_IMM_BAD_SLOT);
  g_assert_cmpint (mxl_imm_grain_decode (0x04390003, 5, 1080, &slot, &slices), ==, MXL_IMM_BAD_SLICES);
  g_assert_cmpint (mxl_imm_grain_decode (0xFFFFFFFFu, 5, 1080, &slot, &slices), ==, MXL_IMM_BAD_SLOT);
  g_assert_cmpint (mxl_imm_grain_decode (UINT64_C (1) << 32 | 3, 5, 1080, &slot, &slices), ==,
      MXL_IMM_BAD_HIGH_BITS);
  g_assert_cmpint (mxl_imm_grain_decode (0x00000004, 5, 1080, &slot, &slices), ==, MXL_IMM_OK);
  g_assert_cmpuint (slices, ==, 0);
}

static void
test_header_check (void)
{
  uint8_t h[4096];
  uint64_t index = 143, got;
  uint32_t size = 5529600;
  uint16_t total = 1080;

  memset (h, 0, sizeof h);
  memcpy (h + 8, &index, 8);
  memcpy (h + 20, &size, 4);
  memcpy (h + 24, &total, 2);
  g_assert_cmpint (mxl_grain_header_check (h, 3, 5, 5529600, 1080, &got), ==, MXL_HEADER_OK);
  g_assert_cmpuint (got, ==, 143);
  g_assert_cmpint (mxl_grain_header_check (h, 2, 5, 5529600, 1080, &got), ==, MXL_HEADER_BAD_INDEX);
  g_assert_cmpint (mxl_grain_header_check (h, 3, 5, 8294400, 1080, &got), ==, MXL_HEADER_BAD_GEOMETRY);
  g_assert_cmpint (mxl_grain_header_check (h, 3, 5, 5529600, 540, &got), ==, MXL_HEADER_BAD_GEOMETRY);
  g_assert_cmpint (mxl_grain_header_check (h, 0, 0, 5529600, 1080, &got), ==, MXL_HEADER_BAD_INDEX);
}

/* U6 */
static void
test_provider_strings (void)
{
  static const struct { mxlFabricsProvider p; const char *s; } map[] = {
    { MXL_FABRICS_PROVIDER_ANY, "any" }, { MXL_FABRICS_PROVIDER_TCP, "tcp" },
    { MXL_FABRICS_PROVIDER_VERBS, "verbs" }, { MXL_FABRICS_PROVIDER_EFA, "efa" },
    { MXL_FABRICS_PROVIDER_SHM, "shm" },
  };
  mxlFabricsProvider p;
  char buf[16];
  size_t size;

  for (guint k = 0; k < G_N_ELEMENTS (map); k++) {
    g_assert_cmpint (mxlFabricsProviderFromString (map[k].s, &p), ==, MXL_STATUS_OK);
    g_assert_cmpint (p, ==, map[k].p);
    size = 0;
    g_assert_cmpint (mxlFabricsProviderToString (map[k].p, NULL, &size), ==, MXL_STATUS_OK);
    g_assert_cmpuint (size, ==, strlen (map[k].s) + 1);
    g_assert_cmpint (mxlFabricsProviderToString (map[k].p, buf, &size), ==, MXL_STATUS_OK);
    g_assert_cmpstr (buf, ==, map[k].s);
    size = strlen (map[k].s);
    g_assert_cmpint (mxlFabricsProviderToString (map[k].p, buf, &size), ==, MXL_ERR_STRLEN);
  }
  size = sizeof buf;
  g_assert_cmpint (mxlFabricsProviderToString ((mxlFabricsProvider) 999, buf, &size), ==,
      MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsProviderToString (MXL_FABRICS_PROVIDER_TCP, buf, NULL), ==,
      MXL_ERR_INVALID_ARG);
  for (const char *const *bad = (const char *const[]) { "invalid", "foo", "TCP", "tcp;ofi_rxm",
      "net", "", NULL }; *bad; bad++)
    g_assert_cmpint (mxlFabricsProviderFromString (*bad, &p), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsProviderFromString (NULL, &p), ==, MXL_ERR_INVALID_ARG);
  /* The extension accepts RDM over TCP by its libfabric name. */
  g_assert_cmpint (mxlFabricsExtProviderFromString ("tcp;ofi_rxm", &p), ==, MXL_STATUS_OK);
  g_assert_cmpint (p, ==, MXL_FABRICS_EXT_PROVIDER_TCP_RXM);
  g_assert_cmpint (mxlFabricsExtProviderFromString ("shm", &p), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtProviderFromString ("TCP", &p), ==, MXL_ERR_INVALID_ARG);
  size = sizeof buf;
  g_assert_cmpint (mxlFabricsProviderToString (MXL_FABRICS_EXT_PROVIDER_TCP_RXM, buf, &size), ==,
      MXL_STATUS_OK);
  g_assert_cmpstr (buf, ==, "tcp;ofi_rxm");
}

static mxlFabricsInterfaceConfig
config (mxlFabricsProvider p, const char *node, const char *service)
{
  mxlFabricsInterfaceConfig c;

  memset (&c, 0, sizeof c);
  c.provider = p;
  c.caps.flags = MXL_FABRICS_IFACE_CAP_REMOTE_WRITE;
  c.address.node = node;
  c.address.service = service;
  return c;
}

/* U7: hints of every provider, verbs and efa included. */
static void
test_hints (void)
{
  static const struct {
    mxlFabricsProvider p; const char *node; const char *prov; enum fi_ep_type ep;
    uint32_t addr_format; uint64_t rx_mode;
  } cases[] = {
    { MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", "tcp", FI_EP_MSG, FI_SOCKADDR_IN, 0 },
    { MXL_FABRICS_PROVIDER_TCP, "::1", "tcp", FI_EP_MSG, FI_SOCKADDR_IN6, 0 },
    { MXL_FABRICS_PROVIDER_VERBS, "10.0.0.5", "verbs", FI_EP_MSG, FI_SOCKADDR_IN, FI_RX_CQ_DATA },
    { MXL_FABRICS_PROVIDER_EFA, "fe80::1", "efa", FI_EP_RDM, FI_ADDR_EFA, 0 },
    { MXL_FABRICS_PROVIDER_SHM, "target", "shm", FI_EP_RDM, FI_ADDR_STR, 0 },
    { MXL_FABRICS_EXT_PROVIDER_TCP_RXM, "127.0.0.1", "tcp;ofi_rxm", FI_EP_RDM, FI_SOCKADDR_IN, 0 },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    for (int role = MXL_ROLE_TARGET; role <= MXL_ROLE_INITIATOR; role++) {
      mxlFabricsInterfaceConfig c = config (cases[k].p, cases[k].node, NULL);
      struct fi_info *h = NULL;

      g_assert_cmpint (mxl_provider_build_hints (&c, role, write_caps (role), &h, NULL), ==,
          MXL_STATUS_OK);
      g_assert_cmpstr (h->fabric_attr->prov_name, ==, cases[k].prov);
      g_assert_cmpint (h->ep_attr->type, ==, cases[k].ep);
      g_assert_cmpuint (h->addr_format, ==, cases[k].addr_format);
      g_assert_cmphex (h->domain_attr->mr_mode, ==,
          FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY);
      g_assert_cmphex (h->rx_attr->mode, ==, cases[k].rx_mode);
      g_assert_cmphex (h->mode & FI_RX_CQ_DATA, ==, cases[k].rx_mode);
      g_assert_cmphex (h->caps & (FI_RMA | FI_WRITE | FI_REMOTE_WRITE), ==,
          role == MXL_ROLE_TARGET ? (FI_RMA | FI_REMOTE_WRITE) : (FI_RMA | FI_WRITE));
      /* A verbs target posts receives for the immediate data (P8). */
      g_assert_cmpuint (!!(h->caps & FI_RECV), ==,
          role == MXL_ROLE_TARGET && cases[k].rx_mode != 0);
      fi_freeinfo (h);
    }
  }
  /* SEND_RECEIVE adds the message caps; without a node no addr_format. */
  {
    mxlFabricsInterfaceConfig c = config (MXL_FABRICS_PROVIDER_TCP, NULL, NULL);
    struct fi_info *h = NULL;
    c.caps.flags |= MXL_FABRICS_IFACE_CAP_SEND_RECEIVE;
    g_assert_cmpint (mxl_provider_build_hints (&c, MXL_ROLE_INITIATOR,
        write_caps (MXL_ROLE_INITIATOR), &h, NULL), ==, MXL_STATUS_OK);
    g_assert_cmphex (h->caps & (FI_SEND | FI_RECV), ==, FI_SEND | FI_RECV);
    g_assert_cmpuint (h->addr_format, ==, FI_FORMAT_UNSPEC);
    fi_freeinfo (h);
  }
  /* Nodes each provider refuses. */
  {
    static const struct { mxlFabricsProvider p; const char *node, *service; mxlStatus st; } bad[] = {
      { MXL_FABRICS_PROVIDER_EFA, "10.0.0.5", NULL, MXL_ERR_INVALID_ARG },   /* GID is IPv6 */
      { MXL_FABRICS_PROVIDER_VERBS, "host.example", NULL, MXL_ERR_INVALID_ARG },
      { MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", "80a", MXL_ERR_INVALID_ARG },
      /* issue 20: 80000 was taken and bound 80000 mod 65536 = 14464 */
      { MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", "80000", MXL_ERR_INVALID_ARG },
      { MXL_FABRICS_PROVIDER_VERBS, "10.0.0.5", "65536", MXL_ERR_INVALID_ARG },
      { MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", "no-such-service-x", MXL_ERR_INVALID_ARG },
      { MXL_FABRICS_PROVIDER_TCP, "1.2.3", NULL, MXL_ERR_INVALID_ARG },
      { MXL_FABRICS_PROVIDER_SHM, NULL, "svc", MXL_ERR_INVALID_ARG },
      { MXL_FABRICS_PROVIDER_ANY, "127.0.0.1", NULL, MXL_ERR_INVALID_STATE },
    };
    for (guint k = 0; k < G_N_ELEMENTS (bad); k++) {
      mxlFabricsInterfaceConfig c = config (bad[k].p, bad[k].node, bad[k].service);
      struct fi_info *h = NULL;
      GError *error = NULL;
      g_assert_cmpint (mxl_provider_build_hints (&c, MXL_ROLE_TARGET,
          write_caps (MXL_ROLE_TARGET), &h, &error), ==, bad[k].st);
      g_assert_null (h);
      g_assert_nonnull (error);
      g_error_free (error);
    }
  }
  /* Ports are 0 … 65535; a service name is resolved locally (issue 20). */
  {
    mxlFabricsInterfaceConfig c = config (MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", "80000");
    struct fi_info *h = NULL;
    GError *error = NULL;
    struct servent *http = getservbyname ("http", "tcp");

    g_assert_cmpint (mxl_provider_build_hints (&c, MXL_ROLE_TARGET,
        write_caps (MXL_ROLE_TARGET), &h, &error), ==,
        MXL_ERR_INVALID_ARG);
    g_assert_cmpstr (error->message, ==, "service \"80000\" is not a port number in 0 … 65535");
    g_clear_error (&error);
    c.address.service = "65535";
    g_assert_cmpint (mxl_provider_build_hints (&c, MXL_ROLE_TARGET,
        write_caps (MXL_ROLE_TARGET), &h, NULL), ==, MXL_STATUS_OK);
    fi_freeinfo (h);
    /* a name: the tcp provider gets its number and binds that port */
    if (http == NULL) {
      g_test_message ("no \"http\" in this host's services database: name case skipped");
    } else {
      struct fi_info *info = NULL;
      struct sockaddr_in *sin;

      c.address.service = "http";
      g_assert_cmpint (write_getinfo (&c, MXL_ROLE_TARGET, &info, &error), ==,
          MXL_STATUS_OK);
      g_assert_no_error (error);
      g_assert_cmpuint (info->addr_format, ==, FI_SOCKADDR_IN);
      sin = info->src_addr;
      g_assert_nonnull (sin);
      g_assert_cmpuint (ntohs (sin->sin_port), ==, ntohs ((uint16_t) http->s_port));
      g_assert_cmpuint (ntohs (sin->sin_port), ==, 80);
      fi_freeinfo (info);
    }
  }
  /* verbs and efa have no device here: setup says so with NO_FABRIC. */
  {
    mxlFabricsInterfaceConfig c = config (MXL_FABRICS_PROVIDER_VERBS, "127.0.0.1", NULL);
    struct fi_info *info = NULL;
    GError *error = NULL;
    mxlStatus st = write_getinfo (&c, MXL_ROLE_TARGET, &info, &error);
    if (st == MXL_STATUS_OK)
      fi_freeinfo (info);
    else
      g_assert_cmpint (st, ==, MXL_ERR_NO_FABRIC);
    g_clear_error (&error);
  }
}

/* U7: the enumeration filter and caps reported for real fi_info entries. */
static void
test_filter (void)
{
  struct fi_info *all = NULL;
  guint tcp = 0, shm = 0;

  g_assert_cmpint (fi_getinfo (MXL_FI_VERSION, NULL, NULL, 0, NULL, &all), ==, 0);
  for (struct fi_info *i = all; i; i = i->next) {
    const MxlProviderDesc *d = mxl_provider_lookup_prov_name (i->fabric_attr->prov_name);
    if (d == NULL || !mxl_provider_info_passes_filter (d, i))
      continue;
    g_assert_cmpint (i->ep_attr->type, ==, d->ep_type);
    g_assert_cmpuint (i->domain_attr->cq_data_size, >=, 4);
    g_assert_cmphex (mxl_provider_info_caps (i) & MXL_FABRICS_IFACE_CAP_REMOTE_WRITE, ==,
        MXL_FABRICS_IFACE_CAP_REMOTE_WRITE);
    tcp += d->provider == MXL_FABRICS_PROVIDER_TCP;
    shm += d->provider == MXL_FABRICS_PROVIDER_SHM;
    /* The duplicate tcp entries with FI_TAGGED are filtered out. */
    if (d->provider == MXL_FABRICS_PROVIDER_TCP)
      g_assert_cmphex (i->caps & FI_TAGGED, ==, 0);
  }
  g_assert_cmpuint (tcp, >=, 1);
  g_assert_cmpuint (shm, >=, 1);
  fi_freeinfo (all);
  g_assert_null (mxl_provider_lookup (MXL_FABRICS_PROVIDER_ANY));
  g_assert_null (mxl_provider_lookup ((mxlFabricsProvider) 999));
  g_assert_null (mxl_provider_lookup_prov_name ("sockets"));
}

/* The exported provider list: every row of the table, in order, with
 * names that round-trip through the string API, and the automatic order
 * efa, verbs, tcp, shm (tcp;ofi_rxm only when named). Quirks: shm's
 * endpoints are per process, leave /dev/shm regions and cannot lose an AV
 * entry; no other provider has a quirk. */
static void
test_provider_list (void)
{
  static const struct {
    mxlFabricsProvider provider;
    const char *name;
    uint32_t rank;
    guint quirks;
  } want[] = {
    { MXL_FABRICS_PROVIDER_TCP, "tcp", 3, 0 },
    { MXL_FABRICS_PROVIDER_VERBS, "verbs", 2, 0 },
    { MXL_FABRICS_PROVIDER_EFA, "efa", 1, 0 },
    { MXL_FABRICS_PROVIDER_SHM, "shm", 4, MXL_PROVIDER_QUIRK_OWNER_PID
          | MXL_PROVIDER_QUIRK_AV_REMOVE_UNSAFE | MXL_PROVIDER_QUIRK_SHM_REGIONS
          | MXL_PROVIDER_QUIRK_RECEIVER_COPIES | MXL_PROVIDER_QUIRK_LOCAL_PEER_SHARED },
    { MXL_FABRICS_EXT_PROVIDER_TCP_RXM, "tcp;ofi_rxm", 0, 0 },
  };
  mxlFabricsExtProviderInfo info;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (want); i++) {
    mxlFabricsProvider back = MXL_FABRICS_PROVIDER_ANY;
    const MxlProviderDesc *d = mxl_provider_nth (i);

    memset (&info, 0, sizeof info);
    g_assert_cmpint (mxlFabricsExtGetProvider (i, &info), ==, MXL_STATUS_OK);
    g_assert_cmpint (info.provider, ==, want[i].provider);
    g_assert_cmpstr (info.name, ==, want[i].name);
    g_assert_cmpuint (info.autoRank, ==, want[i].rank);
    g_assert_nonnull (info.description);
    g_assert_cmpuint (strlen (info.description), >, 10);
    g_assert_cmpint (mxlFabricsExtProviderFromString (info.name, &back), ==,
        MXL_STATUS_OK);
    g_assert_cmpint (back, ==, want[i].provider);
    g_assert_true (d == mxl_provider_lookup (want[i].provider));
    g_assert_cmphex (d->quirks, ==, want[i].quirks);
    g_assert_true (d->extension == (want[i].provider
            == MXL_FABRICS_EXT_PROVIDER_TCP_RXM));
    /* shm's nodes are names (an element's default is one of its own) */
    g_assert_true (mxl_provider_names_nodes (d) == (want[i].provider
            == MXL_FABRICS_PROVIDER_SHM));
    g_assert_true (d->device_is_domain == (want[i].provider
            == MXL_FABRICS_PROVIDER_TCP));
  }
  g_assert_cmpint (mxlFabricsExtGetProvider (i, &info), ==, MXL_ERR_NOT_FOUND);
  g_assert_cmpint (mxlFabricsExtGetProvider ((size_t) G_MAXUINT + 1, &info), ==,
      MXL_ERR_NOT_FOUND);
  g_assert_null (mxl_provider_nth (i));
  g_assert_cmpint (mxlFabricsExtGetProvider (0, NULL), ==, MXL_ERR_INVALID_ARG);
}

/* U5: regions on a tcp domain (offsets) and a shm domain (addresses). */
static void
regions_on (mxlFabricsProvider p, const char *node, const char *service, gboolean va)
{
  static const size_t sizes[4] = { 256, 512, 1024, 2048 };
  mxlFabricsInterfaceConfig c = config (p, node, service);
  struct fi_info *info = NULL;
  MxlOfiDomain *dom = NULL;
  MxlOfiRegion r[4];
  uint8_t *buf[4];

  g_assert_cmpint (write_getinfo (&c, MXL_ROLE_TARGET, &info, NULL), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxl_ofi_domain_open (info, &dom, NULL), ==, MXL_STATUS_OK);
  fi_freeinfo (info);
  g_assert_cmpuint (dom->virt_addr, ==, va);
  for (guint k = 0; k < 4; k++) {
    buf[k] = g_malloc0 (sizes[k]);
    g_assert_cmpint (mxl_ofi_region_register (dom, buf[k], sizes[k], FI_REMOTE_WRITE, &r[k], NULL),
        ==, MXL_STATUS_OK);
    g_assert_true (r[k].base == buf[k]);
    g_assert_cmpuint (r[k].len, ==, sizes[k]);
    g_assert_cmpuint (r[k].remote_addr, ==, va ? (uint64_t) (uintptr_t) buf[k] : 0);
    for (guint j = 0; j < k; j++)
      g_assert_cmpuint (r[k].key, !=, r[j].key);
  }
  g_assert_cmpuint (g_hash_table_size (dom->keys), ==, 4);
  for (guint k = 0; k < 4; k++) {
    mxl_ofi_region_close (dom, &r[k]);
    g_assert_null (r[k].mr);
    g_free (buf[k]);
  }
  g_assert_cmpuint (g_hash_table_size (dom->keys), ==, 0);
  mxl_ofi_domain_close (dom);
}

static void
test_regions (void)
{
  regions_on (MXL_FABRICS_PROVIDER_TCP, "127.0.0.1", NULL, FALSE);
  regions_on (MXL_FABRICS_PROVIDER_SHM, "unit-regions", "u5", TRUE);
}

static void
test_random_keys (void)
{
  GHashTable *keys = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);

  for (guint k = 0; k < 1000; k++) {
    uint64_t key = mxl_ofi_random_key (keys, 4);
    gint64 *stored = g_new (gint64, 1);
    g_assert_cmpuint (key, !=, 0);
    g_assert_cmpuint (key >> 32, ==, 0);          /* 4-byte keys (verbs) */
    g_assert_false (g_hash_table_contains (keys, &key));
    *stored = (gint64) key;
    g_hash_table_add (keys, stored);
  }
  g_hash_table_destroy (keys);
  g_assert_cmpuint (mxl_random_u64 (), !=, mxl_random_u64 ());
}

/* §7.5 */
static void
test_status_mapping (void)
{
  g_assert_cmpint (mxl_ofi_status (0), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxl_ofi_status (5), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxl_ofi_status (-FI_EINTR), ==, MXL_ERR_INTERRUPTED);
  g_assert_cmpint (mxl_ofi_status (-FI_EAGAIN), ==, MXL_ERR_NOT_READY);
  g_assert_cmpint (mxl_ofi_status (-FI_ENOSYS), ==, MXL_ERR_UNSUPPORTED_OPERATION);
  g_assert_cmpint (mxl_ofi_status (-FI_ENODATA), ==, MXL_ERR_NO_FABRIC);
  g_assert_cmpint (mxl_ofi_status (-FI_EIO), ==, MXL_ERR_UNKNOWN);
  g_assert_cmpint (mxl_ofi_status (-FI_EOVERRUN), ==, MXL_ERR_UNKNOWN);
}

static void
test_events (void)
{
  GQueue q = G_QUEUE_INIT;
  mxlFabricsExtConnectionEvent ev;

  g_assert_cmpint (mxl_event_queue_pop (&q, &ev), ==, MXL_ERR_NOT_READY);
  for (guint k = 0; k < MXL_EVENT_QUEUE_MAX + 10; k++)
    mxl_event_queue_push (&q, k, MXL_FABRICS_EXT_STATE_IDLE, MXL_FABRICS_EXT_STATE_CONNECTING,
        MXL_STATUS_OK);
  g_assert_cmpuint (g_queue_get_length (&q), ==, MXL_EVENT_QUEUE_MAX);
  g_assert_cmpint (mxl_event_queue_pop (&q, &ev), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ev.targetId, ==, 10);       /* the oldest ten were dropped */
  g_assert_cmpint (ev.current, ==, MXL_FABRICS_EXT_STATE_CONNECTING);
  mxl_event_queue_clear (&q);
  g_assert_cmpstr (mxlFabricsExtConnectionStateName (MXL_FABRICS_EXT_STATE_LOST), ==, "lost");
  g_assert_cmpstr (mxlFabricsExtConnectionStateName ((mxlFabricsExtConnectionState) 77), ==,
      "unknown");
  {
    uint32_t major = 0, minor = 0;
    g_assert_cmpint (mxlFabricsExtGetLibfabricVersion (&major, &minor), ==, MXL_STATUS_OK);
    g_assert_cmpuint (major, ==, FI_MAJOR (fi_version ()));
    g_assert_cmpuint (minor, ==, FI_MINOR (fi_version ()));
    g_assert_cmpint (mxlFabricsExtGetLibfabricVersion (NULL, &minor), ==, MXL_ERR_INVALID_ARG);
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/engine/planes", test_planes);
  g_test_add_func ("/fabrics/engine/slice-range", test_slice_range);
  g_test_add_func ("/fabrics/engine/grain-runs", test_grain_runs);
  g_test_add_func ("/fabrics/engine/splitter", test_splitter);
  g_test_add_func ("/fabrics/engine/immdata", test_immdata);
  g_test_add_func ("/fabrics/engine/header-check", test_header_check);
  g_test_add_func ("/fabrics/engine/provider-strings", test_provider_strings);
  g_test_add_func ("/fabrics/engine/hints", test_hints);
  g_test_add_func ("/fabrics/engine/filter", test_filter);
  g_test_add_func ("/fabrics/engine/provider-list", test_provider_list);
  g_test_add_func ("/fabrics/engine/regions", test_regions);
  g_test_add_func ("/fabrics/engine/random-keys", test_random_keys);
  g_test_add_func ("/fabrics/engine/status-mapping", test_status_mapping);
  g_test_add_func ("/fabrics/engine/events", test_events);
  return g_test_run ();
}
