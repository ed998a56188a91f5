/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssink honours credits (issue 16, the sender's part;
 * gst/sinkcredit.h): the receivers are library targets of this process set
 * up with the option "credits": true (tcp on 127.0.0.1), each with a reader
 * thread that reads every grain, checksums its payload and releases it
 * (mxlFabricsExtTargetReleaseGrain) at a controlled rate; the sender is the
 * real mxlfabricssink after videotestsrc, whose frames an identity
 * checksums.
 *  - not live, much faster than a reader that sleeps between reads: 60 of 60
 *    grains, consecutive indices, the sent frames' checksums (the sink
 *    without and with the library's progress thread);
 *  - live, a reader that stops releasing: real time kept, each grain
 *    delivered or counted dropped-no-credit (element and target);
 *  - fan-out with one stalled receiver (not live and live): the other gets
 *    every frame, the stalled one's frames are counted for it alone;
 *  - a render waiting for a credit ends at once when the pipeline goes to
 *    NULL, and an EOS sent to the pipeline ends it too;
 *  - a receiver without credits is sent to as before: nothing waits,
 *    nothing is counted dropped-no-credit.
 */
#include <string.h>

#include <glib/gstdio.h>
#include <gst/gst.h>

#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>
#include <mxl/flow.h>
#include <mxl/flow-ext.h>

#include "../hardening/hgst.h"
#include "libtarget.h"

#define W 96
#define H 54
#define RATE 30
#define CAPS "video/x-raw,format=v210,width=96,height=54,framerate=30/1"
#define FRAMES 60
#define RING 8                  /* the receivers' grain count */
#define CREDITS "{\"progressThread\": true, \"credits\": true}"
#define PLAIN "{\"progressThread\": true}"
#define READ_SLEEP_MS 50        /* test a's reader, per grain */

/* One receiver: a target in its own private domain and its reader. */
typedef struct {
  LibTarget lt;                 /* the target, its flow and TargetInfo file */
  gchar *source;                /* "@" file: its `source` in the sink's stats */
  /* the reader thread */
  GThread *thread;
  guint sleep_ms;               /* before each release */
  guint release_max;            /* releases at most this many */
  gint stop;                    /* atomic */
  GMutex lock;
  GArray *indices;              /* guint64, lock */
  GPtrArray *sums;              /* SHA-1 of each grain's payload, lock */
} Recv;

static gpointer
reader_run (gpointer data)
{
  Recv *r = data;
  guint released = 0;

  while (!g_atomic_int_get (&r->stop)) {
    uint64_t index = 0;
    mxlGrainInfo gi;
    uint8_t *payload = NULL;
    gchar *sum = NULL;

    if (mxlFabricsTargetReadGrain (r->lt.target, 50, &index) != MXL_STATUS_OK)
      continue;
    if (mxlFlowReaderGetGrainNonBlocking (r->lt.reader, index, &gi,
            &payload) == MXL_STATUS_OK)
      sum = g_compute_checksum_for_data (G_CHECKSUM_SHA1, payload,
          gi.grainSize);
    g_mutex_lock (&r->lock);
    g_array_append_val (r->indices, index);
    g_ptr_array_add (r->sums, sum);
    g_mutex_unlock (&r->lock);
    if (released >= r->release_max)
      continue;
    g_usleep (r->sleep_ms * 1000);
    g_assert_cmpint (mxlFabricsExtTargetReleaseGrain (r->lt.target, index), ==,
        MXL_STATUS_OK);
    released++;
  }
  return NULL;
}

/* A receiver set up with @options whose reader sleeps @sleep_ms before
 * each release and releases at most @release_max grains. */
