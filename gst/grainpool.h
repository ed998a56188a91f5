/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Buffers for the grains mxlfabricssrc copies out of its flow: a small
 * GstBufferPool of grain-sized system-memory buffers, the first of them
 * written once at start. A fresh 5.5 MB allocation per grain is served
 * from reused heap memory in the steady state, but the first few grains
 * of a stream land in pages the kernel has to fault in and clear: their
 * copy took 4-5 ms instead of ~1 ms (docs/benchmarks.md, "End-to-end
 * latency"). Pooled buffers are faulted once, when the pool first hands
 * them out or at start, and come back when downstream releases them.
 */
#ifndef __GST_MXL_FABRICS_GRAINPOOL_H__
#define __GST_MXL_FABRICS_GRAINPOOL_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* Buffers allocated and written at start: what a src pushing into a sink
 * that releases each buffer at once (fakesink, appsink, a display) has in
 * use at a time. */
#define GST_MXL_FABRICS_GRAIN_POOL_MIN 2
/* Most buffers the pool keeps; beyond, buffers are allocated per grain
 * (downstream holding many buffers, e.g. a queue, pins no more memory). */
#define GST_MXL_FABRICS_GRAIN_POOL_MAX 4

/* A new, active pool of @size-byte buffers, GST_MXL_FABRICS_GRAIN_POOL_MIN
 * of them allocated and written once. Returns NULL (the caller allocates
 * per grain) when @size is 0 or above G_MAXUINT or the pool cannot be
 * activated. Free with gst_mxl_fabrics_grain_pool_free(). */
GstBufferPool *gst_mxl_fabrics_grain_pool_new (gsize size);

/* A @size-byte buffer: from @pool without waiting when it has one free,
 * otherwise newly allocated (@pool NULL, exhausted, or of another size).
 * Never NULL; the caller owns the reference. */
GstBuffer *gst_mxl_fabrics_grain_pool_acquire (GstBufferPool * pool,
    gsize size);

/* Deactivates and unrefs @pool (NULL allowed); buffers still downstream
 * are freed when they are released. */
void gst_mxl_fabrics_grain_pool_free (GstBufferPool * pool);

G_END_DECLS

#endif
