/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The elements' state machines on GstHarness (as gst-plugins-bad's
 * tests/check/elements/srt.c tests srtsink and srtsrc), one process, tcp
 * on 127.0.0.1: a sink target that waits for its @path file, connects
 * when the src writes it, is removed and added again with the signals; a
 * src that publishes its TargetInfo, connects, receives a grain bit-exact
 * and posts its timeout; a receiver that accepts and drops at once,
 * retried with the library's growing back-off. Every wait is bounded. */
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/check/gstharness.h>

#include "tcprelay.h"

#define CAPS "video/x-raw,format=v210,width=1280,height=720,framerate=25/1"
/* v210 1280x720: stride 3456 (48 pixels in 128 bytes), 720 lines */
#define GRAIN_SIZE (3456 * 720)
#define WAIT_US (15 * G_USEC_PER_SEC)

/* The harness starts its element at once: set its properties before.
 * @service: (nullable): its bind port, else automatic. */
static GstHarness *
make_src_on (const gchar * file, guint64 timeout, const gchar * service)
{
  GstElement *e = gst_element_factory_make ("mxlfabricssrc", NULL);
  GstCaps *caps = gst_caps_from_string (CAPS);
  GstHarness *h;

  g_assert_nonnull (e);
  g_object_set (e, "provider", 1, "node", "127.0.0.1", "caps", caps,
      "target-info-file", file, "timeout", timeout, NULL);
  if (service)
    g_object_set (e, "service", service, NULL);
  gst_caps_unref (caps);
  h = gst_harness_new_with_element (e, NULL, "src");
  gst_object_unref (e);
  /* grain times are TAI: a test clock at 0 would put them all before
   * running time 0 */
  gst_harness_use_systemclock (h);
  return h;
}

static GstHarness *
make_src (const gchar * file, guint64 timeout)
{
  return make_src_on (file, timeout, NULL);
}

static GstHarness *
make_sink (const gchar * target_info)
{
  GstElement *e = gst_element_factory_make ("mxlfabricssink", NULL);
  GstHarness *h;

  g_assert_nonnull (e);
  /* no clock waits (the harness clock is a test clock): the buffer
   * timestamps still give the grain indices */
  g_object_set (e, "provider", 1, "node", "127.0.0.1", "target-info",
      target_info, "sync", FALSE, "wait-for-connection", FALSE, NULL);
  h = gst_harness_new_with_element (e, "sink", NULL);
  gst_object_unref (e);
  gst_harness_use_systemclock (h);
  gst_harness_set_src_caps_str (h, CAPS);
  return h;
}

static gint
state_of (GstElement * e)
{
  gint state = -1;

  g_object_get (e, "connection-state", &state, NULL);
  return state;
}

static gint
enum_value (const gchar * nick)
{
  GEnumClass *k = g_type_class_ref (g_type_from_name
      ("GstMxlFabricsConnectionState"));
  gint v = g_enum_get_value_by_nick (k, nick)->value;

  g_type_class_unref (k);
  return v;
}

/* Waits (bounded) until @e's connection-state is @nick. */
static void
wait_state (GstElement * e, const gchar * nick)
{
  gint64 end = g_get_monotonic_time () + WAIT_US;

  while (state_of (e) != enum_value (nick)) {
    if (g_get_monotonic_time () > end)
      g_error ("%s: connection-state %d, not %s after %d s",
          GST_ELEMENT_NAME (e), state_of (e), nick, (int) (WAIT_US / 1000000));
    g_usleep (10 * 1000);
  }
}

static guint64
stat_u64 (GstElement * e, const gchar * field)
{
  GstStructure *s;
  guint64 v = G_MAXUINT64;

  g_object_get (e, "stats", &s, NULL);
  g_assert_true (gst_structure_get_uint64 (s, field, &v));
  gst_structure_free (s);
  return v;
}

