/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sweep of stale shm provider regions (src/fabrics/ofi/shmstale.h) on a
 * directory of made-up names: exactly the regions of an
 * "mxlfabrics-<pid>-" node of a dead pid, regular, ours and unlocked are
 * removed; every other name,
 * a live pid, a locked file, a directory or a symlink stays; the
 * environment switch turns the sweep off. A region whose peer marker names
 * a live peer stays until that peer is gone.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "fabrics/ofi/shmstale.h"

/* A pid that existed a moment ago and does not any more. */
static int
dead_pid (void)
{
  int status;
  pid_t pid = fork ();

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    _exit (0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  return (int) pid;
}

static char *
touch (const char *dir, const char *name)
{
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, "x", 1, NULL));
  return path;
}

static gboolean
exists (const char *dir, const char *name)
{
  char *path = g_build_filename (dir, name, NULL);
  struct stat st;
  gboolean ok = lstat (path, &st) == 0;

  g_free (path);
  return ok;
}

static void
test_sweep (void)
{
  char *dir = g_dir_make_tmp ("mxl-shmstale-XXXXXX", NULL);
  int dead = dead_pid (), uid = (int) getuid (), fd;
  char *stale[2], *kept[16], *locked, *link_name, *dir_name, *path;
  guint n_kept = 0, i;

  g_assert_nonnull (dir);
  stale[0] = g_strdup_printf ("mxlfabrics-%d-3:%d:1", dead, uid);
  stale[1] = g_strdup_printf ("mxlfabrics-%d-0:engine", dead);  /* with a service */
  kept[n_kept++] = g_strdup_printf ("mxlfabrics-%d-0:%d:0", (int) getpid (), uid);
  kept[n_kept++] = g_strdup_printf ("mxlfabrics-1-0:%d:0", uid);   /* init: alive */
  kept[n_kept++] = g_strdup_printf ("%d:%d:0", dead, uid);   /* not this library's */
  kept[n_kept++] = g_strdup_printf ("mydevice:%d:0", uid);
  kept[n_kept++] = g_strdup_printf ("mxlfabrics-%d:%d:0", dead, uid);
  kept[n_kept++] = g_strdup_printf ("mxlfabrics-%d-", dead);
  kept[n_kept++] = g_strdup_printf ("mxlfabrics-+%d-0:%d:0", dead, uid);
  kept[n_kept++] = g_strdup_printf ("mxlfabrics-0%d0000000-0:%d:0", dead, uid);  /* 11+ digits */
  kept[n_kept++] = g_strdup_printf ("mxlfabrics-0-0:%d:0", uid);
  kept[n_kept++] = g_strdup_printf ("x-mxlfabrics-%d-0:%d:0", dead, uid);
  kept[n_kept++] = g_strdup_printf ("tgt-%d-1-0badf00d:engine", dead);
  for (i = 0; i < 2; i++)
    g_free (touch (dir, stale[i]));
  for (i = 0; i < n_kept; i++)
    g_free (touch (dir, kept[i]));
  /* a dead pid's name, but held by a live endpoint (another PID namespace) */
  locked = g_strdup_printf ("mxlfabrics-%d-7:%d:0", dead, uid);
  path = touch (dir, locked);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (flock (fd, LOCK_SH | LOCK_NB), ==, 0);
  g_free (path);
  /* not regular files */
  dir_name = g_strdup_printf ("mxlfabrics-%d-8:%d:0", dead, uid);
  path = g_build_filename (dir, dir_name, NULL);
  g_assert_cmpint (g_mkdir (path, 0700), ==, 0);
  g_free (path);
  link_name = g_strdup_printf ("mxlfabrics-%d-9:%d:0", dead, uid);
  path = g_build_filename (dir, link_name, NULL);
  g_assert_cmpint (symlink (kept[0], path), ==, 0);
  g_free (path);

  g_setenv ("MXL_FABRICS_SHM_KEEP_STALE", "1", TRUE);
  g_assert_cmpuint (mxl_shm_clean_stale (dir), ==, 0);
  g_assert_true (exists (dir, stale[0]));
  g_unsetenv ("MXL_FABRICS_SHM_KEEP_STALE");

  g_assert_cmpuint (mxl_shm_clean_stale (dir), ==, 2);
  for (i = 0; i < 2; i++)
    g_assert_false (exists (dir, stale[i]));
  for (i = 0; i < n_kept; i++)
    if (!exists (dir, kept[i]))
      g_error ("%s was removed", kept[i]);
  g_assert_true (exists (dir, locked));
  g_assert_true (exists (dir, dir_name));
  g_assert_true (exists (dir, link_name));
  g_assert_cmpuint (mxl_shm_clean_stale (dir), ==, 0);
  /* the holder is gone: its region goes with the next sweep */
  close (fd);
  g_assert_cmpuint (mxl_shm_clean_stale (dir), ==, 1);
  g_assert_false (exists (dir, locked));

  g_assert_cmpuint (mxl_shm_clean_stale ("/nonexistent/mxl-shmstale"), ==, 0);
  for (i = 0; i < n_kept; i++) {
    path = g_build_filename (dir, kept[i], NULL);
    g_unlink (path);
    g_free (path);
    g_free (kept[i]);
  }
  path = g_build_filename (dir, link_name, NULL);
  g_unlink (path);
  g_free (path);
  path = g_build_filename (dir, dir_name, NULL);
  g_rmdir (path);
  g_free (path);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  for (i = 0; i < 2; i++)
    g_free (stale[i]);
  g_free (locked);
  g_free (dir_name);
  g_free (link_name);
  g_free (dir);
}

