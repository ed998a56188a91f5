/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxlfabricssrc's credits (issue 16, the receiver's part; gst/srccredit.h,
 * docs/fabrics-engine.md "Credits"), over tcp on 127.0.0.1: the src in
 * this process and a library initiator in a private MXL domain of its own
 * as its sender, which writes 60 grains of 48x8 v210 at 25 fps indices,
 * every 64-bit word derived from the grain index.
 *  - held-back: a sender that is not live (mxlFabricsExtInitiatorWaitCredit
 *    before every TransferGrain) sending 3x faster than the src's
 *    downstream (an appsink pulled every 40 ms): exactly indices 0..59
 *    arrive, each exact (its checksum is the one sent), 60
 *    credit-releases, no failure, nothing held at the end;
 *  - no-credits: the same with credits=false: fewer than 60 arrive and
 *    the src counts the laps (dropped-late + dropped-skipped > 0): the
 *    first case can fail;
 *  - zero-copy-hold: downstream holds every buffer 200 ms: each buffer's
 *    one memory is read-only (the ring slot, not a copy) and its checksum
 *    when it is unreffed is the one at arrival and the one sent; every
 *    index 0..59 arrives (the sender waited for the held slots);
 *  - reference: an initiator given the TargetInfo without ext."credits"
 *    (it does not announce itself), paced below the downstream: all 20
 *    grains arrive exact, as writable copies, 20 releases counted.
 * Every wait is bounded; each case takes a few seconds.
 */
#include <ftw.h>
#include <string.h>

#include <json-glib/json-glib.h>
#include <mxl/fabrics-ext.h>
#include <mxl/fabrics.h>
#include <mxl/flow-ext.h>
#include <mxl/flow.h>
#include <mxl/mxl.h>
#include <mxl/time.h>

#include "../hardening/hgst.h"

#define FLOW_ID "6a2f1c3e-5b4d-4e8f-9a01-c2d3e4f50617"
#define WIDTH 48
#define HEIGHT 8
#define RING 8
#define N 60
#define PERIOD_US 40000          /* 25 fps */

static gchar *
flow_def (void)
{
  return g_strdup_printf ("{\"id\":\"%s\",\"description\":\"credits\","
      "\"format\":\"urn:x-nmos:format:video\",\"label\":\"credits\","
      "\"tags\":{\"urn:x-nmos:tag:grouphint/v1.0\":[\"Test:Video\"]},"
      "\"parents\":[],\"media_type\":\"video/v210\","
      "\"grain_rate\":{\"numerator\":25,\"denominator\":1},"
      "\"frame_width\":%d,\"frame_height\":%d,"
      "\"interlace_mode\":\"progressive\",\"colorspace\":\"BT709\"}",
      FLOW_ID, WIDTH, HEIGHT);
}

/* The word @k of the payload of grain @rel (relative index). */
static guint64
word (guint64 rel, gsize k)
{
  return (rel * 0x9E3779B97F4A7C15ull) ^ 0x0123456789ABCDEFull ^ k;
}

