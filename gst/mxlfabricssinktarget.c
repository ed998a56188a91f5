/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sink's targets: one list, one lock; their states and the one
 * transition function are in sinktargetstate.c (its table of allowed
 * moves); see mxlfabricssinktarget.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mxlfabricssinktarget.h"
#include "mxlfabricssinkconn.h"
#include "sinktargetfile.h"
#include "sinkcaps.h"
#include "sinktargeturl.h"

#include <stdlib.h>
#include <string.h>

GST_DEBUG_CATEGORY_EXTERN (mxl_fabrics_sink_conn_debug);
#define GST_CAT_DEFAULT mxl_fabrics_sink_conn_debug

#define add_problem gst_mxl_fabrics_sink_notice_problem
#define LOCK(self) g_mutex_lock (&(self)->obj->lock)
#define UNLOCK(self) g_mutex_unlock (&(self)->obj->lock)

void
gst_mxl_fabrics_sink_target_free (GstMxlFabricsSinkTarget * t)
{
  gst_mxl_fabrics_sink_target_unwatch (t);
  gst_mxl_fabrics_sink_fetch_free (t->fetch);
  g_free (t->value);
  g_free (t->path);
  g_free (t->json);
  if (t->parsed)
    mxlFabricsFreeTargetInfo (t->parsed);
  gst_mxl_fabrics_sink_target_state_clear (&t->state);
  g_free (t);
}

mxlFabricsTargetInfo
gst_mxl_fabrics_sink_parse_target_info (const gchar * json, GError ** error)
{
  mxlFabricsTargetInfo info = NULL;
  char *reason = NULL;

  if (mxlFabricsExtTargetInfoParse (json, &info, &reason) != MXL_STATUS_OK) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "malformed TargetInfo (%s): give the src's target-info or @ its "
        "target-info-file", reason ? reason : "not the document an MXL "
        "Fabrics target publishes");
    free (reason);
    return NULL;
  }
  return info;
}

gboolean
gst_mxl_fabrics_sink_check_target_flow (mxlFabricsTargetInfo info,
    const GstMxlFabricsFormat * fmt, GError ** error)
{
  GstMxlFabricsFormat target_fmt;
  GError *flow_error = NULL, *mismatch = NULL;
  const char *def = NULL;
  gboolean ok = TRUE;

  if (mxlFabricsExtTargetInfoGetFlowDef (info, &def) != MXL_STATUS_OK) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "the library cannot read the TargetInfo's flow definition");
    ok = FALSE;
  } else if (def == NULL) {
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
  return ok;
}

static void
set_kind (GstMxlFabricsSink * self, GstMxlFabricsSinkTarget * t,
    GstMxlFabricsSinkTargetKind kind, const gchar * reason,
    GPtrArray * notices)
{
  GstMxlFabricsSinkTargetState s = {.kind = kind };

  gst_mxl_fabrics_sink_target_set_state (self, t, &s, reason, notices);
}

/* A target failed: WARNING, its own state error; the others go on (the
 * element's ERROR comes only from check_all_failed). Takes @error. */
static void
target_fail (GstMxlFabricsSink * self, GstMxlFabricsSinkTarget * t,
    GError * error, GPtrArray * notices)
{
  GstMxlFabricsSinkTargetState s = {.kind = GST_MXL_FABRICS_SINK_TARGET_FAILED,
    .u.failed.error = error
  };

  gst_mxl_fabrics_sink_target_set_state (self, t, &s, NULL, notices);
}

void
gst_mxl_fabrics_sink_targets_check_all_failed (GstMxlFabricsSink * self,
    GPtrArray * notices)
{
  const GError *last = NULL;
  gboolean want;
  guint i;

  GST_OBJECT_LOCK (self);
  want = self->error_on_all_failed;
  GST_OBJECT_UNLOCK (self);
  if (!want || self->all_failed_posted || self->targets->len == 0)
    return;
  /* failed for good: a followed @path file may still be rewritten, a URL
   * answer another document */
  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    if (t->state.kind != GST_MXL_FABRICS_SINK_TARGET_FAILED || t->path
        || t->fetch)
      return;
    last = t->state.u.failed.error;
  }
  self->all_failed_posted = TRUE;
  add_problem (notices, GST_MESSAGE_ERROR, last->domain, last->code,
      g_strdup_printf ("%s (no target left that can receive this stream)",
          last->message), NULL);
}

