/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Grain staging for shm connections (docs/fabrics-engine.md, "A target
 * that falls behind costs only itself").
 *
 * libfabric 1.17 shm moves a remote write larger than its inject size by
 * CMA: the *receiver* copies the data out of the sender's memory
 * (process_vm_readv) when it processes the command, which a stopped or
 * starved receiver may do seconds later or never. A write posted straight
 * from the sender's ring slot (or from a lent buffer) therefore kept that
 * slot busy for as long as the receiver did not answer, and the writer had
 * to drop the grains of such slots for every target. So each shm
 * connection of a grain flow copies what a write sends into a staging
 * buffer of its own (one registered region of one grain slot's size, at
 * the slot's offsets) and posts from there: a posted write never holds a
 * ring slot, only its connection's buffer; a connection starts copying a
 * new transfer only once every write of the previous one has completed.
 * The buffer belongs to the connection, and to its parked endpoint once
 * the connection is left with writes in flight (initiator_rdm.c).
 */
#pragma once

#include <glib.h>
#include <stdint.h>
#include <sys/uio.h>

#include "fabrics/layout.h"
#include "fabrics/ofi.h"

typedef struct MxlConn MxlConn;

typedef struct MxlGrainStage {
  uint8_t *base;                /* NULL: not allocated */
  MxlOfiRegion region;          /* FI_WRITE */
} MxlGrainStage;

/** Whether @conn stages its grain writes (shm, discrete flow), allocating
 * and registering the buffer on first use. FALSE also when that failed
 * (logged; writes then go straight from the slot as before). */
gboolean mxl_grain_stage_ensure (MxlConn *conn);

/**
 * mxl_grain_stage_copy:
 * @chunk: the write: its local iovecs, offsets into a grain slot
 * @iov, @desc, @n_iov: in, the write's source iovecs (their bytes in the
 *   order of @chunk's); out, the same bytes in the staging buffer, one
 *   iovec per @chunk iovec
 *
 * Copies the write into @conn's staging buffer. Returns FALSE when the
 * iovecs do not add up to @chunk or leave the buffer (nothing is posted).
 */
gboolean mxl_grain_stage_copy (MxlConn *conn, const MxlChunk *chunk,
    struct iovec *iov, void **desc, guint *n_iov);

/** Deregisters and frees @stage (no-op when not allocated); only once no
 * posted write can read it any more. */
void mxl_grain_stage_free (MxlOfiDomain *dom, MxlGrainStage *stage);
