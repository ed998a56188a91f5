/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A shm target and initiator in ONE process (separate MXL domains), each
 * destroyed while the other still holds work for it: libfabric 1.17 shm
 * reaches an endpoint of the same process through that endpoint's own
 * mapping of its region, which its fi_close() unmaps
 * (docs/libfabric-notes.md P17).
 *
 *  /fabrics/local-peer/shm/target-first     the target goes with a write
 *      response still unread by the initiator; the initiator then reaps
 *      it, sees the target lost, refuses and counts the next transfers,
 *      and reaches a new target of the same process: grains by MD5.
 *  /fabrics/local-peer/shm/initiator-first  the initiator goes with
 *      writes the target has not processed yet; the target then processes
 *      them and keeps working for a new initiator: grains checked by MD5.
 *
 * No progress threads: each side moves only when the test drives it, so
 * the order of events is the test's.
 */
#include "fabtest.h"

#define FLOW_ID "5fbec3b1-1b0f-417d-9059-8b94a47197ed"

static char *
flow_def (void)
{
  return fabtest_v210_def (FLOW_ID, "video/v210", 320, 180);
}

/* Posts grain @index whole, retrying NOT_READY for at most 5 s. */
static void
post_grain (mxlFabricsInitiator init, uint64_t index)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  mxlStatus st;

  while ((st = mxlFabricsInitiatorTransferGrain (init, index, 0,
              init->base.layout.total_slices)) != MXL_STATUS_OK) {
    g_assert_cmpint (st, ==, MXL_ERR_NOT_READY);
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    mxlFabricsInitiatorMakeProgressNonBlocking (init);
  }
}

/* Grain @index reads the same on the target side as on the initiator's. */
static void
assert_same_grain (FabSide *ts, FabSide *is, uint64_t index)
{
  char *want = fabtest_grain_digest (is, index, NULL);
  char *have = fabtest_grain_digest (ts, index, NULL);

  g_assert_cmpstr (have, ==, want);
  g_free (want);
  g_free (have);
}

/* Reads the target, without driving the initiator, until grain @index
 * arrives (5 s at most); its payload equals the initiator side's. */
static void
read_only_target (mxlFabricsTarget t, FabSide *ts, FabSide *is, uint64_t index)
{
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  uint64_t got = UINT64_MAX;
  mxlStatus st;

  while ((st = mxlFabricsTargetReadGrainNonBlocking (t, &got)) == MXL_ERR_NOT_READY) {
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    g_usleep (200);
  }
  g_assert_cmpint (st, ==, MXL_STATUS_OK);
  g_assert_cmpuint (got, ==, index);
  assert_same_grain (ts, is, index);
}

static void
send_checked (mxlFabricsInitiator init, mxlFabricsTarget t, FabSide *ts,
    FabSide *is, uint64_t index, uint8_t seed)
{
  uint64_t got = UINT64_MAX;

  fabtest_write_grain (is, index, seed, FALSE);
  post_grain (init, index);
  g_assert_cmpint (fabtest_read_one (t, init, FALSE, &got, 5000), ==, MXL_STATUS_OK);
  g_assert_cmpuint (got, ==, index);
  assert_same_grain (ts, is, index);
}

