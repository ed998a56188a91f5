/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Pre-faulted buffers for grains copied out of the flow; see grainpool.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "grainpool.h"

#include <string.h>

/* Writes every page of the pool's first buffers once, then returns them. */
static void
prefault (GstBufferPool * pool)
{
  GstBuffer *bufs[GST_MXL_FABRICS_GRAIN_POOL_MIN] = { NULL };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bufs); i++) {
    GstMapInfo map;

    if (gst_buffer_pool_acquire_buffer (pool, &bufs[i], NULL) != GST_FLOW_OK)
      break;
    if (gst_buffer_map (bufs[i], &map, GST_MAP_WRITE)) {
      memset (map.data, 0, map.size);
      gst_buffer_unmap (bufs[i], &map);
    }
  }
  for (i = 0; i < G_N_ELEMENTS (bufs) && bufs[i] != NULL; i++)
    gst_buffer_unref (bufs[i]);
}

GstBufferPool *
gst_mxl_fabrics_grain_pool_new (gsize size)
{
  GstBufferPool *pool;
  GstStructure *config;

  if (size == 0 || size > G_MAXUINT)
    return NULL;
  pool = gst_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, NULL, (guint) size,
      GST_MXL_FABRICS_GRAIN_POOL_MIN, GST_MXL_FABRICS_GRAIN_POOL_MAX);
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE)) {
    gst_object_unref (pool);
    return NULL;
  }
  prefault (pool);
  return pool;
}

GstBuffer *
gst_mxl_fabrics_grain_pool_acquire (GstBufferPool * pool, gsize size)
{
  GstBufferPoolAcquireParams params = {.flags =
        GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT };
  GstBuffer *buf = NULL;

  if (pool != NULL && gst_buffer_pool_acquire_buffer (pool, &buf, &params)
      == GST_FLOW_OK && gst_buffer_get_size (buf) == size)
    return buf;
  if (buf != NULL)
    gst_buffer_unref (buf);
  return gst_buffer_new_allocate (NULL, size, NULL);
}

void
gst_mxl_fabrics_grain_pool_free (GstBufferPool * pool)
{
  if (pool == NULL)
    return;
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
}
