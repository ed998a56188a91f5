/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Grain geometry and write splitting (docs/wire-format.md §3.3, §3.5). */
#include "fabrics/wire/layout.h"

#include <string.h>

void
mxl_grain_layout_init (MxlGrainLayout *layout,
    const uint32_t slice_sizes[MXL_LAYOUT_MAX_PLANES], uint16_t total_slices,
    uint64_t grain_size)
{
  memcpy (layout->slice_sizes, slice_sizes, sizeof (layout->slice_sizes));
  layout->total_slices = total_slices;
  layout->grain_size = grain_size;
  layout->slot_size = MXL_LAYOUT_HEADER_SIZE + grain_size;
}

guint
mxl_layout_active_planes (const uint32_t slice_sizes[MXL_LAYOUT_MAX_PLANES])
{
  guint n = 0;

  for (guint p = 0; p < MXL_LAYOUT_MAX_PLANES; p++)
    if (slice_sizes[p] != 0)
      n++;
  return n;
}

uint64_t
mxl_layout_plane_offset (const MxlGrainLayout *layout, guint plane)
{
  uint64_t off = MXL_LAYOUT_HEADER_SIZE;

  for (guint q = 0; q < plane && q < MXL_LAYOUT_MAX_PLANES; q++)
    off += (uint64_t) layout->slice_sizes[q] * layout->total_slices;
  return off;
}

gboolean
mxl_layout_slice_range_valid (uint16_t start, uint16_t end)
{
  return start <= end;
}

uint64_t
mxl_layout_slice_range_size (uint16_t start, uint16_t end, uint32_t slice_size)
{
  return start <= end ? (uint64_t) (end - start) * slice_size : 0;
}

uint64_t
mxl_layout_slice_offset (uint16_t start, uint64_t plane_base, uint32_t slice_size)
{
  return plane_base + (uint64_t) start * slice_size;
}

guint
mxl_layout_grain_runs (const MxlGrainLayout *layout, uint16_t start,
    uint16_t end, gboolean header_only, MxlRun runs[MXL_LAYOUT_MAX_PLANES])
{
  guint n = 0;

  if (!mxl_layout_slice_range_valid (start, end) || end > layout->total_slices)
    return 0;
  if (header_only) {
    runs[0] = (MxlRun) { 0, MXL_LAYOUT_HEADER_SIZE };
    return 1;
  }
  if (start == 0 && end == layout->total_slices) {
    runs[0] = (MxlRun) { 0, layout->slot_size };    /* fast path: one write */
    return 1;
  }
  for (guint p = 0; p < MXL_LAYOUT_MAX_PLANES; p++) {
    uint32_t s = layout->slice_sizes[p];
    uint64_t base = mxl_layout_plane_offset (layout, p);
    MxlRun run;

    if (s == 0)
      continue;
    if (p == 0 && start == 0)
      run = (MxlRun) { 0, base + mxl_layout_slice_range_size (0, end, s) };
    else
      run = (MxlRun) { mxl_layout_slice_offset (start, base, s),
          mxl_layout_slice_range_size (start, end, s) };
    if (run.length > 0)
      runs[n++] = run;
  }
  if (n == 0) {
    /* An empty range [a, a), a > 0, still needs a write to carry the
     * immediate data; zero-length writes never complete on libfabric 1.17
     * shm, so slice a - 1 of plane 0 (already valid) is sent again. */
    uint32_t s0 = layout->slice_sizes[0];
    runs[0] = (MxlRun) { mxl_layout_slice_offset (start - 1, MXL_LAYOUT_HEADER_SIZE, s0), s0 };
    n = 1;
  }
  return n;
}

void
mxl_splitter_init (MxlSplitter *splitter, const MxlRun *pieces,
    guint n_pieces, uint32_t iov_limit, uint64_t max_msg)
{
  memset (splitter, 0, sizeof (*splitter));
  splitter->pieces = pieces;
  splitter->n_pieces = n_pieces;
  splitter->iov_limit = CLAMP (iov_limit, 1u, MXL_LAYOUT_MAX_IOV);
  splitter->max_msg = MAX (max_msg, 1u);
}

gboolean
mxl_splitter_next (MxlSplitter *s, MxlChunk *out)
{
  /* Skip exhausted and empty pieces. */
  while (s->index < s->n_pieces && s->offset >= s->pieces[s->index].length) {
    s->index++;
    s->offset = 0;
  }
  memset (out, 0, sizeof (*out));
  if (s->index >= s->n_pieces) {
    if (s->emitted)
      return FALSE;
    /* Nothing but empty pieces: one zero-length write carries the imm. */
    s->emitted = TRUE;
    out->n_iov = 1;
    out->iov[0] = (MxlRun) { s->n_pieces ? s->pieces[0].offset : 0, 0 };
    out->remote_offset = 0;
    out->last = TRUE;
    return TRUE;
  }
  out->remote_offset = s->done;
  while (s->index < s->n_pieces && out->n_iov < s->iov_limit
      && out->length < s->max_msg) {
    const MxlRun *p = &s->pieces[s->index];
    uint64_t take = MIN (p->length - s->offset, s->max_msg - out->length);

    if (take > 0) {
      out->iov[out->n_iov++] = (MxlRun) { p->offset + s->offset, take };
      out->length += take;
      s->offset += take;
    }
    if (s->offset >= p->length) {
      s->index++;
      s->offset = 0;
    }
  }
  s->done += out->length;
  s->emitted = TRUE;
  while (s->index < s->n_pieces && s->offset >= s->pieces[s->index].length) {
    s->index++;
    s->offset = 0;
  }
  out->last = s->index >= s->n_pieces;
  return TRUE;
}

guint
mxl_splitter_count (const MxlRun *pieces, guint n_pieces, uint32_t iov_limit,
    uint64_t max_msg)
{
  MxlSplitter s;
  MxlChunk c;
  guint n = 0;

  mxl_splitter_init (&s, pieces, n_pieces, iov_limit, max_msg);
  while (mxl_splitter_next (&s, &c))
    n++;
  return n;
}
