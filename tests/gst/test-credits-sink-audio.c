/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssink honours credits for audio (issue 16, one credit per
 * bounce entry; gst/sinkcredit.h): the receiver is a library target of
 * this process for a mono 48 kHz flow, set up with "credits": true (tcp on
 * 127.0.0.1) and no progress thread, so that it consumes (and releases)
 * bounce entries only as fast as its reader thread reads, which sleeps
 * between reads; the sender is the real mxlfabricssink after audiotestsrc
 * (not live), which runs far ahead of it. Every sample arrives, in order
 * and exact (compared with what the same audiotestsrc produces), none is
 * lost at the target, the sink counts nothing dropped-no-credit, and every
 * entry was released once. A live input into a receiver that reads
 * nothing: as many batches as entries sent, every later one
 * dropped-no-credit.
 */
#include <string.h>

#include <gst/gst.h>

#include <mxl/fabrics-ext.h>

#include "libtarget.h"

#define RATE 48000
#define BATCH 480               /* samples per buffer and per bounce entry */
#define BUFFERS 60
#define READ_SLEEP_MS 5         /* the reader, per batch */
#define LIVE_BUFFERS 100         /* more than the receiver's 41 entries */

typedef struct {
  LibTarget lt;                 /* the target, its flow and TargetInfo file */
  GThread *thread;
  gint stop;                    /* atomic */
  gint paused;                  /* atomic: the reader reads nothing */
  gint idle;                    /* atomic: it saw @paused, reads no more */
  guint entries;                /* the target's bounce entries */
  GMutex lock;
  GArray *got;                  /* gfloat, every sample read, lock */
  guint64 next_head;            /* the head the next batch must have */
  guint gaps;                   /* batches not following the one before */
} Recv;

static gpointer
reader_run (gpointer data)
{
  Recv *r = data;

  while (!g_atomic_int_get (&r->stop)) {
    uint64_t head = 0;
    size_t count = 0;
    mxlWrappedMultiBufferSlice sl;

    g_atomic_int_set (&r->idle, g_atomic_int_get (&r->paused));
    if (g_atomic_int_get (&r->idle)) {
      g_usleep (5 * 1000);
      continue;
    }

    if (mxlFabricsTargetReadSamples (r->lt.target, 50, &head, &count)
        != MXL_STATUS_OK)
      continue;
    g_assert_cmpint (mxlFlowReaderGetSamplesNonBlocking (r->lt.reader, head,
            count, &sl), ==, MXL_STATUS_OK);
    g_mutex_lock (&r->lock);
    if (r->got->len > 0 && head - count != r->next_head)
      r->gaps++;
    r->next_head = head;
    for (guint f = 0; f < 2; f++)
      g_array_append_vals (r->got, sl.base.fragments[f].pointer,
          (guint) (sl.base.fragments[f].size / sizeof (gfloat)));
    g_mutex_unlock (&r->lock);
    g_usleep (READ_SLEEP_MS * 1000);
  }
  return NULL;
}

static Recv *
recv_new (void)
{
  Recv *r = g_new0 (Recv, 1);
  const gchar *flow_id = "4d1b7c2a-6e3f-4a58-9b0c-2f5e8d7a1c93";
  gchar *def = g_strdup_printf ("{\"id\":\"%s\",\"format\":"
      "\"urn:x-nmos:format:audio\",\"label\":\"credits audio\","
      "\"tags\":{\"urn:x-nmos:tag:grouphint/v1.0\":[\"Credits:Audio\"]},"
      "\"media_type\":\"audio/float32\",\"sample_rate\":{\"numerator\":%d},"
      "\"channel_count\":1,\"bit_depth\":32}", flow_id, RATE);
  gchar *wopts = g_strdup_printf ("{\"maxSyncBatchSizeHint\": %d}", BATCH);
  mxlFlowConfigInfo config;
  bool created = false;
  gchar *json;

  lib_target_domain (&r->lt);
  g_assert_cmpint (mxlCreateFlowWriter (r->lt.mxl, def, wopts, &r->lt.writer,
          &config, &created), ==, MXL_STATUS_OK);
  /* docs/wire-format.md §4.1: one entry per batch, ceil(L / batch) */
  r->entries = (config.continuous.bufferLength + BATCH - 1) / BATCH;
  json = lib_target_setup (&r->lt, flow_id, "{\"credits\": true}");
  /* the key the sink's initiator follows */
  g_assert_nonnull (strstr (json, "\"credits\""));
  g_free (json);
  g_mutex_init (&r->lock);
  r->got = g_array_new (FALSE, FALSE, sizeof (gfloat));
  r->thread = g_thread_new ("reader", reader_run, r);
  g_free (def);
  g_free (wopts);
  return r;
}

