/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MXL instances: a domain, its options, handle tables, garbage collection
 * and the `access` watcher (docs/flow-format.md §1.1, §1.7-§1.11, §6.2).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include <mxl/time.h>

#include "flow/flow-priv.h"
#include "flow/flow-version.h"

#define STALE_TMP_AGE_S 5

mxlStatus
mxlGetVersion (mxlVersionType *out_version)
{
  if (out_version == NULL)
    return MXL_ERR_INVALID_ARG;
  out_version->major = MXL_FLOW_VERSION_MAJOR;
  out_version->minor = MXL_FLOW_VERSION_MINOR;
  out_version->bugfix = MXL_FLOW_VERSION_MICRO;
  out_version->build = 0;
  out_version->full = MXL_FLOW_VERSION_STRING;
  return MXL_STATUS_OK;
}

mxlStatus
mxlIsTmpFs (char const *in_path, bool *out_isTmpFs)
{
  struct statfs fs;

  if (in_path == NULL || out_isTmpFs == NULL)
    return MXL_ERR_INVALID_ARG;
  if (statfs (in_path, &fs) != 0)
    return MXL_ERR_UNKNOWN;
  *out_isTmpFs = fs.f_type == TMPFS_MAGIC || fs.f_type == (typeof (fs.f_type)) RAMFS_MAGIC;
  return MXL_STATUS_OK;
}

#define MXL_DOMAIN_OPTIONS_FILE "options.json"

gboolean
mxl_domain_write_history (const char *domain, uint64_t history_ns)
{
  g_autoptr (JsonBuilder) b = json_builder_new_immutable ();
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *text = NULL, *path = NULL;

  json_builder_begin_object (b);
  json_builder_set_member_name (b, MXL_HISTORY_OPTION);
  json_builder_add_int_value (b, (gint64) history_ns);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  text = json_generator_to_data (gen, NULL);
  path = g_build_filename (domain, MXL_DOMAIN_OPTIONS_FILE, NULL);
  return g_file_set_contents (path, text, -1, NULL);
}

/* §1.9: options.json of the domain, read once. */
static uint64_t
read_history (const char *domain)
{
  char *path = g_build_filename (domain, MXL_DOMAIN_OPTIONS_FILE, NULL);
  JsonParser *parser = json_parser_new_immutable ();
  uint64_t history = MXL_DEFAULT_HISTORY_NS;

  if (g_file_test (path, G_FILE_TEST_EXISTS)) {
    JsonNode *root, *node;

    if (json_parser_load_from_file (parser, path, NULL)
        && (root = json_parser_get_root (parser)) != NULL && JSON_NODE_HOLDS_OBJECT (root)
        && (node = json_object_get_member (json_node_get_object (root), MXL_HISTORY_OPTION))
        && JSON_NODE_HOLDS_VALUE (node)
        && (json_node_get_value_type (node) == G_TYPE_INT64
            || json_node_get_value_type (node) == G_TYPE_DOUBLE)
        && json_node_get_double (node) >= 1 && json_node_get_double (node) < 1e18) {
      history = (uint64_t) json_node_get_double (node);
    } else {
      g_warning ("%s: ignored (not an object with a positive %s)", path, MXL_HISTORY_OPTION);
    }
  }
  g_object_unref (parser);
  g_free (path);
  return history;
}

mxlInstance
mxlCreateInstance (char const *in_mxlDomain, char const *in_options)
{
  char *real;
  struct stat st;
  mxlInstance inst;

  if (in_mxlDomain == NULL)
    return NULL;
  real = realpath (in_mxlDomain, NULL);
  if (real == NULL || stat (real, &st) != 0 || !S_ISDIR (st.st_mode)) {
    g_debug ("%s: not a directory, no MXL instance", in_mxlDomain);
    free (real);
    return NULL;
  }
  if (in_options != NULL && in_options[0] != '\0') {
    /* parsed for diagnostics only; the history is domain-wide (§1.9) */
    JsonParser *parser = json_parser_new_immutable ();
    if (!json_parser_load_from_data (parser, in_options, -1, NULL))
      g_warning ("MXL instance options are not JSON (ignored)");
    g_object_unref (parser);
  }
  inst = g_new0 (struct mxlInstance_t, 1);
  inst->domain = g_strdup (real);
  free (real);
  inst->history_ns = read_history (inst->domain);
  pthread_mutex_init (&inst->lock, NULL);
  inst->writers = g_hash_table_new (g_str_hash, g_str_equal);
  inst->readers = g_hash_table_new (g_str_hash, g_str_equal);
  inst->watches = g_hash_table_new (g_direct_hash, g_direct_equal);
  inst->inotify_fd = -1;
  inst->stop_fd = -1;
  return inst;
}

