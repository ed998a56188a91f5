/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sink's engine thread and per-target connections; see
 * mxlfabricssinkconn.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mxlfabricssinkconn.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <glib-unix.h>
#include <gio/gio.h>

GST_DEBUG_CATEGORY_STATIC (sink_conn_debug);
#define GST_CAT_DEFAULT sink_conn_debug

typedef struct {
  gchar *value;                 /* requested value, as given */
  gchar *path;                  /* file of an @path value, else NULL */
  gchar *json;                  /* TargetInfo JSON in use; NULL: awaited */
  mxlFabricsTargetInfo info;    /* non-NULL while added to the initiator */
  guint64 id;
  gchar id_str[24];
  GstMxlFabricsConnectionState state;
  gboolean lost;                /* waiting to be re-added */
  gboolean failed;              /* failed (WARNING posted): left alone until
                                 * its @path file changes */
  GError *error;                /* why it failed */
  guint attempts;
  guint refused;                /* failed connection attempts in a row */
  gboolean taken;               /* refused: the receiver has another sender
                                 * (warned once until connected) */
  gint64 retry_at_us;
  gint64 file_checked_us;
  GFileMonitor *monitor;        /* @path watched (engine thread's context);
                                 * NULL: re-read every FILE_CHECK_MS */
  gboolean file_dirty;          /* the monitor saw a change: re-read */
  guint64 grains, bytes, reconnects;
  guint64 dropped;              /* grains this target did not get */
  guint64 behind_drops;         /* of which because it was behind */
  guint64 behind_warned;        /* behind_drops at the last WARNING */
  gint64 behind_warned_us;
  guint64 seen_skipped, seen_dropped;   /* initiator's target counters */
} Conn;

/* What the tick found, posted once engine_lock is released (a bus sync
 * handler may call back into the element). */
typedef struct {
  GstMessageType type;          /* ERROR, WARNING, or ELEMENT (connection) */
  GError *error;
  gchar *debug;
  GstMxlFabricsConnectionState state;   /* aggregate after the change */
  gchar *target_id;
  GstMxlFabricsConnectionState target_state;
  gchar *reason;
} Notice;

static void
notice_free (Notice * n)
{
  g_clear_error (&n->error);
  g_free (n->debug);
  g_free (n->target_id);
  g_free (n->reason);
  g_free (n);
}

static void
conn_free (Conn * c)
{
  if (c->monitor) {
    g_signal_handlers_disconnect_by_data (c->monitor, c);
    g_file_monitor_cancel (c->monitor);
    g_object_unref (c->monitor);
  }
  g_free (c->value);
  g_free (c->path);
  g_free (c->json);
  if (c->info)
    mxlFabricsFreeTargetInfo (c->info);
  g_clear_error (&c->error);
  g_free (c);
}

/* The element's state: connected while any target is, connecting while
 * any is, error when every target failed, else disconnected. */
static GstMxlFabricsConnectionState
aggregate (GstMxlFabricsSink * self)
{
  gboolean connecting = FALSE, all_failed = self->conns
      && self->conns->len > 0;
  guint i;

  for (i = 0; self->conns && i < self->conns->len; i++) {
    Conn *c = g_ptr_array_index (self->conns, i);
    if (c->state == GST_MXL_FABRICS_CONNECTION_CONNECTED)
      return GST_MXL_FABRICS_CONNECTION_CONNECTED;
    if (c->state == GST_MXL_FABRICS_CONNECTION_CONNECTING)
      connecting = TRUE;
    if (c->state != GST_MXL_FABRICS_CONNECTION_ERROR)
      all_failed = FALSE;
  }
  return connecting ? GST_MXL_FABRICS_CONNECTION_CONNECTING : all_failed ?
      GST_MXL_FABRICS_CONNECTION_ERROR : GST_MXL_FABRICS_CONNECTION_DISCONNECTED;
}

static void
recount (GstMxlFabricsSink * self)
{
  guint i, n = 0;

  for (i = 0; i < self->conns->len; i++) {
    Conn *c = g_ptr_array_index (self->conns, i);
    if (c->state == GST_MXL_FABRICS_CONNECTION_CONNECTED)
      n++;
  }
  if (n != self->n_connected) {
    self->n_connected = n;
    g_cond_broadcast (&self->obj->cond);      /* wait-for-connection */
  }
}

static void
set_conn_state (GstMxlFabricsSink * self, Conn * c,
    GstMxlFabricsConnectionState state, const gchar * reason,
    GPtrArray * notices)
{
  Notice *n = g_new0 (Notice, 1);

  c->state = state;
  recount (self);
  n->type = GST_MESSAGE_ELEMENT;
  n->state = aggregate (self);
  n->target_id = g_strdup (c->id_str);
  n->target_state = state;
  n->reason = g_strdup (reason);
  g_ptr_array_add (notices, n);
}

