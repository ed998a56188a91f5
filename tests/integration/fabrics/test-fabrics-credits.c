/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The credit extension (src/fabrics/wire/credit.h, docs/fabrics-engine.md
 * "Credits") in one process, target and initiator in separate MXL domains,
 * both with their progress threads, a reader thread at the target:
 *  - a sender 3x faster than a reader that releases each grain after a
 *    sleep: every grain delivered, in order, exact; the same run without
 *    credits laps the ring (the test can fail);
 *  - two targets, one never releasing: the other gets every grain;
 *  - hostile releases (ahead, backwards, another id, not a release):
 *    counted and ignored; the target says its initiator announced itself
 *    (mxlFabricsExtTargetCreditsAnnounced);
 *  - a target with credits and an initiator that does not announce
 *    itself: as today;
 *  - connectionless (shm, tcp;ofi_rxm), every case above, and: malformed
 *    announces counted and ignored; an initiator re-created against the
 *    same target (a new id) takes over, the old id's releases unknown; a
 *    second initiator meanwhile is refused by the claim, never announces.
 * Each case runs on tcp (connected), shm and tcp;ofi_rxm.
 */
#include "fabtest.h"

#include "fabrics/initiator_credit.h"
#include "fabrics/wire/credit.h"

#define FLOW_ID "0c7b5a52-8d4e-4a59-9e0f-6a1d2c3b4f50"
#define N_GRAINS 600
#define SEED 11
#define THREADS "{\"progressThread\": true}"
#define CREDITS "{\"progressThread\": true, \"credits\": true}"

/* The payload fabtest_write_grain() writes for @index: TRUE when the
 * target's flow holds exactly it. */
static gboolean
grain_exact (FabSide *s, uint64_t index)
{
  mxlGrainInfo gi;
  uint8_t *payload = NULL;
  uint64_t pattern = (index * 0x9E3779B97F4A7C15ull) ^ ((uint64_t) SEED << 56)
      ^ 0x0123456789ABCDEFull;
  const uint64_t *w;

  if (mxlFlowReaderGetGrainSliceNonBlocking (s->reader, index, MXL_GRAIN_VALID_SLICES_ANY,
          &gi, &payload) != MXL_STATUS_OK || gi.index != index)
    return FALSE;
  w = (const uint64_t *) payload;
  for (size_t k = 0; k < gi.grainSize / 8; k++)
    if (w[k] != pattern + k)
      return FALSE;
  return TRUE;
}

typedef struct Reader {
  FabSide *side;
  mxlFabricsTarget t;
  guint expect;              /* grains it reads at most */
  guint sleep_us;            /* before each release */
  gboolean release;
  /* results */
  guint read, in_order, exact;
  uint64_t next;
} Reader;

static gpointer
reader_run (gpointer data)
{
  Reader *r = data;

  while (r->read < r->expect) {
    uint64_t index = 0;
    mxlStatus st = mxlFabricsTargetReadGrain (r->t, 1000, &index);

    if (st == MXL_ERR_NOT_READY || st == MXL_ERR_TIMEOUT)
      break;                 /* nothing for 1 s: the sender is done */
    if (st != MXL_STATUS_OK)
      continue;
    r->read++;
    if (index == r->next)
      r->in_order++;
    r->next = index + 1;
    g_usleep (r->sleep_us);
    if (grain_exact (r->side, index))
      r->exact++;
    if (r->release)
      g_assert_cmpint (mxlFabricsExtTargetReleaseGrain (r->t, index), ==, MXL_STATUS_OK);
  }
  return NULL;
}

static void
send_grain (FabSide *is, mxlFabricsInitiator init, uint64_t i, mxlStatus *out)
{
  fabtest_write_grain (is, i, SEED, FALSE);
  *out = mxlFabricsInitiatorTransferGrain (init, i, 0, init->base.layout.total_slices);
}

/* A target and an initiator connected to it. */
typedef struct Pair {
  FabSide ts, is;
  mxlFabricsTarget t;
  mxlFabricsTargetInfo info;     /* the one added: without ext.credits
                                    when @plain */
  mxlFabricsInitiator init;
} Pair;

