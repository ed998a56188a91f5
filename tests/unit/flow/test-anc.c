/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ANC data conversions (src/flow/anc.c, docs/anc-data.md): ST 291-1 parity
 * and checksum words, ST 2038 <-> RFC 8331 against byte vectors worked out
 * by hand from the layouts, 32-bit word alignment, multi-packet payloads,
 * payloads too large for a grain, and packets with a bad checksum, bad
 * parity or cut short: dropped and counted.
 */
#include <string.h>

#include <glib.h>

#include <mxl/dataformat.h>
#include <mxl/flow-ext.h>

#include "flow/anc.h"

#include "anctest.h"

/* Packet A: C 0, line 9, offset 0, DID 0x61 (0x161), SDID 0x02 (0x102),
 * DC 2 (0x102), UDWs 0x0aa 0x3ff, checksum 0x20e; 90 bits + 6 stuffing. */
static const guint8 st_a[] = {
  0x00, 0x02, 0x40, 0x01, 0x61, 0x40, 0x90, 0x22, 0xab, 0xff, 0x83, 0xbf
};

/* Packet B: C 1, line 572, offset 0x123, DID 0x41 (0x241), SDID 0x07
 * (0x107), DC 0 (0x200), checksum 0x148; 70 bits + 2 stuffing. */
static const guint8 st_b[] = {
  0x02, 0x8f, 0x04, 0x8e, 0x41, 0x41, 0xe0, 0x05, 0x23
};

/* The same packets in RFC 8331: S 0, StreamNum 0, word_align to 96 bits. */
static const guint8 rfc_a[] = {
  0x00, 0x90, 0x00, 0x00, 0x58, 0x50, 0x24, 0x08, 0xaa, 0xff, 0xe0, 0xe0
};

static const guint8 rfc_b[] = {
  0xa3, 0xc1, 0x23, 0x00, 0x90, 0x50, 0x78, 0x01, 0x48, 0x00, 0x00, 0x00
};

static GByteArray *
concat (const guint8 * a, gsize na, const guint8 * b, gsize nb)
{
  GByteArray *out = g_byte_array_new ();

  g_byte_array_append (out, a, (guint) na);
  g_byte_array_append (out, b, (guint) nb);
  return out;
}

/* An RFC 8331 payload: 6-byte header (Length, ANC_Count, F 0) + @packets. */
static GByteArray *
rfc_payload (guint count, const guint8 * packets, gsize n)
{
  guint8 hdr[6] = { (guint8) (n >> 8), (guint8) n, (guint8) count, 0, 0, 0 };

  return concat (hdr, sizeof (hdr), packets, n);
}

static void
assert_bytes (const guint8 * got, gsize ngot, const guint8 * want, gsize nwant)
{
  g_assert_cmpmem (got, ngot, want, nwant);
}

/* One valid ST 2038 packet with @n UDWs (values derived from @seed). */
static void
put_st2038 (AncTestBits * b, guint line, guint8 did, guint8 sdid, guint n,
    guint seed)
{
  guint16 udw[255];
  AncTestPacket p = { 0, line, 0, did, sdid, n, udw };
  guint i;

  for (i = 0; i < n; i++)
    udw[i] = (guint16) ((seed * 37 + i * 11) & 0x3ff);
  anctest_put_st2038 (b, &p);
}

/* ------------------------------------------------------------------ tests */

static void
test_parity (void)
{
  /* CEA-708: DID 0x61, SDID 0x01, DC 0x49 (3, 1, 3 ones: odd -> bit 8) */
  g_assert_cmphex (mxl_anc_word (0x61), ==, 0x161);
  g_assert_cmphex (mxl_anc_word (0x01), ==, 0x101);
  g_assert_cmphex (mxl_anc_word (0x49), ==, 0x149);
  /* even number of ones: bit 8 clear, bit 9 set */
  g_assert_cmphex (mxl_anc_word (0x00), ==, 0x200);
  g_assert_cmphex (mxl_anc_word (0xff), ==, 0x2ff);
  g_assert_cmphex (mxl_anc_word (0x41), ==, 0x241);
  g_assert_true (mxl_anc_word_ok (0x161));
  g_assert_true (mxl_anc_word_ok (0x200));
  g_assert_false (mxl_anc_word_ok (0x061));     /* parity bits missing */
  g_assert_false (mxl_anc_word_ok (0x361));     /* bit 9 not the inverse */
  g_assert_false (mxl_anc_word_ok (0x261));     /* bit 8 wrong */
}

