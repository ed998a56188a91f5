/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The @path files of the sink's targets (sinktargetfile.c): their watches
 * and their reads, done without engine_lock.
 */
#pragma once

#include "mxlfabricssinktarget.h"

/* One read of a target's @path file: the target and its value taken under
 * engine_lock, then what gst_mxl_fabrics_target_info_resolve() gave
 * (@ok, @text, @error). */
typedef struct {
  GstMxlFabricsSinkTarget *target;      /* not owned: look it up again */
  gchar *value;
  gboolean ok;
  gchar *text;
  mxlFabricsTargetInfo parsed;          /* with @text: parsed once, owned */
  GError *error;
} GstMxlFabricsSinkFileRead;

/** Engine thread, engine_lock held: watches @t's @path file (inotify
 * through GFileMonitor, its events dispatched by the engine thread); where
 * no monitor can be made, the file is re-read every
 * GST_MXL_FABRICS_SINK_FILE_CHECK_MS. */
void gst_mxl_fabrics_sink_target_watch_file (GstMxlFabricsSink * self,
    GstMxlFabricsSinkTarget * t);

/** Stops @t's watch (engine_lock held or the engine stopped). */
void gst_mxl_fabrics_sink_target_unwatch (GstMxlFabricsSinkTarget * t);

/** Engine_lock held: whether @t's @path file is to be read now (its monitor
 * said it changed, or, unwatched, the check period went by); when TRUE the
 * check is counted as done. */
gboolean gst_mxl_fabrics_sink_target_file_due (GstMxlFabricsSinkTarget * t,
    gint64 now);

/** Engine_lock held: @reads (NULL: a new array) with a read of @t's file
 * appended (its value copied). Returns: (transfer full): @reads or the new
 * array, whose clear function frees each entry. */
GArray *gst_mxl_fabrics_sink_file_reads_add (GArray * reads,
    GstMxlFabricsSinkTarget * t);

/** Engine thread, engine_lock held on entry and on return, released
 * meanwhile: reads each file of @reads (the library's reader, which
 * refuses at once what is not a regular file, mxlFabricsExtReadUserFile()),
 * so that a slow file (NFS) holds no render or state change. The caller
 * checks that each target is still listed before using its result. */
void gst_mxl_fabrics_sink_targets_read_files (GstMxlFabricsSink * self,
    GArray * reads);
