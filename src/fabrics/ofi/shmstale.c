/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* shm provider regions of processes that are gone (shmstale.h). */
#include "fabrics/ofi/shmstale.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mxl/fabrics-ext.h>

struct MxlShmHold {
  int fd;                        /* holds LOCK_SH on the region file */
  char *path;                    /* the region file */
};

/* A decimal number of 1 to 10 digits at *@p; advances *@p past it. */
static gboolean
parse_dec (const char **p, guint64 *out)
{
  guint64 v = 0;
  guint n = 0;

  while (g_ascii_isdigit (**p) && n < 10) {
    v = v * 10 + (guint64) (**p - '0');
    (*p)++;
    n++;
  }
  *out = v;
  return n > 0 && !g_ascii_isdigit (**p);
}

/* Skips @c at *@p. */
static gboolean
skip_char (const char **p, char c)
{
  if (**p != c)
    return FALSE;
  (*p)++;
  return TRUE;
}

/* The pid a region name carries: MXL_FABRICS_EXT_SHM_NODE_PREFIX
 * "<pid>-" followed by anything. FALSE for every other name. */
static gboolean
region_pid (const char *name, pid_t *out_pid)
{
  const char *p = name;
  guint64 pid;

  if (!g_str_has_prefix (p, MXL_FABRICS_EXT_SHM_NODE_PREFIX))
    return FALSE;
  p += strlen (MXL_FABRICS_EXT_SHM_NODE_PREFIX);
  if (!parse_dec (&p, &pid) || !skip_char (&p, '-') || *p == '\0')
    return FALSE;
  if (pid == 0 || pid > G_MAXINT32)
    return FALSE;
  *out_pid = (pid_t) pid;
  return TRUE;
}

/* Removes @path if it is our regular file that no endpoint holds. */
static gboolean
remove_if_unheld (const char *path)
{
  struct stat st, now;
  gboolean removed = FALSE;
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

  if (fd < 0)
    return FALSE;
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_uid == geteuid ()
      && flock (fd, LOCK_EX | LOCK_NB) == 0
      /* the name still refers to the file we locked */
      && lstat (path, &now) == 0 && now.st_dev == st.st_dev
      && now.st_ino == st.st_ino)
    removed = unlink (path) == 0;
  close (fd);
  return removed;
}

guint
mxl_shm_clean_stale (const char *dir)
{
  const char *keep = g_getenv ("MXL_FABRICS_SHM_KEEP_STALE");
  guint removed = 0;
  const char *name;
  GDir *d;

  if (keep != NULL && *keep != '\0' && strcmp (keep, "0") != 0)
    return 0;
  d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    return 0;
  while ((name = g_dir_read_name (d)) != NULL) {
    pid_t pid;
    char *path;

    if (!region_pid (name, &pid) || pid == getpid ())
      continue;
    /* alive (0) or alive under another uid (EPERM): never touched */
    if (kill (pid, 0) == 0 || errno != ESRCH)
      continue;
    path = g_build_filename (dir, name, NULL);
    if (remove_if_unheld (path)) {
      g_debug ("removed %s, the shm region of process %d, which is gone",
          path, (int) pid);
      removed++;
    }
    g_free (path);
  }
  g_dir_close (d);
  return removed;
}

MxlShmHold *
mxl_shm_region_hold (struct fid_ep *ep)
{
  char name[256];
  size_t len = sizeof (name) - 1;
  const char *base;
  char *path;
  MxlShmHold *hold;
  int rc, fd;

  memset (name, 0, sizeof (name));
  rc = fi_getname (&ep->fid, name, &len);
  if (rc != 0) {
    g_debug ("shm region not locked: fi_getname: %s", fi_strerror (-rc));
    return NULL;
  }
  base = strstr (name, "://");
  base = base ? base + 3 : name;
  if (*base == '\0' || strchr (base, '/') != NULL)
    return NULL;
  path = g_build_filename (MXL_SHM_REGION_DIR, base, NULL);
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0 || flock (fd, LOCK_SH | LOCK_NB) != 0) {
    g_debug ("shm region %s not locked: %s", path, g_strerror (errno));
    if (fd >= 0)
      close (fd);
    g_free (path);
    return NULL;
  }
  hold = g_new0 (MxlShmHold, 1);
  hold->fd = fd;
  hold->path = path;
  return hold;
}

void
mxl_shm_region_release (MxlShmHold *hold)
{
  if (hold == NULL)
    return;
  close (hold->fd);
  g_free (hold->path);
  g_free (hold);
}

char *
mxl_shm_region_keep_begin (MxlShmHold *hold)
{
  char *keep;

  if (hold == NULL)
    return NULL;
  keep = g_strconcat (hold->path, ".keep", NULL);
  if (link (hold->path, keep) != 0) {
    g_debug ("shm region %s not kept: link: %s", hold->path, g_strerror (errno));
    g_free (keep);
    return NULL;
  }
  return keep;
}

void
mxl_shm_region_keep_end (MxlShmHold *hold, char *keep)
{
  if (keep == NULL)
    return;
  if (rename (keep, hold->path) != 0) {
    g_debug ("shm region %s not kept: rename: %s", hold->path, g_strerror (errno));
    unlink (keep);
  }
  g_free (keep);
}
