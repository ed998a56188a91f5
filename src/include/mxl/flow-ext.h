/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Extensions of this library beyond the MXL SDK API (not in the reference).
 *
 * Private domains: a flow that nobody else needs to find by domain path (for
 * example a GStreamer element given no domain) lives in a fresh domain
 * directory `<parent>/mxl-private-<pid>-<random>` that is removed when it is
 * destroyed. The owning process holds a flock on `<dir>/.mxl-private-owner`
 * for the domain's lifetime; a later mxlPrivateDomainCreate() (or
 * mxlPrivateDomainCleanStale()) removes private domains of the same user
 * whose owner lock is free (owner exited or crashed), so a crash leaks at
 * most until the next start.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mxl/flow.h>
#include <mxl/mxl.h>
#include <mxl/platform.h>

/** Default parent directory of private domains (tmpfs on Linux). */
#define MXL_PRIVATE_DOMAIN_PARENT "/dev/shm"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque private domain handle. */
typedef struct mxlPrivateDomain_t *mxlPrivateDomain;

/**
 * mxlPrivateDomainCreate:
 * @in_parent: (nullable): existing directory to create the domain in; NULL
 *   means MXL_PRIVATE_DOMAIN_PARENT.
 * @out_domain: (out) (transfer full): destroy with mxlPrivateDomainDestroy().
 *
 * Removes stale private domains under @in_parent first (see
 * mxlPrivateDomainCleanStale()), then creates a new empty domain directory
 * (mode 0700) and takes its owner lock. Pass mxlPrivateDomainGetPath() to
 * mxlCreateInstance().
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG (NULL @out_domain, parent not a
 * directory); MXL_ERR_PERMISSION_DENIED (parent not writable);
 * MXL_ERR_UNKNOWN (other file system errors).
 */
MXL_EXPORT mxlStatus mxlPrivateDomainCreate (char const *in_parent,
    mxlPrivateDomain *out_domain);

/**
 * mxlPrivateDomainGetPath:
 * Returns: (transfer none) (nullable): absolute path of the domain
 * directory, valid until mxlPrivateDomainDestroy(); NULL for NULL.
 */
MXL_EXPORT char const *mxlPrivateDomainGetPath (mxlPrivateDomain in_domain);

/**
 * mxlPrivateDomainDestroy:
 * Deletes the domain directory recursively (flows in it included; readers'
 * existing mappings stay valid) and frees the handle. Destroy instances that
 * use the domain first.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL; MXL_ERR_UNKNOWN when
 * the directory could not be removed completely (the handle is freed anyway).
 */
MXL_EXPORT mxlStatus mxlPrivateDomainDestroy (mxlPrivateDomain in_domain);

/**
 * mxlPrivateDomainCleanStale:
 * @in_parent: (nullable): as for mxlPrivateDomainCreate().
 * @out_removed: (out) (optional): number of domains removed.
 *
 * Removes every `mxl-private-*` directory under @in_parent owned by the
 * calling user whose owner lock can be taken (its process is gone). Domains
 * of live processes and of other users are left alone.
 *
 * Returns: MXL_STATUS_OK (best effort); MXL_ERR_INVALID_ARG when @in_parent
 * cannot be listed.
 */
MXL_EXPORT mxlStatus mxlPrivateDomainCleanStale (char const *in_parent,
    unsigned int *out_removed);

/** Fewest grains mxlCreateFlowWriterWithGrainCount() gives a discrete flow
 * when asked for the domain's history: a writer and a reader need a slot
 * each, plus one being transferred and one of margin. */
#define MXL_FLOW_MIN_GRAIN_COUNT 4

/**
 * mxlCreateFlowWriterWithGrainCount:
 * @in_grainCount: slots of the ring of a discrete flow this call creates;
 *   0 = from the domain's history (mxl-flows.md §2.5), but at least
 *   MXL_FLOW_MIN_GRAIN_COUNT, so that rates below 5 Hz (which the 200 ms
 *   default history would give no grain, and mxlCreateFlowWriter()
 *   refuses) get a usable ring. Ignored for continuous (audio) flows.
 *
 * As mxlCreateFlowWriter() otherwise; a flow that already exists keeps its
 * ring (read the actual grainCount from @configInfo).
 *
 * Returns: as mxlCreateFlowWriter(); MXL_ERR_INVALID_ARG also when the
 *   ring of @in_grainCount grains would hold more than 2^63 ns.
 */
MXL_EXPORT mxlStatus mxlCreateFlowWriterWithGrainCount (mxlInstance instance,
    char const *flowDef, char const *options, uint32_t in_grainCount,
    mxlFlowWriter *writer, mxlFlowConfigInfo *configInfo, bool *created);

/**
 * mxlGetLastErrorMessage:
 *
 * Why the last mxlCreateFlowWriter() of the calling thread failed when the
 * cause was a system error (creating, sizing or publishing the flow's
 * files): "<domain>: cannot build flow <id>: No space left on device (...)"
 * with a hint for the common causes (full domain file system, open file
 * limit). The status code alone (MXL_ERR_UNKNOWN) cannot carry it.
 * Thread-local; cleared when mxlCreateFlowWriter() starts creating a flow.
 *
 * Returns: (transfer none) (nullable): the message, valid until the next
 * mxlCreateFlowWriter() in this thread; NULL when there is none.
 */
MXL_EXPORT char const *mxlGetLastErrorMessage (void);

#ifdef __cplusplus
}
#endif