static Recv *
recv_new (const gchar * options, guint sleep_ms, guint release_max)
{
  static guint n;
  Recv *r = g_new0 (Recv, 1);
  gchar *flow_id = g_strdup_printf ("6a0c2e5e-3b1d-4f7a-9c2e-%012u", ++n);
  gchar *def = g_strdup_printf ("{\"id\":\"%s\",\"description\":\"credits\","
      "\"format\":\"urn:x-nmos:format:video\",\"label\":\"credits\","
      "\"tags\":{\"urn:x-nmos:tag:grouphint/v1.0\":[\"Credits:Video\"]},"
      "\"parents\":[],\"media_type\":\"video/v210\","
      "\"grain_rate\":{\"numerator\":%d,\"denominator\":1},"
      "\"frame_width\":%d,\"frame_height\":%d,"
      "\"interlace_mode\":\"progressive\",\"colorspace\":\"BT709\"}",
      flow_id, RATE, W, H);
  mxlFlowConfigInfo config;
  bool created = false;

  lib_target_domain (&r->lt);
  g_assert_cmpint (mxlCreateFlowWriterWithGrainCount (r->lt.mxl, def, NULL,
          RING, &r->lt.writer, &config, &created), ==, MXL_STATUS_OK);
  g_assert_cmpuint (config.discrete.grainCount, ==, RING);
  g_free (lib_target_setup (&r->lt, flow_id, options));
  r->source = g_strconcat ("@", r->lt.file, NULL);
  r->sleep_ms = sleep_ms;
  r->release_max = release_max;
  g_mutex_init (&r->lock);
  r->indices = g_array_new (FALSE, FALSE, sizeof (guint64));
  r->sums = g_ptr_array_new_with_free_func (g_free);
  r->thread = g_thread_new ("reader", reader_run, r);
  g_free (def);
  g_free (flow_id);
  return r;
}

static void
recv_free (Recv * r)
{
  g_atomic_int_set (&r->stop, 1);
  g_thread_join (r->thread);
  lib_target_clear (&r->lt);
  g_array_unref (r->indices);
  g_ptr_array_unref (r->sums);
  g_mutex_clear (&r->lock);
  g_free (r->source);
  g_free (r);
}

static guint
recv_count (Recv * r)
{
  guint n;

  g_mutex_lock (&r->lock);
  n = r->indices->len;
  g_mutex_unlock (&r->lock);
  return n;
}

/* Waits (bounded by @ms) until @r read @n grains; returns how many it read. */
static guint
recv_wait (Recv * r, guint n, guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  while (recv_count (r) < n && g_get_monotonic_time () < end)
    g_usleep (5 * 1000);
  return recv_count (r);
}

static mxlFabricsExtTargetStats
recv_stats (Recv * r)
{
  mxlFabricsExtTargetStats s = {.version = MXL_FABRICS_API_VERSION };

  g_assert_cmpint (mxlFabricsExtTargetGetStats (r->lt.target, &s), ==,
      MXL_STATUS_OK);
  return s;
}

/* Waits (bounded by @ms) until @r sent @n releases; returns how many. */
static guint64
releases_wait (Recv * r, guint64 n, guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  while (recv_stats (r).creditReleasesSent < n
      && g_get_monotonic_time () < end)
    g_usleep (5 * 1000);
  return recv_stats (r).creditReleasesSent;
}

/* @r got every sent frame: as many, consecutive indices, the same bytes. */
static void
assert_all_exact (Recv * r, GPtrArray * sent)
{
  guint k;

  g_mutex_lock (&r->lock);
  g_assert_cmpuint (r->indices->len, ==, sent->len);
  for (k = 0; k < r->indices->len; k++) {
    g_assert_cmpuint (g_array_index (r->indices, guint64, k), ==,
        g_array_index (r->indices, guint64, 0) + k);
    g_assert_cmpstr (g_ptr_array_index (r->sums, k), ==,
        g_ptr_array_index (sent, k));
  }
  g_mutex_unlock (&r->lock);
}

static void
on_handoff (GstElement * identity, GstBuffer * b, GPtrArray * sums)
{
  g_ptr_array_add (sums, hgst_checksum (b));
}

/* videotestsrc (@live) ! identity ! mxlfabricssink (@sync) to the
 * target-info @targets; the frames' SHA-1s go to @sums. */
