/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Discrete flows: open/commit/read, windows, slot reuse, partial grains,
 * invalid grains, stale readers (docs/flow-format.md §4.2, §4.4, §4.6, §5.4, §8.1
 * cases 1-4, 8, 15, §8.2 X6).
 */
#include "flowtest.h"

typedef struct {
  char *domain;
  mxlInstance wi, ri;          /* writer and reader in separate instances */
  mxlFlowWriter w;
  mxlFlowReader r;
  mxlFlowConfigInfo cfg;
  char *def;
} Fixture;

static void
setup_def (Fixture *f, char *def)
{
  bool created = false;

  f->domain = flowtest_domain_new ();
  f->def = def;
  f->wi = mxlCreateInstance (f->domain, NULL);
  f->ri = mxlCreateInstance (f->domain, NULL);
  g_assert_cmpint (mxlCreateFlowWriter (f->wi, def, NULL, &f->w, &f->cfg, &created), ==, MXL_STATUS_OK);
  g_assert_true (created);
  g_assert_cmpint (mxlCreateFlowReader (f->ri, f->cfg.common.id[0] == 0xdb ? FIXTURE_DATA_ID : FIXTURE_VIDEO_ID,
          NULL, &f->r), ==, MXL_STATUS_OK);
}

static void
setup_v210 (Fixture *f, gconstpointer data)
{
  setup_def (f, flowtest_v210_def ());
}

static void
setup_v210a (Fixture *f, gconstpointer data)
{
  setup_def (f, flowtest_video_def (FIXTURE_VIDEO_ID, "video/v210a", 1920, 1080, 30000, 1001, NULL));
}

static void
setup_data (Fixture *f, gconstpointer data)
{
  setup_def (f, flowtest_data_def ());
}

static void
teardown (Fixture *f, gconstpointer data)
{
  if (f->ri)
    mxlDestroyInstance (f->ri);
  if (f->wi)
    mxlDestroyInstance (f->wi);
  g_free (f->def);
  flowtest_domain_free (f->domain);
}

static void
commit (Fixture *f, uint64_t index, uint16_t valid, uint32_t flags, uint8_t fill)
{
  mxlGrainInfo gi;
  uint8_t *payload;

  g_assert_cmpint (mxlFlowWriterOpenGrain (f->w, index, &gi, &payload), ==, MXL_STATUS_OK);
  g_assert_cmpuint (gi.index, ==, index);
  memset (payload, fill, gi.grainSize);
  gi.validSlices = valid;
  gi.flags = flags;
  g_assert_cmpint (mxlFlowWriterCommitGrain (f->w, &gi), ==, MXL_STATUS_OK);
}