static void
add_problem (GPtrArray * notices, GstMessageType type, GQuark domain,
    gint code, gchar * message, const gchar * debug)
{
  Notice *n = g_new0 (Notice, 1);

  n->type = type;
  n->error = g_error_new_literal (domain, code, message);
  n->debug = g_strdup (debug);
  g_ptr_array_add (notices, n);
  g_free (message);
}

/* A target failed: WARNING, its own state error; the others go on (the
 * element's ERROR comes only from check_all_failed()). Takes @error. */
static void
conn_fail (GstMxlFabricsSink * self, Conn * c, GError * error,
    GPtrArray * notices)
{
  gchar *name = c->id_str[0] ? g_strdup_printf ("target %s", c->id_str) :
      g_strdup ("a target");

  c->failed = TRUE;
  g_clear_error (&c->error);
  c->error = error;
  add_problem (notices, GST_MESSAGE_WARNING, error->domain, error->code,
      g_strdup_printf ("%s failed: %s; %s", name, error->message, c->path ?
          "waiting for its TargetInfo file to change" :
          "the other targets go on"), c->value);
  set_conn_state (self, c, GST_MXL_FABRICS_CONNECTION_ERROR, error->message,
      notices);
  g_free (name);
}

/* Once every target has failed for good (a followed @path file may still
 * be rewritten), and error-on-all-failed is set: one ERROR, with the last
 * failure's domain, code and text. */
static void
check_all_failed (GstMxlFabricsSink * self, GPtrArray * notices)
{
  const GError *last = NULL;
  gboolean want;
  guint i;

  GST_OBJECT_LOCK (self);
  want = self->error_on_all_failed;
  GST_OBJECT_UNLOCK (self);
  if (!want || self->all_failed_posted || self->conns->len == 0)
    return;
  for (i = 0; i < self->conns->len; i++) {
    Conn *c = g_ptr_array_index (self->conns, i);
    if (!c->failed || c->path != NULL || c->error == NULL)
      return;
    last = c->error;
  }
  self->all_failed_posted = TRUE;
  add_problem (notices, GST_MESSAGE_ERROR, last->domain, last->code,
      g_strdup_printf ("%s (no target left that can receive this stream)",
          last->message), NULL);
}

gboolean
gst_mxl_fabrics_sink_target_info_id (const gchar * json, guint64 * id,
    GError ** error)
{
  mxlFabricsTargetInfo info = NULL;
  char *reason = NULL;
  uint64_t v = 0;

  if (mxlFabricsExtTargetInfoParse (json, &info, &reason) != MXL_STATUS_OK) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "malformed TargetInfo (%s): give the src's target-info or @ its "
        "target-info-file", reason ? reason : "not the document an MXL "
        "Fabrics target publishes");
    free (reason);
    return FALSE;
  }
  mxlFabricsExtTargetInfoGetId (info, &v);
  mxlFabricsFreeTargetInfo (info);
  if (id)
    *id = v;
  return TRUE;
}

gboolean
gst_mxl_fabrics_sink_check_target_info (const gchar * json,
    const GstMxlFabricsFormat * fmt, GError ** error)
{
  GstMxlFabricsFormat target_fmt;
  GError *flow_error = NULL, *mismatch = NULL;
  mxlFabricsTargetInfo info = NULL;
  const char *def = NULL;
  gboolean ok = TRUE;

  if (!gst_mxl_fabrics_sink_target_info_id (json, NULL, error))
    return FALSE;
  if (fmt == NULL)
    return TRUE;
  if (mxlFabricsExtTargetInfoParse (json, &info, NULL) == MXL_STATUS_OK)
    mxlFabricsExtTargetInfoGetFlowDef (info, &def);
  if (def == NULL) {
    /* a target that does not say: trust it */
  } else if (!gst_mxl_fabrics_format_from_flow_def (def, &target_fmt, NULL,
          &flow_error)) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "the TargetInfo carries an invalid flow definition: %s",
        flow_error->message);
    ok = FALSE;
  } else if (!gst_mxl_fabrics_format_check_match (fmt, &target_fmt,
          &mismatch)) {
    g_set_error (error, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
        "the caps do not match the target's flow: %s; give the sink caps "
        "equal to the src's", mismatch->message);
    ok = FALSE;
  }
  g_clear_error (&flow_error);
  g_clear_error (&mismatch);
  if (info)
    mxlFabricsFreeTargetInfo (info);
  return ok;
}

/* A TargetInfo naming a provider this library does not know is accepted
 * (the reference maps it to "any", wire spec §1.4 step 8); the sink says
 * so, and which provider it sends with. */
static void
warn_unknown_provider (GstMxlFabricsSink * self, Conn * c,
    GPtrArray * notices)
{
  mxlFabricsProvider named = MXL_FABRICS_PROVIDER_ANY;
  const char *name = NULL;
  char ours[32] = "";
  size_t size = sizeof ours;

  if (mxlFabricsExtTargetInfoGetProvider (c->info, &named, &name) !=
      MXL_STATUS_OK || named != MXL_FABRICS_PROVIDER_ANY)
    return;
  if (mxlFabricsProviderToString (self->provider, ours, &size) !=
      MXL_STATUS_OK)
    g_strlcpy (ours, "?", sizeof ours);
  add_problem (notices, GST_MESSAGE_WARNING, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS,
      g_strdup_printf ("the TargetInfo of target %s names provider \"%s\", "
          "which this library does not know: accepted (as by the MXL "
          "reference, it counts as \"any\"); this sink sends with provider "
          "%s", c->id_str, name ? name : "", ours), c->value);
}

