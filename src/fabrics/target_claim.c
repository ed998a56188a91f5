/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A connectionless target's exclusivity state (claim.h): the claim region
 * of an exclusive RDM target, its owner, and the tokens of initiators
 * already counted as refused. Private to this file: the connectionless
 * type state holds only a pointer to it (MxlRdmTarget, target_rdm.c),
 * made by its open and freed by its close. (A connected target refuses
 * further connections itself and keeps its own refused tokens,
 * target_rc.c.)
 */
#include "fabrics/target.h"

#include "fabrics/wire/claim.h"
#include "fabrics/wire/eos.h"

struct MxlTargetClaims {
  MxlClaimTarget c;
};

/* Remote regions the TargetInfo advertises: bounce entries (continuous
 * flows) or grain slots. */
static uint64_t
regions_addressed (MxlTarget *t)
{
  uint64_t entries = 0, size;

  if (t->base.continuous)
    mxl_samples_target_entries (t, &entries, &size);
  return t->base.continuous ? entries : t->base.grain_count;
}

mxlStatus
mxl_target_claims_new (MxlTarget *t, MxlTargetClaims **out, GError **error)
{
  MxlTargetClaims *claims = g_new0 (MxlTargetClaims, 1);
  mxlStatus st;

  *out = claims;
  /* One initiator at a time: an RDM target needs claims (claim.h), for
   * remote write where the slot field can hold MXL_CLAIM_SLOT and RMA
   * reads work. */
  if (!t->base.options.exclusive || !t->proto->claims
      || !(t->base.dom->info->caps & FI_REMOTE_READ)
      || regions_addressed (t) >= MXL_CLAIM_SLOT)
    return MXL_STATUS_OK;
  st = mxl_claim_target_open (&claims->c, t->base.dom, error);
  if (st != MXL_STATUS_OK)
    return st;
  claims->c.check_pid = mxl_provider_has_quirk (t->base.desc,
      MXL_PROVIDER_QUIRK_OWNER_PID);
  return MXL_STATUS_OK;
}

void
mxl_target_claims_free (MxlTarget *t, MxlTargetClaims *claims)
{
  if (claims == NULL)
    return;
  mxl_claim_target_close (&claims->c, t->base.dom);
  g_free (claims);
}

void
mxl_target_claims_fill_info (const MxlTargetClaims *claims,
    struct mxlFabricsTargetInfo_t *info)
{
  if (claims == NULL || claims->c.words == NULL)
    return;
  info->has_claim = TRUE;
  info->claim_addr = claims->c.region.remote_addr;
  info->claim_key = claims->c.region.key;
}

/* Whether end-of-stream notice @data (wire/eos.h) names a mailbox that
 * holds the owner's token: only the owner writes it there (untrusted
 * @data: the mailbox is bounded). */
static gboolean
notice_of_owner (const MxlClaimTarget *c, uint64_t data)
{
  guint mailbox = mxl_eos_mailbox (data);
  uint64_t word;

  if (c->owner == 0 || mailbox == 0 || mailbox >= MXL_CLAIM_WORDS)
    return FALSE;
  word = __atomic_load_n (&c->words[mailbox], __ATOMIC_ACQUIRE);
  return word == c->owner;
}

size_t
mxl_target_claims_take (MxlTarget *t, MxlTargetClaims *claims,
    struct fi_cq_data_entry *batch, size_t len)
{
  size_t kept = 0;

  if (claims == NULL || claims->c.words == NULL)
    return len;
  for (size_t i = 0; i < len; i++) {
    if ((batch[i].flags & FI_REMOTE_CQ_DATA) && mxl_claim_is_imm (batch[i].data)) {
      uint64_t owner = claims->c.owner;

      mxl_claim_target_on_claim (&claims->c, batch[i].data,
          &t->stats.initiatorsRefused);
      /* an initiator took the target up: counted as an RC accept is */
      if (claims->c.owner != 0 && claims->c.owner != owner)
        t->stats.connectionsAccepted++;
    } else if ((batch[i].flags & FI_REMOTE_CQ_DATA) && t->info != NULL
        && t->info->eos_version != 0 && mxl_eos_is_imm (batch[i].data)
        && !notice_of_owner (&claims->c, batch[i].data)) {
      /* an end-of-stream notice of another than the owner: ignored */
      t->stats.noticesRefused++;
    } else
      batch[kept++] = batch[i];
  }
  return kept;
}
