/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxl-fabrics-demo's sender and receiver run (demo.h, demo_run_role; the
 * roles are described at the top of main.c): the pipeline, its bus and
 * signals, starting the producers once the sinks are connected, EOS and
 * the drain of the last writes, the receiver's idle stop, and the
 * summary written at the end.
 */
#include "demo.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <glib-unix.h>
#include <gst/base/gstbasesink.h>

#define VIDEO_CAPS_FMT "video/x-raw,format=v210,width=1920,height=1080," \
  "framerate=%d/1"
#define AUDIO_CAPS_RECV "audio/x-raw,format=F32LE,layout=non-interleaved," \
  "rate=48000,channels=8"
#define AUDIO_CAPS_SEND "audio/x-raw,format=F32LE,layout=interleaved," \
  "rate=48000,channels=8,channel-mask=(bitmask)0x0"

typedef struct {
  DemoOptions *o;
  DemoRole role;
  GstElement *pipeline;
  GMainLoop *loop;
  DemoStream *video, *audio;
  DemoLoop *video_loop, *audio_loop;
  DemoProducer *video_producer, *audio_producer;
  gchar *error;
  gboolean eos_sent;
  gboolean sending;             /* sender: the producers were started */
  guint connected;              /* sender: sinks that reported connected */
  gint64 t_start, t_stop;       /* monotonic us */
  gint64 drain_since;
} Demo;

static void
stop_loop (Demo * d)
{
  if (d->t_stop == 0)
    d->t_stop = g_get_monotonic_time ();
  g_main_loop_quit (d->loop);
}

/* A sink's transfers queued and not ended yet (engine counters): each
 * queued one ends completed or failed (dropped, a write error, cancelled
 * by a lost connection); failed also counts transfers refused unqueued
 * (docs/bus-and-stats.md). */
static gint64
in_flight (DemoStream * s)
{
  GstStructure *st = NULL;
  guint64 queued = 0, completed = 0, failed = 0, refused = 0;

  if (s == NULL)
    return 0;
  g_object_get (s->element, "stats", &st, NULL);
  if (st) {
    gst_structure_get_uint64 (st, "transfers-queued", &queued);
    gst_structure_get_uint64 (st, "transfers-completed", &completed);
    gst_structure_get_uint64 (st, "transfers-failed", &failed);
    gst_structure_get_uint64 (st, "transfers-not-connected", &refused);
    gst_structure_free (st);
  }
  return (gint64) queued - (gint64) (completed + failed - refused);
}

/* Sender after EOS: the sinks have rendered everything, but their last
 * remote writes may still be in flight; stopping the pipeline now would
 * cancel them. Wait until they completed (at most 3 s). */
static gboolean
drain (gpointer data)
{
  Demo *d = data;

  if (d->drain_since == 0)
    d->drain_since = g_get_monotonic_time ();
  /* the counters are refreshed every 100 ms: trust them after 250 ms */
  if (g_get_monotonic_time () - d->drain_since > 250 * 1000
      && in_flight (d->video) <= 0 && in_flight (d->audio) <= 0) {
    stop_loop (d);
    return G_SOURCE_REMOVE;
  }
  if (g_get_monotonic_time () - d->drain_since > 3 * G_USEC_PER_SEC) {
    g_printerr ("mxl-fabrics-demo sender: %" G_GINT64_FORMAT " transfers "
        "still in flight after 3 s: stopping\n", MAX (in_flight (d->video),
            0) + MAX (in_flight (d->audio), 0));
    stop_loop (d);
    return G_SOURCE_REMOVE;
  }
  return G_SOURCE_CONTINUE;
}

/* Sender: starts a producer on appsrc @name of the pipeline, whose buffers
 * sink @sink renders at their time plus its latency (the pipeline's: the
 * appsrc's one period, see build(), plus the sink's processing deadline). */
static DemoProducer *
start_producer (Demo * d, const gchar * name, const gchar * sink,
    DemoLoop * loop, gint rate_n, guint slow_ms)
{
  GstElement *src = gst_bin_get_by_name (GST_BIN (d->pipeline), name);
  GstElement *snk = gst_bin_get_by_name (GST_BIN (d->pipeline), sink);
  GstClockTime latency = gst_base_sink_get_latency (GST_BASE_SINK (snk));
  DemoProducer *p;

  /* not configured yet: the appsrc's own latency */
  if (!GST_CLOCK_TIME_IS_VALID (latency) || latency == 0)
    latency = GST_SECOND / rate_n;
  g_object_set (src, "max-buffers", (guint64) MAX (rate_n / 2, 1), NULL);
  p = demo_producer_start (src, loop, rate_n, 1, latency, slow_ms);
  gst_object_unref (snk);
  gst_object_unref (src);
  return p;
}

