/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * TargetInfo: what a target publishes so that an initiator can write into it
 * (docs/wire-format.md §1). Internal representation; the public handle
 * mxlFabricsTargetInfo points at this struct.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include <mxl/fabrics.h>

/** One remote memory region: RMA address (VA or 0-based offset), length, key. */
typedef struct MxlRemoteRegion {
  uint64_t addr;   /* advertised address: VA when the target's mr_mode has FI_MR_VIRT_ADDR, else 0 */
  uint64_t len;    /* bytes */
  uint64_t rkey;   /* fi_mr_key() of the target's region */
} MxlRemoteRegion;

/** The protocol of a TargetInfo without ext."protocol": remote write +
 * immediate data, the reference's only protocol (docs/wire-format.md §11.1). */
#define MXL_TARGET_INFO_DEFAULT_PROTOCOL "write"

struct mxlFabricsTargetInfo_t {
  uint32_t address_format;       /* libfabric addr_format enum value (1,2,3,4,9,12,17) */
  uint8_t *fabric_address;       /* raw fi_getname() bytes, owned */
  size_t fabric_address_len;     /* >= 1 */
  uint64_t id;                   /* random target id, local identification only */
  char *provider;                /* "tcp", "verbs", "efa", "shm" (informational), owned */
  MxlRemoteRegion *regions;      /* slot/entry order, owned */
  guint n_regions;               /* >= 1 */
  gboolean has_bounce_buffer;    /* bounceBufferInfo present (continuous flows) */
  uint64_t bounce_entry_count;
  uint64_t bounce_entry_size;    /* bytes including the 16-byte entry header */
  /* Our extensions, serialised under the key "ext" (ignored by the reference):
   * {"ext":{"protocol":"write|send|tagged","flowDef":"<NMOS flow JSON>",
   *   "recvSize":"<bytes>","pid":"<process id, shm>",
   *   "claimAddr":"<addr>","claimKey":"<rkey>","credits":"<version>",
   *   "eos":"<version>"}} */
  char *protocol;                 /* ext."protocol" as given, owned; NULL: not
                                    given (MXL_TARGET_INFO_DEFAULT_PROTOCOL).
                                    A name of the protocol table, checked by
                                    mxl_protocol_check_info() (protocol_table.c),
                                    not by the parser */
  uint64_t recv_size;            /* send protocol: bytes of one posted receive
                                    (message header included); 0 = not given */
  char *flow_def;                /* nullable, owned */
  /* "pid": shm targets only (same host): the target's process id, so an
   * initiator stops writing into the shared region of a process that is
   * gone (libfabric 1.17's shm spins forever on a lock a dead process
   * held). Untrusted: used only for kill(pid, 0). 0 = not given. */
  uint32_t owner_pid;
  /* "claimAddr", "claimKey": an exclusive connectionless target's claim
   * region (claim.h): an initiator claims the target there before it
   * writes grains. Both or neither. */
  gboolean has_claim;
  uint64_t claim_addr, claim_key;
  /* "credits": the version of the credit extension the target speaks
   * (credit.h, docs/wire-format.md §11.7), 1 .. 2^32 - 1; 0 = not given (a
   * reference target, or one of ours without it): the initiator writes
   * as the reference does. A version this code does not know
   * (mxl_credit_version_usable()) is kept as read and treated as none. */
  uint32_t credits;
  /* "eos": the version of the end-of-stream notice the target accepts
   * (src/fabrics/wire/eos.h, MXL_EOS_VERSION); 0 = not given (the
   * reference, an older target: no notice is sent). */
  uint32_t eos_version;
  /* "pathB": the second path of a two-path (seamless protection) target
   * (docs/wire-format.md §11.9): a whole TargetInfo document of its own
   * (address, regions, id, provider, its own ext without "flowDef" and
   * without a "pathB"), parsed by the same code as the outer one; its
   * flow_def is the outer one's. NULL: one path (the reference's form).
   * Owned. */
  struct mxlFabricsTargetInfo_t *path_b;
};

/**
 * mxl_target_info_new:
 * Returns: (transfer full): a zeroed TargetInfo; free with mxl_target_info_free().
 */
struct mxlFabricsTargetInfo_t *mxl_target_info_new (void);

/** Frees @info and everything it owns; NULL is ignored. */
void mxl_target_info_free (struct mxlFabricsTargetInfo_t *info);

/** Returns: (transfer full): a deep copy of @info. */
struct mxlFabricsTargetInfo_t *mxl_target_info_copy (const struct mxlFabricsTargetInfo_t *info);

