/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Bounded queues of connection events for the application. */
#include "fabrics/events.h"

#define MXL_EVENT_QUEUE_MAX 256u

mxlFabricsExtConnectionEvent *
mxl_event_queue_push (GQueue *queue, uint64_t id,
    mxlFabricsExtConnectionState previous, mxlFabricsExtConnectionState current,
    mxlStatus reason)
{
  mxlFabricsExtConnectionEvent *ev = g_new0 (mxlFabricsExtConnectionEvent, 1);

  ev->version = MXL_FABRICS_API_VERSION;
  ev->targetId = id;
  ev->previous = previous;
  ev->current = current;
  ev->reason = reason;
  ev->timestampNs = (uint64_t) g_get_monotonic_time () * 1000u;
  g_queue_push_tail (queue, ev);
  while (g_queue_get_length (queue) > MXL_EVENT_QUEUE_MAX)
    g_free (g_queue_pop_head (queue));
  return ev;
}

mxlStatus
mxl_event_queue_pop (GQueue *queue, mxlFabricsExtConnectionEvent *out)
{
  mxlFabricsExtConnectionEvent *ev = g_queue_pop_head (queue);

  if (ev == NULL)
    return MXL_ERR_NOT_READY;
  *out = *ev;
  g_free (ev);
  return MXL_STATUS_OK;
}

void
mxl_event_queue_clear (GQueue *queue)
{
  g_queue_clear_full (queue, g_free);
}
