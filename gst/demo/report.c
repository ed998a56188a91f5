/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The demo's report: merges the sender's and the receiver's summaries
 * (demo.h) by MXL index and prints what arrived, what was verified, what
 * was lost and why, throughput, latency and CPU. */
#include "demo.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  JsonObject *root;
  JsonObject *streams;
  JsonParser *parser;
} Summary;

static gboolean
summary_load (Summary * s, const gchar * path, GError ** error)
{
  JsonNode *root;

  s->parser = json_parser_new ();
  if (!json_parser_load_from_file (s->parser, path, error))
    return FALSE;
  root = json_parser_get_root (s->parser);
  if (!JSON_NODE_HOLDS_OBJECT (root)
      || !json_object_has_member (json_node_get_object (root), "streams")) {
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
        "%s is not a demo summary", path);
    return FALSE;
  }
  s->root = json_node_get_object (root);
  s->streams = json_object_get_object_member (s->root, "streams");
  return TRUE;
}

static JsonObject *
stream (Summary * s, const gchar * name)
{
  return s->streams && json_object_has_member (s->streams, name) ?
      json_object_get_object_member (s->streams, name) : NULL;
}

static gint64
stat (JsonObject * st, const gchar * field)
{
  JsonObject *o;

  if (st == NULL || !json_object_has_member (st, "stats"))
    return 0;
  o = json_object_get_object_member (st, "stats");
  return json_object_has_member (o, field) ?
      json_object_get_int_member (o, field) : 0;
}

/* Transfers the sink queued for its target that ended without completing
 * (docs/bus-and-stats.md, "Which side counts a loss"): `transfers-failed`
 * holds the ones dropped from the target's queue while it was behind (also
 * in `transfers-dropped`) and the ones failed with its connection, and
 * the refusals because the target was not connected
 * (`transfers-not-connected`). The demo's sinks have one target and no
 * progress thread, so such a refusal fails their transfer call and they
 * count the grain or batch in `dropped-no-target`: left out here, so that
 * it is counted once. */
static gint64
queued_not_completed (JsonObject * st)
{
  return MAX (stat (st, "transfers-failed") -
      stat (st, "transfers-not-connected"), 0);
}

/* What the sender counted as not transferred to the receiver: its sink's
 * own drops for all targets (`dropped`), and the queued transfers to its
 * one target that did not complete. */
static gint64
not_transferred (JsonObject * st)
{
  return stat (st, "dropped") + queued_not_completed (st);
}

static JsonArray *
member_array (JsonObject * st, const gchar * name)
{
  return st && json_object_has_member (st, name) ?
      json_object_get_array_member (st, name) : NULL;
}

static gint64
item_int (JsonArray * items, guint i, guint k)
{
  return json_array_get_int_element (json_array_get_array_element (items, i),
      k);
}

static const gchar *
item_sum (JsonArray * items, guint i, guint k)
{
  return json_array_get_string_element (json_array_get_array_element (items,
          i), k);
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

/* index -> position in @items (column 0) */
static GHashTable *
index_items (JsonArray * items)
{
  GHashTable *h = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      NULL);
  guint i;

  for (i = 0; items && i < json_array_get_length (items); i++) {
    gint64 *k = g_new (gint64, 1);
    *k = item_int (items, i, 0);
    if (*k >= 0)
      g_hash_table_insert (h, k, GUINT_TO_POINTER (i + 1));
    else
      g_free (k);
  }
  return h;
}

typedef struct {
  guint64 sent, received, bytes_received, matched, verified, corrupted;
  guint64 missing, unexpected, samples_sent, samples_received;
  guint64 shifted;              /* corrupted, but the frame sent as index + 1 */
  guint64 first_tai, last_tai;
  GArray *latency_ms;
} Match;

