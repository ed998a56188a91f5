/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Cross-process signalling on the shared futex word FlowState.syncCounter
 * (docs/flow-format.md §4.1, §4.4, §4.5). The futex ops are the SHARED ones (no
 * FUTEX_PRIVATE_FLAG): those are keyed by inode and offset, so a waiter in
 * another process, even on a PROT_READ mapping, is woken.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "flow/flow-priv.h"

void
mxl_flow_signal (MxlFlowData *data)
{
  __atomic_add_fetch (&data->state.syncCounter, 1, __ATOMIC_SEQ_CST);
  syscall (SYS_futex, &data->state.syncCounter, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

mxlStatus
mxl_flow_validity (const MxlFlowMap *map)
{
  struct stat st;

  if (stat (map->data_path, &st) != 0
      || (uint64_t) st.st_ino != __atomic_load_n (&map->data->state.inode, __ATOMIC_RELAXED))
    return MXL_ERR_FLOW_INVALID;
  return MXL_ERR_OUT_OF_RANGE_TOO_EARLY;
}

static uint64_t
monotonic_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

mxlStatus
mxl_flow_wait (const MxlFlowMap *map, uint64_t timeout_ns, MxlFlowCheck check,
    void *ctx)
{
  uint32_t *counter = &map->data->state.syncCounter;
  uint64_t start = monotonic_ns ();
  /* saturate: a timeout of UINT64_MAX waits "forever" without overflow */
  uint64_t deadline = timeout_ns > UINT64_MAX - start ? UINT64_MAX : start + timeout_ns;

  for (;;) {
    /* snapshot before checking, so a commit in between is not lost */
    uint32_t c = __atomic_load_n (counter, __ATOMIC_ACQUIRE);
    mxlStatus st = check (ctx);

    if (st != MXL_ERR_OUT_OF_RANGE_TOO_EARLY)
      return st;
    while (__atomic_load_n (counter, __ATOMIC_ACQUIRE) == c) {
      uint64_t now = monotonic_ns (), left;
      struct timespec rel;

      if (now >= deadline)
        return mxl_flow_validity (map);
      left = deadline - now;
      rel.tv_sec = (time_t) (left / 1000000000u);
      rel.tv_nsec = (long) (left % 1000000000u);
      if (syscall (SYS_futex, counter, FUTEX_WAIT, c, &rel, NULL, 0) != 0
          && errno != EAGAIN && errno != EINTR) {
        if (errno != ETIMEDOUT)
          return mxl_flow_validity (map);
      }
    }
  }
}
