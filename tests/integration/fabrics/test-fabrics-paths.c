/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Two-path targets, seamless protection (src/fabrics/target_paths.c,
 * docs/fabrics-engine.md "Two paths"), in one process over loopback: every
 * grain on both paths, each path cut in turn (its target removed from the
 * initiator, then added again) while the other carries on: every index is
 * read exactly once with the checksum it was sent with, and the merge's
 * counters are exact (duplicates: the grains sent on both paths;
 * recovered: the grains only one path carried). A hostile second path
 * (out-of-range immediate data, a header of another slot, an index the
 * first path delivered, an index older than the slot's) changes nothing
 * the first path delivered. The first path's one-path TargetInfo alone
 * works as any target.
 */
#include "fabtest.h"

#include "fabrics/wire/immdata.h"

#define FLOW_ID "8c4ad0e2-3f7b-4c1e-9a55-2d7e61b0c9a4"
#define N_GRAINS 300u
#define WAIT_MS 5000

/* A two-path target and what sends to it: one initiator for both paths
 * (same provider) or one per path. */
typedef struct Paths {
  FabSide ts, is;
  mxlFabricsTarget t;
  mxlFabricsTargetInfo info, path[2];
  mxlFabricsInitiator init[2];   /* init[1] NULL when init[0] has both */
  gboolean connectionless[2];    /* the path's target has no connection state */
  guint seen[N_GRAINS];
} Paths;

/* The initiator that carries path @i. */
static mxlFabricsInitiator
sender_of (Paths *ps, guint i)
{
  return ps->init[1] != NULL ? ps->init[i] : ps->init[0];
}

static void
progress_all (Paths *ps)
{
  for (guint i = 0; i < 2; i++) {
    if (ps->init[i] != NULL) {
      mxlStatus st = mxlFabricsInitiatorMakeProgressNonBlocking (ps->init[i]);
      g_assert_true (st == MXL_STATUS_OK || st == MXL_ERR_NOT_READY
          || st == MXL_ERR_INTERRUPTED);
    }
  }
}

/* No initiator has a write in flight (nor a target still connecting): the
 * next grain finds no path behind, which the fan-out would skip
 * (docs/fabrics-engine.md). An initiator without targets is idle. */
static gboolean
initiators_idle (Paths *ps)
{
  for (guint i = 0; i < 2; i++) {
    mxlStatus st;
    if (ps->init[i] == NULL)
      continue;
    st = mxlFabricsInitiatorMakeProgressNonBlocking (ps->init[i]);
    if (st != MXL_STATUS_OK && st != MXL_ERR_INTERRUPTED)
      return FALSE;
  }
  return TRUE;
}

/* What a wait that ran out saw (the test's log). */
static void
print_stats (Paths *ps)
{
  for (guint i = 0; i < 2; i++) {
    mxlFabricsExtTargetPathStats s;
    g_assert_cmpint (mxlFabricsExtTargetGetPathStats (ps->t, i, &s), ==, MXL_STATUS_OK);
    g_test_message ("path %u: state %d, grains %" G_GUINT64_FORMAT ", duplicates %"
        G_GUINT64_FORMAT ", recovered %" G_GUINT64_FORMAT ", late %" G_GUINT64_FORMAT
        ", invalid %" G_GUINT64_FORMAT, i, s.state, s.grains, s.duplicates, s.recovered,
        s.late, s.invalid);
  }
  for (guint i = 0; i < 2; i++) {
    mxlFabricsExtInitiatorTargetStats ts;
    if (mxlFabricsExtInitiatorGetTargetStats (sender_of (ps, i), ps->path[i], &ts) != MXL_STATUS_OK)
      continue;
    g_test_message ("initiator, path %u: state %d, skipped %" G_GUINT64_FORMAT ", dropped %"
        G_GUINT64_FORMAT ", failed %" G_GUINT64_FORMAT ", fell behind %" G_GUINT64_FORMAT,
        i, ts.state, ts.grainsSkipped, ts.transfersDropped, ts.transfersFailed, ts.fellBehind);
  }
  {
    mxlFabricsExtTargetStats t;
    g_assert_cmpint (mxlFabricsExtTargetGetStats (ps->t, &t), ==, MXL_STATUS_OK);
    g_test_message ("target (first path): received %" G_GUINT64_FORMAT ", superseded %"
        G_GUINT64_FORMAT ", errors %" G_GUINT64_FORMAT, t.grainsReceived,
        t.completionsSuperseded, t.completionErrors);
  }
}

typedef gboolean (*Done) (Paths *ps, gconstpointer data);

/* The one bounded wait of these tests: until @done says so, driving every
 * initiator, at most WAIT_MS. */
static void
wait_for (Paths *ps, Done done, gconstpointer data)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_MS * 1000;

  for (guint n = 0; n < 100000; n++) {
    if (done (ps, data))
      return;
    if (g_get_monotonic_time () >= deadline)
      print_stats (ps);
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    progress_all (ps);
    g_usleep (200);
  }
  g_assert_not_reached ();
}