static gboolean send_eos (gpointer data);

/* Sender: the producers start once both sinks reported a connected
 * receiver (or after 5 s without: the sinks' wait-for-connection and
 * their drop counters take over), so that the frames due are counted from
 * when the transfer can run; --duration seconds later the stream ends. */
static gboolean
start_sending (gpointer data)
{
  Demo *d = data;

  if (d->sending || d->eos_sent)
    return G_SOURCE_REMOVE;
  d->sending = TRUE;
  d->video_producer = start_producer (d, "vsrc", "video", d->video_loop,
      d->o->fps, d->o->slow_produce_ms);
  if (d->audio_loop)
    d->audio_producer = start_producer (d, "asrc", "audio", d->audio_loop,
        48000 / DEMO_AUDIO_BATCH, 0);
  g_timeout_add ((guint) (d->o->duration * 1000), send_eos, d);
  g_print ("sender: sending, %u of %u sinks connected\n", d->connected,
      d->audio_loop ? 2u : 1u);
  return G_SOURCE_REMOVE;
}

/* An mxl-fabrics-connection message (docs/bus-and-stats.md) of a sink
 * whose state is now "connected". */
static gboolean
is_connected_message (GstMessage * m)
{
  const GstStructure *s = gst_message_get_structure (m);
  const GValue *v;
  GEnumClass *klass;
  GEnumValue *e;
  gboolean yes;

  if (s == NULL || !gst_structure_has_name (s, "mxl-fabrics-connection")
      || (v = gst_structure_get_value (s, "state")) == NULL
      || !G_VALUE_HOLDS_ENUM (v))
    return FALSE;
  klass = g_type_class_ref (G_VALUE_TYPE (v));
  e = g_enum_get_value (klass, g_value_get_enum (v));
  yes = e && g_strcmp0 (e->value_nick, "connected") == 0;
  g_type_class_unref (klass);
  return yes;
}

