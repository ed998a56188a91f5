/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Connectionless (FI_EP_RDM) initiator: shm, efa, tcp;ofi_rxm. A target
 * becomes usable as soon as its address is in the address vector (docs/wire-format.md
 * §6.5). A target that vanished is noticed through error completions
 * or writes that stop completing (MXL_CONN_STALL_MS).
 *
 * shm gets one endpoint and address vector per connection, opened when the
 * connection opens and closed when it is left; the other providers share
 * one. Why: libfabric 1.17 shm completes an endpoint's sends and
 * delivery-complete writes strictly in posting order, from a response
 * queue in its own region that the peer updates once it has processed the
 * command (prov/shm/src/smr_progress.c, smr_progress_resp()). A receiver
 * that stops or is killed before it processed one leaves that response
 * busy forever, and every later completion of the endpoint, to any peer,
 * waits behind it: a restarted receiver then got a few grains (as many as
 * the sender's local ring holds) and nothing more. Closing the endpoint
 * drops that queue; a fresh one per connection also never needs
 * fi_av_remove(), which corrupts the endpoint on 1.17 (see rdm_close()).
 */
#include "fabrics/initiator_claim.h"
#include "fabrics/initiator_credit.h"
#include "fabrics/initiator_park.h"

#include <string.h>
#include <unistd.h>

#include "fabrics/wire/claim.h"
#include "fabrics/ofi/address.h"
#include "fabrics/ofi/shmstale.h"

#include <mxl/fabrics-ext.h>

/* The connectionless initiator's own state (init->type_state). */
typedef struct MxlRdmInitiator {
  MxlInitiatorTypeState base;
  /* the shared endpoint and its address vector, bound to the CQ; NULL
   * when every connection opens its own (shm, rdm_open()) */
  struct fid_ep *ep;
  struct fid_av *av;
  /* the claim token every connection claims with (claim.h: random, bit
   * 63 clear, not 0; shm: the process id in bits 32..62) */
  uint64_t claim_token;
  GHashTable *shm_holds;     /* shm: struct fid_ep* → MxlShmHold*, one per
                                enabled endpoint (shmstale.h), NULL = none */
  MxlParking *parked;        /* initiator_park.h, NULL = none yet */
} MxlRdmInitiator;

/* What the operations of a connection's current endpoint met so far;
 * changed only by request_transition(). */
typedef enum MxlEpRequest {
  MXL_REQUEST_NONE,          /* none tried */
  MXL_REQUEST_REFUSED,       /* refused (-FI_EAGAIN) only: a shm target
                                has the endpoint's connection request */
  MXL_REQUEST_ACCEPTED,      /* one accepted: a shm target took it up */
} MxlEpRequest;

typedef enum MxlRequestInput {
  REQUEST_IN_NEW_ENDPOINT,   /* the connection opened its own endpoint */
  REQUEST_IN_REFUSED,        /* an operation was not accepted */
  REQUEST_IN_ACCEPTED,       /* an operation was accepted */
} MxlRequestInput;

/* The connectionless state of one connection (conn->type_state), made by
 * its first rdm_open() and freed with the connection (rdm_conn_free()). */
typedef struct MxlRdmConn {
  MxlConnTypeState base;
  fi_addr_t addr;            /* the peer in the endpoint's AV (rdm_open()) */
  struct fid_av *own_av;     /* while its endpoint is its own (shm): that
                                endpoint's AV, else NULL */
  MxlEpRequest request;      /* what its current endpoint's operations met */
  MxlTransportPost watched;  /* what watch_post() wraps, while installed */
  /* claims of an exclusive target (initiator_claim.c), allocated with
   * the first claim, else NULL */
  MxlConnClaim *claim;
} MxlRdmConn;

/* The only place that moves @state->request. */
static void
request_transition (MxlRdmConn *state, MxlRequestInput in)
{
  switch (in) {
    case REQUEST_IN_NEW_ENDPOINT:
      state->request = MXL_REQUEST_NONE;
      break;
    case REQUEST_IN_REFUSED:
      if (state->request == MXL_REQUEST_NONE)
        state->request = MXL_REQUEST_REFUSED;
      break;
    case REQUEST_IN_ACCEPTED:
      state->request = MXL_REQUEST_ACCEPTED;
      break;
  }
}

/* The state of @conn; NULL before its first open. */
static MxlRdmConn *
rdm_conn (const MxlConn *conn)
{
  return conn->type_state == NULL ? NULL
      : mxl_container_of (conn->type_state, MxlRdmConn, base);
}

/* The state, NULL before setup (teardown of a missing setup). */
static MxlRdmInitiator *
rdm_initiator (const MxlInitiator *init)
{
  return init->type_state == NULL ? NULL
      : mxl_container_of (init->type_state, MxlRdmInitiator, base);
}

/* The shm holds of the initiator's endpoints, or NULL (none). */
static GHashTable *
shm_holds (const MxlInitiator *init)
{
  MxlRdmInitiator *r = rdm_initiator (init);

  return r != NULL ? r->shm_holds : NULL;
}

static uint64_t
claim_token (const MxlInitiator *init)
{
  return mxl_container_of (init->type_state, MxlRdmInitiator, base)->claim_token;
}

static gboolean
own_endpoint (const MxlInitiator *init)
{
  return mxl_provider_has_quirk (init->base.desc, MXL_PROVIDER_QUIRK_AV_REMOVE_UNSAFE);
}

gboolean
mxl_initiator_rdm_shares_endpoint (const MxlInitiator *init)
{
  return !own_endpoint (init);
}

/* Opens an endpoint bound to @av and the initiator's CQ, from @info. */
static mxlStatus
open_endpoint (MxlInitiator *init, struct fi_info *info, struct fid_av **av,
    struct fid_ep **ep, GError **error)
{
  mxlStatus st;
  int rc;

  st = mxl_ofi_av_open (init->base.dom, 4, av, error);
  if (st != MXL_STATUS_OK)
    return st;
  rc = fi_endpoint (init->base.dom->domain, info, ep, NULL);
  if (rc != 0)
    return mxl_ofi_fail (rc, "fi_endpoint", error);
  if ((rc = fi_ep_bind (*ep, &(*av)->fid, 0)) != 0)
    return mxl_ofi_fail (rc, "fi_ep_bind(av)", error);
  if ((rc = fi_ep_bind (*ep, &init->base.cq->fid, FI_TRANSMIT | FI_RECV)) != 0)
    return mxl_ofi_fail (rc, "fi_ep_bind(cq)", error);
  if (!mxl_provider_has_quirk (init->base.desc, MXL_PROVIDER_QUIRK_SHM_REGIONS)) {
    if ((rc = fi_enable (*ep)) != 0)
      return mxl_ofi_fail (rc, "fi_enable", error);
  } else if ((rc = mxl_shm_enable (*ep, error)) != 0) {
    return mxl_ofi_status (rc);   /* a name in use: its file kept */
  } else {
    MxlShmHold *hold = mxl_shm_region_hold (*ep);
    MxlRdmInitiator *r = rdm_initiator (init);

    if (hold != NULL) {
      if (r->shm_holds == NULL)
        r->shm_holds = g_hash_table_new_full (NULL, NULL, NULL,
            (GDestroyNotify) mxl_shm_region_release);
      g_hash_table_insert (r->shm_holds, *ep, hold);
    }
  }
  return MXL_STATUS_OK;
}

/* @keep_region: a shm endpoint's file stays (mxl_shm_region_keep_begin()):
 * the peer may not have taken up its connection request yet. */
static void
close_endpoint_full (MxlInitiator *init, struct fid_ep *ep, struct fid_av *av,
    gboolean keep_region)
{
  GHashTable *holds = shm_holds (init);
  char *kept = NULL;

  if (keep_region && ep != NULL && holds != NULL)
    kept = mxl_shm_region_keep_begin (g_hash_table_lookup (holds, ep));
  /* a region that goes needs no marker; a kept one keeps it */
  if (kept == NULL && ep != NULL && holds != NULL)
    mxl_shm_region_unmark (g_hash_table_lookup (holds, ep));
  /* The endpoint goes first: for shm its fi_close() removes its /dev/shm
   * file (docs/libfabric-notes.md P12); then the hold on that file goes. */
  mxl_ofi_close (ep ? &ep->fid : NULL, "ep");
  if (kept != NULL)
    mxl_shm_region_keep_end (g_hash_table_lookup (holds, ep), kept);
  if (ep != NULL && holds != NULL)
    g_hash_table_remove (holds, ep);
  mxl_ofi_close (av ? &av->fid : NULL, "av");
}

static void
close_endpoint (MxlInitiator *init, struct fid_ep *ep, struct fid_av *av)
{
  close_endpoint_full (init, ep, av, FALSE);
}

/* MxlInitiatorTypeOps.check_parked (initiator_park.h). */
static void
rdm_check_parked (MxlInitiator *init)
{
  MxlRdmInitiator *r = rdm_initiator (init);

  if (r != NULL && r->parked != NULL)
    mxl_parking_check (r->parked, init);
}

/* MxlInitiatorTypeOps.parked: whether the endpoint of generation @conn_id
 * is among the parked ones. */
static gboolean
rdm_parked (const MxlInitiator *init, uint64_t conn_id)
{
  MxlRdmInitiator *r = rdm_initiator (init);

  return r != NULL && mxl_parking_holds (r->parked, conn_id);
}

/* TRUE when the shm name @addr ("fi_ns://<name>" or "fi_shm://<name>")
 * is one only its process uses: libfabric's own ("fi_shm://<pid>",
 * which libfabric makes unique per endpoint) or one of the library's form,
 * MXL_FABRICS_EXT_SHM_NODE_PREFIX "<pid>-<n>", which declares that its
 * endpoints belong to process <pid> (the elements' default node; a
 * process in another PID namespace knows itself by another pid than the
 * one we would see). */
static gboolean
shm_name_is_ours (const char *addr)
{
  const char *name = strstr (addr, "://");
  pid_t pid;

  if (name == NULL)
    return FALSE;
  name += 3;
  if (g_str_has_prefix (addr, "fi_shm://") && name[0] != '\0'
      && strspn (name, "0123456789") == strlen (name))
    return TRUE;
  return mxl_shm_region_pid (name, &pid);
}

/* A shm endpoint is named after its info's source address, and that name
 * is its file in /dev/shm: two endpoints of one name cannot both be
 * enabled (fi_enable: EBUSY, "shm file in use"). Names from libfabric
 * ("fi_shm://<pid>"), and a "fi_shm://" name of the library's form, get a
 * suffix unique to the process from libfabric itself (":<uid>:<index>",
 * the index counting the process's endpoints). A name of the library's
 * form given with a service (the elements' default node, "fi_ns://<node>:<service>")
 * would be the same file for every connection, so each connection's
 * endpoint gets the name with ".<conn_id>" appended. Any other name is
 * the application's node, which another process may use too (a receiver
 * given the same node: its target endpoint already holds the file): the
 * initiator's endpoints, which no peer looks up by name (a target learns
 * the initiator's address from its connection request), are named
 * MXL_FABRICS_EXT_SHM_NODE_PREFIX "<pid>-c<n>" instead, unique to this
 * process and swept once it is gone (shmstale.h). */
static struct fi_info *
connection_info (const MxlConn *conn)
{
  static gint counter;
  const struct fi_info *base = conn->init->base.dom->info;
  struct fi_info *info = fi_dupinfo (base);
  const char *src;
  char *name;

  if (info == NULL || base->src_addr == NULL || base->addr_format != FI_ADDR_STR
      || base->src_addrlen == 0 || ((const char *) base->src_addr)[base->src_addrlen - 1])
    return info;
  src = base->src_addr;
  if (g_str_has_prefix (src, "fi_shm://") && shm_name_is_ours (src))
    return info;
  if (shm_name_is_ours (src)) {
    name = g_strdup_printf ("%s.%" G_GUINT64_FORMAT, src, conn->conn_id);
  } else {
    name = g_strdup_printf ("fi_ns://" MXL_FABRICS_EXT_SHM_NODE_PREFIX "%d-c%d",
        (int) getpid (), g_atomic_int_add (&counter, 1));
    g_debug ("initiator: endpoint for target %" G_GUINT64_FORMAT " named %s, "
        "not after the application's node (%s), which another process may "
        "name its endpoints by", conn->target_id, name, src);
  }
  free (info->src_addr);
  info->src_addrlen = strlen (name) + 1;
  info->src_addr = strdup (name);
  g_free (name);
  if (info->src_addr == NULL) {
    fi_freeinfo (info);
    return NULL;
  }
  return info;
}

/* ---------------------------------------------------------------- claims
 * An exclusive target (TargetInfo ext.claimAddr/claimKey, claim.h) is
 * claimed before the connection counts as connected, and claimed again
 * every MXL_CLAIM_HEARTBEAT_MS while connected (initiator_claim.c). */

static gboolean
claims (const MxlConn *conn)
{
  return conn->info->has_claim && (conn->init->base.dom->info->caps & FI_READ);
}

static void
conn_ep (const MxlConn *conn, struct fid_ep **ep, fi_addr_t *addr)
{
  *ep = conn->state.kind == MXL_CONN_CONNECTING ? conn->state.u.connecting.ep
      : conn->state.u.connected.ep;
  *addr = rdm_conn (conn)->addr;
}

/* MxlInitiatorTypeOps.conn_free: the claim region is closed while the
 * domain is open. */
static void
rdm_conn_free (MxlConn *conn)
{
  MxlRdmConn *rc = rdm_conn (conn);

  mxl_claim_free (rc->claim, conn->init->base.dom);
  g_free (rc);
  conn->type_state = NULL;
}

/* Drives the claim of one connection (each progress pass). */
static void
claim_tick (MxlConn *conn, gint64 now)
{
  MxlRdmConn *state;
  struct fid_ep *ep;
  fi_addr_t addr;
  ssize_t rc;

  if (conn->state.kind != MXL_CONN_CONNECTING && conn->state.kind != MXL_CONN_CONNECTED)
    return;
  state = rdm_conn (conn);
  /* no claim operation into the region of a target that is gone
   * (mxl_conn_peer_gone()): this pass's tick takes the connection down */
  if (!claims (conn) || mxl_conn_peer_gone (conn))
    return;
  conn_ep (conn, &ep, &addr);
  if (!mxl_claim_tick (&state->claim, conn, ep, addr, claim_token (conn->init),
          now, &rc))
    return;
  request_transition (state, rc == 0 ? REQUEST_IN_ACCEPTED : REQUEST_IN_REFUSED);
  if (rc != 0 && rc != -FI_EAGAIN)
    mxl_conn_transition (conn, MXL_CONN_IN_ERROR, mxl_ofi_status (rc));
}

/* MxlInitiatorTypeOps.own_completion: the claim writes and reads. */
static gboolean
rdm_own_completion (MxlInitiator *init, MxlWriteCtx *ctx, MxlConn *conn,
    gboolean ok)
{
  MxlRdmConn *state;

  if (ctx->transfer_seq != MXL_CTX_SEQ_CLAIM)
    return FALSE;
  mxl_initiator_ctx_put (init, ctx);
  state = conn != NULL ? rdm_conn (conn) : NULL;
  if (state != NULL)
    mxl_claim_done (state->claim, conn, claim_token (init), ok);
  return TRUE;
}

/* MxlInitiatorTypeOps.post_eos: to an exclusive target the notice names
 * the claim token's mailbox (initiator_claim.c). */
static gboolean
rdm_post_eos (MxlConn *conn, MxlWriteCtx *ctx, ssize_t *rc)
{
  MxlRdmConn *state = rdm_conn (conn);

  if (!claims (conn) || state->claim == NULL)
    return FALSE;
  *rc = mxl_claim_post_eos (state->claim, conn, conn->state.u.connected.ep,
      conn->state.u.connected.addr, claim_token (conn->init), ctx);
  return TRUE;
}

static mxlStatus
rdm_setup (MxlInitiator *init, GError **error)
{
  MxlRdmInitiator *r = g_new0 (MxlRdmInitiator, 1);

  r->base.ops = &mxl_initiator_rdm_ops;
  r->claim_token = mxl_claim_token (mxl_provider_has_quirk (init->base.desc,
          MXL_PROVIDER_QUIRK_OWNER_PID));
  init->type_state = &r->base;
  if (own_endpoint (init))
    return MXL_STATUS_OK;       /* per connection, in rdm_open() */
  return open_endpoint (init, init->base.dom->info, &r->av, &r->ep, error);
}

/* Records the outcome @rc of an operation of the connection's endpoint. */
static void
note_outcome (MxlRdmConn *state, ssize_t rc)
{
  if (rc == 0)
    request_transition (state, REQUEST_IN_ACCEPTED);
  else if (rc == -FI_EAGAIN)
    request_transition (state, REQUEST_IN_REFUSED);
}

/* The connection's post (conn->post) until an operation of its endpoint
 * was accepted: records the outcome of the post it wraps (@request), then
 * steps aside, so that the writes after the first accepted one cost
 * nothing more. A test hook may install another post meanwhile
 * (protocol_hooks.c), even from inside the wrapped one: that one is
 * wrapped from then on (here, or by rdm_poll_events() when it came
 * between two posts). */
static ssize_t
watch_post (MxlConn *conn, MxlTransfer *t, const struct iovec *iov, void **desc,
    guint n_iov, MxlWriteCtx *ctx)
{
  MxlRdmConn *state = rdm_conn (conn);
  ssize_t rc = state->watched (conn, t, iov, desc, n_iov, ctx);

  note_outcome (state, rc);
  if (conn->post == NULL)
    return rc;
  if (conn->post != watch_post)
    state->watched = conn->post;
  conn->post = state->request == MXL_REQUEST_ACCEPTED ? state->watched : watch_post;
  return rc;
}

/* Wraps conn->post in watch_post() while no operation was accepted. */
static void
watch (MxlConn *conn)
{
  MxlRdmConn *state = rdm_conn (conn);

  if (state->request == MXL_REQUEST_ACCEPTED || conn->post == NULL || conn->post == watch_post)
    return;
  state->watched = conn->post;
  conn->post = watch_post;
}

/* A target of this process, on a provider that would reach it through the
 * target's own mapping of its region (MXL_PROVIDER_QUIRK_LOCAL_PEER_SHARED):
 * the alias of its address that maps the region on its own, so that the
 * target's fi_close() cannot unmap what this endpoint still reads and posts
 * to (mxl_shm_address_separate_mapping(), docs/libfabric-notes.md P17).
 * NULL (use the address as it is) otherwise. */
static char *
peer_address_alias (const MxlConn *conn)
{
  char *alias;

  if (!mxl_provider_has_quirk (conn->init->base.desc,
          MXL_PROVIDER_QUIRK_LOCAL_PEER_SHARED)
      || conn->info->owner_pid != (uint32_t) getpid ())
    return NULL;
  alias = mxl_shm_address_separate_mapping (conn->info->fabric_address,
      conn->info->fabric_address_len);
  if (alias == NULL)
    g_warning ("initiator: target %" G_GUINT64_FORMAT " of this process has "
        "an address without \"://\" or too long for an alias: reached "
        "through its own mapping, which its close unmaps (P17)", conn->target_id);
  return alias;
}

static mxlStatus
rdm_open (MxlConn *conn, MxlConnState *next)
{
  g_autoptr (GError) error = NULL;
  MxlInitiator *init = conn->init;
  MxlRdmConn *state = rdm_conn (conn);
  fi_addr_t addr = FI_ADDR_NOTAVAIL;
  struct fid_ep *ep = rdm_initiator (init)->ep;
  struct fid_av *av = rdm_initiator (init)->av, *own_av = NULL;
  char *alias;
  int rc;

  if (state == NULL) {
    state = g_new0 (MxlRdmConn, 1);
    state->base.ops = &mxl_initiator_rdm_ops;
    conn->type_state = &state->base;
  }
  if (own_endpoint (init)) {
    struct fi_info *info = connection_info (conn);
    mxlStatus st = info ? open_endpoint (init, info, &own_av, &ep, &error)
        : MXL_ERR_INTERNAL;

    if (info)
      fi_freeinfo (info);
    if (st != MXL_STATUS_OK) {
      g_warning ("initiator: endpoint for target %" G_GUINT64_FORMAT ": %s",
          conn->target_id, error ? error->message : "out of memory");
      close_endpoint (init, ep, own_av);
      return st;
    }
    av = own_av;
    request_transition (state, REQUEST_IN_NEW_ENDPOINT);
  }
  alias = peer_address_alias (conn);
  rc = fi_av_insert (av, alias != NULL ? (const void *) alias
      : conn->info->fabric_address, 1, &addr, 0, NULL);
  g_free (alias);
  if (rc != 1) {
    g_warning ("initiator: fi_av_insert of target %" G_GUINT64_FORMAT ": %s",
        conn->target_id, rc < 0 ? fi_strerror (-rc) : "address rejected");
    if (own_av)
      close_endpoint (init, ep, own_av);
    return MXL_ERR_INTERNAL;
  }
  state->addr = addr;
  state->own_av = own_av;
  /* a new credit id per endpoint generation (initiator_credit.h) */
  mxl_conn_credit_announce (conn);
  if (claims (conn)) {
    /* Connected once the claim is granted (claim_tick()). */
    next->kind = MXL_CONN_CONNECTING;
    next->u.connecting.ep = ep;
    next->u.connecting.since = g_get_monotonic_time ();
    next->u.connecting.attempts = conn->state.kind == MXL_CONN_IDLE
        ? conn->state.u.idle.attempts : 0;
    mxl_claim_restart (state->claim);
    return MXL_STATUS_OK;
  }
  next->kind = MXL_CONN_CONNECTED;
  next->u.connected.ep = ep;
  next->u.connected.addr = addr;
  return MXL_STATUS_OK;
}

/* MxlInitiatorTypeOps.connected: the peer's address, and the watch of the
 * endpoint's first accepted operation (watch_post()). */
static void
rdm_connected (MxlConn *conn, MxlConnState *next)
{
  next->u.connected.addr = rdm_conn (conn)->addr;
  watch (conn);
}

static MxlCloseEffect
rdm_close (MxlConn *conn, const MxlConnState *state, gboolean orderly)
{
  MxlRdmConn *rs = rdm_conn (conn);
  gboolean connected = state->kind == MXL_CONN_CONNECTED;
  /* An operation of the connection's own endpoint tried (a claim, or a
   * write when the target is not exclusive) and none accepted yet: shm
   * refuses (EAGAIN) every operation until the target took up the
   * endpoint's connection request, which a target that lives but does
   * not progress (stopped) has not: its file must stay, or the target
   * crashes when it continues (mxl_shm_region_keep_begin(); its peer
   * marker keeps the stale sweep off it while the target lives,
   * docs/libfabric-notes.md P16). */
  gboolean request_pending;
  struct fid_ep *ep;
  struct fid_av *av;
  int rc;

  if (state->kind != MXL_CONN_CONNECTED && state->kind != MXL_CONN_CONNECTING)
    return MXL_CLOSE_SHARED;   /* nothing open (open() did not succeed) */
  request_pending = rs->request == MXL_REQUEST_REFUSED && !mxl_conn_peer_gone (conn);
  mxl_claim_stop (rs->claim);
  ep = connected ? state->u.connected.ep : state->u.connecting.ep;
  av = rs->own_av;
  rs->own_av = NULL;
  /* No release of a claim: the target may be gone already (a write into
   * the region of a closed shm endpoint crashes in libfabric 1.17); the
   * claim lapses after MXL_CLAIM_LAPSE_MS. */
  if (av != NULL) {
    /* The connection's own endpoint: closing it discards whatever the
     * provider still holds for the peer (see the top of this file); lost
     * with writes in flight to a peer that still lives (stopped, say), it
     * is parked instead: should the peer continue, it would still read
     * the local slots those writes name. So is one removed (orderly)
     * with writes a live target of this process has not processed: it
     * writes its answers into the endpoint's own region (P17). */
    if ((!orderly || mxl_conn_peer_local (conn)) && !mxl_conn_peer_gone (conn)
        && mxl_initiator_contexts_in_use (conn->init, conn->conn_id)) {
      MxlRdmInitiator *r = rdm_initiator (conn->init);

      if (r->parked == NULL)
        r->parked = mxl_parking_new (close_endpoint);
      mxl_parking_add (r->parked, conn, ep, av);
      return MXL_CLOSE_PARKED;
    }
    if (request_pending && shm_holds (conn->init) != NULL)
      mxl_shm_region_mark_peer (g_hash_table_lookup (shm_holds (conn->init),
              ep), conn->info->owner_pid);
    close_endpoint_full (conn->init, ep, av, request_pending);
    return MXL_CLOSE_ENDED;
  }
  /* A shared endpoint: only an orderly removal takes the address out of
   * the AV (on libfabric 1.17, fi_av_remove() of a shm peer, dead or
   * alive, left the next peer added crashing in its own fi_cq_read(): test
   * fabrics-transfer-shm-retarget-live; shm has its own endpoints now). */
  if (!orderly)
    return MXL_CLOSE_SHARED;
  rc = fi_av_remove (rdm_initiator (conn->init)->av, &rs->addr, 1, 0);
  if (rc != 0)
    g_debug ("initiator: fi_av_remove: %s", fi_strerror (-rc));
  return MXL_CLOSE_SHARED;
}

static void
rdm_poll_events (MxlInitiator *init)
{
  gint64 now = g_get_monotonic_time ();
  GHashTable *holds = shm_holds (init);

  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *conn = g_ptr_array_index (init->conns, i);
    MxlRdmConn *state;
    struct fid_ep *ep = NULL;
    fi_addr_t addr;

    claim_tick (conn, now);
    if (conn->state.kind != MXL_CONN_CONNECTING && conn->state.kind != MXL_CONN_CONNECTED)
      continue;
    state = rdm_conn (conn);
    /* a test hook that installed another post since the last pass */
    watch (conn);
    /* the credit announce, until acknowledged: an operation of the
     * endpoint like any other */
    note_outcome (state, mxl_conn_credit_tick (conn, now));
    if (holds == NULL || state->request == MXL_REQUEST_NONE)
      continue;
    /* The target has the endpoint's connection request (REFUSED), which
     * it maps the endpoint's file for when it takes it up: the file must
     * outlive this process while the target lives (shmstale.h); once an
     * operation was accepted (ACCEPTED), it took it up. */
    conn_ep (conn, &ep, &addr);
    if (state->request == MXL_REQUEST_REFUSED)
      mxl_shm_region_mark_peer (g_hash_table_lookup (holds, ep),
          conn->info->owner_pid);
    else
      mxl_shm_region_unmark (g_hash_table_lookup (holds, ep));
  }
}

static void
rdm_teardown (MxlInitiator *init)
{
  MxlRdmInitiator *r = rdm_initiator (init);

  if (r == NULL)
    return;
  mxl_parking_free (r->parked, init);
  r->parked = NULL;
  close_endpoint (init, r->ep, r->av);
  g_clear_pointer (&r->shm_holds, g_hash_table_unref);
  g_free (r);
  init->type_state = NULL;
}

const MxlInitiatorTypeOps mxl_initiator_rdm_ops = {
  .name = "connectionless (FI_EP_RDM)",
  .setup = rdm_setup,
  .open = rdm_open,
  .connected = rdm_connected,
  .close = rdm_close,
  .conn_free = rdm_conn_free,
  .poll_events = rdm_poll_events,
  .teardown = rdm_teardown,
  .check_parked = rdm_check_parked,
  .parked = rdm_parked,
  .own_completion = rdm_own_completion,
  .post_eos = rdm_post_eos,
  .reports_peer_loss = FALSE,
  .close_ends_reads = FALSE,
  .ordered_receives = FALSE,
};