/* Path *@data connected at the initiator that carries it. */
static gboolean
path_connected (Paths *ps, gconstpointer data)
{
  guint i = *(const guint *) data;
  mxlFabricsExtConnectionState state = MXL_FABRICS_EXT_STATE_IDLE;

  g_assert_cmpint (mxlFabricsExtInitiatorGetTargetState (sender_of (ps, i), ps->path[i],
      &state), ==, MXL_STATUS_OK);
  return state == MXL_FABRICS_EXT_STATE_CONNECTED;
}

static void
wait_connected (Paths *ps, guint i)
{
  wait_for (ps, path_connected, &i);
}

static void
paths_stats (Paths *ps, mxlFabricsExtTargetPathStats out[2])
{
  for (guint i = 0; i < 2; i++)
    g_assert_cmpint (mxlFabricsExtTargetGetPathStats (ps->t, i, &out[i]), ==, MXL_STATUS_OK);
}

/* The duplicates of both paths add up to *@data (never more), and the
 * initiators are idle. */
static gboolean
duplicates_are (Paths *ps, gconstpointer data)
{
  mxlFabricsExtTargetPathStats s[2];

  if (!initiators_idle (ps))
    return FALSE;
  paths_stats (ps, s);
  g_assert_cmpuint (s[0].duplicates + s[1].duplicates, <=, *(const uint64_t *) data);
  return s[0].duplicates + s[1].duplicates == *(const uint64_t *) data;
}

static void
wait_duplicates (Paths *ps, uint64_t dups)
{
  wait_for (ps, duplicates_are, &dups);
}

