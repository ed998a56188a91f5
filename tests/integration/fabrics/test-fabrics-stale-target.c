/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stale TargetInfo (issue 15 item 2): a target restarted on the same tcp
 * address has a new id; an initiator given the old TargetInfo must not be
 * reported connected to it. Our connection request names the target it
 * means (docs/wire-format.md §6.2), the target refuses one naming another
 * (MXL_REJECT_OTHER_TARGET) and the initiator reports the attempt with
 * MXL_ERR_NOT_FOUND; the current TargetInfo still connects.
 */
#include <netinet/in.h>

#include "fabtest.h"

#define FLOW_ID "0c7a3f36-4ad1-4b57-9bd2-1f9e8e0c5a11"

/* The port of a tcp TargetInfo's address (a sockaddr_in on 127.0.0.1). */
static guint16
info_port (mxlFabricsTargetInfo info)
{
  struct sockaddr_in sin;

  g_assert_cmpuint (info->fabric_address_len, >=, sizeof sin);
  memcpy (&sin, info->fabric_address, sizeof sin);
  g_assert_cmpint (sin.sin_family, ==, AF_INET);
  return g_ntohs (sin.sin_port);
}

static mxlFabricsTarget
target_on (FabSide *s, const char *service, mxlFabricsTargetInfo *out_info)
{
  mxlFabricsTargetConfig cfg;
  mxlFabricsTarget t;

  memset (&cfg, 0, sizeof (cfg));
  cfg.interface.provider = MXL_FABRICS_PROVIDER_TCP;
  cfg.interface.caps.flags = FAB_CAPS;
  cfg.interface.address.node = "127.0.0.1";
  cfg.interface.address.service = service;
  cfg.writer = s->writer;
  g_assert_cmpint (mxlFabricsCreateTarget (s->fab, &t), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsTargetSetup (t, &cfg, NULL, out_info), ==, MXL_STATUS_OK);
  return t;
}

/* Drives both sides for up to @ms or until @want is seen for @info (an
 * event to that state, or IDLE after an attempt that failed with
 * @want_reason); returns whether it was. Never sees CONNECTED unless
 * @want is CONNECTED. */
static gboolean
drive_until (mxlFabricsInitiator init, mxlFabricsTarget target,
    mxlFabricsTargetInfo info, mxlFabricsExtConnectionState want,
    mxlStatus want_reason, int ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) ms * 1000;
  mxlFabricsExtConnectionEvent ev;
  uint64_t index;

  while (g_get_monotonic_time () < deadline) {
    g_assert_cmpint (mxlFabricsTargetReadGrainNonBlocking (target, &index), ==,
        MXL_ERR_NOT_READY);
    mxlFabricsInitiatorMakeProgressNonBlocking (init);
    while (mxlFabricsExtInitiatorPollEvent (init, &ev) == MXL_STATUS_OK) {
      if (ev.targetId != info->id)
        continue;
      if (want != MXL_FABRICS_EXT_STATE_CONNECTED)
        g_assert_cmpint (ev.current, !=, MXL_FABRICS_EXT_STATE_CONNECTED);
      if (ev.current == want && (want_reason == MXL_STATUS_OK || ev.reason == want_reason))
        return TRUE;
    }
    g_usleep (1000);
  }
  return FALSE;
}

static void
test_stale_tcp (void)
{
  char *def = fabtest_v210_def (FLOW_ID, "video/v210", 320, 180);
  FabSide old_side, new_side, is;
  mxlFabricsTarget old_t, new_t;
  mxlFabricsTargetInfo old_info = NULL, new_info = NULL;
  mxlFabricsExtTargetStats ts = { .version = MXL_FABRICS_API_VERSION };
  mxlFabricsInitiator init;
  mxlFabricsExtConnectionState state;
  char *service;

  if (!fabtest_require (&fab_tcp)) {
    g_free (def);
    return;
  }
  fabtest_side_init (&old_side, def, FLOW_ID);
  old_t = target_on (&old_side, NULL, &old_info);
  service = g_strdup_printf ("%u", info_port (old_info));
  /* the receiver restarts on the same address: a new target, a new id */
  mxlFabricsDestroyTarget (old_side.fab, old_t);
  fabtest_side_clear (&old_side);
  fabtest_side_init (&new_side, def, FLOW_ID);
  new_t = target_on (&new_side, service, &new_info);
  g_assert_cmpuint (info_port (new_info), ==, info_port (old_info));
  g_assert_cmpuint (new_info->id, !=, old_info->id);

  fabtest_side_init (&is, def, FLOW_ID);
  init = fabtest_initiator (&is, &fab_tcp, NULL);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (init, old_info), ==, MXL_STATUS_OK);
  /* the attempt is refused as meant for another target, never connected */
  g_assert_true (drive_until (init, new_t, old_info, MXL_FABRICS_EXT_STATE_IDLE,
          MXL_ERR_NOT_FOUND, 5000));
  g_assert_cmpint (mxlFabricsExtInitiatorGetTargetState (init, old_info, &state), ==,
      MXL_STATUS_OK);
  g_assert_cmpint (state, !=, MXL_FABRICS_EXT_STATE_CONNECTED);
  g_assert_cmpint (mxlFabricsExtTargetGetStats (new_t, &ts), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ts.connectionsAccepted, ==, 0);
  g_assert_cmpuint (ts.connectionsRejected, >=, 1);
  g_assert_cmpint (ts.state, ==, MXL_FABRICS_EXT_STATE_LISTENING);

  /* the current TargetInfo connects to the same target */
  g_assert_cmpint (mxlFabricsInitiatorRemoveTarget (init, old_info), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsInitiatorAddTarget (init, new_info), ==, MXL_STATUS_OK);
  g_assert_true (drive_until (init, new_t, new_info, MXL_FABRICS_EXT_STATE_CONNECTED,
          MXL_STATUS_OK, 5000));
  g_assert_cmpint (mxlFabricsExtTargetGetStats (new_t, &ts), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ts.connectionsAccepted, ==, 1);

  mxlFabricsDestroyInitiator (is.fab, init);
  mxlFabricsDestroyTarget (new_side.fab, new_t);
  mxlFabricsFreeTargetInfo (old_info);
  mxlFabricsFreeTargetInfo (new_info);
  fabtest_side_clear (&is);
  fabtest_side_clear (&new_side);
  g_free (service);
  g_free (def);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/stale-target/tcp", test_stale_tcp);
  return g_test_run ();
}
