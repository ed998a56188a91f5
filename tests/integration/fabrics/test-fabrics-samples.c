/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Continuous flows (audio) through the fabrics engine, target and initiator
 * in separate MXL domains with different ring lengths (history 200 ms on the
 * initiator: L = 19456; 130 ms on the target: L = 13312), over loopback tcp,
 * tcp;ofi_rxm and shm (docs/wire-format.md §4):
 *   - 8 and 64 channels at 48 kHz in batches of 48, 480 and 1024 samples,
 *     both rings wrapping at different points; after every batch the whole
 *     target ring equals a model (sentinels everywhere nothing was written),
 *     the target's reader sees the batch, and the initiator posted exactly
 *     ONE write per batch (staged, the default), or with staging off
 *     ("-sg" cases) the writes the iov_limit split gives (1 + C·fragments
 *     pieces);
 *   - staging-full: every staging slot in flight refuses the next batch
 *     with NOT_READY within the queue wait, nothing lost;
 *   - sustained: 64 channels in 1 ms batches paced at 1,000 batches/s for
 *     2 s, every batch sample-exact and none lost;
 *   - hostile entries (entry index out of range, count 0, count above the
 *     entry's capacity, head < count): reported and counted, nothing written;
 *   - overrun: an initiator more than the bounce ring ahead loses batches,
 *     reported, and every delivered batch is still sample-exact; a stale
 *     entry (a head not newer than the last delivered) is reported lost.
 *   - cq-overrun: more completions than cqDepth are reported as an overrun,
 *     a status other than a lost batch's, and nothing is lost.
 *   - credits (a target with "credits": true, one credit per bounce entry,
 *     docs/fabrics-engine.md "Credits"): a sender 3x faster than the
 *     target's reader loses nothing, every sample exact, one release per
 *     entry; the overrun above against such a target with an initiator
 *     that does not see the key behaves as without credits; hostile
 *     releases (ahead, backwards, another id) counted and ignored.
 */
#include "fabtest.h"

#include "fabrics/wire/bounce.h"
#include "fabrics/wire/credit.h"

#define FLOW_ID "3c8d2f61-4b7a-4e0f-9a55-0d6b1f2e8c41"
#define SENTINEL 0xA5A5A5A5u
#define INITIATOR_DOMAIN "{\"urn:x-mxl:option:history_duration/v1.0\": 200000000}"
#define TARGET_DOMAIN "{\"urn:x-mxl:option:history_duration/v1.0\": 130000000}"

typedef struct Pair {
  FabSide ts, is;
  mxlFabricsTarget t;
  mxlFabricsInitiator init;
  mxlFabricsTargetInfo info;
  MxlSampleRing tring, iring;
  uint32_t *model;            /* what the target's rings must hold */
  gboolean staged;            /* the initiator packs entries (samplesStaging) */
} Pair;

/* The value of sample @k of channel @c. */
static inline uint32_t
sample_value (uint32_t c, uint64_t k)
{
  return (uint32_t) (k * 2654435761u) ^ (c * 0x01000193u) ^ 0x5BD1E995u;
}

static mxlStatus
read_samples (Pair *pr, uint64_t *head, size_t *count, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  for (;;) {
    mxlStatus st = mxlFabricsTargetReadSamplesNonBlocking (pr->t, head, count);
    if (st != MXL_ERR_NOT_READY)
      return st;
    st = mxlFabricsInitiatorMakeProgressNonBlocking (pr->init);
    g_assert_true (st == MXL_STATUS_OK || st == MXL_ERR_NOT_READY);
    if (g_get_monotonic_time () > deadline)
      return MXL_ERR_TIMEOUT;
    g_usleep (50);
  }
}

/* @plain: the initiator is handed the TargetInfo without ext.credits, as
 * one that does not know the key sees it. */
static gboolean
pair_open_full (Pair *pr, const FabProv *p, guint channels, guint batch,
    const char *target_options, const char *initiator_options, gboolean plain)
{
  char *def = flowtest_audio_def_full (FLOW_ID, 48000, (int) channels);
  char *wopts = g_strdup_printf ("{\"maxSyncBatchSizeHint\": %u}", batch);
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  size_t len;
  uint8_t *rings;

  if (!fabtest_require (p)) {
    g_free (def);
    g_free (wopts);
    return FALSE;
  }
  memset (pr, 0, sizeof *pr);
  fabtest_side_init_full (&pr->ts, def, FLOW_ID, TARGET_DOMAIN, wopts);
  fabtest_side_init_full (&pr->is, def, FLOW_ID, INITIATOR_DOMAIN, NULL);
  g_free (def);
  g_free (wopts);
  pr->t = fabtest_target (&pr->ts, p, target_options, &pr->info);
  pr->init = fabtest_initiator (&pr->is, p, initiator_options);
  pr->tring = *mxl_samples_debug_target_ring (pr->t);
  pr->iring = *mxl_samples_debug_initiator_ring (pr->init);
  pr->staged = pr->init->base.options.samples_staging;
  g_assert_cmpuint (pr->tring.length, ==, 13312);
  g_assert_cmpuint (pr->iring.length, ==, 19456);
  g_assert_cmpuint (pr->tring.channels, ==, channels);
  /* §4.1: entries of one batch, ceil(L / batch) of them. */
  g_assert_true (pr->info->has_bounce_buffer);
  g_assert_cmpuint (pr->info->bounce_entry_count, ==, (13312 + batch - 1) / batch);
  g_assert_cmpuint (pr->info->bounce_entry_size, ==, 16 + (uint64_t) channels * 4 * batch);
  g_assert_cmpuint (pr->info->n_regions, ==, pr->info->bounce_entry_count);
  if (plain) {
    g_assert_cmpuint (pr->info->credits, ==, MXL_CREDIT_VERSION);
    pr->info->credits = 0;
  }

  rings = mxl_flow_writer_channels (pr->ts.writer, &len);
  g_assert_cmpuint (len, ==, (size_t) channels * 13312 * 4);
  pr->model = g_malloc (len);
  for (size_t k = 0; k < len / 4; k++)
    pr->model[k] = SENTINEL;
  memcpy (rings, pr->model, len);

  g_assert_cmpint (mxlFabricsInitiatorAddTarget (pr->init, pr->info), ==, MXL_STATUS_OK);
  for (;;) {
    uint64_t h;
    size_t n;
    mxlStatus st = mxlFabricsTargetReadSamplesNonBlocking (pr->t, &h, &n);
    g_assert_cmpint (st, ==, MXL_ERR_NOT_READY);
    /* a sample target refuses the grain read */
    g_assert_cmpint (mxlFabricsTargetReadGrainNonBlocking (pr->t, &h), ==, MXL_ERR_INVALID_STATE);
    st = mxlFabricsInitiatorMakeProgressNonBlocking (pr->init);
    if (st == MXL_STATUS_OK)
      break;
    g_assert_cmpint (st, ==, MXL_ERR_NOT_READY);
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    g_usleep (500);
  }
  /* connectionless: credits once the target acknowledged the announce,
   * which the target takes when it reads (no progress thread) */
  while (pr->info->credits != 0
      && mxlFabricsExtInitiatorWaitCredit (pr->init, NULL, 0, 0) != MXL_STATUS_OK) {
    uint64_t h;
    size_t n;

    g_assert_cmpint (mxlFabricsTargetReadSamplesNonBlocking (pr->t, &h, &n), ==,
        MXL_ERR_NOT_READY);
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    g_usleep (500);
  }
  return TRUE;
}

static gboolean
pair_open (Pair *pr, const FabProv *p, guint channels, guint batch,
    const char *target_options, const char *initiator_options)
{
  return pair_open_full (pr, p, channels, batch, target_options, initiator_options, FALSE);
}

static void
pair_close (Pair *pr)
{
  /* No progress first: the initiator's teardown drains what tcp;ofi_rxm
   * still holds for rendezvous sends itself (initiator.c drain_messages). */
  mxlFabricsFreeTargetInfo (pr->info);
  fabtest_side_clear (&pr->is);
  fabtest_side_clear (&pr->ts);
  g_free (pr->model);
}

/* Writes samples [head - count, head) into the initiator's flow. */
static void
write_batch (Pair *pr, uint64_t head, uint64_t count)
{
  fabtest_write_samples (&pr->is, head, count, sample_value);
}

/* Applies a delivered batch to the model of the target's rings. */
static void
model_apply (Pair *pr, uint64_t head, uint64_t count)
{
  for (uint32_t c = 0; c < pr->tring.channels; c++)
    for (uint64_t k = head - count; k < head; k++)
      pr->model[c * pr->tring.length + k % pr->tring.length] = sample_value (c, k);
}

/* The whole target ring equals the model; the target's reader sees the
 * batch (it was committed) with the right values. */
static void
check_target (Pair *pr, uint64_t head, uint64_t count)
{
  size_t len;
  const uint8_t *rings = mxl_flow_writer_channels (pr->ts.writer, &len);
  mxlWrappedMultiBufferSlice s;

  g_assert_true (memcmp (rings, pr->model, len) == 0);
  g_assert_cmpint (mxlFlowReaderGetSamplesNonBlocking (pr->ts.reader, head, count, &s), ==,
      MXL_STATUS_OK);
  for (uint32_t c = 0; c < s.count; c += 7) {
    const uint32_t *p = (const uint32_t *) ((const uint8_t *) s.base.fragments[0].pointer
        + c * s.stride);
    g_assert_cmpuint (p[0], ==, sample_value (c, head - count));
  }
  g_assert_cmpint (mxlFlowReaderGetSamplesNonBlocking (pr->ts.reader, head + 1, 1, &s), ==,
      MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
}

/* Writes one batch the initiator posts: staged (Pair.staged), the packed
 * entry cut only by max_msg, normally ONE write; otherwise the iov_limit
 * split of the scatter-gather list (1 + C·fragments pieces). */
static guint
expected_writes (const Pair *pr, const MxlConn *conn, uint64_t head, uint64_t count)
{
  MxlSamplesSgl sgl;
  MxlSgChunk chunk;
  guint n = 0;

  if (pr->staged)
    mxl_samples_sgl_init_staged (&sgl, 16 + (uint64_t) pr->iring.channels * 4 * count,
        conn->max_msg);
  else
    g_assert_true (mxl_samples_sgl_init (&sgl, &pr->iring, head, count, conn->iov_limit,
        conn->max_msg));
  while (mxl_samples_sgl_next (&sgl, &chunk))
    n++;
  return n;
}

/* Entries the connection queued since transfer @since that went from a
 * staging slot (read from the slots' owners: nothing is counted for it). */
static uint64_t
staged_since (const MxlConn *conn, uint64_t since)
{
  uint64_t n = 0;

  for (uint64_t seq = since; seq < conn->next_seq; seq++)
    n += mxl_samples_debug_staged (conn, seq);
  return n;
}

static void
transfer_and_check (Pair *pr, uint64_t head, uint64_t count)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  mxlFabricsExtInitiatorStats before, after;
  uint64_t h = 0, staged_before;
  size_t n = 0;
  mxlStatus st;
  /* The connection's limits: the send protocol leaves room for its header. */
  const MxlConn *conn = g_ptr_array_index (pr->init->conns, 0);
  guint expect = expected_writes (pr, conn, head, count);

  write_batch (pr, head, count);
  g_assert_cmpint (mxlFabricsExtInitiatorGetStats (pr->init, &before), ==, MXL_STATUS_OK);
  staged_before = conn->next_seq;
  while ((st = mxlFabricsInitiatorTransferSamples (pr->init, head, count)) != MXL_STATUS_OK) {
    g_assert_cmpint (st, ==, MXL_ERR_NOT_READY);
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
  }
  g_assert_cmpuint (staged_since (conn, staged_before), ==, pr->staged ? 1 : 0);
  g_assert_cmpint (read_samples (pr, &h, &n, 5000), ==, MXL_STATUS_OK);
  g_assert_cmpuint (h, ==, head);
  g_assert_cmpuint (n, ==, count);
  g_assert_cmpint (mxl_initiator_make_progress (pr->init, 1000), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtInitiatorGetStats (pr->init, &after), ==, MXL_STATUS_OK);
  g_assert_cmpuint (after.writesPosted - before.writesPosted, ==, expect);
  model_apply (pr, head, count);
  check_target (pr, head, count);
}

typedef struct Case {
  const FabProv *prov;
  guint channels, batch;
  const char *options;        /* both sides' setup options (credits-*: the
                                 initiator's) */
} Case;

static void
stream (gconstpointer data)
{
  const Case *tc = data;
  Pair pr;
  /* Start where neither ring is at a batch boundary; run past both lengths. */
  uint64_t head = 3 * 19456 + 1000 + tc->batch, end;
  guint batches = 0;
  mxlFabricsExtTargetStats ts;

  if (!pair_open (&pr, tc->prov, tc->channels, tc->batch, tc->options, tc->options))
    return;
  end = head + 19456 + 13312 + 3 * tc->batch;
  for (; head < end; head += tc->batch, batches++)
    transfer_and_check (&pr, head, tc->batch);
  /* A shorter batch fits the entry too; then one after a gap of 100. */
  transfer_and_check (&pr, head - tc->batch + 5, 5);
  transfer_and_check (&pr, head - tc->batch + 110, 5);
  batches += 2;
  /* Longer than an entry: several entries of consecutive samples. */
  {
    uint64_t h0 = head - tc->batch + 110, n0 = tc->batch * 2 + tc->batch / 2, h, got = 0;
    size_t n;
    write_batch (&pr, h0 + n0, n0);
    g_assert_cmpint (mxlFabricsInitiatorTransferSamples (pr.init, h0 + n0, n0), ==, MXL_STATUS_OK);
    for (guint k = 0; k < 3; k++) {
      g_assert_cmpint (read_samples (&pr, &h, &n, 5000), ==, MXL_STATUS_OK);
      g_assert_cmpuint (h, ==, h0 + MIN ((k + 1) * tc->batch, n0));
      got += n;
      model_apply (&pr, h, n);
      check_target (&pr, h, n);
      batches++;
    }
    g_assert_cmpuint (got, ==, n0);
  }
  g_assert_cmpint (mxlFabricsExtTargetGetStats (pr.t, &ts), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ts.batchesReceived, ==, batches);
  g_assert_cmpuint (ts.batchesLost, ==, 0);
  g_assert_cmpuint (ts.badBounceEntries, ==, 0);
  g_assert_cmpuint (ts.entriesOutOfSequence, ==, 0);
  g_assert_cmpuint (ts.samplesSkipped, ==, 100);
  g_assert_cmpuint (ts.completionsWithoutData, ==, 0);
  /* Zero, or more than the local ring. */
  g_assert_cmpint (mxlFabricsInitiatorTransferSamples (pr.init, head + 5000, 0), ==,
      MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsInitiatorTransferSamples (pr.init, head + 50000, 19457), ==,
      MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsInitiatorTransferGrain (pr.init, 1, 0, 1), ==, MXL_ERR_INVALID_STATE);
  pair_close (&pr);
}

/* Bad values from the network: counted, reported, nothing unpacked. */
static void
hostile (gconstpointer data)
{
  const Case *tc = data;
  Pair pr;
  uint64_t head = 50000, h;
  size_t n;
  uint32_t entries;
  uint64_t cap = tc->batch;
  mxlFabricsExtTargetStats ts;

  if (!pair_open (&pr, tc->prov, tc->channels, tc->batch, tc->options, tc->options))
    return;
  entries = (uint32_t) pr.info->bounce_entry_count;
  write_batch (&pr, head, cap);
  /* 1. entry index (immediate data) out of range */
  g_assert_cmpint (mxl_initiator_debug_samples_raw (pr.init, pr.info->id, head, cap, 0, entries,
      head, cap), ==, MXL_STATUS_OK);
  g_assert_cmpint (read_samples (&pr, &h, &n, 5000), ==, MXL_ERR_INVALID_ARG);
  /* 2. count 0 in the entry header */
  g_assert_cmpint (mxl_initiator_debug_samples_raw (pr.init, pr.info->id, head, cap, 1, 1,
      head, 0), ==, MXL_STATUS_OK);
  g_assert_cmpint (read_samples (&pr, &h, &n, 5000), ==, MXL_ERR_INVALID_ARG);
  /* 3. count above the entry's capacity */
  g_assert_cmpint (mxl_initiator_debug_samples_raw (pr.init, pr.info->id, head, cap, 2, 2,
      head, cap + 1), ==, MXL_STATUS_OK);
  g_assert_cmpint (read_samples (&pr, &h, &n, 5000), ==, MXL_ERR_INVALID_ARG);
  /* 4. a header that cannot be: head before its own count */
  g_assert_cmpint (mxl_initiator_debug_samples_raw (pr.init, pr.info->id, head, cap, 3, 3,
      cap - 1, cap), ==, MXL_STATUS_OK);
  g_assert_cmpint (read_samples (&pr, &h, &n, 5000), ==, MXL_ERR_INVALID_ARG);
  /* 5. all bits set */
  g_assert_cmpint (mxl_initiator_debug_samples_raw (pr.init, pr.info->id, head, cap, 4,
      0xFFFFFFFFu, G_MAXUINT64, G_MAXUINT64), ==, MXL_STATUS_OK);
  g_assert_cmpint (read_samples (&pr, &h, &n, 5000), ==, MXL_ERR_INVALID_ARG);
  /* 6. refused before posting: an entry that is not in the TargetInfo */
  g_assert_cmpint (mxl_initiator_debug_samples_raw (pr.init, pr.info->id, head, cap, entries, 0,
      head, cap), ==, MXL_ERR_INVALID_ARG);

  g_assert_cmpint (mxlFabricsExtTargetGetStats (pr.t, &ts), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ts.badImmediateData, ==, 2);
  g_assert_cmpuint (ts.badBounceEntries, ==, 3);
  g_assert_cmpuint (ts.batchesReceived, ==, 0);
  {
    size_t len;
    const uint8_t *rings = mxl_flow_writer_channels (pr.ts.writer, &len);
    g_assert_true (memcmp (rings, pr.model, len) == 0);     /* all sentinels */
  }
  /* A target expecting a protocol this initiator does not speak, and a
   * bounce ring that does not fit the local flow, are refused at AddTarget. */
  {
    struct mxlFabricsTargetInfo_t *other = mxl_target_info_copy (pr.info);
    other->id++;
    /* (tcp has no tag matching; rxm and shm initiators speak tagged.) */
    if (!(pr.init->base.dom->info->caps & FI_TAGGED)) {
      g_free (other->protocol);
      other->protocol = g_strdup ("tagged");
      g_test_expect_message ("mxlfabrics", G_LOG_LEVEL_WARNING, "*\"tagged\" protocol*");
      g_assert_cmpint (mxlFabricsInitiatorAddTarget (pr.init, other), ==,
          MXL_ERR_UNSUPPORTED_OPERATION);
      g_test_assert_expected_messages ();
    }
    g_free (other->protocol);
    other->protocol = g_strdup ("write");
    other->bounce_entry_size = 16 + tc->channels * 4 - 1;   /* not one sample */
    g_test_expect_message ("mxlfabrics", G_LOG_LEVEL_WARNING, "*unusable*");
    g_assert_cmpint (mxlFabricsInitiatorAddTarget (pr.init, other), ==, MXL_ERR_INVALID_ARG);
    g_test_assert_expected_messages ();
    other->has_bounce_buffer = FALSE;
    g_test_expect_message ("mxlfabrics", G_LOG_LEVEL_WARNING, "*grain target for a sample*");
    g_assert_cmpint (mxlFabricsInitiatorAddTarget (pr.init, other), ==, MXL_ERR_INVALID_ARG);
    g_test_assert_expected_messages ();
    mxl_target_info_free (other);
  }
  /* Still usable. */
  transfer_and_check (&pr, head + cap, cap);
  /* A stale entry: the same head again in another entry is a lost batch. */
  g_assert_cmpint (mxl_initiator_debug_samples_raw (pr.init, pr.info->id, head + cap, cap, 2, 2,
      head + cap, cap), ==, MXL_STATUS_OK);
  g_assert_cmpint (read_samples (&pr, &h, &n, 5000), ==, MXL_FABRICS_EXT_STATUS_SAMPLES_LOST);
  g_assert_cmpint (mxlFabricsExtTargetGetStats (pr.t, &ts), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ts.batchesLost, ==, 1);
  g_assert_cmpuint (ts.batchesReceived, ==, 1);
  pair_close (&pr);
}

/* Transfers @n batches of tc->batch samples from @head on, then lets them
 * get on their way before the target reads (its completions need the
 * target's progress, so the initiator cannot finish alone). */
static void
send_unread (Pair *pr, const Case *tc, uint64_t head, guint n)
{
  gint64 deadline;

  for (guint b = 0; b < n; b++) {
    write_batch (pr, head + (uint64_t) b * tc->batch, tc->batch);
    g_assert_cmpint (mxlFabricsInitiatorTransferSamples (pr->init, head + (uint64_t) b * tc->batch,
        tc->batch), ==, MXL_STATUS_OK);
  }
  deadline = g_get_monotonic_time () + 200 * 1000;
  while (g_get_monotonic_time () < deadline) {
    mxlFabricsInitiatorMakeProgressNonBlocking (pr->init);
    g_usleep (1000);
  }
}

/* The initiator runs more than the ring ahead: the overwritten batches are
 * reported lost, never unpacked; every delivered one is sample-exact. */
static void
overrun_with (const Case *tc, const char *target_options, gboolean plain)
{
  Pair pr;
  uint64_t head = 40000, h;
  size_t n;
  guint entries, sent, delivered = 0, lost = 0;
  mxlFabricsExtTargetStats ts;

  if (!pair_open_full (&pr, tc->prov, tc->channels, tc->batch, target_options, tc->options,
          plain))
    return;
  entries = (guint) pr.info->bounce_entry_count;
  sent = entries + 3;
  send_unread (&pr, tc, head, sent);
  while (delivered + lost < sent) {
    mxlStatus st = read_samples (&pr, &h, &n, 5000);
    if (st == MXL_FABRICS_EXT_STATUS_SAMPLES_LOST) {
      lost++;
      continue;
    }
    g_assert_cmpint (st, ==, MXL_STATUS_OK);
    g_assert_cmpuint (n, ==, tc->batch);
    g_assert_cmpuint ((h - head) % tc->batch, ==, 0);
    model_apply (&pr, h, n);
    check_target (&pr, h, n);
    delivered++;
  }
  g_assert_cmpint (mxlFabricsExtTargetGetStats (pr.t, &ts), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ts.batchesLost, ==, lost);
  g_assert_cmpuint (ts.batchesReceived, ==, delivered);
  /* The three batches that came back round overwrote three entries. */
  g_assert_cmpuint (lost, ==, 3);
  g_assert_cmpuint (delivered, ==, entries);
  /* a target with credits whose initiator did not announce itself keeps
   * and sends nothing */
  g_assert_cmpuint (ts.creditReleasesSent, ==, 0);
  g_assert_cmpuint (ts.creditReleasesUnsent, ==, 0);
  pair_close (&pr);
}

static void
overrun (gconstpointer data)
{
  const Case *tc = data;

  overrun_with (tc, tc->options, FALSE);
}

/* The same against a target with credits, whose TargetInfo the initiator
 * is handed without the key: as without credits. */
static void
credits_not_announced (gconstpointer data)
{
  overrun_with (data, "{\"credits\": true}", TRUE);
}

/* More completions waiting than cqDepth on a sample target: the overrun is
 * reported once with MXL_FABRICS_EXT_STATUS_CQ_OVERRUN, which a reader
 * tells from a lost batch (MXL_FABRICS_EXT_STATUS_SAMPLES_LOST, a value of
 * its own: they used to be the same), and every batch is still delivered,
 * sample-exact: nothing was lost. */
static void
cq_overrun (gconstpointer data)
{
  const Case *tc = data;
  Pair pr;
  uint64_t head = 50000, h;
  size_t n;
  guint delivered = 0, overruns = 0;
  mxlFabricsExtTargetStats ts;

  g_assert_cmpint (MXL_FABRICS_EXT_STATUS_SAMPLES_LOST, !=, MXL_FABRICS_EXT_STATUS_CQ_OVERRUN);
  if (!pair_open (&pr, tc->prov, tc->channels, tc->batch, tc->options, NULL))
    return;
  send_unread (&pr, tc, head, 4);
  g_test_expect_message ("mxlfabrics", G_LOG_LEVEL_WARNING, "*cqDepth*");
  while (delivered < 4) {
    mxlStatus st = read_samples (&pr, &h, &n, 5000);
    if (st == MXL_FABRICS_EXT_STATUS_CQ_OVERRUN) {
      overruns++;
      continue;
    }
    g_assert_cmpint (st, ==, MXL_STATUS_OK);
    g_assert_cmpuint (h, ==, head + (uint64_t) delivered * tc->batch);
    g_assert_cmpuint (n, ==, tc->batch);
    model_apply (&pr, h, n);
    check_target (&pr, h, n);
    delivered++;
  }
  g_test_assert_expected_messages ();
  g_assert_cmpuint (overruns, ==, 1);
  g_assert_cmpint (mxlFabricsExtTargetGetStats (pr.t, &ts), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ts.cqOverruns, ==, 1);
  g_assert_cmpuint (ts.batchesLost, ==, 0);
  g_assert_cmpuint (ts.batchesReceived, ==, 4);
  pair_close (&pr);
}

/* Staging slots are back-pressure: with every slot holding a transfer
 * whose write has not completed (the target has not progressed), the next
 * batch is refused with NOT_READY within the queue wait (never blocks for
 * longer), nothing is lost, and once the target has read the batches the
 * refused one goes through. */
static void
staging_full (gconstpointer data)
{
  const Case *tc = data;
  const uint64_t slot = 16 + (uint64_t) tc->channels * 4 * tc->batch;
  Pair pr;
  uint64_t head = 30000, h;
  size_t n;
  MxlConn *conn;
  MxlSamplesStaging sg;
  mxlFabricsExtInitiatorStats is;
  gint64 t0;
  uint64_t seq0;

  mxl_samples_debug_set_staging_budget (4 * slot);
  if (!pair_open (&pr, tc->prov, tc->channels, tc->batch, tc->options, tc->options)) {
    mxl_samples_debug_set_staging_budget (0);
    return;
  }
  conn = g_ptr_array_index (pr.init->conns, 0);
  seq0 = conn->next_seq;
  for (guint b = 0; b < 4; b++) {
    write_batch (&pr, head + b * tc->batch, tc->batch);
    g_assert_cmpint (mxlFabricsInitiatorTransferSamples (pr.init, head + b * tc->batch,
        tc->batch), ==, MXL_STATUS_OK);
  }
  mxl_samples_debug_staging (conn, &sg);
  g_assert_cmpuint (sg.n_staging, ==, 4);
  g_assert_cmpuint (sg.slot_size, ==, slot);
  g_assert_cmpuint (staged_since (conn, seq0), ==, 4);
  g_assert_false (sg.next_slot_free);
  write_batch (&pr, head + 4 * tc->batch, tc->batch);
  t0 = g_get_monotonic_time ();
  g_assert_cmpint (mxlFabricsInitiatorTransferSamples (pr.init, head + 4 * tc->batch,
      tc->batch), ==, MXL_ERR_NOT_READY);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, G_USEC_PER_SEC);
  /* refused for want of a slot: the queue had room, the slot had none */
  mxl_samples_debug_staging (conn, &sg);
  g_assert_false (sg.next_slot_free);
  g_assert_cmpuint (conn->q_len + 1, <=, MXL_CONN_QUEUE);
  g_assert_cmpuint (staged_since (conn, seq0), ==, 4);
  g_assert_cmpint (mxlFabricsExtInitiatorGetStats (pr.init, &is), ==, MXL_STATUS_OK);
  g_assert_cmpuint (is.transfersDropped, ==, 1);
  /* posted or waiting (rxm and shm post only once the target progressed) */
  g_assert_cmpuint (is.transfersQueued, ==, 4);
  g_assert_cmpuint (is.writesPosted, <=, 4);
  /* The four staged batches arrive intact ... */
  for (guint b = 0; b < 4; b++) {
    g_assert_cmpint (read_samples (&pr, &h, &n, 5000), ==, MXL_STATUS_OK);
    g_assert_cmpuint (h, ==, head + b * tc->batch);
    g_assert_cmpuint (n, ==, tc->batch);
    model_apply (&pr, h, n);
    check_target (&pr, h, n);
  }
  /* ... one write each ... */
  g_assert_cmpint (mxl_initiator_make_progress (pr.init, 1000), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtInitiatorGetStats (pr.init, &is), ==, MXL_STATUS_OK);
  g_assert_cmpuint (is.writesPosted, ==, 4);
  g_assert_cmpuint (is.transfersCompleted, ==, 4);
  /* ... and the refused one goes through now, in one write. */
  transfer_and_check (&pr, head + 4 * tc->batch, tc->batch);
  /* the fifth took the first one's slot */
  g_assert_cmpuint (conn->next_seq - seq0, ==, 5);
  g_assert_cmpuint (staged_since (conn, seq0 + 1), ==, 4);
  pair_close (&pr);
  mxl_samples_debug_set_staging_budget (0);
}