/**
 * mxl_target_info_path:
 * @path: 0 the first path, 1 the second (@info->path_b).
 * Returns: (transfer full) (nullable): a one-path TargetInfo of that path
 * (the first: @info without path_b; the second: path_b, whose flow_def is
 * @info's), or NULL when @info has no such path.
 */
struct mxlFabricsTargetInfo_t *mxl_target_info_path (const struct mxlFabricsTargetInfo_t *info,
    guint path);

/**
 * mxl_target_info_to_json:
 * Returns: (transfer full): compact JSON exactly as §1.2 (keys sorted,
 * 64-bit values as decimal strings, padded base64 address), g_free().
 */
char *mxl_target_info_to_json (const struct mxlFabricsTargetInfo_t *info);

/**
 * mxl_target_info_from_json:
 * @text: NUL-terminated JSON (also accepts the whole document base64-encoded
 *   is NOT done here; see mxl_target_info_from_user_string()).
 * @error: (out): reason on failure.
 *
 * Returns: (transfer full) (nullable): the parsed info, or NULL with @out_status
 * set to MXL_ERR_INVALID_ARG (malformed document, with a reason in @error).
 *
 * Checks (docs/wire-format.md §1.4, reported as MXL_ERR_INVALID_ARG, unlike the
 * reference's MXL_ERR_UNKNOWN, §9.2): root object; "addressFormat" a number
 * in {1,2,3,4,9,12,17}; "fabricAddress" strict base64 of >= 1 byte (unpadded
 * accepted); "regions" a non-empty array of objects with "addr", "len",
 * "rkey"; optional "bounceBufferInfo" object with "entryCount", "entrySize";
 * "id"; "provider" a string (any name); optional "ext" object with optional
 * "protocol" (any name, kept as given: mxl_protocol_check_info() checks it
 * against the protocol table; absent: MXL_TARGET_INFO_DEFAULT_PROTOCOL,
 * docs/wire-format.md §11.1) and "flowDef" strings,
 * "recvSize" (64-bit, send protocol, bytes of one posted receive),
 * "credits" (1 .. 2^32 - 1, the credit extension's version) and
 * "eos" (64-bit, the end-of-stream notice's version, wire/eos.h; 0 and
 * absent: none, values above 2^32 - 1 are kept as 2^32 - 1). Every
 * 64-bit value is a decimal string: optional leading blanks and '+', then
 * digits (no '-', no overflow), then optional trailing blanks. Unknown keys
 * are ignored at every level. The GError domain is G_IO_ERROR
 * (G_IO_ERROR_INVALID_DATA).
 */
struct mxlFabricsTargetInfo_t *mxl_target_info_from_json (const char *text,
    mxlStatus *out_status, GError **error);

/**
 * mxl_target_info_equal:
 * Equality as the reference tests use it (§1.4): address bytes and format,
 * region list element-wise, and id.
 */
gboolean mxl_target_info_equal (const struct mxlFabricsTargetInfo_t *a,
    const struct mxlFabricsTargetInfo_t *b);

/** The protocol name @info advertises: info->protocol, or
 * MXL_TARGET_INFO_DEFAULT_PROTOCOL when it gives none. (transfer none) */
const char *mxl_target_info_protocol (const struct mxlFabricsTargetInfo_t *info);

/**
 * mxl_target_info_from_user_string:
 * @text: what a user pasted: the raw JSON document (first non-blank
 *   character '{'), the document base64-encoded as the demo tool prints it
 *   (docs/wire-format.md §1.6; ASCII whitespace such as line wraps is ignored), or
 *   "@PATH" naming a file (at most MXL_FABRICS_EXT_TARGET_INFO_MAX_FILE_BYTES
 *   of <mxl/fabrics-ext.h>) that
 *   holds either of the two.
 * @out_status: (out) (optional): MXL_STATUS_OK or MXL_ERR_INVALID_ARG.
 * @error: (out): reason on failure (G_IO_ERROR_INVALID_DATA, or the
 *   GFileError of an unreadable file).
 *
 * Returns: (transfer full) (nullable): as mxl_target_info_from_json().
 */
struct mxlFabricsTargetInfo_t *mxl_target_info_from_user_string (const char *text,
    mxlStatus *out_status, GError **error);

/**
 * mxl_target_info_split_user_list:
 * @text: (nullable): one or several of what
 *   mxl_target_info_from_user_string() takes.
 *
 * Splits @text into its sources by the rule of
 * mxlFabricsExtSplitTargetInfoList() (<mxl/fabrics-ext.h>, stated there).
 *
 * Returns: (transfer full): the sources, NULL-terminated, g_strfreev().
 */
char **mxl_target_info_split_user_list (const char *text);
