/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mxl-fabrics-bandwidth: media, sent and wire bytes per second of a flow
 * over a link, for planning (mxlFabricsExtFlowBandwidth(), model in
 * docs/bandwidth.md).
 *
 *   mxl-fabrics-bandwidth [--link tcp|tcp;ofi_rxm|rocev2|ib|efa|shm]
 *       [--mtu BYTES] [--max-message-size BYTES] [--iov-limit N]
 *       [--samples-per-batch N] [--streams N] [--json]
 *       FLOW_DEF.json | --flow-def JSON
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <glib.h>

#include <mxl/fabrics-bandwidth.h>
#include <mxl/mxl.h>

static void
print_text (const mxlFabricsExtBandwidth *b, const char *link, int streams)
{
  printf ("units per second     %" PRId64 "/%" PRId64 " (%.4f)\n",
      b->unitRate.numerator, b->unitRate.denominator,
      (double) b->unitRate.numerator / (double) b->unitRate.denominator);
  printf ("per unit             media %" PRIu64 " B, sent %" PRIu64
      " B in %" PRIu64 " write(s), %" PRIu64 " packet(s), wire %" PRIu64
      " B, reverse %" PRIu64 " B\n", b->mediaBytesPerUnit, b->sentBytesPerUnit,
      b->writesPerUnit, b->packetsPerUnit, b->wireBytesPerUnit,
      b->reverseWireBytesPerUnit);
  printf ("media bytes/s        %.0f  (%.3f Gbit/s)\n", b->mediaBytesPerSecond,
      b->mediaBytesPerSecond * 8e-9);
  printf ("sent bytes/s         %.0f  (%.3f Gbit/s)\n", b->sentBytesPerSecond,
      b->sentBytesPerSecond * 8e-9);
  printf ("wire bytes/s (%s)%*s%.0f  (%.3f Gbit/s)\n", link,
      (int) (7 - MIN (strlen (link), 7)), "", b->wireBytesPerSecond,
      b->wireBytesPerSecond * 8e-9);
  printf ("reverse bytes/s      %.0f  (%.3f Gbit/s)\n",
      b->reverseWireBytesPerSecond, b->reverseWireBytesPerSecond * 8e-9);
  if (streams > 1)
    printf ("%d streams: wire     %.0f bytes/s (%.3f Gbit/s)\n", streams,
        b->wireBytesPerSecond * streams, b->wireBytesPerSecond * streams * 8e-9);
}

static void
print_json (const mxlFabricsExtBandwidth *b, const char *link, int streams)
{
  printf ("{\"link\":\"%s\",\"unitRate\":[%" PRId64 ",%" PRId64 "],"
      "\"mediaBytesPerUnit\":%" PRIu64 ",\"sentBytesPerUnit\":%" PRIu64
      ",\"writesPerUnit\":%" PRIu64 ",\"packetsPerUnit\":%" PRIu64
      ",\"wireBytesPerUnit\":%" PRIu64 ",\"reverseWireBytesPerUnit\":%" PRIu64
      ",\"mediaBytesPerSecond\":%.3f,\"sentBytesPerSecond\":%.3f,"
      "\"wireBytesPerSecond\":%.3f,\"reverseWireBytesPerSecond\":%.3f,"
      "\"streams\":%d}\n", link, b->unitRate.numerator, b->unitRate.denominator,
      b->mediaBytesPerUnit, b->sentBytesPerUnit, b->writesPerUnit,
      b->packetsPerUnit, b->wireBytesPerUnit, b->reverseWireBytesPerUnit,
      b->mediaBytesPerSecond, b->sentBytesPerSecond, b->wireBytesPerSecond,
      b->reverseWireBytesPerSecond, streams);
}

int
main (int argc, char **argv)
{
  g_autofree char *link = NULL;
  g_autofree char *flow_def = NULL;
  gint64 mtu = 0, max_msg = 0, iov_limit = 0, batch = 0;
  int streams = 1;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "link", 'l', 0, G_OPTION_ARG_STRING, &link,
      "tcp (default), tcp;ofi_rxm, rocev2, ib, efa or shm", "LINK" },
    { "mtu", 'm', 0, G_OPTION_ARG_INT64, &mtu,
      "IP MTU (tcp, default 1500), path MTU (rocev2 1024, ib 4096), device "
      "MTU (efa 8908)", "BYTES" },
    { "max-message-size", 0, 0, G_OPTION_ARG_INT64, &max_msg,
      "Bytes per remote write (default: no limit)", "BYTES" },
    { "iov-limit", 0, 0, G_OPTION_ARG_INT64, &iov_limit,
      "Gather entries per write (default 4)", "N" },
    { "samples-per-batch", 's', 0, G_OPTION_ARG_INT64, &batch,
      "Audio: samples per channel per transfer (default 48)", "N" },
    { "streams", 'n', 0, G_OPTION_ARG_INT, &streams,
      "Also print the total of N such streams", "N" },
    { "flow-def", 'f', 0, G_OPTION_ARG_STRING, &flow_def,
      "The flow definition as JSON text (instead of a file)", "JSON" },
    { "json", 'j', 0, G_OPTION_ARG_NONE, &json, "Print one JSON object", NULL },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx =
      g_option_context_new ("[FLOW_DEF.json] - bandwidth of an MXL flow over a link");
  g_autoptr (GError) error = NULL;
  mxlFabricsExtLinkProfile prof = { 0 };
  mxlFabricsExtBandwidth bw;
  mxlStatus st;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx, "Model: docs/bandwidth.md. Wire bytes "
      "include every transport header and the link framing; shm has no wire.");
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    fprintf (stderr, "%s\n", error->message);
    return 2;
  }
  if (flow_def == NULL) {
    if (argc != 2) {
      fprintf (stderr, "give one flow definition file, or --flow-def JSON\n");
      return 2;
    }
    if (!g_file_get_contents (argv[1], &flow_def, NULL, &error)) {
      fprintf (stderr, "%s\n", error->message);
      return 2;
    }
  }
  if (mtu < 0 || mtu > G_MAXUINT32 || max_msg < 0 || iov_limit < 0
      || iov_limit > G_MAXUINT32 || batch < 0 || batch > G_MAXUINT32
      || streams < 1) {
    fprintf (stderr, "values must be positive\n");
    return 2;
  }
  if (mxlFabricsExtLinkFromString (link ? link : "tcp", &prof.link) != MXL_STATUS_OK) {
    fprintf (stderr, "unknown link \"%s\"\n", link);
    return 2;
  }
  prof.mtu = (uint32_t) mtu;
  prof.maxMessageSize = (uint64_t) max_msg;
  prof.iovLimit = (uint32_t) iov_limit;
  prof.samplesPerBatch = (uint32_t) batch;
  st = mxlFabricsExtFlowBandwidth (flow_def, &prof, &bw);
  if (st != MXL_STATUS_OK) {
    fprintf (stderr, "cannot compute (status %d): check the flow definition, "
        "the MTU for this link and the batch size\n", (int) st);
    return 1;
  }
  if (json)
    print_json (&bw, link ? link : "tcp", streams);
  else
    print_text (&bw, link ? link : "tcp", streams);
  return 0;
}
