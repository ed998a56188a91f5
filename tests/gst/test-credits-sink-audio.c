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
 * entry was released once.
 */
#include <string.h>

#include <gst/gst.h>

#include <mxl/fabrics-ext.h>

#include "libtarget.h"

#define RATE 48000
#define BATCH 480               /* samples per buffer and per bounce entry */
#define BUFFERS 60
#define READ_SLEEP_MS 5         /* the reader, per batch */
#define WAVE "audiotestsrc is-live=false wave=saw num-buffers=60 " \
  "samplesperbuffer=480 ! audio/x-raw,format=F32LE,layout=interleaved," \
  "rate=48000,channels=1"

typedef struct {
  LibTarget lt;                 /* the target, its flow and TargetInfo file */
  GThread *thread;
  gint stop;                    /* atomic */
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

/* The samples the same audiotestsrc produces. */
static GArray *
reference_samples (void)
{
  GstElement *p = hgst_parse (WAVE " ! appsink name=out sync=false");
  GArray *want = g_array_new (FALSE, FALSE, sizeof (gfloat));

  hgst_play (p);
  for (guint i = 0; i < BUFFERS; i++) {
    GstBuffer *b = hgst_pull_from (p, "out", 5000);
    GstMapInfo m;

    g_assert_nonnull (b);
    g_assert_true (gst_buffer_map (b, &m, GST_MAP_READ));
    g_array_append_vals (want, m.data, (guint) (m.size / sizeof (gfloat)));
    gst_buffer_unmap (b, &m);
    gst_buffer_unref (b);
  }
  hgst_stop (p);
  g_assert_cmpuint (want->len, ==, BUFFERS * BATCH);
  return want;
}

static void
test_not_live (void)
{
  Recv *r = recv_new ();
  GArray *want = reference_samples ();
  gchar *desc = g_strdup_printf (WAVE " ! mxlfabricssink name=sink "
      "provider=tcp node=" HGST_NODE " sync=false target-info=@%s", r->lt.file);
  GstElement *p = hgst_parse (desc);
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
  g_free (desc);
  g_array_unref (want);
  recv_free (r);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/credits-sink-audio/not-live", test_not_live);
  return g_test_run ();
}