/* Puts @c's TargetInfo on the initiator. */
static void
conn_add (GstMxlFabricsSink * self, Conn * c, GPtrArray * notices)
{
  GError *error = NULL;
  mxlStatus st;

  /* named by its id in what follows, failures included */
  if (gst_mxl_fabrics_sink_target_info_id (c->json, &c->id, NULL))
    g_snprintf (c->id_str, sizeof c->id_str, "%" G_GUINT64_FORMAT, c->id);
  if (!gst_mxl_fabrics_sink_check_target_info (c->json, &self->format,
          &error)) {
    conn_fail (self, c, error, notices);
    return;
  }
  mxlFabricsTargetInfoFromString (c->json, &c->info);
  mxlFabricsExtTargetInfoGetId (c->info, &c->id);
  g_snprintf (c->id_str, sizeof c->id_str, "%" G_GUINT64_FORMAT, c->id);
  warn_unknown_provider (self, c, notices);
  st = mxlFabricsInitiatorAddTarget (self->initiator, c->info);
  if (st != MXL_STATUS_OK) {
    conn_fail (self, c, g_error_new (GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_SETTINGS, "cannot add target %s (%s): %s",
            c->id_str,
            gst_mxl_fabrics_status_name (st), st == MXL_ERR_EXISTS ?
            "the same TargetInfo is given twice" :
            st == MXL_ERR_UNSUPPORTED_OPERATION ? "the receiver expects a "
            "transfer protocol this sender cannot speak (its TargetInfo's "
            "ext.protocol; set the same options protocol on both elements, "
            "or none)" : "the TargetInfo does not "
            "fit this sink (another provider's address, a flow of another "
            "geometry, or an audio target for video)"), notices);
    mxlFabricsFreeTargetInfo (c->info);
    c->info = NULL;
    return;
  }
  c->lost = FALSE;
  c->refused = 0;
  c->seen_skipped = c->seen_dropped = 0;        /* a new initiator target */
  set_conn_state (self, c, GST_MXL_FABRICS_CONNECTION_CONNECTING,
      "target added", notices);
}

static void
conn_remove (GstMxlFabricsSink * self, Conn * c, const gchar * reason,
    GPtrArray * notices)
{
  if (c->info == NULL)
    return;
  mxlFabricsInitiatorRemoveTarget (self->initiator, c->info);
  mxlFabricsFreeTargetInfo (c->info);
  c->info = NULL;
  set_conn_state (self, c, GST_MXL_FABRICS_CONNECTION_DISCONNECTED, reason,
      notices);
}

/* New contents of an @path file (rewritten by a restarted src). */
static void
conn_check_file (GstMxlFabricsSink * self, Conn * c, gint64 now,
    GPtrArray * notices)
{
  gchar *text = NULL;
  GError *error = NULL;

  if (c->path == NULL || (c->monitor ? !c->file_dirty :
          now - c->file_checked_us < GST_MXL_FABRICS_SINK_FILE_CHECK_MS * 1000))
    return;
  c->file_checked_us = now;
  c->file_dirty = FALSE;
  /* the library reads the file (bounded) and gives it back in one form */
  if (!gst_mxl_fabrics_target_info_resolve (c->value, NULL, &text, NULL,
          &error)) {
    if (c->failed) {
      g_error_free (error);     /* said once; wait for the next change */
      return;
    }
    conn_remove (self, c, "TargetInfo file changed", notices);
    conn_fail (self, c, error, notices);
    return;
  }
  if (text == NULL)
    return;                     /* not there (yet, or any more): keep waiting */
  if (g_strcmp0 (text, c->json) == 0) {
    g_free (text);
    return;
  }
  if (c->info) {
    conn_remove (self, c, "TargetInfo file changed", notices);
    c->reconnects++;
    GST_OBJECT_LOCK (self);
    self->obj->counters.reconnects++;
    GST_OBJECT_UNLOCK (self);
  }
  g_free (c->json);
  c->json = text;
  c->failed = FALSE;
  g_clear_error (&c->error);
  c->attempts = 0;
  GST_INFO_OBJECT (self, "TargetInfo file %s (re)read", c->path);
}