/* The sink's "targets" array: its length, and the first one's fields. */
static guint
sink_targets (GstElement * sink, gchar ** target_id, gint * state)
{
  GstStructure *s;
  const GValue *arr;
  guint n;

  g_object_get (sink, "stats", &s, NULL);
  arr = gst_structure_get_value (s, "targets");
  n = gst_value_array_get_size (arr);
  if (n > 0) {
    const GstStructure *t =
        gst_value_get_structure (gst_value_array_get_value (arr, 0));
    if (target_id)
      *target_id = g_strdup (gst_structure_get_string (t, "target-id"));
    if (state)
      gst_structure_get_enum (t, "state",
          g_type_from_name ("GstMxlFabricsConnectionState"), state);
  }
  gst_structure_free (s);
  return n;
}

/* Waits (bounded) until the sink has @n targets, the first in state @nick
 * (NULL: any). */
static void
wait_targets (GstElement * sink, guint n, const gchar * nick)
{
  gint64 end = g_get_monotonic_time () + WAIT_US;
  gint st = -1;

  while (sink_targets (sink, NULL, &st) != n
      || (nick && st != enum_value (nick))) {
    if (g_get_monotonic_time () > end)
      g_error ("not %u targets%s%s after %d s", n, nick ? " the first " : "",
          nick ? nick : "", (int) (WAIT_US / 1000000));
    g_usleep (10 * 1000);
  }
}

static GstBuffer *
grain (guint k)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, GRAIN_SIZE, NULL);
  GstMapInfo map;
  gsize i;

  gst_buffer_map (b, &map, GST_MAP_WRITE);
  for (i = 0; i < map.size; i++)
    map.data[i] = (guint8) (i * 7 + k * 13);
  gst_buffer_unmap (b, &map);
  GST_BUFFER_PTS (b) = k * GST_SECOND / 25;
  GST_BUFFER_DURATION (b) = GST_SECOND / 25;
  return b;
}

/* Waits (bounded) until the src gives a buffer, and checks that it is
 * grain @k bit-exact. */
static void
pull_one (GstHarness * src, guint k)
{
  gint64 end = g_get_monotonic_time () + WAIT_US;
  GstBuffer *want = grain (k), *got = NULL;
  GstMapInfo map;

  while (got == NULL && g_get_monotonic_time () < end) {
    got = gst_harness_try_pull (src);
    if (got == NULL)
      g_usleep (10 * 1000);
  }
  g_assert_nonnull (got);
  g_assert_cmpuint (gst_buffer_get_size (got), ==, GRAIN_SIZE);
  g_assert_true (gst_buffer_map (want, &map, GST_MAP_READ));
  g_assert_cmpint (gst_buffer_memcmp (got, 0, map.data, GRAIN_SIZE), ==, 0);
  gst_buffer_unmap (want, &map);
  gst_buffer_unref (got);
  gst_buffer_unref (want);
}

/* Pushes grain @k into the sink, then pull_one(). */
static void
transfer_one (GstHarness * sink, GstHarness * src, guint k)
{
  g_assert_cmpint (gst_harness_push (sink, grain (k)), ==, GST_FLOW_OK);
  pull_one (src, k);
}

/* A path of its own in the temporary directory, not created. */
static gchar *
tmp_file (const gchar * name)
{
  return g_strdup_printf ("%s/mxl-harness-%d-%s", g_get_tmp_dir (),
      (int) getpid (), name);
}

static void
remove_tmp (gchar * path)
{
  g_unlink (path);
  g_free (path);
}

/* remove-target @value: removed (the list empty, the sink disconnected);
 * a second remove finds nothing. */
static void
remove_target_once (GstHarness * sink, const gchar * value)
{
  gboolean ok = FALSE;

  g_signal_emit_by_name (sink->element, "remove-target", value, &ok);
  g_assert_true (ok);
  wait_targets (sink->element, 0, NULL);
  wait_state (sink->element, "disconnected");
  g_signal_emit_by_name (sink->element, "remove-target", value, &ok);
  g_assert_false (ok);
}

/* A sink target given as @path before the file exists: awaited (connecting,
 * no target id), read when the src writes it (the file monitor), connected;
 * removed and added again (as JSON) with the action signals, which act on
 * the one list of targets at once; removed again by its TargetInfo in
 * base64. */