static gboolean
on_bus (GstBus * bus, GstMessage * m, gpointer data)
{
  Demo *d = data;

  switch (GST_MESSAGE_TYPE (m)) {
    case GST_MESSAGE_ERROR:{
      GError *e = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error (m, &e, &dbg);
      g_printerr ("mxl-fabrics-demo %s: ERROR from %s: %s\n%s\n",
          d->o->role, GST_OBJECT_NAME (GST_MESSAGE_SRC (m)), e->message,
          dbg ? dbg : "");
      if (d->error == NULL)
        d->error = g_strdup_printf ("%s: %s",
            GST_OBJECT_NAME (GST_MESSAGE_SRC (m)), e->message);
      g_error_free (e);
      g_free (dbg);
      stop_loop (d);
      break;
    }
    case GST_MESSAGE_WARNING:{
      GError *e = NULL;
      gst_message_parse_warning (m, &e, NULL);
      g_printerr ("mxl-fabrics-demo %s: WARNING from %s: %s\n", d->o->role,
          GST_OBJECT_NAME (GST_MESSAGE_SRC (m)), e->message);
      g_error_free (e);
      break;
    }
    case GST_MESSAGE_ELEMENT:
      if (d->role == DEMO_SENDER && is_connected_message (m)
          && ++d->connected == (d->audio_loop ? 2u : 1u))
        start_sending (d);
      break;
    case GST_MESSAGE_EOS:
      if (d->role == DEMO_SENDER)
        g_timeout_add (20, drain, d);
      else
        stop_loop (d);
      break;
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

static gboolean
on_deadline (gpointer data)
{
  stop_loop (data);
  return G_SOURCE_REMOVE;
}

/* Sender: stop sending (EOS lets the sinks render what they hold); quit
 * within 5 s even if EOS never comes back. */
static gboolean
send_eos (gpointer data)
{
  Demo *d = data;

  if (!d->eos_sent) {
    d->eos_sent = TRUE;
    if (!d->sending) {
      stop_loop (d);            /* stopped before anything was sent */
      return G_SOURCE_REMOVE;
    }
    /* each producer ends its appsrc's stream */
    demo_producer_stop (d->video_producer);
    demo_producer_stop (d->audio_producer);
    g_timeout_add_seconds (5, on_deadline, d);
  }
  return G_SOURCE_REMOVE;
}

static gboolean
on_signal (gpointer data)
{
  Demo *d = data;

  if (d->role == DEMO_SENDER && !d->eos_sent)
    send_eos (d);
  else
    stop_loop (d);
  return G_SOURCE_CONTINUE;
}

/* Receiver: once data came, stop after --idle-stop seconds without any. */
static gboolean
check_idle (gpointer data)
{
  Demo *d = data;
  DemoStream *streams[] = { d->video, d->audio };
  guint64 last = 0, now = gst_mxl_fabrics_tai_now ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (streams); i++) {
    DemoStream *s = streams[i];
    if (s == NULL)
      continue;
    g_mutex_lock (&s->lock);
    if (s->items->len > 0)
      last = MAX (last, g_array_index (s->items, DemoItem,
              s->items->len - 1).tai);
    g_mutex_unlock (&s->lock);
  }
  if (last > 0 && now > last
      && (now - last) > (guint64) (d->o->idle_stop * GST_SECOND))
    stop_loop (d);
  return G_SOURCE_CONTINUE;
}

static gchar *
endpoint_props (const DemoOptions * o)
{
  return g_strdup_printf ("provider=%s%s%s", o->provider,
      o->node && o->node[0] ? " node=" : "", o->node ? o->node : "");
}

static gchar *
describe (const DemoOptions * o, DemoRole role)
{
  GString *d = g_string_new (NULL);
  gchar *ep = endpoint_props (o);

  if (role == DEMO_RECEIVER) {
    /* with --http-port, the TargetInfos are also served over HTTP on the
     * fabric address (mxlfabricssrc http-port; docs/security.md) */
    const gchar *host = o->node && o->node[0] ? o->node : "127.0.0.1";
    gchar *http_v = o->http_port > 0 ? g_strdup_printf (" http-address=%s "
        "http-port=%d", host, o->http_port) : g_strdup ("");
    gchar *http_a = o->http_port > 0 ? g_strdup_printf (" http-address=%s "
        "http-port=%d", host, o->http_port + 1) : g_strdup ("");

    g_string_append_printf (d, "mxlfabricssrc name=video %s%s caps=\""
        VIDEO_CAPS_FMT "\" target-info-file=\"%s\" ! fakesink sync=false "
        "async=false", ep, http_v, o->fps, o->video_ti);
    if (!o->no_audio)
      g_string_append_printf (d, " mxlfabricssrc name=audio %s%s caps=\""
          AUDIO_CAPS_RECV "\" target-info-file=\"%s\" ! fakesink "
          "sync=false async=false", ep, http_a, o->audio_ti);
    g_free (http_v);
    g_free (http_a);
  } else {
    /* the producers push the pre-rendered loops (demo_producer_start);
     * each appsrc may deliver a buffer up to one period after its time
     * (min-latency, as a capture source) and holds up to half a second */
    g_string_append_printf (d, "appsrc name=vsrc is-live=true format=time "
        "min-latency=%" G_GUINT64_FORMAT " max-latency=%" G_GUINT64_FORMAT
        " caps=\"" VIDEO_CAPS_FMT "\" ! mxlfabricssink name=video "
        "%s wait-for-connection=true", GST_SECOND / o->fps, GST_SECOND / 2,
        o->fps, ep);
    if (!o->no_audio)
      g_string_append_printf (d, " appsrc name=asrc is-live=true "
          "format=time min-latency=%" G_GUINT64_FORMAT " max-latency=%"
          G_GUINT64_FORMAT " caps=\"" AUDIO_CAPS_SEND "\" ! mxlfabricssink "
          "name=audio %s wait-for-connection=true",
          GST_SECOND * DEMO_AUDIO_BATCH / 48000, GST_SECOND / 2, ep);
  }
  g_free (ep);
  return g_string_free (d, FALSE);
}

static GstElement *
build (Demo * d, GError ** error)
{
  gchar *desc = describe (d->o, d->role);
  GstElement *p = gst_parse_launch (desc, error);
  GstClock *clock;

  g_free (desc);
  if (p == NULL || (error && *error)) {
    g_clear_object (&p);
    return NULL;
  }
  /* CLOCK_TAI: the elements' TAI offset is then exactly 0 (gst/timing.h) */
  clock = g_object_new (GST_TYPE_SYSTEM_CLOCK, "clock-type",
      GST_CLOCK_TYPE_TAI, NULL);
  gst_pipeline_use_clock (GST_PIPELINE (p), clock);
  gst_object_unref (clock);
  return p;
}

static void
add_stream (Demo * d, const gchar * name, gboolean audio, DemoStream ** out)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (d->pipeline), name);

  *out = demo_stream_new (name, d->role, audio, e);
  if (d->role == DEMO_SENDER) {
    const gchar *ti = audio ? d->o->audio_ti : d->o->video_ti;
    g_object_set (e, "target-info", ti, NULL);
  }
  gst_object_unref (e);
}

