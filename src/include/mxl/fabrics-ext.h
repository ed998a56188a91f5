/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Extensions of the MXL Fabrics API (not in the MXL SDK): an extra provider
 * value for RDM over TCP, per-target statistics, connection states and
 * connection events, and the libfabric version in use.
 *
 * Everything here is additive: the reference API in <mxl/fabrics.h> behaves
 * the same whether or not these functions are called.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <mxl/fabrics.h>
#include <mxl/mxl.h>
#include <mxl/platform.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * MXL_FABRICS_EXT_PROVIDER_TCP_RXM:
 * Provider value for libfabric's "tcp;ofi_rxm" (FI_EP_RDM, connectionless,
 * over TCP). Accepted by mxlFabricsTargetSetup(), mxlFabricsInitiatorSetup()
 * and as a query of mxlFabricsGetInterfaces(); its name is "tcp;ofi_rxm"
 * (mxlFabricsExtProviderFromString(), mxlFabricsProviderToString()). The
 * reference's mxlFabricsProviderFromString() rejects that name, and so does
 * ours. A TargetInfo of such a target names the provider "tcp;ofi_rxm".
 * Chosen far from the reference enum values so it can never collide.
 */
#define MXL_FABRICS_EXT_PROVIDER_TCP_RXM ((mxlFabricsProvider) 101)

/**
 * MXL_FABRICS_EXT_SHM_NODE_PREFIX:
 * A shm interface node of the form MXL_FABRICS_EXT_SHM_NODE_PREFIX
 * "<pid>-<n>" (e.g. "mxlfabrics-4242-0", what mxlfabricssrc and
 * mxlfabricssink use by default) declares that the endpoint belongs to
 * process <pid>: once that process is gone, the next shm setup of any
 * process removes the region it left in /dev/shm. Regions of other node
 * names are never removed by this library: such a region of a killed
 * process stays (16 MiB) until removed by hand.
 */
#define MXL_FABRICS_EXT_SHM_NODE_PREFIX "mxlfabrics-"

/**
 * MXL_FABRICS_EXT_STATUS_CQ_OVERRUN:
 * Status returned once by a target read when more completions were waiting
 * than the completion queue depth (cqDepth): the application drains too
 * slowly and, on providers with hardware queues, completions could have been
 * lost. No completion is dropped by this library; the next reads return
 * them. Counted in mxlFabricsExtTargetStats.cqOverruns.
 */
#define MXL_FABRICS_EXT_STATUS_CQ_OVERRUN MXL_ERR_OUT_OF_RANGE_TOO_LATE

/**
 * MXL_FABRICS_EXT_STATUS_SAMPLES_LOST:
 * Returned by mxlFabricsTargetReadSamples*() once per batch of samples that
 * was lost because the initiator ran more than the bounce ring ahead of the
 * target's reads (docs/wire-format.md §2.3: the ring has no flow control): its entry
 * was overwritten before it could be unpacked, or while it was being
 * copied. Nothing of it is unpacked; keep reading. Counted in
 * mxlFabricsExtTargetStats.batchesLost. A value of its own, outside the
 * reference's statuses, so that a reader tells a lost batch (a gap in the
 * samples: the next batch is a discontinuity) from
 * MXL_FABRICS_EXT_STATUS_CQ_OVERRUN, which sample targets report as well
 * and which loses nothing.
 */
#define MXL_FABRICS_EXT_STATUS_SAMPLES_LOST ((mxlStatus) 2002)

/**
 * MXL_FABRICS_EXT_STATUS_END_OF_STREAM:
 * Returned by a target read (mxlFabricsTargetReadGrain*(),
 * mxlFabricsTargetReadSamples*()) when the initiator sent its end-of-stream
 * notice (mxlFabricsExtInitiatorSendEndOfStream(), docs/wire-format.md
 * §11.8): every grain or batch it wrote before the notice was returned by
 * the reads before this one; nothing is committed by this read. Only a
 * target whose TargetInfo advertises the notice (ext."eos") returns it;
 * the connection stays as it was (a new stream may follow). Counted in
 * mxlFabricsExtTargetStats.endOfStreamNotices. A value of its own, outside
 * the reference's statuses.
 */
#define MXL_FABRICS_EXT_STATUS_END_OF_STREAM ((mxlStatus) 2001)

/** Accepts "any", "tcp", "verbs", "efa", "shm" and "tcp;ofi_rxm".
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG otherwise or for NULL. */
MXL_EXPORT mxlStatus mxlFabricsExtProviderFromString (char const *in_string,
    mxlFabricsProvider *out_provider);

/**
 * mxlFabricsExtProviderInfo:
 * @provider: the provider value of mxlFabricsTargetSetup() and the other
 *   setup and query calls (MXL_FABRICS_PROVIDER_* or
 *   MXL_FABRICS_EXT_PROVIDER_TCP_RXM).
 * @name: its name as mxlFabricsExtProviderFromString() accepts it and
 *   mxlFabricsProviderToString() writes it ("tcp", "tcp;ofi_rxm", ...).
 *   Static, owned by the library.
 * @description: one line of English for users (element property help).
 *   Static, owned by the library.
 * @autoRank: order of an automatic choice among the providers whose
 *   interfaces are present: 1 is the first choice (the fastest transport),
 *   then 2, 3, ...; 0 for a provider used only when named
 *   ("tcp;ofi_rxm"). What the GStreamer elements' provider=auto uses.
 *
 * One provider this library knows.
 */
typedef struct mxlFabricsExtProviderInfo {
  mxlFabricsProvider provider;
  char const *name;
  char const *description;
  uint32_t autoRank;
} mxlFabricsExtProviderInfo;

/**
 * mxlFabricsExtGetProvider:
 * @in_index: 0, 1, ... up to the number of known providers (5 today: tcp,
 *   verbs, efa, shm, tcp;ofi_rxm, in that order; "any" is not a provider
 *   and is not listed).
 * @out_info: (out): filled with provider @in_index; its strings are static.
 *
 * Lists the providers this library can set up, whether or not this host
 * has interfaces for them (mxlFabricsGetInterfaces() lists those). Iterate
 * from 0 until the call returns MXL_ERR_NOT_FOUND.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_NOT_FOUND for @in_index past the last
 * provider; MXL_ERR_INVALID_ARG for NULL @out_info.
 */
MXL_EXPORT mxlStatus mxlFabricsExtGetProvider (size_t in_index,
    mxlFabricsExtProviderInfo *out_info);

/**
 * mxlFabricsExtProviderNodeIsName:
 * @out_isName: (out): true when the provider's interface node is any name
 *   of the application's choice (shm: it names the endpoint), false when
 *   it is a numeric address (tcp, tcp;ofi_rxm, verbs: an IP literal; efa:
 *   an IPv6 GID), which an application resolves from a host name itself
 *   (the elements: docs/fabrics-engine.md "Providers").
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL or a value that is
 * no provider (MXL_FABRICS_PROVIDER_ANY included).
 */
MXL_EXPORT mxlStatus mxlFabricsExtProviderNodeIsName (mxlFabricsProvider in_provider,
    bool *out_isName);

/**
 * mxlFabricsExtChooseInterface:
 * @in_instance: a fabrics instance.
 * @in_provider: the provider asked for, or MXL_FABRICS_PROVIDER_ANY for the
 *   best one present: the lowest nonzero autoRank
 *   (mxlFabricsExtGetProvider()) among the providers of the interfaces
 *   mxlFabricsGetInterfaces() lists on this host.
 * @out_provider: (out): the provider chosen.
 * @out_node: (out) (optional): buffer for a default address.node of that
 *   provider, NUL-terminated: for shm, and for a provider whose interfaces
 *   list no address, a name unique to this process and call,
 *   MXL_FABRICS_EXT_SHM_NODE_PREFIX "<pid>-<n>" (so the endpoint's region
 *   is swept once the process is gone); otherwise the first address of the
 *   provider's interfaces that is not a loopback one (127.0.0.0/8, ::1:
 *   only this host could reach it), else its first.
 * @in_node_len: size of @out_node in bytes (64 is always enough).
 *
 * What the GStreamer elements do with provider=auto and an empty node.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_NOT_FOUND when this host has no interface
 * of @in_provider (for ANY: of any provider with a nonzero autoRank);
 * MXL_ERR_INVALID_ARG for a NULL @in_instance or @out_provider, or an
 * @out_node too small for the node.
 */
