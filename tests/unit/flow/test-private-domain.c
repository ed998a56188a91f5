/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private domains (mxl/flow-ext.h): removal on destroy and after a crash. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mxl/flow-ext.h>

#include "flowtest.h"

static void
test_create_destroy (void)
{
  char *parent = flowtest_domain_new ();
  mxlPrivateDomain dom;
  mxlInstance inst;
  mxlFlowWriter w;
  char *def = flowtest_v210_def ();
  char *path, *prefix;
  struct stat st;

  g_assert_cmpint (mxlPrivateDomainCreate (parent, NULL), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlPrivateDomainCreate ("/nonexistent/parent", &dom), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlPrivateDomainCreate (parent, &dom), ==, MXL_STATUS_OK);
  path = g_strdup (mxlPrivateDomainGetPath (dom));
  prefix = g_strdup_printf ("%s/mxl-private-%d-", parent, (int) getpid ());
  g_assert_true (g_str_has_prefix (path, prefix));
  g_assert_cmpint (stat (path, &st), ==, 0);
  g_assert_true (S_ISDIR (st.st_mode));
  g_assert_cmpint (st.st_mode & 0777, ==, 0700);

  /* a usable domain: a flow lives in it; our own domain is not stale */
  inst = mxlCreateInstance (path, NULL);
  g_assert_nonnull (inst);
  g_assert_cmpint (mxlCreateFlowWriter (inst, def, NULL, &w, NULL, NULL), ==, MXL_STATUS_OK);
  {
    unsigned int removed = 99;
    g_assert_cmpint (mxlPrivateDomainCleanStale (parent, &removed), ==, MXL_STATUS_OK);
    g_assert_cmpuint (removed, ==, 0);
    g_assert_true (g_file_test (path, G_FILE_TEST_IS_DIR));
    /* garbage collection leaves the owner file alone */
    g_assert_cmpint (mxlGarbageCollectFlows (inst), ==, MXL_STATUS_OK);
  }
  mxlDestroyInstance (inst);
  g_assert_cmpint (mxlPrivateDomainDestroy (dom), ==, MXL_STATUS_OK);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpint (mxlPrivateDomainDestroy (NULL), ==, MXL_ERR_INVALID_ARG);
  g_assert_null (mxlPrivateDomainGetPath (NULL));
  g_free (prefix);
  g_free (path);
  g_free (def);
  flowtest_domain_free (parent);
}

static void
test_crashed_owner (void)
{
  char *parent = flowtest_domain_new ();
  char *def = flowtest_v210_def ();
  int pipefd[2];
  char path[512] = { 0 };
  pid_t pid;
  int status;
  mxlPrivateDomain mine;
  unsigned int removed = 0;

  g_assert_cmpint (pipe (pipefd), ==, 0);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0) {
    mxlPrivateDomain dom;
    mxlInstance inst;
    mxlFlowWriter w;
    const char *p;

    close (pipefd[0]);
    if (mxlPrivateDomainCreate (parent, &dom) != MXL_STATUS_OK)
      _exit (2);
    inst = mxlCreateInstance (mxlPrivateDomainGetPath (dom), NULL);
    if (inst == NULL || mxlCreateFlowWriter (inst, def, NULL, &w, NULL, NULL) != MXL_STATUS_OK)
      _exit (3);
    p = mxlPrivateDomainGetPath (dom);
    if (write (pipefd[1], p, strlen (p)) != (ssize_t) strlen (p))
      _exit (4);
    close (pipefd[1]);
    pause ();            /* killed by the parent: no cleanup runs */
    _exit (5);
  }
  close (pipefd[1]);
  g_assert_cmpint (read (pipefd[0], path, sizeof path - 1), >, 0);
  close (pipefd[0]);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_DIR));
  g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFSIGNALED (status));
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_DIR));

  /* the next start removes the crashed owner's domain, flow included */
  g_assert_cmpint (mxlPrivateDomainCreate (parent, &mine), ==, MXL_STATUS_OK);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpint (mxlPrivateDomainCleanStale (parent, &removed), ==, MXL_STATUS_OK);
  g_assert_cmpuint (removed, ==, 0);
  g_assert_cmpint (mxlPrivateDomainDestroy (mine), ==, MXL_STATUS_OK);
  g_free (def);
  flowtest_domain_free (parent);
}

/* Several threads (two sinks of one process, say) creating and destroying
 * private domains side by side: every creator's clean-up of stale domains
 * runs while the others create theirs, and must never take a domain being
 * created for a dead owner's. */
#define RACE_THREADS 4
#define RACE_ROUNDS 300

typedef struct RaceArg {
  const char *parent;
  guint lost;
  guint failed;
} RaceArg;

static gpointer
race_thread (gpointer data)
{
  RaceArg *a = data;

  for (int i = 0; i < RACE_ROUNDS; i++) {
    mxlPrivateDomain dom;
    char *owner;

    if (mxlPrivateDomainCreate (a->parent, &dom) != MXL_STATUS_OK) {
      a->failed++;
      continue;
    }
    owner = g_build_filename (mxlPrivateDomainGetPath (dom), ".mxl-private-owner", NULL);
    if (!g_file_test (owner, G_FILE_TEST_IS_REGULAR))
      a->lost++;
    g_free (owner);
    if (mxlPrivateDomainDestroy (dom) != MXL_STATUS_OK)
      a->lost++;
  }
  return NULL;
}

static void
test_concurrent_creators (void)
{
  char *parent = flowtest_domain_new ();
  GThread *th[RACE_THREADS];
  RaceArg args[RACE_THREADS];
  guint lost = 0, failed = 0;
  GDir *d;

  for (int i = 0; i < RACE_THREADS; i++) {
    args[i] = (RaceArg) { parent, 0, 0 };
    th[i] = g_thread_new ("creator", race_thread, &args[i]);
  }
  for (int i = 0; i < RACE_THREADS; i++) {
    g_thread_join (th[i]);
    lost += args[i].lost;
    failed += args[i].failed;
  }
  g_assert_cmpuint (failed, ==, 0);
  g_assert_cmpuint (lost, ==, 0);
  /* every domain was destroyed by its owner: nothing is left */
  d = g_dir_open (parent, 0, NULL);
  g_assert_nonnull (d);
  g_assert_null (g_dir_read_name (d));
  g_dir_close (d);
  flowtest_domain_free (parent);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/private-domain/create-destroy", test_create_destroy);
  g_test_add_func ("/private-domain/crashed-owner", test_crashed_owner);
  g_test_add_func ("/private-domain/concurrent-creators", test_concurrent_creators);
  return g_test_run ();
}
