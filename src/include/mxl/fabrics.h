/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MXL Fabrics API: targets (receivers) and initiators (senders) of MXL flows
 * over libfabric remote write with immediate data. Names, types, constants
 * and status codes follow the MXL Fabrics design (mxl/fabrics.h of the MXL
 * SDK, API version 0) so code written against it compiles here; the wire
 * format is docs/wire-format.md.
 *
 * Threading: a target or an initiator is driven by one thread at a time
 * unless its setup options enable the progress thread.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <mxl/flow.h>
#include <mxl/mxl.h>
#include <mxl/platform.h>

#define MXL_FABRICS_API_VERSION 0
#define MXL_FABRICS_FLAG(n) (1 << (n))

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mxlFabricsInstance_t *mxlFabricsInstance;
typedef struct mxlFabricsTarget_t *mxlFabricsTarget;
typedef struct mxlFabricsTargetInfo_t *mxlFabricsTargetInfo;
typedef struct mxlFabricsInitiator_t *mxlFabricsInitiator;

/** Fabric provider (docs/wire-format.md §5.1). */
typedef enum mxlFabricsProvider_t {
  MXL_FABRICS_PROVIDER_ANY = 0,    /* only meaningful as a query filter */
  MXL_FABRICS_PROVIDER_TCP = 1,    /* FI_EP_MSG over kernel TCP sockets */
  MXL_FABRICS_PROVIDER_VERBS = 2,  /* FI_EP_MSG over ibverbs + rdma_cm */
  MXL_FABRICS_PROVIDER_EFA = 3,    /* FI_EP_RDM over AWS Elastic Fabric Adapter */
  MXL_FABRICS_PROVIDER_SHM = 4,    /* FI_EP_RDM between processes of one host */
} mxlFabricsProvider;

/** Endpoint address: numeric IP literal and port for tcp/verbs (service: a
 * port number 0 … 65535 or a service name of the host's services database,
 * e.g. "http"), GID for efa, names for shm. */
typedef struct mxlFabricsEndpointAddress_t {
  char const *node;
  char const *service;
} mxlFabricsEndpointAddress;

typedef enum mxlFabricsInterfaceCapFlags_t {
  MXL_FABRICS_IFACE_CAP_BLOCKING_OPERATIONS = MXL_FABRICS_FLAG (0),
  MXL_FABRICS_IFACE_CAP_REMOTE_WRITE = MXL_FABRICS_FLAG (1),
  MXL_FABRICS_IFACE_CAP_SEND_RECEIVE = MXL_FABRICS_FLAG (2),
} mxlFabricsInterfaceCapFlags;

typedef struct mxlFabricsInterfaceCaps_t {
  int version;               /* MXL_FABRICS_API_VERSION */
  uint64_t flags;            /* mxlFabricsInterfaceCapFlags */
  uint64_t maxMessageSize;   /* bytes; reported by mxlFabricsGetInterfaces() */
} mxlFabricsInterfaceCaps;

typedef struct mxlFabricsInterfaceConfig_t {
  int version;                          /* MXL_FABRICS_API_VERSION */
  mxlFabricsProvider provider;
  mxlFabricsInterfaceCaps caps;
  mxlFabricsEndpointAddress address;
  char const *attr;                     /* JSON object of extra attributes, or NULL */
} mxlFabricsInterfaceConfig;

typedef struct mxlFabricsInterfaceList_t mxlFabricsInterfaceList;
struct mxlFabricsInterfaceList_t {
  mxlFabricsInterfaceList *next;        /* NULL at the last entry */
  mxlFabricsInterfaceConfig interface;
};

typedef struct mxlFabricsTargetConfig_t {
  int version;                          /* MXL_FABRICS_API_VERSION */
  mxlFabricsInterfaceConfig interface;  /* provider and bind address */
  mxlFlowWriter writer;                 /* the flow remote initiators write into */
} mxlFabricsTargetConfig;

typedef struct mxlFabricsInitiatorConfig_t {
  int version;                          /* MXL_FABRICS_API_VERSION */
  mxlFabricsInterfaceConfig interface;  /* provider and bind address */
  mxlFlowReader reader;                 /* the flow transferred to targets */
} mxlFabricsInitiatorConfig;

