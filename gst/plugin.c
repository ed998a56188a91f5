/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The "mxlfabrics" plugin: mxlfabricssink (an MXL Fabrics initiator) and
 * mxlfabricssrc (an MXL Fabrics target).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "gstmxlfabricselements.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (mxlfabricssink, plugin);
  ret |= GST_ELEMENT_REGISTER (mxlfabricssrc, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, mxlfabrics,
    "Move MXL flows (video grains, audio samples) between hosts over "
    "libfabric remote write", plugin_init, VERSION, GST_LICENSE,
    GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
