/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Every installed public header compiles on its own in strict ISO C11
 * (built with -std=c11 -pedantic), and the status codes keep their MXL
 * values (docs/flow-format.md §6.1).
 */
#include <mxl/platform.h>
#include <mxl/rational.h>
#include <mxl/dataformat.h>
#include <mxl/mxl.h>
#include <mxl/flow.h>
#include <mxl/fabrics.h>

#include <glib.h>

static void
test_status_values (void)
{
  g_assert_cmpint (MXL_STATUS_OK, ==, 0);
  g_assert_cmpint (MXL_ERR_FLOW_INVALID, ==, 11);
  g_assert_cmpint (MXL_ERR_STRLEN, ==, 1024);
  g_assert_cmpint (MXL_ERR_NOT_READY, ==, 1029);
  g_assert_cmpint (MXL_ERR_UNSUPPORTED_OPERATION, ==, 1032);
  g_assert_cmpint (MXL_FABRICS_PROVIDER_SHM, ==, 4);
  g_assert_cmpint (MXL_FABRICS_IFACE_CAP_SEND_RECEIVE, ==, 4);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/headers/status-values", test_status_values);
  return g_test_run ();
}
