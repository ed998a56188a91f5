/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pool mxlfabricssink proposes upstream; see sinkpool.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sinkpool.h"

typedef struct
{
  GstBufferPool parent;
  GWeakRef sink;
  GstMxlFabricsUpstreamFlush on_flush;
  gint flushing;                /* atomic */
} GstMxlFabricsUpstreamPool;

typedef struct
{
  GstBufferPoolClass parent_class;
} GstMxlFabricsUpstreamPoolClass;

GType gst_mxl_fabrics_upstream_pool_get_type (void);
G_DEFINE_TYPE (GstMxlFabricsUpstreamPool, gst_mxl_fabrics_upstream_pool,
    GST_TYPE_BUFFER_POOL);

static void
flush_start (GstBufferPool * pool)
{
  GstMxlFabricsUpstreamPool *self = (GstMxlFabricsUpstreamPool *) pool;
  GstElement *sink = g_weak_ref_get (&self->sink);

  g_atomic_int_set (&self->flushing, 1);
  if (sink != NULL) {
    self->on_flush (sink);
    gst_object_unref (sink);
  }
}

static void
flush_stop (GstBufferPool * pool)
{
  g_atomic_int_set (&((GstMxlFabricsUpstreamPool *) pool)->flushing, 0);
}

static void
finalize (GObject * object)
{
  g_weak_ref_clear (&((GstMxlFabricsUpstreamPool *) object)->sink);
  G_OBJECT_CLASS (gst_mxl_fabrics_upstream_pool_parent_class)->finalize
      (object);
}

static void
gst_mxl_fabrics_upstream_pool_class_init (GstMxlFabricsUpstreamPoolClass *
    klass)
{
  G_OBJECT_CLASS (klass)->finalize = finalize;
  GST_BUFFER_POOL_CLASS (klass)->flush_start = flush_start;
  GST_BUFFER_POOL_CLASS (klass)->flush_stop = flush_stop;
}

static void
gst_mxl_fabrics_upstream_pool_init (GstMxlFabricsUpstreamPool * self)
{
  g_weak_ref_init (&self->sink, NULL);
}

GstBufferPool *
gst_mxl_fabrics_upstream_pool_new (GstElement * sink, GstCaps * caps,
    guint size, GstMxlFabricsUpstreamFlush on_flush)
{
  GstMxlFabricsUpstreamPool *self;
  GstStructure *config;

  self = g_object_new (gst_mxl_fabrics_upstream_pool_get_type (), NULL);
  gst_object_ref_sink (self);
  g_weak_ref_set (&self->sink, sink);
  self->on_flush = on_flush;
  config = gst_buffer_pool_get_config (GST_BUFFER_POOL (self));
  gst_buffer_pool_config_set_params (config, caps, size, 0, 0);
  if (!gst_buffer_pool_set_config (GST_BUFFER_POOL (self), config)) {
    gst_object_unref (self);
    return NULL;
  }
  return GST_BUFFER_POOL (self);
}

gboolean
gst_mxl_fabrics_upstream_pool_flushing (GstBufferPool * pool)
{
  return g_atomic_int_get (&((GstMxlFabricsUpstreamPool *) pool)->flushing);
}