/**
 * mxlFabricsCreateInstance:
 * @in_instance: the MXL instance whose flows are transferred (not owned).
 * @options: (nullable): ignored JSON text.
 * @out_fabricsInstance: (out) (transfer full): free with mxlFabricsDestroyInstance().
 *
 * Sets FI_MR_CACHE_MONITOR=disabled in the environment before any libfabric
 * call (docs/wire-format.md §3.1).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL arguments.
 */
MXL_EXPORT mxlStatus mxlFabricsCreateInstance (mxlInstance in_instance,
    char const *options, mxlFabricsInstance *out_fabricsInstance);

/** Destroys the instance and every target and initiator it still owns.
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL. */
MXL_EXPORT mxlStatus mxlFabricsDestroyInstance (mxlFabricsInstance in_instance);

/**
 * mxlFabricsGetInterfaces:
 * @in_query: (nullable): filter by provider and address.node; caps ignored.
 * @out_list: (out) (transfer full): list in fi_getinfo order, or NULL when
 *   nothing matches; free with mxlFabricsFreeInterfaceList().
 *
 * Lists this host's fabric interfaces (docs/wire-format.md §5.4). Providers whose
 * cq_data_size is below 4 bytes are left out (no immediate data).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL arguments.
 */
MXL_EXPORT mxlStatus mxlFabricsGetInterfaces (mxlFabricsInstance in_instance,
    mxlFabricsInterfaceConfig const *in_query, mxlFabricsInterfaceList **out_list);

/** Frees a list from mxlFabricsGetInterfaces(). Returns: MXL_STATUS_OK. */
MXL_EXPORT mxlStatus mxlFabricsFreeInterfaceList (mxlFabricsInterfaceList *interfaceList);

/** Creates an unconfigured target. Returns: MXL_STATUS_OK, MXL_ERR_INVALID_ARG. */
MXL_EXPORT mxlStatus mxlFabricsCreateTarget (mxlFabricsInstance in_fabricsInstance,
    mxlFabricsTarget *out_target);

/** Closes the target's endpoints and regions and frees it.
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL or a target of another instance. */
MXL_EXPORT mxlStatus mxlFabricsDestroyTarget (mxlFabricsInstance in_fabricsInstance,
    mxlFabricsTarget in_target);

/**
 * mxlFabricsTargetSetup:
 * @in_config: provider, bind address and the flow writer to receive into.
 * @in_options: (nullable): JSON object: cqDepth (completion queue depth,
 *   integer >= 1), protocol (a name mxlFabricsExtGetProtocol() lists;
 *   default: of the protocols the provider offers, the one of the lowest
 *   targetRank),
 *   maxMessageSize, iovLimit, progressThread, postRingCapacity.
 * @out_info: (out) (transfer full): the TargetInfo to hand to initiators;
 *   free with mxlFabricsFreeTargetInfo().
 *
 * Opens fabric, domain and endpoint (a listening passive endpoint for
 * FI_EP_MSG providers), registers every grain slot (discrete flows) or an
 * audio bounce ring (continuous flows). Never waits for an initiator.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG (bad config or options);
 * MXL_ERR_INVALID_STATE (provider ANY, already set up); MXL_ERR_NO_FABRIC
 * (no provider matches); MXL_ERR_UNSUPPORTED_OPERATION (the protocol the
 * options ask for is not offered by the provider, e.g. "tagged" on tcp);
 * MXL_ERR_UNKNOWN (other libfabric failure).
 */
MXL_EXPORT mxlStatus mxlFabricsTargetSetup (mxlFabricsTarget in_target,
    mxlFabricsTargetConfig const *in_config, char const *in_options,
    mxlFabricsTargetInfo *out_info);

