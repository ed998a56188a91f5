/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The sink's engine thread and per-target connections; see
 * mxlfabricssinkconn.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mxlfabricssinkconn.h"
#include "mxlfabricssinktarget.h"
#include "mxlfabricsopen.h"
#include "sinktargetlist.h"
#include "sinkfetch.h"
#include "sinkwait.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <glib-unix.h>
#include <gio/gio.h>

GST_DEBUG_CATEGORY (mxl_fabrics_sink_conn_debug);
#define GST_CAT_DEFAULT mxl_fabrics_sink_conn_debug
#define add_problem gst_mxl_fabrics_sink_notice_problem

static void
notice_free (GstMxlFabricsSinkNotice * n)
{
  g_clear_error (&n->error);
  g_free (n->debug);
  g_free (n->target_id);
  g_free (n->reason);
  g_free (n);
}

GPtrArray *
gst_mxl_fabrics_sink_notices_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) notice_free);
}

void
gst_mxl_fabrics_sink_notice_problem (GPtrArray * notices, GstMessageType type,
    GQuark domain, gint code, gchar * message, const gchar * debug)
{
  GstMxlFabricsSinkNotice *n = g_new0 (GstMxlFabricsSinkNotice, 1);

  n->type = type;
  n->error = g_error_new_literal (domain, code, message);
  n->debug = g_strdup (debug);
  g_ptr_array_add (notices, n);
  g_free (message);
}

void
gst_mxl_fabrics_sink_notices_post (GstMxlFabricsSink * self,
    GPtrArray * notices)
{
  guint i;

  for (i = 0; i < notices->len; i++) {
    GstMxlFabricsSinkNotice *n = g_ptr_array_index (notices, i);

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
  g_ptr_array_set_size (notices, 0);
}

/* "target <id> (@path)": how messages name a target. */
static gchar *
target_name (const GstMxlFabricsSinkTarget * t)
{
  return t->path ? g_strdup_printf ("target %s (@%s)", t->id_str, t->path) :
      g_strdup_printf ("target %s", t->id_str);
}

const gchar *
gst_mxl_fabrics_sink_lost_why (mxlStatus reason)
{
  switch (reason) {
    case MXL_ERR_INTERRUPTED:
      /* an orderly shutdown, or a shm receiver whose process exited
       * (the library watches it: fabrics-ext.h mxlFabricsExtConnectionEvent) */
      return "the receiver stopped (it closed the connection or its process "
          "exited)";
    case MXL_ERR_NOT_READY:
      return "the receiver stopped answering";
    case MXL_ERR_OUT_OF_RANGE_TOO_LATE:
      return "it fell a whole ring behind the stream, its receiver or the "
          "network is slower than the stream; the other targets were not "
          "held up";
    case MXL_ERR_CONFLICT:
      /* a claim lapsed (this sender was silent) and another took over */
      return "the receiver already has a sender now";
    default:{
      /* a reason with no words of its own here: say what happened and
       * give the library's name of it; interned (lost.why is static
       * text), one per status at most */
      gchar *text = g_strdup_printf ("the connection failed (%s)",
          gst_mxl_fabrics_status_name (reason));
      const gchar *why = g_intern_string (text);

      g_free (text);
      return why;
    }
  }
}

GError *
gst_mxl_fabrics_sink_stale_target_error (const GstMxlFabricsSinkTarget * t)
{
  gchar *name = target_name (t);
  char where[128] = "its address";
  GError *e;

  if (gst_mxl_fabrics_sink_target_info (t))
    mxlFabricsExtTargetInfoGetAddress (gst_mxl_fabrics_sink_target_info (t),
        where, sizeof where);
  e = g_error_new (GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
      "%s: the receiver at %s is a different target than the TargetInfo "
      "names (restarted?); give the sink its current TargetInfo", name, where);
  g_free (name);
  return e;
}

/* A WARNING when @t lost grains because it was behind, at most one per
 * GST_MXL_FABRICS_SINK_BEHIND_WARN_MS per target. */
static void
check_behind (GstMxlFabricsSinkTarget * t, gint64 now, GPtrArray * notices)
{
  gchar *name;

  if (t->behind_drops == t->behind_warned || (t->behind_warned_us != 0
          && now - t->behind_warned_us <
          GST_MXL_FABRICS_SINK_BEHIND_WARN_MS * 1000))
    return;
  name = target_name (t);
  add_problem (notices, GST_MESSAGE_WARNING, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_WRITE,
      g_strdup_printf ("%s is falling behind: %" G_GUINT64_FORMAT " grains "
          "not sent to it (%" G_GUINT64_FORMAT " since the last warning); its "
          "receiver or the network is slower than the stream. The other "
          "targets are not held up", name, t->behind_drops,
          t->behind_drops - t->behind_warned),
      gst_mxl_fabrics_sink_target_shown (t));
  t->behind_warned = t->behind_drops;
  t->behind_warned_us = now;
  g_free (name);
}

/* One entry of the sink's `targets` stats: the counters from their table
 * (mxlfabricsstats.c). */
static GstStructure *
target_stats (const GstMxlFabricsSinkTarget * t)
{
  GstStructure *s = gst_structure_new ("target", "source", G_TYPE_STRING,
      gst_mxl_fabrics_sink_target_shown (t), "target-id", G_TYPE_STRING,
      t->id_str,
      "state", GST_TYPE_MXL_FABRICS_CONNECTION_STATE,
      gst_mxl_fabrics_sink_target_public_state (t->state.kind), NULL);

  gst_mxl_fabrics_stats_set (s, GST_MXL_FABRICS_STATS_SINK_TARGET,
      &t->counters);
  return s;
}

void
gst_mxl_fabrics_sink_targets_stats (gpointer data, GValue * targets)
{
  GstMxlFabricsSink *self = data;
  guint i;

  g_mutex_lock (&self->obj->lock);
  for (i = 0; i < self->targets->len; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, target_stats (g_ptr_array_index (self->targets,
                i)));
    gst_value_array_append_and_take_value (targets, &v);
  }
  g_mutex_unlock (&self->obj->lock);
}

