/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The initiator's wait fd (mxlFabricsExtInitiatorGetWaitFd()): for an
 * application that makes progress itself (no progress thread) and waits
 * for its initiator's news in its own poll loop. One epoll fd holds the
 * wait fds of the completion queue and of the event queue (FI_GETWAIT,
 * fi_control(3); providers without wait objects have none:
 * docs/libfabric-notes.md P9); fi_trywait(3) (fi_poll(3)) says whether it
 * may be waited on.
 */
#include "fabrics/initiator.h"

#include <sys/epoll.h>
#include <unistd.h>

/* The queues behind the wait fd: the CQ, and the EQ of a connected (RC)
 * initiator. */
static guint
wait_fids (MxlInitiator *init, struct fid **fids)
{
  guint n = 0;

  fids[n++] = &init->base.cq->fid;
  if (init->base.eq != NULL)
    fids[n++] = &init->base.eq->fid;
  return n;
}

int
mxl_initiator_wait_fd (MxlInitiator *init)
{
  struct fid *fids[2];
  guint n;
  int ep;

  if (init->wait_fd_made)
    return init->wait_fd;
  init->wait_fd_made = TRUE;
  init->wait_fd = -1;
  if (!init->base.setup_done || !init->base.desc->cq_can_wait || init->base.cq == NULL
      || mxl_progress_running (&init->base.progress))
    return -1;
  ep = epoll_create1 (EPOLL_CLOEXEC);
  if (ep < 0)
    return -1;
  n = wait_fids (init, fids);
  for (guint i = 0; i < n; i++) {
    struct epoll_event ev = { .events = EPOLLIN };
    int fd = -1;

    if (fi_control (fids[i], FI_GETWAIT, &fd) != 0 || fd < 0
        || epoll_ctl (ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
      g_debug ("initiator: no wait fd (queue %u: FI_GETWAIT or epoll_ctl)", i);
      close (ep);
      return -1;
    }
  }
  init->wait_fd = ep;
  return ep;
}

mxlStatus
mxl_initiator_try_wait (MxlInitiator *init)
{
  struct fid *fids[2];
  guint n;

  if (mxl_initiator_wait_fd (init) < 0)
    return MXL_ERR_INVALID_STATE;
  n = wait_fids (init, fids);
  return fi_trywait (init->base.dom->fabric, fids, (int) n) == FI_SUCCESS ? MXL_STATUS_OK
      : MXL_ERR_NOT_READY;
}

void
mxl_initiator_wait_fd_close (MxlInitiator *init)
{
  if (init->wait_fd_made && init->wait_fd >= 0)
    close (init->wait_fd);
  init->wait_fd = -1;
  init->wait_fd_made = FALSE;
}