MXL_EXPORT mxlStatus mxlFabricsExtChooseInterface (mxlFabricsInstance in_instance,
    mxlFabricsProvider in_provider, mxlFabricsProvider *out_provider, char *out_node,
    size_t in_node_len);

/**
 * mxlFabricsExtProtocolInfo:
 * @name: its name as the "protocol" setup option and the TargetInfo's
 *   ext."protocol" take it (docs/wire-format.md §11.1). Static, owned by the library.
 * @capability: the libfabric capability a provider must offer for it
 *   ("FI_RMA", "FI_MSG", "FI_TAGGED"). Static, owned by the library.
 * @targetRank: a target without a "protocol" option takes, of the
 *   protocols its provider offers, the one of the lowest rank (0 first).
 *
 * One transfer protocol this library speaks.
 */
typedef struct mxlFabricsExtProtocolInfo {
  char const *name;
  char const *capability;
  uint32_t targetRank;
} mxlFabricsExtProtocolInfo;

/**
 * mxlFabricsExtGetProtocol:
 * @in_index: 0, 1, ... up to the number of protocols, in the order of
 *   the library's protocol table.
 * @out_info: (out): filled with protocol @in_index; its strings are static.
 *
 * Lists the transfer protocols of this library (the values of the
 * "protocol" setup option), whether or not a provider offers them. Iterate
 * from 0 until the call returns MXL_ERR_NOT_FOUND.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_NOT_FOUND for @in_index past the last
 * protocol; MXL_ERR_INVALID_ARG for NULL @out_info.
 */
MXL_EXPORT mxlStatus mxlFabricsExtGetProtocol (size_t in_index,
    mxlFabricsExtProtocolInfo *out_info);

/**
 * mxlFabricsExtOptionInfo:
 * @name: the key in the setup options JSON ("cqDepth").
 * @type: its JSON type: "integer", "boolean" or "string".
 * @meaning: what it sets, with its unit or range ("completion queue
 *   entries"), in words for a help text.
 * @targetDefault: the library's value on a target when the key is not
 *   given, as text ("64", "true", "the provider's max_msg_size"); NULL
 *   when a target does not use the key.
 * @initiatorDefault: the same on an initiator.
 *
 * One key of the setup options (docs/wire-format.md §11.2): the row of the
 * table the library's options parser reads them by.
 */
typedef struct mxlFabricsExtOptionInfo {
  char const *name;
  char const *type;
  char const *meaning;
  char const *targetDefault;
  char const *initiatorDefault;
} mxlFabricsExtOptionInfo;

/**
 * mxlFabricsExtGetOption:
 * @in_index: 0, 1, ... up to the number of keys, in the order of the
 *   library's options table.
 * @out_info: (out): filled with key @in_index; its strings are static.
 *
 * Lists the setup option keys this library knows (those
 * mxlFabricsExtValidateOptions() accepts), so that an application can
 * build its help from them. Iterate from 0 until the call returns
 * MXL_ERR_NOT_FOUND.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_NOT_FOUND for @in_index past the last
 * key; MXL_ERR_INVALID_ARG for NULL @out_info.
 */
MXL_EXPORT mxlStatus mxlFabricsExtGetOption (size_t in_index,
    mxlFabricsExtOptionInfo *out_info);

/**
 * mxlFabricsExtValidateOptions:
 * @in_options: (nullable): setup options JSON as given to
 *   mxlFabricsTargetSetup() / mxlFabricsInitiatorSetup() (docs/wire-format.md §7.3);
 *   NULL or "" are valid (all defaults).
 * @out_error: (out) (optional): buffer for the reason, NUL-terminated,
 *   naming the offending key and what it accepts.
 * @in_error_len: size of @out_error in bytes.
 *
 * Stricter than setup, which ignores keys it does not know: here an unknown
 * key is an error too (a misspelt option in an element property is caught at
 * once). Values are checked by the same rules setup applies.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for malformed JSON, a non-object,
 * an unknown key or a bad value.
 */
MXL_EXPORT mxlStatus mxlFabricsExtValidateOptions (char const *in_options, char *out_error,
    size_t in_error_len);

/**
 * mxlFabricsExtOptionsWithDefaults:
 * @in_options: (nullable): setup options JSON as an application gives them
 *   (NULL or "": none).
 * @in_progressThread: "progressThread" when @in_options does not set it.
 * @in_reconnect: true: "reconnect" is true whatever @in_options say
 *   (false: @in_options' own value, or none, stays).
 * @out_options: (out) (transfer full): the options to pass to
 *   mxlFabricsTargetSetup() / mxlFabricsInitiatorSetup() (docs/wire-format.md
 *   §7.3): @in_options' keys and values, with the two above applied; free
 *   with free(). NULL on failure.
 * @out_progressThread: (out) (optional): whether the options ask for the
 *   progress thread (@in_progressThread when @in_options' value is not a
 *   boolean: setup then refuses it).
 *
 * Builds setup options from an application's own and its defaults, so that
 * an application never edits the JSON itself. Values are not checked here
 * (setup and mxlFabricsExtValidateOptions() do).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for malformed JSON, a document
 * that is not an object, or a NULL @out_options (pass @in_options to setup
 * as they are, for it to refuse them with its reason).
 */
MXL_EXPORT mxlStatus mxlFabricsExtOptionsWithDefaults (char const *in_options,
    bool in_progressThread, bool in_reconnect, char **out_options, bool *out_progressThread);

/**
 * mxlFabricsExtGetLibfabricVersion:
 * @out_major, @out_minor: (out): fi_version() of the libfabric in use at run
 *   time (Debian 12: 1.17), which may differ from the headers built against.
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL.
 */
MXL_EXPORT mxlStatus mxlFabricsExtGetLibfabricVersion (uint32_t *out_major,
    uint32_t *out_minor);

/**
 * mxlFabricsExtConnectionState:
 * State of a connection as the application sees it.
 * Initiator side (per added target): IDLE (waiting to connect, e.g. after a
 * refused attempt, retried with back-off), CONNECTING, CONNECTED, LOST (the
 * connection failed or the target stopped answering; by default not retried:
 * re-add the TargetInfo, or add the restarted target's new one), REMOVED.
 * With the initiator setup option "reconnect": true (docs/wire-format.md
 * §11.2) a LOST connection becomes IDLE again by itself after the back-off
 * (100 ms, doubled per attempt up to 2 s; it starts afresh only after a
 * connection that stayed up 5 s, so a target that accepts and drops at once
 * is not retried in a tight loop); its LOST event says when
 * (mxlFabricsExtConnectionEvent.retryAtNs).
 * Target side: LISTENING (RC, no initiator), CONNECTING (RC, accepting),
 * CONNECTED (RC with an initiator; RDM targets are always CONNECTED).
 */
typedef enum mxlFabricsExtConnectionState {
  MXL_FABRICS_EXT_STATE_IDLE = 0,
  MXL_FABRICS_EXT_STATE_LISTENING = 1,
  MXL_FABRICS_EXT_STATE_CONNECTING = 2,
  MXL_FABRICS_EXT_STATE_CONNECTED = 3,
  MXL_FABRICS_EXT_STATE_LOST = 4,
  MXL_FABRICS_EXT_STATE_REMOVED = 5,
} mxlFabricsExtConnectionState;

