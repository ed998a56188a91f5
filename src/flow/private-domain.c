/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Private domains (mxl/flow-ext.h): a temporary domain per owner, removed on
 * destroy, or by the next creator after the owner died (its flock is gone).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mxl/flow-ext.h>

#include "flow/flow-priv.h"

#define PRIVATE_PREFIX "mxl-private-"
#define OWNER_FILE ".mxl-private-owner"
/* a domain without an owner file may be being created right now */
#define UNOWNED_GRACE_S 5

struct mxlPrivateDomain_t {
  char *path;
  int owner_fd;                  /* holds LOCK_EX for the domain's lifetime */
};

mxlStatus
mxlPrivateDomainCleanStale (char const *in_parent, unsigned int *out_removed)
{
  const char *parent = in_parent ? in_parent : MXL_PRIVATE_DOMAIN_PARENT;
  unsigned int removed = 0;
  time_t now = time (NULL);
  DIR *d = opendir (parent);
  struct dirent *e;

  if (d == NULL)
    return MXL_ERR_INVALID_ARG;
  while ((e = readdir (d)) != NULL) {
    char *path, *owner;
    struct stat st;
    int fd;
    gboolean stale = FALSE;

    if (!g_str_has_prefix (e->d_name, PRIVATE_PREFIX))
      continue;
    path = g_build_filename (parent, e->d_name, NULL);
    if (lstat (path, &st) != 0 || !S_ISDIR (st.st_mode) || st.st_uid != geteuid ()) {
      g_free (path);
      continue;
    }
    owner = g_build_filename (path, OWNER_FILE, NULL);
    fd = open (owner, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      /* granted: the owner process is gone (the kernel dropped its lock) */
      stale = flock (fd, LOCK_EX | LOCK_NB) == 0;
    } else {
      stale = errno == ENOENT && st.st_mtime + UNOWNED_GRACE_S < now;
    }
    if (stale) {
      g_debug ("removing stale private domain %s", path);
      if (mxl_remove_tree (path))
        removed++;
    }
    if (fd >= 0)
      close (fd);
    g_free (owner);
    g_free (path);
  }
  closedir (d);
  if (out_removed)
    *out_removed = removed;
  return MXL_STATUS_OK;
}

mxlStatus
mxlPrivateDomainCreate (char const *in_parent, mxlPrivateDomain *out_domain)
{
  const char *parent = in_parent ? in_parent : MXL_PRIVATE_DOMAIN_PARENT;
  mxlPrivateDomain dom;
  char *path, *owner, *tmp;
  int fd, err;

  if (out_domain == NULL || !g_file_test (parent, G_FILE_TEST_IS_DIR))
    return MXL_ERR_INVALID_ARG;
  mxlPrivateDomainCleanStale (parent, NULL);

  path = g_strdup_printf ("%s/" PRIVATE_PREFIX "%d-XXXXXX", parent, (int) getpid ());
  if (mkdtemp (path) == NULL) {
    err = errno;
    g_free (path);
    return err == EACCES || err == EPERM || err == EROFS
        ? MXL_ERR_PERMISSION_DENIED : MXL_ERR_UNKNOWN;
  }
  /* The owner file appears already locked: it is locked under another
   * name, then renamed into place. A cleaner in another thread or process
   * that found it unlocked between open() and flock() would take the new
   * domain for a dead owner's and remove it. */
  owner = g_build_filename (path, OWNER_FILE, NULL);
  tmp = g_strconcat (owner, ".new", NULL);
  fd = open (tmp, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0 || flock (fd, LOCK_EX | LOCK_NB) != 0 || rename (tmp, owner) != 0) {
    if (fd >= 0)
      close (fd);
    g_free (tmp);
    g_free (owner);
    mxl_remove_tree (path);
    g_free (path);
    return MXL_ERR_UNKNOWN;
  }
  g_free (tmp);
  g_free (owner);
  dom = g_new0 (struct mxlPrivateDomain_t, 1);
  dom->path = path;
  dom->owner_fd = fd;
  *out_domain = dom;
  return MXL_STATUS_OK;
}

char const *
mxlPrivateDomainGetPath (mxlPrivateDomain in_domain)
{
  return in_domain ? in_domain->path : NULL;
}

mxlStatus
mxlPrivateDomainDestroy (mxlPrivateDomain in_domain)
{
  gboolean ok;

  if (in_domain == NULL)
    return MXL_ERR_INVALID_ARG;
  ok = mxl_remove_tree (in_domain->path);
  close (in_domain->owner_fd);
  g_free (in_domain->path);
  g_free (in_domain);
  return ok ? MXL_STATUS_OK : MXL_ERR_UNKNOWN;
}
