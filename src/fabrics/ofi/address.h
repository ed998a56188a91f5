/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Raw fabric addresses (the bytes of fi_getname()) decoded into text for
 * logs, tools and element properties (docs/wire-format.md §1.1, §8.3 U2).
 * Pure functions: no libfabric object is needed (fi_av_straddr() would need
 * an open address vector). Every input is treated as untrusted: lengths are
 * checked before any field is read.
 */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

/* libfabric addr_format values accepted in a TargetInfo (docs/wire-format.md §1.2).
 * FI_SOCKADDR_IP only exists in libfabric >= 2.3, so we name it ourselves. */
#define MXL_ADDR_FORMAT_SOCKADDR 1u
#define MXL_ADDR_FORMAT_SOCKADDR_IN 2u
#define MXL_ADDR_FORMAT_SOCKADDR_IN6 3u
#define MXL_ADDR_FORMAT_SOCKADDR_IB 4u
#define MXL_ADDR_FORMAT_STR 9u
#define MXL_ADDR_FORMAT_EFA 12u
#define MXL_ADDR_FORMAT_SOCKADDR_IP 17u

/* Byte sizes of the decoded layouts (libfabric's struct ofi_sockaddr_ib and
 * the EFA endpoint address: 16-byte GID, u16 QPN at 16, u32 QKey at 20). */
#define MXL_SOCKADDR_IB_LEN 48u
#define MXL_EFA_ADDR_LEN 24u

/**
 * mxl_address_format_is_supported:
 * Returns: TRUE for the addr_format values a TargetInfo may carry:
 * 1, 2, 3, 4, 9, 12, 17 (docs/wire-format.md §1.2, §1.4 step 3).
 */
gboolean mxl_address_format_is_supported (uint32_t format);

/**
 * mxl_address_format_name:
 * Returns: (transfer none): the libfabric name ("FI_SOCKADDR_IN", ...) of a
 * supported format, "FI_FORMAT_UNSPEC" for 0, "unknown" otherwise.
 */
const char *mxl_address_format_name (uint32_t format);

/**
 * mxl_fabric_address_to_string:
 * @format: libfabric addr_format of @addr.
 * @addr: (nullable): raw address bytes as returned by fi_getname().
 * @len: bytes readable at @addr.
 *
 * Renders an address the way libfabric's ofi_straddr() does:
 *   FI_SOCKADDR_IN   "fi_sockaddr_in://10.130.40.13:9000"
 *   FI_SOCKADDR_IN6  "fi_sockaddr_in6://[2001:db8::1]:443"
 *   FI_SOCKADDR_IB   "fi_sockaddr_ib://[GID]:0xPKEY:0xPORTSPACE:0xSCOPE"
 *                    (the port of the service id is not printed)
 *   FI_ADDR_EFA      "fi_addr_efa://[GID]:QPN:QKEY"
 *   FI_ADDR_STR      the string itself (up to its NUL or @len)
 *   FI_SOCKADDR, FI_SOCKADDR_IP: dispatched on the sa_family in the first
 *                    two bytes (AF_INET, AF_INET6, and AF_IB for FI_SOCKADDR).
 *
 * Returns: (transfer full) (nullable): the text (g_free()), or NULL when the
 * address cannot be decoded: @addr NULL, @len shorter than the format's
 * layout, an unknown format, an unknown or AF_UNSPEC family, or a string
 * address with non-printable bytes.
 */
char *mxl_fabric_address_to_string (uint32_t format, const void *addr, size_t len);

/**
 * mxl_fabric_address_host:
 * Same inputs as mxl_fabric_address_to_string().
 *
 * Returns: (transfer full) (nullable): the host part alone: the textual IP of
 * a sockaddr_in/in6, the GID (IPv6 text) of IB and EFA addresses, and for
 * FI_ADDR_STR the part between "scheme://" (if any) and the next ':'
 * ("fi_ns://target:test" gives "target"); NULL when undecodable.
 */
char *mxl_fabric_address_host (uint32_t format, const void *addr, size_t len);

/**
 * mxl_fabric_address_describe:
 * Returns: (transfer full): mxl_fabric_address_to_string(), or the string
 * "empty" when the address cannot be decoded; never NULL. For log lines.
 */
char *mxl_fabric_address_describe (uint32_t format, const void *addr, size_t len);

/**
 * mxl_shm_address_separate_mapping:
 * @addr: (nullable): a shm FI_ADDR_STR address, "<scheme>://<name>", as
 *   fi_getname() of a shm endpoint gives it.
 * @len: bytes readable at @addr (the string and its NUL).
 *
 * The same region file under a name libfabric 1.17 shm does not find among
 * the endpoints of this process: one more '/' after "://". shm compares the
 * name after "://" with those of its own process's endpoints by strcmp()
 * and, on a match, uses that endpoint's mapping, which the endpoint's
 * fi_close() unmaps (prov/util/src/util_shm.c, smr_map_to_region()); on no
 * match it shm_open()s the name, and shm_open(3) skips leading slashes, so
 * the alias opens the same file and maps it on its own. That mapping stays
 * valid after the peer endpoint is closed and its file removed, as a
 * mapping of another process's region does (docs/libfabric-notes.md P17).
 *
 * Returns: (transfer full) (nullable): the alias, NUL-terminated (g_free()),
 * or NULL when @addr is NULL, not NUL-terminated within @len, has no
 * "://" or would exceed 255 bytes (libfabric's SMR_NAME_MAX with its NUL).
 */
char *mxl_shm_address_separate_mapping (const void *addr, size_t len);