static gboolean
paths_open (Paths *ps, const FabProv *a, const FabProv *b, gboolean one_initiator)
{
  char *def = fabtest_v210_def (FLOW_ID, "video/v210", 320, 180);
  char *name_a = NULL, *name_b = NULL;
  mxlFabricsTargetConfig cfg;
  mxlFabricsInterfaceConfig second;

  memset (ps, 0, sizeof *ps);
  ps->connectionless[0] = a->shm;
  ps->connectionless[1] = b->shm;
  if (!fabtest_require (a) || !fabtest_require (b)) {
    g_free (def);
    return FALSE;
  }
  fabtest_side_init (&ps->ts, def, FLOW_ID);
  fabtest_side_init (&ps->is, def, FLOW_ID);
  g_free (def);
  memset (&cfg, 0, sizeof cfg);
  cfg.interface = fabtest_iface (a, MXL_ROLE_TARGET, &name_a);
  cfg.writer = ps->ts.writer;
  second = fabtest_iface (b, MXL_ROLE_TARGET, &name_b);
  g_assert_cmpint (mxlFabricsCreateTarget (ps->ts.fab, &ps->t), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtTargetSetupTwoPaths (ps->t, &cfg, &second, NULL, &ps->info),
      ==, MXL_STATUS_OK);
  g_free (name_a);
  g_free (name_b);
  for (guint i = 0; i < 2; i++)
    g_assert_cmpint (mxlFabricsExtTargetInfoGetPath (ps->info, i, &ps->path[i]), ==,
        MXL_STATUS_OK);
  ps->init[0] = fabtest_initiator (&ps->is, a, NULL);
  if (one_initiator) {
    /* one initiator, both paths from the one TargetInfo */
    g_assert_cmpint (mxlFabricsInitiatorAddTarget (ps->init[0], ps->info), ==, MXL_STATUS_OK);
  } else {
    /* the second path's provider differs: the first initiator skips it,
     * an initiator of that provider takes it */
    g_assert_cmpint (mxlFabricsInitiatorAddTarget (ps->init[0], ps->info), ==, MXL_STATUS_OK);
    ps->init[1] = fabtest_initiator (&ps->is, b, NULL);
    g_assert_cmpint (mxlFabricsInitiatorAddTarget (ps->init[1], ps->path[1]), ==,
        MXL_STATUS_OK);
  }
  {
    mxlFabricsExtInitiatorStats st;
    g_assert_cmpint (mxlFabricsExtInitiatorGetStats (ps->init[0], &st), ==, MXL_STATUS_OK);
    g_assert_cmpuint (st.targets, ==, one_initiator ? 2 : 1);
  }
  wait_connected (ps, 0);
  wait_connected (ps, 1);
  return TRUE;
}

static void
paths_close (Paths *ps)
{
  for (guint i = 0; i < 2; i++)
    mxlFabricsFreeTargetInfo (ps->path[i]);
  mxlFabricsFreeTargetInfo (ps->info);
  fabtest_side_clear (&ps->is);
  fabtest_side_clear (&ps->ts);
}

/* Writes grain @index into the sender's flow, transfers it (every
 * initiator) and reads it at the target: the index is the one sent, read
 * once, with the sent checksum. Then waits until the duplicates add up to
 * @dups (the second copy, when both paths carry it). */
static void
send_one (Paths *ps, uint64_t index, uint64_t dups)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_MS * 1000;
  uint64_t got = UINT64_MAX;
  char *sent, *recv;

  fabtest_write_grain (&ps->is, index, (uint8_t) (index * 3), FALSE);
  for (guint i = 0; i < 2; i++) {
    mxlStatus st;
    if (ps->init[i] == NULL)
      continue;
    while ((st = mxlFabricsInitiatorTransferGrain (ps->init[i], index, 0, 180)) != MXL_STATUS_OK) {
      g_assert_cmpint (st, ==, MXL_ERR_NOT_READY);
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      progress_all (ps);
    }
  }
  for (guint n = 0; n < 100000; n++) {
    mxlStatus st = mxlFabricsTargetReadGrain (ps->t, 5, &got);
    if (st == MXL_STATUS_OK)
      break;
    g_assert_cmpint (st, ==, MXL_ERR_NOT_READY);
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    progress_all (ps);
  }
  g_assert_cmpuint (got, ==, index);
  ps->seen[index]++;
  sent = fabtest_grain_digest (&ps->is, index, NULL);
  recv = fabtest_grain_digest (&ps->ts, index, NULL);
  g_assert_cmpstr (sent, ==, recv);
  g_free (sent);
  g_free (recv);
  wait_duplicates (ps, dups);
}

/* The target's path *@data has no initiator connected. */
static gboolean
path_down (Paths *ps, gconstpointer data)
{
  mxlFabricsExtTargetPathStats s[2];

  paths_stats (ps, s);
  return s[*(const guint *) data].state != MXL_FABRICS_EXT_STATE_CONNECTED;
}

/* Waits for that on a connected path (a new connection is refused while
 * the old one is up); nothing for a connectionless one. */