static void
test_sink_targets (void)
{
  gchar *file = tmp_file ("target.json");
  gchar *value = g_strdup_printf ("@%s", file);
  GstHarness *sink = make_sink (value);
  GstHarness *src;
  gchar *id = NULL, *json = NULL, *b64;
  gboolean ok = FALSE;
  gint st = -1;

  /* the first buffer brings the caps: flow and initiator set up, the
   * target still awaited, the grain written but not sent */
  g_assert_cmpint (gst_harness_push (sink, grain (0)), ==, GST_FLOW_OK);
  wait_state (sink->element, "connecting");
  wait_targets (sink->element, 1, "connecting");
  g_assert_cmpuint (sink_targets (sink->element, &id, &st), ==, 1);
  g_assert_cmpstr (id, ==, "");
  g_assert_cmpint (st, ==, enum_value ("connecting"));
  g_clear_pointer (&id, g_free);
  g_assert_cmpuint (stat_u64 (sink->element, "dropped-no-target"), ==, 1);

  /* the src writes its TargetInfo file: the sink connects */
  src = make_src (file, 0);
  gst_harness_play (src);
  wait_state (src->element, "listening");
  wait_state (sink->element, "connected");
  g_object_get (src->element, "target-info", &json, NULL);
  g_assert_nonnull (json);
  wait_targets (sink->element, 1, "connected");
  g_assert_cmpuint (sink_targets (sink->element, &id, &st), ==, 1);
  g_assert_nonnull (strstr (json, id));         /* its TargetInfo's id */
  g_clear_pointer (&id, g_free);
  transfer_one (sink, src, 1);
  wait_state (src->element, "connected");

  /* remove-target: gone from the list, the sink disconnected */
  remove_target_once (sink, value);

  /* add-target with the JSON: connected again; the same target twice is
   * refused */
  g_signal_emit_by_name (sink->element, "add-target", json, &ok);
  g_assert_true (ok);
  g_signal_emit_by_name (sink->element, "add-target", value, &ok);
  g_assert_false (ok);
  wait_state (sink->element, "connected");
  wait_targets (sink->element, 1, "connected");
  transfer_one (sink, src, 2);

  /* remove-target with the same TargetInfo spelt as base64: the target of
   * that id is removed (as add-target dedups by id), once */
  b64 = g_base64_encode ((const guchar *) json, strlen (json));
  remove_target_once (sink, b64);
  g_free (b64);

  gst_harness_teardown (sink);
  gst_harness_teardown (src);
  g_free (json);
  g_free (value);
  remove_tmp (file);
}

static GstMessage *
pop_element_message (GstBus * bus, const gchar * name)
{
  gint64 end = g_get_monotonic_time () + WAIT_US;

  while (g_get_monotonic_time () < end) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 100 * GST_MSECOND,
        GST_MESSAGE_ELEMENT);
    if (m && gst_message_has_name (m, name))
      return m;
    if (m)
      gst_message_unref (m);
  }
  g_error ("no %s message", name);
  return NULL;
}

/* The src: listening with its TargetInfo published (property, file and
 * message, the same text), connected by a sink, one grain bit-exact, then
 * no data for `timeout`: the timeout message and the state stalled, no
 * EOS. */