/* Matches items by index: checksums (when @check) and latency. */
static void
match_items (JsonArray * sent, JsonArray * recv, gboolean check, Match * m)
{
  GHashTable *by_index = index_items (recv), *sent_index = index_items (sent);
  guint i, ns = sent ? json_array_get_length (sent) : 0;
  guint nr = recv ? json_array_get_length (recv) : 0;

  m->latency_ms = g_array_new (FALSE, FALSE, sizeof (double));
  m->sent = ns;
  m->received = nr;
  for (i = 0; i < nr; i++) {
    gint64 idx = item_int (recv, i, 0);
    guint64 t = (guint64) item_int (recv, i, 3);
    m->bytes_received += (guint64) item_int (recv, i, 2);
    m->samples_received += (guint64) item_int (recv, i, 1);
    if (m->first_tai == 0 || t < m->first_tai)
      m->first_tai = t;
    m->last_tai = MAX (m->last_tai, t);
    if (!g_hash_table_contains (sent_index, &idx))
      m->unexpected++;
  }
  for (i = 0; i < ns; i++) {
    gint64 idx = item_int (sent, i, 0);
    guint j = GPOINTER_TO_UINT (g_hash_table_lookup (by_index, &idx));
    m->samples_sent += (guint64) item_int (sent, i, 1);
    if (j == 0) {
      m->missing++;
      continue;
    }
    j--;
    m->matched++;
    if (check) {
      if (g_strcmp0 (item_sum (sent, i, 4), item_sum (recv, j, 4)) == 0) {
        m->verified++;
      } else {
        gint64 next = idx + 1;
        guint k = GPOINTER_TO_UINT (g_hash_table_lookup (sent_index, &next));
        m->corrupted++;
        /* intact, but written one index early (a sink that gave a frame
         * the index of the one before it, dropped) */
        if (k > 0 && g_strcmp0 (item_sum (sent, k - 1, 4), item_sum (recv, j,
                    4)) == 0)
          m->shifted++;
      }
    }
    {
      double l = (item_int (recv, j, 3) - item_int (sent, i, 3)) / 1e6;
      g_array_append_val (m->latency_ms, l);
    }
  }
  g_hash_table_unref (by_index);
  g_hash_table_unref (sent_index);
}

typedef struct {
  guint64 sent, received, verified, corrupted, missing;
} BlockMatch;

static void
match_blocks (JsonArray * sent, JsonArray * recv, BlockMatch * b)
{
  GHashTable *by_block = index_items (recv);
  guint i;

  b->sent = sent ? json_array_get_length (sent) : 0;
  b->received = recv ? json_array_get_length (recv) : 0;
  for (i = 0; i < b->sent; i++) {
    gint64 blk = item_int (sent, i, 0);
    guint j = GPOINTER_TO_UINT (g_hash_table_lookup (by_block, &blk));
    if (j == 0)
      b->missing++;
    else if (g_strcmp0 (item_sum (sent, i, 1), item_sum (recv, j - 1, 1)) ==
        0)
      b->verified++;
    else
      b->corrupted++;
  }
  g_hash_table_unref (by_block);
}

/* producers.NAME.FIELD of a sender summary; 0 when absent (an older
 * summary, or a stream without a producer) */
static gint64
producer (Summary * s, const gchar * name, const gchar * field)
{
  JsonObject *p, *o;

  if (!json_object_has_member (s->root, "producers"))
    return 0;
  p = json_object_get_object_member (s->root, "producers");
  if (!json_object_has_member (p, name))
    return 0;
  o = json_object_get_object_member (p, name);
  return json_object_has_member (o, field) ?
      json_object_get_int_member (o, field) : 0;
}

static gint64
member_int (JsonObject * o, const gchar * field)
{
  return o && json_object_has_member (o, field) ?
      json_object_get_int_member (o, field) : 0;
}

static double
percentile (GArray * sorted, double p)
{
  guint n = sorted->len, k;

  if (n == 0)
    return 0;
  k = (guint) (p * (n - 1) + 0.5);
  return g_array_index (sorted, double, MIN (k, n - 1));
}