/**
 * mxlFabricsTargetReadGrainNonBlocking:
 * @out_grainIndex: (out): absolute grain index of the grain that completed.
 *
 * Drives connection state and drains one completion. On success the target
 * has already published the grain to local readers: it commits the slot
 * (mxlFlowWriterOpenGrain() + mxlFlowWriterCommitGrain()) with validSlices
 * set from the immediate data (docs/wire-format.md §6.9); the application need not
 * commit again (doing so is harmless).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_NOT_READY (nothing completed);
 * MXL_ERR_INVALID_ARG (immediate data or grain header out of range: counted,
 * nothing written); MXL_ERR_INVALID_STATE (not set up, or a sample target);
 * MXL_ERR_OUT_OF_RANGE_TOO_LATE (= MXL_FABRICS_EXT_STATUS_CQ_OVERRUN, once:
 * more than cqDepth completions arrived between two drains; nothing is
 * dropped, the next reads return them); the flow writer's status when the
 * commit fails.
 */
MXL_EXPORT mxlStatus mxlFabricsTargetReadGrainNonBlocking (mxlFabricsTarget in_target,
    uint64_t *out_grainIndex);

/** Blocking variant: waits at most @in_timeoutMs milliseconds.
 * Returns as the non-blocking variant; MXL_ERR_NOT_READY on timeout. */
MXL_EXPORT mxlStatus mxlFabricsTargetReadGrain (mxlFabricsTarget in_target,
    uint16_t in_timeoutMs, uint64_t *out_grainIndex);

/**
 * mxlFabricsTargetReadSamplesNonBlocking:
 * @out_headIndex: (out): head index of the batch (one past its newest sample).
 * @out_count: (out): samples per channel in the batch.
 *
 * Drives connection state and drains one completion of the bounce ring
 * (docs/wire-format.md §4.4). On success the samples head - count … head - 1 of every
 * channel are unpacked into the flow's channel rings at positions computed
 * with this flow's own ring length, and the target has already published
 * them (mxlFlowWriterOpenSamples() + mxlFlowWriterCommitSamples()), like
 * grains; the application need not commit.
 *
 * Returns: MXL_STATUS_OK (samples unpacked and committed); MXL_ERR_NOT_READY;
 * MXL_ERR_INVALID_ARG (bad entry index or entry header from the network:
 * counted, not unpacked); MXL_FABRICS_EXT_STATUS_SAMPLES_LOST
 * (<mxl/fabrics-ext.h>, a value of its own: one batch was overwritten
 * before it could be unpacked, the initiator is more than the ring ahead);
 * MXL_ERR_OUT_OF_RANGE_TOO_LATE (= MXL_FABRICS_EXT_STATUS_CQ_OVERRUN, as
 * for grains: nothing lost); MXL_ERR_INVALID_STATE
 * (not set up, or a grain target); the flow writer's status when the commit
 * fails.
 */
MXL_EXPORT mxlStatus mxlFabricsTargetReadSamplesNonBlocking (mxlFabricsTarget in_target,
    uint64_t *out_headIndex, size_t *out_count);

/** Blocking variant: waits at most @in_timeoutMs milliseconds. */
MXL_EXPORT mxlStatus mxlFabricsTargetReadSamples (mxlFabricsTarget in_target,
    uint16_t in_timeoutMs, uint64_t *out_headIndex, size_t *out_count);

/** Creates an unconfigured initiator. Returns: MXL_STATUS_OK, MXL_ERR_INVALID_ARG. */
MXL_EXPORT mxlStatus mxlFabricsCreateInitiator (mxlFabricsInstance in_fabricsInstance,
    mxlFabricsInitiator *out_initiator);

/** Closes every connection and frees the initiator.
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG. */
MXL_EXPORT mxlStatus mxlFabricsDestroyInitiator (mxlFabricsInstance in_fabricsInstance,
    mxlFabricsInitiator in_initiator);

/**
 * mxlFabricsInitiatorSetup:
 * @in_options: (nullable): JSON object, same keys as mxlFabricsTargetSetup().
 *
 * Opens fabric and domain and registers the reader's grain slots or channel
 * rings for FI_WRITE.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG; MXL_ERR_INVALID_STATE;
 * MXL_ERR_NO_FABRIC; MXL_ERR_UNKNOWN.
 */