static void
test_src_states (void)
{
  gchar *file = tmp_file ("target.json");
  gchar *value = g_strdup_printf ("@%s", file);
  GstHarness *src = make_src (file, 300 * GST_MSECOND), *sink;
  GstBus *bus = gst_bus_new ();
  GstMessage *m;
  gchar *json = NULL, *in_file = NULL;
  guint64 last = 0;
  gboolean sent0, pushed0;

  gst_element_set_bus (src->element, bus);
  gst_harness_play (src);
  wait_state (src->element, "listening");
  m = pop_element_message (bus, "mxl-fabrics-target-info");
  g_object_get (src->element, "target-info", &json, NULL);
  g_assert_cmpstr (gst_structure_get_string (gst_message_get_structure (m),
          "target-info"), ==, json);
  gst_message_unref (m);
  g_assert_true (g_file_get_contents (file, &in_file, NULL, NULL));
  g_assert_cmpstr (in_file, ==, json);

  sink = make_sink (value);
  /* the first buffer sets the sink up; the TargetInfo file is there
   * already, so the connection may come before its render (then grain 0
   * is sent and arrives first) or after (then it is dropped-no-target:
   * wait-for-connection=false) */
  g_assert_cmpint (gst_harness_push (sink, grain (0)), ==, GST_FLOW_OK);
  sent0 = stat_u64 (sink->element, "dropped-no-target") == 0;
  wait_state (sink->element, "connected");
  /* a grain 0 that was sent is pushed, or counted skipped-at-start: these
   * elements are not in a pipeline, their base time is 0, so running time 0
   * is the clock's 0, and grain 0's index (PTS 0) may round to an origin
   * time just before it, depending on the TAI time the clock's 0 is */
  pushed0 = FALSE;
  if (sent0) {
    gint64 end = g_get_monotonic_time () + WAIT_US;

    while (stat_u64 (src->element, "buffers")
        + stat_u64 (src->element, "skipped-at-start") == 0
        && g_get_monotonic_time () < end)
      g_usleep (10 * 1000);
    g_assert_cmpuint (stat_u64 (src->element, "buffers")
        + stat_u64 (src->element, "skipped-at-start"), ==, 1);
    pushed0 = stat_u64 (src->element, "buffers") == 1;
  }
  g_test_message ("grain 0 %s", !sent0 ? "dropped-no-target" : pushed0 ?
      "sent and pushed" : "sent, skipped-at-start");
  if (pushed0)
    pull_one (src, 0);
  transfer_one (sink, src, 1);
  wait_state (src->element, "connected");
  g_assert_cmpuint (stat_u64 (src->element, "buffers"), ==, 1 + pushed0);
  g_assert_cmpuint (stat_u64 (src->element, "bytes"), ==,
      (1 + pushed0) * GRAIN_SIZE);

  /* nothing more: timeout, stalled */
  m = pop_element_message (bus, "mxl-fabrics-timeout");
  g_assert_true (gst_structure_get_uint64 (gst_message_get_structure (m),
          "timeout", &last));
  g_assert_cmpuint (last, ==, 300 * GST_MSECOND);
  gst_message_unref (m);
  wait_state (src->element, "stalled");
  g_assert_cmpuint (stat_u64 (src->element, "timeouts"), ==, 1);

  gst_harness_teardown (sink);
  gst_element_set_bus (src->element, NULL);
  gst_harness_teardown (src);
  gst_object_unref (bus);
  g_free (json);
  g_free (in_file);
  g_free (value);
  remove_tmp (file);
}

/* WARNINGs on @bus whose text holds @needle, popped (the others too). */
static guint
count_warnings (GstBus * bus, const gchar * needle)
{
  GstMessage *m;
  guint n = 0;

  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
    GError *e = NULL;

    gst_message_parse_warning (m, &e, NULL);
    if (strstr (e->message, needle))
      n++;
    g_error_free (e);
    gst_message_unref (m);
  }
  return n;
}

/* Waits (bounded) for one WARNING holding @needle; returns how many came
 * with it. */
static guint
wait_warning (GstBus * bus, const gchar * needle)
{
  gint64 end = g_get_monotonic_time () + WAIT_US;
  guint n = 0;

  while (n == 0 && g_get_monotonic_time () < end) {
    n = count_warnings (bus, needle);
    if (n == 0)
      g_usleep (10 * 1000);
  }
  if (n == 0)
    g_error ("no WARNING \"%s\"", needle);
  return n;
}

/* The state of the target given as @source in the sink's "targets", -1
 * when it is not there. */
static gint
target_state (GstElement * sink, const gchar * source)
{
  GstStructure *s;
  const GValue *arr;
  gint st = -1;
  guint i;

  g_object_get (sink, "stats", &s, NULL);
  arr = gst_structure_get_value (s, "targets");
  for (i = 0; i < gst_value_array_get_size (arr); i++) {
    const GstStructure *t =
        gst_value_get_structure (gst_value_array_get_value (arr, i));
    if (g_strcmp0 (gst_structure_get_string (t, "source"), source) == 0)
      gst_structure_get_enum (t, "state",
          g_type_from_name ("GstMxlFabricsConnectionState"), &st);
  }
  gst_structure_free (s);
  return st;
}

