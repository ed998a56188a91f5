/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libfabric object wrappers with checked, mapped return codes. */
#include "fabrics/ofi/ofi.h"

#include <netinet/in.h>
#include <sys/random.h>
#include <string.h>

G_DEFINE_QUARK (mxl-ofi-error-quark, mxl_ofi_error)

mxlStatus
mxl_ofi_status (ssize_t rc)
{
  if (rc >= 0)
    return MXL_STATUS_OK;
  switch (-rc) {
    case FI_EINTR:
      return MXL_ERR_INTERRUPTED;
    case FI_EAGAIN:
      return MXL_ERR_NOT_READY;
    case FI_ENOSYS:
    case FI_EOPNOTSUPP:
      return MXL_ERR_UNSUPPORTED_OPERATION;
    case FI_ENODATA:
      return MXL_ERR_NO_FABRIC;
    default:
      return MXL_ERR_UNKNOWN;
  }
}

mxlStatus
mxl_ofi_fail (ssize_t rc, const char *what, GError **error)
{
  g_set_error (error, MXL_OFI_ERROR, (gint) -rc, "%s: %s (%zd)", what,
      fi_strerror ((int) -rc), rc);
  return rc < 0 ? mxl_ofi_status (rc) : MXL_ERR_UNKNOWN;
}