static gboolean
pair_open_with (Pair *pr, const FabProv *p, const char *target_options, gboolean plain,
    const char *initiator_options)
{
  g_autofree char *def = fabtest_v210_def (FLOW_ID, "video/v210", 320, 180);

  if (!fabtest_require (p))
    return FALSE;
  fabtest_side_init (&pr->ts, def, FLOW_ID);
  fabtest_side_init (&pr->is, def, FLOW_ID);
  pr->t = fabtest_target (&pr->ts, p, target_options, &pr->info);
  if (plain) {
    g_assert_cmpuint (pr->info->credits, ==, MXL_CREDIT_VERSION);
    pr->info->credits = 0;   /* as an initiator that ignores the key sees it */
  }
  pr->init = fabtest_initiator (&pr->is, p, initiator_options);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (pr->init, pr->info), ==, MXL_STATUS_OK);
  fabtest_connect (pr->init, &pr->t, 1, initiator_options != NULL, 5000);
  /* connectionless: credits once the target acknowledged the announce */
  if (pr->info->credits != 0)
    g_assert_cmpint (mxlFabricsExtInitiatorWaitCredit (pr->init, NULL, 0, 5000), ==,
        MXL_STATUS_OK);
  return TRUE;
}

static gboolean
pair_open (Pair *pr, const FabProv *p, const char *target_options, gboolean plain)
{
  return pair_open_with (pr, p, target_options, plain, THREADS);
}

static void
pair_close (Pair *pr)
{
  mxlFabricsDestroyInitiator (pr->is.fab, pr->init);
  mxlFabricsDestroyTarget (pr->ts.fab, pr->t);
  mxlFabricsFreeTargetInfo (pr->info);
  fabtest_side_clear (&pr->is);
  fabtest_side_clear (&pr->ts);
}

/* Grain @i sent (accepted at once) and read back in order, exact. */
static void
transfer_read (Pair *pr, uint64_t i)
{
  uint64_t index = 0;
  mxlStatus s;

  send_grain (&pr->is, pr->init, i, &s);
  g_assert_cmpint (s, ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsTargetReadGrain (pr->t, 5000, &index), ==, MXL_STATUS_OK);
  g_assert_cmpuint (index, ==, i);
  g_assert_true (grain_exact (&pr->ts, i));
}

/* A sender pacing at 1 ms a grain, a reader at 3 ms (its sleep before
 * each release): with credits the sender waits for them and every grain
 * arrives; without, the ring is lapped. */
static void
slow_reader (const FabProv *p, gboolean credits)
{
  Pair pr;
  mxlFabricsExtInitiatorTargetStats st;
  mxlFabricsExtTargetStats tst;
  Reader r = { .expect = N_GRAINS, .sleep_us = 3000, .release = credits };
  GThread *thread;

  if (!pair_open (&pr, p, credits ? CREDITS : THREADS, FALSE))
    return;
  g_assert_cmpuint (pr.info->credits, ==, credits ? MXL_CREDIT_VERSION : 0);
  r.side = &pr.ts;
  r.t = pr.t;
  thread = g_thread_new ("reader", reader_run, &r);
  for (uint64_t i = 0; i < N_GRAINS; i++) {
    mxlStatus s;

    g_assert_cmpint (mxlFabricsExtInitiatorWaitCredit (pr.init, NULL, i, 5000), ==,
        MXL_STATUS_OK);
    send_grain (&pr.is, pr.init, i, &s);
    g_assert_true (s == MXL_STATUS_OK || (!credits && s == MXL_ERR_NOT_READY));
    g_usleep (1000);
  }
  g_thread_join (thread);
  g_assert_cmpint (mxlFabricsExtInitiatorGetTargetStats (pr.init, pr.info, &st), ==,
      MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtTargetGetStats (pr.t, &tst), ==, MXL_STATUS_OK);
  g_test_message ("%s, credits %d: %u read, %u in order, %u exact; %" G_GUINT64_FORMAT
      " releases, %" G_GUINT64_FORMAT " sent", p->label, credits, r.read, r.in_order,
      r.exact, st.creditReleases, tst.creditReleasesSent);
  g_assert_cmpint (st.credits, ==, credits);
  if (credits) {
    g_assert_cmpuint (r.read, ==, N_GRAINS);
    g_assert_cmpuint (r.in_order, ==, N_GRAINS);
    g_assert_cmpuint (r.exact, ==, N_GRAINS);
    g_assert_cmpuint (st.grainsNoCredit, ==, 0);
    g_assert_cmpuint (tst.creditReleasesSent, ==, N_GRAINS);
    g_assert_cmpuint (st.creditReleasesAhead + st.creditReleasesBackwards
        + st.creditReleasesUnknown + st.creditReleasesBad, ==, 0);
  } else {
    /* lapped: grains overwritten before the reader got to them */
    g_assert_cmpuint (r.exact, <, N_GRAINS);
    g_assert_cmpuint (tst.creditReleasesSent, ==, 0);
  }
  pair_close (&pr);
}