void
gst_mxl_fabrics_sink_targets_update_stats (GstMxlFabricsSink * self,
    gint64 now, GPtrArray * notices)
{
  guint i;

  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    check_behind (t, now, notices);
  }
}

/* The falling-behind WARNINGs, and the initiator's stats. */
static void
update_stats (GstMxlFabricsSink * self, gint64 now, GPtrArray * notices)
{
  mxlFabricsExtInitiatorStats is;

  gst_mxl_fabrics_sink_targets_update_stats (self, now, notices);
  if (mxlFabricsExtInitiatorGetStats (self->initiator, &is) == MXL_STATUS_OK)
    gst_mxl_fabrics_object_set_engine_stats (self->obj,
        GST_MXL_FABRICS_STATS_INITIATOR, &is);
}

/* Transfers posted and neither completed nor dropped yet, all targets;
 * *@ended (nullable): how many ended so far (completed or dropped). */
static gboolean
transfers_in_flight_ended (mxlFabricsInitiator initiator, guint64 * ended)
{
  mxlFabricsExtInitiatorStats st = {.version = MXL_FABRICS_API_VERSION };
  gboolean ok = mxlFabricsExtInitiatorGetStats (initiator, &st) ==
      MXL_STATUS_OK;

  if (ended)
    *ended = ok ? st.transfersCompleted + st.transfersDropped : 0;
  return ok && st.transfersQueued > st.transfersCompleted + st.transfersDropped;
}

static gboolean
transfers_in_flight (mxlFabricsInitiator initiator)
{
  return transfers_in_flight_ended (initiator, NULL);
}

/* The soonest time a pass is due without any event (µs, monotonic): the
 * stats refresh, the library's retry of a lost target, an @path file
 * without a monitor;
 * without the library's progress thread, the next progress tick (@busy_us
 * while busy, 0: not busy). */