static void
conn_tick (GstMxlFabricsSink * self, Conn * c, gint64 now,
    gboolean auto_reconnect, GPtrArray * notices)
{
  conn_check_file (self, c, now, notices);
  if (c->failed || c->json == NULL)
    return;
  if (c->info == NULL) {
    conn_add (self, c, notices);
  } else if (c->lost && auto_reconnect && now >= c->retry_at_us) {
    /* Re-adding a lost target makes the initiator reconnect. */
    if (mxlFabricsInitiatorAddTarget (self->initiator, c->info) ==
        MXL_STATUS_OK) {
      c->lost = FALSE;
      c->reconnects++;
      GST_OBJECT_LOCK (self);
      self->obj->counters.reconnects++;
      GST_OBJECT_UNLOCK (self);
      set_conn_state (self, c, GST_MXL_FABRICS_CONNECTION_CONNECTING,
          "reconnecting", notices);
    } else {
      c->retry_at_us = now + GST_MXL_FABRICS_SINK_RETRY_MAX_MS * 1000;
    }
  }
}

static Conn *
find_conn_by_id (GstMxlFabricsSink * self, guint64 id)
{
  guint i;

  for (i = 0; i < self->conns->len; i++) {
    Conn *c = g_ptr_array_index (self->conns, i);
    if (c->info && c->id == id)
      return c;
  }
  return NULL;
}

/* Why a connection was lost, in words (the event's reason status). */
static const gchar *
lost_why (mxlStatus reason)
{
  switch (reason) {
    case MXL_ERR_INTERRUPTED:
      return "the receiver stopped or closed the connection";
    case MXL_ERR_NOT_READY:
      return "the receiver stopped answering";
    case MXL_ERR_OUT_OF_RANGE_TOO_LATE:
      return "it fell a whole ring behind the stream, its receiver or the "
          "network is slower than the stream; the other targets were not "
          "held up";
    case MXL_ERR_CONFLICT:
      /* a claim lapsed (this sender was silent) and another took over */
      return "the receiver already has a sender now";
    default:
      return gst_mxl_fabrics_status_name (reason);
  }
}

static void
poll_events (GstMxlFabricsSink * self, gboolean auto_reconnect,
    GPtrArray * notices)
{
  mxlFabricsExtConnectionEvent ev;

  while (mxlFabricsExtInitiatorPollEvent (self->initiator, &ev) ==
      MXL_STATUS_OK) {
    Conn *c = find_conn_by_id (self, ev.targetId);
    gchar *reason;

    if (c == NULL)
      continue;                 /* a target we removed meanwhile */
    reason = ev.reason == MXL_STATUS_OK ?
        g_strdup (mxlFabricsExtConnectionStateName (ev.current)) :
        g_strdup_printf ("%s (%s)", mxlFabricsExtConnectionStateName
        (ev.current), gst_mxl_fabrics_status_name (ev.reason));
    switch (ev.current) {
      case MXL_FABRICS_EXT_STATE_IDLE:
        /* The receiver refused this sender because it has one: said at
         * once (not a reachability problem). Retries go on, so this sink
         * takes over when the other sender stops. */
        if (ev.reason == MXL_ERR_CONFLICT) {
          if (!c->taken)
            add_problem (notices, GST_MESSAGE_WARNING, GST_RESOURCE_ERROR,
                GST_RESOURCE_ERROR_BUSY,
                g_strdup_printf ("target %s refused this sender: the "
                    "receiver already has a sender (one sender per "
                    "receiver unless its options allow more). Still "
                    "trying", c->id_str), c->value);
          c->taken = TRUE;
        }
        /* An attempt failed (refused, unreachable, timed out): said once,
         * after a few in a row, so that a stale TargetInfo or a receiver
         * that is not running does not go unnoticed. Retries go on. */
        else if (ev.reason != MXL_STATUS_OK
            && ++c->refused == GST_MXL_FABRICS_SINK_UNREACHABLE_WARN)
          add_problem (notices, GST_MESSAGE_WARNING, GST_RESOURCE_ERROR,
              GST_RESOURCE_ERROR_OPEN_WRITE,
              g_strdup_printf ("target %s not reachable after %u attempts "
                  "(%s): is its receiver running, and is this its current "
                  "TargetInfo? Still trying", c->id_str, c->refused,
                  ev.reason == MXL_ERR_NOT_READY ? "timed out" :
                  "refused or failed"), c->value);
        /* fall through */
      case MXL_FABRICS_EXT_STATE_CONNECTING:
        if (c->state != GST_MXL_FABRICS_CONNECTION_CONNECTING)
          set_conn_state (self, c, GST_MXL_FABRICS_CONNECTION_CONNECTING,
              reason, notices);
        break;
      case MXL_FABRICS_EXT_STATE_CONNECTED:
        c->attempts = 0;
        c->refused = 0;
        c->taken = FALSE;
        set_conn_state (self, c, GST_MXL_FABRICS_CONNECTION_CONNECTED, reason,
            notices);
        break;
      case MXL_FABRICS_EXT_STATE_LOST:{
        guint delay = MIN (GST_MXL_FABRICS_SINK_RETRY_FIRST_MS << MIN
            (c->attempts, 8u), GST_MXL_FABRICS_SINK_RETRY_MAX_MS);

        c->lost = TRUE;
        c->attempts++;
        c->retry_at_us = g_get_monotonic_time () + (gint64) delay * 1000;
        set_conn_state (self, c, GST_MXL_FABRICS_CONNECTION_DISCONNECTED,
            reason, notices);
        if (auto_reconnect)
          add_problem (notices, GST_MESSAGE_WARNING, GST_RESOURCE_ERROR,
              GST_RESOURCE_ERROR_WRITE,
              g_strdup_printf ("connection to target %s lost (%s): "
                  "reconnecting in %u ms", c->id_str, lost_why (ev.reason), delay),
              c->value);
        else
          conn_fail (self, c, g_error_new (GST_RESOURCE_ERROR,
                  GST_RESOURCE_ERROR_WRITE, "connection lost (%s) and "
                  "auto-reconnect is off", lost_why (ev.reason)), notices);
        break;
      }
      default:
        break;
    }
    g_free (reason);
  }
}