/* Checks every sample of a delivered batch as the target's reader sees it. */
static void
check_batch_exact (Pair *pr, uint64_t head, uint64_t count)
{
  mxlWrappedMultiBufferSlice sl;

  g_assert_cmpint (mxlFlowReaderGetSamplesNonBlocking (pr->ts.reader, head, count, &sl), ==,
      MXL_STATUS_OK);
  for (uint32_t c = 0; c < sl.count; c++) {
    uint64_t k = head - count;
    for (guint f = 0; f < 2; f++) {
      const uint32_t *p = (const uint32_t *) ((const uint8_t *) sl.base.fragments[f].pointer
          + c * sl.stride);
      for (size_t i = 0; i < sl.base.fragments[f].size / 4; i++, k++)
        if (p[i] != sample_value (c, k))
          g_error ("channel %u sample %" G_GUINT64_FORMAT ": %08x, expected %08x", c, k,
              p[i], sample_value (c, k));
    }
    g_assert_cmpuint (k, ==, head);
  }
}

/* Real time: 2 s of batches paced at 1 ms (1,000 batches/s), both ends in
 * this thread. Every batch arrives, in order, sample-exact; none lost or
 * skipped; all of them within 1 s of the schedule's end. */
static void
sustained (gconstpointer data)
{
  const Case *tc = data;
  const guint total = 2000;
  const uint64_t first = 100000;
  Pair pr;
  guint posted = 0, received = 0, retries = 0;
  gint64 t0, deadline, elapsed;
  mxlFabricsExtTargetStats ts;

  if (!pair_open (&pr, tc->prov, tc->channels, tc->batch, tc->options, tc->options))
    return;
  t0 = g_get_monotonic_time ();
  deadline = t0 + 30 * G_USEC_PER_SEC;   /* a hang guard, not a speed target */
  while (received < total) {
    gint64 now = g_get_monotonic_time (), due = t0 + (gint64) posted * 1000;
    uint64_t h;
    size_t n;
    mxlStatus st;

    g_assert_cmpint (now, <, deadline);
    if (posted < total && now >= due) {
      uint64_t head = first + (uint64_t) (posted + 1) * tc->batch;
      write_batch (&pr, head, tc->batch);
      st = mxlFabricsInitiatorTransferSamples (pr.init, head, tc->batch);
      if (st == MXL_ERR_NOT_READY)
        retries++;       /* the same batch again at the next turn */
      else {
        g_assert_cmpint (st, ==, MXL_STATUS_OK);
        posted++;
      }
    }
    while ((st = mxlFabricsTargetReadSamplesNonBlocking (pr.t, &h, &n)) == MXL_STATUS_OK) {
      g_assert_cmpuint (h, ==, first + (uint64_t) (received + 1) * tc->batch);
      g_assert_cmpuint (n, ==, tc->batch);
      check_batch_exact (&pr, h, n);
      received++;
    }
    g_assert_cmpint (st, ==, MXL_ERR_NOT_READY);
    st = mxlFabricsInitiatorMakeProgressNonBlocking (pr.init);
    g_assert_true (st == MXL_STATUS_OK || st == MXL_ERR_NOT_READY);
    if (posted < total && g_get_monotonic_time () < t0 + (gint64) posted * 1000)
      g_usleep (100);
  }
  elapsed = g_get_monotonic_time () - t0;
  g_test_message ("%u batches of %u ch x %u in %.3f s (%.0f batches/s), %u refused and "
      "retried", total, tc->channels, tc->batch, elapsed / 1e6, total / (elapsed / 1e6),
      retries);
  g_assert_cmpint (mxlFabricsExtTargetGetStats (pr.t, &ts), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ts.batchesReceived, ==, total);
  g_assert_cmpuint (ts.batchesLost, ==, 0);
  g_assert_cmpuint (ts.samplesSkipped, ==, 0);
  g_assert_cmpuint (ts.badBounceEntries, ==, 0);
  /* The rate itself is a benchmark figure (bench/run-audio.sh), not an
   * assertion: this test proves every batch of a 1 ms schedule arrives
   * sample-exact, none lost or skipped. */
  pair_close (&pr);
}