/* FNV-1a 64 of @len bytes. */
static guint64
fnv (const guint8 * p, gsize len)
{
  guint64 h = 0xcbf29ce484222325ull;

  for (gsize i = 0; i < len; i++)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

static guint64
buffer_sum (GstBuffer * b)
{
  GstMapInfo m;
  guint64 h;

  g_assert_true (gst_buffer_map (b, &m, GST_MAP_READ));
  h = fnv (m.data, m.size);
  gst_buffer_unmap (b, &m);
  return h;
}

/* ---- the library sender ---- */

typedef struct {
  gchar *domain;
  mxlInstance mxl;
  mxlFabricsInstance fab;
  mxlFlowWriter writer;
  mxlFlowReader reader;
  mxlFabricsInitiator init;
  mxlFabricsTargetInfo info;
  guint64 first;               /* absolute index of relative 0 */
  guint64 sums[N];              /* what was sent, per relative index */
} Sender;

static int
rm_one (const char *path, const struct stat *sb, int flag, struct FTW *f)
{
  (void) sb;
  (void) flag;
  (void) f;
  return remove (path);
}

/* The src's TargetInfo @ti, without ext."credits" when @plain (what an
 * initiator that does not know the key sees). */
static mxlFabricsTargetInfo
parse_info (const gchar * ti, gboolean plain)
{
  mxlFabricsTargetInfo info = NULL;
  gchar *text = g_strdup (ti);

  if (plain) {
    JsonParser *p = json_parser_new ();
    JsonObject *ext;

    g_assert_true (json_parser_load_from_data (p, ti, -1, NULL));
    ext = json_object_get_object_member (json_node_get_object
        (json_parser_get_root (p)), "ext");
    g_assert_true (json_object_has_member (ext, "credits"));
    json_object_remove_member (ext, "credits");
    g_free (text);
    text = json_to_string (json_parser_get_root (p), FALSE);
    g_object_unref (p);
  }
  g_assert_cmpint (mxlFabricsExtTargetInfoParse (text, &info, NULL), ==,
      MXL_STATUS_OK);
  g_free (text);
  return info;
}

static void
sender_open (Sender * s, const gchar * ti, gboolean plain)
{
  gchar *def = flow_def ();
  mxlFabricsInitiatorConfig cfg;
  gint64 end;
  mxlStatus st;

  memset (s, 0, sizeof *s);
  s->domain = g_strdup ("/dev/shm/mxl-credits-src-XXXXXX");
  g_assert_nonnull (g_mkdtemp (s->domain));
  s->mxl = mxlCreateInstance (s->domain, NULL);
  g_assert_nonnull (s->mxl);
  g_assert_cmpint (mxlFabricsCreateInstance (s->mxl, NULL, &s->fab), ==,
      MXL_STATUS_OK);
  /* as long a ring as the target's: its own slots are free with a credit */
  g_assert_cmpint (mxlCreateFlowWriterWithGrainCount (s->mxl, def, NULL, RING,
          &s->writer, NULL, NULL), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlCreateFlowReader (s->mxl, FLOW_ID, NULL, &s->reader),
      ==, MXL_STATUS_OK);
  memset (&cfg, 0, sizeof cfg);
  cfg.version = MXL_FABRICS_API_VERSION;
  cfg.interface.provider = MXL_FABRICS_PROVIDER_TCP;
  cfg.interface.caps.flags = MXL_FABRICS_IFACE_CAP_REMOTE_WRITE |
      MXL_FABRICS_IFACE_CAP_BLOCKING_OPERATIONS;
  cfg.interface.address.node = HGST_NODE;
  cfg.reader = s->reader;
  g_assert_cmpint (mxlFabricsCreateInitiator (s->fab, &s->init), ==,
      MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsInitiatorSetup (s->init, &cfg,
          "{\"progressThread\": true}"), ==, MXL_STATUS_OK);
  s->info = parse_info (ti, plain);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (s->init, s->info), ==,
      MXL_STATUS_OK);
  end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while ((st = mxlFabricsInitiatorMakeProgressBlocking (s->init, 10))
      != MXL_STATUS_OK)
    g_assert_cmpint (g_get_monotonic_time (), <, end);
  g_free (def);
}

static void
sender_close (Sender * s)
{
  mxlFabricsDestroyInitiator (s->fab, s->init);
  mxlFabricsFreeTargetInfo (s->info);
  g_assert_cmpint (mxlFabricsDestroyInstance (s->fab), ==, MXL_STATUS_OK);
  mxlReleaseFlowReader (s->mxl, s->reader);
  mxlReleaseFlowWriter (s->mxl, s->writer);
  g_assert_cmpint (mxlDestroyInstance (s->mxl), ==, MXL_STATUS_OK);
  g_assert_cmpint (nftw (s->domain, rm_one, 8, FTW_DEPTH | FTW_PHYS), ==, 0);
  g_free (s->domain);
}

typedef struct {
  Sender *s;
  guint n;
  guint pace_us;               /* between grains */
  gboolean wait_credit;
  guint sent, not_ready;
} SendJob;

static gpointer
send_run (gpointer data)
{
  SendJob *j = data;
  Sender *s = j->s;

  for (guint i = 0; i < j->n; i++) {
    guint64 idx = s->first + i;
    mxlGrainInfo gi;
    guint8 *payload = NULL;
    mxlStatus st;

    if (j->wait_credit)
      g_assert_cmpint (mxlFabricsExtInitiatorWaitCredit (s->init, NULL, idx,
              5000), ==, MXL_STATUS_OK);
    g_assert_cmpint (mxlFlowWriterOpenGrain (s->writer, idx, &gi, &payload),
        ==, MXL_STATUS_OK);
    for (gsize k = 0; k < gi.grainSize / 8; k++)
      ((guint64 *) payload)[k] = word (i, k);
    s->sums[i] = fnv (payload, gi.grainSize);
    gi.validSlices = gi.totalSlices;
    gi.flags = 0;
    g_assert_cmpint (mxlFlowWriterCommitGrain (s->writer, &gi), ==,
        MXL_STATUS_OK);
    st = mxlFabricsInitiatorTransferGrain (s->init, idx, 0, gi.totalSlices);
    g_assert_true (st == MXL_STATUS_OK || st == MXL_ERR_NOT_READY);
    j->sent += st == MXL_STATUS_OK;
    j->not_ready += st == MXL_ERR_NOT_READY;
    g_usleep (j->pace_us);
  }
  return NULL;
}

