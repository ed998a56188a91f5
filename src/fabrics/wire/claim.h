/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Claims: one initiator at a time on a connectionless (FI_EP_RDM) target.
 *
 * A connected (RC) target refuses a second connection itself (target_rc.c,
 * with MXL_REJECT_BUSY). An RDM endpoint accepts writes from anyone, and a
 * remote write cannot be refused before it lands, so an exclusive RDM
 * target (setup option "exclusive", default true) advertises a small claim
 * region (TargetInfo ext.claimAddr / ext.claimKey) and our initiators claim
 * the target before they write any grain:
 *
 *  - region: MXL_CLAIM_WORDS little-endian u64 words, registered
 *    FI_REMOTE_WRITE | FI_REMOTE_READ. Word 0 is the owner's token, written
 *    by the target only (0: none). Words 1.. are mailboxes.
 *  - claim: the initiator writes its 63-bit random token (bit 63 clear,
 *    never 0) into mailbox 1 + token % (MXL_CLAIM_WORDS - 1) with immediate
 *    data mxl_claim_imm(token): slot field 0xFFFF, which no grain of a
 *    target with fewer than 0xFFFF slots or entries uses (such targets only
 *    advertise a claim region). Then it reads word 0 (RMA read) until it is
 *    not 0: its own token means granted, another one refused.
 *  - the target, when it drains the completion, reads the mailbox: no
 *    owner, the same owner, an owner silent for MXL_CLAIM_LAPSE_MS, or (shm)
 *    an owner whose process is gone makes the claimant the owner (word 0);
 *    any other is refused (counted once per token: initiatorsRefused).
 *  - shm initiators (same host) put their process id in bits 32..62 of the
 *    token (mxl_claim_token()), so that a restarted sender takes over from
 *    its dead predecessor at once; elsewhere those bits are random.
 *  - the owner claims again every MXL_CLAIM_HEARTBEAT_MS. A mailbox holding
 *    token | MXL_CLAIM_RELEASE frees the target at once; our initiators do
 *    not send it (the target may be gone when a connection is removed: a
 *    write into the region of a closed shm endpoint crashes libfabric
 *    1.17), so a removed owner's claim lapses.
 *
 * Interoperation: a reference initiator does not claim and writes as it
 * always did (the target commits its grains; it cannot tell it from the
 * owner). A reference target advertises no claim region; our initiator
 * then writes without claiming.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include <mxl/mxl.h>

#include "fabrics/ofi/ofi.h"

#define MXL_CLAIM_WORDS 64u
#define MXL_CLAIM_SLOT 0xFFFFu
#define MXL_CLAIM_RELEASE (UINT64_C (1) << 63)
/** An owner that has not claimed again for this long can be replaced (ms). */
#define MXL_CLAIM_LAPSE_MS 2000
/** How often an owner claims again (ms). */
#define MXL_CLAIM_HEARTBEAT_MS 500
/** How often an initiator reads the owner word while it waits (ms). */
#define MXL_CLAIM_POLL_MS 10
#define MXL_CLAIM_REFUSED_KEPT 8u

/** TRUE when immediate data @data is a claim: slot field MXL_CLAIM_SLOT
 * and a mailbox (1 .. MXL_CLAIM_WORDS - 1) in the slice field, upper 32
 * bits 0. Anything else goes on to the ingress checks (and is refused
 * there as bad immediate data). */
static inline gboolean
mxl_claim_is_imm (uint64_t data)
{
  uint64_t mailbox = data >> 16;

  return (data & 0xFFFFu) == MXL_CLAIM_SLOT && mailbox >= 1 && mailbox < MXL_CLAIM_WORDS;
}

/** Mailbox word of @token (1 .. MXL_CLAIM_WORDS - 1). */
static inline guint
mxl_claim_mailbox (uint64_t token)
{
  return 1u + (guint) ((token & ~MXL_CLAIM_RELEASE) % (MXL_CLAIM_WORDS - 1));
}

/** Immediate data of a claim (or release) by @token. */
static inline uint32_t
mxl_claim_imm (uint64_t token)
{
  return MXL_CLAIM_SLOT | ((uint32_t) mxl_claim_mailbox (token) << 16);
}

/** The target's side. */
typedef struct MxlClaimTarget {
  uint64_t *words;               /* MXL_CLAIM_WORDS, NULL when not exclusive */
  MxlOfiRegion region;
  uint64_t owner;                /* token, 0 = none */
  gint64 owner_seen;             /* monotonic time of its last claim */
  gboolean check_pid;            /* shm: tokens carry the owner's process id */
  uint64_t refused[MXL_CLAIM_REFUSED_KEPT];      /* tokens counted already */
  guint refused_next;
} MxlClaimTarget;

/** A new initiator token: random, bit 63 clear, never 0; with @with_pid
 * (shm) bits 32..62 are this process's id. */
uint64_t mxl_claim_token (gboolean with_pid);

/**
 * mxl_claim_target_open:
 * Allocates and registers the claim region (FI_REMOTE_WRITE |
 * FI_REMOTE_READ) in @dom. Returns: OK or the registration's failure.
 */
mxlStatus mxl_claim_target_open (MxlClaimTarget *c, MxlOfiDomain *dom,
    GError **error);
void mxl_claim_target_close (MxlClaimTarget *c, MxlOfiDomain *dom);

/**
 * mxl_claim_note_refused:
 * Remembers that @token was refused (the last MXL_CLAIM_REFUSED_KEPT).
 * Returns: TRUE the first time for a token, and always for 0 (an
 * initiator without a token: a reference one).
 */
gboolean mxl_claim_note_refused (MxlClaimTarget *c, uint64_t token);

/**
 * mxl_claim_target_on_claim:
 * Handles a completion whose immediate data @data is a claim (untrusted:
 * the mailbox is taken from @data and bounded). @refused is incremented
 * for each token refused for the first time.
 */
void mxl_claim_target_on_claim (MxlClaimTarget *c, uint64_t data,
    uint64_t *refused);
