/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The end-of-stream notice (src/fabrics/wire/eos.h, docs/wire-format.md
 * §11.8): a target that advertises it reports it after exactly the grains
 * sent before it; a TargetInfo without the key gets nothing; a target that
 * did not advertise it refuses the value as bad immediate data; on an
 * exclusive shm target a notice of another initiator than the owner is
 * counted and ignored.
 */
#include "fabtest.h"

#include "fabrics/wire/eos.h"

#define FLOW_T "5fbec3b1-1b0f-417d-9059-8b94a47197ed"
#define FLOW_I "6a0c9f0e-3a61-4f0e-9b7e-2f5d7f1c2a10"
#define FLOW_J "7b1d0a1f-4b72-4a1f-8c8f-3e6e8a2d3b21"
#define GRAINS 3u

typedef struct {
  mxlFabricsInitiator init;
  gboolean drain_first;      /* wait for the grains' completions first */
  mxlStatus status;
  uint32_t sent;
} EosSender;

/* The initiator's side in a thread of its own: a tcp write completes only
 * while the target progresses too (the main thread reads it). */
static gpointer
send_thread (gpointer data)
{
  EosSender *s = data;
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  while (s->drain_first && g_get_monotonic_time () < deadline
      && mxlFabricsInitiatorMakeProgressBlocking (s->init, 5) == MXL_ERR_NOT_READY);
  s->status = mxlFabricsExtInitiatorSendEndOfStream (s->init, 2000, &s->sent);
  return NULL;
}

/* Reads @t for at most @timeout_ms: the grains that arrive (counted, their
 * indices checked in order from @first) until a status other than OK. */
static mxlStatus
read_until (mxlFabricsTarget t, uint64_t first, guint *n_grains, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  for (;;) {
    uint64_t index = 0;
    mxlStatus st = mxlFabricsTargetReadGrain (t, 5, &index);

    if (st == MXL_STATUS_OK) {
      g_assert_cmpuint (index, ==, first + *n_grains);
      (*n_grains)++;
      continue;
    }
    if (st != MXL_ERR_NOT_READY || g_get_monotonic_time () > deadline)
      return st;
  }
}

static mxlStatus
send_and_read (mxlFabricsInitiator init, mxlFabricsTarget t, gboolean drain_first,
    guint *n_grains, int read_ms, uint32_t *sent)
{
  EosSender s = { init, drain_first, MXL_ERR_UNKNOWN, 99 };
  GThread *th = g_thread_new ("eos-send", send_thread, &s);
  mxlStatus st = read_until (t, 0, n_grains, read_ms);

  g_thread_join (th);
  *sent = s.sent;
  /* MXL_ERR_TIMEOUT only when nothing completed: a target that takes no
   * notice still completes the write */
  g_assert_cmpint (s.status, ==, MXL_STATUS_OK);
  return st;
}

/* A target and an initiator, each on a side of its own (320x180 v210). */
typedef struct {
  FabSide ts, is;
  char *dt, *di;
  mxlFabricsTargetInfo info;
  mxlFabricsTarget t;
  mxlFabricsInitiator i;
} EosPair;

static void
pair_open (EosPair * e, const FabProv *p, const char *target_options)
{
  e->dt = fabtest_v210_def (FLOW_T, "video/v210", 320, 180);
  e->di = fabtest_v210_def (FLOW_I, "video/v210", 320, 180);
  fabtest_side_init (&e->ts, e->dt, FLOW_T);
  fabtest_side_init (&e->is, e->di, FLOW_I);
  e->t = fabtest_target (&e->ts, p, target_options, &e->info);
  e->i = fabtest_initiator (&e->is, p, NULL);
}

static void
pair_close (EosPair * e)
{
  mxlFabricsFreeTargetInfo (e->info);
  fabtest_side_clear (&e->is);
  fabtest_side_clear (&e->ts);
  g_free (e->dt);
  g_free (e->di);
}

/* Grains 0 .. GRAINS - 1, then the notice: exactly those grains, then
 * MXL_FABRICS_EXT_STATUS_END_OF_STREAM; checksums equal. */
static void
notice_with (const FabProv *p, const char *target_options)
{
  EosPair e;
  mxlFabricsExtTargetStats ts_stats = { .version = MXL_FABRICS_API_VERSION };
  guint n = 0;
  uint32_t sent = 0;

  if (!fabtest_require (p))
    return;
  pair_open (&e, p, target_options);
  g_assert_cmpuint (e.info->eos_version, ==, MXL_EOS_VERSION);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (e.i, e.info), ==, MXL_STATUS_OK);
  fabtest_connect (e.i, &e.t, 1, FALSE, 5000);
  for (uint64_t g = 0; g < GRAINS; g++) {
    fabtest_write_grain (&e.is, g, 7, FALSE);
    g_assert_cmpint (mxlFabricsInitiatorTransferGrain (e.i, g, 0, 180), ==, MXL_STATUS_OK);
  }
  /* sent at once: the notice waits for the grains queued before it */
  g_assert_cmpint (send_and_read (e.i, e.t, FALSE, &n, 5000, &sent), ==,
      MXL_FABRICS_EXT_STATUS_END_OF_STREAM);
  g_assert_cmpuint (sent, ==, 1);
  g_assert_cmpuint (n, ==, GRAINS);
  for (uint64_t g = 0; g < GRAINS; g++) {
    g_autofree char *want = fabtest_grain_digest (&e.is, g, NULL);
    g_autofree char *got = fabtest_grain_digest (&e.ts, g, NULL);
    g_assert_cmpstr (got, ==, want);
  }
  g_assert_cmpint (mxlFabricsExtTargetGetStats (e.t, &ts_stats), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ts_stats.endOfStreamNotices, ==, 1);
  g_assert_cmpuint (ts_stats.grainsReceived, ==, GRAINS);
  g_assert_cmpuint (ts_stats.badImmediateData, ==, 0);
  /* nothing more after it */
  g_assert_cmpint (read_until (e.t, GRAINS, &n, 100), ==, MXL_ERR_NOT_READY);
  pair_close (&e);
}

