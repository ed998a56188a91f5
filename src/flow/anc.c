/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ANC data: SMPTE ST 2038 buffers <-> RFC 8331 payloads of `video/smpte291`
 * data grains (docs/flow-format.md §3.10). The bit layouts and the word rules are
 * in docs/anc-data.md; both directions check every packet and drop the
 * ones a checker would reject.
 */
#include "flow/anc.h"

#include <stdint.h>

#include <mxl/flow-ext.h>

/* ---------------------------------------------------------- ST 291-1 words */

uint16_t
mxl_anc_word (uint8_t value)
{
  uint16_t parity = (uint16_t) (__builtin_popcount (value) & 1);

  return (uint16_t) (value | (parity << 8) | ((parity ^ 1u) << 9));
}

bool
mxl_anc_word_ok (uint16_t word)
{
  word &= 0x3ff;
  return mxl_anc_word ((uint8_t) word) == word;
}

uint16_t
mxl_anc_checksum (uint16_t did, uint16_t sdid, uint16_t dc,
    uint16_t const *udw, size_t n)
{
  uint32_t sum = (did & 0x1ffu) + (sdid & 0x1ffu) + (dc & 0x1ffu);
  size_t i;

  for (i = 0; i < n; i++)
    sum += udw[i] & 0x1ffu;
  sum &= 0x1ffu;
  return (uint16_t) (sum | ((((sum >> 8) & 1u) ^ 1u) << 9));
}

/* ------------------------------------------------------------ bit access */

/* Reads MSB first; a read past @bits fails and consumes nothing. */
typedef struct {
  uint8_t const *data;
  size_t bits;
  size_t pos;
} BitReader;

static bool
bits_read (BitReader * r, unsigned n, uint32_t * value)
{
  uint32_t v = 0;
  unsigned i;

  if (r->bits - r->pos < n)
    return false;
  for (i = 0; i < n; i++, r->pos++)
    v = (v << 1) | ((r->data[r->pos >> 3] >> (7 - (r->pos & 7))) & 1u);
  *value = v;
  return true;
}

/* Writes MSB first; bits past @cap_bits are counted but not stored, so
 * that a payload too large for the output still reports its size. */
typedef struct {
  uint8_t *data;
  size_t cap_bits;
  size_t pos;
} BitWriter;

static void
bits_write (BitWriter * w, unsigned n, uint32_t value)
{
  unsigned i;

  for (i = n; i-- > 0; w->pos++) {
    uint8_t mask = (uint8_t) (0x80u >> (w->pos & 7));
    if (w->pos >= w->cap_bits)
      continue;
    if ((value >> i) & 1u)
      w->data[w->pos >> 3] |= mask;
    else
      w->data[w->pos >> 3] &= (uint8_t) ~mask;
  }
}

static size_t
bits_of (size_t bytes)
{
  return bytes > SIZE_MAX / 8 ? SIZE_MAX : bytes * 8;
}

/* -------------------------------------------------------------- packets */

/* One ANC packet; the 10-bit words as carried. */
typedef struct {
  uint32_t c, line, offset;
  uint32_t did, sdid, dc, checksum;
  unsigned n;
  uint16_t udw[255];
} AncPacket;

/* C, line number and horizontal offset: 1 + 11 + 12 bits in both layouts. */
static bool
read_place (BitReader * r, AncPacket * p)
{
  return bits_read (r, 1, &p->c) && bits_read (r, 11, &p->line)
      && bits_read (r, 12, &p->offset);
}

static void
write_place (BitWriter * w, AncPacket const *p)
{
  bits_write (w, 1, p->c);
  bits_write (w, 11, p->line);
  bits_write (w, 12, p->offset);
}

/* DID, SDID, DC, the DC & 0xff UDWs and the checksum: the same 10-bit
 * words, in the same order, in both layouts. */
static bool
read_words (BitReader * r, AncPacket * p)
{
  uint32_t v;
  unsigned i;

  if (!bits_read (r, 10, &p->did) || !bits_read (r, 10, &p->sdid)
      || !bits_read (r, 10, &p->dc))
    return false;
  p->n = p->dc & 0xffu;
  for (i = 0; i < p->n; i++) {
    if (!bits_read (r, 10, &v))
      return false;
    p->udw[i] = (uint16_t) v;
  }
  return bits_read (r, 10, &p->checksum);
}

/* Writes the words with the parity bits and checksum computed (equal to
 * the carried ones for a packet check_packet() accepted). */
static void
write_words (BitWriter * w, AncPacket const *p)
{
  uint16_t did = mxl_anc_word ((uint8_t) p->did);
  uint16_t sdid = mxl_anc_word ((uint8_t) p->sdid);
  uint16_t dc = mxl_anc_word ((uint8_t) p->dc);
  unsigned i;

  bits_write (w, 10, did);
  bits_write (w, 10, sdid);
  bits_write (w, 10, dc);
  for (i = 0; i < p->n; i++)
    bits_write (w, 10, p->udw[i]);
  bits_write (w, 10, mxl_anc_checksum (did, sdid, dc, p->udw, p->n));
}