static gint64
next_due (GstMxlFabricsSink * self, gint64 now, gint64 stats_at,
    gint64 busy_us, gboolean active)
{
  gint64 due = stats_at + GST_MXL_FABRICS_SINK_STATS_MS * 1000;

  /* before caps (no initiator) nothing is due: set_caps wakes it */
  if (self->initiator == NULL)
    return self->settle_until != 0 ? MAX (self->settle_until, now)
        : now + GST_MXL_FABRICS_SINK_STATS_MS * 1000;

  /* at rest (nothing in flight, no attempt under way) the stats refresh
   * is the tick: it progresses the initiator, and a connection event
   * that makes comes on the wait fd where there is one (tcp) */
  if (!self->threaded && (busy_us > 0 || active))
    due = MIN (due, now + (busy_us > 0 ? busy_us :
            GST_MXL_FABRICS_SINK_TICK_MS * 1000));
  due = gst_mxl_fabrics_sink_targets_next_due (self, due);
  if (self->settle_until != 0)
    due = MIN (due, self->settle_until);
  return MAX (due, now);
}

static gboolean
on_wake (gint fd, GIOCondition condition, gpointer data)
{
  guint64 v;

  while (read (fd, &v, sizeof v) < 0 && errno == EINTR);
  return G_SOURCE_CONTINUE;
}

/* One wake-up of the engine thread: a source of @ctx (the eventfd, a file
 * monitor), the library's @wait_fd (-1: not now) or @wait_us. One ppoll()
 * over @ctx's fds and @wait_fd, then @ctx dispatches (the steps of
 * g_main_context_iteration(), GLib's gmain.c): no GSource is attached or
 * destroyed per wait, since adding a poll fd to a context signals its
 * wakeup fd, which would end the next wait at once. Returns TRUE when
 * @wait_fd was readable. */
static gboolean
wait_once (GMainContext * ctx, GArray * fds, gint wait_fd, gint64 wait_us)
{
  gint prio = G_MAXINT, timeout_ms = -1, n;
  struct timespec ts;
  struct pollfd *p;
  gboolean ready;
  guint i;

  g_main_context_prepare (ctx, &prio);
  while ((n = g_main_context_query (ctx, prio, &timeout_ms,
              (GPollFD *) fds->data, (gint) fds->len)) > (gint) fds->len)
    g_array_set_size (fds, n);
  if (timeout_ms >= 0)
    wait_us = MIN (wait_us, (gint64) timeout_ms * 1000);
  ts.tv_sec = wait_us / G_USEC_PER_SEC;
  ts.tv_nsec = (wait_us % G_USEC_PER_SEC) * 1000;
  p = g_new (struct pollfd, n + 1);
  for (i = 0; i < (guint) n; i++) {
    GPollFD *g = &g_array_index (fds, GPollFD, i);
    p[i] = (struct pollfd) {.fd = g->fd,.events = (short) g->events };
  }
  p[n] = (struct pollfd) {.fd = wait_fd,.events = POLLIN };
  ppoll (p, n + (wait_fd >= 0), &ts, NULL);
  for (i = 0; i < (guint) n; i++)
    g_array_index (fds, GPollFD, i).revents = (gushort) p[i].revents;
  ready = wait_fd >= 0 && (p[n].revents & POLLIN);
  g_free (p);
  if (g_main_context_check (ctx, prio, (GPollFD *) fds->data, n))
    g_main_context_dispatch (ctx);
  return ready;
}

/* An EOS waiting in gst_mxl_fabrics_sink_engine_eos() may go on: the
 * stats are up to date. */
static void
settled (GstMxlFabricsSink * self)
{
  self->settle_until = 0;
  g_cond_broadcast (&self->obj->cond);
}