static void
wait_path_down (Paths *ps, guint i)
{
  if (!ps->connectionless[i])
    wait_for (ps, path_down, &i);
}

/* Path @i cut: its target removed from the initiator that carries it. */
static void
cut (Paths *ps, guint i)
{
  g_assert_cmpint (mxlFabricsInitiatorRemoveTarget (sender_of (ps, i), ps->path[i]), ==,
      MXL_STATUS_OK);
  wait_path_down (ps, i);
}

static void
restore (Paths *ps, guint i)
{
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (sender_of (ps, i), ps->path[i]), ==,
      MXL_STATUS_OK);
  wait_connected (ps, i);
}

/* 300 grains: 0-99 on both paths, 100-149 on the second only (the first
 * cut), 150-199 on both (restored), 200-249 on the first only (the second
 * cut), 250-299 on both. */
static void
cuts (const FabProv *a, const FabProv *b, gboolean one_initiator)
{
  Paths ps;
  mxlFabricsExtTargetPathStats s[2];
  mxlFabricsExtTargetStats ts;
  uint64_t dups = 0, index;

  if (!paths_open (&ps, a, b, one_initiator))
    return;
  for (index = 0; index < N_GRAINS; index++) {
    if (index == 100)
      cut (&ps, 0);
    else if (index == 150)
      restore (&ps, 0);
    else if (index == 200)
      cut (&ps, 1);
    else if (index == 250)
      restore (&ps, 1);
    if (index < 100 || (index >= 150 && index < 200) || index >= 250)
      dups++;
    send_one (&ps, index, dups);
  }
  /* nothing more to read: each index came once */
  g_assert_cmpint (mxlFabricsTargetReadGrain (ps.t, 50, &index), ==, MXL_ERR_NOT_READY);
  for (guint i = 0; i < N_GRAINS; i++)
    g_assert_cmpuint (ps.seen[i], ==, 1);

  paths_stats (&ps, s);
  g_assert_cmpuint (s[0].grains + s[1].grains, ==, N_GRAINS);
  g_assert_cmpuint (s[0].duplicates + s[1].duplicates, ==, 200);
  g_assert_cmpuint (s[0].grains + s[0].duplicates, ==, 250);
  g_assert_cmpuint (s[1].grains + s[1].duplicates, ==, 250);
  g_assert_cmpuint (s[0].recovered, ==, 50);
  g_assert_cmpuint (s[1].recovered, ==, 50);
  g_assert_cmpuint (s[0].grains, >=, 50);
  g_assert_cmpuint (s[1].grains, >=, 50);
  g_assert_cmpuint (s[0].bytes + s[1].bytes, ==,
      (uint64_t) N_GRAINS * ps.t->base.layout.grain_size);
  for (guint i = 0; i < 2; i++) {
    g_assert_cmpuint (s[i].late, ==, 0);
    g_assert_cmpuint (s[i].invalid, ==, 0);
    g_assert_cmpint (s[i].state, ==, MXL_FABRICS_EXT_STATE_CONNECTED);
  }
  g_assert_cmpint (mxlFabricsExtTargetGetStats (ps.t, &ts), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ts.grainsReceived, ==, N_GRAINS);
  /* the initiator's view: each path a target of its own, told apart by its
   * one-path TargetInfo (the whole one names the first) */
  for (guint i = 0; i < 2; i++) {
    mxlFabricsExtInitiatorTargetStats its;
    g_assert_cmpint (mxlFabricsExtInitiatorGetTargetStats (sender_of (&ps, i), ps.path[i],
        &its), ==, MXL_STATUS_OK);
    g_assert_cmpint (its.state, ==, MXL_FABRICS_EXT_STATE_CONNECTED);
    g_assert_cmpuint (its.grainsSkipped, ==, 0);
    g_assert_cmpuint (its.transfersDropped, ==, 0);
    g_assert_cmpuint (its.transfersFailed, ==, 0);
  }
  g_assert_cmpuint (ps.info->id, ==, ps.path[0]->id);
  g_assert_cmpuint (ps.info->path_b->id, ==, ps.path[1]->id);
  g_test_message ("first path: %" G_GUINT64_FORMAT " first, %" G_GUINT64_FORMAT
      " duplicates; second path: %" G_GUINT64_FORMAT " first, %" G_GUINT64_FORMAT
      " duplicates", s[0].grains, s[0].duplicates, s[1].grains, s[1].duplicates);
  paths_close (&ps);
}

