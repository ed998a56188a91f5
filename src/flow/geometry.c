/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "flow/geometry.h"

uint32_t
mxl_v210_line_bytes (uint32_t width)
{
  return ((width + 47u) / 48u) * 128u;
}

uint32_t
mxl_v210a_key_line_bytes (uint32_t width)
{
  return ((width + 2u) / 3u) * 4u;
}