static void
on_file_changed (GFileMonitor * monitor, GFile * file, GFile * other,
    GFileMonitorEvent event, gpointer data)
{
  Conn *c = data;
  GstMxlFabricsSink *self = g_object_get_data (G_OBJECT (monitor),
      "mxl-sink");

  /* dispatched by the engine thread between passes: the lock is free */
  g_mutex_lock (&self->obj->lock);
  c->file_dirty = TRUE;
  g_mutex_unlock (&self->obj->lock);
}

/* Watches @c's @path file (inotify through GFileMonitor, its events
 * dispatched by the engine thread): a file that appears or is rewritten is
 * read at once. Where no monitor can be made, the file is re-read every
 * GST_MXL_FABRICS_SINK_FILE_CHECK_MS (conn_check_file). */
static void
watch_file (GstMxlFabricsSink * self, Conn * c)
{
  GFile *file = g_file_new_for_path (c->path);
  GError *error = NULL;

  c->monitor = g_file_monitor_file (file, G_FILE_MONITOR_NONE, NULL, &error);
  g_object_unref (file);
  if (c->monitor == NULL) {
    GST_INFO_OBJECT (self, "cannot watch %s (%s): re-read every %d ms",
        c->path, error->message, GST_MXL_FABRICS_SINK_FILE_CHECK_MS);
    g_error_free (error);
    return;
  }
  g_file_monitor_set_rate_limit (c->monitor, 0);
  g_object_set_data (G_OBJECT (c->monitor), "mxl-sink", self);
  g_signal_connect (c->monitor, "changed", G_CALLBACK (on_file_changed), c);
  /* written between the first read and the watch: read again once */
  c->file_dirty = TRUE;
}

/* Brings the connections in line with the requested targets. */
static void
reconcile (GstMxlFabricsSink * self, GPtrArray * notices)
{
  GPtrArray *values = g_ptr_array_new_with_free_func (g_free);
  guint i, j;

  GST_OBJECT_LOCK (self);
  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    g_ptr_array_add (values, g_strdup (t->value));
  }
  GST_OBJECT_UNLOCK (self);

  for (i = self->conns->len; i-- > 0;) {
    Conn *c = g_ptr_array_index (self->conns, i);
    gboolean wanted = FALSE;
    for (j = 0; j < values->len && !wanted; j++)
      wanted = g_strcmp0 (c->value, g_ptr_array_index (values, j)) == 0;
    if (!wanted) {
      conn_remove (self, c, "target removed", notices);
      gst_mxl_fabrics_object_set_target_stats (self->obj, c->value, NULL);
      g_ptr_array_remove_index (self->conns, i);
    }
  }
  for (j = 0; j < values->len; j++) {
    const gchar *v = g_ptr_array_index (values, j);
    gboolean have = FALSE;
    GError *error = NULL;
    Conn *c;

    for (i = 0; i < self->conns->len && !have; i++)
      have = g_strcmp0 (((Conn *) g_ptr_array_index (self->conns, i))->value,
          v) == 0;
    if (have)
      continue;
    c = g_new0 (Conn, 1);
    c->value = g_strdup (v);
    c->state = GST_MXL_FABRICS_CONNECTION_DISCONNECTED;
    if (!gst_mxl_fabrics_target_info_resolve (v, NULL, &c->json, &c->path,
            &error)) {
      g_ptr_array_add (self->conns, c);
      conn_fail (self, c, error, notices);
      continue;
    }
    /* in the list first: the element's state is made of the list's */
    g_ptr_array_add (self->conns, c);
    if (c->json == NULL) {
      /* An @path file still to come: connecting as far as users see. */
      set_conn_state (self, c, GST_MXL_FABRICS_CONNECTION_CONNECTING,
          "waiting for the TargetInfo file", notices);
    }
    c->file_checked_us = g_get_monotonic_time ();
    if (c->path)
      watch_file (self, c);
  }
  g_ptr_array_unref (values);
}

/* "target <id> (@path)": how messages name a target. */
static gchar *
conn_name (const Conn * c)
{
  return c->path ? g_strdup_printf ("target %s (@%s)", c->id_str, c->path) :
      g_strdup_printf ("target %s", c->id_str);
}

