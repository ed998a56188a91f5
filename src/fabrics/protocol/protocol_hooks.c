/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Test hooks (protocol_hooks.h). */
#include "fabrics/protocol/protocol_hooks.h"

#include "fabrics/protocol/initiator-state.h"

MxlHookOps mxl_hook_ops;

/* Pending faults per initiator: MxlInitiator* → Faults*. */
typedef struct Faults {
  guint count[2];
  int err[2];
} Faults;

static GMutex faults_lock;
static GHashTable *faults;         /* NULL while none is pending */
static gint armed;                 /* hooks set + initiators with faults */

static void
rearm (void)
{
  g_atomic_int_set (&armed, (mxl_hook_ops.send_header != NULL)
      + (mxl_hook_ops.tagged_piece != NULL)
      + (faults ? (gint) g_hash_table_size (faults) : 0));
}

gboolean
mxl_hooks_armed (void)
{
  return g_atomic_int_get (&armed) != 0;
}

void
mxl_send_debug_set_header_hook (MxlSendHeaderHook hook)
{
  g_mutex_lock (&faults_lock);
  mxl_hook_ops.send_header = hook;
  rearm ();
  g_mutex_unlock (&faults_lock);
}

void
mxl_tagged_debug_set_hook (MxlTaggedHook hook)
{
  g_mutex_lock (&faults_lock);
  mxl_hook_ops.tagged_piece = hook;
  rearm ();
  g_mutex_unlock (&faults_lock);
}

void
mxl_initiator_debug_inject (MxlInitiator *init, MxlInjectKind kind, guint count,
    int fi_err)
{
  Faults *f;

  g_mutex_lock (&faults_lock);
  if (faults == NULL)
    faults = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  f = g_hash_table_lookup (faults, init);
  if (f == NULL) {
    f = g_new0 (Faults, 1);
    g_hash_table_insert (faults, init, f);
  }
  f->count[kind] = count;
  f->err[kind] = fi_err;
  if (f->count[0] == 0 && f->count[1] == 0)
    g_hash_table_remove (faults, init);
  rearm ();
  g_mutex_unlock (&faults_lock);
}

gboolean
mxl_hooks_take_fault (const MxlInitiator *init, guint kind, int *out_err)
{
  gboolean taken = FALSE;
  Faults *f;

  g_mutex_lock (&faults_lock);
  f = faults ? g_hash_table_lookup (faults, init) : NULL;
  if (f != NULL && f->count[kind] > 0) {
    f->count[kind]--;
    *out_err = f->err[kind];
    taken = TRUE;
    if (f->count[0] == 0 && f->count[1] == 0) {
      g_hash_table_remove (faults, init);
      rearm ();
    }
  }
  g_mutex_unlock (&faults_lock);
  return taken;
}

void
mxl_hooks_forget (const MxlInitiator *init)
{
  g_mutex_lock (&faults_lock);
  if (faults != NULL && g_hash_table_remove (faults, init))
    rearm ();
  g_mutex_unlock (&faults_lock);
}

ssize_t
mxl_hooks_post (MxlConn *conn, MxlTransfer *t, const struct iovec *iov, void **desc,
    guint n_iov, MxlWriteCtx *ctx)
{
  int err = 0;

  if (mxl_hooks_take_fault (conn->init, MXL_INJECT_POST_FAILURE, &err))
    return -err;
  if (conn->protocol->post_hooked != NULL)
    return conn->protocol->post_hooked (conn, t, iov, desc, n_iov, ctx);
  return conn->post (conn, t, iov, desc, n_iov, ctx);
}
