/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of the audio bounce ring arithmetic (docs/wire-format.md §4):
 * entry geometry (§4.1), fragments, the unpack of §8.3 U3 and the worked
 * example of §4.3 (scatter-gather list and its split by iov_limit).
 */
#include <string.h>

#include <glib.h>

#include "fabrics/wire/bounce.h"

/* §4.1: stereo float32 48 kHz, L = 19456, batch 480 → 41 entries of 3856. */
static void
test_geometry (void)
{
  MxlSampleRing r = { 2, 19456, 4 };
  uint64_t count = 0, size = 0;

  g_assert_true (mxl_bounce_geometry (&r, 480, &count, &size));
  g_assert_cmpuint (count, ==, 41);
  g_assert_cmpuint (size, ==, 3856);
  g_assert_cmpuint (mxl_bounce_capacity (&r, size), ==, 480);
  g_assert_cmpuint (mxl_bounce_capacity (&r, 15), ==, 0);
  r.channels = 64;
  g_assert_true (mxl_bounce_geometry (&r, 48, &count, &size));
  g_assert_cmpuint (count, ==, 406);              /* ceil(19456 / 48) */
  g_assert_cmpuint (size, ==, 16 + 64 * 4 * 48);
  g_assert_false (mxl_bounce_geometry (&r, 0, &count, &size));
}

static void
test_fragments (void)
{
  MxlSampleRun f[2];

  g_assert_cmpuint (mxl_samples_fragments (9, 11, 5, f), ==, 2);
  g_assert_cmpuint (f[0].position, ==, 6);
  g_assert_cmpuint (f[0].count, ==, 3);
  g_assert_cmpuint (f[1].position, ==, 0);
  g_assert_cmpuint (f[1].count, ==, 2);
  /* ends exactly at the ring's end: one fragment */
  g_assert_cmpuint (mxl_samples_fragments (9, 18, 9, f), ==, 1);
  g_assert_cmpuint (f[0].position, ==, 0);
  g_assert_cmpuint (f[0].count, ==, 9);
  g_assert_cmpuint (mxl_samples_fragments (9, 17, 4, f), ==, 1);
  g_assert_cmpuint (f[0].position, ==, 4);
  g_assert_cmpuint (mxl_samples_fragments (9, 17, 0, f), ==, 0);
  g_assert_cmpuint (mxl_samples_fragments (9, 17, 10, f), ==, 0);
  /* heads near 2^64 do not overflow */
  g_assert_cmpuint (mxl_samples_fragments (1000, G_MAXUINT64, 10, f), ==, 1);
  g_assert_cmpuint (f[0].position, ==, G_MAXUINT64 % 1000 - 10);
}

/* §8.3 U3: C = 2, ring 9, head 11, count 5, u32 samples: positions
 * 6,7,8,0,1 get ch0 = 103..107 and ch1 = 203..207, nothing else changes. */
static void
test_unpack_u3 (void)
{
  MxlSampleRing r = { 2, 9, 4 };
  uint32_t rings[18], payload[10];
  static const guint pos[5] = { 6, 7, 8, 0, 1 };

  memset (rings, 0xFF, sizeof rings);
  for (guint k = 0; k < 5; k++) {
    payload[k] = 103 + k;
    payload[5 + k] = 203 + k;
  }
  g_assert_true (mxl_bounce_unpack (&r, (uint8_t *) rings, (const uint8_t *) payload, 11, 5));
  for (guint c = 0; c < 2; c++) {
    for (guint p = 0; p < 9; p++) {
      uint32_t expect = 0xFFFFFFFFu;
      for (guint k = 0; k < 5; k++)
        if (pos[k] == p)
          expect = (c ? 203 : 103) + k;
      g_assert_cmpuint (rings[c * 9 + p], ==, expect);
    }
  }
  /* count 0 and count > L write nothing */
  g_assert_false (mxl_bounce_unpack (&r, (uint8_t *) rings, (const uint8_t *) payload, 11, 0));
  g_assert_false (mxl_bounce_unpack (&r, (uint8_t *) rings, (const uint8_t *) payload, 11, 10));
}

static void
test_header (void)
{
  uint8_t h[16];
  uint64_t head, count;

  mxl_bounce_header_write (h, 0x0102030405060708ull, 480);
  g_assert_cmpuint (h[0], ==, 0x08);            /* little-endian */
  g_assert_cmpuint (h[7], ==, 0x01);
  g_assert_cmpuint (h[8], ==, 480 & 0xFF);
  g_assert_cmpuint (h[9], ==, 480 >> 8);
  mxl_bounce_header_read (h, &head, &count);
  g_assert_cmpuint (head, ==, 0x0102030405060708ull);
  g_assert_cmpuint (count, ==, 480);
}

