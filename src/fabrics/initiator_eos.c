/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The end-of-stream notice of an initiator (src/fabrics/wire/eos.h,
 * docs/wire-format.md §11.8): one remote write with immediate data to each
 * connected target whose TargetInfo advertises it (ext."eos"), posted
 * outside the egress (it belongs to no transfer: context transfer_seq
 * MXL_CTX_SEQ_EOS), and waited for with a deadline.
 */
#include "fabrics/initiator.h"

#include <string.h>

#include "fabrics/wire/eos.h"

/* The zero-length notice: no local buffer, nothing written into the first
 * advertised region, only the immediate data (fi_rma(3):
 * FI_REMOTE_CQ_DATA; a length of 0 transfers no data). */
static ssize_t
post_zero_length (MxlConn *conn, MxlWriteCtx *ctx)
{
  const MxlRemoteRegion *remote = &conn->info->regions[0];
  static uint64_t nothing;
  struct iovec iov = { &nothing, 0 };
  struct fi_rma_iov rma;
  struct fi_msg_rma msg;

  rma.addr = remote->addr;
  rma.len = 0;
  rma.key = remote->rkey;
  memset (&msg, 0, sizeof msg);
  msg.msg_iov = &iov;
  msg.iov_count = 1;
  msg.addr = conn->state.u.connected.addr;
  msg.rma_iov = &rma;
  msg.rma_iov_count = 1;
  msg.context = ctx;
  msg.data = mxl_eos_imm (0);
  return fi_writemsg (conn->state.u.connected.ep, &msg,
      FI_COMPLETION | FI_REMOTE_CQ_DATA | FI_TRANSMIT_COMPLETE);
}

/* Posts the notice of @conn (base.lock held). Returns: 0 or the negative
 * fi errno (-FI_EAGAIN: try again). */
static ssize_t
post_notice (MxlInitiator *init, MxlConn *conn)
{
  MxlWriteCtx *ctx = mxl_initiator_ctx_get (init);
  ssize_t rc;

  if (ctx == NULL)
    return -FI_EAGAIN;
  ctx->conn_id = conn->conn_id;
  ctx->transfer_seq = MXL_CTX_SEQ_EOS;
  ctx->bytes = 0;
  if (init->type_ops->post_eos == NULL
      || !init->type_ops->post_eos (conn, ctx, &rc))
    rc = post_zero_length (conn, ctx);
  if (rc != 0)
    mxl_initiator_ctx_put (init, ctx);
  else
    init->eos_pending++;
  return rc;
}

/* TRUE when @conn gets a notice: connected, remote write, and its
 * TargetInfo advertises it. */
static gboolean
wants_notice (const MxlConn *conn)
{
  return conn->state.kind == MXL_CONN_CONNECTED && conn->info->eos_version != 0
      && conn->info->n_regions > 0 && conn->protocol != NULL
      && g_strcmp0 (conn->protocol->name, MXL_TARGET_INFO_DEFAULT_PROTOCOL) == 0
      && !mxl_conn_peer_gone (conn);
}

/* One step of the wait (base.lock held): inline, a progress pass and a
 * short nap (as drive_until_result(), initiator_progress.c); with the
 * progress thread, a wait for its wake-up (mxl_initiator_eos_done()). */
static void
wait_step (MxlInitiator *init, gint64 deadline, guint *sleep_us)
{
  gint64 now = g_get_monotonic_time ();

  if (init->mode_state != NULL) {
    mxl_progress_wake (&init->base.progress);
    mxl_endpoint_wait (&init->base, MIN (deadline, now + 5000));
    return;
  }
  mxl_initiator_progress_once (init);
  if (init->eos_pending == 0)
    return;
  mxl_unlock (&init->base.lock);
  g_usleep (MIN ((gint64) *sleep_us, MAX (deadline - now, 0)));
  *sleep_us = MIN (*sleep_us * 2, 1000u);
  mxl_lock (&init->base.lock);
}

mxlStatus
mxl_initiator_send_eos (MxlInitiator *init, int timeout_ms, uint32_t *out_sent)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) MAX (timeout_ms, 0) * 1000;
  g_autoptr (GPtrArray) due = g_ptr_array_new ();
  guint sleep_us = 50;
  mxlStatus st = MXL_STATUS_OK;

  mxl_lock (&init->base.lock);
  init->eos_pending = 0;
  init->eos_completed = 0;
  for (guint i = 0; i < init->conns->len; i++) {
    MxlConn *conn = g_ptr_array_index (init->conns, i);

    if (wants_notice (conn))
      g_ptr_array_add (due, conn);
  }
  /* post each once everything queued before it went out and completed
   * (the notice bypasses the egress queue, and an unordered provider may
   * complete a later write first), again after -FI_EAGAIN, until the
   * deadline; then wait for the completions */
  while (due->len > 0 || init->eos_pending > 0) {
    for (guint i = 0; i < due->len;) {
      MxlConn *conn = g_ptr_array_index (due, i);
      gboolean wanted = wants_notice (conn);
      ssize_t rc = !wanted ? 0 : conn->q_len > 0 || conn->outstanding > 0
          ? -FI_EAGAIN : post_notice (init, conn);

      if (rc == -FI_EAGAIN) {
        i++;
        continue;
      }
      if (rc != 0)
        g_message ("initiator: end-of-stream notice to target %" G_GUINT64_FORMAT
            ": %s", conn->target_id, fi_strerror ((int) -rc));
      g_ptr_array_remove_index (due, i);
    }
    if (due->len == 0 && init->eos_pending == 0)
      break;
    if (g_get_monotonic_time () >= deadline) {
      st = MXL_ERR_TIMEOUT;
      break;
    }
    wait_step (init, deadline, &sleep_us);
  }
  if (out_sent != NULL)
    *out_sent = init->eos_completed;
  mxl_unlock (&init->base.lock);
  return st;
}

gboolean
mxl_initiator_eos_done (MxlInitiator *init, MxlWriteCtx *ctx, gboolean ok)
{
  if (ctx->transfer_seq != MXL_CTX_SEQ_EOS)
    return FALSE;
  mxl_initiator_ctx_put (init, ctx);
  if (init->eos_pending > 0)
    init->eos_pending--;
  if (ok)
    init->eos_completed++;
  mxl_endpoint_wake (&init->base);
  return TRUE;
}
