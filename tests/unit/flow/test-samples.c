/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Continuous flows: open/commit samples, reads across the ring end (two
 * fragments), windows, stale readers, futex wake-up (docs/flow-format.md §4.3,
 * §5.5 convention (A), §8.1 cases 9-12, §8.2 X5, X6).
 */
#include "flowtest.h"

#define L 19456u
#define HALF (L / 2)
#define C 2u

typedef struct {
  char *domain;
  mxlInstance wi, ri;
  mxlFlowWriter w;
  mxlFlowReader r;
  mxlFlowConfigInfo cfg;
  char *def;
  uint8_t *base;               /* the writer's channels mapping */
} Fixture;

static void
setup (Fixture *f, gconstpointer data)
{
  size_t len = 0;

  f->domain = flowtest_domain_new ();
  f->def = flowtest_audio_def ();
  f->wi = mxlCreateInstance (f->domain, NULL);
  f->ri = mxlCreateInstance (f->domain, NULL);
  g_assert_cmpint (mxlCreateFlowWriter (f->wi, f->def, NULL, &f->w, &f->cfg, NULL), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlCreateFlowReader (f->ri, FIXTURE_AUDIO_ID, NULL, &f->r), ==, MXL_STATUS_OK);
  f->base = mxl_flow_writer_channels (f->w, &len);
  g_assert_nonnull (f->base);
  g_assert_cmpuint (len, ==, C * L * 4);
}

static void
teardown (Fixture *f, gconstpointer data)
{
  mxlDestroyInstance (f->ri);
  mxlDestroyInstance (f->wi);
  g_free (f->def);
  flowtest_domain_free (f->domain);
}

/* Writes samples [k0, k0 + n) of every channel: sample k of channel c holds
 * the uint32 label k * 4 + c (convention (A): open (k0 + n, n)). */
static void
write_labels (Fixture *f, uint64_t k0, size_t n)
{
  mxlMutableWrappedMultiBufferSlice s;
  uint64_t k = k0;

  g_assert_cmpint (mxlFlowWriterOpenSamples (f->w, k0 + n, n, &s), ==, MXL_STATUS_OK);
  g_assert_cmpuint (s.count, ==, C);
  g_assert_cmpuint (s.stride, ==, L * 4);
  g_assert_cmpuint (s.base.fragments[0].size + s.base.fragments[1].size, ==, n * 4);
  for (int frag = 0; frag < 2; frag++) {
    size_t m = s.base.fragments[frag].size / 4;
    for (size_t j = 0; j < m; j++, k++) {
      for (uint32_t c = 0; c < C; c++) {
        uint32_t label = (uint32_t) (k * 4 + c);
        memcpy ((uint8_t *) s.base.fragments[frag].pointer + c * s.stride + j * 4, &label, 4);
      }
    }
  }
  g_assert_cmpuint (k, ==, k0 + n);
  g_assert_cmpint (mxlFlowWriterCommitSamples (f->w), ==, MXL_STATUS_OK);
  g_assert_cmpuint (flowtest_head (f->r), ==, k0 + n);
}

/* Checks that a read of (index, n) returns samples index - n … index - 1. */
static void
check_labels (const mxlWrappedMultiBufferSlice *s, uint64_t index, size_t n)
{
  uint64_t k = index - n;

  g_assert_cmpuint (s->base.fragments[0].size + s->base.fragments[1].size, ==, n * 4);
  for (int frag = 0; frag < 2; frag++) {
    size_t m = s->base.fragments[frag].size / 4;
    for (size_t j = 0; j < m; j++, k++) {
      for (uint32_t c = 0; c < C; c++) {
        uint32_t label;
        memcpy (&label, (const uint8_t *) s->base.fragments[frag].pointer + c * s->stride + j * 4, 4);
        if (label != (uint32_t) (k * 4 + c))
          g_error ("sample %" G_GUINT64_FORMAT " channel %u holds %u", k, c, label);
      }
    }
  }
}

