/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz target: the audio bounce entry a target reads from its bounce ring
 * (bounce.h, docs/wire-format.md §4.2 and §4.4). The entry header (head, count) is
 * written by the initiator and untrusted; the target checks it
 * (mxl_bounce_entry_check()) and unpacks the payload into its own channel
 * rings (mxl_bounce_unpack()).
 *
 * Input layout (shorter inputs are zero-padded): byte 0 channels - 1 (mod
 * 8), byte 1 word size selector (1, 2, 3 or 4 bytes), bytes 2-3 ring
 * length L - 1 (LE, mod 1024), bytes 4-5 entry capacity in samples per
 * channel (LE, mod 2048, may exceed L), bytes 6-21 the 16-byte entry
 * header, the rest seeds the payload bytes.
 *
 * Properties:
 *  - the header reads back as the two LE u64 of the input;
 *  - mxl_bounce_entry_check() is TRUE exactly when 1 <= count <= capacity,
 *    count <= L / 2 and head >= count;
 *  - mxl_bounce_unpack() called with ANY (head, count), checked or not:
 *    returns FALSE and writes nothing for count 0 or count > L; otherwise
 *    writes exactly sample i of channel c (i < count) at ring position
 *    (head - count + i) mod L of channel c and nothing else. Guard zones
 *    before and after the rings (sentinel bytes) must stay intact.
 */
#include "fuzz.h"

#include "fabrics/wire/bounce.h"

#define INPUT_HEADER 22
#define GUARD 64
#define SENTINEL 0xA5
#define RING_FILL 0x5A

/* The payload byte at offset @k: from the input when it has one. */
static uint8_t
payload_byte (const uint8_t *seed, size_t seed_len, uint64_t k)
{
  uint8_t b = (uint8_t) (k * 131u + 7u);

  if (seed_len > 0)
    b ^= seed[k % seed_len];
  /* never the ring fill value, so a write is always visible */
  return b == RING_FILL ? (uint8_t) (b + 1) : b;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const uint32_t word_sizes[4] = { 1, 2, 3, 4 };
  uint8_t in[INPUT_HEADER] = { 0 };
  const uint8_t *seed = size > INPUT_HEADER ? data + INPUT_HEADER : NULL;
  size_t seed_len = size > INPUT_HEADER ? size - INPUT_HEADER : 0;
  MxlSampleRing ring;
  uint16_t len16, cap16;
  uint64_t capacity, head, count, want_head, want_count, rings_size, payload_size;
  uint8_t *mem, *rings, *payload, *expect;
  gboolean valid, want_valid, unpacked;

  memcpy (in, data, MIN (size, sizeof (in)));
  memcpy (&len16, in + 2, 2);
  memcpy (&cap16, in + 4, 2);
  ring.channels = (in[0] % 8u) + 1;
  ring.word_size = word_sizes[in[1] % 4u];
  ring.length = (GUINT16_FROM_LE (len16) % 1024u) + 1;
  capacity = GUINT16_FROM_LE (cap16) % 2048u;

  mxl_bounce_header_read (in + 6, &head, &count);
  memcpy (&want_head, in + 6, 8);
  memcpy (&want_count, in + 14, 8);
  g_assert_cmpuint (head, ==, GUINT64_FROM_LE (want_head));
  g_assert_cmpuint (count, ==, GUINT64_FROM_LE (want_count));

  valid = mxl_bounce_entry_check (&ring, capacity, head, count);
  want_valid = count >= 1 && count <= capacity && count <= ring.length / 2
      && head >= count;
  g_assert_cmpint (valid, ==, want_valid);

  /* Channel rings between two guard zones; a payload large enough for any
   * count <= L (unpack reads count samples per channel of it). */
  rings_size = (uint64_t) ring.channels * ring.length * ring.word_size;
  payload_size = rings_size;
  mem = g_malloc (rings_size + 2 * GUARD);
  memset (mem, SENTINEL, GUARD);
  rings = mem + GUARD;
  memset (rings, RING_FILL, rings_size);
  memset (rings + rings_size, SENTINEL, GUARD);
  expect = g_malloc (rings_size);
  memset (expect, RING_FILL, rings_size);
  payload = g_malloc (payload_size);
  for (uint64_t k = 0; k < payload_size; k++)
    payload[k] = payload_byte (seed, seed_len, k);

  unpacked = mxl_bounce_unpack (&ring, rings, payload, head, count);
  g_assert_cmpint (unpacked, ==, count >= 1 && count <= ring.length);
  /* a checked header always unpacks */
  if (valid)
    g_assert_true (unpacked);
  if (unpacked) {
    uint64_t s = ring.word_size;
    uint64_t start = (head % ring.length + ring.length - count) % ring.length;

    for (uint32_t c = 0; c < ring.channels; c++)
      for (uint64_t i = 0; i < count; i++)
        memcpy (expect + ((uint64_t) c * ring.length + (start + i) % ring.length) * s,
            payload + ((uint64_t) c * count + i) * s, s);
  }
  for (size_t k = 0; k < GUARD; k++) {
    g_assert_cmpuint (mem[k], ==, SENTINEL);
    g_assert_cmpuint (rings[rings_size + k], ==, SENTINEL);
  }
  g_assert_true (memcmp (rings, expect, rings_size) == 0);

  g_free (payload);
  g_free (expect);
  g_free (mem);
  return 0;
}
