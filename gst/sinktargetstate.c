/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The states of a sink target (mxlfabricssinktarget.h) and the one
 * function that moves a target between them. The moves it allows:
 *
 *   from \ to      IDLE  AWAITING  CONNECTING  CONNECTED  LOST  FAILED
 *   IDLE            yes     yes       yes         -        -     yes
 *   AWAITING_FILE   yes      -         -          -        -     yes
 *   CONNECTING      yes      -         -         yes      yes    yes
 *   CONNECTED       yes      -        yes        yes      yes    yes
 *   LOST            yes      -        yes        yes      yes    yes
 *   FAILED          yes      -         -          -        -      -
 *
 * IDLE → CONNECTING is the only way onto the initiator (the TargetInfo
 * just added); CONNECTING, CONNECTED and LOST follow the initiator's
 * connection events, which may skip a state (its event queue keeps the
 * newest events only) or repeat one (a second loss with a new retry time);
 * any state goes back to IDLE (taken off the initiator, its file changed,
 * the engine stopped); any but FAILED may fail (a bad TargetInfo, a
 * refusal, a loss without auto-reconnect, an unreadable file). A FAILED
 * target waits for its @path file to change, AWAITING_FILE for its file to
 * appear: neither goes onto the initiator without passing IDLE.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mxlfabricssinktarget.h"

GST_DEBUG_CATEGORY_EXTERN (mxl_fabrics_sink_conn_debug);
#define GST_CAT_DEFAULT mxl_fabrics_sink_conn_debug

#define N_KINDS (GST_MXL_FABRICS_SINK_TARGET_FAILED + 1)
#define BIT(kind) (1u << GST_MXL_FABRICS_SINK_TARGET_ ## kind)

/* The table above, one row per state: the states it may move to. */
static const guint allowed[N_KINDS] = {
  [GST_MXL_FABRICS_SINK_TARGET_IDLE] = BIT (IDLE) | BIT (AWAITING_FILE) |
      BIT (CONNECTING) | BIT (FAILED),
  [GST_MXL_FABRICS_SINK_TARGET_AWAITING_FILE] = BIT (IDLE) | BIT (FAILED),
  [GST_MXL_FABRICS_SINK_TARGET_CONNECTING] = BIT (IDLE) | BIT (CONNECTED) |
      BIT (LOST) | BIT (FAILED),
  [GST_MXL_FABRICS_SINK_TARGET_CONNECTED] = BIT (IDLE) | BIT (CONNECTING) |
      BIT (CONNECTED) | BIT (LOST) | BIT (FAILED),
  [GST_MXL_FABRICS_SINK_TARGET_LOST] = BIT (IDLE) | BIT (CONNECTING) |
      BIT (CONNECTED) | BIT (LOST) | BIT (FAILED),
  [GST_MXL_FABRICS_SINK_TARGET_FAILED] = BIT (IDLE),
};

static const gchar *const kind_names[N_KINDS] = {
  "idle", "awaiting-file", "connecting", "connected", "lost", "failed"
};

/* Where a state keeps its TargetInfo: on-initiator states only. */
static mxlFabricsTargetInfo *
info_slot (GstMxlFabricsSinkTargetState * s)
{
  switch (s->kind) {
    case GST_MXL_FABRICS_SINK_TARGET_CONNECTING:
      return &s->u.connecting.info;
    case GST_MXL_FABRICS_SINK_TARGET_CONNECTED:
      return &s->u.connected.info;
    case GST_MXL_FABRICS_SINK_TARGET_LOST:
      return &s->u.lost.info;
    default:
      return NULL;
  }
}

mxlFabricsTargetInfo
gst_mxl_fabrics_sink_target_info (const GstMxlFabricsSinkTarget * t)
{
  mxlFabricsTargetInfo *slot =
      info_slot ((GstMxlFabricsSinkTargetState *) & t->state);

  return slot ? *slot : NULL;
}

void
gst_mxl_fabrics_sink_target_state_clear (GstMxlFabricsSinkTargetState * s)
{
  mxlFabricsTargetInfo *slot = info_slot (s);

  if (slot && *slot)
    mxlFabricsFreeTargetInfo (*slot);
  if (slot)
    *slot = NULL;
  if (s->kind == GST_MXL_FABRICS_SINK_TARGET_FAILED)
    g_clear_error (&s->u.failed.error);
}

GstMxlFabricsConnectionState
gst_mxl_fabrics_sink_target_public_state (GstMxlFabricsSinkTargetKind kind)
{
  switch (kind) {
    case GST_MXL_FABRICS_SINK_TARGET_AWAITING_FILE:
    case GST_MXL_FABRICS_SINK_TARGET_CONNECTING:
      return GST_MXL_FABRICS_CONNECTION_CONNECTING;
    case GST_MXL_FABRICS_SINK_TARGET_CONNECTED:
      return GST_MXL_FABRICS_CONNECTION_CONNECTED;
    case GST_MXL_FABRICS_SINK_TARGET_FAILED:
      return GST_MXL_FABRICS_CONNECTION_ERROR;
    default:
      return GST_MXL_FABRICS_CONNECTION_DISCONNECTED;
  }
}

#define PUBLIC(t) gst_mxl_fabrics_sink_target_public_state ((t)->state.kind)