static void
recv_free (Recv * r)
{
  g_atomic_int_set (&r->stop, 1);
  g_thread_join (r->thread);
  lib_target_clear (&r->lt);
  g_array_unref (r->got);
  g_mutex_clear (&r->lock);
  g_free (r);
}

static guint
recv_samples (Recv * r)
{
  guint n;

  g_mutex_lock (&r->lock);
  n = r->got->len;
  g_mutex_unlock (&r->lock);
  return n;
}

/* audiotestsrc (@live) of @buffers buffers of BATCH samples, mono F32LE
 * at RATE, then @tail. */
static gchar *
wave (gboolean live, guint buffers, const gchar * tail)
{
  return g_strdup_printf ("audiotestsrc is-live=%d wave=saw num-buffers=%u "
      "samplesperbuffer=%d ! audio/x-raw,format=F32LE,layout=interleaved,"
      "rate=%d,channels=1 ! %s", live, buffers, BATCH, RATE, tail);
}

/* The samples the same audiotestsrc produces. */
static GArray *
reference_samples (guint buffers)
{
  gchar *desc = wave (FALSE, buffers, "appsink name=out sync=false");
  GstElement *p = hgst_parse (desc);
  GArray *want = g_array_new (FALSE, FALSE, sizeof (gfloat));

  g_free (desc);
  hgst_play (p);
  for (guint i = 0; i < buffers; i++) {
    GstBuffer *b = hgst_pull_from (p, "out", 5000);
    GstMapInfo m;

    g_assert_nonnull (b);
    g_assert_true (gst_buffer_map (b, &m, GST_MAP_READ));
    g_array_append_vals (want, m.data, (guint) (m.size / sizeof (gfloat)));
    gst_buffer_unmap (b, &m);
    gst_buffer_unref (b);
  }
  hgst_stop (p);
  g_assert_cmpuint (want->len, ==, buffers * BATCH);
  return want;
}

/* wave() of @buffers into mxlfabricssink (sync when @live) to @r. */
static GstElement *
sender_new (Recv * r, gboolean live, guint buffers)
{
  gchar *sink = g_strdup_printf ("mxlfabricssink name=sink provider=tcp "
      "node=" HGST_NODE " sync=%d target-info=@%s", live, r->lt.file);
  gchar *desc = wave (live, buffers, sink);
  GstElement *p = hgst_parse (desc);

  g_free (sink);
  g_free (desc);
  return p;
}

static void
test_not_live (void)
{
  Recv *r = recv_new ();
  GArray *want = reference_samples (BUFFERS);
  GstElement *p = sender_new (r, FALSE, BUFFERS);
  gint64 end;
  mxlFabricsExtTargetStats ts = {.version = MXL_FABRICS_API_VERSION };

  hgst_play (p);
  end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (recv_samples (r) < want->len && g_get_monotonic_time () < end)
    g_usleep (10 * 1000);
  g_mutex_lock (&r->lock);
  g_test_message ("%u of %u samples read, %u gaps", r->got->len, want->len,
      r->gaps);
  g_assert_cmpuint (r->got->len, ==, want->len);
  g_assert_cmpuint (r->gaps, ==, 0);
  g_assert_true (memcmp (r->got->data, want->data,
          want->len * sizeof (gfloat)) == 0);
  g_mutex_unlock (&r->lock);
  g_assert_cmpint (mxlFabricsExtTargetGetStats (r->lt.target, &ts), ==,
      MXL_STATUS_OK);
  g_assert_cmpuint (ts.batchesReceived, ==, BUFFERS);
  g_assert_cmpuint (ts.batchesLost, ==, 0);
  g_assert_cmpuint (ts.samplesSkipped, ==, 0);
  g_assert_cmpuint (ts.creditReleasesSent, ==, BUFFERS);
  g_assert_cmpuint (ts.creditReleasesUnsent, ==, 0);
  g_assert_cmpuint (hgst_stat (p, "sink", "dropped"), ==, 0);
  g_assert_cmpuint (hgst_stat (p, "sink", "dropped-no-credit"), ==, 0);
  hgst_assert_no_error (p);
  hgst_stop (p);
  g_array_unref (want);
  recv_free (r);
}

