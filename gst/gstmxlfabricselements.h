/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Element registration of the "mxlfabrics" plugin. */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

GST_ELEMENT_REGISTER_DECLARE (mxlfabricssink);
GST_ELEMENT_REGISTER_DECLARE (mxlfabricssrc);

G_END_DECLS
