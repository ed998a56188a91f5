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

#include <stddef.h>

#include <mxl/mxl.h>
#include <mxl/platform.h>

/** Default parent directory of private domains (tmpfs on Linux). */
#define MXL_PRIVATE_DOMAIN_PARENT "/dev/shm"

/** Most channels (channel_count) of an audio flow this library creates or
 * opens: our limit, the flow definition sets none (mxl-flows.md §2.3). A
 * plain literal, so that it can be stringified into static caps. */
#define MXL_FLOW_MAX_CHANNELS 1024

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

/**
 * mxlGetLastErrorMessage:
 *
 * Why the last mxlCreateFlowWriter() of the calling thread failed: a flow
 * definition it refused, naming the field and its allowed range
 * ("flow definition: channel_count: 100000 is not an integer in 1 … 1024",
 * "flow definition: grain_rate: rate 1/2 is too low for a 200000000 ns
 * history (at least 5 per second)"), or a system error (creating, sizing or
 * publishing the flow's files): "<domain>: cannot build flow <id>: No space
 * left on device (...)" with a hint for the common causes (full domain file
 * system, open file limit). The status codes alone (MXL_ERR_INVALID_ARG,
 * MXL_ERR_UNKNOWN) cannot carry it.
 * Also why the last mxlFabricsTargetSetup() or mxlFabricsInitiatorSetup()
 * of the calling thread failed, as libfabric or the validation of the
 * config said it, e.g. "fi_passive_ep: Address already in use (-98)" or
 * "service \"80000\" is not a port number in 0 … 65535".
 * Thread-local; cleared when mxlCreateFlowWriter() or a fabrics setup
 * starts.
 *
 * Returns: (transfer none) (nullable): the message, valid until the next
 * of those calls in this thread; NULL when there is none.
 */
MXL_EXPORT char const *mxlGetLastErrorMessage (void);

#ifdef __cplusplus
}
#endif
