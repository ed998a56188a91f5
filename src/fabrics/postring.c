/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Bounded MPSC ring with per-slot sequence numbers (see postring.h).
 *
 * Memory-ordering summary:
 *   tail (producers' claim counter): relaxed loads and a relaxed CAS. It only
 *     hands out positions; no data is published through it.
 *   slot->seq: the one synchronisation point per entry. Producer: acquire load
 *     (the consumer has finished reading the previous entry in this slot)
 *     ... copy in ... release store seq = pos + 1 (entry published).
 *     Consumer: acquire load (entry visible) ... copy out ... release store
 *     seq = pos + capacity (slot free for the next cycle).
 *   head: consumer-private, a plain variable.
 *   full_count: relaxed, statistics only.
 */
#include "fabrics/postring.h"

#include <gio/gio.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <string.h>

#define CACHE_LINE 64

typedef struct {
  _Atomic uint64_t seq;
  /* entry bytes follow, up to the slot stride */
} Slot;

struct MxlPostRing {
  /* Producers' counter on its own cache line: producers hammer it with CAS
   * while the consumer walks head; sharing a line would slow both. */
  alignas (CACHE_LINE) _Atomic uint64_t tail;
  alignas (CACHE_LINE) uint64_t head;
  _Atomic uint64_t full_count;
  uint64_t mask;
  gsize entry_size;
  gsize stride;
  guint8 *slots;
};

static inline Slot *
slot_at (MxlPostRing *ring, uint64_t pos)
{
  return (Slot *) (ring->slots + (pos & ring->mask) * ring->stride);
}

static inline void *
slot_data (Slot *slot)
{
  return (guint8 *) slot + sizeof (Slot);
}

MxlPostRing *
mxl_post_ring_new (guint capacity, gsize entry_size, GError **error)
{
  MxlPostRing *ring;
  guint i;

  if (capacity < MXL_POST_RING_MIN_CAPACITY || capacity > MXL_POST_RING_MAX_CAPACITY
      || (capacity & (capacity - 1)) != 0) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "post ring: capacity %u is not a power of two from %u to %u",
        capacity, MXL_POST_RING_MIN_CAPACITY, MXL_POST_RING_MAX_CAPACITY);
    return NULL;
  }
  if (entry_size == 0 || entry_size > MXL_POST_RING_MAX_ENTRY_SIZE) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
        "post ring: entry size %" G_GSIZE_FORMAT " is not 1..%u bytes",
        entry_size, MXL_POST_RING_MAX_ENTRY_SIZE);
    return NULL;
  }

  ring = g_aligned_alloc0 (1, sizeof *ring, CACHE_LINE);
  ring->mask = capacity - 1;
  ring->entry_size = entry_size;
  /* Keep each slot's sequence 8-byte aligned. */
  ring->stride = (sizeof (Slot) + entry_size + 7) & ~(gsize) 7;
  ring->slots = g_aligned_alloc0 (capacity, ring->stride, CACHE_LINE);
  /* Not yet shared with other threads: relaxed initial stores suffice; the
   * caller hands the ring to its threads through a synchronising operation
   * (g_thread_new, a mutex). */
  for (i = 0; i < capacity; i++)
    atomic_init (&slot_at (ring, i)->seq, i);
  atomic_init (&ring->tail, 0);
  atomic_init (&ring->full_count, 0);
  ring->head = 0;
  return ring;
}

void
mxl_post_ring_free (MxlPostRing *ring)
{
  if (ring == NULL)
    return;
  g_aligned_free (ring->slots);
  g_aligned_free (ring);
}

guint
mxl_post_ring_capacity (const MxlPostRing *ring)
{
  return (guint) ring->mask + 1;
}

gsize
mxl_post_ring_entry_size (const MxlPostRing *ring)
{
  return ring->entry_size;
}