static void
wait_target_state (GstElement * sink, const gchar * source, const gchar * nick)
{
  gint64 end = g_get_monotonic_time () + WAIT_US;

  while (target_state (sink, source) != enum_value (nick)) {
    if (g_get_monotonic_time () > end)
      g_error ("target %s: state %d, not %s", source,
          target_state (sink, source), nick);
    g_usleep (10 * 1000);
  }
}

/* A target's transitions (mxlfabricssinktarget.h): awaiting its @path
 * file → connecting → connected → lost (its src stops: one WARNING) →
 * connected to the restarted src (its new TargetInfo in the file); a
 * malformed file then → failed with one WARNING, however long it stays;
 * a second target removed while it is connecting. */
static void
test_sink_transitions (void)
{
  gchar *file = tmp_file ("transitions.json");
  gchar *value = g_strdup_printf ("@%s", file);
  GstHarness *sink = make_sink (value), *src;
  GstBus *bus = gst_bus_new ();
  gchar *stale = NULL;
  gboolean ok = FALSE;

  gst_element_set_bus (sink->element, bus);
  g_assert_cmpint (gst_harness_push (sink, grain (0)), ==, GST_FLOW_OK);
  wait_target_state (sink->element, value, "connecting");       /* awaiting */

  src = make_src (file, 0);
  gst_harness_play (src);
  wait_target_state (sink->element, value, "connected");
  transfer_one (sink, src, 1);
  g_object_get (src->element, "target-info", &stale, NULL);
  g_assert_cmpuint (count_warnings (bus, "lost"), ==, 0);

  /* the src stops: lost, one WARNING */
  gst_harness_teardown (src);
  g_assert_cmpuint (wait_warning (bus, "connection to target"), ==, 1);
  /* re-added with its old TargetInfo, nobody listening: connecting (the
   * stats snapshot no longer says connected) */
  wait_target_state (sink->element, value, "connecting");
  /* a restarted src writes a new TargetInfo: connected again */
  src = make_src (file, 0);
  gst_harness_play (src);
  wait_target_state (sink->element, value, "connected");
  transfer_one (sink, src, 2);
  g_assert_cmpuint (count_warnings (bus, " lost "), ==, 0);

  /* a malformed file: failed, one WARNING, not repeated */
  g_assert_true (g_file_set_contents (file, "{\"not\":\"a TargetInfo\"}", -1,
          NULL));
  wait_target_state (sink->element, value, "error");
  g_assert_cmpuint (wait_warning (bus, " failed: "), ==, 1);
  g_usleep (500 * 1000);
  g_assert_cmpuint (count_warnings (bus, " failed: "), ==, 0);
  g_assert_cmpint (target_state (sink->element, value), ==,
      enum_value ("error"));

  /* the first src's TargetInfo is stale (nobody listens): connecting
   * until removed, then gone from the list at once */
  g_signal_emit_by_name (sink->element, "add-target", stale, &ok);
  g_assert_true (ok);
  wait_target_state (sink->element, stale, "connecting");
  g_signal_emit_by_name (sink->element, "remove-target", stale, &ok);
  g_assert_true (ok);
  wait_targets (sink->element, 1, "error");
  g_assert_cmpint (target_state (sink->element, stale), ==, -1);

  gst_harness_teardown (sink);
  gst_harness_teardown (src);
  gst_object_unref (bus);
  g_free (stale);
  g_free (value);
  remove_tmp (file);
}

/* A target's @path file that turns out a FIFO (here with a writer that
 * stays silent): the engine thread's read refuses it at once, without its
 * lock held (sinktargetfile.c): one WARNING naming the file and "not a
 * regular file", the target failed; the sink's stop right after is prompt
 * (a failure bound, not a speed target). Before, the read waited 1 s for
 * the FIFO under the engine lock and said "nothing to read". */
