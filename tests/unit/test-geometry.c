/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Line sizes of docs/flow-format.md §2.5 and the worked examples of §2.6. */
#include <glib.h>

#include "flow/geometry.h"

static void
test_v210_line_bytes (void)
{
  g_assert_cmpuint (mxl_v210_line_bytes (1920), ==, 5120);
  g_assert_cmpuint (mxl_v210_line_bytes (1280), ==, 3456);
  g_assert_cmpuint (mxl_v210_line_bytes (3840), ==, 10240);
  /* padding to 48 pixels: 1 pixel and 48 pixels are one 128-byte block */
  g_assert_cmpuint (mxl_v210_line_bytes (2), ==, 128);
  g_assert_cmpuint (mxl_v210_line_bytes (48), ==, 128);
  g_assert_cmpuint (mxl_v210_line_bytes (49), ==, 256);
  g_assert_cmpuint (mxl_v210_line_bytes (7680), ==, 20480);
  /* DCI 8K (issue 19): 8192 pixels are 171 blocks of 48 */
  g_assert_cmpuint (mxl_v210_line_bytes (8192), ==, 21888);
}

static void
test_v210a_key_line_bytes (void)
{
  g_assert_cmpuint (mxl_v210a_key_line_bytes (1920), ==, 2560);
  g_assert_cmpuint (mxl_v210a_key_line_bytes (1280), ==, 1708);
  g_assert_cmpuint (mxl_v210a_key_line_bytes (3), ==, 4);
  g_assert_cmpuint (mxl_v210a_key_line_bytes (4), ==, 8);
}

static void
test_grain_sizes (void)
{
  /* 1080p v210: 5 529 600 bytes; v210a adds the key plane: 8 294 400 */
  g_assert_cmpuint ((guint64) mxl_v210_line_bytes (1920) * 1080, ==, 5529600);
  g_assert_cmpuint ((guint64) (mxl_v210_line_bytes (1920) +
          mxl_v210a_key_line_bytes (1920)) * 1080, ==, 8294400);
  /* 2160p v210: 22 118 400 */
  g_assert_cmpuint ((guint64) mxl_v210_line_bytes (3840) * 2160, ==, 22118400);
  /* the largest picture (MXL_FLOW_MAX_WIDTH x MAX_HEIGHT) with its key plane:
   * 141 747 840 bytes, within the uint32 grainSize and sliceSizes */
  g_assert_cmpuint ((guint64) (mxl_v210_line_bytes (8192) +
          mxl_v210a_key_line_bytes (8192)) * 4320, ==, 141747840);
  g_assert_cmpuint ((guint64) (mxl_v210_line_bytes (8192) +
          mxl_v210a_key_line_bytes (8192)) * 4320, <, G_MAXUINT32);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/geometry/v210-line-bytes", test_v210_line_bytes);
  g_test_add_func ("/geometry/v210a-key-line-bytes", test_v210a_key_line_bytes);
  g_test_add_func ("/geometry/grain-sizes", test_grain_sizes);
  return g_test_run ();
}
