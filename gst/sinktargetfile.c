/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The @path files of the sink's targets: watched with GFileMonitor and
 * read with engine_lock released (sinktargetfile.h); what a read gives is
 * applied by mxlfabricssinktarget.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sinktargetfile.h"
#include "mxlfabricssinkconn.h"

GST_DEBUG_CATEGORY_EXTERN (mxl_fabrics_sink_conn_debug);
#define GST_CAT_DEFAULT mxl_fabrics_sink_conn_debug

#define LOCK(self) g_mutex_lock (&(self)->obj->lock)
#define UNLOCK(self) g_mutex_unlock (&(self)->obj->lock)

static void
on_file_changed (GFileMonitor * monitor, GFile * file, GFile * other,
    GFileMonitorEvent event, gpointer data)
{
  GstMxlFabricsSink *self = data;
  guint i;

  /* dispatched by the engine thread between passes: the lock is free; the
   * target is looked up, as remove-target may have dropped it */
  LOCK (self);
  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    if (t->monitor == monitor)
      t->file_dirty = TRUE;
  }
  UNLOCK (self);
}

/* Watches @t's @path file (inotify through GFileMonitor, its events
 * dispatched by the engine thread): a file that appears or is rewritten is
 * read at once. Where no monitor can be made, the file is re-read every
 * GST_MXL_FABRICS_SINK_FILE_CHECK_MS (gst_mxl_fabrics_sink_target_file_due). */
void
gst_mxl_fabrics_sink_target_watch_file (GstMxlFabricsSink * self,
    GstMxlFabricsSinkTarget * t)
{
  GFile *file = g_file_new_for_path (t->path);
  GError *error = NULL;

  t->watch_tried = TRUE;
  t->file_dirty = TRUE;         /* the first read, or one since add-target */
  t->monitor = g_file_monitor_file (file, G_FILE_MONITOR_NONE, NULL, &error);
  g_object_unref (file);
  if (t->monitor == NULL) {
    GST_INFO_OBJECT (self, "cannot watch %s (%s): re-read every %d ms",
        t->path, error->message, GST_MXL_FABRICS_SINK_FILE_CHECK_MS);
    g_error_free (error);
    t->file_checked_us = 0;
    return;
  }
  g_file_monitor_set_rate_limit (t->monitor, 0);
  g_signal_connect (t->monitor, "changed", G_CALLBACK (on_file_changed), self);
}

void
gst_mxl_fabrics_sink_target_unwatch (GstMxlFabricsSinkTarget * t)
{
  if (t->monitor) {
    g_signal_handlers_disconnect_matched (t->monitor, G_SIGNAL_MATCH_FUNC, 0,
        0, NULL, on_file_changed, NULL);
    g_file_monitor_cancel (t->monitor);
    g_clear_object (&t->monitor);
  }
}

/* Whether @t's @path file is to be read now (its monitor said it changed,
 * or, unwatched, GST_MXL_FABRICS_SINK_FILE_CHECK_MS went by); engine_lock
 * held. */
gboolean
gst_mxl_fabrics_sink_target_file_due (GstMxlFabricsSinkTarget * t,
    gint64 now)
{
  if (t->monitor ? !t->file_dirty :
      now - t->file_checked_us < GST_MXL_FABRICS_SINK_FILE_CHECK_MS * 1000)
    return FALSE;
  t->file_checked_us = now;
  t->file_dirty = FALSE;
  return TRUE;
}

static void
file_read_clear (GstMxlFabricsSinkFileRead * r)
{
  g_free (r->value);
  g_free (r->text);
  if (r->parsed)
    mxlFabricsFreeTargetInfo (r->parsed);
  g_clear_error (&r->error);
}

GArray *
gst_mxl_fabrics_sink_file_reads_add (GArray * reads,
    GstMxlFabricsSinkTarget * t)
{
  GstMxlFabricsSinkFileRead r = { t, g_strdup (t->value), FALSE, NULL, NULL,
    NULL
  };

  if (reads == NULL) {
    reads = g_array_new (FALSE, TRUE, sizeof r);
    g_array_set_clear_func (reads, (GDestroyNotify) file_read_clear);
  }
  g_array_append_val (reads, r);
  return reads;
}

void
gst_mxl_fabrics_sink_targets_read_files (GstMxlFabricsSink * self,
    GArray * reads)
{
  guint i;

  UNLOCK (self);
  for (i = 0; i < reads->len; i++) {
    GstMxlFabricsSinkFileRead *r =
        &g_array_index (reads, GstMxlFabricsSinkFileRead, i);

    /* the library reads the file (bounded) and gives it back in one form */
    r->ok = gst_mxl_fabrics_target_info_resolve_parsed (r->value, NULL,
        &r->text, NULL, NULL, &r->parsed, &r->error);
  }
  LOCK (self);
}