static void
test_checksum (void)
{
  guint16 udw[2] = { 0x0aa, 0x3ff };

  /* 0x161 + 0x102 + 0x102 + 0x0aa + 0x1ff = 0x60e -> 0x00e, bit 9 set */
  g_assert_cmphex (mxl_anc_checksum (0x161, 0x102, 0x102, udw, 2), ==, 0x20e);
  /* 0x041 + 0x107 + 0x000 = 0x148: bit 8 set, bit 9 clear */
  g_assert_cmphex (mxl_anc_checksum (0x241, 0x107, 0x200, NULL, 0), ==, 0x148);
}

static void
test_multi_packet (void)
{
  GByteArray *st = concat (st_a, sizeof (st_a), st_b, sizeof (st_b));
  GByteArray *rfc_packets = concat (rfc_a, sizeof (rfc_a), rfc_b,
      sizeof (rfc_b));
  GByteArray *rfc = rfc_payload (2, rfc_packets->data, rfc_packets->len);
  guint8 grain[MXL_DATA_FORMAT_GRAIN_SIZE], back[MXL_DATA_FORMAT_GRAIN_SIZE];
  mxlAncStats stats;
  gsize n = 0, m = 0;

  memset (grain, 0xee, sizeof (grain));
  g_assert_cmpint (mxlAncGrainFromSt2038 (st->data, st->len, grain,
          sizeof (grain), &n, &stats), ==, MXL_STATUS_OK);
  /* Length 24, ANC_Count 2, F 0: the exact RFC 8331 bytes */
  assert_bytes (grain, n, rfc->data, rfc->len);
  g_assert_cmpuint (n, ==, 30);
  g_assert_cmpuint (stats.packets, ==, 2);
  g_assert_cmpuint (stats.badParity + stats.badChecksum + stats.malformed, ==,
      0);
  g_assert_cmphex (grain[30], ==, 0xee);        /* nothing written after */

  g_assert_cmpint (mxlAncGrainToSt2038 (grain, sizeof (grain), back,
          sizeof (back), &m, &stats), ==, MXL_STATUS_OK);
  assert_bytes (back, m, st->data, st->len);
  g_assert_cmpuint (stats.packets, ==, 2);

  g_byte_array_unref (st);
  g_byte_array_unref (rfc_packets);
  g_byte_array_unref (rfc);
}

/* Every packet of the RFC 8331 form is a whole number of 32-bit words,
 * 4 * ceil((72 + 10 n) / 32) bytes; ST 2038 takes ceil((70 + 10 n) / 8). */
static void
test_alignment (void)
{
  guint16 udw[41];
  guint n, i;

  for (i = 0; i < G_N_ELEMENTS (udw); i++)
    udw[i] = (guint16) ((i * 97 + 5) & 0x3ff);
  for (n = 0; n <= 40; n++) {
    AncTestPacket p[2] = {
      {0, 10 + n, n, 0x45, 0x04, n, udw},
      {1, 11 + n, 0, 0x60, 0x60, n + 1, udw},
    };
    GByteArray *st = anctest_st2038 (p, 2), *rfc = anctest_rfc8331 (p, 2);
    guint8 grain[MXL_DATA_FORMAT_GRAIN_SIZE], back[MXL_DATA_FORMAT_GRAIN_SIZE];
    gsize size = 0, back_size = 0, want = 4 * ((72 + 10 * n + 31) / 32);
    mxlAncStats stats;

    g_assert_cmpuint (st->len, ==, (70 + 10 * n + 7) / 8 +
        (80 + 10 * n + 7) / 8);
    g_assert_cmpint (mxlAncGrainFromSt2038 (st->data, st->len, grain,
            sizeof (grain), &size, &stats), ==, MXL_STATUS_OK);
    g_assert_cmpuint (stats.packets, ==, 2);
    assert_bytes (grain, size, rfc->data, rfc->len);
    g_assert_cmpuint (size, ==, 6 + want + 4 * ((82 + 10 * n + 31) / 32));
    g_assert_cmpuint ((gsize) ((grain[0] << 8) | grain[1]), ==, size - 6);
    g_assert_cmpuint (grain[2], ==, 2);
    /* the second packet starts at the word after the first: C 1, line */
    g_assert_cmpuint (grain[6 + want] >> 7, ==, 1);
    g_assert_cmpuint ((guint) ((grain[6 + want] & 0x7f) << 4 |
            grain[7 + want] >> 4), ==, 11 + n);
    g_assert_cmpint (mxlAncGrainToSt2038 (grain, sizeof (grain), back,
            sizeof (back), &back_size, &stats), ==, MXL_STATUS_OK);
    assert_bytes (back, back_size, st->data, st->len);
    g_byte_array_unref (st);
    g_byte_array_unref (rfc);
  }
}