static void test_slow_reader_tcp (void) { slow_reader (&fab_tcp, TRUE); }
static void test_no_credits_tcp (void) { slow_reader (&fab_tcp, FALSE); }
static void test_slow_reader_shm (void) { slow_reader (&fab_shm, TRUE); }
static void test_no_credits_shm (void) { slow_reader (&fab_shm, FALSE); }
static void test_slow_reader_rxm (void) { slow_reader (&fab_rxm, TRUE); }
static void test_no_credits_rxm (void) { slow_reader (&fab_rxm, FALSE); }

/* Fan-out: target b is never read nor released; a still gets every grain
 * (the sender waits for a's credits only, as a live sink would), b only
 * its ring's worth, the rest counted as no credit. */
static void
one_stalled (const FabProv *p)
{
  g_autofree char *def = fabtest_v210_def (FLOW_ID, "video/v210", 320, 180);
  FabSide as, bs, is;
  mxlFabricsTarget t[2];
  mxlFabricsTargetInfo info[2];
  mxlFabricsInitiator init;
  mxlFabricsExtInitiatorTargetStats st;
  Reader r = { .sleep_us = 1000, .release = TRUE };
  GThread *thread;
  guint ring, n, not_ready = 0;

  if (!fabtest_require (p))
    return;
  fabtest_side_init (&as, def, FLOW_ID);
  fabtest_side_init (&bs, def, FLOW_ID);
  fabtest_side_init (&is, def, FLOW_ID);
  t[0] = fabtest_target (&as, p, CREDITS, &info[0]);
  t[1] = fabtest_target (&bs, p, CREDITS, &info[1]);
  init = fabtest_initiator (&is, p, THREADS);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (init, info[0]), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (init, info[1]), ==, MXL_STATUS_OK);
  fabtest_connect (init, t, 2, TRUE, 5000);
  /* both acknowledged their announces (connectionless) */
  g_assert_cmpint (mxlFabricsExtInitiatorWaitCredit (init, NULL, 0, 5000), ==,
      MXL_STATUS_OK);
  ring = info[1]->n_regions;
  n = 4 * ring;
  r.side = &as;
  r.t = t[0];
  r.expect = n;
  thread = g_thread_new ("reader", reader_run, &r);
  for (uint64_t i = 0; i < n; i++) {
    mxlStatus s;

    g_assert_cmpint (mxlFabricsExtInitiatorWaitCredit (init, info[0], i, 5000), ==,
        MXL_STATUS_OK);
    send_grain (&is, init, i, &s);
    if (i < ring)
      g_assert_cmpint (s, ==, MXL_STATUS_OK);
    else
      g_assert_cmpint (s, ==, MXL_ERR_NOT_READY);   /* b has no credit */
    not_ready += s == MXL_ERR_NOT_READY;
  }
  /* b has none, a does: waiting for all of them times out */
  g_assert_cmpint (mxlFabricsExtInitiatorWaitCredit (init, NULL, n + ring, 20), ==,
      MXL_ERR_TIMEOUT);
  g_thread_join (thread);
  g_assert_cmpuint (r.read, ==, n);
  g_assert_cmpuint (r.in_order, ==, n);
  g_assert_cmpuint (r.exact, ==, n);
  g_assert_cmpint (mxlFabricsExtInitiatorGetTargetStats (init, info[0], &st), ==,
      MXL_STATUS_OK);
  g_assert_cmpuint (st.grainsNoCredit, ==, 0);
  g_assert_cmpint (mxlFabricsExtInitiatorGetTargetStats (init, info[1], &st), ==,
      MXL_STATUS_OK);
  g_assert_cmpuint (st.grainsNoCredit, ==, n - ring);
  g_assert_cmpuint (not_ready, ==, n - ring);
  mxlFabricsDestroyInitiator (is.fab, init);
  for (guint k = 0; k < 2; k++) {
    mxlFabricsDestroyTarget (k == 0 ? as.fab : bs.fab, t[k]);
    mxlFabricsFreeTargetInfo (info[k]);
  }
  fabtest_side_clear (&is);
  fabtest_side_clear (&bs);
  fabtest_side_clear (&as);
}

static void test_one_stalled_tcp (void) { one_stalled (&fab_tcp); }
static void test_one_stalled_shm (void) { one_stalled (&fab_shm); }
static void test_one_stalled_rxm (void) { one_stalled (&fab_rxm); }

/* Waits (bounded) until @pred of the target's stats holds. */
static void
wait_stats (mxlFabricsInitiator init, mxlFabricsTargetInfo info,
    mxlFabricsExtInitiatorTargetStats *st, uint64_t bad_total)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

  for (;;) {
    g_assert_cmpint (mxlFabricsExtInitiatorGetTargetStats (init, info, st), ==,
        MXL_STATUS_OK);
    if (st->creditReleasesAhead + st->creditReleasesBackwards + st->creditReleasesUnknown
        + st->creditReleasesBad >= bad_total)
      return;
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    g_usleep (1000);
  }
}

