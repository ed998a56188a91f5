/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Grain staging for connections of providers whose receiver copies large
 * writes (MXL_PROVIDER_QUIRK_RECEIVER_COPIES: shm; docs/fabrics-engine.md,
 * "A target that falls behind costs only itself").
 *
 * libfabric 1.17 shm moves a remote write larger than its inject size by
 * CMA: the *receiver* copies the data out of the sender's memory
 * (process_vm_readv) when it processes the command, which a stopped or
 * starved receiver may do seconds later or never. A write posted straight
 * from the sender's ring slot (or from a lent buffer) therefore kept that
 * slot busy for as long as the receiver did not answer, and the writer had
 * to drop the grains of such slots for every target. So each shm
 * connection of a grain flow copies what a write sends into staging
 * buffers of its own (one registered region of MXL_GRAIN_STAGE_SLOTS
 * buffers of one grain slot's size, at the slot's offsets; transfer seq
 * uses buffer seq mod that count) and posts from there: a posted write
 * never holds a ring slot, only its connection's buffer. A transfer
 * starts only once no write of the buffer's previous transfer is in
 * flight, so a stalled receiver stops its own connection after a few
 * grains (the ones after are dropped when their ring slots come round,
 * counted for that target) and nobody else's.
 * Only while the initiator has more than one target (fan-out), decided per
 * transfer when it starts, from the current count: with one target a slot
 * held by its stuck receiver costs only that receiver, so its writes go
 * straight from the ring slot, without the copy (whose cost halved shm
 * 1080p throughput). A transfer started unstaged holds its ring slot until
 * its writes complete, a staged one its buffer (the grain source records
 * which per write context, grain_initiator.h), so the count may change
 * with writes in flight;
 * the buffers, allocated on the first staged transfer, stay until the
 * connection goes.
 * The buffers belong to the connection (the grain chunk source's state,
 * conn->chunk_state, kept in grainstage.c), and to its parked endpoint
 * once the connection is left with writes in flight (initiator_rdm.c,
 * mxl_grain_stage_take()).
 */
#pragma once

#include <glib.h>
#include <stdint.h>
#include <sys/uio.h>

#include "fabrics/wire/layout.h"
#include "fabrics/ofi/ofi.h"

typedef struct MxlConn MxlConn;

/* Buffers per connection (at most the local ring's grain count): writes of
 * as many transfers in flight at once as before staging, on 1.17 shm. */
#define MXL_GRAIN_STAGE_SLOTS 4u

/* What a staged write's context holds as its local slot: no ring slot
 * (those are < grain count), its buffer k instead. */
#define MXL_GRAIN_STAGE_CTX_SLOT(k) (G_MAXUINT32 - 64u + (k))

typedef struct MxlGrainStage {
  uint8_t *base;                /* NULL: not allocated */
  MxlOfiRegion region;          /* FI_WRITE, all buffers */
  size_t len;                   /* bytes of one buffer */
  guint n;                      /* buffers */
} MxlGrainStage;

/** Whether a grain transfer of @conn starting now is staged (setup chose
 * staging (the grain source's state, grainstage.c): a provider with
 * MXL_PROVIDER_QUIRK_RECEIVER_COPIES and a discrete flow; and more than one
 * target added), allocating and registering the buffer on first use.
 * FALSE also when that failed (logged; writes then go straight from the
 * slot as before). Called once per transfer, when it
 * starts (mxl_egress_pump(), MxlTransfer.staged). */
gboolean mxl_grain_stage_ensure (MxlConn *conn);

/** The buffer of transfer @seq (< the buffer count); only after
 * mxl_grain_stage_ensure() returned TRUE. */
guint mxl_grain_stage_slot (const MxlConn *conn, uint64_t seq);

/** Whether transfer @seq can start: no write of @conn still reads its
 * buffer. */
gboolean mxl_grain_stage_ready (const MxlConn *conn, uint64_t seq);

/**
 * mxl_grain_stage_copy:
 * @seq: the transfer's sequence number (its buffer)
 * @chunk: the write: its local iovecs, offsets into a grain slot
 * @iov, @desc, @n_iov: in, the write's source iovecs (their bytes in the
 *   order of @chunk's); out, the same bytes in the staging buffer, one
 *   iovec per @chunk iovec
 *
 * Copies the write into @conn's staging buffer. Returns FALSE when the
 * iovecs do not add up to @chunk or leave the buffer (nothing is posted).
 */
gboolean mxl_grain_stage_copy (MxlConn *conn, uint64_t seq,
    const MxlChunk *chunk, struct iovec *iov, void **desc, guint *n_iov);

/** Deregisters and frees @stage (no-op when not allocated); only once no
 * posted write can read it any more. */
void mxl_grain_stage_free (MxlOfiDomain *dom, MxlGrainStage *stage);

/** Moves @conn's buffers (what its posted writes read) to @out (zeroed
 * when it has none, or is not a grain connection); @conn allocates new
 * ones should it stage again. The caller frees @out with
 * mxl_grain_stage_free(). */
void mxl_grain_stage_take (MxlConn *conn, MxlGrainStage *out);

/** The release of the grain chunk source (MxlChunkSource.release): frees
 * the connection's staging state when it goes (@final); a re-added
 * target keeps it. */
void mxl_grain_stage_release (MxlConn *conn, gboolean final);

#ifdef MXL_TEST_HOOKS
/** Test hook (internal, test build only: src/meson.build): TRUE when
 * @conn's staging buffers are allocated. */
gboolean mxl_grain_stage_debug_allocated (const MxlConn *conn);
#endif
