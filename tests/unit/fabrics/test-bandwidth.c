/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlFabricsExtFlowBandwidth(): exact per-unit values worked out by hand
 * from the model in <mxl/fabrics-bandwidth.h> (the arithmetic is in the
 * comments), and every error status.
 */
#include <glib.h>
#include <string.h>

#include <mxl/fabrics-bandwidth.h>

static char *
video_def (const char *media_type, int w, int h, int num, int den)
{
  return g_strdup_printf ("{\"id\":\"2f0e5c1a-77b2-4a8e-9d0c-6b1e3f9a4c21\","
      "\"format\":\"urn:x-nmos:format:video\",\"label\":\"bw\","
      "\"tags\":{\"urn:x-nmos:tag:grouphint/v1.0\":[\"bw:v\"]},\"parents\":[],"
      "\"media_type\":\"%s\",\"grain_rate\":{\"numerator\":%d,\"denominator\":%d},"
      "\"frame_width\":%d,\"frame_height\":%d,\"interlace_mode\":\"progressive\","
      "\"colorspace\":\"BT709\"}", media_type, num, den, w, h);
}

static char *
audio_def (int channels)
{
  return g_strdup_printf ("{\"id\":\"7c3d2b1a-0f9e-4d8c-b7a6-5e4f3a2b1c0d\","
      "\"format\":\"urn:x-nmos:format:audio\",\"label\":\"bw\","
      "\"tags\":{\"urn:x-nmos:tag:grouphint/v1.0\":[\"bw:a\"]},"
      "\"media_type\":\"audio/float32\",\"sample_rate\":{\"numerator\":48000},"
      "\"channel_count\":%d,\"bit_depth\":32}", channels);
}

static mxlFabricsExtBandwidth
compute (const char *def, mxlFabricsExtLink link, uint32_t mtu, uint64_t max_msg,
    uint32_t batch)
{
  mxlFabricsExtLinkProfile p = { 0, link, mtu, max_msg, 0, batch };
  mxlFabricsExtBandwidth b;

  memset (&b, 0xAB, sizeof b);
  g_assert_cmpint (mxlFabricsExtFlowBandwidth (def, &p, &b), ==, MXL_STATUS_OK);
  return b;
}

/* 1080p50 v210 over tcp at MTU 1500. One write of 8,192 + 5,529,600 =
 * 5,537,792 bytes; tcp message = 16 + 24 + 8 (CQ data) + 5,537,792 =
 * 5,537,840 stream bytes; MSS 1500 - 52 = 1,448: 3,824 full segments
 * (5,537,152 bytes) + 688. Full frame 14 + 1,500 + 4 = 1,518 + 20 = 1,538
 * on the line; last 14 + 52 + 688 + 4 = 758 + 20 = 778. Wire = 3,824 x
 * 1,538 + 778 = 5,882,090. Reverse: ack 14 + 52 + 16 + 4 = 86 + 20 = 106,
 * plus 1,913 pure ACKs (3,825 segments / 2, rounded up) of 70 + 20 = 90. */