gboolean
gst_mxl_fabrics_sink_targets_add (GstMxlFabricsSink * self,
    const gchar * value, GError ** error)
{
  GstMxlFabricsSinkTarget *target;
  mxlFabricsTargetInfo parsed = NULL;
  gchar *json = NULL, *path = NULL;
  GstMxlFabricsSinkFetch *fetch = NULL;
  guint64 id = 0;
  guint i;

  /* an http:// URL is fetched by the engine thread (sinktargeturl.h) */
  if (gst_mxl_fabrics_sink_fetch_is_url (value)) {
    if (!(fetch = gst_mxl_fabrics_sink_fetch_new (value, error)))
      return FALSE;
  } else if (!gst_mxl_fabrics_target_info_resolve_parsed (value, NULL, &json,
          &path, &id, &parsed, error))
    return FALSE;

  LOCK (self);
  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    if (g_strcmp0 (t->value, value) == 0
        || (json && t->have_id && t->id == id)) {
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY,
          "this TargetInfo (target %" G_GUINT64_FORMAT ") was already added"
          "%s%s", id, t->path ? " as @" : "", t->path ? t->path : "");
      UNLOCK (self);
      if (parsed)
        mxlFabricsFreeTargetInfo (parsed);
      g_free (json);
      g_free (path);
      gst_mxl_fabrics_sink_fetch_free (fetch);
      return FALSE;
    }
  }
  target = g_new0 (GstMxlFabricsSinkTarget, 1);
  target->value = g_strdup (value);
  target->json = json;
  target->parsed = parsed;
  target->path = path;
  target->fetch = fetch;
  target->have_id = json != NULL;
  target->id = id;
  target->state.kind = GST_MXL_FABRICS_SINK_TARGET_IDLE;   /* a new one */
  target->file_checked_us = g_get_monotonic_time ();
  gst_mxl_fabrics_sink_caps_read_target (self, target);
  g_ptr_array_add (self->targets, target);
  UNLOCK (self);
  /* The engine thread puts it on the initiator (a file target once the
   * file appears). */
  gst_mxl_fabrics_sink_engine_wake (self);
  return TRUE;
}

/* Off the initiator, which would retry it; the move out of the
 * on-initiator state that follows frees the TargetInfo. */
static void
drop_info (GstMxlFabricsSink * self, GstMxlFabricsSinkTarget * t)
{
  mxlFabricsInitiatorRemoveTarget (self->initiator,
      gst_mxl_fabrics_sink_target_info (t));
}

/* Takes @t off the initiator: IDLE. */
static void
target_unplug (GstMxlFabricsSink * self, GstMxlFabricsSinkTarget * t,
    const gchar * reason, GPtrArray * notices)
{
  if (gst_mxl_fabrics_sink_target_info (t) == NULL)
    return;
  drop_info (self, t);
  set_kind (self, t, GST_MXL_FABRICS_SINK_TARGET_IDLE, reason, notices);
}

gboolean
gst_mxl_fabrics_sink_targets_remove (GstMxlFabricsSink * self,
    const gchar * value)
{
  GPtrArray *notices;
  gboolean found = FALSE, have_id = FALSE;
  guint64 id = 0;
  gchar *json = NULL, *path = NULL;
  guint i;

  /* Any spelling (JSON or base64) of a TargetInfo names the target of that
   * id, as add-target dedups; an @path value matches only as written (its
   * file is not read here). A value that does not resolve matches only as
   * written. */
  if (value && value[0] != '@'
      && gst_mxl_fabrics_target_info_resolve (value, NULL, &json, &path, &id,
          NULL))
    have_id = json && path == NULL;
  g_free (json);
  g_free (path);

  notices = gst_mxl_fabrics_sink_notices_new ();
  LOCK (self);
  for (i = 0; i < self->targets->len && !found; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    if (g_strcmp0 (t->value, value) != 0
        && !(have_id && t->have_id && t->id == id))
      continue;
    target_unplug (self, t, "target removed", notices);
    g_ptr_array_remove_index (self->targets, i);
    gst_mxl_fabrics_sink_targets_recount (self);
    found = TRUE;
  }
  UNLOCK (self);
  gst_mxl_fabrics_sink_notices_post (self, notices);
  g_ptr_array_unref (notices);
  return found;
}

/* A TargetInfo naming a provider this library does not know is accepted
 * (the reference maps it to "any", docs/wire-format.md §1.4 step 8); the sink says
 * so, and which provider it sends with. */