static void test_cuts_tcp_tcp (void) { cuts (&fab_tcp, &fab_tcp, TRUE); }
static void test_cuts_tcp_shm (void) { cuts (&fab_tcp, &fab_shm, FALSE); }

/* The second path's invalid, duplicates and late counters are *@data's. */
static gboolean
second_counts_are (Paths *ps, gconstpointer data)
{
  const mxlFabricsExtTargetPathStats *want = data;
  mxlFabricsExtTargetPathStats s[2];

  if (!initiators_idle (ps))
    return FALSE;
  paths_stats (ps, s);
  return s[1].invalid == want->invalid && s[1].duplicates == want->duplicates
      && s[1].late == want->late;
}

/* A hostile second path: nothing the first path delivered changes. */
static void
hostile_second (void)
{
  Paths ps;
  mxlFabricsExtTargetPathStats s[2], before, want;
  mxlFabricsInitiator init;
  uint64_t id_b, index;
  uint32_t n;
  char *digest[10];

  if (!paths_open (&ps, &fab_tcp, &fab_tcp, TRUE))
    return;
  init = ps.init[0];
  n = ps.t->base.grain_count;
  g_assert_cmpuint (n, >=, 4);
  g_assert_cmpuint (n, <, 10);
  for (index = 0; index < 10; index++)
    send_one (&ps, index, index + 1);
  for (index = 10 - n; index < 10; index++)
    digest[index] = fabtest_grain_digest (&ps.ts, index, NULL);
  paths_stats (&ps, s);
  before = s[1];
  id_b = ps.path[1]->id;

  /* 1. slot = N (out of range), 2. slice end above totalSlices */
  g_assert_cmpint (mxl_initiator_debug_post_raw (init, id_b, 9 % n, 0, 0, 8192,
      mxl_imm_grain_encode (n, 180)), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxl_initiator_debug_post_raw (init, id_b, 9 % n, 9 % n, 0, 8192,
      mxl_imm_grain_encode (9 % n, 181)), ==, MXL_STATUS_OK);
  /* 3. the header of grain 9 into another slot */
  g_assert_cmpint (mxl_initiator_debug_post_raw (init, id_b, 9 % n, (9 + 1) % n, 0, 8192,
      mxl_imm_grain_encode ((9 + 1) % n, 180)), ==, MXL_STATUS_OK);
  /* 4. grain 9 again, other bytes: an index the flow holds (a duplicate) */
  fabtest_write_grain (&ps.is, 9, 0xEE, FALSE);
  g_assert_cmpint (mxl_initiator_debug_post_raw (init, id_b, 9 % n, 9 % n, 0,
      ps.path[1]->regions[9 % n].len, mxl_imm_grain_encode (9 % n, 180)), ==, MXL_STATUS_OK);
  want = (mxlFabricsExtTargetPathStats) { .invalid = 3,
    .duplicates = before.duplicates + 1 };
  wait_for (&ps, second_counts_are, &want);
  /* 5. grain 9 - n (the same local and remote slot): older than the
   * slot's grain (late) */
  fabtest_write_grain (&ps.is, 9 - n, 0xDD, FALSE);
  g_assert_cmpint (mxl_initiator_debug_post_raw (init, id_b, (9 - n) % n, (9 - n) % n, 0,
      ps.path[1]->regions[(9 - n) % n].len, mxl_imm_grain_encode ((9 - n) % n, 180)), ==,
      MXL_STATUS_OK);

  want.late = 1;
  wait_for (&ps, second_counts_are, &want);
  paths_stats (&ps, s);
  g_assert_cmpuint (s[1].invalid, ==, 3);
  g_assert_cmpuint (s[1].duplicates, ==, before.duplicates + 1);
  g_assert_cmpuint (s[1].late, ==, 1);
  g_assert_cmpuint (s[1].grains, ==, before.grains);
  g_assert_cmpuint (s[0].invalid, ==, 0);
  /* nothing was read, the flow holds what the first paths delivered */
  g_assert_cmpint (mxlFabricsTargetReadGrain (ps.t, 50, &index), ==, MXL_ERR_NOT_READY);
  for (index = 10 - n; index < 10; index++) {
    char *now = fabtest_grain_digest (&ps.ts, index, NULL);
    g_assert_cmpstr (now, ==, digest[index]);
    g_free (now);
    g_free (digest[index]);
  }
  /* and both paths go on */
  send_one (&ps, 10, s[0].duplicates + s[1].duplicates + 1);
  paths_close (&ps);
}

