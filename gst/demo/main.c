/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxl-fabrics-demo: the two ends of README's first command, and its report.
 *
 *   --role receiver: one pipeline, a CLOCK_TAI system clock, an
 *     mxlfabricssrc for 1920x1080 v210 video (and one for 8-channel 48 kHz
 *     F32 audio), each into a fakesink; their TargetInfos are written to
 *     --video-target-info / --audio-target-info (files) and, with
 *     --http-port, served over HTTP (mxlfabricssrc http-port, the audio one
 *     on the next port). Runs until SIGINT
 *     or SIGTERM, --idle-stop seconds without data once data came, or
 *     --max-seconds; then writes --summary and the PNG (--png) of the first
 *     frame that arrived one second after the first.
 *   --role sender: a loop of DEMO_LOOP_FRAMES SMPTE-bars frames with a
 *     moving box and a burnt-in counter, and a 440 Hz tone, rendered once
 *     at start (produce.c), cycled by two producer threads at their MXL
 *     index times into appsrc ! mxlfabricssink (wait-for-connection=true),
 *     the TargetInfos given as @file, JSON, base64 or http:// URL; once
 *     both sinks
 *     report a connected receiver (5 s at most) sends for --duration
 *     seconds (printing "sender: sending, N of M sinks connected" when it
 *     starts), then EOS, then writes --summary with the producers'
 *     counters (late, missed, refused).
 *     The receiver renders the same video loop and checks each frame
 *     against it (record.c), so neither side hashes 5.5 MB per frame.
 *   --role report: merges the two summaries into the printed report
 *     (report.c) and exits 0 only when nothing was lost or corrupted (its
 *     result OK, or DEGRADED naming the side and stage that fell behind).
 *
 * This file parses the command line; the run of a sender or receiver
 * (pipeline, bus, producers, summary) is in run.c.
 *
 * Every buffer is recorded by a pad probe (record.c): index, size, TAI time
 * and checksum.
 *
 * MXL_DEMO_SLOW=produce:MS (sender) or consume:MS (receiver) slows one
 * stage on purpose by MS per video frame, so that the report's DEGRADED
 * result can be tested (tests/gst/test-demo.sh).
 *
 * CPU = getrusage(RUSAGE_SELF) user + system over the whole process, PNG
 * conversion excluded. Exit status of the sender/receiver: 0,
 * or 3 after a pipeline ERROR (the summary holds its text), 2 for bad
 * options.
 *
 * Signals: SIGINT and SIGTERM stop cleanly, from the start of main() on (one
 * during start-up ends the run at once with 0; receiver: stop; sender: EOS,
 * then stop) and the exit status is the one above. Asynchronous signals
 * whose default action ends the process and that the demo does not use
 * (SIGHUP, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGVTALRM, SIGPROF, SIGIO,
 * SIGPWR, SIGSTKFLT, the real-time signals) are ignored (ignore_signals()),
 * so a stray `kill -USR1` or a closed terminal does not end a transfer.
 * SIGQUIT (quit with a core dump) and the fault signals keep their default.
 */
#include "demo.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

/* The signals of the header comment that are ignored; called first in
 * main(), so that libraries installing their own handler later win. */
static void
ignore_signals (void)
{
  static const int sigs[] = { SIGHUP, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM,
    SIGVTALRM, SIGPROF, SIGIO, SIGPWR,
#ifdef SIGSTKFLT
    SIGSTKFLT,
#endif
  };
  guint i;
  int rt;

  for (i = 0; i < G_N_ELEMENTS (sigs); i++)
    signal (sigs[i], SIG_IGN);
  for (rt = SIGRTMIN; rt <= SIGRTMAX; rt++)
    signal (rt, SIG_IGN);
}

volatile sig_atomic_t demo_stop_early;

static void
on_early_stop (int sig)
{
  demo_stop_early = 1;
}

/* SIGINT and SIGTERM until demo_run_role() handles them: noted, so that a
 * stop during start-up is a clean stop, not the default action. */
static void
catch_early_stop (void)
{
  struct sigaction sa = { .sa_handler = on_early_stop };

  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
}

/* MXL_DEMO_SLOW=produce:MS or consume:MS (header comment). */
static gboolean
parse_slow (DemoOptions * o)
{
  const gchar *v = g_getenv ("MXL_DEMO_SLOW");
  guint64 ms = 0;
  const gchar *colon = v ? strchr (v, ':') : NULL;

  if (v == NULL || v[0] == '\0')
    return TRUE;
  if (colon == NULL || !g_ascii_string_to_unsigned (colon + 1, 10, 1, 10000,
          &ms, NULL) || (strncmp (v, "produce:", 8) != 0
          && strncmp (v, "consume:", 8) != 0)) {
    g_printerr ("mxl-fabrics-demo: MXL_DEMO_SLOW must be produce:MS or "
        "consume:MS (1..10000), not '%s'\n", v);
    return FALSE;
  }
  if (v[0] == 'p')
    o->slow_produce_ms = (guint) ms;
  else
    o->slow_consume_ms = (guint) ms;
  return TRUE;
}

