/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sample chunk source's initiator-wide state (init->samples): private
 * to the sample source, included only by protocol_samples.c and
 * samples_initiator.c (its setup, teardown and checks, declared in
 * protocol.h).
 */
#pragma once

#include "fabrics/protocol/protocol.h"

/* The local flow's channel rings and their region, at init->samples
 * (NULL for grain flows). */
struct MxlSamplesInitiator {
  MxlSampleRing ring;        /* the local flow's channel rings */
  MxlOfiRegion region;       /* the whole channels mapping, FI_WRITE */
};