static gboolean
write_summary (Demo * d, double cpu_user, double cpu_sys,
    const gchar * png, const gchar * png_error, GError ** error)
{
  JsonBuilder *b = json_builder_new ();
  JsonGenerator *g = json_generator_new ();
  JsonNode *root;
  gchar *text, host[256] = "";
  gboolean ok;

  gethostname (host, sizeof (host) - 1);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "role");
  json_builder_add_string_value (b, d->o->role);
  json_builder_set_member_name (b, "provider");
  json_builder_add_string_value (b, d->o->provider);
  json_builder_set_member_name (b, "host");
  json_builder_add_string_value (b, host);
  json_builder_set_member_name (b, "pid");
  json_builder_add_int_value (b, getpid ());
  json_builder_set_member_name (b, "fps");
  json_builder_add_int_value (b, d->o->fps);
  json_builder_set_member_name (b, "duration_s");
  json_builder_add_double_value (b, d->o->duration);
  json_builder_set_member_name (b, "wall_s");
  json_builder_add_double_value (b, (d->t_stop - d->t_start) / 1e6);
  json_builder_set_member_name (b, "cpu_user_s");
  json_builder_add_double_value (b, cpu_user);
  json_builder_set_member_name (b, "cpu_sys_s");
  json_builder_add_double_value (b, cpu_sys);
  json_builder_set_member_name (b, "error");
  json_builder_add_string_value (b, d->error ? d->error : "");
  json_builder_set_member_name (b, "png");
  json_builder_add_string_value (b, png ? png : "");
  json_builder_set_member_name (b, "png_error");
  json_builder_add_string_value (b, png_error ? png_error : "");
  json_builder_set_member_name (b, "slow_produce_ms");
  json_builder_add_int_value (b, d->o->slow_produce_ms);
  json_builder_set_member_name (b, "slow_consume_ms");
  json_builder_add_int_value (b, d->o->slow_consume_ms);
  if (d->video_producer) {
    json_builder_set_member_name (b, "producers");
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "video");
    demo_producer_to_json (d->video_producer, b);
    if (d->audio_producer) {
      json_builder_set_member_name (b, "audio");
      demo_producer_to_json (d->audio_producer, b);
    }
    json_builder_end_object (b);
  }
  json_builder_set_member_name (b, "streams");
  json_builder_begin_object (b);
  demo_stream_to_json (d->video, b);
  if (d->audio)
    demo_stream_to_json (d->audio, b);
  json_builder_end_object (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (g, root);
  text = json_generator_to_data (g, NULL);
  ok = g_file_set_contents (d->o->summary, text, -1, error);
  g_free (text);
  json_node_unref (root);
  g_object_unref (g);
  g_object_unref (b);
  return ok;
}

