/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test-side packers of ANC packets (docs/anc-data.md), written apart from
 * the library's conversion so that tests compare it with a second reading
 * of the layouts: ST 2038 buffers and RFC 8331 grain payloads built field
 * by field, MSB first. Used by tests/unit/flow/test-anc.c and
 * tests/gst/test-transfer.c.
 */
#pragma once

#include <glib.h>

typedef struct {
  guint c, line, offset;
  guint8 did, sdid;
  guint n;                      /* UDWs, 0-255 */
  const guint16 *udw;           /* 10-bit words */
} AncTestPacket;

typedef struct {
  GByteArray *bytes;
  gsize bits;
} AncTestBits;

static inline void
anctest_put (AncTestBits * b, guint n, guint32 v)
{
  while (n-- > 0) {
    if (b->bits % 8 == 0) {
      guint8 z = 0;
      g_byte_array_append (b->bytes, &z, 1);
    }
    if ((v >> n) & 1)
      b->bytes->data[b->bits / 8] |= (guint8) (0x80 >> (b->bits % 8));
    b->bits++;
  }
}

/* @v with bit 8 its even parity and bit 9 the inverse (ST 291-1). */
static inline guint16
anctest_word (guint8 v)
{
  guint p = (guint) __builtin_popcount (v) & 1;

  return (guint16) (v | (p << 8) | ((p ^ 1) << 9));
}

/* DID, SDID, DC, UDWs and the checksum (sum of bits 0-8, bit 9 = !bit 8). */
static inline void
anctest_put_words (AncTestBits * b, const AncTestPacket * p)
{
  guint16 w[3] = { anctest_word (p->did), anctest_word (p->sdid),
    anctest_word ((guint8) p->n)
  };
  guint32 sum = 0;
  guint i;

  for (i = 0; i < 3; i++) {
    anctest_put (b, 10, w[i]);
    sum += w[i] & 0x1ff;
  }
  for (i = 0; i < p->n; i++) {
    anctest_put (b, 10, p->udw[i]);
    sum += p->udw[i] & 0x1ff;
  }
  sum &= 0x1ff;
  anctest_put (b, 10, sum | ((((sum >> 8) & 1) ^ 1) << 9));
}

/* One ST 2038 packet: 6 zero bits, C, line, offset, words, '1' stuffing. */
static inline void
anctest_put_st2038 (AncTestBits * b, const AncTestPacket * p)
{
  anctest_put (b, 6, 0);
  anctest_put (b, 1, p->c);
  anctest_put (b, 11, p->line);
  anctest_put (b, 12, p->offset);
  anctest_put_words (b, p);
  while (b->bits % 8)
    anctest_put (b, 1, 1);
}

/* The ST 2038 buffer of @n packets. */
static inline GByteArray *
anctest_st2038 (const AncTestPacket * p, guint n)
{
  AncTestBits b = { g_byte_array_new (), 0 };
  guint i;

  for (i = 0; i < n; i++)
    anctest_put_st2038 (&b, &p[i]);
  return b.bytes;
}

/* The RFC 8331 payload from its Length field: Length, ANC_Count, F 00,
 * reserved, then each packet (S 0, StreamNum 0) padded to 32 bits. */
static inline GByteArray *
anctest_rfc8331 (const AncTestPacket * p, guint n)
{
  AncTestBits b = { g_byte_array_new (), 0 };
  gsize length;
  guint i;

  anctest_put (&b, 24, 0);
  anctest_put (&b, 24, 0);
  for (i = 0; i < n; i++) {
    anctest_put (&b, 1, p[i].c);
    anctest_put (&b, 11, p[i].line);
    anctest_put (&b, 12, p[i].offset);
    anctest_put (&b, 8, 0);
    anctest_put_words (&b, &p[i]);
    while ((b.bits - 48) % 32)
      anctest_put (&b, 1, 0);
  }
  length = b.bytes->len - 6;
  b.bytes->data[0] = (guint8) (length >> 8);
  b.bytes->data[1] = (guint8) length;
  b.bytes->data[2] = (guint8) n;
  return b.bytes;
}