#define CREDITS_TARGET "{\"credits\": true}"

/* The initiator's credit figures for the pair's target. */
static mxlFabricsExtInitiatorTargetStats
target_stats (Pair *pr)
{
  mxlFabricsExtInitiatorTargetStats st = { .version = MXL_FABRICS_API_VERSION };

  g_assert_cmpint (mxlFabricsExtInitiatorGetTargetStats (pr->init, pr->info, &st), ==,
      MXL_STATUS_OK);
  return st;
}

/* Progresses the initiator until @releases releases freed an entry (2 s
 * at most). */
static void
await_releases (Pair *pr, uint64_t releases)
{
  gint64 deadline = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;

  while (target_stats (pr).creditReleases < releases
      && g_get_monotonic_time () < deadline) {
    mxlFabricsInitiatorMakeProgressNonBlocking (pr->init);
    g_usleep (200);
  }
  g_assert_cmpuint (target_stats (pr).creditReleases, ==, releases);
}

/* Sender 3x faster than the reader: per 1 ms tick three tries to send the
 * next batch, one read (the target consumes, and so releases, entries
 * only when read: no progress thread). A batch refused for want of a
 * credit is sent again later, as mxlfabricssink does with an input that
 * is not live. Every batch arrives, in order, sample-exact; nothing lost;
 * one release per entry. */
