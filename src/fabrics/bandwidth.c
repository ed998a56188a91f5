/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Bandwidth of a flow over a link (<mxl/fabrics-bandwidth.h>): the writes
 * the engine posts for one unit (grain or audio batch), then per link the
 * packets, headers and framing those writes become. Pure arithmetic on
 * integers; the model is documented in the header and docs/bandwidth.md.
 */
#include <mxl/fabrics-bandwidth.h>

#include <string.h>

#include <glib.h>

#include <mxl/flow.h>

#include "flow/flow-priv.h"
#include "flow/flowdef.h"
#include "fabrics/wire/bounce.h"

#define DEFAULT_IOV_LIMIT 4u
#define DEFAULT_BATCH 48u

/* Ethernet: header 14, FCS 4, minimum frame 64, preamble + SFD 8 and
 * inter-frame gap 12 on the line. */
#define ETH_HDR 14u
#define ETH_FCS 4u
#define ETH_MIN_FRAME 64u
#define ETH_LINE 20u

/* One remote write: data bytes, and whether it carries immediate data. */
typedef struct {
  uint64_t bytes;
  gboolean imm;
} Write;

typedef struct {
  Write *w;
  guint n, cap;
} Writes;

static void
writes_add (Writes *ws, uint64_t bytes)
{
  if (ws->n == ws->cap) {
    ws->cap = ws->cap ? ws->cap * 2 : 8;
    ws->w = g_renew (Write, ws->w, ws->cap);
  }
  ws->w[ws->n].bytes = bytes;
  ws->w[ws->n].imm = FALSE;
  ws->n++;
}

/* Cuts @n_pieces pieces of @piece[] bytes into writes of at most
 * @iov_limit pieces and @max_msg bytes (0 = no limit), in order, greedy, as
 * the engine's layout does (a piece longer than the room left is split). */
static void
writes_cut (Writes *ws, const uint64_t *piece, guint n_pieces, guint iov_limit,
    uint64_t max_msg)
{
  uint64_t cur = 0;
  guint iovs = 0;

  for (guint i = 0; i < n_pieces; i++) {
    uint64_t left = piece[i];
    while (left > 0) {
      uint64_t room = max_msg ? max_msg - cur : left;
      uint64_t take = MIN (left, room);
      if (iovs == iov_limit || room == 0) {
        writes_add (ws, cur);
        cur = 0;
        iovs = 0;
        continue;
      }
      cur += take;
      left -= take;
      iovs++;
    }
  }
  if (cur > 0 || ws->n == 0)
    writes_add (ws, cur);
  ws->w[ws->n - 1].imm = TRUE;
}

/* ---- links: one small ops table each ---- */

typedef struct {
  uint64_t packets, wire, reverse;
} Cost;

typedef struct {
  const char *name;
  uint32_t default_mtu;
  gboolean (*mtu_ok) (uint32_t mtu);
  void (*cost) (const Writes *ws, uint32_t mtu, Cost *out);
} LinkOps;

static uint64_t
eth_line (uint64_t frame)
{
  return MAX (frame, ETH_MIN_FRAME) + ETH_LINE;
}

/* tcp: libfabric tcp messages in one TCP stream (IPv4, timestamps). */
#define TCPX_BASE_HDR 16u
#define TCPX_RMA_IOV 24u
#define TCPX_CQ_DATA 8u
#define TCP_IP_HDRS 52u              /* IPv4 20 + TCP 20 + timestamps 12 */

static gboolean
tcp_mtu_ok (uint32_t mtu)
{
  return mtu >= 576 && mtu <= 65535;
}

static void
tcp_cost (const Writes *ws, uint32_t mtu, Cost *out)
{
  uint64_t stream = 0, mss = mtu - TCP_IP_HDRS, full, rest;

  for (guint i = 0; i < ws->n; i++)
    stream += TCPX_BASE_HDR + TCPX_RMA_IOV + (ws->w[i].imm ? TCPX_CQ_DATA : 0)
        + ws->w[i].bytes;
  full = stream / mss;
  rest = stream % mss;
  out->packets = full + (rest ? 1 : 0);
  out->wire = full * eth_line (ETH_HDR + mtu + ETH_FCS)
      + (rest ? eth_line (ETH_HDR + TCP_IP_HDRS + rest + ETH_FCS) : 0);
  /* delivery-complete ack (a base header) + a pure ACK per two segments */
  out->reverse = eth_line (ETH_HDR + TCP_IP_HDRS + TCPX_BASE_HDR + ETH_FCS)
      + (out->packets + 1) / 2 * eth_line (ETH_HDR + TCP_IP_HDRS + ETH_FCS);
}

