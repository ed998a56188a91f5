/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Test hooks (protocol_hooks.h), in the test build only. */
#include "fabrics/protocol/protocol_hooks.h"

#include <pthread.h>
#include <string.h>

#include "fabrics/protocol/initiator-state.h"

/* Pending faults per initiator: MxlInitiator* → Faults*. */
typedef struct Faults {
  guint count[2];
  int err[2];
} Faults;

/* Locks are POSIX, as MxlLock (progress.h): ThreadSanitizer sees them. */

/* Held while a process-wide hook is carried to the initiators and while
 * one is forgotten, so that none is destroyed while it is reached. Outer
 * lock: taken before any init->lock. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

/* The hook ops table, the faults and the initiators process-wide hooks
 * reach. Inner lock: taken under init->lock. */
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static MxlHookOps hook_ops;
static GHashTable *faults;         /* NULL while none is pending */
/* The set (MxlInitiator*) of those with a connection of a protocol that
 * has hooks (hooked_posts), joined when such a connection becomes
 * connected (mxl_hooks_conn_post()), left when destroyed: an initiator
 * whose connections all use write never joins. NULL while empty. */
static GHashTable *initiators;

MxlSendHeaderHook
mxl_hooks_send_header (void)
{
  MxlSendHeaderHook hook;

  pthread_mutex_lock (&state_lock);
  hook = hook_ops.send_header;
  pthread_mutex_unlock (&state_lock);
  return hook;
}

MxlTaggedHook
mxl_hooks_tagged_piece (void)
{
  MxlTaggedHook hook;

  pthread_mutex_lock (&state_lock);
  hook = hook_ops.tagged_piece;
  pthread_mutex_unlock (&state_lock);
  return hook;
}

/* Pending faults of @kind for @init, state_lock held. */
static guint
pending (const MxlInitiator *init, guint kind)
{
  Faults *f = faults ? g_hash_table_lookup (faults, init) : NULL;

  return f ? f->count[kind] : 0;
}

/* Takes one injected fault of @kind for @init: TRUE and the positive fi
 * errno in @out_err; @out_last: it was the last of its kind. */
static gboolean
take_fault (const MxlInitiator *init, guint kind, int *out_err, gboolean *out_last)
{
  gboolean taken = FALSE;
  Faults *f;

  pthread_mutex_lock (&state_lock);
  f = faults ? g_hash_table_lookup (faults, init) : NULL;
  if (f != NULL && f->count[kind] > 0) {
    f->count[kind]--;
    *out_err = f->err[kind];
    *out_last = f->count[kind] == 0;
    taken = TRUE;
    if (f->count[0] == 0 && f->count[1] == 0)
      g_hash_table_remove (faults, init);
  }
  pthread_mutex_unlock (&state_lock);
  return taken;
}

static void reinstall (MxlInitiator *init);

/* The protocols that have hooks, by the name their descriptor carries
 * (MxlProtocolDesc.name, unique in the table: protocol.h), and the hooked
 * twin of their post. */
static const struct {
  const char *protocol;
  MxlTransportPost hooked;
} hooked_posts[] = {
  { "send", mxl_send_post_hooked },
  { "tagged", mxl_tagged_post_hooked },
};

/* The hooked twin of @protocol's post, or NULL (it has no hooks). */
static MxlTransportPost
hooked_twin (const MxlProtocolDesc *protocol)
{
  for (guint i = 0; i < G_N_ELEMENTS (hooked_posts); i++)
    if (strcmp (hooked_posts[i].protocol, protocol->name) == 0)
      return hooked_posts[i].hooked;
  return NULL;
}

/* The wrapper installed while a hook concerns the connection: injected
 * post failures first, then the protocol's hooked post. */
static ssize_t
hooked_post (MxlConn *conn, MxlTransfer *t, const struct iovec *iov, void **desc,
    guint n_iov, MxlWriteCtx *ctx)
{
  MxlTransportPost twin = hooked_twin (conn->protocol);
  gboolean last = FALSE;
  int err = 0;

  if (take_fault (conn->init, MXL_INJECT_POST_FAILURE, &err, &last)) {
    if (last)
      reinstall (conn->init);
    return -err;
  }
  if (twin != NULL)
    return twin (conn, t, iov, desc, n_iov, ctx);
  return conn->protocol->post (conn, t, iov, desc, n_iov, ctx);
}

void
mxl_hooks_completion_fault (const MxlInitiator *init, const void *op_context,
    gboolean *ok, int *err)
{
  const MxlWriteCtx *ctx = op_context;
  gboolean last = FALSE;

  if (*ok && ctx >= init->ctx_pool && ctx < init->ctx_pool + init->ctx_count
      && ctx->in_use && ctx->transfer_seq < MXL_CTX_SEQ_EOS
      && take_fault (init, MXL_INJECT_ERROR_COMPLETION, err, &last))
    *ok = FALSE;
}