/* A live input never waits: once the sink is connected the receiver's
 * reader stops reading (no progress thread: the target consumes no entry,
 * so none is released); the receiver then gets as many more batches as it
 * has bounce entries and the sink counts every later one
 * dropped-no-credit; once the reader reads again it finds exactly those,
 * exact. */
static void
test_live_not_reading (void)
{
  Recv *r = recv_new ();
  GArray *want = reference_samples (LIVE_BUFFERS);
  GstElement *p = sender_new (r, TRUE, LIVE_BUFFERS);
  guint64 posted = 0, no_credit = 0, before;
  gint64 end;
  mxlFabricsExtTargetStats ts = {.version = MXL_FABRICS_API_VERSION };

  g_assert_cmpuint (r->entries, <, LIVE_BUFFERS / 2);
  hgst_play (p);
  g_assert_true (hgst_wait_connected (p, 5000));
  g_atomic_int_set (&r->paused, 1);
  end = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  while (!g_atomic_int_get (&r->idle) && g_get_monotonic_time () < end)
    g_usleep (1000);
  g_assert_true (g_atomic_int_get (&r->idle));
  before = recv_samples (r) / BATCH;
  end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (posted + no_credit < LIVE_BUFFERS && g_get_monotonic_time () < end) {
    g_usleep (10 * 1000);
    posted = hgst_stat (p, "sink", "grains");
    no_credit = hgst_stat (p, "sink", "dropped-no-credit");
  }
  hgst_assert_no_error (p);
  g_test_message ("%u entries: %" G_GUINT64_FORMAT " batches read before "
      "the pause, %" G_GUINT64_FORMAT " sent, %" G_GUINT64_FORMAT
      " dropped-no-credit", r->entries, before, posted, no_credit);
  g_assert_cmpuint (posted, ==, before + r->entries);
  g_assert_cmpuint (no_credit, ==, LIVE_BUFFERS - posted);
  g_assert_cmpuint (hgst_stat (p, "sink", "dropped"), ==, no_credit);
  g_atomic_int_set (&r->paused, 0);
  end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (recv_samples (r) < posted * BATCH && g_get_monotonic_time () < end)
    g_usleep (10 * 1000);
  g_usleep (200 * 1000);        /* nothing more comes */
  g_mutex_lock (&r->lock);
  g_assert_cmpuint (r->got->len, ==, posted * BATCH);
  g_assert_cmpuint (r->gaps, ==, 0);
  g_assert_true (memcmp (r->got->data, want->data,
          r->got->len * sizeof (gfloat)) == 0);
  g_mutex_unlock (&r->lock);
  g_assert_cmpint (mxlFabricsExtTargetGetStats (r->lt.target, &ts), ==,
      MXL_STATUS_OK);
  g_assert_cmpuint (ts.batchesReceived, ==, posted);
  g_assert_cmpuint (ts.batchesLost, ==, 0);
  g_assert_cmpuint (ts.creditReleasesSent, ==, posted);
  hgst_assert_no_error (p);
  hgst_stop (p);
  g_array_unref (want);
  recv_free (r);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/credits-sink-audio/not-live", test_not_live);
  g_test_add_func ("/gst/credits-sink-audio/live-not-reading",
      test_live_not_reading);
  return g_test_run ();
}