static void
credits_run (const Case *tc, const char *target_options)
{
  const guint total = 200;
  guint posted = 0, received = 0, refused = 0;
  mxlFabricsExtTargetStats ts;
  mxlFabricsExtInitiatorTargetStats is;
  const uint64_t first = 100000;
  gboolean threaded;
  gint64 deadline;
  Pair pr;

  if (!pair_open (&pr, tc->prov, tc->channels, tc->batch, target_options, tc->options))
    return;
  g_assert_cmpuint (pr.info->credits, ==, MXL_CREDIT_VERSION);
  /* with the target's progress thread entries are consumed (and
   * released) at once: the reader takes what came each tick, which the
   * flow's ring holds */
  threaded = strstr (target_options, "progressThread") != NULL;
  g_assert_true (target_stats (&pr).credits);
  deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;   /* a hang guard */
  while (received < total) {
    uint64_t h;
    size_t n;
    mxlStatus st;

    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    for (guint k = 0; k < 3 && posted < total; k++) {
      uint64_t head = first + (uint64_t) (posted + 1) * tc->batch;

      write_batch (&pr, head, tc->batch);
      st = mxlFabricsInitiatorTransferSamples (pr.init, head, tc->batch);
      if (st == MXL_ERR_NOT_READY) {
        refused++;
        break;
      }
      g_assert_cmpint (st, ==, MXL_STATUS_OK);
      posted++;
    }
    do {
      st = mxlFabricsTargetReadSamplesNonBlocking (pr.t, &h, &n);
      if (st != MXL_STATUS_OK)
        break;
      g_assert_cmpuint (h, ==, first + (uint64_t) (received + 1) * tc->batch);
      g_assert_cmpuint (n, ==, tc->batch);
      check_batch_exact (&pr, h, n);
      received++;
    } while (threaded);
    if (st != MXL_STATUS_OK)
      g_assert_cmpint (st, ==, MXL_ERR_NOT_READY);
    st = mxlFabricsInitiatorMakeProgressNonBlocking (pr.init);
    g_assert_true (st == MXL_STATUS_OK || st == MXL_ERR_NOT_READY);
    g_usleep (1000);
  }
  await_releases (&pr, total);
  g_test_message ("%u batches of %u ch x %u, %u entries: %u refused for want of a credit",
      total, tc->channels, tc->batch, (guint) pr.info->bounce_entry_count, refused);
  g_assert_cmpint (mxlFabricsExtTargetGetStats (pr.t, &ts), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ts.batchesReceived, ==, total);
  g_assert_cmpuint (ts.batchesLost, ==, 0);
  g_assert_cmpuint (ts.samplesSkipped, ==, 0);
  g_assert_cmpuint (ts.badBounceEntries, ==, 0);
  g_assert_cmpuint (ts.entriesOutOfSequence, ==, 0);
  g_assert_cmpuint (ts.creditReleasesSent, ==, total);
  g_assert_cmpuint (ts.creditReleasesUnsent, ==, 0);
  is = target_stats (&pr);
  g_assert_cmpuint (is.creditReleases, ==, total);
  g_assert_cmpuint (is.creditReleasesAhead, ==, 0);
  g_assert_cmpuint (is.creditReleasesBackwards, ==, 0);
  g_assert_cmpuint (is.creditReleasesUnknown, ==, 0);
  g_assert_cmpuint (is.creditReleasesBad, ==, 0);
  g_assert_cmpuint (is.creditReservationsReturned, ==, 0);
  /* each refusal is one without credit; the inline target's reader
   * holds the sender back */
  if (!threaded)
    g_assert_cmpuint (refused, >, 0);
  g_assert_cmpuint (is.grainsNoCredit, ==, refused);
  /* the target releases its entries itself */
  g_assert_cmpint (mxlFabricsExtTargetReleaseGrain (pr.t, 0), ==, MXL_ERR_INVALID_STATE);
  pair_close (&pr);
}