/* A region of a dead process whose peer marker names a live peer stays,
 * marker and all, sweep after sweep; once the peer is gone too, one sweep
 * removes both (docs/libfabric-notes.md P16). A marker of a dead peer
 * beside a region of a live process stays (that process owns both). */
static void
test_peer_marker (void)
{
  char *dir = g_dir_make_tmp ("mxl-shmstale-XXXXXX", NULL);
  int dead = dead_pid (), status;
  pid_t peer = fork ();
  char *region, *marker, *live_region, *live_marker;

  g_assert_nonnull (dir);
  g_assert_cmpint (peer, >=, 0);
  if (peer == 0) {
    prctl (PR_SET_PDEATHSIG, SIGKILL);  /* gone with a failed test */
    pause ();
    _exit (0);
  }
  region = g_strdup_printf ("mxlfabrics-%d-0:engine.3", dead);
  marker = g_strdup_printf ("%s.mxlpeer-%d", region, (int) peer);
  live_region = g_strdup_printf ("mxlfabrics-%d-0:engine.4", (int) getpid ());
  live_marker = g_strdup_printf ("%s.mxlpeer-%d", live_region, dead);
  g_free (touch (dir, region));
  g_free (touch (dir, marker));
  g_free (touch (dir, live_region));
  g_free (touch (dir, live_marker));
  for (guint i = 0; i < 2; i++) {
    g_assert_cmpuint (mxl_shm_clean_stale (dir), ==, 0);
    g_assert_true (exists (dir, region));
    g_assert_true (exists (dir, marker));
  }
  g_assert_cmpint (kill (peer, SIGKILL), ==, 0);
  g_assert_cmpint (waitpid (peer, &status, 0), ==, peer);
  g_assert_cmpuint (mxl_shm_clean_stale (dir), ==, 1);
  g_assert_false (exists (dir, region));
  g_assert_false (exists (dir, marker));
  g_assert_true (exists (dir, live_region));
  g_assert_true (exists (dir, live_marker));
  for (char **n = (char *[]) { live_region, live_marker, NULL }; *n; n++) {
    char *path = g_build_filename (dir, *n, NULL);
    g_unlink (path);
    g_free (path);
  }
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  g_free (region);
  g_free (marker);
  g_free (live_region);
  g_free (live_marker);
  g_free (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/shmstale/sweep", test_sweep);
  g_test_add_func ("/fabrics/shmstale/peer-marker", test_peer_marker);
  return g_test_run ();
}
