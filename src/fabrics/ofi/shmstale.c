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
  char *marker;                  /* its peer marker, while there is one */
};

/* What a peer marker's name adds to its region's (shmstale.h). */
#define PEER_MARKER ".mxlpeer-"

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

gboolean
mxl_shm_region_pid (const char *name, pid_t *out_pid)
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

/* alive (0) or alive under another uid (EPERM) */
static gboolean
pid_alive (pid_t pid)
{
  return kill (pid, 0) == 0 || errno != ESRCH;
}

/* The region name and peer pid of a peer marker @name (g_free()), or NULL
 * for any other name. */
static char *
marker_region (const char *name, pid_t *peer)
{
  const char *m = g_strrstr (name, PEER_MARKER), *p;
  guint64 pid;

  if (m == NULL || m == name)
    return NULL;
  p = m + strlen (PEER_MARKER);
  if (!parse_dec (&p, &pid) || *p != '\0' || pid == 0 || pid > G_MAXINT32)
    return NULL;
  *peer = (pid_t) pid;
  return g_strndup (name, (gsize) (m - name));
}

/* First pass of the sweep: the regions (names) whose marker names a peer
 * that lives; the markers of peers that are gone are removed. */
static GHashTable *
referenced_regions (GDir *d, const char *dir)
{
  GHashTable *kept = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      NULL);
  const char *name;

  while ((name = g_dir_read_name (d)) != NULL) {
    pid_t pid, peer;
    char *region, *path;

    if (!mxl_shm_region_pid (name, &pid) || pid == getpid () || pid_alive (pid)
        || (region = marker_region (name, &peer)) == NULL)
      continue;
    if (pid_alive (peer)) {
      g_hash_table_add (kept, region);
      continue;
    }
    g_free (region);
    path = g_build_filename (dir, name, NULL);
    remove_if_unheld (path);
    g_free (path);
  }
  g_dir_rewind (d);
  return kept;
}

guint
mxl_shm_clean_stale (const char *dir)
{
  const char *keep = g_getenv ("MXL_FABRICS_SHM_KEEP_STALE");
  guint removed = 0;
  const char *name;
  GHashTable *kept;
  GDir *d;

  if (keep != NULL && *keep != '\0' && strcmp (keep, "0") != 0)
    return 0;
  d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    return 0;
  kept = referenced_regions (d, dir);
  while ((name = g_dir_read_name (d)) != NULL) {
    pid_t pid, peer;
    char *path, *region;

    if (!mxl_shm_region_pid (name, &pid) || pid == getpid ())
      continue;
    /* alive: never touched */
    if (pid_alive (pid) || g_hash_table_contains (kept, name))
      continue;
    if ((region = marker_region (name, &peer)) != NULL) {
      g_free (region);          /* a marker: the first pass saw to it */
      continue;
    }
    path = g_build_filename (dir, name, NULL);
    if (remove_if_unheld (path)) {
      g_debug ("removed %s, the shm region of process %d, which is gone",
          path, (int) pid);
      removed++;
    }
    g_free (path);
  }
  g_hash_table_unref (kept);
  g_dir_close (d);
  return removed;
}

/* The path of @ep's region file: its fi_getname() without the scheme, in
 * MXL_SHM_REGION_DIR (g_free()); NULL when it has none. */
static char *
region_path (struct fid_ep *ep)
{
  char name[256];
  size_t len = sizeof (name) - 1;
  const char *base;
  int rc;

  memset (name, 0, sizeof (name));
  rc = fi_getname (&ep->fid, name, &len);
  if (rc != 0) {
    g_debug ("shm region unknown: fi_getname: %s", fi_strerror (-rc));
    return NULL;
  }
  base = strstr (name, "://");
  base = base ? base + 3 : name;
  if (*base == '\0' || strchr (base, '/') != NULL)
    return NULL;
  return g_build_filename (MXL_SHM_REGION_DIR, base, NULL);
}

int
mxl_shm_enable (struct fid_ep *ep, GError **error)
{
  char *path = region_path (ep);
  int fd = path ? open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
  gboolean held = fd >= 0 && flock (fd, LOCK_EX | LOCK_NB) != 0
      && errno == EWOULDBLOCK;

  if (fd >= 0)
    close (fd);                 /* drops the lock if it was granted */
  if (held) {
    g_set_error (error, MXL_OFI_ERROR, FI_EBUSY, "fi_enable: %s (-%d): "
        "%s is another endpoint's (its node is in use)",
        fi_strerror (FI_EBUSY), FI_EBUSY, path);
    g_free (path);
    return -FI_EBUSY;
  }
  g_free (path);
  fd = fi_enable (ep);
  if (fd != 0)
    g_set_error (error, MXL_OFI_ERROR, -fd, "fi_enable: %s (%d)",
        fi_strerror (-fd), fd);
  return fd;
}

MxlShmHold *
mxl_shm_region_hold (struct fid_ep *ep)
{
  char *path = region_path (ep);
  MxlShmHold *hold;
  int fd;

  if (path == NULL)
    return NULL;
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
  g_free (hold->marker);
  g_free (hold);
}

void
mxl_shm_region_mark_peer (MxlShmHold *hold, guint32 peer_pid)
{
  int fd;

  if (hold == NULL || peer_pid == 0 || hold->marker != NULL)
    return;
  hold->marker = g_strdup_printf ("%s" PEER_MARKER "%u", hold->path, peer_pid);
  fd = open (hold->marker, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    g_debug ("shm region %s not marked: %s", hold->path, g_strerror (errno));
    g_clear_pointer (&hold->marker, g_free);
    return;
  }
  close (fd);
}

void
mxl_shm_region_unmark (MxlShmHold *hold)
{
  if (hold == NULL || hold->marker == NULL)
    return;
  unlink (hold->marker);
  g_clear_pointer (&hold->marker, g_free);
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
