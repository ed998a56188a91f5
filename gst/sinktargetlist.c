/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sink's target-info list; see sinktargetlist.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sinktargetlist.h"

#include <mxl/fabrics-ext.h>

gchar **
gst_mxl_fabrics_sink_split_target_info (const gchar * value)
{
  char **sources = NULL;
  gchar **out;

  /* the library's rule (mxlFabricsExtSplitTargetInfoList()); it refuses
   * only a NULL out argument */
  if (mxlFabricsExtSplitTargetInfoList (value, &sources, NULL)
      != MXL_STATUS_OK)
    return g_new0 (gchar *, 1);
  out = g_strdupv (sources);
  mxlFabricsExtFreeTargetInfoList (sources);
  return out;
}