MXL_EXPORT mxlStatus mxlFabricsInitiatorSetup (mxlFabricsInitiator in_initiator,
    mxlFabricsInitiatorConfig const *in_config, char const *in_options);

/**
 * mxlFabricsInitiatorAddTarget:
 * @in_targetInfo: (transfer none): copied.
 *
 * Adds a target; the connection is made by later MakeProgress calls (never
 * blocks).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_EXISTS (same target id already added);
 * MXL_ERR_INVALID_ARG (info unusable: no regions, continuous flow without
 * bounceBufferInfo, geometry that does not match the local flow);
 * MXL_ERR_UNSUPPORTED_OPERATION (the target expects a protocol, TargetInfo
 * ext.protocol, that this initiator cannot speak or its "protocol" option
 * excludes).
 */
MXL_EXPORT mxlStatus mxlFabricsInitiatorAddTarget (mxlFabricsInitiator in_initiator,
    mxlFabricsTargetInfo in_targetInfo);

/** Removes a target (matched by TargetInfo id); its connection is closed by
 * later MakeProgress calls. Returns: MXL_STATUS_OK; MXL_ERR_NOT_FOUND. */
MXL_EXPORT mxlStatus mxlFabricsInitiatorRemoveTarget (mxlFabricsInitiator in_initiator,
    mxlFabricsTargetInfo in_targetInfo);

/**
 * mxlFabricsInitiatorTransferGrain:
 * @in_grainIndex: absolute grain index (slot = index mod the target's grain count).
 * @in_startSlice: first slice (0 includes the 8192-byte grain header).
 * @in_endSlice: one past the last slice (<= totalSlices).
 *
 * Posts the remote writes of slices [start, end) of every plane to every
 * connected target (docs/wire-format.md §3.3); the last write carries immediate data
 * `slot | (end << 16)`.
 *
 * Targets that are added but not connected (AddTarget returned, the
 * connection is still being set up; a target re-added after a loss; a lost
 * target) do not get the grain: it is not queued for them, and each such
 * target gets a transfer result with MXL_ERR_NOT_READY and counts it in
 * `transfersNotConnected` (mxlFabricsExtInitiatorGetStats()). Wait for the
 * MXL_FABRICS_EXT_STATE_CONNECTED event (mxlFabricsExtInitiatorPollEvent())
 * before the first transfer, or send again after NOT_READY.
 *
 * Credits (our extension, docs/wire-format.md §11.7): a connected target
 * that advertised credits and has not released the grain its slot holds
 * does not get this grain either (counted in its grainsNoCredit), and the
 * call returns MXL_ERR_NOT_READY although the other targets got it; when
 * every connected target is such a target, nothing is posted.
 * mxlFabricsExtInitiatorWaitCredit() (<mxl/fabrics-ext.h>) waits for a
 * credit first.
 *
 * Returns: MXL_STATUS_OK (posted or queued for at least one connected
 * target, or no target added); MXL_ERR_INVALID_ARG (start > end, end >
 * totalSlices, a write beyond a region); MXL_ERR_NOT_READY (the provider's
 * queue stayed full past the retry deadline, targets are added but none
 * is connected, or a target with credits had none). With the progress
 * thread (setup option "progressThread") the call returns before the
 * connections are looked at: a refusal then shows in the results and the
 * counter only (credits are looked at in the call itself).
 */
MXL_EXPORT mxlStatus mxlFabricsInitiatorTransferGrain (mxlFabricsInitiator in_initiator,
    uint64_t in_grainIndex, uint16_t in_startSlice, uint16_t in_endSlice);

