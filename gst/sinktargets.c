/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssink's requested targets (the target-info property and the
 * add-target / remove-target signals; `targets` under the object lock):
 * what can be checked when a target is given. The engine thread
 * (mxlfabricssinkconn.c) connects them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "sinktargets.h"
#include "mxlfabricssink.h"
#include "mxlfabricssinkconn.h"

GST_DEBUG_CATEGORY_EXTERN (gst_mxl_fabrics_sink_debug);
#define GST_CAT_DEFAULT gst_mxl_fabrics_sink_debug

void
gst_mxl_fabrics_sink_target_free (gpointer data)
{
  GstMxlFabricsSinkTarget *target = data;

  g_free (target->value);
  g_free (target->json);
  g_free (target->path);
  g_free (target);
}

/* Adds a target from a TargetInfo value; object lock NOT held. What can be
 * checked at once is: a document the library refuses, and a target already
 * given, compared by TargetInfo id, so the same target as @path, JSON or
 * base64 is one. A file still to come is checked when it is read (a
 * failure then is that target's alone, mxlfabricssinkconn.c). */
gboolean
gst_mxl_fabrics_sink_add_target (GstMxlFabricsSink * self, const gchar * value,
    gboolean from_property, GError ** error)
{
  GstMxlFabricsSinkTarget *target;
  gchar *json = NULL, *path = NULL;
  guint64 id = 0;
  guint i;

  if (!gst_mxl_fabrics_target_info_resolve (value, NULL, &json, &path, error))
    return FALSE;
  if (json && !gst_mxl_fabrics_sink_target_info_id (json, &id, error)) {
    g_free (json);
    g_free (path);
    return FALSE;
  }

  GST_OBJECT_LOCK (self);
  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    if (g_strcmp0 (t->value, value) == 0
        || (json && t->have_id && t->id == id)) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY,
          "this TargetInfo (target %" G_GUINT64_FORMAT ") was already added"
          "%s%s", id, t->path ? " as @" : "", t->path ? t->path : "");
      GST_OBJECT_UNLOCK (self);
      g_free (json);
      g_free (path);
      return FALSE;
    }
  }
  target = g_new0 (GstMxlFabricsSinkTarget, 1);
  target->value = g_strdup (value);
  target->json = json;
  target->path = path;
  target->have_id = json != NULL;
  target->id = id;
  target->from_property = from_property;
  g_ptr_array_add (self->targets, target);
  GST_OBJECT_UNLOCK (self);
  /* The engine thread adds it to the initiator (a file target once the
   * file appears). */
  gst_mxl_fabrics_sink_engine_wake (self);
  return TRUE;
}

gboolean
gst_mxl_fabrics_sink_remove_target (GstMxlFabricsSink * self,
    const gchar * value)
{
  gboolean found = FALSE;
  guint i;

  GST_OBJECT_LOCK (self);
  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    if (g_strcmp0 (t->value, value) == 0) {
      /* The engine thread removes it from the initiator. */
      g_ptr_array_remove_index (self->targets, i);
      found = TRUE;
      break;
    }
  }
  GST_OBJECT_UNLOCK (self);
  if (found)
    gst_mxl_fabrics_sink_engine_wake (self);
  return found;
}

/* The target-info property's target (again, as it may have changed since
 * the last start), then a check of every TargetInfo already readable: a
 * malformed one is an ERROR now, not later; files still to come are
 * checked when read. */
gboolean
gst_mxl_fabrics_sink_targets_start (GstMxlFabricsSink * self, GError ** error)
{
  gchar *target_info;
  guint i;

  GST_OBJECT_LOCK (self);
  target_info = g_strdup (self->target_info);
  GST_OBJECT_UNLOCK (self);
  if (target_info[0] != '\0') {
    gst_mxl_fabrics_sink_remove_target (self, target_info);
    if (!gst_mxl_fabrics_sink_add_target (self, target_info, TRUE, error)
        && g_error_matches (*error, GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_BUSY)) {
      /* given by add-target as well: one target */
      GST_ELEMENT_WARNING (self, RESOURCE, BUSY, ("%s", (*error)->message),
          ("target-info \"%s\"", target_info));
      g_clear_error (error);
    } else if (*error) {
      g_free (target_info);
      return FALSE;
    }
  }
  g_free (target_info);

  GST_OBJECT_LOCK (self);
  for (i = 0; i < self->targets->len && *error == NULL; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    if (t->json)
      gst_mxl_fabrics_sink_check_target_info (t->json, NULL, error);
  }
  GST_OBJECT_UNLOCK (self);
  return *error == NULL;
}
