/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A test initiator built from our engine with its debug hook
 * (mxl_initiator_debug_post_raw()), started by test-hostile-src against a
 * running mxlfabricssrc. Not installed.
 *
 * Usage: hostile-initiator TARGETINFO_FILE PROVIDER MODE..., PROVIDER tcp or
 * shm (with shm the initiator writes straight into the target's memory, so
 * it can outrun a slow target; over tcp the target's reads pace the link).
 *
 *   hostile-initiator TARGETINFO_FILE PROVIDER hostile
 *       four writes the target must reject (as in test-fabrics-grains
 *       "hostile"): immediate data naming slot N (out of range), a slice
 *       end of totalSlices + 1, a header whose index is not the slot's, and
 *       all 32 bits set (slot and slices 0xFFFF). Expected at the target:
 *       badImmediateData 3, badGrainHeaders 1, nothing delivered.
 *   hostile-initiator TARGETINFO_FILE PROVIDER good COUNT
 *       COUNT whole grains from the current grain index on, one per grain
 *       period (20 ms), grain i filled by hgst_fill (i).
 *   hostile-initiator TARGETINFO_FILE PROVIDER flood COUNT GOOD
 *       COUNT grains back to back (indices from the current one on, as fast
 *       as the link takes them), then GOOD grains paced as in "good" from
 *       the index after the flood. Prints "flood FIRST LAST" too.
 *
 *   hostile-initiator TARGETINFO_FILE PROVIDER audio-hostile
 *       five bounce entries the target must reject (as in
 *       test-fabrics-samples "hostile"): entry index out of range, count 0,
 *       count above the entry's capacity, head < count, all bits set.
 *       Expected: badImmediateData 2, badBounceEntries 3.
 *   hostile-initiator TARGETINFO_FILE PROVIDER audio-good COUNT
 *       COUNT batches of one entry's capacity from the current sample
 *       index on, paced at the sample rate; sample k of channel c is
 *       hfill_sample (c, k). Prints "good FIRST HEAD" (samples FIRST ..
 *       HEAD - 1).
 *
 * The video flow is v210 320x180 at 50/1, the audio flow 2 channels of
 * float32 at 48 kHz, as the test's src caps. Prints the first and last
 * good index ("good FIRST LAST"). Exits 0 when every write
 * was posted; every loop is bounded (5 s per wait).
 */
#include "fabtest.h"

#include "fabrics/wire/immdata.h"

#include "hfill.h"

#define FLOW_ID "2c3f3a43-3c1b-4a55-9e39-0d5d0f4ad1a1"
#define AUDIO_CHANNELS 2
#define SLICES 180
#define WAIT_US (5 * G_USEC_PER_SEC)

static const mxlRational rate = { 50, 1 };
static const mxlRational sample_rate = { 48000, 1 };

/* Progress until nothing is in flight (OK) or the deadline. */
static gboolean
drain (mxlFabricsInitiator init)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_US;
  mxlStatus st;

  while ((st = mxlFabricsInitiatorMakeProgressNonBlocking (init)) == MXL_ERR_NOT_READY) {
    if (g_get_monotonic_time () > deadline)
      return FALSE;
    g_usleep (200);
  }
  return st == MXL_STATUS_OK;
}

static void
write_grain (FabSide *s, uint64_t index)
{
  mxlGrainInfo gi;
  uint8_t *payload = NULL;

  g_assert_cmpint (mxlFlowWriterOpenGrain (s->writer, index, &gi, &payload), ==, MXL_STATUS_OK);
  hgst_fill (payload, gi.grainSize, (guint) index);
  gi.validSlices = gi.totalSlices;
  gi.flags = 0;
  g_assert_cmpint (mxlFlowWriterCommitGrain (s->writer, &gi), ==, MXL_STATUS_OK);
}

static void
transfer (mxlFabricsInitiator init, uint64_t index)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_US;
  mxlStatus st;

  while ((st = mxlFabricsInitiatorTransferGrain (init, index, 0, SLICES)) == MXL_ERR_NOT_READY) {
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    mxlFabricsInitiatorMakeProgressNonBlocking (init);
    g_usleep (100);
  }
  g_assert_cmpint (st, ==, MXL_STATUS_OK);
}

static void
post_raw (mxlFabricsInitiator init, uint64_t target_id, uint32_t local_slot,
    uint32_t remote_slot, uint64_t length, uint32_t imm)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_US;
  mxlStatus st;

  while ((st = mxl_initiator_debug_post_raw (init, target_id, local_slot, remote_slot, 0,
              length, imm)) == MXL_ERR_NOT_READY) {
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    mxlFabricsInitiatorMakeProgressNonBlocking (init);
  }
  g_assert_cmpint (st, ==, MXL_STATUS_OK);
}