/* A payload that does not fit is refused whole, with the size it needs. */
static void
test_oversize (void)
{
  AncTestBits big = { g_byte_array_new (), 0 };
  AncTestBits many = { g_byte_array_new (), 0 };
  guint8 grain[MXL_DATA_FORMAT_GRAIN_SIZE + 16];
  mxlAncStats stats;
  gsize size = 0;
  guint i;

  /* 255 UDWs: 328 bytes in both layouts; 12 fit in 4090 bytes, 13 not */
  for (i = 0; i < 12; i++)
    put_st2038 (&big, 9 + i, 0x61, 0x01, 255, i);
  g_assert_cmpint (mxlAncGrainFromSt2038 (big.bytes->data, big.bytes->len,
          grain, MXL_DATA_FORMAT_GRAIN_SIZE, &size, &stats), ==,
      MXL_STATUS_OK);
  g_assert_cmpuint (size, ==, 6 + 12 * 328);
  put_st2038 (&big, 30, 0x61, 0x01, 255, 12);
  memset (grain, 0xee, sizeof (grain));
  g_assert_cmpint (mxlAncGrainFromSt2038 (big.bytes->data, big.bytes->len,
          grain, MXL_DATA_FORMAT_GRAIN_SIZE, &size, &stats), ==,
      MXL_ERR_STRLEN);
  g_assert_cmpuint (size, ==, 6 + 13 * 328);
  g_assert_cmpuint (stats.packets, ==, 13);
  for (i = MXL_DATA_FORMAT_GRAIN_SIZE; i < sizeof (grain); i++)
    g_assert_cmphex (grain[i], ==, 0xee);       /* never written past */

  /* 256 packets of 12 bytes fit in bytes but not in ANC_Count */
  for (i = 0; i < 255; i++)
    put_st2038 (&many, 9, 0x41, 0x07, 0, 0);
  g_assert_cmpint (mxlAncGrainFromSt2038 (many.bytes->data, many.bytes->len,
          grain, MXL_DATA_FORMAT_GRAIN_SIZE, &size, &stats), ==,
      MXL_STATUS_OK);
  g_assert_cmpuint (grain[2], ==, 255);
  g_assert_cmpuint (size, ==, 6 + 255 * 12);
  put_st2038 (&many, 9, 0x41, 0x07, 0, 0);
  g_assert_cmpint (mxlAncGrainFromSt2038 (many.bytes->data, many.bytes->len,
          grain, MXL_DATA_FORMAT_GRAIN_SIZE, &size, &stats), ==,
      MXL_ERR_STRLEN);
  g_assert_cmpuint (stats.packets, ==, 256);

  /* a small output: needs 18 bytes for packet A, has 10 */
  memset (grain, 0xee, sizeof (grain));
  g_assert_cmpint (mxlAncGrainFromSt2038 (st_a, sizeof (st_a), grain, 10,
          &size, NULL), ==, MXL_ERR_STRLEN);
  g_assert_cmpuint (size, ==, 18);
  g_assert_cmphex (grain[10], ==, 0xee);
  {
    GByteArray *rfc = rfc_payload (1, rfc_a, sizeof (rfc_a));
    g_assert_cmpint (mxlAncGrainToSt2038 (rfc->data, rfc->len, grain, 11,
            &size, NULL), ==, MXL_ERR_STRLEN);
    g_assert_cmpuint (size, ==, 12);
    g_assert_cmphex (grain[11], ==, 0xee);
    g_byte_array_unref (rfc);
  }
  g_byte_array_unref (big.bytes);
  g_byte_array_unref (many.bytes);
}