static void
credits_slow_reader (gconstpointer data)
{
  credits_run (data, CREDITS_TARGET);
}

/* The same with the target's progress thread, which consumes (and so
 * releases) every entry as it comes. */
static void
credits_target_thread (gconstpointer data)
{
  credits_run (data, "{\"credits\": true, \"progressThread\": true}");
}

/* Sends batch @i (of tc->batch samples from @first on), reads it, and
 * progresses the initiator until its release came (the initiator has no
 * progress thread: releases are taken in MakeProgress). */
static void
send_and_read (Pair *pr, const Case *tc, uint64_t first, guint i)
{
  uint64_t head = first + (uint64_t) (i + 1) * tc->batch, h;
  size_t n;

  write_batch (pr, head, tc->batch);
  g_assert_cmpint (mxlFabricsInitiatorTransferSamples (pr->init, head, tc->batch), ==,
      MXL_STATUS_OK);
  g_assert_cmpint (read_samples (pr, &h, &n, 5000), ==, MXL_STATUS_OK);
  g_assert_cmpuint (h, ==, head);
  g_assert_cmpuint (n, ==, tc->batch);
  check_batch_exact (pr, h, n);
  await_releases (pr, i + 1);
}

/* The target sends a release of @index for @id as it is (test hook). */
static void
inject_release (Pair *pr, uint64_t id, uint64_t index)
{
  MxlCreditRelease r = { .initiator_id = id, .index = index };
  uint8_t msg[MXL_CREDIT_RELEASE_SIZE];

  mxl_credit_release_encode (&r, msg);
  g_assert_cmpint (mxl_target_credit_debug_send ((MxlTarget *) pr->t, msg, sizeof msg), ==,
      MXL_STATUS_OK);
}

