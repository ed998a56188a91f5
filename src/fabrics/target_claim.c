/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A target's exclusivity state (claim.h): the claim region of an
 * exclusive RDM target, its owner, and the tokens of initiators already
 * counted as refused (also those an RC target rejects because it has an
 * initiator, target_rc.c). Private to this file: MxlTarget holds only a
 * pointer to it (t->claims), set up with the target and freed with it.
 */
#include "fabrics/target.h"

#include "fabrics/wire/claim.h"

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
mxl_target_claims_setup (MxlTarget *t, GError **error)
{
  mxlStatus st;

  t->claims = g_new0 (MxlTargetClaims, 1);
  /* One initiator at a time: RC targets refuse further connections
   * themselves; an RDM target needs claims (claim.h), for remote write
   * where the slot field can hold MXL_CLAIM_SLOT and RMA reads work. */
  if (!t->type_ops->exclusive_by_claims || !t->base.options.exclusive
      || !t->proto->claims || !(t->base.dom->info->caps & FI_REMOTE_READ)
      || regions_addressed (t) >= MXL_CLAIM_SLOT)
    return MXL_STATUS_OK;
  st = mxl_claim_target_open (&t->claims->c, t->base.dom, error);
  if (st != MXL_STATUS_OK)
    return st;
  t->claims->c.check_pid = mxl_provider_has_quirk (t->base.desc,
      MXL_PROVIDER_QUIRK_OWNER_PID);
  return MXL_STATUS_OK;
}

void
mxl_target_claims_teardown (MxlTarget *t)
{
  if (t->claims == NULL)
    return;
  mxl_claim_target_close (&t->claims->c, t->base.dom);
  g_clear_pointer (&t->claims, g_free);
}

void
mxl_target_claims_fill_info (const MxlTarget *t, struct mxlFabricsTargetInfo_t *info)
{
  if (t->claims == NULL || t->claims->c.words == NULL)
    return;
  info->has_claim = TRUE;
  info->claim_addr = t->claims->c.region.remote_addr;
  info->claim_key = t->claims->c.region.key;
}

size_t
mxl_target_claims_take (MxlTarget *t, struct fi_cq_data_entry *batch, size_t len)
{
  size_t kept = 0;

  if (t->claims == NULL || t->claims->c.words == NULL)
    return len;
  for (size_t i = 0; i < len; i++) {
    if ((batch[i].flags & FI_REMOTE_CQ_DATA) && mxl_claim_is_imm (batch[i].data))
      mxl_claim_target_on_claim (&t->claims->c, batch[i].data,
          &t->stats.initiatorsRefused);
    else
      batch[kept++] = batch[i];
  }
  return kept;
}

gboolean
mxl_target_claims_note_refused (MxlTarget *t, uint64_t token)
{
  return t->claims != NULL && mxl_claim_note_refused (&t->claims->c, token);
}
