/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Parked endpoints of a connectionless initiator (initiator_rdm.c): the own
 * endpoint of a connection that was left while writes it posted are still
 * in flight to a peer that lives. It stays open, with the staging buffer
 * those writes read, until they complete, the peer is gone or
 * MXL_PARK_MAX_MS passed; for a target of this process
 * (mxl_conn_peer_local()) until its writes complete or the target is
 * gone, and at destroy it is kept open for the rest of the process rather
 * than closed under that target (docs/libfabric-notes.md P17).
 */
#pragma once

#include "fabrics/initiator.h"

/** Closes a parked endpoint and its address vector (the type's own
 * closing, shm region holds included). */
typedef void (*MxlParkCloseFn) (MxlInitiator *init, struct fid_ep *ep,
    struct fid_av *av);

typedef struct MxlParking MxlParking;

/** An empty set of parked endpoints, closed with @close_fn. */
MxlParking *mxl_parking_new (MxlParkCloseFn close_fn);

/** Parks @ep and @av of @conn, which was left with writes in flight; takes
 * the connection's staging buffer (grainstage.h) with them. */
void mxl_parking_add (MxlParking *pk, MxlConn *conn, struct fid_ep *ep,
    struct fid_av *av);

/** Closes each parked endpoint whose time has come (see the top). */
void mxl_parking_check (MxlParking *pk, MxlInitiator *init);

/** TRUE when the endpoint of connection generation @conn_id is parked. */
gboolean mxl_parking_holds (const MxlParking *pk, uint64_t conn_id);

/** Destroy: progresses endpoints a live target of this process still
 * needs up to MXL_LOCAL_PEER_DRAIN_MS, keeps those still needed open for
 * the rest of the process (MxlEndpoint.kept_open), closes the others and
 * frees @pk. NULL is a no-op. */
void mxl_parking_free (MxlParking *pk, MxlInitiator *init);