static GstElement *
sender_new (gboolean live, guint frames, gboolean sync, const gchar * targets,
    GPtrArray * sums)
{
  gchar *desc = g_strdup_printf ("videotestsrc is-live=%d num-buffers=%u "
      "pattern=ball ! " CAPS " ! identity name=id signal-handoffs=true ! "
      "mxlfabricssink name=sink provider=tcp node=" HGST_NODE " sync=%d "
      "target-info=\"%s\"", live, frames, sync, targets);
  GstElement *p = hgst_parse (desc);
  GstElement *id = gst_bin_get_by_name (GST_BIN (p), "id");

  g_signal_connect (id, "handoff", G_CALLBACK (on_handoff), sums);
  gst_object_unref (id);
  g_free (desc);
  return p;
}

/* Waits for EOS (at most @ms); fails on an ERROR or without EOS. The
 * WARNINGs before it go to @warnings (nullable), "message (debug)" one a
 * line. Returns the time it took (us). */
static gint64
wait_eos_warnings (GstElement * p, guint ms, GString * warnings)
{
  gint64 t0 = g_get_monotonic_time (), end = t0 + (gint64) ms * 1000;
  GstBus *bus = gst_element_get_bus (p);
  gboolean eos = FALSE;

  while (!eos && g_get_monotonic_time () < end) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus,
        (end - g_get_monotonic_time ()) * GST_USECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
    GError *e = NULL;
    gchar *debug = NULL;

    if (msg == NULL)
      break;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &e, NULL);
      g_error ("ERROR: %s", e->message);
    }
    eos = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
    if (!eos && warnings != NULL) {
      gst_message_parse_warning (msg, &e, &debug);
      g_string_append_printf (warnings, "%s (%s)\n", e->message, debug);
      g_error_free (e);
      g_free (debug);
    }
    gst_message_unref (msg);
  }
  g_assert_true (eos);
  gst_object_unref (bus);
  return g_get_monotonic_time () - t0;
}

static gint64
wait_eos (GstElement * p, guint ms)
{
  return wait_eos_warnings (p, ms, NULL);
}

/* A uint64 of the sink's `targets` entry whose source is @r's. */
static guint64
target_stat (GstElement * p, Recv * r, const gchar * field)
{
  return hgst_sink_target_stat (p, r->source, field);
}

/* The sink sent every frame to @r: none dropped, none for want of credit. */
static void
assert_all_sent (GstElement * p, Recv * r)
{
  g_assert_cmpuint (hgst_stat (p, "sink", "grains"), ==, FRAMES);
  g_assert_cmpuint (hgst_stat (p, "sink", "dropped"), ==, 0);
  g_assert_cmpuint (hgst_stat (p, "sink", "dropped-no-credit"), ==, 0);
  g_assert_cmpuint (target_stat (p, r, "grains"), ==, FRAMES);
  g_assert_cmpuint (target_stat (p, r, "dropped-no-credit"), ==, 0);
}

/* One receiver and its sender (sync=true when live), not played yet. */
typedef struct {
  Recv *r;
  GPtrArray *sent;              /* the SHA-1s of the frames sent */
  GstElement *p;
} Case;

static void
case_init (Case * c, const gchar * options, guint sleep_ms,
    guint release_max, gboolean live, guint frames)
{
  c->r = recv_new (options, sleep_ms, release_max);
  c->sent = g_ptr_array_new_with_free_func (g_free);
  c->p = sender_new (live, frames, live, c->r->source, c->sent);
}

static void
case_clear (Case * c)
{
  hgst_stop (c->p);
  g_ptr_array_unref (c->sent);
  recv_free (c->r);
}

/* a. Not live, a reader that sleeps READ_SLEEP_MS before each release
 * (the sender, not live and sync=false, would go many times faster): the
 * sink waits for each credit and every grain arrives. */