static void
test_sink_fifo (void)
{
  gchar *file = tmp_file ("fifo.json");
  gchar *value = g_strdup_printf ("@%s", file);
  GstHarness *sink = make_sink (value);
  GstBus *bus = gst_bus_new ();
  gchar *needle;
  gint64 t0;
  int wfd;

  gst_element_set_bus (sink->element, bus);
  g_assert_cmpint (gst_harness_push (sink, grain (0)), ==, GST_FLOW_OK);
  wait_target_state (sink->element, value, "connecting");       /* awaiting */
  g_assert_cmpint (mkfifo (file, 0600), ==, 0);
  wfd = open (file, O_RDWR | O_NONBLOCK);
  g_assert_cmpint (wfd, >=, 0);
  needle = g_strdup_printf ("cannot read %s: not a regular file (a FIFO)",
      file);
  g_assert_cmpuint (wait_warning (bus, needle), ==, 1);
  wait_target_state (sink->element, value, "error");
  t0 = g_get_monotonic_time ();
  g_assert_cmpint (gst_element_set_state (sink->element, GST_STATE_NULL), ==,
      GST_STATE_CHANGE_SUCCESS);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 2 * G_USEC_PER_SEC);
  close (wfd);
  gst_harness_teardown (sink);
  gst_object_unref (bus);
  g_free (needle);
  g_free (value);
  remove_tmp (file);
}

/* The delay of the next loss WARNING on @bus ("... lost (...):
 * reconnecting in N ms"), waited for (bounded); "not reachable" (attempts
 * refused while a src restarts slowly under load) is skipped, other
 * WARNINGs fail. */
static guint
wait_loss_delay (GstBus * bus)
{
  GstMessage *m;
  GError *e = NULL;
  const gchar *at;
  guint delay;

  for (;;) {
    m = gst_bus_timed_pop_filtered (bus, WAIT_US * GST_USECOND,
        GST_MESSAGE_WARNING);
    g_assert_nonnull (m);
    gst_message_parse_warning (m, &e, NULL);
    if (strstr (e->message, " not reachable after ") == NULL)
      break;
    g_clear_error (&e);
    gst_message_unref (m);
  }
  at = strstr (e->message, "reconnecting in ");
  if (!strstr (e->message, " lost (") || at == NULL)
    g_error ("not a loss WARNING: %s", e->message);
  delay = (guint) g_ascii_strtoull (at + strlen ("reconnecting in "), NULL, 10);
  g_error_free (e);
  gst_message_unref (m);
  return delay;
}

/* A receiver that accepts and drops at once (the connection to its src,
 * through a relay on the port the sink's TargetInfo names, dropped as soon
 * as it is connected; the src stays the same target, so its TargetInfo
 * stays valid): the library retries the lost target with its back-off,
 * which does not start afresh on a connection that did not stay up, so the
 * loss WARNINGs say 100 ms, then at least twice as long each time, and
 * the sink reconnects once per loss (not every 200 ms). */
static void
test_sink_backoff (void)
{
  gchar *file = tmp_file ("backoff.json"), *service = tcp_relay_free_port ();
  GstHarness *src = make_src_on (file, 0, service), *sink;
  GstBus *bus = gst_bus_new ();
  TcpRelay *relay = tcp_relay_new ((guint16) atoi (service));
  gchar *json = NULL, *relayed;
  guint delays[4], k;
  gint64 t0;

  gst_harness_play (src);
  wait_state (src->element, "listening");
  g_object_get (src->element, "target-info", &json, NULL);
  relayed = tcp_relay_retarget (json, tcp_relay_port (relay));
  sink = make_sink (relayed);
  gst_element_set_bus (sink->element, bus);
  g_assert_cmpint (gst_harness_push (sink, grain (0)), ==, GST_FLOW_OK);
  wait_state (sink->element, "connected");
  t0 = g_get_monotonic_time ();
  for (k = 0; k < G_N_ELEMENTS (delays); k++) {
    gint64 end = g_get_monotonic_time () + WAIT_US;

    /* connection k + 1 is carried, and the src has taken it */
    while (tcp_relay_accepted (relay) < k + 1) {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_usleep (1000);
    }
    wait_state (src->element, "connected");
    tcp_relay_drop (relay);
    delays[k] = wait_loss_delay (bus);
  }
  wait_state (src->element, "connected");
  wait_state (sink->element, "connected");
  g_test_message ("loss delays %u %u %u %u ms, %" G_GINT64_FORMAT " ms",
      delays[0], delays[1], delays[2], delays[3],
      (g_get_monotonic_time () - t0) / 1000);
  g_assert_cmpuint (delays[0], ==, 100);
  for (k = 1; k < G_N_ELEMENTS (delays); k++)
    g_assert_cmpuint (delays[k], >=, 2 * delays[k - 1]);
  /* the retries waited their delays (100 + 200 + 400 + 800 ms at least) */
  g_assert_cmpint (g_get_monotonic_time () - t0, >=, 1500 * 1000);
  g_assert_cmpuint (stat_u64 (sink->element, "reconnects"), ==,
      G_N_ELEMENTS (delays));
  g_assert_cmpuint (count_warnings (bus, " lost "), ==, 0);

  gst_harness_teardown (sink);
  gst_harness_teardown (src);
  tcp_relay_free (relay);
  gst_object_unref (bus);
  g_free (relayed);
  g_free (json);
  g_free (service);
  remove_tmp (file);
}