/* Releases from the target side that do not fit what the initiator wrote
 * into the entries: counted, ignored; the stream goes on exact. */
static void
credits_hostile (gconstpointer data)
{
  const Case *tc = data;
  const uint64_t first = 50000;
  const guint before = 4, after = 40;
  Pair pr;
  uint64_t id;
  mxlFabricsExtInitiatorTargetStats is;
  mxlFabricsExtTargetStats ts;
  gint64 deadline;

  if (!pair_open (&pr, tc->prov, tc->channels, tc->batch, CREDITS_TARGET, tc->options))
    return;
  for (guint i = 0; i < before; i++)
    send_and_read (&pr, tc, first, i);
  id = mxl_target_credit_debug_peer_id ((MxlTarget *) pr.t);
  g_assert_cmpuint (id, !=, 0);
  inject_release (&pr, id, 1000);        /* ahead: an entry index never written */
  inject_release (&pr, id, 2);           /* backwards: released already */
  inject_release (&pr, id ^ 1, before);  /* another initiator's */
  deadline = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  do {
    mxlFabricsInitiatorMakeProgressNonBlocking (pr.init);
    g_usleep (200);
    is = target_stats (&pr);
  } while (is.creditReleasesAhead + is.creditReleasesBackwards + is.creditReleasesUnknown < 3
      && g_get_monotonic_time () < deadline);
  g_assert_cmpuint (is.creditReleasesAhead, ==, 1);
  g_assert_cmpuint (is.creditReleasesBackwards, ==, 1);
  g_assert_cmpuint (is.creditReleasesUnknown, ==, 1);
  g_assert_cmpuint (is.creditReleases, ==, before);
  /* ignored: the window is as it was, the stream goes on */
  for (guint i = before; i < before + after; i++)
    send_and_read (&pr, tc, first, i);
  is = target_stats (&pr);
  g_assert_cmpuint (is.creditReleasesAhead, ==, 1);
  g_assert_cmpuint (is.creditReleasesBackwards, ==, 1);
  g_assert_cmpuint (is.creditReleasesUnknown, ==, 1);
  g_assert_cmpuint (is.grainsNoCredit, ==, 0);
  g_assert_cmpint (mxlFabricsExtTargetGetStats (pr.t, &ts), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ts.batchesReceived, ==, before + after);
  g_assert_cmpuint (ts.batchesLost, ==, 0);
  g_assert_cmpuint (ts.creditReleasesSent, ==, before + after);
  pair_close (&pr);
}