static void
test_v210_1080p50_tcp (void)
{
  char *def = video_def ("video/v210", 1920, 1080, 50, 1);
  mxlFabricsExtBandwidth b = compute (def, MXL_FABRICS_EXT_LINK_TCP, 0, 0, 0);

  g_assert_cmpint (b.unitRate.numerator, ==, 50);
  g_assert_cmpint (b.unitRate.denominator, ==, 1);
  g_assert_cmpuint (b.mediaBytesPerUnit, ==, 5529600);
  g_assert_cmpuint (b.sentBytesPerUnit, ==, 5529600 + 8192);
  g_assert_cmpuint (b.writesPerUnit, ==, 1);
  g_assert_cmpuint (b.packetsPerUnit, ==, 3825);
  g_assert_cmpuint (b.wireBytesPerUnit, ==, 5882090);
  g_assert_cmpuint (b.reverseWireBytesPerUnit, ==, 106 + 1913 * 90);
  g_assert_cmpfloat (b.mediaBytesPerSecond, ==, 276480000.0);
  g_assert_cmpfloat (b.sentBytesPerSecond, ==, (5529600.0 + 8192.0) * 50);
  g_assert_cmpfloat (b.wireBytesPerSecond, ==, 294104500.0);
  /* the same with the default profile (NULL) and with tcp;ofi_rxm */
  {
    mxlFabricsExtBandwidth d;
    mxlFabricsExtLink l = 0;
    g_assert_cmpint (mxlFabricsExtFlowBandwidth (def, NULL, &d), ==, MXL_STATUS_OK);
    g_assert_cmpuint (d.wireBytesPerUnit, ==, 5882090);
    g_assert_cmpint (mxlFabricsExtLinkFromString ("tcp;ofi_rxm", &l), ==, MXL_STATUS_OK);
    g_assert_cmpint (l, ==, MXL_FABRICS_EXT_LINK_TCP);
  }
  /* jumbo frames: MSS 8,948: 618 full (5,529,864) + 7,976; full frames
   * 14 + 9,000 + 4 + 20 = 9,038; last 14 + 52 + 7,976 + 4 + 20 = 8,066 */
  b = compute (def, MXL_FABRICS_EXT_LINK_TCP, 9000, 0, 0);
  g_assert_cmpuint (b.packetsPerUnit, ==, 619);
  g_assert_cmpuint (b.wireBytesPerUnit, ==, 618ull * 9038 + 8066);
  g_free (def);
}

/* Writes cut at 1 MiB: 5 full writes + 294,912 bytes; only the last has
 * CQ data: stream = 6 x 40 + 8 + 5,537,792 = 5,538,040. */
static void
test_max_message_size (void)
{
  char *def = video_def ("video/v210", 1920, 1080, 50, 1);
  mxlFabricsExtBandwidth b = compute (def, MXL_FABRICS_EXT_LINK_TCP, 0, 1048576, 0);
  uint64_t stream = 6 * 40 + 8 + 5537792, full = stream / 1448, rest = stream % 1448;

  g_assert_cmpuint (b.writesPerUnit, ==, 6);
  g_assert_cmpuint (b.sentBytesPerUnit, ==, 5537792);
  g_assert_cmpuint (full, ==, 3824);
  g_assert_cmpuint (rest, ==, 888);
  g_assert_cmpuint (b.wireBytesPerUnit, ==, 3824ull * 1538 + (14 + 52 + 888 + 4 + 20));
  g_free (def);
}

/* RoCE v2, path MTU 1024: 5,537,792 = 5,408 x 1,024 exactly. Each packet
 * 42 (Ethernet, IPv4, UDP) + 12 BTH + 1,024 + 4 ICRC + 4 FCS + 20 line =
 * 1,106; RETH 16 on the first, ImmDt 4 on the last. One ACK: 42 + 12 + 4
 * AETH + 4 + 4 + 20 = 86. IB, MTU 4096: 1,352 packets of 8 + 12 + 4,096 +
 * 4 + 2 = 4,122, plus 16 + 4; ACK 8 + 12 + 4 + 4 + 2 = 30. */