/* From the network: a bad checksum or bad parity drops that packet only. */
static void
test_bad_packets_dropped (void)
{
  guint8 bad[sizeof (rfc_a)], out[64];
  GByteArray *packets, *rfc;
  mxlAncStats stats;
  gsize size = 0;

  /* checksum 0x20e -> 0x30e (bits 82-91 of the packet; bit 83 flipped) */
  memcpy (bad, rfc_a, sizeof (bad));
  bad[10] ^= 0x10;
  packets = concat (bad, sizeof (bad), rfc_b, sizeof (rfc_b));
  rfc = rfc_payload (2, packets->data, packets->len);
  g_assert_cmpint (mxlAncGrainToSt2038 (rfc->data, rfc->len, out,
          sizeof (out), &size, &stats), ==, MXL_STATUS_OK);
  assert_bytes (out, size, st_b, sizeof (st_b));
  g_assert_cmpuint (stats.packets, ==, 1);
  g_assert_cmpuint (stats.badChecksum, ==, 1);
  g_assert_cmpuint (stats.badParity, ==, 0);
  g_byte_array_unref (packets);
  g_byte_array_unref (rfc);

  /* DID 0x161 -> 0x061 (its bit 8, bit 33 of the packet, cleared) */
  memcpy (bad, rfc_a, sizeof (bad));
  bad[4] &= (guint8) ~0x40;
  packets = concat (rfc_b, sizeof (rfc_b), bad, sizeof (bad));
  rfc = rfc_payload (2, packets->data, packets->len);
  g_assert_cmpint (mxlAncGrainToSt2038 (rfc->data, rfc->len, out,
          sizeof (out), &size, &stats), ==, MXL_STATUS_OK);
  assert_bytes (out, size, st_b, sizeof (st_b));
  g_assert_cmpuint (stats.packets, ==, 1);
  g_assert_cmpuint (stats.badParity, ==, 1);
  g_byte_array_unref (packets);
  g_byte_array_unref (rfc);

  /* the same at the sink side: an ST 2038 packet with a bad checksum */
  {
    guint8 st_bad[sizeof (st_a)], grain[64];
    GByteArray *in;
    GByteArray *want = rfc_payload (1, rfc_b, sizeof (rfc_b));

    memcpy (st_bad, st_a, sizeof (st_bad));
    st_bad[10] ^= 0x04;         /* checksum bit 4 (bits 80-89) */
    in = concat (st_bad, sizeof (st_bad), st_b, sizeof (st_b));
    g_assert_cmpint (mxlAncGrainFromSt2038 (in->data, in->len, grain,
            sizeof (grain), &size, &stats), ==, MXL_STATUS_OK);
    assert_bytes (grain, size, want->data, want->len);
    g_assert_cmpuint (stats.badChecksum, ==, 1);
    g_assert_cmpuint (stats.packets, ==, 1);
    g_byte_array_unref (in);
    g_byte_array_unref (want);
  }
}