void
gst_mxl_fabrics_sink_engine_eos (GstMxlFabricsSink * self)
{
  gint64 deadline = g_get_monotonic_time () +
      GST_MXL_FABRICS_SINK_SETTLE_MS * 1000;

  /* what is left (none connected, or refused: the last target was just
   * lost) is dropped, as frames waiting for a connection at EOS */
  if (self->n_connected > 0)
    gst_mxl_fabrics_sink_post_pending (self);
  gst_mxl_fabrics_sink_drop_pending (self);
  if (self->engine_thread == NULL)
    return;
  self->settle_until = deadline;
  gst_mxl_fabrics_sink_engine_wake (self);
  /* the engine thread's own deadline is the same: a little more here, in
   * case it is late to see it */
  deadline += GST_MXL_FABRICS_SINK_STATS_MS * 1000;
  while (self->settle_until != 0 && !self->obj->flushing
      && g_cond_wait_until (&self->obj->cond, &self->obj->lock, deadline));
  self->settle_until = 0;
  /* The grains went out: the end-of-stream notice to the targets that
   * advertise it (docs/wire-format.md §11.8); others get nothing. */
  if (self->initiator != NULL && self->n_connected > 0 && !self->obj->flushing) {
    guint32 sent = 0;
    mxlStatus st = mxlFabricsExtInitiatorSendEndOfStream (self->initiator,
        GST_MXL_FABRICS_SINK_EOS_NOTICE_MS, &sent);

    if (st != MXL_STATUS_OK)
      GST_WARNING_OBJECT (self, "end-of-stream notice: %s (%u sent)",
          gst_mxl_fabrics_status_name (st), sent);
    else
      GST_DEBUG_OBJECT (self, "end-of-stream notice sent to %u targets", sent);
  }
}

/* The library's notify (mxlFabricsExtInitiatorSetNotify): the initiator's
 * lock is held, so it only writes the eventfd and signals a render waiting
 * for a ring slot (its lock is never held around initiator calls). */
static void
notify_engine (void *data)
{
  GstMxlFabricsSink *self = data;

  gst_mxl_fabrics_sink_engine_wake (self);
  gst_mxl_fabrics_slot_wait_signal (&self->slot_wait);
}

/* The engine thread waits on events, it does not tick: the eventfd (the
 * library's notify: a connection event or a pass of its progress thread
 * that did work; add-target, remove-target, caps, stop), the @path file
 * monitors, and the next thing due (next_due: at rest the 100 ms stats
 * refresh). Without the library's progress thread (the default) it drives
 * progress itself while anything is under way: when the initiator's wait
 * fd (mxlFabricsExtInitiatorGetWaitFd(): tcp, verbs) says its queues have
 * news, with the 5 ms tick as the library timers' deadline, but after a
 * wake-up by that fd that ended no transfer (tcp: the socket took another
 * piece of a grain larger than its buffer) not before one busy tick: so
 * the pieces are batched as by the tick, and a grain's completion is seen
 * when it comes instead of at the next tick. Without a wait fd (shm: no
 * wait objects, P9 of docs/libfabric-notes.md) on the busy tick, which
 * grows while no transfer ends. */
