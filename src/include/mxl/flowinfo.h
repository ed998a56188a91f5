/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Shared-memory flow header structures (docs/flow-format.md §3). These are the exact
 * bytes of the `data` file of a flow (mxlFlowInfo at offset 0) and of the
 * first 4096 bytes of every grain file (mxlGrainInfo, see <mxl/flow.h>).
 *
 * Layout rules (§3.1): natural C alignment, no packing, no implicit padding,
 * every `reserved` byte zero. Members are plain integers (never _Atomic);
 * concurrent fields are accessed with the __atomic builtins (§4.5).
 * Names, types and field order follow the MXL SDK (mxl/flowinfo.h) so code
 * written against its headers compiles here.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <mxl/dataformat.h>
#include <mxl/platform.h>
#include <mxl/rational.h>

/** Planes per grain: v210 uses 1 (fill), v210a uses 2 (fill, key). */
#define MXL_MAX_PLANES_PER_GRAIN 4

#ifdef __cplusplus
extern "C" {
#endif

/** Where grain payloads live (§3.4); this library only uses HOST_MEMORY. */
typedef enum mxlPayloadLocation {
  MXL_PAYLOAD_LOCATION_HOST_MEMORY = 0,
  MXL_PAYLOAD_LOCATION_DEVICE_MEMORY = 1,
} mxlPayloadLocation;

/**
 * mxlCommonFlowConfigInfo: (128 bytes, at `data` + 8, §3.4)
 * @id: flow UUID, 16 bytes in RFC 4122 textual order.
 * @format: an mxlDataFormat value (1 VIDEO, 2 AUDIO, 3 DATA).
 * @flags: no flags defined, 0.
 * @grainRate: normalised edit rate: grain rate (video/data; field rate for
 *   interlaced video) or sample rate (audio).
 * @maxCommitBatchSizeHint: largest commit batch of the producer, in slices
 *   (discrete) or samples per channel (continuous); >= 1.
 * @maxSyncBatchSizeHint: batch at which readers are woken; a multiple of the
 *   commit hint.
 * @payloadLocation: an mxlPayloadLocation value (0 = host).
 * @deviceIndex: -1 for host memory.
 */
typedef struct mxlCommonFlowConfigInfo_t {
  uint8_t id[16];
  uint32_t format;
  uint32_t flags;
  mxlRational grainRate;
  uint32_t maxCommitBatchSizeHint;
  uint32_t maxSyncBatchSizeHint;
  uint32_t payloadLocation;
  int32_t deviceIndex;
  uint8_t reserved[72];
} mxlCommonFlowConfigInfo;

/**
 * mxlDiscreteFlowConfigInfo: (64 bytes, at `data` + 136, §3.5)
 * @sliceSizes: bytes per slice (one picture line, or one byte for data) of
 *   each plane; unused planes 0.
 * @grainCount: N, ring slots = files in `grains/`.
 */
typedef struct mxlDiscreteFlowConfigInfo_t {
  uint32_t sliceSizes[MXL_MAX_PLANES_PER_GRAIN];
  uint32_t grainCount;
  uint8_t reserved[44];
} mxlDiscreteFlowConfigInfo;

/**
 * mxlContinuousFlowConfigInfo: (64 bytes, at `data` + 136, §3.6)
 * @channelCount: C, one ring per channel.
 * @bufferLength: L, samples per channel ring; at most L / 2 can be read or
 *   written in one call.
 */
typedef struct mxlContinuousFlowConfigInfo_t {
  uint32_t channelCount;
  uint32_t bufferLength;
  uint8_t reserved[56];
} mxlContinuousFlowConfigInfo;

/** Immutable part of the flow header (192 bytes, at `data` + 8). The union
 * member is selected by common.format. */
typedef struct mxlFlowConfigInfo_t {
  mxlCommonFlowConfigInfo common;
  union {
    mxlDiscreteFlowConfigInfo discrete;
    mxlContinuousFlowConfigInfo continuous;
  };
} mxlFlowConfigInfo;

/**
 * mxlFlowRuntimeInfo: (64 bytes, at `data` + 200, §3.7)
 * @headIndex: H. Discrete: grain index of the most recent commit (inclusive,
 *   may move backwards). Continuous: one past the newest sample (§5.5 (A)).
 * @lastWriteTime: TAI ns of the last discrete commit (and creation).
 * @lastReadTime: TAI ns of the last read seen through the `access` file.
 */
typedef struct mxlFlowRuntimeInfo_t {
  uint64_t headIndex;
  uint64_t lastWriteTime;
  uint64_t lastReadTime;
  uint8_t reserved[40];
} mxlFlowRuntimeInfo;

/** The whole flow header, `data` + 0 (2048 bytes, §3.3).
 * @version: 1 (anything else is refused). @size: 2048. */
typedef struct mxlFlowInfo_t {
  uint32_t version;
  uint32_t size;
  mxlFlowConfigInfo config;
  mxlFlowRuntimeInfo runtime;
  uint8_t reserved[1784];
} mxlFlowInfo;

#ifndef __cplusplus
/* Byte layout of the shared header, docs/flow-format.md §3.13. */
_Static_assert (sizeof (void *) == 8, "MXL flows need an LP64 platform");
_Static_assert (sizeof (mxlRational) == 16, "mxlRational is 16 bytes");
_Static_assert (sizeof (mxlCommonFlowConfigInfo) == 128, "common config is 128 bytes");
_Static_assert (offsetof (mxlCommonFlowConfigInfo, grainRate) == 24, "grainRate at 24");
_Static_assert (offsetof (mxlCommonFlowConfigInfo, deviceIndex) == 52, "deviceIndex at 52");
_Static_assert (sizeof (mxlDiscreteFlowConfigInfo) == 64, "discrete config is 64 bytes");
_Static_assert (sizeof (mxlContinuousFlowConfigInfo) == 64, "continuous config is 64 bytes");
_Static_assert (sizeof (mxlFlowConfigInfo) == 192, "config block is 192 bytes");
_Static_assert (sizeof (mxlFlowRuntimeInfo) == 64, "runtime is 64 bytes");
_Static_assert (sizeof (mxlFlowInfo) == 2048, "mxlFlowInfo is 2048 bytes");
_Static_assert (offsetof (mxlFlowInfo, config) == 8, "config at 8");
_Static_assert (offsetof (mxlFlowInfo, config.discrete) == 136, "format config at 136");
_Static_assert (offsetof (mxlFlowInfo, runtime) == 200, "runtime at 200");
_Static_assert (offsetof (mxlFlowInfo, runtime.headIndex) == 200, "headIndex at 200");
_Static_assert (offsetof (mxlFlowInfo, runtime.lastWriteTime) == 208, "lastWriteTime at 208");
_Static_assert (offsetof (mxlFlowInfo, runtime.lastReadTime) == 216, "lastReadTime at 216");
_Static_assert (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "MXL flows are little-endian");
#endif

#ifdef __cplusplus
}
#endif
