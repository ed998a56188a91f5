/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* MXL data formats (docs/flow-format.md §6.1). */
#pragma once

#include <mxl/platform.h>

/** Payload size of a `video/smpte291` data grain in bytes. */
#define MXL_DATA_FORMAT_GRAIN_SIZE 4096

#ifdef __cplusplus
extern "C" {
#endif

/** Data format of a flow, as stored in mxlCommonFlowConfigInfo.format. */
typedef enum mxlDataFormat {
  MXL_DATA_FORMAT_UNSPECIFIED = 0,
  MXL_DATA_FORMAT_VIDEO = 1,
  MXL_DATA_FORMAT_AUDIO = 2,
  MXL_DATA_FORMAT_DATA = 3,
} mxlDataFormat;

/** Returns 1 when @format is VIDEO, AUDIO or DATA. */
MXL_CONSTEXPR int
mxlIsValidDataFormat (int format)
{
  return format == MXL_DATA_FORMAT_VIDEO || format == MXL_DATA_FORMAT_AUDIO
      || format == MXL_DATA_FORMAT_DATA;
}

/** Returns 1 when this library can create and open flows of @format. */
MXL_CONSTEXPR int
mxlIsSupportedDataFormat (int format)
{
  return mxlIsValidDataFormat (format);
}

/** Returns 1 for grain-based (discrete) formats: VIDEO and DATA. */
MXL_CONSTEXPR int
mxlIsDiscreteDataFormat (int format)
{
  return format == MXL_DATA_FORMAT_VIDEO || format == MXL_DATA_FORMAT_DATA;
}

/** Returns 1 for sample-based (continuous) formats: AUDIO. */
MXL_CONSTEXPR int
mxlIsContinuousDataFormat (int format)
{
  return format == MXL_DATA_FORMAT_AUDIO;
}

#ifdef __cplusplus
}
#endif
