/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The grain chunk source's part of a queued transfer (MxlTransfer u.grain,
 * initiator-state.h), owned by the grain source: only protocol_grain.c
 * reads it. Included by initiator-state.h
 * for the union; a chunk source keeps its member's definition in a header
 * of its own like this one.
 */
#pragma once

#include <glib.h>

#include "fabrics/wire/layout.h"
#include "fabrics/protocol/protocol.h"

typedef struct MxlGrainTransfer {
  MxlGrainRequest req;
  guint run;                 /* run being split */
  MxlSplitter splitter;
  MxlChunk pending;          /* produced but not yet posted */
  gboolean staged;           /* its writes send from the connection's staging
                                buffer (grainstage.h) */
} MxlGrainTransfer;