mxlStatus
mxlDestroyInstance (mxlInstance in_instance)
{
  GHashTableIter it;
  gpointer value;

  if (in_instance == NULL)
    return MXL_ERR_INVALID_ARG;
  pthread_mutex_lock (&in_instance->lock);
  g_hash_table_iter_init (&it, in_instance->writers);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    g_hash_table_iter_remove (&it);
    mxl_flow_writer_free (value);
  }
  g_hash_table_iter_init (&it, in_instance->readers);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    g_hash_table_iter_remove (&it);
    mxl_flow_reader_free (value);
  }
  pthread_mutex_unlock (&in_instance->lock);

  if (in_instance->watcher != NULL) {
    uint64_t one = 1;
    if (write (in_instance->stop_fd, &one, sizeof one) != sizeof one)
      g_warning ("cannot stop the access watcher");
    g_thread_join (in_instance->watcher);
  }
  if (in_instance->inotify_fd >= 0)
    close (in_instance->inotify_fd);
  if (in_instance->stop_fd >= 0)
    close (in_instance->stop_fd);
  g_hash_table_unref (in_instance->writers);
  g_hash_table_unref (in_instance->readers);
  g_hash_table_unref (in_instance->watches);
  pthread_mutex_destroy (&in_instance->lock);
  g_free (in_instance->domain);
  g_free (in_instance);
  return MXL_STATUS_OK;
}

/* ---- the access watcher (§1.11) ---- */

static gpointer
watcher_main (gpointer data)
{
  mxlInstance inst = data;
  char buf[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));

  for (;;) {
    struct pollfd fds[2] = {
      { .fd = inst->inotify_fd, .events = POLLIN },
      { .fd = inst->stop_fd, .events = POLLIN },
    };
    ssize_t len;

    if (poll (fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    if (fds[1].revents)
      break;
    len = read (inst->inotify_fd, buf, sizeof buf);
    if (len <= 0)
      continue;
    pthread_mutex_lock (&inst->lock);
    for (char *p = buf; p < buf + len;) {
      struct inotify_event *ev = (struct inotify_event *) p;
      mxlFlowWriter w = g_hash_table_lookup (inst->watches, GINT_TO_POINTER (ev->wd));

      if (w != NULL && (ev->mask & (IN_ACCESS | IN_ATTRIB)))
        __atomic_store_n (&w->map.data->info.runtime.lastReadTime, mxlGetTime (), __ATOMIC_RELAXED);
      p += sizeof (struct inotify_event) + ev->len;
    }
    pthread_mutex_unlock (&inst->lock);
  }
  return NULL;
}

/* Called with the instance lock held. Failures only stop lastReadTime. */
void
mxl_instance_watch_access (mxlInstance instance, mxlFlowWriter writer)
{
  char *path;

  if (instance->inotify_fd < 0) {
    instance->inotify_fd = inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);
    instance->stop_fd = eventfd (0, EFD_CLOEXEC);
    if (instance->inotify_fd < 0 || instance->stop_fd < 0) {
      g_warning ("no access watcher: %s", g_strerror (errno));
      return;
    }
    instance->watcher = g_thread_new ("mxl-access", watcher_main, instance);
  }
  path = g_build_filename (writer->map.dir, "access", NULL);
  writer->watch = inotify_add_watch (instance->inotify_fd, path, IN_ACCESS | IN_ATTRIB);
  g_free (path);
  if (writer->watch >= 0)
    g_hash_table_insert (instance->watches, GINT_TO_POINTER (writer->watch), writer);
}

/* Called with the instance lock held. */
void
mxl_instance_unwatch_access (mxlInstance instance, mxlFlowWriter writer)
{
  g_hash_table_remove (instance->watches, GINT_TO_POINTER (writer->watch));
  inotify_rm_watch (instance->inotify_fd, writer->watch);
  writer->watch = -1;
}

/* ---- liveness, garbage collection, definitions ---- */