static void
test_rdma_links (void)
{
  char *def = video_def ("video/v210", 1920, 1080, 50, 1);
  mxlFabricsExtBandwidth b = compute (def, MXL_FABRICS_EXT_LINK_ROCEV2, 0, 0, 0);

  g_assert_cmpuint (b.packetsPerUnit, ==, 5408);
  g_assert_cmpuint (b.wireBytesPerUnit, ==, 5408ull * 1106 + 16 + 4);
  g_assert_cmpuint (b.reverseWireBytesPerUnit, ==, 86);
  b = compute (def, MXL_FABRICS_EXT_LINK_IB, 0, 0, 0);
  g_assert_cmpuint (b.packetsPerUnit, ==, 1352);
  g_assert_cmpuint (b.wireBytesPerUnit, ==, 1352ull * 4122 + 16 + 4);
  g_assert_cmpuint (b.reverseWireBytesPerUnit, ==, 30);
  g_assert_cmpfloat (b.wireBytesPerSecond, ==, (1352.0 * 4122 + 20) * 50);
  /* efa, MTU 8908: 8,844 bytes a packet: 626 packets (626 x 8,844 =
   * 5,536,344 < 5,537,792 <= 627 x 8,844), 64 bytes each */
  b = compute (def, MXL_FABRICS_EXT_LINK_EFA, 0, 0, 0);
  g_assert_cmpuint (b.packetsPerUnit, ==, 627);
  g_assert_cmpuint (b.wireBytesPerUnit, ==, 5537792 + 627 * 64);
  /* shm: no wire */
  b = compute (def, MXL_FABRICS_EXT_LINK_SHM, 0, 0, 0);
  g_assert_cmpuint (b.sentBytesPerUnit, ==, 5537792);
  g_assert_cmpuint (b.packetsPerUnit, ==, 0);
  g_assert_cmpuint (b.wireBytesPerUnit, ==, 0);
  g_assert_cmpfloat (b.wireBytesPerSecond, ==, 0.0);
  g_free (def);
}

/* Other geometries: 2160p50 v210 (3840 -> 80 x 128 = 10,240 bytes a line
 * x 2,160), 1080p v210a (5,529,600 + 640 x 4 x 1,080 = 8,294,400), 59.94
 * Hz (rate 60000/1001, per-unit values unchanged). */
static void
test_geometries (void)
{
  char *d4k = video_def ("video/v210", 3840, 2160, 50, 1);
  char *da = video_def ("video/v210a", 1920, 1080, 50, 1);
  char *d5994 = video_def ("video/v210", 1920, 1080, 60000, 1001);
  mxlFabricsExtBandwidth b = compute (d4k, MXL_FABRICS_EXT_LINK_SHM, 0, 0, 0);

  g_assert_cmpuint (b.mediaBytesPerUnit, ==, 22118400);
  g_assert_cmpfloat (b.mediaBytesPerSecond, ==, 22118400.0 * 50);
  b = compute (da, MXL_FABRICS_EXT_LINK_SHM, 0, 0, 0);
  g_assert_cmpuint (b.mediaBytesPerUnit, ==, 8294400);
  g_assert_cmpuint (b.sentBytesPerUnit, ==, 8294400 + 8192);
  b = compute (d5994, MXL_FABRICS_EXT_LINK_TCP, 0, 0, 0);
  g_assert_cmpint (b.unitRate.numerator, ==, 60000);
  g_assert_cmpint (b.unitRate.denominator, ==, 1001);
  g_assert_cmpuint (b.wireBytesPerUnit, ==, 5882090);
  g_assert_cmpfloat_with_epsilon (b.mediaBytesPerSecond, 5529600.0 * 60000 / 1001, 1e-3);
  g_free (d4k);
  g_free (da);
  g_free (d5994);
}

/* 8 channels, 48 samples (1 ms): entry 16 + 8 x 192 = 1,552 bytes from 9
 * pieces, iov limit 4: writes of 16 + 3 x 192 = 592, 4 x 192 = 768 and
 * 192. tcp stream 3 x 40 + 8 + 1,552 = 1,680: one full segment (1,538 on
 * the line) + 232 (14 + 52 + 232 + 4 + 20 = 322). 1,000 batches a second. */
