/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The receive ring (rxring.h) and its untagged receive ops. */
#include "fabrics/protocol/rxring.h"

mxlStatus
mxl_rx_ring_open (MxlRxRing *r, MxlOfiDomain *dom, guint n, size_t entry_size,
    GError **error)
{
  r->n = n;
  r->entry_size = entry_size;
  r->buf = g_malloc0 (entry_size * n);
  r->ctx = g_new0 (struct fi_context2, n);
  return mxl_ofi_region_register (dom, r->buf, entry_size * n, FI_RECV, &r->region,
      error);
}

void
mxl_rx_ring_close (MxlRxRing *r, MxlOfiDomain *dom)
{
  if (dom != NULL)
    mxl_ofi_region_close (dom, &r->region);
  g_clear_pointer (&r->buf, g_free);
  g_clear_pointer (&r->ctx, g_free);
  r->n = 0;
}

static mxlStatus
untagged_post_all (MxlTarget *t, struct fid_ep *ep)
{
  const MxlRxRing *r = t->pstate->ring;

  for (guint i = 0; i < r->n; i++) {
    ssize_t rc = fi_recv (ep, mxl_rx_ring_entry (r, i), r->entry_size, r->region.desc,
        FI_ADDR_UNSPEC, &r->ctx[i]);
    if (rc != 0) {
      g_warning ("fi_recv: %s (%zd)", fi_strerror ((int) -rc), rc);
      return mxl_ofi_status (rc);
    }
  }
  return MXL_STATUS_OK;
}

static void
untagged_repost (MxlTarget *t, void *op_context)
{
  const MxlRxRing *r = t->pstate->ring;
  gint i = mxl_rx_ring_index (r, op_context);
  ssize_t rc;

  if (i < 0)
    return;
  rc = fi_recv (t->pstate->rx_ep, mxl_rx_ring_entry (r, (guint) i), r->entry_size,
      r->region.desc, FI_ADDR_UNSPEC, op_context);
  if (rc != 0)
    g_warning ("fi_recv (re-post): %s", fi_strerror ((int) -rc));
}

const MxlRxOps mxl_rx_ring_untagged_ops = { untagged_post_all, untagged_repost,
  untagged_repost };