static gpointer
engine_thread (gpointer data)
{
  GstMxlFabricsSink *self = data;
  GPtrArray *notices = gst_mxl_fabrics_sink_notices_new ();
  GMainContext *ctx = g_main_context_new ();
  GArray *fds = g_array_new (FALSE, TRUE, sizeof (GPollFD));
  GSource *wake = g_unix_fd_source_new (self->engine_wake_fd, G_IO_IN);
  gint64 stats_at = 0, connecting_since = 0;
  mxlFabricsInitiator notified = NULL;
  gint wait_fd = -1;
  gboolean fd_woke = FALSE;
  guint64 ended_seen = 0;
  gint64 busy_us = GST_MXL_FABRICS_SINK_BUSY_TICK_US;

  g_array_set_size (fds, 8);
  g_main_context_push_thread_default (ctx);
  g_source_set_callback (wake, G_SOURCE_FUNC (on_wake), NULL, NULL);
  /* not blocked while dispatched: blocking takes its fd out of the poll
   * and back, each signalling the context's wakeup fd (gmain.c), which
   * would end the next wait at once */
  g_source_set_can_recurse (wake, TRUE);
  g_source_attach (wake, ctx);
  g_mutex_lock (&self->obj->lock);
  while (!self->engine_quit) {
    gint64 now = g_get_monotonic_time ();
    gboolean auto_reconnect;
    gboolean busy = FALSE, active = FALSE, on_fd = FALSE, nap = FALSE;
    guint64 ended = 0;
    gint64 wait_us;

    /* the pool's flush_start cannot take engine_lock (sinkpool.h): it
     * wakes this thread, which wakes a render waiting for a connection */
    if (gst_mxl_fabrics_sink_upstream_flushing (self)) {
      g_cond_broadcast (&self->obj->cond);
      /* and a render waiting for credits (sinkcredit.h) */
      if (gst_mxl_fabrics_slot_wait_wanted (&self->slot_wait))
        gst_mxl_fabrics_slot_wait_signal (&self->slot_wait);
    }

    GST_OBJECT_LOCK (self);
    auto_reconnect = self->auto_reconnect;
    GST_OBJECT_UNLOCK (self);
    if (self->initiator) {
      if (notified != self->initiator) {
        notified = self->initiator;
        mxlFabricsExtInitiatorSetNotify (notified, notify_engine, self);
        wait_fd = -1;
        if (!self->threaded)
          mxlFabricsExtInitiatorGetWaitFd (notified, &wait_fd);
      }
      gst_mxl_fabrics_sink_targets_tick (self, notices);
      busy = mxlFabricsInitiatorMakeProgressNonBlocking (self->initiator)
          == MXL_ERR_NOT_READY;
      active = self->n_connected > 0
          && transfers_in_flight_ended (self->initiator, &ended);
      busy = busy && active;
      /* woken by the wait fd and no transfer ended: a piece went out */
      nap = fd_woke && ended == ended_seen && busy;
      /* without a wait fd (shm) the writes' data moves without this
       * thread (the receiver reads it): the tick grows while no transfer
       * ends, up to GST_MXL_FABRICS_SINK_BUSY_TICK_MAX_US */
      busy_us = ended != ended_seen || !busy ? GST_MXL_FABRICS_SINK_BUSY_TICK_US
          : MIN (busy_us * 2, GST_MXL_FABRICS_SINK_BUSY_TICK_MAX_US);
      ended_seen = ended;
      /* without the progress thread, this pass may have freed the ring
       * slot a render waits for */
      if (!self->threaded && gst_mxl_fabrics_slot_wait_wanted (&self->slot_wait))
        gst_mxl_fabrics_slot_wait_signal (&self->slot_wait);
      gst_mxl_fabrics_sink_targets_poll_events (self, auto_reconnect,
          notices);
      gst_mxl_fabrics_sink_targets_check_all_failed (self, notices);
      /* Without the progress thread: a connection attempt under way is
       * ticked at the busy period for its first
       * GST_MXL_FABRICS_SINK_CONNECT_FAST_MS, so that the connection (and
       * a render waiting for it) does not wait up to a whole tick; an
       * attempt that takes longer (an unreachable host) is ticked at the
       * normal period. */
      if (!gst_mxl_fabrics_sink_targets_connecting (self))
        connecting_since = 0;
      else if (connecting_since == 0)
        connecting_since = now;
      if (connecting_since != 0
          && now - connecting_since <
          GST_MXL_FABRICS_SINK_CONNECT_FAST_MS * 1000) {
        busy = TRUE;
        busy_us = GST_MXL_FABRICS_SINK_BUSY_TICK_US;
      }
      /* Lent buffers go back upstream as soon as their writes completed. */
      if (self->lender.held > 0)
        gst_mxl_fabrics_lender_reclaim (&self->lender, self->initiator);
      if (connecting_since != 0 || self->lender.held > 0)
        active = TRUE;
      if (now - stats_at >= GST_MXL_FABRICS_SINK_STATS_MS * 1000
          || (self->settle_until != 0 && (now >= self->settle_until
                  || !transfers_in_flight (self->initiator)))) {
        stats_at = now;
        update_stats (self, now, notices);
        if (self->settle_until != 0
            && (now >= self->settle_until
                || !transfers_in_flight (self->initiator)))
          settled (self);
      }
    } else if (self->settle_until != 0) {
      settled (self);
    }
    if (notices->len > 0) {
      g_mutex_unlock (&self->obj->lock);
      gst_mxl_fabrics_sink_notices_post (self, notices);
      g_mutex_lock (&self->obj->lock);
      continue;
    }
    /* While writes are in flight without the progress thread: tcp sends
     * a grain in pieces as the socket drains, and sees completions, only
     * when progressed; shm sees its delivery completions only when
     * progressed. On the wait fd where there is one (see above), else
     * often. At rest it waits on the wait fd too (fi_trywait said nothing
     * is queued): a receiver's close becomes an event when a pass
     * progresses (libfabric 1.17's tcp reads its sockets only then), and
     * that event wakes it at once instead of at the pass after. */
    on_fd = wait_fd >= 0 && !nap
        && mxlFabricsExtInitiatorTryWait (self->initiator) == MXL_STATUS_OK;
    wait_us = next_due (self, now, stats_at, busy && !on_fd ? (wait_fd >= 0 ?
            GST_MXL_FABRICS_SINK_BUSY_TICK_US : busy_us) : 0, active) - now;
    g_mutex_unlock (&self->obj->lock);
    fd_woke = wait_once (ctx, fds, on_fd ? wait_fd : -1, wait_us);
    g_mutex_lock (&self->obj->lock);
  }
  if (notified)
    mxlFabricsExtInitiatorSetNotify (notified, NULL, NULL);
  /* the monitors belong to this thread's context */
  gst_mxl_fabrics_sink_targets_reset (self);
  g_mutex_unlock (&self->obj->lock);
  /* the cancelled TargetInfo fetches end on this context (sinkfetch.h) */
  gst_mxl_fabrics_sink_fetch_drain (ctx);
  g_source_destroy (wake);
  g_source_unref (wake);
  g_main_context_pop_thread_default (ctx);
  g_main_context_unref (ctx);
  g_array_unref (fds);
  g_ptr_array_unref (notices);
  return NULL;
}

