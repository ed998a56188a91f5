/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The targets of this process that an initiator of this process reaches
 * through memory they free when they close (MXL_PROVIDER_QUIRK_LOCAL_PEER_SHARED,
 * libfabric 1.17 shm: docs/libfabric-notes.md P17).
 *
 * A target registers its fabric address once its endpoint is enabled and
 * withdraws it after its progress has stopped for good, before its
 * endpoint closes. An initiator whose TargetInfo names this process asks
 * whether that target still lives: the pid test of another process
 * (kill(2)) cannot tell for its own. Thread-safe; a process-wide set.
 */
#pragma once

#include <glib.h>
#include <stddef.h>

/**
 * mxl_local_peer_add:
 * @addr: the target's fabric address, the bytes of fi_getname().
 * @len: bytes at @addr, >= 1.
 *
 * Registers a live target of this process. An address added twice counts
 * twice (a target is added once, at setup).
 */
void mxl_local_peer_add (const void *addr, size_t len);

/**
 * mxl_local_peer_remove:
 * Withdraws one registration of @addr; no effect for an address not
 * registered. After it returns, mxl_local_peer_alive() of @addr is FALSE
 * unless another registration remains.
 */
void mxl_local_peer_remove (const void *addr, size_t len);

/**
 * mxl_local_peer_alive:
 * @addr: (nullable): a fabric address, as a TargetInfo carries it.
 *
 * Returns: TRUE while a target of this process registered @addr.
 */
gboolean mxl_local_peer_alive (const void *addr, size_t len);
