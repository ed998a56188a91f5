/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Bandwidth of an MXL flow sent by the fabrics engine over a given link
 * (an extension, not in the MXL SDK): the media rate, what the engine's
 * remote writes carry, and what the link carries once the transport's
 * headers and framing are added. For planning links; the model is in
 * docs/bandwidth.md and in the comments of mxlFabricsExtFlowBandwidth().
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <mxl/mxl.h>
#include <mxl/platform.h>
#include <mxl/rational.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * mxlFabricsExtLink:
 * The link a provider runs on, as the bandwidth model sees it.
 * @MXL_FABRICS_EXT_LINK_TCP: libfabric tcp (and tcp;ofi_rxm, which hands
 *   remote writes to tcp) over TCP/IPv4 on Ethernet.
 * @MXL_FABRICS_EXT_LINK_ROCEV2: verbs over RoCE v2 (IPv4/UDP on Ethernet).
 * @MXL_FABRICS_EXT_LINK_IB: verbs over InfiniBand (one subnet: no GRH).
 * @MXL_FABRICS_EXT_LINK_EFA: AWS EFA (SRD over the AWS network).
 * @MXL_FABRICS_EXT_LINK_SHM: libfabric shm: one host, no wire.
 */
typedef enum mxlFabricsExtLink {
  MXL_FABRICS_EXT_LINK_TCP = 1,
  MXL_FABRICS_EXT_LINK_ROCEV2 = 2,
  MXL_FABRICS_EXT_LINK_IB = 3,
  MXL_FABRICS_EXT_LINK_EFA = 4,
  MXL_FABRICS_EXT_LINK_SHM = 5,
} mxlFabricsExtLink;

/**
 * mxlFabricsExtLinkProfile:
 * @version: MXL_FABRICS_API_VERSION (0).
 * @link: the link.
 * @mtu: bytes; 0 = the link's default. tcp: IP MTU (default 1500, 576 ..
 *   65535). RoCE v2 and IB: path MTU, one of 256, 512, 1024, 2048, 4096
 *   (default 1024 for RoCE v2, which fits a 1500-byte Ethernet MTU; 4096
 *   for IB). efa: device MTU (default 8908, at least 1024).
 * @maxMessageSize: bytes per remote write; 0 = no limit (a grain is one
 *   write, as on tcp, shm and verbs with 1.17). The engine cuts longer runs
 *   into writes of this size.
 * @iovLimit: scatter-gather entries per write (audio gathers one header
 *   and one fragment per channel); 0 = 4 (tcp, shm and efa in libfabric
 *   1.17; verbs devices usually allow more).
 * @samplesPerBatch: audio only: samples per channel per transfer; 0 = 48
 *   (1 ms at 48 kHz).
 */
typedef struct mxlFabricsExtLinkProfile_t {
  int version;
  mxlFabricsExtLink link;
  uint32_t mtu;
  uint64_t maxMessageSize;
  uint32_t iovLimit;
  uint32_t samplesPerBatch;
} mxlFabricsExtLinkProfile;

/**
 * mxlFabricsExtBandwidth:
 * A "unit" is a grain (video, data; a field of interlaced video) or a
 * batch of samples (audio). Per-unit values are exact integers; per-second
 * values are the per-unit value times @unitRate (exact for integer rates,
 * nearest double otherwise).
 * @unitRate: units per second (grain rate, or sample rate / samplesPerBatch).
 * @mediaBytesPerUnit: payload bytes (grainSize; channels x samples x 4).
 * @sentBytesPerUnit: bytes the remote writes carry: payload plus the
 *   8,192-byte grain header (grains) or the 16-byte bounce entry header
 *   (audio), docs/wire-format.md §3.3 and §4.2.
 * @writesPerUnit: remote writes per unit.
 * @packetsPerUnit: link packets (TCP segments, RoCE/IB/EFA packets) in the
 *   forward direction; 0 for shm.
 * @wireBytesPerUnit: bytes on the link in the forward direction, every
 *   header and framing byte included (Ethernet: preamble, FCS and the
 *   inter-frame gap too); 0 for shm.
 * @reverseWireBytesPerUnit: bytes the receiver sends back (transport
 *   acknowledgements, the tcp delivery-complete ack); 0 for shm.
 */
