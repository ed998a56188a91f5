/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * shm provider regions left in /dev/shm by processes that are gone.
 *
 * libfabric 1.17's shm provider backs every endpoint with a 16 MiB file in
 * /dev/shm that only fi_close() of the endpoint (or libfabric's own SIGINT
 * and SIGTERM handler, when the application has not replaced it) removes: a
 * process stopped by SIGKILL, a crash, or a signal whose handler does not
 * close its endpoints leaves it behind (docs/fabrics-engine.md). The file
 * is named after the endpoint's source address (libfabric's
 * prov/shm/src/smr_ep.c, smr_endpoint_name(); smr_init.c,
 * smr_resolve_addr()): "<node>:<uid>:<index>" for a node without a
 * service, "<node>:<service>" with one (this library always asks for
 * FI_SOURCE, and shm then needs a node).
 *
 * Every shm setup of this library (mxl_setup_begin()) first sweeps the
 * directory (mxl_shm_clean_stale()); every shm endpoint this library
 * enables holds a shared flock(2) on its region for its lifetime
 * (mxl_shm_region_hold()), which the kernel drops when the process dies
 * however it dies, as the private-domain cleanup relies on
 * (src/flow/private-domain.c).
 */
#pragma once

#include <glib.h>

#include "fabrics/ofi/ofi.h"

/** Where libfabric 1.17's shm provider puts its regions (SMR_DIR). */
#define MXL_SHM_REGION_DIR "/dev/shm"

typedef struct MxlShmHold MxlShmHold;

/**
 * mxl_shm_clean_stale:
 * @dir: the directory to sweep (MXL_SHM_REGION_DIR; tests pass another).
 *
 * Removes the shm regions of processes that no longer exist. A file is
 * removed only when all of these hold:
 * - its name starts with MXL_FABRICS_EXT_SHM_NODE_PREFIX "<pid>-", <pid>
 *   decimal: the region of a node of that form, the elements' default
 *   ("mxlfabrics-<pid>-<n>:<uid>:<index>", or "...:<service>"). Any other
 *   name (a node chosen by the application; "<pid>:<uid>:<index>", which
 *   libfabric gives programs that set no FI_SOURCE address, never this
 *   library) is never touched: only this library's endpoints hold the lock
 *   below, so only their regions can be told from a live process's in
 *   another PID namespace;
 * - it is a regular file owned by this process's effective uid;
 * - kill(<pid>, 0) fails with ESRCH: no process of that pid exists in this
 *   PID namespace (EPERM means one exists);
 * - flock(LOCK_EX | LOCK_NB) on it is granted: no living endpoint of this
 *   library holds it (mxl_shm_region_hold()), even one in another PID
 *   namespace sharing /dev/shm (containers with a shared IPC namespace),
 *   whose pid kill() cannot see;
 * - no peer marker "<file>.mxlpeer-<peer pid>" names a peer process that
 *   exists (kill(<peer pid>, 0) does not fail with ESRCH): that peer may
 *   still have to take up a connection request naming the file
 *   (mxl_shm_region_mark_peer()). A marker whose region's process is gone
 *   and whose peer is gone too is removed (not counted).
 *
 * Races, all erring on the side of leaving a file: a pid reused by a new
 * process keeps the dead one's region until that process is gone too; a
 * zombie counts as alive until reaped. A region is unlinked while the lock
 * is held, so no endpoint of this library can take it meanwhile. What is not
 * covered: a process of another program (no lock) in another PID namespace
 * whose region has a pid name, and, for any process in another PID
 * namespace, the microseconds between its fi_enable() creating the file and
 * mxl_shm_region_hold() locking it, and regions of an older version of this
 * library (no lock) in another PID namespace. Setting
 * MXL_FABRICS_SHM_KEEP_STALE=1 in the environment turns the sweep off.
 *
 * Returns: the number of region files removed.
 */
guint mxl_shm_clean_stale (const char *dir);

/**
 * mxl_shm_region_pid:
 * @name: a region file's name, or a shm node.
 * @out_pid: (out): the process it declares.
 *
 * Returns: TRUE when @name is of the library's form,
 * MXL_FABRICS_EXT_SHM_NODE_PREFIX "<pid>-" followed by anything (a node
 * that declares its endpoints belong to process <pid>), with that pid in
 * *@out_pid; FALSE for every other name.
 */
gboolean mxl_shm_region_pid (const char *name, pid_t *out_pid);

