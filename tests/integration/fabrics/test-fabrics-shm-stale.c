/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * shm provider regions of killed processes (issue 13 item 3,
 * src/fabrics/ofi/shmstale.h). Child processes (this executable again) set up
 * shm targets (receivers, no node: libfabric names the region
 * "<pid>:<uid>:<n>") and initiators (senders, the elements' node
 * "mxlfabrics-<pid>-<n>"), and are killed with SIGKILL or SIGTERM, three
 * rounds. SIGTERM reaches a handler that exits without closing, as an
 * application's own handler does (it replaces libfabric's, which would
 * have removed the files). After the next setup in this process no region
 * of a dead child remains, while the region of a live receiver and that of
 * a live sender whose node names a pid that does not exist (a process in
 * another PID namespace) are untouched. Every child is killed by PID and
 * reaped; every wait is bounded.
 *
 * The test and its children run in a /dev/shm of their own (a tmpfs in a
 * mount namespace of their own, when the process may make one: root), so
 * that the sweep of any other process's shm setup on the host cannot
 * remove the regions of the killed children before this test counted them.
 */
#include <dirent.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>

#include "fabtest.h"

#define FLOW_ID "5fbec3b1-1b0f-417d-9059-8b94a47197ed"
#define ROUNDS 3
#define CHILD_LIFE_S 60

static char *self_exe;

static void
on_term (int sig)
{
  _exit (0);
}

/* Child: one shm target or initiator on @node, 'R' on @fd once set up,
 * then waits to be killed (at most CHILD_LIFE_S). A target that allows
 * several senders writes its TargetInfo to @ti_path; an initiator adds the
 * target of @ti_path and writes 'R' once connected: a shm initiator's
 * endpoints, and so its regions, are its connections' (initiator_rdm.c). */
static int
child_main (const char *role, const char *node, int fd, const char *ti_path)
{
  char *def = fabtest_v210_def (FLOW_ID, "video/v210", 64, 16);
  FabSide s;
  mxlFabricsInterfaceConfig iface;

  fabtest_side_init (&s, def, FLOW_ID);
  memset (&iface, 0, sizeof (iface));
  iface.provider = MXL_FABRICS_PROVIDER_SHM;
  iface.caps.flags = FAB_CAPS;
  iface.address.node = node;
  if (strcmp (role, "target") == 0) {
    mxlFabricsTargetConfig cfg;
    mxlFabricsTarget t;
    mxlFabricsTargetInfo info = NULL;

    memset (&cfg, 0, sizeof (cfg));
    cfg.interface = iface;
    cfg.writer = s.writer;
    if (mxlFabricsCreateTarget (s.fab, &t) != MXL_STATUS_OK
        || mxlFabricsTargetSetup (t, &cfg, "{\"exclusive\": false}", &info)
        != MXL_STATUS_OK)
      return 20;
    if (strcmp (ti_path, "-") != 0) {
      size_t size = 0;
      char *text;
      gboolean ok;

      if (mxlFabricsTargetInfoToString (info, NULL, &size) != MXL_STATUS_OK)
        return 24;
      text = g_malloc (size);
      ok = mxlFabricsTargetInfoToString (info, text, &size) == MXL_STATUS_OK
          && g_file_set_contents (ti_path, text, -1, NULL);
      g_free (text);
      if (!ok)
        return 24;
    }
  } else {
    mxlFabricsInitiatorConfig cfg;
    mxlFabricsInitiator i;

    memset (&cfg, 0, sizeof (cfg));
    cfg.interface = iface;
    cfg.reader = s.reader;
    mxlFabricsTargetInfo info = NULL;
    char *text = NULL;
    gint64 deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
    mxlStatus st;

    if (mxlFabricsCreateInitiator (s.fab, &i) != MXL_STATUS_OK
        || mxlFabricsInitiatorSetup (i, &cfg, NULL) != MXL_STATUS_OK)
      return 21;
    if (!g_file_get_contents (ti_path, &text, NULL, NULL)
        || mxlFabricsTargetInfoFromString (text, &info) != MXL_STATUS_OK
        || mxlFabricsInitiatorAddTarget (i, info) != MXL_STATUS_OK)
      return 25;
    g_free (text);
    while ((st = mxlFabricsInitiatorMakeProgressNonBlocking (i)) == MXL_ERR_NOT_READY
        && g_get_monotonic_time () < deadline)
      g_usleep (1000);
    if (st != MXL_STATUS_OK)
      return 26;
  }
  signal (SIGTERM, on_term);
  if (!fabtest_write_full (fd, "R", 1))
    return 22;
  for (int k = 0; k < CHILD_LIFE_S * 10; k++)
    g_usleep (100 * 1000);
  return 23;
}

