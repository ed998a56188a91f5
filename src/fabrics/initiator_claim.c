/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The claims of a connectionless connection to an exclusive target
 * (initiator_claim.h, src/fabrics/wire/claim.h): the target is claimed
 * before the connection counts as connected, and claimed again every
 * MXL_CLAIM_HEARTBEAT_MS while connected. Each claim is a write of the
 * initiator's token into its mailbox, then reads of the owner word until
 * the target has taken a claim up. Its phase changes only in
 * claim_transition().
 */
#include "fabrics/initiator_claim.h"

#include <string.h>

#include "fabrics/wire/claim.h"
#include "fabrics/wire/eos.h"

typedef enum MxlClaimPhase {
  MXL_CLAIM_DUE,             /* the claim write is due at @due */
  MXL_CLAIM_WRITE_POSTED,    /* the claim write is in flight */
  MXL_CLAIM_READ_POSTED,     /* the owner read is in flight */
  MXL_CLAIM_READ_DUE,        /* the owner read is due at @due */
} MxlClaimPhase;

typedef enum MxlClaimInput {
  CLAIM_IN_OPEN,             /* the connection opens: the write due now */
  CLAIM_IN_STOP,             /* closed, or an operation failed: the write
                                due again (at the same time) */
  CLAIM_IN_POSTED,           /* the operation that was due was posted */
  CLAIM_IN_WRITTEN,          /* the claim write completed */
  CLAIM_IN_UNOWNED,          /* the owner read found no owner yet */
  CLAIM_IN_OWNED,            /* the owner read found one */
} MxlClaimInput;

/* @buf words [0] claim, [1] release, [2] owner read back, registered
 * FI_WRITE | FI_READ as @region. */
struct MxlConnClaim {
  uint64_t buf[3];
  MxlOfiRegion region;
  MxlClaimPhase phase;
  gint64 due;                /* DUE, READ_DUE: monotonic µs */
};

/* The only place that moves @c's phase (and its due time). */
static void
claim_transition (MxlConnClaim *c, MxlClaimInput in, gint64 now)
{
  switch (in) {
    case CLAIM_IN_OPEN:
      c->phase = MXL_CLAIM_DUE;
      c->due = 0;
      break;
    case CLAIM_IN_STOP:
      c->phase = MXL_CLAIM_DUE;
      break;
    case CLAIM_IN_POSTED:
      if (c->phase == MXL_CLAIM_DUE)
        c->phase = MXL_CLAIM_WRITE_POSTED;
      else if (c->phase == MXL_CLAIM_READ_DUE)
        c->phase = MXL_CLAIM_READ_POSTED;
      break;
    case CLAIM_IN_WRITTEN:
      /* the target takes it up when it next drains its CQ */
      if (c->phase == MXL_CLAIM_WRITE_POSTED) {
        c->phase = MXL_CLAIM_READ_DUE;
        c->due = now;
      }
      break;
    case CLAIM_IN_UNOWNED:
      if (c->phase == MXL_CLAIM_READ_POSTED) {
        c->phase = MXL_CLAIM_READ_DUE;
        c->due = now + MXL_CLAIM_POLL_MS * 1000;
      }
      break;
    case CLAIM_IN_OWNED:
      if (c->phase == MXL_CLAIM_READ_POSTED) {
        c->phase = MXL_CLAIM_DUE;
        c->due = now + MXL_CLAIM_HEARTBEAT_MS * 1000;
      }
      break;
  }
}

/* Posts one operation on a word of the target's claim region with @ctx:
 * the write of @c's token (buf[0]) into mailbox @word with immediate data
 * @imm, or (@read) the read of word 0 into buf[2]. Returns: 0, or the
 * negative fi errno. */
static ssize_t
word_post (MxlConnClaim *c, MxlConn *conn, struct fid_ep *ep, fi_addr_t addr,
    MxlWriteCtx *ctx, guint word, uint32_t imm, gboolean read)
{
  struct iovec iov;
  struct fi_rma_iov rma;
  struct fi_msg_rma msg;

  iov.iov_base = read ? &c->buf[2] : &c->buf[0];
  iov.iov_len = sizeof (uint64_t);
  rma.addr = conn->info->claim_addr + word * sizeof (uint64_t);
  rma.len = sizeof (uint64_t);
  rma.key = conn->info->claim_key;
  memset (&msg, 0, sizeof msg);
  msg.msg_iov = &iov;
  msg.desc = &c->region.desc;
  msg.iov_count = 1;
  msg.addr = addr;
  msg.rma_iov = &rma;
  msg.rma_iov_count = 1;
  msg.context = ctx;
  msg.data = imm;
  return read ? fi_readmsg (ep, &msg, FI_COMPLETION)
      : fi_writemsg (ep, &msg, FI_COMPLETION | FI_REMOTE_CQ_DATA | FI_DELIVERY_COMPLETE);
}

