/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Credits: flow control from a target back to its initiator, our
 * extension (docs/wire-format.md §11.7). The reference wire has none: a
 * remote write may land in a ring slot (an audio bounce entry) at any
 * time. The "ring" below is the target's grain ring, or for audio its
 * bounce ring, whose index is the entry's credit index (the n-th entry
 * the connection writes).
 *
 * This header holds the wire pieces and the bookkeeping of both sides,
 * with no libfabric call, so each rule is tested on its own (unit test
 * `credit`):
 *
 *  - negotiation: a target advertises TargetInfo ext."credits" (the
 *    version, MXL_CREDIT_VERSION); an initiator that knows the version
 *    announces itself with its 64-bit id: in its connection request on a
 *    connected endpoint, in an MxlCreditAnnounce with its fabric address
 *    on a connectionless one, which the target acknowledges with an
 *    MxlCreditAnnounce of the id and no address;
 *  - the release message MxlCreditRelease, target to initiator: "the
 *    reader is done with grain index N" for the initiator named by id;
 *  - the initiator's window per target (MxlCreditWindow): grain index i
 *    goes into ring slot i % ring only while that slot is free (never
 *    written, or its last index released) or already holds i (another
 *    slice range of the same grain); every release from the network is
 *    checked against what was written there, and one that does not fit
 *    is counted and ignored;
 *  - the target's holds (MxlCreditHolds): which committed index each
 *    slot holds until the reader releases it.
 *
 * The engine's parts: target_credit.c and initiator_credit.c
 * (docs/fabrics-engine.md "Credits").
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include <mxl/mxl.h>

/** The version of the extension this code speaks (TargetInfo ext."credits"). */
#define MXL_CREDIT_VERSION 1u

/** Magic of a release message: "MXR1" little-endian. */
#define MXL_CREDIT_RELEASE_MAGIC 0x3152584Du
/** Magic of an announce message: "MXN1" little-endian. */
#define MXL_CREDIT_ANNOUNCE_MAGIC 0x314E584Du
/** Bytes of a release message on the wire. */
#define MXL_CREDIT_RELEASE_SIZE 24u
/** Bytes of an announce message's fixed part (the address follows). */
#define MXL_CREDIT_ANNOUNCE_HEADER 16u
/** Longest fabric address an announce carries (bytes; shm's are about 40,
 * sockaddr_in6 28). */
#define MXL_CREDIT_ADDR_MAX 112u
/** Ring lengths a window or holds table accepts (slots). */
#define MXL_CREDIT_RING_MAX 65535u

/** TRUE when a target advertising @version (TargetInfo ext."credits", 0 =
 * none) speaks a version of the extension this code does. */
static inline gboolean
mxl_credit_version_usable (uint32_t version)
{
  return version == MXL_CREDIT_VERSION;
}

/** A release, decoded. */
typedef struct MxlCreditRelease {
  uint64_t initiator_id;         /* the id the initiator announced, never 0 */
  uint64_t index;                /* the grain index the reader is done with */
} MxlCreditRelease;

/**
 * mxl_credit_release_encode:
 * Writes @r into @buf (MXL_CREDIT_RELEASE_SIZE bytes), little-endian:
 * u32 magic, u32 zero, u64 initiator id, u64 grain index.
 */
void mxl_credit_release_encode (const MxlCreditRelease *r,
    uint8_t buf[MXL_CREDIT_RELEASE_SIZE]);

/**
 * mxl_credit_release_decode:
 * @buf, @len: a received message (untrusted).
 * Returns: TRUE with @out filled when @len is exactly
 * MXL_CREDIT_RELEASE_SIZE, the magic matches, the reserved word is 0 and
 * the id is not 0; FALSE otherwise (@out untouched).
 */
gboolean mxl_credit_release_decode (const void *buf, size_t len,
    MxlCreditRelease *out);

/** An announce, decoded. */
typedef struct MxlCreditAnnounce {
  uint64_t initiator_id;         /* never 0 */
  uint16_t addr_len;             /* 0: the target's acknowledgement of
                                    an announce (connectionless) */
  uint8_t addr[MXL_CREDIT_ADDR_MAX];
} MxlCreditAnnounce;

/**
 * mxl_credit_announce_encode:
 * Writes @a into @buf (at least MXL_CREDIT_ANNOUNCE_HEADER + addr_len
 * bytes, @buf_len): u32 magic, u16 address length, u16 zero, u64 id, then
 * the address bytes.
 * Returns: the bytes written, or 0 when @a->addr_len exceeds
 * MXL_CREDIT_ADDR_MAX, @a->initiator_id is 0 or @buf_len is too short.
 */