/* Releases that do not fit what was written: counted, and no slot freed. */
static void
hostile (const FabProv *p)
{
  Pair pr;
  mxlFabricsExtInitiatorTargetStats st;
  MxlCreditRelease rel;
  uint8_t msg[MXL_CREDIT_RELEASE_SIZE];
  uint64_t id;
  guint ring;

  if (!pair_open (&pr, p, CREDITS, FALSE))
    return;
  ring = pr.info->n_regions;
  id = mxl_target_credit_debug_peer_id ((MxlTarget *) pr.t);
  g_assert_cmpuint (id, !=, 0);
  {
    bool announced = false;

    g_assert_cmpint (mxlFabricsExtTargetCreditsAnnounced (pr.t, &announced), ==,
        MXL_STATUS_OK);
    g_assert_true (announced);
    g_assert_cmpint (mxlFabricsExtTargetCreditsAnnounced (NULL, &announced), ==,
        MXL_ERR_INVALID_ARG);
    g_assert_cmpint (mxlFabricsExtTargetCreditsAnnounced (pr.t, NULL), ==,
        MXL_ERR_INVALID_ARG);
  }
  for (uint64_t i = 0; i < ring; i++)
    transfer_read (&pr, i);
  /* the ring is full: nothing may go, and the API refuses what it cannot
   * release */
  {
    mxlStatus s;
    send_grain (&pr.is, pr.init, ring, &s);
    g_assert_cmpint (s, ==, MXL_ERR_NOT_READY);
  }
  g_assert_cmpint (mxlFabricsExtTargetReleaseGrain (pr.t, ring), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsExtTargetReleaseGrain (pr.t, 0), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtTargetReleaseGrain (pr.t, 0), ==, MXL_ERR_INVALID_STATE);
  g_assert_cmpint (mxlFabricsExtInitiatorWaitCredit (pr.init, NULL, ring, 5000), ==,
      MXL_STATUS_OK);
  /* ahead: never written */
  rel.initiator_id = id;
  rel.index = ring + 5;
  mxl_credit_release_encode (&rel, msg);
  g_assert_cmpint (mxl_target_credit_debug_send ((MxlTarget *) pr.t, msg, sizeof msg), ==,
      MXL_STATUS_OK);
  /* backwards: released already */
  rel.index = 0;
  mxl_credit_release_encode (&rel, msg);
  g_assert_cmpint (mxl_target_credit_debug_send ((MxlTarget *) pr.t, msg, sizeof msg), ==,
      MXL_STATUS_OK);
  /* another initiator's, for a slot that is held */
  rel.initiator_id = id + 1;
  rel.index = 1;
  mxl_credit_release_encode (&rel, msg);
  g_assert_cmpint (mxl_target_credit_debug_send ((MxlTarget *) pr.t, msg, sizeof msg), ==,
      MXL_STATUS_OK);
  /* not a release: short, and a bad magic */
  rel.initiator_id = id;
  mxl_credit_release_encode (&rel, msg);
  g_assert_cmpint (mxl_target_credit_debug_send ((MxlTarget *) pr.t, msg, 20), ==,
      MXL_STATUS_OK);
  msg[0] ^= 0xFF;
  g_assert_cmpint (mxl_target_credit_debug_send ((MxlTarget *) pr.t, msg, sizeof msg), ==,
      MXL_STATUS_OK);
  wait_stats (pr.init, pr.info, &st, 5);
  g_assert_cmpuint (st.creditReleasesAhead, ==, 1);
  g_assert_cmpuint (st.creditReleasesBackwards, ==, 1);
  g_assert_cmpuint (st.creditReleasesUnknown, ==, 1);
  g_assert_cmpuint (st.creditReleasesBad, ==, 2);
  g_assert_cmpuint (st.creditReleases, ==, 1);
  /* none of them freed slot 1: grain ring + 1 still has no credit */
  g_assert_cmpint (mxlFabricsExtInitiatorWaitCredit (pr.init, NULL, ring + 1, 50), ==,
      MXL_ERR_TIMEOUT);
  /* the true release does, and the connection is still usable */
  g_assert_cmpint (mxlFabricsExtTargetReleaseGrain (pr.t, 1), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtInitiatorWaitCredit (pr.init, NULL, ring + 1, 5000), ==,
      MXL_STATUS_OK);
  transfer_read (&pr, ring);
  pair_close (&pr);
}

static void test_hostile_tcp (void) { hostile (&fab_tcp); }
static void test_hostile_shm (void) { hostile (&fab_shm); }
static void test_hostile_rxm (void) { hostile (&fab_rxm); }

