/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Status codes, library version and MXL instances (docs/flow-format.md §6.1, §6.2).
 * Names and numeric values match the MXL SDK so that code written against
 * its headers for this subset compiles against ours.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <mxl/platform.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * mxlStatus:
 * Result of every MXL call. Values below 1024 belong to the flow API,
 * 1024 and above to the fabrics API (docs/wire-format.md §0).
 */
typedef enum mxlStatus {
  MXL_STATUS_OK = 0,
  MXL_ERR_UNKNOWN = 1,
  MXL_ERR_FLOW_NOT_FOUND = 2,
  MXL_ERR_OUT_OF_RANGE_TOO_LATE = 3,
  MXL_ERR_OUT_OF_RANGE_TOO_EARLY = 4,
  MXL_ERR_INVALID_FLOW_READER = 5,
  MXL_ERR_INVALID_FLOW_WRITER = 6,
  MXL_ERR_TIMEOUT = 7,
  MXL_ERR_INVALID_ARG = 8,
  MXL_ERR_CONFLICT = 9,
  MXL_ERR_PERMISSION_DENIED = 10,
  MXL_ERR_FLOW_INVALID = 11,
  MXL_ERR_STRLEN = 1024,
  MXL_ERR_INTERRUPTED = 1025,
  MXL_ERR_NO_FABRIC = 1026,
  MXL_ERR_INVALID_STATE = 1027,
  MXL_ERR_INTERNAL = 1028,
  MXL_ERR_NOT_READY = 1029,
  MXL_ERR_NOT_FOUND = 1030,
  MXL_ERR_EXISTS = 1031,
  MXL_ERR_UNSUPPORTED_OPERATION = 1032,
} mxlStatus;

/** Library version; @full is owned by the library. */
typedef struct mxlVersionType {
  uint16_t major;
  uint16_t minor;
  uint16_t bugfix;
  uint16_t build;
  char const *full;
} mxlVersionType;

/** Opaque handle of an MXL instance bound to one domain directory. */
typedef struct mxlInstance_t *mxlInstance;

/**
 * mxlGetVersion:
 * @out_version: (out): filled with this library's version.
 *
 * Returns: MXL_STATUS_OK, or MXL_ERR_INVALID_ARG when @out_version is NULL.
 */
MXL_EXPORT mxlStatus mxlGetVersion (mxlVersionType *out_version);

/**
 * mxlCreateInstance:
 * @in_mxlDomain: path of an existing directory (normally on tmpfs); it is
 *   made canonical with realpath(3). The library never creates it.
 * @in_options: (nullable): JSON object text; parsed, otherwise unused.
 *
 * Opens a domain (docs/flow-format.md §1.1, §1.9): reads `options.json` once.
 *
 * Returns: (transfer full) (nullable): a new instance, or NULL when the path
 * is missing or not a directory. Free with mxlDestroyInstance().
 */
MXL_EXPORT mxlInstance mxlCreateInstance (char const *in_mxlDomain,
    char const *in_options);

/**
 * mxlGarbageCollectFlows:
 * Deletes every inactive flow of the instance's domain (docs/flow-format.md §1.10).
 *
 * Returns: MXL_STATUS_OK (best effort), MXL_ERR_INVALID_ARG for NULL.
 */
MXL_EXPORT mxlStatus mxlGarbageCollectFlows (mxlInstance in_instance);

/**
 * mxlIsTmpFs:
 * Reports whether @in_path lives on tmpfs or ramfs (statfs f_type).
 *
 * Returns: MXL_STATUS_OK, MXL_ERR_INVALID_ARG for NULL arguments,
 * MXL_ERR_UNKNOWN when statfs(2) fails.
 */
MXL_EXPORT mxlStatus mxlIsTmpFs (char const *in_path, bool *out_isTmpFs);

/**
 * mxlDestroyInstance:
 * Releases every reader and writer the instance still holds (deleting flows
 * of which it is the last writer anywhere), then frees it.
 *
 * Returns: MXL_STATUS_OK, MXL_ERR_INVALID_ARG for NULL.
 */
MXL_EXPORT mxlStatus mxlDestroyInstance (mxlInstance in_instance);

#ifdef __cplusplus
}
#endif
