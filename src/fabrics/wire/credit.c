/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Credits: messages and the bookkeeping of both sides; see credit.h. */
#include "fabrics/wire/credit.h"

#include <string.h>

static void
put_u32 (uint8_t *p, uint32_t v)
{
  v = GUINT32_TO_LE (v);
  memcpy (p, &v, sizeof v);
}

static void
put_u64 (uint8_t *p, uint64_t v)
{
  v = GUINT64_TO_LE (v);
  memcpy (p, &v, sizeof v);
}

static uint32_t
get_u32 (const uint8_t *p)
{
  uint32_t v;

  memcpy (&v, p, sizeof v);
  return GUINT32_FROM_LE (v);
}

static uint64_t
get_u64 (const uint8_t *p)
{
  uint64_t v;

  memcpy (&v, p, sizeof v);
  return GUINT64_FROM_LE (v);
}

void
mxl_credit_release_encode (const MxlCreditRelease *r,
    uint8_t buf[MXL_CREDIT_RELEASE_SIZE])
{
  put_u32 (buf, MXL_CREDIT_RELEASE_MAGIC);
  put_u32 (buf + 4, 0);
  put_u64 (buf + 8, r->initiator_id);
  put_u64 (buf + 16, r->index);
}

gboolean
mxl_credit_release_decode (const void *buf, size_t len, MxlCreditRelease *out)
{
  const uint8_t *p = buf;

  if (buf == NULL || len != MXL_CREDIT_RELEASE_SIZE
      || get_u32 (p) != MXL_CREDIT_RELEASE_MAGIC || get_u32 (p + 4) != 0
      || get_u64 (p + 8) == 0)
    return FALSE;
  out->initiator_id = get_u64 (p + 8);
  out->index = get_u64 (p + 16);
  return TRUE;
}

size_t
mxl_credit_announce_encode (const MxlCreditAnnounce *a, uint8_t *buf,
    size_t buf_len)
{
  size_t len = MXL_CREDIT_ANNOUNCE_HEADER + (size_t) a->addr_len;

  if (a->addr_len > MXL_CREDIT_ADDR_MAX || a->initiator_id == 0 || buf_len < len)
    return 0;
  put_u32 (buf, MXL_CREDIT_ANNOUNCE_MAGIC);
  buf[4] = (uint8_t) (a->addr_len & 0xFFu);
  buf[5] = (uint8_t) (a->addr_len >> 8);
  buf[6] = buf[7] = 0;
  put_u64 (buf + 8, a->initiator_id);
  memcpy (buf + MXL_CREDIT_ANNOUNCE_HEADER, a->addr, a->addr_len);
  return len;
}

gboolean
mxl_credit_announce_decode (const void *buf, size_t len, MxlCreditAnnounce *out)
{
  const uint8_t *p = buf;
  size_t addr_len;

  if (buf == NULL || len < MXL_CREDIT_ANNOUNCE_HEADER
      || get_u32 (p) != MXL_CREDIT_ANNOUNCE_MAGIC || p[6] != 0 || p[7] != 0
      || get_u64 (p + 8) == 0)
    return FALSE;
  addr_len = (size_t) p[4] | ((size_t) p[5] << 8);
  if (addr_len > MXL_CREDIT_ADDR_MAX || len != MXL_CREDIT_ANNOUNCE_HEADER + addr_len)
    return FALSE;
  out->initiator_id = get_u64 (p + 8);
  out->addr_len = (uint16_t) addr_len;
  memcpy (out->addr, p + MXL_CREDIT_ANNOUNCE_HEADER, addr_len);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* The initiator's window                                               */

mxlStatus
mxl_credit_window_init (MxlCreditWindow *w, guint ring, uint64_t id)
{
  memset (w, 0, sizeof *w);
  if (id == 0)
    return MXL_ERR_INVALID_ARG;
  w->id = id;
  return mxl_credit_holds_init (&w->slots, ring);
}

void
mxl_credit_window_clear (MxlCreditWindow *w)
{
  mxl_credit_holds_clear (&w->slots);
  memset (w, 0, sizeof *w);
}

gboolean
mxl_credit_window_may_write (const MxlCreditWindow *w, uint64_t index)
{
  guint s = (guint) (index % w->slots.ring);

  return w->slots.slot_state[s] != MXL_CREDIT_SLOT_HELD
      || w->slots.slot_index[s] == index;
}

void
mxl_credit_window_note_written (MxlCreditWindow *w, uint64_t index)
{
  mxl_credit_holds_commit (&w->slots, index);
}

MxlCreditVerdict
mxl_credit_window_on_release (MxlCreditWindow *w, const MxlCreditRelease *r)
{
  const MxlCreditHolds *h = &w->slots;
  guint s = (guint) (r->index % h->ring);

  if (r->initiator_id != w->id) {
    w->releases_unknown++;
    return MXL_CREDIT_UNKNOWN;
  }
  /* never written there, or not this index (beyond it, or skipped) */
  if (h->slot_state[s] == MXL_CREDIT_SLOT_UNUSED || h->slot_index[s] < r->index) {
    w->releases_ahead++;
    return MXL_CREDIT_AHEAD;
  }
  /* an older occupant, or this one released already */
  if (h->slot_index[s] > r->index || h->slot_state[s] == MXL_CREDIT_SLOT_FREE) {
    w->releases_backwards++;
    return MXL_CREDIT_BACKWARDS;
  }
  w->slots.slot_state[s] = MXL_CREDIT_SLOT_FREE;
  w->releases++;
  return MXL_CREDIT_RELEASED;
}

/* ------------------------------------------------------------------ */
/* The target's holds                                                   */

mxlStatus
mxl_credit_holds_init (MxlCreditHolds *h, guint ring)
{
  memset (h, 0, sizeof *h);
  if (ring == 0 || ring > MXL_CREDIT_RING_MAX)
    return MXL_ERR_INVALID_ARG;
  h->ring = ring;
  h->slot_index = g_new0 (uint64_t, ring);
  h->slot_state = g_new0 (guint8, ring);
  return MXL_STATUS_OK;
}

void
mxl_credit_holds_clear (MxlCreditHolds *h)
{
  g_free (h->slot_index);
  g_free (h->slot_state);
  memset (h, 0, sizeof *h);
}

void
mxl_credit_holds_commit (MxlCreditHolds *h, uint64_t index)
{
  guint s = (guint) (index % h->ring);

  h->slot_index[s] = index;
  h->slot_state[s] = MXL_CREDIT_SLOT_HELD;
}

mxlStatus
mxl_credit_holds_release (MxlCreditHolds *h, uint64_t index)
{
  guint s = (guint) (index % h->ring);

  if (h->slot_state[s] == MXL_CREDIT_SLOT_UNUSED || h->slot_index[s] != index)
    return MXL_ERR_INVALID_ARG;
  if (h->slot_state[s] == MXL_CREDIT_SLOT_FREE)
    return MXL_ERR_INVALID_STATE;
  h->slot_state[s] = MXL_CREDIT_SLOT_FREE;
  return MXL_STATUS_OK;
}