/** Returns: (transfer none): "idle", "listening", "connecting", "connected",
 * "lost", "removed", or "unknown". */
MXL_EXPORT char const *mxlFabricsExtConnectionStateName (mxlFabricsExtConnectionState in_state);

/**
 * mxlFabricsExtConnectionEvent:
 * @targetId: the TargetInfo id of the connection (initiator events), or the
 *   target's own id (target events).
 * @previous, @current: the state before and after the transition.
 * @reason: MXL_STATUS_OK for requested transitions; otherwise the failure
 *   that caused it (MXL_ERR_NOT_READY for a timeout, MXL_ERR_INTERRUPTED for
 *   an orderly shutdown by the peer (its FI_SHUTDOWN, or a write that ended
 *   with FI_ECANCELED, FI_ECONNRESET or a like error because its endpoint
 *   closed) and for a shm target known gone: its
 *   process exited, or a target of this process closed; MXL_ERR_UNKNOWN for
 *   transport errors).
 * @timestampNs: CLOCK_MONOTONIC nanoseconds of the transition.
 * @retryAtNs: an initiator's transition to LOST with the setup option
 *   "reconnect": CLOCK_MONOTONIC nanoseconds at which the library retries it
 *   (the connection becomes IDLE then, and CONNECTING at the next progress
 *   call); 0 otherwise (not retried until AddTarget).
 */
typedef struct mxlFabricsExtConnectionEvent_t {
  int version;                       /* MXL_FABRICS_API_VERSION */
  uint64_t targetId;
  mxlFabricsExtConnectionState previous;
  mxlFabricsExtConnectionState current;
  mxlStatus reason;
  uint64_t timestampNs;
  uint64_t retryAtNs;
} mxlFabricsExtConnectionEvent;

/**
 * mxlFabricsExtInitiatorPollEvent:
 * Pops the oldest connection event. Events are queued by the progress
 * calls (MakeProgress*, TransferGrain) and AddTarget/RemoveTarget; the queue
 * keeps the newest 256 events.
 * Returns: MXL_STATUS_OK (@out_event filled); MXL_ERR_NOT_READY (none);
 * MXL_ERR_INVALID_ARG for NULL.
 */
MXL_EXPORT mxlStatus mxlFabricsExtInitiatorPollEvent (mxlFabricsInitiator in_initiator,
    mxlFabricsExtConnectionEvent *out_event);

/**
 * mxlFabricsExtInitiatorSetNotify:
 * @in_notify: (nullable): called when the initiator has news for its
 *   application: a connection event was queued
 *   (mxlFabricsExtInitiatorPollEvent()), or a pass of the progress thread
 *   did work (writes posted or completed: transfer results, slots freed).
 *   It runs with the initiator's lock held, on whichever thread made the
 *   change (the progress thread, or an API call): it must only signal (an
 *   eventfd write, an atomic flag), never call the initiator or take a lock
 *   that is held around initiator calls. NULL removes it.
 *
 * Lets an application wait on its own event source (poll, GMainContext)
 * instead of polling for events (what the elements do:
 * gst/mxlfabricssinkconn.c). Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG
 * for a NULL initiator.
 */
MXL_EXPORT mxlStatus mxlFabricsExtInitiatorSetNotify (mxlFabricsInitiator in_initiator,
    void (*in_notify) (void *in_data), void *in_data);

/**
 * mxlFabricsExtInitiatorGetWaitFd:
 * @out_fd: (out): a file descriptor that becomes readable (poll(2)
 *   POLLIN; never read it) when the initiator's completion or connection
 *   event queue has something for mxlFabricsInitiatorMakeProgressNonBlocking();
 *   owned by the initiator, valid until it is destroyed. -1 when there is
 *   none: the provider has no wait objects (shm, efa on libfabric 1.17,
 *   docs/libfabric-notes.md P9) or the library's progress thread runs
 *   (then wait for mxlFabricsExtInitiatorSetNotify()).
 *
 * For an application that makes progress itself and waits on its own
 * event loop instead of calling MakeProgress on a timer. Wait on it only
 * after mxlFabricsExtInitiatorTryWait() returned MXL_STATUS_OK, and with a
 * deadline (connection attempts and transfer deadlines are timers: a
 * progress call every few milliseconds while any is under way).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL arguments.
 */
MXL_EXPORT mxlStatus mxlFabricsExtInitiatorGetWaitFd (mxlFabricsInitiator in_initiator,
    int *out_fd);

/**
 * mxlFabricsExtInitiatorTryWait:
 *
 * fi_trywait(3) on the queues behind mxlFabricsExtInitiatorGetWaitFd():
 * whether the caller may now block on that fd.
 *
 * Returns: MXL_STATUS_OK (nothing pending: wait on the fd);
 * MXL_ERR_NOT_READY (something is pending: make progress first);
 * MXL_ERR_INVALID_STATE when there is no wait fd; MXL_ERR_INVALID_ARG for
 * NULL.
 */
MXL_EXPORT mxlStatus mxlFabricsExtInitiatorTryWait (mxlFabricsInitiator in_initiator);

/**
 * mxlFabricsExtInitiatorGetTargetState:
 * Returns: MXL_STATUS_OK; MXL_ERR_NOT_FOUND (no target with that id);
 * MXL_ERR_INVALID_ARG for NULL.
 */
MXL_EXPORT mxlStatus mxlFabricsExtInitiatorGetTargetState (mxlFabricsInitiator in_initiator,
    mxlFabricsTargetInfo in_targetInfo, mxlFabricsExtConnectionState *out_state);

/**
 * mxlFabricsExtTargetPollEvent:
 * Pops the oldest connection event of a target (RC: initiator accepted,
 * initiator gone). Read calls queue them. Returns as
 * mxlFabricsExtInitiatorPollEvent().
 */
MXL_EXPORT mxlStatus mxlFabricsExtTargetPollEvent (mxlFabricsTarget in_target,
    mxlFabricsExtConnectionEvent *out_event);

/**
 * mxlFabricsExtTargetStats:
 * Counters of a target since setup. All counts are events, not bytes.
 */
typedef struct mxlFabricsExtTargetStats_t {
  int version;                   /* MXL_FABRICS_API_VERSION */
  mxlFabricsExtConnectionState state;
  uint64_t grainsReceived;       /* completions committed to the flow */
  uint64_t badImmediateData;     /* slot >= grain count or slice end > totalSlices */
  uint64_t badGrainHeaders;      /* header index not in the slot, or grainSize /
                                    totalSlices not those of the local flow */
  uint64_t cqOverruns;           /* reads that found more completions than cqDepth */
  uint64_t completionsSuperseded; /* completions skipped because a newer one for
                                    the same ring slot was already waiting (a
                                    later slice range of the grain, or a newer
                                    grain that overwrote the slot), or whose
                                    slot already holds the header of a newer
                                    write still landing (lapped) */
  uint64_t completionErrors;     /* error completions and CQ failures */
  uint64_t completionsWithoutData; /* completions carrying no immediate data */
  uint64_t connectionsAccepted;  /* RC: initiators accepted; claim targets
                                    (shm, efa, rxm, wire-format.md §11.4):
                                    claims of a new owner taken up */
  uint64_t connectionsRejected;  /* RC: requests refused while connected */
  uint64_t disconnections;       /* RC: initiators gone (shutdown or error) */
  uint64_t commitFailures;       /* flow writer refused the commit */
  /* continuous flows */
  uint64_t batchesReceived;      /* batches of samples unpacked and committed */
  uint64_t batchesLost;          /* bounce entries overwritten before unpacking
                                    (MXL_FABRICS_EXT_STATUS_SAMPLES_LOST) */
  uint64_t badBounceEntries;     /* entry headers with count 0, count above the
                                    entry's capacity, or head < count; send
                                    protocol: refused message headers */
  uint64_t entriesOutOfSequence; /* entry index not the previous one + 1 mod
                                    entryCount (initiator restarted, or batches lost) */
  uint64_t samplesSkipped;       /* samples per channel between two delivered
                                    batches that never arrived */
  uint64_t readResultsDropped;   /* progress thread: read results (grains
                                    committed, errors) dropped, oldest first,
                                    because the application read fewer than
                                    MXL_FABRICS_EXT_RESULT_QUEUE_MAX behind */
  uint64_t initiatorsRefused;    /* initiators refused because another one
                                    is this target's sender: RC connection
                                    requests rejected while connected, RDM
                                    claims of a second initiator (setup
                                    option "exclusive", docs/fabrics-engine.md) */
  /* the credit extension (setup option "credits", docs/fabrics-engine.md
   * "Credits") */
  uint64_t creditReleasesSent;   /* releases sent to the initiator */
  uint64_t creditReleasesUnsent; /* releases with no initiator to send them
                                    to (none announced itself, or it left)
                                    or whose send failed */
  uint64_t endOfStreamNotices;   /* end-of-stream notices returned
                                    (MXL_FABRICS_EXT_STATUS_END_OF_STREAM) */
  uint64_t noticesRefused;       /* end-of-stream notices ignored: an exclusive
                                    connectionless target's from another
                                    initiator than its owner (a notice at a
                                    target that does not advertise it is
                                    counted in badImmediateData) */
  uint64_t creditAnnouncesBad;   /* connectionless targets with credits:
                                    announce messages ignored (length, magic,
                                    reserved bits, no address, an address
                                    the AV refused) */
} mxlFabricsExtTargetStats;