gboolean
gst_mxl_fabrics_sink_engine_start (GstMxlFabricsSink * self, GError ** error)
{
  GST_DEBUG_CATEGORY_INIT (mxl_fabrics_sink_conn_debug, "mxlfabricssinkconn", 0,
      "mxlfabricssink connections");
  g_mutex_lock (&self->obj->lock);
  self->engine_quit = FALSE;
  self->all_failed_posted = FALSE;
  self->obj->flushing = FALSE;
  self->n_connected = 0;
  self->ever_connected = FALSE;
  g_mutex_unlock (&self->obj->lock);
  self->engine_wake_fd = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (self->engine_wake_fd < 0) {
    int saved = errno;

    g_set_error (error, GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_OPEN_READ_WRITE,
        "cannot create the eventfd that wakes the sink's engine thread: %s",
        g_strerror (saved));
    return FALSE;
  }
  self->engine_thread = g_thread_new ("mxlfabricssink", engine_thread, self);
  return TRUE;
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
  gst_mxl_fabrics_sink_targets_reset (self);
  /* the initiator and the local flow it reads, as open's failure path
   * closes them (mxlfabricsopen.h) */
  gst_mxl_fabrics_close_initiator (&self->flow, &self->initiator);
  self->n_connected = 0;
  g_mutex_unlock (&self->obj->lock);
}

