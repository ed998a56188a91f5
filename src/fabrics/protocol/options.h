/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Setup options JSON of targets and initiators (docs/wire-format.md §7.3 and
 * our extensions). One parser for both roles; unknown keys are ignored.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include <mxl/mxl.h>

struct MxlProtocolDesc;

typedef struct MxlSetupOptions {
  uint32_t cq_depth;            /* "cqDepth": integer >= 1; default MXL_DEFAULT_CQ_DEPTH */
  uint64_t max_message_size;    /* "maxMessageSize": bytes >= 1; 0 = provider's max_msg_size */
  uint32_t iov_limit;           /* "iovLimit": >= 1; 0 = provider's tx iov_limit */
  gboolean protocol_set;        /* "protocol" given */
  /* "protocol": the name of a row of the protocol table (protocol_table.c);
   * default its MXL_TARGET_INFO_DEFAULT_PROTOCOL row, setup stores the one
   * it chose (setup.c) */
  const struct MxlProtocolDesc *protocol;
  gboolean progress_thread;     /* "progressThread": boolean, default FALSE */
  gboolean exclusive;           /* "exclusive": boolean, default TRUE (target: one
                                   initiator at a time, docs/fabrics-engine.md) */
  gboolean samples_staging;     /* "samplesStaging": boolean, default TRUE (initiator of a
                                   continuous flow: one packed write per entry) */
  uint32_t post_ring_capacity;  /* "postRingCapacity": power of two >= 2; default MXL_DEFAULT_POST_RING_CAPACITY */
  gboolean reconnect;           /* "reconnect": boolean, default FALSE (initiator: a lost
                                   connection is retried with the back-off) */
  gboolean credits;             /* "credits": boolean, default FALSE (target:
                                   advertise the credit extension; of a grain
                                   flow the reader releases every grain it
                                   read, of an audio flow the target each
                                   bounce entry it committed,
                                   src/fabrics/wire/credit.h) */
} MxlSetupOptions;

/**
 * MXL_DEFAULT_CQ_DEPTH:
 * Default completion queue depth of a target. Sizing rule (two-phase drain):
 * depth >= completions that can arrive between two drains. A 1080p60
 * receiver drained every 10 ms with transfers sliced into 8 ranges per
 * grain sees 60 * 8 / 100 ≈ 5 completions per drain per initiator; 64 leaves
 * headroom for 8 initiators or bursts after a stall.
 */
#define MXL_DEFAULT_CQ_DEPTH 64u
#define MXL_DEFAULT_POST_RING_CAPACITY 1024u
/* Largest accepted values (bounded allocations from user-supplied JSON). */
#define MXL_MAX_CQ_DEPTH (1u << 20)
#define MXL_MAX_IOV_LIMIT 1024u
#define MXL_MAX_POST_RING_CAPACITY (1u << 20)

/**
 * mxl_setup_options_parse:
 * @json: (nullable): NULL or "" mean all defaults; otherwise a JSON object.
 * @out: (out): parsed options with defaults filled in.
 * @error: (out): reason naming the offending key.
 *
 * Keys (unknown keys are ignored): "cqDepth" integer 1..MXL_MAX_CQ_DEPTH;
 * "maxMessageSize" integer >= 1 (bytes); "iovLimit" integer
 * 1..MXL_MAX_IOV_LIMIT; "protocol" a name of the protocol table (mxl_protocols[]); "progressThread"
 * boolean; "samplesStaging" boolean; "postRingCapacity" power of two 2..MXL_MAX_POST_RING_CAPACITY;
 * "exclusive" boolean; "reconnect" boolean; "credits" boolean. An integer may be written 64.0 but not 2.5.
 *
 * *@out is overwritten (it owns nothing); on failure it holds the defaults.
 *
 * Returns: MXL_STATUS_OK, or MXL_ERR_INVALID_ARG for malformed JSON, a
 * non-object root, or a key with a wrong type or out-of-range value
 * (non-integer, zero, negative); @error is then G_IO_ERROR_INVALID_DATA with
 * a message naming the key.
 */
mxlStatus mxl_setup_options_parse (const char *json, MxlSetupOptions *out,
    GError **error);

/**
 * mxl_setup_options_validate:
 * Like mxl_setup_options_parse() but an unknown key is an error too
 * (mxlFabricsExtValidateOptions()). Returns: MXL_STATUS_OK or
 * MXL_ERR_INVALID_ARG with @error set (G_IO_ERROR_INVALID_DATA).
 */
mxlStatus mxl_setup_options_validate (const char *json, GError **error);

/** Fills @out with the defaults (owning nothing). */
void mxl_setup_options_defaults (MxlSetupOptions *out);