/**
 * mxlFabricsExtTargetReadGrainLapped:
 * @in_timeoutMs: 0 returns at once (mxlFabricsTargetReadGrainNonBlocking());
 *   otherwise waits up to this long, as mxlFabricsTargetReadGrain().
 * @out_grainIndex: (out): as mxlFabricsTargetReadGrain().
 * @out_lapped: (out): with MXL_STATUS_OK, how many whole grains were lapped
 *   since the grain committed before this one (since setup for the first):
 *   their completions came before this grain's, but a newer grain had
 *   already overwritten their ring slot, so they were never committed nor
 *   returned (counted in mxlFabricsExtTargetStats.completionsSuperseded).
 *   Each is a grain the initiator wrote whole (the completion of its last
 *   slice); a completion of an earlier slice range is superseded without
 *   being counted here (a later range of the same grain may follow it).
 *
 * mxlFabricsTargetReadGrain() that also tells how many grains sent before
 * the returned one were lost to the ring before they could be committed:
 * with it a reader accounts for every grain the initiator wrote, also for
 * those lapped before the first grain it is given (an initiator that
 * writes more than a ring before the target first reads), which leave no
 * gap between two returned indices. On an initiator that sends in index
 * order the lapped grains lie between the grain returned before and this
 * one. Returns as mxlFabricsTargetReadGrain(); MXL_ERR_INVALID_ARG for NULL.
 */
MXL_EXPORT mxlStatus mxlFabricsExtTargetReadGrainLapped (mxlFabricsTarget in_target,
    uint16_t in_timeoutMs, uint64_t *out_grainIndex, uint64_t *out_lapped);

/**
 * mxlFabricsExtTargetInterruptRead:
 * Makes a mxlFabricsTargetReadGrain() / ReadSamples() that waits return
 * MXL_ERR_INTERRUPTED at once: with the progress thread, and without it on
 * a provider whose queues can wait (tcp, verbs: fi_cq_signal(3) ends the
 * wait on the completion queue, an FI_NOTIFY entry, fi_eq_write(3), the
 * wait for a connection); on shm and efa (polled, no wait objects) within
 * one wait slice, MXL_TARGET_WAIT_SLICE_MS. With no read waiting, the next
 * read returns it. Any thread, e.g. a GStreamer unlock(), so that reads may
 * wait long without making flushes wait. Returns: MXL_STATUS_OK;
 * MXL_ERR_INVALID_ARG for NULL.
 */
MXL_EXPORT mxlStatus mxlFabricsExtTargetInterruptRead (mxlFabricsTarget in_target);

/**
 * mxlFabricsExtTargetReleaseGrain:
 * @in_index: the index of a grain mxlFabricsTargetReadGrain() returned
 *   (an absolute grain index, not a ring slot).
 *
 * The credit extension (setup option "credits"; docs/wire-format.md §11.7):
 * the reader is done with grain @in_index, so the initiator may write the
 * grain index @in_index + the ring length into its ring slot. Until then an
 * initiator that announced itself does not overwrite the slot
 * (mxlFabricsExtInitiatorWaitCredit()): a reader that releases every grain
 * it read, in any order, sees every grain. The release is sent at once
 * (fi_inject(3), one 24-byte message, no completion to wait for); nothing
 * is sent when no initiator announced itself (a reference initiator: it
 * writes as it always did), which is counted in creditReleasesUnsent. The
 * call never blocks.
 *
 * A target of an audio flow with credits releases each bounce entry
 * itself, as soon as it committed the entry's samples into its flow
 * (docs/fabrics-engine.md "Credits", Audio): its reader calls nothing and
 * reads samples from the flow as without credits; this call refuses it.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL, or when the slot
 * of @in_index does not hold that grain as read (never read, or
 * overwritten since); MXL_ERR_INVALID_STATE when the target is not set up,
 * has no "credits" option, receives audio (it releases by itself), or
 * @in_index was released already.
 */
MXL_EXPORT mxlStatus mxlFabricsExtTargetReleaseGrain (mxlFabricsTarget in_target,
    uint64_t in_index);

/**
 * mxlFabricsExtTargetCreditsAnnounced:
 * @out_announced: (out): true when the initiator connected to the target
 *   now announced itself (one of ours that saw
 *   ext.credits in the TargetInfo): it does not write the ring slot of a
 *   grain the reader holds (returned by a read, not yet released with
 *   mxlFabricsExtTargetReleaseGrain()), so the reader may use the slot's
 *   payload in place until it releases it. false with no initiator
 *   connected, or one that did not announce itself (a reference
 *   initiator: it writes every slot as it comes round).
 *
 * The credit extension (setup option "credits"; docs/wire-format.md §11.7,
 * docs/fabrics-engine.md "Credits"). The answer is about the connection of
 * the moment: an initiator that connects later starts with every slot
 * free (a grain held from before it is not protected from it), so a reader
 * asks for each grain it reads, after the read. Any thread; never blocks
 * (the credit state's own lock).
 *
 * On a connectionless provider (shm, tcp;ofi_rxm) "announced" is the
 * initiator's announce message, acknowledged (§11.7); for audio the
 * target releases each bounce entry itself once committed, so the answer
 * only says that the initiator honours credits.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for a NULL argument;
 * MXL_ERR_INVALID_STATE when the target is not set up or has no "credits"
 * option.
 */
MXL_EXPORT mxlStatus mxlFabricsExtTargetCreditsAnnounced (mxlFabricsTarget in_target,
    bool *out_announced);

/** Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL;
 * MXL_ERR_INVALID_STATE when the target is not set up. */
MXL_EXPORT mxlStatus mxlFabricsExtTargetGetStats (mxlFabricsTarget in_target,
    mxlFabricsExtTargetStats *out_stats);