/* A target with credits and an initiator that does not announce itself
 * (as a reference initiator, or one of ours that ignores the key: its
 * TargetInfo copy without it): it writes as today, releases go nowhere. */
static void
not_announced (const FabProv *p)
{
  Pair pr;
  mxlFabricsExtInitiatorTargetStats st;
  mxlFabricsExtTargetStats tst;
  guint ring;

  if (!pair_open (&pr, p, CREDITS, TRUE))
    return;
  g_assert_cmpuint (mxl_target_credit_debug_peer_id ((MxlTarget *) pr.t), ==, 0);
  {
    bool announced = true;

    g_assert_cmpint (mxlFabricsExtTargetCreditsAnnounced (pr.t, &announced), ==,
        MXL_STATUS_OK);
    g_assert_false (announced);
  }
  ring = pr.info->n_regions;
  for (uint64_t i = 0; i < 3 * ring; i++) {
    transfer_read (&pr, i);
    g_assert_cmpint (mxlFabricsExtTargetReleaseGrain (pr.t, i), ==, MXL_STATUS_OK);
  }
  g_assert_cmpint (mxlFabricsExtInitiatorGetTargetStats (pr.init, pr.info, &st), ==,
      MXL_STATUS_OK);
  g_assert_false (st.credits);
  g_assert_cmpuint (st.grainsNoCredit, ==, 0);
  g_assert_cmpint (mxlFabricsExtTargetGetStats (pr.t, &tst), ==, MXL_STATUS_OK);
  g_assert_cmpuint (tst.creditReleasesSent, ==, 0);
  g_assert_cmpuint (tst.creditReleasesUnsent, ==, 3 * ring);
  pair_close (&pr);
}

static void test_not_announced_tcp (void) { not_announced (&fab_tcp); }
static void test_not_announced_shm (void) { not_announced (&fab_shm); }
static void test_not_announced_rxm (void) { not_announced (&fab_rxm); }

/* Announces that are not (connectionless): short, a bad magic, reserved
 * bits set, no address, a length the message does not have, longer than
 * any announce: each counted in creditAnnouncesBad, the peer unchanged,
 * and credits keep working. */
static void
announce_malformed (const FabProv *p)
{
  Pair pr;
  mxlFabricsExtTargetStats tst;
  MxlCreditAnnounce a = { .initiator_id = 0x5eed, .addr_len = 8 };
  uint8_t msg[200];
  size_t len;
  uint64_t id, target_id;
  gint64 deadline;
  guint sent = 0;

  if (!pair_open (&pr, p, CREDITS, FALSE))
    return;
  id = mxl_target_credit_debug_peer_id ((MxlTarget *) pr.t);
  g_assert_cmpuint (id, !=, 0);
  target_id = pr.info->id;
  memset (a.addr, 'x', sizeof a.addr);
  memset (msg, 0, sizeof msg);
  len = mxl_credit_announce_encode (&a, msg, sizeof msg);
  g_assert_cmpuint (len, ==, MXL_CREDIT_ANNOUNCE_HEADER + 8);
#define SEND(m, l) do { g_assert_cmpint (mxl_initiator_credit_debug_send ( \
      (MxlInitiator *) pr.init, target_id, (m), (l)), ==, MXL_STATUS_OK); sent++; } while (0)
  SEND (msg, 10);                        /* short */
  SEND (msg, len - 1);                   /* the address cut */
  msg[0] ^= 0xFF;
  SEND (msg, len);                       /* another magic */
  msg[0] ^= 0xFF;
  msg[6] = 1;
  SEND (msg, len);                       /* reserved half-word */
  msg[6] = 0;
  msg[4] = 0;
  msg[5] = 0;
  SEND (msg, MXL_CREDIT_ANNOUNCE_HEADER); /* no address (an acknowledgement) */
  msg[4] = (uint8_t) (MXL_CREDIT_ADDR_MAX + 1);
  SEND (msg, MXL_CREDIT_ANNOUNCE_HEADER + MXL_CREDIT_ADDR_MAX + 1); /* too long an address */
  SEND (msg, sizeof msg);                /* longer than any announce */
