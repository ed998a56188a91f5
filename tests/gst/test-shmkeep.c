/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A shm sender's endpoint file outlives the sender while a stopped
 * receiver may still take up its connection request (issue 20 item 1;
 * docs/libfabric-notes.md P16): receiver R (a child) is stopped
 * (SIGSTOP); sender A (a child) connects to it, so that its endpoint's
 * connection request waits in R's region, and ends (in order after
 * 1.5 s, or SIGKILL); sender B (this process) starts, and its setup sweeps
 * /dev/shm for stale regions (shmstale.h); then R continues (SIGCONT). A's
 * file must still be there after B's sweep, R must not crash when it
 * takes up A's request (libfabric 1.17 crashed in fi_cq_read() on a
 * missing file), and B's frames must arrive (20 transfers completed).
 * Receivers exclusive (A's claim is what waits) and not ("exclusive":
 * false: A's first write waits).
 *
 * The test runs in a /dev/shm of its own (private_dev_shm()). Children
 * are this binary re-executed with --child-src, a pipeline
 * description and a duration (ms), run until SIGINT or for that long
 * (bounded: 30 s), stopped and reaped by PID; every wait is bounded. (A
 * ended by SIGINT would test libfabric's own SIGINT handler instead,
 * which removes the process's regions itself: docs/libfabric-notes.md
 * P16.)
 */
#include <sched.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>

#include <glib/gstdio.h>

#include "../hardening/hgst.h"

#define CAPS "video/x-raw,format=v210,width=384,height=32,framerate=50/1"

static volatile sig_atomic_t child_stop;

static void
on_sigint (int sig)
{
  child_stop = 1;
}

/* Runs @desc until SIGINT or for @ms (at most 30 s), then stops it in
 * order. */
static int
child_run (const gchar * desc, guint ms)
{
  GstElement *p = hgst_parse (desc);

  prctl (PR_SET_PDEATHSIG, SIGKILL);    /* gone with a failed test */
  signal (SIGINT, on_sigint);
  if (gst_element_set_state (p, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE)
    return 3;
  for (guint i = 0; i < MIN (ms, 30000) / 10 && !child_stop; i++)
    g_usleep (10 * 1000);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  return 0;
}

static gchar *
sender_desc (const gchar * file)
{
  return g_strdup_printf ("videotestsrc is-live=true ! " CAPS " ! "
      "mxlfabricssink name=sink provider=shm target-info=@%s", file);
}

/* The /dev/shm files of process @pid's regions (markers not counted): the
 * elements' node is MXL_FABRICS_EXT_SHM_NODE_PREFIX "<pid>-<n>"
 * (src/include/mxl/fabrics-ext.h). */
static guint
regions_of (GPid pid)
{
  gchar *prefix = g_strdup_printf ("mxlfabrics-%d-", (int) pid);
  GDir *d = g_dir_open ("/dev/shm", 0, NULL);
  const gchar *name;
  guint n = 0;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
      n += g_str_has_prefix (name, prefix) && strstr (name, ".mxlpeer-") == NULL;
  if (d != NULL)
    g_dir_close (d);
  g_free (prefix);
  return n;
}

/* The sink's `stats` field @field, or G_MAXUINT64 while it has none (no
 * initiator yet). */
static guint64
sink_stat (GstElement * p, const gchar * field)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (p), "sink");
  GstStructure *st = NULL;
  guint64 v = G_MAXUINT64;

  g_object_get (e, "stats", &st, NULL);
  if (!gst_structure_get_uint64 (st, field, &v))
    v = G_MAXUINT64;
  gst_structure_free (st);
  gst_object_unref (e);
  return v;
}

typedef struct
{
  gboolean shared;              /* the receiver allows several senders */
  gboolean kill9;               /* A is killed (SIGKILL), not ended in order */
} Case;

