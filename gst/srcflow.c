/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssrc's flow and target (srcflow.h): the format to receive,
 * from the caps or flow-def property; the local flow and the target on it;
 * the TargetInfo it publishes (property, file, bus message).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "srcflow.h"
#include "srccredit.h"
#include "grainpool.h"
#include "mxlfabricsopen.h"
#include "mxlfabricssrc.h"

GST_DEBUG_CATEGORY_EXTERN (gst_mxl_fabrics_src_debug);
#define GST_CAT_DEFAULT gst_mxl_fabrics_src_debug

gboolean
gst_mxl_fabrics_src_resolve_format (GstMxlFabricsSrc * self,
    GstMxlFabricsFormat * fmt, gchar ** flow_def, GError ** error)
{
  GstCaps *caps;
  gchar *flow_def_value, *flow_id, *json = NULL, *def_id = NULL;
  GstMxlFabricsFormat caps_fmt;
  gboolean ok = FALSE;

  *flow_def = NULL;
  GST_OBJECT_LOCK (self);
  caps = self->caps ? gst_caps_ref (self->caps) : NULL;
  flow_def_value = g_strdup (self->flow_def);
  flow_id = g_strdup (self->obj->flow_id);
  GST_OBJECT_UNLOCK (self);

  if (flow_def_value[0] != '\0') {
    if (!gst_mxl_fabrics_load_value (flow_def_value, &json, error)
        || !gst_mxl_fabrics_format_from_flow_def (json, fmt, &def_id, error))
      goto done;
    if (flow_id[0] != '\0' && g_ascii_strcasecmp (flow_id, def_id) != 0) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "property flow-id %s differs from the id %s in flow-def; unset one",
          flow_id, def_id);
      goto done;
    }
    if (caps) {
      GError *mismatch = NULL;
      if (!gst_mxl_fabrics_format_from_caps (caps, &caps_fmt, error))
        goto done;
      if (!gst_mxl_fabrics_format_check_match (&caps_fmt, fmt, &mismatch)) {
        g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
            "properties caps and flow-def disagree: %s", mismatch->message);
        g_error_free (mismatch);
        goto done;
      }
      /* caps may ask for the flow's fields woven into frames */
      fmt->interleaved = gst_mxl_fabrics_media_ops (caps_fmt.media)->src_weaves
          && caps_fmt.interleaved;
    }
    *flow_def = g_steal_pointer (&json);
    ok = TRUE;
  } else if (caps) {
    if (!gst_mxl_fabrics_format_from_caps (caps, fmt, error))
      goto done;
    if (!gst_mxl_fabrics_media_ops (fmt->media)->src_weaves)
      fmt->interleaved = FALSE; /* e.g. the src always outputs planar audio */
    *flow_def = gst_mxl_fabrics_flow_def_new (fmt,
        flow_id[0] ? flow_id : NULL, NULL, NULL, error);
    ok = *flow_def != NULL;
  } else {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "set the caps property (e.g. video/x-raw,format=v210,width=1920,"
        "height=1080,framerate=50/1) or flow-def (NMOS flow JSON or @path)");
  }

done:
  if (caps)
    gst_caps_unref (caps);
  g_free (flow_def_value);
  g_free (flow_id);
  g_free (json);
  g_free (def_id);
  return ok;
}

gboolean
gst_mxl_fabrics_src_publish_target_info (GstMxlFabricsSrc * self,
    const gchar * target_info, GError ** error)
{
  gchar *path;
  gboolean changed, ok = TRUE;

  GST_OBJECT_LOCK (self);
  changed = g_strcmp0 (self->target_info, target_info) != 0;
  if (changed) {
    g_free (self->target_info);
    self->target_info = g_strdup (target_info);
  }
  path = g_strdup (self->target_info_file);
  GST_OBJECT_UNLOCK (self);

  if (changed) {
    GError *file_error = NULL;

    /* g_file_set_contents writes a temporary file and renames it: readers
     * (a sink waiting on @path) never see a partial TargetInfo. */
    if (path && path[0] != '\0'
        && !g_file_set_contents (path, target_info, -1, &file_error)) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE,
          "cannot write target-info-file \"%s\": %s", path,
          file_error->message);
      g_error_free (file_error);
      ok = FALSE;
    }
    g_object_notify (G_OBJECT (self), "target-info");
    gst_mxl_fabrics_object_post_target_info (self->obj, target_info);
  }
  g_free (path);
  return ok;
}

void
gst_mxl_fabrics_src_engine_stop (GstMxlFabricsSrc * self)
{
  /* with credits, zero-copy buffers may still be out: their shared part
   * takes the target and the flow and closes them after the last one */
  gst_mxl_fabrics_src_credits_stop (self);
  gst_mxl_fabrics_close_target (&self->flow, &self->target);
  g_clear_pointer (&self->grain_pool, gst_mxl_fabrics_grain_pool_free);
}

/* Creates the flow, sets up the target and publishes its TargetInfo. Never
 * waits for an initiator. */
gboolean
gst_mxl_fabrics_src_engine_start (GstMxlFabricsSrc * self,
    GError ** error)
{
  gchar *json;
  guint ring_length;
  gboolean credits;

  GST_OBJECT_LOCK (self);
  ring_length = self->ring_length;
  credits = self->credits_on;
  GST_OBJECT_UNLOCK (self);
  /* audio: the target releases each bounce entry itself once committed
   * (docs/fabrics-engine.md "Credits", "Audio"); the src copies out */
  if (!gst_mxl_fabrics_open_target (self->obj, &self->flow,
          self->flow_def_json, ring_length, credits, &self->target, &json,
          error))
    return FALSE;
  gst_mxl_fabrics_src_credits_start (self, json);
  if (self->media->batches)
    self->grain_size = 0;
  else
    self->grain_size = gst_mxl_fabrics_format_grain_size (&self->format);
  /* NULL for audio (no fixed size): buffers are then allocated per batch */
  self->grain_pool = gst_mxl_fabrics_grain_pool_new (self->grain_size);
  if (!gst_mxl_fabrics_src_publish_target_info (self, json, error)) {
    g_free (json);
    gst_mxl_fabrics_src_engine_stop (self);
    return FALSE;
  }
  g_free (json);
  return TRUE;
}