/* RoCE v2 and IB: RC RDMA WRITE packets of at most the path MTU. */
#define IBA_BTH 12u
#define IBA_RETH 16u
#define IBA_IMMDT 4u
#define IBA_AETH 4u
#define IBA_ICRC 4u
#define IB_LRH 8u
#define IB_VCRC 2u
#define ROCE_OUTER (ETH_HDR + 20u + 8u)       /* Ethernet, IPv4, UDP */

static gboolean
path_mtu_ok (uint32_t mtu)
{
  return mtu == 256 || mtu == 512 || mtu == 1024 || mtu == 2048 || mtu == 4096;
}

/* Bytes of one packet before link framing: transport headers + payload. */
static uint64_t
iba_packet (uint64_t payload, gboolean first, gboolean imm_last)
{
  return IBA_BTH + (first ? IBA_RETH : 0) + (imm_last ? IBA_IMMDT : 0) + payload
      + IBA_ICRC;
}

static void
rdma_cost (const Writes *ws, uint32_t mtu, Cost *out, gboolean roce)
{
  memset (out, 0, sizeof *out);
  for (guint i = 0; i < ws->n; i++) {
    uint64_t bytes = ws->w[i].bytes;
    uint64_t pk = MAX ((bytes + mtu - 1) / mtu, 1);
    for (uint64_t k = 0; k < pk; k++) {
      uint64_t payload = k + 1 < pk ? mtu : bytes - (pk - 1) * mtu;
      uint64_t p = iba_packet (payload, k == 0, k + 1 == pk && ws->w[i].imm);
      out->wire += roce ? eth_line (ROCE_OUTER + p + ETH_FCS) : IB_LRH + p + IB_VCRC;
    }
    out->packets += pk;
    /* one ACK per write */
    out->reverse += roce ? eth_line (ROCE_OUTER + IBA_BTH + IBA_AETH + IBA_ICRC + ETH_FCS)
        : IB_LRH + IBA_BTH + IBA_AETH + IBA_ICRC + IB_VCRC;
  }
}

static void
roce_cost (const Writes *ws, uint32_t mtu, Cost *out)
{
  rdma_cost (ws, mtu, out, TRUE);
}

static void
ib_cost (const Writes *ws, uint32_t mtu, Cost *out)
{
  rdma_cost (ws, mtu, out, FALSE);
}

/* efa: an estimated 64-byte libfabric EFA header per packet. */
#define EFA_PKT_HDR 64u

static gboolean
efa_mtu_ok (uint32_t mtu)
{
  return mtu >= 1024 && mtu <= 65535;
}

static void
efa_cost (const Writes *ws, uint32_t mtu, Cost *out)
{
  uint64_t room = mtu - EFA_PKT_HDR;

  memset (out, 0, sizeof *out);
  for (guint i = 0; i < ws->n; i++) {
    uint64_t pk = MAX ((ws->w[i].bytes + room - 1) / room, 1);
    out->packets += pk;
    out->wire += ws->w[i].bytes + pk * EFA_PKT_HDR;
  }
}

static gboolean
any_mtu_ok (uint32_t mtu)
{
  (void) mtu;
  return TRUE;
}

static void
shm_cost (const Writes *ws, uint32_t mtu, Cost *out)
{
  (void) ws;
  (void) mtu;
  memset (out, 0, sizeof *out);
}

static const LinkOps link_ops[] = {
  [MXL_FABRICS_EXT_LINK_TCP] = {"tcp", 1500, tcp_mtu_ok, tcp_cost},
  [MXL_FABRICS_EXT_LINK_ROCEV2] = {"rocev2", 1024, path_mtu_ok, roce_cost},
  [MXL_FABRICS_EXT_LINK_IB] = {"ib", 4096, path_mtu_ok, ib_cost},
  [MXL_FABRICS_EXT_LINK_EFA] = {"efa", 8908, efa_mtu_ok, efa_cost},
  [MXL_FABRICS_EXT_LINK_SHM] = {"shm", 0, any_mtu_ok, shm_cost},
};

static const LinkOps *
link_lookup (mxlFabricsExtLink link)
{
  if ((int) link <= 0 || (gsize) link >= G_N_ELEMENTS (link_ops))
    return NULL;
  return &link_ops[link];
}