/* The first path's one-path TargetInfo: no ext."pathB", an ordinary
 * target for an initiator; the second path carries nothing. */
static void
first_path_only (void)
{
  Paths ps;
  mxlFabricsExtTargetPathStats s[2];
  char *json = NULL;
  mxlFabricsInitiator init;

  if (!paths_open (&ps, &fab_tcp, &fab_tcp, TRUE))
    return;
  g_assert_null (ps.path[0]->path_b);
  g_assert_nonnull (ps.info->path_b);
  g_assert_cmpuint (ps.path[1]->id, ==, ps.info->path_b->id);
  g_assert_cmpstr (ps.path[1]->flow_def, ==, ps.info->flow_def);
  json = mxl_target_info_to_json (ps.path[0]);
  g_assert_null (strstr (json, "pathB"));
  g_free (json);
  /* the whole TargetInfo round-trips with its second path */
  json = mxl_target_info_to_json (ps.info);
  g_assert_nonnull (strstr (json, "\"pathB\":{"));
  {
    mxlStatus st;
    g_autoptr (GError) error = NULL;
    struct mxlFabricsTargetInfo_t *back = mxl_target_info_from_json (json, &st, &error);
    char *again;
    g_assert_no_error (error);
    g_assert_nonnull (back->path_b);
    g_assert_true (mxl_target_info_equal (back, ps.info));
    g_assert_true (mxl_target_info_equal (back->path_b, ps.info->path_b));
    again = mxl_target_info_to_json (back);
    g_assert_cmpstr (again, ==, json);
    g_free (again);
    mxl_target_info_free (back);
  }
  g_free (json);
  /* an initiator given the first path alone */
  g_assert_cmpint (mxlFabricsInitiatorRemoveTarget (ps.init[0], ps.info), ==, MXL_STATUS_OK);
  wait_path_down (&ps, 0);
  wait_path_down (&ps, 1);
  init = fabtest_initiator (&ps.is, &fab_tcp, NULL);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (init, ps.path[0]), ==, MXL_STATUS_OK);
  ps.init[0] = init;
  wait_connected (&ps, 0);
  for (uint64_t index = 0; index < 20; index++)
    send_one (&ps, index, 0);
  paths_stats (&ps, s);
  g_assert_cmpuint (s[0].grains, ==, 20);
  g_assert_cmpuint (s[1].grains, ==, 0);
  g_assert_cmpuint (s[0].duplicates + s[1].duplicates, ==, 0);
  g_assert_cmpuint (s[0].recovered, ==, 20);
  paths_close (&ps);
}

/* The calls' refusals: a one-path target has no path stats, a TargetInfo
 * of one path no second path, two paths take no credits. */