/* ---- the receiving pipeline ---- */

static GstElement *
receiver (gboolean credits)
{
  gchar *def = flow_def ();
  GstElement *p = hgst_parse ("mxlfabricssrc name=src provider=tcp node="
      HGST_NODE " ring-length=8 ! appsink name=out sync=false "
      "max-buffers=1 drop=false enable-last-sample=false");
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");

  g_object_set (src, "flow-def", def, "credits", credits, NULL);
  gst_object_unref (src);
  g_free (def);
  hgst_play (p);
  g_assert_cmpint (gst_element_get_state (p, NULL, NULL, 5 * GST_SECOND), !=,
      GST_STATE_CHANGE_FAILURE);
  return p;
}

/* The stats once the src's streaming thread refreshed them (every 200 ms,
 * also while it waits). */
static void
settle_stats (void)
{
  g_usleep (500 * 1000);
}

typedef struct {
  GstBuffer *buf;
  guint64 sum;
  gint64 at;
} Held;

/* Pulls until nothing came for 1 s with nothing held (at most 15 s):
 * every @pace_us, or holding each buffer @hold_us before its unref.
 * Checks each buffer against what was sent and, held, again before its
 * unref; returns how many arrived, *@in_order those at relative index ==
 * their arrival rank, *@wrapped those whose memory is read-only (the ring
 * slot). */
static guint
pull_all (GstElement * p, Sender * s, guint pace_us, guint hold_us,
    guint * in_order, guint * wrapped)
{
  GstElement *out = gst_bin_get_by_name (GST_BIN (p), "out");
  GQueue held = G_QUEUE_INIT;
  gint64 end = g_get_monotonic_time () + 15 * G_USEC_PER_SEC;
  gint64 last = g_get_monotonic_time ();
  guint n = 0;

  *in_order = *wrapped = 0;
  while (g_get_monotonic_time () < end) {
    GstSample *sample;
    GstBuffer *b;
    guint64 rel;
    Held *h;

    while (!g_queue_is_empty (&held)
        && ((Held *) g_queue_peek_head (&held))->at + hold_us <=
        g_get_monotonic_time ()) {
      h = g_queue_pop_head (&held);
      /* the slot did not change while it was held */
      g_assert_cmphex (buffer_sum (h->buf), ==, h->sum);
      gst_buffer_unref (h->buf);
      g_free (h);
    }
    sample = gst_app_sink_try_pull_sample (GST_APP_SINK (out),
        20 * GST_MSECOND);
    if (sample == NULL) {
      if (g_queue_is_empty (&held)
          && g_get_monotonic_time () - last > G_USEC_PER_SEC)
        break;
      continue;
    }
    last = g_get_monotonic_time ();
    b = gst_sample_get_buffer (sample);
    rel = GST_BUFFER_OFFSET (b) - s->first;
    g_assert_cmpuint (rel, <, N);
    g_assert_cmpuint (gst_buffer_n_memory (b), ==, 1);
    /* zero-copy: the ring slot, read-only; a copy is writable */
    *wrapped += GST_MEMORY_IS_READONLY (gst_buffer_peek_memory (b, 0));
    h = g_new (Held, 1);
    h->buf = gst_buffer_ref (b);
    h->sum = buffer_sum (b);
    h->at = g_get_monotonic_time ();
    g_assert_cmphex (h->sum, ==, s->sums[rel]);
    *in_order += rel == n;
    n++;
    gst_sample_unref (sample);
    if (hold_us > 0)
      g_queue_push_tail (&held, h);
    else {
      gst_buffer_unref (h->buf);
      g_free (h);
    }
    g_usleep (pace_us);
  }
  g_assert_true (g_queue_is_empty (&held));
  gst_object_unref (out);
  return n;
}

typedef struct {
  gboolean credits;             /* the src's property */
  gboolean plain;               /* the sender gets no ext.credits */
  gboolean wait_credit;
  guint n;
  guint send_us, pull_us, hold_us;
} Case;

typedef struct {
  guint arrived, in_order, wrapped;
} Result;

