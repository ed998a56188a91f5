/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MxlPostRing: a bounded, lock-free, multi-producer single-consumer ring of
 * fixed-size entries. Application threads (the producers) queue work for the
 * progress thread (the only consumer, the only thread that touches the
 * libfabric endpoint; architecture.md "Threads").
 *
 * Entries are opaque bytes of the size given at creation; push copies them
 * in and pop copies them out, so the engine defines the entry struct.
 *
 * Algorithm: Dmitry Vyukov's bounded queue with a sequence number per slot.
 * Slot i of cycle c is free for position p = c * capacity + i when its
 * sequence equals p and holds an entry for the consumer when it equals p + 1.
 * A producer claims p only by compare-and-swap of the shared tail from p to
 * p + 1, after seeing the slot's sequence equal to p; a producer that stalled
 * since reading the tail sees either a sequence from a later cycle or a
 * failing CAS, never a stale free slot. Positions are 64-bit and never wrap
 * in practice (2^64 pushes).
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include <mxl/mxl.h>

typedef struct MxlPostRing MxlPostRing;

/** Limits checked by mxl_post_ring_new(). */
#define MXL_POST_RING_MIN_CAPACITY 2u
#define MXL_POST_RING_MAX_CAPACITY (1u << 20)
#define MXL_POST_RING_MAX_ENTRY_SIZE 1024u

/**
 * mxl_post_ring_new:
 * @capacity: number of entries, a power of two in
 *   [MXL_POST_RING_MIN_CAPACITY, MXL_POST_RING_MAX_CAPACITY].
 * @entry_size: bytes per entry, 1..MXL_POST_RING_MAX_ENTRY_SIZE.
 * @error: (out): G_IO_ERROR_INVALID_ARGUMENT naming the bad argument.
 *
 * Returns: (transfer full) (nullable): the empty ring (mxl_post_ring_free()),
 * or NULL for an invalid capacity or entry size.
 */
MxlPostRing *mxl_post_ring_new (guint capacity, gsize entry_size, GError **error);

/** Frees the ring; entries still queued are dropped. NULL is ignored. No
 * producer or consumer may use the ring during or after this call. */
void mxl_post_ring_free (MxlPostRing *ring);

guint mxl_post_ring_capacity (const MxlPostRing *ring);
gsize mxl_post_ring_entry_size (const MxlPostRing *ring);

/**
 * mxl_post_ring_try_push:
 * @entry: entry_size bytes, copied.
 *
 * Any thread. Never blocks, never spins on a full ring.
 * Returns: TRUE when queued; FALSE when the ring is full (counted in
 * mxl_post_ring_full_count()).
 */
gboolean mxl_post_ring_try_push (MxlPostRing *ring, const void *entry);

/**
 * mxl_post_ring_push_with_deadline:
 * @deadline_us: absolute time on g_get_monotonic_time()'s clock (µs).
 *
 * Any thread. Retries a full ring with a short backoff (sched_yield() a few
 * times, then g_usleep() from 20 µs doubling up to 1 ms, never sleeping past
 * the deadline) until the entry is queued or the deadline has passed. A
 * deadline already in the past means exactly one attempt.
 *
 * Returns: MXL_STATUS_OK (queued); MXL_ERR_NOT_READY (still full at the
 * deadline; counted once in mxl_post_ring_full_count()).
 */
mxlStatus mxl_post_ring_push_with_deadline (MxlPostRing *ring, const void *entry,
    gint64 deadline_us);

/**
 * mxl_post_ring_pop:
 * @entry: (out): entry_size bytes receive the oldest entry.
 *
 * The single consumer only: calls must not overlap, and when the consumer
 * role moves between threads the hand-over must itself synchronise (a
 * mutex or a thread join). Never blocks.
 *
 * Returns: TRUE with the entry copied out; FALSE when the ring is empty (an
 * entry whose producer has claimed its slot but not finished copying counts
 * as not yet there; later entries wait behind it, keeping FIFO order).
 */
gboolean mxl_post_ring_pop (MxlPostRing *ring, void *entry);

/**
 * mxl_post_ring_peek:
 * The single consumer only. Returns: TRUE when the next mxl_post_ring_pop()
 * would return an entry (acquire load of the head slot's sequence; used by
 * the progress thread before it sleeps, progress.h).
 */
gboolean mxl_post_ring_peek (MxlPostRing *ring);

/** Pushes that failed on a full ring: try_push returning FALSE and
 * push_with_deadline returning MXL_ERR_NOT_READY. Any thread; relaxed. */
guint64 mxl_post_ring_full_count (const MxlPostRing *ring);