/* Posts the claim write (@read FALSE) or the read of the owner word.
 * Returns: 0, or the negative fi errno (-FI_EAGAIN: try again later). */
static ssize_t
claim_post (MxlConnClaim *c, MxlConn *conn, struct fid_ep *ep, fi_addr_t addr,
    uint64_t token, gboolean read)
{
  MxlInitiator *init = conn->init;
  MxlWriteCtx *ctx;
  ssize_t rc;

  if ((ctx = mxl_initiator_ctx_get (init)) == NULL)
    return -FI_EAGAIN;
  ctx->conn_id = conn->conn_id;
  ctx->transfer_seq = MXL_CTX_SEQ_CLAIM;
  c->buf[0] = token;
  c->buf[2] = 0;
  rc = word_post (c, conn, ep, addr, ctx, read ? 0 : mxl_claim_mailbox (token),
      mxl_claim_imm (token), read);
  if (rc != 0)
    mxl_initiator_ctx_put (init, ctx);
  return rc;
}

gboolean
mxl_claim_tick (MxlConnClaim **claim, MxlConn *conn, struct fid_ep *ep,
    fi_addr_t addr, uint64_t token, gint64 now, ssize_t *rc)
{
  MxlConnClaim *c = *claim;
  gboolean read;

  /* before the first claim: the write, due now */
  if (c != NULL && ((c->phase != MXL_CLAIM_DUE && c->phase != MXL_CLAIM_READ_DUE)
          || now < c->due))
    return FALSE;
  read = c != NULL && c->phase == MXL_CLAIM_READ_DUE;
  if (c == NULL) {
    g_autoptr (GError) error = NULL;

    c = g_new0 (MxlConnClaim, 1);     /* MXL_CLAIM_DUE, due 0 */
    if (mxl_ofi_region_register (conn->init->base.dom, c->buf, sizeof c->buf,
            FI_WRITE | FI_READ, &c->region, &error) != MXL_STATUS_OK) {
      g_warning ("initiator: claim buffer: %s", error->message);
      g_free (c);
      *rc = -FI_ENOMEM;
      return TRUE;
    }
    *claim = c;
  }
  *rc = claim_post (c, conn, ep, addr, token, read);
  if (*rc == 0)
    claim_transition (c, CLAIM_IN_POSTED, now);
  return TRUE;
}

void
mxl_claim_done (MxlConnClaim *c, MxlConn *conn, uint64_t token, gboolean ok)
{
  uint64_t owner;
  gint64 now = g_get_monotonic_time ();

  if (c == NULL)
    return;                  /* no claim was posted */
  if (!ok) {
    claim_transition (c, CLAIM_IN_STOP, now);
    mxl_conn_transition (conn, MXL_CONN_IN_ERROR, MXL_ERR_UNKNOWN);
    return;
  }
  if (c->phase == MXL_CLAIM_WRITE_POSTED) {
    claim_transition (c, CLAIM_IN_WRITTEN, now);
    return;
  }
  if (c->phase != MXL_CLAIM_READ_POSTED)
    return;
  owner = c->buf[2];
  if (owner == 0) {
    claim_transition (c, CLAIM_IN_UNOWNED, now);
    return;
  }
  claim_transition (c, CLAIM_IN_OWNED, now);
  if (owner != token) {
    g_debug ("initiator: target %" G_GUINT64_FORMAT " has another initiator",
        conn->target_id);
    mxl_conn_transition (conn, MXL_CONN_IN_ERROR, MXL_ERR_CONFLICT);
  } else if (conn->state.kind == MXL_CONN_CONNECTING) {
    mxl_conn_transition (conn, MXL_CONN_IN_CONNECTED, MXL_STATUS_OK);
  }
}

ssize_t
mxl_claim_post_eos (MxlConnClaim *c, MxlConn *conn, struct fid_ep *ep,
    fi_addr_t addr, uint64_t token, MxlWriteCtx *ctx)
{
  guint mailbox = mxl_claim_mailbox (token);

  /* buf[0] holds the token for claim writes as well: the same value */
  c->buf[0] = token;
  return word_post (c, conn, ep, addr, ctx, mailbox, mxl_eos_imm (mailbox), FALSE);
}

void
mxl_claim_restart (MxlConnClaim *c)
{
  if (c != NULL)
    claim_transition (c, CLAIM_IN_OPEN, 0);
}

void
mxl_claim_stop (MxlConnClaim *c)
{
  if (c != NULL)
    claim_transition (c, CLAIM_IN_STOP, 0);
}

void
mxl_claim_free (MxlConnClaim *c, MxlOfiDomain *dom)
{
  if (c != NULL && dom != NULL)
    mxl_ofi_region_close (dom, &c->region);
  g_free (c);
}
