/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bench-engine: the MXL Fabrics engine moving grains (or sample batches)
 * between two processes, through the public API only (<mxl/flow.h>,
 * <mxl/fabrics.h>, <mxl/fabrics-ext.h>). Same options and same JSON fields
 * as bench-bare-fabric, so bench/run_engine.py puts both side by side.
 *
 * The child is the *target*: its own MXL domain and flow (a flow writer the
 * target commits into, a flow reader to check what arrived), a target set
 * up on the provider, its TargetInfo sent to the parent as JSON over a
 * socketpair; it reads completions (mxlFabricsTargetReadGrain*) until the
 * initiator's total has arrived, checking each grain's two index stamps.
 *
 * The parent is the *initiator*: its own domain and flow of the same
 * definition, every slot filled once (the application's producer), then per
 * grain: open, stamp the index into the first and last 8 payload bytes,
 * commit, mxlFabricsInitiatorTransferGrain() of all slices. At most
 * `window` grains are in flight (transferred, not yet completed: the
 * engine's transfersCompleted counter), always fewer than the ring's grain
 * count, as an application pipelining over its ring would.
 *
 * Media are chosen by --size (the payload sizes of issue 9: 1080p and 2160p
 * v210, 1080p v210a, F32 audio batches) or by --media; each kind is a small
 * ops table (MediaOps): video grains now, audio batches through
 * mxlFabricsInitiatorTransferSamples() / mxlFabricsTargetReadSamples*().
 * Where the engine answers MXL_ERR_UNSUPPORTED_OPERATION the JSON line says
 * "unsupported" (exit 4) and no figure is printed.
 *
 * Every loop is bounded by --deadline; the child is killed by PID when it
 * overruns; both MXL domains are removed at the end.
 */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include <mxl/fabrics-ext.h>
#include <mxl/fabrics.h>
#include <mxl/flow-ext.h>
#include <mxl/flow.h>
#include <mxl/mxl.h>

#include "benchutil.h"

#define FLOW_ID "9b1f0c52-6a3e-4c1d-8f57-3d2b7e4a9c10"
#define NAP_US 50
#define EXIT_UNSUPPORTED 4
#define MAX_TARGETS 8

typedef enum
{ WAIT_NAP, WAIT_SPIN, WAIT_BLOCK } WaitMode;

static const char *const wait_names[] = { "nap", "spin", "block" };

typedef struct MediaOps MediaOps;

/* One payload kind: what the flow is and how a unit (grain or batch) is
 * produced, transferred and received. */
typedef struct
{
  const char *name;             /* "v210 1920x1080", "audio 8 ch x 48" */
  const MediaOps *ops;
  const char *media_type;       /* video: "video/v210" or "video/v210a" */
  int width, height;            /* video */
  int channels, samples;        /* audio: channels, samples per batch */
} Media;

typedef struct
{
  const char *provider;
  mxlFabricsProvider prov;
  bool rdm;
  size_t size;                  /* payload bytes per unit */
  uint64_t count;
  double duration;
  unsigned window;
  WaitMode wait;
  double deadline;
  double rate;                  /* units per second, 0 = as fast as possible */
  unsigned targets;             /* target processes the initiator feeds */
  const char *protocol;         /* the targets' "protocol" option: write, send, tagged */
  bool staging;                 /* the initiator's "samplesStaging" option */
  Media media;
} Options;

/* One side: its MXL domain, instance and flow. */
typedef struct
{
  char *domain;
  mxlInstance mxl;
  mxlFabricsInstance fab;
  mxlFlowWriter writer;
  mxlFlowReader reader;
  uint32_t grain_count;         /* discrete flows */
  uint16_t total_slices;
  size_t max_batch;             /* continuous flows: L / 2 */
  char *shm_name;
} Side;

/* Figures the target sends back after the run. */
typedef struct
{
  uint64_t received;            /* units read from the target */
  uint64_t out_of_order;        /* index not above the previous one */
  uint64_t gaps;                /* indices skipped (superseded or lost) */
  uint64_t damaged;             /* stamps that do not match the index */
  uint64_t superseded;          /* mxlFabricsExtTargetStats */
  uint64_t bad;                 /* badImmediateData + badGrainHeaders */
  double first_s, last_s, cpu_s;
  int32_t status;               /* 0, or the failing mxlStatus */
  int32_t unsupported;
} TargetResult;

/* What the initiator says when it has finished. */
typedef struct
{
  uint64_t completed;
  uint64_t last_index;
} Done;

struct MediaOps
{
  /* Flow definition JSON of @m (g_free). */
  char *(*flow_def) (const Media * m);
  /* Initiator: fill the local flow once (the producer's work). */
  mxlStatus (*prepare) (Side * s, const Options * o);
  /* Initiator: produce and transfer unit @n (0, 1, ...). */
  mxlStatus (*send) (Side * s, mxlFabricsInitiator init, uint64_t n,
      const Options * o);
  /* Target: read one unit; OK with its unit number in *@n. */
  mxlStatus (*receive) (Side * s, mxlFabricsTarget t, WaitMode w,
      uint64_t * n, bool *damaged, const Options * o);
  /* The unit counter of the initiator's index stamp (what Done carries). */
  uint64_t (*index_of) (uint64_t n, const Options * o);
};

static void
fail (const char *what, int st)
{
  fprintf (stderr, "bench-engine[%d]: %s: mxlStatus %d\n", (int) getpid (),
      what, st);
}

/* ---- video grains ---- */

static char *
video_flow_def (const Media *m)
{
  return g_strdup_printf ("{\"id\":\"" FLOW_ID "\",\"description\":\"bench\","
      "\"format\":\"urn:x-nmos:format:video\",\"label\":\"bench-engine\","
      "\"tags\":{\"urn:x-nmos:tag:grouphint/v1.0\":[\"bench:engine\"]},"
      "\"parents\":[],\"media_type\":\"%s\","
      "\"grain_rate\":{\"numerator\":50,\"denominator\":1},"
      "\"frame_width\":%d,\"frame_height\":%d,"
      "\"interlace_mode\":\"progressive\",\"colorspace\":\"BT709\"}",
      m->media_type, m->width, m->height);
}

static mxlStatus
video_prepare (Side *s, const Options *o)
{
  (void) o;
  for (uint32_t i = 0; i < s->grain_count; i++) {
    mxlGrainInfo gi;
    uint8_t *payload;
    mxlStatus st = mxlFlowWriterOpenGrain (s->writer, i, &gi, &payload);
    if (st != MXL_STATUS_OK)
      return st;
    memset (payload, 0x40 + (int) i, gi.grainSize);
    gi.validSlices = gi.totalSlices;
    if ((st = mxlFlowWriterCommitGrain (s->writer, &gi)) != MXL_STATUS_OK)
      return st;
  }
  return MXL_STATUS_OK;
}

static void
stamp (uint8_t *payload, size_t size, uint64_t index)
{
  uint64_t v = index ^ 0x5EEDF00DCAFEull;
  memcpy (payload, &v, sizeof v);
  memcpy (payload + size - sizeof v, &v, sizeof v);
}

static bool
stamp_ok (const uint8_t *payload, size_t size, uint64_t index)
{
  uint64_t a, b, v = index ^ 0x5EEDF00DCAFEull;
  memcpy (&a, payload, sizeof a);
  memcpy (&b, payload + size - sizeof b, sizeof b);
  return a == v && b == v;
}

static mxlStatus
video_send (Side *s, mxlFabricsInitiator init, uint64_t n, const Options *o)
{
  mxlGrainInfo gi;
  uint8_t *payload;
  mxlStatus st = mxlFlowWriterOpenGrain (s->writer, n, &gi, &payload);
  gint64 until;

  (void) o;
  if (st != MXL_STATUS_OK)
    return st;
  stamp (payload, gi.grainSize, n);
  gi.validSlices = gi.totalSlices;
  if ((st = mxlFlowWriterCommitGrain (s->writer, &gi)) != MXL_STATUS_OK)
    return st;
  /* NOT_READY: the engine's queue stayed full (it drove progress for up to
   * 200 ms); keep trying within a bounded time, as an application would. */
  until = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  while ((st = mxlFabricsInitiatorTransferGrain (init, n, 0, s->total_slices))
      == MXL_ERR_NOT_READY && g_get_monotonic_time () < until)
    mxlFabricsInitiatorMakeProgressNonBlocking (init);
  return st;
}

static mxlStatus
video_receive (Side *s, mxlFabricsTarget t, WaitMode w, uint64_t *n,
    bool *damaged, const Options *o)
{
  mxlStatus st = w == WAIT_BLOCK ? mxlFabricsTargetReadGrain (t, 10, n)
      : mxlFabricsTargetReadGrainNonBlocking (t, n);
  mxlGrainInfo gi;
  uint8_t *payload;

  (void) o;
  if (st != MXL_STATUS_OK)
    return st;
  /* The target has committed the grain: read it as a local reader would. */
  *damaged = mxlFlowReaderGetGrainNonBlocking (s->reader, *n, &gi, &payload)
      != MXL_STATUS_OK || !stamp_ok (payload, gi.grainSize, *n);
  return MXL_STATUS_OK;
}

static uint64_t
video_index_of (uint64_t n, const Options *o)
{
  (void) o;
  return n;
}

static const MediaOps video_ops = {
  video_flow_def, video_prepare, video_send, video_receive, video_index_of
};

/* ---- audio batches (F32, non-interleaved, 48 kHz) ---- */

static char *
audio_flow_def (const Media *m)
{
  return g_strdup_printf ("{\"id\":\"" FLOW_ID "\",\"description\":\"bench\","
      "\"format\":\"urn:x-nmos:format:audio\",\"label\":\"bench-engine\","
      "\"tags\":{\"urn:x-nmos:tag:grouphint/v1.0\":[\"bench:engine\"]},"
      "\"media_type\":\"audio/float32\","
      "\"sample_rate\":{\"numerator\":48000},\"channel_count\":%d,"
      "\"bit_depth\":32}", m->channels);
}

static mxlStatus
audio_prepare (Side *s, const Options *o)
{
  return (size_t) o->media.samples <= s->max_batch ? MXL_STATUS_OK
      : MXL_ERR_INVALID_ARG;
}

/* Batch n covers samples n*S ... (n+1)*S - 1: head index (n+1)*S. */
static mxlStatus
audio_send (Side *s, mxlFabricsInitiator init, uint64_t n, const Options *o)
{
  size_t count = (size_t) o->media.samples;
  uint64_t head = (n + 1) * count;
  mxlMutableWrappedMultiBufferSlice sl;
  mxlStatus st = mxlFlowWriterOpenSamples (s->writer, head, count, &sl);
  gint64 until;

  if (st != MXL_STATUS_OK)
    return st;
  /* first sample of channel 0 carries the batch number */
  {
    float v = (float) (n & 0xFFFFFF);
    memcpy (sl.base.fragments[0].pointer, &v, sizeof v);
  }
  if ((st = mxlFlowWriterCommitSamples (s->writer)) != MXL_STATUS_OK)
    return st;
  until = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  while ((st = mxlFabricsInitiatorTransferSamples (init, head, count))
      == MXL_ERR_NOT_READY && g_get_monotonic_time () < until)
    mxlFabricsInitiatorMakeProgressNonBlocking (init);
  return st;
}

static mxlStatus
audio_receive (Side *s, mxlFabricsTarget t, WaitMode w, uint64_t *n,
    bool *damaged, const Options *o)
{
  size_t count = 0;
  uint64_t head = 0;
  mxlStatus st = w == WAIT_BLOCK
      ? mxlFabricsTargetReadSamples (t, 10, &head, &count)
      : mxlFabricsTargetReadSamplesNonBlocking (t, &head, &count);
  mxlWrappedMultiBufferSlice sl;

  if (st != MXL_STATUS_OK)
    return st;
  *n = head / (uint64_t) o->media.samples - 1;
  *damaged = count != (size_t) o->media.samples
      || head % (uint64_t) o->media.samples != 0;
  if (!*damaged && mxlFlowReaderGetSamplesNonBlocking (s->reader, head, count,
          &sl) == MXL_STATUS_OK) {
    float v;
    memcpy (&v, sl.base.fragments[0].pointer, sizeof v);
    *damaged = v != (float) (*n & 0xFFFFFF);
  }
  return MXL_STATUS_OK;
}

static const MediaOps audio_ops = {
  audio_flow_def, audio_prepare, audio_send, audio_receive, video_index_of
};

/* ---- media table: the payloads of issue 9 ---- */

static const Media media_table[] = {
  {"v210 1920x1080", &video_ops, "video/v210", 1920, 1080, 0, 0},
  {"v210 3840x2160", &video_ops, "video/v210", 3840, 2160, 0, 0},
  {"v210a 1920x1080", &video_ops, "video/v210a", 1920, 1080, 0, 0},
  {"audio 8 ch x 48", &audio_ops, NULL, 0, 0, 8, 48},
  {"audio 8 ch x 480", &audio_ops, NULL, 0, 0, 8, 480},
  {"audio 64 ch x 48", &audio_ops, NULL, 0, 0, 64, 48},
  {"audio 64 ch x 480", &audio_ops, NULL, 0, 0, 64, 480},
};

/* Payload bytes of one unit: the library's line sizes (<mxl/flow-ext.h>). */
static size_t
media_size (const Media *m)
{
  if (m->ops == &audio_ops)
    return (size_t) m->channels * (size_t) m->samples * 4;
  {
    size_t fill = (size_t) mxlFlowExtV210LineBytes (m->width) * (size_t) m->height;
    if (!strcmp (m->media_type, "video/v210a"))
      fill += (size_t) mxlFlowExtV210aKeyLineBytes (m->width) * (size_t) m->height;
    return fill;
  }
}

/* ---- sides ---- */

static int
remove_entry (const char *path, const struct stat *sb, int flag,
    struct FTW *ftw)
{
  (void) sb;
  (void) flag;
  (void) ftw;
  remove (path);
  return 0;
}

static void
domain_remove (const char *path)
{
  if (path && g_str_has_prefix (path, "/dev/shm/mxl-bench-engine-"))
    nftw (path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static mxlStatus
side_open (Side *s, const char *domain, const Options *o, bool need_reader)
{
  char *def = o->media.ops->flow_def (&o->media);
  mxlFlowConfigInfo ci;
  mxlStatus st;

  s->domain = g_strdup (domain);
  s->mxl = mxlCreateInstance (domain, NULL);
  if (!s->mxl)
    return MXL_ERR_UNKNOWN;
  if ((st = mxlFabricsCreateInstance (s->mxl, NULL, &s->fab)))
    goto out;
  if ((st = mxlCreateFlowWriter (s->mxl, def, NULL, &s->writer, &ci, NULL)))
    goto out;
  if (need_reader
      && (st = mxlCreateFlowReader (s->mxl, FLOW_ID, NULL, &s->reader)))
    goto out;
  if (o->media.ops == &video_ops) {
    mxlGrainInfo gi;
    s->grain_count = ci.discrete.grainCount;
    if ((st = mxlFlowWriterGetGrainInfo (s->writer, 0, &gi)))
      goto out;
    s->total_slices = gi.totalSlices;
    if (gi.grainSize != o->size) {
      fprintf (stderr, "flow grain size %u != --size %zu\n", gi.grainSize,
          o->size);
      st = MXL_ERR_INVALID_ARG;
    }
  } else {
    s->max_batch = ci.continuous.bufferLength / 2;
  }
out:
  g_free (def);
  return st;
}

static void
side_close (Side *s)
{
  if (s->fab)
    mxlFabricsDestroyInstance (s->fab);
  if (s->reader)
    mxlReleaseFlowReader (s->mxl, s->reader);
  if (s->writer)
    mxlReleaseFlowWriter (s->mxl, s->writer);
  if (s->mxl)
    mxlDestroyInstance (s->mxl);
  g_free (s->domain);
  g_free (s->shm_name);
  memset (s, 0, sizeof *s);
}

static mxlFabricsInterfaceConfig
iface (Side *s, const Options *o, const char *role)
{
  mxlFabricsInterfaceConfig c;

  memset (&c, 0, sizeof c);
  c.version = MXL_FABRICS_API_VERSION;
  c.provider = o->prov;
  c.caps.flags = MXL_FABRICS_IFACE_CAP_REMOTE_WRITE;
  if (o->prov == MXL_FABRICS_PROVIDER_SHM) {
    /* shm endpoint names must differ per process (docs/libfabric-notes.md P12) */
    s->shm_name = g_strdup_printf ("bench-%s-%d", role, (int) getpid ());
    c.address.node = s->shm_name;
    c.address.service = "engine";
  } else {
    c.address.node = "127.0.0.1";
  }
  return c;
}

/* ---- target (child) ---- */

static void
target_loop (Side *s, mxlFabricsTarget t, const Options *o, int sock,
    TargetResult *r, double deadline)
{
  Done done = {.completed = UINT64_MAX };
  uint64_t next = 0;
  double cpu0 = 0;
  unsigned idle = 0;

  for (;;) {
    uint64_t n = 0;
    bool damaged = false;
    mxlStatus st;

    if (bench_now_s () > deadline) {
      fprintf (stderr, "target: deadline, %" PRIu64 " received\n",
          r->received);
      break;
    }
    st = o->media.ops->receive (s, t, o->wait, &n, &damaged, o);
    if (st == MXL_STATUS_OK) {
      if (r->received == 0) {
        r->first_s = bench_now_s ();
        cpu0 = bench_cpu_s ();
      }
      r->received++;
      r->damaged += damaged;
      if (n < next)
        r->out_of_order++;
      else {
        r->gaps += n - next;
        next = n + 1;
      }
      r->last_s = bench_now_s ();
      r->cpu_s = bench_cpu_s () - cpu0;
      continue;
    }
    if (st == MXL_ERR_UNSUPPORTED_OPERATION) {
      r->unsupported = 1;
      r->status = st;
      break;
    }
    if (st != MXL_ERR_NOT_READY && st != MXL_ERR_INVALID_ARG
        && st != MXL_FABRICS_EXT_STATUS_CQ_OVERRUN) {
      fail ("target read", st);
      r->status = st;
      break;
    }
    /* Nothing: the initiator's "done" ends the run once everything it
     * completed has been read (or superseded). */
    if (o->wait != WAIT_SPIN || (++idle & 1023) == 0) {
      struct pollfd pfd = {.fd = sock,.events = POLLIN };
      if (done.completed == UINT64_MAX && poll (&pfd, 1, 0) == 1
          && !bench_read_all (sock, &done, sizeof done, deadline))
        break;
    }
    if (done.completed != UINT64_MAX) {
      mxlFabricsExtTargetStats ts = {.version = MXL_FABRICS_API_VERSION };
      mxlFabricsExtTargetGetStats (t, &ts);
      if (next > done.last_index || r->received + ts.completionsSuperseded
          + ts.batchesLost >= done.completed)
        break;
    }
    if (o->wait == WAIT_NAP)
      g_usleep (NAP_US);
  }
  {
    mxlFabricsExtTargetStats ts = {.version = MXL_FABRICS_API_VERSION };
    if (mxlFabricsExtTargetGetStats (t, &ts) == MXL_STATUS_OK) {
      /* grains superseded in a drain, audio batches lost to an overrun
       * of the bounce ring (no flow control, docs/wire-format.md §2.3) */
      r->superseded = ts.completionsSuperseded + ts.batchesLost;
      r->bad = ts.badImmediateData + ts.badGrainHeaders;
    }
  }
}

/* Touches every grain slot of the target's new flow (written, then the
 * grain cancelled: nothing is committed) so that tmpfs pages are not
 * allocated during the measurement; bench-bare-fabric pre-faults its
 * buffers too, and a long-running application pays this only for its
 * first ring's worth of grains. */
static void
prefault (Side *s)
{
  for (uint32_t i = 0; i < s->grain_count; i++) {
    mxlGrainInfo gi;
    uint8_t *payload;
    if (mxlFlowWriterOpenGrain (s->writer, i, &gi, &payload) != MXL_STATUS_OK)
      return;
    memset (payload, 0, gi.grainSize);
    mxlFlowWriterCancelGrain (s->writer);
  }
}

static int
child_main (const Options *o, const char *domain, int sock, double deadline)
{
  Side s = { 0 };
  TargetResult r = { 0 };
  mxlFabricsTarget t = NULL;
  mxlFabricsTargetInfo info = NULL;
  mxlFabricsTargetConfig cfg;
  char *text = NULL;
  size_t len = 0;
  uint32_t n32 = 0;
  mxlStatus st;

  if ((st = side_open (&s, domain, o, true)))
    goto report;
  prefault (&s);
  memset (&cfg, 0, sizeof cfg);
  cfg.version = MXL_FABRICS_API_VERSION;
  cfg.interface = iface (&s, o, "tgt");
  cfg.writer = s.writer;
  {
    char *topts = g_strdup_printf ("{\"protocol\":\"%s\"}", o->protocol);
    if ((st = mxlFabricsCreateTarget (s.fab, &t))
        || (st = mxlFabricsTargetSetup (t, &cfg, topts, &info))) {
      g_free (topts);
      goto report;
    }
    g_free (topts);
  }
  if ((st = mxlFabricsTargetInfoToString (info, NULL, &len)))
    goto report;
  text = g_malloc (len);
  if ((st = mxlFabricsTargetInfoToString (info, text, &len)))
    goto report;
  n32 = (uint32_t) strlen (text);
report:
  if (st)
    fail ("target setup", st);
  /* length 0 = setup failed, followed by the status */
  if (!bench_write_all (sock, &n32, sizeof n32)
      || (n32 ? !bench_write_all (sock, text, n32)
          : !bench_write_all (sock, &st, sizeof st)))
    st = MXL_ERR_UNKNOWN;
  if (!st)
    target_loop (&s, t, o, sock, &r, deadline);
  else
    r.status = st;
  bench_write_all (sock, &r, sizeof r);
  g_free (text);
  if (info)
    mxlFabricsFreeTargetInfo (info);
  if (t)
    mxlFabricsDestroyTarget (s.fab, t);
  side_close (&s);
  return r.status ? 1 : 0;
}

/* ---- initiator (parent) ---- */

typedef struct
{
  uint64_t posted, completed;   /* units (grains or batches) */
  uint64_t late;                /* paced: units posted more than one period late */
  double max_lag_s;             /* paced: largest lateness of a post */
  double first_s, last_s, cpu_s;
  int status;
  bool unsupported;
} InitResult;

/* Transfers completed, summed over targets (one per target per unit). */
static uint64_t
transfers_completed (mxlFabricsInitiator init)
{
  mxlFabricsExtInitiatorStats st = {.version = MXL_FABRICS_API_VERSION };
  mxlFabricsExtInitiatorGetStats (init, &st);
  return st.transfersCompleted;
}

/* May unit @posted be posted? Only sums over targets are visible, so the
 * window bounds the transfers in flight to all targets together: then no
 * single target is more than max(window, targets) units behind, always
 * fewer than the ring's grain count, and no slot is rewritten while a
 * target's transfer of it is queued. */
static bool
window_open (uint64_t posted, uint64_t transfers_done, const Options *o)
{
  return (posted + 1) * o->targets - transfers_done
      <= MAX (o->window, o->targets);
}

/* Posts units as fast as the window allows, or on the --rate schedule
 * (unit n due at first + n / rate; one posted more than a period after
 * its time is "late": a live source would have dropped it). */
static void
initiator_run (Side *s, mxlFabricsInitiator init, const Options *o,
    InitResult *r, double deadline)
{
  double stop_posting, cpu0, period = o->rate > 0 ? 1.0 / o->rate : 0;
  uint64_t done = 0;            /* transfers completed, all targets */

  r->first_s = bench_now_s ();
  cpu0 = bench_cpu_s ();
  stop_posting = MIN (r->first_s + o->duration, deadline);
  while (bench_now_s () < deadline) {
    double now = bench_now_s ();
    bool posting = r->posted < o->count && now < stop_posting;
    bool due = !period || now >= r->first_s + r->posted * period;
    uint64_t before = done;
    mxlStatus st;

    if (!posting && done == r->posted * o->targets)
      break;
    if (posting && due && window_open (r->posted, done, o)) {
      if (period) {
        double lag = now - (r->first_s + r->posted * period);
        r->max_lag_s = MAX (r->max_lag_s, lag);
        r->late += lag > period;
      }
      st = o->media.ops->send (s, init, r->posted, o);
      if (st == MXL_STATUS_OK) {
        r->posted++;
        continue;
      }
      r->unsupported = st == MXL_ERR_UNSUPPORTED_OPERATION;
      fail ("transfer", st);
      r->status = st;
      break;
    }
    st = mxlFabricsInitiatorMakeProgressNonBlocking (init);
    if (st != MXL_STATUS_OK && st != MXL_ERR_NOT_READY) {
      fail ("progress", st);
      r->status = st;
      break;
    }
    done = transfers_completed (init);
    r->completed = done / o->targets;
    if (period && o->wait == WAIT_BLOCK && posting && window_open (r->posted, done, o)) {
      /* Paced, blocking: as a real-time source, sleep until the next unit
       * is due (completions are taken at the next turn; the window has
       * room). */
      double wake = r->first_s + r->posted * period;
      now = bench_now_s ();
      if (wake > now)
        g_usleep ((gulong) ((MIN (wake, deadline) - now) * 1e6));
    } else if (done == before && o->wait != WAIT_SPIN)
      g_usleep (NAP_US);
  }
  r->last_s = bench_now_s ();
  r->cpu_s = bench_cpu_s () - cpu0;
  if (done != r->posted * o->targets && !r->status)
    r->status = MXL_ERR_TIMEOUT;
}

static mxlStatus
initiator_setup (Side *s, const Options *o, char **info_text,
    mxlFabricsInitiator *out, mxlFabricsTargetInfo *out_info, double deadline)
{
  mxlFabricsInitiatorConfig cfg;
  mxlStatus st;

  memset (&cfg, 0, sizeof cfg);
  cfg.version = MXL_FABRICS_API_VERSION;
  cfg.interface = iface (s, o, "ini");
  cfg.reader = s->reader;
  if ((st = o->media.ops->prepare (s, o))
      || (st = mxlFabricsCreateInitiator (s->fab, out))
      || (st = mxlFabricsInitiatorSetup (*out, &cfg,
              o->staging ? NULL : "{\"samplesStaging\": false}")))
    return st;
  for (unsigned k = 0; k < o->targets; k++)
    if ((st = mxlFabricsTargetInfoFromString (info_text[k], &out_info[k]))
        || (st = mxlFabricsInitiatorAddTarget (*out, out_info[k])))
      return st;
  /* connected when MakeProgress answers OK (every target connected) */
  while ((st = mxlFabricsInitiatorMakeProgressBlocking (*out, 10))
      == MXL_ERR_NOT_READY)
    if (bench_now_s () > deadline)
      return MXL_ERR_TIMEOUT;
  return st;
}

/* ---- options ---- */

static void
usage (void)
{
  fprintf (stderr,
      "usage: bench-engine --provider tcp|tcp;ofi_rxm|shm --size BYTES\n"
      "       [--media v210|v210a|audio] [--width W --height H]\n"
      "       [--channels C --samples S] [--count N] [--duration S]\n"
      "       [--window W] [--wait nap|spin|block] [--spin] [--deadline S]\n"
      "       [--rate UNITS_PER_S] [--targets N (1..8)] [--protocol write|send|tagged]\n"
      "       [--staging on|off] (audio: the initiator packs each batch into\n"
      "       one write, default on; off: scatter-gather writes)\n"
      "       [--slots S] [--no-delivery-complete] (accepted, ignored:\n"
      "       the ring has the flow's grain count; the engine always asks\n"
      "       for FI_DELIVERY_COMPLETE)\n"
      "Sizes of issue 9: 5529600, 22118400, 8294400 (video), 1536, 15360,\n"
      "12288, 122880 (audio batches). Forks a target; prints one JSON line.\n");
}

static bool
parse_args (int argc, char **argv, Options *o)
{
  const char *media = NULL;
  int width = 0, height = 0, channels = 0, samples = 0;

  *o = (Options) {
  .provider = "tcp",.count = UINT64_MAX,.duration = 1.0,.window = 8,
        .wait = WAIT_NAP,.deadline = 30.0,.targets = 1,.protocol = "write",
        .staging = true};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp (a, "--no-delivery-complete"))
      continue;
    if (!strcmp (a, "--spin")) {
      o->wait = WAIT_SPIN;
      continue;
    }
    if (!v)
      return false;
    i++;
    if (!strcmp (a, "--provider"))
      o->provider = v;
    else if (!strcmp (a, "--size"))
      o->size = strtoull (v, NULL, 10);
    else if (!strcmp (a, "--count"))
      o->count = strtoull (v, NULL, 10);
    else if (!strcmp (a, "--duration"))
      o->duration = strtod (v, NULL);
    else if (!strcmp (a, "--window"))
      o->window = (unsigned) strtoul (v, NULL, 10);
    else if (!strcmp (a, "--slots"))
      continue;
    else if (!strcmp (a, "--deadline"))
      o->deadline = strtod (v, NULL);
    else if (!strcmp (a, "--rate"))
      o->rate = strtod (v, NULL);
    else if (!strcmp (a, "--protocol"))
      o->protocol = v;
    else if (!strcmp (a, "--staging")) {
      if (strcmp (v, "on") && strcmp (v, "off"))
        return false;
      o->staging = !strcmp (v, "on");
    }
    else if (!strcmp (a, "--targets"))
      o->targets = (unsigned) strtoul (v, NULL, 10);
    else if (!strcmp (a, "--media"))
      media = v;
    else if (!strcmp (a, "--width"))
      width = atoi (v);
    else if (!strcmp (a, "--height"))
      height = atoi (v);
    else if (!strcmp (a, "--channels"))
      channels = atoi (v);
    else if (!strcmp (a, "--samples"))
      samples = atoi (v);
    else if (!strcmp (a, "--wait")) {
      if (!strcmp (v, "nap"))
        o->wait = WAIT_NAP;
      else if (!strcmp (v, "spin"))
        o->wait = WAIT_SPIN;
      else if (!strcmp (v, "block"))
        o->wait = WAIT_BLOCK;
      else
        return false;
    } else
      return false;
  }
  if (mxlFabricsExtProviderFromString (o->provider, &o->prov) != MXL_STATUS_OK)
    return false;
  o->rdm = o->prov != MXL_FABRICS_PROVIDER_TCP;
  if (media) {
    if (!strcmp (media, "audio")) {
      o->media = media_table[3];
      o->media.channels = channels ? channels : 8;
      o->media.samples = samples ? samples : 48;
      o->media.name = "audio";
    } else if (!strcmp (media, "v210") || !strcmp (media, "v210a")) {
      o->media = media_table[media[4] ? 2 : 0];
      o->media.width = width ? width : 1920;
      o->media.height = height ? height : 1080;
      o->media.name = media;
    } else
      return false;
    if (o->media.ops == &audio_ops ? o->media.channels <= 0 || o->media.samples <= 0
        : o->media.width <= 0 || o->media.height <= 0)
      return false;
    o->size = media_size (&o->media);
  } else {
    bool found = false;
    for (size_t k = 0; k < G_N_ELEMENTS (media_table) && !found; k++)
      if (media_size (&media_table[k]) == o->size) {
        o->media = media_table[k];
        found = true;
      }
    if (!found) {
      fprintf (stderr, "no issue-9 payload of %zu bytes: give --media\n",
          o->size);
      return false;
    }
  }
  return o->size > 0 && o->window > 0 && o->count > 0 && o->duration > 0
      && o->deadline > 0 && o->deadline <= 600 && o->rate >= 0
      && o->targets >= 1 && o->targets <= MAX_TARGETS;
}

/* Sums the targets' figures into @sum (times: first and last arrival
 * over all; CPU: the mean per target process). */
static void
targets_sum (const TargetResult *tr, unsigned n, TargetResult *sum)
{
  memset (sum, 0, sizeof *sum);
  sum->first_s = tr[0].first_s;
  for (unsigned k = 0; k < n; k++) {
    sum->received += tr[k].received;
    sum->out_of_order += tr[k].out_of_order;
    sum->gaps += tr[k].gaps;
    sum->damaged += tr[k].damaged;
    sum->superseded += tr[k].superseded;
    sum->bad += tr[k].bad;
    sum->first_s = MIN (sum->first_s, tr[k].first_s);
    sum->last_s = MAX (sum->last_s, tr[k].last_s);
    sum->cpu_s += tr[k].cpu_s / n;
    if (tr[k].status && !sum->status)
      sum->status = tr[k].status;
    sum->unsupported |= tr[k].unsupported;
  }
}

/* One JSON line: the fields of bench-bare-fabric, then ours. Counts of
 * targets are summed over targets; gb_per_s counts each unit once. */
static void
print_json (const Options *o, const Side *s, const InitResult *ir,
    const TargetResult *tr, bool ok)
{
  double tx_s = ir->last_s - ir->first_s;
  double rx_s = tr->last_s - tr->first_s;
  double gb = (double) ir->completed * (double) o->size / 1e9;
  double per_target = (double) tr->received / o->targets;
  double rx_gbps = (rx_s > 0 && per_target > 1)
      ? (per_target - 1) * o->size / 1e9 / rx_s : 0;

  printf ("{\"bench\":\"engine\",\"protocol\":\"%s\",\"staging\":%s,"
      "\"provider\":\"%s\",\"ep_type\":\"%s\","
      "\"media\":\"%s\",\"size\":%zu,\"window\":%u,\"slots\":%u,"
      "\"delivery_complete\":true,\"wait\":\"%s\",\"posted\":%" PRIu64
      ",\"completed\":%" PRIu64 ",\"received\":%" PRIu64
      ",\"out_of_order\":%" PRIu64 ",\"tx_s\":%.6f,\"rx_s\":%.6f,"
      "\"msgs_per_s\":%.3f,\"gb_per_s\":%.4f,\"rx_gb_per_s\":%.4f,"
      "\"cpu_s_per_gb_initiator\":%.4f,\"cpu_s_per_gb_target\":%.4f,"
      "\"targets\":%u,\"rate\":%.3f,\"late\":%" PRIu64 ",\"max_lag_ms\":%.3f,"
      "\"gaps\":%" PRIu64 ",\"superseded\":%" PRIu64 ",\"damaged\":%" PRIu64
      ",\"bad_from_network\":%" PRIu64 ",\"cpu_cores_initiator\":%.4f,"
      "\"cpu_cores_target\":%.4f,\"ok\":%s}\n",
      o->protocol, o->staging ? "true" : "false", o->provider, o->rdm ? "rdm" : "msg", o->media.name, o->size, o->window,
      s->grain_count, wait_names[o->wait], ir->posted, ir->completed,
      tr->received, tr->out_of_order, tx_s, rx_s,
      tx_s > 0 ? ir->completed / tx_s : 0, tx_s > 0 ? gb / tx_s : 0, rx_gbps,
      gb > 0 ? ir->cpu_s / gb : 0, gb > 0 ? tr->cpu_s / gb : 0, o->targets,
      o->rate, ir->late, ir->max_lag_s * 1e3, tr->gaps, tr->superseded,
      tr->damaged, tr->bad, tx_s > 0 ? ir->cpu_s / tx_s : 0,
      rx_s > 0 ? tr->cpu_s / rx_s : 0, ok ? "true" : "false");
}

/* A forked target: its process, socket to the parent and MXL domain. */
typedef struct
{
  pid_t pid;
  int sock;
  char *domain;
  char *info_text;
  TargetResult result;
} Child;

static bool
child_start (Child *c, const Options *o, double deadline)
{
  int sv[2];

  c->pid = -1;
  c->sock = -1;
  c->domain = g_strdup_printf ("/dev/shm/mxl-bench-engine-%d-t-XXXXXX",
      (int) getpid ());
  if (!g_mkdtemp (c->domain) || socketpair (AF_UNIX, SOCK_STREAM, 0, sv))
    return fail ("mkdtemp/socketpair", errno), false;
  fflush (stdout);
  c->pid = fork ();
  if (c->pid < 0) {
    close (sv[0]);
    close (sv[1]);
    return fail ("fork", errno), false;
  }
  if (c->pid == 0) {
    close (sv[0]);
    _exit (child_main (o, c->domain, sv[1], deadline + 2));
  }
  close (sv[1]);
  c->sock = sv[0];
  return true;
}

/* Reads the child's TargetInfo: 1 with it, 0 on failure, -1 when the
 * target refused the media as unsupported. */
static int
child_info (Child *c, double deadline)
{
  uint32_t n32 = 0;
  mxlStatus st;

  if (!bench_read_all (c->sock, &n32, sizeof n32, deadline)
      || n32 > (1u << 24))
    return 0;
  if (n32 == 0)
    return bench_read_all (c->sock, &st, sizeof st, deadline)
        && st == MXL_ERR_UNSUPPORTED_OPERATION ? -1 : 0;
  c->info_text = g_malloc0 (n32 + 1);
  return bench_read_all (c->sock, c->info_text, n32, deadline) ? 1 : 0;
}

/* Waits (bounded) for the child, kills it by PID past 5 s; removes its
 * domain. Returns true when it exited 0. */
static bool
child_reap (Child *c)
{
  int status = 0;
  bool ok = false;

  if (c->sock >= 0)
    close (c->sock);
  if (c->pid > 0) {
    int i;
    for (i = 0; i < 500; i++) {
      if (waitpid (c->pid, &status, WNOHANG) == c->pid)
        break;
      g_usleep (10000);
    }
    if (i == 500) {
      kill (c->pid, SIGKILL);
      waitpid (c->pid, &status, 0);
    } else
      ok = WIFEXITED (status) && WEXITSTATUS (status) == 0;
  }
  domain_remove (c->domain);
  g_free (c->domain);
  g_free (c->info_text);
  return ok;
}

int
main (int argc, char **argv)
{
  Options o;
  int rc = 1, got = 1;
  double deadline;
  char *dom = NULL, *texts[MAX_TARGETS];
  Child kids[MAX_TARGETS];
  unsigned started = 0;
  Side s = { 0 };
  mxlFabricsInitiator init = NULL;
  mxlFabricsTargetInfo info[MAX_TARGETS] = { NULL };
  InitResult ir = { 0 };
  TargetResult tr = {.status = MXL_ERR_TIMEOUT };
  mxlStatus st;

  if (!parse_args (argc, argv, &o)) {
    usage ();
    return 2;
  }
  deadline = bench_now_s () + o.deadline;
  memset (kids, 0, sizeof kids);
  while (started < o.targets && child_start (&kids[started], &o, deadline))
    started++;
  for (unsigned k = 0; k < started && got == 1; k++) {
    got = child_info (&kids[k], deadline);
    texts[k] = kids[k].info_text;
  }
  if (started < o.targets || got != 1) {
    ir.unsupported = got < 0;
    if (!ir.unsupported)
      fprintf (stderr, "no TargetInfo from a target\n");
    goto out;
  }
  dom = g_strdup_printf ("/dev/shm/mxl-bench-engine-%d-i-XXXXXX",
      (int) getpid ());
  if (!g_mkdtemp (dom))
    goto out;
  if ((st = side_open (&s, dom, &o, true))
      || (st = initiator_setup (&s, &o, texts, &init, info, deadline))) {
    fail ("initiator setup", st);
    ir.status = st;
    ir.unsupported = st == MXL_ERR_UNSUPPORTED_OPERATION;
  } else {
    if (s.grain_count > 0 && MAX (o.window, o.targets) >= s.grain_count) {
      fprintf (stderr, "window %u: must stay below the ring's %u grains\n",
          MAX (o.window, o.targets), s.grain_count);
      o.window = s.grain_count - 1;     /* never rewrite a slot in flight */
    }
    initiator_run (&s, init, &o, &ir, deadline);
  }
  {
    Done d = {.completed = ir.completed,
      .last_index = ir.completed ? o.media.ops->index_of (ir.completed - 1,
          &o) : 0
    };
    for (unsigned k = 0; k < started; k++)
      if (!bench_write_all (kids[k].sock, &d, sizeof d)
          || !bench_read_all (kids[k].sock, &kids[k].result,
              sizeof kids[k].result, deadline + 5)) {
        fprintf (stderr, "no result from target %u\n", k);
        kids[k].result.status = MXL_ERR_TIMEOUT;
      }
    for (unsigned k = 0; k < started; k++)
      kids[k].result.status = kids[k].result.status ? kids[k].result.status
          : (kids[k].result.received + kids[k].result.superseded
          != ir.completed ? MXL_ERR_NOT_READY : 0);
    {
      TargetResult each[MAX_TARGETS];
      for (unsigned k = 0; k < started; k++)
        each[k] = kids[k].result;
      targets_sum (each, started, &tr);
    }
  }
  ir.unsupported |= tr.unsupported != 0;
  rc = (ir.status || tr.status || tr.damaged || tr.out_of_order) ? 1 : 0;
  if (!ir.unsupported)
    print_json (&o, &s, &ir, &tr, rc == 0);

out:
  if (ir.unsupported) {
    printf ("{\"bench\":\"engine\",\"provider\":\"%s\",\"size\":%zu,"
        "\"media\":\"%s\",\"unsupported\":true,\"ok\":false}\n",
        o.provider, o.size, o.media.name);
    rc = EXIT_UNSUPPORTED;
  }
  fflush (stdout);
  for (unsigned k = 0; k < o.targets; k++)
    if (info[k])
      mxlFabricsFreeTargetInfo (info[k]);
  if (init)
    mxlFabricsDestroyInitiator (s.fab, init);
  side_close (&s);
  for (unsigned k = 0; k < started; k++)
    if (!child_reap (&kids[k]) && rc == 0)
      rc = 1;
  domain_remove (dom);
  g_free (dom);
  return rc;
}