static void
warn_unknown_provider (GstMxlFabricsSink * self, GstMxlFabricsSinkTarget * t,
    mxlFabricsTargetInfo info, GPtrArray * notices)
{
  mxlFabricsProvider named = MXL_FABRICS_PROVIDER_ANY;
  const char *name = NULL;
  char ours[32] = "";
  size_t size = sizeof ours;

  if (mxlFabricsExtTargetInfoGetProvider (info, &named, &name) !=
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
          "%s", t->id_str, name ? name : "", ours),
      gst_mxl_fabrics_sink_target_shown (t));
}

/* IDLE → CONNECTING: puts @t's TargetInfo on the initiator: the one parsed
 * when it was read (t->parsed), else (plugged again) its JSON parsed; the
 * id and the checks come from that TargetInfo. */
static void
target_plug (GstMxlFabricsSink * self, GstMxlFabricsSinkTarget * t,
    GPtrArray * notices)
{
  GstMxlFabricsSinkTargetState next = {
    .kind = GST_MXL_FABRICS_SINK_TARGET_CONNECTING
  };
  mxlFabricsTargetInfo info;
  GError *error = NULL;
  mxlStatus st;

  info = t->parsed ? t->parsed :
      gst_mxl_fabrics_sink_parse_target_info (t->json, &error);
  t->parsed = NULL;             /* the state takes it, or it is freed */
  if (info == NULL) {
    target_fail (self, t, error, notices);
    return;
  }
  /* named by its id in what follows, failures included */
  if (mxlFabricsExtTargetInfoGetId (info, &t->id) != MXL_STATUS_OK) {
    mxlFabricsFreeTargetInfo (info);
    target_fail (self, t, g_error_new (GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_SETTINGS, "the library gives no id for the "
            "TargetInfo of %s", gst_mxl_fabrics_sink_target_shown (t)),
        notices);
    return;
  }
  g_snprintf (t->id_str, sizeof t->id_str, "%" G_GUINT64_FORMAT, t->id);
  if (!gst_mxl_fabrics_sink_check_target_flow (info, &self->format, &error)) {
    mxlFabricsFreeTargetInfo (info);
    target_fail (self, t, error, notices);
    return;
  }
  warn_unknown_provider (self, t, info, notices);
  st = mxlFabricsInitiatorAddTarget (self->initiator, info);
  if (st != MXL_STATUS_OK) {
    mxlFabricsFreeTargetInfo (info);
    target_fail (self, t, g_error_new (GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_SETTINGS, "cannot add target %s (%s): %s",
            t->id_str,
            gst_mxl_fabrics_status_name (st), st == MXL_ERR_EXISTS ?
            "the same TargetInfo is given twice" :
            st == MXL_ERR_UNSUPPORTED_OPERATION ? "the receiver expects a "
            "transfer protocol this sender cannot speak (its TargetInfo's "
            "ext.protocol; set the same options protocol on both elements, "
            "or none)" : "the TargetInfo does not "
            "fit this sink (another provider's address, a flow of another "
            "geometry, or an audio target for video)"), notices);
    return;
  }
  t->seen_skipped = t->seen_dropped = 0;        /* a new initiator target */
  t->seen_no_credit = 0;
  t->no_credit_now = t->credit_stalled = FALSE;
  next.u.connecting.info = info;
  gst_mxl_fabrics_sink_target_set_state (self, t, &next, "target added",
      notices);
}

static void
count_reconnect (GstMxlFabricsSink * self, GstMxlFabricsSinkTarget * t)
{
  t->counters.reconnects++;
  GST_OBJECT_LOCK (self);
  self->obj->counters.reconnects++;
  GST_OBJECT_UNLOCK (self);
}

/* Whether @t is still in the list with @value (remove-target may have
 * dropped it while the lock was free); engine_lock held. */
static gboolean
target_listed (GstMxlFabricsSink * self, GstMxlFabricsSinkTarget * t,
    const gchar * value)
{
  guint i;

  for (i = 0; i < self->targets->len; i++)
    if (g_ptr_array_index (self->targets, i) == t)
      return g_strcmp0 (t->value, value) == 0;
  return FALSE;
}

/* New contents of an @path file (rewritten by a restarted src), read by
 * target_read_files (@ok, @text, @error: what the resolver gave; @error
 * taken): the one way a failed target comes back. */