/**
 * mxl_shm_region_hold:
 * @ep: an enabled shm endpoint.
 *
 * Takes a shared flock(2) on @ep's region file (its fi_getname() without
 * the "fi_shm://" or "fi_ns://" prefix, in MXL_SHM_REGION_DIR), which marks
 * it as in use for mxl_shm_clean_stale().
 *
 * Returns: (transfer full) (nullable): the hold, for
 * mxl_shm_region_release() after the endpoint is closed; NULL (logged at
 * debug level) when the file cannot be opened or locked, in which case the
 * region is protected by its pid only.
 */
MxlShmHold *mxl_shm_region_hold (struct fid_ep *ep);

/**
 * mxl_shm_enable:
 * @ep: a shm endpoint, bound, not enabled yet.
 *
 * fi_enable() of @ep, but not when its region file (named as for
 * mxl_shm_region_hold()) is held by another living endpoint of this
 * library (its lock cannot be taken): the name is taken, e.g. by a
 * receiver given the same node in another process. libfabric 1.17 would
 * refuse it too (-FI_EBUSY, "shm file in use"), but closing the refused
 * endpoint then unlinks the file the other endpoint holds
 * (docs/libfabric-notes.md P19), so that no new peer can
 * reach it. A file no endpoint of this library holds is left to
 * libfabric (a region of a dead process is taken over).
 *
 * Returns: 0 or fi_enable()'s negative error; -FI_EBUSY for a name in
 * use, with @error saying so and naming the file.
 */
int mxl_shm_enable (struct fid_ep *ep, GError **error);

/** Drops a hold of mxl_shm_region_hold(); NULL is ignored. A peer marker
 * (mxl_shm_region_mark_peer()) stays. */
void mxl_shm_region_release (MxlShmHold *hold);

/**
 * mxl_shm_region_mark_peer:
 * @hold: (nullable): the hold of an endpoint that asked @peer_pid to take
 *   up its connection request (its first operation to that peer was
 *   refused with -FI_EAGAIN), and none was accepted yet.
 * @peer_pid: the peer's process (TargetInfo ext.pid); 0 marks nothing.
 *
 * Creates (once) the empty peer marker "<file>.mxlpeer-<peer_pid>" next to
 * @hold's region: mxl_shm_clean_stale() then leaves the region, even once
 * this process is gone (SIGKILL included), for as long as the peer
 * exists, since a peer stopped before it took up the request maps the
 * file when it continues (libfabric 1.17 smr_progress_connreq() crashes on
 * a missing one; docs/libfabric-notes.md P16). Bounded by the peer's life
 * (a reused pid, by that process's too): the first sweep after both
 * processes are gone removes both files.
 * Failures are logged at debug level (the region is then protected by
 * this process's pid only).
 */
void mxl_shm_region_mark_peer (MxlShmHold *hold, guint32 peer_pid);

/** Removes @hold's peer marker, if any: the peer took up the request, or
 * the region goes with its endpoint. NULL is ignored. */
void mxl_shm_region_unmark (MxlShmHold *hold);

/**
 * mxl_shm_region_keep_begin:
 * @hold: (nullable): the hold of an endpoint about to be closed.
 *
 * Keeps @hold's region file under its name past the endpoint's fi_close()
 * (which unlinks it): links it to "<file>.keep" now, and
 * mxl_shm_region_keep_end(), called right after fi_close(), renames it
 * back. Why: the first message of a libfabric 1.17 shm endpoint to a peer
 * queues a connection request naming the endpoint's file in the peer's
 * region; a peer that progresses only after the file is gone (stopped,
 * say) dereferences a NULL region mapping for it in fi_cq_read() and
 * crashes (prov/shm/src/smr_progress.c, smr_progress_connreq(): the
 * missing file leaves the map entry unmapped; later versions check it). A
 * kept file names a process that will be gone: mxl_shm_clean_stale()
 * removes it once that process has exited and the peer its marker names
 * (mxl_shm_region_mark_peer()) is gone too. Between the unlink in
 * fi_close() and the rename lies a window of microseconds.
 *
 * Returns: (transfer full) (nullable): the link for
 * mxl_shm_region_keep_end(); NULL (logged at debug level) when @hold is
 * NULL or the link fails: the file then goes with fi_close().
 */
char *mxl_shm_region_keep_begin (MxlShmHold *hold);

/** Renames @keep (from mxl_shm_region_keep_begin(), taken) back to @hold's
 * region file, or removes it should that fail; NULL is ignored. */
void mxl_shm_region_keep_end (MxlShmHold *hold, char *keep);