static pid_t
spawn (const char *role, const char *node, const char *ti_path, int *out_fd)
{
  int fds[2];
  char *fd_arg;
  char c = 0;
  pid_t pid;

  g_assert_cmpint (pipe (fds), ==, 0);
  fd_arg = g_strdup_printf ("%d", fds[1]);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0) {
    char *args[] = { self_exe, (char *) "--shm-child", (char *) role,
      (char *) node, fd_arg, (char *) ti_path, NULL };
    close (fds[0]);
    /* a test that fails stops here: its children must not outlive it */
    prctl (PR_SET_PDEATHSIG, SIGKILL);
    execv (self_exe, args);
    _exit (127);
  }
  close (fds[1]);
  g_free (fd_arg);
  if (!fabtest_read_full (fds[0], &c, 1, 20000) || c != 'R') {
    kill (pid, SIGKILL);
    waitpid (pid, NULL, 0);
    fabtest_cleanup_pid (pid);
    g_error ("%s child %d did not set up", role, (int) pid);
  }
  *out_fd = fds[0];
  return pid;
}

/* The names of the regions in /dev/shm whose name carries @pid. */
static guint
regions_of (int pid, GString *names)
{
  char *node = g_strdup_printf (MXL_FABRICS_EXT_SHM_NODE_PREFIX "%d-", pid);
  DIR *d = opendir ("/dev/shm");
  struct dirent *e;
  guint n = 0;

  g_assert_nonnull (d);
  while ((e = readdir (d)) != NULL)
    if (g_str_has_prefix (e->d_name, node)) {
      if (names)
        g_string_append_printf (names, " %s", e->d_name);
      n++;
    }
  closedir (d);
  g_free (node);
  return n;
}

static void
kill_and_reap (pid_t pid, int sig, int fd)
{
  int status = 0;

  g_assert_cmpint (kill (pid, sig), ==, 0);
  status = fabtest_wait_child (pid, 10000);
  if (sig == SIGKILL)
    g_assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
  else
    fabtest_assert_exit_ok (status);
  close (fd);
}

