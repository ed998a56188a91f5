/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxl-fabrics-demo: what the sender and the receiver record about every
 * grain (video frame) and sample batch (audio), and the summary they write.
 *
 * Both ends key what they record by MXL index: the grain index of a frame,
 * the sample index of an audio sample (docs/flow-format.md §5.2). The receiver
 * reads it from the buffer (GST_BUFFER_OFFSET, set by mxlfabricssrc); the
 * sender computes it the way mxlfabricssink does (the buffer's running
 * time + base time + the pipeline's TAI offset; video through
 * gst_mxl_fabrics_follow_grain_index, as the sink; audio rounded to the
 * sample rate, contiguous within half a batch of jitter). Both pipelines
 * run on a CLOCK_TAI GstSystemClock, so that offset is 0 and times are TAI
 * ns.
 *
 * Video: one checksum (MD5 of the grain's bytes) per frame. Audio: batches
 * arrive cut differently on each side (the sink splits by the flow's write
 * limit, the target completes what arrived), so the checksum is per block
 * of DEMO_AUDIO_BLOCK samples aligned on sample index (MD5 of the eight
 * per-channel MD5s of the block's samples, channel-major), kept only for
 * blocks that were covered without a gap.
 */
#pragma once

#include <signal.h>
#include <stdio.h>

#include <gst/gst.h>
#include <json-glib/json-glib.h>

#include "timing.h"

G_BEGIN_DECLS

#define DEMO_AUDIO_BLOCK 4800   /* samples per compared block: 100 ms */
#define DEMO_MAX_CHANNELS 64
#define DEMO_LOOP_FRAMES 20     /* distinct video frames, cycled */
#define DEMO_AUDIO_BATCH 480    /* samples per audio buffer: 10 ms */
#define DEMO_AUDIO_LOOP 10      /* 10 batches: 44 whole periods of 440 Hz */

/*
 * DemoLoop: the media the sender cycles, rendered once at start (produce.c)
 * so that producing a frame costs a buffer reference, not a redraw. Index i
 * (grain index, or audio batch index = sample index / DEMO_AUDIO_BATCH)
 * carries frames[i % n]. The receiver renders the same video loop and
 * checks each frame against frames[index % n] with memcmp (its MD5 is
 * then sums[index % n], computed once); a frame that differs is hashed,
 * so a different rendering (another host's videotestsrc) costs CPU, never
 * a wrong verdict (the report compares the MD5s of both sides).
 */
typedef struct {
  guint n;
  GstBuffer **frames;
  gchar **sums;                 /* MD5 hex of frames[k] (video; audio NULL) */
} DemoLoop;

/**
 * demo_loop_new_video:
 * @caps: v210 caps (width, height, framerate) as a string.
 * @n: frames in the loop (>= 1).
 * Returns: (transfer full): videotestsrc's SMPTE bars, with a black box
 *   that crosses the picture once per loop and the loop position k as a
 *   burnt-in three-digit counter; NULL with @error when videotestsrc gives
 *   no v210 frame within 20 s.
 */
DemoLoop *demo_loop_new_video (const gchar * caps, guint n, GError ** error);

/* @n batches of @batch interleaved F32 samples, @channels each, of a
 * 440 Hz sine at half scale, continuous across batches and around the loop
 * when n * batch is a whole number of periods at @rate. */
DemoLoop *demo_loop_new_audio (guint rate, guint channels, guint batch,
    guint n);
void demo_loop_free (DemoLoop * l);

/*
 * DemoProducer: a thread that, for each index of @rate from now on, waits
 * on the pipeline clock (CLOCK_TAI) until the index's origin time
 * (mxlIndexToTimestamp), then pushes loop->frames[index % n] (shared
 * memory, a new GstBuffer) with PTS = that time - base time into an appsrc,
 * for a sink that renders it @latency ns after that time (the pipeline
 * latency). Behind, it catches up on the indices that can still be
 * rendered on time. Counters (read after demo_producer_stop): produced;
 * late = produced after its render time; missed = indices skipped because
 * their render time had passed before the producer got to them (a live
 * source drops what nobody took); refused = produced but not
 * pushed because the appsrc already held half a second of buffers (the
 * sink is not taking them; its first render waits for a connection). @slow_ms > 0 sleeps that long per buffer, to
 * slow the producing stage on purpose (MXL_DEMO_SLOW).
 */
typedef struct {
  GstElement *appsrc;
  DemoLoop *loop;
  gint rate_n, rate_d;          /* index rate */
  guint slow_ms;
  GstClockTime latency;         /* origin time -> render time, ns */
  GstClock *clock;
  GstClockTime base_time;
  GThread *thread;
  GMutex lock;
  gboolean stop;
  GstClockID wait;
  guint64 produced, late, missed, refused;
} DemoProducer;

/* @appsrc: (transfer none), in a PLAYING pipeline whose clock is
 * CLOCK_TAI; @loop: (transfer none), outlives the producer. */
DemoProducer *demo_producer_start (GstElement * appsrc, DemoLoop * loop,
    gint rate_n, gint rate_d, GstClockTime latency, guint slow_ms);
/* Stops the thread (unschedules its clock wait, joins it), then ends the
 * appsrc's stream (EOS). Idempotent. */
void demo_producer_stop (DemoProducer * p);
void demo_producer_free (DemoProducer * p);
/* Adds the counters as an object value ("produced", "late", "missed",
 * "refused"). */
void demo_producer_to_json (DemoProducer * p, JsonBuilder * b);

typedef enum {
  DEMO_SENDER,
  DEMO_RECEIVER,
} DemoRole;

/* The command line of mxl-fabrics-demo (main.c parses it). */
typedef struct {
  gchar *role, *provider, *node, *video_ti, *audio_ti, *summary, *png;
  gchar *sender_summary, *receiver_summary;
  gboolean no_audio;
  gdouble duration, idle_stop, max_seconds;
  gint fps;
  gint http_port;               /* receiver: video's (audio's + 1); 0 off */
  guint slow_produce_ms, slow_consume_ms;     /* MXL_DEMO_SLOW */
} DemoOptions;

/* Runs @role (sender or receiver) with @o until it stops (main.c's header
 * comment). Returns: the exit status: 0, or 3 after a pipeline ERROR or a
 * summary that cannot be written. */
int demo_run_role (DemoOptions * o, DemoRole role);

/* Set by main()'s first handler of SIGINT and SIGTERM, before
 * demo_run_role() installs its own (start-up: option parsing, gst_init):
 * a stop that came that early ends demo_run_role() at once with 0. */
extern volatile sig_atomic_t demo_stop_early;

/* One frame (video) or one buffer of samples (audio). */
typedef struct {
  guint64 index;                /* grain index, or first sample index */
  guint64 count;                /* 1, or samples per channel */
  guint64 bytes;                /* payload bytes */
  guint64 tai;                  /* TAI ns: sender = sent, receiver = arrived */
  gchar sum[33];                /* video: MD5 hex of the grain; audio: "" */
} DemoItem;

/* A complete audio block: samples [block * DEMO_AUDIO_BLOCK, +BLOCK). */
typedef struct {
  guint64 block;
  gchar sum[33];
} DemoBlock;

typedef struct {
  gchar *name;                  /* "video" or "audio" */
  DemoRole role;
  gboolean audio;
  GstElement *element;          /* the mxlfabricssink/src (owned ref) */
  GMutex lock;
  GArray *items;                /* DemoItem */
  GArray *blocks;               /* DemoBlock */
  /* sender: the index rule of mxlfabricssink */
  gboolean have_last;
  guint64 last_index;           /* video: last grain; audio: end of last batch */
  GstMxlFabricsIndexPhase phase; /* video: gst_mxl_fabrics_follow_grain_index */
  /* audio block being summed */
  gboolean blk_open;
  guint64 blk;                  /* block number */
  guint64 blk_next;             /* next sample index expected in it */
  guint channels;
  GChecksum *blk_sums[DEMO_MAX_CHANNELS];
  /* receiver: one frame kept for the PNG */
  GstClockTime snapshot_after;  /* TAI ns; 0 = no snapshot wanted */
  guint64 first_tai;
  GstSample *snapshot;
  /* video: the pre-rendered loop the frames are checked against (not
   * owned; NULL: every frame is hashed) */
  DemoLoop *loop;
  guint64 loop_matched;         /* frames equal to frames[index % n] */
  /* receiver: the consuming stage */
  guint slow_ms;                /* MXL_DEMO_SLOW: sleep per buffer */
  guint64 consume_slow;         /* buffers whose handling (check + slow)
                                 * took longer than their duration */
} DemoStream;

/**
 * demo_stream_new:
 * @element: (transfer none): the mxlfabricssink (@role sender) or
 *   mxlfabricssrc (@role receiver); a pad probe is added on its sink or src
 *   pad, recording every buffer.
 * @audio: TRUE for an F32LE audio stream.
 */
DemoStream *demo_stream_new (const gchar * name, DemoRole role,
    gboolean audio, GstElement * element);
void demo_stream_free (DemoStream * s);

/* Asks the receiver's video stream to keep the first frame that arrives
 * @delay ns after the first one (for demo_stream_save_png). */
void demo_stream_want_snapshot (DemoStream * s, GstClockTime delay);

/**
 * demo_stream_save_png:
 * Converts the kept frame to PNG (gst_video_convert_sample, bounded to 20 s)
 * and writes it to @path.
 * Returns: FALSE with @error when there is no frame or it cannot be written.
 */
gboolean demo_stream_save_png (DemoStream * s, const gchar * path,
    GError ** error);

/* Frames are checked against @loop (transfer none; outlives @s) first. */
void demo_stream_set_loop (DemoStream * s, DemoLoop * loop);

/* Adds "name": { "stats": {...}, "items": [...], "blocks": [...],
 * "loop_matched": N, "consume_slow": N }. */
void demo_stream_to_json (DemoStream * s, JsonBuilder * b);

/**
 * demo_report:
 * @sender, @receiver: the summary files the two roles wrote.
 * @out: where the report text goes.
 * Returns: the exit status: 0 when every transferred frame and audio block
 * arrived intact (result OK, or DEGRADED when a side fell behind and
 * dropped or delayed some, each counted), 1 when something was lost or
 * corrupted (FAILED), 2 when a summary cannot be read.
 */
int demo_report (const gchar * sender, const gchar * receiver, FILE * out);

G_END_DECLS