MxlTransportPost
mxl_hooks_conn_post (MxlConn *conn)
{
  gboolean hookable = hooked_twin (conn->protocol) != NULL;
  gboolean hooked;

  pthread_mutex_lock (&state_lock);
  /* process-wide hooks armed later must reach this connection */
  if (hookable) {
    if (initiators == NULL)
      initiators = g_hash_table_new (g_direct_hash, g_direct_equal);
    g_hash_table_add (initiators, conn->init);
  }
  hooked = pending (conn->init, MXL_INJECT_POST_FAILURE) > 0
      || (hookable
          && (hook_ops.send_header != NULL || hook_ops.tagged_piece != NULL));
  pthread_mutex_unlock (&state_lock);
  return hooked ? hooked_post : conn->protocol->post;
}

/* Installs the post that the hooks armed now call for on every connection,
 * init->lock held (or the initiator's one driving thread). */
static void
reinstall (MxlInitiator *init)
{
  for (guint i = 0; init->conns != NULL && i < init->conns->len; i++) {
    MxlConn *c = g_ptr_array_index (init->conns, i);
    if (c->post != NULL)
      c->post = mxl_hooks_conn_post (c);
  }
}

static void
reinstall_locked (MxlInitiator *init)
{
  mxl_lock (&init->base.lock);
  reinstall (init);
  mxl_unlock (&init->base.lock);
}

void
mxl_hooks_forget (const MxlInitiator *init)
{
  pthread_mutex_lock (&registry_lock);
  pthread_mutex_lock (&state_lock);
  if (initiators != NULL && g_hash_table_remove (initiators, init)
      && g_hash_table_size (initiators) == 0)
    g_clear_pointer (&initiators, g_hash_table_destroy);
  if (faults != NULL)
    g_hash_table_remove (faults, init);
  pthread_mutex_unlock (&state_lock);
  pthread_mutex_unlock (&registry_lock);
}

/* A process-wide hook changed: the connections of every initiator it can
 * concern. The set is copied (init->lock is taken outside state_lock);
 * registry_lock keeps each of them from being forgotten, and so
 * destroyed, meanwhile. */
static void
reinstall_all (void)
{
  GList *inits = NULL;

  pthread_mutex_lock (&registry_lock);
  pthread_mutex_lock (&state_lock);
  if (initiators != NULL)
    inits = g_hash_table_get_keys (initiators);
  pthread_mutex_unlock (&state_lock);
  for (GList *l = inits; l != NULL; l = l->next)
    reinstall_locked (l->data);
  pthread_mutex_unlock (&registry_lock);
  g_list_free (inits);
}

void
mxl_send_debug_set_header_hook (MxlSendHeaderHook hook)
{
  pthread_mutex_lock (&state_lock);
  hook_ops.send_header = hook;
  pthread_mutex_unlock (&state_lock);
  reinstall_all ();
}

void
mxl_tagged_debug_set_hook (MxlTaggedHook hook)
{
  pthread_mutex_lock (&state_lock);
  hook_ops.tagged_piece = hook;
  pthread_mutex_unlock (&state_lock);
  reinstall_all ();
}

void
mxl_initiator_debug_inject (MxlInitiator *init, MxlInjectKind kind, guint count,
    int fi_err)
{
  Faults *f;

  pthread_mutex_lock (&state_lock);
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
  pthread_mutex_unlock (&state_lock);
  reinstall_locked (init);
}

/* Setup's getinfo while capabilities are masked. */
static mxlStatus
masked_getinfo (const mxlFabricsInterfaceConfig *config, MxlRole role, uint64_t caps,
    struct fi_info **out_info, GError **error)
{
  uint64_t mask;
  mxlStatus st;

  pthread_mutex_lock (&state_lock);
  mask = hook_ops.caps_mask;
  pthread_mutex_unlock (&state_lock);
  /* A masked capability is one the provider does not have: no match. */
  if (caps & mask) {
    mxl_ofi_fail (-FI_ENODATA, "fi_getinfo", error);
    return MXL_ERR_NO_FABRIC;
  }
  st = mxl_provider_getinfo_exact (config, role, caps, out_info, error);
  if (st == MXL_STATUS_OK)
    (*out_info)->caps &= ~mask;
  return st;
}

MxlGetinfoFn
mxl_hooks_getinfo (void)
{
  gboolean masked;

  pthread_mutex_lock (&state_lock);
  masked = hook_ops.caps_mask != 0;
  pthread_mutex_unlock (&state_lock);
  return masked ? masked_getinfo : mxl_provider_getinfo_exact;
}

void
mxl_setup_debug_mask_caps (uint64_t caps)
{
  pthread_mutex_lock (&state_lock);
  hook_ops.caps_mask = caps;
  pthread_mutex_unlock (&state_lock);
}