typedef struct mxlFabricsExtBandwidth_t {
  int version;
  mxlRational unitRate;
  uint64_t mediaBytesPerUnit;
  uint64_t sentBytesPerUnit;
  uint64_t writesPerUnit;
  uint64_t packetsPerUnit;
  uint64_t wireBytesPerUnit;
  uint64_t reverseWireBytesPerUnit;
  double mediaBytesPerSecond;
  double sentBytesPerSecond;
  double wireBytesPerSecond;
  double reverseWireBytesPerSecond;
} mxlFabricsExtBandwidth;

/**
 * mxlFabricsExtFlowBandwidth:
 * @in_flowDef: an NMOS flow definition (JSON text) this library accepts
 *   (mxlCreateFlowWriter()): video/v210, video/v210a, video/smpte291,
 *   audio/float32.
 * @in_profile: the link; NULL = tcp with every default.
 * @out_bandwidth: (out): filled on success; @version is set to 0.
 *
 * Model (docs/bandwidth.md): the writes of a unit are those the engine
 * posts: a grain is one run of 8,192 + grainSize bytes, cut at
 * @maxMessageSize; an audio batch is one entry of 16 + C·n·4 bytes gathered
 * from 1 + C pieces (no ring wrap assumed), cut at @iovLimit pieces and
 * @maxMessageSize. Only the last write carries immediate data.
 *
 * - tcp: each write is a libfabric tcp message: 16-byte base header,
 *   24-byte RMA iov, plus 8 bytes of CQ data on the last write
 *   (prov/tcp wire protocol v3). The unit's messages form one byte stream
 *   cut into segments of MSS = MTU − 52 (IPv4 20, TCP 20, timestamps 12);
 *   each segment is an Ethernet frame (14 + 4 FCS, 64 minimum) plus 20
 *   bytes of preamble and inter-frame gap. Reverse: a 16-byte delivery
 *   ack per unit (one frame) plus one pure TCP ACK (70-byte frame + 20)
 *   per two segments (delayed ACK).
 * - RoCE v2: packets of at most MTU payload bytes per write; each packet
 *   carries Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 and 20
 *   bytes of preamble and gap; the first packet of a write adds RETH 16,
 *   the last packet of the unit ImmDt 4. Reverse: one ACK (BTH + AETH) per
 *   write (a minimum: responders may ACK more often).
 * - IB: as RoCE v2 with LRH 8 + BTH 12 + ICRC 4 + VCRC 2 per packet
 *   (link encoding not counted).
 * - efa: packets of at most MTU − 64 payload bytes, 64 bytes of libfabric
 *   EFA protocol header each (an estimate: the SRD framing of the device
 *   is not published and is not counted). Reverse: not modelled (0).
 * - shm: no wire: packets, wire and reverse bytes are 0.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL @in_flowDef or
 * @out_bandwidth, a definition this library rejects, an unknown link, an
 * MTU out of the ranges above, or a samplesPerBatch above the flow's
 * maximum batch (half its ring, docs/flow-format.md §5).
 */
MXL_EXPORT mxlStatus mxlFabricsExtFlowBandwidth (char const *in_flowDef,
    mxlFabricsExtLinkProfile const *in_profile,
    mxlFabricsExtBandwidth *out_bandwidth);

/**
 * mxlFabricsExtLinkFromString:
 * Accepts "tcp", "tcp;ofi_rxm" (= tcp), "rocev2", "ib", "efa", "shm"
 * (exact, lower case).
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG otherwise or for NULL.
 */
MXL_EXPORT mxlStatus mxlFabricsExtLinkFromString (char const *in_string,
    mxlFabricsExtLink *out_link);

#ifdef __cplusplus
}
#endif