static void
hostile (mxlFabricsInitiator init, FabSide *s, mxlFabricsTargetInfo info)
{
  uint32_t n = info->n_regions;
  uint64_t i = mxlGetCurrentIndex (&rate);
  uint32_t mine = (uint32_t) (i % init->base.grain_count);

  write_grain (s, i);
  /* 1. slot N: out of range */
  post_raw (init, info->id, mine, (uint32_t) (i % n), 8192, mxl_imm_grain_encode (n, SLICES));
  /* 2. slice end above totalSlices */
  post_raw (init, info->id, mine, (uint32_t) (i % n), 8192,
      mxl_imm_grain_encode ((uint32_t) (i % n), SLICES + 1));
  /* 3. grain i's header written into the next slot: index does not match */
  post_raw (init, info->id, mine, (uint32_t) ((i + 1) % n), 8192,
      mxl_imm_grain_encode ((uint32_t) ((i + 1) % n), SLICES));
  /* 4. every bit set */
  post_raw (init, info->id, mine, (uint32_t) (i % n), 64, 0xFFFFFFFFu);
  g_assert_true (drain (init));
}

/* @count grains, one per 20 ms, from index @first (or the current index
 * when later). */
static void
good (mxlFabricsInitiator init, FabSide *s, uint64_t first, guint count)
{
  uint64_t index = MAX (first, mxlGetCurrentIndex (&rate));
  uint64_t start = index;

  for (guint k = 0; k < count; k++, index++) {
    g_usleep (20 * 1000);
    write_grain (s, index);
    transfer (init, index);
    mxlFabricsInitiatorMakeProgressNonBlocking (init);
  }
  g_assert_true (drain (init));
  g_print ("good %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", start, index - 1);
}

/* Samples per channel one bounce entry of the target holds. */
static uint64_t
entry_capacity (mxlFabricsTargetInfo info)
{
  return (info->bounce_entry_size - 16) / (AUDIO_CHANNELS * 4);
}

/* Writes samples [head - count, head) of every channel of the local flow. */
static void
write_batch (FabSide *s, uint64_t head, uint64_t count)
{
  fabtest_write_samples (s, head, count, hfill_sample);
}

static void
samples_raw (mxlFabricsInitiator init, mxlFabricsTargetInfo info, uint64_t head,
    uint64_t count, uint32_t entry, uint32_t imm, uint64_t header_head, uint64_t header_count)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_US;
  mxlStatus st;

  while ((st = mxl_initiator_debug_samples_raw (init, info->id, head, count, entry, imm,
              header_head, header_count)) == MXL_ERR_NOT_READY) {
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    mxlFabricsInitiatorMakeProgressNonBlocking (init);
  }
  g_assert_cmpint (st, ==, MXL_STATUS_OK);
}

static void
audio_hostile (mxlFabricsInitiator init, FabSide *s, mxlFabricsTargetInfo info)
{
  uint64_t cap = entry_capacity (info);
  uint64_t head = mxlGetCurrentIndex (&sample_rate);
  uint32_t entries = (uint32_t) info->bounce_entry_count;

  write_batch (s, head, cap);
  /* 1. entry index out of range */
  samples_raw (init, info, head, cap, 0, entries, head, cap);
  /* 2. count 0 */
  samples_raw (init, info, head, cap, 1, 1, head, 0);
  /* 3. count above the entry's capacity */
  samples_raw (init, info, head, cap, 2, 2, head, cap + 1);
  /* 4. head before its own count */
  samples_raw (init, info, head, cap, 3, 3, cap - 1, cap);
  /* 5. all bits set */
  samples_raw (init, info, head, cap, 4, 0xFFFFFFFFu, G_MAXUINT64, G_MAXUINT64);
  g_assert_true (drain (init));
}

