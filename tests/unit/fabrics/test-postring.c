/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * MPSC post ring (src/fabrics/postring.h). Threaded tests: run these under
 * ThreadSanitizer too (tests/unit/fabrics/meson.build, executable
 * test-postring).
 */
#include <gio/gio.h>
#include <string.h>

#include "fabrics/postring.h"

typedef struct {
  guint32 producer;
  guint32 pad;
  guint64 seq;
} Entry;

static void
test_capacity_validation (void)
{
  static const guint bad_caps[] = { 0, 1, 3, 6, 1000, (1u << 20) + 1, 1u << 21, G_MAXUINT };
  static const guint good_caps[] = { 2, 4, 1024, 1u << 20 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad_caps); i++) {
    g_autoptr (GError) error = NULL;
    g_assert_null (mxl_post_ring_new (bad_caps[i], sizeof (Entry), &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
    g_assert_nonnull (strstr (error->message, "capacity"));
  }
  for (i = 0; i < G_N_ELEMENTS (good_caps); i++) {
    g_autoptr (GError) error = NULL;
    MxlPostRing *ring = mxl_post_ring_new (good_caps[i], sizeof (Entry), &error);
    g_assert_no_error (error);
    g_assert_cmpuint (mxl_post_ring_capacity (ring), ==, good_caps[i]);
    g_assert_cmpuint (mxl_post_ring_entry_size (ring), ==, sizeof (Entry));
    mxl_post_ring_free (ring);
  }
  {
    g_autoptr (GError) error = NULL;
    g_assert_null (mxl_post_ring_new (8, 0, &error));
    g_assert_nonnull (strstr (error->message, "entry size"));
    g_clear_error (&error);
    g_assert_null (mxl_post_ring_new (8, MXL_POST_RING_MAX_ENTRY_SIZE + 1, &error));
    g_assert_nonnull (strstr (error->message, "entry size"));
  }
  mxl_post_ring_free (NULL);
}

/* Single thread: FIFO, full at exactly capacity, many wraps, odd entry size
 * (13 bytes) copied exactly. */
static void
test_fifo_and_wrap (void)
{
  MxlPostRing *ring = mxl_post_ring_new (8, 13, NULL);
  guint8 in[13], out[13];
  guint64 next_in = 0, next_out = 0;
  guint round, i;

  memset (out, 0, sizeof out);
  g_assert_false (mxl_post_ring_pop (ring, out));
  for (round = 0; round < 100; round++) {
    /* Fill completely. */
    for (i = 0; i < 8; i++) {
      memset (in, (int) (next_in & 0xff), sizeof in);
      in[0] = (guint8) (next_in >> 8);
      g_assert_true (mxl_post_ring_try_push (ring, in));
      next_in++;
    }
    g_assert_false (mxl_post_ring_try_push (ring, in));
    /* Drain a varying amount so slot positions drift between rounds. */
    for (i = 0; i < 1 + round % 8; i++) {
      g_assert_true (mxl_post_ring_pop (ring, out));
      g_assert_cmpuint (out[0], ==, (guint8) (next_out >> 8));
      g_assert_cmpuint (out[12], ==, (guint8) (next_out & 0xff));
      next_out++;
    }
    while (next_out < next_in) {
      g_assert_true (mxl_post_ring_pop (ring, out));
      g_assert_cmpuint (out[5], ==, (guint8) (next_out & 0xff));
      next_out++;
    }
    g_assert_false (mxl_post_ring_pop (ring, out));
  }
  g_assert_cmpuint (next_out, ==, 800);
  g_assert_cmpuint (mxl_post_ring_full_count (ring), ==, 100);
  mxl_post_ring_free (ring);
}

/* --- 8 producers x 50,000 entries into a 256-entry ring ----------------- */

#define N_PRODUCERS 8
#define PER_PRODUCER 50000
#define STRESS_LIMIT_US (60 * G_USEC_PER_SEC)

typedef struct {
  MxlPostRing *ring;
  guint32 id;
  gint64 deadline_us;
  guint64 pushed;
  guint64 not_ready;
} Producer;

static gpointer
producer_main (gpointer data)
{
  Producer *p = data;
  guint64 i;

  for (i = 0; i < PER_PRODUCER; i++) {
    Entry e = { p->id, 0, i };
    /* Alternate both push flavours; every entry must get in before the
     * test's deadline or the producer stops (the consumer then fails). */
    if (i % 2 == 0) {
      while (!mxl_post_ring_try_push (p->ring, &e)) {
        if (g_get_monotonic_time () > p->deadline_us)
          return NULL;
        g_thread_yield ();
      }
    } else if (mxl_post_ring_push_with_deadline (p->ring, &e, p->deadline_us)
        != MXL_STATUS_OK) {
      p->not_ready++;
      return NULL;
    }
    p->pushed++;
  }
  return NULL;
}

static void
run_stress (guint capacity)
{
  MxlPostRing *ring = mxl_post_ring_new (capacity, sizeof (Entry), NULL);
  Producer producers[N_PRODUCERS];
  GThread *threads[N_PRODUCERS];
  guint64 expected[N_PRODUCERS] = { 0 };
  guint64 total = 0, empty_polls = 0;
  gint64 start = g_get_monotonic_time ();
  gint64 deadline = start + STRESS_LIMIT_US;
  guint i;

  for (i = 0; i < N_PRODUCERS; i++) {
    producers[i] = (Producer) { ring, i, deadline, 0, 0 };
    threads[i] = g_thread_new ("producer", producer_main, &producers[i]);
  }
  while (total < (guint64) N_PRODUCERS * PER_PRODUCER
      && g_get_monotonic_time () < deadline) {
    Entry e;
    if (!mxl_post_ring_pop (ring, &e)) {
      empty_polls++;
      g_thread_yield ();
      continue;
    }
    g_assert_cmpuint (e.producer, <, N_PRODUCERS);
    /* Exactly once and in per-producer order: the next sequence number. */
    if (e.seq != expected[e.producer])
      g_error ("producer %u: got seq %" G_GUINT64_FORMAT ", expected %" G_GUINT64_FORMAT,
          e.producer, e.seq, expected[e.producer]);
    g_assert_cmpuint (e.pad, ==, 0);
    expected[e.producer]++;
    total++;
  }
  for (i = 0; i < N_PRODUCERS; i++)
    g_thread_join (threads[i]);

  g_test_message ("capacity %u: %" G_GUINT64_FORMAT " entries in %.2f s, "
      "%" G_GUINT64_FORMAT " full-ring failures, %" G_GUINT64_FORMAT " empty polls",
      capacity, total, (g_get_monotonic_time () - start) / 1e6,
      mxl_post_ring_full_count (ring), empty_polls);
  for (i = 0; i < N_PRODUCERS; i++) {
    g_assert_cmpuint (producers[i].not_ready, ==, 0);
    g_assert_cmpuint (producers[i].pushed, ==, PER_PRODUCER);
    g_assert_cmpuint (expected[i], ==, PER_PRODUCER);
  }
  g_assert_cmpuint (total, ==, (guint64) N_PRODUCERS * PER_PRODUCER);
  {
    Entry e;
    g_assert_false (mxl_post_ring_pop (ring, &e));
  }
  mxl_post_ring_free (ring);
}

static void
test_stress_8_producers (void)
{
  run_stress (256);
}

/* A 2-entry ring makes every producer wait and lap the ring constantly:
 * a producer stalled across a full cycle must not claim a stale slot. */
static void
test_stress_tiny_ring (void)
{
  run_stress (2);
}

/* --- deadlines ------------------------------------------------------------ */

static void
fill (MxlPostRing *ring)
{
  Entry e = { 0, 0, 0 };
  guint i;

  for (i = 0; i < mxl_post_ring_capacity (ring); i++) {
    e.seq = i;
    g_assert_true (mxl_post_ring_try_push (ring, &e));
  }
}

static void
test_deadline_full (void)
{
  MxlPostRing *ring = mxl_post_ring_new (4, sizeof (Entry), NULL);
  Entry e = { 1, 0, 99 };
  gint64 t0, elapsed;

  fill (ring);
  g_assert_cmpuint (mxl_post_ring_full_count (ring), ==, 0);

  /* 50 ms deadline: NOT_READY, and not before the deadline. */
  t0 = g_get_monotonic_time ();
  g_assert_cmpint (mxl_post_ring_push_with_deadline (ring, &e, t0 + 50000), ==,
      MXL_ERR_NOT_READY);
  elapsed = g_get_monotonic_time () - t0;
  g_test_message ("50 ms deadline returned after %" G_GINT64_FORMAT " us", elapsed);
  g_assert_cmpint (elapsed, >=, 50000);
  g_assert_cmpuint (mxl_post_ring_full_count (ring), ==, 1);

  /* A deadline in the past: one attempt. */
  g_assert_cmpint (mxl_post_ring_push_with_deadline (ring, &e, 0), ==,
      MXL_ERR_NOT_READY);
  g_assert_cmpuint (mxl_post_ring_full_count (ring), ==, 2);
  g_assert_false (mxl_post_ring_try_push (ring, &e));
  g_assert_cmpuint (mxl_post_ring_full_count (ring), ==, 3);

  /* Nothing was lost or duplicated by the failed pushes. */
  {
    Entry out;
    guint64 i;
    for (i = 0; i < 4; i++) {
      g_assert_true (mxl_post_ring_pop (ring, &out));
      g_assert_cmpuint (out.seq, ==, i);
    }
    g_assert_false (mxl_post_ring_pop (ring, &out));
  }
  mxl_post_ring_free (ring);
}

typedef struct {
  MxlPostRing *ring;
  guint delay_us;
  Entry popped;
  gboolean ok;
} Drainer;

static gpointer
drainer_main (gpointer data)
{
  Drainer *d = data;

  g_usleep (d->delay_us);
  d->ok = mxl_post_ring_pop (d->ring, &d->popped);
  return NULL;
}

/* A consumer frees a slot after 20 ms: a push with a 5 s deadline succeeds
 * (well before the deadline) and its entry comes out last. */
static void
test_deadline_succeeds_when_drained (void)
{
  MxlPostRing *ring = mxl_post_ring_new (4, sizeof (Entry), NULL);
  Drainer d = { ring, 20000, { 0, 0, 0 }, FALSE };
  Entry e = { 7, 0, 1234 }, out;
  GThread *t;
  gint64 t0, elapsed;
  guint64 i;

  fill (ring);
  t0 = g_get_monotonic_time ();
  t = g_thread_new ("drainer", drainer_main, &d);
  g_assert_cmpint (mxl_post_ring_push_with_deadline (ring, &e, t0 + 5 * G_USEC_PER_SEC),
      ==, MXL_STATUS_OK);
  elapsed = g_get_monotonic_time () - t0;
  g_thread_join (t);
  g_test_message ("push waited %" G_GINT64_FORMAT " us for the drainer", elapsed);
  g_assert_true (d.ok);
  g_assert_cmpuint (d.popped.seq, ==, 0);
  g_assert_cmpint (elapsed, <, 5 * G_USEC_PER_SEC);
  g_assert_cmpuint (mxl_post_ring_full_count (ring), ==, 0);
  for (i = 1; i < 4; i++) {
    g_assert_true (mxl_post_ring_pop (ring, &out));
    g_assert_cmpuint (out.seq, ==, i);
  }
  g_assert_true (mxl_post_ring_pop (ring, &out));
  g_assert_cmpuint (out.producer, ==, 7);
  g_assert_cmpuint (out.seq, ==, 1234);
  g_assert_false (mxl_post_ring_pop (ring, &out));
  mxl_post_ring_free (ring);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fabrics/postring/capacity-validation", test_capacity_validation);
  g_test_add_func ("/fabrics/postring/fifo-and-wrap", test_fifo_and_wrap);
  g_test_add_func ("/fabrics/postring/stress-8-producers", test_stress_8_producers);
  g_test_add_func ("/fabrics/postring/stress-tiny-ring", test_stress_tiny_ring);
  g_test_add_func ("/fabrics/postring/deadline-full", test_deadline_full);
  g_test_add_func ("/fabrics/postring/deadline-succeeds-when-drained",
      test_deadline_succeeds_when_drained);
  return g_test_run ();
}
