/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Helpers of the fabrics engine tests: one MXL domain + fabrics instance
 * per side, flow fixtures, provider availability (tests skip with a clear
 * message only when a provider is absent), bounded polling loops, and child
 * processes that are always reaped or killed by PID.
 */
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mxl/fabrics.h>
#include <mxl/fabrics-ext.h>
#include <mxl/flow.h>

#include "fabrics/initiator.h"
#include "fabrics/ofi/provider.h"
#include "fabrics/target.h"
#include "fabrics/wire/targetinfo.h"
#include "flowtest.h"

#define FAB_CAPS (MXL_FABRICS_IFACE_CAP_REMOTE_WRITE | MXL_FABRICS_IFACE_CAP_BLOCKING_OPERATIONS)

/* One side of a transfer: its own domain, MXL instance, fabrics instance,
 * and a flow (writer, plus a reader for initiators and checks). */
typedef struct FabSide {
  char *domain;
  mxlInstance mxl;
  mxlFabricsInstance fab;
  mxlFlowWriter writer;
  mxlFlowReader reader;
  char *flow_id;
} FabSide;

static inline char *
fabtest_v210_def (const char *id, const char *media_type, int width, int height)
{
  return flowtest_video_def (id, media_type, width, height, 30000, 1001, "progressive");
}

/* Domains are named after the process so that a parent can remove those
 * of a child it killed (fabtest_cleanup_pid()). */
static inline char *
fabtest_domain_new (void)
{
  char *path = g_strdup_printf ("/dev/shm/mxl-fabtest-%d-XXXXXX", (int) getpid ());

  g_assert_nonnull (g_mkdtemp (path));
  return path;
}

/* Removes what a SIGKILLed child left in /dev/shm: its MXL domains and its
 * shm endpoint files (docs/libfabric-notes.md P12). */
static inline void
fabtest_cleanup_pid (pid_t pid)
{
  GDir *dir = g_dir_open ("/dev/shm", 0, NULL);
  char *domain_prefix = g_strdup_printf ("mxl-fabtest-%d-", (int) pid);
  char *ep_prefix = g_strdup_printf (MXL_FABRICS_EXT_SHM_NODE_PREFIX "%d-", (int) pid);
  const char *name;

  while (dir && (name = g_dir_read_name (dir)) != NULL) {
    char *path = g_build_filename ("/dev/shm", name, NULL);
    if (g_str_has_prefix (name, domain_prefix))
      mxl_remove_tree (path);
    else if (g_str_has_prefix (name, ep_prefix))
      g_unlink (path);
    g_free (path);
  }
  if (dir)
    g_dir_close (dir);
  g_free (domain_prefix);
  g_free (ep_prefix);
}

/* @domain_options: (nullable) written to the domain's options.json before
 * the instance reads it (e.g. a history duration, which sets an audio
 * flow's ring length); @writer_options: (nullable) flow writer options. */
static inline void
fabtest_side_init_full (FabSide *s, const char *flow_def, const char *flow_id,
    const char *domain_options, const char *writer_options)
{
  memset (s, 0, sizeof (*s));
  s->domain = fabtest_domain_new ();
  if (domain_options != NULL) {
    char *path = g_build_filename (s->domain, "options.json", NULL);
    g_assert_true (g_file_set_contents (path, domain_options, -1, NULL));
    g_free (path);
  }
  s->mxl = mxlCreateInstance (s->domain, NULL);
  g_assert_nonnull (s->mxl);
  g_assert_cmpint (mxlFabricsCreateInstance (s->mxl, NULL, &s->fab), ==, MXL_STATUS_OK);
  if (flow_def != NULL) {
    g_assert_cmpint (mxlCreateFlowWriter (s->mxl, flow_def, writer_options, &s->writer, NULL,
        NULL), ==, MXL_STATUS_OK);
    g_assert_cmpint (mxlCreateFlowReader (s->mxl, flow_id, NULL, &s->reader), ==, MXL_STATUS_OK);
    s->flow_id = g_strdup (flow_id);
  }
}

static inline void
fabtest_side_init (FabSide *s, const char *flow_def, const char *flow_id)
{
  fabtest_side_init_full (s, flow_def, flow_id, NULL, NULL);
}