int
demo_run_role (DemoOptions * o, DemoRole role)
{
  Demo d = { .o = o, .role = role };
  GError *error = NULL;
  GstBus *bus;
  guint bus_watch, sig_int, sig_term;
  struct rusage ru;
  gchar *png_error = NULL;
  const gchar *png = NULL;
  int rc;

  d.loop = g_main_loop_new (NULL, FALSE);
  /* First, so that a stop during start-up (rendering the loop, building
   * the pipeline) is not the default action: it waits in the main context
   * and is handled once the loop runs; after a failed start it is moot. */
  sig_int = g_unix_signal_add (SIGINT, on_signal, &d);
  sig_term = g_unix_signal_add (SIGTERM, on_signal, &d);
  if (demo_stop_early) {
    /* stopped before it began: nothing to stop */
    rc = 0;
    goto out;
  }
  {
    gchar *caps = g_strdup_printf (VIDEO_CAPS_FMT, o->fps);
    d.video_loop = demo_loop_new_video (caps, DEMO_LOOP_FRAMES, &error);
    g_free (caps);
  }
  if (d.video_loop == NULL) {
    g_printerr ("mxl-fabrics-demo %s: cannot render the video loop: %s\n",
        o->role, error ? error->message : "?");
    g_clear_error (&error);
    rc = 3;
    goto out;
  }
  if (role == DEMO_SENDER && !o->no_audio)
    d.audio_loop = demo_loop_new_audio (48000, 8, DEMO_AUDIO_BATCH,
        DEMO_AUDIO_LOOP);
  d.pipeline = build (&d, &error);
  if (d.pipeline == NULL) {
    g_printerr ("mxl-fabrics-demo %s: cannot build the pipeline: %s\n",
        o->role, error ? error->message : "?");
    g_clear_error (&error);
    rc = 3;
    goto out;
  }
  add_stream (&d, "video", FALSE, &d.video);
  demo_stream_set_loop (d.video, d.video_loop);
  if (role == DEMO_RECEIVER)
    d.video->slow_ms = o->slow_consume_ms;
  if (!o->no_audio)
    add_stream (&d, "audio", TRUE, &d.audio);
  if (role == DEMO_RECEIVER && o->png)
    demo_stream_want_snapshot (d.video, GST_SECOND);
  bus = gst_element_get_bus (d.pipeline);
  bus_watch = gst_bus_add_watch (bus, on_bus, &d);
  gst_object_unref (bus);

  d.t_start = g_get_monotonic_time ();
  if (gst_element_set_state (d.pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    /* the ERROR message on the bus says why */
    g_main_context_iteration (NULL, FALSE);
    if (d.error == NULL)
      d.error = g_strdup ("the pipeline cannot start");
  } else {
    if (role == DEMO_SENDER) {
      /* PLAYING: the base time and the clock are set; start_sending
       * runs when both sinks are connected */
      g_timeout_add_seconds (5, start_sending, &d);
    } else {
      g_timeout_add ((guint) (o->max_seconds * 1000), on_deadline, &d);
      if (o->idle_stop > 0)
        g_timeout_add (100, check_idle, &d);
      g_print ("receiver: listening, TargetInfo in %s%s%s\n", o->video_ti,
          o->no_audio ? "" : " and ", o->no_audio ? "" : o->audio_ti);
    }
    if (d.error == NULL)
      g_main_loop_run (d.loop);
  }
  if (d.t_stop == 0)
    d.t_stop = g_get_monotonic_time ();
  demo_producer_stop (d.video_producer);
  demo_producer_stop (d.audio_producer);
  gst_element_set_state (d.pipeline, GST_STATE_NULL);
  getrusage (RUSAGE_SELF, &ru);
  if (role == DEMO_RECEIVER && o->png) {
    if (demo_stream_save_png (d.video, o->png, &error))
      png = o->png;
    else
      png_error = g_strdup (error->message);
    g_clear_error (&error);
  }
  rc = d.error ? 3 : 0;
  if (o->summary && !write_summary (&d, ru.ru_utime.tv_sec +
          ru.ru_utime.tv_usec / 1e6, ru.ru_stime.tv_sec +
          ru.ru_stime.tv_usec / 1e6, png, png_error, &error)) {
    g_printerr ("mxl-fabrics-demo: %s\n", error->message);
    g_clear_error (&error);
    rc = 3;
  }
  g_source_remove (bus_watch);
  demo_stream_free (d.video);
  if (d.audio)
    demo_stream_free (d.audio);
  gst_object_unref (d.pipeline);
  demo_producer_free (d.video_producer);
  demo_producer_free (d.audio_producer);
out:
  g_source_remove (sig_int);
  g_source_remove (sig_term);
  demo_loop_free (d.video_loop);
  demo_loop_free (d.audio_loop);
  g_main_loop_unref (d.loop);
  g_free (d.error);
  g_free (png_error);
  return rc;
}