static void
target_check_file (GstMxlFabricsSink * self, GstMxlFabricsSinkTarget * t,
    gboolean ok, gchar * text, mxlFabricsTargetInfo parsed, GError * error,
    GPtrArray * notices)
{
  if (!ok) {
    if (t->state.kind == GST_MXL_FABRICS_SINK_TARGET_FAILED) {
      g_error_free (error);     /* said once; wait for the next change */
      return;
    }
    target_unplug (self, t, "TargetInfo file changed", notices);
    target_fail (self, t, error, notices);
    return;
  }
  if (text == NULL) {
    /* not there (yet, or any more): keep waiting */
    if (t->json == NULL && t->state.kind == GST_MXL_FABRICS_SINK_TARGET_IDLE)
      set_kind (self, t, GST_MXL_FABRICS_SINK_TARGET_AWAITING_FILE,
          "waiting for the TargetInfo file", notices);
    return;
  }
  gst_mxl_fabrics_sink_target_take_text (self, t, text, parsed,
      "TargetInfo file changed", notices);
}

void
gst_mxl_fabrics_sink_target_take_text (GstMxlFabricsSink * self,
    GstMxlFabricsSinkTarget * t, gchar * text, mxlFabricsTargetInfo parsed,
    const gchar * reason, GPtrArray * notices)
{
  if (g_strcmp0 (text, t->json) == 0) {
    g_free (text);
    if (parsed)
      mxlFabricsFreeTargetInfo (parsed);
    return;
  }
  if (gst_mxl_fabrics_sink_target_info (t)) {
    target_unplug (self, t, reason, notices);
    /* a target lost and retried since was counted at that retry: the
     * file of its restarted receiver is the same reconnection */
    if (t->after_loss != GST_MXL_FABRICS_SINK_LOSS_COUNTED)
      count_reconnect (self, t);
  }
  /* a new TargetInfo: its attempts warn */
  t->after_loss = GST_MXL_FABRICS_SINK_LOSS_NONE;
  g_free (t->json);
  t->json = text;
  if (t->parsed)
    mxlFabricsFreeTargetInfo (t->parsed);
  t->parsed = parsed;

  gst_mxl_fabrics_sink_caps_read_target (self, t);
  gst_mxl_fabrics_sink_targets_changed (self);  /* caps again (sinkcaps.h) */
  /* quiet: the same pass puts it on the initiator and says so */
  if (t->state.kind != GST_MXL_FABRICS_SINK_TARGET_IDLE)
    set_kind (self, t, GST_MXL_FABRICS_SINK_TARGET_IDLE, NULL, NULL);
  GST_INFO_OBJECT (self, "TargetInfo of %s (re)read",
      gst_mxl_fabrics_sink_target_shown (t));
}

/* The due @path files read without engine_lock (sinktargetfile.c), each
 * result used only for a target still listed with the same value. */
static void
target_read_files (GstMxlFabricsSink * self, GArray * reads,
    GPtrArray * notices)
{
  guint i;

  gst_mxl_fabrics_sink_targets_read_files (self, reads);
  for (i = 0; i < reads->len; i++) {
    GstMxlFabricsSinkFileRead *r =
        &g_array_index (reads, GstMxlFabricsSinkFileRead, i);

    if (target_listed (self, r->target, r->value)) {
      target_check_file (self, r->target, r->ok, r->text, r->parsed, r->error,
          notices);
      r->text = NULL;
      r->parsed = NULL;
      r->error = NULL;
    }
  }
}

void
gst_mxl_fabrics_sink_targets_tick (GstMxlFabricsSink * self,
    GPtrArray * notices)
{
  gint64 now = g_get_monotonic_time ();
  GArray *reads = NULL;
  guint i;

  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);

    if (t->path && !t->watch_tried)
      gst_mxl_fabrics_sink_target_watch_file (self, t);
    if (t->path && gst_mxl_fabrics_sink_target_file_due (t, now))
      reads = gst_mxl_fabrics_sink_file_reads_add (reads, t);
    if (t->fetch)
      gst_mxl_fabrics_sink_target_check_url (self, t, now, notices);
  }
  if (reads) {
    target_read_files (self, reads, notices);
    g_array_unref (reads);
  }
  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);

    if (t->state.kind == GST_MXL_FABRICS_SINK_TARGET_IDLE && t->json)
      target_plug (self, t, notices);
  }
}