static void
print_cpu (FILE * out, const gchar * who, JsonObject * root)
{
  double u = json_object_get_double_member (root, "cpu_user_s");
  double s = json_object_get_double_member (root, "cpu_sys_s");
  double w = json_object_get_double_member (root, "wall_s");

  fprintf (out, "%s %.2f s (user %.2f + system %.2f; %.0f%% of one core "
      "over %.1f s, pid %" G_GINT64_FORMAT ")", who, u + s, u, s,
      w > 0 ? 100 * (u + s) / w : 0, w,
      json_object_get_int_member (root, "pid"));
}

int
demo_report (const gchar * sender_path, const gchar * receiver_path,
    FILE * out)
{
  Summary snd = { 0 }, rcv = { 0 };
  GError *error = NULL;
  JsonObject *sv, *rv, *sa, *ra;
  Match video = { 0 }, audio = { 0 };
  BlockMatch blocks = { 0 };
  GString *fail = g_string_new (NULL), *degraded = g_string_new (NULL);
  gint64 explained, lost, recv_drops, recv_counted, at_receiver;
  gint64 total_drops, a_explained = 0, a_recv = 0, queued, superseded;
  gchar *queued_note, *superseded_note;
  const gchar *recv_causes;
  double secs;
  const gchar *png, *err;
  int rc = 0;

  if (!summary_load (&snd, sender_path, &error)
      || !summary_load (&rcv, receiver_path, &error)) {
    fprintf (out, "report: cannot read a summary: %s\n", error->message);
    g_clear_error (&error);
    rc = 2;
    goto out;
  }
  sv = stream (&snd, "video");
  rv = stream (&rcv, "video");
  sa = stream (&snd, "audio");
  ra = stream (&rcv, "audio");
  match_items (member_array (sv, "items"), member_array (rv, "items"), TRUE,
      &video);
  g_array_sort (video.latency_ms, cmp_double);

  fprintf (out, "MXL Fabrics demo: provider %s, 1920x1080 v210 at %"
      G_GINT64_FORMAT " fps%s, sender %s -> receiver %s\n",
      json_object_get_string_member (snd.root, "provider"),
      json_object_get_int_member (snd.root, "fps"),
      sa ? " + 8-channel 48 kHz float32 audio" : "",
      json_object_get_string_member (snd.root, "host"),
      json_object_get_string_member (rcv.root, "host"));

  /* video: each frame sent but not received (missing = sent - received by
   * index) is counted once. A frame the sink did not transfer (no target,
   * no timestamp, slot still in flight, or queued for the target and not
   * completed: not_transferred()) is explained by the sender's own
   * counters. The rest went missing at the receiver: explained by its
   * counted causes (lapped, torn, skipped re-aligning: dropped, never
   * delivered damaged; and a completion its library skipped because the
   * newer grain that overwrote its slot had completed too,
   * `completions-superseded`: lapped before the src could see it, which
   * the src counts as never arrived, as the holes its head jumped over,
   * or before its first pushed grain as skipped-at-start
   * (lapped-at-start): neither is taken here, so each such grain is
   * taken once; the demo's sink sends each grain whole, one completion
   * each). The
   * receiver cannot tell an index the sender never sent from one it
   * skipped or never got, so its skipped and never-arrived counts may
   * include the sender's drops: of its causes, at most the
   * missing frames the sender does not explain are taken; what no cause
   * covers is lost. */
  explained = not_transferred (sv);
  superseded = stat (rv, "completions-superseded");
  recv_counted = stat (rv, "dropped-late") + stat (rv, "dropped-torn") +
      stat (rv, "dropped-skipped") + superseded;
  recv_causes = superseded > 0 ? "lapped + torn + skipped + superseded" :
      "lapped + torn + skipped";
  at_receiver = MAX ((gint64) video.missing - explained, 0);
  recv_drops = MIN (recv_counted, at_receiver);
  lost = at_receiver - recv_drops;
  fprintf (out, "  video frames   sent %" G_GUINT64_FORMAT ", received %"
      G_GUINT64_FORMAT ", verified bit-exact %" G_GUINT64_FORMAT
      " (MD5 on both sides), corrupted %" G_GUINT64_FORMAT ", lost %"
      G_GINT64_FORMAT ", not transferred %" G_GINT64_FORMAT "\n",
      video.sent, video.received, video.verified, video.corrupted, lost,
      explained);
  if (video.missing > 0)
    fprintf (out, "                 missing %" G_GUINT64_FORMAT ": not "
        "transferred by the sender %" G_GINT64_FORMAT ", dropped at the "
        "receiver %" G_GINT64_FORMAT " (of its %s %" G_GINT64_FORMAT
        ", which may include indices the sender never sent), lost %"
        G_GINT64_FORMAT "\n", video.missing,
        MIN (explained, (gint64) video.missing), recv_drops, recv_causes,
        recv_counted, lost);
  if (video.shifted > 0)
    fprintf (out, "                 of the corrupted, %" G_GUINT64_FORMAT
        " are intact frames sent as the next index (written one index "
        "early)\n", video.shifted);
  if (rv && json_object_has_member (rv, "loop_matched"))
    fprintf (out, "  content        %" G_GINT64_FORMAT " of %" G_GUINT64_FORMAT
        " received frames are the pre-rendered loop frame of their index "
        "(index mod %d, the counter burnt into the picture)\n",
        member_int (rv, "loop_matched"), video.received, DEMO_LOOP_FRAMES);
  if (video.received == 0)
    g_string_append (fail, " no video frame arrived;");
  if (video.corrupted > 0)
    g_string_append_printf (fail, " %" G_GUINT64_FORMAT " video frames "
        "corrupted;", video.corrupted);
  if (lost > 0)
    g_string_append_printf (fail, " %" G_GINT64_FORMAT " video frames "
        "lost;", lost);
  if (video.unexpected > 0)
    g_string_append_printf (fail, " %" G_GUINT64_FORMAT " frames received "
        "that were not sent;", video.unexpected);

  if (sa) {
    a_explained = not_transferred (sa);
    match_items (member_array (sa, "items"), member_array (ra, "items"),
        FALSE, &audio);
    match_blocks (member_array (sa, "blocks"), member_array (ra, "blocks"),
        &blocks);
    fprintf (out, "  audio batches  sent %" G_GUINT64_FORMAT ", received %"
        G_GUINT64_FORMAT " (samples per channel %" G_GUINT64_FORMAT " / %"
        G_GUINT64_FORMAT "); 100 ms blocks verified sample-exact %"
        G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT ", corrupted %"
        G_GUINT64_FORMAT ", lost %" G_GUINT64_FORMAT ", not transferred %"
        G_GINT64_FORMAT "\n", audio.sent, audio.received, audio.samples_sent,
        audio.samples_received, blocks.verified, blocks.sent,
        blocks.corrupted, blocks.missing, a_explained);
    if (!ra || audio.received == 0)
      g_string_append (fail, " no audio arrived;");
    if (blocks.corrupted > 0)
      g_string_append_printf (fail, " %" G_GUINT64_FORMAT " audio blocks "
          "corrupted;", blocks.corrupted);
    a_recv = stat (ra, "dropped-late") + stat (ra, "dropped-torn") +
        stat (ra, "batches-lost");
    if (blocks.missing > 0 && a_explained == 0 && a_recv == 0)
      g_string_append_printf (fail, " %" G_GUINT64_FORMAT " audio blocks "
          "lost;", blocks.missing);
  }
  /* the sender's transfers to its target that did not complete, named
   * only when there are some */
  queued = queued_not_completed (sv) + queued_not_completed (sa);
  queued_note = queued > 0 ? g_strdup_printf (", queued and not completed %"
      G_GINT64_FORMAT, queued) : g_strdup ("");
  superseded_note = superseded > 0 ? g_strdup_printf (", superseded %"
      G_GINT64_FORMAT, superseded) : g_strdup ("");
  fprintf (out, "  drops          sender: no target %" G_GINT64_FORMAT
      ", no timestamp %" G_GINT64_FORMAT ", slot still in flight %"
      G_GINT64_FORMAT "%s; receiver: lapped %"
      G_GINT64_FORMAT ", torn %" G_GINT64_FORMAT ", skipped %" G_GINT64_FORMAT
      "%s, never arrived %" G_GINT64_FORMAT " (the sender's drops among them), "
      "invalid %" G_GINT64_FORMAT "; audio batches lost %" G_GINT64_FORMAT
      "\n",
      stat (sv, "dropped-no-target") + stat (sa, "dropped-no-target"),
      stat (sv, "dropped-early") + stat (sa, "dropped-early"),
      stat (sv, "dropped-in-flight") + stat (sa, "dropped-in-flight"),
      queued_note,
      stat (rv, "dropped-late") + stat (ra, "dropped-late"),
      stat (rv, "dropped-torn") + stat (ra, "dropped-torn"),
      stat (rv, "dropped-skipped"), superseded_note,
      stat (rv, "dropped-missing") + stat (ra, "dropped-missing"),
      stat (rv, "invalid") + stat (ra, "invalid"), stat (ra, "batches-lost"));
  g_free (queued_note);
  g_free (superseded_note);
  /* each video frame once (the sender's, then the receiver's own), plus
   * the audio batches the sender did not transfer and the receiver lost */
  total_drops = MIN (explained, (gint64) video.missing) + recv_drops +
      a_explained + a_recv;
  if (recv_drops + a_recv > 0)
    fprintf (out, "                 %" G_GINT64_FORMAT " grains or batches "
        "were dropped with a counted cause (not delivered, never delivered "
        "damaged): which stage could not keep up, see keeping up\n",
        total_drops);

  secs = video.last_tai > video.first_tai ?
      (video.last_tai - video.first_tai) / 1e9 : 0;
  if (secs > 0 && video.received > 1) {
    /* bytes of the frames after the first over the time they took */
    double per = (double) video.bytes_received / video.received;
    double bytes = per * (video.received - 1) + (double) audio.bytes_received;
    fprintf (out, "  throughput     %.1f MB/s received over %.2f s (%.1f "
        "frames/s)\n", bytes / secs / 1e6, secs,
        (video.received - 1) / secs);
  }
  if (video.latency_ms->len > 0) {
    fprintf (out, "  latency        per frame, arrival at the receiver - "
        "render by the sender (CLOCK_TAI): median %.2f ms, p99 %.2f ms, max "
        "%.2f ms over %u frames\n", percentile (video.latency_ms, 0.5),
        percentile (video.latency_ms, 0.99),
        g_array_index (video.latency_ms, double, video.latency_ms->len - 1),
        video.latency_ms->len);
  }
  if (audio.latency_ms && audio.latency_ms->len > 0) {
    g_array_sort (audio.latency_ms, cmp_double);
    fprintf (out, "                 per audio batch: median %.2f ms, p99 "
        "%.2f ms over %u batches\n", percentile (audio.latency_ms, 0.5),
        percentile (audio.latency_ms, 0.99), audio.latency_ms->len);
  }
  {
    /* Which side and stage could not keep up (docs/getting-started.md):
     * the sender's producers count the frames they produced after their
     * period ended and the indices they skipped, and the ones a busy sink
     * did not take; the sink counts slots still in flight and the
     * transfers queued for its target that did not complete; the receiver
     * counts what its src (and its library, superseded completions)
     * dropped and the frames its own handling took
     * longer than a period over; the rest is the transfer, a frame that
     * arrived more than three periods after its render. A receiver that
     * falls behind also delays later arrivals, so the transfer is named
     * only when the receiver kept up. */
    gint64 fps = json_object_get_int_member (snd.root, "fps");
    gint64 v_late = producer (&snd, "video", "late");
    gint64 v_missed = producer (&snd, "video", "missed");
    gint64 a_late = producer (&snd, "audio", "late");
    gint64 a_missed = producer (&snd, "audio", "missed");
    gint64 refused = producer (&snd, "video", "refused") +
        producer (&snd, "audio", "refused");
    gint64 in_flight_drops = stat (sv, "dropped-in-flight") +
        stat (sa, "dropped-in-flight");
    gint64 consume_slow = member_int (rv, "consume_slow") +
        member_int (ra, "consume_slow");
    gint64 due = producer (&snd, "video", "produced") + v_missed;
    double limit_ms = fps > 0 ? 3000.0 / fps : 60;
    guint64 transfer_late = 0, i;

    for (i = 0; i < video.latency_ms->len; i++)
      transfer_late += g_array_index (video.latency_ms, double, i) > limit_ms;
    fprintf (out, "  keeping up     sender, producing frames: %" G_GINT64_FORMAT
        " late, %" G_GINT64_FORMAT " not produced of %" G_GINT64_FORMAT
        " due (audio batches: %" G_GINT64_FORMAT " late, %" G_GINT64_FORMAT
        " not produced)\n", v_late, v_missed, due, a_late, a_missed);
    fprintf (out, "                 sender, transfer: %" G_GINT64_FORMAT
        " refused by a busy sink, %" G_GINT64_FORMAT " dropped with their "
        "slot still in flight", refused, in_flight_drops);
    if (queued > 0)
      fprintf (out, ", %" G_GINT64_FORMAT " queued for the target and not "
          "completed (it was behind, or its connection failed)", queued);
    fprintf (out, "\n");
    fprintf (out, "                 receiver, receiving and consuming: %"
        G_GINT64_FORMAT " dropped (%s, audio batches lost), %"
        G_GINT64_FORMAT " handled slower than their period\n",
        recv_drops + a_recv, recv_causes, consume_slow);
    fprintf (out, "                 transfer: %" G_GUINT64_FORMAT " frames "
        "arrived more than %.0f ms (3 frame periods) after their render\n",
        transfer_late, limit_ms);
    if (v_late + v_missed + a_late + a_missed > 0)
      g_string_append (degraded, "; sender could not produce frames in time");
    if (refused + in_flight_drops + queued > 0)
      g_string_append (degraded, "; sender could not transfer frames in "
          "time");
    if (recv_drops + a_recv + consume_slow > 0)
      g_string_append (degraded, "; receiver could not receive and consume "
          "frames in time");
    else if (transfer_late > 0)
      g_string_append (degraded, "; the transfer delayed frames");
  }
  fprintf (out, "  cpu            ");
  print_cpu (out, "sender", snd.root);
  fprintf (out, "\n                 ");
  print_cpu (out, "receiver", rcv.root);
  fprintf (out, "\n");
  png = json_object_get_string_member (rcv.root, "png");
  if (png && png[0])
    fprintf (out, "  png            %s (one received frame, 1920x1080)\n",
        png);
  else
    fprintf (out, "  png            none: %s\n",
        json_object_get_string_member (rcv.root, "png_error"));
  err = json_object_get_string_member (snd.root, "error");
  if (err && err[0])
    g_string_append_printf (fail, " sender error: %s;", err);
  err = json_object_get_string_member (rcv.root, "error");
  if (err && err[0])
    g_string_append_printf (fail, " receiver error: %s;", err);
  if (fail->len > 0) {
    fprintf (out, "  result         FAILED:%s\n", fail->str);
    rc = 1;
  } else {
    gchar *verdict = degraded->len > 0 ?
        g_strdup_printf ("DEGRADED (%s)", degraded->str + 2) : g_strdup ("OK");
    if (explained > 0 || recv_drops > 0 || a_explained > 0 || a_recv > 0)
      fprintf (out, "  result         %s: every frame and audio block that "
          "arrived is bit-exact; the ones that did not arrive are counted "
          "with their cause above\n", verdict);
    else
      fprintf (out, "  result         %s: every frame and audio block that "
          "was sent arrived bit-exact\n", verdict);
    g_free (verdict);
  }
  if (video.latency_ms)
    g_array_unref (video.latency_ms);
  if (audio.latency_ms)
    g_array_unref (audio.latency_ms);
out:
  g_clear_object (&snd.parser);
  g_clear_object (&rcv.parser);
  g_string_free (fail, TRUE);
  g_string_free (degraded, TRUE);
  return rc;
}
