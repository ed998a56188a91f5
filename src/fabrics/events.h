/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Connection events queued for the application (mxlFabricsExt*PollEvent).
 * Bounded: the oldest events are dropped beyond MXL_EVENT_QUEUE_MAX.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include <mxl/fabrics-ext.h>

#define MXL_EVENT_QUEUE_MAX 256u

/** Appends an event stamped with the monotonic clock. Returns: (transfer
 * none): the queued event (its retryAtNs may be set), owned by @queue. */
mxlFabricsExtConnectionEvent *mxl_event_queue_push (GQueue *queue, uint64_t id,
    mxlFabricsExtConnectionState previous, mxlFabricsExtConnectionState current,
    mxlStatus reason);
/** Returns: MXL_STATUS_OK with the oldest event, or MXL_ERR_NOT_READY. */
mxlStatus mxl_event_queue_pop (GQueue *queue, mxlFabricsExtConnectionEvent *out);
void mxl_event_queue_clear (GQueue *queue);