static void
test_audio (void)
{
  char *def = audio_def (8);
  mxlFabricsExtBandwidth b = compute (def, MXL_FABRICS_EXT_LINK_TCP, 0, 0, 0);

  g_assert_cmpint (b.unitRate.numerator, ==, 1000);
  g_assert_cmpint (b.unitRate.denominator, ==, 1);
  g_assert_cmpuint (b.mediaBytesPerUnit, ==, 1536);
  g_assert_cmpuint (b.sentBytesPerUnit, ==, 1552);
  g_assert_cmpuint (b.writesPerUnit, ==, 3);
  g_assert_cmpuint (b.packetsPerUnit, ==, 2);
  g_assert_cmpuint (b.wireBytesPerUnit, ==, 1538 + 322);
  g_assert_cmpuint (b.reverseWireBytesPerUnit, ==, 106 + 90);
  g_assert_cmpfloat (b.mediaBytesPerSecond, ==, 48000.0 * 8 * 4);
  g_assert_cmpfloat (b.wireBytesPerSecond, ==, 1860000.0);
  /* 10 ms batches: 480 samples, 100 batches a second; the rate reduces */
  b = compute (def, MXL_FABRICS_EXT_LINK_SHM, 0, 0, 480);
  g_assert_cmpint (b.unitRate.numerator, ==, 100);
  g_assert_cmpint (b.unitRate.denominator, ==, 1);
  g_assert_cmpuint (b.mediaBytesPerUnit, ==, 15360);
  g_assert_cmpuint (b.sentBytesPerUnit, ==, 15376);
  /* 7 samples: 48000/7 batches a second */
  b = compute (def, MXL_FABRICS_EXT_LINK_SHM, 0, 0, 7);
  g_assert_cmpint (b.unitRate.numerator, ==, 48000);
  g_assert_cmpint (b.unitRate.denominator, ==, 7);
  g_free (def);
}

static void
test_errors (void)
{
  char *def = video_def ("video/v210", 1920, 1080, 50, 1);
  char *adef = audio_def (2);
  mxlFabricsExtBandwidth b;
  mxlFabricsExtLinkProfile p = { 0, MXL_FABRICS_EXT_LINK_TCP, 0, 0, 0, 0 };
  mxlFabricsExtLink l;

  g_assert_cmpint (mxlFabricsExtFlowBandwidth (NULL, &p, &b), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsExtFlowBandwidth (def, &p, NULL), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsExtFlowBandwidth ("{\"id\":1}", &p, &b), ==, MXL_ERR_INVALID_ARG);
  p.link = 0;
  g_assert_cmpint (mxlFabricsExtFlowBandwidth (def, &p, &b), ==, MXL_ERR_INVALID_ARG);
  p.link = 99;
  g_assert_cmpint (mxlFabricsExtFlowBandwidth (def, &p, &b), ==, MXL_ERR_INVALID_ARG);
  p.link = MXL_FABRICS_EXT_LINK_ROCEV2;
  p.mtu = 1500;                 /* not a path MTU */
  g_assert_cmpint (mxlFabricsExtFlowBandwidth (def, &p, &b), ==, MXL_ERR_INVALID_ARG);
  p.link = MXL_FABRICS_EXT_LINK_TCP;
  p.mtu = 575;
  g_assert_cmpint (mxlFabricsExtFlowBandwidth (def, &p, &b), ==, MXL_ERR_INVALID_ARG);
  /* 48 kHz, 200 ms history: L = 19,456, at most 9,728 samples a batch */
  p.mtu = 0;
  p.samplesPerBatch = 9729;
  g_assert_cmpint (mxlFabricsExtFlowBandwidth (adef, &p, &b), ==, MXL_ERR_INVALID_ARG);
  p.samplesPerBatch = 9728;
  g_assert_cmpint (mxlFabricsExtFlowBandwidth (adef, &p, &b), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtLinkFromString ("verbs", &l), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsExtLinkFromString (NULL, &l), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsExtLinkFromString ("rocev2", &l), ==, MXL_STATUS_OK);
  g_assert_cmpint (l, ==, MXL_FABRICS_EXT_LINK_ROCEV2);
  g_free (def);
  g_free (adef);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bandwidth/v210-1080p50-tcp", test_v210_1080p50_tcp);
  g_test_add_func ("/bandwidth/max-message-size", test_max_message_size);
  g_test_add_func ("/bandwidth/rdma-links", test_rdma_links);
  g_test_add_func ("/bandwidth/geometries", test_geometries);
  g_test_add_func ("/bandwidth/audio", test_audio);
  g_test_add_func ("/bandwidth/errors", test_errors);
  return g_test_run ();
}