static inline void
fabtest_side_clear (FabSide *s)
{
  g_assert_cmpint (mxlFabricsDestroyInstance (s->fab), ==, MXL_STATUS_OK);
  if (s->reader)
    g_assert_cmpint (mxlReleaseFlowReader (s->mxl, s->reader), ==, MXL_STATUS_OK);
  if (s->writer)
    g_assert_cmpint (mxlReleaseFlowWriter (s->mxl, s->writer), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlDestroyInstance (s->mxl), ==, MXL_STATUS_OK);
  flowtest_domain_free (s->domain);
  g_free (s->flow_id);
  memset (s, 0, sizeof (*s));
}

/* Provider under test: an API provider plus bind addresses for both roles. */
typedef struct FabProv {
  const char *label;
  mxlFabricsProvider provider;
  gboolean shm;
} FabProv;

static const FabProv fab_tcp = { "tcp", MXL_FABRICS_PROVIDER_TCP, FALSE };
static const FabProv fab_rxm = { "tcp;ofi_rxm", MXL_FABRICS_EXT_PROVIDER_TCP_RXM, FALSE };
static const FabProv fab_shm = { "shm", MXL_FABRICS_PROVIDER_SHM, TRUE };

/* Interface config for @role. shm names are unique per process and call so
 * that parallel tests never share an endpoint name, and carry a random part
 * so that a file left in /dev/shm by a killed process whose pid is reused
 * cannot make fi_enable fail with EBUSY. */
static inline mxlFabricsInterfaceConfig
fabtest_iface (const FabProv *p, MxlRole role, char **name_out)
{
  static guint counter;
  mxlFabricsInterfaceConfig c;

  memset (&c, 0, sizeof (c));
  c.provider = p->provider;
  c.caps.flags = FAB_CAPS;
  if (p->shm) {
    /* the elements' form (MXL_FABRICS_EXT_SHM_NODE_PREFIX "<pid>-"), so
     * that the next setup sweeps what a killed test process left */
    *name_out = g_strdup_printf (MXL_FABRICS_EXT_SHM_NODE_PREFIX "%d-%s%u-%08x",
        (int) getpid (), role == MXL_ROLE_TARGET ? "tgt" : "ini", ++counter,
        g_random_int ());
    c.address.node = *name_out;
    c.address.service = "engine";
  } else {
    *name_out = NULL;
    c.address.node = "127.0.0.1";
    c.address.service = NULL;
  }
  return c;
}

/* TRUE when @p can be set up here; otherwise the test is skipped with the
 * reason (providers are only skipped when absent). */
static inline gboolean
fabtest_require (const FabProv *p)
{
  char *name = NULL;
  mxlFabricsInterfaceConfig c = fabtest_iface (p, MXL_ROLE_TARGET, &name);
  struct fi_info *info = NULL;
  g_autoptr (GError) error = NULL;
  mxlStatus st = mxl_provider_getinfo_exact (&c, MXL_ROLE_TARGET,
      mxl_protocol_lookup ("write")->caps[MXL_ROLE_TARGET], &info, &error);

  g_free (name);
  if (st == MXL_STATUS_OK) {
    fi_freeinfo (info);
    return TRUE;
  }
  {
    char *msg = g_strdup_printf ("provider %s not available here: %s", p->label,
        error ? error->message : "?");
    g_test_skip (msg);
    g_free (msg);
  }
  return FALSE;
}

/* The target's setup options with the protocol of the meson test
 * parameter MXL_TEST_PROTOCOL ("write", "send", "tagged") added, when it is set. */
static inline char *
fabtest_target_options (const char *options)
{
  const char *proto = g_getenv ("MXL_TEST_PROTOCOL");
  const char *rest;

  if (proto == NULL || *proto == '\0')
    return g_strdup (options);
  if (options == NULL || strchr (options, '{') == NULL)
    return g_strdup_printf ("{\"protocol\": \"%s\"}", proto);
  rest = strchr (options, '{') + 1;
  while (g_ascii_isspace (*rest))
    rest++;
  return g_strdup_printf ("{\"protocol\": \"%s\"%s%s", proto, *rest == '}' ? "" : ", ",
      rest);
}