static void
api_refusals (void)
{
  char *def = fabtest_v210_def (FLOW_ID, "video/v210", 320, 180);
  char *name_a = NULL, *name_b = NULL;
  FabSide ts;
  mxlFabricsTarget t, one;
  mxlFabricsTargetInfo info = NULL, out = NULL;
  mxlFabricsTargetConfig cfg;
  mxlFabricsInterfaceConfig second;
  mxlFabricsExtTargetPathStats ps;

  if (!fabtest_require (&fab_tcp)) {
    g_free (def);
    return;
  }
  fabtest_side_init (&ts, def, FLOW_ID);
  memset (&cfg, 0, sizeof cfg);
  cfg.interface = fabtest_iface (&fab_tcp, MXL_ROLE_TARGET, &name_a);
  cfg.writer = ts.writer;
  second = fabtest_iface (&fab_tcp, MXL_ROLE_TARGET, &name_b);
  g_assert_cmpint (mxlFabricsCreateTarget (ts.fab, &t), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtTargetSetupTwoPaths (NULL, &cfg, &second, NULL, &info), ==,
      MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsExtTargetSetupTwoPaths (t, &cfg, NULL, NULL, &info), ==,
      MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsExtTargetGetPathStats (t, 0, &ps), ==, MXL_ERR_INVALID_STATE);
  g_test_expect_message ("mxlfabrics", G_LOG_LEVEL_WARNING, "*credits*");
  g_assert_cmpint (mxlFabricsExtTargetSetupTwoPaths (t, &cfg, &second, "{\"credits\": true}",
      &info), ==, MXL_ERR_INVALID_ARG);
  g_test_assert_expected_messages ();
  /* refused before anything was made: the same target sets up */
  g_assert_cmpint (mxlFabricsExtTargetSetupTwoPaths (t, &cfg, &second, NULL, &info), ==,
      MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsExtTargetSetupTwoPaths (t, &cfg, &second, NULL, &out), ==,
      MXL_ERR_INVALID_STATE);
  g_assert_cmpint (mxlFabricsExtTargetGetPathStats (t, 2, &ps), ==, MXL_ERR_NOT_FOUND);
  g_assert_cmpint (mxlFabricsExtTargetGetPathStats (t, 1, NULL), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsExtTargetGetPathStats (t, 1, &ps), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ps.grains, ==, 0);
  g_assert_cmpint (mxlFabricsExtTargetInfoGetPath (info, 2, &out), ==, MXL_ERR_NOT_FOUND);
  g_assert_cmpint (mxlFabricsExtTargetInfoGetPath (NULL, 0, &out), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFabricsExtTargetInfoGetPath (info, 0, &out), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsFreeTargetInfo (info), ==, MXL_STATUS_OK);
  /* a TargetInfo of one path, and a target of one path */
  g_assert_cmpint (mxlFabricsExtTargetInfoGetPath (out, 1, &info), ==, MXL_ERR_NOT_FOUND);
  g_assert_cmpint (mxlFabricsFreeTargetInfo (out), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsDestroyTarget (ts.fab, t), ==, MXL_STATUS_OK);
  one = fabtest_target (&ts, &fab_tcp, NULL, &info);
  g_assert_null (info->path_b);
  g_assert_cmpint (mxlFabricsExtTargetGetPathStats (one, 0, &ps), ==, MXL_ERR_NOT_FOUND);
  mxlFabricsFreeTargetInfo (info);
  g_free (name_a);
  g_free (name_b);
  fabtest_side_clear (&ts);
  g_free (def);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/paths/tcp-tcp/cuts", test_cuts_tcp_tcp);
  g_test_add_func ("/fabrics/paths/tcp-shm/cuts", test_cuts_tcp_shm);
  g_test_add_func ("/fabrics/paths/tcp-tcp/hostile-second", hostile_second);
  g_test_add_func ("/fabrics/paths/tcp-tcp/first-path-only", first_path_only);
  g_test_add_func ("/fabrics/paths/tcp-tcp/api-refusals", api_refusals);
  return g_test_run ();
}