GstMxlFabricsConnectionState
gst_mxl_fabrics_sink_targets_aggregate (GstMxlFabricsSink * self)
{
  gboolean connecting = FALSE, all_failed = self->targets->len > 0;
  guint i;

  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsConnectionState s =
        PUBLIC ((GstMxlFabricsSinkTarget *) g_ptr_array_index (self->targets,
            i));
    if (s == GST_MXL_FABRICS_CONNECTION_CONNECTED)
      return GST_MXL_FABRICS_CONNECTION_CONNECTED;
    if (s == GST_MXL_FABRICS_CONNECTION_CONNECTING)
      connecting = TRUE;
    if (s != GST_MXL_FABRICS_CONNECTION_ERROR)
      all_failed = FALSE;
  }
  return connecting ? GST_MXL_FABRICS_CONNECTION_CONNECTING : all_failed ?
      GST_MXL_FABRICS_CONNECTION_ERROR : GST_MXL_FABRICS_CONNECTION_DISCONNECTED;
}

void
gst_mxl_fabrics_sink_targets_recount (GstMxlFabricsSink * self)
{
  guint i, n = 0;

  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    if (t->state.kind == GST_MXL_FABRICS_SINK_TARGET_CONNECTED)
      n++;
  }
  if (n != self->n_connected) {
    self->n_connected = n;
    self->ever_connected |= n > 0;
    g_cond_broadcast (&self->obj->cond);      /* wait-for-connection */
  }
}

/* The messages of a move from @was to @t->state. */
static void
notify (GstMxlFabricsSink * self, GstMxlFabricsSinkTarget * t,
    GstMxlFabricsSinkTargetKind was, const gchar * reason, GPtrArray * notices)
{
  const GstMxlFabricsSinkTargetState *now = &t->state;
  GstMxlFabricsSinkNotice *n;

  /* the order is as it always was: a failure's WARNING, then the state;
   * the state, then a loss's WARNING, so that whoever reacts to that
   * WARNING reads the new connection-state */
  if (now->kind == GST_MXL_FABRICS_SINK_TARGET_FAILED
      && was != GST_MXL_FABRICS_SINK_TARGET_FAILED) {
    const GError *e = now->u.failed.error;
    gchar *name = t->id_str[0] ? g_strdup_printf ("target %s", t->id_str) :
        g_strdup ("a target");

    gst_mxl_fabrics_sink_notice_problem (notices, GST_MESSAGE_WARNING,
        e->domain, e->code, g_strdup_printf ("%s failed: %s; %s", name,
            e->message, t->path ? "waiting for its TargetInfo file to change"
            : t->fetch ? "fetching its TargetInfo URL again" :
            "the other targets go on"),
        gst_mxl_fabrics_sink_target_shown (t));
    g_free (name);
  }
  n = g_new0 (GstMxlFabricsSinkNotice, 1);
  n->type = GST_MESSAGE_ELEMENT;
  n->state = gst_mxl_fabrics_sink_targets_aggregate (self);
  n->target_id = g_strdup (t->id_str);
  n->target_state = PUBLIC (t);
  n->reason = g_strdup (now->kind == GST_MXL_FABRICS_SINK_TARGET_FAILED ?
      now->u.failed.error->message : reason);
  g_ptr_array_add (notices, n);
  /* one WARNING per transition into lost or failed; after EOS a loss is
   * the receiver ending its stream (the end-of-stream notice, or its own
   * num-buffers): the state message tells it, no WARNING */
  if (now->kind != GST_MXL_FABRICS_SINK_TARGET_LOST
      || was == GST_MXL_FABRICS_SINK_TARGET_LOST)
    return;
  if (self->at_eos)
    GST_INFO_OBJECT (self, "target %s closed its connection after EOS (%s)",
        t->id_str, now->u.lost.why);
  else
    gst_mxl_fabrics_sink_notice_problem (notices, GST_MESSAGE_WARNING,
        GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE,
        g_strdup_printf ("connection to target %s lost (%s): "
            "reconnecting in %u ms", t->id_str, now->u.lost.why,
            now->u.lost.delay_ms),
        gst_mxl_fabrics_sink_target_shown (t));
}

gboolean
gst_mxl_fabrics_sink_target_set_state (GstMxlFabricsSink * self,
    GstMxlFabricsSinkTarget * t, const GstMxlFabricsSinkTargetState * next,
    const gchar * reason, GPtrArray * notices)
{
  GstMxlFabricsSinkTargetKind was = t->state.kind;
  GstMxlFabricsSinkTargetState s = *next;
  mxlFabricsTargetInfo *from = info_slot (&t->state), *to = info_slot (&s);

  if ((guint) s.kind >= N_KINDS || !(allowed[was] & (1u << s.kind))
      || (to && from == NULL && *to == NULL)) {
    g_critical ("sink target %s: no move from %s to %s%s",
        gst_mxl_fabrics_sink_target_shown (t),
        kind_names[was], (guint) s.kind < N_KINDS ? kind_names[s.kind] :
        "an unknown state", to && from == NULL ? " without a TargetInfo" : "");
    if ((guint) s.kind < N_KINDS && from == NULL)
      gst_mxl_fabrics_sink_target_state_clear (&s);         /* what @next owns */
    else if (s.kind == GST_MXL_FABRICS_SINK_TARGET_FAILED)
      g_clear_error (&s.u.failed.error);
    return FALSE;
  }
  if (to && from) {
    /* between on-initiator states: the TargetInfo travels */
    *to = *from;
    *from = NULL;
  }
  gst_mxl_fabrics_sink_target_state_clear (&t->state);
  t->state = s;
  GST_DEBUG_OBJECT (self, "target %s: %s -> %s",
      gst_mxl_fabrics_sink_target_shown (t), kind_names[was],
      kind_names[s.kind]);
  gst_mxl_fabrics_sink_targets_recount (self);
  if (notices != NULL)          /* NULL: a quiet step, the next one says it */
    notify (self, t, was, reason, notices);
  return TRUE;
}