static void
not_live_slow_reader (gboolean threaded)
{
  Case c;
  gint64 took;

  case_init (&c, CREDITS, READ_SLEEP_MS, G_MAXUINT, FALSE, FRAMES);
  /* with the library's progress thread, its notify wakes the wait */
  if (threaded) {
    GstElement *sink = gst_bin_get_by_name (GST_BIN (c.p), "sink");

    g_object_set (sink, "options", "{\"progressThread\": true}", NULL);
    gst_object_unref (sink);
  }
  hgst_play (c.p);
  took = wait_eos (c.p, 20000);
  g_assert_cmpuint (recv_wait (c.r, FRAMES, 5000), ==, FRAMES);
  g_assert_cmpuint (c.sent->len, ==, FRAMES);
  assert_all_exact (c.r, c.sent);
  /* held back by the reader: at least the releases of all but a ring */
  g_assert_cmpint (took, >=, (FRAMES - RING) * READ_SLEEP_MS * 1000 * 9 / 10);
  assert_all_sent (c.p, c.r);
  g_assert_cmpuint (releases_wait (c.r, FRAMES, 2000), ==, FRAMES);
  g_test_message ("not live, progress thread %d: %u grains in %"
      G_GINT64_FORMAT " ms", threaded, recv_count (c.r), took / 1000);
  case_clear (&c);
}

static void
test_not_live_slow_reader (void)
{
  not_live_slow_reader (FALSE);
}

static void
test_not_live_slow_reader_threaded (void)
{
  not_live_slow_reader (TRUE);
}

/* b. Live, a reader that releases 10 grains and then no more: the sink
 * never waits (EOS after the frames' 2 s, within 1.5 s more), and every
 * rendered frame is either delivered or the target's dropped-no-credit. */
static void
test_live_stops_releasing (void)
{
  Case c;
  guint64 grains, no_credit;
  gint64 took;

  case_init (&c, CREDITS, 0, 10, TRUE, FRAMES);
  hgst_play (c.p);
  took = wait_eos (c.p, 10000);
  g_assert_cmpint (took, <=, (FRAMES * G_USEC_PER_SEC) / RATE + 1500 * 1000);
  grains = hgst_stat (c.p, "sink", "grains");
  no_credit = hgst_stat (c.p, "sink", "dropped-no-credit");
  g_assert_cmpuint (hgst_stat (c.p, "sink", "buffers"), ==, FRAMES);
  g_assert_cmpuint (no_credit, >, 0);
  g_assert_cmpuint (grains + no_credit, ==, FRAMES);
  g_assert_cmpuint (hgst_stat (c.p, "sink", "dropped"), ==, no_credit);
  g_assert_cmpuint (hgst_stat (c.p, "sink", "dropped-no-target"), ==, 0);
  g_assert_cmpuint (target_stat (c.p, c.r, "dropped-no-credit"), ==, no_credit);
  g_assert_cmpuint (target_stat (c.p, c.r, "dropped"), ==, no_credit);
  g_assert_cmpuint (target_stat (c.p, c.r, "grains"), ==, grains);
  /* the ring's first use and the 10 released slots' next grains */
  g_assert_cmpuint (grains, ==, RING + 10);
  g_assert_cmpuint (recv_wait (c.r, grains, 2000), ==, grains);
  g_assert_cmpuint (recv_stats (c.r).grainsReceived, ==, grains);
  g_test_message ("live: %" G_GUINT64_FORMAT " delivered, %" G_GUINT64_FORMAT
      " dropped-no-credit, EOS after %" G_GINT64_FORMAT " ms", grains,
      no_credit, took / 1000);
  case_clear (&c);
}

/* Prerolls @p and waits (bounded by 5 s) until @a and @b are connected
 * targets of its sink, then plays it: no grain goes to one target while
 * the other still connects (counted `dropped`, not `dropped-no-credit`). */