static void
test_killed (void)
{
  char *def = fabtest_v210_def (FLOW_ID, "video/v210", 64, 16);
  int dead[2 * ROUNDS], fds[2 * ROUNDS], live_fd, hidden_fd, hidden_pid;
  pid_t live, hidden;
  char *hidden_node, *ti_path;
  GString *left = g_string_new (NULL);
  guint leaked = 0;
  FabSide s;
  mxlFabricsTarget t;
  mxlFabricsTargetInfo info = NULL;
  mxlFabricsTargetConfig cfg;
  char *own_node = g_strdup_printf (MXL_FABRICS_EXT_SHM_NODE_PREFIX "%d-0", (int) getpid ());

  if (!fabtest_require (&fab_shm)) {
    g_free (def);
    g_free (own_node);
    g_string_free (left, TRUE);
    return;
  }
  g_unsetenv ("MXL_FABRICS_SHM_KEEP_STALE");
  ti_path = g_build_filename (g_get_tmp_dir (), "shm-stale-XXXXXX", NULL);
  close (g_mkstemp (ti_path));
  /* a live receiver: every sender below connects to it */
  live = spawn ("target", "self", ti_path, &live_fd);
  g_assert_cmpuint (regions_of (live, NULL), ==, 1);
  /* a live sender whose node names a pid that does not exist here */
  {
    int status;
    pid_t p = fork ();
    if (p == 0)
      _exit (0);
    waitpid (p, &status, 0);
    hidden_pid = (int) p;
  }
  hidden_node = g_strdup_printf (MXL_FABRICS_EXT_SHM_NODE_PREFIX "%d-0", hidden_pid);
  hidden = spawn ("initiator", hidden_node, ti_path, &hidden_fd);
  g_assert_cmpuint (regions_of (hidden_pid, NULL), ==, 1);

  for (guint r = 0; r < ROUNDS; r++) {
    pid_t recv = spawn ("target", "self", "-", &fds[2 * r]);
    pid_t send;

    /* "self": the child names its node after its pid, as the elements do */
    send = spawn ("initiator", "self", ti_path, &fds[2 * r + 1]);
    g_assert_cmpuint (regions_of (recv, NULL), ==, 1);
    g_assert_cmpuint (regions_of (send, NULL), ==, 1);
    /* the receiver killed with -9 in rounds 0 and 2, the sender in round 1 */
    kill_and_reap (recv, r % 2 == 0 ? SIGKILL : SIGTERM, fds[2 * r]);
    kill_and_reap (send, r % 2 == 0 ? SIGTERM : SIGKILL, fds[2 * r + 1]);
    dead[2 * r] = (int) recv;
    dead[2 * r + 1] = (int) send;
    leaked += regions_of (recv, NULL) + regions_of (send, NULL);
  }
  /* without the sweep, these would stay for good: 16 MiB each */
  g_test_message ("%u regions left by %d killed processes", leaked, 2 * ROUNDS);
  g_assert_cmpuint (leaked, ==, 2 * ROUNDS);

  /* the next setup */
  fabtest_side_init (&s, def, FLOW_ID);
  memset (&cfg, 0, sizeof (cfg));
  cfg.interface.provider = MXL_FABRICS_PROVIDER_SHM;
  cfg.interface.caps.flags = FAB_CAPS;
  cfg.interface.address.node = own_node;
  cfg.writer = s.writer;
  g_assert_cmpint (mxlFabricsCreateTarget (s.fab, &t), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsTargetSetup (t, &cfg, NULL, &info), ==, MXL_STATUS_OK);
  for (guint k = 0; k < 2 * ROUNDS; k++)
    regions_of (dead[k], left);
  if (left->len > 0)
    g_error ("regions of dead processes remain after setup:%s", left->str);
  g_assert_cmpuint (regions_of (live, NULL), ==, 1);
  g_assert_cmpuint (regions_of (hidden_pid, NULL), ==, 1);
  g_assert_cmpuint (regions_of (getpid (), NULL), ==, 1);

  kill_and_reap (live, SIGKILL, live_fd);
  kill_and_reap (hidden, SIGKILL, hidden_fd);
  g_assert_cmpint (mxlFabricsDestroyTarget (s.fab, t), ==, MXL_STATUS_OK);
  g_assert_cmpuint (regions_of (getpid (), NULL), ==, 0);
  /* their regions go with the next sweep (the sender's lock died with it) */
  mxlFabricsFreeTargetInfo (info);
  g_assert_cmpint (mxlFabricsCreateTarget (s.fab, &t), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsTargetSetup (t, &cfg, NULL, &info), ==, MXL_STATUS_OK);
  g_assert_cmpuint (regions_of (live, NULL), ==, 0);
  g_assert_cmpuint (regions_of (hidden_pid, NULL), ==, 0);
  g_assert_cmpint (mxlFabricsDestroyTarget (s.fab, t), ==, MXL_STATUS_OK);
  mxlFabricsFreeTargetInfo (info);
  fabtest_side_clear (&s);
  for (guint k = 0; k < 2 * ROUNDS; k++)
    fabtest_cleanup_pid (dead[k]);
  fabtest_cleanup_pid (live);
  fabtest_cleanup_pid (hidden);
  g_string_free (left, TRUE);
  g_unlink (ti_path);
  g_free (ti_path);
  g_free (hidden_node);
  g_free (own_node);
  g_free (def);
}

int
main (int argc, char **argv)
{
  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  if (argc == 6 && strcmp (argv[1], "--shm-child") == 0) {
    char *node = strcmp (argv[3], "self") == 0
        ? g_strdup_printf (MXL_FABRICS_EXT_SHM_NODE_PREFIX "%d-0", (int) getpid ())
        : g_strdup (argv[3]);
    return child_main (argv[2], node, atoi (argv[4]), argv[5]);
  }
  /* the children are forked after this: they share the private /dev/shm */
  if (unshare (CLONE_NEWNS) != 0
      || mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0
      || mount ("tmpfs", "/dev/shm", "tmpfs", 0, "size=256m,mode=1777") != 0)
    g_printerr ("# no private /dev/shm (%s): other processes' sweeps may "
        "interfere\n", g_strerror (errno));
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/shm-stale/killed", test_killed);
  return g_test_run ();
}