/* A WARNING when @c lost grains because it was behind, at most one per
 * GST_MXL_FABRICS_SINK_BEHIND_WARN_MS per target. */
static void
check_behind (Conn * c, gint64 now, GPtrArray * notices)
{
  gchar *name;

  if (c->behind_drops == c->behind_warned || (c->behind_warned_us != 0
          && now - c->behind_warned_us <
          GST_MXL_FABRICS_SINK_BEHIND_WARN_MS * 1000))
    return;
  name = conn_name (c);
  add_problem (notices, GST_MESSAGE_WARNING, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_WRITE,
      g_strdup_printf ("%s is falling behind: %" G_GUINT64_FORMAT " grains "
          "not sent to it (%" G_GUINT64_FORMAT " since the last warning); its "
          "receiver or the network is slower than the stream. The other "
          "targets are not held up", name, c->behind_drops,
          c->behind_drops - c->behind_warned), c->value);
  c->behind_warned = c->behind_drops;
  c->behind_warned_us = now;
  g_free (name);
}

static void
update_stats (GstMxlFabricsSink * self, gint64 now, GPtrArray * notices)
{
  mxlFabricsExtInitiatorStats is;
  guint i;

  for (i = 0; i < self->conns->len; i++) {
    Conn *c = g_ptr_array_index (self->conns, i);
    check_behind (c, now, notices);
    gst_mxl_fabrics_object_set_target_stats (self->obj, c->value,
        gst_structure_new ("target", "source", G_TYPE_STRING, c->value,
            "target-id", G_TYPE_STRING, c->id_str,
            "state", GST_TYPE_MXL_FABRICS_CONNECTION_STATE, c->state,
            "grains", G_TYPE_UINT64, c->grains,
            "bytes", G_TYPE_UINT64, c->bytes,
            "dropped", G_TYPE_UINT64, c->dropped,
            "reconnects", G_TYPE_UINT64, c->reconnects, NULL));
  }
  if (self->initiator == NULL
      || mxlFabricsExtInitiatorGetStats (self->initiator, &is) != MXL_STATUS_OK)
    return;
  gst_mxl_fabrics_object_set_engine_stats (self->obj,
      GST_MXL_FABRICS_STATS_INITIATOR, &is);
}

static void
post_notices (GstMxlFabricsSink * self, GPtrArray * notices)
{
  guint i;

  for (i = 0; i < notices->len; i++) {
    Notice *n = g_ptr_array_index (notices, i);

    switch (n->type) {
      case GST_MESSAGE_ERROR:
        gst_mxl_fabrics_object_post_error (self->obj, n->error, n->debug);
        break;
      case GST_MESSAGE_WARNING:
        gst_mxl_fabrics_object_set_last_error (self->obj, n->error->message);
        gst_element_post_message (GST_ELEMENT (self),
            gst_message_new_warning (GST_OBJECT (self), n->error, n->debug));
        break;
      default:
        gst_mxl_fabrics_object_post_target_change (self->obj, n->state,
            n->target_id, n->target_state, n->reason);
        break;
    }
  }
}

/* Transfers posted and neither completed nor dropped yet, all targets. */
static gboolean
transfers_in_flight (mxlFabricsInitiator initiator)
{
  mxlFabricsExtInitiatorStats st = {.version = MXL_FABRICS_API_VERSION };

  return mxlFabricsExtInitiatorGetStats (initiator, &st) == MXL_STATUS_OK
      && st.transfersQueued > st.transfersCompleted + st.transfersDropped;
}

/* Whether a connection attempt is under way (connecting, not idle until a
 * retry): its completion (tcp: FI_CONNECTED on the EQ) is only seen when
 * the engine thread progresses the initiator. */
static gboolean
any_connecting (GstMxlFabricsSink * self)
{
  guint i;

  for (i = 0; i < self->conns->len; i++) {
    Conn *c = g_ptr_array_index (self->conns, i);
    mxlFabricsExtConnectionState st;

    if (c->info && c->state == GST_MXL_FABRICS_CONNECTION_CONNECTING
        && mxlFabricsExtInitiatorGetTargetState (self->initiator, c->info,
            &st) == MXL_STATUS_OK && st == MXL_FABRICS_EXT_STATE_CONNECTING)
      return TRUE;
  }
  return FALSE;
}

/* The soonest time a pass is due without any event (µs, monotonic): the
 * stats refresh, a lost target's re-add, an @path file without a monitor;
 * without the library's progress thread, the next progress tick. */
static gint64
next_due (GstMxlFabricsSink * self, gint64 now, gint64 stats_at,
    gboolean busy, gboolean active, gboolean auto_reconnect)
{
  gint64 due = stats_at + GST_MXL_FABRICS_SINK_STATS_MS * 1000;
  guint i;

  /* at rest (nothing in flight, no attempt under way) the stats refresh
   * is the tick: it still sees a lost connection within 100 ms */
  if (!self->threaded && (busy || active))
    due = MIN (due, now + (busy ? GST_MXL_FABRICS_SINK_BUSY_TICK_US :
            GST_MXL_FABRICS_SINK_TICK_MS * 1000));
  for (i = 0; i < self->conns->len; i++) {
    Conn *c = g_ptr_array_index (self->conns, i);

    if (c->lost && auto_reconnect && !c->failed)
      due = MIN (due, c->retry_at_us);
    if (c->path && c->monitor == NULL)
      due = MIN (due, c->file_checked_us +
          GST_MXL_FABRICS_SINK_FILE_CHECK_MS * 1000);
  }
  return MAX (due, now);
}