mxlStatus
mxl_ofi_domain_open (const struct fi_info *info, MxlOfiDomain **out,
    GError **error)
{
  MxlOfiDomain *dom = g_new0 (MxlOfiDomain, 1);
  int rc;

  dom->info = fi_dupinfo (info);
  if (dom->info == NULL) {
    g_free (dom);
    g_set_error (error, MXL_OFI_ERROR, FI_ENOMEM, "fi_dupinfo failed");
    return MXL_ERR_UNKNOWN;
  }
  dom->keys = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  rc = fi_fabric (dom->info->fabric_attr, &dom->fabric, NULL);
  if (rc != 0) {
    mxlStatus st = mxl_ofi_fail (rc, "fi_fabric", error);
    mxl_ofi_domain_close (dom);
    return st;
  }
  rc = fi_domain (dom->fabric, dom->info, &dom->domain, NULL);
  if (rc != 0) {
    mxlStatus st = mxl_ofi_fail (rc, "fi_domain", error);
    mxl_ofi_domain_close (dom);
    return st;
  }
  dom->virt_addr = (dom->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0;
  dom->prov_key = (dom->info->domain_attr->mr_mode & FI_MR_PROV_KEY) != 0;
  dom->key_size = dom->info->domain_attr->mr_key_size;
  if (dom->key_size == 0 || dom->key_size > 8)
    dom->key_size = 8;
  *out = dom;
  return MXL_STATUS_OK;
}

void
mxl_ofi_domain_close (MxlOfiDomain *dom)
{
  if (dom == NULL)
    return;
  mxl_ofi_close (dom->domain ? &dom->domain->fid : NULL, "domain");
  mxl_ofi_close (dom->fabric ? &dom->fabric->fid : NULL, "fabric");
  if (dom->info)
    fi_freeinfo (dom->info);
  if (dom->keys)
    g_hash_table_destroy (dom->keys);
  g_free (dom);
}

uint64_t
mxl_random_u64 (void)
{
  uint64_t v;

  /* The kernel's generator: GLib's global one is copied into every forked
   * process, which would give parent and children the same ids and keys. */
  if (getrandom (&v, sizeof (v), 0) == (ssize_t) sizeof (v))
    return v;
  return ((uint64_t) g_random_int () << 32) | g_random_int ();
}

uint64_t
mxl_ofi_random_key (GHashTable *keys, size_t key_size)
{
  uint64_t mask = key_size >= 8 ? UINT64_MAX : ((UINT64_C (1) << (8 * key_size)) - 1);

  for (;;) {
    uint64_t key = mxl_random_u64 () & mask;
    if (key != 0 && (keys == NULL || !g_hash_table_contains (keys, &key)))
      return key;
  }
}

static void
remember_key (MxlOfiDomain *dom, uint64_t key)
{
  gint64 *k = g_new (gint64, 1);
  *k = (gint64) key;
  g_hash_table_add (dom->keys, k);
}

mxlStatus
mxl_ofi_region_register (MxlOfiDomain *dom, void *base, size_t len,
    uint64_t access, MxlOfiRegion *out, GError **error)
{
  struct iovec iov = { .iov_base = base, .iov_len = len };
  gboolean remote;
  int rc = -FI_ENOKEY;

  memset (out, 0, sizeof (*out));
  /* A requested key that collides with one the provider already holds is
   * answered with -FI_ENOKEY: draw another (bounded). */
  for (int attempt = 0; attempt < 8 && rc == -FI_ENOKEY; attempt++) {
    struct fi_mr_attr attr;
    memset (&attr, 0, sizeof (attr));
    attr.mr_iov = &iov;
    attr.iov_count = 1;
    attr.access = access;
    attr.requested_key = mxl_ofi_random_key (dom->keys, dom->key_size);
    attr.iface = FI_HMEM_SYSTEM;
    rc = fi_mr_regattr (dom->domain, &attr, 0, &out->mr);
  }
  if (rc != 0)
    return mxl_ofi_fail (rc, "fi_mr_regattr", error);

  out->key = fi_mr_key (out->mr);
  remote = (access & (FI_REMOTE_WRITE | FI_REMOTE_READ)) != 0;
  if (!remote) {
    /* Local-only regions (sources of our writes) are never addressed by a
     * peer, so their key does not matter: libfabric 2.x tcp answers
     * FI_KEY_NOTAVAIL or repeats keys for them (fi_mr(3): keys identify
     * regions for remote access). */
    out->key = 0;
  } else if (out->key == FI_KEY_NOTAVAIL
      || g_hash_table_contains (dom->keys, &out->key)) {
    /* A provider key that repeats within the domain would let a peer write
     * into the wrong region: refuse it. */
    mxl_ofi_close (&out->mr->fid, "mr");
    memset (out, 0, sizeof (*out));
    g_set_error (error, MXL_OFI_ERROR, FI_ENOKEY,
        "memory region key unavailable or not unique in the domain");
    return MXL_ERR_INTERNAL;
  }
  if (remote)
    remember_key (dom, out->key);
  out->remote = remote;
  out->base = base;
  out->len = len;
  out->desc = fi_mr_desc (out->mr);
  out->remote_addr = dom->virt_addr ? (uint64_t) (uintptr_t) base : 0;
  return MXL_STATUS_OK;
}

void
mxl_ofi_region_close (MxlOfiDomain *dom, MxlOfiRegion *region)
{
  if (region == NULL || region->mr == NULL)
    return;
  if (region->remote)
    g_hash_table_remove (dom->keys, &region->key);
  mxl_ofi_close (&region->mr->fid, "mr");
  memset (region, 0, sizeof (*region));
}

mxlStatus
mxl_ofi_cq_open (MxlOfiDomain *dom, size_t depth, enum fi_wait_obj wait,
    struct fid_cq **out, GError **error)
{
  struct fi_cq_attr attr;
  int rc;

  memset (&attr, 0, sizeof (attr));
  attr.size = depth;
  attr.format = FI_CQ_FORMAT_DATA;
  attr.wait_obj = wait;
  attr.wait_cond = FI_CQ_COND_NONE;
  rc = fi_cq_open (dom->domain, &attr, out, NULL);
  if (rc != 0)
    return mxl_ofi_fail (rc, "fi_cq_open", error);
  return MXL_STATUS_OK;
}

mxlStatus
mxl_ofi_eq_open (MxlOfiDomain *dom, struct fid_eq **out, GError **error)
{
  struct fi_eq_attr attr;
  int rc;

  memset (&attr, 0, sizeof (attr));
  attr.size = 16;
  attr.wait_obj = FI_WAIT_UNSPEC;
  rc = fi_eq_open (dom->fabric, &attr, out, NULL);
  if (rc != 0)
    return mxl_ofi_fail (rc, "fi_eq_open", error);
  return MXL_STATUS_OK;
}

mxlStatus
mxl_ofi_av_open (MxlOfiDomain *dom, size_t count, struct fid_av **out,
    GError **error)
{
  struct fi_av_attr attr;
  int rc;

  memset (&attr, 0, sizeof (attr));
  attr.type = FI_AV_TABLE;
  attr.count = count;
  rc = fi_av_open (dom->domain, &attr, out, NULL);
  if (rc != 0)
    return mxl_ofi_fail (rc, "fi_av_open", error);
  return MXL_STATUS_OK;
}

void
mxl_ofi_close (struct fid *fid, const char *what)
{
  int rc;

  if (fid == NULL)
    return;
  rc = fi_close (fid);
  if (rc != 0)
    g_warning ("fi_close(%s): %s (%d)", what, fi_strerror (-rc), rc);
}

MxlCqRead
mxl_ofi_cq_read (struct fid_cq *cq, struct fi_cq_data_entry *buf, size_t count,
    int timeout_ms, size_t *out_n, struct fi_cq_err_entry *err, ssize_t *out_rc)
{
  ssize_t rc;

  *out_n = 0;
  *out_rc = 0;
  if (timeout_ms < 0)
    rc = fi_cq_read (cq, buf, count);
  else
    rc = fi_cq_sread (cq, buf, count, NULL, timeout_ms);
  if (rc > 0) {
    *out_n = (size_t) rc;
    return MXL_CQ_READ_ENTRIES;
  }
  if (rc == -FI_EAGAIN || rc == -FI_ETIMEDOUT || rc == 0)
    return MXL_CQ_READ_EMPTY;
  if (rc == -FI_EAVAIL) {
    ssize_t erc;
    memset (err, 0, sizeof (*err));
    erc = fi_cq_readerr (cq, err, 0);
    if (erc == 1) {
      err->err_data = NULL;
      err->err_data_size = 0;
      return MXL_CQ_READ_ERROR_ENTRY;
    }
    if (erc == -FI_EAGAIN)
      return MXL_CQ_READ_EMPTY;
    *out_rc = erc;
    return MXL_CQ_READ_FAILED;
  }
  *out_rc = rc;
  return MXL_CQ_READ_FAILED;
}

mxlStatus
mxl_ofi_eq_read (struct fid_eq *eq, int timeout_ms, MxlEqEvent *out)
{
  /* fi_eq_cm_entry plus room for CM private data (docs/wire-format.md §6.2: at most
   * a few bytes are sent; anything longer is truncated by libfabric). */
  union {
    struct fi_eq_cm_entry cm;
    uint8_t bytes[sizeof (struct fi_eq_cm_entry) + 256];
  } entry;
  uint32_t event = 0;
  ssize_t rc;

  memset (out, 0, sizeof (*out));
  if (timeout_ms < 0)
    rc = fi_eq_read (eq, &event, &entry, sizeof (entry), 0);
  else
    rc = fi_eq_sread (eq, &event, &entry, sizeof (entry), timeout_ms, 0);
  if (rc == -FI_EAGAIN || rc == -FI_ETIMEDOUT)
    return MXL_ERR_NOT_READY;
  if (rc == -FI_EAVAIL) {
    struct fi_eq_err_entry err;
    memset (&err, 0, sizeof (err));
    rc = fi_eq_readerr (eq, &err, 0);
    if (rc < 0)
      return rc == -FI_EAGAIN ? MXL_ERR_NOT_READY : mxl_ofi_status (rc);
    out->error = TRUE;
    out->fid = err.fid;
    out->err = err.err;
    /* err_data (the reject's private data) is the provider's, valid until
     * the next read (fi_eq(3), err_data_size 0 on input) */
    out->busy = err.err == FI_ECONNREFUSED && err.err_data != NULL
        && err.err_data_size >= sizeof (MXL_REJECT_BUSY)
        && memcmp (err.err_data, MXL_REJECT_BUSY, sizeof (MXL_REJECT_BUSY)) == 0;
    out->other_target = err.err == FI_ECONNREFUSED && err.err_data != NULL
        && err.err_data_size >= sizeof (MXL_REJECT_OTHER_TARGET)
        && memcmp (err.err_data, MXL_REJECT_OTHER_TARGET,
            sizeof (MXL_REJECT_OTHER_TARGET)) == 0;
    return MXL_STATUS_OK;
  }
  if (rc < 0)
    return mxl_ofi_status (rc);
  out->event = event;
  out->fid = entry.cm.fid;
  if (event == FI_CONNREQ) {
    out->info = entry.cm.info;
    if ((size_t) rc >= sizeof (entry.cm) + sizeof (uint64_t)) {
      uint64_t word;

      /* mxl_ofi_connect_data() */
      memcpy (&word, entry.cm.data, sizeof (uint64_t));
      word = GUINT64_FROM_LE (word);
      out->token = word & 0xFFFFFFFFu;
      out->target_check = (uint32_t) (word >> 32);
      out->has_target_check = TRUE;
    }
    /* a credit announce (docs/wire-format.md §11.7): a second u64 */
    if ((size_t) rc >= sizeof (entry.cm) + 2 * sizeof (uint64_t)) {
      uint64_t word;

      memcpy (&word, entry.cm.data + sizeof (uint64_t), sizeof (uint64_t));
      out->credit_id = GUINT64_FROM_LE (word);
    }
  }
  return MXL_STATUS_OK;
}

struct fi_info *
mxl_ofi_dup_info_any_port (const struct fi_info *info)
{
  struct fi_info *dup = fi_dupinfo (info);

  if (dup == NULL || dup->src_addr == NULL)
    return dup;
  if (dup->src_addrlen >= sizeof (struct sockaddr_in)
      && ((struct sockaddr *) dup->src_addr)->sa_family == AF_INET)
    ((struct sockaddr_in *) dup->src_addr)->sin_port = 0;
  else if (dup->src_addrlen >= sizeof (struct sockaddr_in6)
      && ((struct sockaddr *) dup->src_addr)->sa_family == AF_INET6)
    ((struct sockaddr_in6 *) dup->src_addr)->sin6_port = 0;
  return dup;
}