#undef SEND
  /* The two longer than the 128-byte receive (129 and 200 bytes) surface
   * as error completions (truncated), counted bad too. On rxm one of them
   * now and then never surfaces at all (1 run in about 20 with two runs
   * side by side: the provider's unexpected-message path under load); a
   * message never seen is not counted, the others are, exactly. */
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  for (;;) {
    g_assert_cmpint (mxlFabricsExtTargetGetStats (pr.t, &tst), ==, MXL_STATUS_OK);
    if (tst.creditAnnouncesBad >= sent)
      break;
    if (g_get_monotonic_time () >= deadline)
      break;
    g_usleep (1000);
  }
  g_usleep (20000);
  g_assert_cmpint (mxlFabricsExtTargetGetStats (pr.t, &tst), ==, MXL_STATUS_OK);
  g_test_message ("%s: %" G_GUINT64_FORMAT " of %u bad announces counted, %"
      G_GUINT64_FORMAT " error completions", p->label, tst.creditAnnouncesBad,
      sent, tst.completionErrors);
  g_assert_cmpuint (tst.creditAnnouncesBad, ==, sent - 2 + tst.completionErrors);
  if (p->shm)
    g_assert_cmpuint (tst.completionErrors, ==, 2);
  else
    g_assert_cmpuint (tst.completionErrors, >=, 1);
  g_assert_cmpuint (tst.completionErrors, <=, 2);
  g_assert_cmpuint (mxl_target_credit_debug_peer_id ((MxlTarget *) pr.t), ==, id);
  /* still the same credits: a grain, its release, the next one */
  transfer_read (&pr, 0);
  g_assert_cmpint (mxlFabricsExtTargetReleaseGrain (pr.t, 0), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtInitiatorWaitCredit (pr.init, NULL, pr.info->n_regions,
          5000), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtTargetGetStats (pr.t, &tst), ==, MXL_STATUS_OK);
  g_assert_cmpuint (tst.creditReleasesSent, ==, 1);
  pair_close (&pr);
}

static void test_announce_malformed_shm (void) { announce_malformed (&fab_shm); }
static void test_announce_malformed_rxm (void) { announce_malformed (&fab_rxm); }

/* An initiator destroyed and made again against the same target: its new
 * id replaces the old one, its credits work from every slot free, and a
 * release naming the old id is unknown to it. */
static void
restarted (const FabProv *p)
{
  Pair pr;
  mxlFabricsExtInitiatorTargetStats st;
  MxlCreditRelease rel;
  uint8_t msg[MXL_CREDIT_RELEASE_SIZE];
  uint64_t old_id, new_id;
  guint ring;

  if (!pair_open (&pr, p, CREDITS, FALSE))
    return;
  ring = pr.info->n_regions;
  old_id = mxl_target_credit_debug_peer_id ((MxlTarget *) pr.t);
  g_assert_cmpuint (old_id, !=, 0);
  for (uint64_t i = 0; i < ring; i++)
    transfer_read (&pr, i);
  /* the ring is full and nothing is released: the next initiator starts
   * with every slot free anyway */
  mxlFabricsDestroyInitiator (pr.is.fab, pr.init);
  pr.init = fabtest_initiator (&pr.is, p, THREADS);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (pr.init, pr.info), ==, MXL_STATUS_OK);
  fabtest_connect (pr.init, &pr.t, 1, TRUE, 5000);
  g_assert_cmpint (mxlFabricsExtInitiatorWaitCredit (pr.init, NULL, ring, 5000), ==,
      MXL_STATUS_OK);
  new_id = mxl_target_credit_debug_peer_id ((MxlTarget *) pr.t);
  g_assert_cmpuint (new_id, !=, 0);
  g_assert_cmpuint (new_id, !=, old_id);
  for (uint64_t i = ring; i < 2 * ring; i++)
    transfer_read (&pr, i);
  /* the old id's release of a held slot: unknown, frees nothing */
  rel.initiator_id = old_id;
  rel.index = ring;
  mxl_credit_release_encode (&rel, msg);
  g_assert_cmpint (mxl_target_credit_debug_send ((MxlTarget *) pr.t, msg, sizeof msg), ==,
      MXL_STATUS_OK);
  wait_stats (pr.init, pr.info, &st, 1);
  g_assert_cmpuint (st.creditReleasesUnknown, ==, 1);
  g_assert_cmpuint (st.creditReleasesAhead + st.creditReleasesBackwards
      + st.creditReleasesBad, ==, 0);
  g_assert_cmpint (mxlFabricsExtInitiatorWaitCredit (pr.init, NULL, 2 * ring, 50), ==,
      MXL_ERR_TIMEOUT);
  /* the reader's release goes to the new initiator */
  g_assert_cmpint (mxlFabricsExtTargetReleaseGrain (pr.t, ring), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtInitiatorWaitCredit (pr.init, NULL, 2 * ring, 5000), ==,
      MXL_STATUS_OK);
  transfer_read (&pr, 2 * ring);
  g_assert_cmpint (mxlFabricsExtInitiatorGetTargetStats (pr.init, pr.info, &st), ==,
      MXL_STATUS_OK);
  g_assert_cmpuint (st.creditReleases, ==, 1);
  pair_close (&pr);
}