/* A stale TargetInfo (issue 15): the src restarted on the same port is
 * another target; the sink given its old TargetInfo says so in a WARNING,
 * the target is failed, and the sink never reports it connected. */
static void
test_sink_stale (void)
{
  gchar *file = tmp_file ("stale.json"), *service = tcp_relay_free_port ();
  GstHarness *src = make_src_on (file, 0, service), *sink;
  GstBus *bus = gst_bus_new ();
  gchar *json = NULL, *fresh = NULL;
  gint64 end;

  gst_harness_play (src);
  wait_state (src->element, "listening");
  g_object_get (src->element, "target-info", &json, NULL);
  g_assert_cmpint (gst_element_set_state (src->element, GST_STATE_NULL), ==,
      GST_STATE_CHANGE_SUCCESS);
  g_assert_cmpint (gst_element_set_state (src->element, GST_STATE_PLAYING),
      !=, GST_STATE_CHANGE_FAILURE);
  wait_state (src->element, "listening");
  g_object_get (src->element, "target-info", &fresh, NULL);
  g_assert_cmpstr (fresh, !=, json);
  sink = make_sink (json);
  gst_element_set_bus (sink->element, bus);
  g_assert_cmpint (gst_harness_push (sink, grain (0)), ==, GST_FLOW_OK);
  end = g_get_monotonic_time () + WAIT_US;
  while (target_state (sink->element, json) != enum_value ("error")) {
    g_assert_cmpint (state_of (sink->element), !=, enum_value ("connected"));
    g_assert_cmpint (g_get_monotonic_time (), <, end);
    g_usleep (1000);
  }
  /* the WARNING is posted once the engine thread released its lock, which
   * may be just after the state shows: waited for (bounded) */
  g_assert_cmpuint (wait_warning (bus, "is a different target than the "
          "TargetInfo names (restarted?)"), ==, 1);
  /* it stays failed: no retry flips it to connected */
  end = g_get_monotonic_time () + 500 * 1000;
  while (g_get_monotonic_time () < end) {
    g_assert_cmpint (state_of (sink->element), !=, enum_value ("connected"));
    g_usleep (5000);
  }
  g_assert_cmpint (state_of (src->element), ==, enum_value ("listening"));

  gst_harness_teardown (sink);
  gst_harness_teardown (src);
  gst_object_unref (bus);
  g_free (json);
  g_free (fresh);
  g_free (service);
  remove_tmp (file);
}

int
main (int argc, char **argv)
{
  /* Scan in this process: under AddressSanitizer the forked
   * gst-plugin-scanner cannot load the plugin and would blacklist it in
   * the shared test registry (tests/meson.build). */
  gst_registry_fork_set_enabled (FALSE);
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/harness/sink-targets/tcp", test_sink_targets);
  g_test_add_func ("/gst/harness/src-states/tcp", test_src_states);
  g_test_add_func ("/gst/harness/sink-transitions/tcp", test_sink_transitions);
  g_test_add_func ("/gst/harness/sink-fifo/tcp", test_sink_fifo);
  g_test_add_func ("/gst/harness/sink-backoff/tcp", test_sink_backoff);
  g_test_add_func ("/gst/harness/sink-stale/tcp", test_sink_stale);
  return g_test_run ();
}