/* §8.1 case 1 */
static void
test_create_commit_read (Fixture *f, gconstpointer data)
{
  mxlRational rate = f->cfg.common.grainRate;
  uint64_t idx = mxlGetCurrentIndex (&rate);
  mxlGrainInfo gi, got;
  uint8_t *payload, *rp = NULL;
  bool active = false;
  mxlFlowRuntimeInfo rt0, rt1;

  g_assert_cmpuint (f->cfg.discrete.sliceSizes[0], ==, 5120);
  g_assert_cmpuint (f->cfg.discrete.sliceSizes[1], ==, 0);
  g_assert_cmpint (mxlIsFlowActive (f->ri, FIXTURE_VIDEO_ID, &active), ==, MXL_STATUS_OK);
  g_assert_true (active);
  g_assert_cmpuint (flowtest_head (f->r), ==, 0);
  /* nothing committed: a current index is too early */
  g_assert_cmpint (mxlFlowReaderGetGrainNonBlocking (f->r, idx, &got, &rp), ==, MXL_ERR_OUT_OF_RANGE_TOO_EARLY);

  g_assert_cmpint (mxlFlowWriterOpenGrain (f->w, idx, &gi, &payload), ==, MXL_STATUS_OK);
  g_assert_cmpuint (gi.grainSize, ==, 5529600);
  g_assert_cmpuint (gi.index, ==, idx);
  g_assert_cmpuint (gi.totalSlices, ==, 1080);
  payload[0] = 0xCA;
  payload[gi.grainSize - 1] = 0xFE;
  gi.flags = MXL_GRAIN_FLAG_INVALID;
  gi.validSlices = 0;
  g_assert_cmpint (mxlFlowReaderGetRuntimeInfo (f->r, &rt0), ==, MXL_STATUS_OK);
  mxlSleepForNs (1000000);
  g_assert_cmpint (mxlFlowWriterCommitGrain (f->w, &gi), ==, MXL_STATUS_OK);

  /* the invalid grain is kept and readable (§4.6) */
  g_assert_cmpint (mxlFlowReaderGetGrain (f->r, idx, 16, &got, &rp), ==, MXL_STATUS_OK);
  g_assert_cmpuint (got.flags, ==, 1);
  g_assert_cmpuint (got.validSlices, ==, 0);
  g_assert_cmpuint (got.index, ==, idx);
  g_assert_cmphex (rp[0], ==, 0xCA);
  g_assert_cmphex (rp[5529599], ==, 0xFE);
  g_assert_cmpuint (flowtest_head (f->r), ==, idx);

  /* lastWriteTime moved; lastReadTime moves via `access` and the watcher */
  for (int i = 0; i < 200; i++) {
    g_assert_cmpint (mxlFlowReaderGetRuntimeInfo (f->r, &rt1), ==, MXL_STATUS_OK);
    if (rt1.lastReadTime > rt0.lastReadTime)
      break;
    mxlSleepForNs (5000000);
  }
  g_assert_cmpuint (rt1.lastWriteTime, >, rt0.lastWriteTime);
  g_assert_cmpuint (rt1.lastReadTime, >, rt0.lastReadTime);

  g_assert_cmpint (mxlReleaseFlowReader (f->ri, f->r), ==, MXL_STATUS_OK);
  f->r = NULL;
  g_assert_cmpint (mxlFlowWriterOpenGrain (f->w, idx + 1, &gi, &payload), ==, MXL_STATUS_OK);
}

/* §8.1 case 2 */
static void
test_v210a (Fixture *f, gconstpointer data)
{
  mxlGrainInfo gi, got;
  uint8_t *payload, *rp;

  g_assert_cmpuint (f->cfg.discrete.sliceSizes[0], ==, 5120);
  g_assert_cmpuint (f->cfg.discrete.sliceSizes[1], ==, 2560);
  g_assert_cmpint (mxlFlowWriterOpenGrain (f->w, 100, &gi, &payload), ==, MXL_STATUS_OK);
  g_assert_cmpuint (gi.grainSize, ==, 8294400);
  /* fill line 0 at 0, key line 0 right after the fill plane at 5 529 600 */
  payload[0] = 0x11;
  payload[5529600] = 0x22;
  payload[8294399] = 0x33;
  gi.validSlices = 1080;
  gi.flags = 0;
  g_assert_cmpint (mxlFlowWriterCommitGrain (f->w, &gi), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFlowReaderGetGrain (f->r, 100, 0, &got, &rp), ==, MXL_STATUS_OK);
  g_assert_cmphex (rp[0], ==, 0x11);
  g_assert_cmphex (rp[5529600], ==, 0x22);
  g_assert_cmphex (rp[8294399], ==, 0x33);
  {
    GBytes *g = flowtest_read_file (f->domain, FIXTURE_VIDEO_ID, "grains/data.0");
    g_assert_cmpuint (g_bytes_get_size (g), ==, 8302592);
    g_assert_cmphex (((const uint8_t *) g_bytes_get_data (g, NULL))[5537792], ==, 0x22);
    g_bytes_unref (g);
  }
}

/* §8.1 case 3: an RFC 8331 payload from its Length field */
static void
test_data_grain (Fixture *f, gconstpointer data)
{
  static const uint8_t anc[] = {
    0x00, 0x14, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,   /* Length 20, ANC_Count 1, F, reserved */
    0x00, 0x09, 0x00, 0x00, 0x61, 0x81, 0x02, 0x12,   /* C, line, offset, DID/SDID, DC ... */
    0x34, 0x56, 0x78, 0x9a,
  };
  mxlGrainInfo gi, got;
  uint8_t *payload, *rp;

  g_assert_cmpint (mxlFlowWriterOpenGrain (f->w, 7, &gi, &payload), ==, MXL_STATUS_OK);
  g_assert_cmpuint (gi.grainSize, ==, 4096);
  g_assert_cmpuint (gi.totalSlices, ==, 4096);
  memcpy (payload, anc, sizeof anc);
  gi.validSlices = 4096;
  g_assert_cmpint (mxlFlowWriterCommitGrain (f->w, &gi), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFlowReaderGetGrain (f->r, 7, 0, &got, &rp), ==, MXL_STATUS_OK);
  g_assert_cmpmem (rp, sizeof anc, anc, sizeof anc);
  g_assert_cmpuint (rp[2], ==, 1);
}