/**
 * mxlFabricsExtTargetSetupTwoPaths:
 * @in_config: the first path (provider, bind address) and the flow writer
 *   to receive into, as mxlFabricsTargetSetup().
 * @in_pathB: the second path: its provider (tcp, verbs: connected; a
 *   provider of another fabric is allowed) and bind address (another
 *   interface, or another service of the same one). Not kept.
 * @in_options: (nullable): as mxlFabricsTargetSetup(), applied to both
 *   paths; "progressThread" is implied (each path has its progress thread,
 *   waiting on its own completion queue; reads wait for either).
 * @out_info: (out) (transfer full): the TargetInfo: a valid one-path
 *   TargetInfo of the first path for any initiator (the MXL reference's
 *   included), with the second path under ext."pathB"
 *   (docs/wire-format.md §11.9); free with mxlFabricsFreeTargetInfo().
 *
 * Seamless protection (the idea of SMPTE ST 2022-7; docs/fabrics-engine.md
 * "Two paths"): an initiator of this library sends every grain on both
 * paths (mxlFabricsInitiatorAddTarget()); the target commits, for each
 * grain index, the first valid copy from either path, without waiting for
 * the second, and counts the other as a duplicate. The first path's remote
 * writes land in the flow's grain slots as with one path; the second's in
 * a private ring of the same geometry (a private domain, <mxl/flow-ext.h>),
 * from which a copy is validated (the same checks as the first path's:
 * immediate data, grain header) and copied into the flow only when the
 * flow has not committed that index yet and the index is not older than
 * the flow's ring (then counted late): nothing the second path sends can
 * overwrite a grain the first delivered. Reads, events (the first path's),
 * interrupt and mxlFabricsExtTargetGetStats() (the first path's counters)
 * work as for one path; mxlFabricsExtTargetGetPathStats() gives each
 * path's. Grain flows only; not with the "credits" option.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG (NULL, bad config or
 * options, a continuous flow, "credits" asked for); MXL_ERR_INVALID_STATE
 * (provider ANY, already set up); the errors of mxlFabricsTargetSetup() for
 * either path (MXL_ERR_NO_FABRIC, MXL_ERR_UNSUPPORTED_OPERATION,
 * MXL_ERR_UNKNOWN); MXL_ERR_PERMISSION_DENIED or MXL_ERR_UNKNOWN when the
 * private ring could not be made (mxlPrivateDomainCreate(),
 * mxlCreateFlowWriter()). On failure nothing is left set up and the target
 * may be set up again.
 */
MXL_EXPORT mxlStatus mxlFabricsExtTargetSetupTwoPaths (mxlFabricsTarget in_target,
    mxlFabricsTargetConfig const *in_config, mxlFabricsInterfaceConfig const *in_pathB,
    char const *in_options, mxlFabricsTargetInfo *out_info);

/**
 * mxlFabricsExtTargetPathStats:
 * Counters of one path of a two-path target since setup (counts are
 * grains unless named otherwise).
 */
typedef struct mxlFabricsExtTargetPathStats_t {
  int version;                   /* MXL_FABRICS_API_VERSION */
  mxlFabricsExtConnectionState state; /* the path's endpoint */
  uint64_t grains;               /* grain indices this path committed first */
  uint64_t bytes;                /* payload bytes of those (valid slices) */
  uint64_t duplicates;           /* copies of an index already committed
                                    (by the other path, or by this one) */
  uint64_t recovered;            /* indices only this path delivered: it
                                    committed them and no copy came from the
                                    other path before the ring slot was
                                    reused (or until now) */
  uint64_t late;                 /* second path: valid copies not taken
                                    because the flow's slot holds a newer
                                    grain (older than the ring) */
  uint64_t invalid;              /* this path's badImmediateData +
                                    badGrainHeaders */
} mxlFabricsExtTargetPathStats;

/**
 * mxlFabricsExtTargetGetPathStats:
 * @in_path: 0 (the first path) or 1 (the second, ext."pathB").
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL; MXL_ERR_INVALID_STATE
 * when the target is not set up; MXL_ERR_NOT_FOUND when it has one path
 * (mxlFabricsTargetSetup()) or @in_path is above 1.
 */
MXL_EXPORT mxlStatus mxlFabricsExtTargetGetPathStats (mxlFabricsTarget in_target,
    uint32_t in_path, mxlFabricsExtTargetPathStats *out_stats);

/**
 * mxlFabricsExtInitiatorStats:
 * Counters of an initiator since setup, summed over its targets.
 */
typedef struct mxlFabricsExtInitiatorStats_t {
  int version;                   /* MXL_FABRICS_API_VERSION */
  uint64_t transfersQueued;      /* per target: one per target per transfer call */
  uint64_t transfersCompleted;   /* per target: last write completed */
  uint64_t transfersDropped;     /* not accepted: post ring full until the
                                    deadline (transfer call), or not started
                                    within 1 s or before their local slot
                                    came round again (per target,
                                    mxlFabricsExtInitiatorReleaseGrainSlot) */
  uint64_t writesPosted;         /* fi_writemsg calls that succeeded */
  uint64_t writesCompleted;
  uint64_t writeErrors;          /* error completions */
  uint64_t retries;              /* -FI_EAGAIN answers from the provider */
  uint64_t bytesPosted;
  uint64_t connectionsLost;
  uint32_t targets;              /* targets currently added */
  uint32_t targetsConnected;
  uint64_t postRingFull;         /* progress thread: transfer calls refused with
                                    MXL_ERR_NOT_READY because the post ring stayed
                                    full until the deadline (also in
                                    transfersDropped) */
  uint64_t transfersFailed;      /* per target: results with a status other
                                    than OK (mxlFabricsExtTransferResult) */
  uint64_t transferResultsDropped; /* results dropped, oldest first, because the
                                    application polled fewer than
                                    MXL_FABRICS_EXT_RESULT_QUEUE_MAX behind */
  uint64_t transfersNotConnected; /* per target: transfers refused because the
                                    target was added but not connected (still
                                    connecting, re-added after a loss, or lost);
                                    each also has a result with
                                    MXL_ERR_NOT_READY (so in transfersFailed) */
} mxlFabricsExtInitiatorStats;

/** Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL;
 * MXL_ERR_INVALID_STATE when the initiator is not set up. */
MXL_EXPORT mxlStatus mxlFabricsExtInitiatorGetStats (mxlFabricsInitiator in_initiator,
    mxlFabricsExtInitiatorStats *out_stats);

/**
 * mxlFabricsExtInitiatorSendEndOfStream:
 * @in_timeoutMs: how long to wait for the notices' completions (ms).
 * @out_sent: (out) (optional): notices that completed.
 *
 * Sends the end-of-stream notice (docs/wire-format.md §11.8) to every
 * connected target whose TargetInfo advertises it (ext."eos"); a target
 * that does not (the MXL reference, an older TargetInfo) gets nothing.
 * Call it after the last transfer: each target's notice is posted once
 * every transfer queued to it before has gone out and completed, so the
 * target reports it (MXL_FABRICS_EXT_STATUS_END_OF_STREAM) after those
 * grains or batches. Each notice is one remote write with immediate data
 * (fi_rma(3), FI_REMOTE_CQ_DATA; zero bytes, or the claim token to an
 * exclusive connectionless target). Waits at most @in_timeoutMs in all,
 * driving progress itself without a progress thread; a target whose
 * transfers did not complete by then gets no notice.
 *
 * Returns: MXL_STATUS_OK (also when no target advertises it);
 * MXL_ERR_INVALID_ARG for NULL; MXL_ERR_INVALID_STATE when not set up;
 * MXL_ERR_TIMEOUT when a notice was not sent or did not complete in time
 * (@out_sent counts those that completed).
 */
MXL_EXPORT mxlStatus mxlFabricsExtInitiatorSendEndOfStream (mxlFabricsInitiator in_initiator,
    uint16_t in_timeoutMs, uint32_t *out_sent);

/**
 * mxlFabricsExtInitiatorGrainInFlight:
 * @in_grainIndex: a grain index of the initiator's (discrete) local flow
 * @out_inFlight: set to true while the local ring slot of @in_grainIndex
 *   (index mod grain count) is still read by a transfer: queued, or posted
 *   and its writes not all completed (a write of a lost connection counts
 *   until its context is reclaimed). Remote write reads the local slot, header
 *   and payload, when the provider sends it, not when TransferGrain is
 *   called (fi_writemsg(3): the buffer must not change until completion).
 *
 * A writer that overwrites such a slot makes the target receive a grain
 * whose header is one grain and whose payload is partly another: check this
 * before mxlFlowWriterOpenGrain() of an index whose slot may be in flight,
 * and drive progress (or skip the grain) while it is true.
 *
 * With a progress thread ("progressThread"), transfers the application
 * queued but the thread has not taken up yet make every slot count as in
 * flight (a conservative answer; it turns false once they are taken up).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL;
 * MXL_ERR_INVALID_STATE when the initiator is not set up or its flow is
 * continuous (audio).
 */