static gboolean
on_wake (gint fd, GIOCondition condition, gpointer data)
{
  guint64 v;

  while (read (fd, &v, sizeof v) < 0 && errno == EINTR);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_due (gpointer data)
{
  return G_SOURCE_REMOVE;
}

/* The library's notify (mxlFabricsExtInitiatorSetNotify): the initiator's
 * lock is held, so it only writes the eventfd. */
static void
notify_engine (void *data)
{
  gst_mxl_fabrics_sink_engine_wake (data);
}

/* The engine thread waits on events, it does not tick: the eventfd (the
 * library's notify: a connection event or a pass of its progress thread
 * that did work; add-target, remove-target, caps, stop), the @path file
 * monitors, and the next thing due (next_due: at rest the 100 ms stats
 * refresh). Without the library's progress thread (options
 * "progressThread": false) it also drives progress every tick. */
static gpointer
engine_thread (gpointer data)
{
  GstMxlFabricsSink *self = data;
  GPtrArray *notices = g_ptr_array_new_with_free_func ((GDestroyNotify)
      notice_free);
  GMainContext *ctx = g_main_context_new ();
  GSource *wake = g_unix_fd_source_new (self->engine_wake_fd, G_IO_IN);
  gint64 stats_at = 0, connecting_since = 0;
  mxlFabricsInitiator notified = NULL;

  g_main_context_push_thread_default (ctx);
  g_source_set_callback (wake, G_SOURCE_FUNC (on_wake), NULL, NULL);
  g_source_attach (wake, ctx);
  g_mutex_lock (&self->obj->lock);
  while (!self->engine_quit) {
    gint64 now = g_get_monotonic_time ();
    gboolean auto_reconnect;
    gboolean busy = FALSE, active = FALSE;
    gint64 wait_us;

    GST_OBJECT_LOCK (self);
    auto_reconnect = self->auto_reconnect;
    GST_OBJECT_UNLOCK (self);
    if (self->initiator) {
      guint i;

      if (notified != self->initiator) {
        notified = self->initiator;
        mxlFabricsExtInitiatorSetNotify (notified, notify_engine, self);
      }
      reconcile (self, notices);
      for (i = 0; i < self->conns->len; i++)
        conn_tick (self, g_ptr_array_index (self->conns, i), now,
            auto_reconnect, notices);
      active = self->n_connected > 0 && transfers_in_flight (self->initiator);
      busy = mxlFabricsInitiatorMakeProgressNonBlocking (self->initiator)
          == MXL_ERR_NOT_READY && active;
      poll_events (self, auto_reconnect, notices);
      check_all_failed (self, notices);
      /* Without the progress thread: a connection attempt under way is
       * ticked at the busy period for its first
       * GST_MXL_FABRICS_SINK_CONNECT_FAST_MS, so that the connection (and
       * a render waiting for it) does not wait up to a whole tick; an
       * attempt that takes longer (an unreachable host) is ticked at the
       * normal period. */
      if (!any_connecting (self))
        connecting_since = 0;
      else if (connecting_since == 0)
        connecting_since = now;
      if (connecting_since != 0
          && now - connecting_since < GST_MXL_FABRICS_SINK_CONNECT_FAST_MS * 1000)
        busy = TRUE;
      if (connecting_since != 0 || self->lender.held > 0)
        active = TRUE;
      /* Lent buffers go back upstream as soon as their writes completed. */
      if (self->lender.held > 0)
        gst_mxl_fabrics_lender_reclaim (&self->lender, self->initiator);
      if (now - stats_at >= GST_MXL_FABRICS_SINK_STATS_MS * 1000) {
        stats_at = now;
        update_stats (self, now, notices);
      }
    }
    if (notices->len > 0) {
      g_mutex_unlock (&self->obj->lock);
      post_notices (self, notices);
      g_ptr_array_set_size (notices, 0);
      g_mutex_lock (&self->obj->lock);
      continue;
    }
    /* While writes are in flight without the progress thread, progress
     * often: tcp sends a grain in pieces as the socket drains, and shm
     * sees its delivery completions, only when progressed. */
    wait_us = next_due (self, now, stats_at, busy, active, auto_reconnect)
        - now;
    g_mutex_unlock (&self->obj->lock);
    if (wait_us < 1000) {
      /* below the main loop's millisecond: the eventfd alone, then what
       * the monitors have */
      struct pollfd pfd = {.fd = self->engine_wake_fd,.events = POLLIN };
      struct timespec ts = { 0, (long) wait_us * 1000 };

      ppoll (&pfd, 1, &ts, NULL);
      while (g_main_context_iteration (ctx, FALSE));
    } else {
      GSource *due = g_timeout_source_new ((guint) ((wait_us + 999) / 1000));

      g_source_set_callback (due, on_due, NULL, NULL);
      g_source_attach (due, ctx);
      /* one wake-up: the eventfd, a file monitor, or the due time */
      g_main_context_iteration (ctx, TRUE);
      g_source_destroy (due);
      g_source_unref (due);
    }
    g_mutex_lock (&self->obj->lock);
  }
  if (notified)
    mxlFabricsExtInitiatorSetNotify (notified, NULL, NULL);
  /* the monitors belong to this thread's context */
  g_ptr_array_set_size (self->conns, 0);
  g_mutex_unlock (&self->obj->lock);
  g_source_destroy (wake);
  g_source_unref (wake);
  g_main_context_pop_thread_default (ctx);
  g_main_context_unref (ctx);
  g_ptr_array_unref (notices);
  return NULL;
}

void
gst_mxl_fabrics_sink_engine_start (GstMxlFabricsSink * self)
{
  GST_DEBUG_CATEGORY_INIT (sink_conn_debug, "mxlfabricssinkconn", 0,
      "mxlfabricssink connections");
  g_mutex_lock (&self->obj->lock);
  self->engine_quit = FALSE;
  self->all_failed_posted = FALSE;
  self->obj->flushing = FALSE;
  self->n_connected = 0;
  if (self->conns == NULL)
    self->conns = g_ptr_array_new_with_free_func ((GDestroyNotify) conn_free);
  g_mutex_unlock (&self->obj->lock);
  self->engine_wake_fd = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC);
  g_assert (self->engine_wake_fd >= 0);
  self->engine_thread = g_thread_new ("mxlfabricssink", engine_thread, self);
}

