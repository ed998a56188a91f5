/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Grain staging for shm connections; see grainstage.h. */
#include "fabrics/protocol/grainstage.h"

#include <string.h>

#include "fabrics/ofi/provider.h"
#include "fabrics/protocol/protocol.h"
#include "fabrics/protocol/initiator-state.h"
#include "fabrics/protocol/grain_initiator.h"

/* The grain chunk source's state of a connection (conn->chunk_state). */
typedef struct {
  MxlChunkState base;
  MxlGrainStage stage;
  gboolean failed;              /* not registered: writes go from the slots */
} MxlGrainConn;

mxlStatus
mxl_grain_source_setup (MxlInitiator *init, const MxlFlowLayout *flow, GError **error)
{
  MxlGrainSource *s = g_new0 (MxlGrainSource, 1);

  (void) flow;
  (void) error;
  s->base.source = &mxl_grain_chunks;
  s->stage_grains = !init->base.continuous
      && mxl_provider_has_quirk (init->base.desc, MXL_PROVIDER_QUIRK_RECEIVER_COPIES);
  init->source_state = &s->base;
  return MXL_STATUS_OK;
}

void
mxl_grain_source_teardown (MxlInitiator *init)
{
  MxlGrainSource *s = mxl_grain_source (init);

  if (s == NULL)
    return;
  mxl_initiator_payload_free (init);
  g_free (s->ctx_slot);
  g_free (s);
  init->source_state = NULL;
}

/* TRUE when setup chose staging for @init's grain writes. */
static gboolean
stage_grains (const MxlInitiator *init)
{
  const MxlGrainSource *s = mxl_grain_source (init);

  return s != NULL && s->stage_grains;
}

/* The connection's state, NULL before its first staged transfer. */
static MxlGrainConn *
peek_state (const MxlConn *conn)
{
  return conn->chunk_state == NULL || conn->chunk_state->source != &mxl_grain_chunks
      ? NULL : mxl_container_of (conn->chunk_state, MxlGrainConn, base);
}

static MxlGrainConn *
conn_state (MxlConn *conn)
{
  if (conn->chunk_state == NULL) {
    MxlGrainConn *g = g_new0 (MxlGrainConn, 1);
    g->base.source = &mxl_grain_chunks;
    conn->chunk_state = &g->base;
  }
  return peek_state (conn);
}

gboolean
mxl_grain_stage_ensure (MxlConn *conn)
{
  MxlInitiator *init = conn->init;
  MxlGrainConn *g;
  GError *error = NULL;
  size_t len = 0;

  /* One target: its stuck receiver holds slots only it would use. */
  if (!stage_grains (init) || init->conns->len < 2)
    return FALSE;
  g = conn_state (conn);
  if (g->failed)
    return FALSE;
  if (g->stage.base != NULL)
    return TRUE;
  for (guint s = 0; s < init->base.grain_count; s++)
    len = MAX (len, init->base.regions[s].len);
  if (len == 0)
    return FALSE;
  g->stage.n = MIN (init->base.grain_count, MXL_GRAIN_STAGE_SLOTS);
  g->stage.len = len;
  g->stage.base = g_malloc0 (len * g->stage.n);
  if (mxl_ofi_region_register (init->base.dom, g->stage.base,
          len * g->stage.n, FI_WRITE,
          &g->stage.region, &error) != MXL_STATUS_OK) {
    g_message ("initiator: grain staging buffer not registered (%s): writes "
        "to target %" G_GUINT64_FORMAT " go from the ring slots",
        error ? error->message : "?", conn->target_id);
    g_clear_error (&error);
    g_clear_pointer (&g->stage.base, g_free);
    g->failed = TRUE;
    return FALSE;
  }
  return TRUE;
}

guint
mxl_grain_stage_slot (const MxlConn *conn, uint64_t seq)
{
  return (guint) (seq % peek_state (conn)->stage.n);
}

gboolean
mxl_grain_stage_ready (const MxlConn *conn, uint64_t seq)
{
  const MxlInitiator *init = conn->init;
  uint32_t mine = MXL_GRAIN_STAGE_CTX_SLOT (mxl_grain_stage_slot (conn, seq));

  for (guint i = 0; i < init->ctx_count; i++) {
    const MxlWriteCtx *ctx = &init->ctx_pool[i];
    if (ctx->in_use && !ctx->released && ctx->conn_id == conn->conn_id
        && mxl_grain_ctx_slot (init, ctx) == mine && ctx->transfer_seq != seq)
      return FALSE;
  }
  return TRUE;
}

gboolean
mxl_grain_stage_copy (MxlConn *conn, uint64_t seq, const MxlChunk *chunk,
    struct iovec *iov, void **desc, guint *n_iov)
{
  const MxlGrainStage *stage = &peek_state (conn)->stage;
  uint8_t *base = stage->base + mxl_grain_stage_slot (conn, seq) * stage->len;
  guint k = 0;
  size_t taken = 0;             /* bytes of iov[k] copied so far */

  for (guint i = 0; i < chunk->n_iov; i++) {
    uint64_t off = chunk->iov[i].offset, left = chunk->iov[i].length;

    if (off > stage->len || left > stage->len - off)
      return FALSE;
    while (left > 0) {
      size_t n;

      if (k >= *n_iov)
        return FALSE;
      n = MIN (left, iov[k].iov_len - taken);
      memcpy (base + off, (const uint8_t *) iov[k].iov_base + taken, n);
      off += n;
      left -= n;
      taken += n;
      if (taken == iov[k].iov_len) {
        k++;
        taken = 0;
      }
    }
  }
  if (k != *n_iov)
    return FALSE;
  for (guint i = 0; i < chunk->n_iov; i++) {
    iov[i].iov_base = base + chunk->iov[i].offset;
    iov[i].iov_len = chunk->iov[i].length;
    desc[i] = stage->region.desc;
  }
  *n_iov = chunk->n_iov;
  return TRUE;
}

void
mxl_grain_stage_free (MxlOfiDomain *dom, MxlGrainStage *stage)
{
  if (stage->base == NULL)
    return;
  if (dom != NULL)
    mxl_ofi_region_close (dom, &stage->region);
  g_clear_pointer (&stage->base, g_free);
}

void
mxl_grain_stage_take (MxlConn *conn, MxlGrainStage *out)
{
  MxlGrainConn *g = peek_state (conn);

  memset (out, 0, sizeof *out);
  if (g == NULL)
    return;
  *out = g->stage;
  memset (&g->stage, 0, sizeof g->stage);
}

void
mxl_grain_stage_release (MxlConn *conn, gboolean final)
{
  MxlGrainConn *g = peek_state (conn);

  if (g == NULL || !final)
    return;
  mxl_grain_stage_free (conn->init->base.dom, &g->stage);
  g_free (g);
  conn->chunk_state = NULL;
}

#ifdef MXL_TEST_HOOKS
gboolean
mxl_grain_stage_debug_allocated (const MxlConn *conn)
{
  const MxlGrainConn *g = peek_state (conn);

  return g != NULL && g->stage.base != NULL;
}
#endif