static GstMxlFabricsSinkTarget *
find_by_id (GstMxlFabricsSink * self, guint64 id)
{
  guint i;

  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    if (gst_mxl_fabrics_sink_target_info (t) && t->id == id)
      return t;
  }
  return NULL;
}

/* A connection attempt failed (the library retries it with its back-off):
 * a refusal because the receiver has another sender is said at once, other
 * failures once after a few in a row, so that a stale TargetInfo or a
 * receiver that is not running does not go unnoticed. */
static void
warn_attempt (GstMxlFabricsSinkTarget * t, guint * refused, gboolean * taken,
    mxlStatus reason, GPtrArray * notices)
{
  if (reason == MXL_ERR_CONFLICT) {
    if (!*taken)
      add_problem (notices, GST_MESSAGE_WARNING, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_BUSY,
          g_strdup_printf ("target %s refused this sender: the "
              "receiver already has a sender (one sender per "
              "receiver unless its options allow more). Still "
              "trying", t->id_str),
          gst_mxl_fabrics_sink_target_shown (t));
    *taken = TRUE;
  } else if (reason != MXL_STATUS_OK && t->path
      && t->after_loss != GST_MXL_FABRICS_SINK_LOSS_NONE) {
    /* its receiver went (one WARNING); a restarted one writes the file
     * anew, then the new TargetInfo is tried: expected until then */
    if (++*refused == GST_MXL_FABRICS_SINK_UNREACHABLE_WARN)
      GST_INFO ("target %s not reachable after %u attempts since its loss: "
          "waiting for its TargetInfo file to change (still trying)",
          t->id_str, *refused);
  } else if (reason != MXL_STATUS_OK
      && ++*refused == GST_MXL_FABRICS_SINK_UNREACHABLE_WARN) {
    add_problem (notices, GST_MESSAGE_WARNING, GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_OPEN_WRITE,
        g_strdup_printf ("target %s not reachable after %u attempts "
            "(%s): is its receiver running, and is this its current "
            "TargetInfo? Still trying", t->id_str, *refused,
            reason == MXL_ERR_NOT_READY ? "timed out" :
            "refused or failed"),
        gst_mxl_fabrics_sink_target_shown (t));
  }
}

void
gst_mxl_fabrics_sink_targets_poll_events (GstMxlFabricsSink * self,
    gboolean auto_reconnect, GPtrArray * notices)
{
  mxlFabricsExtConnectionEvent ev;

  while (mxlFabricsExtInitiatorPollEvent (self->initiator, &ev) ==
      MXL_STATUS_OK) {
    GstMxlFabricsSinkTarget *t = find_by_id (self, ev.targetId);
    gchar *reason;

    if (t == NULL)
      continue;                 /* a target we removed meanwhile */
    reason = ev.reason == MXL_STATUS_OK ?
        g_strdup (mxlFabricsExtConnectionStateName (ev.current)) :
        g_strdup_printf ("%s (%s)", mxlFabricsExtConnectionStateName
        (ev.current), gst_mxl_fabrics_status_name (ev.reason));
    if (ev.reason == MXL_ERR_NOT_FOUND) {
      /* a stale TargetInfo (docs/wire-format.md §6.2): no retry helps */
      GError *e = gst_mxl_fabrics_sink_stale_target_error (t);

      drop_info (self, t);
      target_fail (self, t, e, notices);
      g_free (reason);
      continue;
    }
    switch (ev.current) {
      case MXL_FABRICS_EXT_STATE_IDLE:
        if (t->state.kind == GST_MXL_FABRICS_SINK_TARGET_LOST) {
          /* the library's retry of a lost connection */
          count_reconnect (self, t);
          t->after_loss = GST_MXL_FABRICS_SINK_LOSS_COUNTED;
          set_kind (self, t, GST_MXL_FABRICS_SINK_TARGET_CONNECTING,
              "reconnecting", notices);
          break;
        }
        if (t->state.kind == GST_MXL_FABRICS_SINK_TARGET_CONNECTING) {
          /* the attempts are counted in the CONNECTING state */
          warn_attempt (t, &t->state.u.connecting.refused,
              &t->state.u.connecting.taken, ev.reason, notices);
        } else {
          /* a new series of attempts, counted from none */
          GstMxlFabricsSinkTargetState s = {.kind =
                GST_MXL_FABRICS_SINK_TARGET_CONNECTING };

          warn_attempt (t, &s.u.connecting.refused, &s.u.connecting.taken,
              ev.reason, notices);
          gst_mxl_fabrics_sink_target_set_state (self, t, &s, reason,
              notices);
        }
        break;
      case MXL_FABRICS_EXT_STATE_CONNECTING:
        if (t->state.kind != GST_MXL_FABRICS_SINK_TARGET_CONNECTING)
          set_kind (self, t, GST_MXL_FABRICS_SINK_TARGET_CONNECTING, reason,
              notices);
        break;
      case MXL_FABRICS_EXT_STATE_CONNECTED:
        t->after_loss = GST_MXL_FABRICS_SINK_LOSS_NONE;
        set_kind (self, t, GST_MXL_FABRICS_SINK_TARGET_CONNECTED, reason,
            notices);
        break;
      case MXL_FABRICS_EXT_STATE_LOST:{
        GstMxlFabricsSinkTargetState s = {.kind =
              GST_MXL_FABRICS_SINK_TARGET_LOST };

        if (!auto_reconnect) {
          drop_info (self, t);
          target_fail (self, t, g_error_new (GST_RESOURCE_ERROR,
                  GST_RESOURCE_ERROR_WRITE, "connection lost (%s) and "
                  "auto-reconnect is off",
                  gst_mxl_fabrics_sink_lost_why (ev.reason)), notices);
          break;
        }
        /* the library's back-off (its setup option "reconnect") */
        s.u.lost.retry_at_us = (gint64) (ev.retryAtNs / 1000u);
        s.u.lost.delay_ms = ev.retryAtNs > ev.timestampNs ?
            (guint) ((ev.retryAtNs - ev.timestampNs) / 1000000u) : 0;
        s.u.lost.why = gst_mxl_fabrics_sink_lost_why (ev.reason);
        t->after_loss = GST_MXL_FABRICS_SINK_LOSS_UNCOUNTED;
        gst_mxl_fabrics_sink_target_set_state (self, t, &s, reason, notices);
        break;
      }
      default:
        break;
    }
    g_free (reason);
  }
}