MXL_EXPORT mxlStatus
mxlFabricsExtLinkFromString (char const *in_string, mxlFabricsExtLink *out_link)
{
  if (in_string == NULL || out_link == NULL)
    return MXL_ERR_INVALID_ARG;
  if (strcmp (in_string, "tcp;ofi_rxm") == 0) {
    *out_link = MXL_FABRICS_EXT_LINK_TCP;
    return MXL_STATUS_OK;
  }
  for (gsize i = 1; i < G_N_ELEMENTS (link_ops); i++)
    if (strcmp (in_string, link_ops[i].name) == 0) {
      *out_link = (mxlFabricsExtLink) i;
      return MXL_STATUS_OK;
    }
  return MXL_ERR_INVALID_ARG;
}

static double
per_second (uint64_t per_unit, mxlRational rate)
{
  return (double) per_unit * (double) rate.numerator / (double) rate.denominator;
}

MXL_EXPORT mxlStatus
mxlFabricsExtFlowBandwidth (char const *in_flowDef,
    mxlFabricsExtLinkProfile const *in_profile, mxlFabricsExtBandwidth *out)
{
  mxlFabricsExtLinkProfile prof = { 0, MXL_FABRICS_EXT_LINK_TCP, 0, 0, 0, 0 };
  g_autoptr (GError) error = NULL;
  const LinkOps *ops;
  MxlFlowDef def;
  Writes ws = { NULL, 0, 0 };
  Cost cost;
  uint32_t mtu;
  guint iov_limit;

  if (in_flowDef == NULL || out == NULL)
    return MXL_ERR_INVALID_ARG;
  if (in_profile != NULL)
    prof = *in_profile;
  ops = link_lookup (prof.link);
  if (ops == NULL)
    return MXL_ERR_INVALID_ARG;
  mtu = prof.mtu ? prof.mtu : ops->default_mtu;
  if (!ops->mtu_ok (mtu))
    return MXL_ERR_INVALID_ARG;
  iov_limit = prof.iovLimit ? prof.iovLimit : DEFAULT_IOV_LIMIT;
  if (!mxl_flow_def_parse (in_flowDef, &def, &error)) {
    g_message ("%s", error->message);
    return MXL_ERR_INVALID_ARG;
  }

  memset (out, 0, sizeof *out);
  if (mxlIsDiscreteDataFormat (def.format)) {
    /* a grain: header + payload, one run (docs/wire-format.md §3.3) */
    uint64_t run = (uint64_t) MXL_GRAIN_PAYLOAD_OFFSET + def.grain_size;
    out->unitRate = def.rate;
    out->mediaBytesPerUnit = def.grain_size;
    writes_cut (&ws, &run, 1, 1, prof.maxMessageSize);
  } else {
    uint32_t batch = prof.samplesPerBatch ? prof.samplesPerBatch : DEFAULT_BATCH;
    uint64_t max_batch = mxl_flow_def_buffer_length (&def, MXL_DEFAULT_HISTORY_NS) / 2;
    uint64_t *piece;

    if (batch > max_batch)
      return MXL_ERR_INVALID_ARG;
    /* batches per second = sample rate / batch, as a reduced fraction */
    {
      int64_t num = def.rate.numerator, den = def.rate.denominator * (int64_t) batch;
      int64_t a = num, b = den;
      while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
      }
      out->unitRate.numerator = num / a;
      out->unitRate.denominator = den / a;
    }
    out->mediaBytesPerUnit = (uint64_t) def.channel_count * batch * def.sample_word_size;
    /* entry header, then one fragment per channel (docs/wire-format.md §4.2) */
    piece = g_new (uint64_t, def.channel_count + 1);
    piece[0] = MXL_BOUNCE_HEADER_SIZE;
    for (guint c = 0; c < def.channel_count; c++)
      piece[c + 1] = (uint64_t) batch * def.sample_word_size;
    writes_cut (&ws, piece, def.channel_count + 1, iov_limit, prof.maxMessageSize);
    g_free (piece);
  }
  for (guint i = 0; i < ws.n; i++)
    out->sentBytesPerUnit += ws.w[i].bytes;
  out->writesPerUnit = ws.n;
  ops->cost (&ws, mtu, &cost);
  g_free (ws.w);
  out->packetsPerUnit = cost.packets;
  out->wireBytesPerUnit = cost.wire;
  out->reverseWireBytesPerUnit = cost.reverse;
  out->mediaBytesPerSecond = per_second (out->mediaBytesPerUnit, out->unitRate);
  out->sentBytesPerSecond = per_second (out->sentBytesPerUnit, out->unitRate);
  out->wireBytesPerSecond = per_second (out->wireBytesPerUnit, out->unitRate);
  out->reverseWireBytesPerSecond = per_second (out->reverseWireBytesPerUnit, out->unitRate);
  return MXL_STATUS_OK;
}