/* §8.1 case 9 */
static void
test_create_write_read (Fixture *f, gconstpointer data)
{
  mxlRational rate = f->cfg.common.grainRate;
  uint64_t idx = mxlGetCurrentIndex (&rate);
  mxlMutableWrappedMultiBufferSlice ws;
  mxlWrappedMultiBufferSlice rs;
  size_t max = 0;
  uint8_t v = 0;

  g_assert_cmpint (rate.numerator, ==, 48000);
  g_assert_cmpuint (f->cfg.continuous.channelCount, ==, 2);
  g_assert_cmpuint (f->cfg.continuous.bufferLength, ==, L);
  g_assert_cmpint (mxlFlowReaderGetMaxReadLengthSamples (f->r, &max), ==, MXL_STATUS_OK);
  g_assert_cmpuint (max, ==, 9728);
  g_assert_cmpint (mxlFlowWriterGetMaxWriteLengthSamples (f->w, &max), ==, MXL_STATUS_OK);
  g_assert_cmpuint (max, ==, 9728);

  g_assert_cmpint (mxlFlowWriterOpenSamples (f->w, idx, 64, &ws), ==, MXL_STATUS_OK);
  g_assert_cmpuint (ws.count, ==, 2);
  g_assert_cmpuint (ws.base.fragments[0].size + ws.base.fragments[1].size, ==, 256);
  g_assert_cmpuint (flowtest_head (f->r), ==, 0);
  for (size_t c = 0; c < 2; c++)
    for (int k = 0; k < 2; k++)
      for (size_t b = 0; b < ws.base.fragments[k].size; b++)
        ((uint8_t *) ws.base.fragments[k].pointer)[c * ws.stride + b] = v++;
  g_assert_cmpint (mxlFlowWriterCommitSamples (f->w), ==, MXL_STATUS_OK);
  g_assert_cmpuint (flowtest_head (f->r), ==, idx);

  g_assert_cmpint (mxlFlowReaderGetSamplesNonBlocking (f->r, idx, 64, &rs), ==, MXL_STATUS_OK);
  g_assert_cmpuint (rs.count, ==, 2);
  g_assert_cmpuint (rs.stride, ==, ws.stride);
  v = 0;
  for (size_t c = 0; c < 2; c++) {
    for (int k = 0; k < 2; k++) {
      /* same split, same offsets relative to `channels` */
      g_assert_cmpuint (rs.base.fragments[k].size, ==, ws.base.fragments[k].size);
      g_assert_cmpint ((const uint8_t *) rs.base.fragments[k].pointer - mxl_flow_reader_channels (f->r, NULL),
          ==, (uint8_t *) ws.base.fragments[k].pointer - f->base);
      for (size_t b = 0; b < rs.base.fragments[k].size; b++)
        g_assert_cmpuint (((const uint8_t *) rs.base.fragments[k].pointer)[c * rs.stride + b], ==, v++);
    }
  }
}

/* Convention (A) slot mapping and a write across the ring end (X5), with
 * sentinels proving no other byte of `channels` was touched. */
static void
test_wrap_two_fragments (Fixture *f, gconstpointer data)
{
  const uint64_t k0 = 100ull * L - 40;      /* slots L-40 … L-1, then 0 … 59 */
  const size_t n = 100;
  mxlMutableWrappedMultiBufferSlice ws;
  mxlWrappedMultiBufferSlice rs;
  uint8_t *copy;

  memset (f->base, 0xEE, (size_t) C * L * 4);
  g_assert_cmpint (mxlFlowWriterOpenSamples (f->w, k0 + n, n, &ws), ==, MXL_STATUS_OK);
  /* §5.5: start = (I - n) mod L = L - 40, end = I mod L = 60 */
  g_assert_true ((uint8_t *) ws.base.fragments[0].pointer == f->base + (L - 40) * 4);
  g_assert_cmpuint (ws.base.fragments[0].size, ==, 40 * 4);
  g_assert_true ((uint8_t *) ws.base.fragments[1].pointer == f->base);
  g_assert_cmpuint (ws.base.fragments[1].size, ==, 60 * 4);
  g_assert_cmpint (mxlFlowWriterCancelSamples (f->w), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFlowWriterCommitSamples (f->w), ==, MXL_ERR_INVALID_ARG);   /* nothing open */
  g_assert_cmpuint (flowtest_head (f->r), ==, 0);

  write_labels (f, k0, n);
  copy = g_memdup2 (f->base, (size_t) C * L * 4);
  for (uint32_t c = 0; c < C; c++) {
    for (uint32_t s = 0; s < L; s++) {
      const uint8_t *p = copy + ((size_t) c * L + s) * 4;
      gboolean written = s >= L - 40 || s < 60;
      if (written) {
        /* sample k lives in slot k mod L */
        uint64_t k = s >= L - 40 ? k0 + (s - (L - 40)) : k0 + 40 + s;
        uint32_t label;
        memcpy (&label, p, 4);
        g_assert_cmpuint (label, ==, (uint32_t) (k * 4 + c));
        g_assert_cmpuint (k % L, ==, s);
      } else if (p[0] != 0xEE || p[1] != 0xEE || p[2] != 0xEE || p[3] != 0xEE) {
        g_error ("sentinel at channel %u slot %u overwritten", c, s);
      }
    }
  }
  g_free (copy);

  g_assert_cmpint (mxlFlowReaderGetSamplesNonBlocking (f->r, k0 + n, n, &rs), ==, MXL_STATUS_OK);
  g_assert_cmpuint (rs.base.fragments[0].size, ==, 160);
  g_assert_cmpuint (rs.base.fragments[1].size, ==, 240);
  check_labels (&rs, k0 + n, n);
  /* a sub-range ending before the ring end is one fragment */
  g_assert_cmpint (mxlFlowReaderGetSamplesNonBlocking (f->r, k0 + 40, 40, &rs), ==, MXL_STATUS_OK);
  g_assert_cmpuint (rs.base.fragments[1].size, ==, 0);
  g_assert_true ((const uint8_t *) rs.base.fragments[1].pointer == mxl_flow_reader_channels (f->r, NULL));
  check_labels (&rs, k0 + 40, 40);
}