/* One attempt; not counted. */
static gboolean
push_once (MxlPostRing *ring, const void *entry)
{
  /* Relaxed: the tail is only a hint of which position to try; the slot's
   * sequence (acquire below) and the CAS decide. */
  uint64_t pos = atomic_load_explicit (&ring->tail, memory_order_relaxed);

  for (;;) {
    Slot *slot = slot_at (ring, pos);
    /* Acquire: pairs with the consumer's release store that freed this slot,
     * so our copy-in below cannot overlap its copy-out of the old entry. */
    uint64_t seq = atomic_load_explicit (&slot->seq, memory_order_acquire);
    int64_t diff = (int64_t) (seq - pos);

    if (diff == 0) {
      /* Relaxed CAS: it only has to make the claim of @pos exclusive
       * (atomicity); ordering for the data is carried by slot->seq. On
       * failure @pos is reloaded with the current tail. */
      if (atomic_compare_exchange_weak_explicit (&ring->tail, &pos, pos + 1,
              memory_order_relaxed, memory_order_relaxed)) {
        memcpy (slot_data (slot), entry, ring->entry_size);
        /* Release: publishes the copied entry to the consumer's acquire. */
        atomic_store_explicit (&slot->seq, pos + 1, memory_order_release);
        return TRUE;
      }
    } else if (diff < 0) {
      /* The slot still holds the entry of the previous cycle: full. */
      return FALSE;
    } else {
      /* Another producer took @pos (and maybe more) meanwhile: catch up. */
      pos = atomic_load_explicit (&ring->tail, memory_order_relaxed);
    }
  }
}

gboolean
mxl_post_ring_try_push (MxlPostRing *ring, const void *entry)
{
  if (push_once (ring, entry))
    return TRUE;
  atomic_fetch_add_explicit (&ring->full_count, 1, memory_order_relaxed);
  return FALSE;
}

#define YIELDS_BEFORE_SLEEP 8
#define FIRST_SLEEP_US 20
#define MAX_SLEEP_US 1000

mxlStatus
mxl_post_ring_push_with_deadline (MxlPostRing *ring, const void *entry,
    gint64 deadline_us)
{
  gint64 sleep_us = FIRST_SLEEP_US;
  guint attempt;

  for (attempt = 0;; attempt++) {
    gint64 now;

    if (push_once (ring, entry))
      return MXL_STATUS_OK;
    now = g_get_monotonic_time ();
    if (now >= deadline_us)
      break;
    if (attempt < YIELDS_BEFORE_SLEEP) {
      sched_yield ();
    } else {
      g_usleep ((gulong) MIN (sleep_us, deadline_us - now));
      sleep_us = MIN (sleep_us * 2, MAX_SLEEP_US);
    }
  }
  atomic_fetch_add_explicit (&ring->full_count, 1, memory_order_relaxed);
  return MXL_ERR_NOT_READY;
}

gboolean
mxl_post_ring_pop (MxlPostRing *ring, void *entry)
{
  uint64_t pos = ring->head;
  Slot *slot = slot_at (ring, pos);
  /* Acquire: pairs with the producer's release store, making its copy-in
   * visible before we copy out. */
  uint64_t seq = atomic_load_explicit (&slot->seq, memory_order_acquire);

  if (seq != pos + 1)
    return FALSE;   /* empty, or the producer of @pos is still copying */
  memcpy (entry, slot_data (slot), ring->entry_size);
  /* Release: our copy-out happens before a producer of the next cycle
   * (acquire load of seq) overwrites the slot. */
  atomic_store_explicit (&slot->seq, pos + ring->mask + 1, memory_order_release);
  ring->head = pos + 1;
  return TRUE;
}

guint64
mxl_post_ring_full_count (const MxlPostRing *ring)
{
  /* const-cast: C11 atomic loads take a non-const pointer before C17 DR 459. */
  return atomic_load_explicit ((_Atomic uint64_t *) &ring->full_count,
      memory_order_relaxed);
}

gboolean
mxl_post_ring_peek (MxlPostRing *ring)
{
  uint64_t pos = ring->head;

  /* Acquire, as in pop: a TRUE answer is followed by a pop that copies. */
  return atomic_load_explicit (&slot_at (ring, pos)->seq, memory_order_acquire) == pos + 1;
}