/* TransferSamples to a target added again and not yet connected (issue 13
 * item 2, the samples sibling of transfer/not-connected): refused with
 * NOT_READY, one result with the batch's head, counted; once connected,
 * the next batch arrives. */
static void
not_connected (gconstpointer data)
{
  const Case *tc = data;
  Pair pr;
  uint64_t head = 50000;
  mxlFabricsExtInitiatorStats st = { .version = MXL_FABRICS_API_VERSION };
  mxlFabricsExtTransferResult r;
  gint64 deadline;

  if (!pair_open (&pr, tc->prov, tc->channels, tc->batch, tc->options, tc->options))
    return;
  g_assert_cmpint (mxlFabricsInitiatorRemoveTarget (pr.init, pr.info), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (pr.init, pr.info), ==, MXL_STATUS_OK);
  write_batch (&pr, head, tc->batch);
  g_assert_cmpint (mxlFabricsInitiatorTransferSamples (pr.init, head, tc->batch), ==,
      MXL_ERR_NOT_READY);
  g_assert_cmpint (mxlFabricsExtInitiatorGetStats (pr.init, &st), ==, MXL_STATUS_OK);
  g_assert_cmpuint (st.transfersNotConnected, ==, 1);
  g_assert_cmpint (mxlFabricsExtInitiatorPollTransferResult (pr.init, 0, &r), ==,
      MXL_STATUS_OK);
  g_assert_cmpint (r.status, ==, MXL_ERR_NOT_READY);
  g_assert_cmpuint (r.grainIndex, ==, head);
  g_assert_cmpuint (r.targetId, ==, pr.info->id);

  /* connected again: the next batch arrives */
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  for (;;) {
    uint64_t h;
    size_t n;
    g_assert_cmpint (mxlFabricsTargetReadSamplesNonBlocking (pr.t, &h, &n), ==,
        MXL_ERR_NOT_READY);
    if (mxlFabricsInitiatorMakeProgressNonBlocking (pr.init) == MXL_STATUS_OK)
      break;
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    g_usleep (500);
  }
  transfer_and_check (&pr, head + tc->batch, tc->batch);
  g_assert_cmpint (mxlFabricsExtInitiatorGetStats (pr.init, &st), ==, MXL_STATUS_OK);
  g_assert_cmpuint (st.transfersNotConnected, ==, 1);
  pair_close (&pr);
}