/* §8.1 case 4 and a recreated flow under a reader (inode stamp) */
static void
test_stale_reader (Fixture *f, gconstpointer data)
{
  mxlRational rate = f->cfg.common.grainRate;
  mxlGrainInfo got;
  uint8_t *rp;

  commit (f, 10, 1080, 0, 1);
  g_assert_cmpint (mxlFlowReaderGetGrainNonBlocking (f->r, 11, &got, &rp), ==, MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
  g_assert_cmpint (mxlReleaseFlowWriter (f->wi, f->w), ==, MXL_STATUS_OK);   /* deletes the flow */
  g_assert_cmpint (mxlFlowReaderGetGrain (f->r, mxlGetCurrentIndex (&rate), 16, &got, &rp), ==, MXL_ERR_FLOW_INVALID);
  /* recreated with a new inode: still invalid for the old reader */
  g_assert_cmpint (mxlCreateFlowWriter (f->wi, f->def, NULL, &f->w, NULL, NULL), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFlowReaderGetGrainNonBlocking (f->r, 11, &got, &rp), ==, MXL_ERR_FLOW_INVALID);
  /* already-committed data in the old mapping still reads OK (only TOO_EARLY checks) */
  g_assert_cmpint (mxlFlowReaderGetGrainNonBlocking (f->r, 10, &got, &rp), ==, MXL_STATUS_OK);
  /* a new reader of the recreated flow is valid */
  g_assert_cmpint (mxlReleaseFlowReader (f->ri, f->r), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlCreateFlowReader (f->ri, FIXTURE_VIDEO_ID, NULL, &f->r), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFlowReaderGetGrainNonBlocking (f->r, 11, &got, &rp), ==, MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
}

/* §5.4 windows with N = 5 (§8.2 X6) and ring slot reuse */
static void
test_windows_and_reuse (Fixture *f, gconstpointer data)
{
  const uint64_t base = 1000000;
  mxlGrainInfo got;
  uint8_t *rp;

  g_assert_cmpuint (f->cfg.discrete.grainCount, ==, 5);
  for (uint64_t i = base; i < base + 12; i++)
    commit (f, i, 1080, 0, (uint8_t) i);
  /* H = base + 11: window [base + 7, base + 11] */
  g_assert_cmpuint (flowtest_head (f->r), ==, base + 11);
  g_assert_cmpint (mxlFlowReaderGetGrainNonBlocking (f->r, base + 11 - 5, &got, &rp), ==, MXL_ERR_OUT_OF_RANGE_TOO_LATE);
  g_assert_cmpint (mxlFlowReaderGetGrainNonBlocking (f->r, base + 11 - 4, &got, &rp), ==, MXL_STATUS_OK);
  g_assert_cmpuint (got.index, ==, base + 7);
  g_assert_cmpuint (rp[100], ==, (uint8_t) (base + 7));
  g_assert_cmpint (mxlFlowReaderGetGrainNonBlocking (f->r, base + 12, &got, &rp), ==, MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
  /* the slot of base + 2 was reused by base + 7 and base + 12 is not there yet */
  g_assert_true (rp == mxl_flow_reader_grain_slot (f->r, (base + 7) % 5, NULL) + 8192);
  for (uint64_t i = base + 7; i <= base + 11; i++) {
    g_assert_cmpint (mxlFlowReaderGetGrainNonBlocking (f->r, i, &got, &rp), ==, MXL_STATUS_OK);
    g_assert_cmpuint (got.index, ==, i);
    g_assert_cmpuint (rp[5529599], ==, (uint8_t) i);
  }
  /* early flow: H < N means minIndex 0 */
  {
    mxlGrainInfo gi;
    uint8_t *p;
    g_assert_cmpint (mxlFlowWriterOpenGrain (f->w, 2, &gi, &p), ==, MXL_STATUS_OK);
    gi.validSlices = 1080;
    g_assert_cmpint (mxlFlowWriterCommitGrain (f->w, &gi), ==, MXL_STATUS_OK);
    /* H moves backwards on an out-of-order commit (§4.2, reproduced) */
    g_assert_cmpuint (flowtest_head (f->r), ==, 2);
    g_assert_cmpint (mxlFlowReaderGetGrainNonBlocking (f->r, 0, &got, &rp), ==, MXL_STATUS_OK);
    g_assert_cmpint (mxlFlowReaderGetGrainNonBlocking (f->r, 3, &got, &rp), ==, MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
  }
}

/* §8.1 case 8: partial commits; OpenGrain keeps validSlices and flags */
static void
test_partial_grains (Fixture *f, gconstpointer data)
{
  const uint64_t idx = 5000;
  const uint16_t batch = 270;
  mxlGrainInfo gi, got;
  uint8_t *payload, *rp;
  mxlFlowRuntimeInfo rt0, rt1;

  g_assert_cmpint (mxlFlowWriterOpenGrain (f->w, idx, &gi, &payload), ==, MXL_STATUS_OK);
  gi.flags = 0;
  for (uint16_t valid = batch; valid <= 1080; valid += batch) {
    g_assert_cmpint (mxlFlowReaderGetRuntimeInfo (f->r, &rt0), ==, MXL_STATUS_OK);
    mxlSleepForNs (1000);
    memset (payload + (size_t) (valid - batch) * 5120, valid / batch, (size_t) batch * 5120);
    gi.validSlices = valid;
    g_assert_cmpint (mxlFlowWriterCommitGrain (f->w, &gi), ==, MXL_STATUS_OK);
    g_assert_cmpuint (flowtest_head (f->r), ==, idx);
    g_assert_cmpint (mxlFlowReaderGetRuntimeInfo (f->r, &rt1), ==, MXL_STATUS_OK);
    g_assert_cmpuint (rt1.lastWriteTime, >, rt0.lastWriteTime);
    g_assert_cmpint (mxlFlowReaderGetGrainSlice (f->r, idx, valid, 8, &got, &rp), ==, MXL_STATUS_OK);
    g_assert_cmpuint (got.validSlices, ==, valid);
    g_assert_cmpuint (rp[(size_t) (valid - 1) * 5120], ==, valid / batch);
    if (valid < 1080) {
      /* one more slice than committed, or the whole grain: not yet */
      g_assert_cmpint (mxlFlowReaderGetGrainSliceNonBlocking (f->r, idx, valid + 1, &got, &rp), ==, MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
      g_assert_cmpint (mxlFlowReaderGetGrainNonBlocking (f->r, idx, &got, &rp), ==, MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
      /* ANY accepts whatever is there */
      g_assert_cmpint (mxlFlowReaderGetGrainSliceNonBlocking (f->r, idx, MXL_GRAIN_VALID_SLICES_ANY, &got, &rp), ==, MXL_STATUS_OK);
    }
  }
  /* complete: the grain closed, a further commit of it is refused */
  g_assert_cmpint (mxlFlowReaderGetGrainNonBlocking (f->r, idx, &got, &rp), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFlowWriterCommitGrain (f->w, &gi), ==, MXL_ERR_INVALID_ARG);

  /* a lap later, OpenGrain hands back the slot's old validSlices/flags (§4.2) */
  g_assert_cmpint (mxlFlowWriterOpenGrain (f->w, idx + 5, &gi, &payload), ==, MXL_STATUS_OK);
  g_assert_cmpuint (gi.index, ==, idx + 5);
  g_assert_cmpuint (gi.validSlices, ==, 1080);
  /* like a fabrics target: header written remotely, then open + commit */
  ((mxlGrainInfo *) mxl_flow_writer_grain_slot (f->w, (idx + 6) % 5, NULL))->validSlices = 540;
  ((mxlGrainInfo *) mxl_flow_writer_grain_slot (f->w, (idx + 6) % 5, NULL))->flags = MXL_GRAIN_FLAG_INVALID;
  g_assert_cmpint (mxlFlowWriterOpenGrain (f->w, idx + 6, &gi, &payload), ==, MXL_STATUS_OK);
  g_assert_cmpuint (gi.validSlices, ==, 540);
  g_assert_cmpuint (gi.flags, ==, MXL_GRAIN_FLAG_INVALID);
  g_assert_cmpint (mxlFlowWriterCommitGrain (f->w, &gi), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxlFlowReaderGetGrainSliceNonBlocking (f->r, idx + 6, 540, &got, &rp), ==, MXL_STATUS_OK);
  g_assert_cmpuint (got.validSlices, ==, 540);
  g_assert_cmpuint (got.flags, ==, 1);
}

static void
test_writer_errors (Fixture *f, gconstpointer data)
{
  mxlGrainInfo gi, got;
  uint8_t *payload, *rp;
  mxlMutableWrappedMultiBufferSlice ms;
  mxlWrappedMultiBufferSlice rs;
  size_t len;

  /* commit without open, with another index, with too many slices */
  memset (&gi, 0, sizeof gi);
  g_assert_cmpint (mxlFlowWriterCommitGrain (f->w, &gi), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFlowWriterOpenGrain (f->w, 50, &gi, &payload), ==, MXL_STATUS_OK);
  gi.index = 51;
  g_assert_cmpint (mxlFlowWriterCommitGrain (f->w, &gi), ==, MXL_ERR_INVALID_ARG);
  gi.index = 50;
  gi.validSlices = 1081;
  g_assert_cmpint (mxlFlowWriterCommitGrain (f->w, &gi), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFlowWriterCommitGrain (f->w, NULL), ==, MXL_ERR_INVALID_ARG);
  /* cancel: nothing published, commit refused */
  g_assert_cmpint (mxlFlowWriterCancelGrain (f->w), ==, MXL_STATUS_OK);
  gi.validSlices = 1080;
  g_assert_cmpint (mxlFlowWriterCommitGrain (f->w, &gi), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpuint (flowtest_head (f->r), ==, 0);
  /* the open stored the index in the slot (§4.2) */
  g_assert_cmpint (mxlFlowWriterGetGrainInfo (f->w, 50, &got), ==, MXL_STATUS_OK);
  g_assert_cmpuint (got.index, ==, 50);
  /* NULL arguments and the wrong kind */
  g_assert_cmpint (mxlFlowWriterOpenGrain (NULL, 1, &gi, &payload), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFlowWriterOpenGrain (f->w, 1, NULL, &payload), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFlowReaderGetGrain (f->r, 1, 0, NULL, &rp), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFlowReaderGetGrain (NULL, 1, 0, &got, &rp), ==, MXL_ERR_INVALID_ARG);
  g_assert_cmpint (mxlFlowWriterOpenSamples (f->w, 100, 10, &ms), ==, MXL_ERR_INVALID_FLOW_WRITER);
  g_assert_cmpint (mxlFlowWriterCommitSamples (f->w), ==, MXL_ERR_INVALID_FLOW_WRITER);
  g_assert_cmpint (mxlFlowWriterGetMaxWriteLengthSamples (f->w, &len), ==, MXL_ERR_INVALID_FLOW_WRITER);
  g_assert_cmpint (mxlFlowReaderGetSamples (f->r, 100, 10, 0, &rs), ==, MXL_ERR_INVALID_FLOW_READER);
  g_assert_cmpint (mxlFlowReaderGetMaxReadLengthSamples (f->r, &len), ==, MXL_ERR_INVALID_FLOW_READER);
  g_assert_null (mxl_flow_writer_channels (f->w, &len));
  g_assert_null (mxl_flow_writer_grain_slot (f->w, 5, &len));
}

static void
test_layout_accessors (Fixture *f, gconstpointer data)
{
  MxlFlowLayout lw, lr;
  size_t len = 0;

  g_assert_cmpint (mxl_flow_writer_get_layout (f->w, &lw), ==, MXL_STATUS_OK);
  g_assert_cmpint (mxl_flow_reader_get_layout (f->r, &lr), ==, MXL_STATUS_OK);
  g_assert_cmpmem (&lw, sizeof lw, &lr, sizeof lr);
  g_assert_cmpint (lw.format, ==, MXL_DATA_FORMAT_VIDEO);
  g_assert_cmpuint (lw.grain_count, ==, 5);
  g_assert_cmpuint (lw.slice_sizes[0], ==, 5120);
  g_assert_cmpuint (lw.total_slices, ==, 1080);
  g_assert_cmpuint (lw.grain_size, ==, 5529600);
  g_assert_cmpuint (lw.sync_batch_hint, ==, 1080);
  g_assert_cmpuint (lw.buffer_length, ==, 0);
  g_assert_nonnull (mxl_flow_reader_grain_slot (f->r, 4, &len));
  g_assert_cmpuint (len, ==, 8192 + 5529600);
  g_assert_null (mxl_flow_reader_grain_slot (f->r, 5, &len));
  g_assert_null (mxl_flow_reader_channels (f->r, &len));
  g_assert_cmpstr (mxl_flow_reader_get_def (f->r), ==, f->def);
  {
    mxlFlowInfo info;
    g_assert_cmpint (mxlFlowReaderGetInfo (f->r, &info), ==, MXL_STATUS_OK);
    g_assert_cmpuint (info.version, ==, 1);
    g_assert_cmpuint (info.config.discrete.grainCount, ==, 5);
    g_assert_cmpint (mxlFlowReaderGetConfigInfo (f->r, &info.config), ==, MXL_STATUS_OK);
    g_assert_cmpint (mxlFlowReaderGetInfo (f->r, NULL), ==, MXL_ERR_INVALID_ARG);
  }
}

/* §8.1 case 15: waiting for a grain committed one frame period later */
typedef struct {
  Fixture *f;
  uint64_t target;
} Feeder;

static gpointer
feeder (gpointer data)
{
  Feeder *fd = data;
  mxlRational rate = fd->f->cfg.common.grainRate;

  for (uint64_t i = fd->target - 3; i <= fd->target; i++) {
    mxlGrainInfo gi;
    uint8_t *p;

    mxlSleepUntil (mxlIndexToTimestamp (&rate, i));
    g_assert_cmpint (mxlFlowWriterOpenGrain (fd->f->w, i, &gi, &p), ==, MXL_STATUS_OK);
    memcpy (p, &i, sizeof i);
    gi.validSlices = gi.totalSlices;
    gi.flags = 0;
    g_assert_cmpint (mxlFlowWriterCommitGrain (fd->f->w, &gi), ==, MXL_STATUS_OK);
  }
  return NULL;
}

static void
test_wait_for_grain (Fixture *f, gconstpointer data)
{
  mxlRational rate = f->cfg.common.grainRate;
  Feeder fd = { f, mxlGetCurrentIndex (&rate) + 3 };
  GThread *t = g_thread_new ("feeder", feeder, &fd);
  mxlGrainInfo got;
  uint8_t *rp;
  uint64_t v;

  g_assert_cmpint (mxlFlowReaderGetGrain (f->r, fd.target, 1000000000, &got, &rp), ==, MXL_STATUS_OK);
  g_assert_cmpuint (got.validSlices, ==, got.totalSlices);
  memcpy (&v, rp, sizeof v);
  g_assert_cmpuint (v, ==, fd.target);
  g_thread_join (t);
}

/* Timeouts are honoured: an expired wait is TOO_EARLY after about the timeout. */
static void
test_timeout (Fixture *f, gconstpointer data)
{
  mxlGrainInfo got;
  uint8_t *rp;
  uint64_t t0 = g_get_monotonic_time ();

  g_assert_cmpint (mxlFlowReaderGetGrain (f->r, 99, 30000000, &got, &rp), ==, MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
  g_assert_cmpint (g_get_monotonic_time () - t0, >=, 30000);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 1000000);
  t0 = g_get_monotonic_time ();
  g_assert_cmpint (mxlFlowReaderGetGrain (f->r, 99, 0, &got, &rp), ==, MXL_ERR_OUT_OF_RANGE_TOO_EARLY);
  g_assert_cmpint (g_get_monotonic_time () - t0, <, 20000);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, setup, fn) g_test_add (path, Fixture, NULL, setup, fn, teardown)
  ADD ("/grains/create-commit-read", setup_v210, test_create_commit_read);
  ADD ("/grains/v210a", setup_v210a, test_v210a);
  ADD ("/grains/data", setup_data, test_data_grain);
  ADD ("/grains/stale-reader", setup_v210, test_stale_reader);
  ADD ("/grains/windows-and-reuse", setup_v210, test_windows_and_reuse);
  ADD ("/grains/partial", setup_v210, test_partial_grains);
  ADD ("/grains/writer-errors", setup_v210, test_writer_errors);
  ADD ("/grains/layout-accessors", setup_v210, test_layout_accessors);
  ADD ("/grains/wait-for-grain", setup_v210, test_wait_for_grain);
  ADD ("/grains/timeout", setup_v210, test_timeout);
#undef ADD
  return g_test_run ();
}