static void
notice (const FabProv *p)
{
  notice_with (p, NULL);
}

/* A TargetInfo without ext."eos" (the reference, an older one): nothing is
 * sent, the target reads nothing. A target that did not advertise it and
 * gets the value anyway refuses it as bad immediate data. */
static void
not_advertised (const FabProv *p)
{
  EosPair e;
  mxlFabricsTargetInfo stripped;
  mxlFabricsExtTargetStats ts_stats = { .version = MXL_FABRICS_API_VERSION };
  guint n = 0;
  uint32_t sent = 99;

  if (!fabtest_require (p))
    return;
  pair_open (&e, p, NULL);
  stripped = mxl_target_info_copy (e.info);
  stripped->eos_version = 0;
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (e.i, stripped), ==, MXL_STATUS_OK);
  fabtest_connect (e.i, &e.t, 1, FALSE, 5000);
  g_assert_cmpint (send_and_read (e.i, e.t, FALSE, &n, 300, &sent), ==, MXL_ERR_NOT_READY);
  g_assert_cmpuint (sent, ==, 0);
  g_assert_cmpuint (n, ==, 0);

  /* the target stops advertising it; the initiator (told otherwise) sends */
  ((MxlTarget *) e.t)->info->eos_version = 0;
  g_assert_cmpint (mxlFabricsInitiatorRemoveTarget (e.i, stripped), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (e.i, e.info), ==, MXL_STATUS_OK);
  fabtest_connect (e.i, &e.t, 1, FALSE, 5000);
  g_assert_cmpint (send_and_read (e.i, e.t, FALSE, &n, 2000, &sent), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpuint (sent, ==, 1);
  g_assert_cmpint (mxlFabricsExtTargetGetStats (e.t, &ts_stats), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ts_stats.badImmediateData, ==, 1);
  g_assert_cmpuint (ts_stats.endOfStreamNotices, ==, 0);
  mxl_target_info_free (stripped);
  pair_close (&e);
}

/* An exclusive shm target: a notice of an initiator that is not its owner
 * (one that does not claim, as a reference one) is counted and ignored;
 * the owner's is reported. */
static void
not_owner (const FabProv *p)
{
  EosPair e;
  FabSide s2;
  g_autofree char *d2 = fabtest_v210_def (FLOW_J, "video/v210", 320, 180);
  mxlFabricsTargetInfo plain;
  mxlFabricsExtTargetStats ts_stats = { .version = MXL_FABRICS_API_VERSION };
  mxlFabricsInitiator i2;
  guint n = 0;
  uint32_t sent = 0;

  if (!fabtest_require (p))
    return;
  pair_open (&e, p, NULL);
  g_assert_true (e.info->has_claim);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (e.i, e.info), ==, MXL_STATUS_OK);
  fabtest_connect (e.i, &e.t, 1, FALSE, 5000);
  plain = mxl_target_info_copy (e.info);
  plain->has_claim = FALSE;
  fabtest_side_init (&s2, d2, FLOW_J);
  i2 = fabtest_initiator (&s2, p, NULL);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (i2, plain), ==, MXL_STATUS_OK);
  fabtest_connect (i2, &e.t, 1, FALSE, 5000);

  g_assert_cmpint (send_and_read (i2, e.t, FALSE, &n, 500, &sent), ==, MXL_ERR_NOT_READY);
  g_assert_cmpuint (sent, ==, 1);
  g_assert_cmpint (mxlFabricsExtTargetGetStats (e.t, &ts_stats), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ts_stats.noticesRefused, ==, 1);
  g_assert_cmpuint (ts_stats.endOfStreamNotices, ==, 0);
  g_assert_cmpuint (ts_stats.badImmediateData, ==, 0);

  g_assert_cmpint (send_and_read (e.i, e.t, FALSE, &n, 2000, &sent), ==,
      MXL_FABRICS_EXT_STATUS_END_OF_STREAM);
  g_assert_cmpuint (sent, ==, 1);
  g_assert_cmpint (mxlFabricsExtTargetGetStats (e.t, &ts_stats), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ts_stats.endOfStreamNotices, ==, 1);
  g_assert_cmpuint (ts_stats.noticesRefused, ==, 1);

  mxl_target_info_free (plain);
  fabtest_side_clear (&s2);
  pair_close (&e);
}

static void test_notice_tcp (void) { notice (&fab_tcp); }
static void test_notice_shm (void) { notice (&fab_shm); }
static void test_notice_shm_shared (void) { notice_with (&fab_shm, "{\"exclusive\": false}"); }
static void test_not_advertised_tcp (void) { not_advertised (&fab_tcp); }
static void test_not_advertised_shm (void) { not_advertised (&fab_shm); }
static void test_not_owner_shm (void) { not_owner (&fab_shm); }

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/eos/tcp/notice", test_notice_tcp);
  g_test_add_func ("/fabrics/eos/shm/notice", test_notice_shm);
  g_test_add_func ("/fabrics/eos/shm/notice-shared", test_notice_shm_shared);
  g_test_add_func ("/fabrics/eos/tcp/not-advertised", test_not_advertised_tcp);
  g_test_add_func ("/fabrics/eos/shm/not-advertised", test_not_advertised_shm);
  g_test_add_func ("/fabrics/eos/shm/not-owner", test_not_owner_shm);
  return g_test_run ();
}