MXL_EXPORT mxlStatus mxlFabricsExtInitiatorGrainInFlight (mxlFabricsInitiator in_initiator,
    uint64_t in_grainIndex, bool *out_inFlight);

/**
 * mxlFabricsExtInitiatorReleaseGrainSlot:
 * @in_grainIndex: the grain index about to be written into the local flow
 *   (discrete flows); its local ring slot is index mod grain count.
 * @in_dropHolders: also disconnect targets whose posted writes still read
 *   the slot (see below).
 * @out_inFlight: (out): as mxlFabricsExtInitiatorGrainInFlight(), after
 *   what this call released.
 *
 * Makes the slot of @in_grainIndex free for the writer at the cost of the
 * targets that are a ring behind, never of the others. A transfer of the
 * slot's previous grain still queued on a target and not started is
 * dropped from that target's queue (its result fails with
 * MXL_ERR_OUT_OF_RANGE_TOO_LATE; counted in its transfersDropped,
 * mxlFabricsExtInitiatorGetTargetStats()). With @in_dropHolders, a target
 * on a connected endpoint (FI_EP_MSG: tcp, verbs) whose posted writes still
 * read the slot is disconnected (state lost, reason
 * MXL_ERR_OUT_OF_RANGE_TOO_LATE; counted in fellBehind) when another
 * connected target does not hold the slot: closing its endpoint ends the
 * provider's reads of the slot (fi_endpoint(3), fi_close), so the others
 * need not skip the grain. A lone target, and targets on connectionless
 * endpoints (FI_EP_RDM: shm, efa, tcp;ofi_rxm), whose posted writes cannot
 * be withdrawn, keep the slot busy until those writes complete: the caller
 * then skips the grain, as with GrainInFlight.
 *
 * Independently of this call, TransferGrain does not queue a grain on a
 * target whose oldest unfinished transfer is half the local ring (at most
 * 32 grains) older than the grain, when another connected target is not
 * that far behind: the target is behind, the grain is counted in its
 * grainsSkipped, and its posted writes thus hold at most half the ring. A
 * lone target is never skipped.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL;
 * MXL_ERR_INVALID_STATE when the initiator is not set up or its flow is
 * continuous (audio).
 */
MXL_EXPORT mxlStatus mxlFabricsExtInitiatorReleaseGrainSlot (mxlFabricsInitiator in_initiator,
    uint64_t in_grainIndex, bool in_dropHolders, bool *out_inFlight);

/**
 * mxlFabricsExtInitiatorTargetStats:
 * Counters of one target of an initiator, kept from AddTarget until it is
 * removed (across reconnections).
 */
typedef struct mxlFabricsExtInitiatorTargetStats_t {
  int version;                   /* MXL_FABRICS_API_VERSION */
  mxlFabricsExtConnectionState state;
  uint64_t grainsSkipped;        /* grains not queued on it: it was behind
                                    (its oldest unfinished transfer half the
                                    local ring older, at most 32 grains)
                                    while another target was not */
  uint64_t transfersDropped;     /* queued on it and dropped before they
                                    started: not within 1 s, or their local
                                    slot came up for reuse
                                    (mxlFabricsExtInitiatorReleaseGrainSlot) */
  uint64_t fellBehind;           /* disconnections because its posted writes
                                    still read a slot the others needed */
  bool behind;                   /* it was behind at the last grain */
  uint64_t transfersFailed;      /* queued on it, not dropped, and failed:
                                    its connection was lost (fellBehind,
                                    the target went away) or a post or
                                    write failed; lost for it, as the
                                    dropped ones are */
  /* the credit extension (docs/fabrics-engine.md "Credits") */
  bool credits;                  /* the connection uses credits: the
                                    target advertised them and this
                                    initiator announced itself */
  uint64_t grainsNoCredit;       /* TransferGrain (TransferSamples) calls
                                    it did not get: its ring slot (next
                                    bounce entries) not released yet */
  uint64_t creditReleases;       /* releases that freed a slot (entry) */
  uint64_t creditReleasesAhead;  /* ignored: a grain index never written
                                    into its slot (beyond the newest
                                    written, or skipped) */
  uint64_t creditReleasesBackwards; /* ignored: a grain released already,
                                    or an older occupant of its slot */
  uint64_t creditReleasesUnknown; /* ignored: naming another initiator id */
  uint64_t creditReleasesBad;    /* ignored: not a release message (length,
                                    magic, reserved bits) or a failed
                                    receive */
  uint64_t creditReservationsReturned; /* grains whose transfer to this
                                    target was dropped before any write was
                                    posted (transfersDropped): their slot's
                                    credit given back, as no release will
                                    come for them */
} mxlFabricsExtInitiatorTargetStats;

/**
 * mxlFabricsExtInitiatorGetTargetStats:
 * @in_targetInfo: a TargetInfo added to the initiator (matched by its id).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL; MXL_ERR_NOT_FOUND
 * for a target not added (or removed); MXL_ERR_INVALID_STATE when the
 * initiator is not set up.
 */
MXL_EXPORT mxlStatus mxlFabricsExtInitiatorGetTargetStats (mxlFabricsInitiator in_initiator,
    mxlFabricsTargetInfo in_targetInfo, mxlFabricsExtInitiatorTargetStats *out_stats);

/**
 * mxlFabricsExtInitiatorWaitCredit:
 * @in_targetInfo: (nullable): wait for this added target only; NULL: for
 *   every connected target with credits.
 * @in_index: the grain index about to be transferred; for an audio
 *   initiator the head of the batch about to be transferred, whose length
 *   is taken as @in_index minus the head of the batch last transferred to
 *   that target (one bounce entry when that is not a batch length, as for
 *   the first).
 * @in_timeoutMs: how long to wait at most (ms); 0: only check.
 *
 * The credit extension (docs/wire-format.md §11.7): with a target that
 * advertises credits (TargetInfo ext.credits), this initiator writes grain
 * index i into the target's ring slot only once the target released the
 * grain that slot held (mxlFabricsExtTargetReleaseGrain()) or the slot was
 * never used; on a connectionless provider (shm, tcp;ofi_rxm, efa) a
 * connected target has no credit at all until it acknowledged this
 * initiator's announce message (normally within a few ms of connecting;
 * the announce is repeated every 100 ms until then);
 * mxlFabricsInitiatorTransferGrain() of a grain some such target has no
 * credit for sends it to the other targets only and returns
 * MXL_ERR_NOT_READY (each target's credits are its own; counted in its
 * grainsNoCredit). Audio: the same per bounce entry, with
 * mxlFabricsInitiatorTransferSamples() (docs/wire-format.md §11.7). A
 * sender that must not lose grains (not live) calls this first; a live
 * one transfers and lets the grain go for that target.
 * Waits on the initiator's condition (progress thread: woken when a
 * release arrives) or on the completion queue (without it), never longer
 * than @in_timeoutMs.
 *
 * Returns: MXL_STATUS_OK when the target (every connected target with
 * credits) can take @in_index now (at once for a target without credits
 * or not connected); MXL_ERR_TIMEOUT when the time ran out;
 * MXL_ERR_INVALID_ARG for a NULL initiator; MXL_ERR_NOT_FOUND for a
 * target not added; MXL_ERR_INVALID_STATE when the initiator is not set
 * up.
 */