int
main (int argc, char **argv)
{
  static const FabProv *provs[] = { &fab_tcp, &fab_rxm, &fab_shm };
  static const char *labels[] = { "tcp", "rxm", "shm" };
  static const guint channels[] = { 8, 64 };
  static const guint batches[] = { 48, 480, 1024 };
  static Case cases[3][2][3];
  static Case specials[3][13];
  static const char *sg = "{\"samplesStaging\": false}";

  g_test_init (&argc, &argv, NULL);
  for (guint p = 0; p < 3; p++) {
    for (guint c = 0; c < 2; c++)
      for (guint b = 0; b < 3; b++) {
        char *path = g_strdup_printf ("/fabrics/samples/%s/stream-%uch-%u", labels[p],
            channels[c], batches[b]);
        cases[p][c][b] = (Case) { provs[p], channels[c], batches[b], NULL };
        g_test_add_data_func (path, &cases[p][c][b], stream);
        g_free (path);
      }
    {
      struct { const char *name; Case c; GTestDataFunc fn; } sp[] = {
        { "hostile", { provs[p], 8, 480, NULL }, hostile },
        { "overrun", { provs[p], 2, 1024, NULL }, overrun },
        { "cq-overrun", { provs[p], 8, 480, "{\"cqDepth\": 2}" }, cq_overrun },
        /* the scatter-gather path (staging off): iov_limit splitting */
        { "stream-64ch-48-sg", { provs[p], 64, 48, sg }, stream },
        { "stream-8ch-1024-sg", { provs[p], 8, 1024, sg }, stream },
        { "staging-full", { provs[p], 8, 480, NULL }, staging_full },
        { "sustained-64ch-48", { provs[p], 64, 48, NULL }, sustained },
        { "not-connected", { provs[p], 8, 480, NULL }, not_connected },
        { "credits-slow-reader", { provs[p], 8, 480, NULL }, credits_slow_reader },
        /* the initiator's progress thread fans out after the submit */
        { "credits-slow-reader-thread", { provs[p], 8, 480, "{\"progressThread\": true}" },
          credits_slow_reader },
        /* the target's progress thread consumes and releases */
        { "credits-target-thread", { provs[p], 8, 480, NULL }, credits_target_thread },
        { "credits-hostile", { provs[p], 8, 480, NULL }, credits_hostile },
        { "credits-not-announced", { provs[p], 2, 1024, NULL }, credits_not_announced },
      };
      for (guint k = 0; k < G_N_ELEMENTS (sp); k++) {
        char *path = g_strdup_printf ("/fabrics/samples/%s/%s", labels[p], sp[k].name);
        specials[p][k] = sp[k].c;
        g_test_add_data_func (path, &specials[p][k], sp[k].fn);
        g_free (path);
      }
    }
  }
  return g_test_run ();
}