gboolean
gst_mxl_fabrics_sink_add_property_target (GstMxlFabricsSink * self,
    GError ** error)
{
  GError *e = NULL;
  gchar *target_info, **sources;
  guint i;

  /* before engine_start: its WARNING logs in this category */
  GST_DEBUG_CATEGORY_INIT (mxl_fabrics_sink_conn_debug, "mxlfabricssinkconn", 0,
      "mxlfabricssink connections");
  GST_OBJECT_LOCK (self);
  target_info = g_strdup (self->target_info);
  GST_OBJECT_UNLOCK (self);
  /* each source of the list (sinktargetlist.h) is one target; all are
   * taken off first (a restart), so a duplicate in the list is refused */
  sources = gst_mxl_fabrics_sink_split_target_info (target_info);
  for (i = 0; sources[i]; i++)
    gst_mxl_fabrics_sink_targets_remove (self, sources[i]);
  for (i = 0; sources[i] && e == NULL; i++) {
    if (!gst_mxl_fabrics_sink_targets_add (self, sources[i], &e)
        && g_error_matches (e, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_BUSY)) {
      /* given twice, or by add-target as well: one target */
      GST_ELEMENT_WARNING (self, RESOURCE, BUSY, ("%s", e->message),
          ("target-info \"%s\"", sources[i]));
      g_clear_error (&e);
    }
  }
  g_strfreev (sources);
  g_free (target_info);
  if (e)
    g_propagate_error (error, e);
  return e == NULL;
}

gboolean
gst_mxl_fabrics_sink_add_signal_target (GstMxlFabricsSink * self,
    const gchar * value)
{
  GError *error = NULL;

  if (!gst_mxl_fabrics_sink_targets_add (self, value, &error)) {
    GST_WARNING_OBJECT (self, "add-target refused: %s", error->message);
    g_error_free (error);
    return FALSE;
  }
  return TRUE;
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

  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    mxlFabricsExtInitiatorTargetStats ts = {.version =
          MXL_FABRICS_API_VERSION };
    guint64 skipped = 0, dropped = 0;
    gboolean no_credit = t->no_credit_now;

    t->no_credit_now = FALSE;
    if (t->state.kind != GST_MXL_FABRICS_SINK_TARGET_CONNECTED) {
      if (gst_mxl_fabrics_sink_target_info (t))
        t->counters.dropped++;           /* added, but not connected (yet, again) */
      continue;
    }
    /* The initiator did not queue the grain on a target that is behind,
     * dropped queued ones whose slot came up again, and queued ones failed
     * (their connection lost): its own loss. */
    if (mxlFabricsExtInitiatorGetTargetStats (self->initiator,
            t->state.u.connected.info, &ts) == MXL_STATUS_OK) {
      guint64 lost = ts.transfersDropped + ts.transfersFailed;

      skipped = ts.grainsSkipped - MIN (t->seen_skipped, ts.grainsSkipped);
      dropped = lost - MIN (t->seen_dropped, lost);
      t->seen_skipped = ts.grainsSkipped;
      t->seen_dropped = lost;
    }
    /* without a credit (sinkcredit.h) the initiator did not queue it on
     * this target: its loss, not the others' */
    if (no_credit) {
      t->counters.dropped++;
      t->counters.dropped_no_credit++;
    } else if (skipped == 0) {
      t->counters.grains++;
      t->counters.bytes += bytes;
    }
    dropped = MIN (dropped, t->counters.grains);
    t->counters.grains -= dropped;
    t->counters.bytes -= MIN (t->counters.bytes, dropped * bytes);
    t->counters.dropped += skipped + dropped;
    t->behind_drops += skipped + dropped + (no_credit ? 1 : 0);
  }
}

void
gst_mxl_fabrics_sink_engine_count_dropped (GstMxlFabricsSink * self)
{
  guint i;

  for (i = 0; i < self->targets->len; i++) {
    GstMxlFabricsSinkTarget *t = g_ptr_array_index (self->targets, i);
    if (gst_mxl_fabrics_sink_target_info (t))
      t->counters.dropped++;
    /* refused for want of its credit (sinkcredit.h): behind, as one the
     * initiator skipped (check_behind's WARNING) */
    if (t->no_credit_now) {
      t->counters.dropped_no_credit++;
      t->behind_drops++;
    }
    t->no_credit_now = FALSE;
  }
}