size_t mxl_credit_announce_encode (const MxlCreditAnnounce *a, uint8_t *buf,
    size_t buf_len);

/**
 * mxl_credit_announce_decode:
 * @buf, @len: a received message (untrusted).
 * Returns: TRUE with @out filled when the magic matches, the reserved
 * half-word is 0, the id is not 0, the address length is at most
 * MXL_CREDIT_ADDR_MAX and @len is exactly the header plus it.
 */
gboolean mxl_credit_announce_decode (const void *buf, size_t len,
    MxlCreditAnnounce *out);

/** What a release did to a window. */
typedef enum MxlCreditVerdict {
  MXL_CREDIT_RELEASED,           /* the slot holding the index is free again */
  MXL_CREDIT_AHEAD,              /* the index was never written into its slot
                                    (beyond the highest written, or skipped) */
  MXL_CREDIT_BACKWARDS,          /* the index was released already, or its
                                    slot has since been written again */
  MXL_CREDIT_UNKNOWN,            /* the release names another initiator */
} MxlCreditVerdict;

/** A ring slot, on either side. */
typedef enum MxlCreditSlot {
  MXL_CREDIT_SLOT_UNUSED = 0,    /* never written (committed) */
  MXL_CREDIT_SLOT_HELD,          /* written, not released */
  MXL_CREDIT_SLOT_FREE,          /* its last index released */
} MxlCreditSlot;

/** The target's side: which committed grain index each ring slot holds
 * until the reader releases it. The initiator's window keeps one too, of
 * what it wrote. */
typedef struct MxlCreditHolds {
  guint ring;                    /* the target's ring length (slots) */
  uint64_t *slot_index;          /* per slot: the index last written
                                    (committed) */
  guint8 *slot_state;            /* per slot: an MxlCreditSlot */
} MxlCreditHolds;

/** The initiator's credits for one target: its own, whatever other
 * targets release (fan-out stays independent). */
typedef struct MxlCreditWindow {
  uint64_t id;                   /* the id announced to this target */
  MxlCreditHolds slots;          /* what was written into each slot */
  /* untrusted releases, counted and ignored */
  uint64_t releases_ahead, releases_backwards, releases_unknown;
  uint64_t releases;             /* releases that freed a slot */
} MxlCreditWindow;

/**
 * mxl_credit_window_init:
 * @ring: the target's grain count (TargetInfo regions), 1 ..
 *   MXL_CREDIT_RING_MAX.
 * @id: the id this initiator announces to the target, not 0.
 * Returns: MXL_STATUS_OK, or MXL_ERR_INVALID_ARG for a ring or id out of
 * range (@w then holds nothing). Free with mxl_credit_window_clear().
 */
mxlStatus mxl_credit_window_init (MxlCreditWindow *w, guint ring, uint64_t id);
void mxl_credit_window_clear (MxlCreditWindow *w);

/** TRUE when grain @index may be written now: its slot is free or holds
 * @index itself. */
gboolean mxl_credit_window_may_write (const MxlCreditWindow *w, uint64_t index);

/** Records that grain @index was posted into its slot (after
 * mxl_credit_window_may_write() said yes). */
void mxl_credit_window_note_written (MxlCreditWindow *w, uint64_t index);

/**
 * mxl_credit_window_on_release:
 * Applies a release received from the target (untrusted). Only
 * MXL_CREDIT_RELEASED changes the window; every other verdict is counted
 * in its field of @w and otherwise ignored.
 */
MxlCreditVerdict mxl_credit_window_on_release (MxlCreditWindow *w,
    const MxlCreditRelease *r);

/** @ring: the target's grain count, 1 .. MXL_CREDIT_RING_MAX. Returns:
 * MXL_STATUS_OK or MXL_ERR_INVALID_ARG. Free with mxl_credit_holds_clear(). */
mxlStatus mxl_credit_holds_init (MxlCreditHolds *h, guint ring);
void mxl_credit_holds_clear (MxlCreditHolds *h);

/** Records that grain @index was committed into its slot. */
void mxl_credit_holds_commit (MxlCreditHolds *h, uint64_t index);

/**
 * mxl_credit_holds_release:
 * The reader is done with grain @index.
 * Returns: MXL_STATUS_OK (the slot is free: a release is due to the
 * initiator), MXL_ERR_INVALID_ARG when the slot of @index does not hold it
 * (never committed, overwritten since) or MXL_ERR_INVALID_STATE when it
 * was released already.
 */
mxlStatus mxl_credit_holds_release (MxlCreditHolds *h, uint64_t index);