/* A second initiator while the first one is the target's sender: refused
 * by the claim (one sender per receiver), it never becomes connected nor
 * announces itself, and the first one's credits go on. */
static void
second_refused (const FabProv *p)
{
  Pair pr;
  FabSide s2;
  mxlFabricsInitiator init2;
  mxlFabricsExtTargetStats tst;
  mxlFabricsExtInitiatorTargetStats st;
  g_autofree char *def = fabtest_v210_def (FLOW_ID, "video/v210", 320, 180);
  uint64_t id;
  gint64 deadline;

  if (!pair_open (&pr, p, CREDITS, FALSE))
    return;
  g_assert_true (pr.info->has_claim);
  id = mxl_target_credit_debug_peer_id ((MxlTarget *) pr.t);
  fabtest_side_init (&s2, def, FLOW_ID);
  init2 = fabtest_initiator (&s2, p, THREADS);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (init2, pr.info), ==, MXL_STATUS_OK);
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  for (;;) {
    g_assert_cmpint (mxlFabricsExtTargetGetStats (pr.t, &tst), ==, MXL_STATUS_OK);
    if (tst.initiatorsRefused >= 1)
      break;
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    g_usleep (1000);
  }
  /* a few of its claim retries (every 10 ms) later */
  g_usleep (200000);
  g_assert_cmpint (mxlFabricsExtInitiatorGetTargetStats (init2, pr.info, &st), ==,
      MXL_STATUS_OK);
  g_assert_false (st.credits);
  g_assert_cmpuint (mxl_target_credit_debug_peer_id ((MxlTarget *) pr.t), ==, id);
  g_assert_cmpint (mxlFabricsExtTargetGetStats (pr.t, &tst), ==, MXL_STATUS_OK);
  g_assert_cmpuint (tst.initiatorsRefused, ==, 1);
  g_assert_cmpuint (tst.creditAnnouncesBad, ==, 0);
  transfer_read (&pr, 0);
  g_assert_cmpint (mxlFabricsExtTargetReleaseGrain (pr.t, 0), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtInitiatorWaitCredit (pr.init, NULL, pr.info->n_regions,
          5000), ==, MXL_STATUS_OK);
  mxlFabricsDestroyInitiator (s2.fab, init2);
  fabtest_side_clear (&s2);
  pair_close (&pr);
}

/* A grain queued behind one whose writes the provider keeps refusing
 * (injected -FI_EAGAIN), dropped when its 1 s deadline passed before any
 * write of it was posted: its slot's credit is given back (the target
 * will never release a grain it never got), while the grain that did go
 * keeps its slot until released. Initiator without a thread: the test
 * drives every pass. */
static void
dropped_returns (const FabProv *p)
{
  Pair pr;
  mxlFabricsExtInitiatorTargetStats st;
  mxlFabricsExtInitiatorStats ist;
  mxlFabricsExtTransferResult res;
  guint ring, results = 0;
  uint64_t index = 0;
  mxlStatus s;
  gint64 deadline;
  gboolean got[2] = { FALSE, FALSE };
  mxlStatus status[2] = { MXL_STATUS_OK, MXL_STATUS_OK };

  if (!pair_open_with (&pr, p, CREDITS, FALSE, NULL))
    return;
  ring = pr.info->n_regions;
  mxl_initiator_debug_inject ((MxlInitiator *) pr.init, MXL_INJECT_POST_FAILURE, 1000000,
      FI_EAGAIN);
  send_grain (&pr.is, pr.init, 0, &s);
  g_assert_cmpint (s, ==, MXL_STATUS_OK);
  /* grain 0 started: its first write was tried (and refused) */
  g_assert_cmpint (mxlFabricsExtInitiatorGetStats (pr.init, &ist), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ist.retries, >=, 1);
  send_grain (&pr.is, pr.init, 1, &s);
  g_assert_cmpint (s, ==, MXL_STATUS_OK);
  g_usleep (1100 * 1000);
  mxl_initiator_debug_inject ((MxlInitiator *) pr.init, MXL_INJECT_POST_FAILURE, 0, 0);
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (results < 2) {
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    mxlFabricsInitiatorMakeProgressNonBlocking (pr.init);
    if (mxlFabricsExtInitiatorPollTransferResult (pr.init, 10, &res) != MXL_STATUS_OK)
      continue;
    g_assert_cmpuint (res.grainIndex, <, 2);
    got[res.grainIndex] = TRUE;
    status[res.grainIndex] = res.status;
    results++;
  }
  g_assert_true (got[0] && got[1]);
  g_assert_cmpint (status[0], ==, MXL_STATUS_OK);
  g_assert_cmpint (status[1], ==, MXL_ERR_TIMEOUT);
  g_assert_cmpint (mxlFabricsTargetReadGrain (pr.t, 5000, &index), ==, MXL_STATUS_OK);
  g_assert_cmpuint (index, ==, 0);
  g_assert_true (grain_exact (&pr.ts, 0));
  g_assert_cmpint (mxlFabricsExtInitiatorGetTargetStats (pr.init, pr.info, &st), ==,
      MXL_STATUS_OK);
  g_assert_cmpuint (st.creditReservationsReturned, ==, 1);
  g_assert_cmpuint (st.transfersDropped, ==, 1);
  /* slot 1 is free again without any release; slot 0 is not */
  g_assert_cmpint (mxlFabricsExtInitiatorWaitCredit (pr.init, NULL, 1 + ring, 0), ==,
      MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtInitiatorWaitCredit (pr.init, NULL, ring, 50), ==,
      MXL_ERR_TIMEOUT);
  /* grain 1 again goes, and so does grain ring once 0 is released */
  transfer_read (&pr, 1);
  g_assert_cmpint (mxlFabricsExtTargetReleaseGrain (pr.t, 0), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtInitiatorWaitCredit (pr.init, NULL, ring, 5000), ==,
      MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtInitiatorGetTargetStats (pr.init, pr.info, &st), ==,
      MXL_STATUS_OK);
  g_assert_cmpuint (st.creditReleases, ==, 1);
  g_assert_cmpuint (st.creditReleasesAhead + st.creditReleasesBackwards
      + st.creditReleasesUnknown + st.creditReleasesBad, ==, 0);
  pair_close (&pr);
}