/* Lengths and counts from the network are checked. */
static void
test_malformed (void)
{
  guint8 out[64], grain[64];
  GByteArray *packets = concat (rfc_a, sizeof (rfc_a), rfc_b, sizeof (rfc_b));
  GByteArray *rfc = rfc_payload (3, packets->data, packets->len);
  GByteArray *st = concat (st_a, sizeof (st_a), st_b, sizeof (st_b));
  mxlAncStats stats;
  gsize size = 0;

  /* ANC_Count 3, two packets within Length */
  g_assert_cmpint (mxlAncGrainToSt2038 (rfc->data, rfc->len, out,
          sizeof (out), &size, &stats), ==, MXL_STATUS_OK);
  assert_bytes (out, size, st->data, st->len);
  g_assert_cmpuint (stats.packets, ==, 2);
  g_assert_cmpuint (stats.malformed, ==, 1);

  /* Length one word short: packet B runs past it */
  rfc->data[1] = 20;
  rfc->data[2] = 2;
  g_assert_cmpint (mxlAncGrainToSt2038 (rfc->data, rfc->len, out,
          sizeof (out), &size, &stats), ==, MXL_STATUS_OK);
  assert_bytes (out, size, st_a, sizeof (st_a));
  g_assert_cmpuint (stats.malformed, ==, 1);

  /* Length beyond the grain: nothing can be trusted */
  rfc->data[0] = 0x10;
  g_assert_cmpint (mxlAncGrainToSt2038 (rfc->data, rfc->len, out,
          sizeof (out), &size, &stats), ==, MXL_STATUS_OK);
  g_assert_cmpuint (size, ==, 0);
  g_assert_cmpuint (stats.packets, ==, 0);
  g_assert_cmpuint (stats.malformed, ==, 2);

  /* ST 2038 cut short: the last packet is lost, counted */
  g_assert_cmpint (mxlAncGrainFromSt2038 (st->data, st->len - 1, grain,
          sizeof (grain), &size, &stats), ==, MXL_STATUS_OK);
  g_assert_cmpuint (stats.packets, ==, 1);
  g_assert_cmpuint (stats.malformed, ==, 1);
  g_assert_cmpuint (size, ==, 18);
  g_assert_cmpuint (grain[2], ==, 1);

  /* 0xFF stuffing after the packets is not a packet */
  {
    guint8 stuffed[sizeof (st_a) + 4];
    memcpy (stuffed, st_a, sizeof (st_a));
    memset (stuffed + sizeof (st_a), 0xff, 4);
    g_assert_cmpint (mxlAncGrainFromSt2038 (stuffed, sizeof (stuffed), grain,
            sizeof (grain), &size, &stats), ==, MXL_STATUS_OK);
    g_assert_cmpuint (stats.packets, ==, 1);
    g_assert_cmpuint (stats.malformed, ==, 0);
    g_assert_cmpuint (size, ==, 18);
  }
  /* stuffing bits must be ones; leading bits must be zeros */
  {
    guint8 bad[sizeof (st_a)];
    memcpy (bad, st_a, sizeof (bad));
    bad[11] &= 0xfe;
    g_assert_cmpint (mxlAncGrainFromSt2038 (bad, sizeof (bad), grain,
            sizeof (grain), &size, &stats), ==, MXL_STATUS_OK);
    g_assert_cmpuint (stats.malformed, ==, 1);
    g_assert_cmpuint (stats.packets, ==, 0);
    g_assert_cmpuint (size, ==, 6);
    memcpy (bad, st_a, sizeof (bad));
    bad[0] = 0x40;
    g_assert_cmpint (mxlAncGrainFromSt2038 (bad, sizeof (bad), grain,
            sizeof (grain), &size, &stats), ==, MXL_STATUS_OK);
    g_assert_cmpuint (stats.malformed, ==, 1);
  }
  g_byte_array_unref (packets);
  g_byte_array_unref (rfc);
  g_byte_array_unref (st);
}

static void
test_empty_and_args (void)
{
  static const guint8 zero6[6] = { 0 };
  guint8 grain[16], out[16];
  mxlAncStats stats;
  gsize size = 99;

  memset (grain, 0xee, sizeof (grain));
  g_assert_cmpint (mxlAncGrainFromSt2038 (NULL, 0, grain, sizeof (grain),
          &size, &stats), ==, MXL_STATUS_OK);
  assert_bytes (grain, size, zero6, 6);
  g_assert_cmpuint (stats.packets, ==, 0);
  g_assert_cmpint (mxlAncGrainToSt2038 (grain, sizeof (grain), out,
          sizeof (out), &size, &stats), ==, MXL_STATUS_OK);
  g_assert_cmpuint (size, ==, 0);

  g_assert_cmpint (mxlAncGrainFromSt2038 (NULL, 1, grain, 16, &size, NULL),
      ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlAncGrainFromSt2038 (st_a, 12, NULL, 16, &size, NULL),
      ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlAncGrainFromSt2038 (st_a, 12, grain, 16, NULL, NULL),
      ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlAncGrainToSt2038 (grain, 5, out, 16, &size, NULL),
      ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlAncGrainToSt2038 (NULL, 6, out, 16, &size, NULL),
      ==, MXL_ERR_INVALID_ARG);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/anc/parity", test_parity);
  g_test_add_func ("/anc/checksum", test_checksum);
  g_test_add_func ("/anc/multi-packet", test_multi_packet);
  g_test_add_func ("/anc/alignment", test_alignment);
  g_test_add_func ("/anc/oversize", test_oversize);
  g_test_add_func ("/anc/bad-packets-dropped", test_bad_packets_dropped);
  g_test_add_func ("/anc/malformed", test_malformed);
  g_test_add_func ("/anc/empty-and-args", test_empty_and_args);
  return g_test_run ();
}