/**
 * mxlFabricsInitiatorTransferSamples:
 * @in_headIndex: one past the newest sample of the batch (>= @in_count).
 * @in_count: samples per channel, 1 … the local ring length.
 *
 * Writes samples head - count … head - 1 of every channel into the next
 * bounce entry of every connected target (docs/wire-format.md §4.3): the 16-byte
 * header then each channel's ring fragments, cut into writes by iov_limit;
 * the last write carries the entry index. A batch longer than a target's
 * entries is sent as several entries of consecutive samples.
 *
 * Targets that are added but not connected are refused as by
 * mxlFabricsInitiatorTransferGrain(): one MXL_ERR_NOT_READY result each
 * (grainIndex = @in_headIndex), counted in `transfersNotConnected`.
 *
 * Credits (our extension, docs/wire-format.md §11.7, one per bounce
 * entry): a connected target that advertised credits whose next entries
 * (as many as the batch takes) still hold batches the target has not
 * consumed does not get this batch (counted in its grainsNoCredit), and
 * the call returns MXL_ERR_NOT_READY although the other targets got it;
 * when every connected target is such a target, nothing is posted. The
 * target frees an entry itself once it committed the entry's samples into
 * its flow (no release call); the initiator takes the releases in its
 * progress (the progress thread, or MakeProgress and
 * mxlFabricsExtInitiatorWaitCredit() without it).
 *
 * Returns: MXL_STATUS_OK (posted or queued for at least one connected
 * target, or no target added); MXL_ERR_INVALID_ARG (count 0, longer than
 * the ring, head < count); MXL_ERR_INVALID_STATE (a grain initiator, not
 * set up); MXL_ERR_NOT_READY (the provider's queue stayed full past the
 * retry deadline, targets are added but none is connected, or a target
 * with credits had none; with the progress thread only the results say
 * so, except for credits, which are looked at in the call itself).
 */
MXL_EXPORT mxlStatus mxlFabricsInitiatorTransferSamples (mxlFabricsInitiator in_initiator,
    uint64_t in_headIndex, size_t in_count);

/**
 * mxlFabricsInitiatorMakeProgressNonBlocking:
 * Moves connection states, reads completions and event queue entries.
 *
 * Returns: MXL_STATUS_OK (every target connected, nothing in flight);
 * MXL_ERR_NOT_READY (work pending); MXL_ERR_INTERRUPTED (no targets left).
 */
MXL_EXPORT mxlStatus mxlFabricsInitiatorMakeProgressNonBlocking (mxlFabricsInitiator in_initiator);

/** Blocking variant: returns at the latest after @in_timeoutMs milliseconds. */
MXL_EXPORT mxlStatus mxlFabricsInitiatorMakeProgressBlocking (mxlFabricsInitiator in_initiator,
    uint16_t in_timeoutMs);

/** Exact, case-sensitive "any", "tcp", "verbs", "efa", "shm".
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG otherwise. */
MXL_EXPORT mxlStatus mxlFabricsProviderFromString (char const *in_string,
    mxlFabricsProvider *out_provider);

/** Writes the provider name. NULL @out_string: *@in_stringSize = length + 1.
 * Returns: MXL_STATUS_OK; MXL_ERR_STRLEN (buffer too small);
 * MXL_ERR_INVALID_ARG (unknown provider, NULL size). */
MXL_EXPORT mxlStatus mxlFabricsProviderToString (mxlFabricsProvider in_provider,
    char *out_string, size_t *in_stringSize);

/**
 * mxlFabricsTargetInfoToString:
 * Serialises as compact JSON (docs/wire-format.md §1.2). With @out_string NULL,
 * *@in_stringSize receives the required size (length + 1 for the NUL).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_STRLEN (buffer too small);
 * MXL_ERR_INVALID_ARG (NULL info or size).
 */
MXL_EXPORT mxlStatus mxlFabricsTargetInfoToString (mxlFabricsTargetInfo in_targetInfo,
    char *out_string, size_t *in_stringSize);

/**
 * mxlFabricsTargetInfoFromString:
 * Parses a TargetInfo JSON document; unknown keys are ignored.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for a malformed document
 * (the reason is logged with g_message(), log domain "mxlfabrics").
 */
MXL_EXPORT mxlStatus mxlFabricsTargetInfoFromString (char const *in_string,
    mxlFabricsTargetInfo *out_targetInfo);

/** Frees a TargetInfo. Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL. */
MXL_EXPORT mxlStatus mxlFabricsFreeTargetInfo (mxlFabricsTargetInfo in_info);

#ifdef __cplusplus
}
#endif