/* Counts @p in @st as converted or as dropped; returns whether to keep it. */
static bool
check_packet (AncPacket const *p, mxlAncStats * st)
{
  if (!mxl_anc_word_ok ((uint16_t) p->did) || !mxl_anc_word_ok ((uint16_t)
          p->sdid) || !mxl_anc_word_ok ((uint16_t) p->dc)) {
    st->badParity++;
    return false;
  }
  if (mxl_anc_checksum ((uint16_t) p->did, (uint16_t) p->sdid,
          (uint16_t) p->dc, p->udw, p->n) != p->checksum) {
    st->badChecksum++;
    return false;
  }
  st->packets++;
  return true;
}

static bool
all_stuffing (uint8_t const *p, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++)
    if (p[i] != 0xff)
      return false;
  return true;
}

/* ------------------------------------------------------------ conversions */

mxlStatus
mxlAncGrainFromSt2038 (uint8_t const *in, size_t in_size, uint8_t *out,
    size_t out_capacity, size_t *out_size, mxlAncStats *stats)
{
  mxlAncStats st = { 0 };
  BitReader r = { in, bits_of (in_size), 0 };
  BitWriter w = { out, bits_of (out_capacity), 0 };
  size_t bytes;

  if (out == NULL || out_size == NULL || (in == NULL && in_size > 0)
      || in_size > SIZE_MAX / 8)
    return MXL_ERR_INVALID_ARG;

  /* Length and ANC_Count are set at the end; F = 00, reserved 0. */
  bits_write (&w, 24, 0);
  bits_write (&w, 24, 0);
  /* Each packet starts on a byte boundary (the stuffing of the one before). */
  while (r.pos < r.bits) {
    AncPacket p;
    uint32_t zero, bit = 1;
    bool stuffing_ok = true;

    if (all_stuffing (in + r.pos / 8, in_size - r.pos / 8))
      break;
    if (!bits_read (&r, 6, &zero) || zero != 0 || !read_place (&r, &p)
        || !read_words (&r, &p)) {
      /* Cut short, or not at a packet: where a next one would start is
       * unknown, so the rest of the buffer is one malformed packet. */
      st.malformed++;
      break;
    }
    while (r.pos & 7) {
      bits_read (&r, 1, &bit);
      stuffing_ok = stuffing_ok && bit;
    }
    if (!stuffing_ok) {
      st.malformed++;
      continue;
    }
    if (!check_packet (&p, &st))
      continue;
    write_place (&w, &p);
    bits_write (&w, 8, 0);      /* S = 0, StreamNum = 0 */
    write_words (&w, &p);
    /* word_align: packets are 32-bit aligned from the first one on */
    while ((w.pos - 8 * MXL_ANC_GRAIN_HEADER_SIZE) & 31)
      bits_write (&w, 1, 0);
  }

  bytes = w.pos / 8;
  *out_size = bytes;
  if (stats)
    *stats = st;
  if (st.packets > MXL_ANC_MAX_PACKETS || bytes > out_capacity
      || bytes - MXL_ANC_GRAIN_HEADER_SIZE > 0xffff)
    return MXL_ERR_STRLEN;
  out[0] = (uint8_t) ((bytes - MXL_ANC_GRAIN_HEADER_SIZE) >> 8);
  out[1] = (uint8_t) (bytes - MXL_ANC_GRAIN_HEADER_SIZE);
  out[2] = (uint8_t) st.packets;
  return MXL_STATUS_OK;
}

mxlStatus
mxlAncGrainToSt2038 (uint8_t const *in, size_t in_size, uint8_t *out,
    size_t out_capacity, size_t *out_size, mxlAncStats *stats)
{
  mxlAncStats st = { 0 };
  BitWriter w = { out, bits_of (out_capacity), 0 };
  BitReader r;
  size_t length, bytes;
  unsigned count, i;

  if (in == NULL || out == NULL || out_size == NULL
      || in_size < MXL_ANC_GRAIN_HEADER_SIZE)
    return MXL_ERR_INVALID_ARG;
  length = ((size_t) in[0] << 8) | in[1];
  count = in[2];
  if (length > in_size - MXL_ANC_GRAIN_HEADER_SIZE) {
    /* The Length cannot be trusted, so neither can any packet. */
    st.malformed = count;
    count = 0;
  }
  r.data = in + MXL_ANC_GRAIN_HEADER_SIZE;
  r.bits = count ? length * 8 : 0;
  r.pos = 0;

  for (i = 0; i < count; i++) {
    AncPacket p;
    uint32_t s_stream;
    size_t end;

    if (!read_place (&r, &p) || !bits_read (&r, 8, &s_stream)
        || !read_words (&r, &p)
        || (end = (r.pos + 31) & ~(size_t) 31) > r.bits) {
      /* Runs past Length: this one and the ones after it are lost. */
      st.malformed += count - i;
      break;
    }
    r.pos = end;                /* word_align */
    if (!check_packet (&p, &st))
      continue;
    bits_write (&w, 6, 0);
    write_place (&w, &p);
    write_words (&w, &p);
    while (w.pos & 7)
      bits_write (&w, 1, 1);    /* ST 2038 stuffing */
  }

  bytes = w.pos / 8;
  *out_size = bytes;
  if (stats)
    *stats = st;
  return bytes > out_capacity ? MXL_ERR_STRLEN : MXL_STATUS_OK;
}
