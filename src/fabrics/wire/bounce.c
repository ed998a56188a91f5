/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Audio bounce ring arithmetic (docs/wire-format.md §4). */
#include "fabrics/wire/bounce.h"

#include <string.h>

gboolean
mxl_bounce_geometry (const MxlSampleRing *ring, uint64_t batch,
    uint64_t *out_count, uint64_t *out_size)
{
  uint64_t per_sample = (uint64_t) ring->channels * ring->word_size;

  if (batch == 0 || per_sample == 0 || ring->length == 0
      || batch > (G_MAXUINT32 - MXL_BOUNCE_HEADER_SIZE) / per_sample)
    return FALSE;
  *out_size = MXL_BOUNCE_HEADER_SIZE + per_sample * batch;
  *out_count = (ring->length + batch - 1) / batch;
  return TRUE;
}

uint64_t
mxl_bounce_capacity (const MxlSampleRing *ring, uint64_t entry_size)
{
  uint64_t per_sample = (uint64_t) ring->channels * ring->word_size;

  if (per_sample == 0 || entry_size < MXL_BOUNCE_HEADER_SIZE)
    return 0;
  return (entry_size - MXL_BOUNCE_HEADER_SIZE) / per_sample;
}

guint
mxl_samples_fragments (uint64_t ring_length, uint64_t head, uint64_t count,
    MxlSampleRun out[2])
{
  uint64_t start;

  if (count == 0 || ring_length == 0 || count > ring_length)
    return 0;
  /* (head + L - count) mod L without overflow for any head. */
  start = (head % ring_length + ring_length - count) % ring_length;
  if (start + count <= ring_length) {
    out[0] = (MxlSampleRun) { start, count };
    return 1;
  }
  out[0] = (MxlSampleRun) { start, ring_length - start };
  out[1] = (MxlSampleRun) { 0, count - (ring_length - start) };
  return 2;
}

void
mxl_bounce_header_write (uint8_t *header, uint64_t head, uint64_t count)
{
  uint64_t v[2] = { GUINT64_TO_LE (head), GUINT64_TO_LE (count) };

  memcpy (header, v, sizeof v);
}

void
mxl_bounce_header_read (const uint8_t *header, uint64_t *head, uint64_t *count)
{
  uint64_t v[2];

  memcpy (v, header, sizeof v);
  *head = GUINT64_FROM_LE (v[0]);
  *count = GUINT64_FROM_LE (v[1]);
}

gboolean
mxl_bounce_entry_check (const MxlSampleRing *ring, uint64_t capacity,
    uint64_t head, uint64_t count)
{
  return count > 0 && count <= capacity && count <= ring->length / 2
      && head >= count;
}

/* Copies between the channel rings and a channel-major payload, channel
 * by channel, fragment 0 then fragment 1 (§4.3, §4.4). */
static gboolean
copy_channels (const MxlSampleRing *ring, uint8_t *rings, uint8_t *payload,
    uint64_t head, uint64_t count, gboolean to_rings)
{
  MxlSampleRun frags[2];
  guint n = mxl_samples_fragments (ring->length, head, count, frags);
  const uint64_t s = ring->word_size;

  if (n == 0)
    return FALSE;
  for (uint32_t c = 0; c < ring->channels; c++) {
    uint8_t *channel = rings + (uint64_t) c * ring->length * s;
    uint8_t *packed = payload + (uint64_t) c * count * s;
    for (guint f = 0; f < n; f++) {
      uint8_t *in_ring = channel + frags[f].position * s;
      if (to_rings)
        memcpy (in_ring, packed, frags[f].count * s);
      else
        memcpy (packed, in_ring, frags[f].count * s);
      packed += frags[f].count * s;
    }
  }
  return TRUE;
}

gboolean
mxl_bounce_unpack (const MxlSampleRing *ring, uint8_t *rings,
    const uint8_t *payload, uint64_t head, uint64_t count)
{
  return copy_channels (ring, rings, (uint8_t *) payload, head, count, TRUE);
}

gboolean
mxl_bounce_pack (const MxlSampleRing *ring, const uint8_t *rings,
    uint8_t *payload, uint64_t head, uint64_t count)
{
  return copy_channels (ring, (uint8_t *) rings, payload, head, count, FALSE);
}

gboolean
mxl_samples_sgl_init (MxlSamplesSgl *sgl, const MxlSampleRing *ring,
    uint64_t head, uint64_t count, uint32_t iov_limit, uint64_t max_msg)
{
  memset (sgl, 0, sizeof *sgl);
  sgl->ring = *ring;
  sgl->n_frags = mxl_samples_fragments (ring->length, head, count, sgl->frags);
  if (sgl->n_frags == 0)
    return FALSE;
  sgl->iov_limit = CLAMP (iov_limit, 1u, MXL_LAYOUT_MAX_IOV);
  sgl->max_msg = MAX (max_msg, 1);
  sgl->total = MXL_BOUNCE_HEADER_SIZE
      + (uint64_t) ring->channels * ring->word_size * count;
  return TRUE;
}

void
mxl_samples_sgl_init_staged (MxlSamplesSgl *sgl, uint64_t total, uint64_t max_msg)
{
  memset (sgl, 0, sizeof *sgl);
  sgl->staged = TRUE;
  sgl->iov_limit = 1;
  sgl->max_msg = MAX (max_msg, 1);
  sgl->total = MAX (total, MXL_BOUNCE_HEADER_SIZE);
}

guint
mxl_samples_sgl_pieces (const MxlSamplesSgl *sgl)
{
  return sgl->staged ? 1 : 1 + sgl->ring.channels * sgl->n_frags;
}

/* Piece @k of the list (k < pieces). */
static MxlSgIov
piece (const MxlSamplesSgl *sgl, guint k)
{
  const uint64_t s = sgl->ring.word_size;
  guint c, f;

  if (sgl->staged)
    return (MxlSgIov) { MXL_SG_STAGING, 0, sgl->total };
  if (k == 0)
    return (MxlSgIov) { MXL_SG_HEADER, 0, MXL_BOUNCE_HEADER_SIZE };
  c = (k - 1) / sgl->n_frags;
  f = (k - 1) % sgl->n_frags;
  return (MxlSgIov) { MXL_SG_CHANNELS,
      ((uint64_t) c * sgl->ring.length + sgl->frags[f].position) * s,
      sgl->frags[f].count * s };
}

gboolean
mxl_samples_sgl_next (MxlSamplesSgl *sgl, MxlSgChunk *out)
{
  guint pieces = mxl_samples_sgl_pieces (sgl);

  if (sgl->piece >= pieces)
    return FALSE;
  memset (out, 0, sizeof *out);
  out->remote_offset = sgl->done;
  while (sgl->piece < pieces && out->n_iov < sgl->iov_limit
      && out->length < sgl->max_msg) {
    MxlSgIov p = piece (sgl, sgl->piece);
    uint64_t take = MIN (p.length - sgl->taken, sgl->max_msg - out->length);

    out->iov[out->n_iov++] = (MxlSgIov) { p.region, p.offset + sgl->taken, take };
    out->length += take;
    sgl->taken += take;
    if (sgl->taken == p.length) {
      sgl->piece++;
      sgl->taken = 0;
    }
  }
  sgl->done += out->length;
  out->last = sgl->piece >= pieces;
  return TRUE;
}