/* §4.3 worked example: stereo float32, Li = 19456, h = 19500, n = 480 →
 * SGL of 5; iov_limit 4 → writes of 3680 and 176 bytes. */
static void
test_sgl_example (void)
{
  MxlSampleRing r = { 2, 19456, 4 };
  MxlSamplesSgl sgl;
  MxlSgChunk c;

  g_assert_true (mxl_samples_sgl_init (&sgl, &r, 19500, 480, 4, G_MAXUINT64));
  g_assert_cmpuint (mxl_samples_sgl_pieces (&sgl), ==, 5);
  g_assert_true (mxl_samples_sgl_next (&sgl, &c));
  g_assert_cmpuint (c.n_iov, ==, 4);
  g_assert_cmpuint (c.length, ==, 3680);
  g_assert_cmpuint (c.remote_offset, ==, 0);
  g_assert_false (c.last);
  g_assert_cmpint (c.iov[0].region, ==, MXL_SG_HEADER);
  g_assert_cmpuint (c.iov[0].length, ==, 16);
  g_assert_cmpint (c.iov[1].region, ==, MXL_SG_CHANNELS);
  g_assert_cmpuint (c.iov[1].offset, ==, 19020 * 4);
  g_assert_cmpuint (c.iov[1].length, ==, 1744);
  g_assert_cmpuint (c.iov[2].offset, ==, 0);
  g_assert_cmpuint (c.iov[2].length, ==, 176);
  g_assert_cmpuint (c.iov[3].offset, ==, (19456 + 19020) * 4);
  g_assert_cmpuint (c.iov[3].length, ==, 1744);
  g_assert_true (mxl_samples_sgl_next (&sgl, &c));
  g_assert_cmpuint (c.n_iov, ==, 1);
  g_assert_cmpuint (c.length, ==, 176);
  g_assert_cmpuint (c.remote_offset, ==, 3680);
  g_assert_cmpuint (c.iov[0].offset, ==, 19456 * 4);
  g_assert_true (c.last);
  g_assert_false (mxl_samples_sgl_next (&sgl, &c));
}

/* 64 channels, wrapping: 1 + 128 pieces, iov_limit 4 → 33 writes; with a
 * max message size pieces are cut too; the bytes add up to the entry. */
static void
test_sgl_split (void)
{
  MxlSampleRing r = { 64, 1024, 4 };
  static const struct { uint32_t iov; uint64_t max; guint writes; } cases[] = {
    { 4, G_MAXUINT64, 33 }, { 1, G_MAXUINT64, 129 }, { 8, G_MAXUINT64, 17 },
    { 8, 1000, 0 },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    MxlSamplesSgl sgl;
    MxlSgChunk c;
    guint writes = 0, lasts = 0;
    uint64_t off = 0;

    g_assert_true (mxl_samples_sgl_init (&sgl, &r, 1024 + 100, 480, cases[k].iov, cases[k].max));
    g_assert_cmpuint (mxl_samples_sgl_pieces (&sgl), ==, 129);
    while (mxl_samples_sgl_next (&sgl, &c)) {
      uint64_t sum = 0;
      g_assert_cmpuint (c.remote_offset, ==, off);
      g_assert_cmpuint (c.n_iov, <=, cases[k].iov);
      g_assert_cmpuint (c.length, <=, cases[k].max);
      for (guint i = 0; i < c.n_iov; i++)
        sum += c.iov[i].length;
      g_assert_cmpuint (sum, ==, c.length);
      off += c.length;
      writes++;
      lasts += c.last;
    }
    g_assert_cmpuint (off, ==, 16 + 64 * 4 * 480);
    g_assert_cmpuint (lasts, ==, 1);
    if (cases[k].writes)
      g_assert_cmpuint (writes, ==, cases[k].writes);
    else
      g_assert_cmpuint (writes, >=, (off + 999) / 1000);
  }
}

/* Staging: the header and mxl_bounce_pack() give byte for byte what the
 * scatter-gather list of §4.3 puts on the wire (the §4.3 example, wrapping,
 * and 64 channels not wrapping), and the staged list is one write of the
 * whole entry unless max_msg cuts it; unpacking the packed payload into
 * rings of another length gives the samples back. */
