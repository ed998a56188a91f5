/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The end-of-stream notice (docs/wire-format.md §11.8): an extension of
 * ours that tells a target the initiator's stream ended after the grains
 * (or batches) it already wrote.
 *
 *  - advertised: a target that accepts it puts ext."eos" = "1" (the
 *    notice's version) in its TargetInfo; the MXL reference ignores the
 *    key and never sends the notice. An initiator sends it only to
 *    targets that advertise it.
 *  - on the wire: one remote write with immediate data (fi_rma(3),
 *    FI_REMOTE_CQ_DATA) whose value is mxl_eos_imm(): slot field 0xFFFF
 *    (as claims, claim.h: no grain of a target with fewer than 0xFFFF
 *    slots, no bounce entry of a ring that size, uses it) and the slice
 *    field MXL_EOS_MARK | mailbox. To a target with a claim region
 *    (exclusive connectionless target, claim.h) it writes the sender's
 *    claim token into its mailbox (8 bytes), so that the target can tell
 *    the owner's notice from anyone else's; to others it writes nothing
 *    (zero length, mailbox 0) into the first advertised region.
 *  - a claim's slice field is 1 .. 63 (mxl_claim_is_imm()), a notice's has
 *    bit 15 set: the two never meet. A target that did not advertise the
 *    notice refuses the value as out-of-range immediate data (slot 0xFFFF
 *    >= its slot or entry count), as before.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

/** The notice's version an advertising target gives in ext."eos". */
#define MXL_EOS_VERSION 1u
/** Bit 15 of the slice field: the value is a notice. */
#define MXL_EOS_MARK 0x8000u
/** The slot field of a notice (that of claims too, claim.h). */
#define MXL_EOS_SLOT 0xFFFFu
/** Mailboxes a notice can name (6 bits; claim.h has 64 words). */
#define MXL_EOS_MAILBOX_MASK 0x3Fu

/** Immediate data of a notice naming @mailbox (0: none). */
static inline uint32_t
mxl_eos_imm (guint mailbox)
{
  return MXL_EOS_SLOT | ((MXL_EOS_MARK | (mailbox & MXL_EOS_MAILBOX_MASK)) << 16);
}

/** TRUE when @data (a completion's 64-bit CQ data, untrusted) is a notice:
 * upper 32 bits 0, slot field 0xFFFF, slice field MXL_EOS_MARK | 0..63. */
static inline gboolean
mxl_eos_is_imm (uint64_t data)
{
  return (data >> 32) == 0 && (data & 0xFFFFu) == MXL_EOS_SLOT
      && ((data >> 16) & ~(uint64_t) MXL_EOS_MAILBOX_MASK) == MXL_EOS_MARK;
}

/** The mailbox a notice names (0 .. 63; 0: none). */
static inline guint
mxl_eos_mailbox (uint64_t data)
{
  return (guint) ((data >> 16) & MXL_EOS_MAILBOX_MASK);
}
