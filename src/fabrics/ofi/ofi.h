/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Thin wrappers of the libfabric objects the engine uses (fabric, domain,
 * completion queue, event queue, address vector, memory region). Every
 * libfabric return code is checked here once and mapped to an mxlStatus
 * (docs/wire-format.md §7.5); callers get a GError with the libfabric text.
 *
 * Only API present in both libfabric 1.17 and 2.x is used: fi_fabric() (not
 * fi_fabric2()), fi_mr_regattr() with the 1.17 fields of struct fi_mr_attr.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <mxl/mxl.h>

/** API version we request from fi_getinfo(): 1.17 works on 1.17 and 2.x. */
#define MXL_FI_VERSION FI_VERSION (1, 17)

#define MXL_OFI_ERROR (mxl_ofi_error_quark ())
GQuark mxl_ofi_error_quark (void);

/**
 * mxl_ofi_status:
 * @rc: a libfabric return code (0 or a negative FI_E* value).
 *
 * Maps per docs/wire-format.md §7.5: 0 → OK, -FI_EINTR → INTERRUPTED, -FI_EAGAIN →
 * NOT_READY, -FI_ENOSYS/-FI_EOPNOTSUPP → UNSUPPORTED_OPERATION, -FI_ENODATA →
 * NO_FABRIC, any other negative value → UNKNOWN.
 */
mxlStatus mxl_ofi_status (ssize_t rc);

/**
 * mxl_ofi_fail:
 * Sets @error to "<what>: <fi_strerror(-rc)> (rc)" and returns
 * mxl_ofi_status(@rc). For `return mxl_ofi_fail (rc, "fi_cq_open", error);`.
 */
mxlStatus mxl_ofi_fail (ssize_t rc, const char *what, GError **error);

/**
 * MxlOfiDomain:
 * One opened fabric + domain and the set of memory region keys it uses.
 * Remote keys must be unique per domain (docs/libfabric-notes.md P5): requested
 * keys are random 64-bit values checked against @keys.
 */
typedef struct MxlOfiDomain {
  struct fi_info *info;          /* owned copy of the selected fi_info */
  struct fid_fabric *fabric;
  struct fid_domain *domain;
  GHashTable *keys;              /* uint64 keys in use (g_int64 hash) */
  gboolean virt_addr;            /* mr_mode has FI_MR_VIRT_ADDR: advertise VAs */
  gboolean prov_key;             /* mr_mode has FI_MR_PROV_KEY */
  size_t key_size;               /* domain_attr->mr_key_size, bytes (1..8) */
} MxlOfiDomain;

/**
 * mxl_ofi_domain_open:
 * @info: (transfer none): the fi_info chosen by fi_getinfo(); duplicated.
 *
 * Returns: MXL_STATUS_OK or the mapped libfabric failure with @error set.
 */
mxlStatus mxl_ofi_domain_open (const struct fi_info *info, MxlOfiDomain **out,
    GError **error);

/** Closes the domain and fabric (regions, queues and endpoints first). */
void mxl_ofi_domain_close (MxlOfiDomain *dom);

/**
 * MxlOfiRegion:
 * A registered memory region: process address, length in bytes, the key
 * and the address to advertise to a peer (VA or 0 per mr_mode, §3.2).
 */
typedef struct MxlOfiRegion {
  struct fid_mr *mr;
  uint8_t *base;
  size_t len;
  uint64_t key;                  /* fi_mr_key() of a remotely accessible region; 0 for local-only ones */
  gboolean remote;               /* registered with FI_REMOTE_WRITE/READ: key tracked in the domain */
  void *desc;                    /* fi_mr_desc(), passed for every local iov */
  uint64_t remote_addr;          /* (uintptr_t) base with FI_MR_VIRT_ADDR, else 0 */
} MxlOfiRegion;

/**
 * mxl_ofi_region_register:
 * @access: FI_WRITE (initiator source), FI_REMOTE_WRITE (target sink), or
 *   FI_RECV for receive buffers.
 *
 * Registers [@base, @base + @len) with a random requested key unique in the
 * domain; retries with a new key when the provider answers -FI_ENOKEY.
 */
mxlStatus mxl_ofi_region_register (MxlOfiDomain *dom, void *base, size_t len,
    uint64_t access, MxlOfiRegion *out, GError **error);

/** Closes the region (no-op on a zeroed struct) and forgets its key. */
void mxl_ofi_region_close (MxlOfiDomain *dom, MxlOfiRegion *region);

/** Returns: 64 random bits from getrandom(2) (safe across fork()). */
uint64_t mxl_random_u64 (void);

/**
 * mxl_ofi_random_key:
 * Returns: a random key of @key_size bytes that is not in @keys (never 0).
 */
uint64_t mxl_ofi_random_key (GHashTable *keys, size_t key_size);

/**
 * mxl_ofi_cq_open:
 * @depth: entries (>= 1).
 * @wait: FI_WAIT_UNSPEC for providers whose fi_cq_sread() honours timeouts
 *   (tcp, rxm), FI_WAIT_NONE otherwise (shm, efa: docs/libfabric-notes.md P9).
 * Format is always FI_CQ_FORMAT_DATA.
 */