int
main (int argc, char **argv)
{
  DemoOptions o = { NULL };
  GOptionEntry entries[] = {
    {"role", 0, 0, G_OPTION_ARG_STRING, &o.role,
        "sender, receiver or report", "ROLE"},
    {"provider", 0, 0, G_OPTION_ARG_STRING, &o.provider,
        "tcp (default), shm, verbs or efa", "NAME"},
    {"node", 0, 0, G_OPTION_ARG_STRING, &o.node,
        "local address of the fabric interface (tcp default 127.0.0.1)",
        "ADDR"},
    {"video-target-info", 0, 0, G_OPTION_ARG_STRING, &o.video_ti,
          "receiver: file to write the video TargetInfo to; sender: @file, "
          "JSON, base64 or the receiver's http://ADDR:PORT/target-info",
        "VALUE"},
    {"audio-target-info", 0, 0, G_OPTION_ARG_STRING, &o.audio_ti,
        "the same for the audio flow", "VALUE"},
    {"no-audio", 0, 0, G_OPTION_ARG_NONE, &o.no_audio,
        "video only", NULL},
    {"fps", 0, 0, G_OPTION_ARG_INT, &o.fps, "50 (default) or 60", "N"},
    {"http-port", 0, 0, G_OPTION_ARG_INT, &o.http_port,
          "receiver: serve the video TargetInfo over HTTP on this port of "
          "--node (the audio one on the next port); 0 (default): off",
        "PORT"},
    {"duration", 0, 0, G_OPTION_ARG_DOUBLE, &o.duration,
        "sender: seconds to send (default 10)", "S"},
    {"idle-stop", 0, 0, G_OPTION_ARG_DOUBLE, &o.idle_stop,
        "receiver: stop this long after the last data (0: never)", "S"},
    {"max-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &o.max_seconds,
        "receiver: stop after this long in any case (default 600)", "S"},
    {"summary", 0, 0, G_OPTION_ARG_FILENAME, &o.summary,
        "sender, receiver: write the JSON summary here", "FILE"},
    {"png", 0, 0, G_OPTION_ARG_FILENAME, &o.png,
        "receiver: save one received frame here as PNG", "FILE"},
    {"sender-summary", 0, 0, G_OPTION_ARG_FILENAME, &o.sender_summary,
        "report: the sender's summary", "FILE"},
    {"receiver-summary", 0, 0, G_OPTION_ARG_FILENAME, &o.receiver_summary,
        "report: the receiver's summary", "FILE"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- MXL Fabrics demo: one end "
      "of a transfer, or the report");
  GError *error = NULL;
  int rc = 2;

  catch_early_stop ();
  ignore_signals ();
  o.duration = 10;
  o.max_seconds = 600;
  o.fps = 50;
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    g_printerr ("mxl-fabrics-demo: %s\n", error->message);
    g_clear_error (&error);
    goto out;
  }
  if (!parse_slow (&o))
    goto out;
  if (o.provider == NULL)
    o.provider = g_strdup ("tcp");
  if (o.node == NULL && g_str_equal (o.provider, "tcp"))
    o.node = g_strdup ("127.0.0.1");
  if (g_strcmp0 (o.role, "report") == 0) {
    if (!o.sender_summary || !o.receiver_summary)
      g_printerr ("mxl-fabrics-demo: report needs --sender-summary and "
          "--receiver-summary\n");
    else
      rc = demo_report (o.sender_summary, o.receiver_summary, stdout);
  } else if (g_strcmp0 (o.role, "sender") != 0
      && g_strcmp0 (o.role, "receiver") != 0) {
    g_printerr ("mxl-fabrics-demo: --role must be sender, receiver or "
        "report\n");
  } else if (!o.video_ti || (!o.no_audio && !o.audio_ti)) {
    g_printerr ("mxl-fabrics-demo: --video-target-info and "
        "--audio-target-info (or --no-audio) are needed\n");
  } else if (o.http_port < 0 || o.http_port > 65534) {
    g_printerr ("mxl-fabrics-demo: --http-port must be 0..65534\n");
  } else if (o.fps != 50 && o.fps != 60) {
    g_printerr ("mxl-fabrics-demo: --fps must be 50 or 60\n");
  } else if (o.duration <= 0 || o.max_seconds <= 0) {
    g_printerr ("mxl-fabrics-demo: durations must be positive\n");
  } else {
    rc = demo_run_role (&o, g_str_equal (o.role, "sender") ? DEMO_SENDER :
        DEMO_RECEIVER);
  }
out:
  g_option_context_free (ctx);
  g_free (o.role);
  g_free (o.provider);
  g_free (o.node);
  g_free (o.video_ti);
  g_free (o.audio_ti);
  g_free (o.summary);
  g_free (o.png);
  g_free (o.sender_summary);
  g_free (o.receiver_summary);
  return rc;
}