MXL_EXPORT mxlStatus mxlFabricsExtInitiatorWaitCredit (mxlFabricsInitiator in_initiator,
    mxlFabricsTargetInfo in_targetInfo, uint64_t in_index, uint16_t in_timeoutMs);

/**
 * mxlFabricsExtInitiatorSetGrainPayload:
 * @in_grainIndex: a grain index of the initiator's (discrete) local flow;
 *   the setting belongs to its local ring slot (index mod grain count), so
 *   it applies to every later grain of that slot until changed.
 * @in_payload: (nullable): the payload bytes of the grain, laid out as the
 *   flow's payload (grain size bytes from the payload offset: v210 lines
 *   without padding, then the key plane for v210a); NULL makes the slot's
 *   payload come from the local flow again.
 * @in_size: bytes readable at @in_payload; at least the flow's grain
 *   payload size (mxlGrainInfo.grainSize).
 *
 * Zero-copy sending: the writes of the slot's later transfers take the grain
 * header (index, flags, slices: what mxlFlowWriterCommitGrain() wrote) from
 * the local flow as always, and the payload straight from @in_payload, so
 * the application need not copy the payload into the flow. Ownership stays
 * with the caller: @in_payload must stay valid and unchanged until
 * mxlFabricsExtInitiatorGrainInFlight() says false for this slot
 * (fi_writemsg(3): a source buffer is read until its write completes).
 * Readers of the local flow see the header but not this payload: use it
 * when nobody else reads the flow (a private domain), or copy as well.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for a NULL initiator or
 * @in_size below the grain payload size; MXL_ERR_INVALID_STATE when the
 * initiator is not set up or its flow is continuous (audio);
 * MXL_ERR_NOT_READY while the slot is still read by a transfer (nothing
 * changed: drive progress and retry); MXL_ERR_UNSUPPORTED_OPERATION when the
 * provider requires registered local memory (FI_MR_LOCAL in its mr_mode:
 * verbs, efa; fi_mr(3)), where caller memory cannot be written from.
 */
MXL_EXPORT mxlStatus mxlFabricsExtInitiatorSetGrainPayload (mxlFabricsInitiator in_initiator,
    uint64_t in_grainIndex, const void *in_payload, size_t in_size);

/** Results kept for the application, per initiator and per target, before
 * the oldest are dropped (counted). */
#define MXL_FABRICS_EXT_RESULT_QUEUE_MAX 1024

/**
 * mxlFabricsExtTransferResult:
 * The outcome of one grain transfer to one target: every accepted
 * mxlFabricsInitiatorTransferGrain() call yields one result per target it
 * was queued to: every target connected when the transfer was taken up,
 * except one found behind the others then (not queued, no result: counted
 * once in that target's grainsSkipped, see
 * mxlFabricsExtInitiatorReleaseGrainSlot()), and one whose credits had no
 * slot for the grain (grainsNoCredit). A target added but not connected
 * gets a result of its own (MXL_ERR_NOT_READY, transfersNotConnected).
 * A transfer cut into several writes succeeds only when all its writes
 * completed without error; it fails as soon as it is known that one did not,
 * and is reported once its other writes have completed or been cancelled.
 */
typedef struct mxlFabricsExtTransferResult_t {
  int version;                   /* MXL_FABRICS_API_VERSION */
  mxlStatus status;              /* MXL_STATUS_OK: every write completed.
                                    Failures: the status of a post libfabric
                                    rejected (fi_writemsg(3)) or of an error
                                    completion (fi_cq_readerr(3)), mapped like
                                    every libfabric return code (MXL_ERR_UNKNOWN
                                    for most); MXL_ERR_INVALID_ARG (a write would
                                    leave the target's region); MXL_ERR_TIMEOUT
                                    (not started within 1 s, dropped);
                                    MXL_ERR_INTERRUPTED (the connection was lost
                                    or the target removed before it completed) */
  int providerError;             /* positive libfabric error number (FI_EIO, ...)
                                    of the failing post or completion; 0 if none */
  uint64_t targetId;             /* the TargetInfo id (mxlFabricsExtTargetInfoGetId) */
  uint64_t grainIndex;           /* as passed to TransferGrain */
  uint16_t startSlice;           /* the slice range as passed */
  uint16_t endSlice;
  uint32_t writes;               /* writes posted for it (0: never started) */
} mxlFabricsExtTransferResult;

/**
 * mxlFabricsExtInitiatorPollTransferResult:
 * @in_timeoutMs: 0 returns at once; otherwise waits up to this long (ms) for
 *   a result. Without a progress thread the calling thread drives progress
 *   while it waits; with one (setup option "progressThread") it sleeps on
 *   the queue the progress thread fills.
 * @out_result: (out): the oldest result not yet polled.
 *
 * Results are queued in completion order per target (up to
 * MXL_FABRICS_EXT_RESULT_QUEUE_MAX, then the oldest are dropped and counted
 * in transferResultsDropped). Polling them is optional.
 *
 * Returns: MXL_STATUS_OK with a result; MXL_ERR_NOT_READY when none arrived
 * within the timeout; MXL_ERR_INVALID_ARG for NULL; MXL_ERR_INVALID_STATE
 * when the initiator is not set up.
 */
MXL_EXPORT mxlStatus mxlFabricsExtInitiatorPollTransferResult (
    mxlFabricsInitiator in_initiator, uint16_t in_timeoutMs,
    mxlFabricsExtTransferResult *out_result);

/**
 * mxlFabricsExtTargetInfoParse:
 * @in_string: a TargetInfo JSON document (docs/wire-format.md §1.2).
 * @out_targetInfo: (out) (transfer full): free with mxlFabricsFreeTargetInfo().
 * @out_reason: (out) (transfer full) (nullable): on failure, why the document
 *   was refused, naming the key (free with free(3)); NULL to ignore.
 *
 * mxlFabricsTargetInfoFromString() with the reason handed back instead of
 * only logged, so applications can show users what to fix.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL arguments or a
 * malformed document.
 */
MXL_EXPORT mxlStatus mxlFabricsExtTargetInfoParse (char const *in_string,
    mxlFabricsTargetInfo *out_targetInfo, char **out_reason);

/**
 * mxlFabricsExtTargetInfoGetPath:
 * @in_path: 0: the first path (the TargetInfo without ext."pathB"), 1: the
 *   second path (ext."pathB", with the flow definition of the first).
 * @out_info: (out) (transfer full): a one-path TargetInfo of that path; free
 *   with mxlFabricsFreeTargetInfo().
 *
 * A TargetInfo of a two-path target (mxlFabricsExtTargetSetupTwoPaths(),
 * docs/wire-format.md §11.9) names two targets of an initiator:
 * mxlFabricsInitiatorAddTarget() and RemoveTarget() of the whole
 * TargetInfo add and remove both paths; with the one-path TargetInfo of a
 * path, GetTargetState(), GetTargetStats(), WaitCredit() and the rest give
 * that path's, and AddTarget() / RemoveTarget() add or remove that path
 * alone (its id is its own).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL; MXL_ERR_NOT_FOUND
 * for @in_path 1 of a one-path TargetInfo, or @in_path above 1.
 */
MXL_EXPORT mxlStatus mxlFabricsExtTargetInfoGetPath (mxlFabricsTargetInfo in_targetInfo,
    uint32_t in_path, mxlFabricsTargetInfo *out_info);

/** Returns: MXL_STATUS_OK with the TargetInfo's 64-bit id in @out_id;
 * MXL_ERR_INVALID_ARG for NULL. */
MXL_EXPORT mxlStatus mxlFabricsExtTargetInfoGetId (mxlFabricsTargetInfo in_targetInfo,
    uint64_t *out_id);

