/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The "mxlfabrics" plugin: mxlfabricssink (an MXL Fabrics initiator) and
 * mxlfabricssrc (an MXL Fabrics target).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

static gboolean
plugin_init (GstPlugin * plugin)
{
  return TRUE;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, mxlfabrics,
    "Move MXL flows (video grains, audio samples) between hosts over "
    "libfabric remote write", plugin_init, VERSION, GST_LICENSE,
    GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