gboolean
gst_mxl_fabrics_sink_targets_connecting (GstMxlFabricsSink * self)
{
  guint i;

  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    mxlFabricsExtConnectionState st;

    if (t->state.kind == GST_MXL_FABRICS_SINK_TARGET_CONNECTING
        && mxlFabricsExtInitiatorGetTargetState (self->initiator,
            t->state.u.connecting.info, &st) == MXL_STATUS_OK
        && st == MXL_FABRICS_EXT_STATE_CONNECTING)
      return TRUE;
  }
  return FALSE;
}

gint64
gst_mxl_fabrics_sink_targets_next_due (GstMxlFabricsSink * self, gint64 due)
{
  guint i;

  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);

    if (t->state.kind == GST_MXL_FABRICS_SINK_TARGET_LOST
        && t->state.u.lost.retry_at_us > 0)
      due = MIN (due, t->state.u.lost.retry_at_us);
    if (t->path && t->monitor == NULL)
      due = MIN (due, t->file_checked_us +
          GST_MXL_FABRICS_SINK_FILE_CHECK_MS * 1000);
    if (t->fetch)
      due = gst_mxl_fabrics_sink_target_url_next_due (t, due);
  }
  return due;
}

void
gst_mxl_fabrics_sink_targets_reset (GstMxlFabricsSink * self)
{
  guint i;

  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);

    gst_mxl_fabrics_sink_target_unwatch (t);
    t->watch_tried = FALSE;
    if (t->fetch)               /* fetched anew at the next start */
      gst_mxl_fabrics_sink_fetch_reset (t->fetch);
    if (t->path || t->fetch) {  /* read again at the next start */
      g_clear_pointer (&t->json, g_free);
      g_clear_pointer (&t->parsed, mxlFabricsFreeTargetInfo);
    }
    /* frees the TargetInfo of an on-initiator state: the initiator goes
     * next */
    set_kind (self, t, GST_MXL_FABRICS_SINK_TARGET_IDLE, NULL, NULL);
    t->id_str[0] = '\0';
    memset (&t->counters, 0, sizeof t->counters);
    t->behind_drops = t->behind_warned = 0;
    t->behind_warned_us = 0;
    t->seen_skipped = t->seen_dropped = 0;
    t->seen_no_credit = 0;
    t->no_credit_now = t->credit_stalled = FALSE;
    t->after_loss = GST_MXL_FABRICS_SINK_LOSS_NONE;
  }
}
