/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Helpers of the element-level hardening tests: pipelines built from text,
 * bounded bus waits, stats fields, deterministic frame content. Every wait
 * has a deadline; nothing here touches the network itself.
 */
#pragma once

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include <gst/app/app.h>
#include <gst/gst.h>

#include "hfill.h"

#define HGST_NODE "127.0.0.1"

static inline GstElement *
hgst_parse (const gchar * desc)
{
  GError *error = NULL;
  GstElement *p = gst_parse_launch (desc, &error);

  if (p == NULL)
    g_error ("cannot build \"%s\": %s", desc, error->message);
  return p;
}

/* Fails the test with the ERROR message if the bus holds one. */
static inline void
hgst_assert_no_error (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);

  gst_object_unref (bus);
  if (msg) {
    GError *e = NULL;
    gchar *d = NULL;
    gst_message_parse_error (msg, &e, &d);
    g_error ("%s: %s (%s)", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
        e->message, d);
  }
}

static inline void
hgst_play (GstElement * p)
{
  GstStateChangeReturn r = gst_element_set_state (p, GST_STATE_PLAYING);

  if (r == GST_STATE_CHANGE_FAILURE)
    hgst_assert_no_error (p);
  g_assert_cmpint (r, !=, GST_STATE_CHANGE_FAILURE);
}

static inline void
hgst_stop (GstElement * p)
{
  g_assert_cmpint (gst_element_set_state (p, GST_STATE_NULL), ==,
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (p);
}

/* The TargetInfo of the element named "src" of @p (g_free()). */
static inline gchar *
hgst_target_info (GstElement * p)
{
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  gchar *ti = NULL;

  g_object_get (src, "target-info", &ti, NULL);
  gst_object_unref (src);
  g_assert_nonnull (ti);
  return ti;
}

static inline void
hgst_set_target_info (GstElement * p, const gchar * ti)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");

  g_object_set (sink, "target-info", ti, NULL);
  gst_object_unref (sink);
}

/* A uint64 field of the `stats` of element @name; fails if absent. */
static inline guint64
hgst_stat (GstElement * p, const gchar * name, const gchar * field)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (p), name);
  GstStructure *s = NULL;
  guint64 v = 0;

  g_object_get (e, "stats", &s, NULL);
  if (!gst_structure_get_uint64 (s, field, &v))
    g_error ("stats of %s have no uint64 field %s: %s", name, field,
        gst_structure_to_string (s));
  gst_structure_free (s);
  gst_object_unref (e);
  return v;
}

/* Waits (bounded by @ms) until the sink of @p is connected (state 3). */
static inline gboolean
hgst_wait_connected (GstElement * p, guint ms)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (p), "sink");
  gint64 deadline = g_get_monotonic_time () + ms * 1000;
  gint state = 0;

  while (TRUE) {
    g_object_get (e, "connection-state", &state, NULL);
    if (state == 3 || g_get_monotonic_time () > deadline)
      break;
    g_usleep (10 * 1000);
  }
  gst_object_unref (e);
  return state == 3;
}

static inline GstBuffer *
hgst_frame (gsize size, guint i, GstClockTime pts, GstClockTime dur)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, size, NULL);
  GstMapInfo map;

  g_assert_true (gst_buffer_map (b, &map, GST_MAP_WRITE));
  hgst_fill (map.data, size, i);
  gst_buffer_unmap (b, &map);
  GST_BUFFER_PTS (b) = pts;
  GST_BUFFER_DURATION (b) = dur;
  return b;
}

static inline gchar *
hgst_checksum (GstBuffer * buf)
{
  GstMapInfo map;
  gchar *sum;

  g_assert_true (gst_buffer_map (buf, &map, GST_MAP_READ));
  sum = g_compute_checksum_for_data (G_CHECKSUM_SHA1, map.data, map.size);
  gst_buffer_unmap (buf, &map);
  return sum;
}

/* The running time of @p now plus @ahead (a PTS that sync=true renders soon). */
static inline GstClockTime
hgst_running_time (GstElement * p, GstClockTime ahead)
{
  GstClock *clock = gst_element_get_clock (p);
  GstClockTime t;

  g_assert_nonnull (clock);
  t = gst_clock_get_time (clock) - gst_element_get_base_time (p) + ahead;
  gst_object_unref (clock);
  return t;
}

/* Reaps child @pid within @ms; after that continues and kills it (SIGKILL)
 * and reaps it anyway. Returns: TRUE when it ended by itself in time. */
static inline gboolean
hgst_reap (GPid pid, guint ms, gint * status)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < end) {
    if (waitpid (pid, status, WNOHANG) == pid)
      return TRUE;
    g_usleep (10 * 1000);
  }
  kill (pid, SIGCONT);
  kill (pid, SIGKILL);
  waitpid (pid, status, 0);
  return FALSE;
}
