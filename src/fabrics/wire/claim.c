/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Claims of connectionless targets, the target's side; see claim.h. The
 * initiator's side is in initiator_rdm.c. */
#include "fabrics/wire/claim.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

uint64_t
mxl_claim_token (gboolean with_pid)
{
  uint64_t token;

  do {
    token = mxl_random_u64 () & ~MXL_CLAIM_RELEASE;
    if (with_pid)
      token = ((uint64_t) (uint32_t) getpid () << 32) | (token & 0xFFFFFFFFu);
  } while ((token & 0xFFFFFFFFu) == 0);
  return token;
}

/* shm: the owner's process (bits 32..62 of its token) is gone. A pid of 0
 * or one that is reused only leaves the decision to the lapse. */
static gboolean
owner_gone (const MxlClaimTarget *c)
{
  pid_t pid = (pid_t) ((c->owner >> 32) & 0x7FFFFFFFu);

  return c->check_pid && pid > 0 && kill (pid, 0) != 0 && errno == ESRCH;
}

mxlStatus
mxl_claim_target_open (MxlClaimTarget *c, MxlOfiDomain *dom, GError **error)
{
  memset (c, 0, sizeof *c);
  c->words = g_new0 (uint64_t, MXL_CLAIM_WORDS);
  return mxl_ofi_region_register (dom, c->words, MXL_CLAIM_WORDS * sizeof (uint64_t),
      FI_REMOTE_WRITE | FI_REMOTE_READ, &c->region, error);
}

void
mxl_claim_target_close (MxlClaimTarget *c, MxlOfiDomain *dom)
{
  if (dom != NULL)
    mxl_ofi_region_close (dom, &c->region);
  g_clear_pointer (&c->words, g_free);
}

static void
set_owner (MxlClaimTarget *c, uint64_t token)
{
  c->owner = token;
  /* read by initiators with RMA reads */
  __atomic_store_n (&c->words[0], token, __ATOMIC_RELEASE);
}

gboolean
mxl_claim_note_refused (MxlClaimTarget *c, uint64_t token)
{
  if (token == 0)
    return TRUE;
  for (guint i = 0; i < MXL_CLAIM_REFUSED_KEPT; i++)
    if (c->refused[i] == token)
      return FALSE;
  c->refused[c->refused_next] = token;
  c->refused_next = (c->refused_next + 1) % MXL_CLAIM_REFUSED_KEPT;
  return TRUE;
}

void
mxl_claim_target_on_claim (MxlClaimTarget *c, uint64_t data, uint64_t *refused)
{
  guint mailbox = (guint) ((data >> 16) & 0xFFFFu);
  gint64 now = g_get_monotonic_time ();
  uint64_t value, token;

  if (c->words == NULL || mailbox == 0 || mailbox >= MXL_CLAIM_WORDS)
    return;
  value = __atomic_load_n (&c->words[mailbox], __ATOMIC_ACQUIRE);
  token = value & ~MXL_CLAIM_RELEASE;
  if (token == 0 || mxl_claim_mailbox (token) != mailbox)
    return;                     /* not a claim this mailbox can hold */
  if (value & MXL_CLAIM_RELEASE) {
    if (token == c->owner) {
      g_debug ("claim: initiator %016" G_GINT64_MODIFIER "x released the target", token);
      set_owner (c, 0);
    }
    return;
  }
  if (c->owner == 0 || c->owner == token
      || now - c->owner_seen > (gint64) MXL_CLAIM_LAPSE_MS * 1000 || owner_gone (c)) {
    if (c->owner != token)
      g_debug ("claim: initiator %016" G_GINT64_MODIFIER "x owns the target", token);
    set_owner (c, token);
    c->owner_seen = now;
    return;
  }
  if (!mxl_claim_note_refused (c, token))
    return;                     /* counted already */
  (*refused)++;
  g_debug ("claim: initiator %016" G_GINT64_MODIFIER "x refused (the target has "
      "an initiator)", token);
}