static inline mxlFabricsTarget
fabtest_target (FabSide *s, const FabProv *p, const char *target_options,
    mxlFabricsTargetInfo *out_info)
{
  g_autofree char *options = fabtest_target_options (target_options);
  char *name = NULL;
  mxlFabricsTargetConfig cfg;
  mxlFabricsTarget t;

  memset (&cfg, 0, sizeof (cfg));
  cfg.interface = fabtest_iface (p, MXL_ROLE_TARGET, &name);
  cfg.writer = s->writer;
  g_assert_cmpint (mxlFabricsCreateTarget (s->fab, &t), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsTargetSetup (t, &cfg, options, out_info), ==, MXL_STATUS_OK);
  g_free (name);
  if (g_getenv ("MXL_TEST_PROTOCOL") != NULL && *g_getenv ("MXL_TEST_PROTOCOL") != '\0') {
    /* The parameter took effect: the TargetInfo advertises it. */
    g_assert_cmpstr (mxl_target_info_protocol (*out_info), ==,
        g_getenv ("MXL_TEST_PROTOCOL"));
    g_assert_true (((MxlTarget *) t)->ingress == &mxl_send_ingress_ops
        || g_strcmp0 ((*out_info)->protocol, "send") != 0);
  }
  return t;
}

static inline mxlFabricsInitiator
fabtest_initiator (FabSide *s, const FabProv *p, const char *options)
{
  char *name = NULL;
  mxlFabricsInitiatorConfig cfg;
  mxlFabricsInitiator i;

  memset (&cfg, 0, sizeof (cfg));
  cfg.interface = fabtest_iface (p, MXL_ROLE_INITIATOR, &name);
  cfg.reader = s->reader;
  g_assert_cmpint (mxlFabricsCreateInitiator (s->fab, &i), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFabricsInitiatorSetup (i, &cfg, options), ==, MXL_STATUS_OK);
  g_free (name);
  return i;
}

/* Drives both sides until the initiator reports OK (all connected, nothing
 * in flight); at most @timeout_ms. Target reads must see nothing. */
static inline void
fabtest_connect (mxlFabricsInitiator init, mxlFabricsTarget *targets, guint n_targets,
    gboolean blocking, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  for (;;) {
    mxlStatus st;
    for (guint i = 0; i < n_targets; i++) {
      uint64_t index;
      mxlStatus rs = blocking ? mxlFabricsTargetReadGrain (targets[i], 5, &index)
          : mxlFabricsTargetReadGrainNonBlocking (targets[i], &index);
      g_assert_cmpint (rs, ==, MXL_ERR_NOT_READY);
    }
    st = blocking ? mxlFabricsInitiatorMakeProgressBlocking (init, 5)
        : mxlFabricsInitiatorMakeProgressNonBlocking (init);
    if (st == MXL_STATUS_OK)
      return;
    g_assert_cmpint (st, ==, MXL_ERR_NOT_READY);
    g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    if (!blocking)
      g_usleep (500);
  }
}

/* Writes grain @index of the side's flow: every payload byte derived from
 * @index and @seed; commits all slices (or an invalid grain). Returns the
 * payload pointer. */
static inline uint8_t *
fabtest_write_grain (FabSide *s, uint64_t index, uint8_t seed, gboolean invalid)
{
  mxlGrainInfo gi;
  uint8_t *payload = NULL;

  g_assert_cmpint (mxlFlowWriterOpenGrain (s->writer, index, &gi, &payload), ==, MXL_STATUS_OK);
  {
    uint64_t pattern = (index * 0x9E3779B97F4A7C15ull) ^ ((uint64_t) seed << 56) ^ 0x0123456789ABCDEFull;
    uint64_t *w = (uint64_t *) payload;
    for (size_t k = 0; k < gi.grainSize / 8; k++)
      w[k] = pattern + k;
  }
  gi.validSlices = gi.totalSlices;
  gi.flags = invalid ? MXL_GRAIN_FLAG_INVALID : 0;
  g_assert_cmpint (mxlFlowWriterCommitGrain (s->writer, &gi), ==, MXL_STATUS_OK);
  return payload;
}

/* Writes samples [@head - @count, @head) of every channel of the side's
 * (audio) flow, sample k of channel c being @value (c, k), and commits. */
static inline void
fabtest_write_samples (FabSide *s, uint64_t head, uint64_t count,
    uint32_t (*value) (uint32_t c, uint64_t k))
{
  mxlMutableWrappedMultiBufferSlice sl;

  g_assert_cmpint (mxlFlowWriterOpenSamples (s->writer, head, count, &sl), ==, MXL_STATUS_OK);
  for (uint32_t c = 0; c < sl.count; c++) {
    uint64_t k = head - count;
    for (guint f = 0; f < 2; f++) {
      uint32_t *p = (uint32_t *) ((uint8_t *) sl.base.fragments[f].pointer + c * sl.stride);
      for (size_t i = 0; i < sl.base.fragments[f].size / 4; i++)
        p[i] = value (c, k++);
    }
    g_assert_cmpuint (k, ==, head);
  }
  g_assert_cmpint (mxlFlowWriterCommitSamples (s->writer), ==, MXL_STATUS_OK);
}