/**
 * mxlFabricsExtTargetInfoGetProvider:
 * @out_provider: (out): the provider the TargetInfo's "provider" names
 *   (names as mxlFabricsExtProviderFromString(), "tcp;ofi_rxm" included);
 *   MXL_FABRICS_PROVIDER_ANY for a name this library does not know.
 * @out_name: (out) (transfer none) (nullable): the name as written, valid
 *   as long as @in_targetInfo; NULL to ignore.
 *
 * An unknown provider name is accepted by the parser, as by the reference,
 * which maps it to "any" (docs/wire-format.md §1.4 step 8); the initiator always uses
 * its own provider. This lets an application tell its users that the
 * TargetInfo named something else.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL @in_targetInfo or
 * @out_provider.
 */
MXL_EXPORT mxlStatus mxlFabricsExtTargetInfoGetProvider (
    mxlFabricsTargetInfo in_targetInfo, mxlFabricsProvider *out_provider,
    char const **out_name);

/**
 * MXL_FABRICS_EXT_TARGET_INFO_MAX_FILE_BYTES:
 * The most bytes mxlFabricsExtTargetInfoFromUserString() reads from an
 * "@PATH" file (4 MiB, far more than any TargetInfo); a longer file is
 * refused. An application reading other "@PATH" values of its users (an
 * NMOS flow definition) can use the same bound.
 */
#define MXL_FABRICS_EXT_TARGET_INFO_MAX_FILE_BYTES (4u << 20)

/**
 * mxlFabricsExtReadUserFile:
 * @in_path: a file a user named with "@PATH" (a TargetInfo, a flow
 *   definition).
 * @out_contents: (out) (transfer full): its bytes with a NUL appended
 *   (free with free(3)); NULL on failure.
 * @out_length: (out) (optional): bytes read, the NUL not counted.
 * @out_reason: (out) (transfer full) (nullable): on failure the cause
 *   alone ("larger than 4194304 bytes", "not a regular file (a FIFO)",
 *   strerror(3)), free with free(3); NULL to ignore.
 *
 * Reads the file the way mxlFabricsExtTargetInfoFromUserString() reads an
 * "@PATH": at most MXL_FABRICS_EXT_TARGET_INFO_MAX_FILE_BYTES bytes (one
 * more is refused), and only a regular file: it is opened with
 * O_NONBLOCK | O_CLOEXEC (a FIFO without a writer does not block the open)
 * and fstat(2)ed, and a FIFO, a device (/dev/zero), a directory or a
 * socket is refused at once, so the call never waits for a writer
 * (docs/wire-format.md §1.6).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG (a NULL argument, or the
 * file holds more than the limit); MXL_ERR_NOT_FOUND (no such file);
 * MXL_ERR_PERMISSION_DENIED; MXL_ERR_UNSUPPORTED_OPERATION (not a regular
 * file: a FIFO, a device, a directory, a socket); MXL_ERR_UNKNOWN (another
 * open, fstat or read error).
 */
MXL_EXPORT mxlStatus mxlFabricsExtReadUserFile (char const *in_path,
    char **out_contents, size_t *out_length, char **out_reason);

/**
 * mxlFabricsExtTargetInfoFromUserString:
 * @in_text: what a user gives for a target: the TargetInfo JSON document
 *   (first non-blank character '{', docs/wire-format.md §1.2), that document
 *   base64-encoded as mxl-fabrics-demo prints it (§1.6; standard alphabet,
 *   padded or not, ASCII whitespace such as line wraps ignored), or "@PATH"
 *   naming a file that holds either of the two (at most
 *   MXL_FABRICS_EXT_TARGET_INFO_MAX_FILE_BYTES are read, and only from a
 *   regular file, as by mxlFabricsExtReadUserFile()).
 * @out_targetInfo: (out) (transfer full): free with mxlFabricsFreeTargetInfo().
 * @out_reason: (out) (transfer full) (nullable): on failure why the text
 *   was refused, naming the key or the file (free with free(3)); NULL to
 *   ignore.
 *
 * The one resolver of user-given TargetInfo text; the document is checked
 * as by mxlFabricsExtTargetInfoParse().
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL arguments, text that
 * is neither form, a malformed document, or a file that is too large or
 * holds a NUL byte; MXL_ERR_NOT_FOUND when the "@PATH" file does not exist
 * (yet: a caller may wait for it); MXL_ERR_PERMISSION_DENIED when it
 * cannot be opened for that reason; MXL_ERR_UNSUPPORTED_OPERATION when it
 * is not a regular file (a FIFO, a device, a directory); MXL_ERR_UNKNOWN
 * for another error reading it.
 */
MXL_EXPORT mxlStatus mxlFabricsExtTargetInfoFromUserString (char const *in_text,
    mxlFabricsTargetInfo *out_targetInfo, char **out_reason);

/**
 * mxlFabricsExtSplitTargetInfoList:
 * @in_text: (nullable): one or several of what
 *   mxlFabricsExtTargetInfoFromUserString() takes (a list a user gives for
 *   several targets at once).
 * @out_sources: (out) (transfer full): the sources in order,
 *   NULL-terminated (none for an empty @in_text); free with
 *   mxlFabricsExtFreeTargetInfoList().
 * @out_count: (out) (optional): how many.
 *
 * Splits a list of TargetInfo sources, each decided by its first
 * non-blank character as mxlFabricsExtTargetInfoFromUserString() decides
 * it. The rule: sources are separated by ';' or ','. A JSON source
 * ('{') runs to its matching '}', strings and their backslash escapes
 * honoured, so that separators inside it (a provider "tcp;ofi_rxm", the
 * commas of JSON) never split it; anything after its brace up to the next
 * separator stays part of it (for the resolver to refuse). Base64 holds
 * neither separator. An "@PATH" source runs to the next ';', and a ','
 * ends it only when the next source starts right after it ('@' or '{',
 * blanks allowed), since a file name may hold commas. Blanks around a
 * source are dropped and empty sources skipped; a list of one source is
 * returned as given, blanks and separators included.
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL @out_sources.
 */
MXL_EXPORT mxlStatus mxlFabricsExtSplitTargetInfoList (char const *in_text,
    char ***out_sources, size_t *out_count);

/**
 * mxlFabricsExtFreeTargetInfoList:
 * @in_sources: (nullable) (transfer full): what
 *   mxlFabricsExtSplitTargetInfoList() gave.
 */
MXL_EXPORT void mxlFabricsExtFreeTargetInfoList (char **in_sources);

/**
 * mxlFabricsExtTargetInfoGetFlowDef:
 * @out_flowDef: (out) (transfer none): the target flow's NMOS definition
 *   from "ext.flowDef" (our extension, docs/wire-format.md §1.2), valid as long as
 *   @in_targetInfo; NULL when the TargetInfo has none (a reference
 *   target). The text is as the target sent it: untrusted, parse it with
 *   mxlFlowExtParseDefinition() before use.
 *
 * Returns: MXL_STATUS_OK (also when there is none); MXL_ERR_INVALID_ARG for
 * NULL arguments.
 */
MXL_EXPORT mxlStatus mxlFabricsExtTargetInfoGetFlowDef (
    mxlFabricsTargetInfo in_targetInfo, char const **out_flowDef);

/**
 * mxlFabricsExtTargetInfoGetAddress:
 * @out_text: (out): the target's fabric address in words, as libfabric
 *   prints addresses ("fi_sockaddr_in://127.0.0.1:4711", "fi_ns://node:service"; "empty"
 *   when it cannot be decoded),
 *   NUL-terminated, cut to @in_len bytes.
 * @in_len: size of @out_text (64 bytes hold every decoded form).
 *
 * For messages that name where a target is (docs/wire-format.md §1.1).
 *
 * Returns: MXL_STATUS_OK; MXL_ERR_INVALID_ARG for NULL arguments or a
 * zero @in_len.
 */
MXL_EXPORT mxlStatus mxlFabricsExtTargetInfoGetAddress (mxlFabricsTargetInfo in_targetInfo,
    char *out_text, size_t in_len);

#ifdef __cplusplus
}
#endif