static void
run_case (const Case * c, Result * r, GstElement ** out)
{
  GstElement *p = receiver (c->credits);
  gchar *ti = hgst_target_info (p);
  static Sender s;
  SendJob job = { &s, c->n, c->send_us, c->wait_credit, 0, 0 };
  mxlRational rate = { 25, 1 };
  GThread *t;

  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");

  /* a grain made before the src's running time 0 is not pushed */
  hgst_wait_base_time (src);
  gst_object_unref (src);
  sender_open (&s, ti, c->plain);
  s.first = mxlGetCurrentIndex (&rate) + 2;
  t = g_thread_new ("sender", send_run, &job);
  r->arrived = pull_all (p, &s, c->pull_us, c->hold_us, &r->in_order,
      &r->wrapped);
  g_thread_join (t);
  g_test_message ("credits %d plain %d: %u of %u arrived, %u in order, %u "
      "zero-copy; %u sent, %u without credit", c->credits, c->plain,
      r->arrived, c->n, r->in_order, r->wrapped, job.sent, job.not_ready);
  hgst_assert_no_error (p);
  settle_stats ();
  g_test_message ("credit-releases %" G_GUINT64_FORMAT ", failures %"
      G_GUINT64_FORMAT ", held %" G_GUINT64_FORMAT ", dropped %"
      G_GUINT64_FORMAT, hgst_stat (p, "src", "credit-releases"),
      hgst_stat (p, "src", "credit-release-failures"),
      hgst_stat (p, "src", "credits-held"), hgst_stat (p, "src", "dropped"));
  sender_close (&s);
  g_free (ti);
  *out = p;
}

/* Every one of the @n grains read was released, but for what downstream
 * still holds: appsink keeps the last buffer it handed out (at most one);
 * freed with the pipeline, after the src's stop (srccredit.h). */
static void
assert_released (GstElement * p, guint n)
{
  guint64 held = hgst_stat (p, "src", "credits-held");

  g_assert_cmpuint (held, <=, 1);
  g_assert_cmpuint (hgst_stat (p, "src", "credit-releases") + held, ==, n);
  g_assert_cmpuint (hgst_stat (p, "src", "credit-release-failures"), ==, 0);
}

/* Credits on, a sender that waits for them 3x faster than downstream,
 * which pulls every @pull_us or holds each buffer @hold_us: every grain,
 * in order, exact; all zero-copy, the first one too (the target says its
 * initiator announced itself, srccredit.c); none dropped. */
static void
all_delivered (guint pull_us, guint hold_us)
{
  Case c = { TRUE, FALSE, TRUE, N, PERIOD_US / 3, pull_us, hold_us };
  Result r;
  GstElement *p;

  run_case (&c, &r, &p);
  g_assert_cmpuint (r.arrived, ==, N);
  g_assert_cmpuint (r.in_order, ==, N);
  g_assert_cmpuint (r.wrapped, ==, N);
  assert_released (p, N);
  g_assert_cmpuint (hgst_stat (p, "src", "dropped"), ==, 0);
  hgst_stop (p);
}

static void
test_held_back (void)
{
  all_delivered (PERIOD_US, 0);
}

static void
test_no_credits (void)
{
  Case c = { FALSE, FALSE, TRUE, N, PERIOD_US / 3, PERIOD_US, 0 };
  Result r;
  GstElement *p;

  run_case (&c, &r, &p);
  g_assert_cmpuint (r.arrived, <, N);
  g_assert_cmpuint (r.wrapped, ==, 0);
  g_assert_cmpuint (hgst_stat (p, "src", "dropped-late") +
      hgst_stat (p, "src", "dropped-skipped"), >, 0);
  g_assert_cmpuint (hgst_stat (p, "src", "credit-releases"), ==, 0);
  hgst_stop (p);
}

/* held buffers are checked before their unref (pull_all()) */
static void
test_zero_copy_hold (void)
{
  all_delivered (0, 200000);
}

static void
test_reference (void)
{
  Case c = { TRUE, TRUE, FALSE, 20, PERIOD_US, 0, 0 };
  Result r;
  GstElement *p;

  run_case (&c, &r, &p);
  g_assert_cmpuint (r.arrived, ==, 20);
  g_assert_cmpuint (r.in_order, ==, 20);
  g_assert_cmpuint (r.wrapped, ==, 0);    /* no announce: copies */
  g_assert_cmpuint (hgst_stat (p, "src", "credit-releases"), ==, 20);
  g_assert_cmpuint (hgst_stat (p, "src", "credit-release-failures"), ==, 0);
  hgst_stop (p);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gst/credits-src/held-back/tcp", test_held_back);
  g_test_add_func ("/gst/credits-src/no-credits/tcp", test_no_credits);
  g_test_add_func ("/gst/credits-src/zero-copy-hold/tcp",
      test_zero_copy_hold);
  g_test_add_func ("/gst/credits-src/reference/tcp", test_reference);
  return g_test_run ();
}
