/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sample chunk source's part of a queued transfer (MxlTransfer
 * u.samples, initiator-state.h), owned by the sample source: only
 * protocol_samples.c reads it. Included by initiator-state.h for the
 * union; a chunk source keeps its member's definition in a header of its
 * own like this one.
 */
#pragma once

#include <glib.h>

#include "fabrics/wire/bounce.h"

typedef struct MxlSamplesTransfer {
  MxlSamplesSgl sgl;
  MxlSgChunk pending;        /* produced but not yet posted */
  guint header_slot;         /* of the connection's entry headers, or of its
                                staging slots when sgl.staged */
} MxlSamplesTransfer;