/* Checksum of a grain's payload as the side's reader sees it. */
static inline char *
fabtest_grain_digest (FabSide *s, uint64_t index, uint16_t *out_valid)
{
  mxlGrainInfo gi;
  uint8_t *payload = NULL;
  mxlStatus st = mxlFlowReaderGetGrainSliceNonBlocking (s->reader, index,
      MXL_GRAIN_VALID_SLICES_ANY, &gi, &payload);

  g_assert_cmpint (st, ==, MXL_STATUS_OK);
  g_assert_cmpuint (gi.index, ==, index);
  if (out_valid)
    *out_valid = gi.validSlices;
  return g_compute_checksum_for_data (G_CHECKSUM_MD5, payload, gi.grainSize);
}

/* Reads the target until one grain arrives, driving the initiator too.
 * Returns the read status (OK or an error other than NOT_READY). */
static inline mxlStatus
fabtest_read_one (mxlFabricsTarget t, mxlFabricsInitiator init, gboolean blocking,
    uint64_t *out_index, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  for (;;) {
    mxlStatus st = blocking ? mxlFabricsTargetReadGrain (t, 5, out_index)
        : mxlFabricsTargetReadGrainNonBlocking (t, out_index);
    if (st != MXL_ERR_NOT_READY)
      return st;
    if (init != NULL) {
      mxlStatus ps = mxlFabricsInitiatorMakeProgressNonBlocking (init);
      g_assert_true (ps == MXL_STATUS_OK || ps == MXL_ERR_NOT_READY);
    }
    if (g_get_monotonic_time () > deadline)
      return MXL_ERR_TIMEOUT;
    if (!blocking)
      g_usleep (200);
  }
}

/* ---- child processes ---- */

static inline int
fabtest_wait_child (pid_t pid, int timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  int status = 0;

  for (;;) {
    pid_t r = waitpid (pid, &status, WNOHANG);
    if (r == pid)
      return status;
    g_assert_cmpint (r, ==, 0);
    if (g_get_monotonic_time () > deadline) {
      kill (pid, SIGKILL);
      waitpid (pid, &status, 0);
      fabtest_cleanup_pid (pid);
      g_error ("child %d did not finish within %d ms: killed", (int) pid, timeout_ms);
    }
    g_usleep (2000);
  }
}

static inline void
fabtest_assert_exit_ok (int status)
{
  if (!WIFEXITED (status))
    g_error ("child died by signal %d", WTERMSIG (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
}

static inline gboolean
fabtest_read_full (int fd, void *buf, size_t len, int timeout_ms)
{
  size_t done = 0;

  while (done < len) {
    struct pollfd p = { .fd = fd, .events = POLLIN };
    ssize_t n;

    if (poll (&p, 1, timeout_ms) <= 0)
      return FALSE;
    n = read (fd, (char *) buf + done, len - done);
    if (n <= 0)
      return FALSE;
    done += (size_t) n;
  }
  return TRUE;
}

static inline gboolean
fabtest_write_full (int fd, const void *buf, size_t len)
{
  return write (fd, buf, len) == (ssize_t) len;
}

/* Sends a TargetInfo as length-prefixed JSON over a pipe. */
static inline gboolean
fabtest_send_info (int fd, mxlFabricsTargetInfo info)
{
  size_t size = 0;
  char *text;
  uint32_t len;
  gboolean ok;

  if (mxlFabricsTargetInfoToString (info, NULL, &size) != MXL_STATUS_OK)
    return FALSE;
  text = g_malloc (size);
  if (mxlFabricsTargetInfoToString (info, text, &size) != MXL_STATUS_OK) {
    g_free (text);
    return FALSE;
  }
  len = (uint32_t) strlen (text);
  ok = fabtest_write_full (fd, &len, sizeof len) && fabtest_write_full (fd, text, len);
  g_free (text);
  return ok;
}

static inline mxlFabricsTargetInfo
fabtest_recv_info (int fd, int timeout_ms)
{
  mxlFabricsTargetInfo info = NULL;
  uint32_t len;
  char *text;

  if (!fabtest_read_full (fd, &len, sizeof len, timeout_ms) || len > (1u << 24))
    return NULL;
  text = g_malloc0 (len + 1);
  if (fabtest_read_full (fd, text, len, timeout_ms))
    mxlFabricsTargetInfoFromString (text, &info);
  g_free (text);
  return info;
}