/* §8.2 X6 windows for L = 19456 and n = 0 / n > L/2 rules */
static void
test_windows (Fixture *f, gconstpointer data)
{
  mxlWrappedMultiBufferSlice rs;
  mxlMutableWrappedMultiBufferSlice ws;
  const uint64_t h = 7ull * L + 123;

  write_labels (f, h - HALF, HALF);
  write_labels (f, h - 10, 10);      /* re-commit to end exactly at h */
  g_assert_cmpint (mxlFlowReaderGetSamplesNonBlocking (f->r, h, HALF, &rs), ==, MXL_STATUS_OK);
  check_labels (&rs, h, HALF);
  g_assert_cmpint (mxlFlowReaderGetSamplesNonBlocking (f->r, h - 1, HALF, &rs), ==, MXL_ERR_OUT_OF_RANGE_TOO_LATE);
  g_assert_cmpint (mxlFlowReaderGetSamplesNonBlocking (f->r, h, HALF + 1, &rs), ==, MXL_ERR_OUT_OF_RANGE_TOO_LATE);
  g_assert_cmpint (mxlFlowReaderGetSamplesNonBlocking (f->r, h + 1, 1, &rs), ==, MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
  g_assert_cmpint (mxlFlowReaderGetSamplesNonBlocking (f->r, h, 0, &rs), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFlowReaderGetSamplesNonBlocking (f->r, h, 1, NULL), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFlowWriterOpenSamples (f->w, h, 0, &ws), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFlowWriterOpenSamples (f->w, h, HALF + 1, &ws), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFlowWriterOpenSamples (f->w, h, 1, NULL), ==, MXL_ERR_INVALID_ARG);
  {
    mxlGrainInfo gi;
    uint8_t *p;
    g_assert_cmpint (mxlFlowWriterOpenGrain (f->w, 1, &gi, &p), ==, MXL_ERR_INVALID_FLOW_WRITER);
    g_assert_cmpint (mxlFlowReaderGetGrain (f->r, 1, 0, &gi, &p), ==, MXL_ERR_INVALID_FLOW_READER);
  }
  /* internal accessors */
  {
    MxlFlowLayout lay;
    g_assert_cmpint (mxl_flow_reader_get_layout (f->r, &lay), ==, MXL_STATUS_OK);
    g_assert_cmpint (lay.format, ==, MXL_DATA_FORMAT_AUDIO);
    g_assert_cmpuint (lay.channel_count, ==, C);
    g_assert_cmpuint (lay.buffer_length, ==, L);
    g_assert_cmpuint (lay.sample_word_size, ==, 4);
    g_assert_cmpuint (lay.sync_batch_hint, ==, 480);
    g_assert_cmpuint (lay.grain_count, ==, 0);
    g_assert_null (mxl_flow_reader_grain_slot (f->r, 0, NULL));
  }
}

/* §8.1 case 11, in convention (A) */
static void
test_batch_sizes (Fixture *f, gconstpointer data)
{
  mxlRational rate = f->cfg.common.grainRate;
  const uint64_t last = mxlGetCurrentIndex (&rate);
  const size_t batches[4] = { 5456, 4272, 5728, 4000 };   /* sum = L; last two = L/2 */
  uint64_t ends[4], start = last - L;
  mxlWrappedMultiBufferSlice rs;

  for (int b = 0; b < 4; b++) {
    write_labels (f, start, batches[b]);
    start += batches[b];
    ends[b] = start;
  }
  g_assert_cmpuint (ends[3], ==, last);
  /* the last two batches read back with the same (I, n) */
  for (int b = 2; b < 4; b++) {
    g_assert_cmpint (mxlFlowReaderGetSamplesNonBlocking (f->r, ends[b], batches[b], &rs), ==, MXL_STATUS_OK);
    check_labels (&rs, ends[b], batches[b]);
  }
  /* L/2 samples in 3 batches of different size */
  {
    const size_t parts[3] = { 1000, 3728, 5000 };
    uint64_t end = last - HALF;
    for (int p = 0; p < 3; p++) {
      end += parts[p];
      g_assert_cmpint (mxlFlowReaderGetSamplesNonBlocking (f->r, end, parts[p], &rs), ==, MXL_STATUS_OK);
      check_labels (&rs, end, parts[p]);
    }
    g_assert_cmpuint (end, ==, last);
  }
  /* ours: the first two batches are overwritten territory */
  for (int b = 0; b < 2; b++)
    g_assert_cmpint (mxlFlowReaderGetSamplesNonBlocking (f->r, ends[b], batches[b], &rs), ==, MXL_ERR_OUT_OF_RANGE_TOO_LATE);
}

/* §8.1 case 10: the flow is deleted and recreated under the reader */
static void
test_stale_reader (Fixture *f, gconstpointer data)
{
  mxlRational rate = f->cfg.common.grainRate;
  mxlWrappedMultiBufferSlice rs;

  g_assert_cmpint (mxlReleaseFlowWriter (f->wi, f->w), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlCreateFlowWriter (f->wi, f->def, NULL, &f->w, NULL, NULL), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFlowReaderGetSamplesNonBlocking (f->r, mxlGetCurrentIndex (&rate), 64, &rs), ==, MXL_ERR_FLOW_INVALID);
  g_assert_cmpint (mxlFlowReaderGetSamples (f->r, mxlGetCurrentIndex (&rate), 64, 5000000, &rs), ==, MXL_ERR_FLOW_INVALID);
}

/* §8.1 case 12: a writer thread and a blocking reader */
static gpointer
block_writer (gpointer data)
{
  Fixture *f = data;

  for (uint64_t k = 0; k < 50; k++) {
    /* (A): open (1000 + k * 480, 480) writes samples 520 + k*480 … */
    write_labels (f, 1000 + k * 480 - 480, 480);
    mxlSleepForNs (10000000);
  }
  return NULL;
}

static void
test_futex_wakeup (Fixture *f, gconstpointer data)
{
  GThread *t = g_thread_new ("writer", block_writer, f);
  int blocks = 0;

  for (uint64_t k = 0; k < 50; k++) {
    mxlWrappedMultiBufferSlice rs;
    g_assert_cmpint (mxlFlowReaderGetSamples (f->r, 1000 + k * 480, 480, 50000000, &rs), ==, MXL_STATUS_OK);
    check_labels (&rs, 1000 + k * 480, 480);
    blocks++;
  }
  g_assert_cmpint (blocks, ==, 50);
  g_thread_join (t);
}

static void
test_timeout (Fixture *f, gconstpointer data)
{
  mxlWrappedMultiBufferSlice rs;
  gint64 t0 = g_get_monotonic_time ();

  g_assert_cmpint (mxlFlowReaderGetSamples (f->r, 5000, 100, 20000000, &rs), ==, MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
  g_assert_cmpint (g_get_monotonic_time () - t0, >=, 20000);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 1000000);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, fn) g_test_add (path, Fixture, NULL, setup, fn, teardown)
  ADD ("/samples/create-write-read", test_create_write_read);
  ADD ("/samples/wrap-two-fragments", test_wrap_two_fragments);
  ADD ("/samples/windows", test_windows);
  ADD ("/samples/batch-sizes", test_batch_sizes);
  ADD ("/samples/stale-reader", test_stale_reader);
  ADD ("/samples/futex-wakeup", test_futex_wakeup);
  ADD ("/samples/timeout", test_timeout);
#undef ADD
  return g_test_run ();
}