static void
check_pack (const MxlSampleRing *r, uint64_t head, uint64_t count)
{
  size_t ring_bytes = (size_t) r->channels * r->length * r->word_size;
  uint64_t total = 16 + (uint64_t) r->channels * r->word_size * count;
  uint8_t *rings = g_malloc (ring_bytes), *packed = g_malloc (total);
  uint8_t *wire = g_malloc (total), *header = g_malloc (16), *back;
  MxlSampleRing other = *r;
  MxlSamplesSgl sgl;
  MxlSgChunk chunk;
  uint64_t at = 0;
  guint writes = 0;

  for (size_t i = 0; i < ring_bytes; i++)
    rings[i] = (uint8_t) (i * 7 + 3);
  mxl_bounce_header_write (header, head, count);
  /* what the scatter-gather writes carry, in order */
  g_assert_true (mxl_samples_sgl_init (&sgl, r, head, count, 4, G_MAXUINT64));
  while (mxl_samples_sgl_next (&sgl, &chunk)) {
    g_assert_cmpuint (chunk.remote_offset, ==, at);
    for (guint k = 0; k < chunk.n_iov; k++) {
      const uint8_t *src = chunk.iov[k].region == MXL_SG_HEADER ? header : rings;
      memcpy (wire + at, src + chunk.iov[k].offset, chunk.iov[k].length);
      at += chunk.iov[k].length;
    }
  }
  g_assert_cmpuint (at, ==, total);
  mxl_bounce_header_write (packed, head, count);
  g_assert_true (mxl_bounce_pack (r, rings, packed + 16, head, count));
  g_assert_true (memcmp (packed, wire, total) == 0);
  g_assert_false (mxl_bounce_pack (r, rings, packed + 16, head, 0));

  mxl_samples_sgl_init_staged (&sgl, total, G_MAXUINT64);
  g_assert_cmpuint (mxl_samples_sgl_pieces (&sgl), ==, 1);
  while (mxl_samples_sgl_next (&sgl, &chunk)) {
    writes++;
    g_assert_cmpuint (chunk.n_iov, ==, 1);
    g_assert_cmpint (chunk.iov[0].region, ==, MXL_SG_STAGING);
    g_assert_cmpuint (chunk.iov[0].offset, ==, 0);
    g_assert_cmpuint (chunk.length, ==, total);
    g_assert_true (chunk.last);
  }
  g_assert_cmpuint (writes, ==, 1);
  /* cut by max_msg: contiguous pieces, the last one carries the imm */
  mxl_samples_sgl_init_staged (&sgl, total, 1000);
  at = 0;
  writes = 0;
  while (mxl_samples_sgl_next (&sgl, &chunk)) {
    g_assert_cmpuint (chunk.iov[0].offset, ==, at);
    g_assert_cmpuint (chunk.remote_offset, ==, at);
    at += chunk.length;
    writes++;
    g_assert_true (chunk.last == (at == total));
  }
  g_assert_cmpuint (writes, ==, (total + 999) / 1000);

  /* round trip into rings of another length */
  other.length = r->length - 17;
  back = g_malloc0 ((size_t) other.channels * other.length * other.word_size);
  g_assert_true (mxl_bounce_unpack (&other, back, packed + 16, head, count));
  for (uint32_t c = 0; c < r->channels; c++)
    for (uint64_t k = head - count; k < head; k++)
      g_assert_true (memcmp (back + (c * other.length + k % other.length) * r->word_size,
          rings + (c * r->length + k % r->length) * r->word_size, r->word_size) == 0);
  g_free (back);
  g_free (rings);
  g_free (packed);
  g_free (wire);
  g_free (header);
}

static void
test_pack (void)
{
  MxlSampleRing stereo = { 2, 19456, 4 }, wide = { 64, 19456, 4 };

  check_pack (&stereo, 19500, 480);         /* §4.3 example: wraps */
  check_pack (&wide, 19456 * 3 + 1000, 48);
  check_pack (&wide, 19456 * 5 + 20, 48);   /* wraps */
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/bounce/geometry", test_geometry);
  g_test_add_func ("/fabrics/bounce/fragments", test_fragments);
  g_test_add_func ("/fabrics/bounce/unpack-u3", test_unpack_u3);
  g_test_add_func ("/fabrics/bounce/header", test_header);
  g_test_add_func ("/fabrics/bounce/sgl-example", test_sgl_example);
  g_test_add_func ("/fabrics/bounce/sgl-split", test_sgl_split);
  g_test_add_func ("/fabrics/bounce/pack", test_pack);
  return g_test_run ();
}