void
gst_mxl_fabrics_sink_engine_stop (GstMxlFabricsSink * self)
{
  if (self->engine_thread) {
    g_mutex_lock (&self->obj->lock);
    self->engine_quit = TRUE;
    g_mutex_unlock (&self->obj->lock);
    gst_mxl_fabrics_sink_engine_wake (self);
    g_thread_join (self->engine_thread);
    self->engine_thread = NULL;
  }
  if (self->engine_wake_fd >= 0)
    close (self->engine_wake_fd);
  self->engine_wake_fd = -1;
  g_mutex_lock (&self->obj->lock);
  if (self->conns)
    g_ptr_array_set_size (self->conns, 0);
  if (self->initiator)
    mxlFabricsDestroyInitiator (self->flow.fabrics, self->initiator);
  self->initiator = NULL;
  self->n_connected = 0;
  g_mutex_unlock (&self->obj->lock);
}

void
gst_mxl_fabrics_sink_engine_wake (GstMxlFabricsSink * self)
{
  guint64 one = 1;

  /* a full counter (never) only means it is readable already */
  if (self->engine_wake_fd >= 0
      && write (self->engine_wake_fd, &one, sizeof one) < 0 && errno != EAGAIN)
    GST_WARNING_OBJECT (self, "eventfd write: %s", g_strerror (errno));
}

void
gst_mxl_fabrics_sink_engine_count_transfer (GstMxlFabricsSink * self,
    gsize bytes)
{
  guint i;

  for (i = 0; i < self->conns->len; i++) {
    Conn *c = g_ptr_array_index (self->conns, i);
    mxlFabricsExtInitiatorTargetStats ts = {.version =
          MXL_FABRICS_API_VERSION };
    guint64 skipped = 0, dropped = 0;

    if (c->state != GST_MXL_FABRICS_CONNECTION_CONNECTED) {
      if (c->info)
        c->dropped++;           /* added, but not connected (yet, again) */
      continue;
    }
    /* The initiator did not queue the grain on a target that is behind,
     * and dropped queued ones whose slot came up again: its own loss. */
    if (c->info && mxlFabricsExtInitiatorGetTargetStats (self->initiator,
            c->info, &ts) == MXL_STATUS_OK) {
      skipped = ts.grainsSkipped - MIN (c->seen_skipped, ts.grainsSkipped);
      dropped = ts.transfersDropped - MIN (c->seen_dropped,
          ts.transfersDropped);
      c->seen_skipped = ts.grainsSkipped;
      c->seen_dropped = ts.transfersDropped;
    }
    if (skipped == 0) {
      c->grains++;
      c->bytes += bytes;
    }
    dropped = MIN (dropped, c->grains);
    c->grains -= dropped;
    c->bytes -= MIN (c->bytes, dropped * bytes);
    c->dropped += skipped + dropped;
    c->behind_drops += skipped + dropped;
  }
}

void
gst_mxl_fabrics_sink_engine_count_dropped (GstMxlFabricsSink * self)
{
  guint i;

  for (i = 0; self->conns && i < self->conns->len; i++) {
    Conn *c = g_ptr_array_index (self->conns, i);
    if (c->info)
      c->dropped++;
  }
}