static void
test_target_first (void)
{
  g_autofree char *def = flow_def ();
  FabSide is, ts1, ts2;
  mxlFabricsInitiator init;
  mxlFabricsTarget t1, t2;
  mxlFabricsTargetInfo i1, i2;
  mxlFabricsExtInitiatorStats st = { .version = MXL_FABRICS_API_VERSION };
  mxlFabricsExtConnectionState state = MXL_FABRICS_EXT_STATE_CONNECTED;
  gint64 deadline;
  mxlStatus ps;

  if (!fabtest_require (&fab_shm))
    return;
  fabtest_side_init (&is, def, FLOW_ID);
  fabtest_side_init (&ts1, def, FLOW_ID);
  t1 = fabtest_target (&ts1, &fab_shm, NULL, &i1);
  g_assert_cmpuint (i1->owner_pid, ==, (uint32_t) getpid ());
  init = fabtest_initiator (&is, &fab_shm, NULL);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (init, i1), ==, MXL_STATUS_OK);
  fabtest_connect (init, &t1, 1, FALSE, 5000);
  for (uint64_t i = 0; i < 4; i++)
    send_checked (init, t1, &ts1, &is, i, 0x11);

  /* Grain 4: the target processes the write and answers it, the
   * initiator has not read that answer when the target goes. */
  fabtest_write_grain (&is, 4, 0x11, FALSE);
  post_grain (init, 4);
  read_only_target (t1, &ts1, &is, 4);
  g_assert_cmpint (mxlFabricsDestroyTarget (ts1.fab, t1), ==, MXL_STATUS_OK);
  fabtest_side_clear (&ts1);

  /* The initiator reaps that answer, notices the target went (it
   * withdrew its address) and refuses what it is given next: counted as
   * not connected, never a crash. */
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while ((ps = mxlFabricsInitiatorMakeProgressNonBlocking (init)) != MXL_ERR_INTERRUPTED) {
    g_assert_true (ps == MXL_STATUS_OK || ps == MXL_ERR_NOT_READY);
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    g_usleep (1000);
  }
  g_assert_cmpint (mxlFabricsExtInitiatorGetTargetState (init, i1, &state), ==, MXL_STATUS_OK);
  g_assert_cmpint (state, ==, MXL_FABRICS_EXT_STATE_LOST);
  for (uint64_t i = 5; i < 25; i++) {
    fabtest_write_grain (&is, i, 0x22, FALSE);
    g_assert_cmpint (mxlFabricsInitiatorTransferGrain (init, i, 0,
            init->base.layout.total_slices), ==, MXL_ERR_NOT_READY);
    g_assert_cmpint (mxlFabricsInitiatorMakeProgressNonBlocking (init), ==,
        MXL_ERR_INTERRUPTED);
  }
  g_assert_cmpint (mxlFabricsExtInitiatorGetStats (init, &st), ==, MXL_STATUS_OK);
  g_assert_cmpuint (st.transfersCompleted, ==, 5);
  g_assert_cmpuint (st.transfersNotConnected, ==, 20);

  /* a new target of this process is reached and gets intact grains */
  fabtest_side_init (&ts2, def, FLOW_ID);
  t2 = fabtest_target (&ts2, &fab_shm, NULL, &i2);
  g_assert_cmpint (mxlFabricsInitiatorRemoveTarget (init, i1), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (init, i2), ==, MXL_STATUS_OK);
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (mxlFabricsInitiatorMakeProgressNonBlocking (init) != MXL_STATUS_OK) {
    uint64_t none;

    g_assert_cmpint (mxlFabricsTargetReadGrainNonBlocking (t2, &none), ==, MXL_ERR_NOT_READY);
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    g_usleep (1000);
  }
  for (uint64_t i = 100; i < 104; i++)
    send_checked (init, t2, &ts2, &is, i, 0x33);

  g_assert_cmpint (mxlFabricsDestroyInitiator (is.fab, init), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsDestroyTarget (ts2.fab, t2), ==, MXL_STATUS_OK);
  mxlFabricsFreeTargetInfo (i1);
  mxlFabricsFreeTargetInfo (i2);
  fabtest_side_clear (&ts2);
  fabtest_side_clear (&is);
}

static void
test_initiator_first (void)
{
  g_autofree char *def = flow_def ();
  FabSide is1, is2, ts;
  mxlFabricsInitiator i1, i2;
  mxlFabricsTarget t;
  mxlFabricsTargetInfo info;
  uint64_t got;
  gint64 deadline;
  guint late = 0;

  if (!fabtest_require (&fab_shm))
    return;
  fabtest_side_init (&ts, def, FLOW_ID);
  t = fabtest_target (&ts, &fab_shm, NULL, &info);
  fabtest_side_init (&is1, def, FLOW_ID);
  i1 = fabtest_initiator (&is1, &fab_shm, NULL);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (i1, info), ==, MXL_STATUS_OK);
  fabtest_connect (i1, &t, 1, FALSE, 5000);
  for (uint64_t i = 0; i < 3; i++)
    send_checked (i1, t, &ts, &is1, i, 0x44);

  /* Grains 3..5 posted, the target has not processed them when the
   * initiator goes. */
  for (uint64_t i = 3; i < 6; i++) {
    fabtest_write_grain (&is1, i, 0x44, FALSE);
    post_grain (i1, i);
  }
  g_assert_cmpint (mxlFabricsDestroyInitiator (is1.fab, i1), ==, MXL_STATUS_OK);

  /* The target processes what is queued: each grain arrives intact (the
   * initiator's flow still holds them), in order, and none crashes it. */
  deadline = g_get_monotonic_time () + 300 * 1000;
  while (g_get_monotonic_time () < deadline) {
    mxlStatus s = mxlFabricsTargetReadGrainNonBlocking (t, &got);

    if (s == MXL_ERR_NOT_READY) {
      g_usleep (1000);
      continue;
    }
    g_assert_cmpint (s, ==, MXL_STATUS_OK);
    g_assert_cmpuint (got, ==, 3 + late);
    assert_same_grain (&ts, &is1, got);
    late++;
  }
  /* the initiator's endpoint stayed open for them: all three arrive */
  g_assert_cmpuint (late, ==, 3);
  fabtest_side_clear (&is1);

  /* a new initiator of this process reaches the same target */
  fabtest_side_init (&is2, def, FLOW_ID);
  i2 = fabtest_initiator (&is2, &fab_shm, NULL);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (i2, info), ==, MXL_STATUS_OK);
  fabtest_connect (i2, &t, 1, FALSE, 5000);
  for (uint64_t i = 50; i < 54; i++)
    send_checked (i2, t, &ts, &is2, i, 0x55);

  g_assert_cmpint (mxlFabricsDestroyInitiator (is2.fab, i2), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsDestroyTarget (ts.fab, t), ==, MXL_STATUS_OK);
  mxlFabricsFreeTargetInfo (info);
  fabtest_side_clear (&is2);
  fabtest_side_clear (&ts);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/local-peer/shm/target-first", test_target_first);
  g_test_add_func ("/fabrics/local-peer/shm/initiator-first", test_initiator_first);
  return g_test_run ();
}