static void
audio_good (mxlFabricsInitiator init, FabSide *s, mxlFabricsTargetInfo info, guint count)
{
  uint64_t cap = entry_capacity (info);
  uint64_t head = mxlGetCurrentIndex (&sample_rate);
  uint64_t first = head;
  gint64 deadline;
  mxlStatus st;

  for (guint k = 0; k < count; k++) {
    head += cap;
    mxlSleepUntil (mxlIndexToTimestamp (&sample_rate, head));
    write_batch (s, head, cap);
    deadline = g_get_monotonic_time () + WAIT_US;
    while ((st = mxlFabricsInitiatorTransferSamples (init, head, cap)) == MXL_ERR_NOT_READY) {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      mxlFabricsInitiatorMakeProgressNonBlocking (init);
    }
    g_assert_cmpint (st, ==, MXL_STATUS_OK);
    mxlFabricsInitiatorMakeProgressNonBlocking (init);
  }
  g_assert_true (drain (init));
  g_print ("good %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n", first, head);
}

int
main (int argc, char **argv)
{
  char *def;
  char *json = NULL;
  FabSide s;
  mxlFabricsInitiator init;
  mxlFabricsTargetInfo info = NULL;
  const FabProv *prov;
  gint64 deadline;
  mxlStatus st;

  if (argc < 4 || !(g_str_equal (argv[2], "tcp") || g_str_equal (argv[2], "shm"))) {
    g_printerr ("usage: %s TARGETINFO_FILE tcp|shm hostile|good COUNT|flood COUNT GOOD"
        "|audio-hostile|audio-good COUNT\n", argv[0]);
    return 2;
  }
  prov = g_str_equal (argv[2], "shm") ? &fab_shm : &fab_tcp;
  /* drop PROVIDER: argv[1] the TargetInfo file, argv[2] the mode */
  argv[2] = argv[1];
  argv++;
  argc--;
  def = g_str_has_prefix (argv[2], "audio-")
      ? flowtest_audio_def_full (FLOW_ID, 48000, AUDIO_CHANNELS)
      : flowtest_video_def (FLOW_ID, "video/v210", 320, 180, 50, 1, "progressive");
  g_assert_true (g_file_get_contents (argv[1], &json, NULL, NULL));
  g_assert_cmpint (mxlFabricsTargetInfoFromString (json, &info), ==, MXL_STATUS_OK);
  fabtest_side_init (&s, def, FLOW_ID);
  init = fabtest_initiator (&s, prov, NULL);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (init, info), ==, MXL_STATUS_OK);
  deadline = g_get_monotonic_time () + WAIT_US;
  while ((st = mxlFabricsInitiatorMakeProgressNonBlocking (init)) != MXL_STATUS_OK) {
    g_assert_cmpint (st, ==, MXL_ERR_NOT_READY);
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    g_usleep (500);
  }

  if (g_str_equal (argv[2], "hostile")) {
    hostile (init, &s, info);
  } else if (g_str_equal (argv[2], "audio-hostile")) {
    audio_hostile (init, &s, info);
  } else if (g_str_equal (argv[2], "audio-good") && argc == 4) {
    audio_good (init, &s, info, (guint) g_ascii_strtoull (argv[3], NULL, 10));
  } else if (g_str_equal (argv[2], "good") && argc == 4) {
    good (init, &s, 0, (guint) g_ascii_strtoull (argv[3], NULL, 10));
  } else if (g_str_equal (argv[2], "flood") && argc == 5) {
    guint count = (guint) g_ascii_strtoull (argv[3], NULL, 10);
    uint64_t index = mxlGetCurrentIndex (&rate);
    gint64 t0 = g_get_monotonic_time ();

    for (guint k = 0; k < count; k++, index++) {
      /* never rewrite a local slot still being sent (that would tear the
       * grain on the wire, which is not what this case is about) */
      deadline = g_get_monotonic_time () + WAIT_US;
      while (mxl_initiator_slot_in_use (init, (uint32_t) (index % init->base.grain_count))) {
        g_assert_cmpint (g_get_monotonic_time (), <, deadline);
        mxlFabricsInitiatorMakeProgressNonBlocking (init);
        g_usleep (100);
      }
      write_grain (&s, index);
      transfer (init, index);
    }
    g_assert_true (drain (init));
    g_print ("flood %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " in %" G_GINT64_FORMAT " ms\n",
        index - count, index - 1, (g_get_monotonic_time () - t0) / 1000);
    good (init, &s, index, (guint) g_ascii_strtoull (argv[4], NULL, 10));
  } else {
    g_printerr ("unknown mode %s\n", argv[2]);
    return 2;
  }
  /* let the last completions reach the target before the disconnect */
  g_usleep (300 * 1000);
  g_assert_cmpint (mxlFabricsInitiatorRemoveTarget (init, info), ==, MXL_STATUS_OK);
  mxlFabricsFreeTargetInfo (info);
  fabtest_side_clear (&s);
  g_free (json);
  g_free (def);
  return 0;
}