mxlStatus mxl_ofi_cq_open (MxlOfiDomain *dom, size_t depth,
    enum fi_wait_obj wait, struct fid_cq **out, GError **error);

/** Event queue of connected (FI_EP_MSG) endpoints, FI_WAIT_UNSPEC. */
mxlStatus mxl_ofi_eq_open (MxlOfiDomain *dom, struct fid_eq **out,
    GError **error);

/** FI_AV_TABLE address vector for @count peers. */
mxlStatus mxl_ofi_av_open (MxlOfiDomain *dom, size_t count,
    struct fid_av **out, GError **error);

/** fi_close() of a non-NULL @fid; failures are logged, never fatal. */
void mxl_ofi_close (struct fid *fid, const char *what);

/**
 * MxlCqRead:
 * Result of mxl_ofi_cq_read(): entries read, nothing to read, one error
 * completion (in @err), or a queue failure (e.g. -FI_EOVERRUN).
 */
typedef enum MxlCqRead {
  MXL_CQ_READ_ENTRIES,
  MXL_CQ_READ_EMPTY,
  MXL_CQ_READ_ERROR_ENTRY,
  MXL_CQ_READ_FAILED,
} MxlCqRead;

/**
 * mxl_ofi_cq_read:
 * @timeout_ms: < 0 non-blocking fi_cq_read(); >= 0 fi_cq_sread() for at most
 *   that long (only on CQs opened with a wait object).
 * @out_n: (out): entries stored in @buf (MXL_CQ_READ_ENTRIES).
 * @err: (out): the error entry (MXL_CQ_READ_ERROR_ENTRY); its err_data is not
 *   kept.
 * @out_rc: (out): the libfabric code (MXL_CQ_READ_FAILED).
 */
MxlCqRead mxl_ofi_cq_read (struct fid_cq *cq, struct fi_cq_data_entry *buf,
    size_t count, int timeout_ms, size_t *out_n, struct fi_cq_err_entry *err,
    ssize_t *out_rc);

/**
 * MxlEqEvent:
 * One event queue entry: @event is FI_CONNREQ, FI_CONNECTED, FI_SHUTDOWN,
 * or 0 with @error set (an error entry: @fid and @err are filled).
 * For FI_CONNREQ, @info is owned by the caller (fi_freeinfo()).
 */
typedef struct MxlEqEvent {
  uint32_t event;
  struct fid *fid;
  struct fi_info *info;
  gboolean error;
  int err;                        /* positive FI_E* value of an error entry */
  uint64_t token;                 /* FI_CONNREQ: the initiator's claim token
                                     (bits 0..31 of our initiators' private
                                     data, mxl_ofi_connect_data()), 0 when it
                                     sent none */
  gboolean has_target_check;      /* FI_CONNREQ: @target_check was sent */
  uint32_t target_check;          /* FI_CONNREQ: the TargetInfo id the
                                     initiator means (mxl_ofi_target_check()) */
  uint64_t credit_id;             /* FI_CONNREQ: the id an initiator of the
                                     credit extension announces (a second
                                     u64 of private data, sent only to a
                                     target that advertises credits), 0 =
                                     none */
  gboolean busy;                  /* error entry of a connection refused with
                                     MXL_REJECT_BUSY: the target has an
                                     initiator already */
  gboolean other_target;          /* error entry of a connection refused with
                                     MXL_REJECT_OTHER_TARGET: the target at
                                     that address is not the one the
                                     TargetInfo names */
} MxlEqEvent;

/** Private data of fi_reject() when a connected target refuses a second
 * initiator (8 bytes with the NUL; a reference initiator ignores it). */
#define MXL_REJECT_BUSY "mxlbusy"
/** Private data of fi_reject() when the request names another target
 * (a stale TargetInfo: its receiver restarted on the same address). */
#define MXL_REJECT_OTHER_TARGET "mxlothr"

/** A TargetInfo id folded to the 32 bits our connection requests carry. */
static inline uint32_t
mxl_ofi_target_check (uint64_t target_id)
{
  return (uint32_t) (target_id ^ (target_id >> 32));
}

/** The 8 bytes of private data our initiators connect with
 * (docs/wire-format.md §6.2; a reference target reads at most 8): one
 * little-endian u64, bits 0..31 the low bits of the initiator's claim
 * token, bits 32..63 mxl_ofi_target_check() of the TargetInfo id. */
static inline uint64_t
mxl_ofi_connect_data (uint64_t token, uint64_t target_id)
{
  return GUINT64_TO_LE (((uint64_t) mxl_ofi_target_check (target_id) << 32)
      | (token & 0xFFFFFFFFu));
}


/**
 * mxl_ofi_eq_read:
 * @timeout_ms: < 0 non-blocking, otherwise fi_eq_sread() timeout.
 *
 * Returns: MXL_STATUS_OK (one event in @out), MXL_ERR_NOT_READY (none),
 * or the mapped failure.
 */
mxlStatus mxl_ofi_eq_read (struct fid_eq *eq, int timeout_ms, MxlEqEvent *out);

/** Duplicates @info with the port of a sockaddr_in/in6 source address set
 * to 0, so several endpoints can bind the same node. */
struct fi_info *mxl_ofi_dup_info_any_port (const struct fi_info *info);