static void
play_connected (GstElement * p, Recv * a, Recv * b)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  GType type = g_type_from_name ("GstMxlFabricsConnectionState");
  gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  guint connected = 0;

  g_assert_cmpint (gst_element_set_state (p, GST_STATE_PAUSED), !=,
      GST_STATE_CHANGE_FAILURE);
  while (connected < 2 && g_get_monotonic_time () < end) {
    Recv *r[2] = { a, b };
    guint k;

    g_usleep (10 * 1000);
    connected = 0;
    for (k = 0; k < 2; k++) {
      GstStructure *t = hgst_sink_target_stats (sink, r[k]->source);
      gint state = -1;

      if (t && gst_structure_get_enum (t, "state", type, &state)
          && state == 3)
        connected++;
      if (t)
        gst_structure_free (t);
    }
  }
  gst_object_unref (sink);
  g_assert_cmpuint (connected, ==, 2);
  hgst_play (p);
}

/* c. Fan-out: @a releases every grain, @b never: @a gets every frame, @b
 * a ring of them and counts the rest as its own dropped-no-credit. */
static void
fanout_stalled (gboolean live)
{
  Recv *a = recv_new (CREDITS, 0, G_MAXUINT);
  Recv *b = recv_new (CREDITS, 0, 0);
  GPtrArray *sent = g_ptr_array_new_with_free_func (g_free);
  gchar *targets = g_strdup_printf ("%s;%s", a->source, b->source);
  GstElement *p = sender_new (live, FRAMES, live, targets, sent);
  GString *warnings = g_string_new (NULL);
  gint64 took;

  play_connected (p, a, b);
  took = wait_eos_warnings (p, 10000, warnings);
  g_assert_cmpuint (recv_wait (a, FRAMES, 3000), ==, FRAMES);
  assert_all_exact (a, sent);
  /* not live: one wait for b's credit, then it is stalled */
  if (!live)
    g_assert_cmpint (took, <, 3 * G_USEC_PER_SEC);
  g_assert_cmpuint (hgst_stat (p, "sink", "grains"), ==, FRAMES);
  g_assert_cmpuint (hgst_stat (p, "sink", "dropped"), ==, 0);
  g_assert_cmpuint (hgst_stat (p, "sink", "dropped-no-credit"), ==, 0);
  g_test_message ("b: grains %" G_GUINT64_FORMAT ", dropped %"
      G_GUINT64_FORMAT ", dropped-no-credit %" G_GUINT64_FORMAT ", read %u",
      target_stat (p, b, "grains"), target_stat (p, b, "dropped"),
      target_stat (p, b, "dropped-no-credit"), recv_count (b));
  g_assert_cmpuint (target_stat (p, a, "grains"), ==, FRAMES);
  g_assert_cmpuint (target_stat (p, a, "dropped"), ==, 0);
  g_assert_cmpuint (target_stat (p, b, "grains"), ==, RING);
  g_assert_cmpuint (target_stat (p, b, "dropped-no-credit"), ==,
      FRAMES - RING);
  g_assert_cmpuint (target_stat (p, b, "dropped"), ==, FRAMES - RING);
  g_assert_cmpuint (recv_wait (b, RING, 2000), ==, RING);
  g_assert_cmpuint (recv_stats (b).grainsReceived, ==, RING);
  /* the "falling behind" WARNING names b, not a */
  g_assert_nonnull (strstr (warnings->str, "falling behind"));
  g_assert_nonnull (strstr (warnings->str, b->lt.file));
  g_assert_null (strstr (warnings->str, a->lt.file));
  g_string_free (warnings, TRUE);
  g_test_message ("fan-out, live %d: %u and %u grains, EOS after %"
      G_GINT64_FORMAT " ms", live, recv_count (a), recv_count (b),
      took / 1000);
  hgst_stop (p);
  g_free (targets);
  g_ptr_array_unref (sent);
  recv_free (a);
  recv_free (b);
}

static void
test_fanout_stalled_not_live (void)
{
  fanout_stalled (FALSE);
}

static void
test_fanout_stalled_live (void)
{
  fanout_stalled (TRUE);
}

/* Plays a not-live sender into a receiver that never releases and waits
 * until the sink's render waits for a credit: the ring was delivered and
 * one more buffer rendered. */