static void test_dropped_returns_tcp (void) { dropped_returns (&fab_tcp); }
static void test_dropped_returns_shm (void) { dropped_returns (&fab_shm); }
static void test_dropped_returns_rxm (void) { dropped_returns (&fab_rxm); }
static void test_second_refused_shm (void) { second_refused (&fab_shm); }
static void test_second_refused_rxm (void) { second_refused (&fab_rxm); }
static void test_restarted_shm (void) { restarted (&fab_shm); }
static void test_restarted_rxm (void) { restarted (&fab_rxm); }

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/credits/tcp/slow-reader", test_slow_reader_tcp);
  g_test_add_func ("/fabrics/credits/tcp/no-credits-laps", test_no_credits_tcp);
  g_test_add_func ("/fabrics/credits/tcp/one-stalled", test_one_stalled_tcp);
  g_test_add_func ("/fabrics/credits/tcp/hostile", test_hostile_tcp);
  g_test_add_func ("/fabrics/credits/tcp/not-announced", test_not_announced_tcp);
  g_test_add_func ("/fabrics/credits/tcp/dropped-returns", test_dropped_returns_tcp);
  g_test_add_func ("/fabrics/credits/shm/dropped-returns", test_dropped_returns_shm);
  g_test_add_func ("/fabrics/credits/rxm/dropped-returns", test_dropped_returns_rxm);
  g_test_add_func ("/fabrics/credits/shm/slow-reader", test_slow_reader_shm);
  g_test_add_func ("/fabrics/credits/shm/no-credits-laps", test_no_credits_shm);
  g_test_add_func ("/fabrics/credits/shm/one-stalled", test_one_stalled_shm);
  g_test_add_func ("/fabrics/credits/shm/hostile", test_hostile_shm);
  g_test_add_func ("/fabrics/credits/shm/not-announced", test_not_announced_shm);
  g_test_add_func ("/fabrics/credits/shm/announce-malformed", test_announce_malformed_shm);
  g_test_add_func ("/fabrics/credits/shm/restarted", test_restarted_shm);
  g_test_add_func ("/fabrics/credits/shm/second-refused", test_second_refused_shm);
  g_test_add_func ("/fabrics/credits/rxm/slow-reader", test_slow_reader_rxm);
  g_test_add_func ("/fabrics/credits/rxm/no-credits-laps", test_no_credits_rxm);
  g_test_add_func ("/fabrics/credits/rxm/one-stalled", test_one_stalled_rxm);
  g_test_add_func ("/fabrics/credits/rxm/hostile", test_hostile_rxm);
  g_test_add_func ("/fabrics/credits/rxm/not-announced", test_not_announced_rxm);
  g_test_add_func ("/fabrics/credits/rxm/announce-malformed", test_announce_malformed_rxm);
  g_test_add_func ("/fabrics/credits/rxm/restarted", test_restarted_rxm);
  g_test_add_func ("/fabrics/credits/rxm/second-refused", test_second_refused_rxm);
  return g_test_run ();
}