/* Returns 1 when a writer holds the lock on @data_path, 0 when not, -1 when
 * the file cannot be opened (§1.7). */
static int
probe_active (const char *data_path)
{
  int fd = open (data_path, O_RDONLY | O_CLOEXEC | O_NOATIME);
  int active;

  if (fd < 0 && errno == EPERM)
    fd = open (data_path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  active = flock (fd, LOCK_EX | LOCK_NB) != 0;
  close (fd);
  return active;
}

mxlStatus
mxlIsFlowActive (mxlInstance instance, char const *flowId, bool *isActive)
{
  char id[37];
  char *dir, *data;
  int active;

  if (instance == NULL || flowId == NULL || isActive == NULL || !mxl_uuid_parse (flowId, NULL, id))
    return MXL_ERR_INVALID_ARG;
  dir = mxl_flow_dir_path (instance, id);
  data = g_build_filename (dir, "data", NULL);
  active = probe_active (data);
  g_free (data);
  g_free (dir);
  if (active < 0)
    return MXL_ERR_FLOW_NOT_FOUND;
  *isActive = active == 1;
  return MXL_STATUS_OK;
}

static gboolean
is_flow_dir_name (const char *name)
{
  size_t len = strlen (name), sfx = strlen (MXL_FLOW_DIR_SUFFIX);
  char stem[37];

  if (len != 36 + sfx || strcmp (name + 36, MXL_FLOW_DIR_SUFFIX) != 0)
    return FALSE;
  memcpy (stem, name, 36);
  stem[36] = '\0';
  return mxl_uuid_parse (stem, NULL, NULL);
}

mxlStatus
mxlGarbageCollectFlows (mxlInstance in_instance)
{
  DIR *d;
  struct dirent *e;
  time_t now = time (NULL);

  if (in_instance == NULL)
    return MXL_ERR_INVALID_ARG;
  d = opendir (in_instance->domain);
  if (d == NULL)
    return MXL_STATUS_OK;
  while ((e = readdir (d)) != NULL) {
    char *path, *data;
    struct stat st;

    if (is_flow_dir_name (e->d_name)) {
      path = g_build_filename (in_instance->domain, e->d_name, NULL);
      data = g_build_filename (path, "data", NULL);
      if (probe_active (data) == 0) {
        g_debug ("garbage collecting inactive flow %s", path);
        mxl_remove_tree (path);
      }
      g_free (data);
      g_free (path);
    } else if (g_str_has_prefix (e->d_name, MXL_FLOW_TMP_PREFIX)) {
      /* §1.4 [Q]: creators that crashed leave these; skip any still locked */
      path = g_build_filename (in_instance->domain, e->d_name, NULL);
      data = g_build_filename (path, "data", NULL);
      if (lstat (path, &st) == 0 && S_ISDIR (st.st_mode)
          && st.st_mtime + STALE_TMP_AGE_S < now && probe_active (data) != 1) {
        g_debug ("removing stale %s", path);
        mxl_remove_tree (path);
      }
      g_free (data);
      g_free (path);
    }
  }
  closedir (d);
  return MXL_STATUS_OK;
}

mxlStatus
mxlGetFlowDef (mxlInstance instance, char const *flowId, char *buffer,
    size_t *bufferSize)
{
  char id[37];
  char *dir, *path, *text = NULL;
  gsize len = 0;
  GError *error = NULL;
  mxlStatus st;

  if (instance == NULL || flowId == NULL || bufferSize == NULL || !mxl_uuid_parse (flowId, NULL, id))
    return MXL_ERR_INVALID_ARG;
  dir = mxl_flow_dir_path (instance, id);
  path = g_build_filename (dir, "flow_def.json", NULL);
  if (!g_file_get_contents (path, &text, &len, &error)) {
    st = g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT)
        || g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR)
        ? MXL_ERR_FLOW_NOT_FOUND : MXL_ERR_UNKNOWN;
    g_error_free (error);
  } else if (buffer == NULL || *bufferSize < len + 1) {
    *bufferSize = len + 1;
    st = MXL_ERR_INVALID_ARG;
  } else {
    memcpy (buffer, text, len);
    buffer[len] = '\0';
    *bufferSize = len + 1;
    st = MXL_STATUS_OK;
  }
  g_free (text);
  g_free (path);
  g_free (dir);
  return st;
}