static void
start_stalled (Case * c)
{
  case_init (c, CREDITS, 0, 0, FALSE, 600);
  hgst_play (c->p);
  g_assert_cmpuint (recv_wait (c->r, RING, 5000), ==, RING);
  hgst_wait_rendered (c->p, RING + 1, 2000);
  g_usleep (50 * 1000);
  /* the render of the grain after the ring waits (a 1 s bound) */
  g_assert_cmpuint (hgst_stat (c->p, "sink", "buffers"), ==, RING + 1);
  g_assert_cmpuint (hgst_stat (c->p, "sink", "dropped-no-credit"), ==, 0);
}

/* d. A render waiting for a credit ends when the pipeline goes to NULL,
 * long before its 1 s bound. */
static void
test_null_interrupts_wait (void)
{
  Case c;
  gint64 t0, took;

  start_stalled (&c);
  t0 = g_get_monotonic_time ();
  g_assert_cmpint (gst_element_set_state (c.p, GST_STATE_NULL), ==,
      GST_STATE_CHANGE_SUCCESS);
  took = g_get_monotonic_time () - t0;
  g_test_message ("NULL while render waits for a credit: %" G_GINT64_FORMAT
      " ms", took / 1000);
  g_assert_cmpint (took, <, 400 * 1000);
  case_clear (&c);
}

/* d. An EOS sent to the pipeline (gst-launch-1.0 -e) while render waits
 * for a stalled target's credit: the pipeline ends at once (the source
 * allocates from the sink's pool, whose flush ends the wait; without that
 * the target is stalled after 1 s at most). */
static void
test_eos_with_stalled_target (void)
{
  Case c;
  gint64 t0, took;

  start_stalled (&c);
  t0 = g_get_monotonic_time ();
  g_assert_true (gst_element_send_event (c.p, gst_event_new_eos ()));
  wait_eos (c.p, 3000);
  took = g_get_monotonic_time () - t0;
  g_test_message ("EOS while render waits for a credit: %" G_GINT64_FORMAT
      " ms", took / 1000);
  g_assert_cmpint (took, <, 500 * 1000);
  g_assert_cmpuint (hgst_stat (c.p, "sink", "grains"), ==, RING);
  case_clear (&c);
}

/* e. A receiver without the option: no credits, the sink sends every
 * grain at once (a slow reader is lapped, as before), nothing counted
 * dropped-no-credit. */
static void
test_no_credits_as_before (void)
{
  Case c;
  gint64 took;

  case_init (&c, PLAIN, 0, 0, FALSE, FRAMES);
  hgst_play (c.p);
  took = wait_eos (c.p, 10000);
  g_assert_cmpint (took, <, 2 * G_USEC_PER_SEC);
  assert_all_sent (c.p, c.r);
  g_assert_cmpuint (recv_stats (c.r).creditReleasesSent, ==, 0);
  g_test_message ("without credits: EOS after %" G_GINT64_FORMAT " ms, %u "
      "grains read", took / 1000, recv_count (c.r));
  case_clear (&c);
}

int
main (int argc, char **argv)
{
  hgst_init (&argc, &argv, 0);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/credits-sink/not-live-slow-reader",
      test_not_live_slow_reader);
  g_test_add_func ("/gst/credits-sink/not-live-slow-reader-threaded",
      test_not_live_slow_reader_threaded);
  g_test_add_func ("/gst/credits-sink/live-stops-releasing",
      test_live_stops_releasing);
  g_test_add_func ("/gst/credits-sink/fanout-stalled-not-live",
      test_fanout_stalled_not_live);
  g_test_add_func ("/gst/credits-sink/fanout-stalled-live",
      test_fanout_stalled_live);
  g_test_add_func ("/gst/credits-sink/null-interrupts-wait",
      test_null_interrupts_wait);
  g_test_add_func ("/gst/credits-sink/eos-with-stalled-target",
      test_eos_with_stalled_target);
  g_test_add_func ("/gst/credits-sink/no-credits-as-before",
      test_no_credits_as_before);
  return g_test_run ();
}