static void
test_sender_gone (gconstpointer data)
{
  const Case *c = data;
  gchar *dir = g_dir_make_tmp ("mxlfab-shmkeep-XXXXXX", NULL);
  gchar *file = g_build_filename (dir, "target.json", NULL);
  gchar *rx = g_strdup_printf ("mxlfabricssrc provider=shm caps=\"" CAPS
      "\" %s target-info-file=%s ! fakesink", c->shared ?
      "options=\"{\\\"exclusive\\\":false}\"" : "", file);
  gchar *tx = sender_desc (file);
  GPid r, a;
  GstElement *b;
  gint status = 0;
  guint64 done = 0;

  r = hgst_spawn_child (rx, "30000", NULL);
  g_assert_true (hgst_wait_file (file));
  g_usleep (200 * 1000);
  g_assert_cmpint (kill (r, SIGSTOP), ==, 0);
  /* A asks at once (its claim or first write waits); after 1.5 s it ends
   * in order, or is killed then */
  a = hgst_spawn_child (tx, c->kill9 ? "30000" : "1500", NULL);
  if (c->kill9) {
    /* killed once it asked: its region exists (at most 10 s; its start
     * alone can take longer than 1.5 s on a loaded machine, and A killed
     * before it made its region left nothing for B's sweep to keep) */
    for (guint i = 0; i < 500 && regions_of (a) == 0; i++)
      g_usleep (20 * 1000);
    g_assert_cmpuint (regions_of (a), >=, 1);
    g_usleep (1500 * 1000);
    g_assert_cmpint (kill (a, SIGKILL), ==, 0);
    hgst_reap (a, 5000, &status);
  } else {
    hgst_assert_child_ok (a, 10000);
  }
  b = hgst_parse (tx);
  hgst_play (b);
  /* B's initiator is set up: it swept /dev/shm */
  for (guint i = 0; i < 500 && sink_stat (b, "transfers-queued") ==
      G_MAXUINT64; i++)
    g_usleep (20 * 1000);
  g_assert_cmpuint (sink_stat (b, "transfers-queued"), !=, G_MAXUINT64);
  g_test_message ("sender A's regions after B's sweep: %u", regions_of (a));
  g_assert_cmpuint (regions_of (a), >=, 1);
  g_assert_cmpint (kill (r, SIGCONT), ==, 0);
  for (guint i = 0; i < 500 && done < 20; i++) {
    g_usleep (20 * 1000);
    done = sink_stat (b, "transfers-completed");
    done = done == G_MAXUINT64 ? 0 : done;
  }
  g_test_message ("sender B: %" G_GUINT64_FORMAT " transfers completed", done);
  hgst_assert_no_error (b);
  hgst_stop (b);
  /* R took up A's request: it ends in order (a crash is a signal) */
  g_assert_cmpint (kill (r, SIGINT), ==, 0);
  hgst_assert_child_ok (r, 10000);
  g_assert_cmpuint (done, >=, 20);
  g_free (rx);
  g_free (tx);
  hgst_remove_files (dir, file, NULL);
}

/* This test's own /dev/shm (a tmpfs in a mount namespace of its own,
 * which its children share): the sweeps of other processes on the host,
 * which may run another version of this library, stay out of it. FALSE
 * when the process may not (not root). */
static gboolean
private_dev_shm (void)
{
  return unshare (CLONE_NEWNS) == 0
      && mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0
      && mount ("tmpfs", "/dev/shm", "tmpfs", 0, "size=256m,mode=1777") == 0;
}

int
main (int argc, char **argv)
{
  gboolean isolated = argc > 1 && g_str_equal (argv[1], "--child-src")
      ? TRUE : private_dev_shm ();

  static const Case cases[] = {
    {FALSE, FALSE}, {FALSE, TRUE}, {TRUE, FALSE}, {TRUE, TRUE},
  };

  if (hgst_init (&argc, &argv, 4))
    return child_run (argv[2], (guint) atoi (argv[3]));
  g_test_init (&argc, &argv, NULL);
  if (!isolated) {
    g_test_skip ("needs a private /dev/shm (unshare, mount: root)");
    return g_test_run ();
  }
  g_test_add_data_func ("/gst/shmkeep/sender-ends", &cases[0],
      test_sender_gone);
  g_test_add_data_func ("/gst/shmkeep/sender-killed", &cases[1],
      test_sender_gone);
  g_test_add_data_func ("/gst/shmkeep/shared/sender-ends", &cases[2],
      test_sender_gone);
  g_test_add_data_func ("/gst/shmkeep/shared/sender-killed", &cases[3],
      test_sender_gone);
  return g_test_run ();
}
